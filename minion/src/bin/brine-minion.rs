//! `brine-minion`: the minion daemon (salt-minion).

use brine_minion::daemon;

fn main() {
    let cmd = daemon::command();
    let args = daemon::from_matches(cmd.parse_or_exit(std::env::args_os().skip(1)))
        .unwrap_or_else(|e| cmd.exit_usage(&e));
    brine_minion::logging::init(args.log_level.as_deref(), &args.confdir);
    std::process::exit(daemon::main(&args));
}
