//! The queue of returns not yet acknowledged by a master:
//! `cachedir/pending_returns/`, one file per return, kept until the master
//! stores it, across master and minion restarts.

use brine_protocol::messages::JobReturn;
use std::collections::HashSet;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use tokio::sync::Notify;

/// Folder under `cachedir` holding returns not yet acknowledged.
pub const PENDING_DIR: &str = "pending_returns";
const SUFFIX: &str = ".ret";

#[derive(Debug, thiserror::Error)]
pub enum ReturnError {
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path}: cannot encode the return: {source}")]
    Encode {
        path: PathBuf,
        source: rmp_serde::encode::Error,
    },
    #[error("{path}: not a readable return: {source}")]
    Decode {
        path: PathBuf,
        source: rmp_serde::decode::Error,
    },
}

/// The return queues of the process by folder, so that the sessions a
/// failover minion opens one after another share one queue (and its wake-up)
/// per identity: a job started under one master queues its return where
/// the next master's resender looks.
#[derive(Default)]
pub struct Queues(Mutex<std::collections::HashMap<PathBuf, Arc<ReturnQueue>>>);

impl Queues {
    /// The queue in `cachedir/<folder>`, made on first use.
    pub fn get(&self, cachedir: &Path, folder: &str) -> Arc<ReturnQueue> {
        let dir = cachedir.join(folder);
        let mut all = self.0.lock().unwrap_or_else(|p| p.into_inner());
        all.entry(dir)
            .or_insert_with(|| Arc::new(ReturnQueue::new(cachedir, folder)))
            .clone()
    }
}

/// An identity's returns waiting for the master.
pub struct ReturnQueue {
    pub(super) dir: PathBuf,
    pub(super) wake: Notify,
    /// Files being sent by [`deliver`] right now (the resender skips them).
    pub(super) in_flight: Mutex<HashSet<PathBuf>>,
}

/// A file name for a jid: the jid itself when it is a plain token (Salt's
/// jids are 20 digits), else a digest of it.
fn file_name(jid: &str) -> String {
    let plain = !jid.is_empty()
        && jid.len() <= 128
        && !jid.starts_with('.')
        && jid
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'));
    if plain {
        format!("{jid}{SUFFIX}")
    } else {
        use sha2::Digest;
        let d = sha2::Sha256::digest(jid.as_bytes());
        let hex: String = d.iter().map(|b| format!("{b:02x}")).collect();
        format!("h{hex}{SUFFIX}")
    }
}

impl ReturnQueue {
    /// The queue in `cachedir/<folder>` ([`PENDING_DIR`] unless several
    /// masters each keep their own).
    pub fn new(cachedir: &Path, folder: &str) -> ReturnQueue {
        ReturnQueue {
            dir: cachedir.join(folder),
            wake: Notify::new(),
            in_flight: Mutex::new(HashSet::new()),
        }
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Ask the resender to look at the queue now.
    pub fn wake(&self) {
        self.wake.notify_one();
    }

    pub(super) fn io(&self, path: &Path) -> impl FnOnce(std::io::Error) -> ReturnError {
        let path = path.to_path_buf();
        move |source| ReturnError::Io { path, source }
    }

    /// Write `ret` to the queue (atomically, mode 0600: returns may hold
    /// secrets). Returns the file's path.
    pub fn persist(&self, ret: &JobReturn) -> Result<PathBuf, ReturnError> {
        let path = self.dir.join(file_name(&ret.jid));
        let bytes = rmp_serde::to_vec_named(ret).map_err(|source| ReturnError::Encode {
            path: path.clone(),
            source,
        })?;
        if !self.dir.is_dir() {
            let mut b = std::fs::DirBuilder::new();
            b.recursive(true);
            #[cfg(unix)]
            {
                use std::os::unix::fs::DirBuilderExt;
                b.mode(0o700);
            }
            b.create(&self.dir).map_err(self.io(&self.dir))?;
        }
        // tempfile creates 0600 files; the rename makes the write atomic.
        let mut tmp = tempfile::Builder::new()
            .prefix(".ret")
            .tempfile_in(&self.dir)
            .map_err(self.io(&self.dir))?;
        tmp.write_all(&bytes).map_err(self.io(&path))?;
        tmp.persist(&path).map_err(|e| ReturnError::Io {
            path: path.clone(),
            source: e.error,
        })?;
        Ok(path)
    }

    /// The queued returns, oldest jid first. Unreadable files are moved
    /// aside (`*.bad`) so they are not retried forever.
    pub fn pending(&self) -> Vec<(PathBuf, JobReturn)> {
        let Ok(rd) = std::fs::read_dir(&self.dir) else {
            return Vec::new();
        };
        let mut paths: Vec<PathBuf> = rd
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| {
                p.file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(|n| n.ends_with(SUFFIX) && !n.starts_with('.'))
            })
            .collect();
        paths.sort();
        let mut out = Vec::new();
        for p in paths {
            match self.read(&p) {
                Ok(r) => out.push((p, r)),
                Err(e) => {
                    tracing::error!("{e}; moved aside");
                    let _ = std::fs::rename(&p, p.with_extension("bad"));
                }
            }
        }
        out
    }

    pub(super) fn read(&self, path: &Path) -> Result<JobReturn, ReturnError> {
        let bytes = std::fs::read(path).map_err(self.io(path))?;
        rmp_serde::from_slice(&bytes).map_err(|source| ReturnError::Decode {
            path: path.to_path_buf(),
            source,
        })
    }

    /// The master has it: forget it.
    pub fn remove(&self, path: &Path) {
        if let Err(e) = std::fs::remove_file(path) {
            if e.kind() != std::io::ErrorKind::NotFound {
                tracing::warn!("{}: cannot remove a delivered return: {e}", path.display());
            }
        }
    }

    pub(super) fn set_in_flight(&self, path: &Path, on: bool) {
        let mut g = match self.in_flight.lock() {
            Ok(g) => g,
            Err(p) => p.into_inner(),
        };
        if on {
            g.insert(path.to_path_buf());
        } else {
            g.remove(path);
        }
    }

    pub(super) fn is_in_flight(&self, path: &Path) -> bool {
        match self.in_flight.lock() {
            Ok(g) => g.contains(path),
            Err(p) => p.into_inner().contains(path),
        }
    }
}
