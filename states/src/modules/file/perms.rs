//! Salt's `file.check_perms`: compare owner, group and mode with what is
//! asked, change them (unless testing), and record the changes and failures
//! in the state's return the way Salt words them.

use super::fsutil::{self, Owner};
use crate::StateReturn;
use brine_core::Value;
use std::path::Path;

/// What the path looked like before (`perms['lmode']` in Salt).
pub struct Before {
    pub lmode: String,
}

/// Check and fix `name`'s ownership and mode, adding `user`/`group`/`mode`
/// changes to `ret` and failures to its comment (joined with `"; "` after
/// any comment already there). In test mode nothing changes and the
/// differences are reported as changes with result `None`.
pub fn check_perms(
    name: &Path,
    ret: &mut StateReturn,
    user: Option<&Owner>,
    group: Option<&Owner>,
    mode: Option<&str>,
    follow_symlinks: bool,
    test: bool,
) -> Result<Before, fsutil::FileError> {
    let mode = mode.map(fsutil::normalize_mode_str);
    let orig_comment = std::mem::take(&mut ret.comment);
    let mut comments: Vec<String> = Vec::new();
    let cur = fsutil::stats(name, follow_symlinks)?;
    let before = Before {
        lmode: cur.mode.clone(),
    };
    let is_link = std::fs::symlink_metadata(name)
        .map(|m| m.file_type().is_symlink())
        .unwrap_or(false);

    let cuser = user.filter(|u| !u.matches(&cur.user, cur.uid));
    let cgroup = group.filter(|g| !g.matches(&cur.group, cur.gid));
    if (cuser.is_some() || cgroup.is_some()) && !test {
        let follow = !is_link || follow_symlinks;
        let uid = match user {
            Some(u) => fsutil::user_to_uid(u),
            None => Some(cur.uid),
        };
        let gid = match group {
            Some(g) => fsutil::group_to_gid(g),
            None => Some(cur.gid),
        };
        let mut err = String::new();
        if uid.is_none() {
            err.push_str("User does not exist\n");
        }
        if gid.is_none() {
            err.push_str("Group does not exist\n");
        }
        if !err.is_empty() {
            ret.result = Some(false);
            comments.push(err);
        } else if fsutil::chown(name, uid, gid, follow).is_err() {
            ret.result = Some(false);
        } else if !is_link {
            // chown clears setuid/setgid bits; put the old mode back first.
            fsutil::set_mode(name, &cur.mode);
        }
    }
    let mode_applies = !is_link || follow_symlinks;
    let mut cmode = false;
    if let Some(m) = &mode {
        if !test && mode_applies && *m != cur.mode {
            cmode = true;
            fsutil::set_mode(name, m);
        }
    }

    let post = fsutil::stats(name, follow_symlinks)?;
    if let Some(u) = user {
        if !u.matches(&post.user, post.uid) {
            if test {
                ret.changes.insert("user".into(), u.to_value());
            } else {
                ret.result = Some(false);
                comments.push(format!("Failed to change user to {}", u.display()));
            }
        } else if cuser.is_some() {
            ret.changes.insert("user".into(), u.to_value());
        }
    }
    if let Some(g) = group {
        if !g.matches(&post.group, post.gid) {
            if test {
                ret.changes.insert("group".into(), g.to_value());
            } else {
                ret.result = Some(false);
                comments.push(format!("Failed to change group to {}", g.display()));
            }
        } else if cgroup.is_some() {
            ret.changes.insert("group".into(), g.to_value());
        }
    }
    if let Some(m) = &mode {
        if mode_applies {
            if *m != post.mode {
                if test {
                    ret.changes.insert("mode".into(), Value::Str(m.clone()));
                } else {
                    ret.result = Some(false);
                    comments.push(format!("Failed to change mode to {m}"));
                }
            } else if cmode {
                ret.changes.insert("mode".into(), Value::Str(m.clone()));
            }
        }
    }
    if !orig_comment.is_empty() {
        comments.insert(0, orig_comment);
    }
    ret.comment = comments.join("; ");
    if test && !ret.changes.is_empty() {
        ret.result = None;
    }
    Ok(before)
}
