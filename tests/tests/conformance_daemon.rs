//! Every conformance case checked in masterless mode, run again with a real
//! brine-master and brine-minion on 127.0.0.1 (run.py's `--mode daemon`):
//! `brine --out json ID FUNCTION ...` must answer what Salt 3007.8 answered
//! to `salt-call --local`. The families checked are read from
//! `conformance_local.rs`, so both modes always check the same commands.
//!
//! `BRINE_CONFORMANCE_ONLY=prefix` runs only the cases whose name starts
//! with it.

use brine_tests::{bin, bin_dir, cases_dir, conformance};

#[test]
fn conformance_daemon() {
    for b in ["brine-master", "brine-minion", "brine-key", "brine"] {
        bin(b);
    }
    let families = conformance::families_from_source(include_str!("conformance_local.rs"));
    assert!(!families.is_empty(), "no FAMILIES in conformance_local.rs");
    let only = std::env::var("BRINE_CONFORMANCE_ONLY").unwrap_or_default();
    let mut dirs: Vec<_> = std::fs::read_dir(cases_dir())
        .expect("tests/conformance/cases exists")
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            let name = p
                .file_name()
                .unwrap_or_default()
                .to_string_lossy()
                .into_owned();
            name.starts_with(&only) && families.iter().any(|(f, _)| name.starts_with(f.as_str()))
        })
        .collect();
    dirs.sort();
    assert!(!dirs.is_empty(), "no conformance cases found");
    let bins = bin_dir();
    let outcomes = conformance::run_lanes(&dirs, |d| {
        let name = d
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        conformance::run_case_daemon_checking(d, &bins, |cmd| {
            conformance::checked(&families, &name, cmd)
        })
    });
    let (passed, failed) = conformance::report(&outcomes);
    println!("conformance (daemon): {passed} passed, {failed} failed");
    assert_eq!(
        failed, 0,
        "{failed} conformance command(s) differ from Salt in daemon mode"
    );
}
