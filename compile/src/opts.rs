//! Salt's configuration as `opts`: defaults, then the config file, with each
//! known key's type checked. The result stays a plain map because templates
//! see it whole as `opts`; typed accessors read from it.

use brine_core::yaml;
use brine_core::{Map, Value};
use indexmap::IndexMap;
use std::path::{Path, PathBuf};

#[derive(Debug, thiserror::Error)]
pub enum OptsError {
    #[error("{path}: cannot read config: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path}: invalid YAML: {source}")]
    Yaml {
        path: PathBuf,
        source: yaml::YamlError,
    },
    #[error("{path}: the config must be a mapping of option: value, found {found}")]
    NotAMap { path: PathBuf, found: &'static str },
    #[error("{path}: option '{key}' must be {expected}, found {found}")]
    WrongType {
        path: PathBuf,
        key: String,
        expected: &'static str,
        found: String,
    },
}

/// The kinds of value an option may take.
#[derive(Debug, Clone, Copy)]
enum Kind {
    Str,
    OptStr,
    Bool,
    Int,
    Map,
    List,
    /// `{env: [dir, ...]}`
    Roots,
    /// A string or a list of strings (`master`).
    StrOrList,
    /// Any value: the option's reader says what it makes of it
    /// (`decrypt_pillar`'s malformed forms are a pillar error, as Salt's).
    Any,
}

impl Kind {
    fn describe(self) -> &'static str {
        match self {
            Kind::Str => "a string",
            Kind::OptStr => "a string or null",
            Kind::Bool => "a boolean (True/False)",
            Kind::Int => "an integer",
            Kind::Map => "a mapping",
            Kind::List => "a list",
            Kind::Roots => "a mapping of environment: [directories]",
            Kind::StrOrList => "a string or a list of strings",
            Kind::Any => "any value",
        }
    }

    fn accepts(self, v: &Value) -> bool {
        match (self, v) {
            (Kind::Str, Value::Str(_)) => true,
            (Kind::OptStr, Value::Str(_) | Value::Null) => true,
            (Kind::Bool, Value::Bool(_)) => true,
            (Kind::Int, Value::Int(_)) => true,
            (Kind::Map, Value::Map(_) | Value::Null) => true,
            (Kind::List, Value::List(_) | Value::Null) => true,
            (Kind::Roots, Value::Map(m)) => m.values().all(|dirs| {
                dirs.as_list()
                    .is_some_and(|l| l.iter().all(|d| matches!(d, Value::Str(_))))
            }),
            (Kind::StrOrList, Value::Str(_)) => true,
            (Kind::StrOrList, Value::List(l)) => l.iter().all(|d| matches!(d, Value::Str(_))),
            (Kind::Any, _) => true,
            _ => false,
        }
    }
}

