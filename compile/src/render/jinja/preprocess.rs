//! Source rewriting that gives minijinja the Salt-only syntax, keeping every
//! line where it was (errors report the original line numbers):
//!
//! - `{% import_yaml EXPR as x %}` (and `import_json`, `import_text`) →
//!   `{% import EXPR as x %}{% set x = x|load_yaml|... %}`: the file is
//!   rendered, then parsed, as Salt's `SerializerExtension` does.
//! - `{% load_yaml as x %}...{% endload %}` (and `load_json`, `load_text`)
//!   → `{% set x %}...{% endset %}{% set x = x|load_yaml|... %}`.
//! - `{% profile as 'label' %}...{% endprofile %}` → a plain block.
//! - `{% do EXPR %}` → `{% set _brine_do = EXPR %}`: Jinja2's `do` takes
//!   any expression, minijinja's only a call.
//! - `{% set name = EXPR %}` → `{% set name = (EXPR)|_brine_mutable %}`, so
//!   lists and dicts bound by `set` can take `.append()`/`.update()` (see
//!   `mutable`).

use std::borrow::Cow;

/// Where a rewritten `{% do EXPR %}` puts the value it discards.
const DO_VARIABLE: &str = "_brine_do";

/// Filter that makes `set` values mutable (registered by `filters`).
pub(crate) const MUTABLE_FILTER: &str = "_brine_mutable";

#[derive(Debug)]
pub(crate) struct PreprocessError {
    pub message: String,
    /// 1-based.
    pub line: usize,
}

pub(crate) fn rewrite(src: &str) -> Result<Cow<'_, str>, PreprocessError> {
    // Jinja reads `\r\n` and `\r` as `\n` everywhere in the source.
    if src.contains('\r') {
        let unified = src.replace("\r\n", "\n").replace('\r', "\n");
        return Ok(Cow::Owned(rewrite_unified(&unified)?.into_owned()));
    }
    rewrite_unified(src)
}

