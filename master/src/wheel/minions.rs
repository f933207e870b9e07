//! Salt's `wheel.minions`: `connected`, the minions connected to the
//! master now, by the presence detection `manage.present` uses.

use super::function::WheelError;
use crate::daemon::minion_cache::MinionCache;
use crate::daemon::presence;
use crate::daemon::MasterConfig;
use brine_core::args::CallArgs;
use brine_core::Value;

pub fn connected(config: &MasterConfig, _call: CallArgs) -> Result<Value, WheelError> {
    let cache = MinionCache::open(&config.minion_cache_dir())
        .map_err(|e| WheelError::Failed(e.to_string()))?;
    Ok(Value::List(
        presence::connected(config.publish_port, &cache, None)
            .into_iter()
            .map(|(id, _)| Value::Str(id))
            .collect(),
    ))
}
