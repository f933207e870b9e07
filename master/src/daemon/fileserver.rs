//! `salt://` files from the master's `file_roots` (Salt's `roots`
//! fileserver backend): a file's hash and size, its bytes in chunks (sealed
//! to the asking minion), and the list of files under a prefix.
//!
//! A fleet asks the same questions a thousand times, so hashes and
//! listings are kept ([`FileCache`]) and checked against the disk on every
//! use: a hash against its file's mtime, size and inode, a listing against
//! the mtime of every folder it walked (adding, removing or renaming an
//! entry changes its folder's mtime). A change on disk is seen at once, as
//! Salt's `roots` backend sees it through its mtime map.

use brine_compile::opts;
use brine_compile::roots::Roots;
use brine_core::Map;
use brine_protocol::crypto::{Nonce, PublicKeys};
use brine_protocol::messages::{
    aad, seal_data, ErrorCode, ErrorReply, FileQuery, FileReply, FileRequest, ReplyBody,
    MAX_FILE_CHUNK,
};
use std::collections::HashMap;
use std::io::{Read, Seek, SeekFrom};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::SystemTime;

fn error(code: ErrorCode, message: String) -> ReplyBody {
    ReplyBody::Error(ErrorReply { code, message })
}

/// A path a minion may ask for: relative, no `..`, no NUL. Salt refuses
/// absolute paths and `../` the same way.
fn safe_rel(path: &str) -> Option<&str> {
    let rel = path.trim_start_matches('/');
    if path.contains('\0') || rel.split('/').any(|p| p == "..") {
        return None;
    }
    Some(rel)
}

/// Answer one file request of minion `keys` (its accepted key).
pub fn handle(
    master_opts: &Map,
    cache: &FileCache,
    req: &FileRequest,
    request_nonce: &Nonce,
    keys: &PublicKeys,
) -> ReplyBody {
    let roots = Roots::new(opts::roots(master_opts, "file_roots")).following_links(master_opts);
    let find = |rel: &str| roots.find_file(&req.saltenv, rel);
    let Some(rel) = safe_rel(&req.path) else {
        tracing::warn!(
            "minion {} asked for the unsafe path {:?}; refused",
            req.id,
            req.path
        );
        return error(
            ErrorCode::BadRequest,
            format!("invalid path {:?}", req.path),
        );
    };
    match &req.query {
        FileQuery::List => ReplyBody::File(FileReply::List {
            paths: cache.file_list(&roots, &req.saltenv, rel),
        }),
        FileQuery::Hash { hash_type } => {
            let Some(path) = find(rel) else {
                return ReplyBody::File(FileReply::NotFound);
            };
            match cache.hash(&path, hash_type) {
                Ok(Some((hsum, size))) => ReplyBody::File(FileReply::Hash {
                    hash_type: hash_type.clone(),
                    hsum,
                    size,
                }),
                Ok(None) => error(
                    ErrorCode::BadRequest,
                    format!("unsupported hash_type {hash_type:?}"),
                ),
                Err(e) => read_error(&path, e),
            }
        }
        FileQuery::Read { offset, len } => {
            let Some(path) = find(rel) else {
                return ReplyBody::File(FileReply::NotFound);
            };
            match read_chunk(&path, *offset, (*len).min(MAX_FILE_CHUNK)) {
                Ok((data, size)) => {
                    let got = data.len() as u64;
                    let sealed = seal_data(
                        &keys.x25519,
                        &serde_bytes::ByteBuf::from(data),
                        &aad::file(&req.id, request_nonce),
                    );
                    match sealed {
                        Ok(data) => ReplyBody::File(FileReply::Chunk {
                            offset: *offset,
                            size,
                            eof: offset.saturating_add(got) >= size,
                            data,
                        }),
                        Err(e) => error(ErrorCode::Internal, e.to_string()),
                    }
                }
                Err(e) => read_error(&path, e),
            }
        }
    }
}

fn read_error(path: &Path, e: std::io::Error) -> ReplyBody {
    tracing::error!("fileserver: cannot read {}: {e}", path.display());
    error(ErrorCode::Internal, "the file could not be read".into())
}

/// Hex digest and size of a file, `None` for an unknown hash type.
pub fn hash_file(path: &Path, hash_type: &str) -> std::io::Result<Option<(String, u64)>> {
    brine_states::fileclient::hash_path(path, hash_type)
}

/// The most hashes kept; past it the table starts again (each hash is a
/// file on the master's disk a minion named, so a peer cannot grow it
/// past this).
const MAX_HASHES: usize = 16_384;

/// The most listings kept (one per saltenv of `file_roots`).
const MAX_LISTINGS: usize = 64;

