//! The gpg renderer through a real brine-master and brine-minion on
//! 127.0.0.1, replaying what Salt 3007.8's pair answered
//! (`tests/recorded/trees/gpg_pillar_master.salt.json`): encrypted pillar
//! compiled on the master with its `gpg_keydir` (and the default keydir
//! beside its configuration, missing and present), a block for a key not
//! in the master's keyring with `gpg_decrypt_must_succeed` on and off, a
//! `pillar=` override with `pillar_enc=gpg` decrypted by the minion (which
//! has no keyring then: Salt's words for that), a state using a decrypted
//! pillar value (the file it wrote compared), and a `#!yaml|gpg` state
//! file once the minion has a keyring.
//!
//! One difference is named and its step left out: Salt renders state
//! files on the minion, so a `#!yaml|gpg` state file fails there while
//! the minion has no keyring; brine compiles states on the master, with
//! the master's keyring (step `minion-no-keys-show-sls-secret_file`).

use brine_tests::daemon::{json_docs, MasterConf, MasterProc};
use brine_tests::{bin, masterless, recorded};
use serde_json::Value as Json;
use std::path::PathBuf;
use std::process::Command;
use std::time::{Duration, Instant};

/// The step whose answer depends on where state files are rendered.
const RENDERED_ON_THE_MINION: &str = "minion-no-keys-show-sls-secret_file";

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

#[test]
fn encrypted_pillar_through_the_daemons_answers_as_salts() {
    let rec = recorded::load("trees/gpg_pillar_master.salt.json");
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
    // The first master: the recorded one, less what later restarts set.
    let mut current: serde_json::Map<String, Json> = recorded_master
        .iter()
        .filter(|(k, _)| BASE_KEYS.contains(&k.as_str()))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    current.insert(
        "gpg_keydir".into(),
        Json::String(format!("{tmp_s}/gpgkeys-master")),
    );
    let notes = rec["notes"].as_array().cloned().unwrap_or_default();
    let mut homes: Vec<PathBuf> = Vec::new();
    let mut master: Option<MasterProc> = None;
    let mut minion: Option<MasterProc> = None;
    let mut failures = Vec::new();
    let mut checked = 0;
    for (i, step) in rec["steps"].as_array().expect("steps").iter().enumerate() {
        let mut restart = i == 0;
        for note in notes
            .iter()
            .filter(|n| n["after_step"].as_u64() == Some(i as u64))
        {
            let text = note["note"]
                .as_str()
                .unwrap_or_default()
                .replace("@TMP@", &tmp_s);
            if let Some(to) = text.strip_prefix("copied the GnuPG home gpgkeys/main to ") {
                let to = PathBuf::from(to);
                masterless::copy_home(&masterless::keyring_source(), &to);
                homes.push(to);
            } else if let Some(change) = text.strip_prefix("master (re)started with: ") {
                let change: serde_json::Map<String, Json> =
                    serde_json::from_str(change).expect("note");
                for (k, v) in change {
                    if v.is_null() {
                        current.remove(&k);
                    } else {
                        current.insert(k, v);
                    }
                }
                restart = true;
            }
        }
        if restart {
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
        let label = step["label"].as_str().unwrap_or_default();
        let argv = recorded::argv(step, &tmp);
        let tool = match argv.first().map(String::as_str) {
            Some("salt") => "brine",
            Some("salt-run") => "brine-run",
            Some("cat") => {
                checked += 1;
                if let Some(d) = recorded::cat_differs(step, &argv) {
                    failures.push(format!("[{i}] cat:\n{d}"));
                }
                continue;
            }
            _ => continue,
        };
        if label == RENDERED_ON_THE_MINION {
            continue;
        }
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
                masterless::strip_times(&mut w);
                masterless::strip_times(&mut g);
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
    masterless::stop_agents(&homes);
    assert!(checked >= 12, "only {checked} steps compared");
    assert!(
        failures.is_empty(),
        "{} steps differ from Salt:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
