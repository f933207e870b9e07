//! The shared job cache (`master_job_cache: pgjsonb`): Salt's pgjsonb
//! tables `jids` and `salt_returns`, so whatever reads Salt's job database
//! reads brine's, plus what brine needs beside them:
//!
//! - `jids.brine_job`, `salt_returns.packed`: the values exactly as sent
//!   (msgpack); the jsonb columns hold the same data as JSON for other
//!   readers (NUL characters, which jsonb cannot hold, become U+FFFD there).
//! - `salt_returns.seq`: the order of arrival, the cursor a CLI pages by.
//! - `brine_targets`: the minions each job was published to.
//!
//! Several masters write here at once. The returns of one job are stored
//! under a transaction-scoped advisory lock on the jid, so `seq` grows in
//! commit order within a job (a reader paging by `seq` never skips a return
//! that committed late) and "first return wins" holds across masters.
//! Within one master, one writer task stores the returns that arrive
//! together in one transaction (one WAL flush for all of them); each
//! request handler waits for its return's commit before the minion is
//! acknowledged. When the server cannot be reached or goes away (a
//! restart), the writer keeps the batch and tries again for up to
//! [`RETRY_FOR`]; past that the minion is answered with an error and
//! keeps the return in its own queue, to send again.

use super::record::{
    pack, to_i64, unpack, Job, JobCacheError, PackedReturn, ReturnsPage, Stored, StoredReturn,
};
use crate::postgres::{Conn, Pg, PgError};
use brine_core::{Map, Value};
use brine_protocol::messages::{JobReturn, PackedValue};
use indexmap::IndexMap;
use serde::{Deserialize, Serialize};
use std::collections::HashSet;
use std::sync::Arc;
use tokio_postgres::Row;

/// Salt's pgjsonb schema (the layout, without its GIN indexes over whole
/// returns, which cost every store; a site that searches inside returns
/// can add them), then brine's columns and table beside it. Safe to run on
/// a database Salt made: every statement is "if not exists".
const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS jids (
    jid varchar(255) NOT NULL PRIMARY KEY,
    load jsonb NOT NULL
);
CREATE TABLE IF NOT EXISTS salt_returns (
    fun varchar(50) NOT NULL,
    jid varchar(255) NOT NULL,
    return jsonb NOT NULL,
    id varchar(255) NOT NULL,
    success varchar(10) NOT NULL,
    full_ret jsonb NOT NULL,
    alter_time TIMESTAMP WITH TIME ZONE DEFAULT NOW()
);
CREATE INDEX IF NOT EXISTS idx_salt_returns_id ON salt_returns (id);
CREATE INDEX IF NOT EXISTS idx_salt_returns_jid ON salt_returns (jid);
CREATE INDEX IF NOT EXISTS idx_salt_returns_fun ON salt_returns (fun);
ALTER TABLE jids ADD COLUMN IF NOT EXISTS brine_job bytea;
ALTER TABLE jids ADD COLUMN IF NOT EXISTS start_ms bigint;
ALTER TABLE salt_returns ADD COLUMN IF NOT EXISTS seq bigserial;
ALTER TABLE salt_returns ADD COLUMN IF NOT EXISTS packed bytea;
ALTER TABLE salt_returns ADD COLUMN IF NOT EXISTS retcode bigint;
ALTER TABLE salt_returns ADD COLUMN IF NOT EXISTS out text;
ALTER TABLE salt_returns ADD COLUMN IF NOT EXISTS time_ms bigint;
CREATE INDEX IF NOT EXISTS brine_returns_arrival ON salt_returns (jid, seq);
CREATE INDEX IF NOT EXISTS brine_returns_time ON salt_returns (time_ms);
CREATE INDEX IF NOT EXISTS brine_jids_start ON jids (start_ms);
CREATE TABLE IF NOT EXISTS brine_targets (
    jid varchar(255) NOT NULL,
    id varchar(255) NOT NULL,
    PRIMARY KEY (jid, id)
);
CREATE TABLE IF NOT EXISTS brine_mine (
    id varchar(255) NOT NULL,
    fun text NOT NULL,
    data bytea NOT NULL,
    PRIMARY KEY (id, fun)
);
";

/// Masters starting at once would race on `CREATE ... IF NOT EXISTS`; the
/// schema is made under this advisory lock (any constant of brine's own).
const SCHEMA_LOCK: i64 = 0x6272_696e_6501;

/// Salt's `fun varchar(50)`: longer names are cut there (the whole name
/// stays in `full_ret`).
const FUN_COLUMN: usize = 50;

/// What a job holds beyond Salt's load, exactly as published.
#[derive(Debug, Default, Serialize, Deserialize)]
struct Exact {
    arg: Vec<Value>,
    kwarg: Map,
    tgt: Value,
}

#[derive(Debug)]
pub struct PgJobs {
    pg: Arc<Pg>,
    /// To the writer task (see the module doc).
    writes: tokio::sync::mpsc::Sender<Write>,
}

