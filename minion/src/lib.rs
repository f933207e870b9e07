//! brine-minion's library: grains, execution functions, outputters, and the
//! `brine-call` front end.
//!
//! Pipeline of a call: [`args`] (command line → args/kwargs) →
//! [`context`] (opts, grains, in-memory pillar) → [`modules`] (the
//! execution function) → [`output`] (the return, printed).

pub mod args;
pub mod call;
pub mod context;
pub mod daemon;
pub mod exec;
pub mod grains;
pub mod logging;
pub mod modules;
pub mod output;
pub mod state;
