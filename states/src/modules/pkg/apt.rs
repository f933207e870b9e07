//! The Debian provider: `dpkg-query`, `dpkg`, `apt-cache` and `apt-get` as
//! Salt's `aptpkg` and `dpkg_lowpkg` execution modules run them.

use super::{
    add_reinstall_changes, compare_dicts, stringify, BinPkgInfo, HoldAnswer, InfoInstalled,
    InstallRequest, PkgDb, PkgError, PkgList, PkgProvider,
};
use crate::modules::pkg::version::{self, Scheme};
use crate::modules::user::support::run_argv;
use brine_core::{Map, Value};
use brine_host::exec::CommandResult;
use indexmap::IndexMap;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// What apt-get and dpkg get in their environment (no prompts, keep
/// existing configuration files).
const DPKG_ENV: [(&str, &str); 4] = [
    ("APT_LISTBUGS_FRONTEND", "none"),
    ("APT_LISTCHANGES_FRONTEND", "none"),
    ("DEBIAN_FRONTEND", "noninteractive"),
    ("UCF_FORCE_CONFFOLD", "1"),
];

/// How often a command is retried while another apt/dpkg holds the lock.
const LOCK_RETRIES: u32 = 5;

#[derive(Debug, Clone)]
pub struct Apt {
    pub osarch: String,
    pub cpuarch: String,
    /// The refresh tag a database refresh removes.
    pub rtag: Option<PathBuf>,
}

impl Apt {
    pub fn new(osarch: Option<String>, cpuarch: Option<String>, rtag: Option<PathBuf>) -> Apt {
        let osarch = osarch.unwrap_or_else(|| {
            run_argv(&["dpkg", "--print-architecture"], &[], None)
                .map(|r| r.stdout.trim().to_string())
                .unwrap_or_default()
        });
        Apt {
            osarch,
            cpuarch: cpuarch.unwrap_or_else(|| std::env::consts::ARCH.to_string()),
            rtag,
        }
    }

    /// Run an apt/dpkg command, waiting while the dpkg lock is taken.
    fn call_apt<S: AsRef<str>>(
        &self,
        argv: &[S],
        dpkg_env: bool,
        stdin: Option<&str>,
    ) -> CommandResult {
        let env: &[(&str, &str)] = if dpkg_env { &DPKG_ENV } else { &[] };
        let mut count = 0;
        loop {
            let r = run_argv(argv, env, stdin).unwrap_or_else(|e| CommandResult {
                retcode: 127,
                stderr: e.to_string(),
                ..Default::default()
            });
            // apt says "Could not get lock", dpkg "... is locked by another
            // process": another package run is on, wait for it.
            let locked = r.stderr.contains("Could not get lock")
                || r.stderr.contains("locked by another process");
            if !locked || count >= LOCK_RETRIES {
                return r;
            }
            count += 1;
            std::thread::sleep(std::time::Duration::from_secs(1 << count));
        }
    }

    /// `pkg.refresh_db`: `apt-get -q update`.
    pub fn refresh_db(&self) -> Result<(), PkgError> {
        self.update().map(|_| ())
    }

    /// `apt-get -q update` (the refresh tag cleared first): its output.
    fn update(&self) -> Result<String, PkgError> {
        if let Some(t) = &self.rtag {
            let _ = std::fs::remove_file(t);
        }
        let r = self.call_apt(&["apt-get", "-q", "update"], false, None);
        if r.retcode != 0 {
            return Err(PkgError::Command(r.stderr));
        }
        Ok(r.stdout)
    }

    /// `dpkg --get-selections`: every package's `(package, state)`.
    fn selections(&self) -> Vec<(String, String)> {
        let r = self.call_apt(&["dpkg", "--get-selections"], false, None);
        parse_selections(&r.stdout)
    }

    fn set_selections(&self, names: &[String], state: &str) {
        let text: String = names.iter().map(|n| format!("{n} {state}\n")).collect();
        let _ = self.call_apt(&["dpkg", "--set-selections"], false, Some(&text));
    }

    /// `dpkg --get-selections PATTERN`: `(package, state)` pairs.
    fn selections_matching(&self, pattern: &str) -> Vec<(String, String)> {
        let r = self.call_apt(&["dpkg", "--get-selections", pattern], false, None);
        parse_selections(&r.stdout)
    }

    /// Salt's `set_selections` for one package: `{old, new}` when its
    /// state changed, nothing when it already was `state`.
    fn set_state(&self, target: &str, state: &str) -> Result<Map, PkgError> {
        let old = self
            .selections_matching("*")
            .into_iter()
            .find(|(n, _)| n == target)
            .map(|(_, s)| s);
        if old.as_deref() == Some(state) {
            return Ok(Map::default());
        }
        let line = format!("{target} {state}");
        let r = self.call_apt(&["dpkg", "--set-selections"], false, Some(&line));
        if r.retcode != 0 {
            return Err(PkgError::Command(format!(
                "failed to set state {state} for package {target}"
            )));
        }
        let mut m = Map::default();
        m.insert("old".into(), old.map_or(Value::Null, Value::Str));
        m.insert("new".into(), Value::Str(state.into()));
        Ok(m)
    }

