//! Compiled templates kept across renders. The master renders the same SLS
//! files for every minion of a fleet; lexing, parsing and compiling each
//! template again (and building its environment) was a twentieth of its
//! profile under a fleet highstate. A kept template is used while its text,
//! and the text of every template it imported, is what it was when it was
//! compiled: the imports are read again (through [`crate::file_text`], a
//! `stat` when unchanged) and compared, as the top template's text is.
//!
//! Off unless the process asks for it ([`keep_compiled_templates`]):
//! `brine-call` renders each file once or twice, and the kept environments
//! would only add to its peak memory.

use super::environment::{
    environment_with, read_template, rewrite, JinjaError, Loaded, Settings, SlsVars,
};
use super::environment::{jinja_error, TemplateContext};
use minijinja::Environment;
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

/// Environments kept at most, and template text kept at most (all
/// together); past either the table starts over.
const MAX_KEPT: usize = 4096;
const MAX_BYTES: usize = 64 << 20;
/// Larger templates are compiled for each render.
const MAX_SOURCE: usize = 1 << 20;

static ENABLED: AtomicBool = AtomicBool::new(false);

/// Keep compiled templates from now on (the master calls this at start).
pub fn keep_compiled_templates(on: bool) {
    ENABLED.store(on, Ordering::Relaxed);
    if !on {
        *table() = Table::default();
    }
}

pub(super) fn enabled() -> bool {
    ENABLED.load(Ordering::Relaxed)
}

/// What an environment is built from, besides the template's text.
#[derive(Clone, PartialEq, Eq, Hash)]
struct Key {
    name: String,
    roots: Vec<PathBuf>,
    top_dir: String,
    settings: Settings,
}

struct Kept {
    source: String,
    env: Arc<Environment<'static>>,
    loaded: Loaded,
}

impl Kept {
    /// Its templates, found in `roots` (its key's), still read as when
    /// they were compiled.
    fn current(&self, source: &str, roots: &[PathBuf]) -> bool {
        if self.source != source {
            return false;
        }
        let Ok(loaded) = self.loaded.lock() else {
            return false;
        };
        loaded
            .iter()
            .all(|(name, raw)| matches!(read_template(roots, name), Ok(Some(now)) if now == *raw))
    }
}

#[derive(Default)]
struct Table {
    kept: HashMap<Key, Arc<Kept>>,
    bytes: usize,
}

fn table() -> std::sync::MutexGuard<'static, Table> {
    static TABLE: OnceLock<Mutex<Table>> = OnceLock::new();
    crate::file_text::process_table(&TABLE)
}

/// An environment holding `source` compiled as `name`, kept or new.
pub(super) fn environment(
    name: &str,
    source: &str,
    ctx: &TemplateContext,
    vars: &SlsVars,
    settings: Settings,
) -> Result<Arc<Environment<'static>>, JinjaError> {
    let key = Key {
        name: name.to_string(),
        roots: ctx.search_paths.clone(),
        top_dir: vars.tpldir().to_string(),
        settings,
    };
    let found = table().kept.get(&key).cloned();
    if let Some(kept) = found {
        if kept.current(source, &key.roots) {
            return Ok(kept.env.clone());
        }
    }
    let source_ext = rewrite(name, source)?;
    let loaded = Loaded::default();
    let mut env = environment_with(
        settings,
        key.roots.clone(),
        None,
        name,
        &key.top_dir,
        Some(loaded.clone()),
    );
    env.add_template_owned(name.to_string(), source_ext.into_owned())
        .map_err(|e| jinja_error(name, &e, None))?;
    let env = Arc::new(env);
    if source.len() <= MAX_SOURCE {
        let kept = Arc::new(Kept {
            source: source.to_string(),
            env: env.clone(),
            loaded,
        });
        let mut t = table();
        if t.kept.len() >= MAX_KEPT || t.bytes.saturating_add(source.len()) > MAX_BYTES {
            *t = Table::default();
        }
        t.bytes = t.bytes.saturating_add(source.len());
        if let Some(old) = t.kept.insert(key, kept) {
            t.bytes = t.bytes.saturating_sub(old.source.len());
        }
    }
    Ok(env)
}
