//! Key files as they sit in a `pki_dir`, and the checks every key-store
//! path goes through.
//!
//! Formats (text, one `label: base64` line each, standard base64 with
//! padding; blank lines and trailing whitespace ignored, anything else is an
//! error):
//!
//! Public key file (`master.pub`, `minion.pub`, `minion_master.pub`, and the
//! files under `minions*/` named by minion id):
//! ```text
//! ed25519: <32 bytes>
//! x25519: <32 bytes>
//! ```
//! Private key file (`master.key`, `minion.key`; mode 0600):
//! ```text
//! ed25519-secret: <32 bytes>
//! x25519-secret: <32 bytes>
//! ```

use crate::crypto::{KeyPair, PublicKeys};
use base64::engine::general_purpose::STANDARD as B64;
use base64::Engine;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Longest minion id accepted (a file name on common file systems).
pub const MAX_ID_LEN: usize = 255;

#[derive(Debug, thiserror::Error)]
pub enum KeyFileError {
    #[error("{path}: cannot read key file: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path}: cannot write key file: {source}")]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path}: line {line}: {problem}")]
    Format {
        path: PathBuf,
        line: usize,
        problem: String,
    },
    #[error("{path}: missing '{label}:' line")]
    Missing { path: PathBuf, label: &'static str },
    #[error("{path}: {source}")]
    BadKey {
        path: PathBuf,
        source: crate::crypto::CryptoError,
    },
    #[error(
        "{path}: private key file is readable by group or others (mode {mode:o}); it must be 0600"
    )]
    Permissions { path: PathBuf, mode: u32 },
    #[error("{0}")]
    Crypto(#[from] crate::crypto::CryptoError),
}

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum InvalidId {
    #[error("minion id is empty")]
    Empty,
    #[error("minion id {0:?} is longer than {MAX_ID_LEN} bytes")]
    TooLong(String),
    #[error("minion id {0:?} contains '/', '\\' or a control character")]
    BadChar(String),
    #[error("minion id {0:?} is '.', '..' or starts with '.' (hidden key files are ignored)")]
    Dot(String),
}

/// Check that a minion id is safe to use as a file name inside a key
/// directory. Salt refuses ids with `/`, `\` or NUL and any id that would
/// resolve outside `pki_dir`; we also refuse control characters and a leading
/// dot (salt-key skips dot files, so such a key could never be listed).
pub fn validate_id(id: &str) -> Result<(), InvalidId> {
    if id.is_empty() {
        return Err(InvalidId::Empty);
    }
    if id.len() > MAX_ID_LEN {
        return Err(InvalidId::TooLong(id.chars().take(40).collect()));
    }
    if id.chars().any(|c| c == '/' || c == '\\' || c.is_control()) {
        return Err(InvalidId::BadChar(id.to_string()));
    }
    if id.starts_with('.') {
        return Err(InvalidId::Dot(id.to_string()));
    }
    Ok(())
}

fn line_value<'a>(
    path: &Path,
    text: &'a str,
    labels: [&'static str; 2],
) -> Result<[&'a str; 2], KeyFileError> {
    let mut found: [Option<&str>; 2] = [None, None];
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if line.is_empty() {
            continue;
        }
        let format_err = |problem: String| KeyFileError::Format {
            path: path.to_path_buf(),
            line: i + 1,
            problem,
        };
        let (label, value) = line
            .split_once(':')
            .ok_or_else(|| format_err("expected 'label: base64'".into()))?;
        let slot = labels
            .iter()
            .position(|l| *l == label.trim())
            .ok_or_else(|| format_err(format!("unknown label '{}'", label.trim())))?;
        if found[slot].is_some() {
            return Err(format_err(format!("'{}' given twice", labels[slot])));
        }
        found[slot] = Some(value.trim());
    }
    let [a, b] = found;
    let a = a.ok_or(KeyFileError::Missing {
        path: path.to_path_buf(),
        label: labels[0],
    })?;
    let b = b.ok_or(KeyFileError::Missing {
        path: path.to_path_buf(),
        label: labels[1],
    })?;
    Ok([a, b])
}

fn decode32(path: &Path, label: &str, value: &str) -> Result<[u8; 32], KeyFileError> {
    let bytes = B64.decode(value).map_err(|e| KeyFileError::Format {
        path: path.to_path_buf(),
        line: 0,
        problem: format!("'{label}' is not valid base64: {e}"),
    })?;
    <[u8; 32]>::try_from(bytes.as_slice()).map_err(|_| KeyFileError::Format {
        path: path.to_path_buf(),
        line: 0,
        problem: format!("'{label}' must be 32 bytes, found {}", bytes.len()),
    })
}

