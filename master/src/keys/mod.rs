//! The master's key store, laid out as Salt lays out its `pki_dir`:
//!
//! ```text
//! <pki_dir>/                 (default /etc/brine/pki/master under root_dir; 0700)
//!   master.key               private ed25519 + X25519 secrets (0600, made on first start)
//!   master.pub               public keys
//!   minions/<id>             accepted minion keys
//!   minions_pre/<id>         keys waiting for `brine-key -a`
//!   minions_rejected/<id>    rejected keys
//!   minions_denied/<id>      keys refused because another key is on file for the id
//! ```
//!
//! Each minion file holds the public key text of
//! [`brine_protocol::keys`]. Ids are checked with
//! [`brine_protocol::keys::validate_id`] before any path is built from them.
//!
//! With `master_job_cache: pgjsonb` the minion keys live in the shared
//! PostgreSQL instead ([`postgres`]); the master's own key stays here.
//!
//! [`KeyStore::authenticate`] is Salt's `_auth` decision (without open_mode,
//! autosign/autoreject files): see its doc.

mod accepted;
pub mod cli;
pub mod postgres;
pub mod salt_import;
mod state;

pub use state::KeyState;

use brine_protocol::crypto::{KeyPair, PublicKeys};
use brine_protocol::keys::{self as keyfiles, InvalidId, KeyFileError};
use brine_protocol::messages::AuthStatus;
use indexmap::IndexMap;
use std::path::{Path, PathBuf};

/// Default `pki_dir` of the master (Salt's is /etc/salt/pki/master).
pub const DEFAULT_PKI_DIR: &str = "/etc/brine/pki/master";
/// Base name of the master's key files (`master.key`, `master.pub`).
pub const MASTER_KEY_NAME: &str = "master";

/// `max_pending_keys` unless configured: keys waiting in `minions_pre`;
/// new ones past it are refused.
pub const DEFAULT_MAX_PENDING: usize = 10_000;

#[derive(Debug, thiserror::Error)]
pub enum KeyStoreError {
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error(transparent)]
    KeyFile(#[from] KeyFileError),
    #[error("refusing minion id: {0}")]
    InvalidId(#[from] InvalidId),
    #[error("no {state} key for minion '{id}'", state = .state.adjective())]
    NoSuchKey { id: String, state: KeyState },
    #[error("{path}: the key path for minion '{id}' is a directory")]
    IsDirectory { id: String, path: PathBuf },
    #[error(
        "the master already holds {max} pending keys (max_pending_keys); the key of '{id}' \
         was not stored: accept, reject or delete pending keys with brine-key"
    )]
    TooManyPending { id: String, max: usize },
    #[error(
        "new minion ids arrive too fast from one address (pending_key_rate); the key of '{id}' \
         was not stored"
    )]
    PendingTooFast { id: String },
    #[error(transparent)]
    Pg(#[from] crate::postgres::PgError),
}

/// See [`KeyStore::accepted_stamp`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AcceptedStamp {
    /// The `minions/` folder's `stat`.
    Folder(brine_compile::inputs::Stamp),
    /// The shared store's change count.
    Changes(u64),
}

impl AcceptedStamp {
    /// Whether an equal stamp later means nothing changed: a folder's only
    /// once its last change is [`SETTLED`](brine_compile::inputs::SETTLED)
    /// old (the kernel's clock for change times is coarse: a change in the
    /// same tick would not move it); a change count always.
    pub fn settled(&self) -> bool {
        match self {
            AcceptedStamp::Folder(s) => {
                s.settled_before(std::time::SystemTime::now(), brine_compile::inputs::SETTLED)
            }
            AcceptedStamp::Changes(_) => true,
        }
    }
}

fn io_err(path: &Path) -> impl FnOnce(std::io::Error) -> KeyStoreError + '_ {
    move |source| KeyStoreError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// Salt sorts key names with `sorted_ignorecase` (by lowercase form; ties
/// keep directory order, which we make deterministic by the name itself).
pub fn sort_ignorecase(names: &mut [String]) {
    names.sort_by(|a, b| a.to_lowercase().cmp(&b.to_lowercase()).then(a.cmp(b)));
}

/// The master's `pki_dir`.
#[derive(Debug, Clone)]
pub struct KeyStore {
    pki_dir: PathBuf,
    /// Most keys `minions_pre/` may hold: an unauthenticated peer can
    /// offer any number of new ids.
    max_pending: usize,
    /// The minion keys, when they live in the shared PostgreSQL.
    shared: Option<postgres::PgKeys>,
    /// Accepted keys kept while what they were read under holds (see
    /// `accepted.rs`; shared by clones: they are one store).
    kept: std::sync::Arc<accepted::AcceptedCache>,
}

