//! apt's one-line sources as Salt 3007.8's `aptpkg` module reads and
//! writes them without python-apt (its own `SourceEntry`/`SourcesList`;
//! the venv Salt runs from here has no python-apt): `/etc/apt/sources.list`
//! and `/etc/apt/sources.list.d/**/*.list`. deb822 `.sources` files are
//! neither read nor written, as in Salt 3007.8.

use super::root::RepoRoot;
use brine_core::{Map, Value};
use indexmap::IndexMap;
use std::path::Path;

/// The file an entry belongs to when none is named.
pub const MAIN_LIST: &str = "/etc/apt/sources.list";

/// One line of a sources file (Salt's `SourceEntry`).
#[derive(Debug, Clone, PartialEq)]
pub struct SourceEntry {
    pub invalid: bool,
    pub comps: Vec<String>,
    pub disabled: bool,
    pub comment: String,
    pub dist: String,
    pub kind: String,
    pub uri: String,
    pub line: String,
    pub architectures: Vec<String>,
    pub signedby: String,
    /// The file as apt names it (`/etc/apt/...`).
    pub file: String,
}

/// One `[key=value]` option of a line: its text and value.
#[derive(Debug, Clone)]
struct Opt {
    full: String,
    value: Vec<String>,
}

/// Salt's `_get_opts`: the options between the first `[` and the last `]`
/// of a line holding `=`.
fn get_opts(line: &str) -> IndexMap<String, Opt> {
    let mut ret = IndexMap::new();
    let (Some(start), Some(end)) = (line.find('['), line.rfind(']')) else {
        return ret;
    };
    let Some(inner) = line.get(start + 1..end).filter(|s| s.contains('=')) else {
        return ret;
    };
    let mut archs: Vec<String> = Vec::new();
    for opt in inner.split_whitespace() {
        let value = opt.split_once('=').map_or("", |(_, v)| v);
        if opt.starts_with("arch") {
            archs.extend(value.split(',').map(str::to_string));
            ret.insert(
                "arch".into(),
                Opt {
                    full: opt.into(),
                    value: archs.clone(),
                },
            );
        } else if opt.starts_with("signed-by") {
            ret.insert(
                "signedby".into(),
                Opt {
                    full: opt.into(),
                    value: vec![value.into()],
                },
            );
        } else {
            let key = opt.split_once('=').map_or(opt, |(k, _)| k);
            ret.insert(
                key.into(),
                Opt {
                    full: opt.into(),
                    value: vec![value.into()],
                },
            );
        }
    }
    ret
}

/// Salt's `_invalid`: (disabled, invalid, comment, words) of a line.
fn parse_line(line: &str) -> (bool, bool, String, Vec<String>) {
    let mut line = line.trim();
    if line.is_empty() {
        return (false, true, String::new(), Vec::new());
    }
    let mut disabled = false;
    if let Some(rest) = line.strip_prefix('#') {
        disabled = true;
        line = rest;
    }
    let mut comment = String::new();
    let owned;
    if let Some(idx) = line.find('#').filter(|i| *i > 0) {
        comment = line[idx + 1..].to_string();
        owned = line[..idx].to_string();
        line = &owned;
    }
    let words: Vec<String> = line.split_whitespace().map(str::to_string).collect();
    let known = ["deb", "deb-src", "rpm", "rpm-src"];
    if words.len() < 3 || !known.contains(&words[0].as_str()) {
        return (disabled, true, comment, words);
    }
    if words[1].starts_with('[') && !words[1..].iter().any(|w| w.ends_with(']')) {
        return (disabled, true, comment, words);
    }
    (disabled, false, comment, words)
}

impl SourceEntry {
    /// The entry of `line` in `file` (`/etc/apt/sources.list` when none).
    pub fn new(line: &str, file: Option<&str>) -> SourceEntry {
        let mut e = SourceEntry {
            invalid: false,
            comps: Vec::new(),
            disabled: false,
            comment: String::new(),
            dist: String::new(),
            kind: String::new(),
            uri: String::new(),
            line: line.to_string(),
            architectures: Vec::new(),
            signedby: String::new(),
            file: file.unwrap_or(MAIN_LIST).to_string(),
        };
        let (disabled, invalid, comment, mut words) = parse_line(line);
        e.disabled = disabled;
        e.invalid = invalid;
        e.comment = comment;
        if invalid {
            return e;
        }
        if words[1].starts_with('[') {
            words = words
                .iter()
                .map(|w| w.trim_matches(|c| c == '[' || c == ']').to_string())
                .filter(|w| !w.is_empty())
                .collect();
            let opts = get_opts(line);
            if let Some(a) = opts.get("arch") {
                e.architectures.extend(a.value.iter().cloned());
            }
            if let Some(s) = opts.get("signedby") {
                e.signedby = s.value.first().cloned().unwrap_or_default();
            }
            for o in opts.values() {
                if let Some(i) = words.iter().position(|w| *w == o.full) {
                    words.remove(i);
                }
            }
        }
        if words.len() < 3 {
            e.invalid = true;
            return e;
        }
        e.kind = words[0].clone();
        e.uri = words[1].clone();
        e.dist = words[2].clone();
        e.comps = words[3..].to_vec();
        e
    }

