//! The embedded job cache (Salt's `local_cache` returner's place, in one
//! SQLite file under `cachedir`), the default backend.
//!
//! Values (arguments, targets, returns) are stored as msgpack blobs so they
//! come back exactly as they were sent.

use super::record::{
    pack, to_i64, unpack, Job, JobCacheError, PackedReturn, ReturnsPage, Stored, StoredReturn,
};
use brine_protocol::messages::PackedValue;
use indexmap::IndexMap;
use rusqlite::{params, Connection, OptionalExtension};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

pub struct SqliteJobs {
    path: PathBuf,
    db: Mutex<Connection>,
    /// In the master (the file's one writer): per job, how many minions it
    /// targets and how many have returned, once counted. A CLI waiting for
    /// returns asks at every page, and counting a job's rows each time
    /// grew with the fleet (two index scans of 10,000 rows per page).
    /// Changed only under the connection's lock, with the rows it counts.
    counted: Option<Mutex<HashMap<String, (u64, u64)>>>,
    /// Returns waiting for the connection: whoever holds it next stores
    /// every one queued in one transaction (see [`SqliteJobs::add_return`]).
    /// At most one per caller waiting for the lock (the master's workers).
    queued: Mutex<Vec<Arc<Queued>>>,
}

/// A return on its way into the `returns` table, packed and compressed
/// before the connection is taken, and the answer for its caller.
struct Queued {
    jid: String,
    id: String,
    fun: String,
    fun_args: Vec<u8>,
    ret: Vec<u8>,
    retcode: i64,
    success: bool,
    out: Option<String>,
    time_ms: i64,
    done: Mutex<Option<rusqlite::Result<Stored>>>,
}

impl Queued {
    fn of(ret: &brine_protocol::messages::JobReturn, now_ms: u64) -> Result<Queued, JobCacheError> {
        Ok(Queued {
            jid: ret.jid.clone(),
            id: ret.id.clone(),
            fun: ret.fun.clone(),
            fun_args: pack("function arguments", &ret.fun_args)?,
            ret: stored_ret(&ret.ret.0).into_owned(),
            retcode: ret.retcode,
            success: ret.success,
            out: ret.out.clone(),
            time_ms: to_i64(now_ms),
            done: Mutex::new(None),
        })
    }

    fn finish(&self, r: rusqlite::Result<Stored>) {
        *self.done.lock().unwrap_or_else(|p| p.into_inner()) = Some(r);
    }

    fn take(&self) -> Option<rusqlite::Result<Stored>> {
        self.done.lock().unwrap_or_else(|p| p.into_inner()).take()
    }
}

/// Store `batch` in one transaction: all of it, or nothing.
fn insert_together(c: &mut Connection, batch: &[Arc<Queued>]) -> rusqlite::Result<Vec<Stored>> {
    let tx = c.transaction()?;
    let stored = batch
        .iter()
        .map(|q| insert_return(&tx, q))
        .collect::<rusqlite::Result<Vec<Stored>>>()?;
    tx.commit()?;
    Ok(stored)
}

/// Store one return (the first one per jid and minion wins) if the job
/// targeted its minion.
fn insert_return(c: &Connection, q: &Queued) -> rusqlite::Result<Stored> {
    // Kept prepared: every return runs it.
    let n = c
        .prepare_cached(
            "INSERT OR IGNORE INTO returns
             (jid, id, fun, fun_args, ret, retcode, success, out, time_ms)
             SELECT ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9
             WHERE EXISTS (SELECT 1 FROM targets WHERE jid = ?1 AND id = ?2)",
        )?
        .execute(params![
            q.jid, q.id, q.fun, q.fun_args, q.ret, q.retcode, q.success, q.out, q.time_ms
        ])?;
    if n == 1 {
        return Ok(Stored::New);
    }
    // Nothing stored: a second return, or no such target.
    let targeted = c
        .prepare_cached("SELECT 1 FROM targets WHERE jid = ?1 AND id = ?2")?
        .query_row(params![q.jid, q.id], |_| Ok(()))
        .optional()?
        .is_some();
    Ok(if targeted {
        Stored::Duplicate
    } else {
        Stored::NotTargeted
    })
}

/// Jobs whose counts are kept at once (past it they are counted afresh).
const COUNTED_JOBS: usize = 1024;

