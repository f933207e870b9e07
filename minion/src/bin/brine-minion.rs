//! `brine-minion`: the minion daemon (salt-minion).

use brine_minion::daemon;

fn main() {
    let argv: Vec<String> = std::env::args().skip(1).collect();
    let args = match daemon::parse_args(&argv) {
        Ok(a) => a,
        Err(msg) => {
            eprintln!("{msg}");
            std::process::exit(2);
        }
    };
    brine_minion::logging::init(args.log_level.as_deref(), &args.confdir);
    std::process::exit(daemon::main(&args));
}