fn rewrite_unified(src: &str) -> Result<Cow<'_, str>, PreprocessError> {
    let b = src.as_bytes();
    let mut out = String::new();
    let mut copied = 0usize;
    let mut i = 0usize;
    // Open `load_*` blocks: (variable, filter).
    let mut loads: Vec<(String, &'static str)> = Vec::new();
    let line_at = |pos: usize| src[..pos].matches('\n').count() + 1;

    while let Some(off) = src[i..].find('{') {
        let pos = i + off;
        match b.get(pos + 1) {
            Some(b'#') => {
                i = match src[pos + 2..].find("#}") {
                    Some(e) => pos + 2 + e + 2,
                    None => break, // unclosed comment: minijinja reports it
                };
            }
            Some(b'{') => {
                let Some(end) = tag_end(src, pos + 2, "}}") else {
                    break;
                };
                if let Some(new) = rewrite_percent(&src[pos + 2..end]) {
                    out.push_str(&src[copied..pos + 2]);
                    out.push_str(&new);
                    copied = end;
                }
                i = end + 2;
            }
            Some(b'%') => {
                let Some(end) = tag_end(src, pos + 2, "%}") else {
                    break;
                };
                let mut cstart = pos + 2;
                let lmod = match b.get(cstart) {
                    Some(&m @ (b'-' | b'+')) => {
                        cstart += 1;
                        (m as char).to_string()
                    }
                    _ => String::new(),
                };
                let mut cend = end;
                let rmod = match b.get(end.wrapping_sub(1)) {
                    Some(&m @ (b'-' | b'+')) if end > cstart => {
                        cend -= 1;
                        (m as char).to_string()
                    }
                    _ => String::new(),
                };
                let percent = rewrite_percent(&src[cstart..cend]);
                let content = percent.as_deref().unwrap_or(&src[cstart..cend]);
                let keyword = first_word(content);
                let replacement: Option<String> = match keyword {
                    "raw" => {
                        // Skip to the matching endraw untouched.
                        i = find_endraw(src, end + 2).unwrap_or(src.len());
                        continue;
                    }
                    "set" => rewrite_set(content).map(|c| format!("{{%{lmod}{c}{rmod}%}}")),
                    "import_yaml" | "import_json" | "import_text" => {
                        let kind = &keyword["import_".len()..];
                        // Jinja's `with context` / `without context` ends
                        // the tag; a data file has no use for either.
                        let content = strip_context(content);
                        let content = content.as_str();
                        let Some(name) = import_target(content) else {
                            return Err(PreprocessError {
                                message: format!("expected '{{% {keyword} <file> as <name> %}}'"),
                                line: line_at(pos),
                            });
                        };
                        let body = content.replacen(keyword, "import", 1);
                        Some(format!(
                            "{{%{lmod}{body}%}}{{% set {name} = {name}|load_{kind}|{MUTABLE_FILTER} {rmod}%}}"
                        ))
                    }
                    "load_yaml" | "load_json" | "load_text" => {
                        let words: Vec<&str> = content.split_whitespace().collect();
                        let name = match words.as_slice() {
                            [_, "as", name] if is_identifier(name) => name.to_string(),
                            _ => {
                                return Err(PreprocessError {
                                    message: format!("expected '{{% {keyword} as <name> %}}'"),
                                    line: line_at(pos),
                                })
                            }
                        };
                        let filter = match keyword {
                            "load_yaml" => "load_yaml",
                            "load_json" => "load_json",
                            _ => "load_text",
                        };
                        let lines = "\n".repeat(content.matches('\n').count());
                        let r = format!("{{%{lmod} set {name} {lines}{rmod}%}}");
                        loads.push((name, filter));
                        Some(r)
                    }
                    "endload" => {
                        let Some((name, filter)) = loads.pop() else {
                            return Err(PreprocessError {
                                message:
                                    "'endload' without a 'load_yaml'/'load_json'/'load_text' block"
                                        .into(),
                                line: line_at(pos),
                            });
                        };
                        let lines = "\n".repeat(content.matches('\n').count());
                        Some(format!(
                            "{{%{lmod} endset {lines}%}}{{% set {name} = {name}|{filter}|{MUTABLE_FILTER} {rmod}%}}"
                        ))
                    }
                    // minijinja's `do` takes a call only; Jinja2's takes any
                    // expression (`{% do d.pop(k) if k in d %}`).
                    "do" => content.trim_start().strip_prefix("do").map(|expr| {
                        format!("{{%{lmod} set {DO_VARIABLE} ={}{rmod}%}}", do_expr(expr))
                    }),
                    "profile" => {
                        let lines = "\n".repeat(content.matches('\n').count());
                        Some(format!("{{%{lmod} if true {lines}{rmod}%}}"))
                    }
                    "endprofile" => {
                        let lines = "\n".repeat(content.matches('\n').count());
                        Some(format!("{{%{lmod} endif {lines}{rmod}%}}"))
                    }
                    _ => None,
                };
                let replacement = replacement
                    .or_else(|| percent.as_ref().map(|c| format!("{{%{lmod}{c}{rmod}%}}")));
                if let Some(r) = replacement {
                    out.push_str(&src[copied..pos]);
                    out.push_str(&r);
                    copied = end + 2;
                }
                i = end + 2;
            }
            _ => i = pos + 1,
        }
    }
    if copied == 0 {
        return Ok(Cow::Borrowed(src));
    }
    out.push_str(&src[copied..]);
    Ok(Cow::Owned(out))
}

fn first_word(content: &str) -> &str {
    let t = content.trim_start();
    let end = t
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(t.len());
    &t[..end]
}

