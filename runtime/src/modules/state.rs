//! `state.*`: show_top, show_highstate, show_sls, show_lowstate,
//! show_low_sls (compile side), and the runs (apply, sls, highstate,
//! single, low) once the runtime exists.
//!
//! Return shapes and `__context__['retcode']` as Salt 3007.8's
//! `salt/modules/state.py` gives them: a list of strings when the compile
//! failed (retcode 1, except `show_lowstate`, which never sets one), and
//! `show_highstate` passes its high data through `check_result`, so high
//! data holding `__exclude__` (a list where states are dicts) or nothing at
//! all comes back with retcode 2.

use super::function::{params_of, sig, CallError, Function, Return, Signature};
use super::params::Params;
use crate::context::{FreshPillar, Minion};
use brine_compile::envs::Envs;
use brine_compile::state::{compile, render, StateRequest};
use brine_core::args::{split_input, CallArgs};
use brine_core::{Map, Value};
use brine_states::outcome::check_result;

/// Salt's `EX_STATE_COMPILER_ERROR`.
const EX_STATE_COMPILER_ERROR: i32 = 1;
/// Salt's `EX_STATE_FAILURE`.
const EX_STATE_FAILURE: i32 = 2;

/// The signature several functions here share (Salt's, recorded).
const SHOW_LOW_SLS_SIG: Signature = sig!(mods, test = null, queue = null, **kwargs);

pub(super) const FUNCTIONS: &[Function] = &[
    Function::minion(
        "id_exists",
        sig!(ids, mods, test = null, queue = null, **kwargs),
        "Whether every ID of IDS (comma-separated) is a state ID in the SLS MODS \
(comma-separated; SALTENV and the rest as state.show_low_sls).\n\n    \
brine-call state.id_exists nginx,nginx_conf web",
        id_exists,
    ),
    Function::minion(
        "running",
        sig!(concurrent = false),
        "The state runs going on now, one sentence each (function, pid, start time, \
jid); empty when none (or with CONCURRENT=True).\n\n    brine '*' state.running",
        running,
    ),
    Function::minion(
        "show_state_usage",
        sig!(queue = null, **kwargs),
        "For each environment, which of its SLS the top file gives this minion (used) \
and which it does not (unused), with their counts; or the top file errors.\n\n    \
brine-call state.show_state_usage",
        show_state_usage,
    ),
    Function::minion(
        "show_states",
        sig!(queue = null, **kwargs),
        "The SLS names the highstate would apply, in the order their states run; or \
the compile errors.\n\n    brine-call state.show_states",
        show_states,
    ),
    Function::minion(
        "show_highstate",
        sig!(queue = null, **kwargs),
        "The highstate as high data: the top file's SLS for this minion rendered, \
with extend, exclude and the _in requisites applied; or the compile errors. \
SALTENV, PILLARENV and a PILLAR override as given.\n\n    brine-call state.show_highstate",
        show_highstate,
    ),
    Function::minion(
        "show_low_sls",
        SHOW_LOW_SLS_SIG,
        "The SLS MODS (comma-separated) of SALTENV (default base) rendered with their \
includes, as low chunks; or the compile errors.\n\n    brine-call state.show_low_sls web",
        |m, p| show_sls(m, p, true),
    ),
    Function::minion(
        "show_lowstate",
        sig!(queue = null, **kwargs),
        "The highstate as low chunks, in the order they would run; or the compile \
errors.\n\n    brine-call state.show_lowstate",
        show_lowstate,
    ),
    Function::minion(
        "show_sls",
        SHOW_LOW_SLS_SIG,
        "The SLS MODS (comma-separated) of SALTENV (default base) rendered with their \
includes, as high data (extend, exclude and _in requisites left unapplied); or the \
compile errors.\n\n    brine-call state.show_sls web,db",
        |m, p| show_sls(m, p, false),
    ),
    Function::minion(
        "show_top",
        sig!(queue = null, **kwargs),
        "The SLS the top files assign this minion, by saltenv; or the top file \
errors.\n\n    brine-call state.show_top",
        show_top,
    ),
];

