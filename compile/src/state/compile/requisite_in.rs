//! `requisite_in` (Salt's `State.requisite_in`): the `*_in` requisites,
//! `use`/`use_in` and the `prereq` fork, turned into `extend` entries and
//! merged with a strict [`reconcile_extend`](super::reconcile_extend).
//!
//! - `require_in`/`watch_in`/`onfail_in`/`onchanges_in`/`prereq_in` on A
//!   targeting B add `require`/`watch`/... `{A's module: A}` to B;
//! - `prereq` on A targeting B adds `prerequired: [{A's module: A}]` to B,
//!   and `prereq_in` on A targeting B adds `prerequired: [{B's module: B}]`
//!   to A (the fork Salt resolves at run time);
//! - `use` copies B's one-key arguments into A, `use_in` A's into B, except
//!   requisites, `name`/`names` and arguments the receiver already has.
//!
//! `listen_in` is not converted here: Salt keeps it on the low chunk and
//! handles it after the run.
//!
//! Salt's quirks are kept: targets of a list accumulate, so every later
//! item re-applies the earlier ones (`require_in: [a, b]` gives `a` the
//! requisite twice); an `sls:` item replaces the accumulated targets; a bare
//! string is an ID, else the first state with that `name`, else ignored.

use super::extend::{reconcile_entries, ExtendEntry};
use super::lookup::{find_name, find_sls_ids, state_args, NameIndex};
use super::py::{first_key, first_state, is_dunder, py_key, py_str, PyKey};
use crate::state::vocabulary::{copied_by_use, REQUISITE_IN_ARGS};
use crate::state::HighData;
use brine_core::{Map, Value};
use indexmap::IndexMap;

/// The extend data being built: name → `{state: [args], __env__, __sls__}`,
/// keyed as a Python dict would key it.
#[derive(Default)]
struct Extend {
    entries: IndexMap<PyKey, ExtendEntry>,
}

impl Extend {
    fn entry(&mut self, name: &Value) -> &mut Map {
        &mut self
            .entries
            .entry(py_key(name))
            .or_insert_with(|| ExtendEntry {
                name: name.clone(),
                body: Map::default(),
            })
            .body
    }
}

/// `extend[name][state]`, created empty if missing.
fn state_list<'a>(body: &'a mut Map, state: &str) -> Option<&'a mut Vec<Value>> {
    match body
        .entry(state.to_string())
        .or_insert_with(|| Value::List(Vec::new()))
    {
        Value::List(l) => Some(l),
        _ => None,
    }
}

/// Add `{rkey: [{state: id}]}` to an extend list, or append to the `rkey`
/// entries already there.
fn add_requisite(list: &mut Vec<Value>, rkey: &str, state: &str, id: &str) {
    let mut found = false;
    for item in list.iter_mut() {
        let Some(m) = item.as_map_mut() else { continue };
        if first_key(m) != Some(rkey) {
            continue;
        }
        if let Some(Value::List(reqs)) = m.get_mut(rkey) {
            reqs.push(single(state, Value::Str(id.to_string())));
        }
        found = true;
    }
    if !found {
        let req = single(state, Value::Str(id.to_string()));
        list.push(single(rkey, Value::List(vec![req])));
    }
}

fn single(key: &str, value: Value) -> Value {
    let mut m = Map::default();
    m.insert(key.to_string(), value);
    Value::Map(m)
}

/// Record where the requisite came from, as Salt does for its messages.
fn set_origin(ext_body: &mut Map, body: &Map) {
    for key in ["__env__", "__sls__"] {
        if let Some(v) = body.get(key) {
            ext_body.insert(key.to_string(), v.clone());
        }
    }
}

fn dotted_requisite(rkey: &str, state: &str, name: &Value, body: &Map) -> String {
    let prefix = state.split('.').next().unwrap_or_default();
    let sls = body.get("__sls__").map(py_str).unwrap_or_default();
    format!(
        "Invalid requisite in {rkey}: {state} for {}, in SLS '{sls}'. Requisites must not \
         contain dots, did you mean '{prefix}'?",
        py_str(name)
    )
}

/// The one-key arguments of `from` that `use` may copy to a state whose own
/// one-key arguments are `own`.
fn usable_args(from: Option<&Value>, own: &std::collections::HashSet<String>) -> Vec<Value> {
    from.and_then(Value::as_list)
        .unwrap_or_default()
        .iter()
        .filter(|arg| {
            arg.as_map()
                .filter(|m| m.len() == 1)
                .and_then(first_key)
                .is_some_and(|k| copied_by_use(k) && !own.contains(k))
        })
        .cloned()
        .collect()
}

