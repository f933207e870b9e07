//! What PyYAML's `safe_dump` writes, for Salt's `yaml`, `yaml_encode`,
//! `yaml_dquote`, `yaml_squote` and `dict_to_sls_yaml_params` filters:
//! the same scalar styles (plain when it reads back as the same string,
//! else single quotes, else double quotes), flow or block collections, and
//! line folding at 80 columns.
//!
//! The emitter follows PyYAML's state machine (indent stack, `whitespace`
//! and `indention` flags, column counting) so wrapped output matches.

use super::convert::{self, is_ordered_map, is_tuple, map_pairs, seq_items};
use minijinja::value::{Value as MjValue, ValueKind};
use regex::Regex;
use std::sync::OnceLock;

/// A representation node: scalars carry their text and whether PyYAML's
/// resolver would read that text back as the same type when written plain.
enum Node {
    Scalar { text: String, implicit: bool },
    Seq(Vec<Node>),
    Map(Vec<(Node, Node)>),
}

#[derive(Debug, thiserror::Error)]
#[error("cannot represent {0} as YAML")]
pub(crate) struct NotRepresentable(pub String);

/// `safe_dump(value, default_flow_style=flow)`, stripped of surrounding
/// whitespace and of the `...` document end marker, as Salt's `yaml` filter
/// returns it.
pub(crate) fn dump(v: &MjValue, flow: bool) -> Result<String, NotRepresentable> {
    let node = represent(v, 0)?;
    let mut e = Emitter::new(80);
    e.expect_node(
        &node,
        Ctx {
            root: true,
            ..Ctx::default()
        },
        flow,
    );
    let text = e.out.trim();
    let text = text.strip_suffix("\n...").unwrap_or(text);
    Ok(text.to_string())
}

/// PyYAML's `SafeRepresenter` with Salt's `SafeOrderedDumper` additions:
/// plain dicts sorted by key, `OrderedDict`s in order, unknown types
/// (tuples among them) as `NULL`.
fn represent(v: &MjValue, depth: usize) -> Result<Node, NotRepresentable> {
    if depth > super::convert::MAX_DEPTH {
        return Err(NotRepresentable("a self-containing value".into()));
    }
    Ok(match v.kind() {
        ValueKind::None | ValueKind::Undefined => scalar("null", true),
        ValueKind::Bool => scalar(if v.is_true() { "true" } else { "false" }, true),
        ValueKind::Number => scalar(&number_text(v), true),
        ValueKind::String => {
            let s = v.as_str().unwrap_or_default();
            scalar(s, resolves_to_str(s))
        }
        ValueKind::Seq | ValueKind::Iterable if is_tuple(v) => scalar("NULL", true),
        ValueKind::Seq | ValueKind::Iterable => Node::Seq(
            seq_items(v)
                .iter()
                .map(|x| represent(x, depth + 1))
                .collect::<Result<_, _>>()?,
        ),
        ValueKind::Map => {
            let mut pairs = map_pairs(v);
            if !is_ordered_map(v) {
                pairs.sort_by(|a, b| a.0.cmp(&b.0));
            }
            Node::Map(
                pairs
                    .iter()
                    .map(|(k, x)| Ok((represent(k, depth + 1)?, represent(x, depth + 1)?)))
                    .collect::<Result<_, NotRepresentable>>()?,
            )
        }
        _ => return Err(NotRepresentable(convert::py_repr(v))),
    })
}

fn scalar(text: &str, implicit: bool) -> Node {
    Node::Scalar {
        text: text.to_string(),
        implicit,
    }
}

/// PyYAML's float/int text: `repr()` lowercased, `.0` forced before an
/// exponent, `.nan`/`.inf`.
fn number_text(v: &MjValue) -> String {
    if v.is_integer() {
        return v.to_string();
    }
    let f = f64::try_from(v.clone()).unwrap_or(f64::NAN);
    if f.is_nan() {
        return ".nan".into();
    }
    if f.is_infinite() {
        return if f > 0.0 {
            ".inf".into()
        } else {
            "-.inf".into()
        };
    }
    let r = brine_core::value::python_float_repr(f).to_lowercase();
    if !r.contains('.') && r.contains('e') {
        r.replacen('e', ".0e", 1)
    } else {
        r
    }
}

