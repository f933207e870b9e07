//! salt-api's `rest_cherrypy` URLs over HTTP: `/` (the clients; a
//! lowstate), `/login`, `/logout`, `/minions[/id]`, `/jobs[/jid]`,
//! `/keys[/id]`, `/run` (credentials in each chunk). Bodies are JSON,
//! YAML or a form; the token comes in `X-Auth-Token` or the
//! `session_id` cookie. Bounded: the body (`max_request_body_size`),
//! requests served at once (`thread_pool`; past it 503), login attempts
//! per address (past [`LOGINS_PER_MINUTE`] a minute, 429).

use super::app;
use super::context::ApiContext;
use super::events;
use super::lowstate::{self, CLIENTS};
use super::reply::{self, ApiError};
use crate::eauth::caller::LoginRate;
pub use crate::eauth::caller::LOGINS_PER_MINUTE;
use crate::eauth::tokens::Session;
use crate::eauth::Login;
use axum::body::Bytes;
use axum::extract::{ConnectInfo, DefaultBodyLimit, Path, Query, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Router;
use brine_core::{Map, Value};
use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

type Ctx = State<Arc<Server>>;

/// How long a request's body may take to arrive (as its headers may:
/// [`super::listen::HEADER_TIMEOUT`]).
pub const BODY_TIMEOUT: Duration = super::listen::HEADER_TIMEOUT;

/// rest_cherrypy's session cookie lifetime (CherryPy's 600 minutes).
const SESSION_SECONDS: u64 = 36_000;

/// The server's state: the context every request shares, and the login
/// counts per address.
pub struct Server {
    pub ctx: Arc<ApiContext>,
    logins: LoginRate,
    /// Event streams served at once.
    streams: Arc<tokio::sync::Semaphore>,
}

/// The routes, over `ctx`.
pub fn router(ctx: Arc<ApiContext>) -> Router {
    let limit = ctx.cfg.max_body;
    let hook = format!("{}/{{*path}}", ctx.cfg.webhook_url);
    let server = Arc::new(Server {
        ctx,
        logins: LoginRate::default(),
        streams: Arc::new(tokio::sync::Semaphore::new(events::MAX_STREAMS)),
    });
    Router::new()
        .route("/events", get(events_stream))
        .route(&hook, post(webhook))
        .route("/", get(index).post(lowstate_post))
        .route("/login", post(login))
        .route("/logout", post(logout))
        .route("/minions", get(minions_all).post(minions_post))
        .route("/minions/{mid}", get(minions_one))
        .route("/jobs", get(jobs_all))
        .route("/jobs/{jid}", get(jobs_one))
        .route("/keys", get(keys_all))
        .route("/keys/{mid}", get(keys_one))
        .route("/run", post(run))
        .route("/stats", get(stats))
        .layer(DefaultBodyLimit::max(limit))
        .layer(axum::middleware::from_fn_with_state(
            server.clone(),
            whole_body,
        ))
        .layer(axum::middleware::from_fn_with_state(
            server.clone(),
            console,
        ))
        .with_state(server)
}

/// A body must arrive whole within [`BODY_TIMEOUT`] and
/// `max_request_body_size`: a peer sending it a byte at a time holds its
/// connection no longer than one sending its headers so (413 past the
/// size, read no further; 408 past the time).
async fn whole_body(
    State(s): Ctx,
    req: axum::extract::Request,
    next: axum::middleware::Next,
) -> Response {
    let (parts, body) = req.into_parts();
    let limit = s.ctx.cfg.max_body;
    match tokio::time::timeout(BODY_TIMEOUT, axum::body::to_bytes(body, limit)).await {
        Ok(Ok(bytes)) => {
            next.run(axum::extract::Request::from_parts(
                parts,
                axum::body::Body::from(bytes),
            ))
            .await
        }
        Ok(Err(_)) => ApiError::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            "The entity sent with the request exceeds the maximum allowed bytes.",
        )
        .into_response(),
        Err(_) => ApiError::new(
            StatusCode::REQUEST_TIMEOUT,
            "The request body did not arrive in time.",
        )
        .into_response(),
    }
}

/// A page or file of the web console (`app`, `static`), before any route.
async fn console(
    State(s): Ctx,
    req: axum::extract::Request,
    next: axum::middleware::Next,
) -> Response {
    let page = app::wants_page(req.headers());
    let (method, path) = (req.method().clone(), req.uri().path().to_string());
    match app::answer(&s.ctx.cfg.app, &method, &path, page).await {
        Some(r) => r,
        None => next.run(req).await,
    }
}

