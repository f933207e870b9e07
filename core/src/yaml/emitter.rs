//! Emitter: what `salt.utils.yaml.safe_dump` writes (PyYAML representers,
//! libyaml emitter, allow_unicode=True, indent 2, width 80), and the Jinja
//! helpers built on it (`salt/utils/jinja.py`, `salt/utils/yamlencoding.py`).

use super::resolver::*;
use crate::value::python_float_repr;
use crate::Value;
use std::borrow::Cow;

/// How [`dump_with`] writes a value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DumpOptions {
    /// Collections in flow style (`{a: [1, 2]}`) rather than block style
    /// (PyYAML's `default_flow_style`).
    pub flow_style: bool,
    /// Mapping keys in sorted order, as PyYAML writes a plain `dict`
    /// (`sort_keys=True`, the default). Salt hands the outputter plain dicts
    /// for pillar and most returns, so this is what `--out yaml` shows.
    pub sort_keys: bool,
}

impl Default for DumpOptions {
    fn default() -> Self {
        DumpOptions {
            flow_style: false,
            sort_keys: true,
        }
    }
}

/// A representation node: what PyYAML's representer hands the emitter.
/// Scalars carry their text and whether that text may be written plain
/// (written plain, it reads back as the same type).
#[derive(Debug, Clone, PartialEq)]
pub enum DumpNode<'a> {
    Scalar { text: Cow<'a, str>, plain: bool },
    Seq(Vec<DumpNode<'a>>),
    Map(Vec<(DumpNode<'a>, DumpNode<'a>)>),
}

impl<'a> DumpNode<'a> {
    /// A string scalar: plain only where PyYAML's resolver reads it back
    /// as a string.
    pub fn str(text: impl Into<Cow<'a, str>>) -> DumpNode<'a> {
        let text = text.into();
        let plain = plain_is_str(&text);
        DumpNode::Scalar { text, plain }
    }

    /// A scalar of another type (`null`, `true`, `1.5`): its text is
    /// written plain.
    pub fn typed(text: impl Into<Cow<'a, str>>) -> DumpNode<'a> {
        DumpNode::Scalar {
            text: text.into(),
            plain: true,
        }
    }

    /// PyYAML's `SafeRepresenter` on a brine value; `sort_keys` as a plain
    /// `dict` is written, else the map's own order.
    pub fn represent(value: &'a Value, sort_keys: bool) -> DumpNode<'a> {
        match value {
            Value::List(items) => DumpNode::Seq(
                items
                    .iter()
                    .map(|v| DumpNode::represent(v, sort_keys))
                    .collect(),
            ),
            Value::Map(map) => {
                let mut entries: Vec<(&String, &Value)> = map.iter().collect();
                if sort_keys {
                    entries.sort_by(|a, b| a.0.cmp(b.0));
                }
                DumpNode::Map(
                    entries
                        .into_iter()
                        .map(|(k, v)| {
                            (DumpNode::str(k.as_str()), DumpNode::represent(v, sort_keys))
                        })
                        .collect(),
                )
            }
            scalar => match scalar_text(scalar) {
                Some((text, plain)) => DumpNode::Scalar { text, plain },
                None => DumpNode::typed("null"),
            },
        }
    }
}

/// libyaml's `IS_PRINTABLE` (note: no characters beyond U+FFFF, so emoji
/// force double quotes).
pub(super) fn is_printable(c: char) -> bool {
    matches!(c as u32, 0x0A | 0x20..=0x7E | 0xA0..=0xD7FF | 0xE000..=0xFFFD) && c != '\u{FEFF}'
}

pub(super) fn is_break(c: char) -> bool {
    matches!(c, '\r' | '\n' | '\u{85}' | '\u{2028}' | '\u{2029}')
}

pub(super) fn is_blankz(c: Option<char>) -> bool {
    match c {
        None | Some('\0') | Some(' ') | Some('\t') => true,
        Some(c) => is_break(c),
    }
}

/// libyaml's `yaml_emitter_analyze_scalar`: which styles can hold `text`.
#[derive(Debug, Clone, Copy)]
pub(super) struct Analysis {
    pub(super) empty: bool,
    pub(super) multiline: bool,
    pub(super) flow_plain: bool,
    pub(super) block_plain: bool,
    pub(super) single_quoted: bool,
}

pub(super) fn analyze_scalar(text: &str) -> Analysis {
    if text.is_empty() {
        return Analysis {
            empty: true,
            multiline: false,
            flow_plain: false,
            block_plain: true,
            single_quoted: true,
        };
    }
    let mut block_indicators = text.starts_with("---") || text.starts_with("...");
    let mut flow_indicators = block_indicators;
    let (mut line_breaks, mut special) = (false, false);
    let (mut leading_space, mut leading_break, mut trailing_space, mut trailing_break) =
        (false, false, false, false);
    let (mut break_space, mut space_break) = (false, false);
    let (mut previous_space, mut previous_break) = (false, false);
    let mut preceded_by_whitespace = true;
    let mut chars = text.chars().peekable();
    let mut first = true;
    while let Some(c) = chars.next() {
        let next = chars.peek().copied();
        let followed_by_whitespace = is_blankz(next);
        let last = next.is_none();
        if first {
            if "#,[]{}&*!|>'\"%@`".contains(c) {
                flow_indicators = true;
                block_indicators = true;
            }
            if c == '?' || c == ':' {
                flow_indicators = true;
                if followed_by_whitespace {
                    block_indicators = true;
                }
            }
            if c == '-' && followed_by_whitespace {
                flow_indicators = true;
                block_indicators = true;
            }
        } else {
            if ",?[]{}".contains(c) {
                flow_indicators = true;
            }
            if c == ':' {
                flow_indicators = true;
                if followed_by_whitespace {
                    block_indicators = true;
                }
            }
            if c == '#' && preceded_by_whitespace {
                flow_indicators = true;
                block_indicators = true;
            }
        }
        if !is_printable(c) {
            special = true;
        }
        if is_break(c) {
            line_breaks = true;
        }
        if c == ' ' {
            leading_space |= first;
            trailing_space |= last;
            break_space |= previous_break;
            previous_space = true;
            previous_break = false;
        } else if is_break(c) {
            leading_break |= first;
            trailing_break |= last;
            space_break |= previous_space;
            previous_space = false;
            previous_break = true;
        } else {
            previous_space = false;
            previous_break = false;
        }
        preceded_by_whitespace = is_blankz(Some(c));
        first = false;
    }
    let mut a = Analysis {
        empty: false,
        multiline: line_breaks,
        flow_plain: true,
        block_plain: true,
        single_quoted: true,
    };
    if leading_space || leading_break || trailing_space || trailing_break {
        a.flow_plain = false;
        a.block_plain = false;
    }
    if break_space {
        a.flow_plain = false;
        a.block_plain = false;
        a.single_quoted = false;
    }
    if space_break || special {
        a.flow_plain = false;
        a.block_plain = false;
        a.single_quoted = false;
    }
    if line_breaks {
        a.flow_plain = false;
        a.block_plain = false;
    }
    if flow_indicators {
        a.flow_plain = false;
    }
    if block_indicators {
        a.block_plain = false;
    }
    a
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Style {
    Plain,
    Single,
    Double,
}

/// PyYAML's `represent_float`.
pub fn represent_float(f: f64) -> String {
    if f.is_nan() {
        ".nan".into()
    } else if f == f64::INFINITY {
        ".inf".into()
    } else if f == f64::NEG_INFINITY {
        "-.inf".into()
    } else {
        let r = python_float_repr(f).to_lowercase();
        // `1e+17` would not read back as a float: write `1.0e+17`.
        if !r.contains('.') && r.contains('e') {
            r.replacen('e', ".0e", 1)
        } else {
            r
        }
    }
}

/// A scalar's text and whether it may be written plain (its plain form
/// resolves back to its own type).
pub(super) fn scalar_text(v: &Value) -> Option<(Cow<'_, str>, bool)> {
    Some(match v {
        Value::Null => (Cow::Borrowed("null"), true),
        Value::Bool(true) => (Cow::Borrowed("true"), true),
        Value::Bool(false) => (Cow::Borrowed("false"), true),
        Value::Int(i) => (Cow::Owned(i.to_string()), true),
        Value::Float(f) => (Cow::Owned(represent_float(*f)), true),
        Value::Str(s) => (Cow::Borrowed(s.as_str()), plain_is_str(s)),
        Value::List(_) | Value::Map(_) => return None,
    })
}

/// Whether PyYAML's dumper resolver reads `s` written plain as a string.
pub fn plain_is_str(s: &str) -> bool {
    // `!`, `&`, `*` alone resolve to the `yaml` tag; they are indicators
    // and get quoted anyway.
    resolve_plain(s) == Kind::Str
}

pub(super) struct Emitter {
    pub(super) out: String,
    pub(super) flow_style: bool,
    pub(super) column: usize,
    pub(super) indent: isize,
    pub(super) indents: Vec<isize>,
    pub(super) flow_level: usize,
    pub(super) whitespace: bool,
    pub(super) indention: bool,
    pub(super) mapping_context: bool,
    pub(super) simple_key_context: bool,
    /// libyaml's `best_indent`: spaces per nesting level.
    pub(super) best_indent: isize,
    /// PyYAML's `default_flow_style=None`: a collection holding only
    /// scalars is written in flow style, the others in block style.
    pub(super) leaf_flow: bool,
}

pub(super) const BEST_INDENT: isize = 2;
pub(super) const BEST_WIDTH: usize = 80;

impl Emitter {
    pub(super) fn new(flow_style: bool) -> Self {
        Emitter {
            out: String::new(),
            flow_style,
            column: 0,
            indent: -1,
            indents: Vec::new(),
            flow_level: 0,
            whitespace: true,
            indention: true,
            mapping_context: false,
            simple_key_context: false,
            best_indent: BEST_INDENT,
            leaf_flow: false,
        }
    }

    pub(super) fn put(&mut self, c: char) {
        self.out.push(c);
        self.column += 1;
    }

    pub(super) fn put_break(&mut self) {
        self.out.push('\n');
        self.column = 0;
    }

    pub(super) fn write_break(&mut self, c: char) {
        if c == '\n' {
            self.put_break();
        } else {
            self.out.push(c);
            self.column = 0;
        }
    }

    pub(super) fn write_indicator(
        &mut self,
        indicator: &str,
        need_whitespace: bool,
        is_whitespace: bool,
        is_indention: bool,
    ) {
        if need_whitespace && !self.whitespace {
            self.put(' ');
        }
        for c in indicator.chars() {
            self.put(c);
        }
        self.whitespace = is_whitespace;
        self.indention = self.indention && is_indention;
    }

    pub(super) fn write_indent(&mut self) {
        let indent = self.indent.max(0) as usize;
        if !self.indention || self.column > indent || (self.column == indent && !self.whitespace) {
            self.put_break();
        }
        while self.column < indent {
            self.put(' ');
        }
        self.whitespace = true;
        self.indention = true;
    }

    pub(super) fn increase_indent(&mut self, flow: bool, indentless: bool) {
        self.indents.push(self.indent);
        if self.indent < 0 {
            self.indent = if flow { self.best_indent } else { 0 };
        } else if !indentless {
            self.indent += self.best_indent;
        }
    }

    pub(super) fn pop_indent(&mut self) {
        self.indent = self.indents.pop().unwrap_or(-1);
    }

    pub(super) fn document(mut self, node: &DumpNode<'_>) -> String {
        self.node(node, false, false);
        // The implicit document end moves to a fresh line.
        self.write_indent();
        self.out
    }

    pub(super) fn node(&mut self, node: &DumpNode<'_>, mapping: bool, simple_key: bool) {
        self.mapping_context = mapping;
        self.simple_key_context = simple_key;
        match node {
            DumpNode::Seq(items) => self.sequence(items),
            DumpNode::Map(pairs) => self.mapping(pairs),
            DumpNode::Scalar { text, plain } => self.scalar(text, *plain),
        }
    }

    pub(super) fn choose_style(&self, a: &Analysis, plain_implicit: bool) -> Style {
        let mut style = Style::Plain;
        if self.simple_key_context && a.multiline {
            style = Style::Double;
        }
        if style == Style::Plain {
            let flow = self.flow_level > 0;
            if (flow && !a.flow_plain) || (!flow && !a.block_plain) {
                style = Style::Single;
            }
            if a.empty && (flow || self.simple_key_context) {
                style = Style::Single;
            }
            if !plain_implicit {
                style = Style::Single;
            }
        }
        if style == Style::Single && !a.single_quoted {
            style = Style::Double;
        }
        style
    }

    pub(super) fn scalar(&mut self, text: &str, plain_implicit: bool) {
        let analysis = analyze_scalar(text);
        let style = self.choose_style(&analysis, plain_implicit);
        let allow_breaks = !self.simple_key_context;
        self.increase_indent(true, false);
        match style {
            Style::Plain => self.write_plain(text, allow_breaks),
            Style::Single => self.write_single_quoted(text, allow_breaks),
            Style::Double => self.write_double_quoted(text, allow_breaks),
        }
        self.pop_indent();
    }

    pub(super) fn write_plain(&mut self, text: &str, allow_breaks: bool) {
        if !self.whitespace {
            self.put(' ');
        }
        let (mut spaces, mut breaks) = (false, false);
        let mut chars = text.chars().peekable();
        while let Some(c) = chars.next() {
            let next = chars.peek().copied();
            if c == ' ' {
                if allow_breaks && !spaces && self.column > BEST_WIDTH && next != Some(' ') {
                    self.write_indent();
                } else {
                    self.put(c);
                }
                spaces = true;
            } else if is_break(c) {
                if !breaks && c == '\n' {
                    self.put_break();
                }
                self.write_break(c);
                self.indention = true;
                breaks = true;
            } else {
                if breaks {
                    self.write_indent();
                }
                self.put(c);
                self.indention = false;
                spaces = false;
                breaks = false;
            }
        }
        self.whitespace = false;
        self.indention = false;
    }

    pub(super) fn write_single_quoted(&mut self, text: &str, allow_breaks: bool) {
        self.write_indicator("'", true, false, false);
        let (mut spaces, mut breaks) = (false, false);
        let mut chars = text.chars().peekable();
        let mut first = true;
        while let Some(c) = chars.next() {
            let next = chars.peek().copied();
            if c == ' ' {
                if allow_breaks
                    && !spaces
                    && self.column > BEST_WIDTH
                    && !first
                    && next.is_some()
                    && next != Some(' ')
                {
                    self.write_indent();
                } else {
                    self.put(c);
                }
                spaces = true;
            } else if is_break(c) {
                if !breaks && c == '\n' {
                    self.put_break();
                }
                self.write_break(c);
                self.indention = true;
                breaks = true;
            } else {
                if breaks {
                    self.write_indent();
                }
                if c == '\'' {
                    self.put('\'');
                }
                self.put(c);
                self.indention = false;
                spaces = false;
                breaks = false;
            }
            first = false;
        }
        if breaks {
            self.write_indent();
        }
        self.write_indicator("'", false, false, false);
        self.whitespace = false;
        self.indention = false;
    }

    pub(super) fn write_double_quoted(&mut self, text: &str, allow_breaks: bool) {
        self.write_indicator("\"", true, false, false);
        let mut spaces = false;
        let mut chars = text.chars().peekable();
        let mut first = true;
        while let Some(c) = chars.next() {
            let next = chars.peek().copied();
            if !is_printable(c) || c == '\u{FEFF}' || is_break(c) || c == '"' || c == '\\' {
                for e in escape_char(c).chars() {
                    self.put(e);
                }
                spaces = false;
            } else if c == ' ' {
                if allow_breaks && !spaces && self.column > BEST_WIDTH && !first && next.is_some() {
                    self.write_indent();
                    if next == Some(' ') {
                        self.put('\\');
                    }
                } else {
                    self.put(c);
                }
                spaces = true;
            } else {
                self.put(c);
                spaces = false;
            }
            first = false;
        }
        self.write_indicator("\"", false, false, false);
        self.whitespace = false;
        self.indention = false;
    }

    /// libyaml's `check_simple_key`: a one-line scalar of at most 128
    /// bytes (the empty string included), or an empty collection.
    pub(super) fn simple_key(key: &DumpNode<'_>) -> bool {
        match key {
            DumpNode::Scalar { text, .. } => !analyze_scalar(text).multiline && text.len() <= 128,
            DumpNode::Seq(items) => items.is_empty(),
            DumpNode::Map(pairs) => pairs.is_empty(),
        }
    }

    pub(super) fn sequence(&mut self, items: &[DumpNode<'_>]) {
        let leaf = self.leaf_flow && items.iter().all(|i| matches!(i, DumpNode::Scalar { .. }));
        if self.flow_level > 0 || self.flow_style || leaf || items.is_empty() {
            self.write_indicator("[", true, true, false);
            self.increase_indent(true, false);
            self.flow_level += 1;
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    self.write_indicator(",", false, false, false);
                }
                if self.column > BEST_WIDTH {
                    self.write_indent();
                }
                self.node(item, false, false);
            }
            self.flow_level -= 1;
            self.pop_indent();
            self.write_indicator("]", false, false, false);
        } else {
            // Under a mapping key the dash sits at the key's own indent.
            let indentless = self.mapping_context && !self.indention;
            self.increase_indent(false, indentless);
            for item in items {
                self.write_indent();
                self.write_indicator("-", true, false, true);
                self.node(item, false, false);
            }
            self.pop_indent();
        }
    }

    pub(super) fn mapping(&mut self, pairs: &[(DumpNode<'_>, DumpNode<'_>)]) {
        let leaf = self.leaf_flow
            && pairs
                .iter()
                .all(|(_, v)| matches!(v, DumpNode::Scalar { .. }));
        if self.flow_level > 0 || self.flow_style || leaf || pairs.is_empty() {
            self.write_indicator("{", true, true, false);
            self.increase_indent(true, false);
            self.flow_level += 1;
            for (i, (k, v)) in pairs.iter().enumerate() {
                if i > 0 {
                    self.write_indicator(",", false, false, false);
                }
                if self.column > BEST_WIDTH {
                    self.write_indent();
                }
                if Self::simple_key(k) {
                    self.node(k, true, true);
                    self.write_indicator(":", false, false, false);
                } else {
                    self.write_indicator("?", true, false, false);
                    self.node(k, true, false);
                    if self.column > BEST_WIDTH {
                        self.write_indent();
                    }
                    self.write_indicator(":", true, false, false);
                }
                self.node(v, true, false);
            }
            self.flow_level -= 1;
            self.pop_indent();
            self.write_indicator("}", false, false, false);
        } else {
            self.increase_indent(false, false);
            for (k, v) in pairs {
                self.write_indent();
                if Self::simple_key(k) {
                    self.node(k, true, true);
                    self.write_indicator(":", false, false, false);
                } else {
                    self.write_indicator("?", true, false, true);
                    self.node(k, true, false);
                    self.write_indent();
                    self.write_indicator(":", true, false, true);
                }
                self.node(v, true, false);
            }
            self.pop_indent();
        }
    }
}

/// The double-quoted escape for `c` (libyaml and PyYAML agree).
pub(super) fn escape_char(c: char) -> String {
    let short = match c {
        '\0' => "0",
        '\u{07}' => "a",
        '\u{08}' => "b",
        '\t' => "t",
        '\n' => "n",
        '\u{0B}' => "v",
        '\u{0C}' => "f",
        '\r' => "r",
        '\u{1B}' => "e",
        '"' => "\"",
        '\\' => "\\",
        '\u{85}' => "N",
        '\u{A0}' => "_",
        '\u{2028}' => "L",
        '\u{2029}' => "P",
        _ => "",
    };
    if !short.is_empty() {
        return format!("\\{short}");
    }
    match c as u32 {
        n @ 0..=0xFF => format!("\\x{n:02X}"),
        n @ 0x100..=0xFFFF => format!("\\u{n:04X}"),
        n => format!("\\U{n:08X}"),
    }
}

/// Dump as block-style YAML, the way `salt-call --out yaml` prints
/// (`salt.utils.yaml.safe_dump(data, default_flow_style=False)`: keys
/// sorted, lists flush under their key, ends with a newline).
pub fn dump(value: &Value) -> String {
    dump_with(value, &DumpOptions::default())
}

/// Dump in flow style (`{a: [1, 2], b: x}`), as
/// `salt.utils.yaml.safe_dump(data, default_flow_style=True)`.
pub fn dump_flow(value: &Value) -> String {
    dump_with(
        value,
        &DumpOptions {
            flow_style: true,
            ..DumpOptions::default()
        },
    )
}

/// Dump as PyYAML's `safe_dump(data)` with `default_flow_style=None`:
/// keys sorted, a collection of scalars only in flow style (`{a: 1}`,
/// `[x, y]`), the others in block style (Salt's `_schedule.conf`).
pub fn dump_leaf_flow(value: &Value) -> String {
    let mut e = Emitter::new(false);
    e.leaf_flow = true;
    e.document(&DumpNode::represent(value, true))
}

/// Dump with explicit options; see [`DumpOptions`].
pub fn dump_with(value: &Value, opts: &DumpOptions) -> String {
    emit(&DumpNode::represent(value, opts.sort_keys), opts.flow_style)
}

/// [`dump_with`] with `indent` spaces per level (PyYAML's `indent`);
/// libyaml keeps its default of 2 for a value outside 2..=9.
pub fn dump_indented(value: &Value, opts: &DumpOptions, indent: i64) -> String {
    let mut e = Emitter::new(opts.flow_style);
    if (2..=9).contains(&indent) {
        e.best_indent = indent as isize;
    }
    e.document(&DumpNode::represent(value, opts.sort_keys))
}

/// Emit one represented document (ends with a newline, or with `...` when
/// the document is one plain scalar that needs an explicit end).
pub fn emit(node: &DumpNode<'_>, flow_style: bool) -> String {
    Emitter::new(flow_style).document(node)
}

/// Salt's Jinja `yaml` filter (`{{ data|yaml }}`, `{{ data|yaml(False) }}`)
/// on a brine value: `safe_dump` in flow style by default, surrounding
/// whitespace stripped. Salt's filter and its outputter both reach
/// libyaml's emitter (CSafeDumper), so this is the same emitter.
pub fn format_yaml(value: &Value, flow_style: bool) -> String {
    format_node(&DumpNode::represent(value, true), flow_style)
}

/// [`format_yaml`] on an already represented node (the Jinja renderer
/// represents its own values: tuples, ordered dicts).
pub fn format_node(node: &DumpNode<'_>, flow_style: bool) -> String {
    let text = emit(node, flow_style);
    let trimmed = text.trim();
    trimmed.strip_suffix("\n...").unwrap_or(trimmed).to_string()
}

/// `yaml_encode` was given a list or mapping.
#[derive(Debug, Clone, thiserror::Error)]
#[error("yaml_encode() only works with YAML scalar data; failed for <class '{type_name}'>")]
pub struct YamlEncodeError {
    pub type_name: &'static str,
}

/// Salt's Jinja `yaml_encode` filter: one scalar as YAML text (`true`,
/// `null`, `1.0e+17`, strings double-quoted by [`yaml_dquote`]).
pub fn yaml_encode(value: &Value) -> Result<String, YamlEncodeError> {
    match value {
        Value::Str(s) => Ok(yaml_dquote(s)),
        Value::List(_) | Value::Map(_) => Err(YamlEncodeError {
            type_name: value.type_name(),
        }),
        other => Ok(scalar_text(other)
            .map(|(t, _)| t.into_owned())
            .unwrap_or_default()),
    }
}

/// Salt's Jinja `yaml_dquote` filter on `text` (pass Python's `str()` of
/// the value, e.g. [`Value::to_python_str`]): a double-quoted YAML string.
/// PyYAML's pure-Python emitter without `allow_unicode`, so everything
/// outside printable ASCII is escaped (`é` → `\xE9`).
pub fn yaml_dquote(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        if ('\x20'..='\x7E').contains(&c) && c != '"' && c != '\\' {
            out.push(c);
        } else {
            out.push_str(&escape_char(c));
        }
    }
    out.push('"');
    out
}

/// Salt's Jinja `yaml_squote` filter on `text` (pass Python's `str()` of
/// the value): a single-quoted YAML string. Quotes are doubled, characters
/// are written as they are, and a line break that starts a run of breaks
/// is doubled (single-quoted scalars fold one newline into a space).
pub fn yaml_squote(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('\'');
    let mut in_breaks = false;
    for c in text.chars() {
        let brk = matches!(c, '\n' | '\u{85}' | '\u{2028}' | '\u{2029}');
        if brk && !in_breaks && c == '\n' {
            out.push('\n');
        }
        in_breaks = brk;
        if c == '\'' {
            out.push('\'');
        }
        out.push(c);
    }
    out.push('\'');
    out
}
