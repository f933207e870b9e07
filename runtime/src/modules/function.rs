//! One execution function, described once: its name, its parameters as
//! Salt reports them (`sys.argspec`), its documentation (`sys.doc`), the
//! outputter its returns print with, whether the minion daemon runs it
//! itself, and the code that runs it. The registry, argument binding,
//! `sys.*`, the CLIs' outputter choice and the minion daemon all read this
//! descriptor, so a function's facts are written in one place.

use brine_compile::minion_data::Returned;
use brine_compile::MinionData;
use brine_core::{Map, Value};
use std::borrow::Cow;
use std::sync::LazyLock;

use super::params::Params;
use crate::context::Minion;
pub(crate) use brine_core::sig;
pub use brine_core::signature::Signature;

pub use brine_compile::minion_data::FunctionError as CallError;

/// The outputter a function's return prints with (Salt's
/// `__outputter__`), unless the command line names another.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Output {
    /// `nested`; with `Some(depth)`, the mappings from that depth on are
    /// Salt's `OrderedDict`s (YAML-loaded pillar data), printed in order.
    Nested { ordered_from: Option<usize> },
    /// `highstate`: a state run's running dictionary.
    Highstate,
    /// `txt`: the answer as text after the minion id.
    Txt,
}

impl Output {
    /// The outputter's name.
    pub fn name(self) -> &'static str {
        match self {
            Output::Nested { .. } => "nested",
            Output::Highstate => "highstate",
            Output::Txt => "txt",
        }
    }

    /// From which depth the nested outputter keeps mapping order.
    pub fn ordered_from(self) -> Option<usize> {
        match self {
            Output::Nested { ordered_from } => ordered_from,
            Output::Highstate | Output::Txt => None,
        }
    }
}

/// Functions the minion daemon answers itself rather than through the
/// registry on a blocking thread: they act on the daemon (its pillar) or
/// wait without holding a thread.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Daemon {
    /// Compile the pillar anew and swap the in-memory one.
    RefreshPillar,
    /// Sleep, then answer True.
    Sleep,
}

/// A function reading the minion's data: what it hands back may borrow it.
pub type Reads = for<'c> fn(&Ctx<'c>, Params) -> Result<Returned<'c>, CallError>;

/// A function that needs the running minion.
pub type Runs = fn(&mut Minion, Params) -> Result<Return, CallError>;

/// A function that acts on the host (runs a command) and sets a retcode;
/// templates may call it too (they see the value only).
pub type Acts = for<'c> fn(&Ctx<'c>, Params) -> Result<Return, CallError>;

#[derive(Clone, Copy)]
pub enum Run {
    /// Reads the minion's data (and may compile a fresh pillar when the
    /// running minion calls): the command line, jobs and templates.
    Reads(Reads),
    /// Needs the running minion: the command line and jobs only.
    Minion(Runs),
    /// Acts on the host with a retcode: the command line, jobs and
    /// templates.
    Acts(Acts),
}

/// One execution function.
pub struct Function {
    /// The name inside its module (`get`).
    pub name: &'static str,
    /// Its parameters, as `sys.argspec` reports them.
    pub sig: Signature,
    /// What it does and how to call it (`sys.doc`).
    pub doc: &'static str,
    /// How its return prints.
    pub output: Output,
    /// Whether the minion daemon answers it itself.
    pub daemon: Option<Daemon>,
    /// It changes the host though it needs the running minion (see
    /// [`Function::runs_apart`]).
    pub changes_host: bool,
    pub run: Run,
}

impl Function {
    const fn new(name: &'static str, sig: Signature, doc: &'static str, run: Run) -> Function {
        Function {
            name,
            sig,
            doc,
            output: Output::Nested { ordered_from: None },
            daemon: None,
            changes_host: false,
            run,
        }
    }

    pub(crate) const fn reads(
        name: &'static str,
        sig: Signature,
        doc: &'static str,
        f: Reads,
    ) -> Function {
        Function::new(name, sig, doc, Run::Reads(f))
    }

    pub(crate) const fn acts(
        name: &'static str,
        sig: Signature,
        doc: &'static str,
        f: Acts,
    ) -> Function {
        Function::new(name, sig, doc, Run::Acts(f))
    }

    pub(crate) const fn minion(
        name: &'static str,
        sig: Signature,
        doc: &'static str,
        f: Runs,
    ) -> Function {
        Function::new(name, sig, doc, Run::Minion(f))
    }

