//! Bad pillar input: each problem is reported (in `_errors` the way Salt
//! words it, and in the log with file and line), nothing panics, and every
//! other key still compiles.

use brine_tests::bin;
use std::path::Path;
use std::process::Command;

fn write(root: &Path, rel: &str, text: &str) {
    let p = root.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}

fn tree(safe: bool) -> tempfile::TempDir {
    let t = tempfile::tempdir().unwrap();
    let r = t.path();
    write(
        r,
        "p/top.sls",
        "base:\n  '*':\n    - good\n    - badyaml\n    - badjinja\n    - inc\n    - notadict\n",
    );
    write(r, "p/good.sls", "good: 1\n");
    write(r, "p/badyaml.sls", "a: [1, 2\nb: 3\n");
    write(r, "p/badjinja.sls", "x: {{ foo( }}\n");
    write(r, "p/inc.sls", "include:\n  - missing\ninc: 1\n");
    write(r, "p/notadict.sls", "- just\n- a list\n");
    write(
        r,
        "etc/minion",
        &format!(
            "id: web1\nfile_client: local\nroot_dir: {0}/root\nlog_level: warning\n\
             pillar_roots: {{base: [{0}/p, {0}/does-not-exist]}}\n\
             file_roots: {{base: [{0}/s]}}\npillar_safe_render_error: {1}\n",
            r.display(),
            if safe { "True" } else { "False" }
        ),
    );
    t
}

fn items(t: &Path) -> (serde_json::Value, String, i32) {
    let out = Command::new(bin("brine-call"))
        .args([
            "-c",
            &t.join("etc").display().to_string(),
            "--local",
            "--out",
            "json",
            "pillar.items",
        ])
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("no JSON ({e}): {}", String::from_utf8_lossy(&out.stderr)));
    (
        v["local"].clone(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
        out.status.code().unwrap_or(-1),
    )
}

#[test]
fn safe_errors_hide_detail_but_the_log_names_file_and_line() {
    let t = tree(true);
    let (p, log, code) = items(t.path());
    assert_eq!(code, 0);
    assert_eq!(p["good"], 1);
    assert_eq!(p["inc"], 1);
    assert_eq!(
        p["_errors"],
        serde_json::json!([
            "Rendering SLS 'badyaml' failed. Please see master log for details.",
            "Rendering SLS 'badjinja' failed. Please see master log for details.",
            "Specified SLS 'missing' in environment 'base' is not available on the salt master",
            "SLS 'notadict' does not render to a dictionary",
        ])
    );
    assert!(
        log.contains("badyaml.sls") && log.contains("line 2"),
        "log: {log}"
    );
    assert!(
        log.contains("badjinja.sls") && log.contains("line 1"),
        "log: {log}"
    );
    assert!(log.contains("inc.sls: include of 'missing'"), "log: {log}");
    assert!(
        log.contains("pillar_roots: environment 'base'") && log.contains("does-not-exist"),
        "log: {log}"
    );
}

#[test]
fn unsafe_errors_carry_file_and_line() {
    let t = tree(false);
    let (p, _, _) = items(t.path());
    let errors: Vec<String> = p["_errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e.as_str().unwrap().to_string())
        .collect();
    assert!(errors[0].starts_with("Rendering SLS 'badyaml' failed, render error:\n"));
    assert!(errors[0].contains("badyaml.sls") && errors[0].contains("line 2"));
    assert!(errors[1].contains("badjinja.sls") && errors[1].contains("line 1"));
    assert_eq!(p["good"], 1);
}

#[test]
fn malformed_config_is_a_clear_error() {
    let t = tempfile::tempdir().unwrap();
    write(
        t.path(),
        "etc/minion",
        "id: x\npillar_roots: {base: /not/a/list}\n",
    );
    let out = Command::new(bin("brine-call"))
        .args([
            "-c",
            &t.path().join("etc").display().to_string(),
            "--local",
            "pillar.items",
        ])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_ne!(out.status.code(), Some(0));
    assert!(
        err.contains("pillar_roots") && err.contains("minion"),
        "stderr: {err}"
    );
    write(t.path(), "etc/minion", "id: [unclosed\n");
    let out = Command::new(bin("brine-call"))
        .args([
            "-c",
            &t.path().join("etc").display().to_string(),
            "--local",
            "pillar.items",
        ])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("minion") && err.contains("line"),
        "stderr: {err}"
    );
}

/// A state run over a pillar that failed to render: salt-call exits 1, or
/// Salt's EX_PILLAR_FAILURE (5) with --retcode-passthrough (recorded with
/// salt-call 3007.8).
#[test]
fn a_failed_pillar_exits_as_salt_call_does() {
    let t = tree(true);
    write(t.path(), "s/top.sls", "base:\n  '*':\n    - a\n");
    write(t.path(), "s/a.sls", "x:\n  test.nop\n");
    let run = |extra: &[&str]| {
        let conf = t.path().join("etc").display().to_string();
        let mut args = vec!["-c", conf.as_str(), "--local", "--out", "json"];
        args.extend_from_slice(extra);
        args.push("state.apply");
        let out = Command::new(bin("brine-call"))
            .args(&args)
            .output()
            .unwrap();
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(
            v["local"][0],
            "Pillar failed to render with the following messages:"
        );
        out.status.code()
    };
    assert_eq!(run(&[]), Some(1));
    assert_eq!(run(&["--retcode-passthrough"]), Some(5));
}