/// `requisite_in(high)`: returns the high data with every `*_in`, `use`,
/// `use_in` and `prereq` applied, and the errors (dotted requisite types,
/// then `Cannot extend ID ...` for targets that do not exist).
/// `disabled_requisites` (minion option) are ignored with a warning.
pub fn requisite_in(mut high: HighData, disabled_requisites: &[String]) -> (HighData, Vec<String>) {
    let mut ext = Extend::default();
    let mut errors = Vec::new();
    let mut index = NameIndex::default();
    for (id, body) in &high {
        let Some(body) = body.as_map() else { continue };
        for (state, run) in body {
            if is_dunder(state) {
                continue;
            }
            let Some(args) = run.as_list() else { continue };
            for arg in args {
                let Some(arg) = arg.as_map() else { continue };
                let Some(key) = first_key(arg) else { continue };
                if !REQUISITE_IN_ARGS.contains(&key) {
                    continue;
                }
                if disabled_requisites.iter().any(|d| d == key) {
                    tracing::warn!("The {key} requisite has been disabled, Ignoring.");
                    continue;
                }
                let rkey = key.split('_').next().unwrap_or(key);
                match arg.get(key) {
                    // `require_in: {mod: target}`: every kind is then handled
                    // like require_in, `use` and `prereq` included.
                    Some(Value::Map(items)) => {
                        for (req_state, name) in items {
                            let entry = ext.entry(name);
                            let mut st = req_state.as_str();
                            if st.contains('.') {
                                errors.push(dotted_requisite(rkey, st, name, body));
                                st = st.split('.').next().unwrap_or_default();
                            }
                            if !entry.contains_key(st) {
                                entry.insert(st.to_string(), Value::List(Vec::new()));
                            }
                            set_origin(entry, body);
                            if let Some(list) = state_list(entry, st) {
                                add_requisite(list, rkey, state, id);
                            }
                        }
                    }
                    Some(Value::List(items)) => {
                        let mut hinges: Vec<(Value, String)> = Vec::new();
                        for ind in items {
                            let Some((pstate, pname)) = resolve_item(ind, &high, &mut index) else {
                                continue;
                            };
                            if pstate == "sls" {
                                hinges = find_sls_ids(&pname, &high)
                                    .into_iter()
                                    .map(|(nid, st)| (Value::Str(nid), st))
                                    .collect();
                            } else {
                                hinges.push((pname.clone(), pstate.clone()));
                            }
                            if pstate.contains('.') {
                                errors.push(dotted_requisite(rkey, &pstate, &pname, body));
                            }
                            for (name, req_state) in hinges.clone() {
                                apply_hinge(
                                    &mut ext,
                                    &high,
                                    &mut index,
                                    Hinge {
                                        key,
                                        rkey,
                                        id,
                                        state,
                                        body,
                                        own_args: args,
                                        name: &name,
                                        req_state: &req_state,
                                    },
                                );
                            }
                        }
                    }
                    _ => {}
                }
            }
        }
    }
    let entries = ext.entries.into_values().collect();
    high.shift_remove("__extend__");
    reconcile_entries(&mut high, entries, true, &mut errors);
    (high, errors)
}

/// One item of a requisite_in list → `(state module, target)`. A bare string
/// is an ID (its first state module), else the first state whose `name` it
/// is, else nothing.
fn resolve_item(ind: &Value, high: &HighData, index: &mut NameIndex) -> Option<(String, Value)> {
    match ind {
        Value::Map(m) => {
            let (k, v) = m.iter().next()?;
            Some((k.clone(), v.clone()))
        }
        other => {
            if let Some(target) = other.as_str().and_then(|s| high.get(s)) {
                let st = target.as_map().and_then(first_state)?;
                return Some((st.to_string(), other.clone()));
            }
            let (nid, st) = index.by_name_arg(high, other)?;
            Some((st, Value::Str(nid)))
        }
    }
}

/// What one requisite_in item applies to one target.
struct Hinge<'a> {
    /// The argument: `require_in`, `use`, `prereq`...
    key: &'a str,
    /// Its requisite: `require`, `use`, `prereq`...
    rkey: &'a str,
    /// The declaring ID, state module, body and argument list.
    id: &'a str,
    state: &'a str,
    body: &'a Map,
    own_args: &'a [Value],
    /// The target.
    name: &'a Value,
    req_state: &'a str,
}

