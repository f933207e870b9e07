//! `state.apply`, `state.highstate`, `state.sls`, `state.single`,
//! `state.low` (and `state.test`): compile, then run through the state
//! runtime and return the running dictionary, with salt-call's retcodes
//! (1: compile errors, 2: a state failed, 5: the pillar failed).

mod calls;
mod render;
mod run_opts;

use super::function::{sig, CallError, Function, Return};
use super::params::Params;
use super::state::check_queue;
use crate::context::{FreshPillar, Minion};
use brine_compile::envs::Envs;
use brine_compile::request::CompiledStates;
use brine_compile::state::compile;
use brine_core::args::split_input;
use brine_core::{Map, Value};
use brine_states::engine::{self, RuntimeError};
use brine_states::StateContext;
use run_opts::{
    errors, pillar_errors, Pillar, Rendered, RunOpts, RunPillar, EX_STATE_COMPILER_ERROR,
    EX_STATE_FAILURE,
};
use std::sync::Arc;

pub(super) const FUNCTIONS: &[Function] = &[
    Function::minion(
        "apply",
        sig!(mods = null, **kwargs),
        "Apply states: the SLS MODS given (comma-separated), else the highstate. \
TEST=True reports what would change; SALTENV, PILLARENV and a PILLAR override as \
given; EXCLUDE leaves SLS or IDs out. Exit code 2 when a state failed, 1 on compile \
errors, 5 when the pillar failed.\n\n    brine-call state.apply\n    \
brine-call state.apply web test=True",
        |m, p| apply(m, p, false),
    )
    .highstate(),
    Function::minion(
        "high",
        sig!(data, test = null, queue = null, **kwargs),
        "Run high data given as a dict ({id: {module: [function, {arg: value}...]}}), \
with requisites, as a state run does (PILLAR, SALTENV and TEST as for \
state.apply).\n\n    brine-call state.high '{vim: {pkg: [installed]}}'",
        high,
    )
    .highstate(),
    Function::minion(
        "highstate",
        sig!(test = null, queue = null, state_events = null, **kwargs),
        "Apply the highstate: every SLS the top files assign this minion (see \
state.apply for the options).\n\n    brine-call state.highstate",
        |m, p| highstate(m, p, None),
    )
    .highstate(),
    Function::minion(
        "low",
        sig!(data, queue = null, **kwargs),
        "Run one low chunk given as a dict (state, fun, name and the state's \
arguments).\n\n    brine-call state.low '{state: file, fun: absent, name: /tmp/x}'",
        low,
    ),
    Function::minion(
        "single",
        sig!(fun, name, test = null, queue = null, **kwargs),
        "Run one state function, FUN (state.function), on NAME with the other keyword \
arguments as its arguments.\n\n    brine-call state.single pkg.installed name=vim",
        single,
    )
    .highstate(),
    Function::minion(
        "sls",
        sig!(
            mods,
            test = null,
            exclude = null,
            queue = null,
            sync_mods = null,
            state_events = null,
            **kwargs
        ),
        "Apply the SLS MODS (comma-separated) of SALTENV (default base), with their \
includes (see state.apply for the options).\n\n    brine-call state.sls web,db",
        |m, p| sls(m, p, None),
    )
    .highstate(),
    Function::minion(
        "sls_id",
        sig!(
            id_,
            mods,
            test = null,
            queue = null,
            state_events = null,
            **kwargs
        ),
        "Apply the one state ID_ (with what its requisites call for) out of the SLS MODS \
(comma-separated) of SALTENV (default base); see state.apply for the options. An ID \
found in none of them is an error.\n\n    brine-call state.sls_id nginx_conf web",
        sls_id,
    )
    .highstate(),
    Function::minion(
        "top",
        sig!(topfn, test = null, queue = null, **kwargs),
        "Apply the highstate as the top file TOPFN (a path in the file roots) gives it, \
in place of the configured top file (see state.apply for the options).\n\n    \
brine-call state.top reverse_top.sls",
        top,
    )
    .highstate(),
    Function::minion(
        "template",
        sig!(tem, queue = null, **kwargs),
        "Apply the SLS file TEM on the minion's own file system ('.sls' added when \
missing), rendered as an SLS named by its path (SALTENV for its includes).\n\n    \
brine-call state.template /srv/local/fix.sls",
        template,
    )
    .highstate(),
    Function::minion(
        "template_str",
        sig!(tem, queue = null, **kwargs),
        "Apply the states in the string TEM, rendered with the default renderer \
(jinja|yaml); include, exclude and extends are refused there.\n\n    \
brine-call state.template_str 'motd: {file.managed: [{name: /etc/motd}, \
{contents: hi}]}'",
        template_str,
    )
    .highstate(),
    Function::minion(
        "test",
        sig!(*args, **kwargs),
        "state.apply in test mode: what would change, changing nothing.\n\n    \
brine-call state.test web",
        |m, p| apply(m, p, true),
    )
    .highstate(),
];

