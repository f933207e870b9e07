//! The lookup engine: the global, environment and module layers searched
//! in that order, each layer's levels, each level's data files, with the
//! merge behaviour applied at every one of those three nestings exactly as
//! Puppet's `MergeStrategy#lookup` does (one candidate is `merge_single`,
//! several are converted and merged pairwise); `lookup_options` (exact and
//! `^regex` keys, global/environment over module), the module's
//! `default_hierarchy` when nothing else has the key, dotted keys, and the
//! recursion guard that interpolation lookups share.

use super::config::{Config, Function, Level, Location, Place};
use super::data::{load_json, load_yaml, DataFile};
use super::interpolation::{interpolate, split_key, sub_lookup, Resolver, Scope, Segment};
use super::merge::{Kind, Strategy};
use super::HieraError;
use brine_core::{Map, Value};
use regex::Regex;
use std::cell::RefCell;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::rc::Rc;

const LOOKUP_OPTIONS: &str = "lookup_options";

/// Where the three layers' `hiera.yaml` files are.
#[derive(Debug, Clone, Default)]
pub struct Sources {
    /// The global layer (`hiera_config`).
    pub global: Option<PathBuf>,
    /// The environment layer: `hiera.yaml` at the root of the pillar
    /// environment (only used when the file exists).
    pub environment: Option<PathBuf>,
    /// Directories searched, in order, for `<module>/` (the module layer).
    pub module_roots: Vec<PathBuf>,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum Layer {
    Global,
    Environment,
    Module(String),
}

/// A key as Puppet parses it.
#[derive(Debug, Clone)]
struct LookupKey {
    full: String,
    root: String,
    segments: Vec<Segment>,
    module: Option<String>,
}

impl LookupKey {
    fn parse(key: &str) -> Result<LookupKey, HieraError> {
        let mut segments =
            split_key(key).map_err(|p| HieraError::Lookup(format!("{p} in key: '{key}'")))?;
        if segments.is_empty() {
            return Err(HieraError::Lookup(format!("Syntax error in key: '{key}'")));
        }
        let root = match segments.remove(0) {
            Segment::Key(k) => k,
            Segment::Index(i) => i.to_string(),
        };
        Ok(LookupKey::with_root(key, root, segments))
    }

    /// A key taken literally, dots and all (a key found in a data file).
    fn literal(key: &str) -> LookupKey {
        LookupKey::with_root(key, key.to_string(), Vec::new())
    }

    fn with_root(full: &str, root: String, segments: Vec<Segment>) -> LookupKey {
        // `a::b` belongs to module `a`; Ruby's slicing makes a leading `::`
        // name the whole key, which no module has.
        let module = root.find("::").map(|i| {
            if i == 0 {
                root.clone()
            } else {
                root[..i].to_string()
            }
        });
        LookupKey {
            full: full.to_string(),
            root,
            segments,
            module,
        }
    }

    fn dig(&self, value: Value) -> Result<Option<Value>, HieraError> {
        if self.segments.is_empty() {
            return Ok(Some(value));
        }
        sub_lookup(&self.full, &self.segments, value)
    }
}

/// `lookup_options` split as Puppet compiles them.
#[derive(Debug, Default)]
struct CompiledOptions {
    exact: Map,
    patterns: Vec<(Regex, Value)>,
}

impl CompiledOptions {
    fn compile(opts: Option<Map>) -> Result<Option<Rc<CompiledOptions>>, HieraError> {
        let Some(opts) = opts else {
            return Ok(None);
        };
        let mut c = CompiledOptions::default();
        for (k, v) in opts {
            if k.starts_with('^') {
                let re = Regex::new(&k).map_err(|e| {
                    HieraError::Lookup(format!("invalid lookup_options pattern '{k}': {e}"))
                })?;
                c.patterns.push((re, v));
            } else {
                c.exact.insert(k, v);
            }
        }
        Ok(Some(Rc::new(c)))
    }

