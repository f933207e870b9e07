//! What a minion process holds: its `opts`, its grains and its in-memory
//! pillar (compiled once at start-up, as Salt does, and then only replaced
//! by a pillar refresh). Execution functions read these.
//!
//! Whatever reads the trees (`pillar_roots`, `file_roots`, hierarchies) goes
//! through the minion's [`CompileSource`]: this process, from the minion's
//! own configuration (`brine-call --local`), or the master (`brine-minion`,
//! through [`RemoteMaster`]). Functions call the methods below, never the
//! compile pipeline directly, so both modes give the same answers.
//!
//! The minion also carries the execution functions its templates call
//! (`salt[...]`, Salt's `__salt__`): the runtime's registry, handed in by
//! whoever starts the minion.

use crate::grains;
use brine_compile::envs::Envs;
use brine_compile::git_remotes;
use brine_compile::minion_data::{FunctionError, Functions};
use brine_compile::opts::{self, OptsError};
use brine_compile::pillar::{self, PillarRequest};
use brine_compile::request::{
    CompileStage, CompileStates, CompiledStates, HieraLookup, HieraResult, MineOp,
};
use brine_compile::state::deferred_gpg;
use brine_compile::state::render::{self, Rendered};
use brine_compile::state::{top, StateRequest};
use brine_compile::MinionData;
use brine_core::args::CallArgs;
use brine_core::signature::Signature;
use brine_core::{Map, Value};
use brine_states::fileclient::{FileClient, LocalFileClient};
use std::path::Path;
use std::sync::Arc;

/// A minion's data is shared between the jobs it runs (each job works on
/// its own [`Minion`], a cheap copy): `opts`, grains and pillar are behind
/// `Arc`s, copied only by the job that changes them (`Arc::make_mut`).
#[derive(Debug, Clone)]
pub struct Minion {
    pub id: String,
    pub opts: Arc<Map>,
    pub grains: Arc<Map>,
    /// The in-memory pillar (`__pillar__`).
    pub pillar: Arc<Map>,
    /// Who compiles pillars and states and serves `salt://` files.
    pub source: CompileSource,
    /// What `salt[...]` calls in templates rendered for this minion.
    pub functions: Functions,
    /// The jobs the daemon runs besides this call (none under
    /// `brine-call`).
    pub jobs: brine_host::jobs::Jobs,
    /// The registry, for a state run to call execution functions as this
    /// minion (`module.run`, `grains.present`). The registry sets it when
    /// it runs a function of the running minion: this module cannot name
    /// the registry, which names it.
    pub registry: Option<RegistryCalls>,
    /// The schedule the daemon runs (`schedule.*` change it): present
    /// exactly when the minion daemon runs this call, so it also says the
    /// minion's own event bus is here (`event.fire`). None under
    /// `brine-call`, which hands those functions to a running daemon.
    pub schedule: Option<crate::schedule::Handle>,
    /// The master this minion runs inside (the orchestrate runner's
    /// master minion): what `saltutil.cmd`, `saltutil.runner` and
    /// `saltutil.wheel` ask of it. None on every other minion.
    pub master: MasterHandle,
    /// Reads a key file's fingerprint for `key.finger` and
    /// `key.finger_master` (the key formats are brine-protocol's, which
    /// this crate does not name): the minion crate hands it in. None
    /// where no minion key is kept (the master's own minion, tests).
    pub key_finger: Option<KeyFinger>,
}

/// Which of the minion's public keys [`KeyFinger`] reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WhichKey {
    /// The minion's own (`minion.pub`).
    Minion,
    /// The master key it pinned (`minion_master.pub`).
    PinnedMaster,
}

/// The fingerprint of one of the minion's public keys in `pki_dir` ('' when
/// there is none), or why it cannot be read.
pub type KeyFinger = fn(pki_dir: &Path, which: WhichKey) -> Result<String, String>;

