//! Salt's `cmd` state module: `run`, `script`, `wait`/`watch`,
//! `wait_script` and `mod_watch`, with the return dicts of Salt 3007.8's
//! `salt/states/cmd.py` and the command semantics of `cmdmod._run`
//! (default cwd, `C` locale, env lists, `success_*`, timeouts, `stateful`).
//!
//! `unless`/`onlyif`/`creates` are not handled here: in 3007.8 the state
//! runtime checks them (`_run_check`) before calling the function.

use super::file::{fsutil, merge_context, render_template};
use crate::{StateCall, StateContext, StateFunction, StateModule, StateReturn};
use brine_core::args::split_input;
use brine_core::py::shlex_split;
use brine_core::sig;
use brine_core::signature::Signature;
use brine_core::{Map, Value};
use brine_host::accounts;
use brine_host::exec::{self, CommandSpec, Program};
use nix::unistd::{access, AccessFlags};
use std::path::Path;
use std::time::Duration;

/// The locale variables Salt's commands get as `C` unless the caller
/// set them (its `reset_system_locale`): English messages to parse.
pub const C_LOCALE: &[&str] = &[
    "LC_CTYPE",
    "LC_NUMERIC",
    "LC_TIME",
    "LC_COLLATE",
    "LC_MONETARY",
    "LC_MESSAGES",
    "LC_PAPER",
    "LC_NAME",
    "LC_ADDRESS",
    "LC_TELEPHONE",
    "LC_MEASUREMENT",
    "LC_IDENTIFICATION",
    "LANGUAGE",
];

/// The `cmd` state module.
/// The signature several functions here share (Salt's, recorded).
const WAIT_SIG: Signature = sig!(
    name,
    cwd = null,
    root = null,
    runas = null,
    shell = null,
    env = [],
    stateful = false,
    output_loglevel = "debug",
    hide_output = false,
    use_vt = false,
    success_retcodes = null,
    success_stdout = null,
    success_stderr = null,
    **kwargs
);

pub static MODULE: StateModule = StateModule {
    name: "cmd",
    doc: "Run commands and scripts as states: a command runs unless its conditions \
(unless, onlyif, creates) say it is not needed, and a non-zero exit fails the state.",
    functions: &[
        StateFunction::new(
            "mod_watch",
            sig!(name, **kwargs),
            "Run the command (or script) of the watching state when a state it \
watches changed: what a watch on cmd.run, cmd.wait, cmd.script or cmd.wait_script fires.",
            mod_watch,
        ),
        StateFunction::new(
            "run",
            sig!(
                name,
                cwd = null,
                root = null,
                runas = null,
                shell = null,
                env = null,
                prepend_path = null,
                stateful = false,
                output_loglevel = "debug",
                hide_output = false,
                timeout = null,
                ignore_timeout = false,
                use_vt = false,
                success_retcodes = null,
                success_stdout = null,
                success_stderr = null,
                **kwargs
            ),
            "Run the command NAME (cwd, runas, env, shell, timeout, stateful, \
creates, unless, onlyif); the state fails when it exits non-zero.",
            |call| run(call, call.low),
        ),
        StateFunction::new(
            "script",
            sig!(
                name,
                source = null,
                template = null,
                cwd = null,
                runas = null,
                password = null,
                shell = null,
                env = null,
                stateful = false,
                timeout = null,
                use_vt = false,
                output_loglevel = "debug",
                hide_output = false,
                defaults = null,
                context = null,
                success_retcodes = null,
                success_stdout = null,
                success_stderr = null,
                **kwargs
            ),
            "Fetch the script SOURCE (salt:// or a path; default NAME) and run \
it with ARGS (cwd, runas, env, template, timeout).",
            |call| script(call, call.low),
        ),
        StateFunction::new(
            "wait",
            WAIT_SIG,
            "Run the command NAME only when a state it watches changed.",
            |call| StateReturn::new(&name_of(call.low)),
        ),
        StateFunction::new(
            "wait_script",
            sig!(
                name,
                source = null,
                template = null,
                cwd = null,
                runas = null,
                shell = null,
                env = null,
                stateful = false,
                use_vt = false,
                output_loglevel = "debug",
                hide_output = false,
                success_retcodes = null,
                success_stdout = null,
                success_stderr = null,
                **kwargs
            ),
            "Run the script only when a state it watches changed.",
            |call| StateReturn::new(&name_of(call.low)),
        ),
        StateFunction::new(
            "watch",
            WAIT_SIG,
            "Run the command NAME only when a state it watches changed (an \
older name of cmd.wait).",
            |call| StateReturn::new(&name_of(call.low)),
        ),
    ],
};

