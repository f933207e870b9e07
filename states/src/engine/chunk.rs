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
    // The four parts found in one pass over the chunk's keys (a dozen),
    // not four hashed lookups: a run tags every chunk before it starts.
    let mut parts: [Option<&Value>; 4] = [None; 4];
    for (key, v) in low {
        let slot = match key.as_str() {
            "state" => 0,
            "__id__" => 1,
            "name" => 2,
            "fun" => 3,
            _ => continue,
        };
        parts[slot] = Some(v);
    }
    let mut tag = String::with_capacity(64);
    for (n, part) in parts.into_iter().enumerate() {
        if n > 0 {
            tag.push_str("_|-");
        }
        match part {
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
        // In place, in one pass: a new map of the kept keys copied every
        // key and hashed it twice (a twentieth of a fleet swarm's CPU).
        // The dropped values are freed; the map keeps its few slots.
        self.low.retain(|k, _| KEPT_AFTER_RUN.contains(&k.as_str()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tag_is_state_id_name_fun_whatever_the_key_order() {
        let mut low = Map::default();
        low.insert("fun".into(), Value::Str("managed".into()));
        low.insert("order".into(), Value::Int(3));
        low.insert("name".into(), Value::Int(80));
        low.insert("state".into(), Value::Str("file".into()));
        low.insert("__id__".into(), Value::Str("conf".into()));
        assert_eq!(gen_tag(&low), "file_|-conf_|-80_|-managed");
        low.shift_remove("name");
        assert_eq!(gen_tag(&low), "file_|-conf_|-_|-managed");
    }

    #[test]
    fn a_compacted_chunk_keeps_what_requisites_read_and_only_that() {
        let mut low = Map::default();
        for key in ["state", "__id__", "name", "fun", "__sls__", "failhard"] {
            low.insert(key.into(), Value::Str(format!("{key}-v")));
        }
        for key in ["require", "order", "__env__", "contents"] {
            low.insert(key.into(), Value::Str("dropped".into()));
        }
        let mut chunk = Chunk {
            low,
            tag: 0,
            prereq: false,
            prerequired: false,
        };
        chunk.compact();
        let keys: Vec<&str> = chunk.low.keys().map(String::as_str).collect();
        assert_eq!(
            keys,
            ["state", "__id__", "name", "fun", "__sls__", "failhard"]
        );
        for (k, v) in &chunk.low {
            assert_eq!(v.as_str(), Some(format!("{k}-v").as_str()));
        }
        // The map still answers lookups after the in-place removal.
        assert_eq!(
            chunk.low.get("name").and_then(Value::as_str),
            Some("name-v")
        );
        assert!(chunk.low.get("require").is_none());
    }
}
