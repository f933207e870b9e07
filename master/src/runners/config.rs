//! Salt's `config` runner: one of the master's options, by a `:` path (or
//! DELIMITER), an `sdb://` value resolved.

use super::runner::{Answer, Runner, RunnerError};
use crate::daemon::MasterConfig;
use brine_compile::sdb;
use brine_core::sig;
use brine_core::{Map, Value};
use brine_runtime::modules::Params;

pub(super) const FUNCTIONS: &[Runner] = &[Runner {
    name: "get",
    sig: sig!(key, default = "", delimiter = ":"),
    doc: "The master's option at KEY (a ':' path, or DELIMITER); DEFAULT (default '') \
when it has none.\n\n    brine-run config.get file_roots:base",
    run: |config, p| Box::pin(async move { get(config, p) }),
}];

fn get(config: &MasterConfig, mut p: Params) -> Result<Answer, RunnerError> {
    let key = p.require("key")?.to_python_str();
    let default = p.take("default").unwrap_or_else(|| Value::from(""));
    let delimiter = p
        .take("delimiter")
        .map_or_else(|| ":".to_string(), |v| v.to_python_str());
    p.finish()?;
    let root = Value::Map(config.opts.clone());
    let Some(found) = root.traverse(&key, &delimiter) else {
        return Ok(Answer::data(default));
    };
    let v = sdb::get(found, &config.opts, &Map::default(), false)
        .map_err(|e| RunnerError::Failed(e.to_string()))?;
    Ok(Answer::data(v))
}
