//! Helpers for the daemon end-to-end tests: a real `brine-master` process on
//! 127.0.0.1 ephemeral ports (stopped with SIGTERM on drop), the CLIs, and a
//! scripted minion built from `brine_protocol` — a real signed client of
//! the wire protocol, for what a test needs to drive message by message.

use crate::bin;
use brine_core::{Map, Value};
use brine_protocol::crypto::{KeyPair, PublicKeys, ReplayGuard, SessionKey};
use brine_protocol::messages::{
    aad, open_data, read_frame, AuthRequest, AuthStatus, ErrorCode, JobReturn, PackedValue,
    PillarRequest, Publication, ReplyBody, Request, RequestBody, SealedPublication,
};
use brine_protocol::transport::{self, Limits};
use std::net::{SocketAddr, TcpListener};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

/// A port free right now on 127.0.0.1, below the kernel's ephemeral range:
/// a port the OS picked (`:0`) is one the next outgoing connection may take
/// as its local port (the daemons and CLIs make many), so a master started
/// on it a moment later could find it taken. Ports come from the 12,000
/// below the range, each process starting at its own place (by PID) and
/// never handing out one twice.
pub fn free_port() -> u16 {
    use std::sync::atomic::{AtomicU32, Ordering};
    static NEXT: AtomicU32 = AtomicU32::new(0);
    const SPAN: u32 = 12_000;
    let low = std::fs::read_to_string("/proc/sys/net/ipv4/ip_local_port_range")
        .ok()
        .and_then(|t| t.split_whitespace().next()?.parse::<u32>().ok())
        .filter(|l| (SPAN + 1024..=65_535).contains(l))
        .unwrap_or(32_768);
    let base = low - SPAN;
    let start = (std::process::id() * 97) % SPAN;
    for _ in 0..SPAN {
        let port = base + (start + NEXT.fetch_add(1, Ordering::Relaxed)) % SPAN;
        let Ok(port) = u16::try_from(port) else {
            continue;
        };
        if TcpListener::bind(("127.0.0.1", port)).is_ok() {
            return port;
        }
    }
    panic!("no free port below the ephemeral range")
}

/// A master's config folder and its ports.
pub struct MasterConf {
    pub dir: tempfile::TempDir,
    pub publish_port: u16,
    pub ret_port: u16,
}

impl MasterConf {
    /// CONF/master for 127.0.0.1, with `extra` YAML lines appended.
    pub fn new(extra: &str) -> MasterConf {
        let dir = tempfile::Builder::new()
            .prefix("brine-daemon-")
            .tempdir()
            .expect("tempdir");
        let (publish_port, ret_port) = (free_port(), free_port());
        let conf = dir.path().join("etc");
        std::fs::create_dir_all(&conf).expect("etc");
        let text = format!(
            "interface: 127.0.0.1\npublish_port: {publish_port}\nret_port: {ret_port}\n\
             root_dir: {}\nlog_level: info\n{extra}",
            dir.path().join("mroot").display()
        );
        std::fs::write(conf.join("master"), text).expect("write master config");
        MasterConf {
            dir,
            publish_port,
            ret_port,
        }
    }

    pub fn conf_dir(&self) -> PathBuf {
        self.dir.path().join("etc")
    }

    pub fn root(&self) -> PathBuf {
        self.dir.path().join("mroot")
    }

    pub fn pki_dir(&self) -> PathBuf {
        self.root().join("etc/brine/pki/master")
    }

    pub fn ret_addr(&self) -> SocketAddr {
        SocketAddr::from(([127, 0, 0, 1], self.ret_port))
    }

    pub fn publish_addr(&self) -> SocketAddr {
        SocketAddr::from(([127, 0, 0, 1], self.publish_port))
    }

    /// Start `brine-master -c CONF`, waiting until its ret port answers.
    pub fn start(&self) -> MasterProc {
        let child = spawn_logged(
            "brine-master",
            &self.conf_dir(),
            &self.dir.path().join("master.log"),
        );
        let deadline = Instant::now() + Duration::from_secs(20);
        while std::net::TcpStream::connect(self.ret_addr()).is_err() {
            assert!(Instant::now() < deadline, "brine-master did not start");
            std::thread::sleep(Duration::from_millis(50));
        }
        MasterProc { child: Some(child) }
    }

