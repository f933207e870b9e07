//! Returns as they land: a counter that a CLI's [`GetReturns`] waits on
//! when it has seen everything stored so far, so the CLI is told of a
//! return when it is stored instead of polling for it.
//!
//! A waiting request holds one of the master's `worker_threads` slots, and
//! returns are stored by the same workers: at most half of them (none with
//! one worker) may wait at once, and each wait is bounded, so waiting CLIs
//! can never starve the returns they wait for.
//!
//! [`GetReturns`]: brine_protocol::messages::GetReturns

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex};
use std::time::{Duration, Instant};

#[derive(Debug)]
pub struct Arrivals {
    /// How many returns were stored since the master started.
    stored: Mutex<u64>,
    landed: Condvar,
    waiting: AtomicUsize,
    max_waiting: usize,
}

impl Arrivals {
    /// For a master handling `workers` requests at once.
    pub fn new(workers: usize) -> Arrivals {
        Arrivals {
            stored: Mutex::new(0),
            landed: Condvar::new(),
            waiting: AtomicUsize::new(0),
            max_waiting: workers / 2,
        }
    }

    /// The count now, to wait past.
    pub fn seen(&self) -> u64 {
        *self.stored.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// A return was stored: wake whoever waits.
    pub fn landed(&self) {
        let mut n = self.stored.lock().unwrap_or_else(|p| p.into_inner());
        *n = n.wrapping_add(1);
        self.landed.notify_all();
    }

    /// Wait until a return is stored after `seen` was read, or `timeout`.
    /// False at once when too many requests wait already.
    pub fn wait_past(&self, seen: u64, timeout: Duration) -> bool {
        let slot = self
            .waiting
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |w| {
                (w < self.max_waiting).then_some(w + 1)
            });
        if slot.is_err() {
            return false;
        }
        let deadline = Instant::now() + timeout;
        let mut n = self.stored.lock().unwrap_or_else(|p| p.into_inner());
        while *n == seen {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                break;
            }
            n = match self.landed.wait_timeout(n, left) {
                Ok((g, _)) => g,
                Err(p) => p.into_inner().0,
            };
        }
        let moved = *n != seen;
        drop(n);
        self.waiting.fetch_sub(1, Ordering::SeqCst);
        moved
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn a_waiter_wakes_when_a_return_lands() {
        let a = Arc::new(Arrivals::new(4));
        let seen = a.seen();
        let b = a.clone();
        let t = std::thread::spawn(move || b.wait_past(seen, Duration::from_secs(10)));
        std::thread::sleep(Duration::from_millis(50));
        a.landed();
        assert!(t.join().unwrap());
        // Something landed since: no wait.
        assert!(a.wait_past(seen, Duration::from_secs(10)));
    }

    #[test]
    fn waits_are_bounded_in_time_and_number() {
        let a = Arc::new(Arrivals::new(2));
        let seen = a.seen();
        let start = Instant::now();
        assert!(!a.wait_past(seen, Duration::from_millis(50)));
        assert!(start.elapsed() >= Duration::from_millis(50));
        // One of two workers may wait; a second waiter is refused at once.
        let b = a.clone();
        let t = std::thread::spawn(move || b.wait_past(seen, Duration::from_secs(10)));
        std::thread::sleep(Duration::from_millis(50));
        let start = Instant::now();
        assert!(!a.wait_past(seen, Duration::from_secs(10)));
        assert!(start.elapsed() < Duration::from_secs(1));
        a.landed();
        assert!(t.join().unwrap());
        // A single worker never waits.
        assert!(!Arrivals::new(1).wait_past(seen, Duration::from_secs(10)));
    }
}
