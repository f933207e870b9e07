//! Admission of compiles: pillar and state compiles (and Hiera lookups) run
//! at most `worker_threads` at a time; the rest wait for a turn without
//! holding a thread, up to [`MAX_WAITING`] of them and [`MAX_WAITING_BYTES`]
//! of their frames; past that a minion is told [`ErrorCode::Busy`] at once
//! and asks again after a random pause.
//!
//! Everything else (authentication, returns, file requests, the CLI) has
//! request slots of its own and never waits behind compiles. Before this, a
//! fleet starting at once (10,000 minions each asking for its pillar)
//! filled every slot with compiles: authentications and returns waited
//! minutes, timed out and were sent again, which made more work.
//!
//! [`ErrorCode::Busy`]: brine_protocol::messages::ErrorCode::Busy

use std::sync::Arc;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// Compiles that may wait for a turn: a thousand-minion `state.apply`
/// waits whole, as it would in Salt's request queue.
pub const MAX_WAITING: usize = 4096;

/// The most bytes of waiting compiles' frames (a state compile carries the
/// minion's pillar).
pub const MAX_WAITING_BYTES: usize = 256 << 20;

/// Turns for compiles.
#[derive(Debug)]
pub struct Admission {
    workers: usize,
    running: Arc<Semaphore>,
    waiting: Arc<Semaphore>,
    /// In KiB, so that a semaphore's permits can count them.
    waiting_kib: Arc<Semaphore>,
}

/// A compile's turn to run; the next waiting one goes when it is dropped.
#[must_use]
#[derive(Debug)]
pub struct Turn(#[allow(dead_code)] OwnedSemaphorePermit);

/// No room: too many compiles wait already.
#[derive(Debug, PartialEq, Eq)]
pub struct Busy;

impl Admission {
    pub fn new(workers: usize) -> Admission {
        Admission {
            workers: workers.max(1),
            running: Arc::new(Semaphore::new(workers.max(1))),
            waiting: Arc::new(Semaphore::new(MAX_WAITING)),
            waiting_kib: Arc::new(Semaphore::new(MAX_WAITING_BYTES >> 10)),
        }
    }

    /// Wait for a turn for a compile whose frame is `bytes` long, or
    /// [`Busy`] at once when the waiting room is full.
    pub async fn turn(&self, bytes: usize) -> Result<Turn, Busy> {
        let kib = u32::try_from(bytes.div_ceil(1024).max(1)).unwrap_or(u32::MAX);
        let seat = Arc::clone(&self.waiting)
            .try_acquire_owned()
            .map_err(|_| Busy)?;
        let room = Arc::clone(&self.waiting_kib)
            .try_acquire_many_owned(kib)
            .map_err(|_| Busy)?;
        let turn = Arc::clone(&self.running)
            .acquire_owned()
            .await
            .map_err(|_| Busy)?;
        drop((seat, room));
        Ok(Turn(turn))
    }

    /// Wait until no compile runs, and let none start after (shutdown).
    pub async fn drain(&self) {
        let workers = u32::try_from(self.workers).unwrap_or(u32::MAX);
        if let Ok(p) = self.running.acquire_many(workers).await {
            p.forget();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn workers_run_the_rest_wait_and_past_the_room_busy() {
        let a = Arc::new(Admission::new(2));
        let first = a.turn(100).await.unwrap();
        let second = a.turn(100).await.unwrap();
        // MAX_WAITING wait for a turn...
        let waiters: Vec<_> = (0..MAX_WAITING)
            .map(|_| {
                let a = Arc::clone(&a);
                tokio::spawn(async move { a.turn(100).await.map(drop) })
            })
            .collect();
        while a.waiting.available_permits() > 0 {
            tokio::task::yield_now().await;
        }
        // ...one more is Busy at once, and so is one too big for the room.
        assert_eq!(a.turn(100).await.unwrap_err(), Busy);
        drop(first);
        drop(second);
        for w in waiters {
            assert_eq!(w.await.unwrap(), Ok(()));
        }
        assert_eq!(a.turn(MAX_WAITING_BYTES + 1).await.unwrap_err(), Busy);
        assert!(a.turn(MAX_WAITING_BYTES).await.is_ok());
    }
}
