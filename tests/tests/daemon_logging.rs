//! Where the daemons log and how they run in the background, as Salt's
//! do: `log_file` (under `root_dir`) in Salt's log-file format next to
//! the console, `--log-file`/`--log-file-level`, and `-d` detaching with
//! the pid in `pidfile` (real master and minion on 127.0.0.1, stopped by
//! that pid).

use brine_tests::bin_dir;
use brine_tests::daemon::{json_out, MasterConf};
use std::process::Command;
use std::time::{Duration, Instant};

fn wait_for(what: &str, within: Duration, mut done: impl FnMut() -> bool) {
    let start = Instant::now();
    while !done() {
        assert!(start.elapsed() < within, "{what}: not within {within:?}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// A daemon started with `-d`, stopped by the pid it wrote.
struct Detached(u32);

impl Drop for Detached {
    fn drop(&mut self) {
        let _ = Command::new("kill").arg(self.0.to_string()).status();
        let proc = format!("/proc/{}", self.0);
        let deadline = Instant::now() + Duration::from_secs(10);
        while std::path::Path::new(&proc).exists() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

/// Run `name -c CONF -d ARGS`: it returns at once; the daemon's pid from
/// `pidfile`.
fn detach(conf: &MasterConf, name: &str, args: &[&str], pidfile: &std::path::Path) -> Detached {
    let started = Instant::now();
    let out = Command::new(bin_dir().join(name))
        .arg("-c")
        .arg(conf.conf_dir())
        .arg("-d")
        .args(args)
        .output()
        .expect("run daemon");
    assert!(out.status.success(), "{name} -d: {out:?}");
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{name} -d did not return"
    );
    let mut pid = 0;
    wait_for("the pid file", Duration::from_secs(10), || {
        pid = std::fs::read_to_string(pidfile)
            .ok()
            .and_then(|t| t.trim().parse().ok())
            .unwrap_or(0);
        pid != 0
    });
    assert!(std::path::Path::new(&format!("/proc/{pid}")).exists());
    Detached(pid)
}

#[test]
fn daemons_log_to_log_file_and_detach_with_d() {
    let conf = MasterConf::new("");
    let mroot = conf.root();
    let nroot = conf.dir.path().join("nroot");
    let _master = detach(
        &conf,
        "brine-master",
        &[],
        &mroot.join("var/run/brine-master.pid"),
    );
    let custom = conf.dir.path().join("custom/minion.log");
    conf.write_minion_conf("web1", "");
    let minion_pid = nroot.join("var/run/brine-minion.pid");
    let minion = detach(
        &conf,
        "brine-minion",
        &[
            "--log-file",
            custom.to_str().expect("utf-8"),
            "--log-file-level",
            "debug",
        ],
        &minion_pid,
    );
    conf.accept_and_ping("web1");
    let ping = conf.cli("brine", &["--out", "json", "web1", "test.ping"]);
    assert_eq!(json_out(&ping)["web1"], true);

    // The master's log file: the default path under root_dir, Salt's
    // log-file format, its pid in each line.
    let master_log =
        std::fs::read_to_string(mroot.join("var/log/brine/master")).expect("the master's log file");
    let first = master_log.lines().next().unwrap_or_default().to_string();
    let shape = regex::Regex::new(
        r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3} \[[a-z_.]+ *:\d+ *\]\[(INFO|WARNING|ERROR|DEBUG) *\]\[\d+\] \S",
    )
    .expect("regex");
    assert!(shape.is_match(&first), "{first}");
    // The minion's, where --log-file said, at --log-file-level: debug
    // lines too, though log_level is info.
    wait_for("the minion's log", Duration::from_secs(5), || {
        std::fs::read_to_string(&custom).is_ok_and(|t| t.contains("[DEBUG   ]"))
    });
    let text = std::fs::read_to_string(&custom).unwrap_or_default();
    assert!(text.contains(&format!("][{}] ", minion.0)), "{text}");
    assert!(!nroot.join("var/log/brine/minion").exists());
}
