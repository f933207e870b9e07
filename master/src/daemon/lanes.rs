//! Received requests wait here for a worker, in one of two lanes
//! ([`Lane`]): compiles (pillar, states, Hiera) and everything else
//! (authentication, the CLI, returns, files). Each lane has its own
//! `worker_threads` turns, so a fleet's storm of compiles (10,000 minions
//! asking for their pillar at start-up) never keeps an authentication, a
//! return or the CLI waiting past its timeout: before the lanes, requests
//! were taken off the socket only when a worker was free, round-robin over
//! the peers, and an auth could wait behind minutes of compiles, time out
//! and be sent again, without end.
//!
//! What a peer can make the master hold is bounded: requests are read off
//! the socket while the held ones total under [`BACKLOG_BYTES`] (each
//! counted as at least [`MIN_COST`] bytes, which bounds their number too);
//! past that the receiving stops and the kernel's buffers push back, as
//! they did before. A request is put in its lane by [`peek_lane`] before it
//! is verified; dispatch checks the lane again once it is, so a lane is
//! only ever a place in a queue, never a permission.
//!
//! [`peek_lane`]: brine_protocol::messages::peek_lane

use brine_protocol::messages::Lane;
use std::sync::Arc;
use tokio::sync::{mpsc, OwnedSemaphorePermit, Semaphore};

/// Bytes of received requests held waiting for a worker, both lanes.
pub const BACKLOG_BYTES: usize = 32 * 1024 * 1024;
/// The least a held request counts for (16,384 of them at most).
pub const MIN_COST: usize = 2048;

/// The receiving side: puts requests in their lane.
pub struct Backlog<T> {
    budget: Arc<Semaphore>,
    budget_bytes: usize,
    quick: mpsc::UnboundedSender<Held<T>>,
    compile: mpsc::UnboundedSender<Held<T>>,
}

/// One request held, with its share of the byte budget (given back when
/// it is dropped, after its handler ran).
pub struct Held<T> {
    pub item: T,
    _budget: OwnedSemaphorePermit,
}

/// One lane's queue and turns.
pub struct Queue<T> {
    rx: mpsc::UnboundedReceiver<Held<T>>,
    turns: Arc<Semaphore>,
    count: u32,
}

/// The backlog was closed (the lanes are gone: shutting down).
#[derive(Debug, PartialEq, Eq)]
pub struct Closed;

/// A backlog of `budget_bytes` and its two lanes, with `quick_turns` and
/// `compile_turns` requests handled at once.
pub fn backlog<T>(
    budget_bytes: usize,
    quick_turns: usize,
    compile_turns: usize,
) -> (Backlog<T>, Queue<T>, Queue<T>) {
    let budget_bytes = budget_bytes.clamp(MIN_COST, Semaphore::MAX_PERMITS);
    let count = |n: usize| u32::try_from(n.clamp(1, Semaphore::MAX_PERMITS)).unwrap_or(1);
    let (quick_turns, compile_turns) = (count(quick_turns), count(compile_turns));
    let (quick, quick_rx) = mpsc::unbounded_channel();
    let (compile, compile_rx) = mpsc::unbounded_channel();
    (
        Backlog {
            budget: Arc::new(Semaphore::new(budget_bytes)),
            budget_bytes,
            quick,
            compile,
        },
        Queue {
            rx: quick_rx,
            turns: Arc::new(Semaphore::new(quick_turns as usize)),
            count: quick_turns,
        },
        Queue {
            rx: compile_rx,
            turns: Arc::new(Semaphore::new(compile_turns as usize)),
            count: compile_turns,
        },
    )
}

impl<T> Backlog<T> {
    /// Hold `item` (a request of `bytes`) in `lane`, first waiting until
    /// the held requests leave room for it.
    pub async fn hold(&self, lane: Lane, bytes: usize, item: T) -> Result<(), Closed> {
        let cost = bytes.clamp(MIN_COST, self.budget_bytes);
        // The budget fits in a Semaphore, so in u32 (MAX_PERMITS < 2^32).
        let cost = u32::try_from(cost).unwrap_or(u32::MAX);
        let permit = self
            .budget
            .clone()
            .acquire_many_owned(cost)
            .await
            .map_err(|_| Closed)?;
        let held = Held {
            item,
            _budget: permit,
        };
        match lane {
            Lane::Quick => self.quick.send(held),
            Lane::Compile => self.compile.send(held),
        }
        .map_err(|_| Closed)
    }
}

impl<T> Queue<T> {
    /// The next request in this lane, with a turn to handle it (hold both
    /// while it is handled).
    pub async fn next(&mut self) -> Option<(Held<T>, OwnedSemaphorePermit)> {
        let held = self.rx.recv().await?;
        let turn = self.turns.clone().acquire_owned().await.ok()?;
        Some((held, turn))
    }

    /// This lane's turns and how many there are, to wait for the
    /// requests in hand at shutdown.
    pub fn turns(&self) -> (Arc<Semaphore>, u32) {
        (self.turns.clone(), self.count)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn rt() -> tokio::runtime::Runtime {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap()
    }

    #[test]
    fn quick_requests_pass_a_lane_full_of_compiles() {
        rt().block_on(async {
            let (backlog, mut quick, mut compile) = backlog::<u32>(1 << 20, 1, 1);
            for i in 0..100 {
                backlog.hold(Lane::Compile, 100, i).await.unwrap();
            }
            backlog.hold(Lane::Quick, 100, 1000).await.unwrap();
            // The one compile turn is taken and kept...
            let (first, _turn) = compile.next().await.unwrap();
            assert_eq!(first.item, 0);
            assert!(
                tokio::time::timeout(Duration::from_millis(50), compile.next())
                    .await
                    .is_err(),
                "a second compile waits for the turn"
            );
            // ...and the quick request is served at once all the same.
            let (q, _) = tokio::time::timeout(Duration::from_secs(1), quick.next())
                .await
                .unwrap()
                .unwrap();
            assert_eq!(q.item, 1000);
        });
    }

    #[test]
    fn receiving_waits_while_the_held_requests_fill_the_budget() {
        rt().block_on(async {
            let (backlog, _quick, mut compile) = backlog::<u32>(10 * MIN_COST, 1, 1);
            // Small requests count as MIN_COST: ten fill the budget.
            for i in 0..10 {
                backlog.hold(Lane::Compile, 1, i).await.unwrap();
            }
            assert!(
                tokio::time::timeout(Duration::from_millis(50), backlog.hold(Lane::Quick, 1, 10))
                    .await
                    .is_err(),
                "the eleventh waits"
            );
            // One handled (its request dropped) makes room for one more.
            let (held, turn) = compile.next().await.unwrap();
            drop((held, turn));
            tokio::time::timeout(Duration::from_secs(1), backlog.hold(Lane::Quick, 1, 10))
                .await
                .unwrap()
                .unwrap();
            // A request larger than the whole budget still gets in, alone.
            let (backlog, _quick, mut compile) = backlog_of_two();
            backlog.hold(Lane::Compile, usize::MAX, 1).await.unwrap();
            let (held, _) = compile.next().await.unwrap();
            assert_eq!(held.item, 1);
        });
    }

    fn backlog_of_two() -> (Backlog<u32>, Queue<u32>, Queue<u32>) {
        backlog(2 * MIN_COST, 1, 1)
    }

    #[test]
    fn a_closed_backlog_says_so() {
        rt().block_on(async {
            let (backlog, quick, compile) = backlog::<u32>(1 << 20, 1, 1);
            drop((quick, compile));
            assert_eq!(backlog.hold(Lane::Quick, 1, 1).await, Err(Closed));
        });
    }
}
