//! Salt's `schedule` module: list and change the minion's schedule
//! ([`crate::schedule`]). Salt's functions send each change to the minion
//! daemon over its event bus; so do brine's: `brine-call` hands them to a
//! daemon of the same minion running on the host (its local bus), and the
//! daemon runs them here on the schedule it runs (`Minion::schedule`).
//! When no daemon took them, nothing did: lists are empty and changes
//! fail, with Salt's answers; `offline=True` works on the saved schedule
//! instead. Answers and comments are Salt 3007.8's
//! (tests/recorded/fleet/schedule.salt.json, bus.salt.json).

use super::function::{sig, CallError, Function, Return};
use super::params::Params;
use crate::context::Minion;
use crate::schedule::{self, Schedule};
use brine_core::{Map, Value};

pub(super) const FUNCTIONS: &[Function] = &[
    Function::minion(
        "add",
        sig!(name, **kwargs),
        "Add the job NAME: function=, its time (seconds/minutes/hours/days, cron, \
when or once) and the other schedule keys (job_args, job_kwargs, splay, maxrunning, \
range, until, after, run_on_start, return_job, metadata, enabled); saved unless \
persist=False.\n\n    brine '*' schedule.add job1 function='test.ping' seconds=3600",
        add,
    ),
    Function::minion(
        "build_schedule_item",
        sig!(name, **kwargs),
        "The job NAME as schedule.add would add it.\n\n    \
brine '*' schedule.build_schedule_item job1 function='test.ping' seconds=3600",
        build_item,
    ),
    Function::minion(
        "delete",
        sig!(name, **kwargs),
        "Delete the job NAME (not a pillar job).\n\n    brine '*' schedule.delete job1",
        delete,
    ),
    Function::minion(
        "disable",
        sig!(**kwargs),
        "Disable the whole schedule.\n\n    brine '*' schedule.disable",
        disable,
    ),
    Function::minion(
        "disable_job",
        sig!(name, **kwargs),
        "Disable the job NAME.\n\n    brine '*' schedule.disable_job job1",
        disable_job,
    ),
    Function::minion(
        "enable",
        sig!(**kwargs),
        "Enable the whole schedule.\n\n    brine '*' schedule.enable",
        enable,
    ),
    Function::minion(
        "enable_job",
        sig!(name, **kwargs),
        "Enable the job NAME.\n\n    brine '*' schedule.enable_job job1",
        enable_job,
    ),
    Function::minion(
        "is_enabled",
        sig!(name = null),
        "The job NAME if it is listed ({} if not); without NAME, whether the \
schedule is enabled.\n\n    brine '*' schedule.is_enabled job1",
        is_enabled,
    ),
    Function::minion(
        "job_status",
        sig!(name, time_fmt = "%Y-%m-%dT%H:%M:%S"),
        "The job NAME with the scheduler's state of it (_next_fire_time ...).\n\n    \
brine '*' schedule.job_status job1",
        job_status,
    ),
    Function::minion(
        "list",
        sig!(
            show_all = false,
            show_disabled = true,
            where = null,
            return_yaml = true,
            offline = false
        ),
        "The jobs of the schedule (SHOW_ALL: with the minion's own __ jobs; \
WHERE: opts or pillar only), as YAML text with whether each is saved, or as data \
with return_yaml=False.\n\n    brine '*' schedule.list",
        list,
    ),
    Function::minion(
        "modify",
        sig!(name, **kwargs),
        "Replace the job NAME with the job the arguments build (schedule.add's).\n\n    \
brine '*' schedule.modify job1 function='test.ping' seconds=60",
        modify,
    ),
    Function::minion(
        "purge",
        sig!(**kwargs),
        "Delete every job (not the minion's own __ jobs, not pillar jobs).\n\n    \
brine '*' schedule.purge",
        purge,
    ),
    Function::minion(
        "reload",
        sig!(),
        "Merge the jobs of minion.d/schedule.conf into the schedule.\n\n    \
brine '*' schedule.reload",
        reload,
    ),
    Function::minion(
        "run_job",
        sig!(name, force = false),
        "Run the job NAME now (a disabled one only with force=True).\n\n    \
brine '*' schedule.run_job job1",
        run_job,
    ),
    Function::minion(
        "save",
        sig!(**kwargs),
        "Save the schedule (its non-pillar jobs) to minion.d/_schedule.conf.\n\n    \
brine '*' schedule.save",
        save,
    ),
    Function::minion(
        "show_next_fire_time",
        sig!(name, **kwargs),
        "When the job NAME runs next.\n\n    brine '*' schedule.show_next_fire_time job1",
        show_next_fire_time,
    ),
];

