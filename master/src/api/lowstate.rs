//! One lowstate chunk through Salt's netapi clients: `local` (publish
//! and gather the returns), `local_async` (the jid and minions),
//! `local_batch` (a batch at a time, each return its own answer), `runner`
//! and `wheel` (run here, against the master's configuration, as
//! salt-api's do in its own process), `runner_async` and `wheel_async`
//! (started, their jid and tag answered at once). Each chunk is checked
//! against the caller's permissions first ([`crate::eauth::acl`]).

use super::context::ApiContext;
use super::reply::ApiError;
use crate::daemon::client::GATHER_JOB_TIMEOUT;
use crate::daemon::events::announce::Announce;
use crate::daemon::events::tags::MasterSide;
use crate::eauth::acl;
use crate::eauth::tokens::Session;
use crate::runners::{self, Answer, RunnerError};
use crate::wheel;
use axum::http::StatusCode;
use brine_core::args::CallArgs;
use brine_core::output::stream::KeyOrder;
use brine_core::{Map, Value};
use std::sync::Arc;

/// The clients `brine-api` serves (GET / lists them).
pub const CLIENTS: &[&str] = &[
    "local",
    "local_async",
    "local_batch",
    "runner",
    "runner_async",
    "wheel",
    "wheel_async",
];

/// Salt's default `timeout` for a `local` call, in seconds.
const LOCAL_TIMEOUT: u64 = 5;

fn text(chunk: &Map, key: &str) -> Option<String> {
    match chunk.get(key) {
        Some(Value::Str(s)) => Some(s.clone()),
        Some(Value::Null) | None => None,
        Some(v) => Some(v.to_python_str()),
    }
}

/// `arg` as a list (a form's single value is one argument).
fn args(chunk: &Map) -> Vec<Value> {
    match chunk.get("arg") {
        Some(Value::List(l)) => l.clone(),
        None | Some(Value::Null) => Vec::new(),
        Some(one) => vec![one.clone()],
    }
}

fn kwargs(chunk: &Map) -> Map {
    match chunk.get("kwarg") {
        Some(Value::Map(m)) => m.clone(),
        _ => Map::default(),
    }
}

/// The keys of a runner or wheel chunk that are not the function's
/// keyword arguments (Salt's netapi and client keywords).
const NOT_KWARGS: &[&str] = &[
    "client",
    "fun",
    "arg",
    "kwarg",
    "token",
    "eauth",
    "username",
    "password",
    "user",
    "key",
    "cmd",
    "full_return",
    "print_event",
    "timeout",
    "__jid__",
    "__tag__",
    "__user__",
];

/// A runner or wheel call: `arg`, and `kwarg` with every other key of the
/// chunk (Salt's old-style lowstate: `{fun: jobs.list_job, jid: ...}`).
fn call_args(chunk: &Map) -> CallArgs {
    let mut kw = kwargs(chunk);
    for (k, v) in chunk {
        if !NOT_KWARGS.contains(&k.as_str()) && !kw.contains_key(k) {
            kw.insert(k.clone(), v.clone());
        }
    }
    CallArgs {
        args: args(chunk),
        kwargs: kw,
    }
}

/// `full_return: True`.
fn full_return(chunk: &Map) -> bool {
    chunk.get("full_return").is_some_and(Value::is_truthy)
}

fn internal(e: impl std::fmt::Display) -> ApiError {
    tracing::error!("{e}");
    ApiError::new(
        StatusCode::INTERNAL_SERVER_ERROR,
        "An unexpected error occurred",
    )
}

/// Run `chunk` for `session`, its answers added to `out`: one, or for
/// `local_batch` one per minion (salt-api flattens them into the list of
/// answers).
pub async fn run_into(
    ctx: &Arc<ApiContext>,
    session: &Session,
    chunk: &Map,
    out: &mut Vec<Value>,
) -> Result<(), ApiError> {
    if text(chunk, "client").as_deref() == Some("local_batch") {
        check_client(ctx, "local_batch")?;
        let fun = text(chunk, "fun").ok_or_else(|| ApiError::bad_request("Missing fun"))?;
        out.extend(local_batch(ctx, session, chunk, &fun).await?);
        return Ok(());
    }
    out.push(run(ctx, session, chunk).await?);
    Ok(())
}

/// Whether `client` is one brine-api serves and the master enables.
fn check_client(ctx: &ApiContext, client: &str) -> Result<(), ApiError> {
    if !CLIENTS.contains(&client) {
        return Err(ApiError::bad_request(format!(
            "Invalid client specified: '{client}'"
        )));
    }
    if !ctx.client_enabled(client) {
        return Err(ApiError::bad_request(format!(
            "Client disabled: '{client}'. Add to 'netapi_enable_clients' master config option \
             to enable."
        )));
    }
    Ok(())
}

