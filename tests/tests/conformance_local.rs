//! Every supported conformance case, in masterless mode: `brine-call
//! --local --out json` must answer what Salt 3007.8 answered.

use brine_tests::{bin, cases_dir, conformance};

/// Case families brine implements so far; the rest (state-*, hiera-*) join
/// as the state compiler, runtime and Hiera land.
const FAMILIES: &[&str] = &["pillar-", "hiera-"];

#[test]
fn conformance_local() {
    let brine_call = bin("brine-call");
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
            FAMILIES.iter().any(|f| name.starts_with(f))
        })
        .collect();
    dirs.sort();
    assert!(!dirs.is_empty(), "no conformance cases found");
    let mut outcomes = Vec::new();
    for d in &dirs {
        outcomes.extend(conformance::run_case_local(d, &brine_call));
    }
    let (passed, failed) = conformance::report(&outcomes);
    println!("conformance: {passed} passed, {failed} failed");
    assert_eq!(
        failed, 0,
        "{failed} conformance command(s) differ from Salt"
    );
}
