//! The jobs of a schedule and the changes `schedule.*` make to them;
//! where they are saved.

use super::dates;
use super::state::JobState;
use brine_core::{Map, Value};
use jiff::civil::DateTime;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};

/// Most jobs one schedule holds (added ones, over config and pillar).
pub const MAX_JOBS: usize = 1_000;
/// Most jobs `run_job` may queue before the next evaluation.
const MAX_RUN_NOW: usize = 64;

/// The keys of a schedule that switch it as a whole, not jobs.
pub const HIDDEN: [&str; 4] = ["enabled", "skip_function", "skip_during_range", "splay"];

/// The schedule the daemon runs and `schedule.*` changes.
pub type Handle = Arc<Mutex<Schedule>>;

/// Lock a handle (a panicked holder left the data as it was).
pub fn lock(h: &Handle) -> MutexGuard<'_, Schedule> {
    match h.lock() {
        Ok(g) => g,
        Err(p) => p.into_inner(),
    }
}

/// Why a change to the schedule was not made.
#[derive(Debug, thiserror::Error)]
pub enum ScheduleError {
    #[error("the schedule holds {MAX_JOBS} jobs already; delete some first")]
    Full,
    #[error("cannot write {path}: {source}")]
    Persist {
        path: PathBuf,
        source: std::io::Error,
    },
}

/// One minion's schedule.
#[derive(Debug, Default)]
pub struct Schedule {
    /// Salt's `opts['schedule']`, in order: jobs and the switches of
    /// [`HIDDEN`].
    pub(super) jobs: Map,
    /// Each job's evaluation state, by job name.
    pub(super) state: HashMap<String, JobState>,
    /// Where changes are kept (`<conf dir>/minion.d/_schedule.conf`).
    conf_file: Option<PathBuf>,
    /// Jobs `schedule.run_job` asked for, run at the next evaluation.
    pub(super) run_now: Vec<String>,
    /// Changed since the scheduler last looked ([`Schedule::take_changed`]).
    pub(super) changed: bool,
}

/// Where Salt keeps a minion's schedule changes: `minion.d/_schedule.conf`
/// beside the configuration file.
pub fn conf_file(opts: &Map) -> Option<PathBuf> {
    let conf = opts.get("conf_file").and_then(Value::as_str)?;
    Some(Path::new(conf).parent()?.join("minion.d/_schedule.conf"))
}

/// The `schedule:` of a pillar or options, when it is a mapping.
pub fn of(data: &Map) -> Map {
    match data.get("schedule") {
        Some(Value::Map(m)) => m.clone(),
        _ => Map::default(),
    }
}

impl Schedule {
    /// The schedule of the options `opts` (which hold what
    /// `_schedule.conf` saved: the configuration loader reads
    /// `minion.d/*.conf`).
    pub fn from_opts(opts: &Map) -> Schedule {
        Schedule {
            jobs: of(opts),
            state: HashMap::new(),
            conf_file: conf_file(opts),
            run_now: Vec::new(),
            changed: true,
        }
    }

    /// Salt's `_get_schedule`: the pillar's jobs, the options' over them.
    pub fn merged(&self, pillar: &Map) -> Map {
        let mut all = of(pillar);
        for (k, v) in &self.jobs {
            all.insert(k.clone(), v.clone());
        }
        all
    }

    /// The options' jobs only (`where="opts"`).
    pub fn own(&self) -> &Map {
        &self.jobs
    }

    /// Whether the schedule as a whole is enabled.
    pub fn enabled(&self) -> bool {
        self.jobs.get("enabled").is_none_or(Value::is_truthy)
    }

    /// The job's evaluation state as `schedule.job_status` shows it: its
    /// data with Salt's `_`-keys (times as `%Y-%m-%dT%H:%M:%S`).
    pub fn status(&self, name: &str, pillar: &Map) -> Map {
        let Some(Value::Map(data)) = self.merged(pillar).get(name).cloned() else {
            return Map::default();
        };
        let extra = self
            .state
            .get(name)
            .map(|s| s.shown(name, &data))
            .unwrap_or_default();
        // Salt's evaluation adds its keys before `splay`.
        let mut out = Map::default();
        let mut placed = false;
        for (k, v) in data {
            if k == "splay" && !placed {
                out.extend(extra.clone());
                placed = true;
            }
            out.insert(k, v);
        }
        if !placed {
            out.extend(extra);
        }
        out
    }

