//! `file.absent`, `file.exists`, `file.missing`, `file.symlink`,
//! `file.touch` and `file.append`, as Salt 3007.8 words their returns.

use super::args::{failed, Args};
use super::difflib;
use super::fsutil::{self, Owner};
use super::replace;
use super::texts::{str_list, template_texts, unify_sources};
use crate::{StateCall, StateReturn};
use brine_core::{Map, Value};
use brine_host::accounts;
use std::path::Path;

pub fn absent(call: &StateCall, raw_name: &str) -> Result<StateReturn, String> {
    let name = fsutil::expanduser(raw_name);
    if name.is_empty() {
        return Ok(failed(&name, "Must provide name to file.absent"));
    }
    if !fsutil::isabs(&name) {
        return Ok(failed(
            &name,
            format!("Specified file {name} is not an absolute path"),
        ));
    }
    if name == "/" {
        return Ok(failed(&name, "Refusing to make \"/\" absent"));
    }
    let path = Path::new(&name);
    let mut ret = StateReturn::new(&name);
    let kind = if path.is_file() || path.is_symlink() {
        Some("File")
    } else if path.is_dir() {
        Some("Directory")
    } else {
        None
    };
    let Some(kind) = kind else {
        ret.comment = format!("File {name} is not present");
        return Ok(ret);
    };
    if call.test {
        ret.result = None;
        ret.changes
            .insert("removed".into(), Value::Str(name.clone()));
        ret.comment = format!("{kind} {name} is set for removal");
        return Ok(ret);
    }
    match fsutil::remove(path) {
        Ok(_) => {
            ret.comment = format!("Removed {} {name}", kind.to_lowercase());
            ret.changes
                .insert("removed".into(), Value::Str(name.clone()));
            Ok(ret)
        }
        Err(_) if kind == "Directory" => {
            Ok(failed(&name, format!("Failed to remove directory {name}")))
        }
        Err(e) => Ok(failed(
            &name,
            format!(
                "Could not remove '{name}': {}",
                fsutil::py_os_error(&e, path)
            ),
        )),
    }
}

pub fn exists(raw_name: &str) -> Result<StateReturn, String> {
    let name = fsutil::expanduser(raw_name);
    if name.is_empty() {
        return Ok(failed(&name, "Must provide name to file.exists"));
    }
    if !Path::new(&name).exists() {
        return Ok(failed(
            &name,
            format!("Specified path {name} does not exist"),
        ));
    }
    let mut ret = StateReturn::new(&name);
    ret.comment = format!("Path {name} exists");
    Ok(ret)
}

pub fn missing(raw_name: &str) -> Result<StateReturn, String> {
    let name = fsutil::expanduser(raw_name);
    if name.is_empty() {
        return Ok(failed(&name, "Must provide name to file.missing"));
    }
    if Path::new(&name).exists() {
        return Ok(failed(&name, format!("Specified path {name} exists")));
    }
    let mut ret = StateReturn::new(&name);
    ret.comment = format!("Path {name} is missing");
    Ok(ret)
}

/// Owner and group names of a link itself.
fn link_owner(path: &Path) -> (String, String) {
    match fsutil::stats(path, false) {
        Ok(st) => (st.user, st.group),
        Err(_) => (String::new(), String::new()),
    }
}

fn link_owned_by(path: &Path, user: &Owner, group: &Owner) -> bool {
    match fsutil::stats(path, false) {
        Ok(st) => user.matches(&st.user, st.uid) && group.matches(&st.group, st.gid),
        Err(_) => false,
    }
}

fn set_link_owner(path: &Path, user: &Owner, group: &Owner) -> bool {
    let _ = fsutil::chown(
        path,
        fsutil::user_to_uid(user),
        fsutil::group_to_gid(group),
        false,
    );
    link_owned_by(path, user, group)
}

/// Python's `os.readlink`, as text.
fn readlink(path: &Path) -> Option<String> {
    std::fs::read_link(path)
        .ok()
        .map(|p| p.to_string_lossy().into_owned())
}

