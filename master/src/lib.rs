//! brine-master's library: everything that turns trees of SLS files into data.
//!
//! The pipeline, in the order data flows:
//! - [`opts`]: Salt's configuration (defaults + config file) as `opts`.
//! - [`render`]: one SLS/config file → data (`#!jinja|yaml` and friends).
//! - [`matcher`]: does a target expression match a minion (top files, `match.*`).
//! - [`pillar`]: top files + SLS + ext_pillars → one minion's pillar.
//!
//! `brine-call --local` and the master daemon both call into this crate; the
//! compile pipeline lives here and nowhere else.

pub mod keys;
pub mod matcher;
pub mod minion_data;
pub mod opts;
pub mod pillar;
pub mod render;
pub mod roots;
pub mod state;

pub use minion_data::MinionData;
