//! Salt's `cmd` module: the functions that find programs. (Running
//! commands is the execution-modules work; these are what templates call.)

use super::params::Params;
use super::{CallError, Ctx, Function};
use crate::path;
use brine_compile::minion_data::functions::Returned;
use brine_core::Value;

pub(super) const FUNCTIONS: &[Function] = &[
    Function::reads(
        "has_exec",
        "True when CMD is an executable on the minion's PATH (or an executable \
path).\n\n    brine-call cmd.has_exec nginx",
        |_, mut p| {
            let cmd = p.require("cmd")?.to_python_str();
            p.finish()?;
            Ok(Returned::New(Value::Bool(path::which(&cmd).is_some())))
        },
    ),
    Function::reads(
        "which",
        "The full path of the executable CMD found on the minion's PATH, or None.\n\n    \
brine-call cmd.which systemctl",
        which,
    ),
];

fn which<'c>(_: &Ctx<'c>, mut p: Params) -> Result<Returned<'c>, CallError> {
    let cmd = p.require("cmd")?.to_python_str();
    p.finish()?;
    Ok(Returned::New(
        path::which(&cmd)
            .map(|p| Value::Str(p.display().to_string()))
            .unwrap_or(Value::Null),
    ))
}
