//! Hiera's `%{...}` interpolation: scope variables reached with dotted keys
//! (`facts.os.family`, `trusted.certname`, `::role`), and the methods
//! `lookup()`/`hiera()`, `alias()` and `literal()`. Also the dotted-key
//! syntax shared with lookups (`users.alice`, `list.0`, `"a.b".c`) and
//! Ruby's `to_s`, which is how a non-string value lands in a string.

use super::HieraError;
use brine_core::value::key_string;
use brine_core::{Map, Value};
use regex::Regex;
use std::sync::OnceLock;

/// One step of a dotted key: a hash key, or an array index.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Segment {
    Key(String),
    Index(i64),
}

impl Segment {
    fn text(&self) -> String {
        match self {
            Segment::Key(k) => k.clone(),
            Segment::Index(i) => i.to_string(),
        }
    }
}

fn key_split_re() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| Regex::new(r#"\s*"[^"]+"\s*|\s*'[^']+'\s*|[^'".]+"#).expect("constant regex"))
}

/// Ruby's `String#strip` (whitespace and NUL).
fn ruby_strip(s: &str) -> &str {
    s.trim_matches(|c: char| matches!(c, ' ' | '\t' | '\n' | '\x0B' | '\x0C' | '\r' | '\0'))
}

/// A dotted key Puppet cannot split (`a..b`, `.a`, `a.`); Puppet's word for
/// it is "Syntax error".
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("Syntax error")]
pub struct KeySyntaxError {
    pub key: String,
}

/// Split a key on dots, honouring quoted parts; digits make an index.
pub fn split_key(key: &str) -> Result<Vec<Segment>, KeySyntaxError> {
    if !key.contains(['\'', '"', '.']) {
        return Ok(vec![Segment::Key(key.to_string())]);
    }
    // Ruby's `split` with a capturing group: the gaps between matches and
    // the matches themselves, alternately, trailing empty strings dropped.
    let mut pieces: Vec<&str> = Vec::new();
    let mut last = 0;
    for m in key_split_re().find_iter(key) {
        pieces.push(key.get(last..m.start()).unwrap_or(""));
        pieces.push(m.as_str());
        last = m.end();
    }
    pieces.push(key.get(last..).unwrap_or(""));
    while pieces.last().is_some_and(|p| p.is_empty()) {
        pieces.pop();
    }
    let syntax = || KeySyntaxError {
        key: key.to_string(),
    };
    if pieces.is_empty() || !pieces.remove(0).is_empty() {
        return Err(syntax());
    }
    let count = pieces.len();
    if count == 0 {
        return Err(syntax());
    }
    pieces.retain(|p| *p != ".");
    if pieces.len() * 2 != count + 1 {
        return Err(syntax());
    }
    Ok(pieces
        .into_iter()
        .map(|p| {
            let p = ruby_strip(p);
            if p.starts_with(['"', '\'']) {
                let inner = p.get(1..p.len().saturating_sub(1)).unwrap_or("");
                Segment::Key(inner.to_string())
            } else if let Some(i) = integer_segment(p) {
                Segment::Index(i)
            } else {
                Segment::Key(p.to_string())
            }
        })
        .collect())
}

/// `/^(:?[+-]?[0-9]+)$/` then `to_i` (a leading `:` makes it 0).
fn integer_segment(p: &str) -> Option<i64> {
    let (colon, rest) = match p.strip_prefix(':') {
        Some(r) => (true, r),
        None => (false, p),
    };
    let digits = rest.strip_prefix(['+', '-']).unwrap_or(rest);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    if colon {
        return Some(0);
    }
    Some(rest.parse::<i64>().unwrap_or(if rest.starts_with('-') {
        i64::MIN
    } else {
        i64::MAX
    }))
}

/// Dig into `value` along `segments`. `Ok(None)` when something on the way
/// is missing; an error when a step meets something that cannot be dug
/// into (Puppet's "type mismatch").
pub fn sub_lookup(
    key: &str,
    segments: &[Segment],
    value: Value,
) -> Result<Option<Value>, HieraError> {
    let mut value = value;
    for seg in segments {
        value = match (value, seg) {
            (Value::Null, _) => return Ok(None),
            (Value::List(l), Segment::Index(i)) => {
                match usize::try_from(*i).ok().and_then(|i| l.into_iter().nth(i)) {
                    Some(v) => v,
                    None => return Ok(None),
                }
            }
            (Value::Map(mut m), seg) => match m.shift_remove(&seg.text()) {
                Some(v) => v,
                None => return Ok(None),
            },
            (other, seg) => {
                return Err(HieraError::Lookup(format!(
                    "Data Provider type mismatch: Got {} when a hash-like object was expected to \
                     access value using '{}' from key '{key}'",
                    ruby_class_name(&other),
                    seg.text()
                )))
            }
        };
    }
    Ok(Some(value))
}

