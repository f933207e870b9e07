//! PillarStack (`ext_pillar: - stack: ...`), as Salt 3007.8's
//! `salt/pillar/stack.py` builds it.
//!
//! For each stack config file (see [`config`] for how they are chosen), in
//! order: the file is rendered with Jinja; its lines (or, when the rendered
//! text is a YAML list, its items) are globs relative to the file's
//! directory; every match, in sorted order, is rendered with Jinja (seeing
//! the stack built so far as `stack`), loaded as YAML and, when it is a
//! dict, merged into the stack (see [`merge`] for the strategies). One stack
//! is threaded through all config files and returned.
//!
//! Errors, as in Salt: a glob matching nothing or a missing config file is
//! skipped (we log a warning naming the config file and line; Salt logs at
//! info level); a document that is not a dict is ignored. Anything else (a
//! template or YAML error, an unknown strategy, a malformed selector) makes
//! the whole `stack` ext_pillar fail: Salt keeps none of the stack, adds
//! `Failed to load ext_pillar stack: <message>` to the pillar's `_errors`
//! and still compiles the rest of the pillar. [`StackError`]'s `Display` is
//! that `<message>` (Salt's wording where we can reproduce it), and
//! [`StackError::path`]/[`StackError::line`] say where it happened.

mod config;
mod merge;
mod pypath;

pub use config::{ConfigError, TraverseError};
pub use merge::MergeError;

use crate::render::jinja::{self, JinjaError, TemplateContext};
use crate::MinionData;
use brine_core::value::{python_str_repr, Map};
use brine_core::yaml::{self, YamlError};
use brine_core::Value;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Why the `stack` ext_pillar failed; nothing of the stack is kept.
#[derive(Debug, thiserror::Error)]
pub enum StackError {
    /// The `stack:` configuration itself is malformed (a selector without
    /// `:`, an unknown `pillar:`/`grains:`/`opts:` kind, a path that is not
    /// a string...): the message is the exception text Salt shows.
    #[error("{source}")]
    Config { source: ConfigError },
    /// A stack config file could not be read.
    #[error("{source}")]
    ConfigRead { path: String, source: ReadError },
    /// A stack config file did not render (Salt shows the Jinja message
    /// alone).
    #[error("{source}")]
    ConfigRender { path: String, source: JinjaError },
    /// An item of a YAML-list stack config is not a string.
    #[error("'{type_name}' object has no attribute 'strip'")]
    ConfigEntry {
        path: String,
        line: usize,
        type_name: &'static str,
    },
    /// A stacked file could not be found, read or rendered; `message`
    /// carries the template line when known.
    #[error("Stack pillar template render error in {path}:\n\"{message}\"")]
    Render {
        path: String,
        message: String,
        line: Option<usize>,
    },
    /// A stacked file rendered to text that is not valid YAML.
    #[error("Stack pillar yaml parsing error in {path}:\n{}\n{rendered}", source.salt_text())]
    Yaml {
        path: String,
        source: Box<YamlError>,
        rendered: String,
    },
    /// Merging a stacked file failed (unknown strategy).
    #[error("{source}")]
    Merge { path: String, source: MergeError },
}

impl StackError {
    /// The config file or stacked file the error is about, if any.
    pub fn path(&self) -> Option<&str> {
        match self {
            StackError::Config { .. } => None,
            StackError::ConfigRead { path, .. }
            | StackError::ConfigRender { path, .. }
            | StackError::ConfigEntry { path, .. }
            | StackError::Render { path, .. }
            | StackError::Yaml { path, .. }
            | StackError::Merge { path, .. } => Some(path),
        }
    }

    /// The 1-based line in [`Self::path`], when known (for YAML errors, the
    /// line of the rendered text).
    pub fn line(&self) -> Option<usize> {
        match self {
            StackError::ConfigRender { source, .. } => source.line,
            StackError::ConfigEntry { line, .. } => Some(*line),
            StackError::Render { line, .. } => *line,
            StackError::Yaml { source, .. } => Some(source.line),
            _ => None,
        }
    }
}

