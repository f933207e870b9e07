//! `file.replace` (Salt's state and execution function) and the Python
//! regular-expression support it needs: Python flags, pattern syntax
//! differences, `re.sub` replacement templates and empty-match rules.
//!
//! Salt compiles the pattern as *bytes*, so `\w`, `\d`, `\s` and case
//! folding are ASCII-only; this uses `regex::bytes` with Unicode off to
//! match. Lookarounds and backreferences in patterns are not supported by
//! the `regex` crate: such a pattern fails the state with a clear comment.

use super::args::{failed, Args};
use super::difflib;
use super::fsutil;
use crate::{StateCall, StateReturn};
use brine_core::Value;
use regex::bytes::{Captures, Regex};
use std::path::Path;

const IGNORECASE: i64 = 2;
const MULTILINE: i64 = 8;
const DOTALL: i64 = 16;
const VERBOSE: i64 = 64;

/// Salt's `_get_flags`: an int, a flag name, or a list of names.
pub fn get_flags(flags: Option<&Value>) -> Result<i64, String> {
    let name_flag = |n: &str| -> Option<i64> {
        Some(match n.to_uppercase().as_str() {
            "A" | "ASCII" => 256,
            "I" | "IGNORECASE" => IGNORECASE,
            "L" | "LOCALE" => 4,
            "M" | "MULTILINE" => MULTILINE,
            "S" | "DOTALL" => DOTALL,
            "U" | "UNICODE" => 32,
            "X" | "VERBOSE" => VERBOSE,
            "T" | "TEMPLATE" | "DEBUG" => 128,
            _ => return None,
        })
    };
    match flags {
        None => Ok(MULTILINE),
        Some(Value::Int(i)) => Ok(*i),
        Some(Value::Str(s)) => name_flag(s).ok_or_else(|| format!("Invalid re flag given: {s}")),
        Some(Value::List(items)) => {
            let mut out = 0;
            for it in items {
                let n = it.to_python_str();
                match name_flag(&n) {
                    Some(f) if f != 0 => out |= f,
                    _ => return Err(format!("Invalid re flag given: {n}")),
                }
            }
            Ok(out)
        }
        Some(other) => Err(format!(
            "Invalid re flags: \"{}\", must be given either as a single flag string, a list of strings, as an integer, or as an re flag",
            other.to_python_str()
        )),
    }
}

/// Rewrite the Python-only bits of a pattern for the `regex` crate:
/// `\Z` is `\z`, `{,n}` is `{0,n}`.
fn translate_pattern(p: &str) -> String {
    let mut out = String::with_capacity(p.len());
    let chars: Vec<char> = p.chars().collect();
    let mut i = 0;
    let mut in_class = false;
    while i < chars.len() {
        let c = chars[i];
        match c {
            '\\' if i + 1 < chars.len() => {
                let n = chars[i + 1];
                if n == 'Z' && !in_class {
                    out.push_str("\\z");
                } else {
                    out.push(c);
                    out.push(n);
                }
                i += 2;
                continue;
            }
            '[' if !in_class => {
                in_class = true;
                out.push(c);
                // A `]` right after `[` or `[^` is a literal in both dialects.
                if chars.get(i + 1) == Some(&'^') {
                    out.push('^');
                    i += 1;
                }
                if chars.get(i + 1) == Some(&']') {
                    out.push_str("\\]");
                    i += 1;
                }
            }
            ']' if in_class => {
                in_class = false;
                out.push(c);
            }
            '{' if !in_class && chars.get(i + 1) == Some(&',') => out.push_str("{0"),
            _ => out.push(c),
        }
        i += 1;
    }
    out
}

/// Compile a Python pattern with Python flags, byte-oriented like Salt's.
pub fn compile(pattern: &str, flags: i64) -> Result<Regex, String> {
    let mut prefix = String::from("(?");
    if flags & IGNORECASE != 0 {
        prefix.push('i');
    }
    if flags & MULTILINE != 0 {
        prefix.push('m');
    }
    if flags & DOTALL != 0 {
        prefix.push('s');
    }
    if flags & VERBOSE != 0 {
        prefix.push('x');
    }
    // Bytes semantics: ASCII classes and case folding, like Python's
    // bytes patterns.
    prefix.push_str("-u)");
    Regex::new(&format!("{prefix}{}", translate_pattern(pattern)))
        .map_err(|e| format!("Unable to compile pattern '{pattern}': {e}"))
}

