//! The text a line-editing state adds: `text`, or the rendered contents of
//! `source` / `sources` (Salt's `_unify_sources_and_hashes` and
//! `_get_template_texts`), shared by `append`, `prepend` and
//! `blockreplace`.

use super::args::{failed, Args};
use super::managed::state_saltenv;
use super::template::{merge_context, render_template};
use crate::{StateCall, StateReturn};
use brine_core::Value;

/// Salt's `_unify_sources_and_hashes`: the source URLs to read (one
/// `source`, or `sources`), or the comment of a conflict.
pub fn unify_sources(args: &Args) -> Result<Vec<String>, String> {
    let source = args.get("source").filter(|v| v.is_truthy());
    let sources = args.get("sources").filter(|v| v.is_truthy());
    if source.is_some() && sources.is_some() {
        return Err("source and sources are mutually exclusive".into());
    }
    let hash = args.get("source_hash").filter(|v| v.is_truthy());
    let hashes = args.get("source_hashes").filter(|v| v.is_truthy());
    if hash.is_some() && hashes.is_some() {
        return Err("source_hash and source_hashes are mutually exclusive".into());
    }
    let url = |v: &Value| match v {
        Value::Map(m) if m.len() == 1 => m.keys().next().cloned().unwrap_or_default(),
        v => v.to_python_str(),
    };
    Ok(match (source, sources) {
        (Some(s), _) => vec![url(s)],
        (None, Some(Value::List(l))) => l.iter().map(url).collect(),
        (None, Some(v)) => vec![url(v)],
        (None, None) => Vec::new(),
    })
}

/// Salt's `_get_template_texts`: each source fetched and rendered with
/// `template` (`defaults` updated by `context`). A failure is the state's
/// return, named after the source, as Salt returns it (with its `data`).
pub fn template_texts(
    call: &StateCall,
    args: &Args,
    sources: &[String],
) -> Result<Vec<String>, Box<StateReturn>> {
    let template = match args.get("template") {
        Some(v) => v.to_python_str(),
        None => "jinja".to_string(),
    };
    let vars = merge_context(args.get("defaults"), args.get("context"));
    let saltenv = state_saltenv(call);
    let fail = |url: &str, comment: String| {
        let mut r = failed(url, comment);
        r.extra.insert("data".into(), Value::List(Vec::new()));
        Box::new(r)
    };
    let mut out = Vec::new();
    for url in sources {
        let Ok(p) = call.ctx.fileclient.cache_file(url, &saltenv) else {
            return Err(fail(url, format!("Failed to load template file {url}")));
        };
        let raw = std::fs::read(&p)
            .map_err(|_| fail(url, format!("Failed to load template file {url}")))?;
        let raw = String::from_utf8_lossy(&raw).into_owned();
        match render_template(call.ctx, &template, &saltenv, url, &raw, vars.clone()) {
            Ok(t) if !t.is_empty() => out.push(t),
            // Salt names the rendered copy, a temporary file, here.
            Ok(_) => {
                return Err(fail(
                    url,
                    format!("Failed to read rendered template file ({url})"),
                ))
            }
            // cp.get_template logs the error and answers nothing.
            Err(_) => return Err(fail(url, format!("Failed to load template file {url}"))),
        }
    }
    Ok(out)
}

/// Salt's `_validate_str_list` of `text`: a string, or each item of a list
/// as Python's `str()`.
pub fn str_list(text: Option<&Value>) -> Vec<String> {
    match text {
        None | Some(Value::Null) => vec!["None".into()],
        Some(Value::Str(s)) => vec![s.clone()],
        Some(Value::List(l)) => l.iter().map(Value::to_python_str).collect(),
        Some(v) => vec![v.to_python_str()],
    }
}
