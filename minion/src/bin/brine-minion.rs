//! `brine-minion`: the minion daemon (salt-minion).

use brine_host::sys::{set_mimalloc_option, MimallocOption};
use brine_minion::daemon;

/// mimalloc, as the master's (`master/src/alloc.rs`): a state run and its
/// return allocate and free many small values, and glibc's malloc was a
/// third of the daemon's profile (and of a `--swarm`'s). brine-call keeps
/// glibc's malloc for its smaller peak; this daemon's idle and after-run
/// RSS stay as low with mimalloc (11 and 25 MB measured, 10 and 28 before).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    // Arenas committed as they are used (the master does the same, for
    // its idle RSS).
    set_mimalloc_option(MimallocOption::ArenaEagerCommit, 0);
    // No transparent huge pages: mimalloc asks for them, and every page it
    // gave back and used again was then faulted in as a zeroed 2 MB page —
    // 14 % of a swarm's profile under a fleet highstate was the kernel
    // clearing them. The flag is read at each fault, so what mimalloc
    // mapped before `main` is covered too; a kernel without it changes
    // nothing, so its answer is not needed.
    let _ = nix::sys::prctl::set_thp_disable(true);
    // A job's own process, started by the daemon (see job_process).
    if std::env::args_os()
        .nth(1)
        .is_some_and(|a| a == daemon::job_process::FLAG)
    {
        std::process::exit(daemon::job_main::main());
    }
    let cmd = daemon::command();
    let args = daemon::from_matches(cmd.parse_or_exit(std::env::args_os().skip(1)))
        .unwrap_or_else(|e| cmd.exit_usage(&e));
    if let Some(path) = &args.start.check_salt_config {
        std::process::exit(brine_compile::config_check::main(path));
    }
    let mut opts = brine_minion::logging::options(&args.start.config_dir);
    for (key, value) in &args.start.overrides {
        opts.insert((*key).into(), brine_core::Value::Str(value.clone()));
    }
    let started = args.start.begin(
        |k| brine_compile::opts::text_of(&opts, k),
        &brine_minion::logging::pidfile(&opts),
        brine_minion::logging::default_log_file(&opts),
    );
    if let Err(e) = started {
        eprintln!("brine-minion: {e}");
        std::process::exit(1);
    }
    std::process::exit(daemon::main(&args));
}
