//! The host's `git`, as Salt's `git` execution module runs it: one command
//! per question, failures worded as Salt's `CommandExecutionError`
//! ("Command 'git ...' failed: <stderr>"), an identity file handed to ssh
//! through `GIT_SSH_COMMAND` (Salt's ssh wrapper passes the same options).
//! The `git.*` execution functions and the `git` states share it.

use brine_core::{Map, Value};
use brine_host::exec::{self, CommandSpec};
use std::path::{Path, PathBuf};

/// Why a git command gave no answer: Salt's `CommandExecutionError` text.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{0}")]
pub struct GitError(pub String);

impl GitError {
    /// Salt's `_strip_exc`: the message without "Command '...' failed: ".
    pub fn stripped(&self) -> String {
        let s = &self.0;
        if let Some(rest) = s.strip_prefix("Command ") {
            let quote = rest.chars().next();
            if matches!(quote, Some('\'') | Some('"')) {
                if let Some(at) = rest.rfind(" failed: ") {
                    let before = &rest[..at];
                    if before.ends_with(['\'', '"']) {
                        return rest[at + " failed: ".len()..].to_string();
                    }
                }
            }
        }
        s.clone()
    }
}

/// Who runs git, and with which ssh key.
#[derive(Debug, Clone, Default)]
pub struct Git {
    pub user: Option<String>,
    /// Identity files, tried in order (Salt's `identity`).
    pub identity: Vec<String>,
}

/// Options given as Salt takes them: a string split as a shell would, or
/// a list.
pub fn opts_of(v: Option<&Value>) -> Vec<String> {
    match v {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::List(l)) => l.iter().map(Value::to_python_str).collect(),
        Some(Value::Str(s)) => brine_core::py::shlex_split(s).unwrap_or_default(),
        Some(other) => vec![other.to_python_str()],
    }
}

impl Git {
    fn spec(&self, cwd: Option<&Path>, args: &[String], env: Vec<(String, String)>) -> CommandSpec {
        let mut argv = vec!["git".to_string()];
        argv.extend(args.iter().cloned());
        let mut spec = CommandSpec::argv(&argv);
        spec.cwd = cwd.map(Path::to_path_buf);
        spec.runas = self.user.clone();
        spec.env = env;
        spec
    }

    /// Salt's cmd module refuses to run as a user that does not exist.
    fn check_user(&self) -> Result<(), GitError> {
        match &self.user {
            Some(u) if brine_host::accounts::user_by_name(u).is_none() => {
                Err(GitError(format!("User '{u}' is not available")))
            }
            _ => Ok(()),
        }
    }

    /// Run `git ARGS` in `cwd`; its output, or Salt's failure text.
    /// `merged`: stderr into stdout (Salt's `redirect_stderr`).
    pub fn run_full(
        &self,
        cwd: Option<&Path>,
        args: &[String],
        merged: bool,
        remote: bool,
    ) -> Result<exec::CommandResult, GitError> {
        let shown = format!("git {}", args.join(" "));
        // Salt looks for the identity files before it runs anything, so a
        // missing key is the error even for a user that does not exist.
        if remote && !self.identity.is_empty() {
            return self.run_with_identity(cwd, args, merged);
        }
        self.check_user()?;
        let mut spec = self.spec(cwd, args, Vec::new());
        spec.merge_stderr = merged;
        let r = exec::run(&spec).map_err(|e| GitError(format!("Command '{shown}' failed: {e}")))?;
        if r.retcode == 0 {
            return Ok(r);
        }
        let err = if merged { &r.stdout } else { &r.stderr };
        Err(GitError(if err.is_empty() {
            format!("Command '{shown}' failed")
        } else {
            format!("Command '{shown}' failed: {err}")
        }))
    }

