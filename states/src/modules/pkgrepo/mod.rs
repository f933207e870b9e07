//! Salt's `pkgrepo` state module: package repositories configured
//! (`managed`) or removed (`absent`), with the return dicts of Salt
//! 3007.8's `salt/states/pkgrepo.py`.
//!
//! - [`apt`]: one-line apt sources, read and written as Salt does.
//! - [`debian`]: the states on apt.
//! - [`yum`]: `.repo` files for dnf/yum.
//! - [`root`]: where the files are (the host, or a scratch root in tests).

pub mod apt;
mod debian;
pub mod root;
mod yum;

pub use root::RepoRoot;

use crate::modules::file::Args;
use crate::{StateCall, StateFunction, StateModule, StateReturn};
use brine_compile::state::vocabulary::is_internal_keyword;
use brine_core::{sig, Map, Value};

/// The `pkgrepo` state module.
pub static MODULE: StateModule = StateModule {
    name: "pkgrepo",
    doc: "Package repositories: apt sources lines, dnf/yum .repo files.",
    functions: &[
        StateFunction::new(
            "absent",
            sig!(name, **kwargs),
            "The repository NAME (an apt sources line, or a dnf/yum repo id) is \
not configured.",
            |call| absent(call, &RepoRoot::default()),
        ),
        StateFunction::new(
            "managed",
            sig!(name, ppa = null, copr = null, aptkey = true, **kwargs),
            "The repository NAME is configured: an apt sources line (file, comps, \
architectures, key_url with signed-by, clean_file, refresh) or a dnf/yum repo \
(baseurl, mirrorlist, gpgcheck, gpgkey, enabled, humanname).",
            |call| managed(call, &RepoRoot::default()),
        ),
    ],
};

/// The state's keyword arguments as Salt hands them on: the chunk's keys
/// without the state system's own (and without `ppa`/`copr`/`aptkey`).
fn state_kwargs(call: &StateCall) -> Map {
    call.low
        .iter()
        .filter(|(k, _)| {
            !is_internal_keyword(k)
                && !k.starts_with("__")
                && !["state", "fun", "ppa", "copr", "aptkey", "name"].contains(&k.as_str())
        })
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect()
}

/// apt or dnf/yum: the minion's `os_family`, else what the root holds.
fn is_apt(call: &StateCall, root: &RepoRoot) -> bool {
    match call.ctx.grains.get("os_family").and_then(Value::as_str) {
        Some("Debian") => true,
        Some(_) => false,
        None => root.real("/etc/apt").is_dir(),
    }
}

pub fn managed(call: &StateCall, root: &RepoRoot) -> StateReturn {
    let args = Args { low: call.low };
    let name = args.name();
    let mut ret = StateReturn::new(&name);
    ret.result = None;
    let mut kwargs = state_kwargs(call);
    let apt_key_tool = brine_host::path::which("apt-key").is_some();
    let aptkey = apt_key_tool && args.truthy("aptkey", true);
    let has = |k: &str| kwargs.contains_key(k);
    // Salt notes these clashes and goes on (a later answer overrides them).
    if has("key_url") && (has("keyid") || has("keyserver")) {
        ret.result = Some(false);
        ret.comment =
            "You may not use both \"keyid\"/\"keyserver\" and \"key_url\" argument.".into();
    }
    if has("key_text") && (has("keyid") || has("keyserver")) {
        ret.result = Some(false);
        ret.comment =
            "You may not use both \"keyid\"/\"keyserver\" and \"key_text\" argument.".into();
    }
    if has("key_text") && has("key_url") {
        ret.result = Some(false);
        ret.comment = "You may not use both \"key_url\" and \"key_text\" argument.".into();
    }
    if has("repo") {
        ret.result = Some(false);
        ret.comment = "'repo' is not a supported argument for this state. The 'name' argument is probably what was intended.".into();
        return ret;
    }
    let enabled = kwargs.shift_remove("enabled");
    let disabled = kwargs.shift_remove("disabled");
    if enabled.is_some() && disabled.is_some() {
        ret.result = Some(false);
        ret.comment = "Only one of enabled/disabled is allowed".into();
        return ret;
    }
    let allow_insecure = kwargs
        .shift_remove("allow_insecure_key")
        .is_none_or(|v| v.is_truthy());
    let key_insecure = kwargs
        .get("key_url")
        .is_some_and(|u| u.to_python_str().trim().starts_with("http:"));
    if key_insecure && !allow_insecure {
        ret.result = Some(false);
        ret.comment =
            "Cannot have 'key_url' using http with 'allow_insecure_key' set to True".into();
        return ret;
    }
    if is_apt(call, root) {
        // On Debian Salt drops enabled/disabled here (only Ubuntu and Mint
        // hand them on to mod_repo).
        let os = call.ctx.grains.get("os").and_then(Value::as_str);
        if matches!(os, Some("Ubuntu" | "Mint")) {
            let off = match (&enabled, &disabled) {
                (Some(e), _) => !e.is_truthy(),
                (None, Some(d)) => d.is_truthy(),
                _ => false,
            };
            kwargs.insert("disabled".into(), Value::Bool(off));
        }
        return debian::managed(call, root, ret, &name, kwargs, aptkey);
    }
    let on = match (&enabled, &disabled) {
        (_, Some(d)) => !d.is_truthy(),
        (Some(e), None) => e.is_truthy(),
        (None, None) => true,
    };
    yum::managed(call, root, ret, &name, kwargs, on)
}

pub fn absent(call: &StateCall, root: &RepoRoot) -> StateReturn {
    let args = Args { low: call.low };
    let name = args.name();
    let mut ret = StateReturn::new(&name);
    ret.result = None;
    let kwargs = state_kwargs(call);
    if kwargs.get("keyid").is_some_and(|v| !v.is_null())
        || kwargs.get("keyid_ppa").is_some_and(|v| !v.is_null())
    {
        ret.result = Some(false);
        ret.comment = "Removing repo keys (keyid, keyid_ppa) is not supported by brine".into();
        return ret;
    }
    if is_apt(call, root) {
        return debian::absent(call, root, ret, &name);
    }
    yum::absent(call, root, ret, &name)
}

#[cfg(test)]
mod tests;
