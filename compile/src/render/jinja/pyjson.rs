//! Python's `json.dumps` output, byte for byte, for the `json` and `tojson`
//! filters: `", "`/`": "` separators, `indent=` layout, `sort_keys`,
//! `ensure_ascii`, float `repr`, `NaN`/`Infinity`.

use super::convert::{self, map_pairs, seq_items};
use minijinja::value::{Value as MjValue, ValueKind};

pub(crate) struct JsonOpts {
    pub sort_keys: bool,
    pub ensure_ascii: bool,
    pub indent: Option<usize>,
}

#[derive(Debug, thiserror::Error)]
#[error("Object of type {0} is not JSON serializable")]
pub(crate) struct NotSerializable(pub String);

pub(crate) fn dumps(v: &MjValue, opts: &JsonOpts) -> Result<String, NotSerializable> {
    let mut out = String::new();
    write_value(v, opts, 0, &mut out)?;
    Ok(out)
}

fn newline(opts: &JsonOpts, depth: usize, out: &mut String) {
    if let Some(n) = opts.indent {
        out.push('\n');
        out.extend(std::iter::repeat_n(' ', n * depth));
    }
}

fn write_value(
    v: &MjValue,
    opts: &JsonOpts,
    depth: usize,
    out: &mut String,
) -> Result<(), NotSerializable> {
    if depth > super::convert::MAX_DEPTH {
        return Err(NotSerializable(
            "a self-containing value (Circular reference detected)".into(),
        ));
    }
    // With an indent Python drops the space after commas.
    let item_sep = if opts.indent.is_some() { "," } else { ", " };
    match v.kind() {
        ValueKind::None | ValueKind::Undefined => out.push_str("null"),
        ValueKind::Bool => out.push_str(if v.is_true() { "true" } else { "false" }),
        ValueKind::Number => out.push_str(&number(v)),
        ValueKind::String => write_str(v.as_str().unwrap_or_default(), opts.ensure_ascii, out),
        ValueKind::Map => {
            let mut pairs: Vec<(String, MjValue)> = Vec::new();
            for (k, x) in map_pairs(v) {
                pairs.push((key(&k)?, x));
            }
            if opts.sort_keys {
                pairs.sort_by(|a, b| a.0.cmp(&b.0));
            }
            if pairs.is_empty() {
                out.push_str("{}");
                return Ok(());
            }
            out.push('{');
            for (i, (k, x)) in pairs.iter().enumerate() {
                if i > 0 {
                    out.push_str(item_sep);
                }
                newline(opts, depth + 1, out);
                write_str(k, opts.ensure_ascii, out);
                out.push_str(": ");
                write_value(x, opts, depth + 1, out)?;
            }
            newline(opts, depth, out);
            out.push('}');
        }
        ValueKind::Seq | ValueKind::Iterable => {
            let items = seq_items(v);
            if items.is_empty() {
                out.push_str("[]");
                return Ok(());
            }
            out.push('[');
            for (i, x) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(item_sep);
                }
                newline(opts, depth + 1, out);
                write_value(x, opts, depth + 1, out)?;
            }
            newline(opts, depth, out);
            out.push(']');
        }
        _ => return Err(NotSerializable(convert::py_repr(v))),
    }
    Ok(())
}

fn number(v: &MjValue) -> String {
    if v.is_integer() {
        return v.to_string();
    }
    brine_core::py::json_float(f64::try_from(v.clone()).unwrap_or(f64::NAN))
}

/// Dict keys: strings as they are; Python turns numbers, booleans and None
/// into their JSON spelling.
fn key(k: &MjValue) -> Result<String, NotSerializable> {
    Ok(match k.kind() {
        ValueKind::String => k.as_str().unwrap_or_default().to_string(),
        ValueKind::None => "null".into(),
        ValueKind::Bool => if k.is_true() { "true" } else { "false" }.into(),
        ValueKind::Number => number(k),
        _ => {
            return Err(NotSerializable(format!(
                "keys must be str, int, float, bool or None, not {}",
                k.kind()
            )))
        }
    })
}

pub(crate) fn write_str(s: &str, ensure_ascii: bool, out: &mut String) {
    brine_core::py::write_json_str(out, s, ensure_ascii)
}
