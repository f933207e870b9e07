//! `ftp://` sources, fetched as Salt's file client fetches them with
//! Python's ftplib: anonymous login unless the URL names a user, binary
//! mode, a passive data connection to the control connection's host, the
//! URL's path without its leading `/`. Bounded like the http fetches: a
//! connect timeout, every read and write within the request timeout, a
//! reply line at most 8 KiB and a reply at most 64 KiB, the body at most
//! the caller's limit.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream, ToSocketAddrs};
use std::time::{Duration, Instant};

/// The bounds of one retrieval (the http fetches' limits, as they apply
/// to ftp).
pub struct Bounds {
    pub connect_timeout: Duration,
    pub request_timeout: Duration,
}

/// Why a retrieval failed: ftplib's exception text, or the body passing
/// the limit.
#[derive(Debug)]
pub enum FtpError {
    Failed(String),
    TooLarge,
}

const MAX_LINE: usize = 8 * 1024;
const MAX_REPLY: usize = 64 * 1024;

/// A URL's parts as Python's urlparse gives them to ftplib.
struct Target {
    host: String,
    port: u16,
    user: String,
    password: String,
    path: String,
}

fn parse(url: &str) -> Result<Target, String> {
    let rest = url
        .split_once("://")
        .map(|(_, r)| r)
        .ok_or_else(|| format!("not a URL: {url}"))?;
    let (netloc, path) = rest.split_once('/').unwrap_or((rest, ""));
    let (creds, hostport) = netloc
        .rsplit_once('@')
        .map_or((None, netloc), |(c, h)| (Some(c), h));
    let (host, port) = match hostport.rsplit_once(':') {
        Some((h, p)) if !h.ends_with(']') || hostport.starts_with('[') => (
            h,
            p.parse()
                .map_err(|_| format!("Port could not be cast to integer value as '{p}'"))?,
        ),
        _ => (hostport, 21),
    };
    let host = host
        .trim_start_matches('[')
        .trim_end_matches(']')
        .to_string();
    let (user, password) = match creds {
        Some(c) => match c.split_once(':') {
            Some((u, p)) => (u.to_string(), p.to_string()),
            None => (c.to_string(), String::new()),
        },
        None => (String::new(), String::new()),
    };
    // ftplib's login: no user is `anonymous` with `anonymous@`.
    let (user, password) = if user.is_empty() || user == "anonymous" {
        let p = if password.is_empty() || password == "-" {
            format!("{password}anonymous@")
        } else {
            password
        };
        ("anonymous".to_string(), p)
    } else {
        (user, password)
    };
    let path = path
        .split(['?', '#'])
        .next()
        .unwrap_or_default()
        .to_string();
    Ok(Target {
        host,
        port,
        user,
        password,
        path,
    })
}

/// The control connection.
struct Control {
    reader: BufReader<TcpStream>,
    writer: TcpStream,
}

/// A reply: its code and its last line (what ftplib's errors show).
struct Reply {
    code: u16,
    text: String,
}

impl Control {
    fn reply(&mut self) -> Result<Reply, String> {
        let mut total = 0;
        let mut first_code: Option<String> = None;
        loop {
            let mut line = Vec::new();
            let n = (&mut self.reader)
                .take(MAX_LINE as u64)
                .read_until(b'\n', &mut line)
                .map_err(io_text)?;
            if n == 0 {
                return Err("connection closed".into());
            }
            if n >= MAX_LINE && !line.ends_with(b"\n") {
                return Err("got more than 8192 bytes".into());
            }
            total += n;
            if total > MAX_REPLY {
                return Err("reply too long".into());
            }
            let line = String::from_utf8_lossy(&line).trim_end().to_string();
            let code = line
                .get(..3)
                .filter(|c| c.bytes().all(|b| b.is_ascii_digit()));
            match (&first_code, code) {
                (None, Some(c)) if line.as_bytes().get(3) == Some(&b'-') => {
                    first_code = Some(c.to_string());
                }
                (None, Some(c)) => {
                    return Ok(Reply {
                        code: c.parse().unwrap_or(0),
                        text: line,
                    })
                }
                (Some(f), Some(c)) if f == c && line.as_bytes().get(3) == Some(&b' ') => {
                    return Ok(Reply {
                        code: c.parse().unwrap_or(0),
                        text: line,
                    })
                }
                (None, None) => return Err(format!("unexpected reply: {line}")),
                _ => {}
            }
        }
    }

    fn send(&mut self, cmd: &str) -> Result<Reply, String> {
        if cmd.contains(['\r', '\n']) {
            return Err("an illegal newline character should not be contained".into());
        }
        self.writer
            .write_all(format!("{cmd}\r\n").as_bytes())
            .map_err(io_text)?;
        self.reply()
    }

    /// A command whose reply must be 2xx (ftplib's `voidcmd`).
    fn void(&mut self, cmd: &str) -> Result<(), String> {
        let r = self.send(cmd)?;
        if r.code / 100 == 2 {
            Ok(())
        } else {
            Err(r.text)
        }
    }
}

/// Python's wording of a socket error.
fn io_text(e: std::io::Error) -> String {
    match e.kind() {
        std::io::ErrorKind::ConnectionRefused => "[Errno 111] Connection refused".into(),
        std::io::ErrorKind::TimedOut | std::io::ErrorKind::WouldBlock => "timed out".into(),
        _ => e.to_string(),
    }
}

