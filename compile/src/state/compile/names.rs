//! `names` expansion: one low chunk per entry, in the order written,
//! duplicates dropped. A plain entry is the chunk's `name`; a one-key dict
//! entry `{name: [{arg: val}, ...]}` also overrides arguments for that name.
//! Each chunk gets `name_order` 1, 2, 3... which
//! [`order_chunks`](super::order::order_chunks) turns into a fraction of the
//! state's `order`, keeping the names together and in their order.

use super::py::{is_hashable, py_eq, py_iter, py_key, py_str, PyKey};
use brine_core::{Map, Value};
use std::collections::HashSet;

/// Collects `names` entries across a state's arguments, without repeats.
#[derive(Default)]
pub(crate) struct Names {
    entries: Vec<Value>,
    seen: HashSet<PyKey>,
}

impl Names {
    pub(crate) fn add(&mut self, entry: &Value) {
        let new = if is_hashable(entry) {
            self.seen.insert(py_key(entry))
        } else {
            !self.entries.iter().any(|e| py_eq(e, entry))
        };
        if new {
            self.entries.push(entry.clone());
        }
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The chunks for every name × function, built from the state's chunk.
    pub(crate) fn expand(
        &self,
        chunk: &Map,
        funcs: &[&str],
        out: &mut Vec<Map>,
    ) -> Result<(), BadNamesEntry> {
        for (i, entry) in self.entries.iter().enumerate() {
            let mut live = chunk.clone();
            match entry {
                Value::Map(m) => {
                    let Some((low_name, overrides)) = m.iter().next() else {
                        return Err(bad_entry(chunk, entry));
                    };
                    live.insert("name".into(), Value::Str(low_name.clone()));
                    let items = py_iter(overrides).ok_or_else(|| bad_entry(chunk, entry))?;
                    for item in items {
                        let Value::Map(args) = item else {
                            return Err(bad_entry(chunk, entry));
                        };
                        live.extend(args);
                    }
                }
                other => {
                    live.insert("name".into(), other.clone());
                }
            }
            live.insert("name_order".into(), Value::Int(i as i64 + 1));
            for fun in funcs {
                let mut c = live.clone();
                c.insert("fun".into(), Value::Str(fun.to_string()));
                out.push(c);
            }
        }
        Ok(())
    }
}

/// A `names` entry that is neither a name nor `{name: [{arg: val}...]}`.
/// Salt fails with a Python exception on these; this says what is wrong.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error(
    "The 'names' entry {entry} in state '{id}' in SLS '{sls}' must be a name or a one-key \
     dictionary holding a list of argument dictionaries"
)]
pub(crate) struct BadNamesEntry {
    /// The entry, as Python's `str()` shows it.
    pub entry: String,
    pub id: String,
    pub sls: String,
}

fn bad_entry(chunk: &Map, entry: &Value) -> BadNamesEntry {
    BadNamesEntry {
        entry: py_str(entry),
        id: chunk.get("__id__").map(py_str).unwrap_or_default(),
        sls: chunk.get("__sls__").map(py_str).unwrap_or_default(),
    }
}
