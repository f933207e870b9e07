//! The API's tokens: minted at login, held in memory by `brine-api`
//! (bounded: past [`MAX_TOKENS`] the expired go first, then the oldest),
//! expiring after `token_expire` seconds, removed at logout. A token is
//! 40 random hex digits, as Salt's; it never reaches a log.

use brine_core::Value;
use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{SystemTime, UNIX_EPOCH};

/// Most tokens held at once.
pub const MAX_TOKENS: usize = 10_000;

/// One login.
#[derive(Debug, Clone, PartialEq)]
pub struct Session {
    pub token: String,
    pub user: String,
    pub eauth: String,
    /// Seconds since the epoch.
    pub start: f64,
    pub expire: f64,
    /// Everything the user may do (summed from `external_auth`).
    pub perms: Vec<Value>,
}

#[derive(Default)]
pub struct Tokens {
    held: Mutex<HashMap<String, Session>>,
}

fn now() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs_f64())
        .unwrap_or(0.0)
}

impl Tokens {
    /// A new session for `user`, valid `ttl` seconds.
    pub fn mint(
        &self,
        user: &str,
        eauth: &str,
        perms: Vec<Value>,
        ttl: u64,
    ) -> Result<Session, brine_protocol::crypto::CryptoError> {
        let mut raw = [0u8; 20];
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
        };
        let mut g = self.held.lock().unwrap_or_else(|p| p.into_inner());
        if g.len() >= MAX_TOKENS {
            let t = now();
            g.retain(|_, s| s.expire > t);
        }
        if g.len() >= MAX_TOKENS {
            if let Some(oldest) = g
                .values()
                .min_by(|a, b| a.start.total_cmp(&b.start))
                .map(|s| s.token.clone())
            {
                g.remove(&oldest);
            }
        }
        g.insert(token, s.clone());
        Ok(s)
    }

    /// The live session of `token`.
    pub fn get(&self, token: &str) -> Option<Session> {
        let mut g = self.held.lock().unwrap_or_else(|p| p.into_inner());
        match g.get(token) {
            Some(s) if s.expire > now() => Some(s.clone()),
            Some(_) => {
                g.remove(token);
                None
            }
            None => None,
        }
    }

    /// Logout.
    pub fn remove(&self, token: &str) -> bool {
        self.held
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(token)
            .is_some()
    }

    pub fn len(&self) -> usize {
        self.held.lock().unwrap_or_else(|p| p.into_inner()).len()
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
        let t = Tokens::default();
        let s = t
            .mint("u", "auto", vec![], 60)
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(s.token.len(), 40);
        assert!(s.token.chars().all(|c| c.is_ascii_hexdigit()));
        assert_eq!(t.get(&s.token).map(|x| x.user), Some("u".into()));
        assert!(t.remove(&s.token));
        assert!(t.get(&s.token).is_none());
        let gone = t
            .mint("u", "auto", vec![], 0)
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(t.get(&gone.token).is_none());
        for _ in 0..MAX_TOKENS + 5 {
            t.mint("u", "auto", vec![], 60)
                .unwrap_or_else(|e| panic!("{e}"));
        }
        assert_eq!(t.len(), MAX_TOKENS);
    }
}
