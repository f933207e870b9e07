//! A user's authorized_keys file as Salt's `ssh` module reads and writes
//! it: one key per line (`[options] enc key [comment]`), keys told apart
//! by their base64 body, a key's fingerprint its hash (sha256 unless
//! told otherwise).

use brine_core::{Map, Value};
use brine_host::accounts::{user_by_name, PasswdEntry};
use sha2::Digest;
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

/// Salt's `CommandExecutionError` from the ssh functions: its message.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{0}")]
pub struct SshError(pub String);

/// One key of an authorized_keys file.
#[derive(Debug, Clone, PartialEq)]
pub struct AuthKey {
    pub enc: String,
    pub comment: String,
    pub options: Vec<String>,
    pub fingerprint: String,
}

impl AuthKey {
    /// As Salt's `auth_keys` shows it.
    pub fn to_value(&self) -> Value {
        let mut m = Map::default();
        m.insert("enc".into(), Value::Str(self.enc.clone()));
        m.insert("comment".into(), Value::Str(self.comment.clone()));
        m.insert(
            "options".into(),
            Value::List(self.options.iter().cloned().map(Value::Str).collect()),
        );
        m.insert("fingerprint".into(), Value::Str(self.fingerprint.clone()));
        Value::Map(m)
    }
}

/// The key line pattern Salt's `_validate_keys` and `rm_auth_key` use:
/// options, then `enc key [comment]`.
fn line_re() -> regex::Regex {
    regex::Regex::new(r"^(.*?)\s?((?:sk-)?(?:ssh\-|ecds)[\w@.-]+\s.+)$").expect("a valid pattern")
}

/// Salt's `_fingerprint`: the hash of the base64-decoded key, as hex
/// pairs joined by ':'; `None` when the key is not base64.
pub fn fingerprint(key: &str, hash_type: Option<&str>) -> Result<Option<String>, SshError> {
    let hash = hash_type.unwrap_or("sha256").to_lowercase();
    let Ok(raw) = <base64ct::Base64 as base64ct::Encoding>::decode_vec(key) else {
        if !matches!(hash.as_str(), "sha256" | "md5" | "sha1" | "sha512") {
            return Err(unsupported(&hash));
        }
        return Ok(None);
    };
    let hex: String = match hash.as_str() {
        "sha256" => hex(&sha2::Sha256::digest(&raw)),
        "sha512" => hex(&sha2::Sha512::digest(&raw)),
        "sha1" => hex(&sha1::Sha1::digest(&raw)),
        "md5" => hex(&md5::Md5::digest(&raw)),
        other => return Err(unsupported(other)),
    };
    let pairs: Vec<&str> = (0..hex.len())
        .step_by(2)
        .map(|i| &hex[i..(i + 2).min(hex.len())])
        .collect();
    Ok(Some(pairs.join(":")))
}

