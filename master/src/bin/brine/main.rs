//! `brine [-c DIR] [-E|-L|-G|-P|-I|-J|-N|-S|-C] TARGET FUNCTION [ARGS...]`:
//! Salt's `salt` command. Publishes through the local master (root token),
//! prints each minion's return as it arrives with the minion's outputter
//! (or `--out`; `--out json` is one document per minion, as Salt prints
//! them), then the minions that did not return; exits non-zero when a
//! minion failed or did not return. `--static` prints one document of the
//! returns once all are in, leaving out minions that did not return, as
//! Salt does. `--async` prints the jid.
//!
//! Salt's output options: `--out-file` (returns appended to a file,
//! emptied first unless `--out-file-append`), `--out-indent` (json, yaml),
//! `--state-output`/`--state-verbose` (highstate), `--hide-timeout`,
//! `--show-jid`, `--summary`, `-p` (Salt's progress bar on stderr, as
//! Salt 3007.8 draws it with the progressbar 2.5 package, then the
//! summary) and `--failhard` (only `--static`, Salt's batch path, stops
//! at the first failed return; without batch Salt ignores it).
//!
//! `-b N` / `-b N%` (`--batch-wait S`) runs the job a batch at a time
//! ([`batch`]).

mod batch;

use brine_core::args::parse_input;
use brine_core::output::highstate::HighstateOptions;
use brine_core::output::{self, OutputIndent, OutputOptions};
use brine_core::{Map, Value};
use brine_master::daemon::client::{Client, ClientError};
use brine_master::daemon::MasterConfig;
use brine_protocol::messages::ErrorCode;
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
    out_file: Option<PathBuf>,
    out_file_append: bool,
    out_indent: Option<i64>,
    state_output: Option<String>,
    state_verbose: Option<String>,
    /// Minions that did not return are printed (no `--hide-timeout`).
    show_timeout: bool,
    show_jid: bool,
    summary: bool,
    progress: bool,
    failhard: bool,
    /// `-b`: run in batches of this size (`3`, `10%`).
    batch: Option<String>,
    /// `--batch-wait`: seconds a finished minion's place stays empty.
    batch_wait: f64,
    /// `-a` and its companions.
    eauth: Option<brine_cli::eauth::EauthArgs>,
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
        Opt::value(
            "out-indent",
            None,
            "N",
            "indent json/yaml output by N spaces (negative: one line)",
        ),
        Opt::value("output-indent", None, "N", "same as --out-indent"),
        Opt::value(
            "out-file",
            None,
            "FILE",
            "write the output to FILE (emptied first)",
        ),
        Opt::value("output-file", None, "FILE", "same as --out-file"),
        Opt::flag(
            "out-file-append",
            None,
            "append to --out-file instead of emptying it",
        ),
        Opt::flag("output-file-append", None, "same as --out-file-append"),
        Opt::value(
            "state-output",
            None,
            "MODE",
            "highstate output: full, terse, mixed, changes or filter (_id forms too)",
        ),
        Opt::value("state_output", None, "MODE", "same as --state-output"),
        Opt::value(
            "state-verbose",
            None,
            "BOOL",
            "False hides states that succeeded without changes",
        ),
        Opt::value("state_verbose", None, "BOOL", "same as --state-verbose"),
        Opt::flag(
            "hide-timeout",
            None,
            "do not print minions that did not return",
        ),
        Opt::flag("show-jid", None, "print the jid first"),
        Opt::flag("summary", None, "print a summary of the returns"),
        Opt::flag(
            "progress",
            Some('p'),
            "draw a progress bar of the returns on stderr, then the summary",
        ),
        Opt::flag(
            "failhard",
            None,
            "with --static or -b, stop at the first failed return",
        ),
        Opt::value(
            "batch",
            Some('b'),
            "SIZE",
            "run on SIZE minions at a time (a number, or a percentage: 10%)",
        ),
        Opt::value("batch-size", None, "SIZE", "same as --batch"),
        Opt::value(
            "batch-wait",
            None,
            "SECONDS",
            "keep a finished minion's place in the batch empty this long",
        ),
    ];
    options.extend(brine_cli::COLOR);
    options.extend(brine_cli::eauth::OPTIONS);
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
        out_file: m
            .value_of_any(&["out-file", "output-file"])
            .map(PathBuf::from),
        out_file_append: m.flag("out-file-append") || m.flag("output-file-append"),
        out_indent: out_indent(&m)?,
        state_output: m
            .value_of_any(&["state-output", "state_output"])
            .map(str::to_string),
        state_verbose: m
            .value_of_any(&["state-verbose", "state_verbose"])
            .map(str::to_string),
        show_timeout: !m.flag("hide-timeout"),
        show_jid: m.flag("show-jid"),
        summary: m.flag("summary"),
        progress: m.flag("progress"),
        failhard: m.flag("failhard"),
        batch: m
            .value_of_any(&["batch", "batch-size"])
            .filter(|b| !b.is_empty())
            .map(str::to_string),
        batch_wait: match m.value("batch-wait") {
            None => 0.0,
            Some(v) => v.trim().parse().map_err(|_| {
                brine_cli::CliError::Invalid(format!(
                    "option --batch-wait: invalid floating-point value: '{v}'"
                ))
            })?,
        },
        eauth: brine_cli::eauth::EauthArgs::from_matches(&m),
        target: positional.remove(0),
        function: positional.remove(0),
        args: positional,
    })
}

