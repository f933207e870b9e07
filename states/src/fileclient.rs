//! `salt://` URLs: where a state's source file comes from.
//!
//! [`LocalFileClient`] is Salt's `file_client: local`: files are read
//! straight from the minion's `file_roots`, the way Salt's `roots`
//! fileserver finds them (first root of the environment that has the file;
//! `__env__` roots stand for any environment; no path outside a root).

use brine_core::Map;
use indexmap::IndexMap;
use std::collections::BTreeSet;
use std::io::Read;
use std::path::{Path, PathBuf};

#[derive(Debug, thiserror::Error)]
pub enum FileClientError {
    #[error("Source file {url} not found in saltenv '{saltenv}'")]
    NotFound { url: String, saltenv: String },
    #[error("{0}")]
    Other(String),
}

/// Finds (or fetches and caches) `salt://` files for a saltenv.
pub trait FileClient: Send + Sync {
    /// A local path holding the file behind `url` (`salt://a/b.conf`).
    fn cache_file(&self, url: &str, saltenv: &str) -> Result<PathBuf, FileClientError>;

    /// Every file of `saltenv` whose path (relative to the roots) starts
    /// with `prefix`, sorted (Salt's `file_list`).
    fn file_list(&self, _saltenv: &str, _prefix: &str) -> Result<Vec<String>, FileClientError> {
        Ok(Vec::new())
    }

    /// Every folder of `saltenv` whose path starts with `prefix`, sorted
    /// (Salt's `dir_list`). By default the folders holding the listed
    /// files: a folder with no file below it is not seen that way.
    fn dir_list(&self, saltenv: &str, prefix: &str) -> Result<Vec<String>, FileClientError> {
        let mut dirs = BTreeSet::new();
        for f in self.file_list(saltenv, "")? {
            let mut dir = f.as_str();
            while let Some((parent, _)) = dir.rsplit_once('/') {
                dirs.insert(parent.to_string());
                dir = parent;
            }
        }
        Ok(dirs.into_iter().filter(|d| d.starts_with(prefix)).collect())
    }

    /// The symbolic links of `saltenv` under `prefix` and what they point
    /// to (Salt's `symlink_list`); none where the client cannot tell.
    fn symlink_list(
        &self,
        _saltenv: &str,
        _prefix: &str,
    ) -> Result<Vec<(String, String)>, FileClientError> {
        Ok(Vec::new())
    }

    /// The SHA-256 of the file behind `url`, `None` when there is none.
    /// By default the file is fetched and hashed here.
    fn hash_file(&self, url: &str, saltenv: &str) -> Result<Option<String>, FileClientError> {
        match self.cache_file(url, saltenv) {
            Ok(p) => Ok(hash_path(&p, "sha256")
                .map_err(|e| FileClientError::Other(format!("{}: {e}", p.display())))?
                .map(|(h, _)| h)),
            Err(FileClientError::NotFound { .. }) => Ok(None),
            Err(e) => Err(e),
        }
    }
}

/// Hex digest and size of a file in one of Salt's hash types (`md5`,
/// `sha1`, `sha224`, `sha256`, `sha384`, `sha512`), read in pieces; `None`
/// for another type.
pub fn hash_path(path: &Path, hash_type: &str) -> std::io::Result<Option<(String, u64)>> {
    use sha2::Digest;
    fn run<D: Digest>(mut d: D, path: &Path) -> std::io::Result<(String, u64)> {
        let mut f = std::fs::File::open(path)?;
        let mut buf = vec![0u8; 64 * 1024];
        let mut size = 0u64;
        loop {
            let n = f.read(&mut buf)?;
            if n == 0 {
                break;
            }
            size += n as u64;
            d.update(buf.get(..n).unwrap_or_default());
        }
        let hex = d.finalize().iter().map(|b| format!("{b:02x}")).collect();
        Ok((hex, size))
    }
    Ok(Some(match hash_type {
        "md5" => run(md5::Md5::new(), path)?,
        "sha1" => run(sha1::Sha1::new(), path)?,
        "sha224" => run(sha2::Sha224::new(), path)?,
        "sha256" => run(sha2::Sha256::new(), path)?,
        "sha384" => run(sha2::Sha384::new(), path)?,
        "sha512" => run(sha2::Sha512::new(), path)?,
        _ => return Ok(None),
    }))
}

