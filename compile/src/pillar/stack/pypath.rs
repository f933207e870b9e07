//! The few pieces of Python's `os.path`, `glob`, `fnmatch` and `str` that
//! PillarStack's answers depend on, written to give the same results on
//! POSIX: which files a stack config line selects (hidden files, `[!x]`
//! classes, `**` meaning `*`), and how a selected path becomes a template
//! name for Jinja's `FileSystemLoader`.

use crate::matcher::glob::Pattern;
use std::path::Path;

/// `os.path.split` (posixpath): `("a/b", "c")` for `"a/b/c"`; trailing
/// slashes of the head are dropped unless the head is all slashes.
pub(crate) fn split(p: &str) -> (&str, &str) {
    let i = p.rfind('/').map(|i| i + 1).unwrap_or(0);
    let (head, tail) = p.split_at(i);
    if !head.is_empty() && !head.bytes().all(|b| b == b'/') {
        (head.trim_end_matches('/'), tail)
    } else {
        (head, tail)
    }
}

/// `os.path.join(a, b)` (posixpath) for two parts.
pub(crate) fn join(a: &str, b: &str) -> String {
    if b.starts_with('/') || a.is_empty() {
        b.to_string()
    } else if a.ends_with('/') {
        format!("{a}{b}")
    } else {
        format!("{a}/{b}")
    }
}

/// `glob._join`: like `join` but an empty side yields the other.
fn glob_join(a: &str, b: &str) -> String {
    if a.is_empty() || b.is_empty() {
        format!("{a}{b}")
    } else {
        join(a, b)
    }
}

/// `os.path.abspath` split into its non-empty components (what `relpath`
/// works on): `.` dropped, `..` pops (never above the root).
fn abs_components(p: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    if !p.starts_with('/') {
        // A relative path is taken from the process's working directory,
        // as Python does; an unreadable cwd leaves it relative to "/".
        if let Ok(cwd) = std::env::current_dir() {
            out.extend(abs_components(&cwd.to_string_lossy()));
        }
    }
    for part in p.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                out.pop();
            }
            other => out.push(other.to_string()),
        }
    }
    out
}

/// `os.path.relpath(path, start)`: `"."` when equal.
pub(crate) fn relpath(path: &str, start: &str) -> String {
    let start = abs_components(start);
    let path = abs_components(path);
    let common = start
        .iter()
        .zip(path.iter())
        .take_while(|(a, b)| a == b)
        .count();
    let mut rel: Vec<&str> = vec![".."; start.len() - common];
    rel.extend(path[common..].iter().map(String::as_str));
    if rel.is_empty() {
        ".".to_string()
    } else {
        rel.join("/")
    }
}
pub(crate) use brine_core::py::splitlines;

/// `str.isspace()` for one character (Unicode White_Space plus the four
/// ASCII separators Python also counts).
fn py_isspace(c: char) -> bool {
    c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c)
}

/// `not s.strip()`: the text is empty or only whitespace.
pub(crate) fn is_blank(s: &str) -> bool {
    s.chars().all(py_isspace)
}

fn has_magic(s: &str) -> bool {
    s.contains(['*', '?', '['])
}

fn is_hidden(s: &str) -> bool {
    s.starts_with('.')
}

fn lexists(p: &str) -> bool {
    !p.contains('\0') && crate::inputs::lexists(Path::new(p))
}

fn isdir(p: &str) -> bool {
    !p.contains('\0') && crate::inputs::is_dir(Path::new(p))
}

/// The entries of `dir` (`.` when empty), only directories when `dironly`;
/// an unreadable directory has none. Names that are not UTF-8 are skipped.
fn listdir(dir: &str, dironly: bool) -> Vec<String> {
    let dir = if dir.is_empty() { "." } else { dir };
    // Noted: the folder's stamp moves when an entry comes or goes.
    if !crate::inputs::is_dir(Path::new(dir)) {
        return Vec::new();
    }
    let Ok(rd) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    rd.filter_map(Result::ok)
        .filter(|e| !dironly || crate::inputs::is_dir(&e.path()))
        .filter_map(|e| e.file_name().into_string().ok())
        .collect()
}

/// `glob._glob1`: names in `dir` matching a magic basename; hidden names
/// only when the pattern itself starts with a dot.
fn glob1(dir: &str, pattern: &str, dironly: bool) -> Vec<String> {
    let matcher = Pattern::new(pattern);
    let hidden_ok = is_hidden(pattern);
    listdir(dir, dironly)
        .into_iter()
        .filter(|n| hidden_ok || !is_hidden(n))
        .filter(|n| matcher.matches(n))
        .collect()
}

/// `glob._glob0`: a literal basename exists (or, empty, the dir is a dir).
fn glob0(dir: &str, basename: &str) -> Vec<String> {
    let found = if basename.is_empty() {
        isdir(dir)
    } else {
        lexists(&glob_join(dir, basename))
    };
    if found {
        vec![basename.to_string()]
    } else {
        Vec::new()
    }
}

/// `glob.glob(pattern)` (not recursive, hidden files excluded), in
/// directory-listing order like Python; callers sort.
pub(crate) fn glob(pattern: &str) -> Vec<String> {
    iglob(pattern, false)
}