impl KeyStore {
    /// Use an existing `pki_dir` (what `brine-key` does: like salt-key, it
    /// does not create one). A missing state directory reads as empty.
    pub fn open(pki_dir: &Path) -> Result<KeyStore, KeyStoreError> {
        std::fs::metadata(pki_dir).map_err(io_err(pki_dir))?;
        Ok(KeyStore {
            pki_dir: pki_dir.to_path_buf(),
            max_pending: usize::MAX,
            shared: None,
            kept: Default::default(),
        })
    }

    /// Create `pki_dir` (0700) and its state directories if needed (what
    /// the master does on start).
    pub fn create(pki_dir: &Path) -> Result<KeyStore, KeyStoreError> {
        keyfiles::create_dir_private(pki_dir)?;
        for state in KeyState::ALL {
            let dir = pki_dir.join(state.dir_name());
            if !dir.is_dir() {
                keyfiles::create_dir_private(&dir)?;
            }
        }
        Ok(KeyStore {
            pki_dir: pki_dir.to_path_buf(),
            max_pending: usize::MAX,
            shared: None,
            kept: Default::default(),
        })
    }

    pub fn pki_dir(&self) -> &Path {
        &self.pki_dir
    }

    /// Keep the minion keys in the shared PostgreSQL (`pgjsonb`).
    pub fn shared_in(mut self, keys: postgres::PgKeys) -> KeyStore {
        self.shared = Some(keys);
        self
    }

    /// The existing key store of a master's config: `pki_dir`, with the
    /// minion keys in the shared PostgreSQL when its `master_job_cache`
    /// names one (what brine-key and brine-run open).
    pub fn for_config(
        pki_dir: &Path,
        backend: &crate::backend::Backend,
    ) -> Result<KeyStore, KeyStoreError> {
        let store = KeyStore::open(pki_dir)?;
        Ok(match backend {
            crate::backend::Backend::Sqlite(_) => store,
            crate::backend::Backend::Postgres(opts) => {
                let pg = std::sync::Arc::new(crate::postgres::Pg::connect(opts)?);
                store.shared_in(postgres::PgKeys::open(pg)?)
            }
        })
    }

    /// Refuse new pending keys once `max` are waiting.
    pub fn with_max_pending(mut self, max: usize) -> KeyStore {
        self.max_pending = max;
        self
    }

    /// Keys in `minions_pre/`, counted up to `limit`.
    fn pending_count(&self, limit: usize) -> Result<usize, KeyStoreError> {
        if let Some(pg) = &self.shared {
            return Ok(pg.count(KeyState::Pending)?);
        }
        let dir = self.pki_dir.join(KeyState::Pending.dir_name());
        let entries = match std::fs::read_dir(&dir) {
            Ok(e) => e,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(0),
            Err(e) => return Err(io_err(&dir)(e)),
        };
        let mut n = 0;
        for entry in entries {
            let entry = entry.map_err(io_err(&dir))?;
            if !entry.file_name().as_encoded_bytes().starts_with(b".") {
                n += 1;
                if n >= limit {
                    break;
                }
            }
        }
        Ok(n)
    }

    /// The master's own key pair, created on first call (`master.key` 0600
    /// and `master.pub`).
    pub fn master_keys(&self) -> Result<KeyPair, KeyStoreError> {
        Ok(keyfiles::load_or_create_pair(
            &self.pki_dir,
            MASTER_KEY_NAME,
        )?)
    }

    /// Path of `id`'s key file in `state`, after validating the id.
    pub fn key_path(&self, state: KeyState, id: &str) -> Result<PathBuf, KeyStoreError> {
        keyfiles::validate_id(id)?;
        Ok(self.pki_dir.join(state.dir_name()).join(id))
    }

    /// Ids with a key in `state`, sorted as salt-key sorts them. Dot files
    /// (temporary files among them) are skipped, as Salt skips them.
    pub fn list(&self, state: KeyState) -> Result<Vec<String>, KeyStoreError> {
        if let Some(pg) = &self.shared {
            let mut out = pg.list(state)?;
            sort_ignorecase(&mut out);
            return Ok(out);
        }
        let dir = self.pki_dir.join(state.dir_name());
        let entries = match std::fs::read_dir(&dir) {
            Ok(e) => e,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(vec![]),
            Err(e) => return Err(io_err(&dir)(e)),
        };
        let mut out = Vec::new();
        for entry in entries {
            let entry = entry.map_err(io_err(&dir))?;
            // Names that are not UTF-8 cannot be minion ids; skip them.
            if let Ok(name) = entry.file_name().into_string() {
                if !name.starts_with('.') {
                    out.push(name);
                }
            }
        }
        sort_ignorecase(&mut out);
        Ok(out)
    }