fn unsupported(hash: &str) -> SshError {
    SshError(format!(
        "The fingerprint_hash_type {hash} is not supported."
    ))
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// Salt's `_refine_enc`: the key type's full name.
pub fn refine_enc(enc: &str) -> Result<String, SshError> {
    Ok(match enc {
        "r" | "rsa" | "ssh-rsa" => "ssh-rsa".into(),
        "d" | "dsa" | "dss" | "ssh-dss" => "ssh-dss".into(),
        "e" | "ecdsa" => "ecdsa-sha2-nistp256".into(),
        "ecdsa-sha2-nistp521" | "ecdsa-sha2-nistp384" | "ecdsa-sha2-nistp256" => enc.into(),
        "ed25519" | "ssh-ed25519" => "ssh-ed25519".into(),
        "rsa-sha2-512"
        | "rsa-sha2-256"
        | "rsa-sha2-512-cert-v01@openssh.com"
        | "rsa-sha2-256-cert-v01@openssh.com"
        | "ssh-rsa-cert-v01@openssh.com"
        | "ecdsa-sha2-nistp256-cert-v01@openssh.com"
        | "ecdsa-sha2-nistp384-cert-v01@openssh.com"
        | "ecdsa-sha2-nistp521-cert-v01@openssh.com"
        | "sk-ecdsa-sha2-nistp256@openssh.com"
        | "sk-ecdsa-sha2-nistp256-cert-v01@openssh.com"
        | "ssh-ed25519-cert-v01@openssh.com"
        | "sk-ssh-ed25519@openssh.com"
        | "sk-ssh-ed25519-cert-v01@openssh.com" => enc.into(),
        _ => return Err(SshError(format!("Incorrect encryption key type '{enc}'."))),
    })
}

/// Salt's `_format_auth_line`.
pub fn format_line(key: &str, enc: &str, comment: &str, options: &[String]) -> String {
    let mut line = String::new();
    if !options.is_empty() {
        line.push_str(&options.join(","));
        line.push(' ');
    }
    line.push_str(&format!("{enc} {key} {comment}\n"));
    line
}

/// The user's entry, or Salt's "does not exist" error.
pub fn user(name: &str) -> Result<PasswdEntry, SshError> {
    user_by_name(name).ok_or_else(|| SshError(format!("User '{name}' does not exist")))
}

/// Salt's `_get_config_file`: `%h`, `%u` and `%%` expanded, a relative
/// path under the user's home.
pub fn config_file(user_name: &str, config: &str) -> Result<PathBuf, SshError> {
    let u = user(user_name)?;
    let mut out = String::new();
    let mut chars = config.chars();
    while let Some(c) = chars.next() {
        if c != '%' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('%') => out.push('%'),
            Some('h') => out.push_str(&u.home),
            Some('u') => out.push_str(user_name),
            Some(other) => {
                return Err(SshError(format!(
                    "AuthorizedKeysFile path: unknown token character \"%{other}\""
                )))
            }
            None => {
                return Err(SshError(
                    "AuthorizedKeysFile path: Last character can't be escape character".into(),
                ))
            }
        }
    }
    let p = PathBuf::from(&out);
    Ok(if p.is_absolute() {
        p
    } else {
        Path::new(&u.home).join(p)
    })
}

/// Salt's `_validate_keys`: the keys of a file, by key body.
pub fn read_keys(
    file: &Path,
    hash_type: Option<&str>,
) -> Result<indexmap::IndexMap<String, AuthKey>, SshError> {
    let text = std::fs::read_to_string(file)
        .map_err(|_| SshError(format!("Problem reading ssh key file {}", file.display())))?;
    let re = line_re();
    let mut ret = indexmap::IndexMap::new();
    for line in text.lines() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let Some(c) = re.captures(line) else { continue };
        let comps: Vec<&str> = c[2].split_whitespace().collect();
        if comps.len() < 2 {
            continue;
        }
        let options = match c.get(1).map(|m| m.as_str()).filter(|o| !o.is_empty()) {
            Some(o) => o.split(',').map(str::to_string).collect(),
            None => Vec::new(),
        };
        let Some(fp) = fingerprint(comps[1], hash_type)? else {
            continue;
        };
        ret.insert(
            comps[1].to_string(),
            AuthKey {
                enc: comps[0].to_string(),
                comment: comps[2..].join(" "),
                options,
                fingerprint: fp,
            },
        );
    }
    Ok(ret)
}

/// Salt's `auth_keys` for one user: `{}` when the file is missing.
pub fn auth_keys(
    user_name: &str,
    config: &str,
    hash_type: Option<&str>,
) -> Result<indexmap::IndexMap<String, AuthKey>, SshError> {
    match config_file(user_name, config) {
        Ok(full) if full.is_file() => read_keys(&full, hash_type),
        _ => Ok(indexmap::IndexMap::new()),
    }
}

/// Salt's `check_key`: "add", "update" or "exists".
pub fn check_key(
    user_name: &str,
    key: &str,
    enc: &str,
    comment: &str,
    options: &[String],
    config: &str,
    hash_type: Option<&str>,
) -> Result<&'static str, SshError> {
    let enc = refine_enc(enc)?;
    let current = auth_keys(user_name, config, hash_type)?;
    let Some(cur) = current.get(key) else {
        return Ok("add");
    };
    let nline = format_line(key, &enc, comment, options);
    let cline = format_line(key, &cur.enc, &cur.comment, &cur.options);
    Ok(if cline != nline { "update" } else { "exists" })
}

