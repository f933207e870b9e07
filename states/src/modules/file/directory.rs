//! `file.directory`: Salt's `states.file.directory` with `_check_directory`,
//! `_check_dir_meta`, `recurse` and `clean` (`_gen_keep_files`,
//! `_clean_dir`).

use super::fsutil::{self, Owner};
use super::managed::check_user;
use super::perms::check_perms;
use super::Args;
use crate::{StateCall, StateReturn};
use brine_core::{Map, Value};
use std::collections::HashSet;
use std::path::Path;

/// One `os.walk` step: a directory, its subdirectories and other entries
/// (in the order the file system lists them, like Python's `scandir`).
struct WalkEntry {
    root: String,
    dirs: Vec<String>,
    files: Vec<String>,
}

/// Python's `os.walk(top)` (top-down, not following links), keeping only
/// directories less than `max_depth` levels below `top`.
fn walk(top: &str, max_depth: Option<i64>) -> Vec<WalkEntry> {
    let top_depth = top.trim_end_matches('/').matches('/').count() as i64;
    let mut out = Vec::new();
    let mut stack = vec![top.to_string()];
    while let Some(root) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&root) else {
            continue;
        };
        let mut dirs = Vec::new();
        let mut files = Vec::new();
        for entry in rd.flatten() {
            let fname = entry.file_name().to_string_lossy().into_owned();
            // is_dir follows links, as Python's DirEntry.is_dir() does.
            if Path::new(&root).join(&fname).is_dir() {
                dirs.push(fname);
            } else {
                files.push(fname);
            }
        }
        // Descend in listing order (the stack pops the last pushed first).
        for d in dirs.iter().rev() {
            let p = join(&root, d);
            if !Path::new(&p).is_symlink() {
                stack.push(p);
            }
        }
        let rel_depth = root.trim_end_matches('/').matches('/').count() as i64 - top_depth;
        if max_depth.is_some_and(|m| rel_depth >= m) {
            continue;
        }
        out.push(WalkEntry { root, dirs, files });
    }
    out
}

fn join(root: &str, name: &str) -> String {
    if root.ends_with('/') {
        format!("{root}{name}")
    } else {
        format!("{root}/{name}")
    }
}

const RECURSE_TYPES: &[&str] = &[
    "user",
    "group",
    "mode",
    "ignore_files",
    "ignore_dirs",
    "silent",
];

/// Salt's `_get_recurse_set`.
fn recurse_set(recurse: Option<&Value>) -> Result<HashSet<String>, String> {
    let Some(v) = recurse.filter(|v| v.is_truthy()) else {
        return Ok(HashSet::new());
    };
    let Value::List(items) = v else {
        return Err("\"recurse\" must be formed as a list of strings".into());
    };
    let limited = || {
        format!(
            "Types for \"recurse\" limited to {}.",
            RECURSE_TYPES
                .iter()
                .map(|t| format!("\"{t}\""))
                .collect::<Vec<_>>()
                .join(", ")
        )
    };
    let mut set = HashSet::new();
    for item in items {
        match item {
            Value::Str(s) if RECURSE_TYPES.contains(&s.as_str()) => {
                set.insert(s.clone());
            }
            _ => return Err(limited()),
        }
    }
    if set.contains("ignore_files") && set.contains("ignore_dirs") {
        return Err(
            "Must not specify \"recurse\" options \"ignore_files\" and \"ignore_dirs\" at the same time."
                .into(),
        );
    }
    Ok(set)
}

/// Salt's `_check_dir_meta`: what would change on one directory.
fn check_dir_meta(
    name: &str,
    user: Option<&Owner>,
    group: Option<&Owner>,
    mode: Option<&str>,
    follow_symlinks: bool,
) -> Map {
    let mut changes = Map::default();
    let Ok(st) = fsutil::stats(Path::new(name), follow_symlinks) else {
        changes.insert("directory".into(), Value::Str("new".into()));
        return changes;
    };
    if let Some(u) = user.filter(|u| !u.matches(&st.user, st.uid)) {
        changes.insert("user".into(), u.to_value());
    }
    if let Some(g) = group.filter(|g| !g.matches(&st.group, st.gid)) {
        changes.insert("group".into(), g.to_value());
    }
    if let Some(m) = mode.map(fsutil::normalize_mode_str) {
        // Links have no mode of their own on Linux.
        if m != st.mode && (follow_symlinks || !st.is_link) {
            changes.insert("mode".into(), Value::Str(m));
        }
    }
    changes
}

