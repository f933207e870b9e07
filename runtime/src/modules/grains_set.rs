//! Salt's `grains` functions that write: values set here go to the
//! minion's `grains` file (next to its configuration file, as Salt keeps
//! it), which the next start reads back, and to the running minion's
//! grains at once.

use super::function::{sig, CallError, Function, Return};
use super::params::{delimiter, Params};
use super::traverse::traverse;
use crate::context::Minion;
use brine_core::{Map, Value};
use brine_states::modules::file::fsutil::write_atomic;
use std::path::PathBuf;

pub(super) const FUNCTIONS: &[Function] = &[
    Function::minion(
        "append",
        sig!(key, val, convert = false, delimiter = ":"),
        "Add VAL to the list grain KEY (a DELIMITER path, default ':'), creating it when \
missing; a list VAL adds each item. CONVERT=True turns a grain that is not a list into \
one. Answers {KEY: new list}, or why not as text.\n\n    brine '*' grains.append roles web",
        append,
    ),
    Function::minion(
        "delkey",
        sig!(key, force = false),
        "Remove the grain KEY from the grains file and the running minion altogether \
(FORCE=True even when its value is a dict or a list). Answers as grains.set.\n\n    \
brine '*' grains.delkey role",
        |m, mut p| {
            let key = p.require_str("key")?;
            let force = truthy(p.take("force"));
            p.finish()?;
            set_grain(m, &key, Value::Null, force, true, ":")
        },
    ),
    Function::minion(
        "delval",
        sig!(key, destructive = false, force = false),
        "Set the grain KEY to None (DESTRUCTIVE=True removes it instead; FORCE=True even \
when its value is a dict or a list). Answers as grains.set.\n\n    \
brine '*' grains.delval role",
        |m, mut p| {
            let key = p.require_str("key")?;
            let destructive = truthy(p.take("destructive"));
            let force = truthy(p.take("force"));
            p.finish()?;
            set_grain(m, &key, Value::Null, force, destructive, ":")
        },
    ),
    Function::minion(
        "remove",
        sig!(key, val, delimiter = ":"),
        "Take VAL out of the list grain KEY (a DELIMITER path, default ':'). Answers \
{KEY: new list}, or why not as text.\n\n    brine '*' grains.remove roles web",
        remove,
    ),
    Function::minion(
        "set",
        sig!(
            key,
            val = "",
            force = false,
            destructive = false,
            delimiter = ":"
        ),
        "Set the grain KEY (a DELIMITER path, default ':', creating the dicts on the way) \
to VAL. A dict or list value is replaced only with FORCE=True; DESTRUCTIVE=True with \
VAL None removes the key. Answers {result, comment, changes}.\n\n    \
brine '*' grains.set 'apps:myApp:port' 2209",
        set,
    ),
    Function::minion(
        "setval",
        sig!(key, val, destructive = false, refresh_pillar = true),
        "Set the grain KEY to VAL in the minion's grains file (next to its configuration) \
and in the running minion; DESTRUCTIVE=True with VAL None removes it. Answers \
{KEY: VAL}.\n\n    brine '*' grains.setval role web",
        |m, mut p| {
            let key = p.require("key")?;
            let val = p.require("val")?;
            let destructive = truthy(p.take("destructive"));
            p.take("refresh_pillar");
            p.finish()?;
            let mut grains = Map::default();
            grains.insert(brine_core::value::key_string(&key), val);
            setvals(m, grains, destructive)
        },
    ),
    Function::minion(
        "setvals",
        sig!(grains, destructive = false, refresh_pillar = true),
        "Set each KEY: VAL of the dict GRAINS as grains.setval does. Answers the \
dict.\n\n    brine '*' grains.setvals \"{'role': 'web', 'tier': 2}\"",
        |m, mut p| {
            let grains = p.require("grains")?;
            let destructive = truthy(p.take("destructive"));
            p.take("refresh_pillar");
            p.finish()?;
            let Value::Map(grains) = grains else {
                return Err(CallError::Failed(
                    "setvals grains must be a dictionary.".into(),
                ));
            };
            setvals(m, grains, destructive)
        },
    ),
];

fn truthy(v: Option<Value>) -> bool {
    v.is_some_and(|v| v.is_truthy())
}

/// The minion's grains file: `grains` next to its configuration file.
pub(crate) fn grains_file(opts: &Map) -> PathBuf {
    let conf = opts
        .get("conf_file")
        .map(Value::to_python_str)
        .unwrap_or_else(|| "/etc/salt/minion".into());
    let conf = PathBuf::from(conf);
    if conf.is_dir() {
        return conf.join("grains");
    }
    conf.parent()
        .map(|d| d.join("grains"))
        .unwrap_or_else(|| PathBuf::from("grains"))
}

