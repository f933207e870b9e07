//! An ini file as Salt's `ini_manage` execution module models it: an
//! ordered mapping of options (text) and sections (mappings of options),
//! comment and unparsable lines kept as `#commentN` / `#unknownN` entries,
//! an indented line continuing the option above it. Edits go through
//! `update`, which reports `{key: {before, after}}` and, for a key not yet
//! there, takes the place of a commented-out `#key = value` line. The file
//! is written back whole, with the separator padded by spaces (unless
//! `no_spaces`) and a blank line before each section.

use brine_core::{Map, Value};
use regex::Regex;
use std::path::Path;
use std::sync::LazyLock;

/// Why reading or writing the file failed, as the exception Salt raises.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum IniError {
    /// The file exists but cannot be read (Salt: outside test mode).
    #[error(
        "salt.exceptions.CommandExecutionError: Unable to open file '{path}'. Exception: {err}"
    )]
    Open { path: String, err: String },
    #[error(
        "salt.exceptions.CommandExecutionError: Unable to write file '{path}'. Exception: {err}"
    )]
    Write { path: String, err: String },
    /// Its bytes are not text in the encoding asked for.
    #[error("UnicodeDecodeError: '{encoding}' codec can't decode the contents of '{path}'")]
    Decode { path: String, encoding: String },
    /// An encoding brine does not read.
    #[error("LookupError: brine reads ini files as utf-8 or latin-1 only, not '{0}'")]
    Encoding(String),
    /// A value of a type Salt's code cannot handle there (the Python
    /// exception it raises).
    #[error("{0}")]
    Python(String),
}

/// A section header line (Salt's `INI_REGX`).
static HEADER: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?m)^\s*\[(.+?)\]\s*$").expect("valid regex"));
/// A comment line (Salt's `COM_REGX`).
static COMMENT: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^\s*(#|;)\s*(.*)").expect("valid regex"));
/// An indented line (Salt's `INDENTED_REGX`).
static INDENTED: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^(\s+)(.*)").expect("valid regex"));

/// One entry of a section.
#[derive(Debug, Clone)]
pub enum Item {
    Text(String),
    Section(Section),
}

/// A section (or, at the top, the whole file): its entries in order.
#[derive(Debug, Clone)]
pub struct Section {
    pub name: String,
    sep: String,
    no_spaces: bool,
    option: Regex,
    pub items: indexmap::IndexMap<String, Item>,
}

fn option_regex(sep: &str) -> Regex {
    // Salt escapes the separator's first character; for the one-character
    // separators in use that is escaping it whole.
    Regex::new(&format!(r"^(\s*)(.+?)\s*({})\s*(.*)", regex::escape(sep)))
        .unwrap_or_else(|_| Regex::new(r"^(\s*)(.+?)\s*(=)\s*(.*)").expect("valid regex"))
}

/// Python's `str.splitlines()` line breaks.
fn split_lines(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        let brk = matches!(
            c,
            '\n' | '\r'
                | '\x0b'
                | '\x0c'
                | '\x1c'
                | '\x1d'
                | '\x1e'
                | '\u{85}'
                | '\u{2028}'
                | '\u{2029}'
        );
        if !brk {
            continue;
        }
        out.push(&text[start..i]);
        start = i + c.len_utf8();
        if c == '\r' && chars.peek().is_some_and(|(_, n)| *n == '\n') {
            chars.next();
            start += 1;
        }
    }
    if start < text.len() {
        out.push(&text[start..]);
    }
    out
}

impl Section {
    pub fn new(name: &str, sep: &str, no_spaces: bool) -> Section {
        Section {
            name: name.to_string(),
            sep: sep.to_string(),
            no_spaces,
            option: option_regex(sep),
            items: indexmap::IndexMap::new(),
        }
    }

