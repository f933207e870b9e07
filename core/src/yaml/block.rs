//! The fast path: the plain block YAML most Salt trees are made of
//! (`key: value` mappings, `- item` sequences, plain and one-line quoted
//! scalars, one-line flow collections, comments) composed straight into
//! the node graph, line by line, without the general scanner.
//!
//! It builds exactly the graph the general composer builds from saphyr's
//! events — the same nodes, in the same order, at the same positions — or
//! gives up (`None`) at the first thing outside that subset (tabs,
//! anchors, tags, flow collections over several lines, block scalars,
//! multi-line scalars, escapes, document markers, anything malformed), and
//! the caller composes the text the general way. Giving up is always safe: errors are only
//! ever reported by the general path. The tests check the two paths
//! against each other on hand-written and generated documents.

use super::composer::*;
use super::composer::{Body, Document, Node, NodeId};
use super::error::*;
use super::resolver::*;
use saphyr_parser::ScalarStyle;
use std::borrow::Cow;

/// Past this nesting the general path (with its own bound and message)
/// takes over.
const MAX_FAST_DEPTH: usize = 64;

/// libyaml refuses a simple key longer than this; leave such text to the
/// general path.
const MAX_KEY: usize = 1024;

/// One line with content (blank and comment-only lines are skipped: they
/// never change what a block document means).
#[derive(Clone, Copy)]
struct Line {
    /// Byte offsets of the line's first character and of its end (the
    /// `\n`, or the end of the text).
    start: usize,
    end: usize,
    /// Leading spaces.
    indent: usize,
    /// 1-based line number.
    no: usize,
}

struct Fast<'a> {
    text: &'a str,
    bytes: &'a [u8],
    lines: Vec<Line>,
    /// The line being read.
    at: usize,
    nodes: Vec<Node<'a>>,
}

/// The document's node graph, or `None` when the text is not plain block
/// YAML (or holds no document).
pub(super) fn compose(text: &str) -> Option<Document<'_>> {
    let bytes = text.as_bytes();
    // Tabs, carriage returns and non-ASCII text (columns count characters)
    // are left to the general path.
    if bytes
        .iter()
        .any(|&b| b == b'\t' || b == b'\r' || !b.is_ascii())
    {
        return None;
    }
    let mut fast = Fast {
        text,
        bytes,
        lines: content_lines(bytes)?,
        at: 0,
        nodes: Vec::with_capacity(bytes.len() / 8),
    };
    let first = *fast.lines.first()?;
    let root = fast.block(first, 0)?;
    (fast.at == fast.lines.len()).then_some(Document {
        nodes: fast.nodes,
        root,
    })
}

/// The lines that hold content, or `None` at a directive or document
/// marker.
fn content_lines(bytes: &[u8]) -> Option<Vec<Line>> {
    let mut lines = Vec::with_capacity(bytes.len() / 24);
    let (mut start, mut no) = (0, 1);
    while start < bytes.len() {
        let end = bytes[start..]
            .iter()
            .position(|&b| b == b'\n')
            .map_or(bytes.len(), |i| start + i);
        let line = &bytes[start..end];
        let indent = line.iter().take_while(|&&b| b == b' ').count();
        match line.get(indent) {
            None | Some(b'#') => {}
            Some(_) => {
                if indent == 0
                    && (line.starts_with(b"---") || line.starts_with(b"...") || line[0] == b'%')
                {
                    return None;
                }
                lines.push(Line {
                    start,
                    end,
                    indent,
                    no,
                });
            }
        }
        start = end + 1;
        no += 1;
    }
    Some(lines)
}

/// Whether `b` ends a token: a space, or the end of the line.
fn blank_or_end(b: Option<&u8>) -> bool {
    matches!(b, None | Some(b' ') | Some(b'\n'))
}

impl<'a> Fast<'a> {
    fn byte(&self, i: usize) -> Option<&u8> {
        self.bytes.get(i)
    }

