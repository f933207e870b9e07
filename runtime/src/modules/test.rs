//! Salt's `test` module: is the minion there, does it hear what it is told.

use super::params::Params;
use super::{CallError, Ctx, Function};
use brine_compile::minion_data::functions::Returned;
use brine_core::Value;

pub(super) const FUNCTIONS: &[Function] = &[
    Function::reads(
        "echo",
        "Send a string back unchanged.\n\n    brine-call test.echo 'hello world'",
        echo,
    ),
    Function::reads(
        "false",
        "Answer False, always.\n\n    brine-call test.false",
        |_, p| answer(p, false),
    ),
    Function::reads(
        "ping",
        "Answer True: the minion is up and runs functions.\n\n    brine '*' test.ping",
        |_, p| answer(p, true),
    ),
    Function::reads(
        "true",
        "Answer True, always.\n\n    brine-call test.true",
        |_, p| answer(p, true),
    ),
];

fn answer(p: Params, b: bool) -> Result<Returned<'static>, CallError> {
    p.finish()?;
    Ok(Returned::New(Value::Bool(b)))
}

fn echo<'c>(_: &Ctx<'c>, mut p: Params) -> Result<Returned<'c>, CallError> {
    let text = p.require("text")?;
    p.finish()?;
    Ok(Returned::New(Value::Str(text.to_python_str())))
}
