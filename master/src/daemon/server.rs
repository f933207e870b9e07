//! The sockets and the event loop: a ROUTER on `interface:ret_port` for
//! requests, a PUB on `interface:publish_port` for publications, both with
//! the transport's limits on untrusted peers (`MasterConfig::limits`); a
//! ROUTER on a Unix socket in `sock_dir` for the CLI on this host, so that
//! no remote peer can take its connection slots. A ret-port connection is
//! trusted once a request of it is answered for an accepted minion or the
//! CLI: until then it counts against its address and is cut after
//! `unauthenticated_timeout`.
//!
//! Requests are received on one task, wait in their lane (`lanes`:
//! compiles apart from everything else) and are handled on the blocking
//! pool (the handlers compile, hash, verify signatures and write SQLite),
//! at most `worker_threads` at a time, compiles in all but one of those
//! turns (the CLI's waits for returns sleep apart); replies go back
//! through the ROUTER's send half. A bad frame costs only itself: it is logged and dropped in
//! [`Master::handle_frame`], and the loop keeps receiving.
//!
//! Shutdown (SIGTERM/SIGINT in `brine-master`): stop receiving, let the
//! requests in hand finish (up to [`DRAIN_TIMEOUT`]), flush publications,
//! close the sockets.

use super::events::{self, socket::SocketTimeouts};
use super::master::{DaemonError, Master, PublishQueue};
use super::{lanes, presence};
use brine_protocol::messages::peek_lane;
use brine_protocol::transport::{
    bind_pub, bind_router, bind_router_local, recv_request, send_frame, send_reply, Limited,
    Limits, Peer, TransportError,
};
use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};
use zeromq::{PubSocket, RouterSocket};

/// How long shutdown waits for requests being handled.
pub const DRAIN_TIMEOUT: Duration = Duration::from_secs(10);
/// How often old jobs are cleaned from the job cache.
pub const CLEAN_INTERVAL: Duration = Duration::from_secs(3600);

/// The bound sockets, before serving (so callers learn the addresses of
/// ephemeral ports first).
pub struct Bound {
    router: Limited<RouterSocket>,
    /// The CLI's local socket (none when it could not be made: the CLI
    /// then uses the ret port).
    local: Option<(Limited<RouterSocket>, std::path::PathBuf)>,
    publisher: Limited<PubSocket>,
    events: (tokio::net::UnixListener, std::path::PathBuf),
}

/// Which socket a request came in on (its reply goes back the same way).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Via {
    RetPort,
    Local,
}

/// Descriptors kept for everything but the two ports' connections (job
/// cache, key files, file server, the CLI's own).
const RESERVED_DESCRIPTORS: u64 = 256;

/// Raise the soft descriptor limit to the hard one, and size each port's
/// connection limit to half of what is left, so that a flood of
/// connections meets the configured limit, not EMFILE (which stops every
/// accept, the CLI's too).
fn fit_to_descriptors(mut limits: Limits) -> Limits {
    use nix::sys::resource::{getrlimit, setrlimit, Resource};
    let Ok((soft, hard)) = getrlimit(Resource::RLIMIT_NOFILE) else {
        return limits;
    };
    let soft = if hard > soft && setrlimit(Resource::RLIMIT_NOFILE, hard, hard).is_ok() {
        hard
    } else {
        soft
    };
    let per_port = usize::try_from(soft.saturating_sub(RESERVED_DESCRIPTORS) / 2)
        .unwrap_or(usize::MAX)
        .max(16);
    if limits.max_connections > per_port {
        tracing::warn!(
            "max_connections {} per port does not fit in this process's {soft} file \
             descriptors (two ports, {RESERVED_DESCRIPTORS} kept for files and the CLI); \
             using {per_port} per port — raise LimitNOFILE (ulimit -n) for more",
            limits.max_connections
        );
        limits.max_connections = per_port;
    }
    limits
}

