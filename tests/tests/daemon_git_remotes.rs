//! gitfs remotes that are not local folders, and remotes that fail: a
//! repository served over http:// by a static web server this test runs
//! on 127.0.0.1 (git's dumb protocol); a remote that disappears after a
//! good update (its last trees stay served, one log line says why); and a
//! remote that accepts a connection and never answers, cut off after
//! `git_fetch_timeout` while the other remotes are served.

use brine_tests::daemon::{json_docs, MasterConf};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

fn sh(script: &str) {
    let ok = Command::new("sh")
        .args(["-c", script])
        .env("GIT_AUTHOR_NAME", "brine test")
        .env("GIT_AUTHOR_EMAIL", "test@example.invalid")
        .env("GIT_COMMITTER_NAME", "brine test")
        .env("GIT_COMMITTER_EMAIL", "test@example.invalid")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .status()
        .expect("sh")
        .success();
    assert!(ok, "{script}");
}

/// A repository at `dir` with `file` holding `text` on branch master.
fn repo(dir: &Path, file: &str, text: &str) {
    sh(&format!(
        "set -e; mkdir -p {d}; cd {d}; git init -q -b master .; printf '{text}' > {file}; \
         git add -A; git commit -q -m one",
        d = dir.display()
    ));
}

/// Serve the files under `root` over HTTP/1.0 on 127.0.0.1 (GET only),
/// for at most `life`; the port.
fn static_server(root: PathBuf, life: Duration) -> u16 {
    let l = TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = l.local_addr().expect("addr").port();
    l.set_nonblocking(true).expect("nonblocking");
    std::thread::spawn(move || {
        let end = Instant::now() + life;
        while Instant::now() < end {
            let Ok((mut s, _)) = l.accept() else {
                std::thread::sleep(Duration::from_millis(10));
                continue;
            };
            let _ = s.set_nonblocking(false);
            let _ = s.set_read_timeout(Some(Duration::from_secs(5)));
            let mut line = String::new();
            let mut r = BufReader::new(s.try_clone().expect("clone"));
            if r.read_line(&mut line).is_err() {
                continue;
            }
            loop {
                let mut h = String::new();
                if r.read_line(&mut h).map_or(true, |n| n == 0) || h == "\r\n" {
                    break;
                }
            }
            let path = line.split_whitespace().nth(1).unwrap_or("/").to_string();
            let rel = path.split('?').next().unwrap_or("").trim_start_matches('/');
            let file = root.join(rel);
            let body = (!rel.contains(".."))
                .then(|| std::fs::read(&file).ok())
                .flatten();
            let _ = match body {
                Some(b) => s
                    .write_all(
                        format!("HTTP/1.0 200 OK\r\nContent-Length: {}\r\n\r\n", b.len())
                            .as_bytes(),
                    )
                    .and_then(|()| s.write_all(&b)),
                None => s.write_all(b"HTTP/1.0 404 Not Found\r\nContent-Length: 0\r\n\r\n"),
            };
        }
    });
    port
}

/// A listener that accepts and never answers, for `life`; the port.
fn silent_server(life: Duration) -> u16 {
    let l = TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = l.local_addr().expect("addr").port();
    l.set_nonblocking(true).expect("nonblocking");
    std::thread::spawn(move || {
        let end = Instant::now() + life;
        let mut held = Vec::new();
        while Instant::now() < end {
            match l.accept() {
                Ok((s, _)) => held.push(s),
                Err(_) => std::thread::sleep(Duration::from_millis(10)),
            }
            for s in &mut held {
                let mut b = [0u8; 512];
                let _ = s.set_nonblocking(true);
                let _ = s.read(&mut b);
            }
        }
    });
    port
}

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
    sh(&format!(
        "set -e; git clone -q --bare {0}/src-http {0}/www/repo.git; cd {0}/www/repo.git; git update-server-info",
        w.display()
    ));
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
    let _ = PathBuf::new();
}
