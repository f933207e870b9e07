//! State top files: gathered from each environment and merged by
//! `top_file_merging_strategy` (merge / same / merge_all), `env_order`,
//! `default_top`, `state_top_saltenv`; matched against the minion.
//!
//! This follows Salt 3007.8's code (`BaseHighState.get_tops`, `merge_tops`,
//! `verify_tops`, `top_matches`), which is narrower than the older prose of
//! the top file docs: with the default `merge` strategy a section for
//! environment X is read only from the `base` top file or from X's own top
//! file, never from a third environment's.

use super::StateRequest;
use crate::matcher::{self};
use crate::opts;
use crate::render::{self, TemplateContext};
use crate::roots::Roots;
use brine_core::{Map, Value};
use indexmap::IndexMap;
use std::sync::Arc;

/// What a highstate reads through the file server: `file_roots`, the
/// environments Salt enumerates (`_get_envs`) and the SLS each one lists.
#[derive(Debug)]
pub struct FileServer {
    pub roots: Roots,
    /// `_get_envs()`: `base` and the `file_roots` environments, or the
    /// configured ones of `env_order`.
    envs: Vec<String>,
}

impl FileServer {
    pub fn new(opts: &Map) -> FileServer {
        let configured = opts::roots(opts, "file_roots");
        let mut envs = vec!["base".to_string()];
        envs.extend(configured.keys().filter(|e| *e != "base").cloned());
        let mut env_order: Vec<String> = Vec::new();
        if let Some(Value::List(order)) = opts.get("env_order") {
            for e in order.iter().map(Value::to_python_str) {
                if !env_order.contains(&e) {
                    env_order.push(e);
                }
            }
        }
        // `env_order` also restricts the environments to the listed ones
        // that the file server knows.
        if !env_order.is_empty() {
            envs = if configured.is_empty() {
                env_order
            } else {
                env_order
                    .into_iter()
                    .filter(|e| configured.contains_key(e))
                    .collect()
            };
        }
        FileServer {
            roots: Roots::new(configured).following_links(opts),
            envs,
        }
    }

    /// The environments top files are read from, in order.
    pub fn envs(&self) -> &[String] {
        &self.envs
    }

    /// Salt's `saltenv in self.avail`: `base` always, else a listed env.
    pub fn is_avail(&self, env: &str) -> bool {
        env == "base" || self.envs.iter().any(|e| e == env)
    }

    /// The SLS names of `env` (`list_states`), sorted.
    pub fn avail(&self, env: &str) -> Arc<Vec<String>> {
        self.roots.list_sls(env)
    }

    /// Python's `fnmatch.filter(avail[env], pattern)`.
    pub fn filter(&self, env: &str, pattern: &str) -> Vec<String> {
        fnmatch_filter(&self.avail(env), pattern)
    }
}

pub use crate::matcher::glob::fnmatch_filter;

/// Why a top could not be built at all. Salt raises these out of the
/// function (the call fails); render errors of a top file are not among
/// them: Salt logs those and goes on with an empty top.
#[derive(Debug, thiserror::Error)]
pub enum TopError {
    #[error("Unable to render top file. No targets found.")]
    NoTargets,
    #[error("Top data is not a dictionary: {0}")]
    NotADict(String),
    #[error("Top file target '{target}' in environment '{saltenv}': {reason}")]
    Matcher {
        target: String,
        saltenv: String,
        #[source]
        reason: Box<matcher::MatchError>,
    },
    #[error("Malformed subfilter in top file target '{0}'")]
    Subfilter(String),
}

/// Why the top files could not be gathered (`get_tops`): Salt logs it and
/// goes on with an empty top.
#[derive(Debug, thiserror::Error)]
pub enum TopsError {
    #[error(
        "top_file_merging_strategy set to 'same', but no default_top \
         configuration option was set"
    )]
    SameWithoutDefaultTop,
    /// A top file (or one it includes) did not render; names the file.
    #[error(transparent)]
    Render(#[from] render::RenderError),
}

/// The environment a call is restricted to: `saltenv=` or `opts['saltenv']`.
pub fn effective_saltenv(req: &StateRequest) -> Option<String> {
    crate::envs::Envs {
        saltenv: req.saltenv.clone(),
        pillarenv: None,
    }
    .saltenv_or_config(&req.opts)
}

