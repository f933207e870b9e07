//! Every supported conformance case, in masterless mode: `brine-call
//! --local --out json` must answer what Salt 3007.8 answered.
//!
//! `BRINE_CONFORMANCE_ONLY=prefix` runs only the cases whose name starts
//! with it.

use brine_tests::{bin, cases_dir, conformance};

/// Case families brine implements so far, each with the functions whose
/// answers are checked (empty: all of them). Commands of other functions
/// still run, unchecked, so that their effects carry over.
/// The first entry whose prefix names the case applies.
const FAMILIES: &[(&str, &[&str])] = &[
    ("pillar-", &[]),
    ("hiera-", &[]),
    ("jinja-", &[]),
    // Execution modules (`cmd.run`, `file.*`, `test.*` ...) on scratch trees.
    ("exec-", &[]),
    // Public saltstack-formulas trees, unchanged (tests/conformance/formulas).
    ("formula-", &[]),
    (
        "state-",
        &[
            "state.show_",
            "state.apply",
            "state.sls",
            "state.highstate",
            "state.single",
            "state.low",
            "state.test",
        ],
    ),
];

#[test]
fn conformance_local() {
    let brine_call = bin("brine-call");
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
            name.starts_with(&only) && FAMILIES.iter().any(|(f, _)| name.starts_with(f))
        })
        .collect();
    dirs.sort();
    assert!(!dirs.is_empty(), "no conformance cases found");
    let outcomes = conformance::run_lanes(&dirs, |d| {
        let name = d
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        let checked: &[&str] = FAMILIES
            .iter()
            .find(|(f, _)| name.starts_with(f))
            .map(|(_, funs)| *funs)
            .unwrap_or(&[]);
        conformance::run_case_local_checking(d, &brine_call, |cmd| {
            checked.is_empty() || checked.iter().any(|f| cmd.starts_with(f))
        })
    });
    let (passed, failed) = conformance::report(&outcomes);
    println!("conformance: {passed} passed, {failed} failed");
    assert_eq!(
        failed, 0,
        "{failed} conformance command(s) differ from Salt"
    );
}
