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
//! every minion that read the same ones ([`InputsTable`], bounded).

use super::minion_cache::KnownMinion;
use brine_compile::inputs::Inputs;
use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

/// Paths kept at most, all distinct file sets together (about a hundred
/// bytes each); past it a compile is not replayed.
const MAX_PATHS: usize = 1 << 20;

/// What a pillar compile was given besides its files.
#[derive(Debug, Clone)]
pub struct Given {
    /// The minion as the cache knew it: its grains and configured
    /// pillarenv.
    pub known: Arc<KnownMinion>,
    pub pillarenv: Option<String>,
    pub saltenv: Option<String>,
}

impl Given {
    fn same(&self, other: &Given) -> bool {
        // A minion that authenticates again sends the same grains as a
        // new value: compared whole (rarely, as the pointers are the same).
        (Arc::ptr_eq(&self.known, &other.known) || self.known == other.known)
            && self.pillarenv == other.pillarenv
            && self.saltenv == other.saltenv
    }
}

/// A compile that may be given again: what it was given and read.
#[derive(Debug, Clone)]
pub struct Replay {
    given: Given,
    inputs: Arc<Inputs>,
}

impl Replay {
    pub fn new(given: Given, inputs: Arc<Inputs>) -> Replay {
        Replay { given, inputs }
    }

    /// The files to check, when this compile was given `given`.
    pub fn inputs_for(&self, given: &Given) -> Option<Arc<Inputs>> {
        self.given.same(given).then(|| self.inputs.clone())
    }
}

/// The distinct file sets of the kept replays: a fleet whose minions read
/// the same files keeps one copy.
#[derive(Debug, Default)]
pub struct InputsTable {
    sets: HashMap<u64, Vec<Arc<Inputs>>>,
    paths: usize,
}

impl InputsTable {
    /// The kept set equal to `inputs`, else `inputs`, now kept; `None` when
    /// keeping it would pass [`MAX_PATHS`].
    pub fn intern(&mut self, inputs: Inputs) -> Option<Arc<Inputs>> {
        let mut h = std::collections::hash_map::DefaultHasher::new();
        inputs.hash(&mut h);
        let key = h.finish();
        if let Some(kept) = self
            .sets
            .get(&key)
            .and_then(|v| v.iter().find(|k| ***k == inputs))
        {
            return Some(kept.clone());
        }
        // Sets no replay holds any more go first.
        self.sets.retain(|_, v| {
            v.retain(|k| Arc::strong_count(k) > 1);
            !v.is_empty()
        });
        self.paths = self.sets.values().flatten().map(|k| k.len()).sum();
        if self.paths.saturating_add(inputs.len()) > MAX_PATHS {
            return None;
        }
        self.paths += inputs.len();
        let kept = Arc::new(inputs);
        self.sets.entry(key).or_default().push(kept.clone());
        Some(kept)
    }

    /// Paths kept.
    pub fn paths(&self) -> usize {
        self.paths
    }
}
