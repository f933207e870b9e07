//! Salt's YAML loader semantics on top of `saphyr-parser` events (YAML 1.1
//! booleans, `0644` read as decimal 644, timestamps kept as strings, `<<`
//! merge keys, mappings in file order, duplicate keys rejected), and a YAML
//! emitter that writes what PyYAML's `safe_dump` writes.
//!
//! Loading follows Salt's `SaltYamlSafeLoader` (PyYAML `CSafeLoader` with
//! Salt's constructor overrides): the event stream is first composed into a
//! node graph (anchors make it a graph), then each node is resolved and
//! constructed. Plain scalars are resolved by hand-written matchers that
//! accept exactly what PyYAML's YAML 1.1 implicit-resolver regexes accept.
//!
//! Dumping follows `salt.utils.yaml.safe_dump` (PyYAML `CSafeDumper`, so the
//! libyaml emitter): keys sorted, 2-space indent, lists flush under their
//! key, strings quoted when they would read back as another type, line
//! folding at column 80.

use crate::value::{key_string, python_float_repr, Map};
use crate::Value;
use saphyr_parser::{Event, Parser, ScalarStyle, ScanError, Span, Tag};
use std::borrow::Cow;
use std::collections::{HashMap, HashSet};

/// Nesting deeper than this is refused. Real Salt data is a few dozen
/// levels deep, saphyr refuses flow collections nested past 255 anyway, and
/// building and walking the value recurses once per level: this bound keeps
/// that well inside a 1 MiB stack even in debug builds.
const MAX_DEPTH: usize = 256;

/// How many values aliases may add on top of the nodes written in the text
/// (a "billion laughs" document expands exponentially).
const MAX_ALIAS_EXPANSION: usize = 1_000_000;

/// Bound on re-parsing after patching a YAML 1.2/1.1 difference (each
/// patch fixes one spot; see `ComposeError::Retry`).
const MAX_REPARSES: usize = 1_000;

/// Which stage of PyYAML would have raised the error; Salt's YAML renderer
/// reports scanner errors differently from the others.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum YamlErrorKind {
    /// Malformed text (PyYAML `ScannerError`/`ParserError`).
    Syntax,
    /// Document structure: several documents, undefined alias
    /// (PyYAML `ComposerError`).
    Composer,
    /// Building values: duplicate key, bad merge, unknown tag
    /// (PyYAML `ConstructorError`).
    Constructor,
    /// A Python exception other than a YAML one (e.g. `!!int "abc"` makes
    /// PyYAML raise `ValueError`).
    Value,
}

/// Where and why a YAML document could not be loaded.
#[derive(Debug, Clone, thiserror::Error)]
#[error("{message} (line {line}, column {column})")]
pub struct YamlError {
    pub message: String,
    /// 1-based.
    pub line: usize,
    /// 1-based.
    pub column: usize,
    /// PyYAML's "while ..." context (e.g. `while constructing a mapping`)
    /// and the 1-based line/column where that construct started.
    pub context: Option<(String, usize, usize)>,
    pub kind: YamlErrorKind,
}

impl YamlError {
    fn new(kind: YamlErrorKind, message: impl Into<String>, at: Pos) -> YamlError {
        YamlError {
            message: message.into(),
            line: at.line,
            column: at.column,
            context: None,
            kind,
        }
    }

    fn constructor(message: impl Into<String>, at: Pos) -> YamlError {
        YamlError::new(YamlErrorKind::Constructor, message, at)
    }

    fn with_context(mut self, context: &str, at: Pos) -> YamlError {
        self.context = Some((context.to_string(), at.line, at.column));
        self
    }

    fn from_scan(e: &ScanError) -> YamlError {
        let m = e.marker();
        YamlError::new(
            YamlErrorKind::Syntax,
            e.info(),
            Pos {
                line: m.line().max(1),
                column: m.col() + 1,
            },
        )
    }

    /// The text PyYAML's `str(exc)` gives for this error, which is what Salt
    /// puts after `Rendering SLS '...' failed: `:
    ///
    /// ```text
    /// while constructing a mapping
    ///   in "<unicode string>", line 1, column 1
    /// found conflicting ID 'a'
    ///   in "<unicode string>", line 2, column 1
    /// ```
    ///
    /// A [`YamlErrorKind::Value`] error is a plain Python exception there:
    /// just its message.
    pub fn salt_text(&self) -> String {
        if self.kind == YamlErrorKind::Value {
            return self.message.clone();
        }
        let mark = |l: usize, c: usize| format!("  in \"<unicode string>\", line {l}, column {c}");
        let mut lines = Vec::with_capacity(4);
        if let Some((ctx, l, c)) = &self.context {
            lines.push(ctx.clone());
            if (*l, *c) != (self.line, self.column) {
                lines.push(mark(*l, *c));
            }
        }
        lines.push(self.message.clone());
        lines.push(mark(self.line, self.column));
        lines.join("\n")
    }
}

/// A 1-based position in the source text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Pos {
    line: usize,
    column: usize,
}

impl Pos {
    fn of(span: &Span) -> Pos {
        Pos {
            line: span.start.line().max(1),
            column: span.start.col() + 1,
        }
    }
}

// ---------------------------------------------------------------------------
// Plain-scalar resolution (PyYAML's YAML 1.1 implicit resolvers)
// ---------------------------------------------------------------------------

/// The type tag a node carries once resolved, as PyYAML names them.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Kind {
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
    fn from_tag(full: &str) -> Kind {
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
fn strip_final_newline(s: &str) -> &str {
    s.strip_suffix('\n').unwrap_or(s)
}

fn is_digit(b: u8) -> bool {
    b.is_ascii_digit()
}

/// Skip bytes of `s` from `i` while `pred` holds; returns the new index.
fn skip_while(s: &[u8], mut i: usize, pred: impl Fn(u8) -> bool) -> usize {
    while i < s.len() && pred(s[i]) {
        i += 1;
    }
    i
}

/// `(?::[0-5]?[0-9])+` starting at `i`; returns the index after the last
/// group, or `None` when there is not at least one group.
fn sexagesimal_groups(s: &[u8], mut i: usize) -> Option<usize> {
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

fn split_sign(s: &[u8]) -> (bool, &[u8]) {
    match s.first() {
        Some(b'-') | Some(b'+') => (true, &s[1..]),
        _ => (false, s),
    }
}

/// PyYAML's implicit `bool` resolver (YAML 1.1 words; not `y`/`n`).
fn resolve_bool(s: &str) -> Option<bool> {
    match s {
        "yes" | "Yes" | "YES" | "true" | "True" | "TRUE" | "on" | "On" | "ON" => Some(true),
        "no" | "No" | "NO" | "false" | "False" | "FALSE" | "off" | "Off" | "OFF" => Some(false),
        _ => None,
    }
}

fn is_null_text(s: &str) -> bool {
    matches!(s, "" | "~" | "null" | "Null" | "NULL")
}

/// PyYAML's implicit `int` pattern:
/// `[-+]?0b[0-1_]+ | [-+]?0[0-7_]+ | [-+]?(0|[1-9][0-9_]*) | [-+]?0x[0-9a-fA-F_]+
///  | [-+]?[1-9][0-9_]*(:[0-5]?[0-9])+`
fn is_int_text(s: &str) -> bool {
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
fn exponent_then_end(s: &[u8], i: usize) -> bool {
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
fn is_float_text(s: &str) -> bool {
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

fn two_digits(s: &[u8], i: usize) -> bool {
    s.len() >= i + 2 && is_digit(s[i]) && is_digit(s[i + 1])
}

/// PyYAML's implicit `timestamp` pattern (only the dumper needs it: Salt's
/// loader turns timestamps back into the original string).
fn is_timestamp_text(s: &str) -> bool {
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
fn resolve_plain(text: &str) -> Kind {
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

// ---------------------------------------------------------------------------
// Scalar constructors (PyYAML SafeConstructor + Salt's overrides)
// ---------------------------------------------------------------------------

/// Python's `str.strip()` for the ASCII whitespace `int()`/`float()` accept.
fn py_trim(s: &str) -> &str {
    s.trim_matches(|c: char| c.is_whitespace())
}

fn value_error(message: String, at: Pos) -> YamlError {
    YamlError::new(YamlErrorKind::Value, message, at)
}

/// A non-negative integer of any size, for values Python keeps exact but
/// that do not fit `i64` (they become decimal strings).
struct BigUint(Vec<u32>); // little-endian limbs in base 1e9

impl BigUint {
    const BASE: u64 = 1_000_000_000;

    fn mul_add(&mut self, mul: u32, add: u32) {
        let mut carry = add as u64;
        for limb in self.0.iter_mut() {
            let v = *limb as u64 * mul as u64 + carry;
            *limb = (v % Self::BASE) as u32;
            carry = v / Self::BASE;
        }
        while carry > 0 {
            self.0.push((carry % Self::BASE) as u32);
            carry /= Self::BASE;
        }
    }

    fn add(&mut self, other: &BigUint) {
        let mut carry = 0u64;
        for i in 0..self.0.len().max(other.0.len()) {
            let a = self.0.get(i).copied().unwrap_or(0) as u64;
            let b = other.0.get(i).copied().unwrap_or(0) as u64;
            let v = a + b + carry;
            let limb = (v % Self::BASE) as u32;
            match self.0.get_mut(i) {
                Some(l) => *l = limb,
                None => self.0.push(limb),
            }
            carry = v / Self::BASE;
        }
        if carry > 0 {
            self.0.push(carry as u32);
        }
    }

    fn to_i64(&self, negative: bool) -> Option<i64> {
        let mut v: i128 = 0;
        for limb in self.0.iter().rev() {
            v = v
                .checked_mul(Self::BASE as i128)?
                .checked_add(*limb as i128)?;
            if v > (i64::MAX as i128) + 1 {
                return None;
            }
        }
        let v = if negative { -v } else { v };
        i64::try_from(v).ok()
    }

    fn to_decimal(&self, negative: bool) -> String {
        let mut out = String::new();
        if negative && self.0.iter().any(|&l| l != 0) {
            out.push('-');
        }
        let mut limbs = self.0.iter().rev().skip_while(|&&l| l == 0);
        match limbs.next() {
            None => out.push('0'),
            Some(top) => {
                out.push_str(&top.to_string());
                for l in limbs {
                    out.push_str(&format!("{l:09}"));
                }
            }
        }
        out
    }
}

/// Python `int(text, base)`: digits only (sign and whitespace handled by
/// the caller's rules), any size.
fn parse_uint(text: &str, base: u32) -> Option<BigUint> {
    if text.is_empty() {
        return None;
    }
    let mut n = BigUint(Vec::new());
    for c in text.chars() {
        n.mul_add(base, c.to_digit(base)?);
    }
    Some(n)
}

fn int_value(n: &BigUint, negative: bool) -> Value {
    match n.to_i64(negative) {
        Some(i) => Value::Int(i),
        // Python ints have no size limit; keep the exact digits.
        None => Value::Str(n.to_decimal(negative)),
    }
}

/// Salt's `construct_scalar` override for `!!int`, then PyYAML's
/// `construct_yaml_int`.
fn construct_int(raw: &str, at: Pos) -> Result<Value, YamlError> {
    // Salt strips leading zeros so `0644` reads as decimal 644 (but `+0644`
    // keeps them and so is octal, and `0x`/`0b` are left alone).
    let salted: &str =
        if raw != "0" && raw.starts_with('0') && !raw.starts_with("0b") && !raw.starts_with("0x") {
            match raw.trim_start_matches('0') {
                "" => "0",
                rest => rest,
            }
        } else {
            raw
        };
    let cleaned = salted.replace('_', "");
    let Some(first) = cleaned.chars().next() else {
        return Err(value_error("string index out of range".into(), at));
    };
    let negative = first == '-';
    let v = if first == '-' || first == '+' {
        &cleaned[1..]
    } else {
        &cleaned[..]
    };
    let bad = |base: u32, text: &str| {
        value_error(
            format!("invalid literal for int() with base {base}: '{text}'"),
            at,
        )
    };
    let n = if v == "0" {
        BigUint(vec![0])
    } else if let Some(bits) = v.strip_prefix("0b") {
        parse_uint(py_trim(bits), 2).ok_or_else(|| bad(2, bits))?
    } else if let Some(hex) = v.strip_prefix("0x") {
        parse_uint(py_trim(hex), 16).ok_or_else(|| bad(16, hex))?
    } else if v.starts_with('0') {
        parse_uint(py_trim(v), 8).ok_or_else(|| bad(8, v))?
    } else if v.contains(':') {
        let mut n = BigUint(Vec::new());
        for (i, part) in v.split(':').enumerate() {
            let p = parse_uint(py_trim(part), 10).ok_or_else(|| bad(10, part))?;
            // Horner: value = value * 60 + part.
            if i > 0 {
                n.mul_add(60, 0);
            }
            n.add(&p);
        }
        n
    } else {
        parse_uint(py_trim(v), 10).ok_or_else(|| bad(10, v))?
    };
    Ok(int_value(&n, negative))
}

/// Python `float(text)` for the spellings PyYAML hands it.
fn py_float(text: &str) -> Option<f64> {
    let t = py_trim(text);
    let digits = t.strip_prefix(['+', '-']).unwrap_or(t);
    // Rust also reads "infinity"/"nan" like Python, but must not accept
    // forms Python rejects, such as a bare "." or "e5".
    let numeric = digits.bytes().any(|b| b.is_ascii_digit());
    let word = matches!(
        digits.to_ascii_lowercase().as_str(),
        "inf" | "infinity" | "nan"
    );
    if !numeric && !word {
        return None;
    }
    t.parse::<f64>().ok()
}

/// PyYAML's `construct_yaml_float` (sign, `.inf`, `.nan`, base 60).
fn construct_float(raw: &str, at: Pos) -> Result<Value, YamlError> {
    let cleaned = raw.replace('_', "").to_lowercase();
    let Some(first) = cleaned.chars().next() else {
        return Err(value_error("string index out of range".into(), at));
    };
    let sign = if first == '-' { -1.0 } else { 1.0 };
    let v = if first == '-' || first == '+' {
        &cleaned[1..]
    } else {
        &cleaned[..]
    };
    let bad = |text: &str| value_error(format!("could not convert string to float: '{text}'"), at);
    let f = if v == ".inf" {
        sign * f64::INFINITY
    } else if v == ".nan" {
        f64::NAN
    } else if v.contains(':') {
        let mut acc = 0.0;
        for part in v.split(':') {
            acc = acc * 60.0 + py_float(part).ok_or_else(|| bad(part))?;
        }
        sign * acc
    } else {
        sign * py_float(v).ok_or_else(|| bad(v))?
    };
    Ok(Value::Float(f))
}

/// PyYAML's `construct_yaml_bool`: the YAML 1.1 words, any case.
fn construct_bool(raw: &str, at: Pos) -> Result<Value, YamlError> {
    match raw.to_lowercase().as_str() {
        "yes" | "true" | "on" => Ok(Value::Bool(true)),
        "no" | "false" | "off" => Ok(Value::Bool(false)),
        _ => Err(value_error(format!("not a YAML boolean: '{raw}'"), at)),
    }
}

/// `!!binary`: base64 (characters outside the alphabet are skipped, as
/// Python's `base64.decodebytes` does). The bytes must be UTF-8 text, as the
/// value model has no byte strings.
fn construct_binary(raw: &str, at: Pos) -> Result<Value, YamlError> {
    let mut bits: u32 = 0;
    let mut nbits = 0;
    let mut count = 0usize;
    let mut out = Vec::with_capacity(raw.len() / 4 * 3);
    for b in raw.bytes() {
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
        bits = (bits << 6) | v as u32;
        nbits += 6;
        if nbits >= 8 {
            nbits -= 8;
            out.push((bits >> nbits) as u8);
            bits &= (1 << nbits) - 1;
        }
    }
    if count % 4 == 1 {
        return Err(value_error(
            "failed to convert base64 data: Incorrect padding".into(),
            at,
        ));
    }
    String::from_utf8(out).map(Value::Str).map_err(|_| {
        value_error(
            "!!binary data is not UTF-8 text, which brine cannot hold".into(),
            at,
        )
    })
}

// ---------------------------------------------------------------------------
// Composer: events -> node graph
// ---------------------------------------------------------------------------

type NodeId = usize;

#[derive(Debug)]
enum Body<'a> {
    Scalar(Cow<'a, str>),
    Seq(Vec<NodeId>),
    Map(Vec<(NodeId, NodeId)>),
}

impl Body<'_> {
    /// PyYAML's `node.id`, used in its messages.
    fn id(&self) -> &'static str {
        match self {
            Body::Scalar(_) => "scalar",
            Body::Seq(_) => "sequence",
            Body::Map(_) => "mapping",
        }
    }
}

#[derive(Debug)]
struct Node<'a> {
    body: Body<'a>,
    kind: Kind,
    pos: Pos,
}

struct Document<'a> {
    nodes: Vec<Node<'a>>,
    root: NodeId,
}

/// An open collection while composing.
enum Frame {
    Seq(NodeId, Vec<NodeId>),
    Map(NodeId, Vec<(NodeId, NodeId)>, Option<NodeId>),
}

fn tag_text(tag: &Tag) -> String {
    // saphyr splits `!foo` into ("!", "foo"), `!!str` into the expanded
    // prefix and "str", a verbatim `!<x>` into ("", "x") and the
    // non-specific `!` into ("", "!"): concatenating gives the full tag.
    format!("{}{}", tag.handle, tag.suffix)
}

fn collection_kind(tag: Option<&Tag>, default: Kind) -> Kind {
    match tag.map(tag_text) {
        None => default,
        Some(t) if t == "!" => default,
        Some(t) => Kind::from_tag(&t),
    }
}

fn scalar_kind(value: &str, style: ScalarStyle, tag: Option<&Tag>) -> Kind {
    match tag.map(tag_text) {
        None if style == ScalarStyle::Plain => resolve_plain(value),
        None => Kind::Str,
        // libyaml treats the non-specific `!` as "resolve like a plain
        // scalar", even on quoted text; but a `!` with no content at all is
        // an empty string.
        Some(t) if t == "!" && value.is_empty() && style == ScalarStyle::Plain => Kind::Str,
        Some(t) if t == "!" => resolve_plain(value),
        Some(t) => Kind::from_tag(&t),
    }
}

/// Maps the parser's character positions to byte offsets in the text.
struct Offsets<'a> {
    text: &'a str,
    /// Byte offset of every character; only built for non-ASCII text, and
    /// only once a position is asked for.
    table: Option<Vec<usize>>,
}

impl<'a> Offsets<'a> {
    fn new(text: &'a str) -> Self {
        Offsets { text, table: None }
    }

    fn byte(&mut self, char_index: usize) -> Option<usize> {
        if self.table.is_none() {
            if self.text.is_ascii() {
                return (char_index <= self.text.len()).then_some(char_index);
            }
            self.table = Some(self.text.char_indices().map(|(b, _)| b).collect());
        }
        let table = self.table.as_ref()?;
        table
            .get(char_index)
            .copied()
            .or((char_index == table.len()).then_some(self.text.len()))
    }
}

/// The anchor (or alias) name among the node properties (`&name`, `!tag`)
/// starting at byte `at`, with its byte offset. saphyr only reports anchors
/// by number, and Salt (libyaml) refuses a name defined twice.
fn anchor_name(text: &str, at: usize, sigil: char) -> Option<(&str, usize)> {
    let mut rest = text.get(at..)?;
    loop {
        rest = rest.trim_start_matches([' ', '\t', '\r', '\n']);
        if let Some(after) = rest.strip_prefix(sigil) {
            let end = after
                .find(|c: char| c.is_whitespace() || ",[]{}".contains(c))
                .unwrap_or(after.len());
            let offset = text.len() - after.len();
            return Some((after.get(..end)?, offset));
        }
        if rest.starts_with("!<") {
            rest = rest.get(rest.find('>')? + 1..)?;
        } else if rest.starts_with('!') {
            rest = rest.get(rest.find(char::is_whitespace)?..)?;
        } else {
            return None;
        }
    }
}

struct Composer<'a> {
    nodes: Vec<Node<'a>>,
    frames: Vec<Frame>,
    anchors: HashMap<usize, NodeId>,
    anchor_names: HashMap<&'a str, Pos>,
    offsets: Offsets<'a>,
    root: Option<NodeId>,
}

impl<'a> Composer<'a> {
    /// Check an anchor or alias name the way libyaml scans it.
    fn libyaml_name(&mut self, span: &Span, sigil: char) -> Result<Option<&'a str>, ComposeError> {
        let text = self.offsets.text;
        let Some((name, at)) = self
            .offsets
            .byte(span.start.index())
            .and_then(|b| anchor_name(text, b, sigil))
        else {
            return Ok(None);
        };
        // libyaml names are `[0-9A-Za-z_-]+` and may be followed directly by
        // `:` (so `&x:` anchors an empty key) or a few other indicators;
        // YAML 1.2 (saphyr) takes those characters into the name.
        let Some(cut) = name.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '-'))
        else {
            return Ok(Some(name));
        };
        let next = name.get(cut..).and_then(|r| r.chars().next());
        if cut > 0 && next.is_some_and(|c| "?:,]}%@`".contains(c)) {
            let split = at + cut;
            let patched = format!(
                "{} {}",
                text.get(..split).unwrap_or(text),
                text.get(split..).unwrap_or("")
            );
            return Err(ComposeError::Retry(patched));
        }
        let what = if sigil == '&' {
            "an anchor"
        } else {
            "an alias"
        };
        let mut e = YamlError::new(
            YamlErrorKind::Syntax,
            "did not find expected alphabetic or numeric character",
            pos_of_byte(text, at + cut),
        );
        e.context = Some((
            format!("while scanning {what}"),
            Pos::of(span).line,
            Pos::of(span).column,
        ));
        Err(e.into())
    }

    fn add(
        &mut self,
        body: Body<'a>,
        kind: Kind,
        span: &Span,
        anchor: usize,
    ) -> Result<NodeId, ComposeError> {
        let pos = Pos::of(span);
        if anchor != 0 {
            if let Some(name) = self.libyaml_name(span, '&')? {
                if let Some(first) = self.anchor_names.insert(name, pos) {
                    return Err(
                        YamlError::new(YamlErrorKind::Composer, "second occurrence", pos)
                            .with_context("found duplicate anchor; first occurrence", first)
                            .into(),
                    );
                }
            }
        }
        let id = self.nodes.len();
        self.nodes.push(Node { body, kind, pos });
        if anchor != 0 {
            self.anchors.insert(anchor, id);
        }
        Ok(id)
    }

    /// Hang a finished node on the innermost open collection.
    fn attach(&mut self, id: NodeId) {
        match self.frames.last_mut() {
            None => self.root = Some(id),
            Some(Frame::Seq(_, items)) => items.push(id),
            Some(Frame::Map(_, pairs, pending)) => match pending.take() {
                None => *pending = Some(id),
                Some(k) => pairs.push((k, id)),
            },
        }
    }

    fn open(&mut self, frame: Frame, pos: Pos) -> Result<(), YamlError> {
        if self.frames.len() >= MAX_DEPTH {
            return Err(YamlError::new(
                YamlErrorKind::Composer,
                format!("nesting deeper than {MAX_DEPTH} levels"),
                pos,
            ));
        }
        self.frames.push(frame);
        Ok(())
    }

    fn close(&mut self) {
        let (id, body) = match self.frames.pop() {
            Some(Frame::Seq(id, items)) => (id, Body::Seq(items)),
            // A key without value cannot reach here: the parser always
            // emits a (possibly empty) value scalar.
            Some(Frame::Map(id, pairs, _)) => (id, Body::Map(pairs)),
            None => return,
        };
        if let Some(node) = self.nodes.get_mut(id) {
            node.body = body;
        }
        self.attach(id);
    }
}

