//! The job cache (Salt's master job cache): every published job, the
//! minions expected to answer it, and their returns. `keep_jobs` hours
//! after a job started, it is deleted with its returns.
//!
//! Two backends behind one [`JobCache`], chosen by `master_job_cache`:
//! - [`sqlite`] (`local_cache`, the default): one file under `cachedir`,
//!   this master's own.
//! - [`postgres`] (`pgjsonb`): a PostgreSQL database several masters
//!   share, in the table layout of Salt's pgjsonb returner, so a job
//!   published by one master and the returns that reached another are one
//!   job to both.
//!
//! The mine lives here too (a `mine` table beside the jobs, `brine_mine`
//! in PostgreSQL): each minion's entries as it sent them.
//!
//! Both keep a return's value exactly as the minion packed it (msgpack), so
//! it comes back as it was sent; the first return per jid and minion wins,
//! and only minions the job was published to are stored.

#[cfg(any(test, feature = "testing"))]
pub mod checks;
pub mod postgres;
mod record;
pub mod sqlite;

pub use record::{
    format_jid_instance, jid_to_time, salt_arguments, Job, JobCacheError, PackedReturn,
    ReturnsPage, Stored, StoredReturn, RETURNS_PAGE_BYTES,
};

use crate::postgres::{Pg, PgOptions};
use indexmap::IndexMap;
use std::path::Path;
use std::sync::Arc;

#[derive(Debug)]
enum Store {
    Sqlite(Box<sqlite::SqliteJobs>),
    Postgres(postgres::PgJobs),
}

/// The job cache, whichever backend holds it.
#[derive(Debug)]
pub struct JobCache {
    store: Store,
}

/// The same call on whichever backend this is.
macro_rules! on_store {
    ($self:ident, $s:ident => $call:expr) => {
        match &$self.store {
            Store::Sqlite($s) => $call,
            Store::Postgres($s) => $call,
        }
    };
}

impl JobCache {
    /// Open (creating) the SQLite cache at `path` (see [`sqlite`]).
    pub fn open(path: &Path) -> Result<JobCache, JobCacheError> {
        Ok(JobCache {
            store: Store::Sqlite(Box::new(sqlite::SqliteJobs::open(path)?)),
        })
    }

    /// Open an existing SQLite cache (brine-run).
    pub fn open_existing(path: &Path) -> Result<JobCache, JobCacheError> {
        Ok(JobCache {
            store: Store::Sqlite(Box::new(sqlite::SqliteJobs::open_existing(path)?)),
        })
    }

    /// Connect to the shared PostgreSQL and make the tables it lacks.
    pub fn open_postgres(opts: &PgOptions) -> Result<JobCache, JobCacheError> {
        JobCache::on_postgres(Arc::new(Pg::connect(opts)?))
    }

    /// The job tables of a connected PostgreSQL (made if missing).
    pub fn on_postgres(pg: Arc<Pg>) -> Result<JobCache, JobCacheError> {
        Ok(JobCache {
            store: Store::Postgres(postgres::PgJobs::open(pg)?),
        })
    }

    /// Record a published job and the minions expected to answer it.
    pub fn add_job(&self, job: &Job, expected: &[String]) -> Result<(), JobCacheError> {
        on_store!(self, s => s.add_job(job, expected))
    }

    /// Store a minion's return (the first one per jid and minion wins),
    /// if the job was published to it. The value is stored as the minion
    /// packed it.
    pub fn add_return(
        &self,
        ret: &brine_protocol::messages::JobReturn,
        now_ms: u64,
    ) -> Result<Stored, JobCacheError> {
        on_store!(self, s => s.add_return(ret, now_ms))
    }

    pub fn job(&self, jid: &str) -> Result<Option<Job>, JobCacheError> {
        on_store!(self, s => s.job(jid))
    }

    /// Whether `jid` was published (asked at every page a CLI waits for:
    /// cheaper than reading the job).
    pub fn has_job(&self, jid: &str) -> Result<bool, JobCacheError> {
        on_store!(self, s => s.has_job(jid))
    }

    /// Every job, oldest first.
    pub fn jobs(&self) -> Result<Vec<Job>, JobCacheError> {
        on_store!(self, s => s.jobs())
    }

    /// The minions expected to answer `jid`, sorted.
    pub fn expected(&self, jid: &str) -> Result<Vec<String>, JobCacheError> {
        on_store!(self, s => s.expected(jid))
    }

