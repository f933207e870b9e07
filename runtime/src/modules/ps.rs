//! Salt's `ps` module, the part operators type daily: the busiest
//! processes (`top`), finding processes by name (`pgrep`) and signalling
//! them (`pkill`). Salt asks psutil; the same numbers come from `/proc`.

use super::function::{sig, CallError, Ctx, Function, Return};
use super::params::{opt_string, Params};
use super::proctable::{self, Proc};
use brine_core::{Map, Value};
use std::collections::HashMap;
use std::time::Duration;

pub(super) const FUNCTIONS: &[Function] = &[
    Function::acts(
        "pgrep",
        sig!(pattern, user = null, full = false, pattern_is_regex = false),
        "The pids of processes whose name contains PATTERN (the whole command \
line with full=True; a regular expression with pattern_is_regex=True), only \
USER's with user=; None when there are none.\n\n    brine-call ps.pgrep nginx user=www-data",
        pgrep,
    ),
    Function::acts(
        "pkill",
        sig!(pattern, user = null, signal = 15, full = false),
        "Send SIGNAL (default 15) to the processes whose name contains PATTERN \
(the whole command line with full=True), only USER's with user=; answers \
{killed: [pids]} or None.\n\n    brine-call ps.pkill nginx signal=1",
        pkill,
    ),
    Function::acts(
        "top",
        sig!(num_processes = 5, interval = 3),
        "The NUM_PROCESSES (5) processes that used the most CPU time over \
INTERVAL (3) seconds: cmd, user, status, pid, create_time, cpu and mem \
figures.\n\n    brine-call ps.top num_processes=3 interval=1",
        top,
    ),
];

/// psutil's words for the kernel's state letters.
fn status_word(state: char) -> &'static str {
    match state {
        'R' => "running",
        'S' => "sleeping",
        'D' => "disk-sleep",
        'T' => "stopped",
        't' => "tracing-stop",
        'Z' => "zombie",
        'X' | 'x' => "dead",
        'K' => "wake-kill",
        'W' => "waking",
        'I' => "idle",
        'P' => "parked",
        _ => "unknown",
    }
}

/// Whether `p` matches as Salt's `pgrep`/`pkill` test it.
fn matches(p: &Proc, pattern: &Matcher, full: bool, user: Option<&str>) -> bool {
    let line = if full {
        p.cmdline.join(" ")
    } else {
        p.name.clone()
    };
    let found = match pattern {
        Matcher::Text(t) => line.contains(t.as_str()),
        Matcher::Regex(re) => re.is_match(&line),
    };
    found && user.is_none_or(|u| proctable::user_name(p.uid) == u)
}

enum Matcher {
    Text(String),
    Regex(regex::Regex),
}

fn pgrep<'c>(_: &Ctx<'c>, mut p: Params) -> Result<Return, CallError> {
    let pattern = p.require("pattern")?.to_python_str();
    let user = opt_string(p.take("user"));
    let full = p.take("full").is_some_and(|v| v.is_truthy());
    let is_regex = p.take("pattern_is_regex").is_some_and(|v| v.is_truthy());
    p.finish()?;
    let m = if is_regex {
        Matcher::Regex(regex::Regex::new(&pattern).map_err(|e| {
            CallError::Failed(format!("invalid regular expression {pattern:?}: {e}"))
        })?)
    } else {
        Matcher::Text(pattern)
    };
    let pids: Vec<Value> = proctable::all()
        .iter()
        .filter(|pr| matches(pr, &m, full, user.as_deref()))
        .map(|pr| Value::Int(i64::from(pr.pid)))
        .collect();
    Ok(if pids.is_empty() {
        Value::Null
    } else {
        Value::List(pids)
    }
    .into())
}