fn ruby_class_name(v: &Value) -> &'static str {
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

/// What interpolation needs from the lookup engine.
pub trait Resolver {
    /// `lookup('key')` inside data: a full lookup, `''` when not found.
    fn global_lookup(&self, key: &str) -> Result<Value, HieraError>;
    /// Enter a guarded step (Puppet's recursion check on a name stack).
    fn enter(&self, name: &str) -> Result<(), HieraError>;
    fn leave(&self);
}

/// The variables of the node scope, with the one local variable that
/// `mapped_paths` binds while it expands its template.
pub struct Scope<'a> {
    pub vars: &'a Map,
    pub local: Option<(&'a str, &'a Value)>,
}

impl Scope<'_> {
    pub fn get(&self, name: &str) -> Option<Value> {
        if let Some((k, v)) = self.local {
            if k == name {
                return Some(v.clone());
            }
        }
        // `::x` is the top-scope `x`; any other qualified name would be a
        // class variable, and no class is ever evaluated here.
        let name = name.strip_prefix("::").unwrap_or(name);
        if name.contains("::") {
            return None;
        }
        self.vars.get(name).cloned()
    }
}

fn interpolation_re() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| Regex::new(r"%\{([^}]*)\}").expect("constant regex"))
}

fn method_re() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(r#"^([A-Za-z0-9_]+)\((?:"([^"]+)"|'([^']+)')\)$"#).expect("constant regex")
    })
}

