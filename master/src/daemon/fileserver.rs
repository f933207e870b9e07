//! `salt://` files from the master's `file_roots` (Salt's `roots`
//! fileserver backend): a file's hash and size, its bytes in chunks (sealed
//! to the asking minion), and the list of files under a prefix.

use brine_compile::opts;
use brine_compile::roots::Roots;
use brine_core::Map;
use brine_protocol::crypto::{Nonce, PublicKeys};
use brine_protocol::messages::{
    aad, seal_data, ErrorCode, ErrorReply, FileQuery, FileReply, FileRequest, ReplyBody,
    MAX_FILE_CHUNK,
};
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

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
    req: &FileRequest,
    request_nonce: &Nonce,
    keys: &PublicKeys,
) -> ReplyBody {
    let roots = Roots::new(opts::roots(master_opts, "file_roots"));
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
            paths: file_list(&roots, &req.saltenv, rel),
        }),
        FileQuery::Hash { hash_type } => {
            let Some(path) = roots.find_file(&req.saltenv, rel) else {
                return ReplyBody::File(FileReply::NotFound);
            };
            match hash_file(&path, hash_type) {
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
            let Some(path) = roots.find_file(&req.saltenv, rel) else {
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
    brine_runtime::state::fileclient::hash_path(path, hash_type)
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

/// Salt's `file_list` with a prefix: every file of `saltenv` (all its
/// roots, symlinks followed) whose relative path starts with `prefix`,
/// sorted.
pub fn file_list(roots: &Roots, saltenv: &str, prefix: &str) -> Vec<String> {
    brine_runtime::state::fileclient::list_files(roots.dirs(saltenv), prefix)
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
        let mut o = Map::new();
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

        let ReplyBody::File(FileReply::List { paths }) =
            handle(&o, &req("web", FileQuery::List), &nonce, &kp.public())
        else {
            panic!()
        };
        assert_eq!(paths, vec!["web/files/big", "web/init.sls"]);

        let mut got = Vec::new();
        let mut offset = 0;
        loop {
            let r = handle(
                &o,
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
    fn unsafe_and_missing_paths() {
        let (_td, o) = setup();
        let kp = KeyPair::generate().unwrap();
        for bad in ["../etc/passwd", "web/../../x", "a\0b"] {
            let r = handle(
                &o,
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
}
