//! The architecture invariants of ARCHITECTURE.md, checked on the sources.
//!
//! - **Crate layering**: each workspace crate depends only on the brine
//!   crates below it, in `[dependencies]` and `[dev-dependencies]` alike
//!   (core on none; compile and host on core; states on core, compile and
//!   host; runtime on those and states; protocol on core and compile; cli
//!   on core; master and minion on anything below them but not on each
//!   other).
//! - **No module cycles**: a crate's modules are its files (`mod x;` as
//!   `x.rs`, `x/mod.rs` or, beside `x.rs`, the folder `x/`) and its inline
//!   `mod x { .. }` blocks; `#[cfg(test)]` items and `tests` / `testdata`
//!   modules are left out. A module refers to another of the same crate
//!   through `use crate::..`, `use super::..`, `use self::..` (grouped
//!   `use crate::{a, b::c}` included), a `use` of a child module, and a
//!   `crate::a::b`, `super::x` or `self::y` path in its code. A path names
//!   the module where it stops being one (`crate::a::b::f` names `a::b`),
//!   except that a name a module imports (`use`, `pub use`) is followed to
//!   where it comes from, so a re-export does not hide a reference. Each
//!   reference is lifted to the children of the lowest common ancestor of
//!   its two modules: a reference from `p::x::..` to `p::y::..` is an edge
//!   `x → y` between siblings of `p`. A reference between a module and its
//!   own ancestor or descendant is no edge (a parent and its children are
//!   one unit). Siblings that reach each other through these edges (a
//!   strongly connected component of more than one) are a cycle.
//! - **File size**: no `.rs` file over 1,500 lines, recorded test data
//!   (files under `testdata/` or named `*_cases.rs`) aside.
//!
//! Every violation is printed. Known ones are listed below, each with what
//! fixing it takes; the test fails on a new violation and on a listed one
//! that is gone, so the lists stay true.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Which brine crates each workspace crate (by folder) may depend on.
const LAYERS: &[(&str, &[&str])] = &[
    ("core", &[]),
    ("compile", &["brine-core"]),
    ("host", &["brine-core"]),
    ("states", &["brine-core", "brine-compile", "brine-host"]),
    (
        "runtime",
        &["brine-core", "brine-compile", "brine-host", "brine-states"],
    ),
    ("protocol", &["brine-core", "brine-compile"]),
    ("cli", &["brine-core"]),
    (
        "master",
        &[
            "brine-core",
            "brine-compile",
            "brine-host",
            "brine-states",
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
            "brine-host",
            "brine-states",
            "brine-runtime",
            "brine-protocol",
            "brine-cli",
        ],
    ),
];

/// Workspace members that are not checked for layering: the end-to-end
/// tests drive everything.
const UNLAYERED: &[&str] = &["tests"];

/// Module cycles not yet broken, as `crate: parent: a ↔ b ↔ ..` (the test
/// prints the references that make each one).
const KNOWN_CYCLES: &[&str] = &[];

/// Files over the limit that are being split.
const KNOWN_LONG_FILES: &[&str] = &[];

const MAX_LINES: usize = 1_500;

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default()
}

/// The crates to check: the workspace members with a `src/lib.rs`.
fn member_crates(root: &Path) -> Vec<String> {
    let manifest = std::fs::read_to_string(root.join("Cargo.toml")).unwrap_or_default();
    workspace_members(&manifest)
}

/// `members = ["a", "b", ..]` of a workspace manifest (one or more lines).
fn workspace_members(manifest: &str) -> Vec<String> {
    let Some(start) = manifest.find("members") else {
        return Vec::new();
    };
    let rest = &manifest[start..];
    let (Some(open), Some(close)) = (rest.find('['), rest.find(']')) else {
        return Vec::new();
    };
    rest.get(open + 1..close)
        .unwrap_or_default()
        .split(',')
        .map(|m| m.trim().trim_matches('"').to_string())
        .filter(|m| !m.is_empty())
        .collect()
}

#[test]
fn crates_depend_only_downwards() {
    let root = workspace();
    let mut problems = Vec::new();
    for member in member_crates(&root) {
        if UNLAYERED.contains(&member.as_str()) {
            continue;
        }
        let Some((_, allowed)) = LAYERS.iter().find(|(dir, _)| *dir == member) else {
            problems.push(format!(
                "{member}: not in LAYERS (say what it may depend on)"
            ));
            continue;
        };
        let manifest = std::fs::read_to_string(root.join(&member).join("Cargo.toml"))
            .unwrap_or_else(|e| panic!("{member}/Cargo.toml: {e}"));
        for dep in brine_dependencies(&manifest) {
            if !allowed.contains(&dep.as_str()) {
                problems.push(format!("{member} depends on {dep}"));
            }
        }
    }
    for p in &problems {
        eprintln!("layering: {p}");
    }
    assert!(
        problems.is_empty(),
        "layering broken:\n{}",
        problems.join("\n")
    );
}

