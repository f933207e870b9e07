//! How a brine daemon starts (`brine-master`, `brine-minion`,
//! `brine-api`): the options every daemon takes as Salt's do (`-c`, `-l`,
//! `-d`, `--pid-file`, `--log-file`, `--log-file-level`), then, before any
//! thread runs, detach if asked (see `daemonize`) and start the log (see
//! `logging`).

use crate::daemonize::{daemonize, DaemonizeError};
use crate::logging::{self, LogConfig};
use crate::{
    CliError, Matches, Opt, CONFIG_DIR, DAEMON, LOG_FILE, LOG_FILE_LEVEL, LOG_LEVEL, PID_FILE,
};
use std::path::{Path, PathBuf};

/// The options every daemon takes.
pub const OPTIONS: [Opt; 6] = [
    CONFIG_DIR,
    LOG_LEVEL,
    DAEMON,
    PID_FILE,
    LOG_FILE,
    LOG_FILE_LEVEL,
];

/// `--check-salt-config FILE` (brine-master, brine-minion): say which keys
/// of an existing Salt config brine reads, ignores or does not know, and
/// exit (1 when some key is unknown or wrongly typed).
pub const CHECK_SALT_CONFIG: Opt = Opt::value(
    "check-salt-config",
    None,
    "FILE",
    "check a Salt config (/etc/salt/master or minion, with its .d/*.conf): \
     which keys brine reads, ignores or does not know; then exit",
);

/// Command-line options that stand for options of the configuration:
/// (long option, option key).
const OPTION_KEYS: [(&str, &str); 3] = [
    ("pid-file", "pidfile"),
    ("log-file", "log_file"),
    ("log-file-level", "log_level_logfile"),
];

/// What a daemon's command line said.
#[derive(Debug, Clone, PartialEq)]
pub struct DaemonStart {
    pub config_dir: PathBuf,
    /// `-l`: the console's level (and the file's, unless it has its own).
    pub log_level: Option<String>,
    /// `-d`.
    pub daemon: bool,
    /// `--pid-file`, `--log-file`, `--log-file-level`: these options of
    /// the configuration (option key, value), which they override.
    pub overrides: Vec<(&'static str, String)>,
    /// `--check-salt-config FILE`: check that file instead of starting.
    pub check_salt_config: Option<PathBuf>,
}

impl DaemonStart {
    /// The options from a daemon's parsed command line, which takes no
    /// positional words.
    pub fn from_matches(m: &Matches) -> Result<DaemonStart, CliError> {
        if let Some(extra) = m.positionals.first() {
            return Err(CliError::Invalid(format!("unexpected argument: {extra}")));
        }
        Ok(DaemonStart {
            config_dir: PathBuf::from(m.value("config-dir").unwrap_or("/etc/brine")),
            log_level: m.value("log-level").map(str::to_string),
            daemon: m.flag("daemon"),
            overrides: OPTION_KEYS
                .iter()
                .filter_map(|(long, key)| m.value(long).map(|v| (*key, v.to_string())))
                .collect(),
            check_salt_config: m.value("check-salt-config").map(PathBuf::from),
        })
    }

    /// Detach when `-d` said so (the pid to `pidfile`), then start the log
    /// from the configuration's options (`get`), `default_log` when it
    /// names no `log_file`. Call it before any thread starts.
    pub fn begin(
        &self,
        get: impl Fn(&str) -> Option<String>,
        pidfile: &Path,
        default_log: PathBuf,
    ) -> Result<(), DaemonizeError> {
        if self.daemon {
            daemonize(pidfile)?;
        }
        let mut cfg = LogConfig::from_options(get, self.log_level.as_deref(), default_log);
        cfg.console = !self.daemon;
        logging::init(&cfg);
        Ok(())
    }
}
