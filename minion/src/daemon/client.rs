//! One identity's way to ask the master: requests signed with its key,
//! sealed where secret, answered by the pinned master key, and
//! authenticated again when the master no longer knows it.

use super::link::{Link, LinkError};
use brine_protocol::crypto::{KeyPair, Nonce, PublicKeys, SessionKey};
use brine_protocol::messages::{ErrorCode, ReplyBody, Request, RequestBody, WireError};
use std::sync::{Arc, RwLock};
use std::time::Duration;
use tokio::sync::{watch, Notify};

/// Why a request to the master got no usable answer.
#[derive(Debug, thiserror::Error)]
pub enum RequestError {
    #[error(transparent)]
    Link(#[from] LinkError),
    #[error("cannot build the request: {0}")]
    Wire(#[from] WireError),
    #[error("the master's key is not known yet (not authenticated)")]
    NoMasterKey,
    #[error("the reply was not signed by the pinned master key")]
    WrongSigner,
    #[error("the master refused the request ({code:?}): {message}")]
    Refused { code: ErrorCode, message: String },
    #[error("the master answered a {what} request with an unexpected reply")]
    Unexpected { what: &'static str },
    #[error("cannot open the sealed reply: {0}")]
    Open(WireError),
}

impl RequestError {
    /// Whether asking again later can succeed.
    pub fn is_transient(&self) -> bool {
        match self {
            RequestError::Link(e) => e.is_transient(),
            RequestError::NoMasterKey => true,
            RequestError::Refused { code, .. } => !matches!(
                code,
                ErrorCode::BadRequest | ErrorCode::NotFound | ErrorCode::Unauthorized
            ),
            _ => false,
        }
    }
}

/// Between an identity's requests and its auth loop: "authenticate again"
/// (key refused, master restarted or lost its cache), and a count of the
/// authentications done, to wait for the next one.
#[derive(Debug)]
pub struct AuthSignal {
    pub reauth: Notify,
    pub done: watch::Sender<u64>,
}

impl AuthSignal {
    pub fn new() -> AuthSignal {
        AuthSignal {
            reauth: Notify::new(),
            done: watch::channel(0).0,
        }
    }

    /// Ask for a new authentication and wait (bounded) until one is done.
    pub async fn renew(&self, timeout: Duration) -> bool {
        let mut rx = self.done.subscribe();
        let before = *rx.borrow_and_update();
        self.reauth.notify_one();
        tokio::time::timeout(timeout, rx.wait_for(|n| *n > before))
            .await
            .is_ok_and(|r| r.is_ok())
    }
}

impl Default for AuthSignal {
    fn default() -> Self {
        AuthSignal::new()
    }
}

/// How long a request refused for want of authentication waits for the
/// identity to authenticate again before it is retried once.
const RENEW_AUTH_WAIT: Duration = Duration::from_secs(30);

/// What the master process that accepted an identity gave it, from its
/// auth reply: the instance every request names (the other masters
/// sharing its key refuse them) and the key requests are sealed with (see
/// `brine_protocol::crypto::RequestKeys`). Empty until then: requests name
/// no master and are sealed to the master's key.
#[derive(Debug, Clone, Default)]
pub struct Admission {
    pub instance: Option<Nonce>,
    pub request_key: Option<SessionKey>,
}

/// One identity's way to ask the master: the shared link, its own key and
/// id, and the trusted master key.
#[derive(Clone)]
pub struct MasterClient {
    pub link: Link,
    pub id: String,
    pub key: KeyPair,
    /// The master's keys once trusted (set by [`auth`]).
    pub master: Arc<RwLock<Option<PublicKeys>>>,
    /// What the master process that accepted us gave for our requests.
    pub admission: Arc<RwLock<Admission>>,
    /// The runtime, for blocking calls from function threads.
    pub handle: tokio::runtime::Handle,
    pub auth: Arc<AuthSignal>,
}

impl MasterClient {
    pub fn master_key(&self) -> Option<PublicKeys> {
        self.master.read().ok().and_then(|g| *g)
    }

    /// What the accepting master process gave for our requests.
    pub fn admission(&self) -> Admission {
        self.admission
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    /// Send `body` and return the master's answer with the request it
    /// answers (its nonce binds sealed data). Error replies become
    /// [`RequestError::Refused`].
    pub async fn request(
        &self,
        body: RequestBody,
        timeout: Duration,
    ) -> Result<(Request, ReplyBody), RequestError> {
        self.send_renewing(body, false, timeout).await
    }

    /// [`MasterClient::request`] with the body sealed to the master: for
    /// anything secret (returns, pillar requests, state compiles).
    pub async fn request_sealed(
        &self,
        body: RequestBody,
        timeout: Duration,
    ) -> Result<(Request, ReplyBody), RequestError> {
        self.send_renewing(body, true, timeout).await
    }

    /// [`MasterClient::request_sealed`] without waiting for a new
    /// authentication when refused (for the auth loop's own requests).
    pub async fn request_sealed_once(
        &self,
        body: RequestBody,
        timeout: Duration,
    ) -> Result<(Request, ReplyBody), RequestError> {
        self.send(&body, true, timeout).await
    }

    /// Send; when the master answers that it does not know us (key not
    /// accepted, or it lost our auth data), authenticate again and retry
    /// once.
    async fn send_renewing(
        &self,
        body: RequestBody,
        sealed: bool,
        timeout: Duration,
    ) -> Result<(Request, ReplyBody), RequestError> {
        // Sent by reference: a return is hundreds of kilobytes, and only
        // an unsealed request (small ones) is copied into its message.
        match self.send(&body, sealed, timeout).await {
            Err(RequestError::Refused {
                code: ErrorCode::NotAccepted,
                message,
            }) => {
                if !self.auth.renew(RENEW_AUTH_WAIT).await {
                    return Err(RequestError::Refused {
                        code: ErrorCode::NotAccepted,
                        message,
                    });
                }
                self.send(&body, sealed, timeout).await
            }
            other => other,
        }
    }

    async fn send(
        &self,
        body: &RequestBody,
        sealed: bool,
        timeout: Duration,
    ) -> Result<(Request, ReplyBody), RequestError> {
        let master = self.master_key().ok_or(RequestError::NoMasterKey)?;
        let admission = self.admission();
        let req = match (sealed, &admission.request_key) {
            (true, Some(key)) => Request::sealed_with_key(key, &self.id, body)?,
            (true, None) => Request::sealed(&master.x25519, &self.id, body)?,
            (false, _) => Request::new(body.clone())?,
        }
        .waiting(timeout)
        .to_instance(admission.instance);
        let v = self.link.call(&self.key, &req, timeout).await?;
        if v.signer != *master.ed25519 {
            return Err(RequestError::WrongSigner);
        }
        match v.msg.msg {
            ReplyBody::Error(e) => {
                if e.code == ErrorCode::Expired {
                    // Answered in time, yet expired on arrival: this host's
                    // clock is behind the master's. Follow it from now on.
                    brine_protocol::crypto::follow_master_clock(v.msg.created_ms);
                }
                Err(RequestError::Refused {
                    code: e.code,
                    message: e.message,
                })
            }
            body => Ok((req, body)),
        }
    }

    /// [`MasterClient::request`] from a function's (blocking) thread.
    pub fn request_blocking(
        &self,
        body: RequestBody,
        timeout: Duration,
    ) -> Result<(Request, ReplyBody), RequestError> {
        self.handle.block_on(self.request(body, timeout))
    }
}
