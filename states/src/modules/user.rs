//! The `user` state module: `user.present` and `user.absent`, as Salt's
//! `salt/states/user.py` runs them over the `useradd` and `linux_shadow`
//! execution modules (`useradd`, `usermod`, `userdel`, `chage`, `passwd`),
//! reading `/etc/passwd`, `/etc/group` and `/etc/shadow` for the current
//! state.

pub mod crypt;
pub mod support;

use crate::{StateCall, StateFunction, StateModule, StateReturn};
use brine_core::sig;
use brine_core::{Map, Value};
use brine_host::accounts::EtcRoot;
use support::{failed, not_found, run_argv, which, ArgError, Args};

/// The `user` state module.
pub static MODULE: StateModule = StateModule {
    name: "user",
    doc: "Manage local users: present with their uid, groups, home, shell and \
password, or absent.",
    functions: &[
        StateFunction::new(
            "absent",
            sig!(name, purge = false, force = false, local = false),
            "Remove the user NAME if it exists (purge: with the home \
folder).",
            |call| absent(call, &EtcRoot::default()),
        ),
        StateFunction::new(
            "present",
            sig!(
                name,
                uid = null,
                gid = null,
                usergroup = null,
                groups = null,
                optional_groups = null,
                remove_groups = true,
                home = null,
                createhome = true,
                password = null,
                hash_password = false,
                enforce_password = true,
                empty_password = false,
                shell = null,
                unique = true,
                system = false,
                fullname = null,
                roomnumber = null,
                workphone = null,
                homephone = null,
                other = null,
                loginclass = null,
                date = null,
                mindays = null,
                maxdays = null,
                inactdays = null,
                warndays = null,
                expire = null,
                win_homedrive = null,
                win_profile = null,
                win_logonscript = null,
                win_description = null,
                nologinit = false,
                allow_uid_change = false,
                allow_gid_change = false,
                password_lock = null,
                local = false
            ),
            "The user NAME exists with the UID, GID, GROUPS, HOME, SHELL, \
PASSWORD and other fields given.",
            |call| {
                present(call, &EtcRoot::default()).unwrap_or_else(|e| e.into_return(call.name()))
            },
        ),
    ],
};

const REDACTED: &str = "XXX-REDACTED-XXX";
const GECOS_KEYS: [&str; 5] = ["fullname", "roomnumber", "workphone", "homephone", "other"];

/// The arguments of `user.present`.
#[derive(Debug, Clone, Default)]
pub struct Wanted {
    pub uid: Option<Value>,
    pub gid: Option<Value>,
    pub usergroup: Option<bool>,
    pub groups: Option<Vec<String>>,
    pub optional_groups: Option<Vec<String>>,
    pub remove_groups: bool,
    pub home: Option<String>,
    pub createhome: bool,
    pub password: Option<String>,
    pub hash_password: bool,
    pub enforce_password: bool,
    pub empty_password: bool,
    pub shell: Option<String>,
    pub unique: bool,
    pub system: bool,
    /// fullname, roomnumber, workphone, homephone, other.
    pub gecos: [Option<String>; 5],
    pub date: Option<Value>,
    pub mindays: Option<Value>,
    pub maxdays: Option<Value>,
    pub inactdays: Option<Value>,
    pub warndays: Option<Value>,
    pub expire: Option<Value>,
    pub nologinit: bool,
    pub allow_uid_change: bool,
    pub allow_gid_change: bool,
    pub password_lock: Option<bool>,
}

fn scalar(call: &StateCall, key: &str, what: &'static str) -> Result<Option<Value>, ArgError> {
    match call.value(key) {
        Some(v @ (Value::List(_) | Value::Map(_))) => Err(ArgError::new(key, what, v)),
        other => Ok(other.cloned()),
    }
}

impl Wanted {
    fn from_call(call: &StateCall) -> Result<Wanted, ArgError> {
        let mut gecos: [Option<String>; 5] = Default::default();
        for (slot, key) in gecos.iter_mut().zip(GECOS_KEYS) {
            *slot = call.opt_str(key)?;
        }
        Ok(Wanted {
            uid: scalar(call, "uid", "a number")?,
            gid: scalar(call, "gid", "a number or group name")?,
            usergroup: call.opt_bool("usergroup"),
            groups: call.opt_str_list("groups")?,
            optional_groups: call.opt_str_list("optional_groups")?,
            remove_groups: call.truthy("remove_groups", true),
            home: call.opt_str("home")?,
            createhome: call.truthy("createhome", true),
            password: call.opt_str("password")?,
            hash_password: call.truthy("hash_password", false),
            enforce_password: call.truthy("enforce_password", true),
            empty_password: call.truthy("empty_password", false),
            shell: call.opt_str("shell")?,
            unique: call.truthy("unique", true),
            system: call.truthy("system", false),
            gecos,
            date: scalar(call, "date", "a number")?,
            mindays: scalar(call, "mindays", "a number")?,
            maxdays: scalar(call, "maxdays", "a number")?,
            inactdays: scalar(call, "inactdays", "a number")?,
            warndays: scalar(call, "warndays", "a number")?,
            expire: scalar(call, "expire", "a number")?,
            nologinit: call.truthy("nologinit", false),
            allow_uid_change: call.truthy("allow_uid_change", false),
            allow_gid_change: call.truthy("allow_gid_change", false),
            password_lock: call.opt_bool("password_lock"),
        })
    }
}

fn truthy(v: &Option<Value>) -> bool {
    v.as_ref().is_some_and(Value::is_truthy)
}

fn truthy_str(v: &Option<String>) -> bool {
    v.as_ref().is_some_and(|s| !s.is_empty())
}

/// Whether the group list must change (Salt's `_group_changes`): groups
/// sharing a gid with another listed group do not count.
fn group_changes(root: &EtcRoot, cur: &[String], wanted: &[String], remove: bool) -> bool {
    let same = cur.iter().all(|c| wanted.contains(c)) && wanted.iter().all(|w| cur.contains(w));
    if same || (!remove && wanted.iter().all(|w| cur.contains(w))) {
        return false;
    }
    let mut all: Vec<&String> = cur.iter().collect();
    all.extend(wanted.iter().filter(|w| !cur.contains(w)));
    let gid = |g: &str| root.getgrnam(g).map(|e| e.gid);
    let mut diff: Vec<&String> = wanted.iter().filter(|w| !cur.contains(w)).collect();
    if remove {
        diff.extend(cur.iter().filter(|c| !wanted.contains(c)));
    }
    diff.iter().any(|d| {
        let dg = gid(d);
        !all.iter().any(|o| o != d && dg.is_some() && gid(o) == dg)
    })
}