/// Salt's `file_list` over some root folders: every file (links
/// followed) whose relative path starts with `prefix`, sorted, once.
pub fn list_files<'a>(dirs: impl IntoIterator<Item = &'a PathBuf>, prefix: &str) -> Vec<String> {
    let mut out = BTreeSet::new();
    for dir in dirs {
        let mut seen = Vec::new();
        walk(dir, dir, &mut out, &mut seen, &mut None);
    }
    out.into_iter().filter(|p| p.starts_with(prefix)).collect()
}

/// Every file under `dirs` as [`list_files`] lists them, and each folder
/// walked with its metadata taken just before it was read (what a cache
/// of the listing checks to see a change).
pub fn list_files_walked(dirs: &[PathBuf]) -> (Vec<String>, Vec<(PathBuf, std::fs::Metadata)>) {
    let mut out = BTreeSet::new();
    let mut folders = Some(Vec::new());
    for dir in dirs {
        let mut seen = Vec::new();
        walk(dir, dir, &mut out, &mut seen, &mut folders);
    }
    (out.into_iter().collect(), folders.unwrap_or_default())
}

/// Every folder under `dirs` (links followed), relative to its root,
/// sorted, once: Salt's roots `dir_list`, empty folders included.
pub fn list_dirs<'a>(dirs: impl IntoIterator<Item = &'a PathBuf>, prefix: &str) -> Vec<String> {
    fn walk_dirs(root: &Path, dir: &Path, out: &mut BTreeSet<String>, stack: &mut Vec<PathBuf>) {
        let Ok(canon) = dir.canonicalize() else {
            return;
        };
        if stack.contains(&canon) || out.len() >= MAX_FILES {
            return;
        }
        stack.push(canon);
        if let Ok(entries) = std::fs::read_dir(dir) {
            for entry in entries.flatten() {
                let path = entry.path();
                if path.is_dir() {
                    if let Some(rel) = path.strip_prefix(root).ok().and_then(Path::to_str) {
                        out.insert(rel.to_string());
                    }
                    walk_dirs(root, &path, out, stack);
                }
            }
        }
        stack.pop();
    }
    let mut out = BTreeSet::new();
    for dir in dirs {
        walk_dirs(dir, dir, &mut out, &mut Vec::new());
    }
    out.into_iter().filter(|p| p.starts_with(prefix)).collect()
}

/// The symbolic links under `dirs` whose path starts with `prefix`, with
/// their text, when they point inside their root (Salt's roots
/// `symlink_list` with `fileserver_followsymlinks`).
pub fn list_symlinks<'a>(
    dirs: impl IntoIterator<Item = &'a PathBuf>,
    prefix: &str,
) -> Vec<(String, String)> {
    fn walk_links(root: &Path, dir: &Path, out: &mut Vec<(String, String)>, depth: usize) {
        if depth > 64 || out.len() >= MAX_FILES {
            return;
        }
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        let mut entries: Vec<_> = entries.flatten().map(|e| e.path()).collect();
        entries.sort();
        for path in entries {
            if let Ok(target) = std::fs::read_link(&path) {
                let inside = path
                    .parent()
                    .map(|p| p.join(&target))
                    .and_then(|j| j.canonicalize().ok())
                    .zip(root.canonicalize().ok())
                    .is_some_and(|(j, r)| j.starts_with(r));
                if let (true, Some(rel)) =
                    (inside, path.strip_prefix(root).ok().and_then(Path::to_str))
                {
                    out.push((rel.to_string(), target.to_string_lossy().into_owned()));
                }
                continue;
            }
            if path.is_dir() {
                walk_links(root, &path, out, depth + 1);
            }
        }
    }
    let mut out = Vec::new();
    for dir in dirs {
        walk_links(dir, dir, &mut out, 0);
    }
    out.retain(|(p, _)| p.starts_with(prefix));
    out
}