/// What a minion that runs on the master itself asks of it (Salt's
/// `MasterMinion`, the orchestrate runner's): publish a job and gather
/// its returns, run a runner or a wheel function, and fire an event of
/// the run's own job (Salt's `__jid_event__`). Called from the thread
/// running a state, so the calls may block.
pub trait MasterCalls: Send + Sync {
    /// `saltutil.cmd`: the returns as Salt's `cmd_iter` gathers them,
    /// `{minion: {ret, out, retcode, jid}}` (or `{failed: True}` for an
    /// expected minion that did not answer).
    fn cmd(&self, req: CmdRequest) -> Result<Value, FunctionError>;
    /// `saltutil.runner`: a runner's full return (its `ret` event's data:
    /// `jid`, `return`, `success`...).
    fn runner(&self, name: &str, args: CallArgs) -> Result<Value, FunctionError>;
    /// `saltutil.wheel`: a wheel function's full return (`jid`,
    /// `return`, `success`...).
    fn wheel(&self, name: &str, args: CallArgs) -> Result<Value, FunctionError>;
    /// `salt/run/<jid>/<suffix>` for the run this minion serves.
    fn jid_event(&self, suffix: &str, data: Value);
}

/// A job `saltutil.cmd` publishes (Salt's `LocalClient.cmd_iter` /
/// `cmd_batch` arguments).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CmdRequest {
    pub tgt: Value,
    pub fun: String,
    pub arg: Vec<Value>,
    pub kwarg: Map,
    pub tgt_type: String,
    /// Seconds to wait for returns; the master's `timeout` when unset.
    pub timeout: Option<u64>,
    /// A batch size (`10%`, `2`): the job runs a batch at a time.
    pub batch: Option<String>,
    /// Whether an expected minion that does not answer is reported
    /// (`{failed: True}`) rather than left out.
    pub expect_minions: bool,
}

/// The [`MasterCalls`] a minion carries: none but the master minion's.
#[derive(Clone, Default)]
pub struct MasterHandle(pub Option<Arc<dyn MasterCalls>>);

impl std::fmt::Debug for MasterHandle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self.0 {
            Some(_) => "MasterHandle",
            None => "MasterHandle(none)",
        })
    }
}

/// The registry's entry points a state run needs.
#[derive(Debug, Clone, Copy)]
pub struct RegistryCalls {
    /// Run `module.function` on the minion; its return value.
    pub call: fn(&mut Minion, &str, CallArgs) -> Result<Value, FunctionError>,
    /// The signature of `module.function`, if the registry has it.
    pub signature: fn(&str) -> Option<Signature>,
}

/// Who reads the trees for this minion.
#[derive(Clone, Default)]
pub enum CompileSource {
    /// This process, from the minion's own `pillar_roots`/`file_roots`
    /// (masterless).
    #[default]
    Local,
    /// The master (Salt's `RemotePillar` and remote file client).
    Master(Arc<dyn RemoteMaster>),
}

impl std::fmt::Debug for CompileSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CompileSource::Local => f.write_str("Local"),
            CompileSource::Master(_) => f.write_str("Master"),
        }
    }
}

/// A master that compiles for this minion. Called from the thread running a
/// function, so the calls may block.
pub trait RemoteMaster: Send + Sync {
    /// The pillar the master compiles for `req` (its `pillarenv` already
    /// resolved from the call and the minion's options).
    fn compile_pillar(&self, req: &FreshPillar) -> Result<Map, RemoteError>;
    /// A state compile (or one of its stages) by the master.
    fn compile_states(&self, req: CompileStates) -> Result<CompiledStates, RemoteError>;
    /// A state compile whose pillar the master compiles first
    /// (`req.fresh_pillar`): that pillar, and the states.
    fn compile_pillar_and_states(
        &self,
        req: CompileStates,
    ) -> Result<(Map, CompiledStates), RemoteError>;
    /// A Hiera lookup in the master's hierarchies.
    fn hiera_lookup(&self, req: HieraLookup) -> Result<HieraResult, RemoteError>;
    /// `salt://` files from the master.
    fn file_client(&self) -> Arc<dyn FileClient>;
    /// A mine operation on the master's store (`mine.update`, `send`,
    /// `delete`, `flush`, `get`): the data for a `get`, else `Null`.
    fn mine(&self, op: MineOp) -> Result<Value, RemoteError>;
    /// An event fired on the master's bus (`event.fire_master`,
    /// `event.send`): its tag and data.
    fn fire_event(&self, tag: &str, data: Value) -> Result<(), RemoteError>;
}

