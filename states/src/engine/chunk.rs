//! A low chunk as a run holds it, its running-dictionary tag, and why a
//! run could not finish.

use brine_core::{Map, Value};

/// Why a run could not finish (Salt raises these out of the state run).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum RuntimeError {
    /// A keyword the state function does not take (Salt's `format_call`
    /// error, a `SaltInvocationError` that ends the whole call).
    #[error("{0}")]
    InvalidArguments(String),
    /// A requisite Salt cannot look up (`SaltRenderError`).
    #[error("{0}")]
    Requisite(String),
    /// Where Salt's own run crashes: a requisite check after a `failhard`
    /// failure deep in a requisite chain. The run ends with what ran
    /// ([`call_high`] never returns this).
    #[error("the run stopped after a failhard failure")]
    FailhardStop,
}

/// The running-dictionary tag of a low chunk: `state_|-id_|-name_|-fun`.
pub fn gen_tag(low: &Map) -> String {
    let mut tag = String::with_capacity(64);
    for (n, key) in ["state", "__id__", "name", "fun"].into_iter().enumerate() {
        if n > 0 {
            tag.push_str("_|-");
        }
        match low.get(key) {
            // The usual case, written without a copy of its own.
            Some(Value::Str(s)) => tag.push_str(s),
            Some(other) => tag.push_str(&other.to_python_str()),
            None => {}
        }
    }
    tag
}

/// A low chunk with what Salt keeps in it at runtime.
pub(super) struct Chunk {
    pub(super) low: Map,
    /// Index into the run's tags.
    pub(super) tag: usize,
    /// Salt's `__prereq__`: run in test mode into `pre`.
    pub(super) prereq: bool,
    /// Salt's `__prerequired__`.
    pub(super) prerequired: bool,
}

/// What is still read of a chunk once it has run: its identity for
/// requisite lookups and messages, and `failhard`.
pub(super) const KEPT_AFTER_RUN: &[&str] = &[
    "state",
    "__id__",
    "name",
    "fun",
    "__sls__",
    "__sls_included_from__",
    "failhard",
];

impl Chunk {
    /// Drop the arguments of a chunk that has run, to keep a long run's
    /// memory flat.
    pub(super) fn compact(&mut self) {
        if self.low.len() <= KEPT_AFTER_RUN.len() {
            return;
        }
        let mut small = Map::with_capacity_and_hasher(KEPT_AFTER_RUN.len(), Default::default());
        for key in KEPT_AFTER_RUN {
            // The rest is dropped, so the order left behind is of no
            // matter: swap_remove is O(1) where shift_remove moved every
            // later entry (2.5 % of a fleet swarm's highstate CPU).
            if let Some(v) = self.low.swap_remove(*key) {
                small.insert((*key).to_string(), v);
            }
        }
        self.low = small;
    }
}
