//! The `salt` state module (Salt's `salt/states/saltmod.py`), the steps of
//! an orchestration: `salt.state` runs states on minions, `salt.function`
//! an execution function, `salt.runner` / `salt.parallel_runners` runners
//! and `salt.wheel` a wheel function, each through the master the
//! orchestration runs on (`saltutil.cmd`, `saltutil.runner`,
//! `saltutil.wheel`, reached through the run's
//! [`crate::MinionCalls`]). A step's verdict is Salt's: a minion whose
//! return failed, or that did not answer while expected, fails it.

use crate::outcome::check_result;
use crate::{StateCall, StateFunction, StateModule, StateReturn};
use brine_compile::minion_data::FunctionError;
use brine_core::args::CallArgs;
use brine_core::sig;
use brine_core::{Map, Value};

/// The `salt` state module.
pub static MODULE: StateModule = StateModule {
    name: "salt",
    doc: "Orchestration steps run from the master: states, execution functions, \
runners and wheel functions on the minions a target selects.",
    functions: &[
        StateFunction::new(
            "function",
            sig!(
                name,
                tgt,
                ssh = false,
                tgt_type = "glob",
                ret = "",
                ret_config = null,
                ret_kwargs = null,
                expect_minions = false,
                fail_minions = null,
                fail_function = null,
                arg = null,
                kwarg = null,
                timeout = null,
                batch = null,
                subset = null,
                failhard = null,
                **kwargs
            ),
            "Run the execution function NAME with ARG (a list) and KWARG (a dict) on \
the minions TGT (TGT_TYPE) selects. Fails for a minion whose retcode is not 0, whose \
return is False, or for which FAIL_FUNCTION (a function of the master minion given \
the return) is false — unless FAIL_MINIONS names it; EXPECT_MINIONS fails minions \
that did not answer.",
            function,
        ),
        StateFunction::new(
            "parallel_runners",
            sig!(name, runners, **kwargs),
            "Run the runners RUNNERS ({id: [{name: fun}, {kwarg: {...}}]}, or one \
runner's name) at once, each in a thread of its own; fails when one fails.",
            parallel_runners,
        ),
        StateFunction::new(
            "runner",
            sig!(name, **kwargs),
            "Run the runner NAME on the master with the other keyword arguments.",
            runner,
        ),
        StateFunction::new(
            "state",
            sig!(
                name,
                tgt,
                ssh = false,
                tgt_type = "glob",
                ret = "",
                ret_config = null,
                ret_kwargs = null,
                highstate = null,
                sls = null,
                top = null,
                saltenv = null,
                test = null,
                pillar = null,
                pillarenv = null,
                expect_minions = true,
                exclude = null,
                fail_minions = null,
                allow_fail = 0,
                concurrent = false,
                timeout = null,
                batch = null,
                queue = false,
                subset = null,
                orchestration_jid = null,
                failhard = null,
                **kwargs
            ),
            "Run state.sls SLS (a name or a list), state.highstate (HIGHSTATE) or \
state.top TOP on the minions TGT (TGT_TYPE) selects, with TEST, PILLAR, PILLARENV, \
SALTENV, EXCLUDE, QUEUE and CONCURRENT passed on; BATCH runs it a batch at a time. \
Fails when more minions than ALLOW_FAIL (those in FAIL_MINIONS aside) failed, or \
did not answer (EXPECT_MINIONS, by default).",
            state,
        ),
        StateFunction::new(
            "wheel",
            sig!(name, **kwargs),
            "Run the wheel function NAME on the master with the other keyword \
arguments.",
            wheel,
        ),
    ],
};

fn arg_bool(call: &StateCall, key: &str) -> bool {
    call.arg(key).is_some_and(Value::is_truthy)
}

fn given(call: &StateCall, key: &str) -> Option<Value> {
    call.arg(key).filter(|v| !matches!(v, Value::Null)).cloned()
}

fn failed(name: &str, comment: impl Into<String>) -> StateReturn {
    let mut ret = StateReturn::new(name);
    ret.result = Some(false);
    ret.comment = comment.into();
    ret
}

