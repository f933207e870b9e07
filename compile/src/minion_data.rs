//! What the compile side knows about one minion: the `opts`, `grains` and
//! `pillar` dictionaries Salt's renderers and matchers are given, and the
//! execution functions its templates may call.
//!
//! Those functions (`salt['pillar.get'](...)`,
//! `salt.grains.filter_by(...)`), as compile sees them: a trait its caller
//! implements. brine-runtime's module registry is the one implementation,
//! so templates, `brine-call` and jobs from the master call the same table,
//! and compile needs no runtime.
//!
//! A function answers with a [`Returned`], which says where the answer came
//! from. Python hands back objects, not copies: a template given a piece of
//! its pillar, or its own argument, gets that very object (with its type:
//! YAML-loaded mappings are `OrderedDict`s, template literals plain
//! `dict`s), and a change made in place shows through every name bound to
//! it. The Jinja side uses the origin to give back the same template value.

use brine_core::args::CallArgs;
use brine_core::{Map, Value};
use std::sync::Arc;

/// One minion as a compile sees it.
#[derive(Debug, Clone, Default)]
pub struct MinionData {
    /// The minion id (`opts['id']`, `grains['id']`).
    pub id: String,
    /// Grains: a map.
    pub grains: Value,
    /// Pillar as known at this point of the compile (a map; may be empty).
    pub pillar: Value,
    /// The minion's (or master's) configuration as Salt's `opts` dict.
    pub opts: Value,
    /// `salt[...]` in templates (Salt's `__salt__`): the caller's registry;
    /// none by default.
    pub functions: Functions,
}

/// Why a function call failed. The texts are Salt's where Salt has one.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum FunctionError {
    /// No such `module.function`.
    #[error("'{0}' is not available.")]
    NotAvailable(String),
    /// The arguments do not bind to the function's parameters.
    #[error("Passed invalid arguments: {0}")]
    InvalidArguments(String),
    /// A function that needs the running minion (state runs, compiles),
    /// called from a template.
    #[error("'{0}' cannot be called from a template in brine")]
    NotInTemplates(String),
    /// The function ran and raised (Salt's `CommandExecutionError`,
    /// `KeyError`, ...): its message.
    #[error("{0}")]
    Failed(String),
    /// The function raised an exception that is not one of Salt's own
    /// (`test.exception`'s `Exception`): its type and message, which a
    /// published job answers as "The minion function caused an exception".
    #[error("{0}")]
    Raised(String),
    /// The call itself is wrong in a way Salt reports as a
    /// `SaltInvocationError` (keywords the function does not take, an ID
    /// found nowhere): its message.
    #[error("{0}")]
    Invocation(String),
}

impl FunctionError {
    /// The exit code `salt-call` gives for this error.
    pub fn retcode(&self) -> i32 {
        match self {
            FunctionError::NotAvailable(_) => 255,
            FunctionError::InvalidArguments(_)
            | FunctionError::NotInTemplates(_)
            | FunctionError::Raised(_)
            | FunctionError::Failed(_)
            | FunctionError::Invocation(_) => 1,
        }
    }
}

/// The execution functions, callable by `module.function` name.
pub trait ExecFunctions: Send + Sync {
    /// Call `fun` with `args` for `minion` (its id, grains, the pillar
    /// compiled so far and opts). Borrowed data comes back borrowed.
    fn call<'m>(
        &self,
        minion: &'m MinionData,
        fun: &str,
        args: CallArgs,
    ) -> Result<Returned<'m>, FunctionError>;

    /// Every `module.function` name, sorted.
    fn names(&self) -> Vec<String>;

    /// Is the answer of `fun` made from the minion's data and the call's
    /// arguments alone (`pillar.get`, `grains.filter_by`), so that a
    /// compile calling it may be given again unchanged? Not for anything
    /// that looks at the host, the network, the clock or other minions.
    fn replayable(&self, fun: &str) -> bool {
        let _ = fun;
        false
    }
}

/// The functions a compile hands to its templates; empty by default (every
/// call is then `'x.y' is not available.`).
#[derive(Clone, Default)]
pub struct Functions(Option<Arc<dyn ExecFunctions>>);

impl Functions {
    pub fn new(functions: Arc<dyn ExecFunctions>) -> Functions {
        Functions(Some(functions))
    }

    pub fn call<'m>(
        &self,
        minion: &'m MinionData,
        fun: &str,
        args: CallArgs,
    ) -> Result<Returned<'m>, FunctionError> {
        match &self.0 {
            Some(f) => {
                if !f.replayable(fun) {
                    crate::inputs::volatile(|| format!("called {fun}"));
                }
                f.call(minion, fun, args)
            }
            None => Err(FunctionError::NotAvailable(fun.to_string())),
        }
    }

    pub fn names(&self) -> Vec<String> {
        self.0.as_ref().map(|f| f.names()).unwrap_or_default()
    }

    /// See [`ExecFunctions::replayable`].
    pub fn replayable(&self, fun: &str) -> bool {
        self.0.as_ref().is_some_and(|f| f.replayable(fun))
    }
}

