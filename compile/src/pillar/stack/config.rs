//! Which stack config files apply: the value under `stack:` in the
//! `ext_pillar` list is one path, a list of paths, or a dict selecting paths
//! by a `pillar:`/`grains:`/`opts:` value.
//!
//! Salt passes a dict as keyword arguments and anything else as positional
//! ones, so a list's paths are used as written while a dict's paths have
//! `__env__` replaced. Malformed entries fail with the exception text
//! stack.py would raise.

use brine_core::value::key_string;
use brine_core::Value;

/// A malformed `stack:` dict: the exception text stack.py would raise, and
/// the selector (`pillar:path:to:value`) it is about.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ConfigError {
    /// A selector without `:`.
    #[error("not enough values to unpack (expected 2, got 1)")]
    NoPath { selector: String },
    /// What the selector maps to is not a dict, list or string.
    #[error("argument of type '{type_name}' is not iterable")]
    NotIterable {
        selector: String,
        type_name: &'static str,
    },
    /// The selector's value, or a config path in it, has the wrong type
    /// for what stack.py calls on it (`items`, `get`, `replace`).
    #[error("'{type_name}' object has no attribute '{attr}'")]
    NoAttribute {
        selector: String,
        type_name: &'static str,
        attr: &'static str,
    },
    #[error(
        "Unknown traverse option \"{kind}\", should be one of dict_keys(['pillar', 'grains', 'opts'])"
    )]
    UnknownKind { selector: String, kind: String },
    /// The value the path reaches is a list or dict, not a dict key.
    #[error("unhashable type: '{type_name}'")]
    Unhashable {
        selector: String,
        type_name: &'static str,
    },
    #[error("{source}")]
    Traverse {
        selector: String,
        source: TraverseError,
    },
    /// A config entry that is no path (a list, a dict, None).
    #[error("stat: path should be string, bytes, os.PathLike or integer, not {type_name}")]
    NotAPath { type_name: &'static str },
}

/// Where Salt's `traverse_dict_and_list` raises: the path indexes into a
/// scalar at `segment`.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum TraverseError {
    #[error("string indices must be integers, not 'str'")]
    StrIndex { segment: String },
    #[error("'{type_name}' object is not subscriptable")]
    NotSubscriptable {
        segment: String,
        type_name: &'static str,
    },
}

/// What a `pillar:`/`grains:`/`opts:` selector looks into.
pub(crate) struct Sources<'a> {
    pub pillar: &'a Value,
    pub grains: &'a Value,
    pub opts: &'a Value,
}

/// The stack config entries to process, in order. Entries from a path or
/// list are returned as given (their type is checked when they are used, as
/// Salt does); entries chosen by a dict are strings with `__env__` replaced
/// by `env` (`pillarenv or saltenv or "base"`).
pub(crate) fn config_files(
    conf: &Value,
    src: &Sources,
    env: &str,
) -> Result<Vec<Value>, ConfigError> {
    match conf {
        Value::List(items) => Ok(items.clone()),
        Value::Map(selectors) => {
            let mut out = Vec::new();
            for (selector, matchs) in selectors {
                for cfg in select(selector, matchs, src, env)? {
                    out.push(Value::Str(cfg));
                }
            }
            Ok(out)
        }
        other => Ok(vec![other.clone()]),
    }
}