/// `state_top` as a path inside the roots (`salt://top.sls` → `top.sls`).
fn state_top_path(o: &Map) -> String {
    let top = opts::get_str(o, "state_top").unwrap_or("top.sls");
    top.strip_prefix("salt://")
        .unwrap_or(top)
        .trim_start_matches('/')
        .to_string()
}

/// Rendered top files per environment, in reading order (`get_tops`).
pub type Tops = IndexMap<String, Vec<Value>>;

/// Render one top file (or an included one) of `env`; `Ok(None)` when
/// the file does not exist.
fn render_top(
    req: &StateRequest,
    fs: &FileServer,
    env: &str,
    path: &std::path::Path,
) -> Result<Value, render::RenderError> {
    let ctx = TemplateContext {
        minion: req.minion.clone(),
        saltenv: env.to_string(),
        pillarenv: req.pillarenv.clone(),
        sls: None,
        tplpath: Some(path.display().to_string()),
        fetch: None,
        search_paths: fs.roots.dirs(env).to_vec(),
        extra: Vec::new(),
    };
    match render::render_file(path, &ctx) {
        // An empty or whitespace-only top, or one that loads as nothing,
        // is `{}` in Salt.
        Ok(v) if !v.is_truthy() => Ok(Value::new_map()),
        other => other,
    }
}

/// Salt's `get_tops`: the top file of `saltenv=` alone when set, else of
/// `state_top_saltenv`, else of every environment; then the top files
/// their `include` names. `Err` is a render error: Salt then logs it and
/// uses an empty top.
pub fn get_tops(req: &StateRequest, fs: &FileServer) -> Result<Tops, TopsError> {
    let o = &req.opts;
    let strategy = opts::get_str(o, "top_file_merging_strategy").unwrap_or("merge");
    let saltenv = effective_saltenv(req);
    if strategy == "same"
        && saltenv.is_none()
        && !o.get("default_top").is_some_and(Value::is_truthy)
    {
        return Err(TopsError::SameWithoutDefaultTop);
    }
    let state_top = state_top_path(o);
    let mut tops: Tops = IndexMap::new();
    let envs: Vec<String> = match (&saltenv, o.get("state_top_saltenv")) {
        (Some(env), _) => vec![env.clone()],
        (None, Some(v)) if v.is_truthy() => vec![v.to_python_str()],
        _ => fs.envs().to_vec(),
    };
    for env in envs {
        let top = match fs.roots.find_file(&env, &state_top) {
            Some(path) => render_top(req, fs, &env, &path)?,
            None => {
                tracing::debug!("No contents loaded for saltenv '{env}'");
                Value::new_map()
            }
        };
        tops.entry(env).or_default().push(top);
    }

    // Top files may include further top files (SLS names or globs) of their
    // environment; only the first-level ones are searched.
    let mut include: IndexMap<String, Vec<String>> = IndexMap::new();
    for (env, ctops) in tops.iter_mut() {
        for ctop in ctops.iter_mut() {
            let Some(m) = ctop.as_map_mut() else { continue };
            let Some(inc) = m.shift_remove("include") else {
                continue;
            };
            include
                .entry(env.clone())
                .or_default()
                .extend(iter_names(&inc));
        }
    }
    for (env, states) in include {
        let mut done: Vec<String> = Vec::new();
        for sls_match in states {
            for sls in fs.filter(&env, &sls_match) {
                if done.contains(&sls) {
                    continue;
                }
                let top = match fs.roots.find_sls(&env, &sls) {
                    Some(f) => render_top(req, fs, &env, &f.path)?,
                    None => Value::new_map(),
                };
                tops.entry(env.clone()).or_default().push(top);
                done.push(sls);
            }
        }
    }
    Ok(tops)
}

/// What Python's `for x in value` yields as strings: list items, map keys,
/// a string's characters.
fn iter_names(v: &Value) -> Vec<String> {
    match v {
        Value::List(l) => l
            .iter()
            .filter_map(Value::as_str)
            .map(String::from)
            .collect(),
        Value::Map(m) => m.keys().cloned().collect(),
        Value::Str(s) => s.chars().map(String::from).collect(),
        _ => Vec::new(),
    }
}

