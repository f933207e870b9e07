//! Kernel modules as Salt's `kmod` execution module handles them: loaded
//! ones from `lsmod`, available ones under /lib/modules/RELEASE, loaded
//! with `modprobe`, removed with `rmmod`, and kept across boots in
//! /etc/modules-load.d/salt_managed.conf (with the `systemd` grain, else
//! /etc/modules), where a module is appended or uncommented, and commented
//! out or blanked with `sed` when it goes.

use super::super::file::fsutil::append_lines;
use brine_core::{Map, Value};
use brine_host::exec::{self, CommandResult, CommandSpec, ExecError};
use std::collections::BTreeSet;
use std::path::Path;

/// What Salt raises, or running a command failed.
#[derive(Debug, thiserror::Error)]
pub enum KmodError {
    /// `CommandExecutionError`.
    #[error("{0}")]
    Failed(String),
    #[error(transparent)]
    Exec(#[from] ExecError),
}

fn which(cmd: &str) -> Result<String, KmodError> {
    brine_host::path::which(cmd)
        .map(|p| p.display().to_string())
        .ok_or_else(|| KmodError::Failed(format!("Command '{cmd}' cannot be found")))
}

fn run(argv: &[&str], merge: bool) -> Result<CommandResult, KmodError> {
    Ok(exec::run(&CommandSpec {
        merge_stderr: merge,
        ..CommandSpec::argv(argv)
    })?)
}

/// The persistence file for these grains.
pub fn modules_conf(grains: &Map) -> &'static str {
    if grains.contains_key("systemd") {
        "/etc/modules-load.d/salt_managed.conf"
    } else {
        "/etc/modules"
    }
}

/// Salt's `_strip_module_name`: a line's first word (`bonding mode=4`).
fn strip_module_name(line: &str) -> Option<&str> {
    line.split_whitespace().next()
}

/// The module names of `lsmod` (its output, stderr included, read as
/// Salt reads it: every line of three or more words but the header).
pub fn lsmod() -> Result<Vec<String>, KmodError> {
    let lsmod = which("lsmod")?;
    let out = run(&[&lsmod], true)?;
    Ok(out
        .stdout
        .lines()
        .filter_map(|l| {
            let comps: Vec<&str> = l.split_whitespace().collect();
            (comps.len() > 2 && comps[0] != "Module").then(|| comps[0].to_string())
        })
        .collect())
}

/// Salt's `mod_list`: the loaded modules, or (ONLY_PERSIST) those in the
/// persistence file; sorted, without repeats.
pub fn mod_list(only_persist: bool, grains: &Map) -> Result<Vec<String>, KmodError> {
    let mut mods = BTreeSet::new();
    if only_persist {
        if let Ok(text) = std::fs::read_to_string(modules_conf(grains)) {
            for line in text.lines().map(str::trim) {
                if !line.starts_with('#') {
                    mods.extend(strip_module_name(line).map(str::to_string));
                }
            }
        }
    } else {
        mods.extend(lsmod()?);
    }
    Ok(mods.into_iter().collect())
}

/// The running kernel's release (`uname -r`).
fn release() -> String {
    nix::sys::utsname::uname()
        .map(|u| u.release().to_string_lossy().into_owned())
        .unwrap_or_default()
}

fn walk(dir: &Path, out: &mut Vec<String>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let path = e.path();
        if e.file_type().is_ok_and(|t| t.is_dir()) {
            walk(&path, out);
        } else {
            let name = e.file_name().to_string_lossy().into_owned();
            if let Some(i) = name.find(".ko") {
                out.push(name[..i].replace('-', "_"));
            }
        }
    }
}

/// Salt's `available`: the built-in modules and the `.ko` files of
/// /lib/modules/RELEASE (and Arch's extramodules), sorted.
pub fn available(grains: &Map) -> Vec<String> {
    let rel = release();
    let dir = format!("/lib/modules/{rel}");
    let mut ret = Vec::new();
    if let Ok(text) = std::fs::read_to_string(format!("{dir}/modules.builtin")) {
        for line in text.split_inclusive('\n') {
            let base = line.rsplit('/').next().unwrap_or(line);
            // Salt drops the last four characters (".ko" and the newline).
            let keep = base.chars().count().saturating_sub(4);
            ret.push(base.chars().take(keep).collect());
        }
    }
    walk(Path::new(&dir), &mut ret);
    let family = grains
        .get("os_family")
        .and_then(Value::as_str)
        .unwrap_or("");
    if family.contains("Arch") {
        let short: String = rel.chars().take(3).collect();
        walk(
            Path::new(&format!("/lib/modules/extramodules-{short}-ARCH")),
            &mut ret,
        );
    }
    ret.sort();
    ret
}

/// Python's `re.escape` (3.7 and later: only the characters special to
/// a regular expression), for the `sed` expression.
fn re_escape(s: &str) -> String {
    s.chars()
        .map(|c| {
            if "()[]{}?*+-|^$\\.&~# \t\n\r\x0b\x0c".contains(c) {
                format!("\\{c}")
            } else {
                c.to_string()
            }
        })
        .collect()
}