/// The keyword arguments left for `**kwargs` (publish metadata already
/// dropped).
fn take_kwargs(p: &mut Params) -> Map {
    std::mem::take(&mut p.kwargs)
}

/// Take a map back out of an `Arc` (copying only if it is still shared).
fn unshare(a: Arc<Map>) -> Map {
    Arc::try_unwrap(a).unwrap_or_else(|shared| (*shared).clone())
}

pub(super) fn context(m: &Minion, pillar: Map, saltenv: &str, test: bool) -> StateContext {
    let pillar = Arc::new(pillar);
    StateContext {
        opts: Arc::clone(&m.opts),
        grains: Arc::clone(&m.grains),
        minion: calls::for_run(m, &pillar),
        pillar,
        saltenv: saltenv.to_string(),
        test,
        fileclient: m.file_client(),
        functions: m.functions.clone(),
        jobs: m.jobs.clone(),
        accumulators: Default::default(),
    }
}

/// A run is over: the minion gets its pillar back, and the grains its
/// states wrote (`grains.present`) are its own from now on.
fn end_run(m: &mut Minion, ctx: StateContext, in_memory: bool) {
    let StateContext { minion, pillar, .. } = ctx;
    if let Some(g) = minion.grains() {
        m.grains = g;
    }
    // The run's functions hold the pillar too: let them go first, so it is
    // handed back, not copied (a fleet highstate copied every minion's).
    drop(minion);
    RunPillar {
        pillar: unshare(pillar),
        in_memory,
    }
    .restore(m);
}

/// A list of error strings, returned with `retcode`.
/// A runtime error Salt raises out of the function: a bad keyword is
/// salt-call's "Passed invalid arguments"; a requisite Salt cannot look up
/// crashes Salt's run, reported here as a compile error (retcode 1).
fn runtime_error(e: RuntimeError) -> Result<Return, CallError> {
    match &e {
        RuntimeError::InvalidArguments(msg) => Err(CallError::InvalidArguments(msg.clone())),
        RuntimeError::Requisite(msg) => Ok(errors(vec![msg.clone()], EX_STATE_COMPILER_ERROR)),
        RuntimeError::FailhardStop => Ok(errors(vec![e.to_string()], EX_STATE_FAILURE)),
    }
}

/// `state.apply [mods]`: `state.sls` with mods, else `state.highstate`.
pub(super) fn apply(m: &mut Minion, mut p: Params, force_test: bool) -> Result<Return, CallError> {
    let mods = p.take("mods").filter(|v| v.is_truthy());
    let forced = force_test.then_some(Value::Bool(true));
    match mods {
        Some(mods) => sls(m, p, Some((mods, forced))),
        None => highstate(m, p, forced),
    }
}

/// `state.highstate`: everything the top files give this minion.
fn highstate(
    m: &mut Minion,
    mut p: Params,
    forced_test: Option<Value>,
) -> Result<Return, CallError> {
    p.open_kwargs = true;
    let test = forced_test.or_else(|| p.take("test"));
    let queue = p.take("queue");
    let concurrent = p.kwargs.get("concurrent").cloned();
    let _state_events = p.take("state_events");
    let kwargs = take_kwargs(&mut p);
    p.finish()?;
    if let Some(r) = check_queue(m, queue.as_ref(), concurrent.as_ref()) {
        return Ok(r);
    }
    let run = RunOpts::new(m, test.as_ref(), &kwargs)?;
    let pillar = match run.checked_pillar(m, &kwargs) {
        Ok(p) => p,
        Err(r) => return Ok(r),
    };
    // `state.highstate` splits a string exclude on commas as is (no
    // stripping, unlike `state.sls`).
    let exclude = kwargs.get("exclude").cloned().map(|ex| match ex {
        Value::Str(s) => Value::List(s.split(',').map(|p| Value::Str(p.into())).collect()),
        other => other,
    });
    let pillar = match remote_run(m, &run, pillar, None, exclude.clone(), &kwargs) {
        Ok(done) => return done,
        Err(pillar) => pillar,
    };
    let (rendered, pillar) = render::highstate(m, &run, pillar);
    finish_run(m, run, pillar, rendered, exclude)
}

