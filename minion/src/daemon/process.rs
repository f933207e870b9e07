//! The process: load the minion's configuration, start the runtime, serve
//! its masters until a stop signal or a fatal refusal.

use super::config::{DaemonArgs, DaemonConfig, DaemonError, EX_CONFIG, MAX_CONCURRENT_JOBS};
use super::masters;
use brine_core::Value;
use brine_runtime::context::Minion;
use std::sync::Arc;
use std::time::Duration;

/// Run the daemon until SIGTERM/SIGINT (exit 0) or a fatal refusal.
/// Returns the process exit code.
pub fn main(args: &DaemonArgs) -> i32 {
    let (mut base, warnings) =
        match Minion::load(&args.start.config_dir, brine_runtime::modules::functions()) {
            Ok(m) => m,
            Err(e) => {
                tracing::error!("{e}");
                eprintln!("Error: {e}");
                return EX_CONFIG;
            }
        };
    base.key_finger = Some(super::keys::finger);
    // Salt's opts say which program runs the functions: state runs of the
    // daemon compile a fresh pillar, salt-call's use the one in memory.
    Arc::make_mut(&mut base.opts).insert("__cli".into(), Value::Str("salt-minion".into()));
    // `--log-file` and the like stand for their options (a job's own
    // process logs where the daemon does).
    for (key, value) in &args.start.overrides {
        Arc::make_mut(&mut base.opts).insert((*key).into(), Value::Str(value.clone()));
    }
    for w in warnings {
        tracing::warn!("{w}");
    }
    let config = match DaemonConfig::from_minion(&base) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("Error: {e}");
            return EX_CONFIG;
        }
    };
    let rt = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        // Functions run on blocking threads; a swarm bounds them itself.
        .max_blocking_threads(MAX_CONCURRENT_JOBS + 8)
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("Error: {}", DaemonError::Runtime(e));
            return EX_CONFIG;
        }
    };
    let code = rt.block_on(masters::serve(config, base, args.swarm));
    // A function still running on a blocking thread does not hold the exit
    // up (its return is lost, as it would be with a crash).
    rt.shutdown_timeout(Duration::from_millis(500));
    code
}
