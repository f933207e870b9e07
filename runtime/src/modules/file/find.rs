//! Salt's `file.find` (its `salt.utils.find.Finder`): criteria on name,
//! type, owner, size, mtime and contents, then `print` or `delete`.

use super::path_arg;
use crate::modules::params::Params;
use crate::modules::CallError;
use brine_core::Value;
use brine_states::modules::file::fsutil;
use brine_states::modules::file::replace as re_;
use regex::bytes::Regex;
use std::os::unix::fs::{FileTypeExt, MetadataExt};
use std::path::Path;

/// One test a path must pass.
enum Criterion {
    /// name, iname, regex, iregex: matched at the start of the file name.
    Name(Regex),
    /// type: one of these kinds (f d l b c p s).
    Type(Vec<char>),
    Owner(Vec<u32>),
    Group(Vec<u32>),
    /// size: bytes within [min, max].
    Size(u64, u64),
    /// mtime: newer than the instant (`-`), else older.
    Mtime {
        at: f64,
        newer: bool,
    },
    /// grep: Salt 3007.8 searches the bytes of a regular file with a str
    /// pattern, which raises: reaching a regular file is an error.
    Grep,
}

/// What is done with a path that passes.
enum Action {
    /// print: these fields (one value, or a list of them).
    Print(Vec<String>),
    /// delete: remove the path (its kinds are a criterion).
    Delete,
}

/// Salt's `ValueError` from the Finder: `file.find` returns it as
/// `"error: ..."`.
type Invalid = String;

fn kind_of(md: &std::fs::Metadata) -> char {
    let ft = md.file_type();
    if ft.is_dir() {
        'd'
    } else if ft.is_symlink() {
        'l'
    } else if ft.is_block_device() {
        'b'
    } else if ft.is_char_device() {
        'c'
    } else if ft.is_fifo() {
        'p'
    } else if ft.is_socket() {
        's'
    } else {
        'f'
    }
}

fn kinds(value: &str) -> Result<Vec<char>, Invalid> {
    value
        .chars()
        .filter(|c| !c.is_whitespace() && *c != ',')
        .map(|c| {
            if "bcdflps".contains(c) {
                Ok(c)
            } else {
                Err(format!("invalid file type \"{c}\""))
            }
        })
        .collect()
}

/// `name`/`iname`: a shell-like pattern as Salt turns it into a regex.
fn glob_regex(value: &str, nocase: bool) -> Result<Regex, Invalid> {
    let rx = value
        .replace('.', "\\.")
        .replace('?', ".?")
        .replace('*', ".*");
    anchored(&format!("{rx}$"), nocase)
}

/// A Python pattern used with `re.match`: anchored at the start.
fn anchored(rx: &str, nocase: bool) -> Result<Regex, Invalid> {
    re_::compile(&format!("^(?:{rx})"), if nocase { 2 } else { 0 })
        .map_err(|_| format!("invalid regular expression: \"{rx}\""))
}

/// Salt's `_parse_size`: `[+-]N[bkmgt]`.
fn parse_size(value: &str) -> Result<(u64, u64), Invalid> {
    let invalid = || format!("invalid size: \"{value}\"");
    let mut s = value.trim();
    let style = match s.chars().next() {
        Some(c @ ('+' | '-')) => {
            s = &s[1..];
            c
        }
        _ => '=',
    };
    let mut mult: u64 = 1;
    if let Some(last) = s.chars().last() {
        let m = match last.to_ascii_lowercase() {
            'b' => Some(1),
            'k' => Some(1 << 10),
            'm' => Some(1 << 20),
            'g' => Some(1 << 30),
            't' => Some(1 << 40),
            _ => None,
        };
        if let Some(m) = m {
            mult = m;
            s = s[..s.len() - 1].trim();
        }
    }
    let num = match s.parse::<u64>() {
        Ok(n) => n.checked_mul(mult).ok_or_else(invalid)?,
        Err(_) => {
            let f: f64 = s.parse().map_err(|_| invalid())?;
            if !f.is_finite() || f < 0.0 {
                return Err(invalid());
            }
            (f * mult as f64) as u64
        }
    };
    Ok(match style {
        '-' => (0, num),
        '+' => (num, u64::MAX),
        _ => (num, num.saturating_add(mult - 1)),
    })
}