/// `mod_watch`: the watching state's command or script, run.
fn mod_watch(call: &StateCall) -> StateReturn {
    let sfun = call
        .low
        .get("sfun")
        .and_then(Value::as_str)
        .unwrap_or(call.fun())
        .to_string();
    let name = name_of(call.low);
    let stateful = call.low.get("stateful").is_some_and(Value::is_truthy);
    let mut low = call.low.clone();
    if stateful {
        low.shift_remove("stateful");
    }
    let ret = match sfun.as_str() {
        "wait" | "run" | "watch" => run(call, &low),
        "wait_script" | "script" => script(call, &low),
        "wait_call" | "call" => failed(&name, format!("cmd.{sfun} needs a named parameter func")),
        _ => failed(
            &name,
            format!("cmd.{sfun} does not work with the watch requisite, please use cmd.wait or cmd.wait_script"),
        ),
    };
    if stateful {
        reinterpreted_state(ret)
    } else {
        ret
    }
}

fn name_of(low: &Map) -> String {
    match low.get("name") {
        Some(Value::Str(s)) => s.clone(),
        None | Some(Value::Null) => String::new(),
        Some(v) => v.to_python_str(),
    }
}

fn failed(name: &str, comment: impl Into<String>) -> StateReturn {
    let mut ret = StateReturn::new(name);
    ret.result = Some(false);
    ret.comment = comment.into();
    ret
}

/// `stateful`: `True` (only a real boolean, as Salt tests `is True`), or a
/// list whose first item may carry a `test_name`.
fn stateful_of(low: &Map) -> (bool, Option<String>) {
    match low.get("stateful") {
        Some(Value::List(items)) => {
            let test_name = items
                .first()
                .and_then(|f| f.get("test_name"))
                .map(Value::to_python_str);
            (!items.is_empty(), test_name)
        }
        Some(Value::Bool(true)) => (true, None),
        _ => (false, None),
    }
}

/// Python's `str.rstrip()` whitespace.
fn is_py_space(c: char) -> bool {
    c.is_whitespace() || ('\x1c'..='\x1f').contains(&c)
}

/// Salt's `_is_true` on a `changed` value.
fn is_true(v: &Value) -> Result<bool, String> {
    let s = v.to_python_str().to_lowercase();
    if v.is_truthy() && ["true", "yes", "1"].contains(&s.as_str()) {
        Ok(true)
    } else if ["false", "no", "0"].contains(&s.as_str()) {
        Ok(false)
    } else {
        Err(format!(
            "Failed parsing boolean value: {}",
            v.to_python_str()
        ))
    }
}

