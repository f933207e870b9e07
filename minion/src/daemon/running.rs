//! The jobs one identity is running (Salt's proc files): what
//! `saltutil.running` and `saltutil.find_job` list, and where
//! `saltutil.kill_job`/`term_job`/`signal_job` reach a job. Each entry has
//! the job's proc data and the switch that cancels it; a job is listed from
//! the moment it starts until its return is queued (or it is cancelled).

use brine_core::{Map, Value};
use brine_host::jobs::{stops, RunningJobs};
use indexmap::IndexMap;
use std::sync::{Arc, Mutex, MutexGuard};
use tokio::sync::Notify;

/// How many jobs one identity lists at most: the daemon's job permits
/// bound how many run; this bounds the table should that change.
const MAX_RUNNING: usize = 4096;

struct Entry {
    data: Map,
    cancel: Arc<Notify>,
    /// Process groups of the commands the job runs now.
    groups: Vec<u32>,
    /// A job run in a process of its own: signals go to that process
    /// (which signals its commands and stops itself), and a stop of the
    /// daemon neither waits for it nor answers for it.
    apart: Option<tokio::sync::mpsc::Sender<i32>>,
}

/// Bound on the commands one job is known to run at once.
const MAX_GROUPS: usize = 64;

#[derive(Default)]
pub struct RunningTable {
    jobs: Mutex<IndexMap<String, Entry>>,
}

impl RunningTable {
    fn lock(&self) -> MutexGuard<'_, IndexMap<String, Entry>> {
        match self.jobs.lock() {
            Ok(g) => g,
            Err(p) => p.into_inner(),
        }
    }

    /// List the job `jid` (its proc data); the switch is notified when the
    /// job is to stop. `None` when the table is full.
    pub fn start(&self, jid: &str, data: Map) -> Option<Arc<Notify>> {
        let mut g = self.lock();
        if g.len() >= MAX_RUNNING && !g.contains_key(jid) {
            return None;
        }
        let cancel = Arc::new(Notify::new());
        g.insert(
            jid.to_string(),
            Entry {
                data,
                cancel: cancel.clone(),
                groups: Vec::new(),
                apart: None,
            },
        );
        Some(cancel)
    }

    /// The job `jid` runs in process `pid`: its proc data names that
    /// process, and signals to the job are sent on through `forward`.
    pub fn set_apart(&self, jid: &str, pid: u32, forward: tokio::sync::mpsc::Sender<i32>) {
        if let Some(entry) = self.lock().get_mut(jid) {
            entry.data.insert("pid".into(), Value::Int(i64::from(pid)));
            entry.apart = Some(forward);
        }
    }

    /// The jobs this process runs itself (not those run apart), which a
    /// stop waits for: their proc data.
    pub fn in_process(&self) -> Vec<Map> {
        self.lock()
            .values()
            .filter(|e| e.apart.is_none())
            .map(|e| e.data.clone())
            .collect()
    }

    /// The job `jid` is over.
    pub fn finish(&self, jid: &str) {
        self.lock().shift_remove(jid);
    }

    /// How many jobs run.
    pub fn len(&self) -> usize {
        self.lock().len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The proc data of every running job, in start order.
    pub fn snapshot(&self) -> Vec<Map> {
        self.lock().values().map(|e| e.data.clone()).collect()
    }
}

impl RunningJobs for RunningTable {
    fn list(&self) -> Vec<Map> {
        self.snapshot()
    }

    fn signal(&self, jid: &str, sig: i32) -> bool {
        let mut g = self.lock();
        let Some(entry) = g.get(jid) else {
            return false;
        };
        if let Some(forward) = &entry.apart {
            // Its process signals its commands and ends itself; listed
            // until it is gone. A full channel: signals are coming faster
            // than the process reads them, this one is dropped.
            if forward.try_send(sig).is_err() {
                tracing::warn!("job {jid}: signal {sig} not passed on to its process");
            }
            return true;
        }
        let groups = entry.groups.clone();
        if stops(sig) {
            tracing::info!("job {jid} stopped by signal {sig}: it returns nothing");
            // Cancelled before its commands are signalled: a command killed
            // first could end the job, which would then return.
            entry.cancel.notify_one();
            // Gone from the list at once, as a killed process's proc file
            // is no longer read.
            g.shift_remove(jid);
        }
        // The job's commands get the signal itself, as the processes of a
        // Salt job's process group would.
        for pgid in groups {
            brine_host::exec::signal_group(pgid, sig);
        }
        true
    }

    fn track(&self, jid: &str, pgid: u32, running: bool) {
        let mut g = self.lock();
        let Some(entry) = g.get_mut(jid) else {
            return;
        };
        if running {
            if entry.groups.len() < MAX_GROUPS {
                entry.groups.push(pgid);
            }
        } else {
            entry.groups.retain(|&p| p != pgid);
        }
    }
}

