//! git_pillar: `ext_pillar: [{git: [...]}]` with Salt 3007's syntax —
//! `BRANCH URL` (or `__env__ URL`), per remote `env`, `root`, `mountpoint`,
//! `name`, `base` (with `__env__` only), `all_saltenvs` — fetched by the
//! host's git off the request path (the master before it serves, every
//! `git_pillar_update_interval`, `brine-run git_pillar.update`; a
//! masterless minion before each pillar compile, as Salt's does). Each
//! remote's served refs (its branch; every branch and tag for `__env__`)
//! are exported once into folders, and a manifest the compile's `git`
//! ext_pillar reads is written atomically
//! (`crate::pillar::git`). A remote that fails keeps its last
//! good trees, with one log line.

use super::git;
use crate::opts;
use crate::pillar::git::{Remote, MANIFEST_OPTION};
use brine_core::{Map, Value};
use std::path::{Path, PathBuf};

/// Salt's default `git_pillar_update_interval` (seconds).
pub const DEFAULT_UPDATE_INTERVAL: u64 = 60;

/// The per-remote parameters Salt's git_pillar accepts.
const VALID: &[&str] = &[
    "base",
    "env",
    "root",
    "ssl_verify",
    "refspecs",
    "fallback",
    "name",
    "mountpoint",
    "all_saltenvs",
];

/// Accepted as well, though Salt's message does not list them: the ssh
/// and https credentials of a remote.
const CREDENTIALS: &[&str] = &[
    "privkey",
    "pubkey",
    "passphrase",
    "user",
    "password",
    "insecure_auth",
];

/// Why git_pillar cannot be configured or updated (Salt's words).
#[derive(Debug, thiserror::Error)]
pub enum GitPillarError {
    #[error("{0}")]
    Config(String),
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("Specified remote(s) cannot be found")]
    NoMatch,
}

/// One configured remote.
#[derive(Debug, Clone)]
struct Configured {
    remote: Remote,
    url: String,
    root: String,
    mountpoint: String,
    name: Option<String>,
    git: git::Git,
}

/// The configured git_pillar.
#[derive(Debug, Clone)]
pub struct GitPillar {
    remotes: Vec<Configured>,
    dir: PathBuf,
}

/// Where the manifest lives.
pub fn manifest_path(cachedir: &Path) -> PathBuf {
    cachedir.join("git_pillar").join("brine_remotes.json")
}

/// The `git:` entries of `ext_pillar`, in order.
fn git_entries(o: &Map) -> Vec<Value> {
    let Some(Value::List(l)) = o.get("ext_pillar") else {
        return Vec::new();
    };
    l.iter()
        .filter_map(Value::as_map)
        .filter_map(|m| m.get("git"))
        .flat_map(|v| v.as_list().map(<[Value]>::to_vec).unwrap_or_default())
        .collect()
}

/// Whether `opts` configure git_pillar.
pub fn enabled(o: &Map) -> bool {
    !git_entries(o).is_empty()
}

impl GitPillar {
    /// git_pillar as `o` configure it, kept under `cachedir`; a bad
    /// remote is Salt's CRITICAL message.
    pub fn from_opts(o: &Map, cachedir: &Path) -> Result<GitPillar, GitPillarError> {
        let base = opts::get_str(o, "git_pillar_base")
            .unwrap_or("master")
            .to_string();
        let default_branch = opts::get_str(o, "git_pillar_branch")
            .unwrap_or("master")
            .to_string();
        let global_root = opts::get_str(o, "git_pillar_root")
            .unwrap_or("")
            .trim_matches('/')
            .to_string();
        let mut remotes = Vec::new();
        for entry in git_entries(o) {
            let (id, params): (String, Vec<(String, Value)>) = match &entry {
                Value::Str(s) => (s.clone(), Vec::new()),
                Value::Map(m) if m.len() == 1 => {
                    let (k, v) = m
                        .iter()
                        .next()
                        .map(|(k, v)| (k.clone(), v.clone()))
                        .unwrap_or_default();
                    let params = match v {
                        Value::List(l) => l
                            .iter()
                            .filter_map(Value::as_map)
                            .flat_map(|m| m.iter().map(|(k, v)| (k.clone(), v.clone())))
                            .collect(),
                        _ => Vec::new(),
                    };
                    (k, params)
                }
                other => {
                    return Err(GitPillarError::Config(format!(
                        "Invalid git_pillar remote {}",
                        other.to_python_repr()
                    )))
                }
            };
            let id = id.trim().to_string();
            let mut words = id.split_whitespace();
            let (branch, url) = match (words.next(), words.next()) {
                (Some(b), Some(u)) => (b.to_string(), u.to_string()),
                (Some(u), None) => (default_branch.clone(), u.to_string()),
                _ => {
                    return Err(GitPillarError::Config(
                        "Invalid git_pillar remote ''".into(),
                    ))
                }
            };
            let mut c = Configured {
                remote: Remote {
                    id: id.clone(),
                    branch: branch.clone(),
                    env: None,
                    base: base.clone(),
                    all_saltenvs: None,
                    mounted: false,
                    trees: Default::default(),
                },
                url,
                root: global_root.clone(),
                mountpoint: String::new(),
                name: None,
                git: git::Git::of(o, "git_pillar"),
            };
            for (k, v) in params {
                if !VALID.contains(&k.as_str()) && !CREDENTIALS.contains(&k.as_str()) {
                    return Err(GitPillarError::Config(format!(
                        "Invalid git_pillar configuration parameter '{k}' in remote '{id}'. \
Valid parameters are: {}.",
                        VALID.join(", ")
                    )));
                }
                let text = v.to_python_str();
                match k.as_str() {
                    "base" if branch != "__env__" => {
                        return Err(GitPillarError::Config(format!(
                            "Invalid per-remote configuration for git_pillar remote '{id}'. \
base can only be specified if __env__ is specified as the branch name."
                        )))
                    }
                    "base" => c.remote.base = text,
                    "env" => c.remote.env = Some(text),
                    "root" => c.root = text.trim_matches('/').to_string(),
                    "mountpoint" => c.mountpoint = super::gitfs::mountpoint(&text),
                    "name" => c.name = Some(text),
                    "all_saltenvs" => c.remote.all_saltenvs = Some(text),
                    key => {
                        c.git.set(key, &v);
                    }
                }
            }
            c.remote.mounted = !c.mountpoint.is_empty();
            remotes.push(c);
        }
        Ok(GitPillar {
            remotes,
            dir: cachedir.join("git_pillar"),
        })
    }

