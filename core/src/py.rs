//! Python's text semantics that Salt's answers depend on, in one place:
//! `str.splitlines()`, `str.isspace()`, `repr(str)` and `json.dumps`' string
//! escaping. Renderers, outputters and the compilers all use these.

use std::fmt::Write;

/// `str.splitlines()`: every line boundary Python knows (`\r\n` counts as
/// one), and no empty last line after a trailing break.
pub fn splitlines(s: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut chars = s.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        if !is_line_break(c) {
            continue;
        }
        out.push(&s[start..i]);
        let mut end = i + c.len_utf8();
        if c == '\r' {
            if let Some(&(j, '\n')) = chars.peek() {
                chars.next();
                end = j + 1;
            }
        }
        start = end;
    }
    if start < s.len() {
        out.push(&s[start..]);
    }
    out
}

/// The characters `str.splitlines()` breaks at.
pub fn is_line_break(c: char) -> bool {
    matches!(
        c,
        '\n' | '\r'
            | '\u{0b}'
            | '\u{0c}'
            | '\u{1c}'
            | '\u{1d}'
            | '\u{1e}'
            | '\u{85}'
            | '\u{2028}'
            | '\u{2029}'
    )
}

/// `str.isspace()` for one character (what `str.strip()` removes).
pub fn is_space(c: char) -> bool {
    c.is_whitespace() || matches!(c, '\u{1c}'..='\u{1f}')
}

/// `repr(str)`: single quotes unless the text has a `'` and no `"`;
/// characters Python does not count as printable are escaped.
pub fn str_repr(s: &str) -> String {
    let quote = if s.contains('\'') && !s.contains('"') {
        '"'
    } else {
        '\''
    };
    let mut out = String::with_capacity(s.len() + 2);
    out.push(quote);
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c == quote => {
                out.push('\\');
                out.push(c);
            }
            c if !is_printable(c) => {
                let n = c as u32;
                let _ = if n < 0x100 {
                    write!(out, "\\x{n:02x}")
                } else if n < 0x10000 {
                    write!(out, "\\u{n:04x}")
                } else {
                    write!(out, "\\U{n:08x}")
                };
            }
            c => out.push(c),
        }
    }
    out.push(quote);
    out
}

/// Python's `str.isprintable()` for one character (Unicode categories
/// Cc, Cf, Cs, Co, Cn, Zl, Zp, Zs other than the ASCII space are not).
fn is_printable(c: char) -> bool {
    let n = c as u32;
    !matches!(n,
        0x00..=0x1f | 0x7f..=0xa0 | 0xad
        | 0x600..=0x605 | 0x61c | 0x6dd | 0x70f | 0x890..=0x891 | 0x8e2 | 0x180e
        | 0x1680 | 0x2000..=0x200f | 0x2028..=0x202f | 0x205f..=0x2064 | 0x2066..=0x206f
        | 0x3000 | 0xd800..=0xf8ff | 0xfdd0..=0xfdef | 0xfeff | 0xfff9..=0xfffb
        | 0x110bd | 0x110cd | 0x13430..=0x1343f | 0x1bca0..=0x1bca3 | 0x1d173..=0x1d17a
        | 0xe0001 | 0xe0020..=0xe007f | 0xf0000..=0x10ffff)
        && n & 0xfffe != 0xfffe
}

