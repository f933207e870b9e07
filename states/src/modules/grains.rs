//! The `grains` state module (Salt's `salt/states/grains.py`): grains kept
//! in the minion's grains file. The states read and write through the
//! running minion's `grains.*` execution functions (the file next to its
//! configuration, and its grains at once), so a state that set a grain is
//! seen by the states after it in the same run, as in Salt.

use crate::{StateCall, StateFunction, StateModule, StateReturn};
use brine_core::args::CallArgs;
use brine_core::sig;
use brine_core::value::python_eq;
use brine_core::{Map, Value};
use std::collections::BTreeSet;

/// The `grains` state module.
pub static MODULE: StateModule = StateModule {
    name: "grains",
    doc: "Grains set in the minion's grains file: a value, a value in a list \
grain, or none.",
    functions: &[
        StateFunction::new(
            "absent",
            sig!(name, destructive = false, delimiter = ":", force = false),
            "Set the grain NAME to None, or with DESTRUCTIVE=True remove it; a dict \
or list value only with FORCE=True. DELIMITER separates nested keys in NAME.",
            absent,
        ),
        StateFunction::new(
            "append",
            sig!(name, value, convert = false, delimiter = ":"),
            "Add VALUE to the existing list grain NAME; CONVERT=True turns a grain \
that is not a list into one first.",
            append,
        ),
        StateFunction::new(
            "exists",
            sig!(name, delimiter = ":"),
            "Succeed when the grain NAME exists, whatever its value.",
            exists,
        ),
        StateFunction::new(
            "list_absent",
            sig!(name, value, delimiter = ":"),
            "Take VALUE (or each item of a list VALUE) out of the list grain NAME.",
            list_absent,
        ),
        StateFunction::new(
            "list_present",
            sig!(name, value, delimiter = ":"),
            "Make sure the list grain NAME holds VALUE (or each item of a list \
VALUE), creating the grain when missing.",
            list_present,
        ),
        StateFunction::new(
            "present",
            sig!(name, value, delimiter = ":", force = false),
            "Set the grain NAME (nested keys split on DELIMITER, created as needed) \
to VALUE; an existing dict or list value, or a dict or list VALUE over a plain one, \
is replaced only with FORCE=True.",
            present,
        ),
    ],
};

/// What a missing grain reads as (Salt passes a fresh `object()`).
const MISSING: &str = "\u{0}brine: no such grain\u{0}";

/// The grain name with DELIMITER (a regular expression, as Salt's
/// `re.sub` takes it) turned into `:`.
fn grain_name(call: &StateCall) -> String {
    let name = call.name();
    let delim = call
        .arg("delimiter")
        .map(Value::to_python_str)
        .unwrap_or_else(|| ":".into());
    match regex::Regex::new(&delim) {
        Ok(re) if !delim.is_empty() => re.replace_all(name, ":").into_owned(),
        _ => name.to_string(),
    }
}

/// Call a `grains.*` function of the running minion.
fn grains_call(call: &StateCall, fun: &str, args: Vec<Value>, kwargs: Map) -> Option<Value> {
    call.ctx
        .minion
        .call(&format!("grains.{fun}"), CallArgs { args, kwargs })
        .ok()
}

/// `grains.get(name, default)`: `None` when missing (with `MISSING` as
/// the default), else the value.
fn get(call: &StateCall, name: &str, default: Value) -> Option<Value> {
    let mut kw = Map::default();
    kw.insert("default".into(), default);
    grains_call(call, "get", vec![Value::Str(name.into())], kw)
}

/// The grain `name`, `None` when it does not exist.
fn existing(call: &StateCall, name: &str) -> Option<Value> {
    get(call, name, Value::Str(MISSING.into())).filter(|v| v.as_str() != Some(MISSING))
}

fn kw(pairs: &[(&str, Value)]) -> Map {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.clone()))
        .collect()
}

/// A `{result, comment, changes}` dict answered by `grains.set` as the
/// state's return.
fn from_set(name: &str, set: Option<Value>) -> StateReturn {
    let mut r = StateReturn::new(name);
    let Some(Value::Map(m)) = set else {
        r.result = Some(false);
        r.comment = crate::raised("grains.set gave no answer");
        return r;
    };
    r.result = match m.get("result") {
        Some(Value::Bool(b)) => Some(*b),
        Some(Value::Null) | None => None,
        Some(v) => Some(v.is_truthy()),
    };
    r.comment = m
        .get("comment")
        .map(Value::to_python_str)
        .unwrap_or_default();
    if let Some(Value::Map(c)) = m.get("changes") {
        r.changes = c.clone();
    }
    r
}

