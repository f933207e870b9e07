//! The minion daemon (`brine-minion`): Salt's minion over brine's wire.
//!
//! Life of one identity (one minion id):
//! 1. keys: `pki_dir/minion.key` made on first start ([`keys`]);
//! 2. auth: signed `Auth` with grains and `pillarenv`, retried every
//!    `acceptance_wait_time` while pending; the master key is pinned on
//!    acceptance and a changed one is refused ([`auth`]);
//! 3. pillar: fetched from the master and kept in memory ([`pillar`]);
//! 4. jobs: publications verified against the pinned key, replay-checked,
//!    target-matched, run on a blocking thread ([`jobs`]);
//! 5. returns: persisted under `cachedir` until the master acknowledges
//!    them, resent across master restarts ([`returns`]).
//!
//! What reads the trees is the master's: the minion's `CompileSource` is
//! [`remote::Remote`] (pillar compiles, state compiles, Hiera lookups,
//! `salt://` files through [`fileclient`]); functions run on the minion.
//!
//! Every identity shares one ret-port connection ([`link`]) and one
//! subscription per master; a swarm ([`swarm`]) is many identities in one
//! process. Several masters ([`masters`]): a session (link, subscription,
//! identities) per master served, all at once or one at a time.
//! Everything runs on one current-thread tokio runtime; execution functions
//! (which block) run on tokio's blocking threads.

pub mod auth;
pub mod fileclient;
pub mod jobs;
pub mod keys;
pub mod link;
pub mod masters;
pub mod pillar;
pub mod remote;
pub mod returns;
pub mod running;
pub mod swarm;
#[cfg(test)]
pub(crate) mod testutil;

use brine_compile::opts::{self, OptsError};
use brine_core::Value;
use brine_protocol::crypto::{KeyPair, Nonce, PublicKeys, ReplayGuard, SessionKey};
use brine_protocol::messages::{ErrorCode, ReplyBody, Request, RequestBody, WireError};
use brine_protocol::transport::Limits;
use brine_runtime::context::{CompileSource, Minion};
use link::{Link, LinkError};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicU64;
use std::sync::{Arc, Mutex, RwLock};
use std::time::Duration;
use tokio::sync::{watch, Notify, Semaphore};

/// Salt's `EX_NOPERM`: the master refused this minion's key.
pub const EX_NOPERM: i32 = 77;
/// Salt exits with 42 when the master's key does not match `master_finger`;
/// brine uses it for a changed master key as well.
pub const EX_MASTER_KEY: i32 = 42;
/// Configuration errors.
pub const EX_CONFIG: i32 = 2;

/// How old a publication may be before it is dropped as stale.
const PUBLICATION_WINDOW: Duration = Duration::from_secs(300);
/// Clock difference tolerated between master and minion.
const PUBLICATION_SKEW: Duration = Duration::from_secs(60);
/// Most publication nonces remembered in the window.
const PUBLICATION_NONCES: usize = 100_000;
/// Seconds a stop waits for running jobs, unless `shutdown_timeout` says.
const DEFAULT_SHUTDOWN_TIMEOUT: u64 = 30;

/// Most functions running at once in this process.
const MAX_CONCURRENT_JOBS: usize = 32;

