//! The `cron` state module (Salt's `salt/states/cron.py`): jobs,
//! `@special` jobs and environment lines of a user's crontab present or
//! absent, and a whole crontab from a file (`cron.file`). The crontab
//! itself is read and written by [`tab`], which the `cron` execution
//! module shares.

mod crontab_file;
pub mod tab;

use super::user::support::failed;
use crate::{StateCall, StateFunction, StateModule, StateReturn};
use brine_core::sig;
use brine_core::{Map, Value};
use tab::{needs_change, CronError, NewJob, Outcome};

/// The `cron` state module.
pub static MODULE: StateModule = StateModule {
    name: "cron",
    doc: "Manage users' crontabs: jobs, @special jobs and environment lines \
(in Salt's layout, identified by SALT_CRON_IDENTIFIER comments), or a whole crontab \
from a file.",
    functions: &[
        StateFunction::new(
            "absent",
            sig!(
                name,
                user = "root",
                identifier = false,
                special = null,
                **kwargs
            ),
            "USER's crontab has no job running NAME (or with IDENTIFIER; \
SPECIAL for an @special job).",
            absent,
        ),
        StateFunction::new(
            "env_absent",
            sig!(name, user = "root"),
            "USER's crontab sets no environment variable NAME.",
            env_absent,
        ),
        StateFunction::new(
            "env_present",
            sig!(name, value = null, user = "root"),
            "USER's crontab sets the environment variable NAME to VALUE.",
            env_present,
        ),
        StateFunction::new(
            "file",
            sig!(
                name,
                source_hash = "",
                source_hash_name = null,
                user = "root",
                template = null,
                context = null,
                replace = true,
                defaults = null,
                backup = "",
                **kwargs
            ),
            "USER's crontab is the file NAME (a salt:// URL or a path, \
optionally a TEMPLATE rendered with CONTEXT and DEFAULTS); REPLACE=False leaves an \
existing crontab alone.",
            crontab_file::file,
        ),
        StateFunction::new(
            "present",
            sig!(
                name,
                user = "root",
                minute = "*",
                hour = "*",
                daymonth = "*",
                month = "*",
                dayweek = "*",
                comment = null,
                commented = false,
                identifier = false,
                special = null
            ),
            "USER's crontab runs NAME at MINUTE HOUR DAYMONTH MONTH DAYWEEK (or \
at SPECIAL, an @keyword), after COMMENT, disabled when COMMENTED; IDENTIFIER (default \
NAME) finds the job again when its command changes.",
            present,
        ),
    ],
};

/// A state argument as text (Python's `str()`), `default` when absent.
fn text(call: &StateCall, key: &str, default: &str) -> String {
    call.arg(key)
        .map_or_else(|| default.to_string(), Value::to_python_str)
}

/// An optional argument: None when absent or null, else its `str()`.
fn opt_text(call: &StateCall, key: &str) -> Option<String> {
    call.arg(key)
        .filter(|v| !v.is_null())
        .map(Value::to_python_str)
}

/// The identifier the state uses: NAME unless one is given (`False`
/// means not given; an explicit null stays None).
fn identifier(call: &StateCall, name: &str) -> Option<String> {
    match call.arg("identifier") {
        None | Some(Value::Bool(false)) => Some(name.to_string()),
        Some(Value::Null) => None,
        Some(v) => Some(v.to_python_str()),
    }
}

/// Salt's `str.strip()` of the name.
fn stripped(call: &StateCall) -> String {
    call.name().trim().to_string()
}

/// The return when the crontab could not be read or written at all.
fn cron_failed(name: &str, e: &CronError) -> StateReturn {
    failed(name, crate::raised(e))
}

/// What a write answered, as the word Salt's functions return (crontab's
/// complaint is the "word" then).
fn word(o: Outcome) -> String {
    match o {
        Outcome::Done(w) => w.to_string(),
        Outcome::Refused { stderr, .. } => stderr,
    }
}

fn user_changes(user: &str, name: &str) -> Map {
    let mut m = Map::default();
    m.insert(user.to_string(), Value::Str(name.to_string()));
    m
}