fn pkill<'c>(_: &Ctx<'c>, mut p: Params) -> Result<Return, CallError> {
    let pattern = p.require("pattern")?.to_python_str();
    let user = opt_string(p.take("user"));
    let signal = p.take("signal").unwrap_or(Value::Int(15));
    let full = p.take("full").is_some_and(|v| v.is_truthy());
    p.finish()?;
    let sig = match &signal {
        Value::Int(n) => i32::try_from(*n)
            .ok()
            .and_then(|n| nix::sys::signal::Signal::try_from(n).ok()),
        Value::Str(s) => s.parse::<nix::sys::signal::Signal>().ok(),
        _ => None,
    }
    .ok_or_else(|| CallError::Failed(format!("invalid signal {}", signal.to_python_repr())))?;
    let me = std::process::id();
    let m = Matcher::Text(pattern);
    let mut killed = Vec::new();
    for pr in proctable::all() {
        // Never the minion itself, which would end the call mid-answer.
        if pr.pid == me || !matches(&pr, &m, full, user.as_deref()) {
            continue;
        }
        let pid = nix::unistd::Pid::from_raw(i32::try_from(pr.pid).unwrap_or(0));
        if nix::sys::signal::kill(pid, sig).is_ok() {
            killed.push(Value::Int(i64::from(pr.pid)));
        }
    }
    if killed.is_empty() {
        return Ok(Value::Null.into());
    }
    let mut out = Map::default();
    out.insert("killed".into(), Value::List(killed));
    Ok(Value::Map(out).into())
}

/// CPU seconds (user + system) of each process now.
fn cpu_now() -> HashMap<u32, u64> {
    proctable::all()
        .into_iter()
        .map(|p| (p.pid, p.utime + p.stime))
        .collect()
}

fn top<'c>(_: &Ctx<'c>, mut p: Params) -> Result<Return, CallError> {
    let num = p.take("num_processes").unwrap_or(Value::Int(5));
    let interval = p.take("interval").unwrap_or(Value::Int(3));
    p.finish()?;
    let num = num.as_i64().ok_or_else(|| {
        CallError::Failed(format!(
            "'>=' not supported between instances of 'int' and '{}'",
            num.type_name()
        ))
    })?;
    let secs = match interval {
        Value::Int(n) => n.max(0) as f64,
        Value::Float(f) if f.is_finite() => f.max(0.0),
        other => {
            return Err(CallError::Failed(format!(
                "'{}' object cannot be interpreted as an integer",
                other.type_name()
            )))
        }
    };
    let before = cpu_now();
    std::thread::sleep(Duration::from_secs_f64(secs.min(3600.0)));
    let ticks = proctable::ticks();
    let boot = proctable::boot_time() as f64;
    let page = nix::unistd::sysconf(nix::unistd::SysconfVar::PAGE_SIZE)
        .ok()
        .flatten()
        .map_or(4096, |s| u64::try_from(s).unwrap_or(4096));
    let mut now: Vec<(u64, Proc)> = proctable::all()
        .into_iter()
        .filter_map(|pr| {
            let start = *before.get(&pr.pid)?;
            Some(((pr.utime + pr.stime).saturating_sub(start), pr))
        })
        .collect();
    now.sort_by_key(|b| std::cmp::Reverse(b.0));
    let mut out = Vec::new();
    for (_, pr) in now {
        if i64::try_from(out.len()).unwrap_or(i64::MAX) >= num {
            break;
        }
        let Some(detail) = read_detail(pr.pid) else {
            continue;
        };
        let mut m = Map::default();
        let cmd = if pr.cmdline.is_empty() {
            Value::Str(pr.name.clone())
        } else {
            Value::List(pr.cmdline.iter().cloned().map(Value::Str).collect())
        };
        m.insert("cmd".into(), cmd);
        m.insert("user".into(), Value::Str(proctable::user_name(pr.uid)));
        m.insert("status".into(), Value::Str(status_word(pr.state).into()));
        m.insert("pid".into(), Value::Int(i64::from(pr.pid)));
        let created = boot + pr.starttime as f64 / ticks;
        m.insert(
            "create_time".into(),
            Value::Float((created * 100.0).round() / 100.0),
        );
        let mut cpu = Map::default();
        for (k, v) in [
            ("user", pr.utime),
            ("system", pr.stime),
            ("children_user", pr.cutime),
            ("children_system", pr.cstime),
            ("iowait", detail.iowait),
        ] {
            cpu.insert(k.into(), Value::Float(v as f64 / ticks));
        }
        m.insert("cpu".into(), Value::Map(cpu));
        let mut mem = Map::default();
        let names = ["vms", "rss", "shared", "text", "lib", "data", "dirty"];
        let order = ["rss", "vms", "shared", "text", "lib", "data", "dirty"];
        for k in order {
            let i = names.iter().position(|n| *n == k).unwrap_or(0);
            let pages = detail.statm.get(i).copied().unwrap_or(0);
            mem.insert(
                k.into(),
                Value::Int(i64::try_from(pages.saturating_mul(page)).unwrap_or(i64::MAX)),
            );
        }
        m.insert("mem".into(), Value::Map(mem));
        out.push(Value::Map(m));
    }
    Ok(Value::List(out).into())
}

