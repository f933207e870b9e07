//! Archives read in-process, as Salt reads them with Python's `tarfile`
//! and `zipfile`: tar (plain, gzip, bzip2, xz: told apart by their first
//! bytes, as `tarfile.open(mode="r")` does) and zip. What the
//! `archive.extracted` state and the `archive.*` execution functions share:
//! listing (`archive.list`), extracting (`tarfile.extractall`,
//! `archive.unzip`), and Salt's small helpers around them.

use brine_core::{Map, Value};
use std::fs::File;
use std::io::{BufRead, BufReader, Read, Seek};
use std::os::unix::fs::PermissionsExt;
use std::path::{Component, Path, PathBuf};

/// Salt's `guess_archive_type`: `tar`, `zip` or `rar` from the name.
pub fn guess_format(name: &str) -> Option<&'static str> {
    let lower = name.to_lowercase();
    const TAR: &[&str] = &[
        "tar", "tar.gz", "tgz", "tar.bz2", "tbz2", "tbz", "tar.xz", "txz", "tar.lzma", "tlz",
    ];
    if TAR.iter().any(|e| lower.ends_with(&format!(".{e}"))) {
        return Some("tar");
    }
    ["zip", "rar"]
        .into_iter()
        .find(|e| lower.ends_with(&format!(".{e}")))
}

/// Python's `strerror` text of an I/O error.
pub fn os_text(e: &std::io::Error) -> String {
    match e.raw_os_error() {
        Some(code) => nix::errno::Errno::from_raw(code).desc().to_string(),
        None => e.to_string(),
    }
}

/// A reader of the tar stream in `file`: gunzipped, bunzipped or
/// un-xz'd when its first bytes say so, else as is. xz is decoded into an
/// unnamed temporary file first (the decoder writes, it does not read).
pub fn open_tar(file: File) -> std::io::Result<Box<dyn Read>> {
    let mut r = BufReader::new(file);
    let head = r.fill_buf()?.to_vec();
    if head.starts_with(&[0x1f, 0x8b]) {
        return Ok(Box::new(flate2::read::GzDecoder::new(r)));
    }
    if head.starts_with(b"BZh") {
        return Ok(Box::new(bzip2::read::BzDecoder::new(r)));
    }
    if head.starts_with(&[0xfd, b'7', b'z', b'X', b'Z', 0x00]) {
        let mut out = tempfile::tempfile()?;
        lzma_rs::xz_decompress(&mut r, &mut out)
            .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e.to_string()))?;
        out.rewind()?;
        return Ok(Box::new(BufReader::new(out)));
    }
    Ok(Box::new(r))
}

/// An archive's folders (with a trailing `/`), files and links.
pub struct Members {
    pub dirs: Vec<String>,
    pub files: Vec<String>,
    pub links: Vec<String>,
}

/// Salt's message when a tar archive cannot be listed.
fn unable_tar(name: &str) -> String {
    format!(
        "Unable to list contents of {name}. If this is an XZ-compressed tar archive, \
install XZ Utils to enable listing its contents. If it is compressed using something \
other than XZ, it may be necessary to specify CLI options to decompress the archive. \
See the documentation for details."
    )
}

/// Salt's error for an archive that cannot be opened (Python's OSError).
fn open_failed(name: &str, path: &Path, e: &std::io::Error) -> String {
    format!(
        "Failed to list contents of {name}: [Errno {}] {}: '{}'",
        e.raw_os_error().unwrap_or(0),
        os_text(e),
        path.display()
    )
}

/// The members of the tar archive at `path` (`name` as the caller knows it).
pub fn members_tar(name: &str, path: &Path) -> Result<Members, String> {
    let file = File::open(path).map_err(|e| open_failed(name, path, &e))?;
    let reader = open_tar(file).map_err(|_| unable_tar(name))?;
    let mut a = tar::Archive::new(reader);
    let mut m = Members {
        dirs: Vec::new(),
        files: Vec::new(),
        links: Vec::new(),
    };
    let mut any = false;
    for entry in a.entries().map_err(|_| unable_tar(name))? {
        let entry = entry.map_err(|_| unable_tar(name))?;
        any = true;
        let member = entry
            .path()
            .map(|p| p.display().to_string())
            .map_err(|_| unable_tar(name))?;
        let kind = entry.header().entry_type();
        if kind.is_symlink() {
            m.links.push(member);
        } else if kind.is_dir() {
            m.dirs.push(format!("{}/", member.trim_end_matches('/')));
        } else {
            m.files.push(member);
        }
    }
    // Python's tarfile refuses a file that holds no tar header at all.
    if !any && std::fs::metadata(path).is_ok_and(|md| md.len() > 0) {
        return Err(unable_tar(name));
    }
    Ok(m)
}