/// The `brine-*` names in the dependency tables of a manifest (normal, dev,
/// build and target-specific; `[dependencies.brine-x]` tables too).
fn brine_dependencies(manifest: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut in_deps = false;
    for line in manifest.lines() {
        let line = line.trim();
        if let Some(header) = line.strip_prefix('[') {
            let header = header.trim_end_matches(']');
            in_deps = header.ends_with("dependencies");
            if let Some((table, name)) = header.rsplit_once('.') {
                if table.ends_with("dependencies") && name.starts_with("brine-") {
                    out.insert(name.to_string());
                }
            }
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
    for member in member_crates(&root) {
        let lib = root.join(&member).join("src/lib.rs");
        if !lib.is_file() {
            continue;
        }
        let tree = ModuleTree::read(&lib, &root, &|p| std::fs::read_to_string(p).ok());
        for (cycle, why) in tree.cycles() {
            found.insert(format!("{member}: {cycle}"), why);
        }
    }
    for (cycle, why) in &found {
        let known = if KNOWN_CYCLES.contains(&cycle.as_str()) {
            " (known)"
        } else {
            ""
        };
        eprintln!("cycle{known}: {cycle}\n{why}");
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

/// A module and its child must not lean on each other: the parent wires
/// its children (declares, re-exports, calls them), and what the children
/// share lives in a child of its own, not in the parent.
#[test]
fn no_two_way_parent_child_ties() {
    let root = workspace();
    let mut found = Vec::new();
    for member in member_crates(&root) {
        let lib = root.join(&member).join("src/lib.rs");
        if !lib.is_file() {
            continue;
        }
        let tree = ModuleTree::read(&lib, &root, &|p| std::fs::read_to_string(p).ok());
        for (tie, why) in tree.two_way_ties() {
            found.push(format!("{member}: {tie}\n{why}"));
        }
    }
    for f in &found {
        eprintln!("two-way tie: {f}");
    }
    assert!(
        found.is_empty(),
        "two-way parent/child ties:\n{}",
        found.join("\n")
    );
}

/// Every path ARCHITECTURE.md names in backticks exists: a path from the
/// workspace root (`master/src/daemon/`) exactly, a shorter one
/// (`yaml/composer.rs`, `jobs.rs`) as the end of some file or folder's
/// path. Names of things outside the repository (`/etc/...`, `../shared`,
/// `salt://`) are not paths of the tree.
#[test]
fn named_paths_exist() {
    let root = workspace();
    let text = std::fs::read_to_string(root.join("ARCHITECTURE.md")).expect("ARCHITECTURE.md");
    let mut all = Vec::new();
    tree_paths(&root, &root, &mut all);
    let mut missing = Vec::new();
    for name in backticked_paths(&text) {
        let whole = root.join(name.trim_end_matches('/'));
        let found = whole.exists()
            || all.iter().any(|p| {
                let p = p.trim_end_matches('/');
                let n = name.trim_end_matches('/');
                p == n || p.ends_with(&format!("/{n}"))
            });
        if !found {
            missing.push(name);
        }
    }
    assert!(
        missing.is_empty(),
        "ARCHITECTURE.md names paths that do not exist: {missing:?}"
    );
}

/// The backticked words of `text` that name a file or folder of the tree.
fn backticked_paths(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for (i, part) in text.split('`').enumerate() {
        if i % 2 == 0 {
            continue;
        }
        let word = part.trim();
        let pathlike = word.contains('/')
            || [".rs", ".py", ".md", ".json", ".toml"]
                .iter()
                .any(|e| word.ends_with(e));
        let plain = !word.is_empty()
            && word
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "._/-".contains(c));
        let outside = word.starts_with('/') || word.starts_with("..") || word.contains("//");
        if pathlike && plain && !outside {
            out.push(word.to_string());
        }
    }
    out
}

/// Every file and folder under `dir` (build output and git aside), as
/// paths from `root`, folders with a trailing `/`.
fn tree_paths(root: &Path, dir: &Path, out: &mut Vec<String>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        let name = e.file_name();
        if name == "target" || name == ".git" {
            continue;
        }
        let rel = p
            .strip_prefix(root)
            .unwrap_or(&p)
            .to_string_lossy()
            .into_owned();
        if p.is_dir() {
            out.push(format!("{rel}/"));
            tree_paths(root, &p, out);
        } else {
            out.push(rel);
        }
    }
}

#[test]
fn no_source_file_is_too_long() {
    let root = workspace();
    let mut long = BTreeSet::new();
    for member in member_crates(&root) {
        let mut files = Vec::new();
        rust_files(&root.join(&member), &mut files);
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
                let known = if KNOWN_LONG_FILES.contains(&rel.as_str()) {
                    " (known)"
                } else {
                    ""
                };
                eprintln!("long file{known}: {rel}: {lines} lines");
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

// ---------------------------------------------------------------------------
// Tokens: just enough of Rust's lexer to find paths outside comments and
// string literals.

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Ident(String),
    /// `::`
    Sep,
    Punct(char),
}

#[derive(Debug)]
struct Token {
    tok: Tok,
    line: usize,
}

fn lex(text: &str) -> Vec<Token> {
    let c: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut line = 1;
    let mut i = 0;
    // Advance past `c[i..end]`, counting the newlines inside.
    let skip = |i: &mut usize, end: usize, line: &mut usize| {
        let end = end.min(c.len());
        *line += c[*i..end].iter().filter(|&&ch| ch == '\n').count();
        *i = end;
    };
    while i < c.len() {
        let ch = c[i];
        let next = c.get(i + 1).copied();
        if ch == '\n' {
            line += 1;
            i += 1;
        } else if ch.is_whitespace() {
            i += 1;
        } else if ch == '/' && next == Some('/') {
            while i < c.len() && c[i] != '\n' {
                i += 1;
            }
        } else if ch == '/' && next == Some('*') {
            let (mut j, mut depth) = (i + 2, 1);
            while j < c.len() && depth > 0 {
                if c[j] == '/' && c.get(j + 1) == Some(&'*') {
                    depth += 1;
                    j += 2;
                } else if c[j] == '*' && c.get(j + 1) == Some(&'/') {
                    depth -= 1;
                    j += 2;
                } else {
                    j += 1;
                }
            }
            skip(&mut i, j, &mut line);
        } else if ch == '"' {
            let end = string_end(&c, i + 1);
            skip(&mut i, end, &mut line);
        } else if ch == '\'' {
            if next == Some('\\') {
                // An escaped char literal: `'\n'`, `'\''`, `'\u{..}'`.
                let mut j = i + 3;
                while j < c.len() && c[j] != '\'' {
                    j += 1;
                }
                i = j + 1;
            } else if c.get(i + 2) == Some(&'\'') {
                i += 3;
            } else {
                i += 1; // a lifetime: its name lexes as an ident
            }
        } else if ch.is_alphabetic() || ch == '_' {
            let start = i;
            while i < c.len() && (c[i].is_alphanumeric() || c[i] == '_') {
                i += 1;
            }
            let word: String = c[start..i].iter().collect();
            let after = c.get(i).copied();
            match (word.as_str(), after) {
                ("r" | "br", Some('"' | '#')) if raw_string_start(&c, i) => {
                    let end = raw_string_end(&c, i);
                    skip(&mut i, end, &mut line);
                }
                ("b", Some('"')) => {
                    let end = string_end(&c, i + 1);
                    skip(&mut i, end, &mut line);
                }
                ("b", Some('\'')) => {
                    let mut j = i + 2;
                    if c.get(i + 1) == Some(&'\\') {
                        j += 1;
                    }
                    while j < c.len() && c[j] != '\'' {
                        j += 1;
                    }
                    i = j + 1;
                }
                ("r", Some('#')) => i += 1, // a raw identifier `r#name`
                _ => out.push(Token {
                    tok: Tok::Ident(word),
                    line,
                }),
            }
        } else if ch.is_ascii_digit() {
            while i < c.len() && (c[i].is_alphanumeric() || c[i] == '_') {
                i += 1;
            }
        } else if ch == ':' && next == Some(':') {
            out.push(Token {
                tok: Tok::Sep,
                line,
            });
            i += 2;
        } else {
            out.push(Token {
                tok: Tok::Punct(ch),
                line,
            });
            i += 1;
        }
    }
    out
}

/// The index after the closing quote of a string whose body starts at `i`.
fn string_end(c: &[char], mut i: usize) -> usize {
    while i < c.len() {
        match c[i] {
            '\\' => i += 2,
            '"' => return i + 1,
            _ => i += 1,
        }
    }
    c.len()
}

/// Whether `#`s then `"` start at `i` (after `r` / `br`).
fn raw_string_start(c: &[char], mut i: usize) -> bool {
    while c.get(i) == Some(&'#') {
        i += 1;
    }
    c.get(i) == Some(&'"')
}

/// The index after a raw string whose `#`s start at `i`.
fn raw_string_end(c: &[char], mut i: usize) -> usize {
    let mut hashes = 0;
    while c.get(i) == Some(&'#') {
        hashes += 1;
        i += 1;
    }
    i += 1; // the opening quote
    while i < c.len() {
        if c[i] == '"' && (1..=hashes).all(|k| c.get(i + k) == Some(&'#')) {
            return i + 1 + hashes;
        }
        i += 1;
    }
    c.len()
}

// ---------------------------------------------------------------------------
// The module tree of one crate.

/// A module path from the crate root (`[]` is the root).
type ModPath = Vec<String>;

#[derive(Debug, Default)]
struct Module {
    /// Names bound by this module's own `use` items → the path as written.
    imports: BTreeMap<String, Vec<String>>,
}

/// A path as written in a module, where it was written.
#[derive(Debug)]
struct Ref {
    from: ModPath,
    path: Vec<String>,
    at: String,
}

#[derive(Debug, Default)]
struct ModuleTree {
    modules: BTreeMap<ModPath, Module>,
    refs: Vec<Ref>,
}

/// A leaf of a `use` tree: its path, the name it binds, its line.
type UseLeaf = (Vec<String>, Option<String>, usize);

type ReadFile<'a> = &'a dyn Fn(&Path) -> Option<String>;

impl ModuleTree {
    /// The tree whose root file is `lib`; `root` only shortens the file
    /// names in reports.
    fn read(lib: &Path, root: &Path, read: ReadFile) -> ModuleTree {
        let mut tree = ModuleTree::default();
        let dir = lib.parent().map(Path::to_path_buf).unwrap_or_default();
        tree.read_file(lib, root, Vec::new(), &dir, read);
        tree
    }

    fn read_file(&mut self, file: &Path, root: &Path, module: ModPath, dir: &Path, read: ReadFile) {
        let Some(text) = read(file) else {
            return;
        };
        let name = file
            .strip_prefix(root)
            .unwrap_or(file)
            .display()
            .to_string();
        let mut scan = Scan {
            toks: lex(&text),
            pos: 0,
            lines: text.lines().collect(),
            file: name,
        };
        self.scan(&mut scan, root, module, dir, read);
    }

    /// Read the items of `module` up to the `}` that closes it (or the end of
    /// the file); `dir` is where its `mod x;` files are.
    fn scan(&mut self, s: &mut Scan, root: &Path, module: ModPath, dir: &Path, read: ReadFile) {
        self.modules.entry(module.clone()).or_default();
        // Braces of non-module blocks (fn bodies, impls) open in this module.
        let mut depth = 0usize;
        let mut test_item = false;
        while let Some(tok) = s.peek(0).cloned() {
            match tok {
                Tok::Punct('#') => {
                    let inner = s.peek(1) == Some(&Tok::Punct('!'));
                    if is_cfg_test(&s.attribute()) {
                        if inner {
                            s.skip_block_rest();
                            return;
                        }
                        test_item = true;
                    }
                }
                _ if test_item => {
                    s.skip_item();
                    test_item = false;
                }
                Tok::Punct('}') => {
                    s.pos += 1;
                    if depth == 0 {
                        return;
                    }
                    depth -= 1;
                }
                Tok::Punct('{') => {
                    s.pos += 1;
                    depth += 1;
                }
                Tok::Ident(w) if w == "mod" => {
                    s.pos += 1;
                    let Some(Tok::Ident(name)) = s.peek(0).cloned() else {
                        continue;
                    };
                    s.pos += 1;
                    let mut child = module.clone();
                    child.push(name.clone());
                    let skipped = name == "tests" || name == "testdata";
                    match s.peek(0) {
                        Some(Tok::Punct(';')) => {
                            s.pos += 1;
                            if !skipped {
                                let flat = dir.join(format!("{name}.rs"));
                                let nested = dir.join(&name).join("mod.rs");
                                let file = if read(&flat).is_some() { flat } else { nested };
                                self.read_file(&file, root, child, &dir.join(&name), read);
                            }
                        }
                        Some(Tok::Punct('{')) => {
                            s.pos += 1;
                            if skipped {
                                s.skip_block_rest();
                            } else {
                                self.scan(s, root, child, &dir.join(&name), read);
                            }
                        }
                        _ => {}
                    }
                }
                Tok::Ident(w) if w == "use" => {
                    s.pos += 1;
                    let mut leaves = Vec::new();
                    s.use_tree(Vec::new(), &mut leaves);
                    for (path, name, line) in leaves {
                        let at = s.at_line(line);
                        if let (0, Some(name)) = (depth, name) {
                            if let Some(m) = self.modules.get_mut(&module) {
                                m.imports.insert(name, path.clone());
                            }
                        }
                        self.refs.push(Ref {
                            from: module.clone(),
                            path,
                            at,
                        });
                    }
                }
                // `pub(crate)`, `pub(in crate::a)`: visibility, no reference.
                Tok::Ident(w) if w == "pub" && s.peek(1) == Some(&Tok::Punct('(')) => {
                    s.pos += 1;
                    s.skip_group();
                }
                // A path in code: `crate::`, `super::`, `self::`, or one
                // starting at a child module or an imported name
                // (`jobs::subscribe()`); other first segments (types,
                // other crates) are dropped when the path is resolved.
                Tok::Ident(_)
                    if s.peek(1) == Some(&Tok::Sep)
                        && s.pos
                            .checked_sub(1)
                            .and_then(|p| s.toks.get(p))
                            .map(|t| &t.tok)
                            != Some(&Tok::Sep) =>
                {
                    let at = s.at();
                    let path = s.path();
                    self.refs.push(Ref {
                        from: module.clone(),
                        path,
                        at,
                    });
                }
                _ => s.pos += 1,
            }
        }
    }

    /// `path` as written in `from`, from the crate root; `None` for a path
    /// into another crate.
    fn absolute(&self, from: &[String], path: &[String]) -> Option<ModPath> {
        let mut at = from.to_vec();
        let mut rest = path;
        match path.first().map(String::as_str) {
            Some("crate") => {
                at.clear();
                rest = &path[1..];
            }
            Some("self" | "super") => {
                while let Some(head) = rest.first() {
                    match head.as_str() {
                        "self" => {}
                        "super" => {
                            at.pop()?;
                        }
                        _ => break,
                    }
                    rest = &rest[1..];
                }
            }
            Some(first) => {
                // 2018 paths: a child module of `from`, else a name `from`
                // imports, else another crate (or a type).
                let mut child = from.to_vec();
                child.push(first.to_string());
                if !self.modules.contains_key(&child) {
                    let imported = self.modules.get(from)?.imports.get(first)?;
                    // Only imports that name this crate are followed (once:
                    // they resolve without another import).
                    let head = imported.first()?;
                    let mut child = from.to_vec();
                    child.push(head.clone());
                    if !matches!(head.as_str(), "crate" | "super" | "self")
                        && !self.modules.contains_key(&child)
                    {
                        return None;
                    }
                    let mut whole = imported.clone();
                    whole.extend(path[1..].iter().cloned());
                    return self.absolute(from, &whole);
                }
            }
            None => return None,
        }
        at.extend(rest.iter().cloned());
        Some(at)
    }

    /// The module an absolute path names: it descends while the segments
    /// are modules, and follows a name a module imports to its origin.
    fn resolve(&self, path: &[String], hops: usize) -> ModPath {
        let mut at: ModPath = Vec::new();
        for (i, seg) in path.iter().enumerate() {
            let mut next = at.clone();
            next.push(seg.clone());
            if self.modules.contains_key(&next) {
                at = next;
                continue;
            }
            let origin = self
                .modules
                .get(&at)
                .and_then(|m| m.imports.get(seg))
                .and_then(|p| self.absolute(&at, p));
            if let (Some(mut origin), true) = (origin, hops < 8) {
                origin.extend(path[i + 1..].iter().cloned());
                return self.resolve(&origin, hops + 1);
            }
            break;
        }
        at
    }

    /// Every module reference as (from, to, where).
    fn edges(&self) -> Vec<(ModPath, ModPath, &str)> {
        self.refs
            .iter()
            .filter_map(|r| {
                let abs = self.absolute(&r.from, &r.path)?;
                Some((r.from.clone(), self.resolve(&abs, 0), r.at.as_str()))
            })
            .collect()
    }

    /// Ties that run both ways between a module and one of its children:
    /// the parent refers into the child's subtree, and the child's subtree
    /// refers to items the parent itself defines (not to the parent's other
    /// children, which are sibling edges). As `parent ↔ child`, with one
    /// reference each way.
    fn two_way_ties(&self) -> Vec<(String, String)> {
        // (parent, child) → an example of each direction.
        let mut down: BTreeMap<(ModPath, String), String> = BTreeMap::new();
        let mut up: BTreeMap<(ModPath, String), String> = BTreeMap::new();
        for (from, to, at) in self.edges() {
            let lca = from.iter().zip(&to).take_while(|(a, b)| a == b).count();
            if lca == from.len() && to.len() > lca {
                // `from` is the ancestor: a reference down into `to`.
                down.entry((from.clone(), to[lca].clone()))
                    .or_insert_with(|| at.to_string());
            } else if lca == to.len() && from.len() > lca {
                // `to` is the ancestor, named by its own items.
                up.entry((to.clone(), from[lca].clone()))
                    .or_insert_with(|| at.to_string());
            }
        }
        let mut out = Vec::new();
        for (key, down_at) in &down {
            if let Some(up_at) = up.get(key) {
                let (parent, child) = key;
                let parent = if parent.is_empty() {
                    "crate".to_string()
                } else {
                    parent.join("::")
                };
                out.push((
                    format!("{parent} ↔ {child}"),
                    format!("    down: {down_at}\n    up: {up_at}"),
                ));
            }
        }
        out
    }

    /// Sibling cycles: `parent: a ↔ b`, with one reference per edge.
    fn cycles(&self) -> Vec<(String, String)> {
        // parent → (sibling, sibling) → an example and the count.
        type Edges = BTreeMap<(String, String), (String, usize)>;
        let mut by_parent: BTreeMap<ModPath, Edges> = BTreeMap::new();
        for (from, to, at) in self.edges() {
            let lca = from.iter().zip(&to).take_while(|(a, b)| a == b).count();
            if lca == from.len() || lca == to.len() {
                continue; // ancestor or descendant: one unit
            }
            let e = by_parent
                .entry(from[..lca].to_vec())
                .or_default()
                .entry((from[lca].clone(), to[lca].clone()))
                .or_insert_with(|| {
                    (
                        format!("    {} → {}: {at}", from.join("::"), to.join("::")),
                        0,
                    )
                });
            e.1 += 1;
        }
        let mut out = Vec::new();
        for (parent, edges) in by_parent {
            for component in strongly_connected(&edges) {
                let why: Vec<String> = edges
                    .iter()
                    .filter(|((a, b), _)| component.contains(a) && component.contains(b))
                    .map(|(_, (ex, n))| {
                        if *n > 1 {
                            format!("{ex} (and {} more)", n - 1)
                        } else {
                            ex.clone()
                        }
                    })
                    .collect();
                let parent = if parent.is_empty() {
                    "crate".to_string()
                } else {
                    parent.join("::")
                };
                let names: Vec<&str> = component.iter().map(String::as_str).collect();
                out.push((format!("{parent}: {}", names.join(" ↔ ")), why.join("\n")));
            }
        }
        out
    }
}

/// The components of more than one node of a small directed graph.
fn strongly_connected<V>(edges: &BTreeMap<(String, String), V>) -> Vec<BTreeSet<String>> {
    let nodes: BTreeSet<&String> = edges.keys().flat_map(|(a, b)| [a, b]).collect();
    let reach = |start: &String| {
        let mut seen = BTreeSet::new();
        let mut stack = vec![start.clone()];
        while let Some(n) = stack.pop() {
            for (a, b) in edges.keys() {
                if *a == n && seen.insert(b.clone()) {
                    stack.push(b.clone());
                }
            }
        }
        seen
    };
    let mut done = BTreeSet::new();
    let mut out = Vec::new();
    for n in &nodes {
        if done.contains(*n) {
            continue;
        }
        let from_n = reach(n);
        let component: BTreeSet<String> = nodes
            .iter()
            .filter(|m| **m == *n || (from_n.contains(**m) && reach(m).contains(*n)))
            .map(|m| (*m).clone())
            .collect();
        done.extend(component.iter().cloned());
        if component.len() > 1 {
            out.push(component);
        }
    }
    out
}

/// `#[cfg(test)]`, `#[cfg(all(test, ..))]`: code that only tests compile.
fn is_cfg_test(attr: &[Tok]) -> bool {
    let ident = |w: &str| attr.contains(&Tok::Ident(w.to_string()));
    attr.first() == Some(&Tok::Ident("cfg".into())) && ident("test") && !ident("not")
}

/// A cursor over one file's tokens.
struct Scan<'a> {
    toks: Vec<Token>,
    pos: usize,
    lines: Vec<&'a str>,
    file: String,
}

impl Scan<'_> {
    fn peek(&self, ahead: usize) -> Option<&Tok> {
        self.toks.get(self.pos + ahead).map(|t| &t.tok)
    }

    /// `file:line: the line` of the token at the cursor, for reports.
    fn at(&self) -> String {
        self.at_line(self.toks.get(self.pos).map_or(0, |t| t.line))
    }

    fn at_line(&self, line: usize) -> String {
        let text = self
            .lines
            .get(line.saturating_sub(1))
            .map_or("", |l| l.trim());
        format!("{}:{line}: {text}", self.file)
    }

    /// Consume `#[..]` / `#![..]`; the tokens inside the brackets.
    fn attribute(&mut self) -> Vec<Tok> {
        self.pos += 1;
        if self.peek(0) == Some(&Tok::Punct('!')) {
            self.pos += 1;
        }
        if self.peek(0) != Some(&Tok::Punct('[')) {
            return Vec::new();
        }
        let start = self.pos + 1;
        self.skip_group();
        let end = self.pos.saturating_sub(1).max(start);
        self.toks[start.min(end)..end]
            .iter()
            .map(|t| t.tok.clone())
            .collect()
    }

    /// At an opening bracket: consume through its matching close.
    fn skip_group(&mut self) {
        let mut depth = 0usize;
        while let Some(tok) = self.peek(0).cloned() {
            self.pos += 1;
            match tok {
                Tok::Punct('(' | '[' | '{') => depth += 1,
                Tok::Punct(')' | ']' | '}') => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        return;
                    }
                }
                _ => {}
            }
        }
    }

    /// Inside a block: consume through the `}` that closes it.
    fn skip_block_rest(&mut self) {
        let mut depth = 1usize;
        while let Some(tok) = self.peek(0).cloned() {
            self.pos += 1;
            match tok {
                Tok::Punct('{') => depth += 1,
                Tok::Punct('}') => {
                    depth -= 1;
                    if depth == 0 {
                        return;
                    }
                }
                _ => {}
            }
        }
    }

    /// Consume one item (after its attributes): through its `;` or its
    /// `{ .. }` body, whichever comes first outside brackets. Stops before
    /// a close that is not its own.
    fn skip_item(&mut self) {
        while let Some(tok) = self.peek(0) {
            match tok {
                Tok::Punct(';') => {
                    self.pos += 1;
                    return;
                }
                Tok::Punct('{') => {
                    self.skip_group();
                    return;
                }
                Tok::Punct('(' | '[') => self.skip_group(),
                Tok::Punct(')' | ']' | '}') => return,
                _ => self.pos += 1,
            }
        }
    }

    /// `a::b::c` at the cursor, up to a turbofish, group or glob.
    fn path(&mut self) -> Vec<String> {
        let mut segs = Vec::new();
        while let Some(Tok::Ident(w)) = self.peek(0).cloned() {
            segs.push(w);
            self.pos += 1;
            if self.peek(0) == Some(&Tok::Sep) && matches!(self.peek(1), Some(Tok::Ident(_))) {
                self.pos += 1;
            } else {
                break;
            }
        }
        segs
    }

    /// A `use` tree after `prefix`: every leaf as (path, the name it binds
    /// (none for a glob or `as _`), its line).
    fn use_tree(&mut self, prefix: Vec<String>, out: &mut Vec<UseLeaf>) {
        let mut segs = prefix;
        if self.peek(0) == Some(&Tok::Sep) {
            self.pos += 1;
        }
        loop {
            match self.peek(0).cloned() {
                Some(Tok::Ident(w)) => {
                    segs.push(w);
                    self.pos += 1;
                    if self.peek(0) != Some(&Tok::Sep) {
                        break;
                    }
                    self.pos += 1;
                }
                Some(Tok::Punct('{')) => {
                    self.pos += 1;
                    loop {
                        match self.peek(0) {
                            Some(Tok::Punct('}')) => {
                                self.pos += 1;
                                return;
                            }
                            Some(Tok::Punct(',')) => self.pos += 1,
                            None => return,
                            Some(_) => {
                                let before = self.pos;
                                self.use_tree(segs.clone(), out);
                                if self.pos == before {
                                    self.pos += 1; // not a use tree: step over
                                }
                            }
                        }
                    }
                }
                Some(Tok::Punct('*')) => {
                    let line = self.toks.get(self.pos).map_or(0, |t| t.line);
                    self.pos += 1;
                    out.push((segs, None, line));
                    return;
                }
                _ => return,
            }
        }
        if segs.last().is_some_and(|s| s == "self") && segs.len() > 1 {
            segs.pop(); // `a::{self}` is `a`
        }
        let line = self
            .toks
            .get(self.pos.saturating_sub(1))
            .map_or(0, |t| t.line);
        let mut name = segs.last().cloned();
        if self.peek(0) == Some(&Tok::Ident("as".into())) {
            self.pos += 1;
            if let Some(Tok::Ident(alias)) = self.peek(0).cloned() {
                self.pos += 1;
                name = (alias != "_").then_some(alias);
            }
        }
        out.push((segs, name, line));
    }
}

