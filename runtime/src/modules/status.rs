//! Salt's `status` module: facts about the running system.

use super::params::Params;
use super::{CallError, Ctx, Function};
use brine_compile::minion_data::functions::Returned;
use brine_core::Value;

pub(super) const FUNCTIONS: &[Function] = &[Function::reads(
    "time",
    "The minion's local time, formatted with FORMAT (strftime; default \
'%A, %d. %B %Y %I:%M%p').\n\n    brine-call status.time '%s'",
    time,
)];

fn time<'c>(_: &Ctx<'c>, mut p: Params) -> Result<Returned<'c>, CallError> {
    let format = p
        .take("format")
        .map(|v| v.to_python_str())
        .unwrap_or_else(|| "%A, %d. %B %Y %I:%M%p".into());
    p.finish()?;
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX));
    crate::sys::strftime_local(now, &format)
        .map(|s| Returned::New(Value::Str(s)))
        .ok_or_else(|| CallError::Failed("embedded null character".into()))
}
