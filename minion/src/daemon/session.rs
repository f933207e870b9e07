//! One master's session: the identities connected to it (their
//! authentication, the subscription, the reconnect watch), its stop
//! (running jobs drained) and the wait for the process's end.

use super::config::{
    DaemonConfig, DaemonError, MasterType, MAX_CONCURRENT_JOBS, PUBLICATION_NONCES,
    PUBLICATION_SKEW, PUBLICATION_WINDOW,
};
use super::identities::{self, make_identity};
use super::link::Link;
use super::shared::Shared;
use super::{auth, jobs, returns};
use brine_protocol::crypto::ReplayGuard;
use brine_protocol::transport::Limits;
use brine_runtime::context::Minion;
use std::net::SocketAddr;
use std::sync::atomic::AtomicU64;
use std::sync::{Arc, Mutex, RwLock};
use std::time::Duration;
use tokio::sync::Semaphore;

/// Resolve `host:port`, retrying while the name does not resolve.
pub async fn resolve(host: &str, port: u16) -> SocketAddr {
    let mut delay = Duration::from_secs(1);
    loop {
        match tokio::net::lookup_host((host, port)).await {
            Ok(mut addrs) => {
                if let Some(a) = addrs.next() {
                    return a;
                }
                tracing::warn!("master {host} resolves to no address; retrying in {delay:?}");
            }
            Err(e) => {
                tracing::warn!("cannot resolve master {host}: {e}; retrying in {delay:?}")
            }
        }
        tokio::time::sleep(delay).await;
        delay = (delay * 2).min(Duration::from_secs(30));
    }
}

/// One master's session: the shared state of its identities and the tasks
/// serving them (authentication, subscription, reconnect watch).
pub struct Session {
    pub shared: Arc<Shared>,
    pub tasks: Vec<tokio::task::JoinHandle<()>>,
}

/// What every master session of the process is opened from.
pub struct Process {
    pub config: DaemonConfig,
    /// The minion as loaded (grains collected once).
    pub base: Minion,
    pub swarm: Option<usize>,
    pub queues: returns::Queues,
    /// `master_type: str` with several masters: each identity at every
    /// master, where returns go when their master cannot be reached.
    pub others: Arc<returns::OtherMasters>,
    /// Where a session reports a fatal refusal (exit code, message).
    pub fatal: tokio::sync::mpsc::Sender<(i32, String)>,
    /// Who answers on the minion's own bus.
    pub bus: super::local_bus::Members,
}

impl Process {
    /// A process serving one identity for one call (`brine-call`, a
    /// job's own process): no swarm, no other masters, no bus of its own.
    pub fn single(
        config: DaemonConfig,
        base: Minion,
        fatal: tokio::sync::mpsc::Sender<(i32, String)>,
    ) -> Process {
        Process {
            config,
            base,
            swarm: None,
            queues: Default::default(),
            others: Arc::default(),
            fatal,
            bus: Default::default(),
        }
    }
}

/// Connect to `master` (its ret port at `addr`): build the identities
/// (their undelivered returns under `cachedir/<queue>`) and start their
/// tasks.
pub fn open_session(
    process: &Process,
    master: &str,
    ret_addr: SocketAddr,
    queue: &str,
) -> Result<Session, DaemonError> {
    let shared = connect(process, ret_addr, queue)?;
    tracing::info!(
        "brine-minion {} starting: master {master} at {ret_addr} (publish port {})",
        if shared.identities.len() == 1 {
            shared.config.id.clone()
        } else {
            format!("swarm of {}", shared.identities.len())
        },
        shared.config.publish_port
    );
    let pub_addr = SocketAddr::new(ret_addr.ip(), shared.config.publish_port);
    let mut tasks: Vec<_> = shared
        .identities
        .iter()
        .map(|ident| tokio::spawn(auth::identity_main(shared.clone(), ident.clone())))
        .collect();
    tasks.push(tokio::spawn(jobs::subscribe(shared.clone(), pub_addr)));
    tasks.push(tokio::spawn(watch_reconnects(shared.clone())));
    Ok(Session { shared, tasks })
}

