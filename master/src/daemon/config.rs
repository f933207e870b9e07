//! The master daemon's settings, read once from its `opts` (`CONFDIR/master`
//! over [`master_defaults`]).

use super::events::bus::BusLimits;
use crate::keys::DEFAULT_MAX_PENDING;
use brine_compile::opts;
use brine_core::{Map, Value};
use brine_protocol::transport::Limits;
use std::net::{IpAddr, SocketAddr};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Salt's master defaults for the options brine-master reads. The pillar
/// and top-file options are the same as a minion's (the master compiles).
pub fn master_defaults() -> Map {
    let mut m = Map::default();
    let s = |v: &str| Value::Str(v.to_string());
    let roots = |dir: &str| {
        let mut r = Map::default();
        r.insert("base".into(), Value::List(vec![s(dir)]));
        Value::Map(r)
    };
    // Which daemon these options are (Salt's opts['__role']).
    m.insert("__role".into(), s("master"));
    m.insert("interface".into(), s("0.0.0.0"));
    m.insert("publish_port".into(), Value::Int(4505));
    m.insert("ret_port".into(), Value::Int(4506));
    m.insert("root_dir".into(), s("/"));
    m.insert("pki_dir".into(), s(crate::keys::DEFAULT_PKI_DIR));
    m.insert("cachedir".into(), s("/var/cache/brine/master"));
    m.insert("sock_dir".into(), s("/var/run/brine/master"));
    m.insert("file_roots".into(), roots("/srv/salt"));
    // Salt's default, kept: links in file_roots are followed, out of the
    // roots too (False serves only what stays in its root).
    m.insert("fileserver_followsymlinks".into(), Value::Bool(true));
    m.insert("pillar_roots".into(), roots("/srv/pillar"));
    m.insert("ext_pillar".into(), Value::List(vec![]));
    m.insert("ext_pillar_first".into(), Value::Bool(false));
    m.insert("pillar_opts".into(), Value::Bool(false));
    m.insert("pillar_safe_render_error".into(), Value::Bool(true));
    m.insert("pillar_source_merging_strategy".into(), s("smart"));
    m.insert("pillar_merge_lists".into(), Value::Bool(false));
    m.insert("pillar_includes_override_sls".into(), Value::Bool(false));
    m.insert("pillarenv".into(), Value::Null);
    m.insert("pillarenv_from_saltenv".into(), Value::Bool(false));
    m.insert("ssh_merge_pillar".into(), Value::Bool(true));
    m.insert("nodegroups".into(), Value::new_map());
    m.insert("renderer".into(), s("jinja|yaml"));
    m.insert("state_top".into(), s("top.sls"));
    m.insert("top_file_merging_strategy".into(), s("merge"));
    m.insert("env_order".into(), Value::List(vec![]));
    m.insert("default_top".into(), s("base"));
    m.insert("auto_accept".into(), Value::Bool(false));
    m.insert("timeout".into(), Value::Int(5));
    m.insert("keep_jobs".into(), Value::Int(24));
    m.insert("master_job_cache".into(), s("local_cache"));
    m.insert("worker_threads".into(), Value::Int(5));
    m.insert(
        "max_message_size".into(),
        Value::Int(brine_protocol::messages::MAX_MESSAGE_BYTES as i64),
    );
    // Limits on untrusted peers (brine's; Salt leaves them to libzmq and
    // the kernel). Seconds for the timeouts; 0 turns the idle timeout off.
    m.insert("max_connections".into(), Value::Int(10_000));
    m.insert("max_connections_per_address".into(), Value::Int(1_000));
    m.insert("handshake_timeout".into(), Value::Int(10));
    m.insert("message_timeout".into(), Value::Int(60));
    m.insert("idle_timeout".into(), Value::Int(600));
    // A ret-port connection that has not authenticated in this time is
    // cut (0: never).
    m.insert(
        "unauthenticated_timeout".into(),
        Value::Int(brine_protocol::transport::DEFAULT_UNAUTHENTICATED_TIMEOUT_SECS as i64),
    );
    m.insert("max_subscriptions".into(), Value::Int(8));
    // Seconds a request stays fresh (its nonce remembered).
    m.insert("replay_window".into(), Value::Int(300));
    // Keys waiting in minions_pre; new ones past it are refused.
    m.insert(
        "max_pending_keys".into(),
        Value::Int(DEFAULT_MAX_PENDING as i64),
    );
    // New pending ids one address may file a minute (0: no limit).
    m.insert(
        "pending_key_rate".into(),
        Value::Int(DEFAULT_PENDING_KEY_RATE),
    );
    m.insert("log_level".into(), s("warning"));
    // The event bus (Salt's max_event_size; the subscriber bounds are
    // brine's: a local tool that stops reading is cut, not buffered for).
    m.insert("max_event_size".into(), Value::Int(1_048_576));
    m.insert("max_event_subscribers".into(), Value::Int(32));
    m.insert("event_subscriber_buffer".into(), Value::Int(16 << 20));
    m.insert("presence_events".into(), Value::Bool(false));
    m.insert("auth_events".into(), Value::Bool(true));
    m.insert("loop_interval".into(), Value::Int(60));
    m.insert("reactor".into(), Value::List(vec![]));
    m.insert("reactor_worker_threads".into(), Value::Int(10));
    m.insert("reactor_worker_hwm".into(), Value::Int(10_000));
    m
}

