//! Salt's `sysctl` module (linux_sysctl): kernel parameters read and set
//! through `sysctl`, and kept in a sysctl.conf-style file.

use super::function::{sig, CallError, Ctx, Function, Return};
use super::params::{into_string, opt_string, Params};
use super::run::{run, run_merged, which};
use brine_core::{Map, Value};
use std::path::Path;

pub(super) const FUNCTIONS: &[Function] = &[
    Function::acts(
        "assign",
        sig!(name, value),
        "Set the kernel parameter NAME to VALUE now (sysctl -w); answers \
{name: value} as the kernel took it.\n\n    brine-call sysctl.assign net.ipv4.ip_forward 1",
        assign_fn,
    ),
    Function::acts(
        "default_config",
        sig!(),
        "The file sysctl.persist writes by default: /etc/sysctl.d/99-salt.conf \
under systemd, else /etc/sysctl.conf.\n\n    brine-call sysctl.default_config",
        default_config_fn,
    ),
    Function::acts(
        "get",
        sig!(name),
        "The current value of the kernel parameter NAME (sysctl -n).\n\n    \
brine-call sysctl.get net.ipv4.ip_forward",
        get_fn,
    ),
    Function::acts(
        "persist",
        sig!(name, value, config = null),
        "Write NAME = VALUE into CONFIG (default: sysctl.default_config) and set \
it now; 'Already set' when file and kernel agree, else 'Updated'.\n\n    \
brine-call sysctl.persist vm.swappiness 10 config=/etc/sysctl.d/10-swap.conf",
        persist_fn,
    ),
    Function::acts(
        "show",
        sig!(config_file = false),
        "Every kernel parameter with its value (sysctl -a), or those set in \
CONFIG_FILE when given ([] when that file does not exist).\n\n    \
brine-call sysctl.show\n    brine-call sysctl.show config_file=/etc/sysctl.conf",
        show_fn,
    ),
];

fn default_config() -> &'static str {
    // systemd (207 and later) reads only sysctl.d; every systemd in use is.
    if Path::new("/run/systemd/system").exists() {
        "/etc/sysctl.d/99-salt.conf"
    } else {
        "/etc/sysctl.conf"
    }
}

fn default_config_fn(_: &Ctx<'_>, p: Params) -> Result<Return, CallError> {
    p.finish()?;
    Ok(Value::Str(default_config().into()).into())
}

fn show_fn(_: &Ctx<'_>, mut p: Params) -> Result<Return, CallError> {
    let config = p.take("config_file").filter(Value::is_truthy);
    p.finish()?;
    let mut ret = Map::default();
    if let Some(config) = config {
        let config = match config {
            Value::Str(s) => s,
            // os.path.exists reads an int as a file descriptor: whether
            // one is open is the process's business; brine says no.
            Value::Int(_) | Value::Bool(_) => return Ok(Value::List(Vec::new()).into()),
            other => {
                return Err(CallError::InvalidArguments(format!(
                    "stat: path should be string, bytes, os.PathLike or integer, not {}",
                    other.type_name()
                )))
            }
        };
        if !Path::new(&config).exists() {
            return Ok(Value::List(Vec::new()).into());
        }
        let Ok(text) = std::fs::read_to_string(&config) else {
            tracing::error!("Could not open sysctl file");
            return Ok(Value::Null.into());
        };
        for line in text.lines() {
            let line = line.trim();
            if let Some((k, v)) = line.split_once('=').filter(|_| !line.starts_with('#')) {
                ret.insert(k.trim_end().to_string(), Value::Str(v.trim_start().into()));
            }
        }
        return Ok(Value::Map(ret).into());
    }
    let sysctl = which("sysctl")?;
    let out = run(&[&sysctl, "-a"])?;
    for line in out.stdout.lines() {
        if let Some((k, v)) = line.split_once(" = ") {
            ret.insert(k.to_string(), Value::Str(v.to_string()));
        }
    }
    Ok(Value::Map(ret).into())
}

/// `sysctl -n NAME` as Salt's `cmd.run` gives it (stderr folded in, a
/// failure's exit code kept).
fn get(name: &str) -> Result<(String, i32), CallError> {
    let sysctl = which("sysctl")?;
    let out = run_merged(&[&sysctl, "-n", name])?;
    Ok((out.stdout, out.retcode))
}

fn get_fn(_: &Ctx<'_>, mut p: Params) -> Result<Return, CallError> {
    let name = into_string(p.require("name")?);
    p.finish()?;
    let (value, retcode) = get(&name)?;
    Ok(Return {
        value: Value::Str(value),
        retcode,
    })
}

/// `sysctl -w NAME=VALUE`, checked the way Salt checks it.
fn assign(name: &str, value: &str) -> Result<Map, CallError> {
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
        return Err(CallError::Failed(format!("sysctl {name} does not exist")));
    }
    let sysctl = which("sysctl")?;
    let data = run(&[&sysctl, "-w", &format!("{name}={value}")])?;
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
        return Err(CallError::Failed(format!("sysctl -w failed: {error}")));
    }
    let mut ret = Map::default();
    if let Some((k, v)) = data.stdout.split_once(" = ") {
        ret.insert(k.to_string(), Value::Str(v.to_string()));
    }
    Ok(ret)
}

fn assign_fn(_: &Ctx<'_>, mut p: Params) -> Result<Return, CallError> {
    let name = into_string(p.require("name")?);
    let value = p.require("value")?.to_python_str();
    p.finish()?;
    Ok(Value::Map(assign(&name, &value)?).into())
}

/// Runs of whitespace as one tab, as the kernel shows multi-field values.
fn sanitize(v: &str) -> String {
    v.split_whitespace().collect::<Vec<_>>().join("\t")
}

fn persist_fn(_: &Ctx<'_>, mut p: Params) -> Result<Return, CallError> {
    let name = into_string(p.require("name")?);
    let value = p.require("value")?.to_python_str();
    let config = opt_string(p.take("config")).unwrap_or_else(|| default_config().to_string());
    p.finish()?;
    let write_err = || CallError::Failed(format!("Could not write to file: {config}"));
    if !Path::new(&config).is_file() {
        let dir = brine_host::path::dirname(&config);
        if !dir.is_empty() && !Path::new(dir).exists() {
            std::fs::create_dir_all(dir).map_err(|_| write_err())?;
        }
        std::fs::write(&config, "#\n# Kernel sysctl configuration\n#\n")
            .map_err(|_| write_err())?;
    }
    let text = std::fs::read_to_string(&config)
        .map_err(|_| CallError::Failed(format!("Could not read from file: {config}")))?;
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
        let wanted = sanitize(&value);
        if sanitize(v) == wanted {
            let (now, _) = get(&name)?;
            if sanitize(&now) != wanted {
                assign(&name, &value)?;
                return Ok(Value::Str("Updated".into()).into());
            }
            return Ok(Value::Str("Already set".into()).into());
        }
        lines.push(format!("{name} = {value}\n"));
        edited = true;
    }
    if !edited {
        lines.push(format!("{name} = {value}\n"));
    }
    std::fs::write(&config, lines.concat()).map_err(|_| write_err())?;
    assign(&name, &value)?;
    Ok(Value::Str("Updated".into()).into())
}
