//! The hosts file as Salt's `hosts` execution module reads and edits it:
//! a mapping of addresses to aliases (and an end-of-line comment), whole
//! line comments kept as `comment-N`; edits line by line, in Salt's layout
//! (tabs between fields, `# comment` at the end). The `hosts` execution
//! module and the `host` state module both go through here; the file's
//! path is the caller's (`hosts.file`, default /etc/hosts).

use brine_core::{Map, Value};
use std::path::Path;

/// Why the hosts file could not be used.
#[derive(Debug, thiserror::Error)]
pub enum HostsError {
    #[error("Could not read from {path}: {err}")]
    Read { path: String, err: std::io::Error },
    #[error("Could not write to {path}: {err}")]
    Write { path: String, err: std::io::Error },
    /// An alias of a type Salt cannot join into a line (its TypeError).
    #[error("sequence item {at}: expected str instance, {got} found")]
    AliasType { at: usize, got: &'static str },
}

/// One address's line(s) as Salt reads them.
#[derive(Clone, Default, Debug)]
pub struct Entry {
    pub aliases: Vec<String>,
    pub comment: Option<String>,
}

/// The file's meaningful lines in order: addresses, and whole-line
/// comments (`comment-N`, kept as written).
#[derive(Debug)]
pub enum Item {
    Host(String, Entry),
    Comment(String, String),
}

fn read_err(path: &str, err: std::io::Error) -> HostsError {
    HostsError::Read {
        path: path.to_string(),
        err,
    }
}

fn write_err(path: &str, err: std::io::Error) -> HostsError {
    HostsError::Write {
        path: path.to_string(),
        err,
    }
}

/// Parse the file; a missing file reads as empty.
pub fn read_hosts(path: &str) -> Result<Vec<Item>, HostsError> {
    let text = match std::fs::read(path) {
        Ok(b) => String::from_utf8_lossy(&b).into_owned(),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(read_err(path, e)),
    };
    let mut items: Vec<Item> = Vec::new();
    let mut count = 0;
    for line in text.lines() {
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        if line.starts_with('#') {
            items.push(Item::Comment(format!("comment-{count}"), line.to_string()));
            count += 1;
            continue;
        }
        let (body, comment) = match line.split_once('#') {
            Some((b, c)) => (b.trim(), Some(c.trim_start().to_string())),
            None => (line, None),
        };
        let mut comps = body.split_whitespace().map(str::to_string);
        let Some(ip) = comps.next() else { continue };
        let entry = match items
            .iter_mut()
            .find_map(|i| matches!(i, Item::Host(a, _) if *a == ip).then_some(i))
        {
            Some(Item::Host(_, e)) => e,
            _ => {
                items.push(Item::Host(ip, Entry::default()));
                match items.last_mut() {
                    Some(Item::Host(_, e)) => e,
                    _ => continue,
                }
            }
        };
        entry.aliases.extend(comps);
        if let Some(c) = comment.filter(|c| !c.is_empty()) {
            entry.comment = Some(c);
        }
    }
    Ok(items)
}

/// The entry of `ip`.
pub fn entry<'a>(items: &'a [Item], ip: &str) -> Option<&'a Entry> {
    items.iter().find_map(|i| match i {
        Item::Host(a, e) if a == ip => Some(e),
        _ => None,
    })
}

fn entry_value(e: &Entry) -> Value {
    let mut m = Map::default();
    m.insert(
        "aliases".into(),
        Value::List(e.aliases.iter().cloned().map(Value::Str).collect()),
    );
    if let Some(c) = &e.comment {
        m.insert("comment".into(), Value::Str(c.clone()));
    }
    Value::Map(m)
}

/// Salt's `list_hosts`: each address to {aliases, comment}; comment lines
/// as `comment-N`.
pub fn list_hosts(path: &str) -> Result<Map, HostsError> {
    let mut out = Map::default();
    for item in read_hosts(path)? {
        match item {
            Item::Host(ip, e) => {
                out.insert(ip, entry_value(&e));
            }
            Item::Comment(key, text) => {
                out.insert(key, Value::List(vec![Value::Str(text)]));
            }
        }
    }
    Ok(out)
}

/// Salt's `get_ip`: the first address whose line names `host`.
pub fn get_ip(path: &str, host: &str) -> Result<String, HostsError> {
    let items = read_hosts(path)?;
    Ok(items
        .iter()
        .find_map(|i| match i {
            Item::Host(ip, e) if e.aliases.iter().any(|a| a == host) => Some(ip.clone()),
            _ => None,
        })
        .unwrap_or_default())
}

/// Salt's `get_alias`: the aliases of `ip` in file order.
pub fn get_alias(path: &str, ip: &str) -> Result<Vec<String>, HostsError> {
    let items = read_hosts(path)?;
    Ok(entry(&items, ip)
        .map(|e| e.aliases.clone())
        .unwrap_or_default())
}

/// Salt's `has_pair`: a list alias asks for all of its names.
fn pair_present(items: &[Item], ip: &str, alias: &Value) -> bool {
    let Some(e) = entry(items, ip) else {
        return false;
    };
    // Only a string can equal an alias read from the file.
    let named = |v: &Value| v.as_str().is_some_and(|n| e.aliases.iter().any(|a| a == n));
    match alias {
        Value::List(names) => names.iter().all(named),
        other => named(other),
    }
}

pub fn has_pair(path: &str, ip: &str, alias: &Value) -> Result<bool, HostsError> {
    Ok(pair_present(&read_hosts(path)?, ip, alias))
}

/// Create the file when missing (Salt does before editing); false when
/// the path is not a regular file afterwards.
fn ensure_file(path: &str) -> Result<bool, HostsError> {
    if !Path::new(path).exists() {
        std::fs::write(path, b"").map_err(|e| write_err(path, e))?;
    }
    Ok(Path::new(path).is_file())
}

