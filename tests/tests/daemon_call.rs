//! `brine-call` through the master (salt-call on a minion host) with a
//! real brine-master and three brine-minions on 127.0.0.1, replaying what
//! a real Salt 3007.8 fleet answered (`tests/recorded/fleet/call.salt.json`,
//! see its README): `test.ping`, `pillar.items` (the master's pillar),
//! `state.apply` of a state whose template reads `salt['mine.get']` (the
//! master's mine store), `mine.get`, `event.send` (seen on the master's
//! bus), `grains.item`, `cp.get_file` from the master's file server, a
//! missing function, `--retcode-passthrough`; then the master stopped:
//! salt-call's sign-in error, and `--local` still answering. Every salt-call
//! return reaches the master's bus as `salt/job/<jid>/ret/web1`.

use brine_tests::bin;
use brine_tests::daemon::{json_docs, MasterConf, MasterProc};
use brine_tests::recorded;
use serde_json::Value as Json;
use std::process::Command;
use std::time::{Duration, Instant};

/// A state run's times differ from run to run.
fn without_times(mut j: Json) -> Json {
    for ret in j.as_object_mut().into_iter().flat_map(|m| m.values_mut()) {
        for state in ret.as_object_mut().into_iter().flat_map(|m| m.values_mut()) {
            if let Some(s) = state.as_object_mut() {
                s.remove("start_time");
                s.remove("duration");
            }
        }
    }
    j
}

