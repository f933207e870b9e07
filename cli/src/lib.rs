//! One command-line layer for every brine binary (`brine`, `brine-key`,
//! `brine-run`, `brine-master`, `brine-minion`, `brine-call`).
//!
//! Salt's tools parse their command lines with Python's optparse, and users
//! rely on its rules, so every brine binary follows them here:
//! - options may stand anywhere: before, between or after the positional
//!   words (target, function, `key=value` arguments); `--` ends options;
//! - `--opt value`, `--opt=value`, `-c DIR`, `-cDIR` and clusters of short
//!   flags (`-yA`);
//! - `-h`/`--help` prints the help to stdout and exits 0; `--version`
//!   prints `<prog> <version>` and exits 0;
//! - an unknown option, a missing value or a value given to a flag prints
//!   the usage line and `<prog>: error: <why>` to stderr and exits 64
//!   (Salt's `EX_USAGE`; plain optparse would exit 2).
//!
//! A binary describes its options once in a [`Command`] (which also renders
//! its help) and reads the [`Matches`] it gets back.

pub mod daemonize;
pub mod docs;
pub mod eauth;
pub mod logging;
pub mod start;

use std::ffi::OsString;

/// The exit code of a command-line error: Salt's parsers exit with
/// `EX_USAGE` (64), not optparse's 2 (recorded from salt-key 3007.8).
pub const EX_USAGE: i32 = 64;

/// One option of a command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Opt {
    /// The long name without dashes (`config-dir`); also the key the
    /// option is read back by.
    pub long: &'static str,
    pub short: Option<char>,
    /// `Some(METAVAR)` when the option takes a value.
    pub value: Option<&'static str>,
    pub help: &'static str,
}

impl Opt {
    /// A flag: `--long` / `-s`.
    pub const fn flag(long: &'static str, short: Option<char>, help: &'static str) -> Opt {
        Opt {
            long,
            short,
            value: None,
            help,
        }
    }

    /// An option taking a value: `--long VALUE` / `-s VALUE`.
    pub const fn value(
        long: &'static str,
        short: Option<char>,
        metavar: &'static str,
        help: &'static str,
    ) -> Opt {
        Opt {
            long,
            short,
            value: Some(metavar),
            help,
        }
    }
}

/// `-c/--config-dir DIR`, shared by every binary.
pub const CONFIG_DIR: Opt = Opt::value(
    "config-dir",
    Some('c'),
    "DIR",
    "configuration directory (holding 'master' and 'minion') [/etc/brine]",
);
/// `-l/--log-level LEVEL`.
pub const LOG_LEVEL: Opt = Opt::value(
    "log-level",
    Some('l'),
    "LEVEL",
    "log level: quiet, critical, error, warning, info, debug, trace",
);
/// A daemon's `-d`: detach and run in the background (see [`daemonize`]).
pub const DAEMON: Opt = Opt::flag(
    "daemon",
    Some('d'),
    "run in the background: detached, output on /dev/null, pid in --pid-file",
);
/// `--pid-file PATH` (the `pidfile` option).
pub const PID_FILE: Opt = Opt::value(
    "pid-file",
    None,
    "PATH",
    "where -d writes the daemon's pid (default: the pidfile option)",
);
/// `--log-file PATH` (the `log_file` option).
pub const LOG_FILE: Opt = Opt::value(
    "log-file",
    None,
    "PATH",
    "the log file (default: the log_file option)",
);
/// `--log-file-level LEVEL` (the `log_level_logfile` option).
pub const LOG_FILE_LEVEL: Opt = Opt::value(
    "log-file-level",
    None,
    "LEVEL",
    "the log file's level (default: log_level_logfile, else the log level)",
);