/// Salt's `_symlink_check` (test mode): (result, comment, changes).
fn symlink_check(
    name: &str,
    target: &str,
    force: bool,
    user: &Owner,
    group: &Owner,
    follow_symlinks: bool,
) -> (Option<bool>, String, Map) {
    let path = Path::new(name);
    let mut changes = Map::default();
    let exists = if follow_symlinks {
        path.exists()
    } else {
        path.symlink_metadata().is_ok()
    };
    if !exists && !path.is_symlink() {
        changes.insert("new".into(), Value::Str(name.into()));
        return (
            None,
            format!("Symlink {name} to {target} is set for creation"),
            changes,
        );
    }
    if path.is_symlink() {
        if readlink(path).as_deref() != Some(target) {
            changes.insert("change".into(), Value::Str(name.into()));
            return (
                None,
                format!("Link {name} target is set to be changed to {target}"),
                changes,
            );
        }
        let mut result = Some(true);
        let mut msg = format!("The symlink {name} is present");
        if !link_owned_by(path, user, group) {
            let (cu, cg) = link_owner(path);
            result = None;
            changes.insert("ownership".into(), Value::Str(format!("{cu}:{cg}")));
            msg.push_str(&format!(
                ", but the ownership of the symlink would be changed from {cu}:{cg} to {}:{}",
                user.display(),
                group.display()
            ));
        }
        return (result, msg, changes);
    }
    if force {
        return (
            None,
            format!("The file or directory {name} is set for removal to make way for a new symlink targeting {target}"),
            changes,
        );
    }
    (
        Some(false),
        format!("File or directory exists where the symlink {name} should be. Did you mean to use force?"),
        changes,
    )
}

