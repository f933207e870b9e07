//! Mounts as Salt's `mount` execution module handles them on Linux: the
//! active mounts (`/proc/self/mounts`, or `mountinfo` with blkid's UUIDs
//! and labels), the fstab file (read, entries set and removed), `mount`,
//! `umount` and remounts as Salt builds their command lines, active swap
//! (`/proc/swaps`, `swapon`), and Salt's mount cache (`CACHEDIR/mounts`).
//! The `mount` execution module and state module both go through here.

use brine_core::{Map, Value};
use brine_host::accounts;
use brine_host::exec::{self, CommandResult, CommandSpec, ExecError};
use std::collections::HashMap;
use std::path::Path;

/// What Salt raises (`CommandExecutionError`), or running a command failed.
#[derive(Debug, thiserror::Error)]
pub enum MountError {
    #[error("{0}")]
    Failed(String),
    #[error(transparent)]
    Exec(#[from] ExecError),
}

fn str_v(s: &str) -> Value {
    Value::Str(s.to_string())
}

fn run(argv: &[&str]) -> Result<CommandResult, MountError> {
    Ok(exec::run(&CommandSpec::argv(argv))?)
}

/// A command line as Salt writes it, split as `cmd.run_all` splits it
/// (shlex: the quotes Salt puts around paths go).
fn run_line(line: &str) -> Result<CommandResult, MountError> {
    let argv = brine_core::py::shlex_split(line).map_err(|e| MountError::Failed(e.to_string()))?;
    let argv: Vec<&str> = argv.iter().map(String::as_str).collect();
    if argv.is_empty() {
        return Err(MountError::Failed(format!("empty command line: {line}")));
    }
    run(&argv)
}

/// Mount points to devices as `mount -l` lists them.
fn list_mounts() -> HashMap<String, String> {
    let Ok(out) = run(&["mount", "-l"]) else {
        return HashMap::new();
    };
    out.stdout
        .lines()
        .filter_map(|line| {
            let comps: Vec<&str> = line.split_whitespace().collect();
            (comps.len() >= 3).then(|| (comps[2].to_string(), comps[0].to_string()))
        })
        .collect()
}

/// Mount options with `uid=`/`gid=` names made numeric, as Salt shows them.
fn resolve_opts(opts: &str) -> Value {
    Value::List(
        opts.split(',')
            .map(|opt| {
                let mut opt = opt.to_string();
                if let Some((key, given)) = opt.split_once('=') {
                    if (key == "uid" || key == "gid") && !given.chars().all(|c| c.is_ascii_digit())
                    {
                        let id = if key == "uid" {
                            accounts::uid_of(given)
                        } else {
                            accounts::gid_of(given)
                        };
                        if let Some(id) = id {
                            opt = format!("{key}={id}");
                        }
                    }
                }
                Value::Str(opt.replace("\\040", "\\ "))
            })
            .collect(),
    )
}

fn unreadable(path: &str) -> MountError {
    MountError::Failed(format!("File not readable {path}"))
}

fn active_mounts(alt: &HashMap<String, String>) -> Result<Map, MountError> {
    let path = "/proc/self/mounts";
    let text = std::fs::read_to_string(path).map_err(|_| unreadable(path))?;
    let mut ret = Map::default();
    for line in text.lines() {
        let comps: Vec<&str> = line.split_whitespace().collect();
        if comps.len() < 4 {
            continue;
        }
        let mut m = Map::default();
        m.insert("device".into(), str_v(comps[0]));
        m.insert(
            "alt_device".into(),
            alt.get(comps[1]).map_or(Value::Null, |d| str_v(d)),
        );
        m.insert("fstype".into(), str_v(comps[2]));
        m.insert("opts".into(), resolve_opts(comps[3]));
        ret.insert(comps[1].to_string(), Value::Map(m));
    }
    Ok(ret)
}

/// `blkid`'s answer: each device's tags (UUID, LABEL ...).
pub fn blkid() -> HashMap<String, HashMap<String, String>> {
    let Ok(out) = run(&["blkid"]) else {
        return HashMap::new();
    };
    let mut ret = HashMap::new();
    for line in out.stdout.lines() {
        let Some((dev, rest)) = line.split_once(": ") else {
            continue;
        };
        let tags = rest
            .split_whitespace()
            .filter_map(|kv| kv.split_once('='))
            .map(|(k, v)| (k.to_string(), v.trim_matches('"').to_string()))
            .collect();
        ret.insert(dev.to_string(), tags);
    }
    ret
}

fn active_mountinfo(alt: &HashMap<String, String>) -> Result<Map, MountError> {
    let path = "/proc/self/mountinfo";
    let text = std::fs::read_to_string(path).map_err(|_| unreadable(path))?;
    let blk = blkid();
    let mut ret = Map::default();
    for line in text.lines() {
        let comps: Vec<&str> = line.split_whitespace().collect();
        let Some(sep) = comps.iter().position(|c| *c == "-") else {
            continue;
        };
        if comps.len() < 6 || comps.len() < sep + 4 {
            continue;
        }
        let (major, minor) = comps[2].split_once(':').unwrap_or((comps[2], ""));
        let device = comps[sep + 2];
        let tags = blk.get(device);
        let uuid = tags
            .and_then(|t| t.get("UUID"))
            .map_or(Value::Null, |u| Value::Str(u.to_lowercase()));
        let label = tags
            .and_then(|t| t.get("LABEL"))
            .map_or(Value::Null, |l| str_v(l));
        let mut m = Map::default();
        m.insert("mountid".into(), str_v(comps[0]));
        m.insert("parentid".into(), str_v(comps[1]));
        m.insert("major".into(), str_v(major));
        m.insert("minor".into(), str_v(minor));
        m.insert("root".into(), str_v(comps[3]));
        m.insert("opts".into(), resolve_opts(comps[5]));
        m.insert("fstype".into(), str_v(comps[sep + 1]));
        m.insert("device".into(), Value::Str(device.replace("\\040", "\\ ")));
        m.insert(
            "alt_device".into(),
            alt.get(comps[4]).map_or(Value::Null, |d| str_v(d)),
        );
        m.insert("superopts".into(), resolve_opts(comps[sep + 3]));
        m.insert("device_uuid".into(), uuid);
        m.insert("device_label".into(), label);
        ret.insert(comps[4].to_string(), Value::Map(m));
    }
    Ok(ret)
}

/// Salt's `active`: the active mounts by mount point; `extended` reads
/// mountinfo (falling back to /proc/self/mounts).
pub fn active(extended: bool) -> Result<Map, MountError> {
    let alt = list_mounts();
    if extended {
        active_mountinfo(&alt).or_else(|_| active_mounts(&alt))
    } else {
        active_mounts(&alt)
    }
}

/// The fstab entries of `config` as Salt lists them (by mount point; a
/// repeated mount point gets a `_` per repeat); empty when unreadable.
pub fn read_fstab(config: &str) -> Map {
    let mut ret = Map::default();
    let Ok(text) = std::fs::read_to_string(config) else {
        return ret;
    };
    for line in text.lines() {
        if line.starts_with('#') {
            continue;
        }
        let mut comps: Vec<&str> = line.split_whitespace().collect();
        if !(4..=6).contains(&comps.len()) {
            continue;
        }
        comps.resize(6, "0");
        let mut name = comps[1].to_string();
        while ret.contains_key(&name) {
            name.push('_');
        }
        let mut m = Map::default();
        m.insert("device".into(), str_v(comps[0]));
        m.insert("fstype".into(), str_v(comps[2]));
        m.insert(
            "opts".into(),
            Value::List(comps[3].split(',').map(str_v).collect()),
        );
        m.insert("dump".into(), str_v(comps[4]));
        m.insert("pass".into(), str_v(comps[5]));
        ret.insert(name, Value::Map(m));
    }
    ret
}

/// Salt's `fstab`: the entries, `{}` when `config` is not a file.
pub fn fstab(config: &str) -> Map {
    if !Path::new(config).is_file() {
        return Map::default();
    }
    read_fstab(config)
}

/// The fields of an fstab line, in order.
pub const FSTAB_KEYS: [&str; 6] = ["device", "name", "fstype", "opts", "dump", "pass_num"];

/// An fstab line's six fields (missing trailing ones are "0"); `None` for
/// comments and lines of the wrong length (Salt's `ParseError`).
fn fstab_fields(line: &str) -> Option<Vec<String>> {
    if line.starts_with('#') {
        return None;
    }
    let mut comps: Vec<String> = line.split_whitespace().map(str::to_string).collect();
    if !(4..=6).contains(&comps.len()) {
        return None;
    }
    comps.resize(6, "0".to_string());
    Some(comps)
}

/// Whether the line has every `(field, value)` of `criteria` (options
/// compared as sorted lists); `None` when the line is not an entry.
fn fstab_match(line: &str, criteria: &[(&str, String)]) -> Option<bool> {
    let fields = fstab_fields(line)?;
    Some(criteria.iter().all(|(key, want)| {
        let i = FSTAB_KEYS.iter().position(|k| k == key).unwrap_or(0);
        if *key == "opts" {
            let mut have: Vec<&str> = fields[i].split(',').collect();
            let mut want: Vec<&str> = want.split(',').collect();
            have.sort_unstable();
            want.sort_unstable();
            have == want
        } else {
            fields[i] == *want
        }
    }))
}

fn read_lines(config: &str) -> Result<Vec<String>, MountError> {
    std::fs::read_to_string(config)
        .map(|t| t.split_inclusive('\n').map(str::to_string).collect())
        .map_err(|e| MountError::Failed(format!("Couldn't read from {config}: {e}")))
}

/// Salt's `rm_fstab`: the entries mounting DEVICE (any device when None)
/// on NAME removed.
pub fn rm_fstab(name: &str, device: Option<&str>, config: &str) -> Result<bool, MountError> {
    let mut criteria = vec![("name", name.to_string())];
    if let Some(d) = device {
        criteria.push(("device", d.to_string()));
    }
    let lines = read_lines(config)?;
    let kept: Vec<&String> = lines
        .iter()
        .filter(|l| fstab_match(l, &criteria) != Some(true))
        .collect();
    if kept.len() != lines.len() {
        let text: String = kept.into_iter().map(String::as_str).collect();
        std::fs::write(config, text)
            .map_err(|e| MountError::Failed(format!("Couldn't write to {config}: {e}")))?;
    }
    Ok(true)
}

/// File systems Salt matches by mount point rather than device.
const SPECIAL_FS: [&str; 13] = [
    "none",
    "tmpfs",
    "sysfs",
    "proc",
    "fusectl",
    "debugfs",
    "securityfs",
    "devtmpfs",
    "cgroup",
    "nfs",
    "nfs4",
    "glusterfs",
    "btrfs",
];

/// An fstab entry to set (Salt's `set_fstab` arguments).
pub struct FstabEntry<'a> {
    pub name: &'a str,
    pub device: &'a str,
    pub fstype: &'a str,
    /// Comma-joined.
    pub opts: &'a str,
    pub dump: &'a str,
    pub pass_num: &'a str,
}