/// `publisher_acl` or `external_auth`: let local users reach the master —
/// `sock_dir` searchable (0711, not listable), the CLI socket 0666 (each
/// request still proves its user with their key file, 0400 and theirs),
/// and a copy of `master.pub` there to check the answers with. The event
/// socket stays the master's user's alone.
fn open_to_local_users(master: &Master, socket: &std::path::Path) {
    use std::os::unix::fs::PermissionsExt;
    let dir = &master.config.sock_dir;
    let set = |p: &std::path::Path, mode: u32| {
        if let Err(e) = std::fs::set_permissions(p, std::fs::Permissions::from_mode(mode)) {
            tracing::warn!(
                "publisher_acl: cannot open {} to local users: {e}",
                p.display()
            );
        }
    };
    set(dir, 0o711);
    set(socket, 0o666);
    if let Err(e) =
        brine_protocol::keys::write_public(&dir.join("master.pub"), &master.key.public())
    {
        tracing::warn!(
            "publisher_acl: cannot leave master.pub in {}: {e}",
            dir.display()
        );
    }
    tracing::info!(
        "publisher_acl/external_auth: local users reach the master through {}",
        socket.display()
    );
}

impl Bound {
    pub async fn bind(master: &Master) -> Result<Bound, DaemonError> {
        let limits = fit_to_descriptors(master.config.limits());
        let publisher = bind_pub(master.config.publish_addr(), &limits).await?;
        let router = bind_router(master.config.ret_addr(), &limits).await?;
        // The event socket makes `sock_dir` private first.
        let events = events::socket::bind(&master.config.sock_dir)?;
        let path = master.config.local_socket();
        let local = match bind_router_local(&path, &limits).await {
            Ok(r) => {
                if master.access.serves_local_users() {
                    open_to_local_users(master, &path);
                }
                Some((r, path))
            }
            Err(e) => {
                tracing::warn!("the CLI's local socket: {e}; the CLI uses the ret port");
                None
            }
        };
        Ok(Bound {
            router,
            local,
            publisher,
            events,
        })
    }

    pub fn ret_addr(&self) -> SocketAddr {
        self.router.addr()
    }

    pub fn publish_addr(&self) -> SocketAddr {
        self.publisher.addr()
    }
}