/// The members of the zip archive at `path`, folders implied by files
/// added.
pub fn members_zip(name: &str, path: &Path) -> Result<Members, String> {
    let not_zip = || format!("{name} is not a ZIP file");
    let file = File::open(path).map_err(|e| open_failed(name, path, &e))?;
    let mut z = zip::ZipArchive::new(file).map_err(|_| not_zip())?;
    let mut dirs = std::collections::BTreeSet::new();
    let (mut files, mut links) = (Vec::new(), Vec::new());
    for i in 0..z.len() {
        let e = z.by_index_raw(i).map_err(|_| not_zip())?;
        let member = e.name().to_string();
        let mode = e.unix_mode().unwrap_or(0);
        if mode & 0o170000 == 0o120000 {
            links.push(member);
        } else if mode & 0o170000 == 0o040000 {
            dirs.insert(member);
        } else {
            files.push(member);
        }
    }
    for f in files.clone() {
        if let Some((head, _)) = f.rsplit_once('/') {
            let d = format!("{head}/");
            files.retain(|x| *x != d);
            dirs.insert(d);
        }
    }
    Ok(Members {
        dirs: dirs.into_iter().collect(),
        files,
        links,
    })
}

/// Salt's `archive.list` (verbose) of an archive on this host: sorted
/// members, `strip_components` leading parts dropped, and the top level.
pub struct Listing {
    pub dirs: Vec<String>,
    pub files: Vec<String>,
    pub links: Vec<String>,
    pub top_level_dirs: Vec<String>,
    pub top_level_files: Vec<String>,
    pub top_level_links: Vec<String>,
}

impl Listing {
    /// The listing of `cached` (`name` in messages) in `format`.
    pub fn of(
        name: &str,
        cached: &Path,
        format: &str,
        strip: Option<usize>,
    ) -> Result<Listing, String> {
        let m = match format {
            "tar" => members_tar(name, cached)?,
            "zip" => members_zip(name, cached)?,
            other => return Err(format!("Unsupported archive format '{other}'")),
        };
        let (mut dirs, mut files, mut links) = (m.dirs, m.files, m.links);
        if let Some(n) = strip {
            for item in [&mut dirs, &mut files, &mut links] {
                *item = item
                    .iter()
                    .filter_map(|x| x.splitn(n + 1, '/').nth(n).map(str::to_string))
                    .filter(|x| !x.is_empty())
                    .collect();
            }
        }
        dirs.sort();
        files.sort();
        links.sort();
        let mut top_level_dirs: Vec<String> = dirs
            .iter()
            .filter(|d| d.matches('/').count() == 1)
            .cloned()
            .collect();
        let common = common_prefix(&dirs);
        if let Some((head, _)) = common.split_once('/') {
            let c = format!("{head}/");
            if !top_level_dirs.contains(&c) {
                top_level_dirs.push(c);
            }
        }
        let top = |v: &[String]| v.iter().filter(|f| !f.contains('/')).cloned().collect();
        Ok(Listing {
            top_level_files: top(&files),
            top_level_links: top(&links),
            top_level_dirs,
            dirs,
            files,
            links,
        })
    }

    /// `archive.list`'s verbose answer.
    pub fn to_value(&self) -> Value {
        let list = |v: &[String]| Value::List(v.iter().cloned().map(Value::Str).collect());
        let mut m = Map::default();
        m.insert("dirs".into(), list(&self.dirs));
        m.insert("files".into(), list(&self.files));
        m.insert("links".into(), list(&self.links));
        m.insert("top_level_dirs".into(), list(&self.top_level_dirs));
        m.insert("top_level_files".into(), list(&self.top_level_files));
        m.insert("top_level_links".into(), list(&self.top_level_links));
        Value::Map(m)
    }
}

/// Python's `os.path.commonprefix` (character-wise).
pub fn common_prefix(items: &[String]) -> String {
    let Some(first) = items.first() else {
        return String::new();
    };
    let mut end = first.len();
    for s in items.iter().skip(1) {
        end = first
            .char_indices()
            .zip(s.chars())
            .take_while(|((_, a), b)| a == b)
            .last()
            .map_or(0, |((i, c), _)| i + c.len_utf8())
            .min(end);
    }
    first.get(..end).unwrap_or_default().to_string()
}

/// A member name as a relative path that stays inside the destination.
pub fn safe_member(name: &str) -> Option<PathBuf> {
    let p = Path::new(name);
    p.components()
        .all(|c| matches!(c, Component::Normal(_) | Component::CurDir))
        .then(|| p.to_path_buf())
}

/// Salt's `_trim_files`: past COUNT (100, or the number given) members
/// the list is cut with a note.
pub fn trim_files(files: Vec<String>, trim: &Value) -> Vec<Value> {
    let count = match trim {
        Value::Bool(false) | Value::Null => None,
        Value::Bool(true) => Some(100),
        Value::Int(n) => Some(usize::try_from(*n).unwrap_or(0)),
        _ => Some(100),
    };
    let mut out: Vec<Value> = files.into_iter().map(Value::Str).collect();
    if let Some(n) = count.filter(|n| out.len() > *n) {
        out.truncate(n);
        out.push(Value::Str(format!("List trimmed after {n} files.")));
    }
    out
}

