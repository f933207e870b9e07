//! `file.comment`, `file.uncomment`, `file.prepend`, `file.keyvalue` and
//! `file.blockreplace`: Salt 3007.8's line-editing states, with their
//! test-mode predictions and wording.

use super::args::{failed, Args};
use super::difflib;
use super::edit::{self, BlockArgs};
use super::fsutil;
use super::misc::{touch, whitespace_split_regex};
use super::replace::{self, Outcome, ReplaceError};
use super::texts::{str_list, template_texts, unify_sources};
use crate::{StateCall, StateReturn};
use brine_core::Value;
use std::path::Path;

/// Salt's `_check_file`: the failure comment, if any.
fn check_file(name: &str) -> Option<String> {
    if !fsutil::isabs(name) {
        Some(format!("Specified file {name} is not an absolute path"))
    } else if !Path::new(name).exists() {
        Some(format!("{name}: file not found"))
    } else {
        None
    }
}

/// Salt's `file.search(path, pattern, multiline=True)`.
fn search(path: &str, pattern: &str) -> Result<bool, String> {
    let re = replace::compile(pattern, 8)?;
    let data = std::fs::read(path).map_err(|e| fsutil::py_os_error(&e, Path::new(path)))?;
    Ok(replace::search(&re, &data))
}

/// The lines of a file as Python's `str.splitlines(True)` gives them.
fn read_lines_keepends(path: &str) -> Vec<String> {
    let data = std::fs::read(path).unwrap_or_default();
    difflib::bytes_splitlines_keepends(&data)
        .into_iter()
        .map(difflib::decode_line)
        .collect()
}

/// The lines of a file as binary `readlines()` gives them.
fn read_lines_nl(path: &str) -> Vec<String> {
    let data = std::fs::read(path).unwrap_or_default();
    difflib::split_keep_newline(&data)
        .into_iter()
        .map(difflib::decode_line)
        .collect()
}

/// The `diff` change of a line edit: Salt's note for a binary file, else
/// the unified diff of the lines.
fn diff_change(path: &str, old: &[String], new: &[String]) -> Value {
    if !fsutil::is_text_file(Path::new(path)) {
        return Value::Str("Replace binary file".into());
    }
    Value::Str(difflib::diff_lines(old, new))
}

/// A `backup` argument: its suffix, `None` for a false value.
fn backup_arg(args: &Args, default: &str) -> Option<String> {
    match args.low.get("backup") {
        None => Some(default.to_string()),
        Some(v) if !v.is_truthy() => None,
        Some(v) => Some(v.to_python_str()),
    }
}

/// A required text argument (`regex`).
fn required(args: &Args, key: &str) -> Result<String, String> {
    match args.low.get(key) {
        Some(v) => Ok(v.to_python_str()),
        None => Err(format!("Missing required argument '{key}'")),
    }
}

/// Salt's `re.sub(r"^(\(\?[iLmsux]\))?\^?(.*?)\$?$", r"\2", regex)`: the
/// pattern without a leading inline flag group, `^` and a trailing `$`.
fn unanchor(regex: &str) -> &str {
    let mut r = regex;
    let b = r.as_bytes();
    if b.len() >= 4 && b.starts_with(b"(?") && b[3] == b')' && b"iLmsux".contains(&b[2]) {
        r = &r[4..];
    }
    let r = r.strip_prefix('^').unwrap_or(r);
    r.strip_suffix('$').unwrap_or(r)
}

/// Salt's `^(?!\s*CHAR)\s*PATTERN` search, line by line (the `regex`
/// crate has no lookahead): a line whose first non-blank text is not
/// `char` and that `PATTERN` matches after its leading blanks.
fn uncommented_match(path: &str, char_: &str, pattern: &str) -> Result<bool, String> {
    let re = replace::compile(&format!("^\\s*(?:{pattern})"), 8)?;
    Ok(read_lines_nl(path)
        .iter()
        .any(|line| !line.trim_start().starts_with(char_) && edit::py_search(&re, line)))
}