    /// Whether `schedule.*` changed the schedule since the last call (the
    /// scheduler then evaluates it at once, whatever the times say).
    pub fn take_changed(&mut self) -> bool {
        std::mem::take(&mut self.changed)
    }

    /// The earliest time any job needs evaluating again; `None` when none
    /// ever does (until the schedule or the pillar changes).
    pub fn next_wake(&self) -> Option<DateTime> {
        self.state.values().filter_map(JobState::wake).min()
    }

    /// Whether the scheduler has looked at the job `name` (Salt's
    /// evaluation has written its `name` into it then).
    pub fn evaluated(&self, name: &str) -> bool {
        self.state.contains_key(name)
    }

    /// When the job runs next, if the scheduler has worked it out.
    pub fn next_fire_time(&self, name: &str) -> Option<String> {
        self.state
            .get(name)
            .and_then(|s| s.next_fire())
            .map(dates::show)
    }

    /// Add (or replace) the job `name`. False when the pillar holds it
    /// (Salt leaves a pillar job alone, with a warning).
    pub fn add(&mut self, name: &str, mut data: Map, pillar: &Map) -> Result<bool, ScheduleError> {
        if of(pillar).contains_key(name) && !self.jobs.contains_key(name) {
            tracing::warn!("Cannot update job {name}, it's in the pillar!");
            return Ok(false);
        }
        if !self.jobs.contains_key(name) && self.jobs.len() >= MAX_JOBS {
            return Err(ScheduleError::Full);
        }
        if !data.contains_key("enabled") {
            data.insert("enabled".into(), Value::Bool(true));
        }
        self.state.remove(name);
        self.jobs.insert(name.to_string(), Value::Map(data));
        self.changed = true;
        Ok(true)
    }

    /// Replace the job `name` with `data` (Salt's `modify_job`: the old
    /// job goes, the new one is appended).
    pub fn modify(&mut self, name: &str, data: Map) -> Result<(), ScheduleError> {
        self.jobs.shift_remove(name);
        self.state.remove(name);
        self.changed = true;
        if self.jobs.len() >= MAX_JOBS {
            return Err(ScheduleError::Full);
        }
        self.jobs.insert(name.to_string(), Value::Map(data));
        Ok(())
    }

    /// Drop the job `name`; a pillar job stays (logged).
    pub fn delete(&mut self, name: &str, pillar: &Map) {
        if self.jobs.shift_remove(name).is_some() {
            self.state.remove(name);
            self.changed = true;
        } else if of(pillar).contains_key(name) {
            tracing::warn!("Cannot delete job {name}, it's in the pillar!");
        }
    }

    /// Switch the job `name` on or off; a pillar job stays as it is.
    pub fn set_job_enabled(&mut self, name: &str, on: bool, pillar: &Map) {
        match self.jobs.get_mut(name) {
            Some(Value::Map(job)) => {
                job.insert("enabled".into(), Value::Bool(on));
                self.changed = true;
            }
            _ if of(pillar).contains_key(name) => {
                tracing::warn!("Cannot modify job {name}, it's in the pillar!");
            }
            _ => {}
        }
    }

    /// Switch the whole schedule on or off.
    pub fn set_enabled(&mut self, on: bool) {
        self.changed = true;
        self.jobs.insert("enabled".into(), Value::Bool(on));
    }

    /// Merge saved jobs in (Salt's `reload`).
    pub fn reload(&mut self, saved: Map) {
        self.state.clear();
        self.changed = true;
        for (k, v) in saved {
            self.jobs.insert(k, v);
        }
    }

    /// Ask for the job `name` to run at the next evaluation.
    pub fn run_now(&mut self, name: &str) {
        if !self.run_now.iter().any(|n| n == name) && self.run_now.len() < MAX_RUN_NOW {
            self.run_now.push(name.to_string());
            self.changed = true;
        }
    }

