//! Replays scenarios recorded with real Salt 3007.8
//! (`modules/testdata/record.py` wrote `modules/testdata/*.json`): the
//! same steps run here on a fresh temporary folder, and every state
//! return, every high data's running dictionary and every file check must
//! equal what Salt answered.
//!
//! Test code, compiled for this crate's tests and, with the `replay`
//! feature, for brine-runtime's: states that call execution functions
//! (`module.run`, `grains.*`) replay there, through the registry
//! ([`Runner`] says how a step runs).

use crate::fileclient::LocalFileClient;
use crate::{StateCall, StateContext, StateModule, StateReturn};
use brine_compile::state::compile::{compile_high_data, prepare_high_for_call};
use brine_core::{Map, Value};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// A state return as Salt's JSON shows it.
pub fn ret_json(r: &StateReturn) -> serde_json::Value {
    let mut m = serde_json::Map::default();
    m.insert("name".into(), serde_json::Value::String(r.name.clone()));
    m.insert("changes".into(), Value::Map(r.changes.clone()).to_json());
    m.insert(
        "result".into(),
        r.result
            .map(serde_json::Value::Bool)
            .unwrap_or(serde_json::Value::Null),
    );
    m.insert(
        "comment".into(),
        serde_json::Value::String(r.comment.clone()),
    );
    for (k, v) in &r.extra {
        m.insert(k.clone(), v.to_json());
    }
    serde_json::Value::Object(m)
}

/// `v` with `from` replaced by `to` in every string and key.
pub fn subst(v: &serde_json::Value, from: &str, to: &str) -> serde_json::Value {
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

/// Where a replay runs: `root` holds `file_roots/`, the recording
/// minion's configuration folder `etc/` (@ETC@) and `cases/`.
pub struct Scratch {
    pub root: PathBuf,
}

impl Scratch {
    pub fn etc(&self) -> PathBuf {
        self.root.join("etc")
    }

    /// The recorded `file_roots` written under `root`; their `base` and
    /// `dev` folders.
    pub fn file_roots(&self, data: &serde_json::Value) -> Map {
        let roots = self.root.join("file_roots");
        if let Some(files) = data["file_roots"].as_object() {
            for (rel, text) in files {
                let p = roots.join(rel);
                std::fs::create_dir_all(p.parent().unwrap()).unwrap();
                std::fs::write(&p, text.as_str().unwrap_or_default()).unwrap();
            }
        }
        let mut file_roots = Map::default();
        for env in ["base", "dev"] {
            file_roots.insert(
                env.into(),
                Value::List(vec![Value::Str(
                    roots.join(env).to_string_lossy().into_owned(),
                )]),
            );
        }
        file_roots
    }
}

/// A run context like the recording minion's: id `m1`, the recorded
/// grains and pillar, `file_roots` written under `dir`.
pub fn context(data: &serde_json::Value, dir: &Path) -> StateContext {
    let scratch = Scratch {
        root: dir.to_path_buf(),
    };
    let mut opts = Map::default();
    opts.insert("id".into(), Value::Str("m1".into()));
    opts.insert("file_roots".into(), Value::Map(scratch.file_roots(data)));
    let mut grains = match Value::from_json(&data["grains"]) {
        Value::Map(m) => m,
        _ => Map::default(),
    };
    grains.insert("id".into(), Value::Str("m1".into()));
    let pillar = match Value::from_json(&data["pillar"]) {
        Value::Map(m) => m,
        _ => Map::default(),
    };
    StateContext {
        fileclient: Arc::new(LocalFileClient::from_opts(&opts)),
        functions: Default::default(),
        opts: Arc::new(opts),
        grains: Arc::new(grains),
        pillar: Arc::new(pillar),
        saltenv: "base".into(),
        test: false,
        jobs: Default::default(),
        minion: Default::default(),
    }
}

/// Call `mod.fun` with `args` the way the runtime would.
pub fn call_state(
    module: &StateModule,
    ctx: &StateContext,
    state: &str,
    args: &Map,
    test: bool,
) -> StateReturn {
    let (modname, fun) = state.split_once('.').unwrap();
    let mut low = args.clone();
    low.insert("state".into(), Value::Str(modname.into()));
    low.insert("fun".into(), Value::Str(fun.into()));
    low.insert("__id__".into(), Value::Str("probe".into()));
    low.insert("__env__".into(), Value::Str("base".into()));
    if !low.contains_key("name") {
        low.insert("name".into(), Value::Str("probe".into()));
    }
    let f = module
        .function(fun)
        .unwrap_or_else(|| panic!("{state} missing"));
    (f.run)(&StateCall {
        low: &low,
        test,
        ctx,
    })
}

/// How the steps of a replay run.
pub trait Runner {
    /// One state's return, as Salt's JSON shows it.
    fn state(&mut self, state: &str, args: &Map, test: bool) -> serde_json::Value;
    /// The running dictionary of `high`, as Salt's JSON shows it.
    fn high(&mut self, high: Map, test: bool) -> serde_json::Value;
}

/// Steps run on the state module itself, high data through the engine.
struct Direct<'m> {
    module: &'m StateModule,
    ctx: StateContext,
}

