//! The state runtime: low chunks in, Salt's running dictionary out.
//!
//! - [`runtime`]: evaluation and execution of each chunk once, requisites
//!   evaluated depth-first before the chunk, failure propagation, loops.
//! - [`modules`]: the state modules (`test`, `file`, `cmd`, `pkg`, `user`,
//!   `group`, `service`) behind one interface, [`StateModule`].
//! - [`fileclient`]: `salt://` sources, resolved in `file_roots` (or fetched
//!   from the master by the daemon).

pub mod fileclient;
pub mod modules;
pub mod runtime;

use brine_protocol::{Map, Value};
use std::sync::Arc;

/// What every state function of a run can see: Salt's `__opts__`,
/// `__grains__`, `__pillar__`, the run's saltenv and test flag, and the file
/// client for `salt://` URLs.
#[derive(Clone)]
pub struct StateContext {
    pub opts: Arc<Map>,
    pub grains: Arc<Map>,
    pub pillar: Arc<Map>,
    pub saltenv: String,
    /// `test=True` for the whole run (a chunk may also carry `test`).
    pub test: bool,
    pub fileclient: Arc<dyn fileclient::FileClient>,
}

/// One state function call: the low chunk (`name`, `state`, `fun`,
/// `__id__`, `__sls__`, `__env__` and the state's arguments).
pub struct StateCall<'a> {
    pub low: &'a Map,
    /// Effective test mode for this call.
    pub test: bool,
    pub ctx: &'a StateContext,
}

impl StateCall<'_> {
    pub fn name(&self) -> &str {
        self.low.get("name").and_then(Value::as_str).unwrap_or("")
    }
    pub fn fun(&self) -> &str {
        self.low.get("fun").and_then(Value::as_str).unwrap_or("")
    }
    /// An argument of the state function.
    pub fn arg(&self, key: &str) -> Option<&Value> {
        self.low.get(key)
    }
}

/// What a state function returns (Salt's `ret` dict before the runtime adds
/// `__run_num__`, `__id__`, `__sls__`, `start_time`, `duration`).
#[derive(Debug, Clone, PartialEq)]
pub struct StateReturn {
    pub name: String,
    pub changes: Map,
    /// `None` in test mode where a change would be made.
    pub result: Option<bool>,
    pub comment: String,
    /// Further keys some functions return (`warnings`, `pchanges`...).
    pub extra: Map,
}

impl StateReturn {
    pub fn new(name: &str) -> StateReturn {
        StateReturn {
            name: name.to_string(),
            changes: Map::new(),
            result: Some(true),
            comment: String::new(),
            extra: Map::new(),
        }
    }
}

/// A state module (`file`, `cmd`, ...).
pub trait StateModule: Send + Sync {
    /// Functions this module has (`managed`, `directory`, ...).
    fn has_function(&self, fun: &str) -> bool;
    /// Run `call.fun()`; only called when `has_function` said yes.
    fn call(&self, call: &StateCall) -> StateReturn;
    /// What a `watch` requisite triggers when a watched state changed;
    /// `None` when the module has no `mod_watch`.
    fn mod_watch(&self, call: &StateCall) -> Option<StateReturn> {
        let _ = call;
        None
    }
}