/// Salt's `_parse_interval`: `[+-]` then weeks, days, hours, minutes,
/// seconds in that order (`1w2d`, `30m`); the seconds, the smallest unit
/// given, and the sign.
fn parse_interval(value: &str) -> Result<(f64, f64, char), Invalid> {
    let invalid = || format!("invalid time interval: '{value}'");
    let mut s = value.trim();
    let sign = match s.chars().next() {
        Some(c @ ('+' | '-')) => {
            s = &s[1..];
            c
        }
        _ => ' ',
    };
    let units = [
        ('w', 604_800.0),
        ('d', 86_400.0),
        ('h', 3_600.0),
        ('m', 60.0),
        ('s', 1.0),
    ];
    let mut total = 0.0;
    let mut resolution: Option<f64> = None;
    let mut next_unit = 0;
    while !s.trim_start().is_empty() {
        s = s.trim_start();
        let end = s
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .ok_or_else(invalid)?;
        let (num, rest) = s.split_at(end);
        if num.is_empty() || !num.as_bytes()[0].is_ascii_digit() {
            return Err(invalid());
        }
        let n: f64 = num.parse().map_err(|_| invalid())?;
        let rest = rest.trim_start();
        let unit = rest
            .chars()
            .next()
            .ok_or_else(invalid)?
            .to_ascii_lowercase();
        let at = units[next_unit..]
            .iter()
            .position(|(u, _)| *u == unit)
            .ok_or_else(invalid)?
            + next_unit;
        total += n * units[at].1;
        resolution.get_or_insert(units[at].1);
        next_unit = at + 1;
        s = &rest[1..];
    }
    // Salt divides by the resolution: without any unit it fails.
    let resolution = resolution.ok_or_else(invalid)?;
    Ok((total, resolution, sign))
}

fn user_ids(value: &str, user: bool) -> Result<Vec<u32>, Invalid> {
    value
        .replace(',', " ")
        .split_whitespace()
        .map(|name| {
            if let Ok(id) = name.parse::<u32>() {
                return Ok(id);
            }
            let found = if user {
                brine_host::accounts::uid_of(name)
            } else {
                brine_host::accounts::gid_of(name)
            };
            found.ok_or_else(|| {
                format!("no such {} \"{name}\"", if user { "user" } else { "group" })
            })
        })
        .collect()
}

struct Finder {
    criteria: Vec<Criterion>,
    actions: Vec<Action>,
    mindepth: i64,
    maxdepth: Option<i64>,
    /// An exception Salt would raise while walking.
    raised: std::cell::RefCell<Option<String>>,
}

