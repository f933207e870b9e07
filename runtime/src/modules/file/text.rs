//! Contents as text: `contains`, `search`, `replace` (the file state's
//! implementation), `line` and `blockreplace`.

use super::args::{path_arg, truthy};
use super::meta::realpath;
use crate::modules::function::{CallError, Ctx};
use crate::modules::params::Params;
use brine_core::Value;
use brine_states::modules::file::difflib;
use brine_states::modules::file::edit::{self, py_search};
use brine_states::modules::file::fsutil::{self, py_os_error};
use brine_states::modules::file::replace::{self as re_, Outcome, ReplaceArgs, ReplaceError};
use std::path::Path;

/// A string argument as Python's `str()` gives it; `None` for null.
fn opt_str(v: Option<Value>) -> Option<String> {
    match v {
        None | Some(Value::Null) => None,
        Some(v) => Some(v.to_python_str()),
    }
}

fn replace_error(e: ReplaceError) -> CallError {
    match e {
        ReplaceError::Invocation(m) => CallError::Invocation(m),
        ReplaceError::Failed(m) => CallError::Failed(m),
    }
}

fn outcome(o: Outcome) -> Value {
    match o {
        Outcome::Diff(d) => Value::Str(d),
        Outcome::Changed(b) => Value::Bool(b),
    }
}

/// An integer argument (`count`); Python's `int` refuses anything else.
fn int_arg(v: Option<Value>, name: &str, default: i64) -> Result<i64, CallError> {
    match v {
        None => Ok(default),
        Some(Value::Int(i)) => Ok(i),
        Some(Value::Bool(b)) => Ok(i64::from(b)),
        Some(other) => Err(CallError::Failed(format!(
            "'{}' object cannot be interpreted as an integer ({name})",
            other.type_name()
        ))),
    }
}

fn flags_arg(v: Option<Value>) -> Result<i64, CallError> {
    re_::get_flags(v.as_ref()).map_err(CallError::Failed)
}

pub(super) fn contains(mut p: Params) -> Result<Value, CallError> {
    let path = path_arg(&mut p, "path")?;
    let text = p.require("text")?.to_python_str();
    p.finish()?;
    // Unreadable counts as "not there", as in Salt.
    let Ok(data) = std::fs::read(&path) else {
        return Ok(Value::Bool(false));
    };
    let data = String::from_utf8_lossy(&data);
    Ok(Value::Bool(data.contains(text.trim())))
}

pub(super) fn contains_regex(mut p: Params) -> Result<Value, CallError> {
    let path = path_arg(&mut p, "path")?;
    let regex = p.require("regex")?.to_python_str();
    let lchar = opt_str(p.take("lchar")).unwrap_or_default();
    p.finish()?;
    let Ok(data) = std::fs::read(&path) else {
        return Ok(Value::Bool(false));
    };
    let re = re_::compile(&regex, 0).map_err(CallError::Failed)?;
    let text = String::from_utf8_lossy(&data);
    let text = text.replace("\r\n", "\n").replace('\r', "\n");
    let found = readlines(&text).iter().any(|line| {
        let line = line.trim_start_matches(|c| lchar.contains(c));
        py_search(&re, line)
    });
    Ok(Value::Bool(found))
}

pub(super) fn contains_glob(mut p: Params) -> Result<Value, CallError> {
    let path = path_arg(&mut p, "path")?;
    let glob_expr = p.require("glob_expr")?.to_python_str();
    p.finish()?;
    // Salt matches a window of up to 256 KiB (the whole of most files)
    // against the pattern; this matches the whole file.
    let Ok(data) = std::fs::read(&path) else {
        return Ok(Value::Bool(false));
    };
    let text = String::from_utf8_lossy(&data);
    let opts = glob::MatchOptions {
        case_sensitive: true,
        require_literal_separator: false,
        require_literal_leading_dot: false,
    };
    let found = glob::Pattern::new(&glob_expr).is_ok_and(|g| g.matches_with(&text, opts));
    Ok(Value::Bool(found))
}