/// The changes `user.present` must make, in Salt's order; `None` when the
/// user does not exist. `Err` carries Salt's message for a uid/gid change
/// that is not allowed.
pub fn changes(
    root: &EtcRoot,
    name: &str,
    w: &Wanted,
    gid: &Option<Value>,
    optional: &Option<Vec<String>>,
    allow_ids: bool,
) -> Result<Option<Vec<(String, Value)>>, String> {
    let Some(lusr) = root.user_info(name) else {
        return Ok(None);
    };
    let lshad = root.shadow_info(name);
    let cur_gid = lusr.get("gid").and_then(Value::as_i64).unwrap_or(-1);
    let cur_uid = lusr.get("uid").and_then(Value::as_i64).unwrap_or(-1);
    let text = |k: &str| {
        lusr.get(k)
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string()
    };
    let mut lgroups: Vec<String> = match lusr.get("groups") {
        Some(Value::List(l)) => l
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_string)
            .collect(),
        _ => Vec::new(),
    };
    let mut change: Vec<(String, Value)> = Vec::new();

    let mut wanted: Vec<String> = w.groups.clone().unwrap_or_default();
    wanted.extend(optional.clone().unwrap_or_default());
    wanted.sort();
    wanted.dedup();

    // Groups of the user that share a gid with another of its groups.
    let gids: Vec<Option<i64>> = lgroups
        .iter()
        .map(|g| root.getgrnam(g).map(|e| e.gid))
        .collect();
    let mut dupes: Vec<(Option<i64>, Vec<String>)> = Vec::new();
    for (idx, g) in gids.iter().enumerate() {
        if gids.iter().filter(|x| *x == g).count() > 1 {
            match dupes.iter_mut().find(|(k, _)| k == g) {
                Some((_, names)) => names.push(lgroups[idx].clone()),
                None => dupes.push((*g, vec![lgroups[idx].clone()])),
            }
        }
    }
    let in_dupes = |g: &str| dupes.iter().any(|(_, n)| n.iter().any(|x| x == g));
    let dupes_of = |g: &str| -> Vec<String> {
        let gid = root.getgrnam(g).map(|e| e.gid);
        dupes
            .iter()
            .find(|(k, _)| *k == gid)
            .map(|(_, n)| n.clone())
            .unwrap_or_default()
    };

    let no_optional = optional.as_ref().is_none_or(|o| o.is_empty());
    if !w.remove_groups || (w.groups.is_none() && no_optional) {
        wanted.extend(lgroups.iter().cloned());
        wanted.sort();
        wanted.dedup();
    }
    if truthy(&w.uid) && w.uid.as_ref() != Some(&Value::Int(cur_uid)) {
        change.push(("uid".into(), w.uid.clone().unwrap_or_default()));
    }
    if let Some(g) = gid {
        if g != &Value::Int(cur_gid) && root.group_to_gid(g) != Some(cur_gid) {
            change.push(("gid".into(), g.clone()));
        }
    }
    let default_grp = root.gid_to_group(gid.as_ref().unwrap_or(&Value::Int(cur_gid)));
    let old_default_grp = root.gid_to_group(&Value::Int(cur_gid));
    if let Value::Str(dg) = &default_grp {
        if lgroups.contains(dg) || wanted.contains(dg) {
            let drop: Vec<String> = if in_dupes(dg) {
                dupes_of(dg)
            } else {
                vec![dg.clone()]
            };
            lgroups.retain(|g| !drop.contains(g));
            wanted.retain(|g| !drop.contains(g));
        }
    }
    if old_default_grp != default_grp {
        if let Value::Str(og) = &old_default_grp {
            if lgroups.contains(og) {
                let drop: Vec<String> = if in_dupes(og) {
                    dupes_of(og)
                } else {
                    vec![og.clone()]
                };
                lgroups.retain(|g| !drop.contains(g));
            }
        }
    }
    if lgroups.iter().any(|g| g == name) && !wanted.iter().any(|g| g == name) {
        let drop: Vec<String> = if in_dupes(name) {
            dupes_of(name)
        } else {
            vec![name.to_string()]
        };
        lgroups.retain(|g| !drop.contains(g));
    }
    if group_changes(root, &lgroups, &wanted, w.remove_groups)
        && (!wanted.is_empty() || w.remove_groups)
    {
        change.push((
            "groups".into(),
            Value::List(wanted.iter().cloned().map(Value::Str).collect()),
        ));
    }
    if let Some(home) = w.home.as_ref().filter(|h| !h.is_empty()) {
        if text("home") != *home {
            change.push(("home".into(), Value::Str(home.clone())));
        }
    }
    if w.createhome {
        let newhome = w
            .home
            .clone()
            .filter(|h| !h.is_empty())
            .unwrap_or_else(|| text("home"));
        if !std::path::Path::new(&newhome).is_dir() {
            change.push(("homeDoesNotExist".into(), Value::Str(newhome)));
        }
    }
    if let Some(shell) = w.shell.as_ref().filter(|s| !s.is_empty()) {
        if text("shell") != *shell {
            change.push(("shell".into(), Value::Str(shell.clone())));
        }
    }
    let spasswd = lshad
        .get("passwd")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_string();
    if let Some(pw) = w.password.as_ref().filter(|p| !p.is_empty()) {
        if !w.empty_password && (spasswd == "!" || w.enforce_password) && spasswd != *pw {
            change.push(("passwd".into(), Value::Str(pw.clone())));
        }
    }
    if w.empty_password && !spasswd.is_empty() {
        change.push(("empty_password".into(), Value::Bool(true)));
    }
    for (key, field, want, need_truthy) in [
        ("date", "lstchg", &w.date, false),
        ("mindays", "min", &w.mindays, false),
        ("maxdays", "max", &w.maxdays, false),
        ("inactdays", "inact", &w.inactdays, false),
        ("warndays", "warn", &w.warndays, false),
        ("expire", "expire", &w.expire, true),
    ] {
        if let Some(v) = want {
            if (!need_truthy || v.is_truthy()) && lshad.get(field) != Some(v) {
                change.push((key.into(), v.clone()));
            }
        }
    }
    match w.password_lock {
        Some(true) if !spasswd.starts_with('!') => {
            change.push(("password_lock".into(), Value::Bool(true)))
        }
        Some(false) if spasswd.starts_with('!') => {
            change.push(("password_lock".into(), Value::Bool(false)))
        }
        _ => {}
    }
    for (key, want) in GECOS_KEYS.iter().zip(&w.gecos) {
        if let Some(v) = want {
            if text(key) != *v {
                change.push((key.to_string(), Value::Str(v.clone())));
            }
        }
    }
    if !allow_ids {
        let mut errors = Vec::new();
        if !w.allow_uid_change && change.iter().any(|(k, _)| k == "uid") {
            errors.push(format!(
                "Changing uid ({cur_uid} -> {}) not permitted, set allow_uid_change to True to force this change. Note that this will not change file ownership.",
                w.uid.clone().unwrap_or_default().to_python_str()
            ));
        }
        if !w.allow_gid_change && change.iter().any(|(k, _)| k == "gid") {
            errors.push(format!(
                "Changing gid ({cur_gid} -> {}) not permitted, set allow_gid_change to True to force this change. Note that this will not change file ownership.",
                gid.clone().unwrap_or_default().to_python_str()
            ));
        }
        if !errors.is_empty() {
            let lines: Vec<String> = errors.iter().map(|e| format!("- {e}")).collect();
            return Err(format!(
                "Encountered error checking for needed changes. Additional info follows:\n\n{}",
                lines.join("\n")
            ));
        }
    }
    Ok(Some(change))
}

