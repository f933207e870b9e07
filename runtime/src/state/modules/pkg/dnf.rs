//! The RedHat provider: `rpm` for what is installed, `dnf5`, `dnf` or
//! `yum` (the first found) for the repositories, as Salt's `yumpkg`
//! execution module runs them. (No RedHat host is at hand where brine is
//! built: the parsing is unit-tested, the commands follow Salt's.)

use super::{
    add_reinstall_changes, compare_dicts, stringify, BinPkgInfo, InstallRequest, PkgDb, PkgError,
    PkgProvider, ProviderError,
};
use crate::exec::CommandResult;
use crate::state::modules::pkg::version::{self, Scheme};
use crate::state::modules::user::support::{run_argv, which};
use brine_core::{Map, Value};
use indexmap::IndexMap;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

const ARCHES_32: [&str; 4] = ["i386", "i486", "i586", "i686"];
const ARCHES_ARM_32: [&str; 7] = [
    "armv5tel",
    "armv5tejl",
    "armv6l",
    "armv6hl",
    "armv7l",
    "armv7hl",
    "armv7hnl",
];
const ARCHES: [&str; 40] = [
    "x86_64",
    "athlon",
    "amd64",
    "ia32e",
    "ia64",
    "geode",
    "i386",
    "i486",
    "i586",
    "i686",
    "ppc",
    "ppc64",
    "ppc64le",
    "ppc64iseries",
    "ppc64pseries",
    "s390",
    "s390x",
    "alpha",
    "alphaev4",
    "alphaev45",
    "alphaev5",
    "alphaev56",
    "alphapca56",
    "alphaev6",
    "alphaev67",
    "alphaev68",
    "alphaev7",
    "armv5tel",
    "armv5tejl",
    "armv6l",
    "armv6hl",
    "armv7l",
    "armv7hl",
    "armv7hnl",
    "aarch64",
    "sh3",
    "sh4",
    "sh4a",
    "noarch",
    "src",
];

const QUERYFORMAT: &str =
    "%{NAME}_|-%{EPOCH}_|-%{VERSION}_|-%{RELEASE}_|-%{ARCH}_|-(none)_|-%{INSTALLTIME}\n";

/// Runs one command (argv, extra environment): its result, or why it
/// could not run. Tests put a fake in its place.
pub type Runner =
    Arc<dyn Fn(&[String], &[(&str, &str)]) -> Result<CommandResult, String> + Send + Sync>;

#[derive(Clone)]
pub struct Dnf {
    /// `dnf5`, `dnf` or `yum`.
    pub bin: String,
    pub osarch: String,
    pub rtag: Option<PathBuf>,
    run: Runner,
}

impl std::fmt::Debug for Dnf {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Dnf")
            .field("bin", &self.bin)
            .field("osarch", &self.osarch)
            .field("rtag", &self.rtag)
            .finish_non_exhaustive()
    }
}

/// The real command runner.
fn run_real(argv: &[String], env: &[(&str, &str)]) -> Result<CommandResult, String> {
    run_argv(argv, env, None).map_err(|e| e.to_string())
}

/// Both sides 32-bit x86, or both 32-bit ARM.
fn check_32(arch: &str, osarch: &str) -> bool {
    (ARCHES_32.contains(&arch) && ARCHES_32.contains(&osarch))
        || (ARCHES_ARM_32.contains(&arch) && ARCHES_ARM_32.contains(&osarch))
}

/// Salt's `resolve_name`: a package of a foreign architecture is
/// `name.arch`.
pub fn resolve_name(name: &str, arch: &str, osarch: &str) -> String {
    if !check_32(arch, osarch) && arch != osarch && arch != "noarch" {
        format!("{name}.{arch}")
    } else {
        name.to_string()
    }
}

