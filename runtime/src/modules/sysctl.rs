//! Salt's `sysctl` module (linux_sysctl): kernel parameters read and set
//! through `sysctl`, and kept in a sysctl.conf-style file. The logic is the
//! sysctl state module's (`brine_states::modules::sysctl::kernel`).

use super::function::{sig, CallError, Ctx, Function, Return};
use super::params::{into_string, opt_string, Params};
use brine_core::Value;
use brine_states::modules::sysctl::kernel::{self, Configured, SysctlError};

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

fn failed(e: SysctlError) -> CallError {
    CallError::Failed(e.to_string())
}

fn default_config_fn(_: &Ctx<'_>, p: Params) -> Result<Return, CallError> {
    p.finish()?;
    Ok(Value::Str(kernel::default_config().into()).into())
}

fn show_fn(_: &Ctx<'_>, mut p: Params) -> Result<Return, CallError> {
    let config = p.take("config_file").filter(Value::is_truthy);
    p.finish()?;
    let Some(config) = config else {
        return Ok(Value::Map(kernel::show_all().map_err(failed)?).into());
    };
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
    Ok(match kernel::show_config(&config) {
        Configured::Missing => Value::List(Vec::new()),
        Configured::Unreadable => Value::Null,
        Configured::Set(m) => Value::Map(m),
    }
    .into())
}

fn get_fn(_: &Ctx<'_>, mut p: Params) -> Result<Return, CallError> {
    let name = into_string(p.require("name")?);
    p.finish()?;
    let out = kernel::get(&name).map_err(failed)?;
    Ok(Return {
        value: Value::Str(out.stdout),
        retcode: out.retcode,
    })
}

fn assign_fn(_: &Ctx<'_>, mut p: Params) -> Result<Return, CallError> {
    let name = into_string(p.require("name")?);
    let value = p.require("value")?.to_python_str();
    p.finish()?;
    Ok(Value::Map(kernel::assign(&name, &value).map_err(failed)?).into())
}

fn persist_fn(_: &Ctx<'_>, mut p: Params) -> Result<Return, CallError> {
    let name = into_string(p.require("name")?);
    let value = p.require("value")?.to_python_str();
    let config =
        opt_string(p.take("config")).unwrap_or_else(|| kernel::default_config().to_string());
    p.finish()?;
    let answer = kernel::persist(&name, &value, &config).map_err(failed)?;
    Ok(Value::Str(answer.into()).into())
}
