//! The interface between the `pkg` states and a package system: the
//! [`PkgProvider`] trait, what its functions take and give (package lists,
//! install requests, errors), and Salt's helpers over package lists.

use super::version::Scheme;
use brine_core::{Map, Value};
use indexmap::IndexMap;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Installed versions by package name (names sorted, versions sorted).
pub type PkgList = BTreeMap<String, Vec<String>>;

/// What `list_pkgs` knows: installed packages, and (dpkg only) packages
/// removed but not purged, and packages marked for purge but installed.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PkgDb {
    pub installed: PkgList,
    pub removed: PkgList,
    pub purge_desired: PkgList,
}

impl PkgDb {
    /// Salt's `pkg.list_pkgs()`: purge-desired packages overlaid with the
    /// installed ones.
    pub fn current(&self) -> PkgList {
        let mut m = self.purge_desired.clone();
        m.extend(self.installed.clone());
        m
    }
}

/// `{name: "v1,v2"}`, the non-list form of `list_pkgs`.
pub fn stringify(list: &PkgList) -> BTreeMap<String, String> {
    list.iter().map(|(k, v)| (k.clone(), v.join(","))).collect()
}

/// Salt's `compare_dicts` over two stringified package lists, as a
/// `{name: {old, new}}` change map (names sorted).
pub fn compare_dicts(old: &BTreeMap<String, String>, new: &BTreeMap<String, String>) -> Map {
    let mut keys: Vec<&String> = old.keys().chain(new.keys()).collect();
    keys.sort();
    keys.dedup();
    let mut out = Map::default();
    for k in keys {
        let entry = match (old.get(k), new.get(k)) {
            (None, Some(n)) => Some(old_new("", n, false)),
            (Some(o), None) => Some(old_new(o, "", true)),
            (Some(o), Some(n)) if o != n => Some(old_new(o, n, false)),
            _ => None,
        };
        if let Some(e) = entry {
            out.insert(k.clone(), e);
        }
    }
    out
}

/// A reinstalled package changes nothing in the package list, so Salt's
/// providers add `{old, new}` for each reinstalled name themselves (unless
/// the comparison already has a new-only entry for it).
pub fn add_reinstall_changes<'a>(
    changes: &mut Map,
    old: &BTreeMap<String, String>,
    new: &BTreeMap<String, String>,
    reinstalled: impl IntoIterator<Item = &'a String>,
) {
    for name in reinstalled {
        if !changes.contains_key(name) || old.contains_key(name) {
            let get = |m: &BTreeMap<String, String>| m.get(name).cloned().unwrap_or_default();
            changes.insert(name.clone(), old_new(&get(old), &get(new), false));
        }
    }
}

/// `{"old": o, "new": n}` (`new` first when `new_first`, as Salt builds it
/// for removed keys).
fn old_new(o: &str, n: &str, new_first: bool) -> Value {
    let mut m = Map::default();
    if new_first {
        m.insert("new".into(), Value::Str(n.into()));
        m.insert("old".into(), Value::Str(o.into()));
    } else {
        m.insert("old".into(), Value::Str(o.into()));
        m.insert("new".into(), Value::Str(n.into()));
    }
    Value::Map(m)
}

/// A failure of an execution function (Salt's `CommandExecutionError`).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum PkgError {
    #[error("{0}")]
    Command(String),
    /// Salt's `SaltInvocationError`: the call cannot go on as asked.
    #[error("{0}")]
    Invocation(String),
    /// Salt's code itself raised here (a Python exception its states do
    /// not catch): its type and message. The state fails as raised.
    #[error("{0}")]
    Raised(String),
    /// An error with the changes already made and the tool's messages.
    #[error("{message}")]
    WithInfo {
        message: String,
        errors: Vec<String>,
        changes: Map,
    },
}