/// Why a [`RemoteMaster`] gave no answer. Its text is what the caller
/// reports (in the pillar's `_errors`, a state run's errors).
#[derive(Debug, thiserror::Error)]
pub enum RemoteError {
    /// The request or its answer did not get through (no route, timed out,
    /// refused, unreadable); `asked` says what was asked of the master.
    #[error("the master did not {asked}: {cause}")]
    NoAnswer {
        asked: Asked,
        // Shown in the message rather than chained as a source, so the one
        // line that reaches the user says why.
        cause: Box<dyn std::error::Error + Send + Sync>,
    },
    /// There is no master to ask (the link is down, or never came up).
    #[error("{0}")]
    Unreachable(String),
}

/// What was asked of the master, as [`RemoteError`] words it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Asked {
    Pillar,
    States,
    Lookup,
    Mine,
    Event,
}

impl std::fmt::Display for Asked {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Asked::Pillar => "compile the pillar",
            Asked::States => "compile the states",
            Asked::Lookup => "answer the lookup",
            Asked::Mine => "answer the mine request",
            Asked::Event => "take the event",
        })
    }
}

pub use brine_compile::request::FreshPillar;

impl Minion {
    /// Read `CONFDIR/minion`, collect grains, compile the start-up pillar
    /// (its templates calling `functions`). Returns the minion and the
    /// configuration warnings.
    pub fn start_local(
        confdir: &Path,
        functions: Functions,
    ) -> Result<(Minion, Vec<String>), OptsError> {
        let (mut minion, warnings) = Minion::load(confdir, functions)?;
        minion.start_masterless();
        // What the compile's threads freed is not handed back here: the
        // state compile that usually follows reuses it (handing it back
        // cost `show_lowstate` a millisecond of purging and faulting pages
        // in again, for 0.2 MB of peak). A state run hands it back before
        // it runs (`state_run`), where the peak is.
        Ok((minion, warnings))
    }

    /// A masterless start (`brine-call --local`): gitfs updated once, as
    /// Salt's local file client updates its file server when it starts,
    /// then the start-up pillar compiled.
    pub fn start_masterless(&mut self) {
        git_remotes::gitfs::fetch_for_local(Arc::make_mut(&mut self.opts));
        self.pillar = Arc::new(self.compile_pillar(&FreshPillar::default(), false));
    }

    /// Read `CONFDIR/minion` and collect grains; the pillar is left empty
    /// (the daemon fetches it from the master once authenticated).
    /// `functions` are what templates rendered for it call.
    pub fn load(confdir: &Path, functions: Functions) -> Result<(Minion, Vec<String>), OptsError> {
        Minion::load_file(&confdir.join("minion"), functions)
    }

    /// Read the configuration file `conf` as a minion's (and the
    /// `minion.d/*.conf` beside it), as [`Minion::load`] does. Salt's
    /// `Caller` reads the master's own file so for a reactor's `caller.*`.
    pub fn load_file(
        conf: &Path,
        functions: Functions,
    ) -> Result<(Minion, Vec<String>), OptsError> {
        let confdir = conf.parent().unwrap_or(Path::new("."));
        let mut loaded = opts::load_including(
            conf,
            opts::minion_defaults(),
            Some(&confdir.join("minion.d")),
        )?;
        // Salt's apply_sdb: sdb:// options resolved as they are read.
        brine_compile::sdb::apply(&mut loaded.opts);
        Ok((
            Minion::from_opts(loaded.opts, conf, functions),
            loaded.warnings,
        ))
    }

    /// A minion of the options `opts` (read from `conf`): its id (the
    /// fqdn unless set), `conf_file`, `__cli`, and its grains collected.
    pub fn from_opts(opts: Map, conf: &Path, functions: Functions) -> Minion {
        let mut opts = opts;
        // The id defaults to the fqdn; server_id and friends need the id.
        let id = match opts::get_str(&opts, "id") {
            Some(id) => id.to_string(),
            None => match grains::net::fqdn(&grains::net::hostname()) {
                f if f.is_empty() => "localhost".to_string(),
                f => f,
            },
        };
        opts.insert("id".into(), Value::Str(id.clone()));
        // Salt's opts name the configuration file; the grains file
        // (`grains.setval`) lies next to it.
        if !opts.contains_key("conf_file") {
            opts.insert("conf_file".into(), Value::Str(conf.display().to_string()));
        }
        // Salt's name for the program running the functions; the minion
        // daemon says `salt-minion` instead.
        if !opts.contains_key("__cli") {
            opts.insert("__cli".into(), Value::Str("salt-call".into()));
        }
        let grains = collect_grains(&id, &opts);
        Minion {
            id,
            opts: Arc::new(opts),
            grains: Arc::new(grains),
            pillar: Arc::default(),
            source: CompileSource::Local,
            functions,
            jobs: Default::default(),
            registry: None,
            schedule: None,
            master: Default::default(),
            key_finger: None,
        }
    }

