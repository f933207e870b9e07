//! Line edits the `file` state and execution functions share: Salt's
//! `file.comment_line` and `file.blockreplace` execution functions, called
//! by `file.comment` / `file.uncomment` / `file.blockreplace` (states) and
//! by their execution twins in brine-runtime.

use super::difflib;
use super::fsutil::{self, py_os_error};
use super::replace::{self as re_, Outcome, ReplaceError};
use brine_core::Value;
use std::path::Path;

/// Python's `re.search` on one line: its `$` also matches before the
/// line's final newline, which the `regex` crate's does not, so the line
/// is tried without that newline too.
pub fn py_search(re: &regex::bytes::Regex, line: &str) -> bool {
    re_::search(re, line.as_bytes())
        || line
            .strip_suffix('\n')
            .is_some_and(|l| re_::search(re, l.as_bytes()))
}

/// Salt's `file.comment_line` on `path` (already resolved): comment out
/// (`cmnt`) or uncomment the lines `regex` matches from their start.
/// `Ok(None)` when no line matched (Salt's `False`), else the diff of the
/// changed lines; `backup` is the suffix of a copy made first.
pub fn comment_line(
    path: &str,
    regex: &str,
    char_: &str,
    cmnt: bool,
    backup: Option<&str>,
) -> Result<Option<String>, ReplaceError> {
    let core = regex.trim_start_matches('^').trim_end_matches('$');
    let end = if regex.ends_with('$') { "$" } else { "" };
    let rx = if cmnt {
        let start = if regex.starts_with('^') { "^" } else { "" };
        format!("{start}({core}){end}")
    } else {
        format!("^{char_}\\s*({core}){end}")
    };
    let file = Path::new(path);
    if !file.is_file() {
        return Err(ReplaceError::Invocation(format!("File not found: {path}")));
    }
    if !fsutil::is_text_file(file) {
        return Err(ReplaceError::Invocation(format!(
            "Cannot perform string replacements on a binary file: {path}"
        )));
    }
    // Python's re.match: anchored at the line's start.
    let re = re_::compile(&format!("^(?:{rx})"), 0)?;
    let data = std::fs::read(file).map_err(|e| {
        ReplaceError::Failed(format!(
            "Unable to open file '{path}'. Exception: {}",
            py_os_error(&e, file)
        ))
    })?;
    let mut orig = Vec::new();
    let mut changed = Vec::new();
    let mut out = String::with_capacity(data.len() + 16);
    for raw in difflib::split_keep_newline(&data) {
        let line = difflib::decode_line(raw);
        if py_search(&re, &line) {
            let new = if cmnt {
                format!("{char_}{line}")
            } else {
                line.trim_start_matches(|c| char_.contains(c)).to_string()
            };
            out.push_str(&new);
            orig.push(line);
            changed.push(new);
        } else {
            out.push_str(&line);
        }
    }
    if orig.is_empty() {
        return Ok(None);
    }
    if let Some(suffix) = backup {
        let to = format!("{path}{suffix}");
        std::fs::copy(file, &to).map_err(|e| {
            ReplaceError::Failed(format!("Exception: {}", py_os_error(&e, Path::new(&to))))
        })?;
    }
    std::fs::write(file, out.as_bytes())
        .map_err(|e| ReplaceError::Failed(format!("Exception: {}", py_os_error(&e, file))))?;
    Ok(Some(difflib::diff_lines(&orig, &changed)))
}

/// The arguments of Salt's `file.blockreplace` execution function.
pub struct BlockArgs {
    pub marker_start: String,
    pub marker_end: String,
    pub content: String,
    pub append_if_not_found: bool,
    pub prepend_if_not_found: bool,
    pub insert_before_match: Option<Value>,
    pub insert_after_match: Option<Value>,
    /// The suffix of the backup copy; `None` for none.
    pub backup: Option<String>,
    pub dry_run: bool,
    pub show_changes: bool,
    /// `None`: a newline is added when the content lacks one.
    pub append_newline: Option<bool>,
}

/// Python's text-mode lines with `newline=""`: split after `\n`, `\r\n`
/// or a lone `\r`, the endings kept as they are.
fn lines_keep_ends(data: &[u8]) -> Vec<String> {
    difflib::bytes_splitlines_keepends(data)
        .into_iter()
        .map(difflib::decode_line)
        .collect()
}

