//! The bytes of the files a compile reads (SLS, PillarStack configs and
//! files, Jinja imports), kept across compiles while the file is unchanged.
//!
//! The master compiles the same files for every minion of a fleet: opening
//! and reading each one again was a tenth of its profile under a fleet
//! highstate. A kept copy is used while one `stat` of the path gives the
//! same device, inode, size, modification and change times as when it was
//! read.
//!
//! Timestamps are only as fine as the kernel's clock tick, so a file
//! rewritten within the tick of its read, at the same size, would look
//! unchanged. As git does with its index ("racy" entries), a file is kept
//! only when its change time is [`SETTLED`](crate::inputs::SETTLED) older
//! than the moment its read began: any later write moves the change time
//! (which no user can set back) past the kept one. Files written just now are read every time.

use std::collections::HashMap;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};
use std::time::{Duration, SystemTime};

use crate::inputs::{self, Stamp, SETTLED};
/// Bytes kept at most, all files together; past it the table starts over.
const MAX_BYTES: usize = 64 << 20;
/// Larger files are read every time.
const MAX_FILE: u64 = 1 << 20;

#[derive(Default)]
struct Table {
    files: HashMap<PathBuf, (Stamp, Arc<[u8]>)>,
    bytes: usize,
}

fn table() -> MutexGuard<'static, Table> {
    static TABLE: OnceLock<Mutex<Table>> = OnceLock::new();
    process_table(&TABLE)
}

/// One of the tables a compile keeps for the whole process, locked. A
/// panic while holding the lock leaves plain data behind, so a poisoned
/// lock is taken as is.
pub(crate) fn process_table<T: Default>(
    cell: &'static OnceLock<Mutex<T>>,
) -> MutexGuard<'static, T> {
    cell.get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|p| p.into_inner())
}

/// The bytes of `path` (as `std::fs::read` gives them, with its errors).
pub fn read(path: &Path) -> std::io::Result<Arc<[u8]>> {
    read_settled(path, SETTLED)
}

/// The text of `path` (as `std::fs::read_to_string` gives it, with its
/// errors).
pub fn read_to_string(path: &Path) -> std::io::Result<Arc<str>> {
    let bytes = read(path)?;
    match std::str::from_utf8(&bytes) {
        Ok(text) => Ok(Arc::from(text)),
        Err(_) => Err(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            "stream did not contain valid UTF-8",
        )),
    }
}

fn read_settled(path: &Path, margin: Duration) -> std::io::Result<Arc<[u8]>> {
    let read = read_stamped(path, margin);
    // A recording compile notes what it saw: the file's stamp, or that it
    // was not there. Any other failure is not the disk's settled state.
    match &read {
        Ok((stamp, _)) => inputs::note(path, Some(*stamp)),
        Err(e)
            if matches!(
                e.kind(),
                std::io::ErrorKind::NotFound | std::io::ErrorKind::NotADirectory
            ) =>
        {
            inputs::note(path, None)
        }
        Err(e) => inputs::volatile(|| format!("{}: {e}", path.display())),
    }
    read.map(|(_, bytes)| bytes)
}

fn read_stamped(path: &Path, margin: Duration) -> std::io::Result<(Stamp, Arc<[u8]>)> {
    let now = SystemTime::now();
    // Only a kept copy needs the path's `stat` (a one-shot process such as
    // brine-call keeps nothing yet: it opens and reads each file once).
    let kept = table()
        .files
        .get(path)
        .map(|(stamp, bytes)| (*stamp, bytes.clone()));
    if let Some((kept, bytes)) = kept {
        if Stamp::of(&std::fs::metadata(path)?) == kept {
            return Ok((kept, bytes));
        }
    }
    // Stamped from the open file, so the stamp kept is the one of the
    // bytes read (a rename in between gives another inode).
    let mut file = std::fs::File::open(path)?;
    let stamp = Stamp::of(&file.metadata()?);
    let mut buf = Vec::with_capacity(usize::try_from(stamp.size()).unwrap_or(0).min(1 << 20));
    file.read_to_end(&mut buf)?;
    let bytes: Arc<[u8]> = Arc::from(buf);
    if stamp.size() <= MAX_FILE
        && bytes.len() as u64 == stamp.size()
        && stamp.settled_before(now, margin)
    {
        let mut t = table();
        if t.bytes.saturating_add(bytes.len()) > MAX_BYTES {
            *t = Table::default();
        }
        t.bytes = t.bytes.saturating_add(bytes.len());
        if let Some((_, old)) = t.files.insert(path.to_path_buf(), (stamp, bytes.clone())) {
            t.bytes = t.bytes.saturating_sub(old.len());
        }
    }
    Ok((stamp, bytes))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kept(path: &Path) -> bool {
        table().files.contains_key(path)
    }

    #[test]
    fn a_file_written_just_now_is_read_every_time() {
        let td = tempfile::tempdir().unwrap();
        let p = td.path().join("a.sls");
        std::fs::write(&p, "a: 1\n").unwrap();
        assert_eq!(&*read(&p).unwrap(), b"a: 1\n");
        assert!(!kept(&p));
        // Same size, within the same clock tick: still seen.
        std::fs::write(&p, "a: 2\n").unwrap();
        assert_eq!(&*read(&p).unwrap(), b"a: 2\n");
    }

    #[test]
    fn a_settled_file_is_kept_until_it_changes() {
        let td = tempfile::tempdir().unwrap();
        let p = td.path().join("b.sls");
        std::fs::write(&p, "b: 1\n").unwrap();
        // Settled at once for this test (a margin of zero).
        let first = read_settled(&p, Duration::ZERO).unwrap();
        assert!(kept(&p));
        let again = read_settled(&p, Duration::ZERO).unwrap();
        assert!(Arc::ptr_eq(&first, &again), "read from the table");
        // A rewrite one tick later, same size: the change time moved.
        std::thread::sleep(Duration::from_millis(30));
        std::fs::write(&p, "b: 2\n").unwrap();
        assert_eq!(&*read_settled(&p, Duration::ZERO).unwrap(), b"b: 2\n");
        // Replaced by another file (another inode).
        let q = td.path().join("b.new");
        std::fs::write(&q, "b: 3\n").unwrap();
        std::fs::rename(&q, &p).unwrap();
        assert_eq!(&*read_settled(&p, Duration::ZERO).unwrap(), b"b: 3\n");
        // Gone: the error `std::fs::read` gives.
        std::fs::remove_file(&p).unwrap();
        let e = read_settled(&p, Duration::ZERO).unwrap_err();
        assert_eq!(e.kind(), std::io::ErrorKind::NotFound);
    }

    #[test]
    fn text_that_is_not_utf8_is_refused_as_std_refuses_it() {
        let td = tempfile::tempdir().unwrap();
        let p = td.path().join("c.sls");
        std::fs::write(&p, b"\xff\xfe").unwrap();
        let ours = read_to_string(&p).unwrap_err();
        let std = std::fs::read_to_string(&p).unwrap_err();
        assert_eq!(ours.kind(), std.kind());
        assert_eq!(ours.to_string(), std.to_string());
    }
}
