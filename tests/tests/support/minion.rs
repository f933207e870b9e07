//! A real `brine-minion` process for the minion-side end-to-end tests:
//! its own config folder next to a [`MasterConf`], SIGTERM on drop.

// Each test file uses a part of this module.
#![allow(dead_code)]

use brine_tests::daemon::{json_out, spawn_logged_with, MasterConf};
use std::path::PathBuf;
use std::process::{Child, Command};
use std::time::{Duration, Instant};

pub struct MinionConf {
    pub dir: tempfile::TempDir,
    pub id: String,
}

impl MinionConf {
    /// CONF/minion for `id` talking to `master`'s ret port, with the
    /// publications read from `publish_port`, plus `extra` YAML lines.
    pub fn new(master: &MasterConf, id: &str, publish_port: u16, extra: &str) -> MinionConf {
        let dir = tempfile::Builder::new()
            .prefix("brine-minion-")
            .tempdir()
            .expect("tempdir");
        let conf = dir.path().join("etc");
        std::fs::create_dir_all(&conf).expect("etc");
        let text = format!(
            "id: {id}\nmaster: 127.0.0.1\nmaster_port: {}\npublish_port: {publish_port}\n\
             root_dir: {}\nlog_level: debug\n{extra}",
            master.ret_port,
            dir.path().join("nroot").display()
        );
        std::fs::write(conf.join("minion"), text).expect("write minion config");
        MinionConf {
            dir,
            id: id.to_string(),
        }
    }

    pub fn conf_dir(&self) -> PathBuf {
        self.dir.path().join("etc")
    }

    pub fn pki_dir(&self) -> PathBuf {
        self.dir.path().join("nroot/etc/brine/pki/minion")
    }

    pub fn pending_returns(&self) -> PathBuf {
        self.dir
            .path()
            .join("nroot/var/cache/brine/minion/pending_returns")
    }

    pub fn log(&self) -> String {
        std::fs::read_to_string(self.dir.path().join("minion.log")).unwrap_or_default()
    }

    /// Start `brine-minion -c CONF` (log in the folder).
    pub fn start(&self) -> MinionProc {
        self.start_with_env(&[])
    }

    /// Start it with extra environment variables.
    pub fn start_with_env(&self, env: &[(&str, &str)]) -> MinionProc {
        let child = spawn_logged_with(
            "brine-minion",
            &self.conf_dir(),
            &self.dir.path().join("minion.log"),
            env,
        );
        MinionProc { child: Some(child) }
    }
}

/// A running brine-minion; SIGTERM and wait on drop.
pub struct MinionProc {
    child: Option<Child>,
}

impl MinionProc {
    /// SIGTERM (by our own child's pid), then wait; the exit status.
    pub fn stop(&mut self) -> Option<std::process::ExitStatus> {
        let mut child = self.child.take()?;
        let _ = Command::new("kill")
            .arg("-TERM")
            .arg(child.id().to_string())
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

    /// Wait for the process to exit by itself, up to `timeout`.
    pub fn wait_exit(&mut self, timeout: Duration) -> Option<std::process::ExitStatus> {
        let child = self.child.as_mut()?;
        let deadline = Instant::now() + timeout;
        while Instant::now() < deadline {
            if let Ok(Some(st)) = child.try_wait() {
                self.child = None;
                return Some(st);
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        None
    }
}

impl Drop for MinionProc {
    fn drop(&mut self) {
        self.stop();
    }
}

/// Accept `id` and wait until `brine ID test.ping` answers True.
pub fn accept_and_ping(master: &MasterConf, id: &str) {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let _ = master.cli("brine-key", &["-a", id, "-y"]);
        let out = master.cli("brine", &["--out", "json", "-t", "5", id, "test.ping"]);
        if serde_json::from_slice::<serde_json::Value>(&out.stdout)
            .ok()
            .and_then(|v| v.get(id).cloned())
            == Some(serde_json::Value::Bool(true))
        {
            return;
        }
        assert!(Instant::now() < deadline, "{id} never answered test.ping");
        std::thread::sleep(Duration::from_millis(300));
    }
}

/// The returns of `jid` in the master's job cache (`brine-run
/// jobs.lookup_jid`).
pub fn lookup_jid(master: &MasterConf, jid: &str) -> serde_json::Value {
    json_out(&master.cli("brine-run", &["--out", "json", "jobs.lookup_jid", jid]))
}

/// Poll [`lookup_jid`] until it is not empty, up to `timeout`.
pub fn wait_for_return(master: &MasterConf, jid: &str, timeout: Duration) -> serde_json::Value {
    let deadline = Instant::now() + timeout;
    loop {
        let v = lookup_jid(master, jid);
        if v.as_object().is_some_and(|o| !o.is_empty()) {
            return v;
        }
        if Instant::now() > deadline {
            return v;
        }
        std::thread::sleep(Duration::from_millis(200));
    }
}