/// Salt's `check_include_exclude(path, None, exclude_pat)`: `false` when
/// the path matches the exclusion (glob, or regex with `E@`).
fn not_excluded(rel: &str, exclude_pat: &[String]) -> bool {
    !exclude_pat
        .iter()
        .filter(|p| !p.is_empty())
        .any(|pat| super::pattern::pattern_matches(rel, pat))
}

/// Files a `clean` keeps: those of the `file` states this one requires
/// (by the required name; brine sees only this state's chunk, so a
/// requisite given by ID that differs from the path keeps nothing).
fn keep_files(name: &str, require: Option<&Value>, walked: &[WalkEntry]) -> HashSet<String> {
    let mut keep = HashSet::new();
    let Some(Value::List(reqs)) = require else {
        return keep;
    };
    for req in reqs {
        let Some(target) = req.get("file").map(Value::to_python_str) else {
            continue;
        };
        let p = Path::new(&target);
        if p.is_dir() {
            let child = fsutil::normpath(&target);
            let parent = fsutil::normpath(name);
            if child == parent || child.starts_with(&format!("{parent}/")) {
                // Everything below a required directory stays.
                for w in walked
                    .iter()
                    .filter(|w| w.root == child || w.root.starts_with(&format!("{child}/")))
                {
                    keep.insert(w.root.clone());
                    for f in w.files.iter().chain(&w.dirs) {
                        keep.insert(join(&w.root, f));
                    }
                }
            }
        } else {
            keep.insert(target);
        }
    }
    keep
}

/// Salt's `_find_keep_files`: kept paths and all their parents.
fn real_keep(root: &str, keep: &HashSet<String>) -> HashSet<String> {
    let mut out = HashSet::new();
    out.insert(root.to_string());
    for k in keep.iter().filter(|k| fsutil::isabs(k)) {
        let mut p = fsutil::normpath(k);
        out.insert(p.clone());
        loop {
            p = fsutil::normpath(&fsutil::dirname(&p));
            out.insert(p.clone());
            if p.trim_start_matches('/').is_empty() {
                break;
            }
        }
    }
    out
}

struct DirArgs<'a> {
    name: &'a str,
    user: Option<Owner>,
    group: Option<Owner>,
    recurse: Option<&'a Value>,
    dir_mode: Option<String>,
    file_mode: Option<String>,
    clean: bool,
    require: Option<&'a Value>,
    exclude_pat: Vec<String>,
    max_depth: Option<i64>,
    follow_symlinks: bool,
    children_only: bool,
}

/// Salt's `_check_directory`: (result, comment, changes) of what would
/// change.
fn check_directory(a: &DirArgs) -> (Option<bool>, String, Map) {
    let mut changes = Map::default();
    let name = a.name;
    let walked = if a.recurse.is_some_and(Value::is_truthy) || a.clean {
        walk(name, a.max_depth)
    } else {
        Vec::new()
    };
    if a.recurse.is_some_and(Value::is_truthy) {
        let set = match recurse_set(a.recurse) {
            Ok(s) => s,
            Err(e) => return (Some(false), e, changes),
        };
        let user = a.user.as_ref().filter(|_| set.contains("user"));
        let group = a.group.as_ref().filter(|_| set.contains("group"));
        let (dir_mode, file_mode) = if set.contains("mode") {
            (a.dir_mode.as_deref(), a.file_mode.as_deref())
        } else {
            (None, None)
        };
        for w in &walked {
            if !set.contains("ignore_files") {
                for f in &w.files {
                    let path = join(&w.root, f);
                    let Ok(st) = fsutil::stats(Path::new(&path), a.follow_symlinks) else {
                        continue;
                    };
                    let mut fchange = Map::default();
                    if let Some(u) = user.filter(|u| !u.matches(&st.user, st.uid)) {
                        fchange.insert("user".into(), u.to_value());
                    }
                    if let Some(g) = group.filter(|g| !g.matches(&st.group, st.gid)) {
                        fchange.insert("group".into(), g.to_value());
                    }
                    if let Some(m) = file_mode {
                        if m != st.mode && (a.follow_symlinks || !st.is_link) {
                            fchange.insert("mode".into(), Value::Str(m.to_string()));
                        }
                    }
                    if !fchange.is_empty() {
                        changes.insert(path, Value::Map(fchange));
                    }
                }
            }
            if !set.contains("ignore_dirs") {
                for d in &w.dirs {
                    let path = join(&w.root, d);
                    let fchange = check_dir_meta(&path, user, group, dir_mode, a.follow_symlinks);
                    if !fchange.is_empty() {
                        changes.insert(path, Value::Map(fchange));
                    }
                }
            }
        }
    }
    if !a.children_only {
        let fchange = check_dir_meta(
            name,
            a.user.as_ref(),
            a.group.as_ref(),
            a.dir_mode.as_deref(),
            a.follow_symlinks,
        );
        if !fchange.is_empty() {
            changes.insert(name.to_string(), Value::Map(fchange));
        }
    }
    if a.clean {
        let keep = keep_files(name, a.require, &walked);
        for w in &walked {
            for f in w.files.iter().chain(&w.dirs) {
                let path = join(&w.root, f);
                let rel = path.strip_prefix(&format!("{name}/")).unwrap_or(&path);
                if !keep.contains(&path) && not_excluded(rel, &a.exclude_pat) {
                    let mut m = Map::default();
                    m.insert("removed".into(), Value::Str("Removed due to clean".into()));
                    changes.insert(path, Value::Map(m));
                }
            }
        }
    }
    if !Path::new(name).is_dir() {
        let mut m = Map::default();
        m.insert("directory".into(), Value::Str("new".into()));
        changes.insert(name.to_string(), Value::Map(m));
    }
    if !changes.is_empty() {
        let mut comment = String::from("The following files will be changed:\n");
        for (path, ch) in &changes {
            if let Value::Map(m) = ch {
                for (k, v) in m {
                    comment.push_str(&format!("{path}: {k} - {}\n", v.to_python_str()));
                }
            }
        }
        return (None, comment, changes);
    }
    (
        Some(true),
        format!("The directory {name} is in the correct state"),
        changes,
    )
}