/// Why composing stopped.
enum ComposeError {
    Yaml(YamlError),
    /// Parse this patched text instead: a spot where saphyr (YAML 1.2) and
    /// libyaml (YAML 1.1, what Salt uses) read the text differently was
    /// rewritten into a form both read the libyaml way.
    Retry(String),
}

impl From<YamlError> for ComposeError {
    fn from(e: YamlError) -> Self {
        ComposeError::Yaml(e)
    }
}

const SAPHYR_TAB_AFTER_COLON: &str = "':' must be followed by a valid YAML whitespace";

/// Parse `text` into the node graph of its single document, or `None` when
/// the stream holds no document at all.
fn compose(text: &str) -> Result<Option<Document<'_>>, ComposeError> {
    let mut parser = Parser::new_from_str(text);
    let mut c = Composer {
        nodes: Vec::new(),
        frames: Vec::new(),
        anchors: HashMap::new(),
        anchor_names: HashMap::new(),
        offsets: Offsets::new(text),
        root: None,
    };
    let mut documents = 0;
    while let Some(next) = parser.next_event() {
        let (event, span) = match next {
            Ok(ok) => ok,
            // saphyr refuses `key:<TAB>value`; libyaml accepts the tab as
            // separation.
            Err(e) if e.info() == SAPHYR_TAB_AFTER_COLON => {
                return match c
                    .offsets
                    .byte(e.marker().index())
                    .and_then(|b| untab_separator(text, b))
                {
                    Some(patched) => Err(ComposeError::Retry(patched)),
                    None => Err(YamlError::from_scan(&e).into()),
                }
            }
            // saphyr checks aliases itself; say it the way PyYAML does.
            Err(e) if e.info() == "while parsing node, found unknown anchor" => {
                let at = e.marker();
                let pos = Pos {
                    line: at.line().max(1),
                    column: at.col() + 1,
                };
                return Err(
                    YamlError::new(YamlErrorKind::Composer, "found undefined alias", pos).into(),
                );
            }
            Err(e) => return Err(YamlError::from_scan(&e).into()),
        };
        let pos = Pos::of(&span);
        match event {
            Event::DocumentStart(_) => {
                documents += 1;
                if documents > 1 {
                    let first = c.root.and_then(|r| c.nodes.get(r)).map_or(pos, |n| n.pos);
                    return Err(YamlError::new(
                        YamlErrorKind::Composer,
                        "but found another document",
                        pos,
                    )
                    .with_context("expected a single document in the stream", first)
                    .into());
                }
            }
            Event::Scalar(value, style, anchor, tag) => {
                let kind = scalar_kind(&value, style, tag.as_deref());
                let id = c.add(Body::Scalar(value), kind, &span, anchor)?;
                c.attach(id);
            }
            Event::SequenceStart(anchor, tag) => {
                let kind = collection_kind(tag.as_deref(), Kind::Seq);
                let id = c.add(Body::Seq(Vec::new()), kind, &span, anchor)?;
                c.open(Frame::Seq(id, Vec::new()), pos)?;
            }
            Event::MappingStart(anchor, tag) => {
                let kind = collection_kind(tag.as_deref(), Kind::Map);
                let id = c.add(Body::Map(Vec::new()), kind, &span, anchor)?;
                c.open(Frame::Map(id, Vec::new(), None), pos)?;
            }
            Event::SequenceEnd | Event::MappingEnd => c.close(),
            Event::Alias(anchor) => {
                match c.libyaml_name(&span, '*').map(|_| c.anchors.get(&anchor))? {
                    Some(&id) => c.attach(id),
                    None => {
                        return Err(YamlError::new(
                            YamlErrorKind::Composer,
                            "found undefined alias",
                            pos,
                        )
                        .into())
                    }
                }
            }
            Event::StreamStart | Event::StreamEnd | Event::DocumentEnd | Event::Nothing => {}
        }
    }
    Ok(c.root.map(|root| Document {
        nodes: c.nodes,
        root,
    }))
}

/// The text with the tabs between a `:` and the value starting at byte
/// `value_at` turned into spaces, or `None` if there were none to turn.
fn untab_separator(text: &str, value_at: usize) -> Option<String> {
    let head = text.get(..value_at)?;
    let sep_start = head.trim_end_matches([' ', '\t']).len();
    let sep = head.get(sep_start..)?;
    if !sep.contains('\t') {
        return None;
    }
    let mut out = String::with_capacity(text.len());
    out.push_str(head.get(..sep_start)?);
    out.push_str(&sep.replace('\t', " "));
    out.push_str(text.get(value_at..)?);
    Some(out)
}

/// The 1-based line and column of byte `at`.
fn pos_of_byte(text: &str, at: usize) -> Pos {
    let before = text.get(..at).unwrap_or(text);
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let column = before.get(line_start..).map_or(0, |l| l.chars().count()) + 1;
    Pos { line, column }
}

/// libyaml's reader refuses control characters anywhere in the stream.
fn check_characters(text: &str) -> Result<(), YamlError> {
    let allowed = |c: char| matches!(c as u32, 0x09 | 0x0A | 0x0D | 0x20..=0x7E | 0x85 | 0xA0..=0xD7FF | 0xE000..=0xFFFD | 0x10000..=0x10FFFF);
    if let Some((at, c)) = text.char_indices().find(|&(_, c)| !allowed(c)) {
        return Err(YamlError::new(
            YamlErrorKind::Syntax,
            format!(
                "unacceptable character #x{:04x}: control characters are not allowed",
                c as u32
            ),
            pos_of_byte(text, at),
        ));
    }
    Ok(())
}

// ---------------------------------------------------------------------------
// Constructor: node graph -> Value
// ---------------------------------------------------------------------------

/// What a key node is compared by when Salt drops merged keys that the
/// mapping sets itself: the raw scalar text (so `1` and `"1"` count as the
/// same), or node identity for collections.
#[derive(PartialEq, Eq, Hash)]
enum RawKey<'x> {
    Text(&'x str),
    Node(NodeId),
}

/// Python equality class of a non-string key (`1 == 1.0 == True`).
#[derive(PartialEq, Eq, Hash)]
enum NumKey {
    Null,
    Int(i64),
    Float(u64),
}

impl NumKey {
    fn of(v: &Value) -> Option<NumKey> {
        match v {
            Value::Null => Some(NumKey::Null),
            Value::Bool(b) => Some(NumKey::Int(*b as i64)),
            Value::Int(i) => Some(NumKey::Int(*i)),
            Value::Float(f) => {
                if f.fract() == 0.0 && *f >= -9.2e18 && *f <= 9.2e18 {
                    Some(NumKey::Int(*f as i64))
                } else if f.is_nan() {
                    // PyYAML hands out one shared NaN object, and dict
                    // lookups match by identity first: two `.nan` keys clash.
                    Some(NumKey::Float(f64::NAN.to_bits()))
                } else {
                    Some(NumKey::Float(f.to_bits()))
                }
            }
            _ => None,
        }
    }
}

struct Constructor<'n, 'a> {
    nodes: &'n [Node<'a>],
    /// Nodes being constructed right now, to refuse recursive structures.
    active: Vec<bool>,
    /// Mappings whose merge keys are being resolved right now.
    flattening: Vec<bool>,
    built: usize,
    budget: usize,
}

const MAPPING_CTX: &str = "while constructing a mapping";

impl<'n, 'a> Constructor<'n, 'a> {
    fn new(nodes: &'n [Node<'a>]) -> Self {
        Constructor {
            nodes,
            active: vec![false; nodes.len()],
            flattening: vec![false; nodes.len()],
            built: 0,
            budget: nodes.len().saturating_add(MAX_ALIAS_EXPANSION),
        }
    }

    fn node(&self, id: NodeId) -> Result<&'n Node<'a>, YamlError> {
        self.nodes.get(id).ok_or_else(|| {
            YamlError::new(
                YamlErrorKind::Composer,
                "internal error: dangling node",
                Pos { line: 1, column: 1 },
            )
        })
    }

    /// Build the value of node `id`. The recursive path (this function,
    /// `construct_seq`, `construct_mapping`) keeps small stack frames:
    /// everything else lives in helpers called once per node.
    fn construct(&mut self, id: NodeId, depth: usize) -> Result<Value, YamlError> {
        let node = self.enter(id, depth)?;
        let result = match (&node.body, &node.kind) {
            (Body::Seq(items), Kind::Seq) => self.construct_seq(items, depth),
            (Body::Map(_), Kind::Map | Kind::Omap) => {
                self.construct_mapping(id, depth).map(Value::Map)
            }
            _ => self.construct_other(id, node, depth),
        };
        if let Some(a) = self.active.get_mut(id) {
            *a = false;
        }
        result
    }

    /// The checks before building a node: depth, alias expansion budget,
    /// recursion; marks the node as being built.
    fn enter(&mut self, id: NodeId, depth: usize) -> Result<&'n Node<'a>, YamlError> {
        let node = self.node(id)?;
        if depth > MAX_DEPTH {
            return Err(YamlError::constructor(
                format!("nesting deeper than {MAX_DEPTH} levels"),
                node.pos,
            ));
        }
        self.built += 1;
        if self.built > self.budget {
            return Err(YamlError::constructor(
                "aliases expand to too many values",
                node.pos,
            ));
        }
        match self.active.get_mut(id) {
            Some(true) => Err(YamlError::constructor(
                "found unconstructable recursive node",
                node.pos,
            )),
            Some(a) => {
                *a = true;
                Ok(node)
            }
            None => Ok(node),
        }
    }

    fn construct_seq(&mut self, items: &[NodeId], depth: usize) -> Result<Value, YamlError> {
        let mut out = Vec::with_capacity(items.len());
        for &item in items {
            out.push(self.construct(item, depth + 1)?);
        }
        Ok(Value::List(out))
    }

    /// Scalars, `!!pairs`, `!!set`, and the node/tag mismatches.
    fn construct_other(
        &mut self,
        id: NodeId,
        node: &'n Node<'a>,
        depth: usize,
    ) -> Result<Value, YamlError> {
        let at = node.pos;
        let no_constructor = |tag: &str| {
            YamlError::constructor(
                format!("could not determine a constructor for the tag '{tag}'"),
                at,
            )
        };
        let mismatch = |msg: &str| YamlError::constructor(msg, at);
        match (&node.body, &node.kind) {
            (_, Kind::Merge) => Err(no_constructor("tag:yaml.org,2002:merge")),
            (_, Kind::ValueKey) => Err(no_constructor("tag:yaml.org,2002:value")),
            (_, Kind::Unknown(tag)) => Err(no_constructor(tag)),

            (Body::Scalar(text), kind) => match kind {
                // Salt constructs timestamps as their plain text.
                Kind::Str | Kind::Timestamp => Ok(Value::Str(text.to_string())),
                Kind::Null => Ok(Value::Null),
                Kind::Bool => construct_bool(text, at),
                Kind::Int => construct_int(text, at),
                Kind::Float => construct_float(text, at),
                Kind::Binary => construct_binary(text, at),
                Kind::Seq => Err(mismatch("expected a sequence node, but found scalar")),
                Kind::Pairs => Err(mismatch("expected a sequence, but found scalar")
                    .with_context("while constructing pairs", at)),
                _ => Err(mismatch("expected a mapping node, but found scalar")),
            },

            (Body::Seq(items), kind) => match kind {
                Kind::Seq => self.construct_seq(items, depth),
                Kind::Pairs => self.construct_pairs(node, items, depth),
                Kind::Map | Kind::Omap | Kind::Set => {
                    Err(mismatch("expected a mapping node, but found sequence"))
                }
                _ => Err(mismatch("expected a scalar node, but found sequence")),
            },

            (Body::Map(_), kind) => match kind {
                Kind::Map | Kind::Omap => self.construct_mapping(id, depth).map(Value::Map),
                // A Python set has no JSON form; keep its members in file
                // order.
                Kind::Set => Ok(Value::List(
                    self.construct_mapping(id, depth)?
                        .into_keys()
                        .map(Value::Str)
                        .collect(),
                )),
                Kind::Seq => Err(mismatch("expected a sequence node, but found mapping")),
                Kind::Pairs => Err(mismatch("expected a sequence, but found mapping")
                    .with_context("while constructing pairs", at)),
                _ => Err(mismatch("expected a scalar node, but found mapping")),
            },
        }
    }

    /// `!!pairs`: a list of one-item mappings, kept as `[key, value]` lists.
    fn construct_pairs(
        &mut self,
        node: &Node<'a>,
        items: &[NodeId],
        depth: usize,
    ) -> Result<Value, YamlError> {
        let mut out = Vec::with_capacity(items.len());
        for &item in items {
            let sub = self.node(item)?;
            let Body::Map(pairs) = &sub.body else {
                return Err(YamlError::constructor(
                    format!(
                        "expected a mapping of length 1, but found {}",
                        sub.body.id()
                    ),
                    sub.pos,
                )
                .with_context("while constructing pairs", node.pos));
            };
            let [(k, v)] = pairs.as_slice() else {
                return Err(YamlError::constructor(
                    format!(
                        "expected a single mapping item, but found {} items",
                        pairs.len()
                    ),
                    sub.pos,
                )
                .with_context("while constructing pairs", node.pos));
            };
            let key = self.construct(*k, depth + 1)?;
            let value = self.construct(*v, depth + 1)?;
            out.push(Value::List(vec![key, value]));
        }
        Ok(Value::List(out))
    }

    /// Salt's `flatten_mapping`: resolve `<<` merge keys into the list of
    /// (key, value) node pairs the mapping is built from. Merged pairs come
    /// first (from a list of merges, the last listed first); merged keys the
    /// mapping sets itself are dropped, but clashes between merged mappings
    /// are left for the duplicate-key check.
    fn flatten(
        &mut self,
        id: NodeId,
        depth: usize,
    ) -> Result<Cow<'n, [(NodeId, NodeId)]>, YamlError> {
        let nodes = self.nodes;
        let node = self.node(id)?;
        let Body::Map(pairs) = &node.body else {
            return Ok(Cow::Owned(Vec::new()));
        };
        let is_merge = |k: &NodeId| nodes.get(*k).is_some_and(|n| n.kind == Kind::Merge);
        if !pairs.iter().any(|(k, _)| is_merge(k)) {
            return Ok(Cow::Borrowed(pairs));
        }
        if self.flattening.get(id).copied().unwrap_or(false) {
            // A mapping merging itself: Salt deletes each merge key from the
            // node before following it, so the inner visit sees the mapping
            // without its merge keys.
            return Ok(Cow::Owned(
                pairs
                    .iter()
                    .copied()
                    .filter(|(k, _)| !is_merge(k))
                    .collect(),
            ));
        }
        if let Some(f) = self.flattening.get_mut(id) {
            *f = true;
        }
        let result = self.flatten_merges(node, pairs, depth);
        if let Some(f) = self.flattening.get_mut(id) {
            *f = false;
        }
        result
    }

    fn flatten_merges(
        &mut self,
        node: &'n Node<'a>,
        pairs: &'n [(NodeId, NodeId)],
        depth: usize,
    ) -> Result<Cow<'n, [(NodeId, NodeId)]>, YamlError> {
        let nodes = self.nodes;
        let is_merge = |k: &NodeId| nodes.get(*k).is_some_and(|n| n.kind == Kind::Merge);
        if depth > MAX_DEPTH {
            return Err(YamlError::constructor(
                format!("nesting deeper than {MAX_DEPTH} levels"),
                node.pos,
            ));
        }
        let mut merged: Vec<(NodeId, NodeId)> = Vec::new();
        let mut own: Vec<(NodeId, NodeId)> = Vec::with_capacity(pairs.len());
        for &(k, v) in pairs {
            if !is_merge(&k) {
                own.push((k, v));
                continue;
            }
            let value = self.node(v)?;
            match &value.body {
                Body::Map(_) => merged.extend_from_slice(&self.flatten(v, depth + 1)?),
                Body::Seq(items) => {
                    let mut each = Vec::with_capacity(items.len());
                    for &item in items {
                        let sub = self.node(item)?;
                        if !matches!(sub.body, Body::Map(_)) {
                            return Err(YamlError::constructor(
                                format!(
                                    "expected a mapping for merging, but found {}",
                                    sub.body.id()
                                ),
                                sub.pos,
                            )
                            .with_context(MAPPING_CTX, node.pos));
                        }
                        each.push(self.flatten(item, depth + 1)?);
                    }
                    for pairs in each.iter().rev() {
                        merged.extend_from_slice(pairs);
                    }
                }
                Body::Scalar(_) => {
                    return Err(YamlError::constructor(
                        "expected a mapping or list of mappings for merging, but found scalar",
                        value.pos,
                    )
                    .with_context(MAPPING_CTX, node.pos))
                }
            }
        }
        let raw = |k: NodeId| match nodes.get(k).map(|n| &n.body) {
            Some(Body::Scalar(text)) => RawKey::Text(text),
            _ => RawKey::Node(k),
        };
        let existing: HashSet<RawKey<'_>> = own.iter().map(|&(k, _)| raw(k)).collect();
        merged.retain(|&(k, _)| !existing.contains(&raw(k)));
        merged.extend(own);
        Ok(Cow::Owned(merged))
    }

    /// Salt's `construct_mapping`: ordered, merge keys applied, duplicate
    /// keys (by Python equality) rejected.
    fn construct_mapping(&mut self, id: NodeId, depth: usize) -> Result<Map, YamlError> {
        let pairs = self.flatten(id, depth)?;
        let mut keys = KeyTracker::with_capacity(pairs.len());
        for &(k, v) in pairs.iter() {
            let key = self.construct_key(id, k, depth)?;
            let value = self.construct(v, depth + 1)?;
            if let Err(key) = keys.insert(key, value) {
                return Err(self.conflict(id, k, &key));
            }
        }
        Ok(keys.map)
    }

    /// A mapping key: Salt reads a `=` key as the string "=", and a
    /// collection cannot be a key (Python cannot hash it).
    fn construct_key(
        &mut self,
        map_id: NodeId,
        k: NodeId,
        depth: usize,
    ) -> Result<Value, YamlError> {
        let key_node = self.node(k)?;
        let key = match (&key_node.kind, &key_node.body) {
            (Kind::ValueKey, Body::Scalar(text)) => Value::Str(text.to_string()),
            _ => self.construct(k, depth + 1)?,
        };
        if matches!(key, Value::List(_) | Value::Map(_)) {
            let map_pos = self.node(map_id)?.pos;
            return Err(
                YamlError::constructor("found unacceptable key", key_node.pos)
                    .with_context(MAPPING_CTX, map_pos),
            );
        }
        Ok(key)
    }

    fn conflict(&self, map_id: NodeId, k: NodeId, key: &Value) -> YamlError {
        let pos = |id: NodeId| {
            self.nodes
                .get(id)
                .map_or(Pos { line: 1, column: 1 }, |n| n.pos)
        };
        YamlError::constructor(
            format!("found conflicting ID '{}'", key.to_python_str()),
            pos(k),
        )
        .with_context(MAPPING_CTX, pos(map_id))
    }
}

