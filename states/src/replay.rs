//! Replays scenarios recorded with real Salt 3007.8
//! (`modules/testdata/record*.py` wrote `modules/testdata/*.json`): the
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
/// minion's configuration folder `etc/` (@ETC@) and `cases/`; `case` is
/// this case's folder (@TMP@); `opts` are added to the minion's options
/// (a served recording's `cachedir` and `ca_bundle`).
pub struct Scratch {
    pub root: PathBuf,
    pub case: PathBuf,
    pub opts: Map,
}

impl Scratch {
    /// The recording minion's context ([`context`]) with [`Scratch::opts`].
    pub fn context(&self, data: &serde_json::Value) -> StateContext {
        let mut ctx = context(data, &self.root);
        if !self.opts.is_empty() {
            let mut opts = (*ctx.opts).clone();
            opts.extend(self.opts.clone());
            ctx.fileclient = Arc::new(LocalFileClient::from_opts(&opts));
            ctx.opts = Arc::new(opts);
        }
        ctx
    }

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
                // `dir/` is an empty folder.
                if rel.ends_with('/') {
                    std::fs::create_dir_all(&p).unwrap();
                } else {
                    std::fs::write(&p, text.as_str().unwrap_or_default()).unwrap();
                }
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
        case: dir.to_path_buf(),
        opts: Map::default(),
    };
    let mut opts = Map::default();
    opts.insert("id".into(), Value::Str("m1".into()));
    // The recording's cachedir, which Salt put under its root_dir.
    let work = dir.to_string_lossy();
    opts.insert(
        "cachedir".into(),
        Value::Str(format!("{work}/root{work}/cache")),
    );
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
        accumulators: Default::default(),
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
    // A recording may mix modules (ssh_auth with ssh_known_hosts).
    let module = if module.name == modname {
        module
    } else {
        crate::modules::lookup(modname).unwrap_or_else(|| panic!("{state} missing"))
    };
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
        // Each run gathers its own `file.accumulated` texts.
        ctx.accumulators = Default::default();
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
            ctx: scratch.context(data),
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

/// Every `|1|salt|hash` string (a hashed known_hosts name) as `<hashed>`.
fn mask_hashed(v: &mut serde_json::Value) {
    match v {
        serde_json::Value::String(s) if s.starts_with("|1|") => *s = "<hashed>".into(),
        serde_json::Value::Array(a) => a.iter_mut().for_each(mask_hashed),
        serde_json::Value::Object(o) => o.values_mut().for_each(mask_hashed),
        _ => {}
    }
}

/// A step's answer with what Salt builds from sets (in hash order) put
/// in order: the comment's lines and every list of strings sorted.
fn unordered(v: &serde_json::Value) -> serde_json::Value {
    match v {
        serde_json::Value::Object(o) => serde_json::Value::Object(
            o.iter()
                .map(|(k, x)| {
                    let x = match (k.as_str(), x) {
                        ("comment", serde_json::Value::String(c)) => {
                            let mut lines: Vec<&str> =
                                c.lines().filter(|l| !l.is_empty()).collect();
                            lines.sort_unstable();
                            serde_json::Value::String(lines.join("\n"))
                        }
                        _ => unordered(x),
                    };
                    (k.clone(), x)
                })
                .collect(),
        ),
        serde_json::Value::Array(a) => {
            let mut items: Vec<serde_json::Value> = a.iter().map(unordered).collect();
            if items.iter().all(serde_json::Value::is_string) {
                items.sort_by(|x, y| x.as_str().cmp(&y.as_str()));
            }
            serde_json::Value::Array(items)
        }
        other => other.clone(),
    }
}

/// High data of one SLS text (plain YAML), as the render stage hands it
/// over: `mod.fun` keys split, `__sls__`, `__env__` and Salt's automatic
/// `order` added.
fn sls_high(sls: &str, text: &str) -> Map {
    let Ok(Value::Map(mut high)) = brine_core::yaml::load(text) else {
        panic!("bad SLS {sls}");
    };
    let mut order = 10000;
    for body in high.values_mut() {
        let Value::Map(body) = body else { continue };
        let decls: Vec<(String, Value)> = body.drain(..).collect();
        for (key, args) in decls {
            let (m, f) = key.split_once('.').unwrap_or((key.as_str(), ""));
            let mut list = match args {
                Value::List(l) => l,
                _ => Vec::new(),
            };
            list.insert(0, Value::Str(f.into()));
            let mut o = Map::default();
            o.insert("order".into(), Value::Int(order));
            list.push(Value::Map(o));
            order += 1;
            body.insert(m.to_string(), Value::List(list));
        }
        body.insert("__sls__".into(), Value::Str(sls.into()));
        body.insert("__env__".into(), Value::Str("base".into()));
    }
    high
}

/// The servers of a recording made with `"served": true` (record_net.py's
/// `serve`): the cases' folders over http, over https with a certificate
/// the minion trusts (`ca_bundle`), and over https with one it does not.
struct Served {
    http: brine_host::http::testserver::Http,
    ftp: brine_host::http::testserver::Ftp,
    good: Option<brine_host::http::testserver::Https>,
    bad: Option<brine_host::http::testserver::Https>,
}

impl Served {
    /// Serve `root/cases` (every case's folder lies in it).
    fn start(root: &Path, tls: &Path) -> Served {
        use brine_host::http::testserver::{Ftp, Http, Https};
        Served {
            http: Http::serve(&root.join("cases")).unwrap(),
            ftp: Ftp::serve(&root.join("cases")).unwrap(),
            good: Https::serve(&root.join("cases"), &tls.join("good")),
            bad: Https::serve(&root.join("cases"), &tls.join("bad")),
        }
    }

