//! Remote sources as Salt's minion caches them (`cp.cache_file` on an
//! `http(s)://` URL): the download goes to
//! `<cachedir>/extrn_files/<saltenv>/<host><port>/<path>`, and a cached copy
//! whose hash already matches the expected one is used without fetching
//! again. The fetching itself is `brine_host::http`; this module adds the
//! minion's options (timeouts, `http_max_body`, `ca_bundle`) and Salt's
//! messages. `file.managed`, `archive.extracted`, `pkgrepo` (key_url) and
//! `file.cached` share it.

use crate::fileclient::{hash_path, FileClient};
use brine_core::{Map, Value};
use brine_host::http::{self, HttpError, Limits};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Salt's remote protocols (`salt.utils.files.REMOTE_PROTOS`).
pub const REMOTE_PROTOS: &[&str] = &["http", "https", "ftp", "swift", "s3"];

/// The scheme of `url` as Python's `urlparse` reads it (`""` for a path).
pub fn scheme(url: &str) -> String {
    url.split_once("://")
        .map(|(s, _)| s.to_ascii_lowercase())
        .unwrap_or_default()
}

/// Whether `url` is fetched from another host (`http`, `https`, `ftp`...).
pub fn is_remote(url: &str) -> bool {
    REMOTE_PROTOS.contains(&scheme(url).as_str())
}

fn opt_secs(opts: &Map, key: &str, default: f64) -> Duration {
    let v = match opts.get(key) {
        Some(Value::Int(i)) => *i as f64,
        Some(Value::Float(f)) => *f,
        Some(Value::Str(s)) => s.parse().unwrap_or(default),
        _ => default,
    };
    Duration::from_secs_f64(if v.is_finite() && v > 0.0 { v } else { default })
}

/// Salt's `get_ca_bundle`: the `ca_bundle` option when that file exists,
/// else `cacert.pem`/`ca-bundle.crt` in a `base` file root, else the
/// system's bundle.
fn ca_bundle(opts: &Map) -> Option<PathBuf> {
    if let Some(p) = opts.get("ca_bundle").and_then(Value::as_str) {
        if Path::new(p).exists() {
            return Some(PathBuf::from(p));
        }
    }
    let roots = brine_compile::opts::roots(opts, "file_roots");
    for root in roots.get("base").into_iter().flatten() {
        for name in ["cacert.pem", "ca-bundle.crt"] {
            let p = root.join(name);
            if p.exists() {
                return Some(p);
            }
        }
    }
    http::system_ca_bundle()
}

/// The bounds of one fetch from the minion's options: Salt's
/// `http_connect_timeout` (20 s), `http_request_timeout` (1 h) and
/// `http_max_body` (100 GiB), its CA bundle, and `verify_ssl`.
pub fn limits(opts: &Map, verify_ssl: bool) -> Limits {
    let d = Limits::default();
    let max_body = match opts.get("http_max_body") {
        Some(Value::Int(i)) if *i > 0 => *i as u64,
        _ => d.max_body,
    };
    Limits {
        connect_timeout: opt_secs(opts, "http_connect_timeout", 20.0),
        request_timeout: opt_secs(opts, "http_request_timeout", 3600.0),
        max_body,
        verify_tls: verify_ssl,
        ca_bundle: if verify_ssl { ca_bundle(opts) } else { None },
    }
}

/// The pieces of a URL Salt's cache path is made of: the host part (user
/// and password dropped, the port's ':' removed), the path and the query.
fn url_parts(url: &str) -> (String, String, String) {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    let rest = rest.split('#').next().unwrap_or_default();
    let (netloc, path_query) = match rest.find('/') {
        Some(i) => rest.split_at(i),
        None => (rest, ""),
    };
    let (path, query) = path_query.split_once('?').unwrap_or((path_query, ""));
    let host = netloc.rsplit('@').next().unwrap_or(netloc).replace(':', "");
    (host, path.to_string(), query.to_string())
}

/// Longest file name Salt keeps as is in its cache.
const MAX_FILENAME_LENGTH: usize = 255;

/// Salt's `_extrn_path`: where the download of `url` is cached.
pub fn extrn_path(opts: &Map, url: &str, saltenv: &str) -> PathBuf {
    let (host, path, query) = url_parts(url);
    let mut file_name = if query.is_empty() {
        path
    } else {
        format!("{path}-{query}")
    };
    if file_name.len() > MAX_FILENAME_LENGTH {
        file_name = super::fsutil::hash_hex("sha256", file_name.as_bytes()).unwrap_or_default();
    }
    let base = brine_compile::opts::cachedir(opts)
        .join("extrn_files")
        .join(saltenv)
        .join(host);
    // Never outside the cache: `..` parts are dropped.
    let rel: PathBuf = Path::new(&file_name)
        .components()
        .filter(|c| matches!(c, std::path::Component::Normal(_)))
        .collect();
    base.join(rel)
}

