//! Salt's states: low chunks in, Salt's running dictionary out.
//!
//! - [`engine`]: the requisite engine: each chunk evaluated and run once,
//!   requisites depth-first before it, failure propagation, loops.
//! - [`modules`]: the state modules (`test`, `file`, `cmd`, `pkg`, `user`,
//!   `group`, `service`) behind one interface, [`StateModule`].
//! - [`fileclient`]: `salt://` sources, resolved in `file_roots` (or fetched
//!   from the master by the daemon).

pub mod fileclient;
pub mod modules;
pub mod posixpath;
pub mod random;
pub mod engine;

use brine_core::{Map, Value};
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
    /// What `salt[...]` calls in templates (`file.managed` with
    /// `template: jinja`).
    pub functions: brine_compile::minion_data::functions::Functions,
    /// The daemon's running jobs as this run sees them: commands a state
    /// starts are registered so `saltutil.kill_job` reaches them.
    pub jobs: brine_host::jobs::Jobs,
}

impl StateContext {
    /// A pillar value by `a:b:c` path, as `pillar.get` finds it.
    pub fn pillar_value(&self, key: &str) -> Option<&Value> {
        let (first, rest) = key.split_once(':').unwrap_or((key, ""));
        let v = self.pillar.get(first)?;
        if rest.is_empty() {
            Some(v)
        } else {
            v.traverse(rest, ":")
        }
    }
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
            changes: Map::default(),
            result: Some(true),
            comment: String::new(),
            extra: Map::default(),
        }
    }
}

/// How a state function declares its parameters, as Python's signature
/// would: the runtime checks calls against it the way Salt does
/// (`Missing parameter X for state m.f`, `'k' is an invalid keyword
/// argument for 'm.f'`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Signature {
    /// Parameters without a default, in order (`name` first).
    pub required: &'static [&'static str],
    /// Parameters with a default.
    pub optional: &'static [&'static str],
    /// Takes `**kwargs`: every other low-chunk key is passed too.
    pub kwargs: bool,
}

impl Signature {
    /// `fun(name, **kwargs)`, the shape of most state functions.
    pub const NAME_KWARGS: Signature = Signature {
        required: &["name"],
        optional: &[],
        kwargs: true,
    };

    /// Whether `key` is one of the declared parameters.
    pub fn declares(&self, key: &str) -> bool {
        self.required.contains(&key) || self.optional.contains(&key)
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
    /// Whether the module has `mod_watch`: without it a `watch` acts as a
    /// plain `require`. By default: `has_function("mod_watch")`; the
    /// runtime also knows which of Salt's own modules have one.
    fn has_mod_watch(&self) -> bool {
        self.has_function("mod_watch")
    }
    /// The parameters of `fun`; `None` skips the runtime's argument checks
    /// (everything in the low chunk is then available to the function).
    /// A function declaring `check_cmd` handles that option itself (Salt's
    /// `mod_run_check_cmd`); otherwise the runtime runs it.
    fn signature(&self, fun: &str) -> Option<Signature> {
        let _ = fun;
        None
    }
}
