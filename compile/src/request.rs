//! What a minion may ask the compile pipeline for when the trees live
//! elsewhere (on the master): a state compile or one of its stages, and a
//! Hiera lookup, with their answers. `brine-protocol` carries these sealed
//! inside its messages; the runtime's remote compile source sends them.

use brine_core::{Map, Value};
use serde::{Deserialize, Serialize};

/// The key marking a mine entry wrapped with its minion-side ACL (Salt's
/// `MINE_ITEM_ACL_ID`; its value is the ACL format's version, 1).
pub const MINE_ACL_ID: &str = "__saltmine_acl__";
/// The key holding a wrapped mine entry's data (Salt's `MINE_ITEM_ACL_DATA`).
pub const MINE_ACL_DATA: &str = "__data__";

/// The functions a `mine.get` names — a name, a comma list (repeats
/// dropped, order kept) or a list — and whether the answer is keyed by
/// function first (several asked, or a list); `None` for anything else,
/// which Salt answers with `{}`.
pub fn mine_get_functions(fun: &Value) -> Option<(Vec<String>, bool)> {
    match fun {
        Value::Str(s) => {
            let mut seen = std::collections::BTreeSet::new();
            let f: Vec<String> = s
                .split(',')
                .filter(|f| seen.insert(*f))
                .map(str::to_string)
                .collect();
            let several = f.len() > 1;
            Some((f, several))
        }
        Value::List(l) => Some((l.iter().map(Value::to_python_str).collect(), true)),
        _ => None,
    }
}

/// A minion's request about the mine (`mine.update`/`send`/`get`/
/// `delete`/`flush` on a minion of a master).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", content = "body", rename_all = "snake_case")]
pub enum MineOp {
    /// Store `data` (function or alias → its entry, Salt's shape with ACL
    /// wrapping where set); `clear`: replace everything stored before
    /// (Salt's `_mine` with `clear`).
    Store { data: Map, clear: bool },
    /// `mine.get`: the entries of `fun` (a name, a comma list, or a list)
    /// from the minions `tgt` selects. Answered with the data (brine-protocol's `MineReply`).
    Get {
        tgt: Value,
        fun: Value,
        tgt_type: String,
    },
    /// Drop one function's entry (`mine.delete`).
    Delete { fun: String },
    /// Drop every entry of this minion (`mine.flush`).
    Flush,
}

/// `hiera.lookup KEY [merge=]` on a minion whose hierarchies
/// (`hiera_config`, `pillar_roots`) are the master's. The `default=` of the
/// call stays on the minion: it applies when the answer is
/// [`HieraResult::NotFound`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HieraLookup {
    pub id: String,
    pub key: String,
    /// `merge=`: Null, a strategy name, or `{strategy: ...}`.
    pub merge: Value,
    /// The minion's `pillarenv` (environment layer).
    pub pillarenv: Option<String>,
    /// The minion's in-memory pillar (interpolation scope).
    pub pillar: Map,
}

/// `state.apply`/`state.highstate`/`state.sls`: compile the run's states
/// on the master. The minion decides which pillar the run sees: its
/// in-memory pillar, which it sends, or a fresh one ([`FreshPillar`], what
/// a minion daemon's runs see), which the master compiles first and sends
/// back with the states, instead of the minion fetching it and sending it
/// back. The master renders the top file and SLS with that pillar and the
/// minion's cached grains, and answers a `StateReply` (brine-protocol).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CompileStates {
    pub id: String,
    /// `None`: the highstate (top files); `Some`: these SLS of `saltenv`.
    pub mods: Option<Vec<String>>,
    /// The run's `saltenv` (call argument, else the minion's option).
    pub saltenv: Option<String>,
    /// The run's `pillarenv`, for templates.
    pub pillarenv: Option<String>,
    /// `exclude=` as given: Null, a list, or a comma-separated string.
    pub exclude: Value,
    /// The run's test mode, for templates (`opts['test']`).
    pub test: bool,
    /// The minion's options (top merging, `env_order`, `state_top`,
    /// `renderer`, `disabled_requisites`...). The master's own fileserver,
    /// pillar and nodegroup options replace the matching keys.
    pub opts: Map,
    /// The pillar the run sees (empty when `fresh_pillar` is given).
    pub pillar: Map,
    /// How far to go (default: low chunks ready to run).
    #[serde(default)]
    pub stage: CompileStage,
    /// Compile the minion's pillar with these settings first and render
    /// with it instead of `pillar`; the answer carries it.
    #[serde(default)]
    pub fresh_pillar: Option<FreshPillar>,
}

