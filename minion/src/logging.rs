//! Logging through tracing to stderr, at Salt's level names.

use std::path::Path;

/// Map Salt's `log_level` names to a tracing filter (`quiet` silences).
pub fn filter_for(level: &str) -> &'static str {
    match level.to_ascii_lowercase().as_str() {
        "quiet" => "off",
        "critical" | "error" => "error",
        "warning" | "warn" => "warn",
        "info" | "profile" => "info",
        "debug" => "debug",
        "trace" | "garbage" | "all" => "trace",
        _ => "warn",
    }
}

/// Start logging: the command-line level wins over the config's `log_level`.
pub fn init(cli_level: Option<&str>, confdir: &Path) {
    let level = cli_level
        .map(str::to_string)
        .or_else(|| config_level(confdir));
    let filter = filter_for(level.as_deref().unwrap_or("warning"));
    let _ = tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(tracing_subscriber::EnvFilter::new(filter))
        .with_target(false)
        // Colour only on a terminal: a log file (systemd, `2> file`) gets
        // plain text.
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .try_init();
}

/// `log_level` from `CONFDIR/minion`, read leniently: a broken config is
/// reported properly once the config is loaded for real.
fn config_level(confdir: &Path) -> Option<String> {
    let text = std::fs::read_to_string(confdir.join("minion")).ok()?;
    let data = brine_core::yaml::load(&text).ok()?;
    data.get("log_level").map(|v| v.to_python_str())
}