impl Runner for Direct<'_> {
    fn state(&mut self, state: &str, args: &Map, test: bool) -> serde_json::Value {
        ret_json(&call_state(self.module, &self.ctx, state, args, test))
    }

    fn high(&mut self, high: Map, test: bool) -> serde_json::Value {
        let mut ctx = self.ctx.clone();
        ctx.test = test;
        let high = prepare_high_for_call(high, &[]).unwrap_or_else(|e| panic!("{e:?}"));
        let chunks = compile_high_data(&high).unwrap_or_else(|e| panic!("{e:?}"));
        let running = crate::engine::call_high(&ctx, chunks).unwrap_or_else(|e| panic!("{e}"));
        Value::Map(running).to_json()
    }
}

/// Replay every recorded case of `json` against `module`, calling its
/// functions directly; panics listing all differences.
pub fn replay(json: &str, module: &StateModule, only: Option<&str>) {
    replay_with(json, only, &mut |data, scratch| {
        Box::new(Direct {
            module,
            ctx: context(data, &scratch.root),
        })
    })
}

/// The keys a recorded return leaves out (they change from run to run).
fn cleaned(mut got: serde_json::Value, top: bool) -> serde_json::Value {
    if let Some(o) = got.as_object_mut() {
        for k in ["start_time", "duration"] {
            o.remove(k);
        }
        if top {
            for k in ["__run_num__", "__sls__", "__id__"] {
                o.remove(k);
            }
        }
    }
    if let Some(changes) = got.get_mut("changes") {
        mask_pids(changes);
    }
    got
}

/// Process ids in a state's changes (cmd.run's, a returned cmd.run_all's)
/// are `<pid>`, as recorded.
fn mask_pids(v: &mut serde_json::Value) {
    if let Some(o) = v.as_object_mut() {
        for (k, x) in o.iter_mut() {
            if k == "pid" && x.as_i64().is_some_and(|p| p > 0) {
                *x = serde_json::Value::String("<pid>".into());
            } else {
                mask_pids(x);
            }
        }
    }
}