/// The options of one call, as Salt's `get_sls_opts` derives them from
/// `saltenv=`/`pillarenv=` (and `pillarenv_from_saltenv`).
struct CallOpts {
    saltenv: Option<String>,
    pillarenv: Option<String>,
    pillar_override: Option<Value>,
    /// `pillar_enc=`: the override is encrypted with that renderer.
    pillar_enc: Option<Value>,
    /// `force=True` skips the pillar error check.
    force: bool,
}

fn call_opts(m: &Minion, p: &mut Params) -> CallOpts {
    let Envs { saltenv, pillarenv } = Envs::of_state_run(&m.opts, &p.kwargs);
    p.kw("saltenv");
    p.kw("pillarenv");
    // Salt's `env` is not supported and silently dropped.
    p.kw("env");
    let pillar_enc = p.kw("pillar_enc");
    p.kw("localconfig");
    CallOpts {
        saltenv,
        pillarenv,
        pillar_override: None,
        pillar_enc,
        force: p.kw("force").is_some_and(|v| v.is_truthy()),
    }
}

/// The request a compile runs with: the call's opts, and the pillar the
/// templates see: the in-memory one unless the call names another
/// `pillarenv` or passes `pillar=` (then a fresh compile, as Salt's
/// `State` does when it gets no `initial_pillar`).
fn request(m: &Minion, co: &CallOpts) -> Result<StateRequest, CallError> {
    let pillar_override = super::pillar::decrypted_override(
        &m.opts,
        co.pillar_override.clone(),
        co.pillar_enc.clone(),
    )?;
    let co = &CallOpts {
        pillar_override,
        saltenv: co.saltenv.clone(),
        pillarenv: co.pillarenv.clone(),
        pillar_enc: None,
        force: co.force,
    };
    let override_given = co.pillar_override.as_ref().is_some_and(|v| v.is_truthy());
    if let Some(v) = &co.pillar_override {
        if !matches!(v, Value::Map(_) | Value::Null) {
            return Err(CallError::Invocation(
                "Pillar data must be formatted as a dictionary, unless pillar_enc is specified."
                    .into(),
            ));
        }
    }
    let in_memory = co.pillarenv == Envs::configured(&m.opts).pillarenv
        && !m.pillar.is_empty()
        && !override_given;
    let pillar = if in_memory {
        Map::clone(&m.pillar)
    } else {
        m.compile_pillar(
            &FreshPillar::new(
                Envs {
                    saltenv: co.saltenv.clone(),
                    pillarenv: co.pillarenv.clone(),
                },
                co.pillar_override.clone().filter(|_| override_given),
            ),
            true,
        )
    };
    if !co.force {
        if let Some(errors) = pillar.get("_errors") {
            // Salt raises here (CommandExecutionError with the errors as
            // its info): `ERROR: ...` over the bus, "Error running" from
            // salt-call.
            let lines: Vec<String> = match errors {
                Value::List(l) => l.iter().map(Value::to_python_str).collect(),
                other => vec![other.to_python_str()],
            };
            return Err(CallError::Failed(format!(
                "Pillar failed to render. Additional info follows:\n\n- {}",
                lines.join("\n- ")
            )));
        }
    }
    let envs = Envs {
        saltenv: co.saltenv.clone(),
        pillarenv: co.pillarenv.clone(),
    };
    Ok(m.state_request(envs, pillar, None))
}

fn error_list(errors: Vec<String>) -> Value {
    Value::List(errors.into_iter().map(Value::Str).collect())
}

/// What salt-call does when the function set no retcode: a dict return
/// whose `result` or `success` key is falsy exits 1.
fn with_retcode(value: Value, retcode: i32) -> Return {
    let retcode = match (&value, retcode) {
        (Value::Map(m), 0)
            if ["result", "success"]
                .iter()
                .any(|k| m.get(*k).is_some_and(|v| !v.is_truthy())) =>
        {
            1
        }
        _ => retcode,
    };
    Return { value, retcode }
}

