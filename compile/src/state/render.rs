//! Render stage: SLS references resolved in `file_roots`, rendered once each,
//! `include` (plain, relative, glob, `env: sls`), `exclude`, `extend`,
//! `__sls__`/`__env__` injection and auto `order` → high data.
//!
//! Mirrors Salt 3007.8's `BaseHighState.render_state`, `render_highstate`,
//! `_handle_extend`, `_handle_exclude`, `_handle_state_decls`,
//! `_handle_iorder` and `merge_included_states`, error wording included.

use super::top::{self, FileServer, Matches};
use super::{HighData, StateRequest};
use crate::opts;
use crate::render::{self, TemplateContext};
use brine_core::{Map, Value};
use std::collections::{HashMap, HashSet};

/// High data and the render-stage errors met building it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Rendered {
    pub high: HighData,
    pub errors: Vec<String>,
}

/// `state.show_highstate`'s compile (Salt's `compile_highstate`): the top
/// (with `verify_tops`), its matches, and the matched SLS rendered.
pub fn render_highstate(req: &StateRequest) -> Rendered {
    render_highstate_from_top(req, true)
}

/// The highstate's high data with or without `verify_tops` (Salt's
/// `compile_low_chunks`, behind `state.show_lowstate`, skips it).
pub fn render_highstate_from_top(req: &StateRequest, verify_top: bool) -> Rendered {
    let fs = FileServer::new(&req.opts);
    let top = match top::get_top(req, &fs) {
        Ok(t) => t,
        Err(e) => {
            return Rendered {
                high: Map::default(),
                errors: vec![e.to_string()],
            }
        }
    };
    let mut errors = if verify_top {
        top::verify_tops(&top)
    } else {
        Vec::new()
    };
    let matches = match top::top_matches(req, &fs, &top) {
        Ok(m) => m,
        Err(e) => {
            errors.push(e.to_string());
            return Rendered {
                high: Map::default(),
                errors,
            };
        }
    };
    let mut r = render_matches(req, &fs, &matches);
    errors.append(&mut r.errors);
    r.errors = errors;
    r
}

/// `state.sls` / `state.show_sls`: `mods` of `saltenv`, with their includes.
pub fn render_sls(req: &StateRequest, saltenv: &str, mods: &[String]) -> Rendered {
    let fs = FileServer::new(&req.opts);
    let mut matches = Matches::new();
    matches.insert(saltenv.to_string(), mods.to_vec());
    render_matches(req, &fs, &matches)
}

/// `state.template`: the SLS file at `path` on the minion's own file
/// system, rendered as an SLS named by its path (Salt's `render_state`
/// with `local=True`), includes resolving in `saltenv`.
pub fn render_local(req: &StateRequest, path: &str, saltenv: &str) -> Rendered {
    let fs = FileServer::new(&req.opts);
    let matches = Matches::new();
    let file = std::path::Path::new(path);
    if !file.is_file() {
        return Rendered {
            high: Map::default(),
            errors: vec![format!(
                "Specified SLS {path} on local filesystem cannot be found."
            )],
        };
    }
    let mut r = Renderer::new(req, &fs, &matches);
    let (state, errors) = r.render_found(path, saltenv, file, false, Vec::new());
    Rendered {
        high: match state {
            Value::Map(m) => m,
            _ => Map::default(),
        },
        errors,
    }
}

/// Salt's `render_highstate`: every matched SLS (globs resolved against
/// the environment's listing) rendered once, merged into one high data.
pub fn render_matches(req: &StateRequest, fs: &FileServer, matches: &Matches) -> Rendered {
    render_matches_with(req, fs, matches, render::cores())
}

