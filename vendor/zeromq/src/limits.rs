//! Limits for sockets that face untrusted peers (brine's addition to zmq.rs,
//! see BRINE.md at the crate root).
//!
//! libzmq has `ZMQ_MAXMSGSIZE`, `ZMQ_HANDSHAKE_IVL` and heartbeat timeouts;
//! zmq.rs 0.7 has none of them, so a peer that declares a huge frame makes
//! it reserve that much memory and one that never finishes its greeting
//! holds a connection forever. The limits here are set through
//! [`SocketOptions`](crate::SocketOptions); each is off unless set, so a
//! socket built with the defaults behaves as upstream zmq.rs.
//!
//! A peer that breaks a limit is cut, and the socket's violation hook (if
//! any) is told once, with the peer's address: the hook is where the
//! application logs.

use std::collections::HashMap;
use std::fmt;
use std::net::{IpAddr, SocketAddr};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use parking_lot::Mutex;

use crate::util::PeerIdentity;

/// Which limit a peer broke.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ViolationKind {
    /// Refused at accept: the socket holds `limit` connections already.
    TooManyConnections { limit: usize },
    /// Refused at accept: this address holds `limit` connections already.
    TooManyFromAddress { limit: usize },
    /// Greeting and READY did not complete within the handshake timeout.
    HandshakeTimeout { timeout: Duration },
    /// A frame header declared more than the socket accepts in one message.
    MessageTooLarge { size: u64, max: usize },
    /// A message was started and not finished within the message timeout
    /// (a peer trickling bytes).
    MessageTimeout { timeout: Duration },
    /// Nothing arrived for the idle timeout.
    IdleTimeout { timeout: Duration },
    /// Partial messages of all peers hold the socket's whole receive budget.
    ReceiveBudget { budget: usize },
    /// A subscriber sent more subscriptions than a PUB socket keeps.
    TooManySubscriptions { limit: usize },
    /// A subscription longer than a PUB socket keeps.
    SubscriptionTooLong { len: usize, max: usize },
    /// The application did not trust the peer (`trust`) within the trust
    /// timeout of its connection.
    NotTrusted { timeout: Duration },
}

impl fmt::Display for ViolationKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ViolationKind::TooManyConnections { limit } => {
                write!(f, "connection refused: {limit} connections already open")
            }
            ViolationKind::TooManyFromAddress { limit } => write!(
                f,
                "connection refused: {limit} connections already open from this address"
            ),
            ViolationKind::HandshakeTimeout { timeout } => {
                write!(f, "no ZMTP handshake within {timeout:?}")
            }
            ViolationKind::MessageTooLarge { size, max } => {
                write!(f, "message of {size} bytes exceeds the maximum of {max}")
            }
            ViolationKind::MessageTimeout { timeout } => {
                write!(f, "message not completed within {timeout:?}")
            }
            ViolationKind::IdleTimeout { timeout } => write!(f, "idle for {timeout:?}"),
            ViolationKind::ReceiveBudget { budget } => write!(
                f,
                "partial messages hold the whole receive budget of {budget} bytes"
            ),
            ViolationKind::TooManySubscriptions { limit } => {
                write!(f, "more than {limit} subscriptions")
            }
            ViolationKind::SubscriptionTooLong { len, max } => {
                write!(f, "subscription of {len} bytes exceeds the maximum of {max}")
            }
            ViolationKind::NotTrusted { timeout } => {
                write!(f, "not authenticated within {timeout:?}")
            }
        }
    }
}

/// A peer cut (or refused) for breaking a limit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violation {
    pub peer: Option<SocketAddr>,
    pub kind: ViolationKind,
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.peer {
            Some(peer) => write!(f, "peer {peer}: {}", self.kind),
            None => write!(f, "peer: {}", self.kind),
        }
    }
}

/// Called once per violation, on the task that saw it: keep it short.
pub type ViolationHook = Arc<dyn Fn(&Violation) + Send + Sync>;

/// The limits of one socket. All `None` (the default) means upstream
/// zmq.rs behaviour.
#[derive(Clone, Default)]
pub struct PeerLimits {
    /// Largest message (sum of its frames plus a per-frame overhead) and
    /// largest command frame.
    pub max_message_size: Option<usize>,
    /// Greeting and READY must complete within this time.
    pub handshake_timeout: Option<Duration>,
    /// Once a message has begun, its last byte must arrive within this time.
    pub message_timeout: Option<Duration>,
    /// A connection with no byte at all for this long is cut.
    pub idle_timeout: Option<Duration>,
    /// Most accepted connections held at once.
    pub max_connections: Option<usize>,
    /// Most accepted connections held at once from one IP address, among
    /// those the application has not trusted yet (a trusted connection
    /// no longer counts against its address).
    pub max_connections_per_address: Option<usize>,
    /// An accepted connection the application has not trusted
    /// (`RouterSocket::trust`) within this time is cut.
    pub trust_timeout: Option<Duration>,
    /// Most bytes all partial (not yet complete) messages may hold together.
    pub receive_budget: Option<usize>,
    /// Most subscriptions a PUB socket keeps per subscriber.
    pub max_subscriptions: Option<usize>,
    /// Longest subscription a PUB socket keeps.
    pub max_subscription_len: Option<usize>,
    /// Told of every violation.
    pub on_violation: Option<ViolationHook>,
}

