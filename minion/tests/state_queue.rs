//! Two `brine-call` processes on one minion (one configuration, one
//! `cachedir`): while one runs a slow state, a second state run is
//! refused in Salt's words, `concurrent=True` runs anyway, and
//! `queue=True` waits its turn (Salt's `_check_queue`; recorded from two
//! real `salt-call --local` runs: `["The function \"state.single\" is
//! running as PID 12526 and was started at 2026, Nov 27 20:11:59.314141
//! with jid 20261127201159314141"]`, exit code 1).

use std::path::Path;
use std::process::{Command, Output};
use std::time::{Duration, Instant};

fn brine_call(conf: &Path, args: &[&str]) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_brine-call"));
    c.arg("-c")
        .arg(conf)
        .args(["--local", "--out", "json"])
        .args(args);
    c
}

fn json(out: &Output) -> serde_json::Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|_| {
        panic!(
            "not JSON: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

#[test]
fn a_second_state_run_is_refused_or_queued() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    let conf = root.join("etc");
    std::fs::create_dir_all(&conf).unwrap();
    std::fs::create_dir_all(root.join("roots")).unwrap();
    std::fs::create_dir_all(root.join("pillar")).unwrap();
    let minion = serde_json::json!({
        "id": "m1", "file_client": "local", "log_level": "quiet",
        "cachedir": root.join("cache"),
        "file_roots": {"base": [root.join("roots")]},
        "pillar_roots": {"base": [root.join("pillar")]},
    });
    std::fs::write(conf.join("minion"), minion.to_string()).unwrap();
    let t0 = Instant::now();
    let mut slow = brine_call(&conf, &["state.single", "cmd.run", "name=sleep 3"])
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // Its proc file says it runs.
    let proc_dir = root.join("cache").join("proc");
    let started = Instant::now();
    while std::fs::read_dir(&proc_dir).map_or(true, |mut d| d.next().is_none()) {
        assert!(started.elapsed() < Duration::from_secs(20), "no proc file");
        std::thread::sleep(Duration::from_millis(20));
    }
    let refused = brine_call(&conf, &["state.single", "test.nop", "name=x"])
        .output()
        .unwrap();
    let lines = json(&refused)["local"].clone();
    let line = lines[0].as_str().unwrap_or_default().to_string();
    assert_eq!(lines.as_array().map(Vec::len), Some(1), "{lines}");
    assert!(
        line.starts_with(&format!(
            "The function \"state.single\" is running as PID {} and was started at ",
            slow.id()
        )) && line.contains(" with jid "),
        "{line}"
    );
    assert_eq!(refused.status.code(), Some(1));
    let anyway = brine_call(
        &conf,
        &["state.single", "test.nop", "name=x", "concurrent=True"],
    )
    .output()
    .unwrap();
    assert_eq!(anyway.status.code(), Some(0), "{}", json(&anyway));
    // Queued: it waits for the slow run to end, then runs.
    let queued = brine_call(&conf, &["state.single", "test.nop", "name=x", "queue=True"])
        .output()
        .unwrap();
    assert_eq!(queued.status.code(), Some(0), "{}", json(&queued));
    assert_eq!(
        json(&queued)["local"]["test_|-x_|-x_|-nop"]["comment"],
        serde_json::json!("Success!")
    );
    // The slow run (three seconds) was over before the queued one ran.
    assert!(t0.elapsed() >= Duration::from_secs(3));
    assert!(slow.wait().unwrap().success());
    // Nothing is left behind.
    assert_eq!(std::fs::read_dir(&proc_dir).unwrap().count(), 0);
}
