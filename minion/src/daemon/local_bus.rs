//! The minion's own event bus (Salt's minion IPC socket in `sock_dir`):
//! how `brine-call` on the host reaches the running daemon. Salt's
//! salt-call fires `manage_schedule` and `event.fire` events there and the
//! daemon acts on its running schedule; brine's `brine-call` hands the
//! daemon the whole call instead — the function and its arguments as
//! typed — for the functions that act on the running minion
//! ([`handled_by_daemon`]), and the daemon runs it as every identity it
//! serves for that minion ([`Members`]) and answers with the return.
//!
//! A Unix socket only the minion's user (or root) may open (0600 in a
//! 0700 `sock_dir`, the peer's credentials checked on accept). One request
//! a connection; at most [`MAX_PEERS`] connections at once, a frame at
//! most [`MAX_FRAME`] bytes, each read and the call itself timed. With no
//! daemon listening, [`ask`] says so and the function runs in `brine-call`
//! with nobody to take its change, as Salt's does.

use super::identity::Identity;
use brine_core::args::parse_input;
use brine_core::{Map, Value};
use brine_protocol::local::{self, FrameError};
use brine_runtime::modules::{self, CallError, Return};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;
use tokio::net::UnixStream;

/// Most connections served at once.
pub const MAX_PEERS: usize = 8;
/// Largest request or answer, encoded.
pub const MAX_FRAME: usize = 1 << 20;
/// How long a peer has to send its request.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(5);
/// How long the call may run, and brine-call waits for its answer (Salt's
/// salt-call waits 30 s for the daemon's completion event).
const CALL_TIMEOUT: Duration = Duration::from_secs(30);

/// A call handed to the daemon.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Ask {
    fun: String,
    /// The arguments as typed on brine-call's command line.
    argv: Vec<String>,
}

/// The daemon's answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
enum Answer {
    Return {
        value: Value,
        retcode: i32,
    },
    /// The function failed (Salt's CommandExecutionError) or was called
    /// wrongly (SaltInvocationError, bad arguments).
    Failed {
        message: String,
    },
    Invocation {
        message: String,
    },
    InvalidArguments {
        message: String,
    },
    /// Not a function the daemon takes here.
    Refused {
        message: String,
    },
}

impl Answer {
    fn of(r: Result<Return, CallError>) -> Answer {
        match r {
            Ok(r) => Answer::Return {
                value: r.value,
                retcode: r.retcode,
            },
            Err(CallError::Invocation(message)) => Answer::Invocation { message },
            Err(CallError::InvalidArguments(message)) => Answer::InvalidArguments { message },
            Err(e) => Answer::Failed {
                message: e.to_string(),
            },
        }
    }

    fn into_result(self) -> Result<Return, CallError> {
        match self {
            Answer::Return { value, retcode } => Ok(Return { value, retcode }),
            Answer::Invocation { message } => Err(CallError::Invocation(message)),
            Answer::InvalidArguments { message } => Err(CallError::InvalidArguments(message)),
            Answer::Failed { message } | Answer::Refused { message } => {
                Err(CallError::Failed(message))
            }
        }
    }
}

/// Whether `fun` acts on the running minion, so that `brine-call` hands
/// it to the daemon: the schedule's functions (all but building an item)
/// and firing on the minion's bus.
pub fn handled_by_daemon(fun: &str) -> bool {
    match fun.split_once('.') {
        Some(("schedule", f)) => f != "build_schedule_item",
        _ => fun == "event.fire",
    }
}

/// The socket's file name for minion `id` (Salt names its minion socket
/// after a digest of the id; ids may hold any character).
pub fn socket_name(id: &str) -> String {
    let digest = Sha256::digest(id.as_bytes());
    let hex: String = digest.iter().take(5).map(|b| format!("{b:02x}")).collect();
    format!("minion_event_{hex}.ipc")
}

/// The identities the bus runs calls as: every master session's identity
/// of this minion that is ready (Salt's event reaches each master's
/// minion instance).
#[derive(Clone, Default)]
pub struct Members(Arc<Mutex<Vec<Weak<Identity>>>>);

impl Members {
    /// `ident` answers from now on (until it is dropped).
    pub fn join(&self, ident: &Arc<Identity>) {
        let mut g = self.0.lock().unwrap_or_else(|p| p.into_inner());
        g.retain(|w| w.strong_count() > 0 && !std::ptr::eq(w.as_ptr(), Arc::as_ptr(ident)));
        g.push(Arc::downgrade(ident));
    }