    /// Salt's `_Section.refresh`: the entries read from a section's text.
    fn refresh(&mut self, text: &str) {
        let text = text.trim_matches('\n');
        if text.is_empty() {
            return;
        }
        let (mut comments, mut unknown) = (1, 1);
        let mut curr_indent = String::new();
        for line in text.split('\n') {
            if COMMENT.is_match(line) {
                self.put(&format!("#comment{comments}"), Item::Text(line.to_string()));
                comments += 1;
                continue;
            }
            if let Some(c) = INDENTED.captures(line) {
                let indent = c[1].replace('\t', "    ");
                // Python compares the indents as strings.
                if indent > curr_indent {
                    if let Some((_, Item::Text(prev))) = self.items.last_mut() {
                        *prev = format!("{prev}\n{line}");
                    }
                    continue;
                }
            }
            if let Some(c) = self.option.captures(line) {
                curr_indent = c[1].replace('\t', "    ");
                let (name, value) = (c[2].to_string(), c[4].to_string());
                self.put(&name, Item::Text(value));
                continue;
            }
            self.put(&format!("#unknown{unknown}"), Item::Text(line.to_string()));
            unknown += 1;
        }
    }

    /// `update` of one entry whose changes nobody reads (parsing).
    fn put(&mut self, key: &str, item: Item) {
        // Only a section met twice can fail, and parsing merges sections.
        let _ = self.update_items(vec![(key.to_string(), item)]);
    }

    /// Salt's `_uncomment_if_commented`: a `#key = value` comment line
    /// becomes the place of `key` (entries after it move behind it).
    fn uncomment_if_commented(&mut self, key: &str) {
        let found = self.items.iter().position(|(k, v)| {
            k.contains("#comment")
                && matches!(v, Item::Text(t) if self
                    .option
                    .captures(t.trim_start_matches('#'))
                    .is_some_and(|c| &c[2] == key))
        });
        let backup: Vec<(String, Item)> = match found {
            Some(i) => {
                let rest = self.items.split_off(i + 1);
                self.items.pop();
                rest.into_iter().collect()
            }
            None => Vec::new(),
        };
        self.items
            .insert(key.to_string(), Item::Text(String::new()));
        self.items.extend(backup);
    }

    /// Salt's `_Section.update`: each entry set, the changes as
    /// `{key: {before, after}}` (a section's own changes nested).
    fn update_items(&mut self, entries: Vec<(String, Item)>) -> Result<Map, IniError> {
        let mut changes = Map::default();
        for (key, item) in entries {
            let plain = item_plain(&item);
            if !self.items.contains_key(&key) {
                changes.insert(key.clone(), before_after(Value::Null, plain));
                if matches!(item, Item::Text(_)) {
                    self.uncomment_if_commented(&key);
                }
                self.items.insert(key, item);
                continue;
            }
            match (self.items.get_mut(&key), item) {
                (Some(Item::Section(cur)), Item::Section(new)) => {
                    let sub = cur.update_items(new.items.into_iter().collect())?;
                    if !sub.is_empty() {
                        changes.insert(key, Value::Map(sub));
                    }
                }
                (Some(Item::Section(_)), Item::Text(_)) => {
                    return Err(IniError::Python(
                        "AttributeError: 'str' object has no attribute 'items'".into(),
                    ))
                }
                (Some(Item::Text(cur)), Item::Text(new)) => {
                    if *cur != new {
                        changes.insert(
                            key.clone(),
                            before_after(Value::Str(cur.clone()), Value::Str(new.clone())),
                        );
                        *cur = new;
                    }
                }
                (Some(slot @ Item::Text(_)), new @ Item::Section(_)) => {
                    let before = item_plain(slot);
                    changes.insert(key.clone(), before_after(before, plain));
                    *slot = new;
                }
                (None, _) => {}
            }
        }
        Ok(changes)
    }

    /// Set the entries of `updates` (a mapping becomes a section, anything
    /// else its Python `str()`); the changes made.
    pub fn update(&mut self, updates: &Map) -> Result<Map, IniError> {
        let entries = updates
            .iter()
            .map(|(k, v)| Ok((k.clone(), self.item_of(k, v)?)))
            .collect::<Result<Vec<_>, IniError>>()?;
        self.update_items(entries)
    }

