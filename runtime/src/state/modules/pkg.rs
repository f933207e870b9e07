//! The `pkg` state module: `installed`, `latest`, `removed`, `purged` and
//! `mod_watch`, as Salt's `salt/states/pkg.py` runs them over its package
//! execution modules. The package system is a [`PkgProvider`] picked from
//! the `os_family` grain: Debian → dpkg/apt-get ([`apt::Apt`]), RedHat →
//! rpm/dnf, falling back to yum ([`dnf::Dnf`]).

pub mod apt;
pub mod dnf;
pub mod version;

use super::user::support::{failed, ArgError, Args};
use crate::state::{StateCall, StateContext, StateModule, StateReturn};
use brine_core::{Map, Value};
use indexmap::IndexMap;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use version::Scheme;

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
    let mut out = Map::new();
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
    let mut m = Map::new();
    if new_first {
        m.insert("new".into(), Value::Str(n.into()));
        m.insert("old".into(), Value::Str(o.into()));
    } else {
        m.insert("old".into(), Value::Str(o.into()));
        m.insert("new".into(), Value::Str(n.into()));
    }
    Value::Map(m)
}

fn new_old(n: &str, o: &str) -> Value {
    let mut m = Map::new();
    m.insert("new".into(), Value::Str(n.into()));
    m.insert("old".into(), Value::Str(o.into()));
    Value::Map(m)
}

/// A failure of an execution function (Salt's `CommandExecutionError`).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum PkgError {
    #[error("{0}")]
    Command(String),
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
            PkgError::Command(m) => m.clone(),
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
                let mut info = Map::new();
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
            PkgError::Command(_) => None,
        }
    }
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
}

pub struct PkgModule;

/// The `pkg` state module.
pub static PKG: PkgModule = PkgModule;

