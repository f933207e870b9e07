//! Salt's serializers (`salt/serializers/*.py`) as `file.serialize` uses
//! them, writing the bytes Salt's writes:
//!
//! - json: Python's `json.dumps` (the state asks `indent=2`,
//!   `separators=(",", ": ")`, `sort_keys=True`; `ensure_ascii` unless an
//!   `encoding` is given);
//! - yaml: PyYAML's `dump` with Salt's `SafeDumper` (keys sorted, block
//!   style; without an `encoding`, text outside ASCII double-quoted and
//!   escaped, as `allow_unicode=False` writes it);
//! - toml: the `toml` 0.10 package's `dumps`, quirks included (`[ 1, 2,]`
//!   arrays; a `\x` escape loses its backslash);
//! - plist: `plistlib.dumps` (XML, keys sorted, tab indents);
//! - configparser: `ConfigParser.write` (keys lowercased, `key = value`);
//! - msgpack: `msgpack.packb` (smallest encodings, `use_bin_type`).
//!
//! Reading back (`merge_if_exists`): json, yaml, configparser and msgpack
//! here, toml and plist in `readers`.

use brine_core::py::{json_float, write_json_str};
use brine_core::yaml::{self as emitter, DumpNode};
use brine_core::{Map, Value};
use std::borrow::Cow;

/// Why a serializer refused the data (Salt's `SerializationError`, or a
/// `DeserializationError` reading back).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{0}")]
pub struct SerializerError(pub String);

/// The options Salt's json serializer honours.
#[derive(Debug, Clone)]
pub struct JsonOpts {
    pub indent: Option<String>,
    pub sort_keys: bool,
    pub ensure_ascii: bool,
    pub item_sep: String,
    pub key_sep: String,
}

impl JsonOpts {
    /// What `file.serialize` asks, then `serializer_opts` over it.
    pub fn from_options(opts: &Map) -> JsonOpts {
        let mut o = JsonOpts {
            indent: Some("  ".into()),
            sort_keys: true,
            // salt.utils.json.dumps turns ensure_ascii off unless asked.
            ensure_ascii: false,
            item_sep: ",".into(),
            key_sep: ": ".into(),
        };
        for (k, v) in opts {
            match k.as_str() {
                "indent" => {
                    o.indent = match v {
                        Value::Null => None,
                        Value::Int(n) => Some(" ".repeat((*n).max(0) as usize)),
                        other => Some(other.to_python_str()),
                    }
                }
                "sort_keys" => o.sort_keys = v.is_truthy(),
                "ensure_ascii" => o.ensure_ascii = v.is_truthy(),
                "separators" => {
                    if let Some([a, b]) = v.as_list() {
                        o.item_sep = a.to_python_str();
                        o.key_sep = b.to_python_str();
                    }
                }
                _ => {}
            }
        }
        o
    }
}

/// Python's `json.dumps(value, **opts)`.
pub fn json_dumps(v: &Value, o: &JsonOpts) -> String {
    fn newline(out: &mut String, o: &JsonOpts, level: usize) {
        if let Some(ind) = &o.indent {
            out.push('\n');
            for _ in 0..level {
                out.push_str(ind);
            }
        }
    }
    fn write(out: &mut String, v: &Value, o: &JsonOpts, level: usize) {
        match v {
            Value::Null => out.push_str("null"),
            Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            Value::Int(i) => out.push_str(&i.to_string()),
            Value::Float(f) => out.push_str(&json_float(*f)),
            Value::Str(s) => write_json_str(out, s, o.ensure_ascii),
            Value::List(items) if items.is_empty() => out.push_str("[]"),
            Value::List(items) => {
                out.push('[');
                for (n, item) in items.iter().enumerate() {
                    if n > 0 {
                        out.push_str(&o.item_sep);
                    }
                    newline(out, o, level + 1);
                    write(out, item, o, level + 1);
                }
                newline(out, o, level);
                out.push(']');
            }
            Value::Map(m) if m.is_empty() => out.push_str("{}"),
            Value::Map(m) => {
                let mut entries: Vec<(&String, &Value)> = m.iter().collect();
                if o.sort_keys {
                    entries.sort_by(|a, b| a.0.cmp(b.0));
                }
                out.push('{');
                for (n, (k, val)) in entries.into_iter().enumerate() {
                    if n > 0 {
                        out.push_str(&o.item_sep);
                    }
                    newline(out, o, level + 1);
                    write_json_str(out, k, o.ensure_ascii);
                    out.push_str(&o.key_sep);
                    write(out, val, o, level + 1);
                }
                newline(out, o, level);
                out.push('}');
            }
        }
    }
    let mut out = String::new();
    write(&mut out, v, o, 0);
    out
}