/// A mapping being built, with what Python's dict needs to tell duplicate
/// keys apart: `1`, `1.0` and `True` are one key, `1` and `"1"` are two
/// (though both are stored under the text "1").
struct KeyTracker {
    map: Map,
    /// Per entry: bit 1 = set by a string key, bit 2 = by another type.
    origin: Vec<u8>,
    numeric: HashSet<NumKey>,
}

impl KeyTracker {
    fn with_capacity(n: usize) -> Self {
        KeyTracker {
            map: Map::with_capacity(n),
            origin: Vec::with_capacity(n),
            numeric: HashSet::new(),
        }
    }

    /// Insert, or give the key back when Python would see a duplicate.
    fn insert(&mut self, key: Value, value: Value) -> Result<(), Value> {
        let (text, bit) = match key {
            Value::Str(s) => {
                let taken = self
                    .map
                    .get_index_of(s.as_str())
                    .and_then(|i| self.origin.get(i));
                if taken.is_some_and(|o| o & 1 != 0) {
                    return Err(Value::Str(s));
                }
                (s, 1)
            }
            other => {
                if let Some(nk) = NumKey::of(&other) {
                    if !self.numeric.insert(nk) {
                        return Err(other);
                    }
                }
                (key_string(&other), 2)
            }
        };
        let (index, _) = self.map.insert_full(text, value);
        match self.origin.get_mut(index) {
            Some(o) => *o |= bit,
            None => self.origin.push(bit),
        }
        Ok(())
    }
}

/// Load one YAML document the way Salt's `SaltYamlSafeLoader` does.
/// An empty document is `Value::Null`.
pub fn load(text: &str) -> Result<Value, YamlError> {
    check_characters(text)?;
    let mut patched: Option<String> = None;
    for _ in 0..MAX_REPARSES {
        let src = patched.as_deref().unwrap_or(text);
        match compose(src) {
            Ok(None) => return Ok(Value::Null),
            Ok(Some(doc)) => return Constructor::new(&doc.nodes).construct(doc.root, 0),
            Err(ComposeError::Yaml(e)) => return Err(e),
            // Each retry removes one spot saphyr reads differently, and
            // no patch creates a new one, so this ends.
            Err(ComposeError::Retry(fixed)) => patched = Some(fixed),
        }
    }
    Err(YamlError::new(
        YamlErrorKind::Syntax,
        "too many tab separators or anchor names needing YAML 1.1 treatment",
        Pos { line: 1, column: 1 },
    ))
}

// ---------------------------------------------------------------------------
// Dumper: what `salt.utils.yaml.safe_dump` writes (PyYAML representers,
// libyaml emitter, allow_unicode=True, indent 2, width 80)
// ---------------------------------------------------------------------------

/// How [`dump_with`] writes a value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DumpOptions {
    /// Collections in flow style (`{a: [1, 2]}`) rather than block style
    /// (PyYAML's `default_flow_style`).
    pub flow_style: bool,
    /// Mapping keys in sorted order, as PyYAML writes a plain `dict`
    /// (`sort_keys=True`, the default). Salt hands the outputter plain dicts
    /// for pillar and most returns, so this is what `--out yaml` shows.
    pub sort_keys: bool,
}

impl Default for DumpOptions {
    fn default() -> Self {
        DumpOptions {
            flow_style: false,
            sort_keys: true,
        }
    }
}

/// libyaml's `IS_PRINTABLE` (note: no characters beyond U+FFFF, so emoji
/// force double quotes).
fn is_printable(c: char) -> bool {
    matches!(c as u32, 0x0A | 0x20..=0x7E | 0xA0..=0xD7FF | 0xE000..=0xFFFD) && c != '\u{FEFF}'
}

fn is_break(c: char) -> bool {
    matches!(c, '\r' | '\n' | '\u{85}' | '\u{2028}' | '\u{2029}')
}

fn is_blankz(c: Option<char>) -> bool {
    match c {
        None | Some('\0') | Some(' ') | Some('\t') => true,
        Some(c) => is_break(c),
    }
}

/// libyaml's `yaml_emitter_analyze_scalar`: which styles can hold `text`.
#[derive(Debug, Clone, Copy)]
struct Analysis {
    empty: bool,
    multiline: bool,
    flow_plain: bool,
    block_plain: bool,
    single_quoted: bool,
}

fn analyze_scalar(text: &str) -> Analysis {
    if text.is_empty() {
        return Analysis {
            empty: true,
            multiline: false,
            flow_plain: false,
            block_plain: true,
            single_quoted: true,
        };
    }
    let mut block_indicators = text.starts_with("---") || text.starts_with("...");
    let mut flow_indicators = block_indicators;
    let (mut line_breaks, mut special) = (false, false);
    let (mut leading_space, mut leading_break, mut trailing_space, mut trailing_break) =
        (false, false, false, false);
    let (mut break_space, mut space_break) = (false, false);
    let (mut previous_space, mut previous_break) = (false, false);
    let mut preceded_by_whitespace = true;
    let mut chars = text.chars().peekable();
    let mut first = true;
    while let Some(c) = chars.next() {
        let next = chars.peek().copied();
        let followed_by_whitespace = is_blankz(next);
        let last = next.is_none();
        if first {
            if "#,[]{}&*!|>'\"%@`".contains(c) {
                flow_indicators = true;
                block_indicators = true;
            }
            if c == '?' || c == ':' {
                flow_indicators = true;
                if followed_by_whitespace {
                    block_indicators = true;
                }
            }
            if c == '-' && followed_by_whitespace {
                flow_indicators = true;
                block_indicators = true;
            }
        } else {
            if ",?[]{}".contains(c) {
                flow_indicators = true;
            }
            if c == ':' {
                flow_indicators = true;
                if followed_by_whitespace {
                    block_indicators = true;
                }
            }
            if c == '#' && preceded_by_whitespace {
                flow_indicators = true;
                block_indicators = true;
            }
        }
        if !is_printable(c) {
            special = true;
        }
        if is_break(c) {
            line_breaks = true;
        }
        if c == ' ' {
            leading_space |= first;
            trailing_space |= last;
            break_space |= previous_break;
            previous_space = true;
            previous_break = false;
        } else if is_break(c) {
            leading_break |= first;
            trailing_break |= last;
            space_break |= previous_space;
            previous_space = false;
            previous_break = true;
        } else {
            previous_space = false;
            previous_break = false;
        }
        preceded_by_whitespace = is_blankz(Some(c));
        first = false;
    }
    let mut a = Analysis {
        empty: false,
        multiline: line_breaks,
        flow_plain: true,
        block_plain: true,
        single_quoted: true,
    };
    if leading_space || leading_break || trailing_space || trailing_break {
        a.flow_plain = false;
        a.block_plain = false;
    }
    if break_space {
        a.flow_plain = false;
        a.block_plain = false;
        a.single_quoted = false;
    }
    if space_break || special {
        a.flow_plain = false;
        a.block_plain = false;
        a.single_quoted = false;
    }
    if line_breaks {
        a.flow_plain = false;
        a.block_plain = false;
    }
    if flow_indicators {
        a.flow_plain = false;
    }
    if block_indicators {
        a.block_plain = false;
    }
    a
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Style {
    Plain,
    Single,
    Double,
}

/// PyYAML's `represent_float`.
fn represent_float(f: f64) -> String {
    if f.is_nan() {
        ".nan".into()
    } else if f == f64::INFINITY {
        ".inf".into()
    } else if f == f64::NEG_INFINITY {
        "-.inf".into()
    } else {
        let r = python_float_repr(f).to_lowercase();
        // `1e+17` would not read back as a float: write `1.0e+17`.
        if !r.contains('.') && r.contains('e') {
            r.replacen('e', ".0e", 1)
        } else {
            r
        }
    }
}

/// A scalar's text and whether it may be written plain (its plain form
/// resolves back to its own type).
fn scalar_text(v: &Value) -> Option<(Cow<'_, str>, bool)> {
    Some(match v {
        Value::Null => (Cow::Borrowed("null"), true),
        Value::Bool(true) => (Cow::Borrowed("true"), true),
        Value::Bool(false) => (Cow::Borrowed("false"), true),
        Value::Int(i) => (Cow::Owned(i.to_string()), true),
        Value::Float(f) => (Cow::Owned(represent_float(*f)), true),
        Value::Str(s) => (Cow::Borrowed(s.as_str()), plain_is_str(s)),
        Value::List(_) | Value::Map(_) => return None,
    })
}

/// Whether PyYAML's dumper resolver reads `s` written plain as a string.
fn plain_is_str(s: &str) -> bool {
    // `!`, `&`, `*` alone resolve to the `yaml` tag; they are indicators
    // and get quoted anyway.
    resolve_plain(s) == Kind::Str
}

struct Emitter<'o> {
    out: String,
    opts: &'o DumpOptions,
    column: usize,
    indent: isize,
    indents: Vec<isize>,
    flow_level: usize,
    whitespace: bool,
    indention: bool,
    mapping_context: bool,
    simple_key_context: bool,
}

const BEST_INDENT: isize = 2;
const BEST_WIDTH: usize = 80;

impl<'o> Emitter<'o> {
    fn new(opts: &'o DumpOptions) -> Self {
        Emitter {
            out: String::new(),
            opts,
            column: 0,
            indent: -1,
            indents: Vec::new(),
            flow_level: 0,
            whitespace: true,
            indention: true,
            mapping_context: false,
            simple_key_context: false,
        }
    }

    fn put(&mut self, c: char) {
        self.out.push(c);
        self.column += 1;
    }

    fn put_break(&mut self) {
        self.out.push('\n');
        self.column = 0;
    }

    fn write_break(&mut self, c: char) {
        if c == '\n' {
            self.put_break();
        } else {
            self.out.push(c);
            self.column = 0;
        }
    }

    fn write_indicator(
        &mut self,
        indicator: &str,
        need_whitespace: bool,
        is_whitespace: bool,
        is_indention: bool,
    ) {
        if need_whitespace && !self.whitespace {
            self.put(' ');
        }
        for c in indicator.chars() {
            self.put(c);
        }
        self.whitespace = is_whitespace;
        self.indention = self.indention && is_indention;
    }

    fn write_indent(&mut self) {
        let indent = self.indent.max(0) as usize;
        if !self.indention || self.column > indent || (self.column == indent && !self.whitespace) {
            self.put_break();
        }
        while self.column < indent {
            self.put(' ');
        }
        self.whitespace = true;
        self.indention = true;
    }

    fn increase_indent(&mut self, flow: bool, indentless: bool) {
        self.indents.push(self.indent);
        if self.indent < 0 {
            self.indent = if flow { BEST_INDENT } else { 0 };
        } else if !indentless {
            self.indent += BEST_INDENT;
        }
    }

    fn pop_indent(&mut self) {
        self.indent = self.indents.pop().unwrap_or(-1);
    }

    fn document(mut self, value: &Value) -> String {
        self.node(value, false, false);
        // The implicit document end moves to a fresh line.
        self.write_indent();
        self.out
    }

    fn node(&mut self, value: &Value, mapping: bool, simple_key: bool) {
        self.mapping_context = mapping;
        self.simple_key_context = simple_key;
        match value {
            Value::List(items) => self.sequence(items),
            Value::Map(map) => self.mapping(map),
            scalar => {
                if let Some((text, plain_implicit)) = scalar_text(scalar) {
                    self.scalar(&text, plain_implicit);
                }
            }
        }
    }

    fn choose_style(&self, a: &Analysis, plain_implicit: bool) -> Style {
        let mut style = Style::Plain;
        if self.simple_key_context && a.multiline {
            style = Style::Double;
        }
        if style == Style::Plain {
            let flow = self.flow_level > 0;
            if (flow && !a.flow_plain) || (!flow && !a.block_plain) {
                style = Style::Single;
            }
            if a.empty && (flow || self.simple_key_context) {
                style = Style::Single;
            }
            if !plain_implicit {
                style = Style::Single;
            }
        }
        if style == Style::Single && !a.single_quoted {
            style = Style::Double;
        }
        style
    }

    fn scalar(&mut self, text: &str, plain_implicit: bool) {
        let analysis = analyze_scalar(text);
        let style = self.choose_style(&analysis, plain_implicit);
        let allow_breaks = !self.simple_key_context;
        self.increase_indent(true, false);
        match style {
            Style::Plain => self.write_plain(text, allow_breaks),
            Style::Single => self.write_single_quoted(text, allow_breaks),
            Style::Double => self.write_double_quoted(text, allow_breaks),
        }
        self.pop_indent();
    }

    fn write_plain(&mut self, text: &str, allow_breaks: bool) {
        if !self.whitespace {
            self.put(' ');
        }
        let (mut spaces, mut breaks) = (false, false);
        let mut chars = text.chars().peekable();
        while let Some(c) = chars.next() {
            let next = chars.peek().copied();
            if c == ' ' {
                if allow_breaks && !spaces && self.column > BEST_WIDTH && next != Some(' ') {
                    self.write_indent();
                } else {
                    self.put(c);
                }
                spaces = true;
            } else if is_break(c) {
                if !breaks && c == '\n' {
                    self.put_break();
                }
                self.write_break(c);
                self.indention = true;
                breaks = true;
            } else {
                if breaks {
                    self.write_indent();
                }
                self.put(c);
                self.indention = false;
                spaces = false;
                breaks = false;
            }
        }
        self.whitespace = false;
        self.indention = false;
    }

    fn write_single_quoted(&mut self, text: &str, allow_breaks: bool) {
        self.write_indicator("'", true, false, false);
        let (mut spaces, mut breaks) = (false, false);
        let mut chars = text.chars().peekable();
        let mut first = true;
        while let Some(c) = chars.next() {
            let next = chars.peek().copied();
            if c == ' ' {
                if allow_breaks
                    && !spaces
                    && self.column > BEST_WIDTH
                    && !first
                    && next.is_some()
                    && next != Some(' ')
                {
                    self.write_indent();
                } else {
                    self.put(c);
                }
                spaces = true;
            } else if is_break(c) {
                if !breaks && c == '\n' {
                    self.put_break();
                }
                self.write_break(c);
                self.indention = true;
                breaks = true;
            } else {
                if breaks {
                    self.write_indent();
                }
                if c == '\'' {
                    self.put('\'');
                }
                self.put(c);
                self.indention = false;
                spaces = false;
                breaks = false;
            }
            first = false;
        }
        if breaks {
            self.write_indent();
        }
        self.write_indicator("'", false, false, false);
        self.whitespace = false;
        self.indention = false;
    }

    fn write_double_quoted(&mut self, text: &str, allow_breaks: bool) {
        self.write_indicator("\"", true, false, false);
        let mut spaces = false;
        let mut chars = text.chars().peekable();
        let mut first = true;
        while let Some(c) = chars.next() {
            let next = chars.peek().copied();
            if !is_printable(c) || c == '\u{FEFF}' || is_break(c) || c == '"' || c == '\\' {
                for e in escape_char(c).chars() {
                    self.put(e);
                }
                spaces = false;
            } else if c == ' ' {
                if allow_breaks && !spaces && self.column > BEST_WIDTH && !first && next.is_some() {
                    self.write_indent();
                    if next == Some(' ') {
                        self.put('\\');
                    }
                } else {
                    self.put(c);
                }
                spaces = true;
            } else {
                self.put(c);
                spaces = false;
            }
            first = false;
        }
        self.write_indicator("\"", false, false, false);
        self.whitespace = false;
        self.indention = false;
    }

    /// libyaml's `check_simple_key` for a string key: one line, at most 128
    /// bytes.
    fn simple_key(key: &str) -> bool {
        !analyze_scalar(key).multiline && key.len() <= 128
    }

    fn sequence(&mut self, items: &[Value]) {
        if self.flow_level > 0 || self.opts.flow_style || items.is_empty() {
            self.write_indicator("[", true, true, false);
            self.increase_indent(true, false);
            self.flow_level += 1;
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    self.write_indicator(",", false, false, false);
                }
                if self.column > BEST_WIDTH {
                    self.write_indent();
                }
                self.node(item, false, false);
            }
            self.flow_level -= 1;
            self.pop_indent();
            self.write_indicator("]", false, false, false);
        } else {
            // Under a mapping key the dash sits at the key's own indent.
            let indentless = self.mapping_context && !self.indention;
            self.increase_indent(false, indentless);
            for item in items {
                self.write_indent();
                self.write_indicator("-", true, false, true);
                self.node(item, false, false);
            }
            self.pop_indent();
        }
    }

    fn mapping(&mut self, map: &Map) {
        let mut entries: Vec<(&String, &Value)> = map.iter().collect();
        if self.opts.sort_keys {
            entries.sort_by(|a, b| a.0.cmp(b.0));
        }
        if self.flow_level > 0 || self.opts.flow_style || entries.is_empty() {
            self.write_indicator("{", true, true, false);
            self.increase_indent(true, false);
            self.flow_level += 1;
            for (i, (k, v)) in entries.into_iter().enumerate() {
                if i > 0 {
                    self.write_indicator(",", false, false, false);
                }
                if self.column > BEST_WIDTH {
                    self.write_indent();
                }
                let key = Value::Str(k.clone());
                if Self::simple_key(k) {
                    self.node(&key, true, true);
                    self.write_indicator(":", false, false, false);
                } else {
                    self.write_indicator("?", true, false, false);
                    self.node(&key, true, false);
                    if self.column > BEST_WIDTH {
                        self.write_indent();
                    }
                    self.write_indicator(":", true, false, false);
                }
                self.node(v, true, false);
            }
            self.flow_level -= 1;
            self.pop_indent();
            self.write_indicator("}", false, false, false);
        } else {
            self.increase_indent(false, false);
            for (k, v) in entries {
                self.write_indent();
                let key = Value::Str(k.clone());
                if Self::simple_key(k) {
                    self.node(&key, true, true);
                    self.write_indicator(":", false, false, false);
                } else {
                    self.write_indicator("?", true, false, true);
                    self.node(&key, true, false);
                    self.write_indent();
                    self.write_indicator(":", true, false, true);
                }
                self.node(v, true, false);
            }
            self.pop_indent();
        }
    }
}

/// The double-quoted escape for `c` (libyaml and PyYAML agree).
fn escape_char(c: char) -> String {
    let short = match c {
        '\0' => "0",
        '\u{07}' => "a",
        '\u{08}' => "b",
        '\t' => "t",
        '\n' => "n",
        '\u{0B}' => "v",
        '\u{0C}' => "f",
        '\r' => "r",
        '\u{1B}' => "e",
        '"' => "\"",
        '\\' => "\\",
        '\u{85}' => "N",
        '\u{A0}' => "_",
        '\u{2028}' => "L",
        '\u{2029}' => "P",
        _ => "",
    };
    if !short.is_empty() {
        return format!("\\{short}");
    }
    match c as u32 {
        n @ 0..=0xFF => format!("\\x{n:02X}"),
        n @ 0x100..=0xFFFF => format!("\\u{n:04X}"),
        n => format!("\\U{n:08X}"),
    }
}

/// Dump as block-style YAML, the way `salt-call --out yaml` prints
/// (`salt.utils.yaml.safe_dump(data, default_flow_style=False)`: keys
/// sorted, lists flush under their key, ends with a newline).
pub fn dump(value: &Value) -> String {
    dump_with(value, &DumpOptions::default())
}

/// Dump in flow style (`{a: [1, 2], b: x}`), as
/// `salt.utils.yaml.safe_dump(data, default_flow_style=True)`.
pub fn dump_flow(value: &Value) -> String {
    dump_with(
        value,
        &DumpOptions {
            flow_style: true,
            ..DumpOptions::default()
        },
    )
}

/// Dump with explicit options; see [`DumpOptions`].
pub fn dump_with(value: &Value, opts: &DumpOptions) -> String {
    Emitter::new(opts).document(value)
}

// ---------------------------------------------------------------------------
// Jinja helpers (salt/utils/jinja.py and salt/utils/yamlencoding.py)
// ---------------------------------------------------------------------------

/// Salt's Jinja `yaml` filter (`{{ data|yaml }}`, `{{ data|yaml(False) }}`):
/// `safe_dump` in flow style by default, surrounding whitespace stripped.
pub fn format_yaml(value: &Value, flow_style: bool) -> String {
    let text = dump_with(
        value,
        &DumpOptions {
            flow_style,
            ..DumpOptions::default()
        },
    );
    let trimmed = text.trim();
    trimmed.strip_suffix("\n...").unwrap_or(trimmed).to_string()
}

