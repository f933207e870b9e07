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
//! **Frame guard.** zmq.rs has no maximum message size: a peer that declares
//! a huge frame length makes it reserve that much memory, and the allocation
//! failure aborts the whole process (seen with zeromq 0.7: a 9-byte header
//! after the greeting kills a ROUTER's process). So no zmq.rs socket is
//! exposed directly: each one sits behind a [`FrameGuard`], a small TCP relay
//! that parses the ZMTP framing coming from the untrusted side and cuts the
//! connection when a frame or message exceeds [`Limits`] (or the greeting
//! does not arrive in time), before any of it reaches zmq.rs. Bound sockets
//! listen on the guard's public address and the zmq.rs socket itself only
//! on an ephemeral 127.0.0.1 port; connecting sockets connect to a guard on
//! 127.0.0.1 that relays to the remote address.

use crate::crypto::{KeyPair, Nonce};
use crate::messages::{self, Reply, Request, Verified, WireError, MAX_MESSAGE_BYTES};
use bytes::Bytes;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Semaphore;
use tokio::task::JoinHandle;
use zeromq::{
    DealerSocket, Endpoint, Host, PubSocket, RouterSocket, Socket, SocketRecv, SocketSend,
    SubSocket, ZmqMessage,
};

#[derive(Debug, thiserror::Error)]
pub enum TransportError {
    #[error("{what} {addr}: {source}")]
    Zmq {
        what: &'static str,
        addr: String,
        source: zeromq::ZmqError,
    },
    #[error("{what} {addr}: {source}")]
    Io {
        what: &'static str,
        addr: String,
        source: std::io::Error,
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

/// Bounds enforced by the [`FrameGuard`] and the receive helpers.
#[derive(Debug, Clone)]
pub struct Limits {
    /// Largest single ZMTP frame (data or command).
    pub max_frame: usize,
    /// Largest multipart message (sum of its frames).
    pub max_message: usize,
    /// Most frames in one multipart message (ours have at most 3).
    pub max_frames_per_message: usize,
    /// The 64-byte ZMTP greeting must arrive within this time.
    pub handshake_timeout: Duration,
    /// Most simultaneous connections one guard relays.
    pub max_connections: usize,
    /// How long a send may wait on a full peer queue (zmq.rs blocks).
    pub send_timeout: Duration,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            // A frame is one Signed message plus a little framing.
            max_frame: MAX_MESSAGE_BYTES + 1024,
            max_message: MAX_MESSAGE_BYTES + 4096,
            max_frames_per_message: 8,
            handshake_timeout: Duration::from_secs(10),
            max_connections: 10_000,
            send_timeout: Duration::from_secs(10),
        }
    }
}

// ---------------------------------------------------------------------------
// Frame guard

/// Why the guard cut a connection.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GuardViolation {
    #[error("frame of {size} bytes exceeds {max}")]
    FrameTooLarge { size: u64, max: usize },
    #[error("message of {size} bytes exceeds {max}")]
    MessageTooLarge { size: u64, max: usize },
    #[error("message of more than {max} frames")]
    TooManyFrames { max: usize },
    #[error("bad greeting: {0}")]
    Greeting(&'static str),
}

#[derive(Debug, Clone, Copy)]
enum ScanState {
    /// Bytes of the 64-byte greeting still to come.
    Greeting { seen: usize },
    /// Expecting a frame's flags byte.
    Flags,
    /// Reading a frame's length (1 or 8 bytes).
    Length {
        long: bool,
        more: bool,
        command: bool,
        got: usize,
        buf: [u8; 8],
    },
    /// Bytes of the frame body still to come.
    Body { remaining: u64 },
}

/// Incremental parser of ZMTP 3 framing (greeting, then `flags, length,
/// body` frames) that only counts: it never buffers a frame.
#[derive(Debug)]
pub struct FrameScanner {
    state: ScanState,
    limits: Limits,
    message_bytes: u64,
    message_frames: usize,
}

impl FrameScanner {
    pub fn new(limits: Limits) -> FrameScanner {
        FrameScanner {
            state: ScanState::Greeting { seen: 0 },
            limits,
            message_bytes: 0,
            message_frames: 0,
        }
    }

    pub fn greeting_done(&self) -> bool {
        !matches!(self.state, ScanState::Greeting { .. })
    }

