//! The one command-line layer, seen from outside: every binary answers
//! `--help` and `--version` with exit 0 and refuses an unknown option with
//! Salt's usage exit code, naming it; and `brine` reads its options wherever
//! they stand, as Salt's `salt` does (a real master and minion on 127.0.0.1).

use brine_tests::bin;
use brine_tests::daemon::{json_out, MasterConf};
use std::process::Command;

const BINARIES: [&str; 7] = [
    "brine",
    "brine-key",
    "brine-run",
    "brine-master",
    "brine-minion",
    "brine-call",
    "brine-api",
];

#[test]
fn every_binary_answers_help_version_and_unknown_options_alike() {
    for name in BINARIES {
        let help = Command::new(bin(name)).arg("--help").output().expect("run");
        assert_eq!(help.status.code(), Some(0), "{name} --help");
        let text = String::from_utf8_lossy(&help.stdout);
        assert!(
            text.starts_with(&format!("Usage: {name} ")),
            "{name}: {text}"
        );
        assert!(text.contains("--config-dir"), "{name}: {text}");

        let version = Command::new(bin(name))
            .arg("--version")
            .output()
            .expect("run");
        assert_eq!(version.status.code(), Some(0), "{name} --version");
        // The version and the commit built from.
        let shown = String::from_utf8_lossy(&version.stdout).trim().to_string();
        let commit = Command::new("git")
            .args(["rev-parse", "--short=12", "HEAD"])
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string());
        let prefix = format!("{name} {} (", env!("CARGO_PKG_VERSION"));
        assert!(
            shown.starts_with(&prefix) && shown.ends_with(')'),
            "{shown}"
        );
        if let Some(c) = commit {
            // Built from this checkout (a commit made since builds anew).
            assert!(shown.len() == prefix.len() + c.len() + 1, "{shown} vs {c}");
        }

        // The manual page and completions come from the same option table.
        let man = Command::new(bin(name))
            .arg("--man-page")
            .output()
            .expect("run");
        let man = String::from_utf8_lossy(&man.stdout);
        assert!(
            man.starts_with(&format!(".TH {} 1", name.to_uppercase())),
            "{name}: {man}"
        );
        assert!(man.contains("\\-\\-config\\-dir"), "{name}: {man}");
        for shell in ["bash", "zsh"] {
            let c = Command::new(bin(name))
                .args(["--completion", shell])
                .output()
                .expect("run");
            assert_eq!(c.status.code(), Some(0), "{name} --completion {shell}");
            assert!(
                String::from_utf8_lossy(&c.stdout).contains("--config-dir"),
                "{name} {shell}"
            );
        }

        let bogus = Command::new(bin(name))
            .arg("--bogus")
            .output()
            .expect("run");
        assert_eq!(bogus.status.code(), Some(64), "{name} --bogus");
        let err = String::from_utf8_lossy(&bogus.stderr);
        assert!(
            err.ends_with(&format!("{name}: error: no such option: --bogus\n")),
            "{name}: {err}"
        );
        assert!(err.starts_with(&format!("Usage: {name} ")), "{name}: {err}");
    }
}

#[test]
fn brine_reads_options_after_the_function() {
    let conf = MasterConf::new("");
    conf.serve_base_files(&[
        ("top.sls", "base:\n  '*':\n    - motd\n"),
        (
            "motd.sls",
            "motd:\n  test.succeed_with_changes:\n    - name: motd\n",
        ),
    ]);
    let _master = conf.start();
    conf.write_minion_conf("web1", "");
    let _minion = conf.start_minion(&[]);
    conf.accept_and_ping("web1");

    for (before, after) in [
        (
            vec!["--out", "json", "web1", "test.ping"],
            vec!["web1", "test.ping", "--out", "json"],
        ),
        (
            vec!["--out", "json", "web1", "state.apply", "test=True"],
            vec!["web1", "state.apply", "test=True", "--out", "json"],
        ),
        (
            vec!["--out=json", "-t", "30", "web1", "state.apply", "test=True"],
            vec!["web1", "-t", "30", "state.apply", "--out=json", "test=True"],
        ),
    ] {
        let a = conf.cli("brine", &before);
        let b = conf.cli("brine", &after);
        assert_eq!(a.status.code(), b.status.code(), "{after:?}");
        let (ja, jb) = (json_out(&a), json_out(&b));
        assert!(ja.get("web1").is_some(), "{before:?}: {ja}");
        assert_eq!(strip_times(ja), strip_times(jb), "{after:?}");
    }
    // A job from the master runs cmd.run without a shell unless
    // python_shell=True, as a real Salt pair does (case
    // exec-cmd-shell-default); a failing command's exit code is the CLI's.
    let piped = conf.cli(
        "brine",
        &["--out", "json", "web1", "cmd.run", "echo hi | tr a-z A-Z"],
    );
    assert_eq!(
        json_out(&piped),
        serde_json::json!({"web1": "hi | tr a-z A-Z"})
    );
    let shell = conf.cli(
        "brine",
        &[
            "--out",
            "json",
            "web1",
            "cmd.run",
            "echo hi | tr a-z A-Z",
            "python_shell=True",
        ],
    );
    assert_eq!(json_out(&shell), serde_json::json!({"web1": "HI"}));
    let failed = conf.cli(
        "brine",
        &["web1", "cmd.run", "echo out; exit 3", "python_shell=True"],
    );
    assert_eq!(failed.status.code(), Some(1));
    assert_eq!(String::from_utf8_lossy(&failed.stdout), "web1:\n    out\n");
}

