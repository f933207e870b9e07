//! Logging through tracing, at Salt's level names: `brine-call` logs to
//! the console; the daemon (and a job's own process) to the console and
//! `log_file` as salt-minion does (`brine_cli::logging`).

use brine_compile::opts;
use brine_core::Map;
use std::path::{Path, PathBuf};

/// Start console logging: the command-line level wins over the config's
/// `log_level`.
pub fn init(cli_level: Option<&str>, confdir: &Path) {
    // The console's options only, read from the file as written: this is
    // on every brine-call's start, which loads the options for real next.
    let o = std::fs::read_to_string(confdir.join("minion"))
        .ok()
        .and_then(|text| brine_core::yaml::load(&text).ok())
        .and_then(|v| v.as_map().cloned())
        .unwrap_or_default();
    let mut cfg = config(cli_level, &o);
    cfg.file = None;
    brine_cli::logging::init(&cfg);
}

/// Start a job process's logging from the daemon's options: the console
/// (the daemon's stderr) and `log_file`.
pub fn init_job_process(cli_level: Option<&str>, o: &Map) {
    brine_cli::logging::init(&config(cli_level, o));
}

fn config(cli_level: Option<&str>, o: &Map) -> brine_cli::logging::LogConfig {
    brine_cli::logging::LogConfig::from_options(
        |k| opts::text_of(o, k),
        cli_level,
        default_log_file(o),
    )
}

/// The minion's log file when `log_file` names none.
pub fn default_log_file(o: &Map) -> PathBuf {
    opts::rooted(o, "/var/log/brine/minion")
}

/// `CONFDIR/minion` read leniently for logging before the daemon loads
/// it for real (which reports what is wrong with it): the defaults when
/// it does not load.
pub fn options(confdir: &Path) -> Map {
    opts::load_including(
        &confdir.join("minion"),
        opts::minion_defaults(),
        Some(&confdir.join("minion.d")),
    )
    .map(|l| l.opts)
    .unwrap_or_else(|_| opts::minion_defaults())
}

/// Where `-d` writes the daemon's pid: `pidfile`, else
/// `/var/run/brine-minion.pid`, under `root_dir`.
pub fn pidfile(o: &Map) -> PathBuf {
    opts::rooted(
        o,
        opts::get_str(o, "pidfile").unwrap_or("/var/run/brine-minion.pid"),
    )
}
