//! Authentication (Salt's `sign_in`): introduce the minion's key, grains
//! and `pillarenv`; wait while the key is pending; pin the master's key on
//! acceptance and refuse a changed one.

use super::{
    keys, pillar, returns, Admission, Identity, Shared, Standing, EX_MASTER_KEY, EX_NOPERM,
};
use brine_core::Value;
use brine_protocol::crypto::PublicKeys;
use brine_protocol::messages::{
    aad, open_data, AuthRequest, AuthStatus, ErrorCode, ReplyBody, Request, RequestBody,
};
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

/// How long one auth round trip may take.
const AUTH_TIMEOUT: Duration = Duration::from_secs(30);
/// The first retry after the master could not be reached; doubles up to
/// `acceptance_wait_time`.
const FIRST_RETRY: Duration = Duration::from_secs(1);

/// What one auth attempt came to.
#[derive(Debug)]
pub enum Outcome {
    /// With what the master process gave for our requests.
    Accepted(PublicKeys, Admission),
    /// Pending, with the key the master offered (checked against the pin
    /// and `master_finger`, but not pinned).
    Pending(PublicKeys),
    /// No usable answer; try again later.
    Retry(String),
    /// Stop the minion: exit code and message.
    Fatal(i32, String),
}

/// Check a key the master offered while our key is still pending: it must
/// match the pin if there is one, and `master_finger` if set. Nothing is
/// written.
pub fn check_offered(
    pki_dir: &Path,
    offered: &PublicKeys,
    master_finger: Option<&str>,
) -> Result<(), keys::MinionKeyError> {
    if let Some(pinned) = keys::pinned_master(pki_dir)? {
        if pinned != *offered {
            return Err(keys::MinionKeyError::MasterChanged {
                path: pki_dir.join(keys::MASTER_PUB_FILE),
                pinned: pinned.fingerprint(),
                offered: offered.fingerprint(),
            });
        }
        return Ok(());
    }
    if let Some(expected) = master_finger {
        let expected = keys::normalize_finger(expected)?;
        let got = offered.fingerprint();
        if expected != got {
            return Err(keys::MinionKeyError::FingerMismatch {
                expected,
                offered: got,
            });
        }
    }
    Ok(())
}

fn key_refusal(e: keys::MinionKeyError) -> Outcome {
    match e {
        keys::MinionKeyError::KeyFile(_) => Outcome::Retry(e.to_string()),
        other => Outcome::Fatal(EX_MASTER_KEY, other.to_string()),
    }
}

/// One auth round trip for `ident`; a second one at once when the master
/// refused the first as stale or early (this host's clock is off: the
/// refusal carries the master's time, which the minion then follows).
pub async fn attempt(shared: &Shared, ident: &Identity) -> Outcome {
    match attempt_once(shared, ident).await {
        Outcome::Retry(why) if why.starts_with(CLOCK_REFUSAL) => attempt_once(shared, ident).await,
        other => other,
    }
}

/// How [`attempt_once`]'s refusal for a stamp off the master's clock begins.
const CLOCK_REFUSAL: &str = "the master refused the auth request";

