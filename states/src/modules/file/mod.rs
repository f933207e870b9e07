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

pub mod difflib;
mod directory;
pub mod fsutil;
pub mod managed;
pub mod misc;
mod perms;
pub mod replace;
pub mod source_hash;

#[cfg(test)]
pub mod tests;

use crate::{StateCall, StateContext, StateFunction, StateModule, StateReturn};
use brine_compile::render::jinja::{self, TemplateContext};
use brine_compile::MinionData;
use brine_core::sig;
use brine_core::{Map, Value};
use std::path::PathBuf;
use std::sync::Arc;

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

/// A failed state (`_error` in Salt): no changes, `result: False`.
pub fn failed(name: &str, comment: impl Into<String>) -> StateReturn {
    let mut ret = StateReturn::new(name);
    ret.result = Some(false);
    ret.comment = comment.into();
    ret
}

/// Typed access to a state's arguments; a wrong type is an `Err` naming the
/// argument (which the caller turns into a failed state).
pub struct Args<'a> {
    pub low: &'a Map,
}

impl Args<'_> {
    /// The state's `name`, Python's `str()` of it when it is not a string.
    pub fn name(&self) -> String {
        match self.low.get("name") {
            Some(Value::Str(s)) => s.clone(),
            None | Some(Value::Null) => String::new(),
            Some(v) => v.to_python_str(),
        }
    }

    /// The argument, `None` when absent or null.
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.low.get(key).filter(|v| !v.is_null())
    }

    /// A text argument: strings as they are, numbers as Python prints them.
    pub fn string(&self, key: &str) -> Result<Option<String>, String> {
        match self.get(key) {
            None => Ok(None),
            Some(Value::Str(s)) => Ok(Some(s.clone())),
            Some(v @ (Value::Int(_) | Value::Float(_))) => Ok(Some(v.to_python_str())),
            Some(v) => Err(bad_arg(key, "a string", v)),
        }
    }

    /// Python truthiness of the argument, `default` when absent.
    pub fn truthy(&self, key: &str, default: bool) -> bool {
        match self.low.get(key) {
            None => default,
            Some(v) => v.is_truthy(),
        }
    }

    /// An integer argument (`count: 2`, `'2'`).
    pub fn int(&self, key: &str) -> Result<Option<i64>, String> {
        match self.get(key) {
            None => Ok(None),
            Some(Value::Int(i)) => Ok(Some(*i)),
            Some(Value::Bool(b)) => Ok(Some(i64::from(*b))),
            Some(Value::Str(s)) => s
                .trim()
                .parse()
                .map(Some)
                .map_err(|_| bad_arg(key, "an integer", &Value::Str(s.clone()))),
            Some(v) => Err(bad_arg(key, "an integer", v)),
        }
    }

    /// `user`/`group`: a name or an id.
    pub fn owner(&self, key: &str) -> Result<Option<fsutil::Owner>, String> {
        fsutil::Owner::from_value(self.get(key))
            .map_err(|e| format!("Invalid argument '{key}': {e}"))
    }
}

/// The comment for an argument of the wrong type.
pub fn bad_arg(key: &str, expected: &str, got: &Value) -> String {
    format!(
        "Invalid argument '{key}': expected {expected}, got {} {}",
        got.type_name(),
        got.to_python_repr()
    )
}

/// Why a template did not render.
#[derive(Debug)]
pub enum TemplateError {
    /// Salt's "Specified template format X is not supported".
    Unsupported(String),
    /// The renderer's own message.
    Render(String),
}

impl std::fmt::Display for TemplateError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TemplateError::Unsupported(t) => {
                write!(f, "Specified template format {t} is not supported")
            }
            TemplateError::Render(m) => f.write_str(m),
        }
    }
}

/// Render `text` with a Salt template engine (only `jinja` in brine), with
/// `grains`, `pillar`, `opts`, `saltenv` from the run and `vars` on top
/// (Salt's `context`/`defaults` and the per-function names like `name`).
pub fn render_template(
    ctx: &StateContext,
    template: &str,
    saltenv: &str,
    what: &str,
    text: &str,
    vars: Vec<(String, Value)>,
) -> Result<String, TemplateError> {
    if template != "jinja" {
        return Err(TemplateError::Unsupported(template.to_string()));
    }
    let id = ctx
        .opts
        .get("id")
        .or_else(|| ctx.grains.get("id"))
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string();
    let minion = MinionData {
        id,
        grains: Value::Map((*ctx.grains).clone()),
        pillar: Value::Map((*ctx.pillar).clone()),
        opts: Value::Map((*ctx.opts).clone()),
        functions: ctx.functions.clone(),
    };
    let search_paths: Vec<PathBuf> = brine_compile::opts::roots(&ctx.opts, "file_roots")
        .get(saltenv)
        .cloned()
        .unwrap_or_default();
    let tctx = TemplateContext {
        minion: Arc::new(minion),
        saltenv: saltenv.to_string(),
        search_paths,
        extra: vars,
        ..Default::default()
    };
    jinja::render(what, text, &tctx).map_err(|e| TemplateError::Render(e.to_string()))
}

/// `defaults` updated with `context` (Salt's template context dict).
pub fn merge_context(defaults: Option<&Value>, context: Option<&Value>) -> Vec<(String, Value)> {
    let mut out: Map = Map::default();
    for v in [defaults, context].into_iter().flatten() {
        if let Value::Map(m) = v {
            for (k, v) in m {
                out.insert(k.clone(), v.clone());
            }
        }
    }
    out.into_iter().collect()
}
