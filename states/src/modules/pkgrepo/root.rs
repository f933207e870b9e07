//! Where `pkgrepo` reads and writes: the host's `/etc` (apt's and yum's
//! files), or a scratch folder standing for `/` in tests, as
//! `brine_host::accounts::EtcRoot` does for `/etc/passwd`. Paths keep the
//! names apt and yum know them by (`/etc/apt/sources.list.d/x.list`); only
//! reading and writing go through the root. Refreshing the package
//! database is a hook, so tests never run `apt-get update`.

use crate::StateContext;
use std::path::PathBuf;

/// Refresh the package database (`apt-get update`, `dnf makecache`).
pub type Refresh = fn(&StateContext) -> Result<(), String>;

pub struct RepoRoot {
    /// The folder standing for `/`.
    pub root: PathBuf,
    pub refresh: Refresh,
}

impl Default for RepoRoot {
    fn default() -> RepoRoot {
        RepoRoot {
            root: PathBuf::from("/"),
            refresh: refresh_host,
        }
    }
}

impl RepoRoot {
    /// A scratch root whose refresh does nothing.
    pub fn scratch(root: PathBuf) -> RepoRoot {
        RepoRoot {
            root,
            refresh: |_| Ok(()),
        }
    }

    /// The real path of `path` (an absolute path as the host names it).
    pub fn real(&self, path: &str) -> PathBuf {
        self.root.join(path.trim_start_matches('/'))
    }

    /// Whether this is the host itself.
    pub fn is_host(&self) -> bool {
        self.root == std::path::Path::new("/")
    }
}

/// The host's package database refreshed through its package provider
/// (Salt's `pkg.refresh_db`; a failed refresh is not an error there).
fn refresh_host(ctx: &StateContext) -> Result<(), String> {
    let provider = crate::modules::pkg::provider_for(ctx).map_err(|e| e.to_string())?;
    provider
        .refresh_db_report(false)
        .map(|_| ())
        .map_err(|e| e.to_string())
}
