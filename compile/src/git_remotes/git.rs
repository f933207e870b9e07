//! The host's `git`, as gitfs and git_pillar run it: a mirror cloned once
//! and fetched after, its refs listed, one commit's tree exported into a
//! folder. Every command is bounded in time (`git_fetch_timeout`, default
//! five minutes) and never asks a terminal for anything; an ssh remote
//! authenticates with the remote's `privkey` only, and an https remote's
//! certificate is checked unless the remote says `ssl_verify: False`.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// How long one clone, fetch or export may take unless configured.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(300);

/// How git is run for one remote.
#[derive(Debug, Clone)]
pub struct Git {
    pub timeout: Duration,
    /// The ssh private key of the remote (`privkey`).
    pub privkey: Option<PathBuf>,
    /// Whether an https remote's certificate is checked (`ssl_verify`,
    /// git's `http.sslVerify`).
    pub ssl_verify: bool,
}

impl Default for Git {
    fn default() -> Git {
        Git {
            timeout: DEFAULT_TIMEOUT,
            privkey: None,
            ssl_verify: true,
        }
    }
}

/// Why a git command failed.
#[derive(Debug, thiserror::Error)]
pub enum GitError {
    #[error("cannot run {program}: {source}")]
    Spawn {
        program: &'static str,
        source: std::io::Error,
    },
    #[error("{what} did not finish within {}s", .timeout.as_secs())]
    Timeout { what: String, timeout: Duration },
    #[error("{what} failed: {stderr}")]
    Failed { what: String, stderr: String },
}

/// A ref of the mirror: `refs/heads/NAME` or `refs/tags/NAME` and the
/// commit it names (a tag peeled).
#[derive(Debug, Clone)]
pub struct Ref {
    pub name: String,
    pub is_tag: bool,
    pub commit: String,
}

impl Git {
    /// How `o` says to run git for the remotes of `prefix` (`gitfs` or
    /// `git_pillar`): `git_fetch_timeout`, `PREFIX_privkey`,
    /// `PREFIX_ssl_verify`; a remote's own options go on top ([`Git::set`]).
    pub fn of(o: &brine_core::Map, prefix: &str) -> Git {
        let get = |k: &str| o.get(&format!("{prefix}_{k}"));
        Git {
            timeout: fetch_timeout(o),
            privkey: get("privkey")
                .and_then(brine_core::Value::as_str)
                .map(PathBuf::from),
            ssl_verify: get("ssl_verify").is_none_or(brine_core::Value::is_truthy),
        }
    }

    /// A remote's own `key: v` if it is one of git's (`privkey`,
    /// `ssl_verify`); whether it was.
    pub fn set(&mut self, key: &str, v: &brine_core::Value) -> bool {
        match key {
            "privkey" => self.privkey = Some(PathBuf::from(v.to_python_str())),
            "ssl_verify" => self.ssl_verify = v.is_truthy(),
            _ => return false,
        }
        true
    }

    fn git(&self, dir: Option<&Path>) -> Command {
        let mut c = Command::new("git");
        if !self.ssl_verify {
            c.args(["-c", "http.sslVerify=false"]);
        }
        if let Some(d) = dir {
            c.arg("--git-dir").arg(d);
        }
        c.env("GIT_TERMINAL_PROMPT", "0")
            .env("GIT_ASKPASS", "/bin/true")
            .env("LC_ALL", "C")
            .stdin(Stdio::null());
        if let Some(key) = &self.privkey {
            c.env(
                "GIT_SSH_COMMAND",
                format!(
                    "ssh -i '{}' -o IdentitiesOnly=yes -o BatchMode=yes -o ConnectTimeout=30",
                    key.display().to_string().replace('\'', "")
                ),
            );
        }
        c
    }

