//! Pillar compilation, in Salt's order: top files (all environments, or the
//! `pillarenv` one) → matched SLS rendered and merged → ext_pillars →
//! `pillar_opts` → the in-memory pillar under it (a minion's
//! `ssh_merge_pillar`) → `_errors` → the `pillar=` override on top →
//! `decrypt_pillar` ([`decrypt`]).
//!
//! Errors never abort the compile: each is reported under `_errors` the way
//! Salt words it, and every other key still compiles.

mod cmd;
mod compiler;
pub mod decrypt;
pub mod git;
pub mod hiera;
pub mod merge;
mod sls;
pub mod stack;
pub mod top;

use crate::minion_data::Functions;
use crate::opts;
use crate::roots::Roots;
use crate::MinionData;
use brine_core::{Map, Value};
use merge::{merge, MergeStrategy};
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;

use compiler::Compiler;
pub use compiler::ExtPillarError;

/// What to compile a pillar for.
#[derive(Debug, Clone, Default)]
pub struct PillarRequest {
    /// The configuration that drives the compile (`pillar_roots`,
    /// `ext_pillar`, merging options...): the master's, or the minion's in
    /// masterless mode. The compile sees it as [`compile_opts`] makes it.
    pub opts: Map,
    pub minion_id: String,
    pub grains: Value,
    /// `pillarenv=` given with the call; falls back to `opts['pillarenv']`.
    pub pillarenv: Option<String>,
    pub saltenv: Option<String>,
    /// `pillar=` given with the call.
    pub pillar_override: Option<Value>,
    /// The pillar the minion already holds in memory, if any: templates see
    /// it as `pillar`, and with `ssh_merge_pillar` it lies under the result.
    pub known_pillar: Option<Map>,
    /// What `salt[...]` calls in the templates.
    pub functions: Functions,
}

/// The configuration as a compile for minion `id` sees it (Salt's
/// `Pillar.__gen_opts`): the minion's id and grains, a local file client,
/// and the call's environments where given.
pub fn compile_opts(
    config: &Map,
    id: &str,
    grains: &Value,
    saltenv: Option<&str>,
    pillarenv: Option<&str>,
) -> Map {
    let mut o = config.clone();
    o.insert("id".into(), Value::Str(id.to_string()));
    o.insert("grains".into(), grains.clone());
    o.insert("file_client".into(), Value::Str("local".into()));
    if let Some(s) = saltenv {
        o.insert("saltenv".into(), Value::Str(s.to_string()));
    }
    if let Some(p) = pillarenv {
        o.insert("pillarenv".into(), Value::Str(p.to_string()));
    }
    o
}

/// The options ext_pillars see (Salt's `ext_pillar_opts`): the compile's,
/// but with the configuration's own `id` (a master's id on a master, so
/// a PillarStack config can tell master from minion) and the minion's as
/// `minion_id`.
fn ext_pillar_opts(compile: &Map, config: &Map, minion_id: &str) -> Map {
    let mut o = compile.clone();
    if let Some(id) = config.get("id") {
        o.insert("id".into(), id.clone());
    }
    o.insert("minion_id".into(), Value::Str(minion_id.to_string()));
    o
}

/// Compile the pillar described by `req`. Never fails: problems are listed
/// under the `_errors` key, as Salt does.
pub fn compile(req: &PillarRequest) -> Map {
    compile_with(req, crate::render::cores())
}

