//! Hiera 5 merge behaviours (`first`, `unique`, `hash`, `deep`), as
//! Puppet 7 applies them: a value found at a higher priority is merged with
//! the next lower one, one pair at a time, and `deep` follows the
//! `deep_merge` gem with `preserve_unmergeables` off (Ruby truthiness,
//! union of arrays with the lower-priority elements first, knockout
//! prefixes, `sort_merged_arrays`, `merge_hash_arrays`).

use super::HieraError;
use brine_core::{Map, Value};
use std::cmp::Ordering;

/// Which merge behaviour.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// First found (`first`, and `default` when nothing was asked).
    First,
    /// Flattened arrays (or scalars) joined without duplicates.
    Unique,
    /// Top-level keys of hashes; higher priority wins per key.
    Hash,
    /// Recursive merge of hashes and arrays.
    Deep,
    /// `deep` with the arguments swapped (Hiera 3's `merge_behavior: deep`).
    ReverseDeep,
}

/// A merge behaviour with its `deep` options.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Strategy {
    pub kind: Kind,
    pub knockout_prefix: Option<String>,
    pub sort_merged_arrays: bool,
    pub merge_hash_arrays: bool,
}

impl Default for Strategy {
    fn default() -> Self {
        Strategy::of(Kind::First)
    }
}

impl Strategy {
    pub fn of(kind: Kind) -> Strategy {
        Strategy {
            kind,
            knockout_prefix: None,
            sort_merged_arrays: false,
            merge_hash_arrays: false,
        }
    }

    /// The strategy a `merge` value names: absent/null is first found, a
    /// string is a strategy name, a hash holds `strategy` and its options.
    pub fn from_value(merge: Option<&Value>) -> Result<Strategy, HieraError> {
        let bad = |m: String| HieraError::Merge(m);
        let (name, options) =
            match merge {
                None | Some(Value::Null) => return Ok(Strategy::default()),
                Some(Value::Str(s)) => (s.as_str(), None),
                Some(Value::Map(m)) => match m.get("strategy") {
                    Some(Value::Str(s)) => (s.as_str(), Some(m)),
                    _ => return Err(bad(
                        "The hash given as 'merge' must contain the name of a strategy in string \
                         form for the key 'strategy'"
                            .into(),
                    )),
                },
                Some(other) => {
                    return Err(bad(format!(
                        "Unknown merge strategy: '{}'",
                        super::interpolation::ruby_to_s(other)
                    )))
                }
            };
        let kind = match name {
            "first" | "default" => Kind::First,
            "unique" => Kind::Unique,
            "hash" => Kind::Hash,
            "deep" | "unconstrained_deep" => Kind::Deep,
            "reverse_deep" => Kind::ReverseDeep,
            other => return Err(bad(format!("Unknown merge strategy: '{other}'"))),
        };
        let mut s = Strategy::of(kind);
        let Some(options) = options else {
            return Ok(s);
        };
        // Puppet validates the options against a struct type per strategy;
        // the unconstrained variants accept anything.
        let constrained = !matches!(name, "unconstrained_deep" | "reverse_deep");
        for (k, v) in options {
            let is_deep = matches!(kind, Kind::Deep | Kind::ReverseDeep);
            match (k.as_str(), v) {
                ("strategy", _) => {}
                (_, Value::Null) if is_deep => {}
                ("knockout_prefix", Value::Str(p)) if is_deep => {
                    s.knockout_prefix = Some(p.clone())
                }
                ("sort_merged_arrays", Value::Bool(b)) if is_deep => s.sort_merged_arrays = *b,
                ("merge_hash_arrays", Value::Bool(b)) if is_deep => s.merge_hash_arrays = *b,
                ("merge_debug", Value::Bool(_)) if is_deep => {}
                (key, _) if constrained => {
                    return Err(bad(format!(
                        "The merge options for strategy '{name}' has wrong type: \
                         unrecognized or mistyped key '{key}'"
                    )))
                }
                _ => {}
            }
        }
        Ok(s)
    }

