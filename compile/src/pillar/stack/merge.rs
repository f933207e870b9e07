//! PillarStack's merge of one YAML document into the stack: the
//! `merge-last` (default), `merge-first`, `remove` and `overwrite`
//! strategies chosen by a `__` key in a dict or a `{__: ...}` first item in a
//! list, with stack.py's exact quirks:
//! - a strategy is only read (and checked) where a value meets an existing
//!   value of the same type; a new key's value is just cleaned of markers;
//! - values of different types (`int` vs `bool` too) never merge: the
//!   incoming one replaces the old one (for `merge-first`, the old one stays);
//! - lists merge by concatenation (`remove` by Python equality), never by
//!   recursion, and their items are not cleaned of markers;
//! - key order is Python dict order: existing keys keep their place.
//!
//! Everything works in place on owned values, so merging a document costs
//! its own size, not the stack's.

use brine_core::value::Map;
use brine_core::Value;

/// Deeper than this, Python would have hit its recursion limit; we stop
/// before our own stack could overflow.
const MAX_DEPTH: usize = 900;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Strategy {
    Overwrite,
    MergeFirst,
    MergeLast,
    Remove,
}

/// Why a merge failed; the texts are the exception messages stack.py raises.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum MergeError {
    #[error(
        "Unknown strategy \"{0}\", should be one of ('overwrite', 'merge-first', 'merge-last', 'remove')"
    )]
    UnknownStrategy(String),
    #[error("maximum recursion depth exceeded")]
    TooDeep,
}

fn strategy(v: &Value) -> Result<Strategy, MergeError> {
    match v.as_str() {
        Some("overwrite") => Ok(Strategy::Overwrite),
        Some("merge-first") => Ok(Strategy::MergeFirst),
        Some("merge-last") => Ok(Strategy::MergeLast),
        Some("remove") => Ok(Strategy::Remove),
        _ => Err(MergeError::UnknownStrategy(v.to_python_str())),
    }
}

/// `_cleanup`: drop `__` markers from a value about to be stored as is:
/// dicts recursively, lists only their own leading marker item.
fn cleanup_at(v: &mut Value, depth: usize) -> Result<(), MergeError> {
    if depth > MAX_DEPTH {
        return Err(MergeError::TooDeep);
    }
    match v {
        Value::Map(m) if !m.is_empty() => {
            m.shift_remove("__");
            for x in m.values_mut() {
                cleanup_at(x, depth + 1)?;
            }
        }
        Value::List(l) if is_marker(l.first()) => {
            l.remove(0);
        }
        _ => {}
    }
    Ok(())
}

/// Is this list item a `{__: strategy}` marker (any dict holding `__`)?
fn is_marker(item: Option<&Value>) -> bool {
    matches!(item, Some(Value::Map(m)) if m.contains_key("__"))
}

/// `_merge_dict`: merge `obj` into `stack` (for `overwrite`, `stack`
/// becomes `obj`).
pub(crate) fn merge_dict(stack: &mut Map, obj: Map) -> Result<(), MergeError> {
    merge_dict_at(stack, obj, 0)
}

fn merge_dict_at(stack: &mut Map, mut obj: Map, depth: usize) -> Result<(), MergeError> {
    if depth > MAX_DEPTH {
        return Err(MergeError::TooDeep);
    }
    let strategy = match obj.shift_remove("__") {
        Some(s) => strategy(&s)?,
        None => Strategy::MergeLast,
    };
    match strategy {
        Strategy::Overwrite => {
            let mut v = Value::Map(obj);
            cleanup_at(&mut v, depth)?;
            if let Value::Map(m) = v {
                *stack = m;
            }
        }
        // One pass over the stack instead of one shifting removal per key.
        Strategy::Remove => stack.retain(|k, _| !obj.contains_key(k)),
        Strategy::MergeFirst | Strategy::MergeLast => {
            for (k, mut v) in obj {
                let Some(slot) = stack.get_mut(&k) else {
                    cleanup_at(&mut v, depth + 1)?;
                    stack.insert(k, v);
                    continue;
                };
                if strategy == Strategy::MergeFirst {
                    // The incoming value takes the slot and the old one is
                    // merged onto it.
                    cleanup_at(&mut v, depth + 1)?;
                    v = std::mem::replace(slot, v);
                }
                merge_value(slot, v, depth + 1)?;
            }
        }
    }
    Ok(())
}

