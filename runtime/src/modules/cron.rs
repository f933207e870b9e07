//! Salt's `cron` module: a user's crontab read and written through
//! `crontab`, in Salt's layout. Lines below Salt's marker line are Salt's:
//! environment lines, jobs, `@special` jobs, each job optionally after a
//! comment line carrying `SALT_CRON_IDENTIFIER:<id>`; lines above the
//! marker are kept as they are.

use super::function::{sig, CallError, Ctx, Function, Return, Signature};
use super::params::{into_string, Params};
use super::run::run;
use brine_core::{Map, Value};
use brine_host::accounts;
use std::io::Write;

const TAG: &str = "# Lines below here are managed by Salt, do not edit";
const ID_KEY: &str = "SALT_CRON_IDENTIFIER";
const NO_ID: &str = "NO ID SET";

/// The signature several functions here share (Salt's, recorded).
const RM_JOB_SIG: Signature = sig!(
    user,
    cmd,
    minute = null,
    hour = null,
    daymonth = null,
    month = null,
    dayweek = null,
    identifier = null
);

pub(super) const FUNCTIONS: &[Function] = &[
    Function::acts(
        "get_entry",
        sig!(user, identifier = null, cmd = null),
        "The job of USER's crontab with IDENTIFIER (else the one running CMD), as list_tab shows it; False when there is none.\n\n    \
brine-call cron.get_entry root identifier=backup",
        get_entry_fn,
    ),
    Function::acts(
        "list_tab",
        sig!(user),
        "USER's crontab as Salt sees it: {pre, crons, special, env}: the lines \
above Salt's marker, then the jobs (minute, hour, daymonth, month, dayweek, cmd, \
identifier, comment, commented), @special jobs and environment lines below it.\n\n    \
brine-call cron.list_tab root",
        list_tab_fn,
    ),
    Function::acts(
        "ls",
        sig!(user),
        "Another name for cron.list_tab.\n\n    brine-call cron.ls root",
        list_tab_fn,
    ),
    Function::acts(
        "raw_cron",
        sig!(user),
        "USER's crontab as text (crontab's own header dropped).\n\n    \
brine-call cron.raw_cron root",
        raw_cron_fn,
    ),
    Function::acts(
        "rm_env",
        sig!(user, name),
        "Remove the environment line NAME from USER's crontab: 'removed' or \
'absent'.\n\n    brine-call cron.rm_env root MAILTO",
        rm_env_fn,
    ),
    Function::acts(
        "rm_job",
        RM_JOB_SIG,
        "Remove the job running CMD (or with IDENTIFIER) from USER's crontab; \
MINUTE, HOUR, DAYMONTH, MONTH, DAYWEEK narrow the match. 'removed' or \
'absent'.\n\n    brine-call cron.rm_job root /usr/local/bin/backup",
        rm_job_fn,
    ),
    Function::acts(
        "rm",
        RM_JOB_SIG,
        "Another name for cron.rm_job.\n\n    brine-call cron.rm root /usr/local/bin/backup",
        rm_job_fn,
    ),
    Function::acts(
        "rm_special",
        sig!(user, cmd, special = null, identifier = null),
        "Remove the @special job running CMD (or with IDENTIFIER; SPECIAL narrows \
it) from USER's crontab: 'removed' or 'absent'.\n\n    \
brine-call cron.rm_special root /usr/bin/foo",
        rm_special_fn,
    ),
    Function::acts(
        "set_env",
        sig!(user, name, value = null),
        "Set the environment line NAME=VALUE in USER's crontab: 'new', 'updated' \
or 'present'.\n\n    brine-call cron.set_env root MAILTO ops@example.com",
        set_env_fn,
    ),
    Function::acts(
        "set_special",
        sig!(user, special, cmd, commented = false, comment = null, identifier = null),
        "Make USER's crontab run CMD at SPECIAL (@reboot, @daily ...), with COMMENT, IDENTIFIER, COMMENTED; a job with the same IDENTIFIER (or CMD) is updated. 'new', 'updated' or 'present'.\n\n    \
brine-call cron.set_special root @daily /usr/local/bin/rotate",
        set_special_fn,
    ),
    Function::acts(
        "set_job",
        sig!(
            user,
            minute,
            hour,
            daymonth,
            month,
            dayweek,
            cmd,
            commented = false,
            comment = null,
            identifier = null
        ),
        "Make USER's crontab run CMD at MINUTE HOUR DAYMONTH MONTH DAYWEEK \
('random' picks a value, 'a:b' a value in that range), with COMMENT, \
IDENTIFIER, COMMENTED (written disabled). A job with the same IDENTIFIER (or \
CMD) is updated. 'new', 'updated' or 'present'; crontab's error when it \
refuses.\n\n    brine-call cron.set_job root '*/5' '*' '*' '*' '*' /usr/local/bin/poll",
        set_job_fn,
    ),
];