/// Salt's `redact_http_basic_auth`: `user:password@` of an http(s) URL
/// hidden (greedily, up to the last '@', as Salt's pattern does).
pub fn redact(text: &str) -> String {
    let lower = text.to_ascii_lowercase();
    let Some(at) = text.rfind('@') else {
        return text.to_string();
    };
    for proto in ["https://", "http://"] {
        if let Some(start) = lower.find(proto) {
            if start + proto.len() <= at {
                return format!(
                    "{}{}<redacted>{}",
                    &text[..start],
                    &text[start..start + proto.len()],
                    &text[at..]
                );
            }
        }
    }
    text.to_string()
}

/// The path of a URL as Salt's message names it.
fn url_path(url: &str) -> String {
    url_parts(url).1
}

/// Salt's message for a failed download (`MinionError` of `get_url`).
pub fn fetch_error(url: &str, e: &HttpError) -> String {
    match e {
        HttpError::Unsupported { .. } | HttpError::Ftp { .. } => e.to_string(),
        _ => format!("Error: {e} reading {}", url_path(url)),
    }
}

/// What fetching a source needs: the minion's options, its file client
/// for `salt://`, the saltenv and whether TLS certificates are verified.
pub struct Fetcher<'a> {
    pub opts: &'a Map,
    pub client: &'a dyn FileClient,
    pub saltenv: &'a str,
    pub verify_ssl: bool,
}

impl Fetcher<'_> {
    /// Salt's `cp.cache_file` for `url`: a `salt://` file through the file
    /// client, a local path as is, a remote one downloaded to its cache
    /// path unless the cached copy already has the hash `source_hash` (a
    /// bare digest or `<type>=<digest>`). `Err` is the message Salt raises.
    pub fn cache_file(&self, url: &str, source_hash: Option<&str>) -> Result<PathBuf, String> {
        if url.starts_with("salt://") {
            return self
                .client
                .cache_file(url, self.saltenv)
                .map_err(|e| e.to_string());
        }
        if !is_remote(url) {
            return Ok(PathBuf::from(url.strip_prefix("file://").unwrap_or(url)));
        }
        let dest = extrn_path(self.opts, url, self.saltenv);
        if let Some(want) = source_hash.map(|h| h.rsplit('=').next().unwrap_or(h)) {
            let form = match want.len() {
                32 => "md5",
                40 => "sha1",
                56 => "sha224",
                64 => "sha256",
                96 => "sha384",
                128 => "sha512",
                _ => "",
            };
            if let Ok(Some((have, _))) = hash_path(&dest, form) {
                if have == want.to_lowercase() {
                    return Ok(dest);
                }
            }
        }
        http::fetch_to(url, &dest, &self.limits())
            .map(|_| dest)
            .map_err(|e| fetch_error(url, &e))
    }

    /// The bounds of this fetcher's downloads.
    pub fn limits(&self) -> Limits {
        limits(self.opts, self.verify_ssl)
    }

    /// The cached copy of `url`, when there is one (`cp.is_cached`).
    pub fn is_cached(&self, url: &str) -> Option<PathBuf> {
        let p = extrn_path(self.opts, url, self.saltenv);
        p.is_file().then_some(p)
    }

    /// Whether a remote `url` answers (Salt's `HEAD` on an http item of a
    /// source list).
    pub fn exists(&self, url: &str) -> bool {
        http::exists(url, &self.limits())
    }

    /// The bytes behind `url` (a hash file, a key), bounded in size: a
    /// remote URL downloaded into the cache as Salt's `cp.cache_file` keeps
    /// it, `salt://` through the file client, else a local file.
    pub fn fetch(&self, url: &str) -> Result<Vec<u8>, String> {
        let path = self.cache_file(url, None)?;
        let meta = std::fs::metadata(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        if meta.len() > http::MEMORY_CAP {
            return Err(format!(
                "{} is larger than {} bytes",
                path.display(),
                http::MEMORY_CAP
            ));
        }
        std::fs::read(&path).map_err(|e| format!("{}: {e}", path.display()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cache_paths_like_salt() {
        let mut opts = Map::default();
        opts.insert("cachedir".into(), Value::Str("/c".into()));
        let p = |u: &str| extrn_path(&opts, u, "base").display().to_string();
        assert_eq!(
            p("http://127.0.0.1:8080/a/b.tar.gz"),
            "/c/extrn_files/base/127.0.0.18080/a/b.tar.gz"
        );
        assert_eq!(
            p("https://u:pw@h.example/x?y=1"),
            "/c/extrn_files/base/h.example/x-y=1"
        );
        assert_eq!(
            p("http://h/../../etc/passwd"),
            "/c/extrn_files/base/h/etc/passwd"
        );
    }
}
