//! Salt's Jinja filters, tests and globals (salt/utils/jinja.py,
//! salt/utils/yamlencoding.py, the `@jinja_filter` functions), and the
//! Python behaviours Salt trees get from Jinja2 that minijinja does
//! differently: `|string`, `|join`, `|format`, `str.format()` print Python's
//! `str()` of values; `|unique` is case-sensitive.

use super::convert::{self, map_pairs, py_repr, py_str, seq_items, to_jinja};
use super::mutable::make_mutable;
use super::pyargs::{bind, invalid, split, str_arg};
use super::pystr::{number_f64, percent_format, str_method};
use super::{pyjson, yaml_repr};
use minijinja::value::{Rest, Value as MjValue, ValueKind};
use minijinja::{Environment, Error, ErrorKind};
use regex::Regex;

type FResult = Result<MjValue, Error>;

pub(crate) fn register(env: &mut Environment<'static>) {
    // Name of the filter the template rewriting wraps `{% set %}` values in.
    env.add_filter(super::preprocess::MUTABLE_FILTER, |v: MjValue| {
        make_mutable(&v)
    });

    env.add_filter("yaml", |v: MjValue, a: Rest<MjValue>| yaml_filter(&v, &a));
    env.add_filter("json", |v: MjValue, a: Rest<MjValue>| json_filter(&v, &a));
    env.add_filter("tojson", |v: MjValue, a: Rest<MjValue>| {
        tojson_filter(&v, &a)
    });
    env.add_filter("python", |v: MjValue| python_filter(&v));
    env.add_filter("load_yaml", |v: MjValue| load_yaml(&v));
    env.add_filter("load_json", |v: MjValue| load_json(&v));
    env.add_filter("load_text", |v: MjValue| MjValue::from(loaded_text(&v)));
    env.add_filter("yaml_encode", |v: MjValue| {
        yaml_repr::encode(&v)
            .map(MjValue::from)
            .map_err(|e| invalid(e.to_string()))
    });
    env.add_filter("yaml_dquote", |v: MjValue| {
        MjValue::from(brine_core::yaml::yaml_dquote(&py_str(&v)))
    });
    env.add_filter("yaml_squote", |v: MjValue| {
        MjValue::from(brine_core::yaml::yaml_squote(&py_str(&v)))
    });
    env.add_filter("dict_to_sls_yaml_params", |v: MjValue, a: Rest<MjValue>| {
        dict_to_sls_yaml_params(&v, &a)
    });

    env.add_filter("unique", |v: MjValue| {
        MjValue::from(unique(seq_or_keys(&v)))
    });
    env.add_filter("union", |a: MjValue, b: MjValue| {
        let mut all = seq_or_keys(&a);
        all.extend(seq_or_keys(&b));
        MjValue::from(unique(all))
    });
    env.add_filter("intersect", |a: MjValue, b: MjValue| {
        let b = seq_or_keys(&b);
        MjValue::from(unique(
            seq_or_keys(&a)
                .into_iter()
                .filter(|x| b.contains(x))
                .collect(),
        ))
    });
    env.add_filter("difference", |a: MjValue, b: MjValue| {
        let b = seq_or_keys(&b);
        MjValue::from(unique(
            seq_or_keys(&a)
                .into_iter()
                .filter(|x| !b.contains(x))
                .collect(),
        ))
    });
    env.add_filter("symmetric_difference", |a: MjValue, b: MjValue| {
        let (a, b) = (seq_or_keys(&a), seq_or_keys(&b));
        let mut all = a.clone();
        all.extend(b.iter().cloned());
        MjValue::from(unique(
            all.into_iter()
                .filter(|x| !(a.contains(x) && b.contains(x)))
                .collect(),
        ))
    });

    env.add_filter("to_bool", |v: MjValue| MjValue::from(to_bool(&v)));
    env.add_filter("quote", |v: MjValue| {
        MjValue::from(shell_quote(&py_str(&v)))
    });
    env.add_filter("regex_escape", |v: MjValue| {
        MjValue::from(python_re_escape(&py_str(&v)))
    });
    env.add_filter("regex_search", |v: MjValue, a: Rest<MjValue>| {
        regex_find(&v, &a, false)
    });
    env.add_filter("regex_match", |v: MjValue, a: Rest<MjValue>| {
        regex_find(&v, &a, true)
    });
    env.add_filter("regex_replace", |v: MjValue, a: Rest<MjValue>| {
        regex_replace(&v, &a)
    });
    env.add_filter("sequence", |v: MjValue| match v.kind() {
        ValueKind::Seq | ValueKind::Map => v,
        _ => MjValue::from(vec![v]),
    });
    env.add_filter("is_list", |v: MjValue| MjValue::from(is_list(&v)));
    env.add_filter("is_iter", |v: MjValue| {
        MjValue::from(matches!(
            v.kind(),
            ValueKind::Seq | ValueKind::Map | ValueKind::Iterable
        ))
    });
    env.add_filter("skip", |_v: MjValue| MjValue::from(""));
    env.add_filter("avg", |v: MjValue| avg(&v));
    env.add_filter("base64_encode", |v: MjValue| {
        MjValue::from(base64_encode(py_str(&v).as_bytes()))
    });
    env.add_filter("base64_decode", |v: MjValue| base64_decode(&py_str(&v)));
    env.add_filter("is_ip", |v: MjValue, a: Rest<MjValue>| is_ip(&v, &a, None));
    env.add_filter("is_ipv4", |v: MjValue, a: Rest<MjValue>| {
        is_ip(&v, &a, Some(4))
    });
    env.add_filter("is_ipv6", |v: MjValue, a: Rest<MjValue>| {
        is_ip(&v, &a, Some(6))
    });
    env.add_filter("flatten", |v: MjValue, a: Rest<MjValue>| {
        flatten_filter(&v, &a)
    });
    env.add_filter("sorted_ignorecase", |v: MjValue| {
        let mut items = seq_or_keys(&v);
        items.sort_by_key(|x| py_str(x).to_lowercase());
        MjValue::from(items)
    });
    env.add_filter("exactly_one_true", |v: MjValue| {
        MjValue::from(seq_or_keys(&v).iter().filter(|x| x.is_true()).count() == 1)
    });
    env.add_filter("exactly_n_true", |v: MjValue, n: Option<usize>| {
        MjValue::from(seq_or_keys(&v).iter().filter(|x| x.is_true()).count() == n.unwrap_or(1))
    });
    env.add_filter("traverse", |v: MjValue, a: Rest<MjValue>| {
        traverse_filter(&v, &a)
    });
    env.add_filter("path_join", |v: MjValue, a: Rest<MjValue>| {
        path_join(&v, &a)
    });
    env.add_filter("to_num", |v: MjValue| to_num(&v));
    env.add_filter("str_to_num", |v: MjValue| to_num(&v));
    env.add_filter("contains_whitespace", |v: MjValue| {
        MjValue::from(py_str(&v).chars().any(char::is_whitespace))
    });
    env.add_filter("is_hex", |v: MjValue| {
        let s = py_str(&v);
        let s = s.strip_prefix("0x").unwrap_or(&s);
        MjValue::from(!s.is_empty() && s.chars().all(|c| c.is_ascii_hexdigit()))
    });
    env.add_filter(
        "method_call",
        |state: &minijinja::State, v: MjValue, name: String, a: Rest<MjValue>| {
            // Salt's method_call returns None for a missing method.
            Ok::<_, Error>(match v.call_method(state, &name, &a) {
                Err(e) if e.kind() == ErrorKind::UnknownMethod => MjValue::from(()),
                other => other?,
            })
        },
    );

    // Python's str() where minijinja would print its own spelling.
    env.add_filter("string", |v: MjValue| MjValue::from(py_str(&v)));
    env.add_filter("join", |v: MjValue, a: Rest<MjValue>| join_filter(&v, &a));
    // Jinja2 gives (key, value) tuples here.
    env.add_filter("dictsort", |v: MjValue, kw: minijinja::value::Kwargs| {
        pairs_to_tuples(minijinja::filters::dictsort(&v, kw)?)
    });
    env.add_filter("items", |v: MjValue| {
        pairs_to_tuples(minijinja::filters::items(&v)?)
    });
    env.add_filter("indent", |v: MjValue, a: Rest<MjValue>| {
        indent_filter(&v, &a)
    });
    env.add_filter("format", |v: MjValue, a: Rest<MjValue>| {
        percent_format(&py_str(&v), &a).map(MjValue::from)
    });

    env.add_test("match", |v: MjValue, a: Rest<MjValue>| {
        regex_find(&v, &a, true).map(|m| !m.is_none())
    });
    env.add_filter("random", random_filter);
    env.add_test("list", |v: MjValue| is_list(&v));
    // Jinja2's `number` is `isinstance(v, Number)`: booleans are numbers.
    env.add_test("number", |v: MjValue| {
        matches!(v.kind(), ValueKind::Number | ValueKind::Bool)
    });
    env.add_test("callable", |v: MjValue| {
        super::salt_functions::is_callable(&v)
    });
    // Jinja2: anything with a length and item access (strings, dicts too).
    env.add_test("sequence", |v: MjValue| {
        matches!(
            v.kind(),
            ValueKind::String | ValueKind::Bytes | ValueKind::Seq | ValueKind::Map
        )
    });
    env.add_filter("int", |v: MjValue, a: Rest<MjValue>| int_filter(&v, &a));
    env.add_filter("round", |v: MjValue, a: Rest<MjValue>| round_filter(&v, &a));
    env.add_filter("center", |v: MjValue, a: Rest<MjValue>| {
        let a = bind("center", &a, &["width"], 0)?;
        let width = a[0].clone().unwrap_or(MjValue::from(80));
        Ok::<_, Error>(
            str_method(&MjValue::from(py_str(&v)), "center", &[width])?.unwrap_or_default(),
        )
    });
    env.add_filter("truncate", |v: MjValue, a: Rest<MjValue>| {
        truncate_filter(&v, &a)
    });
    env.add_filter("wordcount", |v: MjValue| {
        static WORD: std::sync::OnceLock<Option<Regex>> = std::sync::OnceLock::new();
        let re = WORD.get_or_init(|| Regex::new(r"\w+").ok());
        MjValue::from(
            re.as_ref()
                .map(|r| r.find_iter(&py_str(&v)).count())
                .unwrap_or(0),
        )
    });
    env.add_filter("float", |v: MjValue, a: Rest<MjValue>| {
        let a = bind("float", &a, &["default"], 0)?;
        let default = a[0].clone().unwrap_or(MjValue::from(0.0));
        Ok::<_, Error>(python_float(&v).map(MjValue::from).unwrap_or(default))
    });
    env.add_function("raise", |msg: MjValue| -> Result<MjValue, Error> {
        Err(Error::new(ErrorKind::InvalidOperation, py_str(&msg)))
    });
    env.add_function("odict", |a: Rest<MjValue>| odict(&a));
}

