//! `brine-call`: salt-call's command line. `--local` (or `file_client:
//! local`) runs the function in this process against the local trees;
//! otherwise the minion joins its master for the call
//! ([`crate::daemon::caller`]): pillar, states, files, the mine and events
//! come from there, as salt-call's do.

use brine_core::args::parse_input;
use brine_core::output;
use brine_core::{Map, Value};
use brine_host::jobs::{proc_dir, Jobs, ProcFile};
use brine_runtime::context::Minion;
use brine_runtime::modules::{self, Output};
use std::path::PathBuf;

/// The parsed command line.
#[derive(Debug, Clone, PartialEq)]
pub struct Cli {
    pub confdir: PathBuf,
    pub local: bool,
    pub out: Option<String>,
    pub log_level: Option<String>,
    /// `--no-color` (false) / `--force-color` (true); unset: only on a TTY.
    pub color: Option<bool>,
    pub function: String,
    pub args: Vec<String>,
    /// `--retcode-passthrough`: exit with the function's retcode, not 1.
    pub retcode_passthrough: bool,
}

/// salt-call's options (the ones brine reads).
pub fn command() -> brine_cli::Command {
    use brine_cli::Opt;
    let mut options = vec![
        brine_cli::CONFIG_DIR,
        Opt::flag(
            "local",
            None,
            "run against the local trees, without a master",
        ),
        Opt::value(
            "timeout",
            Some('t'),
            "TIMEOUT",
            "taken as salt-call takes it: signing in to the master waits auth_timeout × auth_tries whatever it says",
        ),
        brine_cli::OUT,
        brine_cli::OUTPUT,
        brine_cli::LOG_LEVEL,
        Opt::flag(
            "retcode-passthrough",
            None,
            "exit with the function's own retcode (e.g. 5 for a pillar that failed to render) instead of 1",
        ),
    ];
    options.extend(brine_cli::COLOR);
    brine_cli::Command {
        name: "brine-call",
        usage: "[options] FUNCTION [ARGUMENTS...]",
        about: "Run one function on this minion (Salt's salt-call).",
        options,
    }
}

/// The command line from its parsed options. Options may come before or
/// after the function, as with salt-call; `--` ends options.
pub fn from_matches(m: brine_cli::Matches) -> Result<Cli, brine_cli::CliError> {
    let mut positional = m.positionals.clone();
    if positional.is_empty() {
        return Err(brine_cli::CliError::Invalid(
            "a function to call is required".into(),
        ));
    }
    Ok(Cli {
        confdir: PathBuf::from(m.value("config-dir").unwrap_or("/etc/brine")),
        local: m.flag("local"),
        out: m.value_of_any(&["out", "output"]).map(str::to_string),
        log_level: m.value("log-level").map(str::to_string),
        color: m.color(),
        function: positional.remove(0),
        args: positional,
        retcode_passthrough: m.flag("retcode-passthrough"),
    })
}

