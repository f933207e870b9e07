//! States that call execution functions (`module.*`, `grains.*`) against
//! Salt 3007.8: the scenarios `states/src/modules/testdata/record.py`
//! recorded, replayed through the registry's `state.high` as `salt-call
//! --local state.high` ran them, on a minion configured as the recording
//! one was.

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
