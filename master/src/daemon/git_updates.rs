//! gitfs and git_pillar kept up to date by the master, off the request
//! path: each update runs on a blocking thread every interval (the
//! updates themselves are `brine_compile`'s, shared with `brine-run` and
//! a masterless minion).

use brine_compile::git_remotes::gitfs as gitfs_update;
use brine_compile::git_remotes::pillar as git_pillar_update;
use brine_core::{Map, Value};
use std::path::PathBuf;
use std::sync::Arc;

/// Update gitfs now and every `gitfs_update_interval` seconds, forever
/// (the master's own updates).
pub async fn gitfs(o: Map, cachedir: PathBuf) {
    let gitfs = match gitfs_update::Gitfs::from_opts(&o, &cachedir) {
        Ok(g) => Arc::new(g),
        Err(e) => {
            tracing::error!("{e}; gitfs serves nothing");
            return;
        }
    };
    let every = seconds(
        &o,
        "gitfs_update_interval",
        gitfs_update::DEFAULT_UPDATE_INTERVAL,
    );
    every_interval("gitfs", every, false, move || {
        gitfs.update().map_err(|e| e.to_string())
    })
    .await;
}

/// Update git_pillar every `git_pillar_update_interval` seconds, forever
/// (the first update is the master's before it serves).
pub async fn git_pillar(o: Map, cachedir: PathBuf) {
    let Ok(gp) = git_pillar_update::GitPillar::from_opts(&o, &cachedir) else {
        return;
    };
    let gp = Arc::new(gp);
    let every = seconds(
        &o,
        "git_pillar_update_interval",
        git_pillar_update::DEFAULT_UPDATE_INTERVAL,
    );
    every_interval("git_pillar", every, true, move || {
        gp.update(None, None).map(drop).map_err(|e| e.to_string())
    })
    .await;
}

/// A positive whole number of seconds `key` gives, else `default`.
fn seconds(o: &Map, key: &str, default: u64) -> u64 {
    match o.get(key) {
        Some(Value::Int(i)) if *i > 0 => u64::try_from(*i).unwrap_or(default),
        _ => default,
    }
}

/// Run `update` on a blocking thread every `every` seconds, forever, the
/// first at once unless `skip_first`; a failure is one log line.
async fn every_interval<F>(what: &'static str, every: u64, skip_first: bool, update: F)
where
    F: Fn() -> Result<(), String> + Send + Sync + 'static,
{
    let update = Arc::new(update);
    let mut tick = tokio::time::interval(std::time::Duration::from_secs(every));
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    if skip_first {
        tick.tick().await;
    }
    loop {
        tick.tick().await;
        let u = update.clone();
        match tokio::task::spawn_blocking(move || u()).await {
            Ok(Err(e)) => tracing::error!("{what} update: {e}"),
            Err(e) => tracing::error!("{what} update: {e}"),
            Ok(Ok(())) => {}
        }
    }
}
