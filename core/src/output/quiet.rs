//! Salt's `quiet` outputter: prints nothing.

use super::OutputOptions;
use crate::Value;

/// Always empty text, so salt-call prints no line at all.
pub fn output(_data: &Value, _opts: &OutputOptions) -> String {
    String::new()
}
