//! `hiera.yaml` version 5: reading and checking it the way Puppet 7 does
//! (`defaults`, `hierarchy`, `default_hierarchy`, the location keys
//! `path`/`paths`/`glob`/`globs`/`mapped_paths`/`uri`/`uris`), and turning
//! a hierarchy level into the data files it names for one node.

use super::data::{load_yaml_node, node_to_value_lenient};
use super::interpolation::{interpolate_string, ruby_to_s, scope_lookup, Resolver, Scope};
use super::HieraError;
use brine_core::{Map, Value};
use std::path::{Path, PathBuf};

const FUNCTION_KEYS: &[&str] = &["data_hash", "lookup_key", "data_dig", "hiera3_backend"];
const LOCATION_KEYS: &[&str] = &[
    "path",
    "paths",
    "glob",
    "globs",
    "uri",
    "uris",
    "mapped_paths",
];
const LEVEL_KEYS: &[&str] = &[
    "name",
    "options",
    "data_hash",
    "lookup_key",
    "hiera3_backend",
    "v4_data_hash",
    "data_dig",
    "path",
    "paths",
    "glob",
    "globs",
    "uri",
    "uris",
    "mapped_paths",
    "datadir",
];
const DEFAULTS_KEYS: &[&str] = &["data_hash", "lookup_key", "data_dig", "datadir", "options"];

/// Which of Puppet's three kinds of backend function a level uses.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Function {
    DataHash(String),
    LookupKey(String),
    DataDig(String),
}

/// Where a level's data lives, as written (interpolated per node later).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Locations {
    Paths(Vec<String>),
    Globs(Vec<String>),
    Uris(Vec<String>),
    /// `[variable, key, template]`.
    Mapped(String, String, String),
    /// No location key: the function is called without a path.
    None,
}

/// One level of a hierarchy.
#[derive(Debug, Clone, PartialEq)]
pub struct Level {
    pub name: String,
    pub function: Function,
    /// The level's `datadir`, else the defaults', else `data`.
    pub datadir: String,
    pub locations: Locations,
}

/// A checked version 5 `hiera.yaml`.
#[derive(Debug, Clone, PartialEq)]
pub struct Config {
    pub path: PathBuf,
    /// The directory holding the file: relative datadirs start there.
    pub root: PathBuf,
    pub hierarchy: Vec<Level>,
    pub default_hierarchy: Option<Vec<Level>>,
}

/// Where the configuration sits, which decides what it may hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Place {
    Global,
    Environment,
    Module,
}

/// A data file a level names, and whether it was there when the level was
/// resolved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Location {
    pub path: PathBuf,
    pub exists: bool,
}

/// 1-based number of the first line of `text` (comments stripped) for
/// which `pred` holds, from line `from` on.
fn find_line(text: &str, from: usize, pred: impl Fn(&str) -> bool) -> Option<usize> {
    text.lines()
        .enumerate()
        .skip(from.saturating_sub(1))
        .find_map(|(i, line)| {
            let mut quote: Option<char> = None;
            let mut stripped = String::with_capacity(line.len());
            for c in line.chars() {
                match c {
                    '"' | '\'' if quote == Some(c) => quote = None,
                    '"' | '\'' if quote.is_none() => quote = Some(c),
                    '#' if quote.is_none() => break,
                    _ => {}
                }
                stripped.push(c);
            }
            pred(&stripped).then_some(i + 1)
        })
}

/// The line where hierarchy entry `name` is written.
fn name_line(text: &str, name: &str, from: usize) -> Option<usize> {
    find_line(text, from, |l| {
        let t = l.trim_start().trim_start_matches("- ").trim_start();
        t.strip_prefix("name:").is_some_and(|rest| {
            let v = rest.trim().trim_matches(['"', '\'']);
            v == name
        })
    })
}

fn nes_list(v: &Value) -> Option<Vec<String>> {
    let l = v.as_list()?;
    l.iter()
        .map(|x| x.as_str().filter(|s| !s.is_empty()).map(str::to_string))
        .collect()
}

impl Config {
    /// Read and check the configuration at `path`.
    pub fn load(path: &Path, place: Place) -> Result<Config, HieraError> {
        let text = std::fs::read_to_string(path).map_err(|e| HieraError::Config {
            path: path.to_path_buf(),
            line: None,
            message: format!("cannot read: {e}"),
        })?;
        Config::parse(path, &text, place)
    }

