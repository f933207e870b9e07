//! `git.latest`, Salt's decision tree over the host's git: what the
//! remote has (`ls-remote`), what the checkout has, then clone, fetch,
//! check out, fast-forward or hard-reset as the arguments allow, with
//! Salt's comments. `bare`/`mirror` clones and fetches are covered;
//! git LFS and worktrees are not looked at.

use super::cmd::{Git, GitError};
use super::common::{arg_str, format_comments, with_http_auth};
use crate::{StateCall, StateReturn};
use brine_core::signature::Signature;
use brine_core::{sig, Map, Value};
use std::path::Path;

/// `git.latest`'s parameters, as Salt declares them.
pub const SIG: Signature = sig!(
    name,
    target,
    rev = "HEAD",
    branch = null,
    user = null,
    password = null,
    update_head = true,
    force_checkout = false,
    force_clone = false,
    force_fetch = false,
    force_reset = false,
    submodules = false,
    bare = false,
    mirror = false,
    remote = "origin",
    fetch_tags = true,
    sync_tags = true,
    depth = null,
    identity = null,
    https_user = null,
    https_pass = null,
    refspec_branch = "*",
    refspec_tag = "*",
    output_encoding = null,
    **kwargs
);

/// What `rev` names on the remote.
#[derive(Clone, Copy, PartialEq)]
enum RevType {
    Sha1,
    Branch,
    Tag,
}

fn short(sha: Option<&str>) -> String {
    sha.map(|s| s.chars().take(7).collect())
        .unwrap_or_else(|| "None".into())
}

fn revs_equal(a: Option<&str>, b: Option<&str>, t: Option<RevType>) -> bool {
    match (a, b) {
        (None, None) => true,
        (Some(a), Some(b)) => {
            if t == Some(RevType::Sha1) {
                a.starts_with(b)
            } else {
                a == b
            }
        }
        _ => false,
    }
}

fn fail(mut r: StateReturn, msg: String, comments: &[String]) -> StateReturn {
    r.result = Some(false);
    r.comment = msg;
    if !comments.is_empty() {
        r.comment.push_str(&format!(
            "\n\nChanges already made: {}",
            format_comments(comments)
        ));
    }
    r
}

fn uptodate(
    mut r: StateReturn,
    target: &str,
    comments: &[String],
    local_changes: bool,
    test: bool,
) -> StateReturn {
    r.comment = format!("Repository {target} is up-to-date");
    if local_changes {
        r.comment.push_str(
            ", but with uncommitted changes. Set 'force_reset' to True to purge uncommitted changes.",
        );
    }
    if !comments.is_empty() {
        r.comment.push_str(&format!(
            "\n\nChanges {}made: {}",
            if test { "that would be " } else { "" },
            format_comments(comments)
        ));
    }
    r
}

fn neutral(mut r: StateReturn, comment: String) -> StateReturn {
    r.result = None;
    r.comment = comment;
    r
}

fn need_branch_change(branch: Option<&str>, local: Option<&str>) -> bool {
    branch.is_some() && branch != local
}

fn revision_change(old: Option<&str>, new: Option<&str>) -> Value {
    let mut m = Map::default();
    m.insert(
        "old".into(),
        old.map_or(Value::Null, |s| Value::Str(s.into())),
    );
    m.insert(
        "new".into(),
        new.map_or(Value::Null, |s| Value::Str(s.into())),
    );
    Value::Map(m)
}

/// The arguments of one call, read once.
struct Args {
    name: String,
    target: String,
    rev: String,
    branch: Option<String>,
    remote: String,
    update_head: bool,
    force_checkout: bool,
    force_clone: bool,
    force_fetch: bool,
    /// `true`, `false` or `remote-changes`.
    force_reset: Value,
    submodules: bool,
    bare: bool,
    mirror: bool,
    fetch_tags: bool,
    sync_tags: bool,
    depth: Option<String>,
    refspec_branch: String,
    refspec_tag: String,
}

fn truthy(call: &StateCall, k: &str, default: bool) -> bool {
    call.arg(k).map_or(default, Value::is_truthy)
}

