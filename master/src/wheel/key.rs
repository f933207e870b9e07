//! Salt's `wheel.key`: the minion keys as the reactor (and later the API)
//! manages them — list, accept, reject, delete, fingerprints — with the
//! key store `brine-key` uses, each change announced as `salt/key`.

use super::function::WheelError;
use crate::daemon::events::{client, tags, wire::Event};
use crate::daemon::MasterConfig;
use crate::keys::{KeyState, KeyStore};
use brine_core::args::CallArgs;
use brine_core::{Map, Value};
use indexmap::IndexMap;

fn store(config: &MasterConfig) -> Result<KeyStore, WheelError> {
    Ok(KeyStore::for_config(&config.pki_dir, &config.job_cache)?)
}

/// Argument `name` (at `pos`, or as a keyword); `None` when not given.
fn arg(call: &CallArgs, pos: usize, name: &str) -> Option<Value> {
    call.kwargs
        .get(name)
        .cloned()
        .or_else(|| call.args.get(pos).cloned())
}

fn flag(call: &CallArgs, pos: usize, name: &str) -> bool {
    arg(call, pos, name).is_some_and(|v| v.is_truthy())
}

fn pattern(call: &CallArgs) -> Result<String, WheelError> {
    match arg(call, 0, "match") {
        Some(Value::List(l)) => Ok(l
            .iter()
            .map(Value::to_python_str)
            .collect::<Vec<_>>()
            .join(",")),
        Some(v) => Ok(v.to_python_str()),
        None => Err(WheelError::InvalidArguments(
            "missing 1 required positional argument: 'match'".into(),
        )),
    }
}

/// Salt's `{minions: [...], minions_pre: [...], ...}` of a selection.
fn listing(by_state: IndexMap<KeyState, Vec<String>>) -> Value {
    Value::Map(
        by_state
            .into_iter()
            .map(|(s, ids)| {
                (
                    s.dir_name().to_string(),
                    Value::List(ids.into_iter().map(Value::Str).collect()),
                )
            })
            .collect(),
    )
}

/// `salt/key` for `id` (as `brine-key` fires it).
fn announce(config: &MasterConfig, id: &str, act: &str) {
    let (tag, data) = tags::key(id, act);
    let ev = Event {
        tag,
        data: Value::Map(data),
    };
    if let Err(e) = client::fire(&config.sock_dir, &[ev]) {
        tracing::debug!("no salt/key event: {e}");
    }
}

/// Every key by state, and the master's own (`local`).
pub fn list_all(config: &MasterConfig, _call: CallArgs) -> Result<Value, WheelError> {
    let store = store(config)?;
    let mut out = match listing(store.list_all()?) {
        Value::Map(m) => m,
        _ => Map::default(),
    };
    out.insert(
        "local".into(),
        Value::List(store.local_keys()?.into_iter().map(Value::Str).collect()),
    );
    Ok(Value::Map(out))
}

/// The keys of one state, `{minions: [...]}` and the like, as Salt's
/// `list_status` reads the state's name: `acc...`, `pre...`/`un...`,
/// `rej...`, `den...`, and `all...` for every state and the local keys;
/// nothing for another word.
pub fn list(config: &MasterConfig, call: CallArgs) -> Result<Value, WheelError> {
    let which = pattern(&call)?;
    let store = store(config)?;
    let state = if which.starts_with("acc") {
        KeyState::Accepted
    } else if which.starts_with("pre") || which.starts_with("un") {
        KeyState::Pending
    } else if which.starts_with("rej") {
        KeyState::Rejected
    } else if which.starts_with("den") {
        KeyState::Denied
    } else if which.starts_with("all") {
        return list_all(config, call);
    } else {
        return Ok(Value::Map(Map::default()));
    };
    let mut out = Map::default();
    out.insert(
        state.dir_name().to_string(),
        Value::List(store.list(state)?.into_iter().map(Value::Str).collect()),
    );
    Ok(Value::Map(out))
}

