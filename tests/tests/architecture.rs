//! The architecture invariants of ARCHITECTURE.md, checked on the sources.
//!
//! - **Crate layering**: each brine crate depends only on the brine crates
//!   below it (`[dependencies]` and `[dev-dependencies]`).
//! - **No module cycles**: within a crate, take the modules that share a
//!   parent. A reference from anywhere inside sibling `x` to anywhere inside
//!   sibling `y` (`use crate::..`, `super::..`, `self::..`, a `crate::a::b`
//!   path in code) is an edge `x → y`; references between a module and its
//!   own ancestors or descendants do not count (a parent and its children
//!   are one unit). Siblings that reach each other form a cycle.
//! - **File size**: no source file over 1,500 lines, recorded test data
//!   (`testdata/`, `*_cases.rs`) aside.
//!
//! Known violations are listed below, each with what fixing it takes; the
//! test fails on a new violation and on a listed one that is gone, so the
//! lists stay true.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Which brine crates each crate may depend on.
const LAYERS: &[(&str, &[&str])] = &[
    ("core", &[]),
    ("compile", &["brine-core"]),
    ("runtime", &["brine-core", "brine-compile"]),
    ("protocol", &["brine-core", "brine-compile"]),
    ("cli", &[]),
    (
        "master",
        &[
            "brine-core",
            "brine-compile",
            "brine-runtime",
            "brine-protocol",
            "brine-cli",
        ],
    ),
    (
        "minion",
        &[
            "brine-core",
            "brine-compile",
            "brine-runtime",
            "brine-protocol",
            "brine-cli",
        ],
    ),
];

/// Module cycles not yet broken, as `crate: parent: a ↔ b ↔ ...` (see the
/// report of the test for the references that make each one).
const KNOWN_CYCLES: &[&str] = &[
    // Salt's Jinja values: `convert` and `mutable` share the dict/list/tuple
    // types, `mutable` borrows the str methods of `filters`, `filters` the
    // traversal of `salt_functions`. Breaking it: one bottom module for the
    // Python value types (OrderedDict, PyTuple, MutDict, MutList), the str
    // methods in a module of their own, and `traverse` moved down with them.
    "compile: render::jinja: convert ↔ filters ↔ mutable ↔ pyjson ↔ pyyaml ↔ salt_functions",
];

/// Files over the limit that are being split.
const KNOWN_LONG_FILES: &[&str] = &["core/src/yaml.rs"];

const MAX_LINES: usize = 1_500;

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default()
}

#[test]
fn crates_depend_only_downwards() {
    let root = workspace();
    let mut problems = Vec::new();
    for (dir, allowed) in LAYERS {
        let manifest = std::fs::read_to_string(root.join(dir).join("Cargo.toml"))
            .unwrap_or_else(|e| panic!("{dir}/Cargo.toml: {e}"));
        for dep in brine_dependencies(&manifest) {
            if !allowed.contains(&dep.as_str()) {
                problems.push(format!("{dir} depends on {dep}"));
            }
        }
    }
    assert!(
        problems.is_empty(),
        "layering broken:\n{}",
        problems.join("\n")
    );
}

/// The `brine-*` names in the dependency tables of a manifest.
fn brine_dependencies(manifest: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut in_deps = false;
    for line in manifest.lines() {
        let line = line.trim();
        if line.starts_with('[') {
            in_deps = line == "[dependencies]" || line == "[dev-dependencies]";
            continue;
        }
        if in_deps && line.starts_with("brine-") {
            if let Some(name) = line.split(['=', '.', ' ']).next() {
                out.insert(name.to_string());
            }
        }
    }
    out
}

#[test]
fn no_module_cycles() {
    let root = workspace();
    let mut found = BTreeMap::new();
    for (dir, _) in LAYERS {
        let tree = ModuleTree::read(&root.join(dir).join("src/lib.rs"));
        for (cycle, why) in tree.cycles() {
            found.insert(format!("{dir}: {cycle}"), why);
        }
    }
    let new: Vec<_> = found
        .iter()
        .filter(|(c, _)| !KNOWN_CYCLES.contains(&c.as_str()))
        .map(|(c, why)| format!("{c}\n{why}"))
        .collect();
    let gone: Vec<_> = KNOWN_CYCLES
        .iter()
        .filter(|c| !found.contains_key(**c))
        .collect();
    assert!(
        new.is_empty() && gone.is_empty(),
        "module cycles:\n{}\nlisted in KNOWN_CYCLES but gone (remove them): {gone:?}",
        new.join("\n")
    );
}

