//! `mount.mounted` as Salt's `salt/states/mount.py` runs it: the device
//! mounted on NAME with OPTS (remounted when options or the device
//! differ), and its fstab entry persisted; the mount cache remembers the
//! options asked.

use super::system::{self, FstabEntry, MountError};
use crate::{StateCall, StateReturn};
use brine_core::{Map, Value};
use std::path::Path;

const INVISIBLE_OPTIONS: &[&str] = &[
    "_netdev",
    "actimeo",
    "bg",
    "comment",
    "defaults",
    "delay_connect",
    "direct-io-mode",
    "intr",
    "loop",
    "nointr",
    "nobootwait",
    "nofail",
    "password",
    "reconnect",
    "retry",
    "soft",
    "auto",
    "users",
    "bind",
    "nonempty",
    "transform_symlinks",
    "port",
    "backup-volfile-servers",
];

const INVISIBLE_KEYS: &[&str] = &[
    "actimeo",
    "comment",
    "credentials",
    "direct-io-mode",
    "password",
    "port",
    "retry",
    "secretfile",
];

/// A state argument as a list of texts (a comma-separated text split).
fn opt_list(v: Option<&Value>) -> Vec<String> {
    match v {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::List(l)) => l.iter().map(Value::to_python_str).collect(),
        Some(Value::Str(s)) => s.split(',').map(str::to_string).collect(),
        Some(other) => vec![other.to_python_str()],
    }
}

fn strs(v: Option<&Value>) -> Vec<String> {
    match v {
        Some(Value::List(l)) => l.iter().map(Value::to_python_str).collect(),
        _ => Vec::new(),
    }
}

/// Python's `os.path.realpath`: symlinks resolved as far as they exist, a
/// relative path taken from the current directory.
pub fn realpath(p: &str) -> String {
    let path = Path::new(p);
    let abs = if path.is_absolute() {
        path.to_path_buf()
    } else {
        std::env::current_dir().unwrap_or_default().join(path)
    };
    if let Ok(c) = std::fs::canonicalize(&abs) {
        return c.display().to_string();
    }
    // Resolve the longest existing ancestor, keep the rest as written.
    let mut rest = Vec::new();
    let mut cur = abs.as_path();
    while let Some(parent) = cur.parent() {
        if let Some(n) = cur.file_name() {
            rest.push(n.to_os_string());
        }
        if let Ok(c) = std::fs::canonicalize(parent) {
            let mut out = c;
            for n in rest.iter().rev() {
                out.push(n);
            }
            return out.display().to_string();
        }
        cur = parent;
    }
    abs.display().to_string()
}

/// Salt's `_size_convert`: a `size=N[kmg]` option in kilobytes.
fn size_in_k(opt: &str) -> Option<String> {
    let re = regex::Regex::new(r"^size=([0-9]+)(k|m|g)").ok()?;
    let c = re.captures(opt)?;
    let n: u128 = c[1].parse().ok()?;
    let k = match &c[2] {
        "m" => n * 1024,
        "g" => n * 1024 * 1024,
        _ => n,
    };
    Some(format!("size={k}k"))
}

fn list_of(m: &Map, key: &str) -> Vec<String> {
    strs(m.get(key))
}

fn str_of(m: &Map, key: &str) -> Option<String> {
    m.get(key).and_then(Value::as_str).map(str::to_string)
}

/// The `uid=`/`gid=` option with a name made numeric (Salt asks
/// user.info/group.info).
fn numeric_id(opt: String) -> String {
    let parts: Vec<&str> = opt.split('=').collect();
    if parts.len() < 2 || !(parts[0] == "uid" || parts[0] == "gid") {
        return opt;
    }
    let given = parts[1];
    let id = if given.chars().all(|c| c.is_ascii_digit()) && !given.is_empty() {
        None
    } else if parts[0] == "uid" {
        brine_host::accounts::uid_of(given)
    } else {
        brine_host::accounts::gid_of(given)
    };
    match id {
        Some(id) => format!("{}={id}", parts[0]),
        None => format!("{}={given}", parts[0]),
    }
}