/// Run a parsed command line; returns the process exit code.
pub fn run(cli: &Cli) -> i32 {
    let (mut minion, warnings) = match Minion::load(&cli.confdir, modules::functions()) {
        Ok(m) => m,
        Err(e) => {
            eprintln!("Error: {e}");
            return 2;
        }
    };
    for w in warnings {
        tracing::warn!("{w}");
    }
    minion.key_finger = Some(crate::daemon::keys::finger);
    let through_master = !cli.local && !brine_compile::opts::masterless(&minion.opts);
    if !through_master {
        // Masterless: gitfs fetched, the pillar of the local trees.
        minion.start_masterless();
    }
    // `--out highstate` keeps the function's own outputter (Salt's
    // get_printout lets every other `--out` win).
    let declared = modules::find(&cli.function).map(|f| f.output);
    let out = match cli.out.as_deref() {
        None | Some("highstate") => declared.map_or("nested", |o| o.name()).to_string(),
        Some(o) => o.to_string(),
    };
    let args = parse_input(&cli.args);
    // This call is a job other processes see (salt-call's proc file): a
    // state run here and one in the daemon, or in another brine-call,
    // know of each other.
    let jid = brine_host::time::jid(brine_host::time::now_micros(), false);
    let cachedir = brine_compile::opts::cachedir(&minion.opts);
    if let Err(e) = brine_host::jobs::private_cachedir(&cachedir) {
        tracing::warn!("cannot make cachedir {} private: {e}", cachedir.display());
    }
    minion.jobs = Jobs::call(jid.clone()).with_cachedir(&cachedir);
    let _proc_file = match ProcFile::write(&cachedir, &jid, &proc_data(&cli.function, &jid)) {
        Ok(f) => Some(f),
        Err(e) => {
            eprintln!(
                "Cannot write to process directory. Do you have permissions to write to {} ? ({e})",
                proc_dir(&cachedir).join(&jid).display()
            );
            None
        }
    };
    let mut oopts = output_options(cli, declared.and_then(Output::ordered_from));
    oopts.highstate = output::highstate::HighstateOptions::from_opts(&minion.opts);
    let result = if through_master {
        // salt-call with `file_client: remote`: pillar, states, files,
        // the mine and events through the master.
        match crate::daemon::caller::call(minion, &cli.function, args, &cli.args, &jid) {
            Ok(r) => r,
            Err(e) => {
                eprintln!("{e}");
                return 1;
            }
        }
    } else {
        crate::daemon::local_bus::call(&mut minion, &cli.function, args, &cli.args)
    };
    let retcode = match result {
        Ok(ret) => {
            // salt-call: a dict answer whose `result` or `success` is false
            // is a failure too.
            let failed = ret.value.as_map().is_some_and(|m| {
                ["result", "success"]
                    .iter()
                    .any(|k| m.get(*k).is_some_and(|v| !v.is_truthy()))
            });
            let retcode = if ret.retcode == 0 && failed {
                1
            } else {
                ret.retcode
            };
            match output::render_owned(&out, "local", ret.value, &oopts) {
                Ok(text) => {
                    print!("{text}");
                    retcode
                }
                Err(e) => {
                    eprintln!("Error: {e}");
                    return 2;
                }
            }
        }
        // A function that ran and raised (Salt's CommandExecutionError):
        // salt-call says so on stderr.
        Err(modules::CallError::Failed(msg)) => {
            eprintln!("Error running '{}': {msg}", cli.function);
            1
        }
        // Arguments that do not bind (Python's TypeError): salt-call
        // names the error on stderr and prints the function's doc.
        Err(modules::CallError::InvalidArguments(msg)) => {
            eprint!("\nPassed invalid arguments: {msg}.\n\nUsage:\n");
            if let Some(f) = modules::find(&cli.function) {
                println!("{}", f.doc);
            }
            1
        }
        // Salt's SaltInvocationError: salt-call exits with its message.
        Err(modules::CallError::Invocation(msg)) => {
            eprintln!("{msg}");
            1
        }
        Err(e) => {
            println!("{e}");
            e.retcode()
        }
    };
    exit_code(retcode, cli.retcode_passthrough)
}

/// What salt-call's proc file says of the call.
fn proc_data(fun: &str, jid: &str) -> Map {
    let mut m = Map::default();
    m.insert("fun".into(), Value::Str(fun.into()));
    m.insert("pid".into(), Value::Int(i64::from(std::process::id())));
    m.insert("jid".into(), Value::Str(jid.into()));
    m.insert("tgt".into(), Value::Str("salt-call".into()));
    m
}

/// salt-call's exit code: the function's retcode with
/// `--retcode-passthrough`, else 1 for any non-zero retcode.
fn exit_code(retcode: i32, passthrough: bool) -> i32 {
    match retcode {
        0 => 0,
        r if passthrough => r,
        _ => 1,
    }
}

/// How the return is printed: colour as asked (else only on a terminal),
/// and which mappings Salt would hold as `OrderedDict` (YAML-loaded pillar
/// data) rather than plain dicts, which the nested outputter sorts.
fn output_options(cli: &Cli, ordered_from: Option<usize>) -> output::OutputOptions {
    let mut o = output::OutputOptions::for_stdout();
    if let Some(c) = cli.color {
        o.color = c;
    }
    o.ordered_from_depth = ordered_from;
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(a: &[&str]) -> Vec<String> {
        a.iter().map(|s| s.to_string()).collect()
    }

    fn parse_cli(argv: &[String]) -> Result<Cli, brine_cli::CliError> {
        match command().parse(argv)? {
            brine_cli::Parsed::Run(m) => from_matches(m),
            other => panic!("{argv:?}: {other:?}"),
        }
    }

    #[test]
    fn parses_salt_call_lines() {
        let c = parse_cli(&v(&[
            "-c",
            "/x",
            "--local",
            "--out",
            "json",
            "pillar.items",
            "pillarenv=t",
        ]))
        .unwrap();
        assert_eq!(c.confdir, PathBuf::from("/x"));
        assert!(c.local);
        assert_eq!(c.out.as_deref(), Some("json"));
        assert_eq!(c.function, "pillar.items");
        assert_eq!(c.args, v(&["pillarenv=t"]));
        let c = parse_cli(&v(&["pillar.get", "a", "--out=yaml", "--local"])).unwrap();
        assert_eq!(c.out.as_deref(), Some("yaml"));
        assert_eq!(c.args, v(&["a"]));
        assert!(parse_cli(&v(&["--local"])).is_err());
        assert!(parse_cli(&v(&["--bogus", "x"])).is_err());
    }
}
