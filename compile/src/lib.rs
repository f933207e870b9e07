//! Salt's compile pipeline: trees of SLS files in, data out.
//!
//! This is the one place brine turns `pillar_roots` and `file_roots` into a
//! minion's pillar and low chunks. `brine-master` calls it for its minions;
//! `brine-call --local` calls it for itself. The pipeline, in the order data
//! flows:
//! - [`opts`]: Salt's configuration (defaults + config file) as `opts`;
//!   [`config_check`] says which of a Salt config's keys brine reads.
//! - [`roots`]: finding SLS files in `file_roots`/`pillar_roots`.
//! - [`file_text`]: their bytes, kept across compiles while unchanged.
//! - [`inputs`]: what a compile read from disk, to tell whether its answer
//!   can be given again.
//! - [`render`]: one SLS/config file → data (`#!jinja|yaml` and friends).
//! - [`matcher`]: does a target expression match a minion (top files, `match.*`).
//! - [`pillar`]: top files + SLS + ext_pillars → one minion's pillar.
//! - [`state`]: top files + SLS → high data → low chunks.
//! - [`request`]: what a minion asks a remote compile for, and the answers.
//! - [`git_remotes`]: gitfs's and git_pillar's remotes fetched and exported
//!   (by the master, `brine-run`, or a masterless minion); [`gitfs_trees`]
//!   and [`pillar::git`] read what they exported.
//!
//! It knows nothing of sockets, keys or running states.

pub mod command;
pub mod config_check;
pub mod envs;
pub mod file_text;
pub mod git_remotes;
pub mod gitfs_trees;
pub mod inputs;
pub mod matcher;
pub mod minion_data;
pub mod opts;
pub mod pillar;
pub mod render;
pub mod request;
pub mod roots;
pub mod sdb;
pub mod state;

pub use minion_data::MinionData;