/// `yaml_encode` was given a list or mapping.
#[derive(Debug, Clone, thiserror::Error)]
#[error("yaml_encode() only works with YAML scalar data; failed for <class '{type_name}'>")]
pub struct YamlEncodeError {
    pub type_name: &'static str,
}

/// Salt's Jinja `yaml_encode` filter: one scalar as YAML text (`true`,
/// `null`, `1.0e+17`, strings double-quoted by [`yaml_dquote`]).
pub fn yaml_encode(value: &Value) -> Result<String, YamlEncodeError> {
    match value {
        Value::Str(s) => Ok(yaml_dquote(s)),
        Value::List(_) | Value::Map(_) => Err(YamlEncodeError {
            type_name: value.type_name(),
        }),
        other => Ok(scalar_text(other)
            .map(|(t, _)| t.into_owned())
            .unwrap_or_default()),
    }
}

/// Salt's Jinja `yaml_dquote` filter on `text` (pass Python's `str()` of
/// the value, e.g. [`Value::to_python_str`]): a double-quoted YAML string.
/// PyYAML's pure-Python emitter without `allow_unicode`, so everything
/// outside printable ASCII is escaped (`é` → `\xE9`).
pub fn yaml_dquote(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        if ('\x20'..='\x7E').contains(&c) && c != '"' && c != '\\' {
            out.push(c);
        } else {
            out.push_str(&escape_char(c));
        }
    }
    out.push('"');
    out
}