/// [`render_matches`] with `workers` threads rendering the matched SLS
/// ahead (under 2: each in turn).
fn render_matches_with(
    req: &StateRequest,
    fs: &FileServer,
    matches: &Matches,
    workers: usize,
) -> Rendered {
    let mut r = Renderer::new(req, fs, matches);
    r.ahead = r.render_ahead(&matched_files(fs, matches), workers);
    let mut high = Map::default();
    let mut all_errors = Vec::new();
    // Salt keeps the last listing across iterations when an environment is
    // unknown; kept here for the same (harmless) effect.
    let mut statefiles: Vec<String> = Vec::new();
    for (saltenv, states) in matches {
        for sls_match in states {
            if fs.is_avail(saltenv) {
                statefiles = fs.filter(saltenv, sls_match);
            } else {
                all_errors.push(format!(
                    "No matching salt environment for environment '{saltenv}' found"
                ));
            }
            // Not in the listing: try the name itself, which reports the
            // missing SLS if it really is missing.
            if statefiles.is_empty() {
                statefiles = vec![sls_match.clone()];
            }
            for sls in &statefiles {
                if r.mods.contains(&mod_key(saltenv, sls)) {
                    continue;
                }
                let (state, mut errors) = r.render_state(sls, saltenv);
                if state.is_truthy() {
                    merge_included_states(&mut high, state, &mut errors);
                }
                let this_sls = format!("SLS {sls_match} in saltenv");
                for e in errors.iter_mut() {
                    if e.contains("is not available") && e.contains(&this_sls) {
                        *e = format!("No matching sls found for '{sls_match}' in env '{saltenv}'");
                    }
                }
                all_errors.append(&mut errors);
            }
        }
    }
    clean_duplicate_extends(&mut high);
    // The templates are done: let go of their converted context now rather
    // than through compile and run.
    crate::render::jinja::release_cached_context();
    Rendered {
        high,
        errors: all_errors,
    }
}

fn mod_key(saltenv: &str, sls: &str) -> String {
    format!("{saltenv}:{sls}")
}

/// The matched SLS that [`render_matches`] renders, as (saltenv, sls), in
/// its order, each once (includes are found only by rendering).
fn matched_files(fs: &FileServer, matches: &Matches) -> Vec<(String, String)> {
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    for (saltenv, states) in matches {
        if !fs.is_avail(saltenv) {
            continue;
        }
        for sls_match in states {
            for sls in fs.filter(saltenv, sls_match) {
                if seen.insert(mod_key(saltenv, &sls)) {
                    out.push((saltenv.clone(), sls));
                }
            }
        }
    }
    out
}

/// Fewer matched SLS than this are rendered in turn only (threads cost
/// more than they save).
const AHEAD_MIN: usize = 4;

/// Renders done ahead of the in-order pass, by (saltenv, sls).
type Ahead = HashMap<(String, String), Result<Value, render::RenderError>>;

struct Renderer<'a> {
    req: &'a StateRequest,
    fs: &'a FileServer,
    /// The environments includes may resolve in (Salt's `matches`).
    matches: &'a Matches,
    /// The next auto `order` (Salt's `iorder`).
    iorder: i64,
    auto_order: bool,
    /// `env:sls` already rendered (Salt's `mods`).
    mods: HashSet<String>,
    /// Matched SLS rendered ahead on all cores, taken by the in-order pass.
    ahead: Ahead,
}

