//! A runner run as Salt's `RunnerClient` runs one: a job of its own, its
//! `salt/run/<jid>/new` and `.../ret` on the bus, and its return kept in
//! the job cache under the master's id, so `jobs.list_jobs` lists it and
//! `jobs.lookup_jid` shows it (as `runner.<fun>`, target the master's id,
//! target type `list`, no arguments: what Salt 3007.8 stores).

use super::runner::{Answer, RunnerError};
use crate::daemon::events::announce::Announce;
use crate::daemon::events::tags::MasterSide as Side;
use crate::daemon::jobs::Job;
use crate::daemon::MasterConfig;
use brine_compile::minion_data::FunctionError;
use brine_core::args::CallArgs;
use brine_core::output::stream::KeyOrder;
use brine_core::{Map, Value};
use brine_protocol::messages::{JobReturn, PackedValue};

/// How an orchestration's steps run runners (`salt.runner`,
/// `salt.parallel_runners`; installed for this process by [`run`]): each
/// as a job of its own, as Salt's runner client runs them, answered with
/// its `ret` event's data; a runner brine lacks is Salt's KeyError.
fn run_step(
    config: &MasterConfig,
    name: &str,
    user: &str,
    call: CallArgs,
) -> Result<Value, FunctionError> {
    {
        if super::registry::find(name).is_none() {
            return Err(FunctionError::Raised(format!("KeyError: '{name}'")));
        }
        let announce = Announce::new(&config.sock_dir, Side::Runner, name, user, &call);
        let failed = |e: String| FunctionError::Failed(e);
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| failed(format!("cannot start the runner: {e}")))?;
        let answer = runtime
            .block_on(run(config, &announce, name, call))
            .map_err(|e| failed(e.to_string()))?;
        let (data, success) = match answer {
            Answer::Data { data, .. } => {
                let ok = succeeded(&data);
                (data, ok)
            }
            Answer::Returns { mut returns, .. } => {
                let mut m = Map::default();
                returns
                    .for_each(KeyOrder::AsGiven, &mut |k, v| {
                        m.insert(k.to_string(), v);
                        Ok(())
                    })
                    .map_err(|e| failed(e.to_string()))?;
                (Value::Map(m), true)
            }
        };
        Ok(Value::Map(announce.ret_data(data, success).1))
    }
}

/// Let this process's orchestrations run runners as jobs ([`run_step`]).
pub fn install_steps() {
    crate::orchestrate::calls::install_runners(run_step);
}

/// Salt's runner client hands an orchestration (`state.orchestrate` and
/// its names) its own job's id, `orchestration_jid`, which its events and
/// `fun_args` show.
pub fn hand_jid(fun: &str, call: &mut CallArgs, announce: &mut Announce<'_>) {
    if matches!(fun, "state.orchestrate" | "state.orch" | "state.sls") {
        let jid = Value::Str(announce.jid.clone());
        call.kwargs.insert("orchestration_jid".into(), jid.clone());
        announce.add_kwarg("orchestration_jid", jid);
    }
}

/// Run `fun` with `call` as the job `announce` announces: `new` fired,
/// the runner run, and for an answer given whole its `ret` fired and the
/// job stored. A streamed answer (a job's returns read from the cache) is
/// passed on as it is, announced but not stored: it is already the job
/// cache's.
pub async fn run(
    config: &MasterConfig,
    announce: &Announce<'_>,
    fun: &str,
    call: CallArgs,
) -> Result<Answer, RunnerError> {
    install_steps();
    announce.fire_new();
    let started = now_us();
    let answer = match super::registry::run(config, fun, call).await {
        // Salt's runner client answers a call that does not fit with the
        // runner's usage, as data: the run itself succeeded.
        Err(RunnerError::InvalidArguments(msg)) => Ok(Answer::data(Value::Str(usage(fun, &msg)))),
        // What salt-run refuses before running anything (no such runner,
        // keywords it does not take): a failed run on the bus, and the
        // documentation of the runners named like it, else why.
        Err(e @ (RunnerError::NotAvailable(_) | RunnerError::InvalidKeywords(_))) => {
            announce.fire(announce.ret_data(Value::Str(e.to_string()), false));
            let docs = docs_like(fun);
            let data = if docs.is_empty() {
                Value::Str(e.to_string())
            } else {
                Value::Map(docs)
            };
            return Ok(Answer::Data {
                data,
                outputter: Some("nested".into()),
                progress: None,
                ordered_from: None,
            });
        }
        other => other,
    };
    match &answer {
        Ok(Answer::Data { data, .. }) => {
            let success = succeeded(data);
            let ret = announce.ret_data(data.clone(), success);
            announce.fire(ret.clone());
            store(config, announce, started, ret.1, success);
        }
        Ok(Answer::Returns { .. }) => {}
        Err(e) => {
            let ret = announce.ret_data(Value::Str(e.to_string()), false);
            announce.fire(ret);
        }
    }
    answer
}

