//! brine-master, the daemon: the transport → auth → dispatch chain and what
//! it serves.
//!
//! - [`config`]: the master's settings from `CONFDIR/master`.
//! - [`server`]: PUB and ROUTER sockets, the event loop, clean shutdown.
//! - [`lanes`]: received requests wait for a worker, compiles apart.
//! - [`dispatch`]: one frame → verify signer and freshness → handler.
//! - [`freshness`]: requests stamped before the master started, or seen
//!   before, are refused; nonces kept per known requester.
//! - [`auth`]: Salt's key acceptance; caches the grains of accepted minions.
//! - [`minion_cache`]: grains and last pillar per minion (targeting, compiles).
//! - [`pillar`], [`states`], [`fileserver`], [`hiera`]: what minions ask
//!   for, sealed to them.
//! - [`mine`]: the mine's entries, and `mine.get` over them.
//! - [`functions`]: what templates rendered here call (`mine.get` from
//!   the mine).
//! - [`git_updates`]: gitfs and git_pillar fetched every interval.
//! - [`replay`]: a pillar given again while nothing it was compiled from
//!   changed.
//! - [`state_replay`]: compiled states sent again, likewise.
//! - [`publisher`]: jids, expected minions, per-minion `pillar=` secrets.
//! - [`session`]: the key publications are encrypted with, rotated when a
//!   minion holding it is deleted or rejected.
//! - [`jobs`]: the job cache (SQLite, or PostgreSQL shared by masters).
//! - [`arrivals`]: returns as they land, which a CLI waiting for them
//!   sleeps on.
//! - [`events`]: the event bus, its tags, and the local event socket.
//! - [`presence`]: which minions are connected; `salt/presence/*`.
//! - [`client`]: the local client the CLI uses.

pub mod arrivals;
pub mod auth;
pub mod client;
pub mod config;
pub mod dispatch;
pub mod events;
pub mod fileserver;
pub mod freshness;
pub mod functions;
pub mod git_updates;
pub mod hiera;
pub mod jobs;
pub mod lanes;
pub mod master;
pub mod mine;
pub mod minion_cache;
pub mod pillar;
pub mod presence;
pub mod publisher;
pub mod replay;
pub mod server;
pub mod session;
pub mod state_replay;
pub mod states;

pub use config::MasterConfig;
pub use master::{DaemonError, Master};
pub use server::{Bound, Running};