/// One job below the marker: timed (`when` is Some) or `@special`.
#[derive(Clone, Debug, PartialEq)]
struct Job {
    /// minute, hour, daymonth, month, dayweek.
    when: Option<[String; 5]>,
    spec: Option<String>,
    cmd: String,
    identifier: Option<String>,
    comment: Option<String>,
    commented: bool,
}

#[derive(Default)]
struct Tab {
    pre: Vec<String>,
    crons: Vec<Job>,
    special: Vec<Job>,
    env: Vec<(String, Option<String>)>,
}

fn is_self(user: &str) -> bool {
    accounts::uid_of(user) == Some(accounts::euid())
}

/// The crontab's text, without crontab's "DO NOT EDIT" header.
fn raw_cron(user: &str) -> Result<String, CallError> {
    let out = if is_self(user) {
        run(&["crontab", "-l"])?
    } else {
        run(&["crontab", "-u", user, "-l"])?
    };
    // exec::run drops the output's trailing newline; crontab ends every
    // line with one (it refuses a last line without), so it goes back on.
    let mut text = out.stdout;
    if !text.is_empty() {
        text.push('\n');
    }
    let mut lines: Vec<&str> = text.split_inclusive('\n').collect();
    if lines
        .first()
        .is_some_and(|l| l.starts_with("# DO NOT EDIT THIS FILE - edit the master and reinstall."))
    {
        lines.drain(0..lines.len().min(3));
    }
    Ok(lines.concat())
}

fn parse_tab(data: &str) -> Tab {
    let mut tab = Tab::default();
    let mut managed = false;
    let mut comment: Option<String> = None;
    let mut identifier: Option<String> = None;
    for line in data.lines() {
        if line == TAG {
            managed = true;
            continue;
        }
        if !managed {
            tab.pre.push(line.to_string());
            continue;
        }
        let (line, commented) = match line.strip_prefix("#DISABLED#") {
            Some(rest) => (rest, true),
            None => (line, false),
        };
        if line.starts_with('@') {
            let comps: Vec<&str> = line.split_whitespace().collect();
            if comps.len() < 2 {
                continue;
            }
            tab.special.push(Job {
                when: None,
                spec: Some(comps[0].to_string()),
                cmd: comps[1..].join(" "),
                identifier: identifier.take(),
                comment: comment.take(),
                commented,
            });
        } else if line.starts_with('#') {
            let mut text = line.trim_start_matches(['#', ' ']).to_string();
            if text.contains(ID_KEY) {
                let parts: Vec<&str> = text.split(ID_KEY).collect();
                if parts[1].chars().count() > 1 {
                    identifier = Some(parts[1].chars().skip(1).collect());
                }
                text = parts[0].trim_end().to_string();
            }
            comment = Some(match comment.take() {
                None => text,
                Some(c) => format!("{c}\n{text}"),
            });
        } else if line
            .find('=')
            .is_some_and(|eq| eq > 0 && line.find(' ').is_none_or(|sp| eq < sp))
        {
            if let Some((name, value)) = line.split_once('=') {
                tab.env.push((name.to_string(), Some(value.to_string())));
            }
        } else {
            let comps: Vec<&str> = line.split(' ').collect();
            if comps.len() > 5 {
                tab.crons.push(Job {
                    when: Some(std::array::from_fn(|i| comps[i].to_string())),
                    spec: None,
                    cmd: comps[5..].join(" "),
                    identifier: identifier.take(),
                    comment: comment.take(),
                    commented,
                });
            }
        }
    }
    tab
}

fn list_tab(user: &str) -> Result<Tab, CallError> {
    Ok(parse_tab(&raw_cron(user)?))
}

fn opt_str(v: &Option<String>) -> Value {
    v.clone().map_or(Value::Null, Value::Str)
}

