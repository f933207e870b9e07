//! Requisites at runtime: which chunks a requisite names (through an index
//! by id, name and SLS, so a run stays linear in the number of chunks) and
//! what their returns mean for the requiring state (Salt's
//! `check_requisite` and the "unmet" half of `call_chunk`).

use super::chunk::RuntimeError;
use super::index::{req_list, split_req, Kind, Reqs, Status};
use super::runtime::Runtime;
use brine_core::{Map, Value};

/// The order `check_requisite` walks the kinds in (`prerequired` last,
/// only for the real run of a state).
pub(super) const CHECK_ORDER: [Kind; 10] = [
    Kind::Require,
    Kind::RequireAny,
    Kind::Watch,
    Kind::WatchAny,
    Kind::Prereq,
    Kind::Onfail,
    Kind::OnfailAny,
    Kind::OnfailAll,
    Kind::Onchanges,
    Kind::OnchangesAny,
];

/// The kinds `call_chunk` runs first when unmet: `onfail_all` is not among
/// them (in Salt an unmet `onfail_all` loops until "Recursive requisite
/// found").
pub(super) const RUN_ORDER: [Kind; 9] = [
    Kind::Require,
    Kind::RequireAny,
    Kind::Watch,
    Kind::WatchAny,
    Kind::Prereq,
    Kind::Onfail,
    Kind::OnfailAny,
    Kind::Onchanges,
    Kind::OnchangesAny,
];

// The requisite stats Salt collects in a set.
pub(super) const S_UNMET: u16 = 1;
pub(super) const S_FAIL: u16 = 1 << 1;
pub(super) const S_ONFAIL: u16 = 1 << 2;
pub(super) const S_ONCHANGES: u16 = 1 << 3;
pub(super) const S_ONCHANGESMET: u16 = 1 << 4;
pub(super) const S_CHANGE: u16 = 1 << 5;
pub(super) const S_PREMET: u16 = 1 << 6;
pub(super) const S_PRE: u16 = 1 << 7;
pub(super) const S_MET: u16 = 1 << 8;

