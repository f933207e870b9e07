//! Contents and the file system: `read`, `write`, `append`, `prepend`,
//! `touch`, `remove`, `copy`, `move`, `rename`, `mkdir`, `makedirs`.

use super::args::{isabs, path_arg, raw_path_arg, truthy};
use crate::modules::function::{params_of, CallError, Ctx, Return};
use crate::modules::params::Params;
use brine_core::Value;
use brine_states::modules::file::fsutil::{self, py_os_error, Owner};
use brine_states::modules::file::misc;
use std::os::unix::fs::MetadataExt;
use std::path::Path;

/// An `OSError` the function does not catch: salt-call reports the
/// exception itself.
fn os_err(e: &std::io::Error, path: &str) -> CallError {
    CallError::Failed(py_os_error(e, Path::new(path)))
}

pub(super) fn read(mut p: Params) -> Result<Value, CallError> {
    let path = raw_path_arg(&mut p, "path")?;
    // Salt compares with `is True`: only a real boolean asks for bytes.
    let binary = matches!(p.take("binary"), Some(Value::Bool(true)));
    let published = p.published;
    p.finish()?;
    let data = std::fs::read(&path).map_err(|e| os_err(&e, &path))?;
    if binary {
        // Over the bus bytes travel as msgpack bin and reach the CLI as
        // text; salt-call prints Python's repr of them.
        if published {
            return Ok(Value::Str(String::from_utf8_lossy(&data).into_owned()));
        }
        return Ok(Value::Str(bytes_repr(&data)));
    }
    let text = String::from_utf8(data).map_err(|e| {
        CallError::Failed(format!(
            "'utf-8' codec can't decode byte 0x{:02x} in position {}: invalid start byte",
            e.as_bytes()
                .get(e.utf8_error().valid_up_to())
                .copied()
                .unwrap_or(0),
            e.utf8_error().valid_up_to()
        ))
    })?;
    Ok(Value::Str(universal_newlines(&text)))
}

/// An `int()` argument (`size`, `offset`).
fn int_of(v: &Value) -> Result<i64, CallError> {
    match v {
        Value::Int(i) => Ok(*i),
        Value::Bool(b) => Ok(i64::from(*b)),
        Value::Str(s) => s.trim().parse().map_err(|_| {
            CallError::Failed(format!(
                "invalid literal for int() with base 10: {}",
                v.to_python_repr()
            ))
        }),
        other => Err(CallError::Failed(format!(
            "int() argument must be a string, a bytes-like object or a real number, not '{}'",
            other.type_name()
        ))),
    }
}

pub(super) fn seek_read(mut p: Params) -> Result<Value, CallError> {
    let path = path_arg(&mut p, "path")?;
    let size = p.require("size")?;
    let offset = p.require("offset")?;
    let published = p.published;
    p.finish()?;
    let (size, offset) = (int_of(&size)?, int_of(&offset)?);
    let bad = || CallError::Failed(format!("[Errno 22] Invalid argument: '{path}'"));
    let (size, offset) = (
        usize::try_from(size).map_err(|_| bad())?,
        u64::try_from(offset).map_err(|_| bad())?,
    );
    use std::io::{Read, Seek, SeekFrom};
    let mut f = std::fs::File::open(&path).map_err(|e| os_err(&e, &path))?;
    f.seek(SeekFrom::Start(offset))
        .map_err(|e| os_err(&e, &path))?;
    let mut data = Vec::new();
    f.take(size as u64)
        .read_to_end(&mut data)
        .map_err(|e| os_err(&e, &path))?;
    // Bytes: text over the bus, Python's repr from salt-call (as `read`).
    if published {
        return Ok(Value::Str(String::from_utf8_lossy(&data).into_owned()));
    }
    Ok(Value::Str(bytes_repr(&data)))
}

/// Python's text mode reading: `\r\n` and a lone `\r` read as `\n`.
fn universal_newlines(text: &str) -> String {
    if !text.contains('\r') {
        return text.to_string();
    }
    text.replace("\r\n", "\n").replace('\r', "\n")
}

