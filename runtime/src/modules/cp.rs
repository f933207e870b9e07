//! Salt's `cp` module: the file server's listings and files, fetched into
//! the minion's cache (`cachedir/files/<saltenv>/<path>`, as Salt lays it
//! out) or to a destination. The files come through the minion's file
//! client: the master's file server over the bus, `file_roots` with
//! `--local` (the same client the file state fetches `salt://` sources
//! with).

use super::function::{sig, CallError, Ctx, Function, Return};
use super::params::{opt_string, Params};
use brine_compile::envs::Envs;
use brine_compile::matcher::glob::fnmatch;
use brine_compile::minion_data::Returned;
use brine_compile::opts;
use brine_compile::render::jinja::{self, TemplateContext};
use brine_core::{Map, Value};
use brine_states::fileclient::{
    hash_path, parse_salt_url, FileClient, FileClientError, LocalFileClient,
};
use brine_states::posixpath::normpath;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Bound on the folders listed, so a huge or looping tree cannot hold a
/// render forever.
const MAX_DIRS: usize = 100_000;

pub(super) const FUNCTIONS: &[Function] = &[
    Function::acts(
        "cache_dir",
        sig!(
            path,
            saltenv = null,
            include_empty = false,
            include_pat = null,
            exclude_pat = null
        ),
        "Cache every file under the file server folder PATH (salt://...) in the \
minion's cache; include_pat / exclude_pat (globs, or E@regex) pick files. \
Answers the cached paths.\n\n    brine-call cp.cache_dir salt://web/files",
        cache_dir,
    ),
    Function::acts(
        "get_file_str",
        sig!(path, saltenv = null),
        "The text of the file server's PATH (salt://...), cached first; False when it \
is not there.\n\n    brine '*' cp.get_file_str salt://motd",
        get_file_str,
    ),
    Function::acts(
        "cache_file",
        sig!(
            path,
            saltenv = null,
            source_hash = null,
            verify_ssl = true,
            use_etag = false
        ),
        "Cache the file server's PATH (salt://..., ?saltenv= honoured) under \
cachedir/files/SALTENV and answer the cached path (False when it is not \
there).\n\n    brine-call cp.cache_file salt://web/files/nginx.conf",
        cache_file,
    ),
    Function::acts(
        "cache_files",
        sig!(paths, saltenv = null),
        "cp.cache_file for each of PATHS (a list or comma-separated); answers \
the paths, False for those not found.\n\n    \
brine-call cp.cache_files salt://a.conf,salt://b.conf",
        cache_files,
    ),
    Function::acts(
        "get_dir",
        sig!(
            path,
            dest,
            saltenv = null,
            template = null,
            gzip = null,
            **kwargs
        ),
        "Copy the file server folder PATH into DEST (the folder itself lands \
inside DEST); answers the files written.\n\n    \
brine-call cp.get_dir salt://web/files /srv/web",
        get_dir,
    ),
    Function::acts(
        "get_file",
        sig!(
            path,
            dest,
            saltenv = null,
            makedirs = false,
            template = null,
            gzip = null,
            **kwargs
        ),
        "Copy the file server's PATH to DEST (a folder keeps the file's name); \
makedirs=True creates DEST's folder. Answers DEST, or '' when PATH is not \
on the file server.\n\n    brine-call cp.get_file salt://motd /etc/motd",
        get_file,
    ),
    Function::acts(
        "get_template",
        sig!(
            path,
            dest,
            template = "jinja",
            saltenv = null,
            makedirs = false,
            **kwargs
        ),
        "Render the file server's PATH with the Jinja renderer (grains, pillar, \
opts, salt, and keywords as variables) and write it to DEST; answers DEST or \
''.\n\n    brine-call cp.get_template salt://motd.j2 /etc/motd",
        get_template,
    ),
    Function::reads(
        "hash_file",
        sig!(path, saltenv = null),
        "The hash of the file server's PATH (or of a local file) as {hash_type, \
hsum}; '' when there is no such file.\n\n    \
brine-call cp.hash_file salt://web/files/nginx.conf",
        hash_file,
    ),
    Function::reads(
        "is_cached",
        sig!(path, saltenv = null),
        "The cached copy of PATH (salt://...) in the minion's cache, or '' when \
it has not been cached.\n\n    brine-call cp.is_cached salt://web/files/nginx.conf",
        is_cached,
    ),
    Function::reads(
        "list_master",
        sig!(saltenv = null, prefix = ""),
        "Every file the file server holds in SALTENV (default base), relative \
paths, sorted; only those starting with PREFIX.\n\n    \
brine-call cp.list_master prefix=web/",
        list_master,
    ),
    Function::reads(
        "list_master_dirs",
        sig!(saltenv = null, prefix = ""),
        "The folders the file server holds in SALTENV (default base), as paths \
relative to the file roots, sorted; only those starting with PREFIX.\n\n    \
brine-call cp.list_master_dirs prefix=users/files",
        list_master_dirs,
    ),
    Function::reads(
        "list_minion",
        sig!(saltenv = null),
        "The files in the minion's cache for SALTENV (full paths, sorted).\n\n    \
brine-call cp.list_minion",
        list_minion,
    ),
    Function::reads(
        "list_states",
        sig!(saltenv = null),
        "The SLS names the file server holds in SALTENV (a/init.sls is a, a/b.sls \
is a.b), sorted.\n\n    brine-call cp.list_states dev",
        list_states,
    ),
];

