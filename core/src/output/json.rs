//! Salt's `json` outputter: Python's `json.dumps(data, indent=4,
//! ensure_ascii=False)` — keys in order, non-ASCII text as is, floats
//! spelled as Python spells them (`1.0`, `1e-07`, `NaN`).

use super::{OutputIndent, OutputOptions};
use crate::value::{key_string, ValueVisitor};
use crate::Value;
use serde::de::{DeserializeSeed, Error, MapAccess, SeqAccess, Visitor};
use std::borrow::Cow;
use std::fmt::Write;

/// The json outputter's text for `data`.
pub fn output(data: &Value, opts: &OutputOptions) -> String {
    let (indent, sort_keys) = layout(opts);
    dumps(data, indent, sort_keys)
}

/// The indent and whether keys are sorted, as `--out-indent` asks.
fn layout(opts: &OutputOptions) -> (Option<usize>, bool) {
    match opts.output_indent {
        OutputIndent::Unset => (Some(4), false),
        OutputIndent::Pretty => (Some(4), true),
        OutputIndent::Spaces(n) if n < 0 => (None, false),
        OutputIndent::Spaces(n) => (Some(usize::try_from(n).unwrap_or(0)), false),
    }
}

/// What separates the items of a list or map: the newline that follows
/// carries the space when there is an indent.
fn item_sep(indent: Option<usize>) -> &'static str {
    if indent.is_some() {
        ","
    } else {
        ", "
    }
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
    let item_sep = item_sep(indent);
    match v {
        Value::Null => out.push_str("null"),
        Value::Bool(true) => out.push_str("true"),
        Value::Bool(false) => out.push_str("false"),
        Value::Int(i) => {
            let _ = write!(out, "{i}");
        }
        Value::Float(f) => write_json_float(out, *f),
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
use crate::py::write_json_float;
/// A JSON string as Python writes it with `ensure_ascii=False`.
fn write_str(out: &mut String, s: &str) {
    crate::py::write_json_str(out, s, false)
}

/// The json outputter's text for one minion's return, `{minion_id: ret}`,
/// written while `ret` is decoded, so no [`Value`] is built for it (the
/// CLI prints a fleet's highstate returns this way). The text is the one
/// [`output`] gives for the decoded value; `None` where this path does not
/// apply (sorted keys, a map repeating a key, which the decoded value
/// would merge) or the bytes do not decode: the caller then decodes the
/// value and renders it.
///
/// `size_hint` is the size of the encoded return: the text is about as
/// long, and reserving it up front saves growing a large buffer step by
/// step.
pub fn return_from<'de, D: serde::Deserializer<'de>>(
    minion_id: &str,
    ret: D,
    opts: &OutputOptions,
    size_hint: usize,
) -> Option<String> {
    let (indent, sort_keys) = layout(opts);
    if sort_keys {
        return None;
    }
    let mut out = String::with_capacity(size_hint.saturating_add(size_hint / 2).min(1 << 30));
    out.push('{');
    newline(&mut out, indent, 1);
    write_str(&mut out, minion_id);
    out.push_str(": ");
    let seed = Transcode {
        out: &mut out,
        indent,
        level: 1,
    };
    seed.deserialize(ret).ok()?;
    newline(&mut out, indent, 0);
    out.push_str("}\n");
    Some(out)
}

/// Writes the value being decoded as [`write_value`] writes the
/// [`Value`] it would decode to: scalars are read by `Value`'s own visitor
/// and written as values; strings, lists and maps are written as they come.
struct Transcode<'o> {
    out: &'o mut String,
    indent: Option<usize>,
    level: usize,
}

impl Transcode<'_> {
    fn nested(&mut self) -> Transcode<'_> {
        Transcode {
            out: self.out,
            indent: self.indent,
            level: self.level + 1,
        }
    }

    fn scalar<E>(self, v: Result<Value, E>) -> Result<(), E> {
        write_value(self.out, &v?, self.indent, false, self.level);
        Ok(())
    }
}