fn yaml_filter(v: &MjValue, args: &[MjValue]) -> FResult {
    let a = bind("yaml", args, &["flow_style"], 0)?;
    let flow = a[0].as_ref().map(|f| f.is_true()).unwrap_or(true);
    yaml_repr::dump(v, flow)
        .map(MjValue::from)
        .map_err(|e| invalid(e.to_string()))
}

fn dict_to_sls_yaml_params(v: &MjValue, args: &[MjValue]) -> FResult {
    let a = bind("dict_to_sls_yaml_params", args, &["flow_style"], 0)?;
    let flow = a[0].as_ref().is_some_and(|f| f.is_true());
    let items: Vec<MjValue> = map_pairs(v)
        .into_iter()
        .map(|(k, x)| MjValue::from_object(indexmap::IndexMap::from([(k, x)])))
        .collect();
    yaml_repr::dump(&MjValue::from(items), flow)
        .map(MjValue::from)
        .map_err(|e| invalid(e.to_string()))
}

fn json_filter(v: &MjValue, args: &[MjValue]) -> FResult {
    let a = bind("json", args, &["sort_keys", "indent"], 0)?;
    let opts = pyjson::JsonOpts {
        sort_keys: a[0].as_ref().map(|s| s.is_true()).unwrap_or(true),
        ensure_ascii: false,
        indent: indent_arg(&a[1])?,
    };
    let text = pyjson::dumps(v, &opts).map_err(|e| invalid(e.to_string()))?;
    Ok(MjValue::from_safe_string(text.trim().to_string()))
}