struct Resolvers {
    bool_: Regex,
    float: Regex,
    int: Regex,
    null: Regex,
    timestamp: Regex,
}

fn resolvers() -> &'static Resolvers {
    static R: OnceLock<Resolvers> = OnceLock::new();
    R.get_or_init(|| {
        // The patterns are constant and valid; a failure here is a bug.
        let re = |p: &str| Regex::new(p).unwrap_or_else(|e| panic!("bad resolver regex: {e}"));
        Resolvers {
            bool_: re(r"^(?:yes|Yes|YES|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF)$"),
            float: re(r"^(?:[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+][0-9]+)?|\.[0-9][0-9_]*(?:[eE][-+][0-9]+)?|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$"),
            int: re(r"^(?:[-+]?0b[0-1_]+|[-+]?0[0-7_]+|[-+]?(?:0|[1-9][0-9_]*)|[-+]?0x[0-9a-fA-F_]+|[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+)$"),
            null: re(r"^(?:~|null|Null|NULL|)$"),
            timestamp: re(r"^(?:[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]|[0-9][0-9][0-9][0-9]-[0-9][0-9]?-[0-9][0-9]?(?:[Tt]|[ \t]+)[0-9][0-9]?:[0-9][0-9]:[0-9][0-9](?:\.[0-9]*)?(?:[ \t]*(?:Z|[-+][0-9][0-9]?(?::[0-9][0-9])?))?)$"),
        }
    })
}

/// Would PyYAML's resolver read `s`, written plain, back as a string?
/// Python's `$` also matches before one final newline; such strings are
/// never written plain, so the difference does not matter.
pub(crate) fn resolves_to_str(s: &str) -> bool {
    let r = resolvers();
    let Some(first) = s.chars().next() else {
        return false; // '' is null
    };
    let hit = match first {
        'y' | 'Y' | 'n' | 'N' | 't' | 'T' | 'f' | 'F' | 'o' | 'O' => {
            r.bool_.is_match(s) || (matches!(first, 'n' | 'N') && r.null.is_match(s))
        }
        '-' | '+' => r.float.is_match(s) || r.int.is_match(s),
        '.' => r.float.is_match(s),
        '0'..='9' => r.float.is_match(s) || r.int.is_match(s) || r.timestamp.is_match(s),
        '<' => s == "<<",
        '~' => s == "~",
        '=' => s == "=",
        _ => false,
    };
    !hit
}

#[derive(Default)]
struct Analysis {
    empty: bool,
    multiline: bool,
    allow_flow_plain: bool,
    allow_block_plain: bool,
    allow_single_quoted: bool,
}

fn is_break(c: char) -> bool {
    matches!(c, '\n' | '\u{85}' | '\u{2028}' | '\u{2029}')
}

fn is_space_or_break(c: char) -> bool {
    matches!(
        c,
        '\0' | ' ' | '\t' | '\r' | '\n' | '\u{85}' | '\u{2028}' | '\u{2029}'
    )
}

