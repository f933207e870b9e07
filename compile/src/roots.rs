//! `file_roots` / `pillar_roots`: an environment's directories, searched in
//! order, and the SLS names they hold (`a.b` is `a/b.sls` or `a/b/init.sls`).

use indexmap::IndexMap;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// A found SLS file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SlsFile {
    pub path: PathBuf,
    /// Whether it was `<name>/init.sls` (relative includes start one level
    /// deeper then).
    pub is_init: bool,
}

#[derive(Debug, Default)]
pub struct Roots {
    envs: IndexMap<String, Vec<PathBuf>>,
    /// `list_sls` results, computed on first use: walking a tree is the
    /// costly part and most compiles never need it.
    listed: Mutex<HashMap<String, std::sync::Arc<Vec<String>>>>,
    /// `fileserver_followsymlinks: False`: a file is found only where its
    /// real path stays in its root.
    within: bool,
}

impl Roots {
    pub fn new(envs: IndexMap<String, Vec<PathBuf>>) -> Roots {
        Roots {
            envs,
            listed: Mutex::default(),
            within: false,
        }
    }

    /// The roots of the file server under `opts`' `fileserver_followsymlinks`
    /// (Salt's default True: links are followed out of the roots).
    pub fn following_links(mut self, opts: &brine_core::Map) -> Roots {
        self.within = !crate::opts::get_bool(opts, "fileserver_followsymlinks", true);
        self
    }

    /// Environments as Salt enumerates them: `base` first, then the rest in
    /// configuration order.
    pub fn env_names(&self) -> Vec<String> {
        let mut out = vec!["base".to_string()];
        out.extend(self.envs.keys().filter(|e| *e != "base").cloned());
        out
    }

    /// Configured directories that cannot be read, each as a message naming
    /// the option, environment and path (Salt silently finds nothing there).
    pub fn unreadable(&self, option: &str) -> Vec<String> {
        let mut out = Vec::new();
        for (env, dirs) in &self.envs {
            for d in dirs {
                if let Err(e) = std::fs::read_dir(d) {
                    out.push(format!(
                        "{option}: environment '{env}': {}: {e}",
                        d.display()
                    ));
                }
            }
        }
        out
    }

    pub fn has_env(&self, env: &str) -> bool {
        self.envs.contains_key(env)
    }

    /// The directories of `env` (empty when the environment is not configured).
    pub fn dirs(&self, env: &str) -> &[PathBuf] {
        self.envs.get(env).map(Vec::as_slice).unwrap_or(&[])
    }

    /// A file by its path relative to the roots of `env` (first root
    /// wins). Under `fileserver_followsymlinks: False` a file whose real
    /// path (links resolved) leaves the root it was found in is passed
    /// over, as Salt's `clean_path` with `realpath` does.
    pub fn find_file(&self, env: &str, rel: &str) -> Option<PathBuf> {
        let rel = rel.trim_start_matches('/');
        if rel.split('/').any(|part| part == "..") {
            return None; // never leave the roots
        }
        self.dirs(env).iter().find_map(|d| {
            let p = d.join(rel);
            if !crate::inputs::is_file(&p) {
                return None;
            }
            if self.within {
                let real = std::fs::canonicalize(&p).ok()?;
                if !real.starts_with(std::fs::canonicalize(d).ok()?) {
                    return None;
                }
            }
            Some(p)
        })
    }

    /// An SLS by name: `a.b` → `a/b.sls`, else `a/b/init.sls`.
    pub fn find_sls(&self, env: &str, sls: &str) -> Option<SlsFile> {
        let rel = sls.replace('.', "/");
        if let Some(path) = self.find_file(env, &format!("{rel}.sls")) {
            return Some(SlsFile {
                path,
                is_init: false,
            });
        }
        self.find_file(env, &format!("{rel}/init.sls"))
            .map(|path| SlsFile {
                path,
                is_init: true,
            })
    }

    /// Every SLS name in `env`, sorted, as Salt's `list_states` gives them
    /// (`x/init.sls` is `x`, `top.sls` is `top`).
    pub fn list_sls(&self, env: &str) -> std::sync::Arc<Vec<String>> {
        if let Ok(cache) = self.listed.lock() {
            if let Some(hit) = cache.get(env) {
                return hit.clone();
            }
        }
        let mut names = std::collections::BTreeSet::new();
        for dir in self.dirs(env) {
            walk(dir, dir, &mut names);
        }
        let list = std::sync::Arc::new(names.into_iter().collect::<Vec<_>>());
        if let Ok(mut cache) = self.listed.lock() {
            cache.insert(env.to_string(), list.clone());
        }
        list
    }
}

fn walk(root: &Path, dir: &Path, out: &mut std::collections::BTreeSet<String>) {
    // A recording compile notes the folder: its stamp moves when an entry
    // is added or removed.
    if !crate::inputs::is_dir(dir) {
        return;
    }
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        // Follow symlinks, as Salt does (followlinks=True).
        if crate::inputs::is_dir(&path) {
            walk(root, &path, out);
        } else if let Some(rel) = path.strip_prefix(root).ok().and_then(Path::to_str) {
            if let Some(stem) = rel.strip_suffix("/init.sls") {
                out.insert(stem.replace('/', "."));
            } else if let Some(stem) = rel.strip_suffix(".sls") {
                out.insert(stem.replace('/', "."));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::matcher::glob::fnmatch_filter;

    fn tree() -> (tempfile::TempDir, Roots) {
        let t = tempfile::tempdir().unwrap();
        for f in [
            "top.sls",
            "a.sls",
            "b/init.sls",
            "b/c.sls",
            "d/e/f.sls",
            "x.txt",
        ] {
            let p = t.path().join(f);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(&p, "k: v\n").unwrap();
        }
        let mut envs = IndexMap::new();
        envs.insert("dev".to_string(), vec![t.path().to_path_buf()]);
        (t, Roots::new(envs))
    }

    #[test]
    fn finds_sls_and_init() {
        let (_t, r) = tree();
        assert!(!r.find_sls("dev", "a").unwrap().is_init);
        assert!(r.find_sls("dev", "b").unwrap().is_init);
        assert!(r.find_sls("dev", "d.e.f").is_some());
        assert!(r.find_sls("dev", "nope").is_none());
        assert!(r.find_sls("base", "a").is_none());
        assert!(r.find_file("dev", "../etc/passwd").is_none());
    }

    #[test]
    fn lists_like_salt() {
        let (_t, r) = tree();
        assert_eq!(*r.list_sls("dev"), ["a", "b", "b.c", "d.e.f", "top"]);
        assert_eq!(r.env_names(), ["base", "dev"]);
        assert_eq!(fnmatch_filter(&r.list_sls("dev"), "b*"), ["b", "b.c"]);
    }
}
