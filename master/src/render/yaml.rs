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

use brine_protocol::value::{key_string, python_float_repr, Map};
use brine_protocol::Value;
use saphyr_parser::{Event, Parser, ScalarStyle, ScanError, Span, Tag};
use std::borrow::Cow;
use std::collections::{HashMap, HashSet};

/// Nesting deeper than this is refused: the Python side (json output,
/// Jinja) gives up near 1000 levels anyway, and recursion over the value
/// tree must stay well inside a thread's stack.
const MAX_DEPTH: usize = 512;

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
    pub fn salt_text(&self) -> String {
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
            if i < self.0.len() {
                self.0[i] = (v % Self::BASE) as u32;
            } else {
                self.0.push((v % Self::BASE) as u32);
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

    fn construct(&mut self, id: NodeId, depth: usize) -> Result<Value, YamlError> {
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
        if self.active.get(id).copied().unwrap_or(false) {
            return Err(YamlError::constructor(
                "found unconstructable recursive node",
                node.pos,
            ));
        }
        if let Some(a) = self.active.get_mut(id) {
            *a = true;
        }
        let result = self.construct_inner(id, node, depth);
        if let Some(a) = self.active.get_mut(id) {
            *a = false;
        }
        result
    }

    fn construct_inner(
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
                Kind::Seq => Err(YamlError::constructor(
                    "expected a sequence node, but found scalar",
                    at,
                )),
                Kind::Pairs => Err(YamlError::constructor(
                    "expected a sequence, but found scalar",
                    at,
                )
                .with_context("while constructing pairs", at)),
                _ => Err(YamlError::constructor(
                    "expected a mapping node, but found scalar",
                    at,
                )),
            },

            (Body::Seq(items), kind) => match kind {
                Kind::Seq => {
                    let mut out = Vec::with_capacity(items.len());
                    for &item in items {
                        out.push(self.construct(item, depth + 1)?);
                    }
                    Ok(Value::List(out))
                }
                Kind::Pairs => self.construct_pairs(node, items, depth),
                Kind::Map | Kind::Omap | Kind::Set => Err(YamlError::constructor(
                    "expected a mapping node, but found sequence",
                    at,
                )),
                _ => Err(YamlError::constructor(
                    "expected a scalar node, but found sequence",
                    at,
                )),
            },

            (Body::Map(_), kind) => match kind {
                Kind::Map | Kind::Omap => Ok(Value::Map(self.construct_mapping(id, depth)?)),
                // A Python set has no JSON form; keep its members in file
                // order.
                Kind::Set => Ok(Value::List(
                    self.construct_mapping(id, depth)?
                        .into_keys()
                        .map(Value::Str)
                        .collect(),
                )),
                Kind::Seq => Err(YamlError::constructor(
                    "expected a sequence node, but found mapping",
                    at,
                )),
                Kind::Pairs => Err(YamlError::constructor(
                    "expected a sequence, but found mapping",
                    at,
                )
                .with_context("while constructing pairs", at)),
                _ => Err(YamlError::constructor(
                    "expected a scalar node, but found mapping",
                    at,
                )),
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
        let existing: HashSet<RawKey> = own.iter().map(|&(k, _)| raw(k)).collect();
        merged.retain(|&(k, _)| !existing.contains(&raw(k)));
        merged.extend(own);
        Ok(Cow::Owned(merged))
    }

    /// Salt's `construct_mapping`: ordered, merge keys applied, duplicate
    /// keys (by Python equality) rejected.
    fn construct_mapping(&mut self, id: NodeId, depth: usize) -> Result<Map, YamlError> {
        let node = self.node(id)?;
        let pairs = self.flatten(id, depth)?;
        let mut map = Map::with_capacity(pairs.len());
        // Per entry: bit 1 = set by a string key, bit 2 = by another type
        // whose json.dumps form is the same text (`1` vs `"1"`).
        let mut origin: Vec<u8> = Vec::with_capacity(pairs.len());
        let mut numeric: HashSet<NumKey> = HashSet::new();
        for &(k, v) in pairs.iter() {
            let key_node = self.node(k)?;
            let key = if key_node.kind == Kind::ValueKey {
                // Salt reads a `=` key as the string "=".
                match &key_node.body {
                    Body::Scalar(text) => Value::Str(text.to_string()),
                    _ => self.construct(k, depth + 1)?,
                }
            } else {
                self.construct(k, depth + 1)?
            };
            if matches!(key, Value::List(_) | Value::Map(_)) {
                return Err(
                    YamlError::constructor("found unacceptable key", key_node.pos)
                        .with_context(MAPPING_CTX, node.pos),
                );
            }
            let value = self.construct(v, depth + 1)?;
            let conflict = |key: &Value| {
                YamlError::constructor(
                    format!("found conflicting ID '{}'", key.to_python_str()),
                    key_node.pos,
                )
                .with_context(MAPPING_CTX, node.pos)
            };
            let (text, bit) = match &key {
                Value::Str(s) => {
                    if map
                        .get_index_of(s.as_str())
                        .and_then(|i| origin.get(i))
                        .is_some_and(|o| o & 1 != 0)
                    {
                        return Err(conflict(&key));
                    }
                    (s.clone(), 1)
                }
                other => {
                    if let Some(nk) = NumKey::of(other) {
                        if !numeric.insert(nk) {
                            return Err(conflict(&key));
                        }
                    }
                    (key_string(other), 2)
                }
            };
            let (index, _) = map.insert_full(text, value);
            match origin.get_mut(index) {
                Some(o) => *o |= bit,
                None => origin.push(bit),
            }
        }
        Ok(map)
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

    #[test]
    #[ignore]
    fn corpus_diff() {
        let path = std::env::var("YAML_CORPUS").unwrap();
        let corpus: Vec<serde_json::Value> =
            serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        let (mut bad, mut badpos) = (0, 0);
        for case in &corpus {
            let yaml = case["yaml"].as_str().unwrap();
            let got = load(yaml);
            match (case.get("ok"), &got) {
                (Some(want), Ok(v)) => {
                    if want.as_str().unwrap() != canon(v) {
                        bad += 1;
                        println!(
                            "MISMATCH {:?}\n   salt: {}\n   ours: {}",
                            yaml,
                            want.as_str().unwrap(),
                            canon(v)
                        );
                    }
                }
                (Some(want), Err(e)) => {
                    bad += 1;
                    println!(
                        "OURS-ERR {:?}\n   salt: {}\n   ours: {:?}",
                        yaml,
                        want.as_str().unwrap(),
                        e
                    );
                }
                (None, Ok(v)) => {
                    bad += 1;
                    println!(
                        "SALT-ERR {:?}\n   salt: {}\n   ours: {}",
                        yaml,
                        case["err"],
                        canon(v)
                    );
                }
                (None, Err(e)) => {
                    if let Some(l) = case.get("line").and_then(|l| l.as_u64()) {
                        let c = case["column"].as_u64().unwrap();
                        if (l as usize, c as usize) != (e.line, e.column) {
                            badpos += 1;
                            println!(
                                "POS {:?}\n   salt: {} {}:{}\n   ours: {} {}:{}",
                                yaml, case["err"], l, c, e.message, e.line, e.column
                            );
                        }
                    }
                }
            }
        }
        println!(
            "{} cases, {} mismatches, {} error positions differ",
            corpus.len(),
            bad,
            badpos
        );
    }
}