/// Python's `re.search` on bytes.
pub fn search(re: &Regex, data: &[u8]) -> bool {
    re.is_match(data)
}

/// One piece of a parsed `re.sub` replacement template.
enum Piece {
    Lit(Vec<u8>),
    Group(usize),
    Named(String),
}

/// Parse a Python replacement template (`\1`, `\g<name>`, `\n`, `\\`...).
fn parse_repl(repl: &[u8], re: &Regex) -> Result<Vec<Piece>, String> {
    let mut pieces = Vec::new();
    let mut lit = Vec::new();
    let mut i = 0;
    let ngroups = re.captures_len();
    let group_ok = |g: usize| {
        if g < ngroups {
            Ok(g)
        } else {
            Err(format!("invalid group reference {g}"))
        }
    };
    while i < repl.len() {
        let c = repl[i];
        if c != b'\\' || i + 1 >= repl.len() {
            lit.push(c);
            i += 1;
            continue;
        }
        let n = repl[i + 1];
        let flush = |lit: &mut Vec<u8>, pieces: &mut Vec<Piece>| {
            if !lit.is_empty() {
                pieces.push(Piece::Lit(std::mem::take(lit)));
            }
        };
        match n {
            b'g' => {
                let rest = &repl[i + 2..];
                let end = rest.iter().position(|&b| b == b'>');
                let (Some(b'<'), Some(end)) = (rest.first(), end) else {
                    return Err("missing group name".into());
                };
                let gname = String::from_utf8_lossy(&rest[1..end]).into_owned();
                flush(&mut lit, &mut pieces);
                match gname.parse::<usize>() {
                    Ok(g) => pieces.push(Piece::Group(group_ok(g)?)),
                    Err(_) => {
                        if !re.capture_names().flatten().any(|n| n == gname) {
                            return Err(format!("unknown group name '{gname}'"));
                        }
                        pieces.push(Piece::Named(gname));
                    }
                }
                i += 2 + end + 1;
            }
            b'0' => {
                // Octal escape: \0, \01, \012.
                let mut v = 0u32;
                let mut j = i + 1;
                let mut k = 0;
                while j < repl.len() && k < 3 && (b'0'..=b'7').contains(&repl[j]) {
                    v = v * 8 + u32::from(repl[j] - b'0');
                    j += 1;
                    k += 1;
                }
                lit.push((v & 0xff) as u8);
                i = j;
            }
            b'1'..=b'9' => {
                let mut j = i + 1;
                let mut g = 0usize;
                while j < repl.len() && j < i + 3 && repl[j].is_ascii_digit() {
                    g = g * 10 + usize::from(repl[j] - b'0');
                    j += 1;
                }
                flush(&mut lit, &mut pieces);
                pieces.push(Piece::Group(group_ok(g)?));
                i = j;
            }
            b'n' | b't' | b'r' | b'f' | b'v' | b'a' | b'b' | b'\\' => {
                lit.push(match n {
                    b'n' => b'\n',
                    b't' => b'\t',
                    b'r' => b'\r',
                    b'f' => 0x0c,
                    b'v' => 0x0b,
                    b'a' => 0x07,
                    b'b' => 0x08,
                    _ => b'\\',
                });
                i += 2;
            }
            c if c.is_ascii_alphabetic() => {
                return Err(format!("bad escape \\{}", c as char));
            }
            _ => {
                lit.push(b'\\');
                lit.push(n);
                i += 2;
            }
        }
    }
    if !lit.is_empty() {
        pieces.push(Piece::Lit(lit));
    }
    Ok(pieces)
}

fn expand(pieces: &[Piece], caps: &Captures, out: &mut Vec<u8>) {
    for p in pieces {
        match p {
            Piece::Lit(b) => out.extend_from_slice(b),
            Piece::Group(g) => {
                if let Some(m) = caps.get(*g) {
                    out.extend_from_slice(m.as_bytes());
                }
            }
            Piece::Named(n) => {
                if let Some(m) = caps.name(n) {
                    out.extend_from_slice(m.as_bytes());
                }
            }
        }
    }
}