    fn for_key(&self, root: &str) -> Option<&Value> {
        self.exact.get(root).filter(|v| !v.is_null()).or_else(|| {
            self.patterns
                .iter()
                .find(|(re, _)| re.is_match(root))
                .map(|(_, v)| v)
        })
    }
}

type Cached<T> = Result<T, HieraError>;
type Memo<K, T> = RefCell<HashMap<K, Cached<T>>>;

/// One node's view of its Hiera hierarchies. Caches configurations, data
/// files and `lookup_options` for its lifetime, as Puppet does for one
/// compilation.
pub struct Engine {
    sources: Sources,
    vars: Map,
    configs: Memo<Layer, Option<Rc<Config>>>,
    levels: Memo<(Layer, bool), Rc<Vec<ResolvedLevel>>>,
    files: Memo<PathBuf, Rc<DataFile>>,
    options: Memo<Option<String>, Option<Rc<CompiledOptions>>>,
    env_options: RefCell<Option<Cached<Option<Map>>>>,
    default_options: Memo<String, Option<Rc<CompiledOptions>>>,
    stack: RefCell<Vec<String>>,
    searched: RefCell<Vec<PathBuf>>,
}

/// A level with its data files worked out for this node.
#[derive(Debug)]
struct ResolvedLevel {
    function: Function,
    module: Option<String>,
    /// `None`: the level names no location (an error when consulted).
    locations: Option<Vec<Location>>,
}

/// Puppet's `MergeStrategy#lookup` over `n` candidates: `f(i)` gives the
/// i-th candidate's value, `None` when it has none.
fn strategy_lookup(
    s: &Strategy,
    n: usize,
    mut f: impl FnMut(usize) -> Result<Option<Value>, HieraError>,
) -> Result<Option<Value>, HieraError> {
    if s.kind == Kind::First {
        for i in 0..n {
            if let Some(v) = f(i)? {
                return Ok(Some(v));
            }
        }
        return Ok(None);
    }
    match n {
        0 => Ok(None),
        1 => Ok(f(0)?.map(|v| s.merge_single(v))),
        _ => {
            let mut memo: Option<Value> = None;
            for i in 0..n {
                if let Some(v) = f(i)? {
                    memo = Some(match memo {
                        None => s.convert_value(v),
                        Some(m) => s.merge(m, v)?,
                    });
                }
            }
            Ok(memo)
        }
    }
}

/// A module name Puppet accepts (and that cannot leave the roots).
fn valid_module_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_ascii_lowercase())
        && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
}

impl Engine {
    pub fn new(sources: Sources, vars: Map) -> Engine {
        Engine {
            sources,
            vars,
            configs: RefCell::default(),
            levels: RefCell::default(),
            files: RefCell::default(),
            options: RefCell::default(),
            env_options: RefCell::default(),
            default_options: RefCell::default(),
            stack: RefCell::default(),
            searched: RefCell::default(),
        }
    }

    /// Every data file consulted so far, in order, without repeats.
    pub fn searched(&self) -> Vec<PathBuf> {
        self.searched.borrow().clone()
    }

    /// Look `key` up (dotted keys dig into the value). `merge` overrides the
    /// key's `lookup_options`. `Ok(None)`: found nowhere.
    pub fn lookup(&self, key: &str, merge: Option<&Value>) -> Result<Option<Value>, HieraError> {
        let key = LookupKey::parse(key)?;
        self.lookup_key(&key, merge)
    }

    /// Look up a key exactly as a data file spells it (no dot splitting),
    /// with its own `lookup_options`.
    pub fn lookup_literal(&self, key: &str) -> Result<Option<Value>, HieraError> {
        self.lookup_key(&LookupKey::literal(key), None)
    }

