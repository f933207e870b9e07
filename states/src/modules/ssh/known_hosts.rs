//! known_hosts files as Salt's `ssh` module keeps them: looked up and
//! cleaned with `ssh-keygen -F`/`-R`, hashed with `ssh-keygen -H`, remote
//! keys fetched with `ssh-keyscan`.

use super::authorized::{fingerprint, user, SshError};
use brine_core::{Map, Value};
use brine_host::exec::{self, CommandSpec};
use std::path::{Path, PathBuf};

const DEFAULT_PORT: i64 = 22;

/// One known_hosts entry as Salt shows it.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    pub hostname: String,
    pub key: String,
    /// None when a key was given without its type (Salt writes `None`).
    pub enc: Option<String>,
    /// None for an entry made from a given key (Salt shows none then).
    pub fingerprint: Option<String>,
    /// A port other than 22 on a new entry written as `[host]:port`.
    pub port: Option<i64>,
}

impl Entry {
    pub fn to_value(&self) -> Value {
        let mut m = Map::default();
        m.insert("hostname".into(), Value::Str(self.hostname.clone()));
        m.insert("key".into(), Value::Str(self.key.clone()));
        m.insert(
            "enc".into(),
            self.enc.clone().map_or(Value::Null, Value::Str),
        );
        if let Some(f) = &self.fingerprint {
            m.insert("fingerprint".into(), Value::Str(f.clone()));
        }
        if let Some(p) = self.port {
            m.insert("port".into(), Value::Int(p));
        }
        Value::Map(m)
    }
}

/// A list of entries as Salt shows it (None when empty).
pub fn entries_value(e: &[Entry]) -> Value {
    if e.is_empty() {
        Value::Null
    } else {
        Value::List(e.iter().map(Entry::to_value).collect())
    }
}

/// Salt's `_get_known_hosts_file`: the file, or the error dict's text.
pub fn file(config: Option<&str>, user_name: Option<&str>) -> Result<PathBuf, String> {
    let config = match (config, user_name) {
        (Some(c), _) => c.to_string(),
        (None, Some(_)) => ".ssh/known_hosts".into(),
        (None, None) => "/etc/ssh/ssh_known_hosts".into(),
    };
    let p = PathBuf::from(&config);
    if p.is_absolute() {
        return Ok(p);
    }
    match user_name {
        Some(u) => match user(u) {
            Ok(e) => Ok(Path::new(&e.home).join(p)),
            Err(_) => Err(format!("User {u} does not exist")),
        },
        None => Err("Cannot determine absolute path to file.".into()),
    }
}

/// `host` or `[host]:port` (Salt's `_hostname_and_port_to_ssh_hostname`).
fn ssh_hostname(host: &str, port: Option<i64>) -> String {
    match port {
        Some(p) if p != DEFAULT_PORT => format!("[{host}]:{p}"),
        _ => host.to_string(),
    }
}

/// Salt's `cmd.run`: stdout and stderr together, trailing whitespace off.
fn run(argv: &[&str]) -> Result<String, SshError> {
    let mut spec = CommandSpec::argv(argv);
    spec.merge_stderr = true;
    exec::run(&spec)
        .map(|r| r.stdout.trim_end().to_string())
        .map_err(|e| SshError(e.to_string()))
}

/// Salt's `_parse_openssh_output`.
fn parse(lines: &str, hash_type: Option<&str>) -> Result<Vec<Entry>, SshError> {
    let mut out = Vec::new();
    for line in lines.lines() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let parts: Vec<&str> = line.split_whitespace().collect();
        let [hostname, enc, key] = parts[..] else {
            continue;
        };
        let Some(fp) = fingerprint(key, hash_type)? else {
            continue;
        };
        out.push(Entry {
            hostname: hostname.into(),
            key: key.into(),
            enc: Some(enc.into()),
            fingerprint: Some(fp),
            port: None,
        });
    }
    Ok(out)
}

/// Salt's `get_known_host_entries`.
pub fn get_entries(
    user_name: Option<&str>,
    host: &str,
    config: Option<&str>,
    port: Option<i64>,
    hash_type: Option<&str>,
) -> Result<Result<Vec<Entry>, String>, SshError> {
    let full = match file(config, user_name) {
        Ok(f) => f,
        Err(e) => return Ok(Err(e)),
    };
    let full = full.display().to_string();
    let out = run(&["ssh-keygen", "-F", &ssh_hostname(host, port), "-f", &full])?;
    Ok(Ok(parse(&out, hash_type)?))
}

/// Salt's `check_known_host`: "add", "update" or "exists".
pub fn check(
    user_name: Option<&str>,
    host: &str,
    key: Option<&str>,
    fp: Option<&str>,
    config: Option<&str>,
    port: Option<i64>,
    hash_type: Option<&str>,
) -> Result<&'static str, SshError> {
    let known = get_entries(user_name, host, config, port, hash_type)?.unwrap_or_default();
    if known.is_empty() {
        return Ok("add");
    }
    Ok(match (key, fp) {
        (Some(k), _) => {
            if known.iter().any(|e| e.key == k) {
                "exists"
            } else {
                "update"
            }
        }
        (None, Some(f)) => {
            if known.iter().any(|e| e.fingerprint.as_deref() == Some(f)) {
                "exists"
            } else {
                "update"
            }
        }
        (None, None) => "exists",
    })
}