/// A pillar compile asked for by a function (`pillar.items pillarenv=x`,
/// a state run): Salt's `_pillar` request settings.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct FreshPillar {
    /// Resolved where the call arrived ([`crate::envs::Envs`]); `None`:
    /// the compiling configuration's.
    pub pillarenv: Option<String>,
    pub saltenv: Option<String>,
    /// `pillar=` override data (a map).
    pub pillar_override: Option<Value>,
}

impl FreshPillar {
    /// A compile in `envs`, with an override or none.
    pub fn new(envs: crate::envs::Envs, pillar_override: Option<Value>) -> FreshPillar {
        FreshPillar {
            pillarenv: envs.pillarenv,
            saltenv: envs.saltenv,
            pillar_override,
        }
    }
}

/// What a [`CompileStates`] asks the master for. The master does the part
/// that reads the file server (top files, SLS rendering); the `show_*`
/// functions finish on the minion with the pure steps of
/// `crate::state::compile`, exactly as `brine-call --local` does.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CompileStage {
    /// `state.apply`/`highstate`/`sls`: [`CompiledStates::Chunks`] (or
    /// `Errors`/`Answer`).
    #[default]
    Run,
    /// `state.show_top`: [`CompiledStates::Top`].
    Top,
    /// `state.show_highstate` (mods `None`) / `state.show_sls` and
    /// `show_low_sls` (mods given): [`CompiledStates::Rendered`], the high
    /// data as rendered (`extend`, `exclude`, `_in` not applied).
    Rendered,
    /// `state.show_lowstate`: [`CompiledStates::Rendered`] of the highstate
    /// without the top-file verification (Salt's `compile_low_chunks`).
    RenderedUnverified,
    /// `state.show_state_usage`: [`CompiledStates::Usage`].
    Usage,
}

impl CompiledStates {
    /// What a run's answer ([`CompiledStates::Chunks`]) carries of the
    /// high data beside its chunks: only the states with a declaration
    /// holding `onfail_stop: False`, the one thing the run reads of it. The
    /// whole high data would double the largest message of a highstate
    /// (chunks hold the same declarations). Only those states are copied
    /// out of `high`, which is then compiled into the chunks, consumed.
    pub fn run_part(high: &Map) -> Map {
        high.iter()
            .filter(|(_, body)| {
                body.as_map().is_some_and(|decls| {
                    decls.values().any(|decl| match decl {
                        Value::List(args) => args
                            .iter()
                            .filter_map(Value::as_map)
                            .any(|a| a.get("onfail_stop") == Some(&Value::Bool(false))),
                        _ => false,
                    })
                })
            })
            .map(|(id, body)| (id.clone(), body.clone()))
            .collect()
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", content = "body", rename_all = "snake_case")]
pub enum HieraResult {
    Found {
        value: Value,
    },
    /// Found nowhere: the not-found text naming the files searched.
    NotFound {
        message: String,
    },
    /// A lookup problem (bad hiera.yaml, unparsable data, failed merge).
    Error {
        message: String,
    },
}

/// What a state compile gave.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", content = "body", rename_all = "snake_case")]
pub enum CompiledStates {
    /// Ready to run: the low chunks in Salt's order, and of the high data
    /// they came from what the run reads (Salt's `check_result` reads
    /// `onfail_stop` in it): see [`CompiledStates::run_part`].
    Chunks { chunks: Vec<Map>, high: Map },
    /// Render or compile errors; the function returns them as a list with
    /// `retcode` (Salt's `EX_STATE_COMPILER_ERROR`, 1).
    Errors { errors: Vec<String>, retcode: i64 },
    /// A finished answer without a run (e.g. Salt's "No States" return,
    /// retcode 2).
    Answer { ret: Value, retcode: i64 },
    /// [`CompileStage::Rendered`]: the render stage's high data and errors.
    Rendered { high: Map, errors: Vec<String> },
    /// [`CompileStage::Top`]: Salt's `show_top` matches and errors.
    Top { top: Map, errors: Vec<String> },
    /// [`CompileStage::Usage`]: Salt's `compile_state_usage` and errors.
    Usage { usage: Map, errors: Vec<String> },
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_runs_answer_carries_only_the_onfail_stop_false_states() {
        let high: Map = serde_json::from_value(serde_json::json!({
            "plain": {"test": ["nop", {"order": 1}], "__sls__": "a"},
            "handler": {"test": ["nop", {"onfail_stop": false}, {"onfail": [{"test": "plain"}]}]},
            "stops": {"cmd": ["run", {"onfail_stop": true}]}
        }))
        .expect("high data");
        let high = CompiledStates::run_part(&high);
        assert_eq!(high.keys().collect::<Vec<_>>(), vec!["handler"]);
    }
}
