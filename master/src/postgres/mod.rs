//! The PostgreSQL server several masters share (`master_job_cache:
//! pgjsonb`): its options as Salt's pgjsonb returner names them, a pool of
//! connections, and a wait with a timeout around every use.
//!
//! The master's stores are called from blocking threads (request handlers
//! run on tokio's blocking pool, brine-run has no runtime at all), while
//! tokio-postgres is async. So the pool lives on a small runtime of its
//! own, and [`Pg::run`] hands it one piece of work and waits for the answer
//! on a plain channel, which works from any thread and never waits forever.

#[cfg(any(test, feature = "testing"))]
pub mod test_server;

use brine_core::{Map, Value};
use std::future::Future;
use std::time::Duration;

/// The longest one use of the database may take, connecting included.
pub const WAIT: Duration = Duration::from_secs(30);
/// Connections one master keeps open (its request handlers are bounded by
/// `worker_threads`; a few more would only queue in the server).
const POOL_SIZE: usize = 8;

#[derive(Debug, thiserror::Error)]
pub enum PgError {
    #[error("PostgreSQL {at}: cannot connect: {source}")]
    Connect {
        at: String,
        source: deadpool_postgres::PoolError,
    },
    #[error("PostgreSQL {at}: {what}: {source}")]
    Query {
        at: String,
        what: &'static str,
        source: tokio_postgres::Error,
    },
    #[error("PostgreSQL {at}: {what}: no answer within {}s", WAIT.as_secs())]
    Timeout { at: String, what: &'static str },
    #[error("returner.pgjsonb.{key}: {why}")]
    Option { key: &'static str, why: String },
    #[error("PostgreSQL: cannot start the pool's runtime: {0}")]
    Runtime(std::io::Error),
    #[error("PostgreSQL {at}: {why}")]
    Pool { at: String, why: String },
    /// An error shared by every request of a batch that failed together.
    #[error("PostgreSQL {at}: {what}: {why}")]
    Batch {
        at: String,
        what: &'static str,
        why: String,
    },
}

/// Where the shared database is, as Salt's pgjsonb returner reads it
/// (`returner.pgjsonb.host` ... in the master config; the same defaults).
/// A `host` starting with `/` is the directory of the server's Unix socket.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PgOptions {
    pub host: String,
    pub port: u16,
    pub user: String,
    pub password: String,
    pub db: String,
}

impl Default for PgOptions {
    fn default() -> Self {
        PgOptions {
            host: "localhost".into(),
            port: 5432,
            user: "salt".into(),
            password: "salt".into(),
            db: "salt".into(),
        }
    }
}

impl PgOptions {
    /// The options from master opts: `returner.pgjsonb.<name>` keys over
    /// Salt's defaults. brine speaks to PostgreSQL without TLS, so an
    /// `sslmode` that demands it is refused rather than ignored.
    pub fn from_opts(opts: &Map) -> Result<PgOptions, PgError> {
        let get = |name: &str| opts.get(&format!("returner.pgjsonb.{name}"));
        let text = |key: &'static str, v: &Value| match v {
            Value::Str(s) => Ok(s.clone()),
            Value::Int(i) => Ok(i.to_string()),
            other => Err(PgError::Option {
                key,
                why: format!("expected text, got {}", other.type_name()),
            }),
        };
        let mut o = PgOptions::default();
        for (key, slot) in [
            ("host", &mut o.host),
            ("user", &mut o.user),
            ("pass", &mut o.password),
            ("db", &mut o.db),
        ] {
            if let Some(v) = get(key).filter(|v| !v.is_null()) {
                *slot = text(key, v)?;
            }
        }
        if let Some(v) = get("port").filter(|v| !v.is_null()) {
            let port = text("port", v)?;
            o.port = port.trim().parse().map_err(|_| PgError::Option {
                key: "port",
                why: format!("{port:?} is not a port number"),
            })?;
        }
        if let Some(v) = get("sslmode").filter(|v| !v.is_null()) {
            let mode = text("sslmode", v)?;
            if !matches!(mode.as_str(), "disable" | "allow" | "prefer" | "None") {
                return Err(PgError::Option {
                    key: "sslmode",
                    why: format!(
                        "{mode:?} needs TLS, which brine does not speak to PostgreSQL; use a \
                         Unix socket or a loopback/tunnelled address with sslmode disable"
                    ),
                });
            }
        }
        Ok(o)
    }

