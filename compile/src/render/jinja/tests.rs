//! Behaviour checked against Salt 3007.8's jinja renderer: `salt_cases.rs`
//! holds templates and the exact output (or error line) Salt gave for them
//! with the fixture below as grains, pillar and opts.

use super::*;

#[path = "salt_cases.rs"]
mod salt_cases;

/// One template rendered by Salt.
pub(super) struct Case {
    pub name: &'static str,
    pub src: &'static str,
    pub sls: &'static str,
    /// Template file relative to the roots (the files are written there).
    pub tplfile: Option<&'static str>,
    /// A template path given as-is (no file behind it).
    pub tplpath: Option<&'static str>,
    pub files: &'static [(&'static str, &'static str)],
    /// JSON object laid over the fixture's opts.
    pub opts: &'static str,
    /// Salt's output, or the line its error named.
    pub expect: Result<&'static str, Option<usize>>,
}

const FIXTURE: &str = r#"{
 "grains": {"id": "m1", "os": "Debian", "os_family": "Debian", "roles": ["web", "db"], "deep": {"x": {"y": 1}}, "num": 3, "ipv4": ["127.0.0.1", "10.0.0.5"], "shared": "from-grains"},
 "pillar": {"app": {"port": 8080, "name": "web", "enabled": true, "tags": ["a", "b"], "nested": {"k": "v"}}, "empty": {}, "none": null, "flt": 1.5, "users": {"alice": {"uid": 1000}, "bob": {"uid": 1001}}, "shared": "from-pillar", "text": "Hello World", "quote": "it's"},
 "opts": {"id": "m1", "myopt": 5, "shared": "from-opts"}
}"#;

fn minion() -> Arc<MinionData> {
    let fx = Value::from_json(&serde_json::from_str(FIXTURE).unwrap());
    Arc::new(MinionData {
        id: "m1".into(),
        grains: fx.get("grains").cloned().unwrap(),
        pillar: fx.get("pillar").cloned().unwrap(),
        opts: fx.get("opts").cloned().unwrap(),
    })
}

fn ctx_for(sls: &str) -> TemplateContext {
    TemplateContext {
        minion: minion(),
        saltenv: "base".into(),
        sls: Some(sls.into()),
        ..Default::default()
    }
}

