//! Kernel parameters as Salt's `linux_sysctl` module handles them: read and
//! set through `sysctl`, and kept in a sysctl.conf-style file. The `sysctl`
//! execution module and the `sysctl` state module both go through here.

use brine_core::{Map, Value};
use brine_host::exec::{self, CommandResult, CommandSpec, ExecError};
use std::path::Path;

/// What Salt raises (`CommandExecutionError`, its message).
#[derive(Debug, thiserror::Error)]
pub enum SysctlError {
    #[error("{0}")]
    Failed(String),
    #[error(transparent)]
    Exec(#[from] ExecError),
}

fn which_sysctl() -> Result<String, SysctlError> {
    brine_host::path::which("sysctl")
        .map(|p| p.display().to_string())
        .ok_or_else(|| SysctlError::Failed("Command 'sysctl' cannot be found".into()))
}

/// The file `persist` writes by default: /etc/sysctl.d/99-salt.conf under
/// systemd, else /etc/sysctl.conf.
pub fn default_config() -> &'static str {
    // systemd (207 and later) reads only sysctl.d; every systemd in use is.
    if Path::new("/run/systemd/system").exists() {
        "/etc/sysctl.d/99-salt.conf"
    } else {
        "/etc/sysctl.conf"
    }
}

/// What `show(config_file=...)` answers.
#[derive(Debug, Clone, PartialEq)]
pub enum Configured {
    /// The file does not exist (Salt answers `[]`).
    Missing,
    /// It exists but cannot be read (Salt answers `None`).
    Unreadable,
    Set(Map),
}

/// The parameters set in the file `config`.
pub fn show_config(config: &str) -> Configured {
    if !Path::new(config).exists() {
        return Configured::Missing;
    }
    let Ok(text) = std::fs::read_to_string(config) else {
        tracing::error!("Could not open sysctl file");
        return Configured::Unreadable;
    };
    let mut ret = Map::default();
    for line in text.lines() {
        let line = line.trim();
        if let Some((k, v)) = line.split_once('=').filter(|_| !line.starts_with('#')) {
            ret.insert(k.trim_end().to_string(), Value::Str(v.trim_start().into()));
        }
    }
    Configured::Set(ret)
}

/// Every kernel parameter with its value (`sysctl -a`).
pub fn show_all() -> Result<Map, SysctlError> {
    let sysctl = which_sysctl()?;
    let out = exec::run(&CommandSpec::argv(&[&sysctl, "-a"]))?;
    let mut ret = Map::default();
    for line in out.stdout.lines() {
        if let Some((k, v)) = line.split_once(" = ") {
            ret.insert(k.to_string(), Value::Str(v.to_string()));
        }
    }
    Ok(ret)
}

/// `sysctl -n NAME` as Salt's `cmd.run` gives it (stderr folded in, a
/// failure's exit code kept).
pub fn get(name: &str) -> Result<CommandResult, SysctlError> {
    let sysctl = which_sysctl()?;
    Ok(exec::run(&CommandSpec {
        merge_stderr: true,
        ..CommandSpec::argv(&[&sysctl, "-n", name])
    })?)
}

/// `sysctl -w NAME=VALUE`, checked the way Salt checks it: the parameter as
/// the kernel took it.
pub fn assign(name: &str, value: &str) -> Result<Map, SysctlError> {
    let proc_path = format!(
        "/proc/sys/{}",
        name.chars()
            .map(|c| match c {
                '.' => '/',
                '/' => '.',
                c => c,
            })
            .collect::<String>()
    );
    if !Path::new(&proc_path).exists() {
        return Err(SysctlError::Failed(format!("sysctl {name} does not exist")));
    }
    let sysctl = which_sysctl()?;
    let data = exec::run(&CommandSpec::argv(&[
        &sysctl,
        "-w",
        &format!("{name}={value}"),
    ]))?;
    // sysctl echoes "NAME = VALUE" when the kernel took it (Salt's check).
    let echoed = regex::Regex::new(&format!(
        r"^{}\s+=\s+{}\n?\z",
        regex::escape(name),
        regex::escape(value)
    ))
    .is_ok_and(|re| re.is_match(&data.stdout));
    if !echoed || data.stderr.contains("Invalid argument") {
        let error = if data.retcode != 0 && !data.stderr.is_empty() {
            data.stderr
        } else {
            data.stdout
        };
        return Err(SysctlError::Failed(format!("sysctl -w failed: {error}")));
    }
    let mut ret = Map::default();
    if let Some((k, v)) = data.stdout.split_once(" = ") {
        ret.insert(k.to_string(), Value::Str(v.to_string()));
    }
    Ok(ret)
}

/// Runs of whitespace as one tab, as the kernel shows multi-field values.
fn sanitize(v: &str) -> String {
    v.split_whitespace().collect::<Vec<_>>().join("\t")
}

/// Salt's `persist`: NAME = VALUE written into CONFIG and set now;
/// "Already set" when file and kernel agree, else "Updated".
pub fn persist(name: &str, value: &str, config: &str) -> Result<&'static str, SysctlError> {
    let write_err = || SysctlError::Failed(format!("Could not write to file: {config}"));
    if !Path::new(config).is_file() {
        let dir = brine_host::path::dirname(config);
        if !dir.is_empty() && !Path::new(dir).exists() {
            std::fs::create_dir_all(dir).map_err(|_| write_err())?;
        }
        std::fs::write(config, "#\n# Kernel sysctl configuration\n#\n").map_err(|_| write_err())?;
    }
    let text = std::fs::read_to_string(config)
        .map_err(|_| SysctlError::Failed(format!("Could not read from file: {config}")))?;
    let mut lines: Vec<String> = Vec::new();
    let mut edited = false;
    for line in text.split_inclusive('\n') {
        let Some((k, v)) = line.split_once('=') else {
            lines.push(line.to_string());
            continue;
        };
        let (k, v) = (k.trim(), v.trim());
        if k.starts_with('#') || k != name {
            lines.push(line.to_string());
            continue;
        }
        let wanted = sanitize(value);
        if sanitize(v) == wanted {
            if sanitize(&get(name)?.stdout) != wanted {
                assign(name, value)?;
                return Ok("Updated");
            }
            return Ok("Already set");
        }
        lines.push(format!("{name} = {value}\n"));
        edited = true;
    }
    if !edited {
        lines.push(format!("{name} = {value}\n"));
    }
    std::fs::write(config, lines.concat()).map_err(|_| write_err())?;
    assign(name, value)?;
    Ok("Updated")
}