    /// The master's public keys (after its first start).
    pub fn master_keys(&self) -> PublicKeys {
        brine_protocol::keys::read_public(&self.pki_dir().join("master.pub")).expect("master.pub")
    }

    pub fn log(&self) -> String {
        std::fs::read_to_string(self.dir.path().join("master.log")).unwrap_or_default()
    }

    /// `brine-run state.event pretty=False` on this master, given a moment
    /// to subscribe: every event its bus carries from now on.
    pub fn listen_events(&self) -> EventListener {
        let child = Command::new(bin("brine-run"))
            .arg("-c")
            .arg(self.conf_dir())
            .args(["state.event", "pretty=False"])
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("brine-run state.event");
        std::thread::sleep(Duration::from_millis(1500));
        EventListener { child }
    }

    /// Run a CLI (`brine`, `brine-key`, `brine-run`) with `-c CONF`.
    pub fn cli(&self, name: &str, args: &[&str]) -> Output {
        Command::new(bin(name))
            .arg("-c")
            .arg(self.conf_dir())
            .args(args)
            .output()
            .expect("run cli")
    }

    /// `brine --async ID FUN ARGS`: the jid it printed.
    pub fn publish_async(&self, id: &str, fun_and_args: &[&str]) -> String {
        let mut args = vec!["--async", id];
        args.extend_from_slice(fun_and_args);
        let out = self.cli("brine", &args);
        let text = String::from_utf8_lossy(&out.stdout).to_string();
        text.trim()
            .strip_prefix("Executed command with job ID: ")
            .unwrap_or_else(|| panic!("no jid: {text} {}", String::from_utf8_lossy(&out.stderr)))
            .to_string()
    }

    /// Start a CLI without waiting for it.
    pub fn spawn_cli(&self, name: &str, args: &[&str]) -> Child {
        Command::new(bin(name))
            .arg("-c")
            .arg(self.conf_dir())
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn cli")
    }
}

/// A running brine-master; SIGTERM and wait on drop.
pub struct MasterProc {
    child: Option<Child>,
}

impl MasterProc {
    /// Own a started daemon (stopped by PID on drop).
    pub fn of(child: Child) -> MasterProc {
        MasterProc { child: Some(child) }
    }

    /// The master's process id while it runs.
    pub fn pid(&self) -> Option<u32> {
        self.child.as_ref().map(Child::id)
    }