/// Salt's Jinja `yaml_squote` filter on `text` (pass Python's `str()` of
/// the value): a single-quoted YAML string. Quotes are doubled, characters
/// are written as they are, and a line break that starts a run of breaks
/// is doubled (single-quoted scalars fold one newline into a space).
pub fn yaml_squote(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('\'');
    let mut in_breaks = false;
    for c in text.chars() {
        let brk = matches!(c, '\n' | '\u{85}' | '\u{2028}' | '\u{2029}');
        if brk && !in_breaks && c == '\n' {
            out.push('\n');
        }
        in_breaks = brk;
        if c == '\'' {
            out.push('\'');
        }
        out.push(c);
    }
    out.push('\'');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The same canonical text `gen.py` prints for Salt's answer.
    fn canon(v: &Value) -> String {
        match v {
            Value::Null => "null".into(),
            Value::Bool(b) => b.to_string(),
            Value::Int(i) => i.to_string(),
            Value::Float(f) => python_float_repr(*f),
            Value::Str(s) => serde_json::to_string(s).unwrap(),
            Value::List(l) => format!("[{}]", l.iter().map(canon).collect::<Vec<_>>().join(",")),
            Value::Map(m) => format!(
                "{{{}}}",
                m.iter()
                    .map(|(k, v)| format!("{}:{}", serde_json::to_string(k).unwrap(), canon(v)))
                    .collect::<Vec<_>>()
                    .join(",")
            ),
        }
    }

    fn load_canon(yaml: &str) -> String {
        match load(yaml) {
            Ok(v) => canon(&v),
            Err(e) => panic!("{yaml:?} failed to load: {e}"),
        }
    }

    fn load_err(yaml: &str) -> YamlError {
        match load(yaml) {
            Ok(v) => panic!("{yaml:?} loaded as {}", canon(&v)),
            Err(e) => e,
        }
    }

    /// The conformance case `pillar-yaml11-scalars` (copied here so the
    /// test stands alone): scalars.sls and what `salt-call pillar.items`
    /// answered for it (expected/00.json).
    #[test]
    fn conformance_pillar_yaml11_scalars() {
        let sls = r#"b_yes: yes
b_no: no
b_on: on
b_off: off
b_true: True
s_quoted_yes: 'yes'
mode_octal: 0644
mode_plain: 644
mode_str: '0644'
hex: 0x1F
flt: 1.5
exp: 1e3
nul: ~
empty:
date: 2024-01-02
ver: 1.10
anchors:
  base: &base {a: 1, b: 2}
  derived:
    <<: *base
    b: 3
multi: |
  line one
  line two
folded: >
  folded
  text
"#;
        let expected: serde_json::Value = serde_json::from_str(
            r#"{"b_yes": true, "b_no": false, "b_on": true, "b_off": false, "b_true": true, "s_quoted_yes": "yes", "mode_octal": 644, "mode_plain": 644, "mode_str": "0644", "hex": 31, "flt": 1.5, "exp": "1e3", "nul": null, "empty": null, "date": "2024-01-02", "ver": 1.1, "anchors": {"base": {"a": 1, "b": 2}, "derived": {"a": 1, "b": 3}}, "multi": "line one\nline two\n", "folded": "folded text\n"}"#,
        )
        .unwrap();
        let got = load(sls).unwrap();
        assert_eq!(got.to_json(), expected);
        // File order, as Salt's OrderedDict keeps it.
        let keys: Vec<&String> = got.as_map().unwrap().keys().collect();
        let want: Vec<&String> = expected.as_object().unwrap().keys().collect();
        assert_eq!(keys, want);
    }

    /// Decode the dump corpus encoding (floats as `{"f": repr}`).
    fn dec(j: &serde_json::Value) -> Value {
        match j {
            serde_json::Value::Object(o) if o.len() == 1 && o.contains_key("f") => {
                let r = o["f"].as_str().unwrap();
                Value::Float(match r {
                    "inf" => f64::INFINITY,
                    "-inf" => f64::NEG_INFINITY,
                    "nan" => f64::NAN,
                    r => r.parse().unwrap(),
                })
            }
            serde_json::Value::Object(o) => {
                Value::Map(o.iter().map(|(k, v)| (k.clone(), dec(v))).collect())
            }
            serde_json::Value::Array(a) => Value::List(a.iter().map(dec).collect()),
            other => Value::from_json(other),
        }
    }

    /// A small deterministic generator, so the fuzz test is repeatable.
    struct Lcg(u64);
    impl Lcg {
        fn next(&mut self) -> u64 {
            self.0 = self
                .0
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            self.0 >> 33
        }
        fn below(&mut self, n: usize) -> usize {
            (self.next() % n.max(1) as u64) as usize
        }
    }

    const FUZZ_SEED_DOCS: &[&str] = &[
        "a: 1\nb: [1, 2, {c: d}]\nc: {e: 'f', g: \"h\\n\"}\n",
        "base: &b {x: 1, y: [1, 2]}\nd:\n  <<: *b\n  z: !!str 3\n- x\n",
        "k: |\n  text\n   more\nj: >-\n  folded\n  text\n? complex\n: value\n",
        "- a\n- - b\n  - c\n- {d: e, f: [g, h]}\n- 'i''j'\n- \"k\\tl\"\n- &m n\n- *m\n",
        "%YAML 1.1\n---\n!!map {a: !!seq [!!int 1, !foo x], ? [y]: z}\n...\n",
        "a:\tb\n\tc: d\n&x: 1\n*y: 2\n<<: [*x]\n=: 3\n",
    ];

    #[test]
    fn never_panics_on_broken_input() {
        let mut rng = Lcg(42);
        let alphabet: Vec<char> = "-:?[]{},&*!|>'\"%@`#\n \t\r\\~<=.0a1é\u{85}\u{FEFF}\u{2028}"
            .chars()
            .collect();
        for doc in FUZZ_SEED_DOCS {
            let chars: Vec<char> = doc.chars().collect();
            // Every truncation.
            for cut in 0..=chars.len() {
                let text: String = chars[..cut].iter().collect();
                let _ = load(&text);
            }
            // Random insertions, deletions and replacements.
            for _ in 0..3000 {
                let mut c = chars.clone();
                for _ in 0..1 + rng.below(4) {
                    let at = rng.below(c.len() + 1);
                    let ch = alphabet[rng.below(alphabet.len())];
                    match rng.below(3) {
                        0 => c.insert(at, ch),
                        1 if at < c.len() => {
                            c.remove(at);
                        }
                        _ if at < c.len() => c[at] = ch,
                        _ => c.push(ch),
                    }
                }
                let text: String = c.into_iter().collect();
                if let Ok(v) = load(&text) {
                    let _ = dump(&v);
                    let _ = dump_flow(&v);
                }
            }
        }
        // Pure noise.
        for _ in 0..3000 {
            let len = rng.below(40);
            let text: String = (0..len)
                .map(|_| alphabet[rng.below(alphabet.len())])
                .collect();
            let _ = load(&text);
        }
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_stack_overflow() {
        for text in [
            "[".repeat(100_000),
            "{".repeat(100_000),
            format!("{}1{}", "[".repeat(5_000), "]".repeat(5_000)),
            format!("{}x", "- ".repeat(2_000)),
            (0..2_000)
                .map(|i| format!("{}k{i}:\n", " ".repeat(i)))
                .collect::<String>(),
        ] {
            let e = load(&text).unwrap_err();
            assert!(e.line >= 1 && e.column >= 1, "{e:?}");
        }
        // Just inside the limit: loads, dumps and drops within 1 MiB of
        // stack, even unoptimised.
        let worker = std::thread::Builder::new().stack_size(1 << 20);
        let done = worker
            .spawn(|| {
                for ok in [
                    format!("{}1", "- ".repeat(MAX_DEPTH)),
                    (0..MAX_DEPTH)
                        .map(|i| format!("{}k{i}:\n", " ".repeat(i)))
                        .collect::<String>(),
                    format!("{}1{}", "[".repeat(250), "]".repeat(250)),
                ] {
                    let v = load(&ok).unwrap();
                    assert!(!dump(&v).is_empty());
                    assert!(!dump_flow(&v).is_empty());
                    let _ = v.to_json();
                }
            })
            .unwrap()
            .join();
        assert!(done.is_ok());
    }

    #[test]
    fn alias_bombs_and_recursion_are_errors() {
        let mut bomb = String::from("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
        for i in 1..12 {
            let p = i - 1;
            bomb.push_str(&format!("a{i}: &a{i} [*a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}]\n"));
        }
        let e = load(&bomb).unwrap_err();
        assert_eq!(e.message, "aliases expand to too many values");
        for text in ["a: &a [*a]", "a: &a {b: *a}", "a: &a {b: [1, {c: *a}]}"] {
            let e = load(text).unwrap_err();
            assert_eq!(e.message, "found unconstructable recursive node", "{text}");
        }
    }

    #[test]
    fn loads_like_salt() {
        for (yaml, want) in SALT_LOADS {
            match (load(yaml), want) {
                (Ok(v), Some(w)) => assert_eq!(canon(&v), *w, "{yaml:?}"),
                (Err(_), None) => {}
                (got, want) => panic!("{yaml:?}: Salt gave {want:?}, we gave {got:?}"),
            }
        }
    }

    #[test]
    fn dumps_like_salt() {
        for (value, block, flow) in SALT_DUMPS {
            let v = dec(&serde_json::from_str(value).unwrap());
            assert_eq!(dump(&v), *block, "block {value}");
            assert_eq!(dump_flow(&v), *flow, "flow {value}");
            // The `yaml` Jinja filter is the flow text, stripped.
            assert_eq!(format_yaml(&v, true), flow.trim(), "|yaml {value}");
            assert_eq!(format_yaml(&v, false), block.trim(), "|yaml(False) {value}");
        }
    }

    #[test]
    fn jinja_quote_filters_like_salt() {
        for (text, dq, sq, enc) in SALT_QUOTES {
            assert_eq!(yaml_dquote(text), *dq, "{text:?}");
            assert_eq!(yaml_squote(text), *sq, "{text:?}");
            let v = Value::Str(text.to_string());
            assert_eq!(yaml_encode(&v).ok().as_deref(), *enc, "{text:?}");
        }
        // Salt's docs example for `{{ data|yaml }}`.
        let data = load("{foo: true, bar: 42, baz: [1, 2, 3], qux: 2.0}").unwrap();
        assert_eq!(
            format_yaml(&data, true),
            "{bar: 42, baz: [1, 2, 3], foo: true, qux: 2.0}"
        );
        assert_eq!(
            format_yaml(&data, false),
            "bar: 42\nbaz:\n- 1\n- 2\n- 3\nfoo: true\nqux: 2.0"
        );
        // yaml_encode takes scalars only; yaml_dquote takes Python's str().
        assert_eq!(yaml_encode(&Value::Bool(true)).unwrap(), "true");
        assert_eq!(yaml_encode(&Value::Null).unwrap(), "null");
        assert_eq!(yaml_encode(&Value::Float(1e17)).unwrap(), "1.0e+17");
        assert_eq!(
            yaml_encode(&Value::List(vec![])).unwrap_err().to_string(),
            "yaml_encode() only works with YAML scalar data; failed for <class 'list'>"
        );
        assert_eq!(yaml_dquote(&Value::Bool(true).to_python_str()), "\"True\"");
        assert_eq!(yaml_squote(&Value::Null.to_python_str()), "'None'");
    }

    /// `salt-call --local --out yaml pillar.items` on a tree holding this
    /// SLS printed exactly `want`.
    #[test]
    fn salt_call_out_yaml() {
        let sls = "zeta: 1\nalpha: 2\nstrs:\n  - 'yes'\n  - '0644'\n  - ''\n  - '1e3'\n  - '~'\n  - '2024-01-02'\n  - 'a: b'\n  - ' lead'\n  - \"multi\\nline\\n\"\n  - \"tab\\there\"\n  - \"é unicode 😀\"\n  - \"quote's\"\n  - '<<'\n  - y\n  - long words long words long words long words long words long words long words long words\nnums: [1, -2, 1.5, 0.1, 100000000000000000000.0, .inf, .nan, 3.0, 1.0e-5, 0644, 0x1F, 1:20]\nempty_map: {}\nempty_list: []\nnested:\n  - a: 1\n    b: [1, 2]\n  - - x\n    - y\n  - {}\nnul: ~\nbools: [yes, off]\n'key with: colon': v\n? |\n  multi\n  line key\n: v\n\"80\": str80\n";
        let want = "local:\n  '80': str80\n  alpha: 2\n  bools:\n  - true\n  - false\n  empty_list: []\n  empty_map: {}\n  'key with: colon': v\n  ? 'multi\n\n    line key\n\n    '\n  : v\n  nested:\n  - a: 1\n    b:\n    - 1\n    - 2\n  - - x\n    - y\n  - {}\n  nul: null\n  nums:\n  - 1\n  - -2\n  - 1.5\n  - 0.1\n  - 1.0e+20\n  - .inf\n  - .nan\n  - 3.0\n  - 1.0e-05\n  - 644\n  - 31\n  - 80\n  strs:\n  - 'yes'\n  - '0644'\n  - ''\n  - 1e3\n  - '~'\n  - '2024-01-02'\n  - 'a: b'\n  - ' lead'\n  - 'multi\n\n    line\n\n    '\n  - \"tab\\there\"\n  - \"é unicode \\U0001F600\"\n  - quote's\n  - '<<'\n  - y\n  - long words long words long words long words long words long words long words long\n    words\n  zeta: 1\n";
        let mut ret = Map::new();
        ret.insert("local".into(), load(sls).unwrap());
        assert_eq!(dump(&Value::Map(ret)), want);
    }

    #[test]
    fn dump_keeps_order_when_asked() {
        let v = load("b: 1\na: {d: 2, c: 3}").unwrap();
        let opts = DumpOptions {
            flow_style: false,
            sort_keys: false,
        };
        assert_eq!(dump_with(&v, &opts), "b: 1\na:\n  d: 2\n  c: 3\n");
        assert_eq!(dump(&v), "a:\n  c: 3\n  d: 2\nb: 1\n");
    }

    #[test]
    fn empty_documents_are_null() {
        for text in [
            "",
            "\n\n",
            "# only a comment\n",
            "---",
            "--- \n...\n",
            "%YAML 1.1\n---\n",
        ] {
            assert_eq!(load(text).unwrap(), Value::Null, "{text:?}");
        }
    }

    /// Salt's own error texts (`str(exc)`), positions included.
    #[test]
    fn errors_read_like_salt() {
        let cases = [
            ("a: 1\na: 2", "while constructing a mapping\n  in \"<unicode string>\", line 1, column 1\nfound conflicting ID 'a'\n  in \"<unicode string>\", line 2, column 1"),
            ("x:\n  a: 1\n  b: 2\n  a: 3", "while constructing a mapping\n  in \"<unicode string>\", line 2, column 3\nfound conflicting ID 'a'\n  in \"<unicode string>\", line 4, column 3"),
            ("1: a\ntrue: b", "while constructing a mapping\n  in \"<unicode string>\", line 1, column 1\nfound conflicting ID 'True'\n  in \"<unicode string>\", line 2, column 1"),
            ("a: 1\n---\nb: 2", "expected a single document in the stream\n  in \"<unicode string>\", line 1, column 1\nbut found another document\n  in \"<unicode string>\", line 2, column 1"),
            ("a: *nope", "found undefined alias\n  in \"<unicode string>\", line 1, column 4"),
            ("a: &x 1\nb: &x 2", "found duplicate anchor; first occurrence\n  in \"<unicode string>\", line 1, column 4\nsecond occurrence\n  in \"<unicode string>\", line 2, column 4"),
            ("m:\n  <<: 1", "while constructing a mapping\n  in \"<unicode string>\", line 2, column 3\nexpected a mapping or list of mappings for merging, but found scalar\n  in \"<unicode string>\", line 2, column 7"),
            ("m:\n  <<: [1]", "while constructing a mapping\n  in \"<unicode string>\", line 2, column 3\nexpected a mapping for merging, but found scalar\n  in \"<unicode string>\", line 2, column 8"),
            ("b: &x {a: 1, c: 2}\nc: &y {a: 3, d: 4}\nm:\n  <<: [*x, *y]", "while constructing a mapping\n  in \"<unicode string>\", line 4, column 3\nfound conflicting ID 'a'\n  in \"<unicode string>\", line 1, column 8"),
            ("a: !foo 1", "could not determine a constructor for the tag '!foo'\n  in \"<unicode string>\", line 1, column 4"),
            ("a: !!foo 1", "could not determine a constructor for the tag 'tag:yaml.org,2002:foo'\n  in \"<unicode string>\", line 1, column 4"),
            ("a: =", "could not determine a constructor for the tag 'tag:yaml.org,2002:value'\n  in \"<unicode string>\", line 1, column 4"),
            ("a: !!str [1]", "expected a scalar node, but found sequence\n  in \"<unicode string>\", line 1, column 4"),
            ("a: !!map x", "expected a mapping node, but found scalar\n  in \"<unicode string>\", line 1, column 4"),
            ("a: !!seq x", "expected a sequence node, but found scalar\n  in \"<unicode string>\", line 1, column 4"),
            ("a: {b: 1}\n? [1]\n: 2", "while constructing a mapping\n  in \"<unicode string>\", line 1, column 1\nfound unacceptable key\n  in \"<unicode string>\", line 2, column 3"),
        ];
        for (yaml, want) in cases {
            assert_eq!(load_err(yaml).salt_text(), want, "{yaml:?}");
        }
        let e = load_err("a: \u{1}");
        assert_eq!((e.line, e.column, e.kind), (1, 4, YamlErrorKind::Syntax));
        assert_eq!(
            e.message,
            "unacceptable character #x0001: control characters are not allowed"
        );
        // Python errors that are not YAML errors still come back as errors.
        for yaml in [
            "a: 0_",
            "a: 0b_",
            "a: !!int abc",
            "a: !!bool y",
            "a: !!float x",
        ] {
            assert_eq!(load_err(yaml).kind, YamlErrorKind::Value, "{yaml:?}");
        }
        // Syntax errors carry a position.
        let e = load_err("a: [1\nb: 2\n");
        assert_eq!(e.kind, YamlErrorKind::Syntax);
        assert!(e.line >= 1 && e.column >= 1);
    }

    #[test]
    fn merge_keys_follow_salt() {
        // Merged keys first, the mapping's own keys win and keep their place.
        assert_eq!(
            load_canon(
                "b: &x {a: 1, c: 2}\nc: &y {e: 3, d: 4}\nm:\n  k: 0\n  <<: [*y, *x]\n  c: 9"
            ),
            r#"{"b":{"a":1,"c":2},"c":{"e":3,"d":4},"m":{"a":1,"e":3,"d":4,"k":0,"c":9}}"#
        );
        // Merged keys are dropped by raw text: `"1"` hides a merged `1`.
        assert_eq!(
            load_canon("b: &x {1: 1, c: 2}\nm:\n  \"1\": 0\n  <<: *x"),
            r#"{"b":{"1":1,"c":2},"m":{"c":2,"1":0}}"#
        );
        // Several `<<` keys, nested merges, a mapping merging itself.
        assert_eq!(
            load_canon("b: &x {a: 1}\nm:\n  <<: *x\n  <<: {z: 1}"),
            r#"{"b":{"a":1},"m":{"a":1,"z":1}}"#
        );
        assert_eq!(
            load_canon("base: &b {x: 1, <<: {y: 2}}\nd:\n  <<: *b\n  z: 3"),
            r#"{"base":{"y":2,"x":1},"d":{"y":2,"x":1,"z":3}}"#
        );
        assert_eq!(load_canon("a: &a {<<: *a}"), r#"{"a":{}}"#);
        // `<<` quoted is an ordinary key; `=` as a key is the string "=".
        assert_eq!(
            load_canon("m:\n  '<<': {a: 1}\n=: 2"),
            r#"{"m":{"<<":{"a":1}},"=":2}"#
        );
    }

    #[test]
    fn libyaml_leniencies() {
        // `key:<TAB>value` is accepted, as libyaml does.
        assert_eq!(
            load_canon("a:\t1\nb:\t \tx y\nc: '\t'"),
            r#"{"a":1,"b":"x y","c":"\t"}"#
        );
        // `&name:` anchors an empty key in libyaml (names are [0-9A-Za-z_-]).
        assert_eq!(
            load_canon("- &ref:\n    p: 1\n- &ref2:\n  q: 2\n- *ref"),
            r#"[{"null":{"p":1}},{"null":null,"q":2},null]"#
        );
        let e = load_err("a: &x.y 1");
        assert_eq!(
            e.message,
            "did not find expected alphabetic or numeric character"
        );
        assert_eq!((e.line, e.column), (1, 6));
        // The non-specific tag resolves quoted text like plain text.
        assert_eq!(
            load_canon("a: ! '12'\nb: !\nc: ! ''"),
            r#"{"a":12,"b":"","c":null}"#
        );
    }

    #[test]
    fn big_and_odd_numbers() {
        // Python ints have no size limit; beyond i64 we keep the digits.
        assert_eq!(
            load("a: 99999999999999999999").unwrap().get("a"),
            Some(&Value::Str("99999999999999999999".into()))
        );
        assert_eq!(
            load_canon("a: -9223372036854775808\nb: 1_000\nc: 190:20:30\nd: 0o17"),
            r#"{"a":-9223372036854775808,"b":1000,"c":685230,"d":"0o17"}"#
        );
        assert_eq!(
            load_canon("[.inf, -.Inf, 1:20.5, 1.e+5, 1_0.5_0]"),
            "[inf,-inf,80.5,100000.0,10.5]"
        );
        assert!(matches!(load("a: .NaN").unwrap().get("a"), Some(Value::Float(f)) if f.is_nan()));
    }

    /// (document, what Salt's loader gave in the canonical form of `canon`,
    /// or `None` where Salt raised an error). Generated with real Salt 3007.8.
    const SALT_LOADS: &[(&str, Option<&str>)] = &[
        ("a: yes", Some("{\"a\":true}")),
        ("a: Yes", Some("{\"a\":true}")),
        ("a: YES", Some("{\"a\":true}")),
        ("a: yEs", Some("{\"a\":\"yEs\"}")),
        ("a: no", Some("{\"a\":false}")),
        ("a: No", Some("{\"a\":false}")),
        ("a: NO", Some("{\"a\":false}")),
        ("a: true", Some("{\"a\":true}")),
        ("a: True", Some("{\"a\":true}")),
        ("a: TRUE", Some("{\"a\":true}")),
        ("a: tRue", Some("{\"a\":\"tRue\"}")),
        ("a: false", Some("{\"a\":false}")),
        ("a: False", Some("{\"a\":false}")),
        ("a: FALSE", Some("{\"a\":false}")),
        ("a: on", Some("{\"a\":true}")),
        ("a: On", Some("{\"a\":true}")),
        ("a: ON", Some("{\"a\":true}")),
        ("a: off", Some("{\"a\":false}")),
        ("a: Off", Some("{\"a\":false}")),
        ("a: OFF", Some("{\"a\":false}")),
        ("a: y", Some("{\"a\":\"y\"}")),
        ("a: Y", Some("{\"a\":\"Y\"}")),
        ("a: n", Some("{\"a\":\"n\"}")),
        ("a: N", Some("{\"a\":\"N\"}")),
        ("a: ~", Some("{\"a\":null}")),
        ("a: null", Some("{\"a\":null}")),
        ("a: Null", Some("{\"a\":null}")),
        ("a: NULL", Some("{\"a\":null}")),
        ("a: nUll", Some("{\"a\":\"nUll\"}")),
        ("a: ", Some("{\"a\":null}")),
        ("a: 0", Some("{\"a\":0}")),
        ("a: 00", Some("{\"a\":0}")),
        ("a: 000", Some("{\"a\":0}")),
        ("a: 0644", Some("{\"a\":644}")),
        ("a: 0_644", Some("{\"a\":644}")),
        ("a: +0644", Some("{\"a\":420}")),
        ("a: -0644", Some("{\"a\":-420}")),
        ("a: 0o644", Some("{\"a\":\"0o644\"}")),
        ("a: 09", Some("{\"a\":\"09\"}")),
        ("a: 08", Some("{\"a\":\"08\"}")),
        ("a: 0_", None),
        ("a: 1_", Some("{\"a\":1}")),
        ("a: 1__", Some("{\"a\":1}")),
        ("a: 1_000", Some("{\"a\":1000}")),
        ("a: -1_000", Some("{\"a\":-1000}")),
        ("a: +12", Some("{\"a\":12}")),
        ("a: -0", Some("{\"a\":0}")),
        ("a: +0", Some("{\"a\":0}")),
        ("a: 0b101", Some("{\"a\":5}")),
        ("a: 0b", Some("{\"a\":\"0b\"}")),
        ("a: 0b_", None),
        ("a: -0b101", Some("{\"a\":-5}")),
        ("a: 0B101", Some("{\"a\":\"0B101\"}")),
        ("a: 0x1F", Some("{\"a\":31}")),
        ("a: 0x1f", Some("{\"a\":31}")),
        ("a: 0X1F", Some("{\"a\":\"0X1F\"}")),
        ("a: -0x1F", Some("{\"a\":-31}")),
        ("a: 0x_", None),
        ("a: 0xg", Some("{\"a\":\"0xg\"}")),
        ("a: 0x1_F", Some("{\"a\":31}")),
        ("a: 1:20", Some("{\"a\":80}")),
        ("a: 1:70", Some("{\"a\":\"1:70\"}")),
        ("a: 01:20", Some("{\"a\":\"01:20\"}")),
        ("a: 1:20.5", Some("{\"a\":80.5}")),
        ("a: 1:2:3", Some("{\"a\":3723}")),
        ("a: -1:20", Some("{\"a\":-80}")),
        ("a: 0:20", Some("{\"a\":\"0:20\"}")),
        ("a: 1:60", Some("{\"a\":\"1:60\"}")),
        ("a: 1:5:9", Some("{\"a\":3909}")),
        ("a: 190:20:30", Some("{\"a\":685230}")),
        ("a: 1:20:", None),
        ("a: 1::20", Some("{\"a\":\"1::20\"}")),
        ("a: 9223372036854775807", Some("{\"a\":9223372036854775807}")),
        ("a: 0x7FFFFFFFFFFFFFFF", Some("{\"a\":9223372036854775807}")),
        ("a: 1.5", Some("{\"a\":1.5}")),
        ("a: 1.10", Some("{\"a\":1.1}")),
        ("a: 1.", Some("{\"a\":1.0}")),
        ("a: 0.", Some("{\"a\":0.0}")),
        ("a: 00.5", Some("{\"a\":0.5}")),
        ("a: 1.0e3", Some("{\"a\":\"1.0e3\"}")),
        ("a: 1.0e+3", Some("{\"a\":1000.0}")),
        ("a: 1.0E-3", Some("{\"a\":0.001}")),
        ("a: 1.e+5", Some("{\"a\":100000.0}")),
        ("a: 1e3", Some("{\"a\":\"1e3\"}")),
        ("a: 1e+3", Some("{\"a\":\"1e+3\"}")),
        ("a: 1E3", Some("{\"a\":\"1E3\"}")),
        ("a: .5", Some("{\"a\":0.5}")),
        ("a: -.5", Some("{\"a\":\"-.5\"}")),
        ("a: +.5", Some("{\"a\":\"+.5\"}")),
        ("a: .5e+1", Some("{\"a\":5.0}")),
        ("a: ._", Some("{\"a\":\"._\"}")),
        ("a: .", Some("{\"a\":\".\"}")),
        ("a: 1._", Some("{\"a\":1.0}")),
        ("a: 1_.5", Some("{\"a\":1.5}")),
        ("a: 1.2.3", Some("{\"a\":\"1.2.3\"}")),
        ("a: +.inf", Some("{\"a\":inf}")),
        ("a: .inf", Some("{\"a\":inf}")),
        ("a: -.inf", Some("{\"a\":-inf}")),
        ("a: .Inf", Some("{\"a\":inf}")),
        ("a: .INF", Some("{\"a\":inf}")),
        ("a: .iNf", Some("{\"a\":\".iNf\"}")),
        ("a: .nan", Some("{\"a\":nan}")),
        ("a: .NaN", Some("{\"a\":nan}")),
        ("a: .NAN", Some("{\"a\":nan}")),
        ("a: -.nan", Some("{\"a\":\"-.nan\"}")),
        ("a: +.nan", Some("{\"a\":\"+.nan\"}")),
        ("a: inf", Some("{\"a\":\"inf\"}")),
        ("a: nan", Some("{\"a\":\"nan\"}")),
        ("a: 1.5e", Some("{\"a\":\"1.5e\"}")),
        ("a: 1.5e+", Some("{\"a\":\"1.5e+\"}")),
        ("a: 1.5e3", Some("{\"a\":\"1.5e3\"}")),
        ("a: 2024-01-02", Some("{\"a\":\"2024-01-02\"}")),
        ("a: 2024-1-2", Some("{\"a\":\"2024-1-2\"}")),
        ("a: 2024-01-02T10:00:00Z", Some("{\"a\":\"2024-01-02T10:00:00Z\"}")),
        ("a: 2024-01-02 10:00:00", Some("{\"a\":\"2024-01-02 10:00:00\"}")),
        ("a: 2001-12-14t21:59:43.10-05:00", Some("{\"a\":\"2001-12-14t21:59:43.10-05:00\"}")),
        ("a: 2001-12-14 21:59:43.10 -5", Some("{\"a\":\"2001-12-14 21:59:43.10 -5\"}")),
        ("a: 2024-13-45", Some("{\"a\":\"2024-13-45\"}")),
        ("a: <<", None),
        ("a: =", None),
        ("a: !", Some("{\"a\":\"\"}")),
        ("a: &", None),
        ("a: *x", None),
        ("a: -", None),
        ("a: --", Some("{\"a\":\"--\"}")),
        ("a: ---x", Some("{\"a\":\"---x\"}")),
        ("a: - x", None),
        ("a: a: b", None),
        ("a: a:b", Some("{\"a\":\"a:b\"}")),
        ("a: a #b", Some("{\"a\":\"a\"}")),
        ("a: a#b", Some("{\"a\":\"a#b\"}")),
        ("a: @a", None),
        ("a: `a", None),
        ("a: %a", None),
        ("a: a,b", Some("{\"a\":\"a,b\"}")),
        ("a: [a", None),
        ("a: a]", Some("{\"a\":\"a]\"}")),
        ("a: {a}", Some("{\"a\":{\"a\":null}}")),
        ("a: ?", None),
        ("a: ? a", None),
        ("a: :", None),
        ("a: ::", None),
        ("a: -1", Some("{\"a\":-1}")),
        ("a: -a", Some("{\"a\":\"-a\"}")),
        ("a: +a", Some("{\"a\":\"+a\"}")),
        ("a: 0.1.2", Some("{\"a\":\"0.1.2\"}")),
        ("a: 1,000", Some("{\"a\":\"1,000\"}")),
        ("a: 1 000", Some("{\"a\":\"1 000\"}")),
        ("a: 12:30:45", Some("{\"a\":45045}")),
        ("a: 0:0", Some("{\"a\":\"0:0\"}")),
        ("a: foo bar", Some("{\"a\":\"foo bar\"}")),
        ("a:   x", Some("{\"a\":\"x\"}")),
        ("a: x  ", Some("{\"a\":\"x\"}")),
        ("a: é", Some("{\"a\":\"é\"}")),
        ("a: 日本", Some("{\"a\":\"日本\"}")),
        ("a: !!int ''", None),
        ("a: !!int '0'", Some("{\"a\":0}")),
        ("a: !!int '00'", Some("{\"a\":0}")),
        ("a: !!int '000'", Some("{\"a\":0}")),
        ("a: !!int '0644'", Some("{\"a\":644}")),
        ("a: !!int '0_644'", Some("{\"a\":644}")),
        ("a: !!int '+0644'", Some("{\"a\":420}")),
        ("a: !!int '-0644'", Some("{\"a\":-420}")),
        ("a: !!int '0o644'", None),
        ("a: !!int '09'", Some("{\"a\":9}")),
        ("a: !!int '08'", Some("{\"a\":8}")),
        ("a: !!int '0_'", None),
        ("a: !!int '1_'", Some("{\"a\":1}")),
        ("a: !!int '1__'", Some("{\"a\":1}")),
        ("a: !!int '1_000'", Some("{\"a\":1000}")),
        ("a: !!int '-1_000'", Some("{\"a\":-1000}")),
        ("a: !!int '+12'", Some("{\"a\":12}")),
        ("a: !!int '-0'", Some("{\"a\":0}")),
        ("a: !!int '+0'", Some("{\"a\":0}")),
        ("a: !!int '0b101'", Some("{\"a\":5}")),
        ("a: !!int '0b'", None),
        ("a: !!int '0b_'", None),
        ("a: !!int '-0b101'", Some("{\"a\":-5}")),
        ("a: !!int '0B101'", None),
        ("a: !!int '0x1F'", Some("{\"a\":31}")),
        ("a: !!int '0x1f'", Some("{\"a\":31}")),
        ("a: !!int '0X1F'", None),
        ("a: !!int '-0x1F'", Some("{\"a\":-31}")),
        ("a: !!int '0x_'", None),
        ("a: !!int '0xg'", None),
        ("a: !!int '0x1_F'", Some("{\"a\":31}")),
        ("a: !!int '1:20'", Some("{\"a\":80}")),
        ("a: !!int '1:70'", Some("{\"a\":130}")),
        ("a: !!int '01:20'", Some("{\"a\":80}")),
        ("a: !!int '1:20.5'", None),
        ("a: !!int '1:2:3'", Some("{\"a\":3723}")),
        ("a: !!int '-1:20'", Some("{\"a\":-80}")),
        ("a: !!int '0:20'", None),
        ("a: !!int '1:60'", Some("{\"a\":120}")),
        ("a: !!int '1:5:9'", Some("{\"a\":3909}")),
        ("a: !!int '190:20:30'", Some("{\"a\":685230}")),
        ("a: !!int '1:20:'", None),
        ("a: !!int '1::20'", None),
        ("a: !!int '9223372036854775807'", Some("{\"a\":9223372036854775807}")),
        ("a: !!int '0x7FFFFFFFFFFFFFFF'", Some("{\"a\":9223372036854775807}")),
        ("a: !!int '1.5'", None),
        ("a: !!int '1.10'", None),
        ("a: !!int '1.'", None),
        ("a: !!int '0.'", None),
        ("a: !!int '00.5'", None),
        ("a: !!int '1.0e3'", None),
        ("a: !!int '1.0e+3'", None),
        ("a: !!int '1.0E-3'", None),
        ("a: !!int '1.e+5'", None),
        ("a: !!int '1e3'", None),
        ("a: !!int '1e+3'", None),
        ("a: !!int '1E3'", None),
        ("a: !!int '.5'", None),
        ("a: !!int '-.5'", None),
        ("a: !!int '+.5'", None),
        ("a: !!int '.5e+1'", None),
        ("a: !!int '._'", None),
        ("a: !!int '.'", None),
        ("a: !!int '1._'", None),
        ("a: !!int '1_.5'", None),
        ("a: !!int '1.2.3'", None),
        ("a: !!int '+.inf'", None),
        ("a: !!int '.inf'", None),
        ("a: !!int '-.inf'", None),
        ("a: !!int '.Inf'", None),
        ("a: !!int '.INF'", None),
        ("a: !!int '.iNf'", None),
        ("a: !!int '.nan'", None),
        ("a: !!int '.NaN'", None),
        ("a: !!int '.NAN'", None),
        ("a: !!int '-.nan'", None),
        ("a: !!int '+.nan'", None),
        ("a: !!int '1.5e'", None),
        ("a: !!int '1.5e+'", None),
        ("a: !!int '1.5e3'", None),
        ("a: !!int '2024-01-02'", None),
        ("a: !!int '2024-1-2'", None),
        ("a: !!int '2024-01-02T10:00:00Z'", None),
        ("a: !!int '2024-01-02 10:00:00'", None),
        ("a: !!int '2001-12-14t21:59:43.10-05:00'", None),
        ("a: !!int '2001-12-14 21:59:43.10 -5'", None),
        ("a: !!int '2024-13-45'", None),
        ("a: !!int '-'", None),
        ("a: !!int '--'", None),
        ("a: !!int '---x'", None),
        ("a: !!int '- x'", None),
        ("a: !!int '-1'", Some("{\"a\":-1}")),
        ("a: !!int '-a'", None),
        ("a: !!int '+a'", None),
        ("a: !!int '0.1.2'", None),
        ("a: !!int '1,000'", None),
        ("a: !!int '1 000'", None),
        ("a: !!int '12:30:45'", Some("{\"a\":45045}")),
        ("a: !!int '0:0'", None),
        ("a: !!float ''", None),
        ("a: !!float '000'", Some("{\"a\":0.0}")),
        ("a: !!float '+0644'", Some("{\"a\":644.0}")),
        ("a: !!float '09'", Some("{\"a\":9.0}")),
        ("a: !!float '1_'", Some("{\"a\":1.0}")),
        ("a: !!float '-1_000'", Some("{\"a\":-1000.0}")),
        ("a: !!float '+0'", Some("{\"a\":0.0}")),
        ("a: !!float '0b_'", None),
        ("a: !!float '0x1F'", None),
        ("a: !!float '-0x1F'", None),
        ("a: !!float '0x1_F'", None),
        ("a: !!float '01:20'", Some("{\"a\":80.0}")),
        ("a: !!float '-1:20'", Some("{\"a\":-80.0}")),
        ("a: !!float '1:5:9'", Some("{\"a\":3909.0}")),
        ("a: !!float '1::20'", None),
        ("a: !!float '9223372036854775807'", Some("{\"a\":9.223372036854776e+18}")),
        ("a: !!float '1.'", Some("{\"a\":1.0}")),
        ("a: !!float '1.0e3'", Some("{\"a\":1000.0}")),
        ("a: !!float '1.e+5'", Some("{\"a\":100000.0}")),
        ("a: !!float '1E3'", Some("{\"a\":1000.0}")),
        ("a: !!float '+.5'", Some("{\"a\":0.5}")),
        ("a: !!float '.'", None),
        ("a: !!float '1.2.3'", None),
        ("a: !!float '-.inf'", Some("{\"a\":-inf}")),
        ("a: !!float '.iNf'", Some("{\"a\":inf}")),
        ("a: !!float '.NAN'", Some("{\"a\":nan}")),
        ("a: !!float '1.5e'", None),
        ("a: !!float '2024-01-02'", None),
        ("a: !!float '2024-01-02 10:00:00'", None),
        ("a: !!float '2024-13-45'", None),
        ("a: !!float '---x'", None),
        ("a: !!float '-a'", None),
        ("a: !!float '1,000'", None),
        ("a: !!float '0:0'", Some("{\"a\":0.0}")),
        ("a: !!bool 'yes'", Some("{\"a\":true}")),
        ("a: !!bool 'y'", None),
        ("a: !!bool 'TRUE'", Some("{\"a\":true}")),
        ("a: !!bool 'tRue'", Some("{\"a\":true}")),
        ("a: !!bool 'off'", Some("{\"a\":false}")),
        ("a: !!bool ''", None),
        ("a: 'yes'", Some("{\"a\":\"yes\"}")),
        ("a: \"yes\"", Some("{\"a\":\"yes\"}")),
        ("a: !!str yes", Some("{\"a\":\"yes\"}")),
        ("a: ! 'yes'", Some("{\"a\":true}")),
        ("yes: v", Some("{\"true\":\"v\"}")),
        ("a: '0644'", Some("{\"a\":\"0644\"}")),
        ("a: \"0644\"", Some("{\"a\":\"0644\"}")),
        ("a: !!str 0644", Some("{\"a\":\"0644\"}")),
        ("a: ! '0644'", Some("{\"a\":644}")),
        ("0644: v", Some("{\"644\":\"v\"}")),
        ("a: '1.5'", Some("{\"a\":\"1.5\"}")),
        ("a: \"1.5\"", Some("{\"a\":\"1.5\"}")),
        ("a: !!str 1.5", Some("{\"a\":\"1.5\"}")),
        ("a: ! '1.5'", Some("{\"a\":1.5}")),
        ("1.5: v", Some("{\"1.5\":\"v\"}")),
        ("a: '~'", Some("{\"a\":\"~\"}")),
        ("a: \"~\"", Some("{\"a\":\"~\"}")),
        ("a: !!str ~", Some("{\"a\":\"~\"}")),
        ("a: ! '~'", Some("{\"a\":null}")),
        ("~: v", Some("{\"null\":\"v\"}")),
        ("a: ''", Some("{\"a\":\"\"}")),
        ("a: \"\"", Some("{\"a\":\"\"}")),
        ("a: !!str ", Some("{\"a\":\"\"}")),
        ("a: ! ''", Some("{\"a\":null}")),
        ("a: '2024-01-02'", Some("{\"a\":\"2024-01-02\"}")),
        ("a: \"2024-01-02\"", Some("{\"a\":\"2024-01-02\"}")),
        ("a: !!str 2024-01-02", Some("{\"a\":\"2024-01-02\"}")),
        ("a: ! '2024-01-02'", Some("{\"a\":\"2024-01-02\"}")),
        ("2024-01-02: v", Some("{\"2024-01-02\":\"v\"}")),
        ("a: '<<'", Some("{\"a\":\"<<\"}")),
        ("a: \"<<\"", Some("{\"a\":\"<<\"}")),
        ("a: !!str <<", Some("{\"a\":\"<<\"}")),
        ("a: ! '<<'", None),
        ("<<: v", None),
        ("a: '1e3'", Some("{\"a\":\"1e3\"}")),
        ("a: \"1e3\"", Some("{\"a\":\"1e3\"}")),
        ("a: !!str 1e3", Some("{\"a\":\"1e3\"}")),
        ("a: ! '1e3'", Some("{\"a\":\"1e3\"}")),
        ("1e3: v", Some("{\"1e3\":\"v\"}")),
        ("true: v", Some("{\"true\":\"v\"}")),
        ("1:20: v", Some("{\"80\":\"v\"}")),
        ("-0: v", Some("{\"0\":\"v\"}")),
        ("=: v", Some("{\"=\":\"v\"}")),
        ("Off: v", Some("{\"false\":\"v\"}")),
        ("", Some("null")),
        ("# only a comment", Some("null")),
        ("\n\n", Some("null")),
        ("---", Some("null")),
        ("--- ", Some("null")),
        ("---\n...", Some("null")),
        ("a: 1\n...", Some("{\"a\":1}")),
        ("---\na: 1", Some("{\"a\":1}")),
        ("a: 1\n---\nb: 2", None),
        ("---\na: 1\n---", None),
        ("a: 1\n...\n---\nb: 1", None),
        ("a: 1\n...\nb: 1", None),
        ("--- 1", Some("1")),
        ("--- |\n  text\n", Some("\"text\\n\"")),
        ("%YAML 1.1\n---\na: 1", Some("{\"a\":1}")),
        ("%YAML 1.2\n---\na: yes", Some("{\"a\":true}")),
        ("%TAG !e! tag:example.com,2000:\n---\na: !e!x 1", None),
        ("a: 1\na: 2", None),
        ("x:\n  a: 1\n  b: 2\n  a: 3", None),
        ("1: a\ntrue: b", None),
        ("1: a\n1.0: b", None),
        ("0: a\nfalse: b", None),
        ("~: a\nnull: b", None),
        ("a: 1\n'a': 2", None),
        (".nan: a\n.nan: b", None),
        ("1: a\n01: b", None),
        ("a: 1\n\"a\": 2", None),
        ("? [1]\n: 2", None),
        ("? {a: 1}\n: 2", None),
        ("[1]: 2", None),
        ("{a: 1}: 2", None),
        ("? a\n: 1", Some("{\"a\":1}")),
        ("? |\n  block key\n: 1", Some("{\"block key\\n\":1}")),
        ("? - x\n: y", None),
        ("b: &x {a: 1, c: 2}\nc: &y {a: 3, d: 4}\nm:\n  <<: [*x, *y]", None),
        ("b: &x {a: 1, c: 2}\nc: &y {e: 3, d: 4}\nm:\n  k: 0\n  <<: [*y, *x]\n  c: 9", Some("{\"b\":{\"a\":1,\"c\":2},\"c\":{\"e\":3,\"d\":4},\"m\":{\"a\":1,\"e\":3,\"d\":4,\"k\":0,\"c\":9}}")),
        ("b: &x {1: 1, c: 2}\nm:\n  \"1\": 0\n  <<: *x", Some("{\"b\":{\"1\":1,\"c\":2},\"m\":{\"c\":2,\"1\":0}}")),
        ("b: &x {a: 1}\nm:\n  <<: *x\n  <<: {z: 1}", Some("{\"b\":{\"a\":1},\"m\":{\"a\":1,\"z\":1}}")),
        ("b: &x {a: 1}\nm:\n  <<: *x\n  a: 2", Some("{\"b\":{\"a\":1},\"m\":{\"a\":2}}")),
        ("b: &x {a: 1}\nm:\n  a: 2\n  <<: *x", Some("{\"b\":{\"a\":1},\"m\":{\"a\":2}}")),
        ("m:\n  <<: [1]", None),
        ("m:\n  <<: 1", None),
        ("m:\n  <<: [[1]]", None),
        ("m:\n  <<: []", Some("{\"m\":{}}")),
        ("m:\n  <<: {}", Some("{\"m\":{}}")),
        ("m:\n  <<: ~", None),
        ("m:\n  '<<': {a: 1}", Some("{\"m\":{\"<<\":{\"a\":1}}}")),
        ("m:\n  <<: {a: 1}\n  <<: {a: 2}", None),
        ("base: &b {x: 1, <<: {y: 2}}\nd:\n  <<: *b\n  z: 3", Some("{\"base\":{\"y\":2,\"x\":1},\"d\":{\"y\":2,\"x\":1,\"z\":3}}")),
        ("a: &a {b: &b {c: 1}}\nd:\n  <<: *b", Some("{\"a\":{\"b\":{\"c\":1}},\"d\":{\"c\":1}}")),
        ("a: &a [1, 2]\nb: *a", Some("{\"a\":[1,2],\"b\":[1,2]}")),
        ("a: &x 1\nb: *x", Some("{\"a\":1,\"b\":1}")),
        ("a: *nope", None),
        ("a: &a [*a]", None),
        ("a: &a {b: *a}", None),
        ("a: &a {<<: *a}", Some("{\"a\":{}}")),
        ("a: &x 1\na2: &x 2\nb: *x", None),
        ("=: 1", Some("{\"=\":1}")),
        ("b: <<", None),
        ("- <<", None),
        ("- =", None),
        ("{=: 1}", Some("{\"=\":1}")),
        ("[<<]", None),
        ("a: !!merge x", None),
        ("a: !!value x", None),
        ("? =\n: 2", Some("{\"=\":2}")),
        ("a: !!str 1", Some("{\"a\":\"1\"}")),
        ("a: !!int \"12\"", Some("{\"a\":12}")),
        ("a: !!int \"0644\"", Some("{\"a\":644}")),
        ("a: !!int \"1e3\"", None),
        ("a: !!float \"1\"", Some("{\"a\":1.0}")),
        ("a: !!float \"1e3\"", Some("{\"a\":1000.0}")),
        ("a: !!bool \"yes\"", Some("{\"a\":true}")),
        ("a: !!bool \"y\"", None),
        ("a: !!null \"x\"", Some("{\"a\":null}")),
        ("a: !!map {b: 1}", Some("{\"a\":{\"b\":1}}")),
        ("a: !!seq [1]", Some("{\"a\":[1]}")),
        ("a: !!binary aGVsbG8=", Some("{\"a\":\"hello\"}")),
        ("a: !!binary |\n  aGVs\n  bG8=", Some("{\"a\":\"hello\"}")),
        ("a: !foo 1", None),
        ("a: !!foo 1", None),
        ("a: !!omap [a: 1]", None),
        ("a: !!omap {a: 1, b: 2}", Some("{\"a\":{\"a\":1,\"b\":2}}")),
        ("a: !!pairs [a: 1, b: 2]", Some("{\"a\":[[\"a\",1],[\"b\",2]]}")),
        ("a: !!pairs [{a: 1, b: 2}]", None),
        ("a: !!pairs {a: 1}", None),
        ("a: !!python/unicode x", Some("{\"a\":\"x\"}")),
        ("a: !!str [1]", None),
        ("a: !!map x", None),
        ("a: !!seq x", None),
        ("a: !!int [1]", None),
        ("a: ! 12", Some("{\"a\":12}")),
        ("a: ! \"12\"", Some("{\"a\":12}")),
        ("a: ! [1]", Some("{\"a\":[1]}")),
        ("a: ! {b: 1}", Some("{\"a\":{\"b\":1}}")),
        ("a: !<tag:yaml.org,2002:int> \"5\"", Some("{\"a\":5}")),
        ("a: !<!foo> 1", None),
        ("a: !!int", None),
        ("a: !!str", Some("{\"a\":\"\"}")),
        ("a: !!float \".inf\"", Some("{\"a\":inf}")),
        ("a: !!int \"abc\"", None),
        ("a: !!bool \"True\"", Some("{\"a\":true}")),
        ("a: !!timestamp 2024-01-01", Some("{\"a\":\"2024-01-01\"}")),
        ("a: !!timestamp x", Some("{\"a\":\"x\"}")),
        ("a: !!float 1_000.5", Some("{\"a\":1000.5}")),
        ("a: !!int ' 12 '", Some("{\"a\":12}")),
        ("a: !!float ' 1.5 '", Some("{\"a\":1.5}")),
        ("a: !!int '1:x'", None),
        ("a: !!int 0x", None),
        ("a: !!float '-'", None),
        ("a: !!float 'infinity'", Some("{\"a\":inf}")),
        ("a: !!float '+1e5'", Some("{\"a\":100000.0}")),
        ("a: !!float '1,5'", None),
        ("a: !!null", Some("{\"a\":null}")),
        ("a: !!bool", None),
        ("a: !!map", None),
        ("a: !!seq", None),
        ("!!map {a: 1}", Some("{\"a\":1}")),
        ("--- !!str\nfoo", Some("\"foo\"")),
        ("multi: |\n  line one\n  line two\n", Some("{\"multi\":\"line one\\nline two\\n\"}")),
        ("folded: >\n  folded\n  text\n", Some("{\"folded\":\"folded text\\n\"}")),
        ("k: |-\n  x\n", Some("{\"k\":\"x\"}")),
        ("k: |+\n  x\n\n", Some("{\"k\":\"x\\n\\n\"}")),
        ("k: >-\n  a\n  b\n\n  c\n", Some("{\"k\":\"a b\\nc\"}")),
        ("k: |2\n   x\n", Some("{\"k\":\" x\\n\"}")),
        ("k: 'a\n  b'", Some("{\"k\":\"a b\"}")),
        ("k: \"a\\\n  b\"", Some("{\"k\":\"ab\"}")),
        ("k: \"\\t\\n\\x41\\u00e9\\U0001F600\\N\\_\\L\\P\\0\\a\\b\\e\\f\\r\\v\\/\\ \"", Some("{\"k\":\"\\t\\nAé😀\u{85} \u{2028}\u{2029}\\u0000\\u0007\\b\\u001b\\f\\r\\u000b/ \"}")),
        ("k: \"\\q\"", None),
        ("k: a\n  b\n  c", Some("{\"k\":\"a b c\"}")),
        ("k: a\n\n  b", Some("{\"k\":\"a\\nb\"}")),
        ("k: 'it''s'", Some("{\"k\":\"it's\"}")),
        ("k: \"dq 'x'\"", Some("{\"k\":\"dq 'x'\"}")),
        ("a:\n  - 1\n  - 2", Some("{\"a\":[1,2]}")),
        ("a:\n- 1\n- 2", Some("{\"a\":[1,2]}")),
        ("- - 1\n  - 2\n- 3", Some("[[1,2],3]")),
        ("- a: 1\n  b: 2\n- c: 3", Some("[{\"a\":1,\"b\":2},{\"c\":3}]")),
        ("a: [1, [2, [3]], {b: c}]", Some("{\"a\":[1,[2,[3]],{\"b\":\"c\"}]}")),
        ("a: {b: {c: {d: 1}}}", Some("{\"a\":{\"b\":{\"c\":{\"d\":1}}}}")),
        ("a: []", Some("{\"a\":[]}")),
        ("a: {}", Some("{\"a\":{}}")),
        ("[]", Some("[]")),
        ("{}", Some("{}")),
        ("- ", Some("[null]")),
        ("-", Some("[null]")),
        ("- \n- x", Some("[null,\"x\"]")),
        ("a:\n  b:\n  c: 1", Some("{\"a\":{\"b\":null,\"c\":1}}")),
        ("a: [1, 2,]", Some("{\"a\":[1,2]}")),
        ("a: {b: 1,}", Some("{\"a\":{\"b\":1}}")),
        ("a: [a: 1, b]", Some("{\"a\":[{\"a\":1},\"b\"]}")),
        ("a: {b, c: 1}", Some("{\"a\":{\"b\":null,\"c\":1}}")),
        ("a: [? x : y]", Some("{\"a\":[{\"x\":\"y\"}]}")),
        ("{a: 1, b: [1, 2], c: {d: e}}", Some("{\"a\":1,\"b\":[1,2],\"c\":{\"d\":\"e\"}}")),
        ("a: b: c", None),
        ("a:\n\tb: 1", None),
        ("a: 1\n\tb: 2", None),
        ("a:\t1", Some("{\"a\":1}")),
        ("a: 1\t", Some("{\"a\":1}")),
        ("a: [1\nb: 2", None),
        ("a: \"abc\n", None),
        ("a: 'abc", None),
        ("a:\n  b: 1\n c: 2", None),
        ("a: @b", None),
        ("a: `b", None),
        ("a: %b", None),
        ("- a\nb: 1", None),
        ("a: 1\n- b", None),
        ("{a: 1", None),
        ("[1, 2", None),
        ("]", None),
        ("}", None),
        ("a: *", None),
        ("a: &x", Some("{\"a\":null}")),
        ("&x a: 1", Some("{\"a\":1}")),
        ("a: 1 # c\nb: 2 #c", Some("{\"a\":1,\"b\":2}")),
        ("a: b #c", Some("{\"a\":\"b\"}")),
        ("a: b#c", Some("{\"a\":\"b#c\"}")),
        ("#!yaml\na: 1", Some("{\"a\":1}")),
        ("a: |\n x\n  y\n", Some("{\"a\":\"x\\n y\\n\"}")),
        ("a: >\n\n  x\n", Some("{\"a\":\"\\nx\\n\"}")),
        ("\u{feff}a: 1", Some("{\"a\":1}")),
        ("a: 1\r\nb: 2\r\n", Some("{\"a\":1,\"b\":2}")),
        ("a: 1\rb: 2", Some("{\"a\":1,\"b\":2}")),
        ("a: \u{1}", None),
        ("a: \u{7f}", None),
        ("a: b\u{0}c", None),
        ("key with spaces: v", Some("{\"key with spaces\":\"v\"}")),
        ("'quoted key': v", Some("{\"quoted key\":\"v\"}")),
        ("\"dq key\": v", Some("{\"dq key\":\"v\"}")),
        ("a b: c d", Some("{\"a b\":\"c d\"}")),
        ("a: - 1", None),
        ("a:- 1", Some("\"a:- 1\"")),
        ("a: ---", Some("{\"a\":\"---\"}")),
        ("a: ...", Some("{\"a\":\"...\"}")),
        ("--- a\n--- b", None),
        ("a: 1\n--- b", None),
        ("a:\n  - b\n  -\n  - c", Some("{\"a\":[\"b\",null,\"c\"]}")),
        ("a: !!str\nb: 1", Some("{\"a\":\"\",\"b\":1}")),
        ("a: &anc\nb: *anc", Some("{\"a\":null,\"b\":null}")),
        ("? \n: x", Some("{\"null\":\"x\"}")),
        ("a:\n  ? b\n  : c", Some("{\"a\":{\"b\":\"c\"}}")),
        ("[a, b]: c", None),
        ("x: [a, b]: c", None),
        ("a: [b]c", None),
        ("a: 1\na: 1\na: 1\n", None),
        ("[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]", Some("[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]")),
        ("- 'a'\n- \"b\"\n- c\n- 'yes'\n- 0644\n- '0644'", Some("[\"a\",\"b\",\"c\",\"yes\",644,\"0644\"]")),
        ("a: !!python/tuple [1, 2]", None),
        ("a: !!python/name:os.system", None),
        ("a: !!python/object:foo {}", None),
        ("a: 1\n# comment\n\n\nb: 2\n...\n# trailing comment\n", Some("{\"a\":1,\"b\":2}")),
    ];

    /// (value in the encoding of `dec`, Salt's `safe_dump` text in block
    /// style, in flow style). Generated with real Salt 3007.8.
    const SALT_DUMPS: &[(&str, &str, &str)] = &[
        ("{\"s\": \"yes\"}", "s: 'yes'\n", "{s: 'yes'}\n"),
        ("{\"s\": \"no\"}", "s: 'no'\n", "{s: 'no'}\n"),
        ("{\"s\": \"on\"}", "s: 'on'\n", "{s: 'on'}\n"),
        ("{\"s\": \"off\"}", "s: 'off'\n", "{s: 'off'}\n"),
        ("{\"s\": \"y\"}", "s: y\n", "{s: y}\n"),
        ("{\"s\": \"n\"}", "s: n\n", "{s: n}\n"),
        ("{\"s\": \"true\"}", "s: 'true'\n", "{s: 'true'}\n"),
        ("{\"s\": \"True\"}", "s: 'True'\n", "{s: 'True'}\n"),
        ("{\"s\": \"null\"}", "s: 'null'\n", "{s: 'null'}\n"),
        ("{\"s\": \"Null\"}", "s: 'Null'\n", "{s: 'Null'}\n"),
        ("{\"s\": \"~\"}", "s: '~'\n", "{s: '~'}\n"),
        ("{\"s\": \"\"}", "s: ''\n", "{s: ''}\n"),
        ("{\"s\": \"0644\"}", "s: '0644'\n", "{s: '0644'}\n"),
        ("{\"s\": \"644\"}", "s: '644'\n", "{s: '644'}\n"),
        ("{\"s\": \"0x1F\"}", "s: '0x1F'\n", "{s: '0x1F'}\n"),
        ("{\"s\": \"1e3\"}", "s: 1e3\n", "{s: 1e3}\n"),
        ("{\"s\": \"1.5\"}", "s: '1.5'\n", "{s: '1.5'}\n"),
        ("{\"s\": \"1.10\"}", "s: '1.10'\n", "{s: '1.10'}\n"),
        ("{\"s\": \".inf\"}", "s: '.inf'\n", "{s: '.inf'}\n"),
        ("{\"s\": \".nan\"}", "s: '.nan'\n", "{s: '.nan'}\n"),
        ("{\"s\": \"-.inf\"}", "s: '-.inf'\n", "{s: '-.inf'}\n"),
        ("{\"s\": \"2024-01-02\"}", "s: '2024-01-02'\n", "{s: '2024-01-02'}\n"),
        ("{\"s\": \"2024-01-02 10:00:00\"}", "s: '2024-01-02 10:00:00'\n", "{s: '2024-01-02 10:00:00'}\n"),
        ("{\"s\": \"1:20\"}", "s: '1:20'\n", "{s: '1:20'}\n"),
        ("{\"s\": \"<<\"}", "s: '<<'\n", "{s: '<<'}\n"),
        ("{\"s\": \"=\"}", "s: '='\n", "{s: '='}\n"),
        ("{\"s\": \"!\"}", "s: '!'\n", "{s: '!'}\n"),
        ("{\"s\": \"&\"}", "s: '&'\n", "{s: '&'}\n"),
        ("{\"s\": \"*\"}", "s: '*'\n", "{s: '*'}\n"),
        ("{\"s\": \"-\"}", "s: '-'\n", "{s: '-'}\n"),
        ("{\"s\": \"--\"}", "s: --\n", "{s: --}\n"),
        ("{\"s\": \"---\"}", "s: '---'\n", "{s: '---'}\n"),
        ("{\"s\": \"--- x\"}", "s: '--- x'\n", "{s: '--- x'}\n"),
        ("{\"s\": \"...\"}", "s: '...'\n", "{s: '...'}\n"),
        ("{\"s\": \"... x\"}", "s: '... x'\n", "{s: '... x'}\n"),
        ("{\"s\": \"- \"}", "s: '- '\n", "{s: '- '}\n"),
        ("{\"s\": \"-a\"}", "s: -a\n", "{s: -a}\n"),
        ("{\"s\": \"- a\"}", "s: '- a'\n", "{s: '- a'}\n"),
        ("{\"s\": \":a\"}", "s: :a\n", "{s: ':a'}\n"),
        ("{\"s\": \"a:\"}", "s: 'a:'\n", "{s: 'a:'}\n"),
        ("{\"s\": \"a: b\"}", "s: 'a: b'\n", "{s: 'a: b'}\n"),
        ("{\"s\": \"a:b\"}", "s: a:b\n", "{s: 'a:b'}\n"),
        ("{\"s\": \"?\"}", "s: '?'\n", "{s: '?'}\n"),
        ("{\"s\": \"? a\"}", "s: '? a'\n", "{s: '? a'}\n"),
        ("{\"s\": \"?a\"}", "s: ?a\n", "{s: '?a'}\n"),
        ("{\"s\": \"#c\"}", "s: '#c'\n", "{s: '#c'}\n"),
        ("{\"s\": \"a #c\"}", "s: 'a #c'\n", "{s: 'a #c'}\n"),
        ("{\"s\": \"a#c\"}", "s: a#c\n", "{s: a#c}\n"),
        ("{\"s\": \"a# c\"}", "s: a# c\n", "{s: a# c}\n"),
        ("{\"s\": \" lead\"}", "s: ' lead'\n", "{s: ' lead'}\n"),
        ("{\"s\": \"trail \"}", "s: 'trail '\n", "{s: 'trail '}\n"),
        ("{\"s\": \"multi\\nline\"}", "s: 'multi\n\n  line'\n", "{s: 'multi\n\n    line'}\n"),
        ("{\"s\": \"multi\\nline\\n\"}", "s: 'multi\n\n  line\n\n  '\n", "{s: 'multi\n\n    line\n\n    '}\n"),
        ("{\"s\": \"\\nlead\"}", "s: '\n\n  lead'\n", "{s: '\n\n    lead'}\n"),
        ("{\"s\": \"a\\n\\nb\"}", "s: 'a\n\n\n  b'\n", "{s: 'a\n\n\n    b'}\n"),
        ("{\"s\": \"a\\n b\"}", "s: \"a\\n b\"\n", "{s: \"a\\n b\"}\n"),
        ("{\"s\": \"a \\nb\"}", "s: \"a \\nb\"\n", "{s: \"a \\nb\"}\n"),
        ("{\"s\": \"tab\\there\"}", "s: \"tab\\there\"\n", "{s: \"tab\\there\"}\n"),
        ("{\"s\": \"\\ttab\"}", "s: \"\\ttab\"\n", "{s: \"\\ttab\"}\n"),
        ("{\"s\": \"é unicode\"}", "s: é unicode\n", "{s: é unicode}\n"),
        ("{\"s\": \"日本語\"}", "s: 日本語\n", "{s: 日本語}\n"),
        ("{\"s\": \"emoji 😀\"}", "s: \"emoji \\U0001F600\"\n", "{s: \"emoji \\U0001F600\"}\n"),
        ("{\"s\": \"@at\"}", "s: '@at'\n", "{s: '@at'}\n"),
        ("{\"s\": \"`bt\"}", "s: '`bt'\n", "{s: '`bt'}\n"),
        ("{\"s\": \"quote's\"}", "s: quote's\n", "{s: quote's}\n"),
        ("{\"s\": \"\\\"dq\\\"\"}", "s: '\"dq\"'\n", "{s: '\"dq\"'}\n"),
        ("{\"s\": \"'sq'\"}", "s: '''sq'''\n", "{s: '''sq'''}\n"),
        ("{\"s\": \"*star\"}", "s: '*star'\n", "{s: '*star'}\n"),
        ("{\"s\": \"&amp\"}", "s: '&amp'\n", "{s: '&amp'}\n"),
        ("{\"s\": \"!bang\"}", "s: '!bang'\n", "{s: '!bang'}\n"),
        ("{\"s\": \"%pct\"}", "s: '%pct'\n", "{s: '%pct'}\n"),
        ("{\"s\": \"{b}\"}", "s: '{b}'\n", "{s: '{b}'}\n"),
        ("{\"s\": \"[b]\"}", "s: '[b]'\n", "{s: '[b]'}\n"),
        ("{\"s\": \"a,b\"}", "s: a,b\n", "{s: 'a,b'}\n"),
        ("{\"s\": \"a[b\"}", "s: a[b\n", "{s: 'a[b'}\n"),
        ("{\"s\": \"a]b\"}", "s: a]b\n", "{s: 'a]b'}\n"),
        ("{\"s\": \"a{b}\"}", "s: a{b}\n", "{s: 'a{b}'}\n"),
        ("{\"s\": \"|pipe\"}", "s: '|pipe'\n", "{s: '|pipe'}\n"),
        ("{\"s\": \">gt\"}", "s: '>gt'\n", "{s: '>gt'}\n"),
        ("{\"s\": \"a|b\"}", "s: a|b\n", "{s: a|b}\n"),
        ("{\"s\": \"a>b\"}", "s: a>b\n", "{s: a>b}\n"),
        ("{\"s\": \"\\\\back\"}", "s: \\back\n", "{s: \\back}\n"),
        ("{\"s\": \"nul\\u0000x\"}", "s: \"nul\\0x\"\n", "{s: \"nul\\0x\"}\n"),
        ("{\"s\": \"bell\\u0007\"}", "s: \"bell\\a\"\n", "{s: \"bell\\a\"}\n"),
        ("{\"s\": \"esc\\u001b\"}", "s: \"esc\\e\"\n", "{s: \"esc\\e\"}\n"),
        ("{\"s\": \"del\u{7f}\"}", "s: \"del\\x7F\"\n", "{s: \"del\\x7F\"}\n"),
        ("{\"s\": \"nel\u{85}x\"}", "s: \"nel\\Nx\"\n", "{s: \"nel\\Nx\"}\n"),
        ("{\"s\": \"nbsp x\"}", "s: nbsp x\n", "{s: nbsp x}\n"),
        ("{\"s\": \"ls\u{2028}x\"}", "s: 'ls\u{2028}  x'\n", "{s: 'ls\u{2028}    x'}\n"),
        ("{\"s\": \"ps\u{2029}x\"}", "s: 'ps\u{2029}  x'\n", "{s: 'ps\u{2029}    x'}\n"),
        ("{\"s\": \"bom\u{feff}x\"}", "s: \"bom\\uFEFFx\"\n", "{s: \"bom\\uFEFFx\"}\n"),
        ("{\"s\": \"cr\\rx\"}", "s: \"cr\\rx\"\n", "{s: \"cr\\rx\"}\n"),
        ("{\"s\": \"crlf\\r\\nx\"}", "s: \"crlf\\r\\nx\"\n", "{s: \"crlf\\r\\nx\"}\n"),
        ("{\"s\": \"\u{85}\"}", "s: \"\\N\"\n", "{s: \"\\N\"}\n"),
        ("{\"s\": \"=x\"}", "s: =x\n", "{s: =x}\n"),
        ("{\"s\": \"<<x\"}", "s: <<x\n", "{s: <<x}\n"),
        ("{\"s\": \"x<<\"}", "s: x<<\n", "{s: x<<}\n"),
        ("{\"s\": \"0\"}", "s: '0'\n", "{s: '0'}\n"),
        ("{\"s\": \"-0\"}", "s: '-0'\n", "{s: '-0'}\n"),
        ("{\"s\": \"+1\"}", "s: '+1'\n", "{s: '+1'}\n"),
        ("{\"s\": \"00\"}", "s: '00'\n", "{s: '00'}\n"),
        ("{\"s\": \"0.\"}", "s: '0.'\n", "{s: '0.'}\n"),
        ("{\"s\": \"._\"}", "s: ._\n", "{s: ._}\n"),
        ("{\"s\": \"1_000\"}", "s: '1_000'\n", "{s: '1_000'}\n"),
        ("{\"s\": \"0b1\"}", "s: '0b1'\n", "{s: '0b1'}\n"),
        ("{\"s\": \"0o7\"}", "s: 0o7\n", "{s: 0o7}\n"),
        ("{\"s\": \"1:70\"}", "s: 1:70\n", "{s: '1:70'}\n"),
        ("{\"s\": \"123456789012345678901234567890\"}", "s: '123456789012345678901234567890'\n", "{s: '123456789012345678901234567890'}\n"),
        ("{\"s\": \"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\"}", "s: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\n", "{s: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa}\n"),
        ("{\"s\": \"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\"}", "s: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\n", "{s: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa}\n"),
        ("{\"s\": \"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\"}", "s: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\n", "{s: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa}\n"),
        ("{\"s\": \"word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word \"}", "s: 'word word word word word word word word word word word word word word word word\n  word word word word word word word word word word word word word word '\n", "{s: 'word word word word word word word word word word word word word word word word\n    word word word word word word word word word word word word word word '}\n"),
        ("{\"s\": \"word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word end\"}", "s: word word word word word word word word word word word word word word word word\n  word word word word word word word word word word word word word word end\n", "{s: word word word word word word word word word word word word word word word word\n    word word word word word word word word word word word word word word end}\n"),
        ("{\"s\": \"longwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongword longwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongword longwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongword \"}", "s: 'longwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongword\n  longwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongword\n  longwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongword '\n", "{s: 'longwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongword\n    longwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongword\n    longwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongword '}\n"),
        ("{\"s\": \"x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x \"}", "s: 'x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x\n  x x x x x x x x x x x '\n", "{s: 'x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x\n    x x x x x x x x x x x '}\n"),
        ("{\"s\": \"a  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  b\"}", "s: a  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  b\n", "{s: a  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  b}\n"),
        ("{\"s\": \"spaces   in   a   row spaces   in   a   row spaces   in   a   row spaces   in   a   row spaces   in   a   row spaces   in   a   row \"}", "s: 'spaces   in   a   row spaces   in   a   row spaces   in   a   row spaces   in   a   row\n  spaces   in   a   row spaces   in   a   row '\n", "{s: 'spaces   in   a   row spaces   in   a   row spaces   in   a   row spaces   in   a   row\n    spaces   in   a   row spaces   in   a   row '}\n"),
        ("{\"s\": \"éééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééé x éééééééééé\"}", "s: éééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééé\n  x éééééééééé\n", "{s: éééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééé\n    x éééééééééé}\n"),
        ("{\"s\": \"quoted 'long' string with quote quoted 'long' string with quote quoted 'long' string with quote quoted 'long' string with quote quoted 'long' string with quote \"}", "s: 'quoted ''long'' string with quote quoted ''long'' string with quote quoted ''long''\n  string with quote quoted ''long'' string with quote quoted ''long'' string with\n  quote '\n", "{s: 'quoted ''long'' string with quote quoted ''long'' string with quote quoted ''long''\n    string with quote quoted ''long'' string with quote quoted ''long'' string with\n    quote '}\n"),
        ("{\"s\": \"multi\\nline with 'quote' and word word word word word word word word word word word word word word word word word word word word \"}", "s: 'multi\n\n  line with ''quote'' and word word word word word word word word word word word word\n  word word word word word word word word '\n", "{s: 'multi\n\n    line with ''quote'' and word word word word word word word word word word word\n    word word word word word word word word word '}\n"),
        ("{\"s\": \"dq needed\\tword word word word word word word word word word word word word word word word word word word word word word word word word \"}", "s: \"dq needed\\tword word word word word word word word word word word word word word\n  word word word word word word word word word word word \"\n", "{s: \"dq needed\\tword word word word word word word word word word word word word word\n    word word word word word word word word word word word \"}\n"),
        ("{\"s\": \"trailing space trailing space trailing space trailing space trailing space trailing space trailing space trailing space trailing space trailing space  \"}", "s: 'trailing space trailing space trailing space trailing space trailing space trailing\n  space trailing space trailing space trailing space trailing space  '\n", "{s: 'trailing space trailing space trailing space trailing space trailing space trailing\n    space trailing space trailing space trailing space trailing space  '}\n"),
        ("{\"s\": \" leading word word word word word word word word word word word word word word word word word word word word word word word word word \"}", "s: ' leading word word word word word word word word word word word word word word\n  word word word word word word word word word word word '\n", "{s: ' leading word word word word word word word word word word word word word word\n    word word word word word word word word word word word '}\n"),
        ("{\"on\": 1}", "'on': 1\n", "{'on': 1}\n"),
        ("{\"true\": 1}", "'true': 1\n", "{'true': 1}\n"),
        ("{\"~\": 1}", "'~': 1\n", "{'~': 1}\n"),
        ("{\"0x1F\": 1}", "'0x1F': 1\n", "{'0x1F': 1}\n"),
        ("{\".inf\": 1}", "'.inf': 1\n", "{'.inf': 1}\n"),
        ("{\"2024-01-02 10:00:00\": 1}", "'2024-01-02 10:00:00': 1\n", "{'2024-01-02 10:00:00': 1}\n"),
        ("{\"!\": 1}", "'!': 1\n", "{'!': 1}\n"),
        ("{\"--\": 1}", "--: 1\n", "{--: 1}\n"),
        ("{\"... x\": 1}", "'... x': 1\n", "{'... x': 1}\n"),
        ("{\":a\": 1}", ":a: 1\n", "{':a': 1}\n"),
        ("{\"?\": 1}", "'?': 1\n", "{'?': 1}\n"),
        ("{\"a #c\": 1}", "'a #c': 1\n", "{'a #c': 1}\n"),
        ("{\"trail \": 1}", "'trail ': 1\n", "{'trail ': 1}\n"),
        ("{\"a\\n\\nb\": 1}", "? 'a\n\n\n  b'\n: 1\n", "{? 'a\n\n\n    b' : 1}\n"),
        ("{\"\\ttab\": 1}", "\"\\ttab\": 1\n", "{\"\\ttab\": 1}\n"),
        ("{\"@at\": 1}", "'@at': 1\n", "{'@at': 1}\n"),
        ("{\"'sq'\": 1}", "'''sq''': 1\n", "{'''sq''': 1}\n"),
        ("{\"%pct\": 1}", "'%pct': 1\n", "{'%pct': 1}\n"),
        ("{\"a[b\": 1}", "a[b: 1\n", "{'a[b': 1}\n"),
        ("{\">gt\": 1}", "'>gt': 1\n", "{'>gt': 1}\n"),
        ("{\"nul\\u0000x\": 1}", "\"nul\\0x\": 1\n", "{\"nul\\0x\": 1}\n"),
        ("{\"nel\u{85}x\": 1}", "? \"nel\\Nx\"\n: 1\n", "{? \"nel\\Nx\" : 1}\n"),
        ("{\"bom\u{feff}x\": 1}", "\"bom\\uFEFFx\": 1\n", "{\"bom\\uFEFFx\": 1}\n"),
        ("{\"=x\": 1}", "=x: 1\n", "{=x: 1}\n"),
        ("{\"-0\": 1}", "'-0': 1\n", "{'-0': 1}\n"),
        ("{\"._\": 1}", "._: 1\n", "{._: 1}\n"),
        ("{\"1:70\": 1}", "1:70: 1\n", "{'1:70': 1}\n"),
        ("{\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\": 1}", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa: 1\n", "{aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa: 1}\n"),
        ("{\"word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word \": 1}", "? 'word word word word word word word word word word word word word word word word\n  word word word word word word word word word word word word word word '\n: 1\n", "{? 'word word word word word word word word word word word word word word word word\n    word word word word word word word word word word word word word word ' : 1}\n"),
        ("{\"word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word end\": 1}", "? word word word word word word word word word word word word word word word word\n  word word word word word word word word word word word word word word end\n: 1\n", "{? word word word word word word word word word word word word word word word word\n    word word word word word word word word word word word word word word end : 1}\n"),
        ("{\"longwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongword longwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongword longwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongword \": 1}", "? 'longwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongword\n  longwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongword\n  longwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongword '\n: 1\n", "{? 'longwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongword\n    longwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongword\n    longwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongword '\n  : 1}\n"),
        ("{\"x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x \": 1}", "'x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x ': 1\n", "{'x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x ': 1}\n"),
        ("{\"a  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  b\": 1}", "a  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  b: 1\n", "{a  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  b: 1}\n"),
        ("{\"spaces   in   a   row spaces   in   a   row spaces   in   a   row spaces   in   a   row spaces   in   a   row spaces   in   a   row \": 1}", "? 'spaces   in   a   row spaces   in   a   row spaces   in   a   row spaces   in   a   row\n  spaces   in   a   row spaces   in   a   row '\n: 1\n", "{? 'spaces   in   a   row spaces   in   a   row spaces   in   a   row spaces   in   a   row\n    spaces   in   a   row spaces   in   a   row ' : 1}\n"),
        ("{\"éééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééé x éééééééééé\": 1}", "? éééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééé\n  x éééééééééé\n: 1\n", "{? éééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééé\n    x éééééééééé : 1}\n"),
        ("{\"quoted 'long' string with quote quoted 'long' string with quote quoted 'long' string with quote quoted 'long' string with quote quoted 'long' string with quote \": 1}", "? 'quoted ''long'' string with quote quoted ''long'' string with quote quoted ''long''\n  string with quote quoted ''long'' string with quote quoted ''long'' string with\n  quote '\n: 1\n", "{? 'quoted ''long'' string with quote quoted ''long'' string with quote quoted ''long''\n    string with quote quoted ''long'' string with quote quoted ''long'' string with\n    quote ' : 1}\n"),
        ("{\"multi\\nline with 'quote' and word word word word word word word word word word word word word word word word word word word word \": 1}", "? 'multi\n\n  line with ''quote'' and word word word word word word word word word word word word\n  word word word word word word word word '\n: 1\n", "{? 'multi\n\n    line with ''quote'' and word word word word word word word word word word word\n    word word word word word word word word word ' : 1}\n"),
        ("{\"dq needed\\tword word word word word word word word word word word word word word word word word word word word word word word word word \": 1}", "? \"dq needed\\tword word word word word word word word word word word word word word\n  word word word word word word word word word word word \"\n: 1\n", "{? \"dq needed\\tword word word word word word word word word word word word word word\n    word word word word word word word word word word word \" : 1}\n"),
        ("{\"trailing space trailing space trailing space trailing space trailing space trailing space trailing space trailing space trailing space trailing space  \": 1}", "? 'trailing space trailing space trailing space trailing space trailing space trailing\n  space trailing space trailing space trailing space trailing space  '\n: 1\n", "{? 'trailing space trailing space trailing space trailing space trailing space trailing\n    space trailing space trailing space trailing space trailing space  ' : 1}\n"),
        ("{\" leading word word word word word word word word word word word word word word word word word word word word word word word word word \": 1}", "? ' leading word word word word word word word word word word word word word word\n  word word word word word word word word word word word '\n: 1\n", "{? ' leading word word word word word word word word word word word word word word\n    word word word word word word word word word word word ' : 1}\n"),
        ("null", "null\n", "null\n"),
        ("true", "true\n", "true\n"),
        ("false", "false\n", "false\n"),
        ("0", "0\n", "0\n"),
        ("1", "1\n", "1\n"),
        ("-1", "-1\n", "-1\n"),
        ("42", "42\n", "42\n"),
        ("4611686018427387904", "4611686018427387904\n", "4611686018427387904\n"),
        ("{\"f\": \"1.5\"}", "1.5\n", "1.5\n"),
        ("{\"f\": \"0.1\"}", "0.1\n", "0.1\n"),
        ("{\"f\": \"1e+16\"}", "1.0e+16\n", "1.0e+16\n"),
        ("{\"f\": \"1e+17\"}", "1.0e+17\n", "1.0e+17\n"),
        ("{\"f\": \"1e-05\"}", "1.0e-05\n", "1.0e-05\n"),
        ("{\"f\": \"1e-07\"}", "1.0e-07\n", "1.0e-07\n"),
        ("{\"f\": \"123456789.123\"}", "123456789.123\n", "123456789.123\n"),
        ("{\"f\": \"inf\"}", ".inf\n", ".inf\n"),
        ("{\"f\": \"-inf\"}", "-.inf\n", "-.inf\n"),
        ("{\"f\": \"nan\"}", ".nan\n", ".nan\n"),
        ("{\"f\": \"-0.0\"}", "-0.0\n", "-0.0\n"),
        ("{\"f\": \"3.0\"}", "3.0\n", "3.0\n"),
        ("{\"f\": \"1e+300\"}", "1.0e+300\n", "1.0e+300\n"),
        ("{\"f\": \"2.5e-300\"}", "2.5e-300\n", "2.5e-300\n"),
        ("{\"f\": \"0.30000000000000004\"}", "0.30000000000000004\n", "0.30000000000000004\n"),
        ("[]", "[]\n", "[]\n"),
        ("{}", "{}\n", "{}\n"),
        ("[[]]", "- []\n", "[[]]\n"),
        ("[{}]", "- {}\n", "[{}]\n"),
        ("{\"a\": []}", "a: []\n", "{a: []}\n"),
        ("{\"a\": {}}", "a: {}\n", "{a: {}}\n"),
        ("{\"a\": [1, 2]}", "a:\n- 1\n- 2\n", "{a: [1, 2]}\n"),
        ("{\"a\": {\"b\": [1, {\"c\": [2, []]}]}}", "a:\n  b:\n  - 1\n  - c:\n    - 2\n    - []\n", "{a: {b: [1, {c: [2, []]}]}}\n"),
        ("[[1, 2], [3, [4, 5]]]", "- - 1\n  - 2\n- - 3\n  - - 4\n    - 5\n", "[[1, 2], [3, [4, 5]]]\n"),
        ("[{\"a\": 1, \"b\": 2}, {\"c\": [1]}]", "- a: 1\n  b: 2\n- c:\n  - 1\n", "[{a: 1, b: 2}, {c: [1]}]\n"),
        ("{\"b\": 1, \"a\": 2, \"C\": 3, \"_\": 4, \"é\": 5, \"1\": 6, \"10\": 7, \"2\": 8}", "'1': 6\n'10': 7\n'2': 8\nC: 3\n_: 4\na: 2\nb: 1\né: 5\n", "{'1': 6, '10': 7, '2': 8, C: 3, _: 4, a: 2, b: 1, é: 5}\n"),
        ("{\"kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk\": 1}", "kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk: 1\n", "{kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk: 1}\n"),
        ("{\"kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk\": 1}", "? kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk\n: 1\n", "{? kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk\n  : 1}\n"),
        ("{\"kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkké\": 1}", "? kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkké\n: 1\n", "{? kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkké\n  : 1}\n"),
        ("{\"multi\\nkey\": [1, 2]}", "? 'multi\n\n  key'\n: - 1\n  - 2\n", "{? 'multi\n\n    key' : [1, 2]}\n"),
        ("{\"multi\\nkey\": {\"a\": 1}}", "? 'multi\n\n  key'\n: a: 1\n", "{? 'multi\n\n    key' : {a: 1}}\n"),
        ("{\"\": 1}", "'': 1\n", "{'': 1}\n"),
        ("[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39]", "- 0\n- 1\n- 2\n- 3\n- 4\n- 5\n- 6\n- 7\n- 8\n- 9\n- 10\n- 11\n- 12\n- 13\n- 14\n- 15\n- 16\n- 17\n- 18\n- 19\n- 20\n- 21\n- 22\n- 23\n- 24\n- 25\n- 26\n- 27\n- 28\n- 29\n- 30\n- 31\n- 32\n- 33\n- 34\n- 35\n- 36\n- 37\n- 38\n- 39\n", "[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22,\n  23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39]\n"),
        ("[\"item0\", \"item1\", \"item2\", \"item3\", \"item4\", \"item5\", \"item6\", \"item7\", \"item8\", \"item9\", \"item10\", \"item11\", \"item12\", \"item13\", \"item14\", \"item15\", \"item16\", \"item17\", \"item18\", \"item19\", \"item20\", \"item21\", \"item22\", \"item23\", \"item24\", \"item25\", \"item26\", \"item27\", \"item28\", \"item29\"]", "- item0\n- item1\n- item2\n- item3\n- item4\n- item5\n- item6\n- item7\n- item8\n- item9\n- item10\n- item11\n- item12\n- item13\n- item14\n- item15\n- item16\n- item17\n- item18\n- item19\n- item20\n- item21\n- item22\n- item23\n- item24\n- item25\n- item26\n- item27\n- item28\n- item29\n", "[item0, item1, item2, item3, item4, item5, item6, item7, item8, item9, item10, item11,\n  item12, item13, item14, item15, item16, item17, item18, item19, item20, item21,\n  item22, item23, item24, item25, item26, item27, item28, item29]\n"),
        ("{\"k0\": \"value number 0\", \"k1\": \"value number 1\", \"k2\": \"value number 2\", \"k3\": \"value number 3\", \"k4\": \"value number 4\", \"k5\": \"value number 5\", \"k6\": \"value number 6\", \"k7\": \"value number 7\", \"k8\": \"value number 8\", \"k9\": \"value number 9\", \"k10\": \"value number 10\", \"k11\": \"value number 11\", \"k12\": \"value number 12\", \"k13\": \"value number 13\", \"k14\": \"value number 14\"}", "k0: value number 0\nk1: value number 1\nk10: value number 10\nk11: value number 11\nk12: value number 12\nk13: value number 13\nk14: value number 14\nk2: value number 2\nk3: value number 3\nk4: value number 4\nk5: value number 5\nk6: value number 6\nk7: value number 7\nk8: value number 8\nk9: value number 9\n", "{k0: value number 0, k1: value number 1, k10: value number 10, k11: value number 11,\n  k12: value number 12, k13: value number 13, k14: value number 14, k2: value number\n    2, k3: value number 3, k4: value number 4, k5: value number 5, k6: value number\n    6, k7: value number 7, k8: value number 8, k9: value number 9}\n"),
        ("{\"nested\": {\"list\": [\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\", \"bbbbbbbbbbbbbbbbbbbbbbbbbbbbbb\", \"cccccccccccccccccccccccccccccc\", {\"dddddddddddddddddddddddddddddd\": \"eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee\"}]}}", "nested:\n  list:\n  - aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\n  - bbbbbbbbbbbbbbbbbbbbbbbbbbbbbb\n  - cccccccccccccccccccccccccccccc\n  - dddddddddddddddddddddddddddddd: eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee\n", "{nested: {list: [aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa, bbbbbbbbbbbbbbbbbbbbbbbbbbbbbb, cccccccccccccccccccccccccccccc,\n      {dddddddddddddddddddddddddddddd: eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee}]}}\n"),
        ("{\"deep\": [[[[[\"xxxxxxxxxxxxxxxxxxxx\", \"yyyyyyyyyyyyyyyyyyyy\", \"zzzzzzzzzzzzzzzzzzzz\", \"wwwwwwwwwwwwwwwwwwww\"]]]]]}", "deep:\n- - - - - xxxxxxxxxxxxxxxxxxxx\n        - yyyyyyyyyyyyyyyyyyyy\n        - zzzzzzzzzzzzzzzzzzzz\n        - wwwwwwwwwwwwwwwwwwww\n", "{deep: [[[[[xxxxxxxxxxxxxxxxxxxx, yyyyyyyyyyyyyyyyyyyy, zzzzzzzzzzzzzzzzzzzz, wwwwwwwwwwwwwwwwwwww]]]]]}\n"),
        ("[{\"k\": \"long value long value long value long value long value long value long value long value long value long value long value long value \"}]", "- k: 'long value long value long value long value long value long value long value\n    long value long value long value long value long value '\n", "[{k: 'long value long value long value long value long value long value long value\n      long value long value long value long value long value '}]\n"),
        ("{\"a\": \"x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x \"}", "a: 'x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x\n  x x x x x x x x x x x x x x x x x x x x x '\n", "{a: 'x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x\n    x x x x x x x x x x x x x x x x x x x x x '}\n"),
        ("[[\"long value long value long value long value long value long value long value long value long value long value long value long value \"]]", "- - 'long value long value long value long value long value long value long value\n    long value long value long value long value long value '\n", "[['long value long value long value long value long value long value long value long\n      value long value long value long value long value ']]\n"),
        ("{\"local\": {\"zeta\": \"last\", \"alpha\": {\"b_key\": 1, \"a_key\": 2}, \"list\": [\"yes\", \"0644\", \"\", null, {\"f\": \"1.5\"}, {\"x\": []}]}}", "local:\n  alpha:\n    a_key: 2\n    b_key: 1\n  list:\n  - 'yes'\n  - '0644'\n  - ''\n  - null\n  - 1.5\n  - x: []\n  zeta: last\n", "{local: {alpha: {a_key: 2, b_key: 1}, list: ['yes', '0644', '', null, 1.5, {x: []}],\n    zeta: last}}\n"),
    ];

    /// (text, Salt's `yaml_dquote`, `yaml_squote`, `yaml_encode`).
    /// Generated with real Salt 3007.8.
    const SALT_QUOTES: &[(&str, &str, &str, Option<&str>)] = &[
        ("yes", "\"yes\"", "'yes'", Some("\"yes\"")),
        ("no", "\"no\"", "'no'", Some("\"no\"")),
        ("on", "\"on\"", "'on'", Some("\"on\"")),
        ("off", "\"off\"", "'off'", Some("\"off\"")),
        ("y", "\"y\"", "'y'", Some("\"y\"")),
        ("n", "\"n\"", "'n'", Some("\"n\"")),
        ("true", "\"true\"", "'true'", Some("\"true\"")),
        ("True", "\"True\"", "'True'", Some("\"True\"")),
        ("null", "\"null\"", "'null'", Some("\"null\"")),
        ("Null", "\"Null\"", "'Null'", Some("\"Null\"")),
        ("~", "\"~\"", "'~'", Some("\"~\"")),
        ("", "\"\"", "''", Some("\"\"")),
        ("0644", "\"0644\"", "'0644'", Some("\"0644\"")),
        ("644", "\"644\"", "'644'", Some("\"644\"")),
        ("0x1F", "\"0x1F\"", "'0x1F'", Some("\"0x1F\"")),
        ("1e3", "\"1e3\"", "'1e3'", Some("\"1e3\"")),
        ("1.5", "\"1.5\"", "'1.5'", Some("\"1.5\"")),
        ("1.10", "\"1.10\"", "'1.10'", Some("\"1.10\"")),
        (".inf", "\".inf\"", "'.inf'", Some("\".inf\"")),
        (".nan", "\".nan\"", "'.nan'", Some("\".nan\"")),
        ("-.inf", "\"-.inf\"", "'-.inf'", Some("\"-.inf\"")),
        ("2024-01-02", "\"2024-01-02\"", "'2024-01-02'", Some("\"2024-01-02\"")),
        ("2024-01-02 10:00:00", "\"2024-01-02 10:00:00\"", "'2024-01-02 10:00:00'", Some("\"2024-01-02 10:00:00\"")),
        ("1:20", "\"1:20\"", "'1:20'", Some("\"1:20\"")),
        ("<<", "\"<<\"", "'<<'", Some("\"<<\"")),
        ("=", "\"=\"", "'='", Some("\"=\"")),
        ("!", "\"!\"", "'!'", Some("\"!\"")),
        ("&", "\"&\"", "'&'", Some("\"&\"")),
        ("*", "\"*\"", "'*'", Some("\"*\"")),
        ("-", "\"-\"", "'-'", Some("\"-\"")),
        ("--", "\"--\"", "'--'", Some("\"--\"")),
        ("---", "\"---\"", "'---'", Some("\"---\"")),
        ("--- x", "\"--- x\"", "'--- x'", Some("\"--- x\"")),
        ("...", "\"...\"", "'...'", Some("\"...\"")),
        ("... x", "\"... x\"", "'... x'", Some("\"... x\"")),
        ("- ", "\"- \"", "'- '", Some("\"- \"")),
        ("-a", "\"-a\"", "'-a'", Some("\"-a\"")),
        ("- a", "\"- a\"", "'- a'", Some("\"- a\"")),
        (":a", "\":a\"", "':a'", Some("\":a\"")),
        ("a:", "\"a:\"", "'a:'", Some("\"a:\"")),
        ("a: b", "\"a: b\"", "'a: b'", Some("\"a: b\"")),
        ("a:b", "\"a:b\"", "'a:b'", Some("\"a:b\"")),
        ("?", "\"?\"", "'?'", Some("\"?\"")),
        ("? a", "\"? a\"", "'? a'", Some("\"? a\"")),
        ("?a", "\"?a\"", "'?a'", Some("\"?a\"")),
        ("#c", "\"#c\"", "'#c'", Some("\"#c\"")),
        ("a #c", "\"a #c\"", "'a #c'", Some("\"a #c\"")),
        ("a#c", "\"a#c\"", "'a#c'", Some("\"a#c\"")),
        ("a# c", "\"a# c\"", "'a# c'", Some("\"a# c\"")),
        (" lead", "\" lead\"", "' lead'", Some("\" lead\"")),
        ("trail ", "\"trail \"", "'trail '", Some("\"trail \"")),
        ("multi\nline", "\"multi\\nline\"", "'multi\n\nline'", Some("\"multi\\nline\"")),
        ("multi\nline\n", "\"multi\\nline\\n\"", "'multi\n\nline\n\n'", Some("\"multi\\nline\\n\"")),
        ("\nlead", "\"\\nlead\"", "'\n\nlead'", Some("\"\\nlead\"")),
        ("a\n\nb", "\"a\\n\\nb\"", "'a\n\n\nb'", Some("\"a\\n\\nb\"")),
        ("a\n b", "\"a\\n b\"", "'a\n\n b'", Some("\"a\\n b\"")),
        ("a \nb", "\"a \\nb\"", "'a \n\nb'", Some("\"a \\nb\"")),
        ("tab\there", "\"tab\\there\"", "'tab\there'", Some("\"tab\\there\"")),
        ("\ttab", "\"\\ttab\"", "'\ttab'", Some("\"\\ttab\"")),
        ("é unicode", "\"\\xE9 unicode\"", "'é unicode'", Some("\"\\xE9 unicode\"")),
        ("日本語", "\"\\u65E5\\u672C\\u8A9E\"", "'日本語'", Some("\"\\u65E5\\u672C\\u8A9E\"")),
        ("emoji 😀", "\"emoji \\U0001F600\"", "'emoji 😀'", Some("\"emoji \\U0001F600\"")),
        ("@at", "\"@at\"", "'@at'", Some("\"@at\"")),
        ("`bt", "\"`bt\"", "'`bt'", Some("\"`bt\"")),
        ("quote's", "\"quote's\"", "'quote''s'", Some("\"quote's\"")),
        ("\"dq\"", "\"\\\"dq\\\"\"", "'\"dq\"'", Some("\"\\\"dq\\\"\"")),
        ("'sq'", "\"'sq'\"", "'''sq'''", Some("\"'sq'\"")),
        ("*star", "\"*star\"", "'*star'", Some("\"*star\"")),
        ("&amp", "\"&amp\"", "'&amp'", Some("\"&amp\"")),
        ("!bang", "\"!bang\"", "'!bang'", Some("\"!bang\"")),
        ("%pct", "\"%pct\"", "'%pct'", Some("\"%pct\"")),
        ("{b}", "\"{b}\"", "'{b}'", Some("\"{b}\"")),
        ("[b]", "\"[b]\"", "'[b]'", Some("\"[b]\"")),
        ("a,b", "\"a,b\"", "'a,b'", Some("\"a,b\"")),
        ("a[b", "\"a[b\"", "'a[b'", Some("\"a[b\"")),
        ("a]b", "\"a]b\"", "'a]b'", Some("\"a]b\"")),
        ("a{b}", "\"a{b}\"", "'a{b}'", Some("\"a{b}\"")),
        ("|pipe", "\"|pipe\"", "'|pipe'", Some("\"|pipe\"")),
        (">gt", "\">gt\"", "'>gt'", Some("\">gt\"")),
        ("a|b", "\"a|b\"", "'a|b'", Some("\"a|b\"")),
        ("a>b", "\"a>b\"", "'a>b'", Some("\"a>b\"")),
        ("\\back", "\"\\\\back\"", "'\\back'", Some("\"\\\\back\"")),
        ("nul\u{0}x", "\"nul\\0x\"", "'nul\u{0}x'", Some("\"nul\\0x\"")),
        ("bell\u{7}", "\"bell\\a\"", "'bell\u{7}'", Some("\"bell\\a\"")),
        ("esc\u{1b}", "\"esc\\e\"", "'esc\u{1b}'", Some("\"esc\\e\"")),
        ("del\u{7f}", "\"del\\x7F\"", "'del\u{7f}'", Some("\"del\\x7F\"")),
        ("nel\u{85}x", "\"nel\\Nx\"", "'nel\u{85}x'", Some("\"nel\\Nx\"")),
        ("nbsp x", "\"nbsp\\_x\"", "'nbsp x'", Some("\"nbsp\\_x\"")),
        ("ls\u{2028}x", "\"ls\\Lx\"", "'ls\u{2028}x'", Some("\"ls\\Lx\"")),
        ("ps\u{2029}x", "\"ps\\Px\"", "'ps\u{2029}x'", Some("\"ps\\Px\"")),
        ("bom\u{feff}x", "\"bom\\uFEFFx\"", "'bom\u{feff}x'", Some("\"bom\\uFEFFx\"")),
        ("cr\rx", "\"cr\\rx\"", "'cr\rx'", Some("\"cr\\rx\"")),
        ("crlf\r\nx", "\"crlf\\r\\nx\"", "'crlf\r\n\nx'", Some("\"crlf\\r\\nx\"")),
        ("\u{85}", "\"\\N\"", "'\u{85}'", Some("\"\\N\"")),
        ("=x", "\"=x\"", "'=x'", Some("\"=x\"")),
        ("<<x", "\"<<x\"", "'<<x'", Some("\"<<x\"")),
        ("x<<", "\"x<<\"", "'x<<'", Some("\"x<<\"")),
        ("0", "\"0\"", "'0'", Some("\"0\"")),
        ("-0", "\"-0\"", "'-0'", Some("\"-0\"")),
        ("+1", "\"+1\"", "'+1'", Some("\"+1\"")),
        ("00", "\"00\"", "'00'", Some("\"00\"")),
        ("0.", "\"0.\"", "'0.'", Some("\"0.\"")),
        ("._", "\"._\"", "'._'", Some("\"._\"")),
        ("1_000", "\"1_000\"", "'1_000'", Some("\"1_000\"")),
        ("0b1", "\"0b1\"", "'0b1'", Some("\"0b1\"")),
        ("0o7", "\"0o7\"", "'0o7'", Some("\"0o7\"")),
        ("1:70", "\"1:70\"", "'1:70'", Some("\"1:70\"")),
        ("123456789012345678901234567890", "\"123456789012345678901234567890\"", "'123456789012345678901234567890'", Some("\"123456789012345678901234567890\"")),
        ("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\"", "'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa'", Some("\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\"")),
        ("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\"", "'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa'", Some("\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\"")),
        ("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\"", "'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa'", Some("\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\"")),
        ("word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word ", "\"word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word \"", "'word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word '", Some("\"word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word \"")),
        ("word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word end", "\"word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word end\"", "'word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word end'", Some("\"word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word end\"")),
        ("longwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongword longwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongword longwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongword ", "\"longwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongword longwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongword longwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongword \"", "'longwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongword longwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongword longwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongword '", Some("\"longwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongword longwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongword longwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongword \"")),
        ("x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x ", "\"x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x \"", "'x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x '", Some("\"x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x \"")),
        ("a  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  b", "\"a  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  b\"", "'a  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  b'", Some("\"a  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  b\"")),
        ("spaces   in   a   row spaces   in   a   row spaces   in   a   row spaces   in   a   row spaces   in   a   row spaces   in   a   row ", "\"spaces   in   a   row spaces   in   a   row spaces   in   a   row spaces   in   a   row spaces   in   a   row spaces   in   a   row \"", "'spaces   in   a   row spaces   in   a   row spaces   in   a   row spaces   in   a   row spaces   in   a   row spaces   in   a   row '", Some("\"spaces   in   a   row spaces   in   a   row spaces   in   a   row spaces   in   a   row spaces   in   a   row spaces   in   a   row \"")),
        ("éééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééé x éééééééééé", "\"\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9 x \\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\"", "'éééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééé x éééééééééé'", Some("\"\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9 x \\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\"")),
        ("quoted 'long' string with quote quoted 'long' string with quote quoted 'long' string with quote quoted 'long' string with quote quoted 'long' string with quote ", "\"quoted 'long' string with quote quoted 'long' string with quote quoted 'long' string with quote quoted 'long' string with quote quoted 'long' string with quote \"", "'quoted ''long'' string with quote quoted ''long'' string with quote quoted ''long'' string with quote quoted ''long'' string with quote quoted ''long'' string with quote '", Some("\"quoted 'long' string with quote quoted 'long' string with quote quoted 'long' string with quote quoted 'long' string with quote quoted 'long' string with quote \"")),
        ("multi\nline with 'quote' and word word word word word word word word word word word word word word word word word word word word ", "\"multi\\nline with 'quote' and word word word word word word word word word word word word word word word word word word word word \"", "'multi\n\nline with ''quote'' and word word word word word word word word word word word word word word word word word word word word '", Some("\"multi\\nline with 'quote' and word word word word word word word word word word word word word word word word word word word word \"")),
        ("dq needed\tword word word word word word word word word word word word word word word word word word word word word word word word word ", "\"dq needed\\tword word word word word word word word word word word word word word word word word word word word word word word word word \"", "'dq needed\tword word word word word word word word word word word word word word word word word word word word word word word word word '", Some("\"dq needed\\tword word word word word word word word word word word word word word word word word word word word word word word word word \"")),
        ("trailing space trailing space trailing space trailing space trailing space trailing space trailing space trailing space trailing space trailing space  ", "\"trailing space trailing space trailing space trailing space trailing space trailing space trailing space trailing space trailing space trailing space  \"", "'trailing space trailing space trailing space trailing space trailing space trailing space trailing space trailing space trailing space trailing space  '", Some("\"trailing space trailing space trailing space trailing space trailing space trailing space trailing space trailing space trailing space trailing space  \"")),
        (" leading word word word word word word word word word word word word word word word word word word word word word word word word word ", "\" leading word word word word word word word word word word word word word word word word word word word word word word word word word \"", "' leading word word word word word word word word word word word word word word word word word word word word word word word word word '", Some("\" leading word word word word word word word word word word word word word word word word word word word word word word word word word \"")),
    ];
}