    fn current(&self) -> Vec<Arc<Identity>> {
        let mut g = self.0.lock().unwrap_or_else(|p| p.into_inner());
        g.retain(|w| w.strong_count() > 0);
        g.iter().filter_map(Weak::upgrade).collect()
    }
}

/// Serve minion `id`'s bus in `sock_dir` until the task is dropped.
pub async fn serve(sock_dir: PathBuf, id: String, members: Members) {
    let (listener, path) = match local::bind_private(&sock_dir, &socket_name(&id)) {
        Ok(l) => l,
        Err(e) => {
            // The daemon serves its masters all the same; brine-call on
            // this host then runs these functions without it.
            tracing::error!("the minion's local bus: {e}");
            return;
        }
    };
    tracing::debug!("the minion's local bus listens on {}", path.display());
    let peers = Arc::new(tokio::sync::Semaphore::new(MAX_PEERS));
    loop {
        let stream = local::accept_trusted(&listener, "the minion's local bus").await;
        let Ok(permit) = peers.clone().try_acquire_owned() else {
            tracing::warn!("the minion's local bus: {MAX_PEERS} callers already; one more refused");
            continue;
        };
        let members = members.clone();
        tokio::spawn(async move {
            if let Err(e) = peer(stream, &members).await {
                tracing::debug!("the minion's local bus: {e}");
            }
            drop(permit);
        });
    }
}

async fn peer(mut stream: UnixStream, members: &Members) -> Result<(), FrameError> {
    use tokio::io::AsyncWriteExt;
    let Some(ask) = local::read_async::<Ask>(&mut stream, MAX_FRAME, REQUEST_TIMEOUT).await? else {
        return Ok(());
    };
    let answer = if !handled_by_daemon(&ask.fun) {
        Answer::Refused {
            message: format!("the minion's local bus does not run {}", ask.fun),
        }
    } else {
        run(members, ask).await
    };
    let mut frame = local::encode(&answer)?;
    if frame.len() - 4 > MAX_FRAME {
        frame = local::encode(&Answer::Failed {
            message: format!("the answer is over the {MAX_FRAME}-byte limit"),
        })?;
    }
    tokio::time::timeout(CALL_TIMEOUT, stream.write_all(&frame))
        .await
        .map_err(|_| FrameError::Timeout(CALL_TIMEOUT))??;
    Ok(())
}

/// Run the call as each member; the first one's answer.
async fn run(members: &Members, ask: Ask) -> Answer {
    let idents = members.current();
    if idents.is_empty() {
        return Answer::Failed {
            message: "the minion daemon has not joined its master yet".into(),
        };
    }
    let mut first = None;
    for ident in idents {
        let mut minion = (*ident.snapshot()).clone();
        let (fun, args) = (ask.fun.clone(), parse_input(&ask.argv));
        let call = tokio::task::spawn_blocking(move || modules::call(&mut minion, &fun, args));
        let answer = match tokio::time::timeout(CALL_TIMEOUT, call).await {
            Ok(Ok(r)) => Answer::of(r),
            Ok(Err(e)) => Answer::Failed {
                message: format!("The minion function caused an exception: {e}"),
            },
            Err(_) => Answer::Failed {
                message: format!("{} did not finish in {CALL_TIMEOUT:?}", ask.fun),
            },
        };
        first.get_or_insert(answer);
    }
    first.unwrap_or(Answer::Failed {
        message: "no identity answered".into(),
    })
}

/// Run `fun` as brine-call does: handed to the minion daemon running on
/// this host when it acts on the running minion and a daemon listens,
/// else here.
pub fn call(
    minion: &mut brine_runtime::context::Minion,
    fun: &str,
    args: brine_core::args::CallArgs,
    argv: &[String],
) -> Result<Return, CallError> {
    if handled_by_daemon(fun) {
        if let Some(answer) = ask(&minion.opts, fun, argv) {
            return answer;
        }
    }
    modules::call(minion, fun, args)
}