/// The tag without a trailing `with context` or `without context`.
fn strip_context(content: &str) -> String {
    let trimmed = content.trim_end();
    let words: Vec<&str> = trimmed.split_whitespace().collect();
    match words.as_slice() {
        [.., "with" | "without", "context"] if words.len() >= 6 => {
            let cut = trimmed
                .rfind(words[words.len() - 2])
                .unwrap_or(trimmed.len());
            let tail = &content[trimmed.len()..];
            format!("{}{tail}", trimmed[..cut].trim_end())
        }
        _ => content.to_string(),
    }
}

/// The `NAME` of `import_yaml EXPR as NAME`.
fn import_target(content: &str) -> Option<String> {
    let words: Vec<&str> = content.split_whitespace().collect();
    match words.as_slice() {
        [.., "as", name] if is_identifier(name) && words.len() >= 4 => Some(name.to_string()),
        _ => None,
    }
}

fn is_identifier(s: &str) -> bool {
    let mut chars = s.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Index of `close` at or after `from`, outside string literals and
/// brackets (`{{ {'a': {'b': 1}} }}` ends at the last `}}`).
fn tag_end(src: &str, from: usize, close: &str) -> Option<usize> {
    let b = src.as_bytes();
    let mut i = from;
    let mut quote: Option<u8> = None;
    let mut depth = 0usize;
    while i < b.len() {
        let c = b[i];
        match quote {
            Some(q) => {
                if c == b'\\' {
                    i += 1;
                } else if c == q {
                    quote = None;
                }
            }
            None => {
                if depth == 0 && src[i..].starts_with(close) {
                    return Some(i);
                }
                match c {
                    b'\'' | b'"' => quote = Some(c),
                    b'(' | b'[' | b'{' => depth += 1,
                    b')' | b']' | b'}' => depth = depth.saturating_sub(1),
                    _ => {}
                }
            }
        }
        i += 1;
    }
    None
}

/// End (exclusive) of the string literal starting at `start` (a quote).
fn string_end(b: &[u8], start: usize) -> Option<usize> {
    let q = *b.get(start)?;
    let mut i = start + 1;
    while i < b.len() {
        if b[i] == b'\\' {
            i += 2;
            continue;
        }
        if b[i] == q {
            return Some(i + 1);
        }
        i += 1;
    }
    None
}

/// A `do` expression whose receiver is a literal or bracketed temporary
/// (`[].append(x)`, `(a + b).extend(c)`): the temporary is made mutable,
/// since changing it in place is harmless there (nothing else sees it), as
/// in Jinja2.
fn do_expr(expr: &str) -> Cow<'_, str> {
    let lead = expr.len() - expr.trim_start().len();
    let b = expr.as_bytes();
    if !matches!(b.get(lead), Some(b'[' | b'{' | b'(')) {
        return Cow::Borrowed(expr);
    }
    match group_end(b, lead) {
        Some(end) if b.get(end) == Some(&b'.') => Cow::Owned(format!(
            "{}({}|{MUTABLE_FILTER}){}",
            &expr[..lead],
            &expr[lead..end],
            &expr[end..]
        )),
        _ => Cow::Borrowed(expr),
    }
}

/// End (exclusive) of the bracketed group opening at `start`.
fn group_end(b: &[u8], start: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut i = start;
    while i < b.len() {
        match b[i] {
            b'\'' | b'"' => {
                i = string_end(b, i)?;
                continue;
            }
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' | b'}' => {
                depth -= 1;
                if depth == 0 {
                    return Some(i + 1);
                }
            }
            _ => {}
        }
        i += 1;
    }
    None
}

fn skip_ws(b: &[u8], mut i: usize) -> usize {
    while b.get(i).is_some_and(|c| c.is_ascii_whitespace()) {
        i += 1;
    }
    i
}

fn skip_ident(b: &[u8], mut i: usize) -> usize {
    while b
        .get(i)
        .is_some_and(|c| c.is_ascii_alphanumeric() || *c == b'_')
    {
        i += 1;
    }
    i
}