/// Write the parsed file back in Salt's layout.
fn write_hosts(path: &str, items: &[Item]) -> Result<(), HostsError> {
    let mut out = String::new();
    for item in items {
        let line = match item {
            Item::Comment(_, text) => text.clone(),
            Item::Host(ip, e) => match &e.comment {
                Some(c) => format!("{ip}\t\t{}\t\t# {c}", e.aliases.join(" ")),
                None => format!("{ip}\t\t{}", e.aliases.join(" ")),
            },
        };
        let line = line.trim();
        if !line.is_empty() {
            out.push_str(line);
            out.push('\n');
        }
    }
    std::fs::write(path, out).map_err(|e| write_err(path, e))
}

/// The file's lines with their endings, as Salt's byte-wise edits see them.
fn raw_lines(path: &str) -> Result<Vec<String>, HostsError> {
    let bytes = std::fs::read(path).map_err(|e| read_err(path, e))?;
    Ok(String::from_utf8_lossy(&bytes)
        .split_inclusive('\n')
        .map(str::to_string)
        .collect())
}

/// Salt's `set_host`: ALIAS (names, space separated) the only line of IP,
/// with COMMENT; an empty ALIAS removes IP's lines. False when the path is
/// not a file.
pub fn set_host(
    path: &str,
    ip: &str,
    alias: &str,
    comment: Option<&str>,
) -> Result<bool, HostsError> {
    if !ensure_file(path)? {
        return Ok(false);
    }
    let new_line = if alias.trim().is_empty() {
        String::new()
    } else {
        match comment {
            Some(c) => format!("{ip}\t\t{alias}\t\t# {c}\n"),
            None => format!("{ip}\t\t{alias}\n"),
        }
    };
    let mut lines = raw_lines(path)?;
    let mut replaced = false;
    for line in lines.iter_mut() {
        let t = line.trim();
        if t.is_empty() || t.starts_with('#') {
            continue;
        }
        if t.split_whitespace().next() == Some(ip) {
            // The first line of IP becomes the new one, later ones go.
            *line = if replaced {
                String::new()
            } else {
                new_line.clone()
            };
            replaced = true;
        }
    }
    if !replaced {
        if let Some(last) = lines.last_mut().filter(|l| !l.ends_with('\n')) {
            last.push('\n');
        }
        lines.push(new_line);
    }
    std::fs::write(path, lines.concat()).map_err(|e| write_err(path, e))?;
    Ok(true)
}

/// Salt's `rm_host`: ALIAS taken off the line of IP (the line goes when
/// no alias is left). True, also when the pair was not there.
pub fn rm_host(path: &str, ip: &str, alias: &Value) -> Result<bool, HostsError> {
    if !pair_present(&read_hosts(path)?, ip, alias) {
        return Ok(true);
    }
    let alias = alias.to_python_str();
    ensure_file(path)?;
    let mut lines = raw_lines(path)?;
    for line in lines.iter_mut() {
        let t = line.trim();
        if t.is_empty() || t.starts_with('#') {
            continue;
        }
        let (info, comment) = match t.split_once('#') {
            Some((i, c)) => (i, Some(c.trim_start().to_string())),
            None => (t, None),
        };
        let mut comps = info.split_whitespace();
        if comps.next() != Some(ip) {
            continue;
        }
        let mut new = format!("{ip}\t\t");
        for existing in comps.filter(|c| *c != alias) {
            new.push_str(existing);
            new.push(' ');
        }
        *line = if new.trim() == ip {
            String::new()
        } else {
            match comment.filter(|c| !c.is_empty()) {
                Some(c) => format!("{new}# {c}\n"),
                None => format!("{new}\n"),
            }
        };
    }
    std::fs::write(path, lines.concat()).map_err(|e| write_err(path, e))?;
    Ok(true)
}

/// Salt's `add_host`: ALIAS added to the line of IP (a new line when IP
/// has none), the file rewritten in Salt's layout. False when the path is
/// not a file.
pub fn add_host(path: &str, ip: &str, alias: &Value) -> Result<bool, HostsError> {
    if !ensure_file(path)? {
        return Ok(false);
    }
    let mut items = read_hosts(path)?;
    if pair_present(&items, ip, alias) {
        return Ok(true);
    }
    // Salt writes the file by joining the aliases: only strings join.
    let alias = match alias {
        Value::Str(s) => s.clone(),
        other => {
            let at = entry(&items, ip).map_or(0, |e| e.aliases.len());
            return Err(HostsError::AliasType {
                at,
                got: other.type_name(),
            });
        }
    };
    match items.iter_mut().find_map(|i| match i {
        Item::Host(a, e) if a == ip => Some(e),
        _ => None,
    }) {
        Some(e) => e.aliases.push(alias),
        None => items.push(Item::Host(
            ip.to_string(),
            Entry {
                aliases: vec![alias],
                comment: None,
            },
        )),
    }
    write_hosts(path, &items)?;
    Ok(true)
}

/// Salt's `set_comment`: the end-of-line comment of IP's line; false when
/// IP has no line.
pub fn set_comment(path: &str, ip: &str, comment: &str) -> Result<bool, HostsError> {
    if !ensure_file(path)? {
        return Ok(false);
    }
    let mut items = read_hosts(path)?;
    let Some(e) = items.iter_mut().find_map(|i| match i {
        Item::Host(a, e) if a == ip => Some(e),
        _ => None,
    }) else {
        return Ok(false);
    };
    if e.comment.as_deref() != Some(comment) {
        e.comment = Some(comment.to_string());
        write_hosts(path, &items)?;
    }
    Ok(true)
}