pub(super) fn search(mut p: Params) -> Result<Value, CallError> {
    let path = path_arg(&mut p, "path")?;
    let pattern = p.require("pattern")?.to_python_str();
    let flags = p.take("flags");
    // Read whole: the buffer size changes nothing in what matches.
    let _bufsize = p.take("bufsize");
    let ignore_if_missing = truthy(p.take("ignore_if_missing"), false);
    let multiline = truthy(p.take("multiline"), false);
    p.finish()?;
    let mut flags = flags_arg(flags)?;
    if multiline {
        flags |= 8;
    }
    let a = ReplaceArgs {
        pattern,
        repl: String::new(),
        count: 0,
        flags,
        append_if_not_found: false,
        prepend_if_not_found: false,
        not_found_content: None,
        backup: None,
        dry_run: true,
        search_only: true,
        show_changes: false,
        ignore_if_missing,
        backslash_literal: false,
    };
    re_::replace_file(Path::new(&path), &a)
        .map(outcome)
        .map_err(replace_error)
}

pub(super) fn replace(mut p: Params) -> Result<Value, CallError> {
    let path = path_arg(&mut p, "path")?;
    let pattern = p.require("pattern")?.to_python_str();
    let repl = p.require("repl")?.to_python_str();
    let count = int_arg(p.take("count"), "count", 0)?;
    let flags = p.take("flags");
    let _bufsize = p.take("bufsize");
    let append_if_not_found = truthy(p.take("append_if_not_found"), false);
    let prepend_if_not_found = truthy(p.take("prepend_if_not_found"), false);
    let not_found_content = p.take("not_found_content").filter(Value::is_truthy);
    let backup = match p.take("backup") {
        None => Some(".bak".to_string()),
        Some(v) if !v.is_truthy() => None,
        Some(v) => Some(v.to_python_str()),
    };
    let dry_run = truthy(p.take("dry_run"), false);
    let search_only = truthy(p.take("search_only"), false);
    let show_changes = truthy(p.take("show_changes"), true);
    let ignore_if_missing = truthy(p.take("ignore_if_missing"), false);
    // The file is always rewritten in place here, which keeps the inode.
    let _preserve_inode = p.take("preserve_inode");
    let backslash_literal = truthy(p.take("backslash_literal"), false);
    p.finish()?;
    let a = ReplaceArgs {
        pattern,
        repl,
        // Python's re.subn: zero or less replaces every match.
        count: usize::try_from(count).unwrap_or(0),
        flags: flags_arg(flags)?,
        append_if_not_found,
        prepend_if_not_found,
        not_found_content: not_found_content.map(|v| v.to_python_str()),
        backup,
        dry_run,
        search_only,
        show_changes,
        ignore_if_missing,
        backslash_literal,
    };
    re_::replace_file(Path::new(&path), &a)
        .map(outcome)
        .map_err(replace_error)
}

/// The line ending `line` ends with (`\r\n`, `\n` or `\r`), or "".
fn get_eol(line: &str) -> &str {
    if line.ends_with("\r\n") {
        "\r\n"
    } else if line.ends_with('\n') {
        "\n"
    } else if line.ends_with('\r') {
        "\r"
    } else {
        ""
    }
}

/// `line` with the leading blanks of `src` (when `indent`).
fn set_line_indent(src: &str, line: &str, indent: bool) -> String {
    if !indent {
        return line.to_string();
    }
    let lead: String = src
        .chars()
        .take_while(|c| *c == ' ' || *c == '\t')
        .collect();
    format!("{lead}{}", line.trim_start())
}

/// `line` stripped, ending as `src` ends (or with `\n`).
fn set_line_eol(src: &str, line: &str) -> String {
    let eol = match get_eol(src) {
        "" => "\n",
        e => e,
    };
    format!("{}{eol}", line.trim_end())
}

/// The lines matching `regex` (Python's `re.search` with DOTALL) or
/// containing it literally; `None` without lines or a regex.
fn regex_to_static(
    lines: &[String],
    regex: Option<&str>,
) -> Result<Option<Vec<String>>, CallError> {
    let Some(regex) = regex.filter(|r| !r.is_empty()) else {
        return Ok(None);
    };
    if lines.is_empty() {
        return Ok(None);
    }
    let re = re_::compile(regex, 16).map_err(|e| CallError::Failed(format!("{e}: '{regex}'")))?;
    Ok(Some(
        lines
            .iter()
            .filter(|l| py_search(&re, l) || l.contains(regex))
            .cloned()
            .collect(),
    ))
}

