//! Salt's `git` execution functions that the `git` states need, through
//! the host's `git` (the runner the states use:
//! `brine_states::modules::git::cmd`). Failures are Salt's
//! `CommandExecutionError`: "Command 'git ...' failed: <git's message>".

use super::function::{sig, CallError, Ctx, Function, Return};
use super::params::{opt_string, Params};
use brine_core::{Map, Value};
use brine_states::modules::git::cmd::{opts_of, Git, GitError};
use std::path::PathBuf;

pub(super) const FUNCTIONS: &[Function] = &[
    Function::acts(
        "checkout",
        sig!(
            cwd,
            rev = null,
            force = false,
            opts = "",
            git_opts = "",
            user = null,
            password = null,
            ignore_retcode = false,
            output_encoding = null
        ),
        "Check out REV in the checkout CWD (git checkout; FORCE discards local \
changes, OPTS such as '-b name' are passed on); answers git's output.\n\n    \
brine-call git.checkout /srv/app v1.2",
        checkout,
    ),
    Function::acts(
        "clone",
        sig!(
            cwd,
            url = null,
            name = null,
            opts = "",
            git_opts = "",
            user = null,
            password = null,
            identity = null,
            https_user = null,
            https_pass = null,
            ignore_retcode = false,
            saltenv = "base",
            output_encoding = null
        ),
        "Clone URL into CWD (or into CWD/NAME); OPTS go to git clone, IDENTITY \
names ssh keys to try. Answers True.\n\n    brine-call git.clone /srv/app \
https://example.com/app.git",
        clone,
    ),
    Function::acts(
        "current_branch",
        sig!(
            cwd,
            user = null,
            password = null,
            ignore_retcode = false,
            output_encoding = null
        ),
        "The branch checked out in CWD ('HEAD' when detached).\n\n    \
brine-call git.current_branch /srv/app",
        |_, mut p| {
            let (git, cwd) = repo(&mut p)?;
            p.finish()?;
            text(git.current_branch(&cwd))
        },
    ),
    Function::acts(
        "fetch",
        sig!(
            cwd,
            remote = null,
            force = false,
            refspecs = null,
            opts = "",
            git_opts = "",
            user = null,
            password = null,
            identity = null,
            ignore_retcode = false,
            saltenv = "base",
            output_encoding = null
        ),
        "Fetch REMOTE (the default one when unset) in CWD, with REFSPECS (a list or \
comma-separated) and OPTS; answers the refs it changed: new branches and tags, \
updated branches (old and new sha1) and updated tags.\n\n    \
brine-call git.fetch /srv/app origin",
        fetch,
    ),
    Function::acts(
        "remote_get",
        sig!(
            cwd,
            remote = "origin",
            user = null,
            password = null,
            redact_auth = true,
            ignore_retcode = false,
            output_encoding = null
        ),
        "The fetch and push URLs of REMOTE in CWD.\n\n    \
brine-call git.remote_get /srv/app",
        |_, mut p| {
            let (git, cwd) = repo(&mut p)?;
            let remote = opt_string(p.take("remote")).unwrap_or_else(|| "origin".into());
            for k in ["redact_auth", "ignore_retcode", "output_encoding"] {
                p.take(k);
            }
            p.finish()?;
            git.remote_get(&cwd, &remote)
                .map(Return::from)
                .map_err(failed)
        },
    ),
    Function::acts(
        "remote_set",
        sig!(
            cwd,
            url,
            remote = "origin",
            user = null,
            password = null,
            https_user = null,
            https_pass = null,
            push_url = null,
            push_https_user = null,
            push_https_pass = null,
            ignore_retcode = false,
            output_encoding = null
        ),
        "Set REMOTE in CWD to URL (re-adding it when present, PUSH_URL as its push \
URL); answers its URLs as git.remote_get.\n\n    brine-call git.remote_set /srv/app \
https://example.com/app.git",
        remote_set,
    ),
    Function::acts(
        "reset",
        sig!(
            cwd,
            opts = "",
            git_opts = "",
            user = null,
            password = null,
            identity = null,
            ignore_retcode = false,
            output_encoding = null
        ),
        "Reset the checkout CWD (git reset OPTS, e.g. '--hard origin/main'); \
answers git's output.\n\n    brine-call git.reset /srv/app opts='--hard origin/main'",
        |_, mut p| {
            let (git, cwd) = repo(&mut p)?;
            let opts = opts_of(p.take("opts").as_ref());
            for k in ["git_opts", "identity", "ignore_retcode", "output_encoding"] {
                p.take(k);
            }
            p.finish()?;
            text(git.reset(&cwd, &opts))
        },
    ),
    Function::acts(
        "rev_parse",
        sig!(
            cwd,
            rev = null,
            opts = "",
            git_opts = "",
            user = null,
            password = null,
            ignore_retcode = false,
            output_encoding = null
        ),
        "git rev-parse REV in CWD (with OPTS such as '--abbrev-ref').\n\n    \
brine-call git.rev_parse /srv/app HEAD",
        |_, mut p| {
            let (git, cwd) = repo(&mut p)?;
            let rev = opt_string(p.take("rev"));
            let opts = opts_of(p.take("opts").as_ref());
            for k in ["git_opts", "ignore_retcode", "output_encoding"] {
                p.take(k);
            }
            p.finish()?;
            let mut args = vec!["rev-parse".to_string()];
            args.extend(opts);
            args.extend(rev);
            text(
                git.run_full(Some(&cwd), &args, false, false)
                    .map(|r| r.stdout.trim_end().to_string()),
            )
        },
    ),
    Function::acts(
        "revision",
        sig!(
            cwd,
            rev = "HEAD",
            short = false,
            user = null,
            password = null,
            ignore_retcode = false,
            output_encoding = null
        ),
        "The commit id of REV (HEAD) in CWD; SHORT=True abbreviates it.\n\n    \
brine-call git.revision /srv/app",
        |_, mut p| {
            let (git, cwd) = repo(&mut p)?;
            let rev = opt_string(p.take("rev")).unwrap_or_else(|| "HEAD".into());
            let short = p.take("short").is_some_and(|v| v.is_truthy());
            for k in ["ignore_retcode", "output_encoding"] {
                p.take(k);
            }
            p.finish()?;
            let opts: &[&str] = if short { &["--short"] } else { &[] };
            text(git.rev_parse(&cwd, &rev, opts))
        },
    ),
    Function::acts(
        "status",
        sig!(
            cwd,
            user = null,
            password = null,
            ignore_retcode = false,
            output_encoding = null
        ),
        "The paths of CWD by state: modified, new, deleted, untracked.\n\n    \
brine-call git.status /srv/app",
        |_, mut p| {
            let (git, cwd) = repo(&mut p)?;
            p.finish()?;
            git.status(&cwd)
                .map(|m| Return::from(Value::Map(m)))
                .map_err(failed)
        },
    ),
];

