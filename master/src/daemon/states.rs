//! State serving: compile a minion's highstate (top files) or SLS list into
//! low chunks for it to run, with the pillar it chose (the one it sends, or
//! a fresh one compiled here first and sent back with the chunks), its
//! cached grains and its run options, as `salt-call --local`'s
//! `state.apply` does before the run (top → matched SLS rendered →
//! `exclude` → requisites/extend → low chunks). The answer is sealed to the
//! minion: chunks hold pillar data.

use super::minion_cache::MinionCache;
use brine_compile::minion_data::Functions;
use brine_compile::state::compile::compile_high_data_owned;
use brine_compile::state::render::{self, render_matches};
use brine_compile::state::top::{self, FileServer, TopError};
use brine_compile::state::StateRequest;
use brine_compile::MinionData;
use brine_core::{Map, Value};
use brine_protocol::messages::{
    aad, seal_data, CompileStage, CompileStates, CompiledStates, ErrorCode, ErrorReply, ReplyBody,
    StateReply,
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
    let o = compile_opts(master_opts, req);
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

/// Answer a compile request of minion `keys` (already checked to be `req.id`).
pub fn handle(
    master_opts: &Map,
    cache: &MinionCache,
    functions: &Functions,
    grains: Value,
    req: &CompileStates,
    to: super::pillar::SealFor,
    received: std::time::Instant,
) -> ReplyBody {
    let _compiling = brine_compile::render::compiling();
    let (pillar, sealed_pillar) = match &req.fresh_pillar {
        None => (req.pillar.clone(), None),
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
                Ok((pillar, sealed)) => (pillar, Some(sealed)),
                Err(e) => return ReplyBody::Error(e),
            }
        }
    };
    let compiled = compile(master_opts, functions, grains, req, pillar);
    match seal_data(&to.keys.x25519, &compiled, &aad::states(&req.id, to.nonce)) {
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

    fn request(mods: Option<Vec<String>>) -> CompileStates {
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
                debian(),
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
