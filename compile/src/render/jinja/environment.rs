//! Salt's template context and the minijinja environment it renders in:
//! the names a template sees (`grains`, `pillar`, `opts`, `sls`,
//! `tpldir`, `salt`...), the environment with Salt's filters, tests and
//! tags, template loading from the roots, and errors worded as Salt's.

use super::{convert, filters, mutable, preprocess, salt_functions};
use crate::MinionData;
use brine_core::Value;
use minijinja::value::{Enumerator, Object, ObjectRepr, Value as MjValue};
use minijinja::{AutoEscape, Environment, ErrorKind, UndefinedBehavior};
use std::borrow::Cow;
use std::cell::RefCell;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

/// Everything one template render sees.
#[derive(Debug, Clone, Default)]
pub struct TemplateContext {
    pub minion: Arc<MinionData>,
    pub saltenv: String,
    /// Kept for callers; Salt does not put `pillarenv` in the template
    /// context (templates read `opts.pillarenv`).
    pub pillarenv: Option<String>,
    /// The SLS being rendered (`a.b`); sets `sls`, `slspath`,
    /// `slsdotpath`, `slscolonpath`, `sls_path`. `None` renders like Salt's
    /// top files and config templates (`sls` is `''`).
    pub sls: Option<String>,
    /// Path of the template file (`/srv/pillar/a/b/init.sls`). With it the
    /// context also gets `tplpath`, `tplfile`, `tpldir` and `tpldot`, and
    /// `slspath` tells `a/b/init.sls` (→ `a/b`) from `a/b.sls` (→ `a`), as
    /// Salt does for every SLS file. Without it, `slspath` is the SLS as a
    /// path (what Salt does for templates rendered from a string).
    pub tplpath: Option<String>,
    /// Roots that `{% import %}`, `{% include %}`, `{% from %}` and
    /// `{% import_yaml %}` names resolve against, in order (the saltenv's
    /// `file_roots`, or `pillar_roots` when rendering pillar).
    pub search_paths: Vec<PathBuf>,
    /// Where a name the roots do not hold is fetched from (a minion's
    /// file client: `salt://<name>` cached from its master, as Salt's
    /// template loader does); the local copy's path.
    pub fetch: Option<TemplateFetch>,
    /// Further variables (PillarStack's `stack`, include `defaults`, ...);
    /// they shadow the standard ones.
    pub extra: Vec<(String, Value)>,
}

/// A template fetcher ([`TemplateContext::fetch`]).
#[derive(Clone)]
pub struct TemplateFetch(pub Arc<FetchFn>);

/// Fetch a template by name; the local copy's path.
pub type FetchFn = dyn Fn(&str) -> Option<PathBuf> + Send + Sync;

impl std::fmt::Debug for TemplateFetch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("TemplateFetch")
    }
}

/// Why a template did not render; `line` is 1-based in the template source.
#[derive(Debug, thiserror::Error)]
#[error("{message}{}", line.map(|l| format!(" (line {l})")).unwrap_or_default())]
pub struct JinjaError {
    pub message: String,
    pub line: Option<usize>,
}

/// The SLS-derived names of Salt's `generate_sls_context`.
pub(super) struct SlsVars {
    sls: String,
    slspath: String,
    /// `tplpath`, `tplfile`, `tpldir`, `tpldot`, when the file is known.
    tpl: Option<(String, String, String, String)>,
}

impl SlsVars {
    pub(super) fn new(ctx: &TemplateContext) -> SlsVars {
        let sls = ctx.sls.clone().unwrap_or_default();
        let mut slspath = sls.replace('.', "/");
        let mut tpl = None;
        if let Some(tplpath) = &ctx.tplpath {
            let template = tplpath.replace('\\', "/");
            let as_file = format!("{slspath}.sls");
            let as_init = format!("{slspath}/init.sls");
            // The file's path relative to its root, found by its SLS name.
            let tplfile = if sls.is_empty() {
                template.rsplit('/').next().unwrap_or_default().to_string()
            } else if template.ends_with(&as_file) {
                as_file
            } else if template.ends_with(&as_init) {
                as_init
            } else {
                template.clone()
            };
            slspath = match tplfile.rsplit_once('/') {
                Some((dir, _)) => dir.to_string(),
                None => String::new(),
            };
            let tpldir = if slspath.is_empty() {
                ".".to_string()
            } else {
                slspath.clone()
            };
            tpl = Some((tplpath.clone(), tplfile, tpldir, slspath.replace('/', ".")));
        }
        SlsVars { sls, slspath, tpl }
    }