/// The keys a listing shows (Salt's `SCHEDULE_CONF`).
const SHOWN: &[&str] = &[
    "name",
    "maxrunning",
    "function",
    "splay",
    "range",
    "when",
    "once",
    "once_fmt",
    "returner",
    "jid_include",
    "args",
    "kwargs",
    "_seconds",
    "seconds",
    "minutes",
    "hours",
    "days",
    "enabled",
    "return_job",
    "metadata",
    "cron",
    "until",
    "after",
    "return_config",
    "return_kwargs",
    "run_on_start",
    "skip_during_range",
    "run_after_skip_range",
];

const TIME_ELEMENTS: [&str; 4] = ["seconds", "minutes", "hours", "days"];

/// Run `f` on the minion's schedule: the daemon's, or (`offline=True`,
/// no daemon in this process) the saved one its options hold.
fn with<R>(m: &Minion, f: impl FnOnce(&mut Schedule) -> R) -> R {
    match &m.schedule {
        Some(h) => f(&mut schedule::lock(h)),
        None => f(&mut Schedule::from_opts(&m.opts)),
    }
}

/// Whether no daemon is here to take the change (Salt's `event.fire` on
/// the minion's bus answered False), unless the call works on the saved
/// schedule (`offline`).
fn unreached(m: &Minion, offline: bool) -> bool {
    m.schedule.is_none() && !offline
}

/// `offline=True` among the keyword arguments.
fn offline(kwargs: &Map) -> bool {
    kwargs.get("offline").is_some_and(Value::is_truthy)
}

/// Keep a changed schedule in `_schedule.conf` (unless `persist=False`).
fn persist(s: &Schedule, kwargs: &Map) -> Result<(), CallError> {
    if kwargs.get("persist").is_some_and(|v| !v.is_truthy()) {
        return Ok(());
    }
    s.persist().map_err(|e| CallError::Failed(e.to_string()))
}

/// The keyword arguments as given (without the publish metadata).
fn plain_kwargs(p: &mut Params, fun: &str) -> Map {
    let mut kw = p.kwargs_with_pub(fun);
    kw.retain(|k, _| !k.starts_with("__pub_"));
    kw
}

fn test_mode(kwargs: &Map) -> bool {
    kwargs.get("test").is_some_and(Value::is_truthy)
}

fn ret(pairs: &[(&str, Value)]) -> Return {
    Value::Map(
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.clone()))
            .collect(),
    )
    .into()
}

/// The answer most `schedule.*` functions give, its keys in Salt's order.
fn answer(comment: String, result: bool, changes: Value) -> Return {
    ret(&[
        ("comment", s(comment)),
        ("result", Value::Bool(result)),
        ("changes", changes),
    ])
}

fn s(t: impl Into<String>) -> Value {
    Value::Str(t.into())
}

fn changed(name: &str, what: &str) -> Value {
    let mut m = Map::default();
    m.insert(name.to_string(), s(what));
    Value::Map(m)
}