/// The most returns one transaction stores.
const BATCH: usize = 64;
/// How long the writer keeps trying a batch the server could not take
/// (unreachable, restarting): well inside the minion's wait for its
/// acknowledgement (30 s), so a restart of the database is ridden out
/// without the minion having to send again.
const RETRY_FOR: std::time::Duration = std::time::Duration::from_secs(20);
const RETRY_FIRST: std::time::Duration = std::time::Duration::from_millis(200);
const RETRY_MAX: std::time::Duration = std::time::Duration::from_secs(2);

/// A return as its row's columns.
#[derive(Debug)]
struct ReturnRow {
    fun: String,
    jid: String,
    id: String,
    /// JSON text of the value and of the whole return (Salt's columns).
    json: String,
    full: String,
    success: &'static str,
    packed: Vec<u8>,
    retcode: i64,
    out: Option<String>,
    time: i64,
}

impl ReturnRow {
    fn of(ret: &JobReturn, now_ms: u64) -> ReturnRow {
        let value: Value = unpack(&ret.ret.0);
        let json = json_text(&value);
        // Salt's full_ret: the return load, the value written once.
        let mut full = format!(
            "{{\"cmd\":\"_return\",\"id\":{},\"fun\":{},\"fun_args\":{},\"jid\":{},\
             \"retcode\":{},\"success\":{}",
            json_text(&ret.id),
            json_text(&ret.fun),
            json_text(&ret.fun_args),
            json_text(&ret.jid),
            ret.retcode,
            ret.success
        );
        if let Some(out) = &ret.out {
            full.push_str(",\"out\":");
            full.push_str(&json_text(out));
        }
        full.push_str(",\"return\":");
        full.push_str(&json);
        full.push('}');
        ReturnRow {
            fun: cut(&ret.fun, FUN_COLUMN).to_string(),
            jid: ret.jid.clone(),
            id: ret.id.clone(),
            json,
            full,
            success: if ret.success { "true" } else { "false" },
            packed: ret.ret.0.clone(),
            retcode: ret.retcode,
            out: ret.out.clone(),
            time: to_i64(now_ms),
        }
    }
}

/// A return for the writer and where its outcome goes.
type Write = (
    ReturnRow,
    tokio::sync::oneshot::Sender<Result<Stored, PgError>>,
);

/// Store the returns that arrive together in one transaction each time.
async fn writer(
    pool: deadpool_postgres::Pool,
    at: String,
    mut rx: tokio::sync::mpsc::Receiver<Write>,
) {
    while let Some(first) = rx.recv().await {
        let mut batch = vec![first];
        while batch.len() < BATCH {
            match rx.try_recv() {
                Ok(w) => batch.push(w),
                Err(_) => break,
            }
        }
        let rows: Vec<&ReturnRow> = batch.iter().map(|(r, _)| r).collect();
        let outcomes: Vec<Result<Stored, String>> = match store_retrying(&pool, &at, &rows).await {
            Ok(all) => all.into_iter().map(Ok).collect(),
            // One bad row must not hold the others back: each alone.
            Err(Failure::Row(_)) if rows.len() > 1 => {
                let mut each = Vec::with_capacity(rows.len());
                for r in &rows {
                    each.push(match store_timed(&pool, &[r]).await {
                        Ok(mut one) => Ok(one.pop().unwrap_or(Stored::NotTargeted)),
                        Err(f) => Err(f.to_string()),
                    });
                }
                each
            }
            Err(f) => vec![Err(f.to_string()); rows.len()],
        };
        for ((_, done), outcome) in batch.into_iter().zip(outcomes) {
            let _ = done.send(outcome.map_err(|why| PgError::Batch {
                at: at.clone(),
                what: "store returns",
                why,
            }));
        }
    }
}

/// Why a batch was not stored.
#[derive(Debug, thiserror::Error)]
enum Failure {
    /// The server could not be reached, went away or did not answer:
    /// the same batch may go through later.
    #[error("{0}")]
    Server(String),
    /// The server refused the batch: a row may be at fault.
    #[error("{0}")]
    Row(String),
}

/// [`store_timed`] again while the server cannot take the batch, for up
/// to [`RETRY_FOR`].
async fn store_retrying(
    pool: &deadpool_postgres::Pool,
    at: &str,
    rows: &[&ReturnRow],
) -> Result<Vec<Stored>, Failure> {
    let started = tokio::time::Instant::now();
    let mut pause = RETRY_FIRST;
    loop {
        match store_timed(pool, rows).await {
            Err(Failure::Server(why)) if started.elapsed() + pause < RETRY_FOR => {
                if pause == RETRY_FIRST {
                    tracing::warn!(
                        "PostgreSQL {at}: cannot store {} returns now ({why}); trying again \
                         for up to {RETRY_FOR:?}",
                        rows.len()
                    );
                }
                tokio::time::sleep(pause).await;
                pause = (pause * 2).min(RETRY_MAX);
            }
            Ok(stored) if pause != RETRY_FIRST => {
                tracing::info!(
                    "PostgreSQL {at}: stored {} returns after {:?} of retries",
                    rows.len(),
                    started.elapsed()
                );
                return Ok(stored);
            }
            other => return other,
        }
    }
}

