//! Compile stage: high data → low chunks, as Salt 3007.8's `State` does it.
//!
//! The steps, one Salt concept per module:
//! - [`extend`]: `reconcile_extend`, merging `__extend__` into the states;
//! - [`verify`]: `verify_high`, the structural checks and their messages;
//! - [`requisite_in`]: `*_in`, `use`/`use_in`, `prereq` → more extends;
//! - [`exclude`]: `apply_exclude`, dropping `__exclude__`d IDs;
//! - [`low`] + [`names`] + [`order`]: `compile_high_data` and `order_chunks`.
//!
//! How Salt chains them differs per function (`salt/modules/state.py`):
//! - `show_lowstate` / highstate compile (`compile_low_chunks`): the whole
//!   [`prepare_high`], all errors together, then [`compile_high_data`];
//! - `state.apply`/`state.sls` (`call_high`): [`prepare_high_for_call`],
//!   which stops after `verify_high` when extend or verify failed;
//! - `show_sls`: the rendered high data untouched (`__extend__` and
//!   `__exclude__` still in it) plus [`verify_high`]'s errors;
//! - `show_low_sls`: [`verify_high`], then [`compile_high_data`] of the
//!   unreconciled data (extends, `*_in` and excludes are not applied);
//! - `sls_id`: [`verify_high`] + [`requisite_in`] (which drops the
//!   rendered `__extend__`), no exclude.

mod exclude;
mod extend;
mod lookup;
mod low;
mod names;
mod order;
mod py;
mod requisite_in;
mod verify;

pub use exclude::apply_exclude;
pub use extend::reconcile_extend;
pub use low::{compile_high_data, compile_high_data_owned};
pub use requisite_in::requisite_in;
pub use verify::verify_high;

use super::HighData;
use brine_core::Value;

/// `compile_low_chunks`' reconciliation: `reconcile_extend`, `verify_high`,
/// `requisite_in` (with its strict `reconcile_extend`), `apply_exclude`.
/// Returns the reconciled high data and every error, in Salt's order; the
/// caller compiles only when there are none.
pub fn prepare_high(high: HighData) -> (HighData, Vec<String>) {
    prepare_high_with(high, &[])
}

/// [`prepare_high`] honouring the minion's `disabled_requisites`.
pub fn prepare_high_with(
    high: HighData,
    disabled_requisites: &[String],
) -> (HighData, Vec<String>) {
    let (high, mut errors) = reconcile_extend(high, false);
    errors.extend(verify_high(&high));
    let (high, req_in_errors) = requisite_in(high, disabled_requisites);
    errors.extend(req_in_errors);
    (apply_exclude(high), errors)
}

/// The compile of a state run after rendering (state.apply, state.sls,
/// state.highstate — on the master for a minion, or in `brine-call
/// --local`): the call's `exclude=` joins `__exclude__`, the
/// `disabled_requisites` option applies, then [`prepare_high_for_call`].
pub fn prepare_run(
    mut high: HighData,
    exclude: Option<&Value>,
    opts: &brine_core::Map,
) -> Result<HighData, Vec<String>> {
    if let Some(ex) = exclude.filter(|v| v.is_truthy()) {
        let items: Vec<Value> = match ex {
            Value::List(l) => l.clone(),
            other => brine_core::args::split_input(other)
                .into_iter()
                .map(Value::Str)
                .collect(),
        };
        match high.get_mut("__exclude__") {
            Some(Value::List(l)) => l.extend(items),
            _ => {
                high.insert("__exclude__".into(), Value::List(items));
            }
        }
    }
    let disabled: Vec<String> = match opts.get("disabled_requisites") {
        Some(Value::List(l)) => l.iter().map(Value::to_python_str).collect(),
        Some(Value::Str(s)) => vec![s.clone()],
        _ => Vec::new(),
    };
    prepare_high_for_call(high, &disabled)
}

/// `call_high`'s reconciliation (state.apply, state.sls): like
/// [`prepare_high_with`], but extend and verify errors stop it before
/// requisite_in, so only they are reported.
pub fn prepare_high_for_call(
    high: HighData,
    disabled_requisites: &[String],
) -> Result<HighData, Vec<String>> {
    let (high, mut errors) = reconcile_extend(high, false);
    errors.extend(verify_high(&high));
    if !errors.is_empty() {
        return Err(errors);
    }
    let (high, errors) = requisite_in(high, disabled_requisites);
    if !errors.is_empty() {
        return Err(errors);
    }
    Ok(apply_exclude(high))
}