/// Build the PillarStack pillar for one minion.
///
/// `pillar` is the pillar compiled so far (the templates' `pillar`, and what
/// `pillar:` selectors look into); `conf` is the value under `stack:`;
/// `pillarenv` is the configured pillarenv (`__opts__['pillarenv']`; when
/// `None`, `minion.opts['pillarenv']` is used). `__env__` in a selector
/// stands for `pillarenv or opts['saltenv'] or 'base'`. Returns the stack (a
/// map) for the caller to merge into the pillar.
pub fn ext_pillar(
    minion: &MinionData,
    opts: &Value,
    pillar: &Value,
    conf: &Value,
    pillarenv: Option<&str>,
) -> Result<Value, StackError> {
    let opts_pillarenv: Option<String> = pillarenv
        .map(str::to_string)
        .or_else(|| opt_str(opts, "pillarenv"));
    let env = opts_pillarenv
        .clone()
        .filter(|s| !s.is_empty())
        .or_else(|| opt_str(opts, "saltenv").filter(|s| !s.is_empty()))
        .unwrap_or_else(|| "base".to_string());
    let sources = config::Sources {
        pillar,
        grains: &minion.grains,
        opts,
    };
    let cfgs = config::config_files(conf, &sources, &env)
        .map_err(|source| StackError::Config { source })?;

    let renderer = Renderer::new(minion, opts, pillar, opts_pillarenv);
    let mut stack = Map::default();
    for cfg in cfgs {
        let path = match cfg {
            Value::Str(s) => s,
            // Python would take a number for a file descriptor; it is never
            // a stack config.
            Value::Int(_) | Value::Bool(_) => {
                tracing::warn!(
                    "Ignoring pillar stack cfg {}: not a path",
                    cfg.to_python_repr()
                );
                continue;
            }
            other => {
                return Err(StackError::Config {
                    source: ConfigError::NotAPath {
                        type_name: other.type_name(),
                    },
                })
            }
        };
        if path.contains('\0') || !crate::inputs::is_file(Path::new(&path)) {
            tracing::warn!("Ignoring pillar stack cfg \"{path}\": file does not exist");
            continue;
        }
        process_cfg(&path, &mut stack, &renderer)?;
    }
    Ok(Value::Map(stack))
}

fn opt_str(opts: &Value, key: &str) -> Option<String> {
    opts.get(key).and_then(Value::as_str).map(str::to_string)
}

/// Render one stack config file and stack every file it lists.
fn process_cfg(cfg: &str, stack: &mut Map, r: &Renderer) -> Result<(), StackError> {
    let (basedir, _) = pypath::split(cfg);
    let source = read_text(cfg).map_err(|source| StackError::ConfigRead {
        path: cfg.to_string(),
        source,
    })?;
    let rendered = r
        .render(cfg, &source, stack, basedir, cfg, None)
        .map_err(|source| StackError::ConfigRender {
            path: cfg.to_string(),
            source,
        })?;
    let (items, is_list) = parse_stack_cfg(&rendered);
    // The files to stack, in order; an entry that is not a path is an
    // error when the in-order pass reaches it.
    let mut entries: Vec<Result<String, StackError>> = Vec::new();
    for (n, item) in items.iter().enumerate() {
        let line = n + 1;
        let Value::Str(item) = item else {
            entries.push(Err(StackError::ConfigEntry {
                path: cfg.to_string(),
                line,
                type_name: item.type_name(),
            }));
            break;
        };
        if pypath::is_blank(item) {
            continue;
        }
        let mut paths = pypath::glob(&pypath::join(basedir, item));
        if paths.is_empty() {
            // Salt skips these silently (info log); a typo here silently
            // drops data, so say where it is.
            let place = if is_list { "item" } else { "line" };
            tracing::warn!(
                "Ignoring pillar stack template \"{item}\" ({place} {line} of rendered {cfg}): \
                 no file matches from root dir \"{basedir}\""
            );
            continue;
        }
        paths.sort();
        entries.extend(paths.into_iter().map(Ok));
    }
    let mut ahead = render_ahead(&entries, basedir, cfg, r);
    for (i, entry) in entries.into_iter().enumerate() {
        let path = entry?;
        let doc = match ahead.get_mut(i).and_then(Option::take) {
            Some(done) => done?,
            None => load_file(&path, basedir, cfg, stack, r)?,
        };
        if let Some(doc) = doc {
            merge::merge_dict(stack, doc).map_err(|source| StackError::Merge {
                path: path.to_string(),
                source,
            })?;
        }
    }
    Ok(())
}

