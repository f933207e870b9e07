//! Outputters: what `salt-call --out X` prints for a return.
//!
//! salt-call wraps the return as `{minion_id: ret}` (`local` for salt-call),
//! runs the outputter, strips trailing whitespace from its text and prints
//! it with one newline — or prints nothing when the text is empty. [`render`]
//! returns exactly those bytes.
//!
//! Python tells two kinds of mapping apart where brine's `Value` has one:
//! plain `dict` (sorted by the nested outputter, `{...}` in raw output) and
//! `OrderedDict` (kept in order, `OrderedDict([...])` in raw output). Which
//! one a return holds depends on where it came from — YAML-rendered SLS data
//! is `OrderedDict`, the pillar's top level and grains are plain dicts — so
//! the caller says it with [`OutputOptions::ordered_from_depth`].

pub mod highstate;
pub mod json;
pub mod nested;
pub mod quiet;
pub mod raw;
pub mod stream;
pub mod yaml;

use crate::{Map, Value};
use std::io::IsTerminal;

/// Why a return could not be rendered.
#[derive(Debug, thiserror::Error)]
pub enum OutputError {
    /// The YAML emitter could not represent the value.
    #[error("unable to render the return as YAML: {0}")]
    Yaml(String),
}

/// The outputters brine knows, by Salt's names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outputter {
    Nested,
    Json,
    Yaml,
    Raw,
    Txt,
    Quiet,
    Highstate,
}

impl Outputter {
    /// Salt's lookup: empty means `nested`, `text` is `txt`; `None` for a
    /// name Salt would not find (it then logs an error and uses `nested`).
    pub fn from_name(name: &str) -> Option<Outputter> {
        Some(match name {
            "" | "nested" => Outputter::Nested,
            "json" => Outputter::Json,
            "yaml" => Outputter::Yaml,
            "raw" => Outputter::Raw,
            "txt" | "text" => Outputter::Txt,
            "quiet" => Outputter::Quiet,
            "highstate" => Outputter::Highstate,
            _ => return None,
        })
    }
}

/// The `output_indent` option (json outputter).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum OutputIndent {
    /// Option not set: indent 4, keys in order.
    #[default]
    Unset,
    /// `pretty`: indent 4, keys sorted.
    Pretty,
    /// A number: that many spaces; negative means everything on one line.
    Spaces(i64),
}

/// Options the outputters read from Salt's opts and from salt-call.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct OutputOptions {
    /// ANSI colours in the nested outputter. Salt turns them on only when
    /// stdout is a terminal (or `--force-color`), off for `--no-color`.
    pub color: bool,
    /// The call's retcode: the nested outputter colours keys red when it is
    /// not 0.
    pub retcode: i64,
    /// `nested_indent`: spaces before every nested line.
    pub nested_indent: usize,
    /// `output_indent`.
    pub output_indent: OutputIndent,
    /// Mappings this deep in the return or deeper are Python `OrderedDict`s
    /// (the return itself is depth 0); shallower ones, and all of them when
    /// `None`, are plain dicts. `pillar.items` is `Some(1)`, `pillar.get` of
    /// YAML data `Some(0)`, grains and most module returns `None`.
    pub ordered_from_depth: Option<usize>,
    /// The `state_*` options of the highstate outputter.
    pub highstate: highstate::HighstateOptions,
}

impl OutputOptions {
    /// Salt's defaults for output going to this process's stdout.
    pub fn for_stdout() -> OutputOptions {
        OutputOptions {
            color: std::io::stdout().is_terminal(),
            ..OutputOptions::default()
        }
    }
}

/// Whether a mapping at `depth` of the return (0 = the return itself; the
/// `{minion_id: ...}` wrapper is -1) is an `OrderedDict`.
pub(crate) fn is_ordered(opts: &OutputOptions, depth: isize) -> bool {
    match opts.ordered_from_depth {
        Some(d) => depth >= 0 && depth as usize >= d,
        None => false,
    }
}

/// What `salt-call --out OUT` prints for `ret`, with Salt's defaults for
/// stdout (colour only on a terminal).
pub fn render(out: &str, minion_id: &str, ret: &Value) -> Result<String, OutputError> {
    render_with(out, minion_id, ret, &OutputOptions::for_stdout())
}

/// [`render`] with explicit options.
pub fn render_with(
    out: &str,
    minion_id: &str,
    ret: &Value,
    opts: &OutputOptions,
) -> Result<String, OutputError> {
    render_owned(out, minion_id, ret.clone(), opts)
}

/// [`render_with`] taking the return by value, so a large return (a
/// state run) is not copied to be wrapped.
pub fn render_owned(
    out: &str,
    minion_id: &str,
    ret: Value,
    opts: &OutputOptions,
) -> Result<String, OutputError> {
    let mut wrapped = Map::default();
    wrapped.insert(minion_id.to_string(), ret);
    let data = Value::Map(wrapped);
    let text = text_of(named(out), &data, opts)?;
    drop(data);
    Ok(finish(&text))
}

/// The outputter named `out`; Salt logs an unknown name and uses `nested`.
pub(crate) fn named(out: &str) -> Outputter {
    Outputter::from_name(out).unwrap_or_else(|| {
        tracing::error!("Invalid outputter {out} specified, fall back to nested");
        Outputter::Nested
    })
}

/// The outputter's text for `data`, before salt's final trim.
pub(crate) fn text_of(
    outputter: Outputter,
    data: &Value,
    opts: &OutputOptions,
) -> Result<String, OutputError> {
    Ok(match outputter {
        Outputter::Nested => nested::output(data, opts),
        Outputter::Json => json::output(data, opts),
        Outputter::Yaml => yaml::output(data, opts)?,
        Outputter::Raw => raw::output(data, opts),
        Outputter::Txt => raw::txt_output(data, opts),
        Outputter::Quiet => quiet::output(data, opts),
        // Where Salt's highstate outputter would raise, Salt prints the
        // data with nested.
        Outputter::Highstate => {
            highstate::output(data, opts).unwrap_or_else(|| nested::output(data, opts))
        }
    })
}

