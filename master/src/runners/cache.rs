//! Salt's `cache` runner: what the master has cached of its minions —
//! `grains` and `pillar` (the minion cache), `mine` (the mine store), by the minions a target
//! selects (all accepted minions when `pillar` is given none).

use super::runner::{Answer, Runner, RunnerError};
use crate::daemon::minion_cache::MinionCache;
use crate::daemon::publisher;
use crate::daemon::MasterConfig;
use crate::keys::KeyStore;
use brine_core::{sig, Map, Value};
use brine_runtime::modules::Params;

pub(super) const FUNCTIONS: &[Runner] = &[
    Runner {
        name: "grains",
        sig: sig!(tgt, tgt_type = "glob"),
        doc: "The cached grains of the minions TGT (TGT_TYPE, default glob) selects, by id.",
        run: |config, p| Box::pin(async move { cached(config, p, Kind::Grains) }),
    },
    Runner {
        name: "pillar",
        sig: sig!(tgt = null, tgt_type = "glob"),
        doc: "The cached pillar of the minions TGT (TGT_TYPE, default glob; every minion \
when not given) selects, by id.",
        run: |config, p| Box::pin(async move { cached(config, p, Kind::Pillar) }),
    },
    Runner {
        name: "mine",
        sig: sig!(tgt = null, tgt_type = "glob"),
        doc: "The mine data the master holds of the minions TGT (TGT_TYPE, default glob; \
every minion when not given) selects, by id: function → data.",
        run: |config, p| Box::pin(async move { cached(config, p, Kind::Mine) }),
    },
];

#[derive(Clone, Copy, PartialEq)]
enum Kind {
    Grains,
    Pillar,
    Mine,
}

fn cached(config: &MasterConfig, mut p: Params, kind: Kind) -> Result<Answer, RunnerError> {
    let tgt = match kind {
        Kind::Grains => p.require("tgt")?,
        Kind::Pillar | Kind::Mine => p.take("tgt").unwrap_or_else(|| Value::from("*")),
    };
    let tgt_type = p
        .take("tgt_type")
        .map_or_else(|| "glob".to_string(), |v| v.to_python_str());
    p.finish()?;
    let keys = KeyStore::for_config(&config.pki_dir, &config.job_cache)?;
    let cache = MinionCache::open(&config.minion_cache_dir())?;
    let ids = publisher::expected_minions(&keys, &cache, &config.opts, &tgt, &tgt_type)
        .map_err(|e| RunnerError::InvalidArguments(e.to_string()))?;
    let mine = match kind {
        Kind::Mine => Some(super::mine::open_store(config)?),
        _ => None,
    };
    let mut out = Map::default();
    for id in ids {
        let v = match kind {
            Kind::Grains => match cache.get(&id) {
                Some(m) => m.grains(),
                None => continue,
            },
            Kind::Pillar => match cache.pillar(&id) {
                Value::Null => Value::new_map(),
                v => v,
            },
            Kind::Mine => match mine.as_ref().map(|m| m.cached(&id)).transpose()? {
                Some(m) if !m.is_empty() => Value::Map(m),
                _ => continue,
            },
        };
        out.insert(id, v);
    }
    Ok(Answer::data(Value::Map(out)))
}
