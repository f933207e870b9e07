//! Salt's permission expressions (`external_auth`, `publisher_acl`),
//! judged as Salt's master judges them:
//!
//! - a string is a function regex for every minion (`test.*`);
//! - `{target: [function regexes]}` allows those functions on the minions
//!   the target (a compound expression) selects — the job's own target
//!   must select no minion outside them;
//! - a function may carry argument conditions:
//!   `{fun_regex: {args: [regex, ...], kwargs: {key: regex}}}` (or a list
//!   of such), `null` for "anything";
//! - `@runner`, `@wheel`, `@jobs` (or `{'@runner': [function regexes]}`)
//!   allow those clients; `@<module>` one runner or wheel module.
//!
//! Regexes match at the start of the name, as Python's `re.match` does.

use brine_core::{Map, Value};

/// Whether `regex` matches `text` from its start (an invalid regex
/// matches nothing).
fn matches_start(regex: &str, text: &str) -> bool {
    regex::Regex::new(&format!("^(?:{regex})")).is_ok_and(|r| r.is_match(text))
}

/// What `user` (in `groups`) may do under one backend's table, as Salt's
/// master enforces it: the entries whose key names the user, and their
/// groups' (`name%`); `*`'s only when no entry names the user.
pub fn auth_list(table: &Map, user: &str, groups: &[String]) -> Vec<Value> {
    let mut perms = Vec::new();
    let mut named = false;
    for (key, entry) in table {
        let Value::List(l) = entry else {
            continue;
        };
        if key == "*" {
            continue;
        }
        if let Some(group) = key.strip_suffix('%') {
            if groups.iter().any(|g| g == group) {
                perms.extend(l.iter().cloned());
            }
        } else if names_user(key, user) {
            named = true;
            perms.extend(l.iter().cloned());
        }
    }
    if !named {
        if let Some(Value::List(l)) = table.get("*") {
            perms.extend(l.iter().cloned());
        }
    }
    perms
}

/// Whether a table key names `user`. Salt matches with the user name as
/// the pattern (a glob, else a whole-key regex) — for a plain name, the
/// key equal to it.
fn names_user(key: &str, user: &str) -> bool {
    brine_compile::matcher::glob::expr_match(key, user)
}

/// The permissions a login shows (salt-api's sum): the user's entry,
/// `*`'s and their groups' (`name%`).
pub fn shown(table: &Map, user: &str, groups: &[String]) -> Vec<Value> {
    let list = |k: &str| match table.get(k) {
        Some(Value::List(l)) => l.clone(),
        _ => Vec::new(),
    };
    let mut perms = list(user);
    perms.extend(list("*"));
    for g in groups {
        perms.extend(list(&format!("{g}%")));
    }
    sorted(&perms)
}

/// Salt's order for showing permissions at login: the strings sorted,
/// then the rest, duplicates dropped.
fn sorted(perms: &[Value]) -> Vec<Value> {
    let mut strs: Vec<String> = Vec::new();
    let mut rest: Vec<Value> = Vec::new();
    for p in perms {
        match p {
            Value::Str(s) if !strs.contains(s) => strs.push(s.clone()),
            Value::Str(_) => {}
            other if !rest.contains(other) => rest.push(other.clone()),
            _ => {}
        }
    }
    strs.sort();
    rest.sort_by_key(|v| v.to_python_repr());
    strs.into_iter().map(Value::Str).chain(rest).collect()
}