/// `--out-indent N` / `--output-indent N`, an integer as optparse reads it.
fn out_indent(m: &brine_cli::Matches) -> Result<Option<i64>, brine_cli::CliError> {
    let Some((name, Some(v))) = m
        .opts
        .iter()
        .rev()
        .find(|(n, _)| *n == "out-indent" || *n == "output-indent")
    else {
        return Ok(None);
    };
    v.trim().parse().map(Some).map_err(|_| {
        brine_cli::CliError::Invalid(format!(
            "option --{name}: invalid integer value: {}",
            brine_core::py::str_repr(v)
        ))
    })
}

fn main() {
    let cmd = command();
    let cli = parse(cmd.parse_or_exit(std::env::args_os().skip(1)))
        .unwrap_or_else(|e| cmd.exit_usage(&e));
    // Salt empties the output file while reading the command line, before
    // anything is published.
    if let (Some(path), false) = (&cli.out_file, cli.out_file_append) {
        if path.is_file() {
            if let Err(e) = std::fs::File::create(path) {
                cmd.exit_usage(&brine_cli::CliError::Invalid(format!(
                    "{}: Access denied: {e}",
                    path.display()
                )));
            }
        }
    }
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

/// Why a command could not finish after it was read.
#[derive(Debug, thiserror::Error)]
enum RunError {
    #[error("{0}")]
    Config(#[from] brine_master::daemon::config::ConfigError),
    #[error("{0}")]
    Client(#[from] ClientError),
    /// The `--out-file` could not be written (Salt fails with a traceback
    /// and exit 1 there).
    #[error("{path}: {source}")]
    OutFile {
        path: String,
        source: std::io::Error,
    },
}

/// Where Salt's `display_output` writes: stdout, or appended to the
/// `--out-file` (opened for each write, as Salt does).
struct Sink<'a> {
    file: Option<&'a std::path::Path>,
}

impl Sink<'_> {
    fn write(&self, text: &str) -> Result<(), RunError> {
        match self.file {
            None => {
                print!("{text}");
                let _ = std::io::stdout().flush();
                Ok(())
            }
            Some(path) => {
                let failed = |source| RunError::OutFile {
                    path: path.display().to_string(),
                    source,
                };
                let mut f = std::fs::OpenOptions::new()
                    .append(true)
                    .create(true)
                    .open(path)
                    .map_err(failed)?;
                f.write_all(text.as_bytes()).map_err(failed)
            }
        }
    }
}

/// The outputters' options: Salt's CLI reads the master's configuration,
/// then the command line's `--out-indent`, `--state-output` and
/// `--state-verbose` override it.
fn base_options(cli: &Cli, config: &MasterConfig) -> OutputOptions {
    let mut o = OutputOptions::for_stdout();
    if let Some(c) = cli.color {
        o.color = c;
    }
    if let Some(n) = cli.out_indent {
        o.output_indent = OutputIndent::Spaces(n);
    }
    o.highstate = HighstateOptions::from_opts(&config.opts);
    if let Some(mode) = &cli.state_output {
        o.highstate.state_output = mode.clone();
    }
    if let Some(v) = &cli.state_verbose {
        // Salt turns "True"/"true" and "False"/"false" into booleans and
        // leaves any other text, which then counts by Python truthiness.
        o.highstate.state_verbose = match v.as_str() {
            "True" | "true" => true,
            "False" | "false" => false,
            other => !other.is_empty(),
        };
    }
    o
}

fn with_retcode(base: &OutputOptions, retcode: i64) -> OutputOptions {
    let mut o = base.clone();
    o.retcode = retcode;
    o
}

/// Render one minion's return with its outputter (or `--out`).
fn render_return(cli: &Cli, base: &OutputOptions, id: &str, r: &MinionReturn) -> String {
    let out = cli
        .out
        .clone()
        .or_else(|| r.out.clone())
        .unwrap_or_else(|| "nested".into());
    let opts = with_retcode(base, r.retcode);
    // JSON is written while the return is decoded: a fleet's highstate
    // returns are hundreds of kilobytes each.
    if out == "json" {
        if let Some(text) =
            output::json::return_from(id, &mut r.ret.decoder(), &opts, r.ret.0.len())
        {
            return text;
        }
    }
    output::render_owned(&out, id, r.ret.unpack(), &opts).unwrap_or_else(|e| {
        eprintln!("brine: {id}: {e}");
        String::new()
    })
}

/// Salt's `-p` bar: the line progressbar 2.5 draws for Salt's widgets
/// (`Percentage`, `Bar`, `Timer`, `Returns: [Counter/N]`), redrawn on
/// stderr after each return and ended with a carriage return. Salt never
/// finishes the bar (it calls a `stop` that progressbar lacks), so no
/// newline follows the last redraw.
struct ProgressBar {
    /// progressbar's `term_width`: the terminal's width, else `$COLUMNS`
    /// less one (80 - 1 by default).
    width: usize,
    /// The minions targeted (the `/N` of the counter).
    total: usize,
    start: Instant,
}

impl ProgressBar {
    fn new(total: usize) -> ProgressBar {
        let terminal =
            brine_host::sys::terminal_width(std::os::fd::AsFd::as_fd(&std::io::stderr()));
        let width = match terminal {
            Some(w) => usize::from(w),
            None => std::env::var("COLUMNS")
                .ok()
                .and_then(|c| c.trim().parse::<usize>().ok())
                .unwrap_or(80)
                .saturating_sub(1),
        };
        ProgressBar {
            width,
            total,
            start: Instant::now(),
        }
    }

    /// The line for `count` returns (progressbar raises its maximum when
    /// the count passes it, as Salt's outputter does).
    fn line(&self, count: usize) -> String {
        let max = self.total.max(count);
        let pct = if count >= max {
            100.0
        } else {
            count as f64 * 100.0 / max as f64
        };
        let secs = self.start.elapsed().as_secs();
        let elapsed = format!(
            "{}{}:{:02}:{:02}",
            match secs / 86_400 {
                0 => String::new(),
                1 => "1 day, ".to_string(),
                d => format!("{d} days, "),
            },
            secs % 86_400 / 3600,
            secs % 3600 / 60,
            secs % 60
        );
        let head = format!("{:>3}% ", pct as i64);
        let tail = format!(" Elapsed Time: {elapsed} Returns: [{count}/{}]", self.total);
        // The bar takes what the other widgets leave of the line.
        let inner = self
            .width
            .saturating_sub(head.len() + tail.len())
            .saturating_sub(2);
        let marks = if max > 0 {
            (count as f64 / max as f64 * inner as f64) as usize
        } else {
            0
        };
        let line = format!(
            "{head}|{}{}|{tail}",
            "#".repeat(marks),
            " ".repeat(inner.saturating_sub(marks))
        );
        format!("{line:<width$}\r", width = self.width)
    }

    fn draw(&self, count: usize) {
        let mut err = std::io::stderr();
        let _ = err.write_all(self.line(count).as_bytes());
        let _ = err.flush();
    }
}

/// Salt's `--summary` block (printed to stdout even with `--out-file`).
fn summary_text(returned: &[(String, i64)], missing: &[&str], verbose: bool) -> String {
    let rule = "-".repeat(43);
    let failed: Vec<&str> = returned
        .iter()
        .filter(|(_, retcode)| *retcode != 0)
        .map(|(id, _)| id.as_str())
        .collect();
    let mut t = format!(
        "\n\n{rule}\nSummary\n{rule}\n# of minions targeted: {}\n# of minions returned: {}\n\
         # of minions that did not return: {}\n# of minions with errors: {}\n",
        returned.len() + missing.len(),
        returned.len(),
        missing.len(),
        failed.len()
    );
    if verbose {
        // brine's master always reports a silent minion as "[No response]".
        if !missing.is_empty() {
            t.push_str(&format!("Minions not responding: {}\n", missing.join(" ")));
        }
        if !failed.is_empty() {
            t.push_str(&format!("Minions with failures: {}\n", failed.join(" ")));
        }
    }
    t.push_str(&rule);
    t.push('\n');
    t
}

/// The end of a `-p` run as Salt's: the summary on stdout (twice with
/// `--summary` and the default outputter), the returns themselves never
/// printed, exit 0 whatever the minions answered. A run where the first
/// thing heard of is a minion that did not return ends quietly: Salt's bar
/// cannot be made from that event and it exits 0 without a word.
fn progress_end(
    cli: &Cli,
    all: &[(String, i64)],
    missing: &[&str],
    hidden: bool,
    drawn: bool,
) -> i32 {
    if !drawn {
        return 0;
    }
    let missing: &[&str] = if hidden { &[] } else { missing };
    let text = summary_text(all, missing, cli.verbose);
    print!("{text}");
    if cli.summary && cli.out.is_none() && cli.function != "sys.doc" {
        print!("{text}");
    }
    let _ = std::io::stdout().flush();
    0
}

/// The master's refusal as Salt's CLI prints it: the message alone,
/// through the outputter (a JSON string with `--out json`).
fn print_refusal(cli: &Cli, why: &str) {
    match cli.out.as_deref() {
        Some("json") => println!("{}", serde_json::Value::String(why.to_string())),
        _ => println!("{why}"),
    }
}

async fn run(cli: &Cli) -> i32 {
    match run_job(cli).await {
        Ok(code) => code,
        Err(e) => {
            eprintln!("brine: {e}");
            EX_GENERIC
        }
    }
}

async fn run_job(cli: &Cli) -> Result<i32, RunError> {
    let (config, _warnings) = MasterConfig::load(&cli.config_dir)?;
    let timeout = cli.timeout.unwrap_or(config.timeout);
    let mut client = match Client::for_cli(&config, cli.eauth.as_ref()).await {
        Ok(c) => c,
        Err(e @ (ClientError::NoKey { .. } | ClientError::Refused(ErrorCode::Unauthorized, _))) => {
            // Salt says no more than this, on stdout, and exits 0.
            eprintln!("brine: {e}");
            print_refusal(cli, "Authentication error occurred.");
            return Ok(0);
        }
        Err(ClientError::UnknownEauth(e)) => {
            println!(
                "The specified external authentication system \"{e}\" is not available\n\
                 Available eauth types: {}",
                brine_master::eauth::backends::KNOWN.join(", ")
            );
            eprintln!("ERROR: Authentication failed");
            return Ok(EX_USAGE);
        }
        Err(e) => return Err(e.into()),
    };
    let base = base_options(cli, &config);
    // Salt's CLI reads the master's gather_job_timeout, as the runners do.
    let gather = config.gather_job_timeout();
    let sink = Sink {
        file: cli.out_file.as_deref(),
    };
    if cli.batch.is_some() {
        return batch::run_batch(cli, &mut client, &base, &sink, timeout, gather).await;
    }
    let call = parse_input(&cli.args);
    let published = match client
        .publish(
            target_value(&cli.target, &cli.tgt_type),
            &cli.tgt_type,
            &cli.function,
            call.args,
            call.kwargs,
            timeout,
        )
        .await
    {
        Err(ClientError::Refused(ErrorCode::Unauthorized, why)) => {
            print_refusal(cli, &why);
            return Ok(0);
        }
        other => other?,
    };
    if published.minions.is_empty() {
        println!("No minions matched the target. No command was sent, no jid was assigned.");
        eprintln!("ERROR: No return received");
        return Ok(EX_USAGE);
    }
    if cli.is_async {
        println!("Executed command with job ID: {}", published.jid);
        return Ok(0);
    }
    // --static goes through Salt's quiet batch path, which prints neither.
    let collect = cli.is_static;
    // Salt's progress path does not pass -v on to the client, so -p
    // drops the header (--show-jid's line stays).
    if !collect && cli.verbose && !cli.progress {
        println!(
            "Executing job with jid {}\n-------------------------------------------\n",
            published.jid
        );
    } else if !collect && cli.show_jid {
        println!("jid: {}", published.jid);
    }
    let expected: HashSet<&str> = published.minions.iter().map(String::as_str).collect();
    let mut shown: HashSet<String> = HashSet::new();
    // Who returned and with which retcode, in arrival order: a return
    // itself is printed as it comes and dropped, so the CLI holds one
    // page of returns at a time whatever the job's size.
    let mut all: Vec<(String, i64)> = Vec::new();
    // --static prints one document at the end: it keeps the values.
    let mut collected = Map::default();
    let mut first_out: Option<Option<String>> = None;
    let mut deadline = Instant::now() + Duration::from_secs(timeout);
    let mut cursor = 0;
    // Salt's batch failhard: the first failed return ends the run.
    let mut stopped_by: Option<String> = None;
    // Drawn from the first return on, as Salt creates it then.
    let mut bar: Option<ProgressBar> = None;
    'wait: loop {
        let left = deadline.saturating_duration_since(Instant::now());
        // The master answers when a return lands (or after its bounded
        // wait): no polling pause here.
        let mut more = false;
        match client.returns_after(&published.jid, cursor, left).await {
            Ok(r) => {
                cursor = r.next;
                more = r.more;
                for (id, ret) in r.returns {
                    if shown.insert(id.clone()) {
                        if cli.progress && !collect {
                            let b = bar.get_or_insert_with(|| {
                                let b = ProgressBar::new(expected.len());
                                b.draw(0);
                                b
                            });
                            b.draw(all.len() + 1);
                        } else if !collect {
                            sink.write(&render_return(cli, &base, &id, &ret))?;
                        }
                        let failed = ret.retcode > 0;
                        all.push((id.clone(), ret.retcode));
                        if collect {
                            first_out.get_or_insert_with(|| ret.out.clone());
                            collected.insert(id.clone(), ret.ret.unpack());
                        }
                        if collect && cli.failhard && failed {
                            stopped_by = Some(id);
                            break 'wait;
                        }
                    }
                }
            }
            Err(e) => {
                tracing::warn!("{e}");
                tokio::time::sleep(left.min(Duration::from_millis(100))).await;
            }
        }
        if more {
            continue;
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
            if client.still_running(&published.jid, &missing, gather).await {
                deadline = Instant::now() + Duration::from_secs(timeout);
                continue;
            }
            break;
        }
    }
    let mut missing: Vec<&str> = expected
        .iter()
        .copied()
        .filter(|id| !shown.contains(*id))
        .collect();
    missing.sort();
    // --hide-timeout: Salt does not even wait for them to be reported, so
    // they are neither printed nor counted.
    // (Salt's progress path does not pass -v on, so there only
    // --hide-timeout counts.)
    let hidden = !collect && !cli.show_timeout && (cli.progress || !cli.verbose);
    if cli.progress && !collect {
        return Ok(progress_end(cli, &all, &missing, hidden, bar.is_some()));
    }

    if collect {
        if let Some(id) = &stopped_by {
            eprintln!(
                "[ERROR   ] Minion {id} returned with non-zero exit code. Batch run stopped due to failhard"
            );
        }
        // Salt's --static: the returns only; minions that did not return
        // are left out, and the exit code is 0 (see below).
        let retcode = all.iter().map(|(_, rc)| *rc).max().unwrap_or(0);
        let collected = std::mem::take(&mut collected);
        write_static(cli, &base, &sink, collected, first_out.flatten(), retcode)?;
        missing.clear();
    } else if hidden {
        missing.clear();
    } else {
        let color = base.color;
        for id in &missing {
            let message = Value::Str(no_return_message(&published.jid));
            match cli.out.as_deref() {
                // With --out, the message goes through that outputter, as
                // Salt's does (a JSON document, a YAML string...).
                Some(out) if out != "nested" => {
                    match output::render_with(out, id, &message, &with_retcode(&base, 1)) {
                        Ok(text) => sink.write(&text)?,
                        Err(e) => eprintln!("brine: {id}: {e}"),
                    }
                }
                _ => sink.write(&no_return_text(id, &published.jid, color))?,
            }
        }
    }
    // Salt prints the summary only with its default outputters.
    if cli.summary && !collect && cli.out.is_none() && cli.function != "sys.doc" {
        print!("{}", summary_text(&all, &missing, cli.verbose));
    }
    let _ = std::io::stdout().flush();

    let mut code = 0;
    // Salt says the same for a minion that failed and one that did not
    // return. `--static` goes through Salt's quiet batch path, which never
    // exits with the minions' retcode.
    if !collect && (!missing.is_empty() || all.iter().any(|(_, rc)| *rc != 0)) {
        eprintln!("ERROR: Minions returned with non-zero exit code");
        code = EX_GENERIC;
    }
    if all.is_empty() && missing.is_empty() && !hidden {
        eprintln!("ERROR: No return received");
        code = EX_USAGE;
    }
    Ok(code)
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
/// Salt's `--static` document: every return collected, printed once with
/// `--out` or the first return's outputter.
fn write_static(
    cli: &Cli,
    base: &OutputOptions,
    sink: &Sink<'_>,
    collected: Map,
    first_out: Option<String>,
    retcode: i64,
) -> Result<(), RunError> {
    let out = cli
        .out
        .clone()
        .unwrap_or_else(|| first_out.unwrap_or_else(|| "nested".into()));
    let opts = with_retcode(base, retcode.max(0));
    let data = Value::Map(collected);
    let text = match out.as_str() {
        "json" => Ok(output::json::output(&data, &opts)),
        _ => print_static(&out, &data, &opts),
    };
    match text {
        Ok(t) => {
            let t = t.trim_end();
            if !t.is_empty() {
                sink.write(&format!("{t}\n"))?;
            }
        }
        Err(e) => eprintln!("brine: {e}"),
    }
    Ok(())
}

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
        assert_eq!((c.batch.as_deref(), c.batch_wait), (None, 0.0));
        let b = parse_argv(&["-b", "10%", "--batch-wait", "1.5", "*", "test.ping"]).unwrap();
        assert_eq!((b.batch.as_deref(), b.batch_wait), (Some("10%"), 1.5));
        let b = parse_argv(&["--batch-size", "2", "*", "test.ping"]).unwrap();
        assert_eq!(b.batch.as_deref(), Some("2"));
        assert!(parse_argv(&["--batch-wait", "x", "*", "test.ping"]).is_err());
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
    fn output_options() {
        let c = parse_argv(&[
            "--out-file",
            "/tmp/o",
            "--output-file-append",
            "--out-indent",
            "-1",
            "--state_output",
            "terse",
            "--state-verbose=False",
            "--hide-timeout",
            "--show-jid",
            "--summary",
            "-p",
            "--failhard",
            "web1",
            "test.ping",
        ])
        .unwrap();
        assert_eq!(c.out_file, Some(PathBuf::from("/tmp/o")));
        assert!(c.out_file_append && !c.show_timeout && c.show_jid && c.summary);
        assert!(c.progress && c.failhard);
        assert_eq!(c.out_indent, Some(-1));
        assert_eq!(c.state_output.as_deref(), Some("terse"));
        assert_eq!(c.state_verbose.as_deref(), Some("False"));
        let c = parse_argv(&["--output-indent=2", "web1", "test.ping"]).unwrap();
        assert_eq!(c.out_indent, Some(2));
        // optparse's words for a bad integer (recorded from salt 3007.8).
        assert_eq!(
            parse_argv(&["--out-indent", "x", "web1", "test.ping"])
                .unwrap_err()
                .to_string(),
            "option --out-indent: invalid integer value: 'x'"
        );
    }

    #[test]
    fn summary_reads_as_salts() {
        let t = summary_text(&[("web1".into(), 1)], &["db1"], true);
        let rule = "-".repeat(43);
        assert_eq!(
            t,
            format!(
                "\n\n{rule}\nSummary\n{rule}\n# of minions targeted: 2\n# of minions returned: 1\n\
                 # of minions that did not return: 1\n# of minions with errors: 1\n\
                 Minions not responding: db1\nMinions with failures: web1\n{rule}\n"
            )
        );
    }

    #[test]
    fn progress_line_as_progressbar_draws_it() {
        let bar = ProgressBar {
            width: 79,
            total: 3,
            start: Instant::now(),
        };
        // 79 columns less the other widgets leave 35 inside the bar;
        // int(1 / 3 * 35) of them marked.
        assert_eq!(
            bar.line(1),
            format!(
                " 33% |{}{}| Elapsed Time: 0:00:00 Returns: [1/3]\r",
                "#".repeat(11),
                " ".repeat(24)
            )
        );
        assert!(bar.line(4).starts_with("100% |####"));
    }

    #[test]
    fn no_return_reads_as_salts() {
        let t = no_return_text("web2", "123", false);
        assert!(t.starts_with("web2:\n    Minion did not return. [No response]\n"));
        assert!(t.ends_with("    brine-run jobs.lookup_jid 123\n"));
    }
}
