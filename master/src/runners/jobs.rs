//! Salt's `jobs` runner: jobs as the job cache has them (`list_jobs`,
//! `lookup_jid`, `list_job`, `print_job`, `exit_success`) and as the
//! minions report them running (`active`).

use super::runner::{job_cache, Answer, Runner, RunnerError};
use crate::daemon::client::Client;
use crate::daemon::jobs::{
    format_jid_instance, jid_to_time, JobCache, JobCacheError, RETURNS_PAGE_BYTES,
};
use crate::daemon::MasterConfig;
use brine_compile::matcher::glob::fnmatch;
use brine_core::output::stream::{Each, Entries, KeyOrder, StreamError};
use brine_core::sig;
use brine_core::{Map, Value};
use brine_runtime::modules::Params;

pub(super) const FUNCTIONS: &[Runner] = &[
    Runner {
        name: "active",
        sig: sig!(display_progress = false),
        doc: "The jobs running now, as the minions report them (saltutil.running on \
every minion): jid → function, arguments, target, start time and who runs it.",
        run: |config, p| Box::pin(active_run(config, p)),
    },
    Runner {
        name: "exit_success",
        sig: sig!(jid, ext_source = null),
        doc: "For each minion of job JID, whether it returned with retcode 0.",
        run: |config, p| Box::pin(one_job(config, p, exit_success)),
    },
    Runner {
        name: "list_job",
        sig: sig!(jid, ext_source = null, display_progress = false),
        doc: "Job JID as the job cache has it: its description and every return.",
        run: |config, p| Box::pin(one_job(config, p, list_job)),
    },
    Runner {
        name: "list_jobs",
        sig: sig!(
            ext_source = null,
            outputter = null,
            search_metadata = null,
            search_function = null,
            search_target = null,
            start_time = null,
            end_time = null,
            display_progress = false
        ),
        doc: "Every job in the job cache: jid → function, arguments, target, target \
type, start time and user.",
        run: |config, p| Box::pin(list_jobs_run(config, p)),
    },
    Runner {
        name: "lookup_jid",
        sig: sig!(
            jid,
            ext_source = null,
            returned = true,
            missing = false,
            display_progress = false
        ),
        doc: "The returns of job JID, minion → return, printed with the outputter the \
returns name; MISSING=True adds the targeted minions that did not return.",
        run: |config, p| Box::pin(lookup_jid_run(config, p)),
    },
    Runner {
        name: "print_job",
        sig: sig!(jid, ext_source = null),
        doc: "Job JID with its returns under Result, as Salt's print_job shows it.",
        run: |config, p| Box::pin(one_job(config, p, print_job)),
    },
];

/// A flag parameter, `default` when not given.
fn flag(p: &mut Params, name: &str, default: bool) -> bool {
    p.take(name).map_or(default, |v| v.is_truthy())
}

async fn active_run(config: &MasterConfig, p: Params) -> Result<Answer, RunnerError> {
    p.finish()?;
    let mut client = Client::for_config(config)?;
    let cache = job_cache(config)?;
    active(&mut client, &cache, config).await
}

async fn one_job(
    config: &MasterConfig,
    mut p: Params,
    f: fn(&JobCache, &str) -> Result<Value, RunnerError>,
) -> Result<Answer, RunnerError> {
    let jid = p.require("jid")?.to_python_str();
    p.finish()?;
    Ok(Answer::data(f(&job_cache(config)?, &jid)?))
}