fn assert_occurrence(probe: &[String], target: &str) -> Result<(), CallError> {
    let msg = match probe.len() {
        1 => return Ok(()),
        0 => "less than",
        _ => "more than",
    };
    Err(CallError::Failed(format!(
        "Found {msg} expected occurrences in \"{target}\" expression"
    )))
}

/// Python's `list.index`: these lines came from `lines`, so it is there.
fn index_of(lines: &[String], line: &str) -> usize {
    lines.iter().position(|l| l == line).unwrap_or(0)
}

struct LineEdit<'a> {
    content: Option<&'a str>,
    match_: Option<&'a str>,
    mode: &'a str,
    location: Option<&'a str>,
    before: Option<&'a str>,
    after: Option<&'a str>,
    indent: bool,
}

/// Salt's `_set_line`: the edited lines.
fn set_line(mut lines: Vec<String>, e: &LineEdit) -> Result<Vec<String>, CallError> {
    let fail = |m: &str| Err(CallError::Failed(m.to_string()));
    let content = e.content.unwrap_or_default();
    let match_ = match e.match_ {
        Some(m) if !m.is_empty() => Some(m),
        _ if e.before.is_none() && e.after.is_none() => e.content,
        m => m,
    };
    let after = regex_to_static(&lines, e.after)?;
    let before = regex_to_static(&lines, e.before)?;
    let matched = regex_to_static(&lines, match_)?;
    let some = |v: &Option<Vec<String>>| v.as_ref().is_some_and(|v| !v.is_empty());
    if lines.is_empty() && matches!(e.mode, "delete" | "replace") {
        return Ok(lines);
    }
    match e.mode {
        "delete" if some(&matched) => {
            let first = matched.as_ref().map(|m| m[0].clone()).unwrap_or_default();
            lines.retain(|l| *l != first);
        }
        "replace" if some(&matched) => {
            let first = matched.as_ref().map(|m| m[0].clone()).unwrap_or_default();
            let idx = index_of(&lines, &first);
            lines[idx] = set_line_indent(&first, content, e.indent);
        }
        "insert" => {
            if e.before.is_none() && e.after.is_none() && e.location.is_none() {
                return fail(
                    "On insert either \"location\" or \"before/after\" conditions are required.",
                );
            }
            if let Some(location) = e.location.filter(|l| !l.is_empty()) {
                if location == "end" {
                    let line = match lines.last() {
                        Some(last) => set_line_indent(last, content, e.indent),
                        None => content.to_string(),
                    };
                    lines.push(line);
                } else if location == "start" {
                    match lines.first() {
                        Some(first) => {
                            let line = set_line_eol(first, content);
                            lines.insert(0, line);
                        }
                        None => lines = vec![format!("{content}\n")],
                    }
                }
            } else if some(&before) && some(&after) {
                let (b, a) = (before.unwrap_or_default(), after.unwrap_or_default());
                assert_occurrence(&b, "before")?;
                assert_occurrence(&a, "after")?;
                let last = index_of(&lines, &b[0]);
                let line = set_line_indent(&lines[last], content, e.indent);
                lines.insert(last, line);
            } else if some(&after) {
                let a = after.unwrap_or_default();
                assert_occurrence(&a, "after")?;
                let idx = index_of(&lines, &a[0]);
                let next_same = lines.get(idx + 1).is_some_and(|n| {
                    n.trim_end_matches(['\r', '\n']) == content.trim_end_matches(['\r', '\n'])
                });
                if !next_same {
                    let line = set_line_indent(&lines[idx], content, e.indent);
                    lines.insert(idx + 1, line);
                }
            } else if some(&before) {
                let b = before.unwrap_or_default();
                assert_occurrence(&b, "before")?;
                let idx = index_of(&lines, &b[0]);
                // Python's lines[-1] when the match is the first line.
                let prev = &lines[idx.checked_sub(1).unwrap_or(lines.len() - 1)];
                if prev.trim_end_matches(['\r', '\n']) != content.trim_end_matches(['\r', '\n']) {
                    let line = set_line_indent(&lines[idx], content, e.indent);
                    lines.insert(idx, line);
                }
            } else {
                return fail("Neither before or after was found in file");
            }
        }
        "ensure" => {
            if some(&before) && some(&after) {
                let (b, a) = (before.unwrap_or_default(), after.unwrap_or_default());
                assert_occurrence(&a, "after")?;
                assert_occurrence(&b, "before")?;
                let ai = index_of(&lines, &a[0]);
                let bi = index_of(&lines, &b[0]);
                let already = lines.iter().any(|l| l.trim_start() == content);
                if !already {
                    if ai + 1 == bi {
                        let line = set_line_indent(&lines[ai], content, e.indent);
                        lines.insert(ai + 1, line);
                    } else if ai + 2 == bi {
                        lines[ai + 1] = set_line_indent(&lines[ai], content, e.indent);
                    } else {
                        return fail(
                            "Found more than one line between boundaries \"before\" and \"after\".",
                        );
                    }
                }
            } else if some(&before) {
                let b = before.unwrap_or_default();
                assert_occurrence(&b, "before")?;
                let bi = index_of(&lines, &b[0]);
                let differs = bi == 0
                    || lines[bi - 1].trim_end_matches(['\r', '\n'])
                        != content.trim_end_matches(['\r', '\n']);
                if differs {
                    // Python's lines[-1] when the match is the first line.
                    let src = &lines[bi.checked_sub(1).unwrap_or(lines.len() - 1)];
                    let line = set_line_indent(src, content, e.indent);
                    lines.insert(bi, line);
                }
            } else if some(&after) {
                let a = after.unwrap_or_default();
                assert_occurrence(&a, "after")?;
                let ai = index_of(&lines, &a[0]);
                let differs = lines.get(ai + 1).is_none_or(|n| {
                    n.trim_end_matches(['\r', '\n']) != content.trim_end_matches(['\r', '\n'])
                });
                if differs {
                    let line = set_line_indent(&lines[ai], content, e.indent);
                    lines.insert(ai + 1, line);
                }
            } else {
                return fail(
                    "Wrong conditions? Unable to ensure line without knowing where to put it before and/or after.",
                );
            }
        }
        _ => {}
    }
    Ok(lines)
}