    fn cmp_ge(&self, a: &str, b: &str) -> bool {
        version::compare(Scheme::Debian, a, ">=", b, false)
    }
}

/// `dpkg --get-selections` output: `(package, state)` pairs.
fn parse_selections(out: &str) -> Vec<(String, String)> {
    out.lines()
        .filter_map(|l| {
            let mut it = l.split_whitespace();
            Some((it.next()?.to_string(), it.next()?.to_string()))
        })
        .collect()
}

/// `dpkg-query -W` output (`${Status} ${Package} ${Version} ${Architecture}`)
/// as installed / removed / purge-desired lists. Packages of a foreign
/// architecture get `:arch` on amd64 hosts, as in Salt.
pub fn parse_dpkg_query(out: &str, osarch: &str, cpuarch: &str) -> PkgDb {
    let mut db = PkgDb::default();
    for line in out.lines() {
        let cols: Vec<&str> = line.split_whitespace().collect();
        let (Some(want), Some(status), Some(name), Some(ver), Some(arch)) = (
            cols.first(),
            cols.get(2),
            cols.get(3),
            cols.get(4),
            cols.get(5),
        ) else {
            continue;
        };
        let mut name = name.to_string();
        if cpuarch == "x86_64" && *arch != "all" && osarch == "amd64" && osarch != *arch {
            name = format!("{name}:{arch}");
        }
        let list: Option<&mut PkgList> = if (want.contains("install") || want.contains("hold"))
            && status.contains("installed")
        {
            Some(&mut db.installed)
        } else if want.contains("deinstall") {
            Some(&mut db.removed)
        } else if want.contains("purge") && *status == "installed" {
            Some(&mut db.purge_desired)
        } else {
            None
        };
        if let Some(l) = list {
            l.entry(name).or_default().push(ver.to_string());
        }
    }
    for l in [&mut db.installed, &mut db.removed, &mut db.purge_desired] {
        for v in l.values_mut() {
            v.sort();
            v.dedup();
        }
    }
    db
}

/// Candidate versions from `apt-cache policy` ("" for `(none)`). A
/// `Candidate:` line before any heading naming an asked package is where
/// Salt 3007.8's `latest_version` raises (its `this_pkg` is unset: apt
/// answered under another name, `php7.3-common:` for `php7.3`).
pub fn parse_policy(out: &str, names: &[String]) -> Result<IndexMap<String, String>, PkgError> {
    let short: Vec<&str> = names
        .iter()
        .map(|n| n.split(':').next().unwrap_or(n))
        .collect();
    let mut cands = IndexMap::new();
    let mut this: Option<String> = None;
    for line in out.lines() {
        let line = line.trim();
        if let Some(head) = line.strip_suffix(':') {
            if !line.starts_with("Version table")
                && (names.iter().any(|n| n == head)
                    || short.contains(&head.split(':').next().unwrap_or(head)))
            {
                this = Some(head.to_string());
            }
        } else if line.starts_with("Candidate") {
            let comps: Vec<&str> = line.split_whitespace().collect();
            let mut cand = if comps.len() >= 2 {
                comps[comps.len() - 1].to_string()
            } else {
                String::new()
            };
            if cand.to_lowercase() == "(none)" {
                cand.clear();
            }
            match &this {
                Some(t) => {
                    cands.insert(t.clone(), cand);
                }
                None => {
                    return Err(PkgError::Raised(
                        "UnboundLocalError: cannot access local variable 'this_pkg' where it \
                         is not associated with a value"
                            .into(),
                    ))
                }
            }
        }
    }
    Ok(cands)
}

/// Versions by package from `apt-cache show`.
pub fn parse_show(out: &str) -> IndexMap<String, Vec<String>> {
    let mut ret: IndexMap<String, Vec<String>> = IndexMap::new();
    let mut pkg: Option<String> = None;
    for line in out.lines() {
        if line.trim().is_empty() {
            continue;
        }
        if let Some(p) = line.strip_prefix("Package: ") {
            pkg = Some(p.trim().to_string());
            continue;
        }
        let mut comps = line.trim().splitn(2, char::is_whitespace);
        if comps.next() == Some("Version:") {
            if let (Some(p), Some(v)) = (&pkg, comps.next()) {
                ret.entry(p.clone()).or_default().push(v.trim().to_string());
            }
        }
    }
    ret
}

/// Name, version and architecture from `dpkg -I`.
pub fn parse_dpkg_info(out: &str) -> Result<BinPkgInfo, Vec<&'static str>> {
    let (mut name, mut ver, mut arch) = (None, None, None);
    for line in out.lines() {
        let line = line.trim();
        let Some((key, _)) = line.split_once(':') else {
            continue;
        };
        let last = line.split_whitespace().last().map(str::to_string);
        match key.trim_end() {
            "Package" => name = last,
            "Version" => ver = last,
            "Architecture" => arch = last,
            _ => {}
        }
    }
    match (name, ver, arch) {
        (Some(name), Some(version), Some(arch)) => Ok(BinPkgInfo {
            name,
            version,
            arch,
        }),
        (n, v, a) => Err([
            ("name", n.is_none()),
            ("version", v.is_none()),
            ("arch", a.is_none()),
        ]
        .into_iter()
        .filter(|(_, missing)| *missing)
        .map(|(k, _)| k)
        .collect()),
    }
}

