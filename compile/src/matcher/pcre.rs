//! Python's `re.match` (anchored at the start only) on top of the `regex`
//! crate. Salt's pcre matchers hand target text straight to Python's `re`, so
//! a pattern is first rewritten where the two dialects read the same text
//! differently, then compiled once and cached.
//!
//! Rewrites: `\Z` is `\z`; `$` also matches before a final newline;
//! `{` and `}` that do not form a repeat are literals, `{,n}` is `{0,n}`;
//! inside a set `[`, `&`, `~` are literals (the regex crate would read nested
//! classes and set operations) and `\\b` is a backspace; an escaped
//! punctuation character is that character (`\\<` is no word boundary), octal
//! escapes are characters, escapes Python does not know (`\\p`, `\\z`) are errors; `(?#...)` comments are dropped. Python errors
//! the regex crate would accept are raised here: unbalanced `)`, global flags
//! after the start. Not supported (the regex crate has no such thing, so the
//! pattern is reported invalid): look-around, backreferences, atomic groups,
//! possessive repeats, the `(?a)` flag.

use regex::Regex;
use std::collections::HashMap;
use std::sync::{Arc, LazyLock, Mutex};

/// A Python pattern compiled for the regex crate.
#[derive(Debug)]
pub struct PyRegex {
    regex: Regex,
    /// Python's `\B` never matches in an empty string, the regex crate's
    /// does: the variant used for empty text, when the pattern has a `\B`.
    for_empty_text: Option<Regex>,
}

impl PyRegex {
    /// `bool(re.match(pattern, text))`.
    pub fn is_match(&self, text: &str) -> bool {
        match (&self.for_empty_text, text.is_empty()) {
            (Some(empty), true) => empty.is_match(text),
            _ => self.regex.is_match(text),
        }
    }
}

/// Compiled patterns (or why they do not compile), by Python pattern text.
/// Top files repeat the same few patterns for every minion, so compiling each
/// once matters; the map is simply emptied when it grows past the bound.
type Cache = HashMap<String, Result<Arc<PyRegex>, RegexError>>;
static CACHE: LazyLock<Mutex<Cache>> = LazyLock::new(|| Mutex::new(HashMap::new()));
const CACHE_MAX: usize = 1024;