/// Copy every target of `targets` into `top[saltenv]` (a later file's
/// entry for a target replaces an earlier one in place). The environment's
/// entry is only made when there is a target to copy, as in Salt.
fn copy_targets(top: &mut Merging, saltenv: &str, targets: &Value) -> Result<(), TopError> {
    match targets {
        Value::Map(t) => {
            for (tgt, v) in t {
                env_entry(top, saltenv).insert(tgt.clone(), v.clone());
            }
            Ok(())
        }
        // Iterating a list or string and indexing the section with what
        // it yields fails in Salt; an empty string or list yields nothing.
        Value::List(l) if l.is_empty() => Ok(()),
        Value::Str(s) if s.is_empty() => Ok(()),
        _ => Err(TopError::NoTargets),
    }
}

fn sections(ctop: &Value) -> Result<Option<&Map>, TopError> {
    match ctop {
        Value::Map(m) => Ok(Some(m)),
        v if !v.is_truthy() => Ok(None),
        other => Err(TopError::NotADict(other.to_python_repr())),
    }
}

/// A top being merged: environment → target → the target's list.
type Merging = IndexMap<String, Map>;

fn env_entry<'a>(top: &'a mut Merging, env: &str) -> &'a mut Map {
    top.entry(env.to_string()).or_default()
}

fn finish(top: Merging) -> Map {
    top.into_iter().map(|(k, v)| (k, Value::Map(v))).collect()
}

/// Salt's `merge_tops` by `top_file_merging_strategy` (an unknown one falls
/// back to `merge`). The result: environment → target → the target's list.
pub fn merge_tops(o: &Map, mut tops: Tops) -> Result<Map, TopError> {
    match opts::get_str(o, "top_file_merging_strategy").unwrap_or("merge") {
        "same" => merge_same(o, &tops),
        "merge_all" => merge_all(&tops),
        other => {
            if other != "merge" {
                tracing::warn!(
                    "Invalid top_file_merging_strategy '{other}', falling back to 'merge'"
                );
            }
            let base = tops.shift_remove("base").unwrap_or_default();
            merge_merge(&base, &tops)
        }
    }
}

/// `merge`: the base top file is authoritative; another environment's top
/// file only contributes its own section, and only when base did not
/// define that environment.
fn merge_merge(base: &[Value], others: &Tops) -> Result<Map, TopError> {
    let mut top = Merging::new();
    for ctop in base {
        let Some(secs) = sections(ctop)? else {
            continue;
        };
        for (saltenv, targets) in secs {
            if saltenv == "include" {
                continue;
            }
            copy_targets(&mut top, saltenv, targets)?;
        }
    }
    for (cenv, ctops) in others {
        for ctop in ctops {
            let Some(secs) = sections(ctop)? else {
                continue;
            };
            for (saltenv, targets) in secs {
                if saltenv == "include" || saltenv != cenv || top.contains_key(saltenv) {
                    continue;
                }
                copy_targets(&mut top, saltenv, targets)?;
            }
        }
    }
    Ok(finish(top))
}

/// `same`: each environment reads only its own top file; one without any
/// falls back to the `default_top` environment's section for it.
fn merge_same(o: &Map, tops: &Tops) -> Result<Map, TopError> {
    let default_top = o
        .get("default_top")
        .map(Value::to_python_str)
        .unwrap_or_default();
    let mut top = Merging::new();
    let empty = |ctops: &[Value]| {
        ctops
            .iter()
            .all(|t| matches!(t, Value::Map(m) if m.is_empty()))
    };
    for (cenv, ctops) in tops {
        if empty(ctops) {
            let fallback = tops.get(&default_top).map(Vec::as_slice).unwrap_or(&[]);
            if empty(fallback) {
                tracing::error!(
                    "The '{cenv}' saltenv has no top file, and the fallback saltenv \
                     specified by default_top ({default_top}) also has no top file"
                );
                continue;
            }
            for ctop in fallback {
                let Some(secs) = sections(ctop)? else {
                    continue;
                };
                match secs.get(cenv) {
                    Some(targets) => copy_targets(&mut top, cenv, targets)?,
                    None => tracing::error!(
                        "The '{cenv}' saltenv has no top file, and no matches were found \
                         in the top file for the default_top saltenv ({default_top})"
                    ),
                }
            }
            continue;
        }
        for ctop in ctops {
            let Some(secs) = sections(ctop)? else {
                continue;
            };
            for (saltenv, targets) in secs {
                if saltenv == "include" || saltenv != cenv {
                    continue;
                }
                copy_targets(&mut top, saltenv, targets)?;
            }
        }
    }
    Ok(finish(top))
}

