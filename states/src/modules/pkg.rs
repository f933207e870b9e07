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
mod refresh;
mod states;
mod support;
mod targets;
pub mod version;

use brine_core::signature::Signature;
pub use provider::{
    add_reinstall_changes, compare_dicts, stringify, BinPkgInfo, HoldAnswer, InfoInstalled,
    InstallRequest, PkgDb, PkgError, PkgList, PkgProvider, ProviderError,
};
use refresh::rtag;
pub use refresh::{clear_rtag, mod_init, write_rtag};
pub use states::{installed, latest, uninstall};
pub use targets::repack_pkgs;

use super::user::support::{failed, Args};
use crate::{StateCall, StateContext, StateFunction, StateModule, StateReturn};
use brine_core::sig;
use brine_core::{Map, Value};

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

/// The `pkg` state module.
/// The signature several functions here share (Salt's, recorded).
const PURGED_SIG: Signature = sig!(
    name,
    version = null,
    pkgs = null,
    normalize = true,
    ignore_epoch = null,
    **kwargs
);

pub static MODULE: StateModule = StateModule {
    name: "pkg",
    doc: "Manage packages through the system's package manager (apt or dnf): \
installed, at their latest version, removed or purged.",
    functions: &[
        StateFunction::new(
            "installed",
            sig!(
                name,
                version = null,
                refresh = null,
                fromrepo = null,
                skip_verify = false,
                skip_suggestions = false,
                pkgs = null,
                sources = null,
                allow_updates = false,
                pkg_verify = false,
                normalize = true,
                ignore_epoch = null,
                reinstall = false,
                update_holds = false,
                **kwargs
            ),
            "The package NAME (or PKGS, with versions) is installed; \
refresh updates the package lists first.",
            |call| with_provider(call, PkgFn::Installed),
        ),
        StateFunction::new(
            "latest",
            sig!(
                name,
                refresh = null,
                fromrepo = null,
                skip_verify = false,
                pkgs = null,
                watch_flags = true,
                **kwargs
            ),
            "The package NAME (or PKGS) is installed at the newest version \
available.",
            |call| with_provider(call, PkgFn::Latest),
        ),
        StateFunction::new(
            "mod_watch",
            sig!(name, **kwargs),
            "What a watch requisite on a pkg state runs: the state's own \
function again.",
            mod_watch,
        ),
        StateFunction::new(
            "purged",
            PURGED_SIG,
            "The package NAME (or PKGS) is removed with its configuration \
files.",
            |call| with_provider(call, PkgFn::Purged),
        ),
        StateFunction::new(
            "removed",
            PURGED_SIG,
            "The package NAME (or PKGS) is not installed.",
            |call| with_provider(call, PkgFn::Removed),
        ),
    ],
};

/// The pkg state functions that act on packages, which `mod_watch` runs
/// by name (`sfun`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PkgFn {
    Installed,
    Latest,
    Removed,
    Purged,
}

impl PkgFn {
    /// The function `sfun` names, if it is one a watch can run.
    pub fn named(sfun: &str) -> Option<PkgFn> {
        Some(match sfun {
            "installed" => PkgFn::Installed,
            "latest" => PkgFn::Latest,
            "removed" => PkgFn::Removed,
            "purged" => PkgFn::Purged,
            _ => return None,
        })
    }
}

/// Run `f` with this minion's package provider.
fn with_provider(call: &StateCall, f: PkgFn) -> StateReturn {
    match provider_for(call.ctx) {
        Ok(p) => dispatch(p.as_ref(), call, f),
        Err(e) => failed(call.name(), e.to_string()),
    }
}

/// `mod_watch`: the watching state's function (`sfun`) run again.
fn mod_watch(call: &StateCall) -> StateReturn {
    let sfun = call
        .value("sfun")
        .map(Value::to_python_str)
        .unwrap_or_else(|| call.fun().to_string());
    match PkgFn::named(&sfun) {
        Some(f) => with_provider(call, f),
        None => failed(
            call.name(),
            format!("pkg.{sfun} does not work with the watch requisite"),
        ),
    }
}

/// Run the state function `f` with `provider`.
pub fn dispatch(p: &dyn PkgProvider, call: &StateCall, f: PkgFn) -> StateReturn {
    let name = call.name();
    let res = match f {
        PkgFn::Installed => {
            mod_init(call.ctx, "installed");
            installed(p, call)
        }
        PkgFn::Latest => {
            mod_init(call.ctx, "latest");
            latest(p, call)
        }
        PkgFn::Removed => uninstall(p, call, false),
        PkgFn::Purged => uninstall(p, call, true),
    };
    res.unwrap_or_else(|e| e.into_return(name))
}

/// Held by the tests that install real packages: each compares the whole
/// package list before and after, so they must not overlap.
#[cfg(test)]
pub static DPKG_LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());

#[cfg(test)]
mod tests;
