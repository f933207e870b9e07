//! What a minion process holds: its `opts`, its grains and its in-memory
//! pillar (compiled once at start-up, as Salt does, and then only replaced
//! by a pillar refresh). Execution functions read these.
//!
//! Where a pillar is compiled is the [`PillarSource`]: in this process from
//! the minion's own `pillar_roots` (`brine-call --local`), or by the master
//! (`brine-minion`, through [`RemotePillar`]).

use crate::grains;
use brine_master::opts::{self, OptsError};
use brine_master::pillar::merge::{merge, MergeStrategy};
use brine_master::pillar::{self, PillarRequest};
use brine_protocol::{Map, Value};
use std::path::Path;
use std::sync::Arc;

#[derive(Debug, Clone)]
pub struct Minion {
    pub id: String,
    pub opts: Map,
    pub grains: Map,
    /// The in-memory pillar (`__pillar__`).
    pub pillar: Map,
    /// Who compiles a fresh pillar.
    pub source: PillarSource,
}

/// Who compiles this minion's pillar.
#[derive(Clone, Default)]
pub enum PillarSource {
    /// This process, from the minion's `pillar_roots` (masterless).
    #[default]
    Local,
    /// The master (Salt's `RemotePillar`).
    Remote(Arc<dyn RemotePillar>),
}

impl std::fmt::Debug for PillarSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PillarSource::Local => f.write_str("Local"),
            PillarSource::Remote(_) => f.write_str("Remote"),
        }
    }
}

/// A master that compiles pillars for this minion. Called from the thread
/// running a function, so it may block.
pub trait RemotePillar: Send + Sync {
    /// The pillar the master compiles for `req` (its `pillarenv` already
    /// resolved from the call and the minion's options). `Err` carries why
    /// no pillar came back (master unreachable, refused...).
    fn compile(&self, req: &FreshPillar) -> Result<Map, String>;
}

/// A pillar compile asked for by a function (`pillar.items pillarenv=x`).
#[derive(Debug, Clone, Default)]
pub struct FreshPillar {
    pub pillarenv: Option<String>,
    pub saltenv: Option<String>,
    pub pillar_override: Option<Value>,
}

impl Minion {
    /// Read `CONFDIR/minion`, collect grains, compile the start-up pillar.
    /// Returns the minion and the configuration warnings.
    pub fn start_local(confdir: &Path) -> Result<(Minion, Vec<String>), OptsError> {
        let (mut minion, warnings) = Minion::load(confdir)?;
        minion.pillar = minion.compile_pillar(&FreshPillar::default(), false);
        Ok((minion, warnings))
    }

    /// Read `CONFDIR/minion` and collect grains; the pillar is left empty
    /// (the daemon fetches it from the master once authenticated).
    pub fn load(confdir: &Path) -> Result<(Minion, Vec<String>), OptsError> {
        let loaded = opts::load(&confdir.join("minion"), opts::minion_defaults())?;
        let mut opts = loaded.opts;
        // The id defaults to the fqdn; server_id and friends need the id.
        let id = match opts::get_str(&opts, "id") {
            Some(id) => id.to_string(),
            None => match grains::net::fqdn(&grains::net::hostname()) {
                f if f.is_empty() => "localhost".to_string(),
                f => f,
            },
        };
        let cachedir = opts::get_str(&opts, "cachedir").map(std::path::PathBuf::from);
        let core = grains::core_grains_cached(&id, cachedir.as_deref());
        opts.insert("id".into(), Value::Str(id.clone()));
        let static_grains = opts
            .get("grains")
            .and_then(Value::as_map)
            .cloned()
            .unwrap_or_default();
        let grains = grains::merge_static(core, &static_grains);
        let minion = Minion {
            id,
            opts,
            grains,
            pillar: Map::new(),
            source: PillarSource::Local,
        };
        Ok((minion, loaded.warnings))
    }

    /// Compile a pillar for this minion. `on_demand` compiles (functions
    /// asking for fresh pillar) see the in-memory pillar as Salt's do; the
    /// start-up compile sees none.
    pub fn compile_pillar(&self, req: &FreshPillar, on_demand: bool) -> Map {
        let pillarenv = req.pillarenv.clone().or_else(|| {
            if opts::get_bool(&self.opts, "pillarenv_from_saltenv", false) {
                req.saltenv
                    .clone()
                    .or_else(|| opts::get_str(&self.opts, "saltenv").map(str::to_string))
            } else {
                None
            }
        });
        let remote = match &self.source {
            PillarSource::Local => {
                return pillar::compile(&PillarRequest {
                    opts: self.opts.clone(),
                    minion_id: self.id.clone(),
                    grains: Value::Map(self.grains.clone()),
                    pillarenv,
                    saltenv: req.saltenv.clone(),
                    pillar_override: req.pillar_override.clone(),
                    known_pillar: on_demand.then(|| self.pillar.clone()),
                })
            }
            PillarSource::Remote(r) => r,
        };
        let fresh = remote
            .compile(&FreshPillar {
                pillarenv: pillarenv
                    .or_else(|| opts::get_str(&self.opts, "pillarenv").map(str::to_string)),
                saltenv: req.saltenv.clone(),
                pillar_override: req.pillar_override.clone(),
            })
            .unwrap_or_else(|e| {
                tracing::error!("Pillar render error: {e}");
                let mut m = Map::new();
                m.insert("_errors".into(), Value::List(vec![Value::Str(e)]));
                m
            });
        if on_demand && opts::get_bool(&self.opts, "ssh_merge_pillar", false) {
            merge_under(&self.opts, self.pillar.clone(), fresh)
        } else {
            fresh
        }
    }
}

/// The in-memory pillar under a fresh one, as the local compile lays them
/// (`ssh_merge_pillar`): merged with the minion's strategy, and the fresh
/// compile's `_errors` (if any) replacing older ones rather than merging.
fn merge_under(o: &Map, mut under: Map, mut fresh: Map) -> Map {
    let strategy: MergeStrategy = opts::get_str(o, "pillar_source_merging_strategy")
        .unwrap_or("smart")
        .parse()
        .unwrap_or_default();
    let merge_lists = opts::get_bool(o, "pillar_merge_lists", false);
    let errors = fresh.shift_remove("_errors");
    merge(&mut under, fresh, strategy, merge_lists);
    if let Some(e) = errors {
        under.insert("_errors".into(), e);
    }
    under
}
