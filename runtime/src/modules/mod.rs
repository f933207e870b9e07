//! The execution-function registry, Salt's loader in Rust: every function
//! a minion runs by `module.function` name, in one table. `brine-call`,
//! jobs from the master and Jinja's `salt[...]` (through [`functions`]) all
//! call through it, so they cannot disagree.
//!
//! One file per Salt module lists that module's functions (name, a
//! docstring of our own, the implementation); [`MODULES`] lists the
//! modules. Adding a module is adding a file and one line there.
//!
//! Arguments bind as Salt binds them (`params`: positional and keyword,
//! `__pub_*` publish metadata dropped, Python's wording for what does not
//! fit). Functions that only read the minion's data ([`Function::reads`])
//! answer templates too and hand back borrowed pieces of it
//! ([`Returned`]); those that need the running minion
//! ([`Function::minion`]: fresh compiles, state runs) only answer the
//! command line and jobs.

mod archive;
mod cmd;
mod config;
mod cp;
mod cron;
mod defaults;
mod disk;
mod file;
mod grains;
mod grains_set;
mod group;
mod hiera;
mod hosts;
mod locale;
mod log;
mod match_;
mod mine;
mod mount;
mod network;
mod params;
mod pillar;
mod pkg;
mod proctable;
mod ps;
mod run;
mod saltutil;
mod saltutil_sync;
mod service;
#[rustfmt::skip]
mod signatures;
mod slsutil;
mod state;
mod state_request;
mod state_run;
mod status;
mod sys;
mod sysctl;
mod test;
#[cfg(test)]
mod testkit;
mod timezone;
mod traverse;
mod user;

use crate::context::Minion;
use brine_compile::minion_data::functions::{ExecFunctions, Functions, Returned};
use brine_compile::MinionData;
use brine_core::args::CallArgs;
use brine_core::{Map, Value};
use params::Params;
use std::borrow::Cow;
use std::sync::{Arc, LazyLock};

pub use params::invalid_kwargs;

/// Why a call failed: the registry's errors are the ones templates see.
pub use brine_compile::minion_data::functions::FunctionError as CallError;

/// Every module, by name.
pub static MODULES: &[Module] = &[
    Module::new("archive", archive::FUNCTIONS),
    Module::new("cmd", cmd::FUNCTIONS),
    Module::new("config", config::FUNCTIONS),
    Module::new("cp", cp::FUNCTIONS),
    Module::new("cron", cron::FUNCTIONS),
    Module::new("defaults", defaults::FUNCTIONS),
    Module::new("disk", disk::FUNCTIONS),
    Module::new("file", file::FUNCTIONS),
    Module::new("grains", grains::FUNCTIONS),
    Module::new("grains", grains_set::FUNCTIONS),
    Module::new("group", group::FUNCTIONS),
    Module::new("hiera", hiera::FUNCTIONS),
    Module::new("hosts", hosts::FUNCTIONS),
    Module::new("locale", locale::FUNCTIONS),
    Module::new("log", log::FUNCTIONS),
    Module::new("match", match_::FUNCTIONS),
    Module::new("mine", mine::FUNCTIONS),
    Module::new("mount", mount::FUNCTIONS),
    Module::new("network", network::FUNCTIONS),
    Module::new("pillar", pillar::FUNCTIONS),
    Module::new("pkg", pkg::FUNCTIONS),
    Module::new("ps", ps::FUNCTIONS),
    Module::new("saltutil", saltutil::FUNCTIONS),
    Module::new("saltutil", saltutil_sync::FUNCTIONS),
    Module::new("service", service::FUNCTIONS),
    Module::new("slsutil", slsutil::FUNCTIONS),
    Module::new("state", state::FUNCTIONS),
    Module::new("state", state_run::FUNCTIONS),
    Module::new("state", state_request::FUNCTIONS),
    Module::new("status", status::FUNCTIONS),
    Module::new("sys", sys::FUNCTIONS),
    Module::new("sysctl", sysctl::FUNCTIONS),
    Module::new("test", test::FUNCTIONS),
    Module::new("timezone", timezone::FUNCTIONS),
    Module::new("user", user::FUNCTIONS),
];