#[derive(Debug, thiserror::Error)]
pub enum DaemonError {
    #[error(transparent)]
    Opts(#[from] OptsError),
    #[error("option '{key}': {problem}")]
    Config { key: &'static str, problem: String },
    #[error(transparent)]
    Keys(#[from] keys::MinionKeyError),
    #[error("cannot start the async runtime: {0}")]
    Runtime(std::io::Error),
}

/// The options brine-minion reads from `CONFDIR/minion` (Salt's names).
#[derive(Debug, Clone)]
pub struct DaemonConfig {
    pub id: String,
    /// `master`: host names or addresses (several: Salt's multi-master).
    pub masters: Vec<String>,
    /// `master_type`: serve every master at once, or one at a time.
    pub master_type: masters::MasterType,
    /// `master_alive_interval`: how often a failover minion checks that
    /// its master is there (zero: never, Salt's default).
    pub master_alive_interval: Duration,
    /// `master_failback`: go back to the first master once it is up.
    pub master_failback: bool,
    /// `master_failback_interval` (zero in the file: the alive interval).
    pub master_failback_interval: Duration,
    /// `random_master`: try the masters in a random order.
    pub random_master: bool,
    /// `master_port`: the master's ret port.
    pub master_port: u16,
    pub publish_port: u16,
    pub pki_dir: PathBuf,
    pub cachedir: PathBuf,
    pub master_finger: Option<String>,
    pub acceptance_wait_time: Duration,
    pub pillarenv: Option<String>,
    pub saltenv: Option<String>,
    /// How long a stop (SIGTERM) waits for running jobs (`shutdown_timeout`,
    /// seconds); a job still running then gets an error return, sent after
    /// the next start.
    pub shutdown_timeout: Duration,
}

impl DaemonConfig {
    /// Read the daemon's options from a loaded minion's `opts`.
    pub fn from_minion(m: &Minion) -> Result<DaemonConfig, DaemonError> {
        let o = &m.opts;
        let master_list = matches!(o.get("master"), Some(Value::List(_)));
        let masters = match o.get("master") {
            Some(Value::Str(s)) => vec![s.clone()],
            Some(Value::List(l)) => {
                let names: Vec<String> = l
                    .iter()
                    .filter_map(Value::as_str)
                    .map(str::to_string)
                    .collect();
                if names.is_empty() {
                    return Err(DaemonError::Config {
                        key: "master",
                        problem: "an empty list names no master".into(),
                    });
                }
                names
            }
            _ => vec!["salt".to_string()],
        };
        let t = opts::get_str(o, "master_type").unwrap_or("str");
        let master_type = masters::MasterType::parse(t).ok_or_else(|| DaemonError::Config {
            key: "master_type",
            problem: format!("Invalid keyword '{t}' (brine-minion serves str and failover)"),
        })?;
        if master_type == masters::MasterType::Failover && !master_list {
            return Err(DaemonError::Config {
                key: "master_type",
                problem: "master_type set to 'failover' but 'master' is not of type list but of \
                          type str"
                    .into(),
            });
        }
        let seconds = |key: &'static str| -> Result<Duration, DaemonError> {
            match o.get(key) {
                None | Some(Value::Null) => Ok(Duration::ZERO),
                Some(Value::Int(i)) if (0..=86_400).contains(i) => {
                    Ok(Duration::from_secs(*i as u64))
                }
                Some(other) => Err(DaemonError::Config {
                    key,
                    problem: format!(
                        "expected seconds between 0 and 86400, found {}",
                        other.to_python_repr()
                    ),
                }),
            }
        };
        let master_alive_interval = seconds("master_alive_interval")?;
        let mut master_failback_interval = seconds("master_failback_interval")?;
        if master_failback_interval.is_zero() {
            master_failback_interval = master_alive_interval;
        }
        let port = |key: &'static str, default: u16| -> Result<u16, DaemonError> {
            match o.get(key) {
                None | Some(Value::Null) => Ok(default),
                Some(Value::Int(i)) => {
                    u16::try_from(*i)
                        .ok()
                        .filter(|p| *p > 0)
                        .ok_or(DaemonError::Config {
                            key,
                            problem: format!("{i} is not a TCP port"),
                        })
                }
                Some(other) => Err(DaemonError::Config {
                    key,
                    problem: format!("expected a port number, found {}", other.to_python_repr()),
                }),
            }
        };
        let wait = match o.get("acceptance_wait_time") {
            Some(Value::Int(i)) if *i >= 0 => *i as u64,
            Some(Value::Float(f)) if *f >= 0.0 => *f as u64,
            _ => 10,
        };
        let shutdown = match o.get("shutdown_timeout") {
            None | Some(Value::Null) => DEFAULT_SHUTDOWN_TIMEOUT,
            Some(Value::Int(i)) if (0..=3600).contains(i) => *i as u64,
            Some(other) => {
                return Err(DaemonError::Config {
                    key: "shutdown_timeout",
                    problem: format!(
                        "expected seconds between 0 and 3600, found {}",
                        other.to_python_repr()
                    ),
                })
            }
        };
        let path =
            |key: &str, default: &str| PathBuf::from(opts::get_str(o, key).unwrap_or(default));
        Ok(DaemonConfig {
            id: m.id.clone(),
            masters,
            master_type,
            master_alive_interval,
            master_failback: opts::get_bool(o, "master_failback", false),
            master_failback_interval,
            random_master: opts::get_bool(o, "random_master", false),
            master_port: port("master_port", 4506)?,
            publish_port: port("publish_port", 4505)?,
            pki_dir: path("pki_dir", "/etc/brine/pki/minion"),
            cachedir: path("cachedir", "/var/cache/brine/minion"),
            master_finger: opts::get_str(o, "master_finger")
                .filter(|s| !s.trim().is_empty())
                .map(str::to_string),
            acceptance_wait_time: Duration::from_secs(wait.max(1)),
            pillarenv: opts::get_str(o, "pillarenv").map(str::to_string),
            saltenv: opts::get_str(o, "saltenv").map(str::to_string),
            shutdown_timeout: Duration::from_secs(shutdown),
        })
    }
}

/// Where an identity stands with the master.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Standing {
    /// Not yet heard from the master.
    Starting,
    /// Key waiting for acceptance.
    Pending,
    /// Accepted; pillar not fetched yet.
    Accepted,
    /// Accepted with its pillar in memory: jobs run.
    Ready,
}