/// Python's `json.loads`, keys in the file's order. A document that
/// does not start with a value gets Python's message; other syntax errors
/// keep serde_json's wording.
pub fn json_loads(text: &str) -> Result<Value, SerializerError> {
    let start = text.len() - text.trim_start_matches([' ', '\t', '\n', '\r']).len();
    let rest = &text[start..];
    let starts_value = rest.starts_with(['{', '[', '"', '-'])
        || rest.starts_with(|c: char| c.is_ascii_digit())
        || ["null", "true", "false", "NaN", "Infinity"]
            .iter()
            .any(|w| rest.starts_with(w));
    if !starts_value {
        let line = text[..start].matches('\n').count() + 1;
        let col = start - text[..start].rfind('\n').map_or(0, |i| i + 1) + 1;
        return Err(SerializerError(format!(
            "Expecting value: line {line} column {col} (char {start})"
        )));
    }
    serde_json::from_str::<serde_json::Value>(text)
        .map(|j| Value::from_json(&j))
        .map_err(|e| SerializerError(e.to_string()))
}

/// Salt's yaml serializer: block style unless `flow_style`; with
/// `allow_unicode` false, every string holding more than printable ASCII
/// double-quoted with escapes, as PyYAML writes it then.
pub fn yaml_dump(v: &Value, flow_style: bool, allow_unicode: bool) -> String {
    /// Each such string is emitted as a plain placeholder, replaced by its
    /// double-quoted form afterwards (brine's emitter always allows
    /// Unicode).
    fn ascii_only<'a>(node: DumpNode<'a>, quoted: &mut Vec<String>) -> DumpNode<'a> {
        match node {
            DumpNode::Scalar { text, .. }
                if text
                    .chars()
                    .any(|c| !('\x20'..='\x7e').contains(&c) && c != '\n') =>
            {
                quoted.push(emitter::yaml_dquote(&text));
                DumpNode::Scalar {
                    text: Cow::Owned(format!("brine_dq_{}_brine", quoted.len() - 1)),
                    plain: true,
                }
            }
            DumpNode::Seq(items) => {
                DumpNode::Seq(items.into_iter().map(|i| ascii_only(i, quoted)).collect())
            }
            DumpNode::Map(items) => DumpNode::Map(
                items
                    .into_iter()
                    .map(|(k, v)| (ascii_only(k, quoted), ascii_only(v, quoted)))
                    .collect(),
            ),
            other => other,
        }
    }
    let mut node = DumpNode::represent(v, true);
    let mut quoted = Vec::new();
    if !allow_unicode {
        node = ascii_only(node, &mut quoted);
    }
    let mut text = emitter::emit(&node, flow_style);
    for (i, q) in quoted.iter().enumerate().rev() {
        text = text.replace(&format!("brine_dq_{i}_brine"), q);
    }
    // Salt strips the end-of-document marker and the last newline.
    let text = text
        .strip_suffix("\n...\n")
        .map(|t| format!("{t}\n"))
        .unwrap_or(text);
    text.strip_suffix('\n').unwrap_or(&text).to_string()
}