/// Files stacked together before it renders ahead, on all cores.
const AHEAD_MIN: usize = 16;

/// Load ahead, on all cores, the stacked files whose text cannot see the
/// stack (they do not name `stack` and include nothing): what they render
/// to does not depend on the files merged before them, so the in-order
/// pass gets what loading each in turn gives. By index into `entries`;
/// `None` where the in-order pass loads the file itself.
fn render_ahead(
    entries: &[Result<String, StackError>],
    basedir: &str,
    cfg: &str,
    r: &Renderer,
) -> Vec<Option<Result<Option<Map>, StackError>>> {
    let workers = crate::render::cores().min(entries.len() / AHEAD_MIN);
    if workers < 2 {
        return Vec::new();
    }
    let mut ahead: Vec<Option<_>> = (0..entries.len()).map(|_| None).collect();
    let done = crate::render::on_threads(workers, entries, |entry| {
        let path = entry.as_ref().ok()?;
        let source = match read_stacked(path, basedir) {
            Ok(source) => source,
            Err(e) => return Some(Err(e)),
        };
        if sees_stack(&source) {
            return None;
        }
        Some(render_parse(
            path,
            &source,
            &Map::default(),
            basedir,
            cfg,
            r,
        ))
    });
    for (i, loaded) in done {
        ahead[i] = Some(loaded);
    }
    ahead
}

/// The entries of a rendered stack config: the items when it loads as a
/// YAML list, else its lines (with their spaces: `" a.yml"` is not
/// `"a.yml"`, as in Salt).
fn parse_stack_cfg(rendered: &str) -> (Vec<Value>, bool) {
    if let Ok(Value::List(items)) = yaml::load(rendered) {
        return (items, true);
    }
    let lines = pypath::splitlines(rendered)
        .into_iter()
        .map(|l| Value::Str(l.to_string()))
        .collect();
    (lines, false)
}

/// Find and read one stacked file's text. `path` is the glob match; Salt loads it as a template of
/// the config's directory, so a match outside that directory (`../x.yml`)
/// is an error there too.
fn read_stacked(path: &str, basedir: &str) -> Result<String, StackError> {
    let render_err = |message: String| StackError::Render {
        path: path.to_string(),
        message,
        line: None,
    };
    let name = pypath::relpath(path, basedir);
    let mut filename = basedir.to_string();
    for piece in name.split('/') {
        if piece == ".." {
            return Err(render_err(name.clone()));
        }
        if !piece.is_empty() && piece != "." {
            filename = pypath::join(&filename, piece);
        }
    }
    if !crate::inputs::is_file(Path::new(&filename)) {
        return Err(render_err(format!(
            "{} not found in search path: {}",
            python_str_repr(&name),
            python_str_repr(basedir)
        )));
    }
    read_text(&filename).map_err(|e| render_err(e.to_string()))
}

/// Load one stacked file with the stack so far: its mapping, or `None`
/// when it holds something else (stack.py stacks only mappings).
fn load_file(
    path: &str,
    basedir: &str,
    cfg: &str,
    stack: &Map,
    r: &Renderer,
) -> Result<Option<Map>, StackError> {
    let source = read_stacked(path, basedir)?;
    render_parse(path, &source, stack, basedir, cfg, r)
}

