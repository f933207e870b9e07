//! A private PostgreSQL server for tests: `initdb` in a temporary folder,
//! a Unix socket in that folder (no TCP port), stopped and removed on drop.
//! As root (CI), the server runs as the `postgres` user, since PostgreSQL
//! refuses to run as root.
//!
//! It fails loudly when PostgreSQL is not installed: `.ci/run` installs
//! Debian's `postgresql` package.

use super::PgOptions;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The socket's port number (it only names the socket file; the folder is
/// private, so any number will do).
const PORT: u16 = 5432;

#[derive(Debug)]
pub struct TestServer {
    bin: PathBuf,
    dir: tempfile::TempDir,
    /// The user the server runs as, when the tests run as root.
    owner: Option<(u32, u32)>,
}

/// The folder of PostgreSQL's server programs: on PATH, else Debian's
/// `/usr/lib/postgresql/<version>/bin`, newest first.
fn bin_dir() -> PathBuf {
    let on_path = std::env::var_os("PATH")
        .into_iter()
        .flat_map(|p| std::env::split_paths(&p).collect::<Vec<_>>())
        .find(|d| d.join("initdb").is_file() && d.join("pg_ctl").is_file());
    if let Some(d) = on_path {
        return d;
    }
    let mut versions: Vec<(u32, PathBuf)> = std::fs::read_dir("/usr/lib/postgresql")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| {
            let v = e.file_name().to_str()?.parse().ok()?;
            let bin = e.path().join("bin");
            bin.join("initdb").is_file().then_some((v, bin))
        })
        .collect();
    versions.sort();
    match versions.pop() {
        Some((_, bin)) => bin,
        None => panic!(
            "PostgreSQL's server programs (initdb, pg_ctl) are not installed: \
             apt-get install postgresql (.ci/run does)"
        ),
    }
}

impl TestServer {
    /// Start a fresh server with a database `salt` owned by the user
    /// `brine` (trust authentication over the private socket).
    pub fn start() -> TestServer {
        let bin = bin_dir();
        let dir = tempfile::Builder::new()
            .prefix("brine-pg-")
            .tempdir()
            .expect("temporary folder for PostgreSQL");
        let owner = if nix::unistd::geteuid().is_root() {
            let user = nix::unistd::User::from_name("postgres")
                .ok()
                .flatten()
                .or_else(|| nix::unistd::User::from_name("nobody").ok().flatten())
                .expect("a user to run PostgreSQL as (postgres or nobody)");
            let ids = (user.uid.as_raw(), user.gid.as_raw());
            std::os::unix::fs::chown(dir.path(), Some(ids.0), Some(ids.1))
                .expect("chown the PostgreSQL folder");
            Some(ids)
        } else {
            None
        };
        let server = TestServer { bin, dir, owner };
        server.run(
            "initdb",
            &[
                "-D",
                &server.data().display().to_string(),
                "-U",
                "brine",
                "--auth=trust",
                "--no-sync",
                "-E",
                "UTF8",
                "--locale=C",
            ],
        );
        server.start_again();
        server.database("salt");
        server
    }

    fn data(&self) -> PathBuf {
        self.dir.path().join("data")
    }

    /// Run one of PostgreSQL's programs as the server's user; panics with
    /// its output when it fails.
    fn run(&self, program: &str, args: &[&str]) {
        use std::os::unix::process::CommandExt;
        let mut cmd = Command::new(self.bin.join(program));
        cmd.args(args)
            .current_dir(self.dir.path())
            .stdin(Stdio::null());
        if let Some((uid, gid)) = self.owner {
            cmd.uid(uid).gid(gid).env("HOME", self.dir.path());
        }
        let out = cmd
            .output()
            .unwrap_or_else(|e| panic!("cannot run {program}: {e}"));
        assert!(
            out.status.success(),
            "{program} {args:?} failed: {}{}\nserver log: {}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr),
            std::fs::read_to_string(self.dir.path().join("log")).unwrap_or_default()
        );
    }

    /// Start the server (again, after [`TestServer::stop`]); waits until it
    /// accepts connections.
    pub fn start_again(&self) {
        let sock = self.dir.path().display().to_string();
        let opts = format!("-k {sock} -c listen_addresses='' -p {PORT} -F");
        self.run(
            "pg_ctl",
            &[
                "-D",
                &self.data().display().to_string(),
                "-o",
                &opts,
                "-l",
                &self.dir.path().join("log").display().to_string(),
                "-w",
                "-t",
                "60",
                "start",
            ],
        );
    }

    /// Stop the server at once (`immediate`: as a crash would).
    pub fn stop(&self) {
        self.run(
            "pg_ctl",
            &[
                "-D",
                &self.data().display().to_string(),
                "-m",
                "immediate",
                "-w",
                "-t",
                "60",
                "stop",
            ],
        );
    }

    /// Options reaching database `db` on this server.
    pub fn options(&self, db: &str) -> PgOptions {
        PgOptions {
            host: self.dir.path().display().to_string(),
            port: PORT,
            user: "brine".into(),
            password: String::new(),
            db: db.into(),
        }
    }

    /// A new empty database on this server, for one test.
    pub fn database(&self, name: &str) -> PgOptions {
        let pg = super::Pg::connect(&self.options("postgres")).expect("the test server answers");
        let sql = format!("CREATE DATABASE \"{name}\"");
        pg.run("create a database", move |conn| async move {
            conn.batch_execute(&sql).await
        })
        .expect("create the test database");
        self.options(name)
    }

    /// The server's folder (socket, data, log).
    pub fn path(&self) -> &Path {
        self.dir.path()
    }
}

impl Drop for TestServer {
    fn drop(&mut self) {
        if self.data().join("postmaster.pid").exists() {
            use std::os::unix::process::CommandExt;
            let mut cmd = Command::new(self.bin.join("pg_ctl"));
            cmd.args(["-D", &self.data().display().to_string()])
                .args(["-m", "immediate", "-w", "stop"])
                .stdout(Stdio::null())
                .stderr(Stdio::null());
            if let Some((uid, gid)) = self.owner {
                cmd.uid(uid).gid(gid);
            }
            let _ = cmd.status();
        }
    }
}
