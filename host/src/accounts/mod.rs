//! Users and groups: the one place the runtime looks them up.
//!
//! Two sources, one set of entry types:
//! - the system's database ([`user_by_name`], [`group_by_gid`], ...), asked
//!   through the C library (NSS, as Python's `pwd` and `grp` do), for owner
//!   names and ids, home folders and the process's own user;
//! - the account files under a root ([`EtcRoot`]), which the user and group
//!   states read, since `useradd` and `groupadd` write exactly those files.

mod entries;
mod files;

pub use entries::{GroupEntry, PasswdEntry, ShadowEntry};
pub use files::{group_map, parse_group_line, parse_passwd_line, parse_shadow_line, EtcRoot};

use nix::unistd::{Gid, Group, Uid, User};

/// `pwd.getpwnam(name)`.
pub fn user_by_name(name: &str) -> Option<PasswdEntry> {
    User::from_name(name).ok().flatten().map(PasswdEntry::from)
}

/// `pwd.getpwuid(uid)`.
pub fn user_by_uid(uid: u32) -> Option<PasswdEntry> {
    User::from_uid(Uid::from_raw(uid))
        .ok()
        .flatten()
        .map(PasswdEntry::from)
}

/// `grp.getgrnam(name)`.
pub fn group_by_name(name: &str) -> Option<GroupEntry> {
    Group::from_name(name).ok().flatten().map(GroupEntry::from)
}

/// `grp.getgrgid(gid)`.
pub fn group_by_gid(gid: u32) -> Option<GroupEntry> {
    Group::from_gid(Gid::from_raw(gid))
        .ok()
        .flatten()
        .map(GroupEntry::from)
}

/// The uid of a user name.
pub fn uid_of(name: &str) -> Option<u32> {
    User::from_name(name).ok().flatten().map(|u| u.uid.as_raw())
}

/// The gid of a group name.
pub fn gid_of(name: &str) -> Option<u32> {
    Group::from_name(name)
        .ok()
        .flatten()
        .map(|g| g.gid.as_raw())
}

/// The effective uid of this process.
pub fn euid() -> u32 {
    nix::unistd::geteuid().as_raw()
}

/// The effective gid of this process.
pub fn egid() -> u32 {
    nix::unistd::getegid().as_raw()
}

/// Whether this process runs as root.
pub fn is_root() -> bool {
    nix::unistd::geteuid().is_root()
}

/// The user this process runs as (Salt's default `user` option), or its
/// uid as text when it has no name.
pub fn current_user() -> String {
    let uid = euid();
    user_by_uid(uid).map_or_else(|| uid.to_string(), |p| p.name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn root_is_found_both_ways() {
        let by_name = user_by_name("root").unwrap();
        assert_eq!((by_name.uid, by_name.gid), (0, 0));
        assert_eq!(user_by_uid(0).unwrap().name, "root");
        assert_eq!(group_by_gid(0).unwrap().name, "root");
        assert_eq!(group_by_name("root").unwrap().gid, 0);
        assert_eq!((uid_of("root"), gid_of("root")), (Some(0), Some(0)));
        assert!(user_by_name("no-such-user-brine").is_none());
        assert!(user_by_name("nul\0byte").is_none());
        assert!(gid_of("no-such-group-brine").is_none());
        // The system's view and the files' view agree on this machine.
        let root = EtcRoot::default();
        assert_eq!(root.getpwnam("root"), Some(by_name));
    }
}