/// Run a user tool by name; `Err` with Salt's message when it is missing.
pub fn tool(name: &str, args: &[String]) -> Result<brine_host::exec::CommandResult, String> {
    let path = which(name).ok_or_else(|| not_found(name))?;
    let mut argv = vec![path.display().to_string()];
    argv.extend(args.iter().cloned());
    run_argv(&argv, &[], None).map_err(|e| e.to_string())
}

fn s(v: &str) -> String {
    v.to_string()
}

/// `usermod PARAM VALUE NAME` unless the attribute already has the value
/// (Salt's `_chattrib`; `persist` moves the home's contents along, `-m`).
/// The `user.ch*` execution functions share it.
pub fn chattrib(
    root: &EtcRoot,
    name: &str,
    key: &str,
    value: &Value,
    param: &str,
    persist: bool,
) -> Result<(), String> {
    let Some(pre) = root.user_info(name) else {
        return Err(format!("User '{name}' does not exist"));
    };
    if pre.get(key) == Some(value) {
        return Ok(());
    }
    let mut args = Vec::new();
    if persist {
        args.push(s("-m"));
    }
    args.extend([s(param), value.to_python_str(), s(name)]);
    tool("usermod", &args).map(|_| ())
}

/// Set one GECOS field, keeping the others (Salt's `_update_gecos`).
pub fn update_gecos(root: &EtcRoot, name: &str, key: &str, value: &str) -> Result<(), String> {
    let Some(pre) = root.user_info(name) else {
        return Ok(());
    };
    let mut fields: Vec<String> = GECOS_KEYS
        .iter()
        .map(|k| {
            pre.get(*k)
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string()
        })
        .collect();
    let idx = GECOS_KEYS.iter().position(|k| *k == key).unwrap_or(0);
    if fields[idx] == value {
        return Ok(());
    }
    fields[idx] = value.to_string();
    let gecos = fields.join(",").trim_end_matches(',').to_string();
    tool("usermod", &[s("-c"), gecos, s(name)]).map(|_| ())
}

/// `user.chgroups`: set (or with `append` add) the supplementary groups;
/// whether usermod (or the gpasswd fallback) succeeded.
pub fn chgroups(
    root: &EtcRoot,
    name: &str,
    groups: &[String],
    append: bool,
) -> Result<bool, String> {
    let cur = root.group_list(name);
    let same = cur.iter().all(|c| groups.contains(c)) && groups.iter().all(|g| cur.contains(g));
    if same {
        return Ok(true);
    }
    let mut args = Vec::new();
    if append {
        args.push(s("-a"));
    }
    args.push(s("-G"));
    args.push(groups.join(","));
    args.push(s(name));
    let r = tool("usermod", &args)?;
    if r.retcode != 0 && r.stderr.contains("not found in") {
        let mut ok = true;
        for g in groups {
            let done = run_argv(&["gpasswd", "-a", name, g.as_str()], &[], None);
            ok &= done.is_ok_and(|d| d.retcode == 0);
        }
        return Ok(ok);
    }
    Ok(r.retcode == 0)
}

/// Days since the epoch today, local time (the `lstchg` Salt writes).
fn today_days() -> i64 {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0);
    let off = brine_host::sys::local_time(now).map_or(0, |t| t.utc_offset);
    (now + off).div_euclid(86400)
}

/// `shadow.set_password`: write the hash into `/etc/shadow` (and the
/// change date), replacing the file atomically.
fn set_password(root: &EtcRoot, name: &str, password: &str) -> Result<(), String> {
    if root.getpwnam(name).is_none() {
        return Ok(());
    }
    let path = root.shadow_path();
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let lstchg = today_days().to_string();
    let mut found = false;
    let mut out = String::with_capacity(text.len() + 64);
    for line in text.lines() {
        let mut comps: Vec<String> = line.trim().split(':').take(9).map(str::to_string).collect();
        if comps.first().map(String::as_str) == Some(name) {
            comps.resize(9, String::new());
            comps[1] = password.to_string();
            comps[2] = lstchg.clone();
            out.push_str(&comps.join(":"));
            found = true;
        } else {
            out.push_str(line);
        }
        out.push('\n');
    }
    if !found {
        out.push_str(&format!("{name}:{password}:{lstchg}::::::\n"));
    }
    write_like(&path, &out)
}