/// Salt's `_reinterpreted_state`: read a `stateful` command's output
/// (a JSON object, or a last line of `name=value` pairs).
fn reinterpreted_state(mut state: StateReturn) -> StateReturn {
    let ret = std::mem::take(&mut state.changes);
    state.comment = String::new();
    let text = |k: &str| ret.get(k).map(Value::to_python_str).unwrap_or_default();
    let full = text("stdout");
    if full.is_empty() {
        let err = text("stderr");
        if !err.is_empty() {
            state.comment = err;
        }
        return state;
    }
    let mut data = Map::default();
    let mut is_json = false;
    let mut idx: isize = -1;
    match serde_json::from_str::<serde_json::Value>(&full) {
        Ok(serde_json::Value::Object(o)) => {
            is_json = true;
            if let Value::Map(m) = Value::from_json(&serde_json::Value::Object(o)) {
                data = m;
            }
        }
        Ok(_) => {
            state.comment = "script JSON output must be a JSON object (e.g., {})!".into();
            state.result = Some(false);
            return state;
        }
        Err(_) => {
            let mut out = full.as_str();
            let trimmed = out.trim_end_matches(is_py_space);
            if let Some(i) = trimmed.rfind('\n') {
                idx = i as isize;
                out = &out[i + 1..];
            }
            let parsed: Result<Vec<(String, String)>, String> = shlex_split(out)
                .map_err(|e| e.to_string())
                .and_then(|items| {
                    items
                        .into_iter()
                        .map(|item| {
                            let parts: Vec<&str> = item.split('=').collect();
                            match parts.as_slice() {
                                [k, v] => Ok((k.to_string(), v.to_string())),
                                _ => Err("bad pair".to_string()),
                            }
                        })
                        .collect()
                });
            match parsed {
                Ok(pairs) => {
                    for (k, v) in pairs {
                        data.insert(k, Value::Str(v));
                    }
                }
                Err(_) => {
                    state.comment = "Failed parsing script output! Stdout must be JSON or a line of name=value pairs.".into();
                    state.result = Some(false);
                    state.changes = ret;
                    return state;
                }
            }
        }
    }
    let changed = match is_true(data.get("changed").unwrap_or(&Value::Str("no".into()))) {
        Ok(c) => c,
        Err(e) => {
            state.comment = e;
            state.result = Some(false);
            return state;
        }
    };
    if let Some(c) = data.shift_remove("comment") {
        state.comment = c.to_python_str();
    }
    if changed {
        for (k, v) in &ret {
            if !data.contains_key(k) {
                data.insert(k.clone(), v.clone());
            }
        }
        // A name=value line is not shown again; Python's `[:idx]` with
        // idx -1 drops the last character.
        let stdout = if is_json {
            String::new()
        } else {
            let s = data
                .get("stdout")
                .map(Value::to_python_str)
                .unwrap_or_default();
            let chars: Vec<char> = s.chars().collect();
            let end = if idx < 0 {
                chars.len().saturating_sub(1)
            } else {
                (idx as usize).min(chars.len())
            };
            chars[..end].iter().collect()
        };
        data.insert("stdout".into(), Value::Str(stdout));
        state.changes = data;
    }
    state
}

/// `env` as a list of `(name, value)`: a dict, or a list of one-key dicts
/// (Salt's `repack_dictlist`); values as Python prints them.
fn parse_env(env: Option<&Value>) -> Vec<(String, String)> {
    let as_str = |v: &Value| match v {
        Value::Null => String::new(),
        v => v.to_python_str(),
    };
    match env {
        Some(Value::Map(m)) => m.iter().map(|(k, v)| (k.clone(), as_str(v))).collect(),
        Some(Value::List(items)) => {
            let mut out: Vec<(String, String)> = Vec::new();
            for it in items {
                match it {
                    Value::Map(m) if m.len() == 1 => {
                        if let Some((k, v)) = m.iter().next() {
                            out.retain(|(ok, _)| ok != k);
                            out.push((k.clone(), as_str(v)));
                        }
                    }
                    Value::Str(_) | Value::Int(_) | Value::Float(_) => {
                        out.push((it.to_python_str(), String::new()))
                    }
                    // Salt gives up on the whole list.
                    _ => return Vec::new(),
                }
            }
            out
        }
        _ => Vec::new(),
    }
}

/// What `cmdmod._run` needs from a state's arguments (or from the
/// `cmd.script` execution function's, laid out the same way).
pub struct RunOpts {
    cwd: Option<String>,
    runas: Option<String>,
    shell: Option<String>,
    env: Option<Value>,
    prepend_path: Option<String>,
    timeout: Option<Value>,
    hide_output: bool,
    stdin: Option<String>,
    success_retcodes: Option<Value>,
    success_stdout: Option<Value>,
    success_stderr: Option<Value>,
    umask: Option<Value>,
    /// Where the command's process group is registered while it runs.
    jobs: brine_host::jobs::Jobs,
}

