//! The one data model every part of brine speaks: what Salt's loaders produce
//! (Python `dict`/`list`/`str`/`int`/`float`/`bool`/`None`).
//!
//! Mappings keep insertion order, as Salt's `OrderedDict`-backed YAML loader
//! does. Keys are strings: a non-string YAML key (`80:`, `on:`) is stored in the
//! form `json.dumps` would give it (`"80"`, `"true"`), so every JSON answer is
//! the same as Salt's.

use indexmap::IndexMap;
use serde::de::{MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;

/// An ordered mapping, like Salt's `OrderedDict`. Keys are hashed with
/// foldhash, seeded at random per process: SipHash was a tenth of a state
/// run's profile, and the maps a peer can fill are bounded in size.
pub type Map = IndexMap<String, Value, MapHasher>;

/// The hasher of [`Map`]: build maps with `Map::default()` or
/// `Map::with_capacity_and_hasher(n, Default::default())`.
pub type MapHasher = foldhash::fast::RandomState;

#[derive(Debug, Clone, PartialEq, Default)]
pub enum Value {
    #[default]
    Null,
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(String),
    List(Vec<Value>),
    Map(Map),
}

impl Value {
    pub fn new_map() -> Value {
        Value::Map(Map::default())
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::Str(s) => Some(s),
            _ => None,
        }
    }

    pub fn as_map(&self) -> Option<&Map> {
        match self {
            Value::Map(m) => Some(m),
            _ => None,
        }
    }

    pub fn as_map_mut(&mut self) -> Option<&mut Map> {
        match self {
            Value::Map(m) => Some(m),
            _ => None,
        }
    }

    pub fn as_list(&self) -> Option<&[Value]> {
        match self {
            Value::List(l) => Some(l),
            _ => None,
        }
    }

    pub fn as_bool(&self) -> Option<bool> {
        match self {
            Value::Bool(b) => Some(*b),
            _ => None,
        }
    }

    pub fn as_i64(&self) -> Option<i64> {
        match self {
            Value::Int(i) => Some(*i),
            _ => None,
        }
    }

    pub fn is_null(&self) -> bool {
        matches!(self, Value::Null)
    }

    /// Python truthiness: `None`, `False`, `0`, `0.0`, `""`, `[]`, `{}` are false.
    pub fn is_truthy(&self) -> bool {
        match self {
            Value::Null => false,
            Value::Bool(b) => *b,
            Value::Int(i) => *i != 0,
            Value::Float(f) => *f != 0.0,
            Value::Str(s) => !s.is_empty(),
            Value::List(l) => !l.is_empty(),
            Value::Map(m) => !m.is_empty(),
        }
    }

    /// Map lookup; `None` for a missing key or a non-map.
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.as_map().and_then(|m| m.get(key))
    }

    /// Salt's `traverse_dict_and_list`: walk `a:b:0:c` through maps and lists
    /// (a numeric segment indexes a list, or is tried as a map key).
    pub fn traverse(&self, path: &str, delimiter: &str) -> Option<&Value> {
        if path.is_empty() {
            return Some(self);
        }
        let mut cur = self;
        for part in path.split(delimiter) {
            cur = match cur {
                Value::Map(m) => m.get(part)?,
                Value::List(l) => {
                    let idx: usize = part.parse().ok()?;
                    l.get(idx)?
                }
                _ => return None,
            };
        }
        Some(cur)
    }

    /// The name Python would give this value's type, for error messages that
    /// match Salt's wording.
    pub fn type_name(&self) -> &'static str {
        match self {
            Value::Null => "NoneType",
            Value::Bool(_) => "bool",
            Value::Int(_) => "int",
            Value::Float(_) => "float",
            Value::Str(_) => "str",
            Value::List(_) => "list",
            Value::Map(_) => "dict",
        }
    }

    /// Python's `str()` of the value, as Salt shows scalars in comments and
    /// outputters (`True`, `None`, `1.5`).
    pub fn to_python_str(&self) -> String {
        match self {
            Value::Str(s) => s.clone(),
            other => other.to_python_repr(),
        }
    }

    /// Python's `repr()` of the value (`'a'`, `['a', 1]`, `{'k': True}`).
    pub fn to_python_repr(&self) -> String {
        match self {
            Value::Null => "None".into(),
            Value::Bool(true) => "True".into(),
            Value::Bool(false) => "False".into(),
            Value::Int(i) => i.to_string(),
            Value::Float(f) => python_float_repr(*f),
            Value::Str(s) => python_str_repr(s),
            Value::List(l) => {
                let items: Vec<String> = l.iter().map(|v| v.to_python_repr()).collect();
                format!("[{}]", items.join(", "))
            }
            Value::Map(m) => {
                let items: Vec<String> = m
                    .iter()
                    .map(|(k, v)| format!("{}: {}", python_str_repr(k), v.to_python_repr()))
                    .collect();
                format!("{{{}}}", items.join(", "))
            }
        }
    }

    /// Convert to `serde_json::Value` (keeps order: serde_json is built with
    /// `preserve_order`). Non-finite floats become `null`, as JSON has none.
    pub fn to_json(&self) -> serde_json::Value {
        match self {
            Value::Null => serde_json::Value::Null,
            Value::Bool(b) => serde_json::Value::Bool(*b),
            Value::Int(i) => serde_json::Value::from(*i),
            Value::Float(f) => serde_json::Number::from_f64(*f)
                .map(serde_json::Value::Number)
                .unwrap_or(serde_json::Value::Null),
            Value::Str(s) => serde_json::Value::String(s.clone()),
            Value::List(l) => serde_json::Value::Array(l.iter().map(Value::to_json).collect()),
            Value::Map(m) => {
                serde_json::Value::Object(m.iter().map(|(k, v)| (k.clone(), v.to_json())).collect())
            }
        }
    }

    pub fn from_json(j: &serde_json::Value) -> Value {
        match j {
            serde_json::Value::Null => Value::Null,
            serde_json::Value::Bool(b) => Value::Bool(*b),
            serde_json::Value::Number(n) => match n.as_i64() {
                Some(i) => Value::Int(i),
                None => Value::Float(n.as_f64().unwrap_or(f64::NAN)),
            },
            serde_json::Value::String(s) => Value::Str(s.clone()),
            serde_json::Value::Array(a) => Value::List(a.iter().map(Value::from_json).collect()),
            serde_json::Value::Object(o) => Value::Map(
                o.iter()
                    .map(|(k, v)| (k.clone(), Value::from_json(v)))
                    .collect(),
            ),
        }
    }
}

