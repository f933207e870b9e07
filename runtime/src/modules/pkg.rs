//! Salt's `pkg` module (aptpkg, yumpkg/dnf): installed versions, installs,
//! removals, upgrades, holds and version comparison, all through the same
//! package providers (dpkg/apt, rpm/dnf) the `pkg` states use.

use super::function::{sig, CallError, Ctx, Function, Return, Signature};
use super::params::{into_string, opt_string, Params};
use brine_compile::matcher::glob::fnmatch;
use brine_compile::minion_data::Returned;
use brine_core::{Map, Value};
use brine_states::modules::pkg::version::version_cmp as cmp_versions;
use brine_states::modules::pkg::{provider_from, InstallRequest, PkgError, PkgProvider};
use indexmap::IndexMap;
use std::path::PathBuf;

/// The signature several functions here share (Salt's, recorded).
const HOLD_SIG: Signature = sig!(name = null, pkgs = null, sources = null, **kwargs);

pub(super) const FUNCTIONS: &[Function] = &[
    Function::acts(
        "available_version",
        sig!(*args, **kwargs),
        "Another name for pkg.latest_version.\n\n    \
brine-call pkg.available_version nginx refresh=False",
        latest_version,
    ),
    Function::acts(
        "hold",
        HOLD_SIG,
        "Put NAME (or each of PKGS, or the names of SOURCES) on hold so that \
upgrades leave it alone: {name: {name, changes, result, comment}}. Debian: \
the dpkg selection 'hold'; RedHat: a lock of the dnf/yum versionlock plugin, \
which must be installed.\n\n    brine-call pkg.hold openssl",
        |c, p| hold(c, p, true),
    ),
    Function::acts(
        "info_installed",
        sig!(*args, **kwargs),
        "What the package database says of each installed NAME (every package \
when none is given): version, architecture, packager, group, url, description, \
install_date, license ... Debian: FAILHARD=False answers {} instead of failing \
when none is installed. RedHat: the newest version of each (ALL_VERSIONS=True: \
a list of all), ATTR=version,arch,... picks the attributes, ROOT queries \
another rpm root.\n\n    brine-call pkg.info_installed bash\n    \
brine-call pkg.info_installed kernel-core all_versions=True attr=version,install_date",
        info_installed,
    ),
    Function::acts(
        "install",
        sig!(
            name = null,
            refresh = false,
            fromrepo = null,
            skip_verify = false,
            debconf = null,
            pkgs = null,
            sources = null,
            reinstall = false,
            downloadonly = false,
            ignore_epoch = false,
            **kwargs
        ),
        "Install NAME (with VERSION), or PKGS (a list of names or {name: \
version}), or SOURCES (a list of {name: local package file}). Keywords: \
refresh, fromrepo, skip_verify, reinstall, ignore_epoch, install_recommends, \
only_upgrade, force_conf_new, force_yes. Answers the changes {name: {old, \
new}}.\n\n    brine-call pkg.install nginx\n    \
brine-call pkg.install pkgs='[\"curl\", {\"jq\": \"1.6-2.1\"}]'",
        install,
    ),
    Function::acts(
        "latest_version",
        sig!(*args, **kwargs),
        "The newest version available of each NAME that would be an upgrade or \
an install ('' when the installed one is newest); one string for one name, \
else a mapping. REFRESH (default True) updates the package lists first; \
SHOW_INSTALLED, FROMREPO.\n\n    brine-call pkg.latest_version nginx refresh=False",
        latest_version,
    ),
    Function::acts(
        "list_pkgs",
        sig!(
            versions_as_list = false,
            removed = false,
            purge_desired = false,
            **kwargs
        ),
        "Every installed package with its version(s). VERSIONS_AS_LIST=True \
lists the versions; REMOVED=True answers packages removed but not purged, \
PURGE_DESIRED=True those marked for purge (dpkg).\n\n    brine-call pkg.list_pkgs",
        list_pkgs,
    ),
    Function::acts(
        "list_upgrades",
        sig!(refresh = true, dist_upgrade = true, **kwargs),
        "Each package an upgrade would change, with its new version. REFRESH \
(default True) updates the package lists first; DIST_UPGRADE (default True) \
counts what dist-upgrade would do.\n\n    brine-call pkg.list_upgrades refresh=False",
        list_upgrades,
    ),
    Function::acts(
        "purge",
        sig!(name = null, pkgs = null, **kwargs),
        "Remove NAME (or each of PKGS) with its configuration files: \
{removed, installed} changes.\n\n    brine-call pkg.purge nginx",
        |c, p| remove(c, p, true),
    ),
    Function::acts(
        "refresh_db",
        sig!(cache_valid_time = 0, failhard = false, **kwargs),
        "Update the package lists: each index named by the update, True when \
fetched, None when already current, False when ignored or failed. \
FAILHARD=True makes failed indexes an error.\n\n    brine-call pkg.refresh_db",
        refresh_db,
    ),
    Function::acts(
        "remove",
        sig!(name = null, pkgs = null, **kwargs),
        "Remove NAME (or each of PKGS; '*' globs match installed names), \
keeping configuration files: the changes {name: {old, new}}.\n\n    \
brine-call pkg.remove nginx",
        |c, p| remove(c, p, false),
    ),
    Function::acts(
        "unhold",
        HOLD_SIG,
        "Take NAME (or each of PKGS, or the names of SOURCES) off hold: {name: \
{name, changes, result, comment}} (dpkg selection back to 'install', or the \
versionlock deleted).\n\n    brine-call pkg.unhold openssl",
        |c, p| hold(c, p, false),
    ),
    Function::acts(
        "upgrade_available",
        sig!(name, **kwargs),
        "True when a newer version of NAME than the installed one is \
available (REFRESH, default True, updates the package lists first).\n\n    \
brine-call pkg.upgrade_available openssl refresh=False",
        upgrade_available,
    ),
    Function::acts(
        "upgrade",
        sig!(refresh = true, dist_upgrade = false, **kwargs),
        "Upgrade every package (DIST_UPGRADE=True: as dist-upgrade). REFRESH \
(default True) updates the package lists first; force_conf_new, force_yes, \
skip_verify, download_only, allow_downgrades. Answers the changes.\n\n    \
brine-call pkg.upgrade",
        upgrade,
    ),
    Function::reads(
        "version",
        sig!(*args, **kwargs),
        "The installed version of each NAME ('' when it is not installed): one \
string for one name, else a mapping by name; a NAME with '*' matches \
installed packages. VERSIONS_AS_LIST=True lists every installed version.\n\n    \
brine-call pkg.version openssl\n    brine-call pkg.version 'python3*'",
        version,
    ),
    Function::acts(
        "version_cmp",
        sig!(pkg1, pkg2, ignore_epoch = false, **kwargs),
        "Compare package versions PKG1 and PKG2 by the package system's rules \
(Debian's or RPM's): -1 when PKG1 is older, 0 when equal, 1 when newer. \
IGNORE_EPOCH=True drops the 'N:' epochs first.\n\n    \
brine-call pkg.version_cmp 1.0-1 1.0-2",
        version_cmp,
    ),
];