    /// Read the grains again (Salt's `saltutil.refresh_grains`): the
    /// grains file and the configuration's `grains:` may have changed.
    pub fn refresh_grains(&mut self) {
        self.grains = Arc::new(collect_grains(&self.id, &self.opts));
    }

    /// Compile a pillar for this minion. `on_demand` compiles (functions
    /// asking for fresh pillar) see the in-memory pillar as Salt's do; the
    /// start-up compile sees none.
    pub fn compile_pillar(&self, req: &FreshPillar, on_demand: bool) -> Map {
        let remote = match &self.source {
            CompileSource::Local => {
                let mut opts = Map::clone(&self.opts);
                // Salt's masterless minion fetches git_pillar at each compile.
                git_remotes::pillar::fetch_for_local(&mut opts);
                return pillar::compile(&PillarRequest {
                    opts,
                    minion_id: self.id.clone(),
                    grains: Value::Map(Map::clone(&self.grains)),
                    pillarenv: req.pillarenv.clone(),
                    saltenv: req.saltenv.clone(),
                    pillar_override: req.pillar_override.clone(),
                    known_pillar: on_demand.then(|| Map::clone(&self.pillar)),
                    functions: self.functions.clone(),
                });
            }
            CompileSource::Master(r) => r,
        };
        // Over the bus the master's compile is the answer: a salt-minion
        // does not merge its in-memory pillar under it (salt-call --local
        // does, with ssh_merge_pillar; see the Local arm above).
        remote
            .compile_pillar(req)
            .unwrap_or_else(|e| failed_pillar(&e))
    }
}

/// The pillar of a compile the master did not answer: the error in
/// `_errors`, as Salt's minion has it when its pillar fails to render.
fn failed_pillar(e: &RemoteError) -> Map {
    tracing::error!("Pillar render error: {e}");
    let mut m = Map::default();
    m.insert(
        "_errors".into(),
        Value::List(vec![Value::Str(e.to_string())]),
    );
    m
}

impl Minion {
    /// The request a state compile for this minion runs with: its
    /// options with the call's environments (and test mode, for a run),
    /// and `pillar` (moved in) as its templates' pillar.
    pub fn state_request(&self, envs: Envs, pillar: Map, test: Option<bool>) -> StateRequest {
        let mut o = Map::clone(&self.opts);
        envs.write_into(&mut o);
        if let Some(t) = test {
            o.insert("test".into(), Value::Bool(t));
        }
        let minion = Arc::new(MinionData {
            id: self.id.clone(),
            grains: Value::Map(Map::clone(&self.grains)),
            pillar: Value::Map(pillar),
            opts: Value::Map(o.clone()),
            functions: self.functions.clone(),
        });
        StateRequest {
            opts: o,
            minion,
            saltenv: envs.saltenv,
            pillarenv: envs.pillarenv,
        }
    }

    /// Whether the master compiles for this minion (a minion daemon).
    pub fn compiles_on_master(&self) -> bool {
        matches!(self.source, CompileSource::Master(_))
    }

    /// The client for `salt://` sources in state runs.
    pub fn file_client(&self) -> Arc<dyn FileClient> {
        match &self.source {
            CompileSource::Local => Arc::new(LocalFileClient::from_opts(&self.opts)),
            CompileSource::Master(r) => r.file_client(),
        }
    }

    /// The request for a state compile by the master: what a local
    /// compile of `req` would read (opts, pillar, environments).
    fn states_request(
        &self,
        req: &StateRequest,
        stage: CompileStage,
        mods: Option<Vec<String>>,
        exclude: Value,
        test: bool,
    ) -> CompileStates {
        CompileStates {
            id: self.id.clone(),
            mods,
            saltenv: req.saltenv.clone(),
            pillarenv: req.pillarenv.clone(),
            exclude,
            test,
            opts: req.opts.clone(),
            pillar: req.minion.pillar.as_map().cloned().unwrap_or_default(),
            stage,
            fresh_pillar: None,
        }
    }