    /// Returns of `jid` in arrival order.
    pub fn returns(&self, jid: &str) -> Result<IndexMap<String, StoredReturn>, JobCacheError> {
        on_store!(self, s => s.returns(jid))
    }

    /// Returns of `jid` stored after the cursor `after`, in arrival order,
    /// until their stored size passes `budget` bytes (at least one is
    /// given when any is there, so a page always moves on).
    pub fn returns_page(
        &self,
        jid: &str,
        after: u64,
        budget: usize,
    ) -> Result<ReturnsPage, JobCacheError> {
        on_store!(self, s => s.returns_page(jid, after, budget))
    }

    /// Returns of `jid` from minions sorted after `after` (by id, byte
    /// order), until their stored size passes `budget` bytes (at least one
    /// when any is left); the page's last id is the next cursor.
    pub fn returns_by_id(
        &self,
        jid: &str,
        after: Option<&str>,
        budget: usize,
    ) -> Result<Vec<PackedReturn>, JobCacheError> {
        on_store!(self, s => s.returns_by_id(jid, after, budget))
    }

    /// The outputter the first stored return of `jid` names.
    pub fn first_outputter(&self, jid: &str) -> Result<Option<String>, JobCacheError> {
        on_store!(self, s => s.first_outputter(jid))
    }

    /// How many minions `jid` was published to, and how many of them
    /// have a return stored.
    pub fn counts(&self, jid: &str) -> Result<(u64, u64), JobCacheError> {
        on_store!(self, s => s.counts(jid))
    }

    /// The minions that have returned for `jid`.
    pub fn returned(&self, jid: &str) -> Result<std::collections::HashSet<String>, JobCacheError> {
        on_store!(self, s => s.returned(jid))
    }

    /// Store minion `id`'s mine entries (function or alias → packed
    /// value); `clear` replaces all it had. `Ok(false)`: the minion would
    /// hold more than `max_entries` entries; nothing was stored.
    pub fn mine_store(
        &self,
        id: &str,
        entries: &[(String, Vec<u8>)],
        clear: bool,
        max_entries: usize,
    ) -> Result<bool, JobCacheError> {
        on_store!(self, s => s.mine_store(id, entries, clear, max_entries))
    }

    /// The mine entries of `funs`, every minion's: (id, fun, packed), by id.
    pub fn mine_entries(
        &self,
        funs: &[String],
    ) -> Result<Vec<(String, String, Vec<u8>)>, JobCacheError> {
        on_store!(self, s => s.mine_entries(funs))
    }

    /// Every mine entry of minion `id`: (fun, packed), by function.
    pub fn mine_of(&self, id: &str) -> Result<Vec<(String, Vec<u8>)>, JobCacheError> {
        on_store!(self, s => s.mine_of(id))
    }

    /// Drop minion `id`'s mine entry `fun`, or all its entries.
    pub fn mine_delete(&self, id: &str, fun: Option<&str>) -> Result<(), JobCacheError> {
        on_store!(self, s => s.mine_delete(id, fun))
    }

    /// Delete jobs started more than `keep_hours` ago, their targets and
    /// returns, and returns older than that for jobs never published here.
    /// `keep_hours == 0` keeps everything (Salt's meaning). Returns the
    /// number of jobs removed.
    pub fn clean(&self, keep_hours: u64, now_ms: u64) -> Result<usize, JobCacheError> {
        if keep_hours == 0 {
            return Ok(0);
        }
        let cutoff = now_ms.saturating_sub(keep_hours.saturating_mul(3_600_000));
        on_store!(self, s => s.clean(cutoff))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use brine_core::Value;

    #[test]
    fn jid_times_and_list_shape_as_salt() {
        assert_eq!(
            jid_to_time("20240102030405123456"),
            "2024, Jan 02 03:04:05.123456"
        );
        assert_eq!(
            jid_to_time("20241202030405123456_77"),
            "2024, Dec 02 03:04:05.123456"
        );
        assert_eq!(jid_to_time("2024"), "");
        assert_eq!(jid_to_time("20241302030405123456"), "");
        let m = format_jid_instance(&checks::job("20240102030405123456", 0));
        let json = Value::Map(m).to_json();
        assert_eq!(
            json,
            serde_json::json!({
                "Arguments": ["web", {"__kwarg__": true, "test": true}],
                "Function": "state.apply",
                "StartTime": "2024, Jan 02 03:04:05.123456",
                "Target": "web*",
                "Target-type": "glob",
                "User": "root"
            })
        );
    }
}