/// The saltenv a call names, else the minion's `saltenv` option, else base.
fn saltenv(cx: &Ctx<'_>, v: Option<Value>) -> String {
    Envs {
        saltenv: opt_string(v.filter(Value::is_truthy)),
        pillarenv: None,
    }
    .saltenv_or_config(cx.opts)
    .unwrap_or_else(|| "base".into())
}

/// The client serving `salt://`: the running minion's (the master over
/// the bus, or its file roots), else the file roots of the opts.
fn client(cx: &Ctx<'_>) -> Arc<dyn FileClient> {
    match cx.running() {
        Some(m) => m.file_client(),
        None => Arc::new(LocalFileClient::from_opts(cx.opts)),
    }
}

fn failed(e: FileClientError) -> CallError {
    CallError::Failed(e.to_string())
}

fn io_failed(path: &Path, e: std::io::Error) -> CallError {
    CallError::Failed(format!("{}: {e}", path.display()))
}

/// `cachedir/files/<saltenv>`.
fn cache_root(cx: &Ctx<'_>, saltenv: &str) -> PathBuf {
    let cachedir = opts::cachedir(cx.opts);
    cachedir.join("files").join(saltenv)
}

/// A `salt://` path as a path relative to the roots, without climbing out.
fn relative(path: &str) -> Option<String> {
    let rel = normpath(path.trim_start_matches('/'));
    (rel != "." && rel != ".." && !rel.starts_with("../")).then_some(rel)
}

/// A saltenv usable as one folder name.
fn plain_env(env: &str) -> bool {
    !env.is_empty() && env != "." && env != ".." && !env.contains('/')
}

/// Fetch `url` into the minion's cache: its cached path, `None` when the
/// file server has no such file. A local path is its own cache.
fn fetch(
    cx: &Ctx<'_>,
    fc: &dyn FileClient,
    url: &str,
    saltenv: &str,
) -> Result<Option<PathBuf>, CallError> {
    brine_states::fileclient::cache_into(fc, &opts::cachedir(cx.opts), url, saltenv).map_err(failed)
}

/// `url` (`salt://...`) cached from the minion's file client, as
/// `cp.cache_file` does: its local path, or None when there is no such
/// file.
pub(super) fn cached(cx: &Ctx<'_>, url: &str, saltenv: &str) -> Result<Option<PathBuf>, CallError> {
    let fc = client(cx);
    fetch(cx, fc.as_ref(), url, saltenv)
}

/// Copy `src` to `dest` through a temporary file in its folder.
fn copy_file(src: &Path, dest: &Path, makedirs: bool) -> Result<(), CallError> {
    let dir = dest.parent().unwrap_or(Path::new("/"));
    if makedirs {
        std::fs::create_dir_all(dir).map_err(|e| io_failed(dir, e))?;
    }
    let tmp = tempfile::NamedTempFile::new_in(dir).map_err(|e| io_failed(dir, e))?;
    std::fs::copy(src, tmp.path()).map_err(|e| io_failed(src, e))?;
    tmp.persist(dest).map_err(|e| io_failed(dest, e.error))?;
    Ok(())
}

