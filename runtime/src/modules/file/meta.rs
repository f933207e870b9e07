//! Metadata and links: `stats`, `get_hash`, `get_mode`/`get_user`/
//! `get_group`, `set_mode`, `chown`, `access`, `check_hash`, `symlink`,
//! `readlink`, `is_link`.

use super::args::{isabs, path_arg, truthy};
use crate::modules::params::Params;
use crate::modules::CallError;
use brine_core::{Map, Value};
use brine_states::modules::file::fsutil::{self, py_os_error, FileError, Owner};
use brine_states::modules::file::misc;
use std::path::Path;

/// Python's `os.path.abspath`.
pub(super) fn abspath(path: &str) -> String {
    if isabs(path) {
        return fsutil::normpath(path);
    }
    let cwd = std::env::current_dir()
        .map(|d| d.display().to_string())
        .unwrap_or_else(|_| "/".into());
    fsutil::normpath(&format!("{cwd}/{path}"))
}

/// Python's `os.path.realpath` (not strict): links resolved as far as
/// they go, the rest of the path kept.
pub(super) fn realpath(path: &str) -> String {
    let abs = abspath(path);
    let mut out = String::from("/");
    let mut todo: Vec<String> = abs
        .split('/')
        .filter(|s| !s.is_empty())
        .rev()
        .map(String::from)
        .collect();
    // A bound on links followed: a loop stops where it is, as in Python.
    let mut hops = 0;
    while let Some(part) = todo.pop() {
        let next = if out == "/" {
            format!("/{part}")
        } else {
            format!("{out}/{part}")
        };
        match std::fs::read_link(&next) {
            Ok(target) if hops < 40 => {
                hops += 1;
                let target = target.display().to_string();
                if isabs(&target) {
                    out = String::from("/");
                }
                for t in target.split('/').filter(|s| !s.is_empty()).rev() {
                    todo.push(t.to_string());
                }
            }
            _ if part == ".." => out = fsutil::dirname(&out),
            _ if part == "." => {}
            _ => out = next,
        }
    }
    out
}

/// `follow_symlinks` as Salt takes it (true unless given false).
fn follow(p: &mut Params) -> bool {
    truthy(p.take("follow_symlinks"), true)
}

/// Salt's `file.stats` of `path` (the state's `fsutil::stats`) as a dict.
fn stats_of(path: &str, follow: bool, hash_type: Option<&str>) -> Result<Map, CallError> {
    let st = fsutil::stats(Path::new(path), follow)
        .map_err(|e: FileError| CallError::Failed(e.to_string()))?;
    let mut m = Map::default();
    m.insert("inode".into(), Value::Int(st.inode as i64));
    m.insert("uid".into(), Value::Int(i64::from(st.uid)));
    m.insert("gid".into(), Value::Int(i64::from(st.gid)));
    // An id without a name is the number itself, as Salt answers.
    let group = match brine_host::accounts::group_by_gid(st.gid) {
        Some(_) => Value::Str(st.group),
        None => Value::Int(i64::from(st.gid)),
    };
    let user = match brine_host::accounts::user_by_uid(st.uid) {
        Some(_) => Value::Str(st.user),
        None => Value::Int(i64::from(st.uid)),
    };
    m.insert("group".into(), group);
    m.insert("user".into(), user);
    m.insert("atime".into(), Value::Float(st.atime_f));
    m.insert("mtime".into(), Value::Float(st.mtime_f));
    m.insert("ctime".into(), Value::Float(st.ctime_f));
    m.insert("size".into(), Value::Int(st.size as i64));
    m.insert("mode".into(), Value::Str(st.mode));
    if let Some(form) = hash_type.filter(|h| !h.is_empty()) {
        m.insert("sum".into(), Value::Str(hash_file(path, form)?));
    }
    m.insert("type".into(), Value::Str(st.kind.into()));
    let target = if follow {
        realpath(path)
    } else {
        abspath(path)
    };
    m.insert("target".into(), Value::Str(target));
    Ok(m)
}