/// Salt's `list_(return_yaml=False)`: the jobs of `where` with only the
/// keys a listing shows; `__` jobs only with `show_all`.
fn listed(m: &Minion, sched: &Schedule, show_all: bool, show_disabled: bool, wh: &str) -> Map {
    let mut jobs = match wh {
        "pillar" => schedule::of(&m.pillar),
        "opts" => sched.own().clone(),
        _ => sched.merged(&m.pillar),
    };
    let names: Vec<String> = jobs.keys().cloned().collect();
    for name in names {
        if schedule::HIDDEN[..3].contains(&name.as_str()) {
            continue;
        }
        if name.starts_with("__") && !show_all {
            jobs.shift_remove(&name);
            continue;
        }
        let Some(Value::Map(job)) = jobs.get_mut(&name) else {
            continue;
        };
        // The evaluation wrote the name into a pillar job too (the
        // options' jobs hold it already).
        if !job.contains_key("name") && sched.evaluated(&name) {
            job.insert("name".into(), Value::Str(name.clone()));
        }
        if !job.contains_key("enabled") {
            job.insert("enabled".into(), Value::Bool(true));
        }
        job.retain(|k, v| SHOWN.contains(&k.as_str()) && !matches!(v, Value::Null));
        for v in job.values_mut() {
            match v.as_str() {
                Some("true") => *v = Value::Bool(true),
                Some("false") => *v = Value::Bool(false),
                _ => {}
            }
        }
        let enabled = job.get("enabled").is_none_or(Value::is_truthy);
        job.shift_remove("_seconds");
        if !show_disabled && !enabled {
            jobs.shift_remove(&name);
        }
    }
    jobs
}

fn list(m: &mut Minion, mut p: Params) -> Result<Return, CallError> {
    let show_all = p.take("show_all").is_some_and(|v| v.is_truthy());
    let show_disabled = p.take("show_disabled").is_none_or(|v| v.is_truthy());
    let wh = p
        .take("where")
        .map(|v| v.to_python_str())
        .unwrap_or_default();
    let return_yaml = p.take("return_yaml").is_none_or(|v| v.is_truthy());
    let offline = p.take("offline").is_some_and(|v| v.is_truthy());
    p.finish()?;
    if unreached(m, offline) {
        // Nothing answered on the bus: Salt lists nothing.
        return Ok(if return_yaml {
            Value::Str("schedule: {}\n".into())
        } else {
            Value::new_map()
        }
        .into());
    }
    let (mut jobs, saved) = with(m, |sched| {
        (
            listed(m, sched, show_all, show_disabled, &wh),
            sched.saved(),
        )
    });
    if !return_yaml {
        return Ok(Value::Map(jobs).into());
    }
    for (name, job) in jobs.iter_mut() {
        if let Value::Map(job) = job {
            job.insert("saved".into(), Value::Bool(saved.contains_key(name)));
        }
    }
    let mut doc = Map::default();
    doc.insert("schedule".into(), Value::Map(jobs));
    Ok(Value::Str(brine_core::yaml::dump(&Value::Map(doc))).into())
}

fn is_enabled(m: &mut Minion, mut p: Params) -> Result<Return, CallError> {
    let name = p.take("name").filter(Value::is_truthy);
    p.finish()?;
    let jobs = if unreached(m, false) {
        Map::default()
    } else {
        with(m, |sched| listed(m, sched, false, true, ""))
    };
    Ok(match name {
        None => jobs.get("enabled").cloned().unwrap_or(Value::Bool(true)),
        Some(n) => jobs
            .get(&n.to_python_str())
            .cloned()
            .unwrap_or_else(Value::new_map),
    }
    .into())
}

