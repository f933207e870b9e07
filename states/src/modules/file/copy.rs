//! `file.copy`, `file.rename` and `file.hardlink`, as Salt 3007.8's
//! `states.file` words them.

use super::args::{failed, Args};
use super::fsutil::{self, Owner};
use super::managed::check_user;
use super::perms::check_perms;
use crate::{StateCall, StateReturn};
use brine_core::Value;
use brine_host::accounts;
use std::os::unix::fs::MetadataExt;
use std::path::Path;

/// Python's `os.path.lexists`.
fn lexists(p: &str) -> bool {
    Path::new(p).symlink_metadata().is_ok()
}

/// Python's `os.path.basename`.
fn basename(p: &str) -> &str {
    p.rsplit('/').next().unwrap_or(p)
}

/// Salt's `os.path.join(a, b)` for an absolute `a` and a relative `b`.
fn join(a: &str, b: &str) -> String {
    if a.ends_with('/') {
        format!("{a}{b}")
    } else {
        format!("{a}/{b}")
    }
}

/// The state's user: `user`, else the old `owner` spelling.
fn user_arg(args: &Args) -> Result<Option<Owner>, String> {
    match args.owner("user")? {
        Some(u) => Ok(Some(u)),
        None => args.owner("owner"),
    }
}

/// The user a file state acts as when none is asked: the minion's
/// `user` option, else the current user.
fn default_user(call: &StateCall) -> Owner {
    Owner::Name(
        call.ctx
            .opts
            .get("user")
            .and_then(Value::as_str)
            .map(String::from)
            .unwrap_or_else(accounts::current_user),
    )
}

/// The primary group of `user` (gid 0's group for an unknown user), as
/// Salt's `file.gid_to_group(user.info(user).get("gid", 0))`.
fn primary_group(user: &Owner) -> Owner {
    let entry = match user {
        Owner::Name(n) => accounts::user_by_name(n),
        Owner::Id(uid) => accounts::user_by_uid(*uid).and_then(|p| accounts::user_by_name(&p.name)),
    };
    let gid = entry.and_then(|p| u32::try_from(p.gid).ok()).unwrap_or(0);
    Owner::Name(accounts::group_by_gid(gid).map_or_else(|| gid.to_string(), |g| g.name))
}

/// The SHA-256 of a file's bytes (Salt's `get_hash`), `None` unreadable.
fn file_hash(p: &str) -> Option<String> {
    std::fs::read(p)
        .ok()
        .and_then(|d| fsutil::hash_hex("sha256", &d))
}

/// A directory mode from a file mode: each non-zero digit of its last
/// three gets the search bit (Salt's `copy` and `managed` with makedirs).
fn dir_mode_from(mode: &str) -> String {
    let digits: Vec<char> = mode.chars().collect();
    let start = digits.len().saturating_sub(3);
    digits[start..]
        .iter()
        .map(|c| match c.to_digit(10) {
            Some(0) | None => *c,
            Some(d) => char::from_digit(d | 1, 10).unwrap_or(*c),
        })
        .collect()
}

/// Python's `shutil.copytree(src, dst, symlinks=True)`: links copied as
/// links, files with their mode.
fn copy_tree(src: &Path, dst: &Path) -> std::io::Result<()> {
    std::fs::create_dir(dst)?;
    let md = std::fs::metadata(src)?;
    std::fs::set_permissions(dst, md.permissions())?;
    let mut entries: Vec<_> = std::fs::read_dir(src)?.flatten().collect();
    entries.sort_by_key(|e| e.file_name());
    for entry in entries {
        let from = entry.path();
        let to = dst.join(entry.file_name());
        let ft = entry.file_type()?;
        if ft.is_symlink() {
            std::os::unix::fs::symlink(std::fs::read_link(&from)?, &to)?;
        } else if ft.is_dir() {
            copy_tree(&from, &to)?;
        } else {
            std::fs::copy(&from, &to)?;
        }
    }
    Ok(())
}

/// `lchown` of everything below `root` (not `root` itself), as Salt does
/// after copying a folder.
fn lchown_below(root: &Path, uid: Option<u32>, gid: Option<u32>) {
    let Ok(rd) = std::fs::read_dir(root) else {
        return;
    };
    for entry in rd.flatten() {
        let p = entry.path();
        let _ = fsutil::chown(&p, uid, gid, false);
        if entry.file_type().is_ok_and(|t| t.is_dir()) {
            lchown_below(&p, uid, gid);
        }
    }
}

