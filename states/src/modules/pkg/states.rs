//! The `pkg` state functions: `installed`, `latest`, `removed` and
//! `purged`, as Salt's `salt/states/pkg.py` runs them over a provider.

use super::provider::{stringify, InstallRequest, PkgError, PkgProvider};
use super::refresh::check_refresh;
use super::support::{add_warnings, desired_pkg, list_arg, new_old, ret};
use super::targets::{
    find_install_targets, installable_versions, pack_sources, repack_pkgs, resolve_source,
    verify_install, Targets,
};
use super::version;
use crate::modules::user::support::{failed, ArgError, Args};
use crate::{StateCall, StateReturn};
use brine_core::{Map, Value};
use indexmap::IndexMap;

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
            Map::default(),
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
                let mut m = Map::default();
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
            Map::default(),
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
            Map::default(),
        );
        add_warnings(&mut r, &warnings);
        return Ok(r);
    }

    let mut comment: Vec<String> = Vec::new();
    let mut changes = Map::default();
    if call.test {
        if !targets.is_empty() {
            if sources.is_some() {
                for k in targets.keys() {
                    changes.insert(k.clone(), new_old("installed", ""));
                }
            } else {
                match installable_versions(p, name, &targets, &IndexMap::new(), fromrepo.as_deref())
                {
                    Ok(c) => changes.extend(c),
                    Err(raised) => return Ok(raised),
                }
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

    let mut pkg_ret = Map::default();
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
                                Map::default(),
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
                        Map::default(),
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
            Map::default(),
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
                    Map::default(),
                ))
            }
            Err(e) => return Ok(failed(name, e)),
        },
        Some(_) => {
            return Ok(ret(
                name,
                Some(true),
                "No packages to install provided",
                Map::default(),
            ))
        }
        None => vec![name.to_string()],
    };
    let avail = match p.latest_version(&desired, refresh, fromrepo.as_deref(), false) {
        Ok(a) => a,
        Err(PkgError::Raised(e)) => return Ok(failed(name, crate::raised(e))),
        Err(e) => {
            return Ok(ret(
                name,
                Some(false),
                format!("An error was encountered while checking the newest available version of package(s): {e}"),
                Map::default(),
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
        return Ok(ret(name, Some(false), problems.join(" "), Map::default()));
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
        return Ok(ret(name, Some(true), comment, Map::default()));
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
        let changes = match installable_versions(p, name, &targets, &cur, fromrepo.as_deref()) {
            Ok(c) => c,
            Err(raised) => return Ok(raised),
        };
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
                Map::default(),
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
                    Map::default(),
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
            Map::default(),
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
            Map::default(),
        ));
    }
    if call.test {
        let mut changes = Map::default();
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
                    Map::default(),
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