    /// `user@host:port/db`, for messages (never the password).
    pub fn describe(&self) -> String {
        format!("{}@{}:{}/{}", self.user, self.host, self.port, self.db)
    }
}

/// A pool of connections to the shared database and the runtime it lives on.
pub struct Pg {
    at: String,
    /// How to connect, for a connection of its own (LISTEN).
    config: tokio_postgres::Config,
    pool: deadpool_postgres::Pool,
    /// Taken on drop: a runtime is shut down in the background, which is
    /// allowed from inside another runtime too.
    rt: Option<tokio::runtime::Runtime>,
}

impl std::fmt::Debug for Pg {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Pg({})", self.at)
    }
}

impl Drop for Pg {
    fn drop(&mut self) {
        if let Some(rt) = self.rt.take() {
            rt.shutdown_background();
        }
    }
}

/// A connection from the pool, for the length of one [`Pg::run`].
pub type Conn = deadpool_postgres::Object;

impl Pg {
    /// Build the pool and check that the server answers (the first
    /// connection is made here, so a wrong address fails the start).
    pub fn connect(opts: &PgOptions) -> Result<Pg, PgError> {
        let at = opts.describe();
        let mut cfg = tokio_postgres::Config::new();
        cfg.host(&opts.host)
            .port(opts.port)
            .user(&opts.user)
            .password(opts.password.as_bytes())
            .dbname(&opts.db)
            .application_name("brine-master")
            .connect_timeout(WAIT);
        let manager = deadpool_postgres::Manager::from_config(
            cfg.clone(),
            tokio_postgres::NoTls,
            deadpool_postgres::ManagerConfig {
                // A connection that died with the server is noticed when
                // taken from the pool, and replaced.
                recycling_method: deadpool_postgres::RecyclingMethod::Fast,
            },
        );
        let pool = deadpool_postgres::Pool::builder(manager)
            .max_size(POOL_SIZE)
            .runtime(deadpool_postgres::Runtime::Tokio1)
            .wait_timeout(Some(WAIT))
            .create_timeout(Some(WAIT))
            .recycle_timeout(Some(WAIT))
            .build()
            .map_err(|e| PgError::Pool {
                at: at.clone(),
                why: e.to_string(),
            })?;
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name("brine-pg")
            .enable_all()
            .build()
            .map_err(PgError::Runtime)?;
        let pg = Pg {
            at,
            config: cfg,
            pool,
            rt: Some(rt),
        };
        pg.run("connect", |_conn| async { Ok(()) })?;
        Ok(pg)
    }

    /// Where the database is, for messages.
    pub fn at(&self) -> &str {
        &self.at
    }

