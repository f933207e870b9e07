//! End-to-end PillarStack tests on small trees written to a scratch
//! directory. Expected answers are what Salt 3007.8 returned for the same
//! trees (`salt-call --local --out json pillar.items`).

use super::*;
use serde_json::json;
use std::path::PathBuf;

/// A scratch directory, removed when dropped.
struct Tree(PathBuf);

impl Tree {
    fn new(name: &str, files: &[(&str, &str)]) -> Tree {
        let dir = std::env::temp_dir().join(format!("brine-stack-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        for (path, text) in files {
            let p = dir.join(path);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(&p, text).unwrap();
        }
        Tree(dir)
    }

    fn path(&self, rel: &str) -> String {
        self.0.join(rel).to_string_lossy().into_owned()
    }
}

impl Drop for Tree {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn v(j: serde_json::Value) -> Value {
    Value::from_json(&j)
}

fn minion(id: &str, grains: serde_json::Value) -> MinionData {
    MinionData {
        id: id.into(),
        grains: v(grains),
        pillar: Value::new_map(),
        opts: v(json!({"id": id, "pillarenv": null, "saltenv": null})),
    }
}

fn run(conf: Value) -> Result<Value, StackError> {
    ext_pillar(&minion("m1", json!({})), &Value::new_map(), &conf, None)
}

#[test]
fn missing_configs_and_unmatched_globs_are_skipped() {
    let t = Tree::new(
        "skip",
        &[("stack/c.cfg", "nomatch/*.yml\n\n   \nmissing.yml\n")],
    );
    let conf = Value::List(vec![
        Value::Str(t.path("stack/nosuch.cfg")),
        Value::Str(t.path("stack/c.cfg")),
        Value::Int(3),
    ]);
    assert_eq!(run(conf).unwrap(), Value::new_map());
    // An empty selection is an empty stack.
    assert_eq!(run(v(json!({}))).unwrap(), Value::new_map());
}

#[test]
fn malformed_configuration_fails_with_salts_message() {
    let err = run(v(json!([null]))).unwrap_err();
    assert_eq!(
        err.to_string(),
        "stat: path should be string, bytes, os.PathLike or integer, not NoneType"
    );
    let err = run(v(json!({"pillar": {"a": "b"}}))).unwrap_err();
    assert_eq!(
        err.to_string(),
        "not enough values to unpack (expected 2, got 1)"
    );
    assert_eq!(err.path(), None);
}

// Checked with real Salt: a match outside the config's directory, or a
// directory, cannot be loaded as a template, and the whole stack fails.
#[test]
fn matches_jinja_cannot_load_are_errors() {
    let t = Tree::new(
        "outside",
        &[
            ("stack/c.cfg", "../other/o.yml\n"),
            ("other/o.yml", "o: 1\n"),
            ("stack/d/x.yml", "x: 1\n"),
            ("stack/dir.cfg", "d\n"),
        ],
    );
    let err = run(Value::Str(t.path("stack/c.cfg"))).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "Stack pillar template render error in {}:\n\"../other/o.yml\"",
            t.path("stack/../other/o.yml")
        )
    );
    assert_eq!(err.path(), Some(t.path("stack/../other/o.yml").as_str()));
    let err = run(Value::Str(t.path("stack/dir.cfg"))).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "Stack pillar template render error in {}:\n\"'d' not found in search path: '{}'\"",
            t.path("stack/d"),
            t.path("stack")
        )
    );
}

#[test]
fn unreadable_text_is_reported_like_python() {
    let t = Tree::new("utf8", &[("stack/c.cfg", "a.yml\n")]);
    std::fs::write(t.path("stack/a.yml"), b"a: \xff\n").unwrap();
    let err = run(Value::Str(t.path("stack/c.cfg"))).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "Stack pillar template render error in {}:\n\"'utf-8' codec can't decode byte 0xff in position 3: invalid start byte\"",
            t.path("stack/a.yml")
        )
    );
}

#[test]
fn mentions_finds_whole_identifiers_only() {
    assert!(mentions("x: {{ stack['a'] }}", "stack"));
    assert!(!mentions("stacked: {{ __stack__.cfg_path }}", "stack"));
    assert!(mentions("{{ __stack__.cfg_path }}", "__stack__"));
    assert!(!mentions("{{ my_minion_id }}", "minion_id"));
}