/// After an operand's first part: `.attr`, `[...]`, `(...)` and
/// `|filter(...)` chains, which bind tighter than `%`.
fn postfix_end(b: &[u8], mut i: usize) -> Option<usize> {
    loop {
        match b.get(i) {
            Some(b'.') => i = skip_ident(b, i + 1),
            Some(b'[') | Some(b'(') => i = group_end(b, i)?,
            _ => {
                let j = skip_ws(b, i);
                if b.get(j) == Some(&b'|') {
                    let k = skip_ws(b, j + 1);
                    let e = skip_ident(b, k);
                    if e == k {
                        return Some(i);
                    }
                    i = if b.get(e) == Some(&b'(') {
                        group_end(b, e)?
                    } else {
                        e
                    };
                } else {
                    return Some(i);
                }
            }
        }
    }
}

/// Python's `'fmt' % args` on a string literal, which minijinja lacks:
/// `'%s-%s' % (a, b)` → `('%s-%s'|format(a, b))`, `'%s' % x` →
/// `('%s'|format(x))`. Whitespace (and so line numbers) is kept.
fn rewrite_percent(content: &str) -> Option<String> {
    let b = content.as_bytes();
    let mut out = String::new();
    let mut copied = 0usize;
    let mut i = 0usize;
    while i < b.len() {
        if b[i] != b'\'' && b[i] != b'"' {
            i += 1;
            continue;
        }
        let lit_start = i;
        let Some(lit_end) = string_end(b, i) else {
            break;
        };
        i = lit_end;
        let pct = skip_ws(b, lit_end);
        if b.get(pct) != Some(&b'%') || matches!(b.get(pct + 1), Some(b'}') | Some(b'%')) {
            continue;
        }
        let op_start = skip_ws(b, pct + 1);
        let (args, op_end) = match b.get(op_start) {
            Some(b'(') => {
                let g = group_end(b, op_start)?;
                let e = postfix_end(b, g)?;
                if e == g {
                    // A tuple: its items are the format arguments.
                    (&content[op_start + 1..g - 1], g)
                } else {
                    (&content[op_start..e], e)
                }
            }
            Some(b'\'' | b'"') => {
                let e = postfix_end(b, string_end(b, op_start)?)?;
                (&content[op_start..e], e)
            }
            Some(b'[' | b'{') => {
                let e = postfix_end(b, group_end(b, op_start)?)?;
                (&content[op_start..e], e)
            }
            Some(c) if c.is_ascii_alphanumeric() || *c == b'_' || *c == b'-' => {
                let first = if *c == b'-' { op_start + 1 } else { op_start };
                let e = postfix_end(b, skip_ident(b, first))?;
                (&content[op_start..e], e)
            }
            _ => continue,
        };
        out.push_str(&content[copied..lit_start]);
        out.push('(');
        out.push_str(&content[lit_start..lit_end]);
        out.push_str(&content[lit_end..pct]);
        out.push_str("|format(");
        out.push_str(&content[pct + 1..op_start]);
        out.push_str(args);
        out.push_str("))");
        copied = op_end;
        i = op_end;
    }
    if copied == 0 {
        return None;
    }
    out.push_str(&content[copied..]);
    Some(out)
}

/// Position just after the `{% endraw %}` closing a raw block.
fn find_endraw(src: &str, from: usize) -> Option<usize> {
    let mut i = from;
    while let Some(off) = src[i..].find("{%") {
        let pos = i + off;
        let end = tag_end(src, pos + 2, "%}")?;
        let content =
            src[pos + 2..end].trim_matches(|c: char| c == '-' || c == '+' || c.is_whitespace());
        if content == "endraw" {
            return Some(end + 2);
        }
        i = pos + 2;
    }
    None
}

