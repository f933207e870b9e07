//! Constructor: the node graph turned into a [`Value`], as PyYAML's
//! `SafeConstructor` with Salt's overrides does (scalars by their resolved
//! type, `<<` merge keys, duplicate keys refused, depth and alias
//! expansion bounded).

use super::composer::*;
use super::error::*;
use super::resolver::*;
use crate::value::{key_string, Map};
use crate::Value;
use std::borrow::Cow;
use std::collections::HashSet;

/// Python's `str.strip()` for the ASCII whitespace `int()`/`float()` accept.
pub(super) fn py_trim(s: &str) -> &str {
    s.trim_matches(|c: char| c.is_whitespace())
}

pub(super) fn value_error(message: String, at: Pos) -> YamlError {
    YamlError::new(YamlErrorKind::Value, message, at)
}

/// A non-negative integer of any size, for values Python keeps exact but
/// that do not fit `i64` (they become decimal strings).
pub(super) struct BigUint(Vec<u32>); // little-endian limbs in base 1e9

impl BigUint {
    const BASE: u64 = 1_000_000_000;

    pub(super) fn mul_add(&mut self, mul: u32, add: u32) {
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

    pub(super) fn add(&mut self, other: &BigUint) {
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

    pub(super) fn to_i64(&self, negative: bool) -> Option<i64> {
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

    pub(super) fn to_decimal(&self, negative: bool) -> String {
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
pub(super) fn parse_uint(text: &str, base: u32) -> Option<BigUint> {
    if text.is_empty() {
        return None;
    }
    let mut n = BigUint(Vec::new());
    for c in text.chars() {
        n.mul_add(base, c.to_digit(base)?);
    }
    Some(n)
}

pub(super) fn int_value(n: &BigUint, negative: bool) -> Value {
    match n.to_i64(negative) {
        Some(i) => Value::Int(i),
        // Python ints have no size limit; keep the exact digits.
        None => Value::Str(n.to_decimal(negative)),
    }
}

/// Salt's `construct_scalar` override for `!!int`, then PyYAML's
/// `construct_yaml_int`.
pub(super) fn construct_int(raw: &str, at: Pos) -> Result<Value, YamlError> {
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
pub(super) fn py_float(text: &str) -> Option<f64> {
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
pub(super) fn construct_float(raw: &str, at: Pos) -> Result<Value, YamlError> {
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
pub(super) fn construct_bool(raw: &str, at: Pos) -> Result<Value, YamlError> {
    match raw.to_lowercase().as_str() {
        "yes" | "true" | "on" => Ok(Value::Bool(true)),
        "no" | "false" | "off" => Ok(Value::Bool(false)),
        _ => Err(value_error(format!("not a YAML boolean: '{raw}'"), at)),
    }
}

/// `!!binary`: base64 (characters outside the alphabet are skipped, as
/// Python's `base64.decodebytes` does). The bytes must be UTF-8 text, as the
/// value model has no byte strings.
pub(super) fn construct_binary(raw: &str, at: Pos) -> Result<Value, YamlError> {
    let Some(out) = crate::py::a2b_base64(raw) else {
        return Err(value_error(
            "failed to convert base64 data: Incorrect padding".into(),
            at,
        ));
    };
    String::from_utf8(out).map(Value::Str).map_err(|_| {
        value_error(
            "!!binary data is not UTF-8 text, which brine cannot hold".into(),
            at,
        )
    })
}

/// What a key node is compared by when Salt drops merged keys that the
/// mapping sets itself: the raw scalar text (so `1` and `"1"` count as the
/// same), or node identity for collections.
#[derive(PartialEq, Eq, Hash)]
pub(super) enum RawKey<'x> {
    Text(&'x str),
    Node(NodeId),
}

/// Python equality class of a non-string key (`1 == 1.0 == True`).
#[derive(PartialEq, Eq, Hash)]
pub(super) enum NumKey {
    Null,
    Int(i64),
    Float(u64),
}

impl NumKey {
    pub(super) fn of(v: &Value) -> Option<NumKey> {
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

pub(super) struct Constructor<'n, 'a> {
    pub(super) nodes: &'n [Node<'a>],
    /// Nodes being constructed right now, to refuse recursive structures.
    pub(super) active: Vec<bool>,
    /// Mappings whose merge keys are being resolved right now.
    pub(super) flattening: Vec<bool>,
    pub(super) built: usize,
    pub(super) budget: usize,
}

pub(super) const MAPPING_CTX: &str = "while constructing a mapping";

impl<'n, 'a> Constructor<'n, 'a> {
    pub(super) fn new(nodes: &'n [Node<'a>]) -> Self {
        Constructor {
            nodes,
            active: vec![false; nodes.len()],
            flattening: vec![false; nodes.len()],
            built: 0,
            budget: nodes.len().saturating_add(MAX_ALIAS_EXPANSION),
        }
    }

    pub(super) fn node(&self, id: NodeId) -> Result<&'n Node<'a>, YamlError> {
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
    pub(super) fn construct(&mut self, id: NodeId, depth: usize) -> Result<Value, YamlError> {
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
    pub(super) fn enter(&mut self, id: NodeId, depth: usize) -> Result<&'n Node<'a>, YamlError> {
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

    pub(super) fn construct_seq(
        &mut self,
        items: &[NodeId],
        depth: usize,
    ) -> Result<Value, YamlError> {
        let mut out = Vec::with_capacity(items.len());
        for &item in items {
            out.push(self.construct(item, depth + 1)?);
        }
        Ok(Value::List(out))
    }

    /// Scalars, `!!pairs`, `!!set`, and the node/tag mismatches.
    pub(super) fn construct_other(
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
    pub(super) fn construct_pairs(
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
    pub(super) fn flatten(
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

    pub(super) fn flatten_merges(
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
    pub(super) fn construct_mapping(&mut self, id: NodeId, depth: usize) -> Result<Map, YamlError> {
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
    pub(super) fn construct_key(
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

    pub(super) fn conflict(&self, map_id: NodeId, k: NodeId, key: &Value) -> YamlError {
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
pub(super) struct KeyTracker {
    pub(super) map: Map,
    /// Per entry: bit 1 = set by a string key, bit 2 = by another type.
    pub(super) origin: Vec<u8>,
    pub(super) numeric: HashSet<NumKey>,
}

impl KeyTracker {
    pub(super) fn with_capacity(n: usize) -> Self {
        KeyTracker {
            map: Map::with_capacity_and_hasher(n, Default::default()),
            origin: Vec::with_capacity(n),
            numeric: HashSet::new(),
        }
    }

    /// Insert, or give the key back when Python would see a duplicate.
    pub(super) fn insert(&mut self, key: Value, value: Value) -> Result<(), Value> {
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