/// Python's `readlines()` of text: lines split after each `\n`.
fn readlines(text: &str) -> Vec<String> {
    text.split_inclusive('\n').map(String::from).collect()
}

pub(super) fn line(c: &Ctx, mut p: Params) -> Result<Value, CallError> {
    let path = path_arg(&mut p, "path")?;
    let content = opt_str(p.take("content"));
    let match_ = opt_str(p.take("match"));
    let mode = opt_str(p.take("mode"));
    let location = opt_str(p.take("location"));
    let before = opt_str(p.take("before"));
    let after = opt_str(p.take("after"));
    let show_changes = truthy(p.take("show_changes"), true);
    let backup = truthy(p.take("backup"), false);
    let quiet = truthy(p.take("quiet"), false);
    let indent = truthy(p.take("indent"), true);
    p.finish()?;
    let path = realpath(&path);
    if !Path::new(&path).is_file() {
        if quiet {
            return Ok(Value::Bool(false));
        }
        return Err(CallError::Failed(format!(
            "File \"{path}\" does not exists or is not a file."
        )));
    }
    let mode = mode.map(|m| m.to_lowercase()).filter(|m| !m.is_empty());
    let mode = match mode.as_deref() {
        Some(m @ ("insert" | "ensure" | "delete" | "replace")) => m.to_string(),
        None => {
            return Err(CallError::Failed(
                "Mode was not defined. How to process the file?".into(),
            ))
        }
        Some(other) => return Err(CallError::Failed(format!("Unknown mode: \"{other}\""))),
    };
    if mode != "delete" && content.is_none() {
        return Err(CallError::Failed(
            "Content can only be empty if mode is \"delete\"".into(),
        ));
    }
    let read = |path: &str| -> Result<String, CallError> {
        let data =
            std::fs::read(path).map_err(|e| CallError::Failed(py_os_error(&e, Path::new(path))))?;
        let text = String::from_utf8_lossy(&data);
        Ok(text.replace("\r\n", "\n").replace('\r', "\n"))
    };
    let text = read(&path)?;
    let mut body = readlines(&text);
    if body.last().is_some_and(|l| !get_eol(l).is_empty()) {
        body.push(String::new());
    }
    if text.is_empty() && matches!(mode.as_str(), "delete" | "replace") {
        body.clear();
    }
    let edit = LineEdit {
        content: content.as_deref(),
        match_: match_.as_deref(),
        mode: &mode,
        location: location.as_deref(),
        before: before.as_deref(),
        after: after.as_deref(),
        indent,
    };
    let mut body = set_line(body, &edit)?;
    // Every line but the last gets an ending like its neighbour's.
    for idx in 0..body.len() {
        if get_eol(&body[idx]).is_empty() && idx + 1 < body.len() {
            let prev = if idx == 0 { 1 } else { idx - 1 };
            body[idx] = set_line_eol(&body[prev], &body[idx]);
        }
    }
    if body.last().is_some_and(String::is_empty) {
        body.pop();
    }
    let new_text: String = body.concat();
    let changed = new_text != text;
    let test = brine_compile::opts::test_mode(c.opts);
    if backup && changed && !test {
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs() as i64);
        let stamp = brine_host::sys::strftime_local(now, "%Y-%m-%d-%H-%M-%S").unwrap_or_default();
        let to = format!("{path}.{stamp}");
        std::fs::copy(&path, &to).map_err(|e| {
            CallError::Failed(format!(
                "Unable to create the backup file of {path}. Exception: {}",
                py_os_error(&e, Path::new(&to))
            ))
        })?;
    }
    let mut diff = String::new();
    if changed {
        if show_changes {
            let old = readlines(&text);
            diff = difflib::diff_lines(&old, &body);
        }
        if !test {
            fsutil::write_atomic(Path::new(&path), new_text.as_bytes())
                .map_err(|e| CallError::Failed(py_os_error(&e, Path::new(&path))))?;
        }
    }
    if show_changes && !diff.is_empty() {
        return Ok(Value::Str(diff));
    }
    Ok(Value::Bool(changed))
}

