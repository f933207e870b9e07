//! The registry: its table, `sys.*`, argument binding, and templates
//! calling it (Salt's recorded Jinja answers included).

use super::*;
use crate::context::Minion;
use brine_compile::minion_data::Functions;
use brine_compile::render::jinja::{self, cases, TemplateContext};
use brine_core::args::parse_input;
use brine_core::Value;
use serde_json::json;
use std::sync::Arc;

/// A minion with the Jinja fixture's grains, pillar and opts.
fn minion() -> Minion {
    let fx = cases::minion(functions());
    Minion {
        id: fx.id.clone(),
        opts: fx.opts.as_map().cloned().unwrap_or_default().into(),
        grains: fx.grains.as_map().cloned().unwrap_or_default().into(),
        pillar: fx.pillar.as_map().cloned().unwrap_or_default().into(),
        source: Default::default(),
        functions: functions(),
        jobs: Default::default(),
        registry: None,
        schedule: None,
        master: Default::default(),
        key_finger: None,
    }
}

/// `brine-call FUN ARGS...` on `m`: the value as JSON, or the error text
/// and its exit code.
fn run(m: &mut Minion, fun: &str, line: &[&str]) -> Result<serde_json::Value, (String, i32)> {
    let tokens: Vec<String> = line.iter().map(|s| s.to_string()).collect();
    call(m, fun, parse_input(&tokens))
        .map(|r| r.value.to_json())
        .map_err(|e| (e.to_string(), e.retcode()))
}

/// Render `src` for the fixture minion with the registry behind `salt`.
fn render(src: &str) -> Result<String, String> {
    let ctx = TemplateContext {
        minion: cases::minion(functions()),
        saltenv: "base".into(),
        sls: Some("t".into()),
        ..Default::default()
    };
    jinja::render("t.sls", src, &ctx).map_err(|e| e.message)
}

#[test]
fn every_function_is_documented_and_named_once() {
    let names: Vec<String> = all().into_iter().map(|(n, _)| n).collect();
    let mut unique = names.clone();
    unique.dedup();
    assert_eq!(names, unique, "a function is registered twice");
    for (name, f) in all() {
        assert!(
            f.doc.trim().len() > 20 && !f.doc.starts_with(' '),
            "{name} needs a docstring"
        );
        assert_eq!(find(&name).map(|g| g.name), Some(f.name), "{name}");
    }
    // What Jinja needs today, and the command line's functions.
    for name in [
        "config.get",
        "defaults.deepcopy",
        "defaults.merge",
        "grains.filter_by",
        "grains.get",
        "match.compound",
        "match.glob",
        "pillar.get",
        "pillar.items",
        "slsutil.merge",
        "state.apply",
        "state.show_lowstate",
        "hiera.lookup",
        "sys.doc",
        "test.ping",
    ] {
        assert!(find(name).is_some(), "{name} is missing");
    }
}

