//! The minion's own bus and `caller.*` reactions, with a real brine-master
//! and brine-minions on 127.0.0.1, replaying what a real Salt 3007.8 fleet
//! answered (`tests/recorded/fleet/bus.salt.json` and
//! `caller_local.salt.json`, see the README there):
//!
//! - `brine-call schedule.*` on a host whose minion daemon runs changes
//!   the daemon's schedule (the master's `schedule.list` shows it),
//!   `schedule.run_job` runs the job in the daemon (its return on the
//!   master's bus), `event.fire` reaches the daemon's bus; with the daemon
//!   stopped, nothing takes them: an empty list, a failed add, False.
//! - `caller.*` reactions on a master whose config says `file_client:
//!   local` run the function on the master's host (both argument
//!   syntaxes); without it they do nothing, and the log says why.

use brine_tests::bin;
use brine_tests::daemon::{json_docs, MasterConf, MasterProc};
use brine_tests::recorded;
use serde_json::Value as Json;
use std::path::Path;
use std::process::{Command, Output};
use std::time::{Duration, Instant};

/// The recorded reactor SLS files written under `tmp`, and the master
/// config's `reactor:` naming them.
fn reactor_conf(rec: &Json, tmp: &Path) -> String {
    for name in ["caller", "legacy"] {
        let rel = format!("srv/reactor/{name}.sls");
        let p = tmp.join(&rel);
        std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
        std::fs::write(&p, recorded::tree(rec, &format!("@TMP@/{rel}"), tmp)).expect("write");
    }
    format!(
        "reactor:\n- my/caller/*:\n  - {0}/srv/reactor/caller.sls\n\
         - my/legacy/*:\n  - {0}/srv/reactor/legacy.sls\n",
        tmp.display()
    )
}

/// Append `extra` to the master's config.
fn add_to_master(conf: &MasterConf, extra: &str) {
    let path = conf.conf_dir().join("master");
    let mut text = std::fs::read_to_string(&path).expect("master config");
    text.push_str(extra);
    std::fs::write(&path, text).expect("master config");
}