/// Python's `re.subn(pattern, repl, data, count)` (count 0: all). Empty
/// matches next to a previous match are replaced too, as in Python 3.7+.
pub fn subn(
    re: &Regex,
    repl: &[u8],
    data: &[u8],
    count: usize,
) -> Result<(Vec<u8>, usize), String> {
    let pieces = parse_repl(repl, re)?;
    let mut out = Vec::with_capacity(data.len());
    let mut n = 0;
    let mut last = 0; // end of the text copied so far
    let mut pos = 0;
    let mut prev_empty_at: Option<usize> = None;
    while pos <= data.len() && (count == 0 || n < count) {
        let Some(caps) = re.captures_at(data, pos) else {
            break;
        };
        let Some(m) = caps.get(0) else {
            break;
        };
        if m.start() == m.end() && prev_empty_at == Some(m.start()) {
            // No second empty match at the same place: try one further.
            pos = m.start() + 1;
            continue;
        }
        out.extend_from_slice(&data[last..m.start()]);
        expand(&pieces, &caps, &mut out);
        last = m.end();
        n += 1;
        // Only an empty match forbids another empty match at the same spot.
        prev_empty_at = (m.start() == m.end()).then_some(m.end());
        pos = m.end();
    }
    out.extend_from_slice(&data[last.min(data.len())..]);
    Ok((out, n))
}

/// What Salt's `file.replace` execution function returns.
pub enum Outcome {
    /// `show_changes`: the unified diff (empty when nothing changed).
    Diff(String),
    /// Whether it changed (or, with `search_only`, matched).
    Changed(bool),
}

/// Why `file.replace` stopped: Salt raises `SaltInvocationError` for the
/// arguments and the file it is given, `CommandExecutionError` for I/O.
#[derive(Debug)]
pub enum ReplaceError {
    Invocation(String),
    Failed(String),
}

impl ReplaceError {
    pub fn message(self) -> String {
        match self {
            ReplaceError::Invocation(m) | ReplaceError::Failed(m) => m,
        }
    }
}

impl From<String> for ReplaceError {
    fn from(m: String) -> Self {
        ReplaceError::Failed(m)
    }
}

/// The arguments of Salt's `file.replace` execution function.
pub struct ReplaceArgs {
    pub pattern: String,
    pub repl: String,
    pub count: usize,
    pub flags: i64,
    pub append_if_not_found: bool,
    pub prepend_if_not_found: bool,
    pub not_found_content: Option<String>,
    pub backup: Option<String>,
    pub dry_run: bool,
    pub search_only: bool,
    pub show_changes: bool,
    pub ignore_if_missing: bool,
    pub backslash_literal: bool,
}

