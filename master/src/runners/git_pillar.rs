//! Salt's `git_pillar` runner: `update` fetches the git_pillar remotes
//! (`crate::git_pillar`), all of them or those `branch` and `repo` pick.

use super::runner::{Answer, Runner, RunnerError};
use crate::daemon::MasterConfig;
use brine_core::sig;
use brine_core::{Map, Value};
use brine_runtime::modules::Params;

pub(super) const FUNCTIONS: &[Runner] = &[Runner {
    name: "update",
    sig: sig!(branch = null, repo = null),
    doc: "Fetch the git_pillar remotes (those of BRANCH, or the one REPO names by \
name or url): each remote's answer, True when it fetched something new, None when \
not, False when it failed.\n\n    brine-run git_pillar.update branch=dev",
    run: |config, p| Box::pin(async move { update(config, p) }),
}];

fn update(config: &MasterConfig, mut p: Params) -> Result<Answer, RunnerError> {
    let text = |v: Option<Value>| v.filter(|v| !v.is_null()).map(|v| v.to_python_str());
    let branch = text(p.take("branch"));
    let repo = text(p.take("repo"));
    p.finish()?;
    let answers =
        brine_compile::git_remotes::pillar::GitPillar::from_opts(&config.opts, &config.cachedir)
            .and_then(|g| g.update(branch.as_deref(), repo.as_deref()))
            .map_err(|e| RunnerError::Failed(e.to_string()))?;
    Ok(Answer::data(Value::Map(
        answers.into_iter().collect::<Map>(),
    )))
}