/// Python's `repr()` of a bytes object (what Salt's outputters print for
/// `file.read binary=True`).
pub(super) fn bytes_repr(data: &[u8]) -> String {
    let quote = if data.contains(&b'\'') && !data.contains(&b'"') {
        '"'
    } else {
        '\''
    };
    let mut out = String::with_capacity(data.len() + 3);
    out.push('b');
    out.push(quote);
    for &b in data {
        match b {
            b'\\' => out.push_str("\\\\"),
            b'\n' => out.push_str("\\n"),
            b'\r' => out.push_str("\\r"),
            b'\t' => out.push_str("\\t"),
            c if char::from(c) == quote => {
                out.push('\\');
                out.push(quote);
            }
            0x20..=0x7e => out.push(char::from(b)),
            _ => out.push_str(&format!("\\x{b:02x}")),
        }
    }
    out.push(quote);
    out
}

/// The lines of `write`/`append`/`prepend`: the arguments after the path,
/// or an `args` keyword (a list, or one value).
fn line_args(p: &mut Params) -> Vec<String> {
    p.open_kwargs = true;
    let mut lines = p.rest();
    if let Some(a) = p.kw("args") {
        lines = match a {
            Value::List(items) => items,
            other => vec![other],
        };
    }
    lines.into_iter().map(|v| v.to_python_str()).collect()
}

pub(super) fn write(mut p: Params) -> Result<Value, CallError> {
    let path = path_arg(&mut p, "path")?;
    let lines = line_args(&mut p);
    p.finish()?;
    let body: String = lines.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(&path, body).map_err(|e| os_err(&e, &path))?;
    Ok(Value::Str(format!(
        "Wrote {} lines to \"{path}\"",
        lines.len()
    )))
}

pub(super) fn append(mut p: Params) -> Result<Value, CallError> {
    let path = path_arg(&mut p, "path")?;
    let lines = line_args(&mut p);
    p.finish()?;
    fsutil::append_lines(Path::new(&path), &lines).map_err(|e| os_err(&e, &path))?;
    Ok(Value::Str(format!(
        "Wrote {} lines to \"{path}\"",
        lines.len()
    )))
}

pub(super) fn prepend(mut p: Params) -> Result<Value, CallError> {
    let path = path_arg(&mut p, "path")?;
    let lines = line_args(&mut p);
    p.finish()?;
    // A file that cannot be read counts as empty, as in Salt.
    let old = std::fs::read(&path).unwrap_or_default();
    let mut body: Vec<u8> = lines
        .iter()
        .flat_map(|l| format!("{l}\n").into_bytes())
        .collect();
    body.extend_from_slice(&old);
    std::fs::write(&path, body).map_err(|e| os_err(&e, &path))?;
    Ok(Value::Str(format!(
        "Prepended {} lines to \"{path}\"",
        lines.len()
    )))
}

pub(super) fn touch(mut p: Params) -> Result<Value, CallError> {
    let name = path_arg(&mut p, "name")?;
    let atime = p.take("atime");
    let mtime = p.take("mtime");
    p.finish()?;
    let time = |v: Option<Value>| misc::touch_time(v.as_ref()).map_err(CallError::Invocation);
    let (atime, mtime) = (time(atime)?, time(mtime)?);
    fsutil::touch(Path::new(&name), atime, mtime).map_err(|e| {
        // Salt keeps only the strerror.
        let text = py_os_error(&e, Path::new(&name));
        let strerror = text
            .split_once("] ")
            .map(|(_, t)| t.rsplit_once(": '").map_or(t, |(s, _)| s).to_string())
            .unwrap_or(text);
        CallError::Failed(strerror)
    })?;
    Ok(Value::Bool(Path::new(&name).exists()))
}

pub(super) fn remove(mut p: Params) -> Result<Value, CallError> {
    let path = path_arg(&mut p, "path")?;
    p.open_kwargs = true;
    p.finish()?;
    if !isabs(&path) {
        return Err(CallError::Invocation(format!(
            "File path must be absolute: {path}"
        )));
    }
    fsutil::remove(Path::new(&path))
        .map(Value::Bool)
        .map_err(|e| {
            CallError::Failed(format!(
                "Could not remove '{path}': {}",
                py_os_error(&e, Path::new(&path))
            ))
        })
}