impl RunOpts {
    pub fn from_low(ctx: &StateContext, low: &Map) -> RunOpts {
        let s = |k: &str| {
            low.get(k)
                .filter(|v| v.is_truthy())
                .map(Value::to_python_str)
        };
        let grain_shell = ctx
            .grains
            .get("shell")
            .and_then(Value::as_str)
            .map(String::from);
        RunOpts {
            cwd: s("cwd"),
            runas: s("runas"),
            shell: s("shell").or(grain_shell),
            env: low.get("env").filter(|v| !v.is_null()).cloned(),
            prepend_path: s("prepend_path"),
            timeout: low.get("timeout").filter(|v| !v.is_null()).cloned(),
            hide_output: low.get("hide_output").is_some_and(Value::is_truthy),
            stdin: low
                .get("stdin")
                .filter(|v| !v.is_null())
                .map(Value::to_python_str),
            success_retcodes: low
                .get("success_retcodes")
                .filter(|v| !v.is_null())
                .cloned(),
            success_stdout: low.get("success_stdout").filter(|v| !v.is_null()).cloned(),
            success_stderr: low.get("success_stderr").filter(|v| !v.is_null()).cloned(),
            umask: low.get("umask").filter(|v| !v.is_null()).cloned(),
            jobs: ctx.jobs.clone(),
        }
    }
}

/// Salt's `cmdmod._run` + `run_all` with `python_shell=True`: the
/// `{pid, retcode, stdout, stderr}` dict, or the error Salt raises.
/// `shown` is how a timeout message names the command.
fn run_all(cmd: &str, shown: &str, o: &RunOpts) -> Result<Map, String> {
    let line = Program::Shell {
        line: cmd.to_string(),
        shell: o.shell.clone(),
    };
    run_program(line, shown, o)
}