    /// A render stage on the master.
    fn remote_stage(
        &self,
        r: &Arc<dyn RemoteMaster>,
        req: &StateRequest,
        stage: CompileStage,
        mods: Option<Vec<String>>,
    ) -> Result<CompiledStates, RemoteError> {
        let test = opts::test_mode(&req.opts);
        r.compile_states(self.states_request(req, stage, mods, Value::Null, test))
            .map(|c| deferred_gpg::open(c, &self.opts))
    }

    /// Salt's `show_top`: the top matches for this minion, and errors.
    pub fn show_top(&self, req: &StateRequest) -> (Map, Vec<String>) {
        let CompileSource::Master(r) = &self.source else {
            return top::show_top(req);
        };
        match self.remote_stage(r, req, CompileStage::Top, None) {
            Ok(CompiledStates::Top { top, errors }) => (top, errors),
            Ok(_) => (Map::default(), vec![UNEXPECTED.into()]),
            Err(e) => (Map::default(), vec![e.to_string()]),
        }
    }

    /// Salt's `compile_state_usage`: which SLS of each environment the top
    /// gives this minion; and errors.
    pub fn state_usage(&self, req: &StateRequest) -> (Map, Vec<String>) {
        let CompileSource::Master(r) = &self.source else {
            return top::state_usage(req);
        };
        match self.remote_stage(r, req, CompileStage::Usage, None) {
            Ok(CompiledStates::Usage { usage, errors }) => (usage, errors),
            Ok(_) => (Map::default(), vec![UNEXPECTED.into()]),
            Err(e) => (Map::default(), vec![e.to_string()]),
        }
    }

    /// The highstate rendered (top verified unless `verify_top` is false).
    pub fn render_highstate(&self, req: &StateRequest, verify_top: bool) -> Rendered {
        let CompileSource::Master(r) = &self.source else {
            return render::render_highstate_from_top(req, verify_top);
        };
        let stage = if verify_top {
            CompileStage::Rendered
        } else {
            CompileStage::RenderedUnverified
        };
        rendered(self.remote_stage(r, req, stage, None))
    }

    /// The SLS `mods` of `saltenv` rendered with their includes.
    pub fn render_sls(&self, req: &StateRequest, saltenv: &str, mods: &[String]) -> Rendered {
        let CompileSource::Master(r) = &self.source else {
            return render::render_sls(req, saltenv, mods);
        };
        let mut req = req.clone();
        req.saltenv = Some(saltenv.to_string());
        rendered(self.remote_stage(r, &req, CompileStage::Rendered, Some(mods.to_vec())))
    }

    /// A whole state run's compile by the master (highstate when `mods` is
    /// `None`): low chunks, errors, or a finished answer. `None` for a
    /// local minion, which compiles in-process. With `fresh`, the master
    /// compiles the run's pillar first (`req`'s pillar is not sent) and it
    /// comes back too: what fetching it first would have given, in one
    /// round trip, so a master that cannot answer gives the pillar error
    /// that fetch would have.
    pub fn compile_run(
        &self,
        req: &StateRequest,
        mods: Option<Vec<String>>,
        exclude: Value,
        test: bool,
        fresh: Option<FreshPillar>,
    ) -> Option<(Option<Map>, CompiledStates)> {
        let CompileSource::Master(r) = &self.source else {
            return None;
        };
        let mut cs = self.states_request(req, CompileStage::Run, mods, exclude, test);
        let failed = |e: RemoteError| CompiledStates::Errors {
            errors: vec![e.to_string()],
            retcode: 1,
        };
        // The master left the state files' gpg blocks to this minion.
        let open = |c| deferred_gpg::open(c, &self.opts);
        let Some(fresh) = fresh else {
            return Some((None, r.compile_states(cs).map_or_else(failed, open)));
        };
        cs.pillar = Map::default();
        cs.fresh_pillar = Some(fresh);
        Some(match r.compile_pillar_and_states(cs) {
            Ok((pillar, compiled)) => (Some(pillar), open(compiled)),
            Err(e) => {
                let e = match e {
                    RemoteError::NoAnswer { cause, .. } => RemoteError::NoAnswer {
                        asked: Asked::Pillar,
                        cause,
                    },
                    other => other,
                };
                (Some(failed_pillar(&e)), failed(e))
            }
        })
    }

