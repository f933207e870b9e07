//! One user, one group and one shadow entry, as the account files and the
//! C library give them.

use nix::unistd::{Group, User};

/// One user (a `/etc/passwd` line, or what `getpwnam` gives).
#[derive(Debug, Clone, PartialEq)]
pub struct PasswdEntry {
    pub name: String,
    pub passwd: String,
    pub uid: i64,
    pub gid: i64,
    pub gecos: String,
    pub home: String,
    pub shell: String,
}

/// One group (a `/etc/group` line, or what `getgrnam` gives).
#[derive(Debug, Clone, PartialEq)]
pub struct GroupEntry {
    pub name: String,
    pub passwd: String,
    pub gid: i64,
    pub members: Vec<String>,
}

/// A shadow entry; empty numeric fields are -1, as Python's `spwd` gives them.
#[derive(Debug, Clone, PartialEq)]
pub struct ShadowEntry {
    pub name: String,
    pub passwd: String,
    pub lstchg: i64,
    pub min: i64,
    pub max: i64,
    pub warn: i64,
    pub inact: i64,
    pub expire: i64,
}

impl From<User> for PasswdEntry {
    fn from(u: User) -> PasswdEntry {
        PasswdEntry {
            name: u.name,
            passwd: u.passwd.to_string_lossy().into_owned(),
            uid: i64::from(u.uid.as_raw()),
            gid: i64::from(u.gid.as_raw()),
            gecos: u.gecos.to_string_lossy().into_owned(),
            home: u.dir.to_string_lossy().into_owned(),
            shell: u.shell.to_string_lossy().into_owned(),
        }
    }
}

impl From<Group> for GroupEntry {
    fn from(g: Group) -> GroupEntry {
        GroupEntry {
            name: g.name,
            passwd: g.passwd.to_string_lossy().into_owned(),
            gid: i64::from(g.gid.as_raw()),
            members: g.mem,
        }
    }
}

// A failed lookup (no such entry, a name with a NUL byte, an NSS error)
// reads as "no such user/group", as Python's KeyError does for Salt.
