//! Salt's `archive` module: tar, gzip and zip archives made, unpacked and
//! listed in-process (the `tar`, `flate2` and `zip` crates), answering
//! what Salt answers: the tool's output lines for `tar`/`gzip`/`gunzip`,
//! the member names for `zip`/`unzip`, the sorted members for `list`.

use super::function::{sig, CallError, Ctx, Function, Return};
use super::params::{opt_string, Params};
use brine_core::args::split_input;
use brine_core::Value;
use brine_states::fileclient::{parse_salt_url, FileClient, LocalFileClient};
use brine_states::modules::archive::formats::{self, guess_format, os_text, trim_files, Listing};
use std::fs::File;
use std::io::{BufReader, Write};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

pub(super) const FUNCTIONS: &[Function] = &[
    Function::acts(
        "gunzip",
        sig!(gzipfile, template = null, runas = null, options = null),
        "Decompress GZIPFILE (file.gz becomes file), as gunzip does; answers \
its output lines.\n\n    brine-call archive.gunzip /tmp/app.log.gz",
        |c, p| gzip_fn(c, p, false),
    ),
    Function::acts(
        "gzip",
        sig!(sourcefile, template = null, runas = null, options = null),
        "Compress SOURCEFILE into SOURCEFILE.gz (the original removed), as gzip \
does; options=-1..-9 sets the level. Answers its output lines.\n\n    \
brine-call archive.gzip /tmp/app.log",
        |c, p| gzip_fn(c, p, true),
    ),
    Function::acts(
        "list",
        sig!(
            name,
            archive_format = null,
            options = null,
            strip_components = null,
            clean = false,
            verbose = false,
            saltenv = "base",
            source_hash = null,
            use_etag = false
        ),
        "The members of archive NAME (a local path or salt:// URL): tar (plain \
or gzip) or zip, sorted, folders with a trailing /. verbose=True splits dirs, \
files, links and the top-level ones; strip_components=N drops leading folders.\n\n    \
brine-call archive.list /tmp/app.tar.gz",
        list,
    ),
    Function::acts(
        "tar",
        sig!(
            options,
            tarfile,
            sources = null,
            dest = null,
            cwd = null,
            template = null,
            runas = null
        ),
        "Create (c), extract (x) or list (t) tar archive TARFILE as tar with \
OPTIONS would (z: gzip, v: verbose); SOURCES (list or comma-separated, globs) \
to add, DEST to extract into, CWD for relative paths. Answers tar's output \
lines.\n\n    brine-call archive.tar czf /tmp/etc.tgz sources=/etc/hosts",
        tar_fn,
    ),
    Function::acts(
        "unzip",
        sig!(
            zip_file,
            dest,
            excludes = null,
            options = null,
            template = null,
            runas = null,
            trim_output = false,
            password = null,
            extract_perms = true
        ),
        "Extract ZIP_FILE into DEST (excludes: members to leave out); answers the \
members extracted.\n\n    brine-call archive.unzip /tmp/app.zip /opt/app",
        unzip,
    ),
    Function::acts(
        "zip",
        sig!(
            zip_file,
            sources,
            template = null,
            cwd = null,
            runas = null,
            zip64 = false
        ),
        "Create ZIP_FILE from SOURCES (list or comma-separated, globs; relative \
ones need cwd=); answers the members written.\n\n    \
brine-call archive.zip /tmp/app.zip /opt/app",
        zip_fn,
    ),
];

fn failed(msg: impl Into<String>) -> CallError {
    CallError::Failed(msg.into())
}

/// Salt's `_expand_sources`: a list, or comma-separated text; globs
/// expanded (a glob matching nothing is dropped).
fn expand_sources(v: Option<&Value>) -> Vec<String> {
    let Some(v) = v.filter(|v| !v.is_null()) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for s in split_input(v) {
        if s.contains(['*', '?', '[']) {
            if let Ok(paths) = glob::glob(&s) {
                out.extend(paths.flatten().map(|p| p.display().to_string()));
            }
        } else {
            out.push(s);
        }
    }
    out
}