/// A JSON string as `json.dumps` writes it: `"`, `\` and control
/// characters escaped, and with `ensure_ascii` everything past ASCII as
/// `\uXXXX` (UTF-16 surrogate pairs beyond the BMP).
pub fn write_json_str(out: &mut String, s: &str, ensure_ascii: bool) {
    out.push('"');
    // Most strings need no escape: copy the run up to the first byte that
    // might (a quote, a backslash, a control or, with `ensure_ascii`, a
    // non-ASCII byte), then go character by character.
    let plain = plain_json_prefix(s.as_bytes(), ensure_ascii);
    out.push_str(&s[..plain]);
    for c in s[plain..].chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{08}' => out.push_str("\\b"),
            '\u{0c}' => out.push_str("\\f"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c if ensure_ascii && (c as u32) > 0x7f => {
                let mut buf = [0u16; 2];
                for unit in c.encode_utf16(&mut buf) {
                    let _ = write!(out, "\\u{unit:04x}");
                }
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// How many bytes of `b` [`write_json_str`] copies as they are: the run
/// before the first `"`, `\\`, control byte or (with `ensure_ascii`) byte
/// past ASCII. Eight bytes are tested at a time (a fleet's highstate
/// returns are hundreds of megabytes of strings through the CLI).
fn plain_json_prefix(b: &[u8], ensure_ascii: bool) -> usize {
    const ONES: u64 = u64::from_ne_bytes([0x01; 8]);
    const HIGH: u64 = u64::from_ne_bytes([0x80; 8]);
    // A lane's high bit set where that byte of `x` is below `n` (n <= 0x80),
    // exact for lanes whose own high bit is clear; lanes at or past 0x80
    // are caught by the caller (`x & HIGH`).
    let below = |x: u64, n: u8| x.wrapping_sub(ONES * n as u64) & !x & HIGH;
    let zero = |x: u64| below(x, 1);
    let mut at = 0;
    let mut words = b.chunks_exact(8);
    for w in words.by_ref() {
        let x = u64::from_ne_bytes([w[0], w[1], w[2], w[3], w[4], w[5], w[6], w[7]]);
        // Any byte past ASCII goes to the byte loop below: it tells a
        // quote from a lead byte only there, and `ensure_ascii` stops at it.
        let hit = x & HIGH != 0
            || below(x, 0x20) != 0
            || zero(x ^ (ONES * b'"' as u64)) != 0
            || zero(x ^ (ONES * b'\\' as u64)) != 0;
        if hit {
            break;
        }
        at += 8;
    }
    at + b[at..]
        .iter()
        .position(|&c| c == b'"' || c == b'\\' || c < 0x20 || (ensure_ascii && c > 0x7f))
        .unwrap_or(b.len() - at)
}

/// `binascii.a2b_base64` as Python decodes base64 (what `base64.b64decode`,
/// PyYAML's `!!binary` and Salt's `base64_decode` filter run): characters
/// outside the alphabet are skipped, decoding stops at the first `=`, and
/// `None` is Python's "Incorrect padding" (one data character too many).
pub fn a2b_base64(text: &str) -> Option<Vec<u8>> {
    let mut bits: u32 = 0;
    let mut nbits = 0;
    let mut count = 0usize;
    let mut out = Vec::with_capacity(text.len() / 4 * 3);
    for b in text.bytes() {
        let v = match b {
            b'A'..=b'Z' => b - b'A',
            b'a'..=b'z' => b - b'a' + 26,
            b'0'..=b'9' => b - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            b'=' => break,
            _ => continue,
        };
        count += 1;
        bits = (bits << 6) | u32::from(v);
        nbits += 6;
        if nbits >= 8 {
            nbits -= 8;
            out.push((bits >> nbits) as u8);
            bits &= (1 << nbits) - 1;
        }
    }
    (count % 4 != 1).then_some(out)
}

/// Python's `int(text)` for decimal text: surrounding whitespace, a sign,
/// digits with single underscores between them.
pub fn int_from_str(s: &str) -> Option<i64> {
    let t = s.trim();
    let (neg, digits) = match t.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, t.strip_prefix('+').unwrap_or(t)),
    };
    if digits.is_empty()
        || digits.starts_with('_')
        || digits.ends_with('_')
        || digits.contains("__")
        || !digits.chars().all(|c| c.is_ascii_digit() || c == '_')
    {
        return None;
    }
    let n: i64 = digits.replace('_', "").parse().ok()?;
    Some(if neg { -n } else { n })
}

/// A float as `json.dumps` writes it: `repr(float)`, with JavaScript's
/// names for the non-finite values.
pub fn json_float(f: f64) -> String {
    let mut s = String::new();
    write_json_float(&mut s, f);
    s
}

/// [`json_float`] written onto `out`.
pub fn write_json_float(out: &mut String, f: f64) {
    if f.is_nan() {
        out.push_str("NaN");
    } else if f.is_infinite() {
        out.push_str(if f > 0.0 { "Infinity" } else { "-Infinity" });
    } else {
        write_float_repr(out, f);
    }
}

/// Python's `repr(float)`: shortest round-trip digits, always with a `.` or
/// an exponent, `inf`/`nan` spelled the Python way.
pub fn float_repr(f: f64) -> String {
    let mut s = String::new();
    write_float_repr(&mut s, f);
    s
}

/// [`float_repr`] written onto `out` (no text of its own to allocate: the
/// outputters write every state's `duration` through it).
pub fn write_float_repr(out: &mut String, f: f64) {
    if f.is_nan() {
        out.push_str("nan");
        return;
    }
    if f.is_infinite() {
        out.push_str(if f > 0.0 { "inf" } else { "-inf" });
        return;
    }
    let abs = f.abs();
    if abs != 0.0 && !(1e-4..1e16).contains(&abs) {
        // Python switches to exponent form outside [1e-4, 1e16).
        let s = format!("{:e}", f);
        let (mant, exp) = s.split_once('e').unwrap_or((&s, "0"));
        let exp: i32 = exp.parse().unwrap_or(0);
        let sign = if exp < 0 { '-' } else { '+' };
        let _ = write!(out, "{}e{}{:02}", mant, sign, exp.abs());
        return;
    }
    let start = out.len();
    let _ = write!(out, "{f}");
    if !out[start..].contains('.') {
        out.push_str(".0");
    }
}

/// Salt's `jid_to_time`: "2024, Jan 02 03:04:05.123456", or "" for a jid
/// that is not 20 digits (optionally followed by `_pid`).
pub fn jid_to_time(jid: &str) -> String {
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let ok_len = jid.len() == 20 || (jid.len() > 21 && jid.as_bytes().get(20) == Some(&b'_'));
    let Some(d) = jid
        .get(..20)
        .filter(|d| ok_len && d.bytes().all(|b| b.is_ascii_digit()))
    else {
        return String::new();
    };
    let month = d[4..6]
        .parse::<usize>()
        .ok()
        .and_then(|m| m.checked_sub(1))
        .and_then(|m| MONTHS.get(m));
    let Some(month) = month else {
        return String::new();
    };
    format!(
        "{}, {} {} {}:{}:{}.{}",
        &d[..4],
        month,
        &d[6..8],
        &d[8..10],
        &d[10..12],
        &d[12..14],
        &d[14..20]
    )
}

/// Why [`shlex_split`] could not split a text: Python's `ValueError`
/// words.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ShlexError {
    #[error("No closing quotation")]
    NoClosingQuotation,
    #[error("No escaped character")]
    NoEscapedCharacter,
}