/// Expressions that stand for nothing at all.
fn is_empty_expr(e: &str) -> bool {
    matches!(e, "" | "::" | "\"\"" | "''" | "\"::\"" | "'::'")
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Method {
    Scope,
    Lookup,
    Alias,
    Literal,
}

fn method_and_key(expr: &str, allow_methods: bool) -> Result<(Method, String), HieraError> {
    let Some(c) = method_re().captures(expr) else {
        return Ok((Method::Scope, expr.to_string()));
    };
    if !allow_methods {
        return Err(HieraError::Lookup(
            "Interpolation using method syntax is not allowed in this context".into(),
        ));
    }
    let key = c
        .get(2)
        .or_else(|| c.get(3))
        .map(|m| m.as_str().to_string())
        .unwrap_or_default();
    let method = match c.get(1).map(|m| m.as_str()).unwrap_or("") {
        "lookup" | "hiera" => Method::Lookup,
        "alias" => Method::Alias,
        "literal" => Method::Literal,
        "scope" => Method::Scope,
        other => {
            return Err(HieraError::Lookup(format!(
                "Unknown interpolation method '{other}'"
            )))
        }
    };
    Ok((method, key))
}

/// Interpolate every string in `value` (hash keys too). `allow_methods` is
/// false in `hiera.yaml`, true in data.
pub fn interpolate(
    value: Value,
    r: &dyn Resolver,
    scope: &Scope<'_>,
    allow_methods: bool,
) -> Result<Value, HieraError> {
    Ok(match value {
        Value::Str(s) if s.contains("%{") => interpolate_string(&s, r, scope, allow_methods)?,
        Value::List(l) => Value::List(
            l.into_iter()
                .map(|v| interpolate(v, r, scope, allow_methods))
                .collect::<Result<_, _>>()?,
        ),
        Value::Map(m) => {
            let mut out = Map::with_capacity_and_hasher(m.len(), Default::default());
            for (k, v) in m {
                let k = if k.contains("%{") {
                    match interpolate_string(&k, r, scope, allow_methods)? {
                        Value::Str(s) => s,
                        other => key_string(&other),
                    }
                } else {
                    k
                };
                out.insert(k, interpolate(v, r, scope, allow_methods)?);
            }
            Value::Map(out)
        }
        other => other,
    })
}

/// A string with `%{...}` in it. An `alias()` that is the whole string
/// gives the looked-up value itself, of any type.
pub fn interpolate_string(
    subject: &str,
    r: &dyn Resolver,
    scope: &Scope<'_>,
    allow_methods: bool,
) -> Result<Value, HieraError> {
    let mut out = String::with_capacity(subject.len());
    let mut last = 0;
    for caps in interpolation_re().captures_iter(subject) {
        let (Some(whole), Some(inner)) = (caps.get(0), caps.get(1)) else {
            continue;
        };
        out.push_str(subject.get(last..whole.start()).unwrap_or(""));
        last = whole.end();
        let expr = ruby_strip(inner.as_str());
        if is_empty_expr(expr) {
            continue;
        }
        let (method, key) = method_and_key(expr, allow_methods)?;
        let value = match method {
            Method::Alias => {
                if whole.as_str() != subject {
                    return Err(HieraError::Lookup(
                        "'alias' interpolation is only permitted if the expression is equal to \
                         the entire string"
                            .into(),
                    ));
                }
                return r.global_lookup(&key);
            }
            Method::Lookup => Some(r.global_lookup(&key)?),
            Method::Literal => Some(Value::Str(key.clone())),
            Method::Scope => scope_lookup(&key, subject, scope)?,
        };
        let guard = if method == Method::Scope {
            format!("scope:{key}")
        } else {
            key.clone()
        };
        let value = match value {
            None => None,
            Some(v) => {
                r.enter(&guard)?;
                let res = interpolate(v, r, scope, allow_methods);
                r.leave();
                Some(res?)
            }
        };
        if let Some(v) = value {
            out.push_str(&ruby_to_s(&v));
        }
    }
    out.push_str(subject.get(last..).unwrap_or(""));
    Ok(Value::Str(out))
}

/// A scope variable reached with a dotted key; `None` when missing.
pub fn scope_lookup(
    key: &str,
    subject: &str,
    scope: &Scope<'_>,
) -> Result<Option<Value>, HieraError> {
    let mut segments = split_key(key)
        .map_err(|problem| HieraError::Lookup(format!("{problem} in string: {subject}")))?;
    if segments.is_empty() {
        return Ok(None);
    }
    let root = segments.remove(0).text();
    match scope.get(&root) {
        None | Some(Value::Null) => Ok(None),
        Some(v) if segments.is_empty() => Ok(Some(v)),
        Some(v) => sub_lookup(key, &segments, v),
    }
}

/// Ruby's `to_s`, which is how `gsub` turns an interpolated value into text.
pub fn ruby_to_s(v: &Value) -> String {
    match v {
        Value::Null => String::new(),
        Value::Str(s) => s.clone(),
        other => ruby_inspect(other),
    }
}

/// Ruby's `inspect` (Ruby 3.1 spelling: `{"a"=>1}`).
pub fn ruby_inspect(v: &Value) -> String {
    match v {
        Value::Null => "nil".into(),
        Value::Bool(b) => b.to_string(),
        Value::Int(i) => i.to_string(),
        Value::Float(f) => ruby_float(*f),
        Value::Str(s) => ruby_str_inspect(s),
        Value::List(l) => format!(
            "[{}]",
            l.iter().map(ruby_inspect).collect::<Vec<_>>().join(", ")
        ),
        Value::Map(m) => format!(
            "{{{}}}",
            m.iter()
                .map(|(k, v)| format!("{}=>{}", ruby_str_inspect(k), ruby_inspect(v)))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

fn ruby_str_inspect(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            '\x0C' => out.push_str("\\f"),
            '\x0B' => out.push_str("\\v"),
            '\x08' => out.push_str("\\b"),
            '\x07' => out.push_str("\\a"),
            '\x1B' => out.push_str("\\e"),
            '#' if matches!(chars.peek(), Some('{' | '$' | '@')) => out.push_str("\\#"),
            c if (c as u32) < 0x20 || c == '\x7F' => out.push_str(&format!("\\x{:02X}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Ruby's `Float#to_s`: shortest round-trip digits, fixed notation for
/// decimal exponents from -4 to 15, else `d.ddde+XX`.
pub fn ruby_float(f: f64) -> String {
    if f.is_nan() {
        return "NaN".into();
    }
    if f.is_infinite() {
        return if f > 0.0 { "Infinity" } else { "-Infinity" }.into();
    }
    if f == 0.0 {
        return if f.is_sign_negative() { "-0.0" } else { "0.0" }.into();
    }
    let sci = format!("{:e}", f.abs());
    let (mant, exp) = sci.split_once('e').unwrap_or((sci.as_str(), "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let digits: String = mant.chars().filter(|c| c.is_ascii_digit()).collect();
    let sign = if f < 0.0 { "-" } else { "" };
    let decpt = exp + 1;
    if decpt > -4 && decpt <= 15 {
        let n = digits.len() as i32;
        let body = if decpt <= 0 {
            format!("0.{}{}", "0".repeat((-decpt) as usize), digits)
        } else if decpt >= n {
            format!("{}{}.0", digits, "0".repeat((decpt - n) as usize))
        } else {
            let (a, b) = digits.split_at(decpt as usize);
            format!("{a}.{b}")
        };
        format!("{sign}{body}")
    } else {
        let (first, rest) = digits.split_at(1.min(digits.len()));
        let rest = if rest.is_empty() { "0" } else { rest };
        let esign = if exp < 0 { '-' } else { '+' };
        format!("{sign}{first}.{rest}e{esign}{:02}", exp.abs())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use std::cell::RefCell;

    struct Fake {
        data: Map,
        stack: RefCell<Vec<String>>,
    }

    impl Resolver for Fake {
        fn global_lookup(&self, key: &str) -> Result<Value, HieraError> {
            Ok(self
                .data
                .get(key)
                .cloned()
                .unwrap_or(Value::Str(String::new())))
        }
        fn enter(&self, name: &str) -> Result<(), HieraError> {
            if self.stack.borrow().iter().any(|n| n == name) {
                return Err(HieraError::Lookup("Recursive lookup".into()));
            }
            self.stack.borrow_mut().push(name.into());
            Ok(())
        }
        fn leave(&self) {
            self.stack.borrow_mut().pop();
        }
    }

    fn map(j: serde_json::Value) -> Map {
        match Value::from_json(&j) {
            Value::Map(m) => m,
            _ => Map::default(),
        }
    }

    fn run(s: &str, vars: &Map, data: serde_json::Value) -> Result<Value, HieraError> {
        let f = Fake {
            data: map(data),
            stack: RefCell::new(Vec::new()),
        };
        let scope = Scope { vars, local: None };
        interpolate(Value::Str(s.into()), &f, &scope, true)
    }

    #[test]
    fn splits_keys_like_puppet() {
        use Segment::*;
        assert_eq!(split_key("a").unwrap(), [Key("a".into())]);
        assert_eq!(
            split_key("a.b.0").unwrap(),
            [Key("a".into()), Key("b".into()), Index(0)]
        );
        assert_eq!(
            split_key(r#"a."b.c".d"#).unwrap(),
            [Key("a".into()), Key("b.c".into()), Key("d".into())]
        );
        assert_eq!(split_key("a.-1").unwrap(), [Key("a".into()), Index(-1)]);
        assert!(split_key("a..b").is_err());
        assert!(split_key(".a").is_err());
        assert!(split_key("a.").is_err());
    }

    #[test]
    fn scope_values_and_missing_parts() {
        // What `puppet lookup` gave for the same facts.
        let vars = map(json!({
            "x": "ex",
            "facts": {"x": "ex", "os": {"family": "Debian"}, "list": ["zero", "one"], "a.b": "dotted",
                      "num": 5, "fl": 1.5, "t": true},
            "os": {"family": "Debian"},
        }));
        let got = run(
            r#"x=%{x} ::x=%{::x} fx=%{facts.x} osf=%{os.family} l1=%{facts.list.1} l9=%{facts.list.9} q=%{facts."a.b"} miss=%{nope} e=%{}"#,
            &vars,
            json!({}),
        )
        .unwrap();
        assert_eq!(
            got,
            Value::Str("x=ex ::x=ex fx=ex osf=Debian l1=one l9= q=dotted miss= e=".into())
        );
        assert_eq!(
            run(
                "%{facts.list}|%{facts.num}|%{facts.fl}|%{facts.t}|%{facts.os}",
                &vars,
                json!({})
            )
            .unwrap(),
            Value::Str(r#"["zero", "one"]|5|1.5|true|{"family"=>"Debian"}"#.into())
        );
        // Digging into a string is an error, not an empty string.
        assert!(run("%{facts.os.family.x}", &vars, json!({})).is_err());
    }

    #[test]
    fn methods() {
        let vars = Map::default();
        let data = json!({"a": "A", "list": [1, 2]});
        assert_eq!(
            run("<%{lookup('a')}>", &vars, data.clone()).unwrap(),
            Value::Str("<A>".into())
        );
        assert_eq!(
            run("%{hiera(\"a\")}", &vars, data.clone()).unwrap(),
            Value::Str("A".into())
        );
        assert_eq!(
            run("%{alias('list')}", &vars, data.clone())
                .unwrap()
                .to_json(),
            json!([1, 2])
        );
        assert!(run("x%{alias('list')}", &vars, data.clone()).is_err());
        assert_eq!(
            run("%{literal('%')}{x}", &vars, data.clone()).unwrap(),
            Value::Str("%{x}".into())
        );
        assert!(run("%{nope('a')}", &vars, data.clone()).is_err());
        let f = Fake {
            data: Map::default(),
            stack: RefCell::new(Vec::new()),
        };
        let scope = Scope {
            vars: &vars,
            local: None,
        };
        assert!(interpolate(Value::Str("%{lookup('a')}".into()), &f, &scope, false).is_err());
    }

    #[test]
    fn ruby_floats() {
        assert_eq!(ruby_float(1.5), "1.5");
        assert_eq!(ruby_float(100.0), "100.0");
        assert_eq!(ruby_float(1e14), "100000000000000.0");
        assert_eq!(ruby_float(1e15), "1.0e+15");
        assert_eq!(ruby_float(1234567890123456.0), "1.234567890123456e+15");
        assert_eq!(ruby_float(0.0001), "0.0001");
        assert_eq!(ruby_float(1e-5), "1.0e-05");
        assert_eq!(ruby_float(2.5e-5), "2.5e-05");
        assert_eq!(ruby_float(-0.0), "-0.0");
        assert_eq!(ruby_float(0.1 + 0.2), "0.30000000000000004");
    }
}