    /// Directory that `./x` imports in the top template are relative to.
    pub(super) fn tpldir(&self) -> &str {
        match &self.tpl {
            Some((_, _, dir, _)) => dir,
            None => ".",
        }
    }
}

fn base_env() -> &'static Environment<'static> {
    static ENV: OnceLock<Environment<'static>> = OnceLock::new();
    ENV.get_or_init(|| {
        let mut env = Environment::new();
        env.set_undefined_behavior(UndefinedBehavior::Strict);
        // Errors then carry the template source, to name the failing
        // expression; it costs only when an error is raised.
        env.set_debug(true);
        env.set_keep_trailing_newline(false);
        env.set_auto_escape_callback(|_| AutoEscape::None);
        env.set_formatter(|out, _state, value| {
            out.write_str(&convert::printable(value)).map_err(|e| {
                minijinja::Error::new(ErrorKind::WriteFailure, "cannot write output").with_source(e)
            })
        });
        env.set_unknown_method_callback(mutable::call_method);
        minijinja_contrib::add_to_environment(&mut env);
        filters::register(&mut env);
        env
    })
}

/// Salt's preprocessing of a template's text (its tags minijinja lacks).
pub(super) fn rewrite<'s>(
    name: &str,
    source: &'s str,
) -> Result<std::borrow::Cow<'s, str>, JinjaError> {
    preprocess::rewrite(source).map_err(|e| JinjaError {
        message: format!("Jinja syntax error in {name}: {}", e.message),
        line: Some(e.line),
    })
}

/// What of a render's options shapes its environment: undefined handling
/// and block options from opts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(super) struct Settings {
    lenient: bool,
    trim: bool,
    lstrip: bool,
    keep_trailing_newline: Option<bool>,
    /// `render_max_instructions` (minijinja's fuel).
    fuel: Option<u64>,
}

impl Settings {
    pub(super) fn of(ctx: &TemplateContext, vars: &SlsVars) -> Settings {
        let opts = &ctx.minion.opts;
        // Salt: `jinja_sls_env` for SLS files, `jinja_env` otherwise, plus
        // the older `jinja_trim_blocks`/`jinja_lstrip_blocks` switches.
        let env_opts = if vars.sls.is_empty() {
            "jinja_env"
        } else {
            "jinja_sls_env"
        };
        let flag = |key: &str| {
            opts.get(env_opts)
                .and_then(|m| m.get(key))
                .map(Value::is_truthy)
        };
        Settings {
            lenient: opts.get("allow_undefined").is_some_and(Value::is_truthy),
            trim: opts.get("jinja_trim_blocks").is_some_and(Value::is_truthy)
                || flag("trim_blocks").unwrap_or(false),
            lstrip: opts
                .get("jinja_lstrip_blocks")
                .is_some_and(Value::is_truthy)
                || flag("lstrip_blocks").unwrap_or(false),
            keep_trailing_newline: flag("keep_trailing_newline"),
            fuel: super::budget::instructions(opts),
        }
    }
}

/// The texts a kept environment's loader read, by template name.
pub(super) type Loaded = Arc<std::sync::Mutex<Vec<(String, String)>>>;