/// Salt's `file.replace` execution function (the state calls it too).
pub fn replace_file(path: &Path, a: &ReplaceArgs) -> Result<Outcome, ReplaceError> {
    let real = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    if !real.exists() {
        if a.ignore_if_missing {
            return Ok(Outcome::Changed(false));
        }
        return Err(ReplaceError::Invocation(format!(
            "File not found: {}",
            real.display()
        )));
    }
    if !fsutil::is_text_file(&real) {
        return Err(ReplaceError::Invocation(format!(
            "Cannot perform string replacements on a binary file: {}",
            real.display()
        )));
    }
    if a.search_only && (a.append_if_not_found || a.prepend_if_not_found) {
        return Err(ReplaceError::Invocation(
            "search_only cannot be used with append/prepend_if_not_found".into(),
        ));
    }
    if a.append_if_not_found && a.prepend_if_not_found {
        return Err(ReplaceError::Invocation(
            "Only one of append and prepend_if_not_found is permitted".into(),
        ));
    }
    let re = compile(&a.pattern, a.flags)?;
    let data = std::fs::read(&real).map_err(|e| {
        format!(
            "Unable to open file '{}'. Exception: {}",
            real.display(),
            fsutil::py_os_error(&e, &real)
        )
    })?;
    if a.search_only {
        return Ok(Outcome::Changed(search(&re, &data)));
    }
    let mut repl = a.repl.clone().into_bytes();
    if a.backslash_literal {
        repl = a.repl.replace('\\', "\\\\").into_bytes();
    }
    let (result, nrepl) = subn(&re, &repl, &data, a.count)?;
    let mut found = nrepl > 0;
    let mut has_changes = nrepl > 0;
    let content = match &a.not_found_content {
        Some(c) if a.append_if_not_found || a.prepend_if_not_found => c.clone(),
        _ => a.repl.clone(),
    };
    if a.append_if_not_found || a.prepend_if_not_found {
        // Was the content added by an earlier run?
        let probe = compile(&format!("^{}(?:$|\r\n)", regex::escape(&content)), a.flags)?;
        if search(&probe, &data) {
            found = true;
        }
    }
    let orig_lines: Vec<&[u8]> = difflib::bytes_splitlines_keepends(&data);
    let mut new_lines: Vec<Vec<u8>> = difflib::bytes_splitlines_keepends(&result)
        .into_iter()
        .map(<[u8]>::to_vec)
        .collect();
    if orig_lines
        .iter()
        .copied()
        .eq(new_lines.iter().map(Vec::as_slice))
    {
        has_changes = false;
    }
    let mut final_data = result.clone();
    if !found && (a.append_if_not_found || a.prepend_if_not_found) {
        let mut line = a
            .not_found_content
            .clone()
            .unwrap_or_else(|| String::from_utf8_lossy(&repl).into_owned())
            .into_bytes();
        line.push(b'\n');
        if a.prepend_if_not_found {
            new_lines.insert(0, line);
        } else {
            if let Some(last) = new_lines.last_mut() {
                if !last.ends_with(b"\n") {
                    last.push(b'\n');
                }
            }
            new_lines.push(line);
        }
        has_changes = true;
        final_data = new_lines.concat();
    }
    if has_changes && !a.dry_run {
        if let Some(suffix) = &a.backup {
            let mut b = real.clone().into_os_string();
            b.push(suffix);
            std::fs::write(&b, &data)
                .map_err(|e| format!("Exception: {}", fsutil::py_os_error(&e, Path::new(&b))))?;
            // A link edited through gets a backup link beside it, to the
            // target's backup (the link's own text plus the suffix).
            if let Ok(target) = std::fs::read_link(path) {
                let mut link = path.as_os_str().to_os_string();
                link.push(suffix);
                let mut to = target.into_os_string();
                to.push(suffix);
                if std::os::unix::fs::symlink(&to, &link).is_err() {
                    let _ = std::fs::remove_file(&link);
                    std::os::unix::fs::symlink(&to, &link).map_err(|e| {
                        format!(
                            "Unable create backup symlink '{}'. Target was '{}'. Exception: {e}",
                            Path::new(&link).display(),
                            Path::new(&to).display()
                        )
                    })?;
                }
            }
        }
        // Written in place, so hard links keep sharing the file.
        std::fs::write(&real, &final_data).map_err(|e| {
            format!(
                "Unable to write file '{}'. Exception: {}",
                real.display(),
                fsutil::py_os_error(&e, &real)
            )
        })?;
    }
    let old: Vec<String> = orig_lines.iter().map(|l| difflib::decode_line(l)).collect();
    let new: Vec<String> = new_lines.iter().map(|l| difflib::decode_line(l)).collect();
    let differences = difflib::diff_lines(&old, &new);
    if a.show_changes {
        return Ok(Outcome::Diff(differences));
    }
    Ok(Outcome::Changed(has_changes && !differences.is_empty()))
}

