//! `file.tidied` (old or big files below a folder removed) and
//! `file.cached` (a source kept in the minion's file cache), as Salt
//! 3007.8 answers them.

use super::args::{failed, Args};
use super::fsutil;
use super::source_hash::get_source_sum;
use crate::fileclient::{cache_into, cached_path, parse_salt_url, plain_env};
use crate::{StateCall, StateReturn};
use brine_core::Value;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

/// Salt's `human_to_bytes(size, handle_metric=True)`: `2G`, `30MB`
/// (powers of ten), `64KiB`; 0 for anything else.
pub fn human_to_bytes(size: &str) -> i64 {
    let s = size.trim();
    let split = s
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(s.len());
    let (num, unit) = (&s[..split], s[split..].trim_start().to_lowercase());
    let unit = if unit.is_empty() {
        "b".to_string()
    } else {
        unit
    };
    let value: f64 = match num.parse::<i64>() {
        Ok(i) => i as f64,
        Err(_) => match num.parse::<f64>() {
            Ok(f) => f,
            Err(_) => return 0,
        },
    };
    let letters = "bkmgtpezy";
    let first = unit.chars().next().unwrap_or('b');
    let Some(p) = letters.find(first) else {
        return 0;
    };
    let metric = unit.len() == 2 && unit.ends_with('b') && first != 'b';
    let binary = unit == "b" || (first != 'b' && (unit.len() == 1 || unit[1..] == *"ib"));
    if metric {
        (value * 10f64.powi(p as i32 * 3)) as i64
    } else if binary {
        (value * 2f64.powi(p as i32 * 10)) as i64
    } else {
        0
    }
}

/// The local calendar day of a time (days since the epoch).
fn local_day(secs: i64) -> i64 {
    let offset = brine_host::sys::local_time(secs).map_or(0, |t| t.utc_offset);
    (secs + offset).div_euclid(86_400)
}

/// One `os.walk(top, topdown=False)` step: a folder's subfolders and
/// other entries, the folders below it first.
fn walk_bottom_up(
    root: &Path,
    follow: bool,
    out: &mut Vec<(PathBuf, Vec<String>, Vec<String>)>,
    depth: usize,
) {
    if depth > 256 {
        return;
    }
    let Ok(rd) = std::fs::read_dir(root) else {
        return;
    };
    let mut dirs = Vec::new();
    let mut files = Vec::new();
    for entry in rd.flatten() {
        let fname = entry.file_name().to_string_lossy().into_owned();
        if root.join(&fname).is_dir() {
            dirs.push(fname);
        } else {
            files.push(fname);
        }
    }
    for d in &dirs {
        let p = root.join(d);
        if follow || !p.is_symlink() {
            walk_bottom_up(&p, follow, out, depth + 1);
        }
    }
    out.push((root.to_path_buf(), dirs, files));
}