/// Move the matching keys of `from` states to `to`, announcing each;
/// Salt answers with the match as it stands after.
fn transition(
    config: &MasterConfig,
    pat: &str,
    from: &[KeyState],
    to: KeyState,
    act: &str,
) -> Result<Value, WheelError> {
    let store = store(config)?;
    for (state, ids) in store.matching(pat)? {
        if !from.contains(&state) {
            continue;
        }
        for id in ids {
            let moved = match to {
                KeyState::Accepted => store.accept(&id, state),
                KeyState::Rejected => store.reject(&id, state),
                _ => store.move_key(&id, state, to),
            };
            match moved {
                Ok(()) => announce(config, &id, act),
                Err(e) => tracing::error!("wheel key.{act}: {id}: {e}"),
            }
        }
    }
    Ok(listing(store.matching(pat)?))
}

/// Accept the matching pending keys (and rejected, denied ones when asked).
pub fn accept(config: &MasterConfig, call: CallArgs) -> Result<Value, WheelError> {
    let pat = pattern(&call)?;
    let mut from = vec![KeyState::Pending];
    if flag(&call, 1, "include_rejected") {
        from.push(KeyState::Rejected);
    }
    if flag(&call, 2, "include_denied") {
        from.push(KeyState::Denied);
    }
    transition(config, &pat, &from, KeyState::Accepted, "accept")
}

/// Reject the matching pending keys (and accepted, denied ones when asked).
pub fn reject(config: &MasterConfig, call: CallArgs) -> Result<Value, WheelError> {
    let pat = pattern(&call)?;
    let mut from = vec![KeyState::Pending];
    if flag(&call, 1, "include_accepted") {
        from.push(KeyState::Accepted);
    }
    if flag(&call, 2, "include_denied") {
        from.push(KeyState::Denied);
    }
    transition(config, &pat, &from, KeyState::Rejected, "reject")
}

/// Delete the matching keys, whatever their state; Salt 3007.8 answers
/// with nothing (`{}`).
pub fn delete(config: &MasterConfig, call: CallArgs) -> Result<Value, WheelError> {
    let pat = pattern(&call)?;
    let store = store(config)?;
    let matched = store.matching(&pat)?;
    for (state, ids) in &matched {
        for id in ids {
            match store.delete(id, *state) {
                Ok(()) => announce(config, id, "delete"),
                Err(e) => tracing::error!("wheel key.delete: {id}: {e}"),
            }
        }
    }
    Ok(Value::Map(Map::default()))
}

/// Salt's `key.gen_accept`: a new key pair for minion `id_`, its public
/// half accepted, both halves answered (`{pub, priv}`: brine's key files,
/// for the minion's `pki_dir`); nothing (`{}`) when `id_` already has a
/// key and `force` is not set. `keysize` is RSA's and has no meaning here.
pub fn gen_accept(config: &MasterConfig, call: CallArgs) -> Result<Value, WheelError> {
    let id = arg(&call, 0, "id_").ok_or_else(|| {
        WheelError::InvalidArguments(
            "gen_accept() missing 1 required positional argument: 'id_'".into(),
        )
    })?;
    let id = id.to_python_str();
    let force = flag(&call, 2, "force");
    let pair = brine_protocol::crypto::KeyPair::generate()
        .map_err(|e| WheelError::Failed(format!("cannot make a key pair: {e}")))?;
    if !store(config)?.add_accepted(&id, &pair.public(), force)? {
        return Ok(Value::Map(Map::default()));
    }
    announce(config, &id, "accept");
    let mut out = Map::default();
    out.insert(
        "pub".into(),
        Value::Str(brine_protocol::keys::public_to_text(&pair.public())),
    );
    out.insert(
        "priv".into(),
        Value::Str(brine_protocol::keys::secret_to_text(&pair)),
    );
    Ok(Value::Map(out))
}

