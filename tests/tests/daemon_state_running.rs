//! `state.running` and `saltutil.is_running` see a state run going on in
//! another job, in Salt's words (real master and minion on 127.0.0.1).

use brine_tests::daemon::{json_out, MasterConf};
use std::time::{Duration, Instant};

#[test]
fn a_running_state_job_is_reported() {
    let conf = MasterConf::new("");
    conf.serve_base_files(&[("slow.sls", "slow:\n  cmd.run:\n    - name: sleep 3.75\n")]);
    let _master = conf.start();
    conf.write_minion_conf("web1", "");
    let _minion = conf.start_minion(&[]);
    conf.accept_and_ping("web1");

    let none = conf.cli("brine", &["--out", "json", "web1", "state.running"]);
    assert_eq!(json_out(&none), serde_json::json!({"web1": []}));

    let out = conf.cli("brine", &["--async", "web1", "state.sls", "slow"]);
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let jid = text.trim().rsplit(' ').next().expect("a jid").to_string();
    let started = Instant::now();
    let lines = loop {
        let out = conf.cli("brine", &["--out", "json", "web1", "state.running"]);
        let lines = json_out(&out)["web1"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        if !lines.is_empty() {
            break lines;
        }
        assert!(
            started.elapsed() < Duration::from_secs(3),
            "state.running never saw the run: {text}"
        );
        std::thread::sleep(Duration::from_millis(100));
    };
    assert_eq!(lines.len(), 1, "{lines:?}");
    let line = lines[0].as_str().unwrap_or_default();
    assert!(
        line.starts_with("The function \"state.sls\" is running as PID ")
            && line.ends_with(&format!(" with jid {jid}")),
        "{line}"
    );
    let found = conf.cli(
        "brine",
        &["--out", "json", "web1", "saltutil.is_running", "state.*"],
    );
    let jobs = json_out(&found)["web1"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    assert_eq!(jobs.len(), 1, "{jobs:?}");
    assert_eq!(jobs[0]["jid"], serde_json::json!(jid));
    assert_eq!(jobs[0]["fun"], serde_json::json!("state.sls"));
    let none = conf.cli(
        "brine",
        &["--out", "json", "web1", "saltutil.is_running", "cmd.*"],
    );
    assert_eq!(json_out(&none), serde_json::json!({"web1": []}));
}
