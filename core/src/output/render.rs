//! Which outputter prints a return, and salt-call's framing of its text
//! (the `{minion_id: ret}` wrapper, the trailing whitespace trimmed, one
//! newline).

use super::options::{OutputError, OutputOptions};
use super::{highstate, json, nested, quiet, raw, yaml};
use crate::py::is_space as python_is_space;
use crate::{Map, Value};

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