impl std::fmt::Debug for SqliteJobs {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "SqliteJobs({})", self.path.display())
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
-- The mine: each minion's entries (function or alias -> msgpack value).
CREATE TABLE IF NOT EXISTS mine (
    id TEXT NOT NULL,
    fun TEXT NOT NULL,
    data BLOB NOT NULL,
    PRIMARY KEY (id, fun)
);
";

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

/// A stored `ret` that is compressed starts with this byte, which msgpack
/// never uses (0xc1, "never used"): a return stored as packed, as an
/// earlier brine stored every one, reads as it is.
const COMPRESSED: u8 = 0xc1;

/// Returns smaller than this are stored as packed (nothing to gain).
const COMPRESS_FROM: usize = 512;

/// `ret` as the `ret` column holds it: LZ4 (the block format, size first)
/// behind [`COMPRESSED`] when it is large enough to gain from it.
fn stored_ret(packed: &[u8]) -> std::borrow::Cow<'_, [u8]> {
    if packed.len() < COMPRESS_FROM {
        return std::borrow::Cow::Borrowed(packed);
    }
    let body = lz4_flex::block::compress_prepend_size(packed);
    let mut out = Vec::with_capacity(1 + body.len());
    out.push(COMPRESSED);
    out.extend_from_slice(&body);
    std::borrow::Cow::Owned(out)
}

/// The packed return a `ret` column holds. A compressed one that does not
/// open (a damaged file), or that says it is larger than any message,
/// reads as None, as a damaged packed value does.
fn read_ret(stored: Vec<u8>) -> Vec<u8> {
    const NIL: &[u8] = &[0xc0];
    let Some((&COMPRESSED, body)) = stored.split_first() else {
        return stored;
    };
    let declared = body
        .get(..4)
        .and_then(|b| <[u8; 4]>::try_from(b).ok())
        .map_or(usize::MAX, |b| u32::from_le_bytes(b) as usize);
    if declared > brine_protocol::messages::MAX_MESSAGE_BYTES {
        return NIL.to_vec();
    }
    lz4_flex::block::decompress_size_prepended(body).unwrap_or_else(|_| NIL.to_vec())
}

