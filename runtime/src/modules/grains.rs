//! `grains.*`: the minion's grains.

use super::{opt_string, CallError, Params};
use crate::context::Minion;
use brine_core::{Map, Value};

pub(super) fn call(m: &Minion, name: &str, mut p: Params) -> Option<Result<Value, CallError>> {
    let grains = Value::Map(m.grains.clone());
    Some(match name {
        "items" => {
            p.kw("sanitize");
            p.finish().map(|_| grains)
        }
        "item" => {
            let keys = p.rest();
            p.kw("sanitize");
            p.finish().map(|_| {
                let mut out = Map::new();
                for k in keys {
                    let k = k.to_python_str();
                    let v = grains
                        .traverse(&k, ":")
                        .cloned()
                        .unwrap_or(Value::Str(String::new()));
                    out.insert(k, v);
                }
                Value::Map(out)
            })
        }
        "get" => (|| {
            let key = p.require("key")?.to_python_str();
            let default = p.take("default").unwrap_or(Value::Str(String::new()));
            let delimiter = opt_string(p.take("delimiter")).unwrap_or_else(|| ":".into());
            p.kw("ordered");
            p.finish()?;
            Ok(grains
                .traverse(&key, &delimiter)
                .cloned()
                .unwrap_or(default))
        })(),
        "ls" => p.finish().map(|_| {
            let mut keys: Vec<&String> = m.grains.keys().collect();
            keys.sort();
            Value::List(keys.into_iter().map(|k| Value::Str(k.clone())).collect())
        }),
        _ => return None,
    })
}
