//! The host as brine's execution and state modules see it: running
//! commands, finding programs, users and groups, the jobs running now, and
//! the few C-library calls no crate wraps.
//!
//! - [`exec`]: running commands (Salt's `cmd.run` plumbing: argv or shell,
//!   as a user, with a umask, a timeout and an environment).
//! - [`http`]: files over http(s), bounded and verified.
//! - [`path`]: `which` and Python's `os.path` rules.
//! - [`accounts`]: users and groups, from the system or from an `/etc`.
//! - [`jobs`]: the jobs the minion runs, as `saltutil.running` sees them.
//! - [`sys`]: the C-library calls nix does not wrap (the workspace's only
//!   `unsafe`).
//! - [`time`]: job ids and ISO timestamps.
//!
//! It knows nothing of Salt's trees or the wire: the state modules
//! (`brine-states`) and the execution modules (`brine-runtime`) stand on it.

pub mod accounts;
pub mod exec;
pub mod http;
pub mod jobs;
pub mod path;
pub mod sys;
pub mod time;