/// Salt's `set_fstab`: the entry found by MATCH_ON (field names; `auto`:
/// the mount point for pseudo file systems, else the device) made equal
/// to ENTRY (unless NOT_CHANGE), or added: 'new', 'change' or 'present';
/// TEST writes nothing.
pub fn set_fstab(
    e: &FstabEntry,
    config: &str,
    match_on: &[String],
    test: bool,
    not_change: bool,
) -> Result<&'static str, MountError> {
    let entry: [(&str, String); 6] = [
        ("device", e.device.replace("\\ ", "\\040")),
        ("name", e.name.to_string()),
        ("fstype", e.fstype.to_string()),
        ("opts", e.opts.replace("\\ ", "\\040")),
        ("dump", e.dump.to_string()),
        ("pass_num", e.pass_num.to_string()),
    ];
    let keys: Vec<String> = if match_on == ["auto"] {
        let by = if SPECIAL_FS.contains(&entry[2].1.as_str()) {
            "name"
        } else {
            "device"
        };
        vec![by.into()]
    } else {
        match_on.to_vec()
    };
    let mut criteria: Vec<(&str, String)> = Vec::new();
    for k in &keys {
        match entry.iter().find(|(name, _)| name == k) {
            Some((name, v)) => criteria.push((name, v.clone())),
            None => {
                return Err(MountError::Failed(format!(
                    "Unrecognized keys in match_on: \"{}\"",
                    keys.iter()
                        .filter(|k| !FSTAB_KEYS.contains(&k.as_str()))
                        .cloned()
                        .collect::<Vec<_>>()
                        .join(", ")
                )))
            }
        }
    }
    if !Path::new(config).is_file() {
        return Err(MountError::Failed(format!("Bad config file \"{config}\"")));
    }
    let line_of = format!(
        "{}\t\t{}\t{}\t{}\t{} {}\n",
        entry[0].1, entry[1].1, entry[2].1, entry[3].1, entry[4].1, entry[5].1
    );
    let mut ret: Option<&'static str> = None;
    let mut lines: Vec<String> = Vec::new();
    for line in read_lines(config)? {
        if fstab_match(&line, &criteria) == Some(true) {
            ret = Some("present");
            if fstab_match(&line, &entry) == Some(true) || not_change {
                lines.push(line);
            } else {
                ret = Some("change");
                lines.push(line_of.clone());
            }
        } else {
            lines.push(line);
        }
    }
    let ret = match ret {
        Some(r) => r,
        None => {
            lines.push(line_of);
            "new"
        }
    };
    if ret != "present" && !test {
        std::fs::write(config, lines.concat())
            .map_err(|_| MountError::Failed(format!("File not writable {config}")))?;
    }
    Ok(ret)
}