/// Salt's yaml deserializer.
pub fn yaml_loads(text: &str) -> Result<Value, SerializerError> {
    brine_core::yaml::load(text).map_err(|e| SerializerError(e.to_string()))
}

/// The `toml` package's `_dump_str`: Python's `repr` of the text, turned
/// into a TOML basic string its own (odd) way.
fn toml_str(s: &str) -> String {
    let r = Value::Str(s.to_string()).to_python_repr();
    let single = r.starts_with('\'');
    let mut v = if single || r.starts_with('"') {
        r[1..r.len() - 1].to_string()
    } else {
        r
    };
    if single {
        v = v.replace("\\'", "'").replace('"', "\\\"");
    }
    let mut parts: Vec<String> = v.split("\\x").map(String::from).collect();
    while parts.len() > 1 {
        if parts[0].is_empty() {
            parts.remove(0);
        }
        parts[0] = parts[0].replace("\\\\", "\\");
        let chars: Vec<char> = parts[0].chars().collect();
        let mut i = chars.len();
        let mut joinx = chars.last() != Some(&'\\');
        while i > 1 && chars.get(i - 1) == Some(&'\\') {
            joinx = !joinx;
            i -= 1;
        }
        let joiner = if joinx { "x" } else { "u00" };
        let rest = if parts.len() > 1 {
            parts.remove(1)
        } else {
            String::new()
        };
        parts[0] = format!("{}{joiner}{rest}", parts[0]);
    }
    format!("\"{}\"", parts.first().cloned().unwrap_or_default())
}

fn toml_value(v: &Value) -> String {
    match v {
        Value::Str(s) => toml_str(s),
        Value::Bool(b) => if *b { "true" } else { "false" }.into(),
        Value::Int(i) => i.to_string(),
        Value::Float(f) => Value::Float(*f)
            .to_python_str()
            .replace("e+0", "e+")
            .replace("e-0", "e-"),
        Value::List(items) => {
            let mut out = String::from("[");
            for u in items {
                out.push(' ');
                out.push_str(&toml_value(u));
                out.push(',');
            }
            out.push(']');
            out
        }
        // A table in an array of values: Python iterates its keys.
        Value::Map(m) => toml_value(&Value::List(m.keys().cloned().map(Value::Str).collect())),
        Value::Null => toml_str("None"),
    }
}

fn toml_key(k: &str) -> String {
    if !k.is_empty()
        && k.chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
    {
        k.to_string()
    } else {
        toml_str(k)
    }
}

/// The `toml` package's `dump_sections`: the plain keys of a table as
/// text, and its sub-tables to write after it.
fn toml_sections(o: &Map, sup: &str) -> (String, Vec<(String, Map)>) {
    let sup = if !sup.is_empty() && !sup.ends_with('.') {
        format!("{sup}.")
    } else {
        sup.to_string()
    };
    let mut retstr = String::new();
    let mut arraystr = String::new();
    let mut tables = Vec::new();
    for (section, value) in o {
        let q = toml_key(section);
        match value {
            Value::Map(m) => tables.push((q, m.clone())),
            Value::List(items) if items.iter().any(|a| matches!(a, Value::Map(_))) => {
                for a in items {
                    let mut arraytabstr = String::from("\n");
                    arraystr.push_str(&format!("[[{sup}{q}]]\n"));
                    let Value::Map(am) = a else { continue };
                    let (s, mut d) = toml_sections(am, &format!("{sup}{q}"));
                    if s.starts_with('[') {
                        arraytabstr.push_str(&s);
                    } else {
                        arraystr.push_str(&s);
                    }
                    while !d.is_empty() {
                        let mut newd = Vec::new();
                        for (dsec, dm) in &d {
                            let (s1, d1) = toml_sections(dm, &format!("{sup}{q}.{dsec}"));
                            if !s1.is_empty() {
                                arraytabstr.push_str(&format!("[{sup}{q}.{dsec}]\n"));
                                arraytabstr.push_str(&s1);
                            }
                            for (s1k, s1m) in d1 {
                                newd.push((format!("{dsec}.{s1k}"), s1m));
                            }
                        }
                        d = newd;
                    }
                    arraystr.push_str(&arraytabstr);
                }
            }
            Value::Null => {}
            other => retstr.push_str(&format!("{q} = {}\n", toml_value(other))),
        }
    }
    retstr.push_str(&arraystr);
    (retstr, tables)
}