    fn item_of(&self, key: &str, v: &Value) -> Result<Item, IniError> {
        Ok(match v {
            Value::Map(m) => {
                let mut s = Section::new(key, &self.sep, self.no_spaces);
                s.update(m)?;
                Item::Section(s)
            }
            other => Item::Text(other.to_python_str()),
        })
    }

    /// The entry `key`'s text, when it is an option.
    pub fn text(&self, key: &str) -> Option<&str> {
        match self.items.get(key) {
            Some(Item::Text(t)) => Some(t),
            _ => None,
        }
    }

    pub fn section(&self, key: &str) -> Option<&Section> {
        match self.items.get(key) {
            Some(Item::Section(s)) => Some(s),
            _ => None,
        }
    }

    pub fn section_mut(&mut self, key: &str) -> Option<&mut Section> {
        match self.items.get_mut(key) {
            Some(Item::Section(s)) => Some(s),
            _ => None,
        }
    }

    /// Remove `key`, keeping the order of the rest.
    pub fn remove(&mut self, key: &str) -> Option<Item> {
        self.items.shift_remove(key)
    }

    /// Salt's `get_ini`/`get_section` view: comment entries left out.
    pub fn as_value(&self) -> Map {
        self.items
            .iter()
            .filter(|(k, _)| !k.starts_with('#'))
            .map(|(k, v)| {
                let v = match v {
                    Item::Text(t) => Value::Str(t.clone()),
                    Item::Section(s) => Value::Map(s.as_value()),
                };
                (k.clone(), v)
            })
            .collect()
    }

    /// Salt's `gen_ini`: this section's lines (its header first).
    fn gen_ini(&self, out: &mut Vec<String>) {
        out.push(format!("\n[{}]\n", self.name));
        let sep = if self.sep.chars().all(|c| c == ' ') {
            " ".to_string()
        } else if self.no_spaces {
            self.sep.trim().to_string()
        } else {
            format!(" {} ", self.sep.trim())
        };
        let mut sections = Vec::new();
        for (name, value) in &self.items {
            match value {
                Item::Text(t) if COMMENT.is_match(name) => out.push(format!("{t}\n")),
                Item::Section(s) => sections.push(s),
                Item::Text(t) => out.push(format!("{name}{sep}{t}\n")),
            }
        }
        for s in sections {
            s.gen_ini(out);
        }
    }
}

fn before_after(before: Value, after: Value) -> Value {
    let mut m = Map::default();
    m.insert("before".into(), before);
    m.insert("after".into(), after);
    Value::Map(m)
}

/// Salt's `value_plain`: an option's text, a section as a plain mapping
/// (comment entries included, as `dict(section)` has them).
fn item_plain(item: &Item) -> Value {
    match item {
        Item::Text(t) => Value::Str(t.clone()),
        Item::Section(s) => Value::Map(
            s.items
                .iter()
                .map(|(k, v)| (k.clone(), item_plain(v)))
                .collect(),
        ),
    }
}

/// How the file is read and written: Salt's `separator`, `encoding` and
/// `no_spaces` arguments.
#[derive(Debug, Clone)]
pub struct Format {
    pub sep: String,
    pub encoding: Option<String>,
    pub no_spaces: bool,
}

fn decode(bytes: Vec<u8>, encoding: Option<&str>, path: &str) -> Result<String, IniError> {
    let enc = encoding.unwrap_or("utf-8").to_lowercase().replace('_', "-");
    match enc.as_str() {
        "utf-8" | "utf8" => String::from_utf8(bytes).map_err(|_| IniError::Decode {
            path: path.to_string(),
            encoding: "utf-8".into(),
        }),
        "latin-1" | "latin1" | "iso-8859-1" | "iso8859-1" => {
            Ok(bytes.into_iter().map(char::from).collect())
        }
        _ => Err(IniError::Encoding(enc)),
    }
}