fn path_value(p: &Path) -> Value {
    Value::Str(p.display().to_string())
}

fn cache_file<'c>(cx: &Ctx<'c>, mut p: Params) -> Result<Return, CallError> {
    let path = p.require("path")?.to_python_str();
    let env = saltenv(cx, p.take("saltenv"));
    // Accepted for Salt's signature: they concern http(s) sources.
    p.take("source_hash");
    p.take("verify_ssl");
    p.take("use_etag");
    p.finish()?;
    let fc = client(cx);
    Ok(match fetch(cx, fc.as_ref(), &path, &env)? {
        Some(dest) => path_value(&dest),
        None => {
            tracing::error!("Unable to cache file '{path}' from saltenv '{env}'.");
            Value::Bool(false)
        }
    }
    .into())
}

fn get_file_str<'c>(cx: &Ctx<'c>, mut p: Params) -> Result<Return, CallError> {
    let path = p.require("path")?.to_python_str();
    let env = saltenv(cx, p.take("saltenv"));
    p.finish()?;
    let fc = client(cx);
    Ok(match fetch(cx, fc.as_ref(), &path, &env)? {
        Some(local) => match std::fs::read(&local) {
            Ok(bytes) => Value::Str(String::from_utf8_lossy(&bytes).into_owned()),
            Err(_) => Value::Bool(false),
        },
        None => {
            tracing::error!("Unable to cache file '{path}' from saltenv '{env}'.");
            Value::Bool(false)
        }
    }
    .into())
}

fn cache_files<'c>(cx: &Ctx<'c>, mut p: Params) -> Result<Return, CallError> {
    let paths = p.require("paths")?;
    let env = saltenv(cx, p.take("saltenv"));
    p.finish()?;
    let paths: Vec<String> = match paths {
        Value::List(l) => l.iter().map(Value::to_python_str).collect(),
        other => other
            .to_python_str()
            .split(',')
            .map(str::to_string)
            .collect(),
    };
    let fc = client(cx);
    let mut out = Vec::new();
    for path in paths {
        out.push(match fetch(cx, fc.as_ref(), &path, &env)? {
            Some(dest) => path_value(&dest),
            None => Value::Bool(false),
        });
    }
    Ok(Value::List(out).into())
}

/// Salt's `check_include_exclude`: glob patterns, or `E@` regexes.
fn include_exclude(path: &str, include: Option<&str>, exclude: Option<&str>) -> bool {
    let hit = |pat: &str| match pat.strip_prefix("E@") {
        Some(re) => regex::Regex::new(re).is_ok_and(|r| r.is_match(path)),
        None => fnmatch(path, pat),
    };
    match (include, exclude) {
        (None, None) => true,
        (Some(i), None) => hit(i),
        (None, Some(e)) => !hit(e),
        (Some(i), Some(e)) => hit(i) && !hit(e),
    }
}

/// The path of a `salt://` URL; Salt refuses anything else here.
fn salt_path(url: &str) -> Result<String, CallError> {
    parse_salt_url(url)
        .map(|(p, _)| p)
        .ok_or_else(|| CallError::Failed(format!("Path '{url}' is not a salt:// URL")))
}

fn cache_dir<'c>(cx: &Ctx<'c>, mut p: Params) -> Result<Return, CallError> {
    let path = p.require("path")?.to_python_str();
    let env = saltenv(cx, p.take("saltenv"));
    let include_empty = p.take("include_empty").is_some_and(|v| v.is_truthy());
    let include = opt_string(p.take("include_pat"));
    let exclude = opt_string(p.take("exclude_pat"));
    p.finish()?;
    let mut dir = salt_path(&path)?;
    if !dir.ends_with('/') {
        dir.push('/');
    }
    let fc = client(cx);
    let mut out = Vec::new();
    for f in fc.file_list(&env, "").map_err(failed)? {
        if f.trim().is_empty()
            || !f.starts_with(&dir)
            || !include_exclude(&f, include.as_deref(), exclude.as_deref())
        {
            continue;
        }
        if let Some(dest) = fetch(cx, fc.as_ref(), &format!("salt://{f}"), &env)? {
            out.push(path_value(&dest));
        }
    }
    // Empty folders come from the file roots; over the bus the master's
    // file server lists files only, so there are none to add.
    if include_empty && !over_the_bus(cx) && plain_env(&env) {
        for d in empty_dirs(cx, &env) {
            if d.starts_with(&dir) {
                let minion_dir = cache_root(cx, &env).join(&d);
                std::fs::create_dir_all(&minion_dir).map_err(|e| io_failed(&minion_dir, e))?;
                out.push(Value::Str(format!(
                    "{}/{d}",
                    cache_root(cx, &env).display()
                )));
            }
        }
    }
    Ok(Value::List(out).into())
}