/// Write `new` into the grains file and the running minion's grains.
fn setvals(m: &mut Minion, new: Map, destructive: bool) -> Result<Return, CallError> {
    let path = grains_file(&m.opts);
    let mut file = match std::fs::read_to_string(&path) {
        Ok(text) => match brine_core::yaml::load(&text) {
            Ok(Value::Map(g)) => g,
            Ok(_) => Map::default(),
            Err(e) => {
                return Ok(Return::from(Value::Str(format!(
                    "Unable to read existing grains file: {e}"
                ))))
            }
        },
        Err(_) => Map::default(),
    };
    for (k, v) in &new {
        if v.is_null() && destructive {
            file.shift_remove(k);
        } else {
            file.insert(k.clone(), v.clone());
        }
    }
    let text = brine_core::yaml::dump(&Value::Map(file));
    if let Err(e) = write_atomic(&path, text.as_bytes()) {
        // Salt logs the failure and still answers what it set.
        tracing::error!(
            "Unable to write to grains file at {}. Check permissions. ({e})",
            path.display()
        );
    }
    // The running minion's grains come from their sources again, the
    // configuration's `grains:` over the file's, as Salt's next job sees
    // them (`exec-grains-config-precedence`, recorded from a real pair).
    m.refresh_grains();
    Ok(Return::from(Value::Map(new)))
}

/// The grain at `key`, copied.
fn get(m: &Minion, key: &str, delim: &str) -> Option<Value> {
    traverse(&m.grains, key, delim).map(|(v, _)| v.clone())
}

/// Fold a value set at a `delim` path back into its top-level grain, as
/// Salt's append/remove do: each parent dict gets the child.
fn fold_up(
    m: &Minion,
    mut key: String,
    mut value: Value,
    delim: &str,
    missing: Value,
) -> (String, Value) {
    while let Some((parent, rest)) = key.rsplit_once(delim).filter(|_| !delim.is_empty()) {
        let (parent, rest) = (parent.to_string(), rest.to_string());
        let mut grain = get(m, &parent, delim).unwrap_or_else(|| missing.clone());
        if let Value::Map(d) = &mut grain {
            d.insert(rest, value);
        }
        value = grain;
        key = parent;
    }
    (key, value)
}

fn append(m: &mut Minion, mut p: Params) -> Result<Return, CallError> {
    let key = p.require_str("key")?;
    let val = p.require("val")?;
    let convert = truthy(p.take("convert"));
    let delim = delimiter(p.take("delimiter")).into_owned();
    p.finish()?;
    let mut grains = get(m, &key, &delim).unwrap_or(Value::List(Vec::new()));
    if convert && !matches!(grains, Value::List(_)) {
        grains = Value::List(if grains.is_null() {
            vec![]
        } else {
            vec![grains]
        });
    }
    let Value::List(mut list) = grains else {
        return Ok(text(format!("The key {key} is not a valid list")));
    };
    if list.contains(&val) {
        return Ok(text(format!(
            "The val {} was already in the list {key}",
            val.to_python_str()
        )));
    }
    match val {
        Value::List(items) => list.extend(items),
        v => list.push(v),
    }
    let (top, value) = fold_up(
        m,
        key,
        Value::List(list),
        &delim,
        Value::Map(Map::default()),
    );
    let mut new = Map::default();
    new.insert(top, value);
    setvals(m, new, false)
}

fn remove(m: &mut Minion, mut p: Params) -> Result<Return, CallError> {
    let key = p.require_str("key")?;
    let val = p.require("val")?;
    let delim = delimiter(p.take("delimiter")).into_owned();
    p.finish()?;
    let grains = get(m, &key, &delim).unwrap_or(Value::List(Vec::new()));
    let Value::List(mut list) = grains else {
        return Ok(text(format!("The key {key} is not a valid list")));
    };
    let Some(at) = list.iter().position(|v| *v == val) else {
        return Ok(text(format!(
            "The val {} was not in the list {key}",
            val.to_python_str()
        )));
    };
    list.remove(at);
    let (top, value) = fold_up(m, key, Value::List(list), &delim, Value::Null);
    let mut new = Map::default();
    new.insert(top, value);
    setvals(m, new, false)
}

fn text(s: String) -> Return {
    Return::from(Value::Str(s))
}

fn set(m: &mut Minion, mut p: Params) -> Result<Return, CallError> {
    let key = p.require_str("key")?;
    let val = p.take("val").unwrap_or_else(|| Value::from(""));
    let force = truthy(p.take("force"));
    let destructive = truthy(p.take("destructive"));
    let delim = delimiter(p.take("delimiter")).into_owned();
    p.finish()?;
    set_grain(m, &key, val, force, destructive, &delim)
}

fn is_complex(v: &Value) -> bool {
    matches!(v, Value::Map(_) | Value::List(_))
}

