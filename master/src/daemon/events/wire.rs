//! The event socket's frames: a 4-byte big-endian length, then a msgpack
//! body. A peer first says what it wants ([`Hello`]); a subscriber is then
//! sent [`Event`]s, a firer sends them. Every frame is bounded by
//! `max_event_size`, every read by a timeout.

use brine_core::Value;
pub use brine_protocol::local::{encode, read_async, read_blocking, write_blocking, FrameError};
use serde::{Deserialize, Serialize};

/// Salt's `max_event_size`: the largest event carried, encoded.
pub const DEFAULT_MAX_EVENT_SIZE: usize = 1 << 20;

/// The socket's file name in `sock_dir` (Salt's publisher socket).
pub const SOCKET_NAME: &str = "master_event_pub.ipc";

/// One event: its tag and data, as Salt carries them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Event {
    pub tag: String,
    pub data: Value,
}

/// A peer's first frame.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "want", rename_all = "snake_case")]
pub enum Hello {
    /// Send me every event from now on.
    Subscribe,
    /// The frames that follow are events to fire.
    Fire,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_and_hellos_round_trip() {
        let e = Event {
            tag: "salt/job/1/new".into(),
            data: Value::Str("x".into()),
        };
        let f = encode(&e).unwrap();
        let back: Event = read_blocking(&mut &f[..], 1024).unwrap().unwrap();
        assert_eq!(back, e);
        let hello = encode(&Hello::Subscribe).unwrap();
        assert_eq!(
            read_blocking::<Hello>(&mut &hello[..], 64).unwrap(),
            Some(Hello::Subscribe)
        );
    }
}