    /// What a value becomes when it is the first one found among several.
    pub fn convert_value(&self, v: Value) -> Value {
        match self.kind {
            Kind::Unique => Value::List(flatten(v)),
            _ => v,
        }
    }

    /// What a value becomes when it is the only candidate of a search.
    pub fn merge_single(&self, v: Value) -> Value {
        match (self.kind, v) {
            (Kind::Unique, Value::List(l)) => Value::List(union(Vec::new(), l)),
            (_, v) => v,
        }
    }

    /// Merge `e1` (higher priority, what was merged so far) with `e2` (the
    /// next value found).
    pub fn merge(&self, e1: Value, e2: Value) -> Result<Value, HieraError> {
        match self.kind {
            Kind::First => Ok(e1),
            Kind::Unique => {
                for (what, v) in [("first", &e1), ("second", &e2)] {
                    if matches!(v, Value::Null | Value::Map(_)) {
                        return Err(type_error(what, "Scalar or Array", v));
                    }
                }
                Ok(Value::List(union(flatten(e1), flatten(e2))))
            }
            Kind::Hash => match (e1, e2) {
                (Value::Map(high), Value::Map(mut low)) => {
                    // Ruby's `low.merge(high)`: low's key order, high's values.
                    for (k, v) in high {
                        low.insert(k, v);
                    }
                    Ok(Value::Map(low))
                }
                (Value::Map(_), other) => Err(type_error("second", "Hash", &other)),
                (other, _) => Err(type_error("first", "Hash", &other)),
            },
            Kind::Deep => deep_merge(e1, e2, self),
            Kind::ReverseDeep => deep_merge(e2, e1, self),
        }
    }
}

fn type_error(which: &str, expected: &str, got: &Value) -> HieraError {
    HieraError::Merge(format!(
        "The {which} element of the merge expects a {expected} value, got {}",
        puppet_type_name(got)
    ))
}

/// The Puppet type name of a value, for error messages.
pub fn puppet_type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "Undef",
        Value::Bool(_) => "Boolean",
        Value::Int(_) => "Integer",
        Value::Float(_) => "Float",
        Value::Str(_) => "String",
        Value::List(_) => "Array",
        Value::Map(_) => "Hash",
    }
}

/// Ruby's `Array#flatten` for an array, `[v]` for anything else.
fn flatten(v: Value) -> Vec<Value> {
    fn walk(v: Value, out: &mut Vec<Value>) {
        match v {
            Value::List(l) => l.into_iter().for_each(|x| walk(x, out)),
            other => out.push(other),
        }
    }
    match v {
        Value::List(_) => {
            let mut out = Vec::new();
            walk(v, &mut out);
            out
        }
        other => vec![other],
    }
}

/// Ruby's `a | b`: the distinct elements of `a`, then those of `b` not seen
/// yet (`eql?` equality: `1` and `1.0` differ).
fn union(a: Vec<Value>, b: Vec<Value>) -> Vec<Value> {
    let mut out: Vec<Value> = Vec::with_capacity(a.len() + b.len());
    for v in a.into_iter().chain(b) {
        if !out.contains(&v) {
            out.push(v);
        }
    }
    out
}

/// Ruby truthiness: only `nil` and `false` are false.
fn truthy(v: &Value) -> bool {
    !matches!(v, Value::Null | Value::Bool(false))
}

/// Ruby's `==` (numbers compare across Integer and Float).
fn ruby_eq(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Int(x), Value::Float(y)) | (Value::Float(y), Value::Int(x)) => (*x as f64) == *y,
        (Value::List(x), Value::List(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| ruby_eq(p, q))
        }
        (Value::Map(x), Value::Map(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| ruby_eq(v, w)))
        }
        _ => a == b,
    }
}

/// `s.gsub(/^PREFIX/, "")`: the prefix removed at the start of every line.
fn strip_prefix_lines(s: &str, prefix: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for (i, line) in s.split('\n').enumerate() {
        if i > 0 {
            out.push('\n');
        }
        out.push_str(line.strip_prefix(prefix).unwrap_or(line));
    }
    out
}