fn job_value(j: &Job) -> Value {
    let mut m = Map::default();
    if let Some(w) = &j.when {
        for (k, v) in ["minute", "hour", "daymonth", "month", "dayweek"]
            .iter()
            .zip(w)
        {
            m.insert((*k).into(), Value::Str(v.clone()));
        }
        m.insert("identifier".into(), opt_str(&j.identifier));
        m.insert("cmd".into(), Value::Str(j.cmd.clone()));
    } else {
        m.insert("spec".into(), opt_str(&j.spec));
        m.insert("cmd".into(), Value::Str(j.cmd.clone()));
        m.insert("identifier".into(), opt_str(&j.identifier));
    }
    m.insert("comment".into(), opt_str(&j.comment));
    m.insert("commented".into(), Value::Bool(j.commented));
    Value::Map(m)
}

fn tab_value(t: &Tab) -> Value {
    let mut m = Map::default();
    m.insert(
        "pre".into(),
        Value::List(t.pre.iter().cloned().map(Value::Str).collect()),
    );
    m.insert(
        "crons".into(),
        Value::List(t.crons.iter().map(job_value).collect()),
    );
    m.insert(
        "special".into(),
        Value::List(t.special.iter().map(job_value).collect()),
    );
    m.insert(
        "env".into(),
        Value::List(
            t.env
                .iter()
                .map(|(n, v)| {
                    let mut e = Map::default();
                    e.insert("name".into(), Value::Str(n.clone()));
                    e.insert("value".into(), opt_str(v));
                    Value::Map(e)
                })
                .collect(),
        ),
    );
    Value::Map(m)
}

/// The job's comment line, when it has one.
fn comment_line(j: &Job, special: bool) -> Option<String> {
    if j.comment.is_none() && j.identifier.is_none() {
        return None;
    }
    let mut line = String::from("#");
    if let Some(c) = j.comment.as_deref().filter(|c| !c.is_empty()) {
        let c = if special { c.trim_end() } else { c };
        line.push(' ');
        line.push_str(&c.replace('\n', "\n# "));
    }
    if let Some(id) = j.identifier.as_deref().filter(|i| !i.is_empty()) {
        line.push_str(&format!(" {ID_KEY}:{id}"));
    }
    line.push('\n');
    Some(line)
}

fn render_tab(t: &Tab) -> String {
    let mut out: Vec<String> = t.pre.iter().map(|p| format!("{p}\n")).collect();
    let tag = format!("{TAG}\n");
    if out.last() != Some(&tag) {
        out.push(tag);
    }
    for (name, value) in &t.env {
        match value.as_deref() {
            None | Some("") => out.push(format!("{name}=\"\"\n")),
            Some(v) => out.push(format!("{name}={v}\n")),
        }
    }
    let disabled = |j: &Job| if j.commented { "#DISABLED#" } else { "" };
    for j in &t.crons {
        out.extend(comment_line(j, false));
        if let Some(w) = &j.when {
            out.push(format!("{}{} {}\n", disabled(j), w.join(" "), j.cmd));
        }
    }
    for j in &t.special {
        out.extend(comment_line(j, true));
        out.push(format!(
            "{}{} {}\n",
            disabled(j),
            j.spec.as_deref().unwrap_or_default(),
            j.cmd
        ));
    }
    out.concat()
}

/// Install `text` as USER's crontab; crontab's stderr and exit code when
/// it refuses.
fn write_tab(user: &str, text: &str) -> Result<Option<(String, i32)>, CallError> {
    let fail = |e: std::io::Error| CallError::Failed(format!("Unable to write crontab: {e}"));
    let mut file = tempfile::NamedTempFile::new().map_err(fail)?;
    file.write_all(text.as_bytes()).map_err(fail)?;
    let path = file.path().display().to_string();
    let out = if is_self(user) {
        run(&["crontab", &path])?
    } else {
        run(&["crontab", "-u", user, &path])?
    };
    Ok((out.retcode != 0).then_some((out.stderr, out.retcode)))
}

/// Write the tab, answering `ok` or crontab's complaint (with its code as
/// the call's retcode, as Salt's `cmd.run_all` sets it).
fn commit(user: &str, tab: &Tab, ok: &str) -> Result<Return, CallError> {
    Ok(match write_tab(user, &render_tab(tab))? {
        None => Value::Str(ok.into()).into(),
        Some((stderr, retcode)) => Return {
            value: Value::Str(stderr),
            retcode,
        },
    })
}

