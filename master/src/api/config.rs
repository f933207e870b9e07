//! What `brine-api` reads from the master's configuration, under Salt's
//! names: `rest_cherrypy:` (where it listens, TLS, the webhook, body and
//! connection bounds), `external_auth:`, `token_expire`, `sharedsecret`.

use super::app::AppConfig;
use crate::daemon::MasterConfig;
use crate::eauth::Eauth;
use brine_core::Value;
use std::net::{IpAddr, SocketAddr};
use std::path::PathBuf;

/// Salt's `max_request_body_size` default (1 MiB).
const DEFAULT_BODY: usize = 1_048_576;
/// Salt's `thread_pool` default: requests served at once.
const DEFAULT_THREADS: usize = 100;
/// Salt's `token_expire` default (12 hours).
const DEFAULT_TOKEN_EXPIRE: u64 = 43_200;

#[derive(Debug, thiserror::Error)]
pub enum ApiConfigError {
    #[error(
        "rest_cherrypy is not in the master configuration: brine-api serves nothing without it"
    )]
    Missing,
    #[error("rest_cherrypy: {key}: {problem}")]
    Bad { key: &'static str, problem: String },
}

/// The API's settings.
#[derive(Debug, Clone)]
pub struct ApiConfig {
    pub master: MasterConfig,
    pub addr: SocketAddr,
    /// `disable_ssl: False` (Salt's default) needs `ssl_crt` and `ssl_key`.
    pub tls: Option<(PathBuf, PathBuf)>,
    pub webhook_url: String,
    pub webhook_disable_auth: bool,
    pub max_body: usize,
    pub max_requests: usize,
    pub token_expire: u64,
    /// `external_auth`, `sharedsecret`, `auth.pam.service`.
    pub eauth: Eauth,
    /// `app`, `app_path`, `static`, `static_path`: a web console.
    pub app: AppConfig,
}

/// A URL path option: `/`-led, no trailing `/`.
fn url_path(rest: &brine_core::Map, key: &str, default: &str) -> String {
    match rest.get(key) {
        Some(Value::Str(p)) if p.starts_with('/') && p.len() > 1 => {
            p.trim_end_matches('/').to_string()
        }
        _ => default.to_string(),
    }
}

impl ApiConfig {
    pub fn from_master(master: MasterConfig) -> Result<ApiConfig, ApiConfigError> {
        let o = &master.opts;
        let Some(Value::Map(rest)) = o.get("rest_cherrypy") else {
            return Err(ApiConfigError::Missing);
        };
        let int = |key: &'static str, default: u64| -> Result<u64, ApiConfigError> {
            match rest.get(key) {
                None | Some(Value::Null) => Ok(default),
                Some(Value::Int(i)) if *i >= 0 => Ok(*i as u64),
                Some(Value::Str(s)) => s.trim().parse().map_err(|_| ApiConfigError::Bad {
                    key,
                    problem: format!("{s:?} is not a number"),
                }),
                Some(v) => Err(ApiConfigError::Bad {
                    key,
                    problem: format!("expected a number, found {}", v.to_python_repr()),
                }),
            }
        };
        let port = u16::try_from(int("port", 0)?)
            .ok()
            .filter(|p| *p > 0)
            .ok_or(ApiConfigError::Bad {
                key: "port",
                problem: "a TCP port is required".into(),
            })?;
        let host = match rest.get("host") {
            Some(Value::Str(h)) => h.clone(),
            _ => "0.0.0.0".into(),
        };
        let ip: IpAddr = host.parse().map_err(|_| ApiConfigError::Bad {
            key: "host",
            problem: format!("{host:?} is not an IP address"),
        })?;
        let truthy = |key: &str| rest.get(key).is_some_and(Value::is_truthy);
        // As salt-api takes them: not under root_dir.
        let path = |key: &str| match rest.get(key) {
            Some(Value::Str(p)) if !p.is_empty() => Some(PathBuf::from(p)),
            _ => None,
        };
        let tls = if truthy("disable_ssl") {
            None
        } else {
            match (path("ssl_crt"), path("ssl_key")) {
                (Some(c), Some(k)) => Some((c, k)),
                _ => {
                    return Err(ApiConfigError::Bad {
                        key: "ssl_crt",
                        problem: "TLS is on (disable_ssl is not True) but ssl_crt and ssl_key \
                                  are not both set"
                            .into(),
                    })
                }
            }
        };
        let token_expire = match o.get("token_expire") {
            Some(Value::Int(i)) if *i > 0 => *i as u64,
            _ => DEFAULT_TOKEN_EXPIRE,
        };
        Ok(ApiConfig {
            addr: SocketAddr::new(ip, port),
            tls,
            webhook_url: match rest.get("webhook_url") {
                Some(Value::Str(u)) if u.starts_with('/') => u.trim_end_matches('/').to_string(),
                _ => "/hook".into(),
            },
            webhook_disable_auth: truthy("webhook_disable_auth"),
            max_body: usize::try_from(int("max_request_body_size", DEFAULT_BODY as u64)?)
                .unwrap_or(DEFAULT_BODY)
                .clamp(1024, 256 << 20),
            max_requests: usize::try_from(int("thread_pool", DEFAULT_THREADS as u64)?)
                .unwrap_or(DEFAULT_THREADS)
                .clamp(1, 10_000),
            token_expire,
            eauth: Eauth::from_opts(o),
            app: AppConfig {
                app: path("app"),
                app_path: url_path(rest, "app_path", "/app"),
                static_dir: path("static"),
                static_path: url_path(rest, "static_path", "/static"),
            },
            master,
        })
    }
}
