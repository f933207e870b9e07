//! The scheduler through a real brine-master and brine-minion on
//! 127.0.0.1, replaying what a real Salt 3007.8 pair answered for the same
//! steps (`tests/recorded/fleet/schedule.salt.json`, see its README):
//! `schedule.list` in its forms, `add`/`modify`/`delete`/`purge`,
//! `enable`/`disable` (a job and the whole schedule), `run_job`, `save`,
//! `reload`, `is_enabled`, `show_next_fire_time`, `job_status`,
//! `build_schedule_item`, `_schedule.conf` after each change, a job
//! running every 5 s whose returns reach the master's job cache
//! (`jobs.list_jobs`, `jobs.lookup_jid`, `jobs.list_job`), and a pillar
//! schedule picked up by a pillar refresh. Every `--out json` answer and
//! every text answer must equal Salt's, times of day aside.

use brine_tests::daemon::{json_docs, MasterConf};
use brine_tests::recorded;
use serde_json::Value as Json;
use std::time::Duration;

/// Times of day (`2026-11-27T21:35:43`) and job ids differ from run to
/// run: made placeholders.
fn normalized(j: &Json) -> Json {
    let time = regex::Regex::new(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$").expect("re");
    match j {
        Json::String(s) if time.is_match(s) => Json::String("<time>".into()),
        Json::Array(a) => Json::Array(a.iter().map(normalized).collect()),
        Json::Object(o) => {
            Json::Object(o.iter().map(|(k, v)| (k.clone(), normalized(v))).collect())
        }
        other => other.clone(),
    }
}

/// Steps whose answer is not Salt's on purpose (see the README's notes).
const DIFFERENT: &[(&str, &str)] = &[
    // Salt's answer is a Python traceback (KeyError: 'function').
    ("add-no-function", "a traceback"),
];

#[test]
fn the_schedule_answers_as_salts() {
    let rec = recorded::load("fleet/schedule.salt.json");
    let conf = MasterConf::new("");
    let tmp = conf.dir.path().to_path_buf();
    let tmp_s = tmp.display().to_string();
    for (key, rel) in [
        ("@TMP@/srv/pillar/top.sls", "srv/pillar/top.sls"),
        ("@TMP@/srv/pillar/sched.sls", "srv/pillar/sched.sls"),
    ] {
        let p = tmp.join(rel);
        std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
        let text = if rel.ends_with("sched.sls") {
            "{}\n".to_string()
        } else {
            recorded::tree(&rec, key, &tmp)
        };
        std::fs::write(&p, text).expect("write");
    }
    let master_conf = conf.conf_dir().join("master");
    let mut text = std::fs::read_to_string(&master_conf).expect("master config");
    text.push_str(&format!(
        "pillar_roots:\n  base: [{0}/srv/pillar]\n",
        tmp.display()
    ));
    std::fs::write(&master_conf, text).expect("master config");
    let mut master = conf.start();
    let mut minion = recorded::start_minion(&conf, &rec, "web1");
    conf.accept_and_ping("web1");
    // The scheduler starts once the minion has joined, and saves.
    std::thread::sleep(Duration::from_millis(1500));

    let mut failures = Vec::new();
    let mut checked = 0;
    let steps = rec["steps"].as_array().expect("steps");
    let mut tick_jid = String::new();
    let start = regex::Regex::new(r"\d{4}, \w{3} \d\d \d\d:\d\d:\d\d\.\d+").expect("re");
    let time = regex::Regex::new(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d").expect("re");
    for (i, step) in steps.iter().enumerate() {
        let label = step["label"].as_str().unwrap_or_default();
        if label.starts_with("nocron-") || DIFFERENT.iter().any(|(l, _)| *l == label) {
            continue;
        }
        let argv: Vec<String> = step["argv"]
            .as_array()
            .expect("argv")
            .iter()
            .map(|a| {
                a.as_str()
                    .unwrap_or_default()
                    .replace("@TMP@", &tmp_s)
                    .replace(rec["tick_jid"].as_str().unwrap_or("@none@"), &tick_jid)
            })
            .collect();
        // What happened between steps in the recording happens here too.
        if label == "delete-tickjob" {
            std::thread::sleep(Duration::from_secs(12));
        }
        if label == "refresh-pillar" {
            std::fs::write(
                tmp.join("srv/pillar/sched.sls"),
                "schedule:\n  pillar_job:\n    function: test.ping\n    minutes: 10\n",
            )
            .expect("pillar");
        }
        if label.starts_with("next-fire") || label.starts_with("job-status") {
            // Salt's answer comes after an evaluation of the schedule.
            std::thread::sleep(Duration::from_millis(1100));
        }
        let (tool, args) = match argv.first().map(String::as_str) {
            Some("salt") => ("brine", &argv[1..]),
            Some("salt-run") => ("brine-run", &argv[1..]),
            Some("cat") => {
                checked += 1;
                if let Some(d) = recorded::cat_differs(step, &argv) {
                    failures.push(format!("[{i}] {label}:\n{d}"));
                }
                continue;
            }
            _ => continue,
        };
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = conf.cli(tool, &args);
        if label == "refresh-pillar" || label == "add-keysjob" {
            // Salt's next step came a second later: the pillar's job and
            // keysjob (run_on_start) were evaluated before it.
            std::thread::sleep(Duration::from_millis(1100));
        }
        let want_text = step["stdout"]
            .as_str()
            .unwrap_or_default()
            .replace("@TMP@", &tmp_s);
        if label == "list-jobs-json" {
            // The tick job's runs are in the job cache as Salt lists them.
            let got = json_docs(&out.stdout).unwrap_or(Json::Null);
            let ticks: Vec<(&String, &Json)> = got
                .as_object()
                .into_iter()
                .flatten()
                .filter(|(_, j)| {
                    j["Function"] == "test.echo" && j["Arguments"] == serde_json::json!(["tick"])
                })
                .collect();
            checked += 1;
            if ticks.len() < 2 {
                failures.push(format!("[{i}] {label}: tick runs listed: {}", ticks.len()));
            }
            let want = serde_json::json!({"Function": "test.echo", "Arguments": ["tick"],
                "Target": "web1", "Target-type": "glob", "User": "root"});
            for (jid, j) in &ticks {
                let mut j = (*j).clone();
                j.as_object_mut().map(|o| o.remove("StartTime"));
                if j != want {
                    failures.push(format!("[{i}] {label}: {jid}: {j}"));
                }
            }
            tick_jid = ticks.last().map(|(j, _)| (*j).clone()).unwrap_or_default();
            continue;
        }
        if label.contains("-tick-") {
            let want = want_text.replace(rec["tick_jid"].as_str().unwrap_or("@none@"), &tick_jid);
            let (g, w) = (
                start
                    .replace_all(&String::from_utf8_lossy(&out.stdout), "<start>")
                    .to_string(),
                start.replace_all(&want, "<start>").to_string(),
            );
            checked += 1;
            if g != w {
                failures.push(format!("[{i}] {label}:\n--- salt\n{w}--- brine\n{g}"));
            }
            continue;
        }
        checked += 1;
        if args.starts_with(&["--out", "json"]) {
            let want = normalized(&json_docs(want_text.as_bytes()).expect("recorded json"));
            match json_docs(&out.stdout) {
                Ok(got) if normalized(&got) == want => {}
                Ok(got) => {
                    failures.push(format!("[{i}] {label}:\n  salt:  {want}\n  brine: {got}"))
                }
                Err(e) => failures.push(format!(
                    "[{i}] {label}: no json ({e}): {}{}",
                    String::from_utf8_lossy(&out.stdout),
                    String::from_utf8_lossy(&out.stderr)
                )),
            }
        } else {
            let got = String::from_utf8_lossy(&out.stdout).to_string();
            if time.replace_all(&got, "<time>") != time.replace_all(&want_text, "<time>") {
                failures.push(format!(
                    "[{i}] {label}:\n--- salt\n{want_text}--- brine\n{got}"
                ));
            }
        }
        let want_code = step["code"].as_i64().unwrap_or(0);
        if i64::from(out.status.code().unwrap_or(-1)) != want_code {
            failures.push(format!(
                "[{i}] {label}: exit code {:?}, salt's {want_code}",
                out.status.code()
            ));
        }
    }
    eprintln!("{checked} steps checked");
    let log = std::fs::read_to_string(tmp.join("web1.log")).unwrap_or_default();
    assert!(checked > 60, "only {checked} steps checked");
    assert!(
        failures.is_empty(),
        "{} of {checked} steps differ from Salt:\n{}\nminion log:\n{log}",
        failures.len(),
        failures.join("\n"),
    );
    minion.stop();
    master.stop();
}

/// What the recording cannot show in 20 s: a `cron` job (croniter's six
/// fields, seconds last) runs at its times; `maxrunning: 1` keeps a
/// second run of a slow job from starting while the first runs; a job
/// with `return_job: False` runs (its proc file is seen) but sends no
/// return; `splay` delays runs without stopping them.
#[test]
fn cron_maxrunning_return_job_and_splay_run_on_a_real_minion() {
    let conf = MasterConf::new("");
    let mut master = conf.start();
    conf.write_minion_conf(
        "web1",
        "schedule:\n  \
           every2s:\n    function: test.echo\n    args: [cron]\n    cron: '* * * * * */2'\n  \
           slow:\n    function: test.sleep\n    args: [4]\n    seconds: 1\n    maxrunning: 1\n  \
           quiet:\n    function: test.echo\n    args: [quiet]\n    seconds: 1\n    return_job: false\n  \
           splayed:\n    function: test.echo\n    args: [splayed]\n    seconds: 1\n    splay: 2\n",
    );
    let mut minion = conf.start_minion(&[]);
    conf.accept_and_ping("web1");
    // While `slow` sleeps, only one run of it is under way.
    let mut most_slow = 0;
    let deadline = std::time::Instant::now() + Duration::from_secs(9);
    while std::time::Instant::now() < deadline {
        let (running, _) = conf.call("web1", &["saltutil.running"]);
        let slow = running
            .as_array()
            .into_iter()
            .flatten()
            .filter(|j| j["schedule"] == "slow")
            .count();
        most_slow = most_slow.max(slow);
        std::thread::sleep(Duration::from_millis(400));
    }
    let out = conf.cli("brine-run", &["--out", "json", "jobs.list_jobs"]);
    let jobs = json_docs(&out.stdout).unwrap_or(Json::Null);
    let runs = |arg: &str| {
        jobs.as_object()
            .into_iter()
            .flatten()
            .filter(|(_, j)| j["Arguments"] == serde_json::json!([arg]))
            .count()
    };
    let slow_runs = jobs
        .as_object()
        .into_iter()
        .flatten()
        .filter(|(_, j)| j["Function"] == "test.sleep")
        .count();
    let log = conf.minion_log();
    assert_eq!(most_slow, 1, "runs of slow under way at once\n{log}");
    // Each run sleeps 4 s: at most 3 start in ~10 s, the ones done listed.
    let slow_started = log.matches("Running scheduled job: slow").count();
    assert!(
        (2..=3).contains(&slow_started),
        "slow started {slow_started} times in ~10 s\n{log}"
    );
    assert!(
        (1..=slow_started).contains(&slow_runs),
        "slow listed {slow_runs} times\n{log}"
    );
    assert!(
        runs("cron") >= 3,
        "the cron job ran {} times in ~10 s\n{log}",
        runs("cron")
    );
    assert!(
        runs("splayed") >= 2,
        "the splayed job ran {} times\n{log}",
        runs("splayed")
    );
    assert_eq!(
        runs("quiet"),
        0,
        "a return_job: False job's returns reached the master"
    );
    assert!(
        log.matches("Running scheduled job: quiet").count() >= 3,
        "quiet did not run\n{log}"
    );
    minion.stop();
    master.stop();
}
