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
use brine_protocol::{Map, Value};

/// Low chunks, sorted as Salt runs them. Errors only where Salt itself
/// would stop with an exception (a malformed `names` entry).
pub fn compile_high_data(high: &HighData) -> Result<Vec<Map>, Vec<String>> {
    let mut chunks = Vec::new();
    let mut errors = Vec::new();
    for (id, body) in high {
        if is_dunder(id) {
            continue;
        }
        let Some(body) = body.as_map() else { continue };
        for (state, run) in body {
            if is_dunder(state) {
                continue;
            }
            let mut chunk = Map::new();
            chunk.insert("state".into(), Value::Str(state.clone()));
            chunk.insert("name".into(), Value::Str(id.clone()));
            for key in ["__sls__", "__env__", "__sls_included_from__"] {
                if let Some(v) = body.get(key) {
                    chunk.insert(key.into(), v.clone());
                }
            }
            chunk.insert("__id__".into(), Value::Str(id.clone()));
            let mut funcs: Vec<String> = Vec::new();
            let mut names = Names::default();
            for arg in py_iter(run).unwrap_or_default() {
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
            if names.is_empty() {
                for fun in &funcs {
                    let mut live = chunk.clone();
                    live.insert("fun".into(), Value::Str(fun.clone()));
                    chunks.push(live);
                }
            } else if let Err(e) = names.expand(&chunk, &funcs, &mut chunks) {
                errors.push(e);
            }
        }
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    order_chunks(&mut chunks);
    Ok(chunks)
}
