//! Salt's `file.get_source_sum` and `file.extract_hash`: the hash a source
//! must have, from a hash expression (`<type>=<hex>`, a bare digest) or a
//! file of hashes (a local path, `salt://`, `file://`). The `file.managed`
//! state and the `file.get_source_sum` execution function both call this.

use super::fsutil;
use super::remote::Fetcher;
use std::path::{Path, PathBuf};

/// The hash a source must have (`source_sum` in Salt).
#[derive(Debug, Clone)]
pub struct SourceSum {
    pub hash_type: String,
    pub hsum: Option<String>,
}

/// Salt's hash types and the length of their hex digests.
const HASHES: &[(&str, usize)] = &[
    ("sha512", 128),
    ("sha384", 96),
    ("sha256", 64),
    ("sha224", 56),
    ("sha1", 40),
    ("md5", 32),
];

/// Where Salt can fetch a file of hashes from.
const HASH_FILE_PROTOS: &[&str] = &["salt", "file", "http", "https", "ftp", "swift", "s3"];

fn type_of_len(len: usize) -> Option<&'static str> {
    HASHES.iter().find(|(_, l)| *l == len).map(|(t, _)| *t)
}

/// Salt's message for a `source_hash` it cannot use.
fn invalid(source_hash: &str) -> String {
    let mut by_len: Vec<(usize, &str)> = HASHES.iter().map(|(t, l)| (*l, *t)).collect();
    by_len.sort_unstable();
    format!(
        "Source hash {source_hash} format is invalid. The supported formats are: 1) a hash, 2) an expression in the format <hash_type>=<hash>, or 3) either a path to a local file containing hashes, or a URI of a remote hash file. Supported protocols for remote hash files are: {}. The hash may also not be of a valid length, the following are supported hash types and lengths: {}.",
        HASH_FILE_PROTOS.join(", "),
        by_len
            .iter()
            .map(|(l, t)| format!("{t} ({l})"))
            .collect::<Vec<_>>()
            .join(", ")
    )
}

/// Python's `urlparse(x).scheme`: what precedes the first ':' when it is
/// a valid scheme name, lowercased.
fn url_scheme(url: &str) -> Option<String> {
    url.split_once(':')
        .map(|(s, _)| s)
        .filter(|s| {
            s.starts_with(|c: char| c.is_ascii_alphabetic())
                && s.chars()
                    .all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c))
        })
        .map(str::to_lowercase)
}

/// Why `get_source_sum` failed: a `CommandExecutionError` (the state
/// shows its text) or a download that raised (the state shows it after
/// "Unable to manage file: ").
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SumError {
    #[error("{0}")]
    Invalid(String),
    #[error("{0}")]
    Fetch(String),
}

impl From<String> for SumError {
    fn from(s: String) -> SumError {
        SumError::Invalid(s)
    }
}

/// Salt's `file.get_source_sum`. `file_name` and `source` (and
/// `source_hash_name`) pick the line of a file of hashes; a file of hashes
/// behind a URL is fetched through `fetcher` (bounded, into memory).
pub fn get_source_sum(
    fetcher: &Fetcher,
    file_name: &str,
    source: &str,
    source_hash: &str,
    source_hash_name: Option<&str>,
) -> Result<SourceSum, SumError> {
    let data: Vec<u8> = if source_hash.starts_with('/') {
        let p = Path::new(source_hash);
        std::fs::read(p).map_err(|e| fsutil::py_os_error(&e, p))?
    } else {
        match url_scheme(source_hash).as_deref() {
            None => return Ok(parse_source_hash(source_hash)?),
            Some("salt") => {
                let p: PathBuf = fetcher
                    .client
                    .cache_file(source_hash, fetcher.saltenv)
                    .map_err(|_| format!("Source hash file {source_hash} not found"))?;
                std::fs::read(&p).map_err(|e| fsutil::py_os_error(&e, &p))?
            }
            Some("file") => {
                let path = Path::new(source_hash.trim_start_matches("file://"));
                if !path.exists() {
                    return Err(format!("Source hash file {source_hash} not found").into());
                }
                std::fs::read(path).map_err(|e| fsutil::py_os_error(&e, path))?
            }
            Some(p) if HASH_FILE_PROTOS.contains(&p) => {
                fetcher.fetch(source_hash).map_err(SumError::Fetch)?
            }
            Some(_) => return Err(invalid(source_hash).into()),
        }
    };
    let text = String::from_utf8_lossy(&data);
    let mut sum = extract_hash(&text, file_name, source, source_hash_name)
        .ok_or_else(|| invalid(source_hash))?;
    sum.hsum = sum.hsum.map(|h| h.to_lowercase());
    Ok(sum)
}

