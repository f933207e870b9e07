//! Git remotes the gitfs and git_pillar tests fetch from, all on
//! 127.0.0.1 and all ended with the test: a static web server for git's
//! dumb http protocol (plain or over TLS with a self-signed certificate:
//! [`crate::http::self_signed`]), a listener that never answers, and a
//! private `sshd` that lets one key in.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Run `script` with `sh -c` and git's author set; panics when it fails.
pub fn sh(script: &str) {
    let ok = Command::new("sh")
        .args(["-c", script])
        .env("GIT_AUTHOR_NAME", "brine test")
        .env("GIT_AUTHOR_EMAIL", "test@example.invalid")
        .env("GIT_COMMITTER_NAME", "brine test")
        .env("GIT_COMMITTER_EMAIL", "test@example.invalid")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .status()
        .expect("sh")
        .success();
    assert!(ok, "{script}");
}

/// A repository at `dir` with `file` holding `text` (printf's escapes) on
/// branch master.
pub fn repo(dir: &Path, file: &str, text: &str) {
    sh(&format!(
        "set -e; mkdir -p {d}; cd {d}; git init -q -b master .; mkdir -p $(dirname {file}); \
         printf '{text}' > {file}; git add -A; git commit -q -m one",
        d = dir.display()
    ));
}

/// A bare copy of the repository `src` at `dest`, with the dumb
/// protocol's index (`git update-server-info`).
pub fn bare_copy(src: &Path, dest: &Path) {
    sh(&format!(
        "set -e; git clone -q --bare {} {d}; cd {d}; git update-server-info",
        src.display(),
        d = dest.display()
    ));
}

/// Answer one GET for a file under `root` on `s` (HTTP/1.0, then close).
fn serve_one<S: Read + Write>(s: S, root: &Path) {
    let mut r = BufReader::new(s);
    let mut line = String::new();
    if r.read_line(&mut line).is_err() {
        return;
    }
    loop {
        let mut h = String::new();
        if r.read_line(&mut h).map_or(true, |n| n == 0) || h == "\r\n" {
            break;
        }
    }
    let path = line.split_whitespace().nth(1).unwrap_or("/").to_string();
    let rel = path.split('?').next().unwrap_or("").trim_start_matches('/');
    let body = (!rel.contains(".."))
        .then(|| std::fs::read(root.join(rel)).ok())
        .flatten();
    let s = r.get_mut();
    let _ = match body {
        Some(b) => s
            .write_all(format!("HTTP/1.0 200 OK\r\nContent-Length: {}\r\n\r\n", b.len()).as_bytes())
            .and_then(|()| s.write_all(&b)),
        None => s.write_all(b"HTTP/1.0 404 Not Found\r\nContent-Length: 0\r\n\r\n"),
    };
    let _ = s.flush();
}

/// Accept on a fresh loopback listener for `life`, handing each
/// connection to `each`; the port.
fn listen(life: Duration, each: impl Fn(TcpStream) + Send + 'static) -> u16 {
    let l = TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = l.local_addr().expect("addr").port();
    l.set_nonblocking(true).expect("nonblocking");
    std::thread::spawn(move || {
        let end = Instant::now() + life;
        while Instant::now() < end {
            let Ok((s, _)) = l.accept() else {
                std::thread::sleep(Duration::from_millis(10));
                continue;
            };
            let _ = s.set_nonblocking(false);
            let _ = s.set_read_timeout(Some(Duration::from_secs(5)));
            each(s);
        }
    });
    port
}

/// Serve the files under `root` over HTTP/1.0 (GET only) for `life`.
pub fn static_server(root: PathBuf, life: Duration) -> u16 {
    listen(life, move |s| serve_one(s, &root))
}

/// [`static_server`] over TLS with the certificate `crt` and key `key`.
pub fn tls_server(root: PathBuf, crt: &Path, key: &Path, life: Duration) -> u16 {
    use rustls::pki_types::pem::PemObject;
    use rustls::pki_types::{CertificateDer, PrivateKeyDer};
    let certs: Vec<CertificateDer<'static>> = CertificateDer::pem_file_iter(crt)
        .expect("certificate")
        .collect::<Result<_, _>>()
        .expect("certificate");
    let key = PrivateKeyDer::from_pem_file(key).expect("key");
    let config = Arc::new(
        rustls::ServerConfig::builder_with_provider(Arc::new(
            rustls::crypto::ring::default_provider(),
        ))
        .with_safe_default_protocol_versions()
        .expect("protocols")
        .with_no_client_auth()
        .with_single_cert(certs, key)
        .expect("server config"),
    );
    listen(life, move |s| {
        let Ok(conn) = rustls::ServerConnection::new(config.clone()) else {
            return;
        };
        let mut tls = rustls::StreamOwned::new(conn, s);
        serve_one(&mut tls, &root);
        tls.conn.send_close_notify();
        let _ = tls.flush();
    })
}

/// A listener that accepts and never answers, for `life`; the port.
pub fn silent_server(life: Duration) -> u16 {
    let l = TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = l.local_addr().expect("addr").port();
    l.set_nonblocking(true).expect("nonblocking");
    std::thread::spawn(move || {
        let end = Instant::now() + life;
        let mut held = Vec::new();
        while Instant::now() < end {
            match l.accept() {
                Ok((s, _)) => held.push(s),
                Err(_) => std::thread::sleep(Duration::from_millis(10)),
            }
            for s in &mut held {
                let mut b = [0u8; 512];
                let _ = s.set_nonblocking(true);
                let _ = s.read(&mut b);
            }
        }
    });
    port
}

