//! The render stage: top files and SLS files → high data.

use super::run_opts::{Rendered, RunOpts, RunPillar, EX_STATE_FAILURE};
use crate::context::Minion;
use crate::modules::function::Return;
use brine_compile::state::top::{self, FileServer, TopError};
use brine_compile::state::{render, StateRequest};
use brine_core::{Map, Value};
use std::sync::Arc;

/// What the templates of this run see: the run's saltenv/pillarenv in
/// the opts and the run's pillar (moved in; [`take_back`] returns it).
pub(super) fn request(m: &Minion, run: &RunOpts, pillar: Map) -> StateRequest {
    let envs = brine_compile::envs::Envs {
        saltenv: run.saltenv.clone(),
        pillarenv: run.pillarenv.clone(),
    };
    m.state_request(envs, pillar, Some(run.test))
}

/// The pillar back out of a request once rendering is done.
pub(super) fn take_back(req: StateRequest, in_memory: bool) -> RunPillar {
    let pillar = match Arc::try_unwrap(req.minion) {
        Ok(md) => md.pillar,
        Err(shared) => shared.pillar.clone(),
    };
    RunPillar {
        pillar: match pillar {
            Value::Map(m) => m,
            _ => Map::default(),
        },
        in_memory,
    }
}

/// Salt's `call_highstate` answer when there is nothing to run.
fn no_states(comment: &str) -> Rendered {
    let mut ret = Map::default();
    ret.insert("result".into(), Value::Bool(false));
    ret.insert("comment".into(), Value::Str(comment.into()));
    ret.insert("name".into(), Value::Str("No States".into()));
    ret.insert("changes".into(), Value::new_map());
    ret.insert("__run_num__".into(), Value::Int(0));
    let mut running = Map::default();
    running.insert("no_|-states_|-states_|-None".into(), Value::Map(ret));
    Rendered::Answer(Return {
        value: Value::Map(running),
        retcode: EX_STATE_FAILURE,
    })
}

/// Salt's `call_highstate` up to the run: the top, its matches for
/// this minion, the matched SLS rendered.
pub(super) fn highstate(m: &Minion, run: &RunOpts, pillar: RunPillar) -> (Rendered, RunPillar) {
    let in_memory = pillar.in_memory;
    let req = request(m, run, pillar.pillar);
    let rendered = highstate_with(&req);
    (rendered, take_back(req, in_memory))
}

fn highstate_with(req: &StateRequest) -> Rendered {
    let fs = FileServer::new(&req.opts);
    let top = match top::get_top(req, &fs) {
        Ok(t) => t,
        Err(TopError::NoTargets) => {
            return no_states(&format!(
                "Unable to render top file: {}",
                TopError::NoTargets
            ))
        }
        Err(e) => return Rendered::Errors(vec![e.to_string()]),
    };
    let mut errors = top::verify_tops(&top);
    let matches = match top::top_matches(req, &fs, &top) {
        Ok(mt) => mt,
        Err(e) => {
            errors.push(e.to_string());
            return Rendered::Errors(errors);
        }
    };
    if matches.is_empty() {
        return no_states(
            "No Top file or master_tops data matches found. Please see master log for \
             details.",
        );
    }
    let r = render::render_matches(req, &fs, &matches);
    errors.extend(r.errors);
    if !errors.is_empty() {
        return Rendered::Errors(errors);
    }
    if r.high.is_empty() {
        return no_states("No states found for this minion");
    }
    Rendered::High(r.high)
}

/// The listed SLS of the run's saltenv.
pub(super) fn sls(
    m: &Minion,
    run: &RunOpts,
    pillar: RunPillar,
    mods: &[String],
) -> (Rendered, RunPillar) {
    let in_memory = pillar.in_memory;
    let req = request(m, run, pillar.pillar);
    let saltenv = run.saltenv.clone().unwrap_or_else(|| "base".into());
    let r = render::render_sls(&req, &saltenv, mods);
    let rendered = if r.errors.is_empty() {
        Rendered::High(r.high)
    } else {
        Rendered::Errors(r.errors)
    };
    (rendered, take_back(req, in_memory))
}
