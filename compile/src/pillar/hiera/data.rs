//! Reading Hiera data files the way Puppet 7 does: `yaml_data` (Ruby's
//! Psych `safe_load`, which resolves plain scalars differently from
//! Salt's PyYAML: `0644` is octal, `1,000` is 1000, `12:30` sexagesimal,
//! `yEs` true, dates refused, duplicate keys allowed with the last one
//! winning, `<<` merged where it stands) and `json_data`.
//!
//! A value that is not valid Puppet data (a Ruby symbol, a boolean hash
//! key) only fails when a lookup reaches it, as in Puppet: such keys are
//! remembered with their error instead of their value.

use super::HieraError;
use brine_core::value::key_string;
use brine_core::{Map, Value};
use indexmap::IndexMap;
use regex::Regex;
use saphyr_parser::{Event, Parser, ScalarStyle, Span, Tag};
use std::collections::HashMap;
use std::path::Path;
use std::sync::OnceLock;

/// One data file: its top-level keys with their values, and the keys
/// whose value is not valid data (with Puppet's complaint).
#[derive(Debug, Clone, Default)]
pub struct DataFile {
    pub data: Map,
    pub invalid: HashMap<String, String>,
}

impl DataFile {
    /// The value of a top-level key; `Ok(None)` when the file lacks it.
    pub fn get(&self, key: &str) -> Result<Option<&Value>, HieraError> {
        if let Some(problem) = self.invalid.get(key) {
            return Err(HieraError::Lookup(problem.clone()));
        }
        Ok(self.data.get(key))
    }

    /// Every top-level key, in file order.
    pub fn keys(&self) -> impl Iterator<Item = &String> {
        self.data.keys().chain(self.invalid.keys())
    }
}

/// A Ruby object as Psych builds it, before it becomes Puppet data.
#[derive(Debug, Clone, PartialEq)]
pub enum Node {
    Null,
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(String),
    /// A Ruby `Symbol` (`:name`): allowed by Puppet's loader, but only as
    /// a hash key is it turned into a string.
    Sym(String),
    Seq(Vec<Node>),
    Map(Vec<(Node, Node)>),
}

impl Node {
    /// A stable identity for hash-key equality (Ruby's `eql?`: 1 and 1.0
    /// differ, "a" and :a differ).
    fn identity(&self) -> String {
        format!("{self:?}")
    }

    fn size(&self) -> usize {
        match self {
            Node::Seq(l) => 1 + l.iter().map(Node::size).sum::<usize>(),
            Node::Map(m) => 1 + m.iter().map(|(k, v)| k.size() + v.size()).sum::<usize>(),
            _ => 1,
        }
    }
}

/// Nesting deeper than this is refused (building values recurses).
const MAX_DEPTH: usize = 256;
/// How many nodes aliases may add (a "billion laughs" document).
const MAX_ALIAS_EXPANSION: usize = 1_000_000;

/// Where and why a YAML text could not be read.
#[derive(Debug, Clone, PartialEq)]
pub struct YamlProblem {
    pub message: String,
    pub line: Option<usize>,
}

impl YamlProblem {
    fn at(message: impl Into<String>, span: &Span) -> YamlProblem {
        YamlProblem {
            message: message.into(),
            line: Some(span.start.line().max(1)),
        }
    }

    fn disallowed(class: &str, span: &Span) -> YamlProblem {
        YamlProblem::at(format!("Tried to load unspecified class: {class}"), span)
    }
}