/// `state.high data`: high data from the call, run as given.
fn high(m: &mut Minion, mut p: Params) -> Result<Return, CallError> {
    p.open_kwargs = true;
    let data = p.require("data")?;
    let test = p.take("test");
    let queue = p.take("queue");
    let concurrent = p.kwargs.get("concurrent").cloned();
    let kwargs = take_kwargs(&mut p);
    p.finish()?;
    if let Some(r) = check_queue(m, queue.as_ref(), concurrent.as_ref()) {
        return Ok(r);
    }
    let run = RunOpts::new(m, test.as_ref(), &kwargs)?;
    let pillar = match run.checked_pillar(m, &kwargs) {
        Ok(p) => p,
        Err(r) => return Ok(r),
    };
    let pillar = match pillar {
        Pillar::Ready(p) => p,
        // A minion of a master: its pillar comes from there, as Salt's
        // `State` compiles it; the states are the call's.
        Pillar::OnMaster(fresh) => RunPillar {
            pillar: m.compile_pillar(&fresh, true),
            in_memory: false,
        },
    };
    let rendered = match data {
        Value::Map(h) => Rendered::High(h),
        // Salt's `verify_high`.
        _ => Rendered::Errors(vec!["High data is not a dictionary and is invalid".into()]),
    };
    finish_run(m, run, pillar, rendered, None)
}

/// `state.sls mods`: the listed SLS files of one saltenv.
fn sls(
    m: &mut Minion,
    mut p: Params,
    from_apply: Option<(Value, Option<Value>)>,
) -> Result<Return, CallError> {
    p.open_kwargs = true;
    let (mods, test) = match from_apply {
        Some((mods, forced)) => (mods, forced.or_else(|| p.take("test"))),
        None => {
            let mods = p.require("mods")?;
            (mods, p.take("test"))
        }
    };
    let exclude = p.take("exclude");
    let queue = p.take("queue");
    let concurrent = p.kwargs.get("concurrent").cloned();
    let _state_events = p.take("state_events");
    let kwargs = take_kwargs(&mut p);
    p.finish()?;
    if let Some(r) = check_queue(m, queue.as_ref(), concurrent.as_ref()) {
        return Ok(r);
    }
    let mut run = RunOpts::new(m, test.as_ref(), &kwargs)?;
    if run.saltenv.is_none() {
        run.saltenv = Some("base".into());
    }
    let pillar = match run.checked_pillar(m, &kwargs) {
        Ok(p) => p,
        Err(r) => return Ok(r),
    };
    let mods = split_input(&mods);
    let pillar = match remote_run(
        m,
        &run,
        pillar,
        Some(mods.clone()),
        exclude.clone(),
        &kwargs,
    ) {
        Ok(done) => return done,
        Err(pillar) => pillar,
    };
    let (rendered, pillar) = render::sls(m, &run, pillar, &mods);
    finish_run(m, run, pillar, rendered, exclude)
}