    /// A value that changes whenever an accepted key may have been
    /// deleted, rejected or replaced (the `minions/` folder's `stat`; the
    /// shared store: its change count while it listens). `None` when
    /// unknown: every accepted key must then be read to know.
    pub fn accepted_stamp(&self) -> Option<AcceptedStamp> {
        if let Some(pg) = &self.shared {
            return pg.stamp().map(AcceptedStamp::Changes);
        }
        let dir = self.pki_dir.join(KeyState::Accepted.dir_name());
        std::fs::metadata(dir)
            .ok()
            .map(|m| AcceptedStamp::Folder(brine_compile::inputs::Stamp::of(&m)))
    }

    /// Every state's ids, in [`KeyState::ALL`] order.
    pub fn list_all(&self) -> Result<IndexMap<KeyState, Vec<String>>, KeyStoreError> {
        KeyState::ALL
            .iter()
            .map(|&s| Ok((s, self.list(s)?)))
            .collect()
    }

    /// salt-key's `name_match` over the minion keys: the ids matching a
    /// glob or comma-separated globs, by state in Salt's order, only states
    /// with matches.
    pub fn matching(
        &self,
        pattern: &str,
    ) -> Result<IndexMap<KeyState, Vec<String>>, KeyStoreError> {
        let globs: Vec<&str> = pattern.split(',').collect();
        let hit = |name: &str| {
            globs
                .iter()
                .any(|g| brine_compile::matcher::glob::fnmatch(name, g))
        };
        let mut out = IndexMap::new();
        for state in KeyState::ALL {
            let ids: Vec<String> = self.list(state)?.into_iter().filter(|id| hit(id)).collect();
            if !ids.is_empty() {
                out.insert(state, ids);
            }
        }
        Ok(out)
    }

    /// The master's own key files (`*.pub`, `*.key` in `pki_dir`), as
    /// salt-key's "Local Keys" lists `*.pub`/`*.pem`.
    pub fn local_keys(&self) -> Result<Vec<String>, KeyStoreError> {
        let entries = std::fs::read_dir(&self.pki_dir).map_err(io_err(&self.pki_dir))?;
        let mut out = Vec::new();
        for entry in entries {
            let entry = entry.map_err(io_err(&self.pki_dir))?;
            if let Ok(name) = entry.file_name().into_string() {
                if (name.ends_with(".pub") || name.ends_with(".key")) && !name.starts_with('.') {
                    out.push(name);
                }
            }
        }
        sort_ignorecase(&mut out);
        Ok(out)
    }

    /// The public keys of a local key file (the public half of a `.key`).
    pub fn read_local(&self, name: &str) -> Result<PublicKeys, KeyStoreError> {
        let path = self.pki_dir.join(name);
        if name.ends_with(".key") {
            Ok(keyfiles::read_private(&path)?.public())
        } else {
            Ok(keyfiles::read_public(&path)?)
        }
    }

    /// File `keys` as `id`'s accepted key (Salt's `key.gen_accept`):
    /// false, and nothing written, when `id` already has a key in any
    /// state and `force` is not given.
    pub fn add_accepted(
        &self,
        id: &str,
        keys: &PublicKeys,
        force: bool,
    ) -> Result<bool, KeyStoreError> {
        keyfiles::validate_id(id)?;
        if !force {
            for state in KeyState::ALL {
                if self.has(state, id)? {
                    return Ok(false);
                }
            }
        }
        self.write(KeyState::Accepted, id, keys)?;
        Ok(true)
    }

    /// Whether `id` has a key in `state` (a directory where the key file
    /// would be is an error, not a key).
    pub fn has(&self, state: KeyState, id: &str) -> Result<bool, KeyStoreError> {
        match &self.shared {
            Some(pg) => {
                keyfiles::validate_id(id)?;
                Ok(pg.read_text(state, id)?.is_some())
            }
            None => Ok(self.key_file(state, id)?.is_file()),
        }
    }

    /// The path of `id`'s key file in `state`; a directory there is an
    /// error.
    fn key_file(&self, state: KeyState, id: &str) -> Result<PathBuf, KeyStoreError> {
        let path = self.key_path(state, id)?;
        if path.is_dir() {
            return Err(KeyStoreError::IsDirectory {
                id: id.to_string(),
                path,
            });
        }
        Ok(path)
    }

