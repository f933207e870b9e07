//! `brine-key --import-salt-pki DIR`: bring a Salt master's decisions about
//! its minions across.
//!
//! Salt's minion keys are RSA; brine's are ed25519 + X25519, so no key can
//! be carried over — each minion makes a new one when brine-minion first
//! starts, and it arrives here pending like any new minion's. What carries
//! over is which ids the operator accepted, rejected or denied in Salt:
//! the ids are read from Salt's `pki_dir` (`minions/`, `minions_pre/`,
//! `minions_rejected/`, `minions_denied/`, one file per id), and a brine
//! key pending for an id Salt accepted is accepted, one for an id Salt
//! rejected or denied is rejected. Salt's own files are only read.
//!
//! This trusts the first brine key that arrives for a known id, as
//! accepting a pending key by hand does; where the network between the
//! minions and the master is not trusted, compare `brine-key -f ID` with
//! the minion's `brine-call --local key.finger` first (README, "Moving
//! from Salt").

use super::{KeyState, KeyStore, KeyStoreError};
use indexmap::IndexMap;
use std::path::{Path, PathBuf};

#[derive(Debug, thiserror::Error)]
pub enum SaltImportError {
    #[error(
        "{0}: not a Salt master's pki_dir (none of minions/, minions_pre/, \
         minions_rejected/, minions_denied/ is there)"
    )]
    NotSaltPki(PathBuf),
    #[error("{path}: cannot read it: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
}

/// The ids in a Salt master's `pki_dir`, by the state Salt keeps them in
/// (Salt's folder names are brine's), sorted; and files whose names are
/// not minion ids, left out.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SaltKeys {
    pub ids: IndexMap<KeyState, Vec<String>>,
    pub skipped: Vec<PathBuf>,
}

impl SaltKeys {
    pub fn of(&self, state: KeyState) -> &[String] {
        self.ids.get(&state).map(Vec::as_slice).unwrap_or_default()
    }
}

/// Read the ids of Salt's `pki_dir` (`/etc/salt/pki/master`).
pub fn read_salt_pki(dir: &Path) -> Result<SaltKeys, SaltImportError> {
    let mut keys = SaltKeys::default();
    let mut found = false;
    for state in KeyState::ALL {
        let sub = dir.join(state.dir_name());
        let rd = match std::fs::read_dir(&sub) {
            Ok(rd) => rd,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(source) => return Err(SaltImportError::Read { path: sub, source }),
        };
        found = true;
        let mut ids = Vec::new();
        for entry in rd {
            let entry = entry.map_err(|source| SaltImportError::Read {
                path: sub.clone(),
                source,
            })?;
            let path = entry.path();
            let name = entry.file_name().to_string_lossy().into_owned();
            // Salt keeps dot files (`.key_cache`) beside the keys.
            if name.starts_with('.') {
                continue;
            }
            if !path.is_file() || brine_protocol::keys::validate_id(&name).is_err() {
                keys.skipped.push(path);
                continue;
            }
            ids.push(name);
        }
        ids.sort();
        keys.ids.insert(state, ids);
    }
    if !found {
        return Err(SaltImportError::NotSaltPki(dir.to_path_buf()));
    }
    Ok(keys)
}

/// What the import will do with brine's keys, each list sorted.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Plan {
    /// Pending here, accepted in Salt: to accept.
    pub accept: Vec<String>,
    /// Pending here, rejected or denied in Salt: to reject.
    pub reject: Vec<String>,
    /// Accepted here and in Salt: nothing to do.
    pub already: Vec<String>,
    /// Accepted in Salt, no brine key yet (their brine-minion has not
    /// started, or has not reached this master).
    pub waiting: Vec<String>,
    /// Pending here, unknown to Salt or pending there: left pending.
    pub undecided: Vec<String>,
    /// Accepted here, rejected or denied in Salt: said, not changed.
    pub refused_there: Vec<String>,
}