pub fn latest(call: &StateCall) -> StateReturn {
    let r = StateReturn::new(call.name());
    let known: &[&str] = SIG.args;
    let extra: Vec<String> = call
        .low
        .iter()
        .filter(|(k, _)| {
            !known.contains(&k.as_str())
                && !k.starts_with("__")
                && !brine_compile::state::vocabulary::is_internal_keyword(k)
        })
        .map(|(k, v)| format!("{k}={}", v.to_python_str()))
        .collect();
    if !extra.is_empty() {
        return fail(
            r,
            format!(
                "The following keyword arguments are not valid: {}",
                extra.join(", ")
            ),
            &[],
        );
    }
    let remote = arg_str(call, "remote").unwrap_or_else(|| "origin".into());
    if remote.is_empty() {
        return fail(r, "'remote' argument is required".into(), &[]);
    }
    let Some(target) = arg_str(call, "target").filter(|t| !t.is_empty()) else {
        return fail(r, "'target' argument is required".into(), &[]);
    };
    let rev = arg_str(call, "rev").unwrap_or_else(|| "HEAD".into());
    if rev.is_empty() {
        return fail(
            r,
            "'' is not a valid value for the 'rev' argument".into(),
            &[],
        );
    }
    let force_reset = call
        .arg("force_reset")
        .cloned()
        .unwrap_or(Value::Bool(false));
    if !matches!(&force_reset, Value::Bool(_)) && force_reset.as_str() != Some("remote-changes") {
        return fail(
            r,
            "'force_reset' must be one of True, False, or 'remote-changes'".into(),
            &[],
        );
    }
    if !target.starts_with('/') {
        return fail(r, format!("target '{target}' is not an absolute path"), &[]);
    }
    let identity = match call.arg("identity") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Str(s)) => vec![s.clone()],
        Some(Value::List(l)) => l.iter().map(Value::to_python_str).collect(),
        Some(_) => return fail(r, "identity must be either a list or a string".into(), &[]),
    };
    let identity: Vec<String> = identity.iter().map(|i| expand_user(i)).collect();
    for i in &identity {
        if !i.starts_with('/') {
            return fail(r, format!("identity '{i}' is not an absolute path"), &[]);
        }
    }
    let a = Args {
        name: call.name().to_string(),
        target,
        rev,
        branch: arg_str(call, "branch"),
        remote,
        update_head: truthy(call, "update_head", true),
        force_checkout: truthy(call, "force_checkout", false),
        force_clone: truthy(call, "force_clone", false),
        force_fetch: truthy(call, "force_fetch", false),
        force_reset,
        submodules: truthy(call, "submodules", false),
        mirror: truthy(call, "mirror", false),
        bare: truthy(call, "bare", false) || truthy(call, "mirror", false),
        fetch_tags: truthy(call, "fetch_tags", true),
        sync_tags: truthy(call, "sync_tags", true),
        depth: call
            .arg("depth")
            .filter(|v| !v.is_null())
            .map(Value::to_python_str),
        refspec_branch: arg_str(call, "refspec_branch").unwrap_or_else(|| "*".into()),
        refspec_tag: arg_str(call, "refspec_tag").unwrap_or_else(|| "*".into()),
    };
    if Path::new(&a.target).is_file() {
        return fail(
            r,
            format!(
                "Target '{}' exists and is a regular file, cannot proceed",
                a.target
            ),
            &[],
        );
    }
    let fetch_url = match with_http_auth(
        &a.name,
        arg_str(call, "https_user").as_deref(),
        arg_str(call, "https_pass").as_deref(),
    ) {
        Ok(u) => u,
        Err(e) => return fail(r, e, &[]),
    };
    if a.rev != "HEAD" && a.bare {
        return fail(
            r,
            "'rev' is not compatible with the 'mirror' and 'bare' arguments".into(),
            &[],
        );
    }
    let git = Git {
        user: arg_str(call, "user"),
        identity,
    };
    Run {
        call,
        a,
        git,
        fetch_url,
    }
    .go(r)
}

fn expand_user(p: &str) -> String {
    match p.strip_prefix("~/") {
        Some(rest) => std::env::var("HOME")
            .map(|h| format!("{h}/{rest}"))
            .unwrap_or_else(|_| p.to_string()),
        None => p.to_string(),
    }
}

struct Run<'a, 'c> {
    call: &'a StateCall<'c>,
    a: Args,
    git: Git,
    fetch_url: String,
}

/// The upstream tracking branch wanted (Salt's `desired_upstream`: False,
/// None or a name).
#[derive(Clone, PartialEq)]
enum Upstream {
    /// False: a tag or sha1; no tracking branch.
    Unset,
    /// None: the remote HEAD, whatever tracks it.
    Follow,
    Branch(String),
}

impl Upstream {
    fn name(&self) -> Option<&str> {
        match self {
            Upstream::Branch(b) => Some(b),
            _ => None,
        }
    }
}

/// What the remote has for the call's `rev`.
struct Remote {
    all: Map,
    default_branch: Option<String>,
    rev: Option<String>,
    rev_type: Option<RevType>,
    desired_upstream: Upstream,
    loc: String,
}

impl Run<'_, '_> {
    fn test(&self) -> bool {
        self.call.test
    }

    fn refspecs(&self) -> Vec<String> {
        if !self.a.fetch_tags {
            return Vec::new();
        }
        vec![
            format!(
                "refs/heads/{0}:refs/remotes/{1}/{0}",
                self.a.refspec_branch, self.a.remote
            ),
            format!("+refs/tags/{0}:refs/tags/{0}", self.a.refspec_tag),
        ]
    }

