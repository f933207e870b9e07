//! Salt's `pip` execution functions, through the host's pip as the `pip`
//! states run it (`brine_states::modules::pip::cmd`): `bin_env` names a
//! virtualenv, a python or a pip program; the host's `python3 -m pip`
//! otherwise.

use super::function::{sig, CallError, Ctx, Function, Return};
use super::params::Params;
use brine_core::{Map, Value};
use brine_host::exec::CommandResult;
use brine_states::modules::pip::cmd::{install_args, uninstall_args, words, Pip, PipError};

pub(super) const FUNCTIONS: &[Function] = &[
    Function::acts(
        "freeze",
        sig!(
            bin_env = null,
            user = null,
            cwd = null,
            use_vt = false,
            env_vars = null,
            **kwargs
        ),
        "The installed packages as `pip freeze --all` lists them (one \
'name==version' per item).\n\n    brine '*' pip.freeze bin_env=/opt/venv",
        freeze,
    ),
    Function::acts(
        "install",
        sig!(
            pkgs = null,
            requirements = null,
            bin_env = null,
            use_wheel = false,
            no_use_wheel = false,
            log = null,
            proxy = null,
            timeout = null,
            editable = null,
            find_links = null,
            index_url = null,
            extra_index_url = null,
            no_index = false,
            mirrors = null,
            build = null,
            target = null,
            download = null,
            download_cache = null,
            source = null,
            upgrade = false,
            force_reinstall = false,
            ignore_installed = false,
            exists_action = null,
            no_deps = false,
            no_install = false,
            no_download = false,
            global_options = null,
            install_options = null,
            user = null,
            cwd = null,
            pre_releases = false,
            cert = null,
            allow_all_external = false,
            allow_external = null,
            allow_unverified = null,
            process_dependency_links = false,
            saltenv = "base",
            env_vars = null,
            use_vt = false,
            trusted_host = null,
            no_cache_dir = false,
            extra_args = null,
            cache_dir = null,
            no_binary = null,
            disable_version_check = false,
            **kwargs
        ),
        "Install PKGS (comma-separated or a list; 'name==1.0' specifiers) or the \
REQUIREMENTS files with the pip of BIN_ENV; answers pip's pid, retcode, stdout and \
stderr. The keywords are pip install's options (find_links, index_url, no_index, \
upgrade, no_deps, ...).\n\n    brine '*' pip.install requests==2.31 bin_env=/opt/venv",
        install,
    ),
    Function::acts(
        "is_installed",
        sig!(pkgname, bin_env = null, user = null, cwd = null),
        "Whether PKGNAME is installed (pip freeze names it).\n\n    \
brine '*' pip.is_installed requests",
        is_installed,
    ),
    Function::acts(
        "list",
        sig!(
            prefix = null,
            bin_env = null,
            user = null,
            cwd = null,
            env_vars = null,
            **kwargs
        ),
        "The installed packages, name -> version (only names starting with \
PREFIX when given).\n\n    brine '*' pip.list bin_env=/opt/venv",
        list,
    ),
    Function::acts(
        "list_all_versions",
        sig!(
            pkg,
            bin_env = null,
            include_alpha = false,
            include_beta = false,
            include_rc = false,
            user = null,
            cwd = null,
            index_url = null,
            extra_index_url = null
        ),
        "Every version of PKG the index offers, oldest first (pre-releases with \
include_alpha, include_beta, include_rc); None when there is none.\n\n    \
brine '*' pip.list_all_versions requests",
        list_all_versions,
    ),
    Function::acts(
        "uninstall",
        sig!(
            pkgs = null,
            requirements = null,
            bin_env = null,
            log = null,
            proxy = null,
            timeout = null,
            user = null,
            cwd = null,
            saltenv = "base",
            use_vt = false
        ),
        "Uninstall PKGS (comma-separated or a list) or the REQUIREMENTS files' \
packages; answers pip's pid, retcode, stdout and stderr.\n\n    \
brine '*' pip.uninstall requests bin_env=/opt/venv",
        uninstall,
    ),
    Function::acts(
        "version",
        sig!(bin_env = null, cwd = null, user = null),
        "The version of the pip of BIN_ENV.\n\n    brine '*' pip.version /opt/venv",
        version,
    ),
];

fn failed(e: PipError) -> CallError {
    CallError::Failed(e.0)
}

/// Every argument left in `p`, by name, for the shared option readers.
fn all_args(p: &mut Params, names: &[&str]) -> Map {
    let mut m = Map::default();
    for n in names {
        if let Some(v) = p.take(n) {
            m.insert((*n).to_string(), v);
        }
    }
    m
}

fn pip_of(args: &Map) -> Result<Pip, CallError> {
    Pip::from_args(&|k| args.get(k)).map_err(failed)
}

