//! Salt's `cron` module: a user's crontab read and written through
//! `crontab`, in Salt's layout. The crontab logic is the cron state
//! module's (`brine_states::modules::cron::tab`); here are the functions'
//! arguments and answers.

use super::function::{sig, CallError, Ctx, Function, Return, Signature};
use super::params::{into_string, Params};
use brine_core::Value;
use brine_states::modules::cron::tab::{self, CronError, NewJob, Outcome};

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

fn failed(e: CronError) -> CallError {
    CallError::Failed(e.to_string())
}

/// A write's answer: Salt's word, or crontab's complaint with its code as
/// the call's retcode (as Salt's `cmd.run_all` sets it).
fn answer(o: Result<Outcome, CronError>) -> Result<Return, CallError> {
    Ok(match o.map_err(failed)? {
        Outcome::Done(word) => Value::Str(word.into()).into(),
        Outcome::Refused { stderr, retcode } => Return {
            value: Value::Str(stderr),
            retcode,
        },
    })
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
    Ok(tab::tab_value(&tab::list_tab(&user).map_err(failed)?).into())
}

fn raw_cron_fn(_: &Ctx<'_>, mut p: Params) -> Result<Return, CallError> {
    let user = user_of(&mut p)?;
    p.finish()?;
    Ok(Value::Str(tab::raw_cron(&user).map_err(failed)?).into())
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
    answer(tab::rm_job(&user, &cmd, &when, identifier.as_deref()))
}

fn rm_special_fn(_: &Ctx<'_>, mut p: Params) -> Result<Return, CallError> {
    let user = user_of(&mut p)?;
    let cmd = into_string(p.require("cmd")?);
    let special = opt_param(p.take("special"));
    let identifier = opt_param(p.take("identifier"));
    p.finish()?;
    answer(tab::rm_special(
        &user,
        &cmd,
        special.as_deref(),
        identifier.as_deref(),
    ))
}

fn set_env_fn(_: &Ctx<'_>, mut p: Params) -> Result<Return, CallError> {
    let user = user_of(&mut p)?;
    let name = into_string(p.require("name")?);
    let value = opt_param(p.take("value"));
    p.finish()?;
    answer(tab::set_env(&user, &name, value))
}

fn rm_env_fn(_: &Ctx<'_>, mut p: Params) -> Result<Return, CallError> {
    let user = user_of(&mut p)?;
    let name = into_string(p.require("name")?);
    p.finish()?;
    answer(tab::rm_env(&user, &name))
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
    answer(tab::set_job(
        &user,
        NewJob {
            when: Some(when),
            spec: None,
            cmd,
            commented,
            comment,
            identifier,
        },
    ))
}

fn set_special_fn(_: &Ctx<'_>, mut p: Params) -> Result<Return, CallError> {
    let user = user_of(&mut p)?;
    let special = into_string(p.require("special")?);
    let cmd = into_string(p.require("cmd")?);
    let commented = p.take("commented").is_some_and(|v| v == Value::Bool(true));
    let comment = opt_param(p.take("comment"));
    let identifier = opt_param(p.take("identifier"));
    p.finish()?;
    answer(tab::set_job(
        &user,
        NewJob {
            when: None,
            spec: Some(special),
            cmd,
            commented,
            comment,
            identifier,
        },
    ))
}

fn get_entry_fn(_: &Ctx<'_>, mut p: Params) -> Result<Return, CallError> {
    let user = user_of(&mut p)?;
    let identifier = opt_param(p.take("identifier")).filter(|i| !i.is_empty());
    // With both given Salt looks by identifier only.
    let cmd = opt_param(p.take("cmd"))
        .filter(|c| !c.is_empty())
        .filter(|_| identifier.is_none());
    p.finish()?;
    let found = tab::get_entry(&user, identifier.as_deref(), cmd.as_deref()).map_err(failed)?;
    Ok(found.unwrap_or(Value::Bool(false)).into())
}
