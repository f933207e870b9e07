//! Salt's `log` module: write a message to the minion's log from a
//! template (`{%- do salt['log.debug']('...') %}`) or the command line.
//! Every function answers True, as Salt's do.

use super::function::{sig, CallError, Ctx, Function};
use super::params::Params;
use brine_compile::minion_data::Returned;
use brine_core::Value;

pub(super) const FUNCTIONS: &[Function] = &[
    Function::reads(
        "critical",
        sig!(message),
        "Log a message at the critical level.\n\n    {%- do salt['log.critical']('disk is full') %}",
        |c, p| log(c, p, Level::Critical),
    ),
    Function::reads(
        "debug",
        sig!(message),
        "Log a message at the debug level.\n\n    {%- do salt['log.debug']('computed ' ~ value) %}",
        |c, p| log(c, p, Level::Debug),
    ),
    Function::reads(
        "error",
        sig!(message),
        "Log a message at the error level.\n\n    {%- do salt['log.error']('no such user') %}",
        |c, p| log(c, p, Level::Error),
    ),
    Function::reads(
        "exception",
        sig!(message),
        "Log a message at the error level, as Python's logging.exception does.\n\n    {%- do salt['log.exception']('failed') %}",
        |c, p| log(c, p, Level::Error),
    ),
    Function::reads(
        "info",
        sig!(message),
        "Log a message at the info level.\n\n    {%- do salt['log.info']('rendering web') %}",
        |c, p| log(c, p, Level::Info),
    ),
    Function::reads(
        "warning",
        sig!(message),
        "Log a message at the warning level.\n\n    {%- do salt['log.warning']('deprecated pillar key') %}",
        |c, p| log(c, p, Level::Warning),
    ),
];

#[derive(Clone, Copy)]
enum Level {
    Debug,
    Info,
    Warning,
    Error,
    Critical,
}

fn log<'c>(_: &Ctx<'c>, mut p: Params, level: Level) -> Result<Returned<'c>, CallError> {
    let message = p.require("message")?.to_python_str();
    p.finish()?;
    // Salt logs these under the module's own logger; one target keeps them
    // apart from brine's messages in the log.
    match level {
        Level::Debug => tracing::debug!(target: "salt.module.log", "{message}"),
        Level::Info => tracing::info!(target: "salt.module.log", "{message}"),
        Level::Warning => tracing::warn!(target: "salt.module.log", "{message}"),
        // tracing has no level above error; critical is an error.
        Level::Error | Level::Critical => {
            tracing::error!(target: "salt.module.log", "{message}")
        }
    }
    Ok(Returned::New(Value::Bool(true)))
}
