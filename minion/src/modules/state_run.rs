//! `state.apply`, `state.highstate`, `state.sls`, `state.single`,
//! `state.low`: compile, then run through the state runtime and return the
//! running dictionary.

use super::{CallError, Params, Return};
use crate::context::Minion;

/// The `state.*` functions this file answers.
pub(super) const FUNCTIONS: &[&str] = &["apply", "highstate", "sls", "single", "low"];

pub(super) fn call(m: &mut Minion, name: &str, p: Params) -> Option<Result<Return, CallError>> {
    let _ = (m, name, p);
    None
}
