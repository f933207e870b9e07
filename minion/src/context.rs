//! What a minion process holds: its `opts`, its grains and its in-memory
//! pillar (compiled once at start-up, as Salt does, and then only replaced
//! by a pillar refresh). Execution functions read these.

use crate::grains;
use brine_master::opts::{self, OptsError};
use brine_master::pillar::{self, PillarRequest};
use brine_protocol::{Map, Value};
use std::path::Path;

#[derive(Debug, Clone)]
pub struct Minion {
    pub id: String,
    pub opts: Map,
    pub grains: Map,
    /// The in-memory pillar (`__pillar__`).
    pub pillar: Map,
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
        let mut minion = Minion {
            id,
            opts,
            grains,
            pillar: Map::new(),
        };
        minion.pillar = minion.compile_pillar(&FreshPillar::default(), false);
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
        pillar::compile(&PillarRequest {
            opts: self.opts.clone(),
            minion_id: self.id.clone(),
            grains: Value::Map(self.grains.clone()),
            pillarenv,
            saltenv: req.saltenv.clone(),
            pillar_override: req.pillar_override.clone(),
            known_pillar: on_demand.then(|| self.pillar.clone()),
        })
    }
}
