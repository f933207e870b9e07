//! Grain and pillar matching: Salt's `subdict_match` and
//! `traverse_dict_and_list` (salt/utils/data.py), shared by the grain,
//! grain_pcre, pillar, pillar_pcre and pillar_exact matchers.
//!
//! `key:subkey:value` is tried at every split point, the deepest key first,
//! so both `{'a': {'b': 'c'}}` and `{'a': 'b:c'}` match `a:b:c`. Values are
//! compared as Python's `str(value).lower()` against the lower-cased pattern
//! (so `G@foo:true` matches a `True` grain and `G@num_cpus:2` the int 2).
//!
//! Known difference: keys are stored as strings (`80:` as `"80"`), so the
//! "is this a key" test Salt does without YAML-loading (`G@nested:80` with
//! an int key 80, `G@*:80`) finds the key where Salt does not.

use super::{glob, pcre};
use brine_core::value::key_string;
use brine_core::Value;

/// How the value part of the expression is compared.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// fnmatch (grain, pillar).
    Glob,
    /// `re.match` (grain_pcre, pillar_pcre).
    Regex,
    /// Equality (pillar_exact).
    Exact,
}

/// `salt.utils.data.subdict_match(data, expr, delimiter, ...)`.
/// `delimiter` must not be empty (Python's `str.split` raises on it).
pub fn subdict_match(data: &Value, expr: &str, delimiter: &str, mode: Mode) -> bool {
    let splits: Vec<&str> = expr.split(delimiter).collect();
    if splits.len() < 2 {
        return false;
    }
    for idx in (1..splits.len()).rev() {
        let key = splits.get(..idx).unwrap_or(&[]).join(delimiter);
        let (matchstr, found) = if key == "*" {
            // Everything at the top level: the whole expression is matched
            // against the whole data.
            (expr.to_string(), Some(data))
        } else {
            let rest = splits.get(idx..).unwrap_or(&[]).join(delimiter);
            (rest, traverse_dict_and_list(data, &key, delimiter))
        };
        let Some(found) = found else { continue };
        match found {
            // Salt compares with `{}`: an empty mapping counts as not found.
            Value::Map(m) if m.is_empty() => continue,
            Value::Map(_) => {
                if dict_match(found, &matchstr, mode) {
                    return true;
                }
            }
            Value::List(members) => {
                for member in members {
                    if matches!(member, Value::Map(_)) && dict_match(member, &matchstr, mode) {
                        return true;
                    }
                    if value_match(member, &matchstr, mode) {
                        return true;
                    }
                }
            }
            scalar => {
                if value_match(scalar, &matchstr, mode) {
                    return true;
                }
            }
        }
    }
    false
}

/// Salt's `_dict_match`: `*` means "the key exists", a key name matches,
/// a further `a:b` is looked up below, and a leading `*:` searches every
/// value one level down. Nested lookups use `:` whatever the delimiter was,
/// as Salt does.
fn dict_match(target: &Value, pattern: &str, mode: Mode) -> bool {
    let Value::Map(map) = target else {
        return false;
    };
    let (wildcard, pattern) = match pattern.strip_prefix("*:") {
        Some(rest) => (true, rest),
        None => (false, pattern),
    };
    if pattern == "*" || map.contains_key(pattern) {
        return true;
    }
    if subdict_match(target, pattern, ":", mode) {
        return true;
    }
    if wildcard {
        for value in map.values() {
            let hit = match value {
                Value::Map(_) => dict_match(value, pattern, mode),
                Value::List(items) => items.iter().any(|item| value_match(item, pattern, mode)),
                scalar => value_match(scalar, pattern, mode),
            };
            if hit {
                return true;
            }
        }
    }
    false
}

/// Salt's `_match`: `str(target).lower()` against `str(pattern).lower()`.
fn value_match(target: &Value, pattern: &str, mode: Mode) -> bool {
    let target = target.to_python_str().to_lowercase();
    let pattern = pattern.to_lowercase();
    match mode {
        Mode::Glob => glob::fnmatch(&target, &pattern),
        Mode::Exact => target == pattern,
        Mode::Regex => match pcre::re_match(&pattern, &target) {
            Ok(hit) => hit,
            Err(reason) => {
                // Salt logs this and treats it as no match.
                tracing::error!("Invalid regex '{pattern}' in match: {reason}");
                false
            }
        },
    }
}

