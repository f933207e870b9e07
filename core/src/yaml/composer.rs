//! Composer: `saphyr-parser`'s events (its scanner and parser are the
//! first two stages) composed into a node graph, anchors and aliases
//! resolved, with the YAML 1.1 spots where saphyr reads 1.2 patched.

use super::error::*;
use super::resolver::*;
use saphyr_parser::{Event, Parser, ScalarStyle, Span, Tag};
use std::borrow::Cow;
use std::collections::HashMap;

pub(super) type NodeId = usize;

#[derive(Debug)]
pub(super) enum Body<'a> {
    Scalar(Cow<'a, str>),
    Seq(Vec<NodeId>),
    Map(Vec<(NodeId, NodeId)>),
}

impl Body<'_> {
    /// PyYAML's `node.id`, used in its messages.
    pub(super) fn id(&self) -> &'static str {
        match self {
            Body::Scalar(_) => "scalar",
            Body::Seq(_) => "sequence",
            Body::Map(_) => "mapping",
        }
    }
}

#[derive(Debug)]
pub(super) struct Node<'a> {
    pub(super) body: Body<'a>,
    pub(super) kind: Kind,
    pub(super) pos: Pos,
}

pub(super) struct Document<'a> {
    pub(super) nodes: Vec<Node<'a>>,
    pub(super) root: NodeId,
}

/// An open collection while composing.
pub(super) enum Frame {
    Seq(NodeId, Vec<NodeId>),
    Map(NodeId, Vec<(NodeId, NodeId)>, Option<NodeId>),
}

pub(super) fn tag_text(tag: &Tag) -> String {
    // saphyr splits `!foo` into ("!", "foo"), `!!str` into the expanded
    // prefix and "str", a verbatim `!<x>` into ("", "x") and the
    // non-specific `!` into ("", "!"): concatenating gives the full tag.
    format!("{}{}", tag.handle, tag.suffix)
}

pub(super) fn collection_kind(tag: Option<&Tag>, default: Kind) -> Kind {
    match tag.map(tag_text) {
        None => default,
        Some(t) if t == "!" => default,
        Some(t) => Kind::from_tag(&t),
    }
}

pub(super) fn scalar_kind(value: &str, style: ScalarStyle, tag: Option<&Tag>) -> Kind {
    match tag.map(tag_text) {
        None if style == ScalarStyle::Plain => resolve_plain(value),
        None => Kind::Str,
        // libyaml treats the non-specific `!` as "resolve like a plain
        // scalar", even on quoted text; but a `!` with no content at all is
        // an empty string.
        Some(t) if t == "!" && value.is_empty() && style == ScalarStyle::Plain => Kind::Str,
        Some(t) if t == "!" => resolve_plain(value),
        Some(t) => Kind::from_tag(&t),
    }
}

/// Maps the parser's character positions to byte offsets in the text.
pub(super) struct Offsets<'a> {
    pub(super) text: &'a str,
    /// Byte offset of every character; only built for non-ASCII text, and
    /// only once a position is asked for.
    pub(super) table: Option<Vec<usize>>,
    /// Whether the text is ASCII (characters are bytes), once known: asked
    /// at every node, so scanning the text each time made composing
    /// quadratic.
    ascii: Option<bool>,
}

impl<'a> Offsets<'a> {
    pub(super) fn new(text: &'a str) -> Self {
        Offsets {
            text,
            table: None,
            ascii: None,
        }
    }

    pub(super) fn byte(&mut self, char_index: usize) -> Option<usize> {
        if self.table.is_none() {
            if *self.ascii.get_or_insert_with(|| self.text.is_ascii()) {
                return (char_index <= self.text.len()).then_some(char_index);
            }
            self.table = Some(self.text.char_indices().map(|(b, _)| b).collect());
        }
        let table = self.table.as_ref()?;
        table
            .get(char_index)
            .copied()
            .or((char_index == table.len()).then_some(self.text.len()))
    }
}

/// The anchor (or alias) name among the node properties (`&name`, `!tag`)
/// starting at byte `at`, with its byte offset. saphyr only reports anchors
/// by number, and Salt (libyaml) refuses a name defined twice.
pub(super) fn anchor_name(text: &str, at: usize, sigil: char) -> Option<(&str, usize)> {
    let mut rest = text.get(at..)?;
    loop {
        rest = rest.trim_start_matches([' ', '\t', '\r', '\n']);
        if let Some(after) = rest.strip_prefix(sigil) {
            let end = after
                .find(|c: char| c.is_whitespace() || ",[]{}".contains(c))
                .unwrap_or(after.len());
            let offset = text.len() - after.len();
            return Some((after.get(..end)?, offset));
        }
        if rest.starts_with("!<") {
            rest = rest.get(rest.find('>')? + 1..)?;
        } else if rest.starts_with('!') {
            rest = rest.get(rest.find(char::is_whitespace)?..)?;
        } else {
            return None;
        }
    }
}

