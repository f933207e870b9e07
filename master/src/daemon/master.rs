//! Everything a request handler needs, opened once at start: the key store
//! and the master's own keys, the local root token, the minion data cache,
//! the job cache, the replay guard, and the queue to the PUB socket.

use super::config::MasterConfig;
use super::jobs::{JobCache, JobCacheError};
use super::minion_cache::{CacheError, MinionCache};
use super::publisher::JidGen;
use crate::keys::{self, KeyStore, KeyStoreError};
use brine_protocol::crypto::{KeyPair, ReplayGuard};
use std::sync::Mutex;
use tokio::sync::mpsc;

/// How old (or, with clock skew, how far in the future) a request may be.
pub const REPLAY_WINDOW_MS: u64 = 5 * 60 * 1000;
pub const REPLAY_SKEW_MS: u64 = 60 * 1000;
/// Most request nonces remembered in the window (fail closed beyond).
pub const REPLAY_CAPACITY: usize = 2_000_000;

#[derive(Debug, thiserror::Error)]
pub enum DaemonError {
    #[error("{0}")]
    Config(#[from] super::config::ConfigError),
    #[error("key store: {0}")]
    Keys(#[from] KeyStoreError),
    #[error(transparent)]
    Cache(#[from] CacheError),
    #[error(transparent)]
    Jobs(#[from] JobCacheError),
    #[error(transparent)]
    Transport(#[from] brine_protocol::transport::TransportError),
    #[error("tokio runtime: {0}")]
    Runtime(std::io::Error),
}

/// The frames waiting for the PUB socket.
pub type PublishQueue = mpsc::UnboundedReceiver<Vec<u8>>;

#[derive(Debug)]
pub struct Master {
    pub config: MasterConfig,
    pub keys: KeyStore,
    pub key: KeyPair,
    pub token: String,
    pub cache: MinionCache,
    pub jobs: JobCache,
    pub jids: JidGen,
    pub(super) replay: Mutex<ReplayGuard>,
    pub(super) publish: mpsc::UnboundedSender<Vec<u8>>,
}

impl Master {
    /// Create what is missing (pki_dir and key pair, cachedir and root
    /// token, caches) and open the rest.
    pub fn open(config: MasterConfig) -> Result<(Master, PublishQueue), DaemonError> {
        let store = KeyStore::create(&config.pki_dir)?;
        let key = store.master_keys()?;
        let token = keys::load_or_create_root_token(&config.cachedir)?;
        let cache = MinionCache::open(&config.minion_cache_dir())?;
        let jobs = JobCache::open(&config.job_db())?;
        let (tx, rx) = mpsc::unbounded_channel();
        Ok((
            Master {
                config,
                keys: store,
                key,
                token,
                cache,
                jobs,
                jids: JidGen::default(),
                replay: Mutex::new(ReplayGuard::new(
                    REPLAY_WINDOW_MS,
                    REPLAY_SKEW_MS,
                    REPLAY_CAPACITY,
                )),
                publish: tx,
            },
            rx,
        ))
    }
}
