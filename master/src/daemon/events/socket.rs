//! The local subscription point: a Unix socket in `sock_dir`
//! ([`super::wire::SOCKET_NAME`]), the socket file mode 0600 in a 0700
//! folder, and every peer's credentials checked on accept: only the
//! master's user (or root) is answered. A peer then says what it wants:
//! to be sent every event (`state.event`, tools), or to fire events
//! (`brine-key`, `brine-run`). Subscribers are bounded by the bus, firers
//! by [`MAX_FIRERS`]; the first frame must come within the handshake
//! timeout, a firer's next within the idle timeout, and a subscriber that
//! does not take a frame within the message timeout is dropped.

use super::bus::EventBus;
use super::wire::{self, Event, FrameError, Hello};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;
use tokio::io::AsyncWriteExt;
use tokio::net::{UnixListener, UnixStream};

/// Most connections firing events at once.
pub const MAX_FIRERS: usize = 64;

/// The socket's timeouts.
#[derive(Debug, Clone, Copy)]
pub struct SocketTimeouts {
    /// For a peer's first frame.
    pub hello: Duration,
    /// Between a firer's frames.
    pub idle: Duration,
    /// For a subscriber to take one frame.
    pub write: Duration,
}

pub use brine_protocol::local::SocketError;

/// Bind the event socket in `sock_dir`.
pub fn bind(sock_dir: &Path) -> Result<(UnixListener, PathBuf), SocketError> {
    brine_protocol::local::bind_private(sock_dir, wire::SOCKET_NAME)
}

/// Accept peers until the task is dropped.
pub async fn serve(listener: UnixListener, bus: Arc<EventBus>, timeouts: SocketTimeouts) {
    let firers = Arc::new(tokio::sync::Semaphore::new(MAX_FIRERS));
    loop {
        let stream = brine_protocol::local::accept_trusted(&listener, "event socket").await;
        let bus = bus.clone();
        let firers = firers.clone();
        tokio::spawn(async move {
            if let Err(e) = peer(stream, &bus, &firers, timeouts).await {
                tracing::debug!("event socket peer: {e}");
            }
        });
    }
}

async fn peer(
    mut stream: UnixStream,
    bus: &EventBus,
    firers: &tokio::sync::Semaphore,
    t: SocketTimeouts,
) -> Result<(), FrameError> {
    let max = bus.limits().max_event_size;
    let Some(hello) = wire::read_async::<Hello>(&mut stream, 256, t.hello).await? else {
        return Ok(());
    };
    match hello {
        Hello::Subscribe => {
            let mut sub = match bus.subscribe("the event socket") {
                Ok(s) => s,
                Err(e) => {
                    tracing::warn!("event socket: refused a subscriber: {e}");
                    return Ok(());
                }
            };
            let (mut rd, mut wr) = stream.into_split();
            // Subscribed: the peer may now cause what it waits for.
            let ack = wire::encode(&Hello::Subscribe)?;
            tokio::time::timeout(t.write, wr.write_all(&ack))
                .await
                .map_err(|_| FrameError::Timeout(t.write))??;
            let mut probe = [0u8; 1];
            loop {
                tokio::select! {
                    f = sub.next() => {
                        let Some(frame) = f else {
                            return Ok(());
                        };
                        tokio::time::timeout(t.write, wr.write_all(&frame))
                            .await
                            .map_err(|_| FrameError::Timeout(t.write))??;
                    }
                    // A subscriber says nothing more: any read ends it.
                    _ = tokio::io::AsyncReadExt::read(&mut rd, &mut probe) => return Ok(()),
                }
            }
        }
        Hello::Fire => {
            let Ok(_turn) = firers.try_acquire() else {
                tracing::warn!("event socket: {MAX_FIRERS} peers already firing; refused one");
                return Ok(());
            };
            // Each event is acknowledged once on the bus: a firer's events
            // keep their order, and the next firer's come after them.
            let ack = wire::encode(&Hello::Fire)?;
            while let Some(e) = wire::read_async::<Event>(&mut stream, max, t.idle).await? {
                bus.fire_value(&e.tag, e.data);
                tokio::time::timeout(t.write, stream.write_all(&ack))
                    .await
                    .map_err(|_| FrameError::Timeout(t.write))??;
            }
            Ok(())
        }
    }
}