/// Hashes and listings of the file server, each checked against the disk
/// when used (see the module's docs).
#[derive(Default)]
pub struct FileCache {
    hashes: Mutex<HashMap<(PathBuf, String), KnownHash>>,
    listings: Mutex<HashMap<Vec<PathBuf>, Listing>>,
}

/// A file's hash and what it was taken of.
#[derive(Clone)]
struct KnownHash {
    stamp: Stamp,
    hsum: String,
    size: u64,
}

/// What tells a file or folder changed: its mtime (ns), size, inode and
/// device.
#[derive(Clone, Copy, PartialEq, Eq)]
struct Stamp {
    mtime: Option<SystemTime>,
    size: u64,
    ino: u64,
    dev: u64,
}

/// How long after its last change a file or folder is trusted to stay as
/// stamped: the kernel's clock for mtimes is coarse (a tick of a few ms),
/// so a change in the same tick as the stamp would not show (git's "racy"
/// entries, handled the same way).
const SETTLE: std::time::Duration = std::time::Duration::from_secs(2);

impl Stamp {
    fn of(path: &Path) -> Option<Stamp> {
        std::fs::metadata(path).ok().map(|m| Stamp::of_meta(&m))
    }

    fn of_meta(m: &std::fs::Metadata) -> Stamp {
        Stamp {
            mtime: m.modified().ok(),
            size: m.len(),
            ino: m.ino(),
            dev: m.dev(),
        }
    }

    /// Whether the last change is long enough ago for the stamp to tell
    /// every later one.
    fn settled(&self) -> bool {
        self.mtime
            .and_then(|t| SystemTime::now().duration_since(t).ok())
            .is_some_and(|age| age >= SETTLE)
    }
}

/// Every file under some roots, and the folders walked to find them (a
/// root that was missing as `None`, so its creation shows).
struct Listing {
    folders: Vec<(PathBuf, Option<Stamp>)>,
    files: Arc<Vec<String>>,
}

impl std::fmt::Debug for FileCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("FileCache")
    }
}

impl FileCache {
    /// Hex digest and size of a file, `None` for an unknown hash type.
    pub fn hash(&self, path: &Path, hash_type: &str) -> std::io::Result<Option<(String, u64)>> {
        let key = (path.to_path_buf(), hash_type.to_string());
        let stamp = Stamp::of(path);
        let lock = || self.hashes.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(known) = lock().get(&key) {
            if Some(known.stamp) == stamp {
                return Ok(Some((known.hsum.clone(), known.size)));
            }
        }
        let Some((hsum, size)) = hash_file(path, hash_type)? else {
            return Ok(None);
        };
        // Kept only when the file did not change while it was read and its
        // last change is settled; otherwise what was kept is stale.
        let mut hashes = lock();
        match stamp.filter(|s| s.settled() && Some(*s) == Stamp::of(path)) {
            Some(stamp) => {
                if hashes.len() >= MAX_HASHES {
                    hashes.clear();
                }
                let known = KnownHash {
                    stamp,
                    hsum: hsum.clone(),
                    size,
                };
                hashes.insert(key, known);
            }
            None => {
                hashes.remove(&key);
            }
        }
        Ok(Some((hsum, size)))
    }

    /// Salt's `file_list` with a prefix: every file of `saltenv` (all its
    /// roots, symlinks followed) whose relative path starts with `prefix`,
    /// sorted; from the kept listing while none of its folders changed.
    pub fn file_list(&self, roots: &Roots, saltenv: &str, prefix: &str) -> Vec<String> {
        let dirs = roots.dirs(saltenv).to_vec();
        if dirs.is_empty() {
            return Vec::new();
        }
        let lock = || self.listings.lock().unwrap_or_else(|p| p.into_inner());
        let kept = lock().get(&dirs).and_then(|l| {
            let fresh = l
                .folders
                .iter()
                .all(|(dir, stamp)| Stamp::of(dir) == *stamp);
            fresh.then(|| Arc::clone(&l.files))
        });
        let files = match kept {
            Some(files) => files,
            None => {
                // Each folder is stamped before it is read, so a change
                // while walking shows at the next use.
                let (files, walked) = brine_states::fileclient::list_files_walked(&dirs);
                let mut folders: Vec<(PathBuf, Option<Stamp>)> = walked
                    .into_iter()
                    .map(|(d, m)| (d, Some(Stamp::of_meta(&m))))
                    .collect();
                for root in &dirs {
                    if !folders.iter().any(|(d, _)| d == root) {
                        folders.push((root.clone(), None));
                    }
                }
                let files = Arc::new(files);
                if folders.iter().flat_map(|(_, s)| s).all(Stamp::settled) {
                    let mut listings = lock();
                    if listings.len() >= MAX_LISTINGS {
                        listings.clear();
                    }
                    let listing = Listing {
                        folders,
                        files: Arc::clone(&files),
                    };
                    listings.insert(dirs, listing);
                }
                files
            }
        };
        files
            .iter()
            .filter(|p| p.starts_with(prefix))
            .cloned()
            .collect()
    }
}