fn provider(cx: &Ctx<'_>) -> Result<Box<dyn PkgProvider>, CallError> {
    provider_from(cx.grains, cx.opts).map_err(|e| CallError::Failed(e.to_string()))
}

fn pkg_err(e: PkgError) -> CallError {
    match e {
        PkgError::Invocation(m) => CallError::Invocation(m),
        e => CallError::Failed(e.strerror_without_changes()),
    }
}

fn flag(v: Option<Value>, default: bool) -> bool {
    v.map_or(default, |v| v.is_truthy())
}

fn version<'c>(cx: &Ctx<'c>, mut p: Params) -> Result<Returned<'c>, CallError> {
    let names: Vec<String> = p.rest().iter().map(Value::to_python_str).collect();
    let as_list = p.take("versions_as_list").is_some_and(|v| v.is_truthy());
    p.finish()?;
    let mut found: Vec<(String, Vec<String>)> = Vec::new();
    let mut glob = false;
    if !names.is_empty() {
        let installed = provider(cx)?.list_pkgs().map_err(pkg_err)?.current();
        for name in &names {
            if name.contains('*') {
                glob = true;
                found.extend(
                    installed
                        .iter()
                        .filter(|(pkg, _)| fnmatch(pkg, name))
                        .map(|(pkg, v)| (pkg.clone(), v.clone())),
                );
            } else {
                found.push((
                    name.clone(),
                    installed.get(name).cloned().unwrap_or_default(),
                ));
            }
        }
    }
    let shown = |versions: Vec<String>| {
        if as_list {
            Value::List(versions.into_iter().map(Value::Str).collect())
        } else {
            Value::Str(versions.join(","))
        }
    };
    if found.len() == 1 && !glob {
        let (_, versions) = found.remove(0);
        return Ok(Returned::New(shown(versions)));
    }
    let mut out = Map::default();
    for (name, versions) in found {
        out.insert(name, shown(versions));
    }
    Ok(Returned::New(Value::Map(out)))
}

