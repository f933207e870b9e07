//! The jobs a minion is running, as its functions see them (Salt's proc
//! files): `saltutil.running`, `saltutil.find_job`, `state.running` and
//! the `saltutil.*_job` signals read and act on them. The daemon keeps the
//! table of its own jobs and plugs it into each job's minion; every job
//! and every `brine-call` also leaves a proc file in the minion's
//! `cachedir/proc` while it runs ([`ProcFile`]), so that one process sees
//! what the others run (Salt's salt-call and salt-minion share that
//! folder the same way): a state run refuses to start while another runs.

use brine_core::{Map, Value};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The daemon's table of running jobs.
pub trait RunningJobs: Send + Sync {
    /// Every job running now, in the order they started: each one's proc
    /// data (`pid`, `fun`, `arg`, `tgt`, `jid`, `ret`, `tgt_type`, `user`).
    fn list(&self) -> Vec<Map>;
    /// Deliver signal `sig` to the job `jid` (see [`stops`]) and to the
    /// process groups of the commands it runs; false when no such job runs.
    fn signal(&self, jid: &str, sig: i32) -> bool;
    /// The job `jid` started a command in process group `pgid` (`true`) or
    /// that command ended (`false`).
    fn track(&self, jid: &str, pgid: u32, running: bool);
}

/// Whether a signal ends a job. Jobs are tasks of the minion process, not
/// processes of their own: the signal goes to the process groups of the
/// commands the job runs (see [`Jobs::tracking`]), and one whose default
/// action ends a process cancels the job itself (it stops and returns
/// nothing, as a killed Salt job does); the others (0, `SIGCHLD`, `SIGCONT`, `SIGSTOP`,
/// `SIGTSTP`, `SIGTTIN`, `SIGTTOU`, `SIGURG`, `SIGWINCH`) leave it running.
pub fn stops(sig: i32) -> bool {
    !matches!(sig, 0 | 17 | 18 | 19 | 20 | 21 | 22 | 23 | 28)
}

/// One call's view of the running jobs: the table, and which job the call
/// itself is (never listed among the others, as Salt leaves out the proc
/// file of the process asking).
#[derive(Clone, Default)]
pub struct Jobs {
    table: Option<Arc<dyn RunningJobs>>,
    own_jid: Option<String>,
    /// The proc folder other processes' jobs are read from.
    proc_dir: Option<PathBuf>,
}

impl std::fmt::Debug for Jobs {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Jobs")
            .field("table", &self.table.is_some())
            .field("own_jid", &self.own_jid)
            .field("proc_dir", &self.proc_dir)
            .finish()
    }
}

impl Jobs {
    /// The table as the job `own_jid` sees it.
    pub fn new(table: Arc<dyn RunningJobs>, own_jid: Option<String>) -> Jobs {
        Jobs {
            table: Some(table),
            own_jid,
            proc_dir: None,
        }
    }

    /// A call of its own process (`brine-call`): no table, only the other
    /// processes' proc files.
    pub fn call(own_jid: String) -> Jobs {
        Jobs {
            table: None,
            own_jid: Some(own_jid),
            proc_dir: None,
        }
    }

    /// The jobs of other processes are read from `cachedir/proc`.
    pub fn with_cachedir(mut self, cachedir: &Path) -> Jobs {
        self.proc_dir = Some(proc_dir(cachedir));
        self
    }

    /// This call's job id, when it has one.
    pub fn own_jid(&self) -> Option<&str> {
        self.own_jid.as_deref()
    }

    /// The running jobs other than this call: this process's (the
    /// daemon's table), then other processes' (their proc files).
    pub fn others(&self) -> Vec<Map> {
        let own = self.own_jid.as_deref();
        let mut jobs = self.table.as_ref().map(|t| t.list()).unwrap_or_default();
        if let Some(dir) = &self.proc_dir {
            // A job the daemon runs in a process of its own is in its
            // table and has that process's proc file: listed once.
            let jid = |j: &Map| j.get("jid").map(Value::to_python_str);
            let listed: std::collections::HashSet<String> = jobs.iter().filter_map(jid).collect();
            jobs.extend(
                read_proc_dir(dir)
                    .into_iter()
                    .filter(|j| jid(j).is_none_or(|k| !listed.contains(&k))),
            );
        }
        jobs.into_iter()
            .filter(|j| own.is_none() || j.get("jid").and_then(|v| v.as_str()) != own)
            .collect()
    }

    /// Run `f` with this job's commands known to the table while they run,
    /// so a signal to the job reaches them (Salt's kill_job kills the job's
    /// process, and its commands with it).
    pub fn tracking<T>(&self, f: impl FnOnce(&dyn Fn(u32, bool)) -> T) -> T {
        match (&self.table, &self.own_jid) {
            (Some(t), Some(jid)) => f(&|pgid, running| t.track(jid, pgid, running)),
            _ => f(&|_, _| {}),
        }
    }

    /// Signal the job `jid` (not this call); false when it does not run.
    pub fn signal(&self, jid: &str, sig: i32) -> bool {
        match &self.table {
            Some(t) if self.own_jid.as_deref() != Some(jid) => t.signal(jid, sig),
            _ => false,
        }
    }
}