/// One `TYPE:path:to:value: {VALUE: cfg(s)}` selector, checked in the order
/// stack.py trips over each mistake.
fn select(
    selector: &str,
    matchs: &Value,
    src: &Sources,
    env: &str,
) -> Result<Vec<String>, ConfigError> {
    let sel = || selector.to_string();
    let Some((kind, target)) = selector.split_once(':') else {
        return Err(ConfigError::NoPath { selector: sel() });
    };
    let has_env = match matchs {
        Value::Map(m) => m.contains_key("__env__"),
        Value::List(l) => l.iter().any(|x| x.as_str() == Some("__env__")),
        Value::Str(s) => s.contains("__env__"),
        other => {
            return Err(ConfigError::NotIterable {
                selector: sel(),
                type_name: other.type_name(),
            })
        }
    };
    let no_attr = |attr: &'static str| ConfigError::NoAttribute {
        selector: sel(),
        type_name: matchs.type_name(),
        attr,
    };
    if has_env && matchs.as_map().is_none() {
        return Err(no_attr("items"));
    }
    let data = match kind {
        "pillar" => src.pillar,
        "grains" => src.grains,
        "opts" => src.opts,
        _ => {
            return Err(ConfigError::UnknownKind {
                selector: sel(),
                kind: kind.to_string(),
            })
        }
    };
    let Value::Map(matchs) = matchs else {
        return Err(no_attr("get"));
    };
    let found = traverse(data, target).map_err(|source| ConfigError::Traverse {
        selector: sel(),
        source,
    })?;
    let key = match found {
        None => key_string(&Value::Null),
        Some(v @ (Value::List(_) | Value::Map(_))) => {
            return Err(ConfigError::Unhashable {
                selector: sel(),
                type_name: v.type_name(),
            })
        }
        Some(v) => key_string(v),
    };
    // `__env__` as a key stands for the current environment; a later key
    // wins over an earlier one with the same name, as in a dict rebuild.
    let chosen = if has_env {
        matchs
            .iter()
            .filter(|(k, _)| k.as_str() == key || (k.as_str() == "__env__" && env == key))
            .map(|(_, v)| v)
            .next_back()
    } else {
        matchs.get(&key)
    };
    let cfgs: Vec<&Value> = match chosen {
        None => Vec::new(),
        Some(Value::List(l)) => l.iter().collect(),
        Some(one) => vec![one],
    };
    cfgs.into_iter()
        .map(|c| match c {
            Value::Str(s) => Ok(s.replace("__env__", env)),
            other => Err(ConfigError::NoAttribute {
                selector: sel(),
                type_name: other.type_name(),
                attr: "replace",
            }),
        })
        .collect()
}