/// Python's `os.path.join(base, p)` for a source that may be relative.
fn under(cwd: Option<&str>, p: &str) -> PathBuf {
    match cwd {
        Some(c) => Path::new(c).join(p),
        None => PathBuf::from(p),
    }
}

/// The files and folders under `root` (itself first), folders before
/// their contents, names sorted so archives come out the same each time.
fn tree(root: &Path) -> Vec<PathBuf> {
    let mut out = vec![root.to_path_buf()];
    let is_dir = std::fs::symlink_metadata(root).is_ok_and(|m| m.is_dir());
    if is_dir {
        if let Ok(rd) = std::fs::read_dir(root) {
            let mut kids: Vec<PathBuf> = rd.flatten().map(|e| e.path()).collect();
            kids.sort();
            for k in kids {
                out.extend(tree(&k));
            }
        }
    }
    out
}

fn tar_fn<'c>(_: &Ctx<'c>, mut p: Params) -> Result<Return, CallError> {
    let options = p.require("options")?;
    let tarfile = p.require("tarfile")?.to_python_str();
    let sources = p.take("sources");
    let dest = opt_string(p.take("dest"));
    let cwd = opt_string(p.take("cwd"));
    let template = p.take("template");
    p.take("runas");
    p.finish()?;
    if template.is_some_and(|t| t.is_truthy()) {
        return Err(failed("archive.tar: template is not supported by brine"));
    }
    let options = if options.is_truthy() {
        options.to_python_str()
    } else {
        return Err(failed("Tar options can not be empty"));
    };
    let flags: String = options
        .split_whitespace()
        .map(|w| w.trim_start_matches('-'))
        .collect();
    let verbose = flags.contains('v');
    let gz = flags.contains('z');
    let bz = flags.contains('j');
    // Reading tells gzip, bzip2 and xz apart by their first bytes; writing
    // does gzip and bzip2.
    let creating = flags.contains('c');
    if let Some(c) = flags.chars().find(|c| *c == 'Z' || (*c == 'J' && creating)) {
        return Err(failed(format!(
            "tar: option '{c}' (xz/compress) is not supported by brine when creating"
        )));
    }
    let archive = under(cwd.as_deref(), &tarfile);
    let mut out: Vec<Value> = Vec::new();
    if flags.contains('c') {
        let file = File::create(&archive).map_err(|e| failed(format!("tar: {tarfile}: {e}")))?;
        let sink: Box<dyn Write> = if gz {
            Box::new(flate2::write::GzEncoder::new(
                file,
                flate2::Compression::default(),
            ))
        } else if bz {
            Box::new(bzip2::write::BzEncoder::new(
                file,
                bzip2::Compression::default(),
            ))
        } else {
            Box::new(file)
        };
        let mut b = tar::Builder::new(sink);
        b.follow_symlinks(false);
        for src in expand_sources(sources.as_ref()) {
            let full = under(cwd.as_deref(), &src);
            for path in tree(&full) {
                let rel = path.strip_prefix(&full).unwrap_or(Path::new(""));
                // Names as given, without the leading `/` (as GNU tar).
                let top = Path::new(src.trim_start_matches('/'));
                let name = if rel.as_os_str().is_empty() {
                    top.to_path_buf()
                } else {
                    top.join(rel)
                };
                let is_dir = std::fs::symlink_metadata(&path).is_ok_and(|m| m.is_dir());
                b.append_path_with_name(&path, &name)
                    .map_err(|e| failed(format!("tar: {src}: {e}")))?;
                if verbose {
                    let mut shown = name.display().to_string();
                    if is_dir {
                        shown.push('/');
                    }
                    out.push(Value::Str(shown));
                }
            }
        }
        let sink = b
            .into_inner()
            .map_err(|e| failed(format!("tar: {tarfile}: {e}")))?;
        drop(sink);
    } else if flags.contains('x') || flags.contains('t') {
        let file = File::open(&archive)
            .map_err(|e| failed(format!("tar: {tarfile}: Cannot open: {}", os_text(&e))))?;
        let reader = formats::open_tar(file).map_err(|e| failed(format!("tar: {tarfile}: {e}")))?;
        let mut a = tar::Archive::new(reader);
        let listing = flags.contains('t');
        if !listing {
            a.set_preserve_permissions(true);
            a.set_preserve_mtime(true);
        }
        let target = under(cwd.as_deref(), dest.as_deref().unwrap_or("."));
        let entries = a
            .entries()
            .map_err(|e| failed(format!("tar: {tarfile}: {e}")))?;
        for entry in entries {
            let mut entry = entry.map_err(|e| failed(format!("tar: {tarfile}: {e}")))?;
            let name = entry
                .path()
                .map(|p| p.display().to_string())
                .unwrap_or_default();
            let name = if entry.header().entry_type().is_dir() && !name.ends_with('/') {
                format!("{name}/")
            } else {
                name
            };
            if !listing {
                entry
                    .unpack_in(&target)
                    .map_err(|e| failed(format!("tar: {name}: {e}")))?;
            }
            if listing || verbose {
                out.push(Value::Str(name));
            }
        }
    } else {
        return Err(failed(
            "tar: You must specify one of the '-Acdtrux', '--delete' or '--test-label' options",
        ));
    }
    Ok(Value::List(out).into())
}

