//! The minion's keys, as Salt keeps them in the minion's `pki_dir`
//! (default /etc/brine/pki/minion under `root_dir`, 0700):
//!
//! ```text
//! minion.key          private ed25519 + X25519 secrets (0600, made on first start)
//! minion.pub          public keys (the master files them under minions*/<id>)
//! minion_master.pub   the master's public keys, pinned on first contact
//! ```
//!
//! File formats: [`brine_protocol::keys`]. Fingerprints (`master_finger`,
//! `brine-key -f`): SHA-256 over the ed25519 then the X25519 public key, as
//! lowercase hex pairs joined by `:` — the shape of Salt's `master_finger`.

use brine_protocol::crypto::{KeyPair, PublicKeys};
use brine_protocol::keys::{self as keyfiles, KeyFileError};
use brine_runtime::context::WhichKey;
use std::path::{Path, PathBuf};

/// Base name of the minion's key files (`minion.key`, `minion.pub`).
pub const MINION_KEY_NAME: &str = "minion";
/// The pinned master public key file.
pub const MASTER_PUB_FILE: &str = "minion_master.pub";

#[derive(Debug, thiserror::Error)]
pub enum MinionKeyError {
    #[error(transparent)]
    KeyFile(#[from] KeyFileError),
    #[error(
        "the master key has changed: {path} pins fingerprint {pinned}, but the master offered \
         {offered}; the master could have been subverted. If the change is expected, remove \
         {path} and restart the minion"
    )]
    MasterChanged {
        path: PathBuf,
        pinned: String,
        offered: String,
    },
    #[error(
        "the master's fingerprint {offered} does not match master_finger {expected}; \
         refusing to trust this master"
    )]
    FingerMismatch { expected: String, offered: String },
    #[error("master_finger {0:?} is not a SHA-256 fingerprint (32 hex pairs separated by ':')")]
    BadFinger(String),
}

/// How the master's key came to be trusted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MasterTrust {
    /// It matches `minion_master.pub`.
    Pinned,
    /// No key was pinned: it was checked against `master_finger` if set,
    /// and written to `minion_master.pub`.
    FirstContact,
}

/// The minion's key pair, created (with `pki_dir`, 0700) on first start.
/// The fingerprint of the minion's key or of the master key it pinned, ''
/// when there is none (Salt's `key.finger`): the reader the minion hands
/// its functions ([`brine_runtime::context::KeyFinger`]).
pub fn finger(pki_dir: &Path, which: WhichKey) -> Result<String, String> {
    let path = match which {
        WhichKey::Minion => pki_dir.join(format!("{MINION_KEY_NAME}.pub")),
        WhichKey::PinnedMaster => pki_dir.join(MASTER_PUB_FILE),
    };
    if !path.is_file() {
        return Ok(String::new());
    }
    keyfiles::read_public(&path)
        .map(|k| k.fingerprint())
        .map_err(|e| e.to_string())
}

pub fn load_or_create(pki_dir: &Path) -> Result<KeyPair, MinionKeyError> {
    Ok(keyfiles::load_or_create_pair(pki_dir, MINION_KEY_NAME)?)
}

/// The pinned master key, if there is one.
pub fn pinned_master(pki_dir: &Path) -> Result<Option<PublicKeys>, MinionKeyError> {
    let path = pki_dir.join(MASTER_PUB_FILE);
    if !path.exists() {
        return Ok(None);
    }
    Ok(Some(keyfiles::read_public(&path)?))
}

/// Canonical form of a fingerprint for comparison: lowercase hex pairs
/// joined by `:`. Accepts upper case and a bare 64-digit hex string.
pub fn normalize_finger(finger: &str) -> Result<String, MinionKeyError> {
    let hex: String = finger
        .trim()
        .chars()
        .filter(|c| *c != ':')
        .map(|c| c.to_ascii_lowercase())
        .collect();
    if hex.len() != 64 || !hex.chars().all(|c| c.is_ascii_hexdigit()) {
        return Err(MinionKeyError::BadFinger(finger.to_string()));
    }
    let pairs: Vec<&str> = (0..32).filter_map(|i| hex.get(i * 2..i * 2 + 2)).collect();
    Ok(pairs.join(":"))
}