/// Text of a public key file.
pub fn public_to_text(keys: &PublicKeys) -> String {
    format!(
        "ed25519: {}\nx25519: {}\n",
        B64.encode(keys.ed25519.as_slice()),
        B64.encode(keys.x25519.as_slice())
    )
}

/// Parse a public key file's text (`path` is for error messages). The
/// ed25519 half must be a valid curve point.
pub fn public_from_text(path: &Path, text: &str) -> Result<PublicKeys, KeyFileError> {
    let [ed, x] = line_value(path, text, ["ed25519", "x25519"])?;
    let keys = PublicKeys::new(decode32(path, "ed25519", ed)?, decode32(path, "x25519", x)?);
    keys.validate().map_err(|source| KeyFileError::BadKey {
        path: path.to_path_buf(),
        source,
    })?;
    Ok(keys)
}

/// Text of a private key file.
pub fn secret_to_text(kp: &KeyPair) -> String {
    let (ed, x) = kp.secret_bytes();
    format!(
        "ed25519-secret: {}\nx25519-secret: {}\n",
        B64.encode(ed),
        B64.encode(x)
    )
}

fn secret_from_text(path: &Path, text: &str) -> Result<KeyPair, KeyFileError> {
    let [ed, x] = line_value(path, text, ["ed25519-secret", "x25519-secret"])?;
    Ok(KeyPair::from_secret_bytes(
        decode32(path, "ed25519-secret", ed)?,
        decode32(path, "x25519-secret", x)?,
    ))
}

fn read_text(path: &Path) -> Result<String, KeyFileError> {
    std::fs::read_to_string(path).map_err(|source| KeyFileError::Read {
        path: path.to_path_buf(),
        source,
    })
}

/// Read a public key file.
pub fn read_public(path: &Path) -> Result<PublicKeys, KeyFileError> {
    public_from_text(path, &read_text(path)?)
}

/// Read a private key file, refusing one that group or others can read
/// (like ssh does).
pub fn read_private(path: &Path) -> Result<KeyPair, KeyFileError> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let meta = std::fs::metadata(path).map_err(|source| KeyFileError::Read {
            path: path.to_path_buf(),
            source,
        })?;
        let mode = meta.permissions().mode() & 0o777;
        if mode & 0o077 != 0 {
            return Err(KeyFileError::Permissions {
                path: path.to_path_buf(),
                mode,
            });
        }
    }
    secret_from_text(path, &read_text(path)?)
}