/// Salt's `recv_known_host_entries` (`ssh-keyscan`).
pub fn scan(
    host: &str,
    enc: Option<&str>,
    port: Option<i64>,
    hashed: bool,
    timeout: i64,
    hash_type: Option<&str>,
) -> Result<Vec<Entry>, SshError> {
    let port = port.map(|p| p.to_string());
    let timeout = timeout.to_string();
    let mut argv = vec!["ssh-keyscan"];
    if let Some(p) = &port {
        argv.extend(["-p", p]);
    }
    if let Some(e) = enc {
        argv.extend(["-t", e]);
    }
    if hashed {
        argv.push("-H");
    }
    argv.extend(["-T", &timeout, host]);
    let mut spec = CommandSpec::argv(&argv);
    spec.merge_stderr = false;
    let mut lines = String::new();
    for _ in 0..5 {
        lines = exec::run(&spec).map(|r| r.stdout).unwrap_or_default();
        if !lines.trim().is_empty() {
            break;
        }
    }
    parse(&lines, hash_type)
}

/// What `set_known_host` did.
pub enum Set {
    Exists,
    Updated { old: Vec<Entry>, new: Vec<Entry> },
    Error(String),
}

/// The settings of one `set_known_host` call.
pub struct Wanted<'a> {
    pub user: Option<&'a str>,
    pub host: &'a str,
    pub fingerprint: Option<&'a str>,
    pub key: Option<&'a str>,
    pub port: Option<i64>,
    pub enc: Option<&'a str>,
    pub config: Option<&'a str>,
    pub hashed: bool,
    pub timeout: i64,
    pub hash_type: Option<&'a str>,
}

/// Salt's `set_known_host`.
pub fn set(w: &Wanted) -> Result<Set, SshError> {
    if w.port.is_some_and(|p| p != DEFAULT_PORT) && w.hashed {
        return Ok(Set::Error(
            "argument port can not be used in conjunction with argument hash_known_hosts".into(),
        ));
    }
    let stored = match get_entries(w.user, w.host, w.config, w.port, w.hash_type)? {
        Ok(e) => e,
        Err(e) => return Ok(Set::Error(e)),
    };
    let stored_keys: Vec<&str> = stored
        .iter()
        .filter(|h| w.enc.is_none_or(|e| h.enc.as_deref() == Some(e)))
        .map(|h| h.key.as_str())
        .collect();
    let mut update = false;
    let mut check = false;
    if stored.is_empty()
        || w.fingerprint
            .is_some_and(|f| !stored.iter().any(|h| h.fingerprint.as_deref() == Some(f)))
        || w.key.is_some_and(|k| !stored_keys.contains(&k))
    {
        update = true;
    } else if w.key.is_none() && w.fingerprint.is_none() {
        check = true;
    }
    if !update && !check {
        return Ok(Set::Exists);
    }
    let new: Vec<Entry> = match w.key {
        Some(k) => vec![Entry {
            hostname: w.host.to_string(),
            enc: w.enc.map(str::to_string),
            key: k.to_string(),
            fingerprint: None,
            port: None,
        }],
        None => {
            let remote = scan(w.host, w.enc, w.port, w.hashed, w.timeout, w.hash_type)?;
            if remote.is_empty() {
                return Ok(Set::Error("Unable to receive remote host keys".into()));
            }
            if let Some(f) = w.fingerprint {
                if !remote.iter().any(|h| h.fingerprint.as_deref() == Some(f)) {
                    return Ok(Set::Error(
                        "Remote host public keys found but none of their fingerprints match \
                         the one you have provided"
                            .into(),
                    ));
                }
            }
            if check {
                let mut a: Vec<&str> = remote.iter().map(|h| h.key.as_str()).collect();
                let mut b = stored_keys.clone();
                a.sort();
                a.dedup();
                b.sort();
                b.dedup();
                if a == b {
                    return Ok(Set::Exists);
                }
            }
            remote
        }
    };
    let full = match file(w.config, w.user) {
        Ok(f) => f,
        Err(e) => return Ok(Set::Error(e)),
    };
    let shown = full.display().to_string();
    let origmode = std::fs::metadata(&full).ok().map(|m| {
        use std::os::unix::fs::PermissionsExt;
        m.permissions().mode()
    });
    if full.is_file() {
        let found = run(&[
            "ssh-keygen",
            "-F",
            &ssh_hostname(w.host, w.port),
            "-f",
            &shown,
        ])?;
        let remove = matched_lines(&found, w.enc);
        if !remove.is_empty() {
            let text = std::fs::read_to_string(&full).map_err(|e| {
                SshError(format!(
                    "Couldn't remove old entry(ies) from known hosts file: '{e}'"
                ))
            })?;
            let kept: String = text
                .split_inclusive('\n')
                .enumerate()
                .filter(|(i, _)| !remove.contains(&(i + 1)))
                .map(|(_, l)| l)
                .collect();
            std::fs::write(&full, kept).map_err(|e| {
                SshError(format!(
                    "Couldn't remove old entry(ies) from known hosts file: '{e}'"
                ))
            })?;
        }
    }
    let mut new = new;
    let mut lines = String::new();
    for e in &mut new {
        let enc = e.enc.as_deref().unwrap_or("None");
        if w.hashed || w.port.is_none_or(|p| p == DEFAULT_PORT) || e.hostname.contains(':') {
            lines.push_str(&format!("{} {enc} {}\n", e.hostname, e.key));
        } else {
            let port = w.port.unwrap_or(DEFAULT_PORT);
            e.port = Some(port);
            lines.push_str(&format!("[{}]:{port} {enc} {}\n", e.hostname, e.key));
        }
    }
    let owner = w.user.and_then(|u| user(u).ok());
    if let Some(dir) = full.parent().filter(|d| !d.is_dir()) {
        if std::fs::create_dir_all(dir).is_ok() {
            if let Some(u) = &owner {
                let _ = std::os::unix::fs::chown(
                    dir,
                    u32::try_from(u.uid).ok(),
                    u32::try_from(u.gid).ok(),
                );
                set_mode(dir, 0o700);
            }
        }
    }
    use std::io::Write;
    std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&full)
        .and_then(|mut f| f.write_all(lines.as_bytes()))
        .map_err(|e| SshError(format!("Couldn't append to known hosts file: '{e}'")))?;
    if w.user.is_some() && brine_host::accounts::euid() == 0 {
        // Salt writes the file, then chowns it to a user it looked up
        // without checking: a user that does not exist is a KeyError.
        let Some(u) = owner else {
            return Err(SshError("KeyError: 'uid'".into()));
        };
        let _ =
            std::os::unix::fs::chown(&full, u32::try_from(u.uid).ok(), u32::try_from(u.gid).ok());
    }
    set_mode(&full, origmode.map_or(0o600, |m| m & 0o7777));
    if w.key.is_some() && w.hashed {
        hash_file(&full)?;
    }
    Ok(Set::Updated { old: stored, new })
}

