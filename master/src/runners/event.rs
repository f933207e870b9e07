//! Salt's `event` runner: `event.send` fires an event on the master's bus
//! through the event socket in `sock_dir`.

use super::runner::{Answer, Runner, RunnerError};
use crate::daemon::events::client;
use crate::daemon::events::wire::Event;
use crate::daemon::MasterConfig;
use brine_core::sig;
use brine_core::{Map, Value};
use brine_runtime::modules::Params;

pub(super) const FUNCTIONS: &[Runner] = &[Runner {
    name: "send",
    sig: sig!(tag, data = null),
    doc: "Fire TAG with DATA (a mapping) on the master's bus; True when fired.",
    run: |config, p| Box::pin(async move { send(config, p) }),
}];

fn send(config: &MasterConfig, mut p: Params) -> Result<Answer, RunnerError> {
    let tag = p.require_str("tag")?;
    let data = match p.take("data") {
        Some(Value::Map(m)) => m,
        _ => Map::default(),
    };
    p.finish()?;
    let ev = Event {
        tag,
        data: Value::Map(data),
    };
    client::fire(&config.sock_dir, &[ev])
        .map_err(|e| RunnerError::Failed(format!("event.send: {e}")))?;
    Ok(Answer::data(Value::Bool(true)))
}
