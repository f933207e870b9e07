//! State compile replay: a minion's compiled low chunks sent again while
//! nothing they were compiled from has changed.
//!
//! A highstate compile (top → SLS rendered → requisites → low chunks) is
//! the master's largest piece of work per minion and gives the same chunks
//! every time for an unchanged tree. As for the pillar
//! ([`super::replay`]), a compile records what it read; when it asked
//! nothing volatile, its answer is kept encoded in the minion's cache
//! folder (`states.p`) with, in memory, a digest of everything else it was
//! given ([`Given`]: the options it ran with, the grains, the pillar, the
//! SLS named, `exclude`) and the files it read, shared by every minion
//! that read the same ones. The next compile for the same minion with the
//! same [`Given`] stats those files (once for a fleet's compiles arriving
//! together, [`Checked`]) and sends the kept bytes, sealed anew.
//!
//! Bounded: an answer larger than [`MAX_ANSWER`] is not kept, nor one that
//! would take the kept answers past [`MAX_BYTES`] together on disk (one
//! 2,000-state highstate encodes to about 400 kB: ten thousand minions
//! fit); memory is about 150 bytes per kept minion.

use super::replay::{Checked, InputsTable};
use brine_compile::inputs::Inputs;
use brine_core::Map;
use brine_protocol::messages::{CompileStage, CompileStates};
use std::collections::HashMap;
use std::sync::Arc;

/// The largest answer kept (encoded bytes).
pub const MAX_ANSWER: u64 = 64 << 20;
/// The kept answers' bytes together, at most.
pub const MAX_BYTES: u64 = 8 << 30;

/// The file in a minion's cache folder holding its kept answer.
pub const FILE: &str = "states.p";

/// A digest of what a state compile was given besides its files.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Given(blake3::Hash);

impl Given {
    /// What a `Run` compile of `req` with `opts` (the compile's options:
    /// [`super::states::compile_opts`]), the grains and the pillar (both
    /// encoded: neither is decoded for this) was given; `None` for the
    /// show stages (rare: never kept).
    pub fn of(opts: &Map, grains: &[u8], pillar: &[u8], req: &CompileStates) -> Option<Given> {
        if req.stage != CompileStage::Run {
            return None;
        }
        let mut h = blake3::Hasher::new();
        // Lengths first: the encoded values and what follows cannot be
        // shifted into each other.
        for encoded in [pillar, grains] {
            h.update(&(encoded.len() as u64).to_le_bytes());
            h.update(encoded);
        }
        // The options carry the id, the envs, test mode and the master's
        // own keys (file_roots...); encoded straight into the hasher.
        rmp_serde::encode::write_named(&mut h, &(opts, &req.mods, &req.exclude)).ok()?;
        Some(Given(h.finalize()))
    }
}

/// One minion's kept answer.
#[derive(Debug)]
struct Kept {
    given: Given,
    inputs: Arc<Checked>,
    /// Of the bytes written to the minion's file: a file changed or
    /// replaced since is not sent.
    digest: blake3::Hash,
    len: u64,
}

/// The kept answers' bookkeeping (the bytes are in the minions' files).
#[derive(Debug)]
pub struct StateReplays {
    kept: HashMap<String, Kept>,
    bytes: u64,
    max_bytes: u64,
    max_answer: u64,
    inputs: InputsTable,
}

impl Default for StateReplays {
    fn default() -> StateReplays {
        StateReplays::with_limits(MAX_BYTES, MAX_ANSWER)
    }
}

/// What to check before sending a kept answer again.
pub struct Candidate {
    pub inputs: Arc<Checked>,
    pub digest: blake3::Hash,
}

impl StateReplays {
    pub fn with_limits(max_bytes: u64, max_answer: u64) -> StateReplays {
        StateReplays {
            kept: HashMap::new(),
            bytes: 0,
            max_bytes,
            max_answer,
            inputs: InputsTable::default(),
        }
    }

    /// The kept answer of `id` when it was compiled from `given`.
    pub fn candidate(&self, id: &str, given: Given) -> Option<Candidate> {
        let k = self.kept.get(id).filter(|k| k.given == given)?;
        Some(Candidate {
            inputs: k.inputs.clone(),
            digest: k.digest,
        })
    }

    /// May `encoded`, compiled from `given` after reading `inputs`, be kept
    /// for `id`? If so it is noted (the caller writes the file and calls
    /// [`StateReplays::forget`] if that fails). Whatever was kept for `id`
    /// before is let go either way.
    pub fn admit(&mut self, id: &str, given: Given, inputs: Inputs, encoded: &[u8]) -> bool {
        self.forget(id);
        let len = encoded.len() as u64;
        if len > self.max_answer || self.bytes.saturating_add(len) > self.max_bytes {
            return false;
        }
        let Some(inputs) = self.inputs.intern(inputs) else {
            return false;
        };
        self.bytes += len;
        self.kept.insert(
            id.to_string(),
            Kept {
                given,
                inputs,
                digest: blake3::hash(encoded),
                len,
            },
        );
        true
    }

