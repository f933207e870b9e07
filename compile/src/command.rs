//! A host program run from a compile (the gpg renderer, the `cmd_yaml`
//! and `cmd_json` ext_pillars): input on stdin, stdout and stderr read
//! up to a size, killed when it outlives its time. Such a compile asked
//! something besides the disk, so it is never replayed
//! ([`crate::inputs::volatile`], by the caller).

use std::io::{Read, Write};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// What the program printed.
pub struct Output {
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
    pub success: bool,
}

/// Why the program gave no output.
#[derive(Debug, thiserror::Error)]
pub enum CommandError {
    #[error("{0}")]
    Spawn(std::io::Error),
    #[error("{program} did not answer within {}s", .timeout.as_secs())]
    Timeout { program: String, timeout: Duration },
    #[error("{program} printed more than {max} bytes")]
    TooLarge { program: String, max: usize },
}

/// Run `cmd` with `input` on stdin, within `timeout`, each stream at most
/// `max` bytes.
pub fn run(
    mut cmd: Command,
    input: &[u8],
    timeout: Duration,
    max: usize,
) -> Result<Output, CommandError> {
    let program = cmd.get_program().to_string_lossy().into_owned();
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(CommandError::Spawn)?;
    let mut stdin = child.stdin.take();
    let input = input.to_vec();
    let writer = std::thread::spawn(move || {
        if let Some(s) = stdin.as_mut() {
            let _ = s.write_all(&input);
        }
    });
    let read = |r: Option<Box<dyn Read + Send>>| {
        std::thread::spawn(move || {
            let mut buf = Vec::new();
            if let Some(r) = r {
                let _ = r.take(max as u64 + 1).read_to_end(&mut buf);
            }
            buf
        })
    };
    let out = read(
        child
            .stdout
            .take()
            .map(|s| Box::new(s) as Box<dyn Read + Send>),
    );
    let err = read(
        child
            .stderr
            .take()
            .map(|s| Box::new(s) as Box<dyn Read + Send>),
    );
    let deadline = Instant::now() + timeout;
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(5)),
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(CommandError::Timeout { program, timeout });
            }
        }
    };
    let _ = writer.join();
    let stdout = out.join().unwrap_or_default();
    let stderr = err.join().unwrap_or_default();
    if stdout.len() > max || stderr.len() > max {
        return Err(CommandError::TooLarge { program, max });
    }
    Ok(Output {
        stdout,
        stderr,
        success: status.success(),
    })
}
