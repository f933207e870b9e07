//! A mapping printed entry by entry: what [`render_data`] prints for a
//! `{key: value, ...}` mapping (a runner's `{minion: return}`), written as
//! each entry is read, so memory holds one entry, not the mapping.
//!
//! Each outputter prints a top-level mapping as its entries' texts in a
//! frame: `{` … `,` … `}` for `json` and `raw`, lines joined for `nested`
//! and `highstate`, texts run together for `yaml`, `txt` and `quiet`. An
//! entry's text is the outputter's text for the one-entry mapping with the
//! frame taken off. Two cases differ: `yaml` in flow style is printed whole
//! (its lines wrap at a column that depends on what came before), and
//! `highstate` reads the entries twice, since one return that is not a
//! state run makes Salt print the whole mapping with `nested`.
//!
//! [`render_data`]: super::render_data

use super::{highstate, named, python_is_space, text_of};
use super::{OutputError, OutputIndent, OutputOptions, Outputter};
use crate::{Map, Value};
use std::io::Write;

/// The order entries must be given in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyOrder {
    /// Sorted by key (`nested` sorts a plain dict; `json` with
    /// `output_indent: pretty`).
    Sorted,
    /// As the mapping has them.
    AsGiven,
}

/// Why a streamed mapping could not be printed.
#[derive(Debug, thiserror::Error)]
pub enum StreamError<E: std::error::Error + 'static> {
    #[error(transparent)]
    Output(#[from] OutputError),
    #[error("cannot write the output: {0}")]
    Write(#[source] std::io::Error),
    /// The entries' source failed.
    #[error(transparent)]
    Source(E),
}

/// What is done with each entry: print it (or look at it).
pub type Each<'a, E> = dyn FnMut(&str, Value) -> Result<(), StreamError<E>> + 'a;

/// Where the entries come from: called once per pass, it gives every entry
/// in `order` to `each` and stops at the first error `each` returns.
pub trait Entries {
    type Error: std::error::Error + 'static;

    fn for_each(
        &mut self,
        order: KeyOrder,
        each: &mut Each<'_, Self::Error>,
    ) -> Result<(), StreamError<Self::Error>>;
}

/// Print the mapping `entries` gives with outputter `out`, byte for byte
/// what [`super::render_data`] prints for the whole mapping.
pub fn render_entries<S: Entries + ?Sized>(
    out: &str,
    opts: &OutputOptions,
    entries: &mut S,
    w: &mut dyn Write,
) -> Result<(), StreamError<S::Error>> {
    let outputter = match named(out) {
        Outputter::Highstate if !all_state_runs(opts, entries)? => Outputter::Nested,
        o => o,
    };
    let flow_yaml = matches!(opts.output_indent, OutputIndent::Spaces(n) if n < 0)
        && outputter == Outputter::Yaml;
    if flow_yaml {
        let mut whole = Map::default();
        entries.for_each(KeyOrder::AsGiven, &mut |k, v| {
            whole.insert(k.to_string(), v);
            Ok(())
        })?;
        let text = super::render_data(out, &Value::Map(whole), opts)?;
        return w.write_all(text.as_bytes()).map_err(StreamError::Write);
    }
    let frame = Frame::of(outputter, opts);
    let mut printer = Trimmed::new(w);
    let mut count = 0usize;
    entries.for_each(frame.order, &mut |key, value| {
        let mut one = Map::default();
        one.insert(key.to_string(), value);
        let text = text_of(outputter, &Value::Map(one), opts)?;
        let body = text
            .strip_prefix(frame.open)
            .and_then(|t| t.strip_suffix(frame.close.as_str()))
            .unwrap_or(&text);
        if count == 0 {
            printer.write(frame.open)?;
        } else {
            printer.write(frame.separator)?;
        }
        count += 1;
        printer.write(body)
    })?;
    if count == 0 {
        // An empty mapping has its own text (`{}` in json, raw and yaml).
        let text = text_of(outputter, &Value::Map(Map::default()), opts)?;
        printer.write(&text)?;
    } else {
        printer.write(&frame.close)?;
    }
    printer.finish()
}

/// Whether every entry is a state run the highstate outputter prints.
fn all_state_runs<S: Entries + ?Sized>(
    opts: &OutputOptions,
    entries: &mut S,
) -> Result<bool, StreamError<S::Error>> {
    let mut all = true;
    entries.for_each(KeyOrder::AsGiven, &mut |k, v| {
        if all {
            let mut one = Map::default();
            one.insert(k.to_string(), v);
            all = highstate::output(&Value::Map(one), opts).is_some();
        }
        Ok(())
    })?;
    Ok(all)
}

/// How an outputter frames a mapping's entries.
struct Frame {
    order: KeyOrder,
    open: &'static str,
    separator: &'static str,
    close: String,
}

impl Frame {
    fn of(outputter: Outputter, opts: &OutputOptions) -> Frame {
        let plain = |separator| Frame {
            order: KeyOrder::AsGiven,
            open: "",
            separator,
            close: String::new(),
        };
        match outputter {
            Outputter::Nested => Frame {
                // The top of a runner's answer is a plain dict.
                order: KeyOrder::Sorted,
                ..plain("\n")
            },
            Outputter::Highstate => plain("\n"),
            Outputter::Yaml | Outputter::Txt | Outputter::Quiet => plain(""),
            Outputter::Raw => Frame {
                open: "{",
                separator: ", ",
                close: "}".into(),
                ..plain("")
            },
            Outputter::Json => {
                let (order, indent) = match opts.output_indent {
                    OutputIndent::Unset => (KeyOrder::AsGiven, Some(4)),
                    OutputIndent::Pretty => (KeyOrder::Sorted, Some(4)),
                    OutputIndent::Spaces(n) if n < 0 => (KeyOrder::AsGiven, None),
                    OutputIndent::Spaces(_) => (KeyOrder::AsGiven, Some(0)),
                };
                Frame {
                    order,
                    open: "{",
                    separator: if indent.is_some() { "," } else { ", " },
                    // json.dumps ends a mapping on its own line at level 0
                    // when indenting, whatever the indent.
                    close: if indent.is_some() { "\n}" } else { "}" }.into(),
                }
            }
        }
    }
}

/// Salt's final trim, streamed: trailing whitespace is held back until more
/// text follows, and one newline ends any output that is not empty.
struct Trimmed<'a> {
    w: &'a mut dyn Write,
    held: String,
    wrote: bool,
}

