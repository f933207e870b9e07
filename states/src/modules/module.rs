//! The `module` state module (Salt's `salt/states/module.py`): run
//! execution functions from a state. `module.run` takes both of Salt's
//! syntaxes and tells them apart as Salt 3007 does, from the arguments
//! alone (the `use_superseded` option no longer matters there):
//!
//! - the current one lists calls, `module.run: [{test.echo: [{text: hi}]}]`,
//!   each key a `module.function` (a `:suffix` lets one function be called
//!   twice) with its positional arguments and `{keyword: value}` dicts;
//! - the legacy one names one function, `module.run: [{name: test.echo},
//!   {text: hi}]`, its parameters given by keyword (`m_name`, `m_fun`,
//!   `m_names`, `m_state`, `m_saltenv` for the ones the state system keeps
//!   for itself), `args`/`kwargs` for its `*args`/`**kwargs`.
//!
//! A call is legacy when any argument key (besides `name`, `sfun`,
//! `__reqs__`) lacks a dot, or when `name` is the only one. `module.wait`
//! (and its alias `module.watch`) does nothing until a watched state
//! changes; then `mod_watch`, which is `module.run`, runs it.

use crate::{StateCall, StateFunction, StateModule, StateReturn};
use brine_compile::minion_data::FunctionError;
use brine_compile::state::vocabulary::is_internal_keyword;
use brine_core::args::CallArgs;
use brine_core::sig;
use brine_core::signature::Signature;
use brine_core::{Map, Value};

/// The `module` state module.
pub static MODULE: StateModule = StateModule {
    name: "module",
    doc: "Execution functions run from states: module.run calls them (in \
either of Salt's syntaxes), module.wait only when a watched state changed.",
    functions: &[
        StateFunction::new(
            "mod_watch",
            sig!(**kwargs),
            "What a watch requisite on a module state runs: module.run with the \
state's arguments.",
            run,
        ),
        StateFunction::new(
            "run",
            sig!(**kwargs),
            "Call execution functions: each argument named module.function (a \
':suffix' allowed) is called with its list of positional values and {keyword: value} \
dicts; or, in the legacy form, the one function NAME with its parameters as keyword \
arguments (m_name, m_fun, m_names, m_state, m_saltenv for those the state system \
reserves; args and kwargs for its *args and **kwargs). Fails when a call fails or \
returns False or a dict saying result False or a non-zero retcode.",
            run,
        ),
        StateFunction::new(
            "wait",
            sig!(name, **kwargs),
            "Run as module.run, but only when a state this one watches changed; \
otherwise succeed doing nothing.",
            wait,
        ),
        StateFunction::new(
            "watch",
            sig!(name, **kwargs),
            "Another name for module.wait.",
            wait,
        ),
    ],
};

fn wait(call: &StateCall) -> StateReturn {
    StateReturn::new(call.name())
}

/// The keyword arguments Salt's state system hands the function: the low
/// chunk less its own keywords.
fn kwargs_of(low: &Map) -> Map {
    low.iter()
        .filter(|(k, _)| !is_internal_keyword(k))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect()
}

fn run(call: &StateCall) -> StateReturn {
    let kwargs = kwargs_of(call.low);
    let keys: Vec<&String> = kwargs
        .keys()
        .filter(|k| !matches!(k.as_str(), "name" | "__reqs__" | "sfun"))
        .collect();
    let legacy = keys.iter().any(|k| !k.contains('.')) || (keys.is_empty() && !kwargs.is_empty());
    if legacy {
        legacy_run(call, kwargs)
    } else {
        new_run(call, kwargs)
    }
}

/// Salt's `_get_result`: a bool is the result; a dict fails when it holds
/// `result: False` or a non-zero `retcode` at any depth; anything else
/// succeeds.
fn get_result(ret: &Value) -> bool {
    match ret {
        Value::Bool(b) => *b,
        Value::Map(m) => dict_result(m),
        _ => true,
    }
}

fn dict_result(m: &Map) -> bool {
    for (k, v) in m {
        if (k == "result" && *v == Value::Bool(false))
            || (k == "retcode"
                && !matches!(v, Value::Int(0) | Value::Bool(false))
                && *v != Value::Float(0.0))
        {
            return false;
        }
        if let Value::Map(inner) = v {
            if !dict_result(inner) {
                return false;
            }
        }
    }
    true
}

/// A Python `TypeError`/`SaltInvocationError` text, or another exception
/// (Salt lets those out of the state).
enum CallFailure {
    /// Caught by `module.run`: its message.
    Caught(String),
    /// Raised through: the state fails with it.
    Raised(String),
}

fn failure_of(e: FunctionError) -> CallFailure {
    match e {
        FunctionError::InvalidArguments(m) | FunctionError::Invocation(m) => CallFailure::Caught(m),
        FunctionError::NotAvailable(f) => CallFailure::Caught(format!("'{f}' is not available.")),
        other => CallFailure::Raised(other.to_string()),
    }
}

