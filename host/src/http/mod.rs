//! Files over the network: `http://` and `https://` sources of states
//! (`file.managed`, `file.cached`, `archive.extracted`, `pkgrepo`'s
//! `key_url`), fetched in one place with the bounds a remote peer cannot
//! grow past: a connect timeout, a whole-request timeout, a body size limit
//! and TLS certificates verified unless the caller turns that off (Salt's
//! `verify_ssl: False`).
//!
//! The limits come from Salt's own minion options, with Salt's defaults
//! (`http_connect_timeout` 20 s, `http_request_timeout` one hour,
//! `http_max_body` 100 GiB: a download larger than that fails instead of
//! filling the disk). What is read into memory (hash files, signing keys)
//! is further capped at [`MEMORY_CAP`].
//!
//! `ftp://` sources go through [`ftp`] (passive mode, anonymous unless the
//! URL names a user, as Salt's ftplib), with the same bounds; `s3://` and
//! `swift://` are refused with [`HttpError::Unsupported`].

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Most bytes [`fetch_bytes`] keeps in memory, whatever `max_body` says:
/// hash files and keys are small.
pub const MEMORY_CAP: u64 = 64 * 1024 * 1024;

/// How one fetch is bounded and verified.
#[derive(Debug, Clone)]
pub struct Limits {
    /// Time to establish the connection (Salt's `http_connect_timeout`).
    pub connect_timeout: Duration,
    /// Time for the whole request, body included (`http_request_timeout`).
    pub request_timeout: Duration,
    /// Largest body accepted (`http_max_body`).
    pub max_body: u64,
    /// Verify the server's certificate (Salt's `verify_ssl`).
    pub verify_tls: bool,
    /// PEM file of trusted roots (Salt's `ca_bundle`); `None`: Mozilla's
    /// roots, compiled in.
    pub ca_bundle: Option<PathBuf>,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            connect_timeout: Duration::from_secs(20),
            request_timeout: Duration::from_secs(3600),
            max_body: 100 * 1024 * 1024 * 1024,
            verify_tls: true,
            ca_bundle: None,
        }
    }
}

/// Why a fetch failed; the texts follow the messages Salt's minion gives
/// where it has one.
#[derive(Debug, thiserror::Error)]
pub enum HttpError {
    /// The server answered with an error status.
    #[error("HTTP {code}: {reason}")]
    Status { code: u16, reason: String },
    /// No connection, TLS refused, a timeout, a broken transfer.
    #[error("{0}")]
    Transport(String),
    /// The body is larger than `max_body`.
    #[error("the body of {url} is larger than the {limit} bytes allowed (http_max_body)")]
    TooLarge { url: String, limit: u64 },
    /// An `ftp://` fetch failed: Salt's words, ftplib's reason.
    #[error("Could not retrieve {url} from FTP server. Exception: {reason}")]
    Ftp { url: String, reason: String },
    /// A scheme brine does not fetch (`s3`, `swift`).
    #[error("{scheme}:// sources are not supported by brine ({url})")]
    Unsupported { scheme: String, url: String },
    /// Writing the download failed.
    #[error("{path}: {source}")]
    Io {
        path: String,
        #[source]
        source: std::io::Error,
    },
}

/// Salt's `http.server.BaseHTTPRequestHandler.responses` phrases (what
/// tornado shows after the code).
pub fn reason(code: u16) -> &'static str {
    match code {
        400 => "Bad Request",
        401 => "Unauthorized",
        402 => "Payment Required",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        406 => "Not Acceptable",
        407 => "Proxy Authentication Required",
        408 => "Request Timeout",
        409 => "Conflict",
        410 => "Gone",
        411 => "Length Required",
        412 => "Precondition Failed",
        413 => "Request Entity Too Large",
        414 => "Request-URI Too Long",
        415 => "Unsupported Media Type",
        416 => "Requested Range Not Satisfiable",
        417 => "Expectation Failed",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        501 => "Not Implemented",
        502 => "Bad Gateway",
        503 => "Service Unavailable",
        504 => "Gateway Timeout",
        505 => "HTTP Version Not Supported",
        _ => "Unknown",
    }
}

/// The scheme of `url`, lowercased (`""` for none).
pub fn scheme(url: &str) -> String {
    url.split_once("://")
        .map(|(s, _)| s.to_ascii_lowercase())
        .unwrap_or_default()
}

/// Whether brine fetches `url` itself here (`http`, `https`).
pub fn is_http(url: &str) -> bool {
    matches!(scheme(url).as_str(), "http" | "https")
}