async fn list_jobs_run(config: &MasterConfig, mut p: Params) -> Result<Answer, RunnerError> {
    // The job cache keeps no metadata and brine does not filter by time
    // yet: such a search is refused rather than answered with every job.
    for key in ["search_metadata", "start_time", "end_time"] {
        if p.take(key).is_some_and(|v| !v.is_null()) {
            return Err(RunnerError::InvalidArguments(format!(
                "list_jobs() argument '{key}' is not supported by brine"
            )));
        }
    }
    let function = p.take("search_function").filter(|v| !v.is_null());
    let target = p.take("search_target").filter(|v| !v.is_null());
    p.finish()?;
    let answer = list_jobs(&job_cache(config)?)?;
    let (all, outputter) = match answer {
        Answer::Data {
            data: Value::Map(all),
            outputter,
            ..
        } if function.is_some() || target.is_some() => (all, outputter),
        other => return Ok(other),
    };
    // Salt's filters: globs, a comma list or a list of them.
    let functions = function.as_ref().map(brine_core::args::split_input);
    let targets = target.as_ref().map(brine_core::args::split_input);
    let any = |pats: &[String], text: &str| pats.iter().any(|p| fnmatch(text, p));
    let kept = all
        .into_iter()
        .filter(|(_, job)| {
            functions.as_ref().is_none_or(|f| {
                job.get("Function")
                    .is_some_and(|v| any(f, &v.to_python_str()))
            }) && targets.as_ref().is_none_or(|t| match job.get("Target") {
                Some(Value::List(l)) => l.iter().any(|x| any(t, &x.to_python_str())),
                Some(v) => any(t, &v.to_python_str()),
                None => false,
            })
        })
        .collect();
    Ok(Answer::Data {
        data: Value::Map(kept),
        outputter,
        progress: None,
        ordered_from: None,
    })
}

async fn lookup_jid_run(config: &MasterConfig, mut p: Params) -> Result<Answer, RunnerError> {
    let jid = p.require("jid")?.to_python_str();
    let returned = flag(&mut p, "returned", true);
    let missing = flag(&mut p, "missing", false);
    p.finish()?;
    lookup_jid(job_cache(config)?, &jid, returned, missing)
}

/// Salt's `jobs.list_jobs`: jid → the job's description.
pub fn list_jobs(jobs: &JobCache) -> Result<Answer, RunnerError> {
    let mut out = Map::default();
    for job in jobs.jobs()? {
        out.insert(job.jid.clone(), Value::Map(format_jid_instance(&job)));
    }
    Ok(Answer::data(Value::Map(out)))
}

/// Salt's `jobs.lookup_jid`: minion → return, printed with the outputter
/// the returns name (`highstate` for state runs). The returns are read
/// from the job cache a page at a time as they are printed
/// ([`JidReturns`]), so a fleet's highstate is never held whole.
pub fn lookup_jid(
    jobs: JobCache,
    jid: &str,
    returned: bool,
    missing: bool,
) -> Result<Answer, RunnerError> {
    let outputter = jobs.first_outputter(jid)?;
    Ok(Answer::Returns {
        returns: Box::new(JidReturns {
            jobs,
            jid: jid.to_string(),
            returned,
            missing,
            page_bytes: RETURNS_PAGE_BYTES,
        }),
        outputter,
    })
}

/// `jobs.lookup_jid`'s mapping, read as it is printed: the returns (when
/// `returned`), and "Minion did not return" for the targeted minions that
/// did not (when `missing`) — in arrival order then target order, or all
/// by minion id when the outputter sorts.
pub struct JidReturns {
    jobs: JobCache,
    jid: String,
    returned: bool,
    missing: bool,
    page_bytes: usize,
}

/// Salt's text for a targeted minion that has not returned.
const DID_NOT_RETURN: &str = "Minion did not return";

impl Entries for JidReturns {
    type Error = JobCacheError;

    fn for_each(
        &mut self,
        order: KeyOrder,
        each: &mut Each<'_, JobCacheError>,
    ) -> Result<(), StreamError<JobCacheError>> {
        let src = StreamError::Source;
        let expected = if self.missing {
            self.jobs.expected(&self.jid).map_err(src)?
        } else {
            Vec::new()
        };
        let did_not_return = || Value::from(DID_NOT_RETURN);
        match order {
            KeyOrder::AsGiven => {
                let mut after = 0;
                let mut more = self.returned;
                while more {
                    let page = self
                        .jobs
                        .returns_page(&self.jid, after, self.page_bytes)
                        .map_err(src)?;
                    for r in page.returns {
                        each(&r.id, r.ret.unpack())?;
                    }
                    (after, more) = (page.next, page.more);
                }
                if self.missing {
                    let returned = self.jobs.returned(&self.jid).map_err(src)?;
                    for id in expected.iter().filter(|id| !returned.contains(*id)) {
                        each(id, did_not_return())?;
                    }
                }
            }
            KeyOrder::Sorted => {
                // Both lists come sorted by id: merge them.
                let mut targets = expected.iter().peekable();
                let mut after: Option<String> = None;
                loop {
                    let page = self
                        .jobs
                        .returns_by_id(&self.jid, after.as_deref(), self.page_bytes)
                        .map_err(src)?;
                    let Some(last) = page.last().map(|r| r.id.clone()) else {
                        break;
                    };
                    for r in page {
                        while let Some(t) = targets.next_if(|t| **t <= r.id) {
                            if *t != r.id {
                                each(t, did_not_return())?;
                            }
                        }
                        if self.returned {
                            each(&r.id, r.ret.unpack())?;
                        }
                    }
                    after = Some(last);
                }
                for t in targets {
                    each(t, did_not_return())?;
                }
            }
        }
        Ok(())
    }
}