impl<'de> DeserializeSeed<'de> for Transcode<'_> {
    type Value = ();

    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Transcode<'_> {
    type Value = ();

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a Salt value")
    }
    fn visit_unit<E: Error>(self) -> Result<(), E> {
        self.scalar(ValueVisitor.visit_unit())
    }
    fn visit_none<E: Error>(self) -> Result<(), E> {
        self.scalar(ValueVisitor.visit_none())
    }
    fn visit_some<D: serde::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
    fn visit_bool<E: Error>(self, v: bool) -> Result<(), E> {
        self.scalar(ValueVisitor.visit_bool(v))
    }
    fn visit_i64<E: Error>(self, v: i64) -> Result<(), E> {
        self.scalar(ValueVisitor.visit_i64(v))
    }
    fn visit_u64<E: Error>(self, v: u64) -> Result<(), E> {
        self.scalar(ValueVisitor.visit_u64(v))
    }
    fn visit_f64<E: Error>(self, v: f64) -> Result<(), E> {
        self.scalar(ValueVisitor.visit_f64(v))
    }
    fn visit_str<E: Error>(self, v: &str) -> Result<(), E> {
        write_str(self.out, v);
        Ok(())
    }
    fn visit_bytes<E: Error>(self, v: &[u8]) -> Result<(), E> {
        self.scalar(ValueVisitor.visit_bytes(v))
    }
    fn visit_seq<A: SeqAccess<'de>>(mut self, mut seq: A) -> Result<(), A::Error> {
        let start = self.out.len();
        self.out.push('[');
        let mut n = 0;
        loop {
            let mark = self.out.len();
            if n > 0 {
                self.out.push_str(item_sep(self.indent));
            }
            newline(self.out, self.indent, self.level + 1);
            if seq.next_element_seed(self.nested())?.is_none() {
                self.out.truncate(mark);
                break;
            }
            n += 1;
        }
        if n == 0 {
            self.out.truncate(start);
            self.out.push_str("[]");
            return Ok(());
        }
        newline(self.out, self.indent, self.level);
        self.out.push(']');
        Ok(())
    }
    fn visit_map<A: MapAccess<'de>>(mut self, mut map: A) -> Result<(), A::Error> {
        let mut seen = SeenKeys {
            hint: map.size_hint().unwrap_or(0),
            ..SeenKeys::default()
        };
        let mut n = 0;
        while let Some(key) = map.next_key_seed(KeyText)? {
            if !seen.insert(key.clone()) {
                return Err(Error::custom("a key repeated in a map"));
            }
            self.out
                .push_str(if n == 0 { "{" } else { item_sep(self.indent) });
            newline(self.out, self.indent, self.level + 1);
            write_str(self.out, &key);
            self.out.push_str(": ");
            map.next_value_seed(self.nested())?;
            n += 1;
        }
        if n == 0 {
            self.out.push_str("{}");
            return Ok(());
        }
        newline(self.out, self.indent, self.level);
        self.out.push('}');
        Ok(())
    }
}

/// A map key as the text [`Value`]'s decoding stores it under: a string
/// as it is (borrowed when it can be), anything else decoded as `Value`
/// decodes it and turned into text by [`key_string`].
struct KeyText;

impl<'de> DeserializeSeed<'de> for KeyText {
    type Value = Cow<'de, str>;

    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for KeyText {
    type Value = Cow<'de, str>;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a Salt value")
    }
    fn visit_borrowed_str<E: Error>(self, v: &'de str) -> Result<Self::Value, E> {
        Ok(v.into())
    }
    fn visit_str<E: Error>(self, v: &str) -> Result<Self::Value, E> {
        Ok(v.to_string().into())
    }
    fn visit_string<E: Error>(self, v: String) -> Result<Self::Value, E> {
        Ok(v.into())
    }
    fn visit_unit<E: Error>(self) -> Result<Self::Value, E> {
        text(ValueVisitor.visit_unit())
    }
    fn visit_none<E: Error>(self) -> Result<Self::Value, E> {
        text(ValueVisitor.visit_none())
    }
    fn visit_some<D: serde::Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        text(ValueVisitor.visit_some(d))
    }
    fn visit_bool<E: Error>(self, v: bool) -> Result<Self::Value, E> {
        text(ValueVisitor.visit_bool(v))
    }
    fn visit_i64<E: Error>(self, v: i64) -> Result<Self::Value, E> {
        text(ValueVisitor.visit_i64(v))
    }
    fn visit_u64<E: Error>(self, v: u64) -> Result<Self::Value, E> {
        text(ValueVisitor.visit_u64(v))
    }
    fn visit_f64<E: Error>(self, v: f64) -> Result<Self::Value, E> {
        text(ValueVisitor.visit_f64(v))
    }
    fn visit_bytes<E: Error>(self, v: &[u8]) -> Result<Self::Value, E> {
        text(ValueVisitor.visit_bytes(v))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
        text(ValueVisitor.visit_seq(seq))
    }
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
        text(ValueVisitor.visit_map(map))
    }
}

/// A decoded key that is not a string, as text.
fn text<'de, E>(v: Result<Value, E>) -> Result<Cow<'de, str>, E> {
    v.map(|v| key_string(&v).into())
}

/// The keys of one map so far: a short list, a set once it grows.
#[derive(Default)]
struct SeenKeys<'de> {
    few: Vec<Cow<'de, str>>,
    // foldhash, as `Map`'s: a highstate return's thousands of state tags
    // went through SipHash here, a tenth of the CLI's CPU.
    many: std::collections::HashSet<Cow<'de, str>, crate::value::MapHasher>,
    /// How many keys the map says it holds: the set's size when it is made.
    hint: usize,
}

