//! Running commands on the minion: a program with its arguments, or a
//! command line for the shell where Salt's semantics ask for one (the
//! `cmd.run` family with `python_shell=True`, `unless`/`onlyif`); cwd, env,
//! runas, timeout; captures stdout/stderr and the exit code.

use nix::sys::signal::{killpg, Signal};
use nix::unistd::Pid;
use std::io::Read;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// What to start.
#[derive(Debug, Clone, PartialEq)]
pub enum Program {
    /// A program and its arguments, started directly: no shell reads them.
    Argv(Vec<String>),
    /// A command line run as `shell -c line` (Salt's `python_shell=True`).
    Shell {
        line: String,
        /// The shell; default `/bin/sh`.
        shell: Option<String>,
    },
}

impl Default for Program {
    fn default() -> Program {
        Program::Argv(Vec::new())
    }
}

impl Program {
    /// How error messages name the command.
    pub fn display(&self) -> String {
        match self {
            Program::Argv(argv) => argv.join(" "),
            Program::Shell { line, .. } => line.clone(),
        }
    }
}

/// One command to run.
#[derive(Debug, Clone, Default)]
pub struct CommandSpec {
    pub program: Program,
    pub cwd: Option<PathBuf>,
    /// Extra environment variables.
    pub env: Vec<(String, String)>,
    /// Run as this user (through `runuser`).
    pub runas: Option<String>,
    /// The command and its children are killed when it runs longer.
    pub timeout: Option<Duration>,
    /// Text fed on stdin.
    pub stdin: Option<String>,
    /// stderr goes into stdout, interleaved as written (Salt's `cmd.run`).
    pub merge_stderr: bool,
    /// The command's file mode creation mask (Salt's `umask=`).
    pub umask: Option<u32>,
}

/// Told the command's process group when it starts (`true`) and when it
/// has ended (`false`).
pub type Watch<'a> = &'a dyn Fn(u32, bool);

impl CommandSpec {
    /// `argv[0]` with `argv[1..]` as its arguments, nothing else set.
    pub fn argv<S: AsRef<str>>(argv: &[S]) -> CommandSpec {
        CommandSpec {
            program: Program::Argv(argv.iter().map(|a| a.as_ref().to_string()).collect()),
            ..CommandSpec::default()
        }
    }

    /// `line` through `/bin/sh -c`, nothing else set.
    pub fn shell(line: impl Into<String>) -> CommandSpec {
        CommandSpec {
            program: Program::Shell {
                line: line.into(),
                shell: None,
            },
            ..CommandSpec::default()
        }
    }
}

/// What a command did.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CommandResult {
    pub pid: u32,
    pub retcode: i32,
    pub stdout: String,
    pub stderr: String,
    pub timed_out: bool,
}

#[derive(Debug, thiserror::Error)]
pub enum ExecError {
    #[error("unable to run command '{cmd}': {source}")]
    Spawn { cmd: String, source: std::io::Error },
    #[error("specified cwd '{0}' either not absolute or does not exist")]
    BadCwd(String),
    #[error("no command given")]
    Empty,
}

/// Salt's `umask=` for a command: octal digits (leading zeros dropped),
/// or its error.
pub fn parse_umask(v: &brine_core::Value) -> Result<u32, String> {
    let text = v.to_python_str();
    let digits = text.trim_start_matches('0');
    if digits.is_empty() {
        return Err("Zero umask is not allowed.".into());
    }
    u32::from_str_radix(digits, 8)
        .ok()
        .filter(|m| *m <= 0o7777)
        .ok_or_else(|| format!("Invalid umask: '{text}'"))
}

/// Send signal number `sig` to process group `pgid` (a command [`run`]
/// started); false when there is no such signal or group.
pub fn signal_group(pgid: u32, sig: i32) -> bool {
    let (Ok(signal), Ok(raw)) = (Signal::try_from(sig), i32::try_from(pgid)) else {
        return false;
    };
    killpg(Pid::from_raw(raw), signal).is_ok()
}

/// Run `spec` to completion (or its timeout) and collect the output.
/// Trailing newlines are stripped from stdout/stderr, as Salt does.
pub fn run(spec: &CommandSpec) -> Result<CommandResult, ExecError> {
    run_watched(spec, &|_, _| {})
}

