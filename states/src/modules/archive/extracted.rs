//! `archive.extracted`, check by check in the order of Salt 3007.8's
//! `salt/states/archive.py`, with its comments and changes
//! (`directories_created`, `extracted_files`, `removed`,
//! `updated ownership`).

use super::cached::cached;
use super::formats::{self, Listing};
use super::owner;
use crate::modules::file::fsutil::{self, Owner};
use crate::modules::file::managed::first_source;
use crate::modules::file::remote::{self, Fetcher};
use crate::modules::file::source_hash::{get_source_sum, SumError};
use crate::modules::file::{failed, Args};
use crate::{StateCall, StateReturn};
use brine_core::{Map, Value};
use std::path::{Path, PathBuf};

pub fn extracted(call: &StateCall) -> StateReturn {
    let args = Args { low: call.low };
    let name = args.name();
    run(call, &args, &name).unwrap_or_else(|comment| failed(&name, comment))
}

/// `ret` failed with `comment`.
fn fail(mut ret: StateReturn, comment: impl Into<String>) -> Result<StateReturn, String> {
    ret.result = Some(false);
    ret.comment = comment.into();
    Ok(ret)
}

/// Python's `str()` of `trim_output` after Salt's normalisation.
fn trim_text(trim: &Value) -> String {
    match trim {
        Value::Bool(false) | Value::Null => "False".into(),
        other => other.to_python_str(),
    }
}