/// `merge_all`: every section of every top file; a target seen again gets
/// the union of the SLS lists and the later `match` option.
fn merge_all(tops: &Tops) -> Result<Map, TopError> {
    // The last dict of a target's list and its strings, as Salt reads them
    // (a string target is iterated character by character).
    fn read_tgt(v: &Value) -> (Option<Value>, Vec<Value>) {
        let mut match_type = None;
        let mut states = Vec::new();
        match v {
            Value::List(items) => {
                for item in items {
                    match item {
                        Value::Map(_) => match_type = Some(item.clone()),
                        Value::Str(_) => states.push(item.clone()),
                        _ => {}
                    }
                }
            }
            Value::Str(s) => states.extend(s.chars().map(|c| Value::Str(c.to_string()))),
            Value::Map(m) => states.extend(m.keys().map(|k| Value::Str(k.clone()))),
            _ => {}
        }
        (match_type, states)
    }
    let mut top = Merging::new();
    for ctops in tops.values() {
        for ctop in ctops {
            let Some(secs) = sections(ctop)? else {
                continue;
            };
            for (saltenv, targets) in secs {
                if saltenv == "include" {
                    continue;
                }
                let Value::Map(targets) = targets else {
                    if targets.is_truthy() {
                        return Err(TopError::NoTargets);
                    }
                    continue;
                };
                for (tgt, body) in targets {
                    let env = env_entry(&mut top, saltenv);
                    let Some(prev) = env.get(tgt) else {
                        env.insert(tgt.clone(), body.clone());
                        continue;
                    };
                    let (m1, s1) = read_tgt(prev);
                    let (m2, s2) = read_tgt(body);
                    let mut merged = Vec::new();
                    if let Some(m) = m2.or(m1) {
                        merged.push(m);
                    }
                    merged.extend(s1);
                    for s in s2 {
                        if !merged.contains(&s) {
                            merged.push(s);
                        }
                    }
                    env.insert(tgt.clone(), Value::List(merged));
                }
            }
        }
    }
    Ok(finish(top))
}

/// Salt's `get_top`: gather and merge; a top file that fails to render is
/// logged and gives an empty top.
pub fn get_top(req: &StateRequest, fs: &FileServer) -> Result<Map, TopError> {
    match get_tops(req, fs) {
        Ok(tops) => merge_tops(&req.opts, tops),
        Err(e) => {
            tracing::error!("Unable to render top file: {e}");
            Ok(Map::default())
        }
    }
}

/// Salt's `verify_tops`, with its wording.
pub fn verify_tops(top: &Map) -> Vec<String> {
    let mut errors = Vec::new();
    for (saltenv, matches) in top {
        if saltenv == "include" {
            continue;
        }
        if saltenv.is_empty() {
            errors.push("Empty saltenv statement in top file".to_string());
        }
        let Value::Map(matches) = matches else {
            errors.push(format!(
                "The top file matches for saltenv {saltenv} are not formatted as a dict"
            ));
            continue;
        };
        for slsmods in matches.values() {
            let Value::List(slsmods) = slsmods else {
                errors.push(
                    "Malformed topfile (state declarations not formed as a list)".to_string(),
                );
                continue;
            };
            for slsmod in slsmods {
                match slsmod {
                    Value::Map(m) => {
                        for val in m.values().filter(|v| !v.is_truthy()) {
                            errors.push(format!(
                                "Improperly formatted top file matcher in saltenv {}: {} file",
                                ordered_dict_repr(m),
                                val.to_python_str()
                            ));
                        }
                    }
                    Value::Str(s) if s.is_empty() => {
                        errors.push(format!("Environment {saltenv} contains an empty sls index"))
                    }
                    _ => {}
                }
            }
        }
    }
    errors
}