fn apply_hinge(ext: &mut Extend, high: &HighData, index: &mut NameIndex, h: Hinge) {
    let id_value = Value::Str(h.id.to_string());
    if h.key == "prereq_in" {
        let entry = ext.entry(&id_value);
        if let Some(list) = state_list(entry, h.state) {
            let req = single(h.req_state, h.name.clone());
            list.push(single("prerequired", Value::List(vec![req])));
        }
        // …and B gets `prereq: [A]` below, like any other *_in.
    }
    match h.key {
        "prereq" => {
            for (ext_id, ext_state) in find_name(h.name, h.req_state, high, true, index) {
                let entry = ext.entry(&Value::Str(ext_id));
                if let Some(list) = state_list(entry, &ext_state) {
                    let req = single(h.state, id_value.clone());
                    list.push(single("prerequired", Value::List(vec![req])));
                }
            }
            return;
        }
        "use_in" => {
            for (ext_id, ext_state) in find_name(h.name, h.req_state, high, true, index) {
                if ext_id.is_empty() {
                    continue;
                }
                let ext_args = state_args(&ext_id, h.req_state, high);
                let own = Value::List(h.own_args.to_vec());
                let copied = usable_args(Some(&own), &ext_args);
                let entry = ext.entry(&Value::Str(ext_id));
                if let Some(list) = state_list(entry, &ext_state) {
                    list.extend(copied);
                }
            }
            return;
        }
        "use" => {
            for (ext_id, ext_state) in find_name(h.name, h.req_state, high, true, index) {
                if ext_id.is_empty() {
                    continue;
                }
                let loc_args = state_args(h.id, h.state, high);
                let from = high.get(&ext_id).and_then(|b| b.get(&ext_state));
                let copied = usable_args(from, &loc_args);
                let entry = ext.entry(&id_value);
                if let Some(list) = state_list(entry, h.state) {
                    list.extend(copied);
                }
            }
            return;
        }
        _ => {}
    }
    let entry = ext.entry(h.name);
    if !entry.contains_key(h.req_state) {
        entry.insert(h.req_state.to_string(), Value::List(Vec::new()));
    }
    set_origin(entry, h.body);
    if let Some(list) = state_list(entry, h.req_state) {
        add_requisite(list, h.rkey, h.state, h.id);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::compile::test_high;

    fn yaml(text: &str) -> Value {
        brine_core::yaml::load(text).expect("yaml")
    }

    fn arg<'a>(high: &'a HighData, id: &str, key: &str) -> Option<&'a Value> {
        high[id]
            .get("test")?
            .as_list()?
            .iter()
            .filter_map(Value::as_map)
            .find_map(|m| m.get(key))
    }

    #[test]
    fn list_targets_accumulate_like_salt() {
        let high = test_high(
            "t1: {__sls__: a, __env__: base, test: [nop]}\n\
             t2: {__sls__: a, __env__: base, test: [nop]}\n\
             src: {__sls__: a, __env__: base, test: [nop, {require_in: [{test: t1}, {test: t2}]}]}",
        );
        let (high, errors) = requisite_in(high, &[]);
        assert!(errors.is_empty());
        // The second item re-applies the first: t1 is required twice.
        assert_eq!(
            arg(&high, "t1", "require"),
            Some(&yaml("[{test: src}, {test: src}]"))
        );
        assert_eq!(arg(&high, "t2", "require"), Some(&yaml("[{test: src}]")));
    }

    #[test]
    fn prereq_forks_and_use_copies_what_is_missing() {
        let high = test_high(
            "cfg: {__sls__: a, __env__: base, test: [nop, {comment: c}, {size: 1}]}\n\
             down: {__sls__: a, __env__: base, test: [nop, {prereq: [{test: cfg}]}]}\n\
             user: {__sls__: a, __env__: base, test: [nop, {size: 9}, {use: [cfg]}]}",
        );
        let (high, errors) = requisite_in(high, &[]);
        assert!(errors.is_empty());
        assert_eq!(
            arg(&high, "cfg", "prerequired"),
            Some(&yaml("[{test: down}]"))
        );
        assert_eq!(arg(&high, "user", "comment"), Some(&yaml("c")));
        assert_eq!(arg(&high, "user", "size"), Some(&Value::Int(9)));
    }

    #[test]
    fn bare_targets_are_ids_then_names_then_nothing() {
        let high = test_high(
            "named: {__sls__: a, __env__: base, test: [nop, {name: the-name}]}\n\
             src: {__sls__: a, __env__: base, test: [nop, {watch_in: [the-name, nobody]}, {listen_in: [named]}]}",
        );
        let (high, errors) = requisite_in(high, &[]);
        assert!(errors.is_empty(), "{errors:?}");
        assert_eq!(arg(&high, "named", "watch"), Some(&yaml("[{test: src}]")));
        // listen_in is left to the runtime.
        assert_eq!(arg(&high, "named", "listen"), None);
    }

    #[test]
    fn targets_that_do_not_exist_cannot_be_extended() {
        let high = test_high(
            "src: {__sls__: a, __env__: base, test: [nop, {onchanges_in: [{test: ghost}]}]}",
        );
        let (_, errors) = requisite_in(high, &[]);
        assert_eq!(errors.len(), 1);
        assert!(errors[0].starts_with("Cannot extend ID 'ghost' in 'base:a'."));
    }

    #[test]
    fn disabled_requisites_are_ignored() {
        let high = test_high(
            "t1: {__sls__: a, __env__: base, test: [nop]}\n\
             src: {__sls__: a, __env__: base, test: [nop, {require_in: [{test: t1}]}]}",
        );
        let (high, _) = requisite_in(high, &["require_in".to_string()]);
        assert_eq!(arg(&high, "t1", "require"), None);
    }
}