/// Salt's `_check_cron`: how USER's crontab stands against the job
/// ('present', 'update' or 'absent').
fn check_cron(
    user: &str,
    cmd: &str,
    when: Option<[Option<String>; 5]>,
    comment: Option<&str>,
    commented: Option<bool>,
    identifier: Option<&str>,
    special: Option<&str>,
) -> Result<&'static str, CronError> {
    let tab = tab::list_tab(user)?;
    let bool_s = |b: bool| if b { "True" } else { "False" };
    let commented = commented.map(bool_s);
    let jobs = if special.is_none() {
        &tab.crons
    } else {
        &tab.special
    };
    let when = when.unwrap_or_default();
    for job in jobs {
        if !tab::matched(job, cmd, identifier) {
            continue;
        }
        let mut pairs: Vec<(Option<&str>, Option<&str>)> = Vec::new();
        if special.is_none() {
            if let Some(have) = &job.when {
                for (h, w) in have.iter().zip(when.iter()) {
                    pairs.push((Some(h), w.as_deref()));
                }
            }
        } else {
            pairs.push((job.spec.as_deref(), special));
        }
        pairs.push((job.identifier.as_deref(), identifier));
        pairs.push((Some(&job.cmd), Some(cmd)));
        pairs.push((job.comment.as_deref(), comment));
        pairs.push((Some(bool_s(job.commented)), commented));
        return Ok(if pairs.iter().any(|(o, n)| needs_change(*o, *n)) {
            "update"
        } else {
            "present"
        });
    }
    Ok("absent")
}

fn present(call: &StateCall) -> StateReturn {
    let name = stripped(call);
    let user = text(call, "user", "root");
    let id = identifier(call, &name);
    let special = opt_text(call, "special");
    let comment = opt_text(call, "comment");
    let commented = call
        .arg("commented")
        .is_some_and(|v| *v == Value::Bool(true));
    let when: [String; 5] = ["minute", "hour", "daymonth", "month", "dayweek"]
        .map(|k| text(call, k, "*").to_lowercase());
    let mut ret = StateReturn::new(&name);
    if call.test {
        let status = check_cron(
            &user,
            &name,
            Some(when.clone().map(Some)),
            comment.as_deref(),
            Some(commented),
            id.as_deref(),
            special.as_deref(),
        );
        ret.result = None;
        match status {
            Ok("absent") => ret.comment = format!("Cron {name} is set to be added"),
            Ok("present") => {
                ret.result = Some(true);
                ret.comment = format!("Cron {name} already present");
            }
            Ok(_) => ret.comment = format!("Cron {name} is set to be updated"),
            Err(e) => return cron_failed(&name, &e),
        }
        return ret;
    }
    let job = NewJob {
        when: special.is_none().then_some(when),
        spec: special,
        cmd: name.clone(),
        commented,
        comment,
        identifier: id,
    };
    let data = match tab::set_job(&user, job) {
        Ok(o) => word(o),
        Err(e) => return cron_failed(&name, &e),
    };
    match data.as_str() {
        "present" => ret.comment = format!("Cron {name} already present"),
        "new" => {
            ret.comment = format!("Cron {name} added to {user}'s crontab");
            ret.changes = user_changes(&user, &name);
        }
        "updated" => {
            ret.comment = format!("Cron {name} updated");
            ret.changes = user_changes(&user, &name);
        }
        _ => {
            ret.comment =
                format!("Cron {name} for user {user} failed to commit with error \n{data}");
            ret.result = Some(false);
        }
    }
    ret
}