fn version_cmp(cx: &Ctx<'_>, mut p: Params) -> Result<Return, CallError> {
    let a = p.require("pkg1")?.to_python_str();
    let b = p.require("pkg2")?.to_python_str();
    let ignore_epoch = flag(p.take("ignore_epoch"), false);
    // Salt's version_cmp takes **kwargs and ignores them.
    p.open_kwargs = true;
    p.finish()?;
    let scheme = provider(cx)?.scheme();
    Ok(Value::Int(i64::from(cmp_versions(scheme, &a, &b, ignore_epoch))).into())
}

fn list_pkgs(cx: &Ctx<'_>, mut p: Params) -> Result<Return, CallError> {
    let as_list = flag(p.take("versions_as_list"), false);
    let removed = flag(p.kw("removed"), false);
    let purge_desired = flag(p.kw("purge_desired"), false);
    p.open_kwargs = true;
    p.finish()?;
    let db = provider(cx)?.list_pkgs().map_err(pkg_err)?;
    let list = if removed {
        db.removed
    } else if purge_desired {
        db.purge_desired
    } else {
        db.current()
    };
    let mut out = Map::default();
    for (name, versions) in list {
        let v = if as_list {
            Value::List(versions.into_iter().map(Value::Str).collect())
        } else {
            Value::Str(versions.join(","))
        };
        out.insert(name, v);
    }
    Ok(Value::Map(out).into())
}

fn latest_version(cx: &Ctx<'_>, mut p: Params) -> Result<Return, CallError> {
    let names: Vec<String> = p.rest().iter().map(Value::to_python_str).collect();
    let refresh = flag(p.kw("refresh"), true);
    let show_installed = flag(p.kw("show_installed"), false);
    let fromrepo = opt_string(p.kw("fromrepo").or_else(|| p.kw("repo")));
    p.open_kwargs = true;
    p.finish()?;
    if names.is_empty() {
        return Ok(Value::Str(String::new()).into());
    }
    Ok(latest(cx, &names, refresh, fromrepo.as_deref(), show_installed)?.into())
}

/// Salt's `latest_version` answer: one string when one known name remains
/// (apt drops the names it does not know before counting), else the
/// mapping of every name asked.
fn latest(
    cx: &Ctx<'_>,
    names: &[String],
    refresh: bool,
    fromrepo: Option<&str>,
    show_installed: bool,
) -> Result<Value, CallError> {
    let (found, unknown) = provider(cx)?
        .latest_and_unknown(names, refresh, fromrepo, show_installed)
        .map_err(pkg_err)?;
    let known: Vec<&String> = names.iter().filter(|n| !unknown.contains(n)).collect();
    if let [one] = known.as_slice() {
        return Ok(Value::Str(found.get(*one).cloned().unwrap_or_default()));
    }
    Ok(Value::Map(
        found.into_iter().map(|(k, v)| (k, Value::Str(v))).collect(),
    ))
}

