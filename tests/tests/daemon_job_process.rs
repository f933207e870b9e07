//! A job that changes the host runs in a process of its own
//! (`multiprocessing: True`, Salt's default): a state run that kills its
//! minion with `kill -9` goes on, and its return reaches the master while
//! the minion is restarted (real master and minion on 127.0.0.1).

use brine_tests::daemon::{json_out, MasterConf};
use std::time::{Duration, Instant};

fn wait_for(what: &str, within: Duration, mut done: impl FnMut() -> bool) {
    let start = Instant::now();
    while !done() {
        assert!(start.elapsed() < within, "{what}: not within {within:?}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn alive(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|s| {
        !s.rsplit(')')
            .next()
            .unwrap_or("")
            .trim_start()
            .starts_with('Z')
    })
}

#[test]
fn a_state_run_survives_its_minion_killed_and_restarted() {
    let conf = MasterConf::new("");
    let pidfile = conf.dir.path().join("minion.pid");
    let marker = conf.dir.path().join("after-restart");
    conf.serve_base_files(&[(
        "restart.sls",
        &format!(
            "kill_minion:\n  cmd.run:\n    - name: kill -9 $(cat {pid})\n\
             after_restart:\n  cmd.run:\n    - name: sleep 2; echo survived > {marker}; echo survived\n\
             \x20   - require:\n      - cmd: kill_minion\n",
            pid = pidfile.display(),
            marker = marker.display()
        ),
    )]);
    let _master = conf.start();
    conf.write_minion_conf("web1", "");
    let mut minion = conf.start_minion(&[]);
    conf.accept_and_ping("web1");
    let pid = minion.pid().expect("minion pid");
    std::fs::write(&pidfile, pid.to_string()).expect("pid file");

    let cli = conf.spawn_cli(
        "brine",
        &["--out", "json", "web1", "state.apply", "restart"],
    );
    // The state kills the minion; a service manager would start it again.
    wait_for(
        "the minion killed by its own state",
        Duration::from_secs(20),
        || !alive(pid),
    );
    minion.stop();
    let _restarted = conf.start_minion(&[]);
    let out = cli.wait_with_output().expect("brine state.apply");
    let ret = json_out(&out);
    let states = ret["web1"].as_object().unwrap_or_else(|| {
        panic!(
            "no state return: {ret} {} / {}",
            String::from_utf8_lossy(&out.stderr),
            conf.minion_log()
        )
    });
    assert_eq!(states.len(), 2, "{ret}");
    for (name, state) in states {
        assert_eq!(state["result"], true, "{name}: {state}");
    }
    let after = states
        .iter()
        .find(|(k, _)| k.contains("after_restart"))
        .map(|(_, v)| v)
        .expect("after_restart ran");
    assert_eq!(after["changes"]["stdout"], "survived", "{after}");
    assert!(marker.exists());
    assert!(out.status.success(), "{ret}");
    // The restarted minion answers, and the job is in the job cache once.
    let ping = conf.cli("brine", &["--out", "json", "web1", "test.ping"]);
    assert_eq!(json_out(&ping)["web1"], true);
}

/// `saltutil.running` lists a job run apart once, under its own process's
/// pid (as Salt's proc file names the job's process), until it is done.
#[test]
fn a_job_run_apart_is_listed_with_its_own_pid_and_is_gone_when_done() {
    let conf = MasterConf::new("");
    let _master = conf.start();
    conf.write_minion_conf("web1", "");
    let minion = conf.start_minion(&[]);
    conf.accept_and_ping("web1");
    let daemon_pid = i64::from(minion.pid().expect("pid"));
    let jid = conf.publish_async("web1", &["cmd.run", "sleep 3"]);
    let mut listed = serde_json::Value::Null;
    wait_for("the job listed", Duration::from_secs(10), || {
        let out = conf.cli("brine", &["--out", "json", "web1", "saltutil.running"]);
        listed = json_out(&out)["web1"].clone();
        listed.as_array().is_some_and(|l| !l.is_empty())
    });
    let jobs = listed.as_array().expect("a list");
    assert_eq!(jobs.len(), 1, "listed once: {listed}");
    assert_eq!(jobs[0]["jid"], jid.as_str());
    let pid = jobs[0]["pid"].as_i64().expect("pid");
    assert_ne!(pid, daemon_pid, "the job runs in a process of its own");
    wait_for("the job's return", Duration::from_secs(15), || {
        let out = conf.cli("brine-run", &["--out", "json", "jobs.lookup_jid", &jid]);
        json_out(&out)["web1"] == ""
    });
    // The process sends its return, then exits: on a loaded machine the
    // exit may come a moment after the return is stored.
    wait_for("the job's process to end", Duration::from_secs(10), || {
        !alive(pid as u32)
    });
}

