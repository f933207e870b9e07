//! Salt's `mine` runner: `mine.get` on the master, answered from the mine
//! store as a minion's `mine.get` is, asked as the master itself (its
//! `id`), so entries kept for other minions only (`allow_tgt`) stay out.

use super::runner::{job_cache, Answer, Runner, RunnerError};
use crate::daemon::mine::Mine;
use crate::daemon::minion_cache::MinionCache;
use crate::daemon::MasterConfig;
use crate::keys::KeyStore;
use brine_core::sig;
use brine_core::Value;
use brine_runtime::modules::Params;
use std::sync::Arc;

pub(super) const FUNCTIONS: &[Runner] = &[Runner {
    name: "get",
    sig: sig!(tgt, fun, tgt_type = "glob"),
    doc: "The mine entries FUN (a name, a comma list or a list) of the minions TGT \
(TGT_TYPE, default glob) selects, by minion id (by function, then minion, for several).",
    run: |config, p| Box::pin(async move { get(config, p) }),
}];

fn get(config: &MasterConfig, mut p: Params) -> Result<Answer, RunnerError> {
    let tgt = p.require("tgt")?;
    let fun = p.require("fun")?;
    let tgt_type = p
        .take("tgt_type")
        .map_or_else(|| "glob".to_string(), |v| v.to_python_str());
    p.finish()?;
    let mine = open_store(config)?;
    let me = config
        .opts
        .get("id")
        .map(Value::to_python_str)
        .unwrap_or_default();
    Ok(Answer::data(mine.get(&me, &tgt, &fun, &tgt_type)?))
}

/// The master's mine store, opened as the daemon opens it (key store,
/// minion cache, job cache): the runner's, and the reactor's templates'.
pub fn open_store(config: &MasterConfig) -> Result<Mine, RunnerError> {
    Ok(Mine::new(
        KeyStore::for_config(&config.pki_dir, &config.job_cache)?,
        Arc::new(MinionCache::open(&config.minion_cache_dir())?),
        Arc::new(job_cache(config)?),
        Arc::new(config.opts.clone()),
    ))
}
