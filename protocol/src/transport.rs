//! A thin ZeroMQ layer for the daemons, on the pure-Rust `zeromq` crate
//! (zmq.rs) and tokio.
//!
//! Sockets (as Salt uses them):
//! - ret port: master binds a ROUTER ([`bind_router`]); minions and the CLI
//!   connect a DEALER ([`connect_dealer`]) and exchange one-frame messages.
//!   The ROUTER sees `[peer, frame]`; answer with [`send_reply`].
//! - publish port: master binds a PUB ([`bind_pub`]); minions connect a SUB
//!   subscribed to everything ([`connect_sub`]).
//!
//! Every frame is the msgpack of a [`Signed`](crate::crypto::Signed); see
//! [`crate::messages`]. [`call`] is a complete client round trip: sign,
//! send, wait for the master's signed reply naming our nonce.
//!
//! **Limits.** Nothing is known about a peer until a message of it verifies,
//! so every socket applies [`Limits`] below the message layer, inside
//! zmq.rs (the workspace builds zmq.rs from `vendor/zeromq`, which adds
//! them; see its `BRINE.md`): a frame header declaring more than the
//! maximum message size cuts the peer before anything is reserved; the
//! handshake, a started message and an idle connection each have a
//! timeout; accepted connections are counted in total and per address;
//! partial messages of all peers share one receive budget; a subscriber
//! keeps a few short subscriptions. A peer past a limit is cut, logged once
//! with its address (repeats from one address are summed, see
//! [`ViolationLog`]), and the socket goes on serving the others. The
//! sockets listen on the public ports only.

use crate::crypto::{KeyPair, Nonce};
use crate::messages::{self, Reply, Request, Verified, WireError, MAX_MESSAGE_BYTES};
use bytes::Bytes;
use std::collections::HashMap;
use std::net::{IpAddr, SocketAddr};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use zeromq::{
    DealerSocket, Endpoint, Host, PeerLimits, PubSocket, RouterSocket, Socket, SocketOptions,
    SocketRecv, SocketSend, SubSocket, Violation, ViolationKind, ZmqMessage,
};

#[derive(Debug, thiserror::Error)]
pub enum TransportError {
    #[error("{what} {addr}: {source}")]
    Zmq {
        what: &'static str,
        addr: String,
        source: zeromq::ZmqError,
    },
    /// A refused connect: nothing listens at the endpoint.
    #[error("nothing listens at {endpoint} ({cause})")]
    NotListening {
        endpoint: String,
        cause: std::io::Error,
    },
    #[error("zmq.rs bound to an unexpected endpoint {0}")]
    Endpoint(String),
    #[error("received a message of {size} bytes; the limit is {max}")]
    TooLarge { size: usize, max: usize },
    #[error("received a {got}-frame message; expected {expected}")]
    Shape { got: usize, expected: usize },
    #[error("{what}: no answer within {timeout:?}")]
    Timeout {
        what: &'static str,
        timeout: Duration,
    },
    #[error("{what}: {source}")]
    Socket {
        what: &'static str,
        source: zeromq::ZmqError,
    },
    #[error(transparent)]
    Wire(#[from] WireError),
}

/// What a socket tolerates from its peers. The master's are set from its
/// configuration (`MasterConfig::limits`); the defaults are safe for a
/// master serving a few thousand minions.
#[derive(Debug, Clone)]
pub struct Limits {
    /// Largest message (all its frames) and largest command frame.
    pub max_message: usize,
    /// Greeting and READY must complete within this time (and connecting,
    /// for the connecting side).
    pub handshake_timeout: Duration,
    /// A message, once begun, must be complete within this time: a peer
    /// that trickles bytes is cut.
    pub message_timeout: Duration,
    /// A connection that sends nothing for this long is cut (`None`: never;
    /// the right choice for a PUB socket, whose subscribers stay silent).
    pub idle_timeout: Option<Duration>,
    /// Most connections a bound socket holds at once.
    pub max_connections: usize,
    /// Most connections a bound socket holds at once from one IP address
    /// before they authenticate (an authenticated one no longer counts).
    pub max_connections_per_address: usize,
    /// The ret port cuts a connection that has not authenticated (a
    /// request answered for an accepted minion or the CLI) within this
    /// time (`None`: never).
    pub unauthenticated_timeout: Option<Duration>,
    /// Most bytes the partial messages of all peers of one socket hold,
    /// beyond the 64 KiB each connection may hold free of charge (so small
    /// requests pass while big ones wait their turn).
    pub receive_budget: usize,
    /// Most subscriptions one subscriber of a PUB socket keeps, and the
    /// longest (brine's minions subscribe once, to everything).
    pub max_subscriptions: usize,
    pub max_subscription_len: usize,
    /// How long a send may wait on a full peer queue (zmq.rs blocks).
    pub send_timeout: Duration,
    /// How long connecting to the master may take, handshake included
    /// (zmq.rs retries a refused connection until then; the minion's link
    /// has its own backoff, and a return that cannot go waits on disk).
    pub connect_timeout: Duration,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            // One Signed message plus a little framing.
            max_message: MAX_MESSAGE_BYTES + 4096,
            handshake_timeout: Duration::from_secs(10),
            message_timeout: Duration::from_secs(60),
            idle_timeout: Some(Duration::from_secs(600)),
            max_connections: 10_000,
            max_connections_per_address: 1_000,
            unauthenticated_timeout: Some(Duration::from_secs(
                DEFAULT_UNAUTHENTICATED_TIMEOUT_SECS,
            )),
            receive_budget: 8 * (MAX_MESSAGE_BYTES + 4096),
            max_subscriptions: 8,
            max_subscription_len: 256,
            send_timeout: Duration::from_secs(10),
            connect_timeout: Duration::from_secs(3),
        }
    }
}

