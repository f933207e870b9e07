//! Minion authentication (Salt's `_auth`): the request must be signed by the
//! key it offers; the key store decides (accepted, pending, rejected,
//! denied, `auto_accept`). An accepted minion's grains go to the minion
//! cache for targeting and compiles.

use super::events::bus::EventBus;
use super::events::tags::{self, AuthAct};
use super::minion_cache::MinionCache;
use super::session::Session;
use crate::keys::{KeyStore, KeyStoreError};
use brine_core::Value;
use brine_protocol::crypto::RequestKeys;
use brine_protocol::crypto::{Nonce, PublicKeys};
use brine_protocol::messages::{
    aad, seal_data, AuthReply, AuthRequest, AuthStatus, ErrorCode, ErrorReply, ReplyBody,
};
use serde_bytes::ByteArray;

/// "Too many pending keys" is logged once a minute, not per refusal.
static PENDING_FULL_LOG: OncePer = OncePer::new(60_000);
/// Likewise new ids coming too fast.
static PENDING_RATE_LOG: OncePer = OncePer::new(60_000);

/// Most addresses [`PendingRate`] remembers in a minute.
const MAX_RATE_ADDRESSES: usize = 65_536;

/// New pending ids per address and minute (`pending_key_rate`), so that a
/// flood of unauthenticated auths with new ids cannot fill
/// `max_pending_keys` from one address in seconds. Memory: the addresses
/// of the current minute, at most [`MAX_RATE_ADDRESSES`] (past it, new
/// addresses wait for the next minute).
#[derive(Debug)]
pub struct PendingRate {
    per_minute: u32,
    seen: std::sync::Mutex<(u64, std::collections::HashMap<std::net::IpAddr, u32>)>,
}

impl PendingRate {
    pub fn new(per_minute: u32) -> PendingRate {
        PendingRate {
            per_minute,
            seen: Default::default(),
        }
    }

    /// Whether a new pending id from `from` may be filed now (counted
    /// when it may). An unknown address counts as one.
    pub fn allow(&self, from: Option<std::net::IpAddr>) -> bool {
        if self.per_minute == 0 {
            return true;
        }
        let minute = brine_protocol::crypto::local_now_ms() / 60_000;
        let ip = from.unwrap_or(std::net::IpAddr::from([0, 0, 0, 0]));
        let mut g = self.seen.lock().unwrap_or_else(|p| p.into_inner());
        if g.0 != minute {
            *g = (minute, Default::default());
        }
        if g.1.len() >= MAX_RATE_ADDRESSES && !g.1.contains_key(&ip) {
            return false;
        }
        let n = g.1.entry(ip).or_insert(0);
        if *n >= self.per_minute {
            return false;
        }
        *n += 1;
        true
    }
}
/// Likewise an unreadable key file (anyone may claim its id).
static BAD_KEY_LOG: OncePer = OncePer::new(60_000);

/// A log line at most once per period.
struct OncePer {
    period_ms: u64,
    last_ms: std::sync::atomic::AtomicU64,
}

impl OncePer {
    const fn new(period_ms: u64) -> OncePer {
        OncePer {
            period_ms,
            last_ms: std::sync::atomic::AtomicU64::new(0),
        }
    }

    fn allow(&self) -> bool {
        use std::sync::atomic::Ordering;
        let now = brine_protocol::crypto::local_now_ms();
        let last = self.last_ms.load(Ordering::Acquire);
        (last == 0 || now.saturating_sub(last) >= self.period_ms)
            && self
                .last_ms
                .compare_exchange(last, now, Ordering::AcqRel, Ordering::Acquire)
                .is_ok()
    }
}

/// What an auth consults and changes on the master.
pub struct Authenticator<'a> {
    pub keys: &'a KeyStore,
    pub cache: &'a MinionCache,
    pub session: &'a Session,
    pub master_public: PublicKeys,
    pub auto_accept: bool,
    /// This master process (see [`brine_protocol::messages::Request::to`]).
    pub instance: Nonce,
    /// Where an accepted minion's request key comes from.
    pub request_keys: &'a RequestKeys,
    /// Where `salt/auth` goes (when `auth_events`).
    pub events: Option<&'a EventBus>,
    /// The address the request came from, and how fast new ids may come.
    pub from: Option<std::net::IpAddr>,
    pub pending_rate: &'a PendingRate,
}

