//! The minion's connection to the master's ret port, shared by every request
//! of the process (and by every identity of a swarm).
//!
//! One task owns the DEALER socket. Callers hand it a signed frame and the
//! request's nonce; replies are matched to callers by `in_reply_to`, so any
//! number of requests (returns, pillar, file chunks) can be in flight at
//! once. zmq.rs DEALER sockets never reconnect, so the task watches the
//! socket's monitor and, when the connection drops (master restart), fails
//! the requests in flight and connects a fresh socket for the next request.
//! Callers retry as their request calls for (auth waits, returns persist).

use brine_protocol::crypto::{KeyPair, Nonce};
use brine_protocol::messages::{self, Reply, Request, Verified, WireError};
use brine_protocol::transport::{self, Limits, TransportError};
use futures_util::StreamExt;
use std::collections::HashMap;
use std::net::SocketAddr;
use std::time::Duration;
use tokio::sync::{mpsc, oneshot, watch};
use tokio::time::Instant;
use zeromq::{Socket, SocketEvent};

/// How long connecting (TCP + ZMTP handshake) may take.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// How often abandoned waiters (callers that timed out) are forgotten.
const SWEEP_EVERY: Duration = Duration::from_secs(5);
/// After losing the master, reconnect attempts start this soon and back off
/// to [`RECONNECT_MAX`], so that a restarted master is noticed (and the
/// subscription renewed) even when no request is waiting.
const RECONNECT_FIRST: Duration = Duration::from_millis(500);
const RECONNECT_MAX: Duration = Duration::from_secs(5);

#[derive(Debug, thiserror::Error)]
pub enum LinkError {
    #[error("cannot reach the master at {addr}: {source}")]
    Connect {
        addr: SocketAddr,
        source: TransportError,
    },
    #[error("cannot reach the master at {addr}: connecting took longer than {timeout:?}")]
    ConnectTimeout { addr: SocketAddr, timeout: Duration },
    #[error("lost the connection to the master at {addr}")]
    Lost { addr: SocketAddr },
    #[error("the master at {addr} is unreachable ({why}); reconnecting in the background")]
    Unreachable { addr: SocketAddr, why: String },
    #[error("the master at {addr} did not answer within {timeout:?}")]
    Timeout { addr: SocketAddr, timeout: Duration },
    #[error("the minion is shutting down")]
    Closed,
    #[error("cannot encode the request: {0}")]
    Wire(#[from] WireError),
}

impl LinkError {
    /// Whether the connection, not the request, failed (retrying later
    /// can succeed).
    pub fn is_transient(&self) -> bool {
        !matches!(self, LinkError::Wire(_) | LinkError::Closed)
    }
}

type Waiter = oneshot::Sender<Result<Verified<Reply>, LinkError>>;

enum Command {
    Send {
        frame: Vec<u8>,
        nonce: Nonce,
        reply: Waiter,
    },
    /// A caller timed out: if nothing at all came back since `since`, the
    /// connection is presumed dead (no FIN seen, e.g. a frozen master).
    TimedOut { since: Instant },
}

/// Handle to the link task; cheap to clone.
#[derive(Clone)]
pub struct Link {
    tx: mpsc::Sender<Command>,
    addr: SocketAddr,
    generation: watch::Receiver<u64>,
    losses: watch::Receiver<u64>,
}

impl Link {
    /// Start the link task for the master's ret port at `addr` on the
    /// current runtime. The connection is made on the first request.
    pub fn start(addr: SocketAddr, limits: Limits) -> Link {
        let (tx, rx) = mpsc::channel(1024);
        let (gen_tx, generation) = watch::channel(0);
        let (loss_tx, losses) = watch::channel(0);
        tokio::spawn(run(addr, limits, rx, gen_tx, loss_tx));
        Link {
            tx,
            addr,
            generation,
            losses,
        }
    }

    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Counts the connections made: a change after the first means the
    /// master came back after the connection was lost (a restart).
    pub fn generation(&self) -> watch::Receiver<u64> {
        self.generation.clone()
    }

    /// Counts the connections lost (the master went away, or cut us): a
    /// failover minion checks its master at once rather than at its next
    /// alive check.
    pub fn losses(&self) -> watch::Receiver<u64> {
        self.losses.clone()
    }