/// PyYAML `Emitter.analyze_scalar` (with `allow_unicode=True`, as Salt dumps).
fn analyze(s: &str) -> Analysis {
    if s.is_empty() {
        return Analysis {
            empty: true,
            multiline: false,
            allow_flow_plain: false,
            allow_block_plain: true,
            allow_single_quoted: true,
        };
    }
    let chars: Vec<char> = s.chars().collect();
    let n = chars.len();
    let mut block_ind = s.starts_with("---") || s.starts_with("...");
    let mut flow_ind = block_ind;
    let (mut line_breaks, mut special) = (false, false);
    let (mut lead_space, mut lead_break, mut trail_space, mut trail_break) =
        (false, false, false, false);
    let (mut break_space, mut space_break) = (false, false);
    let mut preceded_ws = true;
    let mut followed_ws = n == 1 || chars.get(1).copied().is_some_and(is_space_or_break);
    let (mut prev_space, mut prev_break) = (false, false);
    for (i, &c) in chars.iter().enumerate() {
        if i == 0 {
            if "#,[]{}&*!|>'\"%@`".contains(c) {
                flow_ind = true;
                block_ind = true;
            }
            if c == '?' || c == ':' {
                flow_ind = true;
                if followed_ws {
                    block_ind = true;
                }
            }
            if c == '-' && followed_ws {
                flow_ind = true;
                block_ind = true;
            }
        } else {
            if ",?[]{}".contains(c) {
                flow_ind = true;
            }
            if c == ':' {
                flow_ind = true;
                if followed_ws {
                    block_ind = true;
                }
            }
            if c == '#' && preceded_ws {
                flow_ind = true;
                block_ind = true;
            }
        }
        if is_break(c) {
            line_breaks = true;
        }
        if !(c == '\n' || ('\x20'..='\x7e').contains(&c)) {
            let printable_unicode = (c == '\u{85}'
                || ('\u{a0}'..='\u{d7ff}').contains(&c)
                || ('\u{e000}'..='\u{fffd}').contains(&c)
                || ('\u{10000}'..'\u{10ffff}').contains(&c))
                && c != '\u{feff}';
            if !printable_unicode {
                special = true;
            }
        }
        if c == ' ' {
            if i == 0 {
                lead_space = true;
            }
            if i == n - 1 {
                trail_space = true;
            }
            if prev_break {
                break_space = true;
            }
            prev_space = true;
            prev_break = false;
        } else if is_break(c) {
            if i == 0 {
                lead_break = true;
            }
            if i == n - 1 {
                trail_break = true;
            }
            if prev_space {
                space_break = true;
            }
            prev_space = false;
            prev_break = true;
        } else {
            prev_space = false;
            prev_break = false;
        }
        preceded_ws = is_space_or_break(c);
        followed_ws = i + 2 >= n || chars.get(i + 2).copied().is_some_and(is_space_or_break);
    }
    let mut a = Analysis {
        empty: false,
        multiline: line_breaks,
        allow_flow_plain: true,
        allow_block_plain: true,
        allow_single_quoted: true,
    };
    if lead_space || lead_break || trail_space || trail_break {
        a.allow_flow_plain = false;
        a.allow_block_plain = false;
    }
    if break_space {
        a.allow_flow_plain = false;
        a.allow_block_plain = false;
        a.allow_single_quoted = false;
    }
    if space_break || special {
        a.allow_flow_plain = false;
        a.allow_block_plain = false;
        a.allow_single_quoted = false;
    }
    if line_breaks {
        a.allow_flow_plain = false;
        a.allow_block_plain = false;
    }
    if flow_ind {
        a.allow_flow_plain = false;
    }
    if block_ind {
        a.allow_block_plain = false;
    }
    a
}

#[derive(Default, Clone, Copy)]
struct Ctx {
    root: bool,
    mapping: bool,
    simple_key: bool,
}

struct Emitter {
    out: String,
    best_width: usize,
    column: usize,
    whitespace: bool,
    indention: bool,
    indent: Option<usize>,
    indents: Vec<Option<usize>>,
    flow_level: usize,
}

const BEST_INDENT: usize = 2;

impl Emitter {
    fn new(width: usize) -> Emitter {
        Emitter {
            out: String::new(),
            best_width: width,
            column: 0,
            whitespace: true,
            indention: true,
            indent: None,
            indents: Vec::new(),
            flow_level: 0,
        }
    }

    fn write(&mut self, s: &str) {
        self.column += s.chars().count();
        self.out.push_str(s);
    }

    fn increase_indent(&mut self, flow: bool, indentless: bool) {
        self.indents.push(self.indent);
        self.indent = match self.indent {
            None => Some(if flow { BEST_INDENT } else { 0 }),
            Some(i) if !indentless => Some(i + BEST_INDENT),
            Some(i) => Some(i),
        };
    }