fn upgrade_available(cx: &Ctx<'_>, mut p: Params) -> Result<Return, CallError> {
    let name = p.require("name")?.to_python_str();
    let refresh = flag(p.kw("refresh"), true);
    let fromrepo = opt_string(p.kw("fromrepo").or_else(|| p.kw("repo")));
    p.open_kwargs = true;
    p.finish()?;
    // Salt compares latest_version's answer with '': a mapping (an unknown
    // name) is not ''.
    let answer = latest(cx, &[name], refresh, fromrepo.as_deref(), false)?;
    Ok(Value::Bool(answer != Value::Str(String::new())).into())
}

/// Salt's `parse_targets` for names and `pkgs`: `{name: version}`.
fn targets(
    p: &dyn PkgProvider,
    name: Option<Value>,
    pkgs: Option<Value>,
    version: Option<String>,
) -> Result<IndexMap<String, Option<String>>, CallError> {
    if let Some(pkgs) = pkgs.filter(|v| !v.is_null()) {
        let Value::List(items) = pkgs else {
            return Err(CallError::Failed(
                "Invalid input: pkgs must be a list".into(),
            ));
        };
        let repacked =
            brine_states::modules::pkg::repack_pkgs(p, &items, true).map_err(CallError::Failed)?;
        if repacked.is_empty() && !items.is_empty() {
            return Err(CallError::Failed(
                "Invalid input: pkgs must be a list of names or {name: version} mappings".into(),
            ));
        }
        return Ok(repacked);
    }
    let mut out = IndexMap::new();
    if let Some(name) = name.filter(|v| !v.is_null()) {
        let name = into_string(name);
        // A comma-separated NAME is several packages (version applies to
        // one name only).
        let names: Vec<&str> = name.split(',').filter(|n| !n.is_empty()).collect();
        let one = names.len() == 1;
        for n in names {
            out.insert(
                p.normalize_name(n),
                if one { version.clone() } else { None },
            );
        }
    }
    Ok(out)
}

fn install(cx: &Ctx<'_>, mut p: Params) -> Result<Return, CallError> {
    let name = p.take("name");
    let refresh = flag(p.take("refresh"), false);
    let fromrepo = opt_string(p.take("fromrepo"));
    let skip_verify = flag(p.take("skip_verify"), false);
    let _debconf = p.take("debconf");
    let pkgs = p.take("pkgs");
    let sources = p.take("sources").filter(|v| !v.is_null());
    let reinstall = flag(p.take("reinstall"), false);
    let downloadonly = p.take("downloadonly");
    let ignore_epoch = p.take("ignore_epoch");
    let version = opt_string(p.kw("version"));
    let mut options = Map::default();
    for key in [
        "install_recommends",
        "only_upgrade",
        "force_conf_new",
        "force_yes",
    ] {
        if let Some(v) = p.kw(key) {
            options.insert(key.into(), v);
        }
    }
    if let Some(v) = ignore_epoch {
        options.insert("ignore_epoch".into(), v);
    }
    p.open_kwargs = true;
    p.finish()?;
    if downloadonly.is_some_and(|v| v.is_truthy()) {
        return Err(CallError::Failed(
            "pkg.install: downloadonly is not supported by brine".into(),
        ));
    }
    let prov = provider(cx)?;
    let mut req = InstallRequest {
        refresh,
        fromrepo,
        skip_verify,
        reinstall,
        options,
        ..InstallRequest::default()
    };
    if let Some(sources) = sources {
        let Value::List(items) = sources else {
            return Err(CallError::Failed(
                "Invalid input: sources must be a list".into(),
            ));
        };
        for item in items {
            let Some((_, src)) = item.as_map().and_then(|m| m.iter().next()) else {
                return Err(CallError::Failed(
                    "Invalid input: sources must be a list of {name: source} mappings".into(),
                ));
            };
            let src = src.to_python_str();
            let path = src.strip_prefix("file://").unwrap_or(&src);
            if path.contains("://") {
                return Err(CallError::Failed(format!(
                    "pkg.install: brine installs sources from local files only, not {src}"
                )));
            }
            req.sources.push(PathBuf::from(path));
        }
    } else {
        req.pkgs = targets(prov.as_ref(), name, pkgs, version)?
            .into_iter()
            .collect();
    }
    if req.pkgs.is_empty() && req.sources.is_empty() {
        return Ok(Value::Map(Map::default()).into());
    }
    let changes = prov.install(&req).map_err(pkg_err)?;
    Ok(Value::Map(changes).into())
}