impl<'de> SeenKeys<'de> {
    /// False when `key` was seen before.
    fn insert(&mut self, key: Cow<'de, str>) -> bool {
        const FEW: usize = 16;
        if self.many.is_empty() {
            if self.few.contains(&key) {
                return false;
            }
            if self.few.len() < FEW {
                self.few.push(key);
                return true;
            }
            // The hint is the peer's word: capped, the set grows past it.
            self.many.reserve(self.hint.clamp(2 * FEW, 4096));
            self.many.extend(self.few.drain(..));
        }
        self.many.insert(key)
    }
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

    /// The return as msgpack (named maps, as a minion packs it).
    fn packed(v: &Value) -> Vec<u8> {
        rmp_serde::to_vec_named(v).unwrap()
    }

    fn transcoded(bytes: &[u8], opts: &OutputOptions) -> Option<String> {
        let mut de = rmp_serde::Deserializer::from_read_ref(bytes);
        return_from("web1", &mut de, opts, bytes.len())
    }

    fn decoded(bytes: &[u8], opts: &OutputOptions) -> String {
        let v: Value = rmp_serde::from_slice(bytes).unwrap();
        super::super::render_owned("json", "web1", v, opts).unwrap()
    }

    #[test]
    fn a_return_written_while_decoded_reads_as_the_decoded_value_written() {
        let mut odd = crate::Map::default();
        odd.insert("big".into(), Value::Float(u64::MAX as f64));
        odd.insert(
            "floats".into(),
            Value::List(vec![
                Value::Float(f64::NAN),
                Value::Float(-0.0),
                Value::Float(1e16),
            ]),
        );
        odd.insert(
            "empties".into(),
            Value::List(vec![
                Value::List(vec![]),
                Value::Map(Default::default()),
                Value::Null,
            ]),
        );
        let values = [
            tricky(),
            Value::Map(odd),
            Value::Null,
            Value::from("x"),
            Value::List(vec![]),
        ];
        // Keys that are not strings, u64 past i64, bin, nil, a list key.
        let raw: &[&[u8]] = &[
            &[
                0x84, 0x01, 0xa1, b'x', 0xc3, 0x02, 0xc0, 0x03, 0xcb, 0x3f, 0xf8, 0, 0, 0, 0, 0, 0,
                0x04,
            ],
            &[
                0x82, 0x91, 0x01, 0xa1, b'l', 0xcf, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
                0x91, 0xc4, 0x02, b'h', 0xff,
            ],
        ];
        let indents = [
            OutputIndent::Unset,
            OutputIndent::Spaces(-1),
            OutputIndent::Spaces(0),
            OutputIndent::Spaces(2),
        ];
        for output_indent in indents {
            let opts = OutputOptions {
                output_indent,
                ..OutputOptions::default()
            };
            for bytes in values
                .iter()
                .map(packed)
                .chain(raw.iter().map(|r| r.to_vec()))
            {
                assert_eq!(
                    transcoded(&bytes, &opts).as_deref(),
                    Some(decoded(&bytes, &opts).as_str())
                );
            }
        }
    }

    #[test]
    fn what_the_decoded_value_would_change_is_left_to_it() {
        // A repeated key (the decoded map keeps one entry), sorted keys,
        // bytes that are not one whole value.
        let repeated = [0x82, 0xa1, b'a', 0x01, 0xa1, b'a', 0x02];
        assert_eq!(transcoded(&repeated, &OutputOptions::default()), None);
        let pretty = OutputOptions {
            output_indent: OutputIndent::Pretty,
            ..OutputOptions::default()
        };
        assert_eq!(transcoded(&packed(&tricky()), &pretty), None);
        assert_eq!(transcoded(&[0x92, 0x01], &OutputOptions::default()), None);
    }

    #[test]
    fn a_key_repeated_past_the_short_list_is_seen_in_the_set() {
        // 40 keys (past the list of 16, into the set), then the 3rd again;
        // the map header claims far more than it holds.
        let mut bytes = vec![0xdf, 0xff, 0xff, 0xff, 0xff];
        let key = |i: usize| format!("state_{i}");
        for i in (0..40).chain([3]) {
            let k = key(i);
            bytes.push(0xa0 | k.len() as u8);
            bytes.extend(k.as_bytes());
            bytes.push(0xc0);
        }
        assert_eq!(transcoded(&bytes, &OutputOptions::default()), None);
        // Without the repeat, a whole 40-key map is one transcoded value.
        let mut whole = vec![0xde, 0x00, 40];
        for i in 0..40 {
            let k = key(i);
            whole.push(0xa0 | k.len() as u8);
            whole.extend(k.as_bytes());
            whole.push(0xc0);
        }
        assert_eq!(
            transcoded(&whole, &OutputOptions::default()).as_deref(),
            Some(decoded(&whole, &OutputOptions::default()).as_str())
        );
    }
}
