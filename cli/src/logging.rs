//! A daemon's log, where and how Salt's daemons write theirs: the console
//! (stderr, unless daemonized) at `log_level` in `log_fmt_console`, and
//! `log_file` at `log_level_logfile` (or `log_level`) in
//! `log_fmt_logfile`, Python's `%`-style formats with Salt's defaults.
//! The file is opened for appending, so `copytruncate` rotation is safe,
//! and watched as Salt's `WatchedFileHandler` watches it: once it is
//! renamed or removed (logrotate's `create`), the next line goes to a new
//! file at the configured path.

use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant};
use tracing::field::{Field, Visit};
use tracing::{Event, Level, Subscriber};
use tracing_subscriber::layer::{Context, SubscriberExt};
use tracing_subscriber::registry::LookupSpan;
use tracing_subscriber::util::SubscriberInitExt;
use tracing_subscriber::{EnvFilter, Layer};

/// Salt's default formats and date formats.
pub const DEFAULT_FMT_CONSOLE: &str = "[%(levelname)-8s] %(message)s";
pub const DEFAULT_FMT_LOGFILE: &str =
    "%(asctime)s,%(msecs)03d [%(name)-17s:%(lineno)-4d][%(levelname)-8s][%(process)d] %(message)s";
pub const DEFAULT_DATEFMT: &str = "%H:%M:%S";
pub const DEFAULT_DATEFMT_LOGFILE: &str = "%Y-%m-%d %H:%M:%S";

/// How often the log file's path is looked at for a rotation.
const WATCH_EVERY: Duration = Duration::from_secs(1);

/// Where and how a daemon logs.
#[derive(Debug, Clone, PartialEq)]
pub struct LogConfig {
    /// `log_level` (or the command line's `-l`): the console's level.
    pub console_level: String,
    /// Whether the console gets lines at all (not once daemonized).
    pub console: bool,
    /// `log_file`; `None` when empty or its level is `quiet`.
    pub file: Option<PathBuf>,
    /// `log_level_logfile`, else `log_level`.
    pub file_level: String,
    pub fmt_console: String,
    pub datefmt_console: String,
    pub fmt_logfile: String,
    pub datefmt_logfile: String,
}

impl LogConfig {
    /// From a daemon's options (Salt's names, read through `get`), the
    /// command line's level, and the log file used when `log_file` is not
    /// set (already under `root_dir`).
    pub fn from_options(
        get: impl Fn(&str) -> Option<String>,
        cli_level: Option<&str>,
        default_file: PathBuf,
    ) -> LogConfig {
        let level = cli_level
            .map(str::to_string)
            .or_else(|| get("log_level"))
            .unwrap_or_else(|| "warning".into());
        // The command line's level is the file's too unless the file has
        // its own, as salt-minion -l does.
        let file_level = get("log_level_logfile").unwrap_or_else(|| level.clone());
        let file = match get("log_file") {
            Some(p) if p.trim().is_empty() => None,
            Some(p) => Some(PathBuf::from(p)),
            None => Some(default_file),
        }
        .filter(|_| !file_level.eq_ignore_ascii_case("quiet"));
        LogConfig {
            console_level: level,
            console: true,
            file,
            file_level,
            fmt_console: get("log_fmt_console").unwrap_or_else(|| DEFAULT_FMT_CONSOLE.into()),
            datefmt_console: get("log_datefmt").unwrap_or_else(|| DEFAULT_DATEFMT.into()),
            fmt_logfile: get("log_fmt_logfile").unwrap_or_else(|| DEFAULT_FMT_LOGFILE.into()),
            datefmt_logfile: get("log_datefmt_logfile")
                .unwrap_or_else(|| DEFAULT_DATEFMT_LOGFILE.into()),
        }
    }
}

/// Salt's level names → a tracing filter directive.
pub fn filter_for(level: &str) -> &'static str {
    match level.to_ascii_lowercase().as_str() {
        "quiet" => "off",
        "critical" | "error" => "error",
        "warning" | "warn" => "warn",
        "info" | "profile" => "info",
        "debug" => "debug",
        "trace" | "garbage" | "all" => "trace",
        _ => "warn",
    }
}