/// `state.sls_id id mods`: one ID of the listed SLS, with its requisites.
fn sls_id(m: &mut Minion, mut p: Params) -> Result<Return, CallError> {
    p.open_kwargs = true;
    let id = p.require("id_")?.to_python_str();
    let mods = p.require("mods")?;
    let test = p.take("test");
    let queue = p.take("queue");
    let concurrent = p.kwargs.get("concurrent").cloned();
    let _state_events = p.take("state_events");
    let kwargs = take_kwargs(&mut p);
    p.finish()?;
    if let Some(r) = check_queue(m, queue.as_ref(), concurrent.as_ref()) {
        return Ok(r);
    }
    let mut run = RunOpts::new(m, test.as_ref(), &kwargs)?;
    let saltenv = run.saltenv.get_or_insert_with(|| "base".into()).clone();
    let pillar = run.pillar(m);
    if let Some(r) = pillar_errors(&pillar.pillar, &kwargs) {
        pillar.restore(m);
        return Ok(r);
    }
    // Rendered where the minion's SLS are (here or on the master), then
    // compiled here: only the ID's chunks run.
    let in_memory = pillar.in_memory;
    let req = render::request(m, &run, pillar.pillar);
    let r = m.render_sls(&req, &saltenv, &split_input(&mods));
    let pillar = render::take_back(req, in_memory);
    let mut errs = r.errors;
    errs.extend(compile::verify_high(&r.high));
    let disabled = super::state::disabled_requisites(&m.opts);
    let (high, more) = compile::requisite_in(r.high, &disabled);
    errs.extend(more);
    if !errs.is_empty() {
        pillar.restore(m);
        return Ok(errors(errs, EX_STATE_COMPILER_ERROR));
    }
    let handlers = OnfailHandlers::from_high(&high);
    let chunks = match compile::compile_high_data_owned(high) {
        Ok(c) => c,
        Err(e) => {
            pillar.restore(m);
            return Ok(errors(e, EX_STATE_COMPILER_ERROR));
        }
    };
    let RunPillar { pillar, in_memory } = pillar;
    let ctx = context(m, pillar, &saltenv, run.test);
    let result = engine::call_id(&ctx, chunks, &id);
    end_run(m, ctx, in_memory);
    let running = match result {
        Ok(r) => r,
        Err(e) => return runtime_error(e),
    };
    if running.is_empty() {
        return Err(CallError::Invocation(format!(
            "No matches for ID '{id}' found in SLS '{}' within saltenv '{saltenv}'",
            mods.to_python_str()
        )));
    }
    let retcode = if check_result(&running, &handlers) {
        0
    } else {
        EX_STATE_FAILURE
    };
    Ok(Return {
        value: Value::Map(running),
        retcode,
    })
}

/// `state.top topfn`: the highstate with `state_top` set to `salt://topfn`
/// for this call.
fn top(m: &mut Minion, mut p: Params) -> Result<Return, CallError> {
    let topfn = p.require("topfn")?.to_python_str();
    let url = if topfn.starts_with("salt://") {
        topfn
    } else {
        format!("salt://{topfn}")
    };
    // Set for this call only (the minion keeps serving other calls).
    let saved = (
        m.opts.get("state_top").cloned(),
        m.opts.get("state_top_saltenv").cloned(),
    );
    let opts = Arc::make_mut(&mut m.opts);
    opts.insert("state_top".into(), Value::Str(url));
    if let Some(env) = p.kwargs.get("saltenv").cloned() {
        opts.insert("state_top_saltenv".into(), env);
    }
    let out = highstate(m, p, None);
    for (key, old) in [("state_top", saved.0), ("state_top_saltenv", saved.1)] {
        let opts = Arc::make_mut(&mut m.opts);
        match old {
            Some(v) => opts.insert(key.into(), v),
            None => opts.shift_remove(key),
        };
    }
    out
}

/// The keyword arguments without `test`: Salt runs templates with the
/// minion's own test option, whatever the call says.
fn without_test(kwargs: &Map) -> Map {
    kwargs
        .iter()
        .filter(|(k, _)| k.to_lowercase() != "test")
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect()
}

/// `state.template tem`: a local SLS file, rendered and run.
fn template(m: &mut Minion, mut p: Params) -> Result<Return, CallError> {
    p.open_kwargs = true;
    let mut tem = p.require("tem")?.to_python_str();
    let queue = p.take("queue");
    let concurrent = p.kwargs.get("concurrent").cloned();
    let mut kwargs = take_kwargs(&mut p);
    p.finish()?;
    if let Some(r) = check_queue(m, queue.as_ref(), concurrent.as_ref()) {
        return Ok(r);
    }
    // Salt's `env` is not supported and dropped; the file renders in the
    // saltenv given, else none.
    kwargs.shift_remove("env");
    let run = RunOpts::new(m, Some(&Value::Null), &without_test(&kwargs))?;
    let pillar = run.pillar(m);
    if let Some(r) = pillar_errors(&pillar.pillar, &kwargs) {
        pillar.restore(m);
        return Err(CallError::Failed(format!(
            "Pillar failed to render. Additional info follows:\n\n- {}",
            r.value
                .as_list()
                .map(|l| l
                    .iter()
                    .skip(1)
                    .map(Value::to_python_str)
                    .collect::<Vec<_>>())
                .unwrap_or_default()
                .join("\n- ")
        )));
    }
    if !tem.ends_with(".sls") {
        tem.push_str(".sls");
    }
    let saltenv = kwargs
        .get("saltenv")
        .filter(|v| !v.is_null())
        .map(Value::to_python_str)
        .unwrap_or_default();
    let in_memory = pillar.in_memory;
    let req = render::request(m, &run, pillar.pillar);
    let r = brine_compile::state::render::render_local(&req, &tem, &saltenv);
    let pillar = render::take_back(req, in_memory);
    let rendered = if r.errors.is_empty() {
        Rendered::High(r.high)
    } else {
        Rendered::Errors(r.errors)
    };
    finish_run(m, run, pillar, rendered, None)
}

