//! Ownership of what `archive.extracted` unpacked: Salt runs
//! `file.directory(recurse=[user, group])` on each top-level folder and
//! `os.lchown` on each top-level file or link.

use std::os::unix::fs::MetadataExt;
use std::path::Path;

/// Whether `path` (not followed) lacks the wanted owner.
fn differs(path: &Path, uid: Option<u32>, gid: Option<u32>) -> bool {
    match std::fs::symlink_metadata(path) {
        Ok(md) => uid.is_some_and(|u| u != md.uid()) || gid.is_some_and(|g| g != md.gid()),
        Err(_) => false,
    }
}

/// `file.directory(dir, user, group, recurse)`: the folder and everything
/// under it given the owner (links themselves, not their targets). In test
/// mode nothing changes. `Ok(true)` when something had (or would have) to
/// change; `Err` when a change failed.
pub fn recurse(dir: &Path, uid: Option<u32>, gid: Option<u32>, test: bool) -> Result<bool, ()> {
    let mut changed = false;
    let mut stack = vec![dir.to_path_buf()];
    // Bounded like any walk of a tree we did not make.
    let mut budget = 10_000_000usize;
    while let Some(p) = stack.pop() {
        budget = budget.checked_sub(1).ok_or(())?;
        if differs(&p, uid, gid) {
            changed = true;
            if !test {
                std::os::unix::fs::lchown(&p, uid, gid).map_err(|_| ())?;
            }
        }
        let is_dir = std::fs::symlink_metadata(&p).is_ok_and(|m| m.is_dir());
        if is_dir {
            if let Ok(rd) = std::fs::read_dir(&p) {
                stack.extend(rd.flatten().map(|e| e.path()));
            }
        }
    }
    Ok(changed)
}

/// One top-level file or link: `Some(true)` when its owner changed (or
/// would), `Some(false)` when right, `None` when it could not be changed.
pub fn one(path: &Path, uid: Option<u32>, gid: Option<u32>, test: bool) -> Option<bool> {
    if !differs(path, uid, gid) {
        return Some(false);
    }
    if test {
        return Some(true);
    }
    std::os::unix::fs::lchown(path, uid, gid).ok().map(|_| true)
}
