//! The event socket's frames: a 4-byte big-endian length, then a msgpack
//! body. A peer first says what it wants ([`Hello`]); a subscriber is then
//! sent [`Event`]s, a firer sends them. Every frame is bounded by
//! `max_event_size`, every read by a timeout.

use brine_core::Value;
use serde::{Deserialize, Serialize};
use std::io::{Read, Write};
use std::time::Duration;

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

#[derive(Debug, thiserror::Error)]
pub enum FrameError {
    #[error("the event socket: {0}")]
    Io(#[from] std::io::Error),
    #[error("a frame of {size} bytes is over the {max}-byte limit (max_event_size)")]
    TooLarge { size: usize, max: usize },
    #[error("an unreadable frame: {0}")]
    Decode(#[from] rmp_serde::decode::Error),
    #[error("cannot encode a frame: {0}")]
    Encode(#[from] rmp_serde::encode::Error),
    #[error("timed out after {0:?}")]
    Timeout(Duration),
}

/// `body` encoded as one frame, length first.
pub fn encode<T: Serialize>(body: &T) -> Result<Vec<u8>, FrameError> {
    let mut out = vec![0; 4];
    rmp_serde::encode::write_named(&mut out, body)?;
    let len = u32::try_from(out.len() - 4).map_err(|_| FrameError::TooLarge {
        size: out.len() - 4,
        max: u32::MAX as usize,
    })?;
    out[..4].copy_from_slice(&len.to_be_bytes());
    Ok(out)
}

/// The length a frame's first four bytes announce, checked against `max`.
pub fn announced(head: [u8; 4], max: usize) -> Result<usize, FrameError> {
    let size = u32::from_be_bytes(head) as usize;
    if size > max {
        return Err(FrameError::TooLarge { size, max });
    }
    Ok(size)
}

/// Read one frame's body from a blocking stream (its timeouts set by the
/// caller); `Ok(None)` at a clean end of stream.
pub fn read_blocking<T: serde::de::DeserializeOwned>(
    r: &mut impl Read,
    max: usize,
) -> Result<Option<T>, FrameError> {
    let mut head = [0u8; 4];
    match r.read_exact(&mut head) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => return Ok(None),
        Err(e) => return Err(e.into()),
    }
    let mut body = vec![0; announced(head, max)?];
    r.read_exact(&mut body)?;
    Ok(Some(rmp_serde::from_slice(&body)?))
}

/// Write one frame to a blocking stream.
pub fn write_blocking<T: Serialize>(w: &mut impl Write, body: &T) -> Result<(), FrameError> {
    w.write_all(&encode(body)?)?;
    Ok(())
}

/// Read one frame's body from an async stream within `timeout`;
/// `Ok(None)` at a clean end of stream.
pub async fn read_async<T: serde::de::DeserializeOwned>(
    r: &mut (impl tokio::io::AsyncRead + Unpin),
    max: usize,
    timeout: Duration,
) -> Result<Option<T>, FrameError> {
    use tokio::io::AsyncReadExt;
    let read = async {
        let mut head = [0u8; 4];
        match r.read_exact(&mut head).await {
            Ok(_) => {}
            Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => return Ok(None),
            Err(e) => return Err(FrameError::from(e)),
        }
        let mut body = vec![0; announced(head, max)?];
        r.read_exact(&mut body).await?;
        Ok(Some(rmp_serde::from_slice(&body)?))
    };
    tokio::time::timeout(timeout, read)
        .await
        .map_err(|_| FrameError::Timeout(timeout))?
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_round_trip_and_are_bounded() {
        let e = Event {
            tag: "salt/job/1/new".into(),
            data: Value::Str("x".into()),
        };
        let f = encode(&e).unwrap();
        let back: Event = read_blocking(&mut &f[..], 1024).unwrap().unwrap();
        assert_eq!(back, e);
        assert!(matches!(
            read_blocking::<Event>(&mut &f[..], 3),
            Err(FrameError::TooLarge { .. })
        ));
        assert!(read_blocking::<Event>(&mut &[][..], 10).unwrap().is_none());
        // A frame cut short is an error, not an end.
        assert!(read_blocking::<Event>(&mut &f[..f.len() - 1], 1024).is_err());
        let hello = encode(&Hello::Subscribe).unwrap();
        assert_eq!(
            read_blocking::<Hello>(&mut &hello[..], 64).unwrap(),
            Some(Hello::Subscribe)
        );
    }
}