    /// Sign `request` with `key`, send it, and wait up to `timeout` for the
    /// reply naming its nonce. The reply's signature is checked against the
    /// signer it names; the caller checks that signer is the master.
    pub async fn call(
        &self,
        key: &KeyPair,
        request: &Request,
        timeout: Duration,
    ) -> Result<Verified<Reply>, LinkError> {
        let frame = messages::sign_frame(key, request)?;
        let (reply, rx) = oneshot::channel();
        let sent_at = Instant::now();
        self.tx
            .send(Command::Send {
                frame,
                nonce: *request.nonce,
                reply,
            })
            .await
            .map_err(|_| LinkError::Closed)?;
        match tokio::time::timeout(timeout, rx).await {
            Ok(Ok(r)) => r,
            Ok(Err(_)) => Err(LinkError::Closed),
            Err(_) => {
                let _ = self.tx.try_send(Command::TimedOut { since: sent_at });
                Err(LinkError::Timeout {
                    addr: self.addr,
                    timeout,
                })
            }
        }
    }

    /// [`Link::call`] from a thread outside the runtime (a function running
    /// on a blocking thread). `handle` is the runtime the link runs on.
    pub fn call_blocking(
        &self,
        handle: &tokio::runtime::Handle,
        key: &KeyPair,
        request: &Request,
        timeout: Duration,
    ) -> Result<Verified<Reply>, LinkError> {
        handle.block_on(self.call(key, request, timeout))
    }
}

/// The live socket: its send half; a reader task owns the receive
/// half and the monitor and reports to the link task.
struct Conn {
    /// Tells this connection's events from those of older ones.
    serial: u64,
    send: zeromq::DealerSendHalf,
    reader: tokio::task::JoinHandle<()>,
}

impl Drop for Conn {
    fn drop(&mut self) {
        self.reader.abort();
    }
}

/// What a connection's reader reports.
enum Event {
    Frame(Vec<u8>),
    /// The connection is gone (disconnect or receive failure).
    Lost(String),
    /// A frame was refused by the transport (too big, wrong shape).
    Bad(TransportError),
}

/// The socket's event stream (connects, disconnects).
type Monitor = std::pin::Pin<Box<dyn futures_util::Stream<Item = SocketEvent> + Send>>;

async fn read_conn(
    serial: u64,
    mut recv: zeromq::DealerRecvHalf,
    mut monitor: Monitor,
    limits: Limits,
    events: mpsc::Sender<(u64, Event)>,
) {
    loop {
        let ev = tokio::select! {
            frame = transport::recv_frame(&mut recv, &limits) => match frame {
                Ok(f) => Event::Frame(f),
                Err(TransportError::Socket { source, .. }) => {
                    Event::Lost(format!("receive failed: {source}"))
                }
                Err(e) => Event::Bad(e),
            },
            event = monitor.next() => match event {
                Some(SocketEvent::Disconnected(_)) | None => Event::Lost("disconnected".into()),
                Some(_) => continue,
            },
        };
        let lost = matches!(ev, Event::Lost(_));
        if events.send((serial, ev)).await.is_err() || lost {
            return;
        }
    }
}

async fn connect(
    addr: SocketAddr,
    limits: &Limits,
    serial: u64,
    events: mpsc::Sender<(u64, Event)>,
) -> Result<Conn, LinkError> {
    let bound = match tokio::time::timeout(CONNECT_TIMEOUT, transport::connect_dealer(addr, limits))
        .await
    {
        Ok(Ok(g)) => g,
        Ok(Err(source)) => return Err(LinkError::Connect { addr, source }),
        Err(_) => {
            return Err(LinkError::ConnectTimeout {
                addr,
                timeout: CONNECT_TIMEOUT,
            })
        }
    };
    let (mut socket, _) = bound.into_parts();
    let monitor: Monitor = Box::pin(socket.monitor());
    let (send, recv) = socket.split();
    let reader = tokio::spawn(read_conn(serial, recv, monitor, limits.clone(), events));
    Ok(Conn {
        serial,
        send,
        reader,
    })
}

/// The link task's state.
struct Task {
    addr: SocketAddr,
    limits: Limits,
    conn: Option<Conn>,
    serial: u64,
    events: mpsc::Sender<(u64, Event)>,
    pending: HashMap<Nonce, Waiter>,
    /// The decompressed keys of the signers whose replies verified (the
    /// master's, for every reply); who a reply must come from is the
    /// client's check.
    signers: brine_protocol::crypto::Verifiers,
    last_rx: Instant,
    generation: watch::Sender<u64>,
    losses: watch::Sender<u64>,
    /// When to try reconnecting on our own (after a loss), and the delay
    /// after that.
    reconnect: Option<(Instant, Duration)>,
    /// Why the last connection attempt failed, until one succeeds: requests
    /// meanwhile fail at once rather than each waiting for a connect of
    /// its own (the reconnect timer keeps trying), so their callers move on
    /// (a return to another master, a retry later).
    unreachable: Option<String>,
}

impl Task {
    async fn ensure_connected(&mut self) -> Result<(), LinkError> {
        if self.conn.is_some() {
            return Ok(());
        }
        self.serial += 1;
        let c = match connect(self.addr, &self.limits, self.serial, self.events.clone()).await {
            Ok(c) => c,
            Err(e) => {
                self.unreachable = Some(e.to_string());
                if self.reconnect.is_none() {
                    self.reconnect = Some((Instant::now() + RECONNECT_FIRST, RECONNECT_FIRST));
                }
                return Err(e);
            }
        };
        tracing::debug!("connected to the master's ret port {}", self.addr);
        self.last_rx = Instant::now();
        self.conn = Some(c);
        self.reconnect = None;
        self.unreachable = None;
        self.generation.send_modify(|g| *g += 1);
        Ok(())
    }

