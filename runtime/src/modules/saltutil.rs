//! Salt's `saltutil` functions about the minion's jobs: which run
//! (`running`, `find_job`) and stopping one (`kill_job`, `term_job`,
//! `signal_job`). They read the daemon's table of running jobs
//! ([`brine_host::jobs`]); `saltutil.refresh_pillar` is the daemon's own.

use super::function::{sig, CallError, Function, Return};
use super::params::Params;
use crate::context::Minion;
use brine_core::{Map, Value};

/// `SIGKILL` and `SIGTERM`, as `kill_job` and `term_job` send them.
const SIGKILL: i32 = 9;
const SIGTERM: i32 = 15;

pub(super) const FUNCTIONS: &[Function] = &[
    Function::minion(
        "find_job",
        sig!(jid),
        "The data of the running job JID (fun, arg, jid, pid, tgt, tgt_type, user, ret), \
or an empty dict when it is not running; the master asks this of minions that are late \
to return.\n\n    brine '*' saltutil.find_job 20240102030405123456",
        find_job,
    ),
    Function::minion(
        "kill_job",
        sig!(jid),
        "Stop the running job JID as SIGKILL would: it returns nothing. Answers \
'Signal 9 sent to job JID at pid PID', or an empty string when no such job runs.\n\n    \
brine '*' saltutil.kill_job 20240102030405123456",
        |m, p| signal_named(m, p, SIGKILL),
    ),
    Function::minion(
        "running",
        sig!(),
        "The jobs this minion is running, other than this call: a list of their data \
(fun, arg, jid, pid, tgt, tgt_type, user, ret).\n\n    brine '*' saltutil.running",
        running,
    ),
    Function::minion(
        "signal_job",
        sig!(jid, sig),
        "Send signal SIG (a number) to the running job JID. Jobs are tasks of the minion, \
not processes: a signal that ends a process cancels the job (it returns nothing); \
0, SIGCHLD, SIGCONT, SIGSTOP, SIGTSTP, SIGTTIN, SIGTTOU, SIGURG and SIGWINCH leave it \
running.\n\n    brine '*' saltutil.signal_job 20240102030405123456 15",
        signal_job,
    ),
    Function::minion(
        "term_job",
        sig!(jid),
        "Stop the running job JID as SIGTERM would: it returns nothing. Answers \
'Signal 15 sent to job JID at pid PID', or an empty string when no such job runs.\n\n    \
brine '*' saltutil.term_job 20240102030405123456",
        |m, p| signal_named(m, p, SIGTERM),
    ),
];

fn running(m: &mut Minion, p: Params) -> Result<Return, CallError> {
    p.finish()?;
    Ok(Return::from(Value::List(
        m.jobs.others().into_iter().map(Value::Map).collect(),
    )))
}

/// The job `jid` among the others running, if it is there.
fn job_data(m: &Minion, jid: &str) -> Option<Map> {
    m.jobs
        .others()
        .into_iter()
        .find(|j| j.get("jid").map(Value::to_python_str).as_deref() == Some(jid))
}

fn find_job(m: &mut Minion, mut p: Params) -> Result<Return, CallError> {
    let jid = p.require("jid")?.to_python_str();
    p.finish()?;
    Ok(Return::from(Value::Map(
        job_data(m, &jid).unwrap_or_default(),
    )))
}

fn signal_job(m: &mut Minion, mut p: Params) -> Result<Return, CallError> {
    let jid = p.require("jid")?.to_python_str();
    let sig = p.require("sig")?;
    p.finish()?;
    let sig = match sig {
        Value::Int(i) => i32::try_from(i).ok(),
        Value::Bool(b) => Some(i32::from(b)),
        _ => None,
    }
    .filter(|s| (0..=64).contains(s))
    .ok_or_else(|| {
        CallError::InvalidArguments(format!(
            "signal_job(): sig must be a signal number, not {}",
            sig.to_python_repr()
        ))
    })?;
    signal(m, &jid, sig)
}

fn signal_named(m: &mut Minion, mut p: Params, sig: i32) -> Result<Return, CallError> {
    let jid = p.require("jid")?.to_python_str();
    p.finish()?;
    signal(m, &jid, sig)
}

/// Salt's answer to a signal: which job at which pid, or an empty string
/// when no such job runs.
fn signal(m: &Minion, jid: &str, sig: i32) -> Result<Return, CallError> {
    let Some(data) = job_data(m, jid) else {
        return Ok(Return::from(Value::Str(String::new())));
    };
    let pid = data
        .get("pid")
        .map(Value::to_python_str)
        .unwrap_or_default();
    if !m.jobs.signal(jid, sig) {
        // It ended between the look and the signal, as a Salt job whose
        // process is gone by then.
        return Ok(Return::from(Value::Str(format!(
            "Job {jid} was not running and job data has been cleaned up"
        ))));
    }
    Ok(Return::from(Value::Str(format!(
        "Signal {sig} sent to job {jid} at pid {pid}"
    ))))
}
