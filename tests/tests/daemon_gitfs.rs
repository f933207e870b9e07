//! gitfs through a real brine-master and brine-minion on 127.0.0.1,
//! replaying what Salt 3007.8's pair (GitPython provider) answered
//! (`tests/recorded/trees/gitfs.salt.json`, see its README): three real
//! git repositories built by the recorded scripts (a branch, a tag, a
//! `main` repository mapped to base, a `root` and `mountpoint` one), and
//! four master configurations in turn — `[roots, gitfs]`, `[gitfs,
//! roots]` with a saltenv whitelist and blacklist, `[gitfs]` alone, and
//! the global `gitfs_root` / `gitfs_mountpoint` / `gitfs_base` /
//! `gitfs_saltenv` — each answering `fileserver.update`, `envs`,
//! `file_list`, `dir_list`, `cp.list_master`, `cp.get_file_str`,
//! `cp.get_file`, `state.show_sls` and `state.apply` as Salt's did, and
//! the files the states wrote. The commit ids the scripts make are
//! compared too (fixed names and dates).
//!
//! One difference is named and taken out: a folder listing (`dir_list`,
//! `cp.list_master_dirs`) from brine also names the folders above a
//! remote's mountpoint (`mnt` above `mnt/here`), which Salt's gitfs
//! leaves out.

use brine_tests::daemon::{json_docs, MasterConf, MasterProc};
use brine_tests::{bin, masterless, recorded};
use serde_json::Value as Json;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

/// The master options every scenario starts from (the recording's, less
/// what the scenarios set).
const BASE_KEYS: &[&str] = &[
    "file_roots",
    "pillar_roots",
    "gather_job_timeout",
    "timeout",
    "worker_threads",
    "log_level_logfile",
];

/// Our master's own lines, then `opts` as YAML (JSON is YAML).
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

/// A state run's times and pids differ from run to run; the folders
/// above the mountpoint `mnt/here` are the named difference.
fn normalize(label: &str, v: &mut Json) {
    masterless::strip_times(v);
    if label.contains("dir_list") || label.contains("list_master_dirs") {
        let drop_mnt = |a: &mut Vec<Json>| a.retain(|d| d.as_str() != Some("mnt"));
        match v {
            Json::Array(a) => drop_mnt(a),
            Json::Object(m) => m
                .values_mut()
                .filter_map(Json::as_array_mut)
                .for_each(drop_mnt),
            _ => {}
        }
    }
}

#[test]
fn gitfs_serves_as_salts() {
    let rec = recorded::load("trees/gitfs.salt.json");
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
    let mut master: Option<MasterProc> = None;
    let mut minion: Option<MasterProc> = None;
    let mut current = base.clone();
    let mut failures = Vec::new();
    let mut checked = 0;
    for (i, step) in rec["steps"].as_array().expect("steps").iter().enumerate() {
        for note in notes
            .iter()
            .filter(|n| n["after_step"].as_u64() == Some(i as u64))
        {
            let text = note["note"]
                .as_str()
                .unwrap_or_default()
                .replace("@TMP@", &tmp_s);
            let change = text
                .split_once(": {")
                .filter(|_| text.starts_with("master"))
                .map(|(_, rest)| format!("{{{rest}"));
            let Some(change) = change else { continue };
            let change: serde_json::Map<String, Json> =
                serde_json::from_str(&change).expect("note's config");
            if text.starts_with("master config for") {
                current = base.clone();
            }
            for (k, v) in change {
                if v.is_null() {
                    current.remove(&k);
                } else {
                    current.insert(k, v);
                }
            }
            drop(master.take());
            write_master(&conf, &own, &current);
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
        let label = step["label"].as_str().unwrap_or_default();
        let tool = match argv.first().map(String::as_str) {
            Some("salt") => "brine",
            Some("salt-run") => "brine-run",
            Some("sh") if label.starts_with("git-build") || label.ends_with("-ls-out") => {
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
                normalize(label, &mut w);
                normalize(label, &mut g);
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
    assert!(checked >= 120, "only {checked} steps compared");
    assert!(
        failures.is_empty(),
        "{} steps differ from Salt:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
