//! gitfs and git_pillar remotes that authenticate, fetched by a real
//! master from real servers on 127.0.0.1: an https remote whose
//! certificate (self-signed, made by openssl at test time) is refused
//! until the remote says `ssl_verify: False`, and ssh remotes served by a
//! private sshd that lets in one key: the remote's `privkey` (or
//! `git_pillar_privkey`) gets in, another key is refused with one log line
//! while the other remotes are served.

use brine_tests::daemon::{json_docs, MasterConf};
use brine_tests::gitserve::{bare_copy, repo, tls_server, Sshd};
use brine_tests::http::self_signed;
use std::time::Duration;

fn ask(conf: &MasterConf, args: &[&str]) -> serde_json::Value {
    let mut all = vec!["--out", "json", "-t", "20", "web1"];
    all.extend_from_slice(args);
    let out = conf.cli("brine", &all);
    json_docs(&out.stdout)
        .ok()
        .and_then(|j| j.get("web1").cloned())
        .unwrap_or_default()
}

/// `brine-run`'s stderr for one runner call.
fn run(conf: &MasterConf, fun: &str) -> String {
    let out = conf.cli("brine-run", &["--out", "json", fun]);
    String::from_utf8_lossy(&out.stderr).to_string()
}

/// A bare pillar repository at `dest` whose top gives every minion the
/// SLS `sls`, which sets `key: True`.
fn pillar_repo(w: &std::path::Path, sls: &str, key: &str, dest: &std::path::Path) {
    let src = w.join(format!("pillar-{sls}"));
    repo(
        &src,
        "top.sls",
        &format!("base:\\n  \\047*\\047:\\n    - {sls}\\n"),
    );
    std::fs::write(src.join(format!("{sls}.sls")), format!("{key}: yes\n")).expect("pillar sls");
    brine_tests::gitserve::sh(&format!(
        "set -e; cd {}; git add -A; git commit -q -m pillar",
        src.display()
    ));
    bare_copy(&src, dest);
}

fn start(conf: &MasterConf) -> Vec<brine_tests::daemon::MasterProc> {
    let master = conf.start();
    conf.write_minion_conf("web1", "");
    let minion = conf.start_minion(&[]);
    conf.accept_and_ping("web1");
    vec![minion, master]
}

#[test]
fn https_remotes_check_the_certificate_unless_ssl_verify_is_off() {
    let work = tempfile::tempdir().expect("tempdir");
    let w = work.path();
    repo(&w.join("src"), "https.txt", "over https\\n");
    bare_copy(&w.join("src"), &w.join("www/repo.git"));
    pillar_repo(w, "tls", "from_https", &w.join("www/pillar.git"));
    let (crt, key) = self_signed(w);
    let port = tls_server(w.join("www"), &crt, &key, Duration::from_secs(180));
    let url = format!("https://127.0.0.1:{port}/repo.git");
    let pillar = format!("https://127.0.0.1:{port}/pillar.git");

    // Checked by default: a self-signed certificate is refused, nothing
    // is served from the remote, one line says why.
    let conf = MasterConf::new(&format!(
        "fileserver_backend: [gitfs]\ngit_fetch_timeout: 20\ngitfs_update_interval: 3600\n\
         gitfs_remotes:\n  - {url}\n\
         ext_pillar:\n  - git:\n    - master {pillar}\n"
    ));
    let _procs = start(&conf);
    let said = run(&conf, "fileserver.update");
    let lines: Vec<&str> = said
        .lines()
        .filter(|l| l.contains("gitfs remote") && l.contains(&url))
        .collect();
    assert_eq!(lines.len(), 1, "one line about the refused remote:\n{said}");
    assert!(lines[0].contains("certificate"), "{said}");
    assert_eq!(
        ask(&conf, &["cp.get_file_str", "salt://https.txt"]),
        serde_json::json!(false)
    );
    assert_eq!(
        ask(&conf, &["pillar.item", "from_https"]),
        serde_json::json!({"from_https": ""})
    );
    // `ssl_verify: False` per gitfs remote, `git_pillar_ssl_verify: False`
    // for git_pillar: fetched and served.
    let master = conf.conf_dir().join("master");
    let text = std::fs::read_to_string(&master).expect("master config");
    std::fs::write(
        &master,
        text.replace(
            &format!("  - {url}\n"),
            &format!("  - {url}:\n    - ssl_verify: False\n"),
        ) + "git_pillar_ssl_verify: False\n",
    )
    .expect("master config");
    let said = run(&conf, "fileserver.update");
    assert!(!said.contains(&url), "{said}");
    assert_eq!(
        ask(&conf, &["cp.get_file_str", "salt://https.txt"]),
        serde_json::json!("over https\n")
    );
    let said = run(&conf, "git_pillar.update");
    assert!(!said.contains("pillar.git"), "{said}");
    // pillar.item reads the minion's pillar in memory, as Salt's does.
    ask(&conf, &["saltutil.refresh_pillar", "wait=True"]);
    assert_eq!(
        ask(&conf, &["pillar.item", "from_https"]),
        serde_json::json!({"from_https": true}),
        "{said}\n{}",
        conf.log()
    );
}