/// Replace `path` with `text`, keeping its mode and owner.
fn write_like(path: &std::path::Path, text: &str) -> Result<(), String> {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    let err = |e: std::io::Error| format!("{}: {e}", path.display());
    let meta = std::fs::metadata(path).map_err(err)?;
    let tmp = path.with_extension(format!("brine-{}", std::process::id()));
    std::fs::write(&tmp, text).map_err(err)?;
    let done =
        std::fs::set_permissions(&tmp, std::fs::Permissions::from_mode(meta.mode() & 0o7777))
            .and_then(|_| std::os::unix::fs::chown(&tmp, Some(meta.uid()), Some(meta.gid())))
            .and_then(|_| std::fs::rename(&tmp, path));
    if let Err(e) = done {
        let _ = std::fs::remove_file(&tmp);
        return Err(err(e));
    }
    Ok(())
}

/// `file.mkdir` for a new home: the folder and parents, owned by the user.
fn make_home(path: &str, uid: i64, gid: i64) {
    use std::os::unix::fs::PermissionsExt;
    if std::fs::create_dir_all(path).is_ok() {
        let _ = std::os::unix::fs::chown(path, u32::try_from(uid).ok(), u32::try_from(gid).ok());
        let _ = std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755));
    }
}

fn chage(name: &str, flag: &str, v: &Value) -> Result<(), String> {
    tool("chage", &[s(flag), v.to_python_str(), s(name)]).map(|_| ())
}

/// The password `hash_password` asks for: the existing salt is reused when
/// the current hash is a plain `$id$salt$hash`.
fn hashed(root: &EtcRoot, name: &str, password: &str) -> Result<String, String> {
    let cur = root.getspnam(name).map(|s| s.passwd).unwrap_or_default();
    let parts: Vec<&str> = cur.splitn(5, '$').collect();
    if let [_, algo, salt, _] = parts.as_slice() {
        return match *algo {
            "6" => Ok(crypt::sha512_crypt(password, salt)),
            "1" | "2a" | "5" => Err(format!(
                "hash_password: brine can only hash with sha512, not with the algorithm of the current hash ('{algo}')"
            )),
            // Salt falls back to the first crypt method, SHA-512.
            _ => Ok(crypt::sha512_crypt(password, salt)),
        };
    }
    Ok(crypt::sha512_crypt(password, &crypt::random_salt()))
}

/// `user.present`.
pub fn present(call: &StateCall, root: &EtcRoot) -> Result<StateReturn, ArgError> {
    let name = call.name();
    let mut w = Wanted::from_call(call)?;
    if let (Some(pw), true) = (w.password.clone(), w.hash_password) {
        if !pw.is_empty() {
            match hashed(root, name, &pw) {
                Ok(h) => w.password = Some(h),
                Err(e) => return Ok(failed(name, e)),
            }
        }
    }
    let mut ret = StateReturn::new(name);
    ret.comment = format!("User {name} is present and up to date");

    for field in w.gecos[..3].iter().flatten() {
        if field.contains(',') {
            return Ok(failed(name, format!("Unsupported char ',' in {field}")));
        }
    }
    if let Some(groups) = w.groups.as_ref().filter(|g| !g.is_empty()) {
        let missing: Vec<&str> = groups
            .iter()
            .filter(|g| root.getgrnam(g).is_none())
            .map(String::as_str)
            .collect();
        if !missing.is_empty() {
            return Ok(failed(
                name,
                format!(
                    "The following group(s) are not present: {}",
                    missing.join(",")
                ),
            ));
        }
    }
    let present_opt: Option<Vec<String>> = w
        .optional_groups
        .as_ref()
        .filter(|o| !o.is_empty())
        .map(|o| {
            o.iter()
                .filter(|g| root.getgrnam(g).is_some())
                .cloned()
                .collect()
        });

    let changes_gid = if w.usergroup == Some(true) && root.getgrnam(name).is_some() {
        Some(Value::Str(name.to_string()))
    } else {
        w.gid.clone()
    };
    let found = match changes(root, name, &w, &changes_gid, &present_opt, false) {
        Ok(c) => c,
        Err(e) => return Ok(failed(name, e)),
    };
    match found {
        None => Ok(create(call, root, &w, present_opt, ret)),
        Some(list) if list.is_empty() => Ok(ret),
        Some(list) => {
            if call.test {
                ret.result = None;
                ret.comment = "The following user attributes are set to be changed:\n".into();
                for (key, val) in &list {
                    let shown = if key == "passwd" {
                        REDACTED.to_string()
                    } else {
                        val.to_python_str()
                    };
                    ret.comment.push_str(&format!("{key}: {shown}\n"));
                }
                return Ok(ret);
            }
            if let Err(e) = update(root, name, &w, list, &mut ret) {
                return Ok(failed(name, e));
            }
            let again = changes(root, name, &w, &w.gid, &present_opt, true).unwrap_or_default();
            if let Some(left) = again.filter(|l| !l.is_empty()) {
                let m: Map = left.into_iter().collect();
                ret.comment = format!(
                    "These values could not be changed: {}",
                    Value::Map(m).to_python_repr()
                );
                ret.result = Some(false);
            }
            Ok(ret)
        }
    }
}

