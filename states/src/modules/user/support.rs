//! What the system state modules (`pkg`, `user`, `group`, `service`) share:
//! running an argv through the minion's command runner, finding programs on
//! `PATH`, and reading state arguments of the wrong type as a failed state
//! naming the argument instead of a panic.

use crate::{StateCall, StateReturn};
use brine_core::Value;
use brine_host::exec::{self, CommandResult, CommandSpec, ExecError};

/// Run `argv` (started directly: no shell reads its words) with extra
/// environment variables and optional stdin text.
pub fn run_argv<S: AsRef<str>>(
    argv: &[S],
    env: &[(&str, &str)],
    stdin: Option<&str>,
) -> Result<CommandResult, ExecError> {
    exec::run(&CommandSpec {
        env: env
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
        stdin: stdin.map(str::to_string),
        ..CommandSpec::argv(argv)
    })
}

pub use brine_host::path::which;

/// The text of Salt's `CommandExecutionError("Command 'X' cannot be found")`.
pub fn not_found(cmd: &str) -> String {
    format!("Command '{cmd}' cannot be found")
}

/// An argument whose value has a type the state function cannot use.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("Invalid value for argument '{arg}': expected {expected}, got {got}")]
pub struct ArgError {
    pub arg: String,
    pub expected: &'static str,
    pub got: &'static str,
}

impl ArgError {
    pub fn new(arg: &str, expected: &'static str, v: &Value) -> ArgError {
        ArgError {
            arg: arg.to_string(),
            expected,
            got: v.type_name(),
        }
    }

    /// The failed state return for this error.
    pub fn into_return(self, name: &str) -> StateReturn {
        failed(name, self.to_string())
    }
}

/// A failed state return with `comment`.
pub fn failed(name: &str, comment: impl Into<String>) -> StateReturn {
    let mut ret = StateReturn::new(name);
    ret.result = Some(false);
    ret.comment = comment.into();
    ret
}

/// Salt's `salt.utils.data.is_true`: numbers above zero, the strings
/// "true"/"True" (or numeric text above zero), else Python truthiness.
pub fn is_true(v: &Value) -> bool {
    match v {
        Value::Int(i) => *i > 0,
        Value::Float(f) => *f > 0.0,
        Value::Bool(b) => *b,
        Value::Str(s) => {
            let t = s.trim();
            if let Ok(i) = t.parse::<i64>() {
                i > 0
            } else if let Ok(f) = t.parse::<f64>() {
                f > 0.0
            } else {
                s.to_lowercase() == "true"
            }
        }
        other => other.is_truthy(),
    }
}

/// Typed access to a state call's arguments.
pub trait Args {
    /// The argument, `None` when absent or null.
    fn value(&self, key: &str) -> Option<&Value>;

    /// A scalar argument as text (numbers and booleans as Python prints them).
    fn opt_str(&self, key: &str) -> Result<Option<String>, ArgError> {
        match self.value(key) {
            None => Ok(None),
            Some(v @ (Value::List(_) | Value::Map(_))) => Err(ArgError::new(key, "a string", v)),
            Some(v) => Ok(Some(v.to_python_str())),
        }
    }

    /// A list argument (`None` when absent or null).
    fn opt_list(&self, key: &str) -> Result<Option<Vec<Value>>, ArgError> {
        match self.value(key) {
            None => Ok(None),
            Some(Value::List(l)) => Ok(Some(l.clone())),
            Some(v) => Err(ArgError::new(key, "a list", v)),
        }
    }

    /// A list of names (scalars, printed as Python's `str()` would).
    fn opt_str_list(&self, key: &str) -> Result<Option<Vec<String>>, ArgError> {
        let Some(items) = self.opt_list(key)? else {
            return Ok(None);
        };
        let mut out = Vec::with_capacity(items.len());
        for item in &items {
            match item {
                Value::List(_) | Value::Map(_) | Value::Null => {
                    return Err(ArgError::new(key, "a list of names", item))
                }
                v => out.push(v.to_python_str()),
            }
        }
        Ok(Some(out))
    }

    /// Python truthiness of the argument, `default` when absent.
    fn truthy(&self, key: &str, default: bool) -> bool {
        match self.value(key) {
            None => default,
            Some(v) => v.is_truthy(),
        }
    }

    /// A tri-state flag: `None` when absent or null, else truthiness.
    fn opt_bool(&self, key: &str) -> Option<bool> {
        self.value(key).map(Value::is_truthy)
    }
}

impl Args for StateCall<'_> {
    fn value(&self, key: &str) -> Option<&Value> {
        self.low.get(key).filter(|v| !v.is_null())
    }
}

impl Args for brine_core::Map {
    fn value(&self, key: &str) -> Option<&Value> {
        self.get(key).filter(|v| !v.is_null())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_arrive_as_given() {
        let r = run_argv(&["printf", "%s|", "a b", "it's", "$HOME", ""], &[], None).unwrap();
        assert_eq!(r.stdout, "a b|it's|$HOME||");
    }

    #[test]
    fn is_true_follows_salt() {
        for (v, want) in [
            (Value::Str("True".into()), true),
            (Value::Str("yes".into()), false),
            (Value::Str("2".into()), true),
            (Value::Str("0".into()), false),
            (Value::Int(0), false),
            (Value::List(vec![Value::Null]), true),
        ] {
            assert_eq!(is_true(&v), want, "{v:?}");
        }
    }

    #[test]
    fn wrong_types_name_the_argument() {
        let mut low = brine_core::Map::default();
        low.insert("groups".into(), Value::Str("wheel".into()));
        low.insert("shell".into(), Value::List(vec![]));
        low.insert("uid".into(), Value::Int(5));
        let e = low.opt_str_list("groups").unwrap_err();
        assert_eq!(
            e.to_string(),
            "Invalid value for argument 'groups': expected a list, got str"
        );
        assert!(low.opt_str("shell").is_err());
        assert_eq!(low.opt_str("uid").unwrap().as_deref(), Some("5"));
        assert_eq!(low.opt_str("home").unwrap(), None);
    }
}