/// Known options and their kinds. Keys not listed here are kept (templates
/// may read them through `opts`) but warned about.
const KNOWN: &[(&str, Kind)] = &[
    ("id", Kind::Str),
    ("root_dir", Kind::Str),
    ("cachedir", Kind::Str),
    ("pki_dir", Kind::Str),
    ("sock_dir", Kind::Str),
    ("log_file", Kind::Str),
    ("file_client", Kind::Str),
    ("file_roots", Kind::Roots),
    ("pillar_roots", Kind::Roots),
    ("grains", Kind::Map),
    ("saltenv", Kind::OptStr),
    ("pillarenv", Kind::OptStr),
    ("pillarenv_from_saltenv", Kind::Bool),
    ("ext_pillar", Kind::List),
    ("fileserver_backend", Kind::StrOrList),
    ("gitfs_remotes", Kind::List),
    ("gitfs_root", Kind::OptStr),
    ("gitfs_mountpoint", Kind::OptStr),
    ("gitfs_base", Kind::Str),
    ("gitfs_saltenv", Kind::List),
    ("gitfs_saltenv_whitelist", Kind::Any),
    ("gitfs_saltenv_blacklist", Kind::Any),
    ("gitfs_update_interval", Kind::Int),
    ("gitfs_provider", Kind::Str),
    ("gitfs_disable_saltenv_mapping", Kind::Bool),
    ("gitfs_ref_types", Kind::List),
    ("git_pillar_base", Kind::Str),
    ("git_pillar_branch", Kind::Str),
    ("git_pillar_root", Kind::OptStr),
    ("git_pillar_includes", Kind::Bool),
    ("git_pillar_update_interval", Kind::Int),
    ("git_pillar_provider", Kind::Str),
    ("git_pillar_privkey", Kind::Str),
    ("git_pillar_pubkey", Kind::Str),
    ("gitfs_privkey", Kind::Str),
    ("gitfs_pubkey", Kind::Str),
    ("gitfs_ssl_verify", Kind::Bool),
    ("git_pillar_ssl_verify", Kind::Bool),
    ("git_fetch_timeout", Kind::Int),
    ("gather_job_timeout", Kind::Int),
    ("gpg_keydir", Kind::Str),
    ("gpg_decrypt_must_succeed", Kind::Bool),
    ("decrypt_pillar", Kind::Any),
    ("decrypt_pillar_delimiter", Kind::Str),
    ("decrypt_pillar_default", Kind::Str),
    ("decrypt_pillar_renderers", Kind::StrOrList),
    ("ext_pillar_first", Kind::Bool),
    ("pillar_opts", Kind::Bool),
    ("pillar_safe_render_error", Kind::Bool),
    ("pillar_source_merging_strategy", Kind::Str),
    ("pillar_merge_lists", Kind::Bool),
    ("pillar_includes_override_sls", Kind::Bool),
    ("ssh_merge_pillar", Kind::Bool),
    ("nodegroups", Kind::Map),
    ("log_level", Kind::Str),
    ("log_level_logfile", Kind::Str),
    // Salt's log formats (Python's %-style) and date formats, and where
    // `-d` writes the daemon's pid.
    ("log_fmt_console", Kind::Str),
    ("log_fmt_logfile", Kind::Str),
    ("log_datefmt", Kind::Str),
    ("log_datefmt_logfile", Kind::Str),
    ("pidfile", Kind::Str),
    ("renderer", Kind::Str),
    ("state_top", Kind::Str),
    ("state_top_saltenv", Kind::OptStr),
    ("top_file_merging_strategy", Kind::Str),
    ("env_order", Kind::List),
    ("default_top", Kind::Str),
    ("hiera_config", Kind::Str),
    ("failhard", Kind::Bool),
    ("test", Kind::Bool),
    ("state_output", Kind::Str),
    ("state_verbose", Kind::Bool),
    ("master", Kind::StrOrList),
    ("master_port", Kind::Int),
    // Several masters (Salt's multi-master): serve all (str) or one at a
    // time (failover), with its alive checks and failback.
    ("master_type", Kind::Str),
    ("master_alive_interval", Kind::Int),
    ("master_failback", Kind::Bool),
    ("master_failback_interval", Kind::Int),
    ("random_master", Kind::Bool),
    ("publish_port", Kind::Int),
    ("ret_port", Kind::Int),
    ("interface", Kind::Str),
    ("master_finger", Kind::Str),
    ("acceptance_wait_time", Kind::Int),
    ("auto_accept", Kind::Bool),
    ("timeout", Kind::Int),
    ("keep_jobs", Kind::Int),
    // brine-api (salt-api's rest_cherrypy) and who may use it.
    ("rest_cherrypy", Kind::Map),
    ("external_auth", Kind::Map),
    ("netapi_enable_clients", Kind::List),
    ("sharedsecret", Kind::Str),
    ("token_expire", Kind::Int),
    ("api_logfile", Kind::Str),
    ("api_pidfile", Kind::Str),
    // Job ids in UTC rather than local time.
    ("utc_jid", Kind::Bool),
    // Where the master keeps jobs, returns and keys: local_cache (SQLite,
    // this master's own) or pgjsonb (PostgreSQL, shared by masters).
    ("master_job_cache", Kind::Str),
    ("returner.pgjsonb.host", Kind::Str),
    ("returner.pgjsonb.port", Kind::Int),
    ("returner.pgjsonb.user", Kind::Str),
    ("returner.pgjsonb.pass", Kind::Str),
    ("returner.pgjsonb.db", Kind::Str),
    ("returner.pgjsonb.sslmode", Kind::OptStr),
    ("user", Kind::Str),
    ("color", Kind::Bool),
    ("worker_threads", Kind::Int),
    // brine's own: the largest request/publication frame a daemon accepts
    // (bytes); larger frames are cut by the transport guard.
    ("max_message_size", Kind::Int),
    // brine's own limits on untrusted peers (master) and its stop (minion).
    ("max_connections", Kind::Int),
    ("max_connections_per_address", Kind::Int),
    ("handshake_timeout", Kind::Int),
    ("message_timeout", Kind::Int),
    ("idle_timeout", Kind::Int),
    ("max_subscriptions", Kind::Int),
    ("receive_buffer_budget", Kind::Int),
    ("replay_window", Kind::Int),
    ("max_return_size", Kind::Int),
    ("max_pending_keys", Kind::Int),
    ("pending_key_rate", Kind::Int),
    ("unauthenticated_timeout", Kind::Int),
    ("shutdown_timeout", Kind::Int),
    // Jobs that change the host run in a process of their own.
    ("multiprocessing", Kind::Bool),
    // Salt's: whether file_roots links are followed out of the roots.
    ("fileserver_followsymlinks", Kind::Bool),
    // brine's render budget (seconds, bytes, minijinja instructions).
    ("render_timeout", Kind::Int),
    ("render_max_bytes", Kind::Int),
    ("render_max_instructions", Kind::Int),
    // The event bus: Salt's largest event, brine's bounds on local
    // subscribers (how many, how far one may fall behind, bytes).
    ("max_event_size", Kind::Int),
    ("max_event_subscribers", Kind::Int),
    ("event_subscriber_buffer", Kind::Int),
    ("presence_events", Kind::Bool),
    ("auth_events", Kind::Bool),
    ("loop_interval", Kind::Int),
    // The reactor: tag globs to SLS files, and its worker pool.
    ("reactor", Kind::List),
    ("reactor_worker_threads", Kind::Int),
    ("reactor_worker_hwm", Kind::Int),
    // The mine: what a minion publishes, how often (minutes), and the
    // master's ACL on who may read which function.
    ("mine_functions", Kind::Map),
    ("mine_interval", Kind::Int),
    ("mine_enabled", Kind::Bool),
    ("mine_return_job", Kind::Bool),
    ("mine_get", Kind::Map),
    // The minion's scheduler.
    ("schedule", Kind::Map),
];