/// Write `text` to `path` atomically (temporary file in the same directory,
/// then rename) with the given mode.
pub fn write_atomic(path: &Path, text: &str, mode: u32) -> Result<(), KeyFileError> {
    let werr = |source| KeyFileError::Write {
        path: path.to_path_buf(),
        source,
    };
    let dir = path.parent().unwrap_or(Path::new("."));
    let mut rnd = [0u8; 6];
    crate::crypto::fill_random(&mut rnd)?;
    // Not named after the file: a minion id may take all 255 bytes a
    // file name has. A dot file, so key listings skip it.
    let tmp = dir.join(format!(
        ".tmp.{}",
        rnd.iter().map(|b| format!("{b:02x}")).collect::<String>()
    ));
    let mut opts = std::fs::OpenOptions::new();
    opts.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        // The mode is set at creation, so a private key is never readable
        // by others, not even for an instant.
        opts.mode(mode);
    }
    #[cfg(not(unix))]
    let _ = mode;
    let result = (|| {
        let mut f = opts.open(&tmp)?;
        f.write_all(text.as_bytes())?;
        f.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result.map_err(werr)
}

/// Write a public key file (mode 0644).
pub fn write_public(path: &Path, keys: &PublicKeys) -> Result<(), KeyFileError> {
    write_atomic(path, &public_to_text(keys), 0o644)
}

/// Write a private key file (mode 0600).
pub fn write_private(path: &Path, kp: &KeyPair) -> Result<(), KeyFileError> {
    write_atomic(path, &secret_to_text(kp), 0o600)
}

/// Load `<dir>/<name>.key`, or create it and `<dir>/<name>.pub` (and `dir`,
/// mode 0700) when it does not exist yet — what a daemon does on first
/// start. If the `.pub` file is missing or differs from the private key, it
/// is rewritten from the private key.
pub fn load_or_create_pair(dir: &Path, name: &str) -> Result<KeyPair, KeyFileError> {
    let key_path = dir.join(format!("{name}.key"));
    let pub_path = dir.join(format!("{name}.pub"));
    let kp = if key_path.exists() {
        read_private(&key_path)?
    } else {
        create_dir_private(dir)?;
        let kp = KeyPair::generate()?;
        write_private(&key_path, &kp)?;
        kp
    };
    let on_file = read_public(&pub_path).ok();
    if on_file != Some(kp.public()) {
        write_public(&pub_path, &kp.public())?;
    }
    Ok(kp)
}

/// Create `dir` (and parents) with mode 0700 for the leaf if it is new.
pub fn create_dir_private(dir: &Path) -> Result<(), KeyFileError> {
    if dir.is_dir() {
        return Ok(());
    }
    let mut b = std::fs::DirBuilder::new();
    b.recursive(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt;
        b.mode(0o700);
    }
    b.create(dir).map_err(|source| KeyFileError::Write {
        path: dir.to_path_buf(),
        source,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_that_escape_or_hide_are_refused() {
        for ok in ["web1", "web1.example.com", "db_2-x", "ÿ", "a b"] {
            assert_eq!(validate_id(ok), Ok(()), "{ok}");
        }
        assert_eq!(validate_id(""), Err(InvalidId::Empty));
        for bad in [
            "../etc", "a/b", "..", ".", "a\\b", "a\0b", "a\nb", ".hidden",
        ] {
            assert!(validate_id(bad).is_err(), "{bad:?}");
        }
        assert!(matches!(
            validate_id(&"x".repeat(256)),
            Err(InvalidId::TooLong(_))
        ));
        assert_eq!(validate_id(&"x".repeat(255)), Ok(()));
    }

    #[test]
    fn public_file_round_trips_and_rejects_garbage() {
        let p = Path::new("k.pub");
        let keys = KeyPair::generate().unwrap().public();
        let text = public_to_text(&keys);
        assert_eq!(public_from_text(p, &text).unwrap(), keys);
        // Order and blank lines do not matter.
        let mut lines: Vec<&str> = text.lines().collect();
        lines.reverse();
        let shuffled = format!("\n{}\n\n", lines.join("\n  \n"));
        assert_eq!(public_from_text(p, &shuffled).unwrap(), keys);

        for bad in [
            "",
            "ed25519: AAAA\n",
            "nonsense\n",
            "ed25519: !!!\nx25519: AAAA\n",
            "foo: AAAA\n",
        ] {
            assert!(public_from_text(p, bad).is_err(), "{bad:?}");
        }
        let twice = format!("{text}{}", text.lines().next().unwrap());
        assert!(public_from_text(p, &twice).is_err());
        let short = "ed25519: AAAA\nx25519: AAAA\n";
        let err = public_from_text(p, short).unwrap_err().to_string();
        assert!(err.contains("must be 32 bytes"), "{err}");
    }

    #[test]
    fn create_then_load_pair_with_private_modes() {
        let td = tempfile::tempdir().unwrap();
        let dir = td.path().join("pki/master");
        let kp = load_or_create_pair(&dir, "master").unwrap();
        let again = load_or_create_pair(&dir, "master").unwrap();
        assert_eq!(kp.public(), again.public());
        assert_eq!(read_public(&dir.join("master.pub")).unwrap(), kp.public());
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode(&dir.join("master.key")), 0o600);
            assert_eq!(mode(&dir.join("master.pub")), 0o644);
            assert_eq!(mode(&dir), 0o700);
            // A private key readable by others is refused.
            std::fs::set_permissions(
                dir.join("master.key"),
                std::fs::Permissions::from_mode(0o644),
            )
            .unwrap();
            assert!(matches!(
                read_private(&dir.join("master.key")),
                Err(KeyFileError::Permissions { mode: 0o644, .. })
            ));
        }
        // No temporary files are left behind.
        let names: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        assert_eq!(names.len(), 2, "{names:?}");
    }

    #[test]
    fn missing_pub_is_rewritten_from_key() {
        let td = tempfile::tempdir().unwrap();
        let kp = load_or_create_pair(td.path(), "minion").unwrap();
        std::fs::write(td.path().join("minion.pub"), "garbage").unwrap();
        load_or_create_pair(td.path(), "minion").unwrap();
        assert_eq!(
            read_public(&td.path().join("minion.pub")).unwrap(),
            kp.public()
        );
    }
}