#[cfg(test)]
mod tests {
    //! High → low pairs recorded with real Salt: `state.show_highstate`
    //! fed through the compiler must give `state.show_lowstate` (and
    //! `show_sls`/`show_low_sls` their answers), byte for byte in JSON.

    use super::*;
    use brine_core::{Map, Value};
    use serde_json::Value as Json;
    use std::path::{Path, PathBuf};

    fn cases_dir() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/conformance/cases")
    }

    fn read_json(path: &Path) -> Json {
        let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path:?}: {e}"));
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path:?}: {e}"))
    }

    fn high_of(j: &Json) -> HighData {
        match Value::from_json(j) {
            Value::Map(m) => m,
            other => panic!("not high data: {other:?}"),
        }
    }

    fn to_json_list(items: impl IntoIterator<Item = Value>) -> Json {
        Json::Array(items.into_iter().map(|v| v.to_json()).collect())
    }

    fn errors_json(errors: Vec<String>) -> Json {
        to_json_list(errors.into_iter().map(Value::Str))
    }

    fn chunks_json(chunks: Vec<Map>) -> Json {
        to_json_list(chunks.into_iter().map(Value::Map))
    }

    /// What `state.show_lowstate` answers for this high data.
    fn show_lowstate(high: HighData) -> Json {
        let (high, errors) = prepare_high(high);
        if !errors.is_empty() {
            return errors_json(errors);
        }
        match compile_high_data(&high) {
            Ok(chunks) => chunks_json(chunks),
            Err(errors) => errors_json(errors),
        }
    }

    /// What `state.show_sls` answers: the rendered data, or verify errors.
    fn show_sls(high: HighData) -> Json {
        let errors = verify_high(&high);
        if !errors.is_empty() {
            return errors_json(errors);
        }
        Value::Map(high).to_json()
    }

    /// What `state.show_low_sls` answers: no extend, requisite_in, exclude.
    fn show_low_sls(high: HighData) -> Json {
        let errors = verify_high(&high);
        if !errors.is_empty() {
            return errors_json(errors);
        }
        match compile_high_data(&high) {
            Ok(chunks) => chunks_json(chunks),
            Err(errors) => errors_json(errors),
        }
    }

    fn assert_same(what: &str, got: &Json, want: &Json) {
        if got != want {
            panic!(
                "{what} differs from Salt\n--- brine:\n{}\n--- salt:\n{}",
                serde_json::to_string_pretty(got).unwrap_or_default(),
                serde_json::to_string_pretty(want).unwrap_or_default()
            );
        }
    }

    /// Every recorded command of a case whose high data is known: the
    /// case's own `show_highstate` (or `show_sls`) answer, else a fixture.
    fn check_case(name: &str) {
        check_case_dir(&cases_dir().join(name), name);
    }

    fn check_case_dir(dir: &Path, name: &str) {
        let mut expected: Vec<PathBuf> = std::fs::read_dir(dir.join("expected"))
            .unwrap_or_else(|e| panic!("{name}: {e}"))
            .flatten()
            .map(|e| e.path())
            .collect();
        expected.sort();
        let records: Vec<Json> = expected.iter().map(|p| read_json(p)).collect();
        let fixture = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("src/state/compile/fixtures")
            .join(format!("{name}.high.json"));
        let mut high = fixture
            .exists()
            .then(|| high_of(&read_json(&fixture)["return"]));
        let mut checked = 0;
        for rec in &records {
            let command = rec["command"].as_str().unwrap_or_default();
            let want = &rec["return"];
            let what = format!("{name}: {command}");
            if command == "state.show_highstate" && want.is_object() {
                high = Some(high_of(want));
                continue;
            }
            let Some(h) = high.clone() else { continue };
            if command == "state.show_lowstate" {
                assert_same(&what, &show_lowstate(h), want);
            } else if command.starts_with("state.show_sls ") {
                assert_same(&what, &show_sls(h), want);
            } else if command.starts_with("state.show_low_sls ") {
                assert_same(&what, &show_low_sls(h), want);
            } else {
                continue;
            }
            checked += 1;
        }
        assert!(checked > 0, "{name}: nothing checked");
    }

    /// Ad-hoc differential check of a case folder recorded elsewhere:
    /// `BRINE_COMPILE_CASE=/tmp/x cargo test ... adhoc_case -- --ignored`.
    #[test]
    #[ignore]
    fn adhoc_case() {
        if let Ok(dir) = std::env::var("BRINE_COMPILE_CASE") {
            check_case_dir(Path::new(&dir), &dir);
        }
    }

    #[test]
    fn shared_case_include_extend_exclude() {
        check_case("state-include-extend-exclude");
    }

    #[test]
    fn shared_case_names() {
        check_case("state-names");
    }

    #[test]
    fn shared_case_order_basic() {
        check_case("state-order-basic");
    }

    #[test]
    fn shared_case_requisite_in() {
        check_case("state-requisite-in");
    }

    /// The cases recorded for the compile stage (`state-compile-*`).
    #[test]
    fn compile_cases() {
        let mut names: Vec<String> = std::fs::read_dir(cases_dir())
            .expect("cases dir")
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.starts_with("state-compile-"))
            .collect();
        names.sort();
        assert!(names.len() >= 6, "compile cases missing: {names:?}");
        let mut failures = Vec::new();
        for name in &names {
            if let Err(e) = std::panic::catch_unwind(|| check_case(name)) {
                let msg = e
                    .downcast_ref::<String>()
                    .cloned()
                    .unwrap_or_else(|| format!("{name}: failed"));
                failures.push(msg);
            }
        }
        assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    }
}

