//! What a minion runs: its grains, its execution modules and its states.
//!
//! The path of a call: [`context`] (opts, grains, in-memory pillar and the
//! compile source) → [`modules`] (the execution function by
//! `module.function`) → for `state.*` runs, [`state::runtime`] (the
//! requisite runtime over low chunks) → [`state::modules`] (the state
//! modules) → the running dictionary.
//!
//! - [`grains`]: the core grains collected from the system.
//! - [`exec`]: running commands (Salt's `cmd.run` plumbing).
//! - [`jobs`]: the jobs the minion runs, as `saltutil.running` sees them.
//! - [`accounts`]: looking up users and groups.
//! - [`sys`]: the few C-library calls no crate wraps (the only `unsafe`).
//!
//! It knows nothing of sockets: in daemon mode the minion plugs a remote
//! compile source into [`context::CompileSource`].

pub mod accounts;
pub mod context;
pub mod exec;
pub mod grains;
pub mod jobs;
pub mod modules;
pub mod path;
pub mod state;
pub mod sys;
