//! Where a master keeps what it must not lose — jobs, returns and minion
//! keys — as `master_job_cache` says: `local_cache` (the default: an
//! SQLite file under `cachedir`, keys as files in `pki_dir`, this master's
//! own) or `pgjsonb` (the PostgreSQL several masters share).

use crate::postgres::{PgError, PgOptions};
use brine_compile::opts;
use brine_core::Map;
use std::path::{Path, PathBuf};

/// Which store `master_job_cache` names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Backend {
    /// `local_cache`: the job cache in SQLite at this path.
    Sqlite(PathBuf),
    /// `pgjsonb`: the shared PostgreSQL.
    Postgres(PgOptions),
}

#[derive(Debug, thiserror::Error)]
pub enum BackendError {
    #[error(
        "option 'master_job_cache': {0:?} is not a job cache brine has (local_cache: SQLite \
         under cachedir; pgjsonb: PostgreSQL shared by masters)"
    )]
    Unknown(String),
    #[error(transparent)]
    Pg(#[from] PgError),
}

impl Backend {
    /// The store master opts name (`cachedir` holds the SQLite file).
    pub fn of(o: &Map, cachedir: &Path) -> Result<Backend, BackendError> {
        match opts::get_str(o, "master_job_cache").unwrap_or("local_cache") {
            "local_cache" => Ok(Backend::Sqlite(cachedir.join("jobs.sqlite"))),
            "pgjsonb" => Ok(Backend::Postgres(PgOptions::from_opts(o)?)),
            other => Err(BackendError::Unknown(other.to_string())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use brine_core::Value;

    #[test]
    fn master_job_cache_names_the_store() {
        let mut o = Map::default();
        let dir = Path::new("/c");
        assert_eq!(
            Backend::of(&o, dir).unwrap(),
            Backend::Sqlite(dir.join("jobs.sqlite"))
        );
        o.insert("master_job_cache".into(), Value::from("pgjsonb"));
        assert_eq!(
            Backend::of(&o, dir).unwrap(),
            Backend::Postgres(PgOptions::default())
        );
        o.insert("master_job_cache".into(), Value::from("redis"));
        let e = Backend::of(&o, dir).unwrap_err().to_string();
        assert!(e.contains("master_job_cache") && e.contains("redis"), "{e}");
    }
}