/// `set target = expr` → `set target = (expr)|_brine_mutable`, keeping all
/// whitespace; `None` for block sets and multiple targets.
fn rewrite_set(content: &str) -> Option<String> {
    let b = content.as_bytes();
    let mut depth = 0i32;
    let mut quote: Option<u8> = None;
    let mut eq = None;
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if let Some(q) = quote {
            if c == b'\\' {
                i += 1;
            } else if c == q {
                quote = None;
            }
        } else {
            match c {
                b'\'' | b'"' => quote = Some(c),
                b'(' | b'[' | b'{' => depth += 1,
                b')' | b']' | b'}' => depth -= 1,
                b'=' if depth == 0 => {
                    let prev = if i > 0 { b[i - 1] } else { b' ' };
                    let next = b.get(i + 1).copied().unwrap_or(b' ');
                    if !matches!(prev, b'=' | b'!' | b'<' | b'>') && next != b'=' {
                        eq = Some(i);
                        break;
                    }
                }
                _ => {}
            }
        }
        i += 1;
    }
    let eq = eq?;
    let head = &content[..eq];
    let target = head.trim_start().strip_prefix("set")?.trim();
    let dotted_ok = target.split('.').all(is_identifier);
    if !dotted_ok {
        return None;
    }
    let expr = &content[eq + 1..];
    let body = expr.trim_end();
    if body.trim().is_empty() {
        return None;
    }
    let trailing = &expr[body.len()..];
    Some(format!("{head}=({body})|{MUTABLE_FILTER}{trailing}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn set_is_wrapped_keeping_lines() {
        let src =
            "{%- set x = {\n 'a': [1, 2]\n} -%}\n{% set y %}blk{% endset %}{% set a, b = 1, 2 %}";
        let out = rewrite(src).unwrap();
        assert_eq!(
            out,
            "{%- set x =( {\n 'a': [1, 2]\n})|_brine_mutable -%}\n{% set y %}blk{% endset %}{% set a, b = 1, 2 %}"
        );
    }

    #[test]
    fn comparison_is_not_assignment() {
        assert_eq!(
            rewrite_set(" set x = a == b "),
            Some(" set x =( a == b)|_brine_mutable ".into())
        );
        assert_eq!(rewrite_set(" set x "), None);
    }

    #[test]
    fn raw_and_strings_are_left_alone() {
        let src = "{% raw %}{% set x = 1 %}{% endraw %}{{ '{% set' }}";
        assert!(matches!(rewrite(src).unwrap(), Cow::Borrowed(_)));
        let src = "{% set x = '%}' %}";
        assert_eq!(rewrite(src).unwrap(), "{% set x =( '%}')|_brine_mutable %}");
    }

    #[test]
    fn percent_operator() {
        assert_eq!(
            rewrite_percent(" '%s-%s' % (a, b.c) "),
            Some(" ('%s-%s' |format( a, b.c)) ".into())
        );
        assert_eq!(
            rewrite_percent(" '%s' % x.y[0]|upper ~ 'z' "),
            Some(" ('%s' |format( x.y[0]|upper)) ~ 'z' ".into())
        );
        assert_eq!(
            rewrite_percent(" \"%(a)s\" % {'a': 1} "),
            Some(" (\"%(a)s\" |format( {'a': 1})) ".into())
        );
        assert_eq!(rewrite_percent(" set x = 'a' "), None);
        assert_eq!(
            rewrite(r"{% set x = '%d%%' % 5 %}").unwrap(),
            "{% set x =( ('%d%%' |format( 5)))|_brine_mutable %}"
        );
    }

    #[test]
    fn salt_tags() {
        assert_eq!(
            rewrite("{% import_yaml 'd.yaml' as d -%}").unwrap(),
            "{% import 'd.yaml' as d %}{% set d = d|load_yaml|_brine_mutable -%}"
        );
        assert_eq!(
            rewrite("{%- load_json as j %}{}{% endload %}").unwrap(),
            "{%- set j %}{}{% endset %}{% set j = j|load_json|_brine_mutable %}"
        );
        assert!(rewrite("{% endload %}").is_err());
    }
}
