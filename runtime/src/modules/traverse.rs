//! Salt's `traverse_dict_and_list` over brine data: `a:b:0` walks dicts
//! and lists, and says the way it took, so an answer can point at the
//! piece it found.

use brine_compile::minion_data::Step;
use brine_core::value::key_string;
use brine_core::{Map, Value};

/// Walk `key` split on `delim` down from `root`. A list is indexed by
/// number (negative from the end) unless a dict in it holds the segment as
/// a key; a dict key that is missing is retried as the YAML scalar it
/// spells (`'0x50'` finds the key `80`). Returns the piece and the steps.
pub(crate) fn traverse<'a>(
    root: &'a Map,
    key: &str,
    delim: &str,
) -> Option<(&'a Value, Vec<Step>)> {
    let mut parts = split(key, delim);
    let first = parts.next()?;
    let mut path = Vec::new();
    let mut ptr = in_map(root, first, &mut path)?;
    for part in parts {
        ptr = match ptr {
            Value::Map(m) => in_map(m, part, &mut path)?,
            Value::List(items) => in_list(items, part, &mut path)?,
            _ => return None,
        };
    }
    Some((ptr, path))
}

/// `key.split(delim)`, or the whole key when `delim` is empty.
fn split<'k>(key: &'k str, delim: &'k str) -> impl Iterator<Item = &'k str> + 'k {
    let mut rest = Some(key);
    std::iter::from_fn(move || {
        let r = rest?;
        match r.split_once(delim).filter(|_| !delim.is_empty()) {
            Some((part, after)) => {
                rest = Some(after);
                Some(part)
            }
            None => {
                rest = None;
                Some(r)
            }
        }
    })
}

fn in_map<'a>(m: &'a Map, part: &str, path: &mut Vec<Step>) -> Option<&'a Value> {
    if let Some(v) = m.get(part) {
        path.push(Step::Key(part.to_string()));
        return Some(v);
    }
    let key = yaml_key(part)?;
    let v = m.get(&key)?;
    path.push(Step::Key(key));
    Some(v)
}

fn in_list<'a>(items: &'a [Value], part: &str, path: &mut Vec<Step>) -> Option<&'a Value> {
    let idx = python_int(part);
    // A dict in the list holding the segment (or the number) as a key.
    let key = idx
        .map(|i| i.to_string())
        .unwrap_or_else(|| part.to_string());
    for (i, item) in items.iter().enumerate() {
        if let Some(v) = item.get(&key) {
            path.push(Step::Index(i));
            path.push(Step::Key(key));
            return Some(v);
        }
    }
    let idx = idx?;
    let len = i64::try_from(items.len()).ok()?;
    let pos = usize::try_from(if idx < 0 { len + idx } else { idx }).ok()?;
    let v = items.get(pos)?;
    path.push(Step::Index(pos));
    Some(v)
}

/// The key a non-string YAML scalar is stored under in brine's data
/// (`True` → `true`, `0x50` → `80`), when it differs from the text.
fn yaml_key(part: &str) -> Option<String> {
    // PyYAML's booleans and nulls, without parsing (misses are common:
    // `pillar.get('nginx:lookup', {})`).
    let word = match part {
        "yes" | "Yes" | "YES" | "true" | "True" | "TRUE" | "on" | "On" | "ON" => "true",
        "no" | "No" | "NO" | "false" | "False" | "FALSE" | "off" | "Off" | "OFF" => "false",
        "" | "~" | "null" | "Null" | "NULL" => "null",
        _ => "",
    };
    if !word.is_empty() {
        return (word != part).then(|| word.to_string());
    }
    // Only what starts like a number is worth parsing.
    if !part.starts_with(|c: char| c.is_ascii_digit() || "+-.".contains(c)) {
        return None;
    }
    match brine_core::yaml::load(part).ok()? {
        v @ (Value::Int(_) | Value::Float(_)) => Some(key_string(&v)).filter(|k| k != part),
        _ => None,
    }
}

/// Python `int(s)`: surrounding whitespace, a sign, `_` between digits.
pub(crate) fn python_int(s: &str) -> Option<i64> {
    let t = s.trim();
    let digits = t.strip_prefix(['+', '-']).unwrap_or(t);
    if digits.is_empty()
        || digits.starts_with('_')
        || digits.ends_with('_')
        || digits.contains("__")
        || !digits.chars().all(|c| c.is_ascii_digit() || c == '_')
    {
        return None;
    }
    t.replace('_', "").parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn walks_like_salt() {
        let Value::Map(root) = Value::from_json(&json!({
            "a": {"b": [10, {"c": 1}, [5, 6]], "80": "port", "true": "yes"},
            "l": [{"x": 1}, {"y": 2}],
        })) else {
            unreachable!("a map")
        };
        let cases: &[(&str, &str, Option<serde_json::Value>)] = &[
            ("a:b:0", ":", Some(json!(10))),
            ("a:b:-1", ":", Some(json!([5, 6]))),
            ("a:b:c", ":", Some(json!(1))),
            ("a:b:2:1", ":", Some(json!(6))),
            ("a:b:9", ":", None),
            ("a:0x50", ":", Some(json!("port"))),
            ("a:True", ":", Some(json!("yes"))),
            ("a:on", ":", Some(json!("yes"))),
            ("a:nope", ":", None),
            ("a:+80", ":", Some(json!("port"))),
            ("l:y", ":", Some(json!(2))),
            ("a/b/ 0 ", "/", Some(json!(10))),
            ("a:b", "", None),
            ("nope", ":", None),
        ];
        for (key, delim, want) in cases {
            let got = traverse(&root, key, delim).map(|(v, _)| v.to_json());
            assert_eq!(&got, want, "{key}");
        }
        let (_, path) = traverse(&root, "l:y", ":").unwrap_or((&Value::Null, vec![]));
        assert_eq!(
            path,
            [Step::Key("l".into()), Step::Index(1), Step::Key("y".into())]
        );
    }

    #[test]
    fn python_int_parsing() {
        assert_eq!(python_int(" -1 "), Some(-1));
        assert_eq!(python_int("1_0"), Some(10));
        assert_eq!(python_int("x"), None);
        assert_eq!(python_int("_1"), None);
    }
}