#[cfg(test)]
mod checker {
    use super::*;

    /// A tree from in-memory files under `src/`.
    fn tree(files: &[(&str, &str)]) -> ModuleTree {
        let fs: BTreeMap<PathBuf, String> = files
            .iter()
            .map(|(p, code)| (Path::new("src").join(p), code.to_string()))
            .collect();
        ModuleTree::read(Path::new("src/lib.rs"), Path::new(""), &|p| {
            fs.get(p).cloned()
        })
    }

    fn names(t: &ModuleTree) -> Vec<String> {
        t.cycles().into_iter().map(|(c, _)| c).collect()
    }

    #[test]
    fn finds_a_planted_cycle() {
        let t = tree(&[
            ("lib.rs", "pub mod render;\nmod pillar;"),
            ("render/mod.rs", "pub mod jinja;\npub mod yaml;"),
            ("render/jinja.rs", "use super::yaml::load;"),
            (
                "render/yaml.rs",
                "use crate::render::{\n    jinja::Env,\n    other,\n};",
            ),
            ("pillar.rs", "use crate::render::jinja;"),
        ]);
        let cycles = t.cycles();
        assert_eq!(names(&t), ["render: jinja ↔ yaml"]);
        assert!(cycles[0].1.contains("src/render/yaml.rs:2"), "{cycles:?}");
    }

