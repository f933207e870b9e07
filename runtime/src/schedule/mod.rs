//! The minion's schedule (Salt's `salt.utils.schedule`): the jobs of
//! `schedule:` in the minion's options (its config, `minion.d/*.conf`,
//! `minion.d/_schedule.conf` where changes are kept, and what `schedule.*`
//! added since) over those of `schedule:` in its pillar, and when each runs.
//!
//! The data flows one way: [`Schedule`] ([`jobs`]) holds the jobs and is
//! changed by the `schedule` execution module; the daemon's scheduler asks
//! [`Schedule::due`] every second which jobs to run ([`eval`]), and runs
//! them as jobs of its own. What it remembers of a job between two
//! evaluations is in [`state`], the times it reads in [`dates`].
//!
//! A job's evaluation state (next fire time, splay, whether `run_on_start`
//! fired) is kept beside its data, never in it, so `_schedule.conf` holds
//! only what Salt's does; the keys Salt's evaluation writes into a job
//! (`name`, `splay`, `run`, `jid_include`, `maxrunning`) are written into
//! it as Salt writes them, since `schedule.list` and the saved file show
//! them.

pub mod dates;
mod eval;
mod jobs;
mod state;

pub use eval::Due;
pub use jobs::{
    conf_file, lock, of, read_schedule_file, Handle, Schedule, ScheduleError, HIDDEN, MAX_JOBS,
};
