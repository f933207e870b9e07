//! `brine [-c DIR] [-E|-L|-G|-P|-I|-J|-N|-S|-C] TARGET FUNCTION [ARGS...]`:
//! Salt's `salt` command. Publishes through the local master (root token),
//! prints each minion's return as it arrives with the minion's outputter
//! (or `--out`; `--out json` is one document per minion, as Salt prints
//! them), then the minions that did not return; exits non-zero when a
//! minion failed or did not return. `--static` prints one document of the
//! returns once all are in, leaving out minions that did not return, as
//! Salt does. `--async` prints the jid.

use brine_core::args::parse_input;
use brine_core::output::{self, OutputOptions};
use brine_core::{Map, Value};
use brine_master::daemon::client::{Client, GATHER_JOB_TIMEOUT};
use brine_master::daemon::MasterConfig;
use brine_protocol::messages::MinionReturn;
use std::collections::HashSet;
use std::io::Write;
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// Salt's EX_GENERIC.
const EX_GENERIC: i32 = 1;
/// Salt's exit for "no return received" / usage errors.
const EX_USAGE: i32 = 2;

#[derive(Debug, Clone, PartialEq)]
struct Cli {
    config_dir: PathBuf,
    tgt_type: String,
    timeout: Option<u64>,
    out: Option<String>,
    is_static: bool,
    is_async: bool,
    verbose: bool,
    color: Option<bool>,
    target: String,
    function: String,
    args: Vec<String>,
}

/// Target-type flags: the option and the `tgt_type` Salt sends.
const TARGET_TYPES: [(&str, char, &str, &str); 9] = [
    ("pcre", 'E', "pcre", "the target is a regular expression"),
    (
        "list",
        'L',
        "list",
        "the target is a comma-separated list of ids",
    ),
    (
        "grain",
        'G',
        "grain",
        "the target is a grain glob (key:value)",
    ),
    (
        "grain-pcre",
        'P',
        "grain_pcre",
        "the target is a grain regular expression",
    ),
    (
        "pillar",
        'I',
        "pillar",
        "the target is a pillar glob (key:value)",
    ),
    (
        "pillar-pcre",
        'J',
        "pillar_pcre",
        "the target is a pillar regular expression",
    ),
    ("nodegroup", 'N', "nodegroup", "the target is a nodegroup"),
    (
        "ipcidr",
        'S',
        "ipcidr",
        "the target is an IP address or network",
    ),
    (
        "compound",
        'C',
        "compound",
        "the target is a compound expression",
    ),
];

fn command() -> brine_cli::Command {
    use brine_cli::Opt;
    let mut options = vec![
        brine_cli::CONFIG_DIR,
        Opt::value(
            "timeout",
            Some('t'),
            "TIMEOUT",
            "seconds to wait for returns [the master's timeout]",
        ),
        brine_cli::OUT,
        brine_cli::OUTPUT,
        Opt::flag("static", Some('s'), "print the returns once all are in"),
        Opt::flag("async", None, "publish and print the jid without waiting"),
        Opt::flag(
            "verbose",
            Some('v'),
            "show the jid and the minions that did not return",
        ),
        // Accepted for compatibility; brine always shows all returns.
        Opt::flag("hide-timeout", None, "accepted for compatibility"),
        Opt::flag("show-jid", None, "accepted for compatibility"),
        Opt::flag("summary", None, "accepted for compatibility"),
    ];
    options.extend(brine_cli::COLOR);
    options.extend(
        TARGET_TYPES
            .iter()
            .map(|&(long, short, _, help)| Opt::flag(long, Some(short), help)),
    );
    brine_cli::Command {
        name: "brine",
        usage: "[options] TARGET FUNCTION [ARGUMENTS...]",
        about: "Publish a function to the minions matching TARGET and print their returns (Salt's salt).",
        options,
    }
}