/// The `pid` a job's proc data names (the minion's: jobs are its tasks).
pub fn pid_value() -> Value {
    Value::Int(i64::from(std::process::id()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn data(jid: &str) -> Map {
        let mut m = Map::default();
        m.insert("jid".into(), Value::Str(jid.into()));
        m
    }

    #[tokio::test]
    async fn a_stopping_signal_cancels_and_unlists_the_job() {
        let t = RunningTable::default();
        let cancel = t.start("1", data("1")).expect("room");
        t.start("2", data("2")).expect("room");
        assert_eq!(t.len(), 2);
        // SIGCONT leaves it running.
        assert!(t.signal("1", 18));
        assert_eq!(t.len(), 2);
        assert!(t.signal("1", 15));
        assert_eq!(t.snapshot(), vec![data("2")]);
        // The permit is stored: the job sees it even if it waits later.
        tokio::time::timeout(std::time::Duration::from_secs(1), cancel.notified())
            .await
            .expect("cancelled");
        assert!(!t.signal("1", 9));
        t.finish("2");
        assert!(t.is_empty());
    }

    /// The table is bounded: past MAX_RUNNING jobs a new one is refused,
    /// and past MAX_GROUPS commands of one job the rest are not kept (a
    /// job publishing many commands cannot grow the entry).
    #[test]
    fn the_table_and_each_jobs_commands_are_bounded() {
        let t = RunningTable::default();
        for i in 0..MAX_RUNNING {
            assert!(t.start(&i.to_string(), data("x")).is_some());
        }
        assert!(t.start("one-more", data("x")).is_none());
        assert_eq!(t.len(), MAX_RUNNING);
        // Process groups that do not exist: nothing is signalled by this.
        for pgid in 0..(MAX_GROUPS as u32 + 10) {
            t.track("0", 4_000_000 + pgid, true);
        }
        assert_eq!(t.lock()["0"].groups.len(), MAX_GROUPS);
        t.track("0", 4_000_000, false);
        assert_eq!(t.lock()["0"].groups.len(), MAX_GROUPS - 1);
        // Tracking for a job that is not listed is ignored.
        t.track("nope", 1, true);
        assert!(t.lock().get("nope").is_none());
    }
}

/// A job's proc file for other processes (`brine-call`'s state queue,
/// its `saltutil.running`), written only once the job has run for
/// [`PROC_FILE_AFTER`]: a quick job (`test.ping`) never touches the disk,
/// which for a swarm's thousand identities was a thousand creates and
/// unlinks on the runtime's one thread per publication. Removed when
/// dropped, whenever it was written.
pub struct LateProcFile {
    slot: Arc<Mutex<LateSlot>>,
    task: tokio::task::JoinHandle<()>,
}

#[derive(Default)]
struct LateSlot {
    file: Option<brine_host::jobs::ProcFile>,
    /// The job is over: a file written now is removed at once.
    done: bool,
}

/// How long a job runs before other processes are told of it.
pub const PROC_FILE_AFTER: std::time::Duration = std::time::Duration::from_millis(100);

impl LateProcFile {
    /// Write `data` as job `name`'s proc file under `cachedir` if the job
    /// still runs after [`PROC_FILE_AFTER`].
    pub fn schedule(cachedir: std::path::PathBuf, name: String, data: Map) -> LateProcFile {
        let slot = Arc::new(Mutex::new(LateSlot::default()));
        let held = slot.clone();
        let task = tokio::spawn(async move {
            tokio::time::sleep(PROC_FILE_AFTER).await;
            let _ = tokio::task::spawn_blocking(move || {
                let written = match brine_host::jobs::ProcFile::write(&cachedir, &name, &data) {
                    Ok(f) => f,
                    Err(e) => {
                        tracing::warn!("job {name}: cannot write its proc file: {e}");
                        return;
                    }
                };
                let mut g = held.lock().unwrap_or_else(|p| p.into_inner());
                if g.done {
                    drop(written);
                } else {
                    g.file = Some(written);
                }
            })
            .await;
        });
        LateProcFile { slot, task }
    }
}

impl Drop for LateProcFile {
    fn drop(&mut self) {
        self.task.abort();
        let mut g = self.slot.lock().unwrap_or_else(|p| p.into_inner());
        g.done = true;
        // Dropping the file removes it.
        g.file.take();
    }
}

#[cfg(test)]
mod late_tests {
    use super::*;

    #[tokio::test]
    async fn a_quick_job_writes_nothing_a_long_one_is_seen_until_it_ends() {
        let td = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let dir = brine_host::jobs::proc_dir(td.path());
        let count = || std::fs::read_dir(&dir).map(|d| d.count()).unwrap_or(0);
        let quick = LateProcFile::schedule(td.path().to_path_buf(), "1.a".into(), Map::default());
        drop(quick);
        tokio::time::sleep(PROC_FILE_AFTER * 3).await;
        assert_eq!(count(), 0);
        let long = LateProcFile::schedule(td.path().to_path_buf(), "2.a".into(), Map::default());
        tokio::time::sleep(PROC_FILE_AFTER * 3).await;
        assert_eq!(count(), 1);
        drop(long);
        assert_eq!(count(), 0);
    }
}
