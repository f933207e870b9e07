//! The job cache (Salt's `local_cache` returner, in SQLite): every published
//! job, the minions expected to answer it, and their returns. `keep_jobs`
//! hours after a job started, it is deleted with its returns.
//!
//! Values (arguments, targets, returns) are stored as msgpack blobs so they
//! come back exactly as they were sent.

use brine_core::{Map, Value};
use brine_protocol::messages::PackedValue;
use indexmap::IndexMap;
use rusqlite::{params, Connection, OptionalExtension};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

#[derive(Debug, thiserror::Error)]
pub enum JobCacheError {
    #[error("job cache {path}: {source}")]
    Db {
        path: PathBuf,
        source: rusqlite::Error,
    },
    #[error("job cache {path}: cannot create its folder: {source}")]
    Dir {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("job cache {path}: {source}")]
    File {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("job cache: cannot encode {what}: {source}")]
    Encode {
        what: &'static str,
        source: rmp_serde::encode::Error,
    },
}

/// A job as published.
#[derive(Debug, Clone, PartialEq)]
pub struct Job {
    pub jid: String,
    pub fun: String,
    pub arg: Vec<Value>,
    pub kwarg: Map,
    pub tgt: Value,
    pub tgt_type: String,
    pub user: String,
    pub start_ms: u64,
}

/// One minion's stored return.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredReturn {
    pub id: String,
    pub fun: String,
    pub ret: Value,
    pub retcode: i64,
    pub success: bool,
    pub out: Option<String>,
}

/// A stored return with its value as stored (msgpack), for passing on.
#[derive(Debug, Clone, PartialEq)]
pub struct PackedReturn {
    pub id: String,
    pub ret: PackedValue,
    pub retcode: i64,
    pub success: bool,
    pub out: Option<String>,
}

/// The most bytes of stored returns one page is read with, by the master
/// answering a CLI and by `jobs.lookup_jid` (at least one return is always
/// given): a CLI holds a page several times over (frame, plain text,
/// decoded), while a page still carries many returns of any usual size.
pub const RETURNS_PAGE_BYTES: usize = 4 << 20;

/// One page of a job's returns ([`JobCache::returns_page`]).
#[derive(Debug, Clone, PartialEq)]
pub struct ReturnsPage {
    /// The returns, their values as stored (msgpack).
    pub returns: Vec<PackedReturn>,
    /// The cursor after the last return given.
    pub next: u64,
    /// Returns past the budget wait for the next page.
    pub more: bool,
}

/// What storing a return did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stored {
    New,
    /// A return for this jid and minion was already stored; the first one
    /// is kept (Salt drops extra returns too).
    Duplicate,
    /// The job was never published to this minion (an unknown jid, or one
    /// whose expected minions do not include it): nothing stored.
    NotTargeted,
}

pub struct JobCache {
    path: PathBuf,
    db: Mutex<Connection>,
}