/// `fail_minions` as Salt reads it: a list, a comma list, or ignored
/// with a warning.
fn fail_minions(call: &StateCall, ret: &mut StateReturn) -> Vec<String> {
    match call.arg("fail_minions") {
        None | Some(Value::Null) => Vec::new(),
        Some(v @ (Value::Str(_) | Value::List(_))) => brine_core::args::split_input(v),
        Some(_) => {
            warn(
                ret,
                "'fail_minions' needs to be a list or a comma separated string. Ignored.",
            );
            Vec::new()
        }
    }
}

fn warn(ret: &mut StateReturn, text: &str) {
    match ret.extra.get_mut("warnings") {
        Some(Value::List(l)) => l.push(Value::from(text)),
        _ => {
            ret.extra
                .insert("warnings".into(), Value::List(vec![Value::from(text)]));
        }
    }
}

/// The keyword arguments of the `saltutil.cmd` call a step makes (Salt's
/// `cmd_kw`), in Salt's order: they go to the master and into the
/// `salt/run/<jid>/args` event.
struct CmdKw(Map);

impl CmdKw {
    fn new(arg: Vec<Value>, kwarg: Map, call: &StateCall) -> CmdKw {
        let mut m = Map::default();
        m.insert("arg".into(), Value::List(arg));
        m.insert("kwarg".into(), Value::Map(kwarg));
        m.insert(
            "ret".into(),
            call.arg("ret").cloned().unwrap_or_else(|| Value::from("")),
        );
        m.insert(
            "timeout".into(),
            call.arg("timeout").cloned().unwrap_or(Value::Null),
        );
        CmdKw(m)
    }

    fn set(&mut self, key: &str, v: Value) {
        self.0.insert(key.into(), v);
    }

    fn kwarg(&mut self) -> &mut Map {
        match self.0.get_mut("kwarg") {
            Some(Value::Map(m)) => m,
            _ => unreachable!("CmdKw::new puts a kwarg mapping"),
        }
    }
}

/// Publish through the master (`saltutil.cmd`): the returns by minion.
fn saltutil_cmd(
    call: &StateCall,
    tgt: &Value,
    fun: &str,
    kw: &CmdKw,
) -> Result<Map, FunctionError> {
    let mut kwargs = kw.0.clone();
    kwargs.insert("tgt".into(), tgt.clone());
    kwargs.insert("fun".into(), Value::from(fun));
    let out = call.ctx.minion.call(
        "saltutil.cmd",
        CallArgs {
            args: Vec::new(),
            kwargs,
        },
    )?;
    Ok(match out {
        Value::Map(m) => m,
        _ => Map::default(),
    })
}

/// The job id of the first minion's return (Salt's `__jid__`).
fn first_jid(cmd_ret: &Map, ret: &mut StateReturn) {
    if let Some(jid) = cmd_ret
        .values()
        .next()
        .and_then(|m| m.get("jid"))
        .filter(|j| !matches!(j, Value::Null))
    {
        ret.extra.insert("__jid__".into(), jid.clone());
    }
}

fn joined(ids: &[String]) -> String {
    ids.join(", ")
}

