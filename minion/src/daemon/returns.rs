//! Job returns: sent, and written to `cachedir/pending_returns/` unless the
//! master acknowledges them at once (`ReturnAck`: stored in its job cache;
//! see [`deliver`]); a queued return is deleted once acknowledged. What is
//! not acknowledged is resent, with back-off, until it is — across master
//! restarts and minion restarts. With several masters
//! served at once (`master_type: str`), a return whose master cannot be
//! reached is offered to the others ([`OtherMasters`]): masters that share
//! a job cache take it.

use super::{Identity, MasterClient, RequestError};
use brine_protocol::messages::{
    ErrorCode, JobReturn, PackedValue, ReplyBody, RequestBody, MAX_MESSAGE_BYTES,
};
use std::collections::HashSet;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::Notify;

/// Folder under `cachedir` holding returns not yet acknowledged.
pub const PENDING_DIR: &str = "pending_returns";
const SUFFIX: &str = ".ret";
/// How long the master may take to store a return.
const RETURN_TIMEOUT: Duration = Duration::from_secs(30);
const RESEND_FIRST: Duration = Duration::from_secs(1);
const RESEND_MAX: Duration = Duration::from_secs(10);

#[derive(Debug, thiserror::Error)]
pub enum ReturnError {
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path}: cannot encode the return: {source}")]
    Encode {
        path: PathBuf,
        source: rmp_serde::encode::Error,
    },
    #[error("{path}: not a readable return: {source}")]
    Decode {
        path: PathBuf,
        source: rmp_serde::decode::Error,
    },
}

/// The return queues of the process by folder, so that the sessions a
/// failover minion opens one after another share one queue (and its wake-up)
/// per identity: a job started under one master queues its return where
/// the next master's resender looks.
#[derive(Default)]
pub struct Queues(Mutex<std::collections::HashMap<PathBuf, Arc<ReturnQueue>>>);

impl Queues {
    /// The queue in `cachedir/<folder>`, made on first use.
    pub fn get(&self, cachedir: &Path, folder: &str) -> Arc<ReturnQueue> {
        let dir = cachedir.join(folder);
        let mut all = self.0.lock().unwrap_or_else(|p| p.into_inner());
        all.entry(dir)
            .or_insert_with(|| Arc::new(ReturnQueue::new(cachedir, folder)))
            .clone()
    }
}

/// In `master_type: str` with several masters, every identity of the
/// process at every master, by minion id: where a return goes when the
/// master that published its job cannot be reached. The publishing
/// master's queue keeps the return until one of them acknowledges it (a
/// master with a job cache of its own refuses it as not published there,
/// and it waits on).
#[derive(Default)]
pub struct OtherMasters(Mutex<std::collections::HashMap<String, Vec<Arc<Identity>>>>);

impl OtherMasters {
    /// Add `ident` (one master's session of one minion id).
    pub fn add(&self, ident: &Arc<Identity>) {
        let mut all = self.0.lock().unwrap_or_else(|p| p.into_inner());
        all.entry(ident.id().to_string())
            .or_default()
            .push(ident.clone());
    }

    /// `ident`'s minion at the other masters, authenticated there now.
    fn of(&self, ident: &Identity) -> Vec<Arc<Identity>> {
        let all = self.0.lock().unwrap_or_else(|p| p.into_inner());
        all.get(ident.id()).map_or_else(Vec::new, |list| {
            list.iter()
                .filter(|o| {
                    !std::ptr::eq(o.as_ref(), ident) && o.standing() == super::Standing::Ready
                })
                .cloned()
                .collect()
        })
    }
}

/// An identity's returns waiting for the master.
pub struct ReturnQueue {
    dir: PathBuf,
    wake: Notify,
    /// Files being sent by [`deliver`] right now (the resender skips them).
    in_flight: Mutex<HashSet<PathBuf>>,
}

/// A file name for a jid: the jid itself when it is a plain token (Salt's
/// jids are 20 digits), else a digest of it.
fn file_name(jid: &str) -> String {
    let plain = !jid.is_empty()
        && jid.len() <= 128
        && !jid.starts_with('.')
        && jid
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'));
    if plain {
        format!("{jid}{SUFFIX}")
    } else {
        use sha2::Digest;
        let d = sha2::Sha256::digest(jid.as_bytes());
        let hex: String = d.iter().map(|b| format!("{b:02x}")).collect();
        format!("h{hex}{SUFFIX}")
    }
}

