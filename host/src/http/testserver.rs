//! Servers on 127.0.0.1 for tests of remote sources: [`Http`] serves a
//! folder from a thread of the test (GET and HEAD, 404 for what is not
//! there), [`Https`] runs `openssl s_server -WWW` on a certificate made at
//! test time and stops it by PID. Both stop when dropped.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// A folder served over plain http from a thread.
pub struct Http {
    pub port: u16,
    stop: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Http {
    /// Serve `root` (every path under it) on an ephemeral port.
    pub fn serve(root: &Path) -> std::io::Result<Http> {
        let listener = TcpListener::bind("127.0.0.1:0")?;
        let port = listener.local_addr()?.port();
        let stop = Arc::new(AtomicBool::new(false));
        let flag = stop.clone();
        let root = root.to_path_buf();
        let thread = std::thread::spawn(move || {
            for conn in listener.incoming() {
                if flag.load(Ordering::SeqCst) {
                    break;
                }
                if let Ok(conn) = conn {
                    let _ = answer(conn, &root);
                }
            }
        });
        Ok(Http {
            port,
            stop,
            thread: Some(thread),
        })
    }

    /// `http://127.0.0.1:PORT`
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }
}

impl Drop for Http {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        // Wake the accept loop so it sees the flag.
        let _ = TcpStream::connect(("127.0.0.1", self.port));
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// One request: `GET`/`HEAD` of a file under `root`.
fn answer(conn: TcpStream, root: &Path) -> std::io::Result<()> {
    conn.set_read_timeout(Some(Duration::from_secs(5)))?;
    let mut reader = BufReader::new(conn.try_clone()?.take(64 * 1024));
    let mut first = String::new();
    reader.read_line(&mut first)?;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line)? == 0 || line == "\r\n" || line == "\n" {
            break;
        }
    }
    let mut parts = first.split_whitespace();
    let method = parts.next().unwrap_or_default().to_string();
    let target = parts.next().unwrap_or("/");
    let rel = target.split('?').next().unwrap_or_default();
    let path = root.join(rel.trim_start_matches('/'));
    let mut out = conn;
    let safe = !rel.split('/').any(|c| c == "..");
    match std::fs::read(&path) {
        Ok(body) if safe && path.is_file() => {
            write!(
                out,
                "HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                body.len()
            )?;
            if method != "HEAD" {
                out.write_all(&body)?;
            }
        }
        _ => {
            let body = b"not found\n";
            write!(
                out,
                "HTTP/1.1 404 Not Found\r\nContent-Type: text/plain\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                body.len()
            )?;
            if method != "HEAD" {
                out.write_all(body)?;
            }
        }
    }
    out.flush()
}

/// A folder served over https by `openssl s_server -WWW`, with a
/// self-signed certificate for 127.0.0.1 made at start.
pub struct Https {
    pub port: u16,
    /// The CA certificate that signed the server's (PEM): trust it through
    /// `ca_bundle`.
    pub cert: PathBuf,
    child: Child,
}

