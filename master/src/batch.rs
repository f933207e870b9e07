//! Salt's batch mode (`brine -b N`, brine-api's `local_batch`): which
//! minions run a job now, so that at most N do at once. The caller pings
//! the target first; the minions that answered are run in batches, a
//! finished minion's place going to the next one (after `--batch-wait`
//! seconds when given), as Salt's `salt.cli.batch` schedules them.
//! [`Schedule`] is the schedule; [`drive`] runs it through the master,
//! each batch its own job published to a list of ids, and tells its caller
//! of each step (`brine` prints them, brine-api gathers them).

use crate::daemon::client::{Client, ClientError};
use brine_core::{Map, Value};
use brine_protocol::messages::MinionReturn;
use std::collections::VecDeque;
use std::time::{Duration, Instant};

/// `-b`'s value: a count (`3`) or a share of the minions (`10%`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum BatchSize {
    Count(i64),
    Percent(f64),
}

impl BatchSize {
    /// Salt reads `N%` as a percentage and anything else as an integer;
    /// `None` for what is neither (Salt: "Invalid batch data sent").
    pub fn parse(text: &str) -> Option<BatchSize> {
        if text.contains('%') {
            let n: f64 = text.trim_matches('%').trim().parse().ok()?;
            n.is_finite().then_some(BatchSize::Percent(n))
        } else {
            text.trim().parse().ok().map(BatchSize::Count)
        }
    }

    /// How many minions run at once out of `minions`: a share below one
    /// minion rounds up to one, above it down.
    pub fn of(self, minions: usize) -> i64 {
        match self {
            BatchSize::Count(n) => n,
            BatchSize::Percent(p) => {
                let share = p / 100.0 * minions as f64;
                if share < 1.0 {
                    share.ceil() as i64
                } else {
                    share as i64
                }
            }
        }
    }
}

/// What Salt prints for a `-b` value it cannot read.
pub fn invalid_size_message(text: &str) -> String {
    format!("Invalid batch data sent: {text}\nData must be in the form of %10, 10% or 3")
}

/// The minions still to run, those running, and the places held free by
/// `--batch-wait` after a minion finished.
#[derive(Debug)]
pub struct Schedule {
    to_run: VecDeque<String>,
    active: Vec<String>,
    /// When each held place frees up.
    wait: Vec<Instant>,
    size: i64,
    batch_wait: Duration,
    finished: usize,
    total: usize,
}

impl Schedule {
    /// `minions` in the order they are to start; `size` at once.
    pub fn new(minions: Vec<String>, size: i64, batch_wait: Duration) -> Schedule {
        Schedule {
            total: minions.len(),
            to_run: minions.into(),
            active: Vec::new(),
            wait: Vec::new(),
            size,
            batch_wait,
            finished: 0,
        }
    }

    /// The minions to start now (empty: wait for one to finish).
    pub fn next_batch(&mut self, now: Instant) -> Vec<String> {
        self.wait.retain(|until| *until > now);
        let held = self.wait.len() as i64;
        let mut next = Vec::new();
        if (self.to_run.len() as i64) <= self.size - held && self.active.is_empty() {
            // The last of them: all at once.
            next.extend(self.to_run.drain(..));
        } else {
            let free = self.size - self.active.len() as i64 - held;
            for _ in 0..free.max(0) {
                match self.to_run.pop_front() {
                    Some(id) => next.push(id),
                    None => break,
                }
            }
        }
        self.active.extend(next.iter().cloned());
        next
    }

    /// `id` returned (or was given up on): its place frees up, after
    /// `--batch-wait` when set.
    pub fn done(&mut self, id: &str, now: Instant) {
        if let Some(i) = self.active.iter().position(|a| a == id) {
            self.active.remove(i);
            self.finished += 1;
            if !self.batch_wait.is_zero() {
                self.wait.push(now + self.batch_wait);
            }
        }
    }

    /// Every minion has run.
    pub fn is_finished(&self) -> bool {
        self.finished >= self.total
    }

    /// When the next held place frees up, if one is held.
    pub fn next_free(&self) -> Option<Instant> {
        self.wait.iter().min().copied()
    }
}