/// Whether some line of `s` starts with `prefix` (`s.match(/^PREFIX/)`).
fn has_prefix_line(s: &str, prefix: &str) -> bool {
    s.split('\n').any(|l| l.starts_with(prefix))
}

/// `DeepMerge.deep_merge!(source, dest)` with Puppet's options: `source`
/// has the higher priority.
pub fn deep_merge(source: Value, dest: Value, s: &Strategy) -> Result<Value, HieraError> {
    if s.knockout_prefix.as_deref() == Some("") {
        return Err(HieraError::Merge(
            "knockout_prefix cannot be an empty string in deep_merge!".into(),
        ));
    }
    dm(source, dest, false, s, 0)
}

/// Nesting bound: data this deep is refused rather than risking the stack.
const MAX_DEPTH: usize = 200;

/// One step of `deep_merge!`. `aliased` says `dest` is the very object
/// `source` is in Ruby (the gem merges a value into a shallow copy of
/// itself when the destination lacks a key, so the children are shared),
/// which matters where the gem mutates arrays in place.
fn dm(
    source: Value,
    dest: Value,
    aliased: bool,
    s: &Strategy,
    depth: usize,
) -> Result<Value, HieraError> {
    if depth > MAX_DEPTH {
        return Err(HieraError::Merge(format!(
            "data nested deeper than {MAX_DEPTH} levels"
        )));
    }
    if source.is_null() {
        return Ok(dest);
    }
    if !truthy(&dest) {
        return Ok(source);
    }
    let ko = s.knockout_prefix.as_deref();
    match source {
        Value::Map(src) => {
            let mut dest = dest;
            // Once `dest` was overwritten by `source` (a non-hash `dest`),
            // it *is* `source` for the remaining keys.
            let mut now_aliased = aliased;
            for (k, sv) in src.iter() {
                match &mut dest {
                    Value::Map(d) => {
                        let existing = d.get(k).filter(|v| truthy(v)).cloned();
                        let merged = match existing {
                            Some(dv) => dm(sv.clone(), dv, now_aliased, s, depth + 1)?,
                            // Merged into a shallow copy of itself.
                            None => self_merge(sv.clone(), s, depth + 1)?,
                        };
                        d.insert(k.clone(), merged);
                    }
                    _ => {
                        dest = overwrite_unmergeables(Value::Map(src.clone()), dest, ko);
                        now_aliased = true;
                    }
                }
            }
            Ok(dest)
        }
        Value::List(src) => merge_arrays(src, dest, aliased, s, depth),
        scalar => Ok(overwrite_unmergeables(scalar, dest, ko)),
    }
}

/// `deep_merge!(v, v.dup)`: the copy is new but its children are `v`'s.
fn self_merge(v: Value, s: &Strategy, depth: usize) -> Result<Value, HieraError> {
    match v {
        Value::Map(m) => {
            let copy = Value::Map(m.clone());
            dm_children_aliased(m, copy, s, depth)
        }
        Value::List(l) => {
            let copy = Value::List(l.clone());
            merge_arrays(l, copy, false, s, depth)
        }
        other => {
            let copy = other.clone();
            dm(other, copy, false, s, depth)
        }
    }
}

/// A hash merged into a shallow copy of itself: each value meets itself.
fn dm_children_aliased(
    src: Map,
    dest: Value,
    s: &Strategy,
    depth: usize,
) -> Result<Value, HieraError> {
    let Value::Map(mut d) = dest else {
        return Ok(dest);
    };
    for (k, sv) in src {
        let merged = if truthy(&sv) {
            dm(sv.clone(), sv, true, s, depth + 1)?
        } else {
            self_merge(sv, s, depth + 1)?
        };
        d.insert(k, merged);
    }
    Ok(Value::Map(d))
}

fn clear_or_nil(v: Value) -> Value {
    match v {
        Value::List(_) => Value::List(Vec::new()),
        Value::Map(_) => Value::Map(Map::default()),
        Value::Str(_) => Value::Str(String::new()),
        _ => Value::Null,
    }
}