/// `--out OUTPUTTER` (Salt also spells it `--output`).
pub const OUT: Opt = Opt::value(
    "out",
    None,
    "OUTPUTTER",
    "outputter: nested, json, yaml, raw, txt, quiet, highstate",
);
/// `--output`, the other spelling of `--out`.
pub const OUTPUT: Opt = Opt::value("output", None, "OUTPUTTER", "same as --out");
/// `--no-color` / `--force-color` (and the British spellings).
pub const COLOR: [Opt; 4] = [
    Opt::flag("no-color", None, "never colour the output"),
    Opt::flag("no-colour", None, "same as --no-color"),
    Opt::flag(
        "force-color",
        None,
        "colour the output even when not on a terminal",
    ),
    Opt::flag("force-colour", None, "same as --force-color"),
];

/// The shells [`Command::completion`] makes completions for.
pub const SHELLS: [&str; 2] = ["bash", "zsh"];

/// brine's version and the commit it was built from (`0.1.0 (1a2b3c4d5e6f)`),
/// as `--version` and the packages name it.
pub fn version() -> String {
    format!("{} ({})", env!("CARGO_PKG_VERSION"), env!("BRINE_COMMIT"))
}

/// A command: its name, usage line, description and options. `--help` and
/// `--version` are always there.
#[derive(Debug, Clone)]
pub struct Command {
    pub name: &'static str,
    /// What follows the name in the usage line: `[options] TARGET FUNCTION [ARGS...]`.
    pub usage: &'static str,
    pub about: &'static str,
    pub options: Vec<Opt>,
}

/// Why a command line was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CliError {
    #[error("no such option: {0}")]
    NoSuchOption(String),
    #[error("{0} option requires 1 argument")]
    MissingValue(String),
    #[error("{0} option does not take a value")]
    UnexpectedValue(String),
    #[error("{option}: {value:?} is not valid text")]
    NotUnicode { option: String, value: String },
    /// A binary's own check of a value or of the positional words.
    #[error("{0}")]
    Invalid(String),
}

/// What the command line asked for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Parsed {
    Run(Matches),
    Help,
    Version,
    /// `--man-page`: the manual page ([`docs`]).
    ManPage,
    /// `--completion SHELL`.
    Completion(String),
}

/// The options given, in command-line order, and the positional words.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Matches {
    /// `(long name, value)` for each option occurrence.
    pub opts: Vec<(&'static str, Option<String>)>,
    pub positionals: Vec<String>,
}

impl Matches {
    /// Whether the flag was given.
    pub fn flag(&self, long: &str) -> bool {
        self.opts.iter().any(|(n, _)| *n == long)
    }

    /// The last value given for the option (later options win, as in optparse).
    pub fn value(&self, long: &str) -> Option<&str> {
        self.opts
            .iter()
            .rev()
            .find(|(n, _)| *n == long)
            .and_then(|(_, v)| v.as_deref())
    }

    /// The value of the first of `longs` given last (`--out` / `--output`).
    pub fn value_of_any(&self, longs: &[&str]) -> Option<&str> {
        self.opts
            .iter()
            .rev()
            .find(|(n, _)| longs.contains(n))
            .and_then(|(_, v)| v.as_deref())
    }

    /// `--no-color` → `Some(false)`, `--force-color` → `Some(true)`, the last given wins.
    pub fn color(&self) -> Option<bool> {
        self.opts.iter().rev().find_map(|(n, _)| match *n {
            "no-color" | "no-colour" => Some(false),
            "force-color" | "force-colour" => Some(true),
            _ => None,
        })
    }

    /// A value parsed as a number, with an error naming the option.
    pub fn number<T: std::str::FromStr>(&self, long: &str) -> Result<Option<T>, CliError> {
        match self.value(long) {
            None => Ok(None),
            Some(v) => v.parse().map(Some).map_err(|_| {
                CliError::Invalid(format!("option --{long}: invalid number value: {v:?}"))
            }),
        }
    }
}

