//! `brine-run [-c DIR] [--out FMT] FUNCTION [ARGS...]`: Salt's `salt-run`:
//! the `jobs.*` runners (the master's job cache; `jobs.active` asks the
//! minions) and the `manage.*` runners, in Salt's output shapes
//! (`brine_master::runners`).

use brine_core::args::parse_input;
use brine_core::output::{self, stream, OutputOptions};
use brine_core::Value;
use brine_master::daemon::events::announce::Announce;
use brine_master::daemon::events::tags::MasterSide;
use brine_master::daemon::jobs::JobCacheError;
use brine_master::daemon::MasterConfig;
use brine_master::runners::{self, Answer, RunnerError};
use std::path::PathBuf;

#[derive(Debug, PartialEq)]
struct Cli {
    config_dir: PathBuf,
    out: Option<String>,
    color: Option<bool>,
    function: String,
    args: Vec<String>,
    doc: bool,
}

/// `-d/--doc`: print the runners' documentation instead of running one.
const DOC: brine_cli::Opt = brine_cli::Opt::flag(
    "doc",
    Some('d'),
    "print the documentation of the runner named (of all of a module's, given a module; \
of every runner, given none) and exit",
);

fn command() -> brine_cli::Command {
    let mut options = vec![
        brine_cli::CONFIG_DIR,
        brine_cli::OUT,
        brine_cli::OUTPUT,
        DOC,
    ];
    options.extend(brine_cli::COLOR);
    brine_cli::Command {
        name: "brine-run",
        usage: "[options] FUNCTION [ARGUMENTS...]",
        about: "Run a master-side function (Salt's salt-run): jobs.active, jobs.list_jobs, \
jobs.lookup_jid JID [missing=True] [returned=False], jobs.list_job JID, jobs.print_job JID, \
jobs.exit_success JID, manage.status, manage.up, manage.down, manage.present, \
manage.not_present, manage.list_state, manage.list_not_state, manage.joined.",
        options,
    }
}

fn parse(m: brine_cli::Matches) -> Result<Cli, brine_cli::CliError> {
    let mut positional = m.positionals.clone();
    let doc = m.flag("doc");
    if positional.is_empty() && !doc {
        return Err(brine_cli::CliError::Invalid(
            "a function is required".into(),
        ));
    }
    if positional.is_empty() {
        positional.push(String::new());
    }
    Ok(Cli {
        config_dir: PathBuf::from(m.value("config-dir").unwrap_or("/etc/brine")),
        out: m.value_of_any(&["out", "output"]).map(str::to_string),
        color: m.color(),
        function: positional.remove(0),
        args: positional,
        doc,
    })
}

/// Why brine-run could not answer.
#[derive(Debug, thiserror::Error)]
enum RunError {
    #[error(transparent)]
    Config(#[from] brine_master::daemon::config::ConfigError),
    #[error(transparent)]
    Runner(#[from] RunnerError),
    #[error(transparent)]
    Output(#[from] output::OutputError),
    #[error(transparent)]
    Stream(#[from] stream::StreamError<JobCacheError>),
    #[error("cannot start the client: {0}")]
    Runtime(std::io::Error),
}

fn run(cli: &Cli) -> Result<i32, RunError> {
    if cli.doc {
        // Salt's print_docs: each runner named by the argument (itself, or
        // a module's), `name:` then its documentation.
        for (name, doc) in runners::job::docs_of(&cli.function) {
            let doc: Vec<String> = doc.lines().map(|l| format!("    {l}")).collect();
            println!("{name}:\n{}\n", doc.join("\n"));
        }
        return Ok(0);
    }
    let (config, _) = MasterConfig::load(&cli.config_dir)?;
    // salt-run logs to the console at log_level (a runner's warnings, a
    // gitfs remote that failed); never to the master's log file.
    let mut log = brine_cli::logging::LogConfig::from_options(
        |k| brine_compile::opts::text_of(&config.opts, k),
        None,
        PathBuf::new(),
    );
    log.file = None;
    brine_cli::logging::init(&log);
    let call = parse_input(&cli.args);
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(RunError::Runtime)?;
    let mut call = call;
    let mut announce = Announce::new(
        &config.sock_dir,
        MasterSide::Runner,
        &cli.function,
        "root",
        &call,
    );
    runners::job::hand_jid(&cli.function, &mut call, &mut announce);
    let out = |asked: Option<String>| cli.out.clone().or(asked).unwrap_or_else(|| "nested".into());
    let mut opts = OutputOptions::for_stdout();
    if let Some(c) = cli.color {
        opts.color = c;
    }
    let answer = match rt.block_on(runners::job::run(&config, &announce, &cli.function, call)) {
        Ok(a) => a,
        // A runner that failed while it ran: salt-run answers what it
        // raised (through the outputter, as its return), and exits 1.
        Err(e @ (RunnerError::Failed(_) | RunnerError::NotImplemented)) => {
            let said = match e {
                RunnerError::NotImplemented => String::new(),
                e => format!("Exception occurred in runner {}: {e}", cli.function),
            };
            print!(
                "{}",
                output::render_data(&out(None), &Value::Str(said), &opts)?
            );
            return Ok(1);
        }
        Err(e) => return Err(e.into()),
    };
    match answer {
        Answer::Data {
            data,
            outputter,
            progress,
            ordered_from,
        } => {
            opts.ordered_from_depth = ordered_from;
            // salt-run prints a runner's progress events as they come,
            // with the outputter each names.
            if let Some((event, shown_with)) = progress {
                print!(
                    "{}",
                    output::render_data(&out(Some(shown_with)), &event, &opts)?
                );
            }
            print!("{}", output::render_data(&out(outputter), &data, &opts)?);
            // salt-run exits with a runner's retcode (the orchestrate
            // runner's: 1 when a step failed).
            return Ok(retcode(&data));
        }
        // A job's returns are printed as they are read from the job cache.
        Answer::Returns {
            mut returns,
            outputter,
        } => {
            let stdout = std::io::stdout();
            let mut w = std::io::BufWriter::new(stdout.lock());
            stream::render_entries(&out(outputter), &opts, &mut *returns, &mut w)?;
        }
    }
    Ok(0)
}

/// The exit code a runner's answer asks for: its `retcode`, or its
/// data's (older runners), else 0.
fn retcode(data: &Value) -> i32 {
    let code = |v: Option<&Value>| match v {
        Some(Value::Int(c)) => i32::try_from(*c).ok(),
        _ => None,
    };
    let m = data.as_map();
    code(m.and_then(|m| m.get("retcode")))
        .or_else(|| code(m.and_then(|m| m.get("data")).and_then(|d| d.get("retcode"))))
        .unwrap_or(0)
}

fn main() {
    let cmd = command();
    let cli = parse(cmd.parse_or_exit(std::env::args_os().skip(1)))
        .unwrap_or_else(|e| cmd.exit_usage(&e));
    match run(&cli) {
        Ok(code) => std::process::exit(code),
        Err(e) => {
            eprintln!("brine-run: {e}");
            std::process::exit(1);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options() {
        let parse_argv = |argv: &[&str]| match command().parse(argv.iter().copied()) {
            Ok(brine_cli::Parsed::Run(m)) => parse(m),
            other => panic!("{argv:?}: {other:?}"),
        };
        let c = parse_argv(&["-c", "/x", "jobs.lookup_jid", "1", "--out", "json"]).unwrap();
        assert_eq!(c.config_dir, PathBuf::from("/x"));
        assert_eq!(c.args, vec!["1".to_string()]);
        assert_eq!(c.out.as_deref(), Some("json"));
        assert!(parse_argv(&[]).is_err());
    }
}