/// Apply the changes to an existing user and record what really changed.
fn update(
    root: &EtcRoot,
    name: &str,
    w: &Wanted,
    list: Vec<(String, Value)>,
    ret: &mut StateReturn,
) -> Result<(), String> {
    let lshad = root.shadow_info(name);
    let pre = root.user_info(name).unwrap_or_default();
    let mut ch: Map = list.into_iter().collect();
    let pre_uid = pre.get("uid").and_then(Value::as_i64).unwrap_or(0);
    let pre_gid = pre.get("gid").and_then(Value::as_i64).unwrap_or(0);

    if ch.shift_remove("passwd").is_some() && !w.empty_password {
        set_password(root, name, w.password.as_deref().unwrap_or(""))?;
    }
    if ch.shift_remove("empty_password") == Some(Value::Bool(true)) {
        tool("passwd", &[s("-d"), s(name)])?;
    }
    if let Some(lock) = ch.shift_remove("password_lock") {
        let flag = if lock.is_truthy() { "-l" } else { "-u" };
        tool("passwd", &[s(flag), s(name)])?;
    }
    if let Some(date) = ch.shift_remove("date") {
        chage(name, "-d", &date)?;
    }
    let mut home_changed = false;
    if let Some(home) = ch.shift_remove("home") {
        if !ch.contains_key("homeDoesNotExist") {
            chattrib(root, name, "home", &home, "-d", false)?;
            home_changed = true;
        }
    }
    if let Some(home) = ch.shift_remove("homeDoesNotExist") {
        if !home_changed {
            chattrib(root, name, "home", &home, "-d", false)?;
        }
        let path = home.to_python_str();
        if !std::path::Path::new(&path).is_dir() {
            make_home(&path, pre_uid, pre_gid);
        }
    }
    for (key, flag) in [
        ("mindays", "-m"),
        ("maxdays", "-M"),
        ("inactdays", "-I"),
        ("warndays", "-W"),
        ("expire", "-E"),
    ] {
        if let Some(v) = ch.shift_remove(key) {
            chage(name, flag, &v)?;
        }
    }
    let groups = ch.shift_remove("groups");
    for (key, val) in ch {
        match key.as_str() {
            "uid" => chattrib(root, name, "uid", &val, "-u", false)?,
            "gid" => chattrib(root, name, "gid", &val, "-g", false)?,
            "shell" => chattrib(root, name, "shell", &val, "-s", false)?,
            k if GECOS_KEYS.contains(&k) => update_gecos(root, name, k, &val.to_python_str())?,
            _ => {}
        }
    }
    if let Some(Value::List(g)) = groups {
        let g: Vec<String> = g.iter().map(Value::to_python_str).collect();
        chgroups(root, name, &g, !w.remove_groups)?;
    }

    let post = root.user_info(name).unwrap_or_default();
    for (key, val) in &post {
        if pre.get(key) != Some(val) {
            ret.changes.insert(key.clone(), val.clone());
        }
    }
    let pw_same = match &w.password {
        Some(p) => lshad.get("passwd") == Some(&Value::Str(p.clone())),
        None => false,
    };
    if !pw_same {
        let spost = root.shadow_info(name);
        for (key, val) in &spost {
            if lshad.get(key) != Some(val) {
                let shown = if key == "passwd" {
                    Value::Str(REDACTED.into())
                } else {
                    val.clone()
                };
                ret.changes.insert(key.clone(), shown);
            }
        }
    }
    if !ret.changes.is_empty() {
        ret.comment = format!("Updated user {name}");
    }
    Ok(())
}

/// A shadow setting applied after `useradd`: argument, shadow field,
/// `chage` flag, wanted value, wording, and whether 0 means "leave it".
type Setting<'a> = (&'a str, &'a str, &'a str, &'a Option<Value>, &'a str, bool);

/// Create the user (`user.add` and the follow-up settings).
/// Held by the tests that create real accounts and groups: the shadow
/// tools lock /etc/passwd and /etc/group and fail when another holds them.
#[cfg(test)]
pub static ACCOUNTS_LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// An account `useradd` is to create (Salt's `user.add` arguments).
pub struct NewUser<'a> {
    pub name: &'a str,
    pub uid: Option<&'a Value>,
    pub gid: Option<&'a Value>,
    pub usergroup: Option<bool>,
    pub groups: Option<&'a [String]>,
    pub home: Option<&'a str>,
    pub shell: Option<&'a str>,
    pub createhome: bool,
    pub nologinit: bool,
    pub unique: bool,
    pub system: bool,
    /// fullname, roomnumber, workphone, homephone, other.
    pub gecos: [Option<&'a str>; 5],
}

/// What `useradd` did: its exit code, and (when it succeeded) how setting
/// the groups and GECOS fields afterwards went.
pub struct Added {
    pub retcode: i32,
    pub rest: Result<(), String>,
}

/// Salt's `user.add`: `useradd` with Salt's flags, then the supplementary
/// groups and GECOS fields. `user.present` and the `user.add` execution
/// function both create accounts through it.
pub fn useradd(root: &EtcRoot, u: &NewUser<'_>) -> Result<Added, String> {
    let name = u.name;
    let mut args: Vec<String> = Vec::new();
    if let Some(shell) = u.shell.filter(|s| !s.is_empty()) {
        args.extend([s("-s"), s(shell)]);
    }
    let given = |v: Option<&Value>| {
        v.filter(|x| !x.is_null() && **x != Value::Str(String::new()))
            .map(Value::to_python_str)
    };
    if let Some(uid) = given(u.uid) {
        args.extend([s("-u"), uid]);
    }
    if let Some(gid) = given(u.gid) {
        args.extend([s("-g"), gid]);
    } else if u.usergroup == Some(true) {
        args.push(s("-U"));
    } else if u.groups.is_some_and(|g| g.iter().any(|x| x == name)) && login_defs_usergroups() {
        // useradd would make the group NAME itself; Salt names it as the
        // primary group instead.
        let gid = root
            .getgrnam(name)
            .map(|g| g.gid.to_string())
            .unwrap_or_default();
        args.extend([s("-g"), gid]);
    }
    if u.usergroup == Some(false) {
        args.push(s("-N"));
    }
    args.push(s(if u.createhome { "-m" } else { "-M" }));
    if u.nologinit {
        args.push(s("-l"));
    }
    if let Some(home) = u.home {
        args.extend([s("-d"), s(home)]);
    }
    if !u.unique {
        args.push(s("-o"));
    }
    if u.system {
        args.push(s("-r"));
    }
    args.push(s(name));
    let r = tool("useradd", &args)?;
    if r.retcode != 0 {
        tracing::error!("useradd {name} failed: {}", r.stderr);
        return Ok(Added {
            retcode: r.retcode,
            rest: Ok(()),
        });
    }
    let rest = (|| -> Result<(), String> {
        if let Some(g) = u.groups.filter(|g| !g.is_empty()) {
            chgroups(root, name, g, false)?;
        }
        for (key, v) in GECOS_KEYS.iter().zip(u.gecos) {
            if let Some(v) = v.filter(|v| !v.is_empty()) {
                update_gecos(root, name, key, v)?;
            }
        }
        Ok(())
    })();
    Ok(Added { retcode: 0, rest })
}