fn remove(cx: &Ctx<'_>, mut p: Params, purge: bool) -> Result<Return, CallError> {
    let name = p.take("name");
    let pkgs = p.take("pkgs");
    p.open_kwargs = true;
    p.finish()?;
    if name.as_ref().is_none_or(Value::is_null) && pkgs.as_ref().is_none_or(Value::is_null) {
        // Salt's parse_targets answers None here and the caller unpacks it.
        return Err(CallError::InvalidArguments(
            "'NoneType' object is not iterable".into(),
        ));
    }
    let prov = provider(cx)?;
    let targets = targets(prov.as_ref(), name, pkgs, None)?;
    let changes = prov.remove(&targets, purge).map_err(pkg_err)?;
    Ok(Value::Map(changes).into())
}

fn refresh_db(cx: &Ctx<'_>, mut p: Params) -> Result<Return, CallError> {
    let cache_valid_time = p.take("cache_valid_time");
    let failhard = flag(p.take("failhard"), false);
    p.open_kwargs = true;
    p.finish()?;
    if let Some(secs) = cache_valid_time.as_ref().and_then(Value::as_i64) {
        if secs > 0 && fresh_within(secs) {
            return Ok(Value::Map(Map::default()).into());
        }
    }
    let ret = provider(cx)?.refresh_db_report(failhard).map_err(pkg_err)?;
    Ok(ret.into())
}

/// apt's lists were updated less than `secs` seconds ago.
fn fresh_within(secs: i64) -> bool {
    std::fs::metadata("/var/lib/apt/lists")
        .and_then(|m| m.modified())
        .ok()
        .and_then(|t| t.elapsed().ok())
        .is_some_and(|age| i64::try_from(age.as_secs()).is_ok_and(|a| a < secs))
}

fn list_upgrades(cx: &Ctx<'_>, mut p: Params) -> Result<Return, CallError> {
    let refresh = flag(p.take("refresh"), true);
    let dist_upgrade = flag(p.take("dist_upgrade"), true);
    let fromrepo = opt_string(p.kw("fromrepo"));
    p.open_kwargs = true;
    p.finish()?;
    let prov = provider(cx)?;
    if refresh {
        prov.refresh_db_report(false).map_err(pkg_err)?;
    }
    let ups = prov
        .list_upgrades(dist_upgrade, fromrepo.as_deref())
        .map_err(pkg_err)?;
    Ok(Value::Map(ups.into_iter().map(|(k, v)| (k, Value::Str(v))).collect()).into())
}

fn upgrade(cx: &Ctx<'_>, mut p: Params) -> Result<Return, CallError> {
    let refresh = flag(p.take("refresh"), true);
    let dist_upgrade = p.take("dist_upgrade").unwrap_or(Value::Bool(false));
    let mut options = Map::default();
    options.insert("dist_upgrade".into(), dist_upgrade);
    for key in [
        "force_conf_new",
        "force_yes",
        "skip_verify",
        "download_only",
        "downloadonly",
        "allow_downgrades",
    ] {
        if let Some(v) = p.kw(key) {
            let key = if key == "downloadonly" {
                "download_only"
            } else {
                key
            };
            options.insert(key.into(), v);
        }
    }
    p.open_kwargs = true;
    p.finish()?;
    let prov = provider(cx)?;
    if refresh {
        prov.refresh_db_report(false).map_err(pkg_err)?;
    }
    Ok(Value::Map(prov.upgrade(&options).map_err(pkg_err)?).into())
}

