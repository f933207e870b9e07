//! `brine-run`'s runners (Salt's `salt-run`): `jobs.*` read the master's
//! job cache and ask the minions (`jobs.active`); `manage.*` ping the
//! minions through the master, or read who is connected from the
//! system's TCP table and the minion cache, as Salt's do. Each answers
//! with Salt's data shape; `brine-run` prints it with the outputter.

pub mod jobs;
pub mod manage;

use crate::backend::Backend;
use crate::daemon::client::{Client, ClientError};
use crate::daemon::jobs::{JobCache, JobCacheError};
use crate::daemon::MasterConfig;
use brine_core::args::CallArgs;
use brine_core::{Map, Value};
use std::collections::VecDeque;
use std::path::PathBuf;

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
    #[error("'{0}' is not available")]
    NotAvailable(String),
}

/// A runner's answer, with the outputter it asks for.
pub enum Answer {
    /// Data printed whole.
    Data {
        data: Value,
        outputter: Option<String>,
    },
    /// A job's returns, printed one minion at a time as they are read
    /// (`brine_core::output::stream`).
    Returns {
        returns: jobs::JidReturns,
        outputter: Option<String>,
    },
}

impl Answer {
    fn data(data: Value) -> Answer {
        Answer::Data {
            data,
            outputter: None,
        }
    }
}

/// The runners, by name.
pub const RUNNERS: &[&str] = &[
    "jobs.active",
    "jobs.exit_success",
    "jobs.list_job",
    "jobs.list_jobs",
    "jobs.lookup_jid",
    "jobs.print_job",
    "manage.down",
    "manage.joined",
    "manage.list_not_state",
    "manage.list_state",
    "manage.not_joined",
    "manage.not_present",
    "manage.present",
    "manage.status",
    "manage.up",
];

/// Run `function` with `call`'s arguments against the master of `config`.
pub async fn run(
    config: &MasterConfig,
    function: &str,
    call: CallArgs,
) -> Result<Answer, RunnerError> {
    let Some(name) = RUNNERS.iter().find(|r| **r == function) else {
        return Err(RunnerError::NotAvailable(function.to_string()));
    };
    let short = name.split_once('.').map(|(_, f)| f).unwrap_or(name);
    let mut a = Args::new(short, call);
    match *name {
        "jobs.list_jobs" => {
            a.finish()?;
            jobs::list_jobs(&job_cache(config)?)
        }
        "jobs.lookup_jid" => {
            let jid = a.require("jid")?.to_python_str();
            let _ext_source = a.take("ext_source");
            let returned = a.flag("returned", true);
            let missing = a.flag("missing", false);
            let _display_progress = a.take("display_progress");
            a.finish()?;
            jobs::lookup_jid(job_cache(config)?, &jid, returned, missing)
        }
        "jobs.list_job" | "jobs.print_job" | "jobs.exit_success" => {
            let jid = a.require("jid")?.to_python_str();
            let _ext_source = a.take("ext_source");
            if *name == "jobs.list_job" {
                let _display_progress = a.take("display_progress");
            }
            a.finish()?;
            let cache = job_cache(config)?;
            Ok(Answer::data(match *name {
                "jobs.list_job" => jobs::list_job(&cache, &jid)?,
                "jobs.print_job" => jobs::print_job(&cache, &jid)?,
                _ => jobs::exit_success(&cache, &jid)?,
            }))
        }
        "jobs.active" => {
            let _display_progress = a.take("display_progress");
            a.finish()?;
            let mut client = Client::for_config(config)?;
            let cache = job_cache(config)?;
            jobs::active(&mut client, &cache, config).await
        }
        "manage.status" | "manage.up" | "manage.down" => {
            let removekeys = *name == "manage.down" && a.flag("removekeys", false);
            if *name == "manage.status" {
                let _output = a.take("output");
            }
            let ping = manage::Ping {
                tgt: a.take("tgt").unwrap_or_else(|| Value::from("*")),
                tgt_type: a
                    .take("tgt_type")
                    .map(|v| v.to_python_str())
                    .unwrap_or_else(|| "glob".into()),
                timeout: a.take("timeout").and_then(|v| seconds(&v)),
                gather_job_timeout: a.take("gather_job_timeout").and_then(|v| seconds(&v)),
            };
            a.finish()?;
            let mut client = Client::for_config(config)?;
            let (up, down) = manage::ping(&mut client, config, &ping).await?;
            Ok(Answer::data(match *name {
                "manage.up" => strings(up),
                "manage.down" => {
                    if removekeys {
                        manage::remove_keys(config, &down)?;
                    }
                    strings(down)
                }
                _ => {
                    let mut m = Map::default();
                    m.insert("up".into(), strings(up));
                    m.insert("down".into(), strings(down));
                    Value::Map(m)
                }
            }))
        }
        _ => {
            // The presence runners: list_state and its aliases, and the
            // "not" side.
            let subset = a.take("subset").map(manage::subset);
            let show_ip = a.flag("show_ip", false);
            a.finish()?;
            let not = matches!(
                *name,
                "manage.list_not_state" | "manage.not_present" | "manage.not_joined"
            );
            Ok(Answer::data(if not {
                manage::list_not_state(config, subset.as_deref())?
            } else {
                manage::list_state(config, subset.as_deref(), show_ip)?
            }))
        }
    }
}