pub fn symlink(call: &StateCall, args: &Args, raw_name: &str) -> Result<StateReturn, String> {
    let test = call.test;
    let name = fsutil::expanduser(raw_name);
    if name.is_empty() {
        return Ok(failed(&name, "Must provide name to file.symlink"));
    }
    let target = match args.get("target") {
        Some(Value::Str(s)) => s.clone(),
        Some(v @ (Value::Int(_) | Value::Float(_))) => v.to_python_str(),
        Some(v) => return Err(super::bad_arg("target", "a string", v)),
        None => return Ok(failed(&name, "Missing required argument 'target'")),
    };
    let follow_symlinks = args.truthy("follow_symlinks", true);
    let force = args.truthy("force", false);
    let atomic = args.truthy("atomic", false);
    let mode = fsutil::normalize_mode(args.get("mode"));
    let path = Path::new(&name);
    let mut user = match args.owner("user")? {
        Some(u) => Some(u),
        None => args.owner("owner")?,
    };
    let mut group = args.owner("group")?;
    if args.truthy("inherit_user_and_group", false)
        && (user.is_none() || group.is_none())
        && path.is_symlink()
    {
        let (cu, cg) = link_owner(path);
        user = user.or(Some(Owner::Name(cu)));
        group = group.or(Some(Owner::Name(cg)));
    }
    let user = user.unwrap_or_else(|| {
        Owner::Name(
            call.ctx
                .opts
                .get("user")
                .and_then(Value::as_str)
                .map(String::from)
                .unwrap_or_else(accounts::current_user),
        )
    });
    // No group asked: the user's primary group (gid 0 for an unknown user).
    let group = group.unwrap_or_else(|| {
        let entry = match &user {
            Owner::Name(n) => accounts::user_by_name(n),
            Owner::Id(uid) => {
                accounts::user_by_uid(*uid).and_then(|p| accounts::user_by_name(&p.name))
            }
        };
        let gid = entry.and_then(|p| u32::try_from(p.gid).ok()).unwrap_or(0);
        Owner::Name(accounts::group_by_gid(gid).map_or_else(|| gid.to_string(), |g| g.name))
    });
    let mut preflight = Vec::new();
    if fsutil::user_to_uid(&user).is_none() {
        preflight.push(format!("User {} does not exist", user.display()));
    }
    if fsutil::group_to_gid(&group).is_none() {
        preflight.push(format!("Group {} does not exist", group.display()));
    }
    if !fsutil::isabs(&name) {
        preflight.push(format!("Specified file {name} is not an absolute path"));
    }
    if !preflight.is_empty() {
        let mut msg = preflight.join(". ");
        if preflight.len() > 1 {
            msg.push('.');
        }
        return Ok(failed(&name, msg));
    }
    let (tresult, mut tcomment, tchanges) =
        symlink_check(&name, &target, force, &user, &group, follow_symlinks);
    let parent = fsutil::dirname(&name);
    if !Path::new(&parent).is_dir() {
        if args.truthy("makedirs", false) {
            if test {
                tcomment.push_str(&format!("\n{parent} will be created"));
            } else if let Err(e) =
                fsutil::makedirs_for(&name, Some(&user), Some(&group), mode.as_deref())
            {
                return Ok(failed(&name, fsutil::py_os_error(&e, Path::new(&parent))));
            }
        } else if test {
            tcomment.push_str(&format!("\nDirectory {parent} for symlink is not present"));
        } else {
            return Ok(failed(
                &name,
                format!("Directory {parent} for symlink is not present"),
            ));
        }
    }
    let mut ret = StateReturn::new(&name);
    if test {
        ret.result = tresult;
        ret.comment = tcomment;
        ret.changes = tchanges;
        return Ok(ret);
    }
    let ug = format!("{}:{}", user.display(), group.display());
    if path.is_symlink() {
        if readlink(path).map(|t| fsutil::normpath(&t)) != Some(fsutil::normpath(&target)) {
            let _ = fsutil::remove(path);
        } else {
            if link_owned_by(path, &user, &group) {
                ret.comment = format!("Symlink {name} is present and owned by {ug}");
            } else if set_link_owner(path, &user, &group) {
                ret.comment = format!("Set ownership of symlink {name} to {ug}");
                ret.changes.insert("ownership".into(), Value::Str(ug));
            } else {
                ret.result = Some(false);
                ret.comment.push_str(&format!(
                    "Failed to set ownership of symlink {name} to {ug}"
                ));
            }
            return Ok(ret);
        }
    } else if path_exists(path, follow_symlinks) {
        if let Some(backupname) = args.string("backupname")? {
            let backup = if fsutil::isabs(&backupname) {
                backupname.clone()
            } else if !backupname.contains('/') {
                format!("{}/{backupname}", fsutil::dirname(&fsutil::normpath(&name)))
            } else {
                return Ok(failed(
                    &name,
                    format!("Backupname must be an absolute path or a file name: {backupname}"),
                ));
            };
            if Path::new(&backup).symlink_metadata().is_ok() {
                if !force {
                    return Ok(failed(
                        &name,
                        format!("Symlink & backup dest exists and Force not set. {name} -> {target} - backup: {backup}"),
                    ));
                }
                let _ = fsutil::remove(Path::new(&backup));
            }
            if let Err(e) = std::fs::rename(path, &backup) {
                return Ok(failed(
                    &name,
                    format!(
                        "Unable to rename {name} to backup {backup} -> : {}",
                        fsutil::py_os_error(&e, path)
                    ),
                ));
            }
        } else if !force && !atomic {
            let kind = if path.is_file() {
                "File"
            } else if path.is_dir() {
                "Directory"
            } else {
                "File system entry"
            };
            return Ok(failed(
                &name,
                format!("{kind} exists where the symlink {name} should be"),
            ));
        }
    }
    if let Err(msg) = make_symlink(&target, path, force, atomic, follow_symlinks) {
        ret.result = Some(false);
        ret.comment = format!("Unable to create new symlink {name} -> {target}: {msg}");
        return Ok(ret);
    }
    ret.comment = format!("Created new symlink {name} -> {target}");
    ret.changes.insert("new".into(), Value::Str(name.clone()));
    if !link_owned_by(path, &user, &group) && !set_link_owner(path, &user, &group) {
        ret.result = Some(false);
        ret.comment
            .push_str(&format!(", but was unable to set ownership to {ug}"));
    }
    Ok(ret)
}

/// `os.path.exists`, or `lexists` when links are not followed.
fn path_exists(path: &Path, follow: bool) -> bool {
    if follow {
        path.exists()
    } else {
        path.symlink_metadata().is_ok()
    }
}