    /// `hiera.lookup` in the master's hierarchies; `None` for a local
    /// minion, which looks up in-process.
    pub fn hiera_lookup(
        &self,
        key: &str,
        merge: &Value,
    ) -> Option<Result<HieraResult, RemoteError>> {
        let CompileSource::Master(r) = &self.source else {
            return None;
        };
        Some(r.hiera_lookup(HieraLookup {
            id: self.id.clone(),
            key: key.to_string(),
            merge: merge.clone(),
            pillarenv: Envs::configured(&self.opts).pillarenv,
            pillar: Map::clone(&self.pillar),
        }))
    }
}

/// The minion's grains as Salt assembles them: the computed ones, then
/// the grains file next to the configuration file, then the
/// configuration's `grains:`.
fn collect_grains(id: &str, opts: &Map) -> Map {
    let cachedir = opts::get_str(opts, "cachedir").map(std::path::PathBuf::from);
    let mut core = grains::core_grains_cached(id, cachedir.as_deref());
    // Salt's `master` grain is the minion's `master` option.
    let master = opts.get("master").cloned().unwrap_or_else(|| "salt".into());
    core.insert("master".into(), master);
    let static_grains = opts
        .get("grains")
        .and_then(Value::as_map)
        .cloned()
        .unwrap_or_default();
    let conf_file = opts::get_str(opts, "conf_file").unwrap_or("/etc/salt/minion");
    let grains_file = Path::new(conf_file)
        .parent()
        .unwrap_or(Path::new("."))
        .join("grains");
    let core = grains::merge_file(
        core,
        grains::file_grains(&grains_file),
        opts::get_bool(opts, "grains_deep_merge", false),
    );
    grains::merge_static(core, &static_grains)
}

const UNEXPECTED: &str = "the master answered the state compile with something unexpected";

