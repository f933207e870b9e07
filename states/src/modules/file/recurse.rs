//! `file.recurse`: a `salt://` folder copied file by file, each file
//! through `file.managed` and each folder through `file.directory`, as
//! Salt 3007.8's `states.file.recurse` (with `_gen_recurse_managed_files`
//! and `_clean_dir`) does.

use super::args::{failed, Args};
use super::directory::directory;
use super::fsutil::{self, Owner};
use super::managed::{check_user, managed, state_saltenv};
use super::misc::symlink;
use super::pattern::check_include_exclude;
use crate::fileclient::{parse_salt_url, FileClient};
use crate::{StateCall, StateReturn};
use brine_core::{Map, Value};
use indexmap::IndexMap;
use std::collections::BTreeSet;
use std::path::Path;

/// The parameters of Salt's `file.recurse`: every other key of the chunk
/// is a keyword argument it hands on to `file.managed`.
const RECURSE_PARAMS: &[&str] = &[
    "name",
    "source",
    "keep_source",
    "clean",
    "require",
    "user",
    "group",
    "dir_mode",
    "file_mode",
    "sym_mode",
    "template",
    "context",
    "replace",
    "defaults",
    "include_empty",
    "backup",
    "include_pat",
    "exclude_pat",
    "maxdepth",
    "keep_symlinks",
    "force_symlinks",
    "win_owner",
    "win_perms",
    "win_deny_perms",
    "win_inheritance",
];

/// Salt's `_is_valid_relpath`: no `..` part, at most `maxdepth` folders
/// deep.
fn valid_relpath(rel: &str, maxdepth: Option<i64>) -> bool {
    if format!("/{rel}/").contains("/../") {
        return false;
    }
    maxdepth.is_none_or(|m| (rel.trim_matches('/').matches('/').count() as i64) <= m)
}

/// Python's `posixpath.relpath(path, start)` for two relative paths.
fn relpath(path: &str, start: &str) -> String {
    let p: Vec<&str> = path
        .split('/')
        .filter(|s| !s.is_empty() && *s != ".")
        .collect();
    let s: Vec<&str> = start
        .split('/')
        .filter(|s| !s.is_empty() && *s != ".")
        .collect();
    let common = p.iter().zip(&s).take_while(|(a, b)| a == b).count();
    let mut parts: Vec<&str> = vec![".."; s.len() - common];
    parts.extend(&p[common..]);
    if parts.is_empty() {
        ".".into()
    } else {
        parts.join("/")
    }
}

/// `os.path.join(name, normpath(rel))`.
fn full_path(name: &str, rel: &str) -> String {
    let rel = fsutil::normpath(rel);
    if name.ends_with('/') {
        format!("{name}{rel}")
    } else {
        format!("{name}/{rel}")
    }
}

/// What `_gen_recurse_managed_files` plans.
#[derive(Default)]
struct Plan {
    /// (destination, `salt://` source), files last that are also links.
    files: Vec<(String, String)>,
    dirs: BTreeSet<String>,
    symlinks: BTreeSet<(String, String)>,
    keep: BTreeSet<String>,
}

struct Opts<'a> {
    name: &'a str,
    include: Option<&'a Value>,
    exclude: Option<&'a Value>,
    maxdepth: Option<i64>,
    include_empty: bool,
    keep_symlinks: bool,
}

