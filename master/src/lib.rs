//! brine-master's library: the master daemon, its key store and job cache,
//! and what the master-side command-line tools (`brine`, `brine-key`,
//! `brine-run`) share.
//!
//! - [`daemon`]: brine-master itself, transport → auth → dispatch, and what
//!   it serves (pillar, state compiles, files, publications, returns).
//! - [`keys`]: the pki dir: accepted, pending, rejected and denied minion keys
//!   (Salt's `salt-key`).
//! - [`batch`]: which minions run a job now in a batch run (`brine -b`).
//! - [`runners`]: `brine-run`'s runners (Salt's `salt-run`).
//! - [`reactor`]: reactions to the master's events (`reactor:`), a client
//!   of the daemon as Salt's reactor is.
//! - [`eauth`]: who may do what: external auth backends, tokens, Salt's
//!   permission expressions, `publisher_acl` for local users.
//! - [`wheel`]: functions managing the master itself (Salt's wheel:
//!   `key.*`), run in its process.
//! - [`backend`]: where jobs, returns and minion keys live
//!   (`master_job_cache`).
//! - [`postgres`]: the PostgreSQL several masters share (`master_job_cache:
//!   pgjsonb`): options, pool, bounded waits.
//!
//! Compiling is `brine_compile`'s job; the master only calls it.

pub mod alloc;
pub mod api;
pub mod backend;
pub mod batch;
pub mod daemon;
pub mod eauth;
pub mod keys;
pub mod orchestrate;
pub mod postgres;
pub mod reactor;
pub mod runners;
pub mod wheel;
