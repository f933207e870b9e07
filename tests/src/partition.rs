//! A TCP relay the test controls, standing between a minion and its master
//! on 127.0.0.1: while cut, it moves no byte either way and leaves every
//! connection open (a new one is taken and left silent), as a network
//! partition does to packets; when healed, what waited flows on. Bounded:
//! at most [`MAX_CONNECTIONS`] connections, loopback only, stopped on drop.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// The most connections one relay carries (a minion makes a few).
pub const MAX_CONNECTIONS: usize = 64;

pub struct Relay {
    pub addr: SocketAddr,
    cut: Arc<AtomicBool>,
    stop: Arc<AtomicBool>,
}

impl Relay {
    /// Relay 127.0.0.1:`port` (0: any free port) to `to`.
    pub fn start(port: u16, to: SocketAddr) -> Relay {
        let listener = TcpListener::bind(("127.0.0.1", port)).expect("relay port");
        listener.set_nonblocking(true).expect("nonblocking");
        let addr = listener.local_addr().expect("relay address");
        let cut = Arc::new(AtomicBool::new(false));
        let stop = Arc::new(AtomicBool::new(false));
        let (c, s) = (cut.clone(), stop.clone());
        let open = Arc::new(AtomicUsize::new(0));
        std::thread::spawn(move || {
            while !s.load(Ordering::Acquire) {
                match listener.accept() {
                    // Two pumps per connection, each counted.
                    Ok((inbound, _)) if open.load(Ordering::Acquire) < 2 * MAX_CONNECTIONS => {
                        let Ok(outbound) = TcpStream::connect_timeout(&to, Duration::from_secs(5))
                        else {
                            continue;
                        };
                        open.fetch_add(2, Ordering::AcqRel);
                        let _ = inbound.set_nonblocking(false);
                        for (from, into) in [
                            (inbound.try_clone(), outbound.try_clone()),
                            (outbound.try_clone(), inbound.try_clone()),
                        ] {
                            if let (Ok(from), Ok(into)) = (from, into) {
                                let (c, s, open) = (c.clone(), s.clone(), open.clone());
                                std::thread::spawn(move || pump(from, into, &c, &s, &open));
                            }
                        }
                    }
                    Ok(_) => {}
                    Err(_) => std::thread::sleep(Duration::from_millis(20)),
                }
            }
        });
        Relay { addr, cut, stop }
    }

    /// Stop moving bytes (connections stay open).
    pub fn cut(&self) {
        self.cut.store(true, Ordering::Release);
    }

    /// Move bytes again.
    pub fn heal(&self) {
        self.cut.store(false, Ordering::Release);
    }
}

impl Drop for Relay {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Release);
    }
}

/// Copy `from` → `into` while not cut; hold still while cut.
fn pump(
    mut from: TcpStream,
    mut into: TcpStream,
    cut: &AtomicBool,
    stop: &AtomicBool,
    open: &AtomicUsize,
) {
    let _ = from.set_read_timeout(Some(Duration::from_millis(100)));
    let mut buf = vec![0u8; 64 * 1024];
    while !stop.load(Ordering::Acquire) {
        if cut.load(Ordering::Acquire) {
            std::thread::sleep(Duration::from_millis(50));
            continue;
        }
        match from.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => {
                if into.write_all(&buf[..n]).is_err() {
                    break;
                }
            }
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) => {}
            Err(_) => break,
        }
    }
    let _ = into.shutdown(std::net::Shutdown::Both);
    open.fetch_sub(1, Ordering::AcqRel);
}
