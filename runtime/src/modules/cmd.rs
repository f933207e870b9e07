//! Salt's `cmd` module: running commands (`run`, `run_all`, `run_stdout`,
//! `run_stderr`, `retcode`, `shell`) and finding programs (`which`,
//! `has_exec`).
//!
//! As in Salt, a command is split into a program and its arguments and
//! started without a shell unless `python_shell=True` (or `cmd_safe:
//! False`), whether it comes from `brine-call`, a template or a published
//! job (`exec-cmd-shell-default`, recorded from a real Salt pair).

use super::function::{params_of, sig, CallError, Ctx, Function, Return, Signature};
use super::params::Params;
use crate::context::Minion;
use brine_compile::minion_data::Returned;
use brine_core::args::CallArgs;
use brine_core::{Map, Value};
use brine_host::exec::{self, CommandSpec, ExecError, Program};
use brine_host::path;
use brine_states::modules::cmd::{fetch_and_run_script, RunOpts};
use std::time::Duration;

const RUN_DOC: &str = "Run CMD and answer its output (stderr folded into stdout). Keywords: \
cwd, stdin, runas, shell, python_shell (default False: the command is split into \
its arguments and run without a shell), env (a mapping), timeout (seconds: the command and its process group \
are killed), umask (octal, e.g. '077'), ignore_retcode, success_retcodes, rstrip, \
output_loglevel.\n\n    \
brine '*' cmd.run 'uptime'";

/// The signature several functions here share (Salt's, recorded).
const RUN_STDERR_SIG: Signature = sig!(
    cmd,
    cwd = null,
    stdin = null,
    runas = null,
    group = null,
    shell = null,
    python_shell = null,
    env = null,
    clean_env = false,
    template = null,
    rstrip = true,
    umask = null,
    output_encoding = null,
    output_loglevel = "debug",
    log_callback = null,
    hide_output = false,
    timeout = null,
    reset_system_locale = true,
    ignore_retcode = false,
    saltenv = null,
    use_vt = false,
    password = null,
    prepend_path = null,
    success_retcodes = null,
    success_stdout = null,
    success_stderr = null,
    **kwargs
);

/// The signature several functions here share (Salt's, recorded).
const EXEC_CODE_SIG: Signature = sig!(lang, code, cwd = null, args = null, **kwargs);

