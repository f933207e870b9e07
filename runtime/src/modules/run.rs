//! Commands the host-administration modules run (sysctl, crontab,
//! update-rc.d, useradd ...): an argv, no shell, output captured as Salt's
//! `cmd.run_all` captures it.

use super::CallError;
use brine_host::exec::{self, CommandResult, CommandSpec};

/// Run `argv` and collect its output; stdout and stderr apart.
pub(super) fn run(argv: &[&str]) -> Result<CommandResult, CallError> {
    exec::run(&CommandSpec::argv(argv)).map_err(|e| CallError::Failed(e.to_string()))
}

/// Run `argv` with stderr folded into stdout (Salt's `cmd.run`).
pub(super) fn run_merged(argv: &[&str]) -> Result<CommandResult, CallError> {
    let spec = CommandSpec {
        merge_stderr: true,
        ..CommandSpec::argv(argv)
    };
    exec::run(&spec).map_err(|e| CallError::Failed(e.to_string()))
}