/// [`store_batch`] within [`crate::postgres::WAIT`].
async fn store_timed(
    pool: &deadpool_postgres::Pool,
    rows: &[&ReturnRow],
) -> Result<Vec<Stored>, Failure> {
    match tokio::time::timeout(crate::postgres::WAIT, store_batch(pool, rows)).await {
        Ok(Ok(stored)) => Ok(stored),
        Ok(Err(e)) if e.is_server() => Err(Failure::Server(e.to_string())),
        Ok(Err(e)) => Err(Failure::Row(e.to_string())),
        Err(_) => Err(Failure::Server("no answer in time".into())),
    }
}

/// Why a batch could not be stored.
#[derive(Debug, thiserror::Error)]
enum BatchError {
    #[error("cannot connect: {0}")]
    Connect(#[from] deadpool_postgres::PoolError),
    #[error("{0}")]
    Query(#[from] tokio_postgres::Error),
}

impl BatchError {
    /// Whether the server, not the batch, failed: no connection, a
    /// connection lost (no error from the server itself), or the server's
    /// own state (SQLSTATE classes 08 connection exception, 57 operator
    /// intervention such as a shutdown, 53 insufficient resources).
    fn is_server(&self) -> bool {
        match self {
            BatchError::Connect(_) => true,
            BatchError::Query(e) => e
                .as_db_error()
                .is_none_or(|db| matches!(db.code().code().get(..2), Some("08" | "57" | "53"))),
        }
    }
}

/// One transaction: each job's lock (in one order, so masters never wait
/// on each other in a circle), then each return.
async fn store_batch(
    pool: &deadpool_postgres::Pool,
    rows: &[&ReturnRow],
) -> Result<Vec<Stored>, BatchError> {
    let mut conn = pool.get().await?;
    let tx = conn.transaction().await?;
    let mut jids: Vec<&str> = rows.iter().map(|r| r.jid.as_str()).collect();
    jids.sort_unstable();
    jids.dedup();
    // Prepared once per connection: every batch runs them.
    let lock = tx
        .prepare_cached("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))")
        .await?;
    for jid in jids {
        tx.execute(&lock, &[&jid]).await?;
    }
    let insert = tx
        .prepare_cached(
            "INSERT INTO salt_returns
             (fun, jid, return, id, success, full_ret, alter_time, packed, retcode, out, time_ms)
             SELECT $1::varchar, $2::varchar, $3::text::jsonb, $4::varchar, $5::varchar,
                    $6::text::jsonb, to_timestamp($10::bigint / 1000.0),
                    $7::bytea, $8::bigint, $9::text, $10::bigint
             WHERE EXISTS (SELECT 1 FROM brine_targets WHERE jid = $2 AND id = $4)
               AND NOT EXISTS (SELECT 1 FROM salt_returns WHERE jid = $2 AND id = $4)",
        )
        .await?;
    let targeted = tx
        .prepare_cached("SELECT 1 FROM brine_targets WHERE jid = $1 AND id = $2")
        .await?;
    let mut outcomes = Vec::with_capacity(rows.len());
    for r in rows {
        let n = tx
            .execute(
                &insert,
                &[
                    &r.fun, &r.jid, &r.json, &r.id, &r.success, &r.full, &r.packed, &r.retcode,
                    &r.out, &r.time,
                ],
            )
            .await?;
        outcomes.push(if n == 1 {
            Stored::New
        } else if tx.query_opt(&targeted, &[&r.jid, &r.id]).await?.is_some() {
            Stored::Duplicate
        } else {
            Stored::NotTargeted
        });
    }
    tx.commit().await?;
    Ok(outcomes)
}

/// `s` cut to at most `n` characters.
fn cut(s: &str, n: usize) -> &str {
    s.char_indices().nth(n).map_or(s, |(at, _)| &s[..at])
}

/// JSON text of `v` for a jsonb column, written once (a state run's return
/// is hundreds of kilobytes): U+0000, which jsonb refuses, becomes U+FFFD.
fn json_text<T: Serialize + ?Sized>(v: &T) -> String {
    let mut text = serde_json::to_string(v).unwrap_or_else(|_| "null".into());
    nul_escapes_replaced(&mut text);
    text
}

/// Turn every `\u0000` escape of JSON text into `\ufffd`; a `\\u0000` is
/// an escaped backslash before plain text and stays.
fn nul_escapes_replaced(text: &mut String) {
    const NUL: &str = "\\u0000";
    if !text.contains(NUL) {
        return;
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text.as_str();
    while let Some(at) = rest.find(NUL) {
        let before = &rest[..at];
        let slashes = before.bytes().rev().take_while(|b| *b == b'\\').count();
        out.push_str(before);
        // Escaped when the backslashes before this one are even in number.
        out.push_str(if slashes % 2 == 0 { "\\ufffd" } else { NUL });
        rest = &rest[at + NUL.len()..];
    }
    out.push_str(rest);
    *text = out;
}

/// The job's load as Salt's master stores it: keyword arguments as a
/// trailing `__kwarg__` dict in `arg`, the expected minions as `Minions`.
fn salt_load(job: &Job, expected: &[String]) -> String {
    json_text(&serde_json::json!({
        "fun": job.fun,
        "arg": Value::List(super::record::salt_arguments(job)).to_json(),
        "tgt": job.tgt.to_json(),
        "tgt_type": job.tgt_type,
        "jid": job.jid,
        "user": job.user,
        "ret": "",
        "Minions": expected,
    }))
}

/// A `jids` row (`jid, load, brine_job, start_ms`) as a job. A row Salt
/// wrote has no `brine_job`: its arguments come from the load.
fn row_job(r: &Row) -> Result<Job, tokio_postgres::Error> {
    let load: serde_json::Value = r.try_get(1)?;
    let text = |k: &str| {
        load.get(k)
            .and_then(|v| v.as_str())
            .unwrap_or("")
            .to_string()
    };
    let exact: Option<Vec<u8>> = r.try_get(2)?;
    let Exact { arg, kwarg, tgt } = match exact {
        Some(b) => unpack(&b),
        None => Exact {
            arg: match load.get("arg").map(Value::from_json) {
                Some(Value::List(a)) => a,
                _ => Vec::new(),
            },
            kwarg: Map::default(),
            tgt: load.get("tgt").map(Value::from_json).unwrap_or_default(),
        },
    };
    let start: Option<i64> = r.try_get(3)?;
    Ok(Job {
        jid: r.try_get(0)?,
        fun: text("fun"),
        arg,
        kwarg,
        tgt,
        tgt_type: text("tgt_type"),
        user: text("user"),
        start_ms: start.and_then(|s| u64::try_from(s).ok()).unwrap_or(0),
    })
}

/// The columns a stored return is read from, in [`row_return`]'s order.
const RETURN_COLUMNS: &str = "id, fun, packed, return, retcode, success, out";

/// A return row as stored. A row Salt wrote has only JSON: its value is
/// packed from that.
fn row_return(r: &Row) -> Result<(String, PackedReturn), tokio_postgres::Error> {
    let packed: Option<Vec<u8>> = r.try_get(2)?;
    let ret = match packed {
        Some(b) => PackedValue(b),
        None => {
            let json: serde_json::Value = r.try_get(3)?;
            PackedValue::pack(&Value::from_json(&json)).unwrap_or_else(|_| PackedValue::nil())
        }
    };
    let success: String = r.try_get(5)?;
    let retcode: Option<i64> = r.try_get(4)?;
    Ok((
        r.try_get(1)?,
        PackedReturn {
            id: r.try_get(0)?,
            ret,
            retcode: retcode.unwrap_or(0),
            success: success.eq_ignore_ascii_case("true"),
            out: r.try_get(6)?,
        },
    ))
}

/// The first rows of `rows` (a query ending in `LIMIT $n`, n one past
/// `params`) up to `budget` bytes of stored value (at least one), and
/// whether more remain: `sizes` (the same rows' cursor and value size) is
/// read first, so a page never holds more than it gives.
async fn page_of(
    conn: &Conn,
    sizes: &str,
    rows: &str,
    params: &[&(dyn tokio_postgres::types::ToSql + Sync)],
    budget: usize,
) -> Result<(Vec<Row>, bool), tokio_postgres::Error> {
    let mut take = 0usize;
    let mut used = 0usize;
    let mut more = false;
    let listed = conn
        .query(&conn.prepare_cached(sizes).await?, params)
        .await?;
    for r in &listed {
        let size = usize::try_from(r.try_get::<_, Option<i32>>(1)?.unwrap_or(0)).unwrap_or(0);
        if take > 0 && used.saturating_add(size) > budget {
            more = true;
            break;
        }
        used = used.saturating_add(size);
        take += 1;
    }
    if take == 0 {
        return Ok((Vec::new(), false));
    }
    let limit = i64::try_from(take).unwrap_or(i64::MAX);
    let mut with_limit: Vec<&(dyn tokio_postgres::types::ToSql + Sync)> = params.to_vec();
    with_limit.push(&limit);
    let rows = conn.prepare_cached(rows).await?;
    Ok((conn.query(&rows, &with_limit).await?, more))
}

impl PgJobs {
    /// Make the tables this database lacks.
    pub fn open(pg: Arc<Pg>) -> Result<PgJobs, JobCacheError> {
        pg.create_schema("create the job tables", SCHEMA_LOCK, SCHEMA)?;
        // Bounded: request handlers wait on their own return, so the queue
        // holds at most one per handler.
        let (writes, rx) = tokio::sync::mpsc::channel(BATCH * 4);
        pg.spawn(writer(pg.pool(), pg.at().to_string(), rx));
        Ok(PgJobs { pg, writes })
    }

    /// Store `id`'s mine entries (see [`super::JobCache::mine_store`]).
    pub fn mine_store(
        &self,
        id: &str,
        entries: &[(String, Vec<u8>)],
        clear: bool,
        max_entries: usize,
    ) -> Result<bool, JobCacheError> {
        let id = id.to_string();
        let entries = entries.to_vec();
        let max = i64::try_from(max_entries).unwrap_or(i64::MAX);
        Ok(self.pg.run("store mine data", move |mut conn| async move {
            let tx = conn.transaction().await?;
            if clear {
                tx.execute("DELETE FROM brine_mine WHERE id = $1", &[&id])
                    .await?;
            }
            let st = tx
                .prepare_cached(
                    "INSERT INTO brine_mine (id, fun, data) VALUES ($1, $2, $3)
                     ON CONFLICT (id, fun) DO UPDATE SET data = excluded.data",
                )
                .await?;
            for (fun, data) in &entries {
                tx.execute(&st, &[&id, fun, data]).await?;
            }
            let n: i64 = tx
                .query_one("SELECT count(*) FROM brine_mine WHERE id = $1", &[&id])
                .await?
                .get(0);
            if n > max {
                return Ok(false);
            }
            tx.commit().await?;
            Ok(true)
        })?)
    }

    /// Every stored mine entry of the functions `funs`.
    pub fn mine_entries(
        &self,
        funs: &[String],
    ) -> Result<Vec<(String, String, Vec<u8>)>, JobCacheError> {
        let funs = funs.to_vec();
        Ok(self.pg.run("read mine data", move |conn| async move {
            let rows = conn
                .query(
                    "SELECT id, fun, data FROM brine_mine WHERE fun = ANY($1) ORDER BY id COLLATE \"C\"",
                    &[&funs],
                )
                .await?;
            Ok(rows
                .iter()
                .map(|r| (r.get(0), r.get(1), r.get(2)))
                .collect())
        })?)
    }

    /// Every mine entry of minion `id`: (fun, packed), by function.
    pub fn mine_of(&self, id: &str) -> Result<Vec<(String, Vec<u8>)>, JobCacheError> {
        let id = id.to_string();
        Ok(self.pg.run("read mine data", move |conn| async move {
            let rows = conn
                .query(
                    "SELECT fun, data FROM brine_mine WHERE id = $1 ORDER BY fun COLLATE \"C\"",
                    &[&id],
                )
                .await?;
            Ok(rows.iter().map(|r| (r.get(0), r.get(1))).collect())
        })?)
    }

    /// Drop `id`'s mine entry `fun`, or all of them.
    pub fn mine_delete(&self, id: &str, fun: Option<&str>) -> Result<(), JobCacheError> {
        let id = id.to_string();
        let fun = fun.map(str::to_string);
        Ok(self.pg.run("drop mine data", move |conn| async move {
            match fun {
                Some(f) => {
                    conn.execute(
                        "DELETE FROM brine_mine WHERE id = $1 AND fun = $2",
                        &[&id, &f],
                    )
                    .await?
                }
                None => {
                    conn.execute("DELETE FROM brine_mine WHERE id = $1", &[&id])
                        .await?
                }
            };
            Ok(())
        })?)
    }

    pub fn add_job(&self, job: &Job, expected: &[String]) -> Result<(), JobCacheError> {
        let exact = pack(
            "the job",
            &Exact {
                arg: job.arg.clone(),
                kwarg: job.kwarg.clone(),
                tgt: job.tgt.clone(),
            },
        )?;
        let load = salt_load(job, expected);
        let jid = job.jid.clone();
        let start = to_i64(job.start_ms);
        let expected = expected.to_vec();
        let taken_jid = jid.clone();
        let added = self.pg.run("store a job", move |mut conn| async move {
            let tx = conn.transaction().await?;
            let n = tx
                .execute(
                    "INSERT INTO jids (jid, load, brine_job, start_ms)
                     VALUES ($1, $2::text::jsonb, $3, $4)
                     ON CONFLICT (jid) DO NOTHING",
                    &[&jid, &load, &exact, &start],
                )
                .await?;
            if n == 0 {
                // Dropped unstored: the jid is another job's.
                return Ok(false);
            }
            // One statement for all targets: a 10,000-minion job is one
            // round trip.
            tx.execute(
                "INSERT INTO brine_targets (jid, id) SELECT $1, unnest($2::text[])
                 ON CONFLICT DO NOTHING",
                &[&jid, &expected],
            )
            .await?;
            tx.commit().await.map(|()| true)
        })?;
        if added {
            Ok(())
        } else {
            Err(JobCacheError::JidTaken(taken_jid))
        }
    }

    pub fn add_return(&self, ret: &JobReturn, now_ms: u64) -> Result<Stored, JobCacheError> {
        let row = ReturnRow::of(ret, now_ms);
        let (done, answer) = tokio::sync::oneshot::channel();
        let writes = self.writes.clone();
        let at = self.pg.at().to_string();
        Ok(self.pg.wait("store a return", async move {
            let gone = || PgError::Batch {
                at: at.clone(),
                what: "store a return",
                why: "the writer stopped".into(),
            };
            writes.send((row, done)).await.map_err(|_| gone())?;
            answer.await.map_err(|_| gone())?
        })?)
    }

    pub fn job(&self, jid: &str) -> Result<Option<Job>, JobCacheError> {
        let jid = jid.to_string();
        Ok(self.pg.run("read a job", move |conn| async move {
            conn.query_opt(
                "SELECT jid, load, brine_job, start_ms FROM jids WHERE jid = $1",
                &[&jid],
            )
            .await?
            .map(|r| row_job(&r))
            .transpose()
        })?)
    }

    pub fn has_job(&self, jid: &str) -> Result<bool, JobCacheError> {
        let jid = jid.to_string();
        Ok(self.pg.run("look a job up", move |conn| async move {
            let st = conn
                .prepare_cached("SELECT 1 FROM jids WHERE jid = $1")
                .await?;
            Ok(conn.query_opt(&st, &[&jid]).await?.is_some())
        })?)
    }

    pub fn jobs(&self) -> Result<Vec<Job>, JobCacheError> {
        Ok(self.pg.run("list jobs", |conn| async move {
            conn.query(
                "SELECT jid, load, brine_job, start_ms FROM jids ORDER BY jid COLLATE \"C\"",
                &[],
            )
            .await?
            .iter()
            .map(row_job)
            .collect()
        })?)
    }

    pub fn expected(&self, jid: &str) -> Result<Vec<String>, JobCacheError> {
        let jid = jid.to_string();
        Ok(self
            .pg
            .run("list a job's minions", move |conn| async move {
                conn.query(
                    "SELECT id FROM brine_targets WHERE jid = $1 ORDER BY id COLLATE \"C\"",
                    &[&jid],
                )
                .await?
                .iter()
                .map(|r| r.try_get(0))
                .collect()
            })?)
    }

    pub fn returns(&self, jid: &str) -> Result<IndexMap<String, StoredReturn>, JobCacheError> {
        let jid = jid.to_string();
        let rows = self
            .pg
            .run("read a job's returns", move |conn| async move {
                let sql = format!(
                    "SELECT {RETURN_COLUMNS} FROM salt_returns WHERE jid = $1 ORDER BY seq"
                );
                conn.query(&sql, &[&jid])
                    .await?
                    .iter()
                    .map(row_return)
                    .collect::<Result<Vec<_>, _>>()
            })?;
        Ok(rows
            .into_iter()
            .map(|(fun, r)| {
                let stored = StoredReturn {
                    id: r.id.clone(),
                    fun,
                    ret: unpack(&r.ret.0),
                    retcode: r.retcode,
                    success: r.success,
                    out: r.out,
                };
                (r.id, stored)
            })
            .collect())
    }

    pub fn returns_page(
        &self,
        jid: &str,
        after: u64,
        budget: usize,
    ) -> Result<ReturnsPage, JobCacheError> {
        let jid = jid.to_string();
        let after_seq = to_i64(after);
        let (rows, more) = self
            .pg
            .run("read a page of returns", move |conn| async move {
                let (rows, more) = page_of(
                    &conn,
                    "SELECT seq, octet_length(packed) FROM salt_returns
                 WHERE jid = $1 AND seq > $2 ORDER BY seq",
                    &format!(
                        "SELECT {RETURN_COLUMNS}, seq FROM salt_returns
                     WHERE jid = $1 AND seq > $2 ORDER BY seq LIMIT $3"
                    ),
                    &[&jid, &after_seq],
                    budget,
                )
                .await?;
                let rows = rows
                    .iter()
                    .map(|r| Ok((row_return(r)?.1, r.try_get::<_, i64>(7)?)))
                    .collect::<Result<Vec<_>, tokio_postgres::Error>>()?;
                Ok((rows, more))
            })?;
        let next = rows
            .last()
            .and_then(|(_, seq)| u64::try_from(*seq).ok())
            .unwrap_or(after);
        Ok(ReturnsPage {
            returns: rows.into_iter().map(|(r, _)| r).collect(),
            next,
            more,
        })
    }

    pub fn returns_by_id(
        &self,
        jid: &str,
        after: Option<&str>,
        budget: usize,
    ) -> Result<Vec<PackedReturn>, JobCacheError> {
        let jid = jid.to_string();
        let after = after.map(str::to_string);
        Ok(self
            .pg
            .run("read returns by minion", move |conn| async move {
                let (rows, _) = page_of(
                    &conn,
                    "SELECT id, octet_length(packed) FROM salt_returns
                 WHERE jid = $1 AND ($2::text IS NULL OR id COLLATE \"C\" > $2)
                 ORDER BY id COLLATE \"C\"",
                    &format!(
                        "SELECT {RETURN_COLUMNS} FROM salt_returns
                     WHERE jid = $1 AND ($2::text IS NULL OR id COLLATE \"C\" > $2)
                     ORDER BY id COLLATE \"C\" LIMIT $3"
                    ),
                    &[&jid, &after],
                    budget,
                )
                .await?;
                rows.iter().map(|r| Ok(row_return(r)?.1)).collect()
            })?)
    }

    pub fn first_outputter(&self, jid: &str) -> Result<Option<String>, JobCacheError> {
        let jid = jid.to_string();
        Ok(self
            .pg
            .run("read a job's outputter", move |conn| async move {
                Ok(conn
                    .query_opt(
                        "SELECT out FROM salt_returns WHERE jid = $1 ORDER BY seq LIMIT 1",
                        &[&jid],
                    )
                    .await?
                    .map(|r| r.try_get::<_, Option<String>>(0))
                    .transpose()?
                    .flatten())
            })?)
    }

    pub fn counts(&self, jid: &str) -> Result<(u64, u64), JobCacheError> {
        let jid = jid.to_string();
        Ok(self
            .pg
            .run("count a job's returns", move |conn| async move {
                // Asked after every return that lands while a CLI waits.
                let st = conn
                    .prepare_cached(
                        "SELECT (SELECT COUNT(*) FROM brine_targets WHERE jid = $1),
                            (SELECT COUNT(*) FROM salt_returns WHERE jid = $1)",
                    )
                    .await?;
                let r = conn.query_one(&st, &[&jid]).await?;
                let n = |i| {
                    r.try_get::<_, i64>(i)
                        .map(|n| u64::try_from(n).unwrap_or(0))
                };
                Ok((n(0)?, n(1)?))
            })?)
    }

    pub fn returned(&self, jid: &str) -> Result<HashSet<String>, JobCacheError> {
        let jid = jid.to_string();
        Ok(self.pg.run("list who returned", move |conn| async move {
            conn.query("SELECT id FROM salt_returns WHERE jid = $1", &[&jid])
                .await?
                .iter()
                .map(|r| r.try_get(0))
                .collect()
        })?)
    }

    /// Delete jobs started before `cutoff` (ms), their targets and
    /// returns, and returns stored before it for jobs never published.
    pub fn clean(&self, cutoff: u64) -> Result<usize, JobCacheError> {
        let cutoff = to_i64(cutoff);
        Ok(self.pg.run("remove old jobs", move |mut conn| async move {
            let tx = conn.transaction().await?;
            tx.execute(
                "DELETE FROM brine_targets WHERE jid IN (SELECT jid FROM jids WHERE start_ms < $1)",
                &[&cutoff],
            )
            .await?;
            tx.execute(
                "DELETE FROM salt_returns WHERE jid IN (SELECT jid FROM jids WHERE start_ms < $1)
                 OR (time_ms < $1 AND jid NOT IN (SELECT jid FROM jids))",
                &[&cutoff],
            )
            .await?;
            let n = tx
                .execute("DELETE FROM jids WHERE start_ms < $1", &[&cutoff])
                .await?;
            tx.commit().await?;
            Ok(usize::try_from(n).unwrap_or(usize::MAX))
        })?)
    }
}

#[cfg(test)]
mod tests {
    use super::super::{checks, JobCache};
    use super::*;
    use crate::postgres::test_server::TestServer;

    #[test]
    fn a_job_cache_in_postgres_keeps_what_every_backend_keeps() {
        let server = TestServer::start();
        let opts = server.options("salt");
        checks::jobs_targets_returns_and_cleanup(&|| JobCache::open_postgres(&opts).unwrap());
        checks::returns_come_in_bounded_pages(&JobCache::open_postgres(&opts).unwrap());
        // Two masters, one jid: the second is told, the first job kept.
        let (a, b) = (
            JobCache::open_postgres(&opts).unwrap(),
            JobCache::open_postgres(&opts).unwrap(),
        );
        let j = checks::job("20240102030405000042", 7);
        a.add_job(&j, &["web1".into()]).unwrap();
        let mut other = j.clone();
        other.fun = "cmd.run".into();
        assert!(matches!(
            b.add_job(&other, &["db1".into()]),
            Err(JobCacheError::JidTaken(_))
        ));
        assert_eq!(b.job(&j.jid).unwrap(), Some(j.clone()));
        assert_eq!(b.expected(&j.jid).unwrap(), ["web1"]);
    }

    /// The database restarts while a return is being stored: the writer
    /// keeps it and stores it once the server is back, and the caller (the
    /// minion's request) is told it was stored, not asked to send again.
    #[test]
    fn a_return_is_stored_across_a_database_restart() {
        let server = TestServer::start();
        let c = JobCache::open_postgres(&server.options("salt")).unwrap();
        let j = checks::job("20240102030405000888", 5);
        c.add_job(&j, &["web1".into()]).unwrap();
        server.stop();
        let started = std::time::Instant::now();
        let stored = std::thread::scope(|s| {
            let storing =
                s.spawn(|| c.add_return(&checks::ret(&j.jid, "web1", Value::Bool(true)), 10));
            std::thread::sleep(std::time::Duration::from_secs(3));
            assert!(!storing.is_finished(), "gave up while the server was down");
            server.start_again();
            storing.join().unwrap()
        });
        assert_eq!(stored.unwrap(), Stored::New);
        assert!(started.elapsed() < RETRY_FOR);
        assert_eq!(c.returns(&j.jid).unwrap()["web1"].ret, Value::Bool(true));
    }

    /// What Salt's readers see: the pgjsonb columns filled as Salt's
    /// returner fills them, and a row Salt wrote (no brine columns) read
    /// back as a return.
    #[test]
    fn salt_readers_see_salt_rows_and_salt_rows_read_back() {
        let server = TestServer::start();
        let c = JobCache::open_postgres(&server.options("salt")).unwrap();
        let j = checks::job("20240102030405000777", 5);
        c.add_job(&j, &["web1".into(), "web2".into()]).unwrap();
        let mut m = Map::default();
        m.insert("text".into(), Value::Str("a\u{0}b".into()));
        let mut r = checks::ret(&j.jid, "web1", Value::Map(m.clone()));
        r.success = false;
        r.retcode = 2;
        assert_eq!(c.add_return(&r, 10).unwrap(), Stored::New);
        let pg = Pg::connect(&server.options("salt")).unwrap();
        let (load, ret, success, full) = pg
            .run("read as Salt", |conn| async move {
                let l = conn.query_one("SELECT load FROM jids", &[]).await?;
                let r = conn
                    .query_one("SELECT return, success, full_ret FROM salt_returns", &[])
                    .await?;
                Ok((
                    l.get::<_, serde_json::Value>(0),
                    r.get::<_, serde_json::Value>(0),
                    r.get::<_, String>(1),
                    r.get::<_, serde_json::Value>(2),
                ))
            })
            .unwrap();
        assert_eq!(load["Minions"], serde_json::json!(["web1", "web2"]));
        assert_eq!(ret, serde_json::json!({"text": "a\u{FFFD}b"}));
        assert_eq!(success, "false");
        assert_eq!(full["retcode"], 2);
        assert_eq!(full["id"], "web1");
        // The exact value is what brine gives back.
        assert_eq!(c.returns(&j.jid).unwrap()["web1"].ret, Value::Map(m));
        // A row as Salt's returner writes it.
        pg.run("write as Salt", |conn| async move {
            conn.execute(
                "INSERT INTO salt_returns (fun, jid, return, id, success, full_ret)
                 VALUES ('test.ping', '20240102030405000777', 'true', 'web2', 'true',
                         '{\"return\": true}')",
                &[],
            )
            .await
        })
        .unwrap();
        let rs = c.returns(&j.jid).unwrap();
        assert_eq!(rs["web2"].ret, Value::Bool(true));
        assert!(rs["web2"].success);
        assert_eq!(c.counts(&j.jid).unwrap(), (2, 2));
    }

    #[test]
    fn json_text_for_jsonb_has_no_nul_escape() {
        let v = Value::Str("a\u{0}b\\u0000c".into());
        // The NUL becomes U+FFFD; the backslash-u-0000 text stays text.
        assert_eq!(json_text(&v), r#""a\ufffdb\\u0000c""#);
        let v: Value = serde_json::from_str::<serde_json::Value>(r#"{"k\u0000": [1.5, null]}"#)
            .map(|j| Value::from_json(&j))
            .unwrap();
        assert_eq!(json_text(&v), r#"{"k\ufffd":[1.5,null]}"#);
        assert_eq!(json_text(&Value::Float(f64::NAN)), "null");
    }

    #[test]
    fn json_for_jsonb_has_no_nul_and_salt_load_shape() {
        let v =
            Value::from_json(&serde_json::json!({"a\u{0}": ["x\u{0}y", 1], "b": {"c": "\u{0}"}}));
        let text = json_text(&v);
        assert_eq!(
            serde_json::from_str::<serde_json::Value>(&text).unwrap(),
            serde_json::json!({"a\u{FFFD}": ["x\u{FFFD}y", 1], "b": {"c": "\u{FFFD}"}})
        );
        assert_eq!(cut("état.apply", 3), "éta");
        assert_eq!(cut("ab", 50), "ab");
        let job = checks::job("20240102030405123456", 0);
        let load = salt_load(&job, &["web1".into()]);
        assert_eq!(
            serde_json::from_str::<serde_json::Value>(&load).unwrap(),
            serde_json::json!({
                "fun": "state.apply",
                "arg": ["web", {"__kwarg__": true, "test": true}],
                "tgt": "web*",
                "tgt_type": "glob",
                "jid": "20240102030405123456",
                "user": "root",
                "ret": "",
                "Minions": ["web1"],
            })
        );
    }
}
