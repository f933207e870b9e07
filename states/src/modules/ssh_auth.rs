//! The `ssh_auth` state module (Salt's `salt/states/ssh_auth.py`): keys
//! in a user's authorized_keys file (`config`, relative to the user's
//! home unless absolute), given one by one (`name` as the key body, or a
//! whole `[options] enc key comment` line) or from a `source` file.

use super::ssh::authorized::{self, SshError};
use crate::{StateCall, StateFunction, StateModule, StateReturn};
use brine_core::sig;
use brine_core::Value;

/// The `ssh_auth` state module.
pub static MODULE: StateModule = StateModule {
    name: "ssh_auth",
    doc: "Keys in a user's authorized_keys file.",
    functions: &[
        StateFunction::new(
            "absent",
            sig!(
                name,
                user,
                enc = "ssh-rsa",
                comment = "",
                source = "",
                options = null,
                config = ".ssh/authorized_keys",
                fingerprint_hash_type = null
            ),
            "Remove the key NAME (or every key of the file SOURCE) from USER's \
authorized_keys file CONFIG.",
            absent,
        ),
        StateFunction::new(
            "present",
            sig!(
                name,
                user,
                enc = "ssh-rsa",
                comment = "",
                source = "",
                options = null,
                config = ".ssh/authorized_keys",
                fingerprint_hash_type = null,
                **kwargs
            ),
            "Make sure USER's authorized_keys file CONFIG holds the key NAME (its \
body, or a whole '[options] enc key comment' line) with ENC, COMMENT and OPTIONS, or \
every key of the file SOURCE.",
            present,
        ),
        StateFunction::new(
            "manage",
            sig!(
                name,
                ssh_keys,
                user,
                enc = "ssh-rsa",
                comment = "",
                source = "",
                options = null,
                config = ".ssh/authorized_keys",
                fingerprint_hash_type = null,
                **kwargs
            ),
            "Make USER's authorized_keys file CONFIG hold exactly the keys \
SSH_KEYS (each as `present` takes NAME): the others are removed.",
            manage,
        ),
    ],
};

/// A key as the call gives it.
struct Key {
    name: String,
    enc: String,
    comment: String,
    options: Vec<String>,
}

/// `fingerprint_hash_type`, when given.
fn hash_type(call: &StateCall) -> Option<String> {
    call.arg("fingerprint_hash_type")
        .filter(|v| !v.is_null())
        .map(Value::to_python_str)
}

fn str_arg(call: &StateCall, k: &str, default: &str) -> String {
    match call.arg(k) {
        None | Some(Value::Null) => default.to_string(),
        Some(v) => v.to_python_str(),
    }
}

fn options_arg(call: &StateCall) -> Vec<String> {
    match call.arg("options") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::List(l)) => l.iter().map(Value::to_python_str).collect(),
        Some(v) => vec![v.to_python_str()],
    }
}

/// Salt's reading of NAME: a whole key line gives options, enc, key and
/// comment; otherwise the first word is the key and the rest (split once,
/// or only when there are exactly two words) its comment.
fn parse_name(call: &StateCall, split_rest: bool) -> Key {
    let mut k = Key {
        name: call.name().to_string(),
        enc: str_arg(call, "enc", "ssh-rsa"),
        comment: str_arg(call, "comment", ""),
        options: options_arg(call),
    };
    let re = regex::Regex::new(r"^(.*?)\s?((?:sk-)?(?:ssh\-|ecds)[\w-]+\s.+)$")
        .expect("a valid pattern");
    let name = k.name.clone();
    match re.captures(&name) {
        None => {
            if split_rest {
                let mut parts = name.splitn(2, char::is_whitespace);
                k.name = parts.next().unwrap_or_default().to_string();
                if let Some(rest) = parts.next() {
                    k.comment = rest.trim_start().to_string();
                }
            } else {
                let words: Vec<&str> = name.split_whitespace().collect();
                k.name = words.first().copied().unwrap_or_default().to_string();
                if words.len() == 2 {
                    k.comment = words[1].to_string();
                }
            }
        }
        Some(c) => {
            if let Some(o) = c.get(1).filter(|o| !o.as_str().is_empty()) {
                k.options = o.as_str().split(',').map(str::to_string).collect();
            }
            let body = &c[2];
            let comps: Vec<String> = if split_rest {
                let mut v = Vec::new();
                let mut rest = body.trim_start();
                for _ in 0..2 {
                    match rest.split_once(char::is_whitespace) {
                        Some((a, b)) => {
                            v.push(a.to_string());
                            rest = b.trim_start();
                        }
                        None => break,
                    }
                }
                if !rest.is_empty() {
                    v.push(rest.to_string());
                }
                v
            } else {
                body.split_whitespace().map(str::to_string).collect()
            };
            k.enc = comps.first().cloned().unwrap_or_default();
            k.name = comps.get(1).cloned().unwrap_or_default();
            if comps.len() == 3 {
                k.comment = comps[2].clone();
            }
        }
    }
    k
}

