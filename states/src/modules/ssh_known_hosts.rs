//! The `ssh_known_hosts` state module (Salt's
//! `salt/states/ssh_known_hosts.py`): a host's keys in a known_hosts file
//! (a user's, or `config` as an absolute path), through `ssh-keygen` as
//! Salt does; without `key`, the host's keys are fetched with
//! `ssh-keyscan`.

use super::ssh::known_hosts::{self, entries_value, Set, Wanted};
use crate::{StateCall, StateFunction, StateModule, StateReturn};
use brine_core::sig;
use brine_core::{Map, Value};

/// The `ssh_known_hosts` state module.
pub static MODULE: StateModule = StateModule {
    name: "ssh_known_hosts",
    doc: "Host keys in a known_hosts file.",
    functions: &[
        StateFunction::new(
            "absent",
            sig!(name, user = null, config = null),
            "Remove the host NAME from USER's known_hosts file (or the absolute \
CONFIG; /etc/ssh/ssh_known_hosts without a user).",
            absent,
        ),
        StateFunction::new(
            "present",
            sig!(
                name,
                user = null,
                fingerprint = null,
                key = null,
                port = null,
                enc = null,
                config = null,
                hash_known_hosts = true,
                timeout = 5,
                fingerprint_hash_type = null
            ),
            "Make sure the host NAME (PORT) is in USER's known_hosts file (or the \
absolute CONFIG) with KEY of type ENC, or with the keys ssh-keyscan gets from it \
(checked against FINGERPRINT when given); HASH_KNOWN_HOSTS hashes the names.",
            present,
        ),
    ],
};

fn opt(call: &StateCall, k: &str) -> Option<String> {
    call.arg(k)
        .filter(|v| !v.is_null() && v.is_truthy())
        .map(Value::to_python_str)
}

fn port_of(call: &StateCall) -> Option<i64> {
    match call.arg("port") {
        Some(Value::Int(i)) => Some(*i),
        Some(Value::Str(s)) => s.trim().parse().ok(),
        _ => None,
    }
}

/// The file named in comments: CONFIG as given, else the default.
fn config_of(call: &StateCall, user: Option<&str>) -> String {
    opt(call, "config").unwrap_or_else(|| {
        if user.is_some() {
            ".ssh/known_hosts".into()
        } else {
            "/etc/ssh/ssh_known_hosts".into()
        }
    })
}

fn failed(mut r: StateReturn, comment: String) -> StateReturn {
    r.result = Some(false);
    r.comment = comment;
    r
}

fn present(call: &StateCall) -> StateReturn {
    let name = call.name().to_string();
    let mut r = StateReturn::new(&name);
    r.result = if call.test { None } else { Some(true) };
    let user = opt(call, "user");
    let config = config_of(call, user.as_deref());
    if user.is_none() && !config.starts_with('/') {
        return failed(
            r,
            "If not specifying a \"user\", specify an absolute \"config\".".into(),
        );
    }
    let key = opt(call, "key");
    let fingerprint = opt(call, "fingerprint");
    let enc = opt(call, "enc");
    let hash = opt(call, "fingerprint_hash_type");
    let port = port_of(call);
    if call.test {
        if key.is_some() && fingerprint.is_some() {
            return failed(
                r,
                "Specify either \"key\" or \"fingerprint\", not both.".into(),
            );
        }
        if key.is_some() && enc.is_none() {
            return failed(
                r,
                "Required argument \"enc\" if using \"key\" argument.".into(),
            );
        }
        let checked = known_hosts::check(
            user.as_deref(),
            &name,
            key.as_deref(),
            fingerprint.as_deref(),
            Some(&config),
            port,
            hash.as_deref(),
        );
        return match checked {
            Err(e) => failed(r, format!("ssh.check_known_host error: {e}")),
            Ok("exists") => {
                r.result = Some(true);
                r.comment = format!("Host {name} is already in {config}");
                r
            }
            Ok("add") => {
                r.comment = format!("Key for {name} is set to be added to {config}");
                r
            }
            Ok(_) => {
                r.comment = format!("Key for {name} is set to be updated in {config}");
                r
            }
        };
    }
    let timeout = match call.arg("timeout") {
        Some(Value::Int(i)) => *i,
        _ => 5,
    };
    let set = known_hosts::set(&Wanted {
        user: user.as_deref(),
        host: &name,
        fingerprint: fingerprint.as_deref(),
        key: key.as_deref(),
        port,
        enc: enc.as_deref(),
        config: Some(&config),
        hashed: call.arg("hash_known_hosts").is_none_or(Value::is_truthy),
        timeout,
        hash_type: hash.as_deref(),
    });
    match set {
        Err(e) => failed(r, crate::raised(e)),
        Ok(Set::Exists) => {
            r.comment = format!("{name} already exists in {config}");
            r
        }
        Ok(Set::Error(e)) => failed(r, e),
        Ok(Set::Updated { old, new }) => {
            r.changes.insert("old".into(), entries_value(&old));
            r.changes.insert(
                "new".into(),
                Value::List(new.iter().map(|e| e.to_value()).collect()),
            );
            let first = new.first();
            r.comment = if key.is_some() {
                format!(
                    "{name}'s key saved to {config} (key: {})",
                    first.map(|e| e.key.as_str()).unwrap_or_default()
                )
            } else if fingerprint.is_some() {
                format!(
                    "{name}'s key saved to {config} (fingerprint: {})",
                    first
                        .and_then(|e| e.fingerprint.as_deref())
                        .unwrap_or_default()
                )
            } else if let Some(enc) = &enc {
                format!(
                    "{name}'s {enc} key saved to {config} (key: {})",
                    first.map(|e| e.key.as_str()).unwrap_or_default()
                )
            } else {
                format!("{name}'s key(s) saved to {config}")
            };
            r
        }
    }
}

fn absent(call: &StateCall) -> StateReturn {
    let name = call.name().to_string();
    let mut r = StateReturn::new(&name);
    let user = opt(call, "user");
    let config = config_of(call, user.as_deref());
    if user.is_none() && !config.starts_with('/') {
        return failed(
            r,
            "If not specifying a \"user\", specify an absolute \"config\".".into(),
        );
    }
    // Salt takes the lookup's error (a user that does not exist) for
    // entries found: test mode predicts a removal, the removal fails.
    let (known, lookup_failed) =
        match known_hosts::get_entries(user.as_deref(), &name, Some(&config), None, None) {
            Err(e) => return failed(r, crate::raised(e)),
            Ok(Err(_)) => (Vec::new(), true),
            Ok(Ok(k)) => (k, false),
        };
    if known.is_empty() && !lookup_failed {
        r.comment = "Host is already absent".into();
        return r;
    }
    if call.test {
        r.result = None;
        r.comment = format!("Key for {name} is set to be removed from {config}");
        return r;
    }
    match known_hosts::remove(user.as_deref(), &name, Some(&config), None) {
        Err(e) => failed(r, crate::raised(e)),
        Ok(Err(e)) => failed(r, e),
        Ok(Ok(out)) => {
            let mut changes = Map::default();
            changes.insert("old".into(), entries_value(&known));
            changes.insert("new".into(), Value::Null);
            r.changes = changes;
            r.comment = out;
            r
        }
    }
}