/// Start logging as `cfg` says. A log file that cannot be opened is
/// reported on the console (and in the returned text) and left out: the
/// daemon runs on, as Salt's does.
pub fn init(cfg: &LogConfig) -> Option<String> {
    // RUST_LOG, when set, overrides both levels (for debugging brine).
    let env = || EnvFilter::try_from_default_env().ok();
    let console = cfg.console.then(|| {
        SaltFormat {
            fmt: cfg.fmt_console.clone(),
            datefmt: cfg.datefmt_console.clone(),
            out: Output::Stderr,
        }
        .with_filter(env().unwrap_or_else(|| EnvFilter::new(filter_for(&cfg.console_level))))
    });
    let mut problem = None;
    let file = cfg
        .file
        .as_ref()
        .and_then(|path| match WatchedFile::open(path) {
            Ok(f) => Some(
                SaltFormat {
                    fmt: cfg.fmt_logfile.clone(),
                    datefmt: cfg.datefmt_logfile.clone(),
                    out: Output::File(f),
                }
                .with_filter(env().unwrap_or_else(|| EnvFilter::new(filter_for(&cfg.file_level)))),
            ),
            Err(e) => {
                problem = Some(format!(
                    "cannot open the log file {}: {e}; logging to it is off",
                    path.display()
                ));
                None
            }
        });
    let _ = tracing_subscriber::registry()
        .with(console)
        .with(file)
        .try_init();
    if let Some(p) = &problem {
        tracing::error!("{p}");
    }
    problem
}

enum Output {
    Stderr,
    File(WatchedFile),
}

/// One handler: a format and where its lines go.
struct SaltFormat {
    fmt: String,
    datefmt: String,
    out: Output,
}

impl<S: Subscriber + for<'a> LookupSpan<'a>> Layer<S> for SaltFormat {
    fn on_event(&self, event: &Event<'_>, _ctx: Context<'_, S>) {
        let mut msg = Message::default();
        event.record(&mut msg);
        let meta = event.metadata();
        let record = Record {
            level: *meta.level(),
            name: meta.target().replace("::", "."),
            module: meta
                .module_path()
                .and_then(|m| m.rsplit("::").next())
                .unwrap_or("")
                .to_string(),
            lineno: meta.line().unwrap_or(0),
            message: msg.text,
        };
        let mut line = format_record(&self.fmt, &self.datefmt, &record, chrono::Local::now());
        line.push('\n');
        match &self.out {
            Output::Stderr => {
                let _ = std::io::stderr().write_all(line.as_bytes());
            }
            Output::File(f) => f.write_line(line.as_bytes()),
        }
    }
}

/// The message of an event and its other fields (`key=value` after it).
#[derive(Default)]
struct Message {
    text: String,
}

impl Visit for Message {
    fn record_str(&mut self, field: &Field, value: &str) {
        // What the `log` bridge adds about the record's origin.
        if field.name().starts_with("log.") {
            return;
        }
        if field.name() == "message" {
            self.text.insert_str(0, value);
        } else {
            let _ = write!(self.text, " {}={value}", field.name());
        }
    }

    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        if field.name().starts_with("log.") {
            return;
        }
        if field.name() == "message" {
            // The message's own text (format_args!), not a debug dump.
            let text = format!("{value:?}");
            self.text.insert_str(0, &text);
        } else {
            let _ = write!(self.text, " {}={value:?}", field.name());
        }
    }
}

/// What a format string can name (Python's LogRecord, as Salt uses it).
pub struct Record {
    pub level: Level,
    pub name: String,
    pub module: String,
    pub lineno: u32,
    pub message: String,
}

/// Salt's name for a level.
fn level_name(level: Level) -> &'static str {
    match level {
        Level::ERROR => "ERROR",
        Level::WARN => "WARNING",
        Level::INFO => "INFO",
        Level::DEBUG => "DEBUG",
        Level::TRACE => "TRACE",
    }
}