fn iglob(pathname: &str, dironly: bool) -> Vec<String> {
    let (dirname, basename) = split(pathname);
    if !has_magic(pathname) {
        let found = if basename.is_empty() {
            isdir(dirname)
        } else {
            lexists(pathname)
        };
        return if found {
            vec![pathname.to_string()]
        } else {
            Vec::new()
        };
    }
    if dirname.is_empty() {
        return glob1("", basename, dironly);
    }
    let dirs = if dirname != pathname && has_magic(dirname) {
        iglob(dirname, true)
    } else {
        vec![dirname.to_string()]
    };
    let mut out = Vec::new();
    for d in dirs {
        let names = if has_magic(basename) {
            glob1(&d, basename, dironly)
        } else {
            glob0(&d, basename)
        };
        out.extend(names.into_iter().map(|n| join(&d, &n)));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_and_join_like_posixpath() {
        assert_eq!(split("/a/b/c.cfg"), ("/a/b", "c.cfg"));
        assert_eq!(split("c.cfg"), ("", "c.cfg"));
        assert_eq!(split("/c.cfg"), ("/", "c.cfg"));
        assert_eq!(split("a//b"), ("a", "b"));
        assert_eq!(split("a/"), ("a", ""));
        assert_eq!(join("/a", "b"), "/a/b");
        assert_eq!(join("/a/", "b"), "/a/b");
        assert_eq!(join("/a", "/b"), "/b");
        assert_eq!(join("", "b"), "b");
    }

    #[test]
    fn relpath_like_python() {
        assert_eq!(relpath("/s/t/a.yml", "/s/t"), "a.yml");
        assert_eq!(relpath("/s/t/./d/../a.yml", "/s/t"), "a.yml");
        assert_eq!(relpath("/s/t/../o/o.yml", "/s/t"), "../o/o.yml");
        assert_eq!(relpath("/s/t", "/s/t"), ".");
        assert_eq!(relpath("/s/t/sub/x.yml", "/s/t/"), "sub/x.yml");
    }

    #[test]
    fn splitlines_like_python() {
        assert_eq!(splitlines("a\nb\r\nc\rd\n"), vec!["a", "b", "c", "d"]);
        assert_eq!(splitlines("a\n\nb"), vec!["a", "", "b"]);
        assert_eq!(splitlines("a\u{2028}b\x0cc"), vec!["a", "b", "c"]);
        assert!(splitlines("").is_empty());
        assert!(is_blank(" \t\u{1f}"));
        assert!(!is_blank(" a "));
    }

    #[test]
    fn fnmatch_like_python() {
        use crate::matcher::glob::fnmatch;
        // Each answer checked with Python 3.11's fnmatch.fnmatchcase.
        let cases: &[(&str, &str, bool)] = &[
            ("a.yml", "*.yml", true),
            ("a.yml", "*", true),
            ("a.yml", "**", true),
            ("a.yml", "?.yml", true),
            ("ab.yml", "?.yml", false),
            ("a.yml", "[ab].yml", true),
            ("c.yml", "[ab].yml", false),
            ("c.yml", "[!ab].yml", true),
            ("a.yml", "[!ab].yml", false),
            ("]", "[]]", true),
            ("-", "[a-]", true),
            ("-", "[-a]", true),
            ("b", "[a-c]", true),
            ("-", "[a-b-c]", true),
            ("c", "[a-b-c]", true),
            ("b", "[a-b-c]", true),
            ("x", "[z-a]", false),
            ("x", "[!z-a]", true),
            ("[", "[", true),
            ("[x", "[x", true),
            ("ab", "a*b*", true),
            ("a", "a*b", false),
            ("aXbXc", "a*b*c", true),
            ("abc", "a*c*c", false),
            ("b", "[z-ab-d]", true),
            ("a", "[z-ab-d]", false),
            ("\\", "[\\]", true),
            ("^", "[^]", true),
        ];
        for (name, pat, want) in cases {
            assert_eq!(fnmatch(name, pat), *want, "fnmatch({name:?}, {pat:?})");
        }
    }

    #[test]
    fn glob_like_python() {
        let dir = std::env::temp_dir().join(format!("brine-pyglob-{}", std::process::id()));
        let d = dir.to_string_lossy().to_string();
        for f in [
            "sub/a.yml",
            "sub/b.yml",
            "sub/.h.yml",
            "c.cfg",
            "sub2/a.yml",
        ] {
            let p = dir.join(f);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(&p, "x: 1\n").unwrap();
        }
        let sorted = |mut v: Vec<String>| {
            v.sort();
            v
        };
        assert_eq!(
            sorted(glob(&join(&d, "sub/*.yml"))),
            vec![format!("{d}/sub/a.yml"), format!("{d}/sub/b.yml")]
        );
        assert_eq!(
            sorted(glob(&join(&d, "sub/.*"))),
            vec![format!("{d}/sub/.h.yml")]
        );
        assert_eq!(
            sorted(glob(&join(&d, "sub*/a.yml"))),
            vec![format!("{d}/sub/a.yml"), format!("{d}/sub2/a.yml")]
        );
        assert_eq!(
            glob(&join(&d, "sub/../c.cfg")),
            vec![format!("{d}/sub/../c.cfg")]
        );
        assert_eq!(glob(&join(&d, "sub/")), vec![format!("{d}/sub/")]);
        assert!(glob(&join(&d, "nomatch/*.yml")).is_empty());
        assert!(glob(&join(&d, " c.cfg")).is_empty());
        assert_eq!(glob(&join(&d, "*/")).len(), 2);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