/// The provider for this minion, from its grains (or, without grains, from
/// the tools installed).
pub fn provider_for(ctx: &StateContext) -> Result<Box<dyn PkgProvider>, String> {
    let grains = &ctx.grains;
    let rtag = rtag(ctx);
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
    match family {
        "Debian" => Ok(Box::new(apt::Apt::new(osarch, cpuarch, rtag))),
        "RedHat" => {
            dnf::Dnf::detect(osarch, rtag.clone()).map(|d| Box::new(d) as Box<dyn PkgProvider>)
        }
        "" if which("dpkg").is_some() && which("apt-get").is_some() => {
            Ok(Box::new(apt::Apt::new(osarch, cpuarch, rtag)))
        }
        "" if which("rpm").is_some() => {
            dnf::Dnf::detect(osarch, rtag.clone()).map(|d| Box::new(d) as Box<dyn PkgProvider>)
        }
        other => Err(format!(
            "brine has no package provider for os_family '{other}' (supported: Debian, RedHat)"
        )),
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
            Err(e) => failed(call.name(), e),
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
            Err(e) => failed(call.name(), e),
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

fn rtag(ctx: &StateContext) -> Option<PathBuf> {
    ctx.opts
        .get("cachedir")
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
    if let Some(p) = rtag(ctx) {
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
    if let Some(p) = rtag(ctx) {
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
    !off && rtag(ctx).is_some_and(|p| p.is_file())
}

// ---------------------------------------------------------------------------
// Arguments.

/// Salt's `_repack_pkgs`: a list of names and `{name: version}` mappings
/// as one `{name: version}` mapping.
pub fn repack_pkgs(
    p: &dyn PkgProvider,
    pkgs: &[Value],
    normalize: bool,
) -> Result<IndexMap<String, Option<String>>, String> {
    let norm = |n: String| if normalize { p.normalize_name(&n) } else { n };
    let mut out = IndexMap::new();
    for item in pkgs {
        match item {
            Value::Str(_) | Value::Int(_) | Value::Float(_) | Value::Bool(_) => {
                out.insert(norm(item.to_python_str()), None);
            }
            Value::Map(m) if m.len() == 1 => {
                if let Some((k, v)) = m.iter().next() {
                    let ver = match v {
                        Value::Null => None,
                        other => Some(other.to_python_str()),
                    };
                    out.insert(norm(k.clone()), ver);
                }
            }
            _ => return Ok(IndexMap::new()),
        }
    }
    if out.len() != pkgs.len() {
        return Err(format!(
            "You are passing a list of packages that contains duplicated packages names: {}. This cannot be processed. In case you are targeting different versions of the same package, please target them individually",
            Value::List(pkgs.to_vec()).to_python_repr()
        ));
    }
    Ok(out)
}

/// Salt's `pack_sources`: `[{name: source}, ...]` as `{name: source}`;
/// empty when malformed.
pub fn pack_sources(
    p: &dyn PkgProvider,
    sources: &[Value],
    normalize: bool,
) -> IndexMap<String, String> {
    let mut out = IndexMap::new();
    for s in sources {
        match s {
            Value::Map(m) if m.len() == 1 => {
                if let Some((k, v)) = m.iter().next() {
                    let k = if normalize {
                        p.normalize_name(k)
                    } else {
                        k.clone()
                    };
                    out.insert(k, v.to_python_str());
                }
            }
            _ => return IndexMap::new(),
        }
    }
    out
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

/// Where a source is fetched from: `salt://` through the file client,
/// other URL schemes are not supported, local paths must be absolute.
fn resolve_source(call: &StateCall, pkg: &str, src: &str) -> Result<PathBuf, String> {
    if src.starts_with("salt://") {
        return call
            .ctx
            .fileclient
            .cache_file(src, &call.ctx.saltenv)
            .map_err(|e| e.to_string());
    }
    if let Some((scheme, _)) = src.split_once("://") {
        return Err(format!(
            "brine cannot fetch package sources over '{scheme}://' (only salt:// and local paths): {src}"
        ));
    }
    let path = PathBuf::from(src);
    if !path.is_absolute() {
        return Err(format!(
            "Path {src} for package {pkg} is either not absolute or an invalid protocol"
        ));
    }
    Ok(path)
}

// ---------------------------------------------------------------------------
// pkg.installed

/// What `_find_install_targets` settles on when there is work to do.
struct Targets {
    desired: IndexMap<String, Option<String>>,
    targets: IndexMap<String, Option<String>>,
    to_unpurge: Vec<String>,
    to_reinstall: IndexMap<String, Option<String>>,
    warnings: Vec<String>,
    was_refreshed: bool,
}

// The error side is the state's final answer, made once per call.
#[allow(clippy::too_many_arguments, clippy::result_large_err)]
fn find_install_targets(
    p: &dyn PkgProvider,
    call: &StateCall,
    pkgs: Option<&[Value]>,
    sources: Option<&[Value]>,
    normalize: bool,
    ignore_epoch: Option<bool>,
    reinstall: bool,
    refresh: bool,
    allow_updates: bool,
    fromrepo: Option<&str>,
) -> Result<Targets, StateReturn> {
    let name = call.name();
    let pkgs = pkgs.filter(|p| !p.is_empty());
    let sources = sources.filter(|s| !s.is_empty());
    if pkgs.is_some() && sources.is_some() {
        return Err(ret(
            name,
            Some(false),
            "Only one of \"pkgs\" and \"sources\" is permitted.",
            Map::new(),
        ));
    }
    let db = p
        .list_pkgs()
        .map_err(|e| ret(name, Some(false), e.strerror_without_changes(), Map::new()))?;
    let cur = db.current();
    let mut desired: IndexMap<String, Option<String>> = if let Some(pk) = pkgs {
        repack_pkgs(p, pk, normalize).map_err(|e| failed(name, e))?
    } else if let Some(src) = sources {
        pack_sources(p, src, normalize)
            .into_iter()
            .map(|(k, v)| (k, Some(v)))
            .collect()
    } else {
        let n = if normalize {
            p.normalize_name(name)
        } else {
            name.to_string()
        };
        let mut m = IndexMap::new();
        m.insert(n, None);
        m
    };
    if desired.is_empty() {
        return Err(ret(
            name,
            Some(false),
            format!(
                "Invalidly formatted '{}' parameter. See minion log.",
                if pkgs.is_some() { "pkgs" } else { "sources" }
            ),
            Map::new(),
        ));
    }
    let to_unpurge: Vec<String> = desired
        .keys()
        .filter(|k| db.purge_desired.contains_key(*k))
        .cloned()
        .collect();

    let mut was_refreshed = false;
    let mut refresh = refresh;
    if sources.is_none() {
        let wants_latest: Vec<String> = desired
            .iter()
            .filter(|(_, v)| v.as_deref() == Some("latest"))
            .map(|(k, _)| k.clone())
            .collect();
        if !wants_latest.is_empty() {
            let resolved = p
                .latest_version(&wants_latest, refresh, fromrepo, false)
                .map_err(|e| failed(name, e.strerror_without_changes()))?;
            if refresh {
                was_refreshed = true;
                refresh = false;
            }
            let _ = refresh;
            for k in wants_latest {
                let v = resolved.get(&k).cloned().unwrap_or_default();
                let v = if v.is_empty() {
                    cur.get(&k).and_then(|l| l.last().cloned())
                } else {
                    Some(v)
                };
                desired.insert(k, v);
            }
        }
    }

    let mut targets = IndexMap::new();
    let mut to_reinstall = IndexMap::new();
    let mut problems: Vec<String> = Vec::new();
    let mut warnings = Vec::new();
    let mut version_spec = false;
    for (pkg, verstr) in &desired {
        let cver = cur.get(pkg).cloned().unwrap_or_default();
        if cver.is_empty() {
            targets.insert(pkg.clone(), verstr.clone());
            continue;
        }
        let check: String;
        if sources.is_some() {
            if reinstall {
                to_reinstall.insert(pkg.clone(), verstr.clone());
                continue;
            }
            let src = verstr.clone().unwrap_or_default();
            let path = match resolve_source(call, pkg, &src) {
                Ok(path) => path,
                Err(e) => {
                    problems.push(format!("Unable to cache {src}: {e}"));
                    continue;
                }
            };
            if !path.exists() {
                problems.push(format!("{src} does not exist on minion"));
                continue;
            }
            match p.bin_pkg_info(&path) {
                Ok(info) => check = info.version,
                Err(_) => {
                    warnings.push(format!("Failed to parse metadata for {src}"));
                    continue;
                }
            }
        } else {
            if reinstall {
                to_reinstall.insert(pkg.clone(), verstr.clone());
                continue;
            }
            match verstr.as_deref().filter(|v| !v.is_empty()) {
                None => continue,
                Some(v) => check = v.to_string(),
            }
        }
        let fulfilled = version::fulfills_version_string(
            p.scheme(),
            &cver,
            &check,
            ignore_epoch,
            sources.is_none() && allow_updates,
        );
        version_spec = true;
        if !fulfilled {
            if reinstall {
                to_reinstall.insert(pkg.clone(), verstr.clone());
            } else {
                targets.insert(pkg.clone(), verstr.clone());
            }
        }
    }
    if !problems.is_empty() {
        return Err(ret(name, Some(false), problems.join(" "), Map::new()));
    }
    if targets.is_empty() && to_unpurge.is_empty() && to_reinstall.is_empty() {
        let mut r = ret(
            name,
            Some(true),
            format!(
                "All specified packages are already installed{}",
                if version_spec && sources.is_none() {
                    " and are at the desired version"
                } else {
                    ""
                }
            ),
            Map::new(),
        );
        add_warnings(&mut r, &warnings);
        return Err(r);
    }
    Ok(Targets {
        desired,
        targets,
        to_unpurge,
        to_reinstall,
        warnings,
        was_refreshed,
    })
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

/// Salt's `_get_installable_versions`: the versions test mode shows.
fn installable_versions(
    p: &dyn PkgProvider,
    targets: &IndexMap<String, Option<String>>,
    current: &IndexMap<String, String>,
    fromrepo: Option<&str>,
) -> Map {
    let mut found: IndexMap<String, String> = IndexMap::new();
    let latest: Vec<String> = targets
        .iter()
        .filter(|(_, v)| v.as_deref().is_none_or(str::is_empty))
        .map(|(k, _)| k.clone())
        .collect();
    if !latest.is_empty() {
        // Salt asks with the default refresh=True here, even in test mode.
        if let Ok(v) = p.latest_version(&latest, true, fromrepo, false) {
            found.extend(v);
        }
    }
    let explicit: Vec<String> = targets
        .iter()
        .filter(|(k, _)| !latest.contains(k))
        .map(|(k, v)| desired_pkg(k, v.as_deref()))
        .collect();
    if !explicit.is_empty() {
        for (tgt, vers) in p.list_repo_pkgs(&explicit) {
            if let Some(first) = vers.first() {
                found.insert(tgt, first.clone());
            }
        }
    }
    // Salt's dict juggling: with any latest-version target the changes
    // follow the targets' order; otherwise packages found in the
    // repository come first.
    let mut order: Vec<&String> = Vec::new();
    if latest.is_empty() {
        order.extend(targets.keys().filter(|k| found.contains_key(*k)));
    }
    let rest: Vec<&String> = targets.keys().filter(|k| !order.contains(k)).collect();
    order.extend(rest);
    let mut out = Map::new();
    for k in order {
        let new = found
            .get(k)
            .filter(|v| !v.is_empty())
            .cloned()
            .unwrap_or_else(|| "installed".into());
        out.insert(
            k.clone(),
            new_old(&new, current.get(k).map(String::as_str).unwrap_or("")),
        );
    }
    out
}

/// Salt's `_verify_install`: which desired packages are now installed at
/// an acceptable version.
fn verify_install(
    p: &dyn PkgProvider,
    desired: &IndexMap<String, Option<String>>,
    new: &PkgList,
    ignore_epoch: Option<bool>,
) -> (Vec<String>, Vec<String>) {
    let (mut ok, mut bad) = (Vec::new(), Vec::new());
    for (name, ver) in desired {
        let key = if p.os_family() == "Debian" {
            name.split('=').next().unwrap_or(name)
        } else {
            name.as_str()
        };
        let Some(cver) = new.get(key).filter(|c| !c.is_empty()) else {
            bad.push(name.clone());
            continue;
        };
        let good = match ver.as_deref() {
            None | Some("") | Some("latest") => true,
            Some(v) if v.ends_with('*') && cver[0].starts_with(&v[..v.len() - 1]) => true,
            Some(v) => version::fulfills_version_string(p.scheme(), cver, v, ignore_epoch, false),
        };
        if good {
            ok.push(name.clone());
        } else {
            bad.push(name.clone());
        }
    }
    (ok, bad)
}

/// `pkg.installed`.
pub fn installed(p: &dyn PkgProvider, call: &StateCall) -> Result<StateReturn, ArgError> {
    let name = call.name();
    let pkgs_arg = list_arg(call, "pkgs")?;
    let sources_arg = list_arg(call, "sources")?;
    if matches!(&pkgs_arg, Some(l) if l.is_empty()) {
        return Ok(ret(
            name,
            Some(true),
            "No packages to install provided",
            Map::new(),
        ));
    }
    let version = call.opt_str("version")?;
    let has_pkgs = pkgs_arg.as_ref().is_some_and(|l| !l.is_empty());
    let has_sources = sources_arg.as_ref().is_some_and(|l| !l.is_empty());
    let mut pkgs = pkgs_arg.clone();
    if !name.is_empty() && !has_pkgs && !has_sources {
        // A single name becomes a one-element pkgs list, as in Salt.
        let item = match version.as_ref().filter(|v| !v.is_empty()) {
            Some(_) => {
                let mut m = Map::new();
                m.insert(
                    name.to_string(),
                    call.value("version").cloned().unwrap_or_default(),
                );
                Value::Map(m)
            }
            None => Value::Str(name.to_string()),
        };
        pkgs = Some(vec![item]);
    }
    let mut refresh = check_refresh(call.ctx, call.value("refresh"));
    if call.truthy("pkg_verify", false) {
        return Ok(ret(
            name,
            Some(false),
            "pkg.verify not implemented",
            Map::new(),
        ));
    }
    let fromrepo = call.opt_str("fromrepo")?;
    let normalize = call.truthy("normalize", true);
    let ignore_epoch = call.opt_bool("ignore_epoch");
    let reinstall = call.truthy("reinstall", false);
    let allow_updates = call.truthy("allow_updates", false);

    let found = match find_install_targets(
        p,
        call,
        pkgs.as_deref(),
        sources_arg.as_deref(),
        normalize,
        ignore_epoch,
        reinstall,
        refresh,
        allow_updates,
        fromrepo.as_deref(),
    ) {
        Ok(t) => t,
        Err(mut r) => {
            hold_warning(call, &mut r);
            return Ok(r);
        }
    };
    if found.was_refreshed {
        refresh = false;
    }
    let Targets {
        desired,
        targets,
        to_unpurge,
        to_reinstall,
        warnings,
        ..
    } = found;
    let sources: Option<IndexMap<String, String>> = sources_arg
        .as_deref()
        .filter(|s| !s.is_empty())
        .map(|s| pack_sources(p, s, normalize));

    if !to_unpurge.is_empty() && !p.can_unpurge() {
        let mut r = ret(
            name,
            Some(false),
            "lowpkg.unpurge not implemented",
            Map::new(),
        );
        add_warnings(&mut r, &warnings);
        return Ok(r);
    }

    let mut comment: Vec<String> = Vec::new();
    let mut changes = Map::new();
    if call.test {
        if !targets.is_empty() {
            if sources.is_some() {
                for k in targets.keys() {
                    changes.insert(k.clone(), new_old("installed", ""));
                }
            } else {
                changes.extend(installable_versions(
                    p,
                    &targets,
                    &IndexMap::new(),
                    fromrepo.as_deref(),
                ));
            }
            comment.push(format!(
                "The following packages would be installed/updated: {}",
                targets.keys().cloned().collect::<Vec<_>>().join(", ")
            ));
        }
        if !to_unpurge.is_empty() {
            comment.push(format!(
                "The following packages would have their selection status changed from 'purge' to 'install': {}",
                to_unpurge.join(", ")
            ));
            for k in &to_unpurge {
                changes.insert(k.clone(), new_old("installed", ""));
            }
        }
        if !to_reinstall.is_empty() {
            let names: Vec<String> = to_reinstall
                .iter()
                .map(|(k, v)| {
                    if sources.is_some() {
                        k.clone()
                    } else {
                        desired_pkg(k, v.as_deref())
                    }
                })
                .collect();
            for n in &names {
                changes.insert(n.clone(), new_old("installed", ""));
            }
            comment.push(format!(
                "The following packages would be reinstalled: {}",
                names.join(", ")
            ));
        }
        let mut r = ret(name, None, comment.join("\n"), changes);
        add_warnings(&mut r, &warnings);
        hold_warning(call, &mut r);
        return Ok(r);
    }

    let mut pkg_ret = Map::new();
    if !targets.is_empty() || !to_reinstall.is_empty() {
        let mut req = InstallRequest {
            refresh,
            fromrepo: fromrepo.clone(),
            skip_verify: call.truthy("skip_verify", false),
            reinstall: !to_reinstall.is_empty(),
            ..Default::default()
        };
        for key in [
            "install_recommends",
            "only_upgrade",
            "force_conf_new",
            "force_yes",
        ] {
            if let Some(v) = call.value(key) {
                req.options.insert(key.into(), v.clone());
            }
        }
        if let Some(ie) = ignore_epoch {
            req.options.insert("ignore_epoch".into(), Value::Bool(ie));
        }
        if let Some(srcs) = &sources {
            for (pkg, src) in srcs {
                if targets.contains_key(pkg) || to_reinstall.contains_key(pkg) {
                    match resolve_source(call, pkg, src) {
                        Ok(path) => req.sources.push(path),
                        Err(e) => {
                            let mut r = ret(
                                name,
                                Some(false),
                                format!(
                                    "An error was encountered while installing package(s): {e}"
                                ),
                                Map::new(),
                            );
                            add_warnings(&mut r, &warnings);
                            return Ok(r);
                        }
                    }
                }
            }
        } else {
            for (k, v) in targets.iter().chain(to_reinstall.iter()) {
                req.pkgs.push((k.clone(), v.clone()));
            }
        }
        match p.install(&req) {
            Ok(m) => pkg_ret = m,
            Err(e) => {
                let mut r = match e.changes() {
                    Some(ch) => ret(name, Some(false), e.strerror_without_changes(), ch.clone()),
                    None => ret(
                        name,
                        Some(false),
                        format!("An error was encountered while installing package(s): {e}"),
                        Map::new(),
                    ),
                };
                add_warnings(&mut r, &warnings);
                return Ok(r);
            }
        }
        changes.extend(pkg_ret.clone());
    }
    if !to_unpurge.is_empty() {
        changes.insert(
            "purge_desired".into(),
            Value::Map(p.unpurge(&to_unpurge).unwrap_or_default()),
        );
    }

    let (modified, not_modified, failed_list): (Vec<String>, Vec<String>, Vec<String>) =
        if sources.is_some() {
            let modified: Vec<String> = changes
                .keys()
                .filter(|k| targets.contains_key(*k))
                .cloned()
                .collect();
            let not_modified = desired
                .keys()
                .filter(|k| !targets.contains_key(*k) && !to_reinstall.contains_key(*k))
                .cloned()
                .collect();
            let failed_list = targets
                .keys()
                .filter(|k| !modified.contains(k))
                .cloned()
                .collect();
            (modified, not_modified, failed_list)
        } else {
            let new = match p.list_pkgs() {
                Ok(db) => db.current(),
                Err(e) => return Ok(failed(name, e.strerror_without_changes())),
            };
            let (ok, bad) = verify_install(p, &desired, &new, ignore_epoch);
            let modified = ok
                .iter()
                .filter(|k| targets.contains_key(*k))
                .cloned()
                .collect();
            let not_modified = ok
                .iter()
                .filter(|k| !targets.contains_key(*k) && !to_reinstall.contains_key(*k))
                .cloned()
                .collect();
            let failed_list = bad
                .into_iter()
                .filter(|k| targets.contains_key(k))
                .collect();
            (modified, not_modified, failed_list)
        };
    let show = |list: &[String]| -> String {
        if sources.is_some() {
            list.join(", ")
        } else {
            list.iter()
                .map(|k| desired_pkg(k, desired.get(k).and_then(|v| v.as_deref())))
                .collect::<Vec<_>>()
                .join(", ")
        }
    };
    if !modified.is_empty() {
        let summary = show(&modified);
        if summary.chars().count() < 20 {
            comment.push(format!(
                "The following packages were installed/updated: {summary}"
            ));
        } else {
            let n = modified.len();
            comment.push(format!(
                "{n} targeted package{} {} installed/updated.",
                if n > 1 { "s" } else { "" },
                if n > 1 { "were" } else { "was" }
            ));
        }
    }
    if !not_modified.is_empty() {
        let n = not_modified.len();
        if n <= 20 {
            comment.push(format!(
                "The following packages were already installed: {}",
                show(&not_modified)
            ));
        } else {
            comment.push(format!(
                "{n} targeted package{} {} already installed",
                if n > 1 { "s" } else { "" },
                if n > 1 { "were" } else { "was" }
            ));
        }
    }
    let mut result = true;
    if !failed_list.is_empty() {
        comment.insert(
            0,
            format!(
                "The following packages failed to install/update: {}",
                show(&failed_list)
            ),
        );
        result = false;
    }
    if reinstall {
        for pkg in to_reinstall.keys() {
            let pkgstr = if sources.is_some() {
                pkg.clone()
            } else {
                desired_pkg(pkg, desired.get(pkg).and_then(|v| v.as_deref()))
            };
            if pkg_ret.contains_key(pkg) {
                comment.push(format!("Package {pkgstr} was reinstalled."));
            } else {
                comment.push(format!(
                    "Reinstall was not successful for package {pkgstr}."
                ));
                result = false;
            }
        }
    }
    let mut r = ret(name, Some(result), comment.join("\n"), changes);
    add_warnings(&mut r, &warnings);
    hold_warning(call, &mut r);
    Ok(r)
}

/// brine does not manage package holds yet: say so instead of ignoring it.
fn hold_warning(call: &StateCall, r: &mut StateReturn) {
    if call.value("hold").is_some() {
        add_warnings(r, &["brine does not support the 'hold' argument of pkg.installed; the hold status was not changed".to_string()]);
    }
}

// ---------------------------------------------------------------------------
// pkg.latest

/// `pkg.latest`.
pub fn latest(p: &dyn PkgProvider, call: &StateCall) -> Result<StateReturn, ArgError> {
    let name = call.name();
    let refresh = check_refresh(call.ctx, call.value("refresh"));
    let fromrepo = call.opt_str("fromrepo")?;
    let pkgs = list_arg(call, "pkgs")?;
    if call.value("sources").is_some_and(Value::is_truthy) {
        return Ok(ret(
            name,
            Some(false),
            "The \"sources\" parameter is not supported.",
            Map::new(),
        ));
    }
    let desired: Vec<String> = match pkgs.as_deref() {
        Some(list) if !list.is_empty() => match repack_pkgs(p, list, true) {
            Ok(m) if !m.is_empty() => m.into_keys().collect(),
            Ok(_) => {
                return Ok(ret(
                    name,
                    Some(false),
                    "Invalidly formatted \"pkgs\" parameter. See minion log.",
                    Map::new(),
                ))
            }
            Err(e) => return Ok(failed(name, e)),
        },
        Some(_) => {
            return Ok(ret(
                name,
                Some(true),
                "No packages to install provided",
                Map::new(),
            ))
        }
        None => vec![name.to_string()],
    };
    let avail = match p.latest_version(&desired, refresh, fromrepo.as_deref(), false) {
        Ok(a) => a,
        Err(e) => {
            return Ok(ret(
                name,
                Some(false),
                format!("An error was encountered while checking the newest available version of package(s): {e}"),
                Map::new(),
            ))
        }
    };
    let cur_db = match p.list_pkgs() {
        Ok(db) => stringify(&db.current()),
        Err(e) => return Ok(failed(name, e.strerror_without_changes())),
    };
    let cur: IndexMap<String, String> = desired
        .iter()
        .map(|d| (d.clone(), cur_db.get(d).cloned().unwrap_or_default()))
        .collect();
    let mut targets: IndexMap<String, Option<String>> = IndexMap::new();
    let mut problems = Vec::new();
    for pkg in &desired {
        match avail.get(pkg).filter(|v| !v.is_empty()) {
            Some(v) => {
                targets.insert(pkg.clone(), Some(v.clone()));
            }
            None => {
                if cur.get(pkg).is_none_or(String::is_empty) {
                    problems.push(format!("No information found for '{pkg}'."));
                }
            }
        }
    }
    if !problems.is_empty() {
        return Ok(ret(name, Some(false), problems.join(" "), Map::new()));
    }
    if targets.is_empty() {
        let comment = if desired.len() > 10 {
            format!("All {} packages are up-to-date.", desired.len())
        } else if desired.len() > 1 {
            let mut d = desired.clone();
            d.sort();
            format!("All packages are up-to-date ({}).", d.join(", "))
        } else {
            format!(
                "Package {} is already up-to-date",
                desired.first().map(String::as_str).unwrap_or("")
            )
        };
        return Ok(ret(name, Some(true), comment, Map::new()));
    }
    let mut up_to_date: Vec<String> = match pkgs.as_deref() {
        Some(list) if !list.is_empty() => list
            .iter()
            .map(Value::to_python_str)
            .filter(|x| !targets.contains_key(x))
            .collect(),
        _ => Vec::new(),
    };
    up_to_date.sort();
    let mut sorted_targets: Vec<String> = targets.keys().cloned().collect();
    sorted_targets.sort();
    if call.test {
        let mut comments = vec![format!(
            "The following packages would be installed/upgraded: {}",
            sorted_targets.join(", ")
        )];
        if !up_to_date.is_empty() {
            if up_to_date.len() <= 10 {
                comments.push(format!(
                    "The following packages are already up-to-date: {}",
                    up_to_date
                        .iter()
                        .map(|x| format!("{x} ({})", cur.get(x).map(String::as_str).unwrap_or("")))
                        .collect::<Vec<_>>()
                        .join(", ")
                ));
            } else {
                comments.push(format!(
                    "{} packages are already up-to-date",
                    up_to_date.len()
                ));
            }
        }
        let changes = installable_versions(p, &targets, &cur, fromrepo.as_deref());
        return Ok(ret(name, None, comments.join("\n"), changes));
    }
    let mut req = InstallRequest {
        pkgs: targets.keys().map(|k| (k.clone(), None)).collect(),
        refresh: false,
        fromrepo: fromrepo.clone(),
        skip_verify: call.truthy("skip_verify", false),
        ..Default::default()
    };
    for key in [
        "install_recommends",
        "only_upgrade",
        "force_conf_new",
        "force_yes",
    ] {
        if let Some(v) = call.value(key) {
            req.options.insert(key.into(), v.clone());
        }
    }
    let changes = match p.install(&req) {
        Ok(c) => c,
        Err(e) => {
            return Ok(ret(
                name,
                Some(false),
                format!("An error was encountered while installing package(s): {e}"),
                Map::new(),
            ))
        }
    };
    if !changes.is_empty() {
        let failed_pkgs: Vec<String> = sorted_targets
            .iter()
            .filter(|x| {
                let want = targets.get(*x).cloned().flatten().unwrap_or_default();
                match changes.get(*x) {
                    None => true,
                    Some(c) if !c.is_truthy() => true,
                    Some(c) => match c.get("new").and_then(Value::as_str) {
                        Some(new) => !new.split(',').any(|v| v == want) && want != "latest",
                        None => false,
                    },
                }
            })
            .cloned()
            .collect();
        let ok: Vec<String> = sorted_targets
            .iter()
            .filter(|x| !failed_pkgs.contains(x))
            .cloned()
            .collect();
        let mut comments = Vec::new();
        if !failed_pkgs.is_empty() {
            comments.push(format!(
                "The following packages failed to update: {}",
                failed_pkgs.join(", ")
            ));
        }
        if !ok.is_empty() {
            comments.push(format!(
                "The following packages were successfully installed/upgraded: {}",
                ok.join(", ")
            ));
        }
        if !up_to_date.is_empty() {
            if up_to_date.len() <= 10 {
                comments.push(format!(
                    "The following packages were already up-to-date: {}",
                    up_to_date.join(", ")
                ));
            } else {
                comments.push(format!(
                    "{} packages were already up-to-date ",
                    up_to_date.len()
                ));
            }
        }
        return Ok(ret(
            name,
            Some(failed_pkgs.is_empty()),
            comments.join(" "),
            changes,
        ));
    }
    let mut comment = if targets.len() > 10 {
        format!(
            "{} targeted packages failed to update. See debug log for details.",
            targets.len()
        )
    } else if targets.len() > 1 {
        format!(
            "The following targeted packages failed to update. See debug log for details: ({}).",
            sorted_targets.join(", ")
        )
    } else {
        format!(
            "Package {} failed to update.",
            sorted_targets.first().map(String::as_str).unwrap_or("")
        )
    };
    if !up_to_date.is_empty() {
        if up_to_date.len() <= 10 {
            comment.push_str(&format!(
                " The following packages were already up-to-date: {}",
                up_to_date.join(", ")
            ));
        } else {
            comment.push_str(&format!(
                "{} packages were already up-to-date",
                up_to_date.len()
            ));
        }
    }
    Ok(ret(name, Some(false), comment, changes))
}

// ---------------------------------------------------------------------------
// pkg.removed / pkg.purged

/// `pkg.removed` (`purge` false) and `pkg.purged`.
pub fn uninstall(
    p: &dyn PkgProvider,
    call: &StateCall,
    purge: bool,
) -> Result<StateReturn, ArgError> {
    let name = call.name();
    let action = if purge { "purge" } else { "remove" };
    let version = call.opt_str("version")?;
    let pkgs = list_arg(call, "pkgs")?;
    let normalize = call.truthy("normalize", true);
    let ignore_epoch = call.opt_bool("ignore_epoch");
    let pkgs = pkgs.filter(|l| !l.is_empty());

    // pkg_resource.parse_targets: the names the execution function gets.
    let params: IndexMap<String, Option<String>> = match &pkgs {
        Some(list) => match repack_pkgs(p, list, normalize) {
            Ok(m) => m,
            Err(e) => {
                return Ok(failed(
                    name,
                    format!("An error was encountered while parsing targets: {e}"),
                ))
            }
        },
        None => name
            .split(',')
            .map(|n| {
                let n = if normalize {
                    p.normalize_name(n)
                } else {
                    n.to_string()
                };
                (n, version.clone())
            })
            .collect(),
    };
    let db = match p.list_pkgs() {
        Ok(db) => db,
        Err(e) => {
            return Ok(failed(
                name,
                format!("An error was encountered while removing package(s): {e}"),
            ))
        }
    };
    let cur = db.current();

    // _find_remove_targets
    let to_remove: IndexMap<String, Option<String>> = match &pkgs {
        Some(list) => match repack_pkgs(p, list, normalize) {
            Ok(m) if !m.is_empty() => m,
            _ => {
                return Ok(ret(
                    name,
                    Some(false),
                    "Invalidly formatted pkgs parameter. See minion log.",
                    Map::new(),
                ))
            }
        },
        None => {
            let mut m = IndexMap::new();
            m.insert(p.normalize_name(name), version.clone());
            m
        }
    };
    let mut version_spec = false;
    let mut targets: Vec<String> = Vec::new();
    for (pkg, ver) in &to_remove {
        let Some(cver) = cur.get(pkg).filter(|c| !c.is_empty()) else {
            continue;
        };
        match ver.as_deref().filter(|v| !v.is_empty()) {
            None => targets.push(pkg.clone()),
            Some(v) => {
                version_spec = true;
                if version::fulfills_version_string(p.scheme(), cver, v, ignore_epoch, false) {
                    targets.push(pkg.clone());
                }
            }
        }
    }
    if targets.is_empty() && !purge {
        return Ok(ret(
            name,
            Some(true),
            format!(
                "All specified packages{} are already absent",
                if version_spec {
                    " (matching specified versions)"
                } else {
                    ""
                }
            ),
            Map::new(),
        ));
    }
    if purge {
        targets.extend(
            params
                .keys()
                .filter(|k| db.removed.contains_key(*k))
                .cloned(),
        );
    }
    targets.sort();
    targets.dedup();
    if targets.is_empty() {
        return Ok(ret(
            name,
            Some(true),
            format!(
                "None of the targeted packages are installed{}",
                if purge { " or partially installed" } else { "" }
            ),
            Map::new(),
        ));
    }
    if call.test {
        let mut changes = Map::new();
        for t in &targets {
            changes.insert(t.clone(), new_old(&format!("{action}d"), ""));
        }
        return Ok(ret(
            name,
            None,
            format!(
                "The following packages will be {action}d: {}.",
                targets.join(", ")
            ),
            changes,
        ));
    }
    let changes = match p.remove(&params, purge) {
        Ok(c) => c,
        Err(e) => {
            let verb = if purge { "purging" } else { "removing" };
            return Ok(match e.changes() {
                Some(ch) => ret(name, Some(false), e.strerror_without_changes(), ch.clone()),
                None => ret(
                    name,
                    Some(false),
                    format!("An error was encountered while {verb} package(s): {e}"),
                    Map::new(),
                ),
            });
        }
    };
    let after = match p.list_pkgs() {
        Ok(db) => db,
        Err(e) => return Ok(failed(name, e.strerror_without_changes())),
    };
    let new = after.current();
    let mut failed_list: Vec<String> = Vec::new();
    for (param, ver) in &params {
        if p.os_family() == "RedHat" {
            match (new.get(param), ver) {
                (Some(_), None) => failed_list.push(param.clone()),
                (Some(vs), Some(v)) if vs.contains(v) => failed_list.push(format!("{param}-{v}")),
                _ => {}
            }
        } else if new.contains_key(param) {
            failed_list.push(param.clone());
        }
    }
    if purge {
        failed_list.extend(
            params
                .keys()
                .filter(|k| after.removed.contains_key(*k))
                .cloned(),
        );
    }
    failed_list.sort();
    if !failed_list.is_empty() {
        return Ok(ret(
            name,
            Some(false),
            format!(
                "The following packages failed to {action}: {}.",
                failed_list.join(", ")
            ),
            changes,
        ));
    }
    let mut not_installed: Vec<String> = params
        .keys()
        .filter(|k| !targets.contains(k))
        .cloned()
        .collect();
    not_installed.sort();
    let comment = if not_installed.is_empty() {
        format!("All targeted packages were {action}d.")
    } else {
        format!(
            "The following packages were not installed: {} The following packages were {action}d: {}.",
            not_installed.join(", "),
            targets.join(", ")
        )
    };
    Ok(ret(name, Some(true), comment, changes))
}

#[cfg(test)]
mod tests;