pub(super) const FUNCTIONS: &[Function] = &[
    Function::acts(
        "retcode",
        sig!(
            cmd,
            cwd = null,
            stdin = null,
            runas = null,
            group = null,
            shell = null,
            python_shell = null,
            env = null,
            clean_env = false,
            template = null,
            umask = null,
            output_encoding = null,
            output_loglevel = "debug",
            log_callback = null,
            timeout = null,
            reset_system_locale = true,
            ignore_retcode = false,
            saltenv = null,
            use_vt = false,
            password = null,
            success_retcodes = null,
            success_stdout = null,
            success_stderr = null,
            **kwargs
        ),
        "Run CMD and answer its exit code (keywords as cmd.run).\n\n    \
brine '*' cmd.retcode 'test -d /srv'",
        |c, p| run_cmd(c, p, Shape::Retcode, false),
    ),
    Function::acts(
        "run",
        sig!(
            cmd,
            cwd = null,
            stdin = null,
            runas = null,
            group = null,
            shell = null,
            python_shell = null,
            env = null,
            clean_env = false,
            template = null,
            rstrip = true,
            umask = null,
            output_encoding = null,
            output_loglevel = "debug",
            log_callback = null,
            hide_output = false,
            timeout = null,
            reset_system_locale = true,
            ignore_retcode = false,
            saltenv = null,
            use_vt = false,
            redirect_stderr = true,
            bg = false,
            password = null,
            encoded_cmd = false,
            raise_err = false,
            prepend_path = null,
            success_retcodes = null,
            success_stdout = null,
            success_stderr = null,
            **kwargs
        ), RUN_DOC, |c, p| run_cmd(c, p, Shape::Combined, false)),
    Function::acts(
        "run_all",
        sig!(
            cmd,
            cwd = null,
            stdin = null,
            runas = null,
            group = null,
            shell = null,
            python_shell = null,
            env = null,
            clean_env = false,
            template = null,
            rstrip = true,
            umask = null,
            output_encoding = null,
            output_loglevel = "debug",
            log_callback = null,
            hide_output = false,
            timeout = null,
            reset_system_locale = true,
            ignore_retcode = false,
            saltenv = null,
            use_vt = false,
            redirect_stderr = false,
            password = null,
            encoded_cmd = false,
            prepend_path = null,
            success_retcodes = null,
            success_stdout = null,
            success_stderr = null,
            **kwargs
        ),
        "Run CMD and answer {pid, retcode, stdout, stderr} (keywords as cmd.run).\n\n    brine '*' cmd.run_all 'ls /srv'",
        |c, p| run_cmd(c, p, Shape::All, false),
    ),
    Function::acts(
        "run_stderr",
        RUN_STDERR_SIG,
        "Run CMD and answer its stderr (keywords as cmd.run).\n\n    brine '*' cmd.run_stderr 'ls /nope'",
        |c, p| run_cmd(c, p, Shape::Stderr, false),
    ),
    Function::acts(
        "run_stdout",
        RUN_STDERR_SIG,
        "Run CMD and answer its stdout (keywords as cmd.run).\n\n    brine '*' cmd.run_stdout 'hostname'",
        |c, p| run_cmd(c, p, Shape::Stdout, false),
    ),
    Function::acts(
        "shell",
        sig!(
            cmd,
            cwd = null,
            stdin = null,
            runas = null,
            group = null,
            shell = "/bin/bash",
            env = null,
            clean_env = false,
            template = null,
            rstrip = true,
            umask = null,
            output_encoding = null,
            output_loglevel = "debug",
            log_callback = null,
            hide_output = false,
            timeout = null,
            reset_system_locale = true,
            ignore_retcode = false,
            saltenv = null,
            use_vt = false,
            bg = false,
            password = null,
            prepend_path = null,
            success_retcodes = null,
            success_stdout = null,
            success_stderr = null,
            **kwargs
        ),
        "cmd.run through the shell always (python_shell=True).\n\n    brine '*' cmd.shell 'ls | wc -l'",
        |c, p| run_cmd(c, p, Shape::Combined, true),
    ),
    Function::acts(
        "exec_code",
        EXEC_CODE_SIG,
        "Write CODE to a temporary file and run it with the interpreter LANG (python3, \
bash, ...), with ARGS (a string: one argument; a list: several); answer its stdout. \
Keywords as cmd.run_all.\n\n    brine '*' cmd.exec_code python3 'print(1 + 1)'",
        |c, p| exec_code(c, p, false),
    ),
    Function::acts(
        "exec_code_all",
        EXEC_CODE_SIG,
        "cmd.exec_code answering {pid, retcode, stdout, stderr}.\n\n    \
brine '*' cmd.exec_code_all bash 'echo hi; exit 2'",
        |c, p| exec_code(c, p, true),
    ),
    Function::minion(
        "script",
        sig!(
            source,
            args = null,
            cwd = null,
            stdin = null,
            runas = null,
            group = null,
            shell = null,
            python_shell = null,
            env = null,
            template = null,
            umask = null,
            output_encoding = null,
            output_loglevel = "debug",
            log_callback = null,
            hide_output = false,
            timeout = null,
            reset_system_locale = true,
            saltenv = null,
            use_vt = false,
            bg = false,
            password = null,
            success_retcodes = null,
            success_stdout = null,
            success_stderr = null,
            **kwargs
        ),
        "Fetch the script SOURCE (salt://, a path or a URL the file client knows) from \
SALTENV, render it with TEMPLATE (jinja ...) if asked, and run it with ARGS (a string: \
one argument, not split; a list: several), in CWD as RUNAS with ENV, STDIN, UMASK and TIMEOUT. Answers {pid, \
retcode, stdout, stderr}; cache_error: True when the script cannot be had.\n\n    \
brine '*' cmd.script salt://scripts/setup.sh args='--fast'",
        script,
    )
    .changes_host(),
    Function::reads(
        "has_exec",
        sig!(cmd),
        "True when CMD is an executable on the minion's PATH (or an executable \
path).\n\n    brine-call cmd.has_exec nginx",
        |_, mut p| {
            let cmd = p.require("cmd")?.to_python_str();
            p.finish()?;
            Ok(Returned::New(Value::Bool(path::which(&cmd).is_some())))
        },
    ),
    Function::reads(
        "which",
        sig!(cmd),
        "The full path of the executable CMD found on the minion's PATH, or None.\n\n    \
brine-call cmd.which systemctl",
        which,
    ),
];

