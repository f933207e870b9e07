//! The RedHat provider: `rpm` for what is installed, `dnf5`, `dnf` or
//! `yum` (the first found) for the repositories and for holds (the
//! versionlock plugin), as Salt's `yumpkg` and `rpm_lowpkg` execution
//! modules run them. (No RedHat host is at hand where brine is built: the
//! parsing is unit-tested, the commands follow Salt's and are checked
//! through a fake command runner.)

use super::{
    add_reinstall_changes, compare_dicts, stringify, BinPkgInfo, HoldAnswer, InfoInstalled,
    InstallRequest, PkgDb, PkgError, PkgProvider, ProviderError,
};
use crate::modules::pkg::version::{self, Scheme};
use crate::modules::user::support::{run_argv, which};
use brine_compile::matcher::glob::fnmatch;
use brine_core::{Map, Value};
use brine_host::exec::CommandResult;
use indexmap::IndexMap;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, LazyLock};

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
    /// The package that gives this `bin` its `versionlock` command (see
    /// [`versionlock_pkg`]).
    pub versionlock_pkg: String,
    run: Runner,
}

impl std::fmt::Debug for Dnf {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Dnf")
            .field("bin", &self.bin)
            .field("osarch", &self.osarch)
            .field("rtag", &self.rtag)
            .field("versionlock_pkg", &self.versionlock_pkg)
            .finish_non_exhaustive()
    }
}

/// The real command runner.
fn run_real(argv: &[String], env: &[(&str, &str)]) -> Result<CommandResult, String> {
    run_argv(argv, env, None).map_err(|e| e.to_string())
}