pub(super) struct Composer<'a> {
    pub(super) nodes: Vec<Node<'a>>,
    pub(super) frames: Vec<Frame>,
    pub(super) anchors: HashMap<usize, NodeId>,
    pub(super) anchor_names: HashMap<&'a str, Pos>,
    pub(super) offsets: Offsets<'a>,
    pub(super) root: Option<NodeId>,
}

impl<'a> Composer<'a> {
    /// Check an anchor or alias name the way libyaml scans it.
    pub(super) fn libyaml_name(
        &mut self,
        span: &Span,
        sigil: char,
    ) -> Result<Option<&'a str>, ComposeError> {
        let text = self.offsets.text;
        let Some((name, at)) = self
            .offsets
            .byte(span.start.index())
            .and_then(|b| anchor_name(text, b, sigil))
        else {
            return Ok(None);
        };
        // libyaml names are `[0-9A-Za-z_-]+` and may be followed directly by
        // `:` (so `&x:` anchors an empty key) or a few other indicators;
        // YAML 1.2 (saphyr) takes those characters into the name.
        let Some(cut) = name.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '-'))
        else {
            return Ok(Some(name));
        };
        let next = name.get(cut..).and_then(|r| r.chars().next());
        if cut > 0 && next.is_some_and(|c| "?:,]}%@`".contains(c)) {
            let split = at + cut;
            let patched = format!(
                "{} {}",
                text.get(..split).unwrap_or(text),
                text.get(split..).unwrap_or("")
            );
            return Err(ComposeError::Retry(patched));
        }
        let what = if sigil == '&' {
            "an anchor"
        } else {
            "an alias"
        };
        let mut e = YamlError::new(
            YamlErrorKind::Syntax,
            "did not find expected alphabetic or numeric character",
            pos_of_byte(text, at + cut),
        );
        e.context = Some((
            format!("while scanning {what}"),
            Pos::of(span).line,
            Pos::of(span).column,
        ));
        Err(e.into())
    }

    pub(super) fn add(
        &mut self,
        body: Body<'a>,
        kind: Kind,
        span: &Span,
        anchor: usize,
    ) -> Result<NodeId, ComposeError> {
        let pos = Pos::of(span);
        if anchor != 0 {
            if let Some(name) = self.libyaml_name(span, '&')? {
                if let Some(first) = self.anchor_names.insert(name, pos) {
                    return Err(
                        YamlError::new(YamlErrorKind::Composer, "second occurrence", pos)
                            .with_context("found duplicate anchor; first occurrence", first)
                            .into(),
                    );
                }
            }
        }
        let id = self.nodes.len();
        self.nodes.push(Node { body, kind, pos });
        if anchor != 0 {
            self.anchors.insert(anchor, id);
        }
        Ok(id)
    }

    /// Hang a finished node on the innermost open collection.
    pub(super) fn attach(&mut self, id: NodeId) {
        match self.frames.last_mut() {
            None => self.root = Some(id),
            Some(Frame::Seq(_, items)) => items.push(id),
            Some(Frame::Map(_, pairs, pending)) => match pending.take() {
                None => *pending = Some(id),
                Some(k) => pairs.push((k, id)),
            },
        }
    }

    pub(super) fn open(&mut self, frame: Frame, pos: Pos) -> Result<(), YamlError> {
        if self.frames.len() >= MAX_DEPTH {
            return Err(YamlError::new(
                YamlErrorKind::Composer,
                format!("nesting deeper than {MAX_DEPTH} levels"),
                pos,
            ));
        }
        self.frames.push(frame);
        Ok(())
    }

    pub(super) fn close(&mut self) {
        let (id, body) = match self.frames.pop() {
            Some(Frame::Seq(id, items)) => (id, Body::Seq(items)),
            // A key without value cannot reach here: the parser always
            // emits a (possibly empty) value scalar.
            Some(Frame::Map(id, pairs, _)) => (id, Body::Map(pairs)),
            None => return,
        };
        if let Some(node) = self.nodes.get_mut(id) {
            node.body = body;
        }
        self.attach(id);
    }
}

/// Why composing stopped.
pub(super) enum ComposeError {
    Yaml(YamlError),
    /// Parse this patched text instead: a spot where saphyr (YAML 1.2) and
    /// libyaml (YAML 1.1, what Salt uses) read the text differently was
    /// rewritten into a form both read the libyaml way.
    Retry(String),
}

impl From<YamlError> for ComposeError {
    fn from(e: YamlError) -> Self {
        ComposeError::Yaml(e)
    }
}

pub(super) const SAPHYR_TAB_AFTER_COLON: &str = "':' must be followed by a valid YAML whitespace";