#[test]
fn sys_answers_from_the_table_in_salts_shapes() {
    let mut m = minion();
    let modules = run(&mut m, "sys.list_modules", &[]).unwrap();
    assert_eq!(
        modules,
        json!([
            "alternatives",
            "archive",
            "cmd",
            "config",
            "cp",
            "cron",
            "defaults",
            "disk",
            "event",
            "file",
            "git",
            "grains",
            "group",
            "hiera",
            "hosts",
            "key",
            "locale",
            "log",
            "match",
            "mine",
            "mount",
            "network",
            "pillar",
            "pip",
            "pkg",
            "ps",
            "random",
            "saltutil",
            "schedule",
            "sdb",
            "service",
            "slsutil",
            "state",
            "status",
            "sys",
            "sysctl",
            "test",
            "timezone",
            "user"
        ])
    );
    assert_eq!(
        run(&mut m, "sys.list_modules", &["s*"]).unwrap(),
        json!([
            "saltutil", "schedule", "sdb", "service", "slsutil", "state", "status", "sys", "sysctl"
        ])
    );
    let all_names: Vec<String> = all().into_iter().map(|(n, _)| n).collect();
    assert_eq!(
        run(&mut m, "sys.list_functions", &[]).unwrap(),
        json!(all_names)
    );
    // (arguments, answer)
    let cases: &[(&[&str], serde_json::Value)] = &[
        (
            &["sys"],
            json!([
                "sys.argspec",
                "sys.doc",
                "sys.list_functions",
                "sys.list_modules",
                "sys.list_state_functions",
                "sys.list_state_modules",
                "sys.state_doc"
            ]),
        ),
        (
            &["test"],
            json!(all_names
                .iter()
                .filter(|n| n.starts_with("test."))
                .collect::<Vec<_>>()),
        ),
        // A dot makes it a pattern for function names, as in Salt.
        (&["test."], json!([])),
        (&["pillar.g*"], json!(["pillar.get"])),
        (&["test.ping", "sys.doc"], json!(["sys.doc", "test.ping"])),
        (&["nope"], json!([])),
    ];
    for (args, want) in cases {
        assert_eq!(
            &run(&mut m, "sys.list_functions", args).unwrap(),
            want,
            "{args:?}"
        );
    }
    let doc = run(&mut m, "sys.doc", &["test.ping"]).unwrap();
    assert_eq!(
        doc,
        json!({"test.ping": find("test.ping").map(|f| f.doc).unwrap_or_default()})
    );
    assert_eq!(
        run(&mut m, "sys.list_modules", &["test", "te?t"]).unwrap(),
        json!(["test"])
    );
    let doc = run(&mut m, "sys.doc", &["test."]).unwrap();
    let keys: Vec<&String> = doc
        .as_object()
        .map(|o| o.keys().collect())
        .unwrap_or_default();
    let test_names: Vec<&String> = all_names
        .iter()
        .filter(|n| n.starts_with("test."))
        .collect();
    assert_eq!(keys, test_names);
    let doc = run(&mut m, "sys.doc", &[]).unwrap();
    assert_eq!(doc.as_object().map(|o| o.len()), Some(all_names.len()));
}