pub fn copy(call: &StateCall, args: &Args, raw_name: &str) -> Result<StateReturn, String> {
    let test = call.test;
    let mut name = fsutil::expanduser(raw_name);
    let source = fsutil::expanduser(
        &args
            .get("source")
            .map(Value::to_python_str)
            .unwrap_or_default(),
    );
    let mut ret = StateReturn::new(&name);
    ret.comment = format!("Copied \"{source}\" to \"{name}\"");
    if name.is_empty() {
        return Ok(failed(&name, "Must provide name to file.copy"));
    }
    if !fsutil::isabs(&name) {
        return Ok(failed(
            &name,
            format!("Specified file {name} is not an absolute path"),
        ));
    }
    if !Path::new(&source).exists() {
        return Ok(failed(
            &name,
            format!("Source file \"{source}\" is not present"),
        ));
    }
    let preserve = args.truthy("preserve", false);
    let (user, group, mode) = if preserve {
        let st = fsutil::stats(Path::new(&source), true).map_err(|e| e.to_string())?;
        (Owner::Name(st.user), Owner::Name(st.group), Some(st.mode))
    } else {
        let user = user_arg(args)?.unwrap_or_else(|| default_user(call));
        let group = match args.owner("group")? {
            Some(g) => g,
            None => primary_group(&user),
        };
        let u_check = check_user(Some(&user), Some(&group), test);
        if !u_check.is_empty() {
            return Ok(failed(&name, u_check));
        }
        let mode = match fsutil::normalize_mode(args.get("mode")) {
            Some(m) => Some(m),
            None => fsutil::stats(Path::new(&source), true).ok().map(|s| s.mode),
        };
        (user, group, mode)
    };
    if Path::new(&name).is_dir() && args.truthy("subdir", false) {
        // The return keeps the name asked for.
        name = join(&name, basename(&source));
    }
    let force = args.truthy("force", false);
    let mut changed = true;
    if lexists(&source) && lexists(&name) {
        if force && Path::new(&name).is_file() && file_hash(&name) == file_hash(&source) {
            ret.comment
                .push_str(" - files are identical but force flag is set");
        }
        if !force {
            changed = false;
        } else if !test {
            // Out of the way first, as Salt does for a forced copy.
            if fsutil::remove(Path::new(&name)).is_err() {
                return Ok(failed(
                    &ret.name,
                    format!("Failed to delete \"{name}\" in preparation for forced move"),
                ));
            }
        }
    }
    if test || !changed {
        if changed {
            ret.comment = format!("File \"{source}\" is set to be copied to \"{name}\"");
            ret.result = None;
        } else {
            ret.comment = format!("The target file \"{name}\" exists and will not be overwritten");
        }
        return Ok(ret);
    }
    let dname = fsutil::dirname(&name);
    if !Path::new(&dname).is_dir() {
        if !args.truthy("makedirs", false) {
            return Ok(failed(
                &ret.name,
                format!("The target directory {dname} is not present"),
            ));
        }
        let dir_mode = fsutil::normalize_mode(args.get("dir_mode"))
            .or_else(|| mode.as_deref().map(dir_mode_from));
        if let Err(e) = fsutil::makedirs_for(&name, Some(&user), Some(&group), dir_mode.as_deref())
        {
            return Ok(failed(
                &ret.name,
                fsutil::py_os_error(&e, Path::new(&dname)),
            ));
        }
    }
    let src = Path::new(&source);
    let dst = Path::new(&name);
    let copied = if src.is_dir() {
        copy_tree(src, dst).map(|()| {
            lchown_below(
                dst,
                fsutil::user_to_uid(&user),
                fsutil::group_to_gid(&group),
            );
        })
    } else {
        std::fs::copy(src, dst).map(|_| ())
    };
    if copied.is_err() {
        return Ok(failed(
            &ret.name,
            format!("Failed to copy \"{source}\" to \"{name}\""),
        ));
    }
    ret.changes.insert(name.clone(), Value::Str(source.clone()));
    if !preserve {
        let mut check = ret.clone();
        check_perms(
            dst,
            &mut check,
            Some(&user),
            Some(&group),
            mode.as_deref(),
            true,
            false,
        )
        .map_err(|e| e.to_string())?;
        ret.changes = check.changes;
        if check.result != Some(true) {
            ret.result = check.result;
            ret.comment = check.comment;
        }
    }
    Ok(ret)
}