/// How Python prints a YAML-loaded mapping: `OrderedDict([('k', 'v')])`.
fn ordered_dict_repr(m: &Map) -> String {
    let items: Vec<String> = m
        .iter()
        .map(|(k, v)| {
            format!(
                "({}, {})",
                brine_core::value::python_str_repr(k),
                v.to_python_repr()
            )
        })
        .collect();
    format!("OrderedDict([{}])", items.join(", "))
}

/// The SLS names per environment that select this minion.
pub type Matches = IndexMap<String, Vec<String>>;

/// Salt's `top_matches`: each target whose matcher (its last `match:`,
/// default `compound`) selects the minion contributes its SLS names, in
/// top order and with repeats; `{env: sls}` items add to another
/// (available) environment. Only `saltenv=`'s section when it is set.
pub fn top_matches(req: &StateRequest, fs: &FileServer, top: &Map) -> Result<Matches, TopError> {
    let saltenv = effective_saltenv(req);
    let mut matches = Matches::new();
    for (env, body) in top {
        if saltenv.as_ref().is_some_and(|s| s != env) {
            continue;
        }
        let Value::Map(body) = body else { continue };
        for (target, data) in body {
            filter_matches(req, fs, env, target, data, &mut matches)?;
        }
    }
    Ok(matches)
}

fn filter_matches(
    req: &StateRequest,
    fs: &FileServer,
    saltenv: &str,
    target: &str,
    data: &Value,
    matches: &mut Matches,
) -> Result<(), TopError> {
    let items: Vec<Value> = match data {
        Value::Str(_) => vec![data.clone()],
        Value::List(l) => l.clone(),
        // Salt fails iterating anything else; `verify_tops` reports it.
        _ => return Ok(()),
    };
    let mut match_type = "compound".to_string();
    for item in &items {
        if let Some(m) = item.get("match") {
            match_type = m.to_python_str();
        }
    }
    let selected =
        matcher::matches(&match_type, target, &req.minion).map_err(|e| TopError::Matcher {
            target: target.to_string(),
            saltenv: saltenv.to_string(),
            reason: Box::new(e),
        })?;
    if !selected {
        return Ok(());
    }
    matches.entry(saltenv.to_string()).or_default();
    for item in items {
        match item {
            Value::Str(s) => {
                if s.contains("subfilter") {
                    return Err(TopError::Subfilter(target.to_string()));
                }
                matches.entry(saltenv.to_string()).or_default().push(s);
            }
            Value::Map(mut m) => {
                if let Some(sub) = m.shift_remove("subfilter") {
                    if let Value::Map(sub) = sub {
                        for (t, d) in &sub {
                            filter_matches(req, fs, saltenv, t, d, matches)?;
                        }
                    }
                    if m.is_empty() {
                        return Err(TopError::Subfilter(target.to_string()));
                    }
                }
                // The item's last key names an environment (`match:` and
                // other options name none and are passed over).
                let Some((env_key, inc_sls)) = m.pop() else {
                    continue;
                };
                if !fs.is_avail(&env_key) {
                    continue;
                }
                let list = matches.entry(env_key).or_default();
                if let Value::Str(s) = inc_sls {
                    list.push(s);
                }
            }
            _ => {}
        }
    }
    Ok(())
}

/// `state.show_top`: the SLS per environment this minion gets, or the
/// top's errors.
pub fn show_top(req: &StateRequest) -> (Map, Vec<String>) {
    let fs = FileServer::new(&req.opts);
    let top = match get_top(req, &fs) {
        Ok(t) => t,
        Err(e) => return (Map::default(), vec![e.to_string()]),
    };
    let errors = verify_tops(&top);
    if !errors.is_empty() {
        return (Map::default(), errors);
    }
    match top_matches(req, &fs, &top) {
        Ok(m) => (matches_to_map(m), Vec::new()),
        Err(e) => (Map::default(), vec![e.to_string()]),
    }
}