impl Limits {
    /// The zmq.rs options of a socket with these limits; violations go to
    /// `log`.
    fn options(&self, log: &Arc<ViolationLog>, idle: bool, connect: bool) -> SocketOptions {
        let hook_log = Arc::clone(log);
        let limits = PeerLimits {
            max_message_size: Some(self.max_message),
            handshake_timeout: Some(self.handshake_timeout),
            message_timeout: Some(self.message_timeout),
            idle_timeout: if idle { self.idle_timeout } else { None },
            max_connections: Some(self.max_connections),
            max_connections_per_address: Some(self.max_connections_per_address),
            trust_timeout: if idle {
                self.unauthenticated_timeout
            } else {
                None
            },
            receive_budget: Some(self.receive_budget),
            max_subscriptions: Some(self.max_subscriptions),
            max_subscription_len: Some(self.max_subscription_len),
            on_violation: Some(Arc::new(move |v: &Violation| hook_log.record(v))),
        };
        let mut options = SocketOptions::default();
        let connect_timeout = if connect {
            self.connect_timeout
        } else {
            self.handshake_timeout
        };
        options.peer_limits(limits).connect_timeout(connect_timeout);
        options
    }
}

// ---------------------------------------------------------------------------
// Violations

/// How long one (address, limit) pair stays quiet in the log after it was
/// logged: a flood from one address is one line a minute, with a count.
const LOG_QUIET: Duration = Duration::from_secs(60);
/// Most (address, limit) pairs remembered for that; past it the memory is
/// cleared (so a spread-out flood logs more, never grows without bound).
const LOG_MEMORY: usize = 4096;

/// Who broke which limit (the limit by name).
type LogKey = (Option<IpAddr>, &'static str);

/// The limits broken on one socket: counted, and logged once per address
/// and limit per [`LOG_QUIET`].
#[derive(Debug)]
pub struct ViolationLog {
    socket: String,
    cut: AtomicU64,
    recent: Mutex<HashMap<LogKey, (Instant, u64)>>,
}

fn kind_name(kind: &ViolationKind) -> &'static str {
    match kind {
        ViolationKind::TooManyConnections { .. } => "connections",
        ViolationKind::TooManyFromAddress { .. } => "connections per address",
        ViolationKind::HandshakeTimeout { .. } => "handshake timeout",
        ViolationKind::MessageTooLarge { .. } => "message size",
        ViolationKind::MessageTimeout { .. } => "message timeout",
        ViolationKind::IdleTimeout { .. } => "idle timeout",
        ViolationKind::ReceiveBudget { .. } => "receive budget",
        ViolationKind::TooManySubscriptions { .. } => "subscriptions",
        ViolationKind::SubscriptionTooLong { .. } => "subscription length",
        ViolationKind::NotTrusted { .. } => "authentication deadline",
    }
}

impl ViolationLog {
    fn new(socket: String) -> Arc<ViolationLog> {
        Arc::new(ViolationLog {
            socket,
            cut: AtomicU64::new(0),
            recent: Mutex::new(HashMap::new()),
        })
    }

    fn record(&self, v: &Violation) {
        self.cut.fetch_add(1, Ordering::Relaxed);
        let key = (v.peer.map(|p| p.ip()), kind_name(&v.kind));
        let now = Instant::now();
        let Ok(mut recent) = self.recent.lock() else {
            return;
        };
        if recent.len() >= LOG_MEMORY && !recent.contains_key(&key) {
            recent.clear();
        }
        let (since, suppressed) = recent.entry(key).or_insert((now - LOG_QUIET * 2, 0));
        if now.duration_since(*since) < LOG_QUIET {
            *suppressed += 1;
            return;
        }
        let more = std::mem::take(suppressed);
        *since = now;
        drop(recent);
        let peer = v
            .peer
            .map_or_else(|| "unknown".to_string(), |p| p.to_string());
        if more > 0 {
            tracing::warn!(
                "{}: cut peer {peer}: {} ({more} more from this address since the last line)",
                self.socket,
                v.kind
            );
        } else {
            tracing::warn!("{}: cut peer {peer}: {}", self.socket, v.kind);
        }
    }

    /// Peers cut or refused so far.
    pub fn count(&self) -> u64 {
        self.cut.load(Ordering::Relaxed)
    }
}

// ---------------------------------------------------------------------------
// Sockets

/// A zmq.rs socket with its limits in force, and what they cut.
pub struct Limited<S> {
    pub socket: S,
    addr: SocketAddr,
    violations: Arc<ViolationLog>,
}

impl<S> Limited<S> {
    /// For bound sockets, the address peers reach (the ephemeral port
    /// resolved); for connected sockets, the remote address.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The peers this socket cut for breaking a limit.
    pub fn violations(&self) -> &Arc<ViolationLog> {
        &self.violations
    }

    pub fn into_parts(self) -> (S, Arc<ViolationLog>) {
        (self.socket, self.violations)
    }
}

fn tcp_endpoint(addr: SocketAddr) -> String {
    format!("tcp://{addr}")
}

/// A socket with `limits` bound at `endpoint` (`shown` in errors, `label`
/// in its violation log): the socket, where it is bound, its log.
async fn bind_at<S: Socket>(
    endpoint: &str,
    shown: String,
    label: String,
    limits: &Limits,
    idle: bool,
) -> Result<(S, Endpoint, Arc<ViolationLog>), TransportError> {
    let violations = ViolationLog::new(label);
    let mut socket = S::with_options(limits.options(&violations, idle, false));
    let ep = socket
        .bind(endpoint)
        .await
        .map_err(|source| TransportError::Zmq {
            what: "cannot listen on",
            addr: shown,
            source,
        })?;
    Ok((socket, ep, violations))
}

