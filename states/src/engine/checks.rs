//! The runtime's own conditions on a state: `onlyif`, `unless`, `creates`
//! (checked before the call) and `check_cmd` (after it), as Salt's
//! `_run_check*` functions do them.

use crate::StateContext;
use brine_core::{Map, Value};
use brine_host::exec::{self, CommandSpec, Program};
use std::time::Duration;

/// The `cmd.retcode` options a state passes on to its condition commands.
const POSSIBLE_CMD_ARGS: &[&str] = &[
    "cwd",
    "root",
    "runas",
    "env",
    "prepend_path",
    "umask",
    "timeout",
    "success_retcodes",
];

/// Options for condition commands, from the state's own arguments.
struct CmdOpts<'a> {
    low: &'a Map,
    excluded: Vec<String>,
    shell: Option<String>,
}

impl<'a> CmdOpts<'a> {
    fn new(ctx: &StateContext, low: &'a Map, with_state_args: bool) -> CmdOpts<'a> {
        let excluded: Vec<String> = match low.get("cmd_opts_exclude") {
            None => Vec::new(),
            Some(Value::List(l)) => l.iter().map(Value::to_python_str).collect(),
            Some(v) => vec![v.to_python_str()],
        };
        let grain_shell = || {
            ctx.grains
                .get("shell")
                .and_then(Value::as_str)
                .map(str::to_string)
        };
        let shell = if with_state_args
            && low.contains_key("shell")
            && !excluded.iter().any(|e| e == "shell")
        {
            low.get("shell").and_then(Value::as_str).map(str::to_string)
        } else {
            grain_shell()
        };
        CmdOpts {
            low: if with_state_args { low } else { empty_map() },
            excluded,
            shell,
        }
    }

    fn arg(&self, k: &str) -> Option<&'a Value> {
        if self.excluded.iter().any(|e| e == k) || !POSSIBLE_CMD_ARGS.contains(&k) {
            return None;
        }
        self.low.get(k).filter(|v| !v.is_null())
    }

    /// `cmd.retcode(cmd, python_shell=True, ignore_retcode=True, ...)`:
    /// the exit code, or `Err` where Salt raises `CommandExecutionError`.
    fn retcode(&self, cmd: &str) -> Result<i32, String> {
        // Salt runs these strings through the shell.
        let mut spec = CommandSpec {
            program: Program::Shell {
                line: cmd.to_string(),
                shell: self.shell.clone(),
            },
            ..Default::default()
        };
        if let Some(cwd) = self.arg("cwd") {
            spec.cwd = Some(cwd.to_python_str().into());
        }
        if let Some(user) = self.arg("runas") {
            // As cmd.retcode: a user that does not exist is an error
            // (the condition's own reading of a command that cannot run).
            let user = user.to_python_str();
            if brine_host::accounts::user_by_name(&user).is_none() {
                return Err(format!("User '{user}' is not available"));
            }
            spec.runas = Some(user);
        }
        if let Some(env) = self.arg("env") {
            spec.env = env_pairs(env);
        }
        if let Some(path) = self.arg("prepend_path") {
            let old = std::env::var("PATH").unwrap_or_default();
            spec.env
                .push(("PATH".into(), format!("{}:{old}", path.to_python_str())));
        }
        if let Some(t) = self.arg("timeout") {
            let secs = match t {
                Value::Int(i) => *i as f64,
                Value::Float(f) => *f,
                other => other.to_python_str().parse().unwrap_or(0.0),
            };
            if secs > 0.0 {
                spec.timeout = Some(Duration::from_secs_f64(secs));
            }
        }
        let r = exec::run(&spec).map_err(|e| e.to_string())?;
        let ok_codes: Vec<i64> = match self.arg("success_retcodes") {
            Some(Value::List(l)) => l.iter().filter_map(Value::as_i64).collect(),
            Some(Value::Int(i)) => vec![*i],
            _ => Vec::new(),
        };
        if ok_codes.contains(&(r.retcode as i64)) {
            return Ok(0);
        }
        Ok(r.retcode)
    }
}

fn empty_map() -> &'static Map {
    static EMPTY: std::sync::OnceLock<Map> = std::sync::OnceLock::new();
    EMPTY.get_or_init(Map::default)
}

/// `env` as Salt accepts it: a mapping, or a list of one-key mappings.
fn env_pairs(env: &Value) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut add = |m: &Map| {
        for (k, v) in m {
            out.push((k.clone(), v.to_python_str()));
        }
    };
    match env {
        Value::Map(m) => add(m),
        Value::List(l) => l.iter().filter_map(Value::as_map).for_each(&mut add),
        _ => {}
    }
    out
}

/// The entries of a condition option: one command or a list of them.
fn entries(v: &Value) -> Vec<&Value> {
    match v {
        Value::List(l) => l.iter().collect(),
        other => vec![other],
    }
}

/// Partial return of a condition check (Salt's `_run_check*` dicts).
struct Check {
    result: bool,
    comment: Option<String>,
    skip_watch: Option<bool>,
}