impl PkgProvider for Apt {
    fn scheme(&self) -> Scheme {
        Scheme::Debian
    }

    fn os_family(&self) -> &'static str {
        "Debian"
    }

    fn normalize_name(&self, name: &str) -> String {
        match name.rsplit_once(':') {
            Some((pkg, arch)) if arch == self.osarch || arch == "all" || arch == "any" => {
                pkg.to_string()
            }
            Some(_) => name.to_string(),
            None => name.to_string(),
        }
    }

    fn list_pkgs(&self) -> Result<PkgDb, PkgError> {
        let r = self.call_apt(
            &[
                "dpkg-query",
                "--showformat",
                "${Status} ${Package} ${Version} ${Architecture}\n",
                "-W",
            ],
            false,
            None,
        );
        if r.retcode == 127 {
            return Err(PkgError::Command(r.stderr));
        }
        Ok(parse_dpkg_query(&r.stdout, &self.osarch, &self.cpuarch))
    }

    fn latest_version(
        &self,
        names: &[String],
        refresh: bool,
        fromrepo: Option<&str>,
        show_installed: bool,
    ) -> Result<IndexMap<String, String>, PkgError> {
        self.latest_and_unknown(names, refresh, fromrepo, show_installed)
            .map(|(ret, _)| ret)
    }

    fn latest_and_unknown(
        &self,
        names: &[String],
        refresh: bool,
        fromrepo: Option<&str>,
        show_installed: bool,
    ) -> Result<(IndexMap<String, String>, Vec<String>), PkgError> {
        let mut ret: IndexMap<String, String> =
            names.iter().map(|n| (n.clone(), String::new())).collect();
        if names.is_empty() {
            return Ok((ret, Vec::new()));
        }
        let pkgs = self.list_pkgs()?.current();
        if refresh {
            self.refresh_db()?;
        }
        let mut argv: Vec<String> = vec!["apt-cache".into(), "-q".into(), "policy".into()];
        argv.extend(names.iter().cloned());
        if let Some(repo) = fromrepo {
            argv.extend(["-o".into(), format!("APT::Default-Release={repo}")]);
        }
        let out = self.call_apt(&argv, false, None);
        let cands = parse_policy(&out.stdout, names)?;
        for name in names {
            let cand = cands.get(name).cloned().unwrap_or_default();
            let installed = pkgs.get(name).cloned().unwrap_or_default();
            let newer = !cand.is_empty() && !installed.iter().any(|v| self.cmp_ge(v, &cand));
            let value = if installed.is_empty() || show_installed || newer {
                cand
            } else {
                String::new()
            };
            ret.insert(name.clone(), value);
        }
        let unknown = names
            .iter()
            .filter(|n| !cands.contains_key(*n))
            .cloned()
            .collect();
        Ok((ret, unknown))
    }

    fn list_repo_pkgs(&self, targets: &[String]) -> IndexMap<String, Vec<String>> {
        let mut argv: Vec<String> = vec!["apt-cache".into(), "show".into()];
        argv.extend(targets.iter().cloned());
        parse_show(&self.call_apt(&argv, false, None).stdout)
    }

    fn bin_pkg_info(&self, path: &Path) -> Result<BinPkgInfo, PkgError> {
        let shown = path.display().to_string();
        if !path.exists() {
            return Err(PkgError::Command(format!(
                "{shown} does not exist on minion"
            )));
        }
        let r = self.call_apt(&["dpkg", "-I", shown.as_str()], false, None);
        if r.retcode != 0 {
            let mut msg = format!("Unable to get info for {shown}");
            if !r.stderr.is_empty() {
                msg.push_str(": ");
                msg.push_str(&r.stderr);
            }
            return Err(PkgError::Command(msg));
        }
        parse_dpkg_info(&r.stdout).map_err(|missing| {
            PkgError::Command(format!("Unable to get {} for {shown}", missing.join(", ")))
        })
    }

    fn install(&self, req: &InstallRequest) -> Result<Map, PkgError> {
        let opt = |k: &str| req.options.get(k);
        let ignore_epoch = opt("ignore_epoch").is_some_and(Value::is_truthy);
        let old_db = self.list_pkgs()?;
        let old = stringify(&old_db.current());

        // Salt refreshes before installing unless every pinned version is
        // already the candidate.
        let mut refresh = req.refresh;
        if refresh && !req.pkgs.is_empty() {
            refresh = false;
            for (name, ver) in &req.pkgs {
                let cand = self.latest_version(std::slice::from_ref(name), false, None, true)?;
                if ver.is_none() || cand.get(name) != ver.as_ref() {
                    refresh = true;
                    break;
                }
            }
        }

        let mut targets: Vec<String> = Vec::new();
        let mut downgrade: Vec<String> = Vec::new();
        let mut to_reinstall: IndexMap<String, String> = IndexMap::new();
        let mut errors: Vec<String> = Vec::new();
        let from_files = !req.sources.is_empty();

        let comparing: Vec<String> = req
            .pkgs
            .iter()
            .filter(|(_, v)| v.as_deref().is_some_and(|v| v.starts_with(['<', '>'])))
            .map(|(k, _)| k.clone())
            .collect();
        let available = if comparing.is_empty() {
            IndexMap::new()
        } else {
            self.list_repo_pkgs(&comparing)
        };

        let mut items: Vec<(Option<String>, String, Option<String>)> = Vec::new();
        if from_files {
            for path in &req.sources {
                let shown = path.display().to_string();
                let info = self.bin_pkg_info(path)?;
                items.push((Some(info.name), shown, Some(info.version)));
            }
        } else {
            for (name, ver) in &req.pkgs {
                items.push((Some(name.clone()), name.clone(), ver.clone()));
            }
        }
        for (pkgname, what, ver) in items {
            let pkgname = pkgname.unwrap_or_default();
            let Some(mut ver) = ver.filter(|v| !v.is_empty()) else {
                if !from_files && req.reinstall && old.contains_key(&pkgname) {
                    to_reinstall.insert(pkgname.clone(), pkgname.clone());
                } else {
                    targets.push(what);
                }
                continue;
            };
            let pkgstr = if from_files {
                what.clone()
            } else {
                ver = ver.trim_start_matches('=').to_string();
                if comparing.contains(&pkgname) {
                    let cands = available.get(&pkgname).cloned().unwrap_or_default();
                    let (oper, want) = version::split_comparison(&ver);
                    let oper = if oper.is_empty() {
                        "==".to_string()
                    } else {
                        oper
                    };
                    match cands
                        .iter()
                        .find(|c| version::compare(Scheme::Debian, c, &oper, &want, ignore_epoch))
                    {
                        Some(c) => ver = c.clone(),
                        None => {
                            errors.push(format!(
                                "No version matching '{pkgname}{ver}' could be found (available: {})",
                                if cands.is_empty() { "None".to_string() } else { cands.join(", ") }
                            ));
                            continue;
                        }
                    }
                }
                format!("{pkgname}={ver}")
            };
            let cver = old.get(&pkgname).cloned().unwrap_or_default();
            if req.reinstall
                && !cver.is_empty()
                && version::compare(Scheme::Debian, &ver, "==", &cver, false)
            {
                to_reinstall.insert(pkgname, pkgstr);
            } else if cver.is_empty() || self.cmp_ge(&ver, &cver) {
                targets.push(pkgstr);
            } else {
                downgrade.push(pkgstr);
            }
        }

        let mut prefix: Vec<String> = ["apt-get", "-q", "-y"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        if opt("force_yes").is_some_and(Value::is_truthy) {
            prefix.push("--force-yes".into());
        }
        if opt("force_conf_new").is_some_and(Value::is_truthy) {
            prefix.extend(["-o".into(), "DPkg::Options::=--force-confnew".into()]);
        } else {
            prefix.extend([
                "-o".into(),
                "DPkg::Options::=--force-confold".into(),
                "-o".into(),
                "DPkg::Options::=--force-confdef".into(),
            ]);
        }
        if let Some(rec) = opt("install_recommends") {
            prefix.push(
                if rec.is_truthy() {
                    "--install-recommends"
                } else {
                    "--no-install-recommends"
                }
                .into(),
            );
        }
        if opt("only_upgrade").is_some_and(Value::is_truthy) {
            prefix.push("--only-upgrade".into());
        }
        if req.skip_verify {
            prefix.push("--allow-unauthenticated".into());
        }
        if let (Some(repo), false) = (&req.fromrepo, from_files) {
            prefix.extend(["-t".into(), repo.clone()]);
        }
        prefix.push("install".into());

        let mut cmds: Vec<Vec<String>> = Vec::new();
        let mut all: Vec<String> = Vec::new();
        if !targets.is_empty() {
            all.extend(targets.iter().cloned());
            let mut c = prefix.clone();
            c.extend(targets.iter().cloned());
            cmds.push(c);
        }
        if !downgrade.is_empty() {
            let mut c = prefix.clone();
            if !from_files && !c.iter().any(|a| a == "--force-yes") {
                let at = c.len() - 1;
                c.insert(at, "--force-yes".into());
            }
            c.extend(downgrade.iter().cloned());
            cmds.push(c);
        }
        if !to_reinstall.is_empty() {
            all.extend(to_reinstall.keys().cloned());
            let mut c = prefix.clone();
            if !from_files {
                c.push("--reinstall".into());
            }
            c.extend(to_reinstall.values().cloned());
            cmds.push(c);
        }

        let mut changes = Map::default();
        if !cmds.is_empty() {
            if refresh {
                self.refresh_db()?;
            }
            let held: Vec<String> = self
                .selections()
                .into_iter()
                .filter(|(_, s)| s == "hold")
                .map(|(n, _)| n)
                .collect();
            let targeted: Vec<&str> = all
                .iter()
                .map(|x| x.split('=').next().unwrap_or(x))
                .collect();
            let to_unhold: Vec<String> = held
                .into_iter()
                .filter(|h| targeted.contains(&h.as_str()))
                .collect();
            if !to_unhold.is_empty() {
                self.set_selections(&to_unhold, "install");
            }
            for c in &cmds {
                let out = self.call_apt(c, true, None);
                if out.retcode != 0 && !out.stderr.is_empty() {
                    errors.push(out.stderr);
                }
            }
            let new = stringify(&self.list_pkgs()?.current());
            changes = compare_dicts(&old, &new);
            add_reinstall_changes(&mut changes, &old, &new, to_reinstall.keys());
            if !to_unhold.is_empty() {
                self.set_selections(&to_unhold, "hold");
            }
        }
        if !errors.is_empty() {
            return Err(PkgError::WithInfo {
                message: "Problem encountered installing package(s)".into(),
                errors,
                changes,
            });
        }
        Ok(changes)
    }

    fn remove(
        &self,
        params: &IndexMap<String, Option<String>>,
        purge: bool,
    ) -> Result<Map, PkgError> {
        let db = self.list_pkgs()?;
        let old = stringify(&db.current());
        let old_removed = stringify(&db.removed);
        let expand = |pool: &BTreeMap<String, String>| -> Vec<String> {
            let mut out = Vec::new();
            for p in params.keys() {
                if p.contains('*') {
                    out.extend(
                        pool.keys()
                            .filter(|k| brine_compile::matcher::glob::fnmatch(k, p))
                            .cloned(),
                    );
                } else if pool.contains_key(p) {
                    out.push(p.clone());
                }
            }
            out
        };
        let mut targets = expand(&old);
        if purge {
            targets.extend(expand(&old_removed));
        }
        if targets.is_empty() {
            return Ok(Map::default());
        }
        let mut argv: Vec<String> = vec!["apt-get".into(), "-q".into(), "-y".into()];
        argv.push(if purge { "purge" } else { "remove" }.into());
        argv.extend(targets);
        let out = self.call_apt(&argv, true, None);
        let errors = if out.retcode != 0 && !out.stderr.is_empty() {
            vec![out.stderr]
        } else {
            Vec::new()
        };
        let after = self.list_pkgs()?;
        let changes = compare_dicts(&old, &stringify(&after.current()));
        let ret = if purge {
            let mut m = Map::default();
            m.insert(
                "removed".into(),
                Value::Map(compare_dicts(&old_removed, &stringify(&after.removed))),
            );
            m.insert("installed".into(), Value::Map(changes));
            m
        } else {
            changes
        };
        if !errors.is_empty() {
            return Err(PkgError::WithInfo {
                message: "Problem encountered removing package(s)".into(),
                errors,
                changes: ret,
            });
        }
        Ok(ret)
    }

    fn can_unpurge(&self) -> bool {
        true
    }

    fn refresh_db_report(&self, failhard: bool) -> Result<Value, PkgError> {
        let (ret, errors) = parse_update(&self.update()?);
        if failhard && !errors.is_empty() {
            return Err(PkgError::Command(format!(
                "Error getting repos: {}",
                errors.join(", ")
            )));
        }
        Ok(Value::Map(ret))
    }

    fn list_upgrades(
        &self,
        dist_upgrade: bool,
        fromrepo: Option<&str>,
    ) -> Result<BTreeMap<String, String>, PkgError> {
        let mut argv: Vec<String> = vec!["apt-get".into(), "--just-print".into()];
        argv.push(
            if dist_upgrade {
                "dist-upgrade"
            } else {
                "upgrade"
            }
            .into(),
        );
        if let Some(repo) = fromrepo {
            argv.extend(["-o".into(), format!("APT::Default-Release={repo}")]);
        }
        let r = self.call_apt(&argv, false, None);
        if r.retcode != 0 {
            let mut msg = "Failed to get upgrades".to_string();
            if let Some(out) = [&r.stderr, &r.stdout].into_iter().find(|o| !o.is_empty()) {
                msg.push_str(": ");
                msg.push_str(out);
            }
            return Err(PkgError::Command(msg));
        }
        Ok(parse_just_print(&r.stdout))
    }

    fn upgrade(&self, options: &Map) -> Result<Map, PkgError> {
        let on = |k: &str| options.get(k).is_some_and(Value::is_truthy);
        let old = stringify(&self.list_pkgs()?.current());
        let mut argv: Vec<String> = vec!["apt-get".into(), "-q".into(), "-y".into()];
        let dpkg_opts: &[&str] = if on("force_conf_new") {
            &["--force-confnew"]
        } else {
            &["--force-confold", "--force-confdef"]
        };
        for o in dpkg_opts {
            argv.extend(["-o".into(), format!("DPkg::Options::={o}")]);
        }
        for (key, flag) in [
            ("force_yes", "--force-yes"),
            ("skip_verify", "--allow-unauthenticated"),
            ("download_only", "--download-only"),
            ("allow_downgrades", "--allow-downgrades"),
        ] {
            if on(key) {
                argv.push(flag.into());
            }
        }
        argv.push(
            if on("dist_upgrade") {
                "dist-upgrade"
            } else {
                "upgrade"
            }
            .into(),
        );
        let r = self.call_apt(&argv, true, None);
        let changes = compare_dicts(&old, &stringify(&self.list_pkgs()?.current()));
        if r.retcode != 0 {
            return Err(PkgError::WithInfo {
                message: "Problem encountered upgrading packages".into(),
                errors: [r.stderr].into_iter().filter(|e| !e.is_empty()).collect(),
                changes,
            });
        }
        Ok(changes)
    }

    /// Salt's aptpkg `hold` / `unhold` over dpkg's selections: a package
    /// is held when its selection state is `hold`.
    fn hold(
        &self,
        targets: &[String],
        on: bool,
        test: bool,
    ) -> Result<IndexMap<String, HoldAnswer>, PkgError> {
        let mut ret = IndexMap::new();
        for target in targets {
            let sel = self.selections_matching(target);
            let held = sel.iter().any(|(_, s)| s == "hold");
            let answer = match (on, held) {
                (true, true) => HoldAnswer::new(
                    Some(true),
                    format!("Package {target} is already set to be held."),
                ),
                // dpkg knows no state for an unknown package; Salt holds
                // it anyway.
                (true, false) if test => {
                    HoldAnswer::new(None, format!("Package {target} is set to be held."))
                }
                (true, false) => HoldAnswer {
                    changes: self.set_state(target, "hold")?,
                    ..HoldAnswer::new(Some(true), format!("Package {target} is now being held."))
                },
                (false, _) if sel.is_empty() => HoldAnswer::new(
                    Some(false),
                    format!("Package {target} does not have a state."),
                ),
                (false, true) if test => {
                    HoldAnswer::new(None, format!("Package {target} is set not to be held."))
                }
                (false, true) => HoldAnswer {
                    changes: self.set_state(target, "install")?,
                    ..HoldAnswer::new(
                        Some(true),
                        format!("Package {target} is no longer being held."),
                    )
                },
                (false, false) => HoldAnswer::new(
                    Some(true),
                    format!("Package {target} is already set not to be held."),
                ),
            };
            ret.insert(target.clone(), answer);
        }
        Ok(ret)
    }

    /// Salt's aptpkg `info_installed`: `failhard` (default True: no
    /// package known is an error) is its only keyword.
    fn info_installed(&self, names: &[String], mut kwargs: Map) -> Result<InfoInstalled, PkgError> {
        let failhard = kwargs
            .shift_remove("failhard")
            .is_none_or(|v| v.is_truthy());
        if let Some((k, v)) = kwargs.iter().next() {
            return Err(PkgError::Invocation(format!(
                "The following keyword arguments are not valid: {k}={}",
                v.to_python_str()
            )));
        }
        let mut argv: Vec<String> = vec![
            "dpkg-query".into(),
            "-W".into(),
            "-f".into(),
            INFO_FORMAT.into(),
        ];
        argv.extend(names.iter().cloned());
        let r = self.call_apt(&argv, false, None);
        let info = if r.retcode != 0 {
            if failhard {
                return Err(PkgError::Command(format!(
                    "Error getting packages information: {}",
                    r.stderr
                )));
            }
            Map::default()
        } else {
            parse_info(&r.stdout, &|pkg| {
                let install_date = install_time(pkg);
                (install_date, license(pkg))
            })
        };
        // dpkg-query fails for a package it does not know, and Salt keeps
        // that exit code as the call's even when it answers without it.
        let retcode = i32::from(names.iter().any(|n| !info.contains_key(n)));
        Ok(InfoInstalled { info, retcode })
    }

    fn unpurge(&self, names: &[String]) -> Option<Map> {
        if names.is_empty() {
            return Some(Map::default());
        }
        let before = self.list_pkgs().ok()?.purge_desired;
        self.set_selections(names, "install");
        let after = self.list_pkgs().ok()?.purge_desired;
        Some(compare_dicts(&stringify(&before), &stringify(&after)))
    }
}

