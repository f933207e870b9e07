//! brine-minion's library: grains, execution functions, outputters, and the
//! `brine-call` front end.

pub mod grains;
pub mod output;