#[test]
fn no_source_file_is_too_long() {
    let root = workspace();
    let mut long = BTreeSet::new();
    for (dir, _) in LAYERS.iter().chain(&[("tests", &[][..])]) {
        let mut files = Vec::new();
        rust_files(&root.join(dir), &mut files);
        for f in files {
            let rel = f
                .strip_prefix(&root)
                .unwrap_or(&f)
                .to_string_lossy()
                .into_owned();
            let data = rel.contains("/testdata/") || rel.ends_with("_cases.rs");
            let lines = std::fs::read_to_string(&f)
                .map(|t| t.lines().count())
                .unwrap_or(0);
            if !data && lines > MAX_LINES {
                long.insert(rel);
            }
        }
    }
    let new: Vec<_> = long
        .iter()
        .filter(|f| !KNOWN_LONG_FILES.contains(&f.as_str()))
        .collect();
    let gone: Vec<_> = KNOWN_LONG_FILES
        .iter()
        .filter(|f| !long.contains(**f))
        .collect();
    assert!(
        new.is_empty() && gone.is_empty(),
        "files over {MAX_LINES} lines: {new:?}; listed but now short (remove them): {gone:?}"
    );
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            if p.file_name()
                .is_some_and(|n| n == "target" || n == "conformance")
            {
                continue;
            }
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// A crate's modules (by path from the crate root) and, for each, the
/// modules its code refers to.
#[derive(Debug, Default)]
struct ModuleTree {
    modules: BTreeSet<Vec<String>>,
    /// (from, to, the line that refers) for every reference.
    refs: Vec<(Vec<String>, Vec<String>, String)>,
}

impl ModuleTree {
    fn read(lib: &Path) -> ModuleTree {
        let mut sources = Vec::new();
        collect_modules(lib, true, Vec::new(), &mut sources);
        ModuleTree::from_sources(&sources)
    }

    /// `sources`: each module's path and its code (test code cut off).
    fn from_sources(sources: &[(Vec<String>, String)]) -> ModuleTree {
        let mut tree = ModuleTree {
            modules: sources.iter().map(|(m, _)| m.clone()).collect(),
            refs: Vec::new(),
        };
        for (module, code) in sources {
            for line in code.lines() {
                let t = line.trim();
                if t.starts_with("//") {
                    continue;
                }
                for path in referenced_paths(t) {
                    if let Some(target) = tree.resolve(module, &path) {
                        tree.refs.push((module.clone(), target, t.to_string()));
                    }
                }
            }
        }
        tree
    }

    /// The module a path (`crate::a::b::f`, `super::x`, `self::y`) names:
    /// the longest prefix that is a module.
    fn resolve(&self, from: &[String], path: &[String]) -> Option<Vec<String>> {
        let (mut at, rest) = match path.first().map(String::as_str) {
            Some("crate") => (Vec::new(), &path[1..]),
            Some("self") => (from.to_vec(), &path[1..]),
            Some("super") => {
                let mut at = from.to_vec();
                let mut i = 0;
                while path.get(i).map(String::as_str) == Some("super") {
                    at.pop()?;
                    i += 1;
                }
                (at, &path[i..])
            }
            _ => return None,
        };
        for seg in rest {
            let mut next = at.clone();
            next.push(seg.clone());
            if !self.modules.contains(&next) {
                break;
            }
            at = next;
        }
        Some(at)
    }

    /// Sibling cycles: `parent: a ↔ b`, with the references that make them.
    fn cycles(&self) -> Vec<(String, String)> {
        // parent → edges between its children, each with one example.
        let mut edges: BTreeMap<Vec<String>, BTreeMap<(String, String), String>> = BTreeMap::new();
        for (from, to, line) in &self.refs {
            let lca = from.iter().zip(to).take_while(|(a, b)| a == b).count();
            if lca == from.len() || lca == to.len() {
                continue; // ancestor or descendant
            }
            let key = (from[lca].clone(), to[lca].clone());
            let example = format!("    {} → {}: {line}", from.join("::"), to.join("::"));
            edges
                .entry(from[..lca].to_vec())
                .or_default()
                .entry(key)
                .or_insert(example);
        }
        let mut out = Vec::new();
        for (parent, es) in edges {
            let nodes: BTreeSet<&String> = es.keys().flat_map(|(a, b)| [a, b]).collect();
            let reach = |start: &String| {
                let mut seen = BTreeSet::new();
                let mut stack = vec![start.clone()];
                while let Some(n) = stack.pop() {
                    for ((a, b), _) in es.iter() {
                        if *a == n && seen.insert(b.clone()) {
                            stack.push(b.clone());
                        }
                    }
                }
                seen
            };
            let mut done = BTreeSet::new();
            for n in &nodes {
                if done.contains(*n) {
                    continue;
                }
                let from_n = reach(n);
                let component: BTreeSet<String> = nodes
                    .iter()
                    .filter(|m| from_n.contains(**m) && reach(m).contains(*n))
                    .map(|m| (*m).clone())
                    .collect();
                if component.len() > 1 {
                    done.extend(component.iter().cloned());
                    let why: Vec<&String> = es
                        .iter()
                        .filter(|((a, b), _)| component.contains(a) && component.contains(b))
                        .map(|(_, ex)| ex)
                        .collect();
                    let parent = if parent.is_empty() {
                        "crate".to_string()
                    } else {
                        parent.join("::")
                    };
                    let names: Vec<&str> = component.iter().map(String::as_str).collect();
                    out.push((
                        format!("{parent}: {}", names.join(" ↔ ")),
                        why.iter()
                            .map(|s| s.as_str())
                            .collect::<Vec<_>>()
                            .join("\n"),
                    ));
                }
            }
        }
        out
    }
}

/// Read a module file and its children (`mod x;`), test modules left out.
fn collect_modules(
    file: &Path,
    is_dir_root: bool,
    path: Vec<String>,
    out: &mut Vec<(Vec<String>, String)>,
) {
    let Ok(text) = std::fs::read_to_string(file) else {
        return;
    };
    let code = without_tests(&text);
    let dir = if is_dir_root {
        file.parent().map(Path::to_path_buf).unwrap_or_default()
    } else {
        file.with_extension("")
    };
    let mut prev_cfg_test = false;
    for line in code.lines() {
        let t = line.trim();
        if let Some(name) = declared_module(t) {
            if !prev_cfg_test && name != "tests" {
                let mut child = path.clone();
                child.push(name.to_string());
                let flat = dir.join(format!("{name}.rs"));
                let nested = dir.join(name).join("mod.rs");
                if flat.is_file() {
                    collect_modules(&flat, false, child, out);
                } else if nested.is_file() {
                    collect_modules(&nested, true, child, out);
                }
            }
        }
        prev_cfg_test = t == "#[cfg(test)]";
    }
    out.push((path, code));
}

/// `mod x;` / `pub mod x;` / `pub(crate) mod x;` → `x`.
fn declared_module(line: &str) -> Option<&str> {
    let rest = line.strip_suffix(';')?;
    let rest = rest
        .strip_prefix("pub(crate) ")
        .or_else(|| rest.strip_prefix("pub(super) "))
        .or_else(|| rest.strip_prefix("pub "))
        .unwrap_or(rest);
    let name = rest.strip_prefix("mod ")?.trim();
    name.chars()
        .all(|c| c.is_alphanumeric() || c == '_')
        .then_some(name)
}

/// The code before an inline `#[cfg(test)] mod tests {` (tests close files).
fn without_tests(text: &str) -> String {
    let mut out = String::new();
    let mut lines = text.lines().peekable();
    while let Some(line) = lines.next() {
        if line.trim() == "#[cfg(test)]"
            && lines
                .peek()
                .is_some_and(|n| n.trim_start().starts_with("mod ") && n.trim_end().ends_with('{'))
        {
            break;
        }
        out.push_str(line);
        out.push('\n');
    }
    out
}

/// Every `crate::`/`super::`/`self::` path on a line, as segments; grouped
/// imports (`use crate::{a, b::c}`) give one path per member.
fn referenced_paths(line: &str) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    let bytes: Vec<char> = line.chars().collect();
    let mut i = 0;
    while i < bytes.len() {
        let starts_word = i == 0
            || !(bytes[i - 1].is_alphanumeric() || bytes[i - 1] == '_' || bytes[i - 1] == ':');
        let rest: String = bytes[i..].iter().collect();
        let head = ["crate::", "super::", "self::"]
            .into_iter()
            .find(|h| rest.starts_with(h));
        match head {
            Some(_) if starts_word => {
                let (paths, used) = parse_path(&rest);
                out.extend(paths);
                i += used.max(1);
            }
            _ => i += 1,
        }
    }
    out
}