    /// Salt's identity loop: each key in turn until one works.
    fn run_with_identity(
        &self,
        cwd: Option<&Path>,
        args: &[String],
        merged: bool,
    ) -> Result<exec::CommandResult, GitError> {
        let mut errors = Vec::new();
        let mut missing = Vec::new();
        for key in &self.identity {
            if !Path::new(key).is_file() {
                missing.push(key.clone());
                continue;
            }
            self.check_user()?;
            let ssh = format!(
                "ssh -oStrictHostKeyChecking=no -oPasswordAuthentication=no \
                 -oKbdInteractiveAuthentication=no -oChallengeResponseAuthentication=no -i {}",
                shell_words::quote(key)
            );
            let mut spec = self.spec(cwd, args, vec![("GIT_SSH_COMMAND".into(), ssh)]);
            spec.merge_stderr = merged;
            let r = exec::run(&spec).map_err(|e| GitError(e.to_string()))?;
            if r.retcode == 0 {
                return Ok(r);
            }
            let err = if merged { &r.stdout } else { &r.stderr };
            if !err.is_empty() {
                errors.push(err.clone());
            }
        }
        let mut msg = format!(
            "Unable to authenticate using identity file:\n\n{}",
            errors.join("\n")
        );
        if !missing.is_empty() {
            if !errors.is_empty() {
                msg.push_str("\n\n");
            }
            msg.push_str(&format!(
                "The following identity file(s) were not found: {}",
                missing.join(", ")
            ));
        }
        Err(GitError(msg))
    }

    /// `git ARGS` in `cwd`: its stdout.
    pub fn run(&self, cwd: &Path, args: &[&str]) -> Result<String, GitError> {
        let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        self.run_full(Some(cwd), &args, false, false)
            .map(|r| r.stdout)
    }

    /// `git ARGS` in `cwd` (none for `--global` questions), whatever its
    /// exit code: the config functions read the code (1: no such key).
    fn run_any(
        &self,
        cwd: Option<&Path>,
        args: &[String],
    ) -> Result<exec::CommandResult, GitError> {
        self.check_user()?;
        let spec = self.spec(cwd, args, Vec::new());
        exec::run(&spec)
            .map_err(|e| GitError(format!("Command 'git {}' failed: {e}", args.join(" "))))
    }

    /// `git config --global` or `--local` (a repository's own file), as
    /// Salt's `_which_git_config` chooses for a git this new.
    fn scope(global: bool) -> String {
        if global { "--global" } else { "--local" }.to_string()
    }

    /// Salt's `config_get(all=True)`: every value of KEY, None when unset.
    pub fn config_get_all(
        &self,
        cwd: Option<&Path>,
        key: &str,
        global: bool,
    ) -> Result<Option<Vec<String>>, GitError> {
        let args = vec![
            "config".into(),
            Self::scope(global),
            "--get-all".into(),
            key.into(),
        ];
        let r = self.run_any(cwd, &args)?;
        if r.retcode == 1 {
            return Ok(None);
        }
        Ok(Some(r.stdout.lines().map(str::to_string).collect()))
    }

    /// Salt's `config_get_regexp`: the keys matching the KEY pattern (as
    /// git names them) → their values matching VALUE_REGEX.
    pub fn config_get_regexp(
        &self,
        cwd: Option<&Path>,
        key: &str,
        value_regex: Option<&str>,
        global: bool,
    ) -> Result<Vec<(String, Vec<String>)>, GitError> {
        let mut args = vec![
            "config".into(),
            Self::scope(global),
            "--get-regexp".into(),
            key.into(),
        ];
        args.extend(value_regex.map(str::to_string));
        let r = self.run_any(cwd, &args)?;
        let mut out: Vec<(String, Vec<String>)> = Vec::new();
        if r.retcode == 1 {
            return Ok(out);
        }
        for line in r.stdout.lines() {
            let mut words = line.trim_start().splitn(2, char::is_whitespace);
            let (Some(param), Some(value)) = (words.next(), words.next()) else {
                continue;
            };
            let value = value.trim_start().to_string();
            match out.iter_mut().find(|(k, _)| k == param) {
                Some((_, vs)) => vs.push(value),
                None => out.push((param.to_string(), vec![value])),
            }
        }
        Ok(out)
    }

    /// Salt's `config_set`: VALUES replace KEY's (the first with
    /// `--replace-all`, the others `--add`ed); the values after.
    pub fn config_set(
        &self,
        cwd: Option<&Path>,
        key: &str,
        values: &[String],
        global: bool,
    ) -> Result<Option<Vec<String>>, GitError> {
        for (i, v) in values.iter().enumerate() {
            let mut args = vec!["config".to_string()];
            if global {
                args.push("--global".into());
            }
            args.push(if i == 0 { "--replace-all" } else { "--add" }.into());
            args.push(key.into());
            args.push(v.clone());
            self.run_full(cwd, &args, false, false)?;
        }
        self.config_get_all(cwd, key, global)
    }