/// Render and parse the text of stacked file `path`.
fn render_parse(
    path: &str,
    source: &str,
    stack: &Map,
    basedir: &str,
    cfg: &str,
    r: &Renderer,
) -> Result<Option<Map>, StackError> {
    let rendered = r
        .render(path, source, stack, basedir, cfg, Some(path))
        .map_err(|e| StackError::Render {
            path: path.to_string(),
            message: e.to_string(),
            line: e.line,
        })?;
    let doc = yaml::load(&rendered).map_err(|source| StackError::Yaml {
        path: path.to_string(),
        source: Box::new(source),
        rendered: rendered.clone(),
    })?;
    Ok(match doc {
        Value::Map(doc) => Some(doc),
        _ => None,
    })
}

/// Why a file could not be read as text, in Python's words.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    /// An OS error: `[Errno 2] No such file or directory: '/x'`.
    #[error("[Errno {code}] {what}: {}", python_str_repr(path))]
    Os {
        path: String,
        code: i32,
        what: String,
    },
    #[error("{source}")]
    Io {
        path: String,
        source: std::io::Error,
    },
    /// Not UTF-8: the first bad byte and where it is.
    #[error("'utf-8' codec can't decode byte 0x{byte:02x} in position {position}: {reason}")]
    Utf8 {
        path: String,
        byte: u8,
        position: usize,
        reason: &'static str,
    },
}

/// Read a file as UTF-8, with Python's wording for failures.
fn read_text(path: &str) -> Result<String, ReadError> {
    let bytes = crate::file_text::read(Path::new(path)).map_err(|e| match e.raw_os_error() {
        Some(code) => {
            let text = e.to_string();
            let what = text
                .strip_suffix(&format!(" (os error {code})"))
                .unwrap_or(&text)
                .to_string();
            ReadError::Os {
                path: path.to_string(),
                code,
                what,
            }
        }
        None => ReadError::Io {
            path: path.to_string(),
            source: e,
        },
    })?;
    String::from_utf8(bytes.to_vec()).map_err(|e| {
        let err = e.utf8_error();
        let position = err.valid_up_to();
        let byte = e.as_bytes().get(position).copied().unwrap_or(0);
        let reason = match err.error_len() {
            None => "unexpected end of data",
            Some(_) if (0x80..0xc2).contains(&byte) || byte > 0xf4 => "invalid start byte",
            Some(_) => "invalid continuation byte",
        };
        ReadError::Utf8 {
            path: path.to_string(),
            byte,
            position,
            reason,
        }
    })
}

/// Renders stack configs and stacked files with stack.py's Jinja globals:
/// `pillar`, `minion_id`, `__opts__`, `__grains__`, `__salt__`,
/// `__stack__` (`cfg_path`; its `traverse` function is not provided),
/// `pillarenv` (`__opts__['pillarenv']`, may be `None`), plus `stack` and,
/// for stacked files, `ymlpath`. Like stack.py's plain Jinja environment:
/// undefined names render empty, Salt's `jinja_env` options do not apply,
/// and `{% include %}` names are relative to the config's directory.
/// (The shared renderer also defines `grains`, `opts`, `salt`... which
/// stack.py does not; templates that work in Salt give the same text.)
struct Renderer {
    /// Shared by every render (the renderer converts it once): `pillar` is
    /// the pillar given to ext_pillar; opts are adjusted for stack.py's
    /// Jinja environment.
    minion: Arc<MinionData>,
    /// The real opts, for `__opts__`.
    opts: Value,
    saltenv: String,
    pillarenv: Option<String>,
}

impl Renderer {
    fn new(
        minion: &MinionData,
        opts: &Value,
        pillar: &Value,
        pillarenv: Option<String>,
    ) -> Renderer {
        let saltenv = opt_str(opts, "saltenv").unwrap_or_else(|| "base".to_string());
        let mut env_opts = opts.clone();
        if let Value::Map(m) = &mut env_opts {
            // stack.py builds a bare `jinja2.Environment`: lenient undefined
            // and none of Salt's jinja settings.
            for key in [
                "jinja_env",
                "jinja_sls_env",
                "jinja_trim_blocks",
                "jinja_lstrip_blocks",
            ] {
                m.shift_remove(key);
            }
            m.insert("allow_undefined".into(), Value::Bool(true));
        }
        Renderer {
            minion: Arc::new(MinionData {
                id: minion.id.clone(),
                grains: minion.grains.clone(),
                pillar: pillar.clone(),
                opts: env_opts,
                functions: minion.functions.clone(),
            }),
            opts: opts.clone(),
            saltenv,
            pillarenv,
        }
    }