impl Authenticator<'_> {
    /// Answer `req`, signed by `signer` with `request_nonce`.
    pub fn handle(&self, request_nonce: &Nonce, req: &AuthRequest, signer: &[u8; 32]) -> ReplyBody {
        let Authenticator {
            keys,
            cache,
            session,
            master_public,
            auto_accept,
            instance,
            request_keys,
            events,
            from,
            pending_rate,
        } = *self;
        let fire = |act: AuthAct| {
            if let Some(bus) = events.filter(|b| b.listened()) {
                let (tag, data) = tags::auth(
                    &req.id,
                    act,
                    &brine_protocol::keys::public_to_text(&req.keys),
                );
                bus.fire(&tag, data);
            }
        };

        if *req.keys.ed25519 != *signer {
            tracing::warn!(
                "auth for {:?} signed by another key than the one offered; refused",
                req.id
            );
            return ReplyBody::Error(ErrorReply {
                code: ErrorCode::Unauthorized,
                message: "the request must be signed by the offered key".into(),
            });
        }
        let paced = keys.authenticate_paced(&req.id, &req.keys, auto_accept, &mut || {
            pending_rate.allow(from)
        });
        let status = match paced {
            Ok(s) => s,
            Err(e @ KeyStoreError::PendingTooFast { .. }) => {
                fire(AuthAct::Full);
                if PENDING_RATE_LOG.allow() {
                    let who = from.map_or("an unknown address".to_string(), |ip| ip.to_string());
                    tracing::warn!("{e}: {who} (logged once a minute)");
                }
                return ReplyBody::Error(ErrorReply {
                    code: ErrorCode::NotAccepted,
                    message: "too many new minion ids from this address; try again later".into(),
                });
            }
            Err(e @ KeyStoreError::TooManyPending { .. }) => {
                fire(AuthAct::Full);
                if PENDING_FULL_LOG.allow() {
                    tracing::warn!("{e} (logged once a minute)");
                }
                return ReplyBody::Error(ErrorReply {
                    code: ErrorCode::NotAccepted,
                    message: "the master holds too many pending keys; try again later".into(),
                });
            }
            Err(e @ KeyStoreError::KeyFile(_)) => {
                if BAD_KEY_LOG.allow() {
                    tracing::error!(
                        "minion {}: its key file cannot be read: {e}; it cannot authenticate \
                         until the file is fixed or the key deleted (brine-key -d {}) \
                         (logged once a minute)",
                        req.id,
                        req.id
                    );
                }
                return ReplyBody::Error(ErrorReply {
                    code: ErrorCode::Internal,
                    message: "the master cannot read this minion's key file".into(),
                });
            }
            Err(e) => {
                tracing::error!("auth for {:?}: {e}", req.id);
                return ReplyBody::Error(ErrorReply {
                    code: ErrorCode::Internal,
                    message: "the master could not check the key".into(),
                });
            }
        };
        match status {
            AuthStatus::Accepted => fire(AuthAct::Accept),
            AuthStatus::Pending => fire(AuthAct::Pend),
            AuthStatus::Rejected => fire(AuthAct::Rejected),
            AuthStatus::Denied => fire(AuthAct::Denied),
            AuthStatus::InvalidId => {}
        }
        let (mut sealed_session, mut request_key) = (None, None);
        match status {
            AuthStatus::Accepted => {
                match session.seal_for(keys, &req.id, &req.keys, request_nonce) {
                    Ok(s) => sealed_session = Some(s),
                    Err(e) => tracing::error!("auth for {}: {e}", req.id),
                }
                let key = request_keys.for_minion(&req.id, &req.keys.ed25519);
                match seal_data(
                    &req.keys.x25519,
                    &key,
                    &aad::request_key(&req.id, request_nonce),
                ) {
                    Ok(s) => request_key = Some(s),
                    Err(e) => tracing::error!("auth for {}: {e}", req.id),
                }
                tracing::debug!("minion {} authenticated", req.id);
                // Built only now, for an accepted key.
                let grains = match req.grains.unpack() {
                    Value::Map(mut g) => {
                        // Salt sets grains['id'] to the id the minion uses.
                        g.insert("id".into(), Value::Str(req.id.clone()));
                        Value::Map(g)
                    }
                    _ => Value::new_map(),
                };
                if let Err(e) = cache.set_auth(&req.id, grains, req.pillarenv.clone()) {
                    tracing::warn!("{e}");
                }
            }
            AuthStatus::Pending => {
                tracing::info!("minion {} is waiting for its key to be accepted", req.id)
            }
            AuthStatus::Rejected => tracing::info!("minion {}: key rejected", req.id),
            AuthStatus::Denied => tracing::warn!(
                "minion {} offered a key that differs from the one on file; denied",
                req.id
            ),
            AuthStatus::InvalidId => tracing::warn!("refused an invalid minion id {:?}", req.id),
        }
        ReplyBody::Auth(AuthReply {
            status,
            master: master_public,
            instance: (status == AuthStatus::Accepted).then(|| ByteArray::new(instance)),
            session: sealed_session,
            request_key,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use brine_protocol::crypto::KeyPair;
    use brine_protocol::messages::PackedValue;
    use serde_json::json;

    #[test]
    fn new_pending_ids_are_paced_per_address_and_minute() {
        let rate = PendingRate::new(3);
        let a = Some(std::net::IpAddr::from([10, 0, 0, 1]));
        let b = Some(std::net::IpAddr::from([10, 0, 0, 2]));
        assert!((0..3).all(|_| rate.allow(a)));
        assert!(!rate.allow(a));
        assert!(rate.allow(b));
        assert!(PendingRate::new(0).allow(a));
    }

    #[test]
    fn salt_auth_flow_and_grains_cached_only_when_accepted() {
        let td = tempfile::tempdir().unwrap();
        let keys = KeyStore::create(&td.path().join("pki")).unwrap();
        let master = keys.master_keys().unwrap().public();
        let cache = MinionCache::open(&td.path().join("minions")).unwrap();
        let session = Session::new().unwrap();
        let kp = KeyPair::generate().unwrap();
        let req = AuthRequest {
            id: "web1".into(),
            keys: kp.public(),
            grains: PackedValue::pack(&Value::from_json(&json!({"os": "Debian"}))).unwrap(),
            pillarenv: Some("dev".into()),
        };
        let signer = *kp.public().ed25519;
        let request_keys = RequestKeys::generate().unwrap();
        let rate = PendingRate::new(0);
        let auth = |auto_accept| Authenticator {
            keys: &keys,
            cache: &cache,
            session: &session,
            master_public: master,
            auto_accept,
            instance: [7; 16],
            request_keys: &request_keys,
            events: None,
            from: None,
            pending_rate: &rate,
        };
        let status = |r: ReplyBody| match r {
            ReplyBody::Auth(a) => Some(a.status),
            _ => None,
        };
        let r = auth(false).handle(&[1; 16], &req, &signer);
        assert_eq!(status(r), Some(AuthStatus::Pending));
        assert!(cache.get("web1").is_none());
        keys.accept("web1", crate::keys::KeyState::Pending).unwrap();
        let r = auth(false).handle(&[1; 16], &req, &signer);
        assert_eq!(status(r), Some(AuthStatus::Accepted));
        assert_eq!(
            cache.get("web1").unwrap().grains().to_json(),
            json!({"os": "Debian", "id": "web1"})
        );
        assert_eq!(cache.get("web1").unwrap().pillarenv.as_deref(), Some("dev"));
        // Another key for the same id: denied.
        let kp2 = KeyPair::generate().unwrap();
        let req2 = AuthRequest {
            keys: kp2.public(),
            ..req.clone()
        };
        let r = auth(true).handle(&[1; 16], &req2, &kp2.public().ed25519);
        assert_eq!(status(r), Some(AuthStatus::Denied));
        // Offered key not the signer: refused outright.
        let r = auth(true).handle(&[1; 16], &req2, &signer);
        assert!(matches!(
            r,
            ReplyBody::Error(ErrorReply {
                code: ErrorCode::Unauthorized,
                ..
            })
        ));
        // Rejected stays rejected, even with auto_accept.
        keys.reject("web1", crate::keys::KeyState::Accepted)
            .unwrap();
        let r = auth(true).handle(&[1; 16], &req, &signer);
        assert_eq!(status(r), Some(AuthStatus::Rejected));
    }
}
