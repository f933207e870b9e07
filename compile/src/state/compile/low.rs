//! `compile_high_data` (Salt's `State.compile_high_data`): each state
//! module of each ID becomes one low chunk per function (and per `names`
//! entry), then [`order_chunks`] sorts them.
//!
//! A chunk's keys come in Salt's order: `state`, `name`, `__sls__`,
//! `__env__`, `__sls_included_from__`, `__id__`, then the arguments as
//! written (a repeated key keeps its first position), then `fun`.
//! `name` that is not a string falls back to the ID; a `state` argument is
//! dropped.

use super::names::Names;
use super::order::order_chunks;
use super::py::{is_dunder, py_iter};
use crate::state::HighData;
use brine_core::{Map, Value};

/// Low chunks, sorted as Salt runs them. Errors only where Salt itself
/// would stop with an exception (a malformed `names` entry).
pub fn compile_high_data(high: &HighData) -> Result<Vec<Map>, Vec<String>> {
    compile_high_data_owned(high.clone())
}

/// [`compile_high_data`], consuming the high data: each ID's body is freed
/// as soon as its chunks are built, so a run never holds both in full.
pub fn compile_high_data_owned(high: HighData) -> Result<Vec<Map>, Vec<String>> {
    // Most IDs hold one state with one function: one chunk each.
    let mut chunks = Vec::with_capacity(high.len());
    let mut errors = Vec::new();
    for (id, body) in high {
        if is_dunder(&id) {
            continue;
        }
        let Value::Map(body) = body else { continue };
        let shared: Vec<(&str, Value)> = ["__sls__", "__env__", "__sls_included_from__"]
            .into_iter()
            .filter_map(|k| body.get(k).map(|v| (k, v.clone())))
            .collect();
        for (state, run) in body {
            if is_dunder(&state) {
                continue;
            }
            // Python iterates whatever the value is; a list is the norm.
            let args: Vec<Value> = match run {
                Value::List(l) => l,
                other => py_iter(&other).unwrap_or_default(),
            };
            let mut chunk = Map::with_capacity_and_hasher(8 + args.len(), Default::default());
            chunk.insert("state".into(), Value::Str(state.clone()));
            chunk.insert("name".into(), Value::Str(id.clone()));
            for (key, v) in &shared {
                chunk.insert((*key).into(), v.clone());
            }
            chunk.insert("__id__".into(), Value::Str(id.clone()));
            let mut funcs: Vec<String> = Vec::new();
            let mut names = Names::default();
            for arg in args {
                match arg {
                    Value::Str(fun) if !funcs.contains(&fun) => funcs.push(fun),
                    Value::Map(arg) => {
                        for (key, val) in arg {
                            match key.as_str() {
                                "names" => match py_iter(&val) {
                                    Some(entries) => entries.iter().for_each(|e| names.add(e)),
                                    None => errors.push(format!(
                                        "The 'names' argument in state '{id}' is a {}, not a list",
                                        val.type_name()
                                    )),
                                },
                                "state" => {}
                                "name" if !matches!(val, Value::Str(_)) => {
                                    chunk.insert(key, Value::Str(id.clone()));
                                }
                                _ => {
                                    chunk.insert(key, val);
                                }
                            }
                        }
                    }
                    _ => {}
                }
            }
            let funcs: Vec<&str> = funcs.iter().map(String::as_str).collect();
            if !names.is_empty() {
                if let Err(e) = names.expand(&chunk, &funcs, &mut chunks) {
                    errors.push(e.to_string());
                }
                continue;
            }
            // One chunk per function; the last takes the built chunk itself.
            if let Some((last, rest)) = funcs.split_last() {
                for fun in rest {
                    let mut live = chunk.clone();
                    live.insert("fun".into(), Value::Str(fun.to_string()));
                    chunks.push(live);
                }
                chunk.insert("fun".into(), Value::Str(last.to_string()));
                chunks.push(chunk);
            }
        }
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    order_chunks(&mut chunks);
    Ok(chunks)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::compile::test_high;

    fn keys(chunk: &Map) -> Vec<&str> {
        chunk.keys().map(String::as_str).collect()
    }

    #[test]
    fn chunk_fields_come_in_salts_order() {
        let high = test_high(
            "x:\n  __sls__: s\n  __env__: base\n  test:\n    - fun: early\n    - comment: c\n    - nop\n    - order: 3\n    - state: file\n",
        );
        let chunks = compile_high_data(&high).expect("compiles");
        assert_eq!(
            keys(&chunks[0]),
            ["state", "name", "__sls__", "__env__", "__id__", "fun", "comment", "order"]
        );
        assert_eq!(chunks[0]["fun"], Value::Str("nop".into()));
        assert_eq!(chunks[0]["state"], Value::Str("test".into()));
    }

    #[test]
    fn names_expand_with_overrides_and_without_repeats() {
        let high = test_high(
            "pk:\n  __sls__: s\n  test:\n    - comment: d\n    - names: [vim, vim, {curl: [{comment: c}]}, 42]\n    - nop\n    - order: 10\n",
        );
        let chunks = compile_high_data(&high).expect("compiles");
        let got: Vec<(Value, Value, Value)> = chunks
            .iter()
            .map(|c| (c["name"].clone(), c["comment"].clone(), c["order"].clone()))
            .collect();
        assert_eq!(
            got,
            vec![
                ("vim".into(), "d".into(), Value::Float(10.0001)),
                ("curl".into(), "c".into(), Value::Float(10.0002)),
                (Value::Int(42), "d".into(), Value::Float(10.0003)),
            ]
        );
    }

    #[test]
    fn a_names_entry_salt_cannot_apply_is_an_error() {
        let high = test_high(
            "pk:\n  __sls__: s\n  test:\n    - names: [{curl: {comment: c}}]\n    - nop\n",
        );
        assert!(compile_high_data(&high).is_err());
    }
}