/// Salt's minion defaults for the options brine reads.
pub fn minion_defaults() -> Map {
    let mut m = Map::default();
    let s = |v: &str| Value::Str(v.to_string());
    let roots = |dir: &str| {
        let mut r = Map::default();
        r.insert("base".into(), Value::List(vec![s(dir)]));
        Value::Map(r)
    };
    // Which daemon these options are (Salt's opts['__role']).
    m.insert("__role".into(), s("minion"));
    m.insert("root_dir".into(), s("/"));
    m.insert("cachedir".into(), s("/var/cache/brine/minion"));
    m.insert("sock_dir".into(), s("/var/run/brine/minion"));
    m.insert("pki_dir".into(), s("/etc/brine/pki/minion"));
    m.insert("file_client".into(), s("remote"));
    m.insert("file_roots".into(), roots("/srv/salt"));
    m.insert("pillar_roots".into(), roots("/srv/pillar"));
    m.insert("grains".into(), Value::new_map());
    m.insert("saltenv".into(), Value::Null);
    m.insert("pillarenv".into(), Value::Null);
    m.insert("pillarenv_from_saltenv".into(), Value::Bool(false));
    m.insert("ext_pillar".into(), Value::List(vec![]));
    m.insert("ext_pillar_first".into(), Value::Bool(false));
    m.insert("pillar_opts".into(), Value::Bool(false));
    m.insert("pillar_safe_render_error".into(), Value::Bool(true));
    m.insert("pillar_source_merging_strategy".into(), s("smart"));
    m.insert("pillar_merge_lists".into(), Value::Bool(false));
    m.insert("pillar_includes_override_sls".into(), Value::Bool(false));
    // A minion merges its in-memory pillar under a freshly compiled one.
    m.insert("ssh_merge_pillar".into(), Value::Bool(true));
    m.insert("nodegroups".into(), Value::new_map());
    m.insert("log_level".into(), s("warning"));
    m.insert("renderer".into(), s("jinja|yaml"));
    m.insert("state_top".into(), s("top.sls"));
    m.insert("state_top_saltenv".into(), Value::Null);
    m.insert("top_file_merging_strategy".into(), s("merge"));
    m.insert("env_order".into(), Value::List(vec![]));
    m.insert("default_top".into(), s("base"));
    m.insert("failhard".into(), Value::Bool(false));
    m.insert("test".into(), Value::Bool(false));
    m.insert("master".into(), s("salt"));
    m.insert("master_port".into(), Value::Int(4506));
    m.insert("publish_port".into(), Value::Int(4505));
    m.insert("acceptance_wait_time".into(), Value::Int(10));
    // Salt's minion defaults carry the master's auto_accept too.
    m.insert("auto_accept".into(), Value::Bool(true));
    m
}

/// The minion's cache folder (`cachedir`; Salt's default when unset).
pub fn cachedir(o: &Map) -> PathBuf {
    PathBuf::from(get_str(o, "cachedir").unwrap_or("/var/cache/brine/minion"))
}