fn tojson_filter(v: &MjValue, args: &[MjValue]) -> FResult {
    let a = bind("tojson", args, &["indent", "sort_keys", "ensure_ascii"], 0)?;
    let opts = pyjson::JsonOpts {
        sort_keys: a[1].as_ref().is_some_and(|s| s.is_true()),
        ensure_ascii: a[2].as_ref().map(|s| s.is_true()).unwrap_or(true),
        indent: indent_arg(&a[0])?,
    };
    let text = pyjson::dumps(v, &opts).map_err(|e| invalid(e.to_string()))?;
    // Jinja's HTML-safe escaping, which Salt keeps.
    Ok(MjValue::from_safe_string(
        text.replace('<', "\\u003c")
            .replace('>', "\\u003e")
            .replace('&', "\\u0026")
            .replace('\'', "\\u0027"),
    ))
}

fn indent_arg(v: &Option<MjValue>) -> Result<Option<usize>, Error> {
    match v {
        None => Ok(None),
        Some(x) if x.is_none() => Ok(None),
        Some(x) => x
            .as_i64()
            .map(|n| Some(n.max(0) as usize))
            .ok_or_else(|| invalid("indent must be an integer")),
    }
}

/// `pprint.pformat`: plain dicts with sorted keys, `OrderedDict`s as they
/// are; brine does not wrap long values.
fn python_filter(v: &MjValue) -> MjValue {
    fn sorted(v: &MjValue) -> MjValue {
        match v.kind() {
            ValueKind::Map => {
                let mut pairs = map_pairs(v);
                let ordered = convert::is_ordered_map(v);
                if !ordered {
                    pairs.sort_by(|a, b| a.0.cmp(&b.0));
                }
                let map: indexmap::IndexMap<MjValue, MjValue> =
                    pairs.into_iter().map(|(k, x)| (k, sorted(&x))).collect();
                if ordered {
                    MjValue::from_object(convert::OrderedDict(map))
                } else {
                    MjValue::from_object(map)
                }
            }
            ValueKind::Seq if !convert::is_tuple(v) => {
                MjValue::from(seq_items(v).iter().map(sorted).collect::<Vec<_>>())
            }
            _ => v.clone(),
        }
    }
    MjValue::from_safe_string(py_repr(&sorted(v)))
}