fn plan(client: &dyn FileClient, srcpath: &str, senv: &str, o: &Opts) -> Result<Plan, String> {
    let prefix = format!("{}/", srcpath.trim_end_matches('/'));
    let err = |e: crate::fileclient::FileClientError| e.to_string();
    let mut files = client.file_list(senv, &prefix).map_err(err)?;
    let mut out = Plan::default();
    let mut vdir: BTreeSet<String> = BTreeSet::new();
    let links = if o.keep_symlinks {
        client.symlink_list(senv, &prefix).map_err(err)?
    } else {
        Vec::new()
    };
    for (lname, target) in &links {
        let rel = relpath(lname, &prefix);
        if !valid_relpath(&rel, o.maxdepth) || !check_include_exclude(&rel, o.include, o.exclude) {
            continue;
        }
        // What lies below a kept link comes with the link.
        files.retain(|f| !f.starts_with(&format!("{lname}/")));
        out.symlinks.insert((rel.clone(), target.clone()));
        out.keep.insert(full_path(o.name, &rel));
    }
    vdir.extend(out.keep.iter().cloned());
    for f in &files {
        if f.trim().is_empty() {
            continue;
        }
        let rel = relpath(f, &prefix);
        if !valid_relpath(&rel, o.maxdepth) || !check_include_exclude(&rel, o.include, o.exclude) {
            continue;
        }
        let dest = full_path(o.name, &rel);
        let dir = fsutil::dirname(&dest);
        out.keep.insert(dest.clone());
        if vdir.insert(dir.clone()) {
            out.dirs.insert(dir);
        }
        out.files.push((dest, format!("salt://{f}?saltenv={senv}")));
    }
    if o.include_empty {
        for d in client
            .dir_list(senv, srcpath.trim_matches('/'))
            .map_err(err)?
        {
            let rel = relpath(&d, &prefix);
            if !valid_relpath(&rel, o.maxdepth)
                || !check_include_exclude(&rel, o.include, o.exclude)
            {
                continue;
            }
            if links.iter().any(|(l, _)| d.starts_with(&format!("{l}/"))) {
                continue;
            }
            let mdest = if rel == "." {
                format!("{}/.", o.name.trim_end_matches('/'))
            } else {
                full_path(o.name, &rel)
            };
            out.dirs.insert(mdest.clone());
            out.keep.insert(mdest);
        }
    }
    out.files.sort();
    // A file that is also a kept link is managed after the link exists.
    let links_at: BTreeSet<String> = out
        .symlinks
        .iter()
        .map(|(r, _)| full_path(o.name, r))
        .collect();
    out.files.sort_by_key(|(dest, _)| links_at.contains(dest));
    Ok(out)
}

/// Salt's `_find_keep_files`: kept paths and all their parents.
fn real_keep(root: &str, keep: &BTreeSet<String>) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    out.insert(fsutil::normpath(root));
    for k in keep.iter().filter(|k| fsutil::isabs(k)) {
        let mut p = fsutil::normpath(k);
        out.insert(p.clone());
        while !p.trim_start_matches('/').is_empty() {
            p = fsutil::normpath(&fsutil::dirname(&p));
            out.insert(p.clone());
        }
    }
    out
}

/// Salt's `_clean_dir`: what is not kept (nor excluded) goes, folder by
/// folder from the top; in test mode nothing goes, so what lies inside a
/// folder that would go is listed too.
fn clean_dir(
    top: &str,
    dir: &str,
    keep: &BTreeSet<String>,
    exclude: Option<&Value>,
    test: bool,
    removed: &mut BTreeSet<String>,
) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    let mut dirs = Vec::new();
    let mut files = Vec::new();
    for entry in rd.flatten() {
        let full = format!("{dir}/{}", entry.file_name().to_string_lossy());
        if Path::new(&full).is_dir() {
            dirs.push(full);
        } else {
            files.push(full);
        }
    }
    dirs.sort();
    files.sort();
    for full in dirs.iter().chain(&files) {
        if keep.contains(full) {
            continue;
        }
        let rel = full.strip_prefix(&format!("{top}/")).unwrap_or(full);
        if !check_include_exclude(rel, None, exclude) {
            continue;
        }
        removed.insert(full.clone());
        if !test {
            let _ = fsutil::remove(Path::new(full));
        }
    }
    for d in &dirs {
        let p = Path::new(d);
        if p.is_dir() && !p.is_symlink() {
            clean_dir(top, d, keep, exclude, test, removed);
        }
    }
}

