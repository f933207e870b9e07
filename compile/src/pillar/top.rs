//! The pillar top file: gathered from each environment (and the top files
//! they `include`), merged into one, then matched against the minion.

use crate::matcher;
use crate::render::{self, TemplateContext};
use crate::roots::Roots;
use crate::MinionData;
use brine_core::Value;
use indexmap::IndexMap;
use std::sync::Arc;

/// One target's entry in a merged top: its `match:` dicts and SLS names, in
/// file order, and the `order:` it sorts by.
#[derive(Debug, Clone, Default)]
pub struct TopTarget {
    /// The target's list as written minus the strings: the `match`,
    /// `order`, `ignore_missing` dicts (`confirm_top` reads `match` there).
    pub options: Vec<Value>,
    pub sls: Vec<String>,
    pub order: i64,
    pub ignore_missing: bool,
}

/// environment → target → entry, as Salt's `merge_tops` builds it.
pub type MergedTop = IndexMap<String, IndexMap<String, TopTarget>>;

/// Render the top files to read: the `pillarenv` one alone when set, else
/// every environment's. Returns them per environment with the errors met.
pub fn gather(
    roots: &Roots,
    state_top: &str,
    pillarenv: Option<&str>,
    only_saltenv: Option<&str>,
    minion: &Arc<MinionData>,
) -> (Vec<(String, Vec<Value>)>, Vec<String>) {
    let envs: Vec<String> = match (pillarenv, only_saltenv) {
        (Some(env), _) if roots.has_env(env) => vec![env.to_string()],
        (Some(env), _) => {
            tracing::debug!("pillarenv '{env}' not found in the configured pillar environments");
            vec![]
        }
        // pillar_source_merging_strategy: none reads one environment only.
        (None, Some(env)) => vec![env.to_string()],
        (None, None) => roots.env_names(),
    };
    let mut tops = Vec::new();
    let mut errors = Vec::new();
    for env in envs {
        let mut rendered = Vec::new();
        let Some(path) = roots.find_file(&env, state_top) else {
            continue;
        };
        let ctx = TemplateContext {
            minion: minion.clone(),
            saltenv: env.clone(),
            tplpath: Some(path.display().to_string()),
            search_paths: roots.dirs(&env).to_vec(),
            ..Default::default()
        };
        match render::render_file(&path, &ctx) {
            Ok(top) => rendered.push(top),
            Err(e) => {
                tracing::error!("Pillar top file rendering failed: {e}");
                errors.push(format!(
                    "Rendering Primary Top file failed, render error:\n{e}"
                ));
            }
        }
        // Top files may `include` further top files (by SLS name) of the
        // same environment; each is read once.
        let mut done: Vec<String> = Vec::new();
        let mut i = 0;
        while i < rendered.len() {
            let includes = match rendered[i].as_map_mut() {
                Some(m) => m.shift_remove("include"),
                None => None,
            };
            i += 1;
            let Some(Value::List(includes)) = includes else {
                continue;
            };
            for inc in includes {
                let Some(sls) = inc.as_str() else { continue };
                if done.iter().any(|d| d == sls) {
                    continue;
                }
                done.push(sls.to_string());
                let result = match roots.find_sls(&env, sls) {
                    Some(f) => render::render_file(&f.path, &ctx),
                    // Salt renders nothing for a missing top include, silently.
                    None => {
                        tracing::warn!("Top file include '{sls}' not found in env '{env}'");
                        Ok(Value::Null)
                    }
                };
                match result {
                    Ok(top) => rendered.push(top),
                    Err(e) => errors.push(format!(
                        "Rendering Top file {sls} failed, render error:\n{e}"
                    )),
                }
            }
        }
        tops.push((env, rendered));
    }
    (tops, errors)
}

/// A rendered top file that is not `{env: {target: [sls...]}}`. Salt says
/// only that; the fields say where (`target` empty when the environment's
/// section itself is wrong, `env` empty when the whole top is).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("Error encountered while rendering pillar top file.")]
pub struct MalformedTop {
    /// The environment whose top files held it.
    pub top_env: String,
    pub env: String,
    pub target: String,
}

