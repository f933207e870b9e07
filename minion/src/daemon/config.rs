//! The minion daemon's configuration: the options `brine-minion` reads
//! from `CONFDIR/minion` (Salt's names) and its command line, with the
//! exit codes Salt gives for refusals.

use brine_compile::envs::Envs;
use brine_compile::opts::{self, OptsError};
use brine_core::Value;
use brine_runtime::context::Minion;
use std::path::PathBuf;
use std::time::Duration;

use super::keys;

/// Salt's `EX_NOPERM`: the master refused this minion's key.
pub const EX_NOPERM: i32 = 77;
/// Salt exits with 42 when the master's key does not match `master_finger`;
/// brine uses it for a changed master key as well.
pub const EX_MASTER_KEY: i32 = 42;
/// Configuration errors.
pub const EX_CONFIG: i32 = 2;

/// How old a publication may be before it is dropped as stale.
pub(crate) const PUBLICATION_WINDOW: Duration = Duration::from_secs(300);
/// Clock difference tolerated between master and minion.
pub(crate) const PUBLICATION_SKEW: Duration = Duration::from_secs(60);
/// Most publication nonces remembered in the window.
pub(crate) const PUBLICATION_NONCES: usize = 100_000;
/// Seconds a stop waits for running jobs, unless `shutdown_timeout` says.
pub(crate) const DEFAULT_SHUTDOWN_TIMEOUT: u64 = 30;

/// Most functions running at once in this process.
pub(crate) const MAX_CONCURRENT_JOBS: usize = 32;

/// Salt's `master_type` values brine serves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MasterType {
    Str,
    Failover,
}