    fn lose(&mut self, why: &str) {
        if self.conn.take().is_some() {
            tracing::info!("lost the master at {} ({why})", self.addr);
            self.losses.send_modify(|n| *n += 1);
        }
        for (_, w) in self.pending.drain() {
            let _ = w.send(Err(LinkError::Lost { addr: self.addr }));
        }
        if self.reconnect.is_none() {
            self.reconnect = Some((Instant::now() + RECONNECT_FIRST, RECONNECT_FIRST));
        }
    }

    async fn send(&mut self, frame: Vec<u8>, nonce: Nonce, reply: Waiter) {
        if let (None, Some(why)) = (&self.conn, &self.unreachable) {
            let _ = reply.send(Err(LinkError::Unreachable {
                addr: self.addr,
                why: why.clone(),
            }));
            return;
        }
        if let Err(e) = self.ensure_connected().await {
            let _ = reply.send(Err(e));
            return;
        }
        let Some(c) = self.conn.as_mut() else { return };
        match transport::send_frame(&mut c.send, frame, &self.limits).await {
            Ok(()) => {
                self.pending.insert(nonce, reply);
            }
            Err(e) => {
                self.lose(&format!("send failed: {e}"));
                let _ = reply.send(Err(LinkError::Lost { addr: self.addr }));
            }
        }
    }

    fn received(&mut self, frame: Vec<u8>) {
        self.last_rx = Instant::now();
        match messages::read_frame_learning::<Reply>(&frame, &self.signers) {
            Ok(v) => {
                if let Some(w) = self.pending.remove(&*v.msg.in_reply_to) {
                    let _ = w.send(Ok(v));
                }
            }
            Err(e) => tracing::warn!("dropped a bad reply from the master: {e}"),
        }
    }
}

async fn run(
    addr: SocketAddr,
    limits: Limits,
    mut rx: mpsc::Receiver<Command>,
    generation: watch::Sender<u64>,
    losses: watch::Sender<u64>,
) {
    let (events, mut events_rx) = mpsc::channel(256);
    let mut t = Task {
        addr,
        limits,
        conn: None,
        serial: 0,
        events,
        pending: HashMap::new(),
        signers: brine_protocol::crypto::Verifiers::with_max(8),
        last_rx: Instant::now(),
        generation,
        losses,
        reconnect: None,
        unreachable: None,
    };
    let mut sweep = tokio::time::interval(SWEEP_EVERY);
    loop {
        let reconnect_at = match t.reconnect {
            Some((at, _)) if t.conn.is_none() => Some(at),
            _ => None,
        };
        tokio::select! {
            cmd = rx.recv() => {
                let Some(cmd) = cmd else { break };
                match cmd {
                    Command::Send { frame, nonce, reply } => t.send(frame, nonce, reply).await,
                    Command::TimedOut { since } => {
                        if t.conn.is_some() && t.last_rx < since {
                            t.lose("it stopped answering");
                        }
                    }
                }
            }
            Some((serial, ev)) = events_rx.recv() => {
                if t.conn.as_ref().map(|c| c.serial) != Some(serial) {
                    continue;
                }
                match ev {
                    Event::Frame(frame) => t.received(frame),
                    Event::Lost(why) => t.lose(&why),
                    Event::Bad(e) => tracing::warn!("dropped a bad frame from the master: {e}"),
                }
            }
            _ = async {
                match reconnect_at {
                    Some(at) => tokio::time::sleep_until(at).await,
                    None => std::future::pending().await,
                }
            } => {
                if let Err(e) = t.ensure_connected().await {
                    let delay = t
                        .reconnect
                        .map_or(RECONNECT_FIRST, |(_, d)| (d * 2).min(RECONNECT_MAX));
                    tracing::debug!("master still unreachable ({e}); next try in {delay:?}");
                    t.reconnect = Some((Instant::now() + delay, delay));
                }
            }
            _ = sweep.tick() => {
                t.pending.retain(|_, w| !w.is_closed());
            }
        }
    }
}
