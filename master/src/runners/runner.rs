//! One runner function, described once: its name, its parameters as
//! Salt's runner declares them, its docs and its code; and what a runner
//! answers with.

use crate::backend::Backend;
use crate::daemon::client::ClientError;
use crate::daemon::jobs::{JobCache, JobCacheError};
use crate::daemon::MasterConfig;
use brine_core::output::stream::Entries;
use brine_core::signature::Signature;
use brine_core::Value;
use brine_runtime::modules::{CallError, Params};
use std::future::Future;
use std::path::PathBuf;
use std::pin::Pin;

/// Why a runner could not answer.
#[derive(Debug, thiserror::Error)]
pub enum RunnerError {
    #[error("no job cache at {0} (has brine-master run with this config?)")]
    NoJobCache(PathBuf),
    #[error(transparent)]
    Jobs(#[from] JobCacheError),
    #[error(transparent)]
    Client(#[from] ClientError),
    #[error(transparent)]
    Keys(#[from] crate::keys::KeyStoreError),
    #[error(transparent)]
    MinionCache(#[from] crate::daemon::minion_cache::CacheError),
    /// Python's words for arguments that do not fit (Salt prints them as
    /// "Passed invalid arguments: ...").
    #[error("{0}")]
    InvalidArguments(String),
    /// Keyword arguments the runner does not take, refused before it runs
    /// (Salt's `SaltInvocationError` from loading the arguments).
    #[error("{0}")]
    InvalidKeywords(String),
    #[error("'{0}' is not available.")]
    NotAvailable(String),
    /// A runner that could not do its work (the event socket closed), or
    /// raised: salt-run answers "Exception occurred in runner ...".
    #[error("{0}")]
    Failed(String),
    /// Salt's `NotImplemented` raised: salt-run answers its empty words.
    #[error("")]
    NotImplemented,
}

impl From<CallError> for RunnerError {
    /// Arguments that do not bind: Salt prints Python's words for them.
    fn from(e: CallError) -> RunnerError {
        match e {
            CallError::InvalidArguments(m) => RunnerError::InvalidArguments(m),
            CallError::Invocation(m) => RunnerError::InvalidKeywords(m),
            other => RunnerError::InvalidArguments(other.to_string()),
        }
    }
}

/// A runner's answer, with the outputter it asks for.
pub enum Answer {
    /// Data printed whole.
    Data {
        data: Value,
        outputter: Option<String>,
        /// A `progress` event the runner fired before its answer (Salt's
        /// `__jid_event__`), which salt-run prints first: the event's
        /// data and its outputter.
        progress: Option<(Value, String)>,
        /// Mappings this deep or deeper are ordered as they came (Salt's
        /// `OrderedDict`s: high data); shallower ones print sorted.
        ordered_from: Option<usize>,
    },
    /// A job's returns, printed one minion at a time as they are read
    /// (`brine_core::output::stream`).
    Returns {
        returns: Box<dyn Entries<Error = JobCacheError> + Send>,
        outputter: Option<String>,
    },
}

impl Answer {
    pub(super) fn data(data: Value) -> Answer {
        Answer::Data {
            data,
            outputter: None,
            progress: None,
            ordered_from: None,
        }
    }
}

/// What a runner's code returns: its answer, later.
pub type Running<'a> = Pin<Box<dyn Future<Output = Result<Answer, RunnerError>> + Send + 'a>>;

/// A runner's code: the master's configuration and the bound arguments.
pub type Run = for<'a> fn(&'a MasterConfig, Params) -> Running<'a>;

/// One runner function.
pub struct Runner {
    /// Its name in its module (`list_jobs`).
    pub name: &'static str,
    /// Its parameters, as Salt's runner declares them.
    pub sig: Signature,
    /// What it does (`brine-run doc.runner`-style help).
    pub doc: &'static str,
    pub run: Run,
}

/// A runner module: its name and functions.
pub struct RunnerModule {
    pub name: &'static str,
    pub functions: &'static [Runner],
}

pub(super) fn job_cache(config: &MasterConfig) -> Result<JobCache, RunnerError> {
    match &config.job_cache {
        Backend::Sqlite(db) if !db.exists() => Err(RunnerError::NoJobCache(db.clone())),
        Backend::Sqlite(db) => Ok(JobCache::open_existing(db)?),
        Backend::Postgres(pg) => Ok(JobCache::open_postgres(pg)?),
    }
}

pub(super) fn strings(v: Vec<String>) -> Value {
    Value::List(v.into_iter().map(Value::Str).collect())
}

/// A number of seconds given on the command line.
pub(super) fn seconds(v: &Value) -> Option<u64> {
    match v {
        Value::Int(i) => u64::try_from(*i).ok(),
        Value::Float(f) if *f >= 0.0 => Some(*f as u64),
        Value::Str(s) => s.trim().parse().ok(),
        _ => None,
    }
}