/// What `dpkg-query` prints per package for `info_installed` (Salt's
/// `lowpkg.info` fields), each record ended by a marker line.
const INFO_FORMAT: &str = "package:${Package}\\nrevision:${binary:Revision}\\n\
architecture:${Architecture}\\nmaintainer:${Maintainer}\\nsummary:${Summary}\\n\
source:${source:Package}\\nversion:${Version}\\nsection:${Section}\\n\
installed_size:${Installed-size}\\nsize:${Size}\\nMD5:${MD5sum}\\nSHA1:${SHA1}\\n\
SHA256:${SHA256}\\norigin:${Origin}\\nhomepage:${Homepage}\\nstatus:${db:Status-Abbrev}\\n\
description:${Description}\\n\\n*/~^\\\\*\\n";

/// When the package was installed: its file list's mtime, ISO 8601 UTC.
fn install_time(pkg: &str) -> Option<String> {
    let meta = std::fs::metadata(format!("/var/lib/dpkg/info/{pkg}.list")).ok()?;
    let secs = meta
        .modified()
        .ok()?
        .duration_since(std::time::UNIX_EPOCH)
        .ok()?
        .as_secs();
    Some(format!(
        "{}Z",
        brine_host::time::iso_utc(i64::try_from(secs).ok()?)?
    ))
}

