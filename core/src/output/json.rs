//! Salt's `json` outputter: Python's `json.dumps(data, indent=4,
//! ensure_ascii=False)` — keys in order, non-ASCII text as is, floats
//! spelled as Python spells them (`1.0`, `1e-07`, `NaN`).

use super::{OutputIndent, OutputOptions};
use crate::Value;
use std::fmt::Write;

/// The json outputter's text for `data`.
pub fn output(data: &Value, opts: &OutputOptions) -> String {
    let (indent, sort_keys) = match opts.output_indent {
        OutputIndent::Unset => (Some(4), false),
        OutputIndent::Pretty => (Some(4), true),
        OutputIndent::Spaces(n) if n < 0 => (None, false),
        OutputIndent::Spaces(n) => (Some(usize::try_from(n).unwrap_or(0)), false),
    };
    dumps(data, indent, sort_keys)
}

/// Python's `json.dumps(v, indent=indent, sort_keys=sort_keys,
/// ensure_ascii=False)`. Without an indent everything is on one line with
/// `, ` and `: ` separators; with one, items go on their own lines.
pub fn dumps(v: &Value, indent: Option<usize>, sort_keys: bool) -> String {
    let mut out = String::new();
    write_value(&mut out, v, indent, sort_keys, 0);
    out
}

fn newline(out: &mut String, indent: Option<usize>, level: usize) {
    if let Some(n) = indent {
        out.push('\n');
        out.extend(std::iter::repeat_n(' ', n * level));
    }
}

fn write_value(out: &mut String, v: &Value, indent: Option<usize>, sort_keys: bool, level: usize) {
    let item_sep = if indent.is_some() { "," } else { ", " };
    match v {
        Value::Null => out.push_str("null"),
        Value::Bool(true) => out.push_str("true"),
        Value::Bool(false) => out.push_str("false"),
        Value::Int(i) => {
            let _ = write!(out, "{i}");
        }
        Value::Float(f) => out.push_str(&json_float(*f)),
        Value::Str(s) => write_str(out, s),
        Value::List(items) => {
            if items.is_empty() {
                out.push_str("[]");
                return;
            }
            out.push('[');
            for (n, item) in items.iter().enumerate() {
                if n > 0 {
                    out.push_str(item_sep);
                }
                newline(out, indent, level + 1);
                write_value(out, item, indent, sort_keys, level + 1);
            }
            newline(out, indent, level);
            out.push(']');
        }
        Value::Map(m) => {
            if m.is_empty() {
                out.push_str("{}");
                return;
            }
            let mut entries: Vec<(&String, &Value)> = m.iter().collect();
            if sort_keys {
                entries.sort_by(|a, b| a.0.cmp(b.0));
            }
            out.push('{');
            for (n, (k, val)) in entries.into_iter().enumerate() {
                if n > 0 {
                    out.push_str(item_sep);
                }
                newline(out, indent, level + 1);
                write_str(out, k);
                out.push_str(": ");
                write_value(out, val, indent, sort_keys, level + 1);
            }
            newline(out, indent, level);
            out.push('}');
        }
    }
}
use crate::py::json_float;
/// A JSON string as Python writes it with `ensure_ascii=False`.
fn write_str(out: &mut String, s: &str) {
    crate::py::write_json_str(out, s, false)
}

#[cfg(test)]
mod tests {
    use super::super::tests::{pillar_opts, tricky};
    use super::super::{render_with, OutputIndent, OutputOptions};
    use super::*;

    /// `salt-call --local --out json pillar.items` on the tricky pillar
    /// (Salt 3007.8), less the entries brine's value model cannot hold.
    const SALT_JSON: &str = r##"{
    "local": {
        "zeta": "last",
        "alpha": {
            "b_key": 1,
            "a_key": 2,
            "nested": {
                "deeper": {
                    "deepest": [
                        1,
                        2
                    ]
                },
                "empty_dict": {},
                "empty_list": []
            }
        },
        "nothing": null,
        "yes_bool": true,
        "no_bool": false,
        "an_int": 42,
        "neg": -7,
        "floats": [
            1.0,
            0.1,
            1.5e+20,
            -0.0,
            3.14159,
            1e-07
        ],
        "strings": {
            "plain": "hello world",
            "empty": "",
            "looks_int": "123",
            "looks_bool": "yes",
            "looks_null": "null",
            "tilde": "~",
            "looks_float": "1.0",
            "quote_single": "it's",
            "quote_double": "say \"hi\"",
            "both_quotes": "it's \"x\"",
            "backslash": "C:\\path\\to",
            "tab": "a\tb",
            "leading_space": " lead",
            "trailing_space": "trail ",
            "colon": "a: b",
            "dash": "- x",
            "star": "*star",
            "hash": "#hash",
            "at": "@at",
            "pct": "%pct",
            "unicode": "héllo wörld ☃",
            "emoji": "😀",
            "esc": "x\u001by",
            "crlf": "line1\r\nline2",
            "multiline": "first line\n  indented second\n\nafter blank\n",
            "folded_trailing": "ends with newline\n",
            "long": "this is a rather long string that goes on and on and on past the eighty column limit of yaml",
            "longword": "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
        },
        "lists": [
            "scalar",
            [
                "nested",
                "list",
                [
                    "deeper"
                ]
            ],
            {
                "k1": "v1",
                "k0": "v0"
            },
            [],
            {},
            null,
            [
                "a",
                "b"
            ],
            {
                "multi": "l1\nl2\n"
            }
        ],
        "a key with spaces": "v",
        "key:colon": "v"
    }
}
"##;

    #[test]
    fn pillar_matches_real_salt() {
        let out = render_with("json", "local", &tricky(), &pillar_opts()).unwrap_or_default();
        assert_eq!(out, SALT_JSON);
    }

    #[test]
    fn python_json_details() {
        // Checked with python3 -c 'import json; print(json.dumps(..., ensure_ascii=False))'.
        let v = Value::List(vec![
            Value::Float(f64::NAN),
            Value::Float(f64::NEG_INFINITY),
            Value::Float(1e16),
            Value::from("\u{7f}\u{08}\u{0c}\u{1f}é"),
        ]);
        assert_eq!(
            dumps(&v, None, false),
            "[NaN, -Infinity, 1e+16, \"\u{7f}\\b\\f\\u001fé\"]"
        );
        let mut m = crate::Map::default();
        m.insert("b".into(), Value::Int(1));
        m.insert("a".into(), Value::List(vec![Value::Int(2)]));
        let v = Value::Map(m);
        assert_eq!(dumps(&v, None, false), "{\"b\": 1, \"a\": [2]}");
        assert_eq!(dumps(&v, Some(0), false), "{\n\"b\": 1,\n\"a\": [\n2\n]\n}");
        let pretty = OutputOptions {
            output_indent: OutputIndent::Pretty,
            ..OutputOptions::default()
        };
        assert_eq!(
            render_with("json", "local", &v, &pretty).unwrap_or_default(),
            "{\n    \"local\": {\n        \"a\": [\n            2\n        ],\n        \"b\": 1\n    }\n}\n"
        );
    }
}
