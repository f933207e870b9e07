//! Salt's sdb: values kept outside the tree, named by
//! `sdb://PROFILE/KEY`. PROFILE is a key of the options (else of the
//! pillar) holding a dict whose `driver` says where the value lives:
//! [`yaml`] (files, optionally gpg-encrypted) or [`env`] (the process
//! environment). A string that is not such a uri, or names no profile, is
//! its own value; `strict` makes that an error instead.
//!
//! The options resolve their `sdb://` strings once, when they are read
//! ([`apply`], Salt's `apply_sdb`); `config.get` resolves what it finds in
//! grains and pillar too.

pub mod env;
pub mod yaml;

use brine_core::{Map, Value};

/// The start of every sdb uri.
const SCHEME: &str = "sdb://";

/// Why an sdb call failed, in the words Salt raises.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum SdbError {
    /// A bad uri or a missing profile with `strict` (Salt's
    /// `SaltInvocationError`).
    #[error("{0}")]
    Invocation(String),
    /// The driver raised (a function it lacks, a write it does not do).
    #[error("{0}")]
    Raised(String),
}

/// A uri split: the profile named and the key asked of it.
struct Uri<'u> {
    profile: &'u str,
    key: &'u str,
}

fn parse(uri: &str) -> Option<Uri<'_>> {
    let rest = uri.strip_prefix(SCHEME)?;
    let (profile, key) = rest.split_once('/')?;
    (!key.is_empty()).then_some(Uri { profile, key })
}

/// The profile called `name`: in the options, else in the pillar; a dict
/// with a `driver`.
fn profile<'a>(name: &str, opts: &'a Map, pillar: &'a Map) -> Option<&'a Map> {
    let found = opts
        .get(name)
        .filter(|v| v.is_truthy())
        .or_else(|| pillar.get(name))?;
    found.as_map().filter(|p| p.contains_key("driver"))
}

fn driver(p: &Map) -> String {
    p.get("driver")
        .map(Value::to_python_str)
        .unwrap_or_default()
}

/// What Salt's loader raises for a driver function it does not have.
fn missing(driver: &str, fun: &str) -> SdbError {
    SdbError::Raised(format!(
        "KeyError: '{driver}.{fun}' (brine's sdb drivers are yaml and env)"
    ))
}

/// `sdb.get`: the value `uri` names, or `uri` itself when it names none.
pub fn get(uri: &Value, opts: &Map, pillar: &Map, strict: bool) -> Result<Value, SdbError> {
    let Some(text) = uri.as_str().filter(|s| s.starts_with(SCHEME)) else {
        if strict {
            return Err(SdbError::Invocation(
                "SDB uri must start with \"sdb://\"".into(),
            ));
        }
        return Ok(uri.clone());
    };
    let Some(u) = parse(text) else {
        if strict {
            return Err(SdbError::Invocation(
                "SDB uri must have a profile name as a first part of the uri before the /".into(),
            ));
        }
        return Ok(uri.clone());
    };
    let Some(p) = profile(u.profile, opts, pillar) else {
        if strict {
            return Err(SdbError::Invocation(format!(
                "SDB profile \"{}\" wasnt found in the minion configuration",
                u.profile
            )));
        }
        return Ok(uri.clone());
    };
    match driver(p).as_str() {
        "yaml" => Ok(yaml::get(u.key, p, opts)),
        "env" => Ok(env::get(u.key)),
        other => Err(missing(other, "get")),
    }
}

/// `sdb.set`: what the driver answers, or False when `uri` names no
/// profile.
pub fn set(uri: &Value, value: &Value, opts: &Map, pillar: &Map) -> Result<Value, SdbError> {
    let Some(u) = uri.as_str().and_then(parse) else {
        return Ok(Value::Bool(false));
    };
    let Some(p) = profile(u.profile, opts, pillar) else {
        return Ok(Value::Bool(false));
    };
    match driver(p).as_str() {
        "yaml" => Err(SdbError::Raised(yaml::SET_REFUSED.into())),
        "env" => Ok(env::set(u.key, value)),
        other => Err(missing(other, "set")),
    }
}

/// `sdb.delete`: neither driver deletes (Salt's loader finds no
/// `delete`); False when `uri` names no profile.
pub fn delete(uri: &Value, opts: &Map, pillar: &Map) -> Result<Value, SdbError> {
    let Some(u) = uri.as_str().and_then(parse) else {
        return Ok(Value::Bool(false));
    };
    let Some(p) = profile(u.profile, opts, pillar) else {
        return Ok(Value::Bool(false));
    };
    Err(missing(&driver(p), "delete"))
}

/// Every `sdb://` string in the options (through dicts and lists)
/// replaced by its value, looked up in the options as they were read.
/// A lookup that fails is logged and the string kept.
pub fn apply(opts: &mut Map) {
    fn any_uri(v: &Value) -> bool {
        match v {
            Value::Str(s) => s.starts_with(SCHEME),
            Value::List(l) => l.iter().any(any_uri),
            Value::Map(m) => m.values().any(any_uri),
            _ => false,
        }
    }
    if !opts.values().any(any_uri) {
        return;
    }
    let read = opts.clone();
    let empty = Map::default();
    fn walk(v: &mut Value, read: &Map, empty: &Map) {
        match v {
            Value::Str(s) if s.starts_with(SCHEME) => {
                let uri = Value::Str(std::mem::take(s));
                *v = match get(&uri, read, empty, false) {
                    Ok(found) => found,
                    Err(e) => {
                        tracing::error!("{}: {e}", uri.to_python_str());
                        uri
                    }
                };
            }
            Value::List(l) => l.iter_mut().for_each(|x| walk(x, read, empty)),
            Value::Map(m) => m.values_mut().for_each(|x| walk(x, read, empty)),
            _ => {}
        }
    }
    for v in opts.values_mut() {
        walk(v, &read, &empty);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opts(text: &str) -> Map {
        brine_core::yaml::load(text)
            .unwrap()
            .as_map()
            .cloned()
            .unwrap()
    }

    #[test]
    fn uris_that_name_nothing_are_their_own_value() {
        let o = opts("p: {driver: env}\n");
        let none = Map::default();
        for uri in ["plain", "sdb://p", "sdb://p/", "sdb://nosuch/x"] {
            let v = Value::from(uri);
            assert_eq!(get(&v, &o, &none, false), Ok(v.clone()));
            assert!(matches!(
                get(&v, &o, &none, true),
                Err(SdbError::Invocation(_))
            ));
        }
        assert_eq!(
            set(&Value::from("sdb://nosuch/x"), &Value::from("v"), &o, &none),
            Ok(Value::Bool(false))
        );
    }

    #[test]
    fn options_resolve_when_read() {
        let mut o = opts(
            "p: {driver: env}\nfrom_env: sdb://p/BRINE_SDB_UNIT_UNSET\nnested: {a: [sdb://none/x]}\n",
        );
        apply(&mut o);
        assert_eq!(o["from_env"], Value::Null);
        assert_eq!(
            o["nested"].traverse("a:0", ":"),
            Some(&Value::from("sdb://none/x"))
        );
    }
}