fn merge_arrays(
    mut src: Vec<Value>,
    dest: Value,
    aliased: bool,
    s: &Strategy,
    depth: usize,
) -> Result<Value, HieraError> {
    let ko = s.knockout_prefix.as_deref();
    let mut dest = dest;
    if let Some(ko) = ko {
        let naked = Value::Str(ko.to_string());
        if src.iter().any(|v| ruby_eq(v, &naked)) {
            dest = clear_or_nil(dest);
            if aliased {
                // Clearing `dest` cleared `source` too.
                src.clear();
            } else {
                src.retain(|v| !ruby_eq(v, &naked));
            }
        }
    }
    let Value::List(mut d) = dest else {
        return Ok(overwrite_unmergeables(Value::List(src), dest, ko));
    };
    if let Some(ko) = ko {
        if aliased {
            d = knock_out_in_place(d, ko);
            src = d.clone();
        } else {
            let mut kept = Vec::with_capacity(src.len());
            for item in src {
                let knocked = match &item {
                    Value::Str(text) => {
                        let stripped = strip_prefix_lines(text, ko);
                        (stripped != *text).then_some(Value::Str(stripped))
                    }
                    _ => None,
                };
                match knocked {
                    Some(plain) => d.retain(|x| !ruby_eq(x, &plain) && !ruby_eq(x, &item)),
                    None => kept.push(item),
                }
            }
            src = kept;
        }
    }
    let all_hashes = |l: &[Value]| l.iter().all(|v| matches!(v, Value::Map(_)));
    let mut merged = if s.merge_hash_arrays && all_hashes(&src) && all_hashes(&d) {
        let n = d.len();
        let mut list = Vec::with_capacity(n.max(src.len()));
        for (i, dv) in d.into_iter().enumerate() {
            let sv = src.get(i).cloned().unwrap_or_else(Value::new_map);
            list.push(dm(sv, dv, aliased, s, depth + 1)?);
        }
        list.extend(src.into_iter().skip(n));
        list
    } else {
        union(d, src)
    };
    if s.sort_merged_arrays {
        sort_ruby(&mut merged)?;
    }
    Ok(Value::List(merged))
}

/// `source.delete_if { ... dest.delete(...) }` when source and dest are one
/// array: Ruby compacts the array while the block deletes from it.
fn knock_out_in_place(mut a: Vec<Value>, ko: &str) -> Vec<Value> {
    let (mut i1, mut i2) = (0usize, 0usize);
    while i1 < a.len() {
        let v = a[i1].clone();
        let knocked = match &v {
            Value::Str(text) => {
                let stripped = strip_prefix_lines(text, ko);
                (stripped != *text).then_some(Value::Str(stripped))
            }
            _ => None,
        };
        if let Some(plain) = knocked {
            a.retain(|x| !ruby_eq(x, &plain));
            a.retain(|x| !ruby_eq(x, &v));
        } else {
            if i1 != i2 && i2 < a.len() {
                a[i2] = v;
            }
            i2 += 1;
        }
        i1 += 1;
    }
    // The ensure step: move what the loop did not visit behind the kept part.
    let len = a.len();
    if i2 < len && i2 < i1 {
        let tail: Vec<Value> = if i1 < len {
            a[i1..].to_vec()
        } else {
            Vec::new()
        };
        a.truncate(i2);
        a.extend(tail);
    }
    a
}

fn overwrite_unmergeables(source: Value, dest: Value, ko: Option<&str>) -> Value {
    let Some(ko) = ko else {
        return source;
    };
    let _ = dest;
    match source {
        Value::Str(text) => {
            if strip_prefix_lines(&text, ko) == text {
                Value::Str(text)
            } else {
                Value::Str(String::new())
            }
        }
        Value::List(l) => Value::List(
            l.into_iter()
                .filter(|v| !matches!(v, Value::Str(t) if has_prefix_line(t, ko)))
                .collect(),
        ),
        other => other,
    }
}

