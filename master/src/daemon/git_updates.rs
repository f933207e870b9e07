//! gitfs and git_pillar kept up to date by the master, off the request
//! path: each update runs on a blocking thread every interval (the
//! updates themselves are `brine_compile`'s, shared with `brine-run` and
//! a masterless minion).

use brine_compile::git_remotes::gitfs as gitfs_update;
use brine_compile::git_remotes::pillar as git_pillar_update;
use brine_core::{Map, Value};
use std::path::PathBuf;

/// Update gitfs now and every `gitfs_update_interval` seconds, forever
/// (the master's own updates; each runs on a blocking thread).
pub async fn gitfs(o: Map, cachedir: PathBuf) {
    let every = match o.get("gitfs_update_interval") {
        Some(Value::Int(i)) if *i > 0 => {
            u64::try_from(*i).unwrap_or(gitfs_update::DEFAULT_UPDATE_INTERVAL)
        }
        _ => gitfs_update::DEFAULT_UPDATE_INTERVAL,
    };
    let gitfs = match gitfs_update::Gitfs::from_opts(&o, &cachedir) {
        Ok(g) => std::sync::Arc::new(g),
        Err(e) => {
            tracing::error!("{e}; gitfs serves nothing");
            return;
        }
    };
    let mut tick = tokio::time::interval(std::time::Duration::from_secs(every));
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tick.tick().await;
        let g = gitfs.clone();
        match tokio::task::spawn_blocking(move || g.update()).await {
            Ok(Err(e)) => tracing::error!("gitfs update: {e}"),
            Err(e) => tracing::error!("gitfs update: {e}"),
            Ok(Ok(())) => {}
        }
    }
}

/// Update git_pillar every `git_pillar_update_interval` seconds, forever
/// (the first update is the master's before it serves).
pub async fn git_pillar(o: Map, cachedir: PathBuf) {
    let every = match o.get("git_pillar_update_interval") {
        Some(Value::Int(i)) if *i > 0 => {
            u64::try_from(*i).unwrap_or(git_pillar_update::DEFAULT_UPDATE_INTERVAL)
        }
        _ => git_pillar_update::DEFAULT_UPDATE_INTERVAL,
    };
    let Ok(gp) = git_pillar_update::GitPillar::from_opts(&o, &cachedir) else {
        return;
    };
    let gp = std::sync::Arc::new(gp);
    let mut tick = tokio::time::interval(std::time::Duration::from_secs(every));
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    tick.tick().await;
    loop {
        tick.tick().await;
        let g = gp.clone();
        match tokio::task::spawn_blocking(move || g.update(None, None)).await {
            Ok(Err(e)) => tracing::error!("git_pillar update: {e}"),
            Err(e) => tracing::error!("git_pillar update: {e}"),
            Ok(Ok(_)) => {}
        }
    }
}
