//! One state function: what it sees ([`StateContext`], [`StateCall`]),
//! what it returns ([`StateReturn`]), and its descriptor
//! ([`StateFunction`]: name, parameters as Salt declares them, docs, the
//! code), gathered by module into a [`StateModule`]. The engine checks a
//! call's arguments against the signature and runs the code; `sys.*`
//! lists the descriptors.

use brine_compile::minion_data::FunctionError;
use brine_core::args::CallArgs;
use brine_core::signature::Signature;
use brine_core::{Map, Value};
use std::borrow::Cow;
use std::sync::Arc;

use crate::fileclient;

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
    pub functions: brine_compile::minion_data::Functions,
    /// The daemon's running jobs as this run sees them: commands a state
    /// starts are registered so `saltutil.kill_job` reaches them.
    pub jobs: brine_host::jobs::Jobs,
    /// Every execution function, called as the running minion calls it
    /// (Salt's `__salt__` in a state module: `module.run`, `grains.*`).
    pub minion: MinionCalls,
    /// What `file.accumulated` states of this run gathered for the
    /// `file.managed` / `file.blockreplace` states they feed.
    pub accumulators: Accumulators,
}

/// The execution functions as a state calls them: the runtime's registry
/// acting as the running minion (its options, grains and the run's
/// pillar). The template trait ([`brine_compile::minion_data::ExecFunctions`])
/// answers compiles, where only functions that read may run and answers
/// borrow the compile's data; a state needs every function, with the
/// minion's own state, so this is a trait of its own.
pub trait MinionFunctions: Send + Sync {
    /// The signature of `fun`, `None` when there is no such function
    /// (Salt's `fun in __salt__`).
    fn signature(&self, fun: &str) -> Option<Signature>;
    /// Call `fun` with `args`; its return value.
    fn call(&self, fun: &str, args: CallArgs) -> Result<Value, FunctionError>;
    /// The minion's grains as they are now: a function called through
    /// here may have written some (`grains.setval`), and Salt's later
    /// states see them.
    fn grains(&self) -> Option<Arc<Map>>;
    /// Fire `suffix` on the bus as an event of the job this run serves
    /// (Salt's `__jid_event__`: an orchestration's `salt/run/<jid>/args`).
    /// Nothing outside an orchestration.
    fn jid_event(&self, suffix: &str, data: Value) {
        let _ = (suffix, data);
    }
}

/// The handle a [`StateContext`] carries; without one (tests, compiles)
/// every function is unavailable.
#[derive(Clone, Default)]
pub struct MinionCalls(Option<Arc<dyn MinionFunctions>>);

impl MinionCalls {
    pub fn new(f: Arc<dyn MinionFunctions>) -> MinionCalls {
        MinionCalls(Some(f))
    }

    /// The signature of `fun`, if the minion has it.
    pub fn signature(&self, fun: &str) -> Option<Signature> {
        self.0.as_ref()?.signature(fun)
    }

    /// The minion's grains now, when there is a minion.
    pub fn grains(&self) -> Option<Arc<Map>> {
        self.0.as_ref()?.grains()
    }

    /// An event of the job this run serves ([`MinionFunctions::jid_event`]).
    pub fn jid_event(&self, suffix: &str, data: Value) {
        if let Some(f) = &self.0 {
            f.jid_event(suffix, data);
        }
    }

    /// Call `fun` as the running minion.
    pub fn call(&self, fun: &str, args: CallArgs) -> Result<Value, FunctionError> {
        match &self.0 {
            Some(f) => f.call(fun, args),
            None => Err(FunctionError::NotAvailable(fun.to_string())),
        }
    }
}

impl std::fmt::Debug for MinionCalls {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self.0 {
            Some(_) => "MinionCalls",
            None => "MinionCalls(none)",
        })
    }
}