/// The `toml` package's `dumps`.
pub fn toml_dumps(v: &Value) -> Result<String, SerializerError> {
    let Value::Map(o) = v else {
        return Err(SerializerError(format!(
            "'{}' object has no attribute 'items'",
            v.type_name()
        )));
    };
    let (mut retval, mut sections) = toml_sections(o, "");
    let mut rounds = 0;
    while !sections.is_empty() && rounds < 1000 {
        rounds += 1;
        let mut newsections = Vec::new();
        for (section, table) in &sections {
            let (add, addsections) = toml_sections(table, section);
            if !add.is_empty() || addsections.is_empty() {
                if !retval.is_empty() && !retval.ends_with("\n\n") {
                    retval.push('\n');
                }
                retval.push_str(&format!("[{section}]\n"));
                retval.push_str(&add);
            }
            for (s, m) in addsections {
                newsections.push((format!("{section}.{s}"), m));
            }
        }
        sections = newsections;
    }
    Ok(retval)
}

/// `plistlib`'s text escaping; control characters are refused.
fn plist_escape(s: &str) -> Result<String, SerializerError> {
    if s.chars()
        .any(|c| (c as u32) < 0x20 && !matches!(c, '\t' | '\n' | '\r'))
    {
        return Err(SerializerError(
            "strings can't contain control characters; use bytes instead".into(),
        ));
    }
    Ok(s.replace("\r\n", "\n")
        .replace('\r', "\n")
        .replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;"))
}

/// `plistlib.dumps(value)`: XML, keys sorted, a tab per level.
pub fn plist_dumps(v: &Value) -> Result<String, SerializerError> {
    fn line(out: &mut String, level: usize, text: &str) {
        for _ in 0..level {
            out.push('\t');
        }
        out.push_str(text);
        out.push('\n');
    }
    fn write(out: &mut String, v: &Value, level: usize) -> Result<(), SerializerError> {
        match v {
            Value::Str(s) => line(
                out,
                level,
                &format!("<string>{}</string>", plist_escape(s)?),
            ),
            Value::Bool(true) => line(out, level, "<true/>"),
            Value::Bool(false) => line(out, level, "<false/>"),
            Value::Int(i) => line(out, level, &format!("<integer>{i}</integer>")),
            Value::Float(f) => line(
                out,
                level,
                &format!("<real>{}</real>", Value::Float(*f).to_python_repr()),
            ),
            Value::Map(m) if m.is_empty() => line(out, level, "<dict/>"),
            Value::Map(m) => {
                line(out, level, "<dict>");
                let mut entries: Vec<(&String, &Value)> = m.iter().collect();
                entries.sort_by(|a, b| a.0.cmp(b.0));
                for (k, val) in entries {
                    line(out, level + 1, &format!("<key>{}</key>", plist_escape(k)?));
                    write(out, val, level + 1)?;
                }
                line(out, level, "</dict>");
            }
            Value::List(items) if items.is_empty() => line(out, level, "<array/>"),
            Value::List(items) => {
                line(out, level, "<array>");
                for item in items {
                    write(out, item, level + 1)?;
                }
                line(out, level, "</array>");
            }
            Value::Null => {
                return Err(SerializerError(
                    "unsupported type: <class 'NoneType'>".into(),
                ))
            }
        }
        Ok(())
    }
    let mut out = String::from(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!DOCTYPE plist PUBLIC \"-//Apple//DTD PLIST 1.0//EN\" \"http://www.apple.com/DTDs/PropertyList-1.0.dtd\">\n<plist version=\"1.0\">\n",
    );
    write(&mut out, v, 0)?;
    out.push_str("</plist>\n");
    Ok(out)
}

/// Salt's configparser serializer: `ConfigParser.write` of the sections
/// (`DEFAULT` first), keys lowercased, values as Python's `str()`.
pub fn configparser_dumps(v: &Value) -> Result<String, SerializerError> {
    let Value::Map(sections) = v else {
        return Err(SerializerError(format!(
            "configparser can only serialize dictionaries, not <class '{}'>",
            py_class(v)
        )));
    };
    let mut default: Vec<(String, String)> = Vec::new();
    let mut rest: Vec<(String, Vec<(String, String)>)> = Vec::new();
    for (section, keys) in sections {
        let Value::Map(keys) = keys else {
            return Err(SerializerError(format!(
                "'{}' object has no attribute 'items'",
                py_class(keys)
            )));
        };
        let mut items = Vec::new();
        for (k, val) in keys {
            let text = match val {
                Value::Null => return Err(SerializerError("option values must be strings".into())),
                other => other.to_python_str(),
            };
            // BasicInterpolation refuses a lone `%`.
            if let Some(pos) = interpolation_error(&text) {
                return Err(SerializerError(format!(
                    "invalid interpolation syntax in {} at position {pos}",
                    Value::Str(text.clone()).to_python_repr()
                )));
            }
            items.push((k.to_lowercase(), text));
        }
        if section == "DEFAULT" {
            default.extend(items);
        } else {
            rest.push((section.clone(), items));
        }
    }
    let mut out = String::new();
    let mut write = |name: &str, items: &[(String, String)]| {
        out.push_str(&format!("[{name}]\n"));
        for (k, val) in items {
            out.push_str(&format!("{k} = {}\n", val.replace('\n', "\n\t")));
        }
        out.push('\n');
    };
    if !default.is_empty() {
        write("DEFAULT", &default);
    }
    for (name, items) in &rest {
        write(name, items);
    }
    Ok(out)
}

/// Where `BasicInterpolation.before_set` finds a `%` that is neither
/// `%%` nor `%(name)s`.
fn interpolation_error(text: &str) -> Option<usize> {
    let tmp = text.replace("%%", "");
    let re = regex::Regex::new(r"%\(([^)]+)\)s").ok()?;
    let tmp = re.replace_all(&tmp, "");
    tmp.find('%')
}

/// Python's class name of a value's type.
fn py_class(v: &Value) -> &'static str {
    match v {
        Value::Null => "NoneType",
        Value::Bool(_) => "bool",
        Value::Int(_) => "int",
        Value::Float(_) => "float",
        Value::Str(_) => "str",
        Value::List(_) => "list",
        Value::Map(_) => "dict",
    }
}