    /// Salt's `repo_line`: the line written back for this entry.
    pub fn repo_line(&self) -> String {
        if self.invalid {
            return self.line.clone();
        }
        let mut parts: Vec<String> = Vec::new();
        if self.disabled {
            parts.push("#".into());
        }
        parts.push(self.kind.clone());
        let mut opts = get_opts(&self.line);
        if !self.architectures.is_empty() {
            opts.insert(
                "arch".into(),
                Opt {
                    full: format!("arch={}", self.architectures.join(",")),
                    value: self.architectures.clone(),
                },
            );
        }
        if !self.signedby.is_empty() {
            opts.insert(
                "signedby".into(),
                Opt {
                    full: format!("signed-by={}", self.signedby),
                    value: vec![self.signedby.clone()],
                },
            );
        }
        let ordered: Vec<&str> = opts
            .values()
            .map(|o| o.full.as_str())
            .filter(|f| !f.is_empty())
            .collect();
        if !ordered.is_empty() {
            parts.push(format!("[{}]", ordered.join(" ")));
        }
        parts.push(self.uri.clone());
        parts.push(self.dist.clone());
        parts.push(self.comps.join(" "));
        if !self.comment.is_empty() {
            parts.push(format!("#{}", self.comment));
        }
        format!("{}\n", parts.join(" "))
    }

    /// This entry as `list_repos`/`get_repo` describe it.
    pub fn to_map(&self) -> Map {
        let strs = |v: &[String]| Value::List(v.iter().cloned().map(Value::Str).collect());
        let mut m = Map::default();
        m.insert("file".into(), Value::Str(self.file.clone()));
        m.insert("comps".into(), strs(&self.comps));
        m.insert("disabled".into(), Value::Bool(self.disabled));
        m.insert("dist".into(), Value::Str(self.dist.clone()));
        m.insert("type".into(), Value::Str(self.kind.clone()));
        m.insert("uri".into(), Value::Str(self.uri.clone()));
        m.insert("line".into(), Value::Str(self.line.trim().to_string()));
        m.insert("architectures".into(), strs(&self.architectures));
        m.insert("signedby".into(), Value::Str(self.signedby.clone()));
        m
    }
}

/// Every entry of the sources files (Salt's `SourcesList`), in file order:
/// `sources.list`, then `sources.list.d`'s `*.list` files by name.
pub struct SourcesList {
    pub list: Vec<SourceEntry>,
}

/// Most lines read from the sources files (a bound on what a hostile or
/// broken file can make this hold).
const MAX_LINES: usize = 100_000;

impl SourcesList {
    pub fn read(root: &RepoRoot) -> SourcesList {
        let mut files = vec![MAIN_LIST.to_string()];
        let mut more = Vec::new();
        walk_lists(root, "/etc/apt/sources.list.d", &mut more, 0);
        more.sort();
        files.extend(more);
        let mut list = Vec::new();
        for f in files {
            if let Ok(text) = std::fs::read_to_string(root.real(&f)) {
                for line in text.split_inclusive('\n') {
                    if list.len() < MAX_LINES {
                        list.push(SourceEntry::new(line, Some(&f)));
                    }
                }
            }
        }
        SourcesList { list }
    }

    /// Salt's `save`: each file that holds entries written again, entry by
    /// entry (files left with none are not touched).
    pub fn save(&self, root: &RepoRoot) -> std::io::Result<()> {
        let mut files: IndexMap<String, String> = IndexMap::new();
        for e in &self.list {
            files
                .entry(e.file.clone())
                .or_default()
                .push_str(&e.repo_line());
        }
        for (f, text) in files {
            let real = root.real(&f);
            if let Some(dir) = real.parent() {
                std::fs::create_dir_all(dir)?;
            }
            std::fs::write(real, text)?;
        }
        Ok(())
    }

    /// Salt's `list_repos`, flattened: the valid entries.
    pub fn valid(&self) -> impl Iterator<Item = &SourceEntry> {
        self.list.iter().filter(|e| !e.invalid)
    }
}