impl std::fmt::Debug for JobCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "JobCache({})", self.path.display())
    }
}

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS jobs (
    jid TEXT PRIMARY KEY,
    fun TEXT NOT NULL,
    arg BLOB NOT NULL,
    kwarg BLOB NOT NULL,
    tgt BLOB NOT NULL,
    tgt_type TEXT NOT NULL,
    user TEXT NOT NULL,
    start_ms INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS targets (
    jid TEXT NOT NULL,
    id TEXT NOT NULL,
    PRIMARY KEY (jid, id)
);
CREATE TABLE IF NOT EXISTS returns (
    jid TEXT NOT NULL,
    id TEXT NOT NULL,
    fun TEXT NOT NULL,
    fun_args BLOB NOT NULL,
    ret BLOB NOT NULL,
    retcode INTEGER NOT NULL,
    success INTEGER NOT NULL,
    out TEXT,
    time_ms INTEGER NOT NULL,
    PRIMARY KEY (jid, id)
);
CREATE INDEX IF NOT EXISTS returns_time ON returns (time_ms);
-- Within one job, returns in the order they were stored (an index on jid
-- keeps rowids sorted), so a page is read without sorting the job.
CREATE INDEX IF NOT EXISTS returns_arrival ON returns (jid);
CREATE INDEX IF NOT EXISTS jobs_start ON jobs (start_ms);
";

fn pack<T: serde::Serialize>(what: &'static str, v: &T) -> Result<Vec<u8>, JobCacheError> {
    rmp_serde::to_vec_named(v).map_err(|source| JobCacheError::Encode { what, source })
}

/// A stored blob; an undecodable one (a damaged database) reads as Null
/// rather than failing the whole listing.
fn unpack<T: serde::de::DeserializeOwned + Default>(bytes: &[u8]) -> T {
    rmp_serde::from_slice(bytes).unwrap_or_default()
}

fn to_i64(ms: u64) -> i64 {
    i64::try_from(ms).unwrap_or(i64::MAX)
}

/// Whether SQLite says the file is not a sound database.
fn is_damage(e: &rusqlite::Error) -> bool {
    matches!(
        e.sqlite_error_code(),
        Some(rusqlite::ErrorCode::DatabaseCorrupt | rusqlite::ErrorCode::NotADatabase)
    )
}

/// The database file and SQLite's side files.
fn with_side_files(path: &Path) -> [PathBuf; 3] {
    let side = |suffix: &str| {
        let mut p = path.as_os_str().to_owned();
        p.push(suffix);
        PathBuf::from(p)
    };
    [path.to_path_buf(), side("-wal"), side("-shm")]
}

/// A stored return from the columns `id, ret, retcode, success, out`,
/// starting at column `at`.
fn packed_return(r: &rusqlite::Row<'_>, at: usize) -> rusqlite::Result<PackedReturn> {
    Ok(PackedReturn {
        id: r.get(at)?,
        ret: PackedValue(r.get(at + 1)?),
        retcode: r.get(at + 2)?,
        success: r.get(at + 3)?,
        out: r.get(at + 4)?,
    })
}

/// Move a damaged database (and its side files) aside, loudly.
fn set_aside(path: &Path, why: &rusqlite::Error) -> Result<(), JobCacheError> {
    let stamp = brine_protocol::crypto::local_now_ms();
    for from in with_side_files(path) {
        if !from.exists() {
            continue;
        }
        let mut to = from.as_os_str().to_owned();
        to.push(format!(".corrupt-{stamp}"));
        std::fs::rename(&from, &to).map_err(|source| JobCacheError::File {
            path: from.clone(),
            source,
        })?;
    }
    tracing::error!(
        "job cache {} is damaged ({why}); moved aside as {}.corrupt-{stamp} and a fresh one \
         started: the jobs and returns it held are not shown any more",
        path.display(),
        path.display()
    );
    Ok(())
}

/// Open (creating, 0600) the database and its schema. The file is made
/// 0600 before SQLite opens it: SQLite gives its -wal and -shm files the
/// database's mode.
fn connect(path: &Path) -> Result<Connection, JobCacheError> {
    use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
    std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .mode(0o600)
        .open(path)
        .map_err(|source| JobCacheError::File {
            path: path.to_path_buf(),
            source,
        })?;
    // Files an older brine made with the umask's mode.
    for f in with_side_files(path) {
        if f.exists() {
            std::fs::set_permissions(&f, std::fs::Permissions::from_mode(0o600)).map_err(
                |source| JobCacheError::File {
                    path: f.clone(),
                    source,
                },
            )?;
        }
    }
    let db_err = |source| JobCacheError::Db {
        path: path.to_path_buf(),
        source,
    };
    let conn = Connection::open(path).map_err(db_err)?;
    // WAL with NORMAL sync: a commit per return without an fsync each
    // (a crash may lose the last returns; the minions resend them).
    conn.pragma_update(None, "journal_mode", "WAL")
        .map_err(db_err)?;
    conn.pragma_update(None, "synchronous", "NORMAL")
        .map_err(db_err)?;
    conn.busy_timeout(std::time::Duration::from_secs(10))
        .map_err(db_err)?;
    conn.execute_batch(SCHEMA).map_err(db_err)?;
    Ok(conn)
}

impl JobCache {
    /// Open (creating) the database at `path`. A damaged database is
    /// moved aside (`<name>.corrupt-<ms>`, with its WAL) and a fresh one
    /// started: the master keeps publishing, and the old file is kept for
    /// whoever wants to recover it.
    pub fn open(path: &Path) -> Result<JobCache, JobCacheError> {
        if let Some(dir) = path.parent() {
            brine_protocol::keys::create_dir_private(dir).map_err(|e| JobCacheError::Dir {
                path: dir.to_path_buf(),
                source: std::io::Error::other(e.to_string()),
            })?;
        }
        let conn = match connect(path) {
            Err(JobCacheError::Db { source, .. }) if is_damage(&source) => {
                set_aside(path, &source)?;
                connect(path)?
            }
            other => other?,
        };
        Ok(JobCache {
            path: path.to_path_buf(),
            db: Mutex::new(conn),
        })
    }

    /// Open an existing database read-only (brine-run).
    pub fn open_existing(path: &Path) -> Result<JobCache, JobCacheError> {
        let conn = Connection::open_with_flags(
            path,
            rusqlite::OpenFlags::SQLITE_OPEN_READ_WRITE | rusqlite::OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )
        .map_err(|source| JobCacheError::Db {
            path: path.to_path_buf(),
            source,
        })?;
        let _ = conn.busy_timeout(std::time::Duration::from_secs(10));
        Ok(JobCache {
            path: path.to_path_buf(),
            db: Mutex::new(conn),
        })
    }

    /// Run `f` on the connection. If the database turns out damaged, it is
    /// set aside, a fresh one opened, and `f` run once more on it.
    fn with<T>(
        &self,
        mut f: impl FnMut(&mut Connection) -> rusqlite::Result<T>,
    ) -> Result<T, JobCacheError> {
        let mut conn = self.db.lock().unwrap_or_else(|p| p.into_inner());
        let db_err = |source| JobCacheError::Db {
            path: self.path.clone(),
            source,
        };
        match f(&mut conn) {
            Err(e) if is_damage(&e) => {
                // Close the damaged file before it is renamed.
                let old =
                    std::mem::replace(&mut *conn, Connection::open_in_memory().map_err(db_err)?);
                drop(old);
                set_aside(&self.path, &e)?;
                *conn = connect(&self.path)?;
                f(&mut conn).map_err(db_err)
            }
            other => other.map_err(db_err),
        }
    }

    /// Record a published job and the minions expected to answer it.
    pub fn add_job(&self, job: &Job, expected: &[String]) -> Result<(), JobCacheError> {
        let arg = pack("arguments", &job.arg)?;
        let kwarg = pack("keyword arguments", &job.kwarg)?;
        let tgt = pack("target", &job.tgt)?;
        self.with(|c| {
            let tx = c.transaction()?;
            tx.execute(
                "INSERT OR REPLACE INTO jobs (jid, fun, arg, kwarg, tgt, tgt_type, user, start_ms)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
                params![
                    job.jid,
                    job.fun,
                    arg,
                    kwarg,
                    tgt,
                    job.tgt_type,
                    job.user,
                    to_i64(job.start_ms)
                ],
            )?;
            {
                let mut st =
                    tx.prepare("INSERT OR IGNORE INTO targets (jid, id) VALUES (?1, ?2)")?;
                for id in expected {
                    st.execute(params![job.jid, id])?;
                }
            }
            tx.commit()
        })
    }

    /// Store a minion's return (the first one per jid and minion wins),
    /// if the job was published to it. The value is stored as the minion
    /// packed it.
    pub fn add_return(
        &self,
        ret: &brine_protocol::messages::JobReturn,
        now_ms: u64,
    ) -> Result<Stored, JobCacheError> {
        let fun_args = pack("function arguments", &ret.fun_args)?;
        self.with(|c| {
            // One statement (its own transaction), kept prepared: every
            // return runs it. Stored only for a minion the job targeted.
            let n = c
                .prepare_cached(
                    "INSERT OR IGNORE INTO returns
                     (jid, id, fun, fun_args, ret, retcode, success, out, time_ms)
                     SELECT ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9
                     WHERE EXISTS (SELECT 1 FROM targets WHERE jid = ?1 AND id = ?2)",
                )?
                .execute(params![
                    ret.jid,
                    ret.id,
                    ret.fun,
                    fun_args,
                    ret.ret.0,
                    ret.retcode,
                    ret.success,
                    ret.out,
                    to_i64(now_ms)
                ])?;
            if n == 1 {
                return Ok(Stored::New);
            }
            // Nothing stored: a second return, or no such target.
            let targeted = c
                .prepare_cached("SELECT 1 FROM targets WHERE jid = ?1 AND id = ?2")?
                .query_row(params![ret.jid, ret.id], |_| Ok(()))
                .optional()?
                .is_some();
            Ok(if targeted {
                Stored::Duplicate
            } else {
                Stored::NotTargeted
            })
        })
    }

    pub fn job(&self, jid: &str) -> Result<Option<Job>, JobCacheError> {
        self.with(|c| {
            c.prepare_cached(
                "SELECT jid, fun, arg, kwarg, tgt, tgt_type, user, start_ms FROM jobs WHERE jid = ?1",
            )?
            .query_row(params![jid], row_job)
            .optional()
        })
    }

    /// Every job, oldest first.
    pub fn jobs(&self) -> Result<Vec<Job>, JobCacheError> {
        self.with(|c| {
            let mut st = c.prepare(
                "SELECT jid, fun, arg, kwarg, tgt, tgt_type, user, start_ms FROM jobs ORDER BY jid",
            )?;
            let rows = st.query_map([], row_job)?;
            rows.collect()
        })
    }

    /// The minions expected to answer `jid`, sorted.
    pub fn expected(&self, jid: &str) -> Result<Vec<String>, JobCacheError> {
        self.with(|c| {
            let mut st = c.prepare("SELECT id FROM targets WHERE jid = ?1 ORDER BY id")?;
            let rows = st.query_map(params![jid], |r| r.get(0))?;
            rows.collect()
        })
    }

    /// Returns of `jid` in arrival order.
    pub fn returns(&self, jid: &str) -> Result<IndexMap<String, StoredReturn>, JobCacheError> {
        self.with(|c| {
            let mut st = c.prepare(
                "SELECT id, fun, ret, retcode, success, out FROM returns
                 WHERE jid = ?1 ORDER BY time_ms, rowid",
            )?;
            let rows = st.query_map(params![jid], |r| {
                let ret: Vec<u8> = r.get(2)?;
                Ok(StoredReturn {
                    id: r.get(0)?,
                    fun: r.get(1)?,
                    ret: unpack(&ret),
                    retcode: r.get(3)?,
                    success: r.get(4)?,
                    out: r.get(5)?,
                })
            })?;
            rows.map(|r| r.map(|s| (s.id.clone(), s))).collect()
        })
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
        self.with(|c| {
            let mut st = c.prepare_cached(
                "SELECT rowid, id, ret, retcode, success, out FROM returns
                 WHERE jid = ?1 AND rowid > ?2 ORDER BY rowid",
            )?;
            let mut rows = st.query(params![jid, to_i64(after)])?;
            let mut page = ReturnsPage {
                returns: Vec::new(),
                next: after,
                more: false,
            };
            let mut used = 0usize;
            while let Some(r) = rows.next()? {
                let packed = packed_return(r, 1)?;
                let size = packed.ret.0.len();
                if !page.returns.is_empty() && used.saturating_add(size) > budget {
                    page.more = true;
                    break;
                }
                used = used.saturating_add(size);
                let rowid: i64 = r.get(0)?;
                page.next = u64::try_from(rowid).unwrap_or(page.next);
                page.returns.push(packed);
            }
            Ok(page)
        })
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
        self.with(|c| {
            let mut st = c.prepare(
                "SELECT id, ret, retcode, success, out FROM returns
                 WHERE jid = ?1 AND (?2 IS NULL OR id > ?2) ORDER BY id",
            )?;
            let mut rows = st.query(params![jid, after])?;
            let mut page = Vec::new();
            let mut used = 0usize;
            while let Some(r) = rows.next()? {
                let packed = packed_return(r, 0)?;
                let size = packed.ret.0.len();
                if !page.is_empty() && used.saturating_add(size) > budget {
                    break;
                }
                used = used.saturating_add(size);
                page.push(packed);
            }
            Ok(page)
        })
    }

    /// The outputter the first stored return of `jid` names.
    pub fn first_outputter(&self, jid: &str) -> Result<Option<String>, JobCacheError> {
        self.with(|c| {
            c.query_row(
                "SELECT out FROM returns WHERE jid = ?1 ORDER BY time_ms, rowid LIMIT 1",
                params![jid],
                |r| r.get(0),
            )
            .optional()
            .map(Option::flatten)
        })
    }

    /// How many minions `jid` was published to, and how many of them
    /// have a return stored (counted on the indexes: a CLI waiting for a
    /// 10,000-minion job asks after every return that lands).
    pub fn counts(&self, jid: &str) -> Result<(u64, u64), JobCacheError> {
        self.with(|c| {
            let count = |sql: &str| {
                c.prepare_cached(sql)?
                    .query_row(params![jid], |r| r.get::<_, i64>(0))
                    .map(|n| u64::try_from(n).unwrap_or(0))
            };
            Ok((
                count("SELECT COUNT(*) FROM targets WHERE jid = ?1")?,
                count("SELECT COUNT(*) FROM returns WHERE jid = ?1")?,
            ))
        })
    }

    /// The minions that have returned for `jid`.
    pub fn returned(&self, jid: &str) -> Result<std::collections::HashSet<String>, JobCacheError> {
        self.with(|c| {
            let mut st = c.prepare("SELECT id FROM returns WHERE jid = ?1")?;
            let rows = st.query_map(params![jid], |r| r.get(0))?;
            rows.collect()
        })
    }

    /// Delete jobs started more than `keep_hours` ago, their targets and
    /// returns, and returns older than that for jobs never published here.
    /// `keep_hours == 0` keeps everything (Salt's meaning). Returns the
    /// number of jobs removed.
    pub fn clean(&self, keep_hours: u64, now_ms: u64) -> Result<usize, JobCacheError> {
        if keep_hours == 0 {
            return Ok(0);
        }
        let cutoff = to_i64(now_ms.saturating_sub(keep_hours.saturating_mul(3_600_000)));
        self.with(|c| {
            let tx = c.transaction()?;
            tx.execute(
                "DELETE FROM targets WHERE jid IN (SELECT jid FROM jobs WHERE start_ms < ?1)",
                params![cutoff],
            )?;
            tx.execute(
                "DELETE FROM returns WHERE jid IN (SELECT jid FROM jobs WHERE start_ms < ?1)
                 OR (time_ms < ?1 AND jid NOT IN (SELECT jid FROM jobs))",
                params![cutoff],
            )?;
            let n = tx.execute("DELETE FROM jobs WHERE start_ms < ?1", params![cutoff])?;
            tx.commit()?;
            Ok(n)
        })
    }
}

fn row_job(r: &rusqlite::Row<'_>) -> rusqlite::Result<Job> {
    let arg: Vec<u8> = r.get(2)?;
    let kwarg: Vec<u8> = r.get(3)?;
    let tgt: Vec<u8> = r.get(4)?;
    let start: i64 = r.get(7)?;
    Ok(Job {
        jid: r.get(0)?,
        fun: r.get(1)?,
        arg: unpack(&arg),
        kwarg: unpack(&kwarg),
        tgt: unpack(&tgt),
        tgt_type: r.get(5)?,
        user: r.get(6)?,
        start_ms: u64::try_from(start).unwrap_or(0),
    })
}

/// Salt's `jid_to_time` (in core: the minion's `state.running` words
/// jobs with it too).
pub use brine_core::py::jid_to_time;

/// Salt's `format_jid_instance`: the job as `jobs.list_jobs` shows it.
pub fn format_jid_instance(job: &Job) -> Map {
    let mut arguments = job.arg.clone();
    if !job.kwarg.is_empty() {
        // Salt's publications carry keyword arguments as a trailing dict
        // marked `__kwarg__`.
        let mut kw = Map::default();
        kw.insert("__kwarg__".into(), Value::Bool(true));
        kw.extend(job.kwarg.iter().map(|(k, v)| (k.clone(), v.clone())));
        arguments.push(Value::Map(kw));
    }
    // Salt's key order (its JSON output keeps it).
    let mut m = Map::default();
    m.insert("Function".into(), Value::Str(job.fun.clone()));
    m.insert("Arguments".into(), Value::List(arguments));
    m.insert("Target".into(), job.tgt.clone());
    m.insert("Target-type".into(), Value::Str(job.tgt_type.clone()));
    m.insert("User".into(), Value::Str(job.user.clone()));
    m.insert("StartTime".into(), Value::Str(jid_to_time(&job.jid)));
    m
}

#[cfg(test)]
mod tests {
    use super::*;
    use brine_protocol::messages::JobReturn;

    fn job(jid: &str, start_ms: u64) -> Job {
        let mut kwarg = Map::default();
        kwarg.insert("test".into(), Value::Bool(true));
        Job {
            jid: jid.into(),
            fun: "state.apply".into(),
            arg: vec!["web".into()],
            kwarg,
            tgt: "web*".into(),
            tgt_type: "glob".into(),
            user: "root".into(),
            start_ms,
        }
    }

    fn ret(jid: &str, id: &str, v: Value) -> JobReturn {
        JobReturn {
            jid: jid.into(),
            id: id.into(),
            fun: "state.apply".into(),
            fun_args: vec![],
            ret: PackedValue::pack(&v).unwrap(),
            retcode: 0,
            success: true,
            out: Some("highstate".into()),
        }
    }

    #[test]
    fn jobs_targets_returns_and_cleanup() {
        let td = tempfile::tempdir().unwrap();
        let c = JobCache::open(&td.path().join("c/jobs.sqlite")).unwrap();
        let j = job("20240102030405123456", 1_000);
        c.add_job(&j, &["web2".into(), "web1".into()]).unwrap();
        assert_eq!(c.job(&j.jid).unwrap(), Some(j.clone()));
        assert_eq!(c.expected(&j.jid).unwrap(), vec!["web1", "web2"]);
        assert_eq!(c.counts(&j.jid).unwrap(), (2, 0));
        let f = Value::Float(1.5);
        assert_eq!(
            c.add_return(&ret(&j.jid, "web2", f.clone()), 2_000)
                .unwrap(),
            Stored::New
        );
        assert_eq!(
            c.add_return(&ret(&j.jid, "web2", Value::Null), 2_500)
                .unwrap(),
            Stored::Duplicate
        );
        c.add_return(&ret(&j.jid, "web1", Value::Bool(true)), 3_000)
            .unwrap();
        let rs = c.returns(&j.jid).unwrap();
        assert_eq!(rs.keys().collect::<Vec<_>>(), vec!["web2", "web1"]);
        assert_eq!(rs["web2"].ret, f);
        assert_eq!(rs["web2"].out.as_deref(), Some("highstate"));
        // A return for a job this master never published, or from a
        // minion it was not published to, is not stored.
        for (jid, id) in [("other", "web1"), (j.jid.as_str(), "db1")] {
            assert_eq!(
                c.add_return(&ret(jid, id, Value::Null), 3_000).unwrap(),
                Stored::NotTargeted
            );
        }
        assert_eq!(c.returns(&j.jid).unwrap().len(), 2);
        assert_eq!(c.counts(&j.jid).unwrap(), (2, 2));
        assert_eq!(c.counts("other").unwrap(), (0, 0));

        // Survives reopening.
        drop(c);
        let c = JobCache::open(&td.path().join("c/jobs.sqlite")).unwrap();
        assert_eq!(c.jobs().unwrap().len(), 1);
        assert_eq!(c.clean(0, u64::MAX).unwrap(), 0);
        let hour = 3_600_000;
        assert_eq!(c.clean(1, 1_000 + hour).unwrap(), 0);
        assert_eq!(c.clean(1, 3_001 + hour).unwrap(), 1);
        assert!(c.job(&j.jid).unwrap().is_none());
        assert!(c.returns(&j.jid).unwrap().is_empty());
        assert!(c.returns("other").unwrap().is_empty());
        assert!(c.expected(&j.jid).unwrap().is_empty());
    }

    /// Pages follow arrival order from a cursor, end when their stored
    /// size passes the budget (never empty while returns remain), and say
    /// whether more wait.
    #[test]
    fn returns_come_in_bounded_pages() {
        let td = tempfile::tempdir().unwrap();
        let c = JobCache::open(&td.path().join("jobs.sqlite")).unwrap();
        let j = job("20240102030405123456", 1_000);
        let ids: Vec<String> = (0..5).map(|i| format!("m{i}")).collect();
        c.add_job(&j, &ids).unwrap();
        // Stored in the order m3 m0 m4 m1 m2, each about 1000 bytes.
        for (n, i) in [3, 0, 4, 1, 2].into_iter().enumerate() {
            let big = Value::Str("x".repeat(1000));
            c.add_return(&ret(&j.jid, &ids[i], big), 2_000 + n as u64)
                .unwrap();
        }
        let mut order = Vec::new();
        let mut cursor = 0;
        let mut pages = 0;
        loop {
            let page = c.returns_page(&j.jid, cursor, 2_100).unwrap();
            assert!(!page.returns.is_empty() && page.returns.len() <= 2);
            order.extend(page.returns.iter().map(|r| r.id.clone()));
            cursor = page.next;
            pages += 1;
            if !page.more {
                break;
            }
        }
        assert_eq!(order, ["m3", "m0", "m4", "m1", "m2"]);
        assert_eq!(pages, 3);
        // Past the end: empty, nothing more, the cursor stays.
        let end = c.returns_page(&j.jid, cursor, 2_100).unwrap();
        assert!(end.returns.is_empty() && !end.more && end.next == cursor);
        // A budget smaller than one return still moves on by one.
        let one = c.returns_page(&j.jid, 0, 1).unwrap();
        assert_eq!(one.returns.len(), 1);
        assert!(one.more);
        assert_eq!(c.returned(&j.jid).unwrap().len(), 5);
    }

    #[test]
    fn files_are_private_and_a_damaged_cache_is_set_aside() {
        use std::os::unix::fs::PermissionsExt;
        let td = tempfile::tempdir().unwrap();
        let path = td.path().join("c/jobs.sqlite");
        let c = JobCache::open(&path).unwrap();
        c.add_job(&job("20240102030405000001", 1_000), &["web1".into()])
            .unwrap();
        let files = with_side_files(&path);
        for f in &files {
            let mode = std::fs::metadata(f).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o600, "{}", f.display());
        }
        drop(c);
        let corrupt = || {
            std::fs::read_dir(td.path().join("c"))
                .unwrap()
                .flatten()
                .filter(|e| e.file_name().to_string_lossy().contains(".corrupt-"))
                .count()
        };

        // Damaged while the master was down: set aside at open.
        std::fs::write(&path, vec![0x5a; 8192]).unwrap();
        let c = JobCache::open(&path).unwrap();
        assert!(c.jobs().unwrap().is_empty());
        assert!(corrupt() >= 1);

        // Damaged under a running master: set aside at the next write,
        // which then succeeds on the fresh database.
        c.add_job(&job("20240102030405000002", 1_000), &["web1".into()])
            .unwrap();
        let before = corrupt();
        for f in &files {
            if f.exists() {
                std::fs::write(f, vec![0x5a; 65536]).unwrap();
            }
        }
        let j = job("20240102030405000003", 2_000);
        c.add_job(&j, &["web1".into()]).unwrap();
        assert_eq!(c.job(&j.jid).unwrap(), Some(j));
        assert!(corrupt() > before);
    }

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
        let m = format_jid_instance(&job("20240102030405123456", 0));
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