fn re(cell: &'static OnceLock<Regex>, pattern: &str) -> &'static Regex {
    cell.get_or_init(|| Regex::new(pattern).expect("constant regex"))
}

/// Ruby `\s`.
const WS: &str = r"[ \t\n\x0B\x0C\r]";

/// Psych's `ScalarScanner#tokenize`: what an untagged plain scalar is.
fn tokenize(s: &str, span: &Span) -> Result<Node, YamlProblem> {
    static STR: OnceLock<Regex> = OnceLock::new();
    static NOT_YTONF: OnceLock<Regex> = OnceLock::new();
    static NULL: OnceLock<Regex> = OnceLock::new();
    static TRUE: OnceLock<Regex> = OnceLock::new();
    static FALSE: OnceLock<Regex> = OnceLock::new();
    static TIME: OnceLock<Regex> = OnceLock::new();
    static DATE: OnceLock<Regex> = OnceLock::new();
    static INF: OnceLock<Regex> = OnceLock::new();
    static NINF: OnceLock<Regex> = OnceLock::new();
    static NAN: OnceLock<Regex> = OnceLock::new();
    static SYM: OnceLock<Regex> = OnceLock::new();
    static SEX_INT: OnceLock<Regex> = OnceLock::new();
    static SEX_FLT: OnceLock<Regex> = OnceLock::new();
    static FLOAT: OnceLock<Regex> = OnceLock::new();
    static INT: OnceLock<Regex> = OnceLock::new();

    if s.is_empty() {
        return Ok(Node::Null);
    }
    let str_like = re(
        &STR,
        r"(?m)^[^0-9.:\-]?[\p{Alphabetic}_ \t\n\x0B\x0C\r!@#$%^&*(){}<>|/\\~;=]+",
    );
    if str_like.is_match(s) || s.contains('\n') {
        if s.chars().count() > 5 || re(&NOT_YTONF, r"(?mi)^[^ytonf~]").is_match(s) {
            return Ok(Node::Str(s.into()));
        }
        if s == "~" || re(&NULL, r"(?mi)^null$").is_match(s) {
            return Ok(Node::Null);
        }
        if re(&TRUE, r"(?mi)^(yes|true|on)$").is_match(s) {
            return Ok(Node::Bool(true));
        }
        if re(&FALSE, r"(?mi)^(no|false|off)$").is_match(s) {
            return Ok(Node::Bool(false));
        }
        return Ok(Node::Str(s.into()));
    }
    let time = re(
        &TIME,
        &format!(
            r"(?m)^-?[0-9]{{4}}-[0-9]{{1,2}}-[0-9]{{1,2}}(?:[Tt]|{WS}+)[0-9]{{1,2}}:[0-9][0-9]:[0-9][0-9](?:\.[0-9]*)?(?:{WS}*(?:Z|[-+][0-9]{{1,2}}:?(?:[0-9][0-9])?))?$"
        ),
    );
    // Psych asks its class loader for Time (or Date) before parsing, and
    // Puppet's loader refuses both: any such text fails the file.
    if time.is_match(s) {
        return Err(YamlProblem::disallowed("Time", span));
    }
    let date = re(
        &DATE,
        r"(?m)^[0-9]{4}-(?:1[012]|0[0-9]|[0-9])-(?:[12][0-9]|3[01]|0[0-9]|[0-9])$",
    );
    if date.is_match(s) {
        return Err(YamlProblem::disallowed("Date", span));
    }
    if re(&INF, r"(?mi)^\+?\.inf$").is_match(s) {
        return Ok(Node::Float(f64::INFINITY));
    }
    if re(&NINF, r"(?mi)^-\.inf$").is_match(s) {
        return Ok(Node::Float(f64::NEG_INFINITY));
    }
    if re(&NAN, r"(?mi)^\.nan$").is_match(s) {
        return Ok(Node::Float(f64::NAN));
    }
    if re(&SYM, r"(?m)^:.").is_match(s) {
        let rest = s.get(1..).unwrap_or("");
        let quoted = rest
            .strip_prefix('"')
            .and_then(|r| r.find('"').map(|e| &r[..e]))
            .or_else(|| {
                rest.strip_prefix('\'')
                    .and_then(|r| r.find('\'').map(|e| &r[..e]))
            });
        let name = match quoted {
            Some(q) => q.strip_prefix(':').unwrap_or(q),
            None => rest,
        };
        return Ok(Node::Sym(name.to_string()));
    }
    if re(&SEX_INT, r"(?m)^[-+]?[0-9][0-9_]*(:[0-5]?[0-9]){1,2}$").is_match(s) {
        let parts: Vec<&str> = s.split(':').collect();
        let mut total: i64 = 0;
        for (e, n) in parts.iter().enumerate() {
            let mul = 60i64.pow((e as i64 - 2).unsigned_abs() as u32);
            total = total.saturating_add(ruby_to_i(n).saturating_mul(mul));
        }
        return Ok(Node::Int(total));
    }
    if re(
        &SEX_FLT,
        r"(?m)^[-+]?[0-9][0-9_]*(:[0-5]?[0-9]){1,2}\.[0-9_]*$",
    )
    .is_match(s)
    {
        let parts: Vec<&str> = s.split(':').collect();
        let mut total = 0.0;
        for (e, n) in parts.iter().enumerate() {
            let mul = 60f64.powi((e as i32 - 2).abs());
            total += ruby_to_f(n) * mul;
        }
        return Ok(Node::Float(total));
    }
    if re(
        &FLOAT,
        r"(?m)^(?:[-+]?([0-9][0-9_,]*)?\.[0-9]*([eE][-+][0-9]+)?)$",
    )
    .is_match(s)
    {
        let t = s.trim_start_matches(['+', '-']);
        if t == "." {
            return Ok(Node::Str(s.into()));
        }
        let cleaned = clean_float(s);
        return cleaned.parse::<f64>().map(Node::Float).map_err(|_| {
            YamlProblem::at(format!("invalid value for Float(): \"{cleaned}\""), span)
        });
    }
    let int = re(
        &INT,
        r"(?m)^(?:[-+]?0b[0-1_,]+|[-+]?0[0-7_,]+|[-+]?(?:0|[1-9](?:[0-9]|,[0-9]|_[0-9])*)|[-+]?0x[0-9a-fA-F_,]+)$",
    );
    if int.is_match(s) {
        return parse_int(s, span);
    }
    Ok(Node::Str(s.into()))
}

/// `string.gsub(/[,_]|\.([Ee]|$)/, '\1')`.
fn clean_float(s: &str) -> String {
    let chars: Vec<char> = s.chars().collect();
    let mut out = String::with_capacity(s.len());
    for (i, c) in chars.iter().enumerate() {
        match c {
            ',' | '_' => {}
            '.' if matches!(chars.get(i + 1), None | Some('e' | 'E' | '\n')) => {}
            c => out.push(*c),
        }
    }
    out
}

/// Ruby's `Integer(string.gsub(/[,_]/, ''))`.
fn parse_int(s: &str, span: &Span) -> Result<Node, YamlProblem> {
    let cleaned: String = s.chars().filter(|c| !matches!(c, ',' | '_')).collect();
    let (neg, body) = match cleaned.strip_prefix('-') {
        Some(b) => (true, b),
        None => (false, cleaned.strip_prefix('+').unwrap_or(&cleaned)),
    };
    let (radix, digits) = if let Some(d) = body.strip_prefix("0b") {
        (2, d)
    } else if let Some(d) = body.strip_prefix("0x") {
        (16, d)
    } else if body.len() > 1 && body.starts_with('0') {
        (8, &body[1..])
    } else {
        (10, body)
    };
    if digits.is_empty() {
        return Err(YamlProblem::at(
            format!("invalid value for Integer(): \"{cleaned}\""),
            span,
        ));
    }
    match i128::from_str_radix(digits, radix) {
        Ok(n) => {
            let n = if neg { -n } else { n };
            Ok(i64::try_from(n)
                .map(Node::Int)
                .unwrap_or(Node::Float(n as f64)))
        }
        // Beyond 128 bits: Ruby has a bignum, brine only a float.
        Err(_) => Ok(Node::Float(if neg {
            f64::NEG_INFINITY
        } else {
            f64::INFINITY
        })),
    }
}

/// Ruby's `String#to_i` (leading integer, underscores allowed).
fn ruby_to_i(s: &str) -> i64 {
    let (neg, body) = match s.strip_prefix('-') {
        Some(b) => (true, b),
        None => (false, s.strip_prefix('+').unwrap_or(s)),
    };
    let digits: String = body
        .chars()
        .take_while(|c| c.is_ascii_digit() || *c == '_')
        .filter(|c| *c != '_')
        .collect();
    let n = digits.parse::<i64>().unwrap_or(0);
    if neg {
        -n
    } else {
        n
    }
}

/// Ruby's `String#to_f` for the digits this scanner lets through.
fn ruby_to_f(s: &str) -> f64 {
    let cleaned: String = s.chars().filter(|c| *c != '_').collect();
    let end = cleaned
        .char_indices()
        .find(|&(i, c)| !(c.is_ascii_digit() || c == '.' || (i == 0 && (c == '-' || c == '+'))))
        .map_or(cleaned.len(), |(i, _)| i);
    let t = cleaned[..end].trim_end_matches('.');
    t.parse::<f64>().unwrap_or(0.0)
}

/// Ruby's lenient `unpack('m')` (base64, other characters skipped).
fn base64_decode(s: &str) -> String {
    let mut bits: u32 = 0;
    let mut n = 0;
    let mut out = Vec::with_capacity(s.len() * 3 / 4);
    for c in s.bytes() {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            b'=' => break,
            _ => continue,
        };
        bits = (bits << 6) | u32::from(v);
        n += 6;
        if n >= 8 {
            n -= 8;
            out.push((bits >> n) as u8);
            bits &= (1 << n) - 1;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn tag_text(tag: &Tag) -> String {
    format!("{}{}", tag.handle, tag.suffix)
}

/// Psych's `deserialize` for a scalar event.
fn scalar(
    value: &str,
    style: ScalarStyle,
    tag: Option<&Tag>,
    span: &Span,
) -> Result<Node, YamlProblem> {
    let Some(tag) = tag.map(tag_text) else {
        return if style == ScalarStyle::Plain {
            tokenize(value, span)
        } else {
            Ok(Node::Str(value.into()))
        };
    };
    let t = tag.as_str();
    let y = t.strip_prefix("tag:yaml.org,2002:");
    if matches!(y, Some("binary")) || t == "!binary" {
        return Ok(Node::Str(base64_decode(value)));
    }
    if matches!(y, Some("str")) || t == "!str" || t == "!ruby/string" {
        return Ok(Node::Str(value.into()));
    }
    if matches!(y, Some("float")) || t == "!float" {
        return match tokenize(value, span)? {
            Node::Int(i) => Ok(Node::Float(i as f64)),
            Node::Float(f) => Ok(Node::Float(f)),
            Node::Str(s) => {
                s.trim().parse::<f64>().map(Node::Float).map_err(|_| {
                    YamlProblem::at(format!("invalid value for Float(): \"{s}\""), span)
                })
            }
            other => Err(YamlProblem::at(
                format!("can't convert {} into Float", ruby_name(&other)),
                span,
            )),
        };
    }
    if t == "!ruby/sym"
        || t == "!ruby/symbol"
        || t.starts_with("!ruby/sym:")
        || t.starts_with("!ruby/symbol:")
    {
        return Ok(Node::Sym(value.into()));
    }
    if let Some(rest) = t.strip_prefix("!ruby/") {
        let class = match rest {
            "regexp" => "Regexp".to_string(),
            "range" => "Range".to_string(),
            "class" | "module" | "encoding" => value.to_string(),
            r => r.strip_prefix("object:").unwrap_or("Object").to_string(),
        };
        return Err(YamlProblem::disallowed(&class, span));
    }
    if let Some(class) = t
        .strip_prefix("!str:")
        .or_else(|| t.strip_prefix("!ruby/string:"))
    {
        return Err(YamlProblem::disallowed(class, span));
    }
    // Unknown tags (and `!`) resolve like a plain scalar.
    tokenize(value, span)
}

fn ruby_name(n: &Node) -> &'static str {
    match n {
        Node::Null => "nil",
        Node::Bool(true) => "true",
        Node::Bool(false) => "false",
        _ => "value",
    }
}

/// How a mapping value was written, which decides what `<<` does with it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Written {
    Scalar,
    Sequence,
    Mapping,
    Alias,
}

enum Frame {
    Seq {
        anchor: usize,
        omap: bool,
        items: Vec<Node>,
    },
    Map {
        anchor: usize,
        entries: Vec<(Node, bool, Node, Written)>,
        /// A key waiting for its value: the key and whether it was `!!str`.
        pending: Option<(Node, bool)>,
    },
}

struct Builder {
    frames: Vec<Frame>,
    anchors: HashMap<usize, Node>,
    expanded: usize,
    root: Option<Node>,
}

impl Builder {
    /// Hang a finished node on the innermost open collection.
    fn attach(&mut self, node: Node, written: Written, str_tagged: bool) {
        match self.frames.last_mut() {
            None => self.root = Some(node),
            Some(Frame::Seq { items, .. }) => items.push(node),
            Some(Frame::Map {
                entries, pending, ..
            }) => match pending.take() {
                None => *pending = Some((node, str_tagged)),
                Some((k, k_str)) => entries.push((k, k_str, node, written)),
            },
        }
    }

    fn register(&mut self, anchor: usize, node: &Node) {
        if anchor != 0 {
            self.anchors.insert(anchor, node.clone());
        }
    }
}

/// Psych's `revive_hash`: keys in first-seen order, later duplicates
/// replacing the value, `<<` merging the hash(es) it names at its place.
fn revive_hash(entries: Vec<(Node, bool, Node, Written)>) -> Node {
    let mut h: IndexMap<String, (Node, Node)> = IndexMap::new();
    let put = |h: &mut IndexMap<String, (Node, Node)>, k: Node, v: Node| {
        let id = k.identity();
        match h.get_mut(&id) {
            Some(slot) => slot.1 = v,
            None => {
                h.insert(id, (k, v));
            }
        }
    };
    for (k, k_str, v, written) in entries {
        if k == Node::Str("<<".into()) && !k_str {
            match (written, v) {
                (Written::Alias | Written::Mapping, Node::Map(m)) => {
                    for (mk, mv) in m {
                        put(&mut h, mk, mv);
                    }
                }
                (Written::Sequence, Node::Seq(items))
                    if items.iter().all(|i| matches!(i, Node::Map(_))) =>
                {
                    let mut merged: IndexMap<String, (Node, Node)> = IndexMap::new();
                    for item in items.into_iter().rev() {
                        if let Node::Map(m) = item {
                            for (mk, mv) in m {
                                put(&mut merged, mk, mv);
                            }
                        }
                    }
                    for (_, (mk, mv)) in merged {
                        put(&mut h, mk, mv);
                    }
                }
                (_, v) => put(&mut h, k, v),
            }
        } else {
            put(&mut h, k, v);
        }
    }
    Node::Map(h.into_values().collect())
}

/// Parse the first YAML document of `text` as Psych's `safe_load` would
/// (symbols permitted, aliases allowed). `None` for an empty stream.
pub fn load_yaml_node(text: &str) -> Result<Option<Node>, YamlProblem> {
    let mut parser = Parser::new_from_str(text);
    let mut b = Builder {
        frames: Vec::new(),
        anchors: HashMap::new(),
        expanded: 0,
        root: None,
    };
    while let Some(next) = parser.next_event() {
        let (event, span) = next.map_err(|e| YamlProblem {
            message: e.info().to_string(),
            line: Some(e.marker().line().max(1)),
        })?;
        match event {
            Event::Scalar(value, style, anchor, tag) => {
                let str_tagged = tag
                    .as_deref()
                    .is_some_and(|t| tag_text(t) == "tag:yaml.org,2002:str");
                let node = scalar(&value, style, tag.as_deref(), &span)?;
                b.register(anchor, &node);
                b.attach(node, Written::Scalar, str_tagged);
            }
            Event::SequenceStart(anchor, tag) => {
                if b.frames.len() >= MAX_DEPTH {
                    return Err(YamlProblem::at(
                        format!("nesting deeper than {MAX_DEPTH} levels"),
                        &span,
                    ));
                }
                let t = tag.as_deref().map(tag_text).unwrap_or_default();
                if t.starts_with("!seq:") || t.starts_with("!ruby/array:") {
                    let class = t.split_once(':').map_or("Array", |(_, c)| c).to_string();
                    return Err(YamlProblem::disallowed(&class, &span));
                }
                let omap = t == "!omap" || t == "tag:yaml.org,2002:omap";
                b.frames.push(Frame::Seq {
                    anchor,
                    omap,
                    items: Vec::new(),
                });
            }
            Event::MappingStart(anchor, tag) => {
                if b.frames.len() >= MAX_DEPTH {
                    return Err(YamlProblem::at(
                        format!("nesting deeper than {MAX_DEPTH} levels"),
                        &span,
                    ));
                }
                let t = tag.as_deref().map(tag_text).unwrap_or_default();
                let y = t.strip_prefix("tag:yaml.org,2002:");
                let refused = if t.starts_with("!ruby/") {
                    Some(t.rsplit_once(':').map_or("Object", |(_, c)| c).to_string())
                } else if t == "!set" || y == Some("set") {
                    Some("Psych::Set".to_string())
                } else if t == "!omap" || y == Some("omap") {
                    Some("Psych::Omap".to_string())
                } else if let Some(c) = t.strip_prefix("!map:").or_else(|| t.strip_prefix("!str:"))
                {
                    Some(c.to_string())
                } else if t == "!str" || y == Some("str") {
                    Some("String".to_string())
                } else {
                    None
                };
                if let Some(class) = refused {
                    return Err(YamlProblem::disallowed(&class, &span));
                }
                b.frames.push(Frame::Map {
                    anchor,
                    entries: Vec::new(),
                    pending: None,
                });
            }
            Event::SequenceEnd => {
                if let Some(Frame::Seq {
                    anchor,
                    omap,
                    items,
                }) = b.frames.pop()
                {
                    let node = if omap {
                        let entries = items
                            .into_iter()
                            .filter_map(|i| match i {
                                Node::Map(mut m) if !m.is_empty() => {
                                    // Psych pairs the first key with the last value.
                                    let (k, first) = m.remove(0);
                                    let v = m.pop().map_or(first, |(_, v)| v);
                                    Some((k, false, v, Written::Scalar))
                                }
                                _ => None,
                            })
                            .collect();
                        revive_hash(entries)
                    } else {
                        Node::Seq(items)
                    };
                    b.register(anchor, &node);
                    b.attach(node, Written::Sequence, false);
                }
            }
            Event::MappingEnd => {
                if let Some(Frame::Map {
                    anchor, entries, ..
                }) = b.frames.pop()
                {
                    let node = revive_hash(entries);
                    b.register(anchor, &node);
                    b.attach(node, Written::Mapping, false);
                }
            }
            Event::Alias(id) => {
                let Some(node) = b.anchors.get(&id).cloned() else {
                    return Err(YamlProblem::at(
                        "An alias referenced an unknown anchor",
                        &span,
                    ));
                };
                b.expanded += node.size();
                if b.expanded > MAX_ALIAS_EXPANSION {
                    return Err(YamlProblem::at("aliases expand to too many values", &span));
                }
                b.attach(node, Written::Alias, false);
            }
            // Psych stops at the end of the first document.
            Event::DocumentEnd => break,
            Event::StreamStart | Event::StreamEnd | Event::DocumentStart(_) | Event::Nothing => {}
        }
    }
    Ok(b.root)
}

/// Puppet's data type name of a value Psych built, for complaints.
fn puppet_type(n: &Node) -> String {
    match n {
        Node::Sym(_) => "Runtime[ruby, 'Symbol']".into(),
        Node::Null => "Undef".into(),
        Node::Bool(_) => "Boolean".into(),
        Node::Int(_) => "Integer".into(),
        Node::Float(_) => "Float".into(),
        Node::Str(_) => "String".into(),
        Node::Seq(_) => "Array".into(),
        Node::Map(_) => "Hash".into(),
    }
}

/// The first thing in a Psych value that is not Puppet data, by Puppet's
/// name for its type.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum NotPuppetData {
    /// A value of this type (a Ruby symbol).
    #[error("{0}")]
    Value(String),
    /// A hash key of this type.
    #[error("Hash key of type {0}")]
    HashKey(String),
}