/// Copy the tree `src` into `dst`, keeping what `dst` has that `src` does
/// not (Salt's `recursive_copy`, like `cp -r`).
fn merge_tree(src: &Path, dst: &Path) -> std::io::Result<()> {
    // Python's os.walk of a file yields nothing: nothing is copied.
    if !src.is_dir() {
        return Ok(());
    }
    if !dst.exists() {
        std::fs::create_dir_all(dst)?;
    }
    for entry in std::fs::read_dir(src)? {
        let entry = entry?;
        let to = dst.join(entry.file_name());
        if entry.file_type()?.is_dir() {
            merge_tree(&entry.path(), &to)?;
        } else {
            copy_contents(&entry.path(), &to)?;
        }
    }
    Ok(())
}

/// Python's `shutil.copyfile`: the contents only (a new file gets the
/// default mode).
fn copy_contents(src: &Path, dst: &Path) -> std::io::Result<()> {
    let mut from = std::fs::File::open(src)?;
    let mut to = std::fs::File::create(dst)?;
    std::io::copy(&mut from, &mut to)?;
    Ok(())
}

/// Python's `shutil.copytree`: a new tree, modes and times kept, links
/// copied as links.
fn copy_tree(src: &Path, dst: &Path) -> std::io::Result<()> {
    // Listed first: a source that is no directory creates nothing.
    let entries = std::fs::read_dir(src)?;
    std::fs::create_dir(dst)?;
    for entry in entries {
        let entry = entry?;
        let to = dst.join(entry.file_name());
        let kind = entry.file_type()?;
        if kind.is_symlink() {
            std::os::unix::fs::symlink(std::fs::read_link(entry.path())?, &to)?;
        } else if kind.is_dir() {
            copy_tree(&entry.path(), &to)?;
        } else {
            std::fs::copy(entry.path(), &to)?;
        }
    }
    std::fs::set_permissions(dst, std::fs::metadata(src)?.permissions())
}

pub(super) fn copy(mut p: Params) -> Result<Value, CallError> {
    let src = path_arg(&mut p, "src")?;
    let dst = path_arg(&mut p, "dst")?;
    let recurse = truthy(p.take("recurse"), false);
    let remove_existing = truthy(p.take("remove_existing"), false);
    p.finish()?;
    if !isabs(&src) {
        return Err(CallError::Invocation("File path must be absolute.".into()));
    }
    let (s, d) = (Path::new(&src), Path::new(&dst));
    let before = std::fs::metadata(s)
        .map_err(|_| CallError::Failed(format!("No such file or directory '{src}'")))?;
    let failed = |_| CallError::Failed(format!("Could not copy '{src}' to '{dst}'"));
    if d.is_dir() || before.is_dir() {
        if !recurse {
            return Err(CallError::Invocation(
                "Cannot copy overwriting a directory without recurse flag set to true!".into(),
            ));
        }
        if remove_existing {
            if d.exists() {
                std::fs::remove_dir_all(d).map_err(failed)?;
            }
            copy_tree(s, d).map_err(failed)?;
        } else {
            merge_tree(s, d).map_err(failed)?;
        }
    } else {
        copy_contents(s, d).map_err(failed)?;
    }
    // The copy takes the source's owner and mode (Salt's check_perms).
    let _ = fsutil::chown(d, Some(before.uid()), Some(before.gid()), true);
    fsutil::set_mode(d, &fsutil::format_mode(before.mode()));
    Ok(Value::Bool(true))
}

