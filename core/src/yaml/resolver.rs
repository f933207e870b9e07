//! Resolver: which type a plain scalar is, by PyYAML's YAML 1.1 implicit
//! resolvers (exactly the texts their regexes accept).

/// The type tag a node carries once resolved, as PyYAML names them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Kind {
    Str,
    Int,
    Float,
    Bool,
    Null,
    /// `<<`: only meaningful as a mapping key.
    Merge,
    /// `=`: only meaningful as a mapping key (then it is a string).
    ValueKey,
    Timestamp,
    Binary,
    Seq,
    Map,
    Omap,
    Pairs,
    Set,
    /// A tag no constructor exists for (the full tag text).
    Unknown(String),
}

impl Kind {
    /// The tag for a `tag:yaml.org,2002:` suffix (or the full tag text).
    pub(super) fn from_tag(full: &str) -> Kind {
        match full.strip_prefix("tag:yaml.org,2002:") {
            Some("str") | Some("python/unicode") => Kind::Str,
            Some("int") => Kind::Int,
            Some("float") => Kind::Float,
            Some("bool") => Kind::Bool,
            Some("null") => Kind::Null,
            Some("merge") => Kind::Merge,
            Some("value") => Kind::ValueKey,
            Some("timestamp") => Kind::Timestamp,
            Some("binary") => Kind::Binary,
            Some("seq") => Kind::Seq,
            Some("map") => Kind::Map,
            Some("omap") => Kind::Omap,
            Some("pairs") => Kind::Pairs,
            Some("set") => Kind::Set,
            _ => Kind::Unknown(full.to_string()),
        }
    }
}

/// Python's `re` `$` also matches just before a final newline.
pub(super) fn strip_final_newline(s: &str) -> &str {
    s.strip_suffix('\n').unwrap_or(s)
}

pub(super) fn is_digit(b: u8) -> bool {
    b.is_ascii_digit()
}

/// Skip bytes of `s` from `i` while `pred` holds; returns the new index.
pub(super) fn skip_while(s: &[u8], mut i: usize, pred: impl Fn(u8) -> bool) -> usize {
    while i < s.len() && pred(s[i]) {
        i += 1;
    }
    i
}

/// `(?::[0-5]?[0-9])+` starting at `i`; returns the index after the last
/// group, or `None` when there is not at least one group.
pub(super) fn sexagesimal_groups(s: &[u8], mut i: usize) -> Option<usize> {
    let mut groups = 0;
    while i < s.len() && s[i] == b':' {
        let d1 = *s.get(i + 1)?;
        if !is_digit(d1) {
            return None;
        }
        i += 2;
        if (b'0'..=b'5').contains(&d1) && s.get(i).copied().is_some_and(is_digit) {
            i += 1;
        }
        groups += 1;
    }
    (groups > 0).then_some(i)
}

pub(super) fn split_sign(s: &[u8]) -> (bool, &[u8]) {
    match s.first() {
        Some(b'-') | Some(b'+') => (true, &s[1..]),
        _ => (false, s),
    }
}

/// PyYAML's implicit `bool` resolver (YAML 1.1 words; not `y`/`n`).
pub(super) fn resolve_bool(s: &str) -> Option<bool> {
    match s {
        "yes" | "Yes" | "YES" | "true" | "True" | "TRUE" | "on" | "On" | "ON" => Some(true),
        "no" | "No" | "NO" | "false" | "False" | "FALSE" | "off" | "Off" | "OFF" => Some(false),
        _ => None,
    }
}

pub(super) fn is_null_text(s: &str) -> bool {
    matches!(s, "" | "~" | "null" | "Null" | "NULL")
}

/// PyYAML's implicit `int` pattern:
/// `[-+]?0b[0-1_]+ | [-+]?0[0-7_]+ | [-+]?(0|[1-9][0-9_]*) | [-+]?0x[0-9a-fA-F_]+
///  | [-+]?[1-9][0-9_]*(:[0-5]?[0-9])+`
pub(super) fn is_int_text(s: &str) -> bool {
    let (_, r) = split_sign(s.as_bytes());
    match r {
        [] => false,
        [b'0'] => true,
        [b'0', b'b', rest @ ..] => {
            !rest.is_empty() && rest.iter().all(|&b| matches!(b, b'0' | b'1' | b'_'))
        }
        [b'0', b'x', rest @ ..] => {
            !rest.is_empty() && rest.iter().all(|&b| b.is_ascii_hexdigit() || b == b'_')
        }
        [b'0', rest @ ..] => rest.iter().all(|&b| matches!(b, b'0'..=b'7' | b'_')),
        [b'1'..=b'9', ..] => {
            let i = skip_while(r, 1, |b| is_digit(b) || b == b'_');
            i == r.len() || sexagesimal_groups(r, i) == Some(r.len())
        }
        _ => false,
    }
}

/// `(?:[eE][-+][0-9]+)?` then end of text.
pub(super) fn exponent_then_end(s: &[u8], i: usize) -> bool {
    if i == s.len() {
        return true;
    }
    if !matches!(s[i], b'e' | b'E') || !matches!(s.get(i + 1), Some(b'-') | Some(b'+')) {
        return false;
    }
    let j = skip_while(s, i + 2, is_digit);
    j > i + 2 && j == s.len()
}