/// A Psych value as Puppet data (symbol keys become strings).
pub fn node_to_value(n: Node) -> Result<Value, NotPuppetData> {
    Ok(match n {
        Node::Null => Value::Null,
        Node::Bool(b) => Value::Bool(b),
        Node::Int(i) => Value::Int(i),
        Node::Float(f) => Value::Float(f),
        Node::Str(s) => Value::Str(s),
        s @ Node::Sym(_) => return Err(NotPuppetData::Value(puppet_type(&s))),
        Node::Seq(l) => Value::List(l.into_iter().map(node_to_value).collect::<Result<_, _>>()?),
        Node::Map(m) => {
            let mut out = Map::with_capacity_and_hasher(m.len(), Default::default());
            for (k, v) in m {
                let key = match k {
                    Node::Str(s) | Node::Sym(s) => s,
                    Node::Int(i) => i.to_string(),
                    Node::Float(f) => key_string(&Value::Float(f)),
                    other => return Err(NotPuppetData::HashKey(puppet_type(&other))),
                };
                out.insert(key, node_to_value(v)?);
            }
            Value::Map(out)
        }
    })
}

/// A Psych value with symbols turned into plain strings everywhere (for
/// `hiera.yaml`, where a type check follows anyway).
pub fn node_to_value_lenient(n: Node) -> Value {
    match n {
        Node::Null => Value::Null,
        Node::Bool(b) => Value::Bool(b),
        Node::Int(i) => Value::Int(i),
        Node::Float(f) => Value::Float(f),
        Node::Str(s) | Node::Sym(s) => Value::Str(s),
        Node::Seq(l) => Value::List(l.into_iter().map(node_to_value_lenient).collect()),
        Node::Map(m) => Value::Map(
            m.into_iter()
                .map(|(k, v)| {
                    let k = match node_to_value_lenient(k) {
                        Value::Str(s) => s,
                        other => key_string(&other),
                    };
                    (k, node_to_value_lenient(v))
                })
                .collect(),
        ),
    }
}