/// A socket with `limits` connected to `endpoint` (`label` in its
/// violation log).
async fn connect_to<S: Socket>(
    endpoint: String,
    label: String,
    limits: &Limits,
) -> Result<(S, Arc<ViolationLog>), TransportError> {
    let violations = ViolationLog::new(label);
    let mut socket = S::with_options(limits.options(&violations, false, true));
    match socket.connect(&endpoint).await {
        Ok(()) => Ok((socket, violations)),
        Err(source) => {
            // zmq.rs retries a refused connect until its timeout: say
            // plainly when nothing listens there.
            if matches!(source, zeromq::ZmqError::ConnectTimeout(_)) {
                if let Some(cause) = not_listening(&endpoint).await {
                    return Err(TransportError::NotListening { endpoint, cause });
                }
            }
            Err(TransportError::Zmq {
                what: "cannot connect to",
                addr: endpoint,
                source,
            })
        }
    }
}

/// Why a plain connect to `endpoint` (`tcp://ip:port`, `ipc://path`)
/// fails at once, when it does because nothing listens there.
async fn not_listening(endpoint: &str) -> Option<std::io::Error> {
    let probe = async {
        if let Some(path) = endpoint.strip_prefix("ipc://") {
            tokio::net::UnixStream::connect(path).await.err()
        } else {
            let addr: SocketAddr = endpoint.strip_prefix("tcp://")?.parse().ok()?;
            tokio::net::TcpStream::connect(addr).await.err()
        }
    };
    let e = tokio::time::timeout(Duration::from_millis(500), probe)
        .await
        .ok()??;
    matches!(
        e.kind(),
        std::io::ErrorKind::ConnectionRefused | std::io::ErrorKind::NotFound
    )
    .then_some(e)
}

async fn bind<S: Socket>(
    addr: SocketAddr,
    limits: &Limits,
    what: &str,
    idle: bool,
) -> Result<Limited<S>, TransportError> {
    let (socket, ep, violations) = bind_at(
        &tcp_endpoint(addr),
        addr.to_string(),
        format!("{what} {addr}"),
        limits,
        idle,
    )
    .await?;
    let addr = match ep {
        Endpoint::Tcp(Host::Ipv4(ip), port) => SocketAddr::from((ip, port)),
        Endpoint::Tcp(Host::Ipv6(ip), port) => SocketAddr::from((ip, port)),
        other => return Err(TransportError::Endpoint(other.to_string())),
    };
    Ok(Limited {
        socket,
        addr,
        violations,
    })
}

async fn connect<S: Socket>(
    remote: SocketAddr,
    limits: &Limits,
    what: &str,
) -> Result<Limited<S>, TransportError> {
    let (socket, violations) =
        connect_to(tcp_endpoint(remote), format!("{what} {remote}"), limits).await?;
    Ok(Limited {
        socket,
        addr: remote,
        violations,
    })
}

/// The master's ret port: a ROUTER on `addr` (port 0 for an ephemeral one;
/// see [`Limited::addr`]). Idle peers are cut after the idle timeout (a
/// minion reconnects when it next has something to say).
pub async fn bind_router(
    addr: SocketAddr,
    limits: &Limits,
) -> Result<Limited<RouterSocket>, TransportError> {
    bind(addr, limits, "ret port", true).await
}

/// The master's publish port: a PUB on `addr`. Subscribers send nothing
/// after subscribing, so no idle timeout here.
pub async fn bind_pub(
    addr: SocketAddr,
    limits: &Limits,
) -> Result<Limited<PubSocket>, TransportError> {
    bind(addr, limits, "publish port", false).await
}

/// The master's local request socket: a ROUTER on the Unix socket `path`
/// (in `sock_dir`, made 0600: only the master's user, as the root token
/// the CLI signs with), so that the CLI on the master's host does not
/// share the ret port's connection slots with the network. Its peers are
/// trusted from the start; `max_connections` bounds them.
/// [`Limited::addr`] is unspecified (0.0.0.0:0) for it.
pub async fn bind_router_local(
    path: &std::path::Path,
    limits: &Limits,
) -> Result<Limited<RouterSocket>, TransportError> {
    let endpoint = format!("ipc://{}", path.display());
    // A socket left by an earlier run.
    let _ = std::fs::remove_file(path);
    let (socket, _, violations) = bind_at(
        &endpoint,
        endpoint.clone(),
        format!("local socket {}", path.display()),
        limits,
        true,
    )
    .await?;
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600)).map_err(|e| {
        TransportError::Zmq {
            what: "cannot make private",
            addr: endpoint.clone(),
            source: zeromq::ZmqError::Network(e),
        }
    })?;
    Ok(Limited {
        socket,
        addr: SocketAddr::from(([0, 0, 0, 0], 0)),
        violations,
    })
}

/// The CLI's connection to the master's local request socket (see
/// [`bind_router_local`]).
pub async fn connect_dealer_local(
    path: &std::path::Path,
    limits: &Limits,
) -> Result<Limited<DealerSocket>, TransportError> {
    let (socket, violations) = connect_to(
        format!("ipc://{}", path.display()),
        format!("master local socket {}", path.display()),
        limits,
    )
    .await?;
    Ok(Limited {
        socket,
        addr: SocketAddr::from(([0, 0, 0, 0], 0)),
        violations,
    })
}

/// A minion's or the CLI's connection to the master's ret port.
///
/// zmq.rs DEALER sockets do not reconnect: after the master restarts (or
/// any receive/send error or [`call`] timeout) drop this and connect again.
pub async fn connect_dealer(
    master: SocketAddr,
    limits: &Limits,
) -> Result<Limited<DealerSocket>, TransportError> {
    connect(master, limits, "master ret port").await
}

/// A minion's subscription to the master's publish port (everything). zmq.rs
/// SUB sockets reconnect and resubscribe by themselves.
pub async fn connect_sub(
    master: SocketAddr,
    limits: &Limits,
) -> Result<Limited<SubSocket>, TransportError> {
    let mut b = connect::<SubSocket>(master, limits, "master publish port").await?;
    b.socket
        .subscribe("")
        .await
        .map_err(|source| TransportError::Socket {
            what: "subscribe",
            source,
        })?;
    Ok(b)
}