    fn pos(line: Line, byte: usize) -> Pos {
        Pos {
            line: line.no,
            column: byte - line.start + 1,
        }
    }

    fn push(&mut self, body: Body<'a>, kind: Kind, pos: Pos) -> NodeId {
        self.nodes.push(Node { body, kind, pos });
        self.nodes.len() - 1
    }

    /// A scalar node, resolved as the general composer resolves an
    /// untagged scalar of that style.
    fn scalar_node(&mut self, text: Cow<'a, str>, style: ScalarStyle, pos: Pos) -> NodeId {
        let kind = scalar_kind(&text, style, None);
        self.push(Body::Scalar(text), kind, pos)
    }

    /// Whether the line holds `-` followed by a space or its end at `i`.
    fn dash_at(&self, line: Line, i: usize) -> bool {
        i < line.end && self.bytes[i] == b'-' && blank_or_end(self.byte(i + 1))
    }

    /// The first non-space byte at or after `i` on the line.
    fn skip_spaces(&self, line: Line, mut i: usize) -> usize {
        while i < line.end && self.bytes[i] == b' ' {
            i += 1;
        }
        i
    }

    /// The block collection whose first entry starts at the indentation of
    /// `line` (the line being read).
    fn block(&mut self, line: Line, depth: usize) -> Option<NodeId> {
        let i = line.start + line.indent;
        if self.dash_at(line, i) {
            self.seq(line, i, false, depth)
        } else {
            let key = self.key_at(line, i)?;
            self.map(line, i, key, depth)
        }
    }

    /// A mapping whose first key starts at byte `i` of `line` (the key's
    /// scalar and the byte after its `:` already found by `key_at`).
    fn map(&mut self, line: Line, i: usize, first: Key<'a>, depth: usize) -> Option<NodeId> {
        if depth > MAX_FAST_DEPTH {
            return None;
        }
        let col = i - line.start;
        let id = self.push(Body::Map(Vec::new()), Kind::Map, Fast::pos(line, i));
        let mut pairs = Vec::new();
        let (mut line, mut key) = (line, first);
        loop {
            let k = self.scalar_node(key.text, key.style, Fast::pos(line, key.start));
            let v = self.value(line, key.after_colon, col, true, depth)?;
            pairs.push((k, v));
            // The next entry is at this mapping's indentation.
            let Some(&next) = self.lines.get(self.at) else {
                break;
            };
            if next.indent < col {
                break;
            }
            let start = next.start + next.indent;
            if next.indent > col || self.dash_at(next, start) {
                return None;
            }
            key = self.key_at(next, start)?;
            line = next;
        }
        self.nodes[id].body = Body::Map(pairs);
        Some(id)
    }

    /// A sequence whose first `-` is at byte `dash` of `line`. An
    /// indentless sequence (`key:` then `- item` at the key's
    /// indentation) starts, as saphyr reports it, at what follows its
    /// first `-` on that line (the line's end when nothing does).
    fn seq(&mut self, line: Line, dash: usize, indentless: bool, depth: usize) -> Option<NodeId> {
        if depth > MAX_FAST_DEPTH {
            return None;
        }
        let col = dash - line.start;
        let id = self.push(Body::Seq(Vec::new()), Kind::Seq, Fast::pos(line, dash));
        let mut items = Vec::new();
        let mut line = line;
        if indentless {
            let i = self.skip_spaces(line, dash + 1);
            let at = if i == line.end || self.bytes[i] == b'#' {
                line.end
            } else {
                i
            };
            self.nodes[id].pos = Fast::pos(line, at);
        }
        loop {
            let item = self.value(line, line.start + col + 1, col, false, depth)?;
            items.push(item);
            let Some(&next) = self.lines.get(self.at) else {
                break;
            };
            if next.indent < col {
                break;
            }
            if next.indent > col {
                return None;
            }
            if !self.dash_at(next, next.start + col) {
                if indentless {
                    break;
                }
                return None;
            }
            line = next;
        }
        self.nodes[id].body = Body::Seq(items);
        Some(id)
    }