pub(super) fn stats(mut p: Params) -> Result<Value, CallError> {
    let path = path_arg(&mut p, "path")?;
    let hash_type = p.take("hash_type").filter(Value::is_truthy);
    let follow = follow(&mut p);
    p.finish()?;
    let hash_type = hash_type.map(|h| h.to_python_str());
    stats_of(&path, follow, hash_type.as_deref()).map(Value::Map)
}

/// `get_mode`, `get_user`, `get_group`: one field of `stats`.
pub(super) fn stat_field(mut p: Params, field: &str) -> Result<Value, CallError> {
    let path = path_arg(&mut p, "path")?;
    let follow = follow(&mut p);
    p.finish()?;
    let mut m = stats_of(&path, follow, None)?;
    Ok(m.shift_remove(field).unwrap_or(Value::Null))
}

/// Salt's `file.lstat`: some of `os.lstat`'s fields; `{}` when the path
/// cannot be read.
pub(super) fn lstat(mut p: Params) -> Result<Value, CallError> {
    let path = path_arg(&mut p, "path")?;
    p.finish()?;
    if !isabs(&path) {
        return Err(CallError::Invocation(
            "Path to file must be absolute.".into(),
        ));
    }
    Ok(Value::Map(lstat_of(&path).unwrap_or_default()))
}

fn lstat_of(path: &str) -> Option<Map> {
    use std::os::unix::fs::MetadataExt;
    let md = std::fs::symlink_metadata(path).ok()?;
    let t = |s: i64, n: i64| Value::Float(s as f64 + n as f64 * 1e-9);
    let mut m = Map::default();
    m.insert("st_atime".into(), t(md.atime(), md.atime_nsec()));
    m.insert("st_ctime".into(), t(md.ctime(), md.ctime_nsec()));
    m.insert("st_gid".into(), Value::Int(i64::from(md.gid())));
    m.insert("st_mode".into(), Value::Int(i64::from(md.mode())));
    m.insert("st_mtime".into(), t(md.mtime(), md.mtime_nsec()));
    m.insert("st_nlink".into(), Value::Int(md.nlink() as i64));
    m.insert("st_size".into(), Value::Int(md.size() as i64));
    m.insert("st_uid".into(), Value::Int(i64::from(md.uid())));
    Some(m)
}

pub(super) fn is_hardlink(mut p: Params) -> Result<Value, CallError> {
    let path = path_arg(&mut p, "path")?;
    p.finish()?;
    if !isabs(&path) {
        return Err(CallError::Invocation(
            "Path to file must be absolute.".into(),
        ));
    }
    // Salt answers `res and ...`: the empty dict when nothing is there.
    Ok(match lstat_of(&path) {
        None => Value::Map(Map::default()),
        Some(m) => Value::Bool(m.get("st_nlink").and_then(Value::as_i64).unwrap_or(0) > 1),
    })
}

pub(super) fn get_sum(mut p: Params) -> Result<Value, CallError> {
    let path = path_arg(&mut p, "path")?;
    let form = p
        .take("form")
        .map_or_else(|| "sha256".to_string(), |v| v.to_python_str());
    p.finish()?;
    if !Path::new(&path).is_file() {
        return Ok(Value::Str("File not found".into()));
    }
    hash_file(&path, &form).map(Value::Str)
}

/// Python's `TypeError` for an id or name of the wrong type.
fn bad_id(what: &str, v: &Value) -> CallError {
    CallError::Failed(format!(
        "{what}: an integer or a name is required, not {}",
        v.type_name()
    ))
}

pub(super) fn user_to_uid(mut p: Params) -> Result<Value, CallError> {
    let user = p.require("user")?;
    p.finish()?;
    Ok(match user {
        // No user: the one this process runs as.
        Value::Null => Value::Int(i64::from(nix::unistd::geteuid().as_raw())),
        v @ Value::Int(_) => v,
        Value::Str(name) => brine_host::accounts::uid_of(&name)
            .map_or(Value::Str(String::new()), |u| Value::Int(i64::from(u))),
        other => return Err(bad_id("getpwnam()", &other)),
    })
}

