//! The event bus over HTTP, as salt-api serves it: `GET /events`, the
//! master's events as server-sent events (`tag:` and `data:` lines, the
//! data `{tag, data}` in JSON), one subscription to the master's event
//! socket per stream; and `POST /hook/<path>` (`webhook_url`), a request
//! turned into the event `salt/netapi/hook/<path>` with its `body`,
//! parsed `post` data and `headers`, which the reactor sees.
//!
//! Bounded: at most [`MAX_STREAMS`] streams at once; a stream whose
//! reader falls [`STREAM_BUFFER`] events or [`STREAM_BYTES`] bytes behind
//! is cut (at most 64 × 1 MiB held for readers that do not read; the master
//! cuts a subscriber that falls behind its own buffer); a stream ends when
//! its token expires or is logged out.

use crate::daemon::events::client::{fire, Listener};
use crate::daemon::events::wire::Event;
use brine_core::{Map, Value};
use std::path::PathBuf;
use std::time::Duration;

/// Event streams served at once.
pub const MAX_STREAMS: usize = 64;
/// Events waiting for one stream's reader before it is cut.
pub const STREAM_BUFFER: usize = 256;
/// Bytes waiting for one stream's reader before it is cut (one event
/// larger than this still goes to a reader that has caught up).
pub const STREAM_BYTES: usize = 1 << 20;

/// The bytes a stream holds for its reader: added by [`pump`], taken
/// off as the HTTP body sends them.
pub type Queued = std::sync::Arc<std::sync::atomic::AtomicUsize>;

/// How often a quiet stream looks at its token (and whether its reader
/// is gone).
const QUIET_CHECK: Duration = Duration::from_secs(1);

/// One event as an SSE record.
pub fn sse_record(e: &Event) -> String {
    // In salt-api's order: data, then tag.
    let mut m = Map::default();
    m.insert("data".into(), e.data.clone());
    m.insert("tag".into(), Value::Str(e.tag.clone()));
    // Python's json.dumps, as salt.utils.json writes it.
    let json = brine_core::output::json::dumps(&Value::Map(m), None, false);
    format!("tag: {}\ndata: {json}\n\n", e.tag)
}

/// A subscription to the master's event bus (refused when the bus has no
/// room for another subscriber). Blocking.
pub fn subscribe(sock_dir: PathBuf, max_event_size: usize) -> Result<Listener, String> {
    Listener::open(&sock_dir, max_event_size).map_err(|e| e.to_string())
}

/// Feed `listener`'s events to `tx` until the reader goes, falls behind,
/// `still_valid` says the token is over, or the master closes the socket.
/// Blocking: run it on its own thread.
pub fn pump(
    mut listener: Listener,
    tx: tokio::sync::mpsc::Sender<String>,
    queued: Queued,
    still_valid: impl Fn() -> bool,
) {
    use std::sync::atomic::Ordering;
    let retry = "retry: 400\n";
    queued.fetch_add(retry.len(), Ordering::AcqRel);
    if tx.try_send(retry.into()).is_err() {
        return;
    }
    loop {
        if !still_valid() {
            tracing::debug!("/events: the token is no longer valid; stream ended");
            return;
        }
        if tx.is_closed() {
            return;
        }
        match listener.next(Some(QUIET_CHECK)) {
            Ok(Some(e)) => {
                let record = sse_record(&e);
                let held = queued.load(Ordering::Acquire);
                if held > 0 && held + record.len() > STREAM_BYTES {
                    tracing::warn!(
                        "/events: a reader fell {STREAM_BYTES} bytes behind; its stream is cut"
                    );
                    return;
                }
                queued.fetch_add(record.len(), Ordering::AcqRel);
                match tx.try_send(record) {
                    Ok(()) => {}
                    Err(tokio::sync::mpsc::error::TrySendError::Full(_)) => {
                        tracing::warn!(
                        "/events: a reader fell {STREAM_BUFFER} events behind; its stream is cut"
                    );
                        return;
                    }
                    Err(_) => return,
                }
            }
            Ok(None) if listener.closed() => return,
            Ok(None) => {}
            Err(e) => {
                tracing::warn!("/events: {e}");
                return;
            }
        }
    }
}

/// CherryPy's spelling of a header name (`x-my-key` → `X-My-Key`).
pub fn header_name(name: &str) -> String {
    name.split('-')
        .map(|part| {
            let mut c = part.chars();
            match c.next() {
                Some(f) => f
                    .to_uppercase()
                    .chain(c.flat_map(char::to_lowercase))
                    .collect(),
                None => String::new(),
            }
        })
        .collect::<Vec<String>>()
        .join("-")
}

/// Fire the hook event for `path` (blocking).
pub fn fire_hook(
    sock_dir: &std::path::Path,
    path: &str,
    body: String,
    post: Value,
    headers: Map,
) -> Result<(), String> {
    let tag = format!("salt/netapi/hook/{}", path.trim_matches('/'));
    let mut data = Map::default();
    data.insert("body".into(), Value::Str(body));
    data.insert("post".into(), post);
    data.insert("headers".into(), Value::Map(headers));
    fire(
        sock_dir,
        &[Event {
            tag,
            data: Value::Map(data),
        }],
    )
    .map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_and_header_names_are_salts() {
        let e = Event {
            tag: "salt/job/1/new".into(),
            data: Value::from("x"),
        };
        assert_eq!(
            sse_record(&e),
            "tag: salt/job/1/new\ndata: {\"data\": \"x\", \"tag\": \"salt/job/1/new\"}\n\n"
        );
        assert_eq!(header_name("x-my-secret-key"), "X-My-Secret-Key");
        assert_eq!(header_name("content-type"), "Content-Type");
    }
}