    /// Salt's `config_unset`: KEY's values (those VALUE_REGEX matches)
    /// removed; git's exit codes worded as Salt words them.
    pub fn config_unset(
        &self,
        cwd: Option<&Path>,
        key: &str,
        value_regex: Option<&str>,
        all: bool,
        global: bool,
    ) -> Result<(), GitError> {
        let mut args = vec![
            "config".to_string(),
            if all { "--unset-all" } else { "--unset" }.to_string(),
            Self::scope(global),
            key.to_string(),
        ];
        args.extend(value_regex.map(str::to_string));
        let r = self.run_any(cwd, &args)?;
        match r.retcode {
            0 => Ok(()),
            1 => Err(GitError("Section or key is invalid".into())),
            5 => {
                let args = vec![
                    "config".into(),
                    Self::scope(global),
                    "--get-all".into(),
                    key.into(),
                ];
                let exists = self.run_any(cwd, &args)?.retcode != 1;
                Err(GitError(if !exists {
                    format!("Key '{key}' does not exist")
                } else if value_regex.is_some() {
                    format!("Multiple values exist for key '{key}' and value_regex matches multiple values")
                } else {
                    format!("Multiple values exist for key '{key}'")
                }))
            }
            6 => Err(GitError("The value_regex is invalid".into())),
            code => {
                let mut msg =
                    format!("Failed to unset key '{key}', git config returned exit code {code}");
                if !r.stderr.is_empty() {
                    msg.push_str("; ");
                    msg.push_str(&r.stderr);
                }
                Err(GitError(msg))
            }
        }
    }

    /// `git ls-remote URL` (Salt's `remote_refs`): ref name → sha1.
    pub fn remote_refs(&self, url: &str) -> Result<Map, GitError> {
        let args = vec!["ls-remote".to_string(), url.to_string()];
        let out = self.run_full(Some(Path::new("/tmp")), &args, false, true)?;
        Ok(parse_refs(&out.stdout))
    }

    /// `git ls-remote --tags REMOTE` in `cwd`: the tag names.
    pub fn remote_tags(&self, cwd: &Path, remote: &str) -> Vec<String> {
        let args = vec![
            "ls-remote".to_string(),
            "--tags".to_string(),
            remote.to_string(),
        ];
        match self.run_full(Some(cwd), &args, false, true) {
            Ok(out) => parse_refs(&out.stdout)
                .keys()
                .filter(|k| !k.contains("^{}"))
                .map(|k| k.trim_start_matches("refs/tags/").to_string())
                .collect(),
            Err(_) => Vec::new(),
        }
    }

    /// `git rev-parse HEAD` (Salt's `revision`).
    pub fn revision(&self, cwd: &Path) -> Result<String, GitError> {
        self.run(cwd, &["rev-parse", "HEAD"])
            .map(|s| s.trim().to_string())
    }

    /// `git rev-parse [OPTS] REV`.
    pub fn rev_parse(&self, cwd: &Path, rev: &str, opts: &[&str]) -> Result<String, GitError> {
        let mut args = vec!["rev-parse"];
        args.extend_from_slice(opts);
        args.push(rev);
        self.run(cwd, &args).map(|s| s.trim().to_string())
    }

    /// `git rev-parse --abbrev-ref HEAD` (Salt's `current_branch`).
    pub fn current_branch(&self, cwd: &Path) -> Result<String, GitError> {
        self.rev_parse(cwd, "HEAD", &["--abbrev-ref"])
    }

    fn refs_under(&self, cwd: &Path, prefix: &str) -> Result<Vec<String>, GitError> {
        let out = self.run(
            cwd,
            &["for-each-ref", "--format", "%(refname:short)", prefix],
        )?;
        Ok(out.lines().map(str::to_string).collect())
    }

    /// The local branches (Salt's `list_branches`).
    pub fn list_branches(&self, cwd: &Path) -> Result<Vec<String>, GitError> {
        self.refs_under(cwd, "refs/heads/")
    }