    /// The value after a mapping's `:` or a sequence's `-` ending just
    /// before byte `from` of `line`, in a collection at column `col`;
    /// leaves `self.at` at the line after the value.
    fn value(
        &mut self,
        line: Line,
        from: usize,
        col: usize,
        in_map: bool,
        depth: usize,
    ) -> Option<NodeId> {
        let i = self.skip_spaces(line, from);
        if i == line.end || self.bytes[i] == b'#' {
            // Nothing on this line: a block below, or an empty scalar.
            self.at += 1;
            if let Some(&next) = self.lines.get(self.at) {
                if next.indent > col {
                    return self.block(next, depth + 1);
                }
                if in_map && next.indent == col && self.dash_at(next, next.start + col) {
                    return self.seq(next, next.start + col, true, depth + 1);
                }
            }
            // saphyr puts an empty value at the `:`, an empty item at the
            // end of the `-`'s line.
            let at = if in_map { from - 1 } else { line.end };
            return Some(self.push(
                Body::Scalar(Cow::Borrowed("")),
                Kind::Null,
                Fast::pos(line, at),
            ));
        }
        if !in_map {
            // A sequence item may open a collection on the `-`'s line.
            if self.dash_at(line, i) {
                return self.seq(line, i, false, depth + 1);
            }
            if let Some(key) = self.key_at(line, i) {
                return self.map(line, i, key, depth + 1);
            }
        }
        let id = self.scalar(line, i)?;
        self.at += 1;
        // A more indented line would continue a plain scalar (or be an
        // error): both are the general path's.
        match self.lines.get(self.at) {
            Some(next) if next.indent > col => None,
            _ => Some(id),
        }
    }

    /// A scalar (or an empty `[]` / `{}`) filling the rest of the line from
    /// byte `i` (up to a comment).
    fn scalar(&mut self, line: Line, i: usize) -> Option<NodeId> {
        let (text, style, end) = match self.bytes[i] {
            b'[' | b'{' => {
                let (id, end) = self.flow(line, i, 0)?;
                return self.rest_is_comment(line, end).then_some(id);
            }
            b'\'' | b'"' => self.quoted(line, i)?,
            _ => {
                let (value, end, stop) = self.plain(line, i)?;
                if stop == Stop::Colon {
                    // `a: b: c` is an error; `- a: b` was taken as a key.
                    return None;
                }
                (Cow::Borrowed(value), ScalarStyle::Plain, end)
            }
        };
        self.rest_is_comment(line, end)
            .then(|| self.scalar_node(text, style, Fast::pos(line, i)))
    }

    /// Whether only spaces and a comment (which needs a space before its
    /// `#`) follow byte `end` on the line.
    fn rest_is_comment(&self, line: Line, end: usize) -> bool {
        let after = self.skip_spaces(line, end);
        after == line.end || (self.bytes[after] == b'#' && after > end)
    }