/// A render-stage answer from the master as the local render gives it.
fn rendered(r: Result<CompiledStates, RemoteError>) -> Rendered {
    match r {
        Ok(CompiledStates::Rendered { high, errors }) => Rendered { high, errors },
        Ok(CompiledStates::Errors { errors, .. }) => Rendered {
            high: Map::default(),
            errors,
        },
        Ok(_) => Rendered {
            high: Map::default(),
            errors: vec![UNEXPECTED.into()],
        },
        Err(e) => Rendered {
            high: Map::default(),
            errors: vec![e.to_string()],
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use brine_compile::envs::Envs;
    use serde_json::json;
    use std::sync::Mutex;

    /// A master answering every pillar compile with `answer`, recording
    /// the requests.
    struct FakeMaster {
        answer: Result<Map, String>,
        asked: Mutex<Vec<FreshPillar>>,
    }

    impl RemoteMaster for FakeMaster {
        fn compile_pillar(&self, req: &FreshPillar) -> Result<Map, RemoteError> {
            self.asked.lock().unwrap().push(req.clone());
            self.answer.clone().map_err(RemoteError::Unreachable)
        }
        fn compile_states(&self, _: CompileStates) -> Result<CompiledStates, RemoteError> {
            Err(RemoteError::Unreachable("no states here".into()))
        }
        fn compile_pillar_and_states(
            &self,
            req: CompileStates,
        ) -> Result<(Map, CompiledStates), RemoteError> {
            self.asked.lock().unwrap().extend(req.fresh_pillar.clone());
            Err(RemoteError::Unreachable("no states here".into()))
        }
        fn hiera_lookup(&self, _: HieraLookup) -> Result<HieraResult, RemoteError> {
            Err(RemoteError::Unreachable("no hiera here".into()))
        }
        fn file_client(&self) -> Arc<dyn FileClient> {
            Arc::new(LocalFileClient::default())
        }
        fn mine(&self, _: MineOp) -> Result<Value, RemoteError> {
            Err(RemoteError::Unreachable("no mine here".into()))
        }
        fn fire_event(&self, _: &str, _: Value) -> Result<(), RemoteError> {
            Err(RemoteError::Unreachable("no bus here".into()))
        }
    }

    fn map(j: serde_json::Value) -> Map {
        Value::from_json(&j).as_map().cloned().unwrap_or_default()
    }

    fn minion(answer: Result<Map, String>, opts: serde_json::Value) -> (Minion, Arc<FakeMaster>) {
        let fake = Arc::new(FakeMaster {
            answer,
            asked: Mutex::new(Vec::new()),
        });
        let mut o = opts::minion_defaults();
        o.extend(map(opts));
        let m = Minion {
            id: "web1".into(),
            opts: o.into(),
            grains: Map::default().into(),
            pillar: map(json!({"old": 1, "shared": {"a": 1}, "_errors": ["stale"]})).into(),
            source: CompileSource::Master(fake.clone()),
            functions: Functions::default(),
            jobs: Default::default(),
            registry: None,
            schedule: None,
            master: Default::default(),
            key_finger: None,
        };
        (m, fake)
    }

    #[test]
    fn over_the_bus_the_masters_pillar_is_the_answer() {
        let fresh = map(json!({"shared": {"b": 2}, "new": 3}));
        let (m, fake) = minion(Ok(fresh.clone()), json!({"pillarenv": "dev"}));
        // On demand (pillar.items) as at start-up: the master's compile
        // alone, nothing of the in-memory pillar merged under it (what a
        // real salt-master/salt-minion pair answered; salt-call --local
        // merges, with ssh_merge_pillar).
        let configured = FreshPillar::new(Envs::configured(&m.opts), None);
        assert_eq!(m.compile_pillar(&configured, true), fresh);
        assert_eq!(m.compile_pillar(&configured, false), fresh);
        // The configured pillarenv goes with the request.
        assert_eq!(
            fake.asked.lock().unwrap()[0].pillarenv.as_deref(),
            Some("dev")
        );
    }

    #[test]
    fn a_run_asks_the_master_for_the_pillar_a_fetch_would_have() {
        let (m, fake) = minion(
            Ok(Map::default()),
            json!({"pillarenv_from_saltenv": true, "saltenv": "qa"}),
        );
        let mut kwargs = Map::default();
        kwargs.insert("saltenv".into(), Value::from("dev"));
        let fresh = FreshPillar::new(Envs::of_state_run(&m.opts, &kwargs), None);
        m.compile_pillar(&fresh, true);
        let req = StateRequest {
            opts: Map::clone(&m.opts),
            minion: Arc::default(),
            saltenv: Some("dev".into()),
            pillarenv: None,
        };
        let (pillar, compiled) = m
            .compile_run(&req, None, Value::Null, false, Some(fresh))
            .unwrap();
        let asked = fake.asked.lock().unwrap().clone();
        assert_eq!(asked.len(), 2);
        assert_eq!(asked[0], asked[1]);
        assert_eq!(asked[1].pillarenv.as_deref(), Some("dev"));
        // Not answered: the pillar error a failed fetch gives.
        assert_eq!(
            Value::Map(pillar.unwrap()).to_json(),
            json!({"_errors": ["no states here"]})
        );
        assert!(matches!(compiled, CompiledStates::Errors { .. }));
    }

    #[test]
    fn remote_errors_say_what_was_asked_and_why() {
        let cause = |t: &str| -> Box<dyn std::error::Error + Send + Sync> { t.into() };
        let cases = [
            (
                Asked::Pillar,
                "the master did not compile the pillar: timed out",
            ),
            (
                Asked::States,
                "the master did not compile the states: timed out",
            ),
            (
                Asked::Lookup,
                "the master did not answer the lookup: timed out",
            ),
        ];
        for (asked, want) in cases {
            let e = RemoteError::NoAnswer {
                asked,
                cause: cause("timed out"),
            };
            assert_eq!(e.to_string(), want);
        }
        assert_eq!(RemoteError::Unreachable("gone".into()).to_string(), "gone");
    }

    #[test]
    fn fresh_errors_replace_in_memory_ones_and_failures_become_errors() {
        let (m, _) = minion(
            Ok(map(json!({"_errors": ["new problem"], "x": 1}))),
            json!({"pillar_merge_lists": true}),
        );
        let got = m.compile_pillar(&FreshPillar::default(), true);
        assert_eq!(
            got.get("_errors"),
            Some(&Value::from_json(&json!(["new problem"])))
        );
        // The master unreachable: the pillar says so in _errors.
        let (m, _) = minion(Err("master gone".into()), json!({}));
        let got = m.compile_pillar(&FreshPillar::default(), false);
        assert_eq!(
            Value::Map(got).to_json(),
            json!({"_errors": ["master gone"]})
        );
    }
}