/// `state.show_top [saltenv=]`.
fn show_top(m: &mut Minion, mut p: Params) -> Result<Return, CallError> {
    p.open_kwargs = true;
    let queue = p.take("queue");
    let concurrent = p.kwargs.get("concurrent").cloned();
    let co = call_opts(m, &mut p);
    p.finish()?;
    if let Some(r) = check_queue(m, queue.as_ref(), concurrent.as_ref()) {
        return Ok(r);
    }
    let req = request(m, &co)?;
    let (matches, errors) = m.show_top(&req);
    if !errors.is_empty() {
        return Ok(Return {
            value: error_list(errors),
            retcode: EX_STATE_COMPILER_ERROR,
        });
    }
    Ok(with_retcode(Value::Map(matches), 0))
}

/// `state.show_state_usage [pillar=]`.
fn show_state_usage(m: &mut Minion, mut p: Params) -> Result<Return, CallError> {
    p.open_kwargs = true;
    let queue = p.take("queue");
    let concurrent = p.kwargs.get("concurrent").cloned();
    let mut co = call_opts(m, &mut p);
    co.pillar_override = p.kw("pillar");
    p.finish()?;
    if let Some(r) = check_queue(m, queue.as_ref(), concurrent.as_ref()) {
        return Ok(r);
    }
    let req = request(m, &co)?;
    let (usage, errors) = m.state_usage(&req);
    if !errors.is_empty() {
        return Ok(Return {
            value: error_list(errors),
            retcode: EX_STATE_COMPILER_ERROR,
        });
    }
    let usage = Value::Map(usage);
    let retcode = if check_result(&usage, false) {
        0
    } else {
        EX_STATE_FAILURE
    };
    Ok(with_retcode(usage, retcode))
}

/// `state.show_highstate [saltenv=] [pillarenv=] [pillar=]`.
fn show_highstate(m: &mut Minion, mut p: Params) -> Result<Return, CallError> {
    p.open_kwargs = true;
    let queue = p.take("queue");
    let concurrent = p.kwargs.get("concurrent").cloned();
    let mut co = call_opts(m, &mut p);
    co.pillar_override = p.kw("pillar");
    p.finish()?;
    if let Some(r) = check_queue(m, queue.as_ref(), concurrent.as_ref()) {
        return Ok(r);
    }
    let req = request(m, &co)?;
    let r = m.render_highstate(&req, true);
    if !r.errors.is_empty() {
        return Ok(Return {
            value: error_list(r.errors),
            retcode: EX_STATE_COMPILER_ERROR,
        });
    }
    let high = Value::Map(r.high);
    let retcode = if check_result(&high, false) {
        0
    } else {
        EX_STATE_FAILURE
    };
    Ok(with_retcode(high, retcode))
}

/// `state.show_lowstate [saltenv=] [pillarenv=]`: the highstate's low
/// chunks, or the compile errors (with retcode 0: Salt sets none here).
fn show_lowstate(m: &mut Minion, mut p: Params) -> Result<Return, CallError> {
    p.open_kwargs = true;
    let queue = p.take("queue");
    let concurrent = p.kwargs.get("concurrent").cloned();
    let co = call_opts(m, &mut p);
    p.finish()?;
    if let Some(r) = check_queue(m, queue.as_ref(), concurrent.as_ref()) {
        return Ok(r);
    }
    let req = request(m, &co)?;
    let r = m.render_highstate(&req, false);
    let value = match compile_lowstate(r, &req.opts) {
        Ok(chunks) => Value::List(chunks.into_iter().map(Value::Map).collect()),
        Err(errors) => error_list(errors),
    };
    Ok(with_retcode(value, 0))
}

