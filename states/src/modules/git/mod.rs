//! The `git` state module (Salt's `salt/states/git.py`), through the
//! host's `git` program as Salt runs it: `git.latest` keeps a checkout at
//! a remote's branch, tag or commit; `git.cloned` only makes sure a clone
//! exists. `cmd` is the git runner the `git.*` execution functions share.
//!
//! The git program rather than a Rust git library: Salt's answers are made
//! of git's own behaviour and messages (what `ls-remote`, `fetch` and
//! `checkout` say and refuse), its ssh transport with the user's ssh
//! configuration, credentials helpers and hooks; running the same program
//! gives the same answers where a reimplementation would differ.

mod cloned;
pub mod cmd;
mod common;
mod config;
mod latest;

use crate::{StateFunction, StateModule};
use brine_core::sig;
pub use common::with_http_auth;

/// The `git` state module.
pub static MODULE: StateModule = StateModule {
    name: "git",
    doc: "Git checkouts through the host's git: kept at a remote revision \
(git.latest) or only cloned (git.cloned).",
    functions: &[
        StateFunction::new(
            "cloned",
            sig!(
                name,
                target,
                branch = null,
                user = null,
                password = null,
                identity = null,
                https_user = null,
                https_pass = null,
                output_encoding = null
            ),
            "Make sure the repository NAME is cloned at TARGET (checked out to \
BRANCH when given); an existing clone is not updated.",
            cloned::cloned,
        ),
        StateFunction::new(
            "config_set",
            sig!(
                name,
                value = null,
                multivar = null,
                repo = null,
                user = null,
                password = null,
                output_encoding = null,
                **kwargs
            ),
            "Set the git configuration key NAME to VALUE, or to the values of \
MULTIVAR (a list, or a comma-separated string), in the repository REPO or, with \
global=True, in USER's global configuration.",
            config::config_set,
        ),
        StateFunction::new(
            "config_unset",
            sig!(
                name,
                value_regex = null,
                repo = null,
                user = null,
                password = null,
                output_encoding = null,
                **kwargs
            ),
            "Unset the git configuration keys the pattern NAME matches (only the \
values VALUE_REGEX matches); a key with several values only with all=True.",
            config::config_unset,
        ),
        StateFunction::new(
            "latest",
            latest::SIG,
            "Keep a checkout of the repository NAME at TARGET on REV (the remote \
HEAD by default; a branch, tag or commit): clone it, fetch and fast-forward it, or \
with FORCE_RESET hard-reset it (True, or 'remote-changes' to keep local changes \
unless the remote moved). BRANCH names the local branch, REMOTE the remote \
(origin), DEPTH a shallow clone, IDENTITY the ssh key(s), USER who runs git, \
FORCE_CLONE empties a non-git TARGET first, UPDATE_HEAD=False only fetches.",
            latest::latest,
        ),
    ],
};

#[cfg(test)]
mod tests {
    use super::MODULE;

    /// The git states against Salt 3007.8's recorded answers
    /// (`testdata/git.json`: repositories made at test time, file://
    /// remotes, fixed commit dates so the commit ids are Salt's).
    #[test]
    fn git_states_match_salt() {
        if brine_host::path::which("git").is_none() {
            eprintln!("skipped: no git on this host");
            return;
        }
        crate::replay::replay(include_str!("../testdata/git.json"), &MODULE, None);
    }
}