/// `salt.utils.data.traverse_dict_and_list(data, key, {}, delimiter)`;
/// `None` where Salt returns the default.
pub fn traverse_dict_and_list<'a>(
    data: &'a Value,
    key: &str,
    delimiter: &str,
) -> Option<&'a Value> {
    let mut ptr = data;
    for each in key.split(delimiter) {
        ptr = match ptr {
            Value::List(items) => match python_int(each) {
                None => {
                    // Not an index: the first embedded mapping with that key.
                    items.iter().find_map(|item| item.as_map()?.get(each))?
                }
                Some(idx) => {
                    let keys = python_key_spellings(&Value::Int(idx));
                    let embedded = items
                        .iter()
                        .find_map(|item| keys.iter().find_map(|k| item.as_map()?.get(k)));
                    match embedded {
                        Some(found) => found,
                        None => list_index(items, idx)?,
                    }
                }
            },
            Value::Map(map) => match map.get(each) {
                Some(found) => found,
                // `80` finds the int key 80, `True` the bool key: Salt
                // YAML-loads the segment and tries again.
                None => {
                    let loaded = yaml_scalar(each)?;
                    python_key_spellings(&loaded)
                        .iter()
                        .find_map(|k| map.get(k))?
                }
            },
            _ => return None,
        };
    }
    Some(ptr)
}

/// The stored spellings of every key a Python dict lookup with `key` would
/// find: keys are kept in their json.dumps spelling, and Python treats
/// `0`, `False` and `0.0` (and `1`, `True`, `1.0`, and `2` and `2.0`) as the
/// same key.
fn python_key_spellings(key: &Value) -> Vec<String> {
    let number = match key {
        Value::Bool(b) => Some(f64::from(u8::from(*b))),
        Value::Int(i) => Some(*i as f64),
        Value::Float(f) => Some(*f),
        _ => None,
    };
    let mut out = vec![key_string(key)];
    if let Some(n) = number.filter(|n| n.fract() == 0.0 && n.abs() < 9.0e15) {
        let int = n as i64;
        let mut add = |s: String| {
            if !out.contains(&s) {
                out.push(s);
            }
        };
        add(int.to_string());
        add(key_string(&Value::Float(n)));
        match int {
            0 => add("false".into()),
            1 => add("true".into()),
            _ => {}
        }
    }
    out
}

/// Python list indexing, negative indexes counting from the end.
fn list_index(items: &[Value], idx: i64) -> Option<&Value> {
    let len = i64::try_from(items.len()).ok()?;
    let pos = if idx < 0 { len + idx } else { idx };
    items.get(usize::try_from(pos).ok()?)
}
use brine_core::py::int_from_str as python_int;