fn which<'c>(_: &Ctx<'c>, mut p: Params) -> Result<Returned<'c>, CallError> {
    let cmd = p.require("cmd")?.to_python_str();
    p.finish()?;
    Ok(Returned::New(
        path::which(&cmd)
            .map(|p| Value::Str(p.display().to_string()))
            .unwrap_or(Value::Null),
    ))
}

/// What a `cmd.run*` function answers.
#[derive(Clone, Copy, PartialEq)]
enum Shape {
    Combined,
    All,
    Stdout,
    Stderr,
    Retcode,
}

/// `cmd.run_all` for other modules (Salt's `__salt__["cmd.run_all"]`).
pub(super) fn run_all(cx: &Ctx<'_>, p: Params) -> Result<Return, CallError> {
    run_cmd(cx, p, Shape::All, false)
}

/// `cmd.run` for other modules (Salt's `__salt__["cmd.run"]`).
pub(super) fn run(cx: &Ctx<'_>, p: Params) -> Result<Return, CallError> {
    run_cmd(cx, p, Shape::Combined, false)
}

fn run_cmd<'c>(
    cx: &Ctx<'c>,
    mut p: Params,
    shape: Shape,
    force_shell: bool,
) -> Result<Return, CallError> {
    let cmd = p.require("cmd")?;
    let cwd = p
        .take("cwd")
        .filter(|v| !v.is_null())
        .map(|v| v.to_python_str());
    let stdin = p
        .take("stdin")
        .filter(|v| !v.is_null())
        .map(|v| v.to_python_str());
    let runas = p
        .take("runas")
        .filter(|v| !v.is_null())
        .map(|v| v.to_python_str());
    let shell = p
        .take("shell")
        .filter(|v| !v.is_null())
        .map(|v| v.to_python_str());
    let python_shell = p.take("python_shell").filter(|v| !v.is_null());
    let env = p.take("env").filter(|v| !v.is_null());
    let timeout = p.take("timeout").filter(|v| !v.is_null());
    let ignore_retcode = p.take("ignore_retcode").is_some_and(|v| v.is_truthy());
    let success = p.take("success_retcodes");
    let rstrip = p.take("rstrip").is_none_or(|v| v.is_truthy());
    let umask = p.take("umask").filter(|v| !v.is_null());
    // Accepted for Salt's signature; brine logs failures at error level and
    // output at debug level whatever these say.
    p.take("output_loglevel");
    p.take("hide_output");
    p.finish()?;

    let use_shell = force_shell
        || match python_shell {
            Some(v) => v.is_truthy(),
            None => opts_bool(cx, "cmd_safe") == Some(false),
        };
    let (program, shown) = match (&cmd, use_shell) {
        (Value::List(items), false) => {
            let argv: Vec<String> = items.iter().map(Value::to_python_str).collect();
            let shown = Value::List(items.clone()).to_python_repr();
            (Program::Argv(argv), shown)
        }
        (_, false) => {
            let line = cmd.to_python_str();
            let argv = brine_core::py::shlex_split(&line)
                .map_err(|e| CallError::Failed(format!("Unable to parse command '{line}': {e}")))?;
            let shown =
                Value::List(argv.iter().cloned().map(Value::Str).collect()).to_python_repr();
            (Program::Argv(argv), shown)
        }
        (_, true) => {
            let line = match &cmd {
                Value::List(items) => items
                    .iter()
                    .map(Value::to_python_str)
                    .collect::<Vec<_>>()
                    .join(" "),
                other => other.to_python_str(),
            };
            let shell = shell.or_else(|| cx.grains.get("shell").map(Value::to_python_str));
            (
                Program::Shell {
                    line: line.clone(),
                    shell,
                },
                line,
            )
        }
    };
    let cwd = match cwd {
        Some(c) => c,
        None => default_cwd(runas.as_deref()),
    };
    let env = match env {
        None => Vec::new(),
        Some(Value::Map(m)) => m
            .iter()
            .map(|(k, v)| (k.clone(), v.to_python_str()))
            .collect(),
        Some(other) => {
            return Err(CallError::Failed(format!(
                "Invalid input: env must be a mapping, not {}",
                other.type_name()
            )))
        }
    };
    let timeout = match timeout {
        None => None,
        Some(Value::Int(n)) if n > 0 => {
            Some((Duration::from_secs(n.unsigned_abs()), n.to_string()))
        }
        Some(Value::Float(f)) if f > 0.0 && f.is_finite() => {
            Some((Duration::from_secs_f64(f), Value::Float(f).to_python_str()))
        }
        Some(Value::Int(_) | Value::Float(_)) => None,
        Some(other) => {
            return Err(CallError::Failed(format!(
                "Invalid input: timeout must be a number, not {}",
                other.to_python_repr()
            )))
        }
    };
    let umask = umask
        .map(|u| exec::parse_umask(&u))
        .transpose()
        .map_err(CallError::Failed)?;
    let spec = CommandSpec {
        program,
        umask,
        cwd: Some(cwd.clone().into()),
        env,
        runas,
        timeout: timeout.as_ref().map(|t| t.0),
        stdin,
        merge_stderr: shape == Shape::Combined,
    };
    let jobs = cx.running().map(|m| m.jobs.clone()).unwrap_or_default();
    let res = jobs.tracking(|watch| exec::run_watched(&spec, watch)).map_err(|e| match e {
        ExecError::BadCwd(c) => CallError::Failed(format!(
            "Specified cwd '{c}' either not absolute or does not exist"
        )),
        ExecError::Spawn { source, .. } => CallError::Failed(format!(
            "Unable to run command '{shown}' with the context '{{'cwd': '{cwd}', 'shell': {}}}', reason: {}",
            if use_shell { "True" } else { "False" },
            os_reason(&source, &spec.program)
        )),
        ExecError::Empty => CallError::Failed("Unable to run an empty command".into()),
    })?;
    let strip = |s: String| if rstrip { s.trim_end().to_string() } else { s };
    if res.timed_out {
        // Salt answers the message in place of the output, with retcode 1
        // in run_all, and leaves the call's own retcode alone.
        let secs = timeout.map(|t| t.1).unwrap_or_default();
        let msg = format!("{shown} : Timed out after {secs} seconds");
        let value = match shape {
            Shape::All => {
                // Salt builds this answer in another order.
                let mut m = Map::default();
                m.insert("stdout".into(), Value::Str(msg));
                m.insert("stderr".into(), Value::Str(String::new()));
                m.insert("retcode".into(), Value::Int(1));
                m.insert("pid".into(), Value::Int(i64::from(res.pid)));
                Value::Map(m)
            }
            Shape::Retcode => Value::Int(1),
            Shape::Stderr => Value::Str(String::new()),
            _ => Value::Str(msg),
        };
        return Ok(Return { value, retcode: 0 });
    }
    let mut retcode = res.retcode;
    let succeeds = |rc: i32| match &success {
        Some(Value::List(l)) => l.iter().any(|v| v.as_i64() == Some(i64::from(rc))),
        Some(Value::Int(n)) => *n == i64::from(rc),
        _ => false,
    };
    if retcode != 0 && succeeds(retcode) {
        retcode = 0;
    }
    if retcode != 0 && !ignore_retcode {
        tracing::error!("Command '{shown}' failed with return code: {retcode}");
    }
    let value = match shape {
        Shape::Combined | Shape::Stdout => Value::Str(strip(res.stdout)),
        Shape::Stderr => Value::Str(strip(res.stderr)),
        Shape::All => all(res.pid, retcode, strip(res.stdout), strip(res.stderr)),
        Shape::Retcode => Value::Int(i64::from(retcode)),
    };
    Ok(Return {
        value,
        retcode: if ignore_retcode { 0 } else { retcode },
    })
}

