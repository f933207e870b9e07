//! The `test` state module (Salt's `salt/states/test.py`): states that
//! succeed or fail, with or without changes, on demand; `mod_watch`
//! reports which watched states changed.

use crate::{StateCall, StateFunction, StateModule, StateReturn};
use brine_core::sig;
use brine_core::{Map, Value};

/// The pretend change every "with changes" function reports.
fn pretend_changes() -> Map {
    let mut inner = Map::default();
    inner.insert("old".into(), Value::Str("Unchanged".into()));
    inner.insert(
        "new".into(),
        Value::Str("Something pretended to change".into()),
    );
    let mut m = Map::default();
    m.insert("testing".into(), Value::Map(inner));
    m
}

/// Salt's return for a state function that raised (the traceback Salt
/// prints is reduced to the exception).
fn raised(name: &str, exc: &str) -> StateReturn {
    let mut r = StateReturn::new(name);
    r.result = Some(false);
    r.comment = crate::raised(exc);
    r
}

fn invocation(msg: &str) -> String {
    format!("salt.exceptions.SaltInvocationError: {msg}")
}

/// The `comment` keyword, else `default`.
fn comment_or(call: &StateCall, default: &str) -> String {
    call.arg("comment")
        .map(Value::to_python_str)
        .unwrap_or_else(|| default.to_string())
}

/// The `test` state module.
pub static MODULE: StateModule = StateModule {
    name: "test",
    doc: "States that do nothing but answer as told: to try requisites, outputters \
and failures without touching the host.",
    functions: &[
        StateFunction::new(
            "check_pillar",
            sig!(
                name,
                present = null,
                boolean = null,
                integer = null,
                string = null,
                listing = null,
                dictionary = null,
                verbose = false
            ),
            "Fail unless the pillar keys listed under PRESENT exist and \
those under each type name (string, integer, boolean, listing, dictionary) have that \
type.",
            check_pillar,
        ),
        StateFunction::new(
            "configurable_test_state",
            sig!(
                name,
                changes = true,
                result = true,
                comment = "",
                warnings = null,
                allow_test_mode_failure = false
            ),
            "Answer the RESULT, CHANGES and COMMENT given \
(changes and result may be 'Random').",
            configurable,
        ),
        StateFunction::new(
            "fail_with_changes",
            sig!(name, **kwargs),
            "Fail, reporting a pretend change.",
            fail_with_changes,
        ),
        StateFunction::new(
            "fail_without_changes",
            sig!(name, **kwargs),
            "Fail, with no changes.",
            fail_without_changes,
        ),
        StateFunction::new(
            "mod_watch",
            sig!(name, sfun = null, **kwargs),
            "What a watch requisite on a test state runs: succeed with a \
pretend change.",
            mod_watch,
        ),
        StateFunction::new(
            "nop",
            sig!(name, **kwargs),
            "Succeed without doing anything; any arguments are accepted.",
            |call| {
                let mut r = StateReturn::new(call.name());
                r.comment = "Success!".into();
                r
            },
        ),
        StateFunction::new(
            "show_notification",
            sig!(name, text = null, **kwargs),
            "Succeed with TEXT as the comment.",
            show_notification,
        ),
        StateFunction::new(
            "succeed_with_changes",
            sig!(name, **kwargs),
            "Succeed, reporting a pretend change.",
            succeed_with_changes,
        ),
        StateFunction::new(
            "succeed_without_changes",
            sig!(name, **kwargs),
            "Succeed, with no changes.",
            |call| {
                let mut r = StateReturn::new(call.name());
                r.comment = comment_or(call, "Success!");
                r
            },
        ),
    ],
};

fn fail_without_changes(call: &StateCall) -> StateReturn {
    let mut r = StateReturn::new(call.name());
    r.result = Some(false);
    r.comment = comment_or(call, "Failure!");
    if call.test {
        r.comment = "If we weren't testing, this would be a failure!".into();
    }
    r
}

fn succeed_with_changes(call: &StateCall) -> StateReturn {
    let mut r = StateReturn::new(call.name());
    r.comment = comment_or(call, "Success!");
    r.changes = pretend_changes();
    if call.test {
        r.result = None;
        r.comment = "If we weren't testing, this would be successful with changes".into();
    }
    r
}

fn fail_with_changes(call: &StateCall) -> StateReturn {
    let mut r = StateReturn::new(call.name());
    r.result = Some(false);
    r.comment = comment_or(call, "Failure!");
    r.changes = pretend_changes();
    if call.test {
        r.result = None;
        r.comment = "If we weren't testing, this would be failed with changes".into();
    }
    r
}

fn show_notification(call: &StateCall) -> StateReturn {
    let name = call.name();
    let Some(text) = call.arg("text").filter(|t| t.is_truthy()) else {
        return raised(name, &invocation("Missing required argument text."));
    };
    let mut r = StateReturn::new(name);
    r.comment = text.to_python_str();
    r
}

