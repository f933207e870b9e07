//! What the scheduler knows of a job between evaluations (Salt keeps it
//! in the job's `_`-keys): its next fire time, splay, whether
//! `run_on_start` fired.

use super::dates;
use brine_core::{Map, Value};
use jiff::civil::DateTime;

/// One job's evaluation state (Salt keeps it in the job's `_`-keys).
#[derive(Debug, Clone, Default)]
pub struct JobState {
    pub next_fire: Option<DateTime>,
    pub next_scheduled: Option<DateTime>,
    /// The interval the next fire time was worked out for.
    pub seconds: Option<i64>,
    /// The splayed time of the next run.
    pub splay: Option<DateTime>,
    /// `run_on_start`: None until the first evaluation saw the job.
    pub run_on_start: Option<bool>,
    /// The `when` (or `once`) time a run was made for (each runs once).
    pub when_done: Option<DateTime>,
    /// A `once` job whose time has passed: nothing more to look at.
    pub finished: bool,
    /// The error already logged for this job (logged once, not each second).
    logged: Option<String>,
}

impl JobState {
    pub fn next_fire(&self) -> Option<DateTime> {
        self.splay.or(self.next_fire)
    }

    /// When the job needs looking at again: its next fire time; a `when`
    /// or `once` time it ran for is looked at once more after its window
    /// (to move on to the next); never for a finished or broken job.
    pub fn wake(&self) -> Option<DateTime> {
        if self.finished {
            return None;
        }
        let t = self.next_fire()?;
        Some(if self.when_done == Some(t) {
            dates::plus(t, 2)
        } else {
            t
        })
    }

    /// Salt's `_`-keys as `schedule.job_status` shows them.
    pub fn shown(&self, _name: &str, data: &Map) -> Map {
        let t = |v: Option<DateTime>| v.map_or(Value::Null, |t| Value::Str(dates::show(t)));
        let mut m = Map::default();
        m.insert("_next_fire_time".into(), t(self.next_fire));
        m.insert("_splay".into(), t(self.splay));
        if let Some(s) = self.seconds {
            m.insert("_seconds".into(), Value::Int(s));
        }
        if self.next_scheduled.is_some() || !data.contains_key("cron") {
            m.insert("_next_scheduled_fire_time".into(), t(self.next_scheduled));
        }
        m
    }

    pub fn error(&mut self, name: &str, msg: String) {
        if self.logged.as_deref() != Some(msg.as_str()) {
            tracing::error!("scheduled job {name}: {msg}");
            self.logged = Some(msg);
        }
    }
}
