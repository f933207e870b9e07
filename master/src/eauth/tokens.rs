//! Tokens: a login kept, minted by brine-api's `/login` and by `brine -a
//! ... -T`, and stored by the master as Salt's `localfs` token store
//! keeps them — one file per token under `<cachedir>/tokens` (mode 0600,
//! in a 0700 folder), so a token outlives brine-api's restart and the
//! master and the API read the same ones. Bounded: past [`MAX_TOKENS`]
//! the expired go first, then the oldest. A token expires after
//! `token_expire` seconds and is removed at logout. It is 64 random hex
//! digits, as Salt 3007's (a SHA-256 in hex), and never reaches a log.

use brine_core::Value;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

/// Most tokens held at once.
pub const MAX_TOKENS: usize = 10_000;

/// A token file larger than this is not one of ours.
const MAX_TOKEN_FILE: u64 = 1 << 20;

/// One login.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Session {
    pub token: String,
    pub user: String,
    pub eauth: String,
    /// Seconds since the epoch.
    pub start: f64,
    pub expire: f64,
    /// What the user may do (their `external_auth` entries, as enforced).
    pub perms: Vec<Value>,
    /// Their groups, as the backend told (for `%` entries).
    #[serde(default)]
    pub groups: Vec<String>,
}

#[derive(Debug, thiserror::Error)]
pub enum TokenError {
    #[error("the token store {path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error(transparent)]
    Random(#[from] brine_protocol::crypto::CryptoError),
    #[error("a token could not be written: {0}")]
    Encode(#[from] rmp_serde::encode::Error),
}

/// The store: a folder of token files.
pub struct Tokens {
    dir: PathBuf,
    max: usize,
}

fn now() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs_f64())
        .unwrap_or(0.0)
}

/// Only what [`Tokens::mint`] makes names a file: no path can be smuggled.
fn well_formed(token: &str) -> bool {
    token.len() == 64 && token.bytes().all(|b| b.is_ascii_hexdigit())
}

impl Tokens {
    /// The store under the master's `cachedir`.
    pub fn for_cachedir(cachedir: &Path) -> Tokens {
        Tokens {
            dir: cachedir.join("tokens"),
            max: MAX_TOKENS,
        }
    }

    /// The same store holding at most `max` tokens.
    pub fn bounded(mut self, max: usize) -> Tokens {
        self.max = max.max(1);
        self
    }

    fn io(&self, source: std::io::Error) -> TokenError {
        TokenError::Io {
            path: self.dir.clone(),
            source,
        }
    }

    /// A new session for `user`, valid `ttl` seconds.
    pub fn mint(
        &self,
        user: &str,
        eauth: &str,
        perms: Vec<Value>,
        groups: Vec<String>,
        ttl: u64,
    ) -> Result<Session, TokenError> {
        use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(&self.dir)
            .map_err(|e| self.io(e))?;
        self.make_room();
        let mut raw = [0u8; 32];
        brine_protocol::crypto::fill_random(&mut raw)?;
        let token: String = raw.iter().map(|b| format!("{b:02x}")).collect();
        let start = now();
        let s = Session {
            token: token.clone(),
            user: user.to_string(),
            eauth: eauth.to_string(),
            start,
            expire: start + ttl as f64,
            perms,
            groups,
        };
        let bytes = rmp_serde::to_vec_named(&s)?;
        let path = self.dir.join(&token);
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(&path)
            .map_err(|e| self.io(e))?;
        std::io::Write::write_all(&mut f, &bytes).map_err(|e| self.io(e))?;
        Ok(s)
    }

    /// Below the bound: the expired removed, then the oldest.
    fn make_room(&self) {
        if self.len() < self.max {
            return;
        }
        let Ok(rd) = std::fs::read_dir(&self.dir) else {
            return;
        };
        let mut files: Vec<(SystemTime, PathBuf)> = rd
            .flatten()
            .filter_map(|e| {
                let m = e.metadata().ok()?;
                Some((m.modified().unwrap_or(UNIX_EPOCH), e.path()))
            })
            .collect();
        let t = now();
        files.retain(|(_, p)| match self.read(p) {
            Some(s) if s.expire > t => true,
            _ => {
                let _ = std::fs::remove_file(p);
                false
            }
        });
        if files.len() >= self.max {
            files.sort();
            for (_, p) in &files[..=files.len() - self.max] {
                let _ = std::fs::remove_file(p);
            }
        }
    }

    fn read(&self, path: &Path) -> Option<Session> {
        let f = std::fs::File::open(path).ok()?;
        if f.metadata().ok()?.len() > MAX_TOKEN_FILE {
            return None;
        }
        rmp_serde::from_read(std::io::BufReader::new(f)).ok()
    }

    /// The live session of `token` (an expired one is removed).
    pub fn get(&self, token: &str) -> Option<Session> {
        if !well_formed(token) {
            return None;
        }
        let path = self.dir.join(token);
        let s = self.read(&path)?;
        if s.expire > now() && s.token == token {
            Some(s)
        } else {
            let _ = std::fs::remove_file(&path);
            None
        }
    }

    /// Logout.
    pub fn remove(&self, token: &str) -> bool {
        well_formed(token) && std::fs::remove_file(self.dir.join(token)).is_ok()
    }

    pub fn len(&self) -> usize {
        std::fs::read_dir(&self.dir).map_or(0, |rd| rd.count())
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_expire_are_removed_and_bounded() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let t = Tokens::for_cachedir(dir.path()).bounded(50);
        let s = t
            .mint("u", "auto", vec![], vec![], 60)
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(s.token.len(), 64);
        assert!(s.token.chars().all(|c| c.is_ascii_hexdigit()));
        assert_eq!(t.get(&s.token).map(|x| x.user), Some("u".into()));
        assert!(t.remove(&s.token));
        assert!(t.get(&s.token).is_none());
        let gone = t
            .mint("u", "auto", vec![], vec![], 0)
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(t.get(&gone.token).is_none());
        // A token is read back by another store on the same folder (the
        // master's, after brine-api restarts), and only a well-formed one.
        let kept = t
            .mint("u", "pam", vec![], vec!["wheel".into()], 60)
            .unwrap_or_else(|e| panic!("{e}"));
        let again = Tokens::for_cachedir(dir.path());
        assert_eq!(again.get(&kept.token), Some(kept.clone()));
        assert!(again.get("../tokens").is_none());
        assert!(!again.remove("../../etc/passwd"));
        for _ in 0..55 {
            t.mint("u", "auto", vec![], vec![], 60)
                .unwrap_or_else(|e| panic!("{e}"));
        }
        assert_eq!(t.len(), 50);
    }
}