fn set_mode(p: &Path, mode: u32) {
    use std::os::unix::fs::PermissionsExt;
    let _ = std::fs::set_permissions(p, std::fs::Permissions::from_mode(mode));
}

/// `ssh-keygen -H -f FILE`, keeping the file's mode (Salt's
/// `hash_known_hosts`); `ssh-keygen` leaves `FILE.old` beside it.
pub fn hash_file(full: &Path) -> Result<String, SshError> {
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(full).map(|m| m.permissions().mode()).ok();
    let out = run(&["ssh-keygen", "-H", "-f", &full.display().to_string()])?;
    if let Some(m) = mode {
        set_mode(full, m & 0o7777);
    }
    Ok(out)
}

/// Salt's `_get_matched_host_line_numbers`: the line numbers `ssh-keygen
/// -F` found, for entries of type `enc` (every one when unset).
fn matched_lines(found: &str, enc: Option<&str>) -> Vec<usize> {
    let lines: Vec<&str> = found.lines().collect();
    let mut out = Vec::new();
    for pair in lines.chunks(2) {
        let [head, entry] = pair else { continue };
        let Some(no) = head.split_whitespace().last().and_then(|n| n.parse().ok()) else {
            continue;
        };
        let words: Vec<&str> = entry.split_whitespace().collect();
        if words.len() >= 2 && enc.is_none_or(|e| words[words.len() - 2] == e) {
            out.push(no);
        }
    }
    out
}

/// Salt's `rm_known_host`: the `ssh-keygen -R` output, or why not.
pub fn remove(
    user_name: Option<&str>,
    host: &str,
    config: Option<&str>,
    port: Option<i64>,
) -> Result<Result<String, String>, SshError> {
    let full = match file(config, user_name) {
        Ok(f) => f,
        Err(e) => return Ok(Err(e)),
    };
    if !full.is_file() {
        return Ok(Err(format!(
            "Known hosts file {} does not exist",
            full.display()
        )));
    }
    let out = run(&[
        "ssh-keygen",
        "-R",
        &ssh_hostname(host, port),
        "-f",
        &full.display().to_string(),
    ])?;
    if let Some(name) = user_name.filter(|_| brine_host::accounts::euid() == 0) {
        // As in `set`: Salt's lookup of a missing user is a KeyError.
        let u = user(name).map_err(|_| SshError("KeyError: 'uid'".into()))?;
        let _ =
            std::os::unix::fs::chown(&full, u32::try_from(u.uid).ok(), u32::try_from(u.gid).ok());
    }
    Ok(Ok(out))
}
