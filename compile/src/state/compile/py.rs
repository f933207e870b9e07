//! The few Python semantics the compiler leans on: `==` across numeric
//! types, dict keys as Python hashes them, the first key of a dict, and
//! `str()` of YAML-loaded data (Salt's loader builds `OrderedDict`s, so an
//! error message shows a mapping as `OrderedDict([('a', 'b')])`).

use brine_core::value::{python_float_repr, python_str_repr};
use brine_core::{Map, Value};

/// Does `key` belong to the compiler (`__sls__`, `__env__`, `__extend__`)?
pub(crate) fn is_dunder(key: &str) -> bool {
    key.starts_with("__")
}

/// `next(iter(d))`.
pub(crate) fn first_key(m: &Map) -> Option<&str> {
    m.keys().next().map(String::as_str)
}

/// The first key of a dict that is not a `__dunder__` key: the state module
/// of an ID's body.
pub(crate) fn first_state(m: &Map) -> Option<&str> {
    m.keys().map(String::as_str).find(|k| !is_dunder(k))
}
/// Python's `a == b` (see [`brine_core::value::python_eq`]).
pub(crate) fn py_eq(a: &Value, b: &Value) -> bool {
    brine_core::value::python_eq(a, b)
}

/// A Python number: `bool` and `int` are integers.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Num {
    Int(i128),
    Float(f64),
}

impl Num {
    /// Python's numeric comparison (exact between ints, ints against floats
    /// compared as floats, which is exact for every order Salt sees).
    pub(crate) fn py_cmp(self, other: Num) -> Option<std::cmp::Ordering> {
        match (self, other) {
            (Num::Int(x), Num::Int(y)) => Some(x.cmp(&y)),
            (x, y) => x.as_f64().partial_cmp(&y.as_f64()),
        }
    }

    pub(crate) fn as_f64(self) -> f64 {
        match self {
            Num::Int(i) => i as f64,
            Num::Float(f) => f,
        }
    }

    /// Back to a value: integers that no longer fit an i64 saturate.
    pub(crate) fn to_value(self) -> Value {
        match self {
            Num::Int(i) => Value::Int(i.clamp(i64::MIN as i128, i64::MAX as i128) as i64),
            Num::Float(f) => Value::Float(f),
        }
    }
}

/// The number a value is for Python arithmetic, if it is one.
pub(crate) fn number(v: &Value) -> Option<Num> {
    match v {
        Value::Bool(b) => Some(Num::Int(i128::from(*b))),
        Value::Int(i) => Some(Num::Int(i128::from(*i))),
        Value::Float(f) => Some(Num::Float(*f)),
        _ => None,
    }
}

/// A value as a Python dict key: equal keys are those Python hashes and
/// compares equal (`1`, `1.0` and `True` are one key).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) enum PyKey {
    None,
    Int(i128),
    Float(u64),
    Str(String),
    /// Lists and dicts cannot be keys in Python (Salt would raise); they are
    /// kept apart by their text so nothing here panics on them.
    Unhashable(String),
}

pub(crate) fn py_key(v: &Value) -> PyKey {
    match v {
        Value::Null => PyKey::None,
        Value::Str(s) => PyKey::Str(s.clone()),
        Value::Bool(b) => PyKey::Int(i128::from(*b)),
        Value::Int(i) => PyKey::Int(i128::from(*i)),
        Value::Float(f) => {
            if f.fract() == 0.0 && f.is_finite() && f.abs() < 1e30 {
                PyKey::Int(*f as i128)
            } else {
                PyKey::Float(f.to_bits())
            }
        }
        other => PyKey::Unhashable(py_str(other)),
    }
}

/// Can Python hash this value (`ishashable`)? Lists and `OrderedDict`s not.
pub(crate) fn is_hashable(v: &Value) -> bool {
    !matches!(v, Value::List(_) | Value::Map(_))
}

/// Python's `str()` of YAML-loaded data.
pub(crate) fn py_str(v: &Value) -> String {
    match v {
        Value::Str(s) => s.clone(),
        other => py_repr(other),
    }
}

/// Python's `repr()` of YAML-loaded data, mappings as `OrderedDict`s
/// (Python 3.11 spelling).
pub(crate) fn py_repr(v: &Value) -> String {
    match v {
        Value::List(l) => {
            let items: Vec<String> = l.iter().map(py_repr).collect();
            format!("[{}]", items.join(", "))
        }
        Value::Map(m) if m.is_empty() => "OrderedDict()".into(),
        Value::Map(m) => {
            let items: Vec<String> = m
                .iter()
                .map(|(k, v)| format!("({}, {})", python_str_repr(k), py_repr(v)))
                .collect();
            format!("OrderedDict([{}])", items.join(", "))
        }
        Value::Float(f) => python_float_repr(*f),
        other => other.to_python_repr(),
    }
}

/// What `for x in value` yields in Python: list items, dict keys, the
/// characters of a string; `None` for anything Python cannot iterate.
pub(crate) fn py_iter(v: &Value) -> Option<Vec<Value>> {
    match v {
        Value::List(l) => Some(l.clone()),
        Value::Map(m) => Some(m.keys().map(|k| Value::Str(k.clone())).collect()),
        Value::Str(s) => Some(s.chars().map(|c| Value::Str(c.to_string())).collect()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_compare_like_python() {
        assert!(py_eq(&Value::Int(1), &Value::Float(1.0)));
        assert!(py_eq(&Value::Bool(true), &Value::Int(1)));
        assert!(!py_eq(&Value::Str("1".into()), &Value::Int(1)));
        assert_eq!(py_key(&Value::Float(2.0)), py_key(&Value::Int(2)));
    }

    #[test]
    fn dicts_print_as_ordered_dicts() {
        let mut m = Map::default();
        m.insert("a".into(), Value::Str("b".into()));
        assert_eq!(py_str(&Value::Map(m)), "OrderedDict([('a', 'b')])");
        assert_eq!(py_str(&Value::List(vec!["x".into()])), "['x']");
        assert_eq!(py_str(&Value::Int(5)), "5");
    }
}