/// Salt's `_cron_matched`: the same identifier, or (with no identifier on
/// either side) the same command.
fn matched(j: &Job, cmd: &str, identifier: Option<&str>) -> bool {
    let mut cid = j
        .identifier
        .as_deref()
        .filter(|i| !i.is_empty())
        .unwrap_or(NO_ID)
        .to_string();
    let eid = identifier.filter(|i| !i.is_empty()).unwrap_or(NO_ID);
    if j.cmd != cmd && cid == NO_ID && eid == NO_ID {
        return false;
    }
    if j.cmd == cmd && cid == NO_ID {
        cid = eid.to_string();
    }
    eid == cid
}

fn user_of(p: &mut Params) -> Result<String, CallError> {
    match p.require("user")? {
        v @ (Value::List(_) | Value::Map(_)) => Err(CallError::InvalidArguments(format!(
            "getpwnam(): argument must be str, not {}",
            v.type_name()
        ))),
        v => Ok(into_string(v)),
    }
}

fn list_tab_fn(_: &Ctx<'_>, mut p: Params) -> Result<Return, CallError> {
    let user = user_of(&mut p)?;
    p.finish()?;
    Ok(tab_value(&list_tab(&user)?).into())
}

fn raw_cron_fn(_: &Ctx<'_>, mut p: Params) -> Result<Return, CallError> {
    let user = user_of(&mut p)?;
    p.finish()?;
    Ok(Value::Str(raw_cron(&user)?).into())
}

/// An optional parameter as Salt compares it: None, or its `str()`.
fn opt_param(v: Option<Value>) -> Option<String> {
    match v {
        None | Some(Value::Null) => None,
        Some(v) => Some(into_string(v)),
    }
}

fn rm_job_fn(_: &Ctx<'_>, mut p: Params) -> Result<Return, CallError> {
    let user = user_of(&mut p)?;
    let cmd = into_string(p.require("cmd")?);
    let when: [Option<String>; 5] = [
        opt_param(p.take("minute")),
        opt_param(p.take("hour")),
        opt_param(p.take("daymonth")),
        opt_param(p.take("month")),
        opt_param(p.take("dayweek")),
    ];
    let identifier = opt_param(p.take("identifier"));
    p.finish()?;
    rm_job(&user, &cmd, &when, identifier.as_deref())
}

fn rm_job(
    user: &str,
    cmd: &str,
    when: &[Option<String>; 5],
    identifier: Option<&str>,
) -> Result<Return, CallError> {
    let mut tab = list_tab(user)?;
    let any_time = when.iter().any(Option::is_some);
    let pos = tab.crons.iter().position(|j| {
        matched(j, cmd, identifier)
            && (!any_time
                || j.when.as_ref().is_some_and(|w| {
                    w.iter().zip(when).all(|(have, want)| match want {
                        None => true,
                        Some(want) => {
                            have == want || (want.to_lowercase() == "random" && have != "*")
                        }
                    })
                }))
    });
    match pos {
        Some(i) => {
            tab.crons.remove(i);
            commit(user, &tab, "removed")
        }
        None => Ok(Value::Str("absent".into()).into()),
    }
}

fn rm_special_fn(_: &Ctx<'_>, mut p: Params) -> Result<Return, CallError> {
    let user = user_of(&mut p)?;
    let cmd = into_string(p.require("cmd")?);
    let special = opt_param(p.take("special"));
    let identifier = opt_param(p.take("identifier"));
    p.finish()?;
    rm_special(&user, &cmd, special.as_deref(), identifier.as_deref())
}

fn rm_special(
    user: &str,
    cmd: &str,
    special: Option<&str>,
    identifier: Option<&str>,
) -> Result<Return, CallError> {
    let mut tab = list_tab(user)?;
    let pos = tab.special.iter().position(|j| {
        matched(j, cmd, identifier) && special.is_none_or(|s| j.spec.as_deref() == Some(s))
    });
    let ret = match pos {
        Some(i) => {
            tab.special.remove(i);
            "removed"
        }
        None => "absent",
    };
    // Salt writes the tab back either way.
    commit(user, &tab, ret)
}

fn set_env_fn(_: &Ctx<'_>, mut p: Params) -> Result<Return, CallError> {
    let user = user_of(&mut p)?;
    let name = into_string(p.require("name")?);
    let value = opt_param(p.take("value"));
    p.finish()?;
    let mut tab = list_tab(&user)?;
    if let Some(i) = tab.env.iter().position(|(n, _)| *n == name) {
        if tab.env[i].1 == value {
            return Ok(Value::Str("present".into()).into());
        }
        tab.env.remove(i);
        tab.env.push((name, value));
        return commit(&user, &tab, "updated");
    }
    tab.env.push((name, value));
    commit(&user, &tab, "new")
}

