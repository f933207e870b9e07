//! The file states against Salt 3007.8: the scenarios `testdata/record.py`
//! recorded into `testdata/file.json`, replayed ([`crate::replay`]), and
//! a few checks of their own.

use super::MODULE as FILE;
pub use crate::replay::{call_state, context, replay, ret_json, subst};
use brine_core::{Map, Value};
use std::path::Path;
use std::sync::Arc;

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

/// `file.managed` with http(s) sources served on 127.0.0.1 (net.json).
#[test]
fn remote_sources_match_salt() {
    replay(include_str!("../testdata/net.json"), &FILE, None);
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