pub fn comment(call: &StateCall, args: &Args, raw_name: &str) -> Result<StateReturn, String> {
    let name = fsutil::expanduser(raw_name);
    if name.is_empty() {
        return Ok(failed(&name, "Must provide name to file.comment"));
    }
    if let Some(msg) = check_file(&name) {
        return Ok(failed(&name, msg));
    }
    let regex = match required(args, "regex") {
        Ok(r) => r,
        Err(e) => return Ok(failed(&name, e)),
    };
    let char_ = args.string("char")?.unwrap_or_else(|| "#".into());
    let unanchored = unanchor(&regex).to_string();
    let comment_regex = format!("{char_}{unanchored}");
    let mut ret = StateReturn::new(&name);
    ret.result = Some(false);
    if !uncommented_match(&name, &char_, &unanchored)? {
        if search(&name, &comment_regex)? {
            ret.comment = "Pattern already commented".into();
            ret.result = Some(true);
        } else if args.truthy("ignore_missing", false) {
            ret.comment = "Pattern not found and ignore_missing set to True".into();
            ret.result = Some(true);
        } else {
            return Ok(failed(&name, format!("{unanchored}: Pattern not found")));
        }
        return Ok(ret);
    }
    if call.test {
        ret.changes
            .insert(name.clone(), Value::Str("updated".into()));
        ret.comment = format!("File {name} is set to be updated");
        ret.result = None;
        return Ok(ret);
    }
    let before = read_lines_keepends(&name);
    let real = std::fs::canonicalize(&name)
        .map(|p| p.to_string_lossy().into_owned())
        .unwrap_or_else(|_| name.clone());
    edit::comment_line(
        &real,
        &regex,
        &char_,
        true,
        backup_arg(args, ".bak").as_deref(),
    )
    .map_err(ReplaceError::message)?;
    let after = read_lines_keepends(&name);
    let found = search(&name, &comment_regex)?;
    ret.result = Some(found);
    if before != after {
        ret.changes
            .insert("diff".into(), diff_change(&name, &before, &after));
    }
    ret.comment = if found {
        "Commented lines successfully".into()
    } else {
        "Expected commented lines not found".into()
    };
    Ok(ret)
}

pub fn uncomment(call: &StateCall, args: &Args, raw_name: &str) -> Result<StateReturn, String> {
    let name = fsutil::expanduser(raw_name);
    if name.is_empty() {
        return Ok(failed(&name, "Must provide name to file.uncomment"));
    }
    if let Some(msg) = check_file(&name) {
        return Ok(failed(&name, msg));
    }
    let regex = match required(args, "regex") {
        Ok(r) => r,
        Err(e) => return Ok(failed(&name, e)),
    };
    let char_ = args.string("char")?.unwrap_or_else(|| "#".into());
    let bare = regex.trim_start_matches('^');
    let uncommented = format!("^[ \t]*{bare}");
    let mut ret = StateReturn::new(&name);
    ret.result = Some(false);
    if !search(&name, &format!("{char_}[ \t]*{bare}"))? {
        if search(&name, &uncommented)? {
            ret.comment = "Pattern already uncommented".into();
            ret.result = Some(true);
            return Ok(ret);
        }
        return Ok(failed(&name, format!("{regex}: Pattern not found")));
    }
    if call.test {
        ret.changes
            .insert(name.clone(), Value::Str("updated".into()));
        ret.comment = format!("File {name} is set to be updated");
        ret.result = None;
        return Ok(ret);
    }
    let before = read_lines_nl(&name);
    let real = std::fs::canonicalize(&name)
        .map(|p| p.to_string_lossy().into_owned())
        .unwrap_or_else(|_| name.clone());
    edit::comment_line(
        &real,
        &regex,
        &char_,
        false,
        backup_arg(args, ".bak").as_deref(),
    )
    .map_err(ReplaceError::message)?;
    let after = read_lines_nl(&name);
    let found = search(&name, &uncommented)?;
    ret.result = Some(found);
    if before != after {
        ret.changes
            .insert("diff".into(), diff_change(&name, &before, &after));
    }
    ret.comment = if found {
        "Uncommented lines successfully".into()
    } else {
        "Expected uncommented lines not found".into()
    };
    Ok(ret)
}