pub(super) fn group_to_gid(mut p: Params) -> Result<Value, CallError> {
    let group = p.require("group")?;
    p.finish()?;
    Ok(match group {
        Value::Null => Value::Str(String::new()),
        v @ Value::Int(_) => v,
        Value::Str(name) => brine_host::accounts::gid_of(&name)
            .map_or(Value::Str(String::new()), |g| Value::Int(i64::from(g))),
        other => return Err(bad_id("getgrnam()", &other)),
    })
}

pub(super) fn uid_to_user(mut p: Params) -> Result<Value, CallError> {
    let uid = p.require("uid")?;
    p.finish()?;
    let id = match &uid {
        Value::Int(i) => *i,
        Value::Bool(b) => i64::from(*b),
        other => return Err(bad_id("getpwuid()", other)),
    };
    // An id without a name is answered as the id.
    Ok(u32::try_from(id)
        .ok()
        .and_then(brine_host::accounts::user_by_uid)
        .map_or(Value::Int(id), |u| Value::Str(u.name)))
}

pub(super) fn gid_to_group(mut p: Params) -> Result<Value, CallError> {
    let gid = p.require("gid")?;
    p.finish()?;
    // Digits are an id; any other text is a group name to look up first.
    let id = match &gid {
        Value::Int(i) => *i,
        Value::Bool(b) => i64::from(*b),
        Value::Str(s) => match s.trim().parse::<i64>() {
            Ok(i) => i,
            Err(_) => match brine_host::accounts::gid_of(s) {
                Some(g) => i64::from(g),
                None => return Ok(Value::Str(String::new())),
            },
        },
        other => return Err(bad_id("int()", other)),
    };
    Ok(u32::try_from(id)
        .ok()
        .and_then(brine_host::accounts::group_by_gid)
        .map_or(Value::Int(id), |g| Value::Str(g.name)))
}

/// `is_blkdev`, `is_chrdev`, `is_fifo`: what `stat` (links followed)
/// says the path is; false when nothing is there.
pub(super) fn is_kind(
    mut p: Params,
    kind: fn(&std::fs::FileType) -> bool,
) -> Result<Value, CallError> {
    let name = path_arg(&mut p, "name")?;
    p.finish()?;
    match std::fs::metadata(&name) {
        Ok(md) => Ok(Value::Bool(kind(&md.file_type()))),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Value::Bool(false)),
        Err(e) => Err(CallError::Failed(py_os_error(&e, Path::new(&name)))),
    }
}

/// Salt's `file.diskusage`: a file's size, or the sizes of the files under
/// a directory (each inode once, links to directories not followed).
pub(super) fn diskusage(mut p: Params) -> Result<Value, CallError> {
    // Salt uses the path as given, without expanding `~`.
    let path = super::args::raw_path_arg(&mut p, "path")?;
    p.finish()?;
    use std::os::unix::fs::MetadataExt;
    if let Ok(md) = std::fs::metadata(&path) {
        if md.is_file() {
            return Ok(Value::Int(md.size() as i64));
        }
    }
    fn walk(dir: &Path, seen: &mut std::collections::HashSet<u64>, total: &mut u64) {
        let Ok(rd) = std::fs::read_dir(dir) else {
            return;
        };
        for e in rd.flatten() {
            // os.walk lists a link to a directory among the directories
            // and does not enter it.
            let follows_to_dir = std::fs::metadata(e.path()).is_ok_and(|m| m.is_dir());
            if follows_to_dir {
                if e.file_type().is_ok_and(|t| t.is_dir()) {
                    walk(&e.path(), seen, total);
                }
            } else if let Ok(md) = std::fs::metadata(e.path()) {
                if seen.insert(md.ino()) {
                    *total += md.size();
                }
            }
        }
    }
    let mut seen = std::collections::HashSet::new();
    let mut total = 0;
    walk(Path::new(&path), &mut seen, &mut total);
    Ok(Value::Int(i64::try_from(total).unwrap_or(i64::MAX)))
}

pub(super) fn link(mut p: Params) -> Result<Value, CallError> {
    let src = path_arg(&mut p, "src")?;
    let path = super::args::path_str("fspath", p.require("path")?)?;
    p.finish()?;
    if !isabs(&src) {
        return Err(CallError::Invocation("File path must be absolute.".into()));
    }
    std::fs::hard_link(&src, &path)
        .map(|()| Value::Bool(true))
        .map_err(|e| {
            // Python's str() of a two-path OSError names both.
            let text = py_os_error(&e, Path::new(&src));
            CallError::Failed(format!("Could not create '{path}': {text} -> '{path}'"))
        })
}