/// Whether the running minion gets its files from the master.
fn over_the_bus(cx: &Ctx<'_>) -> bool {
    cx.running()
        .is_some_and(|m| matches!(m.source, crate::context::CompileSource::Master(_)))
}

/// The folders of the file roots of `saltenv` with nothing in them, as
/// relative paths, sorted.
fn empty_dirs(cx: &Ctx<'_>, saltenv: &str) -> Vec<String> {
    let roots = opts::roots(cx.opts, "file_roots");
    let mut out = BTreeSet::new();
    for root in roots.get(saltenv).into_iter().flatten() {
        let mut dirs = BTreeSet::new();
        walk(root, root, &mut dirs);
        for d in dirs {
            let empty = std::fs::read_dir(root.join(&d)).is_ok_and(|mut rd| rd.next().is_none());
            if empty {
                out.insert(d);
            }
        }
    }
    out.into_iter().collect()
}

/// Salt's `get_file` of the file client: `dest` a folder keeps the name;
/// its folder must exist unless `makedirs`. `Ok(None)`: not written.
fn write_to(
    cx: &Ctx<'_>,
    fc: &dyn FileClient,
    url: &str,
    dest: &str,
    makedirs: bool,
    saltenv: &str,
) -> Result<Value, CallError> {
    let Some(src) = fetch(cx, fc, url, saltenv)? else {
        return Ok(Value::Str(String::new()));
    };
    if dest.is_empty() {
        return Ok(path_value(&src));
    }
    let mut target = PathBuf::from(dest);
    if target.is_dir() || dest.ends_with('/') {
        let name = parse_salt_url(url)
            .map(|(p, _)| p)
            .unwrap_or_else(|| url.to_string());
        target = target.join(brine_host::path::basename(&name));
    }
    let dir = target.parent().unwrap_or(Path::new("/"));
    if !dir.as_os_str().is_empty() && !dir.is_dir() && !makedirs {
        return Ok(Value::Bool(false));
    }
    copy_file(&src, &target, makedirs)?;
    Ok(path_value(&target))
}

/// The Jinja context of a template rendered for this minion in `saltenv`
/// (grains, pillar, opts, `salt`), with `vars` on top.
pub(super) fn template_context(
    cx: &Ctx<'_>,
    saltenv: &str,
    vars: Vec<(String, Value)>,
) -> TemplateContext {
    TemplateContext {
        minion: Arc::new(cx.minion_data().into_owned()),
        saltenv: saltenv.to_string(),
        search_paths: opts::roots(cx.opts, "file_roots")
            .get(saltenv)
            .cloned()
            .unwrap_or_default(),
        extra: vars,
        ..Default::default()
    }
}

/// Salt's `_render_filenames`: with `template=jinja`, the source and
/// destination are rendered as templates first.
fn render_paths(
    cx: &Ctx<'_>,
    template: Option<Value>,
    saltenv: &str,
    path: String,
    dest: String,
) -> Result<(String, String), CallError> {
    let Some(engine) = opt_string(template.filter(Value::is_truthy)) else {
        return Ok((path, dest));
    };
    if engine != "jinja" {
        return Err(CallError::Failed(format!(
            "Attempted to render file paths with unavailable engine {engine}"
        )));
    }
    let tctx = template_context(cx, saltenv, Vec::new());
    let render = |text: &str| {
        jinja::render("path", text, &tctx)
            .map_err(|e| CallError::Failed(format!("Failed to render file path with error: {e}")))
    };
    Ok((render(&path)?, render(&dest)?))
}

