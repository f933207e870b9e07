//! `salt://` files from the master (Salt's remote file client): the
//! master's hash first; a cached copy with that hash is used as is, else
//! the file is read in chunks (sealed to this minion), checked against the
//! hash, and cached under `cachedir/files/<saltenv>/<path>`.

use super::{MasterClient, RequestError};
use brine_protocol::messages::{
    aad, open_data, FileQuery, FileReply, FileRequest, ReplyBody, RequestBody, DEFAULT_FILE_CHUNK,
};
use brine_states::fileclient::{hash_path, parse_salt_url, FileClient, FileClientError};
use brine_states::modules::file::fsutil::normpath;
use sha2::{Digest, Sha256};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The hash asked of the master (Salt's default `hash_type`).
const HASH_TYPE: &str = "sha256";
const FILE_TIMEOUT: Duration = Duration::from_secs(60);

/// `cachedir/files`, the cache of fetched `salt://` files.
pub const CACHE_DIR: &str = "files";

/// The master's file server, for state functions.
pub struct RemoteFileClient {
    client: MasterClient,
    cache: PathBuf,
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// SHA-256 of a local file, `None` when it cannot be read.
fn file_sha256(path: &Path) -> Option<String> {
    hash_path(path, HASH_TYPE).ok().flatten().map(|(h, _)| h)
}

/// A relative path inside the roots: normalized, never absolute, never
/// climbing out.
fn clean_rel(path: &str) -> Option<String> {
    let rel = normpath(path.trim_start_matches('/'));
    if rel == "." || rel == ".." || rel.starts_with("../") || rel.starts_with('/') {
        return None;
    }
    Some(rel)
}

/// A saltenv usable as one folder name.
fn clean_env(env: &str) -> bool {
    !env.is_empty() && env != "." && env != ".." && !env.contains('/') && !env.contains('\0')
}

impl RemoteFileClient {
    pub fn new(client: MasterClient, cachedir: &Path) -> RemoteFileClient {
        RemoteFileClient {
            client,
            cache: cachedir.join(CACHE_DIR),
        }
    }

    fn other(e: impl std::fmt::Display) -> FileClientError {
        FileClientError::Other(e.to_string())
    }

    fn ask(
        &self,
        saltenv: &str,
        path: &str,
        query: FileQuery,
    ) -> Result<(Vec<u8>, FileReply), RequestError> {
        let (req, body) = self.client.request_blocking(
            RequestBody::File(FileRequest {
                id: self.client.id.clone(),
                saltenv: saltenv.to_string(),
                path: path.to_string(),
                query,
            }),
            FILE_TIMEOUT,
        )?;
        match body {
            ReplyBody::File(f) => Ok((req.nonce.to_vec(), f)),
            _ => Err(RequestError::Unexpected { what: "file" }),
        }
    }

    /// The master's hash and size of `path`, `None` when it has no such file.
    fn hash(&self, saltenv: &str, path: &str) -> Result<Option<(String, u64)>, FileClientError> {
        let (_, reply) = self
            .ask(
                saltenv,
                path,
                FileQuery::Hash {
                    hash_type: HASH_TYPE.into(),
                },
            )
            .map_err(Self::other)?;
        match reply {
            FileReply::Hash {
                hash_type,
                hsum,
                size,
            } if hash_type == HASH_TYPE => Ok(Some((hsum.to_ascii_lowercase(), size))),
            FileReply::Hash { hash_type, .. } => Err(Self::other(format!(
                "the master hashed salt://{path} with {hash_type}, not {HASH_TYPE}"
            ))),
            FileReply::NotFound => Ok(None),
            _ => Err(Self::other("unexpected answer to a file hash request")),
        }
    }

    /// Download `path` into `dest`, checking it against `hsum`/`size`.
    fn download(
        &self,
        saltenv: &str,
        path: &str,
        hsum: &str,
        size: u64,
        dest: &Path,
    ) -> Result<(), FileClientError> {
        let dir = dest.parent().unwrap_or(&self.cache);
        std::fs::create_dir_all(dir).map_err(|e| Self::other(format!("{}: {e}", dir.display())))?;
        let mut tmp = tempfile::Builder::new()
            .prefix(".fetch")
            .tempfile_in(dir)
            .map_err(|e| Self::other(format!("{}: {e}", dir.display())))?;
        let mut h = Sha256::new();
        let mut offset = 0u64;
        loop {
            let (nonce, reply) = self
                .ask(
                    saltenv,
                    path,
                    FileQuery::Read {
                        offset,
                        len: DEFAULT_FILE_CHUNK,
                    },
                )
                .map_err(Self::other)?;
            let (at, eof, data) = match reply {
                FileReply::Chunk {
                    offset: at,
                    eof,
                    data,
                    ..
                } => (at, eof, data),
                FileReply::NotFound => {
                    return Err(FileClientError::NotFound {
                        url: format!("salt://{path}"),
                        saltenv: saltenv.to_string(),
                    })
                }
                _ => return Err(Self::other("unexpected answer to a file read request")),
            };
            if at != offset {
                return Err(Self::other(format!(
                    "the master sent salt://{path} from offset {at}, not {offset}"
                )));
            }
            let nonce: [u8; 16] = nonce.try_into().unwrap_or([0; 16]);
            let bytes: serde_bytes::ByteBuf =
                open_data(&self.client.key, &data, &aad::file(&self.client.id, &nonce))
                    .map_err(Self::other)?;
            offset += bytes.len() as u64;
            if offset > size {
                return Err(Self::other(format!(
                    "salt://{path} is longer than the {size} bytes the master announced"
                )));
            }
            h.update(&bytes);
            tmp.write_all(&bytes)
                .map_err(|e| Self::other(format!("{}: {e}", dest.display())))?;
            if eof {
                break;
            }
            if bytes.is_empty() {
                return Err(Self::other(format!("no progress reading salt://{path}")));
            }
        }
        let got = hex(&h.finalize());
        if got != hsum {
            return Err(Self::other(format!(
                "salt://{path} in saltenv '{saltenv}' does not match the master's hash \
                 (sha256 {got}, expected {hsum}); not cached"
            )));
        }
        tmp.persist(dest)
            .map_err(|e| Self::other(format!("{}: {}", dest.display(), e.error)))?;
        Ok(())
    }
}

impl FileClient for RemoteFileClient {
    fn cache_file(&self, url: &str, saltenv: &str) -> Result<PathBuf, FileClientError> {
        let not_found = |env: &str| FileClientError::NotFound {
            url: url.to_string(),
            saltenv: env.to_string(),
        };
        let Some((path, env)) = parse_salt_url(url) else {
            // A local path or file:// URL is its own cache (as in Salt).
            let p = PathBuf::from(url.strip_prefix("file://").unwrap_or(url));
            return if p.is_absolute() && p.is_file() {
                Ok(p)
            } else {
                Err(not_found(saltenv))
            };
        };
        let env = env.unwrap_or_else(|| saltenv.to_string());
        let Some(rel) = clean_rel(&path) else {
            return Err(not_found(&env));
        };
        if !clean_env(&env) {
            return Err(not_found(&env));
        }
        let dest = self.cache.join(&env).join(&rel);
        // A file changed on the master between the hash and the read fails
        // the check once; asking again gets the new hash.
        let mut last = None;
        for _ in 0..2 {
            let Some((hsum, size)) = self.hash(&env, &rel)? else {
                return Err(not_found(&env));
            };
            if file_sha256(&dest).as_deref() == Some(hsum.as_str()) {
                return Ok(dest);
            }
            match self.download(&env, &rel, &hsum, size, &dest) {
                Ok(()) => return Ok(dest),
                Err(e) => last = Some(e),
            }
        }
        Err(last.unwrap_or_else(|| not_found(&env)))
    }

    fn file_list(&self, saltenv: &str, prefix: &str) -> Result<Vec<String>, FileClientError> {
        if !clean_env(saltenv) {
            return Ok(Vec::new());
        }
        let (_, reply) = self
            .ask(saltenv, prefix, FileQuery::List)
            .map_err(Self::other)?;
        match reply {
            FileReply::List { paths } => Ok(paths),
            FileReply::NotFound => Ok(Vec::new()),
            _ => Err(Self::other("unexpected answer to a file list request")),
        }
    }

    fn hash_file(&self, url: &str, saltenv: &str) -> Result<Option<String>, FileClientError> {
        let Some((path, env)) = parse_salt_url(url) else {
            let p = PathBuf::from(url.strip_prefix("file://").unwrap_or(url));
            return Ok(p.is_file().then(|| file_sha256(&p)).flatten());
        };
        let env = env.unwrap_or_else(|| saltenv.to_string());
        match (clean_rel(&path), clean_env(&env)) {
            (Some(rel), true) => Ok(self.hash(&env, &rel)?.map(|(h, _)| h)),
            _ => Ok(None),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::daemon::link::Link;
    use crate::daemon::testutil::{FakeMaster, Handler};
    use brine_protocol::messages::{seal_data, Reply};
    use std::collections::HashMap;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::{Arc, Mutex};

    /// A fake master's file server: `files` by (saltenv, path); `lie`
    /// makes it announce the hash of other content.
    struct Files {
        files: Mutex<HashMap<(String, String), Vec<u8>>>,
        lie: AtomicUsize,
        reads: AtomicUsize,
    }

    fn handler(fs: Arc<Files>) -> Handler {
        Arc::new(move |_, req, minion_x| {
            let RequestBody::File(f) = &req.msg else {
                return None;
            };
            let files = fs.files.lock().unwrap();
            if matches!(f.query, FileQuery::List) {
                let mut paths: Vec<String> = files
                    .keys()
                    .filter(|(env, p)| *env == f.saltenv && p.starts_with(&f.path))
                    .map(|(_, p)| p.clone())
                    .collect();
                paths.sort();
                return Some(Reply::to(req, ReplyBody::File(FileReply::List { paths })));
            }
            let Some(data) = files.get(&(f.saltenv.clone(), f.path.clone())) else {
                return Some(Reply::to(req, ReplyBody::File(FileReply::NotFound)));
            };
            let body = match &f.query {
                FileQuery::Hash { hash_type } => {
                    let announced = if fs.lie.load(Ordering::SeqCst) > 0 {
                        b"something else".to_vec()
                    } else {
                        data.clone()
                    };
                    FileReply::Hash {
                        hash_type: hash_type.clone(),
                        hsum: hex(&Sha256::digest(&announced)),
                        size: data.len() as u64,
                    }
                }
                FileQuery::Read { offset, .. } => {
                    fs.reads.fetch_add(1, Ordering::SeqCst);
                    // Small chunks, to exercise the loop.
                    let start = (*offset as usize).min(data.len());
                    let end = (start + 4).min(data.len());
                    let chunk = serde_bytes::ByteBuf::from(data[start..end].to_vec());
                    FileReply::Chunk {
                        offset: *offset,
                        size: chunk.len() as u64,
                        eof: end == data.len(),
                        data: seal_data(minion_x, &chunk, &aad::file(&f.id, &req.nonce)).ok()?,
                    }
                }
                FileQuery::List => FileReply::List { paths: vec![] },
            };
            Some(Reply::to(req, ReplyBody::File(body)))
        })
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn fetches_checks_and_caches_salt_urls() {
        let fs = Arc::new(Files {
            files: Mutex::new(HashMap::new()),
            lie: AtomicUsize::new(0),
            reads: AtomicUsize::new(0),
        });
        fs.files.lock().unwrap().insert(
            ("base".into(), "web/nginx.conf".into()),
            b"worker_processes 4;\n".to_vec(),
        );
        fs.files
            .lock()
            .unwrap()
            .insert(("dev".into(), "web/nginx.conf".into()), b"dev\n".to_vec());
        let fake = FakeMaster::start(handler(fs.clone())).await;
        let link = Link::start(fake.addr, Default::default());
        let client = fake.client(&link, "web1");
        let td = tempfile::tempdir().unwrap();
        let cachedir = td.path().to_path_buf();
        let fs2 = fs.clone();
        tokio::task::spawn_blocking(move || {
            let fc = RemoteFileClient::new(client, &cachedir);
            let p = fc.cache_file("salt://web/nginx.conf", "base").unwrap();
            assert_eq!(p, cachedir.join("files/base/web/nginx.conf"));
            assert_eq!(std::fs::read(&p).unwrap(), b"worker_processes 4;\n");
            let reads = fs2.reads.load(Ordering::SeqCst);
            assert_eq!(reads, 5, "20 bytes in 4-byte chunks");
            // Cached with the right hash: no new reads.
            fc.cache_file("salt://web/nginx.conf", "base").unwrap();
            assert_eq!(fs2.reads.load(Ordering::SeqCst), reads);
            // Listing and hashing ask the master, without a download.
            assert_eq!(fc.file_list("base", "web/").unwrap(), ["web/nginx.conf"]);
            assert!(fc.file_list("base", "nope/").unwrap().is_empty());
            assert_eq!(
                fc.hash_file("salt://web/nginx.conf", "base").unwrap(),
                Some(hex(&Sha256::digest(b"worker_processes 4;\n")))
            );
            assert_eq!(fc.hash_file("salt://nope", "base").unwrap(), None);
            assert_eq!(fs2.reads.load(Ordering::SeqCst), reads);
            // ?saltenv= wins over the run's saltenv.
            let p = fc
                .cache_file("salt://web/nginx.conf?saltenv=dev", "base")
                .unwrap();
            assert_eq!(std::fs::read(&p).unwrap(), b"dev\n");
            // Missing files and paths out of the roots are not found.
            for url in ["salt://nope", "salt://../etc/passwd", "salt://web/../../x"] {
                let e = fc.cache_file(url, "base").unwrap_err();
                assert!(matches!(e, FileClientError::NotFound { .. }), "{url}: {e}");
            }
            // The master announces a hash the content does not have: the
            // download is refused and nothing is cached.
            fs2.lie.store(1, Ordering::SeqCst);
            let e = fc.cache_file("salt://web/nginx.conf", "dev").unwrap_err();
            assert!(e.to_string().contains("does not match"), "{e}");
            assert_eq!(
                std::fs::read(cachedir.join("files/dev/web/nginx.conf")).unwrap(),
                b"dev\n"
            );
            let leftovers: Vec<_> = std::fs::read_dir(cachedir.join("files/dev/web"))
                .unwrap()
                .filter_map(Result::ok)
                .map(|e| e.file_name())
                .collect();
            assert_eq!(leftovers.len(), 1, "{leftovers:?}");
        })
        .await
        .unwrap();
    }

    #[test]
    fn paths_stay_inside_the_cache() {
        assert_eq!(clean_rel("a/./b//c").as_deref(), Some("a/b/c"));
        assert_eq!(clean_rel("/a/b").as_deref(), Some("a/b"));
        assert_eq!(clean_rel("a/../../b"), None);
        assert_eq!(clean_rel(".."), None);
        assert_eq!(clean_rel(""), None);
        assert!(clean_env("base"));
        assert!(!clean_env("../x"));
        assert!(!clean_env(""));
    }
}