/// `state.show_states`: the `__sls__` of the highstate's low chunks, each
/// once, in order; or the compile errors (retcode 1).
fn show_states(m: &mut Minion, mut p: Params) -> Result<Return, CallError> {
    p.open_kwargs = true;
    let queue = p.take("queue");
    let concurrent = p.kwargs.get("concurrent").cloned();
    let co = call_opts(m, &mut p);
    p.finish()?;
    if let Some(r) = check_queue(m, queue.as_ref(), concurrent.as_ref()) {
        return Ok(r);
    }
    let req = request(m, &co)?;
    let r = m.render_highstate(&req, false);
    let chunks = match compile_lowstate(r, &req.opts) {
        Ok(chunks) => chunks,
        Err(errors) => {
            return Ok(Return {
                value: error_list(errors),
                retcode: EX_STATE_COMPILER_ERROR,
            })
        }
    };
    let mut names: Vec<Value> = Vec::new();
    for c in &chunks {
        let sls = c.get("__sls__").cloned().unwrap_or(Value::Null);
        if !names.contains(&sls) {
            names.push(sls);
        }
    }
    Ok(Return::from(Value::List(names)))
}

/// `state.id_exists ids mods`: are all of `ids` state IDs of `mods`?
fn id_exists(m: &mut Minion, mut p: Params) -> Result<Return, CallError> {
    let ids = p.require("ids")?;
    let mods = p.require("mods")?;
    let test = p.take("test");
    let queue = p.take("queue");
    let mut args = CallArgs {
        args: vec![mods],
        kwargs: std::mem::take(&mut p.kwargs),
    };
    p.open_kwargs = true;
    p.finish()?;
    for (k, v) in [("test", test), ("queue", queue)] {
        if let Some(v) = v {
            args.kwargs.insert(k.into(), v);
        }
    }
    let low = show_sls(m, params_of(FUNCTIONS, "show_low_sls", args), true)?;
    let Value::List(chunks) = low.value else {
        return Ok(Return::from(Value::Bool(false)));
    };
    let mut known = std::collections::HashSet::new();
    for c in &chunks {
        // Salt indexes each chunk: an error string in place of chunks
        // makes it fail.
        let Some(id) = c.as_map().and_then(|c| c.get("__id__")) else {
            return Err(CallError::Failed(
                "string indices must be integers, not 'str'".into(),
            ));
        };
        known.insert(id.to_python_str());
    }
    let all = split_input(&ids).iter().all(|id| known.contains(id));
    Ok(Return::from(Value::Bool(all)))
}

/// `state.running`: the state jobs running now, as Salt words them.
fn running(m: &mut Minion, mut p: Params) -> Result<Return, CallError> {
    let concurrent = p.take("concurrent").is_some_and(|v| v.is_truthy());
    p.finish()?;
    let lines = running_states(m, concurrent);
    Ok(Return::from(Value::List(
        lines.into_iter().map(Value::Str).collect(),
    )))
}

/// The state jobs running besides this call (this process's and other
/// processes'), oldest first: the one place that decides whether a state
/// run is in progress.
fn state_jobs(m: &Minion) -> Vec<Map> {
    m.jobs
        .others()
        .into_iter()
        .filter(|j| {
            j.get("fun")
                .map(Value::to_python_str)
                .is_some_and(|f| brine_compile::matcher::glob::fnmatch(&f, "state.*"))
        })
        .collect()
}

/// Salt's `state.running`: one sentence per state job running besides
/// this call; none with `concurrent`.
fn running_states(m: &Minion, concurrent: bool) -> Vec<String> {
    if concurrent {
        return Vec::new();
    }
    let field = |j: &Map, k: &str| j.get(k).map(Value::to_python_str).unwrap_or_default();
    state_jobs(m)
        .into_iter()
        .map(|j| {
            let jid = field(&j, "jid");
            format!(
                "The function \"{}\" is running as PID {} and was started at {} with jid {jid}",
                field(&j, "fun"),
                field(&j, "pid"),
                brine_core::py::jid_to_time(&jid),
            )
        })
        .collect()
}

/// How often a queued state run looks whether the runs before it ended
/// (Salt's `_wait` sleeps a second between looks).
const QUEUE_POLL: std::time::Duration = std::time::Duration::from_secs(1);