fn absent(call: &StateCall) -> StateReturn {
    let name = stripped(call);
    let user = text(call, "user", "root");
    let id = identifier(call, &name);
    let special = opt_text(call, "special");
    let mut ret = StateReturn::new(&name);
    if call.test {
        ret.result = None;
        match check_cron(&user, &name, None, None, None, id.as_deref(), None) {
            Ok("absent") => {
                ret.result = Some(true);
                ret.comment = format!("Cron {name} is absent");
            }
            Ok(_) => ret.comment = format!("Cron {name} is set to be removed"),
            Err(e) => return cron_failed(&name, &e),
        }
        return ret;
    }
    let data = match special {
        None => tab::rm_job(&user, &name, &Default::default(), id.as_deref()),
        Some(s) => tab::rm_special(&user, &name, Some(&s), id.as_deref()),
    };
    let data = match data {
        Ok(o) => word(o),
        Err(e) => return cron_failed(&name, &e),
    };
    match data.as_str() {
        "absent" => ret.comment = format!("Cron {name} already absent"),
        "removed" => {
            ret.comment = format!("Cron {name} removed from {user}'s crontab");
            ret.changes = user_changes(&user, &name);
        }
        _ => {
            ret.comment = format!("Cron {name} for user {user} failed to commit with error {data}");
            ret.result = Some(false);
        }
    }
    ret
}

/// Salt's `_check_cron_env`: how USER's crontab stands against NAME=VALUE.
fn check_env(user: &str, name: &str, value: &str) -> Result<&'static str, CronError> {
    let tab = tab::list_tab(user)?;
    Ok(match tab.env.iter().find(|(n, _)| n == name) {
        Some((_, v)) if v.as_deref() != Some(value) => "update",
        Some(_) => "present",
        None => "absent",
    })
}

fn env_present(call: &StateCall) -> StateReturn {
    let name = call.name().to_string();
    let user = text(call, "user", "root");
    let value = opt_text(call, "value");
    let mut ret = StateReturn::new(&name);
    if call.test {
        ret.result = None;
        match check_env(&user, &name, value.as_deref().unwrap_or("")) {
            Ok("absent") => ret.comment = format!("Cron env {name} is set to be added"),
            Ok("present") => {
                ret.result = Some(true);
                ret.comment = format!("Cron env {name} already present");
            }
            Ok(_) => ret.comment = format!("Cron env {name} is set to be updated"),
            Err(e) => return cron_failed(&name, &e),
        }
        return ret;
    }
    let data = match tab::set_env(&user, &name, value) {
        Ok(o) => word(o),
        Err(e) => return cron_failed(&name, &e),
    };
    match data.as_str() {
        "present" => ret.comment = format!("Cron env {name} already present"),
        "new" => {
            ret.comment = format!("Cron env {name} added to {user}'s crontab");
            ret.changes = user_changes(&user, &name);
        }
        "updated" => {
            ret.comment = format!("Cron env {name} updated");
            ret.changes = user_changes(&user, &name);
        }
        _ => {
            ret.comment =
                format!("Cron env {name} for user {user} failed to commit with error \n{data}");
            ret.result = Some(false);
        }
    }
    ret
}

fn env_absent(call: &StateCall) -> StateReturn {
    let name = stripped(call);
    let user = text(call, "user", "root");
    let mut ret = StateReturn::new(&name);
    if call.test {
        ret.result = None;
        match check_env(&user, &name, "") {
            Ok("absent") => {
                ret.result = Some(true);
                ret.comment = format!("Cron env {name} is absent");
            }
            Ok(_) => ret.comment = format!("Cron env {name} is set to be removed"),
            Err(e) => return cron_failed(&name, &e),
        }
        return ret;
    }
    let data = match tab::rm_env(&user, &name) {
        Ok(o) => word(o),
        Err(e) => return cron_failed(&name, &e),
    };
    match data.as_str() {
        "absent" => ret.comment = format!("Cron env {name} already absent"),
        "removed" => {
            ret.comment = format!("Cron env {name} removed from {user}'s crontab");
            ret.changes = user_changes(&user, &name);
        }
        _ => {
            ret.comment =
                format!("Cron env {name} for user {user} failed to commit with error {data}");
            ret.result = Some(false);
        }
    }
    ret
}

#[cfg(test)]
mod tests {
    /// Salt's answers for the cron scenarios of testdata/sys_cases.py, run
    /// on root's crontab in a private mount namespace.
    #[test]
    fn cron_states_match_salt() {
        super::super::sysreplay::run("cron_", crate::modules::MODULES);
    }
}