/// Salt's `grains.set`: {result, comment, changes}.
fn set_grain(
    m: &mut Minion,
    key: &str,
    val: Value,
    force: bool,
    destructive: bool,
    delim: &str,
) -> Result<Return, CallError> {
    let answer = |result: bool, comment: String, changes: Value| {
        let mut r = Map::default();
        r.insert("comment".into(), Value::Str(comment));
        r.insert("changes".into(), changes);
        r.insert("result".into(), Value::Bool(result));
        // A false result fails the call, as Salt's minion reads such a dict.
        Return {
            value: Value::Map(r),
            retcode: i32::from(!result),
        }
    };
    let existing = get(m, key, delim);
    if let Some(e) = &existing {
        if *e == val && (!val.is_null() || !destructive) {
            return Ok(answer(
                true,
                "Grain is already set".into(),
                Value::Map(Map::default()),
            ));
        }
    }
    if let Some(e) = existing.as_ref().filter(|e| !e.is_null() && !force) {
        if is_complex(e) {
            return Ok(answer(
                false,
                format!("The key '{key}' exists but is a dict or a list. Use 'force=True' to overwrite."),
                Value::Map(Map::default()),
            ));
        }
        if is_complex(&val) {
            return Ok(answer(
                false,
                format!("The key '{key}' exists and the given value is a dict or a list. Use 'force=True' to overwrite."),
                Value::Map(Map::default()),
            ));
        }
    }
    let mut value = val;
    let mut key = key.to_string();
    while let Some((parent, rest)) = key.rsplit_once(delim).filter(|_| !delim.is_empty()) {
        let (parent, rest) = (parent.to_string(), rest.to_string());
        let mut up = get(m, &parent, delim).unwrap_or_else(|| Value::Map(Map::default()));
        match &mut up {
            Value::Map(d) => {
                if value.is_null() && destructive {
                    d.shift_remove(&rest);
                } else {
                    d.insert(rest, value);
                }
            }
            Value::List(items) => {
                let mut updated = false;
                for item in items.iter_mut() {
                    if item.as_str() == Some(rest.as_str()) {
                        let mut d = Map::default();
                        d.insert(rest.clone(), value.clone());
                        *item = Value::Map(d);
                        updated = true;
                    } else if let Value::Map(d) = item {
                        if d.contains_key(&rest) {
                            d.insert(rest.clone(), value.clone());
                            updated = true;
                        }
                    }
                }
                if !updated {
                    let mut d = Map::default();
                    d.insert(rest, value);
                    items.push(Value::Map(d));
                }
            }
            other => {
                if other.as_str() == Some(rest.as_str()) || force {
                    let mut d = Map::default();
                    d.insert(rest, value);
                    *other = Value::Map(d);
                } else {
                    return Ok(answer(
                        false,
                        format!(
                            "The key '{parent}' value is '{}', which is different from the provided key '{rest}'. Use 'force=True' to overwrite.",
                            other.to_python_str()
                        ),
                        Value::Map(Map::default()),
                    ));
                }
            }
        }
        value = up;
        key = parent;
    }
    let mut new = Map::default();
    new.insert(key, value);
    let set = setvals(m, new, destructive)?;
    Ok(match set.value {
        changes @ Value::Map(_) => answer(true, String::new(), changes),
        other => answer(false, other.to_python_str(), Value::Map(Map::default())),
    })
}

#[cfg(test)]
mod tests {
    use super::super::{call, functions};
    use crate::context::Minion;
    use brine_core::args::{parse_input, CallArgs};
    use brine_core::Value;
    use std::path::Path;

    fn args(words: &[&str]) -> CallArgs {
        parse_input(&words.iter().map(|s| s.to_string()).collect::<Vec<_>>())
    }

    fn load(dir: &Path) -> Minion {
        Minion::load(dir, functions())
            .expect("minion config loads")
            .0
    }

    /// Writes go to the grains file next to the configuration and come
    /// back at the next start, under the configuration's own grains.
    #[test]
    fn writes_persist_and_load_back() {
        let dir = tempfile::tempdir().expect("temp dir");
        let conf = format!(
            "id: m1\ncachedir: {}\ngrains: {{fixed: yes}}\n",
            dir.path().join("cache").display()
        );
        std::fs::write(dir.path().join("minion"), conf).expect("config written");
        let mut m = load(dir.path());
        for line in [
            &["role", "web"][..],
            &["fixed", "no"][..],
            &["gone", "soon"][..],
        ] {
            call(&mut m, "grains.setval", args(line)).expect("setval");
        }
        call(&mut m, "grains.append", args(&["roles", "db"])).expect("append");
        call(&mut m, "grains.delkey", args(&["gone"])).expect("delkey");
        assert_eq!(m.grains.get("role"), Some(&Value::from("web")));
        // The configuration's grains win over what was written.
        assert_eq!(m.grains.get("fixed"), Some(&Value::Bool(true)));
        assert!(dir.path().join("grains").is_file());

        let again = load(dir.path());
        assert_eq!(again.grains.get("role"), Some(&Value::from("web")));
        assert_eq!(
            again.grains.get("roles"),
            Some(&Value::List(vec![Value::from("db")]))
        );
        assert_eq!(again.grains.get("gone"), None);
        // Salt lays the configuration's grains over the file's.
        assert_eq!(again.grains.get("fixed"), Some(&Value::Bool(true)));

        // A refresh reads the file again.
        std::fs::write(dir.path().join("grains"), "role: db\n").expect("grains written");
        call(&mut m, "saltutil.refresh_grains", args(&[])).expect("refresh");
        assert_eq!(m.grains.get("role"), Some(&Value::from("db")));
        assert_eq!(m.grains.get("roles"), None);
    }
}