    fn remote(&mut self) -> Result<Remote, String> {
        let all = self
            .git
            .remote_refs(&self.fetch_url)
            .map_err(|e| format!("Failed to check remote refs: {}", e.stripped()))?;
        let get = |k: &str| all.get(k).and_then(Value::as_str).map(str::to_string);
        let head = get("HEAD");
        let default_branch = head.as_ref().and_then(|h| {
            all.iter()
                .find(|(k, v)| k.starts_with("refs/heads/") && v.as_str() == Some(h))
                .map(|(k, _)| k.trim_start_matches("refs/heads/").to_string())
        });
        let a = &mut self.a;
        let (mut rev, mut rev_type, mut desired) = (None, None, Upstream::Unset);
        if a.bare {
        } else if a.rev == "HEAD" {
            if head.is_some() {
                rev = head.clone();
                rev_type = Some(RevType::Sha1);
                desired = Upstream::Follow;
            }
        } else if let Some(sha) = get(&format!("refs/heads/{}", a.rev)) {
            rev = Some(sha);
            rev_type = Some(RevType::Branch);
            desired = Upstream::Branch(format!("{}/{}", a.remote, a.rev));
        } else if let Some(sha) = get(&format!("refs/tags/{}^{{}}", a.rev)) {
            rev = Some(sha);
            rev_type = Some(RevType::Tag);
        } else if let Some(sha) = get(&format!("refs/tags/{}", a.rev)) {
            rev = Some(sha);
            rev_type = Some(RevType::Tag);
        } else if a.rev.len() <= 40 && a.rev.chars().all(|c| c.is_ascii_hexdigit()) {
            a.rev = a.rev.to_lowercase();
            rev = Some(a.rev.clone());
            rev_type = Some(RevType::Sha1);
        }
        let loc = match (&rev, rev_type) {
            (Some(r), Some(RevType::Sha1)) if a.rev == "HEAD" => {
                format!("remote HEAD ({})", short(Some(r)))
            }
            (Some(r), Some(RevType::Sha1)) => short(Some(r)),
            (Some(r), Some(t)) => format!(
                "{} ({})",
                match (&desired, t) {
                    (Upstream::Branch(u), RevType::Branch) => u.clone(),
                    _ => a.rev.clone(),
                },
                short(Some(r))
            ),
            _ => "None".into(),
        };
        Ok(Remote {
            all,
            default_branch,
            rev,
            rev_type,
            desired_upstream: desired,
            loc,
        })
    }

    fn go(mut self, r: StateReturn) -> StateReturn {
        let remote = match self.remote() {
            Ok(x) => x,
            Err(e) => return fail(r, e, &[]),
        };
        if self.a.depth.is_some()
            && !matches!(remote.rev_type, Some(RevType::Branch) | Some(RevType::Tag))
        {
            return fail(
                r,
                "When 'depth' is used, 'rev' must be set to the name of a branch or tag on \
                 the remote repository"
                    .into(),
                &[],
            );
        }
        if remote.rev.is_none() && !self.a.bare && self.a.rev != "HEAD" {
            return fail(
                r,
                format!(
                    "No revision matching '{}' exists in the remote repository",
                    self.a.rev
                ),
                &[],
            );
        }
        let target = Path::new(&self.a.target).to_path_buf();
        let check = if self.a.bare { "refs" } else { ".git" };
        if target.join(check).is_dir() {
            let mut comments = Vec::new();
            match self.existing(r.clone(), &remote, &target, &mut comments) {
                Ok(done) => done,
                Err(e) => fail(r, e.stripped(), &comments),
            }
        } else {
            self.clone_into(r, &remote, &target)
        }
    }
}

/// Python's `str.capitalize()`: the first letter up, the rest down.
fn capitalize(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f
            .to_uppercase()
            .chain(c.flat_map(char::to_lowercase))
            .collect(),
        None => String::new(),
    }
}

impl Run<'_, '_> {
    fn force_reset_false(&self) -> bool {
        self.a.force_reset == Value::Bool(false)
    }

    /// `git branch` options setting the tracking branch (Salt's
    /// `_get_branch_opts`); none when a new branch is checked out anyway.
    fn branch_opts(&self, local: &[String], desired: &str) -> Option<Vec<String>> {
        match &self.a.branch {
            Some(b) if !local.contains(b) => None,
            _ => Some(vec!["--set-upstream-to".into(), desired.into()]),
        }
    }

