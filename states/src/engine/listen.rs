//! `listen` / `listen_in`: after all chunks ran, each listener whose
//! listened-to state changed gets its `mod_watch` run once, in listener
//! order (Salt's `call_listen`).

use super::chunk::{gen_tag, RuntimeError};
use super::runtime::Runtime;
use crate::StateContext;
use brine_compile::state::vocabulary::REQUISITE_KEYWORDS;
use brine_core::{Map, Value};
use foldhash::{HashMap, HashMapExt};

/// Whether a chunk takes part in `listen` (as a listener or through
/// `listen_in`); only those are kept for [`call_listen`].
pub fn involved(low: &Map) -> bool {
    low.contains_key("listen") || low.contains_key("listen_in")
}

pub(super) fn s<'a>(low: &'a Map, k: &str) -> &'a str {
    low.get(k).and_then(Value::as_str).unwrap_or("")
}

/// Salt's `_l_tag`: the tag of a listen error.
pub(super) fn listen_error_tag(state: &str, id: &str) -> String {
    format!("Listen_Error_|-listen_{id}_|-listen_{state}_|-Listen_Error")
}

pub(super) fn listen_error(state: &str, id: &str) -> Map {
    let mut m = Map::default();
    m.insert(
        "comment".into(),
        Value::Str(format!("Referenced state {state}: {id} does not exist")),
    );
    m.insert("name".into(), Value::Str(format!("listen_{state}:{id}")));
    m.insert("result".into(), Value::Bool(false));
    m.insert("changes".into(), Value::new_map());
    m
}

/// Chunks by (state, id) and by (state, name), the two ways Salt's
/// `lval in cref` test can match a chunk reference.
pub(super) struct Refs<'a> {
    by_state_id: HashMap<(&'a str, &'a str), Vec<usize>>,
    by_state_name: HashMap<(&'a str, &'a str), Vec<usize>>,
}

impl<'a> Refs<'a> {
    pub(super) fn new(chunks: &'a [Map]) -> Refs<'a> {
        let mut r = Refs {
            by_state_id: HashMap::new(),
            by_state_name: HashMap::new(),
        };
        for (i, c) in chunks.iter().enumerate() {
            r.by_state_id
                .entry((s(c, "state"), s(c, "__id__")))
                .or_default()
                .push(i);
            r.by_state_name
                .entry((s(c, "state"), s(c, "name")))
                .or_default()
                .push(i);
        }
        r
    }

    /// Chunks of module `state` whose id or name is `val`.
    pub(super) fn find(&self, state: &str, val: &str) -> Vec<usize> {
        let mut out: Vec<usize> = Vec::new();
        for m in [&self.by_state_id, &self.by_state_name] {
            if let Some(v) = m.get(&(state, val)) {
                out.extend(v);
            }
        }
        out.sort_unstable();
        out.dedup();
        out
    }
}

/// Run the `mod_watch` of every listener whose listened-to state changed,
/// adding their returns (and listen errors) to `running`.
pub fn call_listen(
    ctx: &StateContext,
    all: &[Map],
    running: &mut Map,
    run_num: i64,
) -> Result<(), RuntimeError> {
    // The listen relations: (listener module, listener id or name, what it
    // listens to), in chunk order.
    let mut listeners: Vec<(String, String, Vec<Value>)> = Vec::new();
    for c in all {
        if let Some(Value::List(l)) = c.get("listen") {
            listeners.push((s(c, "state").into(), s(c, "__id__").into(), l.clone()));
        }
        if let Some(Value::List(l_in)) = c.get("listen_in") {
            for item in l_in {
                let Value::Map(m) = item else { continue };
                for (key, val) in m {
                    let mut back = Map::default();
                    back.insert(s(c, "state").into(), Value::Str(s(c, "__id__").into()));
                    listeners.push((key.clone(), val.to_python_str(), vec![Value::Map(back)]));
                }
            }
        }
    }
    let refs = Refs::new(all);
    let mut watchers: Vec<Map> = Vec::new();
    // A dict in Salt: one entry per error tag.
    let mut errors: indexmap::IndexMap<String, Map> = indexmap::IndexMap::new();
    for (lstate, lid, targets) in &listeners {
        for target in targets {
            let resolved;
            let target_map = match target {
                Value::Map(m) => m,
                other => {
                    // A bare id or name: the last chunk so named.
                    let want = other.to_python_str();
                    let Some(c) = all
                        .iter()
                        .rev()
                        .find(|c| s(c, "__id__") == want || s(c, "name") == want)
                    else {
                        continue;
                    };
                    let mut m = Map::default();
                    m.insert(s(c, "state").into(), Value::Str(s(c, "__id__").into()));
                    resolved = m;
                    &resolved
                }
            };
            for (tstate, tval) in target_map {
                let tval = tval.to_python_str();
                let hits = refs.find(tstate, &tval);
                if hits.is_empty() {
                    errors.insert(listen_error_tag(tstate, &tval), listen_error(tstate, &tval));
                    continue;
                }
                for h in hits {
                    let to_tag = gen_tag(&all[h]);
                    let Some(ret) = running.get(&to_tag) else {
                        continue;
                    };
                    if !ret.get("changes").is_some_and(Value::is_truthy) {
                        continue;
                    }
                    let listener_chunks = refs.find(lstate, lid);
                    if listener_chunks.is_empty() {
                        errors.insert(listen_error_tag(lstate, lid), listen_error(lstate, lid));
                        continue;
                    }
                    for lc in listener_chunks {
                        let mut low = all[lc].clone();
                        let fun = low.get("fun").cloned().unwrap_or(Value::Null);
                        low.insert("sfun".into(), fun);
                        low.insert("fun".into(), Value::Str("mod_watch".into()));
                        let id = format!("listener_{}", s(&all[lc], "__id__"));
                        low.insert("__id__".into(), Value::Str(id));
                        for req in REQUISITE_KEYWORDS {
                            low.shift_remove(*req);
                        }
                        watchers.push(low);
                    }
                }
            }
        }
    }
    let mut run_num = run_num;
    if !watchers.is_empty() {
        let mut rt = Runtime::new(ctx, watchers, run_num);
        rt.call_chunks()?;
        run_num = rt.run_num;
        for (tag, ret) in rt.into_running() {
            running.insert(tag, ret);
        }
    }
    for (tag, mut err) in errors {
        err.insert("__run_num__".into(), Value::Int(run_num));
        run_num += 1;
        running.insert(tag, Value::Map(err));
    }
    Ok(())
}