async fn attempt_once(shared: &Shared, ident: &Identity) -> Outcome {
    let m = ident.snapshot();
    let grains = match brine_protocol::messages::PackedValue::pack(&Value::Map(
        brine_core::Map::clone(&m.grains),
    )) {
        Ok(g) => g,
        Err(e) => return Outcome::Retry(format!("cannot pack the grains: {e}")),
    };
    let body = RequestBody::Auth(AuthRequest {
        id: ident.id().to_string(),
        keys: ident.client.key.public(),
        grains,
        pillarenv: shared.config.envs.pillarenv.clone(),
    });
    drop(m);
    let req = match Request::new(body) {
        Ok(r) => r.waiting(AUTH_TIMEOUT),
        Err(e) => return Outcome::Retry(e.to_string()),
    };
    let reply = match ident
        .client
        .link
        .call(&ident.client.key, &req, AUTH_TIMEOUT)
        .await
    {
        Ok(r) => r,
        Err(e) => return Outcome::Retry(e.to_string()),
    };
    let a = match reply.msg.msg {
        ReplyBody::Auth(a) => a,
        ReplyBody::Error(e) if e.code == ErrorCode::Replay => {
            // Follow the master's clock if this reply is the master's: the
            // key already trusted, or (first contact) none yet.
            let trusted = shared
                .master_key()
                .is_none_or(|k| *k.ed25519 == reply.signer);
            if trusted {
                brine_protocol::crypto::follow_master_clock(reply.msg.created_ms);
            }
            return Outcome::Retry(format!("{CLOCK_REFUSAL}: {}", e.message));
        }
        ReplyBody::Error(e) => {
            // An unsigned-by-the-offered-key error cannot be trusted to stop
            // the minion: retry.
            return Outcome::Retry(format!(
                "the master answered the auth request with an error: {}",
                e.message
            ));
        }
        _ => return Outcome::Retry("unexpected answer to the auth request".into()),
    };
    // The reply must be signed by the key it offers: a third party cannot
    // make us pin its key.
    if reply.signer != *a.master.ed25519 {
        return Outcome::Retry("auth reply not signed by the master key it offers".into());
    }
    let finger = shared.config.master_finger.as_deref();
    match a.status {
        AuthStatus::Accepted => match keys::verify_master(&ident.pki_dir, &a.master, finger) {
            Ok(trust) => {
                if trust == keys::MasterTrust::FirstContact {
                    tracing::info!(
                        "{}: pinned the master key {}",
                        ident.id(),
                        a.master.fingerprint()
                    );
                }
                brine_protocol::crypto::follow_master_clock(reply.msg.created_ms);
                shared.publications_from(reply.msg.created_ms);
                let aad = aad::session(ident.id(), &req.nonce);
                match a
                    .session
                    .as_ref()
                    .map(|s| open_data(&ident.client.key, s, &aad))
                {
                    Some(Ok(session)) => shared.set_session(session),
                    Some(Err(e)) => {
                        return Outcome::Retry(format!("cannot open the session key: {e}"))
                    }
                    None => return Outcome::Retry("the master sent no session key".into()),
                }
                let request_key = match a.request_key.as_ref().map(|k| {
                    open_data(
                        &ident.client.key,
                        k,
                        &aad::request_key(ident.id(), &req.nonce),
                    )
                }) {
                    Some(Ok(k)) => Some(k),
                    Some(Err(e)) => {
                        return Outcome::Retry(format!("cannot open the request key: {e}"))
                    }
                    // A master that hands out none: requests are sealed
                    // to its key.
                    None => None,
                };
                Outcome::Accepted(
                    a.master,
                    Admission {
                        instance: a.instance.map(|i| *i),
                        request_key,
                    },
                )
            }
            Err(e) => key_refusal(e),
        },
        AuthStatus::Pending => match check_offered(&ident.pki_dir, &a.master, finger) {
            Ok(()) => Outcome::Pending(a.master),
            Err(e) => key_refusal(e),
        },
        AuthStatus::Rejected | AuthStatus::Denied => Outcome::Fatal(
            EX_NOPERM,
            format!(
                "The master has rejected the public key of minion '{}'! To repair this, delete \
                 the key for this minion on the master (brine-key -d {}) and restart this minion. \
                 The minion will now exit.",
                ident.id(),
                ident.id()
            ),
        ),
        AuthStatus::InvalidId => Outcome::Fatal(
            EX_NOPERM,
            format!(
                "The master refused the minion id '{}' as invalid.",
                ident.id()
            ),
        ),
    }
}

/// Two identities of one process were offered different master keys.
#[derive(Debug, thiserror::Error)]
#[error("identities of this process were offered different master keys ({held} and {offered})")]
pub struct MasterKeyConflict {
    held: String,
    offered: String,
}

/// Make `key` the one publications are checked against, unless another
/// identity of this process already trusts a different key (then refuse:
/// one process, one master).
fn share_master_key(shared: &Shared, key: PublicKeys) -> Result<(), MasterKeyConflict> {
    let mut g = match shared.master.write() {
        Ok(g) => g,
        Err(p) => p.into_inner(),
    };
    match *g {
        Some(k) if k != key => Err(MasterKeyConflict {
            held: k.fingerprint(),
            offered: key.fingerprint(),
        }),
        _ => {
            *g = Some(key);
            Ok(())
        }
    }
}

/// Take what an accepting master gave `ident`: its key (shared by the
/// process's identities; a different one is a conflict) and the
/// admission its requests carry. A job's own process takes the daemon's
/// this way instead of authenticating.
pub fn admit(
    shared: &Shared,
    ident: &Identity,
    key: PublicKeys,
    admission: Admission,
) -> Result<(), MasterKeyConflict> {
    share_master_key(shared, key)?;
    *ident
        .client
        .master
        .write()
        .unwrap_or_else(|p| p.into_inner()) = Some(key);
    *ident
        .client
        .admission
        .write()
        .unwrap_or_else(|p| p.into_inner()) = admission;
    Ok(())
}