    #[test]
    fn parents_and_children_and_layers_are_no_cycle() {
        let t = tree(&[
            ("lib.rs", "mod a;\nmod b;\nmod c;\nuse crate::a::x;"),
            ("a.rs", "pub mod x;\nuse self::x::f; use crate::b::g;"),
            ("a/x.rs", "use super::helper; use crate::b;"),
            ("b.rs", "fn f() { crate::c::go(); }"),
            (
                "c.rs",
                "// uses crate::a::x\nconst S: &str = \"crate::b::f\";",
            ),
        ]);
        assert!(names(&t).is_empty(), "{:?}", t.cycles());
    }

    #[test]
    fn a_re_export_does_not_hide_a_cycle() {
        // `py` reaches `value` through the root's `pub use`.
        let t = tree(&[
            (
                "lib.rs",
                "pub mod py;\npub mod value;\npub use value::Value;",
            ),
            ("py.rs", "use crate::Value;"),
            ("value.rs", "pub use crate::py::repr as python_repr;"),
        ]);
        assert_eq!(names(&t), ["crate: py ↔ value"]);
    }

    #[test]
    fn inline_modules_count_and_test_code_does_not() {
        let t = tree(&[
            (
                "lib.rs",
                "mod a;\nmod b;\nmod inner {\n    pub fn f() { crate::a::g(); }\n}\n\
                 #[cfg(test)]\nmod tests { use crate::b::x; }",
            ),
            (
                "a.rs",
                "pub fn g() { crate::inner::f(); }\n#[cfg(test)]\nuse crate::b;",
            ),
            (
                "b.rs",
                "#[cfg(test)]\nfn t() { crate::a::g(); }\nfn f() {}\nmod tests;",
            ),
            ("b/tests.rs", "use crate::a;"),
        ]);
        assert_eq!(names(&t), ["crate: a ↔ inner"]);
        assert!(t.modules.contains_key(&vec!["inner".to_string()]));
        assert!(!t
            .modules
            .contains_key(&vec!["b".to_string(), "tests".into()]));
    }