/// `state.template_str tem`: states from a string, rendered and run.
fn template_str(m: &mut Minion, mut p: Params) -> Result<Return, CallError> {
    p.open_kwargs = true;
    let tem = p.require("tem")?;
    let queue = p.take("queue");
    let concurrent = p.kwargs.get("concurrent").cloned();
    let kwargs = take_kwargs(&mut p);
    p.finish()?;
    if let Some(r) = check_queue(m, queue.as_ref(), concurrent.as_ref()) {
        return Ok(r);
    }
    // Salt encodes the text first: anything but a string is a TypeError.
    let Value::Str(tem) = tem else {
        return Err(CallError::InvalidArguments(format!(
            "utf_8_encode() argument 1 must be str, not {}",
            tem.type_name()
        )));
    };
    let run = RunOpts::new(m, Some(&Value::Null), &without_test(&kwargs))?;
    let pillar = run.pillar(m);
    let in_memory = pillar.in_memory;
    let req = render::request(m, &run, pillar.pillar);
    let ctx = brine_compile::render::TemplateContext {
        minion: req.minion.clone(),
        saltenv: run.saltenv.clone().unwrap_or_else(|| "base".into()),
        pillarenv: run.pillarenv.clone(),
        sls: None,
        tplpath: None,
        fetch: None,
        search_paths: Vec::new(),
        extra: Vec::new(),
    };
    const NAME: &str = "<template-str>";
    let data = brine_compile::render::render_text(std::path::Path::new(NAME), &tem, &ctx);
    let pillar = render::take_back(req, in_memory);
    let rendered = match data {
        Err(e) => Rendered::Errors(vec![e.to_string()]),
        Ok(v) if !v.is_truthy() => Rendered::Answer(Return::from(v)),
        Ok(v) => match single_template(v, NAME) {
            Ok(high) => Rendered::High(high),
            Err(errs) => Rendered::Errors(errs),
        },
    };
    finish_run(m, run, pillar, rendered, None)
}

/// Salt's `State.render_template`: a template rendered on its own must be
/// a dict without include/exclude/extends; `id: mod.fun` short forms are
/// padded, `mod.fun: [args]` keys split.
fn single_template(high: Value, template: &str) -> Result<Map, Vec<String>> {
    let Value::Map(mut high) = high else {
        return Err(vec![format!(
            "Template {template} does not render to a dictionary"
        )]);
    };
    for item in ["include", "exclude", "extends"] {
        if high.contains_key(item) {
            return Err(vec![format!(
                "The '{item}' declaration found on '{template}' is invalid when rendering \
                 single templates"
            )]);
        }
    }
    let mut errs = Vec::new();
    for (name, body) in high.iter_mut() {
        if let Value::Str(short) = body {
            if let Some((module, fun)) = short.split_once('.') {
                let mut m = Map::default();
                m.insert(
                    module.to_string(),
                    Value::List(vec![Value::Str(fun.to_string())]),
                );
                *body = Value::Map(m);
            } else {
                errs.push(format!(
                    "ID {name} in template {template} is not a dictionary"
                ));
            }
            continue;
        }
        let Value::Map(decls) = body else {
            errs.push(format!(
                "ID {name} in template {template} is not a dictionary"
            ));
            continue;
        };
        let mut keys: Vec<String> = decls.keys().cloned().collect();
        keys.sort();
        let mut seen = std::collections::HashSet::new();
        for key in keys {
            if key.starts_with('_') {
                continue;
            }
            match decls.get(&key) {
                Some(Value::Null) => {
                    errs.push(format!(
                        "ID '{name}' in template {template} contains a short declaration \
                         ({key}) with a trailing colon. When not passing any arguments to a \
                         state, the colon must be omitted."
                    ));
                    continue;
                }
                Some(Value::List(_)) => {}
                _ => continue,
            }
            if let Some((module, fun)) = key.split_once('.') {
                if !seen.insert(module.to_string()) {
                    errs.push(format!(
                        "ID '{name}' in template '{template}' contains multiple state \
                         declarations of the same type"
                    ));
                    continue;
                }
                if let Some(Value::List(mut args)) = decls.shift_remove(&key) {
                    args.push(Value::Str(fun.to_string()));
                    decls.insert(module.to_string(), Value::List(args));
                }
                continue;
            }
            seen.insert(key);
        }
    }
    if errs.is_empty() {
        Ok(high)
    } else {
        Err(errs)
    }
}