    /// The local tags (Salt's `list_tags`).
    pub fn list_tags(&self, cwd: &Path) -> Result<Vec<String>, GitError> {
        self.refs_under(cwd, "refs/tags/")
    }

    /// `git remote --verbose` as Salt's `remotes`: name → {fetch, push}.
    pub fn remotes(&self, cwd: &Path) -> Result<Map, GitError> {
        let out = self.run(cwd, &["remote", "--verbose"])?;
        let mut ret = Map::default();
        for line in out.lines() {
            let mut parts = line.splitn(2, char::is_whitespace);
            let (Some(name), Some(info)) = (parts.next(), parts.next()) else {
                continue;
            };
            let info = info.trim();
            let Some((url, action)) = info.rsplit_once(char::is_whitespace) else {
                continue;
            };
            let action = action
                .trim_start_matches('(')
                .trim_end_matches(')')
                .to_lowercase();
            if action != "fetch" && action != "push" {
                continue;
            }
            let entry = ret
                .entry(name.to_string())
                .or_insert_with(|| Value::Map(Map::default()));
            if let Value::Map(m) = entry {
                m.insert(action, Value::Str(url.trim().to_string()));
            }
        }
        Ok(ret)
    }

    /// Salt's `remote_get`: one remote's URLs.
    pub fn remote_get(&self, cwd: &Path, remote: &str) -> Result<Value, GitError> {
        let all = self.remotes(cwd)?;
        all.get(remote).cloned().ok_or_else(|| {
            GitError(format!(
                "Remote '{remote}' not present in git checkout located at {}",
                cwd.display()
            ))
        })
    }

    /// Salt's `remote_set`: the remote (re)added with `url`.
    pub fn remote_set(&self, cwd: &Path, url: &str, remote: &str) -> Result<Value, GitError> {
        if self.remotes(cwd)?.contains_key(remote) {
            self.run(cwd, &["remote", "rm", remote])?;
        }
        self.run(cwd, &["remote", "add", remote, url])?;
        self.remote_get(cwd, remote)
    }

    /// Salt's `fetch`: the refs it changed, by kind.
    pub fn fetch(
        &self,
        cwd: &Path,
        remote: Option<&str>,
        force: bool,
        refspecs: &[String],
        opts: &[String],
    ) -> Result<Map, GitError> {
        let mut args = vec!["fetch".to_string()];
        if force {
            args.push("--force".into());
        }
        args.extend(
            opts.iter()
                .filter(|o| *o != "-f" && *o != "--force")
                .cloned(),
        );
        if let Some(r) = remote {
            args.push(r.to_string());
        }
        args.extend(refspecs.iter().cloned());
        let out = self.run_full(Some(cwd), &args, true, true)?.stdout;
        Ok(parse_fetch(&out))
    }

    /// Salt's `clone`: `git clone OPTS -- URL TARGET`, run from /tmp (or,
    /// given a `name`, into `cwd/name`, making `cwd`).
    pub fn clone(
        &self,
        cwd: &Path,
        url: &str,
        name: Option<&str>,
        opts: &[String],
    ) -> Result<(), GitError> {
        let mut args = vec!["clone".to_string()];
        args.extend(opts.iter().cloned());
        args.push("--".into());
        args.push(url.into());
        let run_in: PathBuf = match name {
            Some(n) => {
                args.push(n.into());
                std::fs::create_dir_all(cwd).map_err(|e| GitError(e.to_string()))?;
                cwd.to_path_buf()
            }
            None => {
                args.push(cwd.display().to_string());
                PathBuf::from("/tmp")
            }
        };
        self.run_full(Some(&run_in), &args, false, true).map(|_| ())
    }

    /// `git checkout [--force] OPTS REV`.
    pub fn checkout(
        &self,
        cwd: &Path,
        rev: Option<&str>,
        force: bool,
        opts: &[String],
    ) -> Result<String, GitError> {
        let mut args = vec!["checkout".to_string()];
        if force {
            args.push("--force".into());
        }
        args.extend(opts.iter().cloned());
        if let Some(r) = rev {
            args.push(r.to_string());
        }
        // git prints where it went on stderr.
        self.run_full(Some(cwd), &args, true, false)
            .map(|r| r.stdout)
    }

