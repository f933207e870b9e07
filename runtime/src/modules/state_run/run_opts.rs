//! What a state run is asked for: test mode, environments, the pillar
//! (in memory, or compiled fresh with an override), and the answers of
//! the render stage, with salt-call's exit codes.

use crate::context::{FreshPillar, Minion};
use crate::modules::function::{CallError, Return};
use brine_compile::envs::Envs;
use brine_compile::opts;
use brine_core::{Map, Value};
use std::sync::Arc;

/// salt's exit codes for state runs.
pub(super) const EX_STATE_COMPILER_ERROR: i32 = 1;
pub(super) const EX_STATE_FAILURE: i32 = 2;
pub(super) const EX_PILLAR_FAILURE: i32 = 5;

/// Salt's `_get_test_value`: `test=` given wins (anything but `False`
/// means test mode); else a `Test`-like keyword, a `test: True` grain or
/// pillar, or the `test` option.
pub(super) fn test_value(m: &Minion, test: Option<&Value>, kwargs: &Map) -> bool {
    match test {
        Some(Value::Null) | None => {}
        Some(Value::Bool(false)) => return false,
        Some(_) => return true,
    }
    if kwargs
        .iter()
        .any(|(k, v)| k.to_lowercase() == "test" && is_true(v))
    {
        return true;
    }
    let configured = m
        .grains
        .get("test")
        .or_else(|| m.pillar.get("test"))
        .or_else(|| m.pillar.get("master").and_then(|ms| ms.get("test")));
    if configured == Some(&Value::Bool(true)) {
        return true;
    }
    opts::test_mode(&m.opts)
}

/// Salt's `salt.utils.data.is_true`.
pub(super) fn is_true(v: &Value) -> bool {
    match v {
        Value::Int(i) => *i > 0,
        Value::Float(f) => *f > 0.0,
        Value::Bool(b) => *b,
        Value::Str(s) => {
            if let Ok(f) = s.trim().parse::<f64>() {
                f > 0.0
            } else {
                s.to_lowercase() == "true"
            }
        }
        other => other.is_truthy(),
    }
}

/// What a state run needs from its keyword arguments.
pub(super) struct RunOpts {
    pub(super) test: bool,
    pub(super) saltenv: Option<String>,
    pub(super) pillarenv: Option<String>,
    pub(super) pillar_override: Option<Value>,
}

impl RunOpts {
    /// Salt's `get_sls_opts` and the pillar override check.
    pub(super) fn new(
        m: &Minion,
        test: Option<&Value>,
        kwargs: &Map,
    ) -> Result<RunOpts, CallError> {
        let Envs { saltenv, pillarenv } = Envs::of_state_run(&m.opts, kwargs);
        let pillar_override = crate::modules::pillar::decrypted_override(
            &m.opts,
            kwargs.get("pillar").filter(|v| !v.is_null()).cloned(),
            kwargs.get("pillar_enc").cloned(),
        )?;
        if pillar_override
            .as_ref()
            .is_some_and(|p| !matches!(p, Value::Map(_)))
            && kwargs.get("pillar_enc").is_none_or(Value::is_null)
        {
            return Err(CallError::Invocation(
                "Pillar data must be formatted as a dictionary, unless pillar_enc is specified."
                    .into(),
            ));
        }
        Ok(RunOpts {
            test: test_value(m, test, kwargs),
            saltenv,
            pillarenv,
            pillar_override,
        })
    }

    /// The pillar the run sees: the in-memory one when neither a different
    /// `pillarenv` nor a `pillar=` override was asked for, else a fresh
    /// compile (with the override merged on top). The in-memory pillar is
    /// moved out of the minion for the run (see [`RunPillar::restore`]).
    pub(super) fn pillar(&self, m: &mut Minion) -> RunPillar {
        match self.fresh_pillar(m) {
            None => RunPillar {
                // Taken out whole when this call is its only holder.
                pillar: std::mem::take(Arc::make_mut(&mut m.pillar)),
                in_memory: true,
            },
            Some(fresh) => RunPillar {
                pillar: m.compile_pillar(&fresh, true),
                in_memory: false,
            },
        }
    }

    /// The fresh compile the run's pillar needs; `None`: the in-memory one.
    pub(super) fn fresh_pillar(&self, m: &Minion) -> Option<FreshPillar> {
        // Salt's `initial_pillar`: under salt-call (brine-call), the
        // in-memory pillar, when the run keeps the configured pillarenv and
        // that pillar is not empty; the minion daemon compiles afresh.
        let same_env = self.pillarenv == Envs::configured(&m.opts).pillarenv;
        let override_given = self.pillar_override.as_ref().is_some_and(Value::is_truthy);
        let salt_call = opts::get_str(&m.opts, "__cli").is_none_or(|c| c == "salt-call");
        if salt_call && same_env && !m.pillar.is_empty() && !override_given {
            return None;
        }
        Some(FreshPillar::new(
            Envs {
                saltenv: self.saltenv.clone(),
                pillarenv: self.pillarenv.clone(),
            },
            self.pillar_override.clone().filter(|_| override_given),
        ))
    }

    /// The pillar of a run whose states may be compiled by the master,
    /// without render errors (else the answer Salt gives for them). A fresh
    /// pillar is left to that compile ([`Pillar::OnMaster`]): the master
    /// compiles it and sends it back with the states, one round trip
    /// instead of fetching it and sending it back.
    pub(super) fn checked_pillar(&self, m: &mut Minion, kwargs: &Map) -> Result<Pillar, Return> {
        if m.compiles_on_master() {
            if let Some(fresh) = self.fresh_pillar(m) {
                return Ok(Pillar::OnMaster(fresh));
            }
        }
        let pillar = self.pillar(m);
        match pillar_errors(&pillar.pillar, kwargs) {
            Some(r) => {
                pillar.restore(m);
                Err(r)
            }
            None => Ok(Pillar::Ready(pillar)),
        }
    }
}

/// A run's pillar, or the compile the master is to make of it.
pub(super) enum Pillar {
    Ready(RunPillar),
    OnMaster(FreshPillar),
}

/// The pillar of one run. Moved, not copied, through the render stage and
/// the runtime; the minion's in-memory pillar goes back when done.
pub(super) struct RunPillar {
    pub(super) pillar: Map,
    pub(super) in_memory: bool,
}

impl RunPillar {
    pub(super) fn restore(self, m: &mut Minion) {
        if self.in_memory {
            m.pillar = Arc::new(self.pillar);
        }
    }
}

/// The render stage's answer for a run.
pub(super) enum Rendered {
    /// High data to compile and run.
    High(Map),
    /// Compile errors (retcode 1).
    Errors(Vec<String>),
    /// A ready answer (no top match, no states).
    Answer(Return),
}

/// Errors as the run's answer, with `retcode`.
pub(super) fn errors(list: Vec<String>, retcode: i32) -> Return {
    Return {
        value: Value::List(list.into_iter().map(Value::Str).collect()),
        retcode,
    }
}

/// The pillar's `_errors`: Salt refuses to run states on a broken pillar
/// (unless `force=True`).
pub(super) fn pillar_errors(pillar: &Map, kwargs: &Map) -> Option<Return> {
    if kwargs.get("force").is_some_and(Value::is_truthy) {
        return None;
    }
    let errs = pillar.get("_errors")?;
    let mut list = vec!["Pillar failed to render with the following messages:".to_string()];
    match errs {
        Value::List(l) => list.extend(l.iter().map(Value::to_python_str)),
        other => list.push(other.to_python_str()),
    }
    Some(errors(list, EX_PILLAR_FAILURE))
}
