//! Salt's `mount` module, the reading part on Linux: the active mounts
//! (`/proc/self/mounts`, or `mountinfo` with `extended=True`) and the
//! entries of an fstab file.

use super::function::{sig, CallError, Ctx, Function, Return};
use super::params::Params;
use super::run::run;
use brine_core::{Map, Value};
use brine_host::accounts;
use std::collections::HashMap;
use std::path::Path;

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

fn str_v(s: &str) -> Value {
    Value::Str(s.to_string())
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

fn unreadable(path: &str) -> CallError {
    CallError::Failed(format!("File not readable {path}"))
}

fn active_mounts(alt: &HashMap<String, String>) -> Result<Map, CallError> {
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
fn blkid() -> HashMap<String, HashMap<String, String>> {
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

fn active_mountinfo(alt: &HashMap<String, String>) -> Result<Map, CallError> {
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

fn active(_: &Ctx<'_>, mut p: Params) -> Result<Return, CallError> {
    let extended = p.take("extended").is_some_and(|v| v.is_truthy());
    p.finish()?;
    let alt = list_mounts();
    let ret = if extended {
        active_mountinfo(&alt).or_else(|_| active_mounts(&alt))?
    } else {
        active_mounts(&alt)?
    };
    Ok(Value::Map(ret).into())
}

/// The fstab entries of `config` as Salt lists them.
fn read_fstab(config: &str) -> Map {
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
        // A second entry for the same mount point gets a '_' per repeat.
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
    if !Path::new(&config).is_file() {
        return Ok(Value::Map(Map::default()).into());
    }
    Ok(Value::Map(read_fstab(&config)).into())
}

fn is_mounted(_: &Ctx<'_>, mut p: Params) -> Result<Return, CallError> {
    let name = p.require("name")?;
    p.finish()?;
    let active = active_mounts(&list_mounts())?;
    Ok(Value::Bool(name.as_str().is_some_and(|n| active.contains_key(n))).into())
}

/// The fields of an fstab line, in order.
const FSTAB_KEYS: [&str; 6] = ["device", "name", "fstype", "opts", "dump", "pass_num"];

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

fn read_lines(config: &str) -> Result<Vec<String>, CallError> {
    std::fs::read_to_string(config)
        .map(|t| t.split_inclusive('\n').map(str::to_string).collect())
        .map_err(|e| CallError::Failed(format!("Couldn't read from {config}: {e}")))
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
    let criteria = [("name", name), ("device", device)];
    let lines = read_lines(&config)?;
    let kept: Vec<&String> = lines
        .iter()
        .filter(|l| fstab_match(l, &criteria) != Some(true))
        .collect();
    if kept.len() != lines.len() {
        let text: String = kept.into_iter().map(String::as_str).collect();
        std::fs::write(&config, text)
            .map_err(|e| CallError::Failed(format!("Couldn't write to {config}: {e}")))?;
    }
    Ok(Value::Bool(true).into())
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
    let entry: [(&str, String); 6] = [
        ("device", device.replace("\\ ", "\\040")),
        ("name", name),
        ("fstype", fstype),
        ("opts", opts.replace("\\ ", "\\040")),
        ("dump", dump),
        ("pass_num", pass_num),
    ];
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
    let keys: Vec<String> = if keys == ["auto"] {
        let by = if SPECIAL_FS.contains(&entry[2].1.as_str()) {
            "name"
        } else {
            "device"
        };
        vec![by.into()]
    } else {
        keys
    };
    let mut criteria: Vec<(&str, String)> = Vec::new();
    for k in &keys {
        match entry.iter().find(|(name, _)| name == k) {
            Some((name, v)) => criteria.push((name, v.clone())),
            None => {
                return Err(CallError::Failed(format!(
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
    if !Path::new(&config).is_file() {
        return Err(CallError::Failed(format!("Bad config file \"{config}\"")));
    }
    let line_of = format!(
        "{}\t\t{}\t{}\t{}\t{} {}\n",
        entry[0].1, entry[1].1, entry[2].1, entry[3].1, entry[4].1, entry[5].1
    );
    let mut ret: Option<&str> = None;
    let mut lines: Vec<String> = Vec::new();
    for line in read_lines(&config)? {
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
        std::fs::write(&config, lines.concat())
            .map_err(|_| CallError::Failed(format!("File not writable {config}")))?;
    }
    Ok(Value::Str(ret.into()).into())
}