/// The process umask (read by setting it and putting it back).
pub fn current_umask() -> u32 {
    use nix::sys::stat::{umask, Mode};
    let old = umask(Mode::from_bits_truncate(0o022));
    umask(old);
    old.bits()
}

/// Whether the parent of `target` (made if missing) lies inside `dest`,
/// so a link unpacked earlier cannot carry later members out of it.
fn parent_inside(target: &Path, dest: &Path) -> std::io::Result<bool> {
    let Some(parent) = target.parent() else {
        return Ok(false);
    };
    std::fs::create_dir_all(parent)?;
    Ok(match (parent.canonicalize(), dest.canonicalize()) {
        (Ok(p), Ok(d)) => p.starts_with(d),
        _ => false,
    })
}

/// Python's `tarfile.extractall(dest)` then `getnames()`: every member
/// unpacked under `dest` (none outside it), the names in archive order.
pub fn extract_tar(cached: &Path, dest: &Path) -> Result<Vec<String>, String> {
    let file = File::open(cached).map_err(|e| e.to_string())?;
    let reader = open_tar(file).map_err(|e| e.to_string())?;
    let mut a = tar::Archive::new(reader);
    a.set_preserve_permissions(true);
    a.set_preserve_mtime(true);
    a.set_overwrite(true);
    let mut names = Vec::new();
    for entry in a.entries().map_err(|e| e.to_string())? {
        let mut entry = entry.map_err(|e| e.to_string())?;
        let name = entry
            .path()
            .map(|p| p.display().to_string())
            .map_err(|e| e.to_string())?;
        // `unpack_in` refuses names climbing out of `dest` and links
        // followed out of it.
        entry.unpack_in(dest).map_err(|e| format!("{name}: {e}"))?;
        names.push(name.trim_end_matches('/').to_string());
    }
    Ok(names)
}

/// Salt's `archive.unzip` (Python's zipfile): every member but `excludes`
/// unpacked under `dest`, with the modes the archive records when
/// `extract_perms`; the names in archive order.
pub fn extract_zip(
    cached: &Path,
    dest: &Path,
    excludes: &[String],
    extract_perms: bool,
) -> Result<Vec<String>, String> {
    let file = File::open(cached).map_err(|e| {
        format!(
            "[Errno {}] {}: '{}'",
            e.raw_os_error().unwrap_or(0),
            os_text(&e),
            cached.display()
        )
    })?;
    let mut z = zip::ZipArchive::new(file).map_err(|e| e.to_string())?;
    let mut done = Vec::new();
    for i in 0..z.len() {
        let mut entry = z.by_index(i).map_err(|e| e.to_string())?;
        let name = entry.name().to_string();
        if excludes.contains(&name) {
            continue;
        }
        let Some(rel) = safe_member(&name) else {
            return Err(format!("unsafe member name {name:?}"));
        };
        let target = dest.join(&rel);
        if !parent_inside(&target, dest).map_err(|e| e.to_string())? {
            return Err(format!(
                "member {name:?} would be written outside {}",
                dest.display()
            ));
        }
        let mode = entry.unix_mode();
        if mode.is_some_and(|m| m & 0o170000 == 0o120000) {
            let mut link = String::new();
            entry.read_to_string(&mut link).map_err(|e| e.to_string())?;
            let _ = std::fs::remove_file(&target);
            std::os::unix::fs::symlink(&link, &target).map_err(|e| e.to_string())?;
            done.push(name);
            continue;
        }
        if entry.is_dir() {
            std::fs::create_dir_all(&target).map_err(|e| e.to_string())?;
        } else {
            let mut out = File::create(&target).map_err(|e| e.to_string())?;
            std::io::copy(&mut entry, &mut out).map_err(|e| e.to_string())?;
        }
        if extract_perms {
            let umask = current_umask();
            let perm = match mode.map(|m| m & 0o7777).filter(|m| *m != 0) {
                Some(m) => m,
                None if entry.is_dir() => 0o777 & !umask,
                None => 0o666 & !umask,
            };
            std::fs::set_permissions(&target, std::fs::Permissions::from_mode(perm))
                .map_err(|e| e.to_string())?;
        }
        done.push(name);
    }
    Ok(done)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn helpers() {
        assert_eq!(guess_format("a.TAR.GZ"), Some("tar"));
        assert_eq!(guess_format("a.zip"), Some("zip"));
        assert_eq!(guess_format("a.txt"), None);
        assert_eq!(common_prefix(&["ab/c/".into(), "ab/d/".into()]), "ab/");
        assert_eq!(common_prefix(&[]), "");
        assert!(safe_member("a/b").is_some());
        assert!(safe_member("../a").is_none());
        assert!(safe_member("/etc/passwd").is_none());
        let t = trim_files(vec!["a".into(), "b".into()], &Value::Int(1));
        assert_eq!(
            Value::List(t).to_python_repr(),
            "['a', 'List trimmed after 1 files.']"
        );
    }
}