fn job_cache(config: &MasterConfig) -> Result<JobCache, RunnerError> {
    match &config.job_cache {
        Backend::Sqlite(db) if !db.exists() => Err(RunnerError::NoJobCache(db.clone())),
        Backend::Sqlite(db) => Ok(JobCache::open_existing(db)?),
        Backend::Postgres(pg) => Ok(JobCache::open_postgres(pg)?),
    }
}

fn strings(v: Vec<String>) -> Value {
    Value::List(v.into_iter().map(Value::Str).collect())
}

/// A number of seconds given on the command line.
fn seconds(v: &Value) -> Option<u64> {
    match v {
        Value::Int(i) => u64::try_from(*i).ok(),
        Value::Float(f) if *f >= 0.0 => Some(*f as u64),
        Value::Str(s) => s.trim().parse().ok(),
        _ => None,
    }
}

/// A runner's arguments bound as Python binds them: by keyword, else by
/// position; leftovers are Python's errors.
struct Args {
    fun: &'static str,
    positional: VecDeque<Value>,
    kwargs: Map,
}

impl Args {
    fn new(fun: &'static str, call: CallArgs) -> Args {
        let mut kwargs = call.kwargs;
        kwargs.retain(|k, _| !k.starts_with("__"));
        Args {
            fun,
            positional: call.args.into(),
            kwargs,
        }
    }

    fn take(&mut self, name: &str) -> Option<Value> {
        self.kwargs
            .shift_remove(name)
            .or_else(|| self.positional.pop_front())
    }

    fn require(&mut self, name: &str) -> Result<Value, RunnerError> {
        self.take(name).ok_or_else(|| {
            RunnerError::InvalidArguments(format!(
                "{}() missing 1 required positional argument: '{name}'",
                self.fun
            ))
        })
    }

    fn flag(&mut self, name: &str, default: bool) -> bool {
        self.take(name).map(|v| v.is_truthy()).unwrap_or(default)
    }

    fn finish(self) -> Result<(), RunnerError> {
        if let Some(k) = self.kwargs.keys().next() {
            return Err(RunnerError::InvalidArguments(format!(
                "{}() got an unexpected keyword argument '{k}'",
                self.fun
            )));
        }
        if !self.positional.is_empty() {
            return Err(RunnerError::InvalidArguments(format!(
                "{}() got {} unexpected positional argument(s)",
                self.fun,
                self.positional.len()
            )));
        }
        Ok(())
    }
}