pub fn mounted(call: &StateCall) -> StateReturn {
    let name_arg = call
        .arg("name")
        .map(Value::to_python_str)
        .unwrap_or_default();
    let device = call
        .arg("device")
        .map(Value::to_python_str)
        .unwrap_or_default();
    let fstype = call
        .arg("fstype")
        .map(Value::to_python_str)
        .unwrap_or_default();
    let mut ret = StateReturn::new(&name_arg);
    let fail = |mut r: StateReturn, c: &str| {
        r.result = Some(false);
        r.comment = c.to_string();
        r
    };
    if !call.arg("name").is_some_and(Value::is_truthy) {
        return fail(ret, "Must provide name to mount.mounted");
    }
    if !call.arg("device").is_some_and(Value::is_truthy) {
        return fail(ret, "Must provide device to mount.mounted");
    }
    if !call.arg("fstype").is_some_and(Value::is_truthy) {
        return fail(ret, "Must provide fstype to mount.mounted");
    }
    match run(call, &name_arg, &device, &fstype, &mut ret) {
        Ok(()) => ret,
        Err(e) => {
            let mut r = StateReturn::new(&name_arg);
            r.result = Some(false);
            r.comment = crate::raised(raised(&e));
            r
        }
    }
}

/// The exception as Salt's traceback ends.
fn raised(e: &MountError) -> String {
    match e {
        MountError::Failed(m) => format!("salt.exceptions.CommandExecutionError: {m}"),
        other => other.to_string(),
    }
}

/// The options check of an active mount: the options that force a
/// remount.
fn remount_triggers(
    call: &StateCall,
    opts: &[String],
    fstype: &str,
    active_opts: &[String],
    superopts: &mut Vec<String>,
) -> (Vec<String>, Option<String>) {
    let mut invisible: Vec<String> = INVISIBLE_OPTIONS.iter().map(|s| s.to_string()).collect();
    invisible.extend(strs(call.arg("extra_mount_invisible_options")));
    invisible.extend(opt_list(call.arg("hidden_opts")));
    let mut keys: Vec<String> = INVISIBLE_KEYS.iter().map(|s| s.to_string()).collect();
    keys.extend(strs(call.arg("extra_mount_invisible_keys")));
    let mut ignore_fs: Map = Map::default();
    ignore_fs.insert("ramfs".into(), Value::List(vec![Value::Str("size".into())]));
    if let Some(Value::Map(m)) = call.arg("extra_mount_ignore_fs_keys") {
        ignore_fs.extend(m.clone());
    }
    let ignored = strs(ignore_fs.get(fstype));
    let mut translate: Map = Map::default();
    translate.insert("tcp".into(), Value::Str("proto=tcp".into()));
    translate.insert("udp".into(), Value::Str("proto=udp".into()));
    if let Some(Value::Map(m)) = call.arg("extra_mount_translate_options") {
        translate.extend(m.clone());
    }
    let mut trigger = Vec::new();
    let mut last: Option<String> = None;
    for opt in opts {
        let mut opt = translate
            .get(opt)
            .map_or_else(|| opt.clone(), Value::to_python_str);
        let key = opt.split('=').next().unwrap_or_default().to_string();
        if keys.contains(&key) {
            opt = key;
        }
        if let Some(s) = size_in_k(&opt) {
            opt = s;
        }
        if fstype == "cifs" && opt.split('=').next() == Some("user") {
            opt = format!("username={}", opt.split('=').nth(1).unwrap_or_default());
        }
        if let Some(k) = opt
            .split('=')
            .next()
            .filter(|k| ignored.iter().any(|i| i == k))
        {
            opt = k.to_string();
        }
        opt = numeric_id(opt);
        // Salt's loop over the active superopts: any size option there
        // becomes the option compared (whatever it was).
        let sized: Vec<String> = superopts.iter().filter_map(|o| size_in_k(o)).collect();
        if let Some(s) = sized.last() {
            opt = s.clone();
            superopts.retain(|o| size_in_k(o).is_none());
            superopts.extend(sized.iter().cloned());
        }
        if !active_opts.contains(&opt)
            && !superopts.contains(&opt)
            && !invisible.contains(&opt)
            && !ignored.contains(&opt)
            && !keys.contains(&opt)
        {
            trigger.push(opt.clone());
        }
        last = Some(opt);
    }
    (trigger, last)
}

