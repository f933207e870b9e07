//! Salt's wheel: functions that manage the master itself, run in the
//! master's process (by the reactor's `wheel.*` reactions and brine-api).
//! Each wheel module is one file behind one table ([`FUNCTIONS`]): [`key`],
//! the minion keys (Salt's `wheel.key`); [`config`], the master's options;
//! [`minions`], who is connected; [`function`] says what a wheel function
//! is.

pub mod config;
pub mod function;
pub mod key;
pub mod minions;

pub use function::{WheelError, WheelFn};

use crate::daemon::MasterConfig;
use brine_core::args::CallArgs;
use brine_core::Value;

/// Every wheel function, by `module.function`.
pub const FUNCTIONS: &[(&str, WheelFn)] = &[
    ("config.values", config::values),
    ("key.accept", key::accept),
    ("key.delete", key::delete),
    ("key.finger", key::finger),
    ("key.gen_accept", key::gen_accept),
    ("key.list", key::list),
    ("key.list_all", key::list_all),
    ("key.reject", key::reject),
    ("minions.connected", minions::connected),
];

/// Run the wheel function `fun` (`key.accept`).
pub fn run(config: &MasterConfig, fun: &str, call: CallArgs) -> Result<Value, WheelError> {
    match FUNCTIONS.iter().find(|(name, _)| *name == fun) {
        Some((_, f)) => f(config, call),
        None => Err(WheelError::NotAvailable(fun.to_string())),
    }
}