impl MasterType {
    pub fn parse(s: &str) -> Option<MasterType> {
        match s {
            "str" => Some(MasterType::Str),
            "failover" => Some(MasterType::Failover),
            _ => None,
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum DaemonError {
    #[error(transparent)]
    Opts(#[from] OptsError),
    #[error("option '{key}': {problem}")]
    Config { key: &'static str, problem: String },
    #[error(transparent)]
    Keys(#[from] keys::MinionKeyError),
    #[error("cannot start the async runtime: {0}")]
    Runtime(std::io::Error),
    #[error("cannot make cachedir {path} private: {source}")]
    Cachedir {
        path: PathBuf,
        source: std::io::Error,
    },
}

/// The options brine-minion reads from `CONFDIR/minion` (Salt's names).
#[derive(Debug, Clone)]
pub struct DaemonConfig {
    pub id: String,
    /// `master`: host names or addresses (several: Salt's multi-master).
    pub masters: Vec<String>,
    /// `master_type`: serve every master at once, or one at a time.
    pub master_type: MasterType,
    /// `master_alive_interval`: how often a failover minion checks that
    /// its master is there (zero: never, Salt's default).
    pub master_alive_interval: Duration,
    /// `master_failback`: go back to the first master once it is up.
    pub master_failback: bool,
    /// `master_failback_interval` (zero in the file: the alive interval).
    pub master_failback_interval: Duration,
    /// `random_master`: try the masters in a random order.
    pub random_master: bool,
    /// `master_port`: the master's ret port.
    pub master_port: u16,
    pub publish_port: u16,
    pub pki_dir: PathBuf,
    pub cachedir: PathBuf,
    pub master_finger: Option<String>,
    pub acceptance_wait_time: Duration,
    /// The configured `saltenv` and `pillarenv`.
    pub envs: Envs,
    /// How long a stop (SIGTERM) waits for running jobs (`shutdown_timeout`,
    /// seconds); a job still running then gets an error return, sent after
    /// the next start.
    pub shutdown_timeout: Duration,
    /// `multiprocessing` (Salt's, default True): a job that changes the
    /// host runs in a process of its own (see `job_process`), which
    /// outlives this one and delivers its return.
    pub multiprocessing: bool,
}

impl DaemonConfig {
    /// Read the daemon's options from a loaded minion's `opts`.
    pub fn from_minion(m: &Minion) -> Result<DaemonConfig, DaemonError> {
        let o = &m.opts;
        let master_list = matches!(o.get("master"), Some(Value::List(_)));
        let masters = match o.get("master") {
            Some(Value::Str(s)) => vec![s.clone()],
            Some(Value::List(l)) => {
                let names: Vec<String> = l
                    .iter()
                    .filter_map(Value::as_str)
                    .map(str::to_string)
                    .collect();
                if names.is_empty() {
                    return Err(DaemonError::Config {
                        key: "master",
                        problem: "an empty list names no master".into(),
                    });
                }
                names
            }
            _ => vec!["salt".to_string()],
        };
        let t = opts::get_str(o, "master_type").unwrap_or("str");
        let master_type = MasterType::parse(t).ok_or_else(|| DaemonError::Config {
            key: "master_type",
            problem: format!("Invalid keyword '{t}' (brine-minion serves str and failover)"),
        })?;
        if master_type == MasterType::Failover && !master_list {
            return Err(DaemonError::Config {
                key: "master_type",
                problem: "master_type set to 'failover' but 'master' is not of type list but of \
                          type str"
                    .into(),
            });
        }
        let seconds = |key: &'static str| -> Result<Duration, DaemonError> {
            match o.get(key) {
                None | Some(Value::Null) => Ok(Duration::ZERO),
                Some(Value::Int(i)) if (0..=86_400).contains(i) => {
                    Ok(Duration::from_secs(*i as u64))
                }
                Some(other) => Err(DaemonError::Config {
                    key,
                    problem: format!(
                        "expected seconds between 0 and 86400, found {}",
                        other.to_python_repr()
                    ),
                }),
            }
        };
        let master_alive_interval = seconds("master_alive_interval")?;
        let mut master_failback_interval = seconds("master_failback_interval")?;
        if master_failback_interval.is_zero() {
            master_failback_interval = master_alive_interval;
        }
        let port = |key: &'static str, default: u16| -> Result<u16, DaemonError> {
            match o.get(key) {
                None | Some(Value::Null) => Ok(default),
                Some(Value::Int(i)) => {
                    u16::try_from(*i)
                        .ok()
                        .filter(|p| *p > 0)
                        .ok_or(DaemonError::Config {
                            key,
                            problem: format!("{i} is not a TCP port"),
                        })
                }
                Some(other) => Err(DaemonError::Config {
                    key,
                    problem: format!("expected a port number, found {}", other.to_python_repr()),
                }),
            }
        };
        let wait = match o.get("acceptance_wait_time") {
            Some(Value::Int(i)) if *i >= 0 => *i as u64,
            Some(Value::Float(f)) if *f >= 0.0 => *f as u64,
            _ => 10,
        };
        let shutdown = match o.get("shutdown_timeout") {
            None | Some(Value::Null) => DEFAULT_SHUTDOWN_TIMEOUT,
            Some(Value::Int(i)) if (0..=3600).contains(i) => *i as u64,
            Some(other) => {
                return Err(DaemonError::Config {
                    key: "shutdown_timeout",
                    problem: format!(
                        "expected seconds between 0 and 3600, found {}",
                        other.to_python_repr()
                    ),
                })
            }
        };
        let path =
            |key: &str, default: &str| PathBuf::from(opts::get_str(o, key).unwrap_or(default));
        Ok(DaemonConfig {
            id: m.id.clone(),
            masters,
            master_type,
            master_alive_interval,
            master_failback: opts::get_bool(o, "master_failback", false),
            master_failback_interval,
            random_master: opts::get_bool(o, "random_master", false),
            master_port: port("master_port", 4506)?,
            publish_port: port("publish_port", 4505)?,
            pki_dir: path("pki_dir", "/etc/brine/pki/minion"),
            cachedir: path("cachedir", "/var/cache/brine/minion"),
            master_finger: opts::get_str(o, "master_finger")
                .filter(|s| !s.trim().is_empty())
                .map(str::to_string),
            acceptance_wait_time: Duration::from_secs(wait.max(1)),
            envs: Envs::configured(o),
            shutdown_timeout: Duration::from_secs(shutdown),
            multiprocessing: opts::get_bool(o, "multiprocessing", true),
        })
    }
}

/// Command-line options of `brine-minion`.
#[derive(Debug, Clone, PartialEq)]
pub struct DaemonArgs {
    /// What every daemon's command line says (`-c`, `-l`, `-d`, ...).
    pub start: brine_cli::start::DaemonStart,
    /// `--swarm N`: serve N identities `<id>-0000`... in this process.
    pub swarm: Option<usize>,
}

/// salt-minion's options (the ones brine reads), and `--swarm`.
pub fn command() -> brine_cli::Command {
    let mut options = brine_cli::start::OPTIONS.to_vec();
    options.push(brine_cli::start::CHECK_SALT_CONFIG);
    options.push(brine_cli::Opt::value(
        "swarm",
        None,
        "N",
        "serve N minion identities <id>-0000... in this process (benchmarks)",
    ));
    brine_cli::Command {
        name: "brine-minion",
        usage: "[options]",
        about: "The brine minion daemon (Salt's salt-minion); runs in the foreground unless -d.",
        options,
    }
}

/// The daemon's options from the parsed command line.
pub fn from_matches(m: brine_cli::Matches) -> Result<DaemonArgs, brine_cli::CliError> {
    let start = brine_cli::start::DaemonStart::from_matches(&m)?;
    let swarm = match m.value("swarm") {
        None => None,
        Some(v) => Some(
            v.parse()
                .ok()
                .filter(|n| (1..=100_000).contains(n))
                .ok_or_else(|| {
                    brine_cli::CliError::Invalid(format!(
                        "--swarm needs a count from 1 to 100000, not {v:?}"
                    ))
                })?,
        ),
    };
    Ok(DaemonArgs { start, swarm })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::daemon::masters;

    fn v(a: &[&str]) -> Vec<String> {
        a.iter().map(|s| s.to_string()).collect()
    }

    fn parse_args(argv: &[String]) -> Result<DaemonArgs, brine_cli::CliError> {
        match command().parse(argv)? {
            brine_cli::Parsed::Run(m) => from_matches(m),
            other => panic!("{argv:?}: {other:?}"),
        }
    }

    #[test]
    fn parses_the_command_line() {
        let a = parse_args(&v(&["-c", "/x", "--swarm", "500", "-l", "debug"])).unwrap();
        assert_eq!(a.start.config_dir, PathBuf::from("/x"));
        assert_eq!(a.swarm, Some(500));
        assert_eq!(a.start.log_level.as_deref(), Some("debug"));
        assert_eq!(parse_args(&v(&["--swarm=3"])).unwrap().swarm, Some(3));
        assert!(parse_args(&v(&["--swarm", "0"])).is_err());
        assert!(parse_args(&v(&["--swarm", "x"])).is_err());
        assert!(parse_args(&v(&["--bogus"])).is_err());
        assert!(parse_args(&v(&["-c"])).is_err());
    }

    #[test]
    fn reads_salts_option_names() {
        let td = tempfile::tempdir().unwrap();
        std::fs::write(
            td.path().join("minion"),
            format!(
                "id: web1\nmaster: [127.0.0.1, 10.0.0.2]\nmaster_port: 5506\npublish_port: 5505\n\
                 root_dir: {}\nacceptance_wait_time: 3\npillarenv: dev\n",
                td.path().display()
            ),
        )
        .unwrap();
        let (m, _) = Minion::load(td.path(), Default::default()).unwrap();
        let c = DaemonConfig::from_minion(&m).unwrap();
        assert_eq!(c.id, "web1");
        assert_eq!(c.masters, ["127.0.0.1", "10.0.0.2"]);
        assert_eq!(c.master_type, MasterType::Str);
        assert_eq!(c.master_alive_interval, Duration::ZERO);
        assert_eq!((c.master_port, c.publish_port), (5506, 5505));
        // Salt's default paths, under root_dir.
        assert_eq!(c.pki_dir, td.path().join("etc/brine/pki/minion"));
        assert_eq!(c.cachedir, td.path().join("var/cache/brine/minion"));
        assert_eq!(c.acceptance_wait_time, Duration::from_secs(3));
        assert_eq!(c.envs.pillarenv.as_deref(), Some("dev"));
        // Two masters in str mode: each its own queue of returns.
        assert_eq!(
            masters::queue_folder(&c, "10.0.0.2"),
            "pending_returns-10.0.0.2_5506"
        );
        let one = DaemonConfig {
            masters: vec!["127.0.0.1".into()],
            ..c.clone()
        };
        assert_eq!(masters::queue_folder(&one, "127.0.0.1"), "pending_returns");
        let failover = DaemonConfig {
            master_type: MasterType::Failover,
            ..c
        };
        assert_eq!(
            masters::queue_folder(&failover, "10.0.0.2"),
            "pending_returns"
        );

        std::fs::write(td.path().join("minion"), "id: x\nmaster_port: 70000\n").unwrap();
        let (m, _) = Minion::load(td.path(), Default::default()).unwrap();
        let err = DaemonConfig::from_minion(&m).unwrap_err().to_string();
        assert!(
            err.contains("master_port") && err.contains("70000"),
            "{err}"
        );
    }
}
