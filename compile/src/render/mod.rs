//! The render pipeline: source text → data, as chosen by the shebang line
//! (`#!jinja|yaml` by default, `#!yaml`, `#!jinja|json`, `#!json`).
//! Shared by pillar SLS, state SLS, top files and PillarStack.

pub mod jinja;
use brine_core::yaml;

pub use jinja::TemplateContext;

use brine_core::Value;
use std::path::{Path, PathBuf};

/// Why a file could not be rendered; always names the file.
#[derive(Debug, thiserror::Error)]
pub enum RenderError {
    #[error("{path}: cannot read: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path}: Jinja error: {source}")]
    Jinja {
        path: PathBuf,
        source: jinja::JinjaError,
    },
    #[error("{path}: YAML error: {source}")]
    Yaml {
        path: PathBuf,
        source: yaml::YamlError,
    },
    #[error("{path}: JSON error: {source}")]
    Json {
        path: PathBuf,
        source: serde_json::Error,
    },
    #[error("{path}: unknown renderer '{name}' in '#!{pipeline}' (supported: jinja, yaml, json)")]
    UnknownRenderer {
        path: PathBuf,
        name: String,
        pipeline: String,
    },
}

/// One stage of a render pipeline.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stage {
    Jinja,
    Yaml,
    Json,
}

/// The pipeline a file asks for with its first line (`#!jinja|yaml`), or the
/// default one, and the text to feed it (the shebang line itself is dropped).
fn pipeline<'a>(path: &Path, text: &'a str) -> Result<(Vec<Stage>, &'a str), RenderError> {
    let Some(rest) = text.strip_prefix("#!") else {
        return Ok((vec![Stage::Jinja, Stage::Yaml], text));
    };
    // The body keeps the shebang line's newline so that line numbers in
    // errors stay those of the file.
    let (line, body) = match rest.find('\n') {
        Some(i) => (&rest[..i], &rest[i..]),
        None => (rest, ""),
    };
    let spec = line.trim();
    let mut stages = Vec::new();
    for name in spec.split('|') {
        // Renderer options (`#!jinja --some-option`) are accepted and ignored.
        let name = name.split_whitespace().next().unwrap_or("");
        stages.push(match name {
            "jinja" => Stage::Jinja,
            "yaml" => Stage::Yaml,
            "json" => Stage::Json,
            other => {
                return Err(RenderError::UnknownRenderer {
                    path: path.to_path_buf(),
                    name: other.to_string(),
                    pipeline: spec.to_string(),
                })
            }
        });
    }
    Ok((stages, body))
}

/// Render `text` (the contents of `path`) through its pipeline.
pub fn render_text(path: &Path, text: &str, ctx: &TemplateContext) -> Result<Value, RenderError> {
    let (stages, body) = pipeline(path, text)?;
    let mut current = std::borrow::Cow::Borrowed(body);
    let mut data: Option<Value> = None;
    for stage in stages {
        match stage {
            Stage::Jinja => {
                let name = path.display().to_string();
                current = std::borrow::Cow::Owned(jinja::render(&name, &current, ctx).map_err(
                    |source| RenderError::Jinja {
                        path: path.to_path_buf(),
                        source,
                    },
                )?);
            }
            Stage::Yaml => {
                data = Some(yaml::load(&current).map_err(|source| RenderError::Yaml {
                    path: path.to_path_buf(),
                    source,
                })?);
            }
            Stage::Json => {
                let trimmed = current.trim();
                data = Some(if trimmed.is_empty() {
                    Value::Null
                } else {
                    serde_json::from_str::<Value>(trimmed).map_err(|source| RenderError::Json {
                        path: path.to_path_buf(),
                        source,
                    })?
                });
            }
        }
    }
    // A pipeline of only `jinja` yields text, which Salt treats as YAML-less
    // output: a string.
    Ok(data.unwrap_or_else(|| Value::Str(current.into_owned())))
}

/// Read `path` and render it.
pub fn render_file(path: &Path, ctx: &TemplateContext) -> Result<Value, RenderError> {
    let text = std::fs::read_to_string(path).map_err(|source| RenderError::Read {
        path: path.to_path_buf(),
        source,
    })?;
    render_text(path, &text, ctx)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shebang_selects_the_pipeline() {
        let p = Path::new("x.sls");
        let (st, body) = pipeline(p, "#!yaml\na: 1\n").unwrap();
        assert_eq!(st, vec![Stage::Yaml]);
        assert_eq!(body, "\na: 1\n");
        let (st, _) = pipeline(p, "#!jinja|json\n{}").unwrap();
        assert_eq!(st, vec![Stage::Jinja, Stage::Json]);
        let (st, body) = pipeline(p, "a: 1").unwrap();
        assert_eq!(st, vec![Stage::Jinja, Stage::Yaml]);
        assert_eq!(body, "a: 1");
        assert!(matches!(
            pipeline(p, "#!py\n"),
            Err(RenderError::UnknownRenderer { .. })
        ));
    }

    #[test]
    fn json_pipeline_renders() {
        let v = render_text(
            Path::new("x.sls"),
            "#!json\n{\"a\": [1, true]}",
            &TemplateContext::default(),
        )
        .unwrap();
        assert_eq!(v.to_json(), serde_json::json!({"a": [1, true]}));
    }
}
