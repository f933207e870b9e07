//! State runs through the registry. States that call execution functions
//! (`module.*`, `grains.*`) against Salt 3007.8: the scenarios
//! `states/src/modules/testdata/record_ops.py` recorded, replayed through the
//! registry's `state.high` as `salt-call --local state.high` ran them, on
//! a minion configured as the recording one was. And a state run while
//! another runs: refused, or queued, as Salt's `_check_queue` does.

use super::call;
use super::registry::functions;
use crate::context::Minion;
use brine_core::args::CallArgs;
use brine_core::{Map, Value};
use brine_states::replay::{replay_with, Runner, Scratch};

/// A masterless minion like the recording one: id `m1`, the recorded
/// grains in its configuration, pillar and file roots under `scratch`.
fn minion(data: &serde_json::Value, scratch: &Scratch) -> Minion {
    let pillar = scratch.root.join("pillar");
    std::fs::create_dir_all(&pillar).unwrap();
    std::fs::write(pillar.join("top.sls"), "base:\n  '*': [data]\n").unwrap();
    std::fs::write(pillar.join("data.sls"), data["pillar"].to_string()).unwrap();
    let conf = serde_json::json!({
        "id": "m1", "file_client": "local", "log_level": "quiet",
        "root_dir": scratch.root.join("root"), "cachedir": scratch.root.join("cache"),
        "file_roots": Value::Map(scratch.file_roots(data)).to_json(),
        "pillar_roots": {"base": [pillar]},
        "grains": data["grains"],
    });
    std::fs::write(scratch.etc().join("minion"), conf.to_string()).unwrap();
    Minion::start_local(&scratch.etc(), functions())
        .expect("the minion's configuration loads")
        .0
}

struct ViaRegistry(Minion);

impl Runner for ViaRegistry {
    fn state(&mut self, state: &str, args: &Map, test: bool) -> serde_json::Value {
        let (module, fun) = state.split_once('.').expect("module.function");
        let mut decl = vec![Value::Str(fun.into())];
        for (k, v) in args {
            let mut one = Map::default();
            one.insert(k.clone(), v.clone());
            decl.push(Value::Map(one));
        }
        let mut body = Map::default();
        body.insert(module.into(), Value::List(decl));
        let mut high = Map::default();
        high.insert("probe".into(), Value::Map(body));
        match self.high(high, test) {
            serde_json::Value::Object(o) if o.len() == 1 => {
                o.into_iter().next().map(|(_, v)| v).unwrap_or_default()
            }
            other => other,
        }
    }

    fn high(&mut self, high: Map, test: bool) -> serde_json::Value {
        let mut args = CallArgs::default();
        args.args.push(Value::Map(high));
        if test {
            args.kwargs.insert("test".into(), Value::Bool(true));
        }
        match call(&mut self.0, "state.high", args) {
            Ok(r) => r.value.to_json(),
            Err(e) => serde_json::Value::String(e.to_string()),
        }
    }
}

fn replay(json: &str, only: Option<&str>) {
    replay_with(json, only, &mut |data, scratch| {
        Box::new(ViaRegistry(minion(data, scratch)))
    });
}

#[test]
fn module_states_match_salt() {
    replay(
        include_str!("../../../states/src/modules/testdata/module.json"),
        None,
    );
}

#[test]
fn grains_states_match_salt() {
    replay(
        include_str!("../../../states/src/modules/testdata/grains.json"),
        None,
    );
}

/// A daemon's table of running jobs whose jobs end when told.
#[derive(Default)]
struct Table(std::sync::Mutex<Vec<Map>>);

impl brine_host::jobs::RunningJobs for Table {
    fn list(&self) -> Vec<Map> {
        self.0.lock().map(|g| g.clone()).unwrap_or_default()
    }
    fn signal(&self, _: &str, _: i32) -> bool {
        false
    }
    fn track(&self, _: &str, _: u32, _: bool) {}
}

fn job(fun: &str, jid: &str) -> Map {
    let mut m = Map::default();
    m.insert("fun".into(), Value::Str(fun.into()));
    m.insert("pid".into(), Value::Int(4242));
    m.insert("jid".into(), Value::Str(jid.into()));
    m
}

fn single(m: &mut Minion, extra: &[(&str, Value)]) -> crate::modules::Return {
    let mut args = CallArgs::default();
    args.args.push(Value::Str("test.nop".into()));
    args.args.push(Value::Str("x".into()));
    for (k, v) in extra {
        args.kwargs.insert(k.to_string(), v.clone());
    }
    call(m, "state.single", args).expect("state.single answers")
}

/// Another state job running refuses a state run with Salt's sentence
/// (retcode 1); `concurrent=True` runs anyway; jobs that are not state
/// runs do not count.
#[test]
fn a_state_run_is_refused_while_another_runs() {
    let tmp = tempfile::tempdir().unwrap();
    let scratch = Scratch {
        root: tmp.path().to_path_buf(),
        case: tmp.path().to_path_buf(),
        opts: Default::default(),
    };
    std::fs::create_dir_all(scratch.etc()).unwrap();
    let data = serde_json::json!({"grains": {}, "pillar": {}, "file_roots": {}});
    let mut m = minion(&data, &scratch);
    let table = std::sync::Arc::new(Table::default());
    m.jobs = brine_host::jobs::Jobs::new(table.clone(), Some("20260101000000000002".into()));
    table
        .0
        .lock()
        .unwrap()
        .push(job("cmd.run", "20260101000000000001"));
    let ok = single(&mut m, &[]);
    assert_eq!(ok.retcode, 0, "{:?}", ok.value);
    table
        .0
        .lock()
        .unwrap()
        .push(job("state.sls", "20260101000000000001"));
    let refused = single(&mut m, &[]);
    assert_eq!(refused.retcode, 1);
    assert_eq!(
        refused.value.to_json(),
        serde_json::json!([
            "The function \"state.sls\" is running as PID 4242 and was started at \
             2026, Jan 01 00:00:00.000001 with jid 20260101000000000001"
        ])
    );
    let anyway = single(&mut m, &[("concurrent", Value::Bool(true))]);
    assert_eq!(anyway.retcode, 0, "{:?}", anyway.value);
    // A number: wait only while fewer runs are ahead; one is, so refuse.
    let refused = single(&mut m, &[("queue", Value::Int(1))]);
    assert_eq!(refused.retcode, 1);
    // queue=2: fewer runs than that are ahead, so it waits for them; the
    // one ahead ends after a while, and this one then runs.
    let ending = table.clone();
    let ender = std::thread::spawn(move || {
        std::thread::sleep(std::time::Duration::from_millis(1500));
        ending
            .0
            .lock()
            .unwrap()
            .retain(|j| j.get("fun") != Some(&Value::Str("state.sls".into())));
    });
    let started = std::time::Instant::now();
    let waited = single(&mut m, &[("queue", Value::Int(2))]);
    assert_eq!(waited.retcode, 0, "{:?}", waited.value);
    assert!(started.elapsed() >= std::time::Duration::from_millis(1400));
    ender.join().unwrap();
    // A run started after this one is not waited for.
    table
        .0
        .lock()
        .unwrap()
        .push(job("state.sls", "20260101000000000009"));
    let started = std::time::Instant::now();
    let later = single(&mut m, &[("queue", Value::Bool(true))]);
    assert_eq!(later.retcode, 0, "{:?}", later.value);
    assert!(started.elapsed() < std::time::Duration::from_secs(1));
}