    /// A flow collection (`[a, b]`, `{k: v}`) opening at byte `i` and
    /// closing on the same line: its node and the byte after it. Plain
    /// scalars in it hold no `:` or `#`, keys are followed by `: `, and a
    /// trailing comma or an entry without a value is the general path's.
    fn flow(&mut self, line: Line, i: usize, depth: usize) -> Option<(NodeId, usize)> {
        if depth > MAX_FAST_DEPTH {
            return None;
        }
        let seq = self.bytes[i] == b'[';
        let (close, kind, body) = if seq {
            (b']', Kind::Seq, Body::Seq(Vec::new()))
        } else {
            (b'}', Kind::Map, Body::Map(Vec::new()))
        };
        let id = self.push(body, kind, Fast::pos(line, i));
        let (mut items, mut pairs) = (Vec::new(), Vec::new());
        let mut j = self.skip_spaces(line, i + 1);
        if self.byte(j) != Some(&close) {
            loop {
                if seq {
                    let (item, end) = self.flow_node(line, j, depth)?;
                    items.push(item);
                    j = end;
                } else {
                    let (key, end) = self.flow_node(line, j, depth)?;
                    let colon = self.skip_spaces(line, end);
                    if !matches!(self.nodes[key].body, Body::Scalar(_))
                        || self.byte(colon) != Some(&b':')
                        || self.byte(colon + 1) != Some(&b' ')
                    {
                        return None;
                    }
                    let (value, end) =
                        self.flow_node(line, self.skip_spaces(line, colon + 1), depth)?;
                    pairs.push((key, value));
                    j = end;
                }
                j = self.skip_spaces(line, j);
                match self.byte(j) {
                    Some(b',') => {
                        j = self.skip_spaces(line, j + 1);
                        if self.byte(j) == Some(&close) {
                            return None;
                        }
                    }
                    Some(&b) if b == close => break,
                    _ => return None,
                }
            }
        }
        self.nodes[id].body = if seq {
            Body::Seq(items)
        } else {
            Body::Map(pairs)
        };
        Some((id, j + 1))
    }

    /// One entry of a flow collection at byte `i`: its node and the byte
    /// after it.
    fn flow_node(&mut self, line: Line, i: usize, depth: usize) -> Option<(NodeId, usize)> {
        if i >= line.end {
            return None;
        }
        let pos = Fast::pos(line, i);
        match self.bytes[i] {
            b'[' | b'{' => self.flow(line, i, depth + 1),
            b'\'' | b'"' => {
                let (value, style, end) = self.quoted(line, i)?;
                Some((self.scalar_node(value, style, pos), end))
            }
            first => {
                if b"]},#&*!|>%@`?:".contains(&first)
                    || (first == b'-' && blank_or_end(self.byte(i + 1)))
                {
                    return None;
                }
                let mut j = i;
                while j < line.end && !b",[]{}:#".contains(&self.bytes[j]) {
                    j += 1;
                }
                let value = self.text[i..j].trim_end_matches(' ');
                if value.is_empty() {
                    return None;
                }
                let end = i + value.len();
                Some((
                    self.scalar_node(Cow::Borrowed(value), ScalarStyle::Plain, pos),
                    end,
                ))
            }
        }
    }

