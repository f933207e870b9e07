//! What the job cache stores and answers with, whichever backend: a job,
//! its returns, a page of them, and why it could not answer; and the
//! msgpack the backends keep values in.

use crate::postgres::PgError;
use brine_core::{Map, Value};
use brine_protocol::messages::PackedValue;
use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum JobCacheError {
    #[error("job cache {path}: {source}")]
    Db {
        path: PathBuf,
        source: rusqlite::Error,
    },
    #[error("job cache {path}: the return of {id} for job {jid} was not stored")]
    NotStored {
        path: PathBuf,
        jid: String,
        id: String,
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
    #[error("job cache: {0}")]
    Pg(#[from] PgError),
    /// Another master sharing the cache published a job with this jid.
    #[error("job cache: jid {0} is taken by another master's job")]
    JidTaken(String),
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

pub(super) fn pack<T: serde::Serialize>(
    what: &'static str,
    v: &T,
) -> Result<Vec<u8>, JobCacheError> {
    rmp_serde::to_vec_named(v).map_err(|source| JobCacheError::Encode { what, source })
}

/// A stored blob; an undecodable one (a damaged database) reads as Null
/// rather than failing the whole listing.
pub(super) fn unpack<T: serde::de::DeserializeOwned + Default>(bytes: &[u8]) -> T {
    rmp_serde::from_slice(bytes).unwrap_or_default()
}

pub(super) fn to_i64(ms: u64) -> i64 {
    i64::try_from(ms).unwrap_or(i64::MAX)
}

/// Salt's `jid_to_time` (in core: the minion's `state.running` words
/// jobs with it too).
pub use brine_core::py::jid_to_time;

/// The job's arguments as Salt's publications carry them: keyword
/// arguments as a trailing dict marked `__kwarg__`.
pub fn salt_arguments(job: &Job) -> Vec<Value> {
    brine_core::args::salt_arguments(&job.arg, &job.kwarg)
}

/// Salt's `format_jid_instance`: the job as `jobs.list_jobs` shows it.
pub fn format_jid_instance(job: &Job) -> Map {
    let arguments = salt_arguments(job);
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
