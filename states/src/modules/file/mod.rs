//! Salt's `file` state module: `managed`, `directory`, `absent`, `exists`,
//! `missing`, `symlink`, `append`, `touch`, `replace`, with the return
//! dicts (changes, comments, test-mode results) of Salt 3007.8's
//! `salt/states/file.py` and the helpers of `salt/modules/file.py` it calls.
//!
//! - [`managed`]: file contents from `contents`/`contents_pillar`/
//!   `contents_grains`/`source` (+ `template`), diffs, owner and mode.
//! - [`directory`]: directories, `makedirs`, `recurse`, `clean`.
//! - [`misc`]: `absent`, `exists`, `missing`, `symlink`, `touch`, `append`.
//! - [`replace`]: `file.replace` with Python regular expressions.
//! - [`difflib`], [`fsutil`], [`perms`]: Python's unified diff, file system
//!   helpers, Salt's `check_perms`.
//! - [`source_hash`]: a source's expected hash (`get_source_sum`).
//! - [`remote`]: http(s) sources fetched into the minion's cache.

mod args;
pub mod difflib;
mod directory;
pub mod fsutil;
pub mod managed;
pub mod misc;
mod perms;
pub mod remote;
pub mod replace;
pub mod source_hash;
mod template;

#[cfg(test)]
pub mod tests;

pub use args::{bad_arg, failed, Args};
pub use template::{merge_context, render_template, TemplateError};

use crate::{StateCall, StateFunction, StateModule, StateReturn};
use brine_core::sig;

/// The `file` state module.
pub static MODULE: StateModule = StateModule {
    name: "file",
    doc: "Manage files and folders: their content (from a source, a template or \
text), owner, group and mode; links; lines replaced or appended.",
    functions: &[
        StateFunction::new(
            "absent",
            sig!(name, **kwargs),
            "Remove the file or folder NAME if it exists.",
            |call| with_args(call, |call, _, name| misc::absent(call, name)),
        ),
        StateFunction::new(
            "append",
            sig!(
                name,
                text = null,
                makedirs = false,
                source = null,
                source_hash = null,
                template = "jinja",
                sources = null,
                source_hashes = null,
                defaults = null,
                context = null,
                ignore_whitespace = true
            ),
            "Add the lines TEXT (or from SOURCE) to the file NAME where they are \
not already in it.",
            |call| with_args(call, misc::append),
        ),
        StateFunction::new(
            "directory",
            sig!(
                name,
                user = null,
                group = null,
                recurse = null,
                max_depth = null,
                dir_mode = null,
                file_mode = null,
                makedirs = false,
                clean = false,
                require = null,
                exclude_pat = null,
                follow_symlinks = false,
                force = false,
                backupname = null,
                allow_symlink = true,
                children_only = false,
                win_owner = null,
                win_perms = null,
                win_deny_perms = null,
                win_inheritance = true,
                win_perms_reset = false,
                **kwargs
            ),
            "The folder NAME exists, with USER, GROUP, DIR_MODE/FILE_MODE, \
optionally made with its parents (makedirs) and applied recursively (recurse).",
            |call| with_args(call, directory::directory),
        ),
        StateFunction::new(
            "exists",
            sig!(name, **kwargs),
            "Fail unless NAME exists; change nothing.",
            |call| with_args(call, |_, _, name| misc::exists(name)),
        ),
        StateFunction::new(
            "managed",
            sig!(
                name,
                source = null,
                source_hash = "",
                source_hash_name = null,
                keep_source = true,
                user = null,
                group = null,
                mode = null,
                attrs = null,
                template = null,
                makedirs = false,
                dir_mode = null,
                context = null,
                replace = true,
                defaults = null,
                backup = "",
                show_changes = true,
                create = true,
                contents = null,
                tmp_dir = "",
                tmp_ext = "",
                contents_pillar = null,
                contents_grains = null,
                contents_newline = true,
                contents_delimiter = ":",
                encoding = null,
                encoding_errors = "strict",
                allow_empty = true,
                follow_symlinks = true,
                check_cmd = null,
                skip_verify = false,
                selinux = null,
                win_owner = null,
                win_perms = null,
                win_deny_perms = null,
                win_inheritance = true,
                win_perms_reset = false,
                verify_ssl = true,
                use_etag = false,
                signature = null,
                source_hash_sig = null,
                signed_by_any = null,
                signed_by_all = null,
                keyring = null,
                gnupghome = null,
                **kwargs
            ),
            "The file NAME holds SOURCE (salt://, a path, rendered with \
TEMPLATE), CONTENTS or nothing, with USER, GROUP and MODE; the diff is the change.",
            |call| with_args(call, managed::managed),
        ),
        StateFunction::new(
            "missing",
            sig!(name, **kwargs),
            "Fail if NAME exists; change nothing.",
            |call| with_args(call, |_, _, name| misc::missing(name)),
        ),
        StateFunction::new(
            "replace",
            sig!(
                name,
                pattern,
                repl,
                count = 0,
                flags = 8,
                bufsize = 1,
                append_if_not_found = false,
                prepend_if_not_found = false,
                not_found_content = null,
                backup = ".bak",
                show_changes = true,
                ignore_if_missing = false,
                backslash_literal = false
            ),
            "Replace what the regular expression PATTERN matches in the file \
NAME with REPL (count, flags, append_if_not_found, prepend_if_not_found).",
            |call| with_args(call, replace::replace),
        ),
        StateFunction::new(
            "symlink",
            sig!(
                name,
                target,
                force = false,
                backupname = null,
                makedirs = false,
                user = null,
                group = null,
                mode = null,
                win_owner = null,
                win_perms = null,
                win_deny_perms = null,
                win_inheritance = null,
                atomic = false,
                disallow_copy_and_unlink = false,
                inherit_user_and_group = false,
                follow_symlinks = true,
                **kwargs
            ),
            "NAME is a symbolic link to TARGET (force, makedirs, user, \
group).",
            |call| with_args(call, misc::symlink),
        ),
        StateFunction::new(
            "touch",
            sig!(name, atime = null, mtime = null, makedirs = false),
            "Create NAME empty if it is missing, else update its times.",
            |call| with_args(call, misc::touch),
        ),
    ],
};

/// Run a file state function with its typed arguments and name; an `Err`
/// is a failed state with that comment.
fn with_args(
    call: &StateCall,
    f: fn(&StateCall, &Args, &str) -> Result<StateReturn, String>,
) -> StateReturn {
    let args = Args { low: call.low };
    let name = args.name();
    f(call, &args, &name).unwrap_or_else(|comment| failed(&name, comment))
}
