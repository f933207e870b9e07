//! One minion id served by this process: its key and master client, its
//! minion (grains, in-memory pillar) as jobs see it, where it stands with
//! the master, its queued returns and its running jobs.

use super::client::MasterClient;
use super::queue::ReturnQueue;
use super::running;
use brine_runtime::context::Minion;
use std::path::PathBuf;
use std::sync::{Arc, RwLock};
use tokio::sync::watch;

/// Where an identity stands with the master.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Standing {
    /// Not yet heard from the master.
    Starting,
    /// Key waiting for acceptance.
    Pending,
    /// Accepted; pillar not fetched yet.
    Accepted,
    /// Accepted with its pillar in memory: jobs run.
    Ready,
}

/// One minion id served by this process.
pub struct Identity {
    pub client: MasterClient,
    pub pki_dir: PathBuf,
    pub cachedir: PathBuf,
    /// The minion as functions see it; each job runs on a snapshot.
    pub minion: RwLock<Arc<Minion>>,
    pub standing: watch::Sender<Standing>,
    pub returns: Arc<ReturnQueue>,
    /// Jobs running now (Salt's proc files): `saltutil.running` data.
    pub running: Arc<running::RunningTable>,
}

impl Identity {
    pub fn id(&self) -> &str {
        &self.client.id
    }

    pub fn snapshot(&self) -> Arc<Minion> {
        match self.minion.read() {
            Ok(g) => g.clone(),
            Err(poisoned) => poisoned.into_inner().clone(),
        }
    }

    /// Replace the in-memory pillar.
    pub fn set_pillar(&self, pillar: brine_core::Map) {
        let mut g = match self.minion.write() {
            Ok(g) => g,
            Err(poisoned) => poisoned.into_inner(),
        };
        let mut m = (**g).clone();
        m.pillar = Arc::new(pillar);
        *g = Arc::new(m);
    }

    /// Replace the grains (a function wrote some).
    pub fn set_grains(&self, grains: Arc<brine_core::Map>) {
        let mut g = match self.minion.write() {
            Ok(g) => g,
            Err(poisoned) => poisoned.into_inner(),
        };
        let mut m = (**g).clone();
        m.grains = grains;
        *g = Arc::new(m);
    }

    pub fn standing(&self) -> Standing {
        *self.standing.borrow()
    }

    /// Ask the auth loop to authenticate again.
    pub fn reauth(&self) {
        self.client.auth.reauth.notify_one();
    }
}
