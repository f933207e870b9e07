//! `pip.installed`: the packages (or a requirements file) installed in
//! the environment `bin_env` names, through its pip.

use super::cmd::{flag, install_args, string, words, Pip, PipError};
use super::version::{Requirement, Version};
use crate::{StateCall, StateReturn};
use brine_core::Value;

/// The pip a state names.
pub fn pip_of(call: &StateCall) -> Result<Pip, PipError> {
    Pip::from_args(&|k| call.arg(k))
}

fn fail(mut r: StateReturn, comment: String) -> StateReturn {
    r.result = Some(false);
    r.comment = comment;
    r
}

/// The `Error: STDOUT STDERR` text of a failed pip run.
fn error_text(out: &brine_host::exec::CommandResult) -> String {
    format!("Error: {} {}", out.stdout.trim(), out.stderr.trim())
}

pub fn installed(call: &StateCall) -> StateReturn {
    let name = call.name().to_string();
    let pkgs: Vec<String> = match call.arg("pkgs") {
        None | Some(Value::Null) => vec![name.clone()],
        Some(Value::List(l)) => l.iter().map(Value::to_python_str).collect(),
        Some(_) => {
            return fail(
                StateReturn::new(&name),
                "pkgs argument must be formatted as a list".into(),
            )
        }
    };
    let mut r = StateReturn::new(&pkgs.join(";"));
    let pip = match pip_of(call) {
        Ok(p) => p,
        Err(e) => return fail(r, format!("Error installing '{name}': {e}")),
    };
    // Salt asks the version as the minion's user, whoever installs.
    let mut as_minion = pip.clone();
    as_minion.user = None;
    if let Err(e) = as_minion.version() {
        return fail(r, format!("Error installing '{name}': {e}"));
    }
    let requirements = words(&|k| call.arg(k), "requirements");
    let editable = words(&|k| call.arg(k), "editable");
    let plain = requirements.is_empty() && editable.is_empty();
    // Each package read as pip reads a requirement line.
    let mut reqs: Vec<(String, Option<Requirement>)> = Vec::new();
    if plain {
        let mut errors = Vec::new();
        for p in &pkgs {
            match Requirement::parse(p) {
                Ok(req) => reqs.push((p.clone(), req)),
                Err(e) => errors.push(if p.contains('=') && !p.contains("==") {
                    format!("Invalid version specification in package {p}. '=' is not supported, use '==' instead.")
                } else {
                    format!("pip raised an exception while parsing '{p}': {e}")
                }),
            }
        }
        if !errors.is_empty() {
            return fail(r, errors.join("\n"));
        }
    }
    if let Some(u) = &pip.user {
        if brine_host::accounts::user_by_name(u).is_none() {
            return fail(r, format!("User {u} does not exist"));
        }
    }
    if !plain && call.test {
        let mut parts = Vec::new();
        for f in &requirements {
            parts.push(format!("Requirements file '{f}' will be processed."));
        }
        for e in &editable {
            parts.push(format!(
                "Package will be installed in editable mode (i.e. setuptools \"develop mode\") from {e}."
            ));
        }
        r.result = None;
        r.comment = parts.join(" ");
        return r;
    }
    let upgrade = flag(&|k| call.arg(k), "upgrade");
    let mut already: Vec<String> = Vec::new();
    let mut targets: Vec<String> = Vec::new();
    if plain {
        let installed = pip.list(None).ok();
        let index_url = string(&|k| call.arg(k), "index_url");
        let extra = string(&|k| call.arg(k), "extra_index_url");
        for (text, req) in &reqs {
            match already_installed(
                call,
                &pip,
                installed.as_deref(),
                text,
                req.as_ref(),
                upgrade,
                index_url.as_deref(),
                extra.as_deref(),
            ) {
                Ok(Some(comment)) => already.push(comment),
                Ok(None) => targets.push(text.replace(',', ";")),
                Err(e) => return fail(r, e.to_string()),
            }
        }
        if targets.is_empty() {
            r.result = Some(true);
            r.comment = already.iter().map(|c| format!("{c}\n")).collect::<String>()
                + "All specified packages are already installed"
                + if upgrade { " and up-to-date" } else { "" };
            return r;
        }
        if call.test {
            r.result = None;
            r.comment = if pkgs.len() == 1 {
                format!("Python package {} is set to be installed", pkgs[0])
            } else {
                format!(
                    "Python package(s) set to be installed:\n{}",
                    pkgs.join("\n")
                )
            };
            return r;
        }
    }
    let args = match install_args(&|k| call.arg(k), &targets, &requirements) {
        Ok(a) => a,
        Err(e) => {
            return fail(
                r,
                crate::raised(format!("salt.exceptions.CommandExecutionError: {e}")),
            )
        }
    };
    let out = match pip.run(&args, true, false) {
        Ok(o) => o,
        Err(e) => return fail(r, e.to_string()),
    };
    let prefix: String = already.iter().map(|c| format!("{c}\n")).collect();
    if out.retcode != 0 {
        r.result = Some(false);
        let error = error_text(&out);
        r.comment = if plain {
            format!(
                "{prefix}Failed to install packages: {}. {error}",
                targets.join(", ")
            )
        } else {
            let mut parts = Vec::new();
            for f in &requirements {
                parts.push(format!("Unable to process requirements file \"{f}\""));
            }
            for e in &editable {
                parts.push(format!("Unable to install from VCS checkout {e}."));
            }
            parts.push(error);
            parts.join(" ")
        };
        return r;
    }
    if !plain {
        let untouched = [
            "Requirement already satisfied",
            "Requirement already up-to-date",
            "Requirement not upgraded",
            "Collecting",
            "Cloning",
            "Cleaning up...",
            "Looking in indexes",
        ];
        let mut parts = Vec::new();
        if !requirements.is_empty() {
            let changed = out
                .stdout
                .lines()
                .map(str::trim)
                .any(|l| !untouched.iter().any(|u| l.starts_with(u)));
            if changed {
                r.changes.insert("requirements".into(), Value::Bool(true));
                parts.push(format!(
                    "Successfully processed requirements file {}.",
                    requirements.join(", ")
                ));
            } else {
                parts.push("Requirements were already installed.".into());
            }
        }
        for e in &editable {
            r.changes.insert("editable".into(), Value::Bool(true));
            parts.push(format!(
                "Package successfully installed from VCS checkout {e}."
            ));
        }
        r.result = Some(true);
        r.comment = parts.join(" ");
        return r;
    }
    let mut missing = Vec::new();
    for target in &targets {
        let text = target.replace(';', ",");
        let req = reqs
            .iter()
            .find(|(t, _)| *t == text)
            .and_then(|(_, q)| q.clone());
        let Some(req) = req else {
            r.changes
                .insert(format!("{text}==???"), Value::Str("Installed".into()));
            continue;
        };
        let up_to_date = format!("Requirement already up-to-date: {}", req.name);
        if out.stdout.lines().any(|l| l.starts_with(&up_to_date)) {
            continue;
        }
        let listed = pip.list(Some(&req.name)).unwrap_or_default();
        if listed.is_empty() {
            missing.push(format!(
                "There was no error installing package '{}' although it does not show when calling 'pip.freeze'.",
                pkgs.last().cloned().unwrap_or_default()
            ));
            continue;
        }
        if let Some((_, v)) = listed
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(&req.name))
        {
            r.changes
                .insert(format!("{}=={v}", req.name), Value::Str("Installed".into()));
        }
    }
    r.result = Some(true);
    r.comment = if missing.is_empty() {
        format!("{prefix}All packages were successfully installed")
    } else {
        format!("{prefix}{}", missing.join("\n"))
    };
    r
}

