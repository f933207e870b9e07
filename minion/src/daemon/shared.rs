//! What every identity of the process shares with one master: the link
//! and subscription, the replay guard, the session key, the job slots.

use super::config::DaemonConfig;
use super::identity::Identity;
use super::link::Link;
use super::returns;
use brine_protocol::crypto::{PublicKeys, ReplayGuard, SessionKey};
use brine_protocol::transport::Limits;
use std::sync::atomic::AtomicU64;
use std::sync::{Arc, Mutex, RwLock};
use tokio::sync::Semaphore;

/// What every identity of the process shares.
pub struct Shared {
    pub config: DaemonConfig,
    pub link: Link,
    pub limits: Limits,
    pub identities: Vec<Arc<Identity>>,
    /// Publications already seen (one guard: every identity receives the
    /// same publications on the one subscription).
    pub replay: Mutex<ReplayGuard>,
    /// Publications stamped before this process started (in the master's
    /// time, known from the first accepted authentication) are refused:
    /// after a restart, the replay memory is empty, and this is what keeps
    /// old publications out. 0 until then.
    pub publications_since: AtomicU64,
    /// This host's clock when the process started.
    pub started_local_ms: u64,
    /// Set at SIGTERM: publications are no longer taken.
    pub stopping: std::sync::atomic::AtomicBool,
    /// The master's session key (publications are encrypted with it), from
    /// the last accepted authentication.
    pub session: RwLock<Option<SessionKey>>,
    /// The master key publications are checked against: the pinned one,
    /// or while pending the one the master offered (checked against the
    /// pin and `master_finger`).
    pub master: Arc<RwLock<Option<PublicKeys>>>,
    pub jobs: Semaphore,
    /// Jobs that change the host run in processes of their own
    /// (`multiprocessing`; never in a swarm, whose identities are one
    /// process by design).
    pub multiprocessing: bool,
    /// The process's sessions with its other masters (see
    /// [`returns::OtherMasters`]).
    pub others: Arc<returns::OtherMasters>,
    /// A fatal condition (refused key, changed master key): exit code and
    /// message.
    pub fatal: tokio::sync::mpsc::Sender<(i32, String)>,
    /// Who answers on the minion's own bus (an identity joins once ready).
    pub bus: super::local_bus::Members,
}

impl Shared {
    /// The session key publications are read with, if the master gave one.
    pub fn session(&self) -> Option<SessionKey> {
        self.session
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    pub fn set_session(&self, key: SessionKey) {
        *self.session.write().unwrap_or_else(|p| p.into_inner()) = Some(key);
    }

    /// Accept publications stamped from the process start on, given
    /// `master_ms`, the master's time now (the first accepted
    /// authentication sets it; later ones do not move it).
    pub fn publications_from(&self, master_ms: u64) {
        let running = brine_protocol::crypto::local_now_ms().saturating_sub(self.started_local_ms);
        let _ = self.publications_since.compare_exchange(
            0,
            master_ms.saturating_sub(running).max(1),
            std::sync::atomic::Ordering::AcqRel,
            std::sync::atomic::Ordering::Acquire,
        );
    }

    pub fn master_key(&self) -> Option<PublicKeys> {
        self.master.read().ok().and_then(|g| *g)
    }
}