/// The job as Salt's `jobs` runner describes it from the cache: its
/// publication, the minions it went to (`Minions`, sorted, when any) and
/// `StartTime`; an unknown jid is Salt's `Error`.
fn describe(jobs: &JobCache, jid: &str) -> Result<Map, RunnerError> {
    let Some(job) = jobs.job(jid)? else {
        let mut m = Map::default();
        m.insert(
            "Error".into(),
            Value::from("Cannot contact returner or no job with this jid"),
        );
        m.insert("StartTime".into(), Value::Str(jid_to_time(jid)));
        return Ok(m);
    };
    let mut m = format_jid_instance(&job);
    let start = m.shift_remove("StartTime");
    // A runner's job (kept by the runner client, not published) names no
    // minions, as Salt's store_job saves none.
    let minions = if is_runner_job(&job.fun) {
        Vec::new()
    } else {
        jobs.expected(jid)?
    };
    if !minions.is_empty() {
        m.insert(
            "Minions".into(),
            Value::List(minions.into_iter().map(Value::Str).collect()),
        );
    }
    if let Some(s) = start {
        m.insert("StartTime".into(), s);
    }
    Ok(m)
}

/// A job a runner client kept (`runner.state.orchestrate`).
fn is_runner_job(fun: &str) -> bool {
    fun.starts_with("runner.")
}

/// Salt's `get_jid` of the local job cache: minion → `return`, `retcode`,
/// `success` (and `out` when the minion named its outputter).
fn results(jobs: &JobCache, jid: &str) -> Result<Map, RunnerError> {
    let mut out = Map::default();
    for (id, r) in jobs.returns(jid)? {
        let mut m = Map::default();
        if is_runner_job(&r.fun) {
            // The runner's whole `ret` event is its return.
            m.insert("return".into(), r.ret);
            out.insert(id, Value::Map(m));
            continue;
        }
        m.insert("return".into(), r.ret);
        m.insert("retcode".into(), Value::Int(r.retcode));
        m.insert("success".into(), Value::Bool(r.success));
        if let Some(o) = r.out {
            m.insert("out".into(), Value::Str(o));
        }
        out.insert(id, Value::Map(m));
    }
    Ok(out)
}

/// Salt's `jobs.list_job`: `jid`, the job's description, `Result`.
pub fn list_job(jobs: &JobCache, jid: &str) -> Result<Value, RunnerError> {
    let mut m = Map::default();
    m.insert("jid".into(), Value::Str(jid.to_string()));
    m.extend(describe(jobs, jid)?);
    m.insert("Result".into(), Value::Map(results(jobs, jid)?));
    Ok(Value::Map(m))
}

/// Salt's `jobs.print_job`: jid → the job's description and `Result`.
pub fn print_job(jobs: &JobCache, jid: &str) -> Result<Value, RunnerError> {
    let mut m = describe(jobs, jid)?;
    m.insert("Result".into(), Value::Map(results(jobs, jid)?));
    let mut out = Map::default();
    out.insert(jid.to_string(), Value::Map(m));
    Ok(Value::Map(out))
}

/// Salt's `jobs.exit_success`: minion → whether it returned something
/// true (the minions the job went to first, then any other that returned).
pub fn exit_success(jobs: &JobCache, jid: &str) -> Result<Value, RunnerError> {
    let minions = if jobs.has_job(jid)? {
        jobs.expected(jid)?
    } else {
        Vec::new()
    };
    let returns = jobs.returns(jid)?;
    let mut out = Map::default();
    for id in minions {
        let ok = returns.get(&id).is_some_and(|r| r.ret.is_truthy());
        out.insert(id, Value::Bool(ok));
    }
    for (id, r) in returns {
        if r.ret.is_truthy() {
            out.insert(id, Value::Bool(true));
        }
    }
    Ok(Value::Map(out))
}

