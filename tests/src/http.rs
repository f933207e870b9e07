//! A small HTTP/1.1 client for the API tests: one request per connection
//! (`Connection: close`), the answer read whole (Content-Length or
//! chunked); and the self-signed certificate TLS tests serve.

use std::io::{Read, Write};
use std::net::SocketAddr;
use std::time::Duration;

/// What came back.
#[derive(Debug, Clone)]
pub struct Answer {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: String,
}

impl Answer {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    pub fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.body).unwrap_or(serde_json::Value::Null)
    }

    /// The message of a CherryPy-style error page (`<p>...</p>`).
    pub fn page_message(&self) -> Option<String> {
        let start = self.body.find("<p>")? + 3;
        let end = self.body[start..].find("</p>")? + start;
        Some(self.body[start..end].to_string())
    }
}

/// GET `path` and read what comes for `within` (a stream that does not
/// end: `/events`), then close.
pub fn read_for(
    addr: SocketAddr,
    path: &str,
    headers: &[(&str, &str)],
    within: Duration,
) -> std::io::Result<Answer> {
    let mut s = std::net::TcpStream::connect_timeout(&addr, Duration::from_secs(5))?;
    let mut req = format!("GET {path} HTTP/1.1\r\nHost: {addr}\r\n");
    for (k, v) in headers {
        req.push_str(&format!("{k}: {v}\r\n"));
    }
    req.push_str("\r\n");
    s.write_all(req.as_bytes())?;
    let deadline = std::time::Instant::now() + within;
    let mut raw = Vec::new();
    let mut buf = [0u8; 8192];
    while let Some(left) = deadline.checked_duration_since(std::time::Instant::now()) {
        s.set_read_timeout(Some(left.max(Duration::from_millis(10))))?;
        match s.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => raw.extend_from_slice(&buf[..n]),
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) =>
            {
                break
            }
            Err(e) => return Err(e),
        }
    }
    parse(&raw)
}

/// Send `method path` with `headers` and `body` to `addr`.
pub fn request(
    addr: SocketAddr,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &[u8],
) -> std::io::Result<Answer> {
    let mut s = std::net::TcpStream::connect_timeout(&addr, Duration::from_secs(5))?;
    s.set_read_timeout(Some(Duration::from_secs(60)))?;
    let mut req = format!(
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nContent-Length: {}\r\n",
        body.len()
    );
    for (k, v) in headers {
        req.push_str(&format!("{k}: {v}\r\n"));
    }
    req.push_str("\r\n");
    s.write_all(req.as_bytes())?;
    s.write_all(body)?;
    // Read until the answer is whole (its Content-Length, or the last
    // chunk), not only until the peer closes: some servers keep the
    // connection open whatever `Connection: close` says.
    let mut raw = Vec::new();
    let mut buf = [0u8; 16384];
    loop {
        let n = s.read(&mut buf)?;
        if n == 0 {
            break;
        }
        raw.extend_from_slice(&buf[..n]);
        if complete(&raw) {
            break;
        }
    }
    parse(&raw)
}

/// Whether `raw` holds a whole answer by its own framing.
fn complete(raw: &[u8]) -> bool {
    let Some(split) = raw.windows(4).position(|w| w == b"\r\n\r\n") else {
        return false;
    };
    let head = String::from_utf8_lossy(&raw[..split]).to_ascii_lowercase();
    let body = &raw[split + 4..];
    if let Some(len) = head
        .lines()
        .find_map(|l| l.strip_prefix("content-length:"))
        .and_then(|v| v.trim().parse::<usize>().ok())
    {
        return body.len() >= len;
    }
    head.contains("transfer-encoding: chunked") && body.ends_with(b"0\r\n\r\n")
}

