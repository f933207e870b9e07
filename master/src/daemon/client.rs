//! The local client of the master (`brine`, `brine-run`, the reactor,
//! tests): signs with a throwaway key, proves it may publish with the root
//! token from the master's cachedir — or, run by a local user under
//! `publisher_acl`, with their key file in `sock_dir`, or with an eauth
//! token ([`Client::login`]) — and checks every reply against
//! `master.pub` (for a user who cannot read the pki dir, the copy the
//! master leaves in `sock_dir`). It goes through the master's local socket in `sock_dir`
//! when there is one (no remote peer can fill it), else the ret port.

use super::config::MasterConfig;
use crate::eauth::publisher_acl;
use crate::keys::{KeyStore, ROOT_TOKEN_FILE};
use brine_core::{Map, Value};
use brine_protocol::crypto::{KeyPair, PublicKeys};
use brine_protocol::messages::MinionReturn;
use brine_protocol::messages::{
    CliLogin, CliPublish, ErrorReply, GetReturns, PublishReply, ReplyBody, Request, RequestBody,
    ReturnsReply, TokenReply,
};
use brine_protocol::transport::{
    call, connect_dealer, connect_dealer_local, Limited, Limits, TransportError,
};
use indexmap::IndexMap;
use std::net::SocketAddr;
use std::time::{Duration, Instant};
use zeromq::DealerSocket;

#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    #[error("cannot read the master's key (is brine-master set up with this config?): {0}")]
    MasterKey(crate::keys::KeyStoreError),
    #[error("cannot read the root token {path}: {source} (brine must run as the master's user)")]
    Token {
        path: std::path::PathBuf,
        source: std::io::Error,
    },
    /// Neither the root token nor this user's key file can be read.
    #[error(
        "{user} may not use the master: cannot read {root} or {key} ({source}); \
         publisher_acl names the local users who may"
    )]
    NoKey {
        user: String,
        root: std::path::PathBuf,
        key: std::path::PathBuf,
        source: std::io::Error,
    },
    #[error("the master at {addr} did not answer: {source}")]
    Transport { addr: Route, source: TransportError },
    /// Nothing listens where the master should: it is not running.
    #[error("the master is not running: nothing listens at {addr} ({cause})")]
    NotRunning { addr: Route, cause: std::io::Error },
    #[error("the master refused: {0:?}: {1}")]
    Refused(brine_protocol::messages::ErrorCode, String),
    /// `-a` names a backend brine does not have.
    #[error("the specified external authentication system {0:?} is not available")]
    UnknownEauth(String),
    #[error("the credentials for --auth: {0}")]
    Prompt(std::io::Error),
    #[error("unexpected answer from the master")]
    Unexpected,
    #[error(transparent)]
    Crypto(#[from] brine_protocol::crypto::CryptoError),
    #[error(transparent)]
    Wire(#[from] brine_protocol::messages::WireError),
}

/// Where the client reaches the master.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Route {
    /// The master's local socket (`MasterConfig::local_socket`).
    Local(std::path::PathBuf),
    /// The ret port.
    Net(SocketAddr),
}

impl std::fmt::Display for Route {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Route::Local(p) => write!(f, "{}", p.display()),
            Route::Net(a) => write!(f, "{a}"),
        }
    }
}

pub struct Client {
    addr: Route,
    master: PublicKeys,
    token: String,
    key: KeyPair,
    limits: Limits,
    socket: Option<Limited<DealerSocket>>,
    /// How long one request may wait for its reply.
    pub request_timeout: Duration,
    /// Whom jobs are published for (brine-api's logged-in user); root
    /// when unset.
    pub user: Option<String>,
}

/// `token_file`: as set, else Salt's default — `salt_token` in the
/// user's XDG config folder for salt (`$XDG_CONFIG_HOME/salt`, else
/// `~/.config/salt`) when it exists, else in their home.
pub fn token_file(config: &MasterConfig) -> std::path::PathBuf {
    let home = std::env::var_os("HOME")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| std::path::PathBuf::from("/"));
    if let Some(raw) = brine_compile::opts::get_str(&config.opts, "token_file") {
        return match raw.strip_prefix("~/") {
            Some(rest) => home.join(rest),
            None => std::path::PathBuf::from(raw),
        };
    }
    let xdg = std::env::var_os("XDG_CONFIG_HOME")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| home.join(".config"))
        .join("salt");
    if xdg.is_dir() {
        xdg.join("salt_token")
    } else {
        home.join("salt_token")
    }
}

