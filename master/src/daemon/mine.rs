//! The mine on the master (Salt's `_mine`, `_mine_get`, `_mine_delete`,
//! `_mine_flush`): each minion's entries kept in the job backend, and
//! `mine.get` answered from them for a minion, a runner, or a template the
//! master renders (`salt['mine.get']`).
//!
//! A `get` selects minions as a publication would (accepted keys, cached
//! grains and pillar; `pillar` targets match exactly, as Salt's do here),
//! honours the master's `mine_get` ACL (requester-id regex → function
//! regexes) and each entry's own `allow_tgt`/`allow_tgt_type`, and answers
//! `{minion: data}`, or `{function: {minion: data}}` when several
//! functions were asked for.

use super::jobs::{JobCache, JobCacheError};
use super::minion_cache::MinionCache;
use super::publisher::{expected_minions, resolve_nodegroups};
use crate::keys::KeyStore;
use brine_compile::request::{
    mine_get_functions, MINE_ACL_DATA as ACL_DATA, MINE_ACL_ID as ACL_ID,
};
use brine_core::{Map, Value};
use brine_protocol::crypto::{Nonce, PublicKeys};
use brine_protocol::messages::{
    aad, seal_data, ErrorCode, ErrorReply, MineOp, MineReply, MineRequest, ReplyBody,
};
use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;

/// Most entries one minion keeps in the mine; a store past it is refused.
pub const MAX_ENTRIES: usize = 1024;

/// What the mine reads and writes.
#[derive(Debug)]
pub struct Mine {
    keys: KeyStore,
    cache: Arc<MinionCache>,
    jobs: Arc<JobCache>,
    opts: Arc<Map>,
}

impl Mine {
    pub fn new(
        keys: KeyStore,
        cache: Arc<MinionCache>,
        jobs: Arc<JobCache>,
        opts: Arc<Map>,
    ) -> Mine {
        Mine {
            keys,
            cache,
            jobs,
            opts,
        }
    }

    /// Store minion `id`'s entries; `clear` replaces what it had.
    /// `Ok(false)`: it would hold more than [`MAX_ENTRIES`].
    pub fn store(&self, id: &str, data: &Map, clear: bool) -> Result<bool, JobCacheError> {
        let mut entries = Vec::with_capacity(data.len());
        for (fun, v) in data {
            let packed = rmp_serde::to_vec_named(v).map_err(|source| JobCacheError::Encode {
                what: "mine data",
                source,
            })?;
            entries.push((fun.clone(), packed));
        }
        self.jobs.mine_store(id, &entries, clear, MAX_ENTRIES)
    }

    /// Drop minion `id`'s entry `fun`, or every entry (`None`).
    pub fn delete(&self, id: &str, fun: Option<&str>) -> Result<(), JobCacheError> {
        self.jobs.mine_delete(id, fun)
    }

    /// What the master holds of minion `id`'s mine, as stored (Salt's
    /// `cache.mine`): function → data.
    pub fn cached(&self, id: &str) -> Result<Map, JobCacheError> {
        Ok(self
            .jobs
            .mine_of(id)?
            .into_iter()
            .map(|(fun, packed)| (fun, rmp_serde::from_slice(&packed).unwrap_or(Value::Null)))
            .collect())
    }

    /// `mine.get tgt fun tgt_type` asked by `requester` (a minion id, or
    /// the master's own for runners).
    pub fn get(
        &self,
        requester: &str,
        tgt: &Value,
        fun: &Value,
        tgt_type: &str,
    ) -> Result<Value, JobCacheError> {
        let empty = || Ok(Value::Map(Map::default()));
        let Some((functions, as_dict)) = mine_get_functions(fun) else {
            return empty();
        };
        let Some(functions) = self.allowed(requester, functions) else {
            return empty();
        };
        if brine_protocol::keys::validate_id(requester).is_err() {
            return empty();
        }
        let tgt_type = match tgt_type.to_ascii_lowercase().as_str() {
            "pillar" => "pillar_exact".to_string(),
            other => other.to_string(),
        };
        let Some(minions) = self.select(tgt, &tgt_type) else {
            return empty();
        };
        let minions: BTreeSet<String> = minions.into_iter().collect();
        let mut out = Map::default();
        // Each ACL target is resolved once per get.
        let mut acl: HashMap<(String, String), Option<BTreeSet<String>>> = HashMap::new();
        for (id, function, packed) in self.jobs.mine_entries(&functions)? {
            if !minions.contains(&id) {
                continue;
            }
            let entry: Value = rmp_serde::from_slice(&packed).unwrap_or(Value::Null);
            let data = match entry {
                Value::Map(mut m) if m.contains_key(ACL_ID) => {
                    if let Some(allow) = m.get("allow_tgt").cloned() {
                        let allow_type = m
                            .get("allow_tgt_type")
                            .and_then(Value::as_str)
                            .unwrap_or("glob")
                            .to_string();
                        let allowed = acl
                            .entry((allow.to_python_str(), allow_type.clone()))
                            .or_insert_with(|| {
                                self.select(&allow, &allow_type)
                                    .map(|v| v.into_iter().collect())
                            });
                        match allowed {
                            Some(a) if !a.is_empty() && a.contains(requester) => {}
                            _ => continue,
                        }
                    }
                    m.shift_remove(ACL_DATA).unwrap_or(Value::Null)
                }
                other => other,
            };
            if as_dict {
                match out
                    .entry(function)
                    .or_insert_with(Value::new_map)
                    .as_map_mut()
                {
                    Some(per) => {
                        per.insert(id, data);
                    }
                    None => continue,
                }
            } else {
                out.insert(id, data);
            }
        }
        Ok(Value::Map(out))
    }

