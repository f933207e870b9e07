//! Whether a run succeeded, as Salt judges a running dictionary (its
//! `salt.utils.state.check_result`): the exit code of a state run, and
//! an orchestration step's verdict on what its minions returned.

use brine_core::Value;

/// Salt's `salt.utils.state.check_result` without a highstate to look up
/// `onfail` handlers in: false for anything but a non-empty dict, for an
/// entry that is not a dict (`__extend__`: not a list) at the top level,
/// and for any nested `result: False` or empty dict.
pub fn check_result(running: &Value, recurse: bool) -> bool {
    let Value::Map(m) = running else {
        return false;
    };
    if m.is_empty() {
        return false;
    }
    for (id, result) in m {
        let well_formed = if id == "__extend__" {
            matches!(result, Value::List(_))
        } else {
            matches!(result, Value::Map(_))
        };
        if !recurse && !well_formed {
            return false;
        }
        if let Value::Map(r) = result {
            let ok = match r.get("result") {
                Some(Value::Bool(false)) => false,
                Some(_) => true,
                None => check_result(result, true),
            };
            if !ok {
                return false;
            }
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn v(j: serde_json::Value) -> Value {
        Value::from_json(&j)
    }

    #[test]
    fn check_result_reads_high_data_as_salt_does() {
        let state = json!({"__sls__": "a", "__env__": "base", "test": ["nop", {"order": 1}]});
        assert!(check_result(&v(json!({"a": state.clone()})), false));
        // `__exclude__` is a list where a state is expected: Salt's retcode 2.
        assert!(!check_result(
            &v(json!({"a": state.clone(), "__exclude__": [{"sls": "x"}]})),
            false
        ));
        assert!(check_result(
            &v(json!({"__extend__": [{"a": {}}], "a": state})),
            false
        ));
        assert!(!check_result(&v(json!({})), false));
        assert!(!check_result(&v(json!({"a": {"result": false}})), false));
        assert!(!check_result(&v(json!({"a": {"x": {}}})), false));
    }
}
