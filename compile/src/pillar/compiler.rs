//! The compile state shared by the steps (Salt's `Pillar` object): the
//! roots, the minion, the merge settings; rendering the matched SLS of
//! each environment in top order, and running the ext_pillars.

use super::merge::{merge, MergeStrategy};
use super::{cmd, git, hiera, stack};
use crate::matcher::glob::{fnmatch_filter, has_glob};
use crate::opts;
use crate::render;
use crate::roots::{Roots, SlsFile};
use crate::MinionData;
use brine_core::{Map, Value};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// Why an ext_pillar failed: its `Display` is what `_errors` shows after
/// `Failed to load ext_pillar <name>: `.
#[derive(Debug, thiserror::Error)]
pub enum ExtPillarError {
    #[error(transparent)]
    Stack(#[from] stack::StackError),
    #[error(transparent)]
    Hiera(#[from] hiera::HieraError),
    #[error(transparent)]
    Git(#[from] git::GitPillarError),
}

/// Per-environment memory of rendered SLS (their own keys, without their
/// includes), so that an SLS included twice is rendered once.
pub(super) type Mods = HashMap<String, Option<Value>>;

/// Renders done ahead of the in-order pass, by (saltenv, sls): the file
/// found and what it rendered to.
pub(super) type Prerendered =
    Mutex<HashMap<(String, String), (SlsFile, Result<Value, render::RenderError>)>>;

/// The compile state shared by the steps (Salt's `Pillar` object).
pub(crate) struct Compiler<'a> {
    pub(super) roots: Roots,
    pub(super) minion: Arc<MinionData>,
    /// The options ext_pillars see (Salt's `ext_pillar_opts`: the
    /// configuration's own id); null without ext_pillars.
    pub(super) ext_opts: Value,
    pub(super) pillarenv: Option<String>,
    pub(super) strategy: MergeStrategy,
    pub(super) merge_lists: bool,
    pub(super) safe_render_error: bool,
    pub(super) includes_override_sls: bool,
    /// SLS named in top entries with `ignore_missing: True`, per environment.
    pub(super) ignored: HashMap<String, Vec<String>>,
    pub(super) opts: &'a Map,
    pub(super) override_map: Option<Value>,
    /// Top-level SLS rendered ahead on all cores, by (saltenv, sls),
    /// taken by the in-order pass ([`Compiler::prerender`]).
    pub(super) prerendered: Prerendered,
    /// Threads that render ahead (under 2: none).
    pub(super) prerender_workers: usize,
}

impl Compiler<'_> {
    /// Render the matched SLS of each environment, in top order, and merge
    /// them over the override (Salt starts from a copy of it).
    pub(super) fn render_pillar(
        &self,
        matches: &indexmap::IndexMap<String, Vec<String>>,
        start: &Map,
        errors: &mut Vec<String>,
    ) -> Map {
        let mut pillar = start.clone();
        for (saltenv, pstates) in matches {
            let mut files: Vec<String> = Vec::new();
            for sls_match in pstates {
                let mut found = Vec::new();
                // Salt's list of environments always holds `base`.
                if !self.roots.has_env(saltenv) && saltenv != "base" {
                    errors.push(format!(
                        "No matching pillar environment for environment '{saltenv}' found"
                    ));
                } else if has_glob(sls_match) {
                    found = fnmatch_filter(&self.roots.list_sls(saltenv), sls_match);
                }
                if found.is_empty() {
                    files.push(sls_match.clone());
                } else {
                    files.extend(found);
                }
            }
            self.prerender(saltenv, &files);
            let mut mods = Mods::new();
            for sls in files {
                match self.render_pstate(&sls, saltenv, &mut mods, &Map::default(), errors) {
                    Some(Value::Map(m)) => merge(&mut pillar, m, self.strategy, self.merge_lists),
                    Some(Value::Null) | None => {}
                    Some(other) => tracing::error!(
                        "The rendered pillar sls file, '{sls}' state did not return the expected data format ({})",
                        other.type_name()
                    ),
                }
            }
        }
        pillar
    }

    /// Run the configured ext_pillars in order, each seeing the pillar so
    /// far, and merge what each returns.
    pub(super) fn ext_pillar(&self, mut pillar: Map, errors: &mut Vec<String>) -> Map {
        let runs = match self.opts.get("ext_pillar") {
            None | Some(Value::Null) => return pillar,
            Some(Value::List(l)) if l.is_empty() => return pillar,
            Some(Value::List(l)) => l,
            Some(_) => {
                errors.push("The \"ext_pillar\" option is malformed".into());
                tracing::error!("The \"ext_pillar\" option is malformed");
                return pillar;
            }
        };
        // The CLI `pillar=` data is visible to ext_pillars.
        if let Some(Value::Map(o)) = self.override_map.as_ref() {
            if !o.is_empty() {
                merge(&mut pillar, o.clone(), self.strategy, self.merge_lists);
            }
        }
        for run in runs {
            let Value::Map(run) = run else {
                errors.push("The \"ext_pillar\" option is malformed".into());
                tracing::error!("The \"ext_pillar\" option is malformed");
                return Map::default();
            };
            for (name, conf) in run {
                let result = match name.as_str() {
                    "stack" => stack::ext_pillar(
                        &self.minion,
                        &self.ext_opts,
                        &Value::Map(pillar.clone()),
                        conf,
                        self.pillarenv.as_deref(),
                    )
                    .map_err(ExtPillarError::from),
                    // PillarStack notes what it reads; Hiera's reads are
                    // its own (not replayed).
                    "hiera" => {
                        crate::inputs::volatile(|| "ran the hiera ext_pillar".into());
                        hiera::ext_pillar(
                            &self.minion,
                            &self.ext_opts,
                            &Value::Map(pillar.clone()),
                            conf,
                            self.opts,
                            self.pillarenv.as_deref(),
                        )
                        .map_err(ExtPillarError::from)
                    }
                    "git" => git::ext_pillar(&git::Call {
                        opts: self.opts,
                        minion_id: &self.minion.id,
                        grains: &self.minion.grains,
                        pillarenv: self.pillarenv.as_deref(),
                        saltenv: opts::get_str(self.opts, "saltenv"),
                        functions: &self.minion.functions,
                    })
                    .map_err(ExtPillarError::from),
                    "cmd_yaml" => Ok(cmd::ext_pillar(cmd::Format::Yaml, &self.minion.id, conf)),
                    "cmd_json" => Ok(cmd::ext_pillar(cmd::Format::Json, &self.minion.id, conf)),
                    other => {
                        tracing::error!("Specified ext_pillar interface {other} is unavailable");
                        continue;
                    }
                };
                match result {
                    Ok(Value::Map(ext)) => merge(&mut pillar, ext, self.strategy, self.merge_lists),
                    Ok(_) => {}
                    Err(e) => {
                        tracing::error!("Exception caught loading ext_pillar '{name}': {e}");
                        errors.push(format!("Failed to load ext_pillar {name}: {e}"));
                    }
                }
            }
        }
        pillar
    }
}