    /// The functions the master's `mine_get` ACL lets `requester` read
    /// (all, without one); `None`: none.
    fn allowed(&self, requester: &str, functions: Vec<String>) -> Option<Vec<String>> {
        let Some(acl) = self.opts.get("mine_get") else {
            return Some(functions);
        };
        let Value::Map(acl) = acl else {
            return None;
        };
        let anchored = |pat: &str| regex::Regex::new(&format!("^(?:{pat})")).ok();
        let mut perms = Vec::new();
        for (who, funs) in acl {
            if anchored(who).is_some_and(|r| r.is_match(requester)) {
                if let Value::List(l) = funs {
                    perms.extend(l.iter().filter_map(|p| anchored(&p.to_python_str())));
                }
            }
        }
        let allowed: Vec<String> = functions
            .into_iter()
            .filter(|f| perms.iter().any(|p| p.is_match(f)))
            .collect();
        (!allowed.is_empty()).then_some(allowed)
    }

    /// The accepted minions `tgt` selects; `None` for a target that does
    /// not parse (Salt finds no minion then).
    fn select(&self, tgt: &Value, tgt_type: &str) -> Option<Vec<String>> {
        let (tgt, tgt_type) = resolve_nodegroups(tgt, tgt_type, &self.opts).ok()?;
        match expected_minions(&self.keys, &self.cache, &self.opts, &tgt, &tgt_type) {
            Ok(m) => Some(m),
            Err(e) => {
                tracing::debug!("mine.get: {e}");
                None
            }
        }
    }
}

/// Answer a minion's mine request (already checked to be `req.id`'s).
pub fn handle(mine: &Mine, req: &MineRequest, nonce: &Nonce, keys: &PublicKeys) -> ReplyBody {
    let failed = |code, message: String| ReplyBody::Error(ErrorReply { code, message });
    let done = match &req.op {
        MineOp::Store { data, clear } => match mine.store(&req.id, data, *clear) {
            Ok(true) => Ok(()),
            Ok(false) => {
                tracing::warn!(
                    "minion {} would keep more than {MAX_ENTRIES} mine entries; its mine data was refused",
                    req.id
                );
                return failed(
                    ErrorCode::TooLarge,
                    format!("more than {MAX_ENTRIES} mine entries"),
                );
            }
            Err(e) => Err(e),
        },
        MineOp::Delete { fun } => mine.delete(&req.id, Some(fun)),
        MineOp::Flush => mine.delete(&req.id, None),
        MineOp::Get { tgt, fun, tgt_type } => {
            return match mine.get(&req.id, tgt, fun, tgt_type) {
                Ok(v) => match seal_data(&keys.x25519, &v, &aad::mine(&req.id, nonce)) {
                    Ok(result) => ReplyBody::Mine(MineReply { result }),
                    Err(e) => failed(
                        ErrorCode::Internal,
                        format!("cannot seal the mine data: {e}"),
                    ),
                },
                Err(e) => {
                    tracing::error!("mine.get for {}: {e}", req.id);
                    failed(ErrorCode::Internal, "the mine could not be read".into())
                }
            };
        }
    };
    match done {
        Ok(()) => ReplyBody::Ack,
        Err(e) => {
            tracing::error!("mine data of {}: {e}", req.id);
            failed(
                ErrorCode::Internal,
                "the mine data could not be stored".into(),
            )
        }
    }
}