/// Combine rendered top files: a later top file's entry for the same
/// environment and target replaces the earlier one (keeping its place);
/// targets are then stably sorted by `order`.
pub fn merge(tops: &[(String, Vec<Value>)]) -> Result<MergedTop, MalformedTop> {
    let mut merged: MergedTop = IndexMap::new();
    for (top_env, ctops) in tops {
        let malformed = |env: &str, target: &str| MalformedTop {
            top_env: top_env.clone(),
            env: env.to_string(),
            target: target.to_string(),
        };
        for ctop in ctops {
            let Value::Map(ctop) = ctop else {
                if ctop.is_null() {
                    continue;
                }
                return Err(malformed("", ""));
            };
            for (saltenv, targets) in ctop {
                if saltenv == "include" {
                    continue;
                }
                let Value::Map(targets) = targets else {
                    return Err(malformed(saltenv, ""));
                };
                let env = merged.entry(saltenv.clone()).or_default();
                for (tgt, comps) in targets {
                    // Salt iterates whatever the target holds, as Python
                    // does: a string gives its characters as SLS names
                    // (`'*': common` reads c, o, m, n), a dict its keys.
                    let comps: Vec<Value> = match comps {
                        Value::List(l) => l.clone(),
                        Value::Str(s) => s.chars().map(|c| Value::Str(c.to_string())).collect(),
                        Value::Map(m) => m.keys().map(|k| Value::Str(k.clone())).collect(),
                        _ => return Err(malformed(saltenv, tgt)),
                    };
                    let mut entry = TopTarget::default();
                    for comp in &comps {
                        match comp {
                            Value::Map(m) => {
                                if let Some(order) = m.get("order") {
                                    entry.order = match order {
                                        Value::Int(i) => *i,
                                        Value::Str(s) => s.trim().parse().unwrap_or(0),
                                        Value::Float(f) => *f as i64,
                                        Value::Bool(b) => *b as i64,
                                        _ => 0,
                                    };
                                }
                                if m.get("ignore_missing").is_some_and(Value::is_truthy) {
                                    entry.ignore_missing = true;
                                }
                                if m.contains_key("match") {
                                    entry.options.push(comp.clone());
                                }
                            }
                            Value::Str(s) if !entry.sls.contains(s) => {
                                entry.sls.push(s.clone());
                            }
                            _ => {}
                        }
                    }
                    env.insert(tgt.clone(), entry);
                }
            }
        }
    }
    for targets in merged.values_mut() {
        targets.sort_by(|_, a, _, b| a.order.cmp(&b.order));
    }
    Ok(merged)
}

/// Salt's `confirm_top`: the target matches with the matcher named by the
/// entry's last `match:` (default `compound`).
pub fn confirm_top(
    target: &str,
    entry: &TopTarget,
    minion: &MinionData,
) -> Result<bool, matcher::MatchError> {
    let mut match_type = "compound".to_string();
    for opt in &entry.options {
        if let Some(m) = opt.get("match") {
            match_type = m.to_python_str();
        }
    }
    matcher::matches(&match_type, target, minion)
}

/// The SLS names per environment that select this minion, in top order
/// (only `pillarenv`'s section when it is set).
pub fn matches(
    top: &MergedTop,
    pillarenv: Option<&str>,
    minion: &MinionData,
    errors: &mut Vec<String>,
) -> IndexMap<String, Vec<String>> {
    let mut out: IndexMap<String, Vec<String>> = IndexMap::new();
    for (saltenv, body) in top {
        if pillarenv.is_some_and(|p| p != saltenv) {
            continue;
        }
        for (target, entry) in body {
            match confirm_top(target, entry, minion) {
                Ok(true) => {
                    let list = out.entry(saltenv.clone()).or_default();
                    for sls in &entry.sls {
                        if !list.contains(sls) {
                            list.push(sls.clone());
                        }
                    }
                }
                Ok(false) => {}
                Err(e) => {
                    tracing::error!("Pillar top target '{target}' in '{saltenv}': {e}");
                    errors.push(format!(
                        "Top file target '{target}' in environment '{saltenv}': {e}"
                    ));
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn later_top_replaces_target_and_order_sorts() {
        let a = Value::from_json(&json!({"base": {"*": ["a"], "web*": ["w", {"order": 1}]}}));
        let b = Value::from_json(&json!({"base": {"*": ["b"], "db*": [{"order": -1}, "d"]}}));
        let m = merge(&[("base".into(), vec![a]), ("dev".into(), vec![b])]).unwrap();
        let base = &m["base"];
        let order: Vec<_> = base.keys().cloned().collect();
        assert_eq!(order, ["db*", "*", "web*"]);
        assert_eq!(base["*"].sls, ["b"]);
    }

    #[test]
    fn string_targets_are_iterated_like_python() {
        let a = Value::from_json(&json!({"base": {"*": "common", "w": {"x": 1, "y": 2}}}));
        let m = merge(&[("base".into(), vec![a])]).unwrap();
        assert_eq!(m["base"]["*"].sls, ["c", "o", "m", "n"]);
        assert_eq!(m["base"]["w"].sls, ["x", "y"]);
    }

    #[test]
    fn malformed_top_is_an_error() {
        let a = Value::from_json(&json!({"base": ["a"]}));
        assert!(merge(&[("base".into(), vec![a])]).is_err());
    }
}