    fn lookup_key(
        &self,
        key: &LookupKey,
        merge: Option<&Value>,
    ) -> Result<Option<Value>, HieraError> {
        if key.root == LOOKUP_OPTIONS || key.full.starts_with("lookup_options.") {
            return Ok(None);
        }
        let options = self.options_for(key)?;
        let merge = match merge {
            Some(m) => Some(m.clone()),
            None => options.as_ref().and_then(|o| o.get("merge").cloned()),
        };
        if options
            .as_ref()
            .is_some_and(|o| o.contains_key("convert_to"))
        {
            tracing::warn!(
                "lookup_options 'convert_to' for key '{}' is not supported by brine; ignored",
                key.root
            );
        }
        let strategy = Strategy::from_value(merge.as_ref())?;
        if let Some(v) = self.do_lookup(key, &strategy)? {
            return Ok(Some(v));
        }
        self.lookup_in_module_defaults(key)
    }

    /// The three layers, merged; then the dotted part of the key.
    fn do_lookup(&self, key: &LookupKey, s: &Strategy) -> Result<Option<Value>, HieraError> {
        let layers = [
            Some(Layer::Global),
            Some(Layer::Environment),
            key.module.clone().map(Layer::Module),
        ];
        let found = strategy_lookup(s, layers.len(), |i| match &layers[i] {
            Some(layer) => self.layer_lookup(layer, key, s, false),
            None => Ok(None),
        })?;
        match found {
            Some(v) => key.dig(v),
            None => Ok(None),
        }
    }

    /// One layer's hierarchy (or its `default_hierarchy`), under the
    /// recursion guard.
    fn layer_lookup(
        &self,
        layer: &Layer,
        key: &LookupKey,
        s: &Strategy,
        defaults: bool,
    ) -> Result<Option<Value>, HieraError> {
        let levels = self.levels(layer, defaults)?;
        if levels.is_empty() {
            return Ok(None);
        }
        self.enter(&key.full)?;
        let res = strategy_lookup(s, levels.len(), |i| {
            let level = &levels[i];
            let locations: Vec<Option<&Location>> = match &level.locations {
                None => vec![None],
                Some(l) => l.iter().map(Some).collect(),
            };
            strategy_lookup(s, locations.len(), |j| {
                self.location_lookup(level, locations[j], &key.root)
            })
        });
        self.leave();
        res
    }

    fn location_lookup(
        &self,
        level: &ResolvedLevel,
        location: Option<&Location>,
        root: &str,
    ) -> Result<Option<Value>, HieraError> {
        let Some(location) = location else {
            return Err(HieraError::Lookup(
                "one of 'path', 'paths' 'glob', 'globs' or 'mapped_paths' must be declared in \
                 hiera.yaml when using this data_hash function"
                    .into(),
            ));
        };
        {
            let mut searched = self.searched.borrow_mut();
            if !searched.contains(&location.path) {
                searched.push(location.path.clone());
            }
        }
        if !location.exists {
            return Ok(None);
        }
        let file = self.data_file(level, &location.path)?;
        let Some(value) = file.get(root)?.cloned() else {
            return Ok(None);
        };
        let scope = Scope {
            vars: &self.vars,
            local: None,
        };
        interpolate(value, self, &scope, true).map(Some)
    }

    fn data_file(&self, level: &ResolvedLevel, path: &Path) -> Result<Rc<DataFile>, HieraError> {
        if let Some(cached) = self.files.borrow().get(path) {
            return cached.clone();
        }
        let loaded = self.read_data_file(level, path).map(Rc::new);
        self.files
            .borrow_mut()
            .insert(path.to_path_buf(), loaded.clone());
        loaded
    }