    /// The mapping key starting at byte `i`, or `None` when no key starts
    /// there.
    fn key_at(&self, line: Line, i: usize) -> Option<Key<'a>> {
        let (text, style, end) = match self.bytes.get(i)? {
            b'\'' | b'"' => self.quoted(line, i)?,
            _ => {
                let (value, end, stop) = self.plain(line, i)?;
                if stop != Stop::Colon {
                    return None;
                }
                (Cow::Borrowed(value), ScalarStyle::Plain, end)
            }
        };
        let colon = self.skip_spaces(line, end);
        if colon - i > MAX_KEY
            || colon >= line.end
            || self.bytes[colon] != b':'
            || !blank_or_end(self.byte(colon + 1))
        {
            return None;
        }
        Some(Key {
            text,
            style,
            start: i,
            after_colon: colon + 1,
        })
    }

    /// A one-line quoted scalar starting at the quote at byte `i`: its
    /// value, style and the byte after the closing quote. Escapes and
    /// scalars running onto the next line are the general path's.
    fn quoted(&self, line: Line, i: usize) -> Option<(Cow<'a, str>, ScalarStyle, usize)> {
        let quote = self.bytes[i];
        let body = &self.text[i + 1..line.end];
        if quote == b'"' {
            let close = body.find(['"', '\\'])?;
            if body.as_bytes()[close] == b'\\' {
                return None;
            }
            return Some((
                Cow::Borrowed(&body[..close]),
                ScalarStyle::DoubleQuoted,
                i + 2 + close,
            ));
        }
        // `''` is a quote inside a single-quoted scalar.
        let mut value: Cow<'a, str> = Cow::Borrowed("");
        let mut from = 0;
        loop {
            let close = from + body[from..].find('\'')?;
            if body.as_bytes().get(close + 1) == Some(&b'\'') {
                value.to_mut().push_str(&body[from..=close]);
                from = close + 2;
                continue;
            }
            if from == 0 {
                value = Cow::Borrowed(&body[..close]);
            } else {
                value.to_mut().push_str(&body[from..close]);
            }
            return Some((value, ScalarStyle::SingleQuoted, i + 2 + close));
        }
    }

    /// A plain scalar starting at byte `i`: its text (trailing spaces
    /// trimmed), the byte after it and what stopped it.
    fn plain(&self, line: Line, i: usize) -> Option<(&'a str, usize, Stop)> {
        let first = self.bytes[i];
        // Indicators that cannot start a plain scalar, `?` and `:` (left to
        // the general path even glued to text), and `-` followed by a
        // space; `-` glued to text (`-1`) starts one.
        if b"[]{},#&*!|>'\"%@`?:".contains(&first)
            || (first == b'-' && blank_or_end(self.byte(i + 1)))
            || self.text[i..line.end].starts_with("---")
            || self.text[i..line.end].starts_with("...")
        {
            return None;
        }
        let mut j = i;
        let stop = loop {
            if j == line.end {
                break Stop::End;
            }
            match self.bytes[j] {
                b':' if blank_or_end(self.byte(j + 1)) => break Stop::Colon,
                b'#' if self.bytes[j - 1] == b' ' => break Stop::Comment,
                _ => j += 1,
            }
        };
        let value = self.text[i..j].trim_end_matches(' ');
        Some((value, i + value.len(), stop))
    }
}

/// A mapping key found on a line.
struct Key<'a> {
    text: Cow<'a, str>,
    style: ScalarStyle,
    /// Byte offsets of its first character and of what follows its `:`.
    start: usize,
    after_colon: usize,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Stop {
    End,
    Colon,
    Comment,
}

#[cfg(test)]
mod tests {
    use super::super::composer;
    use super::*;

    /// Whether the fast path took `text`; when it did, its graph must be
    /// the one the general path composes.
    fn agrees(text: &str) -> bool {
        let Some(fast) = compose(text) else {
            return false;
        };
        match composer::compose(text) {
            Ok(Some(general)) => {
                assert_eq!(
                    format!("{:?}", general.nodes),
                    format!("{:?}", fast.nodes),
                    "the two paths differ on {text:?}"
                );
                assert_eq!(general.root, fast.root, "{text:?}");
            }
            Ok(None) => panic!("fast path found a document in {text:?}"),
            Err(ComposeError::Retry(_)) => panic!("fast path took {text:?}, saphyr needs a patch"),
            Err(ComposeError::Yaml(e)) => panic!("fast path took {text:?}, which fails: {e}"),
        }
        true
    }

