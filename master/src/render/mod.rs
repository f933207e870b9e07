//! The render pipeline: source text → data, as chosen by the shebang line
//! (`#!jinja|yaml` by default, `#!yaml`, `#!jinja|json`, `#!json`).
//! Shared by pillar SLS, state SLS, top files and PillarStack.

pub mod jinja;
pub mod yaml;

pub use jinja::TemplateContext;