/// Run `chunk` for `session`: its one answer.
pub async fn run(ctx: &Arc<ApiContext>, session: &Session, chunk: &Map) -> Result<Value, ApiError> {
    let client =
        text(chunk, "client").ok_or_else(|| ApiError::bad_request("No client specified"))?;
    check_client(ctx, &client)?;
    let fun = text(chunk, "fun").ok_or_else(|| ApiError::bad_request("Missing fun"))?;
    match client.as_str() {
        "local" | "local_async" => local(ctx, session, chunk, &fun, client == "local").await,
        "runner" | "runner_async" => {
            let call = call_args(chunk);
            check_call(session, "runner", &fun, &call)?;
            let jid = new_jid();
            if client == "runner" {
                let fun_args = brine_core::args::salt_arguments(&call.args, &call.kwargs);
                let data = runner(ctx, &session.user, &fun, call, &jid).await?;
                Ok(if full_return(chunk) {
                    runner_full(&session.user, &fun, fun_args, &jid, data)
                } else {
                    data
                })
            } else {
                let (c, user) = (ctx.clone(), session.user.clone());
                let j = jid.clone();
                tokio::spawn(async move {
                    if let Err(e) = runner(&c, &user, &fun, call, &j).await {
                        tracing::warn!("runner_async: {}", e.message);
                    }
                });
                Ok(async_answer("run", &jid))
            }
        }
        _ => {
            let call = call_args(chunk);
            check_call(session, "wheel", &fun, &call)?;
            let jid = new_jid();
            if client == "wheel" {
                wheel_call(ctx, session, &fun, call, &jid).await
            } else {
                let (c, s) = (ctx.clone(), session.clone());
                let j = jid.clone();
                tokio::spawn(async move {
                    let _ = wheel_call(&c, &s, &fun, call, &j).await;
                });
                Ok(async_answer("wheel", &jid))
            }
        }
    }
}

fn new_jid() -> String {
    brine_host::time::jid(brine_host::time::now_micros(), false)
}

/// `runner_async`/`wheel_async`: `{tag, jid}`.
fn async_answer(kind: &str, jid: &str) -> Value {
    let mut m = Map::default();
    m.insert("tag".into(), Value::Str(format!("salt/{kind}/{jid}")));
    m.insert("jid".into(), Value::Str(jid.to_string()));
    Value::Map(m)
}

/// A runner's answer as `full_return: True` gives it: its `ret` event's
/// data and tag.
fn runner_full(user: &str, fun: &str, fun_args: Vec<Value>, jid: &str, ret: Value) -> Value {
    let mut data = Map::default();
    data.insert("_stamp".into(), Value::Str(stamp()));
    data.insert("fun".into(), Value::Str(format!("runner.{fun}")));
    data.insert("fun_args".into(), Value::List(fun_args));
    data.insert("jid".into(), Value::Str(jid.to_string()));
    data.insert("return".into(), ret);
    data.insert("success".into(), Value::Bool(true));
    data.insert("user".into(), Value::Str(user.to_string()));
    let mut m = Map::default();
    m.insert("data".into(), Value::Map(data));
    m.insert("tag".into(), Value::Str(format!("salt/run/{jid}/ret")));
    Value::Map(m)
}

/// An event's `_stamp`: now, as Salt writes it.
fn stamp() -> String {
    chrono::Utc::now()
        .format("%Y-%m-%dT%H:%M:%S%.6f")
        .to_string()
}

fn check_call(session: &Session, form: &str, fun: &str, call: &CallArgs) -> Result<(), ApiError> {
    if acl::allows_call(&session.perms, form, fun, &call.args, Some(&call.kwargs)) {
        Ok(())
    } else {
        Err(ApiError::new(
            StatusCode::UNAUTHORIZED,
            format!(
                "Authentication failure of type \"token\" occurred for user {}.",
                session.user
            ),
        ))
    }
}