    /// `id`'s key in `state`.
    pub fn read(&self, state: KeyState, id: &str) -> Result<PublicKeys, KeyStoreError> {
        let path = self.key_path(state, id)?;
        if let Some(pg) = &self.shared {
            let no_key = || KeyStoreError::NoSuchKey {
                id: id.to_string(),
                state,
            };
            let text = pg.read_text(state, id)?.ok_or_else(no_key)?;
            return Ok(keyfiles::public_from_text(&shared_label(state, id), &text)?);
        }
        if !path.exists() {
            return Err(KeyStoreError::NoSuchKey {
                id: id.to_string(),
                state,
            });
        }
        Ok(keyfiles::read_public(&path)?)
    }

    /// The raw text of `id`'s key file in `state` (`brine-key -p`).
    pub fn read_text(&self, state: KeyState, id: &str) -> Result<String, KeyStoreError> {
        let path = self.key_path(state, id)?;
        if let Some(pg) = &self.shared {
            return pg.read_text(state, id)?.ok_or(KeyStoreError::NoSuchKey {
                id: id.to_string(),
                state,
            });
        }
        std::fs::read_to_string(&path).map_err(io_err(&path))
    }

    /// The accepted key of `id`, if any: what the master checks every
    /// minion request's signer against.
    pub fn accepted(&self, id: &str) -> Result<Option<PublicKeys>, KeyStoreError> {
        // Taken before the key is read: a change after it moves it on.
        let seen = self.accepted_seen(id);
        if let Some(k) = seen.as_ref().and_then(|s| self.kept.get(id, s)) {
            return Ok(Some(k));
        }
        let found = self.lookup(KeyState::Accepted, id)?;
        if let (Some(seen), Some(k)) = (seen, &found) {
            self.kept.keep(id, seen, k);
        }
        Ok(found)
    }

    /// What `id`'s accepted key would be read under now, when a key kept
    /// from then can be trusted: its file's settled `stat` (a file changed
    /// within the clock's tick might not move it), or the shared store's
    /// change count while it listens.
    fn accepted_seen(&self, id: &str) -> Option<accepted::Seen> {
        if let Some(pg) = &self.shared {
            return pg.stamp().map(accepted::Seen::Changes);
        }
        let path = self.key_path(KeyState::Accepted, id).ok()?;
        let meta = std::fs::metadata(path).ok().filter(|m| m.is_file())?;
        let stamp = brine_compile::inputs::Stamp::of(&meta);
        stamp
            .settled_before(std::time::SystemTime::now(), brine_compile::inputs::SETTLED)
            .then_some(accepted::Seen::File(stamp))
    }

    /// `id`'s key in `state`, if it has one (a directory where the key
    /// file would be is an error, as for [`KeyStore::has`]).
    fn lookup(&self, state: KeyState, id: &str) -> Result<Option<PublicKeys>, KeyStoreError> {
        if self.shared.is_none() {
            self.key_file(state, id)?;
        }
        match self.read(state, id) {
            Ok(k) => Ok(Some(k)),
            Err(KeyStoreError::NoSuchKey { .. }) => Ok(None),
            Err(e) => Err(e),
        }
    }

    fn write(&self, state: KeyState, id: &str, keys: &PublicKeys) -> Result<(), KeyStoreError> {
        let path = self.key_path(state, id)?;
        if let Some(pg) = &self.shared {
            return Ok(pg.write(state, id, keyfiles::public_to_text(keys))?);
        }
        if let Some(dir) = path.parent() {
            if !dir.is_dir() {
                keyfiles::create_dir_private(dir)?;
            }
        }
        keyfiles::write_public(&path, keys)?;
        Ok(())
    }

    /// Move `id`'s key from `from` to `to` (replacing a key already there,
    /// as Salt's `shutil.move` does).
    pub fn move_key(&self, id: &str, from: KeyState, to: KeyState) -> Result<(), KeyStoreError> {
        let src = self.key_path(from, id)?;
        let dst = self.key_path(to, id)?;
        if let Some(pg) = &self.shared {
            return if pg.move_key(id, from, to)? {
                Ok(())
            } else {
                Err(KeyStoreError::NoSuchKey {
                    id: id.to_string(),
                    state: from,
                })
            };
        }
        if !src.is_file() {
            return Err(KeyStoreError::NoSuchKey {
                id: id.to_string(),
                state: from,
            });
        }
        if let Some(dir) = dst.parent() {
            if !dir.is_dir() {
                keyfiles::create_dir_private(dir)?;
            }
        }
        std::fs::rename(&src, &dst).map_err(io_err(&dst))
    }