/// Serve until `shutdown` resolves.
pub async fn serve(
    master: Arc<Master>,
    bound: Bound,
    mut queue: PublishQueue,
    shutdown: impl Future<Output = ()>,
) -> Result<(), DaemonError> {
    let limits = master.config.limits();
    tracing::info!(
        "brine-master serving: publish {} ret {}",
        bound.publish_addr(),
        bound.ret_addr()
    );
    let (event_listener, event_path) = bound.events;
    let event_socket = tokio::spawn(events::socket::serve(
        event_listener,
        master.events.clone(),
        SocketTimeouts {
            hello: limits.handshake_timeout,
            idle: limits.idle_timeout.unwrap_or(Duration::from_secs(86_400)),
            write: limits.message_timeout,
        },
    ));
    let presence = master
        .config
        .presence_events
        .then(|| tokio::spawn(presence::watch(master.clone())));
    let git_pillar = brine_compile::git_remotes::pillar::enabled(&master.config.opts).then(|| {
        tokio::spawn(super::git_updates::git_pillar(
            master.config.opts.clone(),
            master.config.cachedir.clone(),
        ))
    });
    // gitfs fetched at start and every gitfs_update_interval, off the
    // request path.
    let gitfs = brine_compile::git_remotes::gitfs::enabled(&master.config.opts).then(|| {
        tokio::spawn(super::git_updates::gitfs(
            master.config.opts.clone(),
            master.config.cachedir.clone(),
        ))
    });
    let (router, _) = bound.router.into_parts();
    let (mut pub_socket, _) = bound.publisher.into_parts();
    let (router_tx, mut router_rx) = router.split();
    let (local_path, local_tx, mut local_rx) = match bound.local {
        Some((local, path)) => {
            let (tx, rx) = local.into_parts().0.split();
            (Some(path), Some(tx), Some(rx))
        }
        None => (None, None, None),
    };

    let pub_limits = limits.clone();
    let (stop_pub, mut pub_stopped) = tokio::sync::oneshot::channel::<()>();
    let publisher = tokio::spawn(async move {
        let mut stopping = false;
        loop {
            let frame = if stopping {
                queue.recv().await
            } else {
                tokio::select! {
                    f = queue.recv() => f,
                    _ = &mut pub_stopped => {
                        // Shutting down: send what is queued, then stop.
                        stopping = true;
                        queue.close();
                        queue.recv().await
                    }
                }
            };
            let Some(frame) = frame else { break };
            if let Err(e) = send_frame(&mut pub_socket, frame, &pub_limits).await {
                tracing::error!("cannot publish: {e}");
            }
        }
        pub_socket
    });

    let cleaner_master = master.clone();
    let cleaner = tokio::spawn(async move {
        let mut tick = tokio::time::interval(CLEAN_INTERVAL);
        loop {
            tick.tick().await;
            let m = cleaner_master.clone();
            let done = tokio::task::spawn_blocking(move || {
                m.jobs
                    .clean(m.config.keep_jobs, brine_protocol::crypto::now_ms())
            })
            .await;
            match done {
                Ok(Ok(0)) => {}
                Ok(Ok(n)) => tracing::info!("removed {n} job(s) older than keep_jobs"),
                Ok(Err(e)) => tracing::warn!("job cache cleanup: {e}"),
                Err(e) => tracing::warn!("job cache cleanup: {e}"),
            }
        }
    });

    // `worker_threads` requests at once, compiles in all but one; the CLI's
    // waits for returns apart (lanes.rs).
    let (backlog, lanes) = lanes::backlog::<(Via, Peer, Vec<u8>, Instant)>(
        lanes::BACKLOG_BYTES,
        master.config.worker_threads,
    );
    let lanes::Lanes {
        quick,
        compile,
        wait,
        in_hand,
    } = lanes;
    let lane_tasks = [quick, compile, wait].map(|mut lane| {
        let master = master.clone();
        let router_tx = router_tx.clone();
        let local_tx = local_tx.clone();
        let limits = limits.clone();
        tokio::spawn(async move {
            while let Some((held, turn)) = lane.next().await {
                let m = master.clone();
                let local = matches!(held.item.0, Via::Local);
                let mut tx = match (held.item.0, &local_tx) {
                    (Via::Local, Some(local)) => local.clone(),
                    _ => router_tx.clone(),
                };
                let limits = limits.clone();
                tokio::spawn(async move {
                    // The request stays held (its bytes counted) until its
                    // reply is sent.
                    // No address: the local socket (a CLI on this host).
                    let from = if local {
                        None
                    } else {
                        brine_protocol::transport::peer_ip(&tx, &held.item.1)
                    };
                    let handled = tokio::task::spawn_blocking(move || {
                        let (reply, authenticated) =
                            m.handle_frame_from(&held.item.2, held.item.3, from);
                        (reply, authenticated, held)
                    })
                    .await;
                    if let Ok((_, true, held)) = &handled {
                        // No longer cut by `unauthenticated_timeout`, nor
                        // counted against its address.
                        brine_protocol::transport::trust(&tx, &held.item.1);
                    }
                    match handled {
                        Ok((Some(reply), _, held)) => {
                            if let Err(e) = send_reply(&mut tx, &held.item.1, reply, &limits).await
                            {
                                tracing::debug!("reply not delivered: {e}");
                            }
                        }
                        Ok((None, _, _)) => {}
                        Err(e) => tracing::error!("request handler failed: {e}"),
                    }
                    drop(turn);
                });
            }
        })
    });
    tokio::pin!(shutdown);
    loop {
        let received = tokio::select! {
            _ = &mut shutdown => break,
            r = recv_request(&mut router_rx, &limits) => r.map(|pf| (Via::RetPort, pf)),
            Some(r) = async {
                match local_rx.as_mut() {
                    Some(rx) => Some(recv_request(rx, &limits).await),
                    None => None,
                }
            } => r.map(|pf| (Via::Local, pf)),
        };
        let (via, (peer, frame)) = match received {
            Ok(pf) => pf,
            Err(TransportError::Socket { what, source }) => {
                // zmq.rs reports an idle socket this way; do not spin.
                tracing::debug!("{what}: {source}");
                tokio::time::sleep(Duration::from_millis(5)).await;
                continue;
            }
            Err(e) => {
                tracing::warn!("dropped a message on the ret port: {e}");
                continue;
            }
        };
        let lane = peek_lane(&frame);
        let held = tokio::select! {
            _ = &mut shutdown => break,
            h = backlog.hold(lane, frame.len(), (via, peer, frame, Instant::now())) => h,
        };
        if held.is_err() {
            break;
        }
    }

    tracing::info!("brine-master shutting down");
    cleaner.abort();
    event_socket.abort();
    if let Some(g) = gitfs {
        g.abort();
    }
    if let Some(g) = git_pillar {
        g.abort();
    }
    if let Some(p) = presence {
        p.abort();
    }
    let _ = std::fs::remove_file(&event_path);
    if let Some(p) = &local_path {
        let _ = std::fs::remove_file(p);
    }
    // Requests not yet begun are dropped (their senders ask again); those
    // in hand finish and are answered.
    drop(backlog);
    for task in &lane_tasks {
        task.abort();
    }
    let drained = tokio::time::timeout(DRAIN_TIMEOUT, async {
        for (turns, all) in &in_hand {
            let _ = turns.acquire_many(*all).await;
        }
    })
    .await;
    if drained.is_err() {
        tracing::warn!("shutting down with requests still being handled");
    }
    // Publications queued so far go out; then the PUB socket closes.
    drop(master);
    let _ = stop_pub.send(());
    if let Ok(Ok(sock)) = tokio::time::timeout(Duration::from_secs(2), publisher).await {
        drop(sock);
    }
    drop(router_tx);
    drop(router_rx);
    drop(local_tx);
    drop(local_rx);
    Ok(())
}