impl Command {
    /// Parse `argv` (without the program name).
    pub fn parse<I>(&self, argv: I) -> Result<Parsed, CliError>
    where
        I: IntoIterator,
        I::Item: Into<OsString>,
    {
        use lexopt::Arg;
        let mut parser = lexopt::Parser::from_args(argv);
        let mut m = Matches::default();
        loop {
            let arg = match parser.next() {
                Ok(Some(a)) => a,
                Ok(None) => break,
                Err(e) => return Err(lexopt_error(e)),
            };
            let (opt, shown) = match arg {
                Arg::Value(v) => {
                    m.positionals.push(text("argument", v)?);
                    continue;
                }
                Arg::Long("help") | Arg::Short('h') => return Ok(Parsed::Help),
                Arg::Long("version") => return Ok(Parsed::Version),
                Arg::Long("man-page") => return Ok(Parsed::ManPage),
                Arg::Long("completion") => {
                    let shell = parser.value().map_err(lexopt_error)?;
                    return Ok(Parsed::Completion(text("--completion", shell)?));
                }
                Arg::Long(name) => {
                    let shown = format!("--{name}");
                    let opt = self.options.iter().find(|o| o.long == name);
                    (opt.copied(), shown)
                }
                Arg::Short(c) => {
                    let opt = self.options.iter().find(|o| o.short == Some(c));
                    (opt.copied(), format!("-{c}"))
                }
            };
            let Some(opt) = opt else {
                return Err(CliError::NoSuchOption(shown));
            };
            let value = if opt.value.is_some() {
                let v = parser
                    .value()
                    .map_err(|_| CliError::MissingValue(shown.clone()))?;
                Some(text(&shown, v)?)
            } else {
                // `--flag=value` comes back from the next `parser.next()`
                // as an UnexpectedValue error.
                None
            };
            m.opts.push((opt.long, value));
        }
        Ok(Parsed::Run(m))
    }

    /// Parse, or print help/version/an error and exit as optparse does.
    pub fn parse_or_exit<I>(&self, argv: I) -> Matches
    where
        I: IntoIterator,
        I::Item: Into<OsString>,
    {
        match self.parse(argv) {
            Ok(Parsed::Run(m)) => m,
            Ok(Parsed::Help) => {
                print!("{}", self.help());
                std::process::exit(0)
            }
            Ok(Parsed::Version) => {
                println!("{} {}", self.name, version());
                std::process::exit(0)
            }
            Ok(Parsed::ManPage) => {
                print!("{}", self.man_page());
                std::process::exit(0)
            }
            Ok(Parsed::Completion(shell)) => match self.completion(&shell) {
                Some(text) => {
                    print!("{text}");
                    std::process::exit(0)
                }
                None => self.exit_usage(&CliError::Invalid(format!(
                    "--completion: {shell:?} is not one of {}",
                    SHELLS.join(", ")
                ))),
            },
            Err(e) => self.exit_usage(&e),
        }
    }

    /// Print the usage line and `<prog>: error: <why>` to stderr, exit 2.
    pub fn exit_usage(&self, e: &CliError) -> ! {
        eprintln!("{}\n\n{}: error: {e}", self.usage_line(), self.name);
        std::process::exit(EX_USAGE)
    }

    pub fn usage_line(&self) -> String {
        format!("Usage: {} {}", self.name, self.usage)
    }

    /// The `--help` text: usage, description, one line per option.
    pub fn help(&self) -> String {
        let mut rows: Vec<(String, &str)> = Vec::new();
        for o in &self.options {
            let mut names = Vec::new();
            if let Some(s) = o.short {
                names.push(match o.value {
                    Some(v) => format!("-{s} {v}"),
                    None => format!("-{s}"),
                });
            }
            names.push(match o.value {
                Some(v) => format!("--{}={v}", o.long),
                None => format!("--{}", o.long),
            });
            rows.push((names.join(", "), o.help));
        }
        rows.push(("--version".into(), "show the program's version and exit"));
        rows.push(("-h, --help".into(), "show this help message and exit"));
        let width = rows.iter().map(|(n, _)| n.len()).max().unwrap_or(0);
        let mut out = format!("{}\n\n{}\n\nOptions:\n", self.usage_line(), self.about);
        for (names, help) in rows {
            out.push_str(&format!("  {names:width$}  {help}\n"));
        }
        out
    }
}

