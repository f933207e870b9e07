//! What a minion runs: its context, its grains and its execution modules.
//!
//! The path of a call: [`context`] (opts, grains, in-memory pillar and the
//! compile source) → [`modules`] (the execution function by
//! `module.function`) → for `state.*` runs, `brine_states::engine` (the
//! requisite engine over low chunks) → `brine_states::modules` (the state
//! modules) → the running dictionary.
//!
//! - [`grains`]: the core grains collected from the system.
//! - [`schedule`]: the minion's schedule (`schedule:` jobs, when each
//!   runs); the daemon's scheduler runs what it says is due.
//!
//! It knows nothing of sockets: in daemon mode the minion plugs a remote
//! compile source into [`context::CompileSource`]. The host layer
//! (commands, users, the C calls) is `brine_host`.

pub mod context;
pub mod grains;
pub mod modules;
pub mod schedule;