/// Salt's `_versionlock_pkg`: the package whose `versionlock` command
/// `bin` uses, from the `os`, `osrelease` and `osmajorrelease` grains (a
/// release that is missing or not a number counts as a new one).
pub fn versionlock_pkg(bin: &str, grains: &Map) -> String {
    let number = |key: &str| {
        grains
            .get(key)
            .map(Value::to_python_str)
            .and_then(|v| v.trim().parse::<i64>().ok())
    };
    let os = grains
        .get("os")
        .map(Value::to_python_str)
        .unwrap_or_default();
    let name = if bin == "yum" {
        "yum-plugin-versionlock"
    } else if os.eq_ignore_ascii_case("fedora") {
        if number("osrelease").is_none_or(|r| r >= 26) {
            "python3-dnf-plugin-versionlock"
        } else {
            "python3-dnf-plugins-extras-versionlock"
        }
    } else if number("osmajorrelease").is_none_or(|r| r >= 8) {
        "python3-dnf-plugin-versionlock"
    } else {
        "python2-dnf-plugin-versionlock"
    };
    name.to_string()
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

/// The package-name part of a lock as Salt's yumpkg finds it in a
/// `versionlock list` line.
const LOCK_NAME: &str = r"[\w+]+(?:[.-][^-]+)*";

/// dnf's locks: `name-epoch:version-release.arch`.
static DNF_LOCK: LazyLock<Option<regex::Regex>> =
    LazyLock::new(|| regex::Regex::new(&format!(r"({LOCK_NAME}-\S+)")).ok());

/// yum's locks: `epoch:name-version-release.arch` (the second group
/// without the epoch).
static YUM_LOCK: LazyLock<Option<regex::Regex>> =
    LazyLock::new(|| regex::Regex::new(&format!(r"(\d+:({LOCK_NAME}-\S+))")).ok());

/// Salt's `_get_hold` for one line of `versionlock list` output: the lock
/// it shows (`yum`: with its epoch), or with `full` false the package
/// name alone; None for lines that show no lock.
pub fn lock_in_line(line: &str, yum: bool, full: bool) -> Option<String> {
    let re = if yum { &*YUM_LOCK } else { &*DNF_LOCK }.as_ref()?;
    let caps = re.captures(line)?;
    let lock = caps.get(if yum && !full { 2 } else { 1 })?.as_str();
    if full {
        return Some(lock.to_string());
    }
    let no_arch = before_last(lock, '.');
    let no_release = before_last(no_arch, '-');
    Some(before_last(no_release, '-').to_string())
}

/// What comes before the last `sep` in `text` (all of it when there is
/// none).
fn before_last(text: &str, sep: char) -> &str {
    text.rsplit_once(sep).map_or(text, |(a, _)| a)
}

/// The holds `versionlock list` output shows: package names (`full`
/// false), or the full lock expressions. dnf5 prints each lock as a
/// `Package name: NAME` block (its names are answered either way); dnf and
/// yum print one lock a line.
pub fn parse_versionlock_list(out: &str, bin: &str, full: bool) -> Vec<String> {
    if bin == "dnf5" {
        return out
            .lines()
            .filter_map(|l| l.trim().strip_prefix("Package name:"))
            .map(|n| n.trim().to_string())
            .filter(|n| !n.is_empty())
            .collect();
    }
    out.lines()
        .filter_map(|l| lock_in_line(l, bin == "yum", full))
        .collect()
}

/// Each attribute `lowpkg.info` can ask rpm for, with its `--queryformat`
/// text, in Salt's order (`size` takes the size tag rpm has).
const INFO_ATTRS: [(&str, &str); 22] = [
    ("name", r"name: %{NAME}\n"),
    (
        "relocations",
        r"relocations: %|PREFIXES?{[%{PREFIXES} ]}:{(not relocatable)}|\n",
    ),
    ("version", r"version: %{VERSION}\n"),
    ("vendor", r"vendor: %{VENDOR}\n"),
    ("release", r"release: %{RELEASE}\n"),
    ("epoch", r"%|EPOCH?{epoch: %{EPOCH}\n}|"),
    ("build_date_time_t", r"build_date_time_t: %{BUILDTIME}\n"),
    ("build_date", r"build_date: %{BUILDTIME}\n"),
    (
        "install_date_time_t",
        r"install_date_time_t: %|INSTALLTIME?{%{INSTALLTIME}}:{(not installed)}|\n",
    ),
    (
        "install_date",
        r"install_date: %|INSTALLTIME?{%{INSTALLTIME}}:{(not installed)}|\n",
    ),
    ("build_host", r"build_host: %{BUILDHOST}\n"),
    ("group", r"group: %{GROUP}\n"),
    ("source_rpm", r"source_rpm: %{SOURCERPM}\n"),
    ("size", r"size: %{SIZE_TAG}\n"),
    ("arch", r"arch: %{ARCH}\n"),
    ("license", r"%|LICENSE?{license: %{LICENSE}\n}|"),
    (
        "signature",
        r"signature: %|DSAHEADER?{%{DSAHEADER:pgpsig}}:{%|RSAHEADER?{%{RSAHEADER:pgpsig}}:{%|SIGGPG?{%{SIGGPG:pgpsig}}:{%|SIGPGP?{%{SIGPGP:pgpsig}}:{(none)}|}|}|}|\n",
    ),
    ("packager", r"%|PACKAGER?{packager: %{PACKAGER}\n}|"),
    ("url", r"%|URL?{url: %{URL}\n}|"),
    ("summary", r"summary: %{SUMMARY}\n"),
    ("description", r"description:\n%{DESCRIPTION}\n"),
    (
        "edition",
        r"edition: %|EPOCH?{%{EPOCH}:}|%{VERSION}-%{RELEASE}\n",
    ),
];

/// The `--queryformat` text of one attribute, if `lowpkg.info` knows it.
fn info_attr(key: &str, size_tag: &str) -> Option<String> {
    let (_, fmt) = INFO_ATTRS.iter().find(|(k, _)| *k == key)?;
    Some(fmt.replace("%{SIZE_TAG}", size_tag))
}

/// `lowpkg.info`'s `--queryformat` for the attributes `attr` (all when
/// None): name and edition always, the description last when asked, each
/// package ended by a dashed line. An `attr` naming nothing rpm can be
/// asked (the description alone counts as nothing) is an error.
pub fn info_query(attr: Option<&[String]>, size_tag: &str) -> Result<String, PkgError> {
    let mut query: Vec<String> = Vec::new();
    match attr {
        Some(attr) => {
            query.extend(
                attr.iter()
                    .filter(|k| k.as_str() != "description")
                    .filter_map(|k| info_attr(k, size_tag)),
            );
            if query.is_empty() {
                return Err(PkgError::Command("No valid attributes found.".into()));
            }
            for always in ["name", "edition"] {
                if !attr.iter().any(|k| k == always) {
                    query.extend(info_attr(always, size_tag));
                }
            }
        }
        None => query.extend(
            INFO_ATTRS
                .iter()
                .filter(|(k, _)| *k != "description")
                .filter_map(|(k, _)| info_attr(k, size_tag)),
        ),
    }
    if attr.is_none_or(|a| a.iter().any(|k| k == "description")) {
        query.extend(info_attr("description", size_tag));
    }
    query.push(r"-----\n".into());
    Ok(query.concat())
}

/// `text` cut at each run of three dashes or more (Salt splits rpm's
/// records so).
fn split_dashes(text: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    let mut start = 0;
    let mut run_start = None;
    for (i, c) in text.char_indices().chain([(text.len(), '\0')]) {
        match (c == '-' && i < text.len(), run_start) {
            (true, None) => run_start = Some(i),
            (true, Some(_)) => {}
            (false, Some(r)) => {
                if i - r >= 3 {
                    parts.push(&text[start..r]);
                    start = i;
                }
                run_start = None;
            }
            (false, None) => {}
        }
    }
    parts.push(&text[start..]);
    parts
}

/// One part of a version as Python's `LooseVersion` splits it.
#[derive(Debug, Clone, PartialEq)]
enum Loose {
    /// A number, its digits without leading zeros.
    Num(String),
    Text(String),
}

/// `LooseVersion(v).version`: runs of digits (numbers), runs of `a`-`z`,
/// and whatever lies between them, the dots left out.
fn loose_parts(v: &str) -> Vec<Loose> {
    #[derive(PartialEq, Clone, Copy)]
    enum Kind {
        Digit,
        Lower,
        Dot,
        Other,
    }
    let kind = |c: char| match c {
        '0'..='9' => Kind::Digit,
        'a'..='z' => Kind::Lower,
        '.' => Kind::Dot,
        _ => Kind::Other,
    };
    let mut parts = Vec::new();
    let mut chars = v.chars().peekable();
    while let Some(c) = chars.next() {
        let k = kind(c);
        if k == Kind::Dot {
            continue;
        }
        let mut run = String::from(c);
        while let Some(&n) = chars.peek() {
            if kind(n) != k {
                break;
            }
            run.push(n);
            chars.next();
        }
        parts.push(if k == Kind::Digit {
            let digits = run.trim_start_matches('0');
            Loose::Num(if digits.is_empty() { "0" } else { digits }.to_string())
        } else {
            Loose::Text(run)
        });
    }
    parts
}

/// Salt's `LooseVersion` comparison: numerically when both versions are
/// numbers only, else part by part as strings with the numbers padded to
/// eight digits.
fn loose_cmp(a: &[Loose], b: &[Loose]) -> std::cmp::Ordering {
    if a.iter().chain(b).all(|p| matches!(p, Loose::Num(_))) {
        let key = |v: &[Loose]| -> Vec<(usize, String)> {
            v.iter()
                .map(|p| match p {
                    Loose::Num(d) | Loose::Text(d) => (d.len(), d.clone()),
                })
                .collect()
        };
        return key(a).cmp(&key(b));
    }
    let key = |v: &[Loose]| -> Vec<String> {
        v.iter()
            .map(|p| match p {
                Loose::Num(d) => format!("{d:0>8}"),
                Loose::Text(t) => t.clone(),
            })
            .collect()
    };
    key(a).cmp(&key(b))
}

/// One package record of `lowpkg.info`.
struct RpmRecord {
    name: String,
    edition: Vec<Loose>,
    data: Map,
}

/// Salt's `lowpkg.info` parsing of [`info_query`] output, then
/// `pkg.info_installed`'s shaping: the newest version of each package
/// (or, `all_versions`, a list of every version, newest first, each with
/// its `edition`), dates as ISO 8601 UTC, `source_rpm` called `source`,
/// gpg-pubkey entries left out.
pub fn parse_rpm_info(out: &str, with_description: bool, all_versions: bool) -> Map {
    let mut records: Vec<RpmRecord> = Vec::new();
    for chunk in split_dashes(out) {
        let chunk = chunk.trim();
        if chunk.is_empty() {
            continue;
        }
        let mut lines: Vec<&str> = chunk.split('\n').collect();
        if lines
            .last()
            .is_some_and(|l| l.to_lowercase().starts_with("distribution"))
        {
            lines.pop();
        }
        let mut data = Map::default();
        let mut name: Option<String> = None;
        let mut descr: Option<Vec<&str>> = None;
        for line in lines {
            if let Some(d) = descr.as_mut() {
                d.push(line);
                continue;
            }
            let Some((key, value)) = line.split_once(':') else {
                continue;
            };
            let (key, value) = (key.trim(), value.trim());
            match key {
                "description" => descr = Some(Vec::new()),
                "name" => name = Some(value.to_string()),
                "build_date" | "install_date" => {
                    if let Some(iso) = value
                        .parse::<i64>()
                        .ok()
                        .and_then(brine_host::time::iso_utc)
                    {
                        data.insert(key.into(), Value::Str(format!("{iso}Z")));
                    }
                }
                "build_date_time_t" | "install_date_time_t" => {
                    if let Ok(n) = value.parse::<i64>() {
                        data.insert(key.into(), Value::Int(n));
                    }
                }
                _ if !value.is_empty() => {
                    data.insert(key.into(), Value::Str(value.into()));
                }
                _ => {}
            }
        }
        if with_description {
            let text = descr.unwrap_or_default().join("\n");
            data.insert("description".into(), Value::Str(text));
        }
        let Some(name) = name.filter(|n| !n.is_empty()) else {
            continue;
        };
        let edition = data
            .get("edition")
            .map(Value::to_python_str)
            .unwrap_or_default();
        records.push(RpmRecord {
            name,
            edition: loose_parts(&edition),
            data,
        });
    }
    // Oldest first, equal editions in output order (a stable sort, by
    // insertion so that no comparison can upset it), then taken newest
    // first.
    let mut sorted: Vec<RpmRecord> = Vec::with_capacity(records.len());
    for rec in records {
        let at = sorted.partition_point(|s| loose_cmp(&s.edition, &rec.edition).is_le());
        sorted.insert(at, rec);
    }
    let mut ret = Map::default();
    for rec in sorted.into_iter().rev() {
        if rec.name.starts_with("gpg-pubkey") {
            continue;
        }
        let mut data: Map = rec
            .data
            .into_iter()
            .map(|(k, v)| {
                let k = if k == "source_rpm" {
                    "source".into()
                } else {
                    k
                };
                (k, v)
            })
            .collect();
        match ret.get_mut(&rec.name) {
            Some(Value::List(versions)) if all_versions => versions.push(Value::Map(data)),
            Some(_) => {}
            None if all_versions => {
                ret.insert(rec.name, Value::List(vec![Value::Map(data)]));
            }
            None => {
                data.shift_remove("edition");
                ret.insert(rec.name, Value::Map(data));
            }
        }
    }
    ret
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

    /// A provider running `bin` (its versionlock package as on a current
    /// release; [`versionlock_pkg`] says which from the grains).
    pub fn new(bin: &str, osarch: String, rtag: Option<PathBuf>) -> Dnf {
        Dnf {
            bin: bin.to_string(),
            osarch,
            rtag,
            versionlock_pkg: versionlock_pkg(bin, &Map::default()),
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

    /// Salt's `list_holds`: the locks `versionlock list` shows (see
    /// [`parse_versionlock_list`]), read from its output and messages
    /// both, as `cmd.run` gives them.
    fn list_holds(&self, full: bool) -> Vec<String> {
        let r = self.call(&["versionlock", "list"]);
        let text = [r.stdout, r.stderr].join("\n");
        parse_versionlock_list(&text, &self.bin, full)
    }

    /// Hold one target, unless `held` already.
    fn lock(&self, target: &str, held: bool, test: bool) -> HoldAnswer {
        if held {
            return HoldAnswer::new(
                Some(true),
                format!("Package {target} is already set to be held."),
            );
        }
        if test {
            return HoldAnswer::new(None, format!("Package {target} is set to be held."));
        }
        // dnf and yum take a bare name as `add`, dnf5 wants the word.
        if self.call(&["versionlock", "add", target]).retcode != 0 {
            return HoldAnswer::new(
                Some(false),
                format!("Package {target} was unable to be held."),
            );
        }
        let mut changes = Map::default();
        changes.insert("new".into(), Value::Str("hold".into()));
        changes.insert("old".into(), Value::Str(String::new()));
        HoldAnswer {
            changes,
            ..HoldAnswer::new(Some(true), format!("Package {target} is now being held."))
        }
    }

    /// Delete the `locks` of one target (none: it is not held).
    fn unlock(&self, target: &str, locks: &[String], test: bool) -> HoldAnswer {
        if locks.is_empty() {
            return HoldAnswer::new(Some(true), format!("Package {target} is not being held."));
        }
        if test {
            return HoldAnswer::new(None, format!("Package {target} is set to be unheld."));
        }
        let mut args = vec!["versionlock".to_string(), "delete".to_string()];
        args.extend(locks.iter().cloned());
        if self.call(&args).retcode != 0 {
            return HoldAnswer::new(
                Some(false),
                format!("Package {target} was unable to be unheld."),
            );
        }
        let mut changes = Map::default();
        changes.insert("new".into(), Value::Str(String::new()));
        changes.insert("old".into(), Value::Str("hold".into()));
        HoldAnswer {
            changes,
            ..HoldAnswer::new(Some(true), format!("Package {target} is no longer held."))
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
                    match cands.iter().find(|c| fnmatch(c, &ver)) {
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
                old.keys().filter(|k| fnmatch(k, p)).cloned().collect()
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
            return Ok(Map::default());
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

    /// Salt's yumpkg refuses holds unless the versionlock plugin package
    /// is installed.
    fn hold_ready(&self) -> Result<(), PkgError> {
        if self
            .list_pkgs()?
            .current()
            .contains_key(&self.versionlock_pkg)
        {
            return Ok(());
        }
        Err(PkgError::Invocation(format!(
            "Cannot proceed, {} is not installed.",
            self.versionlock_pkg
        )))
    }

    /// Salt's yumpkg `hold` / `unhold` over the versionlock plugin: a
    /// package is held when `versionlock list` shows a lock of it.
    fn hold(
        &self,
        targets: &[String],
        on: bool,
        test: bool,
    ) -> Result<IndexMap<String, HoldAnswer>, PkgError> {
        let yum = self.bin == "yum";
        // yum's `versionlock delete` wants the whole lock expression.
        let locks = self.list_holds(!on && yum);
        let mut ret = IndexMap::new();
        for target in targets {
            let answer = if on {
                self.lock(target, locks.contains(target), test)
            } else {
                let matching: Vec<String> = locks
                    .iter()
                    .filter(|l| {
                        if yum {
                            fnmatch(l, &format!("*{target}*"))
                                && lock_in_line(l, true, false).as_ref() == Some(target)
                        } else {
                            *l == target
                        }
                    })
                    .cloned()
                    .collect();
                self.unlock(target, &matching, test)
            };
            ret.insert(target.clone(), answer);
        }
        Ok(ret)
    }

    /// Salt's yumpkg `info_installed` over `lowpkg.info`: keywords
    /// `all_versions`, `attr` (comma-separated attributes) and `root`;
    /// others are taken and ignored. rpm's exit code is not the call's.
    fn info_installed(&self, names: &[String], kwargs: Map) -> Result<InfoInstalled, PkgError> {
        let all_versions = kwargs.get("all_versions").is_some_and(Value::is_truthy);
        let attr: Option<Vec<String>> = kwargs
            .get("attr")
            .filter(|v| v.is_truthy())
            .map(|v| v.to_python_str().split(',').map(str::to_string).collect());
        let tags = self
            .exec(&["rpm", "--querytags"], &[])
            .map_err(PkgError::Command)?;
        // Older rpm has no LONGSIZE.
        let size_tag = if tags.stdout.lines().any(|l| l == "LONGSIZE") {
            "%{LONGSIZE}"
        } else {
            "%{SIZE}"
        };
        let query = info_query(attr.as_deref(), size_tag)?;
        let mut argv: Vec<String> = vec!["rpm".into()];
        if let Some(root) = kwargs.get("root").filter(|v| v.is_truthy()) {
            argv.extend(["--root".into(), root.to_python_str()]);
        }
        if names.is_empty() {
            argv.push("-qa".into());
        } else {
            argv.push("-q".into());
            argv.extend(names.iter().cloned());
        }
        argv.extend(["--queryformat".into(), query]);
        let r = self
            .exec(&argv, &[("TZ", "UTC")])
            .map_err(PkgError::Command)?;
        let with_description = attr
            .as_ref()
            .is_none_or(|a| a.iter().any(|k| k == "description"));
        Ok(InfoInstalled {
            info: parse_rpm_info(&r.stdout, with_description, all_versions),
            retcode: 0,
        })
    }

    fn unpurge(&self, _names: &[String]) -> Option<Map> {
        None
    }
}

#[cfg(test)]
mod tests;