pub fn tidied(call: &StateCall, args: &Args, raw_name: &str) -> Result<StateReturn, String> {
    let name = fsutil::expanduser(raw_name);
    let mut ret = StateReturn::new(&name);
    let operator = args
        .string("age_size_logical_operator")?
        .map(|o| o.to_uppercase())
        .filter(|o| o == "AND" || o == "OR")
        .unwrap_or_else(|| "OR".into());
    let only = args
        .string("age_size_only")?
        .map(|o| o.to_lowercase())
        .filter(|o| o == "age" || o == "size");
    if !fsutil::isabs(&name) {
        return Ok(failed(
            &name,
            format!("Specified file {name} is not an absolute path"),
        ));
    }
    if !Path::new(&name).is_dir() {
        return Ok(failed(
            &name,
            format!("{name} does not exist or is not a directory."),
        ));
    }
    let time_comparison = args
        .string("time_comparison")?
        .map(|t| t.to_lowercase())
        .filter(|t| ["atime", "ctime", "mtime"].contains(&t.as_str()))
        .unwrap_or_else(|| "atime".into());
    let size: f64 = match args.get("size") {
        None => 0.0,
        Some(Value::Str(s)) => human_to_bytes(s) as f64,
        Some(Value::Int(i)) => *i as f64,
        Some(Value::Float(f)) => *f,
        Some(v) => return Err(super::bad_arg("size", "a number or a size", v)),
    };
    let age: f64 = match args.get("age") {
        None => 0.0,
        Some(Value::Int(i)) => *i as f64,
        Some(Value::Float(f)) => *f,
        Some(v) => return Err(super::bad_arg("age", "a number of days", v)),
    };
    let patterns = |key: &str, default: &[&str]| -> Result<Vec<regex::bytes::Regex>, String> {
        let list: Vec<String> = match args.get(key) {
            None => default.iter().map(|s| s.to_string()).collect(),
            Some(Value::List(l)) => l.iter().map(Value::to_python_str).collect(),
            Some(v) => vec![v.to_python_str()],
        };
        // Python's re.match: anchored at the start.
        list.iter()
            .map(|p| super::replace::compile(&format!("^(?:{p})"), 0))
            .collect()
    };
    let progs = match patterns("matches", &[".*"]) {
        Ok(p) => p,
        Err(e) => return Ok(failed(&name, e)),
    };
    let exes = match patterns("exclude", &[]) {
        Ok(p) => p,
        Err(e) => return Ok(failed(&name, e)),
    };
    let matches = |s: &str| {
        progs.iter().any(|p| p.is_match(s.as_bytes()))
            && !exes.iter().any(|e| e.is_match(s.as_bytes()))
    };
    let rmlinks = args.truthy("rmlinks", true);
    let rmdirs = args.truthy("rmdirs", false);
    let full_path_match = args.truthy("full_path_match", false);
    let today = local_day(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs() as i64),
    );
    let mut walked = Vec::new();
    walk_bottom_up(
        Path::new(&name),
        args.truthy("followlinks", false),
        &mut walked,
        0,
    );
    let mut todelete: Vec<String> = Vec::new();
    for (root, dirs, files) in &walked {
        for elem in files.iter().chain(dirs) {
            let path = root.join(elem);
            let (md, mut deleteme, mysize) = if path.is_symlink() {
                let Ok(md) = std::fs::symlink_metadata(&path) else {
                    continue;
                };
                (md, rmlinks, 0.0)
            } else {
                let Ok(md) = std::fs::metadata(&path) else {
                    continue;
                };
                if md.is_dir() {
                    (md, rmdirs, 0.0)
                } else {
                    let size = md.size() as f64;
                    (md, true, size)
                }
            };
            let stamp = match time_comparison.as_str() {
                "ctime" => md.ctime(),
                "mtime" => md.mtime(),
                _ => md.atime(),
            };
            let myage = (today - local_day(stamp)).abs() as f64;
            let path_s = path.to_string_lossy().into_owned();
            let filename = if full_path_match {
                path_s.as_str()
            } else {
                elem.as_str()
            };
            let compare = match (only.as_deref(), operator.as_str()) {
                (Some("age"), _) => myage >= age,
                (Some(_), _) => mysize >= size,
                (None, "AND") => mysize >= size && myage >= age,
                (None, _) => mysize >= size || myage >= age,
            };
            deleteme = deleteme && compare && matches(filename);
            if deleteme {
                todelete.push(path_s);
            }
        }
    }
    if todelete.is_empty() {
        ret.comment = format!("Nothing to remove from directory {name}");
        return Ok(ret);
    }
    let removed_value = |v: &[String]| Value::List(v.iter().cloned().map(Value::Str).collect());
    if call.test {
        ret.result = None;
        ret.comment = format!("{name} is set for tidy");
        ret.changes
            .insert("removed".into(), removed_value(&todelete));
        return Ok(ret);
    }
    let mut removed = Vec::new();
    for p in &todelete {
        if let Err(e) = fsutil::remove(Path::new(p)) {
            return Ok(failed(&name, fsutil::py_os_error(&e, Path::new(p))));
        }
        removed.push(p.clone());
    }
    ret.changes
        .insert("removed".into(), removed_value(&removed));
    ret.comment = format!(
        "Removed {} files or directories from directory {name}",
        todelete.len()
    );
    Ok(ret)
}

