//! A job in a process of its own (Salt's `multiprocessing: True`), as the
//! daemon sees it: `brine-minion --job-process` started in a process group
//! of its own, handed the job and what it runs with on its stdin, passed
//! the signals `saltutil.kill_job` and friends send the job, and its
//! report read from its stdout when it ends. The process joins the master
//! with this identity's key and admission and sends the return itself
//! ([`super::job_main`]), so a job outlives a daemon killed or restarted
//! under it — a highstate that upgrades the minion's own package — and
//! its return still arrives.
//!
//! The pipe: one frame (a 4-byte big-endian length, then msgpack) holding
//! the [`Handoff`]; then each signal as a 4-byte big-endian number until
//! the daemon closes it (or dies, which the process takes in its stride).
//! The process answers with one msgpack [`Report`] on stdout.

use super::returns::Handed;
use super::{Identity, Shared};
use brine_core::{Map, Value};
use brine_protocol::crypto::{Nonce, PublicKeys, SessionKey};
use brine_protocol::messages::Publication;
use serde::{Deserialize, Serialize};
use std::net::SocketAddr;
use std::process::Stdio;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// The command-line flag that makes `brine-minion` a job's process.
pub const FLAG: &str = "--job-process";

/// Bound on the handoff a job process reads (opts, grains and pillar are
/// far smaller; a message from the master is at most this).
pub const MAX_HANDOFF: usize = brine_protocol::messages::MAX_MESSAGE_BYTES * 2;
/// Bound on the report the daemon reads back (grains at most).
const MAX_REPORT: u64 = 64 << 20;

/// Why a job's process did not run it or say how it went.
#[derive(Debug, thiserror::Error)]
pub enum JobProcessError {
    #[error("cannot start a process for the job ({path}): {source}")]
    Spawn {
        path: String,
        source: std::io::Error,
    },
    #[error("the job's process: {0}")]
    Pipe(std::io::Error),
    #[error("the job's handoff: {0}")]
    Encode(#[from] rmp_serde::encode::Error),
    #[error("the job's handoff: {0}")]
    Decode(#[from] rmp_serde::decode::Error),
    #[error("the job's handoff is {0} bytes, over the limit")]
    TooLarge(usize),
    #[error("no master key is trusted yet")]
    NoMasterKey,
    #[error("the job's process ended ({0}) without a report")]
    Ended(String),
    #[error("the job's process could not run it: {0}")]
    NotRun(String),
}

/// What a job's process is handed: the job, the minion as the daemon
/// holds it, and what it needs to ask the master as this identity without
/// authenticating again.
#[derive(Debug, Serialize, Deserialize)]
pub struct Handoff {
    pub publ: Publication,
    /// The opened `pillar=` part of the publication.
    pub pillar_part: Option<Value>,
    pub opts: Map,
    pub grains: Map,
    pub pillar: Map,
    /// The master's ret port, and the folder under `cachedir` where this
    /// identity's undelivered returns wait.
    pub ret_addr: SocketAddr,
    pub queue: String,
    pub master: PublicKeys,
    pub instance: Option<Nonce>,
    pub request_key: Option<SessionKey>,
    /// Set for a run of the minion's schedule.
    pub scheduled: Option<Scheduled>,
}

/// A scheduled run: its schedule's name, and whether its return goes to
/// the master (`return_job`).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Scheduled {
    pub name: String,
    pub return_job: bool,
}

impl Handoff {
    /// The handoff for `ident` running `publ`.
    pub fn new(
        shared: &Shared,
        ident: &Identity,
        publ: &Publication,
        pillar_part: Option<Value>,
        scheduled: Option<Scheduled>,
    ) -> Result<Handoff, JobProcessError> {
        let master = ident
            .client
            .master_key()
            .ok_or(JobProcessError::NoMasterKey)?;
        let admission = ident.client.admission();
        let m = ident.snapshot();
        Ok(Handoff {
            publ: publ.clone(),
            pillar_part,
            opts: Map::clone(&m.opts),
            grains: Map::clone(&m.grains),
            pillar: Map::clone(&m.pillar),
            ret_addr: shared.link.addr(),
            queue: ident
                .returns
                .dir()
                .file_name()
                .and_then(|n| n.to_str())
                .unwrap_or(super::returns::PENDING_DIR)
                .to_string(),
            master,
            instance: admission.instance,
            request_key: admission.request_key,
            scheduled,
        })
    }

    /// Read a handoff frame from `r` (the process's stdin).
    pub fn read(r: &mut impl std::io::Read) -> Result<Handoff, JobProcessError> {
        let mut len = [0u8; 4];
        r.read_exact(&mut len).map_err(JobProcessError::Pipe)?;
        let len = u32::from_be_bytes(len) as usize;
        if len > MAX_HANDOFF {
            return Err(JobProcessError::TooLarge(len));
        }
        let mut buf = vec![0u8; len];
        r.read_exact(&mut buf).map_err(JobProcessError::Pipe)?;
        Ok(rmp_serde::from_slice(&buf)?)
    }