    fn read_data_file(&self, level: &ResolvedLevel, path: &Path) -> Result<DataFile, HieraError> {
        let (kind, name) = match &level.function {
            Function::DataHash(n) => ("data_hash", n.as_str()),
            Function::LookupKey(n) => ("lookup_key", n.as_str()),
            Function::DataDig(n) => ("data_dig", n.as_str()),
        };
        let read = || {
            std::fs::read_to_string(path).map_err(|e| HieraError::Data {
                path: path.to_path_buf(),
                line: None,
                message: format!("cannot read {}: {e}", path.display()),
            })
        };
        let file = match (kind, name) {
            ("data_hash", "yaml_data") => load_yaml(path, &read()?)?,
            ("data_hash", "json_data") => load_json(path, &read()?)?,
            _ => {
                return Err(HieraError::Lookup(format!(
                    "Unable to find '{kind}' function named '{name}' (brine has yaml_data and \
                     json_data)"
                )))
            }
        };
        if let Some(module) = &level.module {
            let prefix = format!("{module}::");
            if file
                .keys()
                .any(|k| k != LOOKUP_OPTIONS && !k.starts_with(&prefix))
            {
                tracing::warn!(
                    "Module '{module}': Value returned from data_hash function '{name}', when \
                     using location '{}', must use keys qualified with the name of the module",
                    path.display()
                );
            }
        }
        Ok(file)
    }

    /// The layer's configuration, if the layer exists.
    fn config(&self, layer: &Layer) -> Result<Option<Rc<Config>>, HieraError> {
        if let Some(c) = self.configs.borrow().get(layer) {
            return c.clone();
        }
        let loaded = self.load_config(layer);
        self.configs
            .borrow_mut()
            .insert(layer.clone(), loaded.clone());
        loaded
    }

    fn load_config(&self, layer: &Layer) -> Result<Option<Rc<Config>>, HieraError> {
        let (path, place) = match layer {
            Layer::Global => match &self.sources.global {
                None => return Ok(None),
                Some(p) => (p.clone(), Place::Global),
            },
            Layer::Environment => match &self.sources.environment {
                Some(p) if p.is_file() => (p.clone(), Place::Environment),
                _ => return Ok(None),
            },
            Layer::Module(name) => {
                if !valid_module_name(name) {
                    return Ok(None);
                }
                // The first root holding the module is the module, with or
                // without a hiera.yaml.
                let Some(dir) = self
                    .sources
                    .module_roots
                    .iter()
                    .map(|r| r.join(name))
                    .find(|d| d.is_dir())
                else {
                    return Ok(None);
                };
                let p = dir.join("hiera.yaml");
                if !p.is_file() {
                    return Ok(None);
                }
                (p, Place::Module)
            }
        };
        if !path.exists() {
            // Puppet falls back to its default hierarchy (data/common.yaml
            // next to where the file should be) when hiera_config is missing.
            tracing::warn!(
                "hiera_config {} does not exist; using the default hierarchy (data/common.yaml \
                 beside it)",
                path.display()
            );
            let text = "version: 5\n";
            return Config::parse(&path, text, place).map(|c| Some(Rc::new(c)));
        }
        Config::load(&path, place).map(|c| Some(Rc::new(c)))
    }

    /// The layer's levels with their data files for this node.
    fn levels(&self, layer: &Layer, defaults: bool) -> Result<Rc<Vec<ResolvedLevel>>, HieraError> {
        let id = (layer.clone(), defaults);
        if let Some(l) = self.levels.borrow().get(&id) {
            return l.clone();
        }
        let resolved = self.resolve_levels(layer, defaults).map(Rc::new);
        self.levels.borrow_mut().insert(id, resolved.clone());
        resolved
    }

    fn resolve_levels(
        &self,
        layer: &Layer,
        defaults: bool,
    ) -> Result<Vec<ResolvedLevel>, HieraError> {
        let Some(config) = self.config(layer)? else {
            return Ok(Vec::new());
        };
        let levels: &[Level] = if defaults {
            config.default_hierarchy.as_deref().unwrap_or(&[])
        } else {
            &config.hierarchy
        };
        let module = match layer {
            Layer::Module(m) => Some(m.clone()),
            _ => None,
        };
        // A missing hiera_config behaves as Puppet's built-in default,
        // which skips files that are not there.
        let default_config = !config.path.exists();
        let mut out = Vec::with_capacity(levels.len());
        for level in levels {
            let locations = level
                .resolve(&config.root, self, &self.vars)
                .map_err(|e| e.in_config(&config.path))?;
            let locations = match locations {
                Some(l) if default_config => {
                    let l: Vec<Location> = l.into_iter().filter(|l| l.exists).collect();
                    if l.is_empty() {
                        continue;
                    }
                    Some(l)
                }
                other => other,
            };
            out.push(ResolvedLevel {
                function: level.function.clone(),
                module: module.clone(),
                locations,
            });
        }
        Ok(out)
    }