/// [`compile`] with `prerender_workers` threads rendering top-level SLS
/// ahead (under 2: each in turn).
fn compile_with(req: &PillarRequest, prerender_workers: usize) -> Map {
    let pillarenv = crate::envs::Envs {
        saltenv: req.saltenv.clone(),
        pillarenv: req.pillarenv.clone(),
    }
    .pillarenv_or_config(&req.opts);
    let o = &compile_opts(
        &req.opts,
        &req.minion_id,
        &req.grains,
        req.saltenv.as_deref(),
        pillarenv.as_deref(),
    );
    let strategy: MergeStrategy = opts::get_str(o, "pillar_source_merging_strategy")
        .unwrap_or("smart")
        .parse()
        .unwrap_or_default();
    let merge_lists = opts::get_bool(o, "pillar_merge_lists", false);

    let mut override_map = match &req.pillar_override {
        None | Some(Value::Null) => Map::default(),
        Some(Value::Map(m)) => m.clone(),
        Some(other) => {
            tracing::error!(
                "Pillar data must be a dictionary, got {}",
                other.type_name()
            );
            Map::default()
        }
    };

    let minion = Arc::new(MinionData {
        id: req.minion_id.clone(),
        grains: req.grains.clone(),
        pillar: Value::Map(req.known_pillar.clone().unwrap_or_default()),
        opts: Value::Map(o.clone()),
        functions: req.functions.clone(),
    });
    // Only a compile with ext_pillars needs their options.
    let ext_opts = match o.get("ext_pillar") {
        Some(Value::List(l)) if !l.is_empty() => {
            Value::Map(ext_pillar_opts(o, &req.opts, &req.minion_id))
        }
        _ => Value::Null,
    };

    let roots = Roots::new(pillar_roots(
        o,
        pillarenv.as_deref(),
        req.saltenv.as_deref(),
    ));
    for problem in roots.unreadable("pillar_roots") {
        tracing::warn!("{problem}");
    }
    let state_top = opts::get_str(o, "state_top").unwrap_or("top.sls");
    let only_env = (strategy == MergeStrategy::None)
        .then(|| req.saltenv.clone().unwrap_or_else(|| "base".into()));
    let (tops, top_errors_gathered) = top::gather(
        &roots,
        state_top,
        pillarenv.as_deref(),
        only_env.as_deref(),
        &minion,
    );
    let mut top_errors = top_errors_gathered;
    let merged_top = top::merge(&tops).unwrap_or_else(|e| {
        top_errors.push(e.to_string());
        Default::default()
    });
    let mut ignored: HashMap<String, Vec<String>> = HashMap::new();
    for (env, targets) in &merged_top {
        for entry in targets.values().filter(|t| t.ignore_missing) {
            ignored
                .entry(env.clone())
                .or_default()
                .extend(entry.sls.iter().cloned());
        }
    }

    let compiler = Compiler {
        roots,
        minion: minion.clone(),
        ext_opts,
        pillarenv: pillarenv.clone(),
        strategy,
        merge_lists,
        safe_render_error: opts::get_bool(o, "pillar_safe_render_error", true),
        includes_override_sls: opts::get_bool(o, "pillar_includes_override_sls", false),
        ignored,
        opts: o,
        override_map: Some(Value::Map(override_map.clone())),
        prerendered: Default::default(),
        prerender_workers,
    };

    let mut errors = Vec::new();
    let mut pillar = if opts::get_bool(o, "ext_pillar_first", false) {
        let ext = compiler.ext_pillar(override_map.clone(), &mut errors);
        let matches = top::matches(&merged_top, pillarenv.as_deref(), &minion, &mut errors);
        let sls = compiler.render_pillar(&matches, &override_map, &mut errors);
        let mut p = ext;
        merge(&mut p, sls, strategy, merge_lists);
        p
    } else {
        let matches = top::matches(&merged_top, pillarenv.as_deref(), &minion, &mut errors);
        let p = compiler.render_pillar(&matches, &override_map, &mut errors);
        compiler.ext_pillar(p, &mut errors)
    };
    errors.extend(top_errors);

    if opts::get_bool(o, "pillar_opts", false) {
        let mut master = o.clone();
        master.shift_remove("grains");
        // The Salt release whose behaviour brine reproduces.
        master.insert("saltversion".into(), Value::Str("3007.8".into()));
        pillar.insert("master".into(), Value::Map(master));
    }
    if let Some(known) = &req.known_pillar {
        if opts::get_bool(o, "ssh_merge_pillar", false) {
            let mut under = known.clone();
            merge(&mut under, pillar, strategy, merge_lists);
            pillar = under;
        }
    }
    if !errors.is_empty() {
        for e in &errors {
            tracing::error!("Pillar render error: {e}");
        }
        pillar.insert(
            "_errors".into(),
            Value::List(errors.into_iter().map(Value::Str).collect()),
        );
    }
    crate::render::jinja::release_cached_context();
    if !override_map.is_empty() {
        merge(
            &mut pillar,
            std::mem::take(&mut override_map),
            strategy,
            merge_lists,
        );
    }
    let decrypt_errors = decrypt::apply(o, &mut pillar);
    if !decrypt_errors.is_empty() {
        let errors = pillar
            .entry("_errors".to_string())
            .or_insert_with(|| Value::List(Vec::new()));
        if let Value::List(l) = errors {
            l.extend(decrypt_errors.into_iter().map(Value::Str));
        }
    }
    pillar
}

/// `pillar_roots`, with an `__env__` entry standing for the requested
/// environment when that one is not configured by name.
fn pillar_roots(
    o: &Map,
    pillarenv: Option<&str>,
    saltenv: Option<&str>,
) -> indexmap::IndexMap<String, Vec<PathBuf>> {
    let mut roots = opts::roots(o, "pillar_roots");
    if let Some(dirs) = roots.shift_remove("__env__") {
        let env = pillarenv.or(saltenv).unwrap_or("base").to_string();
        if !roots.contains_key(&env) {
            let dirs = dirs
                .iter()
                .map(|d| PathBuf::from(d.display().to_string().replace("__env__", &env)))
                .collect();
            roots.insert(env, dirs);
        }
    }
    roots
}