    /// `brine-key -a`: pending (or rejected) → accepted.
    pub fn accept(&self, id: &str, from: KeyState) -> Result<(), KeyStoreError> {
        self.move_key(id, from, KeyState::Accepted)
    }

    /// `brine-key -r`: pending (or accepted) → rejected.
    pub fn reject(&self, id: &str, from: KeyState) -> Result<(), KeyStoreError> {
        self.move_key(id, from, KeyState::Rejected)
    }

    /// `brine-key -d`: remove `id`'s key in `state`.
    pub fn delete(&self, id: &str, state: KeyState) -> Result<(), KeyStoreError> {
        let path = self.key_path(state, id)?;
        if let Some(pg) = &self.shared {
            return if pg.delete(id, state)? {
                Ok(())
            } else {
                Err(KeyStoreError::NoSuchKey {
                    id: id.to_string(),
                    state,
                })
            };
        }
        std::fs::remove_file(&path).map_err(io_err(&path))
    }

    /// Decide a minion's authentication, as Salt's `_auth` does, and file
    /// the key accordingly:
    /// 1. an id that is not a safe file name → `InvalidId`, nothing written;
    /// 2. a key in `minions_rejected/` → `Rejected`;
    /// 3. a key in `minions/`: same key → `Accepted`; another key → the
    ///    offered key is written to `minions_denied/` → `Denied`;
    /// 4. no key yet: `auto_accept` → written to `minions/`, `Accepted`;
    ///    else written to `minions_pre/`, `Pending` (`TooManyPending` when
    ///    `max_pending` keys already wait);
    /// 5. a key in `minions_pre/`: another key → `minions_denied/`, `Denied`;
    ///    same key → `Pending`, or with `auto_accept` moved to `minions/`,
    ///    `Accepted`.
    ///
    /// The caller must already have checked that the request was signed by
    /// `keys.ed25519` (proof the minion holds the private key).
    pub fn authenticate(
        &self,
        id: &str,
        keys: &PublicKeys,
        auto_accept: bool,
    ) -> Result<AuthStatus, KeyStoreError> {
        self.authenticate_paced(id, keys, auto_accept, &mut || true)
    }

    /// [`KeyStore::authenticate`], asking `may_pend` before a new id's key
    /// is filed as pending (`PendingTooFast` when it says no).
    pub fn authenticate_paced(
        &self,
        id: &str,
        keys: &PublicKeys,
        auto_accept: bool,
        may_pend: &mut dyn FnMut() -> bool,
    ) -> Result<AuthStatus, KeyStoreError> {
        if keyfiles::validate_id(id).is_err() || keys.validate().is_err() {
            return Ok(AuthStatus::InvalidId);
        }
        if self.has(KeyState::Rejected, id)? {
            return Ok(AuthStatus::Rejected);
        }
        // Each state read once (the shared store: one round trip each).
        if let Some(on_file) = self.lookup(KeyState::Accepted, id)? {
            return if on_file == *keys {
                Ok(AuthStatus::Accepted)
            } else {
                self.write(KeyState::Denied, id, keys)?;
                Ok(AuthStatus::Denied)
            };
        }
        let mut pending = self.lookup(KeyState::Pending, id)?;
        if pending.is_none() {
            let state = if auto_accept {
                KeyState::Accepted
            } else {
                if self.pending_count(self.max_pending)? >= self.max_pending {
                    return Err(KeyStoreError::TooManyPending {
                        id: id.to_string(),
                        max: self.max_pending,
                    });
                }
                if !may_pend() {
                    return Err(KeyStoreError::PendingTooFast { id: id.to_string() });
                }
                KeyState::Pending
            };
            if self.add_new(state, id, keys)? {
                return Ok(if auto_accept {
                    AuthStatus::Accepted
                } else {
                    AuthStatus::Pending
                });
            }
            // Another master of the shared store filed a key for this id
            // just now: decide against that key, as any later request will.
            pending = self.lookup(KeyState::Pending, id)?;
        }
        let (state, on_file) = match pending {
            Some(k) => (KeyState::Pending, k),
            None => (KeyState::Accepted, self.read(KeyState::Accepted, id)?),
        };
        if on_file != *keys {
            self.write(KeyState::Denied, id, keys)?;
            return Ok(AuthStatus::Denied);
        }
        if state == KeyState::Accepted {
            return Ok(AuthStatus::Accepted);
        }
        if auto_accept {
            self.accept(id, KeyState::Pending)?;
            return Ok(AuthStatus::Accepted);
        }
        Ok(AuthStatus::Pending)
    }

