//! `brine-run [-c DIR] [--out FMT] FUNCTION [ARGS...]`: Salt's `salt-run`
//! for the job cache: `jobs.list_jobs` and `jobs.lookup_jid JID`, read from
//! the master's SQLite job cache, in Salt's output shapes.

use brine_core::args::parse_input;
use brine_core::output::{self, OutputOptions};
use brine_core::{Map, Value};
use brine_master::daemon::jobs::{format_jid_instance, JobCache, JobCacheError};
use brine_master::daemon::MasterConfig;
use std::path::PathBuf;

#[derive(Debug, PartialEq)]
struct Cli {
    config_dir: PathBuf,
    out: Option<String>,
    color: Option<bool>,
    function: String,
    args: Vec<String>,
}

fn command() -> brine_cli::Command {
    let mut options = vec![brine_cli::CONFIG_DIR, brine_cli::OUT, brine_cli::OUTPUT];
    options.extend(brine_cli::COLOR);
    brine_cli::Command {
        name: "brine-run",
        usage: "[options] FUNCTION [ARGUMENTS...]",
        about: "Run a master-side function (Salt's salt-run): jobs.list_jobs, \
jobs.lookup_jid JID [missing=True] [returned=False].",
        options,
    }
}

fn parse(m: brine_cli::Matches) -> Result<Cli, brine_cli::CliError> {
    let mut positional = m.positionals.clone();
    if positional.is_empty() {
        return Err(brine_cli::CliError::Invalid(
            "a function is required".into(),
        ));
    }
    Ok(Cli {
        config_dir: PathBuf::from(m.value("config-dir").unwrap_or("/etc/brine")),
        out: m.value_of_any(&["out", "output"]).map(str::to_string),
        color: m.color(),
        function: positional.remove(0),
        args: positional,
    })
}

/// Why a runner could not answer.
#[derive(Debug, thiserror::Error)]
enum RunError {
    #[error(transparent)]
    Config(#[from] brine_master::daemon::config::ConfigError),
    #[error("no job cache at {0} (has brine-master run with this config?)")]
    NoJobCache(PathBuf),
    #[error(transparent)]
    Jobs(#[from] JobCacheError),
    #[error("jobs.lookup_jid needs a jid")]
    NoJid,
    #[error("'{0}' is not available")]
    NotAvailable(String),
    #[error(transparent)]
    Output(#[from] output::OutputError),
}

/// A runner's answer: the data and the outputter it asks for.
struct Answer {
    data: Value,
    outputter: Option<String>,
}

/// Salt's `jobs.list_jobs`: jid → the job's description.
fn list_jobs(jobs: &JobCache) -> Result<Answer, RunError> {
    let mut out = Map::new();
    for job in jobs.jobs()? {
        out.insert(job.jid.clone(), Value::Map(format_jid_instance(&job)));
    }
    Ok(Answer {
        data: Value::Map(out),
        outputter: None,
    })
}

/// Salt's `jobs.lookup_jid`: minion → return, printed with the outputter
/// of the returns (`highstate` for state runs).
fn lookup_jid(
    jobs: &JobCache,
    jid: &str,
    returned: bool,
    missing: bool,
) -> Result<Answer, RunError> {
    let returns = jobs.returns(jid)?;
    let mut out = Map::new();
    if returned {
        for (id, r) in &returns {
            out.insert(id.clone(), r.ret.clone());
        }
    }
    if missing {
        for id in jobs.expected(jid)? {
            if !returns.contains_key(&id) {
                out.insert(id, Value::Str("Minion did not return".into()));
            }
        }
    }
    Ok(Answer {
        data: Value::Map(out),
        outputter: returns.values().next().and_then(|r| r.out.clone()),
    })
}

fn run(cli: &Cli) -> Result<i32, RunError> {
    let (config, _) = MasterConfig::load(&cli.config_dir)?;
    let db = config.job_db();
    if !db.exists() {
        return Err(RunError::NoJobCache(db));
    }
    let jobs = JobCache::open_existing(&db)?;
    let call = parse_input(&cli.args);
    let mut positional = call.args.into_iter();
    let mut kwargs = call.kwargs;
    let answer = match cli.function.as_str() {
        "jobs.list_jobs" => list_jobs(&jobs)?,
        "jobs.lookup_jid" => {
            let jid = kwargs
                .shift_remove("jid")
                .or_else(|| positional.next())
                .ok_or(RunError::NoJid)?
                .to_python_str();
            let flag = |kw: &mut Map, name: &str, default: bool| {
                kw.shift_remove(name)
                    .map(|v| v.is_truthy())
                    .unwrap_or(default)
            };
            let returned = flag(&mut kwargs, "returned", true);
            let missing = flag(&mut kwargs, "missing", false);
            lookup_jid(&jobs, &jid, returned, missing)?
        }
        other => return Err(RunError::NotAvailable(other.to_string())),
    };
    let out = cli
        .out
        .clone()
        .or(answer.outputter)
        .unwrap_or_else(|| "nested".into());
    let mut opts = OutputOptions::for_stdout();
    if let Some(c) = cli.color {
        opts.color = c;
    }
    let text = output::render_data(&out, &answer.data, &opts)?;
    print!("{text}");
    Ok(0)
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
    use brine_master::daemon::jobs::Job;
    use brine_protocol::messages::JobReturn;

    #[test]
    fn options_and_runner_shapes() {
        let parse_argv = |argv: &[&str]| match command().parse(argv.iter().copied()) {
            Ok(brine_cli::Parsed::Run(m)) => parse(m),
            other => panic!("{argv:?}: {other:?}"),
        };
        let c = parse_argv(&["-c", "/x", "jobs.lookup_jid", "1", "--out", "json"]).unwrap();
        assert_eq!(c.config_dir, PathBuf::from("/x"));
        assert_eq!(c.args, vec!["1".to_string()]);
        assert_eq!(c.out.as_deref(), Some("json"));
        assert!(parse_argv(&[]).is_err());

        let td = tempfile::tempdir().unwrap();
        let jobs = JobCache::open(&td.path().join("j.sqlite")).unwrap();
        let jid = "20240102030405123456";
        jobs.add_job(
            &Job {
                jid: jid.into(),
                fun: "test.ping".into(),
                arg: vec![],
                kwarg: Map::new(),
                tgt: "*".into(),
                tgt_type: "glob".into(),
                user: "root".into(),
                start_ms: 1,
            },
            &["a".into(), "b".into()],
        )
        .unwrap();
        jobs.add_return(
            &JobReturn {
                jid: jid.into(),
                id: "a".into(),
                fun: "test.ping".into(),
                fun_args: vec![],
                ret: Value::Bool(true),
                retcode: 0,
                success: true,
                out: None,
            },
            2,
        )
        .unwrap();
        let l = list_jobs(&jobs).unwrap();
        assert_eq!(
            l.data.to_json(),
            serde_json::json!({jid: {"Arguments": [], "Function": "test.ping",
                "StartTime": "2024, Jan 02 03:04:05.123456", "Target": "*",
                "Target-type": "glob", "User": "root"}})
        );
        let a = lookup_jid(&jobs, jid, true, true).unwrap();
        assert_eq!(
            a.data.to_json(),
            serde_json::json!({"a": true, "b": "Minion did not return"})
        );
        assert!(a.outputter.is_none());
    }
}
