//! What every request of `brine-api` shares: the configuration, the
//! tokens (the master's store), and the way to the master — its local socket, as `brine` goes,
//! with the root token only the master's user reads (brine-api runs as
//! that user and checks each caller's permissions itself).

use super::config::ApiConfig;
use crate::daemon::client::{Client, ClientError};
use crate::daemon::minion_cache::MinionCache;
use crate::daemon::publisher;
use crate::eauth::tokens::Tokens;
use crate::keys::KeyStore;
use brine_core::Value;

pub struct ApiContext {
    pub cfg: ApiConfig,
    pub tokens: Tokens,
    /// Requests served at once (`thread_pool`).
    pub slots: tokio::sync::Semaphore,
}

impl ApiContext {
    pub fn new(cfg: ApiConfig) -> ApiContext {
        ApiContext {
            slots: tokio::sync::Semaphore::new(cfg.max_requests),
            tokens: Tokens::for_cachedir(&cfg.master.cachedir),
            cfg,
        }
    }

    /// A connection to the master for one request.
    pub fn client(&self) -> Result<Client, ClientError> {
        Client::for_config(&self.cfg.master)
    }

    /// The accepted minions `tgt` selects, as the master would publish
    /// to them (empty when the key store or cache cannot be read).
    pub fn expand(&self, tgt: &Value, tgt_type: &str) -> Vec<String> {
        let m = &self.cfg.master;
        let Ok(keys) = KeyStore::for_config(&m.pki_dir, &m.job_cache) else {
            return Vec::new();
        };
        let Ok(cache) = MinionCache::open(&m.minion_cache_dir()) else {
            return Vec::new();
        };
        publisher::expected_minions(&keys, &cache, &m.opts, tgt, tgt_type).unwrap_or_default()
    }

    /// Whether the master's `netapi_enable_clients` names `client`.
    pub fn client_enabled(&self, client: &str) -> bool {
        match self.cfg.master.opts.get("netapi_enable_clients") {
            Some(Value::List(l)) => l.iter().any(|c| c.as_str() == Some(client)),
            _ => false,
        }
    }
}