/// A master running on its own tokio runtime thread; for tests and tools
/// that want a master in-process.
pub struct Running {
    pub ret_addr: SocketAddr,
    pub publish_addr: SocketAddr,
    pub master: Arc<Master>,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<Result<(), DaemonError>>>,
}

impl Running {
    /// Open the master, bind, and serve on a background thread.
    pub fn start(config: super::config::MasterConfig) -> Result<Running, DaemonError> {
        let (master, queue) = Master::open(config)?;
        let master = Arc::new(master);
        let rt = runtime()?;
        let bound = rt.block_on(Bound::bind(&master))?;
        let (ret_addr, publish_addr) = (bound.ret_addr(), bound.publish_addr());
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let m = master.clone();
        let thread = std::thread::spawn(move || {
            rt.block_on(serve(m, bound, queue, async {
                let _ = stopped.await;
            }))
        });
        Ok(Running {
            ret_addr,
            publish_addr,
            master,
            stop: Some(stop),
            thread: Some(thread),
        })
    }

    /// Stop serving and wait for the loop to end.
    pub fn stop(mut self) -> Result<(), DaemonError> {
        self.shutdown()
    }

    fn shutdown(&mut self) -> Result<(), DaemonError> {
        if let Some(s) = self.stop.take() {
            let _ = s.send(());
        }
        match self.thread.take().map(|t| t.join()) {
            Some(Ok(r)) => r,
            Some(Err(_)) => Err(DaemonError::Runtime(std::io::Error::other(
                "the master thread panicked",
            ))),
            None => Ok(()),
        }
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.shutdown();
    }
}

/// The runtime the master runs on: two scheduler threads are plenty (the
/// work happens on the blocking pool).
pub fn runtime() -> Result<tokio::runtime::Runtime, DaemonError> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(DaemonError::Runtime)
}