fn run(call: &StateCall, args: &Args, raw_name: &str) -> Result<StateReturn, String> {
    let test = call.test;
    let mut ret = StateReturn::new(raw_name);
    ret.result = Some(false);
    let opt = |k: &str| args.get(k).filter(|v| v.is_truthy());
    let text = |k: &str| args.get(k).map(Value::to_python_str);
    let skip_verify = args.truthy("skip_verify", false);
    if args.truthy("skip_files_list_verify", false) && skip_verify {
        return fail(
            ret,
            "Only one of \"skip_files_list_verify\" and \"skip_verify\" can be set to True",
        );
    }
    let mut warnings: Vec<Value> = Vec::new();
    let keep_source = match (call.low.get("keep_source"), call.low.get("keep")) {
        (Some(k), Some(_)) => {
            warnings.push(Value::Str("Both 'keep_source' and 'keep' were used. Since these both do the same thing, 'keep' was ignored.".into()));
            k.is_truthy()
        }
        (Some(k), None) | (None, Some(k)) => k.is_truthy(),
        (None, None) => true,
    };
    if !fsutil::isabs(raw_name) {
        return fail(ret, format!("{raw_name} is not an absolute path"));
    }
    let trimmed = raw_name.trim_end_matches('/');
    if Path::new(trimmed).is_file() {
        return fail(ret, format!("{trimmed} exists and is not a directory"));
    }
    let name = format!("{trimmed}/");
    let if_missing = text("if_missing");
    if if_missing.as_deref().is_some_and(|p| !fsutil::isabs(p)) {
        return fail(ret, "Value for 'if_missing' is not an absolute path");
    }
    let enforce_on = text("enforce_ownership_on");
    if let Some(e) = &enforce_on {
        if !fsutil::isabs(e) {
            return fail(
                ret,
                "Value for 'enforce_ownership_on' is not an absolute path",
            );
        }
        if !Path::new(e).starts_with(trimmed) {
            return fail(
                ret,
                format!("Value for 'enforce_ownership_on' must be within {name}"),
            );
        }
    }
    if let Some(p) = if_missing.as_deref().filter(|p| Path::new(p).exists()) {
        ret.result = Some(true);
        ret.comment = format!("Path {p} exists");
        return Ok(ret);
    }
    let user = Owner::from_value(opt("user"))?;
    let group = Owner::from_value(opt("group"))?;
    let uid = match &user {
        Some(u) => match fsutil::user_to_uid(u) {
            Some(id) => Some(id),
            None => return fail(ret, format!("User {} does not exist", u.display())),
        },
        None => None,
    };
    let gid = match &group {
        Some(g) => match fsutil::group_to_gid(g) {
            Some(id) => Some(id),
            None => return fail(ret, format!("Group {} does not exist", g.display())),
        },
        None => None,
    };
    let source_hash = text("source_hash").filter(|h| !h.is_empty());
    if args.truthy("source_hash_update", false) && source_hash.is_none() {
        warnings.push(Value::Str(
            "The 'source_hash_update' argument is ignored when 'source_hash' is not also specified."
                .into(),
        ));
    }
    if opt("signature").is_some() || opt("source_hash_sig").is_some() {
        return fail(
            ret,
            "Cannot verify signatures because the gpg module was not loaded",
        );
    }
    let saltenv = crate::modules::file::managed::state_saltenv(call);
    let fetcher = Fetcher {
        opts: &call.ctx.opts,
        client: call.ctx.fileclient.as_ref(),
        saltenv: &saltenv,
        verify_ssl: true,
    };
    let source = match args.get("source") {
        Some(Value::List(items)) => match first_source(&fetcher, items, &Value::Null) {
            Ok((url, _)) => url,
            Err(e) => return fail(ret, e),
        },
        Some(v) if v.is_truthy() => v.to_python_str(),
        other => {
            let shown = other.map_or("None".to_string(), Value::to_python_str);
            return fail(ret, format!("Invalid source \"{shown}\""));
        }
    };
    let scheme = remote::scheme(&source);
    let url_path = source.split_once("://").map_or(source.as_str(), |(_, r)| r);
    let source_is_local = scheme.is_empty() || scheme == "file";
    let mut source_match = source.clone();
    if source_is_local {
        let p = fsutil::expanduser(url_path.trim_end_matches('/'));
        source_match = std::fs::canonicalize(&p)
            .map(|c| c.display().to_string())
            .unwrap_or(p);
        if !Path::new(&source_match).is_file() {
            return fail(
                ret,
                format!(
                    "Source file '{}' does not exist",
                    remote::redact(&source_match)
                ),
            );
        }
    }
    let archive_format = match text("archive_format").filter(|f| !f.is_empty()) {
        Some(f) => f.to_lowercase(),
        None => match formats::guess_format(url_path.trim_end_matches('/')) {
            Some(f) => f.to_string(),
            None => return fail(ret, "Could not guess archive_format from the value of the 'source' argument. Please set this archive_format to one of the following: tar, rar, zip"),
        },
    };
    if !["tar", "rar", "zip"].contains(&archive_format.as_str()) {
        return fail(ret, format!("Invalid archive_format '{archive_format}'. Either set it to a supported value (tar, rar, zip) or remove this argument and the archive format will be guessed based on file extension."));
    }
    let options = text("options").filter(|o| !o.is_empty());
    let strip = match (&options, archive_format.as_str()) {
        (Some(o), "tar") => strip_components(o),
        _ => None,
    };
    if archive_format == "zip" && options.is_some() {
        if call
            .low
            .get("use_cmd_unzip")
            .is_some_and(|v| !v.is_null() && !v.is_truthy())
        {
            return fail(ret, "'use_cmd_unzip' cannot be set to False if CLI options are being specified (via the 'options' argument). Either remove 'use_cmd_unzip', or set it to True.");
        }
        // Salt hands zip options to the unzip command (archive.cmd_unzip),
        // which brine does not have.
        return fail(
            ret,
            "archive.cmd_unzip function not available, unzip might not be installed on minion",
        );
    }
    if opt("password").is_some() {
        return fail(
            ret,
            if archive_format == "zip" {
                "The 'password' argument (encrypted zip archives) is not supported by brine"
            } else {
                "The 'password' argument is only supported for zip archives"
            },
        );
    }
    if archive_format == "rar" {
        return fail(
            ret,
            "archive.unrar function not available, rar/unrar might not be installed on minion",
        );
    }
    let trim = match args.get("trim_output") {
        None | Some(Value::Bool(false)) => Value::Bool(false),
        Some(Value::Bool(true)) => Value::Int(100),
        Some(Value::Int(i)) => Value::Int(*i),
        Some(v) if !v.is_truthy() => v.clone(),
        Some(v) => match v.to_python_str().trim().parse::<i64>() {
            Ok(i) => Value::Int(i),
            Err(_) => {
                return fail(
                    ret,
                    "Invalid value for trim_output, must be True/False or an integer",
                )
            }
        },
    };
    let source_sum = match &source_hash {
        Some(h) => match get_source_sum(
            &fetcher,
            "",
            &source_match,
            h,
            text("source_hash_name").as_deref(),
        ) {
            Ok(s) => Some(s),
            // Salt catches only CommandExecutionError here: a failed
            // download of the hash file raises out of the state.
            Err(SumError::Fetch(e)) => {
                return fail(
                    ret,
                    crate::raised(format!("salt.exceptions.MinionError: {e}")),
                )
            }
            Err(e) => return fail(ret, e.to_string()),
        },
        None => None,
    };
    let cached_path: PathBuf = if source_is_local {
        PathBuf::from(&source_match)
    } else {
        if test {
            ret.result = None;
            ret.comment = format!(
                "Archive {} would be cached (if necessary) and checked to discover if extraction is needed",
                remote::redact(&source_match)
            );
            return Ok(ret);
        }
        match cached(
            &fetcher,
            &source_match,
            source_hash.as_deref(),
            text("source_hash_name").as_deref(),
            skip_verify,
        ) {
            Ok(p) => p,
            Err(r) => return Ok(*r),
        }
    };
    let cached_str = cached_path.display().to_string();
    if archive_format == "zip" && zip_encrypted(&cached_path) {
        return fail(ret, format!("Archive {} is password-protected, but no password was specified. Please set the 'password' argument.", remote::redact(&source_match)));
    }
    let contents = match Listing::of(&cached_str, &cached_path, &archive_format, strip) {
        Ok(l) => l,
        Err(e) => {
            let mut msg = format!(
                "{}. Additional info follows:\n\narchive location:\n    {cached_str}",
                e.trim_end_matches('.')
            );
            let mut errors = Vec::new();
            if if_missing.is_none() {
                errors.push("'if_missing' must be set");
            }
            if enforce_on.is_none() && (user.is_some() || group.is_some()) {
                errors.push("Ownership cannot be managed without setting 'enforce_ownership_on'.");
            }
            if !errors.is_empty() {
                msg.push_str("\n\n");
                if archive_format == "tar" {
                    msg.push_str("If the source archive is a tar archive compressed using a compression type not natively supported by the tar command, then setting the 'list_options' argument may allow the contents to be listed. Otherwise, if Salt is unable to determine the files/directories in the archive, the following workaround(s) would need to be used for this state to proceed");
                } else {
                    msg.push_str(
                        "The following workarounds must be used for this state to proceed",
                    );
                }
                msg.push_str(&format!(
                    " (assuming the source file is a valid {archive_format} archive):\n"
                ));
                for e in errors {
                    msg.push_str(&format!("\n- {e}"));
                }
            }
            return fail(ret, msg);
        }
    };
    if args.truthy("enforce_toplevel", true)
        && (contents.top_level_dirs.len() > 1 || !contents.top_level_files.is_empty())
    {
        return fail(ret, format!("Archive does not have a single top-level directory. To allow this archive to be extracted, set 'enforce_toplevel' to False. To avoid a '{archive_format}-bomb' it may also be advisable to set a top-level directory by adding it to the 'name' value (for example, setting 'name' to {name}some_dir instead of {name})."));
    }
    let clean = args.truthy("clean", false);
    let clean_parent = args.truthy("clean_parent", false);
    if clean && clean_parent {
        return fail(
            ret,
            "Only one of 'clean' and 'clean_parent' can be set to True",
        );
    }
    let mut extraction_needed = args.truthy("overwrite", false);
    let mut contents_missing = false;
    let mut incorrect = Vec::new();
    type IsKind = fn(&std::fs::Metadata) -> bool;
    let kinds: [(&Vec<String>, IsKind); 3] = [
        (&contents.dirs, |m| m.is_dir()),
        (&contents.files, |m| !m.is_symlink() && !m.is_dir()),
        (&contents.links, |m| m.is_symlink()),
    ];
    for (paths, right) in kinds {
        for p in paths {
            let full = format!("{name}{p}");
            match std::fs::symlink_metadata(full.trim_end_matches('/')) {
                Ok(md) if !right(&md) => incorrect.push(p.clone()),
                Ok(_) => {}
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                    extraction_needed = true;
                    contents_missing = true;
                }
                Err(e) if e.raw_os_error() == Some(nix::libc::ENOTDIR) => {}
                Err(e) => return fail(ret, fsutil::py_os_error(&e, Path::new(&full))),
            }
        }
    }
    if !incorrect.is_empty() {
        let listed: String = incorrect.iter().map(|x| format!("\n- {x}")).collect();
        let paths = format!("\n{listed}");
        ret.comment = format!("The below paths (relative to {name}) exist, but are the incorrect type (file instead of directory, symlink instead of file, etc.).");
        if test && clean {
            ret.result = None;
            ret.comment.push_str(&format!(" Since the 'clean' option is enabled, the destination paths would be cleared and the archive would be extracted.{paths}"));
            return Ok(ret);
        }
        if test && clean_parent {
            ret.result = None;
            ret.comment.push_str(" Since the 'clean_parent' option is enabled, the destination parent directory would be removed first and then re-created and the archive would be extracted");
            return Ok(ret);
        }
        if !clean {
            if !args.truthy("force", false) {
                ret.comment.push_str(&format!(" To proceed with extraction, set 'force' to True. Note that this will remove these paths before extracting.{paths}"));
                return Ok(ret);
            }
            let mut removed = Vec::new();
            for p in &incorrect {
                let full = format!("{name}{p}");
                if let Err(e) = fsutil::remove(Path::new(full.trim_end_matches('/'))) {
                    return fail(ret, format!("One or more paths existed by were the incorrect type (i.e. file instead of directory or vice-versa), but could not be removed. The following errors were observed:\n\n- {e}"));
                }
                removed.push(Value::Str(full));
                extraction_needed = true;
            }
            ret.changes.insert("removed".into(), Value::List(removed));
        }
    }
    let mut created_destdir = false;
    let mut files: Vec<Value> = Vec::new();
    if extraction_needed {
        if let (true, false, Some(sum)) = (source_is_local, skip_verify, &source_sum) {
            let have = crate::fileclient::hash_path(&cached_path, &sum.hash_type)
                .ok()
                .flatten()
                .map(|(h, _)| h);
            if have.is_none() || have != sum.hsum {
                return fail(
                    ret,
                    format!(
                        "{} does not match the desired source_hash {}",
                        remote::redact(&source_match),
                        sum.hsum.clone().unwrap_or_default()
                    ),
                );
            }
        }
        if test {
            ret.result = None;
            ret.comment = format!(
                "Archive {} would be extracted to {name}",
                remote::redact(&source_match)
            );
            if clean {
                ret.comment.push_str(", after cleaning destination path(s)");
            }
            add_explanation(&mut ret, contents_missing);
            return Ok(ret);
        }
        if clean_parent {
            if let Err(e) = fsutil::remove(Path::new(trimmed)) {
                return fail(ret, format!("Unable to remove the directory {name}. The following errors were observed:\n\n- {e}"));
            }
            ret.changes.insert(
                "removed".into(),
                Value::Str(format!(
                    "Directory {name} was removed prior to the extraction"
                )),
            );
        }
        if clean {
            let mut removed = match ret.changes.shift_remove("removed") {
                Some(Value::List(l)) => l,
                _ => Vec::new(),
            };
            for p in contents
                .top_level_dirs
                .iter()
                .chain(&contents.top_level_files)
            {
                let full = format!("{name}{p}");
                match fsutil::remove(Path::new(full.trim_end_matches('/'))) {
                    Ok(_) => removed.push(Value::Str(full)),
                    Err(e) => return fail(ret, format!("One or more paths could not be cleaned. The following errors were observed:\n\n- {e}")),
                }
            }
            ret.changes.insert("removed".into(), Value::List(removed));
        }
        if !Path::new(trimmed).is_dir() {
            // Salt's file.directory(name, user=user, makedirs=True).
            if let Err(e) = fsutil::makedirs_perms(Path::new(trimmed), uid, None, None) {
                return fail(ret, fsutil::py_os_error(&e, Path::new(trimmed)));
            }
            if uid.is_some() {
                let _ = fsutil::chown(Path::new(trimmed), uid, None, false);
            }
            created_destdir = true;
        }
        let dest = Path::new(trimmed);
        let result: Result<Vec<Value>, String> = match (archive_format.as_str(), &options) {
            ("zip", _) => {
                formats::extract_zip(&cached_path, dest, &[], args.truthy("extract_perms", true))
                    .map(|names| formats::trim_files(names, &trim))
                    .map_err(|e| format!("Exception encountered unpacking zipfile: {e}"))
            }
            (_, None) => match formats::extract_tar(&cached_path, dest) {
                Ok(names) => {
                    let n = trim.as_i64().filter(|_| trim.is_truthy());
                    let keep = n.map_or(names.len(), |n| usize::try_from(n).unwrap_or(0));
                    Ok(names.into_iter().take(keep).map(Value::Str).collect())
                }
                Err(_) => {
                    if created_destdir {
                        let _ = std::fs::remove_dir(dest);
                    }
                    return fail(ret, "Failed to read from tar archive using Python's native tar file support. If archive is compressed using something other than gzip or bzip2, the 'options' argument may be required to pass the correct options to the tar command in order to extract the archive.");
                }
            },
            (_, Some(o)) => match tar_command(o, &cached_path, dest) {
                Ok(Ok(lines)) => {
                    let n = trim.as_i64().filter(|_| trim.is_truthy());
                    let keep = n.map_or(lines.len(), |n| usize::try_from(n).unwrap_or(0));
                    let out: Vec<Value> = lines.into_iter().take(keep).map(Value::Str).collect();
                    if out.is_empty() {
                        Ok(vec![Value::Str("no tar output so far".into())])
                    } else {
                        Ok(out)
                    }
                }
                Ok(Err(run)) => {
                    ret.result = Some(false);
                    ret.changes = run;
                    return Ok(ret);
                }
                Err(comment) => return fail(ret, comment),
            },
        };
        files = match result {
            Ok(f) => f,
            Err(e) => return fail(ret, e),
        };
    }
    // Ownership of what the archive holds.
    let mut enforce_missing: Vec<String> = Vec::new();
    let mut enforce_failed: Vec<String> = Vec::new();
    if uid.is_some() || gid.is_some() {
        let (dirs, singles): (Vec<String>, Vec<String>) = match &enforce_on {
            Some(e) if Path::new(e).is_dir() => (vec![e.clone()], Vec::new()),
            Some(e) => (Vec::new(), vec![e.clone()]),
            None => (
                contents
                    .top_level_dirs
                    .iter()
                    .map(|d| format!("{name}{d}"))
                    .collect(),
                contents
                    .top_level_files
                    .iter()
                    .chain(&contents.top_level_links)
                    .map(|f| format!("{name}{f}"))
                    .collect(),
            ),
        };
        for full in dirs {
            if !Path::new(&full).is_dir() {
                if !test {
                    enforce_missing.push(full);
                }
                continue;
            }
            match owner::recurse(Path::new(&full), uid, gid, test) {
                // In test mode Salt's file.directory answers None where it
                // would change, which archive.extracted counts as a failure.
                Ok(true) => {
                    ret.changes
                        .insert("updated ownership".into(), Value::Bool(true));
                    if test {
                        enforce_failed.push(full);
                    }
                }
                Ok(false) => {}
                Err(()) => enforce_failed.push(full),
            }
        }
        for full in singles {
            if std::fs::symlink_metadata(&full).is_err() {
                if !test {
                    enforce_missing.push(full.clone());
                    enforce_failed.push(full);
                }
                continue;
            }
            match owner::one(Path::new(&full), uid, gid, test) {
                Some(true) => {
                    ret.changes
                        .insert("updated ownership".into(), Value::Bool(true));
                }
                Some(false) => {}
                None => enforce_failed.push(full),
            }
        }
    }
    if extraction_needed {
        if !files.is_empty() {
            let mut changes = Map::default();
            if created_destdir {
                changes.insert(
                    "directories_created".into(),
                    Value::List(vec![Value::Str(name.clone())]),
                );
            }
            changes.insert("extracted_files".into(), Value::List(files));
            // Salt adds these after what is already there (removed, ownership).
            for (k, v) in changes {
                ret.changes.insert(k, v);
            }
            ret.comment = format!("{} extracted to {name}", remote::redact(&source_match));
            add_explanation(&mut ret, contents_missing);
            ret.comment.push_str(&format!(
                ". Output was trimmed to {} number of lines",
                trim_text(&trim)
            ));
            ret.result = Some(true);
        } else {
            ret.result = Some(false);
            ret.comment = format!(
                "No files were extracted from {}",
                remote::redact(&source_match)
            );
        }
    } else {
        ret.result = Some(true);
        ret.comment = "All files in archive are already present".into();
        if test && ret.changes.contains_key("updated ownership") {
            ret.result = None;
            ret.comment
                .push_str(". Ownership would be updated on one or more files/directories.");
        }
    }
    if !enforce_missing.is_empty() {
        if if_missing.is_none() {
            ret.result = Some(false);
        }
        ret.comment.push_str(
            "\n\nWhile trying to enforce user/group ownership, the following paths were missing:\n",
        );
        for item in &enforce_missing {
            ret.comment.push_str(&format!("\n- {item}"));
        }
    }
    if !enforce_failed.is_empty() {
        ret.result = Some(false);
        ret.comment.push_str("\n\nWhile trying to enforce user/group ownership, Salt was unable to change ownership on the following paths:\n");
        for item in &enforce_failed {
            ret.comment.push_str(&format!("\n- {item}"));
        }
    }
    if !source_is_local && !keep_source {
        // Salt's file.not_cached: the download is dropped.
        let _ = std::fs::remove_file(&cached_path);
    }
    if !warnings.is_empty() {
        ret.extra.insert("warnings".into(), Value::List(warnings));
    }
    Ok(ret)
}