impl<'a> Renderer<'a> {
    fn new(req: &'a StateRequest, fs: &'a FileServer, matches: &'a Matches) -> Renderer<'a> {
        Renderer {
            req,
            fs,
            matches,
            iorder: 10000,
            auto_order: opts::get_bool(&req.opts, "state_auto_order", true),
            mods: HashSet::new(),
            ahead: HashMap::new(),
        }
    }

    /// The template context of `sls` of `saltenv`, read from `path`.
    fn context(&self, sls: &str, saltenv: &str, path: &std::path::Path) -> TemplateContext {
        TemplateContext {
            minion: self.req.minion.clone(),
            saltenv: saltenv.to_string(),
            pillarenv: self.req.pillarenv.clone(),
            sls: Some(sls.to_string()),
            tplpath: Some(path.display().to_string()),
            fetch: None,
            search_paths: self.fs.roots.dirs(saltenv).to_vec(),
            extra: Vec::new(),
        }
    }

    /// Render `files` ahead, on all cores. A file's render depends only on
    /// the minion, its environment and its own path (not on what was
    /// rendered before it), so the in-order pass gets the values rendering
    /// each in turn would give; it reports their errors in its order.
    fn render_ahead(&self, files: &[(String, String)], workers: usize) -> Ahead {
        let workers = workers.min(files.len() / AHEAD_MIN);
        if workers < 2 {
            return Ahead::new();
        }
        render::on_threads(workers, files, |(saltenv, sls)| {
            let file = self.fs.roots.find_sls(saltenv, sls)?;
            Some(render::render_file(
                &file.path,
                &self.context(sls, saltenv, &file.path),
            ))
        })
        .into_iter()
        .map(|(i, rendered)| (files[i].clone(), rendered))
        .collect()
    }

    /// Render one SLS and, depth first, what it includes. Returns its
    /// states (a map, or the non-map value the file rendered to) and errors.
    fn render_state(&mut self, sls: &str, saltenv: &str) -> (Value, Vec<String>) {
        let mut errors = Vec::new();
        let Some(file) = self.fs.roots.find_sls(saltenv, sls) else {
            errors.push(format!(
                "Specified SLS {sls} in saltenv {saltenv} is not available on the salt master \
                 or through a configured fileserver"
            ));
            return (Value::new_map(), errors);
        };
        // Relative includes start one level deeper when Salt's `source`
        // URL ends in `/init.sls`: `x/init.sls`, and also `x.init` or
        // `init` found as `x/init.sls` / `init.sls` (`salt://init.sls`).
        let rel = sls.replace('.', "/");
        let source = if file.is_init {
            format!("salt://{rel}/init.sls")
        } else {
            format!("salt://{rel}.sls")
        };
        let source_is_init = source.ends_with("/init.sls");
        self.render_found(sls, saltenv, &file.path, source_is_init, errors)
    }

    /// [`Renderer::render_state`] once the file is found (at `path`).
    fn render_found(
        &mut self,
        sls: &str,
        saltenv: &str,
        path: &std::path::Path,
        source_is_init: bool,
        mut errors: Vec<String>,
    ) -> (Value, Vec<String>) {
        let ahead = self.ahead.remove(&(saltenv.to_string(), sls.to_string()));
        let rendered =
            ahead.unwrap_or_else(|| render::render_file(path, &self.context(sls, saltenv, path)));
        let rendered = match rendered {
            Ok(v) => v,
            Err(e) => {
                tracing::error!("Rendering SLS '{saltenv}:{sls}' failed: {e}");
                errors.push(format!(
                    "Rendering SLS '{saltenv}:{sls}' failed: {}",
                    render_error_text(&e, path)
                ));
                Value::Null
            }
        };
        self.mods.insert(mod_key(saltenv, sls));
        if !rendered.is_truthy() {
            return (Value::new_map(), errors);
        }
        let Value::Map(mut state) = rendered else {
            errors.push(format!("SLS {sls} does not render to a dictionary"));
            return (rendered, errors);
        };
        let mut include = Vec::new();
        if let Some(inc) = state.get("include") {
            if matches!(inc, Value::List(_)) {
                if let Some(Value::List(l)) = state.shift_remove("include") {
                    include = l;
                }
            } else {
                errors.push(format!(
                    "Include Declaration in SLS {sls} is not formed as a list"
                ));
            }
        }
        handle_extend(&mut state, sls, saltenv, &mut errors);
        handle_exclude(&mut state, sls, &mut errors);
        handle_state_decls(&mut state, sls, saltenv, &mut errors);

        for inc in include {
            self.include(&mut state, inc, sls, saltenv, source_is_init, &mut errors);
        }
        self.handle_iorder(&mut state);
        (Value::Map(state), errors)
    }

    /// One `include` entry: `sls`, `.rel`/`..rel`, a glob, or `{env: sls}`.
    fn include(
        &mut self,
        state: &mut Map,
        inc: Value,
        sls: &str,
        saltenv: &str,
        source_is_init: bool,
        errors: &mut Vec<String>,
    ) {
        const XENV: &str = "_xenv";
        let (env_key, inc_sls) = match inc {
            // `{env: sls}`: Salt takes the mapping's last item.
            Value::Map(mut m) => match m.pop() {
                Some(kv) => kv,
                None => return,
            },
            other => (saltenv.to_string(), other),
        };
        let Value::Str(mut inc_sls) = inc_sls else {
            errors.push(format!(
                "Badly formatted include {} found in include in SLS '{saltenv}:{sls}'",
                inc_sls.to_python_str()
            ));
            return;
        };
        if !self.fs.is_avail(&env_key) {
            let msg = format!(
                "Nonexistent saltenv '{env_key}' found in include of '{inc_sls}' within SLS \
                 '{saltenv}:{sls}'"
            );
            tracing::error!("{msg}");
            errors.push(msg);
            return;
        }
        if inc_sls.starts_with('.') {
            let rest = inc_sls.trim_start_matches('.');
            let levels = inc_sls.len() - rest.len();
            let mut p_comps: Vec<&str> = sls.split('.').collect();
            if source_is_init {
                p_comps.push("init");
            }
            if levels > p_comps.len() {
                let msg = format!(
                    "Attempted relative include of '{inc_sls}' within SLS '{saltenv}:{sls}' \
                     goes beyond top level package "
                );
                tracing::error!("{msg}");
                errors.push(msg);
                return;
            }
            p_comps.truncate(p_comps.len() - levels);
            p_comps.push(rest);
            inc_sls = p_comps.join(".");
        }

        let resolved: Vec<String> = if env_key != XENV {
            if self.matches.contains_key(&env_key) || !self.fs.filter(&env_key, &inc_sls).is_empty()
            {
                vec![env_key.clone()]
            } else {
                Vec::new()
            }
        } else {
            self.matches
                .keys()
                .filter(|aenv| !self.fs.filter(aenv, &inc_sls).is_empty())
                .cloned()
                .collect()
        };
        if resolved.len() == 1 || resolved.iter().any(|e| e == saltenv) {
            // Salt expands the glob against the including file's
            // environment, whichever environment the include resolved to.
            let mut targets = self.fs.filter(saltenv, &inc_sls);
            if targets.is_empty() {
                targets.push(inc_sls.clone());
            }
            let r_env = match resolved.as_slice() {
                [one] => one.clone(),
                _ => saltenv.to_string(),
            };
            for target in targets {
                if self.mods.contains(&mod_key(&r_env, &target)) {
                    continue;
                }
                let (nstate, err) = self.render_state(&target, &r_env);
                if let Value::Map(mut nstate) = nstate {
                    if !nstate.is_empty() {
                        for (id, body) in nstate.iter_mut() {
                            if id.starts_with("__") {
                                continue;
                            }
                            if let Value::Map(body) = body {
                                let from = body
                                    .entry("__sls_included_from__".to_string())
                                    .or_insert_with(|| Value::List(Vec::new()));
                                if let Value::List(l) = from {
                                    l.push(Value::Str(sls.to_string()));
                                }
                            }
                        }
                        merge_included_states(state, Value::Map(nstate), errors);
                    }
                }
                errors.extend(err);
            }
        } else {
            let msg = if resolved.is_empty() {
                let envs = if env_key == XENV {
                    self.matches.keys().cloned().collect::<Vec<_>>().join(", ")
                } else {
                    env_key.clone()
                };
                format!(
                    "Unknown include: Specified SLS {env_key}: {inc_sls} is not available on the \
                     salt master in saltenv(s): {envs} "
                )
            } else {
                format!(
                    "Ambiguous include: Specified SLS {env_key}: {inc_sls} is available on the \
                     salt master in multiple available saltenvs: {}",
                    resolved.join(", ")
                )
            };
            tracing::error!("{msg}");
            errors.push(msg);
        }
    }

    /// Salt's `_handle_iorder`: each state declaration without an `order`
    /// argument (as its first key) gets the next auto order.
    fn handle_iorder(&mut self, state: &mut Map) {
        if !self.auto_order {
            return;
        }
        for body in state.values_mut() {
            let Value::Map(body) = body else { continue };
            for (s_dec, args) in body.iter_mut() {
                if s_dec.starts_with('_') {
                    continue;
                }
                let Value::List(args) = args else { continue };
                let found = args.iter().any(
                    |a| matches!(a, Value::Map(m) if m.keys().next().is_some_and(|k| k == "order")),
                );
                if !found {
                    let mut order = Map::default();
                    order.insert("order".into(), Value::Int(self.iorder));
                    args.push(Value::Map(order));
                    self.iorder += 1;
                }
            }
        }
    }
}

/// The text of Salt's `SaltRenderError` for a failed SLS, as far as brine's
/// errors carry it: PyYAML's message with its marks, or the Jinja message
/// with `; line N` and the template lines around it, the failing one marked.
fn render_error_text(e: &render::RenderError, path: &std::path::Path) -> String {
    match e {
        render::RenderError::Yaml { source, .. } => source.salt_text(),
        render::RenderError::Jinja { source, .. } => {
            let text = std::fs::read_to_string(path).unwrap_or_default();
            match source.line {
                Some(line) if line > 0 => format!(
                    "{}; line {line}\n\n{}",
                    source.message,
                    error_context(&text, line)
                ),
                _ => source.message.clone(),
            }
        }
        // The gpg renderer's own words (Salt's SaltRenderError message).
        render::RenderError::Gpg { message, .. } => message.clone(),
        other => other.to_string(),
    }
}

/// Salt's `get_context`: up to five lines either side of `line` (1-based)
/// between `---` rulers, `[...]` where lines are cut, the line marked.
fn error_context(template: &str, line: usize) -> String {
    const MARKER: &str = "    <======================";
    let lines: Vec<&str> = template.lines().collect();
    if line > lines.len() {
        return template.to_string();
    }
    let start = line.saturating_sub(6);
    let end = (line + 5).min(lines.len());
    let mut buf: Vec<String> = Vec::new();
    if start > 0 {
        buf.push("[...]".into());
    }
    for (i, l) in lines.iter().enumerate().take(end).skip(start) {
        if i + 1 == line {
            buf.push(format!("{l}{MARKER}"));
        } else {
            buf.push((*l).to_string());
        }
    }
    if end < lines.len() {
        buf.push("[...]".into());
    }
    format!("---\n{}\n---", buf.join("\n"))
}

/// Salt's `_handle_extend`: the `extend` mapping (its short decs expanded,
/// `__sls__`/`__env__` added) appended whole to `__extend__`.
fn handle_extend(state: &mut Map, sls: &str, saltenv: &str, errors: &mut Vec<String>) {
    let Some(ext) = state.shift_remove("extend") else {
        return;
    };
    let Value::Map(mut ext) = ext else {
        errors.push(format!(
            "Extension value in SLS '{sls}' is not a dictionary"
        ));
        return;
    };
    for (name, body) in ext.iter_mut() {
        let Value::Map(body) = body else {
            errors.push(format!(
                "Extension name '{name}' in SLS '{sls}' is not a dictionary"
            ));
            continue;
        };
        if !body.contains_key("__sls__") {
            body.insert("__sls__".into(), Value::Str(sls.to_string()));
        }
        if !body.contains_key("__env__") {
            body.insert("__env__".into(), Value::Str(saltenv.to_string()));
        }
        let keys: Vec<String> = body.keys().cloned().collect();
        for key in keys {
            if key.starts_with('_') || !matches!(body.get(&key), Some(Value::List(_))) {
                continue;
            }
            if let Some((module, fun)) = split_dec(&key) {
                if let Some(Value::List(mut args)) = body.shift_remove(&key) {
                    args.push(Value::Str(fun.to_string()));
                    body.insert(module.to_string(), Value::List(args));
                }
            }
        }
    }
    push_list(state, "__extend__", vec![Value::Map(ext)]);
}

/// Salt's `_handle_exclude`: the `exclude` list moved to `__exclude__`.
fn handle_exclude(state: &mut Map, sls: &str, errors: &mut Vec<String>) {
    let Some(exc) = state.shift_remove("exclude") else {
        return;
    };
    let items = match exc {
        Value::List(l) => l,
        other => {
            errors.push(format!(
                "Exclude Declaration in SLS {sls} is not formed as a list"
            ));
            // Salt still extends the list with what iterating it yields.
            match other {
                Value::Map(m) => m.into_keys().map(Value::Str).collect(),
                Value::Str(s) => s.chars().map(|c| Value::Str(c.to_string())).collect(),
                _ => Vec::new(),
            }
        }
    };
    push_list(state, "__exclude__", items);
}

fn push_list(state: &mut Map, key: &str, items: Vec<Value>) {
    let entry = state
        .entry(key.to_string())
        .or_insert_with(|| Value::List(Vec::new()));
    if let Value::List(l) = entry {
        l.extend(items);
    }
}

/// `pkg.installed` → (`pkg`, `installed`): the first two dot-separated
/// parts, as Salt's `split('.')` then `[0]`, `[1]`.
fn split_dec(key: &str) -> Option<(&str, &str)> {
    let (module, rest) = key.split_once('.')?;
    Some((module, rest.split('.').next().unwrap_or(rest)))
}

/// Salt's `_handle_state_decls`: short decs (`id: pkg.installed`,
/// `pkg.installed: [...]`) become `pkg: [..., installed]`, and every ID
/// gets `__sls__` and `__env__`.
fn handle_state_decls(state: &mut Map, sls: &str, saltenv: &str, errors: &mut Vec<String>) {
    for (name, body) in state.iter_mut() {
        let Value::Map(decls) = body else {
            if name == "__extend__" || name == "__exclude__" {
                continue;
            }
            if let Value::Str(s) = &*body {
                if let Some((module, fun)) = split_dec(s) {
                    let mut padded = Map::default();
                    padded.insert("__sls__".into(), Value::Str(sls.to_string()));
                    padded.insert("__env__".into(), Value::Str(saltenv.to_string()));
                    padded.insert(
                        module.to_string(),
                        Value::List(vec![Value::Str(fun.to_string())]),
                    );
                    *body = Value::Map(padded);
                    continue;
                }
            }
            errors.push(format!("ID {name} in SLS {sls} is not a dictionary"));
            continue;
        };
        let mut skeys: HashSet<String> = HashSet::new();
        let keys: Vec<String> = decls.keys().cloned().collect();
        for key in keys {
            if key.starts_with('_') || !matches!(decls.get(&key), Some(Value::List(_))) {
                continue;
            }
            let Some((module, fun)) = split_dec(&key) else {
                skeys.insert(key);
                continue;
            };
            if skeys.contains(module) {
                errors.push(format!(
                    "ID '{name}' in SLS '{sls}' contains multiple state declarations of the \
                     same type"
                ));
                continue;
            }
            if let Some(Value::List(mut args)) = decls.shift_remove(&key) {
                args.push(Value::Str(fun.to_string()));
                decls.insert(module.to_string(), Value::List(args));
            }
            skeys.insert(module.to_string());
        }
        if !decls.contains_key("__sls__") {
            decls.insert("__sls__".into(), Value::Str(sls.to_string()));
        }
        if !decls.contains_key("__env__") {
            decls.insert("__env__".into(), Value::Str(saltenv.to_string()));
        }
    }
}

/// Salt's `merge_included_states`: `__extend__`/`__exclude__` appended,
/// IDs added, an ID already present with other content an error (the
/// later one still wins).
fn merge_included_states(high: &mut Map, state: Value, errors: &mut Vec<String>) {
    let mut state = match state {
        Value::Map(m) => m,
        other => {
            errors.push(format!(
                "Error when rendering state with contents: {}",
                other.to_python_str()
            ));
            return;
        }
    };
    for key in ["__extend__", "__exclude__"] {
        if let Some(v) = state.shift_remove(key) {
            let items = match v {
                Value::List(l) => l,
                other => vec![other],
            };
            push_list(high, key, items);
        }
    }
    for (id, body) in &state {
        if let Some(prev) = high.get(id) {
            if prev != body {
                let where_ = |v: &Value| {
                    let get = |k: &str| v.get(k).map(Value::to_python_str).unwrap_or_default();
                    format!("{}:{}", get("__env__"), get("__sls__"))
                };
                errors.push(format!(
                    "Detected conflicting IDs, SLS IDs need to be globally unique.\n    The \
                     conflicting ID is '{id}' and is found in SLS '{}' and SLS '{}'",
                    where_(prev),
                    where_(body)
                ));
            }
        }
    }
    high.extend(state);
}

/// Salt's `clean_duplicate_extends`: `__extend__` as one `{id: body}` per
/// entry, repeats dropped.
fn clean_duplicate_extends(high: &mut Map) {
    let Some(Value::List(exts)) = high.get_mut("__extend__") else {
        return;
    };
    let mut seen: Vec<(String, Value)> = Vec::new();
    for ext in std::mem::take(exts) {
        if let Value::Map(m) = ext {
            for (k, v) in m {
                if !seen.iter().any(|(sk, sv)| *sk == k && *sv == v) {
                    seen.push((k, v));
                }
            }
        }
    }
    *exts = seen
        .into_iter()
        .map(|(k, v)| {
            let mut m = Map::default();
            m.insert(k, v);
            Value::Map(m)
        })
        .collect();
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::top::tests::setup;
    use serde_json::json;

    fn sls(req: &StateRequest, mods: &[&str]) -> (serde_json::Value, Vec<String>) {
        let mods: Vec<String> = mods.iter().map(|s| s.to_string()).collect();
        let r = render_sls(req, "base", &mods);
        (Value::Map(r.high).to_json(), r.errors)
    }

    /// Rendering the matched SLS ahead on threads answers exactly what
    /// rendering each in turn does: auto orders, includes (also of files
    /// rendered ahead), render errors in order, Jinja on grains and pillar.
    #[test]
    fn rendering_ahead_answers_as_rendering_in_turn() {
        let n = 24;
        let mut files: Vec<(String, String)> = (0..n)
            .map(|i| {
                let body = match i {
                    5 => "bad: [\n".to_string(),
                    9 => "include: [s20, extra]\ns9: test.nop\n".to_string(),
                    13 => "{{ undefined_thing.x }}: 1\n".to_string(),
                    _ => format!(
                        "s{i}:\n  test.succeed_without_changes:\n    - name: \
                         {{{{ grains['id'] }}}}-{{{{ pillar['tier'] }}}}-{i}\n"
                    ),
                };
                (format!("base/s{i}.sls"), body)
            })
            .collect();
        files.push(("base/extra.sls".into(), "extra: test.nop\n".into()));
        let files: Vec<(&str, &str)> = files
            .iter()
            .map(|(p, b)| (p.as_str(), b.as_str()))
            .collect();
        let (_t, req) = setup(&files, json!({}));
        let fs = FileServer::new(&req.opts);
        let mut matches = Matches::new();
        matches.insert("base".into(), (0..n).map(|i| format!("s{i}")).collect());
        let in_turn = render_matches_with(&req, &fs, &matches, 0);
        let ahead = render_matches_with(&req, &fs, &matches, 2);
        assert_eq!(ahead, in_turn);
        assert_eq!(in_turn.errors.len(), 2, "{:?}", in_turn.errors);
        let high = Value::Map(in_turn.high).to_json();
        assert_eq!(high["s3"]["test"][0]["name"], json!("web1-prod-3"));
        // s20 was included by s9, ahead of its own place in the top.
        assert_eq!(high["s20"]["__sls_included_from__"], json!(["s9"]));
        assert_eq!(high["s20"]["test"][2]["order"], json!(10008));
        assert_eq!(high["s9"]["test"][1]["order"], json!(10010));
    }

    #[test]
    fn include_chain_orders_the_deepest_first() {
        // state-include-extend-exclude, as Salt 3007.8 shows it.
        let (_t, req) = setup(
            &[
                (
                    "base/a.sls",
                    "include: [b, dropped]\nexclude:\n  - sls: dropped\n  - id: unwanted\n\
                     a_state:\n  test.nop\nextend:\n  b_state:\n    test:\n      - name: x\n",
                ),
                (
                    "base/b.sls",
                    "include: [c]\nb_state:\n  test.succeed_with_changes\nunwanted:\n  test.nop\n",
                ),
                ("base/c.sls", "c_state:\n  test.nop\n"),
                ("base/dropped.sls", "dropped_state:\n  test.nop\n"),
            ],
            json!({}),
        );
        let (high, errors) = sls(&req, &["a"]);
        assert!(errors.is_empty(), "{errors:?}");
        let order = |id: &str| high[id]["test"][1]["order"].clone();
        assert_eq!(order("c_state"), json!(10000));
        assert_eq!(order("b_state"), json!(10001));
        assert_eq!(order("unwanted"), json!(10002));
        assert_eq!(order("dropped_state"), json!(10003));
        assert_eq!(order("a_state"), json!(10004));
        assert_eq!(high["c_state"]["__sls_included_from__"], json!(["b", "a"]));
        assert_eq!(high["a_state"].get("__sls_included_from__"), None);
        assert_eq!(
            high["__exclude__"],
            json!([{"sls": "dropped"}, {"id": "unwanted"}])
        );
        assert_eq!(
            high["__extend__"],
            json!([{"b_state": {"test": [{"name": "x"}], "__sls__": "a", "__env__": "base"}}])
        );
    }

    #[test]
    fn relative_glob_and_env_includes() {
        let (_t, req) = setup(
            &[
                (
                    "base/app/init.sls",
                    "include: [.db, {dev: tools}]\napp: test.nop\n",
                ),
                (
                    "base/app/db/init.sls",
                    "include: [.server, ..common]\ndb: test.nop\n",
                ),
                (
                    "base/app/db/server.sls",
                    "include: [..common]\nserver: test.nop\n",
                ),
                ("base/app/common.sls", "common: test.nop\n"),
                ("base/web/a.sls", "wa: test.nop\n"),
                ("base/web/b.sls", "wb: test.nop\n"),
                ("base/globber.sls", "include: ['web.*']\ng: test.nop\n"),
                (
                    "dev/tools.sls",
                    "tools:\n  test.nop:\n    - name: '{{ saltenv }}'\n",
                ),
            ],
            json!({}),
        );
        let (high, errors) = sls(&req, &["app", "globber"]);
        assert!(errors.is_empty(), "{errors:?}");
        assert_eq!(high["common"]["__sls__"], json!("app.common"));
        assert_eq!(
            high["common"]["__sls_included_from__"],
            json!(["app.db.server", "app.db", "app"])
        );
        assert_eq!(high["tools"]["__env__"], json!("dev"));
        assert_eq!(high["tools"]["test"][0], json!({"name": "dev"}));
        assert_eq!(high["wb"]["__sls_included_from__"], json!(["globber"]));
    }

    #[test]
    fn short_decs_become_full_declarations() {
        // As Salt 3007.8 renders them (the dotted key moves to the end).
        let (_t, req) = setup(
            &[(
                "base/good.sls",
                "g: test.nop\nh: {test.nop: []}\n\
                 i: {pkg.installed: [{name: vim}], file: [managed, {name: /x}]}\n",
            )],
            json!({}),
        );
        let (high, errors) = sls(&req, &["good"]);
        assert!(errors.is_empty());
        assert_eq!(
            high["g"],
            json!({"__sls__": "good", "__env__": "base", "test": ["nop", {"order": 10000}]})
        );
        assert_eq!(high["h"]["test"], json!(["nop", {"order": 10001}]));
        let i = high["i"].as_object().unwrap();
        assert_eq!(
            i.keys().collect::<Vec<_>>(),
            ["file", "pkg", "__sls__", "__env__"]
        );
        assert_eq!(
            high["i"]["pkg"],
            json!([{"name": "vim"}, "installed", {"order": 10003}])
        );
    }

    #[test]
    fn render_stage_errors_use_salts_words() {
        let (_t, req) = setup(
            &[
                ("base/a.sls", "shared: test.nop\n"),
                ("base/b.sls", "shared: test.succeed_without_changes\n"),
                ("base/lst.sls", "- a\n- b\n"),
                (
                    "base/bad.sls",
                    "x: nodot\nw: {test.nop: [], test.fail: []}\n",
                ),
                (
                    "base/badinc.sls",
                    "include: [does.not.exist, {nowhere: a}, ...far]\ns: test.nop\n",
                ),
            ],
            json!({}),
        );
        assert_eq!(
            sls(&req, &["a", "b"]).1,
            ["Detected conflicting IDs, SLS IDs need to be globally unique.\n    The conflicting \
              ID is 'shared' and is found in SLS 'base:a' and SLS 'base:b'"]
        );
        assert_eq!(
            sls(&req, &["nosuch", "lst", "bad"]).1,
            [
                "No matching sls found for 'nosuch' in env 'base'",
                "SLS lst does not render to a dictionary",
                "Error when rendering state with contents: ['a', 'b']",
                "ID x in SLS bad is not a dictionary",
                "ID 'w' in SLS 'bad' contains multiple state declarations of the same type",
            ]
        );
        assert_eq!(
            sls(&req, &["badinc"]).1,
            [
                "Specified SLS does.not.exist in saltenv base is not available on the salt \
                 master or through a configured fileserver",
                "Nonexistent saltenv 'nowhere' found in include of 'a' within SLS 'base:badinc'",
                "Attempted relative include of '...far' within SLS 'base:badinc' goes beyond \
                 top level package ",
            ]
        );
    }

    #[test]
    fn highstate_reads_the_top_and_reports_unknown_envs() {
        let (_t, req) = setup(
            &[
                (
                    "base/top.sls",
                    "base:\n  '*': [a, missing]\nprod:\n  '*': [a]\n",
                ),
                ("base/a.sls", "a: test.nop\n"),
            ],
            json!({}),
        );
        let r = render_highstate(&req);
        assert_eq!(
            r.errors,
            [
                "No matching sls found for 'missing' in env 'base'",
                "No matching salt environment for environment 'prod' found",
                // Salt reuses the previous environment's file list here.
                "Specified SLS missing in saltenv prod is not available on the salt master or \
                 through a configured fileserver",
            ]
        );
        assert!(r.high.contains_key("a"));
    }

    #[test]
    fn auto_order_can_be_turned_off() {
        let (_t, req) = setup(
            &[("base/a.sls", "a: test.nop\n")],
            json!({"state_auto_order": false}),
        );
        assert_eq!(sls(&req, &["a"]).0["a"]["test"], json!(["nop"]));
    }
}