/// A Salt module: its name and (some of) its functions. A module may be
/// listed more than once (`state`: the compile side and the runs).
pub struct Module {
    pub name: &'static str,
    pub functions: &'static [Function],
}

impl Module {
    const fn new(name: &'static str, functions: &'static [Function]) -> Module {
        Module { name, functions }
    }
}

/// One execution function.
pub struct Function {
    /// The name inside its module (`get`).
    pub name: &'static str,
    /// What it does and how to call it (`sys.doc`).
    pub doc: &'static str,
    run: Run,
}

/// A function reading the minion's data: what it hands back may borrow it.
type Reads = for<'c> fn(&Ctx<'c>, Params) -> Result<Returned<'c>, CallError>;

/// A function that needs the running minion.
type Runs = fn(&mut Minion, Params) -> Result<Return, CallError>;

/// A function that acts on the host (runs a command) and sets a retcode;
/// templates may call it too (they see the value only).
type Acts = for<'c> fn(&Ctx<'c>, Params) -> Result<Return, CallError>;

#[derive(Clone, Copy)]
enum Run {
    /// Reads the minion's data (and may compile a fresh pillar when the
    /// running minion calls): the command line, jobs and templates.
    Reads(Reads),
    /// Needs the running minion: the command line and jobs only.
    Minion(Runs),
    /// Acts on the host with a retcode: the command line, jobs and
    /// templates.
    Acts(Acts),
}

impl Function {
    pub(crate) const fn reads(name: &'static str, doc: &'static str, f: Reads) -> Function {
        Function {
            name,
            doc,
            run: Run::Reads(f),
        }
    }

    pub(crate) const fn acts(name: &'static str, doc: &'static str, f: Acts) -> Function {
        Function {
            name,
            doc,
            run: Run::Acts(f),
        }
    }

    pub(crate) const fn minion(name: &'static str, doc: &'static str, f: Runs) -> Function {
        Function {
            name,
            doc,
            run: Run::Minion(f),
        }
    }
}

/// What a function returned, and the exit code salt-call would give
/// (Salt's `__context__["retcode"]`: state functions set 1 for compile
/// errors and 2 for failed states).
#[derive(Debug, Clone, PartialEq)]
pub struct Return {
    pub value: Value,
    pub retcode: i32,
}

impl From<Value> for Return {
    fn from(value: Value) -> Return {
        Return { value, retcode: 0 }
    }
}

/// What a reading function runs against: the minion's id and data, and who
/// asks.
pub(crate) struct Ctx<'c> {
    pub id: &'c str,
    pub grains: &'c Map,
    pub pillar: &'c Map,
    pub opts: &'c Map,
    pub caller: Caller<'c>,
}

#[derive(Clone, Copy)]
pub(crate) enum Caller<'c> {
    /// `brine-call` or a job: the running minion.
    Minion(&'c Minion),
    /// A template being rendered (pillar, states, a managed file).
    Template(&'c MinionData),
}

/// Data that is not a map reads as an empty one.
static EMPTY: LazyLock<Map> = LazyLock::new(Map::default);

fn map_of(v: &Value) -> &Map {
    v.as_map().unwrap_or(&EMPTY)
}

impl<'c> Ctx<'c> {
    fn of_minion(m: &'c Minion) -> Ctx<'c> {
        Ctx {
            id: &m.id,
            grains: &m.grains,
            pillar: &m.pillar,
            opts: &m.opts,
            caller: Caller::Minion(m),
        }
    }

    fn of_template(d: &'c MinionData) -> Ctx<'c> {
        Ctx {
            id: &d.id,
            grains: map_of(&d.grains),
            pillar: map_of(&d.pillar),
            opts: map_of(&d.opts),
            caller: Caller::Template(d),
        }
    }

    /// The minion as the matchers take it (borrowed in a template).
    pub fn minion_data(&self) -> Cow<'c, MinionData> {
        match self.caller {
            Caller::Template(d) => Cow::Borrowed(d),
            Caller::Minion(m) => Cow::Owned(MinionData {
                id: m.id.clone(),
                grains: Value::Map(Map::clone(&m.grains)),
                pillar: Value::Map(Map::clone(&m.pillar)),
                opts: Value::Map(Map::clone(&m.opts)),
                functions: m.functions.clone(),
            }),
        }
    }

    /// The running minion, when it is the caller (not a template).
    pub fn running(&self) -> Option<&'c Minion> {
        match self.caller {
            Caller::Minion(m) => Some(m),
            Caller::Template(_) => None,
        }
    }
}

/// The function named `module.function`.
pub fn find(fun: &str) -> Option<&'static Function> {
    let (module, name) = fun.split_once('.')?;
    MODULES
        .iter()
        .filter(|m| m.name == module)
        .flat_map(|m| m.functions)
        .find(|f| f.name == name)
}