/// A rendered imported template (`{% import_yaml %}`) prints its output;
/// anything else is its Python `str()`.
fn loaded_text(v: &MjValue) -> String {
    match v.kind() {
        ValueKind::String => v.as_str().unwrap_or_default().to_string(),
        ValueKind::Map if !is_data_map(v) => v.to_string(),
        _ => py_str(v),
    }
}

fn is_data_map(v: &MjValue) -> bool {
    v.downcast_object_ref::<indexmap::IndexMap<MjValue, MjValue>>()
        .is_some()
        || v.downcast_object_ref::<convert::OrderedDict>().is_some()
        || v.downcast_object_ref::<convert::MutDict>().is_some()
}

fn load_yaml(v: &MjValue) -> FResult {
    let text = loaded_text(v);
    match brine_core::yaml::load(&text) {
        // salt.utils.yaml.safe_load gives plain dicts (sorted by `|yaml`).
        Ok(data) => Ok(to_jinja(&data, false)),
        Err(e) => Err(invalid(format!("Encountered error loading yaml: {e}"))),
    }
}

fn load_json(v: &MjValue) -> FResult {
    let text = loaded_text(v);
    match serde_json::from_str::<serde_json::Value>(&text) {
        Ok(j) => Ok(to_jinja(&brine_core::Value::from_json(&j), false)),
        Err(_) => Err(invalid(format!("Unable to load json from {text}"))),
    }
}

/// Items of a list, keys of a dict, characters of a string: what Python
/// iteration gives.
fn seq_or_keys(v: &MjValue) -> Vec<MjValue> {
    match v.kind() {
        ValueKind::Map => map_pairs(v).into_iter().map(|(k, _)| k).collect(),
        ValueKind::String => v
            .as_str()
            .unwrap_or_default()
            .chars()
            .map(MjValue::from)
            .collect(),
        ValueKind::Seq | ValueKind::Iterable => seq_items(v),
        _ => Vec::new(),
    }
}

/// First occurrences, in order, case-sensitive (Salt's `unique`).
fn unique(items: Vec<MjValue>) -> Vec<MjValue> {
    let mut out: Vec<MjValue> = Vec::with_capacity(items.len());
    for x in items {
        if !out.contains(&x) {
            out.push(x);
        }
    }
    out
}

/// Jinja2's `random`: one item of a sequence (a string's character),
/// chosen at random (not for secrets: a hasher's random keys).
fn random_filter(v: MjValue) -> Result<MjValue, minijinja::Error> {
    use std::hash::{BuildHasher, Hasher};
    // Another pick next time: a compile using it is never given again.
    crate::inputs::volatile(|| "used the random filter".into());
    let items: Vec<MjValue> = match v.kind() {
        ValueKind::String => py_str(&v)
            .chars()
            .map(|c| MjValue::from(c.to_string()))
            .collect(),
        _ => v.try_iter()?.collect(),
    };
    if items.is_empty() {
        return Err(minijinja::Error::new(
            minijinja::ErrorKind::InvalidOperation,
            "No random item, sequence was empty.",
        ));
    }
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_usize(items.len());
    Ok(items[(h.finish() % items.len() as u64) as usize].clone())
}

fn is_list(v: &MjValue) -> bool {
    v.kind() == ValueKind::Seq && !convert::is_tuple(v)
}

fn to_bool(v: &MjValue) -> bool {
    match v.kind() {
        ValueKind::None | ValueKind::Undefined => false,
        ValueKind::Bool => v.is_true(),
        ValueKind::String => {
            matches!(
                v.as_str().unwrap_or_default().to_lowercase().as_str(),
                "yes" | "1" | "true"
            )
        }
        ValueKind::Number if v.is_integer() => v.as_i64().is_some_and(|i| i > 0),
        ValueKind::Seq if !convert::is_tuple(v) => v.len().unwrap_or(0) > 0,
        ValueKind::Map => v.len().unwrap_or(0) > 0,
        _ => false,
    }
}