    fn pop_indent(&mut self) {
        self.indent = self.indents.pop().flatten();
    }

    fn write_indicator(&mut self, ind: &str, need_ws: bool, whitespace: bool, indention: bool) {
        if !self.whitespace && need_ws {
            self.write(" ");
        }
        self.write(ind);
        self.whitespace = whitespace;
        self.indention = self.indention && indention;
    }

    fn write_indent(&mut self) {
        let indent = self.indent.unwrap_or(0);
        if !self.indention || self.column > indent || (self.column == indent && !self.whitespace) {
            self.write_line_break(None);
        }
        if self.column < indent {
            self.whitespace = true;
            let pad = " ".repeat(indent - self.column);
            self.write(&pad);
        }
    }

    fn write_line_break(&mut self, br: Option<char>) {
        self.whitespace = true;
        self.indention = true;
        self.out.push(br.unwrap_or('\n'));
        self.column = 0;
    }

    fn expect_node(&mut self, node: &Node, ctx: Ctx, flow: bool) {
        match node {
            Node::Scalar { text, implicit } => {
                self.increase_indent(true, false);
                self.process_scalar(text, *implicit, ctx);
                self.pop_indent();
            }
            Node::Seq(items) => {
                if self.flow_level > 0 || flow || items.is_empty() {
                    self.flow_sequence(items, flow);
                } else {
                    self.block_sequence(items, ctx, flow);
                }
            }
            Node::Map(pairs) => {
                if self.flow_level > 0 || flow || pairs.is_empty() {
                    self.flow_mapping(pairs, flow);
                } else {
                    self.block_mapping(pairs, flow);
                }
            }
        }
    }

    fn flow_sequence(&mut self, items: &[Node], flow: bool) {
        self.write_indicator("[", true, true, false);
        self.flow_level += 1;
        self.increase_indent(true, false);
        for (i, item) in items.iter().enumerate() {
            if i > 0 {
                self.write_indicator(",", false, false, false);
            }
            if self.column > self.best_width {
                self.write_indent();
            }
            self.expect_node(item, Ctx::default(), flow);
        }
        self.pop_indent();
        self.flow_level -= 1;
        self.write_indicator("]", false, false, false);
    }

    fn flow_mapping(&mut self, pairs: &[(Node, Node)], flow: bool) {
        self.write_indicator("{", true, true, false);
        self.flow_level += 1;
        self.increase_indent(true, false);
        let as_key = Ctx {
            mapping: true,
            simple_key: true,
            ..Ctx::default()
        };
        let as_value = Ctx {
            mapping: true,
            ..Ctx::default()
        };
        for (i, (k, v)) in pairs.iter().enumerate() {
            if i > 0 {
                self.write_indicator(",", false, false, false);
            }
            if self.column > self.best_width {
                self.write_indent();
            }
            if is_simple_key(k) {
                self.expect_node(k, as_key, flow);
                self.write_indicator(":", false, false, false);
            } else {
                self.write_indicator("?", true, false, false);
                self.expect_node(k, as_value, flow);
                if self.column > self.best_width {
                    self.write_indent();
                }
                self.write_indicator(":", true, false, false);
            }
            self.expect_node(v, as_value, flow);
        }
        self.pop_indent();
        self.flow_level -= 1;
        self.write_indicator("}", false, false, false);
    }

    fn block_sequence(&mut self, items: &[Node], ctx: Ctx, flow: bool) {
        let indentless = ctx.mapping && !self.indention;
        self.increase_indent(false, indentless);
        for item in items {
            self.write_indent();
            self.write_indicator("-", true, false, true);
            self.expect_node(item, Ctx::default(), flow);
        }
        self.pop_indent();
    }