/// Ruby's `<=>` where it is defined between two values.
fn ruby_cmp(a: &Value, b: &Value) -> Option<Ordering> {
    match (a, b) {
        (Value::Int(x), Value::Int(y)) => Some(x.cmp(y)),
        (Value::Int(x), Value::Float(y)) => (*x as f64).partial_cmp(y),
        (Value::Float(x), Value::Int(y)) => x.partial_cmp(&(*y as f64)),
        (Value::Float(x), Value::Float(y)) => x.partial_cmp(y),
        (Value::Str(x), Value::Str(y)) => Some(x.as_bytes().cmp(y.as_bytes())),
        (Value::List(x), Value::List(y)) => {
            for (p, q) in x.iter().zip(y) {
                match ruby_cmp(p, q)? {
                    Ordering::Equal => {}
                    o => return Some(o),
                }
            }
            Some(x.len().cmp(&y.len()))
        }
        _ => None,
    }
}

/// `Array#sort!`: fails like Ruby when two elements cannot be compared.
fn sort_ruby(l: &mut [Value]) -> Result<(), HieraError> {
    for w in 0..l.len() {
        for v in (w + 1)..l.len() {
            if ruby_cmp(&l[w], &l[v]).is_none() {
                return Err(HieraError::Merge(format!(
                    "comparison of {} with {} failed",
                    ruby_class(&l[w]),
                    ruby_class(&l[v])
                )));
            }
        }
    }
    l.sort_by(|a, b| ruby_cmp(a, b).unwrap_or(Ordering::Equal));
    Ok(())
}