/// Python's `shutil.move`: into `dst` when it is a directory; a rename, or
/// a copy and delete across file systems.
fn shutil_move(src: &Path, dst: &Path) -> Result<(), String> {
    let mut target = dst.to_path_buf();
    if dst.is_dir() {
        let name = src
            .file_name()
            .map(|n| n.to_os_string())
            .unwrap_or_default();
        target = dst.join(name);
        if target.exists() {
            return Err(format!(
                "Destination path '{}' already exists",
                target.display()
            ));
        }
    }
    match std::fs::rename(src, &target) {
        Ok(()) => Ok(()),
        Err(e) if e.raw_os_error() == Some(nix::libc::EXDEV) => {
            let md = std::fs::symlink_metadata(src).map_err(|e| py_os_error(&e, src))?;
            let copied = if md.is_dir() {
                copy_tree(src, &target)
            } else {
                std::fs::copy(src, &target).map(|_| ())
            };
            copied.map_err(|e| py_os_error(&e, &target))?;
            fsutil::remove(src)
                .map(|_| ())
                .map_err(|e| py_os_error(&e, src))
        }
        Err(e) => Err(py_os_error(&e, src)),
    }
}

pub(super) fn move_(mut p: Params) -> Result<Value, CallError> {
    let src = path_arg(&mut p, "src")?;
    let dst = path_arg(&mut p, "dst")?;
    let no_copy = truthy(p.take("disallow_copy_and_unlink"), false);
    p.finish()?;
    if no_copy {
        return rename_paths(&src, &dst);
    }
    if !isabs(&src) {
        return Err(CallError::Invocation(
            "Source path must be absolute.".into(),
        ));
    }
    if !isabs(&dst) {
        return Err(CallError::Invocation(
            "Destination path must be absolute.".into(),
        ));
    }
    shutil_move(Path::new(&src), Path::new(&dst))
        .map_err(|e| CallError::Failed(format!("Unable to move '{src}' to '{dst}': {e}")))?;
    let mut ret = brine_core::Map::default();
    ret.insert("result".into(), Value::Bool(true));
    ret.insert(
        "comment".into(),
        Value::Str(format!("'{src}' moved to '{dst}'")),
    );
    Ok(Value::Map(ret))
}

fn rename_paths(src: &str, dst: &str) -> Result<Value, CallError> {
    if !isabs(src) {
        return Err(CallError::Invocation("File path must be absolute.".into()));
    }
    std::fs::rename(src, dst)
        .map(|()| Value::Bool(true))
        .map_err(|_| CallError::Failed(format!("Could not rename '{src}' to '{dst}'")))
}

pub(super) fn rename(mut p: Params) -> Result<Value, CallError> {
    let src = path_arg(&mut p, "src")?;
    let dst = path_arg(&mut p, "dst")?;
    p.finish()?;
    rename_paths(&src, &dst)
}

/// `user`, `group`, `mode` of `mkdir`/`makedirs`.
type OwnerMode = (Option<Owner>, Option<Owner>, Option<String>);

fn owner_mode(p: &mut Params) -> Result<OwnerMode, CallError> {
    let owner = |v: Option<Value>, what: &str| {
        Owner::from_value(v.as_ref()).map_err(|e| CallError::Failed(format!("Invalid {what}: {e}")))
    };
    let user = owner(p.take("user"), "user")?;
    let group = owner(p.take("group"), "group")?;
    let mode = p
        .take("mode")
        .filter(Value::is_truthy)
        .map(|m| m.to_python_str());
    Ok((user, group, mode))
}

pub(super) fn mkdir(mut p: Params) -> Result<Value, CallError> {
    let dir = path_arg(&mut p, "dir_path")?;
    let (user, group, mode) = owner_mode(&mut p)?;
    p.finish()?;
    let dir = fsutil::normpath(&dir);
    if !Path::new(&dir).is_dir() {
        let uid = user.as_ref().and_then(fsutil::user_to_uid);
        let gid = group.as_ref().and_then(fsutil::group_to_gid);
        fsutil::makedirs_perms(Path::new(&dir), uid, gid, mode.as_deref())
            .map_err(|e| os_err(&e, &dir))?;
    }
    Ok(Value::Bool(true))
}