fn gzip_fn<'c>(_: &Ctx<'c>, mut p: Params, compress: bool) -> Result<Return, CallError> {
    let file = p
        .require(if compress { "sourcefile" } else { "gzipfile" })?
        .to_python_str();
    let template = p.take("template");
    p.take("runas");
    let options = opt_string(p.take("options"));
    p.finish()?;
    if template.is_some_and(|t| t.is_truthy()) {
        return Err(failed("archive.gzip: template is not supported by brine"));
    }
    let mut level = 6u32;
    let mut keep = false;
    for o in options.iter().flat_map(|o| o.split_whitespace()) {
        match o.trim_start_matches('-') {
            "k" | "keep" => keep = true,
            d if d.len() == 1 && d.chars().all(|c| c.is_ascii_digit()) => {
                level = d.parse().unwrap_or(6);
            }
            other => {
                return Err(failed(format!(
                    "gzip: option '{other}' is not supported by brine"
                )))
            }
        }
    }
    let src = PathBuf::from(&file);
    let dest = if compress {
        PathBuf::from(format!("{file}.gz"))
    } else {
        match file.strip_suffix(".gz") {
            Some(base) => PathBuf::from(base),
            None => {
                return Ok(Value::List(vec![Value::Str(format!(
                    "gzip: {file}: unknown suffix -- ignored"
                ))])
                .into())
            }
        }
    };
    let meta = match std::fs::metadata(&src) {
        Ok(m) => m,
        Err(e) => {
            // gzip's own complaint, which Salt answers as output, with
            // gzip's exit code.
            return Ok(Return {
                value: Value::List(vec![Value::Str(format!("gzip: {file}: {}", os_text(&e)))]),
                retcode: 1,
            });
        }
    };
    let io = |e: std::io::Error| failed(format!("{}: {e}", dest.display()));
    let input = File::open(&src).map_err(|e| failed(format!("{file}: {e}")))?;
    let mut out = File::create(&dest).map_err(io)?;
    if compress {
        let mut enc = flate2::write::GzEncoder::new(&mut out, flate2::Compression::new(level));
        std::io::copy(&mut BufReader::new(input), &mut enc).map_err(io)?;
        enc.finish().map_err(io)?;
    } else {
        let mut dec = flate2::read::MultiGzDecoder::new(BufReader::new(input));
        if let Err(e) = std::io::copy(&mut dec, &mut out) {
            drop(out);
            let _ = std::fs::remove_file(&dest);
            return Ok(Value::List(vec![Value::Str(format!("gzip: {file}: {e}"))]).into());
        }
    }
    // gzip keeps the mode and times of the original.
    let _ = std::fs::set_permissions(&dest, meta.permissions());
    if let Ok(mtime) = meta.modified() {
        let _ = out.set_modified(mtime);
    }
    if !keep {
        std::fs::remove_file(&src).map_err(|e| failed(format!("{file}: {e}")))?;
    }
    Ok(Value::List(Vec::new()).into())
}

