//! `extend` reconciliation (Salt's `State.reconcile_extend`): each entry of
//! `__extend__` is merged into the state it names. Requisite lists are
//! appended to, any other argument is replaced, a function replaces the
//! function, a new state module is added whole, and `name` given where the
//! state had `names` takes that slot.

use super::lookup::{find_name, NameIndex};
use super::py::{first_key, first_state, is_dunder, py_eq, py_iter, py_str};
use crate::state::vocabulary::REQUISITE_KEYWORDS;
use crate::state::HighData;
use brine_core::{Map, Value};

/// One `{ID: body}` to merge. The name stays a [`Value`]: requisite_in may
/// aim at a non-string name, which then simply matches no ID.
pub(crate) struct ExtendEntry {
    pub name: Value,
    pub body: Map,
}

/// `reconcile_extend(high, strict)`: pops `__extend__` and merges it. With
/// `strict`, a named ID must have the extended state module or be found by
/// name (requisite_in's pass); without, any existing ID can get a new one.
pub fn reconcile_extend(mut high: HighData, strict: bool) -> (HighData, Vec<String>) {
    let Some(ext) = high.shift_remove("__extend__") else {
        return (high, Vec::new());
    };
    let mut entries = Vec::new();
    // Salt iterates `for ext_chunk in ext: for name, body in ext_chunk.items()`.
    if let Value::List(chunks) = ext {
        for chunk in chunks {
            if let Value::Map(chunk) = chunk {
                for (name, body) in chunk {
                    if let Value::Map(body) = body {
                        entries.push(ExtendEntry {
                            name: Value::Str(name),
                            body,
                        });
                    }
                }
            }
        }
    }
    let mut errors = Vec::new();
    reconcile_entries(&mut high, entries, strict, &mut errors);
    (high, errors)
}

pub(crate) fn reconcile_entries(
    high: &mut HighData,
    entries: Vec<ExtendEntry>,
    strict: bool,
    errors: &mut Vec<String>,
) {
    let mut index = NameIndex::default();
    for ExtendEntry { name, body } in entries {
        // An extend body with no state module: Salt dies on it (StopIteration).
        let Some(state_type) = first_state(&body) else {
            continue;
        };
        let direct = name.as_str().filter(|n| {
            high.get(*n)
                .and_then(Value::as_map)
                .is_some_and(|b| b.contains_key(state_type))
        });
        let target = match direct {
            Some(n) => n.to_string(),
            None => {
                let ids = find_name(&name, state_type, high, strict, &mut index);
                match ids.as_slice() {
                    [(id, _)] => id.clone(),
                    _ => {
                        errors.push(cannot_extend(&name, &body));
                        continue;
                    }
                }
            }
        };
        if extends_excluded_sls(high, &body) {
            continue;
        }
        let Some(Value::Map(target_body)) = high.get_mut(&target) else {
            continue;
        };
        for (state, run) in body {
            if is_dunder(&state) {
                continue;
            }
            match target_body.get_mut(&state) {
                None => {
                    index.add_list(&target, &state, &run);
                    target_body.insert(state, run);
                }
                Some(existing) => {
                    index.remove_list(&target, &state, existing);
                    merge_run(existing, &run);
                    index.add_list(&target, &state, existing);
                }
            }
        }
    }
}

/// Merge an extend argument list into the state's list, as Salt does it
/// item by item (every matching slot is updated, not just the first).
fn merge_run(existing: &mut Value, run: &Value) {
    let Value::List(list) = existing else {
        return;
    };
    let Some(args) = py_iter(run) else {
        return;
    };
    for arg in args {
        let mut update = false;
        for slot in list.iter_mut() {
            match (&arg, &mut *slot) {
                (Value::Str(_), Value::Str(_)) => {
                    // A function replaces the function.
                    *slot = arg.clone();
                    update = true;
                }
                (Value::Map(a), Value::Map(_)) => {
                    let Some(argfirst) = first_key(a) else {
                        continue;
                    };
                    let slot_first = slot.as_map().and_then(first_key).map(str::to_string);
                    if slot_first.as_deref() == Some(argfirst) {
                        if REQUISITE_KEYWORDS.contains(&argfirst) {
                            if let (Some(Value::List(reqs)), Some(more)) = (
                                slot.as_map_mut().and_then(|m| m.get_mut(argfirst)),
                                a.get(argfirst).and_then(py_iter),
                            ) {
                                reqs.extend(more);
                            }
                        } else {
                            *slot = arg.clone();
                        }
                        update = true;
                    }
                    // `name` overrides `names`; Salt does not count this as
                    // an update, so the `name` is appended as well.
                    let now_first = slot.as_map().and_then(first_key);
                    if argfirst == "name" && now_first == Some("names") {
                        *slot = arg.clone();
                    }
                }
                _ => {}
            }
        }
        if !update {
            list.push(arg);
        }
    }
}