fn get_file<'c>(cx: &Ctx<'c>, mut p: Params) -> Result<Return, CallError> {
    let path = p.require("path")?.to_python_str();
    let dest = p.require("dest")?.to_python_str();
    let env = saltenv(cx, p.take("saltenv"));
    let makedirs = p.take("makedirs").is_some_and(|v| v.is_truthy());
    let template = p.take("template");
    // Compression on the wire only; files arrive whole here.
    p.take("gzip");
    p.open_kwargs = true;
    p.finish()?;
    let (path, dest) = render_paths(cx, template, &env, path, dest)?;
    let fc = client(cx);
    let (_, senv) = parse_salt_url(&path).unwrap_or_default();
    let env = senv.unwrap_or(env);
    // Salt asks for the hash first: a missing file answers ''.
    if parse_salt_url(&path).is_some() && fc.hash_file(&path, &env).map_err(failed)?.is_none() {
        return Ok(Value::Str(String::new()).into());
    }
    write_to(cx, fc.as_ref(), &path, &dest, makedirs, &env).map(Into::into)
}

fn get_dir<'c>(cx: &Ctx<'c>, mut p: Params) -> Result<Return, CallError> {
    let path = p.require("path")?.to_python_str();
    let dest = p.require("dest")?.to_python_str();
    let env = saltenv(cx, p.take("saltenv"));
    let template = p.take("template");
    p.take("gzip");
    p.open_kwargs = true;
    p.finish()?;
    let (path, dest) = render_paths(cx, template, &env, path, dest)?;
    let dir = salt_path(&path)?;
    let dir = dir.trim_end_matches('/');
    // The folder's parent is cut off: salt://a/b lands as DEST/b/...
    let prefix = dir.rsplit_once('/').map_or("", |(head, _)| head);
    let fc = client(cx);
    let mut out = Vec::new();
    for f in fc.file_list(&env, dir).map_err(failed)? {
        if f.as_bytes().get(dir.len()) != Some(&b'/') {
            continue;
        }
        let rel = f
            .get(prefix.len()..)
            .unwrap_or_default()
            .trim_start_matches('/');
        out.push(write_to(
            cx,
            fc.as_ref(),
            &format!("salt://{f}"),
            &format!("{dest}/{rel}"),
            true,
            &env,
        )?);
    }
    out.sort_by_key(Value::to_python_str);
    Ok(Value::List(out).into())
}

fn get_template<'c>(cx: &Ctx<'c>, mut p: Params) -> Result<Return, CallError> {
    let path = p.require("path")?.to_python_str();
    let dest = p.require("dest")?.to_python_str();
    let template = opt_string(p.take("template")).unwrap_or_else(|| "jinja".into());
    let env = saltenv(cx, p.take("saltenv"));
    let makedirs = p.take("makedirs").is_some_and(|v| v.is_truthy());
    // Further keywords are template variables.
    let vars: Vec<(String, Value)> = std::mem::take(&mut p.kwargs).into_iter().collect();
    p.finish()?;
    let fc = client(cx);
    let Some(src) = fetch(cx, fc.as_ref(), &path, &env)? else {
        return Ok(Value::Str(String::new()).into());
    };
    if template != "jinja" {
        tracing::error!("Attempted to render template with unavailable engine {template}");
        return Ok(Value::Str(String::new()).into());
    }
    let text = std::fs::read_to_string(&src).map_err(|e| io_failed(&src, e))?;
    let tctx = template_context(cx, &env, vars);
    let rendered = match jinja::render(&path, &text, &tctx) {
        Ok(r) => r,
        // Salt raises its render error out of the function.
        Err(e) => {
            return Err(CallError::Failed(format!(
                "Failed to render template {path}: {e}"
            )))
        }
    };
    let target = PathBuf::from(&dest);
    let dir = target.parent().unwrap_or(Path::new("/"));
    if !dir.is_dir() {
        if !makedirs {
            return Ok(Value::Str(String::new()).into());
        }
        std::fs::create_dir_all(dir).map_err(|e| io_failed(dir, e))?;
    }
    std::fs::write(&target, rendered).map_err(|e| io_failed(&target, e))?;
    Ok(Value::Str(dest).into())
}