/// `cp.cache_file` for a state: fetch `url` into the minion's cache
/// (`cachedir/files/<saltenv>/<path>`, where Salt keeps it) and answer
/// the cached path; `None` when the file server has no such file. A
/// local path (or `file://` URL) is its own cache.
pub fn cache_into(
    fc: &dyn FileClient,
    cachedir: &Path,
    url: &str,
    saltenv: &str,
) -> Result<Option<PathBuf>, FileClientError> {
    let Some((path, env)) = parse_salt_url(url) else {
        let p = PathBuf::from(url.strip_prefix("file://").unwrap_or(url));
        return Ok((p.is_absolute() && p.is_file()).then_some(p));
    };
    let env = env.unwrap_or_else(|| saltenv.to_string());
    let rel = normpath(path.trim_start_matches('/'));
    if rel == "." || rel == ".." || rel.starts_with("../") || !plain_env(&env) {
        return Ok(None);
    }
    let src = match fc.cache_file(url, saltenv) {
        Ok(p) => p,
        Err(FileClientError::NotFound { .. }) => return Ok(None),
        Err(e) => return Err(e),
    };
    let dest = cached_path(cachedir, &env, &rel);
    // The master's client caches there itself; the local one answers the
    // file in the roots, which is copied into the cache as Salt does.
    if src != dest {
        let other =
            |e: std::io::Error, p: &Path| FileClientError::Other(format!("{}: {e}", p.display()));
        let dir = dest.parent().unwrap_or(cachedir);
        std::fs::create_dir_all(dir).map_err(|e| other(e, dir))?;
        let tmp = tempfile::NamedTempFile::new_in(dir).map_err(|e| other(e, dir))?;
        std::fs::copy(&src, tmp.path()).map_err(|e| other(e, &src))?;
        tmp.persist(&dest).map_err(|e| other(e.error, &dest))?;
    }
    Ok(Some(dest))
}

/// Where [`cache_into`] keeps `rel` of `saltenv`.
pub fn cached_path(cachedir: &Path, saltenv: &str, rel: &str) -> PathBuf {
    cachedir.join("files").join(saltenv).join(rel)
}

/// A saltenv usable as one folder name.
pub fn plain_env(env: &str) -> bool {
    !env.is_empty() && env != "." && env != ".." && !env.contains('/') && !env.contains('\0')
}

/// Bound on the files listed, so a huge tree cannot hold a call forever.
const MAX_FILES: usize = 1_000_000;

/// Walk `dir`, guarding against link loops by the canonical folders on
/// the current path.
fn walk(
    root: &Path,
    dir: &Path,
    out: &mut BTreeSet<String>,
    stack: &mut Vec<PathBuf>,
    folders: &mut Option<Vec<(PathBuf, std::fs::Metadata)>>,
) {
    let Ok(canon) = dir.canonicalize() else {
        return;
    };
    if stack.contains(&canon) || out.len() >= MAX_FILES {
        return;
    }
    stack.push(canon);
    if let (Some(folders), Ok(meta)) = (folders.as_mut(), std::fs::metadata(dir)) {
        folders.push((dir.to_path_buf(), meta));
    }
    if let Ok(entries) = std::fs::read_dir(dir) {
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                walk(root, &path, out, stack, folders);
            } else if path.is_file() {
                if let Some(rel) = path.strip_prefix(root).ok().and_then(Path::to_str) {
                    out.insert(rel.to_string());
                }
            }
        }
    }
    stack.pop();
}

/// Salt's `salt.utils.url.parse`: the path of a `salt://` URL and the
/// saltenv its `?saltenv=` query names. `None` when `url` is not `salt://`.
pub fn parse_salt_url(url: &str) -> Option<(String, Option<String>)> {
    let resource = url.strip_prefix("salt://")?;
    if let Some((path, _)) = resource.split_once("?env=") {
        // Salt ignores the old `env` query.
        return Some((path.to_string(), None));
    }
    match resource.split_once("?saltenv=") {
        Some((path, env)) => Some((path.to_string(), Some(env.to_string()))),
        None => Some((resource.to_string(), None)),
    }
}

/// `file_client: local`: `salt://` resolved in `file_roots`.
#[derive(Debug, Clone, Default)]
pub struct LocalFileClient {
    roots: IndexMap<String, Vec<PathBuf>>,
}

impl LocalFileClient {
    pub fn new(roots: IndexMap<String, Vec<PathBuf>>) -> LocalFileClient {
        LocalFileClient { roots }
    }

