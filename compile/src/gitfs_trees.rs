//! The file server's backends as a compile sees them. `fileserver_backend`
//! lists `roots` (the configured `file_roots`) and `gitfs` in the order a
//! file is looked for. gitfs trees are exported to plain folders by an
//! update (`crate::git_remotes::gitfs`), which writes their manifest
//! (`__gitfs_trees`, a JSON file: each saltenv and its folders, one per
//! remote that has it, in remote order) atomically; a compile reads the
//! folders like any root, so a tree from git is served as fast as one
//! from disk. The manifest is read again only when it changed, and is an
//! input of every compile that served files from it.

use brine_core::{Map, Value};
use indexmap::IndexMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::SystemTime;

/// The option holding the manifest's path (set by the master's config).
pub const MANIFEST_OPTION: &str = "__gitfs_trees";

/// Saltenv → the folders serving it, in order.
pub type Envs = IndexMap<String, Vec<PathBuf>>;

/// The backends `opts` names, in order (`roots` when unset).
pub fn backends(opts: &Map) -> Vec<String> {
    match opts.get("fileserver_backend") {
        Some(v @ (Value::List(_) | Value::Str(_))) => brine_core::args::split_input(v),
        _ => vec!["roots".to_string()],
    }
}

/// `file_roots` as the backends serve it: for each backend in order, its
/// folders appended per saltenv. `only` keeps one backend (the
/// `fileserver` runners' `backend=`).
pub fn compose(opts: &Map, configured: Envs, only: Option<&str>) -> Envs {
    let names = backends(opts);
    if names.len() == 1 && names[0] == "roots" && only.is_none() {
        return configured;
    }
    let mut out = Envs::new();
    for name in names {
        if only.is_some_and(|o| o != name) {
            continue;
        }
        let add: Envs = match name.as_str() {
            "roots" => configured.clone(),
            "gitfs" => match opts.get(MANIFEST_OPTION).and_then(Value::as_str) {
                Some(path) => {
                    // An update that moves a saltenv to new trees is seen by
                    // the next compile, never replayed past.
                    let path = Path::new(path);
                    let meta = std::fs::metadata(path).ok();
                    crate::inputs::note(path, meta.as_ref().map(crate::inputs::Stamp::of));
                    (*read(path)).clone()
                }
                None => Envs::new(),
            },
            other => {
                tracing::debug!("fileserver_backend {other}: not a backend brine has");
                Envs::new()
            }
        };
        for (env, dirs) in add {
            out.entry(env).or_default().extend(dirs);
        }
    }
    out
}

/// The manifest at `path`, read again when its mtime or size changed; an
/// unreadable one serves nothing (the update logs why).
fn read(path: &Path) -> Arc<Envs> {
    type Seen = Option<(PathBuf, SystemTime, u64, Arc<Envs>)>;
    static LAST: Mutex<Seen> = Mutex::new(None);
    let meta = std::fs::metadata(path).ok();
    let stamp = meta
        .as_ref()
        .map(|m| (m.modified().unwrap_or(SystemTime::UNIX_EPOCH), m.len()));
    let mut last = LAST.lock().unwrap_or_else(|e| e.into_inner());
    if let (Some((p, t, l, envs)), Some((mt, len))) = (last.as_ref(), stamp) {
        if p == path && *t == mt && *l == len {
            return envs.clone();
        }
    }
    let envs = Arc::new(parse(path));
    if let Some((mt, len)) = stamp {
        *last = Some((path.to_path_buf(), mt, len, envs.clone()));
    }
    envs
}

fn parse(path: &Path) -> Envs {
    let Ok(text) = std::fs::read_to_string(path) else {
        return Envs::new();
    };
    let Ok(serde_json::Value::Object(m)) = serde_json::from_str::<serde_json::Value>(&text) else {
        tracing::error!(
            "{}: not a gitfs manifest; serving nothing from gitfs",
            path.display()
        );
        return Envs::new();
    };
    let mut out = Envs::new();
    for (env, dirs) in m {
        let dirs = dirs
            .as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|d| d.as_str())
                    .map(PathBuf::from)
                    .collect()
            })
            .unwrap_or_default();
        out.insert(env, dirs);
    }
    out
}

/// Write `envs` as the manifest at `path` (through a temporary file, so a
/// reader sees the old one or the new one).
pub fn write(path: &Path, envs: &Envs) -> std::io::Result<()> {
    let mut m = serde_json::Map::new();
    for (env, dirs) in envs {
        m.insert(
            env.clone(),
            serde_json::Value::Array(
                dirs.iter()
                    .map(|d| serde_json::Value::String(d.display().to_string()))
                    .collect(),
            ),
        );
    }
    let text = serde_json::to_string_pretty(&serde_json::Value::Object(m))?;
    write_if_changed(path, &text)
}

/// Write `text` at `path` through a temporary file, unless the file holds
/// it already: an update that changed nothing leaves the manifest's stamp
/// alone, so the compiles that read it stay replayable.
pub fn write_if_changed(path: &Path, text: &str) -> std::io::Result<()> {
    if std::fs::read_to_string(path).is_ok_and(|old| old == text) {
        return Ok(());
    }
    let tmp = path.with_extension("json.tmp");
    std::fs::write(&tmp, text)?;
    std::fs::rename(&tmp, path)
}
