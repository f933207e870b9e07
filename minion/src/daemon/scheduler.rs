//! The scheduler (Salt's minion `schedule.eval` loop): once an identity
//! has joined its master, every `loop_interval` second (1 by default) it
//! asks the identity's schedule ([`brine_runtime::schedule`]) which jobs
//! are due and runs each as a job of its own ([`super::jobs::run_scheduled`]).
//!
//! The mine's `__mine_interval` job is one of them, as in Salt: added when
//! the scheduler starts (unless `mine_enabled` is False), it runs
//! `mine.update` at once and every `mine_interval` minutes, its return kept
//! on the minion. The pillar's `schedule:` is read from the in-memory
//! pillar at each evaluation, so a pillar refresh changes the pillar's jobs.

use super::{jobs, Identity, Shared};
use brine_core::{Map, Value};
use brine_runtime::schedule::{self, dates, Schedule};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Longest mine interval taken: a year, in minutes.
const MAX_MINE_MINUTES: i64 = 525_600;
/// Longest `loop_interval` taken, in seconds.
const MAX_LOOP_SECONDS: u64 = 3_600;

/// Salt's `__mine_interval` job for the minion's options, if the mine is on.
fn mine_job(opts: &Map) -> Option<Map> {
    if !brine_compile::opts::get_bool(opts, "mine_enabled", true) {
        return None;
    }
    let minutes = match opts.get("mine_interval") {
        Some(Value::Int(m)) => (*m).clamp(1, MAX_MINE_MINUTES),
        Some(Value::Float(m)) => (*m as i64).clamp(1, MAX_MINE_MINUTES),
        _ => 60,
    };
    let mut job = Map::default();
    job.insert("function".into(), Value::from("mine.update"));
    job.insert("minutes".into(), Value::Int(minutes));
    job.insert("jid_include".into(), Value::Bool(true));
    job.insert("maxrunning".into(), Value::Int(2));
    job.insert("run_on_start".into(), Value::Bool(true));
    job.insert("return_job".into(), Value::Bool(false));
    Some(job)
}

/// The schedule of an identity's minion (each identity has its own).
pub fn handle_of(ident: &Identity) -> Option<schedule::Handle> {
    ident.snapshot().schedule.clone()
}

/// Evaluate and run the identity's schedule for as long as the task lives.
pub async fn keep(shared: Arc<Shared>, ident: Arc<Identity>) {
    let Some(handle) = handle_of(&ident) else {
        return;
    };
    let opts = ident.snapshot().opts.clone();
    {
        let mut sched = schedule::lock(&handle);
        if let Some(job) = mine_job(&opts) {
            let _ = sched.add("__mine_interval", job, &Map::default());
            tracing::info!("{}: Added mine.update to scheduler", ident.id());
        }
        // Salt saves the schedule once the mine's job is in; identities of
        // a swarm share the file: written only when it says otherwise.
        if sched.saved() != *sched.own() {
            if let Err(e) = sched.persist() {
                tracing::error!(
                    "{}: Failed to persist the updated schedule: {e}",
                    ident.id()
                );
            }
        }
    }
    let every = match opts.get("loop_interval") {
        Some(Value::Int(s)) if *s > 0 => Duration::from_secs((*s as u64).min(MAX_LOOP_SECONDS)),
        _ => Duration::from_secs(1),
    };
    let mut tick = tokio::time::interval(every);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    // Between changes, a tick only looks at the clock: the schedule is
    // evaluated when a job's time comes, `schedule.*` changed it, or the
    // pillar (its jobs) was refreshed. A swarm's thousand identities tick
    // every second.
    let mut wake: Option<Instant> = None;
    // The pillar last evaluated with, by address (a refresh swaps it).
    let mut pillar_seen = 0usize;
    loop {
        tick.tick().await;
        let minion = ident.snapshot();
        let pillar_now = Arc::as_ptr(&minion.pillar) as usize;
        let changed = schedule::lock(&handle).take_changed();
        if !changed && pillar_now == pillar_seen && wake.is_some_and(|w| Instant::now() < w) {
            continue;
        }
        pillar_seen = pillar_now;
        let running = ident.running.snapshot();
        let count = |name: &str| {
            running
                .iter()
                .filter(|j| j.get("schedule").and_then(Value::as_str) == Some(name))
                .count()
        };
        let now = dates::now();
        let (due, next) = {
            let mut sched = schedule::lock(&handle);
            let due = sched.due(now, &minion.pillar, &minion.grains, &count);
            (due, sched.next_wake())
        };
        // Nothing timed: look again in an hour all the same (a `when` may
        // name a weekday).
        // A tick early rather than late: ticks and fire times are a
        // fraction of a second apart.
        let secs = next.map_or(IDLE_RECHECK_SECONDS, |t| dates::seconds_between(now, t) - 1);
        wake =
            Some(Instant::now() + Duration::from_secs(secs.clamp(0, IDLE_RECHECK_SECONDS) as u64));
        for d in due {
            tokio::spawn(jobs::run_scheduled(shared.clone(), ident.clone(), d));
        }
    }
}

/// Longest the scheduler goes without evaluating the schedule.
const IDLE_RECHECK_SECONDS: i64 = 3_600;

/// A fresh schedule for a minion's options.
pub fn new_handle(opts: &Map) -> schedule::Handle {
    Arc::new(std::sync::Mutex::new(Schedule::from_opts(opts)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_mine_job_follows_the_options() {
        let mut opts = Map::default();
        let job = mine_job(&opts).unwrap_or_default();
        assert_eq!(job.get("minutes"), Some(&Value::Int(60)));
        opts.insert("mine_interval".into(), Value::Int(0));
        let job = mine_job(&opts).unwrap_or_default();
        assert_eq!(job.get("minutes"), Some(&Value::Int(1)));
        opts.insert("mine_enabled".into(), Value::Bool(false));
        assert!(mine_job(&opts).is_none());
    }
}
