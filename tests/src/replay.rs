//! What the daemon replays of `tests/recorded/trees/*.salt.json` share: the
//! recorded master's options, a master configuration written from ours
//! and theirs, waiting for the minion after a restart, and one recorded
//! `salt` / `salt-run` step run as `brine` / `brine-run` and compared
//! (`--out json` answers after `normalize`, and the exit code).

use crate::bin;
use crate::daemon::{json_docs, MasterConf, MasterProc};
use serde_json::{Map, Value as Json};
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

/// The recorded master's options (`@TMP@` made `tmp`, its ports zero).
pub fn recorded_master(rec: &Json, tmp: &Path) -> Map<String, Json> {
    let text = crate::recorded::tree(rec, "@TMP@/etc/master", tmp)
        .replace("@PUB@", "0")
        .replace("@RET@", "0");
    let v = brine_core::yaml::load(&text).expect("recorded master config");
    v.to_json().as_object().cloned().unwrap_or_default()
}

/// The options of `opts` named in `keys`.
pub fn only(opts: &Map<String, Json>, keys: &[&str]) -> Map<String, Json> {
    opts.iter()
        .filter(|(k, _)| keys.contains(&k.as_str()))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect()
}

/// The recorded options every scenario keeps (roots, timeouts, logging).
pub const BASE_KEYS: &[&str] = &[
    "file_roots",
    "pillar_roots",
    "gather_job_timeout",
    "timeout",
    "worker_threads",
    "log_level_logfile",
];

/// Our master's own lines (`own`: ports, root, interface), then `opts`
/// as YAML (JSON is YAML).
pub fn write_master(conf: &MasterConf, own: &str, opts: &Map<String, Json>) {
    let mut text = own.to_string();
    for (k, v) in opts {
        text.push_str(&format!("{k}: {v}\n"));
    }
    std::fs::write(conf.conf_dir().join("master"), text).expect("master config");
}

/// The master (re)started on `opts` over `own`, and the recording's
/// `web1` started the first time (its key accepted), else waited for.
pub fn restart(
    conf: &MasterConf,
    rec: &Json,
    own: &str,
    opts: &Map<String, Json>,
    master: &mut Option<MasterProc>,
    minion: &mut Option<MasterProc>,
) {
    drop(master.take());
    write_master(conf, own, opts);
    *master = Some(conf.start());
    match minion {
        None => {
            *minion = Some(crate::recorded::start_minion(conf, rec, "web1"));
            conf.accept_and_ping("web1");
        }
        Some(_) => until_pinged(conf, "web1"),
    }
}

/// Wait (bounded) until `id` answers a ping again (after a restart).
pub fn until_pinged(conf: &MasterConf, id: &str) {
    let deadline = Instant::now() + Duration::from_secs(40);
    while Instant::now() < deadline {
        let out = conf.cli("brine", &["--out", "json", "-t", "3", id, "test.ping"]);
        if json_docs(&out.stdout).ok().and_then(|j| j.get(id).cloned()) == Some(Json::Bool(true)) {
            return;
        }
        std::thread::sleep(Duration::from_millis(300));
    }
    panic!("{id} never answered after a restart\n{}", conf.log());
}

/// Run step `i` (`argv`: `salt ...` or `salt-run ...`, `@TMP@` already
/// ours) as brine's tool and compare: what differs, in words.
pub fn compare_step(
    conf: &MasterConf,
    i: usize,
    step: &Json,
    argv: &[String],
    tmp: &Path,
    normalize: &dyn Fn(&str, &mut Json),
) -> Vec<String> {
    compare_step_with(conf, i, step, argv, tmp, normalize, &|_| {})
}

/// [`compare_step`], `prepare` adjusting the command first (its
/// environment).
pub fn compare_step_with(
    conf: &MasterConf,
    i: usize,
    step: &Json,
    argv: &[String],
    tmp: &Path,
    normalize: &dyn Fn(&str, &mut Json),
    prepare: &dyn Fn(&mut Command),
) -> Vec<String> {
    let tool = match argv.first().map(String::as_str) {
        Some("salt") => "brine",
        Some("salt-run") => "brine-run",
        other => panic!("not a CLI step: {other:?}"),
    };
    let label = step["label"].as_str().unwrap_or_default();
    let mut cmd = Command::new(bin(tool));
    cmd.arg("-c").arg(conf.conf_dir()).args(&argv[1..]);
    prepare(&mut cmd);
    let out = cmd.output().expect("cli runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    let want = json_docs(
        step["stdout"]
            .as_str()
            .unwrap_or_default()
            .replace("@TMP@", &tmp.display().to_string())
            .as_bytes(),
    );
    let mut failures = Vec::new();
    match (want, json_docs(&out.stdout)) {
        (Ok(mut w), Ok(mut g)) => {
            normalize(label, &mut w);
            normalize(label, &mut g);
            if w != g {
                failures.push(format!(
                    "[{i} {label}] {argv:?}:\n  salt:  {w}\n  brine: {g}\n  stderr: {stderr}"
                ));
            }
        }
        (Ok(w), Err(e)) => failures.push(format!(
            "[{i} {label}] no json ({e}): {}{stderr}\n  salt: {w}",
            String::from_utf8_lossy(&out.stdout)
        )),
        _ => {}
    }
    let code = out.status.code().unwrap_or(-1);
    if Some(i64::from(code)) != step["code"].as_i64() {
        failures.push(format!(
            "[{i} {label}] exit code {code}, Salt's {}\n  stderr: {stderr}",
            step["code"]
        ));
    }
    failures
}

/// A recorded `sh` step (a git script, a listing) run again with `env`
/// (`@TREES@` the recordings' folder): its output against Salt's run's.
pub fn compare_sh(
    i: usize,
    step: &Json,
    argv: &[String],
    tmp: &Path,
    env: &[(String, String)],
) -> Option<String> {
    let trees = Path::new(env!("CARGO_MANIFEST_DIR")).join("recorded/trees");
    let script = argv[2].replace("@TREES@", &trees.display().to_string());
    let out = Command::new("sh")
        .args(["-c", &script])
        .envs(env.iter().cloned())
        .output()
        .expect("sh runs");
    let want = step["stdout"]
        .as_str()
        .unwrap_or_default()
        .replace("@TMP@", &tmp.display().to_string());
    let got = String::from_utf8_lossy(&out.stdout);
    let label = step["label"].as_str().unwrap_or_default();
    (got != want).then(|| format!("[{i} {label}]\n--- salt\n{want}--- brine\n{got}"))
}

/// The recording's `git.env` (fixed names and dates).
pub fn git_env(rec: &Json) -> Vec<(String, String)> {
    rec["git"]["env"]
        .as_object()
        .map(|m| {
            m.iter()
                .map(|(k, v)| (k.clone(), v.as_str().unwrap_or_default().to_string()))
                .collect()
        })
        .unwrap_or_default()
}