#[cfg(test)]
mod perf_tests {
    //! The bench tree's shape (2000 states, each requiring the one before)
    //! and a worse one (every state `require_in`/`use`/`prereq` targeting
    //! the next by name) must compile in linear time.

    use super::*;
    use brine_core::{Map, Value};
    use std::time::Instant;

    fn one(key: &str, value: Value) -> Value {
        let mut m = Map::default();
        m.insert(key.into(), value);
        Value::Map(m)
    }

    fn tree(n: usize, by_name: bool) -> HighData {
        let mut high = Map::default();
        for i in 0..n {
            let mut args = vec![one("name", Value::Str(format!("n{i}")))];
            if i > 0 {
                let prev = one("test", Value::Str(format!("st{}", i - 1)));
                args.push(one("require", Value::List(vec![prev])));
            }
            if by_name && i + 1 < n {
                let next = one("test", Value::Str(format!("n{}", i + 1)));
                args.push(one("require_in", Value::List(vec![next.clone()])));
                args.push(one("use", Value::List(vec![next.clone()])));
                args.push(one("prereq", Value::List(vec![next])));
            }
            args.push(Value::Str("succeed_without_changes".into()));
            args.push(one("order", Value::Int(10000 + i as i64)));
            let mut body = Map::default();
            body.insert("test".into(), Value::List(args));
            body.insert("__sls__".into(), Value::Str(format!("s{}", i / 100)));
            body.insert("__env__".into(), Value::Str("base".into()));
            high.insert(format!("st{i}"), Value::Map(body));
        }
        high
    }

    fn compile(high: HighData) -> Vec<Map> {
        let (high, errors) = prepare_high(high);
        assert!(errors.is_empty(), "{errors:?}");
        compile_high_data(&high).expect("compiles")
    }

    /// The best of three compiles of `n` chained states.
    fn best_of_three(n: usize, by_name: bool) -> std::time::Duration {
        (0..3)
            .map(|_| {
                let high = tree(n, by_name);
                let start = Instant::now();
                let chunks = compile(high);
                assert_eq!(chunks.len(), n);
                start.elapsed()
            })
            .min()
            .unwrap_or_default()
    }

    /// Compiling grows with the tree, not with its square: four times the
    /// states take well under sixteen times as long (a quadratic scan per
    /// requisite would). A ratio of best-of-three times, not a time limit,
    /// so a loaded machine slows both sides alike.
    #[test]
    fn bench_shape_is_linear() {
        for by_name in [false, true] {
            let small = best_of_three(500, by_name);
            let large = best_of_three(2000, by_name);
            let ratio = large.as_secs_f64() / small.as_secs_f64().max(1e-6);
            eprintln!("500 → 2000 states (by_name={by_name}): {small:?} → {large:?}, {ratio:.1}×");
            assert!(ratio < 10.0, "{small:?} → {large:?}");
        }
    }
}

/// High data written as YAML, for the submodules' tests.
#[cfg(test)]
pub(crate) fn test_high(yaml: &str) -> HighData {
    match brine_core::yaml::load(yaml) {
        Ok(brine_core::Value::Map(m)) => m,
        other => panic!("test high data is not a mapping: {other:?}"),
    }
}
