//! Salt's `hosts` module: the hosts file (`hosts.file`, default
//! `/etc/hosts`) read as a mapping of addresses to aliases and edited line
//! by line, with Salt's layout (tabs between fields, `# comment` at the end).

use super::config::option_value;
use super::function::{sig, CallError, Ctx, Function, Return};
use super::params::{into_string, Params};
use brine_core::{Map, Value};
use std::path::Path;

pub(super) const FUNCTIONS: &[Function] = &[
    Function::acts(
        "add_host",
        sig!(ip, alias),
        "Add ALIAS to the line of IP (a new line when IP has none); the file is \
written back in Salt's layout. True when ALIAS is there.\n\n    \
brine-call hosts.add_host 10.0.0.1 db.example",
        add_host,
    ),
    Function::acts(
        "get_alias",
        sig!(ip),
        "The aliases of IP, in file order ([] when IP has no line).\n\n    \
brine-call hosts.get_alias 127.0.0.1",
        get_alias,
    ),
    Function::acts(
        "get_ip",
        sig!(host),
        "The first address whose line names HOST ('' when none does).\n\n    \
brine-call hosts.get_ip localhost",
        get_ip,
    ),
    Function::acts(
        "has_pair",
        sig!(ip, alias),
        "True when the line of IP names ALIAS (or every alias of a list).\n\n    \
brine-call hosts.has_pair 127.0.0.1 localhost",
        has_pair,
    ),
    Function::acts(
        "list_hosts",
        sig!(),
        "The hosts file as a mapping: each address to {aliases, comment}; comment \
lines as comment-N.\n\n    brine-call hosts.list_hosts",
        list_hosts,
    ),
    Function::acts(
        "rm_host",
        sig!(ip, alias),
        "Take ALIAS off the line of IP (the line goes when no alias is left). \
True, also when the pair was not there.\n\n    brine-call hosts.rm_host 10.0.0.1 db.example",
        rm_host,
    ),
    Function::acts(
        "set_comment",
        sig!(ip, comment),
        "Set the end-of-line comment of IP's line; False when IP has no line.\n\n    \
brine-call hosts.set_comment 10.0.0.1 'database'",
        set_comment,
    ),
    Function::acts(
        "set_host",
        sig!(ip, alias, comment = null),
        "Make ALIAS (one or more names, space separated) the only line of IP, \
with COMMENT when given; an empty ALIAS removes IP's lines.\n\n    \
brine-call hosts.set_host 10.0.0.1 'db db.example'",
        set_host,
    ),
];

/// One address's line(s) as Salt reads them.
#[derive(Clone, Default)]
struct Entry {
    aliases: Vec<String>,
    comment: Option<String>,
}

/// The file's meaningful lines in order: addresses, and whole-line
/// comments (`comment-N`, kept as written).
enum Item {
    Host(String, Entry),
    Comment(String, String),
}

/// The hosts file's path: `hosts.file` through `config.option`.
fn hosts_file(cx: &Ctx<'_>) -> String {
    match option_value(cx, "hosts.file") {
        None | Some(Value::Null) => String::new(),
        Some(v) => into_string(v),
    }
}

/// A parameter Salt concatenates as a string: anything else is Python's
/// TypeError (`left`: the value stands left of the `+`).
fn text(v: Value, left: bool) -> Result<String, CallError> {
    match v {
        Value::Str(s) => Ok(s),
        other if left => Err(CallError::InvalidArguments(format!(
            "unsupported operand type(s) for +: '{}' and 'str'",
            other.type_name()
        ))),
        other => Err(CallError::InvalidArguments(format!(
            "can only concatenate str (not \"{}\") to str",
            other.type_name()
        ))),
    }
}

fn read_err(path: &str, e: &std::io::Error) -> CallError {
    CallError::Failed(format!("Could not read from {path}: {e}"))
}

fn write_err(path: &str, e: &std::io::Error) -> CallError {
    CallError::Failed(format!("Could not write to {path}: {e}"))
}

