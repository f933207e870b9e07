//! `brine-api`'s connections: accepted on the listening socket, over TLS
//! when `rest_cherrypy` has `ssl_crt`/`ssl_key` (rustls), each served by
//! hyper's HTTP/1.1 with the routes of [`super::server`]. Bounded: at most
//! [`MAX_CONNECTIONS`] at once (past it a new one is closed at once), a
//! TLS handshake within [`HANDSHAKE_TIMEOUT`], a request's headers within
//! [`HEADER_TIMEOUT`] (a slow sender is cut) and [`MAX_HEADER_BYTES`].

use axum::extract::ConnectInfo;
use hyper_util::rt::{TokioIo, TokioTimer};
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;
use tower::ServiceExt;

/// Connections served at once.
pub const MAX_CONNECTIONS: usize = 1024;
/// How long a TLS handshake may take.
pub const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);
/// How long a client may take to send a request's headers.
pub const HEADER_TIMEOUT: Duration = Duration::from_secs(30);
/// Most bytes of a request's headers.
pub const MAX_HEADER_BYTES: usize = 64 * 1024;

#[derive(Debug, thiserror::Error)]
pub enum TlsError {
    #[error("ssl_crt {path}: {why}")]
    Cert { path: String, why: String },
    #[error("ssl_key {path}: {why}")]
    Key { path: String, why: String },
    #[error("the certificate and key do not make a TLS server: {0}")]
    Config(String),
}

/// The TLS server for `crt` (PEM, the chain) and `key` (PEM).
pub fn tls_config(crt: &Path, key: &Path) -> Result<Arc<rustls::ServerConfig>, TlsError> {
    use rustls::pki_types::pem::PemObject;
    use rustls::pki_types::{CertificateDer, PrivateKeyDer};
    let cert_err = |why: String| TlsError::Cert {
        path: crt.display().to_string(),
        why,
    };
    let certs: Vec<CertificateDer<'static>> = CertificateDer::pem_file_iter(crt)
        .map_err(|e| cert_err(e.to_string()))?
        .collect::<Result<_, _>>()
        .map_err(|e| cert_err(e.to_string()))?;
    if certs.is_empty() {
        return Err(cert_err("no certificate in it".into()));
    }
    let key = PrivateKeyDer::from_pem_file(key).map_err(|e| TlsError::Key {
        path: key.display().to_string(),
        why: e.to_string(),
    })?;
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let mut cfg = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| TlsError::Config(e.to_string()))?
        .with_no_client_auth()
        .with_single_cert(certs, key)
        .map_err(|e| TlsError::Config(e.to_string()))?;
    cfg.alpn_protocols = vec![b"http/1.1".to_vec()];
    Ok(Arc::new(cfg))
}

/// Serve `app` on `listener` (over TLS with `tls`) until `stop` completes.
pub async fn serve(
    listener: tokio::net::TcpListener,
    app: axum::Router,
    tls: Option<Arc<rustls::ServerConfig>>,
    stop: impl std::future::Future<Output = ()>,
) {
    let slots = Arc::new(tokio::sync::Semaphore::new(MAX_CONNECTIONS));
    let acceptor = tls.map(tokio_rustls::TlsAcceptor::from);
    let mut told_full = false;
    tokio::pin!(stop);
    loop {
        let (tcp, peer) = tokio::select! {
            _ = &mut stop => return,
            r = listener.accept() => match r {
                Ok(c) => c,
                Err(e) => {
                    // Out of descriptors, say: pause rather than spin.
                    tracing::warn!("accept failed: {e}");
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    continue;
                }
            },
        };
        let Ok(slot) = slots.clone().try_acquire_owned() else {
            if !told_full {
                tracing::warn!("{MAX_CONNECTIONS} connections are open; new ones are closed");
                told_full = true;
            }
            continue;
        };
        told_full = false;
        let (app, acceptor) = (app.clone(), acceptor.clone());
        tokio::spawn(async move {
            let _slot = slot;
            let svc = hyper::service::service_fn(
                move |mut req: hyper::Request<hyper::body::Incoming>| {
                    req.extensions_mut().insert(ConnectInfo(peer));
                    app.clone().oneshot(req)
                },
            );
            let mut http = hyper::server::conn::http1::Builder::new();
            http.timer(TokioTimer::new())
                .header_read_timeout(HEADER_TIMEOUT)
                .max_buf_size(MAX_HEADER_BYTES);
            let served = match acceptor {
                None => http.serve_connection(TokioIo::new(tcp), svc).await,
                Some(acceptor) => {
                    match tokio::time::timeout(HANDSHAKE_TIMEOUT, acceptor.accept(tcp)).await {
                        Ok(Ok(stream)) => http.serve_connection(TokioIo::new(stream), svc).await,
                        Ok(Err(e)) => {
                            tracing::debug!("{peer}: TLS handshake failed: {e}");
                            return;
                        }
                        Err(_) => {
                            tracing::debug!(
                                "{peer}: no TLS handshake within {HANDSHAKE_TIMEOUT:?}"
                            );
                            return;
                        }
                    }
                }
            };
            if let Err(e) = served {
                tracing::debug!("{peer}: {e}");
            }
        });
    }
}