impl ReturnQueue {
    /// The queue in `cachedir/<folder>` ([`PENDING_DIR`] unless several
    /// masters each keep their own).
    pub fn new(cachedir: &Path, folder: &str) -> ReturnQueue {
        ReturnQueue {
            dir: cachedir.join(folder),
            wake: Notify::new(),
            in_flight: Mutex::new(HashSet::new()),
        }
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Ask the resender to look at the queue now.
    pub fn wake(&self) {
        self.wake.notify_one();
    }

    fn io(&self, path: &Path) -> impl FnOnce(std::io::Error) -> ReturnError {
        let path = path.to_path_buf();
        move |source| ReturnError::Io { path, source }
    }

    /// Write `ret` to the queue (atomically, mode 0600: returns may hold
    /// secrets). Returns the file's path.
    pub fn persist(&self, ret: &JobReturn) -> Result<PathBuf, ReturnError> {
        let path = self.dir.join(file_name(&ret.jid));
        let bytes = rmp_serde::to_vec_named(ret).map_err(|source| ReturnError::Encode {
            path: path.clone(),
            source,
        })?;
        if !self.dir.is_dir() {
            let mut b = std::fs::DirBuilder::new();
            b.recursive(true);
            #[cfg(unix)]
            {
                use std::os::unix::fs::DirBuilderExt;
                b.mode(0o700);
            }
            b.create(&self.dir).map_err(self.io(&self.dir))?;
        }
        // tempfile creates 0600 files; the rename makes the write atomic.
        let mut tmp = tempfile::Builder::new()
            .prefix(".ret")
            .tempfile_in(&self.dir)
            .map_err(self.io(&self.dir))?;
        tmp.write_all(&bytes).map_err(self.io(&path))?;
        tmp.persist(&path).map_err(|e| ReturnError::Io {
            path: path.clone(),
            source: e.error,
        })?;
        Ok(path)
    }

    /// The queued returns, oldest jid first. Unreadable files are moved
    /// aside (`*.bad`) so they are not retried forever.
    pub fn pending(&self) -> Vec<(PathBuf, JobReturn)> {
        let Ok(rd) = std::fs::read_dir(&self.dir) else {
            return Vec::new();
        };
        let mut paths: Vec<PathBuf> = rd
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| {
                p.file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(|n| n.ends_with(SUFFIX) && !n.starts_with('.'))
            })
            .collect();
        paths.sort();
        let mut out = Vec::new();
        for p in paths {
            match self.read(&p) {
                Ok(r) => out.push((p, r)),
                Err(e) => {
                    tracing::error!("{e}; moved aside");
                    let _ = std::fs::rename(&p, p.with_extension("bad"));
                }
            }
        }
        out
    }

    fn read(&self, path: &Path) -> Result<JobReturn, ReturnError> {
        let bytes = std::fs::read(path).map_err(self.io(path))?;
        rmp_serde::from_slice(&bytes).map_err(|source| ReturnError::Decode {
            path: path.to_path_buf(),
            source,
        })
    }

    /// The master has it: forget it.
    pub fn remove(&self, path: &Path) {
        if let Err(e) = std::fs::remove_file(path) {
            if e.kind() != std::io::ErrorKind::NotFound {
                tracing::warn!("{}: cannot remove a delivered return: {e}", path.display());
            }
        }
    }

    fn set_in_flight(&self, path: &Path, on: bool) {
        let mut g = match self.in_flight.lock() {
            Ok(g) => g,
            Err(p) => p.into_inner(),
        };
        if on {
            g.insert(path.to_path_buf());
        } else {
            g.remove(path);
        }
    }

    fn is_in_flight(&self, path: &Path) -> bool {
        match self.in_flight.lock() {
            Ok(g) => g.contains(path),
            Err(p) => p.into_inner().contains(path),
        }
    }
}

/// Room kept for the envelope around a return (request, seal, signature).
const ENVELOPE: usize = 64 * 1024;