/// `*.list` files under `dir` (apt's name for it), recursively as Salt's
/// `glob("**/*.list")`, to a bounded depth.
fn walk_lists(root: &RepoRoot, dir: &str, out: &mut Vec<String>, depth: usize) {
    if depth > 16 {
        return;
    }
    let Ok(rd) = std::fs::read_dir(root.real(dir)) else {
        return;
    };
    for e in rd.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        let logical = format!("{dir}/{name}");
        let Ok(ft) = e.file_type() else { continue };
        if ft.is_dir() {
            walk_lists(root, &logical, out, depth + 1);
        } else if name.ends_with(".list") {
            out.push(logical);
        }
    }
}

/// Salt's `get_repo`: the first entry with the same type, URI (trailing
/// `/` aside) and dist that shares a component (or any, when `repo` names
/// none).
pub fn get_repo(sources: &SourcesList, repo: &str) -> Option<SourceEntry> {
    let want = SourceEntry::new(repo, None);
    sources
        .valid()
        .find(|s| {
            s.kind == want.kind
                && s.uri.trim_end_matches('/') == want.uri.trim_end_matches('/')
                && s.dist == want.dist
                && (want.comps.is_empty() || want.comps.iter().any(|c| s.comps.contains(c)))
        })
        .cloned()
}

/// Salt's `strip_uri`: trailing `/` of URLs in a repo line dropped.
pub fn strip_uri(repo: &str) -> String {
    repo.split_whitespace()
        .map(|w| {
            if ["http://", "https://", "ftp://"]
                .iter()
                .any(|p| w.starts_with(p))
            {
                w.trim_end_matches('/')
            } else {
                w
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// Split a comma list argument (`comps`, `architectures`).
pub fn split_commas(v: &Value) -> Vec<String> {
    v.to_python_str()
        .split(',')
        .map(|s| s.trim().to_string())
        .collect()
}

/// Salt's `_expand_repo_def`: the entry a repo line (with the state's
/// `comps`, `architectures`, `dist`, `uri`, `file`, `disabled`,
/// `signedby`) stands for, as the dict the state compares.
pub fn expand_repo_def(repo: &str, kwargs: &Map) -> Map {
    let mut e = SourceEntry::new(repo, None);
    for key in [
        "uri",
        "comps",
        "architectures",
        "disabled",
        "file",
        "dist",
        "signedby",
    ] {
        let Some(v) = kwargs.get(key) else { continue };
        match key {
            "comps" => e.comps = split_commas(v),
            "architectures" => e.architectures = split_commas(v),
            "disabled" => e.disabled = v.is_truthy(),
            "uri" => e.uri = v.to_python_str(),
            "dist" => e.dist = v.to_python_str(),
            "signedby" => e.signedby = v.to_python_str(),
            _ => {}
        }
    }
    // Salt rebuilds the line from the parts (SourcesList.add).
    let mut opts = Vec::new();
    if !e.architectures.is_empty() {
        opts.push(format!("arch={}", e.architectures.join(",")));
    }
    if !e.signedby.is_empty() {
        opts.push(format!("signed-by={}", e.signedby));
    }
    let opts_line = if opts.is_empty() {
        String::new()
    } else {
        format!("[{}]", opts.join(" "))
    };
    let parts = [
        e.kind.clone(),
        opts_line,
        e.uri.clone(),
        e.dist.clone(),
        e.comps.join(" "),
    ];
    let joined: Vec<&str> = parts
        .iter()
        .map(String::as_str)
        .filter(|p| !p.trim().is_empty())
        .collect();
    let mut added = SourceEntry::new(&joined.join(" "), None);
    added.disabled = e.disabled;
    added.line = added.repo_line();
    let mut m = added.to_map();
    m.insert("signedby".into(), Value::Str(e.signedby.clone()));
    m
}

/// Whether `path` exists under the root.
pub fn exists(root: &RepoRoot, path: &str) -> bool {
    Path::new(&root.real(path)).exists()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_like_salt() {
        let e = SourceEntry::new(
            "deb [arch=amd64,arm64 signed-by=/k.gpg] http://h/d bookworm main contrib # note\n",
            None,
        );
        assert_eq!(e.kind, "deb");
        assert_eq!(e.uri, "http://h/d");
        assert_eq!(e.comps, ["main", "contrib"]);
        assert_eq!(e.architectures, ["amd64", "arm64"]);
        assert_eq!(e.signedby, "/k.gpg");
        assert_eq!(e.comment, " note");
        let d = SourceEntry::new("#deb http://h/d bookworm main\n", None);
        assert!(d.disabled && !d.invalid);
        assert_eq!(d.repo_line(), "# deb http://h/d bookworm main\n");
        assert!(SourceEntry::new("# just a comment\n", None).invalid);
        assert!(SourceEntry::new("deb http://h\n", None).invalid);
        assert_eq!(strip_uri("deb http://h/d/ x"), "deb http://h/d x");
    }
}
