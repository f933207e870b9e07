//! `publisher_acl` and `publisher_acl_blacklist`: local users who are not
//! root running `brine`. Each user the ACL names gets a key file,
//! `<sock_dir>/.<user>_key`, readable by that user alone (mode 0400, owned
//! by them), as Salt's master makes them (Salt keeps them in its cachedir;
//! brine's cachedir stays private and `sock_dir`, which a local user must
//! reach anyway for the master's socket, holds them); reading it proves
//! who runs `brine`. The master then allows what the ACL's entries whose user
//! pattern matches allow, and refuses blacklisted users and functions to
//! everyone.

use brine_compile::matcher::glob::{expr_match, has_glob};
use brine_core::{Map, Value};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

#[derive(Debug, Clone, Default)]
pub struct PublisherAcl {
    /// user pattern → permissions.
    acl: Map,
    blacklist_users: Vec<String>,
    blacklist_modules: Vec<String>,
}

/// The key file of `user` in the master's `sock_dir`.
pub fn key_path(sock_dir: &Path, user: &str) -> PathBuf {
    sock_dir.join(format!(".{user}_key"))
}

fn strings(v: Option<&Value>) -> Vec<String> {
    match v {
        Some(Value::List(l)) => l.iter().map(Value::to_python_str).collect(),
        Some(Value::Str(s)) => vec![s.clone()],
        _ => Vec::new(),
    }
}

impl PublisherAcl {
    pub fn from_opts(o: &Map) -> PublisherAcl {
        let black = match o.get("publisher_acl_blacklist") {
            Some(Value::Map(m)) => m.clone(),
            _ => Map::default(),
        };
        PublisherAcl {
            acl: match o.get("publisher_acl") {
                Some(Value::Map(m)) => m.clone(),
                _ => Map::default(),
            },
            blacklist_users: strings(black.get("users")),
            blacklist_modules: strings(black.get("modules")),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.acl.is_empty()
    }

    /// Whether `user` or `fun` is on the blacklist (which binds everyone,
    /// root too, as in Salt).
    pub fn blacklisted(&self, user: &str, fun: &str) -> bool {
        self.blacklist_users.iter().any(|p| expr_match(user, p))
            || self.blacklist_modules.iter().any(|p| expr_match(fun, p))
    }

    /// What `user` may publish: the entries whose pattern matches them.
    pub fn auth_list(&self, user: &str) -> Vec<Value> {
        let mut out = Vec::new();
        for (pattern, perms) in &self.acl {
            if expr_match(user, pattern) {
                match perms {
                    Value::List(l) => out.extend(l.iter().cloned()),
                    other => out.push(other.clone()),
                }
            }
        }
        out
    }

    /// The system users the ACL names: its plain names, and the users in
    /// `/etc/passwd` its patterns match.
    pub fn users(&self) -> Vec<String> {
        let mut users: Vec<String> = Vec::new();
        let passwd = std::fs::read_to_string("/etc/passwd").unwrap_or_default();
        let system: Vec<&str> = passwd
            .lines()
            .filter_map(|l| l.split(':').next())
            .filter(|n| !n.is_empty())
            .collect();
        for pattern in self.acl.keys() {
            if has_glob(pattern) {
                users.extend(
                    system
                        .iter()
                        .filter(|u| expr_match(u, pattern))
                        .map(|u| u.to_string()),
                );
            } else {
                users.push(pattern.clone());
            }
        }
        users.sort();
        users.dedup();
        users
    }
}

/// Make (or read back) the key file of every user the ACL names that the
/// system knows, each readable by its user alone; their keys by user.
/// Users the system does not know get none (logged).
pub fn user_keys(sock_dir: &Path, acl: &PublisherAcl) -> HashMap<String, String> {
    let mut keys = HashMap::new();
    if let Err(e) = std::fs::create_dir_all(sock_dir) {
        tracing::warn!("publisher_acl: cannot make {}: {e}", sock_dir.display());
        return keys;
    }
    for user in acl.users() {
        if user == "root" {
            continue;
        }
        let Ok(Some(account)) = nix::unistd::User::from_name(&user) else {
            tracing::warn!("publisher_acl names {user}, who is not a user of this system");
            continue;
        };
        match user_key(sock_dir, &user, account.uid, account.gid) {
            Ok(k) => {
                keys.insert(user, k);
            }
            Err(e) => tracing::warn!("the key file of publisher_acl user {user}: {e}"),
        }
    }
    keys
}

fn user_key(
    sock_dir: &Path,
    user: &str,
    uid: nix::unistd::Uid,
    gid: nix::unistd::Gid,
) -> std::io::Result<String> {
    use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
    let path = key_path(sock_dir, user);
    if let Ok(k) = std::fs::read_to_string(&path) {
        let k = k.trim().to_string();
        if k.len() >= 32 {
            return Ok(k);
        }
    }
    let mut raw = [0u8; 20];
    brine_protocol::crypto::fill_random(&mut raw)
        .map_err(|e| std::io::Error::other(e.to_string()))?;
    let key: String = raw.iter().map(|b| format!("{b:02x}")).collect();
    let _ = std::fs::remove_file(&path);
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(&path)?;
    std::io::Write::write_all(&mut f, key.as_bytes())?;
    nix::unistd::fchown(&f, Some(uid), Some(gid)).map_err(std::io::Error::from)?;
    f.set_permissions(std::fs::Permissions::from_mode(0o400))?;
    Ok(key)
}

/// The name of the user running this process.
pub fn current_user() -> String {
    nix::unistd::User::from_uid(nix::unistd::geteuid())
        .ok()
        .flatten()
        .map(|u| u.name)
        .unwrap_or_else(|| "root".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn acl(j: serde_json::Value) -> PublisherAcl {
        match Value::from_json(&j) {
            Value::Map(m) => PublisherAcl::from_opts(&m),
            _ => PublisherAcl::default(),
        }
    }

    #[test]
    fn patterns_blacklists_and_users() {
        let a = acl(serde_json::json!({
            "publisher_acl": {"nobody": [{"web*": ["test.*"]}], "dev.*": ["grains.item"]},
            "publisher_acl_blacklist": {"users": ["mallory"], "modules": ["cmd.*"]}
        }));
        assert_eq!(a.auth_list("nobody").len(), 1);
        assert_eq!(a.auth_list("dev1").len(), 1);
        assert!(a.auth_list("ops").is_empty());
        assert!(a.blacklisted("mallory", "test.ping"));
        assert!(a.blacklisted("root", "cmd.run"));
        assert!(!a.blacklisted("nobody", "test.ping"));
        assert!(a.users().contains(&"nobody".to_string()));
    }
}
