//! The gpg renderer masterless, replaying what Salt 3007.8's salt-call
//! answered (`tests/recorded/trees/gpg_pillar.salt.json`, see its
//! README): pillar files `#!yaml|gpg` and `#!jinja|yaml|gpg` with one
//! block, several (in dicts, lists, several in one value, multi-line), a
//! state file `#!yaml|gpg`, the default keydir missing and present, and a
//! block for a key not in the keyring with `gpg_decrypt_must_succeed`
//! unset, true and false. The keyring is the test key committed beside
//! the recording, copied into the scratch folder (gpg writes into its
//! home); its gpg-agent is stopped at the end.

use brine_tests::{bin, daemon::json_docs, recorded};
use serde_json::Value as Json;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;

fn keyring_source() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("recorded/trees/gpgkeys/main")
}

/// Copy a GnuPG home, folders 0700 and files 0600 as gpg wants them.
fn copy_home(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("keyring folder");
    std::fs::set_permissions(to, std::fs::Permissions::from_mode(0o700)).expect("chmod");
    for entry in std::fs::read_dir(from).expect("keyring").flatten() {
        let (src, dst) = (entry.path(), to.join(entry.file_name()));
        if src.is_dir() {
            copy_home(&src, &dst);
        } else {
            std::fs::copy(&src, &dst).expect("copy key file");
            std::fs::set_permissions(&dst, std::fs::Permissions::from_mode(0o600)).expect("chmod");
        }
    }
}

/// The agents gpg started for the homes under `tmp`.
fn stop_agents(tmp: &Path, homes: &[PathBuf]) {
    for h in homes {
        let _ = Command::new("gpgconf")
            .arg("--homedir")
            .arg(h)
            .args(["--kill", "gpg-agent"])
            .status();
    }
    let _ = tmp;
}

/// A state run's times and pids differ from run to run.
fn strip_times(v: &mut Json) {
    match v {
        Json::Object(m) => {
            m.remove("start_time");
            m.remove("duration");
            m.remove("pid");
            m.values_mut().for_each(strip_times);
        }
        Json::Array(a) => a.iter_mut().for_each(strip_times),
        _ => {}
    }
}

#[test]
fn encrypted_pillar_and_states_render_as_salts() {
    let rec = recorded::load("trees/gpg_pillar.salt.json");
    let dir = tempfile::tempdir().expect("tempdir");
    let tmp = dir.path().to_path_buf();
    let tmp_s = tmp.display().to_string();
    for (key, text) in rec["tree"].as_object().expect("tree") {
        let Some(rel) = key.strip_prefix("@TMP@/") else {
            continue;
        };
        let path = tmp.join(rel);
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        std::fs::write(
            &path,
            text.as_str().unwrap_or_default().replace("@TMP@", &tmp_s),
        )
        .expect("write");
    }
    let mut homes = Vec::new();
    let mut failures = Vec::new();
    let mut checked = 0;
    let notes = rec["notes"].as_array().cloned().unwrap_or_default();
    for (i, step) in rec["steps"].as_array().expect("steps").iter().enumerate() {
        for note in notes
            .iter()
            .filter(|n| n["after_step"].as_u64() == Some(i as u64))
        {
            let text = note["note"].as_str().unwrap_or_default();
            if let Some(to) = text.strip_prefix("copied the GnuPG home gpgkeys/main to ") {
                let to = PathBuf::from(to.replace("@TMP@", &tmp_s));
                copy_home(&keyring_source(), &to);
                homes.push(to);
            }
        }
        let argv = recorded::argv(step, &tmp);
        match argv.first().map(String::as_str) {
            Some("cat") => {
                if let Some(d) = recorded::cat_differs(step, &argv) {
                    failures.push(format!("[{i}] cat:\n{d}"));
                }
                continue;
            }
            Some("salt-call") => {}
            _ => continue,
        }
        let conf = step["conf"]
            .as_str()
            .unwrap_or_default()
            .replace("@TMP@", &tmp_s);
        let out = Command::new(bin("brine-call"))
            .arg("-c")
            .arg(&conf)
            .args(&argv[1..])
            .output()
            .expect("brine-call runs");
        let want = json_docs(
            step["stdout"]
                .as_str()
                .unwrap_or_default()
                .replace("@TMP@", &tmp_s)
                .as_bytes(),
        );
        let got = json_docs(&out.stdout);
        let label = step["label"].as_str().unwrap_or_default();
        checked += 1;
        match (want, got) {
            (Ok(mut w), Ok(mut g)) => {
                strip_times(&mut w);
                strip_times(&mut g);
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
    stop_agents(&tmp, &homes);
    assert!(checked >= 20, "only {checked} steps compared");
    assert!(
        failures.is_empty(),
        "{} steps differ from Salt:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