/// Python's `open(path).read()` in text mode: universal newlines.
fn read_text(path: &str) -> String {
    let data = std::fs::read(path).unwrap_or_default();
    String::from_utf8_lossy(&data)
        .replace("\r\n", "\n")
        .replace('\r', "\n")
}

/// Salt's `file.prepend` execution function: the lines, each with a
/// newline, before the file's text.
fn prepend_lines(path: &str, lines: &[String]) -> Result<(), String> {
    let mut out = String::new();
    for l in lines {
        out.push_str(l);
        out.push('\n');
    }
    out.push_str(&read_text(path));
    std::fs::write(path, out).map_err(|e| fsutil::py_os_error(&e, Path::new(path)))
}

pub fn prepend(call: &StateCall, args: &Args, raw_name: &str) -> Result<StateReturn, String> {
    let test = call.test;
    let name = fsutil::expanduser(raw_name);
    if name.is_empty() {
        return Ok(failed(&name, "Must provide name to file.prepend"));
    }
    let sources = match unify_sources(args) {
        Ok(s) => s,
        Err(e) => return Ok(failed(&name, e)),
    };
    let mut ret = StateReturn::new(&name);
    ret.result = Some(false);
    let makedirs = matches!(call.low.get("makedirs"), Some(Value::Bool(true)));
    if makedirs {
        let dir = fsutil::dirname(&name);
        if test {
            ret.comment = format!("Directory {dir} is set to be updated");
            ret.result = None;
        } else if !Path::new(&dir).is_dir() {
            if let Err(e) = fsutil::makedirs_for(&name, None, None, None) {
                return Ok(failed(&name, fsutil::py_os_error(&e, Path::new(&dir))));
            }
        }
    }
    if let Some(msg) = check_file(&name) {
        let mut low = call.low.clone();
        low.insert("makedirs".into(), Value::Bool(makedirs));
        for key in ["atime", "mtime"] {
            low.shift_remove(key);
        }
        let tcall = StateCall {
            low: &low,
            test,
            ctx: call.ctx,
        };
        let touched = touch(&tcall, &Args { low: &low }, &name)?;
        if test {
            return Ok(touched);
        }
        if check_file(&name).is_some() {
            return Ok(failed(&name, msg));
        }
    }
    let text = if sources.is_empty() {
        str_list(args.low.get("text"))
    } else {
        match template_texts(call, args, &sources) {
            Ok(t) => t,
            Err(r) => return Ok(*r),
        }
    };
    let header = args.truthy("header", false);
    let slines = read_lines_keepends(&name);
    let mut count = 0;
    let mut test_lines = Vec::new();
    let mut preface = Vec::new();
    for chunk in &text {
        if !header && search(&name, &whitespace_split_regex(chunk)?)? {
            continue;
        }
        for line in difflib::str_splitlines(chunk) {
            if test {
                ret.comment = format!("File {name} is set to be updated");
                ret.result = None;
                test_lines.push(format!("{line}\n"));
            } else {
                preface.push(line.to_string());
            }
            count += 1;
        }
    }
    if test {
        let mut nlines = test_lines;
        nlines.extend(slines.iter().cloned());
        if slines != nlines {
            ret.changes
                .insert("diff".into(), diff_change(&name, &slines, &nlines));
            ret.result = None;
        } else {
            ret.comment = format!("File {name} is in correct state");
            ret.result = Some(true);
        }
        return Ok(ret);
    }
    if header {
        let head: Vec<String> = slines
            .iter()
            .take(preface.len())
            .flat_map(|l| difflib::str_splitlines(l).into_iter().map(String::from))
            .collect();
        if head != preface {
            prepend_lines(&name, &preface)?;
        } else {
            count = 0;
        }
    } else {
        prepend_lines(&name, &preface)?;
    }
    let nlines = read_lines_keepends(&name);
    if slines != nlines {
        ret.changes
            .insert("diff".into(), diff_change(&name, &slines, &nlines));
    }
    ret.comment = if count > 0 {
        format!("Prepended {count} lines")
    } else {
        format!("File {name} is in correct state")
    };
    ret.result = Some(true);
    Ok(ret)
}