/// The routing identity of the peer a ROUTER received from. Opaque; it is
/// zmq.rs's per-connection id, not the minion id (who the peer is comes from
/// the signed message).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Peer(Bytes);

fn check_len(len: usize, limits: &Limits) -> Result<(), TransportError> {
    if len > MAX_MESSAGE_BYTES.min(limits.max_message) {
        return Err(TransportError::TooLarge {
            size: len,
            max: MAX_MESSAGE_BYTES.min(limits.max_message),
        });
    }
    Ok(())
}

/// Receive one request on a ROUTER: `[peer, frame]`. A message of another
/// shape or size is an error for that message only; keep receiving.
pub async fn recv_request<R: SocketRecv>(
    socket: &mut R,
    limits: &Limits,
) -> Result<(Peer, Vec<u8>), TransportError> {
    let msg = socket
        .recv()
        .await
        .map_err(|source| TransportError::Socket {
            what: "receive request",
            source,
        })?;
    let mut frames = msg.into_vec();
    if frames.len() != 2 {
        return Err(TransportError::Shape {
            got: frames.len(),
            expected: 2,
        });
    }
    let frame = frames.pop().unwrap_or_default();
    let peer = frames.pop().unwrap_or_default();
    check_len(frame.len(), limits)?;
    Ok((Peer(peer), frame.to_vec()))
}

/// The ret port's default [`Limits::unauthenticated_timeout`], in seconds: long
/// enough for a minion's first request to be answered by a master busy
/// with a whole fleet's, short enough that idle connections do not pile up.
pub const DEFAULT_UNAUTHENTICATED_TIMEOUT_SECS: u64 = 30;

/// Trust `peer`'s connection to a ROUTER: it authenticated, so it is no
/// longer cut by [`Limits::unauthenticated_timeout`] nor counted against its address.
pub fn trust(router: &zeromq::RouterSendHalf, peer: &Peer) -> bool {
    zeromq::util::PeerIdentity::try_from(peer.0.clone()).is_ok_and(|id| router.trust(&id))
}

/// The address `peer`'s connection to a ROUTER came from, while it is
/// connected (unspecified for the local socket's peers).
pub fn peer_ip(router: &zeromq::RouterSendHalf, peer: &Peer) -> Option<IpAddr> {
    zeromq::util::PeerIdentity::try_from(peer.0.clone())
        .ok()
        .and_then(|id| router.peer_ip(&id))
}

/// Send a reply frame to `peer` through a ROUTER.
pub async fn send_reply<S: SocketSend>(
    socket: &mut S,
    peer: &Peer,
    frame: Vec<u8>,
    limits: &Limits,
) -> Result<(), TransportError> {
    let msg = ZmqMessage::try_from(vec![peer.0.clone(), Bytes::from(frame)]).map_err(|_| {
        TransportError::Shape {
            got: 0,
            expected: 2,
        }
    })?;
    timed_send(socket, msg, limits, "send reply").await
}

/// Send one frame on a DEALER or PUB socket.
pub async fn send_frame<S: SocketSend>(
    socket: &mut S,
    frame: Vec<u8>,
    limits: &Limits,
) -> Result<(), TransportError> {
    timed_send(socket, ZmqMessage::from(frame), limits, "send").await
}

async fn timed_send<S: SocketSend>(
    socket: &mut S,
    msg: ZmqMessage,
    limits: &Limits,
    what: &'static str,
) -> Result<(), TransportError> {
    match tokio::time::timeout(limits.send_timeout, socket.send(msg)).await {
        Ok(r) => r.map_err(|source| TransportError::Socket { what, source }),
        Err(_) => Err(TransportError::Timeout {
            what,
            timeout: limits.send_timeout,
        }),
    }
}

/// Receive one single-frame message on a DEALER or SUB socket.
pub async fn recv_frame<R: SocketRecv>(
    socket: &mut R,
    limits: &Limits,
) -> Result<Vec<u8>, TransportError> {
    let msg = socket
        .recv()
        .await
        .map_err(|source| TransportError::Socket {
            what: "receive",
            source,
        })?;
    let mut frames = msg.into_vec();
    if frames.len() != 1 {
        return Err(TransportError::Shape {
            got: frames.len(),
            expected: 1,
        });
    }
    let frame = frames.pop().unwrap_or_default();
    check_len(frame.len(), limits)?;
    Ok(frame.to_vec())
}

