//! `pillar.*`: `items` compiles a fresh pillar; `item`, `get` and `raw` read
//! the in-memory one unless asked for a `pillarenv`/`saltenv`.

use super::{opt_string, CallError, Params};
use crate::context::{FreshPillar, Minion};
use brine_compile::pillar::merge::update;
use brine_core::{Map, Value};

pub(super) fn call(m: &mut Minion, name: &str, mut p: Params) -> Option<Result<Value, CallError>> {
    Some(match name {
        "items" | "data" => items(m, p),
        "item" => (|| {
            let keys = p.rest();
            let default = p.kw("default").unwrap_or(Value::Str(String::new()));
            let delimiter = opt_string(p.kw("delimiter")).unwrap_or_else(|| ":".into());
            let fresh = fresh_request(&mut p, None);
            p.finish()?;
            let pillar = source(m, fresh);
            let mut out = Map::new();
            for k in keys {
                let k = k.to_python_str();
                let v = pillar
                    .traverse(&k, &delimiter)
                    .cloned()
                    .unwrap_or_else(|| default.clone());
                out.insert(k, v);
            }
            Ok(Value::Map(out))
        })(),
        "get" | "fetch" => (|| {
            let key = p.require("key")?.to_python_str();
            let default = p.take("default").unwrap_or(Value::Str(String::new()));
            let merge = p.take("merge").is_some_and(|v| v.is_truthy());
            let merge_nested = p.take("merge_nested_lists");
            let delimiter = opt_string(p.take("delimiter")).unwrap_or_else(|| ":".into());
            let fresh = fresh_request(&mut p, None);
            p.finish()?;
            let pillar = source(m, fresh);
            let found = pillar.traverse(&key, &delimiter).cloned();
            Ok(match (found, merge) {
                (Some(Value::Map(got)), true) => match default {
                    Value::Map(mut d) => {
                        let lists = merge_nested.map(|v| v.is_truthy()).unwrap_or_else(|| {
                            brine_compile::opts::get_bool(&m.opts, "pillar_merge_lists", false)
                        });
                        update(&mut d, got, lists);
                        Value::Map(d)
                    }
                    _ => Value::Map(got),
                },
                (Some(v), _) => v,
                (None, _) => default,
            })
        })(),
        "raw" => (|| {
            let key = opt_string(p.take("key"));
            p.finish()?;
            let pillar = Value::Map(m.pillar.clone());
            Ok(match key {
                Some(k) => pillar.get(&k).cloned().unwrap_or_else(Value::new_map),
                None => pillar,
            })
        })(),
        "ls" => (|| {
            let fresh = fresh_request(&mut p, None);
            p.finish()?;
            let pillar = match fresh {
                Some(f) => m.compile_pillar(&f, true),
                None => m.compile_pillar(&FreshPillar::default(), true),
            };
            Ok(Value::List(
                pillar.keys().map(|k| Value::Str(k.clone())).collect(),
            ))
        })(),
        _ => return None,
    })
}

/// `pillar.items`: always a fresh compile (positional args mean `item`).
fn items(m: &mut Minion, mut p: Params) -> Result<Value, CallError> {
    let args = p.rest();
    if !args.is_empty() {
        let mut p2 = Params::new("item", brine_core::args::CallArgs::default());
        p2.args = args.into();
        p2.kwargs = std::mem::take(&mut p.kwargs);
        return call(m, "item", p2).unwrap_or_else(|| Ok(Value::Null));
    }
    let pillar_override = p.take("pillar");
    p.kw("pillar_enc");
    let req = fresh_request(&mut p, pillar_override).unwrap_or_default();
    p.finish()?;
    Ok(Value::Map(m.compile_pillar(&req, true)))
}

/// `pillarenv=`/`saltenv=` (and `pillar=` for items) ask for a fresh compile.
fn fresh_request(p: &mut Params, pillar_override: Option<Value>) -> Option<FreshPillar> {
    let pillarenv = opt_string(p.kw("pillarenv"));
    let saltenv = opt_string(p.kw("saltenv"));
    if pillarenv.is_none() && saltenv.is_none() && pillar_override.is_none() {
        return None;
    }
    Some(FreshPillar {
        pillarenv,
        saltenv,
        pillar_override,
    })
}

/// The pillar a reading function uses: fresh when asked, else in memory.
fn source(m: &Minion, fresh: Option<FreshPillar>) -> Value {
    match fresh {
        Some(f) => Value::Map(m.compile_pillar(&f, true)),
        None => Value::Map(m.pillar.clone()),
    }
}