pub(super) fn makedirs(mut p: Params) -> Result<Value, CallError> {
    let path = path_arg(&mut p, "path")?;
    let (user, group, mode) = owner_mode(&mut p)?;
    p.finish()?;
    let dir = fsutil::normpath(&fsutil::dirname(&path));
    let d = Path::new(&dir);
    if d.is_dir() {
        return Ok(Value::Str(format!("Directory '{dir}' already exists")));
    }
    if d.exists() {
        return Ok(Value::Str(format!(
            "The path '{dir}' already exists and is not a directory"
        )));
    }
    // Walking up a relative path ends at "" without finding a directory.
    let mut up = dir.clone();
    while !Path::new(&up).is_dir() {
        let next = fsutil::dirname(&up);
        if next == up {
            return Err(CallError::Invocation(format!(
                "Recursive creation for path '{next}' would result in an infinite loop. \
Please use an absolute path."
            )));
        }
        up = next;
    }
    fsutil::makedirs_for(&path, user.as_ref(), group.as_ref(), mode.as_deref())
        .map_err(|e| os_err(&e, &dir))?;
    Ok(Value::Null)
}

pub(super) fn path_exists_glob(mut p: Params) -> Result<Value, CallError> {
    let path = path_arg(&mut p, "path")?;
    p.finish()?;
    let found = glob::glob(&path).is_ok_and(|mut paths| paths.any(|p| p.is_ok()));
    Ok(Value::Bool(found))
}

pub(super) fn truncate(mut p: Params) -> Result<Value, CallError> {
    let path = path_arg(&mut p, "path")?;
    let length = p.require("length")?;
    p.finish()?;
    let len = match &length {
        Value::Int(i) => *i,
        Value::Str(s) => s.trim().parse().map_err(|_| {
            CallError::Failed(format!(
                "invalid literal for int() with base 10: {}",
                length.to_python_repr()
            ))
        })?,
        other => {
            return Err(CallError::Failed(format!(
                "int() argument must be a string, a bytes-like object or a real number, not '{}'",
                other.type_name()
            )))
        }
    };
    let len = u64::try_from(len)
        .map_err(|_| CallError::Failed(format!("[Errno 22] Invalid argument: '{path}'")))?;
    std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(&path)
        .and_then(|f| f.set_len(len))
        .map_err(|e| os_err(&e, &path))?;
    Ok(Value::Null)
}

/// Python's `glob.glob`: the matching paths in the directory's own order
/// when only the last part has wildcards (sorted otherwise).
fn py_glob(pattern: &str) -> Vec<String> {
    let (dir, last) = match pattern.rsplit_once('/') {
        Some((d, l)) => (if d.is_empty() { "/" } else { d }, l),
        None => (".", pattern),
    };
    let wild = |s: &str| s.contains(['*', '?', '[']);
    if !wild(dir) {
        if !wild(last) {
            return if Path::new(pattern).symlink_metadata().is_ok() {
                vec![pattern.to_string()]
            } else {
                Vec::new()
            };
        }
        let Ok(g) = glob::Pattern::new(last) else {
            return Vec::new();
        };
        let Ok(rd) = std::fs::read_dir(dir) else {
            return Vec::new();
        };
        return rd
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            // Python's glob leaves hidden names to patterns that start with a dot.
            .filter(|n| g.matches(n) && (!n.starts_with('.') || last.starts_with('.')))
            .map(|n| {
                if pattern.contains('/') {
                    format!("{}/{n}", pattern.rsplit_once('/').map_or("", |(d, _)| d))
                } else {
                    n
                }
            })
            .collect();
    }
    glob::glob(pattern)
        .map(|paths| paths.flatten().map(|p| p.display().to_string()).collect())
        .unwrap_or_default()
}

pub(super) fn grep(c: &Ctx<'_>, mut p: Params) -> Result<Return, CallError> {
    let path = path_arg(&mut p, "path")?;
    let pattern = p.require("pattern")?;
    let opts = p.rest();
    p.finish()?;
    let mut argv = vec![Value::Str("grep".into())];
    for opt in opts {
        let text = opt.to_python_str();
        let split =
            brine_core::py::shlex_split(&text).map_err(|e| CallError::Failed(e.to_string()))?;
        if split.len() > 1 {
            return Err(CallError::Invocation(format!(
                "Passing multiple command line arguments in a single string is not supported, \
please pass the following arguments separately: {text}"
            )));
        }
        argv.extend(split.into_iter().map(Value::Str));
    }
    argv.push(pattern);
    let found = py_glob(&path);
    if found.is_empty() {
        // No match: grep is given the pattern itself (and says so).
        argv.push(Value::Str(path));
    } else {
        argv.extend(found.into_iter().map(Value::Str));
    }
    let argv = argv.into_iter().map(|v| v.to_python_str()).collect();
    crate::modules::cmd::run_all(c, argv_params("run_all", argv))
}