/// The base environment plus what varies per render: `settings`, and the
/// loader over the saltenv's `roots` (recording what it reads in `loaded`
/// when given). `top_name` is the rendered template's name, `top_dir` the
/// directory its `./x` imports are relative to.
pub(super) fn environment_with(
    settings: Settings,
    roots: Vec<PathBuf>,
    fetch: Option<TemplateFetch>,
    top_name: &str,
    top_dir: &str,
    loaded: Option<Loaded>,
) -> Environment<'static> {
    let mut env = base_env().clone();
    if settings.lenient {
        env.set_undefined_behavior(UndefinedBehavior::Lenient);
    }
    env.set_trim_blocks(settings.trim);
    env.set_lstrip_blocks(settings.lstrip);
    env.set_fuel(settings.fuel);
    if let Some(keep) = settings.keep_trailing_newline {
        env.set_keep_trailing_newline(keep);
    }
    env.set_loader(move |name| {
        let found = match load_template(&roots, name)? {
            Some(t) => Some(t),
            None => match fetch.as_ref().and_then(|f| (f.0)(name)) {
                Some(path) => match path.parent() {
                    Some(dir) => {
                        let file = path.file_name().unwrap_or_default().to_string_lossy();
                        load_template(&[dir.to_path_buf()], &file)?
                    }
                    None => None,
                },
                None => None,
            },
        };
        let Some((raw, text)) = found else {
            return Ok(None);
        };
        if let Some(loaded) = &loaded {
            if let Ok(mut l) = loaded.lock() {
                l.push((name.to_string(), raw));
            }
        }
        Ok(Some(text))
    });
    let top = top_name.to_string();
    let top_dir = top_dir.to_string();
    env.set_path_join_callback(move |name, parent| {
        if !(name.starts_with("./") || name.starts_with("../")) {
            return name.into();
        }
        // Salt joins relative names to the template's directory and
        // refuses to climb out of the roots.
        let base = if parent == top {
            top_dir.clone()
        } else {
            parent
                .rsplit_once('/')
                .map(|(d, _)| d.to_string())
                .unwrap_or_default()
        };
        match normalize(&format!("{base}/{name}")) {
            Some(p) => p.into(),
            None => format!("\u{0}invalid:{name}").into(),
        }
    });
    env
}

/// `os.path.normpath` of a relative path; `None` when it climbs above the root.
fn normalize(path: &str) -> Option<String> {
    let mut parts: Vec<&str> = Vec::new();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            p => parts.push(p),
        }
    }
    Some(parts.join("/"))
}

/// A template the loader finds by `name` in `roots`: its text as read, and
/// as preprocessed.
fn load_template(
    roots: &[PathBuf],
    name: &str,
) -> Result<Option<(String, String)>, minijinja::Error> {
    let Some(raw) = read_template(roots, name)? else {
        return Ok(None);
    };
    let text = preprocess::rewrite(&raw)
        .map_err(|e| {
            minijinja::Error::new(
                ErrorKind::SyntaxError,
                format!("{} (line {})", e.message, e.line),
            )
        })?
        .into_owned();
    Ok(Some((raw, text)))
}

/// The text of the template `name` in the first of `roots` holding it.
pub(super) fn read_template(
    roots: &[PathBuf],
    name: &str,
) -> Result<Option<String>, minijinja::Error> {
    // Names are paths inside the roots: never absolute, never climbing out.
    let rel = Path::new(name);
    if name.contains('\u{0}')
        || rel.is_absolute()
        || rel.components().any(|c| {
            !matches!(
                c,
                std::path::Component::Normal(_) | std::path::Component::CurDir
            )
        })
    {
        return Ok(None);
    }
    for root in roots {
        let path = root.join(rel);
        match crate::file_text::read_to_string(&path) {
            Ok(text) => return Ok(Some(text.to_string())),
            Err(e)
                if e.kind() == std::io::ErrorKind::NotFound
                    || e.kind() == std::io::ErrorKind::NotADirectory =>
            {
                continue
            }
            Err(e) => {
                return Err(minijinja::Error::new(
                    ErrorKind::TemplateNotFound,
                    format!("cannot read {}", path.display()),
                )
                .with_source(e))
            }
        }
    }
    Ok(None)
}

/// grains/pillar/opts as template values, converted once per thread for the
/// minion being rendered. Holding the `Arc` keeps its address from being
/// reused, so pointer identity is a sound cache key.
struct Converted {
    minion: Arc<MinionData>,
    grains: MjValue,
    pillar: MjValue,
    opts: MjValue,
}

thread_local! {
    static CONVERTED: RefCell<Option<Converted>> = const { RefCell::new(None) };
}

/// Drop this thread's converted `grains`/`pillar`/`opts` (and the minion
/// data they hold on to). Call when a batch of renders is finished; the next
/// render converts again.
pub fn release_cached_context() {
    CONVERTED.with(|cell| {
        cell.borrow_mut().take();
    });
}

