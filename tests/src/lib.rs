//! Shared by the end-to-end tests: locating the built binaries, a relay
//! that can cut a minion off its master (`partition`), the real fleet's
//! recordings they replay (`recorded`; masterless ones: `masterless`), and the
//! conformance runner that replays `tests/conformance/cases` (copied from
//! what real Salt 3007.8 answered) against brine and compares.

pub mod conformance;
pub mod daemon;
pub mod gitserve;
pub mod http;
pub mod masterless;
pub mod orch;
pub mod partition;
pub mod recorded;
pub mod replay;
pub mod webdriver;

use std::path::PathBuf;

/// The folder holding the workspace's built binaries (`target/debug` for
/// `cargo test`), or `BRINE_BIN_DIR` when set.
pub fn bin_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("BRINE_BIN_DIR") {
        return PathBuf::from(dir);
    }
    // Test executables live in target/<profile>/deps/.
    let exe = std::env::current_exe().unwrap_or_default();
    let deps = exe.parent().map(PathBuf::from).unwrap_or_default();
    deps.parent().map(PathBuf::from).unwrap_or(deps)
}

/// Path of one built binary; panics with a clear message if it is missing,
/// since every end-to-end test needs it.
pub fn bin(name: &str) -> PathBuf {
    let p = bin_dir().join(name);
    assert!(
        p.is_file(),
        "{} not found: build the binaries first (cargo build --workspace --bins)",
        p.display()
    );
    p
}

/// The copied conformance cases.
pub fn cases_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("conformance/cases")
}