/// The link to the master at `ret_addr` and the identities that will use it (nothing
/// started on them yet): a session's, or `brine-call`'s one identity.
pub fn connect(
    process: &Process,
    ret_addr: SocketAddr,
    queue: &str,
) -> Result<Arc<Shared>, DaemonError> {
    let Process {
        config,
        base,
        swarm,
        queues,
        others,
        fatal,
        bus,
    } = process;
    let (swarm, fatal) = (*swarm, fatal.clone());
    brine_host::jobs::private_cachedir(&config.cachedir).map_err(|source| {
        DaemonError::Cachedir {
            path: config.cachedir.clone(),
            source,
        }
    })?;
    let limits = Limits::default();
    let link = Link::start(ret_addr, limits.clone());
    let identities = match swarm {
        None => make_identity(
            &link,
            base,
            &config.id,
            &config.pki_dir,
            &config.cachedir,
            queues,
            queue,
        )
        .map(|i| vec![i]),
        Some(n) => identities::identities(&link, base, config, n, queues, queue),
    }?;
    if config.master_type == MasterType::Str && config.masters.len() > 1 {
        for ident in &identities {
            others.add(ident);
        }
    }
    let shared = Arc::new(Shared {
        config: config.clone(),
        link,
        limits,
        identities,
        replay: Mutex::new(ReplayGuard::new(
            PUBLICATION_WINDOW.as_millis() as u64,
            PUBLICATION_SKEW.as_millis() as u64,
            PUBLICATION_NONCES,
        )),
        publications_since: AtomicU64::new(0),
        started_local_ms: brine_protocol::crypto::local_now_ms(),
        stopping: std::sync::atomic::AtomicBool::new(false),
        session: RwLock::new(None),
        master: Arc::new(RwLock::new(None)),
        jobs: Semaphore::new(MAX_CONCURRENT_JOBS),
        multiprocessing: config.multiprocessing && swarm.is_none(),
        others: others.clone(),
        fatal,
        bus: bus.clone(),
    });
    Ok(shared)
}

/// Stop taking jobs and give the running ones `shutdown_timeout` to
/// finish (a job counts as running until its return is acknowledged or
/// queued on disk, so a return the master has not taken yet is sent after
/// the next start). A
/// job still running then is given an error return in the queue: the
/// master learns the minion stopped rather than never hearing. Jobs run
/// in processes of their own are neither waited for nor answered for:
/// they go on and send their returns themselves.
pub async fn drain(shared: &Shared) {
    shared
        .stopping
        .store(true, std::sync::atomic::Ordering::Release);
    // Jobs still running (a finished job's return is acknowledged or on
    // disk already).
    // Jobs run in processes of their own go on and deliver their returns
    // themselves.
    let busy = || {
        shared
            .identities
            .iter()
            .map(|i| i.running.in_process().len())
            .sum::<usize>()
    };
    if busy() == 0 {
        return;
    }
    let grace = shared.config.shutdown_timeout;
    tracing::info!(
        "waiting up to {} s for {} running job(s) to finish",
        grace.as_secs(),
        busy()
    );
    let deadline = tokio::time::Instant::now() + grace;
    while busy() > 0 && tokio::time::Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    for ident in &shared.identities {
        for proc_data in ident.running.in_process() {
            let ret = jobs::cut_short(ident.id(), &proc_data, grace);
            tracing::warn!(
                "{}: job {} ({}) still running at stop; an error return is queued for the master",
                ident.id(),
                ret.jid,
                ret.fun
            );
            if let Err(e) = ident.returns.persist(&ret) {
                tracing::error!("cannot queue the return of job {}: {e}", ret.jid);
            }
        }
    }
}

/// After the link reconnects to a master (a restart), authenticate again
/// so the master has every identity's grains.
async fn watch_reconnects(shared: Arc<Shared>) {
    let mut gen = shared.link.generation();
    let mut seen = *gen.borrow_and_update();
    while gen.changed().await.is_ok() {
        let now = *gen.borrow_and_update();
        if seen != 0 && now != seen {
            for ident in &shared.identities {
                ident.client.auth.reauth.notify_one();
            }
        }
        seen = now;
    }
}

pub async fn wait_for_end(fatal: &mut tokio::sync::mpsc::Receiver<(i32, String)>) -> i32 {
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    tokio::select! {
        _ = tokio::signal::ctrl_c() => {
            tracing::info!("interrupted; stopping");
            0
        }
        _ = term => {
            tracing::info!("SIGTERM; stopping");
            0
        }
        Some((code, msg)) = fatal.recv() => {
            tracing::error!("{msg}");
            eprintln!("{msg}");
            code
        }
    }
}