/// The target of a `local*` chunk, checked against the caller's
/// permissions: (tgt, tgt_type, arg, kwarg).
async fn permitted_job(
    ctx: &Arc<ApiContext>,
    session: &Session,
    chunk: &Map,
    fun: &str,
) -> Result<(Value, String, Vec<Value>, Map), ApiError> {
    let tgt = chunk
        .get("tgt")
        .cloned()
        .ok_or_else(|| ApiError::bad_request("Missing tgt"))?;
    let tgt_type = text(chunk, "tgt_type").unwrap_or_else(|| "glob".into());
    let arg = args(chunk);
    let kwarg = kwargs(chunk);
    // Salt's check sees the publication's arguments: kwargs last, marked.
    let pub_args = brine_core::args::salt_arguments(&arg, &kwarg);
    let c = ctx.clone();
    let (t, tt) = (tgt.clone(), tgt_type.clone());
    let expand = move |t: &Value, tt: &str| c.expand(t, tt);
    let allowed = {
        let perms = session.perms.clone();
        let fun = fun.to_string();
        tokio::task::spawn_blocking(move || {
            acl::allows_job(&perms, &fun, &pub_args, &t, &tt, &expand)
        })
        .await
        .unwrap_or(false)
    };
    if !allowed {
        return Err(ApiError::new(
            StatusCode::UNAUTHORIZED,
            "Authorization error occurred.",
        ));
    }
    Ok((tgt, tgt_type, arg, kwarg))
}

/// `local_batch`: the target pinged, then the job run on the minions that
/// answered a batch at a time (`batch`, Salt's default 10%), each return
/// `{id: return}` in the order they came; the silent are left out.
async fn local_batch(
    ctx: &Arc<ApiContext>,
    session: &Session,
    chunk: &Map,
    fun: &str,
) -> Result<Vec<Value>, ApiError> {
    let (tgt, tgt_type, arg, kwarg) = permitted_job(ctx, session, chunk, fun).await?;
    let size_text = match chunk.get("batch") {
        None | Some(Value::Null) => "10%".to_string(),
        Some(v) => v.to_python_str(),
    };
    let size = crate::batch::BatchSize::parse(&size_text)
        .ok_or_else(|| internal(crate::batch::invalid_size_message(&size_text)))?;
    let timeout = match chunk.get("timeout") {
        Some(Value::Int(i)) if *i > 0 => *i as u64,
        _ => ctx.cfg.master.timeout,
    };
    let batch_wait = match chunk.get("batch_wait") {
        Some(Value::Int(i)) if *i > 0 => std::time::Duration::from_secs(*i as u64),
        Some(Value::Float(f)) if *f > 0.0 && f.is_finite() => {
            std::time::Duration::from_secs_f64(*f)
        }
        _ => std::time::Duration::ZERO,
    };
    let mut client = ctx.client().map_err(internal)?;
    client.user = Some(session.user.clone());
    let pinged = client
        .ping(tgt, &tgt_type, timeout, GATHER_JOB_TIMEOUT)
        .await
        .map_err(internal)?;
    if pinged.up.is_empty() {
        return Ok(Vec::new());
    }
    let job = crate::batch::BatchJob {
        fun: fun.to_string(),
        arg,
        kwarg,
        size: size.of(pinged.up.len()),
        batch_wait,
        timeout,
        gather: GATHER_JOB_TIMEOUT,
    };
    let mut out = Vec::new();
    crate::batch::drive(&mut client, pinged.up, &job, &mut |step| {
        if let crate::batch::Step::Returned { id, ret, .. } = step {
            let mut m = Map::default();
            m.insert(id.to_string(), ret.ret.unpack());
            out.push(Value::Map(m));
        }
        false
    })
    .await
    .map_err(internal)?;
    Ok(out)
}

async fn local(
    ctx: &Arc<ApiContext>,
    session: &Session,
    chunk: &Map,
    fun: &str,
    wait: bool,
) -> Result<Value, ApiError> {
    let (tgt, tgt_type, arg, kwarg) = permitted_job(ctx, session, chunk, fun).await?;
    let timeout = match chunk.get("timeout") {
        Some(Value::Int(i)) if *i > 0 => *i as u64,
        Some(Value::Str(s)) => s.trim().parse().unwrap_or(LOCAL_TIMEOUT),
        _ => LOCAL_TIMEOUT,
    };
    let mut client = ctx.client().map_err(internal)?;
    client.user = Some(session.user.clone());
    if !wait {
        let p = client
            .publish(tgt, &tgt_type, fun, arg, kwarg, timeout)
            .await
            .map_err(internal)?;
        let mut m = Map::default();
        m.insert("jid".into(), Value::Str(p.jid));
        m.insert(
            "minions".into(),
            Value::List(p.minions.into_iter().map(Value::Str).collect()),
        );
        return Ok(Value::Map(m));
    }
    let g = client
        .cmd(tgt, &tgt_type, fun, arg, kwarg, timeout, GATHER_JOB_TIMEOUT)
        .await
        .map_err(internal)?;
    let full = full_return(chunk);
    let mut out = Map::default();
    for (id, r) in g.returns {
        let ret = r.ret.unpack();
        out.insert(
            id,
            if full {
                // Salt's full return: the jid, the value and its retcode.
                let mut m = Map::default();
                m.insert("jid".into(), Value::Str(g.jid.clone()));
                m.insert("ret".into(), ret);
                m.insert("retcode".into(), Value::Int(r.retcode));
                Value::Map(m)
            } else {
                ret
            },
        );
    }
    Ok(Value::Map(out))
}