/// Salt's `_check_queue`, which every state run (and every `show_*`)
/// passes first: with `queue=True` (or the `state_queue` option) wait
/// until the state runs started before this one ended; with a number,
/// wait only while fewer than that many are ahead; otherwise (or when too
/// many are ahead) refuse to run while another state run is going on
/// (unless `concurrent=True`), answering Salt's sentences with retcode 1.
pub(super) fn check_queue(
    m: &Minion,
    queue: Option<&Value>,
    concurrent: Option<&Value>,
) -> Option<Return> {
    let configured;
    let queue = match queue {
        Some(q) if !q.is_null() => q,
        _ => {
            configured = m
                .opts
                .get("state_queue")
                .or_else(|| m.pillar.get("state_queue"))
                .cloned()
                .unwrap_or(Value::Bool(false));
            &configured
        }
    };
    let waited = match queue {
        Value::Bool(true) => {
            wait_for_prior(m, 0);
            true
        }
        Value::Int(max) => wait_for_prior(m, *max),
        _ => false,
    };
    if waited {
        return None;
    }
    let conflict = running_states(m, concurrent.is_some_and(Value::is_truthy));
    if conflict.is_empty() {
        return None;
    }
    Some(Return {
        value: Value::List(conflict.into_iter().map(Value::Str).collect()),
        retcode: EX_STATE_COMPILER_ERROR,
    })
}

/// Salt's `_wait`: while the state runs started before this call (a
/// smaller jid) go on, wait; with `max_queue` > 0, only when fewer than
/// that many are ahead (false: not waited).
fn wait_for_prior(m: &Minion, max_queue: i64) -> bool {
    let own: u128 = m
        .jobs
        .own_jid()
        .and_then(|j| j.parse().ok())
        .unwrap_or_else(|| {
            brine_host::time::jid(brine_host::time::now_micros(), false)
                .parse()
                .unwrap_or(u128::MAX)
        });
    let prior = || {
        state_jobs(m)
            .into_iter()
            .filter(|j| {
                j.get("jid")
                    .and_then(|v| v.to_python_str().parse::<u128>().ok())
                    .is_some_and(|jid| jid < own)
            })
            .count()
    };
    let mut ahead = prior();
    if max_queue != 0 && i64::try_from(ahead).unwrap_or(i64::MAX) >= max_queue {
        return false;
    }
    while ahead > 0 {
        std::thread::sleep(QUEUE_POLL);
        ahead = prior();
    }
    true
}

/// Salt's `compile_low_chunks` after the render: extend, verify,
/// requisite_in, exclude, then the low chunks.
fn compile_lowstate(r: render::Rendered, o: &Map) -> Result<Vec<Map>, Vec<String>> {
    let mut errors = r.errors;
    let (high, mut more) = compile::prepare_high_with(r.high, &disabled_requisites(o));
    errors.append(&mut more);
    if !errors.is_empty() {
        return Err(errors);
    }
    compile::compile_high_data_owned(high)
}

/// The `disabled_requisites` option: a list, or one name.
pub(super) fn disabled_requisites(o: &Map) -> Vec<String> {
    match o.get("disabled_requisites") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::List(l)) => l.iter().map(Value::to_python_str).collect(),
        Some(other) => vec![other.to_python_str()],
    }
}