    /// Check the text of a configuration that lives at `path`.
    pub fn parse(path: &Path, text: &str, place: Place) -> Result<Config, HieraError> {
        let fail = |line: Option<usize>, message: String| HieraError::Config {
            path: path.to_path_buf(),
            line,
            message,
        };
        let node = load_yaml_node(text)
            .map_err(|p| fail(p.line, format!("invalid YAML: {}", p.message)))?;
        let Some(Value::Map(conf)) = node.map(node_to_value_lenient) else {
            return Err(fail(
                None,
                "the file does not contain a valid YAML hash (brine reads only hiera.yaml \
                 version 5)"
                    .into(),
            ));
        };
        match conf.get("version") {
            Some(Value::Int(5)) => {}
            None => {
                return Err(fail(
                    None,
                    "no 'version' key: this is hiera.yaml version 3, which brine does not read \
                     (only version 5)"
                        .into(),
                ))
            }
            Some(v) => {
                let line = find_line(text, 1, |l| l.trim_start().starts_with("version:"));
                return Err(fail(
                    line,
                    format!(
                        "This runtime does not support hiera.yaml version {} (only version 5)",
                        ruby_to_s(v)
                    ),
                ));
            }
        }
        for k in conf.keys() {
            if !matches!(
                k.as_str(),
                "version" | "defaults" | "hierarchy" | "plan_hierarchy" | "default_hierarchy"
            ) {
                let line = find_line(text, 1, |l| l.starts_with(&format!("{k}:")));
                return Err(fail(line, format!("unrecognized key '{k}'")));
            }
        }
        let defaults = match conf.get("defaults") {
            None => {
                let mut d = Map::default();
                d.insert("datadir".into(), Value::Str("data".into()));
                d.insert("data_hash".into(), Value::Str("yaml_data".into()));
                d
            }
            Some(Value::Map(d)) => d.clone(),
            Some(_) => return Err(fail(None, "'defaults' expects a Hash value".into())),
        };
        for (k, v) in &defaults {
            if !DEFAULTS_KEYS.contains(&k.as_str()) {
                return Err(fail(
                    None,
                    format!("'defaults' has an unrecognized key '{k}'"),
                ));
            }
            let ok = match k.as_str() {
                "options" => matches!(v, Value::Map(_)),
                _ => v.as_str().is_some_and(|s| !s.is_empty()),
            };
            if !ok {
                return Err(fail(
                    None,
                    format!("'defaults' entry '{k}' expects a non-empty String value"),
                ));
            }
        }
        let default_functions: Vec<&str> = FUNCTION_KEYS
            .iter()
            .copied()
            .filter(|k| defaults.contains_key(*k))
            .collect();
        if default_functions.len() > 1 {
            return Err(fail(
                None,
                "Only one of data_hash, lookup_key, data_dig, or hiera3_backend can be defined \
                 in defaults"
                    .into(),
            ));
        }
        if let Some(Value::Map(o)) = defaults.get("options") {
            for reserved in ["path", "uri"] {
                if o.contains_key(reserved) {
                    return Err(fail(
                        None,
                        format!("Option key '{reserved}' used in defaults is reserved by Puppet"),
                    ));
                }
            }
        }
        let datadir = defaults
            .get("datadir")
            .and_then(Value::as_str)
            .unwrap_or("data")
            .to_string();

        let levels = |key: &str| -> Result<Option<Vec<Level>>, HieraError> {
            let Some(v) = conf.get(key) else {
                return Ok(None);
            };
            let Value::List(entries) = v else {
                return Err(fail(None, format!("'{key}' expects an Array value")));
            };
            let mut out: Vec<Level> = Vec::with_capacity(entries.len());
            let mut seen_line = 1;
            for (i, e) in entries.iter().enumerate() {
                let Value::Map(e) = e else {
                    return Err(fail(
                        None,
                        format!("'{key}' index {i} expects a Hash value"),
                    ));
                };
                let name = match e.get("name") {
                    Some(Value::Str(s)) if !s.is_empty() => s.clone(),
                    _ => {
                        return Err(fail(
                            None,
                            format!("'{key}' index {i} expects a value for key 'name'"),
                        ))
                    }
                };
                let line = name_line(text, &name, seen_line);
                if let Some(l) = line {
                    seen_line = l + 1;
                }
                let level_fail = |m: String| fail(line, m);
                for (k, v) in e {
                    if !LEVEL_KEYS.contains(&k.as_str()) {
                        return Err(level_fail(format!(
                            "hierarchy '{name}' has an unrecognized key '{k}'"
                        )));
                    }
                    let ok = match k.as_str() {
                        "options" => matches!(v, Value::Map(_)),
                        "paths" | "globs" | "uris" => nes_list(v).is_some_and(|l| !l.is_empty()),
                        "mapped_paths" => nes_list(v).is_some_and(|l| l.len() == 3),
                        _ => v.as_str().is_some_and(|s| !s.is_empty()),
                    };
                    if !ok {
                        let expected = match k.as_str() {
                            "options" => "a Hash value",
                            "paths" | "globs" | "uris" => {
                                "an Array of non-empty Strings (at least one)"
                            }
                            "mapped_paths" => "an Array of exactly 3 non-empty Strings",
                            _ => "a non-empty String value",
                        };
                        return Err(level_fail(format!(
                            "hierarchy '{name}' entry '{k}' expects {expected}"
                        )));
                    }
                }
                let functions: Vec<&str> = FUNCTION_KEYS
                    .iter()
                    .chain(["v4_data_hash"].iter())
                    .copied()
                    .filter(|k| e.contains_key(*k))
                    .collect();
                let (kind, fname) = match functions.as_slice() {
                    [] => match default_functions.first() {
                        Some(k) => (
                            *k,
                            defaults
                                .get(*k)
                                .and_then(Value::as_str)
                                .unwrap_or("")
                                .to_string(),
                        ),
                        None => {
                            return Err(level_fail(format!(
                                "One of data_hash, lookup_key, data_dig, or hiera3_backend must \
                                 be defined in hierarchy '{name}'"
                            )))
                        }
                    },
                    [k] => (
                        *k,
                        e.get(*k).and_then(Value::as_str).unwrap_or("").to_string(),
                    ),
                    _ => {
                        return Err(level_fail(format!(
                            "Only one of data_hash, lookup_key, data_dig, or hiera3_backend can \
                             be defined in hierarchy '{name}'"
                        )))
                    }
                };
                let function = match kind {
                    "data_hash" => Function::DataHash(fname),
                    "lookup_key" => Function::LookupKey(fname),
                    "data_dig" => Function::DataDig(fname),
                    "hiera3_backend" if place != Place::Global => {
                        return Err(level_fail(
                            "'hiera3_backend' is only allowed in the global layer".into(),
                        ))
                    }
                    other => {
                        return Err(level_fail(format!(
                            "hierarchy '{name}': '{other}' (Hiera 3 backends and legacy \
                             functions) is not supported by brine"
                        )))
                    }
                };
                let present: Vec<&str> = LOCATION_KEYS
                    .iter()
                    .copied()
                    .filter(|k| e.contains_key(*k))
                    .collect();
                if present.len() > 1 {
                    return Err(level_fail(format!(
                        "Only one of path, paths, glob, globs, uri, uris, or mapped_paths can be \
                         defined in hierarchy '{name}'"
                    )));
                }
                if let Some(Value::Map(o)) = e.get("options") {
                    for reserved in ["path", "uri"] {
                        if o.contains_key(reserved) {
                            return Err(level_fail(format!(
                                "Option key '{reserved}' used in hierarchy '{name}' is reserved \
                                 by Puppet"
                            )));
                        }
                    }
                }
                let s = |k: &str| e.get(k).and_then(Value::as_str).unwrap_or("").to_string();
                let l = |k: &str| e.get(k).and_then(nes_list).unwrap_or_default();
                let locations = match present.first().copied() {
                    Some("path") => Locations::Paths(vec![s("path")]),
                    Some("paths") => Locations::Paths(l("paths")),
                    Some("glob") => Locations::Globs(vec![s("glob")]),
                    Some("globs") => Locations::Globs(l("globs")),
                    Some("uri") => Locations::Uris(vec![s("uri")]),
                    Some("uris") => Locations::Uris(l("uris")),
                    Some(_) => {
                        let mut m = l("mapped_paths").into_iter();
                        Locations::Mapped(
                            m.next().unwrap_or_default(),
                            m.next().unwrap_or_default(),
                            m.next().unwrap_or_default(),
                        )
                    }
                    None => Locations::None,
                };
                if out.iter().any(|o| o.name == name) {
                    let again = name_line(text, &name, line.map_or(1, |l| l + 1)).or(line);
                    return Err(fail(
                        again,
                        format!("Hierarchy name '{name}' defined more than once."),
                    ));
                }
                out.push(Level {
                    datadir: e
                        .get("datadir")
                        .and_then(Value::as_str)
                        .map(str::to_string)
                        .unwrap_or_else(|| datadir.clone()),
                    name,
                    function,
                    locations,
                });
            }
            Ok(Some(out))
        };
        let hierarchy = levels("hierarchy")?.unwrap_or_else(|| {
            vec![Level {
                name: "Common".into(),
                function: Function::DataHash(
                    defaults
                        .get("data_hash")
                        .and_then(Value::as_str)
                        .unwrap_or("yaml_data")
                        .to_string(),
                ),
                datadir: datadir.clone(),
                locations: Locations::Paths(vec!["common.yaml".into()]),
            }]
        });
        levels("plan_hierarchy")?;
        let default_hierarchy = levels("default_hierarchy")?;
        if default_hierarchy.is_some() && place != Place::Module {
            let line = find_line(text, 1, |l| {
                l.trim_start().starts_with("default_hierarchy:")
            });
            return Err(fail(
                line,
                "'default_hierarchy' is only allowed in the module layer".into(),
            ));
        }
        Ok(Config {
            path: path.to_path_buf(),
            root: path.parent().map(Path::to_path_buf).unwrap_or_default(),
            hierarchy,
            default_hierarchy,
        })
    }
}