/// Salt's configparser deserializer: each section's options (the
/// `DEFAULT` ones folded into every section, as `items()` gives them).
pub fn configparser_loads(text: &str) -> Result<Value, SerializerError> {
    let mut defaults: Vec<(String, String)> = Vec::new();
    let mut sections: Vec<(String, Vec<(String, String)>)> = Vec::new();
    let mut current: Option<usize> = None;
    let mut in_default = false;
    for (n, raw) in text.lines().enumerate() {
        let trimmed = raw.trim();
        if trimmed.is_empty() || trimmed.starts_with('#') || trimmed.starts_with(';') {
            continue;
        }
        // A continuation line belongs to the last option.
        if raw.starts_with([' ', '\t']) {
            let last = if in_default {
                defaults.last_mut()
            } else {
                current
                    .and_then(|i| sections.get_mut(i))
                    .and_then(|s| s.1.last_mut())
            };
            if let Some((_, v)) = last {
                v.push('\n');
                v.push_str(trimmed);
                continue;
            }
        }
        if let Some(name) = trimmed.strip_prefix('[').and_then(|t| t.strip_suffix(']')) {
            in_default = name == "DEFAULT";
            if !in_default {
                sections.push((name.to_string(), Vec::new()));
                current = Some(sections.len() - 1);
            }
            continue;
        }
        let Some(pos) = trimmed.find(['=', ':']) else {
            return Err(SerializerError(format!(
                "Source contains parsing errors: '<string>'\n\t[line {:2}]: {}",
                n + 1,
                Value::Str(raw.to_string()).to_python_repr()
            )));
        };
        let (k, v) = (
            trimmed[..pos].trim().to_lowercase(),
            trimmed[pos + 1..].trim().to_string(),
        );
        if in_default {
            defaults.push((k, v));
        } else if let Some(i) = current {
            sections[i].1.push((k, v));
        } else {
            return Err(SerializerError(format!(
                "File contains no section headers.\nfile: '<string>', line: {}\n{}",
                n + 1,
                Value::Str(format!("{raw}\n")).to_python_repr()
            )));
        }
    }
    let mut out = Map::default();
    for (name, items) in sections {
        // `items()`: the defaults first, then the section's own options
        // (which override a default in its place).
        let mut m = Map::default();
        for (k, v) in defaults.iter().cloned().chain(items) {
            m.insert(k, Value::Str(v));
        }
        out.insert(name, Value::Map(m));
    }
    Ok(Value::Map(out))
}