/// Python's `shlex.split(s)` (POSIX mode, no comments): what Salt splits
/// command lines, kernel parameters and `name=value` output with. Words
/// end at ASCII whitespace; quotes join into the word they are in (`''`
/// is an empty word); outside quotes `\` takes the next character as it
/// is; inside double quotes it escapes only `"` and `\`.
pub fn shlex_split(s: &str) -> Result<Vec<String>, ShlexError> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut in_word = false;
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        match c {
            ' ' | '\t' | '\r' | '\n' => {
                if in_word {
                    out.push(std::mem::take(&mut cur));
                    in_word = false;
                }
            }
            '\'' => {
                in_word = true;
                loop {
                    match chars.next() {
                        None => return Err(ShlexError::NoClosingQuotation),
                        Some('\'') => break,
                        Some(q) => cur.push(q),
                    }
                }
            }
            '"' => {
                in_word = true;
                loop {
                    match chars.next() {
                        None => return Err(ShlexError::NoClosingQuotation),
                        Some('"') => break,
                        Some('\\') => match chars.next() {
                            None => return Err(ShlexError::NoClosingQuotation),
                            Some(n @ ('"' | '\\')) => cur.push(n),
                            Some(n) => {
                                cur.push('\\');
                                cur.push(n);
                            }
                        },
                        Some(q) => cur.push(q),
                    }
                }
            }
            '\\' => {
                in_word = true;
                match chars.next() {
                    None => return Err(ShlexError::NoEscapedCharacter),
                    Some(n) => cur.push(n),
                }
            }
            c => {
                in_word = true;
                cur.push(c);
            }
        }
    }
    if in_word {
        out.push(cur);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shlex_splits_as_python() {
        // (text, Python 3.11's shlex.split answer)
        let cases: &[(&str, &[&str])] = &[
            ("a b  c", &["a", "b", "c"]),
            ("a 'b c' \"d e\"", &["a", "b c", "d e"]),
            ("a'b'\"c\" ''", &["abc", ""]),
            (
                r#"x\ y "q\"r" "s\t" 'u\v'"#,
                &["x y", "q\"r", "s\\t", "u\\v"],
            ),
            ("a #b", &["a", "#b"]),
            ("BOOT=/v ro quiet", &["BOOT=/v", "ro", "quiet"]),
        ];
        for (text, want) in cases {
            assert_eq!(shlex_split(text).unwrap(), *want, "{text}");
        }
        assert_eq!(shlex_split("'a"), Err(ShlexError::NoClosingQuotation));
        assert_eq!(shlex_split("\"a\\"), Err(ShlexError::NoClosingQuotation));
        assert_eq!(shlex_split("a\\"), Err(ShlexError::NoEscapedCharacter));
    }

    #[test]
    fn splitlines_like_python() {
        assert_eq!(splitlines(""), Vec::<&str>::new());
        assert_eq!(splitlines("a\n"), ["a"]);
        assert_eq!(splitlines("a\r\nb\rc\u{2028}d"), ["a", "b", "c", "d"]);
        assert_eq!(splitlines("\n\n"), ["", ""]);
    }

    #[test]
    fn int_and_json_float_like_python() {
        assert_eq!(int_from_str(" -1_000 "), Some(-1000));
        assert_eq!(int_from_str("1__0"), None);
        assert_eq!(json_float(f64::NAN), "NaN");
        assert_eq!(json_float(1.0), "1.0");
        assert_eq!(json_float(f64::NEG_INFINITY), "-Infinity");
        // Written onto what is there: a '.' before it is not its own.
        let mut s = String::from("a.b ");
        write_float_repr(&mut s, 3.0);
        write_float_repr(&mut s, 0.25);
        write_float_repr(&mut s, 1e20);
        write_float_repr(&mut s, -1.5e-7);
        assert_eq!(s, "a.b 3.00.251e+20-1.5e-07");
        assert_eq!(float_repr(0.0), "0.0");
        assert_eq!(float_repr(f64::NAN), "nan");
    }

    #[test]
    fn the_plain_prefix_stops_where_the_bytes_do() {
        // Every stopping byte at every place of strings longer and shorter
        // than one eight-byte word, against the byte-by-byte rule.
        let naive = |b: &[u8], ascii: bool| {
            b.iter()
                .position(|&c| c == b'"' || c == b'\\' || c < 0x20 || (ascii && c > 0x7f))
                .unwrap_or(b.len())
        };
        let stops: [&str; 9] = [
            "\"", "\\", "\n", "\u{0}", "\u{1f}", "é", "😀", "\u{7f}", " ",
        ];
        for len in 0..20 {
            for at in 0..len {
                for stop in stops {
                    let text = format!("{}{stop}{}", "a".repeat(at), "b".repeat(len - at));
                    for ascii in [false, true] {
                        assert_eq!(
                            plain_json_prefix(text.as_bytes(), ascii),
                            naive(text.as_bytes(), ascii),
                            "{text:?} {ascii}"
                        );
                    }
                }
            }
        }
        // Past ASCII without ensure_ascii: copied whole, escapes after it.
        let mut s = String::new();
        write_json_str(&mut s, "ééééé \"x", false);
        assert_eq!(s, "\"ééééé \\\"x\"");
    }

    #[test]
    fn repr_and_json_escape_like_python() {
        assert_eq!(str_repr("it's"), "\"it's\"");
        assert_eq!(str_repr("a\u{85}b\u{200b}"), "'a\\x85b\\u200b'");
        let mut s = String::new();
        write_json_str(&mut s, "é\u{1}😀", true);
        assert_eq!(s, "\"\\u00e9\\u0001\\ud83d\\ude00\"");
        s.clear();
        write_json_str(&mut s, "é", false);
        assert_eq!(s, "\"é\"");
        // Plain runs before and after escapes; the escape-free path.
        for (text, json) in [
            ("plain text", "\"plain text\""),
            ("a\"b\\c\nd é", "\"a\\\"b\\\\c\\nd é\""),
            ("x\u{1f}", "\"x\\u001f\""),
        ] {
            s.clear();
            write_json_str(&mut s, text, false);
            assert_eq!(s, json, "{text:?}");
            assert_eq!(
                serde_json::from_str::<String>(&s).ok().as_deref(),
                Some(text)
            );
        }
    }
}