    /// The placeholders of one case (its folder is `<root>/cases/<rel>`)
    /// and what they stand for here.
    fn placeholders(&self, rel: &str, cachedir: &Path) -> Vec<(String, String)> {
        let mut out = vec![
            ("@URL@".to_string(), format!("{}/{rel}", self.http.url())),
            ("@FTPURL@".to_string(), format!("{}/{rel}", self.ftp.url())),
            (
                "@FTPNETLOC@".to_string(),
                format!("127.0.0.1{}", self.ftp.port),
            ),
        ];
        for (key, srv) in [("@SURL@", &self.good), ("@BADURL@", &self.bad)] {
            if let Some(s) = srv {
                out.push((key.to_string(), format!("{}/{rel}", s.url())));
            }
        }
        out.push((
            "@NETLOC@".to_string(),
            format!("127.0.0.1{}", self.http.port),
        ));
        out.push((
            "@CACHE@".to_string(),
            cachedir.to_string_lossy().into_owned(),
        ));
        out
    }
}

/// `v` with every placeholder of `pairs` filled in (or, `back`, put back).
fn subst_all(v: &serde_json::Value, pairs: &[(String, String)], back: bool) -> serde_json::Value {
    pairs.iter().fold(v.clone(), |acc, (k, real)| {
        if back {
            subst(&acc, real, k)
        } else {
            subst(&acc, k, real)
        }
    })
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
    // A served recording: one set of servers and one root for all the
    // cases, each in its folder `cases/<case>` (served as `/<case>`, as
    // recorded) with a cache of its own.
    let served_root = tempfile::tempdir().unwrap();
    let served = data["served"].as_bool().unwrap_or(false).then(|| {
        std::fs::create_dir_all(served_root.path().join("cases")).unwrap();
        Served::start(served_root.path(), &served_root.path().join("tls"))
    });
    for (case, steps) in data["cases"].as_object().unwrap() {
        if only.is_some_and(|o| o != case) {
            continue;
        }
        let own = tempfile::tempdir().unwrap();
        let root = match served {
            Some(_) => served_root.path(),
            None => own.path(),
        };
        let dir = root.join("cases").join(case);
        std::fs::create_dir_all(&dir).unwrap();
        let mut scratch = Scratch {
            root: root.to_path_buf(),
            case: dir.clone(),
            opts: Map::default(),
        };
        std::fs::create_dir_all(scratch.etc()).unwrap();
        let mut pairs = Vec::new();
        if let Some(s) = &served {
            if s.good.is_none() || s.bad.is_none() {
                eprintln!("skipped: {case}: openssl cannot serve https here");
                continue;
            }
            let cachedir = root.join(format!("cache-{case}"));
            pairs = s.placeholders(case, &cachedir);
            scratch.opts.insert(
                "cachedir".into(),
                Value::Str(cachedir.to_string_lossy().into_owned()),
            );
            if let Some(g) = &s.good {
                scratch.opts.insert(
                    "ca_bundle".into(),
                    Value::Str(g.cert.to_string_lossy().into_owned()),
                );
            }
        }
        let mut runner = make(&data, &scratch);
        // The servers' placeholders first (their URLs hold no folder).
        pairs.push(("@TMP@".into(), dir.to_string_lossy().into_owned()));
        pairs.push(("@ETC@".into(), scratch.etc().to_string_lossy().into_owned()));
        pairs.push(("@WORK@".into(), root.to_string_lossy().into_owned()));
        let fill_v = |v: &serde_json::Value| subst_all(v, &pairs, false);
        let fill = |s: &str| {
            fill_v(&serde_json::json!(s))
                .as_str()
                .unwrap_or_default()
                .to_string()
        };
        let unfill = |v: &serde_json::Value| subst_all(v, &pairs, true);
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
                let got = unfill(&serde_json::json!(String::from_utf8_lossy(&out.stdout)));
                let got = got.as_str().unwrap_or_default();
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
            // A `high` step is high data; an `sls` step the text of one
            // SLS file (plain YAML), compiled as `state.sls` would.
            let high = match (step.get("high"), step["sls"].as_str()) {
                (Some(high), _) => Some(match Value::from_json(&fill_v(high)) {
                    Value::Map(m) => m,
                    _ => Map::default(),
                }),
                (None, Some(sls)) => Some(sls_high(
                    sls,
                    &fill(step["text"].as_str().unwrap_or_default()),
                )),
                (None, None) => None,
            };
            if let Some(high) = high {
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
            let args = match Value::from_json(&fill_v(&step["args"])) {
                Value::Map(m) => m,
                _ => Map::default(),
            };
            let state = step["state"].as_str().unwrap();
            let mut got = cleaned(unfill(&runner.state(state, &args, test)), true);
            // Hashed known_hosts names carry a random salt: recorded as
            // `<hashed>`.
            if step["masked"].as_str() == Some("hashed") {
                mask_hashed(&mut got);
            }
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
            // Host-dependent words (a TLS library's) past the marker.
            let expect = &match step["mask_after"].as_str() {
                Some(marker) => {
                    let cut = |v: &serde_json::Value| -> serde_json::Value {
                        let c = v.as_str().unwrap_or_default();
                        serde_json::json!(c.find(marker).map_or(c, |i| &c[..i + marker.len()]))
                    };
                    got["comment"] = cut(&got["comment"]);
                    let mut e = expect.clone();
                    e["comment"] = cut(&expect["comment"]);
                    e
                }
                None => expect.clone(),
            };
            let (got, expect) = if step["unordered"].as_bool() == Some(true) {
                (unordered(&got), unordered(expect))
            } else {
                (got, expect.clone())
            };
            if got != expect {
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