/// A request's body as data: JSON, YAML or a form (repeated keys become
/// a list; `arg` is always one).
fn body_data(headers: &HeaderMap, body: &[u8]) -> Result<Value, ApiError> {
    if body.iter().all(u8::is_ascii_whitespace) {
        return Ok(Value::Null);
    }
    let ctype = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_ascii_lowercase();
    let bad = |e: String| ApiError::bad_request(format!("Could not parse the request body: {e}"));
    if ctype.starts_with("application/x-www-form-urlencoded") {
        let mut m = Map::default();
        for (k, v) in form_urlencoded::parse(body) {
            let v = Value::Str(v.into_owned());
            match m.get_mut(k.as_ref()) {
                Some(Value::List(l)) => l.push(v),
                Some(old) => {
                    let first = std::mem::replace(old, Value::Null);
                    *old = Value::List(vec![first, v]);
                }
                None => {
                    m.insert(k.into_owned(), v);
                }
            }
        }
        return Ok(Value::Map(m));
    }
    let text = std::str::from_utf8(body).map_err(|e| bad(e.to_string()))?;
    if ctype.contains("yaml") {
        return brine_core::yaml::load(text).map_err(|e| bad(e.to_string()));
    }
    serde_json::from_str::<serde_json::Value>(text)
        .map(|j| Value::from_json(&j))
        .map_err(|e| bad(e.to_string()))
}

/// The chunks of a lowstate body: a list of mappings, or one mapping.
fn chunks(v: Value) -> Result<Vec<Map>, ApiError> {
    match v {
        Value::Map(m) => Ok(vec![m]),
        Value::List(l) => l
            .into_iter()
            .map(|c| match c {
                Value::Map(m) => Ok(m),
                _ => Err(ApiError::bad_request("Lowstates must be a list")),
            })
            .collect(),
        _ => Err(ApiError::bad_request("Lowstates must be a list")),
    }
}

/// The token a request carries: `X-Auth-Token`, else the session cookie.
fn token_of(headers: &HeaderMap) -> Option<String> {
    if let Some(t) = headers.get("x-auth-token").and_then(|v| v.to_str().ok()) {
        return Some(t.trim().to_string());
    }
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|c| c.split(';'))
        .find_map(|kv| {
            let (k, v) = kv.trim().split_once('=')?;
            (k == "session_id").then(|| v.trim_matches('"').to_string())
        })
}

/// The caller's live session, or Salt's 401.
fn session(s: &Server, headers: &HeaderMap) -> Result<Session, ApiError> {
    live(s, token_of(headers))
}

/// The live session of `token` (hex digits, as Salt checks them), or
/// Salt's 401.
fn live(s: &Server, token: Option<String>) -> Result<Session, ApiError> {
    token
        .filter(|t| !t.is_empty() && t.chars().all(|c| c.is_ascii_hexdigit()))
        .and_then(|t| s.ctx.tokens.get(&t))
        .ok_or_else(ApiError::no_permission)
}

/// One of the requests served at once, or 503 when all are taken.
fn slot(s: &Server) -> Result<tokio::sync::SemaphorePermit<'_>, ApiError> {
    s.ctx.slots.try_acquire().map_err(|_| {
        ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            "Too many requests are being served; try again",
        )
    })
}

fn wrap(key: &str, v: Value) -> Value {
    let mut m = Map::default();
    m.insert(key.into(), v);
    Value::Map(m)
}

async fn index(headers: HeaderMap) -> Response {
    let mut m = Map::default();
    m.insert(
        "clients".into(),
        Value::List(CLIENTS.iter().map(|c| Value::Str(c.to_string())).collect()),
    );
    m.insert("return".into(), Value::Str("Welcome".into()));
    reply::data(&headers, StatusCode::OK, &Value::Map(m))
}

/// Run `chunks` for `session`, each answer in order.
async fn run_chunks(s: &Server, sess: &Session, chunks: Vec<Map>) -> Result<Vec<Value>, ApiError> {
    let mut out = Vec::with_capacity(chunks.len());
    for c in &chunks {
        lowstate::run_into(&s.ctx, sess, c, &mut out).await?;
    }
    Ok(out)
}