/// Salt's `file.symlink` execution function (called by it too).
pub fn make_symlink(
    src: &str,
    path: &Path,
    force: bool,
    atomic: bool,
    follow: bool,
) -> Result<(), String> {
    let shown = path.display();
    if path.is_symlink() {
        if readlink(path).map(|t| fsutil::normpath(&t)) == Some(fsutil::normpath(src)) {
            return Ok(());
        }
        if !force && !atomic {
            return Err(format!("Found existing symlink: {shown}"));
        }
    }
    let exists = path_exists(path, follow);
    if exists && !force && !atomic {
        return Err(format!("Existing path is not a symlink: {shown}"));
    }
    if atomic {
        let dir = path.parent().unwrap_or(Path::new("/"));
        let tmp = dir.join(format!(
            ".{}.brine-link-{}",
            path.file_name()
                .map(|n| n.to_string_lossy())
                .unwrap_or_default(),
            std::process::id()
        ));
        let _ = std::fs::remove_file(&tmp);
        std::os::unix::fs::symlink(src, &tmp).map_err(|_| format!("Could not create '{shown}'"))?;
        return std::fs::rename(&tmp, path).map_err(|_| {
            let _ = std::fs::remove_file(&tmp);
            format!("Could not create '{shown}'")
        });
    }
    if (path.is_symlink() || exists) && force {
        // Python's os.unlink: a directory is an error, not removed.
        std::fs::remove_file(path).map_err(|e| fsutil::py_os_error(&e, path))?;
    }
    std::os::unix::fs::symlink(src, path).map_err(|_| format!("Could not create '{shown}'"))
}

/// A time argument for `touch`: digits become an int, as in Salt; None
/// is now. (The `file.touch` execution function takes it the same way.)
pub fn touch_time(v: Option<&Value>) -> Result<Option<i64>, String> {
    match v {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Int(i)) => Ok(Some(*i)),
        // A bool is an int to os.utime.
        Some(Value::Bool(b)) => Ok(Some(i64::from(*b))),
        Some(Value::Str(s)) if !s.is_empty() && s.chars().all(|c| c.is_ascii_digit()) => s
            .parse()
            .map(Some)
            .map_err(|_| "atime and mtime must be integers".to_string()),
        Some(Value::Float(f)) => Ok(Some(*f as i64)),
        Some(_) => Err("atime and mtime must be integers".into()),
    }
}

/// Python's `str(os.stat(p).st_atime)` style float of a time.
fn py_time(secs: i64, nanos: i64) -> String {
    Value::Float(secs as f64 + nanos as f64 * 1e-9).to_python_str()
}

pub fn touch(call: &StateCall, args: &Args, raw_name: &str) -> Result<StateReturn, String> {
    let name = fsutil::expanduser(raw_name);
    if name.is_empty() {
        return Ok(failed(&name, "Must provide name to file.touch"));
    }
    if !fsutil::isabs(&name) {
        return Ok(failed(
            &name,
            format!("Specified file {name} is not an absolute path"),
        ));
    }
    let path = Path::new(&name);
    let atime_v = args.get("atime");
    let mtime_v = args.get("mtime");
    let mut ret = StateReturn::new(&name);
    if call.test {
        // Salt's _check_touch: it compares str(arg) with str(float stat
        // time), so explicit times always look different.
        ret.result = None;
        ret.changes.insert("new".into(), Value::Str(name.clone()));
        if !path.exists() {
            ret.comment = format!("File {name} is set to be created");
        } else {
            use std::os::unix::fs::MetadataExt;
            let md = std::fs::symlink_metadata(path).map_err(|e| fsutil::py_os_error(&e, path))?;
            let differs = |v: Option<&Value>, s: i64, ns: i64| {
                v.is_some_and(|v| v.to_python_str() != py_time(s, ns))
            };
            if differs(atime_v, md.atime(), md.atime_nsec())
                || differs(mtime_v, md.mtime(), md.mtime_nsec())
            {
                ret.comment = format!("Times set to be updated on file {name}");
                ret.changes = Map::default();
                ret.changes
                    .insert("touched".into(), Value::Str(name.clone()));
            } else {
                ret.result = Some(true);
                ret.comment = format!("File {name} exists and has the correct times");
            }
        }
        return Ok(ret);
    }
    if args.truthy("makedirs", false) {
        if let Err(e) = fsutil::makedirs_for(&name, None, None, None) {
            return Ok(failed(&name, fsutil::py_os_error(&e, path)));
        }
    }
    if !Path::new(&fsutil::dirname(&name)).is_dir() {
        return Ok(failed(
            &name,
            format!("Directory not present to touch file {name}"),
        ));
    }
    let (atime, mtime) = match (touch_time(atime_v), touch_time(mtime_v)) {
        (Ok(a), Ok(m)) => (a, m),
        (Err(e), _) | (_, Err(e)) => return Ok(failed(&name, e)),
    };
    let extant = path.exists();
    if let Err(e) = fsutil::touch(path, atime, mtime) {
        return Ok(failed(&name, e.to_string()));
    }
    if !extant {
        ret.comment = format!("Created empty file {name}");
        ret.changes.insert("new".into(), Value::Str(name.clone()));
    } else {
        let what = if path.is_dir() { "directory" } else { "file" };
        ret.comment = format!("Updated times on {what} {name}");
        ret.changes
            .insert("touched".into(), Value::Str(name.clone()));
    }
    Ok(ret)
}