/// Salt's `jobs.active`: `saltutil.running` asked of every minion, each
/// job described once with the minions running it (`Running`: minion →
/// pid) and those that already returned it (`Returned`).
pub async fn active(
    client: &mut Client,
    jobs: &JobCache,
    config: &MasterConfig,
) -> Result<Answer, RunnerError> {
    let gathered = client
        .cmd(
            Value::from("*"),
            "glob",
            "saltutil.running",
            Vec::new(),
            Map::default(),
            config.timeout,
            config.gather_job_timeout(),
        )
        .await?;
    let mut out = Map::default();
    for (minion, r) in &gathered.returns {
        let Value::List(running) = r.ret.unpack() else {
            continue;
        };
        for job in running.iter().filter_map(Value::as_map) {
            let Some(jid) = job.get("jid").map(Value::to_python_str) else {
                continue;
            };
            let pid = job.get("pid").cloned().unwrap_or(Value::Null);
            let mut entry = Map::default();
            entry.insert(minion.clone(), pid);
            match out.get_mut(&jid) {
                Some(Value::Map(m)) => {
                    if let Some(Value::List(l)) = m.get_mut("Running") {
                        l.push(Value::Map(entry));
                    }
                }
                _ => {
                    let mut m = describe_running(&jid, job);
                    m.insert("Running".into(), Value::List(vec![Value::Map(entry)]));
                    m.insert("Returned".into(), Value::List(Vec::new()));
                    out.insert(jid, Value::Map(m));
                }
            }
        }
    }
    for (jid, v) in out.iter_mut() {
        let returned = jobs.returns(jid)?;
        if let Some(Value::List(l)) = v.as_map_mut().and_then(|m| m.get_mut("Returned")) {
            for id in returned.keys() {
                let id = Value::Str(id.clone());
                if !l.contains(&id) {
                    l.push(id);
                }
            }
        }
    }
    Ok(Answer::data(Value::Map(out)))
}

