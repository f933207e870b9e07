//! Replays scenarios recorded with real Salt 3007.8 (`testdata/record.py`
//! wrote `testdata/file.json` and `testdata/cmd.json`): the same steps run
//! here on a fresh temporary folder, and every state return and every
//! file check must equal what Salt answered.

use super::MODULE as FILE;
use crate::fileclient::LocalFileClient;
use crate::{StateCall, StateContext, StateModule, StateReturn};
use brine_core::{Map, Value};
use std::path::Path;
use std::sync::Arc;

/// A state return as Salt's JSON shows it.
pub fn ret_json(r: &StateReturn) -> serde_json::Value {
    let mut m = serde_json::Map::default();
    m.insert("name".into(), serde_json::Value::String(r.name.clone()));
    m.insert("changes".into(), Value::Map(r.changes.clone()).to_json());
    m.insert(
        "result".into(),
        r.result
            .map(serde_json::Value::Bool)
            .unwrap_or(serde_json::Value::Null),
    );
    m.insert(
        "comment".into(),
        serde_json::Value::String(r.comment.clone()),
    );
    for (k, v) in &r.extra {
        m.insert(k.clone(), v.to_json());
    }
    serde_json::Value::Object(m)
}

fn subst(v: &serde_json::Value, from: &str, to: &str) -> serde_json::Value {
    match v {
        serde_json::Value::String(s) => serde_json::Value::String(s.replace(from, to)),
        serde_json::Value::Array(a) => {
            serde_json::Value::Array(a.iter().map(|x| subst(x, from, to)).collect())
        }
        serde_json::Value::Object(o) => serde_json::Value::Object(
            o.iter()
                .map(|(k, x)| (k.replace(from, to), subst(x, from, to)))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// A run context like the recording minion's: id `m1`, the recorded
/// grains and pillar, `file_roots` written under `dir`.
pub fn context(data: &serde_json::Value, dir: &Path) -> StateContext {
    let roots = dir.join("file_roots");
    if let Some(files) = data["file_roots"].as_object() {
        for (rel, text) in files {
            let p = roots.join(rel);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            // `dir/` is an empty folder.
            if rel.ends_with('/') {
                std::fs::create_dir_all(&p).unwrap();
            } else {
                std::fs::write(&p, text.as_str().unwrap_or_default()).unwrap();
            }
        }
    }
    let mut file_roots = Map::default();
    for env in ["base", "dev"] {
        file_roots.insert(
            env.into(),
            Value::List(vec![Value::Str(
                roots.join(env).to_string_lossy().into_owned(),
            )]),
        );
    }
    let mut opts = Map::default();
    opts.insert("id".into(), Value::Str("m1".into()));
    // The recording's cachedir, which Salt put under its root_dir.
    let work = dir.to_string_lossy();
    opts.insert(
        "cachedir".into(),
        Value::Str(format!("{work}/root{work}/cache")),
    );
    opts.insert("file_roots".into(), Value::Map(file_roots));
    let mut grains = match Value::from_json(&data["grains"]) {
        Value::Map(m) => m,
        _ => Map::default(),
    };
    grains.insert("id".into(), Value::Str("m1".into()));
    let pillar = match Value::from_json(&data["pillar"]) {
        Value::Map(m) => m,
        _ => Map::default(),
    };
    StateContext {
        fileclient: Arc::new(LocalFileClient::from_opts(&opts)),
        functions: Default::default(),
        opts: Arc::new(opts),
        grains: Arc::new(grains),
        pillar: Arc::new(pillar),
        saltenv: "base".into(),
        test: false,
        jobs: Default::default(),
        accumulators: Default::default(),
    }
}

/// Call `mod.fun` with `args` the way the runtime would.
pub fn call_state(
    module: &StateModule,
    ctx: &StateContext,
    state: &str,
    args: &Map,
    test: bool,
) -> StateReturn {
    let (modname, fun) = state.split_once('.').unwrap();
    let mut low = args.clone();
    low.insert("state".into(), Value::Str(modname.into()));
    low.insert("fun".into(), Value::Str(fun.into()));
    low.insert("__id__".into(), Value::Str("probe".into()));
    low.insert("__env__".into(), Value::Str("base".into()));
    let f = module
        .function(fun)
        .unwrap_or_else(|| panic!("{state} missing"));
    (f.run)(&StateCall {
        low: &low,
        test,
        ctx,
    })
}

/// A step's answer with what Salt builds from sets (in hash order) put
/// in order: the comment's lines and every list of strings sorted.
fn unordered(v: &serde_json::Value) -> serde_json::Value {
    match v {
        serde_json::Value::Object(o) => serde_json::Value::Object(
            o.iter()
                .map(|(k, x)| {
                    let x = match (k.as_str(), x) {
                        ("comment", serde_json::Value::String(c)) => {
                            let mut lines: Vec<&str> =
                                c.lines().filter(|l| !l.is_empty()).collect();
                            lines.sort_unstable();
                            serde_json::Value::String(lines.join("\n"))
                        }
                        _ => unordered(x),
                    };
                    (k.clone(), x)
                })
                .collect(),
        ),
        serde_json::Value::Array(a) => {
            let mut items: Vec<serde_json::Value> = a.iter().map(unordered).collect();
            if items.iter().all(serde_json::Value::is_string) {
                items.sort_by(|x, y| x.as_str().cmp(&y.as_str()));
            }
            serde_json::Value::Array(items)
        }
        other => other.clone(),
    }
}

/// High data of one SLS text (plain YAML), as the render stage hands it
/// over: `mod.fun` keys split, `__sls__`, `__env__` and Salt's automatic
/// `order` added.
fn sls_high(sls: &str, text: &str) -> Map {
    let Ok(Value::Map(mut high)) = brine_core::yaml::load(text) else {
        panic!("bad SLS {sls}");
    };
    let mut order = 10000;
    for body in high.values_mut() {
        let Value::Map(body) = body else { continue };
        let decls: Vec<(String, Value)> = body.drain(..).collect();
        for (key, args) in decls {
            let (m, f) = key.split_once('.').unwrap_or((key.as_str(), ""));
            let mut list = match args {
                Value::List(l) => l,
                _ => Vec::new(),
            };
            list.insert(0, Value::Str(f.into()));
            let mut o = Map::default();
            o.insert("order".into(), Value::Int(order));
            list.push(Value::Map(o));
            order += 1;
            body.insert(m.to_string(), Value::List(list));
        }
        body.insert("__sls__".into(), Value::Str(sls.into()));
        body.insert("__env__".into(), Value::Str("base".into()));
    }
    high
}

/// Run one SLS text through the compiler and the engine, as `state.sls`
/// would: the running dictionary without times.
fn run_sls(ctx: &StateContext, sls: &str, text: &str, test: bool) -> serde_json::Value {
    use brine_compile::state::compile::{compile_high_data, prepare_high_for_call};
    let high = prepare_high_for_call(sls_high(sls, text), &[]).unwrap_or_else(|e| panic!("{e:?}"));
    let chunks = compile_high_data(&high).unwrap_or_else(|e| panic!("{e:?}"));
    let mut ctx = ctx.clone();
    ctx.test = test;
    ctx.accumulators = Default::default();
    let running = crate::engine::call_high(&ctx, chunks).unwrap_or_else(|e| panic!("{e}"));
    let mut out = Value::Map(running).to_json();
    if let Some(o) = out.as_object_mut() {
        for ret in o.values_mut().filter_map(serde_json::Value::as_object_mut) {
            ret.remove("start_time");
            ret.remove("duration");
        }
    }
    out
}

/// Replay every recorded case of `json` against `module`; panics listing
/// all differences.
pub fn replay(json: &str, module: &StateModule, only: Option<&str>) {
    let data: serde_json::Value = serde_json::from_str(json).unwrap();
    let mut failures = Vec::new();
    let mut checked = 0;
    for (case, steps) in data["cases"].as_object().unwrap() {
        if only.is_some_and(|o| o != case) {
            continue;
        }
        let tmp = tempfile::tempdir().unwrap();
        let ctx = context(&data, tmp.path());
        let dir = tmp.path().join("cases").join(case);
        std::fs::create_dir_all(&dir).unwrap();
        let d = dir.to_string_lossy().into_owned();
        let work = tmp.path().to_string_lossy().into_owned();
        let fill = |t: &str| t.replace("@TMP@", &d).replace("@WORK@", &work);
        let unfill = |v: &serde_json::Value| subst(&subst(v, &d, "@TMP@"), &work, "@WORK@");
        for (i, step) in steps.as_array().unwrap().iter().enumerate() {
            if let Some(sls) = step["sls"].as_str() {
                let test = step["test"].as_bool().unwrap_or(false);
                let text = fill(step["text"].as_str().unwrap_or_default());
                let got = unfill(&run_sls(&ctx, sls, &text, test));
                checked += 1;
                if got != step["expect"] {
                    failures.push(format!(
                        "{case}[{i}] sls {sls} test={test}:\n  salt:  {}\n  brine: {got}",
                        step["expect"]
                    ));
                }
            } else if let Some(sh) = step["sh"].as_str() {
                let st = std::process::Command::new("bash")
                    .args(["-c", &fill(sh)])
                    .status()
                    .unwrap();
                assert!(st.success(), "{case}[{i}] setup failed: {sh}");
            } else if let Some(check) = step["check"].as_str() {
                let out = std::process::Command::new("bash")
                    .args(["-c", &fill(check)])
                    .output()
                    .unwrap();
                let got = String::from_utf8_lossy(&out.stdout)
                    .replace(&d, "@TMP@")
                    .replace(&work, "@WORK@");
                checked += 1;
                if got != step["out"].as_str().unwrap_or_default() {
                    failures.push(format!(
                        "{case}[{i}] check `{check}`:\n  salt:  {:?}\n  brine: {got:?}",
                        step["out"]
                    ));
                }
            } else {
                let expect = &step["expect"];
                // Requisite errors come from the runtime, not the module.
                if expect["comment"]
                    .as_str()
                    .is_some_and(|c| c.starts_with("The following requisites"))
                {
                    continue;
                }
                let args = match Value::from_json(&subst(
                    &subst(&step["args"], "@TMP@", &d),
                    "@WORK@",
                    &work,
                )) {
                    Value::Map(m) => m,
                    _ => Map::default(),
                };
                let test = step["test"].as_bool().unwrap_or(false);
                let state = step["state"].as_str().unwrap();
                let mut got = unfill(&ret_json(&call_state(module, &ctx, state, &args, test)));
                if let Some(pid) = got["changes"].get("pid").and_then(|p| p.as_i64()) {
                    if pid > 0 {
                        got["changes"]["pid"] = serde_json::Value::String("<pid>".into());
                    }
                }
                checked += 1;
                // Where Salt crashed (a traceback as comment), brine must
                // fail the state cleanly instead.
                let salt_crashed = expect["comment"].as_str().is_some_and(|c| {
                    c.starts_with("An exception occurred in this state: Traceback")
                });
                if salt_crashed {
                    if got["result"] != serde_json::json!(false)
                        || got["changes"] != serde_json::json!({})
                    {
                        failures.push(format!(
                            "{case}[{i}] {state}: Salt crashed, brine did not fail: {got}"
                        ));
                    }
                    continue;
                }
                let (got, expect) = if step["unordered"].as_bool() == Some(true) {
                    (unordered(&got), unordered(expect))
                } else {
                    (got, expect.clone())
                };
                if got != expect {
                    failures.push(format!(
                        "{case}[{i}] {state} {} test={test}:\n  salt:  {expect}\n  brine: {got}",
                        step["args"]
                    ));
                }
            }
        }
    }
    assert!(checked > 0, "no steps replayed");
    assert!(
        failures.is_empty(),
        "{} of {checked} steps differ from Salt:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn file_states_match_salt() {
    // REPLAY_CASE=name replays one case only.
    let only = std::env::var("REPLAY_CASE").ok();
    replay(
        include_str!("../testdata/file.json"),
        &FILE,
        only.as_deref(),
    );
}

/// The `state-files` conformance case (expected/00.json, 01.json), module
/// part: the same four states run twice.
#[test]
fn conformance_state_files() {
    let tmp = tempfile::tempdir().unwrap();
    let data = serde_json::json!({
        "file_roots": {"base/conf.ini.j2": "[server]\nhost = {{ grains['id'] }}\nport = {{ port }}\n"},
        "grains": {}, "pillar": {}
    });
    let mut ctx = context(&data, tmp.path());
    let mut grains = (*ctx.grains).clone();
    grains.insert("id".into(), Value::Str("web1".into()));
    ctx.grains = Arc::new(grains);
    let w = tmp.path().join("work").to_string_lossy().into_owned();
    std::fs::create_dir_all(&w).unwrap();
    let args = |v: serde_json::Value| match Value::from_json(&subst(&v, "@TMP@", &w)) {
        Value::Map(m) => m,
        _ => Map::default(),
    };
    let states = [
        (
            "file.directory",
            args(serde_json::json!({"name": "@TMP@/app", "makedirs": true})),
        ),
        (
            "file.managed",
            args(serde_json::json!({"name": "@TMP@/app/motd", "contents": "hello from web1\n"})),
        ),
        (
            "file.managed",
            args(
                serde_json::json!({"name": "@TMP@/app/conf.ini", "source": "salt://conf.ini.j2",
            "template": "jinja", "context": {"port": 8080}}),
            ),
        ),
        (
            "file.absent",
            args(serde_json::json!({"name": "@TMP@/app/gone"})),
        ),
    ];
    let first = [
        serde_json::json!({"name": "@TMP@/app", "changes": {"@TMP@/app": {"directory": "new"}}, "result": true, "comment": ""}),
        serde_json::json!({"changes": {"diff": "New file"}, "comment": "File @TMP@/app/motd updated", "name": "@TMP@/app/motd", "result": true}),
        serde_json::json!({"changes": {"diff": "New file", "mode": "0644"}, "comment": "File @TMP@/app/conf.ini updated", "name": "@TMP@/app/conf.ini", "result": true}),
        serde_json::json!({"name": "@TMP@/app/gone", "changes": {}, "result": true, "comment": "File @TMP@/app/gone is not present"}),
    ];
    let second = [
        serde_json::json!({"name": "@TMP@/app", "changes": {}, "result": true, "comment": "The directory @TMP@/app is in the correct state"}),
        serde_json::json!({"changes": {}, "comment": "File @TMP@/app/motd is in the correct state", "name": "@TMP@/app/motd", "result": true}),
        serde_json::json!({"changes": {}, "comment": "File @TMP@/app/conf.ini is in the correct state", "name": "@TMP@/app/conf.ini", "result": true}),
        serde_json::json!({"name": "@TMP@/app/gone", "changes": {}, "result": true, "comment": "File @TMP@/app/gone is not present"}),
    ];
    for expected in [first, second] {
        for ((state, a), want) in states.iter().zip(expected.iter()) {
            let got = subst(
                &ret_json(&call_state(&FILE, &ctx, state, a, false)),
                &w,
                "@TMP@",
            );
            assert_eq!(&got, want, "{state}");
        }
    }
    assert_eq!(
        std::fs::read_to_string(format!("{w}/app/conf.ini")).unwrap(),
        "[server]\nhost = web1\nport = 8080\n"
    );
}

/// Odd argument types fail the state with a comment naming the argument.
#[test]
fn wrong_argument_types_fail_cleanly() {
    let tmp = tempfile::tempdir().unwrap();
    let ctx = context(&serde_json::json!({}), tmp.path());
    let p = tmp.path().join("f").to_string_lossy().into_owned();
    for (state, extra) in [
        ("file.managed", serde_json::json!({"user": ["x"]})),
        (
            "file.managed",
            serde_json::json!({"source": {"a": 1, "b": 2}}),
        ),
        (
            "file.managed",
            serde_json::json!({"template": ["jinja"], "contents": "x"}),
        ),
        ("file.directory", serde_json::json!({"max_depth": "deep"})),
        ("file.symlink", serde_json::json!({"target": {"x": 1}})),
        (
            "file.replace",
            serde_json::json!({"pattern": "a", "repl": "b", "count": [1]}),
        ),
    ] {
        let mut a = match Value::from_json(&extra) {
            Value::Map(m) => m,
            _ => Map::default(),
        };
        a.insert("name".into(), Value::Str(p.clone()));
        if state == "file.replace" {
            std::fs::write(&p, "a\n").unwrap();
        }
        let r = call_state(&FILE, &ctx, state, &a, false);
        assert_eq!(r.result, Some(false), "{state} {extra}: {r:?}");
        assert!(
            r.comment.contains("Invalid argument '"),
            "{state}: {}",
            r.comment
        );
    }
}

/// Keys of a `file.managed` chunk that are not its parameters reach the
/// template as variables (Salt's `**kwargs`), under `defaults`/`context`;
/// requisites and other state-system keys do not.
#[test]
fn managed_template_sees_extra_keyword_arguments() {
    let tmp = tempfile::tempdir().unwrap();
    let data = serde_json::json!({
        "file_roots": {"base/t.j2": "{{ apache.user }} {{ port }} {{ require is defined }}\n"},
        "grains": {}, "pillar": {}
    });
    let ctx = context(&data, tmp.path());
    let target = tmp.path().join("out").to_string_lossy().into_owned();
    let args = Value::from_json(&serde_json::json!({
        "name": target, "source": "salt://t.j2", "template": "jinja",
        "context": null, "apache": {"user": "www-data"}, "port": 1,
        "defaults": {"port": 2}, "require": [{"file": "x"}]
    }));
    let Value::Map(args) = args else {
        panic!("a map")
    };
    let ret = call_state(&FILE, &ctx, "file.managed", &args, false);
    assert_eq!(ret.result, Some(true), "{}", ret.comment);
    assert_eq!(
        std::fs::read_to_string(&target).unwrap(),
        "www-data 2 False\n"
    );
}

/// `keep_symlinks`: links of the source folder become links, what lies
/// below a linked folder comes with the link, and a second run changes
/// nothing.
#[test]
fn recurse_keeps_symlinks() {
    let tmp = tempfile::tempdir().unwrap();
    let data = serde_json::json!({
        "file_roots": {"base/lt/real.txt": "r\n", "base/lt/sub/x.txt": "x\n"},
        "grains": {}, "pillar": {}
    });
    let ctx = context(&data, tmp.path());
    let src = tmp.path().join("file_roots/base/lt");
    std::os::unix::fs::symlink("real.txt", src.join("link.txt")).unwrap();
    std::os::unix::fs::symlink("sub", src.join("sublink")).unwrap();
    let out = tmp.path().join("out");
    let args = match Value::from_json(&serde_json::json!({
        "name": out.to_string_lossy(), "source": "salt://lt", "keep_symlinks": true
    })) {
        Value::Map(m) => m,
        _ => Map::default(),
    };
    let first = call_state(&FILE, &ctx, "file.recurse", &args, false);
    assert_eq!(first.result, Some(true), "{}", first.comment);
    assert_eq!(
        std::fs::read_link(out.join("link.txt")).unwrap(),
        Path::new("real.txt")
    );
    assert_eq!(
        std::fs::read_link(out.join("sublink")).unwrap(),
        Path::new("sub")
    );
    assert_eq!(
        std::fs::read_to_string(out.join("sub/x.txt")).unwrap(),
        "x\n"
    );
    let again = call_state(&FILE, &ctx, "file.recurse", &args, false);
    assert!(again.changes.is_empty(), "{:?}", again.changes);
    assert_eq!(
        again.comment,
        format!("The directory {} is in the correct state", out.display())
    );
}