/// A return too large for one message cannot ever be sent: the master gets
/// an error in its place (retcode 1) rather than nothing.
pub fn fit(ret: JobReturn) -> JobReturn {
    let size = rmp_serde::to_vec_named(&ret).map_or(usize::MAX, |b| b.len());
    let max = MAX_MESSAGE_BYTES - ENVELOPE;
    if size <= max {
        return ret;
    }
    tracing::error!(
        "the return of job {} ({}) is {size} bytes, over the {max}-byte message limit; \
         an error is sent instead",
        ret.jid,
        ret.fun
    );
    JobReturn {
        ret: PackedValue::text(&format!(
            "ERROR: the return of {} is {size} bytes, larger than the {max} bytes a message \
             to the master may hold",
            ret.fun
        )),
        retcode: 1,
        success: false,
        out: Some("nested".into()),
        fun_args: Vec::new(),
        ..ret
    }
}

/// Send one return and wait for the master's acknowledgement.
pub async fn send(client: &MasterClient, ret: &JobReturn) -> Result<(), RequestError> {
    let (_, body) = client
        .request_sealed(RequestBody::Return(ret.clone()), RETURN_TIMEOUT)
        .await?;
    match body {
        ReplyBody::ReturnAck => Ok(()),
        _ => Err(RequestError::Unexpected { what: "return" }),
    }
}

/// Whether a failed send should be given up (the master will never take
/// this return) rather than retried.
fn give_up(e: &RequestError) -> bool {
    match e {
        // TooLarge: the master stored an error in the return's place.
        RequestError::Refused { code, .. } => {
            matches!(code, ErrorCode::BadRequest | ErrorCode::TooLarge)
        }
        RequestError::Unexpected { .. } | RequestError::Wire(_) => true,
        RequestError::Link(l) => !l.is_transient(),
        _ => false,
    }
}

/// React to a refusal that means our key is no longer accepted.
fn maybe_reauth(ident: &Identity, e: &RequestError) {
    if let RequestError::Refused {
        code: ErrorCode::NotAccepted | ErrorCode::Unauthorized,
        ..
    } = e
    {
        ident.reauth();
    }
}

/// How long a return's first send may wait for the master's
/// acknowledgement before the return is written to the queue as well.
const QUEUE_AFTER: Duration = Duration::from_millis(250);

/// Send `ret` and see it acknowledged; when the master has not done so
/// within [`QUEUE_AFTER`], or refused it for now, write it to the queue
/// for the resender. Most returns are acknowledged in milliseconds and
/// never touch the disk: a file written and deleted per return was two
/// fifths of a thousand-minion swarm's CPU (the file system's inode work).
///
/// `hold` (the job's entry in the running table) is dropped once the
/// return is acknowledged or queued: a job counts as running until then,
/// so a stopping minion waits for its return. A process killed outright
/// in those milliseconds loses it, as one killed while the job ran does.
pub async fn deliver<H>(ident: &Identity, ret: JobReturn, hold: H) {
    let ret = fit(ret);
    let q = &ident.returns;
    let sending = send(&ident.client, &ret);
    tokio::pin!(sending);
    let (path, result) = tokio::select! {
        r = &mut sending => {
            let settled = r.is_ok() || r.as_ref().is_err_and(give_up);
            (if settled { None } else { persist(ident, &ret) }, r)
        }
        () = tokio::time::sleep(QUEUE_AFTER) => {
            // Slow: queued now, still waiting for this send's answer.
            let path = persist(ident, &ret);
            if let Some(p) = &path {
                q.set_in_flight(p, true);
            }
            drop(hold);
            let r = sending.await;
            if let Some(p) = &path {
                q.set_in_flight(p, false);
            }
            (path, r)
        }
    };
    match result {
        Ok(()) => {
            if let Some(p) = &path {
                q.remove(p);
            }
        }
        Err(e) if give_up(&e) => {
            tracing::error!(
                "{}: the master will not take the return of job {}: {e}; dropped",
                ident.id(),
                ret.jid
            );
            if let Some(p) = &path {
                q.remove(p);
            }
        }
        Err(e) => {
            tracing::info!(
                "{}: return of job {} not delivered yet ({e}); it will be resent",
                ident.id(),
                ret.jid
            );
            maybe_reauth(ident, &e);
            q.wake();
        }
    }
}

/// Write `ret` to the queue; once this returns, a stop of the minion no
/// longer loses it. `None`: the disk refused it (logged).
fn persist(ident: &Identity, ret: &JobReturn) -> Option<PathBuf> {
    match ident.returns.persist(ret) {
        Ok(p) => Some(p),
        Err(e) => {
            tracing::error!("cannot queue the return of job {}: {e}", ret.jid);
            None
        }
    }
}