/// What `top` reads beyond the table: block-I/O delay ticks and statm.
struct Detail {
    iowait: u64,
    statm: Vec<u64>,
}

fn read_detail(pid: u32) -> Option<Detail> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let after = stat.get(stat.rfind(')')? + 1..)?;
    // delayacct_blkio_ticks is field 42; fields after the name start at 3.
    let iowait = after
        .split_whitespace()
        .nth(39)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let statm = std::fs::read_to_string(format!("/proc/{pid}/statm"))
        .ok()?
        .split_whitespace()
        .filter_map(|s| s.parse().ok())
        .collect();
    Some(Detail { iowait, statm })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `brine-call FUN ARGS...` against a test minion.
    fn run(fun: &str, line: &[&str]) -> Result<serde_json::Value, String> {
        crate::modules::testkit::run(&mut crate::modules::testkit::minion(), fun, line)
    }

    #[test]
    fn finds_and_signals_a_child() {
        // An argument no other process has: `pkill` below signals every
        // process of this user whose command line matches (a plain
        // `sleep 300` elsewhere on the host was killed by it).
        let arg = format!("299.{}", std::process::id());
        let mut child = std::process::Command::new("sleep")
            .arg(&arg)
            .spawn()
            .unwrap();
        let pid = serde_json::json!(child.id());
        let found = run("ps.pgrep", &["sleep"]).unwrap();
        assert!(found.as_array().unwrap().contains(&pid), "{found}");
        let full = run("ps.pgrep", &[&format!("sleep {arg}"), "full=True"]).unwrap();
        assert!(full.as_array().unwrap().contains(&pid));
        let re = run("ps.pgrep", &["^sl.ep$", "pattern_is_regex=True"]).unwrap();
        assert!(re.as_array().unwrap().contains(&pid));
        assert_eq!(
            run("ps.pgrep", &["no-such-process-zz"]).unwrap(),
            serde_json::Value::Null
        );
        assert_eq!(
            run("ps.pkill", &["no-such-process-zz"]).unwrap(),
            serde_json::Value::Null
        );
        let me = proctable::user_name(nix::unistd::getuid().as_raw());
        let killed = run(
            "ps.pkill",
            &[&format!("sleep {arg}"), "full=True", &format!("user={me}")],
        )
        .unwrap();
        assert!(killed["killed"].as_array().unwrap().contains(&pid));
        let status = child.wait().unwrap();
        assert!(!status.success());
        assert!(run("ps.pkill", &[]).unwrap_err().contains("'pattern'"));
    }

    #[test]
    fn top_shape() {
        let t = run("ps.top", &["num_processes=2", "interval=0"]).unwrap();
        let list = t.as_array().unwrap();
        assert!(list.len() <= 2 && !list.is_empty());
        let keys: Vec<&String> = list[0].as_object().unwrap().keys().collect();
        assert_eq!(
            keys,
            ["cmd", "user", "status", "pid", "create_time", "cpu", "mem"]
        );
        let mem: Vec<&String> = list[0]["mem"].as_object().unwrap().keys().collect();
        assert_eq!(
            mem,
            ["rss", "vms", "shared", "text", "lib", "data", "dirty"]
        );
    }
}