/// Salt's `build_schedule_item`: the job the arguments describe, or the
/// answer saying why it is not one.
fn build(name: &str, kw: &Map) -> Result<Map, Return> {
    let fail = |c: &str| ret(&[("result", Value::Bool(false)), ("comment", s(c))]);
    let mut job = Map::default();
    let Some(function) = kw.get("function") else {
        return Err(fail(
            "Missing function: function= names the function the job runs.",
        ));
    };
    job.insert("function".into(), function.clone());
    let timed = TIME_ELEMENTS.iter().any(|k| kw.contains_key(*k));
    if timed && (kw.contains_key("when") || kw.contains_key("cron")) {
        return Err(fail(
            "Unable to use \"seconds\", \"minutes\", \"hours\", or \"days\" with \"when\" or \"cron\" options.",
        ));
    }
    if kw.contains_key("when") && kw.contains_key("cron") {
        return Err(fail(
            "Unable to use \"when\" and \"cron\" options together.  Ignoring.",
        ));
    }
    for k in TIME_ELEMENTS {
        if let Some(v) = kw.get(k) {
            job.insert(k.into(), v.clone());
        }
    }
    for k in ["return_job", "metadata"] {
        if let Some(v) = kw.get(k) {
            job.insert(k.into(), v.clone());
        }
    }
    match kw.get("job_args") {
        Some(Value::List(l)) => {
            job.insert("args".into(), Value::List(l.clone()));
        }
        Some(_) => {
            return Err(fail(
                "job_args is not a list. please correct and try again.",
            ))
        }
        None => {}
    }
    match kw.get("job_kwargs") {
        Some(Value::Map(m)) => {
            job.insert("kwargs".into(), Value::Map(m.clone()));
        }
        Some(_) => {
            return Err(fail(
                "job_kwargs is not a dict. please correct and try again.",
            ))
        }
        None => {}
    }
    job.insert(
        "maxrunning".into(),
        kw.get("maxrunning").cloned().unwrap_or(Value::Int(1)),
    );
    job.insert(
        "name".into(),
        kw.get("name").cloned().unwrap_or_else(|| s(name)),
    );
    job.insert(
        "enabled".into(),
        kw.get("enabled").cloned().unwrap_or(Value::Bool(true)),
    );
    job.insert(
        "jid_include".into(),
        kw.get("jid_include").cloned().unwrap_or(Value::Bool(true)),
    );
    if let Some(splay) = kw.get("splay") {
        let v = match splay.as_map() {
            Some(m) => {
                let mut o = Map::default();
                o.insert(
                    "start".into(),
                    m.get("start").cloned().unwrap_or(Value::Null),
                );
                o.insert("end".into(), m.get("end").cloned().unwrap_or(Value::Null));
                Value::Map(o)
            }
            None => splay.clone(),
        };
        job.insert("splay".into(), v);
    }
    if let Some(when) = kw.get("when") {
        let whens = match when {
            Value::List(l) => l.clone(),
            v => vec![v.clone()],
        };
        let today = schedule::dates::now().date();
        for w in whens {
            let text = w.to_python_str();
            if schedule::dates::parse_fuzzy(&text, today).is_none() {
                return Err(fail(&format!(
                    "Schedule item {text} for \"when\" in invalid."
                )));
            }
        }
    }
    for k in [
        "range",
        "when",
        "once",
        "once_fmt",
        "cron",
        "returner",
        "after",
        "return_config",
        "return_kwargs",
        "until",
        "run_on_start",
        "skip_during_range",
    ] {
        if let Some(v) = kw.get(k) {
            job.insert(k.into(), v.clone());
        }
    }
    if let Some(expr) = job.get("cron").map(Value::to_python_str) {
        if schedule::dates::Cron::parse(&expr).is_none() {
            return Err(fail(&format!("Invalid cron string: {expr}")));
        }
    }
    Ok(job)
}

fn build_item(_m: &mut Minion, mut p: Params) -> Result<Return, CallError> {
    let name = p.require("name")?.to_python_str();
    let kw = plain_kwargs(&mut p, "schedule.build_schedule_item");
    p.finish()?;
    if name.is_empty() {
        return Ok(ret(&[
            ("comment", s("Job name is required.")),
            ("result", Value::Bool(false)),
        ]));
    }
    Ok(match build(&name, &kw) {
        Ok(job) => Value::Map(job).into(),
        Err(r) => r,
    })
}

