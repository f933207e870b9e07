//! The local account files (`/etc/passwd`, `/etc/group`, `/etc/shadow`)
//! under a root, read the way Salt's `useradd`, `groupadd` and
//! `linux_shadow` modules see them: `user.info`, `group.info`,
//! `shadow.info`, the user's group list (`salt.utils.user.get_group_list`)
//! and `file.group_to_gid`. The user and group states read these files
//! (the ones `useradd` and `groupadd` write), so tests can point them at a
//! scratch root.

use super::entries::{GroupEntry, PasswdEntry, ShadowEntry};
use brine_core::{Map, Value};
use std::path::{Path, PathBuf};

/// Where the account files live (`/` normally; a scratch folder in tests).
#[derive(Debug, Clone)]
pub struct EtcRoot(pub PathBuf);

impl Default for EtcRoot {
    fn default() -> EtcRoot {
        EtcRoot(PathBuf::from("/"))
    }
}

impl EtcRoot {
    /// A root under the temp dir holding the three account files as
    /// given: for tests that must not read or write the real `/etc`.
    pub fn scratch(tag: &str, passwd: &str, group: &str, shadow: &str) -> std::io::Result<EtcRoot> {
        let dir = std::env::temp_dir().join(format!("brine-etc-{tag}-{}", std::process::id()));
        let etc = dir.join("etc");
        std::fs::create_dir_all(&etc)?;
        std::fs::write(etc.join("passwd"), passwd)?;
        std::fs::write(etc.join("group"), group)?;
        std::fs::write(etc.join("shadow"), shadow)?;
        Ok(EtcRoot(dir))
    }

    fn path(&self, file: &str) -> PathBuf {
        self.0.join("etc").join(file)
    }

    /// Path of `/etc/shadow` under this root.
    pub fn shadow_path(&self) -> PathBuf {
        self.path("shadow")
    }

    fn lines(&self, file: &str) -> Vec<String> {
        read_lines(&self.path(file))
    }

    pub fn passwd(&self) -> Vec<PasswdEntry> {
        self.lines("passwd")
            .iter()
            .filter_map(|l| parse_passwd_line(l))
            .collect()
    }

    pub fn groups(&self) -> Vec<GroupEntry> {
        self.lines("group")
            .iter()
            .filter_map(|l| parse_group_line(l))
            .collect()
    }

    pub fn getpwnam(&self, name: &str) -> Option<PasswdEntry> {
        self.passwd().into_iter().find(|p| p.name == name)
    }

    pub fn getgrnam(&self, name: &str) -> Option<GroupEntry> {
        self.groups().into_iter().find(|g| g.name == name)
    }

    pub fn getgrgid(&self, gid: i64) -> Option<GroupEntry> {
        self.groups().into_iter().find(|g| g.gid == gid)
    }

    pub fn getspnam(&self, name: &str) -> Option<ShadowEntry> {
        self.lines("shadow")
            .iter()
            .filter_map(|l| parse_shadow_line(l))
            .find(|s| s.name == name)
    }

    /// The names of the groups `user` belongs to, primary group included,
    /// sorted (Salt's `get_group_list`; every group sharing one of the
    /// user's gids is listed).
    pub fn group_list(&self, user: &str) -> Vec<String> {
        let Some(pw) = self.getpwnam(user) else {
            return Vec::new();
        };
        let groups = self.groups();
        let mut gids = vec![pw.gid];
        gids.extend(
            groups
                .iter()
                .filter(|g| g.members.iter().any(|m| m == user))
                .map(|g| g.gid),
        );
        let mut names: Vec<String> = groups
            .iter()
            .filter(|g| gids.contains(&g.gid))
            .map(|g| g.name.clone())
            .collect();
        names.sort();
        names.dedup();
        names
    }

