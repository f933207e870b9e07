//! State serving: compile a minion's highstate (top files) or SLS list into
//! low chunks for it to run, with the pillar it chose (the one it sends, or
//! a fresh one compiled here first and sent back with the chunks), its
//! cached grains and its run options, as `salt-call --local`'s
//! `state.apply` does before the run (top → matched SLS rendered →
//! `exclude` → requisites/extend → low chunks). The answer is sealed to the
//! minion: chunks hold pillar data.

use super::minion_cache::{KnownMinion, MinionCache};
use super::pillar::EncodedPillar;
use super::state_replay::Given;
use brine_compile::minion_data::Functions;
use brine_compile::state::compile::compile_high_data_owned;
use brine_compile::state::render::{self, render_matches};
use brine_compile::state::top::{self, FileServer, TopError};
use brine_compile::state::StateRequest;
use brine_compile::MinionData;
use brine_core::{Map, Value};
use brine_protocol::messages::{
    aad, seal_encoded, CompileStage, CompileStates, CompiledStates, ErrorCode, ErrorReply,
    ReplyBody, StateReply,
};
use std::sync::Arc;

/// Salt's `EX_STATE_COMPILER_ERROR`.
const EX_STATE_COMPILER_ERROR: i64 = 1;
/// Salt's `EX_STATE_FAILURE`.
const EX_STATE_FAILURE: i64 = 2;

/// Options the master owns: where files and pillar come from and how
/// targets are named. The minion's values for these are replaced.
pub const MASTER_OWNED: &[&str] = &[
    "file_roots",
    "fileserver_backend",
    brine_compile::gitfs_trees::MANIFEST_OPTION,
    brine_compile::pillar::git::MANIFEST_OPTION,
    "pillar_roots",
    "ext_pillar",
    "ext_pillar_first",
    "pillar_opts",
    "pillar_safe_render_error",
    "pillar_source_merging_strategy",
    "hiera_config",
    "nodegroups",
];

/// The options the compile runs with: the minion's, with the master-owned
/// keys from the master, the run's envs and test mode, the authenticated
/// id, and gpg blocks left for the minion.
pub fn compile_opts(master_opts: &Map, req: &CompileStates) -> Map {
    let mut o = req.opts.clone();
    for key in MASTER_OWNED {
        match master_opts.get(*key) {
            Some(v) => o.insert((*key).to_string(), v.clone()),
            None => o.shift_remove(*key),
        };
    }
    o.insert("id".into(), Value::Str(req.id.clone()));
    // Salt renders state files on the minion: their gpg blocks are the
    // minion's to decrypt, with its keyring.
    o.insert(
        brine_compile::render::gpg::DEFER_OPTION.into(),
        Value::Bool(true),
    );
    brine_compile::envs::Envs {
        saltenv: req.saltenv.clone(),
        pillarenv: req.pillarenv.clone(),
    }
    .write_into(&mut o);
    if req.stage == CompileStage::Run {
        o.insert("test".into(), Value::Bool(req.test));
    }
    o
}

/// Salt's `call_highstate` answer when there is nothing to run.
fn no_states(comment: &str) -> CompiledStates {
    let mut ret = Map::default();
    ret.insert("result".into(), Value::Bool(false));
    ret.insert("comment".into(), Value::Str(comment.into()));
    ret.insert("name".into(), Value::Str("No States".into()));
    ret.insert("changes".into(), Value::new_map());
    ret.insert("__run_num__".into(), Value::Int(0));
    let mut running = Map::default();
    running.insert("no_|-states_|-states_|-None".into(), Value::Map(ret));
    CompiledStates::Answer {
        ret: Value::Map(running),
        retcode: EX_STATE_FAILURE,
    }
}

fn errors(errors: Vec<String>) -> CompiledStates {
    CompiledStates::Errors {
        errors,
        retcode: EX_STATE_COMPILER_ERROR,
    }
}

