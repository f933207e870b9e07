//! What the parts of the pkg state module share: the return dict, target
//! names as Salt writes them in comments, warnings, list arguments.

use crate::modules::user::support::{ArgError, Args};
use crate::{StateCall, StateReturn};
use brine_core::{Map, Value};

/// `{"new": n, "old": o}`, in the order Salt builds it for a change.
pub(super) fn new_old(n: &str, o: &str) -> Value {
    let mut m = Map::default();
    m.insert("new".into(), Value::Str(n.into()));
    m.insert("old".into(), Value::Str(o.into()));
    Value::Map(m)
}

/// A list argument; Salt would treat anything else as malformed.
pub(super) fn list_arg(call: &StateCall, key: &str) -> Result<Option<Vec<Value>>, ArgError> {
    call.opt_list(key)
}

pub(super) fn ret(
    name: &str,
    result: Option<bool>,
    comment: impl Into<String>,
    changes: Map,
) -> StateReturn {
    let mut r = StateReturn::new(name);
    r.result = result;
    r.comment = comment.into();
    r.changes = changes;
    r
}

/// The `name[=version]` text Salt uses for a target in comments.
pub(super) fn desired_pkg(name: &str, ver: Option<&str>) -> String {
    match ver.filter(|v| !v.is_empty()) {
        None => name.to_string(),
        Some(v) if v.starts_with(['<', '>', '=']) => format!("{name}{v}"),
        Some(v) => format!("{name}={v}"),
    }
}

pub(super) fn add_warnings(r: &mut StateReturn, warnings: &[String]) {
    if warnings.is_empty() {
        return;
    }
    let entry = r
        .extra
        .entry("warnings".to_string())
        .or_insert_with(|| Value::List(Vec::new()));
    if let Value::List(l) = entry {
        l.extend(warnings.iter().cloned().map(Value::Str));
    }
}