/// Interpolate a string of `hiera.yaml` (no method calls allowed there).
fn interp(s: &str, r: &dyn Resolver, scope: &Scope<'_>) -> Result<String, HieraError> {
    Ok(match interpolate_string(s, r, scope, false)? {
        Value::Str(s) => s,
        other => ruby_to_s(&other),
    })
}

impl Level {
    /// The data files this level names for the node, in order; `None`
    /// when the level has no location key at all.
    pub fn resolve(
        &self,
        root: &Path,
        r: &dyn Resolver,
        vars: &Map,
    ) -> Result<Option<Vec<Location>>, HieraError> {
        let scope = Scope { vars, local: None };
        let datadir = PathBuf::from(interp(
            &root.join(&self.datadir).display().to_string(),
            r,
            &scope,
        )?);
        let at = |p: PathBuf| Location {
            exists: p.exists(),
            path: p,
        };
        Ok(Some(match &self.locations {
            Locations::None => return Ok(None),
            Locations::Paths(paths) => paths
                .iter()
                .map(|p| Ok(at(datadir.join(interp(p, r, &scope)?))))
                .collect::<Result<_, HieraError>>()?,
            Locations::Globs(globs) => {
                let mut out = Vec::new();
                for g in globs {
                    let pattern = datadir.join(interp(g, r, &scope)?);
                    for p in ruby_glob(&pattern.display().to_string())? {
                        if !p.is_dir() {
                            out.push(Location {
                                path: p,
                                exists: true,
                            });
                        }
                    }
                }
                out
            }
            // yaml_data and json_data take a path, never a uri: Puppet then
            // fails as if no location were given.
            Locations::Uris(_) => return Ok(None),
            Locations::Mapped(var, key, template) => {
                let values = match scope_lookup(var, var, &scope)? {
                    None => Vec::new(),
                    Some(Value::Str(s)) if s.is_empty() => Vec::new(),
                    Some(Value::Str(s)) => vec![Value::Str(s)],
                    Some(Value::List(l)) => l,
                    Some(Value::Map(m)) => m
                        .into_iter()
                        .map(|(k, v)| Value::List(vec![Value::Str(k), v]))
                        .collect(),
                    Some(other) => {
                        return Err(HieraError::Lookup(format!(
                            "mapped_paths variable '{var}' must be a String, an Array or a Hash, \
                             got {}",
                            super::merge::puppet_type_name(&other)
                        )))
                    }
                };
                let mut out = Vec::with_capacity(values.len());
                for v in &values {
                    let local = Scope {
                        vars,
                        local: Some((key.as_str(), v)),
                    };
                    out.push(at(datadir.join(interp(template, r, &local)?)));
                }
                out
            }
        }))
    }
}