/// The highstate's high data: the top, its matches, the matched SLS.
fn highstate(req: &StateRequest) -> Result<Map, CompiledStates> {
    let fs = FileServer::new(&req.opts);
    let top = match top::get_top(req, &fs) {
        Ok(t) => t,
        Err(TopError::NoTargets) => {
            return Err(no_states(&format!(
                "Unable to render top file: {}",
                TopError::NoTargets
            )))
        }
        Err(e) => return Err(errors(vec![e.to_string()])),
    };
    let mut errs = top::verify_tops(&top);
    let matches = match top::top_matches(req, &fs, &top) {
        Ok(m) => m,
        Err(e) => {
            errs.push(e.to_string());
            return Err(errors(errs));
        }
    };
    if matches.is_empty() {
        return Err(no_states(
            "No Top file or master_tops data matches found. Please see master log for details.",
        ));
    }
    let r = render_matches(req, &fs, &matches);
    errs.extend(r.errors);
    if !errs.is_empty() {
        return Err(errors(errs));
    }
    if r.high.is_empty() {
        return Err(no_states("No states found for this minion"));
    }
    Ok(r.high)
}

/// Compile what `req` asks for, with `grains` (the minion's cached ones)
/// and `pillar`.
pub fn compile(
    master_opts: &Map,
    functions: &Functions,
    grains: Value,
    req: &CompileStates,
    pillar: Map,
) -> CompiledStates {
    compile_with(
        compile_opts(master_opts, req),
        functions,
        grains,
        req,
        pillar,
    )
}

/// [`compile`] with the options [`compile_opts`] gave.
fn compile_with(
    o: Map,
    functions: &Functions,
    grains: Value,
    req: &CompileStates,
    pillar: Map,
) -> CompiledStates {
    let saltenv = match &req.mods {
        // state.sls runs in base unless told otherwise.
        Some(_) => req.saltenv.clone().or_else(|| Some("base".into())),
        None => req.saltenv.clone(),
    };
    let minion = Arc::new(MinionData {
        id: req.id.clone(),
        grains,
        pillar: Value::Map(pillar),
        opts: Value::Map(o.clone()),
        functions: functions.clone(),
    });
    let sreq = StateRequest {
        opts: o,
        minion,
        saltenv: saltenv.clone(),
        pillarenv: req.pillarenv.clone(),
    };
    match req.stage {
        CompileStage::Run => {}
        CompileStage::Top => {
            let (top, errors) = top::show_top(&sreq);
            return CompiledStates::Top { top, errors };
        }
        CompileStage::Usage => {
            let (usage, errors) = top::state_usage(&sreq);
            return CompiledStates::Usage { usage, errors };
        }
        CompileStage::Rendered | CompileStage::RenderedUnverified => {
            let r = match (&req.mods, req.stage) {
                (Some(mods), _) => {
                    render::render_sls(&sreq, saltenv.as_deref().unwrap_or("base"), mods)
                }
                (None, CompileStage::Rendered) => render::render_highstate(&sreq),
                (None, _) => render::render_highstate_from_top(&sreq, false),
            };
            return CompiledStates::Rendered {
                high: r.high,
                errors: r.errors,
            };
        }
    }
    let high = match &req.mods {
        None => highstate(&sreq),
        Some(mods) => {
            let env = saltenv.unwrap_or_else(|| "base".into());
            let r = render::render_sls(&sreq, &env, mods);
            if r.errors.is_empty() {
                Ok(r.high)
            } else {
                Err(errors(r.errors))
            }
        }
    };
    let high = match high {
        Ok(h) => h,
        Err(answer) => return answer,
    };
    let prepared =
        match brine_compile::state::compile::prepare_run(high, Some(&req.exclude), &sreq.opts) {
            Ok(h) => h,
            Err(e) => return errors(e),
        };
    // The run's part of the high data first: compiling consumes it.
    let high = CompiledStates::run_part(&prepared);
    match compile_high_data_owned(prepared) {
        Ok(chunks) => CompiledStates::Chunks { chunks, high },
        Err(e) => errors(e),
    }
}

/// Where compiled states came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    Compiled,
    /// The answer kept from an earlier compile ([`super::state_replay`]).
    Replayed,
}

