//! `verify_high` (Salt's `State.verify_high`): the structural checks of high
//! data, with Salt's messages, in Salt's order (per ID, per state module,
//! per argument).
//!
//! It does not check that requisite targets exist: a `require` to nothing
//! is reported when the state runs, a `*_in` to nothing by requisite_in's
//! strict extend ("Cannot extend ID ...").

use super::py::{first_key, is_dunder, is_hashable, py_str};
use crate::state::vocabulary::RECURSION_CHECKED_REQUISITES;
use crate::state::HighData;
use brine_core::{Map, Value};
use foldhash::{HashMap, HashMapExt};

/// Per ID: `"state"` → its state module, and target → requisite kind, of the
/// last requisite argument seen (Salt resets it for each one). Only string
/// targets are kept: no other kind of value can equal an ID or `"state"`.
/// Hashed with foldhash: SipHash and a fresh seed for each of the
/// thousands of small maps were a third of a fleet highstate's check.
type Reqs<'a> = HashMap<&'a str, HashMap<&'a str, &'a str>>;

/// The errors Salt's `verify_high` reports for this high data.
pub fn verify_high(high: &HighData) -> Vec<String> {
    let mut errors = Vec::new();
    let mut reqs: Reqs = HashMap::with_capacity(high.len());
    for (name, body) in high {
        if is_dunder(name) {
            continue;
        }
        let Some(body) = body.as_map() else {
            errors.push(format!(
                "The type {name} in {} is not formatted as a dictionary",
                py_str(body)
            ));
            continue;
        };
        let sls = body.get("__sls__").map(py_str).unwrap_or_default();
        for (state, run) in body {
            if is_dunder(state) {
                continue;
            }
            match run {
                Value::Null => errors.push(format!(
                    "ID '{name}' in SLS '{sls}' contains a short declaration ({state}) with a \
                     trailing colon. When not passing any arguments to a state, the colon must \
                     be omitted."
                )),
                Value::List(args) => {
                    verify_state(name, state, args, &sls, &mut reqs, &mut errors);
                }
                _ => errors.push(format!(
                    "State '{name}' in SLS '{sls}' is not formed as a list"
                )),
            }
        }
    }
    errors
}

fn verify_state<'a>(
    name: &'a str,
    state: &'a str,
    args: &'a [Value],
    sls: &str,
    reqs: &mut Reqs<'a>,
    errors: &mut Vec<String>,
) {
    let mut funs: Vec<&str> = Vec::new();
    if let Some((_, fun)) = state.split_once('.') {
        funs.push(fun);
    }
    for arg in args {
        match arg {
            Value::Str(fun) => {
                funs.push(fun);
                if fun.trim().contains(' ') {
                    errors.push(format!(
                        "The function \"{fun}\" in state \"{name}\" in SLS \"{sls}\" has \
                         whitespace, a function with whitespace is not supported, perhaps this \
                         is an argument that is missing a \":\""
                    ));
                }
            }
            Value::Map(arg) => verify_arg(name, state, arg, sls, reqs, errors),
            _ => {}
        }
    }
    match funs.len() {
        0 if state == "require" || state == "watch" => {}
        0 => errors.push(format!(
            "No function declared in state '{name}' in SLS '{sls}'"
        )),
        1 => {}
        _ => errors.push(format!(
            "Too many functions declared in state '{name}' in SLS '{sls}'. Please choose one of \
             the following: {}",
            funs.join(", ")
        )),
    }
}

fn verify_arg<'a>(
    name: &'a str,
    state: &'a str,
    arg: &'a Map,
    sls: &str,
    reqs: &mut Reqs<'a>,
    errors: &mut Vec<String>,
) {
    let Some(argfirst) = first_key(arg) else {
        return;
    };
    let value = arg.get(argfirst).unwrap_or(&Value::Null);
    if argfirst == "names" && !matches!(value, Value::List(_)) {
        errors.push(format!(
            "The 'names' argument in state '{name}' in SLS '{sls}' needs to be formed as a list"
        ));
    }
    if !RECURSION_CHECKED_REQUISITES.contains(&argfirst) {
        return;
    }
    match value {
        Value::List(items) => {
            let mut mine = HashMap::with_capacity(1 + items.len());
            mine.insert("state", state);
            reqs.insert(name, mine);
            for req in items {
                check_requisite(name, state, req, sls, reqs, errors);
            }
        }
        _ => errors.push(format!(
            "The {argfirst} statement in state '{name}' in SLS '{sls}' needs to be formed as a list"
        )),
    }
    if arg.len() != 1 {
        errors.push(format!(
            "Multiple dictionaries defined in argument of state '{name}' in SLS '{sls}'"
        ));
    }
}

/// One requisite target: shape checks, then the direct-recursion check
/// (A requires B with B's module while B requires A with A's module).
fn check_requisite<'a>(
    name: &'a str,
    state: &'a str,
    req: &'a Value,
    sls: &str,
    reqs: &mut Reqs<'a>,
    errors: &mut Vec<String>,
) {
    let (req_key, req_val): (&str, &Value) = match req {
        Value::Str(_) => ("id", req),
        Value::Map(m) => match m.iter().next() {
            Some((k, v)) => (k, v),
            None => return,
        },
        other => {
            errors.push(format!(
                "Requisite declaration {} in SLS {sls} is not formed as a single key dictionary",
                py_str(other)
            ));
            return;
        }
    };
    if let Some((prefix, _)) = req_key.split_once('.') {
        errors.push(format!(
            "Invalid requisite type '{req_key}' in state '{name}', in SLS '{sls}'. Requisite \
             types must not contain dots, did you mean '{prefix}'?"
        ));
    }
    if !is_hashable(req_val) {
        errors.push(format!(
            "Illegal requisite \"{}\", please check your syntax.\n",
            py_str(req_val)
        ));
        return;
    }
    let Value::Str(target) = req_val else { return };
    let target = target.as_str();
    if let Some(mine) = reqs.get_mut(name) {
        mine.insert(target, req_key);
    }
    let recursive = reqs.get(target).is_some_and(|theirs| {
        theirs.get(name) == Some(&state)
            && theirs.get("state") == reqs.get(name).and_then(|mine| mine.get(target))
    });
    if recursive {
        errors.push(format!(
            "A recursive requisite was found, SLS \"{sls}\" ID \"{name}\" ID \"{target}\""
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::compile::test_high;

    #[test]
    fn direct_recursion_is_reported_once() {
        let high = test_high(
            "a: {__sls__: s, test: [nop, {require: [{test: b}]}]}\n\
             b: {__sls__: s, test: [nop, {require: [{test: a}]}]}",
        );
        assert_eq!(
            verify_high(&high),
            vec!["A recursive requisite was found, SLS \"s\" ID \"b\" ID \"a\"".to_string()]
        );
    }

    #[test]
    fn shapes_salt_rejects() {
        let high = test_high(
            "a: {__sls__: s, test: ~}\n\
             b: {__sls__: s, test.nop: [x]}\n\
             c: {__sls__: s, test: [nop, {require: {test: a}}]}\n\
             d: {__sls__: s, require: []}\n\
             __extend__: []",
        );
        assert_eq!(
            verify_high(&high),
            vec![
                "ID 'a' in SLS 's' contains a short declaration (test) with a trailing colon. \
                 When not passing any arguments to a state, the colon must be omitted."
                    .to_string(),
                "Too many functions declared in state 'b' in SLS 's'. Please choose one of the \
                 following: nop, x"
                    .to_string(),
                "The require statement in state 'c' in SLS 's' needs to be formed as a list"
                    .to_string(),
            ]
        );
    }
}
