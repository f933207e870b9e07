//! `state.orchestrate` (with its names `state.orch` and `state.sls`) and
//! its siblings, as Salt's orchestrate runner answers them: the master
//! minion runs `state.sls` (`state.single`, `state.high`,
//! `state.show_sls`) and the answer is `{data: {<master id>: running},
//! outputter: highstate, retcode}` — `retcode` 1 when any step failed
//! (Salt's `check_result` over the data), so `brine-run` exits 1.

use super::calls::MasterLink;
use super::minion::master_minion;
use crate::daemon::MasterConfig;
use brine_core::args::CallArgs;
use brine_core::{Map, Value};
use brine_runtime::modules;
use brine_states::outcome::check_result;

/// Why an orchestration gave no answer.
#[derive(Debug, thiserror::Error)]
pub enum OrchestrateError {
    /// Salt's `SaltInvocationError` for a `pillar=` that is no dict.
    #[error("Pillar data must be formatted as a dictionary")]
    PillarNotDict,
    #[error("{0}")]
    Function(#[from] modules::CallError),
}

/// What one orchestration runs and with what.
pub struct Orchestration {
    /// The orchestration's job id: its steps' events are this job's.
    pub jid: String,
    /// Who runs it.
    pub user: String,
    /// The master minion's function (`state.sls`, `state.single`, ...).
    pub fun: &'static str,
    pub call: CallArgs,
}

impl Orchestration {
    /// A `pillar=` override must be a mapping (Salt checks it first).
    pub fn check_pillar(pillar: Option<&Value>) -> Result<(), OrchestrateError> {
        match pillar {
            None | Some(Value::Null) | Some(Value::Map(_)) => Ok(()),
            Some(_) => Err(OrchestrateError::PillarNotDict),
        }
    }

    /// Run it on `config`'s master minion: what the master minion's
    /// function returned, under the minion's id.
    pub fn run(self, config: &MasterConfig) -> Result<(String, Value), OrchestrateError> {
        let link = MasterLink::new(config.clone(), self.jid, self.user);
        let mut minion = master_minion(config, Some(link), true);
        let id = minion.id.clone();
        let ret = modules::call(&mut minion, self.fun, self.call)?;
        Ok((id, ret.value))
    }
}

/// The orchestrate runner's answer for `running` (the master minion's
/// return, under `id`): `{data: {id: running}, outputter: highstate,
/// retcode}`.
pub fn answer(id: String, running: Value) -> Value {
    let mut data = Map::default();
    data.insert(id, running);
    let data = Value::Map(data);
    let ok = check_result(&data, false);
    let mut out = Map::default();
    out.insert("data".into(), data);
    out.insert("outputter".into(), Value::from("highstate"));
    out.insert("retcode".into(), Value::Int(i64::from(!ok)));
    Value::Map(out)
}
