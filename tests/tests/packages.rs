//! The packages, installed for real on this host (issue 37): build the
//! `.deb`s and `.rpm`s with `packaging/build` from the binaries this test
//! run built, `dpkg -i` both, start master and minion from the installed
//! units' `ExecStart` lines (systemd is not PID 1 here), accept the key,
//! `brine '*' test.ping` and a `state.apply` from `/srv/salt`; upgrade to
//! a rebuilt package with `/etc/brine/master` changed (kept), run again,
//! purge both and check that nothing is left. The `.rpm`s are read with
//! `rpm -qlp` and `--scripts` (no RPM host here).
//!
//! It changes the host (`/usr/bin`, `/etc/brine`, `/srv`, dpkg's
//! database), so it is `#[ignore]`d and `scripts/test` runs it alone,
//! after the suite. It refuses to run where brine is installed already.

use brine_tests::{bin_dir, daemon::free_port};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

const MINION_ID: &str = "pkgtest-minion";

/// Every binary the two packages install, each with its manual page.
const BINARIES: [&str; 7] = [
    "brine",
    "brine-master",
    "brine-key",
    "brine-run",
    "brine-api",
    "brine-minion",
    "brine-call",
];

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("workspace")
        .to_path_buf()
}

fn run(cmd: &str, args: &[&str]) -> Output {
    Command::new(cmd)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("{cmd}: {e}"))
}

