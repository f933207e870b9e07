//! Salt's `file` state module: `managed`, `directory`, `recurse`,
//! `serialize`, `absent`, `exists`, `missing`, `symlink`, `hardlink`,
//! `copy`, `rename`, `append`, `prepend`, `touch`, `replace`, `comment`,
//! `uncomment`, `keyvalue`, `blockreplace`, `accumulated`, `tidied`,
//! `cached`, with the return
//! dicts (changes, comments, test-mode results) of Salt 3007.8's
//! `salt/states/file.py` and the helpers of `salt/modules/file.py` it calls.
//!
//! - [`managed`]: file contents from `contents`/`contents_pillar`/
//!   `contents_grains`/`source` (+ `template`), diffs, owner and mode.
//! - [`directory`]: directories, `makedirs`, `recurse`, `clean`.
//! - [`misc`]: `absent`, `exists`, `missing`, `symlink`, `touch`, `append`.
//! - [`replace`]: `file.replace` with Python regular expressions.
//! - [`recurse`]: `file.recurse` (a `salt://` folder, file by file).
//! - [`serialize`] with [`serializers`]: `file.serialize` and Salt's json,
//!   yaml, toml, plist, configparser and msgpack serializers; [`readers`]
//!   reads toml and plist back.
//! - [`copy`]: `copy`, `rename`, `hardlink`; [`tidied`]: `tidied`, `cached`.
//! - [`lines`]: `comment`, `uncomment`, `prepend`, `keyvalue`,
//!   `blockreplace`, over the line edits of [`edit`] and the source texts
//!   of [`texts`]; [`accumulated`]: `accumulated`.
//! - [`pattern`]: Salt's include/exclude patterns.
//! - [`difflib`], [`fsutil`], [`perms`]: Python's unified diff, file system
//!   helpers, Salt's `check_perms`.
//! - [`source_hash`]: a source's expected hash (`get_source_sum`).
//! - [`remote`]: http(s) sources fetched into the minion's cache.

