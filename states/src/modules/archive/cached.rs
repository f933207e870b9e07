//! Salt's `file.cached` (its real run, not test mode) as
//! `archive.extracted` calls it: the source downloaded into the minion's
//! cache and checked against `source_hash`. Its return is what the archive
//! state answers when caching fails.

use crate::modules::file::remote::{self, Fetcher};
use crate::modules::file::source_hash::{get_source_sum, SourceSum};
use crate::StateReturn;
use brine_core::Value;
use std::path::{Path, PathBuf};

/// The hash of the file at `path` in `hash_type`.
fn file_hash(path: &Path, hash_type: &str) -> Option<String> {
    crate::fileclient::hash_path(path, hash_type)
        .ok()
        .flatten()
        .map(|(h, _)| h)
}

/// Salt's `file.cached(name, source_hash, source_hash_name, skip_verify)`:
/// the path of the cached copy, or the failed return (boxed: it is large).
pub fn cached(
    fetcher: &Fetcher,
    name: &str,
    source_hash: Option<&str>,
    source_hash_name: Option<&str>,
    skip_verify: bool,
) -> Result<PathBuf, Box<StateReturn>> {
    let mut ret = StateReturn::new(name);
    ret.result = Some(false);
    let fail = |mut ret: StateReturn, comment: String| {
        ret.comment = comment;
        Err(Box::new(ret))
    };
    if !skip_verify && source_hash.is_none() && remote::is_remote(name) {
        return fail(
            ret,
            format!(
                "Unable to verify upstream hash of source file {}, please set source_hash or set skip_verify or use_etag to True",
                remote::redact(name)
            ),
        );
    }
    let source_sum: Option<SourceSum> = match source_hash {
        Some(h) => match get_source_sum(fetcher, "", name, h, source_hash_name) {
            Ok(s) => Some(s),
            Err(e) => return fail(ret, e.to_string()),
        },
        None => None,
    };
    let hash_type = source_sum
        .as_ref()
        .map_or_else(|| "sha256".to_string(), |s| s.hash_type.clone());
    let want = source_sum.as_ref().and_then(|s| s.hsum.clone());
    let pre_hash = fetcher
        .is_cached(name)
        .and_then(|p| file_hash(&p, &hash_type));
    let local = match fetcher.cache_file(name, want.as_deref()) {
        Ok(p) => p,
        Err(e) => return fail(ret, remote::redact(&e)),
    };
    let post_hash = file_hash(&local, &hash_type);
    if pre_hash != post_hash {
        let mut h = brine_core::Map::default();
        h.insert("old".into(), pre_hash.map_or(Value::Null, Value::Str));
        h.insert(
            "new".into(),
            post_hash.clone().map_or(Value::Null, Value::Str),
        );
        ret.changes.insert("hash".into(), Value::Map(h));
    }
    if let (false, Some(want)) = (skip_verify, want) {
        if post_hash.as_deref() != Some(want.as_str()) {
            let comment = format!(
                "File is cached to {}, but the hash ({}) does not match the specified hash ({want})",
                local.display(),
                post_hash.unwrap_or_default()
            );
            return fail(ret, comment);
        }
    }
    Ok(local)
}
