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

use brine_tests::daemon::{MasterConf, MasterProc};
use brine_tests::replay::{self, BASE_KEYS};
use brine_tests::{masterless, recorded};
use serde_json::Value as Json;
use std::path::PathBuf;

/// The step whose answer depends on where state files are rendered.
const RENDERED_ON_THE_MINION: &str = "minion-no-keys-show-sls-secret_file";

#[test]
fn encrypted_pillar_through_the_daemons_answers_as_salts() {
    let rec = recorded::load("trees/gpg_pillar_master.salt.json");
    let conf = MasterConf::new("");
    let own = std::fs::read_to_string(conf.conf_dir().join("master")).expect("master config");
    let tmp = conf.dir.path().to_path_buf();
    let tmp_s = tmp.display().to_string();
    masterless::write_tree(&rec, &tmp);
    // The first master: the recorded one, less what later restarts set.
    let mut current = replay::only(&replay::recorded_master(&rec, &tmp), BASE_KEYS);
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
            replay::restart(&conf, &rec, &own, &current, &mut master, &mut minion);
        }
        let label = step["label"].as_str().unwrap_or_default();
        let argv = recorded::argv(step, &tmp);
        match argv.first().map(String::as_str) {
            Some("cat") => {
                checked += 1;
                if let Some(d) = recorded::cat_differs(step, &argv) {
                    failures.push(format!("[{i}] cat:\n{d}"));
                }
            }
            Some("salt" | "salt-run") if label != RENDERED_ON_THE_MINION => {
                checked += 1;
                failures.extend(replay::compare_step(
                    &conf,
                    i,
                    step,
                    &argv,
                    &tmp,
                    &|_, v| masterless::strip_times(v),
                ));
            }
            _ => {}
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