/// Salt's `cp.is_cached`: the cached copy of `url`, if there is one.
fn is_cached(cachedir: &Path, url: &str, saltenv: &str) -> Option<PathBuf> {
    let (rel, env) = match parse_salt_url(url) {
        Some((rel, env)) => (rel, env.unwrap_or_else(|| saltenv.to_string())),
        None => (url.to_string(), saltenv.to_string()),
    };
    let rel = fsutil::normpath(rel.trim_start_matches('/'));
    if rel == "." || rel == ".." || rel.starts_with("../") || !plain_env(&env) {
        return None;
    }
    [
        cached_path(cachedir, &env, &rel),
        cachedir.join("localfiles").join(&rel),
    ]
    .into_iter()
    .find(|p| p.exists())
}

/// SHA-family digest of a file's bytes, `None` unreadable.
fn hash_of(path: &Path, hash_type: &str) -> Option<String> {
    std::fs::read(path)
        .ok()
        .and_then(|d| fsutil::hash_hex(hash_type, &d))
}

pub fn cached(call: &StateCall, args: &Args, name: &str) -> Result<StateReturn, String> {
    let mut ret = StateReturn::new(name);
    ret.result = Some(false);
    let scheme = name
        .split_once("://")
        .map(|(s, _)| s.to_lowercase())
        .unwrap_or_default();
    let local = scheme.is_empty() || scheme == "file";
    let remote = ["http", "https", "ftp", "s3", "swift"].contains(&scheme.as_str());
    let source_hash = args.string("source_hash")?.filter(|h| !h.is_empty());
    let skip_verify = args.truthy("skip_verify", false);
    if !skip_verify && source_hash.is_none() && !args.truthy("use_etag", false) && remote {
        ret.comment = format!(
            "Unable to verify upstream hash of source file {name}, please set source_hash or set skip_verify or use_etag to True"
        );
        return Ok(ret);
    }
    let saltenv = args.string("saltenv")?.unwrap_or_else(|| "base".into());
    let hash_type = call
        .ctx
        .opts
        .get("hash_type")
        .and_then(Value::as_str)
        .unwrap_or("sha256")
        .to_string();
    let sum = match &source_hash {
        None => None,
        Some(h) => match get_source_sum(
            &super::remote::Fetcher {
                opts: &call.ctx.opts,
                client: call.ctx.fileclient.as_ref(),
                saltenv: &saltenv,
                verify_ssl: args.truthy("verify_ssl", true),
            },
            name,
            name,
            h,
            args.string("source_hash_name")?.as_deref(),
        ) {
            Ok(s) => s.hsum.map(|hsum| (s.hash_type, hsum)),
            Err(e) => {
                ret.comment = e.to_string();
                return Ok(ret);
            }
        },
    };
    let cachedir = brine_compile::opts::cachedir(&call.ctx.opts);
    // A remote URL is cached where Salt's file client keeps downloads
    // (extrn_files), fetched with the state's verify_ssl.
    let fetcher = super::remote::Fetcher {
        opts: &call.ctx.opts,
        client: call.ctx.fileclient.as_ref(),
        saltenv: &saltenv,
        verify_ssl: args.truthy("verify_ssl", true),
    };
    let cached_copy = |name: &str| {
        if remote {
            fetcher.is_cached(name)
        } else {
            is_cached(&cachedir, name, &saltenv)
        }
    };
    if call.test {
        ret.comment = match cached_copy(name) {
            Some(copy) => match &sum {
                Some((_, hsum)) if hash_of(&copy, &hash_type).as_deref() == Some(hsum.as_str()) => {
                    format!("File already cached: {name}")
                }
                Some(_) => format!("Hashes don't match.\nFile will be cached: {name}"),
                None => format!("No hash found. File will be cached: {name}"),
            },
            None => format!("File will be cached: {name}"),
        };
        ret.result = None;
        return Ok(ret);
    }
    let sum_type = sum
        .as_ref()
        .map_or(hash_type.as_str(), |(t, _)| t.as_str())
        .to_string();
    if local {
        let path = name.strip_prefix("file://").unwrap_or(name);
        let full = fsutil::expanduser(path);
        let full = std::fs::canonicalize(&full)
            .map(|p| p.to_string_lossy().into_owned())
            .unwrap_or(full);
        if !Path::new(&full).exists() {
            ret.comment = format!("File {full} is not present on the minion");
            return Ok(ret);
        }
        match &sum {
            Some((_, hsum)) if !skip_verify => {
                let local_hash = hash_of(Path::new(&full), &sum_type).unwrap_or_default();
                if local_hash == *hsum {
                    ret.result = Some(true);
                    ret.comment =
                        format!("File {full} is present on the minion and has hash {local_hash}");
                } else {
                    ret.comment = format!(
                        "File {full} is present on the minion, but the hash ({local_hash}) does not match the specified hash ({hsum})"
                    );
                }
            }
            _ => {
                ret.result = Some(true);
                ret.comment = format!("File {full} is present on the minion");
            }
        }
        return Ok(ret);
    }
    let pre_hash = cached_copy(name).and_then(|p| hash_of(&p, &sum_type));
    let copy = if remote {
        let want = sum.as_ref().map(|(_, h)| h.as_str());
        match fetcher.cache_file(name, want) {
            Ok(copy) => copy,
            Err(e) => {
                ret.comment = e;
                return Ok(ret);
            }
        }
    } else {
        match cache_into(call.ctx.fileclient.as_ref(), &cachedir, name, &saltenv) {
            Ok(Some(p)) => p,
            Ok(None) => {
                ret.comment =
                    format!("Failed to cache {name}, check minion log for more information");
                return Ok(ret);
            }
            Err(e) => {
                ret.comment = e.to_string();
                return Ok(ret);
            }
        }
    };
    Ok(cached_answer(
        ret,
        &copy,
        pre_hash,
        &sum_type,
        skip_verify,
        &sum,
    ))
}

