//! gitfs: `fileserver_backend: [gitfs]` serving `gitfs_remotes` as Salt
//! 3007's gitfs does — each remote's branches and tags as saltenvs (its
//! `base` branch, `gitfs_base` by default `master`, as `base`; a
//! `saltenv` mapping, per remote or global `gitfs_saltenv`, naming the
//! ref of a saltenv instead), `root` (the folder of the repository
//! served) and `mountpoint` (where it appears), per remote or global,
//! `gitfs_saltenv_whitelist` / `blacklist` hiding a saltenv's files.
//!
//! Updates run off the request path (the master at start and every
//! `gitfs_update_interval`, `brine-run fileserver.update`, and a
//! masterless minion once per process, as Salt's local file client does):
//! the host's `git` mirrors each remote under the cachedir ([`git`]), each
//! saltenv's commit is exported once into a folder of its own, and a
//! manifest naming each saltenv's folders is written atomically (read by
//! `crate::gitfs_trees` as more roots). A remote that fails or hangs keeps the
//! folders of its last good update, with one log line.

use super::git;
use crate::gitfs_trees::{self, Envs};
use crate::matcher::glob::fnmatch;
use crate::opts;
use brine_core::{Map, Value};
use indexmap::IndexMap;
use std::path::{Path, PathBuf};

/// Salt's default `gitfs_update_interval` (seconds).
pub const DEFAULT_UPDATE_INTERVAL: u64 = 60;

/// Why gitfs cannot be configured or updated.
#[derive(Debug, thiserror::Error)]
pub enum GitfsError {
    #[error("gitfs_remotes: {0}")]
    Config(String),
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
}

/// What a saltenv's mapping may say.
#[derive(Debug, Clone, Default)]
struct EnvConf {
    reference: Option<String>,
    root: Option<String>,
    mountpoint: Option<String>,
}

/// One remote and its options (per remote over global).
#[derive(Debug, Clone)]
struct Remote {
    url: String,
    root: String,
    mountpoint: String,
    base: String,
    saltenv: IndexMap<String, EnvConf>,
    disable_saltenv_mapping: bool,
    git: git::Git,
}

/// The configured gitfs.
#[derive(Debug, Clone)]
pub struct Gitfs {
    remotes: Vec<Remote>,
    global_saltenv: IndexMap<String, EnvConf>,
    whitelist: Vec<String>,
    blacklist: Vec<String>,
    dir: PathBuf,
}

/// Whether `opts` serve files from gitfs.
pub fn enabled(opts: &Map) -> bool {
    gitfs_trees::backends(opts).iter().any(|b| b == "gitfs")
}

/// Where the manifest of the exported trees lives.
pub fn manifest_path(cachedir: &Path) -> PathBuf {
    cachedir.join("gitfs").join("brine_trees.json")
}

/// `salt://a/b/` → `a/b` (a `mountpoint` of gitfs or git_pillar).
pub(crate) fn mountpoint(v: &str) -> String {
    v.trim_start_matches("salt://")
        .trim_matches('/')
        .to_string()
}

fn text(v: &Value) -> String {
    v.to_python_str()
}

/// A list of one-entry dicts (`[{root: x}, {base: y}]`) as pairs; a dict
/// as its pairs.
fn pairs(v: &Value) -> Vec<(String, Value)> {
    match v {
        Value::List(l) => l
            .iter()
            .filter_map(Value::as_map)
            .flat_map(|m| m.iter().map(|(k, v)| (k.clone(), v.clone())))
            .collect(),
        Value::Map(m) => m.iter().map(|(k, v)| (k.clone(), v.clone())).collect(),
        _ => Vec::new(),
    }
}

/// `[{env: [{ref: x}, {root: y}]}]` as env → its mapping.
fn saltenv_map(v: Option<&Value>) -> IndexMap<String, EnvConf> {
    let mut out = IndexMap::new();
    for (env, conf) in v.map(pairs).unwrap_or_default() {
        let mut c = EnvConf::default();
        for (k, v) in pairs(&conf) {
            match k.as_str() {
                "ref" => c.reference = Some(text(&v)),
                "root" => c.root = Some(text(&v).trim_matches('/').to_string()),
                "mountpoint" => c.mountpoint = Some(mountpoint(&text(&v))),
                _ => {}
            }
        }
        out.insert(env, c);
    }
    out
}

fn string_list(v: Option<&Value>) -> Vec<String> {
    match v {
        Some(v @ Value::List(_)) => brine_core::args::split_input(v),
        Some(v @ Value::Str(s)) if !s.is_empty() => brine_core::args::split_input(v),
        _ => Vec::new(),
    }
}