/// A job for minions: may `perms` run `fun` with `args` (a publication's,
/// kwargs last as `{__kwarg__: True, ...}`) on the minions `tgt` selects?
/// `expand(target, target_type)` lists the minions a target selects.
pub fn allows_job(
    perms: &[Value],
    fun: &str,
    args: &[Value],
    tgt: &Value,
    tgt_type: &str,
    expand: &dyn Fn(&Value, &str) -> Vec<String>,
) -> bool {
    let (pos, kw): (&[Value], Option<&Map>) = match args.last() {
        Some(Value::Map(m)) if m.get("__kwarg__").is_some_and(Value::is_truthy) => {
            (&args[..args.len() - 1], Some(m))
        }
        _ => (args, None),
    };
    let mut targeted: Option<Vec<String>> = None;
    for p in perms {
        match p {
            Value::Str(regex) if matches_start(regex, fun) => return true,
            Value::Map(m) if m.len() == 1 => {
                let Some((valid, funs)) = m.iter().next() else {
                    continue;
                };
                if valid.starts_with('@') {
                    continue;
                }
                let wanted = targeted.get_or_insert_with(|| expand(tgt, tgt_type));
                let allowed = expand(&Value::Str(valid.clone()), "compound");
                if wanted.iter().all(|id| allowed.contains(id)) && fun_check(funs, fun, pos, kw) {
                    return true;
                }
            }
            _ => {}
        }
    }
    false
}

/// A runner, wheel or jobs call (`form`: `runner`, `wheel`): may `perms`
/// call `fun` (`module.function`) with `arg`/`kwarg`?
pub fn allows_call(
    perms: &[Value],
    form: &str,
    fun: &str,
    arg: &[Value],
    kwarg: Option<&Map>,
) -> bool {
    let Some((module, name)) = fun.split_once('.') else {
        return false;
    };
    let plural = format!("@{form}s");
    for p in perms {
        match p {
            Value::Str(s) if s.starts_with('@') => {
                let what = &s[1..];
                if what == module || what == form || *s == plural {
                    return true;
                }
            }
            Value::Map(m) if m.len() == 1 => {
                let Some((valid, funs)) = m.iter().next() else {
                    continue;
                };
                let Some(what) = valid.strip_prefix('@') else {
                    continue;
                };
                if what == module && fun_check(funs, name, arg, kwarg) {
                    return true;
                }
                if (what == form || *valid == plural) && fun_check(funs, fun, arg, kwarg) {
                    return true;
                }
            }
            _ => {}
        }
    }
    false
}

/// One entry's function conditions (a regex, `{regex: arg conditions}`,
/// or a list of them).
fn fun_check(valid: &Value, fun: &str, args: &[Value], kwargs: Option<&Map>) -> bool {
    let conds = match valid {
        Value::List(l) => l.as_slice(),
        one => std::slice::from_ref(one),
    };
    conds.iter().any(|c| match c {
        Value::Str(regex) => matches_start(regex, fun),
        Value::Map(m) if m.len() == 1 => m
            .iter()
            .next()
            .is_some_and(|(regex, a)| matches_start(regex, fun) && args_check(a, args, kwargs)),
        _ => false,
    })
}