/// Salt's answer once the copy is cached: the hash's change, and whether
/// it is the one asked for.
fn cached_answer(
    mut ret: StateReturn,
    copy: &Path,
    pre_hash: Option<String>,
    sum_type: &str,
    skip_verify: bool,
    sum: &Option<(String, String)>,
) -> StateReturn {
    let post_hash = hash_of(copy, sum_type);
    if pre_hash != post_hash {
        let mut m = brine_core::Map::default();
        let opt = |h: Option<String>| h.map_or(Value::Null, Value::Str);
        m.insert("old".into(), opt(pre_hash));
        m.insert("new".into(), opt(post_hash.clone()));
        ret.changes.insert("hash".into(), Value::Map(m));
    }
    let post = post_hash.unwrap_or_default();
    let shown = copy.display();
    if let (false, Some((_, hsum))) = (skip_verify, &sum) {
        if post == *hsum {
            ret.result = Some(true);
            ret.comment = format!("File is already cached to {shown} with hash {post}");
        } else {
            ret.comment = format!(
                "File is cached to {shown}, but the hash ({post}) does not match the specified hash ({hsum})"
            );
        }
        return ret;
    }
    ret.result = Some(true);
    ret.comment = format!("File is cached to {shown}");
    ret
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn human_sizes_like_salt() {
        assert_eq!(human_to_bytes("5B"), 5);
        assert_eq!(human_to_bytes("1KB"), 1000);
        assert_eq!(human_to_bytes("1K"), 1024);
        assert_eq!(human_to_bytes("2KiB"), 2048);
        assert_eq!(human_to_bytes("1.5M"), 1_572_864);
        assert_eq!(human_to_bytes("12"), 12);
        assert_eq!(human_to_bytes("x"), 0);
        assert_eq!(human_to_bytes("3 qb"), 0);
    }
}
