//! The accepted keys read since the key store last changed. Every request
//! of a minion is checked against its accepted key: reading it from
//! `minions/` each time (two `stat`s, an open, a read and a parse) was a
//! tenth of the master's CPU answering a 10,000-minion `test.ping`. A key
//! is kept under the store's settled [`AcceptedStamp`] and only while that
//! stamp holds: any deletion, rejection or replacement moves it (for
//! files, the `minions/` folder's `stat`, as the session key's holders are
//! checked; a key file edited in place moves no stamp, see
//! [`super::KeyStore::accepted_stamp`]).

use super::AcceptedStamp;
use brine_protocol::crypto::PublicKeys;
use std::collections::HashMap;
use std::sync::Mutex;

/// Most keys kept by default; full, it starts over.
const MAX: usize = 100_000;

#[derive(Debug)]
pub(super) struct AcceptedCache {
    inner: Mutex<Kept>,
    max: usize,
}

#[derive(Debug, Default)]
struct Kept {
    /// The stamp every key below was read under.
    stamp: Option<AcceptedStamp>,
    keys: HashMap<String, PublicKeys>,
}

impl Default for AcceptedCache {
    fn default() -> AcceptedCache {
        AcceptedCache::with_max(MAX)
    }
}

impl AcceptedCache {
    pub(super) fn with_max(max: usize) -> AcceptedCache {
        AcceptedCache {
            inner: Mutex::default(),
            max,
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Kept> {
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// `id`'s key as read under `stamp` (a settled one), if kept.
    pub(super) fn get(&self, stamp: &AcceptedStamp, id: &str) -> Option<PublicKeys> {
        let kept = self.lock();
        if kept.stamp.as_ref() != Some(stamp) {
            return None;
        }
        kept.keys.get(id).copied()
    }

    /// Keep `id`'s accepted key, read under `stamp` (read before the key
    /// was: a change in between moves the store past it, and the next
    /// lookup drops what was kept).
    pub(super) fn keep(&self, stamp: AcceptedStamp, id: &str, key: &PublicKeys) {
        let mut kept = self.lock();
        if kept.stamp != Some(stamp) || kept.keys.len() >= self.max {
            kept.keys.clear();
            kept.stamp = Some(stamp);
        }
        kept.keys.insert(id.to_string(), *key);
    }

    #[cfg(test)]
    pub(super) fn len(&self) -> usize {
        self.lock().keys.len()
    }
}
