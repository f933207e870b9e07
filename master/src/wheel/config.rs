//! Salt's `wheel.config`: `values`, the master's options as it runs with
//! them (every key it read, defaults included), which web consoles read
//! their own settings from (SaltGUI's `saltgui_*`).

use super::function::WheelError;
use crate::daemon::MasterConfig;
use brine_core::args::CallArgs;
use brine_core::Value;

pub fn values(config: &MasterConfig, _call: CallArgs) -> Result<Value, WheelError> {
    Ok(Value::Map(config.opts.clone()))
}
