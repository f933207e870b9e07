//! Jobs from the master's publish port: each publication is verified with
//! the trusted master key, decrypted with the session key the master gave
//! at authentication (a publication under a key the minion does not hold
//! makes it authenticate again, then try once more), checked against
//! replays, matched against every
//! identity's id/grains/pillar with Salt's matchers, its sealed `pillar=`
//! part opened, and the function run. Anything malformed, forged, stale or
//! replayed is logged and dropped; the subscription carries on.

use super::job_process::{Handoff, JobProcess, JobProcessError, Scheduled};
use super::running::LateProcFile;
use super::{pillar, returns, Identity, Shared, Standing};
use brine_compile::matcher;
use brine_compile::MinionData;
use brine_core::args::CallArgs;
use brine_core::{Map, Value};
use brine_host::jobs::{Jobs, ProcFile};
use brine_protocol::crypto::{finger, KeyPair, PublicKeys, ReplayError, ReplayGuard, SessionKey};
use brine_protocol::messages::{
    aad, open_data, read_frame, JobReturn, PackedValue, Publication, SealedPublication, WireError,
};
use brine_protocol::transport::{self, TransportError};
use brine_runtime::context::Minion;
use brine_runtime::modules::{self, CallError, Daemon, Output, Params, Return};
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// How long a publication for a not-yet-accepted identity waits for the
/// early re-authentication it triggers.
const WAIT_FOR_ACCEPTANCE: Duration = Duration::from_secs(20);

/// How long a publication under an unknown session key waits for the new
/// key (the re-authentication it triggers), and how many may wait at once.
const WAIT_FOR_SESSION: Duration = Duration::from_secs(10);
const MAX_WAITING_FOR_SESSION: usize = 16;
static WAITING_FOR_SESSION: AtomicUsize = AtomicUsize::new(0);
/// At most one such re-authentication per second: a pending or rejected
/// minion receives every publication and would otherwise authenticate
/// once for each.
const SESSION_REAUTH_EVERY_MS: u64 = 1_000;
static LAST_SESSION_REAUTH_MS: AtomicU64 = AtomicU64::new(0);