impl Finder {
    /// The finder; `Err` is Salt's `ValueError` (returned as text), the
    /// inner `Err` an exception salt-call reports as a failure.
    fn new(options: Vec<(String, Value)>) -> Result<Result<Finder, String>, Invalid> {
        let mut f = Finder {
            criteria: Vec::new(),
            actions: Vec::new(),
            mindepth: 0,
            maxdepth: None,
            raised: std::cell::RefCell::new(None),
        };
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0.0, |d| d.as_secs_f64());
        for (key, value) in options {
            match key.as_str() {
                "mindepth" => {
                    f.mindepth = value.as_i64().unwrap_or(0);
                    continue;
                }
                "maxdepth" => {
                    f.maxdepth = value.as_i64();
                    continue;
                }
                k if k.starts_with('_') => continue,
                _ => {}
            }
            if !value.is_truthy() {
                return Err(format!("missing value for \"{key}\" option"));
            }
            let lower = key.to_lowercase();
            const KNOWN: &[&str] = &[
                "name", "iname", "regex", "iregex", "type", "owner", "group", "size", "mtime",
                "grep", "print", "delete",
            ];
            if !KNOWN.contains(&lower.as_str()) {
                return Err(format!("invalid option \"{key}\""));
            }
            // Salt's options call string methods on their value (mtime
            // takes str() of it): anything else raises.
            let v = match value {
                Value::Str(s) => s,
                other if lower == "mtime" => other.to_python_str(),
                other => {
                    return Ok(Err(format!(
                        "'{}' object has no attribute 'strip'",
                        other.type_name()
                    )))
                }
            };
            // Salt looks options up by key.title().
            match lower.as_str() {
                "name" => f.criteria.push(Criterion::Name(glob_regex(&v, false)?)),
                "iname" => f.criteria.push(Criterion::Name(glob_regex(&v, true)?)),
                "regex" => f.criteria.push(Criterion::Name(anchored(&v, false)?)),
                "iregex" => f.criteria.push(Criterion::Name(anchored(&v, true)?)),
                "type" => f.criteria.push(Criterion::Type(kinds(&v)?)),
                "owner" => f.criteria.push(Criterion::Owner(user_ids(&v, true)?)),
                "group" => f.criteria.push(Criterion::Group(user_ids(&v, false)?)),
                "size" => {
                    let (lo, hi) = parse_size(&v)?;
                    f.criteria.push(Criterion::Size(lo, hi));
                }
                "mtime" => {
                    let (secs, res, sign) = parse_interval(&v)?;
                    let at = now - (secs / res).trunc() * res;
                    f.criteria.push(Criterion::Mtime {
                        at,
                        newer: sign == '-',
                    });
                }
                "grep" => {
                    re_::compile(&v, 0)
                        .map_err(|_| format!("invalid regular expression: \"{v}\""))?;
                    f.criteria.push(Criterion::Grep);
                }
                "print" => {
                    let mut fields: Vec<String> = v
                        .replace(',', " ")
                        .split_whitespace()
                        .map(String::from)
                        .collect();
                    if fields.is_empty() {
                        fields.push("path".into());
                    }
                    f.actions.push(Action::Print(fields));
                }
                "delete" => {
                    // A type test as well as an action, as in Salt.
                    let v = if v.contains('a') { "bcdpfls" } else { &v };
                    f.criteria.push(Criterion::Type(kinds(v)?));
                    f.actions.push(Action::Delete);
                }
                _ => return Err(format!("invalid option \"{key}\"")),
            }
        }
        if f.actions.is_empty() {
            f.actions.push(Action::Print(vec!["path".into()]));
        }
        Ok(Ok(f))
    }

    fn matches(&self, name: &str, md: Option<&std::fs::Metadata>) -> bool {
        self.criteria.iter().all(|c| match c {
            Criterion::Name(re) => re.is_match(name.as_bytes()),
            _ => {
                let Some(md) = md else { return false };
                match c {
                    Criterion::Type(k) => k.contains(&kind_of(md)),
                    Criterion::Owner(ids) => ids.contains(&md.uid()),
                    Criterion::Group(ids) => ids.contains(&md.gid()),
                    Criterion::Size(lo, hi) => (*lo..=*hi).contains(&md.size()),
                    Criterion::Mtime { at, newer } => {
                        let m = md.mtime() as f64;
                        if *newer {
                            m >= *at
                        } else {
                            m <= *at
                        }
                    }
                    Criterion::Grep => {
                        if md.is_file() {
                            *self.raised.borrow_mut() =
                                Some("cannot use a string pattern on a bytes-like object".into());
                        }
                        false
                    }
                    Criterion::Name(_) => true,
                }
            }
        })
    }

    fn act(&self, path: &Path, md: Option<&std::fs::Metadata>, out: &mut Vec<Value>) {
        for a in &self.actions {
            let v = match a {
                Action::Print(fields) => {
                    let mut vals: Vec<Value> = fields.iter().map(|f| field(f, path, md)).collect();
                    if vals.len() == 1 {
                        vals.pop().unwrap_or(Value::Null)
                    } else {
                        Value::List(vals)
                    }
                }
                Action::Delete => match fsutil::remove(path) {
                    Ok(_) => Value::Str(path.display().to_string()),
                    Err(_) => Value::Null,
                },
            };
            // Salt yields what each action returned, None included.
            out.push(v);
        }
    }

    /// One entry (`dir/name`) at `depth`.
    fn visit(&self, path: &Path, name: &str, out: &mut Vec<Value>) {
        // Salt stats through links, and lstats what it cannot follow.
        let md = std::fs::metadata(path)
            .or_else(|_| std::fs::symlink_metadata(path))
            .ok();
        if self.matches(name, md.as_ref()) {
            self.act(path, md.as_ref(), out);
        }
    }

    /// Python's `os.walk` from `top`, depth first, links to directories
    /// not followed.
    fn walk(&self, dir: &Path, depth: i64, out: &mut Vec<Value>) {
        let Ok(rd) = std::fs::read_dir(dir) else {
            return;
        };
        let mut entries: Vec<(String, bool)> = rd
            .flatten()
            .map(|e| {
                let is_dir = e.file_type().is_ok_and(|t| t.is_dir());
                (e.file_name().to_string_lossy().into_owned(), is_dir)
            })
            .collect();
        entries.sort();
        let in_range = depth >= self.mindepth && self.maxdepth.is_none_or(|m| m >= depth);
        if in_range {
            // os.walk lists directories first, then files.
            for (name, _) in entries
                .iter()
                .filter(|e| e.1)
                .chain(entries.iter().filter(|e| !e.1))
            {
                self.visit(&dir.join(name), name, out);
            }
        }
        if self.maxdepth.is_some_and(|m| depth > m) {
            return;
        }
        for (name, is_dir) in &entries {
            if *is_dir {
                self.walk(&dir.join(name), depth + 1, out);
            }
        }
    }

    fn find(&self, top: &str, out: &mut Vec<Value>) {
        if self.mindepth < 1 {
            let name = top.rsplit('/').next().unwrap_or(top);
            self.visit(Path::new(top), name, out);
        }
        if Path::new(top).is_dir() {
            self.walk(Path::new(top), 1, out);
        }
    }
}