/// `state.show_state_usage`: for each environment, which of its SLS the
/// top gives this minion (`used`) and which it does not, with the counts;
/// or the top's errors.
pub fn state_usage(req: &StateRequest) -> (Map, Vec<String>) {
    let fs = FileServer::new(&req.opts);
    let top = match get_top(req, &fs) {
        Ok(t) => t,
        Err(e) => return (Map::default(), vec![e.to_string()]),
    };
    let errors = verify_tops(&top);
    if !errors.is_empty() {
        return (Map::default(), errors);
    }
    let matches = match top_matches(req, &fs, &top) {
        Ok(m) => m,
        Err(e) => return (Map::default(), vec![e.to_string()]),
    };
    let mut out = Map::default();
    for env in fs.envs() {
        let wanted = matches.get(env);
        let (mut used, mut unused) = (Vec::new(), Vec::new());
        for sls in fs.avail(env).iter() {
            // As listed in the top file: globs there are not expanded.
            if wanted.is_some_and(|w| w.contains(sls)) {
                used.push(Value::Str(sls.clone()));
            } else {
                unused.push(Value::Str(sls.clone()));
            }
        }
        let count = |l: &[Value]| Value::Int(i64::try_from(l.len()).unwrap_or(i64::MAX));
        let mut u = Map::default();
        u.insert(
            "count_all".into(),
            count(&[used.as_slice(), unused.as_slice()].concat()),
        );
        u.insert("count_used".into(), count(&used));
        u.insert("count_unused".into(), count(&unused));
        u.insert("used".into(), Value::List(used));
        u.insert("unused".into(), Value::List(unused));
        out.insert(env.clone(), Value::Map(u));
    }
    (out, Vec::new())
}