/// What a batch run tells its caller as it goes.
pub enum Step<'a> {
    /// A batch was published to these minions.
    Started(&'a [String]),
    /// A minion of job `jid` returned.
    Returned {
        jid: &'a str,
        id: &'a str,
        ret: MinionReturn,
    },
    /// A minion of a batch never returned (Salt records an empty return).
    Lost(&'a str),
}

/// The job a batch run publishes, and its pace.
pub struct BatchJob {
    pub fun: String,
    pub arg: Vec<Value>,
    pub kwarg: Map,
    /// Minions at once ([`BatchSize::of`]).
    pub size: i64,
    pub batch_wait: Duration,
    /// Seconds each batch's job is waited for.
    pub timeout: u64,
    /// `gather_job_timeout`: how long a `find_job` is waited for.
    pub gather: Duration,
}

/// One batch's job: who has not returned yet, and where its returns stand.
struct Running {
    jid: String,
    pending: Vec<String>,
    cursor: u64,
    deadline: Instant,
}

/// Run `job` on `up` (the minions that answered the ping) a batch at a
/// time; `on` hears each step, and stops the run by answering true
/// (`--failhard`).
pub async fn drive(
    client: &mut Client,
    up: Vec<String>,
    job: &BatchJob,
    on: &mut (dyn FnMut(Step<'_>) -> bool + Send),
) -> Result<(), ClientError> {
    let mut schedule = Schedule::new(up, job.size, job.batch_wait);
    let mut jobs: Vec<Running> = Vec::new();
    'run: while !schedule.is_finished() {
        let now = Instant::now();
        let next = schedule.next_batch(now);
        if !next.is_empty() {
            on(Step::Started(&next));
            let published = client
                .publish(
                    Value::List(next.iter().cloned().map(Value::Str).collect()),
                    "list",
                    &job.fun,
                    job.arg.clone(),
                    job.kwarg.clone(),
                    job.timeout,
                )
                .await?;
            jobs.push(Running {
                jid: published.jid,
                pending: next,
                cursor: 0,
                deadline: Instant::now() + Duration::from_secs(job.timeout),
            });
        }
        // With one job running, the master tells of its next return (or
        // of none, up to when a held place frees); with several, each is
        // looked at in turn.
        let single = jobs.len() == 1;
        let mut heard = false;
        for running in &mut jobs {
            let now = Instant::now();
            let mut wait = Duration::ZERO;
            if single {
                wait = running.deadline.saturating_duration_since(now);
                if let Some(free) = schedule.next_free() {
                    wait = wait.min(free.saturating_duration_since(now));
                }
            }
            match client
                .returns_after(&running.jid, running.cursor, wait)
                .await
            {
                Ok(r) => {
                    running.cursor = r.next;
                    for (id, ret) in r.returns {
                        let Some(i) = running.pending.iter().position(|p| *p == id) else {
                            continue;
                        };
                        running.pending.remove(i);
                        heard = true;
                        schedule.done(&id, Instant::now());
                        let jid = running.jid.as_str();
                        if on(Step::Returned { jid, id: &id, ret }) {
                            break 'run;
                        }
                    }
                }
                Err(e) => tracing::warn!("{e}"),
            }
            if !running.pending.is_empty() && Instant::now() >= running.deadline {
                if client
                    .still_running(&running.jid, &running.pending, job.gather)
                    .await
                {
                    running.deadline = Instant::now() + Duration::from_secs(job.timeout);
                    continue;
                }
                for id in std::mem::take(&mut running.pending) {
                    schedule.done(&id, Instant::now());
                    on(Step::Lost(&id));
                }
            }
        }
        jobs.retain(|j| !j.pending.is_empty());
        if !heard && !single {
            // Several jobs, none new: a short pause, as Salt's loop takes.
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(n: usize) -> Vec<String> {
        (1..=n).map(|i| format!("m{i}")).collect()
    }

    #[test]
    fn sizes_read_as_salt_reads_them() {
        assert_eq!(BatchSize::parse("3"), Some(BatchSize::Count(3)));
        assert_eq!(BatchSize::parse("10%"), Some(BatchSize::Percent(10.0)));
        assert_eq!(BatchSize::parse("%10"), Some(BatchSize::Percent(10.0)));
        assert_eq!(BatchSize::parse("x"), None);
        assert_eq!(BatchSize::parse("1.5"), None);
        // 10% of 3 is under one minion: one; 50% of 3 is 1.5: one.
        assert_eq!(BatchSize::Percent(10.0).of(3), 1);
        assert_eq!(BatchSize::Percent(50.0).of(3), 1);
        assert_eq!(BatchSize::Percent(50.0).of(10), 5);
        assert_eq!(BatchSize::Percent(100.0).of(7), 7);
        assert_eq!(
            invalid_size_message("x"),
            "Invalid batch data sent: x\nData must be in the form of %10, 10% or 3"
        );
    }

    #[test]
    fn never_more_than_size_at_once() {
        let now = Instant::now();
        let mut s = Schedule::new(ids(5), 2, Duration::ZERO);
        assert_eq!(s.next_batch(now), ["m1", "m2"]);
        assert!(s.next_batch(now).is_empty());
        s.done("m2", now);
        assert_eq!(s.next_batch(now), ["m3"]);
        s.done("m1", now);
        s.done("m3", now);
        // Two left, two places, none running: both.
        assert_eq!(s.next_batch(now), ["m4", "m5"]);
        s.done("m4", now);
        s.done("m5", now);
        assert!(s.is_finished());
        // A minion not running is not counted twice.
        s.done("m5", now);
        assert!(s.is_finished());
    }

    #[test]
    fn batch_wait_holds_a_place_after_a_return() {
        let now = Instant::now();
        let wait = Duration::from_secs(1);
        let mut s = Schedule::new(ids(3), 1, wait);
        assert_eq!(s.next_batch(now), ["m1"]);
        s.done("m1", now);
        assert!(s.next_batch(now).is_empty());
        assert_eq!(s.next_free(), Some(now + wait));
        assert_eq!(s.next_batch(now + wait), ["m2"]);
    }
}
