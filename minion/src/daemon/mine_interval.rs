//! The mine kept fresh: `mine.update` once the minion has joined its
//! master and every `mine_interval` minutes after (Salt's `__mine_interval`
//! schedule job: run on start, every 60 minutes by default), unless
//! `mine_enabled` is False. Without `mine_functions` an update asks nothing
//! of the master.

use super::identity::Identity;
use brine_core::args::CallArgs;
use brine_core::Value;
use brine_runtime::modules;
use std::sync::Arc;
use std::time::Duration;

/// Longest interval taken: a year.
const MAX_MINUTES: i64 = 525_600;

/// Run `mine.update` for `ident` now and every `mine_interval` minutes,
/// for as long as the task lives.
pub async fn keep(ident: Arc<Identity>) {
    let opts = ident.snapshot().opts.clone();
    if !brine_compile::opts::get_bool(&opts, "mine_enabled", true) {
        return;
    }
    let minutes = match opts.get("mine_interval") {
        Some(Value::Int(m)) => (*m).clamp(1, MAX_MINUTES),
        Some(Value::Float(m)) => (*m as i64).clamp(1, MAX_MINUTES),
        _ => 60,
    };
    let every = Duration::from_secs(u64::try_from(minutes).unwrap_or(60) * 60);
    loop {
        let snapshot = ident.snapshot();
        let done = tokio::task::spawn_blocking(move || {
            let mut m = (*snapshot).clone();
            modules::call(&mut m, "mine.update", CallArgs::default())
        })
        .await;
        match done {
            Ok(Ok(_)) => tracing::debug!("{}: mine updated", ident.id()),
            Ok(Err(e)) => tracing::warn!("{}: mine.update: {e}", ident.id()),
            Err(e) => tracing::warn!("{}: mine.update: {e}", ident.id()),
        }
        tokio::time::sleep(every).await;
    }
}
