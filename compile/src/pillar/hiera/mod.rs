//! Hiera 5 hierarchies, answering as Puppet 7's `puppet lookup` does: as a
//! lookup function (`hiera.lookup` on the minion) and as an ext_pillar
//! (`ext_pillar: [{hiera: {}}]`).
//!
//! The three layers, searched in order:
//! - global: the file named by the `hiera_config` option (or by the
//!   ext_pillar's own string argument);
//! - environment: `hiera.yaml` at the root of the pillar environment in use
//!   (`pillarenv`, else `base`: the first `pillar_roots` directory of it);
//! - module: `<formula>/hiera.yaml` in the `file_roots` of that environment
//!   (else of `base`), consulted only for keys `<formula>::...`; its
//!   `default_hierarchy` only when no layer has the key.
//!
//! Interpolation sees the grains as facts (`facts.x`, `grains.x`, `::x`,
//! `x`), `trusted.certname` (the minion id; `trusted.hostname`/`domain`
//! split from it), `clientcert`, `environment` (the pillar environment's
//! name) and `pillar.x` (the pillar compiled so far, or the minion's).

mod config;
mod data;
mod error;
mod interpolation;
mod lookup;
mod merge;

use crate::opts;
use crate::MinionData;
use brine_core::{Map, Value};
pub use error::HieraError;
use lookup::{Engine, Sources};
use std::path::PathBuf;

/// A node's Hiera: its layers and the scope its interpolations see.
pub struct Hiera {
    engine: Engine,
}

impl Hiera {
    /// The hierarchies for `minion` under `opts` (the master's, or the
    /// minion's in masterless mode). `pillarenv` picks the environment
    /// layer; `None` means `opts['pillarenv']`, else `base`.
    pub fn new(opts: &Map, minion: &MinionData, pillarenv: Option<&str>) -> Hiera {
        let global = opts::get_str(opts, "hiera_config").map(PathBuf::from);
        Hiera::with_global(opts, minion, pillarenv, global)
    }

    /// As [`Hiera::new`], with the global layer's file given.
    pub fn with_global(
        opts: &Map,
        minion: &MinionData,
        pillarenv: Option<&str>,
        global: Option<PathBuf>,
    ) -> Hiera {
        let env = crate::envs::Envs {
            saltenv: None,
            pillarenv: pillarenv.map(str::to_string),
        }
        .pillarenv_or_config(opts)
        .unwrap_or_else(|| "base".into());
        let pillar_roots = opts::roots(opts, "pillar_roots");
        let environment = pillar_roots
            .get(&env)
            .and_then(|dirs| dirs.first())
            .map(|d| d.join("hiera.yaml"));
        let file_roots = opts::roots(opts, "file_roots");
        let module_roots = file_roots
            .get(&env)
            .or_else(|| file_roots.get("base"))
            .cloned()
            .unwrap_or_default();
        let sources = Sources {
            global,
            environment,
            module_roots,
        };
        Hiera {
            engine: Engine::new(sources, scope_vars(minion, &env)),
        }
    }

    /// Look `key` up; `merge` (a strategy name or a `{strategy: ...}` map)
    /// overrides the key's `lookup_options`. `Ok(None)`: not found.
    pub fn lookup(&self, key: &str, merge: Option<&Value>) -> Result<Option<Value>, HieraError> {
        self.engine.lookup(key, merge)
    }

    /// The error for a key found nowhere, naming the data files searched.
    pub fn not_found(&self, key: &str) -> String {
        let searched = self.engine.searched();
        if searched.is_empty() {
            format!(
                "Function lookup() did not find a value for the name '{key}' (no data file was \
                 searched: set hiera_config, or put a hiera.yaml at the root of the pillar \
                 environment)"
            )
        } else {
            let files: Vec<String> = searched.iter().map(|p| p.display().to_string()).collect();
            format!(
                "Function lookup() did not find a value for the name '{key}' (searched: {})",
                files.join(", ")
            )
        }
    }

    /// Every key of the hierarchies, each looked up with its own
    /// `lookup_options`.
    pub fn all(&self) -> Result<Map, HieraError> {
        let mut out = Map::default();
        for key in self.engine.all_keys()? {
            if let Some(v) = self.engine.lookup_literal(&key)? {
                out.insert(key, v);
            }
        }
        Ok(out)
    }
}

/// The node scope: grains as top-level variables and as `facts`/`grains`,
/// then what Puppet's compiler sets (these win over same-named grains).
fn scope_vars(minion: &MinionData, environment: &str) -> Map {
    let mut vars = Map::default();
    let grains = match &minion.grains {
        Value::Map(m) => m.clone(),
        _ => Map::default(),
    };
    for (k, v) in &grains {
        vars.insert(k.clone(), v.clone());
    }
    let id = minion.id.clone();
    let (hostname, domain) = match id.split_once('.') {
        Some((h, d)) => (h.to_string(), d.to_string()),
        None => (id.clone(), String::new()),
    };
    let mut trusted = Map::default();
    trusted.insert("authenticated".into(), Value::Str("local".into()));
    trusted.insert("certname".into(), Value::Str(id.clone()));
    trusted.insert("domain".into(), Value::Str(domain));
    trusted.insert("extensions".into(), Value::new_map());
    trusted.insert("hostname".into(), Value::Str(hostname));
    vars.insert("facts".into(), Value::Map(grains.clone()));
    vars.insert("grains".into(), Value::Map(grains));
    vars.insert("trusted".into(), Value::Map(trusted));
    vars.insert("clientcert".into(), Value::Str(id));
    vars.insert("environment".into(), Value::Str(environment.to_string()));
    vars.insert(
        "pillar".into(),
        match &minion.pillar {
            Value::Map(m) => Value::Map(m.clone()),
            _ => Value::new_map(),
        },
    );
    vars
}

/// `ext_pillar: [{hiera: CONF}]`: every key of the hierarchies, each with
/// its own `lookup_options` merge. `CONF` may be a path to the global
/// `hiera.yaml` (as Salt's own hiera ext_pillar takes); otherwise
/// `hiera_config` is used.
pub fn ext_pillar(
    minion: &MinionData,
    ext_opts: &Value,
    pillar: &Value,
    conf: &Value,
    opts: &Map,
    pillarenv: Option<&str>,
) -> Result<Value, HieraError> {
    let node = MinionData {
        id: minion.id.clone(),
        grains: minion.grains.clone(),
        pillar: pillar.clone(),
        opts: ext_opts.clone(),
        functions: minion.functions.clone(),
    };
    let hiera = match conf {
        Value::Str(path) => Hiera::with_global(opts, &node, pillarenv, Some(PathBuf::from(path))),
        _ => Hiera::new(opts, &node, pillarenv),
    };
    hiera.all().map(Value::Map)
}

#[cfg(test)]
mod tests;