/// Why a publication was dropped before any identity looked at it.
#[derive(Debug, thiserror::Error)]
pub enum Dropped {
    #[error("no master key is trusted yet")]
    NoMasterKey,
    #[error("{0}")]
    Frame(#[from] WireError),
    #[error("publication {jid}: {reason}")]
    Replay { jid: String, reason: ReplayError },
    #[error("publication under session key {session}, which this minion does not hold")]
    UnknownSession { session: String },
    #[error("publication {jid} was stamped at {created_ms} ms, before this minion started ({since_ms} ms)")]
    BeforeStart {
        jid: String,
        created_ms: u64,
        since_ms: u64,
    },
}

/// Verify a publication frame: signed by `master`, fresh, not seen before.
pub fn verify(
    frame: &[u8],
    master: &PublicKeys,
    session: Option<&SessionKey>,
    guard: &mut ReplayGuard,
    since_ms: u64,
    now_ms: u64,
) -> Result<Publication, Dropped> {
    let sealed = read_frame::<SealedPublication>(frame, Some(&master.ed25519))?.msg;
    let Some(key) = session.filter(|k| k.id == sealed.body.session) else {
        return Err(Dropped::UnknownSession {
            session: finger(sealed.body.session.as_slice()),
        });
    };
    let publ = sealed.open(key)?;
    if publ.created_ms < since_ms {
        return Err(Dropped::BeforeStart {
            jid: publ.jid,
            created_ms: publ.created_ms,
            since_ms,
        });
    }
    guard
        .check(publ.created_ms, &publ.nonce, now_ms)
        .map_err(|reason| Dropped::Replay {
            jid: publ.jid.clone(),
            reason,
        })?;
    Ok(publ)
}

/// What one identity does with a verified publication.
#[derive(Debug, PartialEq)]
pub enum Decision {
    /// Not for this minion.
    Skip,
    /// Run it; `pillar` is the opened `pillar=` part, if any.
    Run { pillar: Option<Value> },
}

/// Does the publication's target select `m`? Salt's matchers over the
/// minion's own id, grains and in-memory pillar.
pub fn target_matches(publ: &Publication, m: &Minion) -> bool {
    let expr = match &publ.tgt {
        // A list target (`-L` given as a list): exact ids.
        Value::List(ids) => return ids.iter().any(|v| v.as_str() == Some(&m.id)),
        Value::Str(s) => s,
        _ => return false,
    };
    // Only matchers that read grains/pillar/opts get copies of them.
    let needs_data = !matches!(publ.tgt_type.as_str(), "glob" | "pcre" | "list");
    let data = MinionData {
        id: m.id.clone(),
        grains: if needs_data {
            Value::Map(Map::clone(&m.grains))
        } else {
            Value::Null
        },
        pillar: if needs_data {
            Value::Map(Map::clone(&m.pillar))
        } else {
            Value::Null
        },
        opts: if needs_data {
            Value::Map(Map::clone(&m.opts))
        } else {
            Value::Null
        },
        functions: m.functions.clone(),
    };
    match matcher::matches(&publ.tgt_type, expr, &data) {
        Ok(hit) => hit,
        Err(e) => {
            tracing::warn!("publication {}: {e}", publ.jid);
            false
        }
    }
}

/// Whether `m` (holding `key`) runs `publ`, and its `pillar=` part.
pub fn decide(publ: &Publication, key: &KeyPair, m: &Minion) -> Decision {
    if !target_matches(publ, m) {
        return Decision::Skip;
    }
    if publ.secrets.is_empty() {
        return Decision::Run { pillar: None };
    }
    // The master seals `pillar=` for each minion it targets; matching here
    // without a part means the master did not count us in (its view of our
    // grains/pillar differs): running without the data would be wrong.
    let Some(sealed) = publ.secrets.get(&m.id) else {
        tracing::info!(
            "publication {}: matches {}, but the master sent it no pillar= part; not run",
            publ.jid,
            m.id
        );
        return Decision::Skip;
    };
    match open_data::<Value>(key, sealed, &aad::publication_secret(&publ.jid, &m.id)) {
        Ok(v) => Decision::Run { pillar: Some(v) },
        Err(e) => {
            tracing::warn!(
                "publication {}: cannot open the pillar= part for {} ({e}); dropped",
                publ.jid,
                m.id
            );
            Decision::Skip
        }
    }
}

/// Receive publications for as long as the process runs. The SUB socket
/// reconnects by itself; it is also renewed when the ret-port link finds a
/// restarted master (so the new master's publications are not missed while
/// zmq.rs backs off).
pub async fn subscribe(shared: Arc<Shared>, addr: SocketAddr) {
    let mut gen = shared.link.generation();
    let mut seen = 0u64;
    let mut delay = Duration::from_millis(500);
    loop {
        let mut sub = match transport::connect_sub(addr, &shared.limits).await {
            Ok(s) => s,
            Err(e) => {
                tracing::debug!("cannot subscribe to {addr}: {e}; retrying in {delay:?}");
                tokio::time::sleep(delay).await;
                delay = (delay * 2).min(Duration::from_secs(5));
                continue;
            }
        };
        tracing::debug!("subscribed to the master's publications at {addr}");
        delay = Duration::from_millis(500);
        loop {
            tokio::select! {
                r = transport::recv_frame(&mut sub.socket, &shared.limits) => match r {
                    Ok(frame) => dispatch(&shared, &frame),
                    // A lost peer: zmq.rs reconnects; do not spin meanwhile.
                    Err(TransportError::Socket { .. }) => {
                        tokio::time::sleep(Duration::from_millis(50)).await
                    }
                    Err(e) => tracing::warn!("dropped a publication: {e}"),
                },
                changed = gen.changed() => {
                    if changed.is_err() {
                        return;
                    }
                    let now = *gen.borrow_and_update();
                    if seen == 0 {
                        seen = now;
                    } else if now != seen {
                        seen = now;
                        tracing::debug!("master reconnected; renewing the subscription");
                        break;
                    }
                }
            }
        }
    }
}

/// Check one publication frame and start the job on every identity it
/// targets.
pub fn dispatch(shared: &Arc<Shared>, frame: &[u8]) {
    dispatch_once(shared, frame, false);
}

fn dispatch_once(shared: &Arc<Shared>, frame: &[u8], retried: bool) {
    if shared.stopping.load(Ordering::Acquire) {
        tracing::info!("stopping: a publication is not taken");
        return;
    }
    let publ = {
        let Some(master) = shared.master_key() else {
            tracing::debug!("{}", Dropped::NoMasterKey);
            return;
        };
        let mut guard = match shared.replay.lock() {
            Ok(g) => g,
            Err(p) => p.into_inner(),
        };
        let since = shared.publications_since.load(Ordering::Acquire);
        let session = shared.session();
        match verify(
            frame,
            &master,
            session.as_ref(),
            &mut guard,
            since,
            brine_protocol::crypto::now_ms(),
        ) {
            Ok(p) => Arc::new(p),
            Err(e @ Dropped::UnknownSession { .. }) if !retried => {
                tracing::info!("{e}: authenticating again");
                wait_for_session(shared, session.map(|s| s.id), frame.to_vec());
                return;
            }
            Err(e) => {
                tracing::warn!("dropped a publication: {e}");
                return;
            }
        }
    };
    tracing::debug!("publication {} {} {:?}", publ.jid, publ.fun, publ.tgt);
    for ident in &shared.identities {
        let m = ident.snapshot();
        if let Decision::Run { pillar } = decide(&publ, &ident.client.key, &m) {
            tokio::spawn(run_job(shared.clone(), ident.clone(), publ.clone(), pillar));
        }
    }
}

/// Authenticate every identity again (the master rotated its session key,
/// or restarted) and try `frame` once more when a new key has come, within
/// [`WAIT_FOR_SESSION`]. At most [`MAX_WAITING_FOR_SESSION`] frames wait.
fn wait_for_session(shared: &Arc<Shared>, old: Option<serde_bytes::ByteArray<8>>, frame: Vec<u8>) {
    if WAITING_FOR_SESSION.fetch_add(1, Ordering::AcqRel) >= MAX_WAITING_FOR_SESSION {
        WAITING_FOR_SESSION.fetch_sub(1, Ordering::AcqRel);
        tracing::warn!("dropped a publication: too many wait for a new session key");
        return;
    }
    let arrived = brine_protocol::crypto::local_now_ms();
    let shared = shared.clone();
    tokio::spawn(async move {
        let deadline = tokio::time::Instant::now() + WAIT_FOR_SESSION;
        while tokio::time::Instant::now() < deadline {
            if shared.session().map(|s| s.id) != old {
                dispatch_once(&shared, &frame, true);
                break;
            }
            request_session_reauth(&shared, arrived);
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        WAITING_FOR_SESSION.fetch_sub(1, Ordering::AcqRel);
    });
}

/// Authenticate every identity again unless that was asked since
/// `arrived` (when the frame needing it came) or less than
/// [`SESSION_REAUTH_EVERY_MS`] ago.
fn request_session_reauth(shared: &Shared, arrived: u64) {
    let now = brine_protocol::crypto::local_now_ms();
    let last = LAST_SESSION_REAUTH_MS.load(Ordering::Acquire);
    if last >= arrived || now.saturating_sub(last) < SESSION_REAUTH_EVERY_MS {
        return;
    }
    if LAST_SESSION_REAUTH_MS
        .compare_exchange(last, now, Ordering::AcqRel, Ordering::Acquire)
        .is_ok()
    {
        for ident in &shared.identities {
            ident.reauth();
        }
    }
}

/// Wait until `ident` may run jobs. A publication aimed at a minion whose
/// key is still pending makes it authenticate at once: the key may just
/// have been accepted (this is what makes `brine-key -a` followed by a
/// command answer without waiting `acceptance_wait_time`).
async fn ready(ident: &Identity) -> bool {
    if ident.standing() == Standing::Ready {
        return true;
    }
    ident.reauth();
    let mut rx = ident.standing.subscribe();
    tokio::time::timeout(WAIT_FOR_ACCEPTANCE, rx.wait_for(|s| *s == Standing::Ready))
        .await
        .is_ok_and(|r| r.is_ok())
}

async fn run_job(
    shared: Arc<Shared>,
    ident: Arc<Identity>,
    publ: Arc<Publication>,
    pillar_part: Option<Value>,
) {
    if !ready(&ident).await {
        tracing::info!(
            "{}: job {} dropped: the minion is not accepted by the master",
            ident.id(),
            publ.jid
        );
        return;
    }
    let Ok(_permit) = shared.jobs.acquire().await else {
        return;
    };
    tracing::info!("{}: running {} (jid {})", ident.id(), publ.fun, publ.jid);
    if let Some(process) = process_for(&shared, &ident, &publ) {
        return run_apart(&shared, &ident, &publ, pillar_part, None, process).await;
    }
    let Some(running) = Running::start(&ident, &publ) else {
        tracing::warn!(
            "{}: job {} dropped: too many jobs run",
            ident.id(),
            publ.jid
        );
        return;
    };
    // A signal (`saltutil.kill_job`) cancels the job: like a killed Salt
    // job it returns nothing. A function on a blocking thread cannot be
    // stopped mid-way; it runs on and what it returns is dropped.
    // The cancel is looked at first: a job whose commands the signal
    // killed ends at the same moment, and must not return.
    let ret = tokio::select! {
        biased;
        _ = running.cancel.notified() => {
            tracing::info!("{}: job {} ({}) was stopped", ident.id(), publ.jid, publ.fun);
            return;
        }
        r = execute(&shared, &ident, &publ, pillar_part, {
            let (publ, id) = (publ.clone(), ident.id().to_string());
            move |outcome| job_return(&publ, &id, outcome)
        }) => r,
    };
    // Still "running" until the return is acknowledged or on disk: a stop
    // waits for that.
    returns::deliver(&ident, ret, running).await;
}

/// A process of its own for `publ`, when the minion runs such jobs apart
/// (`multiprocessing`) and this one changes the host. One that cannot be
/// started leaves the job to the daemon.
fn process_for(shared: &Shared, ident: &Identity, publ: &Publication) -> Option<JobProcess> {
    if !shared.multiprocessing || !modules::find(&publ.fun).is_some_and(|f| f.runs_apart()) {
        return None;
    }
    JobProcess::spawn()
        .map_err(|e| {
            tracing::warn!(
                "{}: job {}: {e}; it runs in the daemon",
                ident.id(),
                publ.jid
            )
        })
        .ok()
}

/// Run a job in `process` (its own): the process sends its return itself
/// and outlives this daemon if need be; here it is listed as running,
/// signals to it are passed on, and what it reports is acted on.
async fn run_apart(
    shared: &Shared,
    ident: &Identity,
    publ: &Publication,
    pillar_part: Option<Value>,
    scheduled: Option<Scheduled>,
    process: JobProcess,
) {
    let (forward, mut signals) = tokio::sync::mpsc::channel(8);
    let schedule = scheduled.as_ref().map(|s| s.name.as_str());
    let Some(running) = Running::start_apart(ident, publ, schedule, process.pid(), forward) else {
        tracing::warn!(
            "{}: job {} dropped: too many jobs run",
            ident.id(),
            publ.jid
        );
        process.abandon();
        return;
    };
    // What the master hears when the process cannot say.
    let failed = |e: JobProcessError| {
        the_return(
            publ,
            ident.id(),
            Outcome::Crashed(e.to_string()),
            scheduled.as_ref(),
        )
    };
    let handoff = match Handoff::new(shared, ident, publ, pillar_part, scheduled.clone()) {
        Ok(h) => h,
        Err(e) => {
            process.abandon();
            if let Some(ret) = failed(e) {
                returns::deliver(ident, ret, running).await;
            }
            return;
        }
    };
    match process.run(&handoff, &mut signals).await {
        Ok(report) => {
            if let Some(g) = report.grains {
                ident.set_grains(Arc::new(g));
            }
            if report.handed == Some(returns::Handed::Queued) {
                ident.returns.wake();
            }
        }
        // Killed from outside, or crashed: the master hears of it.
        Err(e) => {
            tracing::error!("{}: job {} ({}): {e}", ident.id(), publ.jid, publ.fun);
            if let Some(ret) = failed(e) {
                returns::deliver(ident, ret, running).await;
            }
        }
    }
}

/// A job the minion runs of its own accord (a scheduled run, a
/// `brine-call`), in a publication's shape so it runs and returns as a
/// published one: aimed at the minion itself, never sent.
pub fn own_job(jid: String, id: &str, fun: &str, args: CallArgs) -> Publication {
    Publication {
        v: brine_protocol::messages::PROTOCOL_VERSION,
        jid,
        created_ms: brine_protocol::crypto::now_ms(),
        nonce: serde_bytes::ByteArray::new([0; 16]),
        tgt: Value::Str(id.to_string()),
        tgt_type: "glob".into(),
        fun: fun.to_string(),
        arg: args.args,
        kwarg: args.kwargs,
        secrets: Default::default(),
        user: brine_protocol::messages::root_user(),
    }
}

/// Run one job the schedule says is due (Salt's scheduled job): under a
/// jid of the minion's own, seen by `saltutil.running` with its
/// `schedule` name (so `maxrunning` counts it), its return sent to the
/// master with that name unless the job says `return_job: False`.
pub async fn run_scheduled(
    shared: Arc<Shared>,
    ident: Arc<Identity>,
    due: brine_runtime::schedule::Due,
) {
    let Ok(_permit) = shared.jobs.acquire().await else {
        return;
    };
    let publ = own_job(
        brine_host::time::jid(brine_host::time::now_micros(), false),
        ident.id(),
        &due.function,
        CallArgs {
            args: due.args.clone(),
            kwargs: due.kwargs.clone(),
        },
    );
    tracing::info!(
        "{}: Running scheduled job: {} with jid {}",
        ident.id(),
        due.name,
        publ.jid
    );
    if let Some(process) = process_for(&shared, &ident, &publ) {
        let run = Scheduled {
            name: due.name.clone(),
            return_job: due.return_job,
        };
        return run_apart(&shared, &ident, &publ, None, Some(run), process).await;
    }
    let Some(running) = Running::start_scheduled(&ident, &publ, &due.name) else {
        tracing::warn!(
            "{}: scheduled job {} dropped: too many jobs run",
            ident.id(),
            due.name
        );
        return;
    };
    let finish = {
        let (publ, id, name) = (publ.clone(), ident.id().to_string(), due.name.clone());
        let return_job = due.return_job;
        move |outcome| return_job.then(|| scheduled_return(&publ, &id, outcome, &name))
    };
    let ret = tokio::select! {
        biased;
        _ = running.cancel.notified() => return,
        r = execute(&shared, &ident, &publ, None, finish) => r,
    };
    let Some(ret) = ret else {
        return;
    };
    returns::deliver(&ident, ret, running).await;
}

/// The return a job sends: a published job's, or a scheduled run's
/// (none for one with `return_job: False`).
pub fn the_return(
    publ: &Publication,
    id: &str,
    outcome: Outcome,
    scheduled: Option<&Scheduled>,
) -> Option<JobReturn> {
    match scheduled {
        None => Some(job_return(publ, id, outcome)),
        Some(s) if s.return_job => Some(scheduled_return(publ, id, outcome, &s.name)),
        Some(_) => None,
    }
}

/// The return of a scheduled run (`publ` its [`own_job`]): named by its
/// schedule, with Salt's scheduled `fun_args` (the args, then the kwargs
/// as given).
fn scheduled_return(publ: &Publication, id: &str, outcome: Outcome, name: &str) -> JobReturn {
    let mut ret = job_return(publ, id, outcome);
    ret.schedule = Some(name.to_string());
    ret.fun_args = publ.arg.clone();
    if !publ.kwarg.is_empty() {
        ret.fun_args.push(Value::Map(publ.kwarg.clone()));
    }
    ret
}

/// The return of a job still running when the minion stopped, from its
/// proc data (`jid`, `fun`, `arg`).
pub fn cut_short(id: &str, proc_data: &Map, grace: Duration) -> JobReturn {
    let text = |k: &str| proc_data.get(k).and_then(Value::as_str).unwrap_or_default();
    let fun = text("fun").to_string();
    JobReturn {
        jid: text("jid").to_string(),
        id: id.to_string(),
        ret: PackedValue::text(&format!(
            "ERROR: the minion was stopped while {fun} ran and it did not finish within \
             shutdown_timeout ({} s); its outcome is unknown",
            grace.as_secs()
        )),
        fun,
        fun_args: match proc_data.get("arg") {
            Some(Value::List(l)) => l.clone(),
            _ => Vec::new(),
        },
        retcode: 1,
        success: false,
        out: Some("nested".into()),
        schedule: None,
        called: false,
        user: None,
    }
}

/// A job's entry in the identity's running jobs, removed on drop (Salt's
/// proc file); `cancel` is notified when a signal stops the job.
struct Running<'a> {
    ident: &'a Identity,
    jid: String,
    cancel: Arc<tokio::sync::Notify>,
    /// The job's proc file, for other processes (`brine-call`) to see it
    /// once it has run a while.
    _proc_file: ProcEntry,
}

/// A job's proc file: written once the job has run a while, or at once
/// for a job in a process of its own (whose state run another must see
/// from its first moment; the process costs far more than the file).
enum ProcEntry {
    Late(#[allow(dead_code)] LateProcFile),
    Written(#[allow(dead_code)] Option<ProcFile>),
}

impl<'a> Running<'a> {
    fn start(ident: &'a Identity, publ: &Publication) -> Option<Running<'a>> {
        Self::listed(ident, publ, proc_data(publ, None))
    }

    /// A scheduled job's entry: its proc data names its schedule.
    fn start_scheduled(ident: &'a Identity, publ: &Publication, name: &str) -> Option<Running<'a>> {
        Self::listed(ident, publ, proc_data(publ, Some(name)))
    }

    fn listed(ident: &'a Identity, publ: &Publication, data: Map) -> Option<Running<'a>> {
        let cachedir = brine_compile::opts::cachedir(&ident.snapshot().opts);
        // Identities of one daemon may share the folder: the id tells
        // their files apart.
        let name = format!("{}.{}", publ.jid, ident.id());
        let proc_file = LateProcFile::schedule(cachedir, name, data.clone());
        let cancel = ident.running.start(&publ.jid, data)?;
        Some(Running {
            ident,
            jid: publ.jid.clone(),
            cancel,
            _proc_file: ProcEntry::Late(proc_file),
        })
    }

    /// A job run in process `pid`: listed with that pid, its signals sent
    /// on through `forward`, its proc file written now.
    fn start_apart(
        ident: &'a Identity,
        publ: &Publication,
        schedule: Option<&str>,
        pid: u32,
        forward: tokio::sync::mpsc::Sender<i32>,
    ) -> Option<Running<'a>> {
        let mut data = proc_data(publ, schedule);
        let cancel = ident.running.start(&publ.jid, data.clone())?;
        ident.running.set_apart(&publ.jid, pid, forward);
        data.insert("pid".into(), Value::Int(i64::from(pid)));
        let cachedir = brine_compile::opts::cachedir(&ident.snapshot().opts);
        let name = format!("{}.{}", publ.jid, ident.id());
        let file = ProcFile::write(&cachedir, &name, &data)
            .map_err(|e| tracing::warn!("job {name}: cannot write its proc file: {e}"))
            .ok();
        Some(Running {
            ident,
            jid: publ.jid.clone(),
            cancel,
            _proc_file: ProcEntry::Written(file),
        })
    }
}

impl Drop for Running<'_> {
    fn drop(&mut self) {
        self.ident.running.finish(&self.jid);
    }
}

/// What Salt's proc file says about a running job (`saltutil.running`,
/// `saltutil.find_job`), its keys in Salt's order; a scheduled run's names
/// its `schedule` (which `maxrunning` counts).
pub fn proc_data(publ: &Publication, schedule: Option<&str>) -> Map {
    let user = if is_root() {
        "root".to_string()
    } else {
        std::env::var("USER").unwrap_or_default()
    };
    let mut m = Map::default();
    m.insert("pid".into(), super::running::pid_value());
    m.insert("fun".into(), Value::Str(publ.fun.clone()));
    m.insert("arg".into(), Value::List(fun_args(publ)));
    m.insert("tgt".into(), publ.tgt.clone());
    m.insert("jid".into(), Value::Str(publ.jid.clone()));
    m.insert("ret".into(), Value::Str(String::new()));
    m.insert("tgt_type".into(), Value::Str(publ.tgt_type.clone()));
    m.insert("user".into(), Value::Str(user));
    if let Some(name) = schedule {
        m.insert("schedule".into(), Value::Str(name.to_string()));
    }
    m
}

/// Whether this process runs as root.
fn is_root() -> bool {
    brine_host::accounts::is_root()
}

/// What running a function came to.
pub enum Outcome {
    Done(Result<Return, CallError>),
    /// The function panicked (a bug): Salt's "caused an exception".
    Crashed(String),
}

/// Run the job's function on a snapshot of the minion, on a blocking
/// thread (seeing the identity's other running jobs), and `finish` its
/// outcome there; `saltutil.refresh_pillar` and `test.sleep` are the
/// daemon's own. A job return is packed by `finish` on the thread that
/// built it: a highstate's running dictionary is thousands of maps, and
/// packed and freed on the daemon's thread each of them was freed across
/// threads while that thread was held from the other jobs.
async fn execute<T: Send + 'static>(
    shared: &Arc<Shared>,
    ident: &Arc<Identity>,
    publ: &Publication,
    pillar_part: Option<Value>,
    finish: impl Fn(Outcome) -> T + Clone + Send + 'static,
) -> T {
    // What the daemon answers itself, as the function's descriptor says.
    let function = modules::find(&publ.fun);
    match function.and_then(|f| f.daemon.map(|d| (f, d))) {
        Some((f, Daemon::RefreshPillar)) => {
            return finish(Outcome::Done(
                refresh_pillar(shared, ident, f.params(given_args(publ, pillar_part))).await,
            ))
        }
        Some((f, Daemon::Sleep)) => {
            return finish(Outcome::Done(
                sleep(f.params(given_args(publ, pillar_part))).await,
            ))
        }
        None => {}
    }
    let args = published_args(publ, pillar_part);
    let snapshot = ident.snapshot();
    let fun = publ.fun.clone();
    let jobs = Jobs::new(ident.running.clone(), Some(publ.jid.clone()))
        .with_cachedir(&brine_compile::opts::cachedir(&snapshot.opts));
    let on_thread = finish.clone();
    let task = tokio::task::spawn_blocking(move || {
        let mut m = (*snapshot).clone();
        m.jobs = jobs;
        let (r, grains) = call_noting_grains(&mut m, &fun, args);
        (on_thread(Outcome::Done(r)), grains)
    });
    match task.await {
        Ok((done, grains)) => {
            if let Some(g) = grains {
                ident.set_grains(g);
            }
            done
        }
        Err(e) => finish(Outcome::Crashed(e.to_string())),
    }
}

/// Run `fun` on `m`; with it, the grains it wrote (`grains.setval` ...),
/// which are the running minion's from then on, as Salt's grains refresh
/// makes them. A write copies the shared grains, so a new pointer means a
/// write.
pub fn call_noting_grains(
    m: &mut Minion,
    fun: &str,
    args: CallArgs,
) -> (Result<Return, CallError>, Option<Arc<Map>>) {
    let before = m.grains.clone();
    let r = modules::call(m, fun, args);
    let grains = (!Arc::ptr_eq(&m.grains, &before)).then(|| m.grains.clone());
    (r, grains)
}

/// The publication's arguments, with its opened `pillar=` part.
fn given_args(publ: &Publication, pillar_part: Option<Value>) -> CallArgs {
    let mut kwargs = publ.kwarg.clone();
    if let Some(p) = pillar_part {
        kwargs.insert("pillar".into(), p);
    }
    let given = CallArgs {
        args: publ.arg.clone(),
        kwargs,
    };
    match modules::find(&publ.fun) {
        Some(f) => brine_core::args::published(&f.sig, given),
        None => given,
    }
}

/// The arguments a published job's function is called with: the given
/// ones and Salt's publish metadata, by which functions see a published
/// job (the registry's argument binding drops these keys).
pub fn published_args(publ: &Publication, pillar_part: Option<Value>) -> CallArgs {
    let mut args = given_args(publ, pillar_part);
    for (k, v) in [
        // Who the master says published (root for `brine`, the
        // logged-in user for brine-api).
        ("__pub_user", Value::Str(publ.user.clone())),
        (
            "__pub_arg",
            Value::List(brine_core::args::salt_arguments(&publ.arg, &publ.kwarg)),
        ),
        ("__pub_ret", Value::from("")),
        ("__pub_jid", Value::Str(publ.jid.clone())),
        ("__pub_fun", Value::Str(publ.fun.clone())),
        ("__pub_tgt", publ.tgt.clone()),
        ("__pub_tgt_type", Value::Str(publ.tgt_type.clone())),
    ] {
        args.kwargs.insert(k.into(), v);
    }
    args
}

/// Salt's `saltutil.refresh_pillar(wait=False, timeout=30, clean_cache=True)`:
/// True once the refresh is asked for; with `wait=True`, after it is done.
async fn refresh_pillar(
    shared: &Arc<Shared>,
    ident: &Arc<Identity>,
    mut p: Params,
) -> Result<Return, CallError> {
    let wait = p.take("wait").is_some_and(|v| v.is_truthy());
    let timeout = p
        .take("timeout")
        .and_then(|v| match v {
            Value::Int(i) => u64::try_from(i).ok(),
            Value::Float(f) if f >= 0.0 => Some(f as u64),
            Value::Str(s) => s.trim().parse().ok(),
            _ => None,
        })
        .unwrap_or(30);
    p.take("clean_cache");
    p.finish()?;
    if wait {
        let done =
            tokio::time::timeout(Duration::from_secs(timeout), pillar::refresh(shared, ident))
                .await;
        if !matches!(done, Ok(true)) {
            tracing::warn!("Pillar refresh did not complete within timeout {timeout}");
        }
    } else {
        let (shared, ident) = (shared.clone(), ident.clone());
        tokio::spawn(async move {
            pillar::refresh(&shared, &ident).await;
        });
    }
    Ok(Return::from(Value::Bool(true)))
}

/// Salt's `test.sleep(length)`: sleep, then True (used to check that long
/// jobs survive master restarts and do not block other jobs).
async fn sleep(mut p: Params) -> Result<Return, CallError> {
    let length = p.require("length")?;
    p.finish()?;
    let secs = match &length {
        Value::Int(i) => Some(*i),
        Value::Str(s) => s.trim().parse().ok(),
        Value::Float(f) => Some(f.trunc() as i64),
        _ => None,
    };
    let Some(secs) = secs.filter(|s| *s >= 0) else {
        return Err(CallError::InvalidArguments(format!(
            "invalid sleep length {}",
            length.to_python_repr()
        )));
    };
    tokio::time::sleep(Duration::from_secs(secs as u64)).await;
    Ok(Return::from(Value::Bool(true)))
}

/// Salt's minion return for a job: the function's return and retcode; a
/// zero retcode becomes 1 when a dict return says `result`/`success` is
/// false; errors come back as text with retcode 1 and the nested outputter.
pub fn job_return(publ: &Publication, id: &str, outcome: Outcome) -> JobReturn {
    let nested = Some("nested".to_string());
    let (ret, retcode, out) = match outcome {
        Outcome::Done(Ok(r)) => {
            let mut retcode = i64::from(r.retcode);
            if retcode == 0 {
                if let Value::Map(m) = &r.value {
                    let failed = ["result", "success"]
                        .iter()
                        .any(|k| m.get(*k).is_some_and(|v| !v.is_truthy()));
                    if failed {
                        retcode = 1;
                    }
                }
            }
            let out = modules::find(&publ.fun)
                .filter(|f| !matches!(f.output, Output::Nested { .. }))
                .map(|f| f.output.name().to_string());
            (r.value, retcode, out)
        }
        Outcome::Done(Err(e @ CallError::NotAvailable(_))) => {
            (Value::Str(e.to_string()), 1, nested)
        }
        Outcome::Done(Err(CallError::InvalidArguments(msg))) => (
            Value::Str(format!("Passed invalid arguments to {}: {msg}", publ.fun)),
            1,
            nested,
        ),
        // Salt's `SaltInvocationError` names the function.
        Outcome::Done(Err(CallError::Invocation(msg))) => (
            Value::Str(format!("ERROR executing '{}': {msg}", publ.fun)),
            1,
            nested,
        ),
        // Raised by the function: Salt's `CommandExecutionError` shape.
        Outcome::Done(Err(e @ (CallError::Failed(_) | CallError::NotInTemplates(_)))) => {
            (Value::Str(format!("ERROR: {e}")), 1, nested)
        }
        // Salt gives the traceback, which ends with the exception's line.
        Outcome::Done(Err(CallError::Raised(why))) => (
            Value::Str(format!("The minion function caused an exception: {why}\n")),
            1,
            nested,
        ),
        Outcome::Crashed(why) => (
            Value::Str(format!("The minion function caused an exception: {why}")),
            1,
            nested,
        ),
    };
    // Packed once, here: queued, sent and stored as these bytes.
    let packed = PackedValue::pack_checked(&ret).map_err(|e| e.to_string());
    let (ret, retcode, out) = match packed {
        Ok(p) => (p, retcode, out),
        Err(e) => (
            PackedValue::text(&format!(
                "ERROR: the return of {} cannot be sent to the master: {e}",
                publ.fun
            )),
            1,
            Some("nested".to_string()),
        ),
    };
    JobReturn {
        jid: publ.jid.clone(),
        id: id.to_string(),
        fun: publ.fun.clone(),
        fun_args: fun_args(publ),
        ret,
        retcode,
        success: retcode == 0,
        out,
        schedule: None,
        called: false,
        // Root's (the CLI's) is the master's default: not sent.
        user: (publ.user != "root").then(|| publ.user.clone()),
    }
}

/// Salt's `fun_args`: the positional arguments, then the keyword arguments
/// as one dict marked `__kwarg__` (the `pillar=` part stays secret).
fn fun_args(publ: &Publication) -> Vec<Value> {
    let mut out = publ.arg.clone();
    let kw: Map = publ
        .kwarg
        .iter()
        .filter(|(k, _)| k.as_str() != "pillar")
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    if !kw.is_empty() {
        let mut kw = kw;
        kw.insert("__kwarg__".into(), Value::Bool(true));
        out.push(Value::Map(kw));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use brine_protocol::messages::{seal_data, sign_frame, PROTOCOL_VERSION};
    use indexmap::IndexMap;
    use serde_bytes::ByteArray;

    fn minion(id: &str, grains: serde_json::Value, pillar: serde_json::Value) -> Minion {
        let map = |j: serde_json::Value| match Value::from_json(&j) {
            Value::Map(m) => m,
            _ => Map::default(),
        };
        Minion {
            id: id.into(),
            opts: Default::default(),
            grains: map(grains).into(),
            pillar: map(pillar).into(),
            source: Default::default(),
            functions: Default::default(),
            jobs: Default::default(),
            registry: None,
            schedule: None,
            master: Default::default(),
            key_finger: None,
        }
    }

    fn publication(tgt: Value, tgt_type: &str) -> Publication {
        Publication {
            v: PROTOCOL_VERSION,
            jid: "20250101000000000001".into(),
            created_ms: brine_protocol::crypto::now_ms(),
            nonce: ByteArray::new(brine_protocol::crypto::random_nonce().unwrap()),
            tgt,
            tgt_type: tgt_type.into(),
            fun: "test.ping".into(),
            arg: vec![],
            kwarg: Map::default(),
            secrets: IndexMap::new(),
            user: brine_protocol::messages::root_user(),
        }
    }

    #[test]
    fn targets_are_checked_against_the_minions_own_data() {
        let web = minion(
            "web1",
            serde_json::json!({"os": "Debian", "roles": ["web", "db"]}),
            serde_json::json!({"tier": "prod"}),
        );
        let cases: &[(Value, &str, bool)] = &[
            ("web*".into(), "glob", true),
            ("db*".into(), "glob", false),
            ("web[0-9]".into(), "pcre", true),
            ("db1,web1".into(), "list", true),
            ("db1,web10".into(), "list", false),
            (Value::List(vec!["db1".into(), "web1".into()]), "list", true),
            (Value::List(vec!["web".into()]), "list", false),
            ("os:Debian".into(), "grain", true),
            ("os:Deb*".into(), "grain", true),
            ("roles:db".into(), "grain", true),
            ("os:RedHat".into(), "grain", false),
            ("os:^Deb".into(), "grain_pcre", true),
            ("tier:prod".into(), "pillar", true),
            ("tier:dev".into(), "pillar", false),
            ("G@os:Debian and web*".into(), "compound", true),
            ("G@os:Debian and not I@tier:prod".into(), "compound", false),
            ("web1".into(), "no_such_matcher", false),
            (Value::Int(3), "glob", false),
        ];
        for (tgt, ty, want) in cases {
            let p = publication(tgt.clone(), ty);
            assert_eq!(target_matches(&p, &web), *want, "{tgt:?} {ty}");
        }
    }

    #[test]
    fn forged_replayed_stale_and_garbage_publications_are_dropped() {
        let master = KeyPair::generate().unwrap();
        let mallory = KeyPair::generate().unwrap();
        let session = SessionKey::generate().unwrap();
        let seal = |kp: &KeyPair, key: &SessionKey, p: &Publication| {
            sign_frame(kp, &SealedPublication::seal(key, p).unwrap()).unwrap()
        };
        let mut guard = ReplayGuard::new(300_000, 60_000, 100);
        let now = brine_protocol::crypto::now_ms();
        let key = Some(&session);
        let p = publication("*".into(), "glob");
        let frame = seal(&master, &session, &p);
        let got = verify(&frame, &master.public(), key, &mut guard, 0, now).unwrap();
        assert_eq!(got, p);
        // The same frame again: a replay.
        assert!(matches!(
            verify(&frame, &master.public(), key, &mut guard, 0, now),
            Err(Dropped::Replay {
                reason: ReplayError::Replayed,
                ..
            })
        ));
        // Same content signed by someone else.
        let mut q = publication("*".into(), "glob");
        let forged = seal(&mallory, &session, &q);
        assert!(matches!(
            verify(&forged, &master.public(), key, &mut guard, 0, now),
            Err(Dropped::Frame(_))
        ));
        // Under a session key this minion does not hold (or none yet).
        let other = SessionKey::generate().unwrap();
        let elsewhere = seal(&master, &other, &publication("*".into(), "glob"));
        for held in [key, None] {
            assert!(matches!(
                verify(&elsewhere, &master.public(), held, &mut guard, 0, now),
                Err(Dropped::UnknownSession { .. })
            ));
        }
        // Stamped before this minion started.
        assert!(matches!(
            verify(
                &seal(&master, &session, &publication("*".into(), "glob")),
                &master.public(),
                key,
                &mut guard,
                now + 1_000,
                now
            ),
            Err(Dropped::BeforeStart { .. })
        ));
        // Signed by the master but old: stale.
        q.created_ms = now - 301_000;
        let old = seal(&master, &session, &q);
        assert!(matches!(
            verify(&old, &master.public(), key, &mut guard, 0, now),
            Err(Dropped::Replay {
                reason: ReplayError::Stale { .. },
                ..
            })
        ));
        // Garbage and a valid frame with one byte flipped.
        assert!(verify(b"\x93garbage", &master.public(), key, &mut guard, 0, now).is_err());
        let mut flipped = seal(&master, &session, &publication("*".into(), "glob"));
        let last = flipped.len() - 3;
        flipped[last] ^= 0x40;
        assert!(verify(&flipped, &master.public(), key, &mut guard, 0, now).is_err());
        // An oversized frame is refused before decoding.
        let huge = vec![0u8; brine_protocol::messages::MAX_MESSAGE_BYTES + 1];
        assert!(verify(&huge, &master.public(), key, &mut guard, 0, now).is_err());
    }

    #[test]
    fn sealed_pillar_parts_are_opened_only_by_their_minion() {
        let k1 = KeyPair::generate().unwrap();
        let k2 = KeyPair::generate().unwrap();
        let m1 = minion("web1", serde_json::json!({}), serde_json::json!({}));
        let m2 = minion("web2", serde_json::json!({}), serde_json::json!({}));
        let m3 = minion("web3", serde_json::json!({}), serde_json::json!({}));
        let mut p = publication("web*".into(), "glob");
        let secret = |kp: &KeyPair, id: &str, v: &str| {
            seal_data(
                &kp.public().x25519,
                &Value::from(v),
                &aad::publication_secret(&p.jid, id),
            )
            .unwrap()
        };
        let s1 = secret(&k1, "web1", "one");
        // web2's part sealed to web1's key (a confused or hostile master).
        let s2 = secret(&k1, "web2", "two");
        p.secrets.insert("web1".into(), s1.clone());
        p.secrets.insert("web2".into(), s2);
        assert_eq!(
            decide(&p, &k1, &m1),
            Decision::Run {
                pillar: Some("one".into())
            }
        );
        assert_eq!(decide(&p, &k2, &m2), Decision::Skip);
        // Matched but no part: the master did not count this minion in.
        assert_eq!(decide(&p, &k2, &m3), Decision::Skip);
        // web1's part pasted into another job does not open.
        let mut other = publication("web*".into(), "glob");
        other.jid = "20250101000000000002".into();
        other.secrets.insert("web1".into(), s1);
        assert_eq!(decide(&other, &k1, &m1), Decision::Skip);
        // No secrets at all: run without pillar=.
        assert_eq!(
            decide(&publication("*".into(), "glob"), &k2, &m2),
            Decision::Run { pillar: None }
        );
    }

    #[tokio::test]
    async fn find_job_sees_a_job_only_while_it_runs() {
        let td = tempfile::tempdir().unwrap();
        let link = crate::daemon::link::Link::start(
            SocketAddr::from(([127, 0, 0, 1], 9)),
            Default::default(),
        );
        let base = minion("web1", serde_json::json!({}), serde_json::json!({}));
        let ident = crate::daemon::make_identity(
            &link,
            &base,
            "web1",
            &td.path().join("pki"),
            &td.path().join("cache"),
            &Default::default(),
            returns::PENDING_DIR,
        )
        .unwrap();
        let mut p = publication("web1".into(), "glob");
        p.fun = "test.sleep".into();
        p.arg = vec![Value::Int(30)];
        // The registry's saltutil functions, as another job (jid "other")
        // sees the table.
        let call = |fun: &str, args: Vec<Value>| {
            let mut m = base.clone();
            m.jobs = Jobs::new(ident.running.clone(), Some("other".into()));
            modules::call(
                &mut m,
                fun,
                CallArgs {
                    args,
                    kwargs: Map::default(),
                },
            )
            .unwrap()
            .value
        };
        let find = |jid: &str| call("saltutil.find_job", vec![Value::from(jid)]);
        let job = Running::start(&ident, &p).expect("room");
        let got = find(&p.jid);
        let keys: Vec<&str> = got.as_map().unwrap().keys().map(String::as_str).collect();
        assert_eq!(
            keys,
            ["pid", "fun", "arg", "tgt", "jid", "ret", "tgt_type", "user"]
        );
        assert_eq!(got.get("fun"), Some(&Value::from("test.sleep")));
        assert_eq!(got.get("arg"), Some(&Value::List(vec![Value::Int(30)])));
        assert_eq!(got.get("tgt_type"), Some(&Value::from("glob")));
        assert_eq!(got.get("ret"), Some(&Value::from("")));
        assert_eq!(find("nope"), Value::new_map());
        let running = call("saltutil.running", vec![]);
        assert_eq!(running, Value::List(vec![got.clone()]));
        // The job itself does not list itself.
        let mut own = base.clone();
        own.jobs = Jobs::new(ident.running.clone(), Some(p.jid.clone()));
        let r = modules::call(&mut own, "saltutil.running", CallArgs::default()).unwrap();
        assert_eq!(r.value, Value::List(vec![]));
        // SIGCONT: answered, the job runs on; SIGTERM: it is cancelled.
        let pid = std::process::id();
        assert_eq!(
            call(
                "saltutil.signal_job",
                vec![Value::from(p.jid.as_str()), Value::Int(18)]
            ),
            Value::Str(format!("Signal 18 sent to job {} at pid {pid}", p.jid))
        );
        assert_eq!(find(&p.jid).as_map().map(|m| m.len()), Some(8));
        assert_eq!(
            call("saltutil.term_job", vec![Value::from(p.jid.as_str())]),
            Value::Str(format!("Signal 15 sent to job {} at pid {pid}", p.jid))
        );
        tokio::time::timeout(Duration::from_secs(1), job.cancel.notified())
            .await
            .expect("cancelled");
        assert_eq!(find(&p.jid), Value::new_map());
        assert_eq!(
            call("saltutil.kill_job", vec![Value::from(p.jid.as_str())]),
            Value::from("")
        );
        drop(job);
        assert_eq!(find(&p.jid), Value::new_map());
    }

    #[test]
    fn returns_follow_salts_minion() {
        let mut p = publication("*".into(), "glob");
        p.fun = "test.echo".into();
        p.arg = vec!["hi".into()];
        p.kwarg.insert("x".into(), Value::Int(1));
        p.kwarg.insert("pillar".into(), Value::from("secret"));
        let r = job_return(
            &p,
            "web1",
            Outcome::Done(Ok(Return::from(Value::from("hi")))),
        );
        assert_eq!((r.retcode, r.success, r.out.as_deref()), (0, true, None));
        assert_eq!(r.fun_args.len(), 2);
        let kw = r.fun_args[1].as_map().unwrap();
        assert_eq!(kw.get("x"), Some(&Value::Int(1)));
        assert_eq!(kw.get("__kwarg__"), Some(&Value::Bool(true)));
        assert!(kw.get("pillar").is_none());

        let r = job_return(
            &p,
            "web1",
            Outcome::Done(Err(CallError::NotAvailable("test.nope".into()))),
        );
        assert_eq!(r.ret.unpack(), Value::from("'test.nope' is not available."));
        assert_eq!((r.retcode, r.success), (1, false));
        assert_eq!(r.out.as_deref(), Some("nested"));

        // A dict saying result: False fails the job.
        let mut m = Map::default();
        m.insert("result".into(), Value::Bool(false));
        let r = job_return(&p, "web1", Outcome::Done(Ok(Return::from(Value::Map(m)))));
        assert_eq!((r.retcode, r.success), (1, false));
        // A state run keeps its own retcode and the highstate outputter.
        p.fun = "state.apply".into();
        let r = job_return(
            &p,
            "web1",
            Outcome::Done(Ok(Return {
                value: Value::new_map(),
                retcode: 2,
            })),
        );
        assert_eq!((r.retcode, r.out.as_deref()), (2, Some("highstate")));
    }
}
