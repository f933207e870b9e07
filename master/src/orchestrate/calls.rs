//! What the master minion's `saltutil` functions ask of the master
//! ([`MasterCalls`]): a job published through the master's local client
//! and its returns gathered as Salt's `LocalClient.cmd_iter` yields them
//! (`cmd_batch` with a batch size), a runner run as a job of its own, a
//! wheel function run here, and the events of the orchestration's job.
//!
//! The state engine calls these from its own thread; each call runs its
//! client on a small runtime of its own, so parallel steps
//! (`salt.parallel_runners`) each have theirs.

use crate::batch::{self, BatchJob, BatchSize, Step};
use crate::daemon::client::{Client, ClientError};
use crate::daemon::events::announce::Announce;
use crate::daemon::events::client as events;
use crate::daemon::events::tags::MasterSide as Side;
use crate::daemon::events::wire::Event;
use crate::daemon::MasterConfig;
use brine_compile::minion_data::FunctionError;
use brine_core::args::CallArgs;
use brine_core::{Map, Value};
use brine_protocol::messages::MinionReturn;
use brine_runtime::context::{CmdRequest, MasterCalls};

/// How an orchestration runs a runner: by name, for a user, with a call;
/// its full return (the `ret` event's data: `jid`, `return`, `success`
/// ...), or Salt's exception when there is no such runner. The runner
/// table lies above this module — the orchestrate runner is one of its
/// runners — so the table installs it ([`install_runners`]) before it
/// runs one.
pub type RunRunner = fn(&MasterConfig, &str, &str, CallArgs) -> Result<Value, FunctionError>;

static RUNNERS: std::sync::OnceLock<RunRunner> = std::sync::OnceLock::new();

/// The runner table's way of running a runner, for the orchestrations of
/// this process.
pub fn install_runners(run: RunRunner) {
    let _ = RUNNERS.set(run);
}

/// The master, as its own minion reaches it during one orchestration.
pub struct MasterLink {
    config: MasterConfig,
    /// The orchestration's job (`salt/run/<jid>/args`).
    jid: String,
    /// Who runs it: the runners and wheel functions it starts are theirs.
    user: String,
}

impl MasterLink {
    pub fn new(config: MasterConfig, jid: String, user: String) -> MasterLink {
        MasterLink { config, jid, user }
    }

    fn block_on<T>(
        &self,
        f: impl std::future::Future<Output = Result<T, FunctionError>>,
    ) -> Result<T, FunctionError> {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| FunctionError::Failed(format!("cannot start the master's client: {e}")))?
            .block_on(f)
    }
}

fn client_error(e: ClientError) -> FunctionError {
    FunctionError::Failed(e.to_string())
}

/// One minion's return as Salt's `cmd_iter` gives it: `ret`, `out`,
/// `retcode`, `jid`.
fn entry(jid: &str, r: MinionReturn) -> Value {
    let mut m = Map::default();
    m.insert("ret".into(), r.ret.unpack());
    if let Some(out) = r.out {
        m.insert("out".into(), Value::Str(out));
    }
    m.insert("retcode".into(), Value::Int(r.retcode));
    m.insert("jid".into(), Value::Str(jid.to_string()));
    Value::Map(m)
}

fn failed_entry() -> Value {
    let mut m = Map::default();
    m.insert("failed".into(), Value::Bool(true));
    Value::Map(m)
}