/// Make a minion's `cachedir` (and its parents) if missing, and private:
/// it holds what the master sent (file names and contents, returns not
/// yet delivered), which no other local user may list. An older 0755 one
/// is made 0700.
pub fn private_cachedir(cachedir: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::create_dir_all(cachedir)?;
    let mode = std::fs::metadata(cachedir)?.permissions().mode();
    if mode & 0o077 != 0 {
        std::fs::set_permissions(cachedir, std::fs::Permissions::from_mode(0o700))?;
    }
    Ok(())
}

/// The folder of proc files under a minion's `cachedir`.
pub fn proc_dir(cachedir: &Path) -> PathBuf {
    cachedir.join("proc")
}

/// One running job's proc file, removed when dropped.
#[derive(Debug)]
pub struct ProcFile {
    path: PathBuf,
}

impl ProcFile {
    /// Write the proc data of job `name` (its jid, with the minion id when
    /// several identities share the folder) into `cachedir/proc`.
    pub fn write(cachedir: &Path, name: &str, data: &Map) -> std::io::Result<ProcFile> {
        let dir = proc_dir(cachedir);
        std::fs::create_dir_all(&dir)?;
        let path = dir.join(name.replace('/', "_"));
        let text = brine_core::yaml::dump(&Value::Map(data.clone()));
        std::fs::write(&path, text)?;
        Ok(ProcFile { path })
    }
}

impl Drop for ProcFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

/// The proc data of the jobs other processes run, from their files in
/// `dir`. Files of processes that are gone (or whose id now names a
/// process other than brine's) are removed, as Salt removes them; this
/// process's own jobs are left to its table.
pub fn read_proc_dir(dir: &Path) -> Vec<Map> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let me = i64::from(std::process::id());
    let mut jobs: Vec<(String, Map)> = Vec::new();
    for entry in entries.flatten() {
        let path = entry.path();
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        let Ok(Value::Map(data)) = brine_core::yaml::load(&text) else {
            continue;
        };
        let pid = data.get("pid").and_then(Value::as_i64);
        if pid == Some(me) {
            continue;
        }
        if !pid.is_some_and(is_brine_process) {
            let _ = std::fs::remove_file(&path);
            continue;
        }
        let jid = data
            .get("jid")
            .map(Value::to_python_str)
            .unwrap_or_default();
        jobs.push((jid, data));
    }
    // Oldest first, as jids are times.
    jobs.sort_by(|a, b| a.0.cmp(&b.0));
    jobs.into_iter().map(|(_, d)| d).collect()
}

/// Whether `pid` runs and is brine's (Salt's `_check_cmdline` looks for
/// "salt" in the command line, against recycled process ids).
fn is_brine_process(pid: i64) -> bool {
    let Ok(raw) = i32::try_from(pid) else {
        return false;
    };
    if raw <= 0 {
        return false;
    }
    if nix::sys::signal::kill(nix::unistd::Pid::from_raw(raw), None).is_err() {
        return false;
    }
    match std::fs::read(format!("/proc/{pid}/cmdline")) {
        Ok(cmdline) => cmdline.windows(5).any(|w| w == b"brine"),
        // Without /proc, a live process is taken as ours.
        Err(_) => !Path::new("/proc/self").exists(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cachedir_is_made_private() {
        use std::os::unix::fs::PermissionsExt;
        let td = tempfile::tempdir().unwrap();
        let dir = td.path().join("var/cache/brine/minion");
        private_cachedir(&dir).unwrap();
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&dir), 0o700);
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).unwrap();
        private_cachedir(&dir).unwrap();
        assert_eq!(mode(&dir), 0o700);
    }

    fn data(pid: i64, jid: &str) -> Map {
        let mut m = Map::default();
        m.insert("fun".into(), Value::Str("state.sls".into()));
        m.insert("pid".into(), Value::Int(pid));
        m.insert("jid".into(), Value::Str(jid.into()));
        m
    }

    /// Another live brine process's job is listed; the files of dead
    /// processes and of processes that are not brine's are removed; this
    /// process's own files are left to its table.
    #[test]
    fn proc_files_of_other_processes_are_listed() {
        let tmp = tempfile::tempdir().unwrap();
        let me = i64::from(std::process::id());
        let own = ProcFile::write(tmp.path(), "1", &data(me, "1")).unwrap();
        let mut dead = std::process::Command::new("true").spawn().unwrap();
        let dead_pid = i64::from(dead.id());
        dead.wait().unwrap();
        let _dead = ProcFile::write(tmp.path(), "2", &data(dead_pid, "2")).unwrap();
        // A live process with "brine" in its command line.
        let mut other = std::process::Command::new("sh")
            .args(["-c", "sleep 5; true", "brine-probe"])
            .spawn()
            .unwrap();
        let other_pid = i64::from(other.id());
        // Until its exec is done, its command line may read empty.
        for _ in 0..100 {
            let cmdline = std::fs::read(format!("/proc/{other_pid}/cmdline")).unwrap_or_default();
            if cmdline.windows(11).any(|w| w == b"brine-probe") {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        let _other = ProcFile::write(tmp.path(), "4", &data(other_pid, "4")).unwrap();
        let dir = proc_dir(tmp.path());
        let listed = read_proc_dir(&dir);
        let _ = other.kill();
        let _ = other.wait();
        assert_eq!(listed, vec![data(other_pid, "4")]);
        assert!(!dir.join("2").exists());
        assert!(dir.join("1").exists());
        drop(own);
        assert!(!dir.join("1").exists());
        // Gone now: its file goes at the next read.
        assert!(read_proc_dir(&dir).is_empty());
        assert!(!dir.join("4").exists());
    }
}
