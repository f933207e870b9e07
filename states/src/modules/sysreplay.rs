//! Replays the system-configuration scenarios real Salt 3007.8 answered
//! (`testdata/sys.json`, written by `testdata/record_sys.py --sys` from
//! `testdata/sys_cases.py`): the same steps run against brine's state
//! modules, and every return and every check must equal Salt's.
//!
//! Those scenarios change the host (crontabs, /etc, the alternatives
//! database, mounts, a sysctl). A case naming folders to `isolate` runs,
//! as the recording did, in a child process in its own mount and UTS
//! namespaces (`unshare`): the folders become overlays whose writes land
//! in a tmpfs, and nothing reaches the host. The child is this test binary
//! again, running `modules::tests::sys_replay_child` for one case.

use super::file::tests::ret_json;
use crate::fileclient::LocalFileClient;
use crate::{StateCall, StateContext, StateModule, StateReturn};
use brine_core::{Map, Value};
use std::path::Path;
use std::process::Command;
use std::sync::Arc;

/// The recorded scenarios.
pub const SYS_JSON: &str = include_str!("testdata/sys.json");

/// The environment variables the child process reads.
const CASE_VAR: &str = "BRINE_SYS_CASE";
const DIR_VAR: &str = "BRINE_SYS_DIR";

fn data() -> serde_json::Value {
    serde_json::from_str(SYS_JSON).expect("sys.json parses")
}

/// Replay every case whose name starts with `prefix` (all of them must
/// exist: a prefix matching nothing fails). Isolated cases run in a
/// namespaced child; they are skipped, saying so, where that is impossible
/// (not root, no `unshare`).
pub fn run(prefix: &str, modules: &[&StateModule]) {
    let data = data();
    let cases = data["cases"].as_object().expect("cases");
    let mut failures = Vec::new();
    let mut ran = 0;
    for (name, case) in cases.iter().filter(|(n, _)| n.starts_with(prefix)) {
        ran += 1;
        if case.get("isolate").is_none() {
            let tmp = tempfile::tempdir().expect("tempdir");
            failures.extend(replay_case(&data, name, tmp.path(), modules));
            continue;
        }
        if let Some(why) = cannot_isolate() {
            println!("skipped: {name}: {why}");
            continue;
        }
        let tmp = tempfile::tempdir().expect("tempdir");
        // The child runs in the case's folder, as salt-call did.
        let case_dir = tmp.path().join("cases").join(name);
        std::fs::create_dir_all(&case_dir).expect("case folder");
        let out = Command::new("unshare")
            .current_dir(&case_dir)
            .args(["-m", "-u", "--propagation", "private", "--"])
            .arg(std::env::current_exe().expect("test binary"))
            .args([
                "--exact",
                "modules::tests::sys_replay_child",
                "--nocapture",
                "--test-threads=1",
            ])
            .env(CASE_VAR, name)
            .env(DIR_VAR, tmp.path())
            .output()
            .expect("unshare runs");
        if !out.status.success() {
            failures.push(format!(
                "{name} (isolated):\n{}{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            ));
        }
    }
    assert!(ran > 0, "no recorded case starts with {prefix}");
    assert!(
        failures.is_empty(),
        "differences from Salt:\n{}",
        failures.join("\n")
    );
}

/// Why isolated cases cannot run here, if they cannot.
fn cannot_isolate() -> Option<&'static str> {
    if !brine_host::accounts::is_root() {
        return Some("needs root to make mount namespaces");
    }
    let ok = Command::new("unshare")
        .args(["-m", "-u", "--", "true"])
        .status()
        .is_ok_and(|s| s.success());
    (!ok).then_some("unshare -m -u does not work here")
}

/// The child's side: run the case named in the environment (nothing when
/// the variable is unset: then this is an ordinary test run).
pub fn child(modules: &[&StateModule]) {
    let (Ok(case), Ok(dir)) = (std::env::var(CASE_VAR), std::env::var(DIR_VAR)) else {
        return;
    };
    let data = data();
    let dir = Path::new(&dir);
    isolate(&data["cases"][&case]["isolate"], &dir.join("iso"));
    let failures = replay_case(&data, &case, dir, modules);
    for f in &failures {
        println!("{f}");
    }
    assert!(failures.is_empty(), "{} steps differ", failures.len());
}

fn sh(argv: &[&str]) {
    let st = Command::new(argv[0]).args(&argv[1..]).status();
    assert!(st.is_ok_and(|s| s.success()), "{argv:?} failed");
}

/// Inside the namespace: overlays over the named folders (their writes go
/// to a tmpfs at `scratch`), and the hidden files removed from them.
fn isolate(spec: &serde_json::Value, scratch: &Path) {
    std::fs::create_dir_all(scratch).expect("scratch");
    let s = scratch.to_string_lossy().into_owned();
    sh(&["mount", "-t", "tmpfs", "brine-iso", &s]);
    let list = |k: &str| -> Vec<String> {
        spec[k]
            .as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|v| v.as_str().map(String::from))
                    .collect()
            })
            .unwrap_or_default()
    };
    for (i, d) in list("overlay").iter().enumerate() {
        let up = format!("{s}/{i}/up");
        let work = format!("{s}/{i}/work");
        std::fs::create_dir_all(&up).expect("upper");
        std::fs::create_dir_all(&work).expect("work");
        let o = format!("lowerdir={d},upperdir={up},workdir={work}");
        sh(&["mount", "-t", "overlay", "overlay", "-o", &o, d]);
    }
    for p in list("hide") {
        if std::fs::symlink_metadata(&p).is_ok() {
            std::fs::remove_file(&p).expect("hide");
        }
    }
}

