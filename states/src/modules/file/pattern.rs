//! Salt's `check_include_exclude`: which relative paths `file.recurse`,
//! `file.directory`'s `clean` and `cp.get_dir` take, by shell glob or by
//! `E@` regular expression.

use brine_compile::matcher::glob::fnmatch;
use brine_core::Value;

/// One pattern: `E@regex` searched anywhere in the path, else a shell glob
/// over the whole path (`*` crosses `/`, as Python's `fnmatch` does). A
/// regex the engine cannot compile matches nothing.
pub fn pattern_matches(path: &str, pattern: &str) -> bool {
    match pattern.strip_prefix("E@") {
        Some(re) => super::replace::compile(re, 0)
            .is_ok_and(|r| super::replace::search(&r, path.as_bytes())),
        None => fnmatch(path, pattern),
    }
}

/// Whether `path` passes `include` (one pattern or a list, any may match)
/// and is not caught by `exclude` (one or a list); an empty or absent
/// pattern does not filter.
pub fn check_include_exclude(path: &str, include: Option<&Value>, exclude: Option<&Value>) -> bool {
    let any = |v: &Value| match v {
        Value::List(items) => items
            .iter()
            .any(|p| pattern_matches(path, &p.to_python_str())),
        other => pattern_matches(path, &other.to_python_str()),
    };
    let include = include.filter(|v| v.is_truthy());
    let exclude = exclude.filter(|v| v.is_truthy());
    include.is_none_or(any) && !exclude.is_some_and(any)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs_and_regexes_like_salt() {
        let s = |p: &str| Value::Str(p.into());
        assert!(check_include_exclude("a/b.txt", None, None));
        assert!(check_include_exclude("a/b.txt", Some(&s("*.txt")), None));
        assert!(!check_include_exclude("a/b.log", Some(&s("*.txt")), None));
        assert!(check_include_exclude(
            "sub/x",
            Some(&s("E@^sub")),
            Some(&s("*deep*"))
        ));
        assert!(!check_include_exclude(
            "sub/deep/x",
            Some(&s("E@^sub")),
            Some(&s("*deep*"))
        ));
        assert!(!check_include_exclude("x.log", None, Some(&s("E@\\.log$"))));
        let list = Value::List(vec![s("*.a"), s("*.b")]);
        assert!(check_include_exclude("x.b", Some(&list), None));
        assert!(!check_include_exclude("x.b", None, Some(&list)));
        assert!(check_include_exclude("x.b", Some(&s("")), None));
    }
}
