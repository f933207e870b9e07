//! Whole lookups over small trees. Expectations are what `puppet lookup`
//! (Puppet 7.23) answered for the same tree and facts, except for what
//! only brine has (`pillar.x`, the ext_pillar, the minion id as
//! `trusted.certname`).

use super::*;
use serde_json::json;
use std::path::Path;

/// A temporary tree: `files` are (relative path, content).
fn tree(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    for (rel, text) in files {
        let p = dir.path().join(rel);
        std::fs::create_dir_all(p.parent().expect("has parent")).expect("mkdir");
        std::fs::write(p, text).expect("write");
    }
    dir
}

/// Options for a minion whose pillar root `base` is `root/env` and whose
/// file root `base` is `root/env/modules`.
fn opts(root: &Path, global: Option<&str>) -> Map {
    let j = json!({
        "pillar_roots": {"base": [root.join("env").display().to_string()]},
        "file_roots": {"base": [root.join("env/modules").display().to_string()]},
    });
    let Value::Map(mut m) = Value::from_json(&j) else {
        unreachable!("a map")
    };
    if let Some(g) = global {
        m.insert(
            "hiera_config".into(),
            Value::Str(root.join(g).display().to_string()),
        );
    }
    m
}

fn node(grains: serde_json::Value) -> MinionData {
    MinionData {
        id: "thrush.example.com".into(),
        grains: Value::from_json(&grains),
        pillar: Value::from_json(&json!({"role": "web"})),
        opts: Value::new_map(),
        functions: Default::default(),
    }
}

fn look(h: &Hiera, key: &str, merge: Option<&str>) -> Option<serde_json::Value> {
    let m = merge.map(|s| Value::Str(s.into()));
    h.lookup(key, m.as_ref())
        .unwrap_or_else(|e| panic!("{key}: {e}"))
        .map(|v| v.to_json())
}

const ENV_HIERA: &str = "version: 5\nhierarchy:\n  - name: common\n    path: common.yaml\n";

#[test]
fn module_layer_and_default_hierarchy() {
    let dir = tree(&[
        ("env/hiera.yaml", ENV_HIERA),
        ("env/data/common.yaml", "ntp::servers: [env1]\nntp::h: {b: 2}\n"),
        (
            "env/modules/ntp/hiera.yaml",
            "version: 5\nhierarchy:\n  - name: common\n    path: common.yaml\ndefault_hierarchy:\n  - name: defaults\n    path: defaults.yaml\n",
        ),
        (
            "env/modules/ntp/data/common.yaml",
            "ntp::servers: [mod1, env1]\nntp::port: 123\nother: x\nlookup_options:\n  ntp::port: {merge: unique}\n  ntp::h: {merge: deep}\nntp::dh2: {b: 1}\n",
        ),
        (
            "env/modules/ntp/data/defaults.yaml",
            "ntp::servers: [def]\nntp::only_default: d\nntp::h: {a: 1}\nntp::dh: {a: 1}\nntp::dh2: {a: 1}\nlookup_options:\n  ntp::dh: {merge: deep}\n",
        ),
    ]);
    let h = Hiera::new(&opts(dir.path(), None), &node(json!({})), None);
    assert_eq!(look(&h, "ntp::servers", None), Some(json!(["env1"])));
    assert_eq!(
        look(&h, "ntp::servers", Some("unique")),
        Some(json!(["env1", "mod1"]))
    );
    assert_eq!(look(&h, "ntp::port", None), Some(json!([123])));
    assert_eq!(look(&h, "ntp::only_default", None), Some(json!("d")));
    // Unqualified keys are never looked up in a module.
    assert_eq!(look(&h, "other", None), None);
    // The default hierarchy is not merged when a layer has the key.
    assert_eq!(look(&h, "ntp::h", None), Some(json!({"b": 2})));
    assert_eq!(look(&h, "ntp::dh", None), Some(json!({"a": 1})));
    assert_eq!(look(&h, "ntp::dh2", None), Some(json!({"b": 1})));
    assert_eq!(look(&h, "ntp::dh", Some("deep")), Some(json!({"a": 1})));
}