pub fn rename(call: &StateCall, args: &Args, raw_name: &str) -> Result<StateReturn, String> {
    let name = fsutil::expandvars(&fsutil::expanduser(raw_name));
    let source = args
        .get("source")
        .map(Value::to_python_str)
        .unwrap_or_default();
    let source = fsutil::expandvars(&fsutil::expanduser(&source));
    let mut ret = StateReturn::new(&name);
    if name.is_empty() {
        return Ok(failed(&name, "Must provide name to file.rename"));
    }
    if !fsutil::isabs(&name) {
        return Ok(failed(
            &name,
            format!("Specified file {name} is not an absolute path"),
        ));
    }
    if !lexists(&source) {
        ret.comment = format!("Source file \"{source}\" has already been moved out of place");
        return Ok(ret);
    }
    if lexists(&name) {
        if !args.truthy("force", false) {
            ret.comment = format!("The target file \"{name}\" exists and will not be overwritten");
            return Ok(ret);
        }
        if !call.test && fsutil::remove(Path::new(&name)).is_err() {
            return Ok(failed(
                &name,
                format!("Failed to delete \"{name}\" in preparation for forced move"),
            ));
        }
    }
    if call.test {
        ret.comment = format!("File \"{source}\" is set to be moved to \"{name}\"");
        ret.result = None;
        return Ok(ret);
    }
    let dname = fsutil::dirname(&name);
    if !Path::new(&dname).is_dir() {
        if !args.truthy("makedirs", false) {
            return Ok(failed(
                &name,
                format!("The target directory {dname} is not present"),
            ));
        }
        if let Err(e) = fsutil::makedirs_for(&name, None, None, None) {
            return Ok(failed(&name, fsutil::py_os_error(&e, Path::new(&dname))));
        }
    }
    let moved = match std::fs::read_link(&source) {
        // A link is made anew beside the target, then the old one goes.
        Ok(to) => std::os::unix::fs::symlink(&to, &name)
            .and_then(|()| std::fs::remove_file(&source))
            .map_err(|e| e.to_string()),
        Err(_) => move_path(Path::new(&source), Path::new(&name)),
    };
    if moved.is_err() {
        return Ok(failed(
            &name,
            format!("Failed to move \"{source}\" to \"{name}\""),
        ));
    }
    ret.comment = format!("Moved \"{source}\" to \"{name}\"");
    ret.changes.insert(name.clone(), Value::Str(source));
    Ok(ret)
}

/// Python's `shutil.move`: a rename, else a copy and removal (another
/// file system).
fn move_path(src: &Path, dst: &Path) -> Result<(), String> {
    if std::fs::rename(src, dst).is_ok() {
        return Ok(());
    }
    let copied = if src.is_dir() {
        copy_tree(src, dst)
    } else {
        std::fs::copy(src, dst).map(|_| ())
    };
    copied.map_err(|e| e.to_string())?;
    fsutil::remove(src).map(|_| ()).map_err(|e| e.to_string())
}

/// Salt's `file.is_hardlink`: a regular file with more than one link.
fn is_hardlink(p: &str) -> bool {
    std::fs::symlink_metadata(p).is_ok_and(|m| m.is_file() && m.nlink() > 1)
}

/// Salt's `_hardlink_same`: the same inode.
fn same_inode(a: &str, b: &str) -> bool {
    match (std::fs::symlink_metadata(a), std::fs::symlink_metadata(b)) {
        (Ok(x), Ok(y)) => x.ino() == y.ino() && x.dev() == y.dev(),
        _ => false,
    }
}

/// Salt's `_hardlink_check` (test mode): (result, comment, changes).
fn hardlink_check(name: &str, target: &str, force: bool, ret: &mut StateReturn) {
    let (result, comment) = if !Path::new(target).exists() {
        (
            Some(false),
            format!("Target {target} for hard link does not exist"),
        )
    } else if Path::new(target).is_dir() {
        (
            Some(false),
            format!("Unable to hard link from directory {target}"),
        )
    } else if Path::new(name).is_dir() {
        (
            Some(false),
            format!("Unable to hard link to directory {name}"),
        )
    } else if !Path::new(name).exists() {
        ret.changes.insert("new".into(), Value::Str(name.into()));
        (
            None,
            format!("Hard link {name} to {target} is set for creation"),
        )
    } else if is_hardlink(name) {
        if same_inode(name, target) {
            (
                Some(true),
                format!("The hard link {name} is presently targetting {target}"),
            )
        } else {
            ret.changes.insert("change".into(), Value::Str(name.into()));
            (
                None,
                format!("Link {name} target is set to be changed to {target}"),
            )
        }
    } else if force {
        (
            None,
            format!("The file or directory {name} is set for removal to make way for a new hard link targeting {target}"),
        )
    } else {
        (
            Some(false),
            format!("File or directory exists where the hard link {name} should be. Did you mean to use force?"),
        )
    };
    ret.result = result;
    ret.comment = comment;
}