mod accumulated;
mod args;
mod copy;
pub mod difflib;
mod directory;
pub mod edit;
pub mod fsutil;
mod lines;
pub mod managed;
pub mod misc;
pub mod pattern;
mod perms;
mod readers;
mod recurse;
pub mod remote;
pub mod replace;
mod serialize;
pub mod serializers;
pub mod source_hash;
mod template;
mod texts;
mod tidied;

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
            "accumulated",
            sig!(name, filename, text, **kwargs),
            "Gather TEXT under the accumulator NAME for the file FILENAME: the \
file.managed (template variable `accumulator`) and file.blockreplace states it \
is declared for (require_in / watch_in) receive it.",
            |call| with_args(call, accumulated::accumulated),
        ),
        StateFunction::new(
            "blockreplace",
            sig!(
                name,
                marker_start = "#-- start managed zone --",
                marker_end = "#-- end managed zone --",
                source = null,
                source_hash = null,
                template = "jinja",
                sources = null,
                source_hashes = null,
                defaults = null,
                context = null,
                content = "",
                append_if_not_found = false,
                prepend_if_not_found = false,
                backup = ".bak",
                show_changes = true,
                append_newline = null,
                insert_before_match = null,
                insert_after_match = null
            ),
            "The lines between MARKER_START and MARKER_END in the file NAME are \
CONTENT (plus SOURCE texts and accumulated text); the block is added where asked \
when the markers are missing.",
            |call| with_args(call, lines::blockreplace),
        ),
        StateFunction::new(
            "cached",
            sig!(
                name,
                source_hash = "",
                source_hash_name = null,
                skip_verify = false,
                saltenv = "base",
                use_etag = false,
                source_hash_sig = null,
                signed_by_any = null,
                signed_by_all = null,
                keyring = null,
                gnupghome = null
            ),
            "The source NAME (salt://, or a local path) is in the minion's file \
cache, with SOURCE_HASH when given.",
            |call| with_args(call, tidied::cached),
        ),
        StateFunction::new(
            "comment",
            sig!(
                name,
                regex,
                char = "#",
                backup = ".bak",
                ignore_missing = false
            ),
            "Comment out the lines of NAME that REGEX matches, with CHAR.",
            |call| with_args(call, lines::comment),
        ),
        StateFunction::new(
            "copy",
            sig!(
                name,
                source,
                force = false,
                makedirs = false,
                preserve = false,
                user = null,
                group = null,
                mode = null,
                dir_mode = null,
                subdir = false,
                **kwargs
            ),
            "NAME is a copy of the local file or folder SOURCE (made once; \
again with force), with USER, GROUP and MODE or SOURCE's own (preserve).",
            |call| with_args(call, copy::copy),
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
            "hardlink",
            sig!(
                name,
                target,
                force = false,
                makedirs = false,
                user = null,
                group = null,
                dir_mode = null,
                **kwargs
            ),
            "NAME is a hard link to the file TARGET (force replaces a file in \
the way).",
            |call| with_args(call, copy::hardlink),
        ),
        StateFunction::new(
            "keyvalue",
            sig!(
                name,
                key = null,
                value = null,
                key_values = null,
                separator = "=",
                append_if_not_found = false,
                prepend_if_not_found = false,
                search_only = false,
                show_changes = true,
                ignore_if_missing = false,
                count = 1,
                uncomment = null,
                key_ignore_case = false,
                value_ignore_case = false,
                create_if_missing = false
            ),
            "In the file NAME, the lines `KEY<separator>VALUE` (or each of \
KEY_VALUES) carry that value, optionally added when missing.",
            |call| with_args(call, lines::keyvalue),
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
            "prepend",
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
                header = null
            ),
            "Put the lines TEXT (or from SOURCE) at the start of the file NAME \
where they are not already in it (header: compare the first lines only).",
            |call| with_args(call, lines::prepend),
        ),
        StateFunction::new(
            "recurse",
            sig!(
                name,
                source,
                keep_source = true,
                clean = false,
                require = null,
                user = null,
                group = null,
                dir_mode = null,
                file_mode = null,
                sym_mode = null,
                template = null,
                context = null,
                replace = true,
                defaults = null,
                include_empty = false,
                backup = "",
                include_pat = null,
                exclude_pat = null,
                maxdepth = null,
                keep_symlinks = false,
                force_symlinks = false,
                win_owner = null,
                win_perms = null,
                win_deny_perms = null,
                win_inheritance = true,
                **kwargs
            ),
            "The folder NAME holds the files of the salt:// folder SOURCE \
(include_pat, exclude_pat, maxdepth, include_empty), each managed as file.managed \
does (template, USER, GROUP, FILE_MODE, DIR_MODE); clean removes the rest.",
            |call| with_args(call, recurse::recurse),
        ),
        StateFunction::new(
            "rename",
            sig!(name, source, force = false, makedirs = false, **kwargs),
            "Move SOURCE to NAME unless it has been moved already.",
            |call| with_args(call, copy::rename),
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
            "serialize",
            sig!(
                name,
                dataset = null,
                dataset_pillar = null,
                user = null,
                group = null,
                mode = null,
                backup = "",
                makedirs = false,
                show_changes = true,
                create = true,
                merge_if_exists = false,
                encoding = null,
                encoding_errors = "strict",
                serializer = null,
                serializer_opts = null,
                deserializer_opts = null,
                check_cmd = null,
                tmp_dir = "",
                tmp_ext = "",
                **kwargs
            ),
            "The file NAME holds DATASET (or the pillar value DATASET_PILLAR) \
written by a serializer (json, yaml, toml, plist, configparser, msgpack), merged \
into what is there with merge_if_exists.",
            |call| with_args(call, serialize::serialize),
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
            "tidied",
            sig!(
                name,
                age = 0,
                matches = null,
                rmdirs = false,
                size = 0,
                exclude = null,
                full_path_match = false,
                followlinks = false,
                time_comparison = "atime",
                age_size_logical_operator = "OR",
                age_size_only = null,
                rmlinks = true,
                **kwargs
            ),
            "Remove what lies below the folder NAME that is old enough (AGE \
days) or big enough (SIZE) and matches MATCHES.",
            |call| with_args(call, tidied::tidied),
        ),
        StateFunction::new(
            "touch",
            sig!(name, atime = null, mtime = null, makedirs = false),
            "Create NAME empty if it is missing, else update its times.",
            |call| with_args(call, misc::touch),
        ),
        StateFunction::new(
            "uncomment",
            sig!(name, regex, char = "#", backup = ".bak"),
            "Uncomment the lines of NAME that REGEX matches after CHAR.",
            |call| with_args(call, lines::uncomment),
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
