//! Templates for file states: `template: jinja` sources rendered with
//! Salt's context plus `defaults` and `context`.

use crate::StateContext;
use brine_compile::render::jinja::{self, TemplateContext, TemplateFetch};
use brine_compile::MinionData;
use brine_core::{Map, Value};
use std::path::PathBuf;
use std::sync::Arc;

/// Why a template did not render.
#[derive(Debug)]
pub enum TemplateError {
    /// Salt's "Specified template format X is not supported".
    Unsupported(String),
    /// The renderer's own message.
    Render(String),
}

impl std::fmt::Display for TemplateError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TemplateError::Unsupported(t) => {
                write!(f, "Specified template format {t} is not supported")
            }
            TemplateError::Render(m) => f.write_str(m),
        }
    }
}

/// Render `text` with a Salt template engine (only `jinja` in brine), with
/// `grains`, `pillar`, `opts`, `saltenv` from the run and `vars` on top
/// (Salt's `context`/`defaults` and the per-function names like `name`).
pub fn render_template(
    ctx: &StateContext,
    template: &str,
    saltenv: &str,
    what: &str,
    text: &str,
    vars: Vec<(String, Value)>,
) -> Result<String, TemplateError> {
    if template != "jinja" {
        return Err(TemplateError::Unsupported(template.to_string()));
    }
    let id = ctx
        .opts
        .get("id")
        .or_else(|| ctx.grains.get("id"))
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string();
    let minion = MinionData {
        id,
        grains: Value::Map((*ctx.grains).clone()),
        pillar: Value::Map((*ctx.pillar).clone()),
        opts: Value::Map((*ctx.opts).clone()),
        functions: ctx.functions.clone(),
    };
    let search_paths: Vec<PathBuf> = brine_compile::opts::roots(&ctx.opts, "file_roots")
        .get(saltenv)
        .cloned()
        .unwrap_or_default();
    // Names the local roots do not hold come through the file client (a
    // daemon minion's are on its master).
    let client = ctx.fileclient.clone();
    let env = saltenv.to_string();
    let fetch = TemplateFetch(Arc::new(move |name: &str| {
        client.cache_file(&format!("salt://{name}"), &env).ok()
    }));
    let tctx = TemplateContext {
        minion: Arc::new(minion),
        saltenv: saltenv.to_string(),
        search_paths,
        fetch: Some(fetch),
        extra: vars,
        ..Default::default()
    };
    jinja::render(what, text, &tctx).map_err(|e| TemplateError::Render(e.to_string()))
}

/// `defaults` updated with `context` (Salt's template context dict).
pub fn merge_context(defaults: Option<&Value>, context: Option<&Value>) -> Vec<(String, Value)> {
    let mut out: Map = Map::default();
    for v in [defaults, context].into_iter().flatten() {
        if let Value::Map(m) = v {
            for (k, v) in m {
                out.insert(k.clone(), v.clone());
            }
        }
    }
    out.into_iter().collect()
}