fn state(call: &StateCall) -> StateReturn {
    let name = call.name();
    let mut ret = StateReturn::new(name);
    let allow_fail = match call.arg("allow_fail").cloned().unwrap_or(Value::Int(0)) {
        Value::Int(i) => i,
        Value::Bool(b) => i64::from(b),
        Value::Str(s) => match s.trim().parse() {
            Ok(i) => i,
            Err(_) => {
                return failed(
                    name,
                    "Passed invalid value for 'allow_fail', must be an int",
                )
            }
        },
        _ => {
            return failed(
                name,
                "Passed invalid value for 'allow_fail', must be an int",
            )
        }
    };
    let tgt = call.arg("tgt").cloned().unwrap_or(Value::Null);
    let mut kw = CmdKw::new(Vec::new(), Map::default(), call);
    for key in ["ret_config", "ret_kwargs"] {
        if let Some(v) = given(call, key).filter(Value::is_truthy) {
            kw.set(key, v);
        }
    }
    let tgt_type = call
        .arg("tgt_type")
        .cloned()
        .unwrap_or_else(|| Value::from("glob"));
    kw.set("tgt_type", tgt_type);
    kw.set("ssh", Value::Bool(arg_bool(call, "ssh")));
    let expect_minions = call.arg("expect_minions").is_none_or(Value::is_truthy);
    kw.set(
        "expect_minions",
        call.arg("expect_minions")
            .cloned()
            .unwrap_or(Value::Bool(true)),
    );
    let fun = if arg_bool(call, "highstate") {
        "state.highstate"
    } else if let Some(top) = given(call, "top").filter(Value::is_truthy) {
        if let Some(Value::List(a)) = kw.0.get_mut("arg") {
            a.push(top);
        }
        "state.top"
    } else if let Some(sls) = given(call, "sls").filter(Value::is_truthy) {
        let sls = match sls {
            Value::List(l) => Value::Str(
                l.iter()
                    .map(Value::to_python_str)
                    .collect::<Vec<_>>()
                    .join(","),
            ),
            other => other,
        };
        if let Some(Value::List(a)) = kw.0.get_mut("arg") {
            a.push(sls);
        }
        "state.sls"
    } else {
        return failed(name, "No highstate or sls specified, no execution made");
    };
    // A run in test mode passes it on unless the step says otherwise.
    let test = given(call, "test").or_else(|| call.test.then_some(Value::Bool(true)));
    if let Some(t) = &test {
        kw.kwarg().insert("test".into(), t.clone());
    }
    if let Some(p) = given(call, "pillar").filter(Value::is_truthy) {
        kw.kwarg().insert("pillar".into(), p);
    }
    for key in ["pillarenv", "saltenv", "exclude"] {
        if let Some(v) = given(call, key) {
            kw.kwarg().insert(key.into(), v);
        }
    }
    let queue = call.arg("queue").cloned().unwrap_or(Value::Bool(false));
    kw.kwarg().insert("queue".into(), queue);
    match call
        .arg("concurrent")
        .cloned()
        .unwrap_or(Value::Bool(false))
    {
        Value::Bool(b) => {
            kw.kwarg().insert("concurrent".into(), Value::Bool(b));
        }
        _ => return failed(name, "Must pass in boolean for value of 'concurrent'"),
    }
    if let Some(b) = given(call, "batch") {
        kw.set("batch", Value::Str(b.to_python_str()));
    }
    if let Some(s) = given(call, "subset") {
        kw.set("subset", s);
    }
    if matches!(call.arg("failhard"), Some(Value::Bool(true)))
        || call.ctx.opts.get("failhard").is_some_and(Value::is_truthy)
    {
        kw.set("failhard", Value::Bool(true));
    }
    fire_args(call, "state", &tgt, name, &kw);
    let cmd_ret = match saltutil_cmd(call, &tgt, fun, &kw) {
        Ok(r) => r,
        Err(e) => return failed(name, e.to_string()),
    };
    first_jid(&cmd_ret, &mut ret);
    let fail_minions = fail_minions(call, &mut ret);
    if cmd_ret.is_empty() && expect_minions {
        ret.result = Some(false);
        ret.comment = "No minions returned".into();
        return ret;
    }
    let mut changes = Map::default();
    let mut fail: Vec<String> = Vec::new();
    let mut no_change: Vec<String> = Vec::new();
    for (minion, mdata) in &cmd_ret {
        let mdata = mdata.as_map();
        let m_ret = mdata
            .and_then(|m| m.get("ret").or_else(|| m.get("return")))
            .cloned();
        let m_state = match (mdata, &m_ret) {
            (Some(m), _) if m.get("failed").is_some_and(Value::is_truthy) => false,
            (_, None) => false,
            (_, Some(r)) => check_result(r, true),
        };
        let m_ret = m_ret.unwrap_or(Value::Bool(false));
        if !m_state {
            if !fail_minions.contains(minion) && !fail.contains(minion) {
                fail.push(minion.clone());
            }
            changes.insert(minion.clone(), m_ret);
            continue;
        }
        let changed = match &m_ret {
            Value::Map(states) => states.values().any(|s| {
                s.as_map()
                    .and_then(|s| s.get("changes"))
                    .is_some_and(Value::is_truthy)
            }),
            _ => false,
        };
        if changed {
            changes.insert(minion.clone(), m_ret);
        } else {
            no_change.push(minion.clone());
        }
    }
    let ids: Vec<String> = changes.keys().cloned().collect();
    if !changes.is_empty() {
        let mut c = Map::default();
        c.insert("out".into(), Value::from("highstate"));
        c.insert("ret".into(), Value::Map(changes));
        ret.changes = c;
    }
    if (fail.len() as i64) > allow_fail {
        ret.result = Some(false);
        ret.comment = format!("Run failed on minions: {}", joined(&fail));
    } else {
        ret.comment = "States ran successfully.".into();
        if !ids.is_empty() {
            ret.comment
                .push_str(&format!(" Updating {}.", joined(&ids)));
        }
        if !no_change.is_empty() {
            ret.comment
                .push_str(&format!(" No changes made to {}.", joined(&no_change)));
        }
    }
    let testing = test.as_ref().is_some_and(Value::is_truthy) || call.test;
    if testing && !ret.changes.is_empty() && ret.result == Some(true) {
        ret.result = None;
    }
    ret
}