/// The result Salt keeps: the most "negative" of True, None, False.
fn merge(
    ret: &mut StateReturn,
    comments: &mut IndexMap<String, Vec<String>>,
    path: &str,
    r: StateReturn,
) {
    if r.result == Some(false) || ret.result == Some(true) {
        ret.result = r.result;
    }
    if r.result != Some(true) && !r.comment.is_empty() {
        comments
            .entry(path.to_string())
            .or_default()
            .push(r.comment);
    }
    if !r.changes.is_empty() {
        ret.changes.insert(path.to_string(), Value::Map(r.changes));
    }
}

/// Call another function of this module on a low chunk of our own.
fn call_with(
    call: &StateCall,
    low: &Map,
    f: fn(&StateCall, &Args, &str) -> Result<StateReturn, String>,
) -> StateReturn {
    let sub = StateCall {
        low,
        test: call.test,
        ctx: call.ctx,
    };
    let args = Args { low };
    let name = args.name();
    f(&sub, &args, &name).unwrap_or_else(|comment| failed(&name, comment))
}

/// A low chunk for a nested call: the chunk's bookkeeping keys, then
/// `args`.
fn sub_low(call: &StateCall, args: &[(&str, Value)]) -> Map {
    let mut low = Map::default();
    for k in ["state", "__id__", "__env__", "__sls__"] {
        if let Some(v) = call.low.get(k) {
            low.insert(k.into(), v.clone());
        }
    }
    for (k, v) in args {
        low.insert((*k).into(), v.clone());
    }
    low
}

