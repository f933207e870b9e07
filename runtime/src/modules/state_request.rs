//! Salt's queued state runs: `state.request` test-runs states and keeps
//! the request (by name) in `<cachedir>/req_state.p`, msgpack as Salt
//! writes it; `check_request` reads it, `clear_request` drops it,
//! `run_request` runs it for real.

use super::function::{params_of, sig, CallError, Function, Return};
use super::params::{opt_string, Params};
use super::state_run::apply;
use crate::context::Minion;
use brine_compile::opts;
use brine_core::args::CallArgs;
use brine_core::{Map, Value};
use std::path::PathBuf;

pub(super) const FUNCTIONS: &[Function] = &[
    Function::minion(
        "check_request",
        sig!(name = null),
        "The requests state.request queued, by name (NAME: that one only); {} when \
there are none.\n\n    brine '*' state.check_request",
        check_request,
    )
    .highstate(),
    Function::minion(
        "clear_request",
        sig!(name = null),
        "Drop the queued request NAME (all of them without NAME); False when NAME is not \
queued.\n\n    brine '*' state.clear_request",
        clear_request,
    ),
    Function::minion(
        "request",
        sig!(mods = null, **kwargs),
        "Test-run state.apply MODS (with the other keywords) and queue it under NAME \
(default 'default') for state.run_request; answers the test run.\n\n    \
brine '*' state.request web name=deploy",
        request,
    )
    .highstate(),
    Function::minion(
        "run_request",
        sig!(name = "default", **kwargs),
        "Run the request queued under NAME (default 'default') for real, keywords given \
here over those queued, and drop the queue; {} when nothing is queued under NAME.\n\n    \
brine '*' state.run_request deploy",
        run_request,
    )
    .highstate(),
];

/// Where the queued requests are kept.
fn request_file(m: &Minion) -> PathBuf {
    let cachedir = opts::cachedir(&m.opts);
    cachedir.join("req_state.p")
}

/// The queued requests; {} when there are none (or the file is not
/// readable as a dict).
fn load(m: &Minion) -> Map {
    let Ok(bytes) = std::fs::read(request_file(m)) else {
        return Map::default();
    };
    match rmp_serde::from_slice::<Value>(&bytes) {
        Ok(Value::Map(req)) => req,
        _ => Map::default(),
    }
}

/// Write the requests, readable by the minion's user only (Salt writes
/// under umask 077).
fn store(m: &Minion, req: &Map) {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    let path = request_file(m);
    let written = rmp_serde::to_vec(&Value::Map(req.clone()))
        .map_err(|e| std::io::Error::other(e.to_string()))
        .and_then(|bytes| {
            std::fs::OpenOptions::new()
                .write(true)
                .create(true)
                .truncate(true)
                .mode(0o600)
                .open(&path)?
                .write_all(&bytes)
        });
    if let Err(e) = written {
        tracing::error!("Unable to write state request file {}: {e}", path.display());
    }
}

fn check_request(m: &mut Minion, mut p: Params) -> Result<Return, CallError> {
    let name = opt_string(p.take("name"));
    p.finish()?;
    let req = load(m);
    match name {
        None => Ok(Return::from(Value::Map(req))),
        Some(n) => req
            .get(&n)
            .cloned()
            .map(Return::from)
            // Salt indexes the dict: a missing name is a KeyError.
            .ok_or_else(|| CallError::Failed(format!("'{n}'"))),
    }
}

fn clear_request(m: &mut Minion, mut p: Params) -> Result<Return, CallError> {
    let name = opt_string(p.take("name"));
    p.finish()?;
    let path = request_file(m);
    if !path.is_file() {
        return Ok(Return::from(Value::Bool(true)));
    }
    match name {
        None => {
            let _ = std::fs::remove_file(&path);
        }
        Some(n) => {
            let mut req = load(m);
            if req.shift_remove(&n).is_none() {
                return Ok(Return::from(Value::Bool(false)));
            }
            store(m, &req);
        }
    }
    Ok(Return::from(Value::Bool(true)))
}