/// `rpm -qa` output in [`QUERYFORMAT`] as installed versions
/// (`[epoch:]version-release`).
pub fn parse_rpm_qa(out: &str, osarch: &str) -> PkgDb {
    let mut db = PkgDb::default();
    for line in out.lines() {
        let f: Vec<&str> = line.split("_|-").collect();
        let [name, epoch, ver, release, arch, _repo, _time] = f.as_slice() else {
            continue;
        };
        let mut v = ver.to_string();
        if !release.is_empty() {
            v = format!("{v}-{release}");
        }
        if *epoch != "(none)" && *epoch != "0" {
            v = format!("{epoch}:{v}");
        }
        db.installed
            .entry(resolve_name(name, arch, osarch))
            .or_default()
            .push(v);
    }
    for v in db.installed.values_mut() {
        v.sort();
    }
    db
}

/// `(name, version)` pairs from `dnf list available` style output:
/// `name.arch  version  repo` triples, header lines dropped.
pub fn parse_list_available(out: &str, osarch: &str) -> Vec<(String, String, String)> {
    const HEADERS: [&str; 5] = [
        "installed packages",
        "available packages",
        "available upgrades",
        "updated packages",
        "upgraded packages",
    ];
    let words: Vec<&str> = out
        .lines()
        .filter(|l| !HEADERS.contains(&l.trim().to_lowercase().as_str()))
        .flat_map(str::split_whitespace)
        .collect();
    words
        .chunks(3)
        .filter(|c| c.len() == 3)
        .map(|c| {
            let (name, arch) = match c[0].rsplit_once('.') {
                Some((n, a)) => (n, a),
                None => (c[0], osarch),
            };
            (
                resolve_name(name, arch, osarch),
                c[1].trim_end_matches('-').to_string(),
                arch.to_string(),
            )
        })
        .collect()
}

impl Dnf {
    /// The first of dnf5, dnf, yum found on PATH.
    pub fn detect(osarch: Option<String>, rtag: Option<PathBuf>) -> Result<Dnf, ProviderError> {
        let bin = ["dnf5", "dnf", "yum"]
            .into_iter()
            .find(|b| which(b).is_some())
            .ok_or(ProviderError::NoDnf)?;
        let osarch = osarch.unwrap_or_else(|| {
            run_argv(&["rpm", "--eval", "%{_host_cpu}"], &[], None)
                .map(|r| r.stdout.trim().to_string())
                .unwrap_or_default()
        });
        Ok(Dnf::new(bin, osarch, rtag))
    }

    /// A provider running `bin`.
    pub fn new(bin: &str, osarch: String, rtag: Option<PathBuf>) -> Dnf {
        Dnf {
            bin: bin.to_string(),
            osarch,
            rtag,
            run: Arc::new(run_real),
        }
    }

    /// This provider with its commands run by `run` instead.
    pub fn with_runner(self, run: Runner) -> Dnf {
        Dnf { run, ..self }
    }

    /// Run a command line (not only `bin`: `rpm` too).
    fn exec<S: AsRef<str>>(
        &self,
        argv: &[S],
        env: &[(&str, &str)],
    ) -> Result<CommandResult, String> {
        let argv: Vec<String> = argv.iter().map(|a| a.as_ref().to_string()).collect();
        (self.run)(&argv, env)
    }

    /// Run `bin` with `args`; a command that could not run answers 127.
    fn call<S: AsRef<str>>(&self, args: &[S]) -> CommandResult {
        let mut argv = vec![self.bin.clone()];
        argv.extend(args.iter().map(|a| a.as_ref().to_string()));
        self.exec(&argv, &[]).unwrap_or_else(|e| CommandResult {
            retcode: 127,
            stderr: e,
            ..Default::default()
        })
    }

    /// `refresh_db`: expire the cache and check for updates.
    fn refresh_db(&self) {
        if let Some(t) = &self.rtag {
            let _ = std::fs::remove_file(t);
        }
        self.call(&["--quiet", "--assumeyes", "clean", "expire-cache"]);
        self.call(&["--quiet", "--assumeyes", "check-update"]);
    }

    /// `name.arch` split when the suffix is a known architecture.
    fn split_arch<'a>(&self, name: &'a str) -> (&'a str, String) {
        match name.rsplit_once('.') {
            Some((n, a)) if ARCHES.contains(&a) => (n, format!(".{a}")),
            _ => (name, String::new()),
        }
    }
}