fn onlyif(opts: &CmdOpts, v: &Value) -> Check {
    let mut ret = Check {
        result: false,
        comment: None,
        skip_watch: None,
    };
    for entry in entries(v) {
        match entry {
            Value::Str(cmd) => {
                // A command that cannot run counts as a false condition.
                let rc = opts.retcode(cmd).unwrap_or(100);
                if rc != 0 {
                    ret.comment = Some("onlyif condition is false".into());
                    ret.skip_watch = Some(true);
                    ret.result = true;
                    return ret;
                }
                ret.comment = Some("onlyif condition is true".into());
                ret.result = false;
            }
            Value::Map(m) if !m.contains_key("fun") => {
                ret.comment = Some(format!(
                    "no `fun` argument in onlyif: {}",
                    entry.to_python_repr()
                ));
                return ret;
            }
            Value::Map(m) => {
                // Execution-function conditions need the minion's function
                // table, which states do not reach here: refuse plainly.
                ret.comment = Some(format!(
                    "onlyif function {} is not supported by brine",
                    m.get("fun").map(Value::to_python_str).unwrap_or_default()
                ));
                return ret;
            }
            _ => {
                ret.comment = Some("onlyif execution failed, bad type passed".into());
                ret.result = false;
                return ret;
            }
        }
    }
    ret
}

fn unless(opts: &CmdOpts, v: &Value) -> Check {
    let mut ret = Check {
        result: false,
        comment: None,
        skip_watch: None,
    };
    for entry in entries(v) {
        match entry {
            Value::Str(cmd) => {
                // A command that cannot run counts as a true condition.
                let rc = opts.retcode(cmd).unwrap_or(0);
                if rc == 0 {
                    ret.comment = Some("unless condition is true".into());
                    ret.skip_watch = Some(true);
                    ret.result = true;
                } else {
                    ret.skip_watch = None;
                    ret.comment = Some("unless condition is false".into());
                    ret.result = false;
                    return ret;
                }
            }
            Value::Map(m) if !m.contains_key("fun") => {
                ret.comment = Some(format!(
                    "no `fun` argument in unless: {}",
                    entry.to_python_repr()
                ));
                return ret;
            }
            Value::Map(m) => {
                ret.comment = Some(format!(
                    "unless function {} is not supported by brine",
                    m.get("fun").map(Value::to_python_str).unwrap_or_default()
                ));
                ret.result = false;
                return ret;
            }
            _ => {
                ret.comment = Some("unless condition is false, bad type passed".into());
                ret.result = false;
            }
        }
    }
    ret
}

fn creates(v: &Value) -> Check {
    let exists = |p: &Value| p.as_str().is_some_and(|p| std::path::Path::new(p).exists());
    match v {
        Value::Str(p) if exists(v) => Check {
            result: true,
            comment: Some(format!("{p} exists")),
            skip_watch: Some(true),
        },
        Value::List(l) if l.iter().all(exists) => Check {
            result: true,
            comment: Some("All files in creates exist".into()),
            skip_watch: Some(true),
        },
        _ => Check {
            result: false,
            comment: Some("Creates files not found".into()),
            skip_watch: None,
        },
    }
}

/// Salt's `_run_check`: the keys to merge into the state's return before
/// the call. When `result` comes back true the state is not called.
pub fn run_check(ctx: &StateContext, low: &Map) -> Map {
    let opts = CmdOpts::new(ctx, low, true);
    let mut result = false;
    let mut comments: Vec<Value> = Vec::new();
    let mut skip_watch: Option<bool> = None;
    let mut merge = |c: Check, first: bool| {
        result = if first { c.result } else { c.result || result };
        // Salt appends the comment even when the check set none (None).
        comments.push(c.comment.map_or(Value::Null, Value::Str));
        if let Some(s) = c.skip_watch {
            skip_watch = Some(if first {
                s
            } else {
                s || skip_watch.unwrap_or(false)
            });
        }
    };
    if let Some(v) = low.get("onlyif") {
        merge(onlyif(&opts, v), true);
    }
    if let Some(v) = low.get("unless") {
        merge(unless(&opts, v), false);
    }
    if let Some(v) = low.get("creates") {
        merge(creates(v), false);
    }
    let mut ret = Map::default();
    ret.insert("result".into(), Value::Bool(result));
    // `unify` joins a list comment with newlines.
    let joined: Vec<String> = comments.iter().map(Value::to_python_str).collect();
    ret.insert("comment".into(), Value::Str(joined.join("\n")));
    for key in ["__sls__", "__id__", "name"] {
        ret.insert(key.into(), low.get(key).cloned().unwrap_or(Value::Null));
    }
    if let Some(s) = skip_watch {
        ret.insert("skip_watch".into(), Value::Bool(s));
    }
    ret
}

/// Salt's `_run_check_cmd`: after the call, each `check_cmd` command
/// decides the result (a string is walked character by character, as
/// Salt iterates it).
pub fn run_check_cmd(ctx: &StateContext, low: &Map) -> Map {
    let opts = CmdOpts::new(ctx, low, false);
    let mut result = false;
    let mut comment: Option<&str> = None;
    let cmds: Vec<String> = match low.get("check_cmd") {
        Some(Value::List(l)) => l.iter().map(Value::to_python_str).collect(),
        Some(Value::Str(s)) => s.chars().map(String::from).collect(),
        Some(Value::Map(m)) => m.keys().cloned().collect(),
        _ => Vec::new(),
    };
    for cmd in &cmds {
        let rc = opts.retcode(cmd).unwrap_or(1);
        if rc == 0 && !result {
            comment = Some("check_cmd determined the state succeeded");
            result = true;
        } else if rc != 0 {
            comment = Some("check_cmd determined the state failed");
            result = false;
            break;
        }
    }
    let mut ret = Map::default();
    ret.insert("result".into(), Value::Bool(result));
    for key in ["__sls__", "__id__", "name"] {
        ret.insert(key.into(), low.get(key).cloned().unwrap_or(Value::Null));
    }
    if let Some(c) = comment {
        ret.insert("comment".into(), Value::Str(c.into()));
    }
    ret
}