/// Whether `e` says the master could not be reached (rather than that it
/// answered): then another master may take the return.
fn unreachable(e: &RequestError) -> bool {
    matches!(e, RequestError::Link(l) if l.is_transient())
}

/// Offer the returns in `items` (this queue's master cannot be reached) to
/// the minion's other masters; each one acknowledged leaves the queue.
async fn hand_over(ident: &Identity, others: &OtherMasters, items: &[(PathBuf, JobReturn)]) {
    let others = others.of(ident);
    if others.is_empty() {
        return;
    }
    for (path, ret) in items {
        for other in &others {
            match send(&other.client, ret).await {
                Ok(()) => {
                    tracing::info!(
                        "{}: the master at {} cannot be reached; the master at {} took the \
                         return of job {}",
                        ident.id(),
                        ident.client.link.addr(),
                        other.client.link.addr(),
                        ret.jid
                    );
                    ident.returns.remove(path);
                    break;
                }
                Err(e) => tracing::debug!(
                    "{}: the master at {} did not take the return of job {}: {e}",
                    ident.id(),
                    other.client.link.addr(),
                    ret.jid
                ),
            }
        }
    }
}

/// Resend queued returns until the queue is empty, backing off while the
/// master does not take them (offering them to `others` while it cannot be
/// reached); then sleep until woken.
pub async fn resend_loop(ident: Arc<Identity>, others: Arc<OtherMasters>) {
    let q = &ident.returns;
    let mut delay = RESEND_FIRST;
    loop {
        let items: Vec<_> = q
            .pending()
            .into_iter()
            .filter(|(p, _)| !q.is_in_flight(p))
            .collect();
        if items.is_empty() {
            q.wake.notified().await;
            continue;
        }
        let mut stalled = false;
        for (i, (path, ret)) in items.iter().enumerate() {
            match send(&ident.client, ret).await {
                Ok(()) => {
                    tracing::info!("{}: resent the return of job {}", ident.id(), ret.jid);
                    q.remove(path);
                }
                Err(e) if give_up(&e) => {
                    tracing::error!(
                        "{}: the master will not take the return of job {}: {e}; dropped",
                        ident.id(),
                        ret.jid
                    );
                    q.remove(path);
                }
                Err(e) => {
                    tracing::debug!("{}: resend of job {} failed: {e}", ident.id(), ret.jid);
                    maybe_reauth(&ident, &e);
                    if unreachable(&e) {
                        hand_over(&ident, &others, &items[i..]).await;
                    }
                    stalled = true;
                    break;
                }
            }
        }
        if stalled {
            tokio::select! {
                _ = tokio::time::sleep(delay) => {}
                _ = q.wake.notified() => {}
            }
            delay = (delay * 2).min(RESEND_MAX);
        } else {
            delay = RESEND_FIRST;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::daemon::link::Link;
    use crate::daemon::testutil::{FakeMaster, Handler};
    use brine_core::Value;
    use brine_protocol::messages::Reply;
    use std::sync::atomic::{AtomicUsize, Ordering};

    fn ret(jid: &str) -> JobReturn {
        JobReturn {
            jid: jid.into(),
            id: "web1".into(),
            fun: "test.ping".into(),
            fun_args: vec![],
            ret: PackedValue::pack(&Value::Bool(true)).unwrap(),
            retcode: 0,
            success: true,
            out: None,
        }
    }

    #[test]
    fn an_oversized_return_becomes_an_error_that_fits() {
        let small = ret("1");
        assert_eq!(fit(small.clone()), small);
        let mut big = ret("2");
        big.ret = PackedValue::text(&"x".repeat(MAX_MESSAGE_BYTES));
        let got = fit(big);
        assert_eq!((got.retcode, got.success), (1, false));
        assert!(got.ret.unpack().as_str().unwrap().contains("larger than"));
        assert_eq!(got.jid, "2");
    }

    #[test]
    fn queue_survives_on_disk_in_jid_order_with_private_files() {
        let td = tempfile::tempdir().unwrap();
        let q = ReturnQueue::new(td.path(), PENDING_DIR);
        assert!(q.pending().is_empty());
        q.persist(&ret("20250101000000000002")).unwrap();
        let p1 = q.persist(&ret("20250101000000000001")).unwrap();
        // A jid that is not a plain token still gets a safe file name.
        let odd = q.persist(&ret("../../etc/passwd")).unwrap();
        assert_eq!(odd.parent(), Some(q.dir()));
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&p1).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);

        // A new queue over the same folder (a minion restart) sees them all.
        let again = ReturnQueue::new(td.path(), PENDING_DIR);
        let jids: Vec<String> = again.pending().into_iter().map(|(_, r)| r.jid).collect();
        assert_eq!(
            jids,
            [
                "20250101000000000001",
                "20250101000000000002",
                "../../etc/passwd"
            ]
        );
        again.remove(&p1);
        assert_eq!(again.pending().len(), 2);

        // A corrupt file is moved aside, not retried forever.
        std::fs::write(q.dir().join("junk.ret"), b"\xc1\xc1").unwrap();
        assert_eq!(again.pending().len(), 2);
        assert!(q.dir().join("junk.bad").exists());
    }

    /// A fake master that stores (and acknowledges) returns only when
    /// `accepting` is set, else answers with an internal error.
    fn acking(accepting: Arc<AtomicUsize>, stored: Arc<Mutex<Vec<String>>>) -> Handler {
        Arc::new(move |_, req, _| {
            let RequestBody::Return(r) = &req.msg else {
                return None;
            };
            if accepting.load(Ordering::SeqCst) == 0 {
                return Some(Reply::to(
                    req,
                    ReplyBody::Error(brine_protocol::messages::ErrorReply {
                        code: ErrorCode::Internal,
                        message: "job cache unavailable".into(),
                    }),
                ));
            }
            stored.lock().unwrap().push(r.jid.clone());
            Some(Reply::to(req, ReplyBody::ReturnAck))
        })
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn returns_survive_a_master_restart_and_are_resent_until_stored() {
        let accepting = Arc::new(AtomicUsize::new(1));
        let stored = Arc::new(Mutex::new(Vec::new()));
        let fake = FakeMaster::start(acking(accepting.clone(), stored.clone())).await;
        let link = Link::start(fake.addr, Default::default());
        let td = tempfile::tempdir().unwrap();
        let base = brine_runtime::context::Minion {
            id: "web1".into(),
            opts: Default::default(),
            grains: Default::default(),
            pillar: Default::default(),
            source: Default::default(),
            functions: Default::default(),
            jobs: Default::default(),
        };
        let ident = crate::daemon::make_identity(
            &link,
            &base,
            "web1",
            &td.path().join("pki"),
            &td.path().join("cache"),
            &Default::default(),
            PENDING_DIR,
        )
        .unwrap();
        fake.accept("web1", &ident.client.key);
        *ident.client.master.write().unwrap() = Some(fake.key.public());
        tokio::spawn(resend_loop(ident.clone(), Default::default()));

        // Delivered at once: acknowledged and gone from the queue.
        deliver(&ident, ret("20250101000000000001"), ()).await;
        assert!(ident.returns.pending().is_empty());

        // The master goes away: the return is kept on disk.
        let (addr, key, registry) = fake.stop();
        tokio::time::sleep(Duration::from_millis(300)).await;
        tokio::time::timeout(
            Duration::from_secs(20),
            deliver(&ident, ret("20250101000000000002"), ()),
        )
        .await
        .unwrap();
        assert_eq!(ident.returns.pending().len(), 1);

        // It comes back (same address and key) but cannot store returns
        // yet: still queued.
        accepting.store(0, Ordering::SeqCst);
        let back = FakeMaster::start_at(
            addr,
            key,
            registry,
            acking(accepting.clone(), stored.clone()),
        )
        .await;
        tokio::time::sleep(Duration::from_millis(1500)).await;
        assert_eq!(ident.returns.pending().len(), 1);
        // Once it stores them, the resender delivers the queued return.
        accepting.store(1, Ordering::SeqCst);
        let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
        while !ident.returns.pending().is_empty() {
            assert!(tokio::time::Instant::now() < deadline, "never resent");
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        assert_eq!(
            stored.lock().unwrap().as_slice(),
            ["20250101000000000001", "20250101000000000002"]
        );
        drop(back);
    }
}