    /// File a new key for `id` in `state`; false when the shared store got
    /// one for it in the meantime (files: always written).
    fn add_new(&self, state: KeyState, id: &str, keys: &PublicKeys) -> Result<bool, KeyStoreError> {
        match &self.shared {
            Some(pg) => Ok(pg.add(state, id, keyfiles::public_to_text(keys))?),
            None => {
                self.write(state, id, keys)?;
                Ok(true)
            }
        }
    }
}

/// What names a key of the shared store in messages, where a file would
/// name its path.
fn shared_label(state: KeyState, id: &str) -> PathBuf {
    PathBuf::from(format!("postgres:brine_keys/{}/{id}", state.dir_name()))
}

/// File in the master's `cachedir` holding the local root token (Salt's
/// `.root_key`): whoever can read it (root, on the master host) may publish
/// jobs through the CLI (`CliPublish::token`).
pub const ROOT_TOKEN_FILE: &str = ".root_key";

/// The root token from `<cachedir>/.root_key`, created (32 random bytes,
/// base64, mode 0600) when missing — the master does this on start.
pub fn load_or_create_root_token(cachedir: &Path) -> Result<String, KeyStoreError> {
    let path = cachedir.join(ROOT_TOKEN_FILE);
    match std::fs::read_to_string(&path) {
        Ok(t) if !t.trim().is_empty() => return Ok(t.trim().to_string()),
        Ok(_) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(io_err(&path)(e)),
    }
    use base64::Engine;
    let mut raw = [0u8; 32];
    brine_protocol::crypto::fill_random(&mut raw).map_err(KeyFileError::from)?;
    let token = base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(raw);
    keyfiles::create_dir_private(cachedir)?;
    keyfiles::write_atomic(&path, &format!("{token}\n"), 0o600)?;
    Ok(token)
}