/// Drop what differs between two runs of the same states.
fn strip_times(mut v: serde_json::Value) -> serde_json::Value {
    match &mut v {
        serde_json::Value::Object(m) => {
            for k in ["start_time", "duration", "pid"] {
                m.remove(k);
            }
            for (_, x) in m.iter_mut() {
                *x = strip_times(x.take());
            }
        }
        serde_json::Value::Array(a) => {
            for x in a.iter_mut() {
                *x = strip_times(x.take());
            }
        }
        _ => {}
    }
    v
}

#[test]
fn log_files_carry_no_colour_codes() {
    // A minion with no master to reach logs warnings to its (redirected) stderr.
    let conf = MasterConf::new("");
    conf.write_minion_conf("lonely", "");
    let mut minion = conf.start_minion(&[]);
    std::thread::sleep(std::time::Duration::from_millis(1500));
    minion.stop();
    let log = conf.minion_log();
    assert!(!log.is_empty(), "the minion logged nothing");
    assert!(!log.contains('\x1b'), "ANSI codes in the log:\n{log}");
}

/// `--check-salt-config`: a Salt shop's config, key by key, and its `.d`
/// files; exit 1 while a key is unknown to both or wrongly typed.
#[test]
fn daemons_check_a_salt_config() {
    let td = tempfile::tempdir().expect("tempdir");
    let master = td.path().join("master");
    std::fs::write(
        &master,
        "interface: 0.0.0.0\nfile_roots:\n  base: [/srv/salt]\ntransport: zeromq\n\
         worker_threads: 8\n",
    )
    .expect("master");
    std::fs::create_dir(td.path().join("master.d")).expect("master.d");
    std::fs::write(
        td.path().join("master.d/gitfs.conf"),
        "gitfs_remotes: []\nfile_rotos: x\n",
    )
    .expect("conf");
    let out = Command::new(bin("brine-master"))
        .args(["--check-salt-config", master.to_str().expect("path")])
        .output()
        .expect("run");
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(
        text.starts_with(&format!(
            "{}:\n  read by brine (3):\n    interface\n    file_roots\n    worker_threads\n  \
             Salt's, ignored by brine (1):\n    transport\n",
            master.display()
        )),
        "{text}"
    );
    assert!(
        text.contains("gitfs.conf:\n  read by brine (1):\n    gitfs_remotes\n"),
        "{text}"
    );
    assert!(
        text.contains("not an option of Salt 3007.8 or brine (1):\n    file_rotos\n"),
        "{text}"
    );
    assert!(
        text.ends_with("4 read, 1 ignored, 1 unknown, 0 errors\n"),
        "{text}"
    );

    let minion = td.path().join("minion");
    std::fs::write(
        &minion,
        "master: salt.example.com\nipv6: False\nmaster_port: no\n",
    )
    .expect("minion");
    let out = Command::new(bin("brine-minion"))
        .args(["--check-salt-config", minion.to_str().expect("path")])
        .output()
        .expect("run");
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(
        text.contains("error:") && text.contains("'master_port' must be an integer"),
        "{text}"
    );
    std::fs::write(&minion, "master: salt.example.com\nipv6: False\n").expect("minion");
    let out = Command::new(bin("brine-minion"))
        .args(["--check-salt-config", minion.to_str().expect("path")])
        .output()
        .expect("run");
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
}

/// `key.finger` on the minion shows what `brine-key -f` shows on the
/// master (what an operator compares before accepting, and before
/// `--import-salt-pki`); `key.finger_master` the master's own.
#[test]
fn key_finger_matches_brine_key() {
    let conf = MasterConf::new("");
    let _master = conf.start();
    conf.write_minion_conf("web1", "");
    let _minion = conf.start_minion(&[]);
    conf.accept_and_ping("web1");
    let json = |args: &[&str]| json_out(&conf.cli(args[0], &args[1..]));
    let on_master = json(&["brine-key", "-f", "web1", "--out", "json"]);
    let on_minion = json(&["brine-call", "--local", "--out", "json", "key.finger"]);
    let finger = on_master["minions"]["web1"].as_str().expect("brine-key -f");
    assert_eq!(finger.len(), 95, "{finger}");
    assert_eq!(on_minion["local"], finger);
    // Through the master too: the daemon reads its own key.
    let (through, _) = conf.call("web1", &["key.finger"]);
    assert_eq!(through, finger);
    let master = json(&["brine-key", "-F", "--out", "json"]);
    let pinned = json(&[
        "brine-call",
        "--local",
        "--out",
        "json",
        "key.finger_master",
    ]);
    assert_eq!(pinned["local"], master["local"]["master.pub"], "{master}");
    let bad = conf.cli("brine-call", &["--local", "key.finger", "hash_type=md5"]);
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&bad.stdout),
        String::from_utf8_lossy(&bad.stderr)
    );
    assert!(said.contains("hash_type 'md5' is not offered"), "{said}");
    assert_ne!(bad.status.code(), Some(0), "{said}");
}
