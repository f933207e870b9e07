//! The requisite index: which chunks a requisite names, looked up by id,
//! name and SLS through hash maps (never by scanning every chunk), and
//! the outcomes a requisite check can have.

use super::chunk::Chunk;
use brine_compile::matcher::glob::fnmatch;
use brine_core::{Map, Value};
use foldhash::{HashMap, HashMapExt};

/// The requisite kinds, as the state vocabulary names them.
pub use brine_compile::state::vocabulary::Requisite as Kind;

/// The chunks each requisite kind of a state named, in chunk order.
pub type Reqs = Vec<(Kind, Vec<usize>)>;

/// Outcome of a requisite check (Salt's status strings).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    Met,
    Unmet,
    Fail,
    Pre,
    Onfail,
    Onchanges,
    Change,
}

/// Chunks by `__id__`, `name`, `__sls__` and `__sls_included_from__`.
pub struct Index {
    by_id: HashMap<String, Vec<usize>>,
    by_name: HashMap<String, Vec<usize>>,
    by_sls: HashMap<String, Vec<usize>>,
    by_included_from: HashMap<String, Vec<usize>>,
}

pub(super) fn is_glob(s: &str) -> bool {
    s.contains(['*', '?', '['])
}

impl Index {
    pub fn build(chunks: &[Chunk]) -> Index {
        let mut ix = Index {
            by_id: HashMap::new(),
            by_name: HashMap::new(),
            by_sls: HashMap::new(),
            by_included_from: HashMap::new(),
        };
        for (i, c) in chunks.iter().enumerate() {
            let low = &c.low;
            if let Some(id) = low.get("__id__").and_then(Value::as_str) {
                ix.by_id.entry(id.to_string()).or_default().push(i);
            }
            if let Some(name) = low.get("name").and_then(Value::as_str) {
                ix.by_name.entry(name.to_string()).or_default().push(i);
            }
            if let Some(sls) = low.get("__sls__").and_then(Value::as_str) {
                ix.by_sls.entry(sls.to_string()).or_default().push(i);
            }
            if let Some(from) = low.get("__sls_included_from__").and_then(Value::as_list) {
                for f in from.iter().filter_map(Value::as_str) {
                    let v = ix.by_included_from.entry(f.to_string()).or_default();
                    if v.last() != Some(&i) {
                        v.push(i);
                    }
                }
            }
        }
        ix
    }

    /// The chunks requisite `key: val` names, in chunk order: for `sls`,
    /// chunks whose SLS matches the glob or that it included; otherwise
    /// chunks whose name or id matches the glob and whose state module is
    /// `key` (any module for `id`).
    pub fn matching(&self, chunks: &[Chunk], key: &str, val: &str) -> Vec<usize> {
        let mut out: Vec<usize> = Vec::new();
        if key == "sls" {
            if is_glob(val) {
                for (i, c) in chunks.iter().enumerate() {
                    let sls_match = c
                        .low
                        .get("__sls__")
                        .and_then(Value::as_str)
                        .is_some_and(|s| fnmatch(s, val));
                    let included = c
                        .low
                        .get("__sls_included_from__")
                        .and_then(Value::as_list)
                        .is_some_and(|l| l.iter().any(|f| f.as_str() == Some(val)));
                    if sls_match || included {
                        out.push(i);
                    }
                }
                return out;
            }
            merge_sorted(&mut out, self.by_sls.get(val));
            merge_sorted(&mut out, self.by_included_from.get(val));
            return out;
        }
        let state_ok =
            |c: &Chunk| key == "id" || c.low.get("state").and_then(Value::as_str) == Some(key);
        if is_glob(val) {
            for (i, c) in chunks.iter().enumerate() {
                let name = c.low.get("name").and_then(Value::as_str);
                let id = c.low.get("__id__").and_then(Value::as_str);
                let hit =
                    name.is_some_and(|n| fnmatch(n, val)) || id.is_some_and(|n| fnmatch(n, val));
                if hit && state_ok(c) {
                    out.push(i);
                }
            }
            return out;
        }
        merge_sorted(&mut out, self.by_name.get(val));
        merge_sorted(&mut out, self.by_id.get(val));
        out.retain(|&i| chunks.get(i).is_some_and(state_ok));
        out
    }
}

/// Merge an ascending index list into `out` (ascending, no duplicates).
pub(super) fn merge_sorted(out: &mut Vec<usize>, add: Option<&Vec<usize>>) {
    let Some(add) = add else { return };
    if out.is_empty() {
        out.extend_from_slice(add);
        return;
    }
    let mut merged = Vec::with_capacity(out.len() + add.len());
    let (mut a, mut b) = (0, 0);
    while a < out.len() || b < add.len() {
        let next = match (out.get(a), add.get(b)) {
            (Some(&x), Some(&y)) if x == y => {
                a += 1;
                b += 1;
                x
            }
            (Some(&x), Some(&y)) if x < y => {
                a += 1;
                x
            }
            (Some(_), Some(&y)) | (None, Some(&y)) => {
                b += 1;
                y
            }
            (Some(&x), None) => {
                a += 1;
                x
            }
            (None, None) => break,
        };
        merged.push(next);
    }
    *out = merged;
}

/// A requisite entry as Salt reads it: a bare string is an id; a mapping
/// gives `state: name` (a `state.fun` key is cut at the dot). `None` for
/// entries Salt cannot read at all.
pub fn split_req(req: &Value) -> Option<(String, &Value)> {
    match req {
        Value::Str(_) => Some(("id".to_string(), req)),
        Value::Map(m) => {
            let (k, v) = m.iter().next()?;
            let key = k.split('.').next().unwrap_or(k).to_string();
            Some((key, v))
        }
        _ => None,
    }
}

/// The requisite list of a state for `kind`, as a slice.
pub(super) fn req_list<'a>(low: &'a Map, key: &str) -> &'a [Value] {
    low.get(key).and_then(Value::as_list).unwrap_or(&[])
}