    /// Wait for `child` until the deadline; its stdout and stderr.
    fn finish(&self, mut child: Child, what: &str) -> Result<(Vec<u8>, bool, String), GitError> {
        use std::io::Read;
        let out = child.stdout.take().map(|mut s| {
            std::thread::spawn(move || {
                let mut b = Vec::new();
                let _ = s.read_to_end(&mut b);
                b
            })
        });
        let err = child.stderr.take().map(|mut s| {
            std::thread::spawn(move || {
                let mut b = Vec::new();
                let _ = (&mut s).take(64 << 10).read_to_end(&mut b);
                b
            })
        });
        let deadline = Instant::now() + self.timeout;
        let status = loop {
            match child.try_wait() {
                Ok(Some(s)) => break s,
                Ok(None) if Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(10))
                }
                _ => {
                    let _ = child.kill();
                    let _ = child.wait();
                    return Err(GitError::Timeout {
                        what: what.into(),
                        timeout: self.timeout,
                    });
                }
            }
        };
        let stdout = out.and_then(|h| h.join().ok()).unwrap_or_default();
        let stderr = err.and_then(|h| h.join().ok()).unwrap_or_default();
        // One line for the log: git's first (`fatal: ...`).
        let said = String::from_utf8_lossy(&stderr);
        let first = said
            .lines()
            .map(str::trim)
            .find(|l| !l.is_empty())
            .unwrap_or("")
            .to_string();
        Ok((stdout, status.success(), first))
    }

    fn run(&self, mut cmd: Command, what: String) -> Result<Vec<u8>, GitError> {
        let child = spawn(cmd.stdout(Stdio::piped()), "git")?;
        match self.finish(child, &what)? {
            (out, true, _) => Ok(out),
            (_, false, stderr) => Err(GitError::Failed { what, stderr }),
        }
    }

    /// Clone `url` as a mirror into `dir`, or fetch into the one there.
    /// Whether anything changed.
    pub fn sync(&self, url: &str, dir: &Path) -> Result<bool, GitError> {
        if !dir.join("HEAD").is_file() {
            let mut c = self.git(None);
            c.args(["clone", "--mirror", "--quiet", "--", url]).arg(dir);
            self.run(c, format!("git clone {url}"))?;
            return Ok(true);
        }
        let before = self.refs(dir)?;
        let mut c = self.git(Some(dir));
        c.args(["fetch", "--prune", "--quiet", "origin"]);
        self.run(c, format!("git fetch {url}"))?;
        let after = self.refs(dir)?;
        let key = |r: &[Ref]| {
            r.iter()
                .map(|x| (x.name.clone(), x.is_tag, x.commit.clone()))
                .collect::<Vec<_>>()
        };
        Ok(key(&before) != key(&after))
    }

    /// The branches and tags of the mirror at `dir`.
    pub fn refs(&self, dir: &Path) -> Result<Vec<Ref>, GitError> {
        let mut c = self.git(Some(dir));
        c.args([
            "for-each-ref",
            "--format=%(refname)\t%(objectname)\t%(*objectname)",
            "refs/heads",
            "refs/tags",
        ]);
        let out = self.run(c, "git for-each-ref".into())?;
        let mut refs = Vec::new();
        for line in String::from_utf8_lossy(&out).lines() {
            let mut parts = line.split('\t');
            let (Some(name), Some(obj)) = (parts.next(), parts.next()) else {
                continue;
            };
            let peeled = parts.next().filter(|p| !p.is_empty());
            let (is_tag, short) = match (
                name.strip_prefix("refs/heads/"),
                name.strip_prefix("refs/tags/"),
            ) {
                (Some(b), _) => (false, b),
                (_, Some(t)) => (true, t),
                _ => continue,
            };
            refs.push(Ref {
                name: short.to_string(),
                is_tag,
                commit: peeled.unwrap_or(obj).to_string(),
            });
        }
        Ok(refs)
    }

    /// Whether `commit` has the folder `root` (the whole tree when empty).
    pub fn has_root(&self, dir: &Path, commit: &str, root: &str) -> bool {
        if root.is_empty() {
            return true;
        }
        let mut c = self.git(Some(dir));
        c.args(["cat-file", "-e", &format!("{commit}:{root}")]);
        self.run(c, "git cat-file".into()).is_ok()
    }

    /// Export `commit`'s folder `root` (the whole tree when empty) into
    /// `dest`, which exists: `git archive` piped into `tar -x`.
    pub fn export(
        &self,
        dir: &Path,
        commit: &str,
        root: &str,
        dest: &Path,
    ) -> Result<(), GitError> {
        let tree = if root.is_empty() {
            commit.to_string()
        } else {
            format!("{commit}:{root}")
        };
        let mut archive = self.git(Some(dir));
        let mut archive = spawn(
            archive
                .args(["archive", "--format=tar", &tree])
                .stdout(Stdio::piped()),
            "git",
        )?;
        let Some(tar_in) = archive.stdout.take() else {
            let _ = archive.kill();
            return Err(GitError::Failed {
                what: "git archive".into(),
                stderr: "no output pipe".into(),
            });
        };
        let tar = spawn(
            Command::new("tar")
                .arg("-x")
                .arg("-C")
                .arg(dest)
                .stdin(Stdio::from(tar_in))
                .stdout(Stdio::null()),
            "tar",
        )?;
        let what = format!("git archive {tree}");
        let (_, ok, stderr) = self.finish(archive, &what)?;
        let (_, tar_ok, tar_err) = self.finish(tar, "tar -x")?;
        if !ok {
            return Err(GitError::Failed { what, stderr });
        }
        if !tar_ok {
            return Err(GitError::Failed {
                what: "tar -x".into(),
                stderr: tar_err,
            });
        }
        Ok(())
    }
}