fn request(m: &mut Minion, mut p: Params) -> Result<Return, CallError> {
    let mods = p.take("mods").unwrap_or(Value::Null);
    let mut kwargs = std::mem::take(&mut p.kwargs);
    p.open_kwargs = true;
    p.finish()?;
    kwargs.insert("test".into(), Value::Bool(true));
    let args = CallArgs {
        args: if mods.is_null() {
            Vec::new()
        } else {
            vec![mods.clone()]
        },
        kwargs: kwargs.clone(),
    };
    let ret = apply(
        m,
        params_of(super::state_run::FUNCTIONS, "apply", args),
        false,
    )?;
    let name = kwargs
        .get("name")
        .map_or_else(|| "default".to_string(), Value::to_python_str);
    let mut entry = Map::default();
    entry.insert("test_run".into(), ret.value.clone());
    entry.insert("mods".into(), mods);
    entry.insert("kwargs".into(), Value::Map(kwargs));
    let mut req = load(m);
    req.insert(name, Value::Map(entry));
    store(m, &req);
    Ok(ret)
}

fn run_request(m: &mut Minion, mut p: Params) -> Result<Return, CallError> {
    let name = p
        .take("name")
        .map_or_else(|| "default".to_string(), |v| v.to_python_str());
    let extra = std::mem::take(&mut p.kwargs);
    p.open_kwargs = true;
    p.finish()?;
    let req = load(m);
    let Some(Value::Map(queued)) = req.get(&name) else {
        return Ok(Return::from(Value::Map(Map::default())));
    };
    let (Some(mods), Some(Value::Map(kwargs))) = (queued.get("mods"), queued.get("kwargs")) else {
        return Ok(Return::from(Value::Map(Map::default())));
    };
    let mut kwargs = kwargs.clone();
    kwargs.extend(extra);
    kwargs.shift_remove("test");
    let args = CallArgs {
        args: if mods.is_null() {
            Vec::new()
        } else {
            vec![mods.clone()]
        },
        kwargs,
    };
    let ret = apply(
        m,
        params_of(super::state_run::FUNCTIONS, "apply", args),
        false,
    );
    let _ = std::fs::remove_file(request_file(m));
    ret
}

#[cfg(test)]
mod tests {
    use super::super::{call, functions};
    use crate::context::Minion;
    use brine_core::args::{parse_input, CallArgs};
    use brine_core::Value;

    fn args(words: &[&str]) -> CallArgs {
        parse_input(&words.iter().map(|s| s.to_string()).collect::<Vec<_>>())
    }

    /// A request is kept by name with its mods, keywords (test forced) and
    /// test run, and run_request runs it for real.
    #[test]
    fn requests_are_kept_and_run() {
        let dir = tempfile::tempdir().expect("temp dir");
        let roots = dir.path().join("srv");
        std::fs::create_dir_all(&roots).expect("roots");
        std::fs::write(roots.join("s.sls"), "x:\n  test.succeed_with_changes\n").expect("sls");
        let conf = format!(
            "id: m1\nfile_client: local\ncachedir: {}\nfile_roots: {{base: [{}]}}\n",
            dir.path().join("cache").display(),
            roots.display()
        );
        std::fs::write(dir.path().join("minion"), conf).expect("config written");
        let (mut m, _) = Minion::load(dir.path(), functions()).expect("minion");
        std::fs::create_dir_all(dir.path().join("cache")).expect("cachedir");
        let tag = "test_|-x_|-x_|-succeed_with_changes";
        let test_run = call(&mut m, "state.request", args(&["s", "name=later"])).expect("request");
        assert_eq!(
            test_run.value.get(tag).and_then(|r| r.get("result")),
            Some(&Value::Null)
        );
        let queued = call(&mut m, "state.check_request", args(&["later"])).expect("check");
        assert_eq!(queued.value.get("mods"), Some(&Value::from("s")));
        assert_eq!(
            queued.value.get("kwargs").and_then(|k| k.get("test")),
            Some(&Value::Bool(true))
        );
        assert!(queued
            .value
            .get("test_run")
            .is_some_and(|t| t.get(tag).is_some()));
        let ran = call(&mut m, "state.run_request", args(&["later"])).expect("run");
        assert_eq!(
            ran.value.get(tag).and_then(|r| r.get("result")),
            Some(&Value::Bool(true))
        );
        let left = call(&mut m, "state.check_request", args(&[])).expect("check");
        assert_eq!(left.value, Value::Map(Default::default()));
    }
}