fn failed(e: GitError) -> CallError {
    CallError::Failed(e.0)
}

fn text(r: Result<String, GitError>) -> Result<Return, CallError> {
    r.map(|s| Return::from(Value::Str(s))).map_err(failed)
}

/// The git runner for USER (and IDENTITY), and the checkout CWD; the
/// arguments every function has (`password` is Windows only).
fn repo(p: &mut Params) -> Result<(Git, PathBuf), CallError> {
    let cwd = PathBuf::from(p.require_str("cwd")?);
    let user = opt_string(p.take("user"));
    p.take("password");
    let identity = match p.take("identity") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::List(l)) => l.iter().map(Value::to_python_str).collect(),
        Some(v) => vec![v.to_python_str()],
    };
    p.take("ignore_retcode");
    p.take("output_encoding");
    Ok((Git { user, identity }, cwd))
}

fn checkout(_: &Ctx<'_>, mut p: Params) -> Result<Return, CallError> {
    let (git, cwd) = repo(&mut p)?;
    let rev = opt_string(p.take("rev"));
    let force = p.take("force").is_some_and(|v| v.is_truthy());
    let opts = opts_of(p.take("opts").as_ref());
    p.take("git_opts");
    p.finish()?;
    if rev.is_none() && opts.is_empty() {
        return Err(CallError::Invocation(
            "'rev' argument is required unless -b or -B in opts".into(),
        ));
    }
    text(git.checkout(&cwd, rev.as_deref(), force, &opts))
}

fn clone(_: &Ctx<'_>, mut p: Params) -> Result<Return, CallError> {
    let (git, cwd) = repo(&mut p)?;
    let url = opt_string(p.take("url"));
    let name = opt_string(p.take("name"));
    let opts = opts_of(p.take("opts").as_ref());
    let https_user = opt_string(p.take("https_user"));
    let https_pass = opt_string(p.take("https_pass"));
    for k in ["git_opts", "saltenv"] {
        p.take(k);
    }
    p.finish()?;
    let Some(url) = url else {
        return Err(CallError::Invocation("Missing 'url' argument".into()));
    };
    let url = brine_states::modules::git::with_http_auth(
        &url,
        https_user.as_deref(),
        https_pass.as_deref(),
    )
    .map_err(CallError::Invocation)?;
    git.clone(&cwd, &url, name.as_deref(), &opts)
        .map_err(failed)?;
    Ok(Return::from(Value::Bool(true)))
}

fn fetch(_: &Ctx<'_>, mut p: Params) -> Result<Return, CallError> {
    let (git, cwd) = repo(&mut p)?;
    let remote = opt_string(p.take("remote"));
    let force = p.take("force").is_some_and(|v| v.is_truthy());
    let refspecs: Vec<String> = match p.take("refspecs") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::List(l)) => l.iter().map(Value::to_python_str).collect(),
        Some(v) => v.to_python_str().split(',').map(str::to_string).collect(),
    };
    let opts = opts_of(p.take("opts").as_ref());
    for k in ["git_opts", "saltenv"] {
        p.take(k);
    }
    p.finish()?;
    git.fetch(&cwd, remote.as_deref(), force, &refspecs, &opts)
        .map(|m: Map| Return::from(Value::Map(m)))
        .map_err(failed)
}

fn remote_set(_: &Ctx<'_>, mut p: Params) -> Result<Return, CallError> {
    let (git, cwd) = repo(&mut p)?;
    let url = p.require_str("url")?;
    let remote = opt_string(p.take("remote")).unwrap_or_else(|| "origin".into());
    let https_user = opt_string(p.take("https_user"));
    let https_pass = opt_string(p.take("https_pass"));
    let push_url = opt_string(p.take("push_url"));
    let push_user = opt_string(p.take("push_https_user"));
    let push_pass = opt_string(p.take("push_https_pass"));
    p.finish()?;
    let url = brine_states::modules::git::with_http_auth(
        &url,
        https_user.as_deref(),
        https_pass.as_deref(),
    )
    .map_err(CallError::Invocation)?;
    git.remote_set(&cwd, &url, &remote).map_err(failed)?;
    if let Some(push) = push_url {
        let push = brine_states::modules::git::with_http_auth(
            &push,
            push_user.as_deref(),
            push_pass.as_deref(),
        )
        .map_err(CallError::Invocation)?;
        git.run(&cwd, &["remote", "set-url", "--push", &remote, &push])
            .map_err(failed)?;
    }
    git.remote_get(&cwd, &remote)
        .map(Return::from)
        .map_err(failed)
}