/// The fingerprints of the matching keys, by state.
pub fn finger(config: &MasterConfig, call: CallArgs) -> Result<Value, WheelError> {
    let pat = pattern(&call)?;
    let store = store(config)?;
    let mut out = Map::default();
    // The master's own key files, when the pattern names them (Salt's
    // name_match with the local keys).
    let mut local = Map::default();
    for name in store.local_keys()? {
        if pat
            .split(',')
            .any(|p| brine_compile::matcher::glob::fnmatch(&name, p.trim()))
        {
            local.insert(
                name.clone(),
                Value::Str(store.read_local(&name)?.fingerprint()),
            );
        }
    }
    if !local.is_empty() {
        out.insert("local".into(), Value::Map(local));
    }
    for (state, ids) in store.matching(&pat)? {
        let mut prints = Map::default();
        for id in ids {
            let keys = store.read(state, &id)?;
            prints.insert(id, Value::Str(keys.fingerprint()));
        }
        out.insert(state.dir_name().to_string(), Value::Map(prints));
    }
    Ok(Value::Map(out))
}

#[cfg(test)]
mod tests {
    use super::*;
    use brine_protocol::crypto::KeyPair;

    fn call(args: &[&str], kwargs: &[(&str, Value)]) -> CallArgs {
        CallArgs {
            args: args.iter().map(|a| Value::from(*a)).collect(),
            kwargs: kwargs
                .iter()
                .map(|(k, v)| (k.to_string(), v.clone()))
                .collect(),
        }
    }

    #[test]
    fn keys_move_as_salts_wheel_moves_them() {
        let td = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        std::fs::write(
            td.path().join("master"),
            format!("root_dir: {}\n", td.path().display()),
        )
        .unwrap_or_else(|e| panic!("{e}"));
        let (config, _) = MasterConfig::load(td.path()).unwrap_or_else(|e| panic!("{e}"));
        let store = KeyStore::create(&config.pki_dir).unwrap_or_else(|e| panic!("{e}"));
        for id in ["web1", "web2", "db1"] {
            let keys = KeyPair::generate()
                .unwrap_or_else(|e| panic!("{e}"))
                .public();
            store
                .authenticate(id, &keys, false)
                .unwrap_or_else(|e| panic!("{e}"));
        }
        let j = |v: Value| serde_json::to_value(&v).unwrap_or_default();
        let all = j(list_all(&config, call(&[], &[])).unwrap_or(Value::Null));
        assert_eq!(
            all["minions_pre"],
            serde_json::json!(["db1", "web1", "web2"])
        );
        let got = j(accept(&config, call(&["web*"], &[])).unwrap_or(Value::Null));
        assert_eq!(got, serde_json::json!({"minions": ["web1", "web2"]}));
        let got = j(reject(&config, call(&["db1"], &[])).unwrap_or(Value::Null));
        assert_eq!(got, serde_json::json!({"minions_rejected": ["db1"]}));
        // A rejected key is accepted only when asked to include it.
        let got = j(accept(&config, call(&["db1"], &[])).unwrap_or(Value::Null));
        assert_eq!(got, serde_json::json!({"minions_rejected": ["db1"]}));
        let got = j(accept(
            &config,
            call(&["db1"], &[("include_rejected", Value::Bool(true))]),
        )
        .unwrap_or(Value::Null));
        assert_eq!(got, serde_json::json!({"minions": ["db1"]}));
        let got = j(delete(&config, call(&["web2,db1"], &[])).unwrap_or(Value::Null));
        assert_eq!(got, serde_json::json!({}));
        let got = j(list(&config, call(&["acc"], &[])).unwrap_or(Value::Null));
        assert_eq!(got, serde_json::json!({"minions": ["web1"]}));
        let prints = j(finger(&config, call(&["web1"], &[])).unwrap_or(Value::Null));
        assert!(prints["minions"]["web1"].is_string(), "{prints}");
        assert!(matches!(
            super::super::run(&config, "key.nosuch", call(&[], &[])),
            Err(WheelError::NotAvailable(_))
        ));
        assert!(matches!(
            accept(&config, call(&[], &[])),
            Err(WheelError::InvalidArguments(_))
        ));
    }
}
