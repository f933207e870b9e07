//! The `cmd_yaml` and `cmd_json` ext_pillars: a shell command (`%s` made
//! the minion's id) whose output is read as YAML or JSON. Output that does
//! not parse is logged and adds nothing, as Salt's.

use crate::command;
use brine_core::{yaml, Value};
use std::process::Command;
use std::time::Duration;

/// How long the command may run (Salt sets no bound; a pillar compile
/// must end).
const TIMEOUT: Duration = Duration::from_secs(120);

/// The most output it may print.
const MAX_OUTPUT: usize = 16 << 20;

/// Which format the output is read as.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Format {
    Yaml,
    Json,
}

/// Run `conf` (the command) for `minion_id`; the data it printed.
pub fn ext_pillar(format: Format, minion_id: &str, conf: &Value) -> Value {
    crate::inputs::volatile(|| "ran a cmd ext_pillar".into());
    let command = conf.to_python_str().replace("%s", minion_id);
    let mut cmd = Command::new("/bin/sh");
    cmd.arg("-c").arg(&command);
    let output = match command::run(cmd, b"", TIMEOUT, MAX_OUTPUT) {
        Ok(out) => String::from_utf8_lossy(&out.stdout).into_owned(),
        Err(e) => {
            tracing::error!("ext_pillar command '{command}': {e}");
            String::new()
        }
    };
    let parsed = match format {
        Format::Yaml => yaml::load(output.trim_end_matches('\n')).map_err(|e| e.to_string()),
        Format::Json => serde_json::from_str::<Value>(output.trim()).map_err(|e| e.to_string()),
    };
    match parsed {
        Ok(v) => v,
        Err(_) if format == Format::Yaml => {
            tracing::error!(
                "YAML data from '{command}' failed to parse. Command output:\n{output}"
            );
            Value::Map(Default::default())
        }
        Err(_) => {
            tracing::error!("JSON data from {command} failed to parse");
            Value::Map(Default::default())
        }
    }
}