/// Matches as a value map: environment → list of SLS names.
pub fn matches_to_map(m: Matches) -> Map {
    m.into_iter()
        .map(|(env, sls)| (env, Value::List(sls.into_iter().map(Value::Str).collect())))
        .collect()
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::MinionData;
    use serde_json::json;

    /// A file_roots tree: `(env/path, text)` pairs, and a request for
    /// minion `web1` (grain os: Debian) with extra `opts`.
    pub(crate) fn setup(
        files: &[(&str, &str)],
        extra_opts: serde_json::Value,
    ) -> (tempfile::TempDir, StateRequest) {
        let t = tempfile::tempdir().unwrap();
        let mut roots = serde_json::Map::default();
        for (path, text) in files {
            let p = t.path().join(path);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(&p, text).unwrap();
            let env = path.split('/').next().unwrap().to_string();
            roots.insert(env.clone(), json!([t.path().join(&env)]));
        }
        let mut o = json!({"file_roots": roots});
        if let (Some(o), Some(extra)) = (o.as_object_mut(), extra_opts.as_object()) {
            o.extend(extra.clone());
        }
        let o = Value::from_json(&o);
        let minion = Arc::new(MinionData {
            id: "web1".into(),
            grains: Value::from_json(&json!({"id": "web1", "os": "Debian"})),
            pillar: Value::from_json(&json!({"tier": "prod"})),
            opts: o.clone(),
            functions: Default::default(),
        });
        let req = StateRequest {
            opts: o.as_map().cloned().unwrap_or_default(),
            minion,
            ..Default::default()
        };
        (t, req)
    }

    fn shown(req: &StateRequest) -> (serde_json::Value, Vec<String>) {
        let (m, e) = show_top(req);
        (Value::Map(m).to_json(), e)
    }

    #[test]
    fn base_is_authoritative_and_others_give_only_their_own_section() {
        // Checked with Salt 3007.8 (case state-render-top-merge): a `qa`
        // section in dev's top is ignored even when qa has no top file.
        let (_t, req) = setup(
            &[
                (
                    "base/top.sls",
                    "base:\n  '*': [common]\ndev:\n  'web*': [web]\n",
                ),
                (
                    "dev/top.sls",
                    "dev:\n  '*': [ignored]\nqa:\n  '*': [web]\nbase:\n  '*': [never]\n",
                ),
                ("qa/web.sls", "x: test.nop\n"),
            ],
            json!({}),
        );
        assert_eq!(
            shown(&req),
            (json!({"base": ["common"], "dev": ["web"]}), vec![])
        );
    }

    #[test]
    fn saltenv_reads_only_its_own_top_file() {
        let (_t, mut req) = setup(
            &[
                ("base/top.sls", "dev:\n  '*': [from_base]\n"),
                (
                    "dev/top.sls",
                    "dev:\n  '*': [from_dev]\nbase:\n  '*': [x]\n",
                ),
            ],
            json!({}),
        );
        req.saltenv = Some("dev".into());
        assert_eq!(shown(&req).0, json!({"dev": ["from_dev"]}));
    }

    #[test]
    fn same_strategy_falls_back_to_default_top() {
        let (_t, req) = setup(
            &[
                (
                    "base/top.sls",
                    "base:\n  '*': [common]\ndev:\n  '*': [from_base]\n",
                ),
                (
                    "dev/top.sls",
                    "dev:\n  'web*': [web]\nqa:\n  '*': [qa_default]\n",
                ),
                ("qa/web.sls", "x: test.nop\n"),
            ],
            json!({"top_file_merging_strategy": "same", "default_top": "dev"}),
        );
        assert_eq!(
            shown(&req).0,
            json!({"base": ["common"], "dev": ["web"], "qa": ["qa_default"]})
        );
    }

    #[test]
    fn merge_all_unions_targets_in_env_order() {
        // Case state-render-top-merge-all, as Salt answered it.
        let (_t, req) = setup(
            &[
                (
                    "base/top.sls",
                    "base:\n  '*': [common, shared]\n  'web*': [{match: glob}, web]\n",
                ),
                (
                    "dev/top.sls",
                    "base:\n  '*': [extra, shared]\n  'web*': [{match: compound}, extra]\n",
                ),
                ("qa/top.sls", "base:\n  '*': [web]\n"),
            ],
            json!({"top_file_merging_strategy": "merge_all", "env_order": ["qa", "base", "dev"]}),
        );
        assert_eq!(
            shown(&req).0,
            json!({"base": ["web", "common", "shared", "extra", "web", "extra"]})
        );
    }

    #[test]
    fn verify_tops_words_errors_as_salt() {
        let (_t, req) = setup(
            &[(
                "base/top.sls",
                "base:\n  '*': common\n  'web*': [{match: glob}, '', other]\n",
            )],
            json!({}),
        );
        assert_eq!(
            shown(&req).1,
            [
                "Malformed topfile (state declarations not formed as a list)",
                "Environment base contains an empty sls index"
            ]
        );
    }

    #[test]
    fn broken_top_file_gives_an_empty_top_and_a_listless_one_fails() {
        let (_t, req) = setup(
            &[("base/top.sls", "base:\n  '*':\n    - a\n  - b\n")],
            json!({}),
        );
        assert_eq!(shown(&req), (json!({}), vec![]));
        let (_t, req) = setup(&[("base/top.sls", "base:\n  - a\n")], json!({}));
        assert_eq!(
            shown(&req).1,
            ["Unable to render top file. No targets found."]
        );
    }

    #[test]
    fn matchers_and_env_items() {
        let (_t, req) = setup(
            &[
                (
                    "base/top.sls",
                    "base:\n  'os:Debian':\n    - match: grain\n    - deb\n    - {dev: d}\n    - \
                     {nosuch: x}\n  'tier:prod':\n    - match: pillar\n    - p\n  'G@os:RedHat':\n    \
                     - never\n",
                ),
                ("dev/d.sls", "x: test.nop\n"),
            ],
            json!({}),
        );
        assert_eq!(shown(&req).0, json!({"base": ["deb", "p"], "dev": ["d"]}));
    }

    #[test]
    fn included_top_replaces_a_target_in_place() {
        // Salt 3007.8 answers {"base": ["c", "b"]}: more2's '*' replaces
        // the top file's own '*' entry, keeping its place.
        let (_t, req) = setup(
            &[
                ("base/top.sls", "include: [more*]\nbase:\n  '*': [a]\n"),
                ("base/more.sls", "base:\n  'web*': [b]\n"),
                ("base/more2.sls", "base:\n  '*': [c]\n"),
            ],
            json!({}),
        );
        assert_eq!(shown(&req).0, json!({"base": ["c", "b"]}));
    }
}