fn configurable(call: &StateCall) -> StateReturn {
    let name = call.name();
    let comment = call
        .arg("comment")
        .cloned()
        .unwrap_or(Value::Str(String::new()));
    let changes = call.arg("changes").cloned().unwrap_or(Value::Bool(true));
    let result = call.arg("result").cloned().unwrap_or(Value::Bool(true));
    let mut r = StateReturn::new(name);
    r.comment = comment.to_python_str();
    r.changes = match &changes {
        Value::Bool(true) => pretend_changes(),
        Value::Bool(false) => Map::default(),
        other if other.to_python_str().to_lowercase() == "random" => {
            if coin() {
                pretend_changes()
            } else {
                Map::default()
            }
        }
        _ => {
            return raised(
                name,
                &invocation(
                    "You have specified the state option 'changes' with invalid arguments. It \
                     must be either True, False, or 'Random'",
                ),
            )
        }
    };
    r.result = match &result {
        Value::Bool(b) => Some(*b),
        other if other.to_python_str().to_lowercase() == "random" => Some(coin()),
        _ => {
            return raised(
                name,
                &invocation(
                    "You have specified the state option 'result' with invalid arguments. It \
                     must be either True, False, or 'Random'",
                ),
            )
        }
    };
    match call.arg("warnings") {
        None | Some(Value::Null) => {}
        Some(Value::Str(w)) => {
            r.extra
                .insert("warnings".into(), Value::List(vec![Value::Str(w.clone())]));
        }
        Some(Value::List(l)) => {
            r.extra.insert("warnings".into(), Value::List(l.clone()));
        }
        Some(_) => {
            return raised(
                name,
                &invocation(
                    "You have specified the state option 'warnings' with invalid arguments. It \
                     must be a string or a list of strings",
                ),
            )
        }
    }
    if call.test {
        let allow_fail = call
            .arg("allow_test_mode_failure")
            .is_some_and(Value::is_truthy);
        r.result = if allow_fail && result == Value::Bool(false) {
            Some(false)
        } else if changes == Value::Bool(false) {
            Some(true)
        } else {
            None
        };
        r.comment = if comment.is_truthy() {
            comment.to_python_str()
        } else {
            "This is a test".into()
        };
    }
    r
}

/// `mod_watch`: lists the watched states that changed; `result`,
/// `comment` and `changes` keywords override the defaults.
fn mod_watch(call: &StateCall) -> StateReturn {
    let mut changed = Vec::new();
    let watch = call
        .arg("__reqs__")
        .and_then(|r| r.get("watch"))
        .and_then(Value::as_list)
        .unwrap_or(&[]);
    for req in watch {
        if req.get("__changed__").is_some_and(Value::is_truthy) {
            let part = |k: &str| req.get(k).map(Value::to_python_str).unwrap_or_default();
            changed.push(Value::Str(format!("{}: {}", part("state"), part("__id__"))));
        }
    }
    let mut r = StateReturn::new(call.name());
    r.result = match call.arg("result") {
        None => Some(true),
        Some(Value::Null) => None,
        Some(v) => Some(v.is_truthy()),
    };
    r.comment = call
        .arg("comment")
        .map(Value::to_python_str)
        .unwrap_or_else(|| "Watch statement fired.".into());
    match call.arg("changes") {
        None => {
            let mut m = Map::default();
            m.insert("Requisites with changes".into(), Value::List(changed));
            r.changes = m;
        }
        Some(Value::Map(m)) => r.changes = m.clone(),
        // Not a mapping: the runtime's output check rejects the return.
        Some(other) => {
            r.extra.insert("changes".into(), other.clone());
        }
    }
    r
}

/// `check_pillar`: the listed pillar keys exist and have the listed types.
fn check_pillar(call: &StateCall) -> StateReturn {
    let name = call.name();
    let kinds = [
        ("present", "None"),
        ("boolean", "<class 'bool'>"),
        ("integer", "<class 'int'>"),
        ("string", "(<class 'str'>,)"),
        ("listing", "<class 'list'>"),
        ("dictionary", "<class 'dict'>"),
    ];
    if !kinds
        .iter()
        .any(|(k, _)| call.arg(k).is_some_and(Value::is_truthy))
    {
        return raised(name, &invocation("Missing required argument text."));
    }
    let verbose = call.arg("verbose").is_some_and(Value::is_truthy);
    let mut r = StateReturn::new(name);
    let mut fine: Vec<(String, &str)> = Vec::new();
    let mut failed: Vec<(String, Option<&str>)> = Vec::new();
    for (kind, type_name) in kinds {
        let keys: Vec<String> = match call.arg(kind) {
            None | Some(Value::Null) => Vec::new(),
            Some(v) if !v.is_truthy() => Vec::new(),
            Some(Value::Str(s)) => vec![s.clone()],
            Some(Value::List(l)) => l.iter().map(Value::to_python_str).collect(),
            Some(_) => return raised(name, "TypeError"),
        };
        for key in keys {
            let value = call.ctx.pillar_value(&key);
            let ok = match value {
                None | Some(Value::Null) => {
                    failed.retain(|(k, _)| *k != key);
                    failed.push((key, None));
                    r.result = Some(false);
                    continue;
                }
                Some(v) => match kind {
                    "present" => true,
                    // Python: a bool is an int too.
                    "boolean" => matches!(v, Value::Bool(_)),
                    "integer" => matches!(v, Value::Int(_) | Value::Bool(_)),
                    "string" => matches!(v, Value::Str(_)),
                    "listing" => matches!(v, Value::List(_)),
                    _ => matches!(v, Value::Map(_)),
                },
            };
            if !ok {
                failed.retain(|(k, _)| *k != key);
                failed.push((key, Some(type_name)));
                r.result = Some(false);
            } else if verbose {
                fine.retain(|(k, _)| *k != key);
                fine.push((key, type_name));
            }
        }
    }
    for (key, t) in &failed {
        match t {
            None => r
                .comment
                .push_str(&format!("Pillar key \"{key}\" is missing.\n")),
            Some(t) => r
                .comment
                .push_str(&format!("Pillar key \"{key}\" is not {t}.\n")),
        }
    }
    if verbose && !fine.is_empty() {
        r.comment.push_str("Those keys passed the check:\n");
        for (key, t) in &fine {
            r.comment.push_str(&format!("- {key} ({t})\n"));
        }
    }
    r
}

/// A coin flip for the `Random` options.
fn coin() -> bool {
    crate::random::below(2) == 1
}
