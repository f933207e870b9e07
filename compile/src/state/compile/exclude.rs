//! `apply_exclude` (Salt's `State.apply_exclude`): pops `__exclude__` and
//! drops the IDs it names: `- sls: pattern` (fnmatch against each ID's
//! `__sls__`; a bare string is an sls too) and `- id: ID` (exact).

use super::py::is_dunder;
use crate::matcher::glob::Pattern;
use crate::state::HighData;
use brine_core::Value;
use std::collections::HashSet;

pub fn apply_exclude(mut high: HighData) -> HighData {
    let Some(Value::List(exclude)) = high.shift_remove("__exclude__") else {
        return high;
    };
    let mut ex_sls: Vec<String> = Vec::new();
    let mut ex_id: HashSet<String> = HashSet::new();
    for exc in &exclude {
        match exc {
            Value::Str(s) => ex_sls.push(s.clone()),
            Value::Map(m) if m.len() == 1 => {
                if let Some(Value::Str(s)) = m.get("sls") {
                    ex_sls.push(s.clone());
                } else if let Some(Value::Str(id)) = m.get("id") {
                    ex_id.insert(id.clone());
                }
            }
            _ => {}
        }
    }
    if !ex_sls.is_empty() {
        let patterns: Vec<Pattern> = ex_sls.iter().map(|p| Pattern::new(p)).collect();
        for (name, body) in &high {
            if is_dunder(name) {
                continue;
            }
            let Some(Value::Str(sls)) = body.get("__sls__") else {
                continue;
            };
            if !sls.is_empty() && patterns.iter().any(|p| p.matches(sls)) {
                ex_id.insert(name.clone());
            }
        }
    }
    if !ex_id.is_empty() {
        high.retain(|name, _| !ex_id.contains(name));
    }
    high
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::compile::test_high;

    #[test]
    fn sls_globs_bare_strings_and_ids() {
        let high = test_high(
            "a1: {__sls__: app.one, test: [nop]}\n\
             a2: {__sls__: app.two, test: [nop]}\n\
             b: {__sls__: base, test: [nop]}\n\
             c: {__sls__: keep, test: [nop]}\n\
             d: {__sls__: keep, test: [nop]}\n\
             __exclude__: [{sls: 'app.*'}, base, {id: d}, {id: nope}]",
        );
        let high = apply_exclude(high);
        let ids: Vec<&str> = high.keys().map(String::as_str).collect();
        assert_eq!(ids, ["c"]);
    }
}