/// Why a request to the master got no usable answer.
#[derive(Debug, thiserror::Error)]
pub enum RequestError {
    #[error(transparent)]
    Link(#[from] LinkError),
    #[error("cannot build the request: {0}")]
    Wire(#[from] WireError),
    #[error("the master's key is not known yet (not authenticated)")]
    NoMasterKey,
    #[error("the reply was not signed by the pinned master key")]
    WrongSigner,
    #[error("the master refused the request ({code:?}): {message}")]
    Refused { code: ErrorCode, message: String },
    #[error("the master answered a {what} request with an unexpected reply")]
    Unexpected { what: &'static str },
    #[error("cannot open the sealed reply: {0}")]
    Open(WireError),
}

impl RequestError {
    /// Whether asking again later can succeed.
    pub fn is_transient(&self) -> bool {
        match self {
            RequestError::Link(e) => e.is_transient(),
            RequestError::NoMasterKey => true,
            RequestError::Refused { code, .. } => !matches!(
                code,
                ErrorCode::BadRequest | ErrorCode::NotFound | ErrorCode::Unauthorized
            ),
            _ => false,
        }
    }
}

/// Between an identity's requests and its auth loop: "authenticate again"
/// (key refused, master restarted or lost its cache), and a count of the
/// authentications done, to wait for the next one.
#[derive(Debug)]
pub struct AuthSignal {
    pub reauth: Notify,
    pub done: watch::Sender<u64>,
}

impl AuthSignal {
    pub fn new() -> AuthSignal {
        AuthSignal {
            reauth: Notify::new(),
            done: watch::channel(0).0,
        }
    }

    /// Ask for a new authentication and wait (bounded) until one is done.
    pub async fn renew(&self, timeout: Duration) -> bool {
        let mut rx = self.done.subscribe();
        let before = *rx.borrow_and_update();
        self.reauth.notify_one();
        tokio::time::timeout(timeout, rx.wait_for(|n| *n > before))
            .await
            .is_ok_and(|r| r.is_ok())
    }
}

impl Default for AuthSignal {
    fn default() -> Self {
        AuthSignal::new()
    }
}

/// How long a request refused for want of authentication waits for the
/// identity to authenticate again before it is retried once.
const RENEW_AUTH_WAIT: Duration = Duration::from_secs(30);

/// What the master process that accepted an identity gave it, from its
/// auth reply: the instance every request names (the other masters
/// sharing its key refuse them) and the key requests are sealed with (see
/// `brine_protocol::crypto::RequestKeys`). Empty until then: requests name
/// no master and are sealed to the master's key.
#[derive(Debug, Clone, Default)]
pub struct Admission {
    pub instance: Option<Nonce>,
    pub request_key: Option<SessionKey>,
}

/// One identity's way to ask the master: the shared link, its own key and
/// id, and the trusted master key.
#[derive(Clone)]
pub struct MasterClient {
    pub link: Link,
    pub id: String,
    pub key: KeyPair,
    /// The master's keys once trusted (set by [`auth`]).
    pub master: Arc<RwLock<Option<PublicKeys>>>,
    /// What the master process that accepted us gave for our requests.
    pub admission: Arc<RwLock<Admission>>,
    /// The runtime, for blocking calls from function threads.
    pub handle: tokio::runtime::Handle,
    pub auth: Arc<AuthSignal>,
}

impl MasterClient {
    pub fn master_key(&self) -> Option<PublicKeys> {
        self.master.read().ok().and_then(|g| *g)
    }

    fn admission(&self) -> Admission {
        self.admission
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    /// Send `body` and return the master's answer with the request it
    /// answers (its nonce binds sealed data). Error replies become
    /// [`RequestError::Refused`].
    pub async fn request(
        &self,
        body: RequestBody,
        timeout: Duration,
    ) -> Result<(Request, ReplyBody), RequestError> {
        self.send_renewing(body, false, timeout).await
    }

    /// [`MasterClient::request`] with the body sealed to the master: for
    /// anything secret (returns, pillar requests, state compiles).
    pub async fn request_sealed(
        &self,
        body: RequestBody,
        timeout: Duration,
    ) -> Result<(Request, ReplyBody), RequestError> {
        self.send_renewing(body, true, timeout).await
    }

    /// [`MasterClient::request_sealed`] without waiting for a new
    /// authentication when refused (for the auth loop's own requests).
    pub async fn request_sealed_once(
        &self,
        body: RequestBody,
        timeout: Duration,
    ) -> Result<(Request, ReplyBody), RequestError> {
        self.send(body, true, timeout).await
    }

    /// Send; when the master answers that it does not know us (key not
    /// accepted, or it lost our auth data), authenticate again and retry
    /// once.
    async fn send_renewing(
        &self,
        body: RequestBody,
        sealed: bool,
        timeout: Duration,
    ) -> Result<(Request, ReplyBody), RequestError> {
        match self.send(body.clone(), sealed, timeout).await {
            Err(RequestError::Refused {
                code: ErrorCode::NotAccepted,
                message,
            }) => {
                if !self.auth.renew(RENEW_AUTH_WAIT).await {
                    return Err(RequestError::Refused {
                        code: ErrorCode::NotAccepted,
                        message,
                    });
                }
                self.send(body, sealed, timeout).await
            }
            other => other,
        }
    }

    async fn send(
        &self,
        body: RequestBody,
        sealed: bool,
        timeout: Duration,
    ) -> Result<(Request, ReplyBody), RequestError> {
        let master = self.master_key().ok_or(RequestError::NoMasterKey)?;
        let admission = self.admission();
        let req = match (sealed, &admission.request_key) {
            (true, Some(key)) => Request::sealed_with_key(key, &self.id, &body)?,
            (true, None) => Request::sealed(&master.x25519, &self.id, &body)?,
            (false, _) => Request::new(body)?,
        }
        .waiting(timeout)
        .to_instance(admission.instance);
        let v = self.link.call(&self.key, &req, timeout).await?;
        if v.signer != *master.ed25519 {
            return Err(RequestError::WrongSigner);
        }
        match v.msg.msg {
            ReplyBody::Error(e) => {
                if e.code == ErrorCode::Expired {
                    // Answered in time, yet expired on arrival: this host's
                    // clock is behind the master's. Follow it from now on.
                    brine_protocol::crypto::follow_master_clock(v.msg.created_ms);
                }
                Err(RequestError::Refused {
                    code: e.code,
                    message: e.message,
                })
            }
            body => Ok((req, body)),
        }
    }

    /// [`MasterClient::request`] from a function's (blocking) thread.
    pub fn request_blocking(
        &self,
        body: RequestBody,
        timeout: Duration,
    ) -> Result<(Request, ReplyBody), RequestError> {
        self.handle.block_on(self.request(body, timeout))
    }
}

/// One minion id served by this process.
pub struct Identity {
    pub client: MasterClient,
    pub pki_dir: PathBuf,
    pub cachedir: PathBuf,
    /// The minion as functions see it; each job runs on a snapshot.
    pub minion: RwLock<Arc<Minion>>,
    pub standing: watch::Sender<Standing>,
    pub returns: Arc<returns::ReturnQueue>,
    /// Jobs running now (Salt's proc files): `saltutil.running` data.
    pub running: Arc<running::RunningTable>,
}

impl Identity {
    pub fn id(&self) -> &str {
        &self.client.id
    }

    pub fn snapshot(&self) -> Arc<Minion> {
        match self.minion.read() {
            Ok(g) => g.clone(),
            Err(poisoned) => poisoned.into_inner().clone(),
        }
    }

    /// Replace the in-memory pillar.
    pub fn set_pillar(&self, pillar: brine_core::Map) {
        let mut g = match self.minion.write() {
            Ok(g) => g,
            Err(poisoned) => poisoned.into_inner(),
        };
        let mut m = (**g).clone();
        m.pillar = Arc::new(pillar);
        *g = Arc::new(m);
    }

    /// Replace the grains (a function wrote some).
    pub fn set_grains(&self, grains: Arc<brine_core::Map>) {
        let mut g = match self.minion.write() {
            Ok(g) => g,
            Err(poisoned) => poisoned.into_inner(),
        };
        let mut m = (**g).clone();
        m.grains = grains;
        *g = Arc::new(m);
    }

    pub fn standing(&self) -> Standing {
        *self.standing.borrow()
    }

    /// Ask the auth loop to authenticate again.
    pub fn reauth(&self) {
        self.client.auth.reauth.notify_one();
    }
}

/// What every identity of the process shares.
pub struct Shared {
    pub config: DaemonConfig,
    pub link: Link,
    pub limits: Limits,
    pub identities: Vec<Arc<Identity>>,
    /// Publications already seen (one guard: every identity receives the
    /// same publications on the one subscription).
    pub replay: Mutex<ReplayGuard>,
    /// Publications stamped before this process started (in the master's
    /// time, known from the first accepted authentication) are refused:
    /// after a restart, the replay memory is empty, and this is what keeps
    /// old publications out. 0 until then.
    pub publications_since: AtomicU64,
    /// This host's clock when the process started.
    pub started_local_ms: u64,
    /// Set at SIGTERM: publications are no longer taken.
    pub stopping: std::sync::atomic::AtomicBool,
    /// The master's session key (publications are encrypted with it), from
    /// the last accepted authentication.
    pub session: RwLock<Option<SessionKey>>,
    /// The master key publications are checked against: the pinned one,
    /// or while pending the one the master offered (checked against the
    /// pin and `master_finger`).
    pub master: Arc<RwLock<Option<PublicKeys>>>,
    pub jobs: Semaphore,
    /// The process's sessions with its other masters (see
    /// [`returns::OtherMasters`]).
    pub others: Arc<returns::OtherMasters>,
    /// A fatal condition (refused key, changed master key): exit code and
    /// message.
    pub fatal: tokio::sync::mpsc::Sender<(i32, String)>,
}

impl Shared {
    /// The session key publications are read with, if the master gave one.
    pub fn session(&self) -> Option<SessionKey> {
        self.session
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    pub fn set_session(&self, key: SessionKey) {
        *self.session.write().unwrap_or_else(|p| p.into_inner()) = Some(key);
    }

    /// Accept publications stamped from the process start on, given
    /// `master_ms`, the master's time now (the first accepted
    /// authentication sets it; later ones do not move it).
    pub fn publications_from(&self, master_ms: u64) {
        let running = brine_protocol::crypto::local_now_ms().saturating_sub(self.started_local_ms);
        let _ = self.publications_since.compare_exchange(
            0,
            master_ms.saturating_sub(running).max(1),
            std::sync::atomic::Ordering::AcqRel,
            std::sync::atomic::Ordering::Acquire,
        );
    }

    pub fn master_key(&self) -> Option<PublicKeys> {
        self.master.read().ok().and_then(|g| *g)
    }
}

/// Command-line options of `brine-minion`.
#[derive(Debug, Clone, PartialEq)]
pub struct DaemonArgs {
    pub confdir: PathBuf,
    pub log_level: Option<String>,
    /// `--swarm N`: serve N identities `<id>-0000`... in this process.
    pub swarm: Option<usize>,
}

/// salt-minion's options (the ones brine reads), and `--swarm`.
pub fn command() -> brine_cli::Command {
    use brine_cli::Opt;
    brine_cli::Command {
        name: "brine-minion",
        usage: "[options]",
        about: "The brine minion daemon (Salt's salt-minion); runs in the foreground.",
        options: vec![
            brine_cli::CONFIG_DIR,
            brine_cli::LOG_LEVEL,
            Opt::value(
                "swarm",
                None,
                "N",
                "serve N minion identities <id>-0000... in this process (benchmarks)",
            ),
            // salt-minion's -d (daemonize): systemd runs us in the foreground.
            Opt::flag(
                "daemon",
                Some('d'),
                "accepted for compatibility (runs in the foreground)",
            ),
        ],
    }
}

/// The daemon's options from the parsed command line.
pub fn from_matches(m: brine_cli::Matches) -> Result<DaemonArgs, brine_cli::CliError> {
    if let Some(extra) = m.positionals.first() {
        return Err(brine_cli::CliError::Invalid(format!(
            "unexpected argument: {extra}"
        )));
    }
    let swarm = match m.value("swarm") {
        None => None,
        Some(v) => Some(
            v.parse()
                .ok()
                .filter(|n| (1..=100_000).contains(n))
                .ok_or_else(|| {
                    brine_cli::CliError::Invalid(format!(
                        "--swarm needs a count from 1 to 100000, not {v:?}"
                    ))
                })?,
        ),
    };
    Ok(DaemonArgs {
        confdir: PathBuf::from(m.value("config-dir").unwrap_or("/etc/brine")),
        log_level: m.value("log-level").map(str::to_string),
        swarm,
    })
}

/// Run the daemon until SIGTERM/SIGINT (exit 0) or a fatal refusal.
/// Returns the process exit code.
pub fn main(args: &DaemonArgs) -> i32 {
    let (mut base, warnings) =
        match Minion::load(&args.confdir, brine_runtime::modules::functions()) {
            Ok(m) => m,
            Err(e) => {
                tracing::error!("{e}");
                eprintln!("Error: {e}");
                return EX_CONFIG;
            }
        };
    // Salt's opts say which program runs the functions: state runs of the
    // daemon compile a fresh pillar, salt-call's use the one in memory.
    Arc::make_mut(&mut base.opts).insert("__cli".into(), Value::Str("salt-minion".into()));
    for w in warnings {
        tracing::warn!("{w}");
    }
    let config = match DaemonConfig::from_minion(&base) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("Error: {e}");
            return EX_CONFIG;
        }
    };
    let rt = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        // Functions run on blocking threads; a swarm bounds them itself.
        .max_blocking_threads(MAX_CONCURRENT_JOBS + 8)
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("Error: {}", DaemonError::Runtime(e));
            return EX_CONFIG;
        }
    };
    let code = rt.block_on(masters::serve(config, base, args.swarm));
    // A function still running on a blocking thread does not hold the exit
    // up (its return is lost, as it would be with a crash).
    rt.shutdown_timeout(Duration::from_millis(500));
    code
}

/// Resolve `host:port`, retrying while the name does not resolve.
pub(crate) async fn resolve(host: &str, port: u16) -> SocketAddr {
    let mut delay = Duration::from_secs(1);
    loop {
        match tokio::net::lookup_host((host, port)).await {
            Ok(mut addrs) => {
                if let Some(a) = addrs.next() {
                    return a;
                }
                tracing::warn!("master {host} resolves to no address; retrying in {delay:?}");
            }
            Err(e) => {
                tracing::warn!("cannot resolve master {host}: {e}; retrying in {delay:?}")
            }
        }
        tokio::time::sleep(delay).await;
        delay = (delay * 2).min(Duration::from_secs(30));
    }
}

/// Build one identity: its directories and keys, and its minion with the
/// remote pillar source.
pub fn make_identity(
    link: &Link,
    base: &Minion,
    id: &str,
    pki_dir: &Path,
    cachedir: &Path,
    queues: &returns::Queues,
    queue: &str,
) -> Result<Arc<Identity>, DaemonError> {
    let key = keys::load_or_create(pki_dir)?;
    // No master is trusted before this run's auth has checked its key
    // against the pin.
    let client = MasterClient {
        link: link.clone(),
        id: id.to_string(),
        key,
        master: Arc::new(RwLock::new(None)),
        admission: Arc::default(),
        handle: tokio::runtime::Handle::current(),
        auth: Arc::new(AuthSignal::new()),
    };
    let mut minion = base.clone();
    if minion.id != id {
        minion.id = id.to_string();
        Arc::make_mut(&mut minion.opts).insert("id".into(), Value::Str(id.to_string()));
        Arc::make_mut(&mut minion.grains).insert("id".into(), Value::Str(id.to_string()));
    }
    minion.source = CompileSource::Master(Arc::new(remote::Remote::new(client.clone(), cachedir)));
    let (standing, _) = watch::channel(Standing::Starting);
    Ok(Arc::new(Identity {
        returns: queues.get(cachedir, queue),
        client,
        pki_dir: pki_dir.to_path_buf(),
        cachedir: cachedir.to_path_buf(),
        minion: RwLock::new(Arc::new(minion)),
        standing,
        running: Default::default(),
    }))
}

/// One master's session: the shared state of its identities and the tasks
/// serving them (authentication, subscription, reconnect watch).
pub struct Session {
    pub shared: Arc<Shared>,
    pub tasks: Vec<tokio::task::JoinHandle<()>>,
}

/// What every master session of the process is opened from.
pub struct Process {
    pub config: DaemonConfig,
    /// The minion as loaded (grains collected once).
    pub base: Minion,
    pub swarm: Option<usize>,
    pub queues: returns::Queues,
    /// `master_type: str` with several masters: each identity at every
    /// master, where returns go when their master cannot be reached.
    pub others: Arc<returns::OtherMasters>,
    /// Where a session reports a fatal refusal (exit code, message).
    pub fatal: tokio::sync::mpsc::Sender<(i32, String)>,
}

/// Connect to `master` (its ret port at `addr`): build the identities
/// (their undelivered returns under `cachedir/<queue>`) and start their
/// tasks.
pub fn open_session(
    process: &Process,
    master: &str,
    ret_addr: SocketAddr,
    queue: &str,
) -> Result<Session, DaemonError> {
    let Process {
        config,
        base,
        swarm,
        queues,
        others,
        fatal,
    } = process;
    let (swarm, fatal) = (*swarm, fatal.clone());
    let pub_addr = SocketAddr::new(ret_addr.ip(), config.publish_port);
    let limits = Limits::default();
    let link = Link::start(ret_addr, limits.clone());
    let identities = match swarm {
        None => make_identity(
            &link,
            base,
            &config.id,
            &config.pki_dir,
            &config.cachedir,
            queues,
            queue,
        )
        .map(|i| vec![i]),
        Some(n) => swarm::identities(&link, base, config, n, queues, queue),
    }?;
    if config.master_type == masters::MasterType::Str && config.masters.len() > 1 {
        for ident in &identities {
            others.add(ident);
        }
    }
    let shared = Arc::new(Shared {
        config: config.clone(),
        link,
        limits,
        identities,
        replay: Mutex::new(ReplayGuard::new(
            PUBLICATION_WINDOW.as_millis() as u64,
            PUBLICATION_SKEW.as_millis() as u64,
            PUBLICATION_NONCES,
        )),
        publications_since: AtomicU64::new(0),
        started_local_ms: brine_protocol::crypto::local_now_ms(),
        stopping: std::sync::atomic::AtomicBool::new(false),
        session: RwLock::new(None),
        master: Arc::new(RwLock::new(None)),
        jobs: Semaphore::new(MAX_CONCURRENT_JOBS),
        others: others.clone(),
        fatal,
    });
    tracing::info!(
        "brine-minion {} starting: master {master} at {ret_addr} (publish port {})",
        if shared.identities.len() == 1 {
            shared.config.id.clone()
        } else {
            format!("swarm of {}", shared.identities.len())
        },
        shared.config.publish_port
    );
    let mut tasks: Vec<_> = shared
        .identities
        .iter()
        .map(|ident| tokio::spawn(auth::identity_main(shared.clone(), ident.clone())))
        .collect();
    tasks.push(tokio::spawn(jobs::subscribe(shared.clone(), pub_addr)));
    tasks.push(tokio::spawn(watch_reconnects(shared.clone())));
    Ok(Session { shared, tasks })
}

/// Stop taking jobs and give the running ones `shutdown_timeout` to
/// finish (a job counts as running until its return is acknowledged or
/// queued on disk, so a return the master has not taken yet is sent after
/// the next start). A
/// job still running then is given an error return in the queue: the
/// master learns the minion stopped rather than never hearing.
pub(crate) async fn drain(shared: &Shared) {
    shared
        .stopping
        .store(true, std::sync::atomic::Ordering::Release);
    // Jobs still running (a finished job's return is acknowledged or on
    // disk already).
    let busy = || {
        shared
            .identities
            .iter()
            .map(|i| i.running.len())
            .sum::<usize>()
    };
    if busy() == 0 {
        return;
    }
    let grace = shared.config.shutdown_timeout;
    tracing::info!(
        "waiting up to {} s for {} running job(s) to finish",
        grace.as_secs(),
        busy()
    );
    let deadline = tokio::time::Instant::now() + grace;
    while busy() > 0 && tokio::time::Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    for ident in &shared.identities {
        for proc_data in ident.running.snapshot() {
            let ret = jobs::cut_short(ident.id(), &proc_data, grace);
            tracing::warn!(
                "{}: job {} ({}) still running at stop; an error return is queued for the master",
                ident.id(),
                ret.jid,
                ret.fun
            );
            if let Err(e) = ident.returns.persist(&ret) {
                tracing::error!("cannot queue the return of job {}: {e}", ret.jid);
            }
        }
    }
}

/// After the link reconnects to a master (a restart), authenticate again
/// so the master has every identity's grains.
async fn watch_reconnects(shared: Arc<Shared>) {
    let mut gen = shared.link.generation();
    let mut seen = *gen.borrow_and_update();
    while gen.changed().await.is_ok() {
        let now = *gen.borrow_and_update();
        if seen != 0 && now != seen {
            for ident in &shared.identities {
                ident.client.auth.reauth.notify_one();
            }
        }
        seen = now;
    }
}

pub(crate) async fn wait_for_end(fatal: &mut tokio::sync::mpsc::Receiver<(i32, String)>) -> i32 {
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    tokio::select! {
        _ = tokio::signal::ctrl_c() => {
            tracing::info!("interrupted; stopping");
            0
        }
        _ = term => {
            tracing::info!("SIGTERM; stopping");
            0
        }
        Some((code, msg)) = fatal.recv() => {
            tracing::error!("{msg}");
            eprintln!("{msg}");
            code
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(a: &[&str]) -> Vec<String> {
        a.iter().map(|s| s.to_string()).collect()
    }

    fn parse_args(argv: &[String]) -> Result<DaemonArgs, brine_cli::CliError> {
        match command().parse(argv)? {
            brine_cli::Parsed::Run(m) => from_matches(m),
            other => panic!("{argv:?}: {other:?}"),
        }
    }

    #[test]
    fn parses_the_command_line() {
        let a = parse_args(&v(&["-c", "/x", "--swarm", "500", "-l", "debug"])).unwrap();
        assert_eq!(a.confdir, PathBuf::from("/x"));
        assert_eq!(a.swarm, Some(500));
        assert_eq!(a.log_level.as_deref(), Some("debug"));
        assert_eq!(parse_args(&v(&["--swarm=3"])).unwrap().swarm, Some(3));
        assert!(parse_args(&v(&["--swarm", "0"])).is_err());
        assert!(parse_args(&v(&["--swarm", "x"])).is_err());
        assert!(parse_args(&v(&["--bogus"])).is_err());
        assert!(parse_args(&v(&["-c"])).is_err());
    }

    #[test]
    fn reads_salts_option_names() {
        let td = tempfile::tempdir().unwrap();
        std::fs::write(
            td.path().join("minion"),
            format!(
                "id: web1\nmaster: [127.0.0.1, 10.0.0.2]\nmaster_port: 5506\npublish_port: 5505\n\
                 root_dir: {}\nacceptance_wait_time: 3\npillarenv: dev\n",
                td.path().display()
            ),
        )
        .unwrap();
        let (m, _) = Minion::load(td.path(), Default::default()).unwrap();
        let c = DaemonConfig::from_minion(&m).unwrap();
        assert_eq!(c.id, "web1");
        assert_eq!(c.masters, ["127.0.0.1", "10.0.0.2"]);
        assert_eq!(c.master_type, masters::MasterType::Str);
        assert_eq!(c.master_alive_interval, Duration::ZERO);
        assert_eq!((c.master_port, c.publish_port), (5506, 5505));
        // Salt's default paths, under root_dir.
        assert_eq!(c.pki_dir, td.path().join("etc/brine/pki/minion"));
        assert_eq!(c.cachedir, td.path().join("var/cache/brine/minion"));
        assert_eq!(c.acceptance_wait_time, Duration::from_secs(3));
        assert_eq!(c.pillarenv.as_deref(), Some("dev"));
        // Two masters in str mode: each its own queue of returns.
        assert_eq!(
            masters::queue_folder(&c, "10.0.0.2"),
            "pending_returns-10.0.0.2_5506"
        );
        let one = DaemonConfig {
            masters: vec!["127.0.0.1".into()],
            ..c.clone()
        };
        assert_eq!(masters::queue_folder(&one, "127.0.0.1"), "pending_returns");
        let failover = DaemonConfig {
            master_type: masters::MasterType::Failover,
            ..c
        };
        assert_eq!(
            masters::queue_folder(&failover, "10.0.0.2"),
            "pending_returns"
        );

        std::fs::write(td.path().join("minion"), "id: x\nmaster_port: 70000\n").unwrap();
        let (m, _) = Minion::load(td.path(), Default::default()).unwrap();
        let err = DaemonConfig::from_minion(&m).unwrap_err().to_string();
        assert!(
            err.contains("master_port") && err.contains("70000"),
            "{err}"
        );
    }
}