/// One `print` field of a path.
fn field(f: &str, path: &Path, md: Option<&std::fs::Metadata>) -> Value {
    let num = |n: u64| Value::Int(i64::try_from(n).unwrap_or(i64::MAX));
    match (f, md) {
        ("path", _) => Value::Str(path.display().to_string()),
        ("name", _) => Value::Str(
            path.file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default(),
        ),
        ("size", Some(m)) => num(m.size()),
        ("type", Some(m)) => Value::Str(kind_of(m).to_string()),
        ("mode", Some(m)) => Value::Int(i64::from(m.mode() & 0o777)),
        ("mtime", Some(m)) => Value::Int(m.mtime()),
        ("user", Some(m)) => Value::Str(fsutil::uid_name(m.uid())),
        ("group", Some(m)) => Value::Str(fsutil::gid_name(m.gid())),
        ("md5", Some(m)) => Value::Str(if m.is_file() {
            std::fs::read(path)
                .ok()
                .and_then(|d| fsutil::hash_hex("md5", &d))
                .unwrap_or_default()
        } else {
            String::new()
        }),
        _ => Value::Null,
    }
}

/// Python's ordering of the results: strings, numbers, lists item by item
/// (what Python cannot compare keeps its place).
fn py_cmp(a: &Value, b: &Value) -> std::cmp::Ordering {
    use std::cmp::Ordering::Equal;
    match (a, b) {
        (Value::Str(x), Value::Str(y)) => x.cmp(y),
        (Value::Int(x), Value::Int(y)) => x.cmp(y),
        (Value::List(x), Value::List(y)) => x
            .iter()
            .zip(y)
            .map(|(a, b)| py_cmp(a, b))
            .find(|o| *o != Equal)
            .unwrap_or_else(|| x.len().cmp(&y.len())),
        _ => Equal,
    }
}

pub(super) fn find(mut p: Params) -> Result<Value, CallError> {
    let path = path_arg(&mut p, "path")?;
    let args = p.rest();
    let mut options: Vec<(String, Value)> = std::mem::take(&mut p.kwargs).into_iter().collect();
    p.finish()?;
    let word = |w: &str| args.iter().any(|a| a.as_str() == Some(w));
    if word("delete") {
        options.push(("delete".into(), Value::Str("f".into())));
    } else if word("print") {
        options.push(("print".into(), Value::Str("path".into())));
    }
    let finder = match Finder::new(options) {
        Ok(Ok(f)) => f,
        Ok(Err(raised)) => return Err(CallError::Failed(raised)),
        Err(e) => return Ok(Value::Str(format!("error: {e}"))),
    };
    let mut out = Vec::new();
    let tops: Vec<String> = match glob::glob(&path) {
        Ok(paths) => paths.flatten().map(|p| p.display().to_string()).collect(),
        Err(_) => Vec::new(),
    };
    for top in tops {
        finder.find(&top, &mut out);
        if let Some(e) = finder.raised.borrow_mut().take() {
            return Err(CallError::Failed(e));
        }
    }
    out.sort_by(py_cmp);
    Ok(Value::List(out))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_and_intervals_like_salt() {
        assert_eq!(parse_size("+1k").unwrap(), (1024, u64::MAX));
        assert_eq!(parse_size("-2").unwrap(), (0, 2));
        assert_eq!(parse_size("1m").unwrap(), (1 << 20, (2 << 20) - 1));
        assert!(parse_size("x").is_err());
        assert_eq!(parse_interval("+1d2h").unwrap(), (93_600.0, 86_400.0, '+'));
        assert_eq!(parse_interval("-30m").unwrap(), (1_800.0, 60.0, '-'));
        assert!(parse_interval("5").is_err());
        assert!(parse_interval("2h1d").is_err());
    }
}