impl Https {
    /// Serve `root` over https; `None` when `openssl` cannot be run.
    pub fn serve(root: &Path, tls_dir: &Path) -> Option<Https> {
        std::fs::create_dir_all(tls_dir).ok()?;
        // A CA (what the client trusts) and a leaf for 127.0.0.1 signed by
        // it: a self-signed CA certificate may not serve as a leaf.
        let ca = tls_dir.join("ca.pem");
        let ca_key = tls_dir.join("ca.key");
        let cert = tls_dir.join("cert.pem");
        let key = tls_dir.join("key.pem");
        let csr = tls_dir.join("leaf.csr");
        let ext = tls_dir.join("leaf.ext");
        std::fs::write(
            &ext,
            "subjectAltName=IP:127.0.0.1\nbasicConstraints=CA:FALSE\n",
        )
        .ok()?;
        let run = |args: &[&std::ffi::OsStr]| {
            Command::new("openssl")
                .args(args)
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status()
                .is_ok_and(|s| s.success())
        };
        let os = |s: &'static str| std::ffi::OsStr::new(s);
        let made = run(&[
            os("req"),
            os("-x509"),
            os("-newkey"),
            os("rsa:2048"),
            os("-nodes"),
            os("-days"),
            os("2"),
            os("-subj"),
            os("/CN=brine test CA"),
            os("-keyout"),
            ca_key.as_os_str(),
            os("-out"),
            ca.as_os_str(),
        ]) && run(&[
            os("req"),
            os("-newkey"),
            os("rsa:2048"),
            os("-nodes"),
            os("-subj"),
            os("/CN=127.0.0.1"),
            os("-keyout"),
            key.as_os_str(),
            os("-out"),
            csr.as_os_str(),
        ]) && run(&[
            os("x509"),
            os("-req"),
            os("-in"),
            csr.as_os_str(),
            os("-CA"),
            ca.as_os_str(),
            os("-CAkey"),
            ca_key.as_os_str(),
            os("-CAcreateserial"),
            os("-days"),
            os("2"),
            os("-extfile"),
            ext.as_os_str(),
            os("-out"),
            cert.as_os_str(),
        ]);
        if !made {
            return None;
        }
        let port = TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .ok()?
            .port();
        let child = Command::new("openssl")
            .args(["s_server", "-quiet", "-WWW", "-accept"])
            .arg(format!("127.0.0.1:{port}"))
            .arg("-cert")
            .arg(&cert)
            .arg("-key")
            .arg(&key)
            .current_dir(root)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .ok()?;
        let server = Https {
            port,
            cert: ca,
            child,
        };
        let deadline = Instant::now() + Duration::from_secs(10);
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            if Instant::now() > deadline {
                return None;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        Some(server)
    }

    /// `https://127.0.0.1:PORT`
    pub fn url(&self) -> String {
        format!("https://127.0.0.1:{}", self.port)
    }
}

impl Drop for Https {
    fn drop(&mut self) {
        // Our own child, by its PID.
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A folder served over FTP from a thread (anonymous login, passive mode,
/// `RETR` of a file under it, 550 for what is not there): the `ftp://`
/// sources' tests.
pub struct Ftp {
    pub port: u16,
    stop: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Ftp {
    /// Serve `root` on an ephemeral port.
    pub fn serve(root: &Path) -> std::io::Result<Ftp> {
        let listener = TcpListener::bind("127.0.0.1:0")?;
        let port = listener.local_addr()?.port();
        let stop = Arc::new(AtomicBool::new(false));
        let flag = stop.clone();
        let root = root.to_path_buf();
        let thread = std::thread::spawn(move || {
            for conn in listener.incoming() {
                if flag.load(Ordering::SeqCst) {
                    break;
                }
                if let Ok(conn) = conn {
                    let _ = ftp_session(conn, &root);
                }
            }
        });
        Ok(Ftp {
            port,
            stop,
            thread: Some(thread),
        })
    }

    /// `ftp://127.0.0.1:PORT`
    pub fn url(&self) -> String {
        format!("ftp://127.0.0.1:{}", self.port)
    }
}

impl Drop for Ftp {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        let _ = TcpStream::connect(("127.0.0.1", self.port));
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// One FTP control connection, its commands answered in turn.
fn ftp_session(conn: TcpStream, root: &Path) -> std::io::Result<()> {
    conn.set_read_timeout(Some(Duration::from_secs(5)))?;
    let mut out = conn.try_clone()?;
    let mut reader = BufReader::new(conn.take(64 * 1024));
    out.write_all(b"220 brine test ftp\r\n")?;
    let mut passive: Option<TcpListener> = None;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line)? == 0 {
            return Ok(());
        }
        let line = line.trim_end();
        let (cmd, arg) = line.split_once(' ').unwrap_or((line, ""));
        match cmd.to_ascii_uppercase().as_str() {
            "USER" if arg == "anonymous" => {
                out.write_all(b"331 Please specify the password.\r\n")?
            }
            "USER" => out.write_all(b"530 This FTP server is anonymous only.\r\n")?,
            "PASS" => out.write_all(b"230 Login successful.\r\n")?,
            "TYPE" => out.write_all(b"200 Switching to Binary mode.\r\n")?,
            "PASV" => {
                let l = TcpListener::bind("127.0.0.1:0")?;
                let p = l.local_addr()?.port();
                passive = Some(l);
                out.write_all(
                    format!(
                        "227 Entering Passive Mode (127,0,0,1,{},{}).\r\n",
                        p / 256,
                        p % 256
                    )
                    .as_bytes(),
                )?;
            }
            "RETR" => {
                let path = root.join(arg.trim_start_matches('/'));
                let Some(l) = passive.take() else {
                    out.write_all(b"425 Use PORT or PASV first.\r\n")?;
                    continue;
                };
                match std::fs::read(&path) {
                    Ok(body) if path.is_file() => {
                        out.write_all(b"150 Opening BINARY mode data connection.\r\n")?;
                        let (mut data, _) = l.accept()?;
                        data.write_all(&body)?;
                        drop(data);
                        out.write_all(b"226 Transfer complete.\r\n")?;
                    }
                    _ => out.write_all(b"550 Failed to open file.\r\n")?,
                }
            }
            "QUIT" => {
                out.write_all(b"221 Goodbye.\r\n")?;
                return Ok(());
            }
            _ => out.write_all(b"502 Command not implemented.\r\n")?,
        }
    }
}