/// Salt's `traverse_dict_and_list` with `:` as delimiter: `Ok(None)` when
/// the path is missing, `Err` where Python would raise (indexing a scalar).
/// A numeric segment on a list first looks for that key in the list's
/// dicts, then indexes (negative from the end); a name on a list looks in
/// its dicts.
pub(crate) fn traverse<'a>(
    data: &'a Value,
    path: &str,
) -> Result<Option<&'a Value>, TraverseError> {
    let mut ptr = data;
    for each in path.split(':') {
        ptr = match ptr {
            Value::Map(m) => match m.get(each) {
                Some(v) => v,
                None => return Ok(None),
            },
            Value::List(l) => {
                let idx = py_int(each);
                let key = match idx {
                    Some(i) => i.to_string(),
                    None => each.to_string(),
                };
                let embedded = l.iter().find_map(|x| x.as_map().and_then(|m| m.get(&key)));
                match (embedded, idx) {
                    (Some(v), _) => v,
                    (None, None) => return Ok(None),
                    (None, Some(i)) => {
                        let at = if i < 0 {
                            i.checked_add(l.len() as i64)
                        } else {
                            Some(i)
                        };
                        match at
                            .and_then(|a| usize::try_from(a).ok())
                            .and_then(|a| l.get(a))
                        {
                            Some(v) => v,
                            None => return Ok(None),
                        }
                    }
                }
            }
            Value::Str(_) => {
                return Err(TraverseError::StrIndex {
                    segment: each.to_string(),
                })
            }
            other => {
                return Err(TraverseError::NotSubscriptable {
                    segment: each.to_string(),
                    type_name: other.type_name(),
                })
            }
        };
    }
    Ok(Some(ptr))
}
use brine_core::py::int_from_str as py_int;

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn v(j: serde_json::Value) -> Value {
        Value::from_json(&j)
    }

    fn files(conf: serde_json::Value, env: &str) -> Result<Vec<Value>, String> {
        let pillar = v(json!({"sel": "foo", "n": 80, "l": [{"k": "x"}, "y"], "s": "str"}));
        let grains = v(json!({"custom": {"grain": "v1"}, "os": "Debian"}));
        let opts = v(json!({"id": "test-1-dev", "saltenv": "dev", "pillarenv": null}));
        let src = Sources {
            pillar: &pillar,
            grains: &grains,
            opts: &opts,
        };
        config_files(&v(conf), &src, env).map_err(|e| e.to_string())
    }

    fn strs(v: Vec<Value>) -> Vec<String> {
        v.into_iter().map(|x| x.to_python_str()).collect()
    }

    #[test]
    fn path_and_list_forms_are_used_as_written() {
        assert_eq!(
            strs(files(json!("/s/__env__/a.cfg"), "dev").unwrap()),
            vec!["/s/__env__/a.cfg"]
        );
        assert_eq!(
            strs(files(json!(["/s/a.cfg", "/s/b.cfg"]), "dev").unwrap()),
            vec!["/s/a.cfg", "/s/b.cfg"]
        );
    }

    // The selections below were checked with real Salt (salt-call --local
    // pillar.items with saltenv/pillarenv set or not).
    #[test]
    fn dict_form_selects_by_pillar_grains_opts() {
        let conf = json!({
            "pillar:sel": {"bar": "/s/bar.cfg", "foo": "/s/foo.cfg"},
            "grains:custom:grain": {"v1": ["/s/g1.cfg", "/s/g2.cfg"]},
            "opts:id": {"test-1-dev": "/s/s0.cfg"},
            "opts:saltenv": {"dev": "/s/dev/env.cfg", "__env__": "/s/__env__/env.cfg"},
            "pillar:nosuch": {"x": "/s/x.cfg"},
        });
        assert_eq!(
            strs(files(conf.clone(), "dev").unwrap()),
            vec![
                "/s/foo.cfg",
                "/s/g1.cfg",
                "/s/g2.cfg",
                "/s/s0.cfg",
                "/s/dev/env.cfg"
            ]
        );
        // `__env__` after `dev` wins when the environment is dev too.
        let conf2 = json!({"opts:saltenv": {"__env__": "/s/__env__/e.cfg", "dev": "/s/dev/d.cfg"}});
        assert_eq!(strs(files(conf2, "dev").unwrap()), vec!["/s/dev/d.cfg"]);
        let conf3 = json!({"opts:saltenv": {"dev": "/s/dev/d.cfg", "__env__": "/s/__env__/e.cfg"}});
        assert_eq!(strs(files(conf3, "dev").unwrap()), vec!["/s/dev/e.cfg"]);
        // Numbers and list elements are reachable.
        let conf4 = json!({"pillar:n": {"80": "/s/80.cfg"}, "pillar:l:k": {"x": "/s/k.cfg"}, "pillar:l:1": {"y": "/s/1.cfg"}});
        assert_eq!(
            strs(files(conf4, "base").unwrap()),
            vec!["/s/80.cfg", "/s/k.cfg", "/s/1.cfg"]
        );
    }

    #[test]
    fn malformed_dict_forms_fail_like_python() {
        let err = |c| files(c, "base").unwrap_err();
        assert_eq!(
            err(json!({"pillar": {"a": "b"}})),
            "not enough values to unpack (expected 2, got 1)"
        );
        assert_eq!(
            err(json!({"foo:bar": {"a": "b"}})),
            "Unknown traverse option \"foo\", should be one of dict_keys(['pillar', 'grains', 'opts'])"
        );
        assert_eq!(
            err(json!({"pillar:sel": "x"})),
            "'str' object has no attribute 'get'"
        );
        assert_eq!(
            err(json!({"pillar:sel": null})),
            "argument of type 'NoneType' is not iterable"
        );
        assert_eq!(
            err(json!({"pillar:sel": {"foo": 1}})),
            "'int' object has no attribute 'replace'"
        );
        assert_eq!(
            err(json!({"pillar:s:x": {"a": "b"}})),
            "string indices must be integers, not 'str'"
        );
        assert_eq!(
            err(json!({"pillar:l": {"a": "b"}})),
            "unhashable type: 'list'"
        );
    }

    #[test]
    fn traverse_like_salt() {
        let d = v(json!({"a": {"b": [10, {"c": 1}, 30]}, "n": null}));
        assert_eq!(traverse(&d, "a:b:0"), Ok(Some(&Value::Int(10))));
        assert_eq!(traverse(&d, "a:b:-1"), Ok(Some(&Value::Int(30))));
        assert_eq!(traverse(&d, "a:b:c"), Ok(Some(&Value::Int(1))));
        assert_eq!(traverse(&d, "a:b:5"), Ok(None));
        assert_eq!(traverse(&d, "a:x"), Ok(None));
        assert!(traverse(&d, "n:x").is_err());
        assert_eq!(py_int(" +1_0 "), Some(10));
        assert_eq!(py_int("1__0"), None);
    }
}
