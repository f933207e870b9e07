//! Salt's `event` module: events a minion fires on its master's bus
//! (`fire_master`, `send`), carried there as the master's `_minion_event`
//! (tag, data, the minion's id). A masterless minion has no bus to fire
//! on: Salt warns and answers False, and so does brine. `fire` puts an
//! event on the minion's own bus: the minion daemon's (`brine-call` hands
//! it to a daemon running on the host); with none, nothing takes it and
//! the answer is False, as Salt's.

use super::function::{sig, CallError, Function, Return};
use super::params::Params;
use crate::context::{CompileSource, Minion};
use brine_core::{Map, Value};

pub(super) const FUNCTIONS: &[Function] = &[
    Function::minion(
        "fire",
        sig!(data, tag),
        "Fire an event with DATA and TAG on the minion's own event bus (the running \
minion daemon's; the tag fire_master forwards data's data and tag to the master). \
False when no minion daemon took it.\n\n    \
brine '*' event.fire '{\"data\": \"my event data\"}' 'tag'",
        fire_local,
    ),
    Function::minion(
        "fire_master",
        sig!(data, tag, preload = null),
        "Fire an event with DATA and TAG on the master's bus; False when it could \
not be sent (masterless, the master unreachable).\n\n    \
brine '*' event.fire_master '{\"data\": \"my event data\"}' 'tag'",
        fire_master,
    ),
    Function::minion(
        "send",
        sig!(
            tag,
            data = null,
            preload = null,
            with_env = false,
            with_grains = false,
            with_pillar = false,
            with_env_opts = false,
            **kwargs
        ),
        "Fire TAG on the master's bus with DATA over the other keyword arguments \
(the publish metadata included), and with_grains/with_pillar/with_env (True, or a \
list of keys) and with_env_opts (saltenv, pillarenv).\n\n    \
brine '*' event.send my/custom/event '{\"a\": 1}' with_grains=True",
        send,
    ),
];

fn fire_master(m: &mut Minion, mut p: Params) -> Result<Return, CallError> {
    let data = p.require("data")?;
    let tag = p.require_str("tag")?;
    p.take("preload");
    p.finish()?;
    Ok(Value::Bool(fire(m, &tag, data)).into())
}

fn fire_local(m: &mut Minion, mut p: Params) -> Result<Return, CallError> {
    let data = p.require("data")?;
    let tag = p.require_str("tag")?;
    p.finish()?;
    // The daemon's bus is where the daemon runs this (its schedule is
    // here); nothing else listens on it but the daemon itself.
    if m.schedule.is_none() {
        return Ok(Value::Bool(false).into());
    }
    if tag.starts_with("fire_master") {
        let inner = data.as_map();
        let field = |k: &str| inner.and_then(|d| d.get(k)).cloned();
        if let (Some(d), Some(Value::Str(t))) = (field("data"), field("tag")) {
            return Ok(Value::Bool(fire(m, &t, d)).into());
        }
    }
    Ok(Value::Bool(true).into())
}

/// `keys` of `from`, or all of it when `keys` is not a list (Salt's
/// `_dict_subset` and `.value()`).
fn subset(keys: &Value, from: &Map) -> Value {
    match keys {
        Value::List(l) => Value::Map(
            l.iter()
                .filter_map(|k| {
                    let k = k.to_python_str();
                    from.get(&k).map(|v| (k, v.clone()))
                })
                .collect(),
        ),
        _ => Value::Map(from.clone()),
    }
}

fn send(m: &mut Minion, mut p: Params) -> Result<Return, CallError> {
    let tag = p.require_str("tag")?;
    let data = p.take("data");
    p.take("preload");
    let flag = |v: Option<Value>| v.filter(Value::is_truthy);
    let with_env = flag(p.take("with_env"));
    let with_grains = flag(p.take("with_grains"));
    let with_pillar = flag(p.take("with_pillar"));
    let with_env_opts = flag(p.take("with_env_opts")).is_some();
    let kwargs = p.kwargs_with_pub("event.send");
    p.finish()?;
    let mut out = Map::default();
    if let Some(keys) = with_env {
        let env: Map = std::env::vars().map(|(k, v)| (k, Value::Str(v))).collect();
        out.insert("environ".into(), subset(&keys, &env));
    }
    if let Some(keys) = with_grains {
        out.insert("grains".into(), subset(&keys, &m.grains));
    }
    if let Some(keys) = with_pillar {
        out.insert("pillar".into(), subset(&keys, &m.pillar));
    }
    if with_env_opts {
        let saltenv = m
            .opts
            .get("saltenv")
            .filter(|v| !v.is_null())
            .cloned()
            .unwrap_or_else(|| Value::from("base"));
        out.insert("saltenv".into(), saltenv);
        out.insert(
            "pillarenv".into(),
            m.opts.get("pillarenv").cloned().unwrap_or(Value::Null),
        );
    }
    out.extend(kwargs);
    if let Some(Value::Map(d)) = data {
        out.extend(d);
    }
    Ok(Value::Bool(fire(m, &tag, Value::Map(out))).into())
}

/// Fire on the master's bus: whether the master took it.
fn fire(m: &Minion, tag: &str, data: Value) -> bool {
    match &m.source {
        CompileSource::Master(master) => match master.fire_event(tag, data) {
            Ok(()) => true,
            Err(e) => {
                tracing::warn!("event {tag} was not sent: {e}");
                false
            }
        },
        CompileSource::Local => {
            tracing::warn!("Local mode detected. Event with tag {tag} will NOT be sent.");
            false
        }
    }
}
