//! The jobs a minion is running, as its functions see them (Salt's proc
//! files): `saltutil.running`, `saltutil.find_job` and the
//! `saltutil.*_job` signals read and act on them. The daemon keeps the
//! table and plugs it into each job's [`crate::context::Minion`]; under
//! `brine-call` there is none, and no job runs but the call itself.

use brine_core::Map;
use std::sync::Arc;

/// The daemon's table of running jobs.
pub trait RunningJobs: Send + Sync {
    /// Every job running now, in the order they started: each one's proc
    /// data (`pid`, `fun`, `arg`, `tgt`, `jid`, `ret`, `tgt_type`, `user`).
    fn list(&self) -> Vec<Map>;
    /// Deliver signal `sig` to the job `jid` (see [`stops`]) and to the
    /// process groups of the commands it runs; false when no such job runs.
    fn signal(&self, jid: &str, sig: i32) -> bool;
    /// The job `jid` started a command in process group `pgid` (`true`) or
    /// that command ended (`false`).
    fn track(&self, jid: &str, pgid: u32, running: bool);
}

/// Whether a signal ends a job. Jobs are tasks of the minion process, not
/// processes of their own: the signal goes to the process groups of the
/// commands the job runs (see [`Jobs::tracking`]), and one whose default
/// action ends a process cancels the job itself (it stops and returns
/// nothing, as a killed Salt job does); the others (0, `SIGCHLD`, `SIGCONT`, `SIGSTOP`,
/// `SIGTSTP`, `SIGTTIN`, `SIGTTOU`, `SIGURG`, `SIGWINCH`) leave it running.
pub fn stops(sig: i32) -> bool {
    !matches!(sig, 0 | 17 | 18 | 19 | 20 | 21 | 22 | 23 | 28)
}

/// One call's view of the running jobs: the table, and which job the call
/// itself is (never listed among the others, as Salt leaves out the proc
/// file of the process asking).
#[derive(Clone, Default)]
pub struct Jobs {
    table: Option<Arc<dyn RunningJobs>>,
    own_jid: Option<String>,
}

impl std::fmt::Debug for Jobs {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Jobs")
            .field("table", &self.table.is_some())
            .field("own_jid", &self.own_jid)
            .finish()
    }
}

impl Jobs {
    /// The table as the job `own_jid` sees it.
    pub fn new(table: Arc<dyn RunningJobs>, own_jid: Option<String>) -> Jobs {
        Jobs {
            table: Some(table),
            own_jid,
        }
    }

    /// The running jobs other than this call.
    pub fn others(&self) -> Vec<Map> {
        let Some(table) = &self.table else {
            return Vec::new();
        };
        let own = self.own_jid.as_deref();
        table
            .list()
            .into_iter()
            .filter(|j| own.is_none() || j.get("jid").and_then(|v| v.as_str()) != own)
            .collect()
    }

    /// Run `f` with this job's commands known to the table while they run,
    /// so a signal to the job reaches them (Salt's kill_job kills the job's
    /// process, and its commands with it).
    pub fn tracking<T>(&self, f: impl FnOnce(&dyn Fn(u32, bool)) -> T) -> T {
        match (&self.table, &self.own_jid) {
            (Some(t), Some(jid)) => f(&|pgid, running| t.track(jid, pgid, running)),
            _ => f(&|_, _| {}),
        }
    }

    /// Signal the job `jid` (not this call); false when it does not run.
    pub fn signal(&self, jid: &str, sig: i32) -> bool {
        match &self.table {
            Some(t) if self.own_jid.as_deref() != Some(jid) => t.signal(jid, sig),
            _ => false,
        }
    }
}
