//! The requisite index: which chunks a requisite names, looked up by id,
//! name and SLS through sorted digests (never by scanning every chunk), and
//! the outcomes a requisite check can have.

use super::chunk::Chunk;
use brine_compile::matcher::glob::fnmatch;
use brine_core::{Map, Value};

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

/// Chunks by `__id__`, `name`, `__sls__` and `__sls_included_from__`:
/// for each, `(digest of the string, chunk)` pairs sorted, so a lookup is
/// a binary search and building the index copies no string and makes no
/// list per key (it was a tenth of a fleet minion's highstate). A digest
/// only narrows the search: every hit is checked against the chunk.
pub struct Index {
    by_id: Vec<(u64, usize)>,
    by_name: Vec<(u64, usize)>,
    by_sls: Vec<(u64, usize)>,
    by_included_from: Vec<(u64, usize)>,
}

pub(super) fn is_glob(s: &str) -> bool {
    s.contains(['*', '?', '['])
}

/// The digest the index sorts by (fixed: the index is rebuilt per run and
/// every hit is checked, so nothing depends on it being secret).
fn digest(s: &str) -> u64 {
    use std::hash::BuildHasher;
    foldhash::fast::FixedState::with_seed(0x6272_696e_6521).hash_one(s)
}

/// The chunks under `s` in one of the index's sorted lists, ascending.
fn lookup<'a>(list: &'a [(u64, usize)], s: &str) -> impl Iterator<Item = usize> + 'a {
    let d = digest(s);
    let from = list.partition_point(|&(h, _)| h < d);
    list[from..]
        .iter()
        .take_while(move |&&(h, _)| h == d)
        .map(|&(_, i)| i)
}

fn str_of<'a>(low: &'a Map, key: &str) -> Option<&'a str> {
    low.get(key).and_then(Value::as_str)
}

impl Index {
    pub fn build(chunks: &[Chunk]) -> Index {
        let n = chunks.len();
        let mut ix = Index {
            by_id: Vec::with_capacity(n),
            by_name: Vec::with_capacity(n),
            by_sls: Vec::with_capacity(n),
            by_included_from: Vec::new(),
        };
        for (i, c) in chunks.iter().enumerate() {
            let low = &c.low;
            if let Some(id) = str_of(low, "__id__") {
                ix.by_id.push((digest(id), i));
            }
            if let Some(name) = str_of(low, "name") {
                ix.by_name.push((digest(name), i));
            }
            if let Some(sls) = str_of(low, "__sls__") {
                ix.by_sls.push((digest(sls), i));
            }
            if let Some(from) = low.get("__sls_included_from__").and_then(Value::as_list) {
                for f in from.iter().filter_map(Value::as_str) {
                    ix.by_included_from.push((digest(f), i));
                }
            }
        }
        for list in [
            &mut ix.by_id,
            &mut ix.by_name,
            &mut ix.by_sls,
            &mut ix.by_included_from,
        ] {
            // Chunk order within a digest: lookups return ascending lists.
            list.sort_unstable();
            list.dedup();
        }
        ix
    }

    /// The chunks requisite `key: val` names, in chunk order: for `sls`,
    /// chunks whose SLS matches the glob or that it included; otherwise
    /// chunks whose name or id matches the glob and whose state module is
    /// `key` (any module for `id`).
    pub fn matching(&self, chunks: &[Chunk], key: &str, val: &str) -> Vec<usize> {
        let mut out: Vec<usize> = Vec::new();
        let field_is = |i: usize, field: &str| {
            chunks
                .get(i)
                .is_some_and(|c| str_of(&c.low, field) == Some(val))
        };
        if key == "sls" {
            if is_glob(val) {
                for (i, c) in chunks.iter().enumerate() {
                    let sls_match = str_of(&c.low, "__sls__").is_some_and(|s| fnmatch(s, val));
                    if sls_match || included_from(c, val) {
                        out.push(i);
                    }
                }
                return out;
            }
            let sls: Vec<usize> = lookup(&self.by_sls, val)
                .filter(|&i| field_is(i, "__sls__"))
                .collect();
            let from: Vec<usize> = lookup(&self.by_included_from, val)
                .filter(|&i| chunks.get(i).is_some_and(|c| included_from(c, val)))
                .collect();
            merge_sorted(&mut out, Some(&sls));
            merge_sorted(&mut out, Some(&from));
            return out;
        }
        let state_ok = |c: &Chunk| key == "id" || str_of(&c.low, "state") == Some(key);
        if is_glob(val) {
            for (i, c) in chunks.iter().enumerate() {
                let name = str_of(&c.low, "name");
                let id = str_of(&c.low, "__id__");
                let hit =
                    name.is_some_and(|n| fnmatch(n, val)) || id.is_some_and(|n| fnmatch(n, val));
                if hit && state_ok(c) {
                    out.push(i);
                }
            }
            return out;
        }
        let names: Vec<usize> = lookup(&self.by_name, val)
            .filter(|&i| field_is(i, "name"))
            .collect();
        let ids: Vec<usize> = lookup(&self.by_id, val)
            .filter(|&i| field_is(i, "__id__"))
            .collect();
        merge_sorted(&mut out, Some(&names));
        merge_sorted(&mut out, Some(&ids));
        out.retain(|&i| chunks.get(i).is_some_and(state_ok));
        out
    }
}

/// Whether SLS `sls` included the chunk's SLS.
fn included_from(c: &Chunk, sls: &str) -> bool {
    c.low
        .get("__sls_included_from__")
        .and_then(Value::as_list)
        .is_some_and(|l| l.iter().any(|f| f.as_str() == Some(sls)))
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