/// A command's answer as Salt's `cmd.run_all` shows it.
fn run_all(r: CommandResult) -> Return {
    let mut m = Map::default();
    m.insert("pid".into(), Value::Int(i64::from(r.pid)));
    m.insert("retcode".into(), Value::Int(i64::from(r.retcode)));
    m.insert("stdout".into(), Value::Str(r.stdout));
    m.insert("stderr".into(), Value::Str(r.stderr));
    Return::from(Value::Map(m))
}

fn freeze(_: &Ctx<'_>, mut p: Params) -> Result<Return, CallError> {
    let args = all_args(&mut p, &["bin_env", "user", "cwd", "use_vt", "env_vars"]);
    p.kwargs_with_pub("pip.freeze");
    p.finish()?;
    let lines = pip_of(&args)?.freeze().map_err(failed)?;
    Ok(Return::from(Value::List(
        lines.into_iter().map(Value::Str).collect(),
    )))
}

fn list(_: &Ctx<'_>, mut p: Params) -> Result<Return, CallError> {
    let prefix = p
        .take("prefix")
        .filter(|v| !v.is_null())
        .map(|v| v.to_python_str());
    let args = all_args(&mut p, &["bin_env", "user", "cwd", "env_vars"]);
    p.kwargs_with_pub("pip.list");
    p.finish()?;
    let listed = pip_of(&args)?.list(prefix.as_deref()).map_err(failed)?;
    Ok(Return::from(Value::Map(
        listed
            .into_iter()
            .map(|(n, v)| (n, Value::Str(v)))
            .collect(),
    )))
}

fn is_installed(_: &Ctx<'_>, mut p: Params) -> Result<Return, CallError> {
    let name = p
        .take("pkgname")
        .filter(|v| !v.is_null())
        .map(|v| v.to_python_str());
    let args = all_args(&mut p, &["bin_env", "user", "cwd"]);
    p.finish()?;
    let lines = pip_of(&args)?.freeze().map_err(failed)?;
    let found = name.is_some_and(|n| {
        lines
            .iter()
            .filter(|l| !l.starts_with("-f") && !l.starts_with('#'))
            .filter_map(|l| l.split_once("=="))
            .any(|(pkg, _)| pkg == n)
    });
    Ok(Return::from(Value::Bool(found)))
}

fn version(_: &Ctx<'_>, mut p: Params) -> Result<Return, CallError> {
    let args = all_args(&mut p, &["bin_env", "cwd", "user"]);
    p.finish()?;
    let v = pip_of(&args)?.version().map_err(failed)?;
    Ok(Return::from(v.map_or(Value::Null, Value::Str)))
}

fn list_all_versions(_: &Ctx<'_>, mut p: Params) -> Result<Return, CallError> {
    let pkg = p.require_str("pkg")?;
    let pre = ["include_alpha", "include_beta", "include_rc"]
        .iter()
        .any(|k| p.take(k).is_some_and(|v| v.is_truthy()));
    let args = all_args(
        &mut p,
        &["bin_env", "user", "cwd", "index_url", "extra_index_url"],
    );
    p.finish()?;
    let get = |k: &str| {
        args.get(k)
            .filter(|v| !v.is_null())
            .map(|v| v.to_python_str())
    };
    let versions = pip_of(&args)?
        .all_versions(
            &pkg,
            pre,
            get("index_url").as_deref(),
            get("extra_index_url").as_deref(),
        )
        .map_err(failed)?;
    Ok(Return::from(if versions.is_empty() {
        Value::Null
    } else {
        Value::List(versions.into_iter().map(Value::Str).collect())
    }))
}

const INSTALL_ARGS: &[&str] = &[
    "requirements",
    "bin_env",
    "use_wheel",
    "no_use_wheel",
    "log",
    "proxy",
    "timeout",
    "editable",
    "find_links",
    "index_url",
    "extra_index_url",
    "no_index",
    "mirrors",
    "build",
    "target",
    "download",
    "download_cache",
    "source",
    "upgrade",
    "force_reinstall",
    "ignore_installed",
    "exists_action",
    "no_deps",
    "no_install",
    "no_download",
    "global_options",
    "install_options",
    "user",
    "cwd",
    "pre_releases",
    "cert",
    "allow_all_external",
    "allow_external",
    "allow_unverified",
    "process_dependency_links",
    "saltenv",
    "env_vars",
    "use_vt",
    "trusted_host",
    "no_cache_dir",
    "extra_args",
    "cache_dir",
    "no_binary",
    "disable_version_check",
];