/// What Salt answers for arguments that do not fit a runner: why, then
/// the runner's documentation (brine's words).
pub fn usage(fun: &str, why: &str) -> String {
    let doc = super::registry::find(fun).map_or("", |r| r.doc);
    let doc: Vec<String> = doc.lines().map(|l| format!("    {l}")).collect();
    format!(
        "\nPassed invalid arguments: {why}\n\nUsage:\n\n{}\n",
        doc.join("\n")
    )
}

/// Every runner whose name starts with `fun`, with its documentation
/// (Salt's `get_docs("fun*")`).
fn docs_like(fun: &str) -> Map {
    super::registry::names()
        .into_iter()
        .filter(|n| n.starts_with(fun))
        .filter_map(|n| {
            let doc = super::registry::find(&n)?.doc;
            Some((n, Value::from(doc)))
        })
        .collect()
}

/// The runners `-d NAME` documents (Salt's `get_docs`): NAME itself and
/// those of module NAME, or every runner for an empty NAME; a `*` globs.
pub fn docs_of(name: &str) -> Vec<(String, &'static str)> {
    let module = format!("{}.", name.trim_end_matches('.'));
    super::registry::names()
        .into_iter()
        .filter(|n| {
            if name.contains('*') {
                brine_compile::matcher::glob::fnmatch(n, name)
            } else {
                name.is_empty() || n == name || n.starts_with(&module)
            }
        })
        .filter_map(|n| {
            let doc = super::registry::find(&n)?.doc;
            Some((n, doc))
        })
        .collect()
}

/// Whether a runner's answer says it succeeded: an orchestration's (or
/// any runner's) `retcode` when it has one, else yes.
pub fn succeeded(data: &Value) -> bool {
    match data.as_map().and_then(|m| m.get("retcode")) {
        Some(Value::Int(code)) => *code == 0,
        _ => true,
    }
}

/// Keep the run in the job cache: the job, and the `ret` event's data as
/// the master's return. Best effort, as Salt's `store_job` logs and goes
/// on: a master that never ran has no job cache to keep it in.
fn store(config: &MasterConfig, announce: &Announce<'_>, started_us: u64, ret: Map, success: bool) {
    let Ok(cache) = super::runner::job_cache(config) else {
        return;
    };
    let id = master_id(config);
    let job = Job {
        jid: announce.jid.clone(),
        fun: announce.full_fun(),
        arg: Vec::new(),
        kwarg: Map::default(),
        tgt: Value::Str(id.clone()),
        tgt_type: "list".into(),
        user: announce.user().to_string(),
        start_ms: started_us / 1000,
    };
    let packed = match PackedValue::pack(&Value::Map(ret)) {
        Ok(p) => p,
        Err(e) => {
            tracing::warn!("runner job {}: cannot keep its return: {e}", job.jid);
            return;
        }
    };
    let stored = cache
        .add_job(&job, std::slice::from_ref(&id))
        .and_then(|()| {
            cache.add_return(
                &JobReturn {
                    jid: job.jid.clone(),
                    id,
                    fun: job.fun.clone(),
                    fun_args: Vec::new(),
                    ret: packed,
                    retcode: i64::from(!success),
                    success,
                    out: None,
                    schedule: None,
                    called: false,
                    user: None,
                },
                now_us() / 1000,
            )
        });
    if let Err(e) = stored {
        tracing::warn!("runner job {}: not kept in the job cache: {e}", job.jid);
    }
}

fn now_us() -> u64 {
    u64::try_from(brine_host::time::now_micros()).unwrap_or(0)
}

/// The master's own id (`<host>_master`), whom its runner jobs are for.
pub fn master_id(config: &MasterConfig) -> String {
    brine_compile::opts::get_str(&config.opts, "id")
        .unwrap_or("master")
        .to_string()
}