fn all(pid: u32, retcode: i32, stdout: String, stderr: String) -> Value {
    let mut m = Map::default();
    m.insert("pid".into(), Value::Int(i64::from(pid)));
    m.insert("retcode".into(), Value::Int(i64::from(retcode)));
    m.insert("stdout".into(), Value::Str(stdout));
    m.insert("stderr".into(), Value::Str(stderr));
    Value::Map(m)
}

fn opts_bool(cx: &Ctx<'_>, key: &str) -> Option<bool> {
    cx.opts.get(key).map(Value::is_truthy)
}

/// The folder a command starts in: the home of the user it runs as (Salt's
/// default `cwd`), else the minion's own home.
fn default_cwd(runas: Option<&str>) -> String {
    path::home(runas)
        .filter(|h| std::path::Path::new(h).is_dir())
        .unwrap_or_else(|| "/".into())
}

/// Python's `[Errno N] text: 'program'` for a failed start.
fn os_reason(e: &std::io::Error, program: &Program) -> String {
    let name = match program {
        Program::Argv(argv) => argv.first().cloned().unwrap_or_default(),
        Program::Shell { shell, .. } => shell.clone().unwrap_or_else(|| "/bin/sh".into()),
    };
    match e.raw_os_error() {
        Some(code) => format!(
            "[Errno {code}] {}: '{name}'",
            nix::errno::Errno::from_raw(code).desc()
        ),
        None => e.to_string(),
    }
}

