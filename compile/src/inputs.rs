//! What a compile read from disk, so that its answer can be given again
//! while none of it changed (the master's pillar replay).
//!
//! A compile run under [`record`] notes every path it read, looked for or
//! listed, with what `stat` said of it then (nothing: not there). Its
//! answer depends on those files, the minion's data and the options, unless
//! it also asked something else: a `salt[...]` function whose answer is not
//! made from the minion's data alone (`cmd.run`, `mine.get`...), or an
//! ext_pillar. Such a compile is *volatile* and gives no [`Inputs`].
//!
//! [`Inputs::unchanged`] stats every path again. A file rewritten within
//! the kernel clock tick of its read, at the same size, would look
//! unchanged, so (as [`crate::file_text`] does for its kept copies) a
//! compile that saw a path changed less than [`SETTLED`] before it began
//! is volatile too.
//!
//! Recording is per thread; [`current`] and [`within`] carry it into the
//! threads a compile renders ahead on. Outside [`record`] every note is a
//! thread-local lookup and nothing else (`brine-call` records nothing).

use std::cell::RefCell;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

/// How much older than the start of a compile (or of a file's read) a
/// path's change time must be for what was seen of it to be trusted later
/// (many ticks of any kernel's clock).
pub const SETTLED: Duration = Duration::from_secs(2);

/// What `stat` says of a path; equal stamps mean the same contents (for
/// paths whose change time is settled). A directory's stamp moves when an
/// entry is added, removed or renamed in it (the master's key store reads
/// its `minions/` folder so).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Stamp {
    dev: u64,
    ino: u64,
    size: u64,
    mtime: (i64, i64),
    ctime: (i64, i64),
}

impl Stamp {
    pub fn of(m: &std::fs::Metadata) -> Stamp {
        use std::os::unix::fs::MetadataExt;
        Stamp {
            dev: m.dev(),
            ino: m.ino(),
            size: m.len(),
            mtime: (m.mtime(), m.mtime_nsec()),
            ctime: (m.ctime(), m.ctime_nsec()),
        }
    }

    pub(crate) fn size(&self) -> u64 {
        self.size
    }

    /// Changed at least `margin` before `t`.
    pub fn settled_before(&self, t: SystemTime, margin: Duration) -> bool {
        let Ok(since) = t.duration_since(SystemTime::UNIX_EPOCH) else {
            return false;
        };
        let Some(limit) = since.checked_sub(margin) else {
            return false;
        };
        let changed = |(s, ns): (i64, i64)| {
            u64::try_from(s).ok().map(|s| {
                Duration::from_secs(s) + Duration::from_nanos(u64::try_from(ns).unwrap_or(0))
            })
        };
        [self.mtime, self.ctime]
            .into_iter()
            .all(|t| changed(t).is_some_and(|c| c < limit))
    }
}

/// How a path was looked at: through a symlink (as reads do), or at the
/// link itself (Python's `os.path.lexists`).
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
enum Look {
    Follow,
    Link,
}

impl Look {
    /// The stamp of `path` now; `None` when nothing is there.
    fn stat(self, path: &Path) -> Option<Stamp> {
        match self {
            Look::Follow => std::fs::metadata(path),
            Look::Link => std::fs::symlink_metadata(path),
        }
        .ok()
        .map(|m| Stamp::of(&m))
    }
}

/// The paths a finished, non-volatile compile saw, sorted, each with its
/// stamp then.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Inputs {
    seen: Vec<((PathBuf, Look), Option<Stamp>)>,
}

impl Inputs {
    /// Every path still stats as the compile saw it.
    pub fn unchanged(&self) -> bool {
        self.seen
            .iter()
            .all(|((path, look), then)| look.stat(path) == *then)
    }

    /// How many paths were seen.
    pub fn len(&self) -> usize {
        self.seen.len()
    }

    pub fn is_empty(&self) -> bool {
        self.seen.is_empty()
    }
}