/// Exclude, compile, run, and set the retcode as Salt's `_set_retcode`.
fn finish_run(
    m: &mut Minion,
    run: RunOpts,
    pillar: RunPillar,
    rendered: Rendered,
    exclude: Option<Value>,
) -> Result<Return, CallError> {
    let high = match rendered {
        Rendered::High(h) => h,
        Rendered::Errors(e) => {
            pillar.restore(m);
            return Ok(errors(e, EX_STATE_COMPILER_ERROR));
        }
        Rendered::Answer(r) => {
            pillar.restore(m);
            return Ok(r);
        }
    };
    // Only the onfail handlers are needed from the high data once it is
    // compiled; the compile consumes it so that both are never held whole.
    let compiled = compile::prepare_run(high, exclude.as_ref(), &m.opts).and_then(|h| {
        let handlers = OnfailHandlers::from_high(&h);
        Ok((compile::compile_high_data_owned(h)?, handlers))
    });
    let (chunks, handlers) = match compiled {
        Ok(c) => c,
        Err(e) => {
            pillar.restore(m);
            return Ok(errors(e, EX_STATE_COMPILER_ERROR));
        }
    };
    brine_host::sys::release_freed_memory();
    run_chunks(m, &run, pillar, chunks, handlers)
}

/// A minion of a master has its run compiled there (`Ok`: the function's
/// answer); a local minion gets its pillar back (`Err`) and compiles itself.
fn remote_run(
    m: &mut Minion,
    run: &RunOpts,
    pillar: Pillar,
    mods: Option<Vec<String>>,
    exclude: Option<Value>,
    kwargs: &Map,
) -> Result<Result<Return, CallError>, RunPillar> {
    let (pillar, fresh) = match pillar {
        Pillar::Ready(p) => (p, None),
        Pillar::OnMaster(fresh) => (
            RunPillar {
                pillar: Map::default(),
                in_memory: false,
            },
            Some(fresh),
        ),
    };
    let in_memory = pillar.in_memory;
    let req = render::request(m, run, pillar.pillar);
    let compiled = m.compile_run(&req, mods, exclude.unwrap_or(Value::Null), run.test, fresh);
    let mut pillar = render::take_back(req, in_memory);
    let Some((fetched, compiled)) = compiled else {
        // A local minion: its pillar was never left to a master
        // (`checked_pillar`), so this is the run's.
        return Err(pillar);
    };
    if let Some(fetched) = fetched {
        pillar.pillar = fetched;
        if let Some(r) = pillar_errors(&pillar.pillar, kwargs) {
            return Ok(Ok(r));
        }
    }
    let answer = |pillar: RunPillar, m: &mut Minion, r: Return| {
        pillar.restore(m);
        Ok(Ok(r))
    };
    match compiled {
        CompiledStates::Chunks { chunks, high } => {
            let handlers = OnfailHandlers::from_high(&high);
            drop(high);
            Ok(run_chunks(m, run, pillar, chunks, handlers))
        }
        CompiledStates::Errors { errors: e, retcode } => answer(
            pillar,
            m,
            errors(e, i32::try_from(retcode).unwrap_or(EX_STATE_COMPILER_ERROR)),
        ),
        CompiledStates::Answer { ret, retcode } => answer(
            pillar,
            m,
            Return {
                value: ret,
                retcode: i32::try_from(retcode).unwrap_or(EX_STATE_FAILURE),
            },
        ),
        CompiledStates::Rendered { .. }
        | CompiledStates::Top { .. }
        | CompiledStates::Usage { .. } => answer(
            pillar,
            m,
            errors(
                vec!["the master answered the state run with a render stage".into()],
                EX_STATE_COMPILER_ERROR,
            ),
        ),
    }
}

/// Run compiled chunks and set the retcode as Salt's `_set_retcode`.
fn run_chunks(
    m: &mut Minion,
    run: &RunOpts,
    pillar: RunPillar,
    chunks: Vec<Map>,
    handlers: OnfailHandlers,
) -> Result<Return, CallError> {
    let saltenv = run.saltenv.clone().unwrap_or_else(|| "base".into());
    let RunPillar { pillar, in_memory } = pillar;
    let ctx = context(m, pillar, &saltenv, run.test);
    let result = engine::call_high(&ctx, chunks);
    end_run(m, ctx, in_memory);
    let running = match result {
        Ok(r) => r,
        Err(e) => return runtime_error(e),
    };
    let retcode = if check_result(&running, &handlers) {
        0
    } else {
        EX_STATE_FAILURE
    };
    Ok(Return {
        value: Value::Map(running),
        retcode,
    })
}