pub fn directory(call: &StateCall, args: &Args, raw_name: &str) -> Result<StateReturn, String> {
    let test = call.test;
    let ret_name = fsutil::expanduser(raw_name);
    let mut ret = StateReturn::new(&ret_name);
    let err = |mut ret: StateReturn, msg: String| {
        ret.result = Some(false);
        ret.comment = msg;
        Ok(ret)
    };
    if ret_name.is_empty() {
        return err(ret, "Must provide name to file.directory".into());
    }
    let name = if ret_name.ends_with('/') && ret_name != "/" {
        ret_name.trim_end_matches('/').to_string()
    } else {
        ret_name.clone()
    };
    let clean = args.truthy("clean", false);
    let max_depth = args.int("max_depth")?;
    if max_depth.is_some() && clean {
        return err(ret, "Cannot specify both max_depth and clean".into());
    }
    let user = match args.owner("user")? {
        Some(u) => Some(u),
        None => args.owner("owner")?,
    };
    let group = args.owner("group")?;
    let mut dir_mode_v = args.get("dir_mode").filter(|v| v.is_truthy());
    if dir_mode_v.is_none() {
        dir_mode_v = args.get("mode");
    }
    let file_mode_v = args
        .get("file_mode")
        .filter(|v| v.is_truthy())
        .or(dir_mode_v);
    let dir_mode = fsutil::normalize_mode(dir_mode_v);
    let file_mode = fsutil::normalize_mode(file_mode_v);
    let u_check = check_user(user.as_ref(), group.as_ref(), test);
    if !u_check.is_empty() {
        return err(ret, u_check);
    }
    if !fsutil::isabs(&name) {
        return err(
            ret,
            format!("Specified file {name} is not an absolute path"),
        );
    }
    let force = args.truthy("force", false);
    let allow_symlink = args.truthy("allow_symlink", true);
    let backupname = args.string("backupname")?;
    let path = Path::new(&name);
    let is_link = path.is_symlink();
    if path.is_file() || (!allow_symlink && is_link) || (force && is_link) {
        if let Some(backup) = &backupname {
            if Path::new(backup).symlink_metadata().is_ok() {
                if !force {
                    return err(
                        ret,
                        format!("File exists where the backup target {backup} should go"),
                    );
                }
                if test {
                    ret.changes.insert(
                        "forced".into(),
                        Value::Str(format!(
                            "Existing file at backup path {backup} would be removed"
                        )),
                    );
                } else {
                    let _ = fsutil::remove(Path::new(backup));
                }
            }
            if test {
                ret.changes.insert(
                    "backup".into(),
                    Value::Str(format!("{name} would be renamed to {backup}")),
                );
                let mut m = Map::default();
                m.insert("directory".into(), Value::Str("new".into()));
                ret.changes.insert(name.clone(), Value::Map(m));
                ret.comment =
                    format!("{name} would be backed up and replaced with a new directory");
                ret.result = None;
                return Ok(ret);
            }
            if let Err(e) = std::fs::rename(path, backup) {
                return err(ret, fsutil::py_os_error(&e, path));
            }
        } else if force {
            let (what, res) = if path.is_file() && !is_link {
                ("File", if test { Ok(true) } else { fsutil::remove(path) })
            } else if is_link {
                (
                    "Symlink",
                    if test { Ok(true) } else { fsutil::remove(path) },
                )
            } else {
                (
                    "Directory",
                    if test { Ok(true) } else { fsutil::remove(path) },
                )
            };
            if let Err(e) = res {
                return err(ret, fsutil::py_os_error(&e, path));
            }
            let verb = if test { "would be" } else { "was" };
            ret.changes.insert(
                "forced".into(),
                Value::Str(format!("{what} {verb} forcibly replaced")),
            );
        } else if path.is_file() {
            return err(
                ret,
                format!("Specified location {name} exists and is a file"),
            );
        } else if is_link {
            return err(
                ret,
                format!("Specified location {name} exists and is a symlink"),
            );
        }
    }

    // One pattern, or a list of them (any match excludes).
    let exclude_pat: Vec<String> = match args.get("exclude_pat") {
        Some(Value::List(l)) => l.iter().map(Value::to_python_str).collect(),
        _ => args.string("exclude_pat")?.into_iter().collect(),
    };
    let follow_symlinks = args.truthy("follow_symlinks", false);
    let children_only = args.truthy("children_only", false);
    let recurse = args.get("recurse");
    let dargs = DirArgs {
        name: &name,
        user: user.clone(),
        group: group.clone(),
        recurse,
        dir_mode: dir_mode.clone(),
        file_mode: file_mode.clone(),
        clean,
        require: args.get("require"),
        exclude_pat: exclude_pat.clone(),
        max_depth,
        follow_symlinks,
        children_only,
    };
    let (tresult, tcomment, tchanges) = check_directory(&dargs);
    for (k, v) in tchanges {
        ret.changes.insert(k, v);
    }
    if test || ret.changes.is_empty() {
        ret.result = tresult;
        ret.comment = tcomment;
        return Ok(ret);
    }

    if !path.is_dir() {
        if !Path::new(&fsutil::dirname(&name)).is_dir() {
            if args.truthy("makedirs", false) {
                if let Err(e) =
                    fsutil::makedirs_for(&name, user.as_ref(), group.as_ref(), dir_mode.as_deref())
                {
                    return err(ret, fsutil::py_os_error(&e, path));
                }
            } else {
                return err(ret, format!("No directory to create {name} in"));
            }
        }
        // `file.mkdir`: the directory itself, with owner and mode.
        let made = fsutil::makedirs_for(
            &format!("{name}/"),
            user.as_ref(),
            group.as_ref(),
            dir_mode.as_deref(),
        );
        if made.is_err() || !path.is_dir() {
            return err(ret, format!("Failed to create directory {name}"));
        }
        let mut m = Map::default();
        m.insert("directory".into(), Value::Str("new".into()));
        ret.changes.insert(name.clone(), Value::Map(m));
        return Ok(ret);
    }

    if !children_only {
        if let Err(e) = check_perms(
            path,
            &mut ret,
            user.as_ref(),
            group.as_ref(),
            dir_mode.as_deref(),
            follow_symlinks,
            false,
        ) {
            return err(ret, e.to_string());
        }
    }
    let mut errors: Vec<String> = Vec::new();
    let walked = if recurse.is_some_and(Value::is_truthy) || clean {
        walk(&name, max_depth)
    } else {
        Vec::new()
    };
    if recurse.is_some_and(Value::is_truthy) {
        match recurse_set(recurse) {
            Err(e) => {
                ret.result = Some(false);
                ret.comment = e;
            }
            Ok(set) if !set.is_empty() => {
                let mut r_user = None;
                let mut r_group = None;
                if set.contains("user") {
                    match &user {
                        Some(u) if fsutil::user_to_uid(u).is_some() => r_user = Some(u.clone()),
                        Some(u) => {
                            ret.result = Some(false);
                            ret.comment = format!(
                                "Failed to enforce ownership for user {} (user does not exist)",
                                u.display()
                            );
                        }
                        None => {
                            ret.result = Some(false);
                            ret.comment = "user not specified, but configured as a target for recursive ownership management".into();
                        }
                    }
                }
                if set.contains("group") {
                    match &group {
                        Some(g) if fsutil::group_to_gid(g).is_some() => r_group = Some(g.clone()),
                        Some(g) => {
                            ret.result = Some(false);
                            ret.comment = format!(
                                "Failed to enforce group ownership for group {}",
                                g.display()
                            );
                        }
                        None => {
                            ret.result = Some(false);
                            ret.comment = "group not specified, but configured as a target for recursive ownership management".into();
                        }
                    }
                }
                let (r_dir_mode, r_file_mode) = if set.contains("mode") {
                    (dir_mode.clone(), file_mode.clone())
                } else {
                    (None, None)
                };
                if set.contains("silent") {
                    ret.changes = Map::default();
                    ret.changes
                        .insert("recursion".into(), Value::Str("Changes silenced".into()));
                }
                for w in &walked {
                    let mut entries: Vec<(String, Option<&str>)> = Vec::new();
                    if !set.contains("ignore_files") {
                        entries.extend(
                            w.files
                                .iter()
                                .map(|f| (join(&w.root, f), r_file_mode.as_deref())),
                        );
                    }
                    if !set.contains("ignore_dirs") {
                        entries.extend(
                            w.dirs
                                .iter()
                                .map(|d| (join(&w.root, d), r_dir_mode.as_deref())),
                        );
                    }
                    for (full, mode) in entries {
                        if let Err(e) = check_perms(
                            Path::new(&full),
                            &mut ret,
                            r_user.as_ref(),
                            r_group.as_ref(),
                            mode,
                            follow_symlinks,
                            false,
                        ) {
                            // A path gone meanwhile is skipped, as Salt does.
                            if !matches!(e, fsutil::FileError::NotFound { .. }) {
                                errors.push(e.to_string());
                            }
                        }
                    }
                }
            }
            Ok(_) => {}
        }
    }
    if clean {
        let keep = keep_files(&name, args.get("require"), &walked);
        let keep = real_keep(&name, &keep);
        let mut removed = Vec::new();
        clean_dir(&name, &name, &keep, &exclude_pat, &mut removed);
        if !removed.is_empty() {
            ret.changes.insert("removed".into(), Value::List(removed));
            ret.comment = format!("Files cleaned from directory {name}");
        }
    }
    if ret.comment.is_empty() {
        if children_only {
            ret.comment = format!("Directory {name}/* updated");
        } else if !ret.changes.is_empty() {
            ret.comment = format!("Directory {name} updated");
        }
    }
    if ret.changes.is_empty() && ret.result == Some(true) {
        let orig = std::mem::take(&mut ret.comment);
        ret.comment = format!("Directory {name} is in the correct state");
        if !orig.is_empty() {
            ret.comment = format!("{}\n{orig}", ret.comment);
        }
    }
    if !errors.is_empty() {
        ret.result = Some(false);
        ret.comment
            .push_str("\n\nThe following errors were encountered:\n");
        for e in errors {
            ret.comment.push_str(&format!("\n- {e}"));
        }
    }
    Ok(ret)
}