fn info_installed(cx: &Ctx<'_>, mut p: Params) -> Result<Return, CallError> {
    let names: Vec<String> = p.rest().iter().map(Value::to_python_str).collect();
    // The keywords are the provider's to judge (aptpkg takes failhard only,
    // yumpkg hands them all to lowpkg.info).
    let kwargs = std::mem::take(&mut p.kwargs);
    p.finish()?;
    let answer = provider(cx)?
        .info_installed(&names, kwargs)
        .map_err(pkg_err)?;
    Ok(Return {
        value: Value::Map(answer.info),
        retcode: answer.retcode,
    })
}

/// `pkg.hold` / `pkg.unhold`: Salt's target selection, the provider's
/// holds (dpkg selections, dnf/yum versionlock), answered per target.
fn hold(cx: &Ctx<'_>, mut p: Params, on: bool) -> Result<Return, CallError> {
    let name = p.take("name").filter(Value::is_truthy);
    let pkgs = p.take("pkgs").filter(Value::is_truthy);
    let sources = p.take("sources").filter(Value::is_truthy);
    p.open_kwargs = true;
    p.finish()?;
    let prov = provider(cx)?;
    prov.hold_ready().map_err(pkg_err)?;
    if name.is_none() && pkgs.is_none() && sources.is_none() {
        return Err(CallError::Invocation(
            "One of name, pkgs, or sources must be specified.".into(),
        ));
    }
    if pkgs.is_some() && sources.is_some() {
        return Err(CallError::Invocation(
            "Only one of pkgs or sources can be specified.".into(),
        ));
    }
    let first_key = |v: &Value| match v {
        Value::Map(m) => m.keys().next().cloned().unwrap_or_default(),
        other => other.to_python_str(),
    };
    let targets: Vec<String> = match (pkgs, sources, name) {
        (Some(Value::List(items)), _, _) | (None, Some(Value::List(items)), _) => {
            items.iter().map(first_key).collect()
        }
        (Some(other), _, _) | (None, Some(other), _) => vec![first_key(&other)],
        (None, None, Some(name)) => vec![into_string(name)],
        (None, None, None) => Vec::new(),
    };
    let test = brine_compile::opts::test_mode(cx.opts);
    let answers = prov.hold(&targets, on, test).map_err(pkg_err)?;
    let ret: Map = answers
        .into_iter()
        .map(|(target, a)| {
            let v = a.into_value(&target);
            (target, v)
        })
        .collect();
    Ok(Value::Map(ret).into())
}

#[cfg(test)]
mod tests {
    use super::super::testkit::{is_root, minion, run, sh};
    use brine_core::args::parse_input;
    use serde_json::json;
    use std::path::{Path, PathBuf};

    const PKG: &str = "brinex14-pkg";

    /// Builds `brinex14-pkg` 1.0 and 2.0 as .debs in `dir`.
    fn build_debs(dir: &Path) -> Vec<PathBuf> {
        let mut out = Vec::new();
        for v in ["1.0", "2.0"] {
            let root = dir.join(format!("{PKG}_{v}"));
            std::fs::create_dir_all(root.join("DEBIAN")).unwrap();
            std::fs::create_dir_all(root.join(format!("usr/share/{PKG}"))).unwrap();
            std::fs::write(
                root.join("DEBIAN/control"),
                format!("Package: {PKG}\nVersion: {v}\nArchitecture: all\nMaintainer: brine <brine@example.invalid>\nSection: misc\nDescription: brine test package\n"),
            )
            .unwrap();
            std::fs::write(root.join(format!("usr/share/{PKG}/hello")), "hi\n").unwrap();
            let r = sh(&["dpkg-deb", "--build", root.to_str().unwrap()]);
            assert_eq!(r.retcode, 0, "{}", r.stderr);
            out.push(dir.join(format!("{PKG}_{v}.deb")));
        }
        out
    }

