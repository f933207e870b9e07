//! The alternatives system as Salt's `alternatives` module drives it:
//! `update-alternatives` (`alternatives` on Red Hat), and the links in
//! /etc/alternatives read directly. Each function answers what Salt's
//! does: the command's stdout, or its stderr when it failed. The
//! `alternatives` execution module and state module both go through here.

use brine_core::Value;
use brine_host::exec::{self, CommandResult, CommandSpec, ExecError};

const ALTDIR: &str = "/etc/alternatives";

/// Running the command failed (it is not installed).
#[derive(Debug, thiserror::Error)]
#[error(transparent)]
pub struct AltError(#[from] ExecError);

/// The command for this `os_family`.
pub fn command(family: &str) -> &'static str {
    if family == "RedHat" {
        "alternatives"
    } else {
        "update-alternatives"
    }
}

fn run(argv: &[&str]) -> Result<CommandResult, AltError> {
    Ok(exec::run(&CommandSpec::argv(argv))?)
}

/// Salt's answer for a command: stderr when it failed and said why
/// (`stderr_only_with_it`: only when stderr is not empty), else stdout.
fn answer(r: CommandResult, stderr_needed: bool) -> String {
    if r.retcode > 0 && (!stderr_needed || !r.stderr.is_empty()) {
        r.stderr
    } else {
        r.stdout
    }
}

/// `--display NAME`: the link group's settings (or the command's error).
pub fn display(family: &str, name: &str) -> Result<String, AltError> {
    Ok(answer(run(&[command(family), "--display", name])?, true))
}

/// The master link of the group NAME: from `--query` on Debian, from the
/// administrative file elsewhere; `False` when there is none.
pub fn show_link(family: &str, name: &str) -> Result<Value, AltError> {
    let admin = match family {
        "RedHat" => Some("/var/lib/alternatives"),
        "Suse" => Some("/var/lib/rpm/alternatives"),
        _ => None,
    };
    if let Some(dir) = admin {
        let text = std::fs::read(format!("{dir}/{name}"))
            .map(|b| String::from_utf8_lossy(&b).into_owned())
            .unwrap_or_default();
        let second = text.split_inclusive('\n').nth(1);
        return Ok(second.map_or(Value::Bool(false), |l| {
            Value::Str(l.trim_end_matches('\n').to_string())
        }));
    }
    let r = run(&[command(family), "--query", name])?;
    if r.retcode > 0 && !r.stderr.is_empty() {
        return Ok(Value::Bool(false));
    }
    let first = r.stdout.split("\n\n").next().unwrap_or_default();
    Ok(first
        .lines()
        .find_map(|l| l.strip_prefix("Link:"))
        .map_or(Value::Bool(false), |v| Value::Str(v.trim().to_string())))
}

/// Where /etc/alternatives/NAME points (as written in the link), if it is
/// a link.
pub fn show_current(name: &str) -> Option<String> {
    std::fs::read_link(format!("{ALTDIR}/{name}"))
        .ok()
        .map(|p| p.display().to_string())
}

/// Whether PATH is one of NAME's alternatives (a line of `--display`
/// starts with it).
pub fn check_exists(family: &str, name: &str, path: &str) -> Result<bool, AltError> {
    let r = run(&[command(family), "--display", name])?;
    if r.retcode > 0 && !r.stderr.is_empty() {
        return Ok(false);
    }
    Ok(r.stdout.lines().any(|l| l.starts_with(path)))
}

/// Whether /etc/alternatives/NAME points at PATH.
pub fn check_installed(name: &str, path: &str) -> bool {
    show_current(name).is_some_and(|c| c == path)
}

/// `--install LINK NAME PATH PRIORITY`.
pub fn install(
    family: &str,
    name: &str,
    link: &str,
    path: &str,
    priority: &str,
) -> Result<String, AltError> {
    let r = run(&[command(family), "--install", link, name, path, priority])?;
    Ok(answer(r, true))
}

/// `--remove NAME PATH`.
pub fn remove(family: &str, name: &str, path: &str) -> Result<String, AltError> {
    Ok(answer(
        run(&[command(family), "--remove", name, path])?,
        false,
    ))
}

/// `--auto NAME`: back to the highest priority.
pub fn auto(family: &str, name: &str) -> Result<String, AltError> {
    Ok(answer(run(&[command(family), "--auto", name])?, false))
}

/// `--set NAME PATH`.
pub fn set(family: &str, name: &str, path: &str) -> Result<String, AltError> {
    Ok(answer(run(&[command(family), "--set", name, path])?, false))
}