/// Python's non-POSIX `shlex` with `whitespace_split` (what Salt's
/// `build_whitespace_split_regex` uses): whitespace-separated words, where a
/// word starting with a quote runs to the closing quote.
fn shlex_words(text: &str) -> Result<Vec<String>, String> {
    let quotes: &[char] = if text.contains("'\\\"") {
        &[]
    } else if text.contains('\'') {
        &['"']
    } else if text.contains('"') {
        &['\'']
    } else {
        &['\'', '"']
    };
    let ws = |c: char| matches!(c, ' ' | '\t' | '\r' | '\n');
    let mut out = Vec::new();
    let mut chars = text.chars().peekable();
    while let Some(&c) = chars.peek() {
        if ws(c) {
            chars.next();
            continue;
        }
        let mut tok = String::new();
        if quotes.contains(&c) {
            tok.push(c);
            chars.next();
            loop {
                match chars.next() {
                    None => return Err("No closing quotation".into()),
                    Some(n) => {
                        tok.push(n);
                        if n == c {
                            break;
                        }
                    }
                }
            }
        } else {
            while let Some(&n) = chars.peek() {
                if ws(n) {
                    break;
                }
                tok.push(n);
                chars.next();
            }
        }
        out.push(tok);
    }
    Ok(out)
}

/// Salt's `build_whitespace_split_regex`, as a `regex` pattern.
pub(super) fn whitespace_split_regex(text: &str) -> Result<String, String> {
    let ws = r"(?:(?-u:\s)+)?";
    let mut re = String::new();
    for line in difflib::str_splitlines(text) {
        let parts: Vec<String> = shlex_words(line)?
            .iter()
            .map(|p| regex::escape(p))
            .collect();
        re.push_str(&format!("{ws}{}{ws}", parts.join(ws)));
    }
    Ok(format!("(?m)^{re}$"))
}