fn zip_fn<'c>(_: &Ctx<'c>, mut p: Params) -> Result<Return, CallError> {
    let zip_file = p.require("zip_file")?.to_python_str();
    let sources = p.require("sources")?;
    let template = p.take("template");
    let cwd = opt_string(p.take("cwd"));
    p.take("runas");
    let zip64 = p.take("zip64").is_some_and(|v| v.is_truthy());
    p.finish()?;
    if template.is_some_and(|t| t.is_truthy()) {
        return Err(failed("archive.zip: template is not supported by brine"));
    }
    let sources = expand_sources(Some(&sources));
    match &cwd {
        None if sources.iter().any(|s| !Path::new(s).is_absolute()) => {
            return Err(failed("Relative paths require the 'cwd' parameter"))
        }
        Some(c) if !Path::new(c).is_absolute() => return Err(failed("cwd must be absolute")),
        _ => {}
    }
    let wrap =
        |e: &dyn std::fmt::Display| failed(format!("Exception encountered creating zipfile: {e}"));
    let file = File::create(&zip_file).map_err(|e| wrap(&e))?;
    let mut z = zip::ZipWriter::new(file);
    let mut archived = Vec::new();
    for src in sources {
        let full = under(cwd.as_deref(), &src);
        if !full.exists() {
            continue;
        }
        // Names relative to cwd, else to /.
        let base = cwd.as_deref().map_or(Path::new("/"), Path::new);
        for path in tree(&full) {
            let meta = std::fs::metadata(&path).map_err(|e| wrap(&e))?;
            let rel = path
                .strip_prefix(base)
                .unwrap_or(&path)
                .display()
                .to_string();
            let opts = zip::write::SimpleFileOptions::default()
                .compression_method(zip::CompressionMethod::Deflated)
                .large_file(zip64)
                .unix_permissions(meta.permissions().mode() & 0o7777);
            if meta.is_dir() {
                if rel.is_empty() {
                    continue;
                }
                let name = format!("{rel}/");
                z.add_directory(rel.as_str(), opts).map_err(|e| wrap(&e))?;
                archived.push(Value::Str(name));
            } else {
                z.start_file(rel.as_str(), opts).map_err(|e| wrap(&e))?;
                let mut f = File::open(&path).map_err(|e| wrap(&e))?;
                std::io::copy(&mut f, &mut z).map_err(|e| wrap(&e))?;
                archived.push(Value::Str(rel));
            }
        }
    }
    z.finish().map_err(|e| wrap(&e))?;
    Ok(Value::List(archived).into())
}

fn unzip<'c>(_: &Ctx<'c>, mut p: Params) -> Result<Return, CallError> {
    let zip_file = p.require("zip_file")?.to_python_str();
    let dest = p.require("dest")?.to_python_str();
    let excludes = p.take("excludes").filter(|v| v.is_truthy());
    p.take("options");
    let template = p.take("template");
    p.take("runas");
    let trim = p.take("trim_output").unwrap_or(Value::Bool(false));
    let password = p.take("password").filter(|v| v.is_truthy());
    let extract_perms = p.take("extract_perms").is_none_or(|v| v.is_truthy());
    p.finish()?;
    if template.is_some_and(|t| t.is_truthy()) {
        return Err(failed("archive.unzip: template is not supported by brine"));
    }
    let wrap =
        |e: &dyn std::fmt::Display| failed(format!("Exception encountered unpacking zipfile: {e}"));
    if password.is_some() {
        return Err(wrap(&"encrypted archives are not supported by brine"));
    }
    let excludes: Vec<String> = excludes.map(|v| split_input(&v)).unwrap_or_default();
    let done = formats::extract_zip(
        Path::new(&zip_file),
        Path::new(&dest),
        &excludes,
        extract_perms,
    )
    .map_err(|e| wrap(&e))?;
    Ok(Value::List(trim_files(done, &trim)).into())
}