/// Parse `text` into the node graph of its single document, or `None` when
/// the stream holds no document at all.
pub(super) fn compose(text: &str) -> Result<Option<Document<'_>>, ComposeError> {
    let mut parser = Parser::new_from_str(text);
    let mut c = Composer {
        nodes: Vec::new(),
        frames: Vec::new(),
        anchors: HashMap::new(),
        anchor_names: HashMap::new(),
        offsets: Offsets::new(text),
        root: None,
    };
    let mut documents = 0;
    // Byte offset of each open collection's `[`/`{` (None: block style).
    let mut open: Vec<Option<usize>> = Vec::new();
    while let Some(next) = parser.next_event() {
        let (event, span) = match next {
            Ok(ok) => ok,
            // saphyr wants a flow collection's lines indented past the
            // block around it (YAML 1.2); PyYAML does not check, and Jinja's
            // `yaml` filter wraps long values at column 80 with little
            // indentation.
            Err(e) if e.info().starts_with("invalid indentation") => {
                let error_at = c.offsets.byte(e.marker().index());
                let opener = open
                    .iter()
                    .flatten()
                    .next()
                    .copied()
                    .or_else(|| error_at.and_then(|b| unmatched_opener(text, b)));
                return match opener.and_then(|o| reindent_flow(text, o)) {
                    Some(patched) => Err(ComposeError::Retry(patched)),
                    None => Err(YamlError::from_scan(&e).into()),
                };
            }
            // saphyr refuses `key:<TAB>value`; libyaml accepts the tab as
            // separation.
            Err(e) if e.info() == SAPHYR_TAB_AFTER_COLON => {
                return match c
                    .offsets
                    .byte(e.marker().index())
                    .and_then(|b| untab_separator(text, b))
                {
                    Some(patched) => Err(ComposeError::Retry(patched)),
                    None => Err(YamlError::from_scan(&e).into()),
                }
            }
            // saphyr checks aliases itself; say it the way PyYAML does.
            Err(e) if e.info() == "while parsing node, found unknown anchor" => {
                let at = e.marker();
                let pos = Pos {
                    line: at.line().max(1),
                    column: at.col() + 1,
                };
                return Err(
                    YamlError::new(YamlErrorKind::Composer, "found undefined alias", pos).into(),
                );
            }
            Err(e) => return Err(YamlError::from_scan(&e).into()),
        };
        let pos = Pos::of(&span);
        match event {
            Event::DocumentStart(_) => {
                documents += 1;
                if documents > 1 {
                    let first = c.root.and_then(|r| c.nodes.get(r)).map_or(pos, |n| n.pos);
                    return Err(YamlError::new(
                        YamlErrorKind::Composer,
                        "but found another document",
                        pos,
                    )
                    .with_context("expected a single document in the stream", first)
                    .into());
                }
            }
            Event::Scalar(value, style, anchor, tag) => {
                let kind = scalar_kind(&value, style, tag.as_deref());
                let id = c.add(Body::Scalar(value), kind, &span, anchor)?;
                c.attach(id);
            }
            Event::SequenceStart(anchor, tag) => {
                open.push(flow_opener(&mut c.offsets, &span, '['));
                let kind = collection_kind(tag.as_deref(), Kind::Seq);
                let id = c.add(Body::Seq(Vec::new()), kind, &span, anchor)?;
                c.open(Frame::Seq(id, Vec::new()), pos)?;
            }
            Event::MappingStart(anchor, tag) => {
                open.push(flow_opener(&mut c.offsets, &span, '{'));
                let kind = collection_kind(tag.as_deref(), Kind::Map);
                let id = c.add(Body::Map(Vec::new()), kind, &span, anchor)?;
                c.open(Frame::Map(id, Vec::new(), None), pos)?;
            }
            Event::SequenceEnd | Event::MappingEnd => {
                open.pop();
                c.close()
            }
            Event::Alias(anchor) => {
                match c.libyaml_name(&span, '*').map(|_| c.anchors.get(&anchor))? {
                    Some(&id) => c.attach(id),
                    None => {
                        return Err(YamlError::new(
                            YamlErrorKind::Composer,
                            "found undefined alias",
                            pos,
                        )
                        .into())
                    }
                }
            }
            Event::StreamStart | Event::StreamEnd | Event::DocumentEnd | Event::Nothing => {}
        }
    }
    Ok(c.root.map(|root| Document {
        nodes: c.nodes,
        root,
    }))
}

/// The text with the tabs between a `:` and the value starting at byte
/// `value_at` turned into spaces, or `None` if there were none to turn.
pub(super) fn untab_separator(text: &str, value_at: usize) -> Option<String> {
    let head = text.get(..value_at)?;
    let sep_start = head.trim_end_matches([' ', '\t']).len();
    let sep = head.get(sep_start..)?;
    if !sep.contains('\t') {
        return None;
    }
    let mut out = String::with_capacity(text.len());
    out.push_str(head.get(..sep_start)?);
    out.push_str(&sep.replace('\t', " "));
    out.push_str(text.get(value_at..)?);
    Some(out)
}

