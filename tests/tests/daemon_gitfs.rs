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

use brine_tests::daemon::MasterProc;
use brine_tests::replay::{self, BASE_KEYS};
use brine_tests::{daemon::MasterConf, masterless, recorded};
use serde_json::Value as Json;

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
    let base = replay::only(&replay::recorded_master(&rec, &tmp), BASE_KEYS);
    let git_env = replay::git_env(&rec);
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
            replay::restart(&conf, &rec, &own, &current, &mut master, &mut minion);
        }
        let argv = recorded::argv(step, &tmp);
        let label = step["label"].as_str().unwrap_or_default();
        match argv.first().map(String::as_str) {
            Some("salt" | "salt-run") => {
                checked += 1;
                failures.extend(replay::compare_step(
                    &conf, i, step, &argv, &tmp, &normalize,
                ));
            }
            Some("sh") if label.starts_with("git-build") || label.ends_with("-ls-out") => {
                checked += 1;
                failures.extend(replay::compare_sh(i, step, &argv, &tmp, &git_env));
            }
            _ => {}
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
