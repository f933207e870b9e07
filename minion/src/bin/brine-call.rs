//! `brine-call`: run one function on this minion (salt-call).

use brine_minion::call;

fn main() {
    let cmd = call::command();
    let cli = call::from_matches(cmd.parse_or_exit(std::env::args_os().skip(1)))
        .unwrap_or_else(|e| cmd.exit_usage(&e));
    brine_minion::logging::init(cli.log_level.as_deref(), &cli.confdir);
    std::process::exit(call::run(&cli));
}