    /// Account for `data`, the next bytes from the untrusted side.
    pub fn feed(&mut self, mut data: &[u8]) -> Result<(), GuardViolation> {
        while let Some((&first, rest)) = data.split_first() {
            match &mut self.state {
                ScanState::Greeting { seen } => {
                    // Signature: 0xff, 8 padding bytes, 0x7f. zmq.rs checks
                    // version and mechanism itself.
                    if *seen == 0 && first != 0xff {
                        return Err(GuardViolation::Greeting("first byte is not 0xff"));
                    }
                    if *seen == 9 && first != 0x7f {
                        return Err(GuardViolation::Greeting("tenth byte is not 0x7f"));
                    }
                    *seen += 1;
                    data = rest;
                    if *seen == 64 {
                        self.state = ScanState::Flags;
                    }
                }
                ScanState::Flags => {
                    self.state = ScanState::Length {
                        more: first & 0b001 != 0,
                        long: first & 0b010 != 0,
                        command: first & 0b100 != 0,
                        got: 0,
                        buf: [0; 8],
                    };
                    data = rest;
                }
                ScanState::Length {
                    long,
                    more,
                    command,
                    got,
                    buf,
                } => {
                    let need = if *long { 8 } else { 1 };
                    buf[*got] = first;
                    *got += 1;
                    data = rest;
                    if *got < need {
                        continue;
                    }
                    let size = if *long {
                        u64::from_be_bytes(*buf)
                    } else {
                        u64::from(buf[0])
                    };
                    let (more, command) = (*more, *command);
                    self.check_frame(size, more, command)?;
                    self.state = if size == 0 {
                        ScanState::Flags
                    } else {
                        ScanState::Body { remaining: size }
                    };
                }
                ScanState::Body { remaining } => {
                    let take = (*remaining).min(data.len() as u64);
                    *remaining -= take;
                    // take <= data.len(), so this cannot truncate.
                    data = &data[take as usize..];
                    if *remaining == 0 {
                        self.state = ScanState::Flags;
                    }
                }
            }
        }
        Ok(())
    }

    fn check_frame(&mut self, size: u64, more: bool, command: bool) -> Result<(), GuardViolation> {
        if size > self.limits.max_frame as u64 {
            return Err(GuardViolation::FrameTooLarge {
                size,
                max: self.limits.max_frame,
            });
        }
        if command {
            // Commands (handshake, subscriptions) stand alone.
            return Ok(());
        }
        self.message_bytes = self.message_bytes.saturating_add(size);
        self.message_frames += 1;
        if self.message_bytes > self.limits.max_message as u64 {
            return Err(GuardViolation::MessageTooLarge {
                size: self.message_bytes,
                max: self.limits.max_message,
            });
        }
        if self.message_frames > self.limits.max_frames_per_message {
            return Err(GuardViolation::TooManyFrames {
                max: self.limits.max_frames_per_message,
            });
        }
        if !more {
            self.message_bytes = 0;
            self.message_frames = 0;
        }
        Ok(())
    }
}

/// Which side of a guarded connection is untrusted (its bytes are scanned).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Untrusted {
    /// Connections accepted from the network (bound sockets).
    Accepted,
    /// The remote end we relay to (connecting sockets).
    Upstream,
}

/// A running guard: relays connections from `listen_addr` to its upstream.
/// Dropping it stops accepting and cuts all relayed connections.
#[derive(Debug)]
pub struct FrameGuard {
    listen_addr: SocketAddr,
    accept_task: JoinHandle<()>,
    cut: Arc<AtomicU64>,
}

impl Drop for FrameGuard {
    fn drop(&mut self) {
        self.accept_task.abort();
    }
}

