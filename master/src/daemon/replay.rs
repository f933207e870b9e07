//! Pillar replay: a minion's pillar given again, from its cache file,
//! while nothing it was compiled from has changed.
//!
//! Salt compiles a minion's pillar again for every `state.apply` and
//! `refresh_pillar`; across a fleet that is most of the master's work, and
//! Salt's own answer (`pillar_cache`) serves stale pillars for an hour. A
//! compile here records what it read ([`brine_compile::inputs`]). When it
//! asked nothing but its files and the minion's data, the next compile for
//! the same minion, grains and environments stats those files, and if each
//! is as it was, the pillar written to the minion's cache file is read back
//! instead: the answer a compile would give, seen to change at once.
//!
//! What is kept per minion is a [`Replay`]: the minion as it was known
//! (its grains), the environments, and the files read, shared by
//! every minion that read the same ones ([`InputsTable`], bounded). The
//! check is shared too ([`Checked`]): a fleet's compiles arrive together,
//! and a check that began after a request arrived saw every change made
//! before it, so it answers for that request as well.

use brine_compile::inputs::Inputs;
use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// Paths kept at most, all distinct file sets together (about a hundred
/// bytes each); past it a compile is not replayed.
const MAX_PATHS: usize = 1 << 20;

/// What a pillar compile was given besides its files: `K` is the minion
/// as the master's cache knew it (its grains and configured pillarenv).
#[derive(Debug, Clone)]
pub struct Given<K> {
    pub known: Arc<K>,
    pub pillarenv: Option<String>,
    pub saltenv: Option<String>,
}

impl<K: PartialEq> Given<K> {
    fn same(&self, other: &Given<K>) -> bool {
        // A minion that authenticates again sends the same grains as a
        // new value: compared whole (rarely, as the pointers are the same).
        (Arc::ptr_eq(&self.known, &other.known) || self.known == other.known)
            && self.pillarenv == other.pillarenv
            && self.saltenv == other.saltenv
    }
}

/// A compile that may be given again: what it was given and read.
#[derive(Debug, Clone)]
pub struct Replay<K> {
    given: Given<K>,
    inputs: Arc<Checked>,
}

impl<K: PartialEq> Replay<K> {
    pub fn new(given: Given<K>, inputs: Arc<Checked>) -> Replay<K> {
        Replay { given, inputs }
    }

    /// The files to check, when this compile was given `given`.
    pub fn inputs_for(&self, given: &Given<K>) -> Option<Arc<Checked>> {
        self.given.same(given).then(|| self.inputs.clone())
    }
}

/// A set of files a compile read, and when the last check that found
/// them all unchanged began.
#[derive(Debug)]
pub struct Checked {
    inputs: Inputs,
    last_good: Mutex<Option<Instant>>,
}

impl Checked {
    fn new(inputs: Inputs) -> Checked {
        Checked {
            inputs,
            last_good: Mutex::new(None),
        }
    }

    /// Every file as the compile read it, for a request that arrived at
    /// `received`: stat'ed again unless a check that began since then
    /// found them so.
    pub fn unchanged_since(&self, received: Instant) -> bool {
        let last = || self.last_good.lock().unwrap_or_else(|p| p.into_inner());
        if last().is_some_and(|t| t >= received) {
            return true;
        }
        let began = Instant::now();
        if !self.inputs.unchanged() {
            return false;
        }
        let mut last = last();
        if last.is_none_or(|t| t < began) {
            *last = Some(began);
        }
        true
    }

    fn len(&self) -> usize {
        self.inputs.len()
    }
}

/// The distinct file sets of the kept replays: a fleet whose minions read
/// the same files keeps one copy.
#[derive(Debug)]
pub struct InputsTable {
    sets: HashMap<u64, Vec<Arc<Checked>>>,
    paths: usize,
    limit: usize,
}

impl Default for InputsTable {
    fn default() -> InputsTable {
        InputsTable::with_limit(MAX_PATHS)
    }
}

impl InputsTable {
    fn with_limit(limit: usize) -> InputsTable {
        InputsTable {
            sets: HashMap::new(),
            paths: 0,
            limit,
        }
    }

    /// The kept set equal to `inputs`, else `inputs`, now kept; `None` when
    /// keeping it would pass [`MAX_PATHS`] (once sets no replay holds are
    /// let go).
    pub fn intern(&mut self, inputs: Inputs) -> Option<Arc<Checked>> {
        let mut h = std::collections::hash_map::DefaultHasher::new();
        inputs.hash(&mut h);
        let key = h.finish();
        if let Some(kept) = self
            .sets
            .get(&key)
            .and_then(|v| v.iter().find(|k| k.inputs == inputs))
        {
            return Some(kept.clone());
        }
        // Sets no replay holds any more go first.
        self.sets.retain(|_, v| {
            v.retain(|k| Arc::strong_count(k) > 1);
            !v.is_empty()
        });
        self.paths = self.sets.values().flatten().map(|k| k.len()).sum();
        if self.paths.saturating_add(inputs.len()) > self.limit {
            return None;
        }
        self.paths += inputs.len();
        let kept = Arc::new(Checked::new(inputs));
        self.sets.entry(key).or_default().push(kept.clone());
        Some(kept)
    }

    /// Paths kept.
    #[cfg(test)]
    pub fn paths(&self) -> usize {
        self.paths
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use brine_compile::inputs::record_settled;
    use std::time::Duration;

    fn read(path: &std::path::Path) -> Inputs {
        record_settled(Duration::ZERO, || brine_compile::file_text::read(path))
            .1
            .unwrap()
    }

    #[test]
    fn a_check_begun_after_a_request_arrived_answers_for_it() {
        let td = tempfile::tempdir().unwrap();
        let a = td.path().join("a.sls");
        std::fs::write(&a, "a: 1\n").unwrap();
        let mut table = InputsTable::default();
        let checked = table.intern(read(&a)).unwrap();
        // The same files read for another minion: the same set.
        assert!(Arc::ptr_eq(&checked, &table.intern(read(&a)).unwrap()));
        assert_eq!(table.paths(), 1);

        let arrived = Instant::now();
        assert!(checked.unchanged_since(arrived));
        std::thread::sleep(Duration::from_millis(30));
        std::fs::write(&a, "a: 2\n").unwrap();
        // Changed after that request arrived: the check made for it
        // answers again; a request arriving now gets a new check.
        assert!(checked.unchanged_since(arrived));
        assert!(!checked.unchanged_since(Instant::now()));
    }

    #[test]
    fn sets_no_replay_holds_are_let_go_and_the_table_is_bounded() {
        let td = tempfile::tempdir().unwrap();
        let file = |i: usize| {
            let p = td.path().join(format!("{i}.sls"));
            std::fs::write(&p, "x: 1\n").unwrap();
            read(&p)
        };
        let mut table = InputsTable::with_limit(2);
        for i in 0..3 {
            // Each let go at once: only the newest stays.
            drop(table.intern(file(i)));
            assert_eq!(table.paths(), 1);
        }
        let a = table.intern(file(10));
        let b = table.intern(file(11));
        assert!(a.is_some() && b.is_some());
        assert!(table.intern(file(12)).is_none(), "past the bound");
        drop(a);
        assert!(table.intern(file(12)).is_some());
        assert_eq!(table.paths(), 2);
    }
}
