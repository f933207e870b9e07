//! Local sockets: the Unix sockets in a daemon's `sock_dir` that only its
//! own user (or root) may open — the master's event socket, the minion's
//! own bus. A frame is a 4-byte big-endian length, then a msgpack body;
//! every frame is bounded by the reader's limit, every async read by a
//! timeout. [`bind_private`] makes the folder private and the socket file
//! 0600; [`peer_trusted`] checks a peer's credentials on accept.

use serde::Serialize;
use std::io::{Read, Write};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::time::Duration;
use tokio::net::{UnixListener, UnixStream};

#[derive(Debug, thiserror::Error)]
pub enum FrameError {
    #[error("the local socket: {0}")]
    Io(#[from] std::io::Error),
    #[error("a frame of {size} bytes is over the {max}-byte limit")]
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

#[derive(Debug, thiserror::Error)]
pub enum SocketError {
    #[error("cannot prepare sock_dir {path}: {source}")]
    Dir {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot listen on {path}: {source}")]
    Bind {
        path: PathBuf,
        source: std::io::Error,
    },
}

/// Bind the socket `name` in `sock_dir`: the folder made private (0700),
/// a stale socket from an earlier run replaced, the socket file 0600.
pub fn bind_private(sock_dir: &Path, name: &str) -> Result<(UnixListener, PathBuf), SocketError> {
    let dir_err = |source| SocketError::Dir {
        path: sock_dir.to_path_buf(),
        source,
    };
    std::fs::create_dir_all(sock_dir).map_err(dir_err)?;
    std::fs::set_permissions(sock_dir, std::fs::Permissions::from_mode(0o700)).map_err(dir_err)?;
    let path = sock_dir.join(name);
    let bind_err = |source| SocketError::Bind {
        path: path.clone(),
        source,
    };
    match std::fs::remove_file(&path) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(bind_err(e)),
    }
    let listener = UnixListener::bind(&path).map_err(bind_err)?;
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).map_err(bind_err)?;
    Ok((listener, path))
}

/// The next peer of `listener` running as this process's user or root.
/// Others are refused with a log line naming `what` the socket is; a
/// failed accept (out of descriptors) pauses instead of spinning.
pub async fn accept_trusted(listener: &UnixListener, what: &str) -> UnixStream {
    loop {
        let stream = match listener.accept().await {
            Ok((s, _)) => s,
            Err(e) => {
                tracing::warn!("{what}: accept: {e}");
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        match peer_trusted(&stream) {
            Ok(()) => return stream,
            Err(who) => tracing::warn!("{what}: refused a peer running as {who}"),
        }
    }
}

/// Whether the peer runs as this process's user or as root; who it is
/// when not.
pub fn peer_trusted(stream: &UnixStream) -> Result<(), String> {
    let cred = stream.peer_cred().map_err(|e| e.to_string())?;
    let me = nix::unistd::geteuid().as_raw();
    if cred.uid() == me || cred.uid() == 0 {
        Ok(())
    } else {
        Err(format!("uid {} (pid {:?})", cred.uid(), cred.pid()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, PartialEq, Serialize, serde::Deserialize)]
    struct Body {
        tag: String,
    }

    #[test]
    fn frames_round_trip_and_are_bounded() {
        let b = Body {
            tag: "salt/job/1/new".into(),
        };
        let f = encode(&b).unwrap();
        let back: Body = read_blocking(&mut &f[..], 1024).unwrap().unwrap();
        assert_eq!(back, b);
        assert!(matches!(
            read_blocking::<Body>(&mut &f[..], 3),
            Err(FrameError::TooLarge { .. })
        ));
        assert!(read_blocking::<Body>(&mut &[][..], 10).unwrap().is_none());
        // A frame cut short is an error, not an end.
        assert!(read_blocking::<Body>(&mut &f[..f.len() - 1], 1024).is_err());
    }

    #[tokio::test]
    async fn a_private_socket_is_0600_in_a_0700_folder() {
        let td = tempfile::tempdir().unwrap();
        let dir = td.path().join("sock");
        let (_l, path) = bind_private(&dir, "x.ipc").unwrap();
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&dir), 0o700);
        assert_eq!(mode(&path), 0o600);
        // A second bind replaces the first's file.
        bind_private(&dir, "x.ipc").unwrap();
    }
}