/// An argv for `cmd.run_all`/`cmd.run`, never through a shell.
fn argv_params(fun: &'static str, argv: Vec<String>) -> Params {
    let mut kwargs = brine_core::Map::default();
    kwargs.insert("python_shell".into(), Value::Bool(false));
    let args = brine_core::args::CallArgs {
        args: vec![Value::List(argv.into_iter().map(Value::Str).collect())],
        kwargs,
    };
    params_of(crate::modules::cmd::FUNCTIONS, fun, args)
}

/// Salt's `_sed_esc`: quotes and slashes escaped for a sed expression
/// (and regex characters too with `escape_all`).
fn sed_esc(text: &str, escape_all: bool) -> String {
    let mut s = text.replace('\'', "'\"'\"'").replace('/', "\\/");
    if escape_all {
        for c in "^.[$()|*+?{".chars() {
            s = s.replace(c, &format!("\\{c}"));
        }
    }
    s
}

pub(super) fn sed(c: &Ctx<'_>, mut p: Params) -> Result<Return, CallError> {
    let path = path_arg(&mut p, "path")?;
    let before = p.require("before")?.to_python_str();
    let after = p.require("after")?.to_python_str();
    let limit = p
        .take("limit")
        .map(|v| v.to_python_str())
        .unwrap_or_default();
    let backup = match p.take("backup") {
        None => ".bak".to_string(),
        Some(v) if !v.is_truthy() => String::new(),
        Some(v) => v.to_python_str(),
    };
    let options = p
        .take("options")
        .map_or_else(|| "-r -e".to_string(), |v| v.to_python_str());
    let flags = p
        .take("flags")
        .map_or_else(|| "g".to_string(), |v| v.to_python_str());
    // Salt compares with `is True`.
    let escape_all = matches!(p.take("escape_all"), Some(Value::Bool(true)));
    let negate_match = truthy(p.take("negate_match"), false);
    p.finish()?;
    if !Path::new(&path).exists() {
        return Ok(Return::from(Value::Bool(false)));
    }
    let (before, after, limit) = (
        sed_esc(&before, escape_all),
        sed_esc(&after, escape_all),
        sed_esc(&limit, escape_all),
    );
    let mut argv = vec!["sed".to_string(), format!("-i{backup}")];
    argv.extend(
        brine_core::py::shlex_split(&options).map_err(|e| CallError::Failed(e.to_string()))?,
    );
    argv.push(format!(
        "{}{}s/{before}/{after}/{flags}",
        if limit.is_empty() {
            String::new()
        } else {
            format!("/{limit}/ ")
        },
        if negate_match { "!" } else { "" },
    ));
    argv.push(path);
    crate::modules::cmd::run_all(c, argv_params("run_all", argv))
}

pub(super) fn sed_contains(c: &Ctx<'_>, mut p: Params) -> Result<Value, CallError> {
    let path = path_arg(&mut p, "path")?;
    let text = p.require("text")?.to_python_str();
    let limit = p
        .take("limit")
        .map(|v| v.to_python_str())
        .unwrap_or_default();
    let flags = p
        .take("flags")
        .map_or_else(|| "g".to_string(), |v| v.to_python_str());
    p.finish()?;
    if !Path::new(&path).exists() {
        return Ok(Value::Bool(false));
    }
    let (before, limit) = (sed_esc(&text, false), sed_esc(&limit, false));
    let mut argv: Vec<String> = ["sed", "-n", "-r", "-e"].map(String::from).to_vec();
    argv.push(format!(
        "{}s/{before}/$/p{flags}",
        if limit.is_empty() {
            String::new()
        } else {
            format!("/{limit}/ ")
        },
    ));
    argv.push(path);
    let out = crate::modules::cmd::run(c, argv_params("run", argv))?;
    Ok(Value::Bool(out.value.is_truthy()))
}