/// An answer's status line, headers and (dechunked) body.
fn parse(raw: &[u8]) -> std::io::Result<Answer> {
    let split = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .ok_or_else(|| std::io::Error::other("no header end"))?;
    let head = String::from_utf8_lossy(&raw[..split]).into_owned();
    let mut lines = head.split("\r\n");
    let status = lines
        .next()
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|c| c.parse().ok())
        .ok_or_else(|| std::io::Error::other("no status"))?;
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_string(), v.trim().to_string()))
        .collect();
    let mut body = raw[split + 4..].to_vec();
    let chunked = headers
        .iter()
        .any(|(k, v)| k.eq_ignore_ascii_case("transfer-encoding") && v.contains("chunked"));
    if chunked {
        body = dechunk(&body);
    }
    Ok(Answer {
        status,
        headers,
        body: String::from_utf8_lossy(&body).into_owned(),
    })
}

fn dechunk(mut b: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    while let Some(eol) = b.windows(2).position(|w| w == b"\r\n") {
        let size = usize::from_str_radix(
            String::from_utf8_lossy(&b[..eol])
                .split(';')
                .next()
                .unwrap_or("0")
                .trim(),
            16,
        )
        .unwrap_or(0);
        if size == 0 {
            break;
        }
        let start = eol + 2;
        let end = (start + size).min(b.len());
        out.extend_from_slice(&b[start..end]);
        b = &b[(end + 2).min(b.len())..];
    }
    out
}

/// Tokens, jids and times written as the recording writes them.
pub fn mask(v: &serde_json::Value, tokens: &[String]) -> serde_json::Value {
    let jid = regex::Regex::new(r"\b20\d{18}\b").expect("regex");
    match v {
        serde_json::Value::Object(m) => serde_json::Value::Object(
            m.iter()
                .map(|(k, v)| {
                    let k2 = jid.replace_all(k, "@JID@").into_owned();
                    let v2 = match k.as_str() {
                        "token" if v.is_string() => serde_json::json!("@TOKEN@"),
                        "start" | "expire" | "_stamp" | "StartTime"
                            if v.is_number() || v.is_string() =>
                        {
                            serde_json::json!("@TIME@")
                        }
                        _ => mask(v, tokens),
                    };
                    (k2, v2)
                })
                .collect(),
        ),
        serde_json::Value::Array(l) => {
            serde_json::Value::Array(l.iter().map(|x| mask(x, tokens)).collect())
        }
        serde_json::Value::String(s) => {
            let mut s = s.clone();
            for t in tokens.iter().filter(|t| !t.is_empty()) {
                s = s.replace(t.as_str(), "@TOKEN@");
            }
            serde_json::json!(jid.replace_all(&s, "@JID@").into_owned())
        }
        other => other.clone(),
    }
}

/// How a recorded step's status or content type differs from `got`'s
/// (a recording's `status`, `content_type`), as a failure line.
pub fn status_and_type_differ(
    label: &str,
    got: &Answer,
    step: &serde_json::Value,
) -> Option<String> {
    let want_status = step["status"].as_u64().unwrap_or(0) as u16;
    if got.status != want_status {
        return Some(format!(
            "{label}: status {} (Salt {want_status}): {}",
            got.status, got.body
        ));
    }
    let want_type = step["content_type"].as_str().unwrap_or_default();
    if got.header("content-type") != Some(want_type) {
        return Some(format!(
            "{label}: content type {:?} (Salt {want_type})",
            got.header("content-type")
        ));
    }
    None
}

/// A self-signed certificate for 127.0.0.1 made by openssl under `dir`:
/// the certificate's and the key's paths.
pub fn self_signed(dir: &std::path::Path) -> (std::path::PathBuf, std::path::PathBuf) {
    let (crt, key) = (dir.join("crt.pem"), dir.join("key.pem"));
    let made = std::process::Command::new("openssl")
        .args([
            "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
        ])
        .args([
            "-subj",
            "/CN=127.0.0.1",
            "-addext",
            "subjectAltName=IP:127.0.0.1",
        ])
        .arg("-keyout")
        .arg(&key)
        .arg("-out")
        .arg(&crt)
        .output()
        .expect("openssl");
    assert!(made.status.success(), "{made:?}");
    (crt, key)
}