    /// What to do about the tracking branch, and the comment saying so.
    fn upstream_plan(
        &self,
        upstream: Option<&str>,
        desired: &Upstream,
        local: &[String],
    ) -> Option<(Vec<String>, String)> {
        match (upstream.filter(|u| !u.is_empty()), desired) {
            (None, Upstream::Branch(d)) => self
                .branch_opts(local, d)
                .map(|o| (o, format!("Tracking branch was set to {d}"))),
            (Some(_), Upstream::Unset) => Some((
                vec!["--unset-upstream".into()],
                "Tracking branch was unset".into(),
            )),
            (Some(u), Upstream::Branch(d)) if u != d => self
                .branch_opts(local, d)
                .map(|o| (o, format!("Tracking branch was updated to {d}"))),
            _ => None,
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn not_fast_forward(
        &self,
        r: StateReturn,
        pre: Option<&str>,
        post: Option<&str>,
        local_branch: Option<&str>,
        default_branch: Option<&str>,
        local_changes: bool,
        comments: &[String],
    ) -> StateReturn {
        let rev = &self.a.rev;
        let mut branch_msg = String::new();
        if self.a.branch.is_none() {
            if rev != "HEAD" {
                if local_branch != Some(rev.as_str()) {
                    branch_msg = format!(
                        " The desired rev ({rev}) differs from the name of the local branch \
                         ({}), if the desired rev is a branch name then a forced update could \
                         possibly be avoided by setting the 'branch' argument to '{rev}' instead.",
                        local_branch.unwrap_or("None")
                    );
                }
            } else if let Some(d) = default_branch.filter(|d| Some(*d) != local_branch) {
                branch_msg = format!(
                    " The default remote branch ({d}) differs from the local branch ({0}). This \
                     could be caused by changing the default remote branch, or if the local \
                     branch was manually changed. Rather than forcing an update, it may be \
                     advisable to set the 'branch' argument to '{d}' instead. To ensure that \
                     this state follows the '{d}' branch instead of the remote HEAD, set the \
                     'rev' argument to '{d}'.",
                    local_branch.unwrap_or("None")
                );
            }
        }
        let (pre, post) = (short(pre), short(post));
        let msg = format!(
            "Repository would be updated {}{}, but {}. Set 'force_reset' to True{} to force \
             this update{}.{}",
            if local_changes && pre != post {
                format!("from {pre} to {post}")
            } else {
                format!("to {post}")
            },
            match &self.a.branch {
                Some(b) if need_branch_change(Some(b), local_branch) => {
                    format!(" (after checking out local branch '{b}')")
                }
                _ => String::new(),
            },
            if local_changes {
                "there are uncommitted changes"
            } else {
                "this is not a fast-forward merge"
            },
            if local_changes {
                " (or 'remote-changes')"
            } else {
                ""
            },
            if local_changes {
                " and discard these changes"
            } else {
                ""
            },
            branch_msg
        );
        fail(r, msg, comments)
    }

    /// Salt's path for a target that already is a git checkout.
    fn existing(
        &self,
        mut r: StateReturn,
        remote: &Remote,
        target: &Path,
        comments: &mut Vec<String>,
    ) -> Result<StateReturn, GitError> {
        let git = &self.git;
        let a = &self.a;
        let test = self.test();
        let tgt = a.target.as_str();
        let all_local_branches = git.list_branches(target)?;
        let all_local_tags: std::collections::BTreeSet<String> =
            git.list_tags(target)?.into_iter().collect();
        let local_rev = git.revision(target).ok();
        let local_branch = git.current_branch(target).ok();
        let (lrev, lbranch) = (local_rev.as_deref(), local_branch.as_deref());
        let remote_rev = remote.rev.as_deref();
        if !a.bare && remote_rev.is_none() && local_rev.is_some() {
            return Ok(fail(
                r,
                "Remote repository is empty, cannot update from a non-empty to an empty \
                 repository"
                    .into(),
                &[],
            ));
        }
        let mut base_rev = local_rev.clone();
        let mut base_branch = local_branch.clone();
        let branch = a.branch.as_deref();
        if need_branch_change(branch, lbranch) {
            let b = branch.unwrap_or_default();
            if !all_local_branches.iter().any(|x| x == b) {
                base_rev = remote.rev.clone();
            } else {
                base_branch = Some(b.to_string());
                match git.rev_parse(target, &format!("{b}^{{commit}}"), &[]) {
                    Ok(s) => base_rev = Some(s),
                    Err(e) => {
                        return Ok(fail(
                            r,
                            format!(
                                "Unable to get position of local branch '{b}': {}",
                                e.stripped()
                            ),
                            comments,
                        ))
                    }
                }
            }
        }
        let remotes = git.remotes(target)?;
        let revs_match = revs_equal(lrev, remote_rev, remote.rev_type);
        let local_changes = !a.bare && git.has_local_changes(target);
        if local_changes && revs_match {
            if a.force_reset == Value::Bool(true) {
                if test {
                    let msg = format!(
                        "{tgt} is up-to-date, but with uncommitted changes. Since \
                         'force_reset' is set to True, these local changes would be reset. To \
                         only reset when there are changes in the remote repository, set \
                         'force_reset' to 'remote-changes'."
                    );
                    r.changes.insert("forced update".into(), Value::Bool(true));
                    return Ok(neutral(r, msg));
                }
            } else {
                return Ok(uptodate(r, tgt, comments, local_changes, test));
            }
        }
        let mut has_remote_rev = false;
        if remote.rev_type == Some(RevType::Sha1)
            && base_rev
                .as_deref()
                .zip(remote_rev)
                .is_some_and(|(b, rr)| b.starts_with(rr))
        {
            has_remote_rev = true;
        } else if let Some(rr) = remote_rev {
            if git
                .rev_parse(target, &format!("{rr}^{{commit}}"), &[])
                .is_ok()
            {
                match remote.rev_type {
                    Some(RevType::Branch) if remotes.contains_key(&a.remote) => {
                        if let Some(d) = remote.desired_upstream.name() {
                            if git.rev_parse(target, d, &[]).ok().as_deref() == Some(rr) {
                                has_remote_rev = true;
                            }
                        }
                    }
                    Some(RevType::Tag) if all_local_tags.contains(&a.rev) => {
                        let local_tag = git
                            .rev_parse(target, &format!("{}^{{commit}}", a.rev), &[])
                            .ok();
                        if local_tag.as_deref() == Some(rr) {
                            has_remote_rev = true;
                        } else if !a.force_reset.is_truthy() {
                            return Ok(fail(
                                r,
                                format!(
                                    "'{}' is a tag, but the remote SHA1 for this tag ({}) \
                                         doesn't match the local SHA1 ({}). Set 'force_reset' \
                                         to True to force this update.",
                                    a.rev,
                                    short(Some(rr)),
                                    short(local_tag.as_deref())
                                ),
                                &[],
                            ));
                        }
                    }
                    Some(RevType::Sha1) => has_remote_rev = true,
                    _ => {}
                }
            }
        }
        let mut fast_forward = if local_changes && a.force_reset.as_str() != Some("remote-changes")
        {
            Some(false)
        } else {
            None
        };
        let loc_for_head = || {
            if a.rev == "HEAD" {
                capitalize(&remote.loc)
            } else {
                remote.loc.clone()
            }
        };
        let same_branch = branch.is_none() || branch == lbranch;
        if has_remote_rev {
            if !revs_match && !a.update_head && same_branch {
                r.comment = format!(
                    "{} is already present and local HEAD ({}) does not match, but \
                     update_head=False. HEAD has not been updated locally.",
                    loc_for_head(),
                    short(lrev)
                );
                return Ok(r);
            }
            if fast_forward != Some(false) {
                fast_forward = Some(match (&base_rev, remote_rev) {
                    (None, _) => true,
                    (Some(b), Some(rr)) => git.is_ancestor(target, b, rr)?,
                    (Some(_), None) => true,
                });
            }
        }
        let merge_action = match fast_forward {
            Some(false) => {
                if self.force_reset_false() {
                    return Ok(self.not_fast_forward(
                        r,
                        base_rev.as_deref(),
                        remote_rev,
                        lbranch,
                        remote.default_branch.as_deref(),
                        local_changes,
                        comments,
                    ));
                }
                "hard-reset"
            }
            Some(true) => "fast-forwarded",
            None => "updated",
        };
        let upstream = match &base_branch {
            None => None,
            Some(b) => git
                .rev_parse(target, &format!("{b}@{{upstream}}"), &["--abbrev-ref"])
                .ok(),
        };
        let fetch_url = remotes
            .get(&a.remote)
            .and_then(|m| m.get("fetch"))
            .and_then(Value::as_str)
            .map(str::to_string);
        if remote_rev.is_some() && fetch_url.as_deref() != Some(self.fetch_url.as_str()) {
            let shown_old = fetch_url.clone().unwrap_or_else(|| "None".into());
            if test {
                let Some(old) = &fetch_url else {
                    // Salt redacts the missing URL and raises: a TypeError
                    // the state reports.
                    return Ok(fail(
                        r,
                        "expected string or bytes-like object, got 'NoneType'".into(),
                        comments,
                    ));
                };
                let mut actions = vec![format!(
                    "Remote '{}' would be changed from {old} to {}",
                    a.remote, a.name
                )];
                if !has_remote_rev {
                    actions.push("Remote would be fetched".into());
                }
                if !revs_match && a.update_head {
                    r.changes
                        .insert("revision".into(), revision_change(lrev, remote_rev));
                    if fast_forward == Some(false) {
                        r.changes.insert("forced update".into(), Value::Bool(true));
                    }
                    actions.push(format!(
                        "Repository would be {merge_action} to {}",
                        short(remote_rev)
                    ));
                }
                if !r.changes.is_empty() {
                    return Ok(neutral(r, format_comments(&actions)));
                }
                if !revs_match && !a.update_head {
                    r.comment = format_comments(&actions);
                    return Ok(r);
                }
                return Ok(uptodate(r, tgt, &actions, false, test));
            }
            git.remote_set(target, &self.fetch_url, &a.remote)?;
            if fetch_url.is_none() {
                comments.push(format!("Remote '{}' set to {}", a.remote, a.name));
                r.changes.insert(
                    "new".into(),
                    Value::Str(format!("{} => {}", a.name, a.remote)),
                );
            } else {
                comments.push(format!(
                    "Remote '{}' changed from {shown_old} to {}",
                    a.remote, a.name
                ));
            }
        }
        let desired = &remote.desired_upstream;
        if let Some(rr) = remote_rev {
            if test {
                let mut actions = Vec::new();
                if !has_remote_rev {
                    actions.push(format!("Remote '{}' would be fetched", a.remote));
                }
                if !revs_match && (a.update_head || need_branch_change(branch, lbranch)) {
                    r.changes
                        .insert("revision".into(), revision_change(lrev, remote_rev));
                }
                if need_branch_change(branch, lbranch) {
                    let b = branch.unwrap_or_default();
                    if !all_local_branches.iter().any(|x| x == b) {
                        actions.push(format!(
                            "New branch '{b}' would be checked out, with {} as a starting point",
                            remote.loc
                        ));
                        if let Some(d) = desired.name() {
                            actions.push(format!("Tracking branch would be set to {d}"));
                        }
                    } else {
                        actions.push(format!(
                            "Branch '{b}' would be checked out and {merge_action} to {}",
                            short(remote_rev)
                        ));
                    }
                } else if !revs_match {
                    if a.update_head {
                        if fast_forward == Some(true) {
                            actions.push(format!(
                                "Repository would be fast-forwarded from {} to {}",
                                short(lrev),
                                short(remote_rev)
                            ));
                        } else {
                            actions.push(format!(
                                "Repository would be {} from {} to {}",
                                if a.force_reset.is_truthy() && has_remote_rev {
                                    "hard-reset"
                                } else {
                                    "updated"
                                },
                                short(lrev),
                                short(remote_rev)
                            ));
                        }
                    } else {
                        actions.push(format!(
                            "Local HEAD ({}) does not match {} but update_head=False, HEAD \
                             would not be updated locally",
                            short(lrev),
                            remote.loc
                        ));
                    }
                }
                let up = upstream.as_deref().filter(|u| !u.is_empty());
                match (up, desired) {
                    (None, Upstream::Branch(d)) => {
                        actions.push(format!("Tracking branch would be set to {d}"))
                    }
                    (Some(_), Upstream::Unset) => {
                        actions.push("Tracking branch would be unset".into())
                    }
                    (Some(u), Upstream::Branch(d)) if u != d => {
                        actions.push(format!("Tracking branch would be updated to {d}"))
                    }
                    _ => {}
                }
                if !r.changes.is_empty() {
                    return Ok(neutral(r, format_comments(&actions)));
                }
                let formatted = format_comments(&actions);
                if !revs_match && !a.update_head && !formatted.is_empty() {
                    r.comment = formatted;
                    return Ok(r);
                }
                return Ok(uptodate(r, tgt, &actions, false, test));
            }
            let plan = self.upstream_plan(upstream.as_deref(), desired, &all_local_branches);
            if plan.is_some() && local_branch.is_none() {
                return Ok(fail(
                    r,
                    "Cannot set/unset upstream tracking branch, local HEAD refers to \
                     nonexistent branch. This may have been caused by cloning a remote \
                     repository for which the default branch was renamed or deleted. If you \
                     are unable to fix the remote repository, you can work around this by \
                     setting the 'branch' argument (which will ensure that the named branch \
                     is created if it does not already exist)."
                        .into(),
                    comments,
                ));
            }
            let remote_tags: std::collections::BTreeSet<String> =
                git.remote_tags(target, &a.remote).into_iter().collect();
            if all_local_tags != remote_tags {
                has_remote_rev = false;
                let new_tags: Vec<Value> = remote_tags
                    .difference(&all_local_tags)
                    .map(|t| Value::Str(t.clone()))
                    .collect();
                if !new_tags.is_empty() {
                    r.changes.insert("new_tags".into(), Value::List(new_tags));
                }
                let deleted: Vec<&String> = all_local_tags.difference(&remote_tags).collect();
                if a.sync_tags && !deleted.is_empty() {
                    let mut gone = Vec::new();
                    for t in deleted {
                        match git.run(target, &["tag", "-d", t]) {
                            Ok(_) => gone.push(t.clone()),
                            Err(e) => {
                                let w = r
                                    .extra
                                    .entry("warnings".to_string())
                                    .or_insert_with(|| Value::List(Vec::new()));
                                if let Value::List(l) = w {
                                    l.push(Value::Str(format!(
                                        "Failed to remove local tag '{t}':\n\n{e}\n\n"
                                    )));
                                }
                            }
                        }
                    }
                    if !gone.is_empty() {
                        comments.push(format!(
                            "The following tags were removed from the local checkout: {}",
                            gone.join(", ")
                        ));
                        r.changes.insert(
                            "deleted_tags".into(),
                            Value::List(gone.into_iter().map(Value::Str).collect()),
                        );
                    }
                }
            }
            if !has_remote_rev {
                match git.fetch(
                    target,
                    Some(&a.remote),
                    a.force_fetch,
                    &self.refspecs(),
                    &[],
                ) {
                    Err(e) => {
                        return Ok(fail(
                            r,
                            format!(
                                "Fetch failed. Set 'force_fetch' to True to force the fetch if \
                                 the failure was due to not being able to fast-forward. Output \
                                 of the fetch command follows:\n\n{}",
                                e.stripped()
                            ),
                            comments,
                        ))
                    }
                    Ok(changes) => {
                        if !changes.is_empty() {
                            comments
                                .push(format!("{} was fetched, resulting in updated refs", a.name));
                        }
                    }
                }
                if let Err(e) = git.rev_parse(target, &format!("{rr}^{{commit}}"), &[]) {
                    return Ok(fail(
                        r,
                        format!(
                            "Fetch did not successfully retrieve rev '{}' from {}: {e}",
                            a.rev, a.name
                        ),
                        &[],
                    ));
                }
                if !revs_match && !a.update_head && same_branch {
                    r.comment = format!(
                        "{} is already present and local HEAD ({}) does not match, but \
                         update_head=False. HEAD has not been updated locally.",
                        loc_for_head(),
                        short(lrev)
                    );
                    return Ok(r);
                }
                fast_forward = Some(match &base_rev {
                    None => true,
                    Some(b) => git.is_ancestor(target, b, rr)?,
                });
                let reset_false = self.force_reset_false();
                if (fast_forward == Some(false) && reset_false)
                    || (fast_forward == Some(true) && local_changes && reset_false)
                {
                    return Ok(self.not_fast_forward(
                        r,
                        base_rev.as_deref(),
                        remote_rev,
                        lbranch,
                        remote.default_branch.as_deref(),
                        local_changes,
                        comments,
                    ));
                }
            }
            if need_branch_change(branch, lbranch) {
                let b = branch.unwrap_or_default();
                if local_changes && !a.force_checkout {
                    return Ok(fail(
                        r,
                        format!(
                            "Local branch '{}' has uncommitted changes. Set 'force_checkout' \
                             to True to discard them and proceed.",
                            lbranch.unwrap_or("None")
                        ),
                        &[],
                    ));
                }
                let (checkout_rev, opts) = if !all_local_branches.iter().any(|x| x == b) {
                    let rev = if a.rev == "HEAD" {
                        rr.to_string()
                    } else {
                        desired.name().unwrap_or(&a.rev).to_string()
                    };
                    (rev, vec!["-b".to_string(), b.to_string()])
                } else {
                    (b.to_string(), Vec::new())
                };
                git.checkout(target, Some(&checkout_rev), a.force_checkout, &opts)?;
                if opts.is_empty() {
                    comments.push(format!("'{checkout_rev}' was checked out"));
                } else {
                    comments.push(format!(
                        "New branch '{b}' was checked out, with {} as a starting point",
                        remote.loc
                    ));
                }
            }
            if fast_forward == Some(false) {
                git.reset(target, &["--hard".into(), rr.into()])?;
                r.changes.insert("forced update".into(), Value::Bool(true));
                if local_changes {
                    comments.push("Uncommitted changes were discarded".into());
                }
                comments.push(format!("Repository was hard-reset to {}", remote.loc));
            } else if fast_forward == Some(true) && local_changes && !self.force_reset_false() {
                git.run(target, &["checkout", "--", "."])?;
                comments.push("Uncommitted changes were discarded".into());
            }
            if let Some((opts, action)) = plan {
                let mut args = vec!["branch".to_string()];
                args.extend(opts);
                git.run_full(Some(target), &args, false, false)?;
                comments.push(action);
            }
            if fast_forward == Some(true)
                && !revs_equal(base_rev.as_deref(), remote_rev, remote.rev_type)
            {
                if desired.name().is_some() || a.rev == "HEAD" {
                    if !git.on_branch(target) {
                        return Ok(fail(
                            r,
                            "Unable to fast-forward, HEAD is detached".into(),
                            comments,
                        ));
                    }
                    git.run(target, &["merge", "--ff-only", rr])?;
                    comments.push(format!("Repository was fast-forwarded to {}", remote.loc));
                } else {
                    let to = if a.rev == "HEAD" { rr } else { a.rev.as_str() };
                    git.reset(target, &["--hard".into(), to.into()])?;
                    comments.push(format!("Repository was reset to {} (fast-forward)", a.rev));
                }
            }
            if a.submodules {
                if let Err(e) = git.run(target, &["submodule", "update", "--init", "--recursive"]) {
                    return Ok(fail(
                        r,
                        format!("Failed to update submodules: {}", e.stripped()),
                        comments,
                    ));
                }
            }
        } else if a.bare {
            if test {
                let msg = format!("Bare repository at {tgt} would be fetched");
                if !r.changes.is_empty() {
                    return Ok(neutral(r, msg));
                }
                // Salt hands the sentence where a list is expected: its
                // letters are the "comments".
                let letters: Vec<String> = msg.chars().map(String::from).collect();
                return Ok(uptodate(r, tgt, &letters, false, test));
            }
            match git.fetch(
                target,
                Some(&a.remote),
                a.force_fetch,
                &self.refspecs(),
                &[],
            ) {
                Err(e) => {
                    return Ok(fail(
                        r,
                        format!(
                            "Fetch failed. Set 'force_fetch' to True to force the fetch if the \
                             failure was due to not being able to fast-forward. Output of the \
                             fetch command follows:\n\n{}",
                            e.stripped()
                        ),
                        comments,
                    ))
                }
                Ok(changes) => comments.push(format!(
                    "Bare repository at {tgt} was fetched{}",
                    if changes.is_empty() {
                        ""
                    } else {
                        ", resulting in updated refs"
                    }
                )),
            }
        }
        let new_rev = git.revision(target).ok();
        if !a.bare && !revs_equal(new_rev.as_deref(), remote_rev, remote.rev_type) {
            return Ok(fail(r, "Failed to update repository".into(), comments));
        }
        if local_rev != new_rev {
            r.comment = format_comments(comments);
            r.changes
                .insert("revision".into(), revision_change(lrev, new_rev.as_deref()));
            Ok(r)
        } else {
            Ok(uptodate(r, tgt, comments, false, test))
        }
    }

    /// Salt's path for a target that is not a git checkout: clone.
    fn clone_into(&self, mut r: StateReturn, remote: &Remote, target: &Path) -> StateReturn {
        let a = &self.a;
        let git = &self.git;
        let tgt = a.target.as_str();
        let mut comments: Vec<String> = Vec::new();
        if target.is_dir() {
            let contents: Vec<std::path::PathBuf> = std::fs::read_dir(target)
                .map(|d| d.flatten().map(|e| e.path()).collect())
                .unwrap_or_default();
            if a.force_clone {
                if self.test() {
                    r.changes.insert("forced clone".into(), Value::Bool(true));
                    r.changes
                        .insert("new".into(), Value::Str(format!("{} => {tgt}", a.name)));
                    return neutral(
                        r,
                        format!(
                            "Target directory {tgt} exists. Since force_clone=True, the \
                             contents of {tgt} would be deleted, and {} would be cloned into \
                             this directory.",
                            a.name
                        ),
                    );
                }
                let mut errors = Vec::new();
                for p in contents {
                    let gone = if p.is_dir() && !p.is_symlink() {
                        std::fs::remove_dir_all(&p)
                    } else {
                        std::fs::remove_file(&p)
                    };
                    if let Err(e) = gone {
                        if e.kind() != std::io::ErrorKind::NotFound {
                            errors.push(format!("  {}\n    {e}", p.display()));
                        }
                    }
                }
                if !errors.is_empty() {
                    return fail(
                        r,
                        format!("Unable to remove\n{}", errors.join("\n")),
                        &comments,
                    );
                }
                r.changes.insert("forced clone".into(), Value::Bool(true));
            } else if !contents.is_empty() {
                return fail(
                    r,
                    format!(
                        "Target '{tgt}' exists, is non-empty and is not a git repository. Set \
                         the 'force_clone' option to True to remove this directory's contents \
                         and proceed with cloning the remote repository"
                    ),
                    &[],
                );
            }
        }
        if self.test() {
            r.changes
                .insert("new".into(), Value::Str(format!("{} => {tgt}", a.name)));
            return neutral(r, format!("Repository {} would be cloned to {tgt}", a.name));
        }
        let mut opts: Vec<String> = if a.mirror {
            vec!["--mirror".into()]
        } else if a.bare {
            vec!["--bare".into()]
        } else {
            Vec::new()
        };
        if a.remote != "origin" {
            opts.extend(["--origin".into(), a.remote.clone()]);
        }
        if let Some(d) = &a.depth {
            opts.extend([
                "--depth".into(),
                d.clone(),
                "--branch".into(),
                a.rev.clone(),
            ]);
        }
        if let Err(e) = git.clone(target, &self.fetch_url, None, &opts) {
            return fail(r, format!("Clone failed: {}", e.stripped()), &comments);
        }
        r.changes
            .insert("new".into(), Value::Str(format!("{} => {tgt}", a.name)));
        comments.push(format!(
            "{} cloned to {tgt}{}",
            a.name,
            if a.mirror {
                " as mirror"
            } else if a.bare {
                " as bare repository"
            } else {
                ""
            }
        ));
        match self.after_clone(&mut r, remote, target, &mut comments) {
            Ok(Some(failed)) => return failed,
            Ok(None) => {}
            Err(e) => return fail(r, e.stripped(), &comments),
        }
        let new_rev = git.revision(target).ok();
        r.comment = format_comments(&comments);
        if let Some(n) = new_rev {
            r.changes
                .insert("revision".into(), revision_change(None, Some(&n)));
        }
        r
    }

    /// After a clone: the branch, the revision and its tracking branch.
    fn after_clone(
        &self,
        r: &mut StateReturn,
        remote: &Remote,
        target: &Path,
        comments: &mut Vec<String>,
    ) -> Result<Option<StateReturn>, GitError> {
        let a = &self.a;
        let git = &self.git;
        if !a.bare {
            let Some(rr) = remote.rev.as_deref() else {
                if a.rev != "HEAD" {
                    return Ok(Some(fail(
                        r.clone(),
                        format!(
                            "Repository was cloned but is empty, so {}/{} cannot be checked out",
                            a.remote, a.rev
                        ),
                        comments,
                    )));
                }
                return Ok(None);
            };
            if remote.rev_type == Some(RevType::Tag) && !git.list_tags(target)?.contains(&a.rev) {
                return Ok(Some(fail(
                    r.clone(),
                    format!("Revision '{}' does not exist in clone", a.rev),
                    comments,
                )));
            }
            if let Some(b) = &a.branch {
                if !git.list_branches(target)?.contains(b) {
                    let rev = if a.rev == "HEAD" {
                        rr.to_string()
                    } else {
                        remote.desired_upstream.name().unwrap_or(&a.rev).to_string()
                    };
                    git.checkout(target, Some(&rev), false, &["-b".into(), b.clone()])?;
                    comments.push(format!(
                        "Branch '{b}' checked out, with {} as a starting point",
                        remote.loc
                    ));
                }
            }
            let local_rev = git.revision(target).ok();
            let local_branch = git.current_branch(target).ok();
            if local_branch.is_none() && !remote.all.contains_key("HEAD") {
                return Ok(Some(fail(
                    r.clone(),
                    "Remote HEAD refers to a ref that does not exist. This can happen when the \
                     default branch on the remote repository is renamed or deleted. If you are \
                     unable to fix the remote repository, you can work around this by setting \
                     the 'branch' argument (which will ensure that the named branch is created \
                     if it does not already exist)."
                        .into(),
                    comments,
                )));
            }
            if !revs_equal(local_rev.as_deref(), Some(rr), remote.rev_type) {
                git.reset(target, &["--hard".into(), rr.into()])?;
                comments.push(format!("Repository was reset to {}", remote.loc));
            }
            let upstream = local_branch.as_deref().and_then(|b| {
                git.rev_parse(target, &format!("{b}@{{upstream}}"), &["--abbrev-ref"])
                    .ok()
            });
            let branches = git.list_branches(target)?;
            if let Some((opts, action)) =
                self.upstream_plan(upstream.as_deref(), &remote.desired_upstream, &branches)
            {
                let mut args = vec!["branch".to_string()];
                args.extend(opts);
                git.run_full(Some(target), &args, false, false)?;
                comments.push(action);
            }
        }
        if a.submodules && remote.rev.is_some() {
            if let Err(e) = git.run(target, &["submodule", "update", "--init", "--recursive"]) {
                return Ok(Some(fail(
                    r.clone(),
                    format!("Failed to update submodules: {}", e.stripped()),
                    comments,
                )));
            }
        }
        Ok(None)
    }
}
