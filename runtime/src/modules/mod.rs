//! The execution-function registry, Salt's loader in Rust: every function
//! a minion runs by `module.function` name, in one table. `brine-call`,
//! jobs from the master and Jinja's `salt[...]` (through [`functions`]) all
//! call through it, so they cannot disagree.
//!
//! One file per Salt module lists that module's functions, each a
//! descriptor ([`function::Function`]: name, parameters as Salt reports
//! them, docstring, outputter, whether the daemon answers it, the code);
//! [`registry::MODULES`] lists the modules. Adding a function is adding its
//! descriptor to its module's file; adding a module is a file and one line
//! there. This file only wires the parts together.
//!
//! Arguments bind as Salt binds them (`params`: positional and keyword,
//! `__pub_*` publish metadata dropped, Python's wording for what does not
//! fit). Functions that only read the minion's data ([`Function::reads`])
//! answer templates too and hand back borrowed pieces of it
//! ([`Returned`]); those that need the running minion
//! ([`Function::minion`]: fresh compiles, state runs) only answer the
//! command line and jobs.

mod alternatives;
mod archive;
mod cmd;
mod config;
mod cp;
mod cron;
mod defaults;
mod disk;
mod event;
mod file;
pub mod function;
mod git;
mod grains;
mod grains_set;
mod group;
mod hiera;
mod hosts;
mod key;
mod locale;
mod log;
mod match_;
mod mine;
mod mount;
mod network;
mod params;
mod pillar;
mod pip;
mod pkg;
mod proctable;
mod ps;
mod random;
mod registry;
mod run;
mod saltutil;
mod saltutil_master;
mod saltutil_sync;
mod schedule;
mod sdb;
mod service;
mod slsutil;
mod state;
#[cfg(test)]
mod state_replays;
mod state_request;
mod state_run;
mod status;
mod sys;
mod sysctl;
mod test;
#[cfg(test)]
mod testkit;
mod timezone;
mod traverse;
mod user;

pub use function::{CallError, Daemon, Function, Output, Return};
pub use params::{invalid_kwargs, Params};
pub use registry::{all, call, call_from_code, find, functions, MODULES};

#[cfg(test)]
mod tests;