/// Parse the file; a missing file reads as empty.
fn read_hosts(path: &str) -> Result<Vec<Item>, CallError> {
    let text = match std::fs::read(path) {
        Ok(b) => String::from_utf8_lossy(&b).into_owned(),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(read_err(path, &e)),
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
        // A line of only "# ..." after spaces was caught above; a line
        // starting with '#' after trimming cannot reach here empty.
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

fn entry<'a>(items: &'a [Item], ip: &str) -> Option<&'a Entry> {
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

/// Create the file when missing (Salt does before editing); false when
/// the path is not a regular file afterwards.
fn ensure_file(path: &str) -> Result<bool, CallError> {
    if !Path::new(path).exists() {
        std::fs::write(path, b"").map_err(|e| write_err(path, &e))?;
    }
    Ok(Path::new(path).is_file())
}

/// Write the parsed file back in Salt's layout.
fn write_hosts(path: &str, items: &[Item]) -> Result<(), CallError> {
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
    std::fs::write(path, out).map_err(|e| write_err(path, &e))
}

fn list_hosts(cx: &Ctx<'_>, p: Params) -> Result<Return, CallError> {
    p.finish()?;
    let mut out = Map::default();
    for item in read_hosts(&hosts_file(cx))? {
        match item {
            Item::Host(ip, e) => {
                out.insert(ip, entry_value(&e));
            }
            Item::Comment(key, text) => {
                out.insert(key, Value::List(vec![Value::Str(text)]));
            }
        }
    }
    Ok(Value::Map(out).into())
}

fn get_ip(cx: &Ctx<'_>, mut p: Params) -> Result<Return, CallError> {
    let host = p.require("host")?;
    p.finish()?;
    // Only a string can equal an alias read from the file.
    let Value::Str(host) = host else {
        return Ok(Value::Str(String::new()).into());
    };
    let items = read_hosts(&hosts_file(cx))?;
    let ip = items.iter().find_map(|i| match i {
        Item::Host(ip, e) if e.aliases.contains(&host) => Some(ip.clone()),
        _ => None,
    });
    Ok(Value::Str(ip.unwrap_or_default()).into())
}

fn get_alias(cx: &Ctx<'_>, mut p: Params) -> Result<Return, CallError> {
    let ip = into_string(p.require("ip")?);
    p.finish()?;
    let items = read_hosts(&hosts_file(cx))?;
    let aliases = entry(&items, &ip)
        .map(|e| e.aliases.clone())
        .unwrap_or_default();
    Ok(Value::List(aliases.into_iter().map(Value::Str).collect()).into())
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

fn has_pair(cx: &Ctx<'_>, mut p: Params) -> Result<Return, CallError> {
    let ip = into_string(p.require("ip")?);
    let alias = p.require("alias")?;
    p.finish()?;
    let items = read_hosts(&hosts_file(cx))?;
    Ok(Value::Bool(pair_present(&items, &ip, &alias)).into())
}

/// The file's lines with their endings, as Salt's byte-wise edits see them.
fn raw_lines(path: &str) -> Result<Vec<String>, CallError> {
    let bytes = std::fs::read(path).map_err(|e| read_err(path, &e))?;
    Ok(String::from_utf8_lossy(&bytes)
        .split_inclusive('\n')
        .map(str::to_string)
        .collect())
}

fn set_host(cx: &Ctx<'_>, mut p: Params) -> Result<Return, CallError> {
    let ip = p.require("ip")?;
    let alias = p.require("alias")?;
    let comment = p.take("comment").filter(Value::is_truthy);
    p.finish()?;
    let ip = text(ip, true)?;
    let alias = text(alias, false)?;
    let comment = comment.map(|c| text(c, false)).transpose()?;
    let path = hosts_file(cx);
    if !ensure_file(&path)? {
        return Ok(Value::Bool(false).into());
    }
    let new_line = if alias.trim().is_empty() {
        String::new()
    } else {
        match comment {
            Some(c) => format!("{ip}\t\t{alias}\t\t# {c}\n"),
            None => format!("{ip}\t\t{alias}\n"),
        }
    };
    let mut lines = raw_lines(&path)?;
    let mut replaced = false;
    for line in lines.iter_mut() {
        let t = line.trim();
        if t.is_empty() || t.starts_with('#') {
            continue;
        }
        if t.split_whitespace().next() == Some(ip.as_str()) {
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
    std::fs::write(&path, lines.concat()).map_err(|e| write_err(&path, &e))?;
    Ok(Value::Bool(true).into())
}

fn rm_host(cx: &Ctx<'_>, mut p: Params) -> Result<Return, CallError> {
    let ip = into_string(p.require("ip")?);
    let alias = p.require("alias")?;
    p.finish()?;
    let path = hosts_file(cx);
    if !pair_present(&read_hosts(&path)?, &ip, &alias) {
        return Ok(Value::Bool(true).into());
    }
    let alias = alias.to_python_str();
    ensure_file(&path)?;
    let mut lines = raw_lines(&path)?;
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
        if comps.next() != Some(ip.as_str()) {
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
    std::fs::write(&path, lines.concat()).map_err(|e| write_err(&path, &e))?;
    Ok(Value::Bool(true).into())
}

fn add_host(cx: &Ctx<'_>, mut p: Params) -> Result<Return, CallError> {
    let ip = into_string(p.require("ip")?);
    let alias = p.require("alias")?;
    p.finish()?;
    let path = hosts_file(cx);
    if !ensure_file(&path)? {
        return Ok(Value::Bool(false).into());
    }
    let mut items = read_hosts(&path)?;
    if pair_present(&items, &ip, &alias) {
        return Ok(Value::Bool(true).into());
    }
    // Salt writes the file by joining the aliases: only strings join.
    let alias = match alias {
        Value::Str(s) => s,
        other => {
            let at = entry(&items, &ip).map_or(0, |e| e.aliases.len());
            return Err(CallError::InvalidArguments(format!(
                "sequence item {at}: expected str instance, {} found",
                other.type_name()
            )));
        }
    };
    match items.iter_mut().find_map(|i| match i {
        Item::Host(a, e) if *a == ip => Some(e),
        _ => None,
    }) {
        Some(e) => e.aliases.push(alias),
        None => items.push(Item::Host(
            ip,
            Entry {
                aliases: vec![alias],
                comment: None,
            },
        )),
    }
    write_hosts(&path, &items)?;
    Ok(Value::Bool(true).into())
}

fn set_comment(cx: &Ctx<'_>, mut p: Params) -> Result<Return, CallError> {
    let ip = into_string(p.require("ip")?);
    let comment = into_string(p.require("comment")?);
    p.finish()?;
    let path = hosts_file(cx);
    if !ensure_file(&path)? {
        return Ok(Value::Bool(false).into());
    }
    let mut items = read_hosts(&path)?;
    let Some(e) = items.iter_mut().find_map(|i| match i {
        Item::Host(a, e) if *a == ip => Some(e),
        _ => None,
    }) else {
        return Ok(Value::Bool(false).into());
    };
    if e.comment.as_deref() != Some(comment.as_str()) {
        e.comment = Some(comment);
        write_hosts(&path, &items)?;
    }
    Ok(Value::Bool(true).into())
}
