//! `-d`: run as a daemon the way Salt's daemons do — detached from the
//! terminal in a session of its own, standard streams on `/dev/null`,
//! its pid written to `pidfile`. Called before any thread is started
//! (fork keeps only the calling thread).

use std::path::{Path, PathBuf};

#[derive(Debug, thiserror::Error)]
pub enum DaemonizeError {
    #[error("cannot daemonize: {0}")]
    Fork(nix::Error),
    #[error("cannot write the pid file {path}: {source}")]
    Pidfile {
        path: PathBuf,
        source: std::io::Error,
    },
}

/// Detach; in the daemon, returns once its pid is in `pidfile`. The
/// parent exits 0 here.
pub fn daemonize(pidfile: &Path) -> Result<(), DaemonizeError> {
    // nochdir false: `/` as Salt's; noclose false: stdio on /dev/null.
    nix::unistd::daemon(false, false).map_err(DaemonizeError::Fork)?;
    write_pidfile(pidfile)
}

/// Write this process's pid to `path` (its folder made if missing).
pub fn write_pidfile(path: &Path) -> Result<(), DaemonizeError> {
    let err = |source| DaemonizeError::Pidfile {
        path: path.to_path_buf(),
        source,
    };
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(err)?;
    }
    std::fs::write(path, format!("{}\n", std::process::id())).map_err(err)
}
