//! brine-minion's library: grains, execution functions, outputters, and the
//! `brine-call` front end.
//!
//! Pipeline of a call: [`args`] (command line → args/kwargs) →
//! [`context`] (opts, grains, in-memory pillar) → [`modules`] (the
//! execution function) → [`output`] (the return, printed).

/// Command-line arguments as Salt reads them; shared with the `brine` CLI.
pub use brine_master::args;
pub mod call;
pub mod context;
pub mod daemon;
pub mod exec;
pub mod grains;
pub mod logging;
pub mod modules;
/// Salt's outputters; shared with the `brine` CLI and `brine-run`.
pub use brine_master::output;
pub mod state;
