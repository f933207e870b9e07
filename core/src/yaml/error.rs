//! Why a YAML document could not be loaded, where, and the bounds that
//! keep a hostile document from growing without end.

use saphyr_parser::{ScanError, Span};

/// Nesting deeper than this is refused. Real Salt data is a few dozen
/// levels deep, saphyr refuses flow collections nested past 255 anyway, and
/// building and walking the value recurses once per level: this bound keeps
/// that well inside a 1 MiB stack even in debug builds.
pub(super) const MAX_DEPTH: usize = 256;

/// How many values aliases may add on top of the nodes written in the text
/// (a "billion laughs" document expands exponentially).
pub(super) const MAX_ALIAS_EXPANSION: usize = 1_000_000;

/// Bound on re-parsing after patching a YAML 1.2/1.1 difference (each
/// patch fixes one spot; see `ComposeError::Retry`).
pub(super) const MAX_REPARSES: usize = 1_000;

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
    pub(super) fn new(kind: YamlErrorKind, message: impl Into<String>, at: Pos) -> YamlError {
        YamlError {
            message: message.into(),
            line: at.line,
            column: at.column,
            context: None,
            kind,
        }
    }

    pub(super) fn constructor(message: impl Into<String>, at: Pos) -> YamlError {
        YamlError::new(YamlErrorKind::Constructor, message, at)
    }

    pub(super) fn with_context(mut self, context: &str, at: Pos) -> YamlError {
        self.context = Some((context.to_string(), at.line, at.column));
        self
    }

    pub(super) fn from_scan(e: &ScanError) -> YamlError {
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
pub(super) struct Pos {
    pub(super) line: usize,
    pub(super) column: usize,
}

impl Pos {
    pub(super) fn of(span: &Span) -> Pos {
        Pos {
            line: span.start.line().max(1),
            column: span.start.col() + 1,
        }
    }
}