/// Salt's `_fire_args`: what a step is about to publish, on the bus as
/// an event of the orchestration's job.
fn fire_args(call: &StateCall, kind: &str, tgt: &Value, name: &str, kw: &CmdKw) {
    let mut data = Map::default();
    data.insert("type".into(), Value::from(kind));
    data.insert("tgt".into(), tgt.clone());
    data.insert("name".into(), Value::from(name));
    data.insert("args".into(), Value::Map(kw.0.clone()));
    call.ctx.minion.jid_event("args", Value::Map(data));
}

fn function(call: &StateCall) -> StateReturn {
    let name = call.name();
    let mut ret = StateReturn::new(name);
    let kwarg = match call.arg("kwarg") {
        Some(Value::Map(m)) => m.clone(),
        _ => Map::default(),
    };
    let arg = match call.arg("arg") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Str(s)) => {
            warn(&mut ret, "Please specify 'arg' as a list of arguments.");
            s.split_whitespace().map(Value::from).collect()
        }
        Some(Value::List(l)) => l.clone(),
        Some(other) if !other.is_truthy() => Vec::new(),
        Some(other) => vec![other.clone()],
    };
    let tgt = call.arg("tgt").cloned().unwrap_or(Value::Null);
    let mut kw = CmdKw::new(arg, kwarg, call);
    if let Some(b) = given(call, "batch") {
        kw.set("batch", Value::Str(b.to_python_str()));
    }
    if let Some(s) = given(call, "subset") {
        kw.set("subset", s);
    }
    kw.set(
        "tgt_type",
        call.arg("tgt_type")
            .cloned()
            .unwrap_or_else(|| Value::from("glob")),
    );
    kw.set("ssh", Value::Bool(arg_bool(call, "ssh")));
    kw.set(
        "expect_minions",
        call.arg("expect_minions")
            .cloned()
            .unwrap_or(Value::Bool(false)),
    );
    kw.set("_cmd_meta", Value::Bool(true));
    if matches!(call.arg("failhard"), Some(Value::Bool(true)))
        || call.ctx.opts.get("failhard").is_some_and(Value::is_truthy)
    {
        kw.set("failhard", Value::Bool(true));
    }
    for key in ["ret_config", "ret_kwargs"] {
        if let Some(v) = given(call, key).filter(Value::is_truthy) {
            kw.set(key, v);
        }
    }
    if call.test {
        ret.result = None;
        ret.comment = format!(
            "Function {name} would be executed on target {}",
            tgt.to_python_str()
        );
        return ret;
    }
    fire_args(call, "function", &tgt, name, &kw);
    let cmd_ret = match saltutil_cmd(call, &tgt, name, &kw) {
        Ok(r) => r,
        Err(e) => return failed(name, e.to_string()),
    };
    first_jid(&cmd_ret, &mut ret);
    let fail_minions = fail_minions(call, &mut ret);
    let fail_function = given(call, "fail_function")
        .filter(Value::is_truthy)
        .map(|f| f.to_python_str());
    let mut changes = Map::default();
    let mut fail: Vec<String> = Vec::new();
    for (minion, mdata) in &cmd_ret {
        let mdata = mdata.as_map();
        let get = |k: &str| mdata.and_then(|m| m.get(k));
        if get("retcode").is_some_and(Value::is_truthy) {
            ret.result = Some(false);
            if !fail.contains(minion) {
                fail.push(minion.clone());
            }
        }
        let (m_ret, m_func) = if get("failed").is_some_and(Value::is_truthy) {
            (Value::Bool(false), false)
        } else {
            let m_ret = get("ret")
                .or_else(|| get("return"))
                .cloned()
                .unwrap_or(Value::Null);
            let ok = match &fail_function {
                None => true,
                Some(f) => {
                    let verdict = call.ctx.minion.call(
                        f,
                        CallArgs {
                            args: vec![m_ret.clone()],
                            kwargs: Map::default(),
                        },
                    );
                    match verdict {
                        Ok(v) => v.is_truthy(),
                        // Salt's `__salt__[fail_function](m_ret)` raises.
                        Err(e) => return failed(name, crate::raised(python_exception(&e))),
                    }
                }
            };
            let ok = ok && m_ret != Value::Bool(false);
            (m_ret, ok)
        };
        if !m_func && !fail_minions.contains(minion) && !fail.contains(minion) {
            fail.push(minion.clone());
        }
        changes.insert(minion.clone(), m_ret);
    }
    if cmd_ret.is_empty() {
        ret.result = Some(false);
        ret.comment = "No minions responded".into();
        return ret;
    }
    let ran_on: Vec<String> = changes.keys().cloned().collect();
    if !changes.is_empty() {
        let mut c = Map::default();
        c.insert("ret".into(), Value::Map(changes));
        ret.changes = c;
    }
    if !fail.is_empty() {
        ret.result = Some(false);
        ret.comment = format!(
            "Running function {name} failed on minions: {}",
            joined(&fail)
        );
    } else {
        ret.comment = "Function ran successfully.".into();
    }
    if !ran_on.is_empty() {
        ret.comment
            .push_str(&format!(" Function {name} ran on {}.", joined(&ran_on)));
    }
    ret
}