fn create(
    call: &StateCall,
    root: &EtcRoot,
    w: &Wanted,
    present_opt: Option<Vec<String>>,
    mut ret: StateReturn,
) -> StateReturn {
    let name = call.name();
    if call.test {
        ret.result = None;
        ret.comment = format!("User {name} set to be added");
        return ret;
    }
    let mut groups = w.groups.clone();
    if let Some(opt) = present_opt.filter(|o| !o.is_empty()) {
        match groups.as_mut().filter(|g| !g.is_empty()) {
            Some(g) => g.extend(opt),
            None => groups = Some(opt),
        }
    }
    let new = NewUser {
        name,
        uid: w.uid.as_ref(),
        gid: w.gid.as_ref(),
        usergroup: w.usergroup,
        groups: groups.as_deref(),
        home: w.home.as_deref(),
        shell: w.shell.as_deref(),
        createhome: w.createhome,
        nologinit: w.nologinit,
        unique: w.unique,
        system: w.system,
        gecos: std::array::from_fn(|i| w.gecos[i].as_deref()),
    };
    match useradd(root, &new) {
        Err(e) => return failed(name, e),
        Ok(added) if added.retcode != 0 => {
            ret.result = Some(false);
            ret.comment = format!("Failed to create new user {name}");
            return ret;
        }
        Ok(Added { rest: Err(e), .. }) => return failed(name, e),
        Ok(_) => {}
    }
    ret.comment = format!("New user {name} created");
    ret.changes = root.user_info(name).unwrap_or_default();
    if !w.createhome {
        ret.changes.insert("home".into(), Value::Str(String::new()));
    }
    let shadow = |k: &str| root.shadow_info(name).get(k).cloned().unwrap_or_default();
    if let Some(pw) = w
        .password
        .as_ref()
        .filter(|p| !p.is_empty() && !w.empty_password)
    {
        if let Err(e) = set_password(root, name, pw) {
            return failed(name, e);
        }
        if shadow("passwd") != Value::Str(pw.clone()) {
            ret.comment = format!("User {name} created but failed to set password to {REDACTED}");
            ret.result = Some(false);
        }
        ret.changes
            .insert("password".into(), Value::Str(REDACTED.into()));
    }
    if w.empty_password && !truthy_str(&w.password) {
        let _ = tool("passwd", &[s("-d"), s(name)]);
        if shadow("passwd") != Value::Str(String::new()) {
            ret.comment = format!("User {name} created but failed to empty password");
            ret.result = Some(false);
        }
        ret.changes
            .insert("password".into(), Value::Str(String::new()));
    }
    let settings: [Setting; 6] = [
        ("date", "lstchg", "-d", &w.date, "last change date", false),
        ("mindays", "min", "-m", &w.mindays, "minimum days", true),
        ("maxdays", "max", "-M", &w.maxdays, "maximum days", true),
        (
            "inactdays",
            "inact",
            "-I",
            &w.inactdays,
            "inactive days",
            true,
        ),
        ("warndays", "warn", "-W", &w.warndays, "warn days", true),
        ("expire", "expire", "-E", &w.expire, "expire days", true),
    ];
    for (key, field, flag, want, what, need_truthy) in settings {
        let Some(v) = want else { continue };
        if need_truthy && !v.is_truthy() {
            continue;
        }
        let _ = chage(name, flag, v);
        if shadow(field) != *v {
            ret.comment = if key == "warndays" {
                format!(
                    "User {name} created but failed to set warn days to {}",
                    v.to_python_str()
                )
            } else {
                format!(
                    "User {name} created but failed to set {what} to {}",
                    v.to_python_str()
                )
            };
            ret.result = Some(false);
        }
        ret.changes.insert(key.into(), v.clone());
    }
    ret
}

/// Whether `/etc/login.defs` turns on `USERGROUPS_ENAB`.
fn login_defs_usergroups() -> bool {
    let Ok(text) = std::fs::read_to_string("/etc/login.defs") else {
        return false;
    };
    for line in text.lines() {
        let head: String = line.chars().take(15).collect();
        if head.contains("USERGROUPS_ENAB") {
            return line.contains("yes");
        }
    }
    false
}

/// `user.absent`.
/// Salt's `user.delete`: `userdel` (`-r` with `remove`, `-f` with
/// `force`); whether the account is gone, and userdel's exit code. Debian's
/// userdel exits 12 when only the mail spool was missing: that is success
/// there. `user.absent` and the `user.delete` execution function share it.
pub fn userdel(name: &str, remove: bool, force: bool, debian: bool) -> Result<(bool, i32), String> {
    let mut args = Vec::new();
    if remove {
        args.push(s("-r"));
    }
    if force {
        args.push(s("-f"));
    }
    args.push(s(name));
    let r = tool("userdel", &args)?;
    let ok = match r.retcode {
        0 => true,
        12 => debian && (r.stderr.contains("var/mail") || r.stderr.contains("var/spool/mail")),
        _ => false,
    };
    Ok((ok, r.retcode))
}