/// The job's process says nothing to the master while its command runs:
/// longer than `unauthenticated_timeout`, the master cuts that quiet
/// connection, and the return still arrives (the link reconnects).
#[test]
fn a_quiet_job_longer_than_the_unauthenticated_timeout_returns() {
    let conf = MasterConf::new("unauthenticated_timeout: 1\n");
    let _master = conf.start();
    conf.write_minion_conf("web1", "");
    let _minion = conf.start_minion(&[]);
    conf.accept_and_ping("web1");
    let out = conf.cli(
        "brine",
        &[
            "--out",
            "json",
            "-t",
            "20",
            "web1",
            "cmd.run",
            "sleep 3; echo done",
            "python_shell=True",
        ],
    );
    assert_eq!(json_out(&out)["web1"], "done", "{}", conf.minion_log());
}

/// A scheduled run of a function that changes the host runs apart too:
/// listed under its schedule's name (so `maxrunning` counts it) and its
/// own pid, its return named by the schedule; `return_job: False` sends
/// none.
#[test]
fn scheduled_runs_apart_keep_maxrunning_and_return_job() {
    let conf = MasterConf::new("");
    let _master = conf.start();
    conf.write_minion_conf(
        "web1",
        "schedule:\n  \
           slowcmd:\n    function: cmd.run\n    args: ['sleep 2']\n    seconds: 1\n    maxrunning: 1\n  \
           quietcmd:\n    function: cmd.run\n    args: ['echo quiet']\n    seconds: 1\n    return_job: false\n",
    );
    let minion = conf.start_minion(&[]);
    conf.accept_and_ping("web1");
    let daemon_pid = i64::from(minion.pid().expect("pid"));
    let (mut most, mut pids) = (0, std::collections::HashSet::new());
    let deadline = Instant::now() + Duration::from_secs(6);
    while Instant::now() < deadline {
        let (running, _) = conf.call("web1", &["saltutil.running"]);
        let slow: Vec<_> = running
            .as_array()
            .into_iter()
            .flatten()
            .filter(|j| j["schedule"] == "slowcmd")
            .collect();
        most = most.max(slow.len());
        pids.extend(slow.iter().filter_map(|j| j["pid"].as_i64()));
        std::thread::sleep(Duration::from_millis(300));
    }
    let log = conf.minion_log();
    assert_eq!(most, 1, "runs of slowcmd under way at once\n{log}");
    assert!(!pids.is_empty() && !pids.contains(&daemon_pid), "{pids:?}");
    let mut listed = serde_json::Value::Null;
    wait_for("slowcmd's returns", Duration::from_secs(10), || {
        let out = conf.cli("brine-run", &["--out", "json", "jobs.list_jobs"]);
        listed = json_out(&out);
        listed
            .as_object()
            .into_iter()
            .flatten()
            .any(|(_, j)| j["Arguments"] == serde_json::json!(["sleep 2"]))
    });
    let quiet = listed
        .as_object()
        .into_iter()
        .flatten()
        .filter(|(_, j)| j["Arguments"] == serde_json::json!(["echo quiet"]))
        .count();
    assert_eq!(
        quiet, 0,
        "a return_job: False run's return reached the master"
    );
    assert!(
        log.matches("Running scheduled job: quietcmd").count() >= 2,
        "{log}"
    );
}