impl PkgError {
    /// Salt's `strerror_without_changes`: the message, then the error list
    /// as the nested outputter prints it.
    pub fn strerror_without_changes(&self) -> String {
        match self {
            PkgError::Command(m) | PkgError::Invocation(m) | PkgError::Raised(m) => m.clone(),
            PkgError::WithInfo {
                message, errors, ..
            } => {
                let mut prefix = message.clone();
                if !prefix.is_empty() {
                    if !prefix.ends_with(['.', '?', '!']) {
                        prefix.push('.');
                    }
                    prefix.push(' ');
                }
                let mut info = Map::default();
                info.insert(
                    "errors".into(),
                    Value::List(errors.iter().cloned().map(Value::Str).collect()),
                );
                let text = brine_core::output::nested::output(
                    &Value::Map(info),
                    &brine_core::output::OutputOptions::default(),
                );
                format!("{prefix}Additional info follows:\n\n{}", text.trim_end())
            }
        }
    }

    pub fn changes(&self) -> Option<&Map> {
        match self {
            PkgError::WithInfo { changes, .. } => Some(changes),
            PkgError::Command(_) | PkgError::Invocation(_) | PkgError::Raised(_) => None,
        }
    }
}

/// Why no package system could be picked for this minion.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ProviderError {
    #[error(
        "brine has no package provider for os_family '{os_family}' (supported: Debian, RedHat)"
    )]
    Unsupported { os_family: String },
    #[error("Neither dnf5, dnf nor yum was found on this minion")]
    NoDnf,
}

/// Name, version and architecture of a package file.
#[derive(Debug, Clone, PartialEq)]
pub struct BinPkgInfo {
    pub name: String,
    pub version: String,
    pub arch: String,
}

/// What `pkg.install` is asked to do.
#[derive(Debug, Clone, Default)]
pub struct InstallRequest {
    /// Repository targets: name and optional version (or `>=1.0` style).
    pub pkgs: Vec<(String, Option<String>)>,
    /// Local package files (already fetched for `salt://` sources).
    pub sources: Vec<PathBuf>,
    pub refresh: bool,
    pub fromrepo: Option<String>,
    pub skip_verify: bool,
    pub reinstall: bool,
    /// Provider options: `install_recommends`, `only_upgrade`,
    /// `force_conf_new`, `force_yes`, `ignore_epoch`.
    pub options: Map,
}

/// A package system, as the `pkg` states need it (Salt's `pkg.*` and
/// `lowpkg.*` execution functions).
pub trait PkgProvider {
    fn scheme(&self) -> Scheme;
    /// `Debian` or `RedHat`: a few state decisions depend on it.
    fn os_family(&self) -> &'static str;
    /// `pkg.normalize_name` (drops the native architecture suffix).
    fn normalize_name(&self, name: &str) -> String {
        name.to_string()
    }
    fn list_pkgs(&self) -> Result<PkgDb, PkgError>;
    /// `pkg.latest_version` of each name ("" when none is newer).
    fn latest_version(
        &self,
        names: &[String],
        refresh: bool,
        fromrepo: Option<&str>,
        show_installed: bool,
    ) -> Result<IndexMap<String, String>, PkgError>;
    /// [`PkgProvider::latest_version`], and the names the package system
    /// does not know at all (Salt's apt module answers those differently).
    fn latest_and_unknown(
        &self,
        names: &[String],
        refresh: bool,
        fromrepo: Option<&str>,
        show_installed: bool,
    ) -> Result<(IndexMap<String, String>, Vec<String>), PkgError> {
        self.latest_version(names, refresh, fromrepo, show_installed)
            .map(|l| (l, Vec::new()))
    }
    /// `pkg.list_repo_pkgs` for `name` or `name=version` targets.
    fn list_repo_pkgs(&self, targets: &[String]) -> IndexMap<String, Vec<String>>;
    /// `lowpkg.bin_pkg_info`.
    fn bin_pkg_info(&self, path: &Path) -> Result<BinPkgInfo, PkgError>;
    /// `pkg.install`: the `{name: {old, new}}` changes.
    fn install(&self, req: &InstallRequest) -> Result<Map, PkgError>;
    /// `pkg.remove` / `pkg.purge` of the parsed targets.
    fn remove(
        &self,
        targets: &IndexMap<String, Option<String>>,
        purge: bool,
    ) -> Result<Map, PkgError>;
    /// Whether the package system has `lowpkg.unpurge` (dpkg).
    fn can_unpurge(&self) -> bool {
        false
    }
    /// `lowpkg.unpurge`: the changes; `None` where there is no such thing.
    fn unpurge(&self, names: &[String]) -> Option<Map>;