/// The minion's local sockets' folder (`sock_dir`; Salt's default when
/// unset).
pub fn sock_dir(o: &Map) -> PathBuf {
    PathBuf::from(get_str(o, "sock_dir").unwrap_or("/var/run/brine/minion"))
}

/// Whether the minion runs without a master (`file_client: local`).
pub fn masterless(o: &Map) -> bool {
    get_str(o, "file_client") == Some("local")
}

/// The configured `test` option (a run's own `test=` is decided by the
/// run).
pub fn test_mode(o: &Map) -> bool {
    o.get("test").is_some_and(Value::is_truthy)
}

/// A loaded configuration and the warnings it produced (unknown keys).
#[derive(Debug, Clone)]
pub struct Loaded {
    pub opts: Map,
    pub warnings: Vec<String>,
}

/// Read `path` over `defaults`. A missing file gives the defaults (as Salt
/// does); a malformed file or a wrongly typed known key is an error.
pub fn load(path: &Path, defaults: Map) -> Result<Loaded, OptsError> {
    load_including(path, defaults, None)
}

/// [`load`], then the `*.conf` files of `include_dir` in name order over
/// it, each key replacing the file's (Salt's `default_include`,
/// `minion.d/*.conf`: where `schedule.*` saves `_schedule.conf`). An
/// include that does not read is left out with a warning naming it.
pub fn load_including(
    path: &Path,
    defaults: Map,
    include_dir: Option<&Path>,
) -> Result<Loaded, OptsError> {
    let mut loaded = load_file(path, defaults)?;
    if let Some(dir) = include_dir {
        include(&mut loaded, dir)?;
    }
    loaded.opts = finish(std::mem::take(&mut loaded.opts));
    Ok(loaded)
}

/// The `*.conf` files of `dir` over `loaded`, in name order; a known
/// option of the wrong kind there is an error naming the file.
fn include(loaded: &mut Loaded, dir: &Path) -> Result<(), OptsError> {
    for file in conf_files(dir) {
        let included = std::fs::read_to_string(&file)
            .map_err(|e| e.to_string())
            .and_then(|t| yaml::load(&t).map_err(|e| e.to_string()));
        match included {
            Ok(Value::Map(m)) => put(loaded, &file, m)?,
            Ok(Value::Null) => {}
            Ok(other) => loaded.warnings.push(format!(
                "{}: not a mapping but {}; left out",
                file.display(),
                other.type_name()
            )),
            Err(e) => loaded
                .warnings
                .push(format!("{}: {e}; left out", file.display())),
        }
    }
    Ok(())
}

/// The `*.conf` files of an include folder (`master.d`), in name order;
/// none when it cannot be listed.
pub fn conf_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = match std::fs::read_dir(dir) {
        Ok(rd) => rd
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "conf") && p.is_file())
            .collect(),
        Err(_) => return Vec::new(),
    };
    files.sort();
    files
}

/// `path` read over `defaults`, not yet [`finish`]ed (the `*.d` files go
/// on top first).
fn load_file(path: &Path, defaults: Map) -> Result<Loaded, OptsError> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Ok(Loaded {
                opts: defaults,
                warnings: vec![format!(
                    "{}: no such config file, using defaults",
                    path.display()
                )],
            })
        }
        Err(source) => {
            return Err(OptsError::Read {
                path: path.to_path_buf(),
                source,
            })
        }
    };
    let data = yaml::load(&text).map_err(|source| OptsError::Yaml {
        path: path.to_path_buf(),
        source,
    })?;
    let file = match data {
        Value::Map(m) => m,
        Value::Null => Map::default(),
        other => {
            return Err(OptsError::NotAMap {
                path: path.to_path_buf(),
                found: other.type_name(),
            })
        }
    };
    let mut loaded = Loaded {
        opts: defaults,
        warnings: Vec::new(),
    };
    put(&mut loaded, path, file)?;
    Ok(loaded)
}

/// One file's options over `loaded`: each known key's type checked, an
/// unknown one kept with a warning naming the file.
fn put(loaded: &mut Loaded, path: &Path, file: Map) -> Result<(), OptsError> {
    for (key, val) in file {
        if let Some(e) = wrong_type(path, &key, &val) {
            return Err(e);
        }
        if !is_read(&key, &val) {
            loaded.warnings.push(format!(
                "{}: unknown option '{key}' (kept, but brine does not use it)",
                path.display()
            ));
        }
        loaded.opts.insert(key, val);
    }
    Ok(())
}

/// Whether brine reads option `key` (given `val`): a known option, or an
/// sdb profile (`myvault: {driver: vault, ...}`).
pub fn is_read(key: &str, val: &Value) -> bool {
    KNOWN.iter().any(|(k, _)| *k == key) || val.as_map().is_some_and(|m| m.contains_key("driver"))
}