    #[test]
    fn reads_use_trees() {
        let mut s = Scan {
            toks: lex("crate::{a, b::{c as d, self}, e::*, f as _};"),
            pos: 0,
            lines: Vec::new(),
            file: String::new(),
        };
        let mut out = Vec::new();
        s.use_tree(Vec::new(), &mut out);
        let p = |x: &[&str]| x.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(
            out,
            vec![
                (p(&["crate", "a"]), Some("a".into()), 1),
                (p(&["crate", "b", "c"]), Some("d".into()), 1),
                (p(&["crate", "b"]), Some("b".into()), 1),
                (p(&["crate", "e"]), None, 1),
                (p(&["crate", "f"]), None, 1),
            ]
        );
    }

    #[test]
    fn lexes_around_comments_strings_and_chars() {
        let toks: Vec<Tok> =
            lex("/* crate::a /* nested */ */ r#\"crate::b\"# '\\'' 'x' b'\"' x<'a>")
                .into_iter()
                .map(|t| t.tok)
                .collect();
        assert_eq!(
            toks,
            vec![
                Tok::Ident("x".into()),
                Tok::Punct('<'),
                Tok::Ident("a".into()),
                Tok::Punct('>'),
            ]
        );
    }

    #[test]
    fn reads_manifests() {
        let m = "[dependencies]\nbrine-core.workspace = true\nbrine-compile = { path = \"../compile\" }\n\
                 serde = \"1\"\n[dev-dependencies.brine-runtime]\npath = \"x\"\n[features]\nbrine-x = []";
        assert_eq!(
            brine_dependencies(m).into_iter().collect::<Vec<_>>(),
            ["brine-compile", "brine-core", "brine-runtime"]
        );
        assert_eq!(
            workspace_members("[workspace]\nmembers = [\n  \"core\",\n  \"tests\",\n]\n"),
            ["core", "tests"]
        );
    }
}

/// ARCHITECTURE.md's minion invariant: a minion host installs no database
/// client (the job cache and the shared key store are the master's).
#[test]
fn the_minion_links_no_database_client() {
    let manifest =
        std::fs::read_to_string(workspace().join("minion/Cargo.toml")).expect("minion/Cargo.toml");
    for db in [
        "rusqlite",
        "tokio-postgres",
        "deadpool-postgres",
        "postgres",
    ] {
        let named = manifest.lines().any(|l| {
            let l = l.trim_start();
            l.starts_with(&format!("{db} "))
                || l.starts_with(&format!("{db}."))
                || l.starts_with(&format!("{db}="))
        });
        assert!(!named, "minion/Cargo.toml depends on {db}");
    }
}
