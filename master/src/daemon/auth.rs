//! Minion authentication (Salt's `_auth`): the request must be signed by the
//! key it offers; the key store decides (accepted, pending, rejected,
//! denied, `auto_accept`). An accepted minion's grains go to the minion
//! cache for targeting and compiles.

use super::minion_cache::MinionCache;
use crate::keys::KeyStore;
use brine_core::Value;
use brine_protocol::crypto::PublicKeys;
use brine_protocol::messages::{
    AuthReply, AuthRequest, AuthStatus, ErrorCode, ErrorReply, ReplyBody,
};

pub fn handle(
    keys: &KeyStore,
    cache: &MinionCache,
    master_public: PublicKeys,
    auto_accept: bool,
    req: &AuthRequest,
    signer: &[u8; 32],
) -> ReplyBody {
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
    let status = match keys.authenticate(&req.id, &req.keys, auto_accept) {
        Ok(s) => s,
        Err(e) => {
            tracing::error!("auth for {:?}: {e}", req.id);
            return ReplyBody::Error(ErrorReply {
                code: ErrorCode::Internal,
                message: "the master could not check the key".into(),
            });
        }
    };
    match status {
        AuthStatus::Accepted => {
            tracing::debug!("minion {} authenticated", req.id);
            let grains = match &req.grains {
                Value::Map(g) => {
                    // Salt sets grains['id'] to the id the minion uses.
                    let mut g = g.clone();
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
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use brine_protocol::crypto::KeyPair;
    use serde_json::json;

    #[test]
    fn salt_auth_flow_and_grains_cached_only_when_accepted() {
        let td = tempfile::tempdir().unwrap();
        let keys = KeyStore::create(&td.path().join("pki")).unwrap();
        let master = keys.master_keys().unwrap().public();
        let cache = MinionCache::open(&td.path().join("minions")).unwrap();
        let kp = KeyPair::generate().unwrap();
        let req = AuthRequest {
            id: "web1".into(),
            keys: kp.public(),
            grains: Value::from_json(&json!({"os": "Debian"})),
            pillarenv: Some("dev".into()),
        };
        let signer = *kp.public().ed25519;
        let status = |r: ReplyBody| match r {
            ReplyBody::Auth(a) => Some(a.status),
            _ => None,
        };
        let r = handle(&keys, &cache, master, false, &req, &signer);
        assert_eq!(status(r), Some(AuthStatus::Pending));
        assert!(cache.get("web1").is_none());
        keys.accept("web1", crate::keys::KeyState::Pending).unwrap();
        let r = handle(&keys, &cache, master, false, &req, &signer);
        assert_eq!(status(r), Some(AuthStatus::Accepted));
        assert_eq!(
            cache.get("web1").unwrap().grains.to_json(),
            json!({"os": "Debian", "id": "web1"})
        );
        assert_eq!(cache.get("web1").unwrap().pillarenv.as_deref(), Some("dev"));
        // Another key for the same id: denied.
        let kp2 = KeyPair::generate().unwrap();
        let req2 = AuthRequest {
            keys: kp2.public(),
            ..req.clone()
        };
        let r = handle(&keys, &cache, master, true, &req2, &kp2.public().ed25519);
        assert_eq!(status(r), Some(AuthStatus::Denied));
        // Offered key not the signer: refused outright.
        let r = handle(&keys, &cache, master, true, &req2, &signer);
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
        let r = handle(&keys, &cache, master, true, &req, &signer);
        assert_eq!(status(r), Some(AuthStatus::Rejected));
    }
}