fn invalid_message(function: &str, path: &Path, key: &str, problem: &NotPuppetData) -> String {
    format!(
        "Value for key '{key}', in hash returned from data_hash function '{function}', when using \
         location '{}', has wrong type, expects Puppet::LookupValue, got {problem}",
        path.display()
    )
}

/// Parse a `yaml_data` file. A file that is not a hash is read as empty
/// (Puppet warns and goes on).
pub fn load_yaml(path: &Path, text: &str) -> Result<DataFile, HieraError> {
    let root = load_yaml_node(text).map_err(|p| HieraError::Data {
        path: path.to_path_buf(),
        line: p.line,
        message: format!("Unable to parse ({}): {}", path.display(), p.message),
    })?;
    let Some(Node::Map(entries)) = root else {
        tracing::warn!(
            "{}: file does not contain a valid yaml hash",
            path.display()
        );
        return Ok(DataFile::default());
    };
    let mut file = DataFile::default();
    for (k, v) in entries {
        // Only string (or symbol) keys can ever be looked up.
        let key = match k {
            Node::Str(s) | Node::Sym(s) => s,
            _ => continue,
        };
        match node_to_value(v) {
            Ok(v) => {
                file.invalid.remove(&key);
                file.data.insert(key, v);
            }
            Err(problem) => {
                file.data.shift_remove(&key);
                let msg = invalid_message("yaml_data", path, &key, &problem);
                file.invalid.insert(key, msg);
            }
        }
    }
    Ok(file)
}