pub fn replace(call: &StateCall, args: &Args, raw_name: &str) -> Result<StateReturn, String> {
    let name = fsutil::expanduser(raw_name);
    if name.is_empty() {
        return Ok(failed(&name, "Must provide name to file.replace"));
    }
    let path = Path::new(&name);
    let check = if !fsutil::isabs(&name) {
        Some(format!("Specified file {name} is not an absolute path"))
    } else if !path.exists() {
        Some(format!("{name}: file not found"))
    } else {
        None
    };
    let mut ret = StateReturn::new(&name);
    if let Some(msg) = check {
        if args.truthy("ignore_if_missing", false) && msg.contains("file not found") {
            ret.comment = "No changes needed to be made".into();
            return Ok(ret);
        }
        return Ok(failed(&name, msg));
    }
    let pattern = match args.get("pattern") {
        Some(v) => v.to_python_str(),
        None => return Ok(failed(&name, "Missing required argument 'pattern'")),
    };
    let repl = match args.get("repl") {
        Some(v) => v.to_python_str(),
        None => match call.low.get("repl") {
            // `repl: null` is Python's None, printed "None".
            Some(Value::Null) => "None".into(),
            _ => return Ok(failed(&name, "Missing required argument 'repl'")),
        },
    };
    let flags = match get_flags(args.get("flags")) {
        Ok(f) => f,
        Err(e) => return Ok(failed(&name, e)),
    };
    let backup = match call.low.get("backup") {
        None => Some(".bak".to_string()),
        Some(v) if !v.is_truthy() => None,
        Some(v) => Some(v.to_python_str()),
    };
    let a = ReplaceArgs {
        pattern,
        repl,
        count: args.int("count")?.filter(|c| *c > 0).unwrap_or(0) as usize,
        flags,
        append_if_not_found: args.truthy("append_if_not_found", false),
        prepend_if_not_found: args.truthy("prepend_if_not_found", false),
        not_found_content: args.get("not_found_content").map(Value::to_python_str),
        backup,
        dry_run: call.test,
        search_only: false,
        // The state checked for the file itself.
        ignore_if_missing: false,
        show_changes: args.truthy("show_changes", true),
        backslash_literal: args.truthy("backslash_literal", false),
    };
    let changes = match replace_file(path, &a) {
        Ok(c) => c,
        Err(e) => return Ok(failed(&name, e.message())),
    };
    let diff = match changes {
        Outcome::Diff(d) if !d.is_empty() => Some(Value::Str(d)),
        Outcome::Changed(true) => Some(Value::Bool(true)),
        _ => None,
    };
    match diff {
        Some(d) => {
            ret.changes.insert("diff".into(), d);
            if call.test {
                ret.result = None;
                ret.comment = "Changes would have been made".into();
            } else {
                ret.comment = "Changes were made".into();
            }
        }
        None => ret.comment = "No changes needed to be made".into(),
    }
    Ok(ret)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sub(p: &str, r: &str, d: &str, flags: i64) -> (String, usize) {
        let re = compile(p, flags).unwrap();
        let (out, n) = subn(&re, r.as_bytes(), d.as_bytes(), 0).unwrap();
        (String::from_utf8(out).unwrap(), n)
    }

    // Expected values are what Python 3.11's re.subn returns.
    #[test]
    fn python_sub_semantics() {
        assert_eq!(sub("x*", "-", "abxd", 0), ("-a-b--d-".into(), 5));
        assert_eq!(
            sub(r"^(\w+)=(\d)", r"\2=\1", "a=1\nb=2\n", MULTILINE),
            ("1=a\n2=b\n".into(), 2)
        );
        assert_eq!(
            sub(r"(?P<k>a)", r"[\g<k>\g<0>]\t", "ba", 0),
            ("b[aa]\t".into(), 1)
        );
        assert_eq!(sub("a{,2}", "X", "aaa", 0), ("XXX".into(), 3));
        assert_eq!(sub("b$", "X", "ab", 0), ("aX".into(), 1));
        assert!(compile("(?=x)", 0).is_err());
        let re = compile("a", 0).unwrap();
        assert_eq!(subn(&re, br"\q", b"a", 0).unwrap_err(), "bad escape \\q");
        assert_eq!(
            subn(&re, br"\2", b"a", 0).unwrap_err(),
            "invalid group reference 2"
        );
        assert_eq!(subn(&re, br"\.", b"a", 0).unwrap().0, b"\\.");
    }

    #[test]
    fn flags_like_salt() {
        assert_eq!(get_flags(None).unwrap(), 8);
        assert_eq!(
            get_flags(Some(&Value::Str("ignorecase".into()))).unwrap(),
            2
        );
        assert_eq!(
            get_flags(Some(&Value::List(vec![
                Value::Str("I".into()),
                Value::Str("M".into())
            ])))
            .unwrap(),
            10
        );
        assert_eq!(
            get_flags(Some(&Value::Str("bogus".into()))).unwrap_err(),
            "Invalid re flag given: bogus"
        );
    }
}
