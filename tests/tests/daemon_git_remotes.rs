//! gitfs remotes that are not local folders, and remotes that fail: a
//! repository served over http:// by a static web server this test runs
//! on 127.0.0.1 (git's dumb protocol); a remote that disappears after a
//! good update (its last trees stay served, one log line says why); and a
//! remote that accepts a connection and never answers, cut off after
//! `git_fetch_timeout` while the other remotes are served.

use brine_tests::daemon::{json_docs, MasterConf};
use brine_tests::gitserve::{bare_copy, repo, sh, silent_server, static_server};
use std::time::{Duration, Instant};

fn file_str(conf: &MasterConf, path: &str) -> serde_json::Value {
    let out = conf.cli(
        "brine",
        &["--out", "json", "-t", "20", "web1", "cp.get_file_str", path],
    );
    json_docs(&out.stdout)
        .ok()
        .and_then(|j| j.get("web1").cloned())
        .unwrap_or_default()
}

fn minion(conf: &MasterConf) -> brine_tests::daemon::MasterProc {
    let dir = conf.dir.path().join("etc-web1");
    std::fs::create_dir_all(&dir).expect("minion dir");
    std::fs::write(
        dir.join("minion"),
        format!(
            "id: web1\nmaster: 127.0.0.1\nmaster_port: {}\npublish_port: {}\nroot_dir: {}\n\
             acceptance_wait_time: 1\nlog_level: info\n",
            conf.ret_port,
            conf.publish_port,
            conf.dir.path().join("nroot").display()
        ),
    )
    .expect("minion config");
    brine_tests::daemon::MasterProc::of(brine_tests::daemon::spawn_logged(
        "brine-minion",
        &dir,
        &conf.dir.path().join("minion.log"),
    ))
}

#[test]
fn remotes_over_http_that_fail_or_hang_as_salt_operators_expect() {
    let work = tempfile::tempdir().expect("tempdir");
    let w = work.path();
    // An http remote: a bare copy with the dumb protocol's index.
    repo(&w.join("src-http"), "http.txt", "over http\\n");
    bare_copy(&w.join("src-http"), &w.join("www/repo.git"));
    let http = static_server(w.join("www"), Duration::from_secs(120));
    // A remote that goes away after its first update.
    repo(&w.join("gone"), "gone.txt", "was here\\n");
    let silent = silent_server(Duration::from_secs(120));
    let conf = MasterConf::new(&format!(
        "fileserver_backend: [gitfs]\ngit_fetch_timeout: 3\ngitfs_update_interval: 3600\n\
         gitfs_remotes:\n  - http://127.0.0.1:{http}/repo.git\n  - file://{}/gone\n",
        w.display()
    ));
    let _master = conf.start();
    let _minion = minion(&conf);
    conf.accept_and_ping("web1");
    let update = conf.cli("brine-run", &["--out", "json", "fileserver.update"]);
    assert_eq!(
        json_docs(&update.stdout).ok(),
        Some(serde_json::json!(true)),
        "{update:?}"
    );
    assert_eq!(
        file_str(&conf, "salt://http.txt"),
        serde_json::json!("over http\n")
    );
    assert_eq!(
        file_str(&conf, "salt://gone.txt"),
        serde_json::json!("was here\n")
    );

    // The remote disappears: its last trees stay, one line says why.
    std::fs::rename(w.join("gone"), w.join("moved")).expect("move the repository away");
    let update = conf.cli("brine-run", &["--out", "json", "fileserver.update"]);
    let said = String::from_utf8_lossy(&update.stderr).to_string();
    assert_eq!(
        json_docs(&update.stdout).ok(),
        Some(serde_json::json!(true)),
        "{said}"
    );
    let lines: Vec<&str> = said
        .lines()
        .filter(|l| l.contains("gitfs remote") && l.contains("/gone"))
        .collect();
    assert_eq!(lines.len(), 1, "one line about the failed remote:\n{said}");
    assert!(
        lines[0].contains("serving what its last update fetched"),
        "{said}"
    );
    assert_eq!(
        file_str(&conf, "salt://gone.txt"),
        serde_json::json!("was here\n")
    );

    // A remote that hangs is cut off at git_fetch_timeout; the others serve.
    let text = std::fs::read_to_string(conf.conf_dir().join("master")).expect("master config");
    std::fs::write(
        conf.conf_dir().join("master"),
        format!("{text}  - http://127.0.0.1:{silent}/hangs.git\n"),
    )
    .expect("master config");
    let at = Instant::now();
    let update = conf.cli("brine-run", &["--out", "json", "fileserver.update"]);
    let took = at.elapsed();
    let said = String::from_utf8_lossy(&update.stderr).to_string();
    assert!(
        took < Duration::from_secs(30),
        "the update took {took:?}\n{said}"
    );
    assert!(
        said.lines()
            .any(|l| l.contains("hangs.git") && l.contains("did not finish within 3s")),
        "{said}"
    );
    assert_eq!(
        file_str(&conf, "salt://http.txt"),
        serde_json::json!("over http\n")
    );
}

/// A commit fetched by `fileserver.update` is what the next compile
/// serves: the master's replayed state compile gives way (the gitfs
/// manifest is one of its inputs).
#[test]
fn a_fetched_commit_is_seen_by_the_next_compile() {
    let work = tempfile::tempdir().expect("tempdir");
    let w = work.path();
    let src = w.join("states");
    std::fs::create_dir_all(&src).expect("mkdir");
    std::fs::write(
        src.join("hello.sls"),
        "greet:\n  test.succeed_without_changes:\n    - name: one\n",
    )
    .expect("sls");
    sh(&format!(
        "set -e; cd {}; git init -q -b master .; git add -A; git commit -q -m one",
        src.display()
    ));
    let conf = MasterConf::new(&format!(
        "fileserver_backend: [gitfs]\ngitfs_update_interval: 3600\ngitfs_remotes:\n  - file://{}\n",
        src.display()
    ));
    let _master = conf.start();
    let _minion = minion(&conf);
    conf.accept_and_ping("web1");
    let _ = conf.cli("brine-run", &["fileserver.update"]);
    let name = || {
        let out = conf.cli(
            "brine",
            &[
                "--out",
                "json",
                "-t",
                "20",
                "web1",
                "state.show_sls",
                "hello",
            ],
        );
        json_docs(&out.stdout)
            .ok()
            .map(|j| j["web1"]["greet"]["test"][0]["name"].clone())
    };
    for _ in 0..3 {
        assert_eq!(name(), Some(serde_json::json!("one")));
    }
    // Past the settling margin of the files the compile read.
    std::thread::sleep(Duration::from_millis(2100));
    std::fs::write(
        src.join("hello.sls"),
        "greet:\n  test.succeed_without_changes:\n    - name: two\n",
    )
    .expect("sls");
    sh(&format!(
        "set -e; cd {}; git commit -q -a -m two",
        src.display()
    ));
    let _ = conf.cli("brine-run", &["fileserver.update"]);
    assert_eq!(name(), Some(serde_json::json!("two")));
}