async fn lowstate_post(
    State(s): Ctx,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Response, ApiError> {
    let _slot = slot(&s)?;
    let sess = session(&s, &headers)?;
    let chunks = chunks(body_data(&headers, &body)?)?;
    let out = run_chunks(&s, &sess, chunks).await?;
    Ok(returned(&headers, Value::List(out)))
}

/// Check `creds` (username, password, eauth) — in a blocking thread:
/// PAM may sleep on a wrong password.
async fn authenticate(s: &Server, creds: &Map) -> Result<Login, String> {
    let get = |k: &str| creds.get(k).map(Value::to_python_str).unwrap_or_default();
    let (user, password, backend) = (get("username"), get("password"), get("eauth"));
    if user.is_empty() || backend.is_empty() {
        return Err("a login needs username and eauth".into());
    }
    if user.len() > 256 || user.chars().any(char::is_control) {
        return Err("a username of more than 256 characters, or with control characters".into());
    }
    let eauth = s.ctx.cfg.eauth.clone();
    tokio::task::spawn_blocking(move || eauth.login(&backend, &user, &password))
        .await
        .map_err(|e| e.to_string())?
        .map_err(|e| e.to_string())
}

async fn login(
    State(s): Ctx,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Response, ApiError> {
    if !s.logins.allow(Some(peer.ip())) {
        tracing::warn!(
            "{}: too many login attempts; refused for a minute",
            peer.ip()
        );
        return Err(ApiError::new(
            StatusCode::TOO_MANY_REQUESTS,
            "Too many login attempts; try again in a minute",
        ));
    }
    let creds = match body_data(&headers, &body)? {
        Value::Map(m) => m,
        Value::List(l) => match l.into_iter().next() {
            Some(Value::Map(m)) => m,
            _ => Map::default(),
        },
        _ => Map::default(),
    };
    let login = authenticate(&s, &creds).await.map_err(|why| {
        tracing::warn!("{}: login refused: {why}", peer.ip());
        ApiError::bad_login()
    })?;
    let shown = s.ctx.cfg.eauth.shown(&login);
    let sess = s
        .ctx
        .tokens
        .mint(
            &login.user,
            &login.eauth,
            login.perms,
            login.groups,
            s.ctx.cfg.token_expire,
        )
        .map_err(|e| ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()))?;
    tracing::info!("{}: {} logged in ({})", peer.ip(), sess.user, sess.eauth);
    let mut m = Map::default();
    m.insert("token".into(), Value::Str(sess.token.clone()));
    m.insert("expire".into(), Value::Float(sess.expire));
    m.insert("start".into(), Value::Float(sess.start));
    m.insert("user".into(), Value::Str(sess.user.clone()));
    m.insert("eauth".into(), Value::Str(sess.eauth.clone()));
    m.insert(
        "perms".into(),
        if shown.is_empty() {
            Value::new_map()
        } else {
            Value::List(shown)
        },
    );
    let mut r = returned(&headers, Value::List(vec![Value::Map(m)]));
    if let Ok(v) = HeaderValue::from_str(&sess.token) {
        r.headers_mut().insert("x-auth-token", v);
    }
    // CherryPy's session lasts its own ten hours, whatever token_expire.
    if let Ok(v) = HeaderValue::from_str(&format!(
        "session_id={}; expires={}; Max-Age={SESSION_SECONDS}; Path=/",
        sess.token,
        httpdate(sess.start + SESSION_SECONDS as f64),
    )) {
        r.headers_mut().insert(header::SET_COOKIE, v);
    }
    Ok(r)
}

/// An HTTP date (for the cookie's `expires`).
fn httpdate(epoch: f64) -> String {
    chrono::DateTime::from_timestamp(epoch as i64, 0)
        .map(|d| d.format("%a, %d %b %Y %H:%M:%S GMT").to_string())
        .unwrap_or_default()
}

async fn logout(State(s): Ctx, headers: HeaderMap) -> Result<Response, ApiError> {
    let sess = session(&s, &headers)?;
    s.ctx.tokens.remove(&sess.token);
    Ok(returned(
        &headers,
        Value::Str("Your token has been cleared".into()),
    ))
}

/// A call the URL routes make for the caller: `client` running `fun` (on
/// `tgt`, with `arg` as its one argument, when given).
async fn call(
    s: &Server,
    headers: &HeaderMap,
    client: &str,
    fun: &str,
    tgt: Option<&str>,
    arg: Option<&str>,
) -> Result<Value, ApiError> {
    let _slot = slot(s)?;
    let sess = session(s, headers)?;
    let text = |v: &str| Value::Str(v.to_string());
    let mut chunk = Map::default();
    chunk.insert("client".into(), text(client));
    chunk.insert("fun".into(), text(fun));
    if let Some(t) = tgt {
        chunk.insert("tgt".into(), text(t));
    }
    if let Some(a) = arg {
        chunk.insert("arg".into(), Value::List(vec![text(a)]));
    }
    lowstate::run(&s.ctx, &sess, &chunk).await
}

/// `{return: v}` with status 200, as the request asked it formatted.
fn returned(headers: &HeaderMap, v: Value) -> Response {
    reply::data(headers, StatusCode::OK, &wrap("return", v))
}

async fn minions(s: &Server, headers: &HeaderMap, tgt: &str) -> Result<Response, ApiError> {
    let v = call(s, headers, "local", "grains.items", Some(tgt), None).await?;
    Ok(returned(headers, Value::List(vec![v])))
}

async fn minions_all(State(s): Ctx, headers: HeaderMap) -> Result<Response, ApiError> {
    minions(&s, &headers, "*").await
}

async fn minions_one(
    State(s): Ctx,
    Path(mid): Path<String>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    minions(&s, &headers, &mid).await
}

/// POST /minions: each chunk published (`local_async`), 202 with links
/// to the jobs.
async fn minions_post(
    State(s): Ctx,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Response, ApiError> {
    let _slot = slot(&s)?;
    let sess = session(&s, &headers)?;
    let mut list = chunks(body_data(&headers, &body)?)?;
    for c in &mut list {
        c.insert("client".into(), Value::Str("local_async".into()));
    }
    let out = run_chunks(&s, &sess, list).await?;
    let links: Vec<Value> = out
        .iter()
        .filter_map(|r| r.get("jid").map(Value::to_python_str))
        .map(|jid| wrap("href", Value::Str(format!("/jobs/{jid}"))))
        .collect();
    let mut m = Map::default();
    m.insert("return".into(), Value::List(out));
    m.insert("_links".into(), wrap("jobs", Value::List(links)));
    Ok(reply::data(&headers, StatusCode::ACCEPTED, &Value::Map(m)))
}

async fn jobs_all(State(s): Ctx, headers: HeaderMap) -> Result<Response, ApiError> {
    let v = call(&s, &headers, "runner", "jobs.list_jobs", None, None).await?;
    Ok(returned(&headers, Value::List(vec![v])))
}

async fn jobs_one(
    State(s): Ctx,
    Path(jid): Path<String>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let info = call(&s, &headers, "runner", "jobs.list_job", None, Some(&jid)).await?;
    let ret = call(&s, &headers, "runner", "jobs.lookup_jid", None, Some(&jid)).await?;
    let mut m = Map::default();
    m.insert("info".into(), Value::List(vec![info]));
    m.insert("return".into(), Value::List(vec![ret]));
    Ok(reply::data(&headers, StatusCode::OK, &Value::Map(m)))
}

/// A wheel answer's `data.return`.
fn wheel_return(v: Value) -> Value {
    v.get("data")
        .and_then(|d| d.get("return"))
        .cloned()
        .unwrap_or(Value::Null)
}

/// `/stats`: what this server holds now (salt-api shows CherryPy's
/// counters; brine-api its own), for a logged-in caller.
async fn stats(State(s): Ctx, headers: HeaderMap) -> Result<Response, ApiError> {
    session(&s, &headers)?;
    let cfg = &s.ctx.cfg;
    let mut m = Map::default();
    let mut put = |k: &str, v: usize| {
        m.insert(k.into(), Value::Int(i64::try_from(v).unwrap_or(i64::MAX)));
    };
    put("Requests At Once", cfg.max_requests);
    put(
        "Requests Being Served",
        cfg.max_requests
            .saturating_sub(s.ctx.slots.available_permits()),
    );
    put("Event Streams At Once", events::MAX_STREAMS);
    put(
        "Event Streams Open",
        events::MAX_STREAMS.saturating_sub(s.streams.available_permits()),
    );
    put("Max Request Body", cfg.max_body);
    Ok(reply::data(
        &headers,
        StatusCode::OK,
        &wrap("brine-api", Value::Map(m)),
    ))
}

async fn keys_all(State(s): Ctx, headers: HeaderMap) -> Result<Response, ApiError> {
    let v = call(&s, &headers, "wheel", "key.list_all", None, None).await?;
    Ok(returned(&headers, wheel_return(v)))
}

async fn keys_one(
    State(s): Ctx,
    Path(mid): Path<String>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let v = call(&s, &headers, "wheel", "key.finger", None, Some(&mid)).await?;
    Ok(returned(&headers, wheel_return(v)))
}

/// GET /events: the master's events as server-sent events, for a token
/// given as `?token=` (or `salt_token=`), `X-Auth-Token` or the cookie.
async fn events_stream(
    State(s): Ctx,
    Query(q): Query<HashMap<String, String>>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let token = q
        .get("token")
        .or_else(|| q.get("salt_token"))
        .cloned()
        .or_else(|| token_of(&headers));
    let token = live(&s, token)?.token;
    let permit = s.streams.clone().try_acquire_owned().map_err(|_| {
        ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            "Too many event streams are open; try again",
        )
    })?;
    let (tx, rx) = tokio::sync::mpsc::channel::<String>(events::STREAM_BUFFER);
    let m = &s.ctx.cfg.master;
    let (sock_dir, max) = (m.sock_dir.clone(), m.events.max_event_size);
    let listener = tokio::task::spawn_blocking(move || events::subscribe(sock_dir, max))
        .await
        .map_err(|e| e.to_string())
        .and_then(|r| r)
        .map_err(|e| {
            tracing::warn!("/events: {e}");
            ApiError::new(
                StatusCode::SERVICE_UNAVAILABLE,
                "The master's event bus takes no more subscribers; try again",
            )
        })?;
    let ctx = s.ctx.clone();
    let queued = events::Queued::default();
    let q = queued.clone();
    tokio::task::spawn_blocking(move || {
        let _permit = permit;
        events::pump(listener, tx, q, || ctx.tokens.get(&token).is_some());
    });
    let stream = futures_util::stream::unfold((rx, queued), |(mut rx, queued)| async move {
        let s = rx.recv().await?;
        queued.fetch_sub(s.len(), std::sync::atomic::Ordering::AcqRel);
        Some((Ok::<_, std::convert::Infallible>(s), (rx, queued)))
    });
    let mut r = Response::new(axum::body::Body::from_stream(stream));
    let h = r.headers_mut();
    h.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/event-stream;charset=utf-8"),
    );
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    Ok(r)
}