pub fn append(call: &StateCall, args: &Args, raw_name: &str) -> Result<StateReturn, String> {
    let test = call.test;
    let mut ret = StateReturn::new(raw_name);
    ret.result = Some(false);
    if raw_name.is_empty() {
        return Ok(failed(raw_name, "Must provide name to file.append"));
    }
    let name = fsutil::expanduser(raw_name);
    ret.name = name.clone();
    let path = Path::new(&name);
    let source_list = match unify_sources(args) {
        Ok(s) => s,
        Err(e) => return Ok(failed(&name, e)),
    };
    let makedirs = matches!(call.low.get("makedirs"), Some(Value::Bool(true)));
    if makedirs {
        let dir = fsutil::dirname(&name);
        if test {
            ret.comment = format!("Directory {dir} is set to be updated");
            ret.result = None;
        } else if !Path::new(&dir).is_dir() {
            if let Err(e) = fsutil::makedirs_for(&name, None, None, None) {
                return Ok(failed(&name, fsutil::py_os_error(&e, Path::new(&dir))));
            }
        }
    }
    let check_msg = if !fsutil::isabs(&name) {
        Some(format!("Specified file {name} is not an absolute path"))
    } else if !path.exists() {
        Some(format!("{name}: file not found"))
    } else {
        None
    };
    if let Some(msg) = check_msg {
        let touch_args = {
            let mut low = call.low.clone();
            low.insert("makedirs".into(), Value::Bool(makedirs));
            low.shift_remove("atime");
            low.shift_remove("mtime");
            low
        };
        let tcall = StateCall {
            low: &touch_args,
            test,
            ctx: call.ctx,
        };
        let touch_ret = touch(&tcall, &Args { low: &touch_args }, raw_name)?;
        if test {
            return Ok(touch_ret);
        }
        if !path.exists() || !fsutil::isabs(&name) {
            return Ok(failed(&name, msg));
        }
    }

    let text: Vec<String> = if !source_list.is_empty() {
        match template_texts(call, args, &source_list) {
            Ok(t) => t,
            Err(r) => return Ok(*r),
        }
    } else {
        str_list(call.low.get("text"))
    };

    let read_lines = || -> Result<(Vec<u8>, Vec<String>), String> {
        let data = std::fs::read(path).map_err(|e| fsutil::py_os_error(&e, path))?;
        let text = String::from_utf8_lossy(&data).into_owned();
        let lines = difflib::str_splitlines(&text)
            .into_iter()
            .map(String::from)
            .collect();
        Ok((data, lines))
    };
    let (data, slines) = match read_lines() {
        Ok(x) => x,
        Err(e) => return Ok(failed(&name, e)),
    };
    if !fsutil::is_text_bytes(&data) {
        return Ok(failed(
            &name,
            format!("Cannot perform string replacements on a binary file: {name}"),
        ));
    }
    let ignore_whitespace = args.truthy("ignore_whitespace", true);
    let mut append_lines: Vec<String> = Vec::new();
    for chunk in &text {
        let pattern = if ignore_whitespace {
            whitespace_split_regex(chunk)
        } else {
            Ok(chunk.clone())
        };
        let found = pattern
            .and_then(|p| replace::compile(&p, 8))
            .map(|re| replace::search(&re, &data));
        match found {
            Ok(true) => continue,
            Ok(false) => {}
            Err(e) => return Ok(failed(&name, e)),
        }
        append_lines.extend(difflib::str_splitlines(chunk).into_iter().map(String::from));
    }
    let diff_of = |old: &[String], new: &[String]| -> String {
        let a: Vec<&str> = old.iter().map(String::as_str).collect();
        let b: Vec<&str> = new.iter().map(String::as_str).collect();
        difflib::unified_diff(&a, &b, "\n").join("\n")
    };
    if test {
        ret.comment = format!("File {name} is set to be updated");
        ret.result = None;
        let mut nlines = slines.clone();
        nlines.extend(append_lines.iter().cloned());
        if slines != nlines {
            ret.changes
                .insert("diff".into(), Value::Str(diff_of(&slines, &nlines)));
        } else {
            ret.comment = format!("File {name} is in correct state");
            ret.result = Some(true);
        }
        return Ok(ret);
    }
    if !append_lines.is_empty() {
        if let Err(e) = fsutil::append_lines(path, &append_lines) {
            return Ok(failed(&name, fsutil::py_os_error(&e, path)));
        }
        ret.comment = format!("Appended {} lines", append_lines.len());
    } else {
        ret.comment = format!("File {name} is in correct state");
    }
    let (_, nlines) = match read_lines() {
        Ok(x) => x,
        Err(e) => return Ok(failed(&name, e)),
    };
    if slines != nlines {
        ret.changes
            .insert("diff".into(), Value::Str(diff_of(&slines, &nlines)));
    }
    ret.result = Some(true);
    Ok(ret)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shlex_like_python() {
        assert_eq!(shlex_words("a  b\tc").unwrap(), vec!["a", "b", "c"]);
        // Text with both quote kinds: double quotes group words.
        assert_eq!(
            shlex_words("it's \"a b\" c").unwrap(),
            vec!["it's", "\"a b\"", "c"]
        );
        assert!(shlex_words("it's \"a b").is_err());
    }
}