pub(super) fn comment_line(mut p: Params, fixed: Option<bool>) -> Result<Value, CallError> {
    let path = path_arg(&mut p, "path")?;
    let regex = p.require("regex")?.to_python_str();
    let char_ = opt_str(p.take("char")).unwrap_or_else(|| "#".into());
    // `comment`/`uncomment` fix it; `comment_line` takes it as `cmnt`.
    let cmnt = match fixed {
        Some(c) => c,
        None => truthy(p.take("cmnt"), true),
    };
    let backup = match p.take("backup") {
        None => Some(".bak".to_string()),
        Some(v) if !v.is_truthy() => None,
        Some(v) => Some(v.to_python_str()),
    };
    p.finish()?;
    let path = realpath(&path);
    let diff = edit::comment_line(&path, &regex, &char_, cmnt, backup.as_deref())
        .map_err(replace_error)?;
    Ok(diff.map_or(Value::Bool(false), Value::Str))
}

pub(super) fn get_diff(c: &Ctx, mut p: Params) -> Result<Value, CallError> {
    let file1 = p.require("file1")?.to_python_str();
    let file2 = p.require("file2")?.to_python_str();
    let saltenv = opt_str(p.take("saltenv")).unwrap_or_else(|| "base".into());
    let show_filenames = truthy(p.take("show_filenames"), true);
    let show_changes = truthy(p.take("show_changes"), true);
    let template = truthy(p.take("template"), false);
    // Sources are not verified against a hash when they are compared.
    p.take("source_hash_file1");
    p.take("source_hash_file2");
    p.finish()?;
    let client = super::source::client(c);
    let mut paths = Vec::new();
    let mut errors = Vec::new();
    for f in [&file1, &file2] {
        // A local path is used as it is (reading it may fail below).
        if !f.starts_with("salt://") {
            paths.push(std::path::PathBuf::from(
                f.strip_prefix("file://").unwrap_or(f),
            ));
            continue;
        }
        match client.cache_file(f, &saltenv) {
            Ok(path) => paths.push(path),
            Err(_) => errors.push(format!("- File {f} not found")),
        }
    }
    if !errors.is_empty() {
        return Err(CallError::Failed(format!(
            "Failed to cache one or more files. Additional info follows:\n\n{}",
            errors.join("\n")
        )));
    }
    let read = |path: &std::path::PathBuf| {
        std::fs::read(path).map_err(|e| {
            let text = py_os_error(&e, path);
            let strerror = text
                .split_once("] ")
                .map_or(text.as_str(), |(_, t)| {
                    t.rsplit_once(": '").map_or(t, |(s, _)| s)
                })
                .to_string();
            CallError::Failed(format!("Failed to read {}: {strerror}", path.display()))
        })
    };
    let (a, b) = (read(&paths[0])?, read(&paths[1])?);
    if a == b {
        return Ok(Value::Str(String::new()));
    }
    if template
        && c.opts
            .get("obfuscate_templates")
            .is_some_and(Value::is_truthy)
    {
        return Ok(Value::Str("<Obfuscated Template>".into()));
    }
    if !show_changes {
        return Ok(Value::Str("<show_changes=False>".into()));
    }
    let (old_bin, new_bin) = (!fsutil::is_text_bytes(&a), !fsutil::is_text_bytes(&b));
    let binary = match (old_bin, new_bin) {
        (true, true) => "Replace binary file",
        (true, false) => "Replace binary file with text file",
        (false, true) => "Replace text file with binary file",
        (false, false) => "",
    };
    if !binary.is_empty() {
        return Ok(Value::Str(binary.into()));
    }
    let diff = difflib::diff_bytes(&a, &b);
    if !show_filenames {
        return Ok(Value::Str(diff));
    }
    // The header names the two files compared.
    let body = diff.strip_prefix("--- \n+++ \n").unwrap_or(&diff);
    Ok(Value::Str(format!(
        "--- {}\n+++ {}\n{body}",
        paths[0].display(),
        paths[1].display()
    )))
}