/// Salt's `set_auth_key`: "invalid", "fail", "Invalid public key",
/// "replace", "no change" or "new".
pub fn set_auth_key(
    user_name: &str,
    key: &str,
    enc: &str,
    comment: &str,
    options: &[String],
    config: &str,
    hash_type: Option<&str>,
) -> Result<&'static str, SshError> {
    if key.split_whitespace().count() > 1 {
        return Ok("invalid");
    }
    let enc = refine_enc(enc)?;
    let Some(u) = user_by_name(user_name) else {
        return Ok("fail");
    };
    if fingerprint(key, hash_type)?.is_none() {
        return Ok("Invalid public key");
    }
    match check_key(user_name, key, &enc, comment, options, config, hash_type)? {
        "update" => {
            replace_key(user_name, key, &enc, comment, options, config)?;
            return Ok("replace");
        }
        "exists" => return Ok("no change"),
        _ => {}
    }
    let line = format_line(key, &enc, comment, options);
    let full = config_file(user_name, config)?;
    if full.starts_with(&u.home) && !Path::new(&u.home).is_dir() {
        return Ok("fail");
    }
    let owner = |p: &Path| {
        if brine_host::accounts::euid() == 0 {
            let _ =
                std::os::unix::fs::chown(p, u32::try_from(u.uid).ok(), u32::try_from(u.gid).ok());
        }
    };
    if let Some(dir) = full.parent().filter(|d| !d.is_dir()) {
        std::fs::create_dir_all(dir)
            .map_err(|e| SshError(format!("Could not write to key file: {e}")))?;
        owner(dir);
        set_mode(dir, 0o700);
    }
    let new_file = !full.is_file();
    let write = || -> std::io::Result<()> {
        let mut f = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .read(true)
            .open(&full)?;
        if !new_file && f.seek(SeekFrom::End(0))? > 0 {
            f.seek(SeekFrom::End(-1))?;
            let mut last = [0u8; 1];
            f.read_exact(&mut last)?;
            if last[0] != b'\n' {
                f.write_all(b"\n")?;
            }
        }
        f.write_all(line.as_bytes())
    };
    write().map_err(|e| SshError(format!("Could not write to key file: {e}")))?;
    if new_file {
        owner(&full);
        set_mode(&full, 0o600);
    }
    Ok("new")
}

fn set_mode(p: &Path, mode: u32) {
    use std::os::unix::fs::PermissionsExt;
    let _ = std::fs::set_permissions(p, std::fs::Permissions::from_mode(mode));
}

/// Salt's `_replace_auth_key`: the key's line rewritten in place.
fn replace_key(
    user_name: &str,
    key: &str,
    enc: &str,
    comment: &str,
    options: &[String],
    config: &str,
) -> Result<(), SshError> {
    let auth_line = format_line(key, enc, comment, options);
    let full = config_file(user_name, config)?;
    let problem =
        |e: std::io::Error| SshError(format!("Problem reading or writing to key file: {e}"));
    let text = std::fs::read_to_string(&full).map_err(problem)?;
    let re = regex::Regex::new(
        r"((.*)\s)?((?:sk-)?(?:ssh|ecdsa)-[a-z0-9@.-]+)\s([a-zA-Z0-9+/]+={0,2})(\s(.*))?",
    )
    .expect("a valid pattern");
    let mut out = String::new();
    for line in text.lines() {
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        if !line.starts_with('#') && re.captures(line).is_some_and(|c| &c[4] == key) {
            out.push_str(&auth_line);
        } else {
            out.push_str(line);
            out.push('\n');
        }
    }
    std::fs::write(&full, out).map_err(problem)
}

/// Salt's `rm_auth_key`: "Key removed", "Key not present", ...
pub fn rm_auth_key(
    user_name: &str,
    key: &str,
    config: &str,
    hash_type: Option<&str>,
) -> Result<String, SshError> {
    let current = auth_keys(user_name, config, hash_type)?;
    if !current.contains_key(key) {
        return Ok("Key not present".into());
    }
    let full = config_file(user_name, config)?;
    if !full.is_file() {
        return Ok(format!(
            "Authorized keys file {} not present",
            full.display()
        ));
    }
    let Ok(text) = std::fs::read_to_string(&full) else {
        return Ok("Key not removed".into());
    };
    let re = line_re();
    let mut out = String::new();
    for line in text.lines() {
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        if !line.starts_with('#') {
            let Some(c) = re.captures(line) else { continue };
            let comps: Vec<&str> = c[2].split_whitespace().collect();
            if comps.len() >= 2 && comps[1] == key {
                continue;
            }
        }
        out.push_str(line);
        out.push('\n');
    }
    if std::fs::write(&full, out).is_err() {
        return Ok("Key not removed".into());
    }
    Ok("Key removed".into())
}
