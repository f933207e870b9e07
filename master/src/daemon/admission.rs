//! Admission of compiles: pillar and state compiles (and Hiera lookups) run
//! at most `worker_threads` at a time, a few more wait for a turn, and the
//! rest are told [`ErrorCode::Busy`] at once (the minion asks again after a
//! random pause).
//!
//! Without it a fleet starting at once (10,000 minions each asking for its
//! pillar) filled every request slot with compiles: authentications,
//! returns and the CLI waited behind minutes of them, timed out and were
//! sent again, which made more work. With it a compile waits only for
//! compiles, cheap requests keep their own slots ([`request_slots`]), and
//! what waits inside the master is bounded.
//!
//! [`ErrorCode::Busy`]: brine_protocol::messages::ErrorCode::Busy

use std::sync::{Condvar, Mutex};
use std::time::Duration;

/// Compiles that may wait for a worker inside the master. Enough that a
/// worker finishing always finds the next one ready while minions told
/// Busy come back.
pub const MAX_WAITING: usize = 32;

/// How long a compile waits for a worker before it is told Busy after all
/// (a long compile ahead of it must not hold a request slot forever).
const MAX_WAIT: Duration = Duration::from_secs(30);

/// Request slots for `workers`: the compiles running and waiting, and as
/// many again for cheap requests, which then never wait behind compiles.
pub fn request_slots(workers: usize) -> usize {
    workers.saturating_mul(2).saturating_add(MAX_WAITING)
}

/// Turns for compiles (see the module docs).
#[derive(Debug)]
pub struct CompileGate {
    workers: usize,
    state: Mutex<Turns>,
    freed: Condvar,
}

#[derive(Debug, Default)]
struct Turns {
    running: usize,
    waiting: usize,
}

/// A compile's turn; the next waiting compile goes when it is dropped.
#[must_use]
pub struct Turn<'a>(&'a CompileGate);

impl Drop for Turn<'_> {
    fn drop(&mut self) {
        let mut t = self.0.lock();
        t.running = t.running.saturating_sub(1);
        drop(t);
        self.0.freed.notify_one();
    }
}

/// No turn: too many compiles are running and waiting.
#[derive(Debug, PartialEq, Eq)]
pub struct Busy;

impl CompileGate {
    pub fn new(workers: usize) -> CompileGate {
        CompileGate {
            workers: workers.max(1),
            state: Mutex::new(Turns::default()),
            freed: Condvar::new(),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Turns> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// A turn to compile: at once when a worker is free, after waiting
    /// (on this blocking thread) when fewer than [`MAX_WAITING`] wait,
    /// else [`Busy`].
    pub fn enter(&self) -> Result<Turn<'_>, Busy> {
        let mut t = self.lock();
        if t.running < self.workers {
            t.running += 1;
            return Ok(Turn(self));
        }
        if t.waiting >= MAX_WAITING {
            return Err(Busy);
        }
        t.waiting += 1;
        let (mut t, timeout) = self
            .freed
            .wait_timeout_while(t, MAX_WAIT, |t| t.running >= self.workers)
            .unwrap_or_else(|p| p.into_inner());
        t.waiting -= 1;
        if timeout.timed_out() && t.running >= self.workers {
            return Err(Busy);
        }
        t.running += 1;
        Ok(Turn(self))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn workers_run_some_wait_and_the_rest_are_busy() {
        let gate = Arc::new(CompileGate::new(2));
        let a = gate.enter().unwrap();
        let b = gate.enter().unwrap();
        // MAX_WAITING threads wait for a turn...
        let (started_tx, started_rx) = std::sync::mpsc::channel();
        let waiters: Vec<_> = (0..MAX_WAITING)
            .map(|_| {
                let gate = Arc::clone(&gate);
                let started = started_tx.clone();
                std::thread::spawn(move || {
                    let _ = started.send(());
                    gate.enter().map(drop).is_ok()
                })
            })
            .collect();
        for _ in 0..MAX_WAITING {
            started_rx.recv().unwrap();
        }
        // ...(all of them counted as waiting)...
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        while gate.lock().waiting < MAX_WAITING {
            assert!(std::time::Instant::now() < deadline, "waiters never queued");
            std::thread::sleep(Duration::from_millis(5));
        }
        // ...and one more is told Busy at once.
        assert!(matches!(gate.enter(), Err(Busy)));
        drop(a);
        drop(b);
        for w in waiters {
            assert!(w.join().unwrap(), "a waiting compile got its turn");
        }
        let t = gate.lock();
        assert_eq!((t.running, t.waiting), (0, 0));
    }
}
