//! Pillar serving (Salt's `_pillar`): compile the asking minion's pillar
//! with the master's options, its cached grains and the request's
//! pillarenv/saltenv/override, cache it for targeting, and seal it to the
//! minion. Only ever the requester's own pillar: the dispatcher has checked
//! that the request was signed by the accepted key of `req.id`.
//!
//! The minion merges its in-memory pillar under what it receives
//! (`ssh_merge_pillar`), as `salt-call --local` does in one step.

use super::minion_cache::MinionCache;
use super::replay::Given;
use brine_compile::minion_data::Functions;
use brine_compile::pillar::{self, PillarRequest as Compile};
use brine_core::{Map, Value};
use brine_protocol::crypto::{Nonce, PublicKeys, Sealed};
use brine_protocol::messages::{
    aad, seal_encoded, ErrorCode, ErrorReply, FreshPillar, PillarReply, PillarRequest, ReplyBody,
};
use std::time::Instant;

/// Where a pillar came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    Compiled,
    /// Given again from the minion's cache file: nothing it was compiled
    /// from has changed ([`super::replay`]).
    Replayed,
}

/// A pillar for a request: compiled for it, or the one compiled earlier,
/// kept encoded.
#[derive(Debug)]
pub enum Pillar {
    Compiled(Map),
    /// Encoded as `seal_data` encodes a map: sealed to the minion as it
    /// is, decoded only if a state compile needs it.
    Replayed(Vec<u8>),
}

impl Pillar {
    pub fn source(&self) -> Source {
        match self {
            Pillar::Compiled(_) => Source::Compiled,
            Pillar::Replayed(_) => Source::Replayed,
        }
    }

    /// The pillar encoded, and the map when it was compiled now.
    pub fn into_encoded(self) -> Result<EncodedPillar, rmp_serde::encode::Error> {
        match self {
            Pillar::Compiled(m) => Ok(EncodedPillar {
                encoded: rmp_serde::to_vec_named(&m)?,
                map: Some(m),
            }),
            Pillar::Replayed(encoded) => Ok(EncodedPillar { encoded, map: None }),
        }
    }
}

/// A pillar encoded (what is sealed to the minion, and what the state
/// replay's digest takes), and as a map when that was at hand: a replayed
/// pillar is decoded only if a state compile needs it.
pub struct EncodedPillar {
    pub encoded: Vec<u8>,
    map: Option<Map>,
}

impl EncodedPillar {
    /// A pillar a minion sent with its request.
    pub fn of(pillar: &Map) -> Result<EncodedPillar, rmp_serde::encode::Error> {
        Ok(EncodedPillar {
            encoded: rmp_serde::to_vec_named(pillar)?,
            map: None,
        })
    }

    pub fn into_map(self) -> Result<Map, rmp_serde::decode::Error> {
        match self.map {
            Some(m) => Ok(m),
            None => rmp_serde::from_slice(&self.encoded),
        }
    }
}

/// Compile `id`'s pillar (no in-memory pillar: the minion merges its own),
/// or give the last one again when nothing it was compiled from changed.
/// `received`: when the request arrived (a replay's files checked since
/// then need no second check).
pub fn compile_for(
    master_opts: &Map,
    cache: &MinionCache,
    functions: &Functions,
    id: &str,
    fresh: &FreshPillar,
    received: Instant,
) -> Pillar {
    compile_settled(
        master_opts,
        cache,
        functions,
        id,
        fresh,
        received,
        brine_compile::inputs::SETTLED,
    )
}

