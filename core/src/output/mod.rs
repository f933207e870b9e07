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
mod lines;
pub mod nested;
mod options;
pub mod quiet;
pub mod raw;
mod render;
pub mod stream;
pub mod yaml;

pub(crate) use lines::Lines;
pub(crate) use options::is_ordered;
pub use options::{HighstateOptions, OutputError, OutputIndent, OutputOptions};
pub(crate) use render::{named, text_of};
pub use render::{render, render_data, render_owned, render_with, Outputter};

pub(crate) use crate::py::is_space as python_is_space;
pub(crate) use crate::py::splitlines as python_splitlines;

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::Value;

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