pub fn recurse(call: &StateCall, args: &Args, raw_name: &str) -> Result<StateReturn, String> {
    let test = call.test;
    let name = fsutil::expanduser(raw_name);
    let user = match args.owner("user")? {
        Some(u) => Some(u),
        None => args.owner("owner")?,
    };
    let group = args.owner("group")?;
    let mut ret = StateReturn::new(&name);
    if call.low.contains_key("mode") {
        ret.result = Some(false);
        ret.comment =
            "'mode' is not allowed in 'file.recurse'. Please use 'file_mode' and 'dir_mode'."
                .into();
        return Ok(ret);
    }
    let dir_mode = fsutil::normalize_mode(args.get("dir_mode"));
    let keep_mode =
        matches!(args.get("file_mode"), Some(Value::Str(s)) if s.to_lowercase() == "keep");
    let file_mode = if keep_mode {
        None
    } else {
        fsutil::normalize_mode(args.get("file_mode"))
    };
    let u_check = check_user(user.as_ref(), group.as_ref(), test);
    if !u_check.is_empty() {
        return Ok(failed(&name, u_check));
    }
    if !fsutil::isabs(&name) {
        return Ok(failed(
            &name,
            format!("Specified file {name} is not an absolute path"),
        ));
    }
    let sources: Vec<String> = match args.low.get("source") {
        Some(Value::List(l)) => l.iter().map(Value::to_python_str).collect(),
        Some(v) => vec![v.to_python_str()],
        None => vec!["None".into()],
    }
    .into_iter()
    .map(|s| s.trim_end_matches('/').to_string())
    .collect();
    if let Some(bad) = sources.iter().find(|s| !s.starts_with("salt://")) {
        return Ok(failed(
            &name,
            format!("Invalid source '{bad}' (must be a salt:// URI)"),
        ));
    }
    let saltenv = state_saltenv(call);
    let client = call.ctx.fileclient.as_ref();
    // Salt's `file.source_list`: the first source the file server has, as
    // a file or as a folder.
    let mut chosen = None;
    for s in &sources {
        let (path, env) = parse_salt_url(s).unwrap_or_default();
        let env = env.unwrap_or_else(|| saltenv.clone());
        let files = client.file_list(&env, "").map_err(|e| e.to_string())?;
        let dirs = client.dir_list(&env, "").map_err(|e| e.to_string())?;
        if files.contains(&path) || dirs.contains(&path) {
            chosen = Some((path, env));
            break;
        }
    }
    let Some((srcpath, senv)) = chosen else {
        ret.result = Some(false);
        ret.comment = "Recurse failed: none of the specified sources were found".into();
        return Ok(ret);
    };
    let master_dirs = client
        .dir_list(&senv, &srcpath)
        .map_err(|e| e.to_string())?;
    if !master_dirs.contains(&srcpath) {
        ret.result = Some(false);
        ret.comment = format!(
            "The directory '{srcpath}' does not exist on the salt fileserver in saltenv '{senv}'"
        );
        return Ok(ret);
    }
    let target = Path::new(&name);
    if !target.is_dir() {
        if target.exists() {
            return Ok(failed(
                &name,
                format!("The path {name} exists and is not a directory"),
            ));
        }
        if !test {
            let uid = user.as_ref().and_then(fsutil::user_to_uid);
            let gid = group.as_ref().and_then(fsutil::group_to_gid);
            if let Err(e) = fsutil::makedirs_perms(target, uid, gid, dir_mode.as_deref()) {
                return Ok(failed(&name, fsutil::py_os_error(&e, target)));
            }
        }
    }
    let maxdepth = args.int("maxdepth")?;
    let opts = Opts {
        name: &name,
        include: args.get("include_pat"),
        exclude: args.get("exclude_pat"),
        maxdepth,
        include_empty: args.truthy("include_empty", false),
        keep_symlinks: args.truthy("keep_symlinks", false),
    };
    let plan = match plan(client, &srcpath, &senv, &opts) {
        Ok(p) => p,
        Err(e) => return Ok(failed(&name, e)),
    };
    let clean = args.truthy("clean", false);
    let owner = |o: &Option<Owner>| o.as_ref().map_or(Value::Null, Owner::to_value);
    let opt = |v: Option<String>| v.map_or(Value::Null, Value::Str);
    let mut comments: IndexMap<String, Vec<String>> = IndexMap::new();

    for (rel, ltarget) in &plan.symlinks {
        let path = full_path(&name, rel);
        let low = sub_low(
            call,
            &[
                ("name", Value::Str(path.clone())),
                ("target", Value::Str(ltarget.clone())),
                ("makedirs", Value::Bool(true)),
                ("force", Value::Bool(args.truthy("force_symlinks", false))),
                ("user", owner(&user)),
                ("group", owner(&group)),
                ("mode", args.get("sym_mode").cloned().unwrap_or(Value::Null)),
            ],
        );
        let r = call_with(call, &low, symlink);
        merge(&mut ret, &mut comments, &path, r);
    }
    for dir in &plan.dirs {
        if dir.ends_with("/..") {
            continue;
        }
        let p = Path::new(dir);
        if clean && p.exists() && !p.is_dir() {
            let mut r = StateReturn::new(&name);
            if test {
                r.comment = format!("Replacing {dir} with a directory");
                r.result = None;
                merge(&mut ret, &mut comments, dir, r);
                continue;
            }
            let _ = fsutil::remove(p);
            r.changes.insert(
                "diff".into(),
                Value::Str("Replaced file with a directory".into()),
            );
            merge(&mut ret, &mut comments, dir, r);
        }
        let low = sub_low(
            call,
            &[
                ("name", Value::Str(dir.clone())),
                ("user", owner(&user)),
                ("group", owner(&group)),
                ("recurse", Value::List(Vec::new())),
                ("dir_mode", opt(dir_mode.clone())),
                ("file_mode", Value::Null),
                ("makedirs", Value::Bool(true)),
                ("clean", Value::Bool(false)),
                ("require", Value::Null),
            ],
        );
        let r = call_with(call, &low, directory);
        merge(&mut ret, &mut comments, dir, r);
    }
    let replace = args.truthy("replace", true);
    for (dest, src) in &plan.files {
        let p = Path::new(dest);
        if clean && p.is_dir() && replace {
            let mut r = StateReturn::new(&name);
            if test {
                r.comment = format!("Replacing directory {dest} with a file");
                r.result = None;
                merge(&mut ret, &mut comments, dest, r);
                continue;
            }
            let _ = fsutil::remove(p);
            r.changes.insert(
                "diff".into(),
                Value::Str("Replaced directory with a new file".into()),
            );
            merge(&mut ret, &mut comments, dest, r);
        }
        // The chunk's other keyword arguments go on to file.managed.
        let mut low = sub_low(call, &[]);
        for (k, v) in call.low {
            if !RECURSE_PARAMS.contains(&k.as_str()) && k != "mode" && k != "makedirs" {
                low.insert(k.clone(), v.clone());
            }
        }
        let mode = if keep_mode {
            Value::Str("keep".into())
        } else {
            opt(file_mode.clone())
        };
        for (k, v) in [
            ("name", Value::Str(dest.clone())),
            ("source", Value::Str(src.clone())),
            ("keep_source", Value::Bool(args.truthy("keep_source", true))),
            ("user", owner(&user)),
            ("group", owner(&group)),
            ("mode", mode),
            ("attrs", Value::Null),
            (
                "template",
                args.get("template").cloned().unwrap_or(Value::Null),
            ),
            ("makedirs", Value::Bool(true)),
            ("replace", Value::Bool(replace)),
            (
                "context",
                args.get("context").cloned().unwrap_or(Value::Null),
            ),
            (
                "defaults",
                args.get("defaults").cloned().unwrap_or(Value::Null),
            ),
            (
                "backup",
                args.get("backup")
                    .cloned()
                    .unwrap_or(Value::Str(String::new())),
            ),
        ] {
            low.insert(k.into(), v);
        }
        let r = call_with(call, &low, managed);
        merge(&mut ret, &mut comments, dest, r);
    }
    if clean {
        let mut keep = plan.keep.clone();
        keep.extend(required_files(&name, args.get("require")));
        let keep = real_keep(&name, &keep);
        let mut removed = BTreeSet::new();
        let top = name.trim_end_matches('/');
        clean_dir(top, top, &keep, args.get("exclude_pat"), test, &mut removed);
        if !removed.is_empty() {
            if test {
                if ret.result == Some(true) {
                    ret.result = None;
                }
                comments
                    .entry("removed".into())
                    .or_default()
                    .extend(removed.iter().cloned());
            } else {
                ret.changes.insert(
                    "removed".into(),
                    Value::List(removed.into_iter().map(Value::Str).collect()),
                );
            }
        }
    }
    ret.comment = comments
        .iter()
        .map(|(k, v)| format!("\n#### {k} ####\n{}", v.join("\n")))
        .collect::<Vec<_>>()
        .join("\n")
        .trim()
        .to_string();
    if ret.comment.is_empty() {
        ret.comment = format!("Recursively updated {name}");
    }
    if ret.changes.is_empty() && ret.result == Some(true) {
        ret.comment = format!("The directory {name} is in the correct state");
    }
    Ok(ret)
}