/// Python's `type(v).__name__`.
fn py_type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "NoneType",
        Value::Bool(_) => "bool",
        Value::Int(_) => "int",
        Value::Float(_) => "float",
        Value::Str(_) => "str",
        Value::List(_) => "list",
        Value::Map(_) => "dict",
    }
}

/// Python's `str.lstrip(chars)`; `None` strips whitespace.
fn lstrip<'a>(s: &'a str, chars: Option<&str>) -> &'a str {
    match chars {
        None => s.trim_start(),
        Some(c) => s.trim_start_matches(|x| c.contains(x)),
    }
}

pub fn keyvalue(call: &StateCall, args: &Args, raw_name: &str) -> Result<StateReturn, String> {
    let name = fsutil::expanduser(raw_name);
    let mut ret = StateReturn::new(&name);
    ret.result = None;
    if name.is_empty() {
        return Ok(failed(&name, "Must provide name to file.keyvalue"));
    }
    let key = args.get("key");
    let value = args.get("value");
    let key_values: Vec<(String, Value)> = match (key, value, args.low.get("key_values")) {
        (Some(_), Some(_), Some(Value::Map(_))) => {
            return Ok(failed(
                &name,
                "file.keyvalue can not combine key_values with key and value",
            ))
        }
        (Some(k), Some(v), _) => vec![(k.to_python_str(), v.clone())],
        (_, _, Some(Value::Map(m))) if !m.is_empty() => {
            m.iter().map(|(k, v)| (k.clone(), v.clone())).collect()
        }
        (_, _, kv) => {
            let msg = if kv.is_some_and(Value::is_truthy) {
                "is not a dictionary"
            } else {
                "is empty"
            };
            return Ok(failed(
                &name,
                format!("file.keyvalue key and value not supplied and key_values {msg}"),
            ));
        }
    };
    let separator = args.string("separator")?.unwrap_or_else(|| "=".into());
    let mut append_if_not_found = args.truthy("append_if_not_found", false);
    let prepend_if_not_found = args.truthy("prepend_if_not_found", false);
    let show_changes = args.truthy("show_changes", true);
    let count = args.int("count")?.unwrap_or(1);
    let uncomment = args.string("uncomment")?;
    let key_ignore_case = args.truthy("key_ignore_case", false);
    let value_ignore_case = args.truthy("value_ignore_case", false);
    let path = Path::new(&name);
    let file_lines: Vec<String> = match std::fs::read(path) {
        Ok(data) => {
            let text = String::from_utf8_lossy(&data)
                .replace("\r\n", "\n")
                .replace('\r', "\n");
            text.split_inclusive('\n').map(String::from).collect()
        }
        Err(e)
            if e.kind() == std::io::ErrorKind::NotFound
                && args.truthy("create_if_missing", false) =>
        {
            append_if_not_found = true;
            Vec::new()
        }
        Err(_) => {
            ret.comment = format!("unable to open {name}");
            ret.result = Some(args.truthy("ignore_if_missing", false));
            return Ok(ret);
        }
    };
    let tmpl = |k: &str, sep: &str, v: &Value| format!("{k}{sep}{}\n", v.to_python_str());
    let mut diff: Vec<String> = Vec::new();
    let mut content: Vec<String> = Vec::new();
    let mut changes = 0;
    let mut left: Vec<i64> = vec![count; key_values.len()];
    for orig in &file_lines {
        let mut line = orig.clone();
        let stripped = lstrip(&line, uncomment.as_deref()).to_string();
        let did_uncomment = line.len() > stripped.len();
        let test_line = if key_ignore_case {
            stripped.to_lowercase()
        } else {
            stripped
        };
        for (i, (key, value)) in key_values.iter().enumerate() {
            let test_key = if key_ignore_case {
                key.to_lowercase()
            } else {
                key.clone()
            };
            if !test_line.starts_with(&test_key) {
                continue;
            }
            let working = if did_uncomment {
                lstrip(&line, uncomment.as_deref()).to_string()
            } else {
                line.clone()
            };
            let Some((line_key, line_value)) = working.split_once(&separator) else {
                continue;
            };
            let keys_match = if key_ignore_case {
                line_key.to_lowercase() == test_key
            } else {
                line_key == test_key
            };
            if !keys_match {
                continue;
            }
            let (mut lv, mut tv) = (
                line_value.trim().to_string(),
                value.to_python_str().trim().to_string(),
            );
            if value_ignore_case {
                lv = lv.to_lowercase();
                tv = tv.to_lowercase();
            }
            let mut values_match = lv == tv;
            let mut needs_changing = false;
            if did_uncomment {
                if left[i] > 0 {
                    needs_changing = true;
                } else if !values_match {
                    values_match = true;
                }
            } else if left[i] == 0 {
                needs_changing = true;
            }
            if !values_match || needs_changing {
                diff.push(format!("- {line}"));
                let line_key = line_key.to_string();
                line = String::new();
                if left[i] != 0 {
                    line = tmpl(&line_key, &separator, value);
                    if matches!(value, Value::Str(_)) {
                        diff.push(format!("+ {line}"));
                    } else {
                        diff.push(format!(
                            "+ {} (from {} type)\n",
                            line.trim_end(),
                            py_type_name(value)
                        ));
                    }
                }
                changes += 1;
            }
            if left[i] > 0 {
                left[i] -= 1;
            }
        }
        content.push(line);
    }
    if append_if_not_found {
        let mut tmpdiff = Vec::new();
        for (i, (key, value)) in key_values.iter().enumerate() {
            if left[i] > 0 {
                let line = tmpl(key, &separator, value);
                tmpdiff.push(format!("+ {line}"));
                content.push(line);
                changes += 1;
            }
        }
        if !tmpdiff.is_empty() {
            diff.push("- <EOF>\n".into());
            diff.extend(tmpdiff);
            diff.push("+ <EOF>\n".into());
        }
    } else if prepend_if_not_found {
        let mut did_diff = false;
        for (i, (key, value)) in key_values.iter().enumerate() {
            if left[i] > 0 {
                let line = tmpl(key, &separator, value);
                if !did_diff {
                    diff.insert(0, "  <SOF>\n".into());
                    did_diff = true;
                }
                diff.insert(1, format!("+ {line}"));
                content.insert(0, line);
                changes += 1;
            }
        }
    }
    if changes == 0 {
        ret.result = Some(true);
        return Ok(ret);
    }
    if call.test {
        ret.comment = format!("File {name} is set to be changed ({changes} lines)");
        if show_changes {
            ret.changes.insert("diff".into(), Value::Str(diff.concat()));
            ret.comment.push_str("\nPredicted diff:\n\r\t\t");
            ret.comment.push_str(&diff.join("\r\t\t"));
        }
        return Ok(ret);
    }
    ret.comment = format!("Changed {changes} lines");
    if show_changes {
        ret.changes.insert("diff".into(), Value::Str(diff.concat()));
    }
    if std::fs::write(path, content.concat()).is_err() {
        ret.comment = format!("{name} not writable");
        ret.result = Some(false);
        return Ok(ret);
    }
    ret.result = Some(true);
    Ok(ret)
}