/// The token in `path`, while younger than `token_expire` seconds (by
/// the file's time, as Salt judges it).
fn kept_token(path: &std::path::Path, token_expire: u64) -> Option<String> {
    let age = std::fs::metadata(path)
        .ok()?
        .modified()
        .ok()?
        .elapsed()
        .unwrap_or_default();
    if age.as_secs() >= token_expire {
        return None;
    }
    let t = std::fs::read_to_string(path).ok()?.trim().to_string();
    (!t.is_empty()).then_some(t)
}

/// Keep `token` in `path`, readable by its user alone (as Salt's umask
/// 0177); a file that cannot be written is only logged, as Salt ignores it.
fn keep_token(path: &std::path::Path, token: &str) {
    use std::os::unix::fs::OpenOptionsExt;
    let written = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o600)
        .open(path)
        .and_then(|mut f| std::io::Write::write_all(&mut f, token.as_bytes()));
    if let Err(e) = written {
        tracing::warn!("cannot keep the token in {}: {e}", path.display());
    }
}

impl Client {
    /// A client for the master described by `config` (its `master.pub`,
    /// root token, and ret port on the local side).
    pub fn for_config(config: &MasterConfig) -> Result<Client, ClientError> {
        let path = config.cachedir.join(ROOT_TOKEN_FILE);
        let (token, user) = match std::fs::read_to_string(&path) {
            Ok(t) => (t.trim().to_string(), None),
            Err(source) => {
                let user = publisher_acl::current_user();
                if user == "root" {
                    return Err(ClientError::Token { path, source });
                }
                let key = publisher_acl::key_path(&config.sock_dir, &user);
                match std::fs::read_to_string(&key) {
                    Ok(k) => (k.trim().to_string(), Some(user)),
                    Err(source) => {
                        return Err(ClientError::NoKey {
                            user,
                            root: path,
                            key,
                            source,
                        })
                    }
                }
            }
        };
        let mut c = Client::unauthenticated(config)?;
        c.token = token;
        c.user = user;
        Ok(c)
    }

    /// The client of a command run by an operator (`brine`, `brine-run`),
    /// choosing its credentials as Salt's CLI does: a live token kept in
    /// `token_file` by an earlier `-T` is used — unless the root token can
    /// be read, which wins; without one, `-a` logs in (asking for what was
    /// not given; `-T` keeps the token); else the root token, or this
    /// user's `publisher_acl` key file.
    pub async fn for_cli(
        config: &MasterConfig,
        eauth: Option<&brine_cli::eauth::EauthArgs>,
    ) -> Result<Client, ClientError> {
        let token_file = token_file(config);
        if let Some(t) = kept_token(
            &token_file,
            crate::eauth::caller::token_expire(&config.opts),
        ) {
            if std::fs::File::open(config.cachedir.join(ROOT_TOKEN_FILE)).is_ok() {
                return Client::for_config(config);
            }
            return Ok(Client::unauthenticated(config)?.with_token(t));
        }
        let Some(e) = eauth else {
            return Client::for_config(config);
        };
        if !crate::eauth::backends::KNOWN.contains(&e.eauth.as_str()) {
            return Err(ClientError::UnknownEauth(e.eauth.clone()));
        }
        let (user, password) = e
            .credentials(&publisher_acl::current_user())
            .map_err(ClientError::Prompt)?;
        let mut c = Client::unauthenticated(config)?;
        let t = c.login(&e.eauth, &user, &password).await?;
        if e.make_token {
            keep_token(&token_file, &t.token);
        }
        Ok(c.with_token(t.token))
    }

    /// A client that has yet to prove anything: for [`Client::login`],
    /// or a token the caller holds ([`Client::with_token`]).
    pub fn unauthenticated(config: &MasterConfig) -> Result<Client, ClientError> {
        let master = match KeyStore::open(&config.pki_dir).and_then(|s| s.read_local("master.pub"))
        {
            Ok(k) => k,
            // Not root: the copy in sock_dir (see publisher_acl).
            Err(e) => brine_protocol::keys::read_public(&config.sock_dir.join("master.pub"))
                .map_err(|_| ClientError::MasterKey(e))?,
        };
        let token = String::new();
        let local = config.local_socket();
        let route = if local.exists() {
            Route::Local(local)
        } else {
            Route::Net(config.local_ret_addr())
        };
        Client::new(route, master, token, config.limits())
    }

    /// Publish with an eauth token (`brine -a`, `-T`'s token file).
    pub fn with_token(mut self, token: String) -> Client {
        self.token = token;
        self.user = None;
        self
    }

    /// `brine -a <eauth>`: a token for `username`, from the master.
    pub async fn login(
        &mut self,
        eauth: &str,
        username: &str,
        password: &str,
    ) -> Result<TokenReply, ClientError> {
        let body = RequestBody::Login(CliLogin {
            eauth: eauth.to_string(),
            username: username.to_string(),
            password: password.to_string(),
        });
        match self.request(body).await? {
            ReplyBody::Token(t) => Ok(t),
            ReplyBody::Error(ErrorReply { code, message }) => {
                Err(ClientError::Refused(code, message))
            }
            _ => Err(ClientError::Unexpected),
        }
    }

