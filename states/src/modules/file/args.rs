//! A file state's arguments, typed: a wrong type is an error naming the
//! argument, which the state turns into a failed return.

use super::fsutil;
use crate::StateReturn;
use brine_core::{Map, Value};

/// A failed state (`_error` in Salt): no changes, `result: False`.
pub fn failed(name: &str, comment: impl Into<String>) -> StateReturn {
    let mut ret = StateReturn::new(name);
    ret.result = Some(false);
    ret.comment = comment.into();
    ret
}

/// Typed access to a state's arguments; a wrong type is an `Err` naming the
/// argument (which the caller turns into a failed state).
pub struct Args<'a> {
    pub low: &'a Map,
}

impl Args<'_> {
    /// The state's `name`, Python's `str()` of it when it is not a string.
    pub fn name(&self) -> String {
        match self.low.get("name") {
            Some(Value::Str(s)) => s.clone(),
            None | Some(Value::Null) => String::new(),
            Some(v) => v.to_python_str(),
        }
    }

    /// The argument, `None` when absent or null.
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.low.get(key).filter(|v| !v.is_null())
    }

    /// A text argument: strings as they are, numbers as Python prints them.
    pub fn string(&self, key: &str) -> Result<Option<String>, String> {
        match self.get(key) {
            None => Ok(None),
            Some(Value::Str(s)) => Ok(Some(s.clone())),
            Some(v @ (Value::Int(_) | Value::Float(_))) => Ok(Some(v.to_python_str())),
            Some(v) => Err(bad_arg(key, "a string", v)),
        }
    }

    /// Python truthiness of the argument, `default` when absent.
    pub fn truthy(&self, key: &str, default: bool) -> bool {
        match self.low.get(key) {
            None => default,
            Some(v) => v.is_truthy(),
        }
    }

    /// An integer argument (`count: 2`, `'2'`).
    pub fn int(&self, key: &str) -> Result<Option<i64>, String> {
        match self.get(key) {
            None => Ok(None),
            Some(Value::Int(i)) => Ok(Some(*i)),
            Some(Value::Bool(b)) => Ok(Some(i64::from(*b))),
            Some(Value::Str(s)) => s
                .trim()
                .parse()
                .map(Some)
                .map_err(|_| bad_arg(key, "an integer", &Value::Str(s.clone()))),
            Some(v) => Err(bad_arg(key, "an integer", v)),
        }
    }

    /// `user`/`group`: a name or an id.
    pub fn owner(&self, key: &str) -> Result<Option<fsutil::Owner>, String> {
        fsutil::Owner::from_value(self.get(key))
            .map_err(|e| format!("Invalid argument '{key}': {e}"))
    }
}

/// The comment for an argument of the wrong type.
pub fn bad_arg(key: &str, expected: &str, got: &Value) -> String {
    format!(
        "Invalid argument '{key}': expected {expected}, got {} {}",
        got.type_name(),
        got.to_python_repr()
    )
}