    /// Fetch the remotes `branch` and `repo` (a name or url) select (all
    /// by default) and export what they serve; the manifest rewritten.
    /// Each remote's answer: True when it fetched something new, None
    /// when not, False when it failed.
    pub fn update(
        &self,
        branch: Option<&str>,
        repo: Option<&str>,
    ) -> Result<Vec<(String, Value)>, GitPillarError> {
        let io = |path: &Path| {
            let path = path.to_path_buf();
            move |source| GitPillarError::Io { path, source }
        };
        let trees = self.dir.join("trees");
        std::fs::create_dir_all(&trees).map_err(io(&trees))?;
        let manifest = manifest_path(self.dir.parent().unwrap_or(&self.dir));
        let previous = crate::pillar::git::read(&manifest).unwrap_or_default();
        let selected = |c: &Configured| {
            branch.is_none_or(|b| c.remote.branch == b)
                && repo.is_none_or(|r| c.name.as_deref() == Some(r) || c.url == r)
        };
        if !self.remotes.iter().any(selected) {
            return Err(GitPillarError::NoMatch);
        }
        let mut answers = Vec::new();
        let mut out = Vec::new();
        for c in &self.remotes {
            let kept = previous.iter().find(|p| p.id == c.remote.id).cloned();
            if !selected(c) {
                out.push(kept.unwrap_or_else(|| c.remote.clone()));
                continue;
            }
            match self.fetch(c, &trees) {
                Ok((changed, r)) => {
                    answers.push((
                        c.remote.id.clone(),
                        if changed {
                            Value::Bool(true)
                        } else {
                            Value::Null
                        },
                    ));
                    out.push(r);
                }
                Err(e) => {
                    tracing::error!(
                        "git_pillar remote {}: {e}; serving what its last update fetched",
                        c.remote.id
                    );
                    answers.push((c.remote.id.clone(), Value::Bool(false)));
                    out.push(kept.unwrap_or_else(|| c.remote.clone()));
                }
            }
        }
        let text = serde_json::to_string_pretty(&out).map_err(|e| GitPillarError::Io {
            path: manifest.clone(),
            source: e.into(),
        })?;
        crate::gitfs_trees::write_if_changed(&manifest, &text).map_err(io(&manifest))?;
        let keep: Vec<PathBuf> = out
            .iter()
            .chain(previous.iter())
            .flat_map(|r| r.trees.values().cloned())
            .collect();
        if let Ok(rd) = std::fs::read_dir(&trees) {
            for e in rd.flatten() {
                if !keep.contains(&e.path()) {
                    let _ = std::fs::remove_dir_all(e.path());
                }
            }
        }
        Ok(answers)
    }

    /// One remote synced and exported: whether it changed, and its
    /// manifest entry.
    fn fetch(&self, c: &Configured, trees: &Path) -> Result<(bool, Remote), git::GitError> {
        let mirror = git::mirror_dir(&self.dir, &c.remote.id);
        let fresh = !mirror.join("HEAD").is_file();
        let changed = c.git.sync(&c.url, &mirror)? && !fresh;
        let refs = c.git.refs(&mirror)?;
        let mut r = c.remote.clone();
        r.trees.clear();
        for rf in &refs {
            let wanted = if c.remote.branch == "__env__" {
                true
            } else {
                !rf.is_tag && rf.name == c.remote.branch
            };
            if !wanted || r.trees.contains_key(&rf.name) {
                continue;
            }
            let dest = git::exported(
                &c.git,
                &mirror,
                trees,
                &c.remote.id,
                &rf.commit,
                &c.root,
                &c.mountpoint,
            )?;
            r.trees.insert(rf.name.clone(), dest);
        }
        Ok((changed, r))
    }
}

/// The master's options with the manifest named, when git_pillar is on.
pub fn name_manifest(o: &mut Map, cachedir: &Path) {
    if enabled(o) {
        o.insert(
            MANIFEST_OPTION.into(),
            Value::Str(manifest_path(cachedir).display().to_string()),
        );
    }
}

/// A masterless minion's git_pillar (`o` its options): the remotes
/// fetched now, as Salt's minion fetches them at each compile without a
/// master, under its `cachedir`, and the manifest named in `o`. A remote
/// that fails keeps its last trees (one log line each); a configuration
/// Salt refuses is logged, and the compile then finds no trees.
pub fn fetch_for_local(o: &mut Map) {
    if !enabled(o) || o.contains_key(MANIFEST_OPTION) {
        return;
    }
    let cachedir = opts::cachedir(o);
    if let Err(e) = GitPillar::from_opts(o, &cachedir).and_then(|g| g.update(None, None)) {
        tracing::error!("{e}");
    }
    name_manifest(o, &cachedir);
}