/// `shlex.quote`.
fn shell_quote(s: &str) -> String {
    if s.is_empty() {
        return "''".into();
    }
    let safe = |c: char| c.is_ascii_alphanumeric() || "_@%+=:,./-".contains(c);
    if s.chars().all(safe) {
        return s.to_string();
    }
    format!("'{}'", s.replace('\'', "'\"'\"'"))
}

/// `re.escape`: every character outside `[A-Za-z0-9_]` and non-ASCII gets a
/// backslash... only the ones Python 3.7+ escapes.
fn python_re_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\n' => out.push_str("\\\n"),
            '\t' => out.push_str("\\\t"),
            '\r' => out.push_str("\\\r"),
            '\x0b' => out.push_str("\\\x0b"),
            '\x0c' => out.push_str("\\\x0c"),
            '\0' => out.push_str("\\\0"),
            c if "()[]{}?*+-|^$\\.&~# ".contains(c) => {
                out.push('\\');
                out.push(c);
            }
            c => out.push(c),
        }
    }
    out
}

fn compile_regex(pattern: &str, ignorecase: bool, multiline: bool) -> Result<Regex, Error> {
    let mut flags = String::new();
    if ignorecase {
        flags.push('i');
    }
    if multiline {
        flags.push('m');
    }
    let full = if flags.is_empty() {
        pattern.to_string()
    } else {
        format!("(?{flags}){pattern}")
    };
    Regex::new(&full).map_err(|e| invalid(format!("invalid regular expression {pattern:?}: {e}")))
}

/// `regex_search`/`regex_match`: the groups of the first match as a tuple,
/// or None. `anchored` makes it `re.match` (match at the start).
fn regex_find(v: &MjValue, args: &[MjValue], anchored: bool) -> FResult {
    let fname = if anchored {
        "regex_match"
    } else {
        "regex_search"
    };
    let a = bind(fname, args, &["rgx", "ignorecase", "multiline"], 1)?;
    let rgx = a[0].clone().unwrap_or_default();
    let pattern = str_arg(fname, "rgx", &rgx)?;
    let flag = |i: usize| a[i].as_ref().is_some_and(|f| f.is_true());
    let pattern = if anchored {
        format!(r"\A(?:{pattern})")
    } else {
        pattern.to_string()
    };
    let re = compile_regex(&pattern, flag(1), flag(2))?;
    let text = py_str(v);
    Ok(match re.captures(&text) {
        None => MjValue::from(()),
        Some(caps) => convert::tuple(
            caps.iter()
                .skip(1)
                .map(|g| {
                    g.map(|m| MjValue::from(m.as_str()))
                        .unwrap_or(MjValue::from(()))
                })
                .collect(),
        ),
    })
}

fn regex_replace(v: &MjValue, args: &[MjValue]) -> FResult {
    let a = bind(
        "regex_replace",
        args,
        &["rgx", "val", "ignorecase", "multiline"],
        2,
    )?;
    let (rgx, val) = (
        a[0].clone().unwrap_or_default(),
        a[1].clone().unwrap_or_default(),
    );
    let pattern = str_arg("regex_replace", "rgx", &rgx)?;
    let repl = python_repl_to_rust(str_arg("regex_replace", "val", &val)?);
    let flag = |i: usize| a[i].as_ref().is_some_and(|f| f.is_true());
    let re = compile_regex(pattern, flag(2), flag(3))?;
    Ok(MjValue::from(
        re.replace_all(&py_str(v), repl.as_str()).into_owned(),
    ))
}

/// Python `re.sub` replacement syntax (`\1`, `\g<name>`, `\n`) → the regex
/// crate's (`${1}`, `${name}`, literal `$` doubled).
fn python_repl_to_rust(repl: &str) -> String {
    let mut out = String::with_capacity(repl.len());
    let mut chars = repl.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '$' => out.push_str("$$"),
            '\\' => match chars.next() {
                Some(d) if d.is_ascii_digit() => {
                    let mut num = d.to_string();
                    if let Some(&e) = chars.peek() {
                        if e.is_ascii_digit() {
                            num.push(e);
                            chars.next();
                        }
                    }
                    out.push_str(&format!("${{{num}}}"));
                }
                Some('g') if chars.peek() == Some(&'<') => {
                    chars.next();
                    let name: String = chars.by_ref().take_while(|&x| x != '>').collect();
                    out.push_str(&format!("${{{name}}}"));
                }
                Some('n') => out.push('\n'),
                Some('t') => out.push('\t'),
                Some('r') => out.push('\r'),
                Some('\\') => out.push('\\'),
                Some(other) => {
                    out.push('\\');
                    out.push(other);
                }
                None => out.push('\\'),
            },
            c => out.push(c),
        }
    }
    out
}