/// POST /hook/<path> (`webhook_url`): the request as the event
/// `salt/netapi/hook/<path>`; authenticated unless `webhook_disable_auth`.
async fn webhook(
    State(s): Ctx,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    Path(path): Path<String>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Response, ApiError> {
    let _slot = slot(&s)?;
    if !s.ctx.cfg.webhook_disable_auth {
        session(&s, &headers)?;
    }
    let post = match body_data(&headers, &body)? {
        Value::Null => Value::new_map(),
        v => v,
    };
    let mut hdrs = Map::default();
    hdrs.insert("Remote-Addr".into(), Value::Str(peer.ip().to_string()));
    for (k, v) in &headers {
        if let Ok(v) = v.to_str() {
            hdrs.insert(events::header_name(k.as_str()), Value::Str(v.to_string()));
        }
    }
    let raw = String::from_utf8_lossy(&body).into_owned();
    let sock_dir = s.ctx.cfg.master.sock_dir.clone();
    let fired =
        tokio::task::spawn_blocking(move || events::fire_hook(&sock_dir, &path, raw, post, hdrs))
            .await
            .unwrap_or_else(|e| Err(e.to_string()));
    if let Err(e) = &fired {
        tracing::warn!("/hook: the event was not fired: {e}");
    }
    Ok(reply::data(
        &headers,
        StatusCode::OK,
        &wrap("success", Value::Bool(fired.is_ok())),
    ))
}

/// POST /run: each chunk carries `username`, `password`, `eauth`.
async fn run(
    State(s): Ctx,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Response, ApiError> {
    let _slot = slot(&s)?;
    let list = chunks(body_data(&headers, &body)?)?;
    let mut out = Vec::with_capacity(list.len());
    for c in list {
        if !s.logins.allow(Some(peer.ip())) {
            return Err(ApiError::new(
                StatusCode::TOO_MANY_REQUESTS,
                "Too many login attempts; try again in a minute",
            ));
        }
        let login = authenticate(&s, &c).await.map_err(|why| {
            tracing::warn!("{}: /run refused: {why}", peer.ip());
            ApiError::new(StatusCode::UNAUTHORIZED, "Authentication error occurred.")
        })?;
        let sess = Session {
            token: String::new(),
            user: login.user,
            eauth: login.eauth,
            start: 0.0,
            expire: 0.0,
            perms: login.perms,
            groups: login.groups,
        };
        lowstate::run_into(&s.ctx, &sess, &c, &mut out).await?;
    }
    Ok(returned(&headers, Value::List(out)))
}
