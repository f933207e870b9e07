//! Is a request fresh? Salt ties a minion's requests to the AES session it
//! got at authentication; brine's requests are signed, so what remains is
//! that a captured request must not work twice:
//!
//! - a request stamped before this master process started is refused, so
//!   nothing recorded before a restart can be replayed after it (the guard
//!   below needs no disk);
//! - within the window (`replay_window`, seconds), each requester's nonces
//!   are remembered, **per requester**, and only once the requester is
//!   known: an accepted minion key that signed the request, or the CLI
//!   holding the root token. Nothing is recorded for an unknown or pending
//!   key, so no peer can fill another's memory; each requester holds at
//!   most [`PER_REQUESTER`] nonces (past that its own requests wait for the
//!   window to move, fail closed).
//!
//! Each master's memory is its own. Masters that serve one fleet share the
//! master key, so a request sealed for one opens at another; a minion's
//! request therefore names the master process it is for
//! ([`Request::to`](brine_protocol::messages::Request::to), learnt at
//! authentication), and dispatch refuses one naming another before
//! anything is remembered. A captured request works nowhere else, and no
//! master needs another's nonces.
//!
//! Times are the master's clock: minions stamp their requests with it (they
//! follow the time on the master's signed replies, see
//! `brine_protocol::crypto::follow_master_clock`), so a minion whose own
//! clock is minutes off is still served. A refusal says
//! [`ErrorCode::Replay`](brine_protocol::messages::ErrorCode::Replay) with
//! the master's time on the reply, from which the minion corrects itself.

use brine_protocol::crypto::{Nonce, ReplayError, ReplayGuard};
use std::collections::HashMap;
use std::sync::Mutex;

/// Nonces one requester may have in the window.
pub const PER_REQUESTER: usize = 20_000;
/// Requesters with nonces in the window at once (accepted minions and the
/// CLI). Past it, requesters whose nonces all expired are forgotten first.
pub const MAX_REQUESTERS: usize = 200_000;
/// How far ahead of the master's clock a request may be stamped (minions
/// follow the master's time; this covers the reply's transit).
pub const SKEW_MS: u64 = 60_000;

/// Who is asking, once known.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Requester {
    /// The local CLI (root token).
    Cli,
    /// A minion, by id, whose accepted key signed the request.
    Minion(String),
}

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum FreshnessError {
    #[error("request stamped {created_ms} ms, before this master started ({started_ms} ms)")]
    BeforeStart { created_ms: u64, started_ms: u64 },
    #[error(transparent)]
    Replay(#[from] ReplayError),
    #[error("too many requesters in the replay window ({0}); refused")]
    Full(usize),
}

#[derive(Debug)]
pub struct Freshness {
    started_ms: u64,
    window_ms: u64,
    guards: Mutex<HashMap<Requester, ReplayGuard>>,
}

impl Freshness {
    pub fn new(started_ms: u64, window_ms: u64) -> Freshness {
        Freshness {
            started_ms,
            window_ms,
            guards: Mutex::new(HashMap::new()),
        }
    }

    /// Check a request of `who`, stamped `created_ms` with `nonce`, at
    /// `now_ms`; remember the nonce if it is fresh.
    pub fn check(
        &self,
        who: &Requester,
        created_ms: u64,
        nonce: &Nonce,
        now_ms: u64,
    ) -> Result<(), FreshnessError> {
        if created_ms < self.started_ms {
            return Err(FreshnessError::BeforeStart {
                created_ms,
                started_ms: self.started_ms,
            });
        }
        let mut guards = self.guards.lock().unwrap_or_else(|p| p.into_inner());
        if !guards.contains_key(who) && guards.len() >= MAX_REQUESTERS {
            guards.retain(|_, g| {
                g.forget_before(now_ms);
                !g.is_empty()
            });
            if guards.len() >= MAX_REQUESTERS {
                return Err(FreshnessError::Full(MAX_REQUESTERS));
            }
        }
        let guard = guards
            .entry(who.clone())
            .or_insert_with(|| ReplayGuard::new(self.window_ms, SKEW_MS, PER_REQUESTER));
        guard.check(created_ms, nonce, now_ms)?;
        Ok(())
    }

    /// Nonces remembered for `who` (tests, diagnostics).
    pub fn remembered(&self, who: &Requester) -> usize {
        let guards = self.guards.lock().unwrap_or_else(|p| p.into_inner());
        guards.get(who).map_or(0, ReplayGuard::len)
    }

    /// Requesters with a guard.
    pub fn requesters(&self) -> usize {
        self.guards.lock().unwrap_or_else(|p| p.into_inner()).len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nonce(n: u8) -> Nonce {
        [n; 16]
    }

    #[test]
    fn before_start_replay_and_per_requester_memory() {
        let f = Freshness::new(1_000_000, 300_000);
        let web1 = Requester::Minion("web1".into());
        let web2 = Requester::Minion("web2".into());
        assert_eq!(
            f.check(&web1, 999_999, &nonce(1), 1_000_100),
            Err(FreshnessError::BeforeStart {
                created_ms: 999_999,
                started_ms: 1_000_000
            })
        );
        f.check(&web1, 1_000_050, &nonce(1), 1_000_100).unwrap();
        assert_eq!(
            f.check(&web1, 1_000_050, &nonce(1), 1_000_100),
            Err(FreshnessError::Replay(ReplayError::Replayed))
        );
        // The same nonce from another requester is its own business.
        f.check(&web2, 1_000_050, &nonce(1), 1_000_100).unwrap();
        f.check(&Requester::Cli, 1_000_050, &nonce(1), 1_000_100)
            .unwrap();
        assert_eq!(f.remembered(&web1), 1);
        assert_eq!(f.requesters(), 3);
        // Stamped a minute and more ahead of the master: refused.
        assert!(matches!(
            f.check(&web1, 1_000_100 + SKEW_MS + 1, &nonce(2), 1_000_100),
            Err(FreshnessError::Replay(ReplayError::FromFuture { .. }))
        ));
    }
}