    /// `pkg.refresh_db`'s answer: apt's is each index the refresh named
    /// (True fetched, None already current, False ignored or failed; with
    /// `failhard` failures are an error), dnf's one True (updates
    /// available), None (none) or False (error).
    fn refresh_db_report(&self, _failhard: bool) -> Result<Value, PkgError> {
        Err(unsupported(self.os_family(), "refresh_db"))
    }

    /// `pkg.list_upgrades` without the refresh: each upgradable package's
    /// new version.
    fn list_upgrades(
        &self,
        _dist_upgrade: bool,
        _fromrepo: Option<&str>,
    ) -> Result<BTreeMap<String, String>, PkgError> {
        Err(unsupported(self.os_family(), "list_upgrades"))
    }

    /// `pkg.upgrade` without the refresh: the `{name: {old, new}}` changes.
    /// `options`: `dist_upgrade`, `force_conf_new`, `force_yes`,
    /// `skip_verify`, `download_only`, `allow_downgrades`.
    fn upgrade(&self, _options: &Map) -> Result<Map, PkgError> {
        Err(unsupported(self.os_family(), "upgrade"))
    }

    /// What Salt checks before a hold or unhold touches anything, before
    /// the arguments even (yumpkg: that the versionlock plugin is
    /// installed).
    fn hold_ready(&self) -> Result<(), PkgError> {
        Ok(())
    }

    /// `pkg.hold` (`on`) or `pkg.unhold` of each target: what happened to
    /// it, by target. With `test` nothing changes: the answer says what
    /// would.
    fn hold(
        &self,
        _targets: &[String],
        on: bool,
        _test: bool,
    ) -> Result<IndexMap<String, HoldAnswer>, PkgError> {
        Err(unsupported(
            self.os_family(),
            if on { "hold" } else { "unhold" },
        ))
    }

    /// `pkg.info_installed`: what the package database says of each
    /// installed name (all packages when `names` is empty); `kwargs` are
    /// the call's other keywords, each provider taking Salt's own.
    fn info_installed(&self, _names: &[String], _kwargs: Map) -> Result<InfoInstalled, PkgError> {
        Err(unsupported(self.os_family(), "info_installed"))
    }
}

/// One target's part of a `pkg.hold` / `pkg.unhold` answer.
#[derive(Debug, Clone, PartialEq)]
pub struct HoldAnswer {
    /// `None` when only a test said what would change.
    pub result: Option<bool>,
    pub comment: String,
    /// Salt's `{old, new}` (in the order the provider gives them), or
    /// nothing.
    pub changes: Map,
}

impl HoldAnswer {
    /// An answer with no changes.
    pub fn new(result: Option<bool>, comment: String) -> HoldAnswer {
        HoldAnswer {
            result,
            comment,
            changes: Map::default(),
        }
    }

    /// Salt's per-target dict: `{name, changes, result, comment}`.
    pub fn into_value(self, name: &str) -> Value {
        let mut r = Map::default();
        r.insert("name".into(), Value::Str(name.into()));
        r.insert("changes".into(), Value::Map(self.changes));
        r.insert(
            "result".into(),
            self.result.map_or(Value::Null, Value::Bool),
        );
        r.insert("comment".into(), Value::Str(self.comment));
        Value::Map(r)
    }
}

/// `pkg.info_installed`'s answer, and the exit code Salt leaves for the
/// call (dpkg-query's when a name is unknown; rpm's is ignored).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct InfoInstalled {
    pub info: Map,
    pub retcode: i32,
}

/// A function this provider does not have in brine.
fn unsupported(family: &str, fun: &str) -> PkgError {
    PkgError::Command(format!(
        "pkg.{fun} is not implemented by brine for os_family {family}"
    ))
}