    /// SIGTERM, then wait; the exit status.
    pub fn stop(&mut self) -> Option<std::process::ExitStatus> {
        let mut child = self.child.take()?;
        let pid = child.id() as i32;
        // SAFETY-free: kill(2) through the shell's kill, by our own child's pid.
        let _ = Command::new("kill")
            .arg("-TERM")
            .arg(pid.to_string())
            .status();
        let deadline = Instant::now() + Duration::from_secs(15);
        loop {
            if let Ok(Some(st)) = child.try_wait() {
                return Some(st);
            }
            if Instant::now() > deadline {
                let _ = child.kill();
                return child.wait().ok();
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

/// A `brine-run state.event` listening ([`MasterConf::listen_events`]).
pub struct EventListener {
    child: Child,
}

impl EventListener {
    /// Stop listening: the lines it printed (`tag<TAB>data`).
    pub fn finish(mut self) -> String {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let mut out = String::new();
        if let Some(mut o) = self.child.stdout.take() {
            let _ = std::io::Read::read_to_string(&mut o, &mut out);
        }
        out
    }
}

impl Drop for MasterProc {
    fn drop(&mut self) {
        self.stop();
    }
}

/// What a scripted minion got back for a request.
pub type Answer<T> = Result<T, ErrorCode>;

/// A minion scripted message by message.
pub struct ScriptedMinion {
    pub id: String,
    pub key: KeyPair,
    pub grains: Value,
    master_addr: SocketAddr,
    master: PublicKeys,
    limits: Limits,
    rt: tokio::runtime::Runtime,
    /// The master's session key, from the last accepted auth.
    session: std::sync::Mutex<Option<SessionKey>>,
    /// The master process that last accepted us (its auth reply's
    /// `instance`): requests that name none are sent naming it, as a
    /// minion's are.
    instance: std::sync::Mutex<Option<[u8; 16]>>,
}

impl ScriptedMinion {
    pub fn new(id: &str, conf: &MasterConf, grains: serde_json::Value) -> ScriptedMinion {
        ScriptedMinion {
            id: id.into(),
            key: KeyPair::generate().expect("keys"),
            grains: Value::from_json(&grains),
            master_addr: conf.ret_addr(),
            master: conf.master_keys(),
            limits: Limits::default(),
            rt: tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .expect("runtime"),
            session: std::sync::Mutex::new(None),
            instance: std::sync::Mutex::new(None),
        }
    }

    /// This minion, talking to the master at `addr` instead (a master on
    /// another loopback address).
    pub fn at(mut self, addr: SocketAddr) -> ScriptedMinion {
        self.master_addr = addr;
        self
    }

    /// The master process that last accepted this minion.
    pub fn instance(&self) -> Option<[u8; 16]> {
        *self.instance.lock().expect("lock")
    }

    /// The master's session key (after an accepted [`Self::auth`]).
    pub fn session(&self) -> Option<SessionKey> {
        self.session.lock().expect("lock").clone()
    }

    /// Send one request (signed by this minion's key), return the reply
    /// body; a fresh connection each time (like a minion after a restart).
    /// A request that names no master process is sent naming the one that
    /// last accepted us (see [`Self::request_as_is`]).
    pub fn request(&self, req: &Request) -> ReplyBody {
        self.request_signed_by(req, &self.key)
    }

    /// [`Self::request`] without naming a master process.
    pub fn request_as_is(&self, req: &Request) -> ReplyBody {
        self.send(req, &self.key).expect("reply")
    }

    pub fn request_signed_by(&self, req: &Request, key: &KeyPair) -> ReplyBody {
        self.try_request_signed_by(req, key).expect("reply")
    }

    /// [`Self::request`], with a transport failure (the master cut the
    /// connection, no reply in time) as an error.
    pub fn try_request(&self, req: &Request) -> Result<ReplyBody, String> {
        self.try_request_signed_by(req, &self.key)
    }

    fn try_request_signed_by(&self, req: &Request, key: &KeyPair) -> Result<ReplyBody, String> {
        if req.to.is_none() && !matches!(req.msg, RequestBody::Auth(_)) {
            let addressed = req.clone().to_instance(self.instance());
            return self.send(&addressed, key);
        }
        self.send(req, key)
    }

    fn send(&self, req: &Request, key: &KeyPair) -> Result<ReplyBody, String> {
        self.rt.block_on(async {
            let mut d = transport::connect_dealer(self.master_addr, &self.limits)
                .await
                .map_err(|e| e.to_string())?;
            let reply = transport::call(
                &mut d.socket,
                key,
                &self.master.ed25519,
                req,
                Duration::from_secs(20),
                &self.limits,
            )
            .await
            .map_err(|e| e.to_string())?;
            Ok(reply.msg)
        })
    }

    /// A sealed job return as this minion would send it.
    pub fn return_request(&self, jid: &str, fun: &str, ret: Value) -> Request {
        let body = RequestBody::Return(JobReturn {
            jid: jid.into(),
            id: self.id.clone(),
            fun: fun.into(),
            fun_args: vec![],
            ret: PackedValue::pack(&ret).expect("packed"),
            retcode: 0,
            success: true,
            out: None,
            schedule: None,
            called: false,
            user: None,
        });
        Request::sealed(&self.master.x25519, &self.id, &body).expect("sealed")
    }

    pub fn auth(&self) -> AuthStatus {
        let req = Request::new(RequestBody::Auth(AuthRequest {
            id: self.id.clone(),
            keys: self.key.public(),
            grains: PackedValue::pack(&self.grains).expect("grains"),
            pillarenv: None,
        }))
        .expect("request");
        match self.request(&req) {
            ReplyBody::Auth(a) => {
                assert_eq!(a.master, self.master, "master keys changed");
                if let Some(s) = &a.session {
                    let key: SessionKey =
                        open_data(&self.key, s, &aad::session(&self.id, &req.nonce))
                            .expect("session key sealed to us");
                    *self.session.lock().expect("lock") = Some(key);
                }
                if let Some(i) = a.instance {
                    *self.instance.lock().expect("lock") = Some(*i);
                }
                a.status
            }
            other => panic!("auth answered {other:?}"),
        }
    }

    /// Ask for the pillar of `id` (normally our own).
    pub fn pillar_of(&self, id: &str, pillarenv: Option<&str>) -> Answer<Value> {
        let req = Request::new(RequestBody::Pillar(PillarRequest {
            id: id.into(),
            pillarenv: pillarenv.map(str::to_string),
            saltenv: None,
            pillar_override: Value::Null,
        }))
        .expect("request");
        self.ask_pillar(id, &req)
    }

    /// Ask for our own pillar, saying we wait `wait` for it (the master
    /// does not compile it once that has passed).
    pub fn pillar_waiting(&self, wait: Duration) -> Answer<Value> {
        let req = Request::new(RequestBody::Pillar(PillarRequest {
            id: self.id.clone(),
            pillarenv: None,
            saltenv: None,
            pillar_override: Value::Null,
        }))
        .expect("request")
        .waiting(wait);
        self.ask_pillar(&self.id, &req)
    }

    fn ask_pillar(&self, id: &str, req: &Request) -> Answer<Value> {
        match self.request(req) {
            ReplyBody::Pillar(p) => {
                Ok(
                    open_data(&self.key, &p.pillar, &aad::pillar(id, &req.nonce))
                        .expect("pillar sealed to us"),
                )
            }
            ReplyBody::Error(e) => Err(e.code),
            other => panic!("pillar answered {other:?}"),
        }
    }

    /// Send a job return, sealed to the master.
    pub fn send_return(&self, jid: &str, fun: &str, ret: Value) -> Answer<()> {
        match self.request(&self.return_request(jid, fun, ret)) {
            ReplyBody::ReturnAck => Ok(()),
            ReplyBody::Error(e) => Err(e.code),
            other => panic!("return answered {other:?}"),
        }
    }

    /// Subscribe to the publish port; publications are verified against the
    /// master key and the replay guard, as a minion does.
    pub fn subscribe(&self, publish: SocketAddr) -> Subscription<'_> {
        let sub = self.rt.block_on(async {
            let s = transport::connect_sub(publish, &self.limits)
                .await
                .expect("subscribe");
            // Let the subscription reach the PUB socket.
            tokio::time::sleep(Duration::from_millis(300)).await;
            s
        });
        Subscription {
            minion: self,
            sub,
            guard: ReplayGuard::new(300_000, 60_000, 100_000),
        }
    }
}

pub struct Subscription<'a> {
    minion: &'a ScriptedMinion,
    sub: transport::Limited<zeromq::SubSocket>,
    guard: ReplayGuard,
}

impl Subscription<'_> {
    /// The next frame on the publish port as any subscriber receives it,
    /// unverified and unopened, within `timeout`.
    pub fn next_frame(&mut self, timeout: Duration) -> Option<Vec<u8>> {
        let m = self.minion;
        m.rt.block_on(async {
            tokio::time::timeout(
                timeout,
                transport::recv_frame(&mut self.sub.socket, &m.limits),
            )
            .await
            .ok()?
            .ok()
        })
    }

    /// The next publication that verifies, within `timeout`; with the
    /// `pillar=` secret for this minion opened, if any.
    pub fn next(&mut self, timeout: Duration) -> Option<(Publication, Option<Value>)> {
        let m = self.minion;
        let deadline = Instant::now() + timeout;
        m.rt.block_on(async {
            loop {
                let left = deadline.saturating_duration_since(Instant::now());
                let frame = tokio::time::timeout(
                    left,
                    transport::recv_frame(&mut self.sub.socket, &m.limits),
                )
                .await
                .ok()?
                .ok()?;
                let Ok(v) = read_frame::<SealedPublication>(&frame, Some(&m.master.ed25519)) else {
                    continue;
                };
                let Some(Ok(p)) = m.session().map(|k| v.msg.open(&k)) else {
                    continue;
                };
                if self
                    .guard
                    .check(p.created_ms, &p.nonce, brine_protocol::crypto::now_ms())
                    .is_err()
                {
                    continue;
                }
                let secret = p.secrets.get(&m.id).map(|s| {
                    open_data::<Value>(&m.key, s, &aad::publication_secret(&p.jid, &m.id))
                        .expect("our secret opens")
                });
                return Some((p, secret));
            }
        })
    }
}

/// Parse a CLI's stdout as JSON.
pub fn json_out(out: &Output) -> serde_json::Value {
    json_docs(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "not JSON ({e}): stdout {} stderr {}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

/// `brine --out json` prints one document per minion, as Salt does: the
/// documents merged into one object (a single non-object document as it
/// is).
pub fn json_docs(stdout: &[u8]) -> Result<serde_json::Value, serde_json::Error> {
    let mut merged = serde_json::Map::default();
    let mut docs = serde_json::Deserializer::from_slice(stdout).into_iter::<serde_json::Value>();
    let mut first = None;
    let mut n = 0;
    for doc in &mut docs {
        let doc = doc?;
        n += 1;
        match doc {
            serde_json::Value::Object(o) => merged.extend(o),
            other if n == 1 => first = Some(other),
            _ => {}
        }
    }
    if n == 0 {
        // No document at all: the same error serde_json gives.
        return serde_json::from_slice(stdout);
    }
    Ok(first.unwrap_or(serde_json::Value::Object(merged)))
}

/// Accept `id`'s key with brine-key.
pub fn accept(conf: &MasterConf, id: &str) {
    let out = conf.cli("brine-key", &["-a", id, "-y"]);
    assert!(out.status.success(), "{out:?}");
}

/// Write `files` (relative path → content) under `root`.
pub fn write_tree(root: &Path, files: &[(&str, &str)]) {
    for (rel, text) in files {
        let p = root.join(rel);
        if let Some(d) = p.parent() {
            std::fs::create_dir_all(d).expect("mkdir");
        }
        std::fs::write(p, text).expect("write");
    }
}

/// Map helper for kwargs.
pub fn map(v: serde_json::Value) -> Map {
    Value::from_json(&v).as_map().cloned().unwrap_or_default()
}

impl MasterConf {
    /// CONF/minion for a minion of this master (`extra` YAML appended),
    /// retrying auth every second while pending.
    pub fn write_minion_conf(&self, id: &str, extra: &str) {
        let text = format!(
            "id: {id}\nmaster: 127.0.0.1\npublish_port: {}\nmaster_port: {}\nroot_dir: {}\n\
             acceptance_wait_time: 1\nlog_level: info\n{extra}",
            self.publish_port,
            self.ret_port,
            self.dir.path().join("nroot").display()
        );
        std::fs::write(self.conf_dir().join("minion"), text).expect("write minion config");
    }

    /// `files` (relative path, text) as the master's `base` file_roots,
    /// added to CONF/master (before the master starts).
    pub fn serve_base_files(&self, files: &[(&str, &str)]) {
        let root = self.dir.path().join("files").join("base");
        write_tree(&root, files);
        let master = self.conf_dir().join("master");
        let mut text = std::fs::read_to_string(&master).expect("master config");
        text.push_str(&format!("file_roots:\n  base: [{}]\n", root.display()));
        std::fs::write(master, text).expect("master config");
    }

    /// A second minion `id` of this master (its own config folder
    /// `etc-ID`), accepted, answering once, then stopped: a down minion the
    /// master knows, as the CLI comparisons with Salt have (`db1`).
    pub fn add_down_minion(&self, id: &str) {
        let conf = self.dir.path().join(format!("etc-{id}"));
        std::fs::create_dir_all(&conf).expect("minion config folder");
        std::fs::write(
            conf.join("minion"),
            format!(
                "id: {id}\nmaster: 127.0.0.1\npublish_port: {}\nmaster_port: {}\nroot_dir: {}\n\
                 acceptance_wait_time: 1\nlog_level: info\n",
                self.publish_port,
                self.ret_port,
                self.dir.path().join(format!("nroot-{id}")).display()
            ),
        )
        .expect("minion config");
        let mut minion = MasterProc::of(spawn_logged(
            "brine-minion",
            &conf,
            &self.dir.path().join(format!("{id}.log")),
        ));
        self.accept_and_ping(id);
        minion.stop();
    }

    /// Start `brine-api -c CONF` (logging to api.log) and wait until it
    /// listens on `port` (its `rest_cherrypy: port`).
    pub fn start_api(&self, port: u16) -> MasterProc {
        let api = MasterProc::of(spawn_logged(
            "brine-api",
            &self.conf_dir(),
            &self.dir.path().join("api.log"),
        ));
        let deadline = Instant::now() + Duration::from_secs(20);
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(
                Instant::now() < deadline,
                "brine-api did not start: {}",
                std::fs::read_to_string(self.dir.path().join("api.log")).unwrap_or_default()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        api
    }

    /// Start `brine-minion -c CONF` (logging to minion.log).
    pub fn start_minion(&self, args: &[&str]) -> MasterProc {
        let log = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(self.dir.path().join("minion.log"))
            .expect("log file");
        let child = Command::new(bin("brine-minion"))
            .arg("-c")
            .arg(self.conf_dir())
            .args(args)
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .expect("start brine-minion");
        MasterProc { child: Some(child) }
    }

    pub fn minion_log(&self) -> String {
        std::fs::read_to_string(self.dir.path().join("minion.log")).unwrap_or_default()
    }

    /// Accept `id` and wait until it answers `test.ping` (as run.py does).
    pub fn accept_and_ping(&self, id: &str) {
        let deadline = Instant::now() + Duration::from_secs(40);
        while Instant::now() < deadline {
            let _ = self.cli("brine-key", &["-a", id, "-y"]);
            let out = self.cli("brine", &["--out", "json", "-t", "3", id, "test.ping"]);
            let got: Option<serde_json::Value> = json_docs(&out.stdout).ok();
            if got.as_ref().and_then(|j| j.get(id)) == Some(&serde_json::Value::Bool(true)) {
                return;
            }
            std::thread::sleep(Duration::from_millis(300));
        }
        panic!(
            "minion {id} never answered; master log:\n{}\nminion log:\n{}",
            self.log(),
            self.minion_log()
        );
    }

    /// `brine --out json -t 30 ID FUNCTION ARGS...`: the minion's answer.
    pub fn call(&self, id: &str, args: &[&str]) -> (serde_json::Value, Output) {
        let mut all = vec!["--out", "json", "-t", "30", id];
        all.extend_from_slice(args);
        let out = self.cli("brine", &all);
        let j = json_out(&out);
        (j.get(id).cloned().unwrap_or(serde_json::Value::Null), out)
    }

    /// The master's private key (tests that play the master's part).
    pub fn master_private_key(&self) -> KeyPair {
        brine_protocol::keys::read_private(&self.pki_dir().join("master.key")).expect("master.key")
    }
}

/// Start `NAME -c CONF` with its stderr appended to `log` (the daemons log
/// there; tests read it when something fails).
pub fn spawn_logged(name: &str, conf: &Path, log: &Path) -> Child {
    spawn_logged_with(name, conf, log, &[])
}

/// [`spawn_logged`] with extra environment variables (e.g. libfaketime's).
pub fn spawn_logged_with(name: &str, conf: &Path, log: &Path, env: &[(&str, &str)]) -> Child {
    let log = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(log)
        .expect("log file");
    Command::new(bin(name))
        .arg("-c")
        .arg(conf)
        .envs(env.iter().copied())
        .stdout(Stdio::null())
        .stderr(log)
        .spawn()
        .unwrap_or_else(|e| panic!("start {name}: {e}"))
}