/// Python's `%`-formatting of a log record: `%(key)[flags][width][.prec]conv`
/// and `%%`; an unknown key prints as written.
pub fn format_record(
    fmt: &str,
    datefmt: &str,
    r: &Record,
    now: chrono::DateTime<chrono::Local>,
) -> String {
    let mut out = String::with_capacity(fmt.len() + r.message.len() + 32);
    let mut rest = fmt;
    while let Some(i) = rest.find('%') {
        out.push_str(&rest[..i]);
        rest = &rest[i + 1..];
        if let Some(r2) = rest.strip_prefix('%') {
            out.push('%');
            rest = r2;
            continue;
        }
        let Some(spec) = parse_spec(rest) else {
            out.push('%');
            continue;
        };
        let written = &rest[..spec.len];
        rest = &rest[spec.len..];
        let value = match spec.key {
            "message" => Some(r.message.clone()),
            "levelname" => Some(level_name(r.level).to_string()),
            "name" => Some(r.name.clone()),
            "module" => Some(r.module.clone()),
            "lineno" => Some(r.lineno.to_string()),
            "process" => Some(std::process::id().to_string()),
            "asctime" => Some(
                // chrono's strftime panics on a bad format when written
                // with `to_string`; write! reports it instead.
                {
                    let mut s = String::new();
                    if write!(s, "{}", now.format(datefmt)).is_err() {
                        s = now.format(DEFAULT_DATEFMT_LOGFILE).to_string();
                    }
                    s
                },
            ),
            "msecs" => Some(now.timestamp_subsec_millis().to_string()),
            "created" => Some(format!("{:.6}", now.timestamp_micros() as f64 / 1e6)),
            _ => None,
        };
        match value {
            Some(v) => out.push_str(&pad(&v, &spec)),
            None => {
                out.push('%');
                out.push_str(written);
            }
        }
    }
    out.push_str(rest);
    out
}

struct Spec<'a> {
    key: &'a str,
    left: bool,
    zero: bool,
    width: usize,
    /// Bytes of the format this spec took (after the `%`).
    len: usize,
}

/// `(key)[-0 ][width][.prec]conv` at the start of `s`.
fn parse_spec(s: &str) -> Option<Spec<'_>> {
    let inner = s.strip_prefix('(')?;
    let close = inner.find(')')?;
    let key = &inner[..close];
    let mut i = close + 2;
    let b = s.as_bytes();
    let (mut left, mut zero) = (false, false);
    while let Some(&c) = b.get(i) {
        match c {
            b'-' => left = true,
            b'0' => zero = true,
            b' ' | b'+' | b'#' => {}
            _ => break,
        }
        i += 1;
    }
    let start = i;
    while b.get(i).is_some_and(u8::is_ascii_digit) {
        i += 1;
    }
    let width = s[start..i].parse().unwrap_or(0);
    if b.get(i) == Some(&b'.') {
        i += 1;
        while b.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
    }
    // The conversion letter (s, d, f, ...).
    b.get(i).filter(|c| c.is_ascii_alphabetic())?;
    Some(Spec {
        key,
        left,
        zero,
        width,
        len: i + 1,
    })
}

fn pad(v: &str, spec: &Spec<'_>) -> String {
    let n = v.chars().count();
    if n >= spec.width {
        return v.to_string();
    }
    let fill = spec.width - n;
    if spec.left {
        format!("{v}{}", " ".repeat(fill))
    } else if spec.zero {
        format!("{}{v}", "0".repeat(fill))
    } else {
        format!("{}{v}", " ".repeat(fill))
    }
}

/// A log file opened for appending and opened again when the file at its
/// path is no longer the one held (rotated away or removed).
pub struct WatchedFile {
    path: PathBuf,
    state: Mutex<Held>,
}

struct Held {
    file: std::fs::File,
    id: Option<(u64, u64)>,
    checked: Instant,
}

fn file_id(m: &std::fs::Metadata) -> (u64, u64) {
    use std::os::unix::fs::MetadataExt;
    (m.dev(), m.ino())
}

fn open_append(path: &Path) -> std::io::Result<(std::fs::File, Option<(u64, u64)>)> {
    use std::os::unix::fs::OpenOptionsExt;
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)?;
    }
    let file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .mode(0o640)
        .open(path)?;
    let id = file.metadata().ok().map(|m| file_id(&m));
    Ok((file, id))
}

impl WatchedFile {
    pub fn open(path: &Path) -> std::io::Result<WatchedFile> {
        let (file, id) = open_append(path)?;
        Ok(WatchedFile {
            path: path.to_path_buf(),
            state: Mutex::new(Held {
                file,
                id,
                checked: Instant::now(),
            }),
        })
    }