impl Gitfs {
    /// gitfs as `opts` configure it, its state kept under `cachedir`.
    pub fn from_opts(o: &Map, cachedir: &Path) -> Result<Gitfs, GitfsError> {
        let global = |k: &str| opts::get_str(o, k).unwrap_or_default().to_string();
        let global_root = global("gitfs_root").trim_matches('/').to_string();
        let global_mount = mountpoint(&global("gitfs_mountpoint"));
        let global_base = opts::get_str(o, "gitfs_base")
            .unwrap_or("master")
            .to_string();
        let global_disable = opts::get_bool(o, "gitfs_disable_saltenv_mapping", false);
        let mut remotes = Vec::new();
        let list = match o.get("gitfs_remotes") {
            Some(Value::List(l)) => l.clone(),
            None | Some(Value::Null) => Vec::new(),
            Some(other) => {
                return Err(GitfsError::Config(format!(
                    "a list of remotes, not a {}",
                    other.type_name()
                )))
            }
        };
        for entry in &list {
            let (url, per) = match entry {
                Value::Str(url) => (url.clone(), Vec::new()),
                Value::Map(m) if m.len() == 1 => {
                    let (url, conf) = m
                        .iter()
                        .next()
                        .map(|(k, v)| (k.clone(), v.clone()))
                        .unwrap_or_default();
                    (url, pairs(&conf))
                }
                other => {
                    return Err(GitfsError::Config(format!(
                        "each remote is a url or {{url: [options]}}, not {}",
                        other.to_python_repr()
                    )))
                }
            };
            let mut r = Remote {
                url: url.trim().to_string(),
                root: global_root.clone(),
                mountpoint: global_mount.clone(),
                base: global_base.clone(),
                saltenv: IndexMap::new(),
                disable_saltenv_mapping: global_disable,
                git: git::Git::of(o, "gitfs"),
            };
            for (k, v) in per {
                if r.git.set(&k, &v) {
                    continue;
                }
                match k.as_str() {
                    "root" => r.root = text(&v).trim_matches('/').to_string(),
                    "mountpoint" => r.mountpoint = mountpoint(&text(&v)),
                    "base" => r.base = text(&v),
                    "saltenv" => r.saltenv = saltenv_map(Some(&v)),
                    "disable_saltenv_mapping" => r.disable_saltenv_mapping = v.is_truthy(),
                    // Accepted as Salt's: they change nothing brine does.
                    "name" | "update_interval" | "refspecs" | "fallback" | "user" | "password"
                    | "insecure_auth" | "pubkey" | "passphrase" | "ref_types" => {}
                    other => tracing::warn!("gitfs remote {}: unknown option '{other}'", r.url),
                }
            }
            remotes.push(r);
        }
        Ok(Gitfs {
            remotes,
            global_saltenv: saltenv_map(o.get("gitfs_saltenv")),
            whitelist: string_list(o.get("gitfs_saltenv_whitelist")),
            blacklist: string_list(o.get("gitfs_saltenv_blacklist")),
            dir: cachedir.join("gitfs"),
        })
    }

    /// Salt's `check_whitelist_blacklist` (a glob or a whole-string regex).
    fn exposed(&self, env: &str) -> bool {
        let hit = |pat: &String| {
            fnmatch(env, pat)
                || regex::Regex::new(&format!(r"\A(?:{pat})\z")).is_ok_and(|r| r.is_match(env))
        };
        (self.whitelist.is_empty() || self.whitelist.iter().any(hit))
            && !self.blacklist.iter().any(hit)
    }

    /// Fetch every remote and export what its saltenvs serve; the
    /// manifest rewritten. A remote that fails keeps its last good trees.
    pub fn update(&self) -> Result<(), GitfsError> {
        let io = |path: &Path| {
            let path = path.to_path_buf();
            move |source| GitfsError::Io { path, source }
        };
        let trees = self.dir.join("trees");
        std::fs::create_dir_all(&trees).map_err(io(&trees))?;
        let state_path = self.dir.join("brine_remotes.json");
        let previous = read_state(&state_path);
        let mut state: IndexMap<String, IndexMap<String, Option<PathBuf>>> = IndexMap::new();
        for r in &self.remotes {
            let key = blake3::hash(r.url.as_bytes()).to_hex().to_string();
            let served = match self.remote_trees(r, &trees) {
                Ok(s) => s,
                Err(e) => {
                    tracing::error!(
                        "gitfs remote {}: {e}; serving what its last update fetched",
                        r.url
                    );
                    previous.get(&key).cloned().unwrap_or_default()
                }
            };
            state.insert(key, served);
        }
        let mut envs = Envs::new();
        for served in state.values() {
            for (env, dir) in served {
                let dirs = envs.entry(env.clone()).or_default();
                dirs.extend(dir.clone());
            }
        }
        write_state(&state_path, &state).map_err(io(&state_path))?;
        let manifest = manifest_path(self.dir.parent().unwrap_or(&self.dir));
        gitfs_trees::write(&manifest, &envs).map_err(io(&manifest))?;
        // Trees neither this update nor the last one serves are gone.
        let keep: Vec<PathBuf> = state
            .values()
            .chain(previous.values())
            .flat_map(|m| m.values().flatten().cloned())
            .collect();
        if let Ok(rd) = std::fs::read_dir(&trees) {
            for e in rd.flatten() {
                if !keep.contains(&e.path()) {
                    let _ = std::fs::remove_dir_all(e.path());
                }
            }
        }
        Ok(())
    }