    /// From the minion's opts (`file_roots`).
    pub fn from_opts(opts: &Map) -> LocalFileClient {
        LocalFileClient::new(brine_compile::opts::roots(opts, "file_roots"))
    }

    /// The root folders of `saltenv` (`__env__` roots filled in).
    fn env_dirs(&self, saltenv: &str) -> Vec<PathBuf> {
        match self.roots.get(saltenv) {
            Some(d) => d.clone(),
            None => self
                .roots
                .get("__env__")
                .into_iter()
                .flatten()
                .map(|r| PathBuf::from(r.to_string_lossy().replace("__env__", saltenv)))
                .collect(),
        }
    }

    /// The file `rel` (a path relative to the roots) in `saltenv`.
    pub fn find_file(&self, rel: &str, saltenv: &str) -> Option<PathBuf> {
        let rel = normpath(rel);
        // Absolute paths and paths climbing out of the roots are never served.
        if rel.starts_with('/') || rel == ".." || rel.starts_with("../") {
            return None;
        }
        let (dirs, templated) = match self.roots.get(saltenv) {
            Some(d) => (d, false),
            None => (self.roots.get("__env__")?, true),
        };
        dirs.iter().find_map(|root| {
            let root = if templated {
                PathBuf::from(root.to_string_lossy().replace("__env__", saltenv))
            } else {
                root.clone()
            };
            let full = root.join(&rel);
            (under(&root, &full) && full.is_file()).then_some(full)
        })
    }
}

/// Whether `full` stays inside `root` once both are normalized (Salt's
/// `clean_path(root, full, subdir=True)` without resolving links).
fn under(root: &Path, full: &Path) -> bool {
    let root = normpath(&root.to_string_lossy());
    let full = normpath(&full.to_string_lossy());
    full.strip_prefix(&root)
        .is_some_and(|rest| rest.starts_with('/') || root.ends_with('/'))
}

/// Python's `posixpath.normpath`.
fn normpath(path: &str) -> String {
    crate::posixpath::normpath(path)
}

impl FileClient for LocalFileClient {
    fn cache_file(&self, url: &str, saltenv: &str) -> Result<PathBuf, FileClientError> {
        let not_found = || FileClientError::NotFound {
            url: url.to_string(),
            saltenv: saltenv.to_string(),
        };
        let Some((path, env)) = parse_salt_url(url) else {
            // A local path or file:// URL is its own cache (as in Salt).
            let local = url.strip_prefix("file://").unwrap_or(url);
            let p = PathBuf::from(local);
            return if p.is_absolute() && p.is_file() {
                Ok(p)
            } else {
                Err(not_found())
            };
        };
        let env = env.unwrap_or_else(|| saltenv.to_string());
        self.find_file(&path, &env).ok_or_else(not_found)
    }

    fn file_list(&self, saltenv: &str, prefix: &str) -> Result<Vec<String>, FileClientError> {
        Ok(list_files(&self.env_dirs(saltenv), prefix))
    }

    fn dir_list(&self, saltenv: &str, prefix: &str) -> Result<Vec<String>, FileClientError> {
        Ok(list_dirs(&self.env_dirs(saltenv), prefix))
    }