/// Files a `clean` keeps besides the recursed ones: those of the `file`
/// states this one requires, by the required name (everything below a
/// required folder inside this one).
fn required_files(name: &str, require: Option<&Value>) -> BTreeSet<String> {
    let mut keep = BTreeSet::new();
    let Some(Value::List(reqs)) = require else {
        return keep;
    };
    for req in reqs {
        let Some(target) = req.get("file").map(Value::to_python_str) else {
            continue;
        };
        let p = Path::new(&target);
        if !p.is_dir() {
            keep.insert(target);
            continue;
        }
        let (child, parent) = (fsutil::normpath(&target), fsutil::normpath(name));
        if child == parent || child.starts_with(&format!("{parent}/")) {
            for rel in crate::fileclient::list_files(std::iter::once(&p.to_path_buf()), "") {
                keep.insert(format!("{child}/{rel}"));
            }
            keep.insert(child);
        }
    }
    keep
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_paths_like_posixpath() {
        assert_eq!(relpath("rtree/a.txt", "rtree/"), "a.txt");
        assert_eq!(relpath("rtreex/o", "rtree/"), "../rtreex/o");
        assert_eq!(relpath("rtree", "rtree/"), ".");
        assert!(!valid_relpath("../rtreex/o", None));
        assert!(valid_relpath("a/b", Some(1)));
        assert!(!valid_relpath("a/b/c", Some(1)));
        assert_eq!(full_path("/t", "sub/x"), "/t/sub/x");
    }
}