    /// The `lookup_options` entry for the key's root, if any.
    fn options_for(&self, key: &LookupKey) -> Result<Option<Map>, HieraError> {
        let compiled = self.compiled_options(key.module.as_deref())?;
        Ok(compiled
            .as_ref()
            .and_then(|c| c.for_key(&key.root))
            .and_then(Value::as_map)
            .cloned())
    }

    fn compiled_options(
        &self,
        module: Option<&str>,
    ) -> Result<Option<Rc<CompiledOptions>>, HieraError> {
        let id = module.map(str::to_string);
        if let Some(c) = self.options.borrow().get(&id) {
            return c.clone();
        }
        let compiled = self.retrieve_options(module);
        self.options.borrow_mut().insert(id, compiled.clone());
        compiled
    }

    /// Global and environment options merged, then the module's under them.
    fn retrieve_options(
        &self,
        module: Option<&str>,
    ) -> Result<Option<Rc<CompiledOptions>>, HieraError> {
        let mut opts = self.env_lookup_options()?;
        if let Some(m) = module {
            let hash = Strategy::of(Kind::Hash);
            let key = LookupKey::literal(LOOKUP_OPTIONS);
            let found = self.layer_lookup(&Layer::Module(m.to_string()), &key, &hash, false)?;
            if let Some(found) = found {
                let module_opts = validate_options(found, Some(m))?;
                opts = Some(match opts {
                    None => module_opts,
                    Some(env) => match hash.merge(Value::Map(env), Value::Map(module_opts))? {
                        Value::Map(m) => m,
                        _ => Map::default(),
                    },
                });
            }
        }
        CompiledOptions::compile(opts)
    }

    fn env_lookup_options(&self) -> Result<Option<Map>, HieraError> {
        if let Some(cached) = self.env_options.borrow().as_ref() {
            return cached.clone();
        }
        let computed = (|| {
            let hash = Strategy::of(Kind::Hash);
            let key = LookupKey::literal(LOOKUP_OPTIONS);
            let global = self
                .layer_lookup(&Layer::Global, &key, &hash, false)?
                .map(|v| validate_options(v, None))
                .transpose()?;
            let env = self
                .layer_lookup(&Layer::Environment, &key, &hash, false)?
                .map(|v| validate_options(v, None))
                .transpose()?;
            Ok(match (global, env) {
                (None, e) => e,
                (g, None) => g,
                (Some(g), Some(e)) => match hash.merge(Value::Map(g), Value::Map(e))? {
                    Value::Map(m) => Some(m),
                    _ => None,
                },
            })
        })();
        *self.env_options.borrow_mut() = Some(computed.clone());
        computed
    }

    /// A module's `default_hierarchy`, used only when no layer had the key,
    /// with its own `lookup_options` (never the caller's merge).
    fn lookup_in_module_defaults(&self, key: &LookupKey) -> Result<Option<Value>, HieraError> {
        let Some(module) = key.module.clone() else {
            return Ok(None);
        };
        let layer = Layer::Module(module.clone());
        let has_defaults = self
            .config(&layer)?
            .is_some_and(|c| c.default_hierarchy.is_some());
        if !has_defaults {
            return Ok(None);
        }
        let options = self.default_options(&layer, &module)?;
        let merge = options
            .as_ref()
            .and_then(|c| c.for_key(&key.root))
            .and_then(Value::as_map)
            .and_then(|o| o.get("merge"))
            .cloned();
        let s = Strategy::from_value(merge.as_ref())?;
        match self.layer_lookup(&layer, key, &s, true)? {
            Some(v) => key.dig(v),
            None => Ok(None),
        }
    }

