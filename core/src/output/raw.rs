//! Salt's `raw` outputter — Python's `str()` of the `{minion_id: ret}`
//! dict — and `txt`, which prints `minion_id: ` before each line of a text
//! return or before `str()` of any other return.

use super::{is_ordered, python_splitlines, OutputOptions};
use crate::value::python_float_repr;
use crate::Value;
use std::fmt::Write;

/// The raw outputter's text for `data`.
pub fn output(data: &Value, opts: &OutputOptions) -> String {
    let mut out = String::new();
    write_repr(&mut out, data, opts, -1);
    out
}

/// The txt outputter's text for `data`.
pub fn txt_output(data: &Value, opts: &OutputOptions) -> String {
    let mut out = String::new();
    let Value::Map(m) = data else {
        // Not reached from render(), which always wraps the return.
        write_repr(&mut out, data, opts, -1);
        out.push('\n');
        return out;
    };
    for (key, value) in m {
        match value {
            Value::Str(s) => {
                for line in python_splitlines(s) {
                    let _ = writeln!(out, "{key}: {line}");
                }
            }
            other => {
                let mut text = String::new();
                write_repr(&mut text, other, opts, 0);
                let _ = writeln!(out, "{key}: {text}");
            }
        }
    }
    out
}

/// Python's `repr()`, with `OrderedDict([...])` for the mappings the options
/// say are ordered.
pub fn write_repr(out: &mut String, v: &Value, opts: &OutputOptions, depth: isize) {
    match v {
        Value::Null => out.push_str("None"),
        Value::Bool(true) => out.push_str("True"),
        Value::Bool(false) => out.push_str("False"),
        Value::Int(i) => {
            let _ = write!(out, "{i}");
        }
        Value::Float(f) => out.push_str(&python_float_repr(*f)),
        Value::Str(s) => out.push_str(&repr_str(s)),
        Value::List(items) => {
            out.push('[');
            for (n, item) in items.iter().enumerate() {
                if n > 0 {
                    out.push_str(", ");
                }
                write_repr(out, item, opts, depth + 1);
            }
            out.push(']');
        }
        Value::Map(m) if is_ordered(opts, depth) => {
            if m.is_empty() {
                out.push_str("OrderedDict()");
                return;
            }
            out.push_str("OrderedDict([");
            for (n, (k, val)) in m.iter().enumerate() {
                if n > 0 {
                    out.push_str(", ");
                }
                out.push('(');
                out.push_str(&repr_str(k));
                out.push_str(", ");
                write_repr(out, val, opts, depth + 1);
                out.push(')');
            }
            out.push_str("])");
        }
        Value::Map(m) => {
            out.push('{');
            for (n, (k, val)) in m.iter().enumerate() {
                if n > 0 {
                    out.push_str(", ");
                }
                out.push_str(&repr_str(k));
                out.push_str(": ");
                write_repr(out, val, opts, depth + 1);
            }
            out.push('}');
        }
    }
}
/// Python's `repr(str)`.
pub fn repr_str(s: &str) -> String {
    crate::py::str_repr(s)
}

#[cfg(test)]
mod tests {
    use super::super::tests::{pillar_opts, tricky};
    use super::super::{render_with, OutputOptions};
    use super::*;

    /// `salt-call --local --out raw pillar.items` on the tricky pillar (Salt
    /// 3007.8 on Python 3.11), less the entries brine cannot type.
    const SALT_RAW: &str = r##"{'local': {'zeta': 'last', 'alpha': OrderedDict([('b_key', 1), ('a_key', 2), ('nested', OrderedDict([('deeper', OrderedDict([('deepest', [1, 2])])), ('empty_dict', OrderedDict()), ('empty_list', [])]))]), 'nothing': None, 'yes_bool': True, 'no_bool': False, 'an_int': 42, 'neg': -7, 'floats': [1.0, 0.1, 1.5e+20, -0.0, 3.14159, 1e-07], 'strings': OrderedDict([('plain', 'hello world'), ('empty', ''), ('looks_int', '123'), ('looks_bool', 'yes'), ('looks_null', 'null'), ('tilde', '~'), ('looks_float', '1.0'), ('quote_single', "it's"), ('quote_double', 'say "hi"'), ('both_quotes', 'it\'s "x"'), ('backslash', 'C:\\path\\to'), ('tab', 'a\tb'), ('leading_space', ' lead'), ('trailing_space', 'trail '), ('colon', 'a: b'), ('dash', '- x'), ('star', '*star'), ('hash', '#hash'), ('at', '@at'), ('pct', '%pct'), ('unicode', 'héllo wörld ☃'), ('emoji', '😀'), ('esc', 'x\x1by'), ('crlf', 'line1\r\nline2'), ('multiline', 'first line\n  indented second\n\nafter blank\n'), ('folded_trailing', 'ends with newline\n'), ('long', 'this is a rather long string that goes on and on and on past the eighty column limit of yaml'), ('longword', 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa')]), 'lists': ['scalar', ['nested', 'list', ['deeper']], OrderedDict([('k1', 'v1'), ('k0', 'v0')]), [], OrderedDict(), None, ['a', 'b'], OrderedDict([('multi', 'l1\nl2\n')])], 'a key with spaces': 'v', 'key:colon': 'v'}}
"##;

    #[test]
    fn pillar_matches_real_salt() {
        let out = render_with("raw", "local", &tricky(), &pillar_opts()).unwrap_or_default();
        assert_eq!(out, SALT_RAW);
        // txt is the same text after "local: ".
        let txt = render_with("txt", "local", &tricky(), &pillar_opts()).unwrap_or_default();
        let inner = SALT_RAW
            .strip_prefix("{'local': ")
            .and_then(|s| s.strip_suffix("}\n"))
            .unwrap_or("");
        assert_eq!(txt, format!("local: {inner}\n"));
    }

    #[test]
    fn plain_dicts_and_text_returns() {
        let opts = OutputOptions::default();
        let mut m = crate::Map::default();
        m.insert("k".into(), Value::Map(crate::Map::default()));
        let v = Value::Map(m);
        assert_eq!(
            render_with("raw", "local", &v, &opts).unwrap_or_default(),
            "{'local': {'k': {}}}\n"
        );
        // `salt-call --out txt cmd.run 'printf "a\nb\n"'` prints one
        // prefixed line per line.
        assert_eq!(
            render_with("txt", "local", &Value::from("a\nb\n"), &opts).unwrap_or_default(),
            "local: a\nlocal: b\n"
        );
        assert_eq!(
            render_with("txt", "local", &Value::from(""), &opts).unwrap_or_default(),
            ""
        );
    }

    #[test]
    fn repr_escapes_like_python() {
        // python3 -c "print(repr('\x85\xa0\u200b\u2028é😀\ue000\x7f'))"
        assert_eq!(
            repr_str("\u{85}\u{a0}\u{200b}\u{2028}é😀\u{e000}\u{7f}"),
            "'\\x85\\xa0\\u200b\\u2028é😀\\ue000\\x7f'"
        );
        assert_eq!(repr_str("it's \"x\""), "'it\\'s \"x\"'");
        assert_eq!(repr_str("it's"), "\"it's\"");
    }
}
