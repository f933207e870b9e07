//! The refresh tag: Salt refreshes the package database once per state run,
//! at the first pkg.installed/pkg.latest (its `mod_init` writes the tag,
//! `refresh_db` removes it).

use crate::StateContext;
use brine_core::{Map, Value};
use std::path::{Path, PathBuf};

pub(super) fn rtag(opts: &Map) -> Option<PathBuf> {
    opts.get("cachedir")
        .and_then(Value::as_str)
        .map(|c| Path::new(c).join("pkg_refresh"))
}

static LAST_RUN: std::sync::Mutex<usize> = std::sync::Mutex::new(0);

/// Salt's `pkg.mod_init`: on the first installed/latest call of a run,
/// write the refresh tag. A run is recognised by its options object.
pub fn mod_init(ctx: &StateContext, fun: &str) {
    if fun != "installed" && fun != "latest" {
        return;
    }
    let run_id = std::sync::Arc::as_ptr(&ctx.opts) as usize;
    let first = match LAST_RUN.lock() {
        Ok(mut last) => {
            let first = *last != run_id;
            *last = run_id;
            first
        }
        Err(_) => false,
    };
    if first {
        write_rtag(ctx);
    }
}

/// Create the refresh tag (Salt's `write_rtag`).
pub fn write_rtag(ctx: &StateContext) {
    if let Some(p) = rtag(&ctx.opts) {
        if !p.exists() {
            if let Some(dir) = p.parent() {
                let _ = std::fs::create_dir_all(dir);
            }
            let _ = std::fs::write(&p, "");
        }
    }
}

/// Remove the refresh tag (done by every database refresh).
pub fn clear_rtag(ctx: &StateContext) {
    if let Some(p) = rtag(&ctx.opts) {
        let _ = std::fs::remove_file(p);
    }
}

/// Salt's `check_refresh`: refresh when asked, or when the tag exists and
/// refresh was not turned off.
pub(super) fn check_refresh(ctx: &StateContext, refresh: Option<&Value>) -> bool {
    if refresh.is_some_and(crate::modules::user::support::is_true) {
        return true;
    }
    let off = matches!(refresh, Some(Value::Bool(false)));
    !off && rtag(&ctx.opts).is_some_and(|p| p.is_file())
}