fn hash_file<'c>(cx: &Ctx<'c>, mut p: Params) -> Result<Returned<'c>, CallError> {
    let path = p.require("path")?.to_python_str();
    let env = saltenv(cx, p.take("saltenv"));
    p.finish()?;
    let hsum = match parse_salt_url(&path) {
        Some(_) => client(cx).hash_file(&path, &env).map_err(failed)?,
        None => {
            let local = Path::new(path.strip_prefix("file://").unwrap_or(&path));
            if !local.is_file() {
                // Salt answers a missing local file with its hash-and-stat
                // pair, empty.
                return Ok(Returned::New(Value::List(vec![
                    Value::Map(Map::default()),
                    Value::Null,
                ])));
            }
            hash_path(local, "sha256")
                .map_err(|e| io_failed(local, e))?
                .map(|(h, _)| h)
        }
    };
    Ok(Returned::New(match hsum {
        Some(h) => {
            let mut m = Map::default();
            m.insert("hash_type".into(), "sha256".into());
            m.insert("hsum".into(), Value::Str(h));
            Value::Map(m)
        }
        None => Value::Str(String::new()),
    }))
}

fn is_cached<'c>(cx: &Ctx<'c>, mut p: Params) -> Result<Returned<'c>, CallError> {
    let path = p.require("path")?.to_python_str();
    let mut env = saltenv(cx, p.take("saltenv"));
    p.finish()?;
    let rel = match parse_salt_url(&path) {
        Some((rel, senv)) => {
            if let Some(s) = senv {
                env = s;
            }
            rel
        }
        None => path,
    };
    let found = relative(&rel).filter(|_| plain_env(&env)).and_then(|rel| {
        let cachedir = opts::cachedir(cx.opts);
        [
            cache_root(cx, &env).join(&rel),
            cachedir.join("localfiles").join(&rel),
        ]
        .into_iter()
        .find(|p| p.exists())
    });
    Ok(Returned::New(found.map_or_else(
        || Value::Str(String::new()),
        |p| path_value(&p),
    )))
}

fn list_master<'c>(cx: &Ctx<'c>, mut p: Params) -> Result<Returned<'c>, CallError> {
    let env = saltenv(cx, p.take("saltenv"));
    let prefix = p
        .take("prefix")
        .map(|v| v.to_python_str())
        .unwrap_or_default();
    p.finish()?;
    let files = client(cx).file_list(&env, &prefix).map_err(failed)?;
    Ok(Returned::New(Value::List(
        files.into_iter().map(Value::Str).collect(),
    )))
}

fn list_states<'c>(cx: &Ctx<'c>, mut p: Params) -> Result<Returned<'c>, CallError> {
    let env = saltenv(cx, p.take("saltenv"));
    p.finish()?;
    let mut states = BTreeSet::new();
    for f in client(cx).file_list(&env, "").map_err(failed)? {
        if let Some(dir) = f.strip_suffix("/init.sls") {
            states.insert(dir.replace('/', "."));
        } else if let Some(name) = f.strip_suffix(".sls") {
            states.insert(name.replace('/', "."));
        }
    }
    Ok(Returned::New(Value::List(
        states.into_iter().map(Value::Str).collect(),
    )))
}

fn list_minion<'c>(cx: &Ctx<'c>, mut p: Params) -> Result<Returned<'c>, CallError> {
    let env = saltenv(cx, p.take("saltenv"));
    p.finish()?;
    let cachedir = opts::cachedir(cx.opts);
    let mut files: BTreeSet<String> = BTreeSet::new();
    for dir in [cache_root(cx, &env), cachedir.join("localfiles")] {
        for rel in brine_states::fileclient::list_files(std::iter::once(&dir), "") {
            files.insert(dir.join(rel).display().to_string());
        }
    }
    Ok(Returned::New(Value::List(
        files.into_iter().map(Value::Str).collect(),
    )))
}

fn list_master_dirs<'c>(cx: &Ctx<'c>, mut p: Params) -> Result<Returned<'c>, CallError> {
    let saltenv = p
        .take("saltenv")
        .filter(|v| !v.is_null())
        .map_or_else(|| "base".to_string(), |v| v.to_python_str());
    let prefix = p
        .take("prefix")
        .map(|v| v.to_python_str())
        .unwrap_or_default();
    p.finish()?;
    // Over the bus the master lists files, and their folders are the
    // folders seen (one with no file in it is not); locally the roots are
    // walked.
    let dirs = client(cx)
        .dir_list(&saltenv, prefix.trim_matches('/'))
        .map_err(failed)?;
    Ok(Returned::New(Value::List(
        dirs.into_iter().map(Value::Str).collect(),
    )))
}