fn run(
    call: &StateCall,
    name_arg: &str,
    device: &str,
    fstype: &str,
    ret: &mut StateReturn,
) -> Result<(), MountError> {
    let test = call.test;
    let os = call
        .ctx
        .grains
        .get("os")
        .map(Value::to_python_str)
        .unwrap_or_default();
    let mkmnt = call.arg("mkmnt").is_some_and(Value::is_truthy);
    let mount_now = call.arg("mount").is_none_or(Value::is_truthy);
    let persist = call.arg("persist").is_none_or(Value::is_truthy);
    let user = call
        .arg("user")
        .filter(|v| !v.is_null())
        .map(Value::to_python_str);
    let user = user.as_deref();
    let copy_active = call
        .arg("bind_mount_copy_active_opts")
        .is_none_or(Value::is_truthy);
    let device_regexes = strs(call.arg("device_name_regex"));
    let mut opts_val = call
        .arg("opts")
        .cloned()
        .unwrap_or(Value::Str("defaults".into()));
    if ["MacOS", "Darwin"].contains(&os.as_str()) && opts_val == Value::Str("defaults".into()) {
        opts_val = Value::Str("noowners".into());
    }
    if os == "AIX" && opts_val == Value::Str("defaults".into()) {
        opts_val = Value::Str(String::new());
    }
    let mut opts = opt_list(Some(&opts_val));
    let name = if name_arg == "/" {
        name_arg.to_string()
    } else {
        name_arg.trim_end_matches('/').to_string()
    };
    let mut update_cache = false;
    let mut device_list: Vec<String> = Vec::new();
    let mut active = system::active(true)?;
    let real_name = realpath(&name);
    let comp_real_name = real_name.replace(' ', "\\040");
    let field = |active: &Map, at: &str, key: &str| -> Option<String> {
        active
            .get(at)
            .and_then(Value::as_map)
            .and_then(|m| str_of(m, key))
    };
    let mut real_device;
    if device.starts_with('/') {
        if opts.iter().any(|o| o == "bind") && active.contains_key(&comp_real_name) {
            let mut dev = device.replace(' ', "\\040");
            let mut add_bind = false;
            if field(&active, &comp_real_name, "device").is_some_and(|d| d.starts_with('/')) {
                // Find the mount the bind source lives on.
                loop {
                    if let Some(Value::Map(m)) = active.get(&dev) {
                        real_device = str_of(m, "device").unwrap_or_default();
                        if copy_active {
                            opts = merged(&opts, m);
                        }
                        add_bind = true;
                        break;
                    }
                    let next = brine_host::path::dirname(&dev.replace("\\040", " ")).to_string();
                    if next == dev {
                        real_device = String::new();
                        break;
                    }
                    dev = next;
                }
            } else {
                if let Some(Value::Map(m)) = active.get(&dev) {
                    if copy_active {
                        opts = merged(&opts, m);
                    }
                    add_bind = true;
                }
                real_device = field(&active, &comp_real_name, "device").unwrap_or_default();
            }
            if add_bind {
                if let Some(Value::Map(m)) = active.get_mut(&comp_real_name) {
                    let mut o = list_of(m, "opts");
                    o.push("bind".into());
                    m.insert(
                        "opts".into(),
                        Value::List(o.into_iter().map(Value::Str).collect()),
                    );
                }
            }
        } else {
            real_device = realpath(device);
        }
    } else if device.to_uppercase().starts_with("UUID=") {
        real_device = device
            .split('=')
            .nth(1)
            .unwrap_or_default()
            .trim_matches('"')
            .to_lowercase();
    } else if device.to_uppercase().starts_with("LABEL=") {
        let label = device.split('=').nth(1).unwrap_or_default();
        let out = brine_host::exec::run(&brine_host::exec::CommandSpec::argv(&[
            "blkid",
            "-t",
            &format!("LABEL={label}"),
        ]))?;
        if out.retcode > 0 {
            ret.comment = format!("Unable to find device with label {label}.");
            ret.result = Some(false);
            return Ok(());
        }
        // Salt walks the output text character by character here.
        device_list.extend(out.stdout.chars().map(|c| c.to_string()));
        real_device = device_list.first().cloned().unwrap_or_default();
    } else {
        real_device = device.to_string();
    }
    if let Some(c) = regex::Regex::new(r"^/dev/([^/]+)/([^/]+$)")
        .ok()
        .and_then(|re| re.captures(device))
    {
        let mapper = format!(
            "/dev/mapper/{}-{}",
            c[1].replace('-', "--"),
            c[2].replace('-', "--")
        );
        if Path::new(&mapper).exists() {
            real_device = mapper;
        }
    }
    if let Some(c) = regex::Regex::new(r"^\w+#(.+)")
        .ok()
        .and_then(|re| re.captures(device))
    {
        real_device = c[1].to_string();
    }

    if let Some(Value::Map(cur)) = active.get(&comp_real_name).cloned() {
        if mount_now {
            let dev0 = str_of(&cur, "device").unwrap_or_default();
            device_list.push(dev0.clone());
            device_list.push(realpath(&dev0));
            for key in ["alt_device", "device_uuid", "device_label"] {
                if let Some(d) = str_of(&cur, key).filter(|d| !d.is_empty()) {
                    if !device_list.contains(&d) {
                        device_list.push(d);
                    }
                }
            }
            if !opts.is_empty() {
                let mut superopts = list_of(&cur, "superopts");
                let (trigger, last_opt) =
                    remount_triggers(call, &opts, fstype, &list_of(&cur, "opts"), &mut superopts);
                if !trigger.is_empty() {
                    let mut sorted = trigger.clone();
                    sorted.sort();
                    let joined = sorted.join(",");
                    if test {
                        ret.result = None;
                        ret.comment =
                            format!("Remount would be forced because options ({joined}) changed");
                        return Ok(());
                    }
                    remount_for(
                        call, ret, &real_name, device, mkmnt, fstype, &mut opts, user, &joined,
                    )?;
                    update_cache = true;
                }
                let cachedir = cachedir(call);
                let cache = system::read_mount_cache(&cachedir, &real_name);
                if cache.contains_key("opts") {
                    let missing: Vec<String> = list_of(&cache, "opts")
                        .into_iter()
                        .filter(|o| !opts.contains(o))
                        .collect();
                    if !missing.is_empty() {
                        if test {
                            ret.result = None;
                            ret.comment = format!(
                                "Remount would be forced because options ({})changed",
                                missing.join(",")
                            );
                            return Ok(());
                        }
                        // Salt names the last option of its check here.
                        let named = last_opt.unwrap_or_default();
                        remount_for(
                            call, ret, &real_name, device, mkmnt, fstype, &mut opts, user, &named,
                        )?;
                        update_cache = true;
                    }
                } else {
                    update_cache = true;
                }
            }
            if !device_list.contains(&real_device) {
                let mut ignored: Option<String> = None;
                for re in device_regexes
                    .iter()
                    .filter_map(|r| regex::Regex::new(&format!("^(?:{r})")).ok())
                {
                    if let Some(d) = device_list.iter().find(|d| re.is_match(d)) {
                        ignored = Some(d.clone());
                    }
                }
                if let Some(d) = ignored {
                    ret.result = Some(true);
                    ret.comment = format!(
                        "An umount will not be forced because device matched device_name_regex: {d}"
                    );
                } else if test {
                    ret.result = None;
                    ret.comment = format!(
                        "An umount would have been forced because devices do not match.  Watched: {device}"
                    );
                } else {
                    let mut msg =
                        format!("Forced unmount because devices don't match. Wanted: {device}");
                    if real_device != device {
                        msg.push_str(&format!(" ({real_device})"));
                    }
                    msg.push_str(&format!(", current: {}", device_list.join(", ")));
                    ret.changes.insert("umount".into(), Value::Str(msg));
                    // Salt looks at the mount table rather than the answer.
                    let _unmounted = system::umount(&real_name, None, user, false)?;
                    active = system::active(true)?;
                    if active.contains_key(&comp_real_name) {
                        ret.comment = "Unable to unmount".into();
                        ret.result = Some(false);
                        return Ok(());
                    }
                    update_cache = true;
                }
            } else {
                ret.comment = "Target was already mounted".into();
            }
        }
    }
    if !active.contains_key(&comp_real_name) {
        let exists = Path::new(&name).exists();
        if mount_now {
            if test {
                ret.result = None;
                ret.comment = if exists {
                    format!("{name} would be mounted")
                } else if mkmnt {
                    format!("{name} would be created and mounted")
                } else {
                    format!("{name} does not exist and would not be created")
                };
                return Ok(());
            }
            if !exists && !mkmnt {
                ret.result = Some(false);
                ret.comment = "Mount directory is not present".into();
                return Ok(());
            }
            let out = system::mount(&name, Some(device), mkmnt, fstype, Some(&opts), user)?;
            active = system::active(true)?;
            update_cache = true;
            if let Err(msg) = out {
                ret.comment = msg;
                ret.result = Some(false);
                return Ok(());
            }
            if active.contains_key(&comp_real_name) {
                ret.comment = "Target was successfully mounted".into();
                ret.changes.insert("mount".into(), Value::Bool(true));
            }
        } else if !exists {
            if test {
                ret.result = None;
                ret.comment = if mkmnt {
                    format!("{name} would be created, but not mounted")
                } else {
                    format!("{name} does not exist and would neither be created nor mounted")
                };
            } else if mkmnt {
                system::mkdir(&name, user)?;
                ret.comment = format!("{name} was created, not mounted");
            } else {
                ret.comment = format!("{name} not present and not mounted");
            }
        } else {
            ret.comment = if test {
                format!("{name} would not be mounted")
            } else {
                format!("{name} not mounted")
            };
        }
    }
    if !persist {
        return Ok(());
    }
    let mut config = call
        .arg("config")
        .map_or_else(|| "/etc/fstab".to_string(), Value::to_python_str);
    if config == "/etc/fstab" {
        if ["MacOS", "Darwin"].contains(&os.as_str()) {
            config = "/etc/auto_salt".into();
        } else if os.contains("AIX") {
            config = "/etc/filesystems".into();
        }
    }
    let joined = opts.join(",");
    let dump = call
        .arg("dump")
        .map_or_else(|| "0".into(), Value::to_python_str);
    let pass_num = call
        .arg("pass_num")
        .map_or_else(|| "0".into(), Value::to_python_str);
    let entry = FstabEntry {
        name: &name,
        device,
        fstype,
        opts: &joined,
        dump: &dump,
        pass_num: &pass_num,
    };
    let match_on = match call.arg("match_on") {
        None => vec!["auto".to_string()],
        Some(Value::List(l)) => l.iter().map(Value::to_python_str).collect(),
        Some(Value::Str(s)) => vec![s.clone()],
        Some(_) => {
            return Err(MountError::Failed(
                "match_on must be a string or list of strings".into(),
            ))
        }
    };
    let out = system::set_fstab(&entry, &config, &match_on, test, false)?;
    if test && out != "present" {
        ret.result = None;
        let comment = match (out, mount_now) {
            ("new", true) => format!(
                "{name} is mounted, but needs to be written to the fstab in order to be made persistent."
            ),
            ("new", false) => {
                format!("{name} needs to be written to the fstab in order to be made persistent.")
            }
            (_, true) => format!("{name} is mounted, but its fstab entry must be updated."),
            (_, false) => format!("The {name} fstab entry must be updated."),
        };
        ret.comment = format!("{}. {comment}", ret.comment);
        return Ok(());
    }
    if update_cache {
        system::write_mount_cache(&cachedir(call), &real_name, device, mkmnt, fstype, &opts)?;
    }
    match out {
        "present" => ret.comment += ". Entry already exists in the fstab.",
        "new" => {
            ret.changes
                .insert("persist".into(), Value::Str("new".into()));
            ret.comment += ". Added new entry to the fstab.";
        }
        _ => {
            ret.changes
                .insert("persist".into(), Value::Str("update".into()));
            ret.comment += ". Updated the entry in the fstab.";
        }
    }
    Ok(())
}