/// The trusted roots in a PEM file.
fn load_roots(path: &Path) -> Result<Vec<ureq::tls::Certificate<'static>>, HttpError> {
    let pem = std::fs::read(path).map_err(|source| HttpError::Io {
        path: path.display().to_string(),
        source,
    })?;
    let certs: Vec<_> = ureq::tls::parse_pem(&pem)
        .filter_map(|item| match item {
            Ok(ureq::tls::PemItem::Certificate(c)) => Some(c),
            _ => None,
        })
        .collect();
    if certs.is_empty() {
        return Err(HttpError::Transport(format!(
            "no certificate in the CA bundle {}",
            path.display()
        )));
    }
    Ok(certs)
}

fn agent(limits: &Limits) -> Result<ureq::Agent, HttpError> {
    let roots = match &limits.ca_bundle {
        Some(p) if limits.verify_tls => ureq::tls::RootCerts::new_with_certs(&load_roots(p)?),
        _ => ureq::tls::RootCerts::WebPki,
    };
    let tls = ureq::tls::TlsConfig::builder()
        .root_certs(roots)
        .disable_verification(!limits.verify_tls)
        .build();
    let config = ureq::Agent::config_builder()
        .tls_config(tls)
        .timeout_connect(Some(limits.connect_timeout))
        .timeout_global(Some(limits.request_timeout))
        // Salt's client ignores the environment's proxy variables.
        .proxy(None)
        .http_status_as_error(false)
        .max_redirects(10)
        .build();
    Ok(config.into())
}

/// Refuse what is not http(s) before any connection.
fn check_scheme(url: &str) -> Result<(), HttpError> {
    let s = scheme(url);
    if s == "http" || s == "https" {
        return Ok(());
    }
    Err(HttpError::Unsupported {
        scheme: s,
        url: url.to_string(),
    })
}

/// The text of a transport error, as close to Python's as its kind allows.
fn transport(e: ureq::Error) -> HttpError {
    let text = match &e {
        ureq::Error::Io(io) if io.kind() == std::io::ErrorKind::ConnectionRefused => {
            "[Errno 111] Connection refused".to_string()
        }
        ureq::Error::Timeout(_) => "Timeout".to_string(),
        other => resolver_error(&other.to_string()).unwrap_or_else(|| other.to_string()),
    };
    HttpError::Transport(text)
}

/// A failed name lookup as Python's `socket.gaierror` words it (the
/// resolver's message after its EAI code).
fn resolver_error(text: &str) -> Option<String> {
    let (_, msg) = text.split_once("failed to lookup address information: ")?;
    let code = match msg {
        "Name or service not known" => -2,
        "Temporary failure in name resolution" => -3,
        "No address associated with hostname" => -5,
        _ => return None,
    };
    Some(format!("[Errno {code}] {msg}"))
}

/// GET `url`; the response when its status is a success.
fn get(url: &str, limits: &Limits) -> Result<ureq::http::Response<ureq::Body>, HttpError> {
    check_scheme(url)?;
    let resp = agent(limits)?.get(url).call().map_err(transport)?;
    let code = resp.status().as_u16();
    if code >= 400 {
        return Err(HttpError::Status {
            code,
            reason: reason(code).to_string(),
        });
    }
    Ok(resp)
}

/// Copy at most `limit` bytes from `body` into `out`; fail past that.
fn copy_bounded(
    url: &str,
    body: &mut dyn Read,
    out: &mut dyn Write,
    limit: u64,
    dest: &str,
) -> Result<u64, HttpError> {
    let mut buf = vec![0u8; 64 * 1024];
    let mut total = 0u64;
    loop {
        let n = body
            .read(&mut buf)
            .map_err(|e| HttpError::Transport(e.to_string()))?;
        if n == 0 {
            return Ok(total);
        }
        total += n as u64;
        if total > limit {
            return Err(HttpError::TooLarge {
                url: url.to_string(),
                limit,
            });
        }
        out.write_all(buf.get(..n).unwrap_or_default())
            .map_err(|source| HttpError::Io {
                path: dest.to_string(),
                source,
            })?;
    }
}

/// Fetch `url` into the file `dest` (through `dest.part`, renamed when
/// whole, as Salt's file client does); the number of bytes.
pub fn fetch_to(url: &str, dest: &Path, limits: &Limits) -> Result<u64, HttpError> {
    if scheme(url) == "ftp" {
        return ftp_to(url, dest, limits);
    }
    let resp = get(url, limits)?;
    if let Some(len) = resp.body().content_length() {
        if len > limits.max_body {
            return Err(HttpError::TooLarge {
                url: url.to_string(),
                limit: limits.max_body,
            });
        }
    }
    let io = |source| HttpError::Io {
        path: dest.display().to_string(),
        source,
    };
    if let Some(dir) = dest.parent() {
        std::fs::create_dir_all(dir).map_err(io)?;
    }
    let mut part = dest.as_os_str().to_owned();
    part.push(".part");
    let part = PathBuf::from(part);
    let result = (|| {
        let mut file = std::fs::File::create(&part).map_err(io)?;
        let mut body = resp.into_body().into_reader();
        let n = copy_bounded(
            url,
            &mut body,
            &mut file,
            limits.max_body,
            &dest.display().to_string(),
        )?;
        file.flush().map_err(io)?;
        std::fs::rename(&part, dest).map_err(io)?;
        Ok(n)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&part);
    }
    result
}