/// PyYAML's implicit `float` pattern:
/// `[-+]?[0-9][0-9_]*\.[0-9_]*([eE][-+][0-9]+)? | \.[0-9][0-9_]*([eE][-+][0-9]+)?
///  | [-+]?[0-9][0-9_]*(:[0-5]?[0-9])+\.[0-9_]* | [-+]?\.(inf|Inf|INF) | \.(nan|NaN|NAN)`
/// (so `1e3` is a string, `1.0e+3` a float).
pub(super) fn is_float_text(s: &str) -> bool {
    if matches!(s, ".nan" | ".NaN" | ".NAN") {
        return true;
    }
    let (signed, r) = split_sign(s.as_bytes());
    match r {
        b".inf" | b".Inf" | b".INF" => true,
        [b'.', d, ..] if !signed && is_digit(*d) => {
            let i = skip_while(r, 2, |b| is_digit(b) || b == b'_');
            exponent_then_end(r, i)
        }
        [d, ..] if is_digit(*d) => {
            let i = skip_while(r, 1, |b| is_digit(b) || b == b'_');
            match r.get(i) {
                Some(b'.') => {
                    let j = skip_while(r, i + 1, |b| is_digit(b) || b == b'_');
                    exponent_then_end(r, j)
                }
                Some(b':') => match sexagesimal_groups(r, i) {
                    Some(j) if r.get(j) == Some(&b'.') => {
                        skip_while(r, j + 1, |b| is_digit(b) || b == b'_') == r.len()
                    }
                    _ => false,
                },
                _ => false,
            }
        }
        _ => false,
    }
}

pub(super) fn two_digits(s: &[u8], i: usize) -> bool {
    s.len() >= i + 2 && is_digit(s[i]) && is_digit(s[i + 1])
}

/// PyYAML's implicit `timestamp` pattern (only the dumper needs it: Salt's
/// loader turns timestamps back into the original string).
pub(super) fn is_timestamp_text(s: &str) -> bool {
    let b = s.as_bytes();
    if !(b.len() >= 4 && b[..4].iter().all(|&c| is_digit(c))) || b.get(4) != Some(&b'-') {
        return false;
    }
    // YYYY-MM-DD
    if b.len() == 10 && two_digits(b, 5) && b[7] == b'-' && two_digits(b, 8) {
        return true;
    }
    // YYYY-M[M]-D[D](T| +)H[H]:MM:SS(.frac)?( *(Z|[-+]H[H](:MM)?))?
    let digits_1_2 = |i: usize| -> Option<usize> {
        let j = skip_while(b, i, is_digit);
        (j > i && j - i <= 2).then_some(j)
    };
    let Some(i) = digits_1_2(5) else { return false };
    if b.get(i) != Some(&b'-') {
        return false;
    }
    let Some(mut i) = digits_1_2(i + 1) else {
        return false;
    };
    match b.get(i) {
        Some(b'T') | Some(b't') => i += 1,
        Some(b' ') | Some(b'\t') => i = skip_while(b, i, |c| c == b' ' || c == b'\t'),
        _ => return false,
    }
    let Some(i) = digits_1_2(i) else { return false };
    if b.get(i) != Some(&b':')
        || !two_digits(b, i + 1)
        || b.get(i + 3) != Some(&b':')
        || !two_digits(b, i + 4)
    {
        return false;
    }
    let mut i = i + 6;
    if b.get(i) == Some(&b'.') {
        i = skip_while(b, i + 1, is_digit);
    }
    if i == b.len() {
        return true;
    }
    i = skip_while(b, i, |c| c == b' ' || c == b'\t');
    match b.get(i) {
        Some(b'Z') => i + 1 == b.len(),
        Some(b'-') | Some(b'+') => {
            let Some(j) = digits_1_2(i + 1) else {
                return false;
            };
            j == b.len() || (b.get(j) == Some(&b':') && two_digits(b, j + 1) && j + 3 == b.len())
        }
        _ => false,
    }
}

/// The tag PyYAML's resolver gives an untagged plain scalar.
pub(super) fn resolve_plain(text: &str) -> Kind {
    let s = strip_final_newline(text);
    let Some(&first) = s.as_bytes().first() else {
        return Kind::Null;
    };
    // Dispatch on the first character as PyYAML does, so most strings cost
    // one comparison.
    match first {
        b'y' | b'Y' | b'n' | b'N' | b't' | b'T' | b'f' | b'F' | b'o' | b'O' => {
            if resolve_bool(s).is_some() {
                Kind::Bool
            } else if is_null_text(s) {
                Kind::Null
            } else {
                Kind::Str
            }
        }
        b'-' | b'+' | b'0'..=b'9' | b'.' => {
            if is_float_text(s) {
                Kind::Float
            } else if is_int_text(s) {
                Kind::Int
            } else if is_timestamp_text(s) {
                Kind::Timestamp
            } else {
                Kind::Str
            }
        }
        b'~' if s == "~" => Kind::Null,
        // PyYAML's documentation-only `yaml` resolver; reachable through a
        // `!`-tagged quoted scalar.
        b'!' | b'&' | b'*' if s.len() == 1 => Kind::Unknown("tag:yaml.org,2002:yaml".into()),
        b'<' if s == "<<" => Kind::Merge,
        b'=' if s == "=" => Kind::ValueKey,
        _ => Kind::Str,
    }
}
