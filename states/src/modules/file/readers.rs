//! Reading back what `file.serialize` wrote, for `merge_if_exists`: the
//! XML property lists `plistlib` writes and the TOML the `toml` package
//! reads. Both are small readers of those formats, not general parsers:
//! a document outside what they know is refused with a message.

use super::serializers::SerializerError;
use brine_core::{Map, Value};

fn err(msg: impl Into<String>) -> SerializerError {
    SerializerError(msg.into())
}

/// XML entities `plistlib` writes (and the numeric ones).
fn unescape_xml(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(i) = rest.find('&') {
        out.push_str(&rest[..i]);
        let after = &rest[i..];
        let Some(end) = after.find(';') else {
            out.push_str(after);
            return out;
        };
        let ent = &after[1..end];
        let ch = match ent {
            "amp" => Some('&'),
            "lt" => Some('<'),
            "gt" => Some('>'),
            "quot" => Some('"'),
            "apos" => Some('\''),
            _ => ent
                .strip_prefix("#x")
                .and_then(|h| u32::from_str_radix(h, 16).ok())
                .or_else(|| ent.strip_prefix('#').and_then(|d| d.parse().ok()))
                .and_then(char::from_u32),
        };
        match ch {
            Some(c) => out.push(c),
            None => out.push_str(&after[..=end]),
        }
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    out
}

/// The tags and texts of an XML document, declarations and comments
/// dropped.
enum Tok {
    Open(String),
    Close(String),
    Empty(String),
    Text(String),
}

fn xml_tokens(s: &str) -> Result<Vec<Tok>, SerializerError> {
    let mut out = Vec::new();
    let mut rest = s;
    while !rest.is_empty() {
        let Some(lt) = rest.find('<') else {
            out.push(Tok::Text(unescape_xml(rest)));
            break;
        };
        if lt > 0 {
            out.push(Tok::Text(unescape_xml(&rest[..lt])));
        }
        rest = &rest[lt..];
        let close = if rest.starts_with("<!--") { "-->" } else { ">" };
        let Some(gt) = rest.find(close) else {
            return Err(err("unclosed token"));
        };
        let tag = &rest[1..gt];
        rest = &rest[gt + close.len()..];
        if tag.starts_with('?') || tag.starts_with('!') {
            continue;
        }
        let name = |t: &str| t.split_whitespace().next().unwrap_or("").to_string();
        if let Some(t) = tag.strip_prefix('/') {
            out.push(Tok::Close(name(t)));
        } else if let Some(t) = tag.strip_suffix('/') {
            out.push(Tok::Empty(name(t)));
        } else {
            out.push(Tok::Open(name(tag)));
        }
    }
    Ok(out)
}

/// `plistlib.loads` of an XML property list.
pub fn plist_loads(text: &str) -> Result<Value, SerializerError> {
    let toks: Vec<Tok> = xml_tokens(text)?
        .into_iter()
        .filter(|t| !matches!(t, Tok::Text(s) if s.trim().is_empty()))
        .collect();
    let mut pos = 0;
    fn value(toks: &[Tok], pos: &mut usize, depth: usize) -> Result<Value, SerializerError> {
        if depth > 256 {
            return Err(err("nesting too deep"));
        }
        let tok = toks
            .get(*pos)
            .ok_or_else(|| err("unexpected end of document"))?;
        *pos += 1;
        let text_until = |pos: &mut usize, tag: &str| -> Result<String, SerializerError> {
            let mut s = String::new();
            if let Some(Tok::Text(t)) = toks.get(*pos) {
                s = t.clone();
                *pos += 1;
            }
            match toks.get(*pos) {
                Some(Tok::Close(c)) if c == tag => {
                    *pos += 1;
                    Ok(s)
                }
                _ => Err(err(format!("unclosed <{tag}>"))),
            }
        };
        Ok(match tok {
            Tok::Empty(t) if t == "dict" => Value::Map(Map::default()),
            Tok::Empty(t) if t == "array" => Value::List(Vec::new()),
            Tok::Empty(t) if t == "true" => Value::Bool(true),
            Tok::Empty(t) if t == "false" => Value::Bool(false),
            Tok::Empty(t) if t == "string" => Value::Str(String::new()),
            Tok::Open(t) if t == "plist" => {
                let v = value(toks, pos, depth + 1)?;
                text_until(pos, "plist")?;
                v
            }
            Tok::Open(t) if t == "dict" => {
                let mut m = Map::default();
                loop {
                    match toks.get(*pos) {
                        Some(Tok::Close(c)) if c == "dict" => {
                            *pos += 1;
                            break;
                        }
                        Some(Tok::Open(k)) if k == "key" => {
                            *pos += 1;
                            let key = text_until(pos, "key")?;
                            let v = value(toks, pos, depth + 1)?;
                            m.insert(key, v);
                        }
                        _ => return Err(err("missing <key> in <dict>")),
                    }
                }
                Value::Map(m)
            }
            Tok::Open(t) if t == "array" => {
                let mut l = Vec::new();
                loop {
                    if let Some(Tok::Close(c)) = toks.get(*pos) {
                        if c == "array" {
                            *pos += 1;
                            break;
                        }
                    }
                    l.push(value(toks, pos, depth + 1)?);
                }
                Value::List(l)
            }
            Tok::Open(t) if t == "string" || t == "date" || t == "data" => {
                Value::Str(text_until(pos, &t.clone())?)
            }
            Tok::Open(t) if t == "integer" => {
                let s = text_until(pos, "integer")?;
                Value::Int(
                    s.trim()
                        .parse()
                        .map_err(|_| err(format!("invalid integer {s:?}")))?,
                )
            }
            Tok::Open(t) if t == "real" => {
                let s = text_until(pos, "real")?;
                Value::Float(
                    s.trim()
                        .parse()
                        .map_err(|_| err(format!("invalid real {s:?}")))?,
                )
            }
            _ => return Err(err("unexpected token in property list")),
        })
    }
    value(&toks, &mut pos, 0)
}

/// A TOML reader for what the `toml` package writes and common hand-made
/// files: tables, arrays of tables, bare / quoted / dotted keys, strings
/// (basic, literal, multi-line), integers, floats, booleans, arrays and
/// inline tables; dates are kept as text.
pub fn toml_loads(text: &str) -> Result<Value, SerializerError> {
    let mut p = Toml {
        s: text.as_bytes(),
        pos: 0,
        line: 1,
    };
    let mut root = Map::default();
    let mut current: Vec<String> = Vec::new();
    loop {
        p.skip_ws_comments(true);
        if p.pos >= p.s.len() {
            break;
        }
        if p.peek() == Some(b'[') {
            let array = p.s.get(p.pos + 1) == Some(&b'[');
            p.pos += if array { 2 } else { 1 };
            let key = p.key()?;
            p.skip_ws();
            for _ in 0..if array { 2 } else { 1 } {
                if p.peek() != Some(b']') {
                    return Err(p.error("expected ']'"));
                }
                p.pos += 1;
            }
            if array {
                let (last, parents) = key
                    .split_last()
                    .ok_or_else(|| p.error("empty table name"))?;
                let parent = table_at(&mut root, parents, &p)?;
                let entry = parent
                    .entry(last.clone())
                    .or_insert_with(|| Value::List(Vec::new()));
                match entry {
                    Value::List(l) => l.push(Value::Map(Map::default())),
                    _ => return Err(p.error("not an array of tables")),
                }
            } else {
                table_at(&mut root, &key, &p)?;
            }
            current = key;
            continue;
        }
        let key = p.key()?;
        p.skip_ws();
        if p.peek() != Some(b'=') {
            return Err(p.error("expected '='"));
        }
        p.pos += 1;
        p.skip_ws();
        let v = p.value(0)?;
        let (last, parents) = key.split_last().ok_or_else(|| p.error("empty key"))?;
        let mut path = current.clone();
        path.extend(parents.iter().cloned());
        table_at(&mut root, &path, &p)?.insert(last.clone(), v);
    }
    Ok(Value::Map(root))
}

/// The table at `path`, made as needed (the last element of an array of
/// tables stands for the array).
fn table_at<'a>(
    root: &'a mut Map,
    path: &[String],
    p: &Toml,
) -> Result<&'a mut Map, SerializerError> {
    let mut t = root;
    for k in path {
        let entry = t
            .entry(k.clone())
            .or_insert_with(|| Value::Map(Map::default()));
        t = match entry {
            Value::Map(m) => m,
            Value::List(l) => match l.last_mut() {
                Some(Value::Map(m)) => m,
                _ => return Err(p.error("not a table")),
            },
            _ => return Err(p.error("not a table")),
        };
    }
    Ok(t)
}