    /// `git reset OPTS`.
    pub fn reset(&self, cwd: &Path, opts: &[String]) -> Result<String, GitError> {
        let mut args = vec!["reset".to_string()];
        args.extend(opts.iter().cloned());
        self.run_full(Some(cwd), &args, false, false)
            .map(|r| r.stdout)
    }

    /// Salt's `status`: paths by state (modified, new, deleted,
    /// untracked).
    pub fn status(&self, cwd: &Path) -> Result<Map, GitError> {
        let out = self.run(cwd, &["status", "-z", "--porcelain"])?;
        let mut ret = Map::default();
        for line in out.split('\0') {
            let line = line.trim_start();
            let Some((state, file)) = line.split_once(char::is_whitespace) else {
                continue;
            };
            let key = match state {
                "M" => "modified",
                "A" => "new",
                "D" => "deleted",
                "??" => "untracked",
                other => other,
            };
            if let Value::List(l) = ret
                .entry(key.to_string())
                .or_insert_with(|| Value::List(Vec::new()))
            {
                l.push(Value::Str(file.trim_start().to_string()));
            }
        }
        Ok(ret)
    }

    /// `git merge-base --is-ancestor A B`.
    pub fn is_ancestor(&self, cwd: &Path, a: &str, b: &str) -> Result<bool, GitError> {
        let args: Vec<String> = ["merge-base", "--is-ancestor", a, b]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let spec = self.spec(Some(cwd), &args, Vec::new());
        let r = exec::run(&spec).map_err(|e| GitError(e.to_string()))?;
        match r.retcode {
            0 => Ok(true),
            1 => Ok(false),
            _ => Err(GitError(format!(
                "Command 'git {}' failed: {}",
                args.join(" "),
                r.stderr
            ))),
        }
    }

    /// Whether `git diff HEAD` shows anything (uncommitted changes).
    pub fn has_local_changes(&self, cwd: &Path) -> bool {
        self.run(cwd, &["diff", "HEAD"])
            .is_ok_and(|d| !d.is_empty())
    }

    /// Whether HEAD points at a branch (`git symbolic-ref --quiet HEAD`).
    pub fn on_branch(&self, cwd: &Path) -> bool {
        self.run(cwd, &["symbolic-ref", "--quiet", "HEAD"])
            .is_ok_and(|s| !s.trim().is_empty())
    }
}

/// `git ls-remote` lines: sha1 TAB ref.
pub fn parse_refs(out: &str) -> Map {
    let mut m = Map::default();
    for line in out.lines() {
        if let Some((sha, name)) = line.split_once('\t') {
            m.insert(name.trim().to_string(), Value::Str(sha.trim().to_string()));
        }
    }
    m
}

/// Salt's reading of `git fetch` output: new branches/tags, updated
/// branches (old and new sha1) and updated tags.
fn parse_fetch(out: &str) -> Map {
    let re = regex::Regex::new(
        r"^[\s*]*(?:([0-9a-f]+)\.\.([0-9a-f]+)|\[(?:new (tag|branch)|tag update)\])\s+(.+)->",
    )
    .expect("a valid pattern");
    let mut ret = Map::default();
    let push = |ret: &mut Map, key: &str, v: Value| {
        if let Value::List(l) = ret
            .entry(key.to_string())
            .or_insert_with(|| Value::List(Vec::new()))
        {
            l.push(v);
        }
    };
    for line in out.lines() {
        let Some(c) = re.captures(line) else { continue };
        let name = c.get(4).map_or("", |m| m.as_str()).trim_end().to_string();
        if let Some(kind) = c.get(3) {
            let key = if kind.as_str() == "tag" {
                "new tags"
            } else {
                "new branches"
            };
            push(&mut ret, key, Value::Str(name));
        } else if let (Some(old), Some(new)) = (c.get(1), c.get(2)) {
            let mut change = Map::default();
            change.insert("old".into(), Value::Str(old.as_str().into()));
            change.insert("new".into(), Value::Str(new.as_str().into()));
            if let Value::Map(m) = ret
                .entry("updated branches".to_string())
                .or_insert_with(|| Value::Map(Map::default()))
            {
                m.insert(name, Value::Map(change));
            }
        } else {
            push(&mut ret, "updated tags", Value::Str(name));
        }
    }
    ret
}