impl MasterLink {
    async fn gather(&self, req: CmdRequest) -> Result<Value, FunctionError> {
        let mut client = Client::for_config(&self.config).map_err(client_error)?;
        let timeout = req.timeout.unwrap_or(self.config.timeout);
        let gather = self.config.gather_job_timeout();
        let mut out = Map::default();
        if let Some(size) = &req.batch {
            let size_of = BatchSize::parse(size)
                .ok_or_else(|| FunctionError::Failed(batch::invalid_size_message(size)))?;
            let pinged = client
                .ping(req.tgt.clone(), &req.tgt_type, timeout, gather)
                .await
                .map_err(client_error)?;
            let job = BatchJob {
                fun: req.fun.clone(),
                arg: req.arg.clone(),
                kwarg: req.kwarg.clone(),
                size: size_of.of(pinged.up.len()),
                batch_wait: std::time::Duration::ZERO,
                timeout,
                gather,
            };
            let mut on = |step: Step<'_>| {
                if let Step::Returned { id, ret, .. } = step {
                    // Salt's batch returns: each minion's return under
                    // `ret` and the outputter it names (a state run's
                    // return names none: highstate) — no jid, no retcode.
                    let value = ret.ret.unpack();
                    let out_name = value
                        .get("out")
                        .and_then(Value::as_str)
                        .unwrap_or("highstate")
                        .to_string();
                    let mut m = Map::default();
                    m.insert("out".into(), Value::Str(out_name));
                    m.insert("ret".into(), value);
                    out.insert(id.to_string(), Value::Map(m));
                }
                false
            };
            batch::drive(&mut client, pinged.up, &job, &mut on)
                .await
                .map_err(client_error)?;
            return Ok(Value::Map(out));
        }
        let g = client
            .cmd(
                req.tgt.clone(),
                &req.tgt_type,
                &req.fun,
                req.arg.clone(),
                req.kwarg.clone(),
                timeout,
                gather,
            )
            .await
            .map_err(client_error)?;
        if g.minions.is_empty() {
            // What Salt's LocalClient prints (on stdout) for a target that
            // matched no minion.
            println!("No minions matched the target. No command was sent, no jid was assigned.");
        }
        let jid = g.jid.clone();
        for (id, r) in g.returns {
            out.insert(id, entry(&jid, r));
        }
        if req.expect_minions {
            for id in &g.minions {
                if !out.contains_key(id) {
                    out.insert(id.clone(), failed_entry());
                }
            }
        }
        Ok(Value::Map(out))
    }

    /// Salt's `fire_args`: `salt/run/<orchestration jid>/args`.
    fn fire_args(&self, data: Map) {
        self.jid_event("args", Value::Map(data));
    }
}

impl MasterCalls for MasterLink {
    fn cmd(&self, req: CmdRequest) -> Result<Value, FunctionError> {
        self.block_on(self.gather(req))
    }

    fn runner(&self, name: &str, args: CallArgs) -> Result<Value, FunctionError> {
        let mut args = args;
        // A nested orchestration is part of this one (Salt's
        // saltutil.runner hands it this orchestration's jid).
        if matches!(name, "state.orchestrate" | "state.orch" | "state.sls") {
            args.kwargs
                .insert("orchestration_jid".into(), Value::Str(self.jid.clone()));
        }
        let mut fired = Map::default();
        fired.insert("type".into(), Value::from("runner"));
        fired.insert("name".into(), Value::from(name));
        fired.insert("args".into(), Value::List(args.args.clone()));
        fired.insert("kwargs".into(), Value::Map(args.kwargs.clone()));
        self.fire_args(fired);
        let run = RUNNERS.get().ok_or_else(|| {
            FunctionError::Failed("no runner table is installed in this process".into())
        })?;
        run(&self.config, name, &self.user, args)
    }

    fn wheel(&self, name: &str, args: CallArgs) -> Result<Value, FunctionError> {
        // Salt's wheel client looks the function up in its functions.
        if !crate::wheel::FUNCTIONS.iter().any(|(n, _)| *n == name) {
            return Err(FunctionError::Raised(format!("KeyError: '{name}'")));
        }
        let mut fired = Map::default();
        fired.insert("type".into(), Value::from("wheel"));
        fired.insert("name".into(), Value::from(name));
        fired.insert("args".into(), Value::Map(args.kwargs.clone()));
        self.fire_args(fired);
        let announce = Announce::new(&self.config.sock_dir, Side::Wheel, name, &self.user, &args);
        announce.fire_new();
        let (data, success) = match crate::wheel::run(&self.config, name, args) {
            Ok(v) => (v, true),
            Err(e) => (Value::Str(e.to_string()), false),
        };
        let ret = announce.ret_data(data, success);
        announce.fire(ret.clone());
        Ok(Value::Map(ret.1))
    }

    fn jid_event(&self, suffix: &str, data: Value) {
        let ev = Event {
            tag: format!("salt/run/{}/{suffix}", self.jid),
            data,
        };
        if let Err(e) = events::fire(&self.config.sock_dir, &[ev]) {
            tracing::debug!("no {suffix} event: {e}");
        }
    }
}