pub(super) fn converted(minion: &Arc<MinionData>) -> (MjValue, MjValue, MjValue) {
    CONVERTED.with(|cell| {
        let mut cache = cell.borrow_mut();
        if let Some(c) = cache.as_ref() {
            if Arc::ptr_eq(&c.minion, minion) {
                return (c.grains.clone(), c.pillar.clone(), c.opts.clone());
            }
        }
        // Pillar values come from YAML (OrderedDict in Salt); grains and
        // opts are plain dicts.
        let c = Converted {
            minion: minion.clone(),
            grains: convert::to_jinja(&minion.grains, false),
            pillar: convert::pillar_to_jinja(&minion.pillar),
            opts: convert::to_jinja(&minion.opts, false),
        };
        let rv = (c.grains.clone(), c.pillar.clone(), c.opts.clone());
        *cache = Some(c);
        rv
    })
}

pub(super) fn build_context(ctx: &TemplateContext, vars: &SlsVars) -> MjValue {
    let (grains, pillar, opts) = converted(&ctx.minion);
    let salt = salt_functions::loader(
        ctx.minion.clone(),
        grains.clone(),
        pillar.clone(),
        opts.clone(),
    );
    let mut names = Vec::with_capacity(16 + ctx.extra.len());
    let mut put = |k: &'static str, v: MjValue| names.push((Cow::Borrowed(k), v));
    put("salt", salt);
    put("grains", grains);
    put("opts", opts);
    put("pillar", pillar);
    put("saltenv", MjValue::from(ctx.saltenv.as_str()));
    put("sls", MjValue::from(vars.sls.as_str()));
    // Salt's `__proxy__` on a regular minion: an empty dict.
    static PROXY: OnceLock<MjValue> = OnceLock::new();
    put(
        "proxy",
        PROXY
            .get_or_init(|| MjValue::from_object(indexmap::IndexMap::<MjValue, MjValue>::new()))
            .clone(),
    );
    if let Some((tplpath, tplfile, tpldir, tpldot)) = &vars.tpl {
        put("tplpath", MjValue::from(tplpath.as_str()));
        put("tplfile", MjValue::from(tplfile.as_str()));
        put("tpldir", MjValue::from(tpldir.as_str()));
        put("tpldot", MjValue::from(tpldot.as_str()));
    }
    put("slspath", MjValue::from(vars.slspath.as_str()));
    put("slsdotpath", MjValue::from(vars.slspath.replace('/', ".")));
    put(
        "slscolonpath",
        MjValue::from(vars.slspath.replace('/', ":")),
    );
    put("sls_path", MjValue::from(vars.slspath.replace('/', "_")));
    for (k, v) in &ctx.extra {
        names.push((Cow::Owned(k.clone()), convert::pillar_to_jinja(v)));
    }
    MjValue::from_object(Names(names))
}

