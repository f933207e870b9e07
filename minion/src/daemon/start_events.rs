//! The events a minion fires on its master's bus when it has joined it
//! (Salt's `minion_start` and `salt/minion/<id>/start`, the data "Minion
//! <id> started at <asctime>"), as Salt's minion fires them after each
//! connection. Reactors start from them (`salt/minion/*/start`).

use super::identity::Identity;
use brine_core::Value;
use brine_protocol::messages::{MinionEvent, ReplyBody, RequestBody};
use std::time::Duration;

const TIMEOUT: Duration = Duration::from_secs(30);

/// Fire both start events for `ident` (a failure is logged: the minion
/// serves its jobs all the same).
pub async fn fire(ident: &Identity) {
    let id = ident.id().to_string();
    let data = Value::Str(format!(
        "Minion {id} started at {}",
        brine_host::time::asctime_now()
    ));
    let ts = brine_host::time::now_micros() / 1_000_000;
    for tag in [
        "minion_start".to_string(),
        format!("salt/minion/{id}/start"),
    ] {
        let body = RequestBody::Event(MinionEvent {
            id: id.clone(),
            tag: tag.clone(),
            data: data.clone(),
            ts,
        });
        match ident.client.request_sealed(body, TIMEOUT).await {
            Ok((_, ReplyBody::Ack)) => {}
            Ok(_) => tracing::warn!("{id}: the master answered the event {tag} oddly"),
            Err(e) => tracing::warn!("{id}: the event {tag} was not sent: {e}"),
        }
    }
}