impl FrameGuard {
    /// Listen on `listen` and relay each connection to `upstream`, scanning
    /// the `untrusted` side's bytes.
    pub async fn start(
        listen: SocketAddr,
        upstream: SocketAddr,
        untrusted: Untrusted,
        limits: Limits,
    ) -> Result<FrameGuard, TransportError> {
        let listener = TcpListener::bind(listen)
            .await
            .map_err(|source| TransportError::Io {
                what: "frame guard: cannot listen on",
                addr: listen.to_string(),
                source,
            })?;
        let listen_addr = listener.local_addr().map_err(|source| TransportError::Io {
            what: "frame guard: no local address for",
            addr: listen.to_string(),
            source,
        })?;
        let cut = Arc::new(AtomicU64::new(0));
        let slots = Arc::new(Semaphore::new(limits.max_connections));
        let task_cut = cut.clone();
        let accept_task = tokio::spawn(async move {
            // Each relay runs in a JoinSet owned by this task, so aborting
            // the accept task also cuts every relayed connection.
            let mut relays = tokio::task::JoinSet::new();
            loop {
                tokio::select! {
                    accepted = listener.accept() => {
                        let Ok((stream, _)) = accepted else { continue };
                        let Ok(permit) = slots.clone().try_acquire_owned() else {
                            // Over the connection limit: refuse by closing.
                            drop(stream);
                            continue;
                        };
                        let limits = limits.clone();
                        let cut = task_cut.clone();
                        relays.spawn(async move {
                            if relay(stream, upstream, untrusted, limits).await.is_err() {
                                cut.fetch_add(1, Ordering::Relaxed);
                            }
                            drop(permit);
                        });
                    }
                    Some(_) = relays.join_next(), if !relays.is_empty() => {}
                }
            }
        });
        Ok(FrameGuard {
            listen_addr,
            accept_task,
            cut,
        })
    }

    /// Where the guard listens.
    pub fn addr(&self) -> SocketAddr {
        self.listen_addr
    }

    /// Connections cut for breaking a limit or the greeting deadline.
    pub fn connections_cut(&self) -> u64 {
        self.cut.load(Ordering::Relaxed)
    }
}

/// Relay one connection; `Err` when the guard cut it for a violation.
async fn relay(
    accepted: TcpStream,
    upstream: SocketAddr,
    untrusted: Untrusted,
    limits: Limits,
) -> Result<(), GuardViolation> {
    let Ok(up) = TcpStream::connect(upstream).await else {
        return Ok(());
    };
    let _ = accepted.set_nodelay(true);
    let _ = up.set_nodelay(true);
    let (bad, good) = match untrusted {
        Untrusted::Accepted => (accepted, up),
        Untrusted::Upstream => (up, accepted),
    };
    let (mut bad_r, mut bad_w) = bad.into_split();
    let (mut good_r, mut good_w) = good.into_split();
    let scanned = async {
        let mut scanner = FrameScanner::new(limits.clone());
        let mut buf = vec![0u8; 64 * 1024];
        let deadline = tokio::time::Instant::now() + limits.handshake_timeout;
        loop {
            let n = if scanner.greeting_done() {
                bad_r.read(&mut buf).await
            } else {
                match tokio::time::timeout_at(deadline, bad_r.read(&mut buf)).await {
                    Ok(r) => r,
                    Err(_) => return Err(GuardViolation::Greeting("not received in time")),
                }
            };
            let n = match n {
                Ok(0) | Err(_) => return Ok(()),
                Ok(n) => n,
            };
            let chunk = &buf[..n];
            scanner.feed(chunk)?;
            if good_w.write_all(chunk).await.is_err() {
                return Ok(());
            }
        }
    };
    let passthrough = async {
        let _ = tokio::io::copy(&mut good_r, &mut bad_w).await;
    };
    // Whichever direction ends first ends the connection (dropping both
    // halves closes both sockets).
    tokio::select! {
        r = scanned => r,
        _ = passthrough => Ok(()),
    }
}

// ---------------------------------------------------------------------------
// Sockets

/// A zmq.rs socket and the guard in front of it. Keep the guard alive as
/// long as the socket is used ([`Guarded::into_parts`] when splitting a
/// socket into halves).
pub struct Guarded<S> {
    pub socket: S,
    guard: FrameGuard,
}

impl<S> Guarded<S> {
    /// For bound sockets, the public address (give it to peers); for
    /// connected sockets, the local relay address.
    pub fn addr(&self) -> SocketAddr {
        self.guard.addr()
    }

    pub fn guard(&self) -> &FrameGuard {
        &self.guard
    }

    pub fn into_parts(self) -> (S, FrameGuard) {
        (self.socket, self.guard)
    }
}

fn tcp_endpoint(addr: SocketAddr) -> String {
    format!("tcp://{addr}")
}

/// Bind `socket` on an ephemeral 127.0.0.1 port; return that address.
async fn bind_internal<S: Socket>(socket: &mut S) -> Result<SocketAddr, TransportError> {
    let ep = socket
        .bind("tcp://127.0.0.1:0")
        .await
        .map_err(|source| TransportError::Zmq {
            what: "cannot bind zmq socket on",
            addr: "tcp://127.0.0.1:0".into(),
            source,
        })?;
    match ep {
        Endpoint::Tcp(Host::Ipv4(ip), port) => Ok(SocketAddr::from((ip, port))),
        other => Err(TransportError::Endpoint(other.to_string())),
    }
}