    /// Let go of what is kept for `id`; whether anything was.
    pub fn forget(&mut self, id: &str) -> bool {
        let Some(k) = self.kept.remove(id) else {
            return false;
        };
        self.bytes -= k.len;
        true
    }

    /// Bytes of the kept answers together.
    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    /// Minions with a kept answer.
    pub fn len(&self) -> usize {
        self.kept.len()
    }

    pub fn is_empty(&self) -> bool {
        self.kept.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use brine_compile::inputs::record_settled;
    use brine_core::Value;
    use std::time::Duration;

    fn request() -> CompileStates {
        CompileStates {
            id: "web1".into(),
            mods: None,
            saltenv: None,
            pillarenv: None,
            exclude: Value::Null,
            test: false,
            opts: Map::default(),
            pillar: Map::default(),
            stage: CompileStage::Run,
            fresh_pillar: None,
        }
    }

    /// msgpack's nil: grains of nothing.
    const NIL: [u8; 1] = [0xc0];

    #[test]
    fn everything_given_is_in_the_digest() {
        let opts = Map::default();
        let pillar = rmp_serde::to_vec_named(&Map::default()).unwrap();
        let req = request();
        let base = Given::of(&opts, &NIL, &pillar, &req).unwrap();
        assert_eq!(Some(base), Given::of(&opts, &NIL, &pillar, &req));
        let mut o2 = opts.clone();
        o2.insert("test".into(), Value::Bool(true));
        assert_ne!(Some(base), Given::of(&o2, &NIL, &pillar, &req));
        let g2 = rmp_serde::to_vec_named(&serde_json::json!({"os": "Debian"})).unwrap();
        assert_ne!(Some(base), Given::of(&opts, &g2, &pillar, &req));
        // The grains and the pillar cannot stand in for each other.
        assert_ne!(
            Given::of(&opts, &g2, &pillar, &req),
            Given::of(&opts, &pillar, &g2, &req)
        );
        let mut p2 = Map::default();
        p2.insert("k".into(), Value::Int(1));
        let p2 = rmp_serde::to_vec_named(&p2).unwrap();
        assert_ne!(Some(base), Given::of(&opts, &NIL, &p2, &req));
        let mut r2 = request();
        r2.mods = Some(vec!["web".into()]);
        assert_ne!(Some(base), Given::of(&opts, &NIL, &pillar, &r2));
        let mut r3 = request();
        r3.exclude = Value::from_json(&serde_json::json!(["web"]));
        assert_ne!(Some(base), Given::of(&opts, &NIL, &pillar, &r3));
        let mut r4 = request();
        r4.stage = CompileStage::Top;
        assert_eq!(None, Given::of(&opts, &NIL, &pillar, &r4));
    }

    #[test]
    fn the_kept_bytes_stay_within_the_cap() {
        let td = tempfile::tempdir().unwrap();
        let a = td.path().join("a.sls");
        std::fs::write(&a, "a: 1\n").unwrap();
        let read = || {
            record_settled(Duration::ZERO, || brine_compile::file_text::read(&a))
                .1
                .unwrap()
        };
        let given = Given::of(&Map::default(), &NIL, &[0x80], &request()).unwrap();
        let mut r = StateReplays::with_limits(250, 100);
        assert!(
            !r.admit("big", given, read(), &[0; 101]),
            "past the answer bound"
        );
        assert!(r.admit("m1", given, read(), &[0; 100]));
        assert!(r.admit("m2", given, read(), &[1; 100]));
        assert!(!r.admit("m3", given, read(), &[2; 100]), "past the cap");
        assert_eq!((r.bytes(), r.len()), (200, 2));
        // A new answer for a kept minion replaces its old one.
        assert!(r.admit("m2", given, read(), &[3; 50]));
        assert!(r.admit("m3", given, read(), &[2; 100]));
        assert_eq!((r.bytes(), r.len()), (250, 3));
        assert!(r.candidate("m3", given).is_some());
        assert!(r.forget("m3"));
        assert!(!r.forget("m3"), "nothing left to let go");
        assert!(r.candidate("m3", given).is_none());
        assert_eq!(r.bytes(), 150);
        // A different digest finds nothing.
        let other = Given::of(&Map::default(), &[0x01], &[0x80], &request());
        assert!(r.candidate("m1", other.unwrap()).is_none());
    }
}