    /// Run `work` on a pooled connection and wait (at most [`WAIT`]) for
    /// its answer. `what` names the work in errors.
    pub fn run<T, F, Fut>(&self, what: &'static str, work: F) -> Result<T, PgError>
    where
        F: FnOnce(Conn) -> Fut + Send + 'static,
        Fut: Future<Output = Result<T, tokio_postgres::Error>> + Send + 'static,
        T: Send + 'static,
    {
        let at = self.at.clone();
        let pool = self.pool.clone();
        self.wait(what, async move {
            let conn = pool.get().await.map_err(|source| PgError::Connect {
                at: at.clone(),
                source,
            })?;
            work(conn)
                .await
                .map_err(|source| PgError::Query { at, what, source })
        })
    }

    /// Run `work` on the pool's runtime and wait (at most [`WAIT`]) for its
    /// answer.
    pub fn wait<T, Fut>(&self, what: &'static str, work: Fut) -> Result<T, PgError>
    where
        Fut: Future<Output = Result<T, PgError>> + Send + 'static,
        T: Send + 'static,
    {
        let timeout = || PgError::Timeout {
            at: self.at.clone(),
            what,
        };
        let Some(rt) = &self.rt else {
            return Err(timeout());
        };
        let (tx, rx) = std::sync::mpsc::sync_channel(1);
        let at = self.at.clone();
        rt.spawn(async move {
            let done = tokio::time::timeout(WAIT, work)
                .await
                .unwrap_or_else(|_| Err(PgError::Timeout { at, what }));
            // The caller may have given up; nothing to do then.
            let _ = tx.send(done);
        });
        rx.recv_timeout(WAIT + Duration::from_secs(1))
            .unwrap_or_else(|_| Err(timeout()))
    }

    /// Run `schema` (statements that make what is missing) under the
    /// advisory lock `lock`: masters starting at once would otherwise race
    /// on `CREATE ... IF NOT EXISTS`.
    pub fn create_schema(
        &self,
        what: &'static str,
        lock: i64,
        schema: &'static str,
    ) -> Result<(), PgError> {
        self.run(what, move |mut conn| async move {
            let tx = conn.transaction().await?;
            tx.execute("SELECT pg_advisory_xact_lock($1)", &[&lock])
                .await?;
            tx.batch_execute(schema).await?;
            tx.commit().await
        })
    }

    /// Start a task on the pool's runtime (it ends with the runtime).
    pub fn spawn(&self, task: impl Future<Output = ()> + Send + 'static) {
        if let Some(rt) = &self.rt {
            rt.spawn(task);
        }
    }

    /// How to connect, for a task of [`Pg::spawn`] that needs a
    /// connection of its own (a pooled one cannot LISTEN).
    pub fn config(&self) -> tokio_postgres::Config {
        self.config.clone()
    }

    /// The pool, for a task of [`Pg::spawn`].
    pub fn pool(&self) -> deadpool_postgres::Pool {
        self.pool.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_as_salt_names_them() {
        let o = PgOptions::from_opts(&Map::default()).unwrap();
        assert_eq!(o, PgOptions::default());
        assert_eq!(o.describe(), "salt@localhost:5432/salt");
        let mut m = Map::default();
        m.insert("returner.pgjsonb.host".into(), "/run/pg".into());
        m.insert("returner.pgjsonb.port".into(), Value::Int(5433));
        m.insert("returner.pgjsonb.pass".into(), "s3cret".into());
        m.insert("returner.pgjsonb.sslmode".into(), Value::Null);
        let o = PgOptions::from_opts(&m).unwrap();
        assert_eq!((o.host.as_str(), o.port), ("/run/pg", 5433));
        assert_eq!(o.password, "s3cret");
        assert!(!o.describe().contains("s3cret"));
        m.insert("returner.pgjsonb.port".into(), "fifty".into());
        let e = PgOptions::from_opts(&m).unwrap_err().to_string();
        assert!(
            e.contains("returner.pgjsonb.port") && e.contains("fifty"),
            "{e}"
        );
        m.insert("returner.pgjsonb.port".into(), Value::Int(5432));
        m.insert("returner.pgjsonb.sslmode".into(), "verify-full".into());
        let e = PgOptions::from_opts(&m).unwrap_err().to_string();
        assert!(e.contains("sslmode") && e.contains("TLS"), "{e}");
    }

    #[test]
    fn a_server_that_is_not_there_is_named_in_the_error() {
        let td = tempfile::tempdir().unwrap();
        let o = PgOptions {
            host: td.path().display().to_string(),
            ..PgOptions::default()
        };
        let e = Pg::connect(&o).unwrap_err().to_string();
        assert!(e.contains(&td.path().display().to_string()), "{e}");
        assert!(e.contains("cannot connect"), "{e}");
    }
}
