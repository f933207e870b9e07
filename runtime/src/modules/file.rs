//! Salt's `file` module, the functions templates call to look at paths:
//! does it exist, what are its parts.

use super::params::Params;
use super::{CallError, Ctx, Function};
use crate::path;
use brine_compile::minion_data::functions::Returned;
use brine_core::Value;

pub(super) const FUNCTIONS: &[Function] = &[
    Function::reads(
        "basename",
        "The last part of PATH (Python's os.path.basename).\n\n    brine-call file.basename /etc/ssh/sshd_config",
        |_, p| path_part(p, path::basename),
    ),
    Function::reads(
        "directory_exists",
        "True when PATH (~ expanded) is a directory.\n\n    brine-call file.directory_exists /etc",
        |c, p| test_path(c, p, |m| m.is_dir()),
    ),
    Function::reads(
        "dirname",
        "PATH without its last part (Python's os.path.dirname).\n\n    brine-call file.dirname /etc/ssh/sshd_config",
        |_, p| path_part(p, path::dirname),
    ),
    Function::reads(
        "file_exists",
        "True when PATH (~ expanded) is a regular file (or a link to one).\n\n    brine-call file.file_exists /etc/passwd",
        |c, p| test_path(c, p, |m| m.is_file()),
    ),
    Function::reads(
        "join",
        "The arguments joined into one path (Python's os.path.join: an absolute \
part starts over).\n\n    brine-call file.join / usr local bin",
        join,
    ),
];

/// Python's `TypeError` for a path that is not a string.
fn path_str(fun: &str, v: Value) -> Result<String, CallError> {
    match v {
        Value::Str(s) => Ok(s),
        other => Err(CallError::Failed(format!(
            "{fun}() argument must be str, bytes or os.PathLike object, not '{}'",
            other.type_name()
        ))),
    }
}

fn test_path<'c>(
    _: &Ctx<'c>,
    mut p: Params,
    kind: fn(&std::fs::Metadata) -> bool,
) -> Result<Returned<'c>, CallError> {
    let target = path_str("stat", p.require("path")?)?;
    p.finish()?;
    let found = std::fs::metadata(path::expanduser(&target)).is_ok_and(|m| kind(&m));
    Ok(Returned::New(Value::Bool(found)))
}

fn path_part(mut p: Params, part: fn(&str) -> &str) -> Result<Returned<'static>, CallError> {
    let target = path_str("fspath", p.require("path")?)?;
    p.finish()?;
    Ok(Returned::New(Value::Str(part(&target).to_string())))
}

fn join<'c>(_: &Ctx<'c>, mut p: Params) -> Result<Returned<'c>, CallError> {
    let parts = p
        .rest()
        .into_iter()
        .map(|v| path_str("join", v))
        .collect::<Result<Vec<_>, _>>()?;
    p.finish()?;
    if parts.is_empty() {
        return Err(CallError::Failed(
            "join() missing 1 required positional argument: 'a'".into(),
        ));
    }
    Ok(Returned::New(Value::Str(path::join(
        parts.iter().map(String::as_str),
    ))))
}