pub(super) fn blockreplace(mut p: Params) -> Result<Value, CallError> {
    let path = path_arg(&mut p, "path")?;
    let marker_start =
        opt_str(p.take("marker_start")).unwrap_or_else(|| "#-- start managed zone --".into());
    let marker_end =
        opt_str(p.take("marker_end")).unwrap_or_else(|| "#-- end managed zone --".into());
    let content = opt_str(p.take("content")).unwrap_or_default();
    let append_if_not_found = p.take("append_if_not_found");
    let prepend_if_not_found = p.take("prepend_if_not_found");
    let backup = match p.take("backup") {
        None => Some(".bak".to_string()),
        Some(Value::Bool(false)) => None,
        Some(v) => Some(v.to_python_str()),
    };
    let dry_run = truthy(p.take("dry_run"), false);
    let show_changes = truthy(p.take("show_changes"), true);
    let append_newline = match p.take("append_newline") {
        // `append_newline=None` asks for a newline when the content lacks one.
        Some(Value::Null) => None,
        v => Some(truthy(v, false)),
    };
    let insert_before_match = p.take("insert_before_match");
    let insert_after_match = p.take("insert_after_match");
    p.finish()?;
    let args = edit::BlockArgs {
        marker_start,
        marker_end,
        content,
        append_if_not_found: append_if_not_found.as_ref().is_some_and(Value::is_truthy),
        prepend_if_not_found: prepend_if_not_found.as_ref().is_some_and(Value::is_truthy),
        insert_before_match,
        insert_after_match,
        backup,
        dry_run,
        show_changes,
        append_newline,
    };
    edit::blockreplace(&path, &args)
        .map(outcome)
        .map_err(replace_error)
}
