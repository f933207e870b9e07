//! Local users who are not root, as Salt 3007.8 treats them (recorded in
//! `tests/recorded/acl/`): `nobody` under `publisher_acl: {nobody:
//! [{'web*': ['test.*']}]}` runs `brine web1 test.ping`, and is refused
//! `cmd.run`, another minion, and a target reaching past `web*` with
//! Salt's words on stdout and exit 0; a blacklisted module is refused to
//! everyone; a user the ACL does not name gets no key. Then `brine -a pam`
//! (the system's PAM, real users made for the test): a login, a wrong
//! password, a `%` group's permissions, and `-T`'s token file used by the
//! next call. Runs as root (it switches to `nobody` and makes users).

use brine_tests::daemon::{json_docs, MasterConf, MasterProc};
use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// System users and a group made for the test, removed when it ends.
struct Accounts(Vec<&'static str>, Vec<&'static str>);

impl Accounts {
    fn make(users: &[(&'static str, &'static str, Option<&'static str>)]) -> Accounts {
        let mut groups = Vec::new();
        for (user, password, group) in users {
            if let Some(g) = group {
                let _ = Command::new("groupadd").arg(g).output();
                groups.push(*g);
            }
            let _ = Command::new("userdel").arg(user).output();
            let mut add = Command::new("useradd");
            add.args(["-M", "-s", "/usr/sbin/nologin"]);
            if let Some(g) = group {
                add.args(["-G", g]);
            }
            let out = add.arg(user).output().expect("useradd");
            assert!(out.status.success(), "useradd {user}: {out:?}");
            let mut set = Command::new("chpasswd")
                .stdin(std::process::Stdio::piped())
                .spawn()
                .expect("chpasswd");
            use std::io::Write;
            set.stdin
                .take()
                .expect("stdin")
                .write_all(format!("{user}:{password}\n").as_bytes())
                .expect("chpasswd input");
            assert!(set.wait().expect("chpasswd").success());
        }
        Accounts(users.iter().map(|u| u.0).collect(), groups)
    }
}

impl Drop for Accounts {
    fn drop(&mut self) {
        for u in &self.0 {
            let _ = Command::new("userdel").arg(u).output();
        }
        for g in &self.1 {
            let _ = Command::new("groupdel").arg(g).output();
        }
    }
}

fn nobody() -> (u32, u32) {
    let u = nix::unistd::User::from_name("nobody")
        .expect("passwd")
        .expect("the system has a nobody user");
    (u.uid.as_raw(), u.gid.as_raw())
}

/// A copy of `brine` anyone may run (the build folder may sit under a
/// private home).
fn brine_for_everyone(dir: &Path) -> PathBuf {
    let to = dir.join("brine");
    std::fs::copy(brine_tests::bin("brine"), &to).expect("copy brine");
    std::fs::set_permissions(&to, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    to
}

/// `brine -c CONF ARGS` as nobody, with `home` as HOME.
fn as_nobody(brine: &Path, conf: &MasterConf, home: &Path, args: &[&str]) -> Output {
    let (uid, gid) = nobody();
    // The copy was just written: a daemon the other test forks at that
    // moment holds the written file open until its exec, and exec of the
    // copy then fails with ETXTBSY for that instant. Try again, bounded.
    for _ in 0..100 {
        match Command::new(brine)
            .arg("-c")
            .arg(conf.conf_dir())
            .args(args)
            .env("HOME", home)
            .uid(uid)
            .gid(gid)
            .output()
        {
            Err(e) if e.kind() == std::io::ErrorKind::ExecutableFileBusy => {
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
            other => return other.expect("run brine as nobody"),
        }
    }
    panic!("run brine as nobody: the copy stayed busy for 2 s")
}

fn text(out: &Output) -> (String, String, i32) {
    (
        String::from_utf8_lossy(&out.stdout).to_string(),
        String::from_utf8_lossy(&out.stderr).to_string(),
        out.status.code().unwrap_or(-1),
    )
}

fn start(extra: &str) -> (MasterConf, MasterProc, MasterProc, PathBuf, PathBuf) {
    assert!(
        nix::unistd::geteuid().is_root(),
        "this test runs as root: it runs brine as nobody and makes users"
    );
    let conf = MasterConf::new(extra);
    // nobody reaches the config and the master's sock_dir through the
    // test's folder, as an operator's /etc/brine and /var/run/brine.
    for (p, mode) in [
        (conf.dir.path().to_path_buf(), 0o711),
        (conf.conf_dir(), 0o755),
        (conf.conf_dir().join("master"), 0o644),
    ] {
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(mode)).expect("chmod");
    }
    let master = conf.start();
    conf.write_minion_conf("web1", "");
    let minion = conf.start_minion(&[]);
    conf.accept_and_ping("web1");
    conf.add_down_minion("db1");
    let brine = brine_for_everyone(conf.dir.path());
    let home = conf.dir.path().join("home-nobody");
    std::fs::create_dir_all(&home).expect("home");
    let (uid, gid) = nobody();
    std::os::unix::fs::chown(&home, Some(uid), Some(gid)).expect("chown home");
    (conf, master, minion, brine, home)
}

const REFUSED: &str = "Authorization error occurred.\n";

#[test]
fn nobody_runs_what_publisher_acl_allows_and_is_refused_the_rest() {
    let (conf, mut master, mut minion, brine, home) = start(
        "publisher_acl:\n  nobody:\n    - 'web*':\n      - test.*\n\
         publisher_acl_blacklist:\n  modules:\n    - sys.doc\n",
    );
    // The key file: the user's alone.
    let key = conf.root().join("var/run/brine/master/.nobody_key");
    let meta = std::fs::metadata(&key).expect("nobody's key file");
    assert_eq!(meta.permissions().mode() & 0o777, 0o400);
    assert_eq!(std::os::unix::fs::MetadataExt::uid(&meta), nobody().0);

    let out = as_nobody(&brine, &conf, &home, &["web1", "test.ping"]);
    let (o, e, code) = text(&out);
    assert_eq!((o.as_str(), code), ("web1:\n    True\n", 0), "{e}");
    let out = as_nobody(
        &brine,
        &conf,
        &home,
        &["--out", "json", "web1", "test.ping"],
    );
    assert_eq!(
        json_docs(&out.stdout).ok(),
        Some(serde_json::json!({"web1": true}))
    );
    // The job is nobody's.
    let jobs = conf.cli("brine-run", &["--out", "json", "jobs.list_jobs"]);
    let jobs = json_docs(&jobs.stdout).expect("jobs.list_jobs");
    assert!(
        jobs.as_object()
            .is_some_and(|m| m.values().any(|j| j["User"] == "nobody")),
        "{jobs}"
    );

    for args in [
        &["web1", "cmd.run", "id"][..],
        &["db1", "test.ping"],
        &["*", "test.ping"],
        &["-L", "web1,db1", "test.ping"],
    ] {
        let (o, e, code) = text(&as_nobody(&brine, &conf, &home, args));
        assert_eq!((o.as_str(), code), (REFUSED, 0), "{args:?}: {e}");
    }
    let (o, _, code) = text(&as_nobody(
        &brine,
        &conf,
        &home,
        &["--out", "json", "web1", "cmd.run", "id"],
    ));
    assert_eq!(
        (o.as_str(), code),
        ("\"Authorization error occurred.\"\n", 0)
    );
    // The blacklist binds root too.
    let out = conf.cli("brine", &["web1", "sys.doc"]);
    assert_eq!(text(&out).0, REFUSED);
    assert!(
        conf.log().contains("publisher_acl_blacklist"),
        "{}",
        conf.log()
    );
    // Root is not bound by the ACL.
    let (j, _) = conf.call("web1", &["cmd.run", "echo hi"]);
    assert_eq!(j, serde_json::json!("hi"));

    // Another local user has no key: Salt's words, exit 0.
    let daemon = nix::unistd::User::from_name("daemon")
        .expect("passwd")
        .expect("a daemon user");
    let out = Command::new(&brine)
        .arg("-c")
        .arg(conf.conf_dir())
        .args(["web1", "test.ping"])
        .env("HOME", &home)
        .uid(daemon.uid.as_raw())
        .gid(daemon.gid.as_raw())
        .output()
        .expect("brine as daemon");
    let (o, e, code) = text(&out);
    assert_eq!(
        (o.as_str(), code),
        ("Authentication error occurred.\n", 0),
        "{e}"
    );
    assert!(e.contains(".daemon_key"), "{e}");
    minion.stop();
    master.stop();
}

#[test]
fn brine_with_pam_eauth_groups_and_a_kept_token() {
    let accounts = Accounts::make(&[
        ("brinepam1", "pw-one", None),
        ("brinepam2", "pw-two", Some("brinepamops")),
    ]);
    let (conf, mut master, mut minion, brine, home) = start(
        "external_auth:\n  pam:\n    brinepam1:\n      - 'web*':\n        - test.*\n\
         \x20   brinepamops%:\n      - grains.item\n",
    );
    let pam = |user: &str, pw: &str, rest: &[&str]| {
        let mut args = vec!["-a", "pam", "--username", user, "--password", pw];
        args.extend_from_slice(rest);
        text(&as_nobody(&brine, &conf, &home, &args))
    };
    let (o, e, code) = pam("brinepam1", "pw-one", &["web1", "test.ping"]);
    assert_eq!(
        (o.as_str(), code),
        ("web1:\n    True\n", 0),
        "{e}\n{}",
        conf.log()
    );
    let (o, _, code) = pam("brinepam1", "wrong", &["web1", "test.ping"]);
    assert_eq!((o.as_str(), code), ("Authentication error occurred.\n", 0));
    let (o, _, _) = pam("brinepam1", "pw-one", &["db1", "test.ping"]);
    assert_eq!(o, REFUSED);
    let (o, _, _) = pam("brinepam1", "pw-one", &["web1", "grains.item", "id"]);
    assert_eq!(o, REFUSED);
    // brinepam2 is named by no entry but its group's.
    let (o, e, _) = pam(
        "brinepam2",
        "pw-two",
        &["--out", "json", "web1", "grains.item", "id"],
    );
    assert_eq!(
        json_docs(o.as_bytes()).ok(),
        Some(serde_json::json!({"web1": {"id": "web1"}})),
        "{o} {e}"
    );

    // -T keeps the token; the next call needs no password.
    let (o, _, _) = pam("brinepam1", "pw-one", &["-T", "web1", "test.ping"]);
    assert_eq!(o, "web1:\n    True\n");
    // Salt's default token_file: salt_token in the home (no
    // ~/.config/salt here).
    let kept = home.join("salt_token");
    let meta = std::fs::metadata(&kept).expect("token file");
    assert_eq!(meta.permissions().mode() & 0o777, 0o600);
    assert_eq!(std::fs::read_to_string(&kept).expect("token").len(), 64);
    let (o, e, _) = text(&as_nobody(&brine, &conf, &home, &["web1", "test.ping"]));
    assert_eq!(o, "web1:\n    True\n", "{e}");
    // The token's user, not nobody (who has no publisher_acl here).
    std::fs::remove_file(&kept).expect("rm token");
    let (o, _, _) = text(&as_nobody(&brine, &conf, &home, &["web1", "test.ping"]));
    assert_eq!(o, "Authentication error occurred.\n");
    // A backend brine does not have: Salt's words, exit 2.
    let (o, e, code) = text(&as_nobody(
        &brine,
        &conf,
        &home,
        &["-a", "nosuch", "web1", "test.ping"],
    ));
    assert_eq!(
        (o.as_str(), e.as_str(), code),
        (
            "The specified external authentication system \"nosuch\" is not available\n\
             Available eauth types: auto, file, pam, sharedsecret\n",
            "ERROR: Authentication failed\n",
            2
        )
    );
    drop(accounts);
    minion.stop();
    master.stop();
}