/// `state.single fun name=... args`: one state function.
fn single(m: &mut Minion, mut p: Params) -> Result<Return, CallError> {
    p.open_kwargs = true;
    let fun = p.require("fun")?;
    let name = p.require("name")?;
    let test = p.take("test");
    let queue = p.take("queue");
    let concurrent = p.kwargs.get("concurrent").cloned();
    let mut kwargs = take_kwargs(&mut p);
    p.finish()?;
    if let Some(r) = check_queue(m, queue.as_ref(), concurrent.as_ref()) {
        return Ok(r);
    }
    let fun = fun.to_python_str();
    let comps: Vec<&str> = fun.split('.').collect();
    let (Some(state), Some(f)) = (comps.first(), comps.get(1)) else {
        return Ok(Return {
            value: Value::Str("Invalid function passed".into()),
            retcode: EX_STATE_COMPILER_ERROR,
        });
    };
    kwargs.insert("state".into(), Value::Str(state.to_string()));
    kwargs.insert("fun".into(), Value::Str(f.to_string()));
    kwargs.insert("__id__".into(), name.clone());
    kwargs.insert("name".into(), name);
    let run = RunOpts::new(m, test.as_ref(), &kwargs)?;
    let mut low = kwargs;
    let errs = engine::verify_data(&mut low);
    if !errs.is_empty() {
        return Ok(errors(errs, EX_STATE_COMPILER_ERROR));
    }
    let tag = engine::gen_tag(&low);
    let saltenv = run.saltenv.clone().unwrap_or_else(|| "base".into());
    let RunPillar { pillar, in_memory } = run.pillar(m);
    let ctx = context(m, pillar, &saltenv, run.test);
    let result = engine::call_low(&ctx, low);
    end_run(m, ctx, in_memory);
    let ret = match result {
        Ok(r) => r,
        Err(e) => return runtime_error(e),
    };
    let mut running = Map::default();
    running.insert(tag, Value::Map(ret));
    let retcode = if check_result(&running, &OnfailHandlers::default()) {
        0
    } else {
        EX_STATE_FAILURE
    };
    Ok(Return {
        value: Value::Map(running),
        retcode,
    })
}

/// `state.low '{...}'`: one low chunk, as given; the run sees a freshly
/// compiled pillar and the configured test mode.
fn low(m: &mut Minion, mut p: Params) -> Result<Return, CallError> {
    p.open_kwargs = true;
    let data = p.require("data")?;
    let queue = p.take("queue");
    let concurrent = p.kwargs.get("concurrent").cloned();
    let _kwargs = take_kwargs(&mut p);
    p.finish()?;
    if let Some(r) = check_queue(m, queue.as_ref(), concurrent.as_ref()) {
        return Ok(r);
    }
    let Value::Map(mut low) = data else {
        return Err(CallError::InvalidArguments(format!(
            "low data must be a dictionary, not {}",
            data.type_name()
        )));
    };
    let errs = engine::verify_data(&mut low);
    if !errs.is_empty() {
        return Ok(errors(errs, EX_STATE_COMPILER_ERROR));
    }
    let envs = Envs::configured(&m.opts);
    let saltenv = envs.saltenv.clone().unwrap_or_else(|| "base".into());
    let pillar = m.compile_pillar(&FreshPillar::new(envs, None), true);
    let test = brine_compile::opts::test_mode(&m.opts);
    let ctx = context(m, pillar, &saltenv, test);
    let result = engine::call_low(&ctx, low);
    if let Some(g) = ctx.minion.grains() {
        m.grains = g;
    }
    let ret = match result {
        Ok(r) => r,
        Err(e) => return runtime_error(e),
    };
    // salt-call fails a call whose return says `result: False` (or None).
    let retcode = match ret.get("result") {
        Some(r) if !r.is_truthy() => 1,
        _ => 0,
    };
    Ok(Return {
        value: Value::Map(ret),
        retcode,
    })
}

/// The `onfail_stop: False` handlers of a run's high data: handler id,
/// its state module, and the `onfail` requisites (module, id) it handles.
/// Salt's `check_result` looks them up to forgive a handled failure.
#[derive(Default)]
struct OnfailHandlers(Vec<Handler>);