    /// Write the options' jobs to `_schedule.conf` (Salt's `persist`), in
    /// Salt's YAML: keys sorted, collections of scalars in flow style.
    pub fn persist(&self) -> Result<(), ScheduleError> {
        let Some(path) = &self.conf_file else {
            return Ok(());
        };
        let mut doc = Map::default();
        doc.insert("schedule".into(), Value::Map(self.jobs.clone()));
        let text = brine_core::yaml::dump_leaf_flow(&Value::Map(doc));
        let write = || -> std::io::Result<()> {
            if let Some(dir) = path.parent() {
                std::fs::create_dir_all(dir)?;
            }
            brine_states::modules::file::fsutil::write_atomic(path, text.as_bytes())
        };
        write().map_err(|source| ScheduleError::Persist {
            path: path.clone(),
            source,
        })
    }

    /// The jobs `_schedule.conf` holds now (`saved: true` in a listing).
    pub fn saved(&self) -> Map {
        let Some(path) = &self.conf_file else {
            return Map::default();
        };
        read_schedule_file(path).unwrap_or_default()
    }

    /// The file `schedule.reload` reads (`minion.d/schedule.conf`).
    pub fn reload_file(&self) -> Option<PathBuf> {
        self.conf_file
            .as_ref()
            .and_then(|p| p.parent())
            .map(|d| d.join("schedule.conf"))
    }
}

/// The `schedule:` mapping of a saved schedule file; `None` when the file
/// is missing, unreadable or not YAML (logged).
pub fn read_schedule_file(path: &Path) -> Option<Map> {
    let text = std::fs::read_to_string(path).ok()?;
    match brine_core::yaml::load(&text) {
        Ok(Value::Map(m)) => Some(of(&m)),
        Ok(_) => Some(Map::default()),
        Err(e) => {
            tracing::error!("{}: {e}", path.display());
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map(j: serde_json::Value) -> Map {
        match Value::from_json(&j) {
            Value::Map(m) => m,
            _ => Map::default(),
        }
    }

    #[test]
    fn options_jobs_win_over_the_pillars_and_pillar_jobs_stay() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let conf = dir.path().join("minion");
        let opts = map(serde_json::json!({
            "conf_file": conf.display().to_string(),
            "schedule": {"a": {"function": "test.ping", "seconds": 5}},
        }));
        let pillar = map(serde_json::json!({
            "schedule": {"a": {"function": "test.true", "seconds": 9},
                         "p": {"function": "test.ping", "minutes": 1}},
        }));
        let mut s = Schedule::from_opts(&opts);
        let all = s.merged(&pillar);
        assert_eq!(all.keys().collect::<Vec<_>>(), ["a", "p"]);
        assert_eq!(
            all["a"].as_map().and_then(|m| m.get("function")),
            Some(&Value::from("test.ping"))
        );
        assert_eq!(s.add("p", Map::default(), &pillar).ok(), Some(false));
        s.delete("p", &pillar);
        assert!(s.merged(&pillar).contains_key("p"));
        assert_eq!(
            s.add(
                "b",
                map(serde_json::json!({"function": "test.ping"})),
                &pillar
            )
            .ok(),
            Some(true)
        );
        s.set_enabled(false);
        assert!(!s.enabled());
        s.persist().unwrap_or_else(|e| panic!("{e}"));
        let text =
            std::fs::read_to_string(dir.path().join("minion.d/_schedule.conf")).unwrap_or_default();
        assert_eq!(
            text,
            "schedule:\n  a: {function: test.ping, seconds: 5}\n  b: {enabled: true, function: test.ping}\n  enabled: false\n"
        );
        assert_eq!(s.saved().keys().collect::<Vec<_>>(), ["a", "b", "enabled"]);
    }

    #[test]
    fn the_schedule_is_bounded() {
        let mut s = Schedule::default();
        for i in 0..MAX_JOBS {
            assert!(s
                .add(&format!("j{i}"), Map::default(), &Map::default())
                .is_ok());
        }
        assert!(matches!(
            s.add("one-more", Map::default(), &Map::default()),
            Err(ScheduleError::Full)
        ));
        for i in 0..(MAX_RUN_NOW * 2) {
            s.run_now(&format!("j{i}"));
        }
        assert_eq!(s.run_now.len(), MAX_RUN_NOW);
    }
}