/// Salt's `_Ini.get_ini_file`: the file parsed (empty when it does not
/// exist; in test mode also when it cannot be read).
pub fn load(path: &str, f: &Format, test: bool) -> Result<Section, IniError> {
    let mut top = Section::new(path, &f.sep, f.no_spaces);
    if !Path::new(path).exists() {
        return Ok(top);
    }
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(_) if test => return Ok(top),
        Err(e) => {
            return Err(IniError::Open {
                path: path.to_string(),
                err: super::super::file::fsutil::py_os_error(&e, Path::new(path)),
            })
        }
    };
    let text = decode(bytes, f.encoding.as_deref(), path)?;
    let text = split_lines(&text).join("\n");
    if text.is_empty() {
        return Ok(top);
    }
    // The text splits at section headers: what comes before the first,
    // then each header's name and the lines up to the next.
    let mut parts = Vec::new();
    let mut last = 0;
    for c in HEADER.captures_iter(&text) {
        let (m, name) = (c.get(0).expect("match"), c.get(1).expect("group"));
        parts.push(&text[last..m.start()]);
        parts.push(name.as_str());
        last = m.end();
    }
    parts.push(&text[last..]);
    top.refresh(parts[0]);
    for pair in parts[1..].chunks(2) {
        let [name, body] = pair else { break };
        let mut parsed = Section::new(name, &top.sep, false);
        parsed.refresh(body);
        // Salt copies the parsed section into one made with the file's
        // separator and spacing (`update` of a mapping).
        let mut sect = Section::new(name, &top.sep, top.no_spaces);
        sect.update_items(parsed.items.into_iter().collect())?;
        top.update_items(vec![(name.to_string(), Item::Section(sect))])?;
    }
    Ok(top)
}

/// Salt's `_Ini.flush`: the whole file written anew.
pub fn flush(top: &Section, f: &Format) -> Result<(), IniError> {
    let mut out = Vec::new();
    top.gen_ini(&mut out);
    let mut lines: Vec<String> = out.into_iter().skip(1).collect();
    if let Some(first) = lines.first_mut() {
        *first = first.trim_start_matches('\n').to_string();
    }
    let text = lines.concat();
    let enc = f.encoding.as_deref().unwrap_or("utf-8").to_lowercase();
    let bytes: Vec<u8> = if enc.starts_with("latin") || enc.starts_with("iso") {
        text.chars()
            .map(|c| u8::try_from(u32::from(c)).unwrap_or(b'?'))
            .collect()
    } else {
        text.into_bytes()
    };
    std::fs::write(&top.name, bytes).map_err(|e| IniError::Write {
        path: top.name.clone(),
        err: super::super::file::fsutil::py_os_error(&e, Path::new(&top.name)),
    })
}

/// Salt's `ini.set_option`: the entries of `sections` set, the file
/// written (also when nothing changed), the changes made.
pub fn set_option(path: &str, sections: &Map, f: &Format) -> Result<Map, IniError> {
    let mut ini = load(path, f, false)?;
    let changes = ini.update(sections)?;
    flush(&ini, f)?;
    Ok(changes)
}

/// Salt's `ini.remove_option`: `option` of `section` (of the top when
/// `section` names no section) removed and the file written; its value.
pub fn remove_option(
    path: &str,
    section: Option<&str>,
    option: &str,
    f: &Format,
) -> Result<Option<Value>, IniError> {
    let mut ini = load(path, f, false)?;
    let removed = match section.and_then(|s| ini.section_mut(s)) {
        Some(sect) => sect.remove(option),
        None => ini.remove(option),
    };
    flush(&ini, f)?;
    Ok(removed.map(|i| item_plain(&i)))
}

/// Salt's `ini.remove_section`: the section (or top-level option) `name`
/// removed, the file written; its entries without comments, `None` when
/// there was no such entry.
pub fn remove_section(path: &str, name: &str, f: &Format) -> Result<Option<Map>, IniError> {
    let mut ini = load(path, f, false)?;
    let Some(item) = ini.remove(name) else {
        return Ok(None);
    };
    flush(&ini, f)?;
    match item {
        Item::Section(s) => Ok(Some(s.as_value())),
        Item::Text(_) => Err(IniError::Python(
            "AttributeError: 'str' object has no attribute 'items'".into(),
        )),
    }
}