/// Merge `v` into the existing `slot` (same key), stack.py's type rules.
fn merge_value(slot: &mut Value, mut v: Value, depth: usize) -> Result<(), MergeError> {
    if std::mem::discriminant(slot) != std::mem::discriminant(&v) {
        cleanup_at(&mut v, depth)?;
        *slot = v;
        return Ok(());
    }
    match (slot, v) {
        (Value::Map(s), Value::Map(o)) => merge_dict_at(s, o, depth),
        (Value::List(s), Value::List(o)) => merge_list(s, o),
        (slot, v) => {
            *slot = v;
            Ok(())
        }
    }
}

/// `_merge_list`: concatenation in the chosen order, or removal.
fn merge_list(stack: &mut Vec<Value>, mut obj: Vec<Value>) -> Result<(), MergeError> {
    let mut strategy_v = Strategy::MergeLast;
    if let Some(Value::Map(m)) = obj.first() {
        if let Some(s) = m.get("__") {
            let parsed = strategy(s);
            obj.remove(0);
            strategy_v = parsed?;
        }
    }
    match strategy_v {
        Strategy::Overwrite => *stack = obj,
        Strategy::Remove => stack.retain(|item| !obj.iter().any(|o| py_eq(item, o))),
        Strategy::MergeFirst => {
            obj.append(stack);
            *stack = obj;
        }
        Strategy::MergeLast => stack.extend(obj),
    }
    Ok(())
}
pub(crate) use brine_core::value::python_eq as py_eq;

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn v(j: serde_json::Value) -> Value {
        Value::from_json(&j)
    }

    fn map(j: serde_json::Value) -> Map {
        match v(j) {
            Value::Map(m) => m,
            _ => panic!("not a map"),
        }
    }

    /// Merge each document in turn into an empty stack; JSON text of the
    /// result keeps key order, so it checks order too.
    fn stack_of(docs: Vec<serde_json::Value>) -> Result<String, MergeError> {
        let mut stack = Map::default();
        for d in docs {
            merge_dict(&mut stack, map(d))?;
        }
        Ok(serde_json::to_string(&Value::Map(stack).to_json()).unwrap())
    }

    fn base_users() -> serde_json::Value {
        json!({"users": {"tom": {"uid": 500, "roles": ["sysadmin"]}, "root": {"uid": 0}}})
    }

    // The examples of the PillarStack documentation; the answers (with key
    // order) are what Salt 3007.8 returned for them (conformance case
    // pillar-stack-strategies, checked with salt-call --out json).
    #[test]
    fn dict_merge_last_is_default_and_explicit() {
        let want = r#"{"users":{"tom":{"uid":1000,"roles":["sysadmin","developer"]},"root":{"uid":0},"mat":{"uid":1001}}}"#;
        for marker in [None, Some("merge-last")] {
            let mut users =
                json!({"tom": {"uid": 1000, "roles": ["developer"]}, "mat": {"uid": 1001}});
            if let Some(m) = marker {
                users = json!({"__": m, "tom": users["tom"], "mat": users["mat"]});
            }
            let got = stack_of(vec![base_users(), json!({ "users": users })]).unwrap();
            assert_eq!(got, want);
        }
    }

    #[test]
    fn dict_merge_first() {
        let got = stack_of(vec![
            base_users(),
            json!({"users": {"__": "merge-first", "tom": {"uid": 1000, "roles": ["developer"]}, "mat": {"uid": 1001}}}),
        ])
        .unwrap();
        assert_eq!(
            got,
            r#"{"users":{"tom":{"uid":500,"roles":["developer","sysadmin"]},"root":{"uid":0},"mat":{"uid":1001}}}"#
        );
    }

    #[test]
    fn dict_remove_and_overwrite() {
        let got = stack_of(vec![
            base_users(),
            json!({"users": {"__": "remove", "tom": null, "mat": null}}),
        ])
        .unwrap();
        assert_eq!(got, r#"{"users":{"root":{"uid":0}}}"#);
        let got = stack_of(vec![
            base_users(),
            json!({"users": {"__": "overwrite", "tom": {"uid": 1000, "roles": ["developer"]}, "mat": {"uid": 1001}}}),
        ])
        .unwrap();
        assert_eq!(
            got,
            r#"{"users":{"tom":{"uid":1000,"roles":["developer"]},"mat":{"uid":1001}}}"#
        );
    }

    #[test]
    fn list_strategies() {
        let base = json!({"l": ["tom", "root"]});
        let cases = [
            (
                json!([{"__": "merge-last"}, "mat"]),
                r#"{"l":["tom","root","mat"]}"#,
            ),
            (json!(["mat"]), r#"{"l":["tom","root","mat"]}"#),
            (
                json!([{"__": "merge-first"}, "mat"]),
                r#"{"l":["mat","tom","root"]}"#,
            ),
            (json!([{"__": "remove"}, "mat", "tom"]), r#"{"l":["root"]}"#),
            (json!([{"__": "overwrite"}, "mat"]), r#"{"l":["mat"]}"#),
        ];
        for (doc, want) in cases {
            assert_eq!(
                stack_of(vec![base.clone(), json!({ "l": doc })]).unwrap(),
                want
            );
        }
    }

    // Checked with real Salt: a marker on a key that is new to the stack is
    // dropped unread (even an unknown one); on an existing key it is checked.
    #[test]
    fn unknown_strategy_only_when_merging() {
        let got = stack_of(vec![json!({"a": 1}), json!({"b": {"__": "foo", "c": 1}})]).unwrap();
        assert_eq!(got, r#"{"a":1,"b":{"c":1}}"#);
        let got = stack_of(vec![json!({"a": 1}), json!({"a": {"__": "foo", "c": 1}})]).unwrap();
        assert_eq!(got, r#"{"a":{"c":1}}"#);
        let err = stack_of(vec![json!({"a": [0]}), json!({"a": [{"__": "foo"}, 1]})]).unwrap_err();
        assert_eq!(
            err.to_string(),
            "Unknown strategy \"foo\", should be one of ('overwrite', 'merge-first', 'merge-last', 'remove')"
        );
        let err = stack_of(vec![json!({"a": {}}), json!({"a": {"__": null}})]).unwrap_err();
        assert!(err.to_string().starts_with("Unknown strategy \"None\""));
    }

    // Checked with real Salt: `__` at the top of a document applies to the
    // whole stack.
    #[test]
    fn top_level_markers() {
        let got = stack_of(vec![
            json!({"a": 1, "c": 1}),
            json!({"__": "overwrite", "z": 1}),
        ])
        .unwrap();
        assert_eq!(got, r#"{"z":1}"#);
        let got = stack_of(vec![
            json!({"a": 1, "c": 1}),
            json!({"__": "remove", "a": null}),
        ])
        .unwrap();
        assert_eq!(got, r#"{"c":1}"#);
    }

    #[test]
    fn type_changes_replace_and_merge_first_keeps_old() {
        // bool and int are different types to stack.py.
        let got = stack_of(vec![
            json!({"a": 1, "b": [1]}),
            json!({"a": true, "b": {"x": 1}}),
        ])
        .unwrap();
        assert_eq!(got, r#"{"a":true,"b":{"x":1}}"#);
        let got = stack_of(vec![
            json!({"a": 1, "b": "old", "c": {"k": 1}}),
            json!({"__": "merge-first", "a": "s", "b": "new", "c": {"k": 2, "n": 1}}),
        ])
        .unwrap();
        assert_eq!(got, r#"{"a":1,"b":"old","c":{"k":1,"n":1}}"#);
    }

    #[test]
    fn cleanup_of_new_values() {
        // New dicts lose markers at every depth; lists only their own
        // leading marker, not those of their items.
        let got = stack_of(vec![json!({
            "d": {"__": "remove", "e": {"__": "overwrite", "x": 1}},
            "l": [{"__": "remove"}, {"__": "x", "k": 1}, [{"__": "y"}, 2]]
        })])
        .unwrap();
        assert_eq!(
            got,
            r#"{"d":{"e":{"x":1}},"l":[{"__":"x","k":1},[{"__":"y"},2]]}"#
        );
    }

    #[test]
    fn remove_uses_python_equality() {
        let got = stack_of(vec![
            json!({"l": [1, 2.0, true, {"a": 1, "b": 2}, "x", null]}),
            json!({"l": [{"__": "remove"}, 1.0, 2, {"b": 2, "a": 1}, null]}),
        ])
        .unwrap();
        // 1.0 == 1 == True in Python, so both go.
        assert_eq!(got, r#"{"l":["x"]}"#);
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_crash() {
        let mut deep = Value::Int(1);
        for _ in 0..2000 {
            let mut m = Map::default();
            m.insert("k".into(), deep);
            deep = Value::Map(m);
        }
        let mut stack = Map::default();
        let mut doc = Map::default();
        doc.insert("top".into(), deep);
        assert_eq!(merge_dict(&mut stack, doc), Err(MergeError::TooDeep));
    }
}
