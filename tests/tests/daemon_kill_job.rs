//! `saltutil.kill_job` on a job running a command: the job stops without a
//! return and its command dies with it, as a killed Salt job's process
//! group does (real master and minion on 127.0.0.1).

use brine_tests::daemon::{json_out, MasterConf};
use std::time::{Duration, Instant};

/// Processes whose command line is exactly `argv`.
fn running(argv: &[&str]) -> usize {
    let want = argv.join("\0");
    std::fs::read_dir("/proc")
        .map(|d| {
            d.flatten()
                .filter_map(|e| std::fs::read(e.path().join("cmdline")).ok())
                .filter(|c| String::from_utf8_lossy(c).trim_end_matches('\0') == want)
                .count()
        })
        .unwrap_or(0)
}

/// Start `fun args` as a job on web1, wait for `argv` to run, kill the job
/// and check the command is gone and no return is stored.
fn kill_and_check(conf: &MasterConf, fun_and_args: &[&str], argv: &[&str]) {
    let mut cmd = vec!["--async", "web1"];
    cmd.extend_from_slice(fun_and_args);
    let out = conf.cli("brine", &cmd);
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let jid = text.trim().rsplit(' ').next().expect("a jid").to_string();
    let started = Instant::now();
    while running(argv) == 0 {
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "the command never started: {text}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    let killed = conf.cli(
        "brine",
        &["--out", "json", "web1", "saltutil.kill_job", &jid],
    );
    let answer = json_out(&killed)["web1"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(
        answer.starts_with(&format!("Signal 9 sent to job {jid} at pid ")),
        "{answer}"
    );
    let killed_at = Instant::now();
    while running(argv) > 0 {
        assert!(
            killed_at.elapsed() < Duration::from_secs(5),
            "the command outlived its killed job"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    // No return is stored for a killed job.
    let lookup = conf.cli("brine-run", &["--out", "json", "jobs.lookup_jid", &jid]);
    assert_eq!(json_out(&lookup), serde_json::json!({}));
}

#[test]
fn kill_job_stops_the_commands_the_job_runs() {
    let conf = MasterConf::new("");
    conf.serve_base_files(&[(
        "sleeper.sls",
        "sleeper:\n  cmd.run:\n    - name: sleep 987.5\n",
    )]);
    let _master = conf.start();
    conf.write_minion_conf("web1", "");
    let _minion = conf.start_minion(&[]);
    conf.accept_and_ping("web1");
    // Sleeps no other test runs, so counting them is safe.
    kill_and_check(&conf, &["cmd.run", "sleep 987.25"], &["sleep", "987.25"]);
    kill_and_check(&conf, &["state.sls", "sleeper"], &["sleep", "987.5"]);
}