    /// One remote fetched: each of its saltenvs and the folder serving it
    /// (None: the saltenv exists but its files are not exposed).
    fn remote_trees(
        &self,
        r: &Remote,
        trees: &Path,
    ) -> Result<IndexMap<String, Option<PathBuf>>, git::GitError> {
        let mirror = git::mirror_dir(&self.dir, &r.url);
        r.git.sync(&r.url, &mirror)?;
        let refs = r.git.refs(&mirror)?;
        // ref → the saltenvs mapped to it.
        let mut revmap: IndexMap<String, Vec<String>> = IndexMap::new();
        for (env, c) in r.saltenv.iter().chain(self.global_saltenv.iter()) {
            if let Some(reference) = &c.reference {
                let envs = revmap.entry(reference.clone()).or_default();
                if !envs.contains(env) {
                    envs.push(env.clone());
                }
            }
        }
        let mut envs: Vec<String> = Vec::new();
        let mut add = |e: String| {
            if !envs.contains(&e) {
                envs.push(e);
            }
        };
        if is_hex(&r.base) {
            add("base".into());
        }
        for rf in &refs {
            match revmap.get(&rf.name) {
                Some(mapped) => mapped.iter().cloned().for_each(&mut add),
                None if rf.name == r.base => add("base".into()),
                None if !r.disable_saltenv_mapping => add(rf.name.clone()),
                None => {}
            }
        }
        let mut out = IndexMap::new();
        for env in envs {
            if !self.exposed(&env) {
                out.insert(env, None);
                continue;
            }
            let conf = r
                .saltenv
                .get(&env)
                .or_else(|| self.global_saltenv.get(&env));
            let reference = conf.and_then(|c| c.reference.clone()).unwrap_or_else(|| {
                if env == "base" {
                    r.base.clone()
                } else {
                    env.clone()
                }
            });
            let commit = refs
                .iter()
                .find(|x| !x.is_tag && x.name == reference)
                .or_else(|| refs.iter().find(|x| x.is_tag && x.name == reference))
                .map(|x| x.commit.clone())
                .or_else(|| is_hex(&reference).then(|| reference.clone()));
            let Some(commit) = commit else {
                out.insert(env, None);
                continue;
            };
            let root = conf
                .and_then(|c| c.root.clone())
                .unwrap_or_else(|| r.root.clone());
            let mount = conf
                .and_then(|c| c.mountpoint.clone())
                .unwrap_or_else(|| r.mountpoint.clone());
            let dest = git::exported(&r.git, &mirror, trees, &r.url, &commit, &root, &mount)?;
            out.insert(env, Some(dest));
        }
        Ok(out)
    }
}

fn is_hex(s: &str) -> bool {
    s.len() >= 7 && s.chars().all(|c| c.is_ascii_hexdigit())
}

type State = IndexMap<String, IndexMap<String, Option<PathBuf>>>;

fn read_state(path: &Path) -> State {
    std::fs::read_to_string(path)
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or_default()
}

fn write_state(path: &Path, state: &State) -> std::io::Result<()> {
    gitfs_trees::write_if_changed(path, &serde_json::to_string(state)?)
}

/// A masterless minion's gitfs (`o` its options): the remotes fetched once
/// for this process, as Salt's local file client updates its file server
/// when it starts, under the minion's `cachedir`, and the manifest named
/// in `o` so its roots serve from it.
pub fn fetch_for_local(o: &mut Map) {
    if !enabled(o) || o.contains_key(gitfs_trees::MANIFEST_OPTION) {
        return;
    }
    let cachedir = opts::cachedir(o);
    if let Err(e) = Gitfs::from_opts(o, &cachedir).and_then(|g| g.update()) {
        tracing::error!("gitfs update: {e}");
    }
    o.insert(
        gitfs_trees::MANIFEST_OPTION.into(),
        Value::Str(manifest_path(&cachedir).display().to_string()),
    );
}