fn connect(host: &str, port: u16, limits: &Bounds) -> Result<TcpStream, String> {
    let addrs: Vec<SocketAddr> = (host, port)
        .to_socket_addrs()
        .map_err(|_| "[Errno -2] Name or service not known".to_string())?
        .collect();
    let mut last = "[Errno -2] Name or service not known".to_string();
    for a in addrs {
        match TcpStream::connect_timeout(&a, limits.connect_timeout) {
            Ok(s) => {
                let t = Some(limits.request_timeout);
                s.set_read_timeout(t).map_err(io_text)?;
                s.set_write_timeout(t).map_err(io_text)?;
                return Ok(s);
            }
            Err(e) => last = io_text(e),
        }
    }
    Err(last)
}

/// The port of a `227 Entering Passive Mode (h1,h2,h3,h4,p1,p2)` reply.
fn pasv_port(text: &str) -> Option<u16> {
    let inner = text.split_once('(')?.1.split_once(')')?.0;
    let nums: Vec<u16> = inner
        .split(',')
        .filter_map(|n| n.trim().parse().ok())
        .collect();
    match nums.as_slice() {
        [_, _, _, _, p1, p2] if *p1 < 256 && *p2 < 256 => Some(p1 * 256 + p2),
        _ => None,
    }
}

/// Log in, RETR the URL's file and copy it to `out` (at most `limit`
/// bytes); ftplib's exception text on failure.
fn session(t: &Target, limits: &Bounds, open: Opener<'_>, limit: u64) -> Result<u64, Failure> {
    let started = Instant::now();
    let stream = connect(&t.host, t.port, limits).map_err(Failure::Text)?;
    let mut c = Control {
        reader: BufReader::new(stream.try_clone().map_err(|e| Failure::Text(io_text(e)))?),
        writer: stream,
    };
    let hello = c.reply().map_err(Failure::Text)?;
    if hello.code / 100 != 2 {
        return Err(Failure::Text(hello.text));
    }
    let r = c.send(&format!("USER {}", t.user)).map_err(Failure::Text)?;
    if r.code / 100 == 3 {
        let r = c
            .send(&format!("PASS {}", t.password))
            .map_err(Failure::Text)?;
        if r.code / 100 != 2 {
            return Err(Failure::Text(r.text));
        }
    } else if r.code / 100 != 2 {
        return Err(Failure::Text(r.text));
    }
    // Salt opens its destination once logged in, before asking for the
    // file: a file the server refuses leaves it empty.
    let mut out = open().map_err(|e| Failure::Write(io_text(e)))?;
    c.void("TYPE I").map_err(Failure::Text)?;
    let pasv = c.send("PASV").map_err(Failure::Text)?;
    if pasv.code != 227 {
        return Err(Failure::Text(pasv.text));
    }
    let port = pasv_port(&pasv.text).ok_or_else(|| Failure::Text(pasv.text.clone()))?;
    // ftplib connects to the control connection's host, not the address
    // the server names (which may be another host's).
    let mut data = connect(&t.host, port, limits).map_err(Failure::Text)?;
    let path = t.path.trim_start_matches('/');
    let r = c.send(&format!("RETR {path}")).map_err(Failure::Text)?;
    if r.code / 100 != 1 {
        return Err(Failure::Text(r.text));
    }
    let mut buf = vec![0u8; 64 * 1024];
    let mut total = 0u64;
    loop {
        if started.elapsed() > limits.request_timeout {
            return Err(Failure::Text("timed out".into()));
        }
        let n = data.read(&mut buf).map_err(|e| Failure::Text(io_text(e)))?;
        if n == 0 {
            break;
        }
        total += n as u64;
        if total > limit {
            return Err(Failure::TooLarge);
        }
        out.write_all(buf.get(..n).unwrap_or_default())
            .map_err(|e| Failure::Write(e.to_string()))?;
    }
    drop(data);
    let done = c.reply().map_err(Failure::Text)?;
    if done.code / 100 != 2 {
        return Err(Failure::Text(done.text));
    }
    let _ = c.send("QUIT");
    Ok(total)
}

/// Opens where the download goes (called once logged in).
pub type Opener<'a> = &'a mut dyn FnMut() -> std::io::Result<Box<dyn Write + 'a>>;

enum Failure {
    Text(String),
    Write(String),
    TooLarge,
}

/// Fetch the `ftp://` URL into what `open` gives, at most `limit` bytes.
pub fn retrieve(url: &str, limits: &Bounds, open: Opener<'_>, limit: u64) -> Result<u64, FtpError> {
    let t = parse(url).map_err(FtpError::Failed)?;
    session(&t, limits, open, limit).map_err(|f| match f {
        Failure::TooLarge => FtpError::TooLarge,
        Failure::Text(reason) | Failure::Write(reason) => FtpError::Failed(reason),
    })
}

/// Whether the URL's file can be fetched (a whole retrieval into
/// nothing, bounded by `limits`).
pub fn exists(url: &str, limits: &Bounds, max_body: u64) -> bool {
    retrieve(url, limits, &mut || Ok(Box::new(std::io::sink())), max_body).is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_read_as_urlparse_and_ftplib_read_them() {
        let t = parse("ftp://127.0.0.1:2121/dir/f.txt").unwrap();
        assert_eq!(
            (t.host.as_str(), t.port, t.path.as_str()),
            ("127.0.0.1", 2121, "dir/f.txt")
        );
        assert_eq!(
            (t.user.as_str(), t.password.as_str()),
            ("anonymous", "anonymous@")
        );
        let t = parse("ftp://bob:pw@example.org/x").unwrap();
        assert_eq!(
            (t.user.as_str(), t.password.as_str(), t.port),
            ("bob", "pw", 21)
        );
        assert_eq!(
            pasv_port("227 Entering Passive Mode (127,0,0,1,78,52)."),
            Some(20020)
        );
        assert_eq!(pasv_port("227 nonsense"), None);
    }
}