impl Runtime<'_> {
    /// Salt's `check_requisite` for chunk `i`; `pre` adds the
    /// `prerequired` requisites (the real run of a prereq'd state).
    pub fn check_requisite(&mut self, i: usize, pre: bool) -> Result<(Status, Reqs), RuntimeError> {
        self.watch_as_require(i);
        let low = &self.chunks[i].low;
        // One pass over the chunk's keys (a dozen) finds each requisite it
        // declares: a lookup per kind was twenty hashed lookups a chunk.
        let mut declared: [Option<&Value>; Kind::WAITING.len()] = [None; Kind::WAITING.len()];
        for (key, items) in low {
            if let Some(slot) = Kind::of_key(key).and_then(|k| declared.get_mut(k as usize)) {
                *slot = Some(items);
            }
        }
        if declared.iter().all(Option::is_none) {
            return Ok((Status::Met, Vec::new()));
        }
        if self.failhard {
            // Salt's reconcile_procs trips over the `__FAILHARD__` marker
            // here and the whole run dies; end it instead.
            return Err(RuntimeError::FailhardStop);
        }
        let disabled = disabled_requisites(&self.ctx.opts);
        let kinds = CHECK_ORDER
            .iter()
            .copied()
            .chain(pre.then_some(Kind::Prerequired));
        let mut reqs: Reqs = Vec::new();
        for kind in kinds {
            let Some(items) = declared.get(kind as usize).copied().flatten() else {
                continue;
            };
            if items.is_null() {
                continue;
            }
            if disabled.iter().any(|d| d == kind.key()) {
                tracing::warn!("The {} requisite has been disabled, Ignoring.", kind.key());
                continue;
            }
            let mut found_chunks = Vec::new();
            for req in items.as_list().unwrap_or(&[]) {
                let Some((key, val)) = split_req(req) else {
                    continue;
                };
                let val = match val {
                    Value::Null => continue,
                    Value::Str(s) => s,
                    _ => return Err(self.unlocatable(&key)),
                };
                let hits = self.index.matching(&self.chunks, &key, val);
                if hits.is_empty() {
                    return Ok((Status::Unmet, Vec::new()));
                }
                found_chunks.extend(hits);
            }
            reqs.push((kind, found_chunks));
        }
        let mut fun_stats = 0u16;
        for (kind, idxs) in &reqs {
            let kind = *kind;
            let mut st = 0u16;
            for &c in idxs {
                let ctag = self.chunks[c].tag;
                let ret = if kind == Kind::Prereq {
                    self.pre.get(&ctag)
                } else {
                    self.running.get(ctag)
                };
                let Some(ret) = ret else {
                    st |= S_UNMET;
                    continue;
                };
                let result = ret.get("result").unwrap_or(&Value::Null);
                let changed = ret.get("changes").is_some_and(Value::is_truthy);
                if kind.is_onfail() {
                    if *result == Value::Bool(true) {
                        st |= S_ONFAIL;
                        continue;
                    }
                } else if *result == Value::Bool(false) {
                    st |= S_FAIL;
                    continue;
                }
                if kind.is_onchanges() {
                    st |= if changed { S_ONCHANGESMET } else { S_ONCHANGES };
                    continue;
                }
                if kind.is_watch() && changed {
                    st |= S_CHANGE;
                    continue;
                }
                let prereq_family = matches!(kind, Kind::Prereq | Kind::Prerequired);
                if prereq_family && result.is_null() && kind == Kind::Prereq {
                    st |= S_PREMET;
                }
                if prereq_family && !result.is_null() {
                    if kind == Kind::Prereq {
                        st |= S_PRE;
                    }
                } else if ret.get("__state_ran__").is_none_or(Value::is_truthy) {
                    st |= S_MET;
                }
            }
            if kind.is_any() || kind == Kind::Onfail {
                if st & (S_MET | S_CHANGE) != 0 {
                    st &= !S_FAIL;
                }
                if st & S_ONCHANGESMET != 0 {
                    st &= !(S_ONCHANGES | S_FAIL);
                }
                if st & S_ONFAIL != 0 && st & S_MET != 0 {
                    st &= !S_ONFAIL;
                }
            }
            if kind == Kind::OnfailAll && st & S_ONFAIL != 0 && st & S_MET != 0 {
                st &= !S_MET;
            }
            fun_stats |= st;
        }
        let has = |s: u16| fun_stats & s != 0;
        let status = if has(S_UNMET) {
            Status::Unmet
        } else if has(S_FAIL) {
            Status::Fail
        } else if has(S_PRE) {
            if has(S_PREMET) {
                Status::Met
            } else {
                Status::Pre
            }
        } else if has(S_ONFAIL) && !has(S_ONCHANGESMET) {
            Status::Onfail
        } else if has(S_ONCHANGES) && !has(S_ONCHANGESMET) {
            Status::Onchanges
        } else if has(S_CHANGE) {
            Status::Change
        } else if has(S_ONFAIL) {
            Status::Onfail
        } else {
            Status::Met
        };
        Ok((status, reqs))
    }

    /// Salt's `SaltRenderError` for a requisite whose target is not a
    /// string (it names the first chunk of the run).
    pub(super) fn unlocatable(&self, key: &str) -> RuntimeError {
        let name = self
            .chunks
            .first()
            .and_then(|c| c.low.get("name"))
            .map(Value::to_python_str)
            .unwrap_or_default();
        RuntimeError::Requisite(format!(
            "Could not locate requisite of [{key}] present in state with name [{name}]"
        ))
    }

    /// Without a `mod_watch` in the state module, `watch` is a `require`
    /// (and `watch_any` a `require_any`); Salt rewrites the chunk itself.
    pub fn watch_as_require(&mut self, i: usize) {
        let low = &mut self.chunks[i].low;
        if !low.contains_key("watch") && !low.contains_key("watch_any") {
            return;
        }
        let state = low.get("state").and_then(Value::as_str).unwrap_or("");
        if super::call::has_mod_watch(state) {
            return;
        }
        for (from, to) in [("watch", "require"), ("watch_any", "require_any")] {
            move_requisites(low, from, to);
        }
    }

    /// The "unmet" half of Salt's `call_chunk`: report requisites that
    /// name no state, else run the named states not run yet and evaluate
    /// chunk `i` again.
    pub fn run_unmet(&mut self, i: usize, depth: u32) -> Result<(), RuntimeError> {
        let tag = self.chunks[i].tag;
        let prereq = self.chunks[i].prereq;
        let kinds = RUN_ORDER
            .iter()
            .copied()
            .chain((!prereq).then_some(Kind::Prerequired));
        let mut reqs: Vec<usize> = Vec::new();
        let mut flags: Vec<(usize, Kind)> = Vec::new();
        let mut lost: Vec<(Kind, Vec<(String, Value)>)> = Vec::new();
        {
            let low = &self.chunks[i].low;
            for kind in kinds {
                let mut lost_here = Vec::new();
                for req in req_list(low, kind.key()) {
                    let Some((key, val)) = split_req(req) else {
                        continue;
                    };
                    let hits = match val {
                        Value::Str(s) => self.index.matching(&self.chunks, &key, s),
                        Value::Null => Vec::new(),
                        _ => return Err(self.unlocatable(&key)),
                    };
                    if hits.is_empty() {
                        lost_here.push((key, val.clone()));
                        continue;
                    }
                    for c in hits {
                        // Salt marks prerequired chunks only for id/name
                        // requisites, prereq ones for `sls` too.
                        if kind == Kind::Prereq || (kind == Kind::Prerequired && key != "sls") {
                            flags.push((c, kind));
                        }
                        reqs.push(c);
                    }
                }
                if !lost_here.is_empty() {
                    lost.push((kind, lost_here));
                }
            }
        }
        for (c, kind) in flags {
            if kind == Kind::Prereq {
                self.chunks[c].prereq = true;
            } else {
                self.chunks[c].prerequired = true;
            }
        }
        if !lost.is_empty() {
            let mut comment = String::from("The following requisites were not found:\n");
            for (kind, items) in &lost {
                comment.push_str(&format!("{:19}{}:\n", "", kind.key()));
                for (key, val) in items {
                    comment.push_str(&format!("{:23}{}: {}\n", "", key, val.to_python_str()));
                }
            }
            let ret = self.not_run(i, false, &comment, true);
            if self.chunks[i].prereq {
                self.pre.insert(tag, ret);
            } else {
                self.running.insert(tag, ret);
            }
            self.run_num += 1;
            return Ok(());
        }
        let mut last = None;
        for &c in &reqs {
            last = Some(c);
            let ctag = self.chunks[c].tag;
            if self.running.contains(ctag) {
                continue;
            }
            if self.active.contains(&ctag) {
                if self.chunks[c].prerequired {
                    // A prereq loop: run this state in test mode in its
                    // place (Salt files it under the other state's tag).
                    if !self.pre.contains_key(&tag) {
                        self.chunks[i].prereq = true;
                        let ret = self.call_chunk_fn(i)?;
                        self.pre.insert(ctag, ret);
                    }
                    return Ok(());
                }
                let ret = self.not_run(i, false, "Recursive requisite found", false);
                self.running.insert(tag, ret);
                self.run_num += 1;
                return Ok(());
            }
            // Salt goes on after a failhard failure deeper down; only
            // this requisite's own failhard ends this chunk.
            self.call_chunk(c, 0)?;
            if self.check_failhard(c) {
                self.failhard = true;
                return Ok(());
            }
        }
        if self.chunks[i].prereq {
            let (status, _) = self.check_requisite(i, false)?;
            let mut ret = self.call_chunk_fn(i)?;
            if !ret.get("changes").is_some_and(Value::is_truthy) && status == Status::Change {
                let mut watch = Map::default();
                watch.insert("watch".into(), Value::Str("watch".into()));
                ret.insert("changes".into(), Value::Map(watch));
                ret.insert("result".into(), Value::Null);
            }
            self.pre.insert(tag, ret);
        } else if depth + 1 >= 20 {
            // Salt gives up here without counting a run number.
            let ret = self.not_run(i, false, "Recursive requisite found", false);
            self.running.insert(tag, ret);
        } else {
            self.call_chunk(i, depth + 1)?;
        }
        if let Some(c) = last {
            if self.check_failhard(c) {
                self.failhard = true;
            }
        }
        Ok(())
    }
}