    fn block_mapping(&mut self, pairs: &[(Node, Node)], flow: bool) {
        self.increase_indent(false, false);
        let as_key = Ctx {
            mapping: true,
            simple_key: true,
            ..Ctx::default()
        };
        let as_value = Ctx {
            mapping: true,
            ..Ctx::default()
        };
        for (k, v) in pairs {
            self.write_indent();
            if is_simple_key(k) {
                self.expect_node(k, as_key, flow);
                self.write_indicator(":", false, false, false);
            } else {
                self.write_indicator("?", true, false, true);
                self.expect_node(k, as_value, flow);
                self.write_indent();
                self.write_indicator(":", true, false, true);
            }
            self.expect_node(v, as_value, flow);
        }
        self.pop_indent();
    }

    fn process_scalar(&mut self, text: &str, implicit: bool, ctx: Ctx) {
        let a = analyze(text);
        let split = !ctx.simple_key;
        let plain_ok = implicit
            && !(ctx.simple_key && (a.empty || a.multiline))
            && ((self.flow_level > 0 && a.allow_flow_plain)
                || (self.flow_level == 0 && a.allow_block_plain));
        if plain_ok {
            self.write_plain(text, split);
        } else if a.allow_single_quoted && !(ctx.simple_key && a.multiline) {
            self.write_single_quoted(text, split);
        } else {
            self.write_double_quoted(text, split);
        }
        let _ = ctx.root;
    }

    fn write_plain(&mut self, text: &str, split: bool) {
        if text.is_empty() {
            return;
        }
        if !self.whitespace {
            self.write(" ");
        }
        self.whitespace = false;
        self.indention = false;
        let chars: Vec<char> = text.chars().collect();
        let (mut spaces, mut breaks) = (false, false);
        let mut start = 0;
        for end in 0..=chars.len() {
            let ch = chars.get(end).copied();
            if spaces {
                if ch != Some(' ') {
                    if start + 1 == end && self.column > self.best_width && split {
                        self.write_indent();
                        self.whitespace = false;
                        self.indention = false;
                    } else {
                        self.write(&collect(&chars[start..end]));
                    }
                    start = end;
                }
            } else if breaks {
                if !ch.is_some_and(is_break) {
                    self.write_breaks(&chars[start..end]);
                    self.write_indent();
                    self.whitespace = false;
                    self.indention = false;
                    start = end;
                }
            } else if ch.is_none_or(|c| c == ' ' || is_break(c)) {
                self.write(&collect(&chars[start..end]));
                start = end;
            }
            if let Some(c) = ch {
                spaces = c == ' ';
                breaks = is_break(c);
            }
        }
    }

    fn write_breaks(&mut self, brs: &[char]) {
        if brs.first() == Some(&'\n') {
            self.write_line_break(None);
        }
        for &br in brs {
            self.write_line_break(if br == '\n' { None } else { Some(br) });
        }
    }

    fn write_single_quoted(&mut self, text: &str, split: bool) {
        self.write_indicator("'", true, false, false);
        let chars: Vec<char> = text.chars().collect();
        let n = chars.len();
        let (mut spaces, mut breaks) = (false, false);
        let mut start = 0;
        for end in 0..=n {
            let ch = chars.get(end).copied();
            if spaces {
                if ch != Some(' ') {
                    if start + 1 == end
                        && self.column > self.best_width
                        && split
                        && start != 0
                        && end != n
                    {
                        self.write_indent();
                    } else {
                        self.write(&collect(&chars[start..end]));
                    }
                    start = end;
                }
            } else if breaks {
                if !ch.is_some_and(is_break) {
                    self.write_breaks(&chars[start..end]);
                    self.write_indent();
                    start = end;
                }
            } else if ch.is_none_or(|c| c == ' ' || c == '\'' || is_break(c)) && start < end {
                self.write(&collect(&chars[start..end]));
                start = end;
            }
            if ch == Some('\'') {
                self.write("''");
                start = end + 1;
            }
            if let Some(c) = ch {
                spaces = c == ' ';
                breaks = is_break(c);
            }
        }
        self.write_indicator("'", false, false, false);
    }