fn subst(v: &serde_json::Value, from: &str, to: &str) -> serde_json::Value {
    match v {
        serde_json::Value::String(s) => serde_json::Value::String(s.replace(from, to)),
        serde_json::Value::Array(a) => {
            serde_json::Value::Array(a.iter().map(|x| subst(x, from, to)).collect())
        }
        serde_json::Value::Object(o) => serde_json::Value::Object(
            o.iter()
                .map(|(k, x)| (k.replace(from, to), subst(x, from, to)))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// The case's masks (a pattern, its literal replacement) applied to every
/// string, as record_sys.py applied them to Salt's answers.
fn mask(v: &serde_json::Value, masks: &[(regex::Regex, String)]) -> serde_json::Value {
    match v {
        serde_json::Value::String(s) => {
            serde_json::Value::String(masks.iter().fold(s.clone(), |s, (re, r)| {
                re.replace_all(&s, regex::NoExpand(r)).into_owned()
            }))
        }
        serde_json::Value::Array(a) => {
            serde_json::Value::Array(a.iter().map(|x| mask(x, masks)).collect())
        }
        serde_json::Value::Object(o) => serde_json::Value::Object(
            o.iter()
                .map(|(k, x)| {
                    let k = mask(&serde_json::Value::String(k.clone()), masks);
                    (k.as_str().unwrap_or_default().to_string(), mask(x, masks))
                })
                .collect(),
        ),
        other => other.clone(),
    }
}

/// The recording minion as a state run sees it: id `m1`, the recorded
/// grains, `file_roots` written under `dir`, the case's options.
fn context(
    data: &serde_json::Value,
    case: &serde_json::Value,
    dir: &Path,
    tmp: &str,
) -> StateContext {
    let roots = dir.join("file_roots");
    if let Some(files) = data["file_roots"].as_object() {
        for (rel, text) in files {
            let p = roots.join(rel);
            std::fs::create_dir_all(p.parent().expect("a folder")).expect("roots");
            std::fs::write(&p, text.as_str().unwrap_or_default()).expect("roots");
        }
    }
    let mut opts = Map::default();
    opts.insert("id".into(), Value::Str("m1".into()));
    let mut file_roots = Map::default();
    file_roots.insert(
        "base".into(),
        Value::List(vec![Value::Str(roots.join("base").display().to_string())]),
    );
    opts.insert("file_roots".into(), Value::Map(file_roots));
    // The minion makes its cachedir before it runs anything.
    std::fs::create_dir_all(format!("{tmp}/.cache")).expect("cachedir");
    opts.insert("cachedir".into(), Value::Str(format!("{tmp}/.cache")));
    if let Value::Map(extra) = Value::from_json(&subst(&case["opts"], "@TMP@", tmp)) {
        opts.extend(extra);
    }
    let mut grains = match Value::from_json(&data["grains"]) {
        Value::Map(m) => m,
        _ => Map::default(),
    };
    grains.insert("id".into(), Value::Str("m1".into()));
    StateContext {
        fileclient: Arc::new(LocalFileClient::from_opts(&opts)),
        functions: Default::default(),
        opts: Arc::new(opts),
        grains: Arc::new(grains),
        pillar: Arc::new(Map::default()),
        saltenv: "base".into(),
        test: false,
        jobs: Default::default(),
        minion: Default::default(),
        accumulators: Default::default(),
    }
}

/// Call `state` (`mod.fun`) as the engine would; with `watch`, as a watch
/// that fired: the function, then its module's `mod_watch` when the
/// function changed nothing.
fn call(
    modules: &[&StateModule],
    ctx: &StateContext,
    state: &str,
    args: &Map,
    test: bool,
    watch: bool,
) -> StateReturn {
    let (modname, fun) = state.split_once('.').expect("mod.fun");
    let module = modules
        .iter()
        .find(|m| m.name == modname)
        .unwrap_or_else(|| panic!("no state module {modname}"));
    let mut low = args.clone();
    low.insert("state".into(), Value::Str(modname.into()));
    low.insert("fun".into(), Value::Str(fun.into()));
    low.insert("__id__".into(), Value::Str("probe".into()));
    low.insert("__env__".into(), Value::Str("base".into()));
    let f = module
        .function(fun)
        .unwrap_or_else(|| panic!("{state} missing"));
    let ret = (f.run)(&StateCall {
        low: &low,
        test,
        ctx,
    });
    if !watch || !ret.changes.is_empty() {
        return ret;
    }
    low.insert("sfun".into(), Value::Str(fun.into()));
    low.insert("fun".into(), Value::Str("mod_watch".into()));
    let w = module.function("mod_watch").expect("mod_watch");
    (w.run)(&StateCall {
        low: &low,
        test,
        ctx,
    })
}

/// Run one case's steps in `dir`; the differences from Salt.
fn replay_case(
    data: &serde_json::Value,
    name: &str,
    dir: &Path,
    modules: &[&StateModule],
) -> Vec<String> {
    let case = &data["cases"][name];
    let tmp_dir = dir.join("cases").join(name);
    std::fs::create_dir_all(&tmp_dir).expect("case folder");
    let tmp = tmp_dir.to_string_lossy().into_owned();
    let ctx = context(data, case, dir, &tmp);
    let masks: Vec<(regex::Regex, String)> = case["masks"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|m| {
                    let re = regex::Regex::new(m[0].as_str()?).ok()?;
                    Some((re, m[1].as_str()?.to_string()))
                })
                .collect()
        })
        .unwrap_or_default();
    let mut failures = Vec::new();
    for (i, step) in case["steps"].as_array().expect("steps").iter().enumerate() {
        if let Some(cmd) = step["sh"].as_str() {
            let st = Command::new("bash")
                .args(["-c", &cmd.replace("@TMP@", &tmp)])
                .current_dir(&tmp)
                .status();
            assert!(
                st.is_ok_and(|s| s.success()),
                "{name}[{i}] setup failed: {cmd}"
            );
        } else if let Some(cmd) = step["check"].as_str() {
            let out = Command::new("bash")
                .args(["-c", &cmd.replace("@TMP@", &tmp)])
                .current_dir(&tmp)
                .output()
                .expect("bash runs");
            let got = String::from_utf8_lossy(&out.stdout).replace(&tmp, "@TMP@");
            let got = mask(&serde_json::Value::String(got), &masks);
            if got != step["out"] {
                failures.push(format!(
                    "{name}[{i}] check `{cmd}`:\n  salt:  {}\n  brine: {got}",
                    step["out"]
                ));
            }
        } else {
            // Salt's answer is masked too: its host-dependent words (a
            // kernel release) were recorded unmasked.
            let expect = &mask(&step["expect"], &masks);
            let args = match Value::from_json(&subst(&step["args"], "@TMP@", &tmp)) {
                Value::Map(m) => m,
                _ => Map::default(),
            };
            let test = step["test"].as_bool().unwrap_or(false);
            let watch = step["watch"].as_bool().unwrap_or(false);
            let state = step["state"].as_str().expect("state");
            let ret = call(modules, &ctx, state, &args, test, watch);
            let got = mask(&subst(&ret_json(&ret), &tmp, "@TMP@"), &masks);
            if let Some(trace) = expect["comment"]
                .as_str()
                .and_then(|c| c.strip_prefix("An exception occurred in this state: Traceback"))
            {
                // Salt raised: brine fails, with the exception's words (the
                // lines after the traceback's last indented one).
                let lines: Vec<&str> = trace.trim_end().lines().collect();
                let from = lines
                    .iter()
                    .rposition(|l| l.starts_with(' '))
                    .map_or(0, |i| i + 1);
                let last = lines[from..].join("\n");
                let want = serde_json::json!({"name": expect["name"], "changes": {},
                    "result": false,
                    "comment": format!("An exception occurred in this state: {last}\n")});
                if got != want {
                    failures.push(format!(
                        "{name}[{i}] {state} {} test={test}: Salt raised:\n  salt:  {want}\n  brine: {got}",
                        step["args"]
                    ));
                }
                continue;
            }
            if &got != expect {
                failures.push(format!(
                    "{name}[{i}] {state} {} test={test}:\n  salt:  {expect}\n  brine: {got}",
                    step["args"]
                ));
            }
        }
    }
    failures
}
