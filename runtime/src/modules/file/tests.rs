//! Real effects the recorded cases cannot pin (times, time-stamped names)
//! and templates calling the readers, on scratch trees.

use super::*;
use crate::modules::function::params_of;
use brine_compile::render::jinja::{self, cases, TemplateContext};
use brine_core::args::parse_input;

fn params(fun: &'static str, line: &[&str]) -> Params {
    let tokens: Vec<String> = line.iter().map(|s| s.to_string()).collect();
    params_of(FUNCTIONS, fun, parse_input(&tokens))
}

fn scratch() -> (tempfile::TempDir, String) {
    let dir = tempfile::tempdir().expect("a scratch dir");
    let path = std::fs::canonicalize(dir.path())
        .expect("it exists")
        .display()
        .to_string();
    (dir, path)
}

#[test]
fn touch_without_times_sets_now() {
    let (_d, dir) = scratch();
    let f = format!("{dir}/stamp");
    assert_eq!(
        io::touch(params("touch", &[&f])).unwrap(),
        Value::Bool(true)
    );
    let before = std::time::SystemTime::now() - std::time::Duration::from_secs(60);
    let md = std::fs::metadata(&f).unwrap();
    assert!(md.modified().unwrap() > before);
    // Only mtime given: atime is now, mtime as asked.
    io::touch(params("touch", &[&f, "mtime=1000"])).unwrap();
    let md = std::fs::metadata(&f).unwrap();
    assert!(md.accessed().unwrap() > before);
    use std::os::unix::fs::MetadataExt;
    assert_eq!(md.mtime(), 1000);
    assert_eq!(
        io::touch(params("touch", &[&f, "atime=soon"]))
            .unwrap_err()
            .to_string(),
        "atime and mtime must be integers"
    );
}

#[test]
fn line_backup_is_time_stamped() {
    let (_d, dir) = scratch();
    let f = format!("{dir}/conf");
    std::fs::write(&f, "a\nb\n").unwrap();
    let m = cases::minion(crate::modules::functions());
    let ctx = Ctx::of_template(&m, crate::modules::MODULES);
    let got = text::line(
        &ctx,
        params(
            "line",
            &[&f, "content=c", "after=^a", "mode=ensure", "backup=True"],
        ),
    )
    .unwrap();
    assert!(got.as_str().is_some_and(|d| d.contains("+c\n")), "{got:?}");
    assert_eq!(std::fs::read_to_string(&f).unwrap(), "a\nc\nb\n");
    let backups: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("conf."))
        .collect();
    assert_eq!(backups.len(), 1, "{backups:?}");
    // conf.YYYY-mm-dd-HH-MM-SS
    assert_eq!(backups[0].len(), "conf.".len() + 19, "{backups:?}");
    assert_eq!(
        std::fs::read_to_string(format!("{dir}/{}", backups[0])).unwrap(),
        "a\nb\n"
    );
}

#[test]
fn atomic_symlink_leaves_no_temporary_link() {
    let (_d, dir) = scratch();
    let link = format!("{dir}/current");
    for target in ["/v1", "/v2"] {
        let got = meta::symlink(params("symlink", &[target, &link, "atomic=True"])).unwrap();
        assert_eq!(got, Value::Bool(true));
        assert_eq!(
            std::fs::read_link(&link).unwrap().display().to_string(),
            target
        );
    }
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1);
}

#[test]
fn find_delete_removes_only_what_matches() {
    let (_d, dir) = scratch();
    std::fs::create_dir(format!("{dir}/keep")).unwrap();
    std::fs::write(format!("{dir}/keep/x.log"), "x").unwrap();
    std::fs::write(format!("{dir}/x.txt"), "x").unwrap();
    let got = find::find(params("find", &[&dir, "name=*.log", "delete"])).unwrap();
    assert_eq!(
        got,
        Value::List(vec![Value::Str(format!("{dir}/keep/x.log"))])
    );
    assert!(std::path::Path::new(&format!("{dir}/x.txt")).exists());
    assert!(std::path::Path::new(&format!("{dir}/keep")).is_dir());
}

#[test]
fn templates_call_the_readers() {
    let (_d, dir) = scratch();
    let f = format!("{dir}/motd");
    std::fs::write(&f, "Welcome to brine\n").unwrap();
    let ctx = TemplateContext {
        minion: cases::minion(crate::modules::functions()),
        saltenv: "base".into(),
        sls: Some("t".into()),
        ..Default::default()
    };
    let src = format!(
        "{{{{ salt['file.read']('{f}') | trim }}}}|{{{{ salt['file.contains']('{f}', 'brine') }}}}|\
{{{{ salt['file.search']('{f}', '^Welcome') }}}}|{{{{ salt['file.get_mode']('{f}') }}}}"
    );
    let out = jinja::render("t.sls", &src, &ctx)
        .map_err(|e| e.message)
        .unwrap();
    let mode = std::fs::metadata(&f).map(|m| {
        use std::os::unix::fs::PermissionsExt;
        format!("{:04o}", m.permissions().mode() & 0o7777)
    });
    assert_eq!(out, format!("Welcome to brine|True|True|{}", mode.unwrap()));
}

#[test]
fn ids_without_names_are_numbers() {
    // Only root may give a file away.
    if !nix::unistd::geteuid().is_root() {
        return;
    }
    let (_d, dir) = scratch();
    let f = format!("{dir}/given");
    std::fs::write(&f, "x").unwrap();
    assert_eq!(
        meta::chown(params("chown", &[&f, "54321", "54322"])).unwrap(),
        Value::Null
    );
    let got = meta::stats(params("stats", &[&f])).unwrap();
    assert_eq!(got.get("user"), Some(&Value::Int(54321)));
    assert_eq!(got.get("group"), Some(&Value::Int(54322)));
    assert_eq!(
        meta::stat_field(params("get_user", &[&f]), "user").unwrap(),
        Value::Int(54321)
    );
}

#[test]
fn statvfs_reports_the_file_system() {
    let (_d, dir) = scratch();
    let got = meta::statvfs(params("statvfs", &[&dir])).unwrap();
    for key in [
        "f_bavail", "f_bfree", "f_blocks", "f_files", "f_flag", "f_frsize",
    ] {
        assert!(
            got.get(key).and_then(Value::as_i64).is_some(),
            "{key}: {got:?}"
        );
    }
    assert!(got.get("f_bsize").and_then(Value::as_i64).unwrap_or(0) > 0);
    assert!(got.get("f_namemax").and_then(Value::as_i64).unwrap_or(0) >= 255);
    assert_eq!(
        meta::statvfs(params("statvfs", &["relative"]))
            .unwrap_err()
            .to_string(),
        "File path must be absolute."
    );
}