#[test]
fn global_layer_comes_first_and_lookup_options_merge_across_layers() {
    let dir = tree(&[
        (
            "global/hiera.yaml",
            "version: 5\ndefaults:\n  datadir: gdata\n  data_hash: json_data\nhierarchy:\n  - name: g\n    path: g.json\n",
        ),
        ("global/gdata/g.json", r#"{"k": "global", "l": ["g"], "lookup_options": {"l": {"merge": "unique"}}}"#),
        ("env/hiera.yaml", ENV_HIERA),
        ("env/data/common.yaml", "k: env\nl: [e, g]\nlookup_options:\n  l: {merge: first}\n"),
    ]);
    let h = Hiera::new(
        &opts(dir.path(), Some("global/hiera.yaml")),
        &node(json!({})),
        None,
    );
    assert_eq!(look(&h, "k", None), Some(json!("global")));
    // The global layer's lookup_options win over the environment's.
    assert_eq!(look(&h, "l", None), Some(json!(["g", "e"])));
    assert_eq!(look(&h, "l", Some("first")), Some(json!(["g"])));
}

#[test]
fn unique_flattens_without_dedup_when_found_once() {
    let dir = tree(&[
        (
            "env/hiera.yaml",
            "version: 5\nhierarchy:\n  - {name: a, path: a.yaml}\n  - {name: b, path: b.yaml}\n",
        ),
        (
            "env/data/a.yaml",
            "dup: [x, x, [y, x]]\nsc: 5\nal: \"%{alias('arr')}\"\narr: [1, 2]\nviaal: \"%{lookup('arr')}\"\nnullv: ~\nh1: {a: [1, 1]}\nlookup_options:\n  h1: {merge: deep}\nrec: \"%{lookup('rec')}\"\n",
        ),
        ("env/data/b.yaml", "other: 1\n"),
    ]);
    let h = Hiera::new(&opts(dir.path(), None), &node(json!({})), None);
    assert_eq!(
        look(&h, "dup", Some("unique")),
        Some(json!(["x", "y", "x"]))
    );
    assert_eq!(look(&h, "sc", Some("unique")), Some(json!([5])));
    assert_eq!(look(&h, "nullv", Some("unique")), Some(json!([null])));
    assert_eq!(look(&h, "nullv", None), Some(json!(null)));
    assert_eq!(look(&h, "al", None), Some(json!([1, 2])));
    assert_eq!(look(&h, "viaal", None), Some(json!("[1, 2]")));
    assert_eq!(look(&h, "h1", None), Some(json!({"a": [1, 1]})));
    assert_eq!(
        look(&h, "dup", Some("deep")),
        Some(json!(["x", "x", ["y", "x"]]))
    );
    let e = h.lookup("rec", None).unwrap_err().to_string();
    assert_eq!(e, "Recursive lookup detected in [rec]");
}

#[test]
fn dotted_keys_dig_after_merging() {
    let dir = tree(&[
        ("env/hiera.yaml", ENV_HIERA),
        (
            "env/data/common.yaml",
            "users:\n  alice: {uid: 1}\nlist: [a, b]\n\"a.b\": dotted\n",
        ),
    ]);
    let h = Hiera::new(&opts(dir.path(), None), &node(json!({})), None);
    assert_eq!(look(&h, "users.alice.uid", None), Some(json!(1)));
    assert_eq!(look(&h, "list.1", None), Some(json!("b")));
    assert_eq!(look(&h, "users.bob", None), None);
    assert_eq!(look(&h, "'a.b'", None), Some(json!("dotted")));
    assert!(h.lookup("list.x", None).is_err());
    assert!(h.lookup("a..b", None).is_err());
}

#[test]
fn paths_interpolate_facts_trusted_and_mapped_paths() {
    let dir = tree(&[
        (
            "env/hiera.yaml",
            "version: 5\nhierarchy:\n  - name: node\n    path: \"nodes/%{trusted.certname}.yaml\"\n  - name: svc\n    mapped_paths: [facts.services, s, \"svc/%{s}.yaml\"]\n  - name: globbed\n    glob: \"extra/*.yaml\"\n  - name: os\n    path: \"os/%{::os.family}.yaml\"\n",
        ),
        ("env/data/nodes/thrush.example.com.yaml", "who: \"%{trusted.hostname} in %{trusted.domain} (%{pillar.role})\"\n"),
        ("env/data/svc/ntp.yaml", "svc: [ntp]\n"),
        ("env/data/svc/dns.yaml", "svc: [dns]\n"),
        ("env/data/extra/b.yaml", "ex: b\n"),
        ("env/data/extra/a.yaml", "ex: a\n"),
        ("env/data/extra/.hidden.yaml", "ex: hidden\n"),
        ("env/data/os/Debian.yaml", "svc: [os]\n"),
    ]);
    let grains = json!({"services": ["dns", "ntp"], "os": {"family": "Debian"}});
    let h = Hiera::new(&opts(dir.path(), None), &node(grains), None);
    assert_eq!(
        look(&h, "who", None),
        Some(json!("thrush in example.com (web)"))
    );
    assert_eq!(
        look(&h, "svc", Some("unique")),
        Some(json!(["dns", "ntp", "os"]))
    );
    assert_eq!(look(&h, "ex", Some("unique")), Some(json!(["a", "b"])));
}

#[test]
fn not_found_names_the_files_searched() {
    let dir = tree(&[("env/hiera.yaml", ENV_HIERA)]);
    let h = Hiera::new(&opts(dir.path(), None), &node(json!({})), None);
    assert_eq!(h.lookup("nope", None).unwrap(), None);
    let msg = h.not_found("nope");
    assert!(
        msg.contains("did not find a value for the name 'nope'"),
        "{msg}"
    );
    assert!(msg.contains("env/data/common.yaml"), "{msg}");
    let bare = Hiera::new(&Map::default(), &node(json!({})), None);
    assert_eq!(bare.lookup("nope", None).unwrap(), None);
    assert!(bare.not_found("nope").contains("no data file was searched"));
}

#[test]
fn broken_files_are_errors_naming_file_and_line() {
    let dir = tree(&[
        ("env/hiera.yaml", ENV_HIERA),
        ("env/data/common.yaml", "a: 1\nb: [1, 2\n"),
    ]);
    let h = Hiera::new(&opts(dir.path(), None), &node(json!({})), None);
    let e = h.lookup("a", None).unwrap_err().to_string();
    assert!(
        e.contains("env/data/common.yaml") && e.contains("line"),
        "{e}"
    );
    let dir = tree(&[("env/hiera.yaml", "version: 5\nhierarchy:\n  - name: x\n")]);
    let h = Hiera::new(&opts(dir.path(), None), &node(json!({})), None);
    let e = h.lookup("a", None).unwrap_err().to_string();
    assert!(e.contains("must be declared in hiera.yaml"), "{e}");
    let dir = tree(&[("env/hiera.yaml", "version: 3\n")]);
    let h = Hiera::new(&opts(dir.path(), None), &node(json!({})), None);
    let e = h.lookup("a", None).unwrap_err().to_string();
    assert!(
        e.contains("env/hiera.yaml") && e.contains("version 3"),
        "{e}"
    );
    let dir = tree(&[(
        "env/hiera.yaml",
        "version: 5\nhierarchy:\n  - name: x\n    path: \"%{lookup('a')}.yaml\"\n",
    )]);
    let h = Hiera::new(&opts(dir.path(), None), &node(json!({})), None);
    let e = h.lookup("a", None).unwrap_err().to_string();
    assert!(
        e.contains("env/hiera.yaml") && e.contains("method syntax"),
        "{e}"
    );
}

#[test]
fn ext_pillar_gives_every_key_with_its_own_merge() {
    let dir = tree(&[
        (
            "env/hiera.yaml",
            "version: 5\nhierarchy:\n  - {name: a, path: a.yaml}\n  - {name: b, path: b.yaml}\n",
        ),
        (
            "env/data/a.yaml",
            "x: 1\nh: {a: 1}\nlookup_options:\n  h: {merge: hash}\n",
        ),
        (
            "env/data/b.yaml",
            "x: 2\nh: {b: 2}\ny: \"%{pillar.role}\"\n",
        ),
        ("env/modules/ntp/hiera.yaml", ENV_HIERA),
        (
            "env/modules/ntp/data/common.yaml",
            "ntp::port: 123\nstray: 1\n",
        ),
    ]);
    let o = opts(dir.path(), None);
    let n = node(json!({}));
    let pillar = Value::from_json(&json!({"role": "db"}));
    let got = ext_pillar(&n, &n.opts, &pillar, &Value::new_map(), &o, None).unwrap();
    assert_eq!(
        got.to_json(),
        json!({"x": 1, "h": {"b": 2, "a": 1}, "y": "db", "ntp::port": 123})
    );
}