/// A hash expression: `<type>=<hex>` or a bare hex digest whose length
/// names the type.
pub fn parse_source_hash(source_hash: &str) -> Result<SourceSum, String> {
    let (hash_type, hsum) = match source_hash.split_once('=') {
        Some((t, h)) => (t.trim().to_string(), h.trim().to_string()),
        None => {
            if source_hash.is_empty() || !source_hash.chars().all(|c| c.is_ascii_hexdigit()) {
                return Err(invalid(source_hash));
            }
            let t = type_of_len(source_hash.len()).ok_or_else(|| invalid(source_hash))?;
            (t.to_string(), source_hash.to_string())
        }
    };
    let Some(&(_, want)) = HASHES.iter().find(|(t, _)| *t == hash_type) else {
        return Err(format!(
            "Invalid hash type '{hash_type}'. Supported hash types are: sha512, sha384, sha256, sha224, sha1, md5. Either remove the hash type and simply use '{hsum}' as the source_hash, or change the hash type to a supported type."
        ));
    };
    match type_of_len(hsum.len()) {
        None => Err(invalid(source_hash)),
        Some(other) if hsum.len() != want => Err(format!(
            "Invalid length ({}) for hash type '{hash_type}'. Either remove the hash type and simply use '{hsum}' as the source_hash, or change the hash type to '{other}'",
            hsum.len()
        )),
        Some(_) => Ok(SourceSum {
            hash_type,
            hsum: Some(hsum.to_lowercase()),
        }),
    }
}

/// The first hex digest of a supported length standing alone in `line`
/// (not inside a longer run of letters and digits).
fn find_hash(line: &str) -> Option<&str> {
    line.split(|c: char| !c.is_ascii_alphanumeric())
        .find(|w| (32..=128).contains(&w.len()) && w.chars().all(|c| c.is_ascii_hexdigit()))
}

/// Whether a hash-file line names a file: it ends with `tail` after a
/// separator, or (not ending so) starts with `head` and a blank.
fn line_names(line: &str, tail: &str, head: &str, separators: &str) -> bool {
    if let Some(before) = line.strip_suffix(tail) {
        return before
            .chars()
            .last()
            .is_some_and(|c| separators.contains(c));
    }
    line.strip_prefix(head)
        .is_some_and(|rest| rest.starts_with(char::is_whitespace))
}

/// Python's `os.path.basename`.
fn basename(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

/// Salt's `file.extract_hash` (any hash type): the hash on the line that
/// names `source_hash_name`, else `file_name`, else `source`; else the
/// first hash in the file.
pub fn extract_hash(
    text: &str,
    file_name: &str,
    source: &str,
    source_hash_name: Option<&str>,
) -> Option<SourceSum> {
    const WHITESPACE: &str = " \t\n\r\x0b\x0c";
    let file_seps = format!("{WHITESPACE}\\/*");
    // The last part of the source's path (or host), without any query.
    let source_base = basename(
        source
            .split_once("://")
            .map_or(source, |(_, rest)| rest)
            .split(['?', '#'])
            .next()
            .unwrap_or_default(),
    );
    let mut partial: Option<SourceSum> = None;
    let mut found: [Option<SourceSum>; 3] = [None, None, None];
    for line in text.lines() {
        let line = line.trim();
        let Some(hsum) = find_hash(line) else {
            continue;
        };
        let Some(hash_type) = type_of_len(hsum.len()) else {
            continue;
        };
        let sum = SourceSum {
            hash_type: hash_type.to_string(),
            hsum: Some(hsum.to_string()),
        };
        partial.get_or_insert_with(|| sum.clone());
        let tests = [
            source_hash_name
                .filter(|n| !n.is_empty())
                .is_some_and(|n| line_names(line, n, n, WHITESPACE)),
            !file_name.is_empty() && line_names(line, basename(file_name), file_name, &file_seps),
            !source.is_empty() && line_names(line, source_base, source, &file_seps),
        ];
        for (slot, hit) in found.iter_mut().zip(tests) {
            if hit && slot.is_none() {
                *slot = Some(sum.clone());
            }
        }
    }
    found.into_iter().flatten().next().or(partial)
}

#[cfg(test)]
mod tests {
    use super::*;

    const MD5: &str = "d41d8cd98f00b204e9800998ecf8427e";
    const SHA1: &str = "da39a3ee5e6b4b0d3255bfef95601890afd80709";

    #[test]
    fn picks_the_line_that_names_the_file() {
        let text = format!("{MD5}  other.tar.gz\n{SHA1} *app.tar.gz\n");
        let got = extract_hash(&text, "/srv/app.tar.gz", "", None).unwrap();
        assert_eq!(
            (got.hash_type.as_str(), got.hsum.as_deref()),
            ("sha1", Some(SHA1))
        );
        // Nothing named: the first hash.
        let got = extract_hash(&text, "", "", None).unwrap();
        assert_eq!(got.hsum.as_deref(), Some(MD5));
        let got = extract_hash(&text, "", "https://h/x/app.tar.gz", None).unwrap();
        assert_eq!(got.hsum.as_deref(), Some(SHA1));
        assert!(extract_hash("no hashes here\n", "", "", None).is_none());
        // Part of a longer word is no hash.
        assert!(extract_hash(&format!("x{MD5}\n"), "", "", None).is_none());
    }

    #[test]
    fn expressions_like_salt() {
        assert_eq!(parse_source_hash(MD5).unwrap().hash_type, "md5");
        assert!(parse_source_hash("md5=abc").is_err());
        assert_eq!(url_scheme("salt://x").as_deref(), Some("salt"));
        assert_eq!(url_scheme("md5=ab:c"), None);
    }
}