async fn bind_guarded<S: Socket>(
    mut socket: S,
    addr: SocketAddr,
    limits: &Limits,
) -> Result<Guarded<S>, TransportError> {
    let internal = bind_internal(&mut socket).await?;
    let guard = FrameGuard::start(addr, internal, Untrusted::Accepted, limits.clone()).await?;
    Ok(Guarded { socket, guard })
}

async fn connect_guarded<S: Socket>(
    mut socket: S,
    remote: SocketAddr,
    limits: &Limits,
) -> Result<Guarded<S>, TransportError> {
    let local = SocketAddr::from(([127, 0, 0, 1], 0));
    let guard = FrameGuard::start(local, remote, Untrusted::Upstream, limits.clone()).await?;
    socket
        .connect(&tcp_endpoint(guard.addr()))
        .await
        .map_err(|source| TransportError::Zmq {
            what: "cannot connect to",
            addr: tcp_endpoint(remote),
            source,
        })?;
    Ok(Guarded { socket, guard })
}

/// The master's ret port: a ROUTER reachable at `addr` (port 0 for an
/// ephemeral one; see [`Guarded::addr`]).
pub async fn bind_router(
    addr: SocketAddr,
    limits: &Limits,
) -> Result<Guarded<RouterSocket>, TransportError> {
    bind_guarded(RouterSocket::new(), addr, limits).await
}

/// The master's publish port: a PUB reachable at `addr`.
pub async fn bind_pub(
    addr: SocketAddr,
    limits: &Limits,
) -> Result<Guarded<PubSocket>, TransportError> {
    bind_guarded(PubSocket::new(), addr, limits).await
}

/// A minion's or the CLI's connection to the master's ret port.
///
/// zmq.rs DEALER sockets do not reconnect: after the master restarts (or
/// any receive/send error or [`call`] timeout) drop this and connect again.
pub async fn connect_dealer(
    master: SocketAddr,
    limits: &Limits,
) -> Result<Guarded<DealerSocket>, TransportError> {
    connect_guarded(DealerSocket::new(), master, limits).await
}