pub(super) fn readdir(mut p: Params) -> Result<Value, CallError> {
    let path = path_arg(&mut p, "path")?;
    p.finish()?;
    if !isabs(&path) {
        return Err(CallError::Invocation("Dir path must be absolute.".into()));
    }
    let entries = std::fs::read_dir(&path)
        .map_err(|_| CallError::Invocation("A valid directory was not specified.".into()))?;
    // os.listdir's order: the directory's own.
    let mut out = vec![Value::Str(".".into()), Value::Str("..".into())];
    for e in entries {
        let e = e.map_err(|e| os_err(&e, &path))?;
        out.push(Value::Str(e.file_name().to_string_lossy().into_owned()));
    }
    Ok(Value::List(out))
}

pub(super) fn rmdir(mut p: Params) -> Result<Value, CallError> {
    let path = path_arg(&mut p, "path")?;
    let recurse = truthy(p.take("recurse"), false);
    let verbose = truthy(p.take("verbose"), false);
    let older_than = p.take("older_than").filter(Value::is_truthy);
    p.finish()?;
    if !isabs(&path) {
        return Err(CallError::Invocation("File path must be absolute.".into()));
    }
    if !Path::new(&path).is_dir() {
        return Err(CallError::Invocation(
            "A valid directory was not specified.".into(),
        ));
    }
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64());
    // Days; what is no number counts as 0 days, as in Salt.
    let cutoff = older_than.map(|v| {
        let days = match v {
            Value::Int(i) => i,
            other => other.to_python_str().trim().parse().unwrap_or(0),
        };
        now - days as f64 * 86_400.0
    });
    let old_enough = |p: &Path| match cutoff {
        // A cutoff of 0 days still asks (`if older_than`): as Salt's
        // float, it is the current time.
        Some(c) => std::fs::metadata(p).is_ok_and(|m| {
            let t = m.mtime() as f64 + m.mtime_nsec() as f64 * 1e-9;
            t < c
        }),
        None => true,
    };
    let mut deleted = Vec::new();
    let mut errors = Vec::new();
    let mut ret = false;
    let attempt = |d: &Path, deleted: &mut Vec<Value>, errors: &mut Vec<Value>| {
        match std::fs::remove_dir(d) {
            Ok(()) => {
                deleted.push(Value::Str(d.display().to_string()));
                true
            }
            Err(e) => {
                errors.push(Value::List(vec![
                    Value::Str(d.display().to_string()),
                    Value::Str(py_os_error(&e, d)),
                ]));
                false
            }
        }
    };
    if recurse {
        // Python's os.walk bottom-up, each directory removing its
        // subdirectories (in listing order) once their own trees are done.
        fn subdirs(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
            let Ok(rd) = std::fs::read_dir(dir) else {
                return;
            };
            let kids: Vec<std::path::PathBuf> = rd
                .flatten()
                .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
                .map(|e| e.path())
                .collect();
            for k in &kids {
                subdirs(k, out);
            }
            out.extend(kids);
        }
        let mut all = Vec::new();
        subdirs(Path::new(&path), &mut all);
        for d in &all {
            if old_enough(d) {
                attempt(d, &mut deleted, &mut errors);
            }
        }
        ret = errors.is_empty();
    }
    if old_enough(Path::new(&path)) {
        ret = attempt(Path::new(&path), &mut deleted, &mut errors) && (ret || !recurse);
    }
    if verbose {
        let mut m = brine_core::Map::default();
        m.insert("deleted".into(), Value::List(deleted));
        m.insert("errors".into(), Value::List(errors));
        m.insert("result".into(), Value::Bool(ret));
        return Ok(Value::Map(m));
    }
    Ok(Value::Bool(ret))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_like_python() {
        assert_eq!(bytes_repr(b"first\n"), "b'first\\n'");
        assert_eq!(bytes_repr(b"it's"), "b\"it's\"");
        assert_eq!(bytes_repr(b"'\"\x00\xff"), "b'\\'\"\\x00\\xff'");
    }

    #[test]
    fn text_mode_newlines() {
        assert_eq!(universal_newlines("a\r\nb\rc\n"), "a\nb\nc\n");
    }
}
