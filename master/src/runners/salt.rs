//! Salt's `salt` runner: `salt.cmd` runs an execution function on the
//! master's host, as the master's own minion (the master's options, this
//! host's grains, no pillar unless `with_pillar=True`).

use super::runner::{Answer, Runner, RunnerError};
use crate::daemon::MasterConfig;
use crate::orchestrate::minion::master_minion;
use brine_core::args::CallArgs;
use brine_core::{sig, Value};
use brine_runtime::modules::{self, CallError, Params};

pub(super) const FUNCTIONS: &[Runner] = &[Runner {
    name: "cmd",
    sig: sig!(fun, *args, **kwargs),
    doc: "Run the execution function FUN with the other arguments on the master's host, \
as the master's own minion; WITH_PILLAR=True compiles its pillar first.\n\n    \
brine-run salt.cmd test.arg 1 2 a=b",
    run: |config, p| Box::pin(cmd(config, p)),
}];

async fn cmd(config: &MasterConfig, mut p: Params) -> Result<Answer, RunnerError> {
    let fun = p.require_str("fun")?;
    let args = p.rest();
    let mut kwargs = p.kwargs_with_pub("salt.cmd");
    kwargs.retain(|k, _| !k.starts_with("__"));
    p.finish()?;
    let with_pillar = kwargs
        .shift_remove("with_pillar")
        .is_some_and(|v| v.is_truthy());
    let config = config.clone();
    let ran = tokio::task::spawn_blocking(move || {
        let mut minion = master_minion(&config, None, with_pillar);
        modules::call_from_code(&mut minion, &fun, CallArgs { args, kwargs }).map(|r| r.value)
    })
    .await
    .map_err(|e| RunnerError::Failed(format!("salt.cmd stopped: {e}")))?;
    Ok(Answer::data(match ran {
        Ok(v) => v,
        // Salt answers a function its minion lacks in these words.
        Err(CallError::NotAvailable(f)) => Value::Str(format!("'{f}' is not available.")),
        Err(e) => return Err(RunnerError::Failed(e.to_string())),
    }))
}