fn add(m: &mut Minion, mut p: Params) -> Result<Return, CallError> {
    let name = p.require("name")?.to_python_str();
    let kw = plain_kwargs(&mut p, "schedule.add");
    p.finish()?;
    let pillar = m.pillar.clone();
    let none_here = unreached(m, offline(&kw));
    with(m, |sched| {
        if !none_here && sched.merged(&pillar).contains_key(&name) {
            return Ok(answer(
                format!("Job {name} already exists in schedule."),
                false,
                Value::new_map(),
            ));
        }
        if name.is_empty() {
            return Ok(answer(
                "Job name is required.".into(),
                false,
                Value::new_map(),
            ));
        }
        let timed = TIME_ELEMENTS.iter().any(|k| kw.contains_key(*k));
        if timed && (kw.contains_key("when") || kw.contains_key("cron")) {
            return Ok(answer(
                "Error: Unable to use \"seconds\", \"minutes\", \"hours\", or \"days\" with \"when\" or \"cron\" options.".into(),
                false,
                Value::new_map(),
            ));
        }
        if kw.contains_key("when") && kw.contains_key("cron") {
            return Ok(answer(
                "Unable to use \"when\" and \"cron\" options together.  Ignoring.".into(),
                false,
                Value::new_map(),
            ));
        }
        let job = match build(&name, &kw) {
            Ok(j) => j,
            Err(r) => return Ok(r),
        };
        if test_mode(&kw) {
            return Ok(answer(
                format!("Job: {name} would be added to schedule."),
                true,
                Value::new_map(),
            ));
        }
        if none_here {
            return Ok(answer(
                format!("Failed to add job {name} to schedule."),
                false,
                Value::new_map(),
            ));
        }
        match sched.add(&name, job, &pillar) {
            Ok(true) => {
                persist(sched, &kw)?;
                Ok(answer(
                    format!("Added job: {name} to schedule."),
                    true,
                    changed(&name, "added"),
                ))
            }
            Ok(false) => Ok(answer(
                format!("Failed to add job {name} to schedule."),
                false,
                Value::new_map(),
            )),
            Err(e) => Err(CallError::Failed(e.to_string())),
        }
    })
}

fn modify(m: &mut Minion, mut p: Params) -> Result<Return, CallError> {
    let name = p.require("name")?.to_python_str();
    let mut kw = plain_kwargs(&mut p, "schedule.modify");
    p.finish()?;
    let answer = |comment: String, changes: Value, result: bool| {
        ret(&[
            ("comment", s(comment)),
            ("changes", changes),
            ("result", Value::Bool(result)),
        ])
    };
    let timed = TIME_ELEMENTS.iter().any(|k| kw.contains_key(*k));
    if timed && (kw.contains_key("when") || kw.contains_key("cron")) {
        return Ok(answer(
            "Error: Unable to use \"seconds\", \"minutes\", \"hours\", or \"days\" with \"when\" option.".into(),
            Value::new_map(),
            false,
        ));
    }
    if kw.contains_key("when") && kw.contains_key("cron") {
        return Ok(answer(
            "Unable to use \"when\" and \"cron\" options together.  Ignoring.".into(),
            Value::new_map(),
            false,
        ));
    }
    if unreached(m, offline(&kw)) {
        return Ok(answer(
            format!("Job {name} does not exist in schedule."),
            Value::new_map(),
            false,
        ));
    }
    let pillar = m.pillar.clone();
    with(m, |sched| {
        let current = listed(m, sched, true, true, "");
        let Some(Value::Map(mut old)) = current.get(&name).cloned() else {
            return Ok(answer(
                format!("Job {name} does not exist in schedule."),
                Value::new_map(),
                false,
            ));
        };
        if !kw.contains_key("function") {
            kw.insert(
                "function".into(),
                old.get("function").cloned().unwrap_or(Value::Null),
            );
        }
        if let Some(secs) = old.shift_remove("_seconds") {
            old.insert("seconds".into(), secs);
        }
        let new = match build(&name, &kw) {
            Ok(j) => j,
            Err(r) => return Ok(r),
        };
        if new == old {
            return Ok(answer(
                format!("Job {name} in correct state"),
                Value::new_map(),
                true,
            ));
        }
        let mut diff = Map::default();
        diff.insert("old".into(), Value::Map(old));
        diff.insert("new".into(), Value::Map(new.clone()));
        let mut changes = Map::default();
        changes.insert(name.clone(), Value::Map(diff));
        if test_mode(&kw) {
            return Ok(answer(
                format!("Job: {name} would be modified in schedule."),
                Value::Map(changes),
                true,
            ));
        }
        if !sched.own().contains_key(&name) {
            // A pillar job: Salt's scheduler leaves it as the pillar says.
            tracing::warn!("Cannot modify job {name}, it's in the pillar!");
        } else {
            sched
                .modify(&name, new)
                .map_err(|e| CallError::Failed(e.to_string()))?;
            persist(sched, &kw)?;
        }
        let _ = &pillar;
        Ok(answer(
            format!("Modified job: {name} in schedule."),
            Value::Map(changes),
            true,
        ))
    })
}