pub(super) fn statvfs(mut p: Params) -> Result<Value, CallError> {
    let path = path_arg(&mut p, "path")?;
    p.finish()?;
    if !isabs(&path) {
        return Err(CallError::Invocation("File path must be absolute.".into()));
    }
    let st = nix::sys::statvfs::statvfs(path.as_str())
        .map_err(|_| CallError::Failed(format!("Could not statvfs '{path}'")))?;
    let n = |v: u64| Value::Int(i64::try_from(v).unwrap_or(i64::MAX));
    let mut m = Map::default();
    m.insert("f_bavail".into(), n(st.blocks_available()));
    m.insert("f_bfree".into(), n(st.blocks_free()));
    m.insert("f_blocks".into(), n(st.blocks()));
    m.insert("f_bsize".into(), n(st.block_size()));
    m.insert("f_favail".into(), n(st.files_available()));
    m.insert("f_ffree".into(), n(st.files_free()));
    m.insert("f_files".into(), n(st.files()));
    m.insert("f_flag".into(), n(st.flags().bits()));
    m.insert("f_frsize".into(), n(st.fragment_size()));
    m.insert("f_namemax".into(), n(st.name_max()));
    Ok(Value::Map(m))
}

/// The hex digest of a file (Salt's `hashutils.get_hash`).
fn hash_file(path: &str, form: &str) -> Result<String, CallError> {
    // Salt checks the type before it opens the file.
    if fsutil::hash_hex(form, b"").is_none() {
        return Err(CallError::Failed(format!("Invalid hash type: {form}")));
    }
    let data =
        std::fs::read(path).map_err(|e| CallError::Failed(py_os_error(&e, Path::new(path))))?;
    fsutil::hash_hex(form, &data)
        .ok_or_else(|| CallError::Failed(format!("Invalid hash type: {form}")))
}

pub(super) fn get_hash(mut p: Params) -> Result<Value, CallError> {
    let path = path_arg(&mut p, "path")?;
    let form = p
        .take("form")
        .map_or_else(|| "sha256".to_string(), |v| v.to_python_str());
    // Read whole: the chunk size changes nothing in the digest.
    let _chunk_size = p.take("chunk_size");
    p.finish()?;
    hash_file(&path, &form).map(Value::Str)
}

pub(super) fn set_mode(mut p: Params) -> Result<Value, CallError> {
    let path = path_arg(&mut p, "path")?;
    let mode = p.require("mode")?.to_python_str();
    p.finish()?;
    let digits = mode.trim_start_matches(['0', 'O', 'o']);
    let digits = if digits.is_empty() { "0" } else { digits };
    if !Path::new(&path).exists() {
        return Err(CallError::Failed(format!("{path}: File not found")));
    }
    let ok = u32::from_str_radix(digits, 8).is_ok() && fsutil::set_mode(Path::new(&path), digits);
    if !ok {
        return Ok(Value::Str(format!("Invalid Mode {digits}")));
    }
    let mut m = stats_of(&path, true, None)?;
    Ok(m.shift_remove("mode").unwrap_or(Value::Null))
}

/// Salt's `user_to_uid`/`group_to_gid`: an id as it is, a name looked up;
/// `Err` for an unknown name.
fn owner_id(v: &Value, lookup: fn(&Owner) -> Option<u32>) -> Result<Option<u32>, ()> {
    match Owner::from_value(Some(v)) {
        Ok(Some(o)) => lookup(&o).map(Some).ok_or(()),
        Ok(None) => Ok(None),
        Err(_) => Err(()),
    }
}

pub(super) fn chown(mut p: Params) -> Result<Value, CallError> {
    let path = path_arg(&mut p, "path")?;
    let user = p.require("user")?;
    let group = p.require("group")?;
    p.finish()?;
    chown_path(&path, user, group)
}