/// A minion's subscription to the master's publish port (everything). zmq.rs
/// SUB sockets reconnect and resubscribe by themselves.
pub async fn connect_sub(
    master: SocketAddr,
    limits: &Limits,
) -> Result<Guarded<SubSocket>, TransportError> {
    let mut g = connect_guarded(SubSocket::new(), master, limits).await?;
    g.socket
        .subscribe("")
        .await
        .map_err(|source| TransportError::Socket {
            what: "subscribe",
            source,
        })?;
    Ok(g)
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
            max_frame: 4096,
            max_message: 8192,
            max_frames_per_message: 3,
            handshake_timeout: Duration::from_millis(300),
            ..Limits::default()
        }
    }

    #[test]
    fn scanner_accepts_good_framing_split_anywhere() {
        let mut stream = greeting().to_vec();
        // short command frame, short data frame with MORE, long data frame.
        stream.extend_from_slice(&[0x04, 3, b'a', b'b', b'c']);
        stream.extend_from_slice(&[0x01, 2, b'x', b'y']);
        stream.push(0x02);
        stream.extend_from_slice(&300u64.to_be_bytes());
        stream.extend(std::iter::repeat_n(7u8, 300));
        for split in [1, 2, 7, 63, 64, 65, 100, stream.len()] {
            let mut s = FrameScanner::new(small_limits());
            for chunk in stream.chunks(split) {
                s.feed(chunk).unwrap();
            }
            assert!(matches!(s.state, ScanState::Flags), "split {split}");
        }
    }

    #[test]
    fn scanner_cuts_oversized_frames_messages_and_bad_greetings() {
        let mut s = FrameScanner::new(small_limits());
        s.feed(&greeting()).unwrap();
        let mut huge = vec![0x06u8];
        huge.extend_from_slice(&(1u64 << 42).to_be_bytes());
        assert_eq!(
            s.feed(&huge),
            Err(GuardViolation::FrameTooLarge {
                size: 1 << 42,
                max: 4096
            })
        );

        // Three 3000-byte frames with MORE: the message passes 8192.
        let mut s = FrameScanner::new(small_limits());
        s.feed(&greeting()).unwrap();
        let mut frame = vec![0x03u8];
        frame.extend_from_slice(&3000u64.to_be_bytes());
        frame.extend(std::iter::repeat_n(0u8, 3000));
        s.feed(&frame).unwrap();
        s.feed(&frame).unwrap();
        assert!(matches!(
            s.feed(&frame),
            Err(GuardViolation::MessageTooLarge { .. })
        ));

        // Many empty frames with MORE.
        let mut s = FrameScanner::new(small_limits());
        s.feed(&greeting()).unwrap();
        assert_eq!(
            s.feed(&[0x01, 0, 0x01, 0, 0x01, 0, 0x01, 0]),
            Err(GuardViolation::TooManyFrames { max: 3 })
        );

        let mut s = FrameScanner::new(small_limits());
        assert!(s.feed(b"GET / HTTP/1.1\r\n").is_err());
        let mut s = FrameScanner::new(small_limits());
        let mut g = greeting();
        g[9] = 0;
        assert!(s.feed(&g).is_err());
    }

    #[test]
    fn scanner_never_panics_on_random_streams() {
        let mut x: u64 = 0x1234_5678;
        for _ in 0..2_000 {
            let mut s = FrameScanner::new(small_limits());
            let _ = s.feed(&greeting());
            let len = (x % 500) as usize;
            let bytes: Vec<u8> = (0..len)
                .map(|_| {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    (x >> 24) as u8
                })
                .collect();
            let _ = s.feed(&bytes);
        }
    }

    async fn master_and_minion() -> (
        Guarded<RouterSocket>,
        Guarded<DealerSocket>,
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
            let mut pillar = Map::new();
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
        // Over the receiver's message limit (below the guard's).
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

    /// A frame bigger than the guard's limit never reaches zmq.rs: the
    /// connection is cut, the process lives, other peers still work.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn guard_cuts_oversized_frames_before_zmq() {
        let limits = small_limits();
        let mut router = bind_router(local0(), &limits).await.unwrap();
        let mut dealer = connect_dealer(router.addr(), &limits).await.unwrap();

        // A real zmq peer sending a frame over max_frame.
        send_frame(&mut dealer.socket, vec![1u8; 5000], &limits)
            .await
            .unwrap();
        // A raw peer declaring a 4 TiB frame (this aborts an unguarded
        // zmq.rs process).
        let mut raw = TcpStream::connect(router.addr()).await.unwrap();
        raw.write_all(&greeting()).await.unwrap();
        let mut header = vec![0x06u8];
        header.extend_from_slice(&(1u64 << 42).to_be_bytes());
        raw.write_all(&header).await.unwrap();
        // A raw peer that never finishes its greeting.
        let mut slow = TcpStream::connect(router.addr()).await.unwrap();
        slow.write_all(&[0xff, 0, 0]).await.unwrap();

        // All three connections get cut.
        let mut buf = [0u8; 128];
        let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
        for s in [&mut raw, &mut slow] {
            loop {
                match tokio::time::timeout_at(deadline, s.read(&mut buf)).await {
                    Ok(Ok(0)) | Ok(Err(_)) => break,
                    Ok(Ok(_)) => continue,
                    Err(_) => panic!("connection not cut"),
                }
            }
        }
        while router.guard().connections_cut() < 3 {
            assert!(
                tokio::time::Instant::now() < deadline,
                "only {} cut",
                router.guard().connections_cut()
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        // A fresh, well-behaved peer is still served.
        let mut good = connect_dealer(router.addr(), &limits).await.unwrap();
        send_frame(&mut good.socket, b"still here".to_vec(), &limits)
            .await
            .unwrap();
        let (_, frame) = tokio::time::timeout(
            Duration::from_secs(5),
            recv_request(&mut router.socket, &limits),
        )
        .await
        .unwrap()
        .unwrap();
        assert_eq!(frame, b"still here");
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
            kwarg: Map::new(),
            secrets,
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

    /// The master restarts on the same port: the minion's SUB (through its
    /// guard) reconnects and resubscribes by itself.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn sub_survives_a_publisher_restart() {
        let limits = Limits::default();
        let publisher = bind_pub(local0(), &limits).await.unwrap();
        let addr = publisher.addr();
        let mut sub = connect_sub(addr, &limits).await.unwrap();
        let (mut p, guard) = publisher.into_parts();
        assert_eq!(
            publish_until_received(&mut p, &mut sub.socket, b"one").await,
            Some(b"one".to_vec())
        );
        drop(p);
        drop(guard);
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
            jid: "1".into(),
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
