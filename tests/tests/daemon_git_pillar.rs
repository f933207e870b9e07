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

use brine_tests::daemon::{json_docs, MasterConf, MasterProc};
use brine_tests::{bin, masterless, recorded};
use serde_json::Value as Json;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

const BASE_KEYS: &[&str] = &[
    "file_roots",
    "pillar_roots",
    "gather_job_timeout",
    "timeout",
    "worker_threads",
    "log_level_logfile",
];

fn write_master(conf: &MasterConf, own: &str, opts: &serde_json::Map<String, Json>) {
    let mut text = own.to_string();
    for (k, v) in opts {
        text.push_str(&format!("{k}: {v}\n"));
    }
    std::fs::write(conf.conf_dir().join("master"), text).expect("master config");
}

fn until_pinged(conf: &MasterConf) {
    let deadline = Instant::now() + Duration::from_secs(40);
    while Instant::now() < deadline {
        let out = conf.cli("brine", &["--out", "json", "-t", "3", "web1", "test.ping"]);
        if json_docs(&out.stdout)
            .ok()
            .and_then(|j| j.get("web1").cloned())
            == Some(Json::Bool(true))
        {
            return;
        }
        std::thread::sleep(Duration::from_millis(300));
    }
    panic!("web1 never answered after a restart\n{}", conf.log());
}

/// What a traceback says after "Exception occurred in runner X:" is
/// Python's; both sides are cut there.
fn cut_traceback(v: &mut Json) {
    if let Json::String(s) = v {
        if let Some(rest) = s.strip_prefix("Exception occurred in runner ") {
            if let Some(i) = rest.find(':') {
                let keep = "Exception occurred in runner ".len() + i + 1;
                s.truncate(keep);
            }
        }
    }
}

#[test]
fn git_pillar_answers_as_salts() {
    let rec = recorded::load("trees/git_pillar.salt.json");
    let conf = MasterConf::new("");
    let own = std::fs::read_to_string(conf.conf_dir().join("master")).expect("master config");
    let tmp = conf.dir.path().to_path_buf();
    let tmp_s = tmp.display().to_string();
    masterless::write_tree(&rec, &tmp);
    let recorded_master: serde_json::Map<String, Json> = {
        let text = recorded::tree(&rec, "@TMP@/etc/master", &tmp)
            .replace("@PUB@", "0")
            .replace("@RET@", "0");
        let v = brine_core::yaml::load(&text).expect("recorded master config");
        v.to_json().as_object().cloned().unwrap_or_default()
    };
    let base: serde_json::Map<String, Json> = recorded_master
        .iter()
        .filter(|(k, _)| BASE_KEYS.contains(&k.as_str()))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    let trees = Path::new(env!("CARGO_MANIFEST_DIR")).join("recorded/trees");
    let git_env: Vec<(String, String)> = rec["git"]["env"]
        .as_object()
        .expect("git env")
        .iter()
        .map(|(k, v)| (k.clone(), v.as_str().unwrap_or_default().to_string()))
        .collect();
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
                for (k, v) in change {
                    current.insert(k, v);
                }
            } else {
                continue;
            }
            drop(master.take());
            write_master(&conf, &own, &current);
            if label.ends_with("salt-master-start") {
                continue;
            }
            master = Some(conf.start());
            match minion {
                None => {
                    minion = Some(recorded::start_minion(&conf, &rec, "web1"));
                    conf.accept_and_ping("web1");
                }
                Some(_) => until_pinged(&conf),
            }
        }
        let argv = recorded::argv(step, &tmp);
        let tool = match argv.first().map(String::as_str) {
            Some("salt") => "brine",
            Some("salt-run") => "brine-run",
            Some("salt-master") => {
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
                checked += 1;
                let want_line = step["stderr"]
                    .as_str()
                    .unwrap_or_default()
                    .replace("@TMP@", &tmp_s)
                    .lines()
                    .next()
                    .unwrap_or_default()
                    .to_string();
                if status.and_then(|s| s.code()) != Some(1) || !err.contains(&want_line) {
                    failures.push(format!(
                        "[{i} {label}] brine-master {status:?}, Salt's 1 with {want_line:?}; stderr:\n{err}"
                    ));
                }
                continue;
            }
            Some("sh") if label.starts_with("git-") || label.contains("-git-") => {
                let script = argv[2].replace("@TREES@", &trees.display().to_string());
                let out = Command::new("sh")
                    .args(["-c", &script])
                    .envs(git_env.iter().cloned())
                    .output()
                    .expect("sh runs");
                let want = step["stdout"]
                    .as_str()
                    .unwrap_or_default()
                    .replace("@TMP@", &tmp_s);
                checked += 1;
                let got = String::from_utf8_lossy(&out.stdout);
                if got != want {
                    failures.push(format!("[{i} {label}]\n--- salt\n{want}--- brine\n{got}"));
                }
                continue;
            }
            _ => continue,
        };
        let out = Command::new(bin(tool))
            .arg("-c")
            .arg(conf.conf_dir())
            .args(&argv[1..])
            .output()
            .expect("cli runs");
        let want = json_docs(
            step["stdout"]
                .as_str()
                .unwrap_or_default()
                .replace("@TMP@", &tmp_s)
                .as_bytes(),
        );
        checked += 1;
        match (want, json_docs(&out.stdout)) {
            (Ok(mut w), Ok(mut g)) => {
                cut_traceback(&mut w);
                cut_traceback(&mut g);
                if w != g {
                    failures.push(format!(
                        "[{i} {label}] {argv:?}:\n  salt:  {w}\n  brine: {g}\n  stderr: {}",
                        String::from_utf8_lossy(&out.stderr)
                    ));
                }
            }
            (Ok(w), Err(e)) => failures.push(format!(
                "[{i} {label}] no json ({e}): {}{}\n  salt: {w}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            )),
            _ => {}
        }
        let code = out.status.code().unwrap_or(-1);
        if Some(i64::from(code)) != step["code"].as_i64() {
            failures.push(format!(
                "[{i} {label}] exit code {code}, Salt's {}",
                step["code"]
            ));
        }
    }
    drop(minion);
    drop(master);
    eprintln!("compared {checked} steps");
    assert!(checked >= 35, "only {checked} steps compared");
    assert!(
        failures.is_empty(),
        "{} steps differ from Salt:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