impl fmt::Debug for PeerLimits {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PeerLimits")
            .field("max_message_size", &self.max_message_size)
            .field("handshake_timeout", &self.handshake_timeout)
            .field("message_timeout", &self.message_timeout)
            .field("idle_timeout", &self.idle_timeout)
            .field("max_connections", &self.max_connections)
            .field(
                "max_connections_per_address",
                &self.max_connections_per_address,
            )
            .field("trust_timeout", &self.trust_timeout)
            .field("receive_budget", &self.receive_budget)
            .field("max_subscriptions", &self.max_subscriptions)
            .field("max_subscription_len", &self.max_subscription_len)
            .finish_non_exhaustive()
    }
}

impl PeerLimits {
    pub(crate) fn report(&self, peer: Option<SocketAddr>, kind: ViolationKind) {
        if let Some(hook) = &self.on_violation {
            hook(&Violation { peer, kind });
        }
    }
}

/// What one socket's connections hold together: how many, from where, and
/// the bytes of their partial messages. Shared by the accept loop and every
/// connection's reader.
#[derive(Debug, Default)]
pub(crate) struct Occupancy {
    total: AtomicUsize,
    /// Untrusted connections per address.
    per_address: Mutex<HashMap<IpAddr, usize>>,
    buffered: AtomicUsize,
    /// The connected peers' slots, by routing identity, for `trust`
    /// (bounded by the connections held).
    by_peer: Mutex<HashMap<PeerIdentity, Arc<SlotState>>>,
}

/// Whether a connection is trusted, and since when it is held.
#[derive(Debug)]
pub(crate) struct SlotState {
    trusted: AtomicBool,
    pub(crate) admitted: Instant,
    ip: IpAddr,
}

impl SlotState {
    pub(crate) fn trusted(&self) -> bool {
        self.trusted.load(Ordering::Acquire)
    }
}

impl Occupancy {
    /// Take a connection slot for `peer`, or say which limit refuses it.
    pub(crate) fn admit(
        self: &Arc<Self>,
        peer: SocketAddr,
        limits: &PeerLimits,
    ) -> Result<ConnectionSlot, ViolationKind> {
        let max_total = limits.max_connections.unwrap_or(usize::MAX);
        let max_here = limits.max_connections_per_address.unwrap_or(usize::MAX);
        let mut per_address = self.per_address.lock();
        if self.total.load(Ordering::Acquire) >= max_total {
            return Err(ViolationKind::TooManyConnections { limit: max_total });
        }
        let here = per_address.entry(peer.ip()).or_insert(0);
        if *here >= max_here {
            return Err(ViolationKind::TooManyFromAddress { limit: max_here });
        }
        *here += 1;
        self.total.fetch_add(1, Ordering::AcqRel);
        Ok(ConnectionSlot {
            occupancy: Arc::clone(self),
            state: Arc::new(SlotState {
                trusted: AtomicBool::new(false),
                admitted: Instant::now(),
                ip: peer.ip(),
            }),
        })
    }

    /// Take a connection slot for a peer on a local (Unix) socket: only the
    /// total is counted, and it is trusted from the start (the socket
    /// file's permissions said who may connect).
    pub(crate) fn admit_local(
        self: &Arc<Self>,
        limits: &PeerLimits,
    ) -> Result<ConnectionSlot, ViolationKind> {
        let max_total = limits.max_connections.unwrap_or(usize::MAX);
        let _per_address = self.per_address.lock();
        if self.total.load(Ordering::Acquire) >= max_total {
            return Err(ViolationKind::TooManyConnections { limit: max_total });
        }
        self.total.fetch_add(1, Ordering::AcqRel);
        Ok(ConnectionSlot {
            occupancy: Arc::clone(self),
            state: Arc::new(SlotState {
                trusted: AtomicBool::new(true),
                admitted: Instant::now(),
                ip: IpAddr::from([0, 0, 0, 0]),
            }),
        })
    }

    /// `peer`'s connection holds `state` (once its handshake is done).
    pub(crate) fn register(&self, peer: &PeerIdentity, state: Arc<SlotState>) {
        self.by_peer.lock().insert(peer.clone(), state);
    }

    /// The address `peer`'s connection came from (unspecified for a local
    /// socket); `None` when it is gone.
    pub(crate) fn peer_ip(&self, peer: &PeerIdentity) -> Option<IpAddr> {
        self.by_peer.lock().get(peer).map(|s| s.ip)
    }

    pub(crate) fn unregister(&self, peer: &PeerIdentity) {
        self.by_peer.lock().remove(peer);
    }

    /// Trust `peer`'s connection: it is no longer cut for want of trust,
    /// nor counted against its address. `false` when no such connection.
    pub(crate) fn trust(&self, peer: &PeerIdentity) -> bool {
        let Some(state) = self.by_peer.lock().get(peer).cloned() else {
            return false;
        };
        let mut per_address = self.per_address.lock();
        if !state.trusted.swap(true, Ordering::AcqRel) {
            release(&mut per_address, state.ip);
        }
        true
    }

