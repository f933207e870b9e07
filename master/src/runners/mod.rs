//! `brine-run`'s runners (Salt's `salt-run`): `cache.*` what the master
//! holds of its minions; `jobs.*` read the master's
//! job cache and ask the minions (`jobs.active`); `manage.*` ping the
//! minions through the master, or read who is connected from the
//! system's TCP table and the minion cache, as Salt's do; `mine.get`
//! reads the mine store; `fileserver.*` lists what the file server
//! serves; `pillar.show_pillar` compiles a pillar; `salt.cmd` runs an
//! execution function on the master; `config.get` reads one of the
//! master's options and `sdb.*` values kept outside the tree;
//! `git_pillar.update` fetches git_pillar's remotes; `state.orchestrate`
//! runs an
//! orchestration (`crate::orchestrate`); `state.event` prints the master's events and
//! `event.send` fires one; `test.*` hand their arguments back. Each answers
//! with Salt's data shape; `brine-run` prints it with the outputter.
//!
//! One file per runner module lists its functions as descriptors
//! ([`runner::Runner`]); [`registry`] is the one table.

pub mod cache;
pub mod config;
pub mod event;
pub mod fileserver;
pub mod git_pillar;
pub mod job;
pub mod jobs;
pub mod manage;
pub mod mine;
pub mod pillar;
pub mod registry;
pub mod runner;
pub mod salt;
pub mod sdb;
pub mod state;
pub mod test;

pub use registry::run;
pub use runner::{Answer, RunnerError};