#[test]
fn ssh_remotes_authenticate_with_the_remotes_privkey() {
    let work = tempfile::tempdir().expect("tempdir");
    let w = work.path();
    let sshd = Sshd::start(&w.join("sshd"));
    repo(&w.join("src"), "ssh.txt", "over ssh\\n");
    bare_copy(&w.join("src"), &w.join("states.git"));
    repo(&w.join("src2"), "other.txt", "never served\\n");
    bare_copy(&w.join("src2"), &w.join("other.git"));
    pillar_repo(w, "ssh", "from_ssh", &w.join("pillar.git"));
    let at = |repo: &str| format!("ssh://root@127.0.0.1:{}{}/{repo}", sshd.port, w.display());
    let stranger = w.join("sshd/stranger");
    let conf = MasterConf::new(&format!(
        "fileserver_backend: [gitfs]\ngit_fetch_timeout: 20\ngitfs_update_interval: 3600\n\
         gitfs_remotes:\n  - {}:\n    - privkey: {}\n  - {}:\n    - privkey: {}\n\
         git_pillar_privkey: {}\next_pillar:\n  - git:\n    - master {}\n",
        at("states.git"),
        sshd.client_key.display(),
        at("other.git"),
        stranger.display(),
        sshd.client_key.display(),
        at("pillar.git"),
    ));
    let _procs = start(&conf);
    let said = run(&conf, "fileserver.update");
    assert_eq!(
        ask(&conf, &["cp.get_file_str", "salt://ssh.txt"]),
        serde_json::json!("over ssh\n"),
        "{said}"
    );
    // The key the server does not know: refused, one line, not served.
    let lines: Vec<&str> = said
        .lines()
        .filter(|l| l.contains("gitfs remote") && l.contains("other.git"))
        .collect();
    assert_eq!(lines.len(), 1, "one line about the refused key:\n{said}");
    assert!(lines[0].contains("Permission denied"), "{said}");
    assert!(!said.contains("states.git"), "{said}");
    assert_eq!(
        ask(&conf, &["cp.get_file_str", "salt://other.txt"]),
        serde_json::json!(false)
    );
    let said = run(&conf, "git_pillar.update");
    assert!(!said.contains("pillar.git"), "{said}");
    assert_eq!(
        ask(&conf, &["pillar.item", "from_ssh"]),
        serde_json::json!({"from_ssh": true})
    );
    // The server saw the client key get in and the stranger refused.
    let log = std::fs::read_to_string(w.join("sshd/sshd.log")).unwrap_or_default();
    assert!(log.contains("Accepted publickey for root"), "{log}");
}