/// Up to `len` bytes at `offset`, and the file's size.
fn read_chunk(path: &Path, offset: u64, len: u64) -> std::io::Result<(Vec<u8>, u64)> {
    let mut f = std::fs::File::open(path)?;
    let size = f.metadata()?.len();
    f.seek(SeekFrom::Start(offset.min(size)))?;
    let mut data = Vec::new();
    f.take(len).read_to_end(&mut data)?;
    Ok((data, size))
}

#[cfg(test)]
mod tests {
    use super::*;
    use brine_core::Value;
    use brine_protocol::crypto::KeyPair;
    use brine_protocol::messages::open_data;

    fn setup() -> (tempfile::TempDir, Map) {
        let td = tempfile::tempdir().unwrap();
        let base = td.path().join("base");
        std::fs::create_dir_all(base.join("web/files")).unwrap();
        std::fs::write(base.join("web/init.sls"), "a: b\n").unwrap();
        std::fs::write(base.join("web/files/big"), vec![7u8; 300_000]).unwrap();
        std::fs::write(base.join("top.sls"), "base: {}\n").unwrap();
        std::os::unix::fs::symlink(&base, base.join("web/loop")).unwrap();
        let mut o = Map::default();
        o.insert(
            "file_roots".into(),
            Value::from_json(&serde_json::json!({"base": [base.display().to_string()]})),
        );
        (td, o)
    }

    fn req(path: &str, query: FileQuery) -> FileRequest {
        FileRequest {
            id: "web1".into(),
            saltenv: "base".into(),
            path: path.into(),
            query,
        }
    }

    #[test]
    fn hash_list_and_chunked_read() {
        let (_td, o) = setup();
        let kp = KeyPair::generate().unwrap();
        let nonce = [3u8; 16];
        let r = handle(
            &o,
            &FileCache::default(),
            &req(
                "top.sls",
                FileQuery::Hash {
                    hash_type: "sha256".into(),
                },
            ),
            &nonce,
            &kp.public(),
        );
        // sha256 of "base: {}\n", as Python's hashlib gives it.
        let ReplyBody::File(FileReply::Hash { hsum, size, .. }) = r else {
            panic!("{r:?}")
        };
        assert_eq!(size, 9);
        assert_eq!(
            hsum,
            "c79ab27fe6f2b4f1697d48affb118ad52a480137cd1afa91471eb386103d3701"
        );
        let md5 = hash_file(&_td.path().join("base/top.sls"), "md5")
            .unwrap()
            .unwrap();
        assert_eq!(md5.0, "f47184dcd2df211f5af444b1b389eba6");

        let ReplyBody::File(FileReply::List { paths }) = handle(
            &o,
            &FileCache::default(),
            &req("web", FileQuery::List),
            &nonce,
            &kp.public(),
        ) else {
            panic!()
        };
        assert_eq!(paths, vec!["web/files/big", "web/init.sls"]);

        let mut got = Vec::new();
        let mut offset = 0;
        loop {
            let r = handle(
                &o,
                &FileCache::default(),
                &req(
                    "web/files/big",
                    FileQuery::Read {
                        offset,
                        len: 262_144,
                    },
                ),
                &nonce,
                &kp.public(),
            );
            let ReplyBody::File(FileReply::Chunk {
                size, eof, data, ..
            }) = r
            else {
                panic!("{r:?}")
            };
            assert_eq!(size, 300_000);
            let bytes: serde_bytes::ByteBuf =
                open_data(&kp, &data, &aad::file("web1", &nonce)).unwrap();
            offset += bytes.len() as u64;
            got.extend_from_slice(&bytes);
            if eof {
                break;
            }
        }
        assert_eq!(got, vec![7u8; 300_000]);
    }

    #[test]
    fn links_out_of_the_roots_are_served_only_when_followed() {
        let (td, mut o) = setup();
        let base = td.path().join("base");
        let secret = td.path().join("secret");
        std::fs::write(&secret, "s3cret\n").unwrap();
        std::os::unix::fs::symlink(&secret, base.join("web/shadow")).unwrap();
        std::os::unix::fs::symlink(base.join("top.sls"), base.join("web/top-link")).unwrap();
        let kp = KeyPair::generate().unwrap();
        let ask = |o: &Map, path: &str| {
            handle(
                o,
                &FileCache::default(),
                &req(
                    path,
                    FileQuery::Hash {
                        hash_type: "sha256".into(),
                    },
                ),
                &[0; 16],
                &kp.public(),
            )
        };
        assert!(matches!(
            ask(&o, "web/shadow"),
            ReplyBody::File(FileReply::Hash { .. })
        ));
        o.insert("fileserver_followsymlinks".into(), Value::Bool(false));
        assert_eq!(ask(&o, "web/shadow"), ReplyBody::File(FileReply::NotFound));
        // A link that stays in the root is served all the same.
        assert!(matches!(
            ask(&o, "web/top-link"),
            ReplyBody::File(FileReply::Hash { .. })
        ));
    }