    fn write_double_quoted(&mut self, text: &str, split: bool) {
        self.write_indicator("\"", true, false, false);
        let chars: Vec<char> = text.chars().collect();
        let n = chars.len();
        let mut start = 0;
        for end in 0..=n {
            let ch = chars.get(end).copied();
            let needs_escape = match ch {
                None => true,
                Some(c) => {
                    matches!(
                        c,
                        '"' | '\\' | '\u{85}' | '\u{2028}' | '\u{2029}' | '\u{feff}'
                    ) || !(('\x20'..='\x7e').contains(&c)
                        || ('\u{a0}'..='\u{d7ff}').contains(&c)
                        || ('\u{e000}'..='\u{fffd}').contains(&c))
                }
            };
            if needs_escape {
                if start < end {
                    self.write(&collect(&chars[start..end]));
                    start = end;
                }
                if let Some(c) = ch {
                    let esc = match c {
                        '\0' => "\\0".to_string(),
                        '\x07' => "\\a".to_string(),
                        '\x08' => "\\b".to_string(),
                        '\t' => "\\t".to_string(),
                        '\n' => "\\n".to_string(),
                        '\x0b' => "\\v".to_string(),
                        '\x0c' => "\\f".to_string(),
                        '\r' => "\\r".to_string(),
                        '\x1b' => "\\e".to_string(),
                        '"' => "\\\"".to_string(),
                        '\\' => "\\\\".to_string(),
                        '\u{85}' => "\\N".to_string(),
                        '\u{a0}' => "\\_".to_string(),
                        '\u{2028}' => "\\L".to_string(),
                        '\u{2029}' => "\\P".to_string(),
                        c if (c as u32) <= 0xff => format!("\\x{:02X}", c as u32),
                        c if (c as u32) <= 0xffff => format!("\\u{:04X}", c as u32),
                        c => format!("\\U{:08X}", c as u32),
                    };
                    self.write(&esc);
                    start = end + 1;
                }
            }
            if 0 < end
                && end + 1 < n
                && (ch == Some(' ') || start >= end)
                && self.column + end.saturating_sub(start) > self.best_width
                && split
            {
                let mut data = collect(&chars[start.min(end)..end]);
                data.push('\\');
                if start < end {
                    start = end;
                }
                self.write(&data);
                self.write_indent();
                self.whitespace = false;
                self.indention = false;
                if chars.get(start) == Some(&' ') {
                    self.write("\\");
                }
            }
        }
        self.write_indicator("\"", false, false, false);
    }
}

fn collect(cs: &[char]) -> String {
    cs.iter().collect()
}

/// PyYAML `check_simple_key` for scalar keys: short and single-line.
fn is_simple_key(k: &Node) -> bool {
    match k {
        Node::Scalar { text, .. } => {
            let a = analyze(text);
            text.chars().count() < 128 && !a.empty && !a.multiline
        }
        Node::Seq(items) => items.is_empty(),
        Node::Map(pairs) => pairs.is_empty(),
    }
}

/// `yaml_dquote`: `text` as a double-quoted YAML scalar, never folded.
pub(crate) fn dquote(text: &str) -> String {
    let mut e = Emitter::new(usize::MAX);
    e.write_double_quoted(text, true);
    e.out
}

/// `yaml_squote`: `text` as a single-quoted YAML scalar, never folded.
pub(crate) fn squote(text: &str) -> String {
    let mut e = Emitter::new(usize::MAX);
    e.write_single_quoted(text, true);
    e.out
}

/// `yaml_encode`: a scalar as YAML text; strings always double-quoted.
pub(crate) fn encode(v: &MjValue) -> Result<String, String> {
    match represent(v, 0) {
        Ok(Node::Scalar { text, .. }) => Ok(if v.kind() == ValueKind::String {
            dquote(&text)
        } else {
            text
        }),
        _ => Err(format!(
            "yaml_encode() only works with YAML scalar data; failed for <class '{}'>",
            py_type(v)
        )),
    }
}