/// The byte offset of the `bracket` a collection event starts at, if it is
/// a flow collection.
fn flow_opener(offsets: &mut Offsets<'_>, span: &Span, bracket: char) -> Option<usize> {
    let at = offsets.byte(span.start.index())?;
    offsets
        .text
        .get(at..)
        .is_some_and(|t| t.starts_with(bracket))
        .then_some(at)
}

/// The nearest `[` or `{` before byte `at` that is not closed before it
/// (quotes are not considered: a fallback for when the error came before
/// the collection's event).
fn unmatched_opener(text: &str, at: usize) -> Option<usize> {
    let mut depth = 0usize;
    for (i, ch) in text.get(..at)?.char_indices().rev() {
        match ch {
            ']' | '}' => depth += 1,
            '[' | '{' if depth == 0 => return Some(i),
            '[' | '{' => depth -= 1,
            _ => {}
        }
    }
    None
}

/// The text with every line inside the flow collection opening at byte
/// `opener` indented at least one column past the bracket, or `None` if no
/// line needed it. Inside a flow collection leading whitespace only
/// separates tokens (quoted and plain scalars fold it away), so the values
/// read are unchanged.
pub(super) fn reindent_flow(text: &str, opener: usize) -> Option<String> {
    let line_start = text.get(..opener)?.rfind('\n').map_or(0, |i| i + 1);
    let target = text.get(line_start..opener)?.chars().count() + 1;
    let mut out = String::with_capacity(text.len() + 64);
    out.push_str(text.get(..opener)?);
    let rest = text.get(opener..)?;
    let (mut depth, mut changed) = (0usize, false);
    let (mut single, mut double, mut comment) = (false, false, false);
    let mut prev = ' ';
    let mut chars = rest.char_indices().peekable();
    while let Some((i, ch)) = chars.next() {
        out.push(ch);
        if ch == '\n' {
            comment = false;
            prev = '\n';
            let line = rest.get(i + 1..).unwrap_or("");
            let indent = line.len() - line.trim_start_matches(' ').len();
            let blank = line.lines().next().is_none_or(|l| l.trim().is_empty());
            if depth > 0 && !blank && indent < target {
                out.push_str(&" ".repeat(target - indent));
                changed = true;
            }
            continue;
        }
        if comment {
            continue;
        }
        if single {
            if ch == '\'' {
                if chars.peek().is_some_and(|&(_, n)| n == '\'') {
                    chars.next();
                    out.push('\'');
                } else {
                    single = false;
                }
            }
        } else if double {
            if ch == '\\' {
                if let Some((_, n)) = chars.next() {
                    out.push(n);
                    if n == '\n' {
                        // An escaped line break: the next line continues
                        // the scalar; its indentation is folded away too.
                        let line = rest.get(i + 2..).unwrap_or("");
                        let indent = line.len() - line.trim_start_matches(' ').len();
                        if indent < target {
                            out.push_str(&" ".repeat(target - indent));
                            changed = true;
                        }
                    }
                }
            } else if ch == '"' {
                double = false;
            }
        } else {
            let token_start = matches!(prev, ' ' | '\t' | '\n' | '[' | '{' | ',' | ':');
            match ch {
                '[' | '{' => depth += 1,
                ']' | '}' => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        out.push_str(rest.get(i + ch.len_utf8()..).unwrap_or(""));
                        break;
                    }
                }
                '\'' if token_start => single = true,
                '"' if token_start => double = true,
                '#' if matches!(prev, ' ' | '\t' | '\n') => comment = true,
                _ => {}
            }
        }
        prev = ch;
    }
    changed.then_some(out)
}

/// The 1-based line and column of byte `at`.
pub(super) fn pos_of_byte(text: &str, at: usize) -> Pos {
    let before = text.get(..at).unwrap_or(text);
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let column = before.get(line_start..).map_or(0, |l| l.chars().count()) + 1;
    Pos { line, column }
}

/// libyaml's reader refuses control characters anywhere in the stream.
pub(super) fn check_characters(text: &str) -> Result<(), YamlError> {
    let allowed = |c: char| matches!(c as u32, 0x09 | 0x0A | 0x0D | 0x20..=0x7E | 0x85 | 0xA0..=0xD7FF | 0xE000..=0xFFFD | 0x10000..=0x10FFFF);
    if let Some((at, c)) = text.char_indices().find(|&(_, c)| !allowed(c)) {
        return Err(YamlError::new(
            YamlErrorKind::Syntax,
            format!(
                "unacceptable character #x{:04x}: control characters are not allowed",
                c as u32
            ),
            pos_of_byte(text, at),
        ));
    }
    Ok(())
}