/// Wait until the master's reactor has subscribed to the bus.
fn reactor_listening(conf: &MasterConf) {
    let deadline = Instant::now() + Duration::from_secs(20);
    while !conf.log().contains("reactor listening") {
        assert!(Instant::now() < deadline, "no reactor:\n{}", conf.log());
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Run a recorded `sh -c` step.
fn sh(argv: &[String]) -> Output {
    Command::new("sh").args(&argv[1..]).output().expect("sh")
}

/// Wait until `sh`'s output is what Salt's was (the reactor runs apart
/// from the event that started it), or `within` has passed.
fn sh_until(argv: &[String], want: &str, within: Duration) -> Output {
    let deadline = Instant::now() + within;
    loop {
        let out = sh(argv);
        if String::from_utf8_lossy(&out.stdout) == want || Instant::now() > deadline {
            return out;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[test]
fn brine_call_reaches_the_running_daemon_and_caller_reactions_refuse_a_remote_master() {
    let rec = recorded::load("fleet/bus.salt.json");
    let conf = MasterConf::new("");
    let tmp = conf.dir.path().to_path_buf();
    let tmp_s = tmp.display().to_string();
    add_to_master(&conf, &reactor_conf(&rec, &tmp));
    let _master = conf.start();
    reactor_listening(&conf);
    let mut minions: Vec<MasterProc> = ["web1", "web2"]
        .iter()
        .map(|id| recorded::start_minion(&conf, &rec, id))
        .collect();
    for id in ["web1", "web2"] {
        conf.accept_and_ping(id);
    }
    let listener = conf.listen_events();

    let mut failures = Vec::new();
    let mut checked = 0;
    for (i, step) in rec["steps"].as_array().expect("steps").iter().enumerate() {
        let label = step["label"].as_str().unwrap_or_default();
        let argv = recorded::argv(step, &tmp);
        if label == "down-schedule-list" {
            // The recording stopped web1's daemon here.
            minions[0].stop();
        }
        let want_text = step["stdout"]
            .as_str()
            .unwrap_or_default()
            .replace("@TMP@", &tmp_s);
        let out = match argv.first().map(String::as_str) {
            Some("salt-run") => conf.cli(
                "brine-run",
                &argv[1..].iter().map(String::as_str).collect::<Vec<_>>(),
            ),
            Some("salt") => conf.cli(
                "brine",
                &argv[1..].iter().map(String::as_str).collect::<Vec<_>>(),
            ),
            Some("salt-call") => Command::new(bin("brine-call"))
                .arg("-c")
                .arg(tmp.join("etc-web1"))
                .args(&argv[1..])
                .output()
                .expect("brine-call"),
            // Salt waited a minute before looking; a little here, as
            // the files must stay absent.
            Some("sh") if label == "ls-caller-files" => {
                std::thread::sleep(Duration::from_secs(3));
                sh(&argv)
            }
            Some("sh") => sh(&argv),
            _ => continue,
        };
        if label == "schedule-run-job1" {
            // The daemon runs it at its scheduler's next tick (the
            // recording waited 8 s here).
            std::thread::sleep(Duration::from_millis(2500));
        }
        checked += 1;
        let got_text = String::from_utf8_lossy(&out.stdout).to_string();
        let stderr = String::from_utf8_lossy(&out.stderr).to_string();
        if argv.iter().any(|a| a == "json") {
            let want = json_docs(want_text.as_bytes()).unwrap_or(Json::Null);
            let got = json_docs(got_text.as_bytes()).unwrap_or(Json::Null);
            if got != want {
                failures.push(format!(
                    "[{i}] {label}:\n  salt:  {want}\n  brine: {got}\n  stderr: {stderr}"
                ));
            }
        } else if got_text != want_text {
            failures.push(format!(
                "[{i}] {label}:\n--- salt\n{want_text}--- brine\n{got_text}{stderr}"
            ));
        }
        let (want_code, got_code) = (
            step["code"].as_i64().unwrap_or(0),
            i64::from(out.status.code().unwrap_or(-1)),
        );
        if got_code != want_code {
            failures.push(format!(
                "[{i}] {label}: exit code {got_code}, salt's {want_code}; {stderr}"
            ));
        }
    }
    // The reactions did nothing (above), and the master's log says why.
    checked += 1;
    let log = conf.log();
    for fun in ["file.touch", "cmd.run"] {
        if !log
            .lines()
            .any(|l| l.contains(&format!("caller {fun}")) && l.contains("join master 'salt'"))
        {
            failures.push(format!("no log line refusing caller {fun}"));
        }
    }
    // The job run through brine-call ran in the daemon: its return on the
    // master's bus, as the scheduler's.
    std::thread::sleep(Duration::from_millis(500));
    let events = listener.finish();
    checked += 1;
    let ran = events.lines().any(|l| {
        l.split_once('\t')
            .and_then(|(_, d)| serde_json::from_str::<Json>(d).ok())
            .is_some_and(|d| {
                d["id"] == "web1"
                    && d["schedule"] == "job1"
                    && d["return"] == "from-job1"
                    && d["fun"] == "test.echo"
            })
    });
    if !ran {
        failures.push(format!("no return of job1 from web1 on the bus:\n{events}"));
    }
    checked += 1;
    if !events.lines().any(|l| l.starts_with("my/firemaster/tag\t")) {
        failures.push("event.fire_master's event not on the bus".into());
    }
    eprintln!("{checked} steps checked");
    assert!(checked > 20, "only {checked} steps checked");
    assert!(
        failures.is_empty(),
        "{} of {checked} steps differ from Salt:\n{}\nlogs:\n{}{}",
        failures.len(),
        failures.join("\n"),
        log,
        std::fs::read_to_string(tmp.join("web1.log")).unwrap_or_default()
    );
    for m in &mut minions {
        m.stop();
    }
}

#[test]
fn caller_reactions_run_on_a_masterless_masters_host() {
    let rec = recorded::load("fleet/caller_local.salt.json");
    let conf = MasterConf::new("file_client: local\n");
    let tmp = conf.dir.path().to_path_buf();
    add_to_master(&conf, &reactor_conf(&rec, &tmp));
    let _master = conf.start();
    reactor_listening(&conf);
    let mut failures = Vec::new();
    let mut checked = 0;
    for (i, step) in rec["steps"].as_array().expect("steps").iter().enumerate() {
        let label = step["label"].as_str().unwrap_or_default();
        let argv = recorded::argv(step, &tmp);
        let want = step["stdout"].as_str().unwrap_or_default();
        let out = match argv.first().map(String::as_str) {
            Some("salt-run") => conf.cli(
                "brine-run",
                &argv[1..].iter().map(String::as_str).collect::<Vec<_>>(),
            ),
            Some("sh") => sh_until(&argv, want, Duration::from_secs(20)),
            _ => continue,
        };
        checked += 1;
        let got = String::from_utf8_lossy(&out.stdout);
        if got != want || out.status.code() != step["code"].as_i64().map(|c| c as i32) {
            failures.push(format!("[{i}] {label}:\n--- salt\n{want}--- brine\n{got}"));
        }
    }
    assert_eq!(checked, 3);
    assert!(
        failures.is_empty(),
        "{}\n{}",
        failures.join("\n"),
        conf.log()
    );
}
