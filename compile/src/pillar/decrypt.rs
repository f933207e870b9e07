//! Salt's `decrypt_pillar`: at the end of a compile (after the ext_pillars
//! and the `pillar=` override), the pillar keys the option names are
//! handed to a decryption renderer (`decrypt_pillar_default`, `gpg`, unless
//! the entry names one). Keys are paths split on
//! `decrypt_pillar_delimiter` (default `:`) through dicts; a key that is
//! not there is passed over. What fails is an `_errors` entry
//! `Failed to decrypt pillar key 'KEY': WHY`, and the other keys go on.

use crate::opts;
use crate::render::decrypt;
use brine_core::{yaml, Map, Value};

/// Decrypt what `o`'s `decrypt_pillar` names in `pillar`; the errors, in
/// Salt's words.
pub fn apply(o: &Map, pillar: &mut Map) -> Vec<String> {
    let Some(spec) = o.get("decrypt_pillar").filter(|v| v.is_truthy()) else {
        return Vec::new();
    };
    let entries = match spec {
        Value::Map(m) => m
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect::<Vec<_>>(),
        other => repacked(other),
    };
    let mut errors = Vec::new();
    if entries.is_empty() {
        errors.push("decrypt_pillar config option is malformed".to_string());
    }
    let delimiter = opts::get_str(o, "decrypt_pillar_delimiter").unwrap_or(":");
    let default = opts::get_str(o, "decrypt_pillar_default").unwrap_or("gpg");
    for (key, renderer) in entries {
        let renderer = match &renderer {
            Value::Null => default.to_string(),
            r if !r.is_truthy() => default.to_string(),
            r => r.to_python_str(),
        };
        let Some(at) = find(pillar, &key, delimiter) else {
            tracing::debug!("Pillar key {key} not present");
            continue;
        };
        if let Err(why) = decrypt::decrypt(o, at, &renderer, false) {
            let msg = format!("Failed to decrypt pillar key '{key}': {why}");
            tracing::error!("{msg}");
            errors.push(msg);
        }
    }
    errors
}

/// Salt's `repack_dictlist` of a list of keys and one-entry dicts (a
/// string is read as YAML first); empty when malformed, logged as Salt
/// logs it.
fn repacked(spec: &Value) -> Vec<(String, Value)> {
    let parsed;
    let spec = match spec {
        Value::Str(s) => {
            parsed = yaml::load(s).unwrap_or(Value::Null);
            if !matches!(parsed, Value::List(_)) {
                tracing::error!(
                    "Invalid input for repack_dictlist, data passed is not a list ({})",
                    spec.to_python_str()
                );
                return Vec::new();
            }
            &parsed
        }
        other => other,
    };
    let Value::List(items) = spec else {
        tracing::error!(
            "Invalid input for repack_dictlist, data passed is not a list ({})",
            spec.to_python_str()
        );
        return Vec::new();
    };
    let mut out = Vec::new();
    for item in items {
        match item {
            Value::Str(_) | Value::Int(_) | Value::Float(_) => {
                out.push((item.to_python_str(), Value::Null));
            }
            Value::Map(m) if m.len() == 1 => {
                out.extend(m.iter().map(|(k, v)| (k.clone(), v.clone())));
            }
            Value::Map(_) => {
                let passed = item.to_python_repr();
                tracing::error!(
                    "Invalid input for repack_dictlist: key/value pairs must contain only one \
element (data passed: {passed})."
                );
                return Vec::new();
            }
            other => {
                tracing::error!(
                    "Invalid input for repack_dictlist: element {} is not a string/dict/numeric value",
                    other.to_python_repr()
                );
                return Vec::new();
            }
        }
    }
    out
}

/// The value at `key` (split on `delimiter`, through dicts only).
fn find<'p>(pillar: &'p mut Map, key: &str, delimiter: &str) -> Option<&'p mut Value> {
    let mut parts = key.split(delimiter);
    let mut at = pillar.get_mut(parts.next()?)?;
    for part in parts {
        at = match at {
            Value::Map(m) => m.get_mut(part)?,
            _ => return None,
        };
    }
    Some(at)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opts(yaml_text: &str) -> Map {
        yaml::load(yaml_text).unwrap().as_map().cloned().unwrap()
    }

    #[test]
    fn malformed_options_are_one_error() {
        let mut p = Map::default();
        for spec in ["decrypt_pillar: top_ct", "decrypt_pillar: [[top_ct]]"] {
            assert_eq!(
                apply(&opts(spec), &mut p),
                vec!["decrypt_pillar config option is malformed".to_string()]
            );
        }
        assert!(apply(&opts("decrypt_pillar: []"), &mut p).is_empty());
    }

    #[test]
    fn keys_are_found_through_dicts_by_the_delimiter() {
        let mut p = opts("a:\n  b: '{x: 1}'\nc: [1]\n");
        let o = opts(
            "decrypt_pillar: ['a/b': yaml, 'c/0', nosuch]\ndecrypt_pillar_delimiter: /\n\
decrypt_pillar_renderers: [gpg, yaml]\n",
        );
        assert!(apply(&o, &mut p).is_empty());
        assert_eq!(
            p["a"].get("b").and_then(|b| b.get("x")),
            Some(&Value::Int(1))
        );
    }
}