    /// Render one file. `basedir` is the stack config's directory.
    fn render(
        &self,
        name: &str,
        source: &str,
        stack: &Map,
        basedir: &str,
        cfg_path: &str,
        ymlpath: Option<&str>,
    ) -> Result<String, JinjaError> {
        // Without a delimiter Jinja gives the text back with `\n` newlines,
        // less the final one: skip the engine.
        if !(source.contains("{{") || source.contains("{%") || source.contains("{#")) {
            let text = if source.contains('\r') {
                source.replace("\r\n", "\n").replace('\r', "\n")
            } else {
                source.to_string()
            };
            let text = text.strip_suffix('\n').unwrap_or(&text);
            return Ok(text.to_string());
        }
        // Copying the stack (and opts, grains) into every template would
        // make a long stack quadratic: give each template only the
        // variables it names. A template that includes or imports another
        // gets them all, as the other one may use any.
        let all = includes_others(source);
        let wants = |var: &str| all || mentions(source, var);
        let mut extra: Vec<(String, Value)> = vec![(
            "pillarenv".into(),
            self.pillarenv
                .clone()
                .map(Value::Str)
                .unwrap_or(Value::Null),
        )];
        if wants("stack") {
            extra.push(("stack".into(), Value::Map(stack.clone())));
        }
        if wants("minion_id") {
            extra.push(("minion_id".into(), Value::Str(self.minion.id.clone())));
        }
        if wants("__opts__") {
            extra.push(("__opts__".into(), self.opts.clone()));
        }
        if wants("__grains__") {
            extra.push(("__grains__".into(), self.minion.grains.clone()));
        }
        if wants("__stack__") {
            let mut m = Map::default();
            m.insert("cfg_path".into(), Value::Str(cfg_path.to_string()));
            extra.push(("__stack__".into(), Value::Map(m)));
        }
        if let Some(p) = ymlpath {
            extra.push(("ymlpath".into(), Value::Str(p.to_string())));
        }
        // `__salt__` is the renderer's `salt` under another name; binding
        // it on the first line keeps line numbers.
        let aliased;
        let source = if wants("__salt__") {
            aliased = format!("{{% set __salt__ = salt %}}{source}");
            aliased.as_str()
        } else {
            source
        };
        let ctx = TemplateContext {
            minion: Arc::clone(&self.minion),
            saltenv: self.saltenv.clone(),
            pillarenv: self.pillarenv.clone(),
            sls: None,
            tplpath: None,
            fetch: None,
            search_paths: vec![PathBuf::from(basedir)],
            extra,
        };
        let mut out = jinja::render(name, source, &ctx)?;
        // The shared renderer puts back the final newline Jinja drops, as
        // Salt's renderer does; stack.py uses plain Jinja, which does not
        // (it shows in YAML error messages).
        if source.ends_with('\n') && out.ends_with('\n') {
            out.pop();
        }
        Ok(out)
    }
}

/// Whether a template may pull in another, which may use any variable.
fn includes_others(source: &str) -> bool {
    ["include", "import", "extends"]
        .iter()
        .any(|w| source.contains(w))
}

/// Whether a stacked file's render can depend on the stack so far (the
/// renderer gives `stack` only to such templates).
fn sees_stack(source: &str) -> bool {
    includes_others(source) || mentions(source, "stack")
}

/// Does `source` hold `name` as a whole identifier?
fn mentions(source: &str, name: &str) -> bool {
    let ident = |c: char| c.is_alphanumeric() || c == '_';
    source.match_indices(name).any(|(i, _)| {
        let before = source[..i].chars().next_back();
        let after = source[i + name.len()..].chars().next();
        !before.is_some_and(ident) && !after.is_some_and(ident)
    })
}

#[cfg(test)]
mod tests;