fn rm_env_fn(_: &Ctx<'_>, mut p: Params) -> Result<Return, CallError> {
    let user = user_of(&mut p)?;
    let name = into_string(p.require("name")?);
    p.finish()?;
    let mut tab = list_tab(&user)?;
    let ret = match tab.env.iter().rposition(|(n, _)| *n == name) {
        Some(i) => {
            tab.env.remove(i);
            "removed"
        }
        None => "absent",
    };
    commit(&user, &tab, ret)
}

/// A random number in `lo..=hi` (cron's 'random' and 'a:b' fields).
fn random_in(lo: i64, hi: i64) -> i64 {
    let mut b = [0u8; 8];
    // A failed read leaves zeros: the range's low end, still a valid value.
    let _ = getrandom::fill(&mut b);
    let span = (hi - lo + 1).max(1).unsigned_abs();
    lo + i64::try_from(u64::from_le_bytes(b) % span).unwrap_or(0)
}

/// Salt's `_get_cron_date_time`: 'random' and 'a:b' made concrete.
fn concrete_time(fields: &[String; 5]) -> Result<[String; 5], CallError> {
    let ranges = [(0, 59), (0, 23), (1, 28), (1, 12), (0, 6)];
    let mut out = fields.clone();
    for i in [0, 1, 3, 4] {
        let value = &fields[i];
        if value == "random" {
            out[i] = random_in(ranges[i].0, ranges[i].1).to_string();
        } else if value.split(':').count() == 2 {
            let mut parts: Vec<&str> = value.split(':').collect();
            parts.sort_unstable();
            let num = |s: &str| {
                s.trim().parse::<i64>().map_err(|_| {
                    CallError::Failed(format!("invalid literal for int() with base 10: '{s}'"))
                })
            };
            out[i] = random_in(num(parts[0])?, num(parts[1])?).to_string();
        }
    }
    if fields[2] == "random" {
        let max = match out[3].as_str() {
            "1" | "3" | "5" | "7" | "8" | "10" | "12" => 31,
            "4" | "6" | "9" | "11" => 30,
            _ => 28,
        };
        out[2] = random_in(1, max).to_string();
    }
    Ok(out)
}

/// Salt's `_needs_change`.
fn needs_change(old: Option<&str>, new: Option<&str>) -> bool {
    if old == new {
        return false;
    }
    match new {
        Some("random") => old == Some("*"),
        Some(_) => true,
        None => false,
    }
}

/// A job `set_job` (`when`) or `set_special` (`spec`) is to write.
struct NewJob {
    when: Option<[String; 5]>,
    spec: Option<String>,
    cmd: String,
    commented: bool,
    comment: Option<String>,
    identifier: Option<String>,
}

fn set_job_fn(_: &Ctx<'_>, mut p: Params) -> Result<Return, CallError> {
    let user = user_of(&mut p)?;
    let mut when: Vec<String> = Vec::new();
    for name in ["minute", "hour", "daymonth", "month", "dayweek"] {
        when.push(p.require(name)?.to_python_str().to_lowercase());
    }
    let cmd = into_string(p.require("cmd")?);
    let commented = p.take("commented").is_some_and(|v| v == Value::Bool(true));
    let comment = opt_param(p.take("comment"));
    let identifier = opt_param(p.take("identifier"));
    p.finish()?;
    let when: [String; 5] = std::array::from_fn(|i| when[i].clone());
    set_job(
        &user,
        NewJob {
            when: Some(when),
            spec: None,
            cmd,
            commented,
            comment,
            identifier,
        },
        0,
    )
}

fn set_special_fn(_: &Ctx<'_>, mut p: Params) -> Result<Return, CallError> {
    let user = user_of(&mut p)?;
    let special = into_string(p.require("special")?);
    let cmd = into_string(p.require("cmd")?);
    let commented = p.take("commented").is_some_and(|v| v == Value::Bool(true));
    let comment = opt_param(p.take("comment"));
    let identifier = opt_param(p.take("identifier"));
    p.finish()?;
    set_job(
        &user,
        NewJob {
            when: None,
            spec: Some(special),
            cmd,
            commented,
            comment,
            identifier,
        },
        0,
    )
}