/// Match brine's keys against Salt's decisions.
pub fn plan(salt: &SaltKeys, store: &KeyStore) -> Result<Plan, KeyStoreError> {
    let accepted_here = store.list(KeyState::Accepted)?;
    let pending_here = store.list(KeyState::Pending)?;
    let salt_accepted = salt.of(KeyState::Accepted);
    let refused = |id: &String| {
        salt.of(KeyState::Rejected).contains(id) || salt.of(KeyState::Denied).contains(id)
    };
    let mut p = Plan::default();
    for id in &pending_here {
        if salt_accepted.contains(id) {
            p.accept.push(id.clone());
        } else if refused(id) {
            p.reject.push(id.clone());
        } else {
            p.undecided.push(id.clone());
        }
    }
    for id in &accepted_here {
        if salt_accepted.contains(id) {
            p.already.push(id.clone());
        } else if refused(id) {
            p.refused_there.push(id.clone());
        }
    }
    p.waiting = salt_accepted
        .iter()
        .filter(|id| !accepted_here.contains(id) && !pending_here.contains(id))
        .cloned()
        .collect();
    for list in [
        &mut p.accept,
        &mut p.reject,
        &mut p.already,
        &mut p.waiting,
        &mut p.undecided,
        &mut p.refused_there,
    ] {
        list.sort();
    }
    Ok(p)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn salt_dir(root: &Path) -> PathBuf {
        let dir = root.join("salt-pki");
        for (sub, ids) in [
            ("minions", &["web1", "web2", "db1", "gone"][..]),
            ("minions_pre", &["new1"][..]),
            ("minions_rejected", &["bad1"][..]),
            ("minions_denied", &["dup1"][..]),
        ] {
            std::fs::create_dir_all(dir.join(sub)).unwrap();
            for id in ids {
                std::fs::write(dir.join(sub).join(id), "-----BEGIN PUBLIC KEY-----\n").unwrap();
            }
        }
        std::fs::write(dir.join("minions/.key_cache"), "").unwrap();
        std::fs::create_dir(dir.join("minions/not-a-key")).unwrap();
        std::fs::write(dir.join("master.pem"), "").unwrap();
        dir
    }

    #[test]
    fn reads_salts_ids_by_state() {
        let td = tempfile::tempdir().unwrap();
        let keys = read_salt_pki(&salt_dir(td.path())).unwrap();
        assert_eq!(keys.of(KeyState::Accepted), ["db1", "gone", "web1", "web2"]);
        assert_eq!(keys.of(KeyState::Pending), ["new1"]);
        assert_eq!(keys.of(KeyState::Denied), ["dup1"]);
        assert_eq!(keys.skipped.len(), 1, "{keys:?}");
        let err = read_salt_pki(td.path()).unwrap_err().to_string();
        assert!(err.contains("not a Salt master's pki_dir"), "{err}");
    }

    #[test]
    fn plans_from_salts_decisions() {
        let td = tempfile::tempdir().unwrap();
        let salt = read_salt_pki(&salt_dir(td.path())).unwrap();
        let store = KeyStore::create(&td.path().join("brine-pki")).unwrap();
        let pubkey = || {
            let pair = brine_protocol::crypto::KeyPair::generate().unwrap();
            brine_protocol::keys::public_to_text(&pair.public())
        };
        for (state, id) in [
            (KeyState::Pending, "web1"),
            (KeyState::Pending, "bad1"),
            (KeyState::Pending, "new1"),
            (KeyState::Pending, "stranger"),
            (KeyState::Accepted, "web2"),
            (KeyState::Accepted, "dup1"),
        ] {
            let path = store.key_path(state, id).unwrap();
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, pubkey()).unwrap();
        }
        let p = plan(&salt, &store).unwrap();
        assert_eq!(p.accept, ["web1"]);
        assert_eq!(p.reject, ["bad1"]);
        assert_eq!(p.already, ["web2"]);
        assert_eq!(p.waiting, ["db1", "gone"]);
        assert_eq!(p.undecided, ["new1", "stranger"]);
        assert_eq!(p.refused_there, ["dup1"]);
    }
}