/// [`run_all`] for a command line or a program with its arguments.
fn run_program(program: Program, shown: &str, o: &RunOpts) -> Result<Map, String> {
    let mut env: Vec<(String, String)> = parse_env(o.env.as_ref());
    let home_of = |user: Option<&str>| -> Option<String> {
        match user {
            None => std::env::var("HOME")
                .ok()
                .or_else(|| accounts::user_by_name(&accounts::current_user()).map(|p| p.home)),
            Some(u) => accounts::user_by_name(u).map(|p| p.home),
        }
    };
    let readable = |p: &str| access(p, AccessFlags::R_OK).is_ok();
    let cwd = match &o.cwd {
        Some(c) => c.clone(),
        None => {
            // The (run-as) user's home, or / when it cannot be read.
            let home = home_of(o.runas.as_deref()).unwrap_or_else(|| "/".into());
            if readable(&home) {
                home
            } else {
                "/".into()
            }
        }
    };
    if let Some(sh) = &o.shell {
        let p = Path::new(sh);
        let exec_ok = access(p, AccessFlags::X_OK).is_ok();
        if !p.is_file() || !exec_ok {
            return Err(format!("The shell {sh} is not available"));
        }
    }
    if let Some(user) = &o.runas {
        let Some(home) = accounts::user_by_name(user).map(|p| p.home) else {
            return Err(format!("User '{user}' is not available"));
        };
        // Salt runs with the user's login environment; at least its
        // USER and HOME are right.
        for (k, v) in [("USER", user.clone()), ("HOME", home)] {
            if !env.iter().any(|(ek, _)| ek == k) {
                env.push((k.into(), v));
            }
        }
    }
    // Salt's reset_system_locale: English messages unless asked otherwise.
    for &k in C_LOCALE {
        if !env.iter().any(|(ek, _)| ek == k) {
            env.push((k.into(), "C".into()));
        }
    }
    if let Some(pp) = &o.prepend_path {
        let path = env
            .iter()
            .find(|(k, _)| k == "PATH")
            .map(|(_, v)| v.clone())
            .or_else(|| std::env::var("PATH").ok())
            .unwrap_or_default();
        env.retain(|(k, _)| k != "PATH");
        env.push(("PATH".into(), format!("{pp}:{path}")));
    }
    if !fsutil::isabs(&cwd) || !Path::new(&cwd).is_dir() {
        return Err(format!(
            "Specified cwd '{cwd}' either not absolute or does not exist"
        ));
    }
    let success_retcodes: Vec<i64> = match &o.success_retcodes {
        None => vec![0],
        Some(v) => split_input(v)
            .iter()
            .map(|s| s.parse::<i64>())
            .collect::<Result<_, _>>()
            .map_err(|_| "success_retcodes must be a list of integers".to_string())?,
    };
    let success_stdout = o
        .success_stdout
        .as_ref()
        .map(split_input)
        .unwrap_or_default();
    let success_stderr = o
        .success_stderr
        .as_ref()
        .map(split_input)
        .unwrap_or_default();
    let timeout = match &o.timeout {
        None => None,
        Some(Value::Int(i)) if *i > 0 => Some((Duration::from_secs(*i as u64), i.to_string())),
        Some(Value::Float(f)) if *f > 0.0 => Some((
            Duration::from_secs_f64(*f),
            Value::Float(*f).to_python_str(),
        )),
        // 0 means no timeout, as in Python.
        Some(Value::Int(_) | Value::Float(_) | Value::Bool(false)) => None,
        Some(v) => {
            return Err(format!(
                "Error: timeout {} must be a number",
                v.to_python_str()
            ))
        }
    };
    let umask = o.umask.as_ref().map(exec::parse_umask).transpose()?;
    let spec = CommandSpec {
        program,
        umask,
        cwd: Some(cwd.into()),
        env,
        runas: o.runas.clone(),
        timeout: timeout.as_ref().map(|t| t.0),
        stdin: o.stdin.clone(),
        merge_stderr: false,
    };
    let run = || o.jobs.tracking(|w| exec::run_watched(&spec, w));
    let mut res = run().map_err(|e| e.to_string())?;
    // A script just written may still be open in a forked child for a
    // moment ("Text file busy"); try again then.
    for _ in 0..3 {
        if res.retcode == 126 && res.stderr.contains("Text file busy") {
            std::thread::sleep(Duration::from_millis(50));
            res = run().map_err(|e| e.to_string())?;
        }
    }
    let mut ret = Map::default();
    if res.timed_out {
        let secs = timeout.map(|t| t.1).unwrap_or_default();
        ret.insert(
            "stdout".into(),
            Value::Str(format!("{shown} : Timed out after {secs} seconds")),
        );
        ret.insert("stderr".into(), Value::Str(String::new()));
        ret.insert("retcode".into(), Value::Int(1));
        ret.insert("pid".into(), Value::Int(i64::from(res.pid)));
        return Ok(ret);
    }
    let stdout = res.stdout.trim_end_matches(is_py_space).to_string();
    let stderr = res.stderr.trim_end_matches(is_py_space).to_string();
    let mut retcode = i64::from(res.retcode);
    if success_retcodes.contains(&retcode) {
        retcode = 0;
    }
    if success_stdout.iter().any(|s| stdout.contains(s.as_str()))
        || success_stderr.iter().any(|s| stderr.contains(s.as_str()))
    {
        retcode = 0;
    }
    ret.insert("pid".into(), Value::Int(i64::from(res.pid)));
    ret.insert("retcode".into(), Value::Int(retcode));
    let (stdout, stderr) = if o.hide_output {
        (String::new(), String::new())
    } else {
        (stdout, stderr)
    };
    ret.insert("stdout".into(), Value::Str(stdout));
    ret.insert("stderr".into(), Value::Str(stderr));
    Ok(ret)
}