fn delete(m: &mut Minion, mut p: Params) -> Result<Return, CallError> {
    let name = p.require("name")?.to_python_str();
    let kw = plain_kwargs(&mut p, "schedule.delete");
    p.finish()?;
    if test_mode(&kw) {
        return Ok(answer(
            format!("Job: {name} would be deleted from schedule."),
            true,
            Value::new_map(),
        ));
    }
    let pillar = m.pillar.clone();
    let none_here = unreached(m, offline(&kw));
    with(m, |sched| {
        if none_here || !sched.merged(&pillar).contains_key(&name) {
            return Ok(answer(
                format!("Job {name} does not exist."),
                false,
                Value::new_map(),
            ));
        }
        sched.delete(&name, &pillar);
        persist(sched, &kw)?;
        Ok(if sched.merged(&pillar).contains_key(&name) {
            answer(
                format!("Failed to delete job {name} from schedule."),
                false,
                Value::new_map(),
            )
        } else {
            answer(
                format!("Deleted Job {name} from schedule."),
                true,
                changed(&name, "removed"),
            )
        })
    })
}

fn purge(m: &mut Minion, mut p: Params) -> Result<Return, CallError> {
    let kw = plain_kwargs(&mut p, "schedule.purge");
    p.finish()?;
    if unreached(m, offline(&kw)) {
        return Ok(ret(&[
            ("comment", Value::List(vec![])),
            ("changes", Value::new_map()),
            ("result", Value::Bool(true)),
        ]));
    }
    let pillar = m.pillar.clone();
    with(m, |sched| {
        let mut comments = Vec::new();
        let mut changes = Map::default();
        let names: Vec<String> = listed(m, sched, true, true, "").keys().cloned().collect();
        for name in names {
            if name == "enabled" || name.starts_with("__") {
                continue;
            }
            if test_mode(&kw) {
                comments.push(s(format!("Job: {name} would be deleted from schedule.")));
                continue;
            }
            sched.delete(&name, &pillar);
            if sched.merged(&pillar).contains_key(&name) {
                comments.push(s(format!("Failed to delete job {name} from schedule.")));
            } else {
                comments.push(s(format!("Deleted job: {name} from schedule.")));
                changes.insert(name, s("removed"));
            }
        }
        if !test_mode(&kw) {
            persist(sched, &kw)?;
        }
        Ok(ret(&[
            ("comment", Value::List(comments)),
            ("changes", Value::Map(changes)),
            ("result", Value::Bool(true)),
        ]))
    })
}

/// `enable_job` / `disable_job`.
fn switch_job(m: &mut Minion, mut p: Params, on: bool, fun: &str) -> Result<Return, CallError> {
    let name = p.require("name")?.to_python_str();
    let kw = plain_kwargs(&mut p, fun);
    p.finish()?;
    let (word, past) = if on {
        ("enable", "Enabled")
    } else {
        ("disable", "Disabled")
    };
    if name.is_empty() {
        return Ok(answer(
            "Job name is required.".into(),
            false,
            Value::new_map(),
        ));
    }
    if test_mode(&kw) {
        return Ok(answer(
            format!("Job: {name} would be {word}d in schedule."),
            true,
            Value::new_map(),
        ));
    }
    let pillar = m.pillar.clone();
    let none_here = unreached(m, false);
    with(m, |sched| {
        if none_here || !sched.merged(&pillar).contains_key(&name) {
            return Ok(answer(
                format!("Job {name} does not exist."),
                false,
                Value::new_map(),
            ));
        }
        sched.set_job_enabled(&name, on, &pillar);
        persist(sched, &kw)?;
        let now_on = sched
            .merged(&pillar)
            .get(&name)
            .and_then(Value::as_map)
            .is_some_and(|j| j.get("enabled").is_none_or(Value::is_truthy));
        Ok(if now_on == on {
            answer(
                format!("{past} Job {name} in schedule."),
                true,
                changed(&name, &format!("{word}d")),
            )
        } else {
            answer(
                format!("Failed to {word} job {name} in schedule."),
                false,
                Value::new_map(),
            )
        })
    })
}

