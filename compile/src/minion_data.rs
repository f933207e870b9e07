//! What the compile side knows about one minion: the `opts`, `grains` and
//! `pillar` dictionaries Salt's renderers and matchers are given, and the
//! execution functions its templates may call.

pub mod functions;

use brine_core::Value;
use functions::Functions;

#[derive(Debug, Clone, Default)]
pub struct MinionData {
    /// The minion id (`opts['id']`, `grains['id']`).
    pub id: String,
    /// Grains: a map.
    pub grains: Value,
    /// Pillar as known at this point of the compile (a map; may be empty).
    pub pillar: Value,
    /// The minion's (or master's) configuration as Salt's `opts` dict.
    pub opts: Value,
    /// `salt[...]` in templates (Salt's `__salt__`): the caller's registry;
    /// none by default.
    pub functions: Functions,
}