/// `mkdir -p` of a mount point (Salt's `file.mkdir`), owned by USER.
pub fn mkdir(name: &str, user: Option<&str>) -> Result<(), MountError> {
    std::fs::create_dir_all(name).map_err(|e| MountError::Failed(format!("{name}: {e}")))?;
    if let Some(uid) = user.and_then(accounts::uid_of) {
        std::os::unix::fs::chown(name, Some(uid), None)
            .map_err(|e| MountError::Failed(format!("{name}: {e}")))?;
    }
    Ok(())
}

/// The `-o opts -t fstype` part of Salt's mount command lines.
fn mount_args(opts: Option<&[String]>, fstype: &str) -> String {
    let mut args = String::new();
    if let Some(o) = opts {
        args = format!("-o {}", o.join(","));
    }
    if !fstype.is_empty() {
        args.push_str(&format!(" -t {fstype}"));
    }
    args
}

/// Salt's `mount.mount`: DEVICE mounted on NAME (created first with
/// MKMNT); True, or mount's complaint.
pub fn mount(
    name: &str,
    device: Option<&str>,
    mkmnt: bool,
    fstype: &str,
    opts: Option<&[String]>,
    user: Option<&str>,
) -> Result<Result<(), String>, MountError> {
    if !Path::new(name).exists() && mkmnt {
        mkdir(name, user)?;
    }
    let args = mount_args(opts, fstype);
    let line = match device.filter(|d| !d.is_empty()) {
        Some(d) => format!("mount {args} '{d}' '{name}' "),
        None => format!("mount '{name}' "),
    };
    let out = run_as(&line, user)?;
    Ok(if out.retcode != 0 {
        Err(out.stderr)
    } else {
        Ok(())
    })
}

