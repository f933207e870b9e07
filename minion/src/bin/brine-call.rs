//! `brine-call`: run one function on this minion (salt-call).

use brine_host::sys::{set_mimalloc_option, MimallocOption};
use brine_minion::call;

/// mimalloc, as the daemons': a compile allocates and frees many small
/// values (YAML nodes, template values, maps) and glibc's malloc was a
/// quarter of `brine-call --local state.apply`'s profile (32 ms there,
/// 25 ms on mimalloc). Left at its defaults mimalloc raised that run's
/// peak RSS from 19.0 to 22.6 MB; with the options below it is 18.2–18.6
/// MB.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Arenas committed as used, reserved a MiB at a time (not a GiB: the
/// process is small and short), and freed pages handed back after 2 ms
/// instead of 10 (a whole run takes about 25).
extern "C" fn small_footprint() {
    set_mimalloc_option(MimallocOption::ArenaEagerCommit, 0);
    set_mimalloc_option(MimallocOption::ArenaReserve, 1024);
    set_mimalloc_option(MimallocOption::PurgeDelay, 2);
}

/// Runs before `main` (the loader calls `.init_array` entries), so the
/// first arena is already reserved with these options.
#[used]
#[link_section = ".init_array"]
static SMALL_FOOTPRINT: extern "C" fn() = small_footprint;

fn main() {
    // No transparent huge pages (as the minion daemon): a page mimalloc
    // hands back and takes again would be faulted in as a zeroed 2 MB one.
    let _ = nix::sys::prctl::set_thp_disable(true);
    let cmd = call::command();
    let cli = call::from_matches(cmd.parse_or_exit(std::env::args_os().skip(1)))
        .unwrap_or_else(|e| cmd.exit_usage(&e));
    brine_minion::logging::init(cli.log_level.as_deref(), &cli.confdir);
    std::process::exit(call::run(&cli));
}
