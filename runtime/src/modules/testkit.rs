//! What the host-administration modules' tests share: a minion with given
//! grains, and `brine-call FUN ARGS...` against it.

use super::{call, functions};
use crate::context::Minion;
use brine_core::args::parse_input;
use brine_core::Map;

/// A Debian minion (the `os_family` grain picks the package provider).
pub(crate) fn minion() -> Minion {
    let mut grains = Map::default();
    grains.insert("os".into(), "Debian".into());
    grains.insert("os_family".into(), "Debian".into());
    grains.insert("kernel".into(), "Linux".into());
    Minion {
        id: "brinex14".into(),
        opts: Map::default().into(),
        grains: grains.into(),
        pillar: Map::default().into(),
        source: Default::default(),
        functions: functions(),
        jobs: Default::default(),
        registry: None,
        schedule: None,
        master: Default::default(),
        key_finger: None,
    }
}

/// `brine-call FUN ARGS...`: the answer as JSON, or the error text.
pub(crate) fn run(m: &mut Minion, fun: &str, line: &[&str]) -> Result<serde_json::Value, String> {
    let tokens: Vec<String> = line.iter().map(|s| s.to_string()).collect();
    call(m, fun, parse_input(&tokens))
        .map(|r| r.value.to_json())
        .map_err(|e| e.to_string())
}

/// Root, where the real-effect tests can change the host.
pub(crate) fn is_root() -> bool {
    brine_host::accounts::is_root()
}

/// `argv` run to completion (test setup and cleanup).
pub(crate) fn sh(argv: &[&str]) -> brine_host::exec::CommandResult {
    brine_host::exec::run(&brine_host::exec::CommandSpec::argv(argv)).unwrap_or_default()
}