/// `state.show_sls MODS` / `state.show_low_sls MODS` `[saltenv=]
/// [pillarenv=] [pillar=]`: the SLS rendered with their includes and
/// verified, as high data or as low chunks. `extend`, `exclude` and the
/// `_in` requisites are left unapplied, as Salt leaves them.
fn show_sls(m: &mut Minion, mut p: Params, low: bool) -> Result<Return, CallError> {
    p.open_kwargs = true;
    let mods = p.require("mods")?;
    p.take("test");
    let queue = p.take("queue");
    let concurrent = p.kwargs.get("concurrent").cloned();
    let mut co = call_opts(m, &mut p);
    co.pillar_override = p.kw("pillar");
    p.finish()?;
    if let Some(r) = check_queue(m, queue.as_ref(), concurrent.as_ref()) {
        return Ok(r);
    }
    // A specific SLS falls back to `base` when no saltenv is set.
    if co.saltenv.as_deref().is_none_or(str::is_empty) {
        co.saltenv = Some("base".into());
    }
    let req = request(m, &co)?;
    let saltenv = co.saltenv.clone().unwrap_or_else(|| "base".into());
    let r = m.render_sls(&req, &saltenv, &split_input(&mods));
    let mut errors = r.errors;
    errors.extend(compile::verify_high(&r.high));
    if !errors.is_empty() {
        return Ok(Return {
            value: error_list(errors),
            retcode: EX_STATE_COMPILER_ERROR,
        });
    }
    if !low {
        return Ok(with_retcode(Value::Map(r.high), 0));
    }
    Ok(match compile::compile_high_data_owned(r.high) {
        Ok(chunks) => with_retcode(Value::List(chunks.into_iter().map(Value::Map).collect()), 0),
        Err(errors) => Return {
            value: error_list(errors),
            retcode: EX_STATE_COMPILER_ERROR,
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn v(j: serde_json::Value) -> Value {
        Value::from_json(&j)
    }

    fn minion(extra: serde_json::Value) -> Minion {
        let mut opts = v(json!({"id": "m1", "pillar_roots": {"base": ["/nonexistent"]}}));
        if let (Value::Map(o), Value::Map(e)) = (&mut opts, v(extra)) {
            o.extend(e);
        }
        Minion {
            id: "m1".into(),
            opts: opts.as_map().cloned().unwrap_or_default().into(),
            grains: Map::default().into(),
            pillar: v(json!({"in_memory": true}))
                .as_map()
                .cloned()
                .unwrap_or_default()
                .into(),
            source: Default::default(),
            functions: super::super::functions(),
            jobs: Default::default(),
            registry: None,
            schedule: None,
            master: Default::default(),
            key_finger: None,
        }
    }

    fn call_with(m: &Minion, kwargs: serde_json::Value) -> CallOpts {
        let args = CallArgs {
            kwargs: v(kwargs).as_map().cloned().unwrap_or_default(),
            ..Default::default()
        };
        let mut p = params_of(FUNCTIONS, "show_top", args);
        call_opts(m, &mut p)
    }

    #[test]
    fn templates_see_the_in_memory_pillar_unless_pillarenv_changes() {
        let m = minion(json!({}));
        let req = request(&m, &call_with(&m, json!({"saltenv": "dev"})))
            .ok()
            .unwrap();
        assert_eq!(req.minion.pillar.get("in_memory"), Some(&Value::Bool(true)));
        assert_eq!(req.saltenv.as_deref(), Some("dev"));
        assert_eq!(req.pillarenv, None);
        let req = request(&m, &call_with(&m, json!({"pillarenv": "base"})))
            .ok()
            .unwrap();
        assert_eq!(req.minion.pillar.get("in_memory"), None);
        assert_eq!(req.pillarenv.as_deref(), Some("base"));
        // pillarenv_from_saltenv: saltenv= names the pillarenv too.
        let m = minion(json!({"pillarenv_from_saltenv": true}));
        let co = call_with(&m, json!({"saltenv": "dev"}));
        assert_eq!(co.pillarenv.as_deref(), Some("dev"));
    }

    #[test]
    fn split_input_like_salt() {
        assert_eq!(split_input(&v(json!("a, b,c"))), ["a", "b", "c"]);
        assert_eq!(split_input(&v(json!(["a", "b"]))), ["a", "b"]);
        assert_eq!(split_input(&v(json!(5))), ["5"]);
    }

    #[test]
    fn salt_call_result_key_sets_retcode() {
        assert_eq!(with_retcode(v(json!({"result": false})), 0).retcode, 1);
        assert_eq!(with_retcode(v(json!({"base": ["a"]})), 0).retcode, 0);
        assert_eq!(with_retcode(v(json!(["x"])), 2).retcode, 2);
    }
}