/// Parse a `json_data` file: it must hold a JSON object.
pub fn load_json(path: &Path, text: &str) -> Result<DataFile, HieraError> {
    let parsed: serde_json::Value = serde_json::from_str(text).map_err(|e| HieraError::Data {
        path: path.to_path_buf(),
        line: Some(e.line()),
        message: format!("Unable to parse ({}): {e}", path.display()),
    })?;
    match Value::from_json(&parsed) {
        Value::Map(data) => Ok(DataFile {
            data,
            invalid: HashMap::new(),
        }),
        other => Err(HieraError::Data {
            path: path.to_path_buf(),
            line: None,
            message: format!(
                "Value returned from data_hash function 'json_data', when using location '{}', \
                 expects a Hash value, got {}",
                path.display(),
                super::merge::puppet_type_name(&other)
            ),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn one(text: &str) -> Result<Value, YamlProblem> {
        let n = load_yaml_node(&format!("k: {text}"))?;
        let Some(Node::Map(mut m)) = n else {
            panic!("not a map")
        };
        node_to_value(m.remove(0).1).map_err(|m| YamlProblem {
            message: m.to_string(),
            line: None,
        })
    }

    #[test]
    fn plain_scalars_resolve_like_psych() {
        // Each pair is what Ruby 3.1's Psych gave for `k: TEXT`.
        let cases = [
            ("yes", json!(true)),
            ("yEs", json!(true)),
            ("off", json!(false)),
            ("y", json!("y")),
            ("Null", json!(null)),
            ("~", json!(null)),
            ("0644", json!(420)),
            ("0o17", json!("0o17")),
            ("0x1F", json!(31)),
            ("0b101", json!(5)),
            ("1_000", json!(1000)),
            ("1,000", json!(1000)),
            ("1e3", json!("1e3")),
            ("1.0", json!(1.0)),
            (".5", json!(0.5)),
            ("+1", json!(1)),
            ("1:30", json!(5400)),
            ("12:30", json!(45000)),
            ("1:30.5", json!(5430.0)),
            ("07", json!(7)),
            ("08", json!("08")),
            ("0.", json!(0.0)),
            ("1.e+3", json!(1000.0)),
            ("0_7", json!(7)),
            ("=", json!("=")),
            ("'yes'", json!("yes")),
            ("!!str 12", json!("12")),
            ("!!int '12'", json!(12)),
            ("!!float 1", json!(1.0)),
            ("!custom x", json!("x")),
            ("!!binary aGVsbG8=", json!("hello")),
        ];
        for (text, want) in cases {
            assert_eq!(one(text).unwrap().to_json(), want, "k: {text}");
        }
        assert!(
            one(".inf").unwrap().to_json().is_null()
                || matches!(one(".inf"), Ok(Value::Float(f)) if f.is_infinite())
        );
    }

    #[test]
    fn dates_times_and_objects_are_refused() {
        assert!(one("2020-01-01")
            .unwrap_err()
            .message
            .contains("class: Date"));
        assert!(one("2020-01-01T10:00:00Z")
            .unwrap_err()
            .message
            .contains("class: Time"));
        assert!(one("!ruby/object {}").is_err());
        assert!(one("!!set {a}").is_err());
        // A symbol loads, but is not Puppet data.
        assert!(one(":sym").is_err());
    }

    #[test]
    fn hashes_follow_psych() {
        let v = |t: &str| {
            node_to_value(load_yaml_node(t).unwrap().unwrap())
                .unwrap()
                .to_json()
        };
        assert_eq!(v("a: 1\na: 2"), json!({"a": 2}));
        assert_eq!(
            v("a: &x {p: 1}\nb: {<<: *x, q: 2}"),
            json!({"a": {"p": 1}, "b": {"p": 1, "q": 2}})
        );
        // `<<` merges where it stands: it overrides keys written before it.
        assert_eq!(v("b: {p: 0, <<: {p: 1}}"), json!({"b": {"p": 1}}));
        assert_eq!(v("80: x\n:s: y"), json!({"80": "x", "s": "y"}));
        assert_eq!(v("k: v\n---\nk2: v2"), json!({"k": "v"}));
        assert_eq!(v("k: !!omap [a: 1, b: 2]"), json!({"k": {"a": 1, "b": 2}}));
        assert_eq!(v("k: |\n  a\n  b\n"), json!({"k": "a\nb\n"}));
    }

    #[test]
    fn data_files() {
        let p = Path::new("/d/x.yaml");
        let f = load_yaml(p, "a: 1\n80: skipped\nbad: :sym\n").unwrap();
        assert_eq!(f.get("a").unwrap(), Some(&Value::Int(1)));
        assert_eq!(f.get("80").unwrap(), None);
        let e = f.get("bad").unwrap_err().to_string();
        assert!(e.contains("'bad'") && e.contains("/d/x.yaml"), "{e}");
        assert!(load_yaml(p, "- 1\n").unwrap().data.is_empty());
        let e = load_yaml(p, "a: [1, 2\n").unwrap_err();
        assert!(matches!(e, HieraError::Data { line: Some(_), .. }), "{e:?}");
        assert!(e.to_string().contains("/d/x.yaml"));
        let j = Path::new("/d/x.json");
        assert_eq!(
            Value::Map(load_json(j, r#"{"a": [1, "x"]}"#).unwrap().data).to_json(),
            json!({"a": [1, "x"]})
        );
        assert!(load_json(j, "[1]").is_err());
        let e = load_json(j, "{\n\"a\": }").unwrap_err();
        assert!(matches!(e, HieraError::Data { line: Some(2), .. }), "{e:?}");
    }
}
