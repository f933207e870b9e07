//! `brine-call`: run one function on this minion (salt-call).

use brine_minion::call;

fn main() {
    let argv: Vec<String> = std::env::args().skip(1).collect();
    let cli = match call::parse_cli(&argv) {
        Ok(c) => c,
        Err(msg) => {
            eprintln!("{msg}");
            std::process::exit(2);
        }
    };
    brine_minion::logging::init(cli.log_level.as_deref(), &cli.confdir);
    std::process::exit(call::run(&cli));
}
