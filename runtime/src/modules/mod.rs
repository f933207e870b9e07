//! Execution functions (Salt's execution modules): `pillar.*`, `grains.*`,
//! `test.*`, looked up by their `module.function` name.

mod grains;
mod hiera;
mod pillar;
mod state;
mod state_run;
mod test;

use crate::context::Minion;
use brine_core::args::CallArgs;
use brine_core::{Map, Value};

#[derive(Debug, thiserror::Error)]
pub enum CallError {
    /// Salt's wording for an unknown function.
    #[error("'{0}' is not available.")]
    NotAvailable(String),
    #[error("Passed invalid arguments: {0}")]
    InvalidArguments(String),
}

impl CallError {
    /// The exit code `salt-call` gives for this error.
    pub fn retcode(&self) -> i32 {
        match self {
            CallError::NotAvailable(_) => 255,
            CallError::InvalidArguments(_) => 1,
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

/// Run `fun` with `args` on `minion`.
pub fn call(minion: &mut Minion, fun: &str, args: CallArgs) -> Result<Return, CallError> {
    let Some((module, name)) = fun.split_once('.') else {
        return Err(CallError::NotAvailable(fun.to_string()));
    };
    let p = Params::new(name, args);
    let plain = |r: Option<Result<Value, CallError>>| r.map(|r| r.map(Return::from));
    match module {
        "pillar" => plain(pillar::call(minion, name, p)),
        "grains" => plain(grains::call(minion, name, p)),
        "test" => plain(test::call(name, p)),
        "hiera" => hiera::call(minion, name, p),
        // Runs (apply, sls, single...) need the runtime; the show_* family
        // only the compiler.
        "state" if state_run::FUNCTIONS.contains(&name) => state_run::call(minion, name, p),
        "state" => state::call(minion, name, p),
        _ => None,
    }
    .unwrap_or_else(|| Err(CallError::NotAvailable(fun.to_string())))
}

/// Binds call arguments to a function's parameters the way Python does:
/// by keyword first, else by position; leftovers are an error.
pub(crate) struct Params {
    fun: String,
    args: std::collections::VecDeque<Value>,
    kwargs: Map,
    /// Accepts **kwargs: unknown keywords are not an error.
    pub open_kwargs: bool,
}

impl Params {
    fn new(fun: &str, a: CallArgs) -> Params {
        let mut kwargs = a.kwargs;
        // Salt's publish metadata is never an argument.
        kwargs.retain(|k, _| !k.starts_with("__pub_"));
        Params {
            fun: fun.to_string(),
            args: a.args.into(),
            kwargs,
            open_kwargs: false,
        }
    }

    /// The next parameter, `name`, taken by keyword or else positionally.
    pub fn take(&mut self, name: &str) -> Option<Value> {
        if let Some(v) = self.kwargs.shift_remove(name) {
            return Some(v);
        }
        self.args.pop_front()
    }

    /// A required parameter.
    pub fn require(&mut self, name: &str) -> Result<Value, CallError> {
        self.take(name).ok_or_else(|| {
            CallError::InvalidArguments(format!(
                "{}() missing 1 required positional argument: '{name}'",
                self.fun
            ))
        })
    }

    /// Keyword-only parameter.
    pub fn kw(&mut self, name: &str) -> Option<Value> {
        self.kwargs.shift_remove(name)
    }

    /// All remaining positional arguments (`*args`).
    pub fn rest(&mut self) -> Vec<Value> {
        self.args.drain(..).collect()
    }

    /// Fail on arguments the function does not take.
    pub fn finish(self) -> Result<(), CallError> {
        if let Some(k) = self.kwargs.keys().next().filter(|_| !self.open_kwargs) {
            return Err(CallError::InvalidArguments(format!(
                "{}() got an unexpected keyword argument '{k}'",
                self.fun
            )));
        }
        if !self.args.is_empty() {
            return Err(CallError::InvalidArguments(format!(
                "{}() got {} unexpected positional argument(s)",
                self.fun,
                self.args.len()
            )));
        }
        Ok(())
    }
}

/// An optional string parameter (a non-string is shown as Python would).
pub(crate) fn opt_string(v: Option<Value>) -> Option<String> {
    match v {
        None | Some(Value::Null) => None,
        Some(v) => Some(v.to_python_str()),
    }
}
