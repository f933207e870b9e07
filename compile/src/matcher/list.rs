//! The list matcher: is the minion id one of the comma-separated ids?
//! Salt checks with substring tests, so spaces are part of the ids
//! (`'a, b'` does not match `b`) and no id is trimmed.

/// `salt/matchers/list_match.py` for a string target.
pub fn list_match(tgt: &str, minion_id: &str) -> bool {
    tgt.contains(&format!(",{minion_id},"))
        || tgt.starts_with(&format!("{minion_id},"))
        || tgt.ends_with(&format!(",{minion_id}"))
        || tgt == minion_id
}

#[cfg(test)]
mod tests {
    use super::list_match;

    #[test]
    fn comma_separated_ids() {
        assert!(list_match("foo,web,baz", "web"));
        assert!(list_match("web,foo", "web"));
        assert!(list_match("foo,web", "web"));
        assert!(list_match("web", "web"));
        assert!(!list_match("foo, web", "web"));
        assert!(!list_match("web01", "web"));
        assert!(!list_match("web*", "web01"));
    }
}
