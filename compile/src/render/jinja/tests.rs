//! Behaviour checked against Salt 3007.8's jinja renderer (see
//! [`super::cases`]). Cases that call `salt[...]` run in brine-runtime's
//! tests, where the execution functions are.

use super::environment::converted;
use super::*;
use crate::MinionData;
use brine_core::Value;
use std::sync::Arc;

fn minion() -> Arc<MinionData> {
    cases::minion(Default::default())
}

fn ctx_for(sls: &str) -> TemplateContext {
    TemplateContext {
        minion: minion(),
        saltenv: "base".into(),
        sls: Some(sls.into()),
        ..Default::default()
    }
}

#[test]
fn same_output_as_salt() {
    cases::assert_as_salt(cases::run(&Default::default(), |c| !c.calls_salt()), 100);
    // Rendered twice through a kept compiled template (the master's way).
    cases::assert_as_salt(
        cases::run_kept(&Default::default(), |c| !c.calls_salt()),
        100,
    );
}

#[test]
fn a_kept_template_follows_its_text_and_its_imports() {
    let td = tempfile::tempdir().unwrap();
    std::fs::write(td.path().join("map.jinja"), "{% set who = 'ann' %}").unwrap();
    let mut ctx = ctx_for("a");
    ctx.search_paths = vec![td.path().to_path_buf()];
    let src = "{% from 'map.jinja' import who %}{{ who }}-{{ grains['id'] }}";
    let env = |source: &str, ctx: &TemplateContext| {
        let vars = SlsVars::new(ctx);
        kept::environment("a.sls", source, ctx, &vars, Settings::of(ctx, &vars)).unwrap()
    };
    assert_eq!(render_with("a.sls", src, &ctx, true).unwrap(), "ann-m1");
    // Another minion: the same compiled template, its own answer.
    let mut other = (*ctx.minion).clone();
    other.grains = Value::from_json(&serde_json::json!({"id": "db1"}));
    let mut ctx2 = ctx.clone();
    ctx2.minion = Arc::new(other);
    assert!(Arc::ptr_eq(&env(src, &ctx), &env(src, &ctx2)));
    assert_eq!(render_with("a.sls", src, &ctx2, true).unwrap(), "ann-db1");
    // The import rewritten at once, same length: read again.
    std::fs::write(td.path().join("map.jinja"), "{% set who = 'bob' %}").unwrap();
    assert_eq!(render_with("a.sls", src, &ctx, true).unwrap(), "bob-m1");
    // The template's own text changed: compiled again.
    let src2 = "{% from 'map.jinja' import who %}{{ who }}+{{ grains['id'] }}";
    assert!(!Arc::ptr_eq(&env(src, &ctx), &env(src2, &ctx)));
    assert_eq!(render_with("a.sls", src2, &ctx, true).unwrap(), "bob+m1");
    // Errors read as without keeping.
    let bad = "a\n{{ nope }}\n";
    let kept = render_with("a.sls", bad, &ctx, true).unwrap_err();
    let plain = render_with("a.sls", bad, &ctx, false).unwrap_err();
    assert_eq!((kept.line, kept.message), (plain.line, plain.message));
    let bad = "{% if %}";
    let kept = render_with("a.sls", bad, &ctx, true).unwrap_err();
    let plain = render_with("a.sls", bad, &ctx, false).unwrap_err();
    assert_eq!((kept.line, kept.message), (plain.line, plain.message));
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
    // The template being rendered is named by the caller ("Rendering SLS
    // 'a' failed: ..."), as Salt's message does; the error gives the line.
    let err = render("pillar/a.sls", "a\n{{ nope }}\n", &ctx_for("a")).unwrap_err();
    assert_eq!(err.line, Some(2));
    assert_eq!(err.message, "Jinja variable 'nope' is undefined");
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

/// Jinja2's `do` takes any expression, not only a call (the nginx
/// formula's `{%- do _nginx.pop('snippets') if nginx.snippets is defined %}`);
/// the answer is Jinja2's.
#[test]
fn do_takes_any_expression() {
    let ctx = ctx_for("a");
    let src = "{% set d = {'a': 1, 'b': 2} %}{% do d.pop('a') if 'a' in d %}{% do d.pop('z') if 'z' in d %}{%- do d.update({'c': 3})\n-%}\n{{ d }}|{% for i in [1] %}{% do d.update({'i': i}) %}{% endfor %}{{ d }}";
    assert_eq!(
        render("t", src, &ctx).unwrap(),
        "{'b': 2, 'c': 3}|{'b': 2, 'c': 3, 'i': 1}"
    );
}

/// Jinja2's `callable` test (the postgres formula's pillar asks it of
/// `salt['status.time']|default(none)`); the answers are Jinja2's.
#[test]
fn callable_test_answers_as_jinja2() {
    let ctx = ctx_for("a");
    let src = "{% macro m() %}{% endmacro %}{{ m is callable }}|{{ range is callable }}|{{ 'x' is callable }}|{{ {} is callable }}|{{ none is callable }}|{{ nope is callable }}";
    assert_eq!(
        render("t", src, &ctx).unwrap(),
        "True|True|False|False|False|True"
    );
}

/// `do` on a temporary (`[].append(x)`, `(l + [2]).append(3)`) and a list
/// built by `+` then changed in place; the answer is Jinja2's.
#[test]
fn temporaries_and_built_lists_change_as_in_jinja2() {
    let ctx = ctx_for("a");
    let src = "{% set l = [1] %}{% set m = l + [2] %}{% do m.append(3) %}{% do [].append(1) %}{% do {}.update({'a': 1}) %}{% do (l + [5]).append(6) %}{{ m }}|{{ l }}";
    assert_eq!(render("t", src, &ctx).unwrap(), "[1, 2, 3]|[1]");
}

#[test]
fn a_render_past_its_budget_fails_naming_the_file() {
    let mut opts = brine_core::Map::default();
    opts.insert("render_max_instructions".into(), Value::Int(100_000));
    let ctx = TemplateContext {
        minion: std::sync::Arc::new(crate::MinionData {
            opts: Value::Map(opts.clone()),
            ..Default::default()
        }),
        ..Default::default()
    };
    // Nested loops that write nothing: only the instruction budget stops them.
    let endless =
        "{% for a in range(100000) %}{% for b in range(100000) %}{% endfor %}{% endfor %}";
    let err = render("endless.sls", endless, &ctx).unwrap_err();
    assert!(
        err.message.contains("endless.sls") && err.message.contains("render_max_instructions"),
        "{}",
        err.message
    );
    opts.insert("render_max_instructions".into(), Value::Int(0));
    opts.insert("render_max_bytes".into(), Value::Int(1000));
    let ctx = TemplateContext {
        minion: std::sync::Arc::new(crate::MinionData {
            opts: Value::Map(opts),
            ..Default::default()
        }),
        ..Default::default()
    };
    let big = "{% for a in range(100) %}{{ 'x' * 100 }}{% endfor %}";
    let err = render("big.sls", big, &ctx).unwrap_err();
    assert!(
        err.message.contains("big.sls") && err.message.contains("render_max_bytes (1000 bytes)"),
        "{}",
        err.message
    );
    // Within the budget, as before.
    assert_eq!(
        render("ok.sls", "{{ 'x' * 10 }}\n", &ctx).unwrap(),
        "xxxxxxxxxx\n"
    );
}