/// Why a pattern is not a valid regular expression: Python's `re.error`
/// wording, or what brine cannot match (the regex crate has no such thing).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum RegexError {
    #[error("nothing to repeat")]
    NothingToRepeat,
    #[error("multiple repeat")]
    MultipleRepeat,
    #[error("missing ), unterminated comment")]
    UnterminatedComment,
    #[error("global flags not at the start of the expression")]
    LateGlobalFlags,
    #[error("unbalanced parenthesis")]
    UnbalancedParenthesis,
    #[error("missing ), unterminated subpattern")]
    UnterminatedSubpattern,
    #[error("unterminated character set")]
    UnterminatedSet,
    #[error("bad escape (end of pattern)")]
    EscapeAtEnd,
    #[error("bad escape \\{0}")]
    BadEscape(char),
    #[error("incomplete escape \\{0}")]
    IncompleteEscape(char),
    #[error("bad escape: character U+{0:X} is not supported")]
    NoSuchCharacter(u32),
    #[error("octal escape value outside of range 0-0o377")]
    OctalOutOfRange,
    /// Possessive repeats, backreferences.
    #[error("{0} are not supported")]
    Unsupported(&'static str),
    /// The regex crate refused the translated pattern (look-around...).
    #[error("{0}")]
    Engine(#[from] regex::Error),
}

/// `bool(re.match(pattern, text))`.
pub fn re_match(pattern: &str, text: &str) -> Result<bool, RegexError> {
    Ok(compile(pattern)?.is_match(text))
}

/// The compiled, start-anchored form of a Python pattern (cached).
pub fn compile(pattern: &str) -> Result<Arc<PyRegex>, RegexError> {
    if let Ok(cache) = CACHE.lock() {
        if let Some(hit) = cache.get(pattern) {
            return hit.clone();
        }
    }
    let build = |empty_text: bool| {
        translate(pattern, empty_text).and_then(|rust| Ok(Regex::new(&format!(r"\A(?:{rust})"))?))
    };
    let compiled = build(false).and_then(|regex| {
        let for_empty_text = if pattern.contains(r"\B") {
            Some(build(true)?)
        } else {
            None
        };
        Ok(Arc::new(PyRegex {
            regex,
            for_empty_text,
        }))
    });
    if let Ok(mut cache) = CACHE.lock() {
        if cache.len() >= CACHE_MAX {
            cache.clear();
        }
        cache.insert(pattern.to_string(), compiled.clone());
    }
    compiled
}

/// What the last thing read was, for Python's repeat errors ("nothing to
/// repeat", "multiple repeat") that the regex crate does not raise.
#[derive(Clone, Copy, PartialEq)]
enum Last {
    /// Start of the pattern, of a group or of an alternative.
    Nothing,
    /// A zero-width assertion: `^ $ \A \Z \b \B`.
    Assertion,
    /// A greedy repeat (`*`, `+`, `?`, `{m,n}`): only `?` may follow.
    Repeat,
    /// A lazy repeat (`*?`): nothing may follow.
    LazyRepeat,
    Item,
}

/// Rewrite Python regex syntax into the regex crate's.
/// With `empty_text`, `\B` is written as never matching (see [`PyRegex`]).
fn translate(pat: &str, empty_text: bool) -> Result<String, RegexError> {
    let chars: Vec<char> = pat.chars().collect();
    let mut out = String::with_capacity(pat.len() + 8);
    let mut depth = 0usize;
    // Python accepts `(?i)`-style global flags only before anything else.
    let mut only_flags_so_far = true;
    let mut verbose = false;
    let mut last = Last::Nothing;
    let mut i = 0;
    while let Some(&c) = chars.get(i) {
        let mut is_flag_group = false;
        // A repeat operator: `*`, `+`, `?` or a `{m,n}` Python accepts as one.
        let repeat = match c {
            '*' | '+' | '?' => Some((c.to_string(), 1)),
            '{' => python_repeat(&chars, i).map(|(lo, hi, len)| {
                let lo = if lo.is_empty() { "0".to_string() } else { lo };
                let text = match hi {
                    Some(hi) => format!("{{{lo},{hi}}}"),
                    None => format!("{{{lo}}}"),
                };
                (text, len)
            }),
            _ => None,
        };
        if let Some((text, len)) = repeat {
            last = match (last, c) {
                (Last::Nothing | Last::Assertion, _) => return Err(RegexError::NothingToRepeat),
                (Last::Repeat, '?') => Last::LazyRepeat,
                (Last::Repeat, '+') => {
                    return Err(RegexError::Unsupported("possessive repeats"));
                }
                (Last::Repeat | Last::LazyRepeat, _) => return Err(RegexError::MultipleRepeat),
                (Last::Item, _) => Last::Repeat,
            };
            out.push_str(&text);
            i += len;
            only_flags_so_far = false;
            continue;
        }
        match c {
            '\\' => {
                let next = chars.get(i + 1).copied();
                if empty_text && next == Some('B') {
                    out.push_str(r"[^\x00-\x{10FFFF}]");
                    i += 2;
                } else {
                    i += translate_escape(&chars, i, false, &mut out)?;
                }
                last = if matches!(next, Some('A' | 'Z' | 'b' | 'B')) {
                    Last::Assertion
                } else {
                    Last::Item
                };
            }
            '[' => {
                i = translate_set(&chars, i, &mut out)?;
                last = Last::Item;
            }
            '(' => {
                let rest = chars.get(i + 1..).unwrap_or(&[]);
                if rest.starts_with(&['?', '#']) {
                    // A comment: skipped up to the first `)`.
                    match rest.iter().position(|&x| x == ')') {
                        Some(end) => {
                            i += end + 2;
                            continue;
                        }
                        None => return Err(RegexError::UnterminatedComment),
                    }
                }
                if let Some(len) = global_flags_len(rest) {
                    if !only_flags_so_far || depth > 0 {
                        return Err(RegexError::LateGlobalFlags);
                    }
                    is_flag_group = true;
                    let group = chars.get(i..i + 1 + len).unwrap_or(&[]);
                    verbose |= group.contains(&'x');
                    out.extend(group);
                    i += 1 + len;
                } else {
                    // `(`, `(?:`, `(?P<name>`, `(?i-s:`...: the group's
                    // own syntax is copied as is, its body is read on.
                    let prefix = group_prefix_len(rest);
                    depth += 1;
                    out.extend(chars.get(i..i + 1 + prefix).unwrap_or(&[]));
                    i += 1 + prefix;
                    last = Last::Nothing;
                }
            }
            ')' => {
                if depth == 0 {
                    return Err(RegexError::UnbalancedParenthesis);
                }
                depth -= 1;
                out.push(')');
                i += 1;
                last = Last::Item;
            }
            '|' => {
                out.push('|');
                i += 1;
                last = Last::Nothing;
            }
            '^' => {
                out.push('^');
                i += 1;
                last = Last::Assertion;
            }
            '$' => {
                // Python's `$` also matches just before a trailing newline.
                out.push_str(r"(?:\n?$)");
                i += 1;
                last = Last::Assertion;
            }
            '{' => {
                out.push_str(r"\{");
                i += 1;
                last = Last::Item;
            }
            '}' => {
                out.push_str(r"\}");
                i += 1;
                last = Last::Item;
            }
            other => {
                out.push(other);
                i += 1;
                last = Last::Item;
            }
        }
        if !is_flag_group {
            only_flags_so_far = false;
        }
    }
    if depth > 0 {
        return Err(RegexError::UnterminatedSubpattern);
    }
    if verbose {
        // A trailing `# comment` would otherwise swallow the `)` that
        // closes the anchoring group; in verbose mode a newline is ignored.
        out.push('\n');
    }
    Ok(out)
}

/// Translate the escape at `chars[start] == '\\'` (in a set or not) the way
/// Python's `re` reads it; returns how many characters it took.
fn translate_escape(
    chars: &[char],
    start: usize,
    in_set: bool,
    out: &mut String,
) -> Result<usize, RegexError> {
    let Some(&c) = chars.get(start + 1) else {
        return Err(RegexError::EscapeAtEnd);
    };
    let literal = |out: &mut String, code: u32| -> Result<(), RegexError> {
        if char::from_u32(code).is_none() {
            return Err(RegexError::NoSuchCharacter(code));
        }
        out.push_str(&format!("\\x{{{code:X}}}"));
        Ok(())
    };
    let digits_at = |from: usize, n: usize, radix: u32| -> Option<u32> {
        let s: String = chars.get(from..from + n)?.iter().collect();
        if s.chars().all(|d| d.is_digit(radix)) {
            u32::from_str_radix(&s, radix).ok()
        } else {
            None
        }
    };
    let octal_run = |from: usize, max: usize| {
        chars
            .iter()
            .skip(from)
            .take(max)
            .take_while(|d| ('0'..='7').contains(*d))
            .count()
    };
    if !c.is_ascii_alphanumeric() {
        // Any other escaped character is itself (`\<` is not a word
        // boundary in Python).
        literal(out, u32::from(c))?;
        return Ok(2);
    }
    match c {
        'x' | 'u' | 'U' => {
            let n = match c {
                'x' => 2,
                'u' => 4,
                _ => 8,
            };
            let code = digits_at(start + 2, n, 16).ok_or(RegexError::IncompleteEscape(c))?;
            literal(out, code)?;
            Ok(2 + n)
        }
        '0'..='7' if in_set || c == '0' => {
            let n = 1 + octal_run(start + 2, 2);
            let code = digits_at(start + 1, n, 8).unwrap_or(0);
            if code > 0o377 {
                return Err(RegexError::OctalOutOfRange);
            }
            literal(out, code)?;
            Ok(1 + n)
        }
        '1'..='9' if !in_set => {
            // Three octal digits are a character, anything else a group
            // reference, which the regex crate does not have.
            if ('1'..='7').contains(&c) && octal_run(start + 2, 2) == 2 {
                let code = digits_at(start + 1, 3, 8).unwrap_or(0);
                if code > 0o377 {
                    return Err(RegexError::OctalOutOfRange);
                }
                literal(out, code)?;
                return Ok(4);
            }
            Err(RegexError::Unsupported("backreferences"))
        }
        'Z' if !in_set => {
            out.push_str(r"\z");
            Ok(2)
        }
        'b' if in_set => {
            // In a set Python's `\b` is a backspace.
            out.push_str(r"\x08");
            Ok(2)
        }
        'A' | 'b' | 'B' if !in_set => {
            out.push('\\');
            out.push(c);
            Ok(2)
        }
        'd' | 'D' | 's' | 'S' | 'w' | 'W' | 'a' | 'f' | 'n' | 'r' | 't' | 'v' => {
            out.push('\\');
            out.push(c);
            Ok(2)
        }
        _ => Err(RegexError::BadEscape(c)),
    }
}

/// Length of the `?...` that opens a special group, after its `(`.
fn group_prefix_len(rest: &[char]) -> usize {
    if rest.first() != Some(&'?') {
        return 0;
    }
    match rest.get(1) {
        Some('P') if rest.get(2) == Some(&'<') => rest
            .iter()
            .position(|&c| c == '>')
            .map_or(rest.len(), |end| end + 1),
        Some('P') if rest.get(2) == Some(&'=') => 3,
        Some('<') if matches!(rest.get(2), Some('=' | '!')) => 3,
        Some(':' | '=' | '!' | '>' | '<') => 2,
        _ => {
            let flags = rest
                .iter()
                .skip(1)
                .take_while(|c| "-aiLmsux".contains(**c))
                .count();
            if flags > 0 && rest.get(1 + flags) == Some(&':') {
                flags + 2
            } else {
                1
            }
        }
    }
}

/// Length of `?flags)` at the start of `rest` (after a `(`), if it is a
/// global flag group like `(?i)` rather than `(?i:...)` or `(?P<...>`.
fn global_flags_len(rest: &[char]) -> Option<usize> {
    if rest.first() != Some(&'?') {
        return None;
    }
    let flags = rest
        .iter()
        .skip(1)
        .take_while(|c| "aiLmsux".contains(**c))
        .count();
    (flags > 0 && rest.get(1 + flags) == Some(&')')).then_some(flags + 2)
}

/// Python's reading of `{m,n}` at `start`: `(lo, hi, length)` when it is a
/// repeat (`hi` is `None` for `{m}`, empty for an open end), `None` when the
/// `{` is a literal.
fn python_repeat(chars: &[char], start: usize) -> Option<(String, Option<String>, usize)> {
    let mut i = start + 1;
    if chars.get(i) == Some(&'}') {
        return None;
    }
    let digits = |i: &mut usize| {
        let mut s = String::new();
        while let Some(&d) = chars.get(*i).filter(|d| d.is_ascii_digit()) {
            s.push(d);
            *i += 1;
        }
        s
    };
    let lo = digits(&mut i);
    let hi = if chars.get(i) == Some(&',') {
        i += 1;
        Some(digits(&mut i))
    } else {
        None
    };
    if chars.get(i) != Some(&'}') {
        return None;
    }
    Some((lo, hi, i + 1 - start))
}

/// Copy the set starting at `chars[start] == '['` into `out`, escaping what
/// the regex crate would read as nested classes or set operations. Returns
/// the index after the closing `]`.
fn translate_set(chars: &[char], start: usize, out: &mut String) -> Result<usize, RegexError> {
    let mut i = start + 1;
    out.push('[');
    if chars.get(i) == Some(&'^') {
        out.push('^');
        i += 1;
    }
    if chars.get(i) == Some(&']') {
        out.push_str(r"\]");
        i += 1;
    }
    loop {
        match chars.get(i) {
            None => return Err(RegexError::UnterminatedSet),
            Some(']') => {
                out.push(']');
                return Ok(i + 1);
            }
            Some('\\') => {
                i += translate_escape(chars, i, true, out)?;
            }
            Some(&c @ ('[' | '&' | '~')) => {
                out.push('\\');
                out.push(c);
                i += 1;
            }
            Some(&c) => {
                out.push(c);
                i += 1;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::re_match;

    /// (pattern, text, CPython 3.11.7 `bool(re.match(pattern, text))`, or
    /// `None` where `re.compile` raises).
    const CASES: &[(&str, &str, Option<bool>)] = include!("testdata/pcre_cases.rs");

    /// Python constructs the regex crate has no equivalent for: such a
    /// pattern is reported invalid instead of matched.
    fn unsupported(pat: &str) -> bool {
        let backref = (1..=9).any(|d| pat.contains(&format!("\\{d}")));
        backref
            || [
                "(?=", "(?!", "(?<=", "(?<!", "(?P=", "(?>", "*+", "++", "?+", "}+", "(?a",
            ]
            .iter()
            .any(|x| pat.contains(x))
    }

    /// Known difference: `$` consumes the final newline it matches before,
    /// which only shows when more pattern follows it (`$\A`).
    fn dollar_then_more(pat: &str, text: &str) -> bool {
        text.ends_with('\n') && pat.trim_end_matches(['$', ')', '|']).contains('$')
    }

    #[test]
    fn errors_read_like_python() {
        let e = |p: &str| re_match(p, "").map_err(|e| e.to_string());
        assert_eq!(e("a**"), Err("multiple repeat".into()));
        assert_eq!(e("*"), Err("nothing to repeat".into()));
        assert_eq!(e(r"\q"), Err(r"bad escape \q".into()));
        assert_eq!(e(r"\x1"), Err(r"incomplete escape \x".into()));
        assert_eq!(e("(a"), Err("missing ), unterminated subpattern".into()));
        assert_eq!(e(r"(a)\1"), Err("backreferences are not supported".into()));
        assert_eq!(e("a++"), Err("possessive repeats are not supported".into()));
        assert!(matches!(
            re_match("(?<=a)b", ""),
            Err(super::RegexError::Engine(_))
        ));
    }

    #[test]
    fn matches_cpython_re_match() {
        let mut bad = Vec::new();
        for (pat, text, want) in CASES {
            let got = re_match(pat, text).ok();
            let known = (got.is_none() && unsupported(pat)) || dollar_then_more(pat, text);
            if got != *want && !known {
                bad.push(format!(
                    "re.match({pat:?}, {text:?}): python {want:?}, brine {got:?}"
                ));
            }
        }
        assert!(
            bad.is_empty(),
            "{} mismatches:\n{}",
            bad.len(),
            bad.join("\n")
        );
    }

    #[test]
    fn anchored_at_start_only() {
        assert_eq!(re_match("web", "web01.example.com"), Ok(true));
        assert_eq!(re_match("example", "web01.example.com"), Ok(false));
        assert_eq!(re_match("a|b", "b"), Ok(true));
    }
}