/// [`run`], telling `watch` the command's process group (a job's table
/// keeps it so that `saltutil.kill_job` reaches the command).
pub fn run_watched(spec: &CommandSpec, watch: Watch<'_>) -> Result<CommandResult, ExecError> {
    let (program, args): (&str, Vec<&str>) = match &spec.program {
        Program::Argv(argv) => match argv.split_first() {
            Some((first, rest)) => (first, rest.iter().map(String::as_str).collect()),
            None => return Err(ExecError::Empty),
        },
        Program::Shell { line, shell } => (
            shell.as_deref().unwrap_or("/bin/sh"),
            vec!["-c", line.as_str()],
        ),
    };
    let mut cmd = match &spec.runas {
        Some(user) => {
            let mut c = Command::new("runuser");
            c.args(["-u", user, "--", program]).args(args);
            c
        }
        None => {
            let mut c = Command::new(program);
            c.args(args);
            c
        }
    };
    if let Some(cwd) = &spec.cwd {
        if !cwd.is_absolute() || !cwd.is_dir() {
            return Err(ExecError::BadCwd(cwd.display().to_string()));
        }
        cmd.current_dir(cwd);
    }
    for (k, v) in &spec.env {
        cmd.env(k, v);
    }
    cmd.stdin(if spec.stdin.is_some() {
        Stdio::piped()
    } else {
        Stdio::null()
    });
    // With merge_stderr both streams share one pipe, so the output keeps
    // the order the command wrote it in.
    let mut merged = None;
    if spec.merge_stderr {
        let (reader, writer) = std::io::pipe().map_err(|source| ExecError::Spawn {
            cmd: spec.program.display(),
            source,
        })?;
        let writer2 = writer.try_clone().map_err(|source| ExecError::Spawn {
            cmd: spec.program.display(),
            source,
        })?;
        cmd.stdout(writer).stderr(writer2);
        merged = Some(reader);
    } else {
        cmd.stdout(Stdio::piped()).stderr(Stdio::piped());
    }
    // Its own process group, so a timeout can end the command's children too.
    {
        use std::os::unix::process::CommandExt;
        cmd.process_group(0);
    }
    if let Some(mask) = spec.umask {
        crate::sys::child_umask(&mut cmd, mask);
    }
    let mut child = cmd.spawn().map_err(|source| ExecError::Spawn {
        cmd: spec.program.display(),
        source,
    })?;
    if let (Some(text), Some(mut stdin)) = (&spec.stdin, child.stdin.take()) {
        use std::io::Write;
        // A command that exits without reading its input is not an error.
        let _ = stdin.write_all(text.as_bytes());
    }
    // The parent's copies of the merged pipe's write ends went with `cmd`;
    // drop it so the reader sees end-of-file when the command exits.
    drop(cmd);
    // Read both pipes on threads so a chatty command cannot block on a full pipe.
    let mut out_pipe: Option<Box<dyn Read + Send>> = match merged {
        Some(reader) => Some(Box::new(reader)),
        None => child
            .stdout
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
    };
    let mut err_pipe = child.stderr.take();
    let out_t = std::thread::spawn(move || {
        let mut s = Vec::new();
        if let Some(p) = out_pipe.as_mut() {
            let _ = p.read_to_end(&mut s);
        }
        s
    });
    let err_t = std::thread::spawn(move || {
        let mut s = Vec::new();
        if let Some(p) = err_pipe.as_mut() {
            let _ = p.read_to_end(&mut s);
        }
        s
    });
    let pid = child.id();
    // process_group(0) made the command the leader of a group numbered by
    // its pid.
    watch(pid, true);
    let start = Instant::now();
    let mut timed_out = false;
    let status = loop {
        match child.try_wait() {
            Ok(Some(st)) => break Some(st),
            Ok(None) => {}
            Err(_) => break None,
        }
        if spec.timeout.is_some_and(|t| start.elapsed() >= t) {
            timed_out = true;
            // The whole process group we created, so the command's children
            // go too.
            if let Ok(pgid) = i32::try_from(pid) {
                let _ = killpg(Pid::from_raw(pgid), Signal::SIGKILL);
            }
            let _ = child.kill();
            break child.wait().ok();
        }
        std::thread::sleep(Duration::from_millis(2));
    };
    watch(pid, false);
    let stdout = out_t.join().unwrap_or_default();
    let stderr = err_t.join().unwrap_or_default();
    let trim = |b: Vec<u8>| {
        String::from_utf8_lossy(&b)
            .trim_end_matches('\n')
            .to_string()
    };
    let retcode = status
        .and_then(|s| {
            s.code().or_else(|| {
                use std::os::unix::process::ExitStatusExt;
                s.signal().map(|sig| -sig)
            })
        })
        .unwrap_or(1);
    Ok(CommandResult {
        pid,
        retcode,
        stdout: trim(stdout),
        stderr: trim(stderr),
        timed_out,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_through_the_shell() {
        let r = run(&CommandSpec::shell("echo hi; echo oops >&2; exit 3")).unwrap();
        assert_eq!(
            (r.retcode, r.stdout.as_str(), r.stderr.as_str()),
            (3, "hi", "oops")
        );
    }

    #[test]
    fn honours_cwd_env_stdin_and_timeout() {
        let r = run(&CommandSpec {
            cwd: Some("/tmp".into()),
            env: vec![("FOO".into(), "bar".into())],
            stdin: Some("in".into()),
            ..CommandSpec::shell("pwd; echo $FOO; cat")
        })
        .unwrap();
        assert_eq!(r.stdout, "/tmp\nbar\nin");
        let r = run(&CommandSpec {
            timeout: Some(Duration::from_millis(100)),
            ..CommandSpec::shell("sleep 5")
        })
        .unwrap();
        assert!(r.timed_out);
        assert!(run(&CommandSpec {
            cwd: Some("relative".into()),
            ..CommandSpec::shell("true")
        })
        .is_err());
    }

    #[test]
    fn argv_words_reach_the_program_as_given() {
        let r = run(&CommandSpec::argv(&[
            "printf", "%s|", "a b", "it's", "$HOME", "",
        ]))
        .unwrap();
        assert_eq!(r.stdout, "a b|it's|$HOME||");
        assert!(matches!(
            run(&CommandSpec::argv::<&str>(&[])),
            Err(ExecError::Empty)
        ));
        assert!(matches!(
            run(&CommandSpec::argv(&["/no/such/program"])),
            Err(ExecError::Spawn { .. })
        ));
    }

    #[test]
    fn a_timeout_kills_the_whole_process_group() {
        let tmp = tempfile::tempdir().unwrap();
        let mark = tmp.path().join("survived");
        // The shell starts a child that would write the mark after the
        // timeout; killing only the shell would leave it running.
        let line = format!("(sleep 1; touch {}) & wait", mark.display());
        let r = run(&CommandSpec {
            timeout: Some(Duration::from_millis(200)),
            ..CommandSpec::shell(line)
        })
        .unwrap();
        assert!(r.timed_out);
        std::thread::sleep(Duration::from_millis(1500));
        assert!(!mark.exists());
    }
}
