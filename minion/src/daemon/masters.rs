//! Which masters this minion serves, as Salt's `master_type` says:
//!
//! - `str` (the default): every master in `master` at once, each through a
//!   session of its own (link, subscription, authentication, pillar; one
//!   whose name does not resolve holds back no other), so
//!   jobs run from any of them and each return goes back to the master that
//!   published the job. With several masters each session keeps its
//!   undelivered returns apart (`pending_returns-<host>_<port>`); while
//!   their master cannot be reached they are offered to the others (masters
//!   sharing the job cache take them), else they wait for it to be back.
//! - `failover`: one master at a time, the first of the list that can be
//!   reached. Every `master_alive_interval` seconds the minion checks it is
//!   still there; when it is not, the minion moves it to the end of the list
//!   and connects to the next one. The returns it could not deliver wait in
//!   one queue and go to whichever master it is connected to next (masters
//!   that share a job cache take them). With `master_failback` it goes back
//!   to the first master once that answers again (checked every
//!   `master_failback_interval` seconds).
//!
//! The log lines are Salt's ("Connection to master ... lost", "Trying to
//! tune in to next master from master-list", "Master ... could not be
//! reached, trying next master (if any)").

use super::returns::{Queues, PENDING_DIR};
use super::{open_session, wait_for_end, DaemonConfig, Process, Session, Shared, EX_CONFIG};
use brine_runtime::context::Minion;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// How long a reachability check of a master may take.
const PROBE_TIMEOUT: Duration = Duration::from_secs(5);

pub use super::config::MasterType;

/// Resolve `host:port` once (failover moves on instead of retrying).
async fn resolve_once(host: &str, port: u16) -> Option<SocketAddr> {
    match tokio::net::lookup_host((host, port)).await {
        Ok(mut addrs) => addrs.next(),
        Err(e) => {
            tracing::warn!("cannot resolve master {host}: {e}");
            None
        }
    }
}

/// Whether the master's ret port takes a TCP connection now.
async fn reachable(addr: SocketAddr) -> bool {
    matches!(
        tokio::time::timeout(PROBE_TIMEOUT, tokio::net::TcpStream::connect(addr)).await,
        Ok(Ok(_))
    )
}

/// A random order for `list` (Fisher-Yates over OS randomness).
fn shuffle(list: &mut [String]) {
    for i in (1..list.len()).rev() {
        let Ok(bytes) = brine_protocol::crypto::random_nonce() else {
            return;
        };
        let r = u64::from_le_bytes(bytes[..8].try_into().unwrap_or([0; 8]));
        let j = usize::try_from(r % (i as u64 + 1)).unwrap_or(0);
        list.swap(i, j);
    }
}

/// The folder of a session's undelivered returns: one queue for a single
/// master and for failover, one per master in `str` mode with several.
pub(crate) fn queue_folder(config: &DaemonConfig, master: &str) -> String {
    if config.master_type == MasterType::Str && config.masters.len() > 1 {
        let label: String = format!("{master}_{}", config.master_port)
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_') {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        format!("{PENDING_DIR}-{label}")
    } else {
        PENDING_DIR.to_string()
    }
}

/// Serve the configured masters until SIGTERM/SIGINT or a fatal refusal;
/// the process exit code.
pub async fn serve(config: DaemonConfig, base: Minion, swarm: Option<usize>) -> i32 {
    let (fatal, mut fatal_rx) = tokio::sync::mpsc::channel(4);
    let end = wait_for_end(&mut fatal_rx);
    tokio::pin!(end);
    let process = Arc::new(Process {
        config,
        base,
        swarm,
        queues: Queues::default(),
        others: Arc::default(),
        fatal,
        bus: Default::default(),
    });
    // The minion's own bus, for brine-call on this host (a swarm is a load
    // generator: none). It ends with the runtime; a socket file left
    // behind refuses connections, and the next start replaces it.
    if swarm.is_none() {
        tokio::spawn(super::local_bus::serve(
            brine_compile::opts::sock_dir(&process.base.opts),
            process.config.id.clone(),
            process.bus.clone(),
        ));
    }
    match process.config.master_type {
        MasterType::Str => {
            // Each master on its own: a name that does not resolve (yet)
            // holds back only its own session.
            let sessions: Arc<Mutex<Vec<Arc<Shared>>>> = Arc::default();
            for master in process.config.masters.clone() {
                let (process, sessions) = (process.clone(), sessions.clone());
                tokio::spawn(async move {
                    let config = &process.config;
                    let addr = super::resolve(&master, config.master_port).await;
                    let queue = queue_folder(config, &master);
                    match open_session(&process, &master, addr, &queue) {
                        Ok(s) => sessions
                            .lock()
                            .unwrap_or_else(|p| p.into_inner())
                            .push(s.shared),
                        Err(e) => {
                            let _ = process.fatal.send((EX_CONFIG, format!("Error: {e}"))).await;
                        }
                    }
                });
            }
            let code = end.await;
            let open = sessions.lock().unwrap_or_else(|p| p.into_inner()).clone();
            for shared in &open {
                super::drain(shared).await;
            }
            code
        }
        MasterType::Failover => serve_failover(&process, end).await,
    }
}

