//! `brine-run [-c DIR] [--out FMT] FUNCTION [ARGS...]`: Salt's `salt-run`
//! for the job cache: `jobs.list_jobs` and `jobs.lookup_jid JID`, read from
//! the master's SQLite job cache, in Salt's output shapes.

use brine_core::args::parse_input;
use brine_core::output::{self, OutputOptions};
use brine_core::{Map, Value};
use brine_master::daemon::jobs::{format_jid_instance, JobCache};
use brine_master::daemon::MasterConfig;
use std::path::PathBuf;

const USAGE: &str = "usage: brine-run [-c CONFIG_DIR] [--out OUTPUTTER] FUNCTION [ARGUMENTS...]\n\
functions: jobs.list_jobs, jobs.lookup_jid JID [missing=True] [returned=False]";

#[derive(Debug, PartialEq)]
struct Cli {
    config_dir: PathBuf,
    out: Option<String>,
    color: Option<bool>,
    function: String,
    args: Vec<String>,
}

fn parse(argv: &[String]) -> Result<Option<Cli>, String> {
    let mut cli = Cli {
        config_dir: PathBuf::from("/etc/brine"),
        out: None,
        color: None,
        function: String::new(),
        args: Vec::new(),
    };
    let mut positional = Vec::new();
    let mut it = argv.iter();
    while let Some(a) = it.next() {
        if !positional.is_empty() || !a.starts_with('-') {
            positional.push(a.clone());
            continue;
        }
        let (flag, inline) = match a.split_once('=') {
            Some((f, v)) if f.starts_with("--") => (f, Some(v.to_string())),
            _ => (a.as_str(), None),
        };
        let mut value = |name: &str| {
            inline
                .clone()
                .or_else(|| it.next().cloned())
                .ok_or_else(|| format!("option {name} needs a value"))
        };
        match flag {
            "-h" | "--help" => return Ok(None),
            "-c" | "--config-dir" => cli.config_dir = PathBuf::from(value(flag)?),
            "--out" | "--output" => cli.out = Some(value(flag)?),
            "--no-color" | "--no-colour" => cli.color = Some(false),
            "--force-color" | "--force-colour" => cli.color = Some(true),
            other => return Err(format!("no such option: {other}")),
        }
    }
    if positional.is_empty() {
        return Err("a function is required".into());
    }
    cli.function = positional.remove(0);
    cli.args = positional;
    Ok(Some(cli))
}

/// A runner's answer: the data and the outputter it asks for.
struct Answer {
    data: Value,
    outputter: Option<String>,
}

/// Salt's `jobs.list_jobs`: jid → the job's description.
fn list_jobs(jobs: &JobCache) -> Result<Answer, String> {
    let mut out = Map::new();
    for job in jobs.jobs().map_err(|e| e.to_string())? {
        out.insert(job.jid.clone(), Value::Map(format_jid_instance(&job)));
    }
    Ok(Answer {
        data: Value::Map(out),
        outputter: None,
    })
}

/// Salt's `jobs.lookup_jid`: minion → return, printed with the outputter
/// of the returns (`highstate` for state runs).
fn lookup_jid(jobs: &JobCache, jid: &str, returned: bool, missing: bool) -> Result<Answer, String> {
    let returns = jobs.returns(jid).map_err(|e| e.to_string())?;
    let mut out = Map::new();
    if returned {
        for (id, r) in &returns {
            out.insert(id.clone(), r.ret.clone());
        }
    }
    if missing {
        for id in jobs.expected(jid).map_err(|e| e.to_string())? {
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

fn run(cli: &Cli) -> Result<i32, String> {
    let (config, _) = MasterConfig::load(&cli.config_dir).map_err(|e| e.to_string())?;
    let db = config.job_db();
    if !db.exists() {
        return Err(format!(
            "no job cache at {} (has brine-master run with this config?)",
            db.display()
        ));
    }
    let jobs = JobCache::open_existing(&db).map_err(|e| e.to_string())?;
    let call = parse_input(&cli.args);
    let mut positional = call.args.into_iter();
    let mut kwargs = call.kwargs;
    let answer = match cli.function.as_str() {
        "jobs.list_jobs" => list_jobs(&jobs)?,
        "jobs.lookup_jid" => {
            let jid = kwargs
                .shift_remove("jid")
                .or_else(|| positional.next())
                .ok_or("jobs.lookup_jid needs a jid")?
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
        other => return Err(format!("'{other}' is not available")),
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
    let text = output::render_data(&out, &answer.data, &opts).map_err(|e| e.to_string())?;
    print!("{text}");
    Ok(0)
}

fn main() {
    let argv: Vec<String> = std::env::args().skip(1).collect();
    let cli = match parse(&argv) {
        Ok(Some(c)) => c,
        Ok(None) => {
            println!("{USAGE}");
            return;
        }
        Err(e) => {
            eprintln!("brine-run: error: {e}\n{USAGE}");
            std::process::exit(2);
        }
    };
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
        let c = parse(&[
            "-c".into(),
            "/x".into(),
            "jobs.lookup_jid".into(),
            "1".into(),
        ])
        .unwrap()
        .unwrap();
        assert_eq!(c.config_dir, PathBuf::from("/x"));
        assert_eq!(c.args, vec!["1".to_string()]);
        assert!(parse(&[]).is_err());

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