/// Salt's `file.blockreplace` execution function: the text between the
/// marker lines of `path` becomes `content` (or the block is added where
/// asked when the markers are missing). The diff (`show_changes`) or
/// whether it changed; `dry_run` only looks.
pub fn blockreplace(path: &str, a: &BlockArgs) -> Result<Outcome, ReplaceError> {
    let insert_before = a.insert_before_match.clone().filter(Value::is_truthy);
    let insert_after = a.insert_after_match.clone().filter(Value::is_truthy);
    let exclusive = [
        a.append_if_not_found,
        a.prepend_if_not_found,
        insert_before.is_some(),
        insert_after.is_some(),
    ];
    if exclusive.iter().filter(|b| **b).count() > 1 {
        return Err(ReplaceError::Invocation(
            "Only one of append_if_not_found, prepend_if_not_found, insert_before_match, \
and insert_after_match is permitted"
                .into(),
        ));
    }
    let file = Path::new(path);
    if !file.exists() {
        return Err(ReplaceError::Invocation(format!("File not found: {path}")));
    }
    // Salt's is_binary says no for what is not a regular file: reading it
    // fails below instead.
    if file.is_file() && !fsutil::is_text_file(file) {
        return Err(ReplaceError::Invocation(format!(
            "Cannot perform string replacements on a binary file: {path}"
        )));
    }
    let insert_match = match (&insert_before, &insert_after) {
        (Some(Value::Str(s)), _) | (None, Some(Value::Str(s))) => Some(s.clone()),
        (Some(_), _) => {
            return Err(ReplaceError::Failed(
                "RegEx expected in insert_before_match parameter.".into(),
            ))
        }
        (None, Some(_)) => {
            return Err(ReplaceError::Failed(
                "RegEx expected in insert_after_match parameter.".into(),
            ))
        }
        (None, None) => None,
    };
    let content = &a.content;
    let append_newline = a.append_newline.unwrap_or(!content.ends_with('\n'));
    let split_content: Vec<&str> = content.split("\r\n").flat_map(|l| l.split('\n')).collect();
    let data = std::fs::read(file).map_err(|e| {
        ReplaceError::Failed(format!(
            "Failed to read from {path}: {}",
            py_os_error(&e, file)
        ))
    })?;
    let orig: Vec<String> = lines_keep_ends(&data);
    let linesep = orig
        .first()
        .map(|l| if l.ends_with("\r\n") { "\r\n" } else { "\n" })
        .unwrap_or("\n");
    // The block: its start marker (when asked), content, end marker.
    let block = |with_start: bool, end_line: &str| -> Vec<String> {
        let end_line = format!("{}{linesep}", end_line.trim_end_matches(['\r', '\n']));
        let mut out = Vec::new();
        if with_start {
            out.push(format!("{}{linesep}", a.marker_start));
        }
        let n = split_content.len();
        for (i, l) in split_content.iter().enumerate() {
            if i + 1 != n {
                out.push(format!("{l}{linesep}"));
            } else if append_newline {
                out.push(format!("{l}{linesep}"));
                out.push(end_line.clone());
            } else {
                out.push(format!("{l}{end_line}"));
            }
        }
        out
    };
    let mut new: Vec<String> = Vec::new();
    let mut in_block = false;
    let mut found = false;
    for line in &orig {
        let mut keep = true;
        if line.contains(&a.marker_start) {
            in_block = true;
        } else if in_block {
            keep = false;
            if let Some(pos) = line.find(&a.marker_end) {
                in_block = false;
                found = true;
                new.extend(block(false, &line[pos..]));
            }
        }
        if keep {
            new.push(line.clone());
        }
    }
    if in_block {
        return Err(ReplaceError::Failed(
            "Unterminated marked block. End of file reached before marker_end.".into(),
        ));
    }
    if !found {
        if a.prepend_if_not_found {
            let mut b = block(true, &a.marker_end);
            b.append(&mut new);
            new = b;
            found = true;
        } else if a.append_if_not_found {
            if let Some(last) = new.last_mut() {
                if !last.ends_with(linesep) {
                    last.push_str(linesep);
                }
            }
            new.extend(block(true, &a.marker_end));
            found = true;
        } else if let Some(rx) = &insert_match {
            let re = re_::compile(rx, 0)?;
            if let Some(mut idx) = orig.iter().position(|l| py_search(&re, l)) {
                for l in block(true, &a.marker_end) {
                    if insert_after.is_some() {
                        idx += 1;
                    }
                    new.insert(idx.min(new.len()), l);
                    if insert_before.is_some() {
                        idx += 1;
                    }
                }
                found = true;
            }
        }
    }
    if !found {
        return Err(ReplaceError::Failed(
            "Cannot edit marked block. Markers were not found in file.".into(),
        ));
    }
    let diff = difflib::diff_lines(&orig, &new);
    let changed = !diff.is_empty();
    if changed && !a.dry_run {
        if let Some(suffix) = &a.backup {
            let to = format!("{path}{suffix}");
            std::fs::copy(file, &to)
                .map_err(|e| ReplaceError::Failed(py_os_error(&e, Path::new(&to))))?;
        }
        fsutil::write_atomic(file, new.concat().as_bytes())
            .map_err(|e| ReplaceError::Failed(py_os_error(&e, file)))?;
    }
    if a.show_changes {
        return Ok(Outcome::Diff(diff));
    }
    Ok(Outcome::Changed(changed))
}