/// A template's top-level names, in the order they were given; a later
/// one shadows an earlier one of the same name. A list, not a hash map:
/// it is built for every render (hundreds per minion on the master) and
/// read by name a few times.
#[derive(Debug)]
struct Names(Vec<(Cow<'static, str>, MjValue)>);

impl Object for Names {
    fn repr(self: &Arc<Self>) -> ObjectRepr {
        ObjectRepr::Map
    }

    fn get_value(self: &Arc<Self>, key: &MjValue) -> Option<MjValue> {
        let key = key.as_str()?;
        self.0
            .iter()
            .rev()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.clone())
    }

    fn enumerate(self: &Arc<Self>) -> Enumerator {
        let mut keys: Vec<MjValue> = Vec::with_capacity(self.0.len());
        for (k, _) in &self.0 {
            let k = MjValue::from(k.as_ref());
            if !keys.contains(&k) {
                keys.push(k);
            }
        }
        Enumerator::Values(keys)
    }
}

/// Jinja2's words for what `expr` (`a.b['c']`, a name and its attribute
/// or key lookups) lacks in `context`: the first step that fails —
/// `'a' is undefined`, or `'dict object' has no attribute 'c'` where `a.b`
/// is a dict without `c`. None for anything else (a variable the template
/// set itself, calls, filters): the caller words those.
fn missing_in(context: &MjValue, expr: &str) -> Option<String> {
    static STEP: OnceLock<regex::Regex> = OnceLock::new();
    let step = STEP.get_or_init(|| {
        regex::Regex::new(r#"^(?:\.([A-Za-z_]\w*)|\[\s*'([^']*)'\s*\]|\[\s*"([^"]*)"\s*\])"#)
            .unwrap_or_else(|_| unreachable!("a fixed pattern"))
    });
    let root_len = expr
        .find(|c: char| !(c.is_alphanumeric() || c == '_'))
        .unwrap_or(expr.len());
    let root = &expr[..root_len];
    if root.is_empty() || root.starts_with(|c: char| c.is_ascii_digit()) {
        return None;
    }
    let mut rest = &expr[root_len..];
    let mut names = Vec::new();
    while !rest.is_empty() {
        let c = step.captures(rest)?;
        let name = c.get(1).or(c.get(2)).or(c.get(3))?.as_str();
        names.push(name.to_string());
        rest = &rest[c.get(0)?.end()..];
    }
    let mut v = context.get_attr(root).ok().filter(|v| !v.is_undefined())?;
    for name in names {
        match v.get_attr(&name).ok().filter(|x| !x.is_undefined()) {
            Some(next) => v = next,
            None => {
                let kind = match v.kind() {
                    minijinja::value::ValueKind::Map => "dict",
                    minijinja::value::ValueKind::Seq => "list",
                    minijinja::value::ValueKind::String => "str",
                    minijinja::value::ValueKind::Bool => "bool",
                    minijinja::value::ValueKind::None => "NoneType",
                    minijinja::value::ValueKind::Number if v.is_integer() => "int",
                    minijinja::value::ValueKind::Number => "float",
                    _ => return None,
                };
                return Some(format!("'{kind} object' has no attribute '{name}'"));
            }
        }
    }
    None
}

/// A minijinja error worded like Salt's (`Jinja variable ... is undefined`,
/// `Jinja syntax error: ...`, `Jinja error: ...`), naming the template, the
/// failing expression when known, and the line. `line` is only set when the
/// error is in the rendered template itself; errors inside an imported
/// template name that template and its line in the message.
pub(super) fn jinja_error(
    top_name: &str,
    err: &minijinja::Error,
    context: Option<&MjValue>,
) -> JinjaError {
    let name = err.name().unwrap_or(top_name);
    // The failing expression, as written in the template.
    let expr = err
        .template_source()
        .zip(err.range())
        .and_then(|(src, r)| src.get(r))
        .map(|e| e.trim().to_string())
        .filter(|e| !e.is_empty() && e.len() <= 200);
    let detail = err.detail().map(str::to_string);
    let mut message = match err.kind() {
        ErrorKind::UndefinedError => match &expr {
            Some(e) => format!(
                "Jinja variable {}",
                context
                    .and_then(|c| missing_in(c, e))
                    .unwrap_or_else(|| format!("'{e}' is undefined"))
            ),
            None => "Jinja variable is undefined".to_string(),
        },
        ErrorKind::SyntaxError => format!("Jinja syntax error: {}", detail.unwrap_or_default()),
        ErrorKind::UnknownFilter | ErrorKind::UnknownTest | ErrorKind::UnknownFunction => {
            format!(
                "Jinja syntax error: {}{}",
                err.kind(),
                detail.map(|d| format!(": {d}")).unwrap_or_default()
            )
        }
        ErrorKind::TemplateNotFound => format!(
            "Jinja error: template not found: {}",
            detail.unwrap_or_default()
        ),
        kind => {
            let what = detail.unwrap_or_else(|| kind.to_string());
            match (&expr, kind) {
                (Some(e), ErrorKind::InvalidOperation | ErrorKind::UnknownMethod) => {
                    format!("Jinja error: {what} (in '{e}')")
                }
                _ => format!("Jinja error: {what}"),
            }
        }
    };
    // Salt names no file for an error in the template being rendered
    // (its "; line N" and excerpt follow); one in an imported or included
    // template is named with its line.
    let in_top = name == top_name;
    if !in_top {
        message.push_str(&format!(" in {name}"));
        if let Some(l) = err.line() {
            message.push_str(&format!(" line {l}"));
        }
    }
    // Errors raised inside a filter or function can carry a cause.
    let mut source = std::error::Error::source(err);
    while let Some(s) = source {
        match s.downcast_ref::<minijinja::Error>() {
            Some(inner) => {
                message.push_str(&format!("; {}", inner.detail().unwrap_or_default()));
            }
            None => message.push_str(&format!("; {s}")),
        }
        source = s.source();
    }
    JinjaError {
        message,
        line: if in_top { err.line() } else { None },
    }
}
