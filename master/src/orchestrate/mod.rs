//! Salt's orchestrate runner: an SLS of orchestration steps compiled and
//! run on the master, by the master's own minion (Salt's `MasterMinion`,
//! id `<host>_master`), with brine's compiler and requisite engine. The
//! steps are the `salt` state module's (`brine_states::modules::salt`);
//! what they ask of the master goes through the minion's `saltutil.cmd`,
//! `saltutil.runner` and `saltutil.wheel`, answered here.
//!
//! - [`minion`]: the master minion (the master's options read as a
//!   minion's, the host's grains, the pillar its top file gives it).
//! - [`calls`]: what its `saltutil` functions ask of the master: jobs
//!   published and gathered through the master's client (a batch at a
//!   time when asked), runners and wheel functions run here, and the
//!   orchestration's `salt/run/<jid>/args` events.
//! - [`run`]: `state.orchestrate` and its siblings (`orchestrate_single`,
//!   `orchestrate_high`, `orchestrate_show_sls`) and their answers.

pub mod calls;
pub mod minion;
pub mod run;

pub use run::{OrchestrateError, Orchestration};
