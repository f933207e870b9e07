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
        functions: Default::default(),
    }
}

fn run(conf: Value) -> Result<Value, StackError> {
    {
        let m = minion("m1", json!({}));
        ext_pillar(&m, &m.opts, &Value::new_map(), &conf, None)
    }
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

// ---- End to end: these need render::jinja and render::yaml. ----

fn to_json_text(v: &Value) -> String {
    serde_json::to_string(&v.to_json()).unwrap()
}

/// Conformance case pillar-stack-basic (the PillarStack documentation's
/// example): Salt's answer less `roles`, which comes from the pillar SLS.
#[test]
fn conformance_pillar_stack_basic() {
    let t = Tree::new(
        "basic",
        &[
            (
                "stack/config.cfg",
                "core.yml\ncommon/*.yml\nosarchs/{{ __grains__['osarch'] }}.yml\n\
                 oscodenames/{{ __grains__['oscodename'] }}.yml\n\
                 {%- for role in pillar.get('roles', []) %}\nroles/{{ role }}.yml\n{%- endfor %}\n\
                 minions/{{ minion_id }}.yml\n",
            ),
            ("stack/core.yml", "order: [core]\ntitle: core\n"),
            (
                "stack/common/xxx.yml",
                "order: [xxx]\ncommon: {xxx: true}\n",
            ),
            (
                "stack/common/yyy.yml",
                "order: [yyy]\ncommon: {yyy: true}\n",
            ),
            ("stack/osarchs/amd64.yml", "order: [amd64]\narch: amd64\n"),
            (
                "stack/oscodenames/jessie.yml",
                "order: [jessie]\ncodename: jessie\nprevious_title: {{ stack['title'] }}\n",
            ),
            ("stack/roles/db.yml", "order: [db]\ntitle: db server\n"),
            ("stack/roles/web.yml", "order: [web]\n"),
            (
                "stack/minions/test-1-dev.yml",
                "order: [minion]\nseen_roles: {{ pillar['roles'] | join(',') }}\n",
            ),
        ],
    );
    let m = minion(
        "test-1-dev",
        json!({"os": "Debian", "osarch": "amd64", "oscodename": "jessie"}),
    );
    let pillar = v(json!({"roles": ["db"]}));
    let got = ext_pillar(
        &m,
        &m.opts,
        &pillar,
        &Value::Str(t.path("stack/config.cfg")),
        None,
    )
    .unwrap();
    assert_eq!(
        to_json_text(&got),
        r#"{"order":["core","xxx","yyy","amd64","jessie","db","minion"],"title":"db server","common":{"xxx":true,"yyy":true},"arch":"amd64","codename":"jessie","previous_title":"core","seen_roles":"db"}"#
    );
}

/// Conformance case pillar-stack-strategies (list form of the config).
#[test]
fn conformance_pillar_stack_strategies() {
    let t = Tree::new(
        "strategies",
        &[
            (
                "stack/one.cfg",
                "00-base.yml\n10-merge-last.yml\n20-merge-first.yml\n30-remove.yml\n40-overwrite.yml\n50-lists.yml\n",
            ),
            (
                "stack/00-base.yml",
                "users_ml:\n  tom: {uid: 500, roles: [sysadmin]}\n  root: {uid: 0}\n\
                 users_mf:\n  tom: {uid: 500, roles: [sysadmin]}\n  root: {uid: 0}\n\
                 users_rm:\n  tom: {uid: 500, roles: [sysadmin]}\n  root: {uid: 0}\n\
                 users_ow:\n  tom: {uid: 500, roles: [sysadmin]}\n  root: {uid: 0}\n\
                 l_ml: [tom, root]\nl_mf: [tom, root]\nl_rm: [tom, root]\nl_ow: [tom, root]\n",
            ),
            (
                "stack/10-merge-last.yml",
                "users_ml:\n  __: merge-last\n  tom: {uid: 1000, roles: [developer]}\n  mat: {uid: 1001}\n",
            ),
            (
                "stack/20-merge-first.yml",
                "users_mf:\n  __: merge-first\n  tom: {uid: 1000, roles: [developer]}\n  mat: {uid: 1001}\n",
            ),
            ("stack/30-remove.yml", "users_rm:\n  __: remove\n  tom:\n  mat:\n"),
            (
                "stack/40-overwrite.yml",
                "users_ow:\n  __: overwrite\n  tom: {uid: 1000, roles: [developer]}\n  mat: {uid: 1001}\n",
            ),
            (
                "stack/50-lists.yml",
                "l_ml:\n  - __: merge-last\n  - mat\nl_mf:\n  - __: merge-first\n  - mat\n\
                 l_rm:\n  - __: remove\n  - mat\n  - tom\nl_ow:\n  - __: overwrite\n  - mat\n",
            ),
        ],
    );
    let conf = Value::List(vec![Value::Str(t.path("stack/one.cfg"))]);
    let m = minion("m1", json!({"os": "Debian"}));
    let got = ext_pillar(&m, &m.opts, &Value::new_map(), &conf, None).unwrap();
    assert_eq!(
        to_json_text(&got),
        concat!(
            r#"{"users_ml":{"tom":{"uid":1000,"roles":["sysadmin","developer"]},"root":{"uid":0},"mat":{"uid":1001}},"#,
            r#""users_mf":{"tom":{"uid":500,"roles":["developer","sysadmin"]},"root":{"uid":0},"mat":{"uid":1001}},"#,
            r#""users_rm":{"root":{"uid":0}},"#,
            r#""users_ow":{"tom":{"uid":1000,"roles":["developer"]},"mat":{"uid":1001}},"#,
            r#""l_ml":["tom","root","mat"],"l_mf":["mat","tom","root"],"l_rm":["root"],"l_ow":["mat"]}"#
        )
    );
}

/// The variables stack.py gives templates, as Salt rendered them: lenient
/// undefined, `pillarenv` from opts (None here), `ymlpath`, `__stack__`.
/// Also: a line with a leading space and hidden files select nothing.
#[test]
fn template_variables_like_salt() {
    let t = Tree::new(
        "vars",
        &[
            (
                "stack/c.cfg",
                "{# comment #}\nnomatch/*.yml\nsub/*.yml\n sub/a.yml\nvars.yml\n",
            ),
            ("stack/sub/a.yml", "x: 1\n"),
            ("stack/sub/b.yml", "y: [1]\n"),
            ("stack/sub/.h.yml", "hidden: 1\n"),
            (
                "stack/vars.yml",
                "v_pillarenv: {{ pillarenv | tojson }}\nv_ymlpath: {{ ymlpath }}\n\
                 v_cfg: {{ __stack__.cfg_path }}\n\
                 v_opts_pillarenv: {{ __opts__['pillarenv'] | tojson }}\n\
                 v_stack: {{ stack | tojson }}\nv_undef: \"{{ nosuch }}\"\n\
                 v_minion: {{ minion_id }}\nv_grains: {{ __grains__['os'] }}\n\
                 v_pillar: {{ pillar['roles'][0] }}\n\
                 v_salt: {{ __salt__['grains.get']('os') }}\n",
            ),
        ],
    );
    let m = MinionData {
        // `__salt__`: a stand-in for the runtime's registry.
        functions: crate::minion_data::stub(),
        ..minion("test-1-dev", json!({"os": "Debian"}))
    };
    let pillar = v(json!({"roles": ["db"]}));
    let got = ext_pillar(
        &m,
        &m.opts,
        &pillar,
        &Value::Str(t.path("stack/c.cfg")),
        None,
    )
    .unwrap();
    let want = json!({
        "x": 1, "y": [1], "v_pillarenv": null, "v_ymlpath": t.path("stack/vars.yml"),
        "v_cfg": t.path("stack/c.cfg"), "v_opts_pillarenv": null,
        "v_stack": {"x": 1, "y": [1]}, "v_undef": "", "v_minion": "test-1-dev",
        "v_grains": "Debian", "v_pillar": "db", "v_salt": "Debian"
    });
    assert_eq!(to_json_text(&got), serde_json::to_string(&want).unwrap());
}

/// Dict form, checked with Salt: selection by pillar, grains, opts; lists of
/// configs; `__env__` standing for `pillarenv or saltenv or 'base'`; a YAML
/// list config rendered with `pillarenv` (None when only saltenv is set).
#[test]
fn dict_form_end_to_end() {
    let mut files: Vec<(String, String)> = Vec::new();
    for n in ["s0", "bar", "foo", "g1", "g2"] {
        files.push((format!("stack/{n}.cfg"), format!("{n}.yml\n")));
        files.push((format!("stack/{n}.yml"), format!("order: [{n}]\n")));
    }
    for e in ["dev", "base"] {
        files.push((
            format!("stack/{e}/env.cfg"),
            "- e.yml\n- \"{{ pillarenv }}.yml\"\n".into(),
        ));
        files.push((format!("stack/{e}/e.yml"), format!("order: [env-{e}]\n")));
        files.push((format!("stack/{e}/None.yml"), format!("order: [pe-{e}]\n")));
        files.push((
            format!("stack/{e}/{e}.yml"),
            format!("order: [pillarenv-{e}]\n"),
        ));
    }
    let refs: Vec<(&str, &str)> = files
        .iter()
        .map(|(a, b)| (a.as_str(), b.as_str()))
        .collect();
    let t = Tree::new("dict", &refs);
    let conf = v(json!({
        "pillar:sel": {"bar": t.path("stack/bar.cfg"), "foo": t.path("stack/foo.cfg")},
        "grains:custom:grain": {"v1": [t.path("stack/g1.cfg"), t.path("stack/g2.cfg")]},
        "opts:id": {"test-1-dev": t.path("stack/s0.cfg")},
        "opts:saltenv": {"dev": t.path("stack/dev/env.cfg"), "__env__": t.path("stack/__env__/env.cfg")},
    }));
    let pillar = v(json!({"sel": "foo"}));
    let order = |saltenv: Option<&str>, pillarenv: Option<&str>| {
        let mut m = minion("test-1-dev", json!({"custom": {"grain": "v1"}}));
        m.opts = v(json!({"id": "test-1-dev", "saltenv": saltenv, "pillarenv": null}));
        let got = ext_pillar(&m, &m.opts, &pillar, &conf, pillarenv).unwrap();
        to_json_text(got.get("order").unwrap())
    };
    assert_eq!(order(None, None), r#"["foo","g1","g2","s0"]"#);
    assert_eq!(
        order(Some("dev"), None),
        r#"["foo","g1","g2","s0","env-dev","pe-dev"]"#
    );
    assert_eq!(
        order(Some("base"), None),
        r#"["foo","g1","g2","s0","env-base","pe-base"]"#
    );
    // pillarenv alone does not make opts:saltenv match.
    assert_eq!(order(None, Some("base")), r#"["foo","g1","g2","s0"]"#);
}

/// Each config sees the stack of the previous ones (checked with Salt).
#[test]
fn stack_is_threaded_through_configs() {
    let t = Tree::new(
        "thread",
        &[
            ("stack/1.cfg", "a.yml\n"),
            ("stack/a.yml", "a: b\n"),
            ("stack/2.cfg", "{{ stack.a }}.yml\n"),
            ("stack/b.yml", "b: {{ __stack__.cfg_path }}\n"),
        ],
    );
    let conf = v(json!([t.path("stack/1.cfg"), t.path("stack/2.cfg")]));
    let got = run(conf).unwrap();
    assert_eq!(
        to_json_text(&got),
        serde_json::to_string(&json!({"a": "b", "b": t.path("stack/2.cfg")})).unwrap()
    );
}

/// `{% include %}` names resolve in the config's directory and see `stack`;
/// globs with `..` and classes select like Python (checked with Salt).
#[test]
fn includes_and_odd_globs() {
    let t = Tree::new(
        "incl",
        &[
            (
                "stack/c.cfg",
                "- a.yml\n- ./d/../a.yml\n- \"[ab].yml\"\n- \"d/../*.yml\"\n",
            ),
            ("stack/d/keep", ""),
            ("stack/b.yml", "b: [1]\n"),
            ("stack/x.tpl", "inc{{ stack | length }}"),
            ("stack/a.yml", "b: [2]\n{% include \"x.tpl\" %}: 1\n"),
        ],
    );
    let got = run(Value::Str(t.path("stack/c.cfg"))).unwrap();
    assert_eq!(
        to_json_text(&got),
        r#"{"b":[2,2,2,1,2,1],"inc0":1,"inc2":1,"inc3":1,"inc4":1}"#
    );
}

/// Failures drop the whole stack with Salt's message naming the file.
#[test]
fn failures_name_the_file() {
    let t = Tree::new(
        "fail",
        &[
            ("stack/c.cfg", "a.yml\nbad.yml\n"),
            ("stack/a.yml", "a: [0]\n"),
            ("stack/list.cfg", "- a.yml\n- 1\n"),
        ],
    );
    let cfg = Value::Str(t.path("stack/c.cfg"));
    let bad = t.path("stack/bad.yml");

    std::fs::write(&bad, "b: 1\nx: [\n").unwrap();
    let err = run(cfg.clone()).unwrap_err();
    // Salt: "...bad.yml:\nwhile parsing a flow node\ndid not find expected
    // node content\n  in ..."; the wording between is the YAML loader's.
    let text = err.to_string();
    assert!(
        text.starts_with(&format!(
            "Stack pillar yaml parsing error in {bad}:\nwhile parsing a"
        )),
        "{text}"
    );
    assert!(
        text.ends_with("\n  in \"<unicode string>\", line 3, column 1\nb: 1\nx: ["),
        "{text}"
    );
    assert_eq!(err.path(), Some(bad.as_str()));

    std::fs::write(&bad, "b: 1\nx: {{ foo( }}\n").unwrap();
    let err = run(cfg.clone()).unwrap_err();
    assert!(err
        .to_string()
        .starts_with(&format!("Stack pillar template render error in {bad}:\n\"")));
    assert_eq!(err.line(), Some(2));
    // Binding `__salt__` keeps line numbers.
    std::fs::write(
        &bad,
        "b: {{ __salt__['grains.get']('os') }}\nx: {{ foo( }}\n",
    )
    .unwrap();
    assert_eq!(run(cfg.clone()).unwrap_err().line(), Some(2));

    std::fs::write(&bad, "a:\n  - __: foo\n  - 1\n").unwrap();
    let err = run(cfg.clone()).unwrap_err();
    assert_eq!(
        err.to_string(),
        "Unknown strategy \"foo\", should be one of ('overwrite', 'merge-first', 'merge-last', 'remove')"
    );
    assert_eq!(err.path(), Some(bad.as_str()));

    // Not a dict: ignored.
    std::fs::write(&bad, "- 1\n- 2\n").unwrap();
    assert_eq!(to_json_text(&run(cfg).unwrap()), r#"{"a":[0]}"#);

    let err = run(Value::Str(t.path("stack/list.cfg"))).unwrap_err();
    assert_eq!(err.to_string(), "'int' object has no attribute 'strip'");
    assert_eq!(err.line(), Some(2));
}

/// Files stacked in order, where those that do not name `stack` render
/// ahead on other threads: the ones that read the stack still see every
/// file before them, and the first failing file is the one reported.
#[test]
fn files_rendered_ahead_stack_as_in_turn() {
    let mut files: Vec<(String, String)> = (0..40)
        .map(|i| {
            let text = if i % 10 == 9 {
                format!("seen{i}: {{{{ stack['list'] | length }}}}\nlist: [x{i}]\n")
            } else {
                format!("k{i}: {{{{ minion_id }}}}-{i}\nlist: [x{i}]\n")
            };
            (format!("stack/parts/{i:02}.yml"), text)
        })
        .collect();
    files.push(("stack/c.cfg".into(), "parts/*.yml\n".into()));
    let refs: Vec<(&str, &str)> = files
        .iter()
        .map(|(p, t)| (p.as_str(), t.as_str()))
        .collect();
    let t = Tree::new("ahead", &refs);
    let got = run(Value::Str(t.path("stack/c.cfg"))).unwrap();
    let Value::Map(got) = got else {
        panic!("{got:?}")
    };
    for i in (9..40).step_by(10) {
        assert_eq!(got[&format!("seen{i}")], Value::Int(i), "file {i}");
    }
    assert_eq!(got["k38"], Value::from("m1-38"));
    let list: Vec<String> = got["list"]
        .as_list()
        .unwrap()
        .iter()
        .map(Value::to_python_str)
        .collect();
    assert_eq!(list, (0..40).map(|i| format!("x{i}")).collect::<Vec<_>>());

    // Two broken files: the first in order is the error.
    std::fs::write(t.0.join("stack/parts/33.yml"), "a: [\n").unwrap();
    std::fs::write(t.0.join("stack/parts/12.yml"), "b: {\n").unwrap();
    let err = run(Value::Str(t.path("stack/c.cfg"))).unwrap_err();
    assert!(err.path().unwrap().ends_with("12.yml"), "{err}");
}