/// A stored return from the columns `id, ret, retcode, success, out`,
/// starting at column `at`.
fn packed_return(r: &rusqlite::Row<'_>, at: usize) -> rusqlite::Result<PackedReturn> {
    Ok(PackedReturn {
        id: r.get(at)?,
        ret: PackedValue(read_ret(r.get(at + 1)?)),
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

impl SqliteJobs {
    /// Open (creating) the database at `path`. A damaged database is
    /// moved aside (`<name>.corrupt-<ms>`, with its WAL) and a fresh one
    /// started: the master keeps publishing, and the old file is kept for
    /// whoever wants to recover it.
    pub fn open(path: &Path) -> Result<SqliteJobs, JobCacheError> {
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
        Ok(SqliteJobs {
            path: path.to_path_buf(),
            db: Mutex::new(conn),
            counted: Some(Mutex::default()),
            queued: Mutex::default(),
        })
    }

    /// Open an existing database read-only (brine-run).
    pub fn open_existing(path: &Path) -> Result<SqliteJobs, JobCacheError> {
        let conn = Connection::open_with_flags(
            path,
            rusqlite::OpenFlags::SQLITE_OPEN_READ_WRITE | rusqlite::OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )
        .map_err(|source| JobCacheError::Db {
            path: path.to_path_buf(),
            source,
        })?;
        let _ = conn.busy_timeout(std::time::Duration::from_secs(10));
        Ok(SqliteJobs {
            path: path.to_path_buf(),
            db: Mutex::new(conn),
            // Another process writes this file: count each time.
            counted: None,
            queued: Mutex::default(),
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
                self.forget_counts(|_| true);
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

    /// Drop the kept counts of the jobs `which` picks (call with the
    /// connection locked).
    fn forget_counts(&self, which: impl Fn(&str) -> bool) {
        if let Some(m) = &self.counted {
            m.lock()
                .unwrap_or_else(|p| p.into_inner())
                .retain(|jid, _| !which(jid));
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
            tx.commit()?;
            self.forget_counts(|jid| jid == job.jid);
            Ok(())
        })
    }

    /// Store a minion's return (the first one per jid and minion wins),
    /// if the job was published to it. The value is stored as the minion
    /// packed it. Returns arriving together share a transaction: a commit
    /// each (its WAL frames and checkpoints) was a quarter of the master's
    /// CPU answering a 10,000-minion `test.ping`. The caller's answer is
    /// its own return's, and it has been committed when it comes.
    pub fn add_return(
        &self,
        ret: &brine_protocol::messages::JobReturn,
        now_ms: u64,
    ) -> Result<Stored, JobCacheError> {
        let mine = Arc::new(Queued::of(ret, now_ms)?);
        self.lock_queue().push(mine.clone());
        // Whoever held the connection before this either stored it (and
        // answered it) or put it back in the queue for the next holder.
        self.with(|c| self.store_queued(c))?;
        match mine.take() {
            Some(r) => r.map_err(|source| JobCacheError::Db {
                path: self.path.clone(),
                source,
            }),
            // Not expected: it was queued before the lock was taken, and
            // a holder answers what it takes or queues it again.
            None => Err(JobCacheError::NotStored {
                path: self.path.clone(),
                jid: ret.jid.clone(),
                id: ret.id.clone(),
            }),
        }
    }

    fn lock_queue(&self) -> std::sync::MutexGuard<'_, Vec<Arc<Queued>>> {
        self.queued.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Store every queued return (called with the connection locked): in
    /// one transaction; if that fails, one by one, so a return that cannot
    /// be stored fails alone. On a damaged file the returns not answered
    /// go back to the queue for [`Self::with`]'s second try.
    fn store_queued(&self, c: &mut Connection) -> rusqlite::Result<()> {
        let batch = std::mem::take(&mut *self.lock_queue());
        if batch.is_empty() {
            return Ok(());
        }
        match insert_together(c, &batch) {
            Ok(stored) => {
                for (q, s) in batch.iter().zip(stored) {
                    self.answer(q, Ok(s));
                }
                Ok(())
            }
            Err(e) if is_damage(&e) => {
                self.lock_queue().extend(batch);
                Err(e)
            }
            Err(_) => {
                for (n, q) in batch.iter().enumerate() {
                    match insert_return(c, q) {
                        Err(e) if is_damage(&e) => {
                            self.lock_queue().extend(batch[n..].iter().cloned());
                            return Err(e);
                        }
                        r => self.answer(q, r),
                    }
                }
                Ok(())
            }
        }
    }

    /// Give a stored return its answer, counting it for its job.
    fn answer(&self, q: &Queued, r: rusqlite::Result<Stored>) {
        if let (Ok(Stored::New), Some(m)) = (&r, &self.counted) {
            let mut m = m.lock().unwrap_or_else(|p| p.into_inner());
            if let Some((_, returned)) = m.get_mut(&q.jid) {
                *returned += 1;
            }
        }
        q.finish(r);
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

    pub fn has_job(&self, jid: &str) -> Result<bool, JobCacheError> {
        self.with(|c| {
            c.prepare_cached("SELECT 1 FROM jobs WHERE jid = ?1")?
                .query_row(params![jid], |_| Ok(()))
                .optional()
                .map(|r| r.is_some())
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
                    ret: unpack(&read_ret(ret)),
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
            if let Some(m) = &self.counted {
                if let Some(kept) = m.lock().unwrap_or_else(|p| p.into_inner()).get(jid) {
                    return Ok(*kept);
                }
            }
            let count = |sql: &str| {
                c.prepare_cached(sql)?
                    .query_row(params![jid], |r| r.get::<_, i64>(0))
                    .map(|n| u64::try_from(n).unwrap_or(0))
            };
            let counts = (
                count("SELECT COUNT(*) FROM targets WHERE jid = ?1")?,
                count("SELECT COUNT(*) FROM returns WHERE jid = ?1")?,
            );
            if let Some(m) = &self.counted {
                let mut m = m.lock().unwrap_or_else(|p| p.into_inner());
                if m.len() >= COUNTED_JOBS {
                    m.clear();
                }
                m.insert(jid.to_string(), counts);
            }
            Ok(counts)
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

    /// Delete jobs started before `cutoff` (ms), their targets and
    /// returns, and returns stored before it for jobs never published here.
    pub fn clean(&self, cutoff: u64) -> Result<usize, JobCacheError> {
        let cutoff = to_i64(cutoff);
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
            if n > 0 {
                self.forget_counts(|_| true);
            }
            Ok(n)
        })
    }
}

/// The mine's rows.
impl SqliteJobs {
    /// Store `id`'s entries (packed), replacing all it had when `clear`;
    /// refused past `max_entries` entries for the minion.
    pub fn mine_store(
        &self,
        id: &str,
        entries: &[(String, Vec<u8>)],
        clear: bool,
        max_entries: usize,
    ) -> Result<bool, JobCacheError> {
        self.with(|c| {
            let tx = c.transaction()?;
            if clear {
                tx.execute("DELETE FROM mine WHERE id = ?1", params![id])?;
            }
            {
                let mut st = tx.prepare_cached(
                    "INSERT INTO mine (id, fun, data) VALUES (?1, ?2, ?3)
                     ON CONFLICT (id, fun) DO UPDATE SET data = excluded.data",
                )?;
                for (fun, data) in entries {
                    st.execute(params![id, fun, data])?;
                }
            }
            let n: i64 = tx.query_row(
                "SELECT count(*) FROM mine WHERE id = ?1",
                params![id],
                |r| r.get(0),
            )?;
            if usize::try_from(n).unwrap_or(usize::MAX) > max_entries {
                // Dropped: nothing of this store is kept.
                return Ok(false);
            }
            tx.commit()?;
            Ok(true)
        })
    }

    /// Every stored entry of the functions `funs`: (id, fun, packed).
    pub fn mine_entries(
        &self,
        funs: &[String],
    ) -> Result<Vec<(String, String, Vec<u8>)>, JobCacheError> {
        self.with(|c| {
            let mut st =
                c.prepare_cached("SELECT id, fun, data FROM mine WHERE fun = ?1 ORDER BY id")?;
            let mut out = Vec::new();
            for fun in funs {
                let rows = st.query_map(params![fun], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?;
                for row in rows {
                    out.push(row?);
                }
            }
            Ok(out)
        })
    }

    /// Every entry of minion `id`: (fun, packed), by function.
    pub fn mine_of(&self, id: &str) -> Result<Vec<(String, Vec<u8>)>, JobCacheError> {
        self.with(|c| {
            let mut st =
                c.prepare_cached("SELECT fun, data FROM mine WHERE id = ?1 ORDER BY fun")?;
            let rows = st.query_map(params![id], |r| Ok((r.get(0)?, r.get(1)?)))?;
            let mut out = Vec::new();
            for row in rows {
                out.push(row?);
            }
            Ok(out)
        })
    }

    /// Drop `id`'s entry `fun`, or all its entries (`None`).
    pub fn mine_delete(&self, id: &str, fun: Option<&str>) -> Result<(), JobCacheError> {
        self.with(|c| {
            match fun {
                Some(f) => c.execute(
                    "DELETE FROM mine WHERE id = ?1 AND fun = ?2",
                    params![id, f],
                )?,
                None => c.execute("DELETE FROM mine WHERE id = ?1", params![id])?,
            };
            Ok(())
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

#[cfg(test)]
mod tests {
    use super::super::checks::{self, job};
    use super::super::JobCache;
    use super::*;
    use brine_core::Value;

    #[test]
    fn a_job_cache_in_sqlite_keeps_what_every_backend_keeps() {
        let td = tempfile::tempdir().unwrap();
        let path = td.path().join("c/jobs.sqlite");
        checks::jobs_targets_returns_and_cleanup(&|| JobCache::open(&path).unwrap());
        let td = tempfile::tempdir().unwrap();
        checks::returns_come_in_bounded_pages(
            &JobCache::open(&td.path().join("j.sqlite")).unwrap(),
        );
    }

    /// Returns arriving together share transactions; each caller still
    /// gets its own return's answer, and the kept counts move with them.
    #[test]
    fn returns_stored_together_each_get_their_own_answer() {
        let td = tempfile::tempdir().unwrap();
        let c = SqliteJobs::open(&td.path().join("j.sqlite")).unwrap();
        let j = job("20240102030405000010", 1_000);
        let ids: Vec<String> = (0..120).map(|i| format!("m{i}")).collect();
        c.add_job(&j, &ids).unwrap();
        assert_eq!(c.counts(&j.jid).unwrap(), (120, 0));
        // Eight callers at once: each sends every third id twice over
        // (returns repeated across callers) and one id never targeted.
        let answers: Vec<Vec<(String, Stored)>> = std::thread::scope(|s| {
            let callers: Vec<_> = (0..8)
                .map(|t| {
                    let (c, j, ids) = (&c, &j, &ids);
                    s.spawn(move || {
                        let mine = ids.iter().skip(t % 3).step_by(3).cloned();
                        let stray = std::iter::once(format!("stray{t}"));
                        mine.chain(stray)
                            .map(|id| {
                                let r = checks::ret(&j.jid, &id, Value::Int(t as i64));
                                (id, c.add_return(&r, 2_000).unwrap())
                            })
                            .collect()
                    })
                })
                .collect();
            callers.into_iter().map(|h| h.join().unwrap()).collect()
        });
        let mut new = std::collections::HashSet::new();
        for (id, stored) in answers.iter().flatten() {
            match stored {
                Stored::New => assert!(new.insert(id.clone()), "{id} stored twice"),
                Stored::Duplicate => assert!(id.starts_with('m')),
                Stored::NotTargeted => assert!(id.starts_with("stray")),
            }
        }
        assert_eq!(new.len(), 120);
        assert_eq!(c.counts(&j.jid).unwrap(), (120, 120));
        assert!(c.lock_queue().is_empty());
    }

    #[test]
    fn large_returns_are_stored_compressed_and_read_as_sent() {
        let td = tempfile::tempdir().unwrap();
        let path = td.path().join("j.sqlite");
        let c = JobCache::open(&path).unwrap();
        let j = job("20240102030405000009", 1_000);
        let ids = ["big", "small", "old", "bad"].map(String::from);
        c.add_job(&j, &ids).unwrap();
        let mut m = brine_core::Map::default();
        for i in 0..500 {
            m.insert(format!("state_|-s{i}_|-n{i}_|-nop"), Value::Int(i));
        }
        let big = Value::Map(m);
        c.add_return(&checks::ret(&j.jid, "big", big.clone()), 2_000)
            .unwrap();
        c.add_return(&checks::ret(&j.jid, "small", Value::Bool(true)), 2_001)
            .unwrap();
        let packed = PackedValue::pack(&big).unwrap().0;
        let conn = Connection::open(&path).unwrap();
        let stored: Vec<u8> = conn
            .query_row("SELECT ret FROM returns WHERE id = 'big'", [], |r| r.get(0))
            .unwrap();
        assert_eq!(stored.first(), Some(&COMPRESSED));
        assert!(
            stored.len() * 2 < packed.len(),
            "{} of {}",
            stored.len(),
            packed.len()
        );
        // As an earlier brine stored it (packed), and damaged.
        for (id, ret) in [
            ("old", packed.clone()),
            ("bad", vec![COMPRESSED, 9, 9, 9, 9, 9]),
        ] {
            conn.execute(
                "INSERT INTO returns (jid, id, fun, fun_args, ret, retcode, success, out, time_ms)
                 VALUES (?1, ?2, 'test.echo', x'90', ?3, 0, 1, NULL, 3000)",
                params![j.jid, id, ret],
            )
            .unwrap();
        }
        let rs = c.returns(&j.jid).unwrap();
        assert_eq!(rs["big"].ret, big);
        assert_eq!(rs["small"].ret, Value::Bool(true));
        assert_eq!(rs["old"].ret, big);
        assert_eq!(rs["bad"].ret, Value::Null);
        let page = c.returns_page(&j.jid, 0, usize::MAX).unwrap();
        let by_id: HashMap<_, _> = page
            .returns
            .iter()
            .map(|r| (r.id.as_str(), &r.ret))
            .collect();
        assert_eq!(by_id["big"].0, packed);
        assert_eq!(by_id["old"].0, packed);
        assert_eq!(by_id["bad"].unpack(), Value::Null);
        // A size past any message is not believed.
        let mut huge = vec![COMPRESSED];
        huge.extend_from_slice(&u32::MAX.to_le_bytes());
        assert_eq!(read_ret(huge), vec![0xc0]);
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
}
