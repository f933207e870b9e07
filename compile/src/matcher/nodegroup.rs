//! Nodegroup expansion: `salt.utils.minions.nodegroup_comp`. A nodegroup is
//! a compound string or a list of words; `N@other` inside it is expanded in
//! parentheses, a group that refers back to itself expands to nothing.
//!
//! Salt's quirks are kept, because they change what matches:
//! - a group without nested groups is returned as its bare words, *without*
//!   parentheses, so `N@g and x` with `g: 'a or b'` reads `a or b and x`;
//! - a group of plain names (no operators, no `*`, no `X@`) becomes one
//!   `L@a,b` word, or `E@a,b` when a name has a regex character in it;
//! - an unknown group expands to nothing.

use brine_core::{Map, Value};
use std::collections::HashSet;

pub(crate) const OPERATORS: [&str; 5] = ["and", "or", "not", "(", ")"];

/// Python's `str.split()`: runs of whitespace, as `str.isspace` sees it.
pub(crate) fn py_split(s: &str) -> Vec<String> {
    s.split(|c: char| c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c))
        .filter(|w| !w.is_empty())
        .map(str::to_string)
        .collect()
}

/// Expand nodegroup `name` into compound words. Empty where Salt returns
/// `""` (unknown group, loop, definition of the wrong type).
pub fn nodegroup_comp(name: &str, nodegroups: &Map) -> Vec<String> {
    let mut budget = MAX_EXPANDED_WORDS;
    let words = expand(name, nodegroups, &mut HashSet::new(), true, &mut budget);
    if budget == 0 {
        // Groups that each name another one twice double at every level;
        // Salt would exhaust memory, brine gives up.
        tracing::error!("Failed nodegroup expansion: nodegroup \"{name}\" is too large");
        return Vec::new();
    }
    words
}

/// Upper bound on the words one expansion may produce.
const MAX_EXPANDED_WORDS: usize = 1_000_000;

fn expand(
    name: &str,
    nodegroups: &Map,
    skip: &mut HashSet<String>,
    first_call: bool,
    budget: &mut usize,
) -> Vec<String> {
    if *budget == 0 {
        return Vec::new();
    }
    if !first_call && skip.contains(name) {
        tracing::error!("Failed nodegroup expansion: illegal nested nodegroup \"{name}\"");
        return Vec::new();
    }
    let Some(definition) = nodegroups.get(name) else {
        tracing::error!("Failed nodegroup expansion: unknown nodegroup \"{name}\"");
        return Vec::new();
    };
    let words: Vec<String> = match definition {
        Value::Str(s) => py_split(s),
        Value::List(items) => items.iter().map(Value::to_python_str).collect(),
        other => {
            tracing::error!(
                "Nodegroup '{name}' ({}) is neither a string, list nor tuple",
                other.to_python_repr()
            );
            return Vec::new();
        }
    };

    *budget = budget.saturating_sub(words.len());
    skip.insert(name.to_string());
    let mut ret = Vec::new();
    let mut expanded_nested = false;
    for word in &words {
        if OPERATORS.contains(&word.as_str()) {
            ret.push(word.clone());
        } else if let Some(inner) = word.strip_prefix("N@").filter(|g| !g.is_empty()) {
            expanded_nested = true;
            let inner = expand(inner, nodegroups, skip, false, budget);
            *budget = budget.saturating_sub(inner.len());
            ret.extend(inner);
        } else {
            ret.push(word.clone());
        }
    }
    if !ret.is_empty() {
        ret.insert(0, "(".to_string());
        ret.push(")".to_string());
    }
    skip.remove(name);

    if expanded_nested || !first_call {
        if !first_call {
            if let Some(joined) = plain_names(&words) {
                return vec![joined];
            }
        }
        ret
    } else {
        match plain_names(&words) {
            Some(joined) => vec![joined],
            None => words,
        }
    }
}

/// Salt's `_nodegroup_regex`: words without operators, `*` or `X@` are a
/// list of names, or a regex when one has a regex character.
fn plain_names(words: &[String]) -> Option<String> {
    if words.iter().any(|w| OPERATORS.contains(&w.as_str())) {
        return None;
    }
    let typed = |w: &String| {
        let mut c = w.chars();
        matches!((c.next(), c.next()), (Some(t), Some('@')) if t.is_ascii_uppercase())
    };
    if words.iter().any(|w| w.contains('*') || typed(w)) {
        return None;
    }
    let regex_chars = ['(', '[', '{', '\\', '?', '}', ']', ')'];
    let engine = if words.iter().any(|w| w.contains(regex_chars)) {
        "E@"
    } else {
        "L@"
    };
    Some(format!("{engine}{}", words.join(",")))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn groups() -> Map {
        let json = serde_json::json!({
            "web": "web*",
            "names": "a b",
            "listy": ["a", "b"],
            "regexy": "web0[0-9]",
            "comp": "G@os:Ubuntu and web*",
            "nested": "N@web and N@names",
            "loop1": "N@loop2 or x",
            "loop2": "N@loop1",
            "empty": "",
            "bad": 42,
        });
        match Value::from_json(&json) {
            Value::Map(m) => m,
            _ => Map::default(),
        }
    }

    fn comp(name: &str) -> String {
        nodegroup_comp(name, &groups()).join(" ")
    }

    /// What `salt.utils.minions.nodegroup_comp` returns in Salt 3007.8.
    #[test]
    fn expands_like_salt() {
        assert_eq!(comp("web"), "web*");
        assert_eq!(comp("names"), "L@a,b");
        assert_eq!(comp("listy"), "L@a,b");
        assert_eq!(comp("regexy"), "E@web0[0-9]");
        assert_eq!(comp("comp"), "G@os:Ubuntu and web*");
        assert_eq!(comp("nested"), "( ( web* ) and L@a,b )");
        assert_eq!(comp("loop1"), "( or x )");
        assert_eq!(comp("loop2"), "( ( or x ) )");
        assert_eq!(comp("empty"), "L@");
        assert_eq!(comp("bad"), "");
        assert_eq!(comp("missing"), "");
    }

    #[test]
    fn exponential_groups_are_cut_off() {
        let mut groups = Map::default();
        groups.insert("g0".into(), Value::Str("web*".into()));
        for i in 1..40 {
            let prev = format!("N@g{}", i - 1);
            groups.insert(format!("g{i}"), Value::Str(format!("{prev} or {prev}")));
        }
        assert!(nodegroup_comp("g39", &groups).is_empty());
        assert!(!nodegroup_comp("g5", &groups).is_empty());
    }
}
