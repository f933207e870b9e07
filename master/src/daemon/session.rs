//! The session key publications are encrypted with (Salt's AES session
//! key): made at start, handed to each accepted minion sealed to it when it
//! authenticates, and replaced as soon as a key that holds it is no longer
//! accepted (`brine-key -d` / `-r`, or another key accepted for the same
//! id), so that key cannot read the next publication. Holders are tracked
//! by key, not by id. The others notice a publication under a key they do
//! not have, authenticate again and get the new one.

use crate::keys::{AcceptedStamp, KeyStore, KeyStoreError};
use brine_protocol::crypto::{CryptoError, Nonce, PublicKeys, Sealed, SessionKey};
use brine_protocol::messages::{aad, seal_data, WireError};
use std::collections::BTreeSet;
use std::sync::{Arc, Mutex};

#[derive(Debug, thiserror::Error)]
pub enum SessionError {
    #[error("cannot make a session key: {0}")]
    Crypto(#[from] CryptoError),
    #[error("cannot list the accepted keys: {0}")]
    Keys(#[from] KeyStoreError),
    #[error("cannot seal the session key: {0}")]
    Wire(#[from] WireError),
    #[error("the key of minion '{0}' changed while it authenticated")]
    KeyChanged(String),
}

struct State {
    key: Arc<SessionKey>,
    /// Who the current key was handed to: each minion id with its
    /// signing key (an id whose key was replaced is there twice until the
    /// next publication rotates; bounded by the keys accepted meanwhile).
    holders: BTreeSet<(String, [u8; 32])>,
    /// The key store's settled stamp when every holder's key was last
    /// found accepted: unchanged since, no key can have been deleted or
    /// replaced.
    checked: Option<AcceptedStamp>,
}

pub struct Session {
    state: Mutex<State>,
}

impl std::fmt::Debug for Session {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let state = self.lock();
        f.debug_struct("Session")
            .field("key", &state.key)
            .field("holders", &state.holders.len())
            .finish()
    }
}

impl Session {
    pub fn new() -> Result<Session, SessionError> {
        Ok(Session {
            state: Mutex::new(State {
                key: Arc::new(SessionKey::generate()?),
                holders: BTreeSet::new(),
                checked: None,
            }),
        })
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The current key, sealed to `minion` (just authenticated and
    /// accepted) for the auth reply answering `request_nonce`.
    pub fn seal_for(
        &self,
        keys: &KeyStore,
        id: &str,
        minion: &PublicKeys,
        request_nonce: &Nonce,
    ) -> Result<Sealed, SessionError> {
        let mut state = self.lock();
        // Read again under the lock: a key replaced since the auth read it
        // gets nothing; one replaced after this is a holder already, and
        // the change moves the store's stamp past `checked`.
        match keys.accepted(id)? {
            Some(k) if k.ed25519 == minion.ed25519 => {}
            _ => return Err(SessionError::KeyChanged(id.to_string())),
        }
        let sealed = seal_data(
            &minion.x25519,
            &*state.key,
            &aad::session(id, request_nonce),
        )?;
        state.holders.insert((id.to_string(), *minion.ed25519));
        Ok(sealed)
    }

    /// The key to encrypt a publication with: a new one first if a key
    /// holding the current one is no longer accepted (its id deleted or
    /// rejected, or another key accepted for it).
    pub fn for_publication(&self, keys: &KeyStore) -> Result<Arc<SessionKey>, SessionError> {
        // Locked before the keys are read: an authentication writes its
        // key before it becomes a holder (under this lock), so every
        // holder seen here finds its key. Read first, a minion accepted in
        // between looked "no longer accepted" and made the whole fleet
        // authenticate again.
        let mut state = self.lock();
        let stamp = keys.accepted_stamp();
        // Nothing changed since every holder's key was last found
        // accepted: no key to read.
        if stamp.is_some() && stamp == state.checked {
            return Ok(state.key.clone());
        }
        // A key that cannot be read is no longer one to trust.
        let gone: Vec<&String> = state
            .holders
            .iter()
            .filter(|(id, held)| !matches!(keys.accepted(id), Ok(Some(k)) if *k.ed25519 == *held))
            .map(|(id, _)| id)
            .collect();
        if !gone.is_empty() {
            let names = gone
                .iter()
                .map(|s| s.as_str())
                .collect::<Vec<_>>()
                .join(", ");
            tracing::warn!(
                "rotating the session key: {names} no longer accepted; the other minions \
                 authenticate again"
            );
            state.key = Arc::new(SessionKey::generate()?);
            state.holders.clear();
        }
        state.checked = stamp.filter(AcceptedStamp::settled);
        Ok(state.key.clone())
    }

    /// The current key (tests).
    pub fn current(&self) -> Arc<SessionKey> {
        self.lock().key.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::keys::KeyState;
    use brine_protocol::crypto::KeyPair;
    use brine_protocol::messages::open_data;

    /// Once the `minions/` folder has settled, a publication reads no key
    /// while it stays as it was: a key file damaged in place (which moves
    /// no folder stamp) goes unseen, until the folder changes.
    #[test]
    fn a_settled_key_folder_spares_reading_the_keys() {
        let td = tempfile::tempdir().unwrap();
        let keys = KeyStore::create(&td.path().join("pki")).unwrap();
        let session = Session::new().unwrap();
        let (web1, web2) = (KeyPair::generate().unwrap(), KeyPair::generate().unwrap());
        keys.authenticate("web1", &web1.public(), true).unwrap();
        keys.authenticate("web2", &web2.public(), true).unwrap();
        session
            .seal_for(&keys, "web1", &web1.public(), &[1; 16])
            .unwrap();
        std::thread::sleep(brine_compile::inputs::SETTLED + std::time::Duration::from_millis(100));
        let first = session.for_publication(&keys).unwrap();
        std::fs::write(td.path().join("pki/minions/web1"), "not a key\n").unwrap();
        assert_eq!(session.for_publication(&keys).unwrap(), first);
        // Any change to the folder: every holder's key is read again.
        keys.delete("web2", KeyState::Accepted).unwrap();
        assert_ne!(session.for_publication(&keys).unwrap().id, first.id);
    }

    #[test]
    fn rotates_when_a_holder_is_no_longer_accepted() {
        let td = tempfile::tempdir().unwrap();
        let keys = KeyStore::create(&td.path().join("pki")).unwrap();
        let session = Session::new().unwrap();
        let web1 = KeyPair::generate().unwrap();
        let web2 = KeyPair::generate().unwrap();
        keys.authenticate("web1", &web1.public(), true).unwrap();
        keys.authenticate("web2", &web2.public(), true).unwrap();
        let nonce = [7u8; 16];
        let sealed = session
            .seal_for(&keys, "web1", &web1.public(), &nonce)
            .unwrap();
        let got: SessionKey = open_data(&web1, &sealed, &aad::session("web1", &nonce)).unwrap();
        assert_eq!(got, *session.current());
        // Sealed to web1 only: web2 cannot open it, nor with another nonce.
        assert!(open_data::<SessionKey>(&web2, &sealed, &aad::session("web1", &nonce)).is_err());
        assert!(open_data::<SessionKey>(&web1, &sealed, &aad::session("web1", &[8; 16])).is_err());

        let first = session.for_publication(&keys).unwrap();
        assert_eq!(first, session.current());
        // web2 never held the key: deleting it changes nothing.
        keys.delete("web2", KeyState::Accepted).unwrap();
        assert_eq!(session.for_publication(&keys).unwrap(), first);
        // web1 held it: the next publication goes out under a new key.
        keys.delete("web1", KeyState::Accepted).unwrap();
        let second = session.for_publication(&keys).unwrap();
        assert_ne!(second.id, first.id);
        assert_eq!(session.for_publication(&keys).unwrap(), second);
    }

    /// Another key accepted for an id whose old key held the session key:
    /// the next publication goes out under a new one, and the old key
    /// gets none when it authenticates again.
    #[test]
    fn rotates_when_a_holders_key_is_replaced_under_the_same_id() {
        let td = tempfile::tempdir().unwrap();
        let keys = KeyStore::create(&td.path().join("pki")).unwrap();
        let session = Session::new().unwrap();
        let old = KeyPair::generate().unwrap();
        let new = KeyPair::generate().unwrap();
        keys.authenticate("web1", &old.public(), true).unwrap();
        session
            .seal_for(&keys, "web1", &old.public(), &[1; 16])
            .unwrap();
        let first = session.for_publication(&keys).unwrap();
        // Deleted and a new key accepted before the next publication: the
        // id is accepted all along.
        // The new key is handed the current one too before it.
        keys.delete("web1", KeyState::Accepted).unwrap();
        keys.authenticate("web1", &new.public(), true).unwrap();
        session
            .seal_for(&keys, "web1", &new.public(), &[3; 16])
            .unwrap();
        let second = session.for_publication(&keys).unwrap();
        assert_ne!(second.id, first.id);
        assert!(matches!(
            session.seal_for(&keys, "web1", &old.public(), &[2; 16]),
            Err(SessionError::KeyChanged(_))
        ));
        session
            .seal_for(&keys, "web1", &new.public(), &[4; 16])
            .unwrap();
        assert_eq!(session.for_publication(&keys).unwrap(), second);
    }

    /// Minions accepted while publications go out never look "no longer
    /// accepted": the key does not rotate.
    #[test]
    fn minions_accepted_during_a_publication_keep_the_key() {
        let td = tempfile::tempdir().unwrap();
        let keys = Arc::new(KeyStore::create(&td.path().join("pki")).unwrap());
        let session = Arc::new(Session::new().unwrap());
        let first = session.current();
        let auths: Vec<_> = (0..4)
            .map(|t| {
                let (keys, session) = (keys.clone(), session.clone());
                std::thread::spawn(move || {
                    for n in 0..50 {
                        let id = format!("m{t}-{n}");
                        let kp = KeyPair::generate().unwrap();
                        keys.authenticate(&id, &kp.public(), true).unwrap();
                        session
                            .seal_for(&keys, &id, &kp.public(), &[0; 16])
                            .unwrap();
                    }
                })
            })
            .collect();
        while !auths.iter().all(|a| a.is_finished()) {
            assert_eq!(session.for_publication(&keys).unwrap().id, first.id);
            std::thread::sleep(std::time::Duration::from_micros(200));
        }
        for a in auths {
            a.join().unwrap();
        }
        assert_eq!(session.for_publication(&keys).unwrap().id, first.id);
    }
}
