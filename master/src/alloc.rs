//! The master's allocator (and so brine, brine-key and brine-run's, which
//! link this crate): mimalloc. The master compiles pillar and states for
//! a whole fleet, allocating and freeing many small values (YAML nodes,
//! template values, maps); under a 1,000-minion highstate glibc's malloc
//! was a quarter of its profile and its heap grew to 964 MB (561 MB on
//! mimalloc, 71 s to the last return instead of 133 s).
//!
//! The minion side's binaries (brine-minion, brine-call) use mimalloc too,
//! each with its own options for a small idle and peak RSS.
//!
//! By default mimalloc commits whole arenas ahead of use; they are
//! committed as used instead (set before `main` runs), which keeps the
//! master's idle RSS down.

use brine_host::sys::{set_mimalloc_option, MimallocOption};

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

extern "C" fn commit_on_use() {
    set_mimalloc_option(MimallocOption::ArenaEagerCommit, 0);
}

/// Runs before `main` (the loader calls `.init_array` entries).
#[used]
#[link_section = ".init_array"]
static COMMIT_ON_USE: extern "C" fn() = commit_on_use;

#[cfg(test)]
mod tests {
    use brine_host::sys::{mimalloc_option, MimallocOption};

    #[test]
    fn arenas_are_committed_on_use() {
        assert_eq!(mimalloc_option(MimallocOption::ArenaEagerCommit), 0);
    }
}