/// `chgrp`: `chown` with the owner the path has now.
pub(super) fn chgrp(mut p: Params) -> Result<Value, CallError> {
    let path = path_arg(&mut p, "path")?;
    let group = p.require("group")?;
    p.finish()?;
    let mut st = stats_of(&path, true, None)?;
    let user = st.shift_remove("user").unwrap_or(Value::Null);
    chown_path(&path, user, group)
}

/// `lchown`: the link itself, not what it points to. Salt computes its
/// "does not exist" messages and drops them: an unknown name fails.
pub(super) fn lchown(mut p: Params) -> Result<Value, CallError> {
    let path = path_arg(&mut p, "path")?;
    let user = p.require("user")?;
    let group = p.require("group")?;
    p.finish()?;
    let unknown = |what: &str| CallError::Failed(format!("{what} must be an integer, not str"));
    let uid = match user {
        Value::Null => Some(nix::unistd::geteuid().as_raw()),
        ref u => owner_id(u, fsutil::user_to_uid).map_err(|()| unknown("uid"))?,
    };
    let gid = match owner_id(&group, fsutil::group_to_gid) {
        Ok(id) => id,
        Err(()) if group.is_truthy() => return Err(unknown("gid")),
        Err(()) => None,
    };
    let p = Path::new(&path);
    fsutil::chown(p, uid, gid, false)
        .map(|()| Value::Null)
        .map_err(|e| CallError::Failed(py_os_error(&e, p)))
}

fn chown_path(path: &str, user: Value, group: Value) -> Result<Value, CallError> {
    let mut err = String::new();
    // No user (None) is the user this process runs as, in Salt.
    let uid = match user {
        Value::Null => Some(nix::unistd::geteuid().as_raw()),
        ref u => match owner_id(u, fsutil::user_to_uid) {
            Ok(id) => id,
            Err(()) => {
                err.push_str("User does not exist\n");
                None
            }
        },
    };
    let gid = match owner_id(&group, fsutil::group_to_gid) {
        Ok(id) => id,
        Err(()) if group.is_truthy() => {
            err.push_str("Group does not exist\n");
            None
        }
        Err(()) => None,
    };
    let p = Path::new(&path);
    if !p.exists() {
        // A broken link is chowned itself.
        if fsutil::chown(p, uid, gid, false).is_ok() && err.is_empty() {
            return Ok(Value::Null);
        }
        err.push_str("File not found");
    }
    if !err.is_empty() {
        return Ok(Value::Str(err));
    }
    fsutil::chown(p, uid, gid, true)
        .map(|()| Value::Null)
        .map_err(|e| CallError::Failed(py_os_error(&e, p)))
}

pub(super) fn access(mut p: Params) -> Result<Value, CallError> {
    let path = path_arg(&mut p, "path")?;
    let mode = p.require("mode")?;
    p.finish()?;
    if !isabs(&path) {
        return Err(CallError::Invocation(
            "Path to link must be absolute.".into(),
        ));
    }
    use nix::unistd::AccessFlags;
    let flags = match &mode {
        Value::Str(s) if s == "f" => AccessFlags::F_OK,
        Value::Str(s) if s == "r" => AccessFlags::R_OK,
        Value::Str(s) if s == "w" => AccessFlags::W_OK,
        Value::Str(s) if s == "x" => AccessFlags::X_OK,
        // os.F_OK, R_OK, W_OK, X_OK as numbers (True is 1 in Python).
        Value::Int(0) => AccessFlags::F_OK,
        Value::Int(4) => AccessFlags::R_OK,
        Value::Int(2) => AccessFlags::W_OK,
        Value::Int(1) | Value::Bool(true) => AccessFlags::X_OK,
        Value::Bool(false) => AccessFlags::F_OK,
        _ => return Err(CallError::Invocation("Invalid mode specified.".into())),
    };
    Ok(Value::Bool(
        nix::unistd::access(path.as_str(), flags).is_ok(),
    ))
}

/// Salt's hash lengths: the type a bare hex digest of that length is.
fn hash_type_of_len(len: usize) -> Option<&'static str> {
    Some(match len {
        32 => "md5",
        40 => "sha1",
        56 => "sha224",
        64 => "sha256",
        96 => "sha384",
        128 => "sha512",
        _ => return None,
    })
}