/// A function call's failure as the Python exception Salt's state would
/// raise: a missing function is `__salt__`'s KeyError, arguments that do
/// not bind a TypeError.
fn python_exception(e: &FunctionError) -> String {
    match e {
        FunctionError::NotAvailable(f) => format!("KeyError: '{f}'"),
        FunctionError::InvalidArguments(m) => format!("TypeError: {m}"),
        other => other.to_string(),
    }
}

/// The step's keyword arguments less the state system's own keywords:
/// what a runner or wheel function is given.
fn passed_kwargs(call: &StateCall) -> Map {
    call.low
        .iter()
        .filter(|(k, _)| {
            k.as_str() != "name"
                && !brine_compile::state::vocabulary::is_internal_keyword(k)
                && !k.starts_with("__")
        })
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect()
}

/// What `saltutil.runner` / `saltutil.wheel` answered with their full
/// return: the return itself, whether it succeeded, its jid.
fn full_return(out: &Value) -> (Value, bool, Option<Value>) {
    let m = out.as_map();
    let inner = m
        .and_then(|m| m.get("return"))
        .cloned()
        .unwrap_or(Value::Null);
    let errored = inner.as_map().is_some_and(|r| r.contains_key("Error"));
    let success = !errored
        && m.and_then(|m| m.get("success"))
            .is_none_or(Value::is_truthy);
    let jid = m.and_then(|m| m.get("jid")).cloned();
    (inner, success, jid)
}