    /// `user.info`: the mapping Salt returns, keys in its order; `None`
    /// when the user does not exist.
    pub fn user_info(&self, name: &str) -> Option<Map> {
        let pw = self.getpwnam(name)?;
        let mut gecos: Vec<String> = pw.gecos.splitn(5, ',').map(str::to_string).collect();
        gecos.resize(5, String::new());
        let mut m = Map::default();
        m.insert("gid".into(), Value::Int(pw.gid));
        m.insert(
            "groups".into(),
            Value::List(self.group_list(name).into_iter().map(Value::Str).collect()),
        );
        m.insert("home".into(), Value::Str(pw.home));
        m.insert("name".into(), Value::Str(pw.name));
        m.insert("passwd".into(), Value::Str(pw.passwd));
        m.insert("shell".into(), Value::Str(pw.shell));
        m.insert("uid".into(), Value::Int(pw.uid));
        for (key, val) in ["fullname", "roomnumber", "workphone", "homephone", "other"]
            .into_iter()
            .zip(gecos)
        {
            m.insert(key.into(), Value::Str(val));
        }
        Some(m)
    }

    /// `group.info`: `{name, passwd, gid, members}`, `None` when absent.
    pub fn group_info(&self, name: &str) -> Option<Map> {
        self.getgrnam(name).map(group_map)
    }

    /// `shadow.info` with Salt's all-empty answer for a missing entry.
    pub fn shadow_info(&self, name: &str) -> Map {
        let mut m = Map::default();
        match self.getspnam(name) {
            Some(s) => {
                m.insert("name".into(), Value::Str(s.name));
                m.insert("passwd".into(), Value::Str(s.passwd));
                for (k, v) in [
                    ("lstchg", s.lstchg),
                    ("min", s.min),
                    ("max", s.max),
                    ("warn", s.warn),
                    ("inact", s.inact),
                    ("expire", s.expire),
                ] {
                    m.insert(k.into(), Value::Int(v));
                }
            }
            None => {
                for k in [
                    "name", "passwd", "lstchg", "min", "max", "warn", "inact", "expire",
                ] {
                    m.insert(k.into(), Value::Str(String::new()));
                }
            }
        }
        m
    }

    /// `file.group_to_gid`: the gid of a group name (an int stays as is),
    /// `None` where Salt answers `""`.
    pub fn group_to_gid(&self, group: &Value) -> Option<i64> {
        match group {
            Value::Int(i) => Some(*i),
            Value::Null => None,
            other => self.getgrnam(&other.to_python_str()).map(|g| g.gid),
        }
    }

    /// `file.gid_to_group`: the group name for a gid (or a name that is
    /// already one); the gid itself when no group has it.
    pub fn gid_to_group(&self, gid: &Value) -> Value {
        let numeric = match gid {
            Value::Int(i) => Some(*i),
            Value::Str(s) => s.trim().parse::<i64>().ok(),
            _ => None,
        };
        let gid = match numeric {
            Some(n) => n,
            None => match self.group_to_gid(gid) {
                Some(n) => n,
                None => return Value::Str(String::new()),
            },
        };
        match self.getgrgid(gid) {
            Some(g) => Value::Str(g.name),
            None => Value::Int(gid),
        }
    }
}

pub fn group_map(g: GroupEntry) -> Map {
    let mut m = Map::default();
    m.insert("name".into(), Value::Str(g.name));
    m.insert("passwd".into(), Value::Str(g.passwd));
    m.insert("gid".into(), Value::Int(g.gid));
    m.insert(
        "members".into(),
        Value::List(g.members.into_iter().map(Value::Str).collect()),
    );
    m
}

fn read_lines(path: &Path) -> Vec<String> {
    match std::fs::read(path) {
        Ok(bytes) => String::from_utf8_lossy(&bytes)
            .lines()
            .map(str::to_string)
            .collect(),
        Err(_) => Vec::new(),
    }
}