    fn frame(&self) -> Result<Vec<u8>, JobProcessError> {
        let body = rmp_serde::to_vec_named(self)?;
        let len = u32::try_from(body.len())
            .ok()
            .filter(|n| (*n as usize) <= MAX_HANDOFF)
            .ok_or(JobProcessError::TooLarge(body.len()))?;
        let mut out = Vec::with_capacity(body.len() + 4);
        out.extend_from_slice(&len.to_be_bytes());
        out.extend_from_slice(&body);
        Ok(out)
    }
}

/// What a job's process says when it ends.
#[derive(Debug, Serialize, Deserialize)]
pub struct Report {
    /// What became of the return; `None`: there was none to hand over (the
    /// job was stopped by a signal, or is a scheduled run with
    /// `return_job: False`).
    pub handed: Option<Handed>,
    /// The grains, when the job wrote some.
    pub grains: Option<Map>,
    /// Set when the process could not run the job at all (the daemon
    /// sends the master an error return with it).
    pub not_run: Option<String>,
}

/// A started job process, waiting for its handoff.
pub struct JobProcess {
    child: tokio::process::Child,
}

impl JobProcess {
    /// Start this program as a job process: its own process group (a
    /// signal to the daemon's group, or a stop of the daemon's service
    /// with systemd's `KillMode=process`, leaves it running).
    pub fn spawn() -> Result<JobProcess, JobProcessError> {
        let exe = std::env::current_exe().map_err(|source| JobProcessError::Spawn {
            path: "brine-minion".into(),
            source,
        })?;
        let child = tokio::process::Command::new(&exe)
            .arg(FLAG)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .process_group(0)
            .kill_on_drop(false)
            .spawn()
            .map_err(|source| JobProcessError::Spawn {
                path: exe.display().to_string(),
                source,
            })?;
        Ok(JobProcess { child })
    }

    pub fn pid(&self) -> u32 {
        self.child.id().unwrap_or(0)
    }

    /// Not handed a job after all: it reads an empty pipe and ends.
    pub fn abandon(mut self) {
        drop(self.child.stdin.take());
        tokio::spawn(async move {
            let _ = self.child.wait().await;
        });
    }

    /// Hand the job over, pass `signals` on while it runs, and read its
    /// report once it ends.
    pub async fn run(
        mut self,
        handoff: &Handoff,
        signals: &mut tokio::sync::mpsc::Receiver<i32>,
    ) -> Result<Report, JobProcessError> {
        let frame = handoff.frame();
        let mut stdin = self.child.stdin.take();
        let mut stdout = self
            .child
            .stdout
            .take()
            .ok_or(JobProcessError::Ended("no stdout".into()))?;
        let handed = match (&frame, stdin.as_mut()) {
            (Ok(f), Some(pipe)) => pipe.write_all(f).await.map_err(JobProcessError::Pipe),
            _ => Ok(()),
        };
        if let Err(e) = frame.and(handed) {
            // Closing its pipe ends the process.
            drop(stdin);
            let _ = self.child.wait().await;
            return Err(e);
        }
        let mut report = Vec::new();
        let mut bounded = (&mut stdout).take(MAX_REPORT);
        let reading = bounded.read_to_end(&mut report);
        tokio::pin!(reading);
        let read = loop {
            tokio::select! {
                r = &mut reading => break r,
                Some(sig) = signals.recv() => {
                    if let Some(pipe) = stdin.as_mut() {
                        if let Err(e) = pipe.write_all(&sig.to_be_bytes()).await {
                            tracing::warn!("signal {sig} not passed on to the job's process: {e}");
                        }
                    }
                }
            }
        };
        drop(stdin);
        let status = self.child.wait().await.map_err(JobProcessError::Pipe)?;
        read.map_err(JobProcessError::Pipe)?;
        if report.is_empty() {
            return Err(JobProcessError::Ended(status.to_string()));
        }
        let report: Report = rmp_serde::from_slice(&report)?;
        match report.not_run {
            Some(why) => Err(JobProcessError::NotRun(why)),
            None => Ok(report),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_handoff_frame_reads_back_and_an_oversized_one_is_refused() {
        let publ = Publication {
            v: brine_protocol::messages::PROTOCOL_VERSION,
            jid: "20261128000000000001".into(),
            created_ms: 1,
            nonce: serde_bytes::ByteArray::new([0; 16]),
            tgt: Value::Str("web1".into()),
            tgt_type: "glob".into(),
            fun: "state.apply".into(),
            arg: Vec::new(),
            kwarg: Map::default(),
            secrets: Default::default(),
            user: brine_protocol::messages::root_user(),
        };
        let h = Handoff {
            publ: publ.clone(),
            pillar_part: Some(Value::Str("p".into())),
            opts: Map::default(),
            grains: Map::default(),
            pillar: Map::default(),
            ret_addr: "127.0.0.1:4506".parse().unwrap_or_else(|e| panic!("{e}")),
            queue: "pending_returns".into(),
            master: PublicKeys::new([1; 32], [2; 32]),
            instance: Some([3; 16]),
            request_key: None,
            scheduled: None,
        };
        let frame = h.frame().unwrap_or_else(|e| panic!("{e}"));
        let back = Handoff::read(&mut frame.as_slice()).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(back.publ, publ);
        assert_eq!(back.instance, Some([3; 16]));
        let mut big = ((MAX_HANDOFF + 1) as u32).to_be_bytes().to_vec();
        big.extend_from_slice(&[0; 16]);
        assert!(matches!(
            Handoff::read(&mut big.as_slice()),
            Err(JobProcessError::TooLarge(_))
        ));
        // A cut-off frame is an error, not a hang or a panic.
        assert!(Handoff::read(&mut &frame[..frame.len() / 2]).is_err());
    }
}