    #[test]
    fn takes_the_block_yaml_salt_trees_are_made_of() {
        for text in [
            "a: 1\n",
            "a: 1",
            "a: 1\nb:\n  - x\n  - y: 2\n    z:\n  -\n  - - q\nc:\nd: \"s\"\ne:\n- f\n- g\nh: 'w'  # c\n",
            "# top\n\nk:   # c\n  - a\n  -    # c\n  -  \n  - b: 1\n    c: 2\nl:\n- m: 1\n  n:\n- o\n- - p\n  - q\n- \nr: s  \n't' :   \"u\"\nv: x\n  # indented comment\nw: {}\n",
            "a:   # c\nb:  \nc:\n  d: []\n  e:   \nf: 1\n",
            "e:\n-\n- x\n",
            "- a\n-\n",
            "- a\n-",
            "base:\n  '*':\n    - s0\n    - s1\n",
            "st1:\n  test.succeed_without_changes:\n    - name: n1-v\n    - require:\n      - test: st0\n",
            "k1:\n  v: value-1-m1\n  list:\n\n    - item0-1\n\n    - item1-1\n\nshared:\n  from_p1: 1\n",
            "'it''s': 'a ''b'' c'\n\"k\": \"\"\n'': x\n",
            "a: 0644\nb: yes\nc: ~\nd: 1.5\ne: 2001-12-14\nf: -1\ng: a:b\nh: http://x/y\n",
            "a: x#y\nb: '#'\nc: [] # e\nd: {}  #\n<<: 1\n=: 2\n",
            "  a: 1\n  b: 2\n",
            "- - - x\n    - y\n  - z\n- w\n",
            "a:\n  b:\n    c:\n      d: 1\n  e: 2\n",
            "a: 1\na: 2\n",
            "users:\n  u1: {uid: 1001}\nl: [a, 'b', \"c\", -1, 1.5]\nm: [[], {}, [x y, {k: v}]]\n",
            "- {a: 1, b: [x]}  # c\n- [ a ,b ]\n- {'a': \"b\"}\n",
        ] {
            assert!(agrees(text), "not taken: {text:?}");
        }
    }

    #[test]
    fn leaves_everything_else_to_the_general_path() {
        for text in [
            "",
            "# only a comment\n",
            "scalar\n",
            "---\na: 1\n",
            "a: 1\n...\n",
            "%YAML 1.1\n---\na: 1\n",
            "a:\t1\n",
            "a: 1\r\n",
            "a: caf\u{e9}\n",
            "a: &x 1\nb: *x\n",
            "a: !!str 1\n",
            "a: |\n  text\n",
            "a: >\n  text\n",
            "a: [1, 2\n",
            "a: [1,\n  2]\n",
            "a: [1, 2,]\n",
            "a: {b: }\n",
            "a: {b}\n",
            "a: {b:1}\n",
            "a: [b:c]\n",
            "a: [b, #c]\n",
            "a: [1]x\n",
            "a: \"x\\ty\"\n",
            "a: 'open\n  close'\n",
            "a: multi\n  line\n",
            "- multi\n  line\n",
            "a: b: c\n",
            "a: 1\n- b\n",
            "- a\nb: 1\n",
            "a:\n    b: 1\n  c: 2\n",
            "a: 1\n b: 2\n",
            "? a\n: b\n",
            "a: -\n",
            "a: @x\n",
            "a: `x\n",
            "a: 'x'y\n",
            "a: []x\n",
            "a #b: c\n",
            "key:value\n",
            "a: ---\n",
        ] {
            assert!(!agrees(text), "taken: {text:?}");
        }
    }

    /// A small deterministic generator (xorshift), so a failure names the
    /// document it failed on and reruns the same way.
    struct Rng(u64);

    impl Rng {
        fn next(&mut self, n: usize) -> usize {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            (self.0 % n as u64) as usize
        }
    }

    const SCALARS: &[&str] = &[
        "a",
        "b c",
        "'q'",
        "'it''s'",
        "''",
        "\"dq\"",
        "\"\"",
        "\"a\\\"b\"",
        "1",
        "0644",
        "0x1f",
        "1_000",
        "yes",
        "Off",
        "~",
        "null",
        "-1",
        "-x",
        "1.5e3",
        ".inf",
        "a:b",
        "a #c",
        "a: b",
        "[]",
        "{}",
        "[a]",
        "{a: 1}",
        "http://x",
        "x # comment",
        "-",
        "?",
        ":",
        "x:",
        "*a",
        "&a x",
        "!!str 1",
        "|",
        ">",
        "'open",
        "a  ",
        "a,b",
        "a]",
        "2001-12-14",
        "<<",
        "=",
        "#",
        "%x",
        "@x",
        "---",
        "...x",
        "a'b",
        "a\"b",
        "[a, b]",
        "{a: 1, b: [x, 'y']}",
        "[ a ,b ]",
        "{a: }",
        "[a,]",
        "{a:1}",
        "[a:b]",
        "{'a': \"b\"}",
        "[[], {}]",
        "[a b, c]",
        "{a: b c}",
        "[a #x]",
        "[-1, -x]",
        "{? a}",
        "[ ]",
        "{ }",
        "[a]]",
        "{a: [1, {b: ~}]}",
        "[\"x\", 'y''s']",
    ];