/// The mirror of the remote named `name` (its url, or git_pillar's
/// `BRANCH URL`) under `dir`, its folder made.
pub fn mirror_dir(dir: &Path, name: &str) -> PathBuf {
    let folder = dir.join(short_hash(name));
    let _ = std::fs::create_dir_all(&folder);
    folder.join("mirror.git")
}

/// The folder under `trees` holding `commit`'s `root` of the remote named
/// `name`, mounted at `mount`: exported from `mirror` unless an update
/// already did (the same four give the same folder, whoever exports it).
pub fn exported(
    git: &Git,
    mirror: &Path,
    trees: &Path,
    name: &str,
    commit: &str,
    root: &str,
    mount: &str,
) -> Result<PathBuf, GitError> {
    let dest = trees.join(short_hash(&format!("{name}\0{commit}\0{root}\0{mount}")));
    if !dest.is_dir() {
        export_tree(git, mirror, commit, root, mount, &dest)?;
    }
    Ok(dest)
}

/// A folder name for `text`: half of its blake3 hash, in hex.
fn short_hash(text: &str) -> String {
    let mut hex = blake3::hash(text.as_bytes()).to_hex().to_string();
    hex.truncate(32);
    hex
}

/// Export into a scratch folder beside `dest`, then move it into place.
fn export_tree(
    git: &Git,
    mirror: &Path,
    commit: &str,
    root: &str,
    mount: &str,
    dest: &Path,
) -> Result<(), GitError> {
    let failed = |e: std::io::Error| GitError::Failed {
        what: format!("export to {}", dest.display()),
        stderr: e.to_string(),
    };
    let tmp = dest.with_extension(format!("tmp{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    let into = if mount.is_empty() {
        tmp.clone()
    } else {
        tmp.join(mount)
    };
    std::fs::create_dir_all(&into).map_err(failed)?;
    if git.has_root(mirror, commit, root) {
        git.export(mirror, commit, root, &into)?;
    }
    match std::fs::rename(&tmp, dest) {
        // Another update (the master's, a brine-run's) exported it first.
        Err(_) if dest.is_dir() => {
            let _ = std::fs::remove_dir_all(&tmp);
            Ok(())
        }
        other => other.map_err(failed),
    }
}

/// `git_fetch_timeout` (seconds; brine's own option): how long one git
/// command of gitfs or git_pillar may take.
pub fn fetch_timeout(o: &brine_core::Map) -> std::time::Duration {
    match o.get("git_fetch_timeout") {
        Some(brine_core::Value::Int(i)) if *i > 0 => {
            std::time::Duration::from_secs(u64::try_from(*i).unwrap_or(300))
        }
        _ => DEFAULT_TIMEOUT,
    }
}

/// Start `cmd` with its stderr piped (read by [`Git::finish`]).
fn spawn(cmd: &mut Command, program: &'static str) -> Result<Child, GitError> {
    cmd.stderr(Stdio::piped())
        .spawn()
        .map_err(|source| GitError::Spawn { program, source })
}