fn get_entry_fn(_: &Ctx<'_>, mut p: Params) -> Result<Return, CallError> {
    let user = user_of(&mut p)?;
    let identifier = opt_param(p.take("identifier")).filter(|i| !i.is_empty());
    // With both given Salt looks by identifier only.
    let cmd = opt_param(p.take("cmd"))
        .filter(|c| !c.is_empty())
        .filter(|_| identifier.is_none());
    p.finish()?;
    let tab = list_tab(&user)?;
    let found = tab
        .crons
        .iter()
        .chain(&tab.special)
        .find(|j| match (&identifier, &cmd) {
            (Some(id), _) => j.identifier.as_ref() == Some(id),
            (None, Some(c)) => j.cmd == *c,
            (None, None) => false,
        });
    Ok(found.map_or(Value::Bool(false), job_value).into())
}

/// Salt's `set_job` and `set_special`: a job with the same identifier (or
/// command) is rewritten when anything differs, else a new one is added.
fn set_job(user: &str, mut new: NewJob, depth: u8) -> Result<Return, CallError> {
    let tab = list_tab(user)?;
    let found = tab
        .crons
        .iter()
        .chain(&tab.special)
        .find(|j| matched(j, &new.cmd, new.identifier.as_deref()))
        .cloned();
    if let Some(old) = found {
        let cid = old
            .identifier
            .clone()
            .filter(|i| !i.is_empty())
            .unwrap_or_else(|| NO_ID.to_string());
        let set_id = old.identifier.clone().unwrap_or_else(|| NO_ID.to_string());
        let old_when: [Option<&str>; 5] =
            std::array::from_fn(|i| old.when.as_ref().map(|w| w[i].as_str()));
        let bool_s = |b: bool| if b { "True" } else { "False" };
        let mut changes = vec![
            needs_change(old.comment.as_deref(), new.comment.as_deref()),
            needs_change(Some(bool_s(old.commented)), Some(bool_s(new.commented))),
            needs_change(new.identifier.as_deref(), Some(&set_id)),
            needs_change(Some(&old.cmd), Some(&new.cmd)),
        ];
        changes.extend(
            (0..5).map(|i| needs_change(old_when[i], new.when.as_ref().map(|w| w[i].as_str()))),
        );
        changes.push(needs_change(old.spec.as_deref(), new.spec.as_deref()));
        // Salt's recursion ends once the rewritten job matches; a bound
        // keeps a crontab that will not take it from looping.
        if !changes.iter().any(|c| *c) || depth > 3 {
            return Ok(Value::Str("present".into()).into());
        }
        let removed = if old.spec.is_some() {
            rm_special(user, &new.cmd, None, Some(&cid))?
        } else {
            rm_job(user, &new.cmd, &Default::default(), Some(&cid))?
        };
        if removed.retcode != 0 {
            return Ok(removed);
        }
        if let Some(when) = new.when.as_mut() {
            for (field, old_field) in when.iter_mut().zip(old_when) {
                if let Some(o) = old_field.filter(|o| !needs_change(Some(o), Some(field))) {
                    *field = o.to_string();
                }
            }
        }
        if !needs_change(old.comment.as_deref(), new.comment.as_deref()) {
            new.comment = old.comment.clone();
        }
        let mut cid = Some(cid);
        if !needs_change(Some(&old.cmd), Some(&new.cmd)) && cid.as_deref() == Some(NO_ID) {
            if let Some(id) = new.identifier.clone().filter(|i| !i.is_empty()) {
                cid = Some(id);
            }
            if cid.as_deref() == Some(NO_ID) && old.identifier.is_none() {
                cid = None;
            }
        }
        if cid.as_deref().is_none_or(str::is_empty)
            || !needs_change(cid.as_deref(), new.identifier.as_deref())
        {
            new.identifier = cid;
        }
        let ret = set_job(user, new, depth + 1)?;
        return Ok(if ret.value == Value::Str("new".into()) {
            Value::Str("updated".into()).into()
        } else {
            ret
        });
    }
    let mut tab = tab;
    let when = new.when.as_ref().map(concrete_time).transpose()?;
    let job = Job {
        when,
        spec: new.spec,
        cmd: new.cmd,
        identifier: new.identifier,
        comment: new.comment,
        commented: new.commented,
    };
    if job.when.is_some() {
        tab.crons.push(job);
    } else {
        tab.special.push(job);
    }
    commit(user, &tab, "new")
}
