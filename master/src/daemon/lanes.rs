//! Received requests wait here for a worker, in one of three lanes
//! ([`Lane`]): compiles (pillar, states, Hiera), quick requests
//! (authentication, the CLI's publications, returns, files) and the CLI's
//! waits for returns, which sleep on turns of their own. The master handles
//! `worker_threads` requests at once, as before the lanes, but compiles
//! take at most all but one of those turns, and quick requests never queue
//! behind compiles: a fleet's storm of compiles (10,000 minions asking for
//! their pillar at start-up) no longer keeps an authentication, a return
//! or the CLI waiting past its timeout. Before the lanes, requests were
//! taken off the socket only when a worker was free, round-robin over the
//! peers, and an auth could wait behind minutes of compiles, time out and
//! be sent again, without end. (Separate turns for each lane were tried:
//! twice the threads at once kept ~60 MB more in the allocator after a
//! 1,000-minion start-up.)
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
/// The least a held request counts for (65,536 of them at most: a
/// 10,000-minion start-up queues 10,000 small pillar requests).
pub const MIN_COST: usize = 512;
/// The CLI's waits for returns handled at once (each a blocking thread
/// asleep until a return lands, for at most `MAX_RETURNS_WAIT_MS`).
pub const MAX_WAITS: usize = 64;

/// The receiving side: puts requests in their lane.
pub struct Backlog<T> {
    budget: Arc<Semaphore>,
    budget_bytes: usize,
    quick: mpsc::UnboundedSender<Held<T>>,
    compile: mpsc::UnboundedSender<Held<T>>,
    wait: mpsc::UnboundedSender<Held<T>>,
}

/// One request held, with its share of the byte budget (given back when
/// it is dropped, after its handler ran).
pub struct Held<T> {
    pub item: T,
    _budget: OwnedSemaphorePermit,
}

/// One lane's queue and the turns a request of it needs.
pub struct Queue<T> {
    rx: mpsc::UnboundedReceiver<Held<T>>,
    /// Received, waiting for its turn: kept here so that a `next` dropped
    /// while it waits loses nothing.
    next: Option<Held<T>>,
    /// Taken in this order: the lane's own (compiles: all but one of the
    /// workers), then the workers shared with the other lanes.
    turns: Vec<Arc<Semaphore>>,
}

/// A turn to handle one request: hold it while the request is handled.
pub struct Turn {
    _permits: Vec<OwnedSemaphorePermit>,
}

/// The three lanes, and what shutdown waits for.
pub struct Lanes<T> {
    pub quick: Queue<T>,
    pub compile: Queue<T>,
    pub wait: Queue<T>,
    /// Every turn of these semaphores is free once nothing is in hand.
    pub in_hand: Vec<(Arc<Semaphore>, u32)>,
}

/// The backlog was closed (the lanes are gone: shutting down).
#[derive(Debug, PartialEq, Eq)]
pub struct Closed;

/// A backlog of `budget_bytes` and its lanes: `workers` requests handled
/// at once, at most `workers - 1` of them compiles (one, when there is a
/// single worker); the CLI's waits for returns, up to [`MAX_WAITS`], on
/// turns of their own.
pub fn backlog<T>(budget_bytes: usize, workers: usize) -> (Backlog<T>, Lanes<T>) {
    // Every cost (at most the budget) is then a u32, as acquire_many takes.
    let budget_bytes = budget_bytes.clamp(MIN_COST, u32::MAX as usize);
    let workers = workers.clamp(1, Semaphore::MAX_PERMITS);
    let shared = Arc::new(Semaphore::new(workers));
    let compiles = Arc::new(Semaphore::new((workers - 1).max(1)));
    let waits = Arc::new(Semaphore::new(MAX_WAITS));
    let (quick, quick_rx) = mpsc::unbounded_channel();
    let (compile, compile_rx) = mpsc::unbounded_channel();
    let (wait, wait_rx) = mpsc::unbounded_channel();
    let count = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
    (
        Backlog {
            budget: Arc::new(Semaphore::new(budget_bytes)),
            budget_bytes,
            quick,
            compile,
            wait,
        },
        Lanes {
            quick: Queue {
                rx: quick_rx,
                next: None,
                turns: vec![shared.clone()],
            },
            compile: Queue {
                rx: compile_rx,
                next: None,
                turns: vec![compiles, shared.clone()],
            },
            wait: Queue {
                rx: wait_rx,
                next: None,
                turns: vec![waits.clone()],
            },
            in_hand: vec![(shared, count(workers)), (waits, count(MAX_WAITS))],
        },
    )
}

