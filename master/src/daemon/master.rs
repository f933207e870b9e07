//! Everything a request handler needs, opened once at start: the key store
//! and the master's own keys, the local root token, the minion data cache,
//! the job cache, request freshness, and the queue to the PUB socket.

use super::arrivals::Arrivals;
use super::config::MasterConfig;
use super::events::bus::EventBus;
use super::fileserver::FileCache;
use super::freshness::Freshness;
use super::jobs::{JobCache, JobCacheError};
use super::mine::Mine;
use super::minion_cache::{CacheError, MinionCache};
use super::publisher::JidGen;
use super::session::{Session, SessionError};
use crate::backend::Backend;
use crate::eauth::caller::Access;
use crate::keys::postgres::PgKeys;
use crate::keys::{self, KeyStore, KeyStoreError};
use crate::postgres::{Pg, PgError};
use brine_compile::minion_data::Functions;
use brine_protocol::crypto::{KeyPair, Nonce, RequestKeys};
use std::sync::Arc;
use tokio::sync::mpsc;

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
    #[error(transparent)]
    Session(#[from] SessionError),
    #[error(transparent)]
    Pg(#[from] PgError),
    #[error("tokio runtime: {0}")]
    Runtime(std::io::Error),
    #[error(transparent)]
    EventSocket(#[from] super::events::socket::SocketError),
    #[error("cannot draw this master's instance id: {0}")]
    Instance(#[from] brine_protocol::crypto::CryptoError),
}

/// The frames waiting for the PUB socket.
pub type PublishQueue = mpsc::UnboundedReceiver<Vec<u8>>;

#[derive(Debug)]
pub struct Master {
    pub config: MasterConfig,
    pub keys: KeyStore,
    pub key: KeyPair,
    pub token: String,
    pub cache: Arc<MinionCache>,
    pub jobs: Arc<JobCache>,
    pub jids: JidGen,
    pub(super) freshness: Freshness,
    /// This process among the masters sharing the master key: minions
    /// name it in their requests, and requests naming another are refused
    /// (see [`brine_protocol::messages::Request::to`]).
    pub(super) instance: Nonce,
    /// The decompressed keys of signers found to be accepted minions.
    pub(super) verifiers: brine_protocol::crypto::Verifiers,
    /// Where accepted minions' request keys come from.
    pub(super) request_keys: RequestKeys,
    /// The key publications are encrypted with.
    pub session: Session,
    pub(super) publish: mpsc::UnboundedSender<Vec<u8>>,
    /// Stored returns, for CLIs waiting on them.
    pub(super) arrivals: Arrivals,
    /// The file server's hashes and listings.
    pub(super) files: FileCache,
    /// The event bus.
    pub events: Arc<EventBus>,
    /// The mine's entries (in the job backend).
    pub mine: Arc<Mine>,
    /// What `salt[...]` calls in the templates this master renders.
    pub functions: Functions,
    /// How fast one address may file new pending ids.
    pub(super) pending_rate: super::auth::PendingRate,
    /// Who the CLI's requests are and what they may publish
    /// (`publisher_acl`, eauth tokens).
    pub access: Access,
}

impl Master {
    /// Create what is missing (pki_dir and key pair, cachedir and root
    /// token, caches) and open the rest.
    pub fn open(config: MasterConfig) -> Result<(Master, PublishQueue), DaemonError> {
        let store = KeyStore::create(&config.pki_dir)?.with_max_pending(config.max_pending_keys);
        // One pool for keys and jobs when they are shared.
        let (store, jobs) = match &config.job_cache {
            Backend::Sqlite(path) => (store, JobCache::open(path)?),
            Backend::Postgres(opts) => {
                let pg = Arc::new(Pg::connect(opts)?);
                let keys = PgKeys::open(pg.clone())?;
                (store.shared_in(keys), JobCache::on_postgres(pg)?)
            }
        };
        let key = store.master_keys()?;
        let token = keys::load_or_create_root_token(&config.cachedir)?;
        let access = Access::open(
            &config.opts,
            &config.cachedir,
            &config.sock_dir,
            token.clone(),
        );
        let cache = Arc::new(MinionCache::open(&config.minion_cache_dir())?);
        let jobs = Arc::new(jobs);
        let (tx, rx) = mpsc::unbounded_channel();
        let window_ms = u64::try_from(config.replay_window.as_millis()).unwrap_or(u64::MAX);
        let freshness = Freshness::new(brine_protocol::crypto::now_ms(), window_ms);
        let arrivals = Arrivals::new(config.worker_threads);
        let jids = JidGen::new(brine_compile::opts::get_bool(
            &config.opts,
            "utc_jid",
            false,
        ));
        let events = Arc::new(EventBus::new(config.events));
        let mine = Arc::new(Mine::new(
            store.clone(),
            cache.clone(),
            jobs.clone(),
            Arc::new(config.opts.clone()),
        ));
        let functions = super::functions::for_templates(mine.clone());
        let pending_rate = super::auth::PendingRate::new(config.pending_key_rate);
        Ok((
            Master {
                access,
                pending_rate,
                events,
                mine,
                functions,
                arrivals,
                files: FileCache::default(),
                config,
                keys: store,
                key,
                token,
                cache,
                jobs,
                jids,
                freshness,
                instance: brine_protocol::crypto::random_nonce()?,
                verifiers: Default::default(),
                request_keys: RequestKeys::generate()?,
                session: Session::new()?,
                publish: tx,
            },
            rx,
        ))
    }
}
