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
//! Salt renders state files on the minion: a `#!yaml|gpg` state file
//! fails while the minion has no keyring, however many keys the master
//! holds (step `minion-no-keys-show-sls-secret_file`). brine's master
//! compiles it and leaves its blocks to the minion, which decrypts them.

use brine_tests::daemon::{MasterConf, MasterProc};
use brine_tests::replay::{self, BASE_KEYS};
use brine_tests::{masterless, recorded};
use serde_json::Value as Json;
use std::path::PathBuf;

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
        let argv = recorded::argv(step, &tmp);
        match argv.first().map(String::as_str) {
            Some("cat") => {
                checked += 1;
                if let Some(d) = recorded::cat_differs(step, &argv) {
                    failures.push(format!("[{i}] cat:\n{d}"));
                }
            }
            Some("salt" | "salt-run") => {
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
    assert!(checked >= 13, "only {checked} steps compared");
    assert!(
        failures.is_empty(),
        "{} steps differ from Salt:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// `state.apply` of a `#!yaml|gpg` state file through the daemons: the
/// master holds the keys but the minion does not, so the run fails its SLS
/// and writes nothing (Salt's minion renders it); once the minion's own
/// keyring (`gpgkeys` beside its configuration) has the key, the run
/// writes the decrypted contents. The master never decrypts for it.
#[test]
fn a_gpg_state_file_is_decrypted_by_the_minion_that_runs_it() {
    let fixture = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("recorded/trees/fixtures/gpg_pillar/salt/secret_file.sls"),
    )
    .expect("fixture");
    let conf = MasterConf::new("");
    let tmp = conf.dir.path().to_path_buf();
    let master_keys = tmp.join("gpgkeys-master");
    masterless::copy_home(&masterless::keyring_source(), &master_keys);
    let text = std::fs::read_to_string(conf.conf_dir().join("master")).expect("master config");
    std::fs::write(
        conf.conf_dir().join("master"),
        format!("{text}gpg_keydir: {}\n", master_keys.display()),
    )
    .expect("master config");
    conf.serve_base_files(&[(
        "secret_file.sls",
        &fixture.replace("@TMP@", &tmp.display().to_string()),
    )]);
    let _master = conf.start();
    conf.write_minion_conf("web1", "");
    let _minion = conf.start_minion(&[]);
    conf.accept_and_ping("web1");
    let apply = || {
        conf.cli(
            "brine",
            &[
                "--out",
                "json",
                "-t",
                "30",
                "web1",
                "state.apply",
                "secret_file",
            ],
        )
    };
    let out = apply();
    let said = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(
        said.contains("Rendering SLS 'base:secret_file' failed: Could not decrypt cipher"),
        "{said}"
    );
    assert!(!tmp.join("out/secret.txt").exists());
    // The minion's default keydir: gpgkeys in its configuration folder.
    let minion_keys = conf.conf_dir().join("gpgkeys");
    masterless::copy_home(&masterless::keyring_source(), &minion_keys);
    let out = apply();
    assert!(out.status.success(), "{out:?}");
    assert_eq!(
        std::fs::read_to_string(tmp.join("out/secret.txt"))
            .ok()
            .as_deref(),
        // file.managed ends contents with a newline, as Salt does.
        Some("state-secret-contents\n")
    );
    masterless::stop_agents(&[master_keys, minion_keys]);
}