/// Most reactor workers, and reactions queued for them
/// (`reactor_worker_threads`, `reactor_worker_hwm`).
pub const MAX_REACTOR_THREADS: usize = 64;
pub const MAX_REACTOR_QUEUE: usize = 100_000;

const DEFAULT_MAX_RETURN: usize = 16 * 1024 * 1024;
/// A site bootstrapping a hundred minions behind one address a minute
/// gets them all; a flood from one address fills `max_pending_keys` in
/// no less than 100 minutes.
const DEFAULT_PENDING_KEY_RATE: i64 = 100;

#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error(transparent)]
    Opts(#[from] opts::OptsError),
    #[error("option '{key}': {value:?} is not an IP address")]
    Interface { key: &'static str, value: String },
    #[error("option '{key}': {value} is not a port number (1-65535, or 0 for any)")]
    Port { key: &'static str, value: i64 },
    #[error("option '{key}' must be {what}, found {value}")]
    Range {
        key: &'static str,
        what: &'static str,
        value: i64,
    },
    #[error(transparent)]
    Backend(#[from] crate::backend::BackendError),
}

/// What `brine-master` binds, where it keeps its files, and its policies.
#[derive(Debug, Clone)]
pub struct MasterConfig {
    /// The full option map (compiles read it: `file_roots`, `pillar_roots`...).
    pub opts: Map,
    pub interface: IpAddr,
    pub publish_port: u16,
    pub ret_port: u16,
    pub pki_dir: PathBuf,
    pub cachedir: PathBuf,
    pub auto_accept: bool,
    /// Hours a job stays in the job cache; 0 keeps jobs forever.
    pub keep_jobs: u64,
    /// Default `-t` of the CLI.
    pub timeout: u64,
    /// Requests handled at once (Salt's `worker_threads`).
    pub worker_threads: usize,
    /// Largest message accepted on either port.
    pub max_message_size: usize,
    /// What either port tolerates from its peers (from `max_message_size`,
    /// `max_connections`, `max_connections_per_address`,
    /// `handshake_timeout`, `message_timeout`, `idle_timeout`,
    /// `max_subscriptions`, `receive_buffer_budget`).
    pub limits: Limits,
    /// How long a request's nonce is remembered (`replay_window`, seconds).
    pub replay_window: Duration,
    /// Largest return data stored (`max_return_size`, encoded bytes).
    pub max_return_size: usize,
    /// Most keys waiting for acceptance (`max_pending_keys`).
    pub max_pending_keys: usize,
    /// New pending ids one address may file a minute (`pending_key_rate`;
    /// 0: no limit).
    pub pending_key_rate: u32,
    /// Where jobs, returns and minion keys live (`master_job_cache`).
    pub job_cache: crate::backend::Backend,
    pub log_level: String,
    /// Where the local sockets live (the event socket).
    pub sock_dir: PathBuf,
    /// The event bus's bounds (`max_event_size`, `max_event_subscribers`,
    /// `event_subscriber_buffer`).
    pub events: BusLimits,
    /// Fire `salt/auth` on every authentication (`auth_events`).
    pub auth_events: bool,
    /// Fire `salt/presence/*` every `loop_interval` (`presence_events`).
    pub presence_events: bool,
    /// How often the master's own loop runs (presence), seconds.
    pub loop_interval: Duration,
}

fn int(o: &Map, key: &'static str, default: i64) -> i64 {
    match o.get(key) {
        Some(Value::Int(i)) => *i,
        _ => default,
    }
}

fn port(o: &Map, key: &'static str, default: i64) -> Result<u16, ConfigError> {
    let value = int(o, key, default);
    u16::try_from(value).map_err(|_| ConfigError::Port { key, value })
}

/// The transport limits from the master's options, each range-checked.
fn limits_from(o: &Map, max_message_size: usize) -> Result<Limits, ConfigError> {
    let ranged = |key: &'static str, default: i64, lo: i64, hi: i64, what: &'static str| {
        let value = int(o, key, default);
        if (lo..=hi).contains(&value) {
            Ok(value)
        } else {
            Err(ConfigError::Range { key, what, value })
        }
    };
    let count = |v: i64| usize::try_from(v).unwrap_or(usize::MAX);
    let secs = |v: i64| Duration::from_secs(u64::try_from(v).unwrap_or(0));
    // Framing and the signature envelope around the largest payload.
    let max_message = max_message_size + 4096;
    let budget_default = i64::try_from(8 * max_message).unwrap_or(i64::MAX);
    let idle = ranged(
        "idle_timeout",
        600,
        0,
        86_400,
        "between 0 (never) and 86400 seconds",
    )?;
    Ok(Limits {
        max_message,
        max_connections: count(ranged(
            "max_connections",
            10_000,
            1,
            1_000_000,
            "between 1 and 1000000",
        )?),
        max_connections_per_address: count(ranged(
            "max_connections_per_address",
            1_000,
            1,
            1_000_000,
            "between 1 and 1000000",
        )?),
        handshake_timeout: secs(ranged(
            "handshake_timeout",
            10,
            1,
            3_600,
            "between 1 and 3600 seconds",
        )?),
        message_timeout: secs(ranged(
            "message_timeout",
            60,
            1,
            3_600,
            "between 1 and 3600 seconds",
        )?),
        idle_timeout: (idle > 0).then(|| secs(idle)),
        unauthenticated_timeout: match ranged(
            "unauthenticated_timeout",
            brine_protocol::transport::DEFAULT_UNAUTHENTICATED_TIMEOUT_SECS as i64,
            0,
            3_600,
            "between 0 (never) and 3600 seconds",
        )? {
            0 => None,
            s => Some(secs(s)),
        },
        max_subscriptions: count(ranged(
            "max_subscriptions",
            8,
            1,
            1_024,
            "between 1 and 1024",
        )?),
        receive_budget: count(ranged(
            "receive_buffer_budget",
            budget_default,
            i64::try_from(max_message).unwrap_or(i64::MAX),
            i64::MAX,
            "at least max_message_size + 4096 bytes",
        )?),
        ..Limits::default()
    })
}

/// Salt's `gather_job_timeout` default: how long `saltutil.find_job` may
/// take to answer.
pub const GATHER_JOB_TIMEOUT: Duration = Duration::from_secs(10);

impl MasterConfig {
    /// `gather_job_timeout`: how long a `saltutil.find_job` may take to
    /// answer (Salt's default: 10 seconds).
    pub fn gather_job_timeout(&self) -> Duration {
        let secs = match self.opts.get("gather_job_timeout") {
            Some(Value::Int(i)) => u64::try_from(*i).ok(),
            Some(Value::Float(f)) if *f >= 0.0 => Some(*f as u64),
            Some(Value::Str(s)) => s.trim().parse().ok(),
            _ => None,
        };
        secs.map(Duration::from_secs).unwrap_or(GATHER_JOB_TIMEOUT)
    }

    /// Read `config_dir/master` (missing: Salt's defaults), then the
    /// `master.d/*.conf` beside it in name order over it, as Salt's
    /// `default_include` does. Returns the config and the loader's
    /// warnings (unknown options, includes left out).
    pub fn load(config_dir: &Path) -> Result<(MasterConfig, Vec<String>), ConfigError> {
        let mut loaded = opts::load_including(
            &config_dir.join("master"),
            master_defaults(),
            Some(&config_dir.join("master.d")),
        )?;
        // Salt's apply_sdb: sdb:// options resolved as they are read.
        brine_compile::sdb::apply(&mut loaded.opts);
        let o = &mut loaded.opts;
        // Salt's master names itself after its host, as a minion would,
        // with `_master` after it (ext_pillars see it as opts['id']).
        if opts::get_str(o, "id").is_none() {
            let host = brine_runtime::grains::net::hostname();
            let name = match brine_runtime::grains::net::fqdn(&host) {
                f if f.is_empty() => "localhost".to_string(),
                f => f,
            };
            o.insert("id".into(), Value::Str(format!("{name}_master")));
        }
        if !o.contains_key("conf_file") {
            o.insert(
                "conf_file".into(),
                Value::Str(config_dir.join("master").display().to_string()),
            );
        }
        Ok((MasterConfig::from_opts(loaded.opts)?, loaded.warnings))
    }

    pub fn from_opts(o: Map) -> Result<MasterConfig, ConfigError> {
        let mut o = o;
        // Compiles and the file server find the trees gitfs and
        // git_pillar exported through these (brine_compile::gitfs_trees,
        // brine_compile::pillar::git).
        let cachedir =
            PathBuf::from(opts::get_str(&o, "cachedir").unwrap_or("/var/cache/brine/master"));
        brine_compile::git_remotes::pillar::name_manifest(&mut o, &cachedir);
        if brine_compile::git_remotes::gitfs::enabled(&o) {
            o.insert(
                brine_compile::gitfs_trees::MANIFEST_OPTION.into(),
                Value::Str(
                    brine_compile::git_remotes::gitfs::manifest_path(&cachedir)
                        .display()
                        .to_string(),
                ),
            );
        }
        let iface = opts::get_str(&o, "interface").unwrap_or("0.0.0.0");
        let interface = iface.parse().map_err(|_| ConfigError::Interface {
            key: "interface",
            value: iface.to_string(),
        })?;
        let nonneg = |key: &'static str, default: i64| -> Result<u64, ConfigError> {
            let value = int(&o, key, default);
            u64::try_from(value).map_err(|_| ConfigError::Range {
                key,
                what: "zero or more",
                value,
            })
        };
        let keep_jobs = nonneg("keep_jobs", 24)?;
        let timeout = nonneg("timeout", 5)?;
        let workers = int(&o, "worker_threads", 5);
        if !(1..=256).contains(&workers) {
            return Err(ConfigError::Range {
                key: "worker_threads",
                what: "between 1 and 256",
                value: workers,
            });
        }
        let max = int(
            &o,
            "max_message_size",
            brine_protocol::messages::MAX_MESSAGE_BYTES as i64,
        );
        let max_message_size = usize::try_from(max)
            .ok()
            .filter(|m| (1024..=brine_protocol::messages::MAX_MESSAGE_BYTES).contains(m))
            .ok_or(ConfigError::Range {
                key: "max_message_size",
                what: "between 1024 and 33554432 bytes",
                value: max,
            })?;
        let limits = limits_from(&o, max_message_size)?;
        let window = int(&o, "replay_window", 300);
        if !(10..=86_400).contains(&window) {
            return Err(ConfigError::Range {
                key: "replay_window",
                what: "between 10 and 86400 seconds",
                value: window,
            });
        }
        // One return's data, encoded; a larger one is stored as an error.
        // Not in the defaults: it follows a smaller max_message_size.
        let max_ret = int(
            &o,
            "max_return_size",
            DEFAULT_MAX_RETURN.min(max_message_size) as i64,
        );
        let max_return_size = usize::try_from(max_ret)
            .ok()
            .filter(|m| (1024..=max_message_size).contains(m))
            .ok_or(ConfigError::Range {
                key: "max_return_size",
                what: "between 1024 bytes and max_message_size",
                value: max_ret,
            })?;
        // The reactor's pool, read by the reactor: refused here rather
        // than clamped there.
        for (key, most) in [
            ("reactor_worker_threads", MAX_REACTOR_THREADS),
            ("reactor_worker_hwm", MAX_REACTOR_QUEUE),
        ] {
            let value = int(&o, key, 1);
            if !(1..=most as i64).contains(&value) {
                return Err(ConfigError::Range {
                    key,
                    what: if most == MAX_REACTOR_THREADS {
                        "between 1 and 64"
                    } else {
                        "between 1 and 100000"
                    },
                    value,
                });
            }
        }
        let max_pend = int(&o, "max_pending_keys", DEFAULT_MAX_PENDING as i64);
        let max_pending_keys = usize::try_from(max_pend)
            .ok()
            .filter(|m| (1..=10_000_000).contains(m))
            .ok_or(ConfigError::Range {
                key: "max_pending_keys",
                what: "between 1 and 10000000",
                value: max_pend,
            })?;
        let rate = int(&o, "pending_key_rate", DEFAULT_PENDING_KEY_RATE);
        let pending_key_rate =
            u32::try_from(rate)
                .ok()
                .filter(|r| *r <= 1_000_000)
                .ok_or(ConfigError::Range {
                    key: "pending_key_rate",
                    what: "between 0 (no limit) and 1000000 a minute",
                    value: rate,
                })?;
        let cachedir =
            PathBuf::from(opts::get_str(&o, "cachedir").unwrap_or("/var/cache/brine/master"));
        let ranged = |key: &'static str, default: i64, lo: i64, hi: i64, what: &'static str| {
            let value = int(&o, key, default);
            if (lo..=hi).contains(&value) {
                Ok(usize::try_from(value).unwrap_or(usize::MAX))
            } else {
                Err(ConfigError::Range { key, what, value })
            }
        };
        let events = BusLimits {
            max_event_size: ranged(
                "max_event_size",
                1_048_576,
                1024,
                1 << 30,
                "between 1024 bytes and 1 GiB",
            )?,
            max_subscribers: ranged("max_event_subscribers", 32, 1, 4096, "between 1 and 4096")?,
            subscriber_buffer: ranged(
                "event_subscriber_buffer",
                16 << 20,
                65_536,
                1 << 32,
                "between 65536 and 4294967296 bytes",
            )?,
        };
        let loop_interval = ranged(
            "loop_interval",
            60,
            1,
            86_400,
            "between 1 and 86400 seconds",
        )?;
        let job_cache = crate::backend::Backend::of(&o, &cachedir)?;
        Ok(MasterConfig {
            interface,
            publish_port: port(&o, "publish_port", 4505)?,
            ret_port: port(&o, "ret_port", 4506)?,
            pki_dir: PathBuf::from(
                opts::get_str(&o, "pki_dir").unwrap_or(crate::keys::DEFAULT_PKI_DIR),
            ),
            cachedir,
            job_cache,
            auto_accept: opts::get_bool(&o, "auto_accept", false),
            keep_jobs,
            timeout,
            worker_threads: workers as usize,
            max_message_size,
            limits,
            replay_window: Duration::from_secs(u64::try_from(window).unwrap_or(300)),
            max_return_size,
            max_pending_keys,
            pending_key_rate,
            log_level: opts::get_str(&o, "log_level")
                .unwrap_or("warning")
                .to_string(),
            sock_dir: PathBuf::from(
                opts::get_str(&o, "sock_dir").unwrap_or("/var/run/brine/master"),
            ),
            events,
            presence_events: opts::get_bool(&o, "presence_events", false),
            auth_events: opts::get_bool(&o, "auth_events", true),
            loop_interval: Duration::from_secs(loop_interval as u64),
            opts: o,
        })
    }

    pub fn publish_addr(&self) -> SocketAddr {
        SocketAddr::new(self.interface, self.publish_port)
    }

    pub fn ret_addr(&self) -> SocketAddr {
        SocketAddr::new(self.interface, self.ret_port)
    }

    /// Where a local client (the CLI) reaches the ret port: the interface,
    /// or loopback when the master listens on every address.
    /// The master's local request socket in `sock_dir` (the CLI's way in,
    /// apart from the ret port's connections).
    pub fn local_socket(&self) -> PathBuf {
        self.sock_dir.join("master_ret.ipc")
    }

    pub fn local_ret_addr(&self) -> SocketAddr {
        let ip = if self.interface.is_unspecified() {
            match self.interface {
                IpAddr::V4(_) => IpAddr::from([127, 0, 0, 1]),
                IpAddr::V6(_) => IpAddr::from([0u16, 0, 0, 0, 0, 0, 0, 1]),
            }
        } else {
            self.interface
        };
        SocketAddr::new(ip, self.ret_port)
    }

    /// The transport's limits on untrusted peers.
    pub fn limits(&self) -> Limits {
        self.limits.clone()
    }

    /// The minion data cache folder.
    pub fn minion_cache_dir(&self) -> PathBuf {
        self.cachedir.join("minions")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_and_overrides() {
        let td = tempfile::tempdir().unwrap();
        let (c, _) = MasterConfig::load(td.path()).unwrap();
        assert_eq!(c.publish_addr().to_string(), "0.0.0.0:4505");
        assert_eq!(c.local_ret_addr().to_string(), "127.0.0.1:4506");
        assert_eq!(c.pki_dir, PathBuf::from("/etc/brine/pki/master"));
        std::fs::write(
            td.path().join("master"),
            "interface: 127.0.0.2\nret_port: 0\nroot_dir: /tmp/x\nkeep_jobs: 0\n",
        )
        .unwrap();
        let (c, w) = MasterConfig::load(td.path()).unwrap();
        assert!(w.is_empty());
        assert_eq!(c.local_ret_addr().to_string(), "127.0.0.2:0");
        assert_eq!(c.cachedir, PathBuf::from("/tmp/x/var/cache/brine/master"));
        assert_eq!(c.keep_jobs, 0);
    }

    #[test]
    fn bad_values_are_named() {
        let mut o = master_defaults();
        o.insert("ret_port".into(), Value::Int(70000));
        let e = MasterConfig::from_opts(o).unwrap_err().to_string();
        assert!(e.contains("ret_port"), "{e}");
        let mut o = master_defaults();
        o.insert("interface".into(), Value::Str("eth0".into()));
        let e = MasterConfig::from_opts(o).unwrap_err().to_string();
        assert!(e.contains("interface"), "{e}");
        for (key, bad) in [
            ("reactor_worker_threads", 0),
            ("reactor_worker_threads", 65),
            ("reactor_worker_hwm", -1),
            ("reactor_worker_hwm", 100_001),
        ] {
            let mut o = master_defaults();
            o.insert(key.into(), Value::Int(bad));
            let e = MasterConfig::from_opts(o).unwrap_err().to_string();
            assert!(e.contains(key), "{e}");
        }
    }

    #[test]
    fn master_defaults_are_salts() {
        let m = master_defaults();
        assert_eq!(m.get("publish_port"), Some(&Value::Int(4505)));
        assert_eq!(m.get("ret_port"), Some(&Value::Int(4506)));
        assert_eq!(opts::get_str(&m, "interface"), Some("0.0.0.0"));
        assert!(!opts::get_bool(&m, "auto_accept", true));
        assert_eq!(m.get("timeout"), Some(&Value::Int(5)));
        assert_eq!(m.get("keep_jobs"), Some(&Value::Int(24)));
        let td = tempfile::tempdir().unwrap();
        let path = td.path().join("master");
        std::fs::write(&path, "root_dir: /tmp/r\nret_port: 1234\n").unwrap();
        let l = opts::load(&path, master_defaults()).unwrap();
        assert!(l.warnings.is_empty(), "{:?}", l.warnings);
        assert_eq!(l.opts.get("ret_port"), Some(&Value::Int(1234)));
        assert_eq!(
            opts::get_str(&l.opts, "cachedir"),
            Some("/tmp/r/var/cache/brine/master")
        );
        assert_eq!(
            opts::get_str(&l.opts, "pki_dir"),
            Some("/tmp/r/etc/brine/pki/master")
        );
    }

    #[test]
    fn master_d_conf_files_are_read_over_the_master_file() {
        let td = tempfile::tempdir().unwrap();
        std::fs::write(
            td.path().join("master"),
            "ret_port: 1234
timeout: 9
",
        )
        .unwrap();
        std::fs::create_dir(td.path().join("master.d")).unwrap();
        std::fs::write(
            td.path().join("master.d/10-ports.conf"),
            "ret_port: 2222
",
        )
        .unwrap();
        std::fs::write(
            td.path().join("master.d/20-more.conf"),
            "ret_port: 3333
",
        )
        .unwrap();
        std::fs::write(
            td.path().join("master.d/notes.txt"),
            "ret_port: 1
",
        )
        .unwrap();
        let (c, _) = MasterConfig::load(td.path()).unwrap();
        assert_eq!(c.opts.get("ret_port"), Some(&Value::Int(3333)));
        assert_eq!(c.opts.get("timeout"), Some(&Value::Int(9)));
    }
}
