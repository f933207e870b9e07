//! Finding the states a requisite or an `extend` points at: by ID, by
//! `state: name` (any one-key argument whose value is the name), by `sls`.
//!
//! Salt scans the whole high data for every lookup by name; here an index
//! built on first use answers it, so a tree with thousands of states
//! targeted by name stays linear.

use super::py::{first_key, is_dunder, is_hashable, py_eq, py_key, PyKey};
use crate::state::HighData;
use brine_core::Value;
use std::collections::{HashMap, HashSet};

/// `(ID, state module)` pairs, in high data order.
pub(crate) type Targets = Vec<(String, String)>;

/// Index of one-key arguments: `(state module, value)` → IDs, one entry per
/// matching argument (Salt counts an ID twice when two of its arguments
/// hold the name, and then refuses the lookup as ambiguous).
#[derive(Default)]
pub(crate) struct NameIndex {
    by_arg: Option<HashMap<(String, PyKey), Vec<String>>>,
    /// `name: value` in any argument dict → first `(ID, state)` holding it,
    /// for bare-string `*_in` requisites.
    by_name_arg: Option<HashMap<PyKey, (String, String)>>,
}

impl NameIndex {
    fn arg_index(&mut self, high: &HighData) -> &HashMap<(String, PyKey), Vec<String>> {
        self.by_arg.get_or_insert_with(|| {
            let mut map: HashMap<(String, PyKey), Vec<String>> = HashMap::new();
            for (nid, body) in high {
                let Some(body) = body.as_map() else { continue };
                for (state, run) in body {
                    for key in one_key_values(run) {
                        map.entry((state.clone(), key))
                            .or_default()
                            .push(nid.clone());
                    }
                }
            }
            map
        })
    }

    /// Forget what the list `high[nid][state]` contributed, before it changes.
    pub(crate) fn remove_list(&mut self, nid: &str, state: &str, run: &Value) {
        let Some(map) = self.by_arg.as_mut() else {
            return;
        };
        for key in one_key_values(run) {
            if let Some(ids) = map.get_mut(&(state.to_string(), key)) {
                if let Some(pos) = ids.iter().position(|i| i == nid) {
                    ids.remove(pos);
                }
            }
        }
    }

    /// Record what the list `high[nid][state]` contributes, after it changed.
    pub(crate) fn add_list(&mut self, nid: &str, state: &str, run: &Value) {
        let Some(map) = self.by_arg.as_mut() else {
            return;
        };
        for key in one_key_values(run) {
            map.entry((state.to_string(), key))
                .or_default()
                .push(nid.to_string());
        }
    }

    /// The first `(ID, state)` with an argument `name: value` (bare-string
    /// requisite_in targets that are not IDs).
    pub(crate) fn by_name_arg(
        &mut self,
        high: &HighData,
        value: &Value,
    ) -> Option<(String, String)> {
        if !is_hashable(value) {
            return None;
        }
        let map = self.by_name_arg.get_or_insert_with(|| {
            let mut map = HashMap::new();
            for (nid, body) in high {
                let Some(body) = body.as_map() else { continue };
                for (state, run) in body {
                    if is_dunder(state) {
                        continue;
                    }
                    let Some(args) = run.as_list() else { continue };
                    for arg in args {
                        if let Some(name) = arg.as_map().and_then(|m| m.get("name")) {
                            if is_hashable(name) {
                                map.entry(py_key(name))
                                    .or_insert_with(|| (nid.clone(), state.clone()));
                            }
                        }
                    }
                }
            }
            map
        });
        map.get(&py_key(value)).cloned()
    }
}

/// The hashable values of the one-key dicts in a state's argument list.
fn one_key_values(run: &Value) -> impl Iterator<Item = PyKey> + '_ {
    run.as_list()
        .unwrap_or_default()
        .iter()
        .filter_map(|arg| arg.as_map())
        .filter(|m| m.len() == 1)
        .filter_map(|m| m.values().next())
        .filter(|v| is_hashable(v))
        .map(py_key)
}

/// Salt's `find_name`: the `(ID, state)` pairs `name` designates for
/// `state`. The ID itself wins (when `strict`, only if it has that state
/// module); `state == "sls"` means every ID of that SLS; else every ID
/// whose `state` list has a one-key argument equal to `name`.
pub(crate) fn find_name(
    name: &Value,
    state: &str,
    high: &HighData,
    strict: bool,
    index: &mut NameIndex,
) -> Targets {
    if let Some(n) = name.as_str() {
        if let Some(body) = high.get(n) {
            let has_state = !strict || body.as_map().is_some_and(|b| b.contains_key(state));
            if has_state {
                return vec![(n.to_string(), state.to_string())];
            }
        }
    }
    if state == "sls" {
        let mut out = Vec::new();
        for (nid, item) in high {
            let Some(item) = item.as_map() else { continue };
            if item.get("__sls__").is_some_and(|s| py_eq(s, name)) {
                // Salt takes the body's first key, which may be `__sls__`.
                if let Some(first) = first_key(item) {
                    out.push((nid.clone(), first.to_string()));
                }
            }
        }
        return out;
    }
    if !is_hashable(name) {
        return Vec::new();
    }
    index
        .arg_index(high)
        .get(&(state.to_string(), py_key(name)))
        .map(|ids| ids.iter().map(|i| (i.clone(), state.to_string())).collect())
        .unwrap_or_default()
}

/// Salt's `find_sls_ids`: every `(ID, state)` declared in SLS `sls`.
pub(crate) fn find_sls_ids(sls: &Value, high: &HighData) -> Targets {
    let mut out = Vec::new();
    for (nid, item) in high {
        let Some(item) = item.as_map() else { continue };
        if item.get("__sls__").is_some_and(|s| py_eq(s, sls)) {
            for st in item.keys().filter(|k| !is_dunder(k)) {
                out.push((nid.clone(), st.clone()));
            }
        }
    }
    out
}

/// Salt's `state_args`: the keys of the one-key arguments of `high[id][state]`.
pub(crate) fn state_args(id: &str, state: &str, high: &HighData) -> HashSet<String> {
    high.get(id)
        .and_then(|b| b.get(state))
        .and_then(Value::as_list)
        .unwrap_or_default()
        .iter()
        .filter_map(Value::as_map)
        .filter(|m| m.len() == 1)
        .filter_map(|m| first_key(m).map(str::to_string))
        .collect()
}
