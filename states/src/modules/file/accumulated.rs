//! `file.accumulated`: text gathered during a run for the `file.managed`
//! and `file.blockreplace` states it is declared for (`require_in` /
//! `watch_in`), kept in the run's [`crate::function::Accumulators`].

use super::args::{failed, Args};
use crate::{StateCall, StateReturn};
use brine_core::Value;

/// The requisite targets of one `require_in` / `watch_in` value: each
/// entry's value (`- file: out` gives `out`), or the entry itself.
fn dep_targets(v: Option<&Value>) -> Vec<Value> {
    let items = match v {
        None | Some(Value::Null) => return Vec::new(),
        Some(Value::List(items)) => items.clone(),
        Some(other) => vec![other.clone()],
    };
    let mut out = Vec::new();
    for item in items {
        match item {
            Value::Map(m) => out.extend(m.values().cloned()),
            Value::Str(s) => out.extend(s.chars().map(|c| Value::Str(c.to_string()))),
            other => out.push(other),
        }
    }
    out
}

/// Whether any requisite entry names the `file` module (Salt checks
/// `"file" in x` on each entry).
fn targets_a_file(v: Option<&Value>) -> bool {
    let items = match v {
        Some(Value::List(items)) => items.as_slice(),
        Some(other) => std::slice::from_ref(other),
        None => &[],
    };
    items.iter().any(|x| match x {
        Value::Map(m) => m.contains_key("file"),
        Value::Str(s) => s.contains("file"),
        Value::List(l) => l.iter().any(|i| i.as_str() == Some("file")),
        _ => false,
    })
}

pub fn accumulated(call: &StateCall, args: &Args, name: &str) -> Result<StateReturn, String> {
    if name.is_empty() {
        return Ok(failed(name, "Must provide name to file.accumulated"));
    }
    let text = match call.low.get("text") {
        None | Some(Value::Null) => {
            return Ok(failed(name, "No text supplied for accumulator"));
        }
        Some(Value::List(l)) => l.clone(),
        Some(v) => vec![v.clone()],
    };
    let filename = args
        .get("filename")
        .map(Value::to_python_str)
        .unwrap_or_else(|| "None".into());
    let require_in = call.low.get("require_in");
    let watch_in = call.low.get("watch_in");
    if !targets_a_file(require_in) && !targets_a_file(watch_in) {
        let field = |k: &str| {
            call.low
                .get(k)
                .map(Value::to_python_str)
                .unwrap_or_else(|| "None".into())
        };
        return Ok(failed(
            name,
            format!(
                "Orphaned accumulator {name} in {}:{}",
                field("__sls__"),
                field("__id__")
            ),
        ));
    }
    let mut deps = dep_targets(require_in);
    deps.extend(dep_targets(watch_in));
    let mut ret = StateReturn::new(name);
    call.ctx.accumulators.update(|acc| {
        acc.data.entry(filename.clone()).or_default();
        let file_deps = acc.deps.entry(filename.clone()).or_default();
        file_deps.entry(name.to_string()).or_default().extend(deps);
        let texts = acc
            .data
            .entry(filename.clone())
            .or_default()
            .entry(name.to_string())
            .or_default();
        for chunk in text {
            if !texts.contains(&chunk) {
                texts.push(chunk);
                ret.comment = format!("Accumulator {name} for file {filename} was charged by text");
            }
        }
    });
    Ok(ret)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requisite_targets() {
        let v = Value::from_json(&serde_json::json!([{"file": "out"}, {"file": "b"}]));
        assert_eq!(
            dep_targets(Some(&v)),
            vec![Value::Str("out".into()), Value::Str("b".into())]
        );
        assert!(targets_a_file(Some(&v)));
        let other = Value::from_json(&serde_json::json!([{"cmd": "x"}]));
        assert!(!targets_a_file(Some(&other)));
        assert!(!targets_a_file(None));
    }
}