/// One compile's notes, shared by the threads working for it.
#[derive(Debug)]
struct Recorder {
    began: SystemTime,
    margin: Duration,
    notes: Mutex<Notes>,
}

#[derive(Debug, Default)]
struct Notes {
    seen: HashMap<(PathBuf, Look), Option<Stamp>>,
    /// Why the compile cannot be given again (the first reason).
    volatile: Option<String>,
}

impl Recorder {
    fn notes(&self) -> std::sync::MutexGuard<'_, Notes> {
        // A panic while holding the lock leaves plain data behind.
        self.notes.lock().unwrap_or_else(|p| p.into_inner())
    }
}

thread_local! {
    static CURRENT: RefCell<Option<Arc<Recorder>>> = const { RefCell::new(None) };
}

/// The recording in force on this thread, to hand to a helper thread
/// ([`within`]).
#[derive(Clone, Debug, Default)]
pub struct Recording(Option<Arc<Recorder>>);

/// Run `f` with every path it sees noted; its answer, and what it read
/// when nothing volatile happened.
pub fn record<R>(f: impl FnOnce() -> R) -> (R, Result<Inputs, String>) {
    record_settled(SETTLED, f)
}

/// [`record`], trusting paths changed `margin` before the compile began
/// (tests use zero, and wait a clock tick before changing a file).
pub fn record_settled<R>(margin: Duration, f: impl FnOnce() -> R) -> (R, Result<Inputs, String>) {
    let rec = Arc::new(Recorder {
        began: SystemTime::now(),
        margin,
        notes: Mutex::default(),
    });
    let out = within(Recording(Some(rec.clone())), f);
    let notes = std::mem::take(&mut *rec.notes());
    let inputs = match notes.volatile {
        Some(why) => Err(why),
        None => {
            let mut seen: Vec<_> = notes.seen.into_iter().collect();
            seen.sort_unstable_by(|a, b| a.0.cmp(&b.0));
            Ok(Inputs { seen })
        }
    };
    (out, inputs)
}

/// The recording of this thread (none outside [`record`]).
pub fn current() -> Recording {
    CURRENT.with(|c| Recording(c.borrow().clone()))
}

/// Run `f` under `recording` on this thread (a helper of the compile that
/// took it with [`current`]); what was in force before comes back after.
pub fn within<R>(recording: Recording, f: impl FnOnce() -> R) -> R {
    struct Restore(Option<Arc<Recorder>>);
    impl Drop for Restore {
        fn drop(&mut self) {
            let before = self.0.take();
            CURRENT.with(|c| *c.borrow_mut() = before);
        }
    }
    let _restore = Restore(CURRENT.with(|c| c.replace(recording.0)));
    f()
}

/// Is this thread recording?
pub(crate) fn recording() -> bool {
    CURRENT.with(|c| c.borrow().is_some())
}

fn with_recorder(f: impl FnOnce(&Recorder)) {
    CURRENT.with(|c| {
        if let Some(rec) = c.borrow().as_deref() {
            f(rec)
        }
    })
}

/// The compile saw `path` as `stamp` (`None`: not there).
pub(crate) fn note(path: &Path, stamp: Option<Stamp>) {
    note_look(path, Look::Follow, stamp)
}

fn note_look(path: &Path, look: Look, stamp: Option<Stamp>) {
    with_recorder(|rec| {
        let mut notes = rec.notes();
        if notes.volatile.is_some() {
            return;
        }
        if let Some(s) = &stamp {
            if !s.settled_before(rec.began, rec.margin) {
                notes.volatile = Some(format!("{} changed just now", path.display()));
                return;
            }
        }
        let key = (path.to_path_buf(), look);
        match notes.seen.get(&key) {
            Some(before) if *before != stamp => {
                notes.volatile = Some(format!("{} changed during the compile", path.display()));
            }
            Some(_) => {}
            None => {
                notes.seen.insert(key, stamp);
            }
        }
    })
}