/// Parse `a::b::{c, d::e}` at the start of `s`: the paths and the chars used.
fn parse_path(s: &str) -> (Vec<Vec<String>>, usize) {
    let chars: Vec<char> = s.chars().collect();
    let mut segs = Vec::new();
    let mut i = 0;
    loop {
        let start = i;
        while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
            i += 1;
        }
        if i > start {
            segs.push(chars[start..i].iter().collect::<String>());
        }
        if chars.get(i) == Some(&':') && chars.get(i + 1) == Some(&':') {
            i += 2;
            if chars.get(i) == Some(&'{') {
                // A group: split its members at top-level commas.
                let mut depth = 0;
                let open = i + 1;
                let mut members = Vec::new();
                let mut from = open;
                i += 1;
                while i < chars.len() {
                    match chars[i] {
                        '{' => depth += 1,
                        '}' if depth == 0 => break,
                        '}' => depth -= 1,
                        ',' if depth == 0 => {
                            members.push(chars[from..i].iter().collect::<String>());
                            from = i + 1;
                        }
                        _ => {}
                    }
                    i += 1;
                }
                members.push(chars[from..i.min(chars.len())].iter().collect::<String>());
                let mut out = Vec::new();
                for m in members {
                    let m = m.trim();
                    if m.is_empty() || m == "self" {
                        out.push(segs.clone());
                        continue;
                    }
                    let (inner, _) = parse_path(m);
                    for p in inner {
                        let mut full = segs.clone();
                        full.extend(p);
                        out.push(full);
                    }
                }
                return (out, i + 1);
            }
            continue;
        }
        break;
    }
    (vec![segs], i)
}

