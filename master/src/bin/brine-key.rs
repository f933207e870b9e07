//! `brine-key`: manage the master's minion keys, like salt-key.
//! The logic lives in `brine_master::keys::cli`.

fn main() {
    let argv: Vec<String> = std::env::args().skip(1).collect();
    let stdin = std::io::stdin();
    let mut stdin = stdin.lock();
    let mut stdout = std::io::stdout();
    let mut stderr = std::io::stderr();
    let code = brine_master::keys::cli::main_with(
        &argv,
        &mut brine_master::keys::cli::Io {
            stdin: &mut stdin,
            stdout: &mut stdout,
            stderr: &mut stderr,
        },
    );
    std::process::exit(code);
}