fn ruby_class(v: &Value) -> &'static str {
    match v {
        Value::Null => "NilClass",
        Value::Bool(true) => "TrueClass",
        Value::Bool(false) => "FalseClass",
        Value::Int(_) => "Integer",
        Value::Float(_) => "Float",
        Value::Str(_) => "String",
        Value::List(_) => "Array",
        Value::Map(_) => "Hash",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn v(j: serde_json::Value) -> Value {
        Value::from_json(&j)
    }

    fn deep() -> Strategy {
        Strategy::of(Kind::Deep)
    }

    #[test]
    fn strategy_names_and_options() {
        assert_eq!(Strategy::from_value(None).unwrap().kind, Kind::First);
        assert_eq!(
            Strategy::from_value(Some(&v(json!("unique"))))
                .unwrap()
                .kind,
            Kind::Unique
        );
        let s = Strategy::from_value(Some(&v(
            json!({"strategy": "deep", "knockout_prefix": "--", "sort_merged_arrays": true}),
        )))
        .unwrap();
        assert_eq!(s.knockout_prefix.as_deref(), Some("--"));
        assert!(s.sort_merged_arrays);
        assert!(Strategy::from_value(Some(&v(json!("nope")))).is_err());
        assert!(Strategy::from_value(Some(&v(json!({"knockout_prefix": "--"})))).is_err());
        assert!(Strategy::from_value(Some(&v(json!({"strategy": "hash", "x": 1})))).is_err());
    }

    #[test]
    fn hash_merge_keeps_lower_order_and_higher_values() {
        // Puppet's `e2.merge(e1)`.
        let r = Strategy::of(Kind::Hash)
            .merge(v(json!({"b": 1, "a": 2})), v(json!({"a": 0, "c": 3})))
            .unwrap();
        let keys: Vec<_> = r.as_map().unwrap().keys().cloned().collect();
        assert_eq!(keys, ["a", "c", "b"]);
        assert_eq!(r.to_json(), json!({"a": 2, "c": 3, "b": 1}));
        assert!(Strategy::of(Kind::Hash)
            .merge(v(json!("x")), v(json!({})))
            .is_err());
    }

    #[test]
    fn unique_flattens_and_dedups_higher_first() {
        let s = Strategy::of(Kind::Unique);
        let r = s
            .merge(s.convert_value(v(json!([1, [2, 1]]))), v(json!(3)))
            .unwrap();
        assert_eq!(r.to_json(), json!([1, 2, 3]));
        assert_eq!(
            s.merge_single(v(json!([1, 1, [2]]))).to_json(),
            json!([1, [2]])
        );
        assert_eq!(s.merge_single(v(json!("x"))).to_json(), json!("x"));
        assert!(s.merge(v(json!([1])), v(json!({"a": 1}))).is_err());
    }

    #[test]
    fn deep_merge_puts_lower_array_elements_first() {
        let r = deep_merge(
            v(json!({"x": [1, 2, 3], "y": 2, "h": {"a": 1}})),
            v(json!({"x": [4, 5, "6"], "y": [7, 8, 9], "h": {"b": 2}})),
            &deep(),
        )
        .unwrap();
        assert_eq!(
            r.to_json(),
            json!({"x": [4, 5, "6", 1, 2, 3], "y": 2, "h": {"b": 2, "a": 1}})
        );
    }

    #[test]
    fn deep_merge_treats_false_and_nil_destinations_as_missing() {
        let r = deep_merge(v(json!({"a": [1, 1]})), v(json!({"a": false})), &deep()).unwrap();
        // The value merged into a copy of itself: duplicates go.
        assert_eq!(r.to_json(), json!({"a": [1]}));
        let r = deep_merge(v(json!({"a": null})), v(json!({"a": 1})), &deep()).unwrap();
        assert_eq!(r.to_json(), json!({"a": 1}));
    }

    #[test]
    fn empty_hash_over_a_scalar_keeps_the_scalar() {
        // The gem only overwrites from inside its loop over the source keys.
        let r = deep_merge(v(json!({"a": {}})), v(json!({"a": "s"})), &deep()).unwrap();
        assert_eq!(r.to_json(), json!({"a": "s"}));
    }

    #[test]
    fn knockout_prefix() {
        let s = Strategy {
            knockout_prefix: Some("--".into()),
            ..deep()
        };
        let r = deep_merge(
            v(json!({"x": ["--1", "2"], "s": "--gone", "all": ["--", "n"]})),
            v(json!({"x": ["1", "3"], "s": "old", "all": ["a", "b"]})),
            &s,
        )
        .unwrap();
        assert_eq!(r.to_json(), json!({"x": ["3", "2"], "s": "", "all": ["n"]}));
        // Where the destination lacks the key, the gem merges the value
        // into a shallow copy of itself: a naked prefix then only empties
        // arrays nested one level deeper (shared with the copy).
        let r = deep_merge(v(json!({"new": ["--", "n"]})), v(json!({})), &s).unwrap();
        assert_eq!(r.to_json(), json!({"new": ["n"]}));
        let r = deep_merge(v(json!({"new": {"x": ["--", "n"]}})), v(json!({})), &s).unwrap();
        assert_eq!(r.to_json(), json!({"new": {"x": []}}));
        let r = deep_merge(
            v(json!({"new": {"x": ["--a", "b", "--c", "d"]}, "l": ["--a", "a", "b"]})),
            v(json!({})),
            &s,
        )
        .unwrap();
        assert_eq!(r.to_json(), json!({"new": {"x": []}, "l": ["b", "a"]}));
    }

    #[test]
    fn sort_and_merge_hash_arrays() {
        let s = Strategy {
            sort_merged_arrays: true,
            ..deep()
        };
        let r = deep_merge(v(json!(["b", "a"])), v(json!(["c"])), &s).unwrap();
        assert_eq!(r.to_json(), json!(["a", "b", "c"]));
        assert!(deep_merge(v(json!([1, "a"])), v(json!([])), &s).is_err());
        let s = Strategy {
            merge_hash_arrays: true,
            ..deep()
        };
        let r = deep_merge(v(json!([{"y": 1}, {"w": 3}])), v(json!([{"z": 2}])), &s).unwrap();
        assert_eq!(r.to_json(), json!([{"z": 2, "y": 1}, {"w": 3}]));
    }
}