#[cfg(test)]
mod checker {
    use super::*;

    fn tree(files: &[(&str, &str)]) -> ModuleTree {
        let sources: Vec<(Vec<String>, String)> = files
            .iter()
            .map(|(p, code)| {
                let path = if p.is_empty() {
                    Vec::new()
                } else {
                    p.split("::").map(str::to_string).collect()
                };
                (path, code.to_string())
            })
            .collect();
        ModuleTree::from_sources(&sources)
    }

    #[test]
    fn finds_a_planted_cycle() {
        let t = tree(&[
            ("", ""),
            ("render", ""),
            ("render::jinja", "use super::yaml::load;"),
            ("render::yaml", "use crate::render::{jinja::Env, other};"),
            ("pillar", "use crate::render::jinja;"),
        ]);
        let cycles = t.cycles();
        assert_eq!(cycles.len(), 1, "{cycles:?}");
        assert_eq!(cycles[0].0, "render: jinja ↔ yaml");
    }

    #[test]
    fn parents_and_children_and_layers_are_no_cycle() {
        let t = tree(&[
            ("", "use crate::a::x;"),
            ("a", "use self::x::f; use crate::b::g;"),
            ("a::x", "use super::helper; use crate::b;"),
            ("b", "fn f() { crate::c::go(); }"),
            ("c", ""),
        ]);
        assert!(t.cycles().is_empty(), "{:?}", t.cycles());
    }

    #[test]
    fn reads_grouped_and_nested_paths() {
        assert_eq!(
            referenced_paths("use crate::{a, b::{c, d}};"),
            vec![
                vec!["crate".to_string(), "a".into()],
                vec!["crate".into(), "b".into(), "c".into()],
                vec!["crate".into(), "b".into(), "d".into()],
            ]
        );
        assert_eq!(
            referenced_paths("let x = super::super::m::f(brine_core::x);"),
            vec![vec![
                "super".to_string(),
                "super".into(),
                "m".into(),
                "f".into()
            ]]
        );
        assert_eq!(declared_module("pub(crate) mod jinja;"), Some("jinja"));
        assert_eq!(declared_module("mod a {"), None);
    }
}