    /// Its returns print with the `highstate` outputter.
    pub(crate) const fn highstate(mut self) -> Function {
        self.output = Output::Highstate;
        self
    }

    /// Its returns print with the `txt` outputter.
    pub(crate) const fn txt(mut self) -> Function {
        self.output = Output::Txt;
        self
    }

    /// Its returns hold Salt's `OrderedDict`s from `depth` on.
    pub(crate) const fn ordered_from(mut self, depth: usize) -> Function {
        self.output = Output::Nested {
            ordered_from: Some(depth),
        };
        self
    }

    /// The minion daemon answers it itself.
    pub(crate) const fn in_daemon(mut self, d: Daemon) -> Function {
        self.daemon = Some(d);
        self
    }

    /// Whether a published job of it runs in a process of its own when
    /// the minion says `multiprocessing: True` (Salt's default): it changes
    /// the host — commands, packages, services, state runs — which may
    /// restart the minion itself (a highstate upgrading the minion's own
    /// package), and its return must outlive that. What only reads, and
    /// what acts on the daemon (`saltutil.*`, `schedule.*`), runs in the
    /// daemon.
    pub fn runs_apart(&self) -> bool {
        self.daemon.is_none()
            && (self.changes_host
                || matches!(self.run, Run::Acts(_))
                || matches!(self.output, Output::Highstate))
    }

    /// A `Function::minion` that changes the host (`cmd.script`): a
    /// published job of it runs apart, as commands do.
    pub(crate) const fn changes_host(mut self) -> Function {
        self.changes_host = true;
        self
    }

    /// Call arguments bound to this function's parameters.
    pub fn params(&'static self, args: brine_core::args::CallArgs) -> Params {
        Params::new(self.name, &self.sig, args)
    }
}

/// A Salt module: its name and (some of) its functions. A module may be
/// listed more than once (`state`: the compile side and the runs).
pub struct Module {
    pub name: &'static str,
    pub functions: &'static [Function],
}

impl Module {
    pub(crate) const fn new(name: &'static str, functions: &'static [Function]) -> Module {
        Module { name, functions }
    }
}

/// `args` bound to the parameters of the function `name` of `table`: for
/// code that calls another function's code (a sibling's, or its own
/// module's) with that function's parameters.
pub(crate) fn params_of(
    table: &'static [Function],
    name: &'static str,
    args: brine_core::args::CallArgs,
) -> Params {
    /// Any arguments at all: what a name missing from its table (a bug a
    /// debug build stops at) binds to.
    static OPEN: Signature = sig!(*args, **kwargs);
    match table.iter().find(|f| f.name == name) {
        Some(f) => f.params(args),
        None => {
            debug_assert!(false, "{name} is not in its table");
            Params::new(name, &OPEN, args)
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

/// What a reading function runs against: the minion's id and data, who
/// asks, and the registry it was called through (`sys.*` lists it).
pub struct Ctx<'c> {
    pub id: &'c str,
    pub grains: &'c Map,
    pub pillar: &'c Map,
    pub opts: &'c Map,
    pub caller: Caller<'c>,
    pub modules: &'static [Module],
}

#[derive(Clone, Copy)]
pub enum Caller<'c> {
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
    pub(crate) fn of_minion(m: &'c Minion, modules: &'static [Module]) -> Ctx<'c> {
        Ctx {
            id: &m.id,
            grains: &m.grains,
            pillar: &m.pillar,
            opts: &m.opts,
            caller: Caller::Minion(m),
            modules,
        }
    }

    pub(crate) fn of_template(d: &'c MinionData, modules: &'static [Module]) -> Ctx<'c> {
        Ctx {
            id: &d.id,
            grains: map_of(&d.grains),
            pillar: map_of(&d.pillar),
            opts: map_of(&d.opts),
            caller: Caller::Template(d),
            modules,
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

    /// Every `module.function` of the registry with its function, sorted.
    pub fn all(&self) -> Vec<(String, &'static Function)> {
        all_of(self.modules)
    }
}

/// Every `module.function` of `modules` with its function, sorted by name.
pub fn all_of(modules: &'static [Module]) -> Vec<(String, &'static Function)> {
    let mut out: Vec<(String, &'static Function)> = modules
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

/// The function named `module.function` among `modules`.
pub fn find_in(modules: &'static [Module], fun: &str) -> Option<&'static Function> {
    let (module, name) = fun.split_once('.')?;
    modules
        .iter()
        .filter(|m| m.name == module)
        .flat_map(|m| m.functions)
        .find(|f| f.name == name)
}
