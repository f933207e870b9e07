//! `git.config_set` and `git.config_unset`: one key of a repository's
//! (or, with `global: True`, the running user's) git configuration.

use super::cmd::{Git, GitError};
use super::common::arg_str;
use crate::{StateCall, StateReturn};
use brine_core::{Map, Value};
use std::path::Path;

fn fail(mut r: StateReturn, msg: String) -> StateReturn {
    r.result = Some(false);
    r.comment = msg;
    r
}

fn list(v: &[String]) -> Value {
    Value::List(v.iter().cloned().map(Value::Str).collect())
}

fn opt_list(v: &Option<Vec<String>>) -> Value {
    v.as_deref().map_or(Value::Null, list)
}

/// What both states share: `global`, no other unknown keyword, and a
/// repository unless global.
struct Scope {
    git: Git,
    repo: Option<String>,
    global: bool,
}

impl Scope {
    fn read(call: &StateCall, known: &[&str]) -> Result<Scope, String> {
        let extra: Vec<String> = call
            .low
            .iter()
            .filter(|(k, _)| {
                !known.contains(&k.as_str())
                    && k.as_str() != "global"
                    && !k.starts_with("__")
                    && !brine_compile::state::vocabulary::is_internal_keyword(k)
            })
            .map(|(k, v)| format!("{k}={}", v.to_python_str()))
            .collect();
        if !extra.is_empty() {
            return Err(format!(
                "The following keyword arguments are not valid: {}",
                extra.join(", ")
            ));
        }
        let global = call.arg("global").is_some_and(Value::is_truthy);
        let repo = arg_str(call, "repo").filter(|r| !r.is_empty());
        if !global && repo.is_none() {
            return Err("Non-global config options require the 'repo' argument to be set".into());
        }
        Ok(Scope {
            git: Git {
                user: arg_str(call, "user"),
                identity: Vec::new(),
            },
            repo,
            global,
        })
    }

    fn cwd(&self) -> Option<&Path> {
        self.repo.as_deref().map(Path::new)
    }

    fn prefix(&self, capital: bool) -> &'static str {
        match (self.global, capital) {
            (false, _) => "",
            (true, true) => "Global key ",
            (true, false) => "global key ",
        }
    }
}

/// A git error the state does not catch (its first lookups'): raised.
fn uncaught(e: &GitError) -> String {
    crate::raised(format!("salt.exceptions.CommandExecutionError: {e}"))
}

const SET_ARGS: &[&str] = &[
    "name",
    "value",
    "multivar",
    "repo",
    "user",
    "password",
    "output_encoding",
];

/// `git.config_set`: KEY set to VALUE, or to the values of MULTIVAR.
pub fn config_set(call: &StateCall) -> StateReturn {
    let name = call.name().to_string();
    let r = StateReturn::new(&name);
    let value = call.arg("value").filter(|v| !v.is_null());
    let multivar = call.arg("multivar").filter(|v| !v.is_null());
    if value.is_some() && multivar.is_some() {
        return fail(r, "Only one of 'value' and 'multivar' is permitted".into());
    }
    let scope = match Scope::read(call, SET_ARGS) {
        Ok(s) => s,
        Err(e) => return fail(r, e),
    };
    // Salt's state reads `desired` only from one of the two; neither is a
    // NameError there, a raised state here.
    let (desired, shown) = match (value, multivar) {
        (Some(v), _) => {
            let v = v.to_python_str();
            (vec![v.clone()], format!("'{v}'"))
        }
        (None, Some(m)) => {
            let items: Vec<String> = match m {
                Value::List(l) => l.iter().map(Value::to_python_str).collect(),
                other => other
                    .to_python_str()
                    .split(',')
                    .map(str::to_string)
                    .collect(),
            };
            let shown = list(&items).to_python_str();
            (items, shown)
        }
        (None, None) => {
            let mut r = r;
            r.result = Some(false);
            r.comment = crate::raised(
                "UnboundLocalError: cannot access local variable 'desired' where it is not associated with a value",
            );
            return r;
        }
    };
    let pre = match scope.git.config_get_all(scope.cwd(), &name, scope.global) {
        Ok(p) => p,
        Err(e) => return fail(r, uncaught(&e)),
    };
    if pre.as_ref() == Some(&desired) {
        let mut r = r;
        r.result = Some(true);
        r.comment = format!("{}'{name}' is already set to {shown}", scope.prefix(true));
        return r;
    }
    let verb = if pre.is_none() { "added as" } else { "set to" };
    if call.test {
        let mut r = r;
        r.changes.insert("old".into(), opt_list(&pre));
        r.changes.insert("new".into(), list(&desired));
        r.result = None;
        r.comment = format!("{}'{name}' would be {verb} {shown}", scope.prefix(true));
        return r;
    }
    let post = match scope
        .git
        .config_set(scope.cwd(), &name, &desired, scope.global)
    {
        Ok(p) => p,
        Err(e) => {
            return fail(
                r,
                format!(
                    "Failed to set {}'{name}' to {shown}: {}",
                    scope.prefix(false),
                    e.stripped()
                ),
            )
        }
    };
    let mut r = r;
    if pre != post {
        let mut ch = Map::default();
        ch.insert("old".into(), opt_list(&pre));
        ch.insert("new".into(), opt_list(&post));
        r.changes.insert(name.clone(), Value::Map(ch));
    }
    if post.as_ref() != Some(&desired) {
        return fail(
            r,
            format!("Failed to set {}'{name}' to {shown}", scope.prefix(false)),
        );
    }
    r.result = Some(true);
    r.comment = format!("{}'{name}' was {verb} {shown}", scope.prefix(true));
    r
}

