//! Core grains read from the running system.

use brine_protocol::{Map, Value};

pub fn core_grains(minion_id: &str) -> Map {
    let mut m = Map::new();
    m.insert("id".into(), Value::Str(minion_id.to_string()));
    m
}

pub fn merge_static(mut core: Map, static_grains: &Map) -> Map {
    for (k, v) in static_grains {
        core.insert(k.clone(), v.clone());
    }
    core
}