/// Authenticate until accepted (or a fatal refusal, reported to the
/// process). Returns false when the minion must stop.
pub async fn authenticate(shared: &Shared, ident: &Identity) -> bool {
    let wait = shared.config.acceptance_wait_time;
    let mut retry = FIRST_RETRY.min(wait);
    let mut told_pending = false;
    loop {
        let sleep = match attempt(shared, ident).await {
            Outcome::Accepted(key, admission) => {
                if let Err(e) = admit(shared, ident, key, admission) {
                    let _ = shared.fatal.send((EX_MASTER_KEY, e.to_string())).await;
                    return false;
                }
                ident.client.auth.done.send_modify(|n| *n += 1);
                if told_pending {
                    tracing::info!("{}: key accepted by the master", ident.id());
                }
                return true;
            }
            Outcome::Pending(key) => {
                if let Err(e) = share_master_key(shared, key) {
                    let _ = shared.fatal.send((EX_MASTER_KEY, e.to_string())).await;
                    return false;
                }
                ident.standing.send_replace(Standing::Pending);
                if !told_pending {
                    tracing::error!(
                        "{}: the master has cached the public key for this minion; waiting for \
                         it to be accepted (retrying every {}s)",
                        ident.id(),
                        wait.as_secs()
                    );
                    told_pending = true;
                }
                wait
            }
            Outcome::Retry(why) => {
                tracing::warn!(
                    "{}: authentication failed: {why}; retrying in {retry:?}",
                    ident.id()
                );
                let r = retry;
                retry = (retry * 2).min(wait);
                r
            }
            Outcome::Fatal(code, msg) => {
                let _ = shared.fatal.send((code, msg)).await;
                return false;
            }
        };
        // A publication aimed at us while pending, or a reconnect, asks for
        // an early retry.
        tokio::select! {
            _ = tokio::time::sleep(sleep) => {}
            _ = ident.client.auth.reauth.notified() => {}
        }
    }
}

/// An identity's whole life: authenticate, fetch the pillar, serve; again
/// from the top when the master asks us to authenticate anew.
pub async fn identity_main(shared: Arc<Shared>, ident: Arc<Identity>) {
    // Tasks that end with this one (a failover minion closes a master's
    // session by aborting it): the next session's resender takes the queue
    // over, and its scheduler the schedule (the mine's job among them).
    struct OwnedTask(tokio::task::JoinHandle<()>);
    impl Drop for OwnedTask {
        fn drop(&mut self) {
            self.0.abort();
        }
    }
    let mut resender = None;
    let mut scheduler = None;
    loop {
        if !authenticate(&shared, &ident).await {
            return;
        }
        if ident.standing() != Standing::Ready {
            ident.standing.send_replace(Standing::Accepted);
            if !pillar::initial(&shared, &ident).await {
                // The master wants us to authenticate first.
                continue;
            }
            ident.standing.send_replace(Standing::Ready);
            tracing::info!("{}: ready", ident.id());
            let starting = ident.clone();
            tokio::spawn(async move { super::start_events::fire(&starting).await });
            shared.bus.join(&ident);
            if scheduler.is_none() {
                scheduler = Some(OwnedTask(tokio::spawn(super::scheduler::keep(
                    shared.clone(),
                    ident.clone(),
                ))));
            }
        }
        if resender.is_none() {
            resender = Some(OwnedTask(tokio::spawn(returns::resend_loop(
                ident.clone(),
                shared.others.clone(),
            ))));
        }
        ident.returns.wake();
        ident.client.auth.reauth.notified().await;
        tracing::debug!("{}: authenticating again", ident.id());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use brine_protocol::crypto::KeyPair;

    #[test]
    fn offered_key_is_checked_but_not_pinned_while_pending() {
        let td = tempfile::tempdir().unwrap();
        let m = KeyPair::generate().unwrap().public();
        let other = KeyPair::generate().unwrap().public();
        // No pin, no finger: fine, and nothing written.
        check_offered(td.path(), &m, None).unwrap();
        assert_eq!(keys::pinned_master(td.path()).unwrap(), None);
        // Wrong finger refused.
        assert!(matches!(
            check_offered(td.path(), &m, Some(&other.fingerprint())),
            Err(keys::MinionKeyError::FingerMismatch { .. })
        ));
        check_offered(td.path(), &m, Some(&m.fingerprint())).unwrap();
        // Once pinned, another key is a changed master.
        keys::verify_master(td.path(), &m, None).unwrap();
        check_offered(td.path(), &m, None).unwrap();
        let err = check_offered(td.path(), &other, None).unwrap_err();
        assert!(matches!(err, keys::MinionKeyError::MasterChanged { .. }));
        assert!(matches!(key_refusal(err), Outcome::Fatal(EX_MASTER_KEY, _)));
    }
}