    #[test]
    fn unsafe_and_missing_paths() {
        let (_td, o) = setup();
        let kp = KeyPair::generate().unwrap();
        for bad in ["../etc/passwd", "web/../../x", "a\0b"] {
            let r = handle(
                &o,
                &FileCache::default(),
                &req(bad, FileQuery::Read { offset: 0, len: 10 }),
                &[0; 16],
                &kp.public(),
            );
            assert!(
                matches!(
                    r,
                    ReplyBody::Error(ErrorReply {
                        code: ErrorCode::BadRequest,
                        ..
                    })
                ),
                "{bad}: {r:?}"
            );
        }
        let r = handle(
            &o,
            &FileCache::default(),
            &req(
                "nope",
                FileQuery::Hash {
                    hash_type: "sha256".into(),
                },
            ),
            &[0; 16],
            &kp.public(),
        );
        assert_eq!(r, ReplyBody::File(FileReply::NotFound));
        let r = handle(
            &o,
            &FileCache::default(),
            &req(
                "top.sls",
                FileQuery::Hash {
                    hash_type: "crc".into(),
                },
            ),
            &[0; 16],
            &kp.public(),
        );
        assert!(matches!(r, ReplyBody::Error(_)));
    }

    /// Set a path's mtime `secs` seconds in the past.
    fn age(path: &Path, secs: u64) {
        let when = SystemTime::now() - std::time::Duration::from_secs(secs);
        let f = std::fs::File::options().read(true).open(path).unwrap();
        f.set_modified(when).unwrap();
    }

    /// Kept hashes and listings answer as the disk does after a change:
    /// edited, added, removed and recreated files, settled or not.
    #[test]
    fn kept_answers_follow_the_disk() {
        let (td, o) = setup();
        let base = td.path().join("base");
        let roots = Roots::new(opts::roots(&o, "file_roots"));
        let cache = FileCache::default();
        let top = base.join("top.sls");
        for p in [&base, &base.join("web"), &base.join("web/files"), &top] {
            age(p, 60);
        }
        let sha = |c: &FileCache| c.hash(&top, "sha256").unwrap().unwrap();
        let first = sha(&cache);
        assert_eq!(
            cache.hashes.lock().unwrap().len(),
            1,
            "a settled file's hash is kept"
        );
        assert_eq!(sha(&cache), first);
        // Same size, new content and mtime.
        std::fs::write(&top, "base: []\n").unwrap();
        let second = sha(&cache);
        assert_ne!(second, first);
        assert_eq!(second, hash_file(&top, "sha256").unwrap().unwrap());
        // Just changed: not kept, so an edit in the same clock tick shows.
        assert_eq!(cache.hashes.lock().unwrap().len(), 0);
        std::fs::write(&top, "base: {}\n").unwrap();
        assert_eq!(sha(&cache), first);

        let listed = |c: &FileCache| c.file_list(&roots, "base", "web");
        assert_eq!(listed(&cache), ["web/files/big", "web/init.sls"]);
        assert_eq!(
            cache.listings.lock().unwrap().len(),
            1,
            "a settled tree's listing is kept"
        );
        // A file added two folders down, then removed.
        std::fs::write(base.join("web/files/new"), "x").unwrap();
        assert_eq!(
            listed(&cache),
            ["web/files/big", "web/files/new", "web/init.sls"]
        );
        std::fs::remove_file(base.join("web/files/new")).unwrap();
        assert_eq!(listed(&cache), ["web/files/big", "web/init.sls"]);
        // A whole folder gone and an unknown saltenv.
        std::fs::remove_dir_all(base.join("web/files")).unwrap();
        assert_eq!(listed(&cache), ["web/init.sls"]);
        assert!(cache.file_list(&roots, "nope", "").is_empty());
        // A root missing at first, created later.
        let mut o2 = o.clone();
        let later = td.path().join("later");
        o2.insert(
            "file_roots".into(),
            Value::from_json(&serde_json::json!({"base": [later.display().to_string()]})),
        );
        let roots2 = Roots::new(opts::roots(&o2, "file_roots"));
        assert!(cache.file_list(&roots2, "base", "").is_empty());
        std::fs::create_dir_all(&later).unwrap();
        std::fs::write(later.join("f"), "x").unwrap();
        assert_eq!(cache.file_list(&roots2, "base", ""), ["f"]);
    }
}