/// Ruby's `{a,b}` alternatives, expanded in order before globbing.
fn expand_braces(p: &str) -> Vec<String> {
    let bytes = p.as_bytes();
    let mut depth = 0;
    let mut open = None;
    for (i, &c) in bytes.iter().enumerate() {
        match c {
            b'\\' => {}
            b'{' => {
                if depth == 0 {
                    open = Some(i);
                }
                depth += 1;
            }
            b'}' if depth > 0 => {
                depth -= 1;
                if depth == 0 {
                    let Some(o) = open else { break };
                    let inner = &p[o + 1..i];
                    let mut parts = Vec::new();
                    let (mut d, mut start) = (0, 0);
                    for (j, ch) in inner.char_indices() {
                        match ch {
                            '{' => d += 1,
                            '}' => d -= 1,
                            ',' if d == 0 => {
                                parts.push(&inner[start..j]);
                                start = j + 1;
                            }
                            _ => {}
                        }
                    }
                    parts.push(&inner[start..]);
                    return parts
                        .into_iter()
                        .flat_map(|alt| {
                            expand_braces(&format!("{}{}{}", &p[..o], alt, &p[i + 1..]))
                        })
                        .collect();
                }
            }
            _ => {}
        }
    }
    vec![p.to_string()]
}

/// Ruby's `Dir.glob` (sorted, dot files only when asked for by name).
fn ruby_glob(pattern: &str) -> Result<Vec<PathBuf>, HieraError> {
    let opts = glob::MatchOptions {
        case_sensitive: true,
        require_literal_separator: true,
        require_literal_leading_dot: true,
    };
    let mut out = Vec::new();
    for p in expand_braces(pattern) {
        let paths = glob::glob_with(&p, opts)
            .map_err(|e| HieraError::Lookup(format!("invalid glob '{p}': {e}")))?;
        out.extend(paths.flatten());
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str, place: Place) -> Result<Config, HieraError> {
        Config::parse(Path::new("/h/hiera.yaml"), text, place)
    }

    #[test]
    fn reads_levels_with_defaults() {
        let c = parse(
            "version: 5\ndefaults:\n  datadir: d\n  data_hash: json_data\nhierarchy:\n  - name: a\n    path: a.json\n  - name: b\n    paths: [b1.yaml, b2.yaml]\n    data_hash: yaml_data\n    datadir: other\n  - name: c\n    mapped_paths: [facts.svc, s, 'svc/%{s}.yaml']\n",
            Place::Environment,
        )
        .unwrap();
        assert_eq!(c.root, Path::new("/h"));
        assert_eq!(c.hierarchy.len(), 3);
        assert_eq!(
            c.hierarchy[0].function,
            Function::DataHash("json_data".into())
        );
        assert_eq!(c.hierarchy[0].datadir, "d");
        assert_eq!(c.hierarchy[1].datadir, "other");
        assert_eq!(
            c.hierarchy[1].locations,
            Locations::Paths(vec!["b1.yaml".into(), "b2.yaml".into()])
        );
        assert_eq!(
            c.hierarchy[2].locations,
            Locations::Mapped("facts.svc".into(), "s".into(), "svc/%{s}.yaml".into())
        );
        // No hierarchy: Puppet's default one.
        let c = parse("version: 5\n", Place::Global).unwrap();
        assert_eq!(
            c.hierarchy[0].locations,
            Locations::Paths(vec!["common.yaml".into()])
        );
        assert_eq!(
            c.hierarchy[0].function,
            Function::DataHash("yaml_data".into())
        );
    }

    #[test]
    fn refuses_what_puppet_refuses_naming_file_and_line() {
        let err = |t: &str, place| parse(t, place).unwrap_err().to_string();
        assert!(err("version: 4\n", Place::Global).contains("version 4"));
        assert!(err("hierarchy: []\n", Place::Global).contains("version 3"));
        assert!(err("- 1\n", Place::Global).contains("/h/hiera.yaml"));
        let e = err(
            "version: 5\nhierarchy:\n  - name: x\n    path: a\n  - name: x\n    path: b\n",
            Place::Global,
        );
        assert!(e.contains("line 5") && e.contains("more than once"), "{e}");
        let e = err(
            "version: 5\nhierarchy:\n  - name: x\n    path: a\n    glob: b\n",
            Place::Global,
        );
        assert!(
            e.contains("line 3") && e.contains("Only one of path"),
            "{e}"
        );
        let e = err("version: 5\nhierarchy:\n  - path: a\n", Place::Global);
        assert!(e.contains("'name'"), "{e}");
        let e = err(
            "version: 5\ndefaults: {}\nhierarchy:\n  - name: x\n    path: a\n",
            Place::Global,
        );
        assert!(e.contains("One of data_hash"), "{e}");
        let e = err("version: 5\ndefault_hierarchy: []\n", Place::Environment);
        assert!(e.contains("only allowed in the module layer"), "{e}");
        assert!(parse("version: 5\ndefault_hierarchy: []\n", Place::Module).is_ok());
        let e = err(
            "version: 5\nhierarchy:\n  - name: x\n    pth: a\n",
            Place::Global,
        );
        assert!(e.contains("'pth'") && e.contains("line 3"), "{e}");
        let e = err("version: 5\nhierarchy: [\n", Place::Global);
        assert!(e.contains("invalid YAML") && e.contains("line"), "{e}");
    }

    #[test]
    fn braces_expand_in_order() {
        assert_eq!(
            expand_braces("a/{x,y}/{1,2}.yaml"),
            ["a/x/1.yaml", "a/x/2.yaml", "a/y/1.yaml", "a/y/2.yaml"]
        );
        assert_eq!(expand_braces("plain"), ["plain"]);
    }
}