fn io_err(path: &str, e: &std::io::Error) -> KmodError {
    KmodError::Failed(format!("{path}: {e}"))
}

/// Salt's `file.comment`/`file.uncomment` on the persistence file: the
/// lines `re.match`ing PATTERN get '#' put before them (COMMENT) or their
/// leading '#'s dropped; the old file is kept as PATH.bak.
fn comment_lines(path: &str, pattern: &str, comment: bool) -> Result<(), KmodError> {
    let re = regex::Regex::new(&format!("^(?:{pattern})"))
        .map_err(|e| KmodError::Failed(e.to_string()))?;
    let text = std::fs::read_to_string(path).map_err(|e| io_err(path, &e))?;
    let mut found = false;
    let out: String = text
        .split_inclusive('\n')
        .map(|line| {
            if !re.is_match(line) {
                return line.to_string();
            }
            found = true;
            if comment {
                format!("#{line}")
            } else {
                line.trim_start_matches('#').to_string()
            }
        })
        .collect();
    if !found {
        return Ok(());
    }
    std::fs::write(format!("{path}.bak"), &text).map_err(|e| io_err(path, &e))?;
    std::fs::write(path, out).map_err(|e| io_err(path, &e))
}

/// Salt's `_set_persistent_module`: MOD appended to (or uncommented in)
/// the persistence file unless it is there or not available; the names
/// added.
fn set_persistent(module: &str, grains: &Map) -> Result<Vec<String>, KmodError> {
    let conf = modules_conf(grains);
    if !Path::new(conf).exists() {
        std::fs::write(conf, b"").map_err(|e| io_err(conf, &e))?;
    }
    let Some(name) = strip_module_name(module) else {
        return Ok(Vec::new());
    };
    if mod_list(true, grains)?.iter().any(|m| m == name)
        || !available(grains).iter().any(|m| m == name)
    {
        return Ok(Vec::new());
    }
    let esc = regex::escape(module);
    let text = std::fs::read_to_string(conf).unwrap_or_default();
    let commented =
        regex::Regex::new(&format!("(?m)^#[\t ]*{esc}[\t ]*$")).is_ok_and(|re| re.is_match(&text));
    if commented {
        comment_lines(conf, &format!(r"#\s*({esc})"), false)?;
    } else {
        append_lines(Path::new(conf), &[module.to_string()]).map_err(|e| io_err(conf, &e))?;
    }
    Ok(vec![name.to_string()])
}

/// Salt's `_remove_persistent_module`: MOD commented out (COMMENT) or
/// blanked with `sed` in the persistence file; the names removed.
fn remove_persistent(module: &str, comment: bool, grains: &Map) -> Result<Vec<String>, KmodError> {
    let conf = modules_conf(grains);
    let Some(name) = strip_module_name(module) else {
        return Ok(Vec::new());
    };
    if !mod_list(true, grains)?.iter().any(|m| m == name) {
        return Ok(Vec::new());
    }
    if comment {
        let esc = regex::escape(module);
        comment_lines(conf, &format!("(^[\t ]*{esc}[\t ]?)"), true)?;
    } else {
        let pattern = format!("^[\t ]*{}[\t ]?", re_escape(module));
        let expr = format!("s/{}//g", pattern.replace('/', "\\/"));
        run(&["sed", "-i.bak", "-r", "-e", &expr, conf], false)?;
    }
    Ok(vec![name.to_string()])
}

/// Salt's `load`: `modprobe MOD`; the modules it loaded (and, with
/// PERSIST, those it made persistent), or "Error loading module ...".
pub fn load(
    module: &str,
    persist: bool,
    grains: &Map,
) -> Result<Result<Vec<String>, String>, KmodError> {
    let pre = lsmod()?;
    let modprobe = which("modprobe")?;
    let res = run(&[&modprobe, module], false)?;
    if res.retcode != 0 {
        return Ok(Err(format!(
            "Error loading module {module}: {}",
            res.stderr
        )));
    }
    let post = lsmod()?;
    let mut mods: BTreeSet<String> = post.into_iter().filter(|m| !pre.contains(m)).collect();
    if persist {
        mods.extend(set_persistent(module, grains)?);
    }
    Ok(Ok(mods.into_iter().collect()))
}

/// Salt's `remove`: `rmmod MOD`; the modules it removed (and, with
/// PERSIST, those it took out of the persistence file), or "Error
/// removing module ...".
pub fn remove(
    module: &str,
    persist: bool,
    comment: bool,
    grains: &Map,
) -> Result<Result<Vec<String>, String>, KmodError> {
    let pre = lsmod()?;
    let rmmod = which("rmmod")?;
    let res = run(&[&rmmod, module], false)?;
    if res.retcode != 0 {
        return Ok(Err(format!(
            "Error removing module {module}: {}",
            res.stderr
        )));
    }
    let post = lsmod()?;
    let mut mods: BTreeSet<String> = pre.into_iter().filter(|m| !post.contains(m)).collect();
    if persist {
        mods.extend(remove_persistent(module, comment, grains)?);
    }
    Ok(Ok(mods.into_iter().collect()))
}
