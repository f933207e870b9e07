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

use crate::{StateCall, StateContext, StateModule, StateReturn};
use brine_compile::render::jinja::{self, TemplateContext};
use brine_compile::MinionData;
use brine_core::{Map, Value};
use std::path::PathBuf;
use std::sync::Arc;

/// The `file` state module.
pub struct FileStates;

const FUNCTIONS: &[&str] = &[
    "managed",
    "directory",
    "absent",
    "exists",
    "missing",
    "symlink",
    "append",
    "touch",
    "replace",
];

impl StateModule for FileStates {
    fn has_function(&self, fun: &str) -> bool {
        FUNCTIONS.contains(&fun)
    }

    fn call(&self, call: &StateCall) -> StateReturn {
        let args = Args { low: call.low };
        let name = args.name();
        let out = match call.fun() {
            "managed" => managed::managed(call, &args, &name),
            "directory" => directory::directory(call, &args, &name),
            "absent" => misc::absent(call, &name),
            "exists" => misc::exists(&name),
            "missing" => misc::missing(&name),
            "symlink" => misc::symlink(call, &args, &name),
            "append" => misc::append(call, &args, &name),
            "touch" => misc::touch(call, &args, &name),
            "replace" => replace::replace(call, &args, &name),
            other => Err(format!("State function file.{other} is not available")),
        };
        out.unwrap_or_else(|comment| failed(&name, comment))
    }
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
pub fn merge_context(
    defaults: Option<&Value>,
    context: Option<&Value>,
) -> Vec<(String, Value)> {
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
