//! The minion daemon (`brine-minion`): Salt's minion over brine's wire.
//!
//! Life of one identity (one minion id):
//! 1. keys: `pki_dir/minion.key` made on first start ([`keys`]);
//! 2. auth: signed `Auth` with grains and `pillarenv`, retried every
//!    `acceptance_wait_time` while pending; the master key is pinned on
//!    acceptance and a changed one is refused ([`auth`]);
//! 3. pillar: fetched from the master and kept in memory ([`pillar`]);
//!    then the start events fire on the master's bus ([`start_events`])
//!    and the scheduler starts ([`scheduler`]: the `schedule:` jobs, the
//!    mine's update among them);
//! 4. jobs: publications verified against the pinned key, replay-checked,
//!    target-matched, run on a blocking thread ([`jobs`]) — or, for what
//!    changes the host under `multiprocessing: True`, in a process of
//!    their own that outlives the daemon ([`job_process`] the daemon's
//!    side, [`job_main`] what runs in it);
//! 5. returns: persisted under `cachedir` until the master acknowledges
//!    them, resent across master restarts ([`returns`]).
//!
//! What reads the trees is the master's: the minion's `CompileSource` is
//! [`remote::Remote`] (pillar compiles, state compiles, Hiera lookups,
//! `salt://` files through [`fileclient`]); functions run on the minion.
//!
//! Every identity shares one ret-port connection ([`link`]) and one
//! subscription per master; [`identities`] builds them (one, or a swarm of
//! many in one process). Several masters ([`masters`]): a session (link, subscription,
//! identities) per master served, all at once or one at a time.
//! Everything runs on one current-thread tokio runtime; execution functions
//! (which block) run on tokio's blocking threads.

//!
//! `brine-call` through the master uses the same parts for one call
//! ([`caller`]); the functions that act on the running minion
//! (`schedule.*`, `event.fire`) it hands to the daemon over the minion's
//! own bus ([`local_bus`]), which the daemon serves in `sock_dir`.
//!
//! The parts, one job each: [`config`] (options and command line),
//! [`client`] (an identity's requests to the master), [`identity`] (one
//! minion id and where it stands), [`shared`] (what a master's identities
//! share), [`session`] (one master's session, its stop), [`process`] (the
//! process and its runtime). This file only wires them.

pub mod auth;
pub mod caller;
pub mod client;
pub mod config;
pub mod fileclient;
pub mod identities;
pub mod identity;
pub mod job_main;
pub mod job_process;
pub mod jobs;
pub mod keys;
pub mod link;
pub mod local_bus;
pub mod masters;
pub mod pillar;
pub mod process;
pub mod queue;
pub mod remote;
pub mod returns;
pub mod running;
pub mod scheduler;
pub mod session;
pub mod shared;
pub mod start_events;
#[cfg(test)]
pub(crate) mod testutil;

pub use client::{Admission, AuthSignal, MasterClient, RequestError};
pub use config::{
    command, from_matches, DaemonArgs, DaemonConfig, DaemonError, EX_CONFIG, EX_MASTER_KEY,
    EX_NOPERM,
};
pub use identities::make_identity;
pub use identity::{Identity, Standing};
pub use process::main;
pub use session::{drain, open_session, resolve, wait_for_end, Process, Session};
pub use shared::Shared;