/// Every `module.function` with its function, sorted by name.
pub fn all() -> Vec<(String, &'static Function)> {
    let mut out: Vec<(String, &'static Function)> = MODULES
        .iter()
        .flat_map(|m| {
            m.functions
                .iter()
                .map(move |f| (format!("{}.{}", m.name, f.name), f))
        })
        .collect();
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

/// Run `fun` with `args` on `minion` (`brine-call`, a job).
pub fn call(minion: &mut Minion, fun: &str, args: CallArgs) -> Result<Return, CallError> {
    let f = find(fun).ok_or_else(|| CallError::NotAvailable(fun.to_string()))?;
    let p = Params::new(f.name, args);
    match f.run {
        Run::Reads(read) => read(&Ctx::of_minion(minion), p).map(|r| Return::from(r.into_value())),
        Run::Minion(run) => run(minion, p),
        Run::Acts(act) => act(&Ctx::of_minion(minion), p),
    }
}

/// The registry as templates call it.
struct Registry;

impl ExecFunctions for Registry {
    fn call<'m>(
        &self,
        minion: &'m MinionData,
        fun: &str,
        args: CallArgs,
    ) -> Result<Returned<'m>, CallError> {
        let f = find(fun).ok_or_else(|| CallError::NotAvailable(fun.to_string()))?;
        let params = || {
            let mut p = Params::new(f.name, args);
            p.from_template = true;
            p
        };
        match f.run {
            Run::Reads(read) => read(&Ctx::of_template(minion), params()),
            Run::Minion(_) => Err(CallError::NotInTemplates(fun.to_string())),
            Run::Acts(act) => {
                act(&Ctx::of_template(minion), params()).map(|r| Returned::New(r.value))
            }
        }
    }

    fn names(&self) -> Vec<String> {
        all().into_iter().map(|(n, _)| n).collect()
    }

    fn replayable(&self, fun: &str) -> bool {
        REPLAYABLE.contains(&fun)
    }
}

/// The functions whose answer in a template is made from the minion's
/// data (id, grains, the pillar so far, options) and the call's arguments
/// alone: a compile that called only these gives the same answer while its
/// files are unchanged (the master replays such pillars). Anything reading
/// the host, the clock, the network or other minions stays out.
const REPLAYABLE: &[&str] = &[
    "config.get",
    "config.items",
    "config.option",
    "config.valid_fileproto",
    "defaults.deepcopy",
    "defaults.merge",
    "grains.fetch",
    "grains.filter_by",
    "grains.get",
    "grains.has_value",
    "grains.item",
    "grains.items",
    "grains.ls",
    "match.compound",
    "match.glob",
    "match.grain",
    "match.grain_pcre",
    "match.ipcidr",
    "match.list",
    "match.pcre",
    "match.pillar",
    "match.pillar_pcre",
    "pillar.data",
    "pillar.fetch",
    "pillar.filter_by",
    "pillar.get",
    "pillar.item",
    "pillar.items",
    "pillar.keys",
    "pillar.ls",
    "pillar.obfuscate",
    "pillar.raw",
    "slsutil.merge",
];

/// The registry as a compile takes it ([`MinionData::functions`], a pillar
/// request's `functions`): what `salt[...]` calls in templates.
pub fn functions() -> Functions {
    static REGISTRY: LazyLock<Functions> = LazyLock::new(|| Functions::new(Arc::new(Registry)));
    REGISTRY.clone()
}

#[cfg(test)]
mod tests;