/// [`fetch_to`] for an `ftp://` URL: written straight to `dest`, opened
/// once logged in, as Salt's file client does (a refused file leaves it
/// empty, and Salt's cache then holds that empty copy).
fn ftp_to(url: &str, dest: &Path, limits: &Limits) -> Result<u64, HttpError> {
    let io = |source| HttpError::Io {
        path: dest.display().to_string(),
        source,
    };
    if let Some(dir) = dest.parent() {
        std::fs::create_dir_all(dir).map_err(io)?;
    }
    let mut open =
        || -> std::io::Result<Box<dyn Write>> { Ok(Box::new(std::fs::File::create(dest)?)) };
    ftp_retrieve(url, limits, &mut open, limits.max_body)
}

/// [`ftp::retrieve`] with these limits, its failure as an [`HttpError`].
fn ftp_retrieve(
    url: &str,
    limits: &Limits,
    open: ftp::Opener<'_>,
    limit: u64,
) -> Result<u64, HttpError> {
    ftp::retrieve(url, &ftp_bounds(limits), open, limit).map_err(|e| match e {
        ftp::FtpError::Failed(reason) => HttpError::Ftp {
            url: url.to_string(),
            reason,
        },
        ftp::FtpError::TooLarge => HttpError::TooLarge {
            url: url.to_string(),
            limit,
        },
    })
}

fn ftp_bounds(limits: &Limits) -> ftp::Bounds {
    ftp::Bounds {
        connect_timeout: limits.connect_timeout,
        request_timeout: limits.request_timeout,
    }
}

/// A buffer an FTP download writes into and the caller keeps.
#[derive(Clone)]
struct Shared(std::rc::Rc<std::cell::RefCell<Vec<u8>>>);

impl Write for Shared {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        self.0.borrow_mut().extend_from_slice(b);
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Fetch `url` into memory (at most `max_body` and [`MEMORY_CAP`] bytes).
pub fn fetch_bytes(url: &str, limits: &Limits) -> Result<Vec<u8>, HttpError> {
    if scheme(url) == "ftp" {
        let out = std::rc::Rc::new(std::cell::RefCell::new(Vec::new()));
        let sink = Shared(out.clone());
        let mut open = || -> std::io::Result<Box<dyn Write>> { Ok(Box::new(sink.clone())) };
        ftp_retrieve(url, limits, &mut open, limits.max_body.min(MEMORY_CAP))?;
        return Ok(out.take());
    }
    let resp = get(url, limits)?;
    let limit = limits.max_body.min(MEMORY_CAP);
    let mut out = Vec::new();
    let mut body = resp.into_body().into_reader();
    copy_bounded(url, &mut body, &mut out, limit, "memory")?;
    Ok(out)
}

/// Whether `url` answers a `HEAD` without an error (Salt's check of an
/// http item in a source list).
pub fn exists(url: &str, limits: &Limits) -> bool {
    if scheme(url) == "ftp" {
        return ftp::exists(url, &ftp_bounds(limits), limits.max_body);
    }
    if check_scheme(url).is_err() {
        return false;
    }
    let Ok(agent) = agent(limits) else {
        return false;
    };
    agent
        .head(url)
        .call()
        .is_ok_and(|r| r.status().as_u16() < 400)
}

/// The system's CA bundle, where Salt's `get_ca_bundle` looks after the
/// `ca_bundle` option and the `base` file roots.
pub fn system_ca_bundle() -> Option<PathBuf> {
    [
        "/etc/ssl/certs/ca-certificates.crt",
        "/etc/pki/tls/certs/ca-bundle.crt",
        "/etc/pki/tls/certs/ca-bundle.trust.crt",
        "/etc/ssl/certs/ca-bundle.crt",
        "/var/lib/ca-certificates/ca-bundle.pem",
        "/etc/ssl/cert.pem",
    ]
    .iter()
    .map(PathBuf::from)
    .find(|p| p.exists())
}

mod ftp;

#[cfg(any(test, feature = "test-server"))]
pub mod testserver;

#[cfg(test)]
mod tests;