fn enable_job(m: &mut Minion, p: Params) -> Result<Return, CallError> {
    switch_job(m, p, true, "schedule.enable_job")
}

fn disable_job(m: &mut Minion, p: Params) -> Result<Return, CallError> {
    switch_job(m, p, false, "schedule.disable_job")
}

/// `enable` / `disable` of the whole schedule.
fn switch_all(m: &mut Minion, mut p: Params, on: bool, fun: &str) -> Result<Return, CallError> {
    let kw = plain_kwargs(&mut p, fun);
    p.finish()?;
    let (word, past) = if on {
        ("enabled", "Enabled")
    } else {
        ("disabled", "Disabled")
    };
    if test_mode(&kw) {
        return Ok(ret(&[
            ("comment", s(format!("Schedule would be {word}."))),
            ("changes", Value::new_map()),
            ("result", Value::Bool(true)),
        ]));
    }
    if unreached(m, false) {
        // Salt leaves its answer as it began it when nothing took the event.
        return Ok(ret(&[
            ("comment", Value::List(vec![])),
            ("changes", Value::new_map()),
            ("result", Value::Bool(true)),
        ]));
    }
    with(m, |sched| {
        sched.set_enabled(on);
        persist(sched, &kw)?;
        Ok(ret(&[
            ("comment", s(format!("{past} schedule on minion."))),
            ("changes", changed("schedule", word)),
            ("result", Value::Bool(true)),
        ]))
    })
}

fn enable(m: &mut Minion, p: Params) -> Result<Return, CallError> {
    switch_all(m, p, true, "schedule.enable")
}

fn disable(m: &mut Minion, p: Params) -> Result<Return, CallError> {
    switch_all(m, p, false, "schedule.disable")
}

fn save(m: &mut Minion, mut p: Params) -> Result<Return, CallError> {
    let kw = plain_kwargs(&mut p, "schedule.save");
    p.finish()?;
    if test_mode(&kw) {
        return Ok(ret(&[
            ("comment", s("Schedule would be saved.")),
            ("result", Value::Bool(true)),
        ]));
    }
    if unreached(m, false) {
        return Ok(ret(&[
            ("comment", Value::List(vec![])),
            ("result", Value::Bool(true)),
        ]));
    }
    with(m, |sched| {
        sched
            .persist()
            .map_err(|e| CallError::Failed(e.to_string()))
    })?;
    Ok(ret(&[
        ("comment", s("Schedule (non-pillar items) saved.")),
        ("result", Value::Bool(true)),
    ]))
}

fn reload(m: &mut Minion, p: Params) -> Result<Return, CallError> {
    p.finish()?;
    let mut comments = Vec::new();
    let mut result = true;
    let none_here = unreached(m, false);
    if m.pillar.contains_key("schedule") {
        // The pillar's jobs are read from the in-memory pillar each time:
        // nothing to reload.
        if none_here {
            comments.push(s("Failed to reload schedule from pillar on minion."));
            result = false;
        } else {
            comments.push(s("Reloaded schedule from pillar on minion."));
        }
    }
    with(m, |sched| {
        let Some(file) = sched.reload_file().filter(|f| f.is_file()) else {
            return;
        };
        match schedule::read_schedule_file(&file) {
            Some(_) if none_here => {
                comments.push(s("Failed to reload schedule on minion from schedule.conf."));
                result = false;
            }
            Some(saved) if !saved.is_empty() => {
                sched.reload(saved);
                comments.push(s("Reloaded schedule on minion from schedule.conf."));
            }
            _ => {
                comments.push(s(
                    "Failed to reload schedule on minion.  Saved file is empty or invalid.",
                ));
                result = false;
            }
        }
    });
    Ok(ret(&[
        ("comment", Value::List(comments)),
        ("result", Value::Bool(result)),
    ]))
}