/// [`compile_for`], trusting files changed `settled` before the compile.
fn compile_settled(
    master_opts: &Map,
    cache: &MinionCache,
    functions: &Functions,
    id: &str,
    fresh: &FreshPillar,
    received: Instant,
    settled: std::time::Duration,
) -> Pillar {
    let saltenv = fresh.saltenv.clone();
    let pillar_override = fresh.pillar_override.clone().unwrap_or(Value::Null);
    let cached = cache.get(id);
    // Resolved by the minion (brine_compile::envs); none: the master's own.
    let pillarenv = fresh.pillarenv.clone();
    // A `pillar=` override is the caller's, not the files': never replayed.
    let given = cached
        .clone()
        .filter(|_| pillar_override.is_null())
        .map(|known| Given {
            known,
            pillarenv: pillarenv.clone(),
            saltenv: saltenv.clone(),
        });
    if let Some(pillar) = given
        .as_ref()
        .and_then(|g| cache.pillar_replayed(id, g, received))
    {
        tracing::debug!("the pillar of {id} is given again");
        return Pillar::Replayed(pillar);
    }
    // Copied only for a compile (a replay needs none).
    let grains = cached
        .as_ref()
        .map(|c| c.grains())
        .filter(|g| matches!(g, Value::Map(_)))
        .unwrap_or_else(Value::new_map);
    let (pillar, inputs) = brine_compile::inputs::record_settled(settled, || {
        pillar::compile(&Compile {
            opts: master_opts.clone(),
            minion_id: id.to_string(),
            grains,
            pillarenv,
            saltenv,
            pillar_override: (!pillar_override.is_null()).then_some(pillar_override),
            known_pillar: None,
            functions: functions.clone(),
        })
    });
    // Errors may be passing ones (a file unreadable for a moment).
    let replay = match (given, inputs) {
        (Some(given), Ok(inputs)) if !pillar.contains_key("_errors") => Some((given, inputs)),
        (_, Err(why)) => {
            tracing::debug!("the pillar of {id} will be compiled again: {why}");
            None
        }
        _ => None,
    };
    // Salt caches every pillar it compiles for a minion (targeting reads it).
    if let Err(e) = cache.set_pillar(id, &pillar, replay) {
        tracing::warn!("{e}");
    }
    Pillar::Compiled(pillar)
}

/// The minion a reply is sealed to, and the request (its nonce) it answers.
#[derive(Clone, Copy)]
pub struct SealFor<'a> {
    pub keys: &'a PublicKeys,
    pub nonce: &'a Nonce,
}

/// A pillar sealed to the minion that asked.
pub struct SealedPillar {
    pub pillar: EncodedPillar,
    pub sealed: Sealed,
}

/// `id`'s pillar compiled for a request (a pillar request, or a state
/// compile asked to compile it) and sealed to the minion with
/// [`aad::pillar`] bound to the request's nonce. Refused: an override that
/// is not a mapping.
pub fn compile_sealed(
    master_opts: &Map,
    cache: &MinionCache,
    functions: &Functions,
    id: &str,
    fresh: &FreshPillar,
    received: Instant,
    to: SealFor,
) -> Result<SealedPillar, ErrorReply> {
    if !matches!(
        fresh.pillar_override,
        None | Some(Value::Null | Value::Map(_))
    ) {
        return Err(ErrorReply {
            code: ErrorCode::BadRequest,
            message: "Pillar data must be formatted as a dictionary".into(),
        });
    }
    let internal = |message: String| ErrorReply {
        code: ErrorCode::Internal,
        message,
    };
    let pillar = compile_for(master_opts, cache, functions, id, fresh, received);
    let pillar = pillar
        .into_encoded()
        .map_err(|e| internal(format!("cannot encode the pillar: {e}")))?;
    match seal_encoded(&to.keys.x25519, &pillar.encoded, &aad::pillar(id, to.nonce)) {
        Ok(sealed) => Ok(SealedPillar { pillar, sealed }),
        Err(e) => Err(internal(format!("cannot seal the pillar: {e}"))),
    }
}

