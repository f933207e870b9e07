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
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

pub use super::queue::{Queues, ReturnError, ReturnQueue, PENDING_DIR};
/// How long the master may take to store a return.
const RETURN_TIMEOUT: Duration = Duration::from_secs(30);
const RESEND_FIRST: Duration = Duration::from_secs(1);
const RESEND_MAX: Duration = Duration::from_secs(10);
/// How often an empty queue's folder is read again unasked.
const IDLE_LOOK: Duration = Duration::from_secs(30);

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

/// Room kept for the envelope around a return (request, seal, signature).
const ENVELOPE: usize = 64 * 1024;

/// A return too large for one message cannot ever be sent: the master gets
/// an error in its place (retcode 1) rather than nothing.
pub fn fit(ret: JobReturn) -> JobReturn {
    let size = encoded_size(&ret).unwrap_or(usize::MAX);
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

/// The bytes `ret` encodes to, counted as they are written (a fleet
/// highstate's return is hundreds of kilobytes: encoding it into a buffer
/// only to measure it was a sixth of sending it).
fn encoded_size(ret: &JobReturn) -> Option<usize> {
    struct Count(usize);
    impl std::io::Write for Count {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0 += buf.len();
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut count = Count(0);
    rmp_serde::encode::write_named(&mut count, ret).ok()?;
    Some(count.0)
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

/// What became of a return handed over once ([`send_or_queue`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Handed {
    /// The master acknowledged it.
    Sent,
    /// It waits in the queue for a resender (the daemon's).
    Queued,
    /// The master will never take it (logged).
    Dropped,
}

/// Send `ret` once, and queue it when the master does not take it now:
/// for a process that ends after this (a job's own process), leaving the
/// resending to the daemon.
pub async fn send_or_queue(ident: &Identity, ret: JobReturn) -> Handed {
    let ret = fit(ret);
    match send(&ident.client, &ret).await {
        Ok(()) => Handed::Sent,
        Err(e) if give_up(&e) => {
            tracing::error!(
                "{}: the master will not take the return of job {}: {e}; dropped",
                ident.id(),
                ret.jid
            );
            Handed::Dropped
        }
        Err(e) => {
            tracing::info!(
                "{}: return of job {} not delivered yet ({e}); queued for the daemon",
                ident.id(),
                ret.jid
            );
            match persist(ident, &ret) {
                Some(_) => Handed::Queued,
                None => Handed::Dropped,
            }
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
            // Woken when a return is queued here; the folder is looked at
            // now and then besides, for returns queued by job processes
            // of an earlier run of the daemon that ended after this one
            // started.
            let _ = tokio::time::timeout(IDLE_LOOK, q.wake.notified()).await;
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
            schedule: None,
            called: false,
            user: None,
        }
    }

    #[test]
    fn an_oversized_return_becomes_an_error_that_fits() {
        let small = ret("1");
        assert_eq!(fit(small.clone()), small);
        assert_eq!(
            encoded_size(&small),
            Some(rmp_serde::to_vec_named(&small).unwrap().len())
        );
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
            registry: None,
            schedule: None,
            master: Default::default(),
            key_finger: None,
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
