//! The host's pip, found and run as Salt's `pip` execution module runs
//! it: `bin_env` names a virtualenv (its python runs `-m pip`), a python
//! or a pip program; every run is an argv with the C locale, in `cwd` or
//! the running user's home, `VIRTUAL_ENV` set for a virtualenv.

use super::version::Version;
use brine_core::Value;
use brine_host::exec::{self, CommandResult, CommandSpec};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

/// Why pip gave no answer: Salt's `CommandExecutionError` text.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{0}")]
pub struct PipError(pub String);

/// One pip, and how it runs.
#[derive(Debug, Clone, Default)]
pub struct Pip {
    /// The program and the words before pip's own (`python -m pip`).
    argv: Vec<String>,
    /// The virtualenv `bin_env` named, if it named a folder.
    venv: Option<String>,
    pub user: Option<String>,
    pub cwd: Option<PathBuf>,
    /// `env_vars`: for list, freeze and install.
    pub env_vars: Vec<(String, String)>,
}

fn executable(p: &Path) -> bool {
    std::fs::metadata(p).is_ok_and(|m| m.permissions().mode() & 0o111 != 0)
}

/// Python's `os.path.normpath` for the absolute paths bin_env gives.
fn normpath(p: &Path) -> String {
    let mut out: Vec<&str> = Vec::new();
    for part in p.to_str().unwrap_or_default().split('/') {
        match part {
            "" | "." => {}
            ".." => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    let joined = out.join("/");
    if p.is_absolute() {
        format!("/{joined}")
    } else {
        joined
    }
}

impl Pip {
    /// Salt's `_get_pip_bin`: the pip `bin_env` names (none: the host's
    /// `python3 -m pip`).
    pub fn locate(bin_env: Option<&str>) -> Result<Pip, PipError> {
        let Some(bin_env) = bin_env.filter(|b| !b.is_empty()) else {
            return Ok(Pip {
                argv: vec!["python3".into(), "-m".into(), "pip".into()],
                ..Pip::default()
            });
        };
        let path = Path::new(bin_env);
        if path.is_dir() {
            for rel in ["python", "bin/python", "Scripts/python"] {
                let p = path.join(rel);
                if p.exists() && executable(&p) {
                    return Ok(Pip {
                        argv: vec![normpath(&p), "-m".into(), "pip".into()],
                        venv: Some(bin_env.to_string()),
                        ..Pip::default()
                    });
                }
            }
            return Err(PipError(format!(
                "Could not find a pip binary in virtualenv {bin_env}"
            )));
        }
        if executable(path) {
            if !path.is_file() {
                return Err(PipError(format!(
                    "Could not find a pip binary within {bin_env}"
                )));
            }
            let base = path
                .file_name()
                .and_then(|b| b.to_str())
                .unwrap_or_default();
            let mut argv = vec![bin_env.to_string()];
            if base.contains("python") {
                argv.extend(["-m".to_string(), "pip".to_string()]);
            }
            return Ok(Pip {
                argv,
                ..Pip::default()
            });
        }
        Err(PipError(format!(
            "Access denied to {bin_env}, could not find a pip binary"
        )))
    }

    /// `pip ARGS`: with `VIRTUAL_ENV` and `env_vars` when `scoped`.
    pub fn run(
        &self,
        args: &[String],
        scoped: bool,
        merged: bool,
    ) -> Result<CommandResult, PipError> {
        let mut argv = self.argv.clone();
        argv.extend(args.iter().cloned());
        let mut spec = CommandSpec::argv(&argv);
        spec.runas = self.user.clone();
        spec.merge_stderr = merged;
        spec.cwd = Some(self.cwd.clone().unwrap_or_else(|| self.home()));
        let mut env: Vec<(String, String)> = Vec::new();
        if scoped {
            if let Some(v) = &self.venv {
                env.push(("VIRTUAL_ENV".into(), v.clone()));
            }
            env.extend(self.env_vars.iter().cloned());
        }
        for k in crate::modules::cmd::C_LOCALE {
            if !env.iter().any(|(e, _)| e == k) {
                env.push((k.to_string(), "C".into()));
            }
        }
        spec.env = env;
        let mut r = exec::run(&spec).map_err(|e| PipError(e.to_string()))?;
        r.stdout = r.stdout.trim_end().to_string();
        r.stderr = r.stderr.trim_end().to_string();
        Ok(r)
    }

    /// The running user's home: pip's working folder unless `cwd` is set.
    fn home(&self) -> PathBuf {
        let name = match &self.user {
            Some(u) => Some(u.clone()),
            None => brine_host::accounts::user_by_uid(brine_host::accounts::euid()).map(|u| u.name),
        };
        name.and_then(|n| brine_host::accounts::user_by_name(&n))
            .map(|u| PathBuf::from(u.home))
            .unwrap_or_else(|| PathBuf::from("/"))
    }

    /// Salt's `pip.version`: the `pip --version` number.
    pub fn version(&self) -> Result<Option<String>, PipError> {
        let r = self.run(&["--version".into()], false, false)?;
        if r.retcode != 0 {
            return Err(PipError("Could not find a `pip` binary".into()));
        }
        let re = regex::Regex::new(r"(?m)^pip (\S+)").expect("a valid pattern");
        Ok(re.captures(&r.stdout).map(|c| c[1].to_string()))
    }

    /// Salt's `pip.list`: installed name → version, only names starting
    /// with PREFIX (case-insensitively) when given.
    pub fn list(&self, prefix: Option<&str>) -> Result<Vec<(String, String)>, PipError> {
        self.version()?;
        let args: Vec<String> = ["list", "--format=json"].map(String::from).to_vec();
        let r = self.run(&args, true, false)?;
        if r.retcode != 0 {
            return Err(PipError(r.stderr));
        }
        let parsed: serde_json::Value =
            serde_json::from_str(&r.stdout).map_err(|_| PipError("Invalid JSON".into()))?;
        let prefix = prefix.map(str::to_lowercase);
        Ok(parsed
            .as_array()
            .map(|a| a.as_slice())
            .unwrap_or_default()
            .iter()
            .filter_map(|e| {
                let name = e["name"].as_str()?.to_string();
                let version = e["version"].as_str()?.to_string();
                let keep = prefix
                    .as_deref()
                    .is_none_or(|p| name.to_lowercase().starts_with(p));
                keep.then_some((name, version))
            })
            .collect())
    }

    /// `pip freeze --all`: its lines.
    pub fn freeze(&self) -> Result<Vec<String>, PipError> {
        let args: Vec<String> = ["freeze", "--all"].map(String::from).to_vec();
        let r = self.run(&args, true, false)?;
        if r.retcode != 0 {
            return Err(PipError(r.stderr));
        }
        Ok(r.stdout.lines().map(str::to_string).collect())
    }

    /// Salt's `list_all_versions`: what `pip index versions` offers,
    /// oldest first (pre-releases only with `pre`).
    pub fn all_versions(
        &self,
        name: &str,
        pre: bool,
        index_url: Option<&str>,
        extra_index_url: Option<&str>,
    ) -> Result<Vec<String>, PipError> {
        let mut args: Vec<String> = vec!["index".into(), "versions".into(), name.into()];
        if let Some(u) = index_url {
            args.extend(["--index-url".into(), u.into()]);
        }
        if let Some(u) = extra_index_url {
            args.extend(["--extra-index-url".into(), u.into()]);
        }
        let r = self.run(&args, true, true)?;
        let re = regex::Regex::new(r"^\s*Available versions: (.*)").expect("a valid pattern");
        let Some(found) = r
            .stdout
            .lines()
            .find_map(|l| re.captures(l).map(|c| c[1].to_string()))
        else {
            return Ok(Vec::new());
        };
        let mut versions: Vec<(Version, String)> = found
            .split(", ")
            .filter(|v| pre || !(v.contains('a') || v.contains('b') || v.contains("rc")))
            .filter_map(|v| Version::parse(v).map(|p| (p, v.to_string())))
            .collect();
        versions.sort_by(|a, b| a.0.cmp(&b.0));
        Ok(versions.into_iter().map(|(_, v)| v).collect())
    }
}

/// How a function reads one of its arguments (a state's low chunk, an
/// execution call's keywords).
pub type Arg<'a> = &'a dyn Fn(&str) -> Option<&'a Value>;

/// A string argument (None when missing, None or empty).
pub fn string(arg: Arg<'_>, k: &str) -> Option<String> {
    arg(k)
        .filter(|v| !v.is_null())
        .map(Value::to_python_str)
        .filter(|s| !s.is_empty())
}

pub fn flag(arg: Arg<'_>, k: &str) -> bool {
    arg(k).is_some_and(Value::is_truthy)
}

/// A string split on commas, or a list (Salt's list-or-string arguments).
pub fn words(arg: Arg<'_>, k: &str) -> Vec<String> {
    match arg(k) {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::List(l)) => l.iter().map(Value::to_python_str).collect(),
        Some(v) => v
            .to_python_str()
            .split(',')
            .map(|s| s.trim().to_string())
            .collect(),
    }
}

impl Pip {
    /// The pip `bin_env` (or `pip_bin`) names, run as `user` in `cwd`
    /// with `env_vars`.
    pub fn from_args(arg: Arg<'_>) -> Result<Pip, PipError> {
        let bin_env = string(arg, "bin_env").or_else(|| string(arg, "pip_bin"));
        let mut pip = Pip::locate(bin_env.as_deref())?;
        pip.user = string(arg, "user");
        pip.cwd = string(arg, "cwd").map(Into::into);
        if let Some(Value::Map(m)) = arg("env_vars") {
            pip.env_vars = m
                .iter()
                .map(|(k, v)| (k.clone(), v.to_python_str()))
                .collect();
        }
        Ok(pip)
    }
}

/// `pip install`'s words for the options ARG gives (a state's or an
/// execution call's), in Salt's order.
pub fn install_args(
    arg: Arg<'_>,
    pkgs: &[String],
    requirements: &[String],
) -> Result<Vec<String>, String> {
    let mut a: Vec<String> = vec!["install".into()];
    for r in requirements {
        a.extend(["--requirement".into(), r.clone()]);
    }
    for (k, opt) in [
        ("log", "--log"),
        ("proxy", "--proxy"),
        ("timeout", "--timeout"),
    ] {
        if let Some(v) = string(arg, k) {
            a.extend([opt.into(), v]);
        }
    }
    for link in words(arg, "find_links") {
        let url = ["http://", "https://", "ftp://", "file://"]
            .iter()
            .any(|p| link.starts_with(p));
        if !url && !Path::new(&link).exists() {
            return Err(format!("'{link}' is not a valid URL or path"));
        }
        a.extend(["--find-links".into(), link]);
    }
    let index_url = string(arg, "index_url");
    let extra = string(arg, "extra_index_url");
    if flag(arg, "no_index") && (index_url.is_some() || extra.is_some()) {
        return Err(
            "'no_index' and ('index_url' or 'extra_index_url') are mutually exclusive.".into(),
        );
    }
    if let Some(u) = index_url {
        a.extend(["--index-url".into(), u]);
    }
    if let Some(u) = extra {
        a.extend(["--extra-index-url".into(), u]);
    }
    if flag(arg, "no_index") {
        a.push("--no-index".into());
    }
    a.push("--disable-pip-version-check".into());
    for (k, opt) in [
        ("build", "--build"),
        ("target", "--target"),
        ("download", "--download"),
        ("cache_dir", "--cache-dir"),
        ("source", "--source"),
    ] {
        if let Some(v) = string(arg, k) {
            a.extend([opt.into(), v]);
        }
    }
    for (k, opt) in [
        ("upgrade", "--upgrade"),
        ("force_reinstall", "--force-reinstall"),
        ("ignore_installed", "--ignore-installed"),
    ] {
        if flag(arg, k) {
            a.push(opt.into());
        }
    }
    if let Some(x) = string(arg, "exists_action") {
        if !matches!(x.as_str(), "s" | "i" | "w" | "b") {
            return Err(format!("The exists_action pip option only supports the values s, i, w, and b. '{x}' is not valid."));
        }
        a.extend(["--exists-action".into(), x]);
    }
    for (k, opt) in [
        ("no_deps", "--no-deps"),
        ("no_install", "--no-install"),
        ("no_download", "--no-download"),
        ("no_cache_dir", "--no-cache-dir"),
        ("pre_releases", "--pre"),
    ] {
        if flag(arg, k) {
            a.push(opt.into());
        }
    }
    if let Some(c) = string(arg, "cert") {
        a.extend(["--cert".into(), c]);
    }
    for o in words(arg, "global_options") {
        a.extend(["--global-option".into(), o]);
    }
    for o in words(arg, "install_options") {
        a.extend(["--install-option".into(), o]);
    }
    a.extend(pkgs.iter().map(|p| p.replace(';', ",")));
    for e in words(arg, "editable") {
        a.extend(["--editable".into(), e]);
    }
    for h in words(arg, "trusted_host") {
        a.extend(["--trusted-host".into(), h]);
    }
    match arg("extra_args") {
        Some(Value::List(l)) => {
            for item in l {
                match item {
                    Value::Map(m) => {
                        for (k, v) in m {
                            a.push(k.clone());
                            if !v.is_null() {
                                a.push(v.to_python_str());
                            }
                        }
                    }
                    other => a.push(other.to_python_str()),
                }
            }
        }
        Some(Value::Null) | None => {}
        Some(other) => a.push(other.to_python_str()),
    }
    Ok(a)
}

/// `pip uninstall -y`'s words for the options ARG gives and PKGS (a
/// comma-separated string or a list), in Salt's order.
pub fn uninstall_args(arg: Arg<'_>, pkgs: &[String]) -> Vec<String> {
    let mut a: Vec<String> = vec!["uninstall".into(), "-y".into()];
    for f in words(arg, "requirements") {
        a.extend(["--requirement".into(), f]);
    }
    for (k, opt) in [
        ("log", "--log"),
        ("proxy", "--proxy"),
        ("timeout", "--timeout"),
    ] {
        if let Some(v) = string(arg, k) {
            a.extend([opt.into(), v]);
        }
    }
    a.extend(pkgs.iter().cloned());
    a
}