fn install(_: &Ctx<'_>, mut p: Params) -> Result<Return, CallError> {
    let pkgs = p.take("pkgs");
    let mut args = all_args(&mut p, INSTALL_ARGS);
    p.kwargs_with_pub("pip.install");
    p.finish()?;
    if let Some(v) = pkgs {
        args.insert("pkgs".into(), v);
    }
    let get = |k: &str| args.get(k);
    let pkgs = words(&get, "pkgs");
    let requirements = words(&get, "requirements");
    let editable = words(&get, "editable");
    if pkgs.is_empty() && requirements.is_empty() && editable.is_empty() {
        let mut m = Map::default();
        m.insert("retcode".into(), Value::Int(0));
        m.insert(
            "stdout".into(),
            Value::Str("No packages to install.".into()),
        );
        return Ok(Return::from(Value::Map(m)));
    }
    let mut words_ = install_args(&get, &pkgs, &requirements).map_err(CallError::Failed)?;
    if !args
        .get("disable_version_check")
        .is_some_and(Value::is_truthy)
    {
        words_.retain(|w| w != "--disable-pip-version-check");
    }
    let r = pip_of(&args)?.run(&words_, true, false).map_err(failed)?;
    Ok(run_all(r))
}

fn uninstall(_: &Ctx<'_>, mut p: Params) -> Result<Return, CallError> {
    let pkgs = p.take("pkgs");
    let args = all_args(
        &mut p,
        &[
            "requirements",
            "bin_env",
            "log",
            "proxy",
            "timeout",
            "user",
            "cwd",
            "saltenv",
            "use_vt",
        ],
    );
    p.finish()?;
    let get = |k: &str| args.get(k);
    let mut all = args.clone();
    if let Some(v) = pkgs {
        all.insert("pkgs".into(), v);
    }
    let pkgs = words(&|k| all.get(k), "pkgs");
    let words_ = uninstall_args(&get, &pkgs);
    let r = pip_of(&args)?.run(&words_, true, false).map_err(failed)?;
    Ok(run_all(r))
}

#[cfg(test)]
mod tests {
    use crate::modules::testkit::{minion, run};
    use serde_json::json;

    /// A virtualenv with a wheel made by hand (no index, no network): the
    /// functions install, list, find, freeze and uninstall it for real.
    #[test]
    fn pip_functions_act_on_a_virtualenv() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path().display().to_string();
        let venv = format!("{d}/venv");
        let made = std::process::Command::new("python3")
            .args(["-m", "venv", &venv])
            .status()
            .is_ok_and(|s| s.success());
        assert!(
            made,
            "python3 -m venv failed: the pip tests need python3's venv"
        );
        // A wheel: a zip of the module and its dist-info (no RECORD
        // hashes are checked for a local install).
        let wheel = format!(
            "import zipfile\nz = zipfile.ZipFile('{d}/brinepkg-1.0-py3-none-any.whl', 'w')\n\
             z.writestr('brinepkg.py', 'V = 1\\n')\n\
             z.writestr('brinepkg-1.0.dist-info/METADATA', 'Metadata-Version: 2.1\\nName: brinepkg\\nVersion: 1.0\\n')\n\
             z.writestr('brinepkg-1.0.dist-info/WHEEL', 'Wheel-Version: 1.0\\nGenerator: t\\nRoot-Is-Purelib: true\\nTag: py3-none-any\\n')\n\
             z.writestr('brinepkg-1.0.dist-info/RECORD', '')\nz.close()\n"
        );
        let wrote = std::process::Command::new("python3")
            .args(["-c", &wheel])
            .status()
            .is_ok_and(|s| s.success());
        assert!(wrote);
        let mut m = minion();
        let bin_env = format!("bin_env={venv}");
        let links = format!("find_links={d}");
        let v = run(&mut m, "pip.version", &[&bin_env]).unwrap();
        assert!(v.as_str().is_some_and(|s| !s.is_empty()), "{v}");
        let r = run(
            &mut m,
            "pip.install",
            &["brinepkg", &bin_env, &links, "no_index=True"],
        )
        .unwrap();
        assert_eq!(r["retcode"], json!(0), "{r}");
        let listed = run(&mut m, "pip.list", &["brine", &bin_env]).unwrap();
        assert_eq!(listed, json!({"brinepkg": "1.0"}));
        let yes = run(&mut m, "pip.is_installed", &["brinepkg", &bin_env]).unwrap();
        assert_eq!(yes, json!(true));
        let frozen = run(&mut m, "pip.freeze", &[&bin_env]).unwrap();
        assert!(
            frozen.as_array().unwrap().contains(&json!("brinepkg==1.0")),
            "{frozen}"
        );
        let r = run(&mut m, "pip.uninstall", &["brinepkg", &bin_env]).unwrap();
        assert_eq!(r["retcode"], json!(0), "{r}");
        let no = run(&mut m, "pip.is_installed", &["brinepkg", &bin_env]).unwrap();
        assert_eq!(no, json!(false));
        let err = run(&mut m, "pip.list", &[&format!("bin_env={d}/nothing")]).unwrap_err();
        assert!(err.contains("could not find a pip binary"), "{err}");
        let none = run(&mut m, "pip.install", &[&bin_env]).unwrap();
        assert_eq!(
            none,
            json!({"retcode": 0, "stdout": "No packages to install."})
        );
    }
}