pub(crate) fn py_type(v: &MjValue) -> &'static str {
    match v.kind() {
        ValueKind::None | ValueKind::Undefined => "NoneType",
        ValueKind::Bool => "bool",
        ValueKind::Number if v.is_integer() => "int",
        ValueKind::Number => "float",
        ValueKind::String => "str",
        ValueKind::Seq if is_tuple(v) => "tuple",
        ValueKind::Seq | ValueKind::Iterable => "list",
        ValueKind::Map => "dict",
        _ => "object",
    }
}

/// The two YAML emitters side by side: this one (PyYAML's pure-Python
/// emitter, which Salt's Jinja filters reach) and brine-core's (libyaml's,
/// through CSafeDumper, which the outputters reach). They are two of Salt's
/// code paths, so both exist; this pins where they differ, so that merging
/// them into one state machine with a flavour switch (the architecture
/// issue's goal) has a checked list: everything else must agree.
#[cfg(test)]
mod emitter_compare {
    use super::*;
    use brine_core::Value;

    fn both(v: &Value, flow: bool) -> (String, String) {
        (
            brine_core::yaml::format_yaml(v, flow),
            dump(&convert::to_jinja(v, false), flow).unwrap(),
        )
    }

    #[test]
    fn the_two_emitters_agree_but_where_libyaml_and_pyyaml_differ() {
        let strings = [
            "plain",
            "with space",
            "a: b",
            "a:b",
            "- x",
            "#c",
            "a #c",
            "x#",
            "'q'",
            "\"dq\"",
            "multi\nline",
            "multi\nline\n",
            " lead",
            "trail ",
            "true",
            "yes",
            "null",
            "~",
            "1",
            "1.5",
            "0644",
            "2024-01-01",
            "é",
            "日本語",
            "tab\there",
            "ctl\u{7}",
            "---",
            "...",
            "?",
            ":",
            "[x]",
            "{x}",
            "a,b",
            "@at",
            "`bt",
            "%p",
            "!t",
            "&a",
            "*a",
            "|",
            ">",
            "x\n\ny",
            "  two lead",
            "trail\n ",
            "back\\slash",
            "line one line two line three line four line five line six line seven line eight",
            "averyveryveryveryveryveryveryveryveryveryveryveryveryveryveryveryverylongword",
        ];
        let mut values = Vec::new();
        for s in strings {
            values.push(Value::Str(s.into()));
            let mut m = brine_core::Map::new();
            m.insert(s.into(), Value::Str(s.into()));
            m.insert(
                "zz".into(),
                Value::List(vec![Value::Str(s.into()), Value::Int(1)]),
            );
            values.push(Value::Map(m));
        }
        let long: Vec<Value> = (0..30)
            .map(|i| Value::Str(format!("item-number-{i}")))
            .collect();
        let mut m = brine_core::Map::new();
        m.insert("key".into(), Value::List(long.clone()));
        m.insert("f".into(), Value::Float(1e17));
        m.insert("n".into(), Value::Null);
        m.insert("b".into(), Value::Bool(true));
        m.insert("e".into(), Value::List(vec![]));
        m.insert("em".into(), Value::new_map());
        values.push(Value::List(long));
        values.push(Value::Map(m));
        for v in &values {
            for flow in [false, true] {
                let (core, jinja) = both(v, flow);
                assert_eq!(core, jinja, "flow={flow} {:?}", v.to_json());
            }
        }
        // Where they differ, as the two Salt paths do. An empty key: libyaml
        // writes it as a simple key, PyYAML as a complex one.
        let mut m = brine_core::Map::new();
        m.insert(String::new(), Value::Str(String::new()));
        assert_eq!(
            both(&Value::Map(m), false),
            ("'': ''".into(), "? ''\n: ''".into())
        );
        // Beyond U+FFFF: not printable to libyaml.
        let emoji = Value::Str("emoji 😀".into());
        assert_eq!(
            both(&emoji, false),
            ("\"emoji \\U0001F600\"".into(), "emoji 😀".into())
        );
        // NEL: a line break to PyYAML.
        let (core, jinja) = both(&Value::Str("\u{85}nel".into()), false);
        assert_ne!(core, jinja);
    }
}