fn config_error(e: &super::DaemonError) -> i32 {
    tracing::error!("{e}");
    eprintln!("Error: {e}");
    EX_CONFIG
}

/// `master_type: failover`: see the module doc.
async fn serve_failover(
    process: &Process,
    mut end: std::pin::Pin<&mut impl std::future::Future<Output = i32>>,
) -> i32 {
    let config = &process.config;
    let primary = config.masters[0].clone();
    let mut order = config.masters.clone();
    if config.random_master {
        // With failback the first master stays first: it is the one to
        // come back to.
        let from = usize::from(config.master_failback).min(order.len());
        shuffle(&mut order[from..]);
    }
    let mut switched = false;
    loop {
        let (master, addr) = loop {
            let mut found = None;
            for m in &order {
                match resolve_once(m, config.master_port).await {
                    Some(addr) if reachable(addr).await => {
                        found = Some((m.clone(), addr));
                        break;
                    }
                    _ => tracing::info!(
                        "Master {m} could not be reached, trying next master (if any)"
                    ),
                }
            }
            if let Some(f) = found {
                break f;
            }
            tracing::error!(
                "No master could be reached or all masters denied the minion's connection \
                 attempt."
            );
            tokio::select! {
                _ = tokio::time::sleep(config.acceptance_wait_time) => {}
                code = &mut end => return code,
            }
        };
        if switched {
            tracing::info!("Re-initialising subsystems for new master {master}");
        }
        let session = match open_session(process, &master, addr, PENDING_DIR) {
            Ok(s) => s,
            Err(e) => return config_error(&e),
        };
        let failback_to = (config.master_failback && master != primary).then_some(&primary);
        tokio::select! {
            code = &mut end => {
                super::drain(&session.shared).await;
                return code;
            }
            () = lost(addr, config.master_alive_interval, session.shared.link.losses()) => {
                tracing::info!("Connection to master {master} lost");
                tracing::info!("Trying to tune in to next master from master-list");
                tracing::info!(
                    "Moving possibly failed master {master} to the end of the list of masters"
                );
                order.retain(|m| *m != master);
                order.push(master);
            }
            () = back(failback_to, config) => {
                tracing::info!("Master {primary} is back; failing back to it");
                order = config.masters.clone();
            }
        }
        close(session);
        switched = true;
    }
}

/// Resolves once the master at `addr` stops taking connections, checked
/// every `interval` and at once when the link to it breaks (never, when
/// the interval is zero: Salt's default).
async fn lost(addr: SocketAddr, interval: Duration, mut losses: tokio::sync::watch::Receiver<u64>) {
    if interval.is_zero() {
        return std::future::pending().await;
    }
    loop {
        let broke = tokio::select! {
            _ = tokio::time::sleep(interval) => false,
            changed = losses.changed() => {
                if changed.is_err() {
                    // The link is gone; the timer alone then.
                    tokio::time::sleep(interval).await;
                }
                changed.is_ok()
            }
        };
        if !reachable(addr).await {
            return;
        }
        // A killed master's connections close before its listener does:
        // a probe right after the loss can still be accepted. Look again
        // shortly rather than only after a whole interval.
        if broke {
            for wait in AFTER_LOSS_PROBES {
                tokio::time::sleep(wait.min(interval)).await;
                if !reachable(addr).await {
                    return;
                }
            }
        }
    }
}

/// When to probe again after the link broke and a first probe still got
/// through.
const AFTER_LOSS_PROBES: [Duration; 3] = [
    Duration::from_millis(250),
    Duration::from_millis(500),
    Duration::from_millis(1000),
];

/// Resolves once `primary` (when there is one to go back to) can be
/// reached again, checked every `master_failback_interval`.
async fn back(primary: Option<&String>, config: &DaemonConfig) {
    let Some(primary) = primary else {
        return std::future::pending().await;
    };
    let every = config.master_failback_interval;
    if every.is_zero() {
        return std::future::pending().await;
    }
    loop {
        tokio::time::sleep(every).await;
        if let Some(addr) = resolve_once(primary, config.master_port).await {
            if reachable(addr).await {
                return;
            }
        }
    }
}

/// Stop a session's tasks. Jobs it started run on; their returns wait in
/// the queue for the next session's resender.
fn close(session: Session) {
    for task in session.tasks {
        task.abort();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shuffles_keep_every_master_and_master_types_parse() {
        let mut l: Vec<String> = (0..20).map(|i| format!("m{i}")).collect();
        shuffle(&mut l);
        let mut sorted = l.clone();
        sorted.sort();
        let mut want: Vec<String> = (0..20).map(|i| format!("m{i}")).collect();
        want.sort();
        assert_eq!(sorted, want);
        assert_eq!(MasterType::parse("failover"), Some(MasterType::Failover));
        assert_eq!(MasterType::parse("func"), None);
    }
}
