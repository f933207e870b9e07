//! The `env` sdb driver: the process environment.

use brine_core::Value;

/// The variable `key`, or None.
pub fn get(key: &str) -> Value {
    crate::inputs::volatile(|| "read the environment through sdb".into());
    std::env::var(key).map(Value::Str).unwrap_or(Value::Null)
}

/// Salt's `os.environ.setdefault`: the value the variable has, else
/// `value`. Salt sets it in the process running the call, which ends with
/// it (a job's own process, or salt-call); brine answers the same and
/// leaves its own long-running process's environment alone.
pub fn set(key: &str, value: &Value) -> Value {
    match std::env::var(key) {
        Ok(v) => Value::Str(v),
        Err(_) => value.clone(),
    }
}
