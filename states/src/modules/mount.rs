//! The `mount` state module (Salt's `salt/states/mount.py`): `mounted`
//! (in [`mounted`]), `unmounted`, `swap` and `mod_watch` (a remount), over
//! the logic the `mount` execution module shares ([`system`]).

mod mounted;
pub mod system;

use crate::{StateCall, StateFunction, StateModule, StateReturn};
use brine_core::sig;
use brine_core::Value;
use system::MountError;

/// The `mount` state module.
pub static MODULE: StateModule = StateModule {
    name: "mount",
    doc: "Manage mounts and swap: mounted now and kept in the fstab, or not.",
    functions: &[
        StateFunction::new(
            "mod_watch",
            sig!(name, user = null, **kwargs),
            "What a watch on a mount.mounted state runs: remount NAME.",
            mod_watch,
        ),
        StateFunction::new(
            "mounted",
            sig!(
                name,
                device,
                fstype,
                mkmnt = false,
                opts = "defaults",
                dump = 0,
                pass_num = 0,
                config = "/etc/fstab",
                persist = true,
                mount = true,
                user = null,
                match_on = "auto",
                device_name_regex = null,
                extra_mount_invisible_options = null,
                extra_mount_invisible_keys = null,
                extra_mount_ignore_fs_keys = null,
                extra_mount_translate_options = null,
                hidden_opts = null,
                bind_mount_copy_active_opts = true,
                **kwargs
            ),
            "DEVICE (a path, UUID=, LABEL=) is mounted on NAME as FSTYPE with OPTS \
(remounted when they change; MKMNT creates NAME), and has its fstab entry in CONFIG \
(PERSIST); MOUNT=False only writes the entry.",
            mounted::mounted,
        ),
        StateFunction::new(
            "swap",
            sig!(name, persist = true, config = "/etc/fstab"),
            "The swap file or device NAME is active, and listed in CONFIG \
(PERSIST).",
            swap,
        ),
        StateFunction::new(
            "unmounted",
            sig!(
                name,
                device = null,
                config = "/etc/fstab",
                persist = false,
                user = null,
                **kwargs
            ),
            "Nothing is mounted on NAME (DEVICE unmounted when given); PERSIST \
also removes NAME's entry from CONFIG.",
            unmounted,
        ),
    ],
};

fn raised(name: &str, e: &MountError) -> StateReturn {
    let mut r = StateReturn::new(name);
    r.result = Some(false);
    r.comment = match e {
        MountError::Failed(m) => {
            crate::raised(format!("salt.exceptions.CommandExecutionError: {m}"))
        }
        other => crate::raised(other),
    };
    r
}

fn text(call: &StateCall, key: &str) -> Option<String> {
    call.arg(key)
        .filter(|v| !v.is_null())
        .map(Value::to_python_str)
}

fn os_grain(call: &StateCall) -> String {
    call.ctx
        .grains
        .get("os")
        .map(Value::to_python_str)
        .unwrap_or_default()
}

fn unmounted(call: &StateCall) -> StateReturn {
    let name = call.name().to_string();
    match unmounted_run(call, &name) {
        Ok(r) => r,
        Err(e) => raised(&name, &e),
    }
}

fn unmounted_run(call: &StateCall, name: &str) -> Result<StateReturn, MountError> {
    let mut ret = StateReturn::new(name);
    if name.is_empty() {
        ret.result = Some(false);
        ret.comment = "Must provide name to mount.unmounted".into();
        return Ok(ret);
    }
    let device = text(call, "device").filter(|d| !d.is_empty());
    let user = text(call, "user");
    let active = system::active(true)?;
    let comp = name.replace(' ', "\\040");
    let mut update_cache = false;
    if !active.contains_key(&comp) {
        ret.comment = "Target was already unmounted".into();
    } else {
        if call.test {
            ret.result = None;
            ret.comment = format!("Mount point {name} is mounted but should not be");
            return Ok(ret);
        }
        let out = system::umount(name, device.as_deref(), user.as_deref(), false)?;
        update_cache = true;
        match out {
            Err(msg) => {
                ret.comment = msg;
                ret.result = Some(false);
            }
            Ok(()) => {
                ret.comment = "Target was successfully unmounted".into();
                ret.changes.insert("umount".into(), Value::Bool(true));
            }
        }
    }
    if update_cache {
        system::delete_mount_cache(&mounted::cachedir(call), name)?;
    }
    if !call.arg("persist").is_some_and(Value::is_truthy) {
        return Ok(ret);
    }
    let config = text(call, "config").unwrap_or_else(|| "/etc/fstab".into());
    if ["MacOS", "Darwin"].contains(&os_grain(call).as_str()) || os_grain(call).contains("AIX") {
        ret.result = Some(false);
        ret.comment = format!(
            "{}. brine keeps mounts only in an fstab, not in {}'s files",
            ret.comment,
            os_grain(call)
        );
        return Ok(ret);
    }
    let fstab = system::fstab(&config);
    let Some(Value::Map(entry)) = fstab.get(name) else {
        ret.comment += ". fstab entry not found";
        return Ok(ret);
    };
    if let Some(d) = &device {
        if entry.get("device").map(Value::to_python_str).as_deref() != Some(d.as_str()) {
            ret.comment += &format!(". fstab entry for device {d} not found");
            return Ok(ret);
        }
    }
    if call.test {
        ret.result = None;
        ret.comment = format!(
            "Mount point {name} is unmounted but needs to be purged from {config} to be made persistent"
        );
        return Ok(ret);
    }
    if system::rm_fstab(name, device.as_deref(), &config)? {
        ret.comment += ". Removed target from fstab";
        ret.changes
            .insert("persist".into(), Value::Str("purged".into()));
    } else {
        ret.result = Some(false);
        ret.comment += ". Failed to persist purge";
    }
    Ok(ret)
}