/// A private sshd on 127.0.0.1 that lets in the key `client.pub` (made
/// with it under `dir`) as root; killed when dropped, its host key taken
/// out of root's known_hosts again.
pub struct Sshd {
    child: Child,
    pub port: u16,
    /// The private key the server lets in.
    pub client_key: PathBuf,
    known_line: String,
    known_hosts: PathBuf,
}

impl Sshd {
    /// Start one (Debian's sshd, which the test command unpacks under
    /// `target/sshd`). Root's `~/.ssh/known_hosts` gains the server's host key
    /// for `[127.0.0.1]:PORT`, as an operator's `ssh-keyscan` would add it.
    pub fn start(dir: &Path) -> Sshd {
        std::fs::create_dir_all(dir).expect("sshd dir");
        let keygen = |name: &str| {
            let ok = Command::new("ssh-keygen")
                .args(["-q", "-t", "ed25519", "-N", "", "-f"])
                .arg(dir.join(name))
                .status()
                .expect("ssh-keygen")
                .success();
            assert!(ok, "ssh-keygen {name}");
        };
        keygen("host_key");
        keygen("client");
        keygen("stranger");
        std::fs::copy(dir.join("client.pub"), dir.join("authorized_keys")).expect("authorized");
        // A free port: bound, then let go for sshd.
        let port = TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("free port")
            .port();
        let config = dir.join("sshd_config");
        std::fs::write(
            &config,
            format!(
                "ListenAddress 127.0.0.1\nPort {port}\nHostKey {d}/host_key\n\
                 AuthorizedKeysFile {d}/authorized_keys\nStrictModes no\nUsePAM no\n\
                 PasswordAuthentication no\nKbdInteractiveAuthentication no\n\
                 PermitRootLogin prohibit-password\nPidFile {d}/sshd.pid\nMaxStartups 10:30:20\n",
                d = dir.display()
            ),
        )
        .expect("sshd_config");
        // sshd runs as root and wants its privilege-separation user and
        // folder: both exist only in a private mount namespace (a copy of
        // /etc/passwd with the user, a tmpfs over /run), so the host gains
        // neither.
        let passwd = dir.join("passwd");
        let mut users = std::fs::read_to_string("/etc/passwd").expect("/etc/passwd");
        if !users.lines().any(|l| l.starts_with("sshd:")) {
            users.push_str("sshd:x:64999:65534::/run/sshd:/usr/sbin/nologin\n");
        }
        std::fs::write(&passwd, users).expect("passwd copy");
        let (sshd, libs) = sshd_program();
        let log = std::fs::File::create(dir.join("sshd.log")).expect("sshd log");
        let child = Command::new("unshare")
            .args(["-m", "--propagation", "private", "sh", "-c"])
            .arg(format!(
                "set -e; mount --bind '{}' /etc/passwd; mount -t tmpfs tmpfs /run; \
                 mkdir -m 755 /run/sshd; exec '{}' -D -e -f '{}'",
                passwd.display(),
                sshd.display(),
                config.display()
            ))
            .env("LD_LIBRARY_PATH", libs)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .expect("unshare (util-linux)");
        let deadline = Instant::now() + Duration::from_secs(10);
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(
                Instant::now() < deadline,
                "sshd did not listen on {port}: {}",
                std::fs::read_to_string(dir.join("sshd.log")).unwrap_or_default()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        let host = std::fs::read_to_string(dir.join("host_key.pub")).expect("host key");
        let mut words = host.split_whitespace();
        let known_line = format!(
            "[127.0.0.1]:{port} {} {}",
            words.next().unwrap_or_default(),
            words.next().unwrap_or_default()
        );
        // ssh reads the account's home, not $HOME.
        let home = nix::unistd::User::from_uid(nix::unistd::getuid())
            .ok()
            .flatten()
            .map_or_else(|| PathBuf::from("/root"), |u| u.dir);
        let known_hosts = home.join(".ssh/known_hosts");
        std::fs::create_dir_all(home.join(".ssh")).expect("~/.ssh");
        let mut f = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&known_hosts)
            .expect("known_hosts");
        writeln!(f, "{known_line}").expect("known_hosts");
        Sshd {
            child,
            port,
            client_key: dir.join("client"),
            known_line,
            known_hosts,
        }
    }
}

/// Debian's sshd as the test command unpacked it under `target/sshd`
/// (`BRINE_SSHD`: another root holding `usr/sbin/sshd`), and the folders
/// of the libraries it brings.
fn sshd_program() -> (PathBuf, String) {
    let root = std::env::var_os("BRINE_SSHD").map_or_else(
        || Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/sshd"),
        PathBuf::from,
    );
    let sshd = root.join("usr/sbin/sshd");
    assert!(
        sshd.is_file(),
        "{} is missing: scripts/test unpacks Debian's openssh-server there",
        sshd.display()
    );
    let libs = ["lib/x86_64-linux-gnu", "usr/lib/x86_64-linux-gnu"]
        .map(|l| root.join(l).display().to_string())
        .join(":");
    (sshd, libs)
}

impl Drop for Sshd {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        if let Ok(text) = std::fs::read_to_string(&self.known_hosts) {
            let kept: String = text
                .lines()
                .filter(|l| *l != self.known_line)
                .map(|l| format!("{l}\n"))
                .collect();
            let _ = std::fs::write(&self.known_hosts, kept);
        }
    }
}