pub(super) fn check_hash(mut p: Params) -> Result<Value, CallError> {
    let path = path_arg(&mut p, "path")?;
    let file_hash = p.require("file_hash")?;
    p.finish()?;
    let Value::Str(file_hash) = file_hash else {
        return Err(CallError::Invocation("hash must be a string".into()));
    };
    let (form, value) = match file_hash.split_once([':', '=']) {
        // The first of ':' then '=' that appears splits it.
        Some(_) => {
            let sep = if file_hash.contains(':') { ':' } else { '=' };
            file_hash
                .split_once(sep)
                .map(|(a, b)| (a.to_string(), b.to_string()))
                .unwrap_or_default()
        }
        None => match hash_type_of_len(file_hash.len()) {
            Some(t) => (t.to_string(), file_hash.clone()),
            None => {
                return Err(CallError::Invocation(format!(
                    "Hash {file_hash} (length: {}) could not be matched to a supported hash \
type. The supported hash types and lengths are: md5 (32), sha1 (40), sha224 (56), \
sha256 (64), sha384 (96), sha512 (128)",
                    file_hash.chars().count()
                )))
            }
        },
    };
    Ok(Value::Bool(hash_file(&path, &form)? == value))
}

pub(super) fn is_link(mut p: Params) -> Result<Value, CallError> {
    let path = path_arg(&mut p, "path")?;
    p.finish()?;
    Ok(Value::Bool(
        std::fs::symlink_metadata(&path).is_ok_and(|m| m.file_type().is_symlink()),
    ))
}

pub(super) fn readlink(mut p: Params) -> Result<Value, CallError> {
    let path = fsutil::expandvars(&path_arg(&mut p, "path")?);
    let canonicalize = truthy(p.take("canonicalize"), false);
    p.finish()?;
    if !isabs(&path) {
        return Err(CallError::Invocation(format!(
            "Path to link must be absolute: {path}"
        )));
    }
    let is_link = std::fs::symlink_metadata(&path).is_ok_and(|m| m.file_type().is_symlink());
    if !is_link {
        return Err(CallError::Invocation(format!(
            "A valid link was not specified: {path}"
        )));
    }
    if canonicalize {
        return Ok(Value::Str(realpath(&path)));
    }
    std::fs::read_link(&path)
        .map(|t| Value::Str(t.display().to_string()))
        .map_err(|e| CallError::Failed(py_os_error(&e, Path::new(&path))))
}

pub(super) fn symlink(mut p: Params) -> Result<Value, CallError> {
    let src = super::args::path_str("fspath", p.require("src")?)?;
    let path = path_arg(&mut p, "path")?;
    let force = truthy(p.take("force"), false);
    let atomic = truthy(p.take("atomic"), false);
    let follow = follow(&mut p);
    p.finish()?;
    if !isabs(&path) {
        return Err(CallError::Invocation(format!(
            "Link path must be absolute: {path}"
        )));
    }
    misc::make_symlink(&src, Path::new(&path), force, atomic, follow)
        .map(|()| Value::Bool(true))
        .map_err(CallError::Failed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn realpath_like_python() {
        let dir = tempfile::tempdir().unwrap();
        let d = std::fs::canonicalize(dir.path()).unwrap();
        let d = d.display().to_string();
        std::os::unix::fs::symlink("a/b", format!("{d}/l")).unwrap();
        assert_eq!(realpath(&format!("{d}/l")), format!("{d}/a/b"));
        assert_eq!(realpath(&format!("{d}/x/../y")), format!("{d}/y"));
        assert_eq!(hash_type_of_len(64), Some("sha256"));
        // PATH is set wherever tests run; the environment is not changed.
        let p = std::env::var("PATH").unwrap_or_default();
        assert_eq!(
            fsutil::expandvars("/a/$PATH/${PATH}x"),
            format!("/a/{p}/{p}x")
        );
        assert_eq!(
            fsutil::expandvars("/a/$NO_SUCH_VAR_HERE/$"),
            "/a/$NO_SUCH_VAR_HERE/$"
        );
    }
}