    /// Debian's info_installed: failhard is its only keyword, and an
    /// unknown name leaves dpkg-query's exit code even with failhard off.
    #[test]
    fn debian_info_installed_keywords_and_exit_code() {
        if brine_host::path::which("dpkg-query").is_none() {
            println!("skipped: needs dpkg-query");
            return;
        }
        let mut m = minion();
        let tokens = ["brinex14-nothing".to_string(), "failhard=False".to_string()];
        let r = super::super::call(&mut m, "pkg.info_installed", parse_input(&tokens)).unwrap();
        assert_eq!((r.value.to_json(), r.retcode), (json!({}), 1));
        let err = run(
            &mut m,
            "pkg.info_installed",
            &["brinex14-nothing", "attr=version"],
        )
        .unwrap_err();
        assert!(
            err.contains("The following keyword arguments are not valid: attr=version"),
            "{err}"
        );
        let err = run(&mut m, "pkg.hold", &[]).unwrap_err();
        assert!(
            err.contains("One of name, pkgs, or sources must be specified."),
            "{err}"
        );
    }

    struct Cleanup(PathBuf);
    impl Drop for Cleanup {
        fn drop(&mut self) {
            sh(&["dpkg", "-P", PKG]);
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    /// Install, hold, upgrade, remove and purge a real .deb through the
    /// execution functions, leaving the host as it was.
    #[test]
    fn real_deb_through_the_execution_functions() {
        if !is_root() || brine_host::path::which("dpkg-deb").is_none() {
            println!("skipped: needs root and dpkg-deb");
            return;
        }
        let dir = std::env::temp_dir().join(format!("brinex14-debs-{}", std::process::id()));
        let _guard = Cleanup(dir.clone());
        sh(&["dpkg", "-P", PKG]);
        let debs = build_debs(&dir);
        let src = |i: usize| format!("sources=[{{\"{PKG}\": \"{}\"}}]", debs[i].display());
        let mut m = minion();

        let r = run(&mut m, "pkg.install", &[&src(0)]).unwrap();
        assert_eq!(r, json!({PKG: {"old": "", "new": "1.0"}}));
        assert_eq!(run(&mut m, "pkg.version", &[PKG]).unwrap(), json!("1.0"));
        let all = run(&mut m, "pkg.list_pkgs", &[]).unwrap();
        assert_eq!(all[PKG], json!("1.0"));
        let info = run(&mut m, "pkg.info_installed", &[PKG]).unwrap();
        assert_eq!(info[PKG]["version"], json!("1.0"));
        assert_eq!(info[PKG]["name"], json!(PKG));
        assert_eq!(info[PKG]["group"], json!("misc"));
        // dpkg-query ends the description with a newline; Salt keeps it.
        assert_eq!(info[PKG]["description"], json!("brine test package\n"));

        let r = run(&mut m, "pkg.hold", &[PKG]).unwrap();
        assert_eq!(
            r,
            json!({PKG: {"name": PKG, "changes": {"old": "install", "new": "hold"},
                "result": true, "comment": format!("Package {PKG} is now being held.")}})
        );
        let r = run(&mut m, "pkg.hold", &[PKG]).unwrap();
        assert_eq!(
            r[PKG]["comment"],
            json!(format!("Package {PKG} is already set to be held."))
        );
        let r = run(&mut m, "pkg.unhold", &[PKG]).unwrap();
        assert_eq!(
            r,
            json!({PKG: {"name": PKG, "changes": {"old": "hold", "new": "install"},
                "result": true, "comment": format!("Package {PKG} is no longer being held.")}})
        );

        let r = run(&mut m, "pkg.install", &[&src(1)]).unwrap();
        assert_eq!(r, json!({PKG: {"old": "1.0", "new": "2.0"}}));
        let r = run(&mut m, "pkg.remove", &[PKG]).unwrap();
        assert_eq!(r, json!({PKG: {"old": "2.0", "new": ""}}));
        assert!(!Path::new(&format!("/usr/share/{PKG}/hello")).exists());
        assert_eq!(run(&mut m, "pkg.purge", &[PKG]).unwrap(), json!({}));
        assert_eq!(run(&mut m, "pkg.version", &[PKG]).unwrap(), json!(""));
        let err = run(&mut m, "pkg.info_installed", &[PKG]).unwrap_err();
        assert!(
            err.starts_with("Error getting packages information"),
            "{err}"
        );
        assert_eq!(
            run(&mut m, "pkg.info_installed", &[PKG, "failhard=False"]).unwrap(),
            json!({})
        );
    }
}
