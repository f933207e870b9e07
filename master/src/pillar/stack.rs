//! PillarStack (`ext_pillar: - stack: ...`).

use crate::MinionData;
use brine_protocol::Value;

#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct StackError(String);

/// The stack built for `minion` from the `stack:` configuration `conf`.
pub fn ext_pillar(
    minion: &MinionData,
    pillar: &Value,
    conf: &Value,
    pillarenv: Option<&str>,
) -> Result<Value, StackError> {
    let _ = (minion, pillar, conf, pillarenv);
    Err(StackError("PillarStack not built yet".into()))
}