    /// Append one line (one write: lines of several threads do not mix).
    pub fn write_line(&self, line: &[u8]) {
        let mut g = self.state.lock().unwrap_or_else(|p| p.into_inner());
        if g.checked.elapsed() >= WATCH_EVERY {
            g.checked = Instant::now();
            let now = std::fs::metadata(&self.path).ok().map(|m| file_id(&m));
            if now.is_none() || now != g.id {
                if let Ok((file, id)) = open_append(&self.path) {
                    g.file = file;
                    g.id = id;
                }
            }
        }
        let _ = g.file.write_all(line);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    fn record() -> Record {
        Record {
            level: Level::WARN,
            name: "brine_minion.daemon.jobs".into(),
            module: "jobs".into(),
            lineno: 42,
            message: "hello".into(),
        }
    }

    #[test]
    fn salts_default_formats() {
        let now = chrono::Local
            .with_ymd_and_hms(2026, 11, 28, 6, 50, 1)
            .single()
            .unwrap_or_else(|| panic!("a time"));
        assert_eq!(
            format_record(DEFAULT_FMT_CONSOLE, DEFAULT_DATEFMT, &record(), now),
            "[WARNING ] hello"
        );
        assert_eq!(
            format_record(DEFAULT_FMT_LOGFILE, DEFAULT_DATEFMT_LOGFILE, &record(), now),
            format!(
                "2026-11-28 06:50:01,000 [brine_minion.daemon.jobs:42  ][WARNING ][{}] hello",
                std::process::id()
            )
        );
        assert_eq!(
            format_record(
                "%(asctime)s %% %(nope)s %(levelname)5s|",
                "%H:%M",
                &record(),
                now
            ),
            "06:50 % %(nope)s WARNING|"
        );
        // A stray % and a cut-off spec print as written.
        assert_eq!(
            format_record("100% %(message", "", &record(), now),
            "100% %(message"
        );
    }

    #[test]
    fn salt_log_levels() {
        assert_eq!(filter_for("quiet"), "off");
        assert_eq!(filter_for("WARNING"), "warn");
        assert_eq!(filter_for("garbage"), "trace");
        // Salt's PROFILE (15) sits between DEBUG and INFO: INFO's lines.
        assert_eq!(filter_for("profile"), "info");
    }

    #[test]
    fn options_levels_and_the_default_file() {
        let opts = |pairs: &'static [(&'static str, &'static str)]| {
            move |k: &str| {
                pairs
                    .iter()
                    .find(|(key, _)| *key == k)
                    .map(|(_, v)| v.to_string())
            }
        };
        let c = LogConfig::from_options(opts(&[("log_level", "info")]), None, "/r/m".into());
        assert_eq!(c.file, Some(PathBuf::from("/r/m")));
        assert_eq!(
            (c.console_level.as_str(), c.file_level.as_str()),
            ("info", "info")
        );
        let c = LogConfig::from_options(
            opts(&[("log_level_logfile", "debug"), ("log_file", "/x/y")]),
            Some("error"),
            "/r/m".into(),
        );
        assert_eq!(c.file, Some(PathBuf::from("/x/y")));
        assert_eq!(
            (c.console_level.as_str(), c.file_level.as_str()),
            ("error", "debug")
        );
        let c = LogConfig::from_options(opts(&[("log_file", "")]), None, "/r/m".into());
        assert_eq!(c.file, None);
        let c =
            LogConfig::from_options(opts(&[("log_level_logfile", "quiet")]), None, "/r/m".into());
        assert_eq!(c.file, None);
    }

    #[test]
    fn a_rotated_log_file_is_opened_again() {
        let td = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let path = td.path().join("log/minion");
        let f = WatchedFile::open(&path).unwrap_or_else(|e| panic!("{e}"));
        f.write_line(b"one\n");
        std::fs::rename(&path, td.path().join("log/minion.1")).unwrap_or_else(|e| panic!("{e}"));
        std::thread::sleep(WATCH_EVERY + Duration::from_millis(50));
        f.write_line(b"two\n");
        let read = |p: &Path| std::fs::read_to_string(p).unwrap_or_default();
        assert_eq!(read(&td.path().join("log/minion.1")), "one\n");
        assert_eq!(read(&path), "two\n");
        // copytruncate: the next line lands at the (new) end.
        std::fs::write(&path, "").unwrap_or_else(|e| panic!("{e}"));
        f.write_line(b"three\n");
        assert_eq!(read(&path), "three\n");
    }
}
