//! What a `pkg` state is asked for and what that means on this minion:
//! the `pkgs`/`sources` arguments repacked as Salt does, package sources
//! fetched, the install targets settled against what is installed and
//! available, and the check after an install.

use super::provider::{PkgError, PkgList, PkgProvider};
use super::support::{add_warnings, desired_pkg, new_old, ret};
use super::version;
use crate::fileclient::FileClientError;
use crate::modules::user::support::failed;
use crate::{StateCall, StateReturn};
use brine_core::{Map, Value};
use indexmap::IndexMap;
use std::path::PathBuf;

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

/// Why a package source could not be had.
#[derive(Debug, thiserror::Error)]
pub enum SourceError {
    #[error(transparent)]
    Fetch(#[from] FileClientError),
    #[error("brine cannot fetch package sources over '{scheme}://' (only salt:// and local paths): {url}")]
    Scheme { scheme: String, url: String },
    #[error("Path {url} for package {pkg} is either not absolute or an invalid protocol")]
    NotAbsolute { pkg: String, url: String },
}

/// Where a source is fetched from: `salt://` through the file client,
/// other URL schemes are not supported, local paths must be absolute.
pub fn resolve_source(call: &StateCall, pkg: &str, src: &str) -> Result<PathBuf, SourceError> {
    if src.starts_with("salt://") {
        return Ok(call.ctx.fileclient.cache_file(src, &call.ctx.saltenv)?);
    }
    if let Some((scheme, _)) = src.split_once("://") {
        return Err(SourceError::Scheme {
            scheme: scheme.to_string(),
            url: src.to_string(),
        });
    }
    let path = PathBuf::from(src);
    if !path.is_absolute() {
        return Err(SourceError::NotAbsolute {
            pkg: pkg.to_string(),
            url: src.to_string(),
        });
    }
    Ok(path)
}

/// What `_find_install_targets` settles on when there is work to do.
pub struct Targets {
    pub desired: IndexMap<String, Option<String>>,
    pub targets: IndexMap<String, Option<String>>,
    pub to_unpurge: Vec<String>,
    pub to_reinstall: IndexMap<String, Option<String>>,
    pub warnings: Vec<String>,
    pub was_refreshed: bool,
}

// The error side is the state's final answer, made once per call.
#[allow(clippy::too_many_arguments, clippy::result_large_err)]
pub fn find_install_targets(
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
            Map::default(),
        ));
    }
    let db = p.list_pkgs().map_err(|e| {
        ret(
            name,
            Some(false),
            e.strerror_without_changes(),
            Map::default(),
        )
    })?;
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
            Map::default(),
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
                .map_err(|e| match e {
                    PkgError::Raised(m) => failed(name, crate::raised(m)),
                    e => failed(name, e.strerror_without_changes()),
                })?;
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
        return Err(ret(name, Some(false), problems.join(" "), Map::default()));
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
            Map::default(),
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

/// Salt's `_get_installable_versions`: the versions test mode shows; Err
/// with the state's return where Salt's lookup raises.
#[allow(clippy::result_large_err)] // the state's return, as find_targets gives it
pub fn installable_versions(
    p: &dyn PkgProvider,
    name: &str,
    targets: &IndexMap<String, Option<String>>,
    current: &IndexMap<String, String>,
    fromrepo: Option<&str>,
) -> Result<Map, StateReturn> {
    let mut found: IndexMap<String, String> = IndexMap::new();
    let latest: Vec<String> = targets
        .iter()
        .filter(|(_, v)| v.as_deref().is_none_or(str::is_empty))
        .map(|(k, _)| k.clone())
        .collect();
    if !latest.is_empty() {
        // Salt asks with the default refresh=True here, even in test mode.
        match p.latest_version(&latest, true, fromrepo, false) {
            Ok(v) => found.extend(v),
            // Salt's own code raised there: the state fails with it.
            Err(PkgError::Raised(m)) => return Err(failed(name, crate::raised(m))),
            Err(_) => {}
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
    let mut out = Map::default();
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
    Ok(out)
}

/// Salt's `_verify_install`: which desired packages are now installed at
/// an acceptable version.
pub fn verify_install(
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