impl PkgProvider for Dnf {
    fn scheme(&self) -> Scheme {
        Scheme::Rpm
    }

    fn os_family(&self) -> &'static str {
        "RedHat"
    }

    fn normalize_name(&self, name: &str) -> String {
        match name.rsplit_once('.') {
            Some((n, a)) if a == "noarch" || a == self.osarch || check_32(a, &self.osarch) => {
                n.to_string()
            }
            _ => name.to_string(),
        }
    }

    fn list_pkgs(&self) -> Result<PkgDb, PkgError> {
        let r = self
            .exec(
                &[
                    "rpm",
                    "-qa",
                    "--nodigest",
                    "--nosignature",
                    "--queryformat",
                    QUERYFORMAT,
                ],
                &[],
            )
            .map_err(PkgError::Command)?;
        Ok(parse_rpm_qa(&r.stdout, &self.osarch))
    }

    fn latest_version(
        &self,
        names: &[String],
        refresh: bool,
        _fromrepo: Option<&str>,
        _show_installed: bool,
    ) -> Result<IndexMap<String, String>, PkgError> {
        let mut ret: IndexMap<String, String> =
            names.iter().map(|n| (n.clone(), String::new())).collect();
        if names.is_empty() {
            return Ok(ret);
        }
        if refresh {
            self.refresh_db();
        }
        let cur = self.list_pkgs()?.installed;
        let mut args: Vec<String> = vec!["--quiet".into(), "list".into(), "available".into()];
        args.extend(names.iter().cloned());
        let out = self.call(&args);
        let mut updates = if out.retcode == 0 {
            parse_list_available(&out.stdout, &self.osarch)
        } else {
            Vec::new()
        };
        updates.sort_by(|a, b| version::rpm_label_cmp(&b.1, &a.1));
        for name in names {
            let found = updates.iter().find(|(n, v, arch)| {
                n == name
                    && (arch == "noarch" || *arch == self.osarch || check_32(arch, &self.osarch))
                    && !cur.get(name).is_some_and(|iv| {
                        iv.iter()
                            .any(|i| version::compare(Scheme::Rpm, i, ">=", v, false))
                    })
            });
            if let Some((_, v, _)) = found {
                ret.insert(name.clone(), v.clone());
            }
        }
        Ok(ret)
    }

    fn list_repo_pkgs(&self, targets: &[String]) -> IndexMap<String, Vec<String>> {
        let mut args: Vec<String> = vec!["--quiet".into(), "list".into(), "available".into()];
        args.extend(
            targets
                .iter()
                .map(|t| t.split(['=', '<', '>']).next().unwrap_or(t).to_string()),
        );
        let out = self.call(&args);
        let mut ret: IndexMap<String, Vec<String>> = IndexMap::new();
        for (n, v, _) in parse_list_available(&out.stdout, &self.osarch) {
            ret.entry(n).or_default().push(v);
        }
        ret
    }

    fn bin_pkg_info(&self, path: &Path) -> Result<BinPkgInfo, PkgError> {
        let shown = path.display().to_string();
        if !path.exists() {
            return Err(PkgError::Command(format!(
                "{shown} does not exist on minion"
            )));
        }
        let r = self
            .exec(
                &[
                    "rpm",
                    "-qp",
                    "--queryformat",
                    "%{NAME}_|-%{EPOCH}_|-%{VERSION}_|-%{RELEASE}_|-%{ARCH}",
                    shown.as_str(),
                ],
                &[],
            )
            .map_err(PkgError::Command)?;
        let f: Vec<&str> = r.stdout.trim().split("_|-").collect();
        let [name, epoch, ver, release, arch] = f.as_slice() else {
            return Err(PkgError::Command(format!("Unable to get info for {shown}")));
        };
        let mut v = format!("{ver}-{release}");
        if *epoch != "(none)" && *epoch != "0" {
            v = format!("{epoch}:{v}");
        }
        Ok(BinPkgInfo {
            name: resolve_name(name, arch, &self.osarch),
            version: v,
            arch: arch.to_string(),
        })
    }

    fn install(&self, req: &InstallRequest) -> Result<Map, PkgError> {
        let ignore_epoch = req
            .options
            .get("ignore_epoch")
            .is_some_and(Value::is_truthy);
        if req.refresh {
            self.refresh_db();
        }
        let old_list = self.list_pkgs()?.installed;
        let old = stringify(&old_list);
        let mut to_install: Vec<String> = Vec::new();
        let mut to_downgrade: Vec<String> = Vec::new();
        let mut to_reinstall: Vec<(String, String)> = Vec::new();
        let mut errors: Vec<String> = Vec::new();
        let mut items: Vec<(String, String, Option<String>)> = Vec::new();
        for path in &req.sources {
            let info = self.bin_pkg_info(path)?;
            items.push((info.name, path.display().to_string(), Some(info.version)));
        }
        for (name, ver) in &req.pkgs {
            items.push((name.clone(), name.clone(), ver.clone()));
        }
        let from_files = !req.sources.is_empty();
        let comparing: Vec<String> = req
            .pkgs
            .iter()
            .filter(|(_, v)| {
                v.as_deref()
                    .is_some_and(|v| v.starts_with(['<', '>']) || v.contains('*'))
            })
            .map(|(k, _)| k.clone())
            .collect();
        let available = if comparing.is_empty() {
            IndexMap::new()
        } else {
            self.list_repo_pkgs(&comparing)
        };
        for (pkgname, what, ver) in items {
            let Some(mut ver) = ver.filter(|v| !v.is_empty()) else {
                if !from_files && req.reinstall && old.contains_key(&pkgname) {
                    to_reinstall.push((pkgname.clone(), pkgname));
                } else {
                    to_install.push(what);
                }
                continue;
            };
            let pkgstr = if from_files {
                what
            } else {
                ver = ver.trim_start_matches('=').to_string();
                let cands = available.get(&pkgname).cloned().unwrap_or_default();
                if ver.starts_with(['<', '>']) {
                    let (oper, want) = version::split_comparison(&ver);
                    match cands
                        .iter()
                        .find(|c| version::compare(Scheme::Rpm, c, &oper, &want, ignore_epoch))
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
                if ver.contains('*') {
                    match cands
                        .iter()
                        .find(|c| brine_compile::matcher::glob::fnmatch(c, &ver))
                    {
                        Some(c) => ver = c.clone(),
                        None => {
                            errors.push(format!(
                                "No version matching '{ver}' found for package '{pkgname}' (available: {})",
                                if cands.is_empty() { "none".to_string() } else { cands.join(", ") }
                            ));
                            continue;
                        }
                    }
                }
                let (base, arch) = self.split_arch(&pkgname);
                let shown = if ignore_epoch {
                    ver.clone()
                } else {
                    ver.split_once(':')
                        .map(|(_, r)| r.to_string())
                        .unwrap_or_else(|| ver.clone())
                };
                format!("{base}-{shown}{arch}")
            };
            let cver = old_list.get(&pkgname).cloned().unwrap_or_default();
            if req.reinstall && !cver.is_empty() {
                if cver
                    .iter()
                    .any(|c| version::compare(Scheme::Rpm, &ver, "==", c, ignore_epoch))
                {
                    to_reinstall.push((pkgname, pkgstr));
                }
            } else if cver.is_empty()
                || cver
                    .iter()
                    .any(|c| version::compare(Scheme::Rpm, &ver, ">=", c, ignore_epoch))
                || pkgname == "kernel"
                || pkgname == "kernel-devel"
            {
                to_install.push(pkgstr);
            } else {
                to_downgrade.push(pkgstr);
            }
        }
        let mut common: Vec<String> = Vec::new();
        if let Some(repo) = &req.fromrepo {
            common.extend([
                "--disablerepo=*".to_string(),
                format!("--enablerepo={repo}"),
            ]);
        }
        if req.skip_verify {
            common.push("--nogpgcheck".into());
        }
        let mut run = |verb: &str, targets: Vec<String>, best: bool| {
            if targets.is_empty() {
                return;
            }
            let mut args = vec!["-y".to_string()];
            if best && self.bin == "dnf" {
                args.extend(["--best".into(), "--allowerasing".into()]);
            }
            args.extend(common.iter().cloned());
            args.push(verb.into());
            if best && self.bin == "dnf5" {
                args.extend(["--best".into(), "--allowerasing".into()]);
            }
            args.extend(targets);
            let out = self.call(&args);
            if out.retcode != 0 {
                // Salt reads these with stderr folded into stdout.
                errors.push(
                    [out.stdout, out.stderr]
                        .iter()
                        .filter(|s| !s.is_empty())
                        .cloned()
                        .collect::<Vec<_>>()
                        .join("\n"),
                );
            }
        };
        let reinstall_names: Vec<String> = to_reinstall.iter().map(|(n, _)| n.clone()).collect();
        run("install", to_install, true);
        run("downgrade", to_downgrade, false);
        run(
            "reinstall",
            to_reinstall.into_iter().map(|(_, s)| s).collect(),
            false,
        );
        let new = stringify(&self.list_pkgs()?.installed);
        let mut changes = compare_dicts(&old, &new);
        add_reinstall_changes(&mut changes, &old, &new, &reinstall_names);
        if !errors.is_empty() {
            return Err(PkgError::WithInfo {
                message: format!(
                    "Error occurred installing{} package(s)",
                    if reinstall_names.is_empty() {
                        ""
                    } else {
                        "/reinstalling"
                    }
                ),
                errors,
                changes,
            });
        }
        Ok(changes)
    }

    fn remove(
        &self,
        params: &IndexMap<String, Option<String>>,
        _purge: bool,
    ) -> Result<Map, PkgError> {
        let old = stringify(&self.list_pkgs()?.installed);
        let mut targets = Vec::new();
        for (p, ver) in params {
            let names: Vec<String> = if p.contains('*') {
                old.keys()
                    .filter(|k| brine_compile::matcher::glob::fnmatch(k, p))
                    .cloned()
                    .collect()
            } else {
                vec![p.clone()]
            };
            for name in names {
                let Some(cur) = old.get(&name) else { continue };
                match ver.as_deref().filter(|v| !v.is_empty()) {
                    None => targets.push(name),
                    Some(v) if cur.split(',').any(|c| c == v) => {
                        let (base, arch) = self.split_arch(&name);
                        let v = v.split_once(':').map(|(_, r)| r).unwrap_or(v);
                        targets.push(format!("{base}-{v}{arch}"));
                    }
                    Some(_) => {}
                }
            }
        }
        if targets.is_empty() {
            return Ok(Map::new());
        }
        let mut args = vec!["-y".to_string(), "remove".to_string()];
        args.extend(targets);
        let out = self.call(&args);
        let errors = if out.retcode != 0 && !out.stderr.is_empty() {
            vec![out.stderr]
        } else {
            Vec::new()
        };
        let changes = compare_dicts(&old, &stringify(&self.list_pkgs()?.installed));
        if !errors.is_empty() {
            return Err(PkgError::WithInfo {
                message: "Error occurred removing package(s)".into(),
                errors,
                changes,
            });
        }
        Ok(changes)
    }

    fn refresh_db_report(&self, _failhard: bool) -> Result<Value, PkgError> {
        if let Some(t) = &self.rtag {
            let _ = std::fs::remove_file(t);
        }
        self.call(&["--quiet", "--assumeyes", "clean", "expire-cache"]);
        // check-update exits 100 when updates wait, 0 when none do.
        let r = self.call(&["--quiet", "--assumeyes", "check-update"]);
        Ok(match r.retcode {
            100 => Value::Bool(true),
            0 => Value::Null,
            _ => Value::Bool(false),
        })
    }

    fn list_upgrades(
        &self,
        _dist_upgrade: bool,
        fromrepo: Option<&str>,
    ) -> Result<BTreeMap<String, String>, PkgError> {
        let mut args: Vec<String> = vec!["--quiet".into()];
        if let Some(repo) = fromrepo {
            args.extend(["--disablerepo=*".into(), format!("--enablerepo={repo}")]);
        }
        args.push("list".into());
        args.push(
            if self.bin == "yum" {
                "updates"
            } else {
                "--upgrades"
            }
            .into(),
        );
        let r = self.call(&args);
        Ok(parse_list_available(&r.stdout, &self.osarch)
            .into_iter()
            .map(|(name, version, _)| (name, version))
            .collect())
    }

    fn upgrade(&self, options: &Map) -> Result<Map, PkgError> {
        let on = |k: &str| options.get(k).is_some_and(Value::is_truthy);
        let old = stringify(&self.list_pkgs()?.current());
        let mut args: Vec<String> = vec!["--quiet".into(), "-y".into()];
        if on("skip_verify") {
            args.push("--nogpgcheck".into());
        }
        if on("download_only") {
            args.push("--downloadonly".into());
        }
        args.push("upgrade".into());
        let r = self.call(&args);
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

    fn unpurge(&self, _names: &[String]) -> Option<Map> {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_rpm_and_dnf_output() {
        let qa = "bash_|-(none)_|-5.1.8_|-6.el9_|-x86_64_|-(none)_|-1700000000\n\
                  glibc_|-(none)_|-2.34_|-60.el9_|-i686_|-(none)_|-1700000000\n\
                  shadow-utils_|-2_|-4.9_|-8.el9_|-x86_64_|-(none)_|-1700000000\n\
                  junk\n";
        let db = parse_rpm_qa(qa, "x86_64");
        assert_eq!(
            db.installed.get("bash"),
            Some(&vec!["5.1.8-6.el9".to_string()])
        );
        assert!(db.installed.contains_key("glibc.i686"));
        assert_eq!(
            db.installed.get("shadow-utils"),
            Some(&vec!["2:4.9-8.el9".to_string()])
        );
        let avail = "Available Packages\nnginx.x86_64   1:1.20.1-14.el9   appstream\ntree.noarch 1.8.0-10.el9 baseos\n";
        let a = parse_list_available(avail, "x86_64");
        assert_eq!(
            a[0],
            (
                "nginx".to_string(),
                "1:1.20.1-14.el9".to_string(),
                "x86_64".to_string()
            )
        );
        assert_eq!(a[1].0, "tree");
        let d = Dnf::new("dnf", "x86_64".into(), None);
        assert_eq!(d.normalize_name("bash.x86_64"), "bash");
        assert_eq!(d.normalize_name("glibc.i686"), "glibc.i686");
        assert_eq!(d.split_arch("glibc.i686"), ("glibc", ".i686".to_string()));
    }

    #[test]
    fn commands_go_through_the_runner() {
        let seen = Arc::new(std::sync::Mutex::new(Vec::new()));
        let log = seen.clone();
        let d = Dnf::new("dnf", "x86_64".into(), None).with_runner(Arc::new(
            move |argv: &[String], _env: &[(&str, &str)]| {
                log.lock().map_err(|e| e.to_string())?.push(argv.to_vec());
                match argv.first().map(String::as_str) {
                    Some("rpm") => Ok(CommandResult {
                        stdout: "bash_|-(none)_|-5.1.8_|-9.el9_|-x86_64_|-(none)_|-1\n".into(),
                        ..Default::default()
                    }),
                    _ => Err("no such command".to_string()),
                }
            },
        ));
        let db = d.list_pkgs().unwrap();
        assert_eq!(
            db.installed.get("bash"),
            Some(&vec!["5.1.8-9.el9".to_string()])
        );
        let r = d.call(&["--quiet", "check-update"]);
        assert_eq!((r.retcode, r.stderr.as_str()), (127, "no such command"));
        let seen = seen.lock().unwrap();
        assert_eq!(seen[0][..2], ["rpm".to_string(), "-qa".to_string()]);
        assert_eq!(
            seen[1],
            ["dnf", "--quiet", "check-update"].map(String::from)
        );
    }
}