/// salt-call's printing: strip trailing whitespace, add one newline, and
/// print nothing at all for empty text.
fn finish(text: &str) -> String {
    let trimmed = text.trim_end_matches(python_is_space);
    if trimmed.is_empty() {
        String::new()
    } else {
        format!("{trimmed}\n")
    }
}

/// What Salt's `display_output(data, out)` prints when `data` is given
/// as is (runners, `salt --static`), not wrapped under a minion id.
pub fn render_data(out: &str, data: &Value, opts: &OutputOptions) -> Result<String, OutputError> {
    Ok(finish(&text_of(named(out), data, opts)?))
}

/// An outputter's text built a line at a time: lines joined by `\n`, no
/// trailing newline (what Python's `"\n".join(lines)` gives), written
/// into one buffer as they come. A `String` per line and a join at the
/// end were a sixth of `state.show_lowstate` and a fifth of
/// `state.apply`'s heap at its peak (2,000 states are 16,000 lines).
#[derive(Default)]
pub(crate) struct Lines {
    text: String,
    started: bool,
}

impl Lines {
    /// The buffer, at the start of a new line.
    pub(crate) fn next_line(&mut self) -> &mut String {
        if self.started {
            self.text.push('\n');
        }
        self.started = true;
        &mut self.text
    }

    /// One line from format arguments.
    pub(crate) fn line(&mut self, args: std::fmt::Arguments<'_>) {
        use std::fmt::Write;
        // Writing into a String cannot fail.
        let _ = self.next_line().write_fmt(args);
    }

    /// One line as it is.
    pub(crate) fn push(&mut self, line: &str) {
        self.next_line().push_str(line);
    }

    /// Whether no line has been written.
    pub(crate) fn is_empty(&self) -> bool {
        !self.started
    }

    pub(crate) fn into_text(self) -> String {
        self.text
    }
}

pub(crate) use crate::py::is_space as python_is_space;
pub(crate) use crate::py::splitlines as python_splitlines;

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// The tricky pillar every outputter test renders: what
    /// `/tmp/outp/p/base/tricky.sls` (see the outputter tests) loads to,
    /// minus what brine's value model cannot hold (an integer key, an
    /// integer beyond 64 bits).
    pub(crate) fn tricky() -> Value {
        let j: serde_json::Value = serde_json::from_str(TRICKY_JSON).unwrap_or_default();
        Value::from_json(&j)
    }

    pub(crate) const TRICKY_JSON: &str = r##"{
        "zeta": "last",
        "alpha": {"b_key": 1, "a_key": 2,
                  "nested": {"deeper": {"deepest": [1, 2]}, "empty_dict": {}, "empty_list": []}},
        "nothing": null, "yes_bool": true, "no_bool": false, "an_int": 42, "neg": -7,
        "floats": [1.0, 0.1, 1.5e+20, -0.0, 3.14159, 1e-07],
        "strings": {
            "plain": "hello world", "empty": "", "looks_int": "123", "looks_bool": "yes",
            "looks_null": "null", "tilde": "~", "looks_float": "1.0", "quote_single": "it's",
            "quote_double": "say \"hi\"", "both_quotes": "it's \"x\"", "backslash": "C:\\path\\to",
            "tab": "a\tb", "leading_space": " lead", "trailing_space": "trail ", "colon": "a: b",
            "dash": "- x", "star": "*star", "hash": "#hash", "at": "@at", "pct": "%pct",
            "unicode": "héllo wörld ☃", "emoji": "😀", "esc": "x\u001by", "crlf": "line1\r\nline2",
            "multiline": "first line\n  indented second\n\nafter blank\n",
            "folded_trailing": "ends with newline\n",
            "long": "this is a rather long string that goes on and on and on past the eighty column limit of yaml",
            "longword": "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
        },
        "lists": ["scalar", ["nested", "list", ["deeper"]], {"k1": "v1", "k0": "v0"}, [], {}, null,
                  ["a", "b"], {"multi": "l1\nl2\n"}],
        "a key with spaces": "v",
        "key:colon": "v"
    }"##;

    /// How salt-call's pillar.items return is typed: a plain dict at the
    /// top, `OrderedDict`s from the YAML renderer below.
    pub(crate) fn pillar_opts() -> OutputOptions {
        OutputOptions {
            ordered_from_depth: Some(1),
            ..OutputOptions::default()
        }
    }

    #[test]
    fn splitlines_like_python() {
        assert_eq!(python_splitlines(""), Vec::<&str>::new());
        assert_eq!(python_splitlines("a\n"), ["a"]);
        assert_eq!(
            python_splitlines("a\r\nb\rc\n\nd"),
            ["a", "b", "c", "", "d"]
        );
        assert_eq!(python_splitlines("a\u{2028}b\u{0c}"), ["a", "b"]);
    }

    #[test]
    fn unknown_outputter_falls_back_to_nested() {
        let v = Value::from("x");
        let opts = OutputOptions::default();
        assert_eq!(
            render_with("bogus", "local", &v, &opts).ok(),
            render_with("nested", "local", &v, &opts).ok()
        );
        assert_eq!(
            render_with("", "local", &v, &opts).ok(),
            Some("local:\n    x\n".to_string())
        );
    }

    #[test]
    fn quiet_prints_nothing() {
        let out = render_with("quiet", "local", &tricky(), &pillar_opts()).ok();
        assert_eq!(out.as_deref(), Some(""));
    }
}