impl std::fmt::Debug for Functions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self.0 {
            Some(_) => "Functions",
            None => "Functions(none)",
        })
    }
}

/// What a function handed back, and where from.
#[derive(Debug, Clone, PartialEq)]
pub enum Returned<'m> {
    /// Something the function made (a new `dict` or `list`, a bool...).
    New(Value),
    /// A piece of the minion's data, as it is.
    Data(DataRef<'m>),
    /// An argument, or a piece of one, as it is; `value` is its content.
    Arg { at: ArgAt, value: Value },
    /// A new `dict` holding answers of their own (`pillar.item`).
    Dict(Vec<(String, Returned<'m>)>),
    /// A merge (Salt's `dictupdate.update`): each mapping in `value` is a
    /// copy of the one at the same place in the first of `from` that has a
    /// mapping there. With `into`, that argument was changed in place to
    /// `value` (and is what the function returned).
    Merged {
        value: Value,
        from: Vec<Origin>,
        into: Option<ArgAt>,
    },
}

impl Returned<'_> {
    /// The answer as data, for callers that do not keep Python's objects.
    pub fn into_value(self) -> Value {
        match self {
            Returned::New(v)
            | Returned::Arg { value: v, .. }
            | Returned::Merged { value: v, .. } => v,
            Returned::Data(d) => d.node.to_value(),
            Returned::Dict(items) => Value::Map(
                items
                    .into_iter()
                    .map(|(k, r)| (k, r.into_value()))
                    .collect(),
            ),
        }
    }
}

impl Returned<'_> {
    /// The same answer owning its data (a borrowed piece becomes new).
    pub fn into_owned(self) -> Returned<'static> {
        match self {
            Returned::New(v) => Returned::New(v),
            Returned::Data(d) => Returned::New(d.node.to_value()),
            Returned::Arg { at, value } => Returned::Arg { at, value },
            Returned::Dict(items) => Returned::Dict(
                items
                    .into_iter()
                    .map(|(k, r)| (k, r.into_owned()))
                    .collect(),
            ),
            Returned::Merged { value, from, into } => Returned::Merged { value, from, into },
        }
    }
}

/// A piece of the minion's data: which dict, the steps to it, and the piece.
#[derive(Debug, Clone, PartialEq)]
pub struct DataRef<'m> {
    pub source: Source,
    pub path: Vec<Step>,
    pub node: Node<'m>,
}

/// The dicts a template sees as `pillar`, `grains` and `opts`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    Pillar,
    Grains,
    Opts,
}

/// One step down a path: a mapping key or a list index.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    Key(String),
    Index(usize),
}

/// A borrowed piece of data: a whole dict (the minion holds those as maps)
/// or a value inside one.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Node<'m> {
    Root(&'m Map),
    Value(&'m Value),
}

impl Node<'_> {
    pub fn to_value(self) -> Value {
        match self {
            Node::Root(m) => Value::Map(m.clone()),
            Node::Value(v) => v.clone(),
        }
    }
}

/// Which argument of the call: by position (among the positional ones) or
/// by keyword, and the steps into it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArgAt {
    pub arg: ArgName,
    pub path: Vec<Step>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ArgName {
    Position(usize),
    Keyword(String),
}

impl ArgAt {
    pub fn new(arg: ArgName) -> ArgAt {
        ArgAt {
            arg,
            path: Vec::new(),
        }
    }
}

/// Where the mappings of a merge came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Origin {
    Data { source: Source, path: Vec<Step> },
    Arg(ArgAt),
}

/// A stand-in for the runtime's registry in compile's own tests:
/// `grains.get` and `pillar.get` of a top-level key, nothing else.
#[cfg(test)]
pub(crate) fn stub() -> Functions {
    struct Stub;
    impl ExecFunctions for Stub {
        fn call<'m>(
            &self,
            minion: &'m MinionData,
            fun: &str,
            args: CallArgs,
        ) -> Result<Returned<'m>, FunctionError> {
            let data = match fun {
                "grains.get" => &minion.grains,
                "pillar.get" => &minion.pillar,
                _ => return Err(FunctionError::NotAvailable(fun.to_string())),
            };
            let key = args
                .args
                .first()
                .map(Value::to_python_str)
                .unwrap_or_default();
            Ok(Returned::New(data.get(&key).cloned().unwrap_or_default()))
        }

        fn names(&self) -> Vec<String> {
            vec!["grains.get".into(), "pillar.get".into()]
        }
    }
    Functions::new(Arc::new(Stub))
}