    pub fn new(
        addr: Route,
        master: PublicKeys,
        token: String,
        limits: Limits,
    ) -> Result<Client, ClientError> {
        Ok(Client {
            addr,
            master,
            token,
            key: KeyPair::generate()?,
            limits,
            socket: None,
            request_timeout: Duration::from_secs(30),
            user: None,
        })
    }

    /// One request/reply; reconnects once when the connection broke (the
    /// master restarted) or the reply did not come.
    pub async fn request(&mut self, body: RequestBody) -> Result<ReplyBody, ClientError> {
        let mut last = None;
        for _ in 0..2 {
            if self.socket.is_none() {
                let s = match &self.addr {
                    Route::Local(path) => connect_dealer_local(path, &self.limits).await,
                    Route::Net(addr) => connect_dealer(*addr, &self.limits).await,
                }
                .map_err(|source| match source {
                    TransportError::NotListening { cause, .. } => ClientError::NotRunning {
                        addr: self.addr.clone(),
                        cause,
                    },
                    source => ClientError::Transport {
                        addr: self.addr.clone(),
                        source,
                    },
                })?;
                self.socket = Some(s);
            }
            // Fresh nonce and time on each try: a resend is a new request.
            let req = Request::new(body.clone())?;
            let Some(sock) = self.socket.as_mut() else {
                continue;
            };
            match call(
                &mut sock.socket,
                &self.key,
                &self.master.ed25519,
                &req,
                self.request_timeout,
                &self.limits,
            )
            .await
            {
                Ok(reply) => return Ok(reply.msg),
                Err(e @ (TransportError::Socket { .. } | TransportError::Timeout { .. })) => {
                    self.socket = None;
                    last = Some(e);
                }
                Err(source) => {
                    return Err(ClientError::Transport {
                        addr: self.addr.clone(),
                        source,
                    })
                }
            }
        }
        Err(ClientError::Transport {
            addr: self.addr.clone(),
            source: last.unwrap_or(TransportError::Timeout {
                what: "request to master",
                timeout: self.request_timeout,
            }),
        })
    }

    /// Publish a job; the answer names the jid and the expected minions.
    #[allow(clippy::too_many_arguments)]
    pub async fn publish(
        &mut self,
        tgt: Value,
        tgt_type: &str,
        fun: &str,
        arg: Vec<Value>,
        kwarg: Map,
        timeout: u64,
    ) -> Result<PublishReply, ClientError> {
        let body = RequestBody::Publish(CliPublish {
            token: self.token.clone(),
            tgt,
            tgt_type: tgt_type.to_string(),
            fun: fun.to_string(),
            arg,
            kwarg,
            timeout,
            user: self.user.clone(),
        });
        match self.request(body).await? {
            ReplyBody::Published(p) => Ok(p),
            ReplyBody::Error(ErrorReply { code, message }) => {
                Err(ClientError::Refused(code, message))
            }
            _ => Err(ClientError::Unexpected),
        }
    }

    /// One page of `jid`'s returns stored after the cursor `after`. With a
    /// `wait`, the master holds the answer until a return lands when none
    /// is new (bounded by the master).
    pub async fn returns_after(
        &mut self,
        jid: &str,
        after: u64,
        wait: Duration,
    ) -> Result<ReturnsReply, ClientError> {
        let body = RequestBody::GetReturns(GetReturns {
            token: self.token.clone(),
            user: self.user.clone(),
            jid: jid.to_string(),
            after,
            wait_ms: u64::try_from(wait.as_millis()).unwrap_or(u64::MAX),
        });
        match self.request(body).await? {
            ReplyBody::Returns(r) => Ok(r),
            ReplyBody::Error(ErrorReply { code, message }) => {
                Err(ClientError::Refused(code, message))
            }
            _ => Err(ClientError::Unexpected),
        }
    }

    /// Every return of `jid` stored so far (all pages).
    pub async fn returns(&mut self, jid: &str) -> Result<ReturnsReply, ClientError> {
        let mut all = self.returns_after(jid, 0, Duration::ZERO).await?;
        while all.more {
            let page = self.returns_after(jid, all.next, Duration::ZERO).await?;
            all.returns.extend(page.returns);
            all.waiting = page.waiting;
            all.next = page.next;
            all.more = page.more;
        }
        Ok(all)
    }