#[test]
fn arguments_bind_like_salt() {
    let mut m = minion();
    // (function, arguments, answer, or error text and exit code)
    type Want = Result<serde_json::Value, (&'static str, i32)>;
    let cases: &[(&str, &[&str], Want)] = &[
        ("test.ping", &[], Ok(json!(true))),
        ("test.echo", &["hi there"], Ok(json!("hi there"))),
        ("test.echo", &["text=hi"], Ok(json!("hi"))),
        // Publish metadata is never an argument.
        (
            "test.ping",
            &["__pub_jid=1", "__pub_fun=test.ping"],
            Ok(json!(true)),
        ),
        ("test.echo", &["x", "__pub_user=root"], Ok(json!("x"))),
        (
            "test.ping",
            &["x"],
            Err((
                "Passed invalid arguments: ping() takes 0 positional arguments but 1 was given",
                1,
            )),
        ),
        (
            "test.echo",
            &[],
            Err((
                "Passed invalid arguments: echo() missing 1 required positional argument: 'text'",
                1,
            )),
        ),
        (
            "test.ping",
            &["nope=1"],
            Err(("The following keyword arguments are not valid: nope=1", 1)),
        ),
        (
            "pillar.get",
            &["app", "key=other"],
            Err((
                "Passed invalid arguments: get() got multiple values for argument 'key'",
                1,
            )),
        ),
        (
            "nope.nothing",
            &[],
            Err(("'nope.nothing' is not available.", 255)),
        ),
        (
            "test.nothing",
            &[],
            Err(("'test.nothing' is not available.", 255)),
        ),
        ("ping", &[], Err(("'ping' is not available.", 255))),
        ("pillar.get", &["app:port"], Ok(json!(8080))),
        ("pillar.get", &["app:nope", "dflt"], Ok(json!("dflt"))),
        ("pillar.get", &["app/name", "delimiter=/"], Ok(json!("web"))),
        ("pillar.keys", &["users"], Ok(json!(["alice", "bob"]))),
        (
            "pillar.keys",
            &["app:port"],
            Err(("Pillar value in key app:port is not a dict", 1)),
        ),
        ("pillar.raw", &["key=nope"], Ok(json!({}))),
        ("grains.get", &["roles:1"], Ok(json!("db"))),
        (
            "grains.item",
            &["os", "nope"],
            Ok(json!({"os": "Debian", "nope": ""})),
        ),
        ("grains.has_value", &["deep:x"], Ok(json!(true))),
        (
            "grains.ls",
            &[],
            Ok(json!([
                "deep",
                "id",
                "ipv4",
                "num",
                "os",
                "os_family",
                "roles",
                "shared"
            ])),
        ),
        ("config.get", &["shared"], Ok(json!("from-opts"))),
        (
            "config.get",
            &["shared", "omit_opts=True"],
            Ok(json!("from-grains")),
        ),
        ("config.get", &["app:name"], Ok(json!("web"))),
        ("match.glob", &["m*"], Ok(json!(true))),
        ("match.glob", &["m*", "minion_id=x1"], Ok(json!(false))),
        ("match.grain", &["os:Deb*"], Ok(json!(true))),
        ("match.compound", &["G@os:Debian and m1"], Ok(json!(true))),
        (
            "defaults.merge",
            &["{a: {b: 1}}", "{a: {c: 2}}"],
            Ok(json!({"a": {"b": 1, "c": 2}})),
        ),
        (
            "defaults.merge",
            &["[1]", "{a: 1}"],
            Err((
                "Cannot update using non-dict types in dictupdate.update()",
                1,
            )),
        ),
        (
            "slsutil.merge",
            &["{a: [1]}", "{a: [2]}", "merge_lists=True"],
            Ok(json!({"a": [1, 2]})),
        ),
        (
            "grains.filter_by",
            &["{Debian: {p: apache2}, default: {p: www}}"],
            Ok(json!({"p": "apache2"})),
        ),
    ];
    for (fun, args, want) in cases {
        let want = want.clone().map_err(|(t, rc)| (t.to_string(), rc));
        assert_eq!(run(&mut m, fun, args), want, "{fun} {args:?}");
    }
}

#[test]
fn state_runs_are_not_for_templates() {
    let err = render("{{ salt['state.apply']() }}").unwrap_err();
    assert!(
        err.contains("'state.apply' cannot be called from a template"),
        "{err}"
    );
    let err = render("{{ salt['nosuch.run']('ls') }}").unwrap_err();
    assert!(err.contains("'nosuch.run' is not available."), "{err}");
    // cmd.run acts on the host and templates may call it, as in Salt.
    assert_eq!(render("{{ salt['cmd.run']('echo hi') }}").unwrap(), "hi");
}

#[test]
fn templates_call_the_registry_by_item_and_by_attribute() {
    // (template, output)
    let cases: &[(&str, &str)] = &[
        ("{{ salt['pillar.get']('app:port') }}", "8080"),
        ("{{ salt.pillar.get('app:port') }}", "8080"),
        ("{{ salt['test.echo']('hi') }}|{{ salt.test.echo(text='hi') }}", "hi|hi"),
        ("{{ salt['sys.list_modules']('t*') }}", "['test', 'timezone']"),
        ("{{ salt['pillar.get']('nope', default='d', __pub_jid='1') }}", "d"),
        // A piece of pillar is the pillar's own object: an OrderedDict.
        ("{{ salt['pillar.get']('app:nested') | string }}", "OrderedDict([('k', 'v')])"),
        ("{{ salt['pillar.items']()['app']['nested'] | string }}", "OrderedDict([('k', 'v')])"),
        ("{{ salt['pillar.item']('app:nested')['app:nested'] | string }}", "OrderedDict([('k', 'v')])"),
        // Grains and template literals are plain dicts (the yaml filter sorts them).
        ("{{ salt['grains.get']('deep') | string }}", "{'x': {'y': 1}}"),
        ("{{ salt['pillar.get']('nope', {'b': 1, 'a': 2}) | yaml }}", "{a: 2, b: 1}"),
        // A merge keeps the default's type, and pillar's for what only pillar has.
        (
            "{% set d = odict(b=1) %}{{ salt['pillar.get']('app', d, merge=True) | yaml }}",
            "{b: 1, port: 8080, name: web, enabled: true, tags: [a, b], nested: {k: v}}",
        ),
        (
            "{{ salt['defaults.merge']({'z': 1}, salt['pillar.get']('app'), in_place=False)['nested'] | string }}",
            "OrderedDict([('k', 'v')])",
        ),
        // An argument handed back is the same object.
        (
            "{% set d = {} %}{% set x = salt['pillar.get']('nope', d) %}{% do x.update({'k': 1}) %}{{ d }}",
            "{'k': 1}",
        ),
        (
            "{% set l = {'Debian': {'p': 1}} %}{% do salt['grains.filter_by'](l).update({'q': 2}) %}{{ l }}",
            "{'Debian': {'p': 1, 'q': 2}}",
        ),
        // In place: nested dicts bound to names see the change.
        (
            "{% set d = {'a': {'b': 1}} %}{% set a = d.a %}{% do salt['defaults.merge'](d, {'a': {'c': 2}}) %}{{ a }}|{{ d }}",
            "{'b': 1, 'c': 2}|{'a': {'b': 1, 'c': 2}}",
        ),
        ("{{ salt['defaults.deepcopy'](pillar.app.nested) | string }}", "OrderedDict([('k', 'v')])"),
        ("{{ salt['match.glob']('m*') }}|{{ salt['match.pcre']('x.*') }}", "True|False"),
    ];
    for (src, want) in cases {
        assert_eq!(render(src).as_deref(), Ok(*want), "{src}");
    }
    // Iterating `salt` lists the registry.
    let listed = render("{{ salt | list | length }}").unwrap_or_default();
    assert_eq!(listed, all().len().to_string());
}

/// Salt's recorded Jinja answers (compile's `salt_cases.rs`), all of them,
/// with the registry behind `salt`: the cases calling it run only here.
#[test]
fn same_output_as_salt_through_the_registry() {
    let calling = cases::all().iter().filter(|c| c.calls_salt()).count();
    assert!(calling >= 15, "only {calling} cases call salt[...]");
    let all = cases::all().len();
    cases::assert_as_salt(cases::run(&functions(), |_| true), all);
}

/// Rendered by `salt-call --local slsutil.renderer path=salt://cmp.sls
/// default_renderer=jinja` (grains os/os_family Debian, roles [web, db]).
#[test]
fn same_output_as_salt_call() {
    let src = "{%- set app = salt['pillar.get']('app', {}) %}\n{%- set l = [] %}\n{%- for r in grains.roles %}{% do l.append(r | upper) %}{% endfor %}\nroles: {{ l }}\nos: {{ grains.os }} {{ grains['os_family'] == 'Debian' }}\nx: {{ salt['grains.filter_by']({'Debian': {'p': 'apache2'}}) }}\ny: {{ {'b': 1, 'a': none} | yaml }}\nz: {{ '%s/%s' % (sls, slspath) }} {{ tpldir }} {{ tplfile }}\n";
    let want = "\nroles: ['WEB', 'DB']\nos: Debian True\nx: {'p': 'apache2'}\ny: {a: null, b: 1}\nz: / . cmp.sls\n";
    let ctx = TemplateContext {
        minion: cases::minion(functions()),
        saltenv: "base".into(),
        sls: None,
        tplpath: Some("/var/cache/salt/minion/files/base/cmp.sls".into()),
        ..Default::default()
    };
    assert_eq!(jinja::render("salt://cmp.sls", src, &ctx).unwrap(), want);
}

/// A masterless pillar whose SLS call the registry, compiled the way
/// `brine-call --local pillar.items` compiles it.
#[test]
fn pillar_templates_call_the_registry() {
    let td = tempfile::tempdir().unwrap();
    let root = td.path().join("pillar");
    std::fs::create_dir_all(root.join("stack")).unwrap();
    let write = |rel: &str, text: &str| std::fs::write(root.join(rel), text).unwrap();
    write("top.sls", "base:\n  '*':\n    - a\n    - b\n");
    write("a.sls", "a: {{ salt['grains.get']('os') }}\n");
    write(
        "b.sls",
        "b: {{ salt['pillar.get']('a', 'unset') }}-{{ salt.match.glob('m*') }}\n",
    );
    write("stack/s.yml", "s: {{ __salt__['pillar.get']('b') }}\n");
    write("stack.cfg", "stack/s.yml\n");
    let mut m = minion();
    m.pillar = Default::default();
    Arc::make_mut(&mut m.opts).insert(
        "pillar_roots".into(),
        Value::from_json(&json!({"base": [root.display().to_string()]})),
    );
    Arc::make_mut(&mut m.opts).insert(
        "ext_pillar".into(),
        Value::from_json(&json!([{"stack": root.join("stack.cfg").display().to_string()}])),
    );
    let got = run(&mut m, "pillar.items", &[]).unwrap();
    assert_eq!(
        got,
        json!({"a": "Debian", "b": "unset-True", "s": "unset-True"})
    );
    assert_eq!(
        run(&mut m, "pillar.get", &["nope"]),
        Ok(json!("")),
        "the in-memory pillar is read"
    );
    // Without the registry, templates say so.
    m.functions = Functions::default();
    let got = run(&mut m, "pillar.items", &[]).unwrap();
    let errors = got["_errors"].to_string();
    assert!(errors.contains("Rendering SLS 'a' failed"), "{errors}");
    assert!(
        errors.contains("'pillar.get' is not available."),
        "{errors}"
    );
}

/// A managed file's Jinja template calls the registry too (the state run
/// hands the minion's functions to the file state).
#[test]
fn managed_file_templates_call_the_registry() {
    let td = tempfile::tempdir().unwrap();
    let roots = td.path().join("salt");
    std::fs::create_dir_all(&roots).unwrap();
    std::fs::write(
        roots.join("motd.j2"),
        "{{ salt['pillar.get']('app:name') }} on {{ salt.grains.get('os') }}\n",
    )
    .unwrap();
    let mut m = minion();
    Arc::make_mut(&mut m.opts).insert(
        "file_roots".into(),
        Value::from_json(&json!({"base": [roots.display().to_string()]})),
    );
    Arc::make_mut(&mut m.opts).insert(
        "cachedir".into(),
        Value::Str(td.path().join("cache").display().to_string()),
    );
    let target = td.path().join("motd");
    let name = format!("name={}", target.display());
    let got = run(
        &mut m,
        "state.single",
        &[
            "file.managed",
            &name,
            "source=salt://motd.j2",
            "template=jinja",
        ],
    );
    assert!(got.is_ok(), "{got:?}");
    assert_eq!(
        std::fs::read_to_string(&target).unwrap_or_default(),
        "web on Debian\n"
    );
}

/// `config.option`: opts, grains, pillar, the master's, then Salt's
/// built-in defaults (answers recorded from salt-call 3007.8 --local).
#[test]
fn config_option_layers_as_salt() {
    let mut m = minion();
    Arc::make_mut(&mut m.opts).insert("file_client".into(), "local".into());
    Arc::make_mut(&mut m.grains).insert("os".into(), "Debian".into());
    let id = m.id.clone();
    for (line, answer) in [
        (&["mongo.port"][..], json!(27017)),
        (&["id"][..], json!(id)),
        (&["nope", "default=x"][..], json!("x")),
        (&["nope"][..], json!("")),
        (&["os"][..], json!("Debian")),
        (&["file_client", "omit_opts=True"][..], json!("")),
        (&["mongo.db", "omit_all=True"][..], json!("salt")),
    ] {
        assert_eq!(
            run(&mut m, "config.option", line).unwrap(),
            answer,
            "{line:?}"
        );
    }
}

/// The path functions templates call, with Python's answers.
#[test]
fn file_path_functions_answer_as_python() {
    let mut m = minion();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("f");
    std::fs::write(&file, "x").unwrap();
    let (d, f) = (dir.path().display().to_string(), file.display().to_string());
    assert_eq!(run(&mut m, "file.file_exists", &[&f]).unwrap(), json!(true));
    assert_eq!(
        run(&mut m, "file.file_exists", &[&d]).unwrap(),
        json!(false)
    );
    assert_eq!(
        run(&mut m, "file.directory_exists", &[&d]).unwrap(),
        json!(true)
    );
    assert_eq!(
        run(&mut m, "file.join", &["/", "usr", "local", "bin"]).unwrap(),
        json!("/usr/local/bin")
    );
    assert_eq!(run(&mut m, "file.dirname", &[&f]).unwrap(), json!(d));
    assert_eq!(run(&mut m, "file.basename", &[&f]).unwrap(), json!("f"));
    assert_eq!(run(&mut m, "cmd.has_exec", &["sh"]).unwrap(), json!(true));
    assert_eq!(
        run(&mut m, "cmd.which", &["no-such-program-x"]).unwrap(),
        json!(null)
    );
    assert_eq!(
        run(&mut m, "user.info", &["no-such-user-x"]).unwrap(),
        json!({})
    );
    assert_eq!(run(&mut m, "log.debug", &["hello"]).unwrap(), json!(true));
    assert_eq!(run(&mut m, "mine.get", &["*", "x.y"]).unwrap(), json!({}));
}

#[test]
fn saltutil_jobs_outside_the_daemon_see_no_other_job() {
    let mut m = minion();
    assert_eq!(run(&mut m, "saltutil.running", &[]).unwrap(), json!([]));
    assert_eq!(
        run(&mut m, "saltutil.find_job", &["20240102030405123456"]).unwrap(),
        json!({})
    );
    assert_eq!(
        run(&mut m, "saltutil.kill_job", &["20240102030405123456"]).unwrap(),
        json!("")
    );
    assert_eq!(
        run(
            &mut m,
            "saltutil.signal_job",
            &["20240102030405123456", "15"]
        )
        .unwrap(),
        json!("")
    );
    assert!(run(&mut m, "saltutil.find_job", &[]).is_err());
    assert!(run(&mut m, "saltutil.signal_job", &["1", "x"]).is_err());
}

/// `pkg.version` through the dpkg provider (this project's machines are
/// Debian): one name gives a string, several a mapping, '' when absent.
#[test]
fn pkg_version_answers_in_salts_shapes() {
    let mut m = minion();
    Arc::make_mut(&mut m.grains).insert("os_family".into(), "Debian".into());
    assert_eq!(
        run(&mut m, "pkg.version", &["no-such-package-x"]).unwrap(),
        json!("")
    );
    let both = run(&mut m, "pkg.version", &["no-such-package-x", "dpkg"]).unwrap();
    assert_eq!(both["no-such-package-x"], json!(""));
    assert!(
        both["dpkg"].as_str().is_some_and(|v| !v.is_empty()),
        "{both}"
    );
    assert_eq!(run(&mut m, "pkg.version", &[]).unwrap(), json!({}));
}

/// The cmd.run family against salt-call 3007.8's answers for the same
/// commands: no shell unless python_shell=True (a published job too, as a
/// real Salt pair answers), stderr folded into cmd.run's output, Salt's
/// timeout message, success_retcodes and ignore_retcode.
#[test]
fn cmd_run_family_answers_as_salt_call() {
    let mut m = minion();
    let mut run_rc = |fun: &str, line: &[&str]| {
        let tokens: Vec<String> = line.iter().map(|s| s.to_string()).collect();
        call(&mut m, fun, parse_input(&tokens))
            .map(|r| (r.value.to_json(), r.retcode))
            .map_err(|e| e.to_string())
    };
    assert_eq!(
        run_rc("cmd.run", &["echo hi | tr a-z A-Z"]).unwrap(),
        (json!("hi | tr a-z A-Z"), 0)
    );
    assert_eq!(
        run_rc("cmd.run", &["echo hi | tr a-z A-Z", "__pub_jid=1"]).unwrap(),
        (json!("hi | tr a-z A-Z"), 0)
    );
    assert_eq!(
        run_rc(
            "cmd.run",
            &["echo o; echo e >&2; exit 3", "python_shell=True"]
        )
        .unwrap(),
        (json!("o\ne"), 3)
    );
    let all = run_rc(
        "cmd.run_all",
        &["echo o; echo e >&2; exit 3", "python_shell=True"],
    )
    .unwrap();
    assert_eq!(
        (
            all.0["retcode"].clone(),
            all.0["stdout"].clone(),
            all.0["stderr"].clone(),
            all.1
        ),
        (json!(3), json!("o"), json!("e"), 3)
    );
    assert_eq!(
        run_rc(
            "cmd.run",
            &["exit 3", "python_shell=True", "ignore_retcode=True"]
        )
        .unwrap(),
        (json!(""), 0)
    );
    assert_eq!(
        run_rc(
            "cmd.retcode",
            &["exit 3", "python_shell=True", "success_retcodes=[3]"]
        )
        .unwrap(),
        (json!(0), 0)
    );
    assert_eq!(
        run_rc("cmd.run", &["pwd", "cwd=/tmp"]).unwrap(),
        (json!("/tmp"), 0)
    );
    assert_eq!(
        run_rc("cmd.run", &["cat", "stdin=hello"]).unwrap(),
        (json!("hello"), 0)
    );
    assert_eq!(
        run_rc(
            "cmd.run",
            &["echo $FOO", "python_shell=True", "env={FOO: bar}"]
        )
        .unwrap(),
        (json!("bar"), 0)
    );
    assert_eq!(
        run_rc("cmd.run", &["sleep 5", "timeout=1"]).unwrap(),
        (json!("['sleep', '5'] : Timed out after 1 seconds"), 0)
    );
    assert_eq!(
        run_rc("cmd.run", &["echo hi", "cwd=relative"]).unwrap_err(),
        "Specified cwd 'relative' either not absolute or does not exist"
    );
    assert!(run_rc("cmd.run", &["no-such-program-x"])
        .unwrap_err()
        .ends_with("reason: [Errno 2] No such file or directory: 'no-such-program-x'"));
}