/// `cmd.run`.
fn run(call: &StateCall, low: &Map) -> StateReturn {
    let (stateful, test_name) = stateful_of(low);
    let mut name = name_of(low);
    // The return keeps the real name; the test command runs instead.
    let mut ret = failed(&name, "");
    if call.test {
        if let Some(t) = &test_name {
            name = t.clone();
        }
    }
    if low
        .get("env")
        .is_some_and(|e| !matches!(e, Value::Null | Value::List(_) | Value::Map(_)))
    {
        ret.comment = "Invalidly-formatted 'env' parameter. See documentation.".into();
        return ret;
    }
    if call.test && test_name.is_none() {
        ret.result = None;
        ret.comment = format!("Command \"{name}\" would have been executed");
        ret.changes.insert("cmd".into(), Value::Str(name.clone()));
        return if stateful {
            reinterpreted_state(ret)
        } else {
            ret
        };
    }
    let opts = RunOpts::from_low(call.ctx, low);
    if let Some(cwd) = &opts.cwd {
        if !Path::new(cwd).is_dir() {
            ret.comment = format!("Desired working directory \"{cwd}\" is not available");
            return ret;
        }
    }
    if low.get("root").is_some_and(Value::is_truthy) {
        ret.comment = "brine does not run commands in a chroot ('root')".into();
        return ret;
    }
    let cmd_all = match run_all(&name, &name, &opts) {
        Ok(c) => c,
        Err(e) => {
            ret.comment = e;
            return ret;
        }
    };
    let retcode = cmd_all.get("retcode").and_then(Value::as_i64).unwrap_or(1);
    ret.changes = cmd_all;
    ret.result = Some(retcode == 0);
    ret.comment = format!("Command \"{name}\" run");
    if low.get("ignore_timeout").is_some_and(Value::is_truthy)
        && retcode == 1
        && ret
            .changes
            .get("stdout")
            .and_then(Value::as_str)
            .is_some_and(|s| s.contains("Timed out after"))
    {
        ret.changes.insert("retcode".into(), Value::Int(0));
        ret.result = Some(true);
    }
    if stateful {
        ret = reinterpreted_state(ret);
    }
    if call.test && retcode == 0 && !ret.changes.is_empty() {
        ret.result = None;
    }
    ret
}

/// The dict Salt's `cmd.script` returns when the script cannot be had.
fn cache_error() -> Map {
    let mut m = Map::default();
    m.insert("pid".into(), Value::Int(0));
    m.insert("retcode".into(), Value::Int(1));
    m.insert("stdout".into(), Value::Str(String::new()));
    m.insert("stderr".into(), Value::Str(String::new()));
    m.insert("cache_error".into(), Value::Bool(true));
    m
}

/// `cmd.script`.
fn script(call: &StateCall, low: &Map) -> StateReturn {
    let (stateful, test_name) = stateful_of(low);
    let mut name = name_of(low);
    if call.test {
        if let Some(t) = &test_name {
            name = t.clone();
        }
    }
    let mut ret = failed(&name, "");
    if low
        .get("env")
        .is_some_and(|e| !matches!(e, Value::Null | Value::List(_) | Value::Map(_)))
    {
        ret.comment = "Invalidly-formatted 'env' parameter. See documentation.".into();
        return ret;
    }
    let context = low.get("context").filter(|v| v.is_truthy());
    if context.is_some_and(|c| !matches!(c, Value::Map(_))) {
        ret.comment = "Invalidly-formatted 'context' parameter. Must be formed as a dict.".into();
        return ret;
    }
    let defaults = low.get("defaults").filter(|v| v.is_truthy());
    if defaults.is_some_and(|c| !matches!(c, Value::Map(_))) {
        ret.comment = "Invalidly-formatted 'defaults' parameter. Must be formed as a dict.".into();
        return ret;
    }
    let source = low
        .get("source")
        .filter(|v| !v.is_null())
        .map(Value::to_python_str)
        .unwrap_or_else(|| name.clone());
    if call.test && test_name.is_none() {
        ret.result = None;
        ret.comment = format!("Command '{name}' would have been executed");
        return if stateful {
            reinterpreted_state(ret)
        } else {
            ret
        };
    }
    let opts = RunOpts::from_low(call.ctx, low);
    if let Some(cwd) = &opts.cwd {
        if !Path::new(cwd).is_dir() {
            ret.comment = format!("Desired working directory \"{cwd}\" is not available");
            return ret;
        }
    }
    let saltenv = low
        .get("__env__")
        .or_else(|| low.get("saltenv"))
        .and_then(Value::as_str)
        .unwrap_or(&call.ctx.saltenv)
        .to_string();
    let template = low
        .get("template")
        .filter(|v| v.is_truthy())
        .map(Value::to_python_str);
    let cmd_all = match fetch_and_run_script(
        call.ctx,
        &source,
        &saltenv,
        template.as_deref(),
        defaults,
        context,
        &opts,
        None,
    ) {
        Ok(c) => c,
        Err(e) => {
            ret.comment = e;
            return ret;
        }
    };
    let retcode = cmd_all.get("retcode").and_then(Value::as_i64).unwrap_or(1);
    let cache_failed = cmd_all.get("cache_error").is_some_and(Value::is_truthy);
    ret.changes = cmd_all;
    ret.result = Some(retcode == 0);
    ret.comment = if cache_failed {
        format!("Unable to cache script {source} from saltenv '{saltenv}'")
    } else {
        format!("Command '{name}' run")
    };
    if stateful {
        ret = reinterpreted_state(ret);
    }
    if call.test && retcode == 0 && !ret.changes.is_empty() {
        ret.result = None;
    }
    ret
}