fn text(what: &str, v: OsString) -> Result<String, CliError> {
    v.into_string().map_err(|v| CliError::NotUnicode {
        option: what.to_string(),
        value: v.to_string_lossy().into_owned(),
    })
}

fn lexopt_error(e: lexopt::Error) -> CliError {
    match e {
        lexopt::Error::MissingValue { option } => {
            CliError::MissingValue(option.unwrap_or_default())
        }
        lexopt::Error::UnexpectedValue { option, .. } => CliError::UnexpectedValue(option),
        lexopt::Error::UnexpectedOption(o) => CliError::NoSuchOption(o),
        other => CliError::Invalid(other.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cmd() -> Command {
        Command {
            name: "brine",
            usage: "[options] TARGET FUNCTION [ARGS...]",
            about: "test",
            options: vec![
                CONFIG_DIR,
                OUT,
                Opt::flag("yes", Some('y'), "yes"),
                Opt::flag("all", Some('A'), "all"),
            ],
        }
    }

    fn run(argv: &[&str]) -> Result<Parsed, CliError> {
        cmd().parse(argv.iter().copied())
    }

    fn matches(argv: &[&str]) -> Matches {
        match run(argv) {
            Ok(Parsed::Run(m)) => m,
            other => panic!("{argv:?}: {other:?}"),
        }
    }

    #[test]
    fn options_anywhere() {
        for argv in [
            &["--out", "json", "web1", "test.ping"][..],
            &["web1", "--out", "json", "test.ping"],
            &["web1", "test.ping", "--out", "json"],
            &["web1", "test.ping", "--out=json"],
        ] {
            let m = matches(argv);
            assert_eq!(m.value("out"), Some("json"), "{argv:?}");
            assert_eq!(m.positionals, ["web1", "test.ping"], "{argv:?}");
        }
        let m = matches(&["web1", "state.apply", "test=True", "--out", "json"]);
        assert_eq!(m.positionals, ["web1", "state.apply", "test=True"]);
    }

    #[test]
    fn double_dash_ends_options() {
        let m = matches(&["web1", "test.echo", "--", "--out", "-x"]);
        assert_eq!(m.positionals, ["web1", "test.echo", "--out", "-x"]);
        assert_eq!(m.value("out"), None);
    }

    #[test]
    fn short_forms() {
        let m = matches(&["-cDIR", "-yA", "x"]);
        assert_eq!(m.value("config-dir"), Some("DIR"));
        assert!(m.flag("yes") && m.flag("all"));
        let m = matches(&["-c", "D2", "x"]);
        assert_eq!(m.value("config-dir"), Some("D2"));
    }

    #[test]
    fn errors_name_the_option() {
        assert_eq!(
            run(&["--bogus"]),
            Err(CliError::NoSuchOption("--bogus".into()))
        );
        assert_eq!(run(&["-Z"]), Err(CliError::NoSuchOption("-Z".into())));
        assert_eq!(
            run(&["x", "--out"]),
            Err(CliError::MissingValue("--out".into()))
        );
        assert_eq!(
            run(&["--yes=1"]),
            Err(CliError::UnexpectedValue("--yes".into()))
        );
        assert_eq!(
            CliError::NoSuchOption("--bogus".into()).to_string(),
            "no such option: --bogus"
        );
    }

    #[test]
    fn help_and_version() {
        assert_eq!(run(&["x", "--help"]), Ok(Parsed::Help));
        assert_eq!(run(&["-h"]), Ok(Parsed::Help));
        assert_eq!(run(&["--version"]), Ok(Parsed::Version));
        let help = cmd().help();
        assert!(help.starts_with("Usage: brine [options] TARGET"));
        assert!(help.contains("-c DIR, --config-dir=DIR"));
    }

    #[test]
    fn last_value_wins() {
        let m = matches(&["--out", "yaml", "x", "--out=json"]);
        assert_eq!(m.value("out"), Some("json"));
    }
}