/// Salt's `exec_code_all`: the code in a temporary file, run as
/// `[lang, file, args...]` without a shell; `all`: the whole dict, else
/// its stdout.
fn exec_code<'c>(cx: &Ctx<'c>, mut p: Params, all: bool) -> Result<Return, CallError> {
    let lang = p.require("lang")?.to_python_str();
    let code = p.require("code")?.to_python_str();
    let cwd = p.take("cwd");
    let args = p.take("args");
    let mut kwargs = std::mem::take(&mut p.kwargs);
    p.open_kwargs = true;
    p.finish()?;
    let file = tempfile::Builder::new()
        .prefix("__salt.tmp.")
        .tempfile()
        .and_then(|mut f| {
            use std::io::Write;
            f.write_all(code.as_bytes())?;
            Ok(f.into_temp_path())
        })
        .map_err(|e| CallError::Failed(format!("Unable to write the code to a file: {e}")))?;
    let mut argv = vec![
        Value::Str(lang),
        Value::Str(file.to_string_lossy().into_owned()),
    ];
    match args {
        Some(Value::Str(a)) => argv.push(Value::Str(a)),
        Some(Value::List(l)) => argv.extend(l),
        _ => {}
    }
    if let Some(c) = cwd {
        kwargs.insert("cwd".into(), c);
    }
    kwargs.insert("python_shell".into(), Value::Bool(false));
    let call = CallArgs {
        args: vec![Value::List(argv)],
        kwargs,
    };
    let ret = run_cmd(cx, params_of(FUNCTIONS, "run_all", call), Shape::All, false)?;
    // The file goes when `file` drops, after the run.
    drop(file);
    if all {
        return Ok(ret);
    }
    let stdout = match &ret.value {
        Value::Map(m) => m.get("stdout").cloned().unwrap_or_default(),
        other => other.clone(),
    };
    Ok(Return {
        value: stdout,
        retcode: ret.retcode,
    })
}