fn avg(v: &MjValue) -> FResult {
    let items = seq_items(v);
    if !matches!(v.kind(), ValueKind::Seq | ValueKind::Iterable) {
        return Ok(MjValue::from(number_f64(v)?));
    }
    if items.is_empty() {
        return Err(invalid("ZeroDivisionError: division by zero"));
    }
    let mut sum = 0.0;
    for x in &items {
        sum += number_f64(x)?;
    }
    Ok(MjValue::from(sum / items.len() as f64))
}

const B64: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

fn base64_encode(data: &[u8]) -> String {
    let mut out = String::with_capacity(data.len().div_ceil(3) * 4);
    for chunk in data.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(B64[((n >> (18 - 6 * i)) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// `base64.b64decode` (non-alphabet characters are skipped, as Python's
/// non-validating decoder does), then UTF-8 text.
fn base64_decode(s: &str) -> FResult {
    let Some(out) = brine_core::py::a2b_base64(s) else {
        return Err(invalid("binascii.Error: Invalid base64-encoded string"));
    };
    String::from_utf8(out)
        .map(MjValue::from)
        .map_err(|_| invalid("base64_decode: decoded data is not UTF-8 text"))
}

fn is_ip(v: &MjValue, args: &[MjValue], version: Option<u8>) -> FResult {
    let a = bind("is_ip", args, &["options"], 0)?;
    if a[0].as_ref().is_some_and(|o| o.is_true()) {
        return Err(invalid("is_ip: options= is not supported by brine"));
    }
    let parsed = v.as_str().and_then(|s| s.parse::<std::net::IpAddr>().ok());
    Ok(MjValue::from(matches!(
        (parsed, version),
        (Some(std::net::IpAddr::V4(_)), None | Some(4))
            | (Some(std::net::IpAddr::V6(_)), None | Some(6))
    )))
}

fn flatten_filter(v: &MjValue, args: &[MjValue]) -> FResult {
    let a = bind("flatten", args, &["levels", "preserve_nulls"], 0)?;
    let levels = a[0].as_ref().and_then(|l| l.as_i64());
    let keep_nulls = a[1].as_ref().is_some_and(|p| p.is_true());
    fn walk(
        v: &MjValue,
        levels: Option<i64>,
        keep_nulls: bool,
        depth: usize,
        out: &mut Vec<MjValue>,
    ) -> Result<(), Error> {
        if depth > 500 {
            return Err(invalid(
                "RecursionError: Reference cycle detected. Check input list.",
            ));
        }
        for x in seq_or_keys(v) {
            let is_null = x.is_none() || matches!(x.as_str(), Some("None" | "null"));
            if !keep_nulls && is_null {
                continue;
            }
            let iterable = matches!(
                x.kind(),
                ValueKind::Seq | ValueKind::Map | ValueKind::Iterable
            );
            match (iterable, levels) {
                (true, None) => walk(&x, None, keep_nulls, depth + 1, out)?,
                (true, Some(l)) if l >= 1 => walk(&x, Some(l - 1), keep_nulls, depth + 1, out)?,
                _ => out.push(x),
            }
        }
        Ok(())
    }
    let mut out = Vec::new();
    walk(v, levels, keep_nulls, 0, &mut out)?;
    Ok(MjValue::from(out))
}

fn traverse_filter(v: &MjValue, args: &[MjValue]) -> FResult {
    let a = bind("traverse", args, &["key", "default", "delimiter"], 1)?;
    let key = a[0].clone().unwrap_or_default();
    let delim = a[2].clone().unwrap_or(MjValue::from(":"));
    let found = super::salt_functions::traverse(
        v,
        str_arg("traverse", "key", &key)?,
        str_arg("traverse", "delimiter", &delim)?,
    );
    Ok(found.unwrap_or_else(|| a[1].clone().unwrap_or(MjValue::from(()))))
}

/// `os.path.join` of the value and the arguments (lists are expanded, as
/// Salt's `path_join` does).
fn path_join(v: &MjValue, args: &[MjValue]) -> FResult {
    let (pos, _) = split(args);
    let mut parts = Vec::new();
    for x in std::iter::once(v).chain(pos.iter()) {
        match x.kind() {
            ValueKind::Seq => parts.extend(seq_items(x).iter().map(py_str)),
            _ => parts.push(py_str(x)),
        }
    }
    let mut out = String::new();
    for p in parts {
        if p.starts_with('/') {
            out = p;
        } else if out.is_empty() || out.ends_with('/') {
            out.push_str(&p);
        } else {
            out.push('/');
            out.push_str(&p);
        }
    }
    Ok(MjValue::from(out))
}

/// Python's `float(x)` for what templates pass: numbers, bools, numeric
/// strings (with surrounding whitespace, `_`, `inf`, `nan`).
fn python_float(v: &MjValue) -> Option<f64> {
    match v.kind() {
        ValueKind::Bool => Some(if v.is_true() { 1.0 } else { 0.0 }),
        ValueKind::Number => f64::try_from(v.clone()).ok(),
        ValueKind::String => {
            let t = v.as_str().unwrap_or_default().trim();
            if t.starts_with('_') || t.ends_with('_') || t.contains("__") {
                return None;
            }
            let t = t.replace('_', "");
            match t.to_ascii_lowercase().trim_start_matches(['+', '-']) {
                "inf" | "infinity" | "nan" => t.parse().ok(),
                rest if rest
                    .chars()
                    .all(|c| c.is_ascii_digit() || matches!(c, '.' | 'e' | '+' | '-')) =>
                {
                    t.parse().ok()
                }
                _ => None,
            }
        }
        _ => None,
    }
}

/// Jinja2's `truncate(length=255, killwords=False, end='...', leeway=5)`.
fn truncate_filter(v: &MjValue, args: &[MjValue]) -> FResult {
    let a = bind(
        "truncate",
        args,
        &["length", "killwords", "end", "leeway"],
        0,
    )?;
    let s: Vec<char> = py_str(v).chars().collect();
    let length = a[0].as_ref().and_then(|l| l.as_i64()).unwrap_or(255).max(0) as usize;
    let killwords = a[1].as_ref().is_some_and(|k| k.is_true());
    let end = a[2].as_ref().map(py_str).unwrap_or_else(|| "...".into());
    let leeway = a[3].as_ref().and_then(|l| l.as_i64()).unwrap_or(5).max(0) as usize;
    let end_len = end.chars().count();
    if length < end_len {
        return Err(invalid("expected length >= len(end)"));
    }
    if s.len() <= length + leeway {
        return Ok(MjValue::from(s.iter().collect::<String>()));
    }
    let head: String = s[..length - end_len].iter().collect();
    let head = if killwords {
        head
    } else {
        head.rsplit_once(' ')
            .map(|(h, _)| h.to_string())
            .unwrap_or(head)
    };
    Ok(MjValue::from(head + &end))
}

/// Jinja2's `round(precision=0, method='common')`: Python's `round()`
/// (ties to even on the exact value) or math.floor/ceil at that precision;
/// always a float.
fn round_filter(v: &MjValue, args: &[MjValue]) -> FResult {
    let a = bind("round", args, &["precision", "method"], 0)?;
    let precision = a[0].as_ref().and_then(|p| p.as_i64()).unwrap_or(0);
    let method = a[1].as_ref().map(py_str).unwrap_or_else(|| "common".into());
    let x = number_f64(v)?;
    let scale = 10f64.powi(precision as i32);
    let r = match method.as_str() {
        // Rust's fixed-precision formatting rounds the exact binary value
        // half to even, as Python's round() does.
        "common" if precision >= 0 => format!("{:.*}", precision as usize, x).parse().unwrap_or(x),
        "common" => (x * scale).round_ties_even() / scale,
        "floor" => (x * scale).floor() / scale,
        "ceil" => (x * scale).ceil() / scale,
        _ => return Err(invalid("method must be 'common', 'ceil' or 'floor'")),
    };
    Ok(MjValue::from(r))
}

/// Jinja2's `int(default=0, base=10)`: `int(x, base)`, else `int(float(x))`,
/// else the default.
fn int_filter(v: &MjValue, args: &[MjValue]) -> FResult {
    let a = bind("int", args, &["default", "base"], 0)?;
    let default = a[0].clone().unwrap_or(MjValue::from(0));
    let base = a[1].as_ref().and_then(|b| b.as_i64()).unwrap_or(10);
    if v.is_integer() {
        return Ok(v.clone());
    }
    if let Some(s) = v.as_str() {
        let t = s.trim().replace('_', "");
        let (neg, digits) = match t.strip_prefix('-') {
            Some(d) => (true, d.to_string()),
            None => (false, t.strip_prefix('+').unwrap_or(&t).to_string()),
        };
        let lower = digits.to_ascii_lowercase();
        let (radix, body) = match (base, lower.get(..2)) {
            (16 | 0, Some("0x")) => (16, &lower[2..]),
            (8 | 0, Some("0o")) => (8, &lower[2..]),
            (2 | 0, Some("0b")) => (2, &lower[2..]),
            (0, _) => (10, lower.as_str()),
            (b, _) => (b as u32, lower.as_str()),
        };
        if (2..=36).contains(&radix) && !body.is_empty() {
            if let Ok(i) = i64::from_str_radix(body, radix) {
                return Ok(MjValue::from(if neg { -i } else { i }));
            }
        }
    }
    Ok(match python_float(v) {
        Some(f) if f.is_finite() => MjValue::from(f.trunc() as i64),
        _ => default,
    })
}

fn to_num(v: &MjValue) -> FResult {
    let Some(s) = v.as_str() else {
        return Ok(v.clone());
    };
    if let Ok(i) = s.trim().parse::<i64>() {
        return Ok(MjValue::from(i));
    }
    if let Ok(f) = s.trim().parse::<f64>() {
        return Ok(MjValue::from(f));
    }
    Ok(v.clone())
}

fn pairs_to_tuples(v: MjValue) -> FResult {
    Ok(MjValue::from(
        seq_items(&v)
            .iter()
            .map(|p| convert::tuple(seq_items(p)))
            .collect::<Vec<_>>(),
    ))
}
use brine_core::py::splitlines as python_splitlines;

/// Jinja2's `indent(width=4, first=False, blank=False)`, which keeps a
/// trailing newline (minijinja's drops it).
fn indent_filter(v: &MjValue, args: &[MjValue]) -> FResult {
    let a = bind("indent", args, &["width", "first", "blank"], 0)?;
    let indention = match &a[0] {
        None => "    ".to_string(),
        Some(w) if w.kind() == ValueKind::String => py_str(w),
        Some(w) => " ".repeat(w.as_i64().unwrap_or(4).max(0) as usize),
    };
    let flag = |i: usize| a[i].as_ref().is_some_and(|f| f.is_true());
    let mut s = py_str(v);
    s.push('\n');
    let lines = python_splitlines(&s);
    let mut rv = if flag(2) {
        lines.join(&format!("\n{indention}"))
    } else {
        let mut it = lines.iter();
        let mut rv = it.next().map(|l| l.to_string()).unwrap_or_default();
        let rest: Vec<String> = it
            .map(|l| {
                if l.is_empty() {
                    String::new()
                } else {
                    format!("{indention}{l}")
                }
            })
            .collect();
        if !rest.is_empty() {
            rv.push('\n');
            rv.push_str(&rest.join("\n"));
        }
        rv
    };
    if flag(1) {
        rv.insert_str(0, &indention);
    }
    Ok(MjValue::from(rv))
}

fn join_filter(v: &MjValue, args: &[MjValue]) -> FResult {
    let a = bind("join", args, &["d", "attribute"], 0)?;
    let sep = a[0].as_ref().map(py_str).unwrap_or_default();
    let items = seq_or_keys(v);
    let parts: Vec<String> = match &a[1] {
        Some(attr) => items
            .iter()
            .map(|x| x.get_item(attr).map(|y| py_str(&y)))
            .collect::<Result<_, _>>()?,
        None => items.iter().map(py_str).collect(),
    };
    Ok(MjValue::from(parts.join(&sep)))
}

/// `odict(**kwargs)` / `odict([(k, v), ...])`: an OrderedDict.
fn odict(args: &[MjValue]) -> FResult {
    let (pos, kw) = split(args);
    let mut map = indexmap::IndexMap::new();
    if let Some(src) = pos.first() {
        match src.kind() {
            ValueKind::Map => map.extend(map_pairs(src)),
            _ => {
                for pair in seq_items(src) {
                    if let [k, x] = seq_items(&pair).as_slice() {
                        map.insert(k.clone(), x.clone());
                    }
                }
            }
        }
    }
    map.extend(kw.into_iter().map(|(k, x)| (MjValue::from(k), x)));
    Ok(make_mutable(&MjValue::from_object(convert::OrderedDict(
        map,
    ))))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_round_trip() {
        assert_eq!(base64_encode(b"hello world"), "aGVsbG8gd29ybGQ=");
        assert_eq!(base64_encode(b"ab"), "YWI=");
        assert_eq!(
            base64_decode("aGVsbG8gd29ybGQ=").unwrap().as_str(),
            Some("hello world")
        );
    }

    #[test]
    fn shell_quote_like_shlex() {
        assert_eq!(shell_quote("abc/d-e.f"), "abc/d-e.f");
        assert_eq!(shell_quote("a b"), "'a b'");
        assert_eq!(shell_quote("it's"), "'it'\"'\"'s'");
        assert_eq!(shell_quote(""), "''");
    }

    #[test]
    fn repl_translation() {
        assert_eq!(python_repl_to_rust(r"\1-\g<name>$"), "${1}-${name}$$");
    }
}