/// Salt's `_add_explanation` (the `source_hash_update` trigger aside).
fn add_explanation(ret: &mut StateReturn, contents_missing: bool) {
    if contents_missing {
        ret.comment
            .push_str(", due to absence of one or more files/dirs");
    }
}

/// `--strip-components=N` (or `--strip N`) in tar options.
fn strip_components(options: &str) -> Option<usize> {
    let re = regex::Regex::new(r#"--strip(?:-components)?(?:\s+|=)["']?(\d+)["']?"#).ok()?;
    re.captures(options)?.get(1)?.as_str().parse().ok()
}

/// Whether any member of the zip archive at `path` is encrypted.
fn zip_encrypted(path: &Path) -> bool {
    let Ok(file) = std::fs::File::open(path) else {
        return false;
    };
    let Ok(mut z) = zip::ZipArchive::new(file) else {
        return false;
    };
    (0..z.len()).any(|i| z.by_index_raw(i).is_ok_and(|e| e.encrypted()))
}

/// Salt's extraction with tar options: `tar xv<short opts> <long opts> -f
/// ARCHIVE` run in the destination (argv, no shell). The listed names, or
/// the command's result (`pid`, `retcode`, `stdout`, `stderr`) when it
/// failed, or a comment.
fn tar_command(
    options: &str,
    cached: &Path,
    dest: &Path,
) -> Result<Result<Vec<String>, Map>, String> {
    let Some(tar) = brine_host::path::which("tar") else {
        return Err("tar command not available, it might not be installed on minion".into());
    };
    let words = brine_core::py::shlex_split(options).map_err(|e| e.to_string())?;
    let words: Vec<String> = words
        .into_iter()
        .filter(|w| !["v", "-v", "--verbose"].contains(&w.as_str()))
        .collect();
    let mut short = "xv".to_string();
    let mut long = Vec::new();
    for (i, w) in words.iter().enumerate() {
        if w.starts_with('-') || i > 0 {
            long.push(w.clone());
        } else {
            short.push_str(&w.replace(['x', 'f'], ""));
        }
    }
    let out = std::process::Command::new(tar)
        .arg(&short)
        .args(&long)
        .arg("-f")
        .arg(cached)
        .current_dir(dest)
        .stdin(std::process::Stdio::null())
        .output()
        .map_err(|e| e.to_string())?;
    let stdout = String::from_utf8_lossy(&out.stdout).trim_end().to_string();
    if !out.status.success() {
        let mut m = Map::default();
        m.insert("pid".into(), Value::Int(0));
        m.insert(
            "retcode".into(),
            Value::Int(i64::from(out.status.code().unwrap_or(1))),
        );
        m.insert(
            "stderr".into(),
            Value::Str(String::from_utf8_lossy(&out.stderr).trim_end().to_string()),
        );
        m.insert("stdout".into(), Value::Str(stdout));
        return Ok(Err(m));
    }
    Ok(Ok(stdout.lines().map(str::to_string).collect()))
}