/// Salt's `cmdmod.script`: copy (or render) the script to a temporary
/// file, make it executable and run it. With `args` (the execution
/// function) the script runs directly with them as its arguments;
/// without (the state), through the shell, where like Salt 3007.8's state
/// its arguments would only become the shell's `$0`.
#[allow(clippy::too_many_arguments)]
pub fn fetch_and_run_script(
    ctx: &StateContext,
    source: &str,
    saltenv: &str,
    template: Option<&str>,
    defaults: Option<&Value>,
    context: Option<&Value>,
    opts: &RunOpts,
    args: Option<Vec<String>>,
) -> Result<Map, String> {
    let Ok(cached) = ctx.fileclient.cache_file(source, saltenv) else {
        return Ok(cache_error());
    };
    let Ok(raw) = std::fs::read(&cached) else {
        return Ok(cache_error());
    };
    let body = match template {
        None => raw,
        Some(t) => {
            let text = String::from_utf8_lossy(&raw).into_owned();
            let vars = merge_context(defaults, context);
            match render_template(ctx, t, saltenv, source, &text, vars) {
                Ok(s) => s.into_bytes(),
                Err(_) => return Ok(cache_error()),
            }
        }
    };
    let path_part = source.split('?').next().unwrap_or(source);
    let ext = Path::new(path_part)
        .extension()
        .map(|e| format!(".{}", e.to_string_lossy()))
        .unwrap_or_default();
    let dir = opts
        .cwd
        .clone()
        .map(std::path::PathBuf::from)
        .unwrap_or_else(std::env::temp_dir);
    let write = || -> std::io::Result<tempfile::TempPath> {
        use std::io::Write;
        use std::os::unix::fs::PermissionsExt;
        let mut f = tempfile::Builder::new()
            .prefix("__salt.tmp.")
            .suffix(&ext)
            .tempfile_in(&dir)?;
        f.write_all(&body)?;
        let path = f.into_temp_path();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o500))?;
        Ok(path)
    };
    let path = write().map_err(|e| fsutil::py_os_error(&e, &dir))?;
    if let Some(user) = &opts.runas {
        let uid = fsutil::user_to_uid(&fsutil::Owner::Name(user.clone()));
        let _ = fsutil::chown(&path, uid, None, true);
    }
    let p = path.to_string_lossy().into_owned();
    // Salt quotes the path for the shell (`_cmd_quote`).
    let quoted = shell_words::quote(&p);
    let shown = format!("[{}]", Value::Str(p.clone()).to_python_repr());
    let out = match args {
        None => run_all(&quoted, &shown, opts),
        Some(args) => {
            let mut argv = vec![p.clone()];
            argv.extend(args);
            run_program(Program::Argv(argv), &shown, opts)
        }
    };
    drop(path);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::replay::{call_state, context, replay};

    #[test]
    fn cmd_states_match_salt() {
        replay(include_str!("testdata/cmd.json"), &MODULE, None);
    }

    #[test]
    fn watch_runs_the_command() {
        let tmp = tempfile::tempdir().unwrap();
        let ctx = context(
            &serde_json::json!({"grains": {"shell": "/bin/sh"}}),
            tmp.path(),
        );
        let mark = tmp.path().join("ran");
        let mut low = Map::default();
        low.insert(
            "name".into(),
            Value::Str(format!("touch {}", mark.display())),
        );
        low.insert("state".into(), Value::Str("cmd".into()));
        low.insert("fun".into(), Value::Str("wait".into()));
        // wait itself does nothing...
        let r = call_state(&MODULE, &ctx, "cmd.wait", &low, false);
        assert_eq!((r.result, r.changes.len()), (Some(true), 0));
        assert!(!mark.exists());
        // ...a watch runs it like cmd.run.
        let r = mod_watch(&StateCall {
            low: &low,
            test: false,
            ctx: &ctx,
        });
        assert_eq!(
            r.comment,
            format!("Command \"touch {}\" run", mark.display())
        );
        assert!(mark.exists());
        low.insert("sfun".into(), Value::Str("call".into()));
        let r = mod_watch(&StateCall {
            low: &low,
            test: false,
            ctx: &ctx,
        });
        assert_eq!(r.comment, "cmd.call needs a named parameter func");
        low.insert("sfun".into(), Value::Str("bogus".into()));
        let r = mod_watch(&StateCall {
            low: &low,
            test: false,
            ctx: &ctx,
        });
        assert_eq!(
            r.comment,
            "cmd.bogus does not work with the watch requisite, please use cmd.wait or cmd.wait_script"
        );
    }

    #[test]
    fn stateful_output_parsing() {
        let mk = |stdout: &str| {
            let mut r = StateReturn::new("x");
            r.changes.insert("pid".into(), Value::Int(1));
            r.changes.insert("retcode".into(), Value::Int(0));
            r.changes.insert("stdout".into(), Value::Str(stdout.into()));
            r.changes.insert("stderr".into(), Value::Str(String::new()));
            reinterpreted_state(r)
        };
        let r = mk("some log\nchanged=yes comment='two words'");
        assert_eq!(r.comment, "two words");
        assert_eq!(
            r.changes.get("stdout"),
            Some(&Value::Str("some log".into()))
        );
        let r = mk("[1, 2]");
        assert_eq!(
            r.comment,
            "script JSON output must be a JSON object (e.g., {})!"
        );
        let r = mk("changed=maybe");
        assert_eq!(r.comment, "Failed parsing boolean value: maybe");
    }

    #[test]
    fn bad_argument_types() {
        let tmp = tempfile::tempdir().unwrap();
        let ctx = context(&serde_json::json!({}), tmp.path());
        let mut low = Map::default();
        low.insert("name".into(), Value::Str("true".into()));
        low.insert("timeout".into(), Value::Str("soon".into()));
        let r = call_state(&MODULE, &ctx, "cmd.run", &low, false);
        assert_eq!(r.comment, "Error: timeout soon must be a number");
        low.shift_remove("timeout");
        low.insert("success_retcodes".into(), Value::Str("a,b".into()));
        let r = call_state(&MODULE, &ctx, "cmd.run", &low, false);
        assert_eq!(r.comment, "success_retcodes must be a list of integers");
        low.shift_remove("success_retcodes");
        low.insert("runas".into(), Value::Str("no-such-user-x".into()));
        let r = call_state(&MODULE, &ctx, "cmd.run", &low, false);
        assert_eq!(
            (r.result, r.comment.as_str()),
            (Some(false), "User 'no-such-user-x' is not available")
        );
    }
}