/// The error of a known option given a value of the wrong kind.
pub fn wrong_type(path: &Path, key: &str, val: &Value) -> Option<OptsError> {
    let (_, kind) = KNOWN.iter().find(|(k, _)| *k == key)?;
    (!kind.accepts(val)).then(|| OptsError::WrongType {
        path: path.to_path_buf(),
        key: key.to_string(),
        expected: kind.describe(),
        found: format!("{} {}", val.type_name(), val.to_python_repr()),
    })
}

/// Normalize what Salt normalizes after loading: `null` maps and lists
/// become empty, and paths under `root_dir` get it prepended.
fn finish(mut opts: Map) -> Map {
    for key in ["grains", "nodegroups"] {
        if matches!(opts.get(key), Some(Value::Null)) {
            opts.insert(key.into(), Value::new_map());
        }
    }
    for key in ["ext_pillar", "env_order"] {
        if matches!(opts.get(key), Some(Value::Null)) {
            opts.insert(key.into(), Value::List(vec![]));
        }
    }
    let root = opts
        .get("root_dir")
        .and_then(Value::as_str)
        .unwrap_or("/")
        .to_string();
    if root != "/" {
        for key in ["cachedir", "pki_dir", "sock_dir", "log_file"] {
            if let Some(Value::Str(p)) = opts.get(key) {
                if p.starts_with('/') && !p.starts_with(&root) {
                    let joined = Path::new(&root).join(p.trim_start_matches('/'));
                    opts.insert(key.into(), Value::Str(joined.display().to_string()));
                }
            }
        }
    }
    opts
}

/// An option's value as text (`None` when absent or null): how the
/// daemons' logging reads its options.
pub fn text_of(o: &Map, key: &str) -> Option<String> {
    match o.get(key) {
        None | Some(Value::Null) => None,
        Some(v) => Some(v.to_python_str()),
    }
}

/// `path` under the options' `root_dir` (Salt's `prepend_root_dir`): an
/// absolute path not already under it is moved there.
pub fn rooted(o: &Map, path: &str) -> PathBuf {
    let root = get_str(o, "root_dir").unwrap_or("/");
    if root != "/" && path.starts_with('/') && !path.starts_with(root) {
        Path::new(root).join(path.trim_start_matches('/'))
    } else {
        PathBuf::from(path)
    }
}

/// `file_roots` / `pillar_roots` as environment → directories, in config order.
pub fn roots(opts: &Map, key: &str) -> IndexMap<String, Vec<PathBuf>> {
    let configured = configured_roots(opts, key);
    if key == "file_roots" {
        return crate::gitfs_trees::compose(opts, configured, None);
    }
    configured
}

/// `key`'s folders as the configuration gives them (for `file_roots`, the
/// `roots` backend alone).
pub fn configured_roots(opts: &Map, key: &str) -> IndexMap<String, Vec<PathBuf>> {
    let mut out = IndexMap::new();
    if let Some(Value::Map(m)) = opts.get(key) {
        for (env, dirs) in m {
            let dirs = dirs
                .as_list()
                .unwrap_or(&[])
                .iter()
                .filter_map(Value::as_str)
                .map(PathBuf::from)
                .collect();
            out.insert(env.clone(), dirs);
        }
    }
    out
}

/// A string option, `None` when unset or null.
pub fn get_str<'a>(opts: &'a Map, key: &str) -> Option<&'a str> {
    opts.get(key).and_then(Value::as_str)
}

/// A boolean option with Python truthiness, `default` when unset.
pub fn get_bool(opts: &Map, key: &str, default: bool) -> bool {
    opts.get(key).map(Value::is_truthy).unwrap_or(default)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_accept_what_salt_accepts() {
        let roots = Value::from_json(&serde_json::json!({"base": ["/srv"]}));
        assert!(Kind::Roots.accepts(&roots));
        let bad = Value::from_json(&serde_json::json!({"base": "/srv"}));
        assert!(!Kind::Roots.accepts(&bad));
        assert!(Kind::OptStr.accepts(&Value::Null));
        assert!(!Kind::Bool.accepts(&Value::Str("yes".into())));
    }

    #[test]
    fn root_dir_is_prepended() {
        let mut m = minion_defaults();
        m.insert("root_dir".into(), Value::Str("/tmp/r".into()));
        let m = finish(m);
        assert_eq!(
            get_str(&m, "cachedir"),
            Some("/tmp/r/var/cache/brine/minion")
        );
    }
}