pub fn absent(call: &StateCall, root: &EtcRoot) -> StateReturn {
    let name = call.name();
    let mut ret = StateReturn::new(name);
    if root.getpwnam(name).is_none() {
        ret.comment = format!("User {name} is not present");
        return ret;
    }
    if call.test {
        ret.result = None;
        ret.comment = format!("User {name} set for removal");
        return ret;
    }
    let before = root.group_list(name);
    let debian = call.ctx.grains.get("os_family").and_then(Value::as_str) == Some("Debian");
    let purge = call.truthy("purge", false);
    let ok = match userdel(name, purge, call.truthy("force", false), debian) {
        Err(e) => return failed(name, e),
        Ok((ok, _)) => ok,
    };
    if !ok {
        ret.result = Some(false);
        ret.comment = format!("Failed to remove user {name}");
        return ret;
    }
    for g in before.iter().filter(|g| root.getgrnam(g).is_none()) {
        ret.changes
            .insert(format!("{g} group"), Value::Str("removed".into()));
    }
    ret.changes
        .insert(name.into(), Value::Str("removed".into()));
    ret.comment = format!("Removed user {name}");
    ret
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch_root(tag: &str, passwd: &str, group: &str, shadow: &str) -> EtcRoot {
        EtcRoot::scratch(tag, passwd, group, shadow).unwrap()
    }
    use crate::modules::group::tests::{ctx, is_root, low, strs};

    fn run(
        root: &EtcRoot,
        fun: &str,
        name: &str,
        test: bool,
        args: &[(&str, Value)],
    ) -> StateReturn {
        let ctx = ctx();
        let low = low("user", fun, name, args);
        let call = StateCall {
            low: &low,
            test,
            ctx: &ctx,
        };
        match fun {
            "present" => present(&call, root).unwrap_or_else(|e| e.into_return(name)),
            _ => absent(&call, root),
        }
    }

    /// Test-mode answers over scratch account files; the expected texts are
    /// what real Salt 3007.8 printed for the same situations.
    #[test]
    fn test_mode_answers_match_salt() {
        let root = scratch_root(
            "user",
            "u1:x:1001:1001::/tmp:/bin/sh\n",
            "u1:x:1001:\ndaemon:x:1:\nbin:x:2:\n",
            "u1:!:20000:0:99999:7:::\n",
        );
        let r = run(&root, "present", "u2", true, &[]);
        assert_eq!(
            (r.result, r.comment.as_str()),
            (None, "User u2 set to be added")
        );
        let r = run(&root, "present", "u1", true, &[]);
        assert_eq!(
            (r.result, r.comment.as_str()),
            (Some(true), "User u1 is present and up to date")
        );
        let r = run(
            &root,
            "present",
            "u1",
            true,
            &[
                ("shell", Value::Str("/bin/sh".into())),
                ("fullname", Value::Str("Fred Jones".into())),
            ],
        );
        assert_eq!(r.result, None);
        assert_eq!(
            r.comment,
            "The following user attributes are set to be changed:\nfullname: Fred Jones\n"
        );
        let r = run(
            &root,
            "present",
            "u1",
            true,
            &[("groups", strs(&["daemon", "bin"]))],
        );
        assert_eq!(
            r.comment,
            "The following user attributes are set to be changed:\ngroups: ['bin', 'daemon']\n"
        );
        let r = run(
            &root,
            "present",
            "u1",
            true,
            &[("password", Value::Str("$6$abc$xyz".into()))],
        );
        assert_eq!(
            r.comment,
            "The following user attributes are set to be changed:\npasswd: XXX-REDACTED-XXX\n"
        );
        let r = run(
            &root,
            "present",
            "u1",
            true,
            &[("groups", strs(&["daemon", "nosuch"]))],
        );
        assert_eq!(
            (r.result, r.comment.as_str()),
            (
                Some(false),
                "The following group(s) are not present: nosuch"
            )
        );
        let r = run(&root, "present", "u1", true, &[("uid", Value::Int(45200))]);
        assert_eq!(r.result, Some(false));
        assert_eq!(r.comment, "Encountered error checking for needed changes. Additional info follows:\n\n- Changing uid (1001 -> 45200) not permitted, set allow_uid_change to True to force this change. Note that this will not change file ownership.");
        let r = run(&root, "present", "u1", true, &[("gid", Value::Int(0))]);
        assert!(r.comment.ends_with("- Changing gid (1001 -> 0) not permitted, set allow_gid_change to True to force this change. Note that this will not change file ownership."));
        let r = run(
            &root,
            "present",
            "u1",
            true,
            &[("fullname", Value::Str("a,b".into()))],
        );
        assert_eq!(
            (r.result, r.comment.as_str()),
            (Some(false), "Unsupported char ',' in a,b")
        );
        // The primary group is never a change; remove_groups=False only adds.
        let r = run(&root, "present", "u1", true, &[("groups", strs(&["u1"]))]);
        assert_eq!(r.result, Some(true), "{}", r.comment);
        let r = run(
            &root,
            "present",
            "u1",
            true,
            &[
                ("home", Value::Str("/nonexistent/brine".into())),
                ("uid", Value::Int(1001)),
            ],
        );
        assert_eq!(r.comment, "The following user attributes are set to be changed:\nhome: /nonexistent/brine\nhomeDoesNotExist: /nonexistent/brine\n");
        let r = run(
            &root,
            "present",
            "u1",
            true,
            &[("shell", Value::List(vec![]))],
        );
        assert_eq!(r.result, Some(false));
        assert!(r.comment.contains("'shell'"));
        let r = run(&root, "absent", "u1", true, &[]);
        assert_eq!(
            (r.result, r.comment.as_str()),
            (None, "User u1 set for removal")
        );
        let r = run(&root, "absent", "u9", true, &[]);
        assert_eq!(
            (r.result, r.comment.as_str()),
            (Some(true), "User u9 is not present")
        );
        let _ = std::fs::remove_dir_all(&root.0);
    }

    /// Values of every type for every argument: a failed state or an
    /// answer, never a panic (test mode, scratch account files).
    #[test]
    fn odd_arguments_never_panic() {
        let root = scratch_root(
            "uodd",
            "u1:x:5:5:a,b:/nonexistent:/bin/sh\n",
            "u1:x:5:\ng:x:5:u1\n",
            "u1:$6$a$b:1::::::\n",
        );
        let keys = [
            "uid",
            "gid",
            "usergroup",
            "groups",
            "optional_groups",
            "remove_groups",
            "home",
            "createhome",
            "password",
            "hash_password",
            "enforce_password",
            "empty_password",
            "shell",
            "unique",
            "system",
            "fullname",
            "roomnumber",
            "workphone",
            "homephone",
            "other",
            "date",
            "mindays",
            "maxdays",
            "inactdays",
            "warndays",
            "expire",
            "nologinit",
            "allow_uid_change",
            "allow_gid_change",
            "password_lock",
            "purge",
            "force",
        ];
        for key in keys {
            for v in crate::modules::group::tests::odd_values() {
                for name in ["u1", "u2", ""] {
                    let _ = run(&root, "present", name, true, &[(key, v.clone())]);
                    let _ = run(&root, "absent", name, true, &[(key, v.clone())]);
                }
            }
        }
        let _ = std::fs::remove_dir_all(&root.0);
    }

    /// Removes the test user, group and home folders even when an
    /// assertion fails.
    struct Cleanup(Vec<(&'static str, String)>, Vec<std::path::PathBuf>);
    impl Drop for Cleanup {
        fn drop(&mut self) {
            for (cmd, what) in &self.0 {
                let _ = run_argv(&[*cmd, "-f", what.as_str()], &[], None);
                let _ = run_argv(&[*cmd, what.as_str()], &[], None);
            }
            for dir in &self.1 {
                let _ = std::fs::remove_dir_all(dir);
            }
        }
    }

    /// Real users made and changed with useradd/usermod/chage and removed
    /// with userdel; the answers are those real Salt gave for the same steps.
    #[test]
    fn real_user_lifecycle() {
        if !is_root() || which("useradd").is_none() {
            println!("skipped: needs root and useradd");
            return;
        }
        let _accounts = ACCOUNTS_LOCK
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let pid = std::process::id();
        let u = format!("brinet-{pid}");
        let g = format!("brinet-{pid}-g");
        let home = std::env::temp_dir().join(format!("brinet-home-{pid}"));
        let home2 = std::env::temp_dir().join(format!("brinet-home2-{pid}"));
        let _cleanup = Cleanup(
            vec![("userdel", u.clone()), ("groupdel", g.clone())],
            vec![home.clone(), home2.clone()],
        );
        let root = EtcRoot::default();
        let real = |fun: &str, args: &[(&str, Value)]| run(&root, fun, &u, false, args);
        assert_eq!(
            run_argv(&["groupadd", g.as_str()], &[], None)
                .unwrap()
                .retcode,
            0
        );

        let r = real(
            "present",
            &[
                ("gid", Value::Str(g.clone())),
                ("home", Value::Str(home.display().to_string())),
                ("createhome", Value::Bool(false)),
                ("shell", Value::Str("/bin/bash".into())),
                ("fullname", Value::Str("Bob".into())),
                ("system", Value::Bool(true)),
                ("password", Value::Str("$6$abc$xyz".into())),
            ],
        );
        assert_eq!(
            (r.result, r.comment.as_str()),
            (Some(true), format!("New user {u} created").as_str())
        );
        let keys: Vec<&str> = r.changes.keys().map(String::as_str).collect();
        assert_eq!(
            keys,
            [
                "gid",
                "groups",
                "home",
                "name",
                "passwd",
                "shell",
                "uid",
                "fullname",
                "roomnumber",
                "workphone",
                "homephone",
                "other",
                "password"
            ]
        );
        assert_eq!(r.changes["home"], Value::Str(String::new()));
        assert_eq!(r.changes["groups"], strs(&[g.as_str()]));
        assert_eq!(r.changes["password"], Value::Str(REDACTED.into()));
        assert_eq!(root.getspnam(&u).unwrap().passwd, "$6$abc$xyz");
        assert!(!home.exists());

        let r = real(
            "present",
            &[
                ("home", Value::Str(home2.display().to_string())),
                ("password", Value::Str("$6$abc$xyz".into())),
            ],
        );
        assert_eq!(r.comment, format!("Updated user {u}"));
        assert_eq!(r.changes.keys().collect::<Vec<_>>(), ["home"]);
        assert!(home2.is_dir());

        let r = real("present", &[("password", Value::Str("$6$abc$xyz".into()))]);
        assert_eq!(
            (r.result, r.comment.as_str()),
            (
                Some(true),
                format!("User {u} is present and up to date").as_str()
            )
        );

        let r = real("present", &[("password", Value::Str("$6$abc$xyzw".into()))]);
        assert_eq!(r.comment, format!("Updated user {u}"));
        assert_eq!(r.changes.get("passwd"), Some(&Value::Str(REDACTED.into())));

        let r = real(
            "present",
            &[
                ("groups", strs(&["bin"])),
                ("remove_groups", Value::Bool(false)),
            ],
        );
        assert_eq!(r.changes.get("groups"), Some(&strs(&["bin", g.as_str()])));
        let r = real("present", &[("groups", strs(&["daemon"]))]);
        assert_eq!(
            r.changes.get("groups"),
            Some(&strs(&[g.as_str(), "daemon"]))
        );
        assert_eq!(root.group_list(&u), [g.clone(), "daemon".to_string()]);

        let r = real(
            "present",
            &[
                ("fullname", Value::Str("Fred Jones".into())),
                ("mindays", Value::Int(3)),
            ],
        );
        assert_eq!(
            r.changes.get("fullname"),
            Some(&Value::Str("Fred Jones".into()))
        );
        assert_eq!(r.changes.get("min"), Some(&Value::Int(3)));

        let r = real(
            "present",
            &[
                ("password", Value::Str("secret".into())),
                ("hash_password", Value::Bool(true)),
            ],
        );
        assert_eq!(r.result, Some(true), "{}", r.comment);
        assert_eq!(
            root.getspnam(&u).unwrap().passwd,
            crypt::sha512_crypt("secret", "abc")
        );
        assert_eq!(r.changes.keys().collect::<Vec<_>>(), ["passwd"]);

        let r = real("present", &[("empty_password", Value::Bool(true))]);
        assert_eq!(r.changes.get("passwd"), Some(&Value::Str(REDACTED.into())));
        assert_eq!(root.getspnam(&u).unwrap().passwd, "");
        let test = |args: &[(&str, Value)]| run(&root, "present", &u, true, args).comment;
        assert_eq!(
            test(&[("password_lock", Value::Bool(true))]),
            "The following user attributes are set to be changed:\npassword_lock: True\n"
        );
        assert_eq!(
            test(&[("optional_groups", strs(&["bin", "brinet-nosuch"]))]),
            "The following user attributes are set to be changed:\ngroups: ['bin']\n"
        );
        assert_eq!(
            test(&[
                ("groups", strs(&["daemon"])),
                ("optional_groups", strs(&["bin"]))
            ]),
            "The following user attributes are set to be changed:\ngroups: ['bin', 'daemon']\n"
        );
        assert_eq!(
            test(&[("usergroup", Value::Bool(true))]),
            format!("User {u} is present and up to date")
        );

        let r = real("absent", &[("purge", Value::Bool(true))]);
        assert_eq!(
            (r.result, r.comment.as_str()),
            (Some(true), format!("Removed user {u}").as_str())
        );
        assert_eq!(r.changes.get(&u), Some(&Value::Str("removed".into())));
        assert!(root.getpwnam(&u).is_none());
        let r = real("absent", &[]);
        assert_eq!(r.comment, format!("User {u} is not present"));
    }
}
