//! The event socket from a local tool: subscribe and read events
//! (`brine-run state.event`, tests), or fire some (`brine-key`,
//! `brine-run`'s `salt/run/...` events). Blocking, with timeouts.

use super::wire::{self, Event, FrameError, Hello};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// How long connecting and the subscription's acknowledgement may take.
const HELLO_TIMEOUT: Duration = Duration::from_secs(10);

#[derive(Debug, thiserror::Error)]
pub enum EventClientError {
    #[error("cannot reach the master's event socket {path}: {source} (is brine-master running with this config?)")]
    Connect {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("the master's event socket {path}: {source}")]
    Frame { path: PathBuf, source: FrameError },
    #[error("the master refused the subscription (too many subscribers?)")]
    Refused,
}

fn connect(sock_dir: &Path) -> Result<(UnixStream, PathBuf), EventClientError> {
    let path = sock_dir.join(wire::SOCKET_NAME);
    let stream = UnixStream::connect(&path).map_err(|source| EventClientError::Connect {
        path: path.clone(),
        source,
    })?;
    Ok((stream, path))
}

/// A subscription to every event the master fires from now on.
pub struct Listener {
    stream: UnixStream,
    path: PathBuf,
    max: usize,
    closed: bool,
}

impl Listener {
    /// Subscribe; returns once the master has counted this subscriber in.
    pub fn open(sock_dir: &Path, max_event_size: usize) -> Result<Listener, EventClientError> {
        let (mut stream, path) = connect(sock_dir)?;
        let frame_err = |source| EventClientError::Frame {
            path: path.clone(),
            source,
        };
        let io = |e: std::io::Error| frame_err(FrameError::Io(e));
        stream.set_write_timeout(Some(HELLO_TIMEOUT)).map_err(io)?;
        stream.set_read_timeout(Some(HELLO_TIMEOUT)).map_err(io)?;
        wire::write_blocking(&mut stream, &Hello::Subscribe).map_err(frame_err)?;
        match wire::read_blocking::<Hello>(&mut stream, 256).map_err(frame_err)? {
            Some(Hello::Subscribe) => {}
            _ => return Err(EventClientError::Refused),
        }
        Ok(Listener {
            stream,
            path,
            max: max_event_size,
            closed: false,
        })
    }

    /// The next event, waiting at most `timeout` for it to begin (`None`:
    /// forever). `Ok(None)`: the wait ended, or the master closed the
    /// socket ([`Listener::closed`] tells which).
    pub fn next(&mut self, timeout: Option<Duration>) -> Result<Option<Event>, EventClientError> {
        use std::io::Read;
        let path = &self.path;
        let frame_err = |source| EventClientError::Frame {
            path: path.clone(),
            source,
        };
        let io = |e: std::io::Error| FrameError::Io(e);
        self.stream
            .set_read_timeout(timeout)
            .map_err(|e| frame_err(io(e)))?;
        let mut first = [0u8; 1];
        match self.stream.read(&mut first) {
            Ok(0) => {
                self.closed = true;
                return Ok(None);
            }
            Ok(_) => {}
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) =>
            {
                return Ok(None)
            }
            Err(e) => return Err(frame_err(io(e))),
        }
        // A frame has begun: the rest follows at once.
        self.stream
            .set_read_timeout(Some(HELLO_TIMEOUT))
            .map_err(|e| frame_err(io(e)))?;
        let mut rest = (&first[..]).chain(&mut self.stream);
        match wire::read_blocking::<Event>(&mut rest, self.max) {
            Ok(Some(e)) => Ok(Some(e)),
            Ok(None) => {
                self.closed = true;
                Ok(None)
            }
            Err(e) => Err(frame_err(e)),
        }
    }

    /// Whether the master closed the socket (it stopped, or cut this
    /// subscriber for falling behind).
    pub fn closed(&self) -> bool {
        self.closed
    }
}

/// Fire `events` on the master's bus.
pub fn fire(sock_dir: &Path, events: &[Event]) -> Result<(), EventClientError> {
    let (mut stream, path) = connect(sock_dir)?;
    let frame_err = |source| EventClientError::Frame {
        path: path.clone(),
        source,
    };
    stream
        .set_write_timeout(Some(HELLO_TIMEOUT))
        .map_err(|e| frame_err(FrameError::Io(e)))?;
    stream
        .set_read_timeout(Some(HELLO_TIMEOUT))
        .map_err(|e| frame_err(FrameError::Io(e)))?;
    wire::write_blocking(&mut stream, &Hello::Fire).map_err(frame_err)?;
    for e in events {
        wire::write_blocking(&mut stream, e).map_err(frame_err)?;
        // On the bus once acknowledged.
        match wire::read_blocking::<Hello>(&mut stream, 256).map_err(frame_err)? {
            Some(Hello::Fire) => {}
            _ => {
                return Err(frame_err(FrameError::Io(
                    std::io::ErrorKind::UnexpectedEof.into(),
                )))
            }
        }
    }
    Ok(())
}