fn parse(m: brine_cli::Matches) -> Result<Cli, brine_cli::CliError> {
    // The last target-type flag given wins.
    let tgt_type = m
        .opts
        .iter()
        .rev()
        .find_map(|(n, _)| TARGET_TYPES.iter().find(|t| t.0 == *n).map(|t| t.2))
        .unwrap_or("glob");
    let mut positional = m.positionals.clone();
    if positional.len() < 2 {
        return Err(brine_cli::CliError::Invalid(
            "a target and a function are required".into(),
        ));
    }
    Ok(Cli {
        config_dir: PathBuf::from(m.value("config-dir").unwrap_or("/etc/brine")),
        tgt_type: tgt_type.into(),
        timeout: m.number("timeout")?,
        out: m.value_of_any(&["out", "output"]).map(str::to_string),
        is_static: m.flag("static"),
        is_async: m.flag("async"),
        verbose: m.flag("verbose"),
        color: m.color(),
        target: positional.remove(0),
        function: positional.remove(0),
        args: positional,
    })
}

fn main() {
    let cmd = command();
    let cli = parse(cmd.parse_or_exit(std::env::args_os().skip(1)))
        .unwrap_or_else(|e| cmd.exit_usage(&e));
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("error"));
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .init();
    let code = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt.block_on(run(&cli)),
        Err(e) => {
            eprintln!("brine: {e}");
            EX_GENERIC
        }
    };
    std::process::exit(code);
}

/// Salt's no_return outputter text for a minion that did not answer.
fn no_return_text(id: &str, jid: &str, color: bool) -> String {
    let msg = no_return_message(jid);
    let (cyan, red, end) = if color {
        ("\x1b[0;36m", "\x1b[0;31m", "\x1b[0;0m")
    } else {
        ("", "", "")
    };
    let mut out = format!("{cyan}{id}{end}:\n");
    for line in msg.split('\n') {
        out.push_str(&format!("{red}    {line}{end}\n"));
    }
    out
}

fn no_return_message(jid: &str) -> String {
    format!(
        "Minion did not return. [No response]\nThe minions may not have all finished running and \
         any remaining minions will return upon completion. To look up the return data for this \
         job later, run the following command:\n\nbrine-run jobs.lookup_jid {jid}"
    )
}

fn options(cli: &Cli, retcode: i64) -> OutputOptions {
    let mut o = OutputOptions::for_stdout();
    if let Some(c) = cli.color {
        o.color = c;
    }
    o.retcode = retcode;
    o
}

/// Print one minion's return with its outputter (or `--out`).
fn print_return(cli: &Cli, id: &str, r: &MinionReturn) {
    let out = cli
        .out
        .clone()
        .or_else(|| r.out.clone())
        .unwrap_or_else(|| "nested".into());
    match output::render_with(&out, id, &r.ret, &options(cli, r.retcode)) {
        Ok(text) => {
            print!("{text}");
            let _ = std::io::stdout().flush();
        }
        Err(e) => eprintln!("brine: {id}: {e}"),
    }
}