/// The `License:` fields of the package's machine-readable copyright file.
fn license(pkg: &str) -> Option<String> {
    let bytes = std::fs::read(format!("/usr/share/doc/{pkg}/copyright")).ok()?;
    let text = String::from_utf8_lossy(&bytes);
    let set: std::collections::BTreeSet<&str> = text
        .lines()
        .filter_map(|l| l.strip_prefix("License:"))
        .map(str::trim)
        .collect();
    (!set.is_empty()).then(|| set.into_iter().collect::<Vec<_>>().join(", "))
}

/// A package's install date and license, by name.
pub type InfoExtra<'a> = &'a dyn Fn(&str) -> (Option<String>, Option<String>);

/// `dpkg-query` records (see [`INFO_FORMAT`]) as `info_installed` answers
/// them: installed packages only, dpkg's keys renamed to Salt's common
/// ones, install date and license added (`extra` gives both by name).
pub fn parse_info(out: &str, extra: InfoExtra<'_>) -> Map {
    let mut ret = Map::default();
    for record in out.split("\n*/~^\\*") {
        let record = record.strip_prefix('\n').unwrap_or(record);
        if record.trim().is_empty() {
            continue;
        }
        let Some((fields, descr)) = record.split_once("\ndescription:") else {
            continue;
        };
        let mut data: Vec<(String, String)> = Vec::new();
        for line in fields.lines().map(str::trim).filter(|l| !l.is_empty()) {
            if let Some((k, v)) = line.split_once(':').filter(|(_, v)| !v.is_empty()) {
                data.push((k.to_string(), v.to_string()));
            }
        }
        let get = |k: &str| {
            data.iter()
                .find(|(key, _)| key == k)
                .map(|(_, v)| v.as_str())
        };
        let Some(name) = get("package").map(str::to_string) else {
            continue;
        };
        // Only packages really installed ("ii", "hi" ...) are answered.
        if get("status").unwrap_or("ii").chars().nth(1) != Some('i') {
            continue;
        }
        let (install_date, license) = extra(&name);
        let mut m = Map::default();
        for (k, v) in &data {
            let key = match k.as_str() {
                "package" => "name",
                "origin" => "vendor",
                "section" => "group",
                "maintainer" => "packager",
                "homepage" => "url",
                "status" | "installed_size" => continue,
                other => other,
            };
            m.insert(key.to_string(), Value::Str(v.clone()));
        }
        if let Some(d) = install_date {
            m.insert("install_date".into(), Value::Str(d));
        }
        m.insert("description".into(), Value::Str(descr.to_string()));
        if let Some(l) = license {
            m.insert("license".into(), Value::Str(l));
        }
        ret.insert(name, Value::Map(m));
    }
    ret
}

