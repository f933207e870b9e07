//! The allocator of every brine process: mimalloc. Compiles allocate and
//! free many small values (YAML nodes, template values, maps); under a
//! fleet's highstate glibc's malloc was a quarter of the master's profile,
//! and `brine-call --local` runs a third faster on mimalloc.
//!
//! By default mimalloc commits whole arenas ahead of use, which doubled a
//! short run's peak RSS; arenas are committed as they are used instead,
//! set before `main` runs so that it holds for every allocation after.

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// `mi_option_arena_eager_commit` (the same index in mimalloc 2 and 3).
const ARENA_EAGER_COMMIT: libmimalloc_sys::mi_option_t = 4;

extern "C" fn commit_on_use() {
    // SAFETY: mi_option_set only stores a value in mimalloc's option
    // table; it may be called at any time, from any thread.
    unsafe { libmimalloc_sys::mi_option_set(ARENA_EAGER_COMMIT, 0) }
}

/// Runs before `main` (the loader calls `.init_array` entries).
#[used]
#[link_section = ".init_array"]
static COMMIT_ON_USE: extern "C" fn() = commit_on_use;

#[cfg(test)]
mod tests {
    #[test]
    fn arenas_are_committed_on_use() {
        // SAFETY: reads mimalloc's option table.
        let v = unsafe { libmimalloc_sys::mi_option_get(super::ARENA_EAGER_COMMIT) };
        assert_eq!(v, 0);
    }
}