/// Hand `fun` to the minion daemon of `opts` running on this host: its
/// answer, or `None` when no daemon listens (the caller runs it itself).
pub fn ask(opts: &Map, fun: &str, argv: &[String]) -> Option<Result<Return, CallError>> {
    let id = opts.get("id").and_then(Value::as_str)?;
    let path = brine_compile::opts::sock_dir(opts).join(socket_name(id));
    ask_at(&path, fun, argv)
}

fn ask_at(path: &Path, fun: &str, argv: &[String]) -> Option<Result<Return, CallError>> {
    let mut stream = std::os::unix::net::UnixStream::connect(path).ok()?;
    let failed = |e: FrameError| {
        Some(Err(CallError::Failed(format!(
            "the minion daemon did not answer: {e}"
        ))))
    };
    let _ = stream.set_read_timeout(Some(CALL_TIMEOUT + Duration::from_secs(5)));
    let _ = stream.set_write_timeout(Some(REQUEST_TIMEOUT));
    let ask = Ask {
        fun: fun.to_string(),
        argv: argv.to_vec(),
    };
    if let Err(e) = local::write_blocking(&mut stream, &ask) {
        return failed(e);
    }
    match local::read_blocking::<Answer>(&mut stream, MAX_FRAME) {
        Ok(Some(a)) => Some(a.into_result()),
        Ok(None) => failed(FrameError::Io(std::io::ErrorKind::UnexpectedEof.into())),
        Err(e) => failed(e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_running_minions_functions_go_to_the_daemon() {
        assert!(handled_by_daemon("schedule.add"));
        assert!(handled_by_daemon("schedule.list"));
        assert!(handled_by_daemon("event.fire"));
        assert!(!handled_by_daemon("schedule.build_schedule_item"));
        assert!(!handled_by_daemon("event.send"));
        assert!(!handled_by_daemon("cmd.run"));
    }

    #[test]
    fn socket_names_are_short_and_differ_by_id() {
        let a = socket_name("web1");
        assert_eq!(a.len(), "minion_event_0123456789.ipc".len());
        assert_ne!(a, socket_name("web2"));
        assert_eq!(socket_name(&"x/".repeat(500)).len(), a.len());
    }

    #[test]
    fn no_daemon_is_no_answer() {
        let td = tempfile::tempdir().unwrap();
        assert!(ask_at(&td.path().join("none.ipc"), "schedule.list", &[]).is_none());
    }

    /// The message of an answer that is a failure.
    fn failure(r: Option<Result<Return, CallError>>) -> String {
        match r {
            Some(Err(CallError::Failed(m))) => m,
            other => panic!("{other:?}"),
        }
    }

    async fn serving(dir: &Path) -> (tokio::task::JoinHandle<()>, PathBuf) {
        let task = tokio::spawn(serve(dir.to_path_buf(), "web1".into(), Members::default()));
        let path = dir.join(socket_name("web1"));
        for _ in 0..200 {
            if path.exists() {
                break;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        (task, path)
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn callers_past_the_bound_are_refused_until_one_leaves() {
        let td = tempfile::tempdir().unwrap();
        let (task, path) = serving(&td.path().join("sock")).await;
        let p = path.clone();
        let (refused, again) = tokio::task::spawn_blocking(move || {
            // MAX_PEERS callers that say nothing hold every place.
            let idle: Vec<_> = (0..MAX_PEERS)
                .map(|_| std::os::unix::net::UnixStream::connect(&p).unwrap())
                .collect();
            std::thread::sleep(Duration::from_millis(200));
            let refused = ask_at(&p, "schedule.list", &[]);
            drop(idle);
            std::thread::sleep(Duration::from_millis(200));
            (refused, ask_at(&p, "schedule.list", &[]))
        })
        .await
        .unwrap();
        assert!(failure(refused).contains("did not answer"));
        assert!(failure(again).contains("has not joined"));
        task.abort();
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_bus_with_no_member_yet_says_so_and_refuses_other_functions() {
        let td = tempfile::tempdir().unwrap();
        let (task, path) = serving(&td.path().join("sock")).await;
        let p = path.clone();
        let (listed, other) = tokio::task::spawn_blocking(move || {
            (
                ask_at(&p, "schedule.list", &[]),
                ask_at(&p, "cmd.run", &["id".into()]),
            )
        })
        .await
        .unwrap();
        assert!(failure(listed).contains("has not joined"));
        assert!(failure(other).contains("does not run cmd.run"));
        task.abort();
    }
}