/// The current syntax (Salt's `_run`).
fn new_run(call: &StateCall, mut kwargs: Map) -> StateReturn {
    kwargs.shift_remove("name");
    let mut r = StateReturn::new("");
    r.result = None;
    r.extra.insert(
        "name".into(),
        Value::List(kwargs.keys().map(|k| Value::Str(k.clone())).collect()),
    );
    let functions: Vec<&String> = kwargs.keys().filter(|k| k.contains('.')).collect();
    let base = |f: &str| f.split(':').next().unwrap_or(f).to_string();
    let mut missing = Vec::new();
    let mut tests = Vec::new();
    for f in &functions {
        let f = base(f);
        if call.ctx.minion.signature(&f).is_none() {
            missing.push(f);
        } else if call.test {
            tests.push(f);
        }
    }
    if functions.is_empty() {
        r.comment = "No function provided.".into();
        r.result = Some(false);
        return r;
    }
    if !tests.is_empty() || !missing.is_empty() {
        // Salt's plural marker is `len > 1 or ""`: "True" when plural.
        let plural = |n: usize| if n > 1 { "True" } else { "" };
        let mut parts = Vec::new();
        if !missing.is_empty() {
            parts.push(format!(
                "Unavailable function{}: {}.",
                plural(missing.len()),
                missing.join(", ")
            ));
        } else {
            parts.push(String::new());
        }
        if !tests.is_empty() {
            parts.push(format!(
                "Function{} {} to be executed.",
                plural(tests.len()),
                tests.join(", ")
            ));
        } else {
            parts.push(String::new());
        }
        r.comment = parts.join(" ").trim().to_string();
        if !missing.is_empty() {
            r.result = Some(false);
        }
        return r;
    }
    let mut failures = Vec::new();
    let mut success = Vec::new();
    for func in &functions {
        let name = base(func);
        let Some(sig) = call.ctx.minion.signature(&name) else {
            continue;
        };
        let outcome = bind_call(&sig, &name, kwargs.get(func.as_str()))
            .and_then(|args| call.ctx.minion.call(&name, args).map_err(failure_of));
        match outcome {
            Ok(ret) => {
                if !get_result(&ret) {
                    match &ret {
                        Value::Map(m) => failures.push(format!(
                            "'{func}' failed: {}",
                            m.get("comment")
                                .map(Value::to_python_str)
                                .unwrap_or_else(|| "(error message N/A)".into())
                        )),
                        Value::Bool(false) => failures.push(format!("'{func}': False")),
                        _ => {}
                    }
                } else {
                    let said = match &ret {
                        Value::Map(m) => m
                            .get("comment")
                            .map(Value::to_python_str)
                            .unwrap_or_else(|| "Success".into()),
                        other => other.to_python_str(),
                    };
                    success.push(format!("{func}: {said}"));
                    r.changes.insert(func.to_string(), ret);
                }
            }
            Err(CallFailure::Caught(msg)) => failures.push(format!("'{func}' failed: {msg}")),
            Err(CallFailure::Raised(msg)) => {
                // Salt's state crashes with the exception's traceback.
                let mut crashed = StateReturn::new(call.name());
                crashed.result = Some(false);
                crashed.comment = crate::raised(msg);
                return crashed;
            }
        }
    }
    let failed = !failures.is_empty();
    failures.extend(success);
    r.comment = failures.join(", ");
    r.result = Some(!failed);
    r
}

/// Salt's `call_function`: a call's list of positional values and
/// `{keyword: value}` dicts bound to the function's parameters. A dict
/// naming a parameter without a default fills that position; the others
/// are keywords. Salt passes every default as a keyword too, so a
/// positional value reaching a parameter that has one is Python's
/// "multiple values" error.
fn bind_call(sig: &Signature, name: &str, given: Option<&Value>) -> Result<CallArgs, CallFailure> {
    let items: Vec<Value> = match given {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::List(l)) => l.clone(),
        // Python iterates what it is given: a string's characters, a
        // dict's keys.
        Some(Value::Str(s)) => s.chars().map(|c| Value::Str(c.to_string())).collect(),
        Some(Value::Map(m)) => m.keys().map(|k| Value::Str(k.clone())).collect(),
        Some(other) => {
            return Err(CallFailure::Caught(format!(
                "'{}' object is not reversible",
                other.type_name()
            )))
        }
    };
    let nreq = sig.args.len().saturating_sub(sig.ndefaults);
    let expected = &sig.args[..nreq];
    let defaulted = &sig.args[nreq..];
    let mut positional = Vec::new();
    let mut by_name = Map::default();
    let mut kwargs = Map::default();
    // Salt walks the list backwards: a later dict's keyword wins.
    for item in items.into_iter().rev() {
        match item {
            Value::Map(m) => {
                for (k, v) in &m {
                    if expected.contains(&k.as_str()) {
                        by_name.insert(k.clone(), v.clone());
                    } else {
                        // Salt updates with the whole dict here.
                        for (k2, v2) in &m {
                            kwargs.insert(k2.clone(), v2.clone());
                        }
                    }
                }
            }
            other => positional.push(other),
        }
    }
    positional.reverse();
    for arg in expected {
        if let Some(v) = by_name.shift_remove(*arg) {
            positional.push(v);
        }
    }
    let mut passed = positional.len();
    if nreq > passed {
        let mut missing = Vec::new();
        for arg in &sig.args[passed..] {
            if defaulted.contains(arg) || kwargs.contains_key(*arg) {
                passed += 1;
            } else {
                missing.push(*arg);
            }
        }
        if !missing.is_empty() {
            return Err(CallFailure::Caught(format!(
                "Missing arguments: {}",
                missing.join(", ")
            )));
        }
        if nreq > passed {
            return Err(CallFailure::Caught(format!(
                "Function expects {nreq} positional parameters, got only {passed}"
            )));
        }
    }
    // Defaults go as keywords: a positional value landing on one of them
    // binds it twice.
    let short = name.rsplit('.').next().unwrap_or(name);
    for (i, _) in positional.iter().enumerate() {
        if let Some(arg) = sig.args.get(i).filter(|a| defaulted.contains(a)) {
            return Err(CallFailure::Caught(format!(
                "{short}() got multiple values for argument '{arg}'"
            )));
        }
    }
    Ok(CallArgs {
        args: positional,
        kwargs,
    })
}

