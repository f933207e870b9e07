//! The accepted keys read before, kept while what they were read under
//! holds. Every request of a minion is checked against its accepted key:
//! reading it from `minions/` each time (two `stat`s, an open, a read and
//! a parse) was a tenth of the master's CPU answering a 10,000-minion
//! `test.ping`. A kept key is used while its file's `stat` (device, inode,
//! size, modification and change times) is the one it was read under and
//! older than [`SETTLED`](brine_compile::inputs::SETTLED) — so a
//! deletion, a replacement or an edit in place is read at once — or, in
//! the shared PostgreSQL store, while the store's change count is.

use brine_compile::inputs::Stamp;
use brine_protocol::crypto::PublicKeys;
use std::collections::HashMap;
use std::sync::Mutex;

/// Most keys kept by default; full, it starts over.
const MAX: usize = 100_000;

/// What a key was read under.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Seen {
    /// Its file's `stat`, settled.
    File(Stamp),
    /// The shared store's change count.
    Changes(u64),
}

#[derive(Debug)]
pub(super) struct AcceptedCache {
    kept: Mutex<HashMap<String, (Seen, PublicKeys)>>,
    max: usize,
}

impl Default for AcceptedCache {
    fn default() -> AcceptedCache {
        AcceptedCache::with_max(MAX)
    }
}

impl AcceptedCache {
    pub(super) fn with_max(max: usize) -> AcceptedCache {
        AcceptedCache {
            kept: Mutex::default(),
            max,
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, (Seen, PublicKeys)>> {
        self.kept.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// `id`'s key, if it was read under `seen`.
    pub(super) fn get(&self, id: &str, seen: &Seen) -> Option<PublicKeys> {
        match self.lock().get(id) {
            Some((s, key)) if s == seen => Some(*key),
            _ => None,
        }
    }

    /// Keep `id`'s accepted key, read under `seen` (taken before the key
    /// was read: a change in between moves what the next lookup sees).
    pub(super) fn keep(&self, id: &str, seen: Seen, key: &PublicKeys) {
        let mut kept = self.lock();
        if kept.len() >= self.max && !kept.contains_key(id) {
            kept.clear();
        }
        kept.insert(id.to_string(), (seen, *key));
    }

    #[cfg(test)]
    pub(super) fn len(&self) -> usize {
        self.lock().len()
    }
}