/// Every folder under `dir` (links followed, as Salt's walk does; a
/// folder is not entered twice), relative to `root`.
fn walk(root: &Path, dir: &Path, out: &mut BTreeSet<String>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        if out.len() >= MAX_DIRS {
            return;
        }
        let path = entry.path();
        if !path.is_dir() {
            continue;
        }
        let Ok(rel) = path.strip_prefix(root) else {
            continue;
        };
        if out.insert(rel.to_string_lossy().into_owned()) {
            walk(root, &path, out);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(m: &mut crate::context::Minion, fun: &str, line: &[&str]) -> serde_json::Value {
        let tokens: Vec<String> = line.iter().map(|s| s.to_string()).collect();
        crate::modules::call(m, fun, brine_core::args::parse_input(&tokens))
            .map(|r| r.value.to_json())
            .unwrap_or_else(|e| serde_json::Value::String(format!("error: {e}")))
    }

    #[test]
    fn caches_into_cachedir_files_and_lists_the_cache() {
        let td = tempfile::tempdir().unwrap();
        let roots = td.path().join("roots");
        std::fs::create_dir_all(roots.join("web")).unwrap();
        std::fs::write(roots.join("web/a.conf"), "a\n").unwrap();
        let cache = td.path().join("cache");
        let mut opts = Map::default();
        opts.insert("cachedir".into(), Value::Str(cache.display().to_string()));
        opts.insert(
            "file_roots".into(),
            Value::from_json(&serde_json::json!({"base": [roots.display().to_string()]})),
        );
        let mut m = crate::context::Minion {
            id: "t".into(),
            opts: opts.into(),
            grains: Map::default().into(),
            pillar: Map::default().into(),
            source: Default::default(),
            functions: crate::modules::functions(),
            jobs: Default::default(),
            registry: None,
            schedule: None,
            master: Default::default(),
            key_finger: None,
        };
        let cached = cache.join("files/base/web/a.conf").display().to_string();
        assert_eq!(run(&mut m, "cp.list_minion", &[]), serde_json::json!([]));
        assert_eq!(run(&mut m, "cp.is_cached", &["salt://web/a.conf"]), "");
        assert_eq!(
            run(&mut m, "cp.cache_file", &["salt://web/a.conf"]),
            cached.as_str()
        );
        assert_eq!(std::fs::read_to_string(&cached).unwrap(), "a\n");
        assert_eq!(
            run(&mut m, "cp.is_cached", &["salt://web/a.conf"]),
            cached.as_str()
        );
        assert_eq!(
            run(&mut m, "cp.list_minion", &[]),
            serde_json::json!([cached])
        );
        // Out of the roots is never served, nor cached.
        assert_eq!(run(&mut m, "cp.cache_file", &["salt://../x"]), false);
        assert_eq!(run(&mut m, "cp.is_cached", &["salt://../x"]), "");
        let dest = td.path().join("out.conf").display().to_string();
        assert_eq!(
            run(&mut m, "cp.get_file", &["salt://web/a.conf", &dest]),
            dest.as_str()
        );
        assert_eq!(std::fs::read_to_string(&dest).unwrap(), "a\n");
        // Empty folders join the cache with include_empty.
        std::fs::create_dir_all(roots.join("web/empty")).unwrap();
        let empty = cache.join("files/base/web/empty").display().to_string();
        assert_eq!(
            run(
                &mut m,
                "cp.cache_dir",
                &["salt://web", "include_empty=True"]
            ),
            serde_json::json!([cached, empty])
        );
        assert!(cache.join("files/base/web/empty").is_dir());
        assert_eq!(
            run(&mut m, "cp.cache_dir", &["salt://web"]),
            serde_json::json!([cached])
        );
    }

    #[test]
    fn patterns_and_paths() {
        assert!(include_exclude("web/a.conf", Some("*.conf"), None));
        assert!(!include_exclude("web/a.conf", None, Some("E@\\.conf$")));
        assert!(include_exclude("web/a.conf", None, None));
        assert_eq!(relative("/a/./b").as_deref(), Some("a/b"));
        assert_eq!(relative("a/../../b"), None);
        assert!(!plain_env("../x"));
        assert!(salt_path("/etc").is_err());
    }
}