fn runner(call: &StateCall) -> StateReturn {
    master_side(call, "Runner", "saltutil.runner")
}

fn wheel(call: &StateCall) -> StateReturn {
    master_side(call, "Wheel", "saltutil.wheel")
}

/// A `salt.runner` or `salt.wheel` step: in test mode what would run,
/// else the function run on the master through `through`
/// (`saltutil.runner`, `saltutil.wheel`) with the step's other keywords.
fn master_side(call: &StateCall, kind: &str, through: &str) -> StateReturn {
    let name = call.name();
    if call.test {
        let mut ret = StateReturn::new(name);
        ret.result = None;
        ret.comment = format!("{kind} function '{name}' would be executed.");
        return ret;
    }
    let mut kwargs = passed_kwargs(call);
    kwargs.insert("name".into(), Value::from(name));
    // saltutil.wheel always gives the full return; saltutil.runner when
    // asked, as Salt's salt.runner asks.
    if kind == "Runner" {
        kwargs.insert("full_return".into(), Value::Bool(true));
    }
    let args = CallArgs {
        args: Vec::new(),
        kwargs,
    };
    match call.ctx.minion.call(through, args) {
        Ok(out) => master_side_return(name, kind, &out),
        Err(e) => failed(name, crate::raised(e)),
    }
}

/// A runner's or wheel function's step: its return under `changes`.
fn master_side_return(name: &str, kind: &str, out: &Value) -> StateReturn {
    let (inner, success, jid) = full_return(out);
    let mut ret = StateReturn::new(name);
    let mut c = Map::default();
    c.insert("return".into(), inner);
    ret.changes = c;
    ret.result = Some(success);
    ret.comment = format!(
        "{kind} function '{name}' {}.",
        if success { "executed" } else { "failed" }
    );
    if let Some(j) = jid {
        ret.extra.insert("__jid__".into(), j);
    }
    ret
}

/// A `runners` entry's `[{name: ...}, {kwarg: {...}}]` as one mapping.
fn repack(v: &Value) -> Map {
    let mut out = Map::default();
    match v {
        Value::List(items) => {
            for item in items {
                if let Value::Map(m) = item {
                    out.extend(m.iter().map(|(k, v)| (k.clone(), v.clone())));
                }
            }
        }
        Value::Map(m) => out.extend(m.iter().map(|(k, v)| (k.clone(), v.clone()))),
        _ => {}
    }
    out
}

/// What the changes of an orchestration's data hold (Salt's
/// `extract_changes`): a state's changes, or a `salt.state` step's
/// minion returns.
fn extract_changes(v: &Value) -> Value {
    let Value::Map(m) = v else {
        return Value::Map(Map::default());
    };
    if let Some(c) = m.get("changes") {
        if let Value::Map(cm) = c {
            if cm.get("out").and_then(Value::as_str) == Some("highstate") {
                if let Some(r) = cm.get("ret") {
                    return r.clone();
                }
            }
        }
        return c.clone();
    }
    let mut found = Map::default();
    for (k, val) in m {
        let c = extract_changes(val);
        if c.is_truthy() {
            found.insert(k.clone(), c);
        }
    }
    Value::Map(found)
}