    /// Ask `missing` minions whether they still run `jid` (Salt's
    /// `saltutil.find_job`, given `gather` to answer): true when one
    /// answers with the job's details (a non-empty mapping).
    pub async fn still_running(&mut self, jid: &str, missing: &[String], gather: Duration) -> bool {
        if missing.is_empty() {
            return false;
        }
        let tgt = Value::List(missing.iter().cloned().map(Value::Str).collect());
        let find = self
            .publish(
                tgt,
                "list",
                "saltutil.find_job",
                vec![Value::Str(jid.to_string())],
                Map::default(),
                gather.as_secs(),
            )
            .await;
        let Ok(find) = find else {
            return false;
        };
        if find.minions.is_empty() {
            return false;
        }
        let deadline = Instant::now() + gather;
        let mut cursor = 0;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.returns_after(&find.jid, cursor, left).await {
                Ok(r) => {
                    if r.returns
                        .values()
                        .any(|v| matches!(v.ret.unpack(), Value::Map(m) if !m.is_empty()))
                    {
                        return true;
                    }
                    cursor = r.next;
                    if r.waiting == 0 && !r.more {
                        return false;
                    }
                }
                // Do not spin on a master that refuses.
                Err(_) => tokio::time::sleep(left.min(Duration::from_millis(100))).await,
            }
            if Instant::now() >= deadline {
                return false;
            }
        }
    }

    /// Salt's `LocalClient.cmd`: publish, then wait for the returns; a
    /// minion late after `timeout` seconds is asked whether it still runs
    /// the job ([`Client::still_running`]) and waited for again while it
    /// does. The answer holds the returns that came, in arrival order.
    #[allow(clippy::too_many_arguments)]
    pub async fn cmd(
        &mut self,
        tgt: Value,
        tgt_type: &str,
        fun: &str,
        arg: Vec<Value>,
        kwarg: Map,
        timeout: u64,
        gather: Duration,
    ) -> Result<Gathered, ClientError> {
        let published = self
            .publish(tgt, tgt_type, fun, arg, kwarg, timeout)
            .await?;
        let mut returns: IndexMap<String, MinionReturn> = IndexMap::new();
        if published.minions.is_empty() {
            return Ok(Gathered {
                jid: published.jid,
                minions: published.minions,
                returns,
            });
        }
        let mut deadline = Instant::now() + Duration::from_secs(timeout);
        let mut cursor = 0;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.returns_after(&published.jid, cursor, left).await {
                Ok(r) => {
                    cursor = r.next;
                    for (id, ret) in r.returns {
                        returns.entry(id).or_insert(ret);
                    }
                    if r.more {
                        continue;
                    }
                }
                Err(_) => tokio::time::sleep(left.min(Duration::from_millis(100))).await,
            }
            let missing: Vec<String> = published
                .minions
                .iter()
                .filter(|id| !returns.contains_key(*id))
                .cloned()
                .collect();
            if missing.is_empty() {
                break;
            }
            if Instant::now() >= deadline {
                if self.still_running(&published.jid, &missing, gather).await {
                    deadline = Instant::now() + Duration::from_secs(timeout);
                    continue;
                }
                break;
            }
        }
        Ok(Gathered {
            jid: published.jid,
            minions: published.minions,
            returns,
        })
    }

    /// `test.ping` the target, waited for as any job ([`Client::cmd`]):
    /// who answered and who did not (`manage.*`, batch runs).
    pub async fn ping(
        &mut self,
        tgt: Value,
        tgt_type: &str,
        timeout: u64,
        gather: Duration,
    ) -> Result<Pinged, ClientError> {
        let g = self
            .cmd(
                tgt,
                tgt_type,
                "test.ping",
                Vec::new(),
                Map::default(),
                timeout,
                gather,
            )
            .await?;
        let mut up: Vec<String> = g.returns.keys().cloned().collect();
        up.sort();
        let mut down: Vec<String> = g
            .minions
            .iter()
            .filter(|id| !g.returns.contains_key(*id))
            .cloned()
            .collect();
        down.sort();
        down.dedup();
        Ok(Pinged {
            targeted: g.minions,
            up,
            down,
        })
    }
}

/// Who answered a `test.ping` ([`Client::ping`]).
#[derive(Debug, Clone, Default)]
pub struct Pinged {
    /// The minions the target matched.
    pub targeted: Vec<String>,
    /// Those that answered, sorted.
    pub up: Vec<String>,
    /// Those that did not, sorted.
    pub down: Vec<String>,
}

pub use super::config::GATHER_JOB_TIMEOUT;

/// What [`Client::cmd`] gathered.
#[derive(Debug, Clone)]
pub struct Gathered {
    pub jid: String,
    /// The minions the master expected to answer.
    pub minions: Vec<String>,
    /// The returns that came, in arrival order.
    pub returns: IndexMap<String, MinionReturn>,
}