/// Why a compile request got no answer.
#[derive(Debug, thiserror::Error)]
enum AnswerError {
    #[error("cannot encode: {0}")]
    Encode(#[from] rmp_serde::encode::Error),
    #[error("cannot decode the pillar: {0}")]
    Pillar(#[from] rmp_serde::decode::Error),
}

/// The answer to `req`, encoded: the one kept for the minion when nothing
/// it was compiled from has changed, else compiled now (and kept when it
/// read nothing volatile and ran to chunks). `settled`: how long before
/// the compile a file must have changed to be trusted later.
#[allow(clippy::too_many_arguments)]
fn replayed_or_compiled(
    master_opts: &Map,
    cache: &MinionCache,
    functions: &Functions,
    known: &KnownMinion,
    req: &CompileStates,
    pillar: EncodedPillar,
    received: std::time::Instant,
    settled: std::time::Duration,
) -> Result<(Vec<u8>, Source), AnswerError> {
    let o = compile_opts(master_opts, req);
    let given = Given::of(&o, known.packed_grains(), &pillar.encoded, req);
    if let Some(encoded) = given.and_then(|g| cache.states_replayed(&req.id, g, received)) {
        tracing::debug!("the compiled states of {} are sent again", req.id);
        return Ok((encoded, Source::Replayed));
    }
    let pillar = pillar.into_map()?;
    let (compiled, inputs) = brine_compile::inputs::record_settled(settled, || {
        compile_with(o, functions, known.grains(), req, pillar)
    });
    let encoded = rmp_serde::to_vec_named(&compiled)?;
    // Errors may be passing ones (a file unreadable for a moment): only
    // chunks are kept.
    let keep = match (given, inputs) {
        (Some(given), Ok(inputs)) if matches!(compiled, CompiledStates::Chunks { .. }) => {
            Some((given, inputs))
        }
        (_, Err(why)) => {
            tracing::debug!("the states of {} will be compiled again: {why}", req.id);
            None
        }
        _ => None,
    };
    // Also when not kept: an earlier answer is stale now.
    if let Err(e) = cache.keep_states(&req.id, keep, &encoded) {
        tracing::warn!("{e}");
    }
    Ok((encoded, Source::Compiled))
}

/// Answer a compile request of minion `keys` (already checked to be
/// `req.id`), `known` what the master keeps of it (its grains).
pub fn handle(
    master_opts: &Map,
    cache: &MinionCache,
    functions: &Functions,
    known: &KnownMinion,
    req: &CompileStates,
    to: super::pillar::SealFor,
    received: std::time::Instant,
) -> ReplyBody {
    let _compiling = brine_compile::render::compiling();
    let internal = |e: AnswerError| {
        ReplyBody::Error(ErrorReply {
            code: ErrorCode::Internal,
            message: format!("cannot answer the state compile: {e}"),
        })
    };
    let (pillar, sealed_pillar) = match &req.fresh_pillar {
        None => match EncodedPillar::of(&req.pillar) {
            Ok(p) => (p, None),
            Err(e) => return internal(e.into()),
        },
        Some(fresh) => {
            match super::pillar::compile_sealed(
                master_opts,
                cache,
                functions,
                &req.id,
                fresh,
                received,
                to,
            ) {
                Ok(p) => (p.pillar, Some(p.sealed)),
                Err(e) => return ReplyBody::Error(e),
            }
        }
    };
    let encoded = match replayed_or_compiled(
        master_opts,
        cache,
        functions,
        known,
        req,
        pillar,
        received,
        brine_compile::inputs::SETTLED,
    ) {
        Ok((encoded, _)) => encoded,
        Err(e) => return internal(e),
    };
    match seal_encoded(&to.keys.x25519, &encoded, &aad::states(&req.id, to.nonce)) {
        Ok(sealed) => ReplyBody::States(StateReply {
            compiled: sealed,
            pillar: sealed_pillar,
        }),
        Err(e) => ReplyBody::Error(ErrorReply {
            code: ErrorCode::Internal,
            message: format!("cannot seal the compiled states: {e}"),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use std::time::Instant;

    fn tree() -> (tempfile::TempDir, Map) {
        let td = tempfile::tempdir().unwrap();
        let base = td.path().join("base");
        std::fs::create_dir_all(&base).unwrap();
        std::fs::write(
            base.join("top.sls"),
            "base:\n  'os:Debian':\n    - match: grain\n    - web\n",
        )
        .unwrap();
        std::fs::write(
            base.join("web.sls"),
            "greet:\n  test.succeed_without_changes:\n    - name: {{ pillar['who'] }}\nother:\n  test.nop: []\n",
        )
        .unwrap();
        std::fs::write(base.join("bad.sls"), "x: [\n").unwrap();
        let mut o = crate::daemon::config::master_defaults();
        o.insert(
            "file_roots".into(),
            Value::from_json(&json!({"base": [base.display().to_string()]})),
        );
        (td, o)
    }

    pub(super) fn request(mods: Option<Vec<String>>) -> CompileStates {
        let mut pillar = Map::default();
        pillar.insert("who".into(), "alice".into());
        let mut minion_opts = brine_compile::opts::minion_defaults();
        // The minion's file_roots are not the master's: replaced.
        minion_opts.insert(
            "file_roots".into(),
            Value::from_json(&json!({"base": ["/nonexistent"]})),
        );
        CompileStates {
            id: "web1".into(),
            mods,
            saltenv: None,
            pillarenv: None,
            exclude: Value::Null,
            test: false,
            opts: minion_opts,
            pillar,
            stage: CompileStage::Run,
            fresh_pillar: None,
        }
    }

    /// A compile with the pillar the request carries.
    fn compiled(o: &Map, grains: Value, req: &CompileStates) -> CompiledStates {
        compile(
            o,
            &brine_runtime::modules::functions(),
            grains,
            req,
            req.pillar.clone(),
        )
    }

    fn debian() -> Value {
        Value::from_json(&json!({"id": "web1", "os": "Debian"}))
    }

    #[test]
    fn highstate_compiles_to_ordered_chunks_with_the_pillar() {
        let (_td, o) = tree();
        let CompiledStates::Chunks { chunks, high } = compiled(&o, debian(), &request(None)) else {
            panic!()
        };
        let names: Vec<_> = chunks
            .iter()
            .map(|c| c.get("name").unwrap().to_python_str())
            .collect();
        assert_eq!(names, vec!["alice", "other"]);
        assert_eq!(chunks[0].get("__sls__"), Some(&Value::from("web")));
        // Only what the run reads of the high data travels.
        assert!(high.is_empty());
    }

    #[test]
    fn a_fresh_pillar_is_compiled_here_rendered_with_and_sent_back() {
        use brine_protocol::crypto::KeyPair;
        use brine_protocol::messages::{open_data, FreshPillar};
        let (td, mut o) = tree();
        let pr = td.path().join("pillar");
        std::fs::create_dir_all(&pr).unwrap();
        std::fs::write(pr.join("top.sls"), "base:\n  '*':\n    - p\n").unwrap();
        std::fs::write(pr.join("p.sls"), "who: bob-{{ grains['id'] }}\n").unwrap();
        o.insert(
            "pillar_roots".into(),
            Value::from_json(&json!({"base": [pr.display().to_string()]})),
        );
        let cache = MinionCache::open(&td.path().join("minions")).unwrap();
        cache.set_grains("web1", debian()).unwrap();
        let kp = KeyPair::generate().unwrap();
        let nonce = [7u8; 16];
        let ask = |req: &CompileStates| {
            handle(
                &o,
                &cache,
                &brine_runtime::modules::functions(),
                &cache.get("web1").unwrap(),
                req,
                crate::daemon::pillar::SealFor {
                    keys: &kp.public(),
                    nonce: &nonce,
                },
                Instant::now(),
            )
        };
        let mut req = request(None);
        req.pillar = Map::default();
        req.fresh_pillar = Some(FreshPillar {
            pillar_override: Some(Value::from_json(&json!({"extra": 1}))),
            ..Default::default()
        });
        let ReplyBody::States(r) = ask(&req) else {
            panic!()
        };
        let pillar: Value =
            open_data(&kp, &r.pillar.unwrap(), &aad::pillar("web1", &nonce)).unwrap();
        assert_eq!(pillar.to_json(), json!({"who": "bob-web1", "extra": 1}));
        // Cached for targeting, as a pillar request's compile is.
        assert_eq!(cache.pillar("web1"), pillar);
        let c: CompiledStates = open_data(&kp, &r.compiled, &aad::states("web1", &nonce)).unwrap();
        let CompiledStates::Chunks { chunks, .. } = c else {
            panic!("{c:?}")
        };
        assert_eq!(chunks[0].get("name"), Some(&Value::from("bob-web1")));
        // Without fresh_pillar, the pillar sent is the one used, none
        // comes back.
        let ReplyBody::States(r) = ask(&request(None)) else {
            panic!()
        };
        assert!(r.pillar.is_none());
        // An override that is not a mapping is refused, as a pillar
        // request's is.
        req.fresh_pillar = Some(FreshPillar {
            pillar_override: Some(Value::from("x")),
            ..Default::default()
        });
        let reply = ask(&req);
        assert!(
            matches!(&reply, ReplyBody::Error(e) if e.code == ErrorCode::BadRequest),
            "{reply:?}"
        );
    }

    #[test]
    fn show_stages_stop_after_the_render() {
        let (_td, o) = tree();
        let mut r = request(None);
        r.stage = CompileStage::Top;
        let CompiledStates::Top { top, errors } = compiled(&o, debian(), &r) else {
            panic!()
        };
        assert!(errors.is_empty());
        assert_eq!(top.get("base"), Some(&Value::from_json(&json!(["web"]))));
        r.stage = CompileStage::Rendered;
        let CompiledStates::Rendered { high, errors } = compiled(&o, debian(), &r) else {
            panic!()
        };
        assert!(errors.is_empty());
        // Rendered only: requisites and extend not applied.
        assert_eq!(
            high.get("other").map(Value::to_json),
            Some(json!({"test": ["nop", {"order": 10001}], "__sls__": "web", "__env__": "base"}))
        );
        let mut r = request(Some(vec!["bad".into()]));
        r.stage = CompileStage::Rendered;
        let CompiledStates::Rendered { errors, .. } = compiled(&o, debian(), &r) else {
            panic!()
        };
        assert_eq!(errors.len(), 1);
    }

    #[test]
    fn exclude_no_match_and_errors() {
        let (_td, o) = tree();
        let mut r = request(Some(vec!["web".into()]));
        // Salt's exclude: strings name SLS, `{id: ...}` names a state ID.
        r.exclude = Value::from_json(&json!([{"id": "other"}]));
        let CompiledStates::Chunks { chunks, .. } = compiled(&o, debian(), &r) else {
            panic!()
        };
        assert_eq!(chunks.len(), 1);

        let other_os = Value::from_json(&json!({"id": "web1", "os": "Arch"}));
        let CompiledStates::Answer { ret, retcode } = compiled(&o, other_os, &request(None)) else {
            panic!()
        };
        assert_eq!(retcode, 2);
        assert!(ret.get("no_|-states_|-states_|-None").is_some());

        let c = compiled(&o, debian(), &request(Some(vec!["bad".into()])));
        let CompiledStates::Errors { errors, retcode } = c else {
            panic!("{c:?}")
        };
        assert_eq!(retcode, 1);
        assert!(errors[0].contains("bad"), "{errors:?}");
        let c = compiled(&o, debian(), &request(Some(vec!["missing".into()])));
        assert!(matches!(c, CompiledStates::Errors { .. }), "{c:?}");
    }
}

#[cfg(test)]
mod replay_tests {
    use super::*;
    use serde_json::json;
    use std::time::{Duration, Instant};

    /// A master whose file_roots hold `web.sls` (reading the pillar, a
    /// grain, an option and `defaults.yaml` through Jinja) matched by grain.
    fn tree() -> (tempfile::TempDir, Map, MinionCache) {
        let td = tempfile::tempdir().unwrap();
        let base = td.path().join("base");
        std::fs::create_dir_all(&base).unwrap();
        std::fs::write(
            base.join("top.sls"),
            "base:\n  'os:Debian':\n    - match: grain\n    - web\n",
        )
        .unwrap();
        std::fs::write(base.join("web.sls"), WEB).unwrap();
        std::fs::write(base.join("defaults.yaml"), "port: 80\n").unwrap();
        let mut o = crate::daemon::config::master_defaults();
        o.insert(
            "file_roots".into(),
            Value::from_json(&json!({"base": [base.display().to_string()]})),
        );
        let cache = MinionCache::open(&td.path().join("minions")).unwrap();
        (td, o, cache)
    }

    const WEB: &str = "{% import_yaml 'defaults.yaml' as d %}\n\
        greet:\n  test.succeed_without_changes:\n    - name: \"{{ pillar['who'] }} {{ grains['host'] }} {{ d.port }} {{ opts['renderer'] }}\"\n";

    fn request() -> CompileStates {
        tests::request(None)
    }

    fn grains(host: &str) -> Value {
        Value::from_json(&json!({"id": "web1", "os": "Debian", "host": host}))
    }

    /// The answer and where it came from; a name of the first chunk.
    fn ask(o: &Map, cache: &MinionCache, g: Value, req: &CompileStates) -> (String, Source) {
        let (encoded, source) = replayed_or_compiled(
            o,
            cache,
            &brine_runtime::modules::functions(),
            &KnownMinion::with_grains(&g),
            req,
            EncodedPillar::of(&req.pillar).unwrap(),
            Instant::now(),
            Duration::ZERO,
        )
        .unwrap();
        let answer = match rmp_serde::from_slice::<CompiledStates>(&encoded).unwrap() {
            CompiledStates::Chunks { chunks, .. } => chunks[0].get("name").unwrap().to_python_str(),
            other => format!("{other:?}"),
        };
        (answer, source)
    }

    /// A change a clock tick after the file's last one (stamps differ).
    fn rewrite(path: &std::path::Path, text: &str) {
        std::thread::sleep(Duration::from_millis(30));
        std::fs::write(path, text).unwrap();
    }

    #[test]
    fn unchanged_states_are_sent_again_and_any_change_is_seen_at_once() {
        let (td, mut o, cache) = tree();
        let base = td.path().join("base");
        let req = request();
        let compiled = |name: &str| (name.to_string(), Source::Compiled);
        let replayed = |name: &str| (name.to_string(), Source::Replayed);
        let g = grains("h1");
        assert_eq!(
            ask(&o, &cache, g.clone(), &req),
            compiled("alice h1 80 jinja|yaml")
        );
        assert_eq!(
            ask(&o, &cache, g.clone(), &req),
            replayed("alice h1 80 jinja|yaml")
        );
        let kept = std::fs::metadata(td.path().join("minions/web1/states.p")).unwrap();
        assert_eq!(cache.states_kept(), (kept.len(), 1));

        // An SLS.
        rewrite(&base.join("web.sls"), &WEB.replace("greet", "hello"));
        assert_eq!(
            ask(&o, &cache, g.clone(), &req),
            compiled("alice h1 80 jinja|yaml")
        );
        assert_eq!(ask(&o, &cache, g.clone(), &req).1, Source::Replayed);
        // A file a template reads.
        rewrite(&base.join("defaults.yaml"), "port: 81\n");
        assert_eq!(
            ask(&o, &cache, g.clone(), &req),
            compiled("alice h1 81 jinja|yaml")
        );
        // The top file.
        rewrite(
            &base.join("top.sls"),
            "base:\n  'os:Arch':\n    - match: grain\n    - web\n",
        );
        let (answer, source) = ask(&o, &cache, g.clone(), &req);
        assert!(answer.contains("No Top file"), "{answer}");
        assert_eq!(source, Source::Compiled);
        rewrite(&base.join("top.sls"), "base:\n  '*':\n    - web\n");
        assert_eq!(
            ask(&o, &cache, g.clone(), &req),
            compiled("alice h1 81 jinja|yaml")
        );
        assert_eq!(ask(&o, &cache, g.clone(), &req).1, Source::Replayed);
        // A grain.
        assert_eq!(
            ask(&o, &cache, grains("h2"), &req),
            compiled("alice h2 81 jinja|yaml")
        );
        assert_eq!(ask(&o, &cache, grains("h2"), &req).1, Source::Replayed);
        // The pillar.
        let mut other = request();
        other.pillar.insert("who".into(), "bob".into());
        assert_eq!(
            ask(&o, &cache, grains("h2"), &other),
            compiled("bob h2 81 jinja|yaml")
        );
        // An option of the minion's, and test mode.
        let mut other = request();
        other.opts.insert("renderer".into(), "yaml".into());
        assert_eq!(ask(&o, &cache, grains("h2"), &other).1, Source::Compiled);
        let mut other = request();
        other.test = true;
        assert_eq!(ask(&o, &cache, grains("h2"), &other).1, Source::Compiled);
        assert_eq!(ask(&o, &cache, grains("h2"), &other).1, Source::Replayed);
        // An option of the master's: a root before the first one.
        let early = td.path().join("early");
        std::fs::create_dir_all(&early).unwrap();
        std::fs::write(early.join("defaults.yaml"), "port: 82\n").unwrap();
        o.insert(
            "file_roots".into(),
            Value::from_json(
                &json!({"base": [early.display().to_string(), base.display().to_string()]}),
            ),
        );
        assert_eq!(
            ask(&o, &cache, grains("h2"), &req),
            compiled("alice h2 82 jinja|yaml")
        );
        assert_eq!(ask(&o, &cache, grains("h2"), &req).1, Source::Replayed);
        // A file appearing where the compile looked and found nothing: an
        // SLS of the same name in the first root.
        std::fs::write(
            early.join("web.sls"),
            "early:\n  test.succeed_without_changes:\n    - name: from-early\n",
        )
        .unwrap();
        assert_eq!(ask(&o, &cache, grains("h2"), &req), compiled("from-early"));
        // One minion's answer is kept at a time, and the cap is counted.
        let kept = std::fs::metadata(td.path().join("minions/web1/states.p")).unwrap();
        assert_eq!(cache.states_kept(), (kept.len(), 1));
    }

    #[test]
    fn a_volatile_compile_is_not_kept_and_a_restart_forgets() {
        let (td, o, cache) = tree();
        let base = td.path().join("base");
        let req = request();
        assert_eq!(ask(&o, &cache, grains("h1"), &req).1, Source::Compiled);
        assert_eq!(ask(&o, &cache, grains("h1"), &req).1, Source::Replayed);
        // A call to something other than the minion's data, or a random
        // pick: compiled every time, and the earlier answer is let go.
        for text in [
            "x:\n  test.nop:\n    - name: {{ salt['test.random_hash']() }}\n",
            "x:\n  test.nop:\n    - name: {{ ['a', 'b', 'c', 'd'] | random }}\n",
        ] {
            rewrite(&base.join("web.sls"), text);
            assert_eq!(ask(&o, &cache, grains("h1"), &req).1, Source::Compiled);
            assert_eq!(ask(&o, &cache, grains("h1"), &req).1, Source::Compiled);
            assert_eq!(cache.states_kept(), (0, 0));
            assert!(!td.path().join("minions/web1/states.p").exists());
        }
        rewrite(&base.join("web.sls"), WEB);
        assert_eq!(ask(&o, &cache, grains("h1"), &req).1, Source::Compiled);
        assert!(td.path().join("minions/web1/states.p").exists());
        // A master started again sends nothing an earlier one kept.
        drop(cache);
        let cache = MinionCache::open(&td.path().join("minions")).unwrap();
        assert!(!td.path().join("minions/web1/states.p").exists());
        assert_eq!(ask(&o, &cache, grains("h1"), &req).1, Source::Compiled);
        assert_eq!(ask(&o, &cache, grains("h1"), &req).1, Source::Replayed);
    }
}