fn parallel_runners(call: &StateCall) -> StateReturn {
    let name = call.name();
    let runners: Vec<(String, Map)> = match call.arg("runners") {
        Some(Value::Str(s)) => {
            let mut cfg = Map::default();
            cfg.insert("name".into(), Value::from(name));
            vec![(s.clone(), cfg)]
        }
        Some(Value::Map(m)) => m
            .iter()
            .map(|(id, cfg)| {
                let mut cfg = match cfg {
                    Value::Null => Map::default(),
                    other => repack(other),
                };
                if !cfg.contains_key("name") {
                    cfg.insert("name".into(), Value::from(id.as_str()));
                }
                (id.clone(), cfg)
            })
            .collect(),
        _ => return failed(name, "The runners parameter must be a string or dict."),
    };
    // Each runner in a thread of its own, as Salt's _parallel_map.
    let outputs: Vec<Result<Value, FunctionError>> = std::thread::scope(|s| {
        let handles: Vec<_> = runners
            .iter()
            .map(|(_, cfg)| {
                s.spawn(move || {
                    let mut kwargs = match cfg.get("kwarg") {
                        Some(Value::Map(k)) => k.clone(),
                        _ => Map::default(),
                    };
                    kwargs.insert(
                        "name".into(),
                        cfg.get("name").cloned().unwrap_or(Value::Null),
                    );
                    kwargs.insert("full_return".into(), Value::Bool(true));
                    call.ctx.minion.call(
                        "saltutil.runner",
                        CallArgs {
                            args: Vec::new(),
                            kwargs,
                        },
                    )
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join().unwrap_or_else(|_| {
                    Err(FunctionError::Failed("the runner's thread panicked".into()))
                })
            })
            .collect()
    });
    let mut outs: Vec<(String, Value)> = Vec::new();
    for ((id, _), out) in runners.into_iter().zip(outputs) {
        match out {
            Ok(o) => outs.push((id, full_return(&o).0)),
            Err(e) => {
                let mut ret = failed(name, format!("One of the runners raised an exception: {e}"));
                ret.extra.insert("success".into(), Value::Bool(false));
                return ret;
            }
        }
    }
    let highstate = outs.iter().all(|(_, o)| {
        o.get("outputter").and_then(Value::as_str) == Some("highstate")
            && o.as_map().is_some_and(|m| m.contains_key("data"))
    });
    let mut ret = StateReturn::new(name);
    let mut changes = Map::default();
    let failed_ids: Vec<String>;
    if highstate {
        // Salt's code reads the retcode inside `data`, where the
        // orchestrate runner no longer puts it (its 3007.8 never gets this
        // far: saltstack/salt#66022); an orchestration's own retcode is
        // read too, so a failed one fails the step.
        let code = |v: Option<&Value>| !matches!(v, None | Some(Value::Int(0)));
        failed_ids = outs
            .iter()
            .filter(|(_, o)| {
                code(o.get("data").and_then(|d| d.get("retcode"))) || code(o.get("retcode"))
            })
            .map(|(id, _)| id.clone())
            .collect();
        ret.comment = if failed_ids.is_empty() {
            "All runner functions executed successfully.".into()
        } else {
            failed_ids
                .iter()
                .map(|id| {
                    let out = outs
                        .iter()
                        .find(|(i, _)| i == id)
                        .map(|(_, o)| o.clone())
                        .unwrap_or_default();
                    format!(
                        "Runner {id} failed with return value:\n{}",
                        brine_core::output::render_data(
                            "nested",
                            &out,
                            &brine_core::output::OutputOptions {
                                nested_indent: 2,
                                ..Default::default()
                            }
                        )
                        .unwrap_or_default()
                    )
                })
                .collect::<Vec<_>>()
                .join("\n")
        };
        for (id, o) in &outs {
            let c = extract_changes(o.get("data").unwrap_or(&Value::Null));
            if c.is_truthy() {
                changes.insert(id.clone(), c);
            }
        }
    } else {
        failed_ids = outs
            .iter()
            .filter(|(_, o)| !matches!(o.get("exit_code"), None | Some(Value::Int(0))))
            .map(|(id, _)| id.clone())
            .collect();
        ret.comment = match failed_ids.len() {
            0 => "All runner functions executed successfully.".into(),
            1 => format!("Runner {} failed.", failed_ids[0]),
            _ => format!("Runners {} failed.", failed_ids.join(", ")),
        };
        let mut r = Map::default();
        for (id, o) in outs {
            r.insert(id, o);
        }
        changes.insert("ret".into(), Value::Map(r));
    }
    ret.result = Some(failed_ids.is_empty());
    ret.changes = changes;
    ret
}