    fn symlink_list(
        &self,
        saltenv: &str,
        prefix: &str,
    ) -> Result<Vec<(String, String)>, FileClientError> {
        Ok(list_symlinks(&self.env_dirs(saltenv), prefix))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn client(dir: &Path) -> LocalFileClient {
        let mut roots = IndexMap::new();
        roots.insert("base".to_string(), vec![dir.join("base")]);
        roots.insert("dev".to_string(), vec![dir.join("dev"), dir.join("base")]);
        LocalFileClient::new(roots)
    }

    #[test]
    fn resolves_in_roots_and_saltenv_query() {
        let tmp = tempfile::tempdir().unwrap();
        for (p, t) in [
            ("base/a.txt", "base"),
            ("dev/a.txt", "dev"),
            ("base/only.txt", "x"),
            ("secret", "s"),
        ] {
            let f = tmp.path().join(p);
            std::fs::create_dir_all(f.parent().unwrap()).unwrap();
            std::fs::write(f, t).unwrap();
        }
        let c = client(tmp.path());
        let read = |url: &str, env: &str| {
            c.cache_file(url, env)
                .map(|p| std::fs::read_to_string(p).unwrap())
                .map_err(|e| e.to_string())
        };
        assert_eq!(read("salt://a.txt", "base").unwrap(), "base");
        assert_eq!(read("salt://a.txt", "dev").unwrap(), "dev");
        assert_eq!(read("salt://a.txt?saltenv=dev", "base").unwrap(), "dev");
        assert_eq!(read("salt://only.txt?saltenv=dev", "base").unwrap(), "x");
        assert_eq!(read("salt://./x/../a.txt", "base").unwrap(), "base");
        // Never outside the roots, never absolute, never an unknown env.
        assert_eq!(
            read("salt://../secret", "base").unwrap_err(),
            "Source file salt://../secret not found in saltenv 'base'"
        );
        assert!(read("salt:///etc/passwd", "base").is_err());
        assert!(read("salt://a.txt", "prod").is_err());
        assert!(read("salt://nope", "base").is_err());
    }

    #[test]
    fn env_placeholder_roots() {
        let tmp = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(tmp.path().join("qa")).unwrap();
        std::fs::write(tmp.path().join("qa/f"), "qa").unwrap();
        let mut roots = IndexMap::new();
        roots.insert("__env__".to_string(), vec![tmp.path().join("__env__")]);
        let c = LocalFileClient::new(roots);
        let p = c.cache_file("salt://f", "qa").unwrap();
        assert_eq!(std::fs::read_to_string(p).unwrap(), "qa");
    }

    /// A client that only lists files, as the master's does.
    struct ListsOnly(Vec<String>);
    impl FileClient for ListsOnly {
        fn cache_file(&self, url: &str, saltenv: &str) -> Result<PathBuf, FileClientError> {
            Err(FileClientError::NotFound {
                url: url.into(),
                saltenv: saltenv.into(),
            })
        }
        fn file_list(&self, _: &str, prefix: &str) -> Result<Vec<String>, FileClientError> {
            Ok(self
                .0
                .iter()
                .filter(|f| f.starts_with(prefix))
                .cloned()
                .collect())
        }
    }

    #[test]
    fn folders_from_files_and_from_the_roots() {
        let fc = ListsOnly(vec!["a/b/c.txt".into(), "a/d.txt".into(), "top".into()]);
        assert_eq!(fc.dir_list("base", "").unwrap(), ["a", "a/b"]);
        assert_eq!(fc.dir_list("base", "a/").unwrap(), ["a/b"]);
        assert!(fc.symlink_list("base", "").unwrap().is_empty());
        // The roots themselves: empty folders and links too.
        let tmp = tempfile::tempdir().unwrap();
        let base = tmp.path().join("base");
        std::fs::create_dir_all(base.join("t/empty")).unwrap();
        std::fs::write(base.join("t/f"), "x").unwrap();
        std::os::unix::fs::symlink("f", base.join("t/l")).unwrap();
        std::os::unix::fs::symlink("/etc/passwd", base.join("t/out")).unwrap();
        let c = client(tmp.path());
        assert_eq!(c.dir_list("base", "t").unwrap(), ["t", "t/empty"]);
        assert_eq!(
            c.symlink_list("base", "t/").unwrap(),
            [("t/l".to_string(), "f".to_string())]
        );
        // Cached into cachedir/files/<saltenv>, once per content.
        let cache = tmp.path().join("cache");
        let p = cache_into(&c, &cache, "salt://t/f", "base")
            .unwrap()
            .unwrap();
        assert_eq!(p, cache.join("files/base/t/f"));
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "x");
        assert_eq!(cache_into(&c, &cache, "salt://nope", "base").unwrap(), None);
        assert_eq!(cache_into(&c, &cache, "salt://../x", "base").unwrap(), None);
    }

    #[test]
    fn url_parsing() {
        assert_eq!(
            parse_salt_url("salt://a/b?saltenv=x"),
            Some(("a/b".into(), Some("x".into())))
        );
        assert_eq!(
            parse_salt_url("salt://a/b?env=x"),
            Some(("a/b".into(), None))
        );
        assert_eq!(parse_salt_url("/a/b"), None);
    }
}