struct Toml<'a> {
    s: &'a [u8],
    pos: usize,
    line: usize,
}

impl Toml<'_> {
    fn error(&self, msg: &str) -> SerializerError {
        err(format!("{msg} (line {})", self.line))
    }
    fn peek(&self) -> Option<u8> {
        self.s.get(self.pos).copied()
    }
    fn skip_ws(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t')) {
            self.pos += 1;
        }
    }
    fn skip_ws_comments(&mut self, newlines: bool) {
        loop {
            match self.peek() {
                Some(b' ' | b'\t' | b'\r') => self.pos += 1,
                Some(b'\n') if newlines => {
                    self.pos += 1;
                    self.line += 1;
                }
                Some(b'#') => {
                    while !matches!(self.peek(), None | Some(b'\n')) {
                        self.pos += 1;
                    }
                }
                _ => return,
            }
        }
    }
    fn key(&mut self) -> Result<Vec<String>, SerializerError> {
        let mut parts = Vec::new();
        loop {
            self.skip_ws();
            let part = match self.peek() {
                Some(b'"') => self.basic_string()?,
                Some(b'\'') => self.literal_string()?,
                _ => {
                    let start = self.pos;
                    while self
                        .peek()
                        .is_some_and(|c| c.is_ascii_alphanumeric() || c == b'_' || c == b'-')
                    {
                        self.pos += 1;
                    }
                    if start == self.pos {
                        return Err(self.error("expected a key"));
                    }
                    String::from_utf8_lossy(&self.s[start..self.pos]).into_owned()
                }
            };
            parts.push(part);
            self.skip_ws();
            if self.peek() != Some(b'.') {
                return Ok(parts);
            }
            self.pos += 1;
        }
    }
    fn basic_string(&mut self) -> Result<String, SerializerError> {
        let multi = self.s[self.pos..].starts_with(b"\"\"\"");
        self.pos += if multi { 3 } else { 1 };
        if multi && self.peek() == Some(b'\n') {
            self.pos += 1;
            self.line += 1;
        }
        let mut out: Vec<u8> = Vec::new();
        loop {
            let c = self
                .peek()
                .ok_or_else(|| self.error("unterminated string"))?;
            if multi && self.s[self.pos..].starts_with(b"\"\"\"") {
                self.pos += 3;
                break;
            }
            if !multi && c == b'"' {
                self.pos += 1;
                break;
            }
            if c == b'\n' {
                if !multi {
                    return Err(self.error("newline in a string"));
                }
                self.line += 1;
            }
            self.pos += 1;
            if c != b'\\' {
                out.push(c);
                continue;
            }
            let e = self
                .peek()
                .ok_or_else(|| self.error("unterminated string"))?;
            self.pos += 1;
            let ch = match e {
                b'n' => '\n',
                b't' => '\t',
                b'r' => '\r',
                b'b' => '\u{8}',
                b'f' => '\u{c}',
                b'"' => '"',
                b'\\' => '\\',
                b'u' | b'U' => {
                    let n = if e == b'u' { 4 } else { 8 };
                    let hex = self
                        .s
                        .get(self.pos..self.pos + n)
                        .ok_or_else(|| self.error("short escape"))?;
                    self.pos += n;
                    u32::from_str_radix(&String::from_utf8_lossy(hex), 16)
                        .ok()
                        .and_then(char::from_u32)
                        .ok_or_else(|| self.error("bad escape"))?
                }
                b'\n' if multi => {
                    self.line += 1;
                    while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
                        if self.peek() == Some(b'\n') {
                            self.line += 1;
                        }
                        self.pos += 1;
                    }
                    continue;
                }
                _ => return Err(self.error("bad escape")),
            };
            let mut buf = [0u8; 4];
            out.extend_from_slice(ch.encode_utf8(&mut buf).as_bytes());
        }
        String::from_utf8(out).map_err(|_| self.error("invalid UTF-8"))
    }
    fn literal_string(&mut self) -> Result<String, SerializerError> {
        let multi = self.s[self.pos..].starts_with(b"'''");
        let delim: &[u8] = if multi { b"'''" } else { b"'" };
        self.pos += delim.len();
        if multi && self.peek() == Some(b'\n') {
            self.pos += 1;
            self.line += 1;
        }
        let start = self.pos;
        loop {
            if self.pos >= self.s.len() {
                return Err(self.error("unterminated string"));
            }
            if self.s[self.pos..].starts_with(delim) {
                let text = String::from_utf8_lossy(&self.s[start..self.pos]).into_owned();
                self.pos += delim.len();
                return Ok(text);
            }
            if self.s[self.pos] == b'\n' {
                if !multi {
                    return Err(self.error("newline in a string"));
                }
                self.line += 1;
            }
            self.pos += 1;
        }
    }
    fn value(&mut self, depth: usize) -> Result<Value, SerializerError> {
        if depth > 128 {
            return Err(self.error("nesting too deep"));
        }
        match self.peek() {
            Some(b'"') => self.basic_string().map(Value::Str),
            Some(b'\'') => self.literal_string().map(Value::Str),
            Some(b'[') => {
                self.pos += 1;
                let mut items = Vec::new();
                loop {
                    self.skip_ws_comments(true);
                    if self.peek() == Some(b']') {
                        self.pos += 1;
                        return Ok(Value::List(items));
                    }
                    items.push(self.value(depth + 1)?);
                    self.skip_ws_comments(true);
                    match self.peek() {
                        Some(b',') => self.pos += 1,
                        Some(b']') => {}
                        _ => return Err(self.error("expected ',' or ']'")),
                    }
                }
            }
            Some(b'{') => {
                self.pos += 1;
                let mut m = Map::default();
                loop {
                    self.skip_ws();
                    if self.peek() == Some(b'}') {
                        self.pos += 1;
                        return Ok(Value::Map(m));
                    }
                    let key = self.key()?;
                    self.skip_ws();
                    if self.peek() != Some(b'=') {
                        return Err(self.error("expected '='"));
                    }
                    self.pos += 1;
                    self.skip_ws();
                    let v = self.value(depth + 1)?;
                    let (last, parents) =
                        key.split_last().ok_or_else(|| self.error("empty key"))?;
                    table_at(&mut m, parents, self)?.insert(last.clone(), v);
                    self.skip_ws();
                    match self.peek() {
                        Some(b',') => self.pos += 1,
                        Some(b'}') => {}
                        _ => return Err(self.error("expected ',' or '}'")),
                    }
                }
            }
            _ => {
                let start = self.pos;
                while self
                    .peek()
                    .is_some_and(|c| !matches!(c, b',' | b']' | b'}' | b'\n' | b'#' | b'\r'))
                {
                    self.pos += 1;
                }
                let word = String::from_utf8_lossy(&self.s[start..self.pos])
                    .trim()
                    .to_string();
                let plain = word.replace('_', "");
                Ok(match word.as_str() {
                    "true" => Value::Bool(true),
                    "false" => Value::Bool(false),
                    "inf" | "+inf" => Value::Float(f64::INFINITY),
                    "-inf" => Value::Float(f64::NEG_INFINITY),
                    "nan" | "+nan" | "-nan" => Value::Float(f64::NAN),
                    _ => {
                        if let Some(h) = plain.strip_prefix("0x") {
                            Value::Int(
                                i64::from_str_radix(h, 16).map_err(|_| self.error("bad number"))?,
                            )
                        } else if let Some(o) = plain.strip_prefix("0o") {
                            Value::Int(
                                i64::from_str_radix(o, 8).map_err(|_| self.error("bad number"))?,
                            )
                        } else if let Some(b) = plain.strip_prefix("0b") {
                            Value::Int(
                                i64::from_str_radix(b, 2).map_err(|_| self.error("bad number"))?,
                            )
                        } else if let Ok(i) = plain.parse::<i64>() {
                            Value::Int(i)
                        } else if let Ok(f) = plain.parse::<f64>() {
                            Value::Float(f)
                        } else if word.starts_with(|c: char| c.is_ascii_digit()) {
                            // A date or time: kept as written.
                            Value::Str(word)
                        } else {
                            return Err(self.error(&format!("invalid value {word:?}")));
                        }
                    }
                })
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::serializers::{plist_dumps, toml_dumps};
    use super::*;

    fn v(j: serde_json::Value) -> Value {
        Value::from_json(&j)
    }

    #[test]
    fn plists_read_back() {
        let d = v(
            serde_json::json!({"b": true, "e": {}, "el": [], "f": 1.5, "l": [1, "x", {"k": false}], "n": 3, "s": "a<b>&"}),
        );
        assert_eq!(plist_loads(&plist_dumps(&d).unwrap()).unwrap(), d);
        assert!(plist_loads("<plist><dict><integer>1</integer></dict></plist>").is_err());
    }

    #[test]
    fn toml_reads_back_what_it_writes() {
        let d = v(
            serde_json::json!({"title": "x", "b": true, "f": 1.5, "n": -3, "arr": [1, 2], "e": [],
            "s": "q\"uote\\\n", "tabs": [{"a": 1}, {"a": 2}], "owner": {"name": "n", "deep": {"k": 1}}}),
        );
        assert_eq!(toml_loads(&toml_dumps(&d).unwrap()).unwrap(), d);
        let hand = "# c\nk = 'lit'\n[a.b]\nx = { y = 1, z = [\"q\"] }\nd = 1979-05-27\n";
        assert_eq!(
            toml_loads(hand).unwrap(),
            v(
                serde_json::json!({"k": "lit", "a": {"b": {"x": {"y": 1, "z": ["q"]}, "d": "1979-05-27"}}})
            )
        );
        assert!(toml_loads("k = ").is_err());
        assert!(toml_loads("k = \"open").is_err());
    }
}
