//! Salt's states: low chunks in, Salt's running dictionary out.
//!
//! - [`engine`]: the requisite engine: each chunk evaluated and run once,
//!   requisites depth-first before it, failure propagation, loops.
//! - [`modules`]: the state modules (`test`, `file`, `cmd`, `pkg`, `user`,
//!   `group`, `service`), each a table of function descriptors.
//! - [`function`]: a state function's descriptor and what it runs with:
//!   [`StateModule`], [`StateFunction`], [`StateCall`], [`StateReturn`].
//! - [`fileclient`]: `salt://` sources, resolved in `file_roots` (or fetched
//!   from the master by the daemon).
//! - [`outcome`]: whether a running dictionary succeeded (Salt's
//!   `check_result`), for a run's exit code and an orchestration step.

pub mod engine;
pub mod fileclient;
pub mod function;
pub mod modules;
pub mod outcome;
pub mod posixpath;
pub mod random;
#[cfg(any(test, feature = "replay"))]
pub mod replay;

pub use function::{
    raised, MinionCalls, MinionFunctions, StateCall, StateContext, StateFunction, StateModule,
    StateReturn,
};
