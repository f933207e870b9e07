//! Pillar serving (Salt's `_pillar`): compile the asking minion's pillar
//! with the master's options, its cached grains and the request's
//! pillarenv/saltenv/override, cache it for targeting, and seal it to the
//! minion. Only ever the requester's own pillar: the dispatcher has checked
//! that the request was signed by the accepted key of `req.id`.
//!
//! The minion merges its in-memory pillar under what it receives
//! (`ssh_merge_pillar`), as `salt-call --local` does in one step.

use super::minion_cache::MinionCache;
use brine_compile::pillar::{self, PillarRequest as Compile};
use brine_core::{Map, Value};
use brine_protocol::crypto::{Nonce, PublicKeys, Sealed};
use brine_protocol::messages::{
    aad, seal_data, ErrorCode, ErrorReply, FreshPillar, PillarReply, PillarRequest, ReplyBody,
};

/// The master's options as a pillar compile for `id` sees them (Salt's
/// `Pillar.__gen_opts`): `id`, `grains`, and the call's envs.
pub fn compile_opts(
    master_opts: &Map,
    id: &str,
    grains: &Value,
    saltenv: Option<&str>,
    pillarenv: Option<&str>,
) -> Map {
    let mut o = master_opts.clone();
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

/// Compile `id`'s pillar (no in-memory pillar: the minion merges its own).
pub fn compile_for(
    master_opts: &Map,
    cache: &MinionCache,
    id: &str,
    pillarenv: Option<String>,
    saltenv: Option<String>,
    pillar_override: Value,
) -> Map {
    let cached = cache.get(id);
    let grains = cached
        .as_ref()
        .map(|c| c.grains.clone())
        .filter(|g| matches!(g, Value::Map(_)))
        .unwrap_or_else(Value::new_map);
    // No pillarenv asked for: the minion's configured one.
    let pillarenv = pillarenv.or_else(|| cached.as_ref().and_then(|c| c.pillarenv.clone()));
    let opts = compile_opts(
        master_opts,
        id,
        &grains,
        saltenv.as_deref(),
        pillarenv.as_deref(),
    );
    let pillar = pillar::compile(&Compile {
        opts,
        minion_id: id.to_string(),
        grains,
        pillarenv,
        saltenv,
        pillar_override: (!pillar_override.is_null()).then_some(pillar_override),
        known_pillar: None,
        functions: brine_runtime::modules::functions(),
    });
    // Salt caches every pillar it compiles for a minion (targeting reads it).
    if let Err(e) = cache.set_pillar(id, &pillar) {
        tracing::warn!("{e}");
    }
    pillar
}

/// `id`'s pillar compiled for a request (a pillar request, or a state
/// compile asked to compile it) and sealed to the minion with
/// [`aad::pillar`] bound to the request's nonce. Refused: an override that
/// is not a mapping.
pub fn compile_sealed(
    master_opts: &Map,
    cache: &MinionCache,
    id: &str,
    fresh: &FreshPillar,
    request_nonce: &Nonce,
    keys: &PublicKeys,
) -> Result<(Map, Sealed), ErrorReply> {
    let pillar_override = fresh.pillar_override.clone().unwrap_or(Value::Null);
    if !matches!(pillar_override, Value::Null | Value::Map(_)) {
        return Err(ErrorReply {
            code: ErrorCode::BadRequest,
            message: "Pillar data must be formatted as a dictionary".into(),
        });
    }
    let pillar = compile_for(
        master_opts,
        cache,
        id,
        fresh.pillarenv.clone(),
        fresh.saltenv.clone(),
        pillar_override,
    );
    match seal_data(&keys.x25519, &pillar, &aad::pillar(id, request_nonce)) {
        Ok(sealed) => Ok((pillar, sealed)),
        Err(e) => Err(ErrorReply {
            code: ErrorCode::Internal,
            message: format!("cannot seal the pillar: {e}"),
        }),
    }
}

pub fn handle(
    master_opts: &Map,
    cache: &MinionCache,
    req: &PillarRequest,
    request_nonce: &Nonce,
    keys: &PublicKeys,
) -> ReplyBody {
    let _compiling = brine_compile::render::compiling();
    let fresh = FreshPillar {
        pillarenv: req.pillarenv.clone(),
        saltenv: req.saltenv.clone(),
        pillar_override: Some(req.pillar_override.clone()),
    };
    match compile_sealed(master_opts, cache, &req.id, &fresh, request_nonce, keys) {
        Ok((_, sealed)) => ReplyBody::Pillar(PillarReply { pillar: sealed }),
        Err(e) => ReplyBody::Error(e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use brine_protocol::crypto::KeyPair;
    use brine_protocol::messages::open_data;

    #[test]
    fn compiles_with_cached_grains_and_seals_to_the_minion() {
        let td = tempfile::tempdir().unwrap();
        let pr = td.path().join("pillar");
        std::fs::create_dir_all(&pr).unwrap();
        std::fs::write(
            pr.join("top.sls"),
            "base:\n  'G@os:Debian':\n    - match: compound\n    - deb\n",
        )
        .unwrap();
        std::fs::write(
            pr.join("deb.sls"),
            "who: {{ grains['id'] }}-{{ opts['id'] }}\n",
        )
        .unwrap();
        let mut o = crate::daemon::config::master_defaults();
        o.insert(
            "pillar_roots".into(),
            Value::from_json(&serde_json::json!({"base": [pr.display().to_string()]})),
        );
        let cache = MinionCache::open(&td.path().join("minions")).unwrap();
        cache
            .set_grains(
                "web1",
                Value::from_json(&serde_json::json!({"id": "web1", "os": "Debian"})),
            )
            .unwrap();
        let kp = KeyPair::generate().unwrap();
        let req = PillarRequest {
            id: "web1".into(),
            pillarenv: None,
            saltenv: None,
            pillar_override: Value::from_json(&serde_json::json!({"extra": 1})),
        };
        let nonce = [9u8; 16];
        let ReplyBody::Pillar(r) = handle(&o, &cache, &req, &nonce, &kp.public()) else {
            panic!()
        };
        let got: Value = open_data(&kp, &r.pillar, &aad::pillar("web1", &nonce)).unwrap();
        assert_eq!(
            got.to_json(),
            serde_json::json!({"who": "web1-web1", "extra": 1})
        );
        assert_eq!(cache.pillar("web1"), got);
        // Another minion (no cached grains) does not match the grain target.
        let other = compile_for(&o, &cache, "db1", None, None, Value::Null);
        assert!(other.is_empty(), "{other:?}");
    }
}