fn swap(call: &StateCall) -> StateReturn {
    let name = call.name().to_string();
    match swap_run(call, &name) {
        Ok(r) => r,
        Err(e) => raised(&name, &e),
    }
}

fn swap_run(call: &StateCall, name: &str) -> Result<StateReturn, MountError> {
    let mut ret = StateReturn::new(name);
    let mut on = system::swaps()?;
    let real = match std::fs::read_link(name) {
        Ok(target) => {
            let t = target.display().to_string();
            if t.starts_with('/') {
                t
            } else {
                format!("/dev/{}", brine_host::path::basename(&t))
            }
        }
        Err(_) => name.to_string(),
    };
    if on.contains_key(&real) {
        ret.comment = format!("Swap {name} already active");
    } else if call.test {
        ret.result = None;
        ret.comment = format!("Swap {name} is set to be activated");
    } else {
        system::swapon(&real)?;
        on = system::swaps()?;
        match on.get(&real) {
            Some(Value::Map(stats)) => {
                ret.comment = format!("Swap {name} activated");
                ret.changes = stats.clone();
            }
            _ => {
                ret.comment = format!("Swap {name} failed to activate");
                ret.result = Some(false);
            }
        }
    }
    if !call.arg("persist").is_none_or(Value::is_truthy) {
        return Ok(ret);
    }
    let config = text(call, "config").unwrap_or_else(|| "/etc/fstab".into());
    let fstab = system::fstab(&config);
    if call.test {
        let listed = fstab.contains_key(name)
            || fstab
                .values()
                .any(|e| e.get("device").and_then(Value::as_str) == Some(name));
        if !listed {
            ret.result = None;
            if on.contains_key(name) {
                ret.comment =
                    format!("Swap {name} is set to be added to the fstab and to be activated");
            }
        }
        return Ok(ret);
    }
    if let Some(Value::Map(none)) = fstab.get("none") {
        let dev = none.get("device").and_then(Value::as_str);
        let fstype = none.get("fstype").and_then(Value::as_str);
        if dev == Some(name) && fstype != Some("swap") {
            return Ok(ret);
        }
    }
    let entry = system::FstabEntry {
        name: "none",
        device: name,
        fstype: "swap",
        opts: "defaults",
        dump: "0",
        pass_num: "0",
    };
    match system::set_fstab(&entry, &config, &["auto".to_string()], false, false)? {
        "new" => {
            ret.changes
                .insert("persist".into(), Value::Str("new".into()));
            ret.comment += ". Added new entry to the fstab.";
        }
        "change" => {
            ret.changes
                .insert("persist".into(), Value::Str("update".into()));
            ret.comment += ". Updated the entry in the fstab.";
        }
        _ => {}
    }
    Ok(ret)
}

fn mod_watch(call: &StateCall) -> StateReturn {
    let name = call.name().to_string();
    let mut ret = StateReturn::new(&name);
    let sfun = text(call, "sfun").unwrap_or_default();
    if sfun != "mounted" {
        ret.comment = format!("Watch not supported in {sfun} at this time");
        return ret;
    }
    let (Some(device), Some(opts)) = (text(call, "device"), call.arg("opts")) else {
        ret.result = Some(false);
        ret.comment = crate::raised("KeyError: 'device'");
        return ret;
    };
    let fstype = text(call, "fstype").unwrap_or_default();
    let mut opts: Vec<String> = match opts {
        Value::List(l) => l.iter().map(Value::to_python_str).collect(),
        other => other
            .to_python_str()
            .split(',')
            .map(str::to_string)
            .collect(),
    };
    let user = text(call, "user");
    match system::remount(&name, &device, false, &fstype, &mut opts, user.as_deref()) {
        Ok(Ok(())) => ret.comment = format!("{name} remounted"),
        Ok(Err(msg)) => {
            ret.result = Some(false);
            ret.comment = format!("{name} failed to remount: {msg}");
        }
        Err(e) => return raised(&name, &e),
    }
    ret
}

#[cfg(test)]
mod tests {
    /// Salt's answers for the mount scenarios of testdata/sys_cases.py:
    /// real tmpfs and bind mounts, a scratch fstab, in a private mount
    /// namespace.
    #[test]
    fn mount_states_match_salt() {
        super::super::sysreplay::run("mount_", crate::modules::MODULES);
    }
}