impl<'a> Trimmed<'a> {
    fn new(w: &'a mut dyn Write) -> Self {
        Trimmed {
            w,
            held: String::new(),
            wrote: false,
        }
    }

    fn write<E: std::error::Error + 'static>(&mut self, s: &str) -> Result<(), StreamError<E>> {
        let text = s.trim_end_matches(python_is_space);
        if text.is_empty() {
            self.held.push_str(s);
            return Ok(());
        }
        self.w
            .write_all(self.held.as_bytes())
            .and_then(|()| self.w.write_all(text.as_bytes()))
            .map_err(StreamError::Write)?;
        self.held.clear();
        self.held.push_str(&s[text.len()..]);
        self.wrote = true;
        Ok(())
    }

    fn finish<E: std::error::Error + 'static>(self) -> Result<(), StreamError<E>> {
        if self.wrote {
            self.w.write_all(b"\n").map_err(StreamError::Write)?;
        }
        self.w.flush().map_err(StreamError::Write)
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::tricky;
    use super::*;

    /// A mapping as an entry source.
    struct FromMap(Map);

    impl Entries for FromMap {
        type Error = std::convert::Infallible;

        fn for_each(
            &mut self,
            order: KeyOrder,
            each: &mut Each<'_, Self::Error>,
        ) -> Result<(), StreamError<Self::Error>> {
            let mut keys: Vec<&String> = self.0.keys().collect();
            if order == KeyOrder::Sorted {
                keys.sort();
            }
            for k in keys {
                each(k, self.0.get(k).cloned().unwrap_or_default())?;
            }
            Ok(())
        }
    }

    fn state_run() -> Value {
        let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("src/output/testdata/highstate/mix.json");
        let text = std::fs::read_to_string(&p).unwrap_or_default();
        let j: serde_json::Value = serde_json::from_str(&text).unwrap_or_default();
        Value::from_json(&j)
            .get("local")
            .cloned()
            .unwrap_or_default()
    }

    fn mappings() -> Vec<Map> {
        let mut out = vec![Map::default()];
        let mut one = Map::default();
        one.insert("solo".into(), Value::from("text ending in a newline\n"));
        out.push(one);
        let mut many = Map::default();
        many.insert("web2".into(), tricky());
        many.insert("web10".into(), Value::Bool(true));
        many.insert("a-db".into(), Value::from("Minion did not return"));
        many.insert("blank".into(), Value::from(""));
        many.insert("list".into(), Value::List(vec![Value::Int(1), Value::Null]));
        many.insert("empty".into(), Value::Map(Map::default()));
        out.push(many);
        let mut states = Map::default();
        states.insert("m2".into(), state_run());
        states.insert("m1".into(), state_run());
        out.push(states.clone());
        states.insert(
            "broken".into(),
            Value::List(vec![Value::from("not a state run")]),
        );
        out.push(states);
        out
    }

    /// Every outputter and option streams the bytes it prints whole.
    #[test]
    fn streamed_equals_whole() {
        let indents = [
            OutputIndent::Unset,
            OutputIndent::Pretty,
            OutputIndent::Spaces(-1),
            OutputIndent::Spaces(0),
            OutputIndent::Spaces(2),
        ];
        for out in ["nested", "json", "yaml", "raw", "txt", "quiet", "highstate"] {
            for indent in indents {
                for color in [false, true] {
                    for m in mappings() {
                        let opts = OutputOptions {
                            color,
                            output_indent: indent,
                            ..OutputOptions::default()
                        };
                        let whole =
                            super::super::render_data(out, &Value::Map(m.clone()), &opts).ok();
                        let mut got = Vec::new();
                        let streamed =
                            render_entries(out, &opts, &mut FromMap(m.clone()), &mut got);
                        assert!(streamed.is_ok(), "{out} {indent:?}: {streamed:?}");
                        let got = String::from_utf8(got).ok();
                        assert_eq!(got, whole, "{out} {indent:?} color={color} {:?}", m.keys());
                    }
                }
            }
        }
    }
}