fn list<'c>(cx: &Ctx<'c>, mut p: Params) -> Result<Return, CallError> {
    let name = p.require("name")?.to_python_str();
    let format = opt_string(p.take("archive_format").filter(Value::is_truthy));
    p.take("options");
    // Salt tests it for truth first: 0 means no stripping.
    let strip = p.take("strip_components").filter(Value::is_truthy);
    let clean = p.take("clean").is_some_and(|v| v.is_truthy());
    let verbose = p.take("verbose").is_some_and(|v| v.is_truthy());
    let saltenv = opt_string(p.take("saltenv")).unwrap_or_else(|| "base".into());
    p.take("source_hash");
    p.take("use_etag");
    p.finish()?;
    // A local path is its own cache, whether or not it exists (opening it
    // fails below, as in Salt).
    let cached = match parse_salt_url(&name) {
        None => PathBuf::from(name.strip_prefix("file://").unwrap_or(&name)),
        Some(_) => {
            let client: Arc<dyn FileClient> = match cx.running() {
                Some(m) => m.file_client(),
                None => Arc::new(LocalFileClient::from_opts(cx.opts)),
            };
            client
                .cache_file(&name, &saltenv)
                .map_err(|_| failed(format!("Failed to cache {name}")))?
        }
    };
    // Salt's errors from here on carry where the archive was read.
    let located = |e: CallError| match e {
        CallError::Failed(msg) => failed(format!(
            "{}. Additional info follows:\n\narchive location:\n    {}",
            msg.trim_end_matches('.'),
            cached.display()
        )),
        other => other,
    };
    list_cached(&name, &cached, format, strip, clean, verbose).map_err(located)
}

/// `archive.list` once the archive is on this host at `cached`.
fn list_cached(
    name: &str,
    cached: &Path,
    format: Option<String>,
    strip: Option<Value>,
    clean: bool,
    verbose: bool,
) -> Result<Return, CallError> {
    let strip = match strip {
        None => None,
        Some(v) => {
            let n = v
                .as_i64()
                .or_else(|| v.to_python_str().parse().ok())
                .unwrap_or(-1);
            if n <= 0 {
                return Err(failed("'strip_components' must be a positive integer"));
            }
            Some(usize::try_from(n).unwrap_or(usize::MAX))
        }
    };
    let path_part = parse_salt_url(name).map_or(name.to_string(), |(p, _)| p);
    let format = match format.or_else(|| guess_format(&path_part).map(str::to_string)) {
        Some(f) => f,
        None => {
            return Err(failed(
                "Unable to guess archive format, please pass an 'archive_format' argument.",
            ))
        }
    };
    let listing = Listing::of(name, cached, &format, strip).map_err(failed)?;
    if clean && parse_salt_url(name).is_some() {
        let _ = std::fs::remove_file(cached);
    }
    if !verbose {
        let mut all: Vec<String> = listing
            .dirs
            .into_iter()
            .chain(listing.files)
            .chain(listing.links)
            .collect();
        all.sort();
        return Ok(Value::List(all.into_iter().map(Value::Str).collect()).into());
    }
    Ok(listing.to_value().into())
}

#[cfg(test)]
mod tests {
    use super::*;
    use brine_core::Map;

    #[test]
    fn unzip_stays_inside_dest() {
        let td = tempfile::tempdir().unwrap();
        let outside = td.path().join("outside");
        std::fs::create_dir(&outside).unwrap();
        let zpath = td.path().join("evil.zip");
        let mut z = zip::ZipWriter::new(File::create(&zpath).unwrap());
        let o = zip::write::SimpleFileOptions::default();
        z.add_symlink("d", outside.display().to_string(), o)
            .unwrap();
        z.start_file("d/f", o).unwrap();
        z.write_all(b"x").unwrap();
        z.finish().unwrap();
        let dest = td.path().join("dest");
        let mut m = crate::context::Minion {
            id: "t".into(),
            opts: Map::default().into(),
            grains: Map::default().into(),
            pillar: Map::default().into(),
            source: Default::default(),
            functions: crate::modules::functions(),
            jobs: Default::default(),
            registry: None,
            schedule: None,
            master: Default::default(),
            key_finger: None,
        };
        let args = brine_core::args::parse_input(&[
            zpath.display().to_string(),
            dest.display().to_string(),
        ]);
        let err = crate::modules::call(&mut m, "archive.unzip", args).unwrap_err();
        assert!(err.to_string().contains("outside"), "{err}");
        assert!(!outside.join("f").exists());
    }
}
