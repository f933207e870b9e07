//! `salt://` URLs: where a state's source file comes from.

use std::path::PathBuf;

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
}