/// Compare a presented token with the real one without leaking, through
/// timing, how long a prefix matched.
pub fn token_matches(expected: &str, presented: &str) -> bool {
    let (a, b) = (expected.as_bytes(), presented.as_bytes());
    if a.len() != b.len() || a.is_empty() {
        return false;
    }
    a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    /// The authentication checks every place minion keys live must pass.
    pub(super) const DECISIONS: &[fn(KeyStore)] = &[
        first_contact_goes_to_pending_then_accept_works_on,
        changed_key_for_accepted_id_is_denied_and_accepted_kept_on,
        changed_key_while_pending_is_denied_on,
        auto_accept_accepts_new_and_pending_keys_on,
        rejected_stays_rejected_on,
        pending_keys_are_capped_and_known_ones_still_answer_on,
    ];

    #[test]
    fn root_token_is_made_once_private_and_compared_exactly() {
        let td = tempfile::tempdir().unwrap();
        let cache = td.path().join("cache/master");
        let t = load_or_create_root_token(&cache).unwrap();
        assert_eq!(load_or_create_root_token(&cache).unwrap(), t);
        assert_eq!(t.len(), 43);
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(cache.join(ROOT_TOKEN_FILE))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
        assert!(token_matches(&t, &t));
        assert!(!token_matches(&t, &t[1..]));
        assert!(!token_matches(&t, &format!("{}x", &t[..42])));
        assert!(!token_matches("", ""));
    }

    pub(super) fn keys() -> PublicKeys {
        KeyPair::generate().unwrap().public()
    }

    fn store() -> (tempfile::TempDir, KeyStore) {
        let td = tempfile::tempdir().unwrap();
        let ks = KeyStore::create(&td.path().join("pki/master")).unwrap();
        (td, ks)
    }

    #[test]
    fn first_contact_goes_to_pending_then_accept_works() {
        let (_td, ks) = store();
        first_contact_goes_to_pending_then_accept_works_on(ks);
    }

    pub(super) fn first_contact_goes_to_pending_then_accept_works_on(ks: KeyStore) {
        let k = keys();
        assert_eq!(
            ks.authenticate("web1", &k, false).unwrap(),
            AuthStatus::Pending
        );
        assert_eq!(ks.list(KeyState::Pending).unwrap(), vec!["web1"]);
        // Asking again with the same key stays pending.
        assert_eq!(
            ks.authenticate("web1", &k, false).unwrap(),
            AuthStatus::Pending
        );
        ks.accept("web1", KeyState::Pending).unwrap();
        assert_eq!(
            ks.authenticate("web1", &k, false).unwrap(),
            AuthStatus::Accepted
        );
        assert_eq!(ks.accepted("web1").unwrap(), Some(k));
        assert!(ks.list(KeyState::Pending).unwrap().is_empty());
    }

    #[test]
    fn changed_key_for_accepted_id_is_denied_and_accepted_kept() {
        let (_td, ks) = store();
        changed_key_for_accepted_id_is_denied_and_accepted_kept_on(ks);
    }

    pub(super) fn changed_key_for_accepted_id_is_denied_and_accepted_kept_on(ks: KeyStore) {
        let k = keys();
        ks.authenticate("web1", &k, true).unwrap();
        let other = keys();
        assert_eq!(
            ks.authenticate("web1", &other, true).unwrap(),
            AuthStatus::Denied
        );
        assert_eq!(ks.accepted("web1").unwrap(), Some(k));
        assert_eq!(ks.read(KeyState::Denied, "web1").unwrap(), other);
        // The genuine minion still gets in.
        assert_eq!(
            ks.authenticate("web1", &k, false).unwrap(),
            AuthStatus::Accepted
        );
    }

    #[test]
    fn changed_key_while_pending_is_denied() {
        let (_td, ks) = store();
        changed_key_while_pending_is_denied_on(ks);
    }

    pub(super) fn changed_key_while_pending_is_denied_on(ks: KeyStore) {
        let k = keys();
        ks.authenticate("web1", &k, false).unwrap();
        assert_eq!(
            ks.authenticate("web1", &keys(), false).unwrap(),
            AuthStatus::Denied
        );
        assert_eq!(ks.read(KeyState::Pending, "web1").unwrap(), k);
        assert_eq!(ks.list(KeyState::Denied).unwrap(), vec!["web1"]);
    }

    #[test]
    fn auto_accept_accepts_new_and_pending_keys() {
        let (_td, ks) = store();
        auto_accept_accepts_new_and_pending_keys_on(ks);
    }

    pub(super) fn auto_accept_accepts_new_and_pending_keys_on(ks: KeyStore) {
        assert_eq!(
            ks.authenticate("a", &keys(), true).unwrap(),
            AuthStatus::Accepted
        );
        let k = keys();
        ks.authenticate("b", &k, false).unwrap();
        assert_eq!(
            ks.authenticate("b", &k, true).unwrap(),
            AuthStatus::Accepted
        );
        assert_eq!(ks.list(KeyState::Accepted).unwrap(), vec!["a", "b"]);
        assert!(ks.list(KeyState::Pending).unwrap().is_empty());
    }

    #[test]
    fn rejected_stays_rejected() {
        let (_td, ks) = store();
        rejected_stays_rejected_on(ks);
    }

    pub(super) fn rejected_stays_rejected_on(ks: KeyStore) {
        let k = keys();
        ks.authenticate("web1", &k, false).unwrap();
        ks.reject("web1", KeyState::Pending).unwrap();
        assert_eq!(
            ks.authenticate("web1", &k, true).unwrap(),
            AuthStatus::Rejected
        );
        assert_eq!(
            ks.authenticate("web1", &keys(), true).unwrap(),
            AuthStatus::Rejected
        );
    }

    #[test]
    fn hostile_ids_never_touch_the_file_system() {
        let (td, ks) = store();
        for id in ["../../evil", "..", ".", "a/b", "", "x\0y", ".hidden"] {
            assert_eq!(
                ks.authenticate(id, &keys(), true).unwrap(),
                AuthStatus::InvalidId,
                "{id:?}"
            );
            assert!(ks.read(KeyState::Accepted, id).is_err());
            assert!(ks.delete(id, KeyState::Accepted).is_err());
        }
        assert!(!td.path().join("evil").exists());
        assert!(!td.path().join("pki/evil").exists());
        for s in KeyState::ALL {
            assert!(ks.list(s).unwrap().is_empty());
        }
    }

    #[test]
    fn listing_sorts_ignoring_case_and_skips_dot_files() {
        let (_td, ks) = store();
        for id in ["b", "A", "c", "B"] {
            ks.authenticate(id, &keys(), false).unwrap();
        }
        std::fs::write(ks.pki_dir().join("minions_pre/.tmp"), "x").unwrap();
        assert_eq!(
            ks.list(KeyState::Pending).unwrap(),
            vec!["A", "B", "b", "c"]
        );
    }

    #[test]
    fn master_keys_are_created_once() {
        let (_td, ks) = store();
        let a = ks.master_keys().unwrap();
        let b = ks.master_keys().unwrap();
        assert_eq!(a.public(), b.public());
        assert_eq!(ks.local_keys().unwrap(), vec!["master.key", "master.pub"]);
        assert_eq!(ks.read_local("master.key").unwrap(), a.public());
        assert_eq!(ks.read_local("master.pub").unwrap(), a.public());
    }

    #[test]
    fn pending_keys_are_capped_and_known_ones_still_answer() {
        let (_td, ks) = store();
        pending_keys_are_capped_and_known_ones_still_answer_on(ks);
    }

    pub(super) fn pending_keys_are_capped_and_known_ones_still_answer_on(ks: KeyStore) {
        let ks = ks.with_max_pending(2);
        let k = keys();
        for id in ["a", "b"] {
            assert_eq!(ks.authenticate(id, &k, false).unwrap(), AuthStatus::Pending);
        }
        assert!(matches!(
            ks.authenticate("c", &k, false),
            Err(KeyStoreError::TooManyPending { max: 2, .. })
        ));
        assert_eq!(ks.list(KeyState::Pending).unwrap(), vec!["a", "b"]);
        // A key already waiting, and auto_accept, are not held back.
        assert_eq!(
            ks.authenticate("a", &k, false).unwrap(),
            AuthStatus::Pending
        );
        assert_eq!(
            ks.authenticate("c", &k, true).unwrap(),
            AuthStatus::Accepted
        );
        // A 255-byte id is a valid file name; 256 bytes is not an id.
        let long = "w".repeat(255);
        ks.delete("b", KeyState::Pending).unwrap();
        assert_eq!(
            ks.authenticate(&long, &k, false).unwrap(),
            AuthStatus::Pending
        );
        assert_eq!(
            ks.authenticate(&"w".repeat(256), &k, false).unwrap(),
            AuthStatus::InvalidId
        );
    }

    /// Once its file has settled, an accepted key is read once and kept;
    /// a deletion, a rejection, another key accepted for the id or the
    /// file edited in place is seen by the next lookup.
    #[test]
    fn accepted_keys_are_kept_until_their_file_changes() {
        let td = tempfile::tempdir().unwrap();
        let ks = KeyStore::create(&td.path().join("pki")).unwrap();
        let (k1, k2) = (KeyPair::generate().unwrap(), KeyPair::generate().unwrap());
        for id in ["web1", "web2", "web3", "web4"] {
            ks.authenticate(id, &k1.public(), true).unwrap();
        }
        // Not settled yet: read, not kept.
        assert_eq!(ks.accepted("web1").unwrap(), Some(k1.public()));
        assert_eq!(ks.kept.len(), 0);
        std::thread::sleep(brine_compile::inputs::SETTLED + std::time::Duration::from_millis(100));
        for id in ["web1", "web2", "web3", "web4"] {
            assert_eq!(ks.accepted(id).unwrap(), Some(k1.public()));
        }
        assert_eq!(ks.kept.len(), 4);
        assert_eq!(ks.accepted("nobody").unwrap(), None);
        assert_eq!(ks.kept.len(), 4, "no key, nothing kept");
        // Each change is seen at once.
        ks.delete("web2", KeyState::Accepted).unwrap();
        assert_eq!(ks.accepted("web2").unwrap(), None);
        ks.reject("web3", KeyState::Accepted).unwrap();
        assert_eq!(ks.accepted("web3").unwrap(), None);
        assert!(ks.add_accepted("web3", &k2.public(), true).unwrap());
        assert_eq!(ks.accepted("web3").unwrap(), Some(k2.public()));
        // Edited in place (no rename, the folder unchanged): read again.
        std::fs::write(td.path().join("pki/minions/web1"), "not a key\n").unwrap();
        assert!(ks.accepted("web1").is_err());
        std::fs::write(
            td.path().join("pki/minions/web4"),
            brine_protocol::keys::public_to_text(&k2.public()),
        )
        .unwrap();
        assert_eq!(ks.accepted("web4").unwrap(), Some(k2.public()));
    }

    #[test]
    fn the_kept_keys_are_bounded_and_tied_to_what_they_were_read_under() {
        let cache = accepted::AcceptedCache::with_max(2);
        let k = KeyPair::generate().unwrap().public();
        let (one, two) = (accepted::Seen::Changes(1), accepted::Seen::Changes(2));
        for id in ["x", "y", "z"] {
            cache.keep(id, one, &k);
        }
        assert_eq!(cache.len(), 1, "full at two: started over");
        assert_eq!(cache.get("z", &one), Some(k));
        assert_eq!(cache.get("z", &two), None);
        // Kept again under what it is read under now.
        cache.keep("z", two, &k);
        assert_eq!((cache.len(), cache.get("z", &one)), (1, None));
        assert_eq!(cache.get("z", &two), Some(k));
    }
}