/// The string a scalar takes when it is used as a mapping key: what
/// `json.dumps` writes for a Python dict key of that type.
pub fn key_string(v: &Value) -> String {
    match v {
        Value::Null => "null".into(),
        Value::Bool(b) => b.to_string(),
        Value::Int(i) => i.to_string(),
        Value::Float(f) => python_float_repr(*f),
        Value::Str(s) => s.clone(),
        other => other.to_python_repr(),
    }
}

/// [`key_string`] of a key that is not needed afterwards: a string key
/// (nearly every key) is moved, not copied.
pub fn into_key_string(v: Value) -> String {
    match v {
        Value::Str(s) => s,
        other => key_string(&other),
    }
}

/// Python's `repr(float)` (see [`crate::py::float_repr`]).
pub use crate::py::float_repr as python_float_repr;

/// Python's `repr(str)` (see [`crate::py::str_repr`]).
pub fn python_str_repr(s: &str) -> String {
    crate::py::str_repr(s)
}

/// Python's `a == b` between loaded values: `1 == 1.0 == True` (int against
/// float exactly), dicts equal whatever their key order.
pub fn python_eq(a: &Value, b: &Value) -> bool {
    fn num(v: &Value) -> Option<Num> {
        match v {
            Value::Bool(b) => Some(Num::I(i64::from(*b))),
            Value::Int(i) => Some(Num::I(*i)),
            Value::Float(f) => Some(Num::F(*f)),
            _ => None,
        }
    }
    enum Num {
        I(i64),
        F(f64),
    }
    match (a, b) {
        (Value::Null, Value::Null) => true,
        (Value::Str(x), Value::Str(y)) => x == y,
        (Value::List(x), Value::List(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| python_eq(p, q))
        }
        (Value::Map(x), Value::Map(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| python_eq(v, w)))
        }
        _ => match (num(a), num(b)) {
            (Some(Num::I(x)), Some(Num::I(y))) => x == y,
            (Some(Num::F(x)), Some(Num::F(y))) => x == y,
            (Some(Num::I(i)), Some(Num::F(f))) | (Some(Num::F(f)), Some(Num::I(i))) => {
                f.fract() == 0.0
                    && (-9.223_372_036_854_776e18..9.223_372_036_854_776e18).contains(&f)
                    && f as i64 == i
            }
            _ => false,
        },
    }
}

impl From<&str> for Value {
    fn from(s: &str) -> Self {
        Value::Str(s.to_string())
    }
}
impl From<String> for Value {
    fn from(s: String) -> Self {
        Value::Str(s)
    }
}
impl From<bool> for Value {
    fn from(b: bool) -> Self {
        Value::Bool(b)
    }
}
impl From<i64> for Value {
    fn from(i: i64) -> Self {
        Value::Int(i)
    }
}
impl From<f64> for Value {
    fn from(f: f64) -> Self {
        Value::Float(f)
    }
}
impl From<Map> for Value {
    fn from(m: Map) -> Self {
        Value::Map(m)
    }
}
impl From<Vec<Value>> for Value {
    fn from(l: Vec<Value>) -> Self {
        Value::List(l)
    }
}