const UNSET_ARGS: &[&str] = &[
    "name",
    "value_regex",
    "repo",
    "user",
    "password",
    "output_encoding",
];

fn joined(matches: &[(String, Vec<String>)]) -> String {
    matches
        .iter()
        .map(|(k, vs)| format!("{k} ({})", vs.join(", ")))
        .collect::<Vec<_>>()
        .join("; ")
}

fn as_map(matches: &[(String, Vec<String>)]) -> Map {
    matches
        .iter()
        .map(|(k, vs)| (k.clone(), list(vs)))
        .collect()
}

/// `git.config_unset`: the keys the NAME pattern matches (the values
/// VALUE_REGEX matches) unset; a multivar only with `all: True`.
pub fn config_unset(call: &StateCall) -> StateReturn {
    let name = call.name().to_string();
    let mut r = StateReturn::new(&name);
    r.result = Some(true);
    r.comment = "No matching keys are set".into();
    let all = call.arg("all").is_some_and(Value::is_truthy);
    let mut known = UNSET_ARGS.to_vec();
    known.push("all");
    let scope = match Scope::read(call, &known) {
        Ok(s) => s,
        Err(e) => return fail(r, e),
    };
    let value_regex = arg_str(call, "value_regex");
    let key = format!("^{}$", name.trim_start_matches('^').trim_end_matches('$'));
    let get = |vr: Option<&str>| -> Result<Vec<(String, Vec<String>)>, GitError> {
        scope
            .git
            .config_get_regexp(scope.cwd(), &key, vr, scope.global)
    };
    let pre_matches = match get(value_regex.as_deref()) {
        Ok(m) => m,
        Err(e) => return fail(r, uncaught(&e)),
    };
    if pre_matches.is_empty() {
        return r;
    }
    if !all {
        let greedy: Vec<(String, Vec<String>)> = pre_matches
            .iter()
            .filter(|(_, vs)| vs.len() > 1)
            .cloned()
            .collect();
        if !greedy.is_empty() {
            let msg = if value_regex.is_some() {
                "Multiple values are matched by value_regex for the following keys (set 'all' to True to force removal): "
            } else {
                "Multivar(s) matched by the key expression (set 'all' to True to force removal): "
            };
            return fail(r, format!("{msg}{}", joined(&greedy)));
        }
    }
    if call.test {
        r.changes = as_map(&pre_matches);
        r.result = None;
        r.comment = format!("{} key(s) would have value(s) unset", pre_matches.len());
        return r;
    }
    let pre = if value_regex.is_none() {
        pre_matches.clone()
    } else {
        match get(None) {
            Ok(m) => m,
            Err(e) => return fail(r, e.stripped()),
        }
    };
    let mut failed = Vec::new();
    for (key_name, _) in &pre_matches {
        if let Err(e) = scope.git.config_unset(
            scope.cwd(),
            &name,
            value_regex.as_deref(),
            all,
            scope.global,
        ) {
            tracing::error!("Failed to unset '{key_name}': {}", e.stripped());
            failed.push(key_name.clone());
        }
    }
    if !failed.is_empty() {
        return fail(
            r,
            format!(
                "Error(s) occurred unsetting values for the following keys (see the minion log for details): {}",
                failed.join(", ")
            ),
        );
    }
    let post = match get(None) {
        Ok(m) => m,
        Err(e) => return fail(r, e.stripped()),
    };
    for (key_name, values) in &pre {
        let after = post.iter().find(|(k, _)| k == key_name).map(|(_, v)| v);
        let Some(after) = after else {
            // Salt records the key as unset, then reads it from the
            // answer it is missing from: a KeyError ends the state (and
            // a raised state shows no changes).
            let mut r = StateReturn::new(&name);
            r.result = Some(false);
            r.comment = crate::raised(format!(
                "KeyError: {}",
                Value::Str(key_name.clone()).to_python_repr()
            ));
            return r;
        };
        let unset: Vec<String> = values
            .iter()
            .filter(|v| !after.contains(v))
            .cloned()
            .collect();
        if !unset.is_empty() {
            r.changes.insert(key_name.clone(), list(&unset));
        }
    }
    let post_matches = if value_regex.is_none() {
        post
    } else {
        match get(value_regex.as_deref()) {
            Ok(m) => m,
            Err(e) => return fail(r, e.stripped()),
        }
    };
    if !post_matches.is_empty() {
        return fail(
            r,
            format!("Failed to unset value(s): {}", joined(&post_matches)),
        );
    }
    r.comment = "Value(s) successfully unset".into();
    r
}