fn run_as(line: &str, user: Option<&str>) -> Result<CommandResult, MountError> {
    match user {
        None => run_line(line),
        Some(u) => {
            let argv =
                brine_core::py::shlex_split(line).map_err(|e| MountError::Failed(e.to_string()))?;
            Ok(exec::run(&CommandSpec {
                runas: Some(u.to_string()),
                ..CommandSpec::argv(&argv)
            })?)
        }
    }
}

/// Salt's `mount.remount`: NAME mounted again with OPTS (plus `remount`,
/// added to the caller's list as Salt does), or mounted when it is not.
pub fn remount(
    name: &str,
    device: &str,
    mkmnt: bool,
    fstype: &str,
    opts: &mut Vec<String>,
    user: Option<&str>,
) -> Result<Result<(), String>, MountError> {
    if !active(false)?.contains_key(name) {
        return mount(name, Some(device), mkmnt, fstype, Some(opts), user);
    }
    if !opts.iter().any(|o| o == "remount") {
        opts.push("remount".into());
    }
    let args = mount_args((!opts.is_empty()).then_some(opts.as_slice()), fstype);
    let out = run_as(&format!("mount {args} '{device}' '{name}' "), user)?;
    Ok(if out.retcode != 0 {
        Err(out.stderr)
    } else {
        Ok(())
    })
}