/// An extend coming from an SLS that is excluded (by exact `sls` name) is
/// dropped silently.
fn extends_excluded_sls(high: &HighData, body: &Map) -> bool {
    let Some(Value::List(excludes)) = high.get("__exclude__") else {
        return false;
    };
    let Some(sls) = body.get("__sls__") else {
        return false;
    };
    excludes.iter().any(|exc| match exc {
        Value::Str(_) => py_eq(exc, sls),
        Value::Map(m) => m
            .get("sls")
            .filter(|s| s.is_truthy())
            .is_some_and(|s| py_eq(s, sls)),
        _ => false,
    })
}

fn cannot_extend(name: &Value, body: &Map) -> String {
    let env = body
        .get("__env__")
        .map(py_str)
        .unwrap_or_else(|| "base".into());
    let sls = body
        .get("__sls__")
        .map(py_str)
        .unwrap_or_else(|| "base".into());
    let name = py_str(name);
    format!(
        "Cannot extend ID '{name}' in '{env}:{sls}'. It is not part of the high state.\n\
         This is likely due to a missing include statement or an incorrectly typed ID.\n\
         Ensure that a state with an ID of '{name}' is available\n\
         in environment '{env}' and to SLS '{sls}'"
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::compile::test_high;

    fn with_extend(high: &str, extend: &str) -> HighData {
        let mut high = test_high(high);
        let ext = brine_core::yaml::load(extend).expect("yaml");
        high.insert("__extend__".into(), ext);
        high
    }

    fn run_of(high: &HighData, id: &str, state: &str) -> Value {
        high[id].get(state).cloned().expect("state present")
    }

    #[test]
    fn requisites_append_other_args_replace_function_replaces() {
        let high = with_extend(
            "svc: {__sls__: a, __env__: base, test: [{comment: old}, {require: [{test: x}]}, nop]}",
            "[{svc: {__sls__: b, __env__: base, test: [{comment: new}, {require: [{test: y}]}, succeed_with_changes]}}]",
        );
        let (high, errors) = reconcile_extend(high, false);
        assert!(errors.is_empty());
        let want = brine_core::yaml::load(
            "[{comment: new}, {require: [{test: x}, {test: y}]}, succeed_with_changes]",
        )
        .expect("yaml");
        assert_eq!(run_of(&high, "svc", "test"), want);
        assert!(!high.contains_key("__extend__"));
    }

    #[test]
    fn name_over_names_takes_the_slot_and_is_appended_too() {
        let high = with_extend(
            "multi: {__sls__: a, test: [{names: [m1, m2]}, nop, {order: 10003}]}",
            "[{multi: {__sls__: b, test: [{name: single}]}}]",
        );
        let (high, _) = reconcile_extend(high, false);
        let want = brine_core::yaml::load("[{name: single}, nop, {order: 10003}, {name: single}]")
            .expect("yaml");
        assert_eq!(run_of(&high, "multi", "test"), want);
    }

    #[test]
    fn strictness_decides_whether_a_new_module_may_be_added() {
        let src = "x: {__sls__: a, test: [nop]}";
        let ext = "[{x: {__sls__: b, __env__: dev, file: [managed]}}]";
        let (high, errors) = reconcile_extend(with_extend(src, ext), false);
        assert!(errors.is_empty());
        assert!(high["x"].get("file").is_some());
        let (_, errors) = reconcile_extend(with_extend(src, ext), true);
        assert_eq!(
            errors,
            vec![
                "Cannot extend ID 'x' in 'dev:b'. It is not part of the high state.\n\
                  This is likely due to a missing include statement or an incorrectly typed ID.\n\
                  Ensure that a state with an ID of 'x' is available\n\
                  in environment 'dev' and to SLS 'b'"
                    .to_string()
            ]
        );
    }

    #[test]
    fn by_name_only_when_exactly_one_state_has_it() {
        let src = "a: {__sls__: s, test: [nop, {name: shared}]}\n\
                   b: {__sls__: s, test: [nop, {name: only-b}]}\n\
                   c: {__sls__: s, test: [nop, {comment: shared}]}";
        let ext = "[{only-b: {__sls__: e, test: [{size: 1}]}}, {shared: {__sls__: e, test: [{size: 2}]}}]";
        let (high, errors) = reconcile_extend(with_extend(src, ext), false);
        // `shared` is the value of a's name and of c's comment: ambiguous.
        assert_eq!(errors.len(), 1);
        assert!(errors[0].starts_with("Cannot extend ID 'shared' in 'base:e'"));
        assert!(run_of(&high, "b", "test")
            .as_list()
            .is_some_and(|l| l.len() == 3));
    }

    #[test]
    fn extends_from_an_excluded_sls_are_dropped() {
        let mut high = with_extend(
            "x: {__sls__: a, test: [nop]}",
            "[{x: {__sls__: gone, test: [{comment: no}]}}, {x: {__sls__: 'g*', test: [{size: 1}]}}]",
        );
        let exclude = brine_core::yaml::load("[{sls: gone}, 'g*']").expect("yaml");
        high.insert("__exclude__".into(), exclude);
        let (high, _) = reconcile_extend(high, false);
        // Exact names only: the `g*` pattern is compared as text.
        let want = brine_core::yaml::load("[nop]").expect("yaml");
        assert_eq!(run_of(&high, "x", "test"), want);
    }
}