/// `msgpack.packb(value)` (msgpack 1.x: `use_bin_type=True`, doubles).
pub fn msgpack_dumps(v: &Value) -> Vec<u8> {
    fn len_header(out: &mut Vec<u8>, n: usize, fix: u8, fix_max: usize, c16: u8, c32: u8) {
        if n <= fix_max {
            out.push(fix | n as u8);
        } else if n <= 0xffff {
            out.push(c16);
            out.extend_from_slice(&(n as u16).to_be_bytes());
        } else {
            out.push(c32);
            out.extend_from_slice(&(n as u32).to_be_bytes());
        }
    }
    fn write(out: &mut Vec<u8>, v: &Value) {
        match v {
            Value::Null => out.push(0xc0),
            Value::Bool(false) => out.push(0xc2),
            Value::Bool(true) => out.push(0xc3),
            Value::Int(i) => {
                let i = *i;
                if (0..=0x7f).contains(&i) || (-32..0).contains(&i) {
                    out.push(i as u8);
                } else if i >= 0 {
                    if i <= 0xff {
                        out.extend_from_slice(&[0xcc, i as u8]);
                    } else if i <= 0xffff {
                        out.push(0xcd);
                        out.extend_from_slice(&(i as u16).to_be_bytes());
                    } else if i <= 0xffff_ffff {
                        out.push(0xce);
                        out.extend_from_slice(&(i as u32).to_be_bytes());
                    } else {
                        out.push(0xcf);
                        out.extend_from_slice(&(i as u64).to_be_bytes());
                    }
                } else if i >= -0x80 {
                    out.extend_from_slice(&[0xd0, i as i8 as u8]);
                } else if i >= -0x8000 {
                    out.push(0xd1);
                    out.extend_from_slice(&(i as i16).to_be_bytes());
                } else if i >= -0x8000_0000 {
                    out.push(0xd2);
                    out.extend_from_slice(&(i as i32).to_be_bytes());
                } else {
                    out.push(0xd3);
                    out.extend_from_slice(&i.to_be_bytes());
                }
            }
            Value::Float(f) => {
                out.push(0xcb);
                out.extend_from_slice(&f.to_be_bytes());
            }
            Value::Str(s) => {
                let n = s.len();
                if n <= 31 {
                    out.push(0xa0 | n as u8);
                } else if n <= 0xff {
                    out.extend_from_slice(&[0xd9, n as u8]);
                } else {
                    len_header(out, n, 0, 0, 0xda, 0xdb);
                }
                out.extend_from_slice(s.as_bytes());
            }
            Value::List(items) => {
                len_header(out, items.len(), 0x90, 15, 0xdc, 0xdd);
                items.iter().for_each(|i| write(out, i));
            }
            Value::Map(m) => {
                len_header(out, m.len(), 0x80, 15, 0xde, 0xdf);
                for (k, val) in m {
                    write(out, &Value::Str(k.clone()));
                    write(out, val);
                }
            }
        }
    }
    let mut out = Vec::new();
    write(&mut out, v);
    out
}

