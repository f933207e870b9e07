//! Salt's `cp` module, the part templates call: what the file server
//! holds.

use super::params::Params;
use super::{CallError, Ctx, Function};
use brine_compile::minion_data::functions::Returned;
use brine_compile::opts;
use brine_core::Value;
use std::collections::BTreeSet;
use std::path::Path;

/// Bound on the folders listed, so a huge or looping tree cannot hold a
/// render forever.
const MAX_DIRS: usize = 100_000;

pub(super) const FUNCTIONS: &[Function] = &[Function::reads(
    "list_master_dirs",
    "The folders the file server holds in SALTENV (default base), as paths \
relative to the file roots, sorted; only those starting with PREFIX.\n\n    \
brine-call cp.list_master_dirs prefix=users/files",
    list_master_dirs,
)];

fn list_master_dirs<'c>(cx: &Ctx<'c>, mut p: Params) -> Result<Returned<'c>, CallError> {
    let saltenv = p
        .take("saltenv")
        .filter(|v| !v.is_null())
        .map_or_else(|| "base".to_string(), |v| v.to_python_str());
    let prefix = p
        .take("prefix")
        .map(|v| v.to_python_str())
        .unwrap_or_default();
    p.finish()?;
    let prefix = prefix.trim_matches('/');
    let roots = opts::roots(cx.opts, "file_roots");
    let mut dirs = BTreeSet::new();
    for root in roots.get(&saltenv).into_iter().flatten() {
        walk(root, root, &mut dirs);
    }
    Ok(Returned::New(Value::List(
        dirs.into_iter()
            .filter(|d| d.starts_with(prefix))
            .map(Value::Str)
            .collect(),
    )))
}

/// Every folder under `dir` (links followed, as Salt's walk does; a
/// folder is not entered twice), relative to `root`.
fn walk(root: &Path, dir: &Path, out: &mut BTreeSet<String>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        if out.len() >= MAX_DIRS {
            return;
        }
        let path = entry.path();
        if !path.is_dir() {
            continue;
        }
        let Ok(rel) = path.strip_prefix(root) else {
            continue;
        };
        if out.insert(rel.to_string_lossy().into_owned()) {
            walk(root, &path, out);
        }
    }
}