    /// Change the bytes charged to one reader from `old` to `new`; `false`
    /// (and nothing charged) when growing would pass `budget`.
    pub(crate) fn recharge(&self, old: usize, new: usize, budget: Option<usize>) -> bool {
        if new <= old {
            self.buffered.fetch_sub(old - new, Ordering::AcqRel);
            return true;
        }
        let grow = new - old;
        let before = self.buffered.fetch_add(grow, Ordering::AcqRel);
        match budget {
            Some(budget) if before + grow > budget => {
                self.buffered.fetch_sub(grow, Ordering::AcqRel);
                false
            }
            _ => true,
        }
    }

    #[cfg(test)]
    pub(crate) fn connections(&self) -> usize {
        self.total.load(Ordering::Acquire)
    }

    #[cfg(test)]
    pub(crate) fn buffered(&self) -> usize {
        self.buffered.load(Ordering::Acquire)
    }
}

/// One accepted connection's place in its socket's [`Occupancy`]; freed
/// when the connection's reader is dropped.
#[derive(Debug)]
pub(crate) struct ConnectionSlot {
    occupancy: Arc<Occupancy>,
    state: Arc<SlotState>,
}

impl ConnectionSlot {
    pub(crate) fn state(&self) -> &Arc<SlotState> {
        &self.state
    }
}

fn release(per_address: &mut HashMap<IpAddr, usize>, ip: IpAddr) {
    if let Some(here) = per_address.get_mut(&ip) {
        *here -= 1;
        if *here == 0 {
            per_address.remove(&ip);
        }
    }
}

impl Drop for ConnectionSlot {
    fn drop(&mut self) {
        let mut per_address = self.occupancy.per_address.lock();
        if !self.state.trusted.swap(true, Ordering::AcqRel) {
            release(&mut per_address, self.state.ip);
        }
        self.occupancy.total.fetch_sub(1, Ordering::AcqRel);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn addr(ip: [u8; 4], port: u16) -> SocketAddr {
        SocketAddr::from((ip, port))
    }

    #[test]
    fn admit_counts_total_and_per_address_and_frees_on_drop() {
        let occupancy = Arc::new(Occupancy::default());
        let limits = PeerLimits {
            max_connections: Some(3),
            max_connections_per_address: Some(2),
            ..PeerLimits::default()
        };
        let a1 = occupancy.admit(addr([10, 0, 0, 1], 1), &limits).unwrap();
        let _a2 = occupancy.admit(addr([10, 0, 0, 1], 2), &limits).unwrap();
        assert_eq!(
            occupancy.admit(addr([10, 0, 0, 1], 3), &limits).unwrap_err(),
            ViolationKind::TooManyFromAddress { limit: 2 }
        );
        let _b1 = occupancy.admit(addr([10, 0, 0, 2], 1), &limits).unwrap();
        assert_eq!(
            occupancy.admit(addr([10, 0, 0, 3], 1), &limits).unwrap_err(),
            ViolationKind::TooManyConnections { limit: 3 }
        );
        drop(a1);
        assert_eq!(occupancy.connections(), 2);
        assert!(occupancy.admit(addr([10, 0, 0, 1], 4), &limits).is_ok());
    }

    #[test]
    fn a_trusted_connection_no_longer_counts_against_its_address() {
        let occupancy = Arc::new(Occupancy::default());
        let limits = PeerLimits {
            max_connections: Some(10),
            max_connections_per_address: Some(1),
            ..PeerLimits::default()
        };
        let a = occupancy.admit(addr([10, 0, 0, 1], 1), &limits).unwrap();
        assert!(occupancy.admit(addr([10, 0, 0, 1], 2), &limits).is_err());
        let peer = PeerIdentity::new();
        assert!(!occupancy.trust(&peer));
        occupancy.register(&peer, Arc::clone(a.state()));
        assert!(occupancy.trust(&peer));
        assert!(a.state().trusted());
        // Trusting twice changes nothing.
        assert!(occupancy.trust(&peer));
        let b = occupancy.admit(addr([10, 0, 0, 1], 3), &limits).unwrap();
        assert_eq!(occupancy.connections(), 2);
        drop(a);
        occupancy.unregister(&peer);
        assert!(occupancy.admit(addr([10, 0, 0, 1], 4), &limits).is_err());
        drop(b);
        assert!(occupancy.admit(addr([10, 0, 0, 1], 5), &limits).is_ok());
    }

    #[test]
    fn recharge_stays_within_the_budget() {
        let occupancy = Occupancy::default();
        assert!(occupancy.recharge(0, 60, Some(100)));
        assert!(!occupancy.recharge(0, 50, Some(100)));
        assert_eq!(occupancy.buffered(), 60);
        assert!(occupancy.recharge(60, 10, Some(100)));
        assert!(occupancy.recharge(0, 90, Some(100)));
        assert_eq!(occupancy.buffered(), 100);
    }
}