/// A running job's proc data as Salt's `_format_jid_instance` shows it.
fn describe_running(jid: &str, job: &Map) -> Map {
    let text = |k: &str, default: &str| job.get(k).cloned().unwrap_or_else(|| Value::from(default));
    let mut m = Map::default();
    m.insert("Function".into(), text("fun", "unknown-function"));
    m.insert(
        "Arguments".into(),
        match job.get("arg") {
            Some(Value::List(l)) => Value::List(l.clone()),
            _ => Value::List(Vec::new()),
        },
    );
    m.insert("Target".into(), text("tgt", "unknown-target"));
    m.insert("Target-type".into(), text("tgt_type", "list"));
    m.insert("User".into(), text("user", "root"));
    if let Some(md) = job.get("metadata") {
        m.insert("Metadata".into(), md.clone());
    }
    m.insert("StartTime".into(), Value::Str(jid_to_time(jid)));
    m
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::daemon::jobs::Job;
    use brine_protocol::messages::{JobReturn, PackedValue};

    #[test]
    fn the_job_cache_in_salts_shapes() {
        let td = tempfile::tempdir().unwrap();
        let jobs = JobCache::open(&td.path().join("j.sqlite")).unwrap();
        let jid = "20240102030405123456";
        jobs.add_job(
            &Job {
                jid: jid.into(),
                fun: "test.ping".into(),
                arg: vec![],
                kwarg: Map::default(),
                tgt: Value::List(vec!["b".into(), "a".into()]),
                tgt_type: "list".into(),
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
                ret: PackedValue::pack(&Value::Bool(true)).unwrap(),
                retcode: 0,
                success: true,
                out: None,
                schedule: None,
                called: false,
                user: None,
            },
            2,
        )
        .unwrap();
        let Answer::Data { data: l, .. } = list_jobs(&jobs).unwrap() else {
            panic!("list_jobs answers with data");
        };
        assert_eq!(
            l.to_json().to_string(),
            serde_json::json!({jid: {"Function": "test.ping", "Arguments": [],
                "Target": ["b", "a"], "Target-type": "list", "User": "root",
                "StartTime": "2024, Jan 02 03:04:05.123456"}})
            .to_string()
        );
        let looked_up = |returned, missing, order| {
            let cache = JobCache::open_existing(&td.path().join("j.sqlite")).unwrap();
            let a = lookup_jid(cache, jid, returned, missing).unwrap();
            let Answer::Returns {
                mut returns,
                outputter,
            } = a
            else {
                panic!("lookup_jid answers with the returns");
            };
            assert!(outputter.is_none());
            let mut m = Map::default();
            returns
                .for_each(order, &mut |k, v| {
                    m.insert(k.to_string(), v);
                    Ok(())
                })
                .unwrap();
            Value::Map(m).to_json().to_string()
        };
        for order in [KeyOrder::AsGiven, KeyOrder::Sorted] {
            assert_eq!(
                looked_up(true, true, order),
                r#"{"a":true,"b":"Minion did not return"}"#
            );
            assert_eq!(
                looked_up(false, true, order),
                r#"{"b":"Minion did not return"}"#
            );
            assert_eq!(looked_up(true, false, order), r#"{"a":true}"#);
        }
        let job = list_job(&jobs, jid).unwrap();
        let keys: Vec<&str> = job.as_map().unwrap().keys().map(String::as_str).collect();
        assert_eq!(
            keys,
            [
                "jid",
                "Function",
                "Arguments",
                "Target",
                "Target-type",
                "User",
                "Minions",
                "StartTime",
                "Result"
            ]
        );
        assert_eq!(
            job.get("Result").unwrap().to_json(),
            serde_json::json!({"a": {"return": true, "retcode": 0, "success": true}})
        );
        let printed = print_job(&jobs, jid).unwrap();
        assert_eq!(
            printed.get(jid).unwrap().get("Minions").unwrap().to_json(),
            serde_json::json!(["a", "b"])
        );
        assert_eq!(
            exit_success(&jobs, jid).unwrap().to_json().to_string(),
            serde_json::json!({"a": true, "b": false}).to_string()
        );
        let unknown = list_job(&jobs, "20200101000000000000").unwrap();
        assert_eq!(
            unknown.to_json().to_string(),
            serde_json::json!({"jid": "20200101000000000000",
                "Error": "Cannot contact returner or no job with this jid",
                "StartTime": "2020, Jan 01 00:00:00.000000", "Result": {}})
            .to_string()
        );
        assert_eq!(
            exit_success(&jobs, "20200101000000000000").unwrap(),
            Value::new_map()
        );
    }

    /// Returns read a page at a time come in arrival order, or merged
    /// with the silent targets by id when the outputter sorts.
    #[test]
    fn lookup_jid_pages_in_either_order() {
        let td = tempfile::tempdir().unwrap();
        let path = td.path().join("j.sqlite");
        let jobs = JobCache::open(&path).unwrap();
        let jid = "20240102030405123456";
        let targets: Vec<String> = ["a", "b", "c", "d", "e", "f"].map(String::from).to_vec();
        jobs.add_job(
            &Job {
                jid: jid.into(),
                fun: "test.echo".into(),
                arg: vec![],
                kwarg: Map::default(),
                tgt: Value::from("*"),
                tgt_type: "glob".into(),
                user: "root".into(),
                start_ms: 1,
            },
            &targets,
        )
        .unwrap();
        for (n, id) in ["d", "b", "f", "a"].into_iter().enumerate() {
            let r = JobReturn {
                jid: jid.into(),
                id: id.into(),
                fun: "test.echo".into(),
                fun_args: vec![],
                ret: PackedValue::text(&id.repeat(100)),
                retcode: 0,
                success: true,
                out: None,
                schedule: None,
                called: false,
                user: None,
            };
            jobs.add_return(&r, 10 + n as u64).unwrap();
        }
        let read = |order| {
            let mut r = JidReturns {
                jobs: JobCache::open_existing(&path).unwrap(),
                jid: jid.into(),
                returned: true,
                missing: true,
                // One return per page.
                page_bytes: 1,
            };
            let mut got = Vec::new();
            r.for_each(order, &mut |k, v| {
                got.push(format!("{k}={}", v.to_python_str().len()));
                Ok(())
            })
            .unwrap();
            got.join(" ")
        };
        let missing = DID_NOT_RETURN.len();
        assert_eq!(
            read(KeyOrder::AsGiven),
            format!("d=100 b=100 f=100 a=100 c={missing} e={missing}")
        );
        assert_eq!(
            read(KeyOrder::Sorted),
            format!("a=100 b=100 c={missing} d=100 e={missing} f=100")
        );
    }
}