/// Is `path` a file (following symlinks)? Noted.
pub(crate) fn is_file(path: &Path) -> bool {
    probe(path).is_some_and(|m| m.is_file())
}

/// Is `path` a directory (following symlinks)? Noted.
pub(crate) fn is_dir(path: &Path) -> bool {
    probe(path).is_some_and(|m| m.is_dir())
}

/// Is anything at `path`, a dangling symlink included? Noted.
pub(crate) fn lexists(path: &Path) -> bool {
    let m = std::fs::symlink_metadata(path).ok();
    if recording() {
        note_look(path, Look::Link, m.as_ref().map(Stamp::of));
    }
    m.is_some()
}

/// `stat` of `path`, noted. Only recording compiles pay for the stamp.
fn probe(path: &Path) -> Option<std::fs::Metadata> {
    let m = std::fs::metadata(path).ok();
    if recording() {
        note(path, m.as_ref().map(Stamp::of));
    }
    m
}

/// The compile asked something other than the disk and the minion's data
/// (`why` says what): its answer may differ next time.
pub(crate) fn volatile(why: impl FnOnce() -> String) {
    with_recorder(|rec| {
        let mut notes = rec.notes();
        if notes.volatile.is_none() {
            notes.volatile = Some(why());
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settled<R>(f: impl FnOnce() -> R) -> (R, Result<Inputs, String>) {
        record_settled(Duration::ZERO, f)
    }

    #[test]
    fn nothing_is_noted_outside_a_recording() {
        let td = tempfile::tempdir().unwrap();
        assert!(is_dir(td.path()));
        assert!(current().0.is_none());
    }

    #[test]
    fn a_recording_sees_files_probes_and_helpers_and_notices_changes() {
        let td = tempfile::tempdir().unwrap();
        let a = td.path().join("a.sls");
        let gone = td.path().join("b.sls");
        let sub = td.path().join("sub");
        std::fs::create_dir(&sub).unwrap();
        std::fs::write(&a, "a: 1\n").unwrap();
        let (found, inputs) = settled(|| {
            let rec = current();
            std::thread::scope(|s| {
                s.spawn(|| within(rec, || assert!(!is_file(&gone))));
            });
            is_file(&a) && is_dir(&sub)
        });
        assert!(found);
        let inputs = inputs.unwrap();
        assert_eq!(inputs.len(), 3, "{inputs:?}");
        assert!(inputs.unchanged());
        // A path that was not there appears.
        std::fs::write(&gone, "b: 1\n").unwrap();
        assert!(!inputs.unchanged());
        std::fs::remove_file(&gone).unwrap();
        assert!(inputs.unchanged());
        // A file read is rewritten (a tick later, same size).
        std::thread::sleep(Duration::from_millis(30));
        std::fs::write(&a, "a: 2\n").unwrap();
        assert!(!inputs.unchanged());
        // An entry comes into a folder seen.
        let (_, inputs) = settled(|| is_dir(&sub));
        let inputs = inputs.unwrap();
        assert!(inputs.unchanged());
        std::fs::write(sub.join("c.sls"), "").unwrap();
        assert!(!inputs.unchanged());
    }

    #[test]
    fn a_file_changed_just_now_or_a_volatile_call_gives_no_inputs() {
        let td = tempfile::tempdir().unwrap();
        let a = td.path().join("a.sls");
        std::fs::write(&a, "a: 1\n").unwrap();
        let (_, inputs) = record(|| is_file(&a));
        assert!(inputs.unwrap_err().contains("changed just now"));
        let (_, inputs) = settled(|| volatile(|| "cmd.run".into()));
        assert_eq!(inputs.unwrap_err(), "cmd.run");
        // The first reason is kept.
        let (_, inputs) = settled(|| {
            volatile(|| "one".into());
            volatile(|| "two".into());
        });
        assert_eq!(inputs.unwrap_err(), "one");
    }
}