async fn run(cli: &Cli) -> i32 {
    let (config, _warnings) = match MasterConfig::load(&cli.config_dir) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("brine: {e}");
            return EX_GENERIC;
        }
    };
    let timeout = cli.timeout.unwrap_or(config.timeout);
    let mut client = match Client::for_config(&config) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("brine: {e}");
            return EX_GENERIC;
        }
    };
    let call = parse_input(&cli.args);
    let published = client
        .publish(
            target_value(&cli.target, &cli.tgt_type),
            &cli.tgt_type,
            &cli.function,
            call.args,
            call.kwargs,
            timeout,
        )
        .await;
    let published = match published {
        Ok(p) => p,
        Err(e) => {
            eprintln!("brine: {e}");
            return EX_GENERIC;
        }
    };
    if published.minions.is_empty() {
        println!("No minions matched the target. No command was sent, no jid was assigned.");
        eprintln!("ERROR: No return received");
        return EX_USAGE;
    }
    if cli.is_async {
        println!("Executed command with job ID: {}", published.jid);
        return 0;
    }
    if cli.verbose {
        println!(
            "Executing job with jid {}\n-------------------------------------------\n",
            published.jid
        );
    }
    let collect = cli.is_static;
    let expected: HashSet<&str> = published.minions.iter().map(String::as_str).collect();
    let mut shown: HashSet<String> = HashSet::new();
    let mut all: Vec<(String, MinionReturn)> = Vec::new();
    let mut deadline = Instant::now() + Duration::from_secs(timeout);
    let mut pause = Duration::from_millis(20);
    loop {
        match client.returns(&published.jid).await {
            Ok(r) => {
                for (id, ret) in r.returns {
                    if shown.insert(id.clone()) {
                        if !collect {
                            print_return(cli, &id, &ret);
                        }
                        all.push((id, ret));
                    }
                }
            }
            Err(e) => tracing::warn!("{e}"),
        }
        if expected.iter().all(|id| shown.contains(*id)) {
            break;
        }
        if Instant::now() >= deadline {
            // Salt's gather_job_info: minions still running the job get
            // another timeout; the others are reported as not returning.
            let missing: Vec<String> = expected
                .iter()
                .filter(|id| !shown.contains(**id))
                .map(|id| id.to_string())
                .collect();
            if client
                .still_running(&published.jid, &missing, GATHER_JOB_TIMEOUT)
                .await
            {
                deadline = Instant::now() + Duration::from_secs(timeout);
                continue;
            }
            break;
        }
        tokio::time::sleep(pause.min(deadline.saturating_duration_since(Instant::now()))).await;
        pause = (pause * 2).min(Duration::from_millis(200));
    }
    let mut missing: Vec<&str> = expected
        .iter()
        .copied()
        .filter(|id| !shown.contains(*id))
        .collect();
    missing.sort();

    if collect {
        // Salt's --static: the returns only; minions that did not return
        // are left out, and the exit code is 0 (see below).
        let mut doc = Map::new();
        let mut retcode = 0;
        for (id, r) in &all {
            retcode = retcode.max(r.retcode);
            doc.insert(id.clone(), r.ret.clone());
        }
        let out = cli.out.clone().unwrap_or_else(|| {
            all.first()
                .and_then(|(_, r)| r.out.clone())
                .unwrap_or_else(|| "nested".into())
        });
        let opts = options(cli, retcode);
        let data = Value::Map(doc);
        let text = match out.as_str() {
            "json" => Ok(output::json::output(&data, &opts)),
            _ => print_static(&out, &data, &opts),
        };
        match text {
            Ok(t) => {
                let t = t.trim_end();
                if !t.is_empty() {
                    println!("{t}");
                }
            }
            Err(e) => eprintln!("brine: {e}"),
        }
        missing.clear();
    } else {
        let color = options(cli, 0).color;
        for id in &missing {
            let message = Value::Str(no_return_message(&published.jid));
            match cli.out.as_deref() {
                // With --out, the message goes through that outputter, as
                // Salt's does (a JSON document, a YAML string...).
                Some(out) if out != "nested" => {
                    match output::render_with(out, id, &message, &options(cli, 1)) {
                        Ok(text) => print!("{text}"),
                        Err(e) => eprintln!("brine: {id}: {e}"),
                    }
                }
                _ => print!("{}", no_return_text(id, &published.jid, color)),
            }
        }
    }
    let _ = std::io::stdout().flush();

    let mut code = 0;
    // Salt says the same for a minion that failed and one that did not
    // return. `--static` goes through Salt's quiet batch path, which never
    // exits with the minions' retcode.
    if !collect && (!missing.is_empty() || all.iter().any(|(_, r)| r.retcode != 0)) {
        eprintln!("ERROR: Minions returned with non-zero exit code");
        code = EX_GENERIC;
    }
    if all.is_empty() && missing.is_empty() {
        eprintln!("ERROR: No return received");
        code = EX_USAGE;
    }
    code
}

