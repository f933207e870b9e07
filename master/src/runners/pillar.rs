//! Salt's `pillar` runner: `show_pillar`, a minion's pillar compiled on
//! the master from its cached grains (the grains `{fqdn: MINION}` for a
//! minion the master has none of), the call's other keywords set as
//! grains, as Salt's runner compiles it — without touching the minion
//! cache.

use super::runner::{Answer, Runner, RunnerError};
use crate::daemon::minion_cache::MinionCache;
use crate::daemon::MasterConfig;
use brine_compile::pillar::{self, PillarRequest};
use brine_core::{sig, Map, Value};
use brine_runtime::modules::Params;

pub(super) const FUNCTIONS: &[Runner] = &[Runner {
    name: "show_pillar",
    sig: sig!(minion = "*", **kwargs),
    doc: "The pillar the master compiles for MINION (its cached grains; '*', the \
default, for the pillar every minion's top gives); SALTENV and PILLARENV choose the \
trees, any other keyword is set as a grain for the compile.",
    run: |config, p| Box::pin(async move { show_pillar(config, p) }),
}];

fn show_pillar(config: &MasterConfig, mut p: Params) -> Result<Answer, RunnerError> {
    let minion = p
        .take("minion")
        .filter(|v| !v.is_null())
        .map_or_else(|| "*".to_string(), |v| v.to_python_str());
    let kwargs = p.kwargs_with_pub("pillar.show_pillar");
    p.finish()?;
    let cache = MinionCache::open(&config.minion_cache_dir())?;
    let mut grains = match cache.get(&minion).map(|m| m.grains()) {
        Some(Value::Map(g)) => g,
        _ => {
            let mut g = Map::default();
            g.insert("fqdn".into(), Value::Str(minion.clone()));
            g
        }
    };
    let (mut saltenv, mut pillarenv) = (None, None);
    for (k, v) in kwargs {
        match k.as_str() {
            _ if k.starts_with("__") => {}
            "saltenv" => saltenv = Some(v.to_python_str()),
            "pillarenv" => pillarenv = Some(v.to_python_str()),
            _ => {
                grains.insert(k, v);
            }
        }
    }
    let compiled = pillar::compile(&PillarRequest {
        opts: config.opts.clone(),
        minion_id: minion,
        grains: Value::Map(grains),
        pillarenv,
        saltenv: Some(saltenv.unwrap_or_else(|| "base".into())),
        pillar_override: None,
        known_pillar: None,
        functions: brine_runtime::modules::functions(),
    });
    Ok(Answer::data(Value::Map(compiled)))
}