/// `apt-get update` output as Salt's `refresh_db` reports it, and the
/// indexes that failed.
pub fn parse_update(out: &str) -> (Map, Vec<String>) {
    let mut ret = Map::default();
    let mut errors = Vec::new();
    for line in out.lines() {
        let cols: Vec<&str> = line.split_whitespace().collect();
        let Some(first) = cols.first() else { continue };
        let mut ident = cols[1..].join(" ");
        if first.contains("Get") {
            // The download size at the end ("[1234 kB]") is not part of it.
            if ident.ends_with("B]") {
                if let Some(i) = ident.find(" [") {
                    ident.truncate(i);
                }
            }
            ret.insert(ident, Value::Bool(true));
        } else if first.contains("Ign") {
            ret.insert(ident, Value::Bool(false));
        } else if first.contains("Hit") {
            ret.insert(ident, Value::Null);
        } else if first.contains("Err") {
            ret.insert(ident.clone(), Value::Bool(false));
            errors.push(ident);
        }
    }
    (ret, errors)
}

/// `apt-get --just-print` output: the version each `Conf` line configures.
pub fn parse_just_print(out: &str) -> BTreeMap<String, String> {
    out.lines()
        .filter_map(|l| {
            let rest = l.strip_prefix("Conf ")?;
            let (name, rest) = rest.split_once(' ')?;
            let ver = rest.strip_prefix('(')?.split(' ').next()?;
            (!name.is_empty() && !ver.is_empty()).then(|| (name.to_string(), ver.to_string()))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_dpkg_query() {
        let out = "install ok installed adduser 3.134 all\n\
                   install ok installed libc6 2.36-9 amd64\n\
                   install ok installed libc6 2.36-9 i386\n\
                   deinstall ok config-files oldpkg 1.0 amd64\n\
                   purge ok installed gone 2.0 amd64\n\
                   install ok triggers-pending trig 1 amd64\n\
                   short line\n";
        let db = parse_dpkg_query(out, "amd64", "x86_64");
        assert_eq!(
            db.installed.get("adduser"),
            Some(&vec!["3.134".to_string()])
        );
        assert!(db.installed.contains_key("libc6:i386"));
        assert!(!db.installed.contains_key("trig"));
        assert_eq!(db.removed.get("oldpkg"), Some(&vec!["1.0".to_string()]));
        assert_eq!(db.purge_desired.get("gone"), Some(&vec!["2.0".to_string()]));
        assert!(db.current().contains_key("gone"));
    }

    #[test]
    fn parses_apt_cache_and_dpkg_info() {
        let policy = "sl:\n  Installed: (none)\n  Candidate: 5.02-1+b1\n  Version table:\n     5.02-1+b1 500\n\
                      nosuch:\n  Installed: (none)\n  Candidate: (none)\n";
        let names = vec!["sl".to_string(), "nosuch".to_string()];
        let c = parse_policy(policy, &names).unwrap_or_default();
        assert_eq!(c.get("sl").map(String::as_str), Some("5.02-1+b1"));
        assert_eq!(c.get("nosuch").map(String::as_str), Some(""));
        let show =
            "Package: sl\nVersion: 5.02-1+b1\nDescription: x\n\nPackage: sl\nVersion: 5.01\n";
        assert_eq!(
            parse_show(show).get("sl").unwrap(),
            &vec!["5.02-1+b1".to_string(), "5.01".to_string()]
        );
        let info = " new Debian package, version 2.0.\n Package: brine-test-pkg\n Version: 1.0\n Architecture: all\n";
        let i = parse_dpkg_info(info).unwrap();
        assert_eq!(
            (i.name.as_str(), i.version.as_str(), i.arch.as_str()),
            ("brine-test-pkg", "1.0", "all")
        );
        assert_eq!(
            parse_dpkg_info(" Package: x\n").unwrap_err(),
            vec!["version", "arch"]
        );
        let apt = Apt::new(Some("amd64".into()), Some("x86_64".into()), None);
        assert_eq!(apt.normalize_name("vim:amd64"), "vim");
        assert_eq!(apt.normalize_name("vim:i386"), "vim:i386");
    }

    #[test]
    fn parses_update_upgrades_and_package_info() {
        let update = "Hit:1 http://deb.debian.org/debian bookworm InRelease\n\
                      Get:2 http://deb.debian.org/debian bookworm-updates InRelease [55.4 kB]\n\
                      Ign:3 http://example.invalid/repo stable InRelease\n\
                      Err:4 http://example.invalid/repo stable Release\n\
                      Reading package lists...\n";
        let (ret, errors) = parse_update(update);
        assert_eq!(
            serde_json::to_string(&Value::Map(ret).to_json()).unwrap(),
            r#"{"http://deb.debian.org/debian bookworm InRelease":null,"http://deb.debian.org/debian bookworm-updates InRelease":true,"http://example.invalid/repo stable InRelease":false,"http://example.invalid/repo stable Release":false}"#
        );
        assert_eq!(errors, vec!["http://example.invalid/repo stable Release"]);

        let just_print = "Inst libc6 [2.36-9] (2.36-9+deb12u4 Debian:12.5/stable [amd64])\n\
                          Conf libc6 (2.36-9+deb12u4 Debian:12.5/stable [amd64])\n\
                          Conf tzdata (2024a-0+deb12u1 Debian:12.5/stable [all])\n";
        let ups = parse_just_print(just_print);
        assert_eq!(ups.get("libc6").map(String::as_str), Some("2.36-9+deb12u4"));
        assert_eq!(ups.len(), 2);

        let info = "package:hello\nrevision:\narchitecture:amd64\nmaintainer:Me <me@x>\n\
                    version:2.10-3\nsection:devel\ninstalled_size:280\nstatus:ii \n\
                    description:say hello\n long text\n\n*/~^\\*\n\
                    package:gone\nversion:1\nstatus:rc \ndescription:removed\n\n*/~^\\*\n";
        let m = parse_info(info, &|_| (Some("2024-01-02T03:04:05Z".into()), None));
        assert_eq!(m.len(), 1, "only installed packages");
        let hello = m.get("hello").and_then(Value::as_map).unwrap();
        assert_eq!(hello.get("name"), Some(&Value::Str("hello".into())));
        assert_eq!(hello.get("group"), Some(&Value::Str("devel".into())));
        assert_eq!(hello.get("packager"), Some(&Value::Str("Me <me@x>".into())));
        assert_eq!(hello.get("revision"), None, "empty fields are left out");
        assert_eq!(hello.get("installed_size"), None);
        assert_eq!(
            hello.get("description"),
            Some(&Value::Str("say hello\n long text\n".into()))
        );
    }
}