fn crashed(name: &str, e: SshError) -> StateReturn {
    let mut r = StateReturn::new(name);
    r.result = Some(false);
    r.comment = crate::raised(e);
    r
}

/// The source file's local copy (Salt's `cp.cache_file`), if any.
fn cached(call: &StateCall, source: &str) -> Option<std::path::PathBuf> {
    call.ctx
        .fileclient
        .cache_file(source, &call.ctx.saltenv)
        .ok()
}

fn present(call: &StateCall) -> StateReturn {
    let user = str_arg(call, "user", "");
    let config = str_arg(call, "config", ".ssh/authorized_keys");
    let source = str_arg(call, "source", "");
    let hash = hash_type(call);
    let hash = hash.as_deref();
    let mut r = StateReturn::new(call.name());
    if call.test {
        return match present_test(call, &user, &source, &config, hash) {
            Ok((result, comment)) => {
                r.result = result;
                r.comment = comment;
                r
            }
            Err(e) => crashed(call.name(), e),
        };
    }
    let key = if source.is_empty() {
        parse_name(call, true)
    } else {
        Key {
            name: call.name().to_string(),
            enc: String::new(),
            comment: String::new(),
            options: options_arg(call),
        }
    };
    let data = if source.is_empty() {
        authorized::set_auth_key(
            &user,
            &key.name,
            &key.enc,
            &key.comment,
            &key.options,
            &config,
            hash,
        )
        .map(str::to_string)
    } else {
        match cached(call, &source) {
            None => Ok("no key".to_string()),
            Some(path) => from_source(&user, &source, &path, &key.options, &config, hash),
        }
    };
    let data = match data {
        Ok(d) => d,
        Err(e) => return crashed(call.name(), e),
    };
    let name = &key.name;
    match data.as_str() {
        "replace" => {
            r.changes.insert(name.clone(), Value::Str("Updated".into()));
            r.comment = format!("The authorized host key {name} for user {user} was updated");
        }
        "no change" => {
            r.comment =
                format!("The authorized host key {name} is already present for user {user}");
        }
        "new" => {
            r.changes.insert(name.clone(), Value::Str("New".into()));
            r.comment = format!("The authorized host key {name} for user {user} was added");
        }
        "no key" => {
            r.result = Some(false);
            r.comment = format!("Failed to add the ssh key. Source file {source} is missing");
        }
        "fail" => {
            r.result = Some(false);
            r.comment = if source.is_empty() {
                "Failed to add the ssh key. Is the home directory available, and/or does the \
                 key file exist?"
                    .into()
            } else {
                format!("No keys detected in {source}. Is file properly formatted?")
            };
        }
        "invalid" | "Invalid public key" => {
            r.result = Some(false);
            r.comment = "Invalid public ssh key, most likely has spaces or invalid syntax".into();
        }
        _ => {}
    }
    r
}

/// Salt's handling of a SOURCE file: each line in turn, the last one's
/// answer counting (a line with options goes through
/// `set_auth_key_from_file`, which adds every key of the file).
fn from_source(
    user: &str,
    source: &str,
    path: &std::path::Path,
    options: &[String],
    config: &str,
    hash: Option<&str>,
) -> Result<String, SshError> {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let plain = regex::Regex::new(r"^(sk-)?(ssh\-|ecds).*").expect("a valid pattern");
    let mut data = String::new();
    for line in text.trim_end().split('\n') {
        if !plain.is_match(line) {
            data = from_file(user, source, path, config, hash)?;
        } else {
            let parts: Vec<&str> = line.split(' ').collect();
            let enc = parts.first().copied().unwrap_or_default();
            let key = parts.get(1).copied().unwrap_or_default();
            let comment = parts.get(2).copied().unwrap_or_default();
            data = authorized::set_auth_key(user, key, enc, comment, options, config, hash)?
                .to_string();
        }
    }
    Ok(data)
}

