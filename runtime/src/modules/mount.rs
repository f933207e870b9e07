//! Salt's `mount` module, the reading part on Linux: the active mounts
//! (`/proc/self/mounts`, or `mountinfo` with `extended=True`) and the
//! entries of an fstab file. The logic is the mount state module's
//! (`brine_states::modules::mount::system`).

use super::function::{sig, CallError, Ctx, Function, Return};
use super::params::Params;
use brine_core::{Map, Value};
use brine_states::modules::mount::system::{self, FstabEntry, MountError};

pub(super) const FUNCTIONS: &[Function] = &[
    Function::acts(
        "active",
        sig!(extended = false),
        "The active mounts by mount point: device, alt_device (as `mount -l` \
names it), fstype, opts; EXTENDED=True reads mountinfo and adds ids, \
major/minor, root, superopts and the device's UUID and label.\n\n    \
brine-call mount.active",
        active,
    ),
    Function::acts(
        "is_mounted",
        sig!(name),
        "True when NAME is an active mount point.\n\n    brine-call mount.is_mounted /srv",
        is_mounted,
    ),
    Function::acts(
        "rm_fstab",
        sig!(name, device, config = "/etc/fstab"),
        "Remove the entries mounting DEVICE on NAME from CONFIG (default \
/etc/fstab). True.\n\n    brine-call mount.rm_fstab /srv /dev/sdb1",
        rm_fstab,
    ),
    Function::acts(
        "set_fstab",
        sig!(
            name,
            device,
            fstype,
            opts = "defaults",
            dump = 0,
            pass_num = 0,
            config = "/etc/fstab",
            test = false,
            match_on = "auto",
            not_change = false,
            **kwargs
        ),
        "Make CONFIG (default /etc/fstab) mount DEVICE on NAME as FSTYPE with \
OPTS (default defaults), DUMP and PASS_NUM (default 0). The entry is found by \
MATCH_ON (a field name or list; 'auto': the mount point for pseudo file \
systems, else the device); NOT_CHANGE=True keeps a found entry as it is. \
'new', 'change' or 'present'; TEST=True writes nothing.\n\n    \
brine-call mount.set_fstab /srv /dev/sdb1 xfs opts=noatime",
        set_fstab,
    ),
    Function::acts(
        "fstab",
        sig!(config = "/etc/fstab"),
        "The entries of the fstab CONFIG (default /etc/fstab) by mount point: \
device, fstype, opts (a list), dump, pass ({} when the file does not \
exist).\n\n    brine-call mount.fstab\n    brine-call mount.fstab config=/mnt/etc/fstab",
        fstab,
    ),
];

fn failed(e: MountError) -> CallError {
    CallError::Failed(e.to_string())
}

fn active(_: &Ctx<'_>, mut p: Params) -> Result<Return, CallError> {
    let extended = p.take("extended").is_some_and(|v| v.is_truthy());
    p.finish()?;
    Ok(Value::Map(system::active(extended).map_err(failed)?).into())
}

fn fstab(_: &Ctx<'_>, mut p: Params) -> Result<Return, CallError> {
    let config = p.take("config");
    p.finish()?;
    let config = match config {
        None => "/etc/fstab".to_string(),
        Some(Value::Str(s)) => s,
        // os.path.isfile takes an int as a file descriptor: not a file here.
        Some(Value::Int(_) | Value::Bool(_)) => return Ok(Value::Map(Map::default()).into()),
        Some(other) => {
            return Err(CallError::InvalidArguments(format!(
                "stat: path should be string, bytes, os.PathLike or integer, not {}",
                other.type_name()
            )))
        }
    };
    Ok(Value::Map(system::fstab(&config)).into())
}

fn is_mounted(_: &Ctx<'_>, mut p: Params) -> Result<Return, CallError> {
    let name = p.require("name")?;
    p.finish()?;
    let active = system::active(false).map_err(failed)?;
    Ok(Value::Bool(name.as_str().is_some_and(|n| active.contains_key(n))).into())
}

fn config_arg(v: Option<Value>) -> String {
    v.filter(|v| !v.is_null())
        .map_or_else(|| "/etc/fstab".to_string(), |v| v.to_python_str())
}

fn rm_fstab(_: &Ctx<'_>, mut p: Params) -> Result<Return, CallError> {
    let name = p.require("name")?.to_python_str();
    let device = p.require("device")?.to_python_str();
    let config = config_arg(p.take("config"));
    p.finish()?;
    Ok(Value::Bool(system::rm_fstab(&name, Some(&device), &config).map_err(failed)?).into())
}

fn set_fstab(_: &Ctx<'_>, mut p: Params) -> Result<Return, CallError> {
    let name = p.require("name")?.to_python_str();
    let device = p.require("device")?;
    let fstype = p.require("fstype")?.to_python_str();
    let opts = p.take("opts");
    let dump = p
        .take("dump")
        .map_or_else(|| "0".to_string(), |v| v.to_python_str());
    let pass_num = p
        .take("pass_num")
        .map_or_else(|| "0".to_string(), |v| v.to_python_str());
    let config = config_arg(p.take("config"));
    let test = p.take("test").is_some_and(|v| v.is_truthy());
    let match_on = p.take("match_on");
    let not_change = p.take("not_change").is_some_and(|v| v.is_truthy());
    p.open_kwargs = true;
    p.finish()?;
    let opts = match opts {
        None => "defaults".to_string(),
        Some(Value::List(items)) => items
            .iter()
            .map(Value::to_python_str)
            .collect::<Vec<_>>()
            .join(","),
        Some(v) => v.to_python_str(),
    };
    let Value::Str(device) = device else {
        return Err(CallError::Failed(format!(
            "AttributeError: '{}' object has no attribute 'replace'",
            device.type_name()
        )));
    };
    let keys: Vec<String> = match match_on {
        None => vec!["auto".into()],
        Some(Value::List(items)) => items.iter().map(Value::to_python_str).collect(),
        Some(Value::Str(s)) => vec![s],
        Some(_) => {
            return Err(CallError::Failed(
                "match_on must be a string or list of strings".into(),
            ))
        }
    };
    let entry = FstabEntry {
        name: &name,
        device: &device,
        fstype: &fstype,
        opts: &opts,
        dump: &dump,
        pass_num: &pass_num,
    };
    let ret = system::set_fstab(&entry, &config, &keys, test, not_change).map_err(failed)?;
    Ok(Value::Str(ret.into()).into())
}