/// Replay every recorded case of `json`, each in a fresh [`Scratch`]
/// with the runner `make` gives for it; panics listing all differences.
pub fn replay_with<'a>(
    json: &str,
    only: Option<&str>,
    make: &mut dyn FnMut(&serde_json::Value, &Scratch) -> Box<dyn Runner + 'a>,
) {
    let data: serde_json::Value = serde_json::from_str(json).unwrap();
    let mut failures = Vec::new();
    let mut checked = 0;
    for (case, steps) in data["cases"].as_object().unwrap() {
        if only.is_some_and(|o| o != case) {
            continue;
        }
        let tmp = tempfile::tempdir().unwrap();
        let scratch = Scratch {
            root: tmp.path().to_path_buf(),
        };
        std::fs::create_dir_all(scratch.etc()).unwrap();
        let mut runner = make(&data, &scratch);
        let dir = tmp.path().join("cases").join(case);
        std::fs::create_dir_all(&dir).unwrap();
        let d = dir.to_string_lossy().into_owned();
        let etc = scratch.etc().to_string_lossy().into_owned();
        let fill = |s: &str| s.replace("@TMP@", &d).replace("@ETC@", &etc);
        let unfill = |v: &serde_json::Value| subst(&subst(v, &d, "@TMP@"), &etc, "@ETC@");
        for (i, step) in steps.as_array().unwrap().iter().enumerate() {
            if let Some(sh) = step["sh"].as_str() {
                let st = std::process::Command::new("bash")
                    .args(["-c", &fill(sh)])
                    .status()
                    .unwrap();
                assert!(st.success(), "{case}[{i}] setup failed: {sh}");
                continue;
            }
            if let Some(check) = step["check"].as_str() {
                let out = std::process::Command::new("bash")
                    .args(["-c", &fill(check)])
                    .output()
                    .unwrap();
                let got = String::from_utf8_lossy(&out.stdout)
                    .replace(&d, "@TMP@")
                    .replace(&etc, "@ETC@");
                checked += 1;
                if got != step["out"].as_str().unwrap_or_default() {
                    failures.push(format!(
                        "{case}[{i}] check `{check}`:\n  salt:  {:?}\n  brine: {got:?}",
                        step["out"]
                    ));
                }
                continue;
            }
            let expect = &step["expect"];
            let test = step["test"].as_bool().unwrap_or(false);
            if let Some(high) = step.get("high") {
                let high = match Value::from_json(&subst(&subst(high, "@TMP@", &d), "@ETC@", &etc))
                {
                    Value::Map(m) => m,
                    _ => Map::default(),
                };
                let got = unfill(&runner.high(high, test));
                let got = match got {
                    serde_json::Value::Object(o) => serde_json::Value::Object(
                        o.into_iter().map(|(k, v)| (k, cleaned(v, false))).collect(),
                    ),
                    other => other,
                };
                checked += 1;
                if &got != expect {
                    failures.push(format!(
                        "{case}[{i}] high test={test}:\n  salt:  {expect}\n  brine: {got}"
                    ));
                }
                continue;
            }
            // Requisite errors and missing parameters come from the
            // runtime, not the module.
            if expect["comment"].as_str().is_some_and(|c| {
                c.starts_with("The following requisites") || c.starts_with("Missing parameter ")
            }) {
                continue;
            }
            let args =
                match Value::from_json(&subst(&subst(&step["args"], "@TMP@", &d), "@ETC@", &etc)) {
                    Value::Map(m) => m,
                    _ => Map::default(),
                };
            let state = step["state"].as_str().unwrap();
            let got = cleaned(unfill(&runner.state(state, &args, test)), true);
            checked += 1;
            // Where Salt crashed (a traceback as comment), brine must
            // fail the state cleanly instead.
            let salt_crashed = expect["comment"]
                .as_str()
                .is_some_and(|c| c.starts_with("An exception occurred in this state: Traceback"));
            if salt_crashed {
                if got["result"] != serde_json::json!(false)
                    || got["changes"] != serde_json::json!({})
                {
                    failures.push(format!(
                        "{case}[{i}] {state}: Salt crashed, brine did not fail: {got}"
                    ));
                }
                continue;
            }
            if &got != expect {
                failures.push(format!(
                    "{case}[{i}] {state} {} test={test}:\n  salt:  {expect}\n  brine: {got}",
                    step["args"]
                ));
            }
        }
    }
    assert!(checked > 0, "no steps replayed");
    assert!(
        failures.is_empty(),
        "{} of {checked} steps differ from Salt:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