/// Salt's `low[to].extend(low.pop(from))` (or a plain move when `to` is
/// absent).
pub(super) fn move_requisites(low: &mut Map, from: &str, to: &str) {
    let Some(moved) = low.shift_remove(from) else {
        return;
    };
    match (low.get_mut(to), moved) {
        (Some(Value::List(existing)), Value::List(items)) => existing.extend(items),
        (Some(_), moved) => {
            // Not a list to extend: keep the watch list rather than lose it.
            low.insert(from.to_string(), moved);
        }
        (None, moved) => {
            low.insert(to.to_string(), moved);
        }
    }
}

/// The `disabled_requisites` option: one name or a list.
pub(super) fn disabled_requisites(opts: &Map) -> Vec<String> {
    match opts.get("disabled_requisites") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::List(l)) => l.iter().map(Value::to_python_str).collect(),
        Some(v) => vec![v.to_python_str()],
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::index::merge_sorted;

    #[test]
    pub(super) fn merges_sorted_lists() {
        let mut out = vec![1, 4, 9];
        merge_sorted(&mut out, Some(&vec![0, 4, 5, 10]));
        assert_eq!(out, vec![0, 1, 4, 5, 9, 10]);
        let mut out = Vec::new();
        merge_sorted(&mut out, Some(&vec![3]));
        assert_eq!(out, vec![3]);
    }

    #[test]
    pub(super) fn reads_requisite_entries_like_salt() {
        let s = Value::Str("x".into());
        assert_eq!(split_req(&s).map(|(k, _)| k), Some("id".to_string()));
        let mut m = Map::default();
        m.insert("file.managed".into(), Value::Str("/etc/x".into()));
        let req = Value::Map(m);
        let (k, v) = split_req(&req).unwrap_or(("".into(), &Value::Null));
        assert_eq!((k.as_str(), v.as_str()), ("file", Some("/etc/x")));
        assert!(split_req(&Value::Int(3)).is_none());
    }
}