/// One `/etc/passwd` line; `None` for comments and malformed lines.
pub fn parse_passwd_line(line: &str) -> Option<PasswdEntry> {
    let f: Vec<&str> = line.trim().split(':').collect();
    if f.len() < 7 {
        return None;
    }
    Some(PasswdEntry {
        name: f[0].to_string(),
        passwd: f[1].to_string(),
        uid: f[2].parse().ok()?,
        gid: f[3].parse().ok()?,
        gecos: f[4].to_string(),
        home: f[5].to_string(),
        shell: f[6..].join(":"),
    })
}

/// One `/etc/group` line; `None` for malformed lines.
pub fn parse_group_line(line: &str) -> Option<GroupEntry> {
    let f: Vec<&str> = line.trim().split(':').collect();
    if f.len() < 4 {
        return None;
    }
    Some(GroupEntry {
        name: f[0].to_string(),
        passwd: f[1].to_string(),
        gid: f[2].parse().ok()?,
        members: f[3]
            .split(',')
            .map(str::trim)
            .filter(|m| !m.is_empty())
            .map(str::to_string)
            .collect(),
    })
}

/// One `/etc/shadow` line; `None` for malformed lines.
pub fn parse_shadow_line(line: &str) -> Option<ShadowEntry> {
    let f: Vec<&str> = line.trim().split(':').collect();
    if f.len() < 8 {
        return None;
    }
    let num = |s: &str| -> Option<i64> {
        if s.is_empty() {
            Some(-1)
        } else {
            s.parse().ok()
        }
    };
    Some(ShadowEntry {
        name: f[0].to_string(),
        passwd: f[1].to_string(),
        lstchg: num(f[2])?,
        min: num(f[3])?,
        max: num(f[4])?,
        warn: num(f[5])?,
        inact: num(f[6])?,
        expire: num(f[7])?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch_root(tag: &str, passwd: &str, group: &str, shadow: &str) -> EtcRoot {
        EtcRoot::scratch(tag, passwd, group, shadow).unwrap()
    }

    #[test]
    fn user_info_has_salts_keys_and_groups() {
        let root = scratch_root(
            "info",
            "fred:x:1001:1001:Fred Jones,12,555,,x,y:/home/fred:/bin/sh\nbad line\n",
            "fred:x:1001:\nwheel:x:10:bob,fred\nalias:x:1001:\nother:x:12:bob\n",
            "fred:$6$s$h:20000:0:99999:7:::\n",
        );
        let info = root.user_info("fred").unwrap();
        let keys: Vec<&str> = info.keys().map(String::as_str).collect();
        assert_eq!(
            keys,
            [
                "gid",
                "groups",
                "home",
                "name",
                "passwd",
                "shell",
                "uid",
                "fullname",
                "roomnumber",
                "workphone",
                "homephone",
                "other"
            ]
        );
        // Both groups with gid 1001 count, as in Salt's get_group_list.
        assert_eq!(
            info["groups"],
            Value::List(vec!["alias".into(), "fred".into(), "wheel".into()])
        );
        assert_eq!(info["fullname"], Value::Str("Fred Jones".into()));
        assert_eq!(info["other"], Value::Str("x,y".into()));
        assert!(root.user_info("nobody").is_none());
        let sh = root.shadow_info("fred");
        assert_eq!(sh["inact"], Value::Int(-1));
        assert_eq!(sh["max"], Value::Int(99999));
        assert_eq!(root.shadow_info("nobody")["min"], Value::Str(String::new()));
        assert_eq!(
            root.gid_to_group(&Value::Int(10)),
            Value::Str("wheel".into())
        );
        assert_eq!(root.gid_to_group(&Value::Int(4242)), Value::Int(4242));
        assert_eq!(root.group_to_gid(&Value::Str("other".into())), Some(12));
        assert_eq!(root.group_to_gid(&Value::Str("nope".into())), None);
        let _ = std::fs::remove_dir_all(&root.0);
    }
}