/// What `salt.utils.args.yamlify_arg` turns a key segment into when that
/// changes it (the only case where Salt retries the lookup), with Salt's
/// YAML loader: ints (`017` is 17, `0x1F`, `0b101`, `1:30` is 90), floats
/// with a dot, `.inf`/`.nan`, booleans (`yes`/`on`/`true`...), null (and the
/// text `None`), and quoted strings.
fn yaml_scalar(s: &str) -> Option<Value> {
    let t = s.trim();
    if t.is_empty() || t == "---" || t == "..." || s.contains(['\t', '\r', '\n', '#']) {
        return None;
    }
    if s.contains('_') && t.chars().all(|c| c.is_ascii_digit() || c == '_') {
        return None;
    }
    match t {
        "None" | "~" | "null" | "Null" | "NULL" => return Some(Value::Null),
        "yes" | "Yes" | "YES" | "true" | "True" | "TRUE" | "on" | "On" | "ON" => {
            return Some(Value::Bool(true));
        }
        "no" | "No" | "NO" | "false" | "False" | "FALSE" | "off" | "Off" | "OFF" => {
            return Some(Value::Bool(false));
        }
        ".inf" | ".Inf" | ".INF" | "+.inf" | "+.Inf" | "+.INF" => {
            return Some(Value::Float(f64::INFINITY));
        }
        "-.inf" | "-.Inf" | "-.INF" => return Some(Value::Float(f64::NEG_INFINITY)),
        ".nan" | ".NaN" | ".NAN" => return Some(Value::Float(f64::NAN)),
        _ => {}
    }
    for quote in ['\'', '"'] {
        if let Some(inner) = t
            .strip_prefix(quote)
            .and_then(|r| r.strip_suffix(quote))
            .filter(|inner| !inner.contains(quote) && !inner.contains('\\'))
        {
            return Some(Value::Str(inner.to_string()));
        }
    }
    let (neg, body) = match t.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, t.strip_prefix('+').unwrap_or(t)),
    };
    let signed = |n: i64| Value::Int(if neg { -n } else { n });
    let all = |s: &str, f: fn(char) -> bool| !s.is_empty() && s.chars().all(f);
    if let Some(hex) = body.strip_prefix("0x") {
        return all(hex, |c| c.is_ascii_hexdigit())
            .then(|| i64::from_str_radix(hex, 16).ok().map(signed))
            .flatten();
    }
    if let Some(bin) = body.strip_prefix("0b") {
        return all(bin, |c| c == '0' || c == '1')
            .then(|| i64::from_str_radix(bin, 2).ok().map(signed))
            .flatten();
    }
    // `0`, `0` followed by octal digits (read as decimal by Salt's loader),
    // or no leading zero: `080` stays a string.
    if all(body, |c| c.is_ascii_digit())
        && (!body.starts_with('0') || body.chars().all(|c| ('0'..='7').contains(&c)))
    {
        return body.parse::<i64>().ok().map(signed);
    }
    // Base 60: `1:30` is 90.
    if let Some((head, rest)) = body.split_once(':') {
        let parts: Vec<&str> = rest.split(':').collect();
        let head_ok = all(head, |c| c.is_ascii_digit()) && !head.starts_with('0');
        let parts_ok = parts.iter().all(|p| {
            all(p, |c| c.is_ascii_digit()) && p.len() <= 2 && p.parse::<u32>().is_ok_and(|v| v < 60)
        });
        if head_ok && parts_ok {
            let mut n: i64 = head.parse().ok()?;
            for p in parts {
                n = n.checked_mul(60)?.checked_add(p.parse().ok()?)?;
            }
            return Some(signed(n));
        }
        return None;
    }
    // Floats need a dot: `1.5`, `1.`, `.5` (unsigned), `1.5e+3`.
    let (mant, exp) = match body.find(['e', 'E']) {
        Some(at) => (body.get(..at)?, Some(body.get(at + 1..)?)),
        None => (body, None),
    };
    let (int_part, frac) = mant.split_once('.')?;
    let mant_ok = all(&format!("{int_part}{frac}"), |c| c.is_ascii_digit())
        && (!int_part.is_empty() || (!frac.is_empty() && t == body));
    let exp_ok = exp.is_none_or(|e| {
        e.len() > 1
            && e.starts_with(['+', '-'])
            && all(e.get(1..).unwrap_or(""), |c| c.is_ascii_digit())
    });
    if mant_ok && exp_ok {
        return t.parse::<f64>().ok().map(Value::Float);
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn python_int_like_python() {
        assert_eq!(python_int(" 1 "), Some(1));
        assert_eq!(python_int("-1"), Some(-1));
        assert_eq!(python_int("+2"), Some(2));
        assert_eq!(python_int("1_0"), Some(10));
        assert_eq!(python_int("1__0"), None);
        assert_eq!(python_int("_1"), None);
        assert_eq!(python_int("a"), None);
        assert_eq!(python_int(""), None);
    }

    /// `salt.utils.args.yamlify_arg(s)` in Salt 3007.8; `None` where it
    /// returns the string unchanged (Salt then gives up on the key).
    #[test]
    fn yaml_scalar_like_yamlify_arg() {
        use Value::*;
        let cases: &[(&str, Option<Value>)] = &[
            ("80", Some(Int(80))),
            ("080", None),
            ("0", Some(Int(0))),
            ("-1", Some(Int(-1))),
            ("+1", Some(Int(1))),
            ("0x1F", Some(Int(31))),
            ("0X1F", None),
            ("017", Some(Int(17))),
            ("0o17", None),
            ("0b101", Some(Int(5))),
            ("1_000", None),
            ("1.5", Some(Float(1.5))),
            ("1.", Some(Float(1.0))),
            ("-.5", None),
            (".5", Some(Float(0.5))),
            ("1e5", None),
            ("1.5e+3", Some(Float(1500.0))),
            ("1.5E-3", Some(Float(0.0015))),
            ("1.5e3", None),
            ("True", Some(Bool(true))),
            ("TRUE", Some(Bool(true))),
            ("tRUE", None),
            ("yes", Some(Bool(true))),
            ("y", None),
            ("n", None),
            ("no", Some(Bool(false))),
            ("on", Some(Bool(true))),
            ("Off", Some(Bool(false))),
            ("Null", Some(Null)),
            ("~", Some(Null)),
            ("None", Some(Null)),
            ("none", None),
            ("web", None),
            ("", None),
            ("  ", None),
            ("---", None),
            ("#x", None),
            ("a#b", None),
            ("'80'", Some(Str("80".into()))),
            ("\"80\"", Some(Str("80".into()))),
            ("!", None),
            ("|", None),
            (".inf", Some(Float(f64::INFINITY))),
            ("1:30", Some(Int(90))),
            ("-0", Some(Int(0))),
            ("00", Some(Int(0))),
            ("0.0", Some(Float(0.0))),
            ("12_3", None),
            ("1 ", Some(Int(1))),
            (" 1", Some(Int(1))),
            ("0x", None),
            ("+", None),
            ("-", None),
            ("2024-01-01", None),
        ];
        for (s, want) in cases {
            assert_eq!(&yaml_scalar(s), want, "yamlify_arg({s:?})");
        }
    }
}
