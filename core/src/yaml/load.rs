//! Loading: the text composed into a node graph (the line-by-line fast
//! path, else saphyr's events) and the graph constructed into a value.

use super::block;
use super::composer::{check_characters, compose, ComposeError};
use super::constructor::Constructor;
use super::error::{Pos, YamlError, YamlErrorKind, MAX_REPARSES};
use crate::Value;

/// Load one YAML document the way Salt's `SaltYamlSafeLoader` does.
/// An empty document is `Value::Null`.
pub fn load(text: &str) -> Result<Value, YamlError> {
    check_characters(text)?;
    if let Some(doc) = block::compose(text) {
        return Constructor::new(&doc.nodes).construct(doc.root, 0);
    }
    let mut patched: Option<String> = None;
    for _ in 0..MAX_REPARSES {
        let src = patched.as_deref().unwrap_or(text);
        match compose(src) {
            Ok(None) => return Ok(Value::Null),
            Ok(Some(doc)) => return Constructor::new(&doc.nodes).construct(doc.root, 0),
            Err(ComposeError::Yaml(e)) => return Err(e),
            // Each retry removes one spot saphyr reads differently, and
            // no patch creates a new one, so this ends.
            Err(ComposeError::Retry(fixed)) => patched = Some(fixed),
        }
    }
    Err(YamlError::new(
        YamlErrorKind::Syntax,
        "too many tab separators or anchor names needing YAML 1.1 treatment",
        Pos { line: 1, column: 1 },
    ))
}