/// Salt's `mount.umount`: what is mounted on NAME unmounted (DEVICE named
/// instead when given; LAZY: `umount -l`). True, or why not.
pub fn umount(
    name: &str,
    device: Option<&str>,
    user: Option<&str>,
    lazy: bool,
) -> Result<Result<(), String>, MountError> {
    if !active(false)?.contains_key(name) {
        return Ok(Err(format!("{name} does not have anything mounted")));
    }
    let mut line = String::from("umount");
    if lazy {
        line.push_str(" -l");
    }
    match device.filter(|d| !d.is_empty()) {
        None => line.push_str(&format!(" '{name}'")),
        Some(d) => line.push_str(&format!(" '{d}'")),
    }
    let out = run_as(&line, user)?;
    Ok(if out.retcode != 0 {
        Err(out.stderr)
    } else {
        Ok(())
    })
}

/// Salt's `swaps`: the active swap areas (`/proc/swaps`) by file name.
pub fn swaps() -> Result<Map, MountError> {
    let text = std::fs::read_to_string("/proc/swaps")
        .map_err(|e| MountError::Failed(format!("/proc/swaps: {e}")))?;
    let mut ret = Map::default();
    for line in text.lines() {
        if line.starts_with("Filename") {
            continue;
        }
        let comps: Vec<&str> = line.split_whitespace().collect();
        if comps.len() < 5 {
            continue;
        }
        let mut m = Map::default();
        for (k, v) in ["type", "size", "used", "priority"]
            .iter()
            .zip(&comps[1..5])
        {
            m.insert((*k).into(), str_v(v));
        }
        ret.insert(comps[0].to_string(), Value::Map(m));
    }
    Ok(ret)
}

/// Salt's `swapon` (its answer unused by the state): `swapon NAME`.
pub fn swapon(name: &str) -> Result<(), MountError> {
    if swaps()?.contains_key(name) {
        return Ok(());
    }
    exec::run(&CommandSpec {
        merge_stderr: true,
        ..CommandSpec::argv(&["swapon", name])
    })?;
    Ok(())
}

/// Salt's mount cache file: `CACHEDIR/mounts`.
fn cache_file(cachedir: &str) -> String {
    format!("{cachedir}/mounts")
}

fn read_cache(cachedir: &str) -> Map {
    let Ok(text) = std::fs::read_to_string(cache_file(cachedir)) else {
        return Map::default();
    };
    match brine_core::yaml::load(&text) {
        Ok(Value::Map(m)) => m,
        _ => Map::default(),
    }
}

fn write_cache(cachedir: &str, cache: &Map) -> Result<(), MountError> {
    let text = brine_core::yaml::dump(&Value::Map(cache.clone()));
    std::fs::write(cache_file(cachedir), text)
        .map_err(|_| MountError::Failed("Unable to write mount cache.".into()))
}

/// Salt's `read_mount_cache`: what the cache knows of NAME (`{}` when
/// nothing).
pub fn read_mount_cache(cachedir: &str, name: &str) -> Map {
    match read_cache(cachedir).get("mounts") {
        Some(Value::Map(mounts)) => match mounts.get(name) {
            Some(Value::Map(m)) => m.clone(),
            _ => Map::default(),
        },
        _ => Map::default(),
    }
}

/// Salt's `write_mount_cache`.
pub fn write_mount_cache(
    cachedir: &str,
    real_name: &str,
    device: &str,
    mkmnt: bool,
    fstype: &str,
    opts: &[String],
) -> Result<(), MountError> {
    let mut cache = read_cache(cachedir);
    let mut mounts = match cache.shift_remove("mounts") {
        Some(Value::Map(m)) => m,
        _ => Map::default(),
    };
    let mut m = Map::default();
    m.insert("device".into(), str_v(device));
    m.insert("fstype".into(), str_v(fstype));
    m.insert("mkmnt".into(), Value::Bool(mkmnt));
    m.insert(
        "opts".into(),
        Value::List(opts.iter().map(|o| str_v(o)).collect()),
    );
    mounts.insert(real_name.to_string(), Value::Map(m));
    cache.insert("mounts".into(), Value::Map(mounts));
    write_cache(cachedir, &cache)
}

/// Salt's `delete_mount_cache`.
pub fn delete_mount_cache(cachedir: &str, real_name: &str) -> Result<(), MountError> {
    let mut cache = read_cache(cachedir);
    if let Some(Value::Map(mounts)) = cache.get_mut("mounts") {
        if mounts.shift_remove(real_name).is_some() {
            write_cache(cachedir, &cache)?;
        }
    }
    Ok(())
}