/// Salt's `_clean_dir` walk: remove what is not kept, directory by
/// directory from the top (a removed directory is not entered).
fn clean_dir(
    top: &str,
    root: &str,
    keep: &HashSet<String>,
    exclude_pat: &[String],
    removed: &mut Vec<Value>,
) {
    let Ok(rd) = std::fs::read_dir(root) else {
        return;
    };
    let mut dirs = Vec::new();
    let mut files = Vec::new();
    for entry in rd.flatten() {
        let fname = entry.file_name().to_string_lossy().into_owned();
        if Path::new(root).join(&fname).is_dir() {
            dirs.push(fname);
        } else {
            files.push(fname);
        }
    }
    for f in dirs.iter().chain(&files) {
        let full = join(root, f);
        if keep.contains(&full) {
            continue;
        }
        let rel = full.strip_prefix(&format!("{top}/")).unwrap_or(&full);
        if !not_excluded(rel, exclude_pat) {
            continue;
        }
        let _ = fsutil::remove(Path::new(&full));
        removed.push(Value::Str(full));
    }
    for d in &dirs {
        let full = join(root, d);
        let p = Path::new(&full);
        if p.is_dir() && !p.is_symlink() {
            clean_dir(top, &full, keep, exclude_pat, removed);
        }
    }
}