/// Salt's `set_auth_key_from_file`.
fn from_file(
    user: &str,
    _source: &str,
    path: &std::path::Path,
    config: &str,
    hash: Option<&str>,
) -> Result<String, SshError> {
    let keys = authorized::read_keys(path, hash)?;
    if keys.is_empty() {
        return Ok("fail".into());
    }
    let mut all = String::new();
    for (key, k) in &keys {
        all.push_str(authorized::set_auth_key(
            user, key, &k.enc, &k.comment, &k.options, config, hash,
        )?);
    }
    Ok(if all.contains("fail") {
        "fail"
    } else if all.contains("replace") {
        "replace"
    } else if all.contains("new") {
        "new"
    } else {
        "no change"
    }
    .into())
}

/// Each key of a source file with what `check_key` says of it, or why
/// the file gives none.
type Checked = Result<Vec<(String, &'static str)>, String>;

/// Salt's `check_key_file`: each key of SOURCE with its `check_key`.
fn check_file(
    call: &StateCall,
    user: &str,
    source: &str,
    config: &str,
    hash: Option<&str>,
) -> Result<Checked, SshError> {
    let Some(path) = cached(call, source) else {
        return Ok(Ok(Vec::new()));
    };
    let keys = authorized::read_keys(&path, hash)?;
    if keys.is_empty() {
        return Ok(Err(format!(
            "No keys detected in {source}. Is file properly formatted?"
        )));
    }
    let mut out = Vec::new();
    for (key, k) in &keys {
        out.push((
            key.clone(),
            authorized::check_key(user, key, &k.enc, &k.comment, &k.options, config, hash)?,
        ));
    }
    Ok(Ok(out))
}

fn present_test(
    call: &StateCall,
    user: &str,
    source: &str,
    config: &str,
    hash: Option<&str>,
) -> Result<(Option<bool>, String), SshError> {
    if !source.is_empty() {
        let keys = match check_file(call, user, source, config, hash)? {
            Ok(k) => k,
            Err(e) => return Ok((Some(false), e)),
        };
        let comment: String = keys
            .iter()
            .filter(|(_, s)| *s != "exists")
            .map(|(k, s)| format!("Set to {s}: {k}\n"))
            .collect();
        if !comment.is_empty() {
            return Ok((None, comment));
        }
        return Ok((
            Some(true),
            format!("All host keys in file {source} are already present"),
        ));
    }
    let k = parse_name(call, true);
    let k = Key {
        ..parse_name_again(call, k)
    };
    Ok(
        match authorized::check_key(user, &k.name, &k.enc, &k.comment, &k.options, config, hash)? {
            "update" => (
                None,
                format!("Key {} for user {user} is set to be updated", k.name),
            ),
            "add" => (
                None,
                format!("Key {} for user {user} is set to be added", k.name),
            ),
            _ => (
                Some(true),
                format!(
                    "The authorized host key {} is already present for user {user}",
                    k.name
                ),
            ),
        },
    )
}

/// Salt's test path reads NAME a second time, already split by `present`
/// (so a whole line is split once more, on every blank).
fn parse_name_again(call: &StateCall, first: Key) -> Key {
    let re = regex::Regex::new(r"^(.*?)\s?((?:sk-)?(?:ssh\-|ecds)[\w-]+\s.+)$")
        .expect("a valid pattern");
    let mut k = first;
    if re.is_match(&k.name) {
        // Cannot happen: a key body has no blank.
        return k;
    }
    let words: Vec<String> = k.name.split_whitespace().map(str::to_string).collect();
    if let Some(w) = words.first() {
        k.name = w.clone();
    }
    if words.len() == 2 {
        k.comment = words[1].clone();
    }
    let _ = call;
    k
}

fn absent(call: &StateCall) -> StateReturn {
    let user = str_arg(call, "user", "");
    let config = str_arg(call, "config", ".ssh/authorized_keys");
    let source = str_arg(call, "source", "");
    let hash = hash_type(call);
    let hash = hash.as_deref();
    let mut r = StateReturn::new(call.name());
    let mut changed = call.name().to_string();
    let outcome: Result<(), SshError> = (|| {
        if call.test {
            if !source.is_empty() {
                match check_file(call, &user, &source, &config, hash)? {
                    Err(e) => {
                        r.result = Some(false);
                        r.comment = e;
                    }
                    Ok(keys) => {
                        let comment: String = keys
                            .iter()
                            .filter(|(_, s)| *s != "add")
                            .map(|(k, _)| format!("Set to remove: {k}\n"))
                            .collect();
                        if comment.is_empty() {
                            r.comment =
                                format!("All host keys in file {source} are already absent");
                        } else {
                            r.result = None;
                            r.comment = comment;
                        }
                    }
                }
                return Ok(());
            }
            let k = parse_name(call, false);
            match authorized::check_key(
                &user, &k.name, &k.enc, &k.comment, &k.options, &config, hash,
            )? {
                "update" | "exists" => {
                    r.result = None;
                    r.comment = format!("Key {} for user {user} is set for removal", k.name);
                }
                _ => r.comment = "Key is already absent".into(),
            }
            return Ok(());
        }
        if !source.is_empty() {
            let text = cached(call, &source)
                .and_then(|p| std::fs::read_to_string(p).ok())
                .unwrap_or_default();
            let plain = regex::Regex::new(r"^(sk-)?(ssh\-|ecds).*").expect("a valid pattern");
            for line in text.trim_end().split('\n') {
                if !plain.is_match(line) {
                    r.comment = rm_from_file(call, &user, &source, &config, hash)?;
                } else {
                    let key = line.split(' ').nth(1).unwrap_or_default();
                    r.comment = authorized::rm_auth_key(&user, key, &config, hash)?;
                }
            }
        } else {
            let k = parse_name(call, true);
            r.comment = authorized::rm_auth_key(&user, &k.name, &config, hash)?;
            changed = k.name;
        }
        Ok(())
    })();
    if let Err(e) = outcome {
        return crashed(call.name(), e);
    }
    if !call.test && r.comment == "Key removed" {
        r.changes.insert(changed, Value::Str("Removed".into()));
    }
    r
}

/// Salt's `rm_auth_key_from_file`.
fn rm_from_file(
    call: &StateCall,
    user: &str,
    source: &str,
    config: &str,
    hash: Option<&str>,
) -> Result<String, SshError> {
    let Some(path) = cached(call, source) else {
        return Err(SshError(
            "Failed to pull key file from salt file server".into(),
        ));
    };
    let keys = authorized::read_keys(&path, hash)?;
    if keys.is_empty() {
        return Ok("fail".into());
    }
    let mut all = String::new();
    for key in keys.keys() {
        all.push_str(&authorized::rm_auth_key(user, key, config, hash)?);
    }
    Ok(if all.contains("Key not removed") {
        "Key not removed"
    } else if all.contains("Key removed") {
        "Key removed"
    } else {
        "Key not present"
    }
    .into())
}

/// `call` with NAME in place of its name: manage runs present and absent
/// once per key.
fn with_name(call: &StateCall, name: &str, f: fn(&StateCall) -> StateReturn) -> StateReturn {
    let mut low = call.low.clone();
    low.insert("name".into(), Value::Str(name.to_string()));
    low.shift_remove("ssh_keys");
    f(&StateCall {
        low: &low,
        test: call.test,
        ctx: call.ctx,
    })
}

/// Salt's `manage`: every key of the file that no word of SSH_KEYS names
/// is removed (with absent), then each of SSH_KEYS made present; the
/// return's name is empty, as Salt's.
fn manage(call: &StateCall) -> StateReturn {
    let mut r = StateReturn::new("");
    r.result = Some(true);
    let keys: Vec<String> = match call.arg("ssh_keys") {
        Some(Value::List(l)) => l.iter().map(Value::to_python_str).collect(),
        // Salt iterates a string by character.
        Some(Value::Str(s)) => s.chars().map(String::from).collect(),
        _ => Vec::new(),
    };
    let words: Vec<&str> = keys.iter().flat_map(|k| k.split(' ')).collect();
    let user = str_arg(call, "user", "");
    let config = str_arg(call, "config", ".ssh/authorized_keys");
    let hash = hash_type(call);
    let existing = match authorized::auth_keys(&user, &config, hash.as_deref()) {
        Ok(k) => k,
        Err(e) => return crashed("", e),
    };
    // Salt takes the difference as a set: its order is the hash's; brine
    // removes in the file's order.
    for key in existing.keys().filter(|k| !words.contains(&k.as_str())) {
        if call.test {
            r.comment = format!("{key} Key set for removal");
            r.result = None;
        } else {
            let gone = with_name(call, key, absent);
            r.changes.insert(key.clone(), Value::Str(gone.comment));
        }
    }
    for key in &keys {
        let run = with_name(call, key, present);
        if !run.changes.is_empty() {
            r.changes.extend(run.changes);
        } else {
            r.comment = format!("{}\n{}", r.comment, run.comment).trim().to_string();
        }
        match run.result {
            None => r.result = None,
            Some(false) => r.result = Some(false),
            Some(true) => {}
        }
    }
    r
}