/// The target as Salt's CLI publishes it: a `-L` target is a list of ids
/// (split at commas, spaces removed; without a comma, at whitespace), kept
/// as a list in the job cache; any other is the expression string.
fn target_value(target: &str, tgt_type: &str) -> Value {
    if tgt_type != "list" {
        return Value::Str(target.to_string());
    }
    let ids: Vec<Value> = if target.contains(',') {
        target
            .replace(' ', "")
            .split(',')
            .map(|s| Value::Str(s.to_string()))
            .collect()
    } else {
        target
            .split_whitespace()
            .map(|s| Value::Str(s.to_string()))
            .collect()
    };
    Value::List(ids)
}

/// `--static` with another outputter: each minion's part rendered in turn.
fn print_static(
    out: &str,
    data: &Value,
    opts: &OutputOptions,
) -> Result<String, output::OutputError> {
    let mut text = String::new();
    if let Value::Map(m) = data {
        for (id, ret) in m {
            text.push_str(&output::render_with(out, id, ret, opts)?);
        }
    }
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_argv(argv: &[&str]) -> Result<Cli, brine_cli::CliError> {
        match command().parse(argv.iter().copied())? {
            brine_cli::Parsed::Run(m) => parse(m),
            other => panic!("{argv:?}: {other:?}"),
        }
    }

    fn v(a: &[&str]) -> Vec<String> {
        a.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn salt_command_lines() {
        let c = parse_argv(&[
            "-c",
            "/x",
            "--out",
            "json",
            "-t",
            "60",
            "minion1",
            "state.apply",
            "web",
            "pillarenv=testing",
        ])
        .unwrap();
        assert_eq!(c.config_dir, PathBuf::from("/x"));
        assert_eq!(c.out.as_deref(), Some("json"));
        assert_eq!(c.timeout, Some(60));
        assert_eq!(c.target, "minion1");
        assert_eq!(
            target_value("web1, db1", "list"),
            Value::List(vec!["web1".into(), "db1".into()])
        );
        assert_eq!(
            target_value("web1 db1", "list"),
            Value::List(vec!["web1".into(), "db1".into()])
        );
        assert_eq!(target_value("web1,db1", "glob"), Value::from("web1,db1"));
        assert_eq!(c.function, "state.apply");
        assert_eq!(c.args, v(&["web", "pillarenv=testing"]));
        assert_eq!(c.tgt_type, "glob");
        // Options anywhere, as with salt (optparse): after the function too.
        let c = parse_argv(&["-G", "os:Debian", "test.ping", "--async"]).unwrap();
        assert_eq!(c.tgt_type, "grain");
        assert!(c.is_async);
        assert!(c.args.is_empty());
        let c = parse_argv(&["web1", "state.apply", "test=True", "--out", "json"]).unwrap();
        assert_eq!(c.out.as_deref(), Some("json"));
        assert_eq!(c.args, v(&["test=True"]));
        let c = parse_argv(&["-C", "--async", "G@os:Debian and web*", "test.ping"]).unwrap();
        assert!(c.is_async);
        assert_eq!(c.tgt_type, "compound");
        // `--` ends options: what follows reaches the function.
        let c = parse_argv(&["web1", "test.echo", "--", "-x"]).unwrap();
        assert_eq!(c.args, v(&["-x"]));
        assert!(parse_argv(&["*"]).is_err());
        assert!(parse_argv(&["-t", "soon", "*", "test.ping"]).is_err());
        assert_eq!(
            parse_argv(&["--bogus", "*", "test.ping"]).unwrap_err(),
            brine_cli::CliError::NoSuchOption("--bogus".into())
        );
        assert_eq!(command().parse(["-h"]).unwrap(), brine_cli::Parsed::Help);
    }

    #[test]
    fn no_return_reads_as_salts() {
        let t = no_return_text("web2", "123", false);
        assert!(t.starts_with("web2:\n    Minion did not return. [No response]\n"));
        assert!(t.ends_with("    brine-run jobs.lookup_jid 123\n"));
    }
}
