//! Salt's `saltutil` functions that act on the master a minion runs
//! inside: `cmd` (publish a job and gather its returns), `runner` and
//! `wheel`. Salt's run them through a master configuration found on the
//! minion's host; brine's answer only on the orchestrate runner's master
//! minion, which carries its master ([`crate::context::MasterCalls`]).

use super::function::{sig, CallError, Function, Return};
use super::params::Params;
use crate::context::{CmdRequest, MasterCalls, Minion};
use brine_core::args::CallArgs;
use brine_core::{Map, Value};
use std::sync::Arc;

pub(super) const FUNCTIONS: &[Function] = &[
    Function::minion(
        "cmd",
        sig!(
            tgt,
            fun,
            arg = [],
            timeout = null,
            tgt_type = "glob",
            ret = "",
            kwarg = null,
            ssh = false,
            **kwargs
        ),
        "On the master: publish FUN to the minions TGT (TGT_TYPE) selects with ARG and \
KWARG, and gather their returns as {minion: {ret, out, retcode, jid}}; batch= runs it a \
batch at a time, expect_minions=True reports a minion that did not answer as \
{failed: True}. Orchestration's salt.state and salt.function call it. A minion that is \
not the master's own answers as a Salt minion that cannot reach a master.\n\n    \
brine-run state.orchestrate deploy",
        cmd,
    ),
    Function::minion(
        "runner",
        sig!(
            name,
            arg = null,
            kwarg = null,
            full_return = false,
            saltenv = "base",
            jid = null,
            **kwargs
        ),
        "On the master: run the runner NAME with ARG and KWARG (or the other keyword \
arguments) and answer its return. Orchestration's salt.runner calls it.",
        runner,
    ),
    Function::minion(
        "wheel",
        sig!(name, *args, **kwargs),
        "On the master: run the wheel function NAME with the other arguments and answer \
its return. Orchestration's salt.wheel calls it.",
        wheel,
    ),
];

/// The master this minion runs inside. Elsewhere Salt's minion looks
/// for a master client on its host; a brine minion has none, and answers
/// as a Salt minion that cannot reach one.
fn master(m: &Minion) -> Result<Arc<dyn MasterCalls>, CallError> {
    m.master.0.clone().ok_or_else(|| {
        CallError::Invocation("The salt master could not be contacted. Is master running?".into())
    })
}

fn truthy(v: Option<Value>) -> bool {
    v.is_some_and(|v| v.is_truthy())
}

fn cmd(m: &mut Minion, mut p: Params) -> Result<Return, CallError> {
    let tgt = p.require("tgt")?;
    let fun = p.require_str("fun")?;
    let arg = match p.take("arg") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::List(l)) => l,
        Some(other) => vec![other],
    };
    let timeout = p.take("timeout").and_then(|v| match v {
        Value::Int(i) => u64::try_from(i).ok(),
        Value::Float(f) if f >= 0.0 => Some(f as u64),
        Value::Str(s) => s.trim().parse().ok(),
        _ => None,
    });
    let tgt_type = p
        .take("tgt_type")
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_else(|| "glob".into());
    let _ret = p.take("ret");
    let kwarg = match p.take("kwarg") {
        Some(Value::Map(m)) => m,
        _ => Map::default(),
    };
    if truthy(p.take("ssh")) {
        return Err(CallError::Failed(
            "salt-ssh is not in brine: saltutil.cmd publishes to minions only".into(),
        ));
    }
    let batch = match p.kw("batch") {
        None | Some(Value::Null) => None,
        Some(Value::Bool(false)) => None,
        Some(v) => Some(v.to_python_str()),
    };
    let expect_minions = truthy(p.kw("expect_minions"));
    // What Salt's LocalClient takes besides (ret_config, failhard,
    // subset, _cmd_meta ...) changes nothing brine publishes.
    let _ = p.kwargs_with_pub("saltutil.cmd");
    let req = CmdRequest {
        tgt,
        fun,
        arg,
        kwarg,
        tgt_type,
        timeout,
        batch,
        expect_minions,
    };
    Ok(Return::from(master(m)?.cmd(req)?))
}

fn runner(m: &mut Minion, mut p: Params) -> Result<Return, CallError> {
    let name = p.require_str("name")?;
    let mut call = CallArgs::default();
    match p.take("arg") {
        None | Some(Value::Null) => {}
        Some(Value::List(l)) => call.args = l,
        Some(other) => call.args = vec![other],
    }
    if let Some(Value::Map(kw)) = p.take("kwarg") {
        call.kwargs.extend(kw);
    }
    let full = truthy(p.take("full_return"));
    let _ = p.take("saltenv");
    let _ = p.take("jid");
    // Keyword arguments beside arg/kwarg go to the runner, as Salt's
    // `saltutil.runner` passes them on (its own `__pub_*` left out).
    for (k, v) in p.kwargs_with_pub("saltutil.runner") {
        if !k.starts_with("__") {
            call.kwargs.insert(k, v);
        }
    }
    let out = master(m)?.runner(&name, call)?;
    // The job's data (jid, return, success...) only when asked.
    Ok(Return::from(if full {
        out
    } else {
        out.get("return").cloned().unwrap_or(Value::Null)
    }))
}

fn wheel(m: &mut Minion, mut p: Params) -> Result<Return, CallError> {
    let name = p.require_str("name")?;
    let mut call = CallArgs {
        args: p.rest(),
        ..CallArgs::default()
    };
    for (k, v) in p.kwargs_with_pub("saltutil.wheel") {
        if !k.starts_with("__") {
            call.kwargs.insert(k, v);
        }
    }
    Ok(Return::from(master(m)?.wheel(&name, call)?))
}