struct Handler {
    id: String,
    module: String,
    /// `(module, id)` of each `onfail` requisite.
    reqs: Vec<(String, String)>,
}

impl OnfailHandlers {
    fn from_high(high: &Map) -> OnfailHandlers {
        let mut out = Vec::new();
        for (hid, body) in high {
            let Value::Map(body) = body else { continue };
            for (module, decl) in body {
                if module.starts_with("__") {
                    continue;
                }
                let Value::List(args) = decl else { continue };
                let stop_off = args
                    .iter()
                    .filter_map(Value::as_map)
                    .any(|a| a.get("onfail_stop") == Some(&Value::Bool(false)));
                if !stop_off {
                    continue;
                }
                let mut reqs = Vec::new();
                for a in args.iter().filter_map(Value::as_map) {
                    let Some(Value::List(items)) = a.get("onfail") else {
                        continue;
                    };
                    for req in items.iter().filter_map(Value::as_map) {
                        for (rmod, rid) in req {
                            reqs.push((rmod.clone(), rid.to_python_str()));
                        }
                    }
                }
                out.push(Handler {
                    id: hid.clone(),
                    module: module.clone(),
                    reqs,
                });
            }
        }
        OnfailHandlers(out)
    }
}

/// Salt's `state.check_result`: every state succeeded, counting a failed
/// state as handled when `onfail_stop: False` handlers of it all succeeded.
/// A return without `result` is searched for nested ones (an empty
/// mapping there counts as a failure, as in Salt).
fn check_result(running: &Map, handlers: &OnfailHandlers) -> bool {
    check_result_at(running, false, handlers)
}

fn check_result_at(running: &Map, recurse: bool, handlers: &OnfailHandlers) -> bool {
    if running.is_empty() {
        return false;
    }
    let mut ok = true;
    for (id, ret) in running {
        let well_formed = if id == "__extend__" {
            matches!(ret, Value::List(_))
        } else {
            matches!(ret, Value::Map(_))
        };
        if !recurse && !well_formed {
            ok = false;
        }
        if ok {
            if let Value::Map(r) = ret {
                match r.get("result") {
                    Some(Value::Bool(false)) => ok = false,
                    None => ok = check_result_at(r, true, handlers),
                    Some(_) => {}
                }
            }
        }
        if !ok {
            ok = onfail_handled(id, ret, running, handlers) == Some(true);
        }
        if !ok {
            return false;
        }
    }
    true
}

/// The parts of a running-dict tag (state, id).
fn split_tag(tag: &str) -> Option<(&str, &str)> {
    let mut parts = tag.split("_|-");
    let state = parts.next()?;
    let id = parts.next()?;
    Some((state, id))
}

/// Salt's `check_onfail_requisites`: `Some(true)` when the failed state
/// has `onfail_stop: False` handlers and they succeeded.
fn onfail_handled(
    tag: &str,
    ret: &Value,
    running: &Map,
    handlers: &OnfailHandlers,
) -> Option<bool> {
    if handlers.0.is_empty() || !ret.is_truthy() {
        return None;
    }
    let (fstate, fid) = match split_tag(tag) {
        Some((s, i)) if tag.contains("_|-") => (Some(s), i),
        _ => (None, tag),
    };
    let matching: Vec<(&str, &str)> = handlers
        .0
        .iter()
        .filter(|h| h.id != fid)
        .flat_map(|h| {
            h.reqs
                .iter()
                .filter(|(rmod, rid)| rid == fid && fstate.is_none_or(|s| s == rmod))
                .map(move |_| (h.id.as_str(), h.module.as_str()))
        })
        .collect();
    if matching.is_empty() {
        return None;
    }
    let mut nret: Option<bool> = None;
    for (hid, hmod) in matching {
        for (rtag, rret) in running {
            let (rstate, rid) = match split_tag(rtag) {
                Some((s, i)) if rtag.contains("_|-") => (s.to_string(), i.to_string()),
                _ => (
                    hmod.to_string(),
                    rret.get("__id__")
                        .map(Value::to_python_str)
                        .unwrap_or_else(|| rtag.clone()),
                ),
            };
            if rstate == hmod && rid == hid {
                if let Some(Value::Bool(b)) = rret.get("result") {
                    nret = Some(*b);
                    if !b {
                        break;
                    }
                }
            }
        }
        if nret.is_none() {
            nret = Some(false);
        }
    }
    nret
}