pub fn blockreplace(call: &StateCall, args: &Args, raw_name: &str) -> Result<StateReturn, String> {
    let name = fsutil::expanduser(raw_name);
    let mut ret = StateReturn::new(&name);
    ret.result = Some(false);
    if name.is_empty() {
        return Ok(failed(&name, "Must provide name to file.blockreplace"));
    }
    let sources = match unify_sources(args) {
        Ok(s) => s,
        Err(e) => return Ok(failed(&name, e)),
    };
    if let Some(msg) = check_file(&name) {
        return Ok(failed(&name, msg));
    }
    let mut content = match call.low.get("content") {
        None => String::new(),
        Some(Value::Str(s)) => s.clone(),
        Some(v) => v.to_python_str(),
    };
    // Text gathered by file.accumulated states for this file: those
    // declared for this state, else all of them.
    let acc = call.ctx.accumulators.snapshot();
    if let Some(accumulator) = acc.data.get(&name) {
        let id = call.low.get("__id__").map(Value::to_python_str);
        let mine: Vec<&String> = acc
            .deps
            .get(&name)
            .into_iter()
            .flatten()
            .filter(|(a, deps)| {
                accumulator.contains_key(*a)
                    && id
                        .as_ref()
                        .is_some_and(|id| deps.iter().any(|d| d.to_python_str() == *id))
            })
            .map(|(a, _)| a)
            .collect();
        let names: Vec<&String> = if mine.is_empty() {
            accumulator.keys().collect()
        } else {
            mine
        };
        for a in names {
            for line in accumulator.get(a).into_iter().flatten() {
                let line = line.to_python_str();
                if content.is_empty() {
                    content = line;
                } else {
                    content.push('\n');
                    content.push_str(&line);
                }
            }
        }
    }
    if !sources.is_empty() {
        match template_texts(call, args, &sources) {
            Ok(texts) => texts.iter().for_each(|t| content.push_str(t)),
            Err(r) => return Ok(*r),
        }
    }
    let text_arg = |key: &str, default: &str| -> String {
        args.get(key)
            .map(Value::to_python_str)
            .unwrap_or_else(|| default.to_string())
    };
    let block = BlockArgs {
        marker_start: text_arg("marker_start", "#-- start managed zone --"),
        marker_end: text_arg("marker_end", "#-- end managed zone --"),
        content,
        append_if_not_found: args.truthy("append_if_not_found", false),
        prepend_if_not_found: args.truthy("prepend_if_not_found", false),
        insert_before_match: args.get("insert_before_match").cloned(),
        insert_after_match: args.get("insert_after_match").cloned(),
        backup: backup_arg(args, ".bak"),
        dry_run: call.test,
        show_changes: args.truthy("show_changes", true),
        append_newline: args.get("append_newline").map(Value::is_truthy),
    };
    let changes = match edit::blockreplace(&name, &block) {
        Ok(Outcome::Diff(d)) if !d.is_empty() => Some(Value::Str(d)),
        Ok(Outcome::Changed(true)) => Some(Value::Bool(true)),
        Ok(_) => None,
        Err(e) => {
            ret.comment = format!(
                "Encountered error managing block: {}. See the log for details.",
                e.message()
            );
            return Ok(ret);
        }
    };
    match changes {
        Some(d) => {
            ret.changes.insert("diff".into(), d);
            if call.test {
                ret.result = None;
                ret.comment = "Changes would be made".into();
            } else {
                ret.result = Some(true);
                ret.comment = "Changes were made".into();
            }
        }
        None => {
            ret.result = Some(true);
            ret.comment = "No changes needed to be made".into();
        }
    }
    Ok(ret)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unanchored_like_salts_substitution() {
        assert_eq!(unanchor("^a=$"), "a=");
        assert_eq!(unanchor("(?i)^a"), "a");
        assert_eq!(unanchor("a$b"), "a$b");
        assert_eq!(unanchor("(?x)"), "");
    }

    #[test]
    fn python_type_names() {
        assert_eq!(py_type_name(&Value::Int(1)), "int");
        assert_eq!(py_type_name(&Value::Null), "NoneType");
        assert_eq!(lstrip("  #x", None), "#x");
        assert_eq!(lstrip("#; x", Some("#; ")), "x");
    }
}
