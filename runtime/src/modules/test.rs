//! `test.*`: liveness and echo.

use super::{CallError, Params};
use brine_core::Value;

pub(super) fn call(name: &str, mut p: Params) -> Option<Result<Value, CallError>> {
    Some(match name {
        "ping" => p.finish().map(|_| Value::Bool(true)),
        "echo" => p
            .require("text")
            .and_then(|t| p.finish().map(|_| Value::Str(t.to_python_str()))),
        "true" | "true_" => p.finish().map(|_| Value::Bool(true)),
        "false" => p.finish().map(|_| Value::Bool(false)),
        _ => return None,
    })
}
