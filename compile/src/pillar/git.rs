//! The `git` ext_pillar (Salt 3007's git_pillar), as a compile runs it:
//! the remotes' trees are exported by an update (the master's, or a
//! masterless minion's: `crate::git_remotes::pillar`), which writes their
//! manifest
//! (`__git_pillar_trees`: each remote in order, its branch, options and
//! the folder of each ref it serves). Here each remote's folder gets its
//! pillarenv — `env`, else `base` for the base branch, else the branch;
//! `__env__` follows the call's pillarenv or saltenv (`all_saltenvs`
//! pinning the branch) — and each folder of the asked pillarenv (all of
//! them without one), except mounted ones, is compiled as a pillar of its
//! own with the folders of the same pillarenv beside it
//! (`git_pillar_includes`), the results merged in order. The manifest is
//! an input of the compile, so a replayed pillar gives way to an update.

use super::merge::{merge, MergeStrategy};
use super::PillarRequest;
use crate::minion_data::Functions;
use crate::opts;
use brine_core::{Map, Value};
use std::path::{Path, PathBuf};

/// The option holding the manifest's path (set by the master's config).
pub const MANIFEST_OPTION: &str = "__git_pillar_trees";

/// One remote as the master's update left it.
#[derive(Debug, Clone, serde::Deserialize, serde::Serialize, Default)]
pub struct Remote {
    /// As configured (`main file:///srv/repo`).
    pub id: String,
    pub branch: String,
    pub env: Option<String>,
    pub base: String,
    pub all_saltenvs: Option<String>,
    /// Exported under a `mountpoint`: its folder adds to others, it is no
    /// pillar of its own.
    pub mounted: bool,
    /// Ref name → the folder its tree was exported to.
    pub trees: indexmap::IndexMap<String, PathBuf>,
}

/// Why the git ext_pillar gives nothing.
#[derive(Debug, thiserror::Error)]
pub enum GitPillarError {
    /// No update named its manifest (the master's and a masterless
    /// minion's always do).
    #[error("git_pillar's trees were not fetched: no manifest is named in the options")]
    NotFetched,
    #[error("{path}: {why}")]
    Manifest { path: PathBuf, why: String },
}

/// Read the manifest (noted as an input of the compile).
pub fn read(path: &Path) -> Result<Vec<Remote>, GitPillarError> {
    let meta = std::fs::metadata(path).ok();
    crate::inputs::note(path, meta.as_ref().map(crate::inputs::Stamp::of));
    let text = std::fs::read_to_string(path).map_err(|e| GitPillarError::Manifest {
        path: path.to_path_buf(),
        why: format!("{e} (has the master updated git_pillar?)"),
    })?;
    serde_json::from_str(&text).map_err(|e| GitPillarError::Manifest {
        path: path.to_path_buf(),
        why: e.to_string(),
    })
}

/// What the call asks (`pillarenv` or `saltenv`), for `__env__`.
fn asked<'a>(pillarenv: Option<&'a str>, saltenv: Option<&'a str>) -> Option<&'a str> {
    pillarenv
        .filter(|s| !s.is_empty())
        .or(saltenv.filter(|s| !s.is_empty()))
}

/// A remote's folder for this call and its pillarenv.
fn placed(r: &Remote, pillarenv: Option<&str>, saltenv: Option<&str>) -> Option<(PathBuf, String)> {
    let dynamic = r.branch == "__env__";
    let target = match (&r.all_saltenvs, dynamic) {
        (Some(all), true) => all.clone(),
        (_, true) => match asked(pillarenv, saltenv).unwrap_or("base") {
            "base" => r.base.clone(),
            t => t.to_string(),
        },
        _ => r.branch.clone(),
    };
    let env = if dynamic && r.all_saltenvs.is_some() {
        asked(pillarenv, saltenv).unwrap_or("base").to_string()
    } else if let Some(e) = &r.env {
        e.clone()
    } else if r.branch == r.base || target == r.base {
        "base".to_string()
    } else {
        target.clone()
    };
    Some((r.trees.get(&target)?.clone(), env))
}

/// The call the ext_pillar is run for.
pub struct Call<'a> {
    pub opts: &'a Map,
    pub minion_id: &'a str,
    pub grains: &'a Value,
    pub pillarenv: Option<&'a str>,
    pub saltenv: Option<&'a str>,
    pub functions: &'a Functions,
}

/// The pillar the remotes give this call.
pub fn ext_pillar(call: &Call<'_>) -> Result<Value, GitPillarError> {
    let path = opts::get_str(call.opts, MANIFEST_OPTION).ok_or(GitPillarError::NotFetched)?;
    let remotes = read(Path::new(path))?;
    let dirs: Vec<(PathBuf, String, bool)> = remotes
        .iter()
        .filter_map(|r| placed(r, call.pillarenv, call.saltenv).map(|(d, e)| (d, e, r.mounted)))
        .collect();
    let strategy: MergeStrategy = opts::get_str(call.opts, "pillar_source_merging_strategy")
        .unwrap_or("smart")
        .parse()
        .unwrap_or_default();
    let merge_lists = opts::get_bool(call.opts, "pillar_merge_lists", false);
    let includes = opts::get_bool(call.opts, "git_pillar_includes", true);
    let mut out = Map::default();
    for (dir, env, mounted) in &dirs {
        if call.pillarenv.is_some_and(|p| !p.is_empty() && p != env) || *mounted {
            continue;
        }
        let mut roots = vec![Value::Str(dir.display().to_string())];
        if includes {
            roots.extend(
                dirs.iter()
                    .filter(|(d, e, _)| e == env && d != dir)
                    .map(|(d, _, _)| Value::Str(d.display().to_string())),
            );
        }
        let mut o = call.opts.clone();
        let mut pr = Map::default();
        pr.insert(env.clone(), Value::List(roots));
        o.insert("pillar_roots".into(), Value::Map(pr));
        o.insert("ext_pillar".into(), Value::List(Vec::new()));
        o.shift_remove("decrypt_pillar");
        let sub = super::compile(&PillarRequest {
            opts: o,
            minion_id: call.minion_id.to_string(),
            grains: call.grains.clone(),
            pillarenv: call.pillarenv.map(str::to_string),
            saltenv: Some(env.clone()),
            pillar_override: None,
            known_pillar: None,
            functions: call.functions.clone(),
        });
        merge(&mut out, sub, strategy, merge_lists);
    }
    Ok(Value::Map(out))
}