pub fn handle(
    master_opts: &Map,
    cache: &MinionCache,
    functions: &Functions,
    req: &PillarRequest,
    request_nonce: &Nonce,
    keys: &PublicKeys,
    received: Instant,
) -> ReplyBody {
    let _compiling = brine_compile::render::compiling();
    let fresh = FreshPillar {
        pillarenv: req.pillarenv.clone(),
        saltenv: req.saltenv.clone(),
        pillar_override: Some(req.pillar_override.clone()),
    };
    match compile_sealed(
        master_opts,
        cache,
        functions,
        &req.id,
        &fresh,
        received,
        SealFor {
            keys,
            nonce: request_nonce,
        },
    ) {
        Ok(p) => ReplyBody::Pillar(PillarReply { pillar: p.sealed }),
        Err(e) => ReplyBody::Error(e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use brine_protocol::crypto::KeyPair;
    use brine_protocol::messages::open_data;

    /// A master with `files` under its pillar root, and `web1` known
    /// (`os: Debian`).
    pub(super) fn setup(files: &[(&str, &str)]) -> (tempfile::TempDir, Map, MinionCache) {
        let td = tempfile::tempdir().unwrap();
        let pr = td.path().join("pillar");
        std::fs::create_dir_all(&pr).unwrap();
        for (name, text) in files {
            std::fs::write(pr.join(name), text).unwrap();
        }
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
        (td, o, cache)
    }

    #[test]
    fn compiles_with_cached_grains_and_seals_to_the_minion() {
        let (_td, o, cache) = setup(&[
            (
                "top.sls",
                "base:\n  'G@os:Debian':\n    - match: compound\n    - deb\n",
            ),
            ("deb.sls", "who: {{ grains['id'] }}-{{ opts['id'] }}\n"),
        ]);
        let kp = KeyPair::generate().unwrap();
        let req = PillarRequest {
            id: "web1".into(),
            pillarenv: None,
            saltenv: None,
            pillar_override: Value::from_json(&serde_json::json!({"extra": 1})),
        };
        let nonce = [9u8; 16];
        let ReplyBody::Pillar(r) = handle(
            &o,
            &cache,
            &brine_runtime::modules::functions(),
            &req,
            &nonce,
            &kp.public(),
            Instant::now(),
        ) else {
            panic!()
        };
        let got: Value = open_data(&kp, &r.pillar, &aad::pillar("web1", &nonce)).unwrap();
        assert_eq!(
            got.to_json(),
            serde_json::json!({"who": "web1-web1", "extra": 1})
        );
        assert_eq!(cache.pillar("web1"), got);
        // Another minion (no cached grains) does not match the grain target.
        let other = compile_for(
            &o,
            &cache,
            &brine_runtime::modules::functions(),
            "db1",
            &FreshPillar::default(),
            Instant::now(),
        )
        .into_encoded()
        .unwrap()
        .into_map()
        .unwrap();
        assert!(other.is_empty(), "{other:?}");
    }
}

#[cfg(test)]
mod replay_tests {
    use super::tests::setup;
    use super::*;
    use std::time::Duration;

    fn compile(o: &Map, cache: &MinionCache, pillar_override: Value) -> (Value, Source) {
        let fresh = FreshPillar {
            pillar_override: Some(pillar_override),
            ..Default::default()
        };
        let p = compile_settled(
            o,
            cache,
            &brine_runtime::modules::functions(),
            "web1",
            &fresh,
            Instant::now(),
            Duration::ZERO,
        );
        let source = p.source();
        let map = p.into_encoded().unwrap().into_map().unwrap();
        (Value::Map(map), source)
    }

    fn json(v: serde_json::Value) -> Value {
        Value::from_json(&v)
    }

    #[test]
    fn an_unchanged_pillar_is_replayed_and_any_change_is_seen_at_once() {
        let top = "base:\n  '*':\n    - a\n    - 'g*'\n";
        let (td, o, cache) = setup(&[
            ("top.sls", top),
            (
                "a.sls",
                "a: {{ grains['os'] }}\n{% import 'm.jinja' as m %}b: {{ m.b }}\n",
            ),
            ("m.jinja", "{% set b = 1 %}"),
            ("g0.sls", "g0: 0\n"),
        ]);
        let pr = td.path().join("pillar");
        let want = json(serde_json::json!({"a": "Debian", "b": 1, "g0": 0}));
        assert_eq!(
            compile(&o, &cache, Value::Null),
            (want.clone(), Source::Compiled)
        );
        assert_eq!(
            compile(&o, &cache, Value::Null),
            (want.clone(), Source::Replayed)
        );
        // An imported template changes (a clock tick later, same size).
        std::thread::sleep(Duration::from_millis(30));
        std::fs::write(pr.join("m.jinja"), "{% set b = 2 %}").unwrap();
        let want = json(serde_json::json!({"a": "Debian", "b": 2, "g0": 0}));
        assert_eq!(
            compile(&o, &cache, Value::Null),
            (want.clone(), Source::Compiled)
        );
        assert_eq!(
            compile(&o, &cache, Value::Null),
            (want.clone(), Source::Replayed)
        );
        // A file the top's glob now matches appears.
        std::fs::write(pr.join("g1.sls"), "g: 1\n").unwrap();
        let want = json(serde_json::json!({"a": "Debian", "b": 2, "g0": 0, "g": 1}));
        assert_eq!(
            compile(&o, &cache, Value::Null),
            (want.clone(), Source::Compiled)
        );
        // `a` found elsewhere first: `a.sls` gone, `a/init.sls` there.
        std::fs::remove_file(pr.join("a.sls")).unwrap();
        std::fs::create_dir(pr.join("a")).unwrap();
        std::fs::write(pr.join("a/init.sls"), "a: moved\n").unwrap();
        let want = json(serde_json::json!({"a": "moved", "g0": 0, "g": 1}));
        assert_eq!(
            compile(&o, &cache, Value::Null),
            (want.clone(), Source::Compiled)
        );
        assert_eq!(
            compile(&o, &cache, Value::Null),
            (want.clone(), Source::Replayed)
        );
        // The minion authenticates again with the same grains.
        let grains = cache.get("web1").unwrap().grains();
        cache.set_auth("web1", grains, None).unwrap();
        assert_eq!(
            compile(&o, &cache, Value::Null),
            (want.clone(), Source::Replayed)
        );
        // New grains.
        cache
            .set_grains(
                "web1",
                json(serde_json::json!({"id": "web1", "os": "Arch"})),
            )
            .unwrap();
        assert_eq!(compile(&o, &cache, Value::Null).1, Source::Compiled);
        // An override is the caller's: compiled, and the next one too (the
        // file then holds the override).
        let extra = json(serde_json::json!({"x": 1}));
        let (p, source) = compile(&o, &cache, extra);
        assert_eq!(
            (p.get("x"), source),
            (Some(&Value::Int(1)), Source::Compiled)
        );
        let (p, source) = compile(&o, &cache, Value::Null);
        assert_eq!((p.get("x"), source), (None, Source::Compiled));
        // The cache file replaced behind the master's back.
        cache.set_pillar("web1", &Map::default(), None).unwrap();
        assert_eq!(compile(&o, &cache, Value::Null).1, Source::Compiled);
        assert!(cache.replay_paths() > 0);
    }

    #[test]
    fn a_pillar_that_asked_the_host_or_failed_is_compiled_every_time() {
        for sls in [
            "r: {{ salt['test.random_hash']() }}\n",
            "r: {{ salt['cmd.run']('echo hi') }}\n",
            "r: {{ salt['pillar.get'](\n",
        ] {
            let (_td, o, cache) = setup(&[("top.sls", "base:\n  '*':\n    - r\n"), ("r.sls", sls)]);
            assert_eq!(compile(&o, &cache, Value::Null).1, Source::Compiled);
            assert_eq!(
                compile(&o, &cache, Value::Null).1,
                Source::Compiled,
                "{sls}"
            );
        }
        // Only template-safe calls: replayed.
        let (_td, o, cache) = setup(&[
            ("top.sls", "base:\n  '*':\n    - r\n"),
            ("r.sls", "r: {{ salt['grains.get']('os') }}\n"),
        ]);
        assert_eq!(compile(&o, &cache, Value::Null).1, Source::Compiled);
        assert_eq!(compile(&o, &cache, Value::Null).1, Source::Replayed);
    }

    #[test]
    fn a_pillar_stack_is_replayed_until_a_part_comes_or_changes() {
        let (td, mut o, cache) =
            setup(&[("top.sls", "base:\n  '*':\n    - a\n"), ("a.sls", "a: 1\n")]);
        let st = td.path().join("stack");
        std::fs::create_dir_all(st.join("parts")).unwrap();
        std::fs::write(st.join("stack.cfg"), "parts/*.yml\n").unwrap();
        std::fs::write(st.join("parts/0.yml"), "s0: {{ minion_id }}\n").unwrap();
        o.insert(
            "ext_pillar".into(),
            json(serde_json::json!([{"stack": st.join("stack.cfg").display().to_string()}])),
        );
        let want = json(serde_json::json!({"a": 1, "s0": "web1"}));
        assert_eq!(
            compile(&o, &cache, Value::Null),
            (want.clone(), Source::Compiled)
        );
        assert_eq!(compile(&o, &cache, Value::Null), (want, Source::Replayed));
        std::fs::write(st.join("parts/1.yml"), "s1: 1\n").unwrap();
        let want = json(serde_json::json!({"a": 1, "s0": "web1", "s1": 1}));
        assert_eq!(
            compile(&o, &cache, Value::Null),
            (want.clone(), Source::Compiled)
        );
        assert_eq!(compile(&o, &cache, Value::Null), (want, Source::Replayed));
        std::thread::sleep(Duration::from_millis(30));
        std::fs::write(st.join("parts/1.yml"), "s1: 2\n").unwrap();
        let want = json(serde_json::json!({"a": 1, "s0": "web1", "s1": 2}));
        assert_eq!(compile(&o, &cache, Value::Null), (want, Source::Compiled));
    }

    #[test]
    fn files_written_just_now_are_read_again() {
        let (_td, o, cache) =
            setup(&[("top.sls", "base:\n  '*':\n    - a\n"), ("a.sls", "a: 1\n")]);
        let fresh = FreshPillar::default();
        let at = |settled| {
            compile_settled(
                &o,
                &cache,
                &brine_runtime::modules::functions(),
                "web1",
                &fresh,
                Instant::now(),
                settled,
            )
            .source()
        };
        assert_eq!(at(brine_compile::inputs::SETTLED), Source::Compiled);
        assert_eq!(at(brine_compile::inputs::SETTLED), Source::Compiled);
    }
}