impl<T> Backlog<T> {
    /// Hold `item` (a request of `bytes`) in `lane`, first waiting until
    /// the held requests leave room for it.
    pub async fn hold(&self, lane: Lane, bytes: usize, item: T) -> Result<(), Closed> {
        let cost = bytes.clamp(MIN_COST, self.budget_bytes);
        // At most the budget, which `backlog` keeps within u32.
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
            Lane::Wait => self.wait.send(held),
        }
        .map_err(|_| Closed)
    }
}

impl<T> Queue<T> {
    /// The next request in this lane, with a turn to handle it (hold both
    /// while it is handled). Cancel-safe: a request received while no turn
    /// was free is the next one given.
    pub async fn next(&mut self) -> Option<(Held<T>, Turn)> {
        if self.next.is_none() {
            self.next = Some(self.rx.recv().await?);
        }
        let mut permits = Vec::with_capacity(self.turns.len());
        for turns in &self.turns {
            permits.push(turns.clone().acquire_owned().await.ok()?);
        }
        let held = self.next.take()?;
        Some((held, Turn { _permits: permits }))
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

    /// The next request of `q`, which must come at once.
    async fn served<T>(q: &mut Queue<T>) -> (Held<T>, Turn) {
        tokio::time::timeout(Duration::from_secs(1), q.next())
            .await
            .expect("served at once")
            .expect("open")
    }

    #[test]
    fn quick_requests_pass_a_lane_full_of_compiles_and_waits_take_no_worker() {
        rt().block_on(async {
            let (backlog, lanes) = backlog::<u32>(1 << 20, 3);
            let (mut quick, mut compile) = (lanes.quick, lanes.compile);
            for i in 0..100 {
                backlog.hold(Lane::Compile, 100, i).await.unwrap();
            }
            backlog.hold(Lane::Quick, 100, 1000).await.unwrap();
            backlog.hold(Lane::Quick, 100, 1001).await.unwrap();
            backlog.hold(Lane::Wait, 100, 2000).await.unwrap();
            let mut wait = lanes.wait;
            // Compiles take all workers but one...
            let (first, _t1) = compile.next().await.unwrap();
            let (second, _t2) = compile.next().await.unwrap();
            assert_eq!((first.item, second.item), (0, 1));
            let waits = |r| async move {
                tokio::time::timeout(Duration::from_millis(50), r)
                    .await
                    .is_err()
            };
            assert!(waits(compile.next()).await, "a third compile waits");
            // ...and the quick request behind a hundred of them is served at
            // once all the same.
            let (q, _t3) = served(&mut quick).await;
            assert_eq!(q.item, 1000);
            // Every worker busy: the next quick request waits for one...
            assert!(waits(quick.next()).await, "no fourth worker");
            // ...but the CLI waiting for returns does not need one.
            let (w, _t4) = served(&mut wait).await;
            assert_eq!(w.item, 2000);
        });
    }

    #[test]
    fn receiving_waits_while_the_held_requests_fill_the_budget() {
        rt().block_on(async {
            let (backlog, lanes) = backlog::<u32>(10 * MIN_COST, 1);
            let mut compile = lanes.compile;
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
            let (backlog, lanes) = super::backlog::<u32>(2 * MIN_COST, 1);
            let mut compile = lanes.compile;
            backlog.hold(Lane::Compile, usize::MAX, 1).await.unwrap();
            let (held, _) = compile.next().await.unwrap();
            assert_eq!(held.item, 1);
        });
    }

    #[test]
    fn at_most_max_waits_cli_waits_at_once() {
        rt().block_on(async {
            let (backlog, lanes) = backlog::<usize>(1 << 24, 1);
            let mut wait = lanes.wait;
            for i in 0..=MAX_WAITS {
                backlog.hold(Lane::Wait, 100, i).await.unwrap();
            }
            let mut turns = Vec::new();
            for _ in 0..MAX_WAITS {
                turns.push(served(&mut wait).await);
            }
            assert!(
                tokio::time::timeout(Duration::from_millis(50), wait.next())
                    .await
                    .is_err(),
                "one wait more than MAX_WAITS waits for a turn"
            );
            turns.pop();
            assert_eq!(served(&mut wait).await.0.item, MAX_WAITS);
        });
    }

    #[test]
    fn a_closed_backlog_says_so() {
        rt().block_on(async {
            let (backlog, lanes) = backlog::<u32>(1 << 20, 2);
            drop(lanes);
            assert_eq!(backlog.hold(Lane::Quick, 1, 1).await, Err(Closed));
        });
    }
}