/// The legacy parameter a state keyword stands for (`m_name` for `name`...).
fn legacy_key(arg: &str) -> String {
    match arg {
        "name" | "fun" | "names" | "state" | "saltenv" => format!("m_{arg}"),
        other => other.to_string(),
    }
}

/// The legacy syntax (Salt's `_legacy_run`).
fn legacy_run(call: &StateCall, mut kwargs: Map) -> StateReturn {
    let name = kwargs
        .shift_remove("name")
        .map(|v| v.to_python_str())
        .unwrap_or_default();
    let mut r = StateReturn::new(&name);
    r.result = None;
    let Some(sig) = call.ctx.minion.signature(&name) else {
        r.comment = format!("Module function {name} is not available");
        r.result = Some(false);
        return r;
    };
    if call.test {
        r.comment = format!("Module function {name} is set to execute");
        return r;
    }
    let nreq = sig.args.len().saturating_sub(sig.ndefaults);
    let mut defaults: Map = sig.args[nreq..]
        .iter()
        .map(|a| a.to_string())
        .zip(sig.default_values())
        .collect();
    let names: Vec<String> = defaults.keys().cloned().collect();
    for arg in names {
        if matches!(arg.as_str(), "name" | "fun" | "state" | "saltenv") {
            if let Some(v) = kwargs.shift_remove(&format!("m_{arg}")) {
                defaults.insert(arg.clone(), v);
            }
        }
        if let Some(v) = kwargs.shift_remove(&arg) {
            defaults.insert(arg, v);
        }
    }
    let mut args = Vec::new();
    let mut missing = Vec::new();
    for arg in sig.args {
        let rarg = legacy_key(arg);
        if let Some(v) = defaults.get(*arg) {
            args.push(v.clone());
        } else if let Some(v) = kwargs.shift_remove(&rarg) {
            args.push(v);
        } else {
            missing.push(rarg);
        }
    }
    if !missing.is_empty() {
        r.comment = format!("The following arguments are missing: {}", missing.join(" "));
        r.result = Some(false);
        return r;
    }
    // brine's signatures do not name `*args`/`**kwargs`: Salt's functions
    // call them `args` and `kwargs`.
    if sig.varargs {
        if let Some(v) = kwargs.shift_remove("args") {
            let Value::List(l) = v else {
                r.comment = "'args' must be a list.".into();
                r.result = Some(false);
                return r;
            };
            args.extend(l);
        }
    }
    let mut nkwargs = Map::default();
    if sig.kwargs {
        if let Some(v) = kwargs.shift_remove("kwargs") {
            let Value::Map(m) = v else {
                r.comment = "'kwargs' must be a dict.".into();
                r.result = Some(false);
                return r;
            };
            nkwargs = m;
        }
    }
    let ret = match call.ctx.minion.call(
        &name,
        CallArgs {
            args,
            kwargs: nkwargs,
        },
    ) {
        Ok(v) => v,
        Err(e) => {
            let msg = match failure_of(e) {
                CallFailure::Caught(m) | CallFailure::Raised(m) => m,
            };
            // A bare Python `Exception` reaches brine as "Exception: msg"
            // (what salt-call prints); Salt's `str(e)` here is the message.
            let msg = msg
                .strip_prefix("Exception: ")
                .map(str::to_string)
                .unwrap_or(msg);
            r.comment = format!("Module function {name} threw an exception. Exception: {msg}");
            r.result = Some(false);
            return r;
        }
    };
    r.result = Some(get_result(&ret));
    r.changes.insert("ret".into(), ret);
    r.comment = format!("Module function {name} executed");
    r
}