/// The run's `salt/run/<jid>/...` or `salt/wheel/<jid>/...` events, as
/// `brine-run` and the reactor fire them, by the logged-in user.
fn announce<'a>(
    ctx: &'a ApiContext,
    side: MasterSide,
    user: &'a str,
    fun: &'a str,
    call: &CallArgs,
    jid: &str,
) -> Announce<'a> {
    let mut a = Announce::new(&ctx.cfg.master.sock_dir, side, fun, user, call);
    a.jid = jid.to_string();
    a
}

async fn runner(
    ctx: &ApiContext,
    user: &str,
    fun: &str,
    call: CallArgs,
    jid: &str,
) -> Result<Value, ApiError> {
    let mut call = call;
    let mut a = announce(ctx, MasterSide::Runner, user, fun, &call, jid);
    runners::job::hand_jid(fun, &mut call, &mut a);
    runners::job::install_steps();
    // The event socket is a blocking client.
    tokio::task::block_in_place(|| a.fire_new());
    let answer = runners::run(&ctx.cfg.master, fun, call).await;
    let data = match answer {
        Ok(Answer::Data { data, .. }) => data,
        Ok(Answer::Returns { mut returns, .. }) => {
            let mut m = Map::default();
            returns
                .for_each(KeyOrder::AsGiven, &mut |k, v| {
                    m.insert(k.to_string(), v);
                    Ok(())
                })
                .map_err(internal)?;
            Value::Map(m)
        }
        Err(e) => {
            tokio::task::block_in_place(|| a.fire_ret(Value::Str(e.to_string()), false));
            return Err(runner_error(e));
        }
    };
    tokio::task::block_in_place(|| a.fire_ret(data.clone(), true));
    Ok(data)
}

fn runner_error(e: RunnerError) -> ApiError {
    match e {
        RunnerError::NotAvailable(f) => ApiError::bad_request(format!("'{f}' is not available")),
        RunnerError::InvalidArguments(m) | RunnerError::InvalidKeywords(m) => {
            ApiError::bad_request(format!("Passed invalid arguments: {m}"))
        }
        e => internal(e),
    }
}

async fn wheel_call(
    ctx: &Arc<ApiContext>,
    session: &Session,
    fun: &str,
    call: CallArgs,
    jid: &str,
) -> Result<Value, ApiError> {
    let a = announce(ctx, MasterSide::Wheel, &session.user, fun, &call, jid);
    tokio::task::block_in_place(|| a.fire_new());
    let c = ctx.clone();
    let f = fun.to_string();
    let ran = tokio::task::spawn_blocking(move || wheel::run(&c.cfg.master, &f, call))
        .await
        .map_err(internal)?;
    match &ran {
        Ok(v) => tokio::task::block_in_place(|| a.fire_ret(v.clone(), true)),
        Err(e) => tokio::task::block_in_place(|| a.fire_ret(Value::Str(e.to_string()), false)),
    }
    let (ret, success) = match ran {
        Ok(v) => (v, true),
        Err(wheel::WheelError::NotAvailable(f)) => {
            return Err(ApiError::bad_request(format!("'{f}' is not available")))
        }
        Err(e) => (Value::Str(e.to_string()), false),
    };
    let tag = format!("salt/wheel/{jid}");
    let mut data = Map::default();
    data.insert("fun".into(), Value::Str(format!("wheel.{fun}")));
    data.insert("jid".into(), Value::Str(jid.to_string()));
    data.insert("tag".into(), Value::Str(tag.clone()));
    data.insert("user".into(), Value::Str(session.user.clone()));
    data.insert("_stamp".into(), Value::Str(stamp()));
    data.insert("return".into(), ret);
    data.insert("success".into(), Value::Bool(success));
    let mut m = Map::default();
    m.insert("tag".into(), Value::Str(tag));
    m.insert("data".into(), Value::Map(data));
    Ok(Value::Map(m))
}