/// Decide whether to trust the master keys `offered` (from an auth reply):
/// - a pinned key must be the same, else [`MinionKeyError::MasterChanged`]
///   naming both fingerprints (Salt refuses a changed master key too);
/// - with no pin, `master_finger` (if set) must match, else
///   [`MinionKeyError::FingerMismatch`] and nothing is written; then the key
///   is pinned in `minion_master.pub`.
pub fn verify_master(
    pki_dir: &Path,
    offered: &PublicKeys,
    master_finger: Option<&str>,
) -> Result<MasterTrust, MinionKeyError> {
    let path = pki_dir.join(MASTER_PUB_FILE);
    if let Some(pinned) = pinned_master(pki_dir)? {
        if pinned == *offered {
            return Ok(MasterTrust::Pinned);
        }
        return Err(MinionKeyError::MasterChanged {
            path,
            pinned: pinned.fingerprint(),
            offered: offered.fingerprint(),
        });
    }
    if let Some(expected) = master_finger.filter(|f| !f.trim().is_empty()) {
        let expected = normalize_finger(expected)?;
        let got = offered.fingerprint();
        if expected != got {
            return Err(MinionKeyError::FingerMismatch {
                expected,
                offered: got,
            });
        }
    }
    keyfiles::create_dir_private(pki_dir)?;
    keyfiles::write_public(&path, offered)?;
    Ok(MasterTrust::FirstContact)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn master() -> PublicKeys {
        KeyPair::generate().unwrap().public()
    }

    #[test]
    fn minion_keys_are_made_once_with_private_modes() {
        let td = tempfile::tempdir().unwrap();
        let pki = td.path().join("pki/minion");
        let a = load_or_create(&pki).unwrap();
        let b = load_or_create(&pki).unwrap();
        assert_eq!(a.public(), b.public());
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(pki.join("minion.key"))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
    }

    #[test]
    fn first_contact_pins_then_same_key_is_trusted() {
        let td = tempfile::tempdir().unwrap();
        let m = master();
        assert_eq!(
            verify_master(td.path(), &m, None).unwrap(),
            MasterTrust::FirstContact
        );
        assert_eq!(pinned_master(td.path()).unwrap(), Some(m));
        assert_eq!(
            verify_master(td.path(), &m, None).unwrap(),
            MasterTrust::Pinned
        );
    }

    #[test]
    fn changed_master_key_names_both_fingerprints() {
        let td = tempfile::tempdir().unwrap();
        let (old, new) = (master(), master());
        verify_master(td.path(), &old, None).unwrap();
        let err = verify_master(td.path(), &new, None).unwrap_err();
        let msg = err.to_string();
        assert!(msg.contains(&old.fingerprint()), "{msg}");
        assert!(msg.contains(&new.fingerprint()), "{msg}");
        assert!(msg.contains("minion_master.pub"), "{msg}");
        // The pin is untouched.
        assert_eq!(pinned_master(td.path()).unwrap(), Some(old));
    }

    #[test]
    fn master_finger_is_checked_before_pinning() {
        let td = tempfile::tempdir().unwrap();
        let m = master();
        let wrong = master().fingerprint();
        let err = verify_master(td.path(), &m, Some(&wrong)).unwrap_err();
        assert!(
            matches!(err, MinionKeyError::FingerMismatch { .. }),
            "{err}"
        );
        assert_eq!(pinned_master(td.path()).unwrap(), None);
        // The right fingerprint, in upper case, pins the key.
        let right = m.fingerprint().to_uppercase();
        assert_eq!(
            verify_master(td.path(), &m, Some(&right)).unwrap(),
            MasterTrust::FirstContact
        );
        assert!(matches!(
            verify_master(tempfile::tempdir().unwrap().path(), &m, Some("12:34")),
            Err(MinionKeyError::BadFinger(_))
        ));
    }

    #[test]
    fn normalize_accepts_bare_hex() {
        let f = master().fingerprint();
        assert_eq!(normalize_finger(&f.replace(':', "")).unwrap(), f);
        assert!(normalize_finger(&"zz".repeat(32)).is_err());
    }
}