/// A scratch directory for one test, removed on drop.
struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str) -> Scratch {
        let dir = std::env::temp_dir().join(format!("brine-jinja-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Scratch(dir)
    }

    fn write(&self, rel: &str, text: &str) {
        let p = self.0.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[test]
fn same_output_as_salt() {
    let minion = minion();
    let mut failures = Vec::new();
    // `load_yaml`/`import_yaml` parse with brine_core::yaml::load; skip
    // those cases while that loader is not built.
    let yaml_ready = brine_core::yaml::load("a: 1").is_ok();
    for c in salt_cases::CASES {
        if !yaml_ready && (c.src.contains("import_yaml") || c.src.contains("load_yaml")) {
            eprintln!("skipped {} (YAML loader not available)", c.name);
            continue;
        }
        let scratch = Scratch::new(c.name);
        for (rel, text) in c.files {
            scratch.write(rel, text);
        }
        let tplpath = match (c.tplfile, c.tplpath) {
            (Some(f), _) => Some(scratch.0.join(f).to_string_lossy().into_owned()),
            (None, p) => p.map(String::from),
        };
        let overlay = Value::from_json(&serde_json::from_str(c.opts).unwrap());
        let case_minion = match overlay.as_map() {
            Some(m) if !m.is_empty() => {
                let mut md = (*minion).clone();
                if let Some(opts) = md.opts.as_map_mut() {
                    opts.extend(m.clone());
                }
                Arc::new(md)
            }
            _ => minion.clone(),
        };
        let ctx = TemplateContext {
            minion: case_minion,
            saltenv: "base".into(),
            sls: Some(c.sls.into()),
            tplpath,
            search_paths: vec![scratch.0.clone()],
            ..Default::default()
        };
        let got = render(c.name, c.src, &ctx);
        match (&got, &c.expect) {
            (Ok(out), Ok(want)) if out == want => {}
            (Err(e), Err(line)) if line.is_none() || e.line == *line => {}
            _ => failures.push(format!(
                "{}:\n  salt:  {:?}\n  brine: {:?}",
                c.name,
                c.expect,
                got.as_ref().map_err(|e| (e.line, e.message.clone()))
            )),
        }
    }
    assert!(
        failures.is_empty(),
        "{} cases differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn extra_shadows_standard_names() {
    let mut ctx = ctx_for("a");
    ctx.extra = vec![
        ("sls".into(), Value::from("other")),
        (
            "stack".into(),
            Value::from_json(&serde_json::json!({"k": [1]})),
        ),
    ];
    assert_eq!(
        render("t", "{{ sls }} {{ stack.k }}", &ctx).unwrap(),
        "other [1]"
    );
}

#[test]
fn errors_name_the_template_and_line() {
    let err = render("pillar/a.sls", "a\n{{ nope }}\n", &ctx_for("a")).unwrap_err();
    assert_eq!(err.line, Some(2));
    assert!(err.message.contains("pillar/a.sls"), "{}", err.message);
    let err = render("x.sls", "{{ salt['cmd.run']('ls') }}", &ctx_for("x")).unwrap_err();
    assert!(err.message.contains("cmd.run"), "{}", err.message);
}

#[test]
fn allow_undefined_is_lenient() {
    let mut m = (*minion()).clone();
    m.opts = Value::from_json(&serde_json::json!({"allow_undefined": true}));
    let ctx = TemplateContext {
        minion: Arc::new(m),
        ..ctx_for("a")
    };
    assert_eq!(
        render("t", "[{{ nope }}]{% if nope %}y{% endif %}", &ctx).unwrap(),
        "[]"
    );
}

#[test]
fn conversion_is_reused_for_the_same_minion() {
    let ctx = ctx_for("a");
    let a = converted(&ctx.minion).1;
    let b = converted(&ctx.minion).1;
    assert!(
        std::ptr::eq(
            a.as_object().unwrap() as *const _,
            b.as_object().unwrap() as *const _
        ) || a == b
    );
}

#[test]
fn self_containing_values_do_not_recurse_forever() {
    let ctx = ctx_for("a");
    let src =
        "{% set d = {'a': 1} %}{% do d.update({'d': d}) %}{{ d.d.a }}|{{ (d | string)[:30] }}";
    assert_eq!(
        render("t", src, &ctx).unwrap(),
        "1|{'a': 1, 'd': {'a': 1, 'd': {'"
    );
    assert!(render(
        "t",
        "{% set l = [] %}{% do l.append(l) %}{{ l | json }}",
        &ctx
    )
    .is_err());
    assert!(render(
        "t",
        "{% set l = [] %}{% do l.append(l) %}{{ l | yaml }}",
        &ctx
    )
    .is_err());
}

#[test]
fn concatenation_prints_python_str_of_containers() {
    let ctx = ctx_for("a");
    let src = "{% set l = [1, none] %}{{ 'x' ~ l ~ pillar.app.nested }}";
    assert_eq!(
        render("t", src, &ctx).unwrap(),
        "x[1, None]OrderedDict([('k', 'v')])"
    );
}

/// Rendered by `salt-call --local slsutil.renderer path=salt://cmp.sls
/// default_renderer=jinja` (grains os/os_family Debian, roles [web, db]).
#[test]
fn same_output_as_salt_call() {
    let src = "{%- set app = salt['pillar.get']('app', {}) %}\n{%- set l = [] %}\n{%- for r in grains.roles %}{% do l.append(r | upper) %}{% endfor %}\nroles: {{ l }}\nos: {{ grains.os }} {{ grains['os_family'] == 'Debian' }}\nx: {{ salt['grains.filter_by']({'Debian': {'p': 'apache2'}}) }}\ny: {{ {'b': 1, 'a': none} | yaml }}\nz: {{ '%s/%s' % (sls, slspath) }} {{ tpldir }} {{ tplfile }}\n";
    let want = "\nroles: ['WEB', 'DB']\nos: Debian True\nx: {'p': 'apache2'}\ny: {a: null, b: 1}\nz: / . cmp.sls\n";
    let ctx = TemplateContext {
        sls: None,
        tplpath: Some("/var/cache/salt/minion/files/base/cmp.sls".into()),
        ..ctx_for("")
    };
    assert_eq!(render("salt://cmp.sls", src, &ctx).unwrap(), want);
}
