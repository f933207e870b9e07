//! How pillar sources combine (`pillar_source_merging_strategy`): Salt's
//! `dictupdate.merge` with the strategies `smart` (= `recurse` for YAML),
//! `recurse`, `overwrite`, `none` and `list`, and `pillar_merge_lists`.

use brine_core::{Map, Value};
use std::str::FromStr;

/// A `pillar_source_merging_strategy` value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum MergeStrategy {
    /// `recurse` unless the renderer ends in `yamlex` (not supported here,
    /// so always `recurse`).
    #[default]
    Smart,
    Recurse,
    /// Top-level keys found on both sides are replaced whole (Salt assigns
    /// them before its recursive update, which then has nothing to merge).
    Overwrite,
    /// Merge recursively, but only the top file of the requested
    /// environment is read.
    None,
    /// Keys found in both become `[a, b]`.
    List,
}

impl FromStr for MergeStrategy {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Ok(match s {
            "smart" => MergeStrategy::Smart,
            "recurse" => MergeStrategy::Recurse,
            "overwrite" => MergeStrategy::Overwrite,
            "none" => MergeStrategy::None,
            "list" => MergeStrategy::List,
            // Salt logs a warning and falls back to recurse; so do we.
            other => {
                tracing::warn!("Unknown merging strategy '{other}', fallback to recurse");
                MergeStrategy::Recurse
            }
        })
    }
}

/// Merge `upd` into `dest` (both pillar maps) with `strategy`; `merge_lists`
/// is `pillar_merge_lists`.
pub fn merge(dest: &mut Map, upd: Map, strategy: MergeStrategy, merge_lists: bool) {
    match strategy {
        MergeStrategy::List => {
            // Salt's merge_list only walks keys of the left side: keys that
            // exist on both sides become a pair, keys only on the right are lost.
            for (k, v) in dest.iter_mut() {
                if let Some(other) = upd.get(k) {
                    let old = std::mem::take(v);
                    *v = Value::List(vec![old, other.clone()]);
                }
            }
        }
        MergeStrategy::Overwrite => {
            for (k, v) in upd {
                dest.insert(k, v);
            }
        }
        MergeStrategy::None => update(dest, upd, false),
        _ => update(dest, upd, merge_lists),
    }
}

/// Salt's `dictupdate.update`: maps merge recursively, lists are replaced (or
/// extended without duplicates under `merge_lists`), anything else replaced.
/// Existing keys keep their place; new keys are appended.
pub fn update(dest: &mut Map, upd: Map, merge_lists: bool) {
    for (key, val) in upd {
        match (dest.get_mut(&key), val) {
            (Some(Value::Map(d)), Value::Map(u)) => update(d, u, merge_lists),
            (Some(Value::List(d)), Value::List(u)) if merge_lists => {
                for item in u {
                    if !d.contains(&item) {
                        d.push(item);
                    }
                }
            }
            (Some(slot), val) => *slot = val,
            (None, val) => {
                dest.insert(key, val);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn map(j: serde_json::Value) -> Map {
        match Value::from_json(&j) {
            Value::Map(m) => m,
            _ => unreachable!("test input is a map"),
        }
    }

    #[test]
    fn recurse_merges_maps_and_replaces_lists() {
        // The pillar-merge-flatten conformance case, by hand.
        let mut a = map(
            json!({"named": "bind9", "bind": {"package-name": "bind9", "version": "9.9.5", "listen-on": "localhost"}}),
        );
        let b = map(json!({"named": "named", "bind": {"port": 53, "listen-on": "any"}}));
        merge(&mut a, b, MergeStrategy::Smart, false);
        assert_eq!(
            Value::Map(a).to_json(),
            json!({"named": "named", "bind": {"package-name": "bind9", "version": "9.9.5", "listen-on": "any", "port": 53}})
        );
    }

    #[test]
    fn merge_lists_extends_without_duplicates() {
        let mut a = map(json!({"l": [1, 2]}));
        merge(
            &mut a,
            map(json!({"l": [2, 3]})),
            MergeStrategy::Recurse,
            true,
        );
        assert_eq!(Value::Map(a.clone()).to_json(), json!({"l": [1, 2, 3]}));
        merge(
            &mut a,
            map(json!({"l": [9]})),
            MergeStrategy::Recurse,
            false,
        );
        assert_eq!(Value::Map(a).to_json(), json!({"l": [9]}));
    }

    #[test]
    fn list_strategy_pairs_common_keys_only() {
        let mut a = map(json!({"a": 1, "b": 2}));
        merge(
            &mut a,
            map(json!({"a": 3, "c": 4})),
            MergeStrategy::List,
            false,
        );
        assert_eq!(Value::Map(a).to_json(), json!({"a": [1, 3], "b": 2}));
    }

    #[test]
    fn overwrite_replaces_top_level_keys_whole() {
        let mut a = map(json!({"a": {"x": 1, "y": 2}, "b": 1}));
        merge(
            &mut a,
            map(json!({"a": {"x": 3}})),
            MergeStrategy::Overwrite,
            false,
        );
        assert_eq!(Value::Map(a).to_json(), json!({"a": {"x": 3}, "b": 1}));
    }

    #[test]
    fn key_order_is_kept_and_new_keys_appended() {
        let mut a = map(json!({"x": 1, "y": 2}));
        merge(
            &mut a,
            map(json!({"z": 0, "x": 5})),
            MergeStrategy::Smart,
            false,
        );
        let keys: Vec<_> = a.keys().cloned().collect();
        assert_eq!(keys, ["x", "y", "z"]);
    }
}