#[test]
fn brine_call_through_the_master_answers_as_salt_call() {
    let rec = recorded::load("fleet/call.salt.json");
    let conf = MasterConf::new("");
    let tmp = conf.dir.path().to_path_buf();
    let tmp_s = tmp.display().to_string();
    for rel in [
        "srv/salt/pool.sls",
        "srv/salt/somefile",
        "srv/pillar/top.sls",
        "srv/pillar/web.sls",
    ] {
        let p = tmp.join(rel);
        std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
        std::fs::write(&p, recorded::tree(&rec, &format!("@TMP@/{rel}"), &tmp)).expect("write");
    }
    let master_conf = conf.conf_dir().join("master");
    let mut text = std::fs::read_to_string(&master_conf).expect("master config");
    text.push_str(&format!(
        "file_roots:\n  base: [{0}/srv/salt]\npillar_roots:\n  base: [{0}/srv/pillar]\n",
        tmp.display()
    ));
    std::fs::write(&master_conf, text).expect("master config");
    let mut master = conf.start();
    let mut minions: Vec<MasterProc> = ["web1", "web2", "db1"]
        .iter()
        .map(|id| recorded::start_minion(&conf, &rec, id))
        .collect();
    for id in ["web1", "web2", "db1"] {
        conf.accept_and_ping(id);
    }
    // Every event the master's bus carries while brine-call runs.
    let listener = conf.listen_events();

    let mut failures = Vec::new();
    let mut checked = 0;
    let mut calls = Vec::new();
    let steps = rec["steps"].as_array().expect("steps");
    for (i, step) in steps.iter().enumerate() {
        let label = step["label"].as_str().unwrap_or_default();
        let argv: Vec<String> = step["argv"]
            .as_array()
            .expect("argv")
            .iter()
            .map(|a| a.as_str().unwrap_or_default().replace("@TMP@", &tmp_s))
            .collect();
        if label == "ping-master-down-json" {
            // The master goes away; Salt gave up after auth_timeout (5 s)
            // times auth_tries (7): made 2 s × 1 here.
            master.stop();
            let web1 = tmp.join("etc-web1/minion");
            let mut t = std::fs::read_to_string(&web1).expect("web1 config");
            t.push_str("auth_timeout: 2\nauth_tries: 1\n");
            std::fs::write(&web1, t).expect("web1 config");
        }
        let out = match argv.first().map(String::as_str) {
            Some("salt") => conf.cli(
                "brine",
                &argv[1..].iter().map(String::as_str).collect::<Vec<_>>(),
            ),
            Some("salt-call") => {
                let started = Instant::now();
                let o = Command::new(bin("brine-call"))
                    .arg("-c")
                    .arg(tmp.join("etc-web1"))
                    .args(&argv[1..])
                    .output()
                    .expect("brine-call");
                if label.starts_with("ping-master-down") && label != "ping-master-down-local" {
                    assert!(
                        started.elapsed() < Duration::from_secs(15),
                        "{label} waited {:?}",
                        started.elapsed()
                    );
                }
                calls.push((label.to_string(), argv[1..].to_vec()));
                o
            }
            Some("cat") => {
                checked += 1;
                if let Some(d) = recorded::cat_differs(step, &argv) {
                    failures.push(format!("[{i}] {label}:\n{d}"));
                }
                continue;
            }
            _ => continue,
        };
        checked += 1;
        let want_text = step["stdout"]
            .as_str()
            .unwrap_or_default()
            .replace("@TMP@", &tmp_s);
        let got_text = String::from_utf8_lossy(&out.stdout).to_string();
        let stderr = String::from_utf8_lossy(&out.stderr).to_string();
        if argv.iter().any(|a| a == "json") {
            let want = without_times(json_docs(want_text.as_bytes()).unwrap_or(Json::Null));
            let got = without_times(json_docs(got_text.as_bytes()).unwrap_or(Json::Null));
            if got != want {
                failures.push(format!(
                    "[{i}] {label}:\n  salt:  {want}\n  brine: {got}\n  stderr: {stderr}"
                ));
            }
        } else if !label.starts_with("state-apply") && got_text != want_text {
            failures.push(format!(
                "[{i}] {label}:\n--- salt\n{want_text}--- brine\n{got_text}{stderr}"
            ));
        }
        // Salt's last stderr line (its DeprecationWarnings aside).
        let want_err = step["stderr"]
            .as_str()
            .unwrap_or_default()
            .lines()
            .filter(|l| l.starts_with("Unable to sign_in"))
            .collect::<Vec<_>>();
        for w in want_err {
            if !stderr.contains(w) {
                failures.push(format!("[{i}] {label}: stderr {stderr:?} lacks {w:?}"));
            }
        }
        let want_code = step["code"].as_i64().unwrap_or(0);
        let got_code = i64::from(out.status.code().unwrap_or(-1));
        // Salt exits 255 for a missing function (its loader's SystemExit);
        // brine-call exits 1, as for every other failed call.
        let code_ok = got_code == want_code || (label == "nosuch-function" && got_code == 1);
        if !code_ok {
            failures.push(format!(
                "[{i}] {label}: exit code {got_code}, salt's {want_code}; {stderr}"
            ));
        }
    }
    let events = listener.finish();
    // Each call that reached the master (before it stopped) left its return
    // on the bus, and event.send its event.
    let rets: Vec<Json> = events
        .lines()
        .filter_map(|l| l.split_once('\t').map(|(_, d)| d).or(Some(l)))
        .filter_map(|d| serde_json::from_str::<Json>(d).ok())
        .collect();
    let fired = |tag: &str| events.lines().any(|l| l.starts_with(tag));
    for t in ["my/call/tag\t", "my/call/tag2\t"] {
        checked += 1;
        if !fired(t) {
            failures.push(format!("event {t:?} not on the bus:\n{events}"));
        }
    }
    let ret_funs: Vec<&str> = rets
        .iter()
        .filter(|d| d["id"] == "web1" && d["cmd"] == "_return")
        .filter_map(|d| d["fun"].as_str())
        .collect();
    for (label, argv) in &calls {
        if label.starts_with("ping-master-down") {
            continue;
        }
        let fun = argv
            .iter()
            .find(|a| !a.starts_with('-') && a.contains('.') && *a != "json")
            .cloned()
            .unwrap_or_default();
        checked += 1;
        if !ret_funs.contains(&fun.as_str()) {
            failures.push(format!(
                "{label}: no salt/job/<jid>/ret/web1 for {fun} on the bus: {ret_funs:?}"
            ));
        }
    }
    let logs = || {
        let mut s = conf.log();
        s.push_str(&std::fs::read_to_string(tmp.join("web1.log")).unwrap_or_default());
        s
    };
    eprintln!("{checked} steps checked");
    assert!(checked > 20, "only {checked} steps checked");
    assert!(
        failures.is_empty(),
        "{} of {checked} steps differ from Salt:\n{}\nlogs:\n{}",
        failures.len(),
        failures.join("\n"),
        logs()
    );
    for m in &mut minions {
        m.stop();
    }
}
