//! The highstate compiler, in Salt's two stages:
//!
//! - render stage ([`top`], [`render`]): top files of all environments →
//!   the SLS this minion gets → each rendered once, with `include`,
//!   `exclude` and `extend` → **high data**;
//! - compile stage ([`compile`]): high data → requisite_in conversion,
//!   `use`, `prereq`, `extend` reconciliation, `names`, `order` →
//!   **low chunks**, sorted as Salt runs them.
//!
//! Shared by the master daemon and `brine-call --local`; a minion opens
//! the gpg blocks of what its master compiled ([`deferred_gpg`]).

pub mod compile;
pub mod deferred_gpg;
pub mod render;
pub mod top;
pub mod vocabulary;

use crate::MinionData;
use brine_core::Map;
use std::sync::Arc;

/// High data: state ID → `{module: [fun, {arg: val}...], __sls__, __env__}`,
/// plus the `__extend__` and `__exclude__` lists the render stage stashes.
pub type HighData = Map;

/// What one highstate/SLS compile is for.
#[derive(Debug, Clone, Default)]
pub struct StateRequest {
    /// The configuration (`file_roots`, `top_file_merging_strategy`,
    /// `env_order`, `default_top`, `state_top`, `state_top_saltenv`...).
    pub opts: Map,
    /// id, grains, and the pillar templates and matchers see (the in-memory
    /// pillar, or the one compiled for this run with `pillarenv=`/`pillar=`).
    pub minion: Arc<MinionData>,
    /// `saltenv=` of the call (restricts top/SLS environment), else opts.
    pub saltenv: Option<String>,
    /// `pillarenv=` of the call, for templates' `pillarenv`.
    pub pillarenv: Option<String>,
}