fn present(call: &StateCall) -> StateReturn {
    let name = grain_name(call);
    let value = call.arg("value").cloned().unwrap_or(Value::Null);
    let mut r = StateReturn::new(&name);
    let old = existing(call, &name);
    if old.as_ref().is_some_and(|o| python_eq(o, &value)) {
        r.comment = "Grain is already set".into();
        return r;
    }
    if call.test {
        r.result = None;
        if old.is_none() {
            r.comment = format!("Grain {name} is set to be added");
            r.changes.insert("new".into(), Value::Str(name.clone()));
        } else {
            r.comment = format!("Grain {name} is set to be changed");
            let mut changed = Map::default();
            changed.insert(name.clone(), value);
            r.changes.insert("changed".into(), Value::Map(changed));
        }
        return r;
    }
    let force = call.arg("force").cloned().unwrap_or(Value::Bool(false));
    let set = grains_call(
        call,
        "set",
        vec![Value::Str(name.clone()), value.clone()],
        kw(&[("force", force)]),
    );
    let mut r = from_set(&name, set);
    if r.result == Some(true) && !r.changes.is_empty() {
        r.comment = format!("Set grain {name} to {}", value.to_python_str());
    }
    r
}

fn absent(call: &StateCall) -> StateReturn {
    let name = grain_name(call);
    let mut r = StateReturn::new(&name);
    // Salt compares with `is True`: only the boolean counts.
    let destructive = call.arg("destructive") == Some(&Value::Bool(true));
    let Some(grain) = existing(call, &name) else {
        r.comment = format!("Grain {name} does not exist");
        return r;
    };
    if call.test {
        r.result = None;
        if destructive {
            r.comment = format!("Grain {name} is set to be deleted");
            r.changes.insert("deleted".into(), Value::Str(name.clone()));
        } else if !grain.is_null() {
            r.comment = format!("Value for grain {name} is set to be deleted (None)");
            r.changes.insert("grain".into(), Value::Str(name.clone()));
            r.changes.insert("value".into(), Value::Null);
        }
        return r;
    }
    let set = grains_call(
        call,
        "set",
        vec![Value::Str(name.clone()), Value::Null],
        kw(&[
            (
                "destructive",
                call.arg("destructive")
                    .cloned()
                    .unwrap_or(Value::Bool(false)),
            ),
            (
                "force",
                call.arg("force").cloned().unwrap_or(Value::Bool(false)),
            ),
        ]),
    );
    let mut r = from_set(&name, set);
    if r.result == Some(true) {
        if destructive {
            r.comment = format!("Grain {name} was deleted");
            r.changes = Map::default();
            r.changes.insert("deleted".into(), Value::Str(name.clone()));
        } else if !grain.is_null() {
            r.comment = format!("Value for grain {name} was set to None");
            r.changes = Map::default();
            r.changes.insert("grain".into(), Value::Str(name.clone()));
            r.changes.insert("value".into(), Value::Null);
        }
    }
    r
}

fn exists(call: &StateCall) -> StateReturn {
    let name = grain_name(call);
    let mut r = StateReturn::new(&name);
    r.comment = "Grain exists".into();
    if existing(call, &name).is_none() {
        r.result = Some(false);
        r.comment = "Grain does not exist".into();
    }
    r
}

/// Python's `x in list`.
fn contains(list: &[Value], x: &Value) -> bool {
    list.iter().any(|v| python_eq(v, x))
}

/// Salt's `make_hashable`: each item of a (nested) list as the frozenset
/// Python makes of it (a string's characters, a dict's keys); `None` where
/// Python raises (an item that is not iterable).
fn hashable(list: &[Value], out: &mut BTreeSet<BTreeSet<String>>) -> Option<()> {
    for item in list {
        match item {
            Value::List(l) => hashable(l, out)?,
            Value::Str(s) => {
                out.insert(s.chars().map(String::from).collect());
            }
            Value::Map(m) => {
                out.insert(m.keys().cloned().collect());
            }
            _ => return None,
        }
    }
    Some(())
}

fn crashed(name: &str, msg: &str) -> StateReturn {
    let mut r = StateReturn::new(name);
    r.result = Some(false);
    r.comment = crate::raised(msg);
    r
}