    fn scalar(rng: &mut Rng) -> &'static str {
        SCALARS[rng.next(SCALARS.len())]
    }

    /// Writes a random block collection at `indent`; `inline` is the text
    /// already on the first line (`- ` of an enclosing item), when any.
    fn collection(rng: &mut Rng, out: &mut String, indent: usize, inline: bool, depth: usize) {
        let entries = 1 + rng.next(3);
        let seq = rng.next(2) == 0;
        for e in 0..entries {
            if !(inline && e == 0) {
                // Now and then a wrong indentation, a blank or a comment.
                let pad = match rng.next(40) {
                    0 => indent + 1,
                    1 if indent > 0 => indent - 1,
                    _ => indent,
                };
                match rng.next(12) {
                    0 => out.push('\n'),
                    1 => out.push_str(&format!("{}# note\n", " ".repeat(rng.next(6)))),
                    _ => {}
                }
                out.push_str(&" ".repeat(pad));
            }
            let col = if seq {
                out.push_str("- ");
                indent + 2
            } else {
                out.push_str(scalar(rng));
                out.push(':');
                if rng.next(8) == 0 {
                    out.push_str("  ");
                }
                indent
            };
            match rng.next(if depth > 3 { 2 } else { 5 }) {
                0 => {
                    if !seq {
                        out.push(' ');
                    }
                    out.push_str(scalar(rng));
                    if rng.next(6) == 0 {
                        out.push_str(" # c");
                    }
                    out.push('\n');
                }
                1 => out.push('\n'),
                2 if seq => collection(rng, out, col, true, depth + 1),
                3 if !seq && rng.next(2) == 0 => {
                    out.push('\n');
                    // An indentless sequence under the key.
                    for _ in 0..1 + rng.next(2) {
                        out.push_str(&" ".repeat(indent));
                        out.push_str("- ");
                        out.push_str(scalar(rng));
                        out.push('\n');
                    }
                }
                _ => {
                    out.push('\n');
                    let deeper = col + 1 + rng.next(3);
                    collection(rng, out, deeper, false, depth + 1);
                }
            }
        }
    }

    #[test]
    fn agrees_with_the_general_path_on_generated_documents() {
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        let (mut taken, total) = (0, 20_000);
        for _ in 0..total {
            let mut text = String::new();
            collection(&mut rng, &mut text, 0, false, 0);
            if rng.next(5) == 0 {
                text.pop();
            }
            if agrees(&text) {
                taken += 1;
            }
        }
        // The generator must exercise the fast path, not only its refusals.
        assert!(taken > total / 20, "only {taken} of {total} taken");
    }

    /// Every SLS and YAML file of the conformance cases (Jinja templates
    /// among them: the fast path must refuse those or agree on them).
    #[test]
    fn agrees_with_the_general_path_on_the_conformance_trees() {
        fn walk(dir: &std::path::Path, files: &mut Vec<std::path::PathBuf>) {
            for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
                let path = entry.path();
                if path.is_dir() {
                    walk(&path, files);
                } else if path
                    .extension()
                    .is_some_and(|e| e == "sls" || e == "yml" || e == "yaml")
                {
                    files.push(path);
                }
            }
        }
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/conformance");
        let mut files = Vec::new();
        walk(&root, &mut files);
        assert!(
            files.len() > 1000,
            "{} files under {}",
            files.len(),
            root.display()
        );
        let taken = files
            .iter()
            .filter_map(|f| std::fs::read_to_string(f).ok())
            .filter(|text| agrees(text))
            .count();
        assert!(taken > 300, "only {taken} of {} files taken", files.len());
    }
}