/// Text gathered by `file.accumulated` during one run (Salt keeps it in a
/// file of the minion's cache named after the run's `State` object):
/// per target file, per accumulator name, the texts in the order they
/// came, and the states each accumulator was declared for
/// (`require_in` / `watch_in`).
#[derive(Clone, Default)]
pub struct Accumulators(Arc<std::sync::Mutex<AccumulatorData>>);

/// The gathered data: `filename → accumulator name → values`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct AccumulatorData {
    pub data: indexmap::IndexMap<String, indexmap::IndexMap<String, Vec<Value>>>,
    pub deps: indexmap::IndexMap<String, indexmap::IndexMap<String, Vec<Value>>>,
}

impl Accumulators {
    /// A copy of what is gathered so far.
    pub fn snapshot(&self) -> AccumulatorData {
        match self.0.lock() {
            Ok(g) => g.clone(),
            Err(poisoned) => poisoned.into_inner().clone(),
        }
    }

    /// Change the gathered data under the lock.
    pub fn update<T>(&self, f: impl FnOnce(&mut AccumulatorData) -> T) -> T {
        match self.0.lock() {
            Ok(mut g) => f(&mut g),
            Err(poisoned) => f(&mut poisoned.into_inner()),
        }
    }
}

impl StateContext {
    /// This context with the grains the minion has now: a state that ran
    /// before may have written grains, and the next one sees them (Salt's
    /// states share one `__grains__`).
    pub fn current(&self) -> Cow<'_, StateContext> {
        match self.minion.grains() {
            Some(g) if !Arc::ptr_eq(&g, &self.grains) && *g != *self.grains => {
                let mut c = self.clone();
                c.grains = g;
                Cow::Owned(c)
            }
            _ => Cow::Borrowed(self),
        }
    }

    /// Salt's `config.option(key)` as execution modules ask it: the first
    /// of opts, grains, pillar and pillar['master'] holding `key`.
    pub fn config_option(&self, key: &str) -> Option<&Value> {
        let master = self.pillar.get("master").and_then(Value::as_map);
        [
            Some(&*self.opts),
            Some(&*self.grains),
            Some(&*self.pillar),
            master,
        ]
        .into_iter()
        .flatten()
        .find_map(|m| m.get(key))
    }

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

/// The comment of a state whose function raised: Salt writes the
/// traceback after these words; brine writes the exception's last line,
/// which the traceback ends with (and its newline).
pub fn raised(exception: impl std::fmt::Display) -> String {
    format!("An exception occurred in this state: {exception}\n")
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

/// The code of a state function.
pub type Run = fn(&StateCall) -> StateReturn;

/// One state function, described once.
pub struct StateFunction {
    /// Its name in its module (`managed`).
    pub name: &'static str,
    /// Its parameters as Salt 3007.8's state module declares them: the
    /// engine refuses a call missing one without a default, and (without
    /// `**kwargs`) one naming a parameter it lacks.
    pub sig: Signature,
    /// What it does (`sys.state_doc`).
    pub doc: &'static str,
    pub run: Run,
}

impl StateFunction {
    pub const fn new(
        name: &'static str,
        sig: Signature,
        doc: &'static str,
        run: Run,
    ) -> StateFunction {
        StateFunction {
            name,
            sig,
            doc,
            run,
        }
    }
}

/// A state module (`file`, `cmd`, ...): its functions, and `mod_watch`
/// among them where Salt's module has one (a `watch` on a module without
/// it acts as a `require`).
pub struct StateModule {
    pub name: &'static str,
    /// What the module is for (`sys.list_state_modules`' docs).
    pub doc: &'static str,
    pub functions: &'static [StateFunction],
}

impl StateModule {
    /// The function `fun` of this module.
    pub fn function(&self, fun: &str) -> Option<&'static StateFunction> {
        self.functions.iter().find(|f| f.name == fun)
    }

    /// Whether a `watch` on this module calls its `mod_watch`.
    pub fn has_mod_watch(&self) -> bool {
        self.function("mod_watch").is_some()
    }
}
