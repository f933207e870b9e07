//! The `pkg` state module: `installed`, `latest`, `removed`, `purged` and
//! `mod_watch`, as Salt's `salt/states/pkg.py` runs them over its package
//! execution modules. The package system is a [`PkgProvider`] picked from
//! the `os_family` grain: Debian → dpkg/apt-get ([`apt::Apt`]), RedHat →
//! rpm/dnf, falling back to yum ([`dnf::Dnf`]).
//!
//! Here: picking the provider, dispatching a state function, the refresh
//! tag and the small helpers every part shares. The state functions are in
//! `states`, the target and version resolution in `targets`, the provider
//! interface in `provider`.

pub mod apt;
pub mod dnf;
mod provider;
mod states;
mod targets;
pub mod version;

pub use provider::{
    add_reinstall_changes, compare_dicts, stringify, BinPkgInfo, HoldAnswer, InfoInstalled,
    InstallRequest, PkgDb, PkgError, PkgList, PkgProvider, ProviderError,
};
pub use states::{installed, latest, uninstall};
pub use targets::repack_pkgs;

use super::user::support::{failed, ArgError, Args};
use crate::{StateCall, StateContext, StateModule, StateReturn};
use brine_core::{Map, Value};
use std::path::{Path, PathBuf};

/// `{"new": n, "old": o}`, in the order Salt builds it for a change.
fn new_old(n: &str, o: &str) -> Value {
    let mut m = Map::default();
    m.insert("new".into(), Value::Str(n.into()));
    m.insert("old".into(), Value::Str(o.into()));
    Value::Map(m)
}

pub struct PkgModule;

/// The `pkg` state module.
pub static PKG: PkgModule = PkgModule;

/// The provider for this minion, from its grains (or, without grains, from
/// the tools installed).
pub fn provider_for(ctx: &StateContext) -> Result<Box<dyn PkgProvider>, ProviderError> {
    provider_from(&ctx.grains, &ctx.opts)
}

/// [`provider_for`] from the minion's grains and opts (the execution
/// module's way in).
pub fn provider_from(grains: &Map, opts: &Map) -> Result<Box<dyn PkgProvider>, ProviderError> {
    let rtag = rtag(opts);
    let family = grains
        .get("os_family")
        .and_then(Value::as_str)
        .unwrap_or("");
    let osarch = grains
        .get("osarch")
        .and_then(Value::as_str)
        .map(str::to_string);
    let cpuarch = grains
        .get("cpuarch")
        .and_then(Value::as_str)
        .map(str::to_string);
    let which = super::user::support::which;
    let dnf = |osarch, rtag| {
        dnf::Dnf::detect(osarch, rtag).map(|mut d| {
            d.versionlock_pkg = dnf::versionlock_pkg(&d.bin, grains);
            Box::new(d) as Box<dyn PkgProvider>
        })
    };
    match family {
        "Debian" => Ok(Box::new(apt::Apt::new(osarch, cpuarch, rtag))),
        "RedHat" => dnf(osarch, rtag),
        "" if which("dpkg").is_some() && which("apt-get").is_some() => {
            Ok(Box::new(apt::Apt::new(osarch, cpuarch, rtag)))
        }
        "" if which("rpm").is_some() => dnf(osarch, rtag),
        other => Err(ProviderError::Unsupported {
            os_family: other.to_string(),
        }),
    }
}

impl StateModule for PkgModule {
    fn has_function(&self, fun: &str) -> bool {
        matches!(
            fun,
            "installed" | "latest" | "removed" | "purged" | "mod_watch"
        )
    }

    fn call(&self, call: &StateCall) -> StateReturn {
        if call.fun() == "mod_watch" {
            if let Some(r) = self.mod_watch(call) {
                return r;
            }
        }
        match provider_for(call.ctx) {
            Ok(p) => dispatch(p.as_ref(), call, call.fun()),
            Err(e) => failed(call.name(), e.to_string()),
        }
    }

    fn mod_watch(&self, call: &StateCall) -> Option<StateReturn> {
        let sfun = call
            .value("sfun")
            .map(Value::to_python_str)
            .unwrap_or_else(|| call.fun().to_string());
        if !matches!(sfun.as_str(), "installed" | "latest" | "removed" | "purged") {
            return Some(failed(
                call.name(),
                format!("pkg.{sfun} does not work with the watch requisite"),
            ));
        }
        Some(match provider_for(call.ctx) {
            Ok(p) => dispatch(p.as_ref(), call, &sfun),
            Err(e) => failed(call.name(), e.to_string()),
        })
    }
}

/// Run the state function `fun` with `provider`.
pub fn dispatch(p: &dyn PkgProvider, call: &StateCall, fun: &str) -> StateReturn {
    let name = call.name();
    let res = match fun {
        "installed" => {
            mod_init(call.ctx, fun);
            installed(p, call)
        }
        "latest" => {
            mod_init(call.ctx, fun);
            latest(p, call)
        }
        "removed" => uninstall(p, call, false),
        "purged" => uninstall(p, call, true),
        other => Ok(failed(
            name,
            format!("State function pkg.{other} is not available"),
        )),
    };
    res.unwrap_or_else(|e| e.into_return(name))
}

// ---------------------------------------------------------------------------
// The refresh tag: Salt refreshes the package database once per state run,
// at the first pkg.installed/pkg.latest (its `mod_init` writes the tag,
// `refresh_db` removes it).

fn rtag(opts: &Map) -> Option<PathBuf> {
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
fn check_refresh(ctx: &StateContext, refresh: Option<&Value>) -> bool {
    if refresh.is_some_and(super::user::support::is_true) {
        return true;
    }
    let off = matches!(refresh, Some(Value::Bool(false)));
    !off && rtag(&ctx.opts).is_some_and(|p| p.is_file())
}

/// A list argument; Salt would treat anything else as malformed.
fn list_arg(call: &StateCall, key: &str) -> Result<Option<Vec<Value>>, ArgError> {
    call.opt_list(key)
}

fn ret(name: &str, result: Option<bool>, comment: impl Into<String>, changes: Map) -> StateReturn {
    let mut r = StateReturn::new(name);
    r.result = result;
    r.comment = comment.into();
    r.changes = changes;
    r
}

/// The `name[=version]` text Salt uses for a target in comments.
fn desired_pkg(name: &str, ver: Option<&str>) -> String {
    match ver.filter(|v| !v.is_empty()) {
        None => name.to_string(),
        Some(v) if v.starts_with(['<', '>', '=']) => format!("{name}{v}"),
        Some(v) => format!("{name}={v}"),
    }
}

fn add_warnings(r: &mut StateReturn, warnings: &[String]) {
    if warnings.is_empty() {
        return;
    }
    let entry = r
        .extra
        .entry("warnings".to_string())
        .or_insert_with(|| Value::List(Vec::new()));
    if let Value::List(l) = entry {
        l.extend(warnings.iter().cloned().map(Value::Str));
    }
}

/// Held by the tests that install real packages: each compares the whole
/// package list before and after, so they must not overlap.
#[cfg(test)]
pub static DPKG_LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());

#[cfg(test)]
mod tests;