fn list_present(call: &StateCall) -> StateReturn {
    let name = grain_name(call);
    let value = call.arg("value").cloned().unwrap_or(Value::Null);
    let mut r = StateReturn::new(&name);
    let grain = get(call, &name, Value::Str(String::new())).unwrap_or(Value::Null);
    let shown = value.to_python_str();
    if grain.is_truthy() {
        let Value::List(items) = &grain else {
            r.result = Some(false);
            r.comment = format!("Grain {name} is not a valid list");
            return r;
        };
        let already = match &value {
            Value::List(wanted) => {
                let (mut want, mut have) = (BTreeSet::new(), BTreeSet::new());
                if hashable(wanted, &mut want)
                    .and(hashable(items, &mut have))
                    .is_none()
                {
                    return crashed(&name, "TypeError: object is not iterable");
                }
                want.is_subset(&have)
            }
            v => contains(items, v),
        };
        if already {
            r.comment = format!("Value {shown} is already in grain {name}");
            return r;
        }
        if call.test {
            r.result = None;
            r.comment = format!("Value {shown} is set to be appended to grain {name}");
            r.changes.insert("new".into(), grain.clone());
            return r;
        }
    }
    if call.test {
        r.result = None;
        r.comment = format!("Grain {name} is set to be added");
        r.changes.insert("new".into(), grain);
        return r;
    }
    let new = grains_call(
        call,
        "append",
        vec![Value::Str(name.clone()), value.clone()],
        Map::default(),
    )
    .unwrap_or(Value::Null);
    let now = match get(call, &name, Value::Str(String::new())) {
        Some(Value::List(l)) => l,
        _ => Vec::new(),
    };
    let appended = match &value {
        Value::List(wanted) => wanted.iter().all(|w| contains(&now, w)),
        v => contains(&now, v),
    };
    if !appended {
        r.result = Some(false);
        r.comment = format!("Failed append value {shown} to grain {name}");
        return r;
    }
    r.comment = format!("Append value {shown} to grain {name}");
    r.changes.insert("new".into(), new);
    r
}

fn list_absent(call: &StateCall) -> StateReturn {
    let name = grain_name(call);
    let value = call.arg("value").cloned().unwrap_or(Value::Null);
    let mut r = StateReturn::new(&name);
    let grain = get(call, &name, Value::Null).unwrap_or(Value::Null);
    if !grain.is_truthy() {
        r.comment = format!("Grain {name} does not exist");
        return r;
    }
    let Value::List(items) = &grain else {
        r.result = Some(false);
        r.comment = format!("Grain {name} is not a valid list");
        return r;
    };
    let values = match value {
        Value::List(l) => l,
        v => vec![v],
    };
    let mut comments = Vec::new();
    let mut deleted = Vec::new();
    for val in values {
        let shown = val.to_python_str();
        if !contains(items, &val) {
            comments.push(format!("Value {shown} is absent from grain {name}"));
        } else if call.test {
            r.result = None;
            comments.push(format!(
                "Value {shown} in grain {name} is set to be deleted"
            ));
            deleted.push(val);
        } else {
            grains_call(
                call,
                "remove",
                vec![Value::Str(name.clone()), val.clone()],
                Map::default(),
            );
            comments.push(format!("Value {shown} was deleted from grain {name}"));
            deleted.push(val);
        }
    }
    if !deleted.is_empty() {
        r.changes.insert("deleted".into(), Value::List(deleted));
    }
    r.comment = comments.join("\n");
    r
}

fn append(call: &StateCall) -> StateReturn {
    let name = grain_name(call);
    let value = call.arg("value").cloned().unwrap_or(Value::Null);
    let shown = value.to_python_str();
    let mut r = StateReturn::new(&name);
    let grain = get(call, &name, Value::Null).unwrap_or(Value::Null);
    let top_level = call
        .ctx
        .minion
        .grains()
        .is_some_and(|g| g.contains_key(&name));
    if !grain.is_truthy() && !top_level {
        r.result = Some(false);
        r.comment = format!("Grain {name} does not exist");
        return r;
    }
    let mut added = Map::default();
    added.insert("added".into(), value.clone());
    if let Value::List(items) = &grain {
        if contains(items, &value) {
            r.comment = format!("Value {shown} is already in the list for grain {name}");
            return r;
        }
        if call.test {
            r.result = None;
            r.comment = format!("Value {shown} in grain {name} is set to be added");
            r.changes = added;
            return r;
        }
        grains_call(
            call,
            "append",
            vec![Value::Str(name.clone()), value],
            Map::default(),
        );
        r.comment = format!("Value {shown} was added to grain {name}");
        r.changes = added;
        return r;
    }
    if call.arg("convert") != Some(&Value::Bool(true)) {
        r.result = Some(false);
        r.comment = format!("Grain {name} is not a valid list");
        return r;
    }
    if call.test {
        r.result = None;
        r.comment =
            format!("Grain {name} is set to be converted to list and value {shown} will be added");
        r.changes = added;
        return r;
    }
    let mut list = if grain.is_null() { vec![] } else { vec![grain] };
    list.push(value);
    grains_call(
        call,
        "setval",
        vec![Value::Str(name.clone()), Value::List(list)],
        Map::default(),
    );
    r.comment = format!("Value {shown} was added to grain {name}");
    r.changes = added;
    r
}
