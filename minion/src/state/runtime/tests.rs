//! Runtime behaviour checked against what Salt 3007.8 answered for the
//! same low chunks.

use super::*;
use crate::state::fileclient::{FileClient, FileClientError};
use std::path::PathBuf;
use std::sync::Arc;

struct NoFiles;
impl FileClient for NoFiles {
    fn cache_file(&self, url: &str, saltenv: &str) -> Result<PathBuf, FileClientError> {
        Err(FileClientError::NotFound {
            url: url.into(),
            saltenv: saltenv.into(),
        })
    }
}

pub(super) fn ctx(test: bool) -> StateContext {
    StateContext {
        opts: Arc::new(Map::new()),
        grains: Arc::new(Map::new()),
        pillar: Arc::new(Map::new()),
        saltenv: "base".into(),
        test,
        fileclient: Arc::new(NoFiles),
    }
}

/// Low chunks from a JSON list, as the compiler would hand them over.
fn lows(json: &str) -> Vec<Map> {
    let j: serde_json::Value = serde_json::from_str(json).unwrap_or_default();
    match Value::from_json(&j) {
        Value::List(l) => l
            .into_iter()
            .filter_map(|v| match v {
                Value::Map(m) => Some(m),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    }
}

#[test]
fn runs_a_chunk() {
    let out = call_high(
        &ctx(false),
        lows(r#"[{"state": "test", "__id__": "a", "name": "a", "fun": "succeed_with_changes", "__sls__": "x", "__env__": "base", "order": 10000}]"#),
    );
    let out = out.unwrap_or_default();
    let r = out.get("test_|-a_|-a_|-succeed_with_changes");
    assert_eq!(r.and_then(|r| r.get("__run_num__")), Some(&Value::Int(0)));
}
