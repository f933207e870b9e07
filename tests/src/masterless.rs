//! Replaying a masterless recording (`tests/recorded/trees/*.salt.json`,
//! see its README): the tree written into a scratch folder, GnuPG homes
//! copied where the notes say, every `salt-call` step run as `brine-call`
//! with the step's environment, and its JSON answer, exit code and
//! `Passed invalid arguments:` line compared with Salt's. `cat` steps
//! compare the file. Times and pids are taken out of both sides; the
//! caller's `normalize` takes out what it names as a known difference.

use crate::{bin, daemon::json_docs, recorded};
use serde_json::Value as Json;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;

/// What a replay compared and what differed.
pub struct Replayed {
    pub checked: usize,
    pub failures: Vec<String>,
}

/// The committed test keyring (`gpgkeys/main`).
pub fn keyring_source() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("recorded/trees/gpgkeys/main")
}

/// Copy a GnuPG home, folders 0700 and files 0600 as gpg wants them.
pub fn copy_home(from: &Path, to: &Path) {
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

/// Stop the gpg-agent gpg started for each home.
pub fn stop_agents(homes: &[PathBuf]) {
    for h in homes {
        let _ = Command::new("gpgconf")
            .arg("--homedir")
            .arg(h)
            .args(["--kill", "gpg-agent"])
            .status();
    }
}

/// A state run's times and pids differ from run to run.
pub fn strip_times(v: &mut Json) {
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

/// Write the recording's tree under `tmp` (`@TMP@` made `tmp`).
pub fn write_tree(rec: &Json, tmp: &Path) {
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
}

/// The line `Passed invalid arguments: ...` of an error, if any.
fn invalid_arguments(stderr: &str) -> Option<&str> {
    stderr
        .lines()
        .find(|l| l.starts_with("Passed invalid arguments:"))
}

/// Replay `rel`'s masterless steps; `normalize(label, answer)` is applied
/// to both sides' JSON.
pub fn replay(rel: &str, normalize: &dyn Fn(&str, &mut Json)) -> Replayed {
    let rec = recorded::load(rel);
    let dir = tempfile::tempdir().expect("tempdir");
    let tmp = dir.path().to_path_buf();
    let tmp_s = tmp.display().to_string();
    write_tree(&rec, &tmp);
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
            // A git script of the recording (building or changing its
            // repositories), run again: its output must be Salt's run's.
            Some("sh")
                if step["label"]
                    .as_str()
                    .is_some_and(|l| l.starts_with("git-")) =>
            {
                let env = crate::replay::git_env(&rec);
                if let Some(d) = crate::replay::compare_sh(i, step, &argv, &tmp, &env) {
                    failures.push(d);
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
        let mut cmd = Command::new(bin("brine-call"));
        cmd.arg("-c").arg(&conf).args(&argv[1..]);
        if let Some(env) = step["env"].as_object() {
            for (k, v) in env {
                cmd.env(k, v.as_str().unwrap_or_default());
            }
        }
        let out = cmd.output().expect("brine-call runs");
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        let label = step["label"].as_str().unwrap_or_default();
        let want_text = step["stdout"]
            .as_str()
            .unwrap_or_default()
            .replace("@TMP@", &tmp_s);
        checked += 1;
        match (json_docs(want_text.as_bytes()), json_docs(&out.stdout)) {
            (Ok(mut w), Ok(mut g)) => {
                for side in [&mut w, &mut g] {
                    strip_times(side);
                    normalize(label, side);
                }
                if w != g {
                    failures.push(format!(
                        "[{i} {label}] {argv:?}:\n  salt:  {w}\n  brine: {g}\n  stderr: {stderr}"
                    ));
                }
            }
            (Ok(w), Err(e)) => failures.push(format!(
                "[{i} {label}] no json ({e}): {}{stderr}\n  salt: {w}",
                String::from_utf8_lossy(&out.stdout),
            )),
            _ => {
                let want_err = step["stderr"].as_str().unwrap_or_default();
                if let Some(line) = invalid_arguments(want_err) {
                    if invalid_arguments(&stderr) != Some(line) {
                        failures.push(format!(
                            "[{i} {label}] Salt said {line:?}; brine's stderr:\n{stderr}"
                        ));
                    }
                }
            }
        }
        let code = out.status.code().unwrap_or(-1);
        if Some(i64::from(code)) != step["code"].as_i64() {
            failures.push(format!(
                "[{i} {label}] exit code {code}, Salt's {}\n  stderr: {stderr}",
                step["code"]
            ));
        }
    }
    stop_agents(&homes);
    Replayed { checked, failures }
}