pub fn hardlink(call: &StateCall, args: &Args, raw_name: &str) -> Result<StateReturn, String> {
    let name = fsutil::expanduser(raw_name);
    let target = args
        .get("target")
        .map(Value::to_python_str)
        .unwrap_or_default();
    let dir_mode = fsutil::normalize_mode(args.get("dir_mode"));
    let mut ret = StateReturn::new(&name);
    if name.is_empty() {
        return Ok(failed(&name, "Must provide name to file.hardlink"));
    }
    let user = user_arg(args)?.unwrap_or_else(|| default_user(call));
    let group = match args.owner("group")? {
        Some(g) => g,
        None => primary_group(&user),
    };
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
    if !fsutil::isabs(&target) {
        preflight.push(format!("Specified target {target} is not an absolute path"));
    }
    if !preflight.is_empty() {
        let mut msg = preflight.join(". ");
        if preflight.len() > 1 {
            msg.push('.');
        }
        return Ok(failed(&name, msg));
    }
    let force = args.truthy("force", false);
    if call.test {
        hardlink_check(&name, &target, force, &mut ret);
        return Ok(ret);
    }
    for (direction, item) in [("to", &name), ("from", &target)] {
        if Path::new(item).is_dir() {
            return Ok(failed(
                &name,
                format!("Unable to hard link {direction} directory {item}"),
            ));
        }
    }
    if !Path::new(&target).exists() {
        return Ok(failed(
            &name,
            format!("Target {target} for hard link does not exist"),
        ));
    }
    let dir = fsutil::dirname(&name);
    if !Path::new(&dir).is_dir() {
        if !args.truthy("makedirs", false) {
            return Ok(failed(
                &name,
                format!("Directory {dir} for hard link is not present"),
            ));
        }
        if let Err(e) = fsutil::makedirs_for(&name, Some(&user), Some(&group), dir_mode.as_deref())
        {
            return Ok(failed(&name, fsutil::py_os_error(&e, Path::new(&dir))));
        }
    }
    if Path::new(&name).is_file() && !is_hardlink(&name) {
        if !force {
            return Ok(failed(
                &name,
                format!("File exists where the hard link {name} should be"),
            ));
        }
        std::fs::remove_file(&name).map_err(|e| fsutil::py_os_error(&e, Path::new(&name)))?;
        ret.changes.insert(
            "forced".into(),
            Value::Str("File for hard link was forcibly replaced".into()),
        );
    }
    let link = || {
        std::fs::hard_link(&target, &name).map_err(|e| fsutil::py_os_error(&e, Path::new(&name)))
    };
    if is_hardlink(&name) {
        if same_inode(&name, &target) {
            ret.comment = format!("Target of hard link {name} is already pointing to {target}");
            return Ok(ret);
        }
        std::fs::remove_file(&name).map_err(|e| fsutil::py_os_error(&e, Path::new(&name)))?;
        if let Err(e) = link() {
            ret.result = Some(false);
            ret.comment = format!("Unable to set target of hard link {name} -> {target}: {e}");
            return Ok(ret);
        }
        ret.comment = format!("Set target of hard link {name} -> {target}");
        ret.changes.insert("new".into(), Value::Str(name.clone()));
    } else if !Path::new(&name).exists() {
        if let Err(e) = link() {
            ret.result = Some(false);
            ret.comment = format!("Unable to create new hard link {name} -> {target}: {e}");
            return Ok(ret);
        }
        ret.comment = format!("Created new hard link {name} -> {target}");
        ret.changes.insert("new".into(), Value::Str(name.clone()));
    }
    Ok(ret)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dir_modes_get_search_bits() {
        assert_eq!(dir_mode_from("0600"), "700");
        assert_eq!(dir_mode_from("0640"), "750");
        assert_eq!(dir_mode_from("644"), "755");
    }
}