    fn default_options(
        &self,
        layer: &Layer,
        module: &str,
    ) -> Result<Option<Rc<CompiledOptions>>, HieraError> {
        if let Some(c) = self.default_options.borrow().get(module) {
            return c.clone();
        }
        let computed = (|| {
            let hash = Strategy::of(Kind::Hash);
            let key = LookupKey::literal(LOOKUP_OPTIONS);
            let found = self.layer_lookup(layer, &key, &hash, true)?;
            CompiledOptions::compile(
                found
                    .map(|v| validate_options(v, Some(module)))
                    .transpose()?,
            )
        })();
        self.default_options
            .borrow_mut()
            .insert(module.to_string(), computed.clone());
        computed
    }

    /// Every key the node's hierarchies hold (global, environment, then the
    /// modules under the module roots), in the order first met, without
    /// `lookup_options`. Module keys are only those in the module's
    /// namespace.
    pub fn all_keys(&self) -> Result<Vec<String>, HieraError> {
        let mut keys: Vec<String> = Vec::new();
        let mut layers = vec![(Layer::Global, false), (Layer::Environment, false)];
        let mut modules: Vec<String> = Vec::new();
        for root in &self.sources.module_roots {
            let Ok(rd) = std::fs::read_dir(root) else {
                continue;
            };
            let mut names: Vec<String> = rd
                .flatten()
                .filter(|e| e.path().join("hiera.yaml").is_file())
                .filter_map(|e| e.file_name().to_str().map(str::to_string))
                .filter(|n| valid_module_name(n))
                .collect();
            names.sort();
            for n in names {
                if !modules.contains(&n) {
                    modules.push(n);
                }
            }
        }
        for m in modules {
            layers.push((Layer::Module(m.clone()), false));
            layers.push((Layer::Module(m), true));
        }
        for (layer, defaults) in layers {
            let prefix = match &layer {
                Layer::Module(m) => Some(format!("{m}::")),
                _ => None,
            };
            for level in self.levels(&layer, defaults)?.iter() {
                for loc in level.locations.iter().flatten().filter(|l| l.exists) {
                    let file = self.data_file(level, &loc.path)?;
                    for k in file.keys() {
                        let in_namespace = prefix.as_ref().is_none_or(|p| k.starts_with(p));
                        if k != LOOKUP_OPTIONS && in_namespace && !keys.contains(k) {
                            keys.push(k.clone());
                        }
                    }
                }
            }
        }
        Ok(keys)
    }
}

/// `lookup_options` must be a hash; a module's may only name its own keys.
fn validate_options(v: Value, module: Option<&str>) -> Result<Map, HieraError> {
    let Value::Map(m) = v else {
        return Err(HieraError::Lookup(
            "value of lookup_options must be a hash".into(),
        ));
    };
    if let Some(module) = module {
        let pfx = format!("{module}::");
        for k in m.keys() {
            if let Some(pattern) = k.strip_prefix('^') {
                if !pattern.starts_with(&pfx) {
                    return Err(HieraError::Lookup(format!(
                        "all lookup_options patterns must match a key starting with module name \
                         '{module}'"
                    )));
                }
            } else if !k.starts_with(&pfx) {
                return Err(HieraError::Lookup(format!(
                    "all lookup_options keys must start with module name '{module}'"
                )));
            }
        }
    }
    Ok(m)
}

impl Resolver for Engine {
    fn global_lookup(&self, key: &str) -> Result<Value, HieraError> {
        Ok(self.lookup(key, None)?.unwrap_or(Value::Str(String::new())))
    }

    fn enter(&self, name: &str) -> Result<(), HieraError> {
        let mut stack = self.stack.borrow_mut();
        if stack.iter().any(|n| n == name) {
            return Err(HieraError::Lookup(format!(
                "Recursive lookup detected in [{}]",
                stack.join(", ")
            )));
        }
        stack.push(name.to_string());
        Ok(())
    }

    fn leave(&self) {
        self.stack.borrow_mut().pop();
    }
}