fn run_job(m: &mut Minion, mut p: Params) -> Result<Return, CallError> {
    let name = p.require("name")?.to_python_str();
    let force = p.take("force").is_some_and(|v| v.is_truthy());
    p.finish()?;
    if name.is_empty() {
        return Ok(ret(&[
            ("comment", s("Job name is required.")),
            ("result", Value::Bool(false)),
        ]));
    }
    let none_here = unreached(m, false);
    with(m, |sched| {
        let jobs = if none_here {
            Map::default()
        } else {
            listed(m, sched, true, true, "")
        };
        let Some(job) = jobs.get(&name) else {
            return Ok(ret(&[
                ("comment", s(format!("Job {name} does not exist."))),
                ("result", Value::Bool(false)),
            ]));
        };
        let enabled = job
            .as_map()
            .is_none_or(|j| j.get("enabled").is_none_or(Value::is_truthy));
        if !enabled && !force {
            return Ok(ret(&[
                ("comment", s(format!("Job {name} is disabled."))),
                ("result", Value::Bool(true)),
            ]));
        }
        sched.run_now(&name);
        Ok(ret(&[
            ("comment", s(format!("Scheduling Job {name} on minion."))),
            ("result", Value::Bool(true)),
        ]))
    })
}

fn show_next_fire_time(m: &mut Minion, mut p: Params) -> Result<Return, CallError> {
    let name = p.require("name")?.to_python_str();
    let _ = plain_kwargs(&mut p, "schedule.show_next_fire_time");
    p.finish()?;
    if unreached(m, false) {
        // Salt's function fails on an answer it never got; brine says so.
        return Ok(ret(&[
            ("result", Value::Bool(false)),
            ("comment", s("next fire time not available.")),
        ]));
    }
    let next = with(m, |sched| sched.next_fire_time(&name));
    Ok(ret(&[
        ("result", Value::Bool(true)),
        ("next_fire_time", next.map_or(Value::Null, Value::Str)),
    ]))
}

fn job_status(m: &mut Minion, mut p: Params) -> Result<Return, CallError> {
    let name = p.require("name")?.to_python_str();
    p.take("time_fmt");
    p.finish()?;
    if unreached(m, false) {
        // Salt's function returns nothing when no daemon answered.
        return Ok(Value::Null.into());
    }
    let pillar = m.pillar.clone();
    Ok(Value::Map(with(m, |sched| sched.status(&name, &pillar))).into())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kw(j: serde_json::Value) -> Map {
        match Value::from_json(&j) {
            Value::Map(m) => m,
            _ => Map::default(),
        }
    }

    /// `schedule.add job2 function=test.echo job_args=['hi'] seconds=5`
    /// as Salt 3007.8 builds it (the order of its keys shows in
    /// `schedule.modify`'s changes).
    #[test]
    fn items_are_built_as_salt_builds_them() {
        let job = build(
            "job2",
            &kw(serde_json::json!({"function": "test.echo", "job_args": ["hi"], "seconds": 5})),
        )
        .unwrap_or_default();
        assert_eq!(
            serde_json::to_string(&job).unwrap_or_default(),
            r#"{"function":"test.echo","seconds":5,"args":["hi"],"maxrunning":1,"name":"job2","enabled":true,"jid_include":true}"#
        );
        let bad = build(
            "b",
            &kw(serde_json::json!({"function": "f", "job_args": "x"})),
        );
        assert!(bad.is_err());
        let bad = build(
            "b",
            &kw(serde_json::json!({"function": "f", "cron": "nope"})),
        );
        assert!(bad.is_err());
    }
}