/// Salt's `__opts__["cachedir"]`.
pub fn cachedir(call: &StateCall) -> String {
    call.ctx.opts.get("cachedir").map_or_else(
        || "/var/cache/salt/minion".to_string(),
        Value::to_python_str,
    )
}

/// The options asked and the active mount's (options and super options),
/// sorted and without repeats (Salt's copy for bind mounts).
fn merged(opts: &[String], active: &Map) -> Vec<String> {
    let mut all: Vec<String> = opts.to_vec();
    all.extend(list_of(active, "opts"));
    all.extend(list_of(active, "superopts"));
    all.sort();
    all.dedup();
    all
}

/// A remount forced by changed options (`what` names them): unmount and
/// mount again for network and FUSE file systems, else `mount -o remount`.
#[allow(clippy::too_many_arguments)]
fn remount_for(
    call: &StateCall,
    ret: &mut StateReturn,
    real_name: &str,
    device: &str,
    mkmnt: bool,
    fstype: &str,
    opts: &mut Vec<String>,
    user: Option<&str>,
    what: &str,
) -> Result<(), MountError> {
    let _ = call;
    if ["nfs", "cvfs"].contains(&fstype) || fstype.starts_with("fuse") {
        ret.changes.insert(
            "umount".into(),
            Value::Str(format!(
                "Forced unmount and mount because options ({what}) changed"
            )),
        );
        let mut first = system::umount(real_name, None, user, false)?;
        if first.is_err() {
            ret.changes.insert(
                "umount".into(),
                Value::Str(format!(
                    "Forced a lazy unmount and mount because the previous unmount failed and because the options ({what}) changed"
                )),
            );
            first = system::umount(real_name, None, user, true)?;
            if let Err(msg) = first {
                ret.result = Some(false);
                ret.comment = format!("Unable to unmount {real_name}: {msg}.");
                return Ok(());
            }
        }
        let out = system::mount(real_name, Some(device), mkmnt, fstype, Some(opts), user)?;
        ret.result = Some(out.is_ok());
        return Ok(());
    }
    ret.changes.insert(
        "umount".into(),
        Value::Str(format!("Forced remount because options ({what}) changed")),
    );
    let out = system::remount(real_name, device, mkmnt, fstype, opts, user)?;
    ret.result = Some(out.is_ok());
    opts.retain(|o| o != "remount");
    Ok(())
}