/// Salt's `_check_if_installed`: the "already installed" comment for one
/// package, or None when it is to be installed.
#[allow(clippy::too_many_arguments)]
fn already_installed(
    call: &StateCall,
    pip: &Pip,
    listed: Option<&[(String, String)]>,
    text: &str,
    req: Option<&Requirement>,
    upgrade: bool,
    index_url: Option<&str>,
    extra_index_url: Option<&str>,
) -> Result<Option<String>, PipError> {
    let Some(req) = req else {
        return Ok(None);
    };
    if flag(&|k| call.arg(k), "ignore_installed") || flag(&|k| call.arg(k), "force_reinstall") {
        return Ok(None);
    }
    let owned;
    let listed = match listed {
        Some(l) => l,
        None => {
            owned = pip.list(Some(&req.name))?;
            &owned
        }
    };
    let Some((_, version)) = listed
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case(&req.name))
    else {
        return Ok(None);
    };
    if !upgrade {
        return Ok(req
            .allows(version)
            .then(|| format!("Python package {text} was already installed")));
    }
    let pre = req
        .specs
        .iter()
        .any(|s| s.version.contains('a') || s.version.contains('b') || s.version.contains("rc"));
    let available = pip.all_versions(&req.name, pre, index_url, extra_index_url)?;
    let desired = available.iter().rev().find(|v| req.allows(v));
    match desired {
        None => Ok(Some(format!(
            "Python package {} was already installed and\nthe available upgrade doesn't fulfills the version requirements",
            req.name
        ))),
        Some(d) if Version::parse(d) == Version::parse(version) => {
            Ok(Some(format!("Python package {text} was already installed")))
        }
        Some(_) => Ok(None),
    }
}
