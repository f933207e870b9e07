//! git_pillar through a real brine-master and brine-minion on 127.0.0.1,
//! replaying what Salt 3007.8's pair (GitPython provider) answered
//! (`tests/recorded/trees/git_pillar.salt.json`, see its README): real
//! git repositories built by the recorded scripts and five master
//! configurations in turn — two branches of one repository as two
//! pillarenvs with `env`, `root`, `mountpoint` and `name`; plain branches;
//! `__env__`; `__env__` with `base`; `__env__` with `all_saltenvs` — each
//! answering `git_pillar.update` (all, by branch, by name, none matching,
//! after a commit) and `pillar.items` / `pillar.get` with and without
//! `pillarenv` as Salt's did; and two configurations Salt refuses to start
//! with (`base` on a named branch, an unknown parameter), with its words.

use brine_tests::daemon::{MasterConf, MasterProc};
use brine_tests::replay::{self, BASE_KEYS};
use brine_tests::{bin, masterless, recorded};
use serde_json::Value as Json;
use std::process::Command;
use std::time::{Duration, Instant};

/// What a traceback says after "Exception occurred in runner X:" is
/// Python's; both sides are cut there.
fn cut_traceback(_: &str, v: &mut Json) {
    if let Json::String(s) = v {
        if let Some(rest) = s.strip_prefix("Exception occurred in runner ") {
            if let Some(i) = rest.find(':') {
                let keep = "Exception occurred in runner ".len() + i + 1;
                s.truncate(keep);
            }
        }
    }
}

/// `brine-master` started on a configuration Salt refuses: whether it
/// exits 1 saying Salt's first line.
fn refused(conf: &MasterConf, i: usize, step: &Json, tmp_s: &str) -> Option<String> {
    let mut child = Command::new(bin("brine-master"))
        .arg("-c")
        .arg(conf.conf_dir())
        .stderr(std::process::Stdio::piped())
        .stdout(std::process::Stdio::null())
        .spawn()
        .expect("brine-master runs");
    let deadline = Instant::now() + Duration::from_secs(20);
    let status = loop {
        if let Some(s) = child.try_wait().expect("wait") {
            break Some(s);
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let mut err = String::new();
    if let Some(mut e) = child.stderr.take() {
        use std::io::Read;
        let _ = e.read_to_string(&mut err);
    }
    let want = step["stderr"]
        .as_str()
        .unwrap_or_default()
        .replace("@TMP@", tmp_s);
    let want_line = want.lines().next().unwrap_or_default();
    let label = step["label"].as_str().unwrap_or_default();
    (status.and_then(|s| s.code()) != Some(1) || !err.contains(want_line)).then(|| {
        format!(
            "[{i} {label}] brine-master {status:?}, Salt's 1 with {want_line:?}; stderr:\n{err}"
        )
    })
}

#[test]
fn git_pillar_answers_as_salts() {
    let rec = recorded::load("trees/git_pillar.salt.json");
    let conf = MasterConf::new("");
    let own = std::fs::read_to_string(conf.conf_dir().join("master")).expect("master config");
    let tmp = conf.dir.path().to_path_buf();
    let tmp_s = tmp.display().to_string();
    masterless::write_tree(&rec, &tmp);
    let base = replay::only(&replay::recorded_master(&rec, &tmp), BASE_KEYS);
    let git_env = replay::git_env(&rec);
    let notes = rec["notes"].as_array().cloned().unwrap_or_default();
    let steps = rec["steps"].as_array().expect("steps");
    let mut master: Option<MasterProc> = None;
    let mut minion: Option<MasterProc> = None;
    let mut current = base.clone();
    let mut failures = Vec::new();
    let mut checked = 0;
    for (i, step) in steps.iter().enumerate() {
        let label = step["label"].as_str().unwrap_or_default();
        for note in notes
            .iter()
            .filter(|n| n["after_step"].as_u64() == Some(i as u64))
        {
            let text = note["note"]
                .as_str()
                .unwrap_or_default()
                .replace("@TMP@", &tmp_s);
            if let Some((_, list)) = text
                .strip_prefix("master config ext_pillar for ")
                .and_then(|r| r.split_once(": "))
            {
                current = base.clone();
                current.insert(
                    "ext_pillar".into(),
                    serde_json::from_str(list).expect("note"),
                );
            } else if let Some(change) = text.strip_prefix("master (re)started with: ") {
                let change: serde_json::Map<String, Json> =
                    serde_json::from_str(change).expect("note");
                current.extend(change);
            } else {
                continue;
            }
            if label.ends_with("salt-master-start") {
                // The step starts it (and Salt's refuses to).
                drop(master.take());
                replay::write_master(&conf, &own, &current);
                continue;
            }
            replay::restart(&conf, &rec, &own, &current, &mut master, &mut minion);
        }
        let argv = recorded::argv(step, &tmp);
        match argv.first().map(String::as_str) {
            Some("salt" | "salt-run") => {
                checked += 1;
                failures.extend(replay::compare_step(
                    &conf,
                    i,
                    step,
                    &argv,
                    &tmp,
                    &cut_traceback,
                ));
            }
            Some("salt-master") => {
                checked += 1;
                failures.extend(refused(&conf, i, step, &tmp_s));
            }
            Some("sh") if label.starts_with("git-") || label.contains("-git-") => {
                checked += 1;
                failures.extend(replay::compare_sh(i, step, &argv, &tmp, &git_env));
            }
            _ => {}
        }
    }
    drop(minion);
    drop(master);
    assert!(checked >= 38, "only {checked} steps compared");
    assert!(
        failures.is_empty(),
        "{} steps differ from Salt:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