/// One client round trip on the ret port: sign `request` with `key`, send
/// it, and wait up to `timeout` for the reply signed by `master` whose
/// `in_reply_to` is the request's nonce. Replies to earlier requests (late
/// answers) and frames that fail to decode or verify are skipped; a
/// DEALER-level error ends the call (reconnect, see [`connect_dealer`]).
pub async fn call<S: SocketSend + SocketRecv>(
    socket: &mut S,
    key: &KeyPair,
    master: &[u8; 32],
    request: &Request,
    timeout: Duration,
    limits: &Limits,
) -> Result<Reply, TransportError> {
    let frame = messages::sign_frame(key, request)?;
    send_frame(socket, frame, limits).await?;
    let nonce: Nonce = *request.nonce;
    let wait = async {
        loop {
            let frame = recv_frame(socket, limits).await;
            let frame = match frame {
                Ok(f) => f,
                Err(TransportError::Socket { what, source }) => {
                    return Err(TransportError::Socket { what, source })
                }
                Err(_) => continue,
            };
            let Ok(Verified { msg, .. }) = messages::read_frame::<Reply>(&frame, Some(master))
            else {
                continue;
            };
            if *msg.in_reply_to == nonce {
                return Ok(msg);
            }
        }
    };
    tokio::time::timeout(timeout, wait)
        .await
        .map_err(|_| TransportError::Timeout {
            what: "request to master",
            timeout,
        })?
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::crypto::{ReplayGuard, Sealed};
    use crate::messages::*;
    use brine_core::{Map, Value};
    use serde_bytes::ByteArray;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    use tokio::net::TcpStream;

    fn local0() -> SocketAddr {
        SocketAddr::from(([127, 0, 0, 1], 0))
    }

    fn greeting() -> [u8; 64] {
        let mut g = [0u8; 64];
        g[0] = 0xff;
        g[9] = 0x7f;
        g[10] = 3;
        g[12..16].copy_from_slice(b"NULL");
        g
    }

    fn small_limits() -> Limits {
        Limits {
            max_message: 8192,
            handshake_timeout: Duration::from_millis(300),
            message_timeout: Duration::from_millis(500),
            ..Limits::default()
        }
    }

    /// A raw ZMTP 3.0 peer from `source` (any 127.0.0.0/8 address): TCP,
    /// greeting and READY as `socket_type`, as an attacker would write them.
    async fn raw_peer(to: SocketAddr, source: [u8; 4], socket_type: &str) -> TcpStream {
        let socket = tokio::net::TcpSocket::new_v4().unwrap();
        socket.bind(SocketAddr::from((source, 0))).unwrap();
        let mut stream = socket.connect(to).await.unwrap();
        // A refused connection may be closed before these are written.
        let _ = stream.write_all(&greeting()).await;
        let mut body = vec![5u8];
        body.extend_from_slice(b"READY");
        body.push(11);
        body.extend_from_slice(b"Socket-Type");
        body.extend_from_slice(&(socket_type.len() as u32).to_be_bytes());
        body.extend_from_slice(socket_type.as_bytes());
        let mut ready = vec![0x04u8, body.len() as u8];
        ready.extend_from_slice(&body);
        let _ = stream.write_all(&ready).await;
        stream
    }

    /// Wait until the other end closes `stream` (reading whatever it sends).
    async fn assert_cut(stream: &mut TcpStream, within: Duration, what: &str) {
        let deadline = tokio::time::Instant::now() + within;
        let mut buf = [0u8; 256];
        loop {
            match tokio::time::timeout_at(deadline, stream.read(&mut buf)).await {
                Ok(Ok(0)) | Ok(Err(_)) => return,
                Ok(Ok(_)) => continue,
                Err(_) => panic!("{what}: connection not cut within {within:?}"),
            }
        }
    }

    /// Still open after `wait` (reading only the server's handshake).
    async fn assert_open(stream: &mut TcpStream, wait: Duration, what: &str) {
        let deadline = tokio::time::Instant::now() + wait;
        let mut buf = [0u8; 256];
        loop {
            match tokio::time::timeout_at(deadline, stream.read(&mut buf)).await {
                Ok(Ok(0)) | Ok(Err(_)) => panic!("{what}: connection cut"),
                Ok(Ok(_)) => continue,
                Err(_) => return,
            }
        }
    }

    /// A ROUTER being served as the master serves it: always receiving
    /// (zmq.rs reads its peers only while the socket is received from).
    struct Served {
        addr: SocketAddr,
        violations: Arc<ViolationLog>,
        frames: tokio::sync::mpsc::UnboundedReceiver<Vec<u8>>,
        limits: Limits,
    }

    async fn serve(limits: &Limits) -> Served {
        let router = bind_router(local0(), limits).await.unwrap();
        let addr = router.addr();
        let (mut socket, violations) = router.into_parts();
        let (tx, frames) = tokio::sync::mpsc::unbounded_channel();
        let recv_limits = limits.clone();
        tokio::spawn(async move {
            loop {
                match recv_request(&mut socket, &recv_limits).await {
                    Ok((_, frame)) => {
                        if tx.send(frame).is_err() {
                            return;
                        }
                    }
                    Err(_) => tokio::time::sleep(Duration::from_millis(5)).await,
                }
            }
        });
        Served {
            addr,
            violations,
            frames,
            limits: limits.clone(),
        }
    }

    impl Served {
        /// The request a fresh, well-behaved DEALER sends still arrives.
        async fn still_serving(&mut self) {
            let mut good = connect_dealer(self.addr, &self.limits).await.unwrap();
            send_frame(&mut good.socket, b"still here".to_vec(), &self.limits)
                .await
                .unwrap();
            let frame = tokio::time::timeout(Duration::from_secs(5), self.frames.recv())
                .await
                .expect("no request within 5 s");
            assert_eq!(frame.as_deref(), Some(&b"still here"[..]));
        }
    }

    async fn master_and_minion() -> (
        Limited<RouterSocket>,
        Limited<DealerSocket>,
        KeyPair,
        KeyPair,
    ) {
        let limits = Limits::default();
        let router = bind_router(local0(), &limits).await.unwrap();
        let dealer = connect_dealer(router.addr(), &limits).await.unwrap();
        (
            router,
            dealer,
            KeyPair::generate().unwrap(),
            KeyPair::generate().unwrap(),
        )
    }

    /// The whole path over real sockets: a minion's signed pillar request,
    /// the master's signed reply with the pillar sealed to the minion.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn signed_sealed_round_trip_over_router_dealer() {
        let (mut router, mut dealer, master, minion) = master_and_minion().await;
        let limits = Limits::default();
        let minion_pub = minion.public();
        let master_key = master.clone();
        let server = tokio::spawn(async move {
            let (peer, frame) = recv_request(&mut router.socket, &limits).await.unwrap();
            let req: Verified<Request> = read_frame(&frame, None).unwrap();
            // The master would look the id up in minions/; here we know it.
            assert_eq!(req.signer, *minion_pub.ed25519);
            let RequestBody::Pillar(p) = &req.msg.msg else {
                panic!("expected a pillar request")
            };
            let mut pillar = Map::default();
            pillar.insert("password".into(), "s3cret".into());
            let sealed: Sealed = seal_data(
                &minion_pub.x25519,
                &Value::Map(pillar),
                &aad::pillar(&p.id, &req.msg.nonce),
            )
            .unwrap();
            let reply = Reply::to(&req.msg, ReplyBody::Pillar(PillarReply { pillar: sealed }));
            let out = sign_frame(&master_key, &reply).unwrap();
            send_reply(&mut router.socket, &peer, out, &limits)
                .await
                .unwrap();
            router
        });
        let req = Request::new(RequestBody::Pillar(PillarRequest {
            id: "web1".into(),
            pillarenv: None,
            saltenv: Some("base".into()),
            pillar_override: Value::Null,
        }))
        .unwrap();
        let reply = call(
            &mut dealer.socket,
            &minion,
            &master.public().ed25519,
            &req,
            Duration::from_secs(10),
            &Limits::default(),
        )
        .await
        .unwrap();
        let ReplyBody::Pillar(p) = reply.msg else {
            panic!("expected a pillar reply")
        };
        let pillar: Value =
            open_data(&minion, &p.pillar, &aad::pillar("web1", &req.nonce)).unwrap();
        assert_eq!(pillar.get("password"), Some(&Value::Str("s3cret".into())));
        server.await.unwrap();
    }

    /// Messages on both sides of the writer's copy bound (zmq.rs's
    /// `framed_write.rs` copies frames up to 4 KiB and queues larger ones
    /// as they are), sent in a burst and echoed back, arrive whole and in
    /// order, over and over on the same connection (the reader gives back
    /// its grown buffer between messages).
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn small_and_large_frames_cross_whole_and_in_order() {
        let (mut router, mut dealer, _, _) = master_and_minion().await;
        let limits = Limits::default();
        let sizes = [
            0usize,
            1,
            255,
            256,
            4095,
            4096,
            4097,
            65_536,
            300_000,
            2 << 20,
        ];
        let frame =
            |i: usize, size: usize| -> Vec<u8> { (0..size).map(|b| (b * 31 + i) as u8).collect() };
        let rounds = 3;
        let server_limits = limits.clone();
        let server = tokio::spawn(async move {
            let limits = server_limits;
            for _ in 0..rounds * sizes.len() {
                let (peer, got) = recv_request(&mut router.socket, &limits).await.unwrap();
                send_reply(&mut router.socket, &peer, got, &limits)
                    .await
                    .unwrap();
            }
        });
        for _ in 0..rounds {
            for (i, &size) in sizes.iter().enumerate() {
                send_frame(&mut dealer.socket, frame(i, size), &limits)
                    .await
                    .unwrap();
            }
            for (i, &size) in sizes.iter().enumerate() {
                let echoed = recv_frame(&mut dealer.socket, &limits).await.unwrap();
                assert_eq!(echoed.len(), size);
                assert!(
                    echoed == frame(i, size),
                    "frame {i} of {size} bytes changed"
                );
            }
        }
        server.await.unwrap();
    }

    /// Garbage, undecodable msgpack and oversized messages over the real
    /// sockets are errors for that message; the server keeps serving.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn bad_frames_are_errors_not_panics() {
        let (mut router, mut dealer, _master, _minion) = master_and_minion().await;
        let limits = Limits::default();
        let tight = Limits {
            max_message: 1000,
            ..Limits::default()
        };
        // Garbage bytes: arrive, fail to decode.
        send_frame(&mut dealer.socket, b"\xc1\xc1garbage".to_vec(), &limits)
            .await
            .unwrap();
        let (_, frame) = recv_request(&mut router.socket, &limits).await.unwrap();
        assert!(matches!(
            read_frame::<Request>(&frame, None),
            Err(WireError::Decode { .. })
        ));
        // Valid msgpack of the wrong shape.
        let wrong = rmp_serde::to_vec_named(&Value::from("hello")).unwrap();
        send_frame(&mut dealer.socket, wrong, &limits)
            .await
            .unwrap();
        let (_, frame) = recv_request(&mut router.socket, &limits).await.unwrap();
        assert!(read_frame::<Request>(&frame, None).is_err());
        // Over the receiver's message limit (below the socket's).
        send_frame(&mut dealer.socket, vec![0u8; 5000], &limits)
            .await
            .unwrap();
        assert!(matches!(
            recv_request(&mut router.socket, &tight).await,
            Err(TransportError::TooLarge { size: 5000, .. })
        ));
        // A two-frame message from the dealer is the wrong shape.
        let two = ZmqMessage::try_from(vec![Bytes::from("a"), Bytes::from("b")]).unwrap();
        dealer.socket.send(two).await.unwrap();
        assert!(matches!(
            recv_request(&mut router.socket, &limits).await,
            Err(TransportError::Shape { got: 3, .. })
        ));
        // Still serving.
        send_frame(&mut dealer.socket, b"ok".to_vec(), &limits)
            .await
            .unwrap();
        let (_, frame) = recv_request(&mut router.socket, &limits).await.unwrap();
        assert_eq!(frame, b"ok");
    }

    /// Frames over the maximum, a greeting that never ends and a message
    /// that trickles in are cut inside zmq.rs, before a buffer for them is
    /// reserved; the process lives and other peers are served. (Without
    /// the limits, the 4 TiB header aborts the process.)
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn limits_cut_hostile_peers_and_keep_serving() {
        let limits = small_limits();
        let mut served = serve(&limits).await;
        let addr = served.addr;

        // A real zmq peer sending a message over max_message.
        let mut big = connect_dealer(addr, &limits).await.unwrap();
        send_frame(&mut big.socket, vec![1u8; 9000], &limits)
            .await
            .unwrap();
        // A raw peer declaring a 4 TiB frame.
        let mut huge = raw_peer(addr, [127, 0, 0, 1], "DEALER").await;
        let mut header = vec![0x02u8];
        header.extend_from_slice(&(1u64 << 42).to_be_bytes());
        huge.write_all(&header).await.unwrap();
        // A raw peer that never finishes its greeting.
        let mut slow = TcpStream::connect(addr).await.unwrap();
        slow.write_all(&[0xff, 0, 0]).await.unwrap();
        // A raw peer that starts a 4000-byte message and trickles it.
        let mut trickle = raw_peer(addr, [127, 0, 0, 1], "DEALER").await;
        let mut header = vec![0x02u8];
        header.extend_from_slice(&4000u64.to_be_bytes());
        trickle.write_all(&header).await.unwrap();
        let trickling = tokio::spawn(async move {
            for _ in 0..40 {
                tokio::time::sleep(Duration::from_millis(50)).await;
                if trickle.write_all(&[7u8]).await.is_err() {
                    return true;
                }
            }
            false
        });

        let within = Duration::from_secs(3);
        assert_cut(&mut huge, within, "4 TiB frame").await;
        assert_cut(&mut slow, within, "unfinished greeting").await;
        assert!(
            trickling.await.unwrap(),
            "trickling peer not cut within 2 s"
        );
        let deadline = tokio::time::Instant::now() + within;
        while served.violations.count() < 4 {
            assert!(
                tokio::time::Instant::now() < deadline,
                "only {} cut",
                served.violations.count()
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        served.still_serving().await;
    }

    /// Connections are counted per source address and in total; an
    /// address at its limit is refused at accept, the others are not, and
    /// a slot is free again when its connection closes.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn connections_are_limited_per_address_and_in_total() {
        let limits = Limits {
            max_connections_per_address: 3,
            max_connections: 6,
            ..small_limits()
        };
        let mut served = serve(&limits).await;
        let addr = served.addr;
        let mut held = Vec::new();
        for _ in 0..3 {
            held.push(raw_peer(addr, [127, 0, 0, 2], "DEALER").await);
        }
        let mut refused = raw_peer(addr, [127, 0, 0, 2], "DEALER").await;
        assert_cut(&mut refused, Duration::from_secs(2), "4th from 127.0.0.2").await;
        for s in &mut held {
            assert_open(s, Duration::from_millis(100), "one of the first three").await;
        }
        // Another address is still let in, and so is the CLI's 127.0.0.1.
        let mut other = raw_peer(addr, [127, 0, 0, 3], "DEALER").await;
        assert_open(&mut other, Duration::from_millis(200), "127.0.0.3").await;
        served.still_serving().await;
        // A closed connection frees its slot.
        drop(held.pop());
        tokio::time::sleep(Duration::from_millis(200)).await;
        let mut again = raw_peer(addr, [127, 0, 0, 2], "DEALER").await;
        assert_open(&mut again, Duration::from_millis(200), "after a close").await;
        // Held now: 3 from .2, 1 from .3 (still_serving's dealer is gone);
        // two more from new addresses fill the total of 6.
        let mut fill = [
            raw_peer(addr, [127, 0, 0, 4], "DEALER").await,
            raw_peer(addr, [127, 0, 0, 5], "DEALER").await,
        ];
        assert_open(&mut fill[1], Duration::from_millis(200), "6th").await;
        let mut over = raw_peer(addr, [127, 0, 0, 6], "DEALER").await;
        assert_cut(&mut over, Duration::from_secs(2), "7th in total").await;
    }

    /// A peer silent for the idle timeout is cut.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn idle_peers_are_cut() {
        let limits = Limits {
            idle_timeout: Some(Duration::from_millis(1200)),
            ..small_limits()
        };
        let served = serve(&limits).await;
        let mut idle = raw_peer(served.addr, [127, 0, 0, 1], "DEALER").await;
        // Past the 300 ms handshake timeout: the raw handshake is complete.
        assert_open(&mut idle, Duration::from_millis(700), "idle peer").await;
        assert_cut(&mut idle, Duration::from_secs(3), "idle peer").await;
    }

    /// Partial messages of all peers share the receive budget: the peer
    /// that would pass it is cut, and the budget is free again after.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn partial_messages_share_one_budget() {
        // Each peer holds one 64 KiB read chunk free of charge; past that,
        // two 150 kB partials do not fit in 100 kB.
        let limits = Limits {
            max_message: 300_000,
            receive_budget: 100_000,
            message_timeout: Duration::from_secs(10),
            ..small_limits()
        };
        let mut served = serve(&limits).await;
        let addr = served.addr;
        let partial = || async {
            let mut p = raw_peer(addr, [127, 0, 0, 1], "DEALER").await;
            let mut header = vec![0x02u8];
            header.extend_from_slice(&200_000u64.to_be_bytes());
            p.write_all(&header).await.unwrap();
            let _ = p.write_all(&[9u8; 150_000]).await;
            p
        };
        let mut first = partial().await;
        assert_open(&mut first, Duration::from_millis(300), "first partial").await;
        let mut second = partial().await;
        assert_cut(&mut second, Duration::from_secs(3), "second partial").await;
        drop(first);
        tokio::time::sleep(Duration::from_millis(200)).await;
        served.still_serving().await;
    }

    /// A subscriber may keep a few short subscriptions; a flood of them
    /// (each up to the maximum message size) cuts it.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn subscription_floods_are_cut() {
        let limits = Limits {
            max_subscriptions: 2,
            max_subscription_len: 64,
            ..small_limits()
        };
        let publisher = bind_pub(local0(), &limits).await.unwrap();
        let addr = publisher.addr();
        let subscribe = |topic: &[u8]| {
            let mut m = vec![0x00u8, (topic.len() + 1) as u8, 1];
            m.extend_from_slice(topic);
            m
        };
        let mut many = raw_peer(addr, [127, 0, 0, 1], "SUB").await;
        for topic in [b"a", b"b", b"c"] {
            many.write_all(&subscribe(topic)).await.unwrap();
        }
        assert_cut(&mut many, Duration::from_secs(2), "3 subscriptions").await;
        let mut long = raw_peer(addr, [127, 0, 0, 1], "SUB").await;
        long.write_all(&subscribe(&[b'x'; 100])).await.unwrap();
        assert_cut(&mut long, Duration::from_secs(2), "100-byte subscription").await;
        // A real subscriber still receives publications.
        let mut sub = connect_sub(addr, &limits).await.unwrap();
        let (mut p, _) = publisher.into_parts();
        assert_eq!(
            publish_until_received(&mut p, &mut sub.socket, b"hello").await,
            Some(b"hello".to_vec())
        );
    }

    /// A signed publication with a sealed per-minion secret over PUB/SUB,
    /// checked by the minion's replay guard.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn publication_over_pub_sub_with_replay_guard() {
        let limits = Limits::default();
        let master = KeyPair::generate().unwrap();
        let minion = KeyPair::generate().unwrap();
        let mut publisher = bind_pub(local0(), &limits).await.unwrap();
        let mut sub = connect_sub(publisher.addr(), &limits).await.unwrap();

        let mut secrets = indexmap::IndexMap::new();
        secrets.insert(
            "web1".to_string(),
            seal_data(
                &minion.public().x25519,
                &Value::from("pillar-secret"),
                &aad::publication_secret("j1", "web1"),
            )
            .unwrap(),
        );
        let publication = Publication {
            v: PROTOCOL_VERSION,
            jid: "j1".into(),
            created_ms: crate::crypto::now_ms(),
            nonce: ByteArray::new(crate::crypto::random_nonce().unwrap()),
            tgt: "web*".into(),
            tgt_type: "glob".into(),
            fun: "state.apply".into(),
            arg: vec![],
            kwarg: Map::default(),
            secrets,
            user: root_user(),
        };
        let frame = sign_frame(&master, &publication).unwrap();

        let got = publish_until_received(&mut publisher.socket, &mut sub.socket, &frame).await;
        let got = got.expect("no publication received");
        let v: Verified<Publication> = read_frame(&got, Some(&master.public().ed25519)).unwrap();
        let mut guard = ReplayGuard::new(60_000, 5_000, 1000);
        let now = crate::crypto::now_ms();
        guard.check(v.msg.created_ms, &v.msg.nonce, now).unwrap();
        // The same publication again is a replay.
        assert!(guard.check(v.msg.created_ms, &v.msg.nonce, now).is_err());
        let secret: Value = open_data(
            &minion,
            &v.msg.secrets["web1"],
            &aad::publication_secret("j1", "web1"),
        )
        .unwrap();
        assert_eq!(secret, Value::from("pillar-secret"));
    }

    /// Publish `frame` until `sub` receives it (PUB drops messages until a
    /// subscription has reached it), bounded.
    async fn publish_until_received(
        publisher: &mut PubSocket,
        sub: &mut SubSocket,
        frame: &[u8],
    ) -> Option<Vec<u8>> {
        let limits = Limits::default();
        for _ in 0..100 {
            send_frame(publisher, frame.to_vec(), &limits).await.ok()?;
            // An error (the SUB noticing a lost connection) is not the
            // end: it reconnects by itself.
            if let Ok(Ok(r)) =
                tokio::time::timeout(Duration::from_millis(100), recv_frame(sub, &limits)).await
            {
                return Some(r);
            }
        }
        None
    }

    /// The master restarts on the same port: the minion's SUB reconnects
    /// and resubscribes by itself.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn sub_survives_a_publisher_restart() {
        let limits = Limits::default();
        let publisher = bind_pub(local0(), &limits).await.unwrap();
        let addr = publisher.addr();
        let mut sub = connect_sub(addr, &limits).await.unwrap();
        let (mut p, _) = publisher.into_parts();
        assert_eq!(
            publish_until_received(&mut p, &mut sub.socket, b"one").await,
            Some(b"one".to_vec())
        );
        drop(p);
        tokio::time::sleep(Duration::from_millis(200)).await;
        let mut again = bind_pub(addr, &limits).await.unwrap();
        let got = publish_until_received(&mut again.socket, &mut sub.socket, b"two").await;
        assert_eq!(got, Some(b"two".to_vec()));
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn call_times_out_and_skips_foreign_replies() {
        let (mut router, mut dealer, master, minion) = master_and_minion().await;
        let limits = Limits::default();
        let mallory = KeyPair::generate().unwrap();
        let master_key = master.clone();
        let server = tokio::spawn(async move {
            let (peer, frame) = recv_request(&mut router.socket, &limits).await.unwrap();
            let req: Verified<Request> = read_frame(&frame, None).unwrap();
            // First a forged reply, then one to another request, then
            // garbage: all must be skipped, and nothing valid follows.
            let forged = sign_frame(&mallory, &Reply::to(&req.msg, ReplyBody::ReturnAck)).unwrap();
            send_reply(&mut router.socket, &peer, forged, &limits)
                .await
                .unwrap();
            let mut other = Reply::to(&req.msg, ReplyBody::ReturnAck);
            other.in_reply_to = ByteArray::new([0; 16]);
            let other = sign_frame(&master_key, &other).unwrap();
            send_reply(&mut router.socket, &peer, other, &limits)
                .await
                .unwrap();
            send_reply(&mut router.socket, &peer, b"junk".to_vec(), &limits)
                .await
                .unwrap();
            router
        });
        let req = Request::new(RequestBody::GetReturns(GetReturns {
            token: "t".into(),
            user: None,
            jid: "1".into(),
            after: 0,
            wait_ms: 0,
        }))
        .unwrap();
        let err = call(
            &mut dealer.socket,
            &minion,
            &master.public().ed25519,
            &req,
            Duration::from_millis(1500),
            &Limits::default(),
        )
        .await
        .unwrap_err();
        assert!(matches!(err, TransportError::Timeout { .. }), "{err}");
        server.await.unwrap();
    }
}