/// `msgpack.unpackb(data, raw=False)`: one value; map keys as text.
pub fn msgpack_loads(data: &[u8]) -> Result<Value, SerializerError> {
    struct R<'a> {
        d: &'a [u8],
        pos: usize,
        depth: usize,
    }
    fn bad() -> SerializerError {
        SerializerError("Unpack failed: incomplete input".into())
    }
    impl R<'_> {
        fn take(&mut self, n: usize) -> Result<&[u8], SerializerError> {
            let end = self.pos.checked_add(n).ok_or_else(bad)?;
            let s = self.d.get(self.pos..end).ok_or_else(bad)?;
            self.pos = end;
            Ok(s)
        }
        fn uint(&mut self, n: usize) -> Result<u64, SerializerError> {
            Ok(self
                .take(n)?
                .iter()
                .fold(0u64, |a, b| (a << 8) | u64::from(*b)))
        }
        fn str(&mut self, n: usize) -> Result<Value, SerializerError> {
            let b = self.take(n)?;
            String::from_utf8(b.to_vec())
                .map(Value::Str)
                .map_err(|e| SerializerError(e.to_string()))
        }
        fn list(&mut self, n: usize) -> Result<Value, SerializerError> {
            let mut v = Vec::new();
            for _ in 0..n {
                v.push(self.value()?);
            }
            Ok(Value::List(v))
        }
        fn map(&mut self, n: usize) -> Result<Value, SerializerError> {
            let mut m = Map::default();
            for _ in 0..n {
                let k = self.value()?.to_python_str();
                let v = self.value()?;
                m.insert(k, v);
            }
            Ok(Value::Map(m))
        }
        fn value(&mut self) -> Result<Value, SerializerError> {
            self.depth += 1;
            if self.depth > 512 {
                return Err(SerializerError("nesting too deep".into()));
            }
            let b = self.take(1)?[0];
            let v = match b {
                0x00..=0x7f => Value::Int(i64::from(b)),
                0x80..=0x8f => self.map(usize::from(b & 0x0f))?,
                0x90..=0x9f => self.list(usize::from(b & 0x0f))?,
                0xa0..=0xbf => self.str(usize::from(b & 0x1f))?,
                0xc0 => Value::Null,
                0xc2 => Value::Bool(false),
                0xc3 => Value::Bool(true),
                0xca => Value::Float(f64::from(f32::from_bits(self.uint(4)? as u32))),
                0xcb => Value::Float(f64::from_bits(self.uint(8)?)),
                0xcc => Value::Int(self.uint(1)? as i64),
                0xcd => Value::Int(self.uint(2)? as i64),
                0xce => Value::Int(self.uint(4)? as i64),
                0xcf => Value::Int(self.uint(8)? as i64),
                0xd0 => Value::Int(i64::from(self.uint(1)? as u8 as i8)),
                0xd1 => Value::Int(i64::from(self.uint(2)? as u16 as i16)),
                0xd2 => Value::Int(i64::from(self.uint(4)? as u32 as i32)),
                0xd3 => Value::Int(self.uint(8)? as i64),
                0xd9 => {
                    let n = self.uint(1)? as usize;
                    self.str(n)?
                }
                0xda => {
                    let n = self.uint(2)? as usize;
                    self.str(n)?
                }
                0xdb => {
                    let n = self.uint(4)? as usize;
                    self.str(n)?
                }
                0xdc => {
                    let n = self.uint(2)? as usize;
                    self.list(n)?
                }
                0xdd => {
                    let n = self.uint(4)? as usize;
                    self.list(n)?
                }
                0xde => {
                    let n = self.uint(2)? as usize;
                    self.map(n)?
                }
                0xdf => {
                    let n = self.uint(4)? as usize;
                    self.map(n)?
                }
                0xe0..=0xff => Value::Int(i64::from(b as i8)),
                other => {
                    return Err(SerializerError(format!(
                        "Unpack failed: unsupported type 0x{other:02x}"
                    )))
                }
            };
            self.depth -= 1;
            Ok(v)
        }
    }
    let mut r = R {
        d: data,
        pos: 0,
        depth: 0,
    };
    let v = r.value()?;
    if r.pos != data.len() {
        return Err(SerializerError("Unpack failed: extra data".into()));
    }
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(j: serde_json::Value) -> Value {
        Value::from_json(&j)
    }

    // Expected texts are what Python 3.11's json, the toml 0.10.2 package,
    // plistlib, configparser and msgpack 1.0 write for the same data.
    #[test]
    fn json_like_python() {
        let o = JsonOpts::from_options(&Map::default());
        let d = v(serde_json::json!({"b": 1, "a": [1.5, "\u{e9}", null, true], "c": {}}));
        assert_eq!(
            json_dumps(&d, &o),
            "{\n  \"a\": [\n    1.5,\n    \"\u{e9}\",\n    null,\n    true\n  ],\n  \"b\": 1,\n  \"c\": {}\n}"
        );
    }

    #[test]
    fn toml_like_the_toml_package() {
        let d = v(
            serde_json::json!({"s": "a\u{1}b\\c\"d\nq", "u": "\u{e9}t\u{e9}", "k": {"x y": 1},
            "f": 1e20, "g": 1.5, "l": [1, [2, 3], "x"], "e": []}),
        );
        assert_eq!(
            toml_dumps(&d).unwrap(),
            "s = \"ax01b\\\\c\\\"d\\nq\"\nu = \"\u{e9}t\u{e9}\"\nf = 1e+20\ng = 1.5\nl = [ 1, [ 2, 3,], \"x\",]\ne = []\n\n[k]\n\"x y\" = 1\n"
        );
    }

    #[test]
    fn msgpack_round_trip_and_sizes() {
        let d =
            v(serde_json::json!({"a": 1, "big": 70000, "neg": -40, "f": 0.5, "l": [null, true]}));
        let bytes = msgpack_dumps(&d);
        assert_eq!(&bytes[..4], &[0x85, 0xa1, b'a', 0x01]);
        assert_eq!(msgpack_loads(&bytes).unwrap(), d);
        assert!(msgpack_loads(&bytes[..5]).is_err());
    }

    #[test]
    fn configparser_write_and_read() {
        let d = v(
            serde_json::json!({"main": {"Key": "v", "n": 1, "multi": "a\nb"}, "DEFAULT": {"d": "x"}, "other": {}}),
        );
        let text = configparser_dumps(&d).unwrap();
        assert_eq!(
            text,
            "[DEFAULT]\nd = x\n\n[main]\nkey = v\nn = 1\nmulti = a\n\tb\n\n[other]\n\n"
        );
        let back = configparser_loads(&text).unwrap();
        assert_eq!(
            back,
            v(
                serde_json::json!({"main": {"key": "v", "n": "1", "multi": "a\nb", "d": "x"}, "other": {"d": "x"}})
            )
        );
        assert!(configparser_dumps(&v(serde_json::json!({"s": {"k": "50%"}}))).is_err());
    }
}
