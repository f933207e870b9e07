//! The arguments file functions share: paths (with Python's errors for
//! what is not one, `~` expanded or not) and flags.

use crate::modules::function::CallError;
use crate::modules::params::Params;
use brine_core::Value;
use brine_host::path;

/// Python's `TypeError` for a path that is not a string.
pub(super) fn path_str(fun: &str, v: Value) -> Result<String, CallError> {
    match v {
        Value::Str(s) => Ok(s),
        other => Err(CallError::Failed(format!(
            "{fun}() argument must be str, bytes or os.PathLike object, not '{}'",
            other.type_name()
        ))),
    }
}

/// A required path argument, `~` expanded (`os.path.expanduser`, whose
/// `TypeError` salt-call reports as invalid arguments).
pub(super) fn path_arg(p: &mut Params, name: &str) -> Result<String, CallError> {
    path_arg_with(p, name, path::expanduser)
}

/// A required path argument taken as it is (Salt opens it without
/// expanding `~`).
pub(super) fn raw_path_arg(p: &mut Params, name: &str) -> Result<String, CallError> {
    path_arg_with(p, name, str::to_string)
}

pub(super) fn path_arg_with(
    p: &mut Params,
    name: &str,
    expand: fn(&str) -> String,
) -> Result<String, CallError> {
    match p.require(name)? {
        Value::Str(s) => Ok(expand(&s)),
        other => Err(CallError::InvalidArguments(format!(
            "expected str, bytes or os.PathLike object, not {}",
            other.type_name()
        ))),
    }
}

/// Python truthiness of an optional argument.
pub(super) fn truthy(v: Option<Value>, default: bool) -> bool {
    v.map_or(default, |v| v.is_truthy())
}

/// Python's `os.path.isabs`.
pub(super) fn isabs(path: &str) -> bool {
    path.starts_with('/')
}