/// Salt's `cmd.script`, sharing the `cmd.script` state's fetch and run.
fn script(m: &mut Minion, mut p: Params) -> Result<Return, CallError> {
    let source = p.require("source")?.to_python_str();
    let args = p.take("args").filter(|v| !v.is_null());
    let mut low = Map::default();
    for name in [
        "cwd",
        "stdin",
        "runas",
        "group",
        "shell",
        "python_shell",
        "env",
    ] {
        if let Some(v) = p.take(name) {
            low.insert(name.into(), v);
        }
    }
    let template = p.take("template").filter(Value::is_truthy);
    if let Some(u) = p.take("umask") {
        low.insert("umask".into(), u);
    }
    for name in ["output_encoding", "output_loglevel", "log_callback"] {
        p.take(name);
    }
    if let Some(v) = p.take("hide_output") {
        low.insert("hide_output".into(), v);
    }
    if let Some(v) = p.take("timeout") {
        low.insert("timeout".into(), v);
    }
    p.take("reset_system_locale");
    let saltenv = p.take("saltenv").filter(|v| !v.is_null());
    for name in ["use_vt", "bg", "password"] {
        p.take(name);
    }
    for name in ["success_retcodes", "success_stdout", "success_stderr"] {
        if let Some(v) = p.take(name) {
            low.insert(name.into(), v);
        }
    }
    let defaults = p.kw("defaults");
    let context = p.kw("context");
    // Salt takes **kwargs here (passed on to the template).
    p.open_kwargs = true;
    p.finish()?;
    if let Some(e) = low
        .get("env")
        .filter(|e| !matches!(e, Value::Map(_) | Value::Null))
    {
        return Err(CallError::Failed(format!(
            "Invalid input: env must be a mapping, not {}",
            e.type_name()
        )));
    }
    let saltenv = saltenv.map_or_else(
        || {
            m.opts
                .get("saltenv")
                .filter(|v| !v.is_null())
                .map_or_else(|| "base".to_string(), Value::to_python_str)
        },
        |v| v.to_python_str(),
    );
    let ctx = super::state_run::context(m, Map::clone(&m.pillar), &saltenv, false);
    let opts = RunOpts::from_low(&ctx, &low);
    // The arguments reach the script as they are: a string is one
    // argument (not split), a list several.
    let args = Some(match &args {
        None => Vec::new(),
        Some(Value::List(l)) => l.iter().map(Value::to_python_str).collect(),
        Some(other) => vec![other.to_python_str()],
    });
    let ret = fetch_and_run_script(
        &ctx,
        &source,
        &saltenv,
        template.map(|t| t.to_python_str()).as_deref(),
        defaults.as_ref(),
        context.as_ref(),
        &opts,
        args,
    )
    .map_err(CallError::Failed)?;
    // The script's exit code is the call's, as Salt sets it; a script
    // that could not be had, or was killed at its timeout, leaves it alone.
    let timed_out = ret
        .get("stdout")
        .and_then(Value::as_str)
        .is_some_and(|s| s.contains(" : Timed out after "));
    let retcode = if ret.contains_key("cache_error") || timed_out {
        0
    } else {
        ret.get("retcode")
            .and_then(Value::as_i64)
            .and_then(|r| i32::try_from(r).ok())
            .unwrap_or(0)
    };
    Ok(Return {
        value: Value::Map(ret),
        retcode,
    })
}