/// `{args: [...], kwargs: {...}}` (or a list of them): each given
/// condition matches the argument at its place (`null`: any).
fn args_check(valid: &Value, args: &[Value], kwargs: Option<&Map>) -> bool {
    let conds = match valid {
        Value::List(l) => l.as_slice(),
        one => std::slice::from_ref(one),
    };
    conds.iter().any(|c| {
        let Value::Map(c) = c else {
            return false;
        };
        let args_ok = match c.get("args") {
            Some(Value::List(want)) => {
                want.iter()
                    .enumerate()
                    .all(|(i, w)| match (w, args.get(i)) {
                        (_, None) => false,
                        (Value::Null, Some(_)) => true,
                        (w, Some(a)) => matches_start(&w.to_python_str(), &a.to_python_str()),
                    })
            }
            _ => true,
        };
        let kwargs_ok = match c.get("kwargs") {
            Some(Value::Map(want)) => {
                want.iter()
                    .all(|(k, w)| match kwargs.and_then(|kw| kw.get(k)) {
                        None => false,
                        Some(_) if w.is_null() => true,
                        Some(a) => matches_start(&w.to_python_str(), &a.to_python_str()),
                    })
            }
            _ => true,
        };
        args_ok && kwargs_ok
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(j: serde_json::Value) -> Value {
        Value::from_json(&j)
    }

    fn list(j: serde_json::Value) -> Vec<Value> {
        match v(j) {
            Value::List(l) => l,
            _ => Vec::new(),
        }
    }

    /// Minions: web1, web2, db1; a target's minions by glob (compound
    /// targets are plain globs in these cases).
    fn expand(t: &Value, _tt: &str) -> Vec<String> {
        let pat = t.to_python_str();
        ["web1", "web2", "db1"]
            .iter()
            .filter(|id| {
                let re = format!("^{}$", regex::escape(&pat).replace("\\*", ".*"));
                regex::Regex::new(&re).is_ok_and(|r| r.is_match(id))
            })
            .map(|s| s.to_string())
            .collect()
    }

    #[test]
    fn function_regexes_targets_and_arguments() {
        let perms = list(serde_json::json!([
            "test.*",
            {"web*": ["grains.item", {"cmd.run": {"args": ["^ls"]}}]},
            {"db1": [{"pkg.install": {"kwargs": {"name": "nginx|redis"}}}]}
        ]));
        let star = Value::Str("*".into());
        let web = Value::Str("web*".into());
        let job = |fun: &str, args: serde_json::Value, tgt: &Value| {
            allows_job(&perms, fun, &list(args), tgt, "glob", &expand)
        };
        assert!(job("test.ping", serde_json::json!([]), &star));
        assert!(job("grains.item", serde_json::json!(["os"]), &web));
        // web* does not cover db1.
        assert!(!job("grains.item", serde_json::json!(["os"]), &star));
        assert!(job("cmd.run", serde_json::json!(["ls -l"]), &web));
        assert!(!job("cmd.run", serde_json::json!(["rm -rf /"]), &web));
        assert!(!job("cmd.run", serde_json::json!([]), &web));
        let db = Value::Str("db1".into());
        assert!(job(
            "pkg.install",
            serde_json::json!([{"__kwarg__": true, "name": "nginx"}]),
            &db
        ));
        assert!(!job(
            "pkg.install",
            serde_json::json!([{"__kwarg__": true, "name": "vim"}]),
            &db
        ));
        assert!(!job("state.apply", serde_json::json!([]), &star));
    }

    #[test]
    fn runner_wheel_and_jobs_forms() {
        let perms = list(serde_json::json!(["@jobs", {"@wheel": ["key.list.*"]}, "test.ping"]));
        assert!(allows_call(&perms, "runner", "jobs.list_jobs", &[], None));
        assert!(!allows_call(&perms, "runner", "manage.up", &[], None));
        assert!(allows_call(&perms, "wheel", "key.list_all", &[], None));
        assert!(!allows_call(&perms, "wheel", "key.accept", &[], None));
        assert!(allows_call(
            &list(serde_json::json!(["@runner"])),
            "runner",
            "manage.up",
            &[],
            None
        ));
        assert!(!allows_call(
            &list(serde_json::json!(["test.*"])),
            "runner",
            "test.arg",
            &[],
            None
        ));
    }

    #[test]
    fn login_permissions_are_summed_and_sorted_as_salts() {
        let table = match v(serde_json::json!({
            "admin": [".*", "@wheel", "@runner", "@jobs"],
            "*": ["test.ping"],
            "ops%": [{"web*": ["grains.item"]}]
        })) {
            Value::Map(m) => m,
            _ => Map::default(),
        };
        assert_eq!(
            shown(&table, "admin", &["ops".into()]),
            list(
                serde_json::json!([".*", "@jobs", "@runner", "@wheel", "test.ping", {"web*": ["grains.item"]}])
            )
        );
        // Enforced: `*` only for whom no entry names.
        assert_eq!(auth_list(&table, "admin", &[]).len(), 4);
        assert_eq!(auth_list(&table, "admin", &["ops".into()]).len(), 5);
        assert_eq!(
            auth_list(&table, "nobody", &[]),
            list(serde_json::json!(["test.ping"]))
        );
    }
}
