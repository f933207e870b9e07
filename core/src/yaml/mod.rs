//! Salt's YAML loader semantics on top of `saphyr-parser` events (YAML 1.1
//! booleans, `0644` read as decimal 644, timestamps kept as strings, `<<`
//! merge keys, mappings in file order, duplicate keys rejected), and a YAML
//! emitter that writes what PyYAML's `safe_dump` writes.
//!
//! Loading follows Salt's `SaltYamlSafeLoader` (PyYAML `CSafeLoader` with
//! Salt's constructor overrides): the event stream is first composed into a
//! node graph (anchors make it a graph), then each node is resolved and
//! constructed. Plain scalars are resolved by hand-written matchers that
//! accept exactly what PyYAML's YAML 1.1 implicit-resolver regexes accept.
//! Plain block YAML (most of any Salt tree) skips saphyr: `block.rs` builds
//! the same node graph line by line, or leaves the text to saphyr.
//!
//! Dumping follows `salt.utils.yaml.safe_dump` (PyYAML `CSafeDumper`, so the
//! libyaml emitter): keys sorted, 2-space indent, lists flush under their
//! key, strings quoted when they would read back as another type, line
//! folding at column 80.

use crate::value::{key_string, python_float_repr, Map};
use crate::Value;
use saphyr_parser::{Event, Parser, ScalarStyle, ScanError, Span, Tag};
use std::borrow::Cow;
use std::collections::{HashMap, HashSet};

/// Nesting deeper than this is refused. Real Salt data is a few dozen
/// levels deep, saphyr refuses flow collections nested past 255 anyway, and
/// building and walking the value recurses once per level: this bound keeps
/// that well inside a 1 MiB stack even in debug builds.
const MAX_DEPTH: usize = 256;

/// How many values aliases may add on top of the nodes written in the text
/// (a "billion laughs" document expands exponentially).
const MAX_ALIAS_EXPANSION: usize = 1_000_000;

/// Bound on re-parsing after patching a YAML 1.2/1.1 difference (each
/// patch fixes one spot; see `ComposeError::Retry`).
const MAX_REPARSES: usize = 1_000;

/// Which stage of PyYAML would have raised the error; Salt's YAML renderer
/// reports scanner errors differently from the others.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum YamlErrorKind {
    /// Malformed text (PyYAML `ScannerError`/`ParserError`).
    Syntax,
    /// Document structure: several documents, undefined alias
    /// (PyYAML `ComposerError`).
    Composer,
    /// Building values: duplicate key, bad merge, unknown tag
    /// (PyYAML `ConstructorError`).
    Constructor,
    /// A Python exception other than a YAML one (e.g. `!!int "abc"` makes
    /// PyYAML raise `ValueError`).
    Value,
}

/// Where and why a YAML document could not be loaded.
#[derive(Debug, Clone, thiserror::Error)]
#[error("{message} (line {line}, column {column})")]
pub struct YamlError {
    pub message: String,
    /// 1-based.
    pub line: usize,
    /// 1-based.
    pub column: usize,
    /// PyYAML's "while ..." context (e.g. `while constructing a mapping`)
    /// and the 1-based line/column where that construct started.
    pub context: Option<(String, usize, usize)>,
    pub kind: YamlErrorKind,
}

impl YamlError {
    fn new(kind: YamlErrorKind, message: impl Into<String>, at: Pos) -> YamlError {
        YamlError {
            message: message.into(),
            line: at.line,
            column: at.column,
            context: None,
            kind,
        }
    }

    fn constructor(message: impl Into<String>, at: Pos) -> YamlError {
        YamlError::new(YamlErrorKind::Constructor, message, at)
    }

    fn with_context(mut self, context: &str, at: Pos) -> YamlError {
        self.context = Some((context.to_string(), at.line, at.column));
        self
    }

    fn from_scan(e: &ScanError) -> YamlError {
        let m = e.marker();
        YamlError::new(
            YamlErrorKind::Syntax,
            e.info(),
            Pos {
                line: m.line().max(1),
                column: m.col() + 1,
            },
        )
    }

    /// The text PyYAML's `str(exc)` gives for this error, which is what Salt
    /// puts after `Rendering SLS '...' failed: `:
    ///
    /// ```text
    /// while constructing a mapping
    ///   in "<unicode string>", line 1, column 1
    /// found conflicting ID 'a'
    ///   in "<unicode string>", line 2, column 1
    /// ```
    ///
    /// A [`YamlErrorKind::Value`] error is a plain Python exception there:
    /// just its message.
    pub fn salt_text(&self) -> String {
        if self.kind == YamlErrorKind::Value {
            return self.message.clone();
        }
        let mark = |l: usize, c: usize| format!("  in \"<unicode string>\", line {l}, column {c}");
        let mut lines = Vec::with_capacity(4);
        if let Some((ctx, l, c)) = &self.context {
            lines.push(ctx.clone());
            if (*l, *c) != (self.line, self.column) {
                lines.push(mark(*l, *c));
            }
        }
        lines.push(self.message.clone());
        lines.push(mark(self.line, self.column));
        lines.join("\n")
    }
}

/// A 1-based position in the source text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Pos {
    line: usize,
    column: usize,
}

impl Pos {
    fn of(span: &Span) -> Pos {
        Pos {
            line: span.start.line().max(1),
            column: span.start.col() + 1,
        }
    }
}

mod block;
mod composer;
mod constructor;
mod emitter;
mod resolver;
#[cfg(test)]
mod tests;

use composer::*;
use constructor::*;
use resolver::*;

pub use emitter::{
    dump, dump_flow, dump_indented, dump_with, emit, format_node, format_yaml, plain_is_str,
    represent_float, yaml_dquote, yaml_encode, yaml_squote, DumpNode, DumpOptions, YamlEncodeError,
};

/// Load one YAML document the way Salt's `SaltYamlSafeLoader` does.
/// An empty document is `Value::Null`.
pub fn load(text: &str) -> Result<Value, YamlError> {
    check_characters(text)?;
    if let Some(doc) = block::compose(text) {
        return Constructor::new(&doc.nodes).construct(doc.root, 0);
    }
    let mut patched: Option<String> = None;
    for _ in 0..MAX_REPARSES {
        let src = patched.as_deref().unwrap_or(text);
        match compose(src) {
            Ok(None) => return Ok(Value::Null),
            Ok(Some(doc)) => return Constructor::new(&doc.nodes).construct(doc.root, 0),
            Err(ComposeError::Yaml(e)) => return Err(e),
            // Each retry removes one spot saphyr reads differently, and
            // no patch creates a new one, so this ends.
            Err(ComposeError::Retry(fixed)) => patched = Some(fixed),
        }
    }
    Err(YamlError::new(
        YamlErrorKind::Syntax,
        "too many tab separators or anchor names needing YAML 1.1 treatment",
        Pos { line: 1, column: 1 },
    ))
}