fn ok(cmd: &str, args: &[&str]) -> String {
    let out = run(cmd, args);
    assert!(
        out.status.success(),
        "{cmd} {args:?}: {}\n{}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// `packaging/build` from this run's binaries; the packages it made.
fn build_packages(version: Option<&str>) -> Vec<PathBuf> {
    let profile = match bin_dir().file_name().and_then(|n| n.to_str()) {
        Some("debug") => "dev".to_string(),
        Some(other) => other.to_string(),
        None => panic!("no profile folder in {}", bin_dir().display()),
    };
    let mut args = vec!["--profile", profile.as_str(), "--no-build"];
    if let Some(v) = version {
        args.extend(["--version", v]);
    }
    let script = repo().join("packaging/build");
    let out = Command::new(&script)
        .args(&args)
        .current_dir(repo())
        .output()
        .expect("packaging/build");
    assert!(
        out.status.success(),
        "packaging/build: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut found = Vec::new();
    for dir in ["target/debian", "target/generate-rpm"] {
        for e in std::fs::read_dir(repo().join(dir)).expect(dir) {
            found.push(e.expect("entry").path());
        }
    }
    found.sort();
    found
}

fn package(found: &[PathBuf], name: &str, ext: &str) -> PathBuf {
    found
        .iter()
        .find(|p| {
            let f = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
            f.starts_with(&format!("{name}{}", if ext == "deb" { "_" } else { "-0" }))
                && f.ends_with(ext)
        })
        .unwrap_or_else(|| panic!("no {name} .{ext} in {found:?}"))
        .clone()
}

/// The daemon a unit starts: its `ExecStart` line, run as is.
fn start_unit(unit: &str, log: &Path) -> Child {
    let path = format!("/usr/lib/systemd/system/{unit}.service");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let line = text
        .lines()
        .find_map(|l| l.strip_prefix("ExecStart="))
        .unwrap_or_else(|| panic!("{path}: no ExecStart"));
    let mut words = line.split_whitespace();
    let program = words.next().expect("ExecStart program");
    let log = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(log)
        .expect("log");
    Command::new(program)
        .args(words)
        .stdout(Stdio::null())
        .stderr(log)
        .spawn()
        .unwrap_or_else(|e| panic!("{line}: {e}"))
}

fn stop(mut child: Child) {
    let _ = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status();
    let deadline = Instant::now() + Duration::from_secs(20);
    while Instant::now() < deadline {
        if let Ok(Some(_)) = child.try_wait() {
            return;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let _ = child.kill();
    let _ = child.wait();
}

/// Until `check` holds (or panic with what the logs say).
fn wait_for(what: &str, logs: &Path, mut check: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(60);
    while Instant::now() < deadline {
        if check() {
            return;
        }
        std::thread::sleep(Duration::from_millis(250));
    }
    panic!(
        "{what}: not within 60 s; daemons' log:\n{}",
        std::fs::read_to_string(logs).unwrap_or_default()
    );
}

/// Both daemons from their units, the minion answering `test.ping`.
fn start_and_ping(logs: &Path) -> (Child, Child) {
    let master = start_unit("brine-master", logs);
    let minion = start_unit("brine-minion", logs);
    wait_for("the minion's key pending or accepted", logs, || {
        Path::new("/etc/brine/pki/master/minions_pre")
            .join(MINION_ID)
            .exists()
            || Path::new("/etc/brine/pki/master/minions")
                .join(MINION_ID)
                .exists()
    });
    if !Path::new("/etc/brine/pki/master/minions")
        .join(MINION_ID)
        .exists()
    {
        ok("/usr/bin/brine-key", &["-a", MINION_ID, "-y"]);
    }
    wait_for("brine '*' test.ping", logs, || {
        let out = run(
            "/usr/bin/brine",
            &["--out", "json", "-t", "5", "*", "test.ping"],
        );
        String::from_utf8_lossy(&out.stdout).contains(&format!("\"{MINION_ID}\": true"))
    });
    (master, minion)
}

fn exists_any(paths: &[&str]) -> Vec<String> {
    paths
        .iter()
        .filter(|p| Path::new(p).exists())
        .map(|p| p.to_string())
        .collect()
}

#[test]
#[ignore = "installs brine's packages on this host: scripts/test runs it alone, after the suite"]
fn packages_install_run_upgrade_and_purge() {
    // What only the packages put there (a test of the suite may have left
    // a log or a grains cache under /var/*/brine: purge removes those).
    let ours = ["/etc/brine", "/usr/bin/brine", "/usr/bin/brine-minion"];
    let before = exists_any(&ours);
    assert!(
        before.is_empty(),
        "brine is installed on this host already ({before:?}): the package test installs and \
         purges it, so it runs only where it is not"
    );
    // The default roots stay if they were there before.
    let srv_before = exists_any(&["/srv/salt", "/srv/pillar"]);
    let _cleanup = Cleanup;

    let found = build_packages(None);
    let (master_deb, minion_deb) = (
        package(&found, "brine-master", "deb"),
        package(&found, "brine-minion", "deb"),
    );
    let version = ok(
        "dpkg-deb",
        &["-f", master_deb.to_str().expect("path"), "Version"],
    );
    let version = version.trim().to_string();
    let commit = ok(
        "git",
        &[
            "-C",
            repo().to_str().expect("path"),
            "rev-parse",
            "--short=12",
            "HEAD",
        ],
    );
    assert!(
        version.ends_with(&format!(".g{}", commit.trim())),
        "{version} names the commit {commit}"
    );

    // The .rpm: its files, configuration files and scripts.
    for (name, files) in [
        (
            "brine-master",
            &[
                "/usr/bin/brine-master",
                "/usr/bin/brine",
                "/usr/bin/brine-key",
                "/usr/bin/brine-run",
                "/usr/bin/brine-api",
                "/usr/lib/systemd/system/brine-master.service",
                "/usr/lib/systemd/system/brine-api.service",
                "/usr/share/man/man1/brine.1",
                "/usr/share/bash-completion/completions/brine-key",
                "/usr/share/zsh/site-functions/_brine",
                "/etc/logrotate.d/brine-master",
            ][..],
        ),
        (
            "brine-minion",
            &[
                "/usr/bin/brine-minion",
                "/usr/bin/brine-call",
                "/usr/lib/systemd/system/brine-minion.service",
                "/usr/share/man/man1/brine-call.1",
            ][..],
        ),
    ] {
        let rpm = package(&found, name, "rpm");
        let rpm = rpm.to_str().expect("path");
        let listed = ok("rpm", &["-qlp", rpm]);
        for f in files {
            assert!(
                listed.lines().any(|l| l == *f),
                "{name}.rpm lacks {f}:\n{listed}"
            );
        }
        let conf = ok("rpm", &["-qp", "--configfiles", rpm]);
        let etc = format!("/etc/brine/{}", name.trim_start_matches("brine-"));
        assert!(
            conf.lines().any(|l| l == etc),
            "{name}.rpm: {etc} not a config file: {conf}"
        );
        let scripts = ok("rpm", &["-qp", "--scripts", rpm]);
        for s in [
            "postinstall scriptlet",
            "preuninstall scriptlet",
            "postuninstall scriptlet",
        ] {
            assert!(scripts.contains(s), "{name}.rpm: no {s}:\n{scripts}");
        }
        assert!(
            scripts.contains("install -d -m 0700 /etc/brine/pki"),
            "{scripts}"
        );
        let info = ok("rpm", &["-qp", "--queryformat", "%{VERSION}", rpm]);
        assert_eq!(info, version, "{name}.rpm's version");
    }

    // Install both .debs.
    let logs = std::env::temp_dir().join(format!("brine-pkgtest-{}.log", std::process::id()));
    ok(
        "dpkg",
        &[
            "-i",
            master_deb.to_str().expect("path"),
            minion_deb.to_str().expect("path"),
        ],
    );
    let installed = ok("dpkg-query", &["-W", "-f", "${Version}", "brine-master"]);
    assert_eq!(installed, version);
    for (dir, mode) in [
        ("/etc/brine/pki/master", 0o700),
        ("/etc/brine/pki/minion", 0o700),
        ("/var/cache/brine/master", 0o700),
        ("/etc/brine/master.d", 0o755),
        ("/srv/salt", 0o755),
    ] {
        use std::os::unix::fs::PermissionsExt;
        let m = std::fs::metadata(dir).unwrap_or_else(|e| panic!("{dir}: {e}"));
        if !srv_before.iter().any(|s| s == dir) {
            assert_eq!(m.permissions().mode() & 0o7777, mode, "{dir}'s mode");
        }
    }
    // The version and commit, the manual pages and the completions.
    let shown = ok("/usr/bin/brine", &["--version"]);
    assert!(shown.contains(commit.trim()), "{shown}");
    for page in BINARIES {
        let out = Command::new("man")
            .args(["-P", "cat", page])
            .env("MANWIDTH", "80")
            .output()
            .expect("man");
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success() && text.contains("--config-dir"),
            "man {page}: {}\n{text}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    // man-db's cache of the pages just rendered (man's, not the package's).
    for page in BINARIES {
        let _ = std::fs::remove_file(format!("/var/cache/man/cat1/{page}.1.gz"));
    }
    let completes = ok(
        "bash",
        &[
            "-c",
            "for b in brine brine-key brine-call; do \
             . /usr/share/bash-completion/completions/$b && complete -p $b; done",
        ],
    );
    assert_eq!(completes.lines().count(), 3, "{completes}");

    // An operator's configuration: ports of this test, in the conffiles.
    let (publish, ret) = (free_port(), free_port());
    let master_conf = format!(
        "\n# this test's change, kept on upgrade\ninterface: 127.0.0.1\npublish_port: {publish}\n\
         ret_port: {ret}\n"
    );
    append("/etc/brine/master", &master_conf);
    append(
        "/etc/brine/minion",
        &format!(
            "\nid: {MINION_ID}\nmaster: 127.0.0.1\nmaster_port: {ret}\npublish_port: {publish}\n\
             acceptance_wait_time: 1\n"
        ),
    );
    let target = std::env::temp_dir().join(format!("brine-pkgtest-{}.txt", std::process::id()));
    std::fs::write("/srv/salt/top.sls", "base:\n  '*':\n    - pkgtest\n").expect("top.sls");
    std::fs::write(
        "/srv/salt/pkgtest.sls",
        format!(
            "{}:\n  file.managed:\n    - contents: from /srv/salt\n",
            target.display()
        ),
    )
    .expect("pkgtest.sls");

    let (master, minion) = start_and_ping(&logs);
    let out = run(
        "/usr/bin/brine",
        &["--out", "json", "-t", "60", MINION_ID, "state.apply"],
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && text.contains("\"result\": true"),
        "state.apply: {text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        std::fs::read_to_string(&target).expect("the managed file"),
        "from /srv/salt\n"
    );
    stop(minion);
    stop(master);
    assert!(
        Path::new("/var/log/brine/master").exists(),
        "the master logs to /var/log/brine/master"
    );

    // Upgrade to a rebuilt package: the changed conffile is kept.
    let newer = format!("{version}.1");
    let found = build_packages(Some(&newer));
    ok(
        "dpkg",
        &[
            "-i",
            package(&found, "brine-master", "deb")
                .to_str()
                .expect("path"),
            package(&found, "brine-minion", "deb")
                .to_str()
                .expect("path"),
        ],
    );
    assert_eq!(
        ok("dpkg-query", &["-W", "-f", "${Version}", "brine-minion"]),
        newer
    );
    let kept = std::fs::read_to_string("/etc/brine/master").expect("master");
    assert!(kept.ends_with(&master_conf), "the change is gone:\n{kept}");
    assert!(
        !Path::new("/etc/brine/master.dpkg-new").exists()
            && !Path::new("/etc/brine/master.dpkg-old").exists()
    );
    // The same key, the same ports: the minion answers without a new accept.
    let (master, minion) = start_and_ping(&logs);
    stop(minion);
    stop(master);

    // Purge: nothing of brine's left but what was there before.
    for f in ["/srv/salt/top.sls", "/srv/salt/pkgtest.sls"] {
        let _ = std::fs::remove_file(f);
    }
    let _ = std::fs::remove_file(&target);
    ok("dpkg", &["--purge", "brine-minion", "brine-master"]);
    let mut left = exists_any(&[
        "/etc/brine",
        "/var/cache/brine",
        "/var/log/brine",
        "/var/run/brine",
        "/etc/logrotate.d/brine-master",
        "/etc/logrotate.d/brine-minion",
        "/usr/lib/systemd/system/brine-master.service",
        "/usr/lib/systemd/system/brine-minion.service",
        "/etc/systemd/system/multi-user.target.wants/brine-master.service",
        "/etc/systemd/system/multi-user.target.wants/brine-minion.service",
        "/usr/share/man/man1/brine.1.gz",
    ]);
    for b in BINARIES {
        left.extend(exists_any(&[&format!("/usr/bin/{b}")]));
    }
    for dir in ["/srv/salt", "/srv/pillar"] {
        if !srv_before.iter().any(|s| s == dir) {
            left.extend(exists_any(&[dir]));
        }
    }
    assert!(left.is_empty(), "left after purge: {left:?}");
    let listed = run("dpkg-query", &["-W", "brine-master", "brine-minion"]);
    assert!(!listed.status.success(), "dpkg still knows the packages");
    let _ = std::fs::remove_file(&logs);
}

/// On the way out, passed or not: no installed daemon running, no package
/// installed (a failed run must not leave the host with brine on it).
struct Cleanup;

impl Drop for Cleanup {
    fn drop(&mut self) {
        let _ = Command::new("pkill")
            .args(["-TERM", "-f", "^/usr/bin/brine-"])
            .status();
        std::thread::sleep(Duration::from_millis(500));
        let _ = Command::new("pkill")
            .args(["-KILL", "-f", "^/usr/bin/brine-"])
            .status();
        let _ = Command::new("dpkg")
            .args(["--purge", "brine-minion", "brine-master"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
    }
}

fn append(path: &str, text: &str) {
    use std::io::Write;
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(path)
        .unwrap_or_else(|e| panic!("{path}: {e}"));
    f.write_all(text.as_bytes())
        .unwrap_or_else(|e| panic!("{path}: {e}"));
}