impl Serialize for Value {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Value::Null => s.serialize_unit(),
            Value::Bool(b) => s.serialize_bool(*b),
            Value::Int(i) => s.serialize_i64(*i),
            Value::Float(f) => s.serialize_f64(*f),
            Value::Str(v) => s.serialize_str(v),
            Value::List(l) => l.serialize(s),
            Value::Map(m) => m.serialize(s),
        }
    }
}

impl<'de> Deserialize<'de> for Value {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Value, D::Error> {
        d.deserialize_any(ValueVisitor)
    }
}

/// How a decoded value becomes a [`Value`] (also read by the JSON
/// outputter that writes a value while it is decoded, so both read each
/// msgpack type alike).
pub(crate) struct ValueVisitor;

impl<'de> Visitor<'de> for ValueVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a Salt value")
    }
    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        Value::deserialize(d)
    }
    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::Int(v))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(i64::try_from(v)
            .map(Value::Int)
            .unwrap_or(Value::Float(v as f64)))
    }
    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(Value::Float(v))
    }
    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::Str(v.to_string()))
    }
    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::Str(v))
    }
    fn visit_bytes<E>(self, v: &[u8]) -> Result<Value, E> {
        Ok(Value::Str(String::from_utf8_lossy(v).into_owned()))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(4096));
        while let Some(v) = seq.next_element()? {
            out.push(v);
        }
        Ok(Value::List(out))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        // Sized up front as lists are (bounded: the hint is the peer's).
        let mut out = Map::with_capacity_and_hasher(
            map.size_hint().unwrap_or(0).min(4096),
            Default::default(),
        );
        while let Some(k) = map.next_key::<Value>()? {
            let v = map.next_value()?;
            out.insert(into_key_string(k), v);
        }
        Ok(Value::Map(out))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn float_repr_matches_python() {
        assert_eq!(python_float_repr(1.5), "1.5");
        assert_eq!(python_float_repr(1.0), "1.0");
        assert_eq!(python_float_repr(1e16), "1e+16");
        assert_eq!(python_float_repr(1.5e-5), "1.5e-05");
        assert_eq!(python_float_repr(0.0001), "0.0001");
    }

    #[test]
    fn repr_matches_python() {
        let mut m = Map::default();
        m.insert("k".into(), Value::Bool(true));
        m.insert("l".into(), Value::List(vec!["a".into(), Value::Int(1)]));
        assert_eq!(Value::Map(m).to_python_repr(), "{'k': True, 'l': ['a', 1]}");
        assert_eq!(python_str_repr("it's"), "\"it's\"");
    }

    #[test]
    fn equality_like_python() {
        assert!(python_eq(&Value::Int(1), &Value::Float(1.0)));
        assert!(python_eq(&Value::Bool(true), &Value::Int(1)));
        assert!(!python_eq(&Value::Str("1".into()), &Value::Int(1)));
    }

    #[test]
    fn decoded_keys_are_strings_whatever_their_type() {
        // {"s": 1, 2: "two", null: true, 1.5: [], "s": 3}: string keys
        // moved in, the rest as `key_string` spells them; a repeated key
        // keeps its place and takes the last value, as a dict does.
        let bytes = [
            0x85, 0xa1, b's', 0x01, 0x02, 0xa3, b't', b'w', b'o', 0xc0, 0xc3, 0xcb, 0x3f, 0xf8, 0,
            0, 0, 0, 0, 0, 0x90, 0xa1, b's', 0x03,
        ];
        let v: Value = rmp_serde::from_slice(&bytes).unwrap();
        let m = v.as_map().unwrap();
        let keys: Vec<&str> = m.keys().map(String::as_str).collect();
        assert_eq!(keys, ["s", "2", "null", "1.5"]);
        assert_eq!(m["s"], Value::Int(3));
        assert_eq!(m["2"], Value::Str("two".into()));
    }

    #[test]
    fn traverse_walks_maps_and_lists() {
        let v = Value::from_json(&serde_json::json!({"a": {"b": [10, {"c": 3}]}}));
        assert_eq!(v.traverse("a:b:1:c", ":"), Some(&Value::Int(3)));
        assert_eq!(v.traverse("a:x", ":"), None);
        assert_eq!(v.traverse("a:b:9", ":"), None);
    }
}
