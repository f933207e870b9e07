//! `file.managed`: Salt's `states.file.managed` with the execution-module
//! helpers it calls (`source_list`, `get_managed`, `check_managed_changes`,
//! `check_file_meta`, `manage_file`, `get_diff`), in the same order and with
//! the same wording.

use super::args::{failed, Args};
use super::difflib;
use super::fsutil::{self, Owner};
use super::perms::check_perms;
use super::remote::{self, Fetcher};
use super::source_hash::{get_source_sum, SourceSum, SumError};
use super::template::{merge_context, render_template, TemplateError};
use crate::fileclient::{hash_path, parse_salt_url};
use crate::{StateCall, StateReturn};
use brine_compile::state::vocabulary::is_internal_keyword;
use brine_core::{Map, Value};
use std::path::{Path, PathBuf};

/// The parameters of Salt's `file.managed`. Any other key of the chunk
/// that does not drive the state system lands in the function's
/// `**kwargs`, which Salt hands on to the template as variables.
const MANAGED_PARAMS: &[&str] = &[
    "name",
    "source",
    "source_hash",
    "source_hash_name",
    "keep_source",
    "user",
    "group",
    "mode",
    "attrs",
    "template",
    "makedirs",
    "dir_mode",
    "context",
    "replace",
    "defaults",
    "backup",
    "show_changes",
    "create",
    "contents",
    "tmp_dir",
    "tmp_ext",
    "contents_pillar",
    "contents_grains",
    "contents_newline",
    "contents_delimiter",
    "encoding",
    "encoding_errors",
    "allow_empty",
    "follow_symlinks",
    "check_cmd",
    "skip_verify",
    "selinux",
    "win_owner",
    "win_perms",
    "win_deny_perms",
    "win_inheritance",
    "win_perms_reset",
    "verify_ssl",
    "use_etag",
    "signature",
    "source_hash_sig",
    "signed_by_any",
    "signed_by_all",
    "keyring",
    "gnupghome",
];

const SET_TO_CHANGE: &str =
    "\nNote: No changes made, actual changes may\nbe different due to other states.";

/// Where a `source` points.
#[derive(Debug, Clone)]
enum Source {
    /// `salt://...` (the URL as written).
    Salt(String),
    /// An absolute path or `file://` URL (the path).
    Local { url: String, path: String },
    /// `http://`, `https://` (fetched into the minion's cache), `ftp://`,
    /// `s3://`, `swift://` (refused when fetched).
    Remote(String),
}

impl Source {
    fn parse(url: &str) -> Source {
        if url.starts_with("salt://") {
            return Source::Salt(url.to_string());
        }
        if let Some(rest) = url.strip_prefix("file://") {
            return Source::Local {
                url: url.to_string(),
                path: rest.trim_end_matches('/').to_string(),
            };
        }
        let scheme = url.split_once("://").map(|(s, _)| s).unwrap_or("");
        if ["http", "https", "ftp", "swift", "s3"].contains(&scheme) {
            return Source::Remote(url.to_string());
        }
        Source::Local {
            url: url.to_string(),
            path: url.to_string(),
        }
    }

    fn url(&self) -> &str {
        match self {
            Source::Salt(u) | Source::Remote(u) => u,
            Source::Local { url, .. } => url,
        }
    }

    fn is_salt(&self) -> bool {
        matches!(self, Source::Salt(_))
    }
}

/// The file's new contents as `get_managed` leaves them.
struct Fetched {
    data: Option<Vec<u8>>,
    sum: Option<SourceSum>,
}

/// Everything `managed` works with after checking its arguments.
struct Managed<'a> {
    call: &'a StateCall<'a>,
    name: String,
    saltenv: String,
    test: bool,
    source: Option<Source>,
    source_hash: Option<String>,
    source_hash_name: Option<String>,
    verify_ssl: bool,
    keep_source: bool,
    user: Option<Owner>,
    group: Option<Owner>,
    mode: Option<String>,
    keep_mode: bool,
    template: Option<String>,
    context: Option<Value>,
    defaults: Option<Value>,
    /// The new contents as bytes (`file.serialize` writes msgpack too).
    contents: Option<Vec<u8>>,
    makedirs: bool,
    dir_mode: Option<String>,
    show_changes: bool,
    follow_symlinks: bool,
    skip_verify: bool,
}

pub fn managed(call: &StateCall, args: &Args, raw_name: &str) -> Result<StateReturn, String> {
    let name = fsutil::expanduser(raw_name);
    let mut warnings: Vec<Value> = Vec::new();
    let mut ret = run(call, args, &name, &mut warnings)?;
    if !warnings.is_empty() {
        ret.extra.insert("warnings".into(), Value::List(warnings));
    }
    Ok(ret)
}

fn run(
    call: &StateCall,
    args: &Args,
    name: &str,
    warnings: &mut Vec<Value>,
) -> Result<StateReturn, String> {
    if name.is_empty() {
        return Ok(failed(name, "Destination file name is required"));
    }
    let test = call.test;
    let saltenv = state_saltenv(call);
    let keep_mode = matches!(args.get("mode"), Some(Value::Str(s)) if s.to_lowercase() == "keep");
    let mode = if keep_mode {
        None
    } else {
        fsutil::normalize_mode(args.get("mode"))
    };

    let contents_arg = args.get("contents");
    let contents_pillar = args.get("contents_pillar");
    let contents_grains = args.get("contents_grains");
    let contents_count = [contents_arg, contents_pillar, contents_grains]
        .iter()
        .filter(|v| v.is_some())
        .count();
    let source_val = args.get("source");
    let source_truthy = source_val.is_some_and(Value::is_truthy);
    if source_truthy && contents_count > 0 {
        return Ok(failed(
            name,
            "'source' cannot be used in combination with 'contents', 'contents_pillar', or 'contents_grains'",
        ));
    } else if keep_mode && contents_count > 0 {
        return Ok(failed(
            name,
            "Mode preservation cannot be used in combination with 'contents', 'contents_pillar', or 'contents_grains'",
        ));
    } else if contents_count > 1 {
        return Ok(failed(
            name,
            "Only one of 'contents', 'contents_pillar', and 'contents_grains' is permitted",
        ));
    }
    let mut replace = args.truthy("replace", true);
    // Nothing to replace the file with: only its existence and permissions count.
    if !source_truthy && contents_count == 0 && replace {
        replace = false;
    }
    if call.low.contains_key("file_mode") {
        warnings.push(Value::Str(
            "The 'file_mode' argument will be ignored.  Please use 'mode' instead to set file permissions."
                .into(),
        ));
    }
    let template = args.string("template")?.filter(|t| !t.is_empty());
    let context = args.get("context").cloned();
    let defaults = args.get("defaults").cloned();

    let delimiter = args
        .string("contents_delimiter")?
        .unwrap_or_else(|| ":".into());
    let use_contents: Option<Value> = if let Some(cp) = contents_pillar {
        match lookup_many(cp, &call.ctx.pillar, &delimiter, "Pillar") {
            Ok(v) => Some(v),
            Err(msg) => return Ok(failed(name, msg)),
        }
    } else if let Some(cg) = contents_grains {
        match lookup_many(cg, &call.ctx.grains, &delimiter, "Grain") {
            Ok(v) => Some(v),
            Err(msg) => return Ok(failed(name, msg)),
        }
    } else {
        contents_arg.cloned()
    };

    let mut contents: Option<Vec<u8>> = None;
    if let Some(uc) = use_contents {
        if !args.truthy("allow_empty", true) && !uc.is_truthy() {
            let id = if let Some(cp) = contents_pillar.filter(|v| v.is_truthy()) {
                format!("contents_pillar {}", cp.to_python_str())
            } else if let Some(cg) = contents_grains.filter(|v| v.is_truthy()) {
                format!("contents_grains {}", cg.to_python_str())
            } else {
                "'contents'".to_string()
            };
            return Ok(failed(
                name,
                format!("{id} value would result in empty contents. Set allow_empty to True to allow the managed file to be empty."),
            ));
        }
        let parts = validate_str_list(&uc);
        if parts.is_empty() {
            return Ok(failed(
                name,
                "Contents specified by contents/contents_pillar/contents_grains is not a string or list of strings, and is not binary data. SLS is likely malformed.",
            ));
        }
        let mut text = String::new();
        for part in &parts {
            for line in difflib::str_splitlines(part) {
                text.push_str(line.trim_end_matches('\n').trim_end_matches('\r'));
                text.push('\n');
            }
        }
        if !args.truthy("contents_newline", true) {
            text = text
                .trim_end_matches('\n')
                .trim_end_matches('\r')
                .to_string();
        }
        if let Some(t) = &template {
            if context
                .as_ref()
                .is_some_and(|c| !matches!(c, Value::Map(_)))
            {
                return Ok(failed(name, "Context must be formed as a dict"));
            }
            let vars = merge_context(defaults.as_ref(), context.as_ref());
            text = match render_template(call.ctx, t, &saltenv, name, &text, vars) {
                Ok(s) => s,
                Err(e @ TemplateError::Unsupported(_)) => return Ok(failed(name, e.to_string())),
                Err(e) => return Ok(failed(name, format!("Unable to manage file: {e}"))),
            };
        }
        contents = Some(text.into_bytes());
    }

    let user = match args.owner("user")? {
        Some(u) => Some(u),
        // Salt quietly accepts `owner` for `user`.
        None => args.owner("owner")?,
    };
    let group = args.owner("group")?;
    let path = Path::new(name);
    if !args.truthy("create", true) && !path.is_file() {
        let mut ret = StateReturn::new(name);
        ret.comment = format!("File {name} is not present and is not set for creation");
        return Ok(ret);
    }
    let u_check = check_user(user.as_ref(), group.as_ref(), test);
    if !u_check.is_empty() {
        return Ok(failed(name, u_check));
    }
    if !fsutil::isabs(name) {
        return Ok(failed(
            name,
            format!("Specified file {name} is not an absolute path"),
        ));
    }
    if path.is_dir() {
        return Ok(failed(
            name,
            format!("Specified target {name} is a directory"),
        ));
    }
    if context
        .as_ref()
        .is_some_and(|c| !matches!(c, Value::Map(_)))
    {
        return Ok(failed(name, "Context must be formed as a dict"));
    }
    if defaults
        .as_ref()
        .is_some_and(|d| d.is_truthy() && !matches!(d, Value::Map(_)))
    {
        return Ok(failed(name, "Defaults must be formed as a dict"));
    }

    let m = Managed {
        call,
        name: name.to_string(),
        saltenv,
        test,
        source: None,
        source_hash: args.string("source_hash")?.filter(|h| !h.is_empty()),
        source_hash_name: args.string("source_hash_name")?.filter(|h| !h.is_empty()),
        verify_ssl: args.truthy("verify_ssl", true),
        keep_source: args.truthy("keep_source", true),
        user,
        group,
        mode,
        keep_mode,
        template,
        context,
        defaults,
        contents,
        makedirs: args.truthy("makedirs", false),
        dir_mode: fsutil::normalize_mode(args.get("dir_mode")),
        show_changes: args.truthy("show_changes", true),
        follow_symlinks: args.truthy("follow_symlinks", true),
        skip_verify: args.truthy("skip_verify", false),
    };

    // A remote source whose hash the file already has: nothing to fetch,
    // only permissions to check.
    if replace && m.contents.is_none() && m.template.is_none() && !m.skip_verify && path.exists() {
        if let Some(v) = source_val.filter(|v| v.is_truthy()) {
            match remote_already_there(&m, v) {
                Ok(true) => replace = false,
                Ok(false) => {}
                Err(e) => return Ok(failed(name, format!("Unable to manage file: {e}"))),
            }
        }
    }

    let mut ret = StateReturn::new(name);
    if !replace && path.exists() {
        let before = check_perms(
            path,
            &mut ret,
            m.user.as_ref(),
            m.group.as_ref(),
            m.mode.as_deref(),
            m.follow_symlinks,
            test,
        )
        .map_err(|e| format!("Unable to manage file: {e}"))?;
        if test {
            ret.comment = match &m.mode {
                Some(mode) if *mode != before.lmode => format!(
                    "File {name} will be updated with permissions {mode} from its current state of {}",
                    before.lmode
                ),
                _ => format!("File {name} not updated"),
            };
        } else if ret.changes.is_empty() && ret.result == Some(true) {
            ret.comment = format!("File {name} exists with proper permissions. No changes made.");
        }
        return Ok(ret);
    }

    // Text gathered by file.accumulated states for this file reaches the
    // template as `accumulator`.
    let mut m = m;
    if let Some(acc) = call.ctx.accumulators.snapshot().data.get(name) {
        let mut context = match m.context.take() {
            Some(Value::Map(c)) => c,
            _ => Map::default(),
        };
        let acc: Map = acc
            .iter()
            .map(|(k, v)| (k.clone(), Value::List(v.clone())))
            .collect();
        context.insert("accumulator".into(), Value::Map(acc));
        m.context = Some(Value::Map(context));
    }

    // Pick the first existing source of a list.
    let m = match source_val.filter(|v| v.is_truthy()) {
        None => m,
        Some(v) => match source_list(&m, v) {
            Ok((src, hash)) => Managed {
                source: Some(Source::parse(&src)),
                source_hash: hash.or(m.source_hash.clone()),
                ..m
            },
            Err(ListError::Comment(e)) => {
                return Ok(failed(name, format!("Unable to manage file: {e}")))
            }
            Err(ListError::Raised(e)) => return Ok(failed(name, crate::raised(e))),
        },
    };

    if test {
        match check_managed_changes(&m) {
            Err(comment) => {
                ret.result = Some(false);
                ret.comment = comment;
            }
            Ok(mut changes) if !changes.is_empty() => {
                if changes.contains_key("diff") && !m.show_changes {
                    changes.insert("diff".into(), Value::Str("<show_changes=False>".into()));
                }
                ret.changes = changes;
                ret.result = None;
                ret.comment = format!("The file {name} is set to be changed{SET_TO_CHANGE}");
            }
            Ok(_) => {
                ret.comment = format!("The file {name} is in the correct state");
            }
        }
        return Ok(ret);
    }

    let fetched = match get_managed(&m) {
        Ok(Ok(f)) => f,
        Ok(Err(comment)) if m.contents.is_none() => return Ok(failed(name, comment)),
        Ok(Err(_)) => Fetched {
            data: None,
            sum: None,
        },
        Err(e) => return Ok(failed(name, format!("Unable to manage file: {e}"))),
    };
    Ok(manage_file(&m, ret, fetched))
}

/// The saltenv of this chunk (`__env__`), else the run's.
pub fn state_saltenv(call: &StateCall) -> String {
    call.low
        .get("__env__")
        .or_else(|| call.low.get("saltenv"))
        .and_then(Value::as_str)
        .unwrap_or(&call.ctx.saltenv)
        .to_string()
}

/// `contents_pillar`/`contents_grains`: one key, or a list of keys whose
/// values are joined with newlines.
fn lookup_many(keys: &Value, data: &Map, delimiter: &str, what: &str) -> Result<Value, String> {
    let root = Value::Map(data.clone());
    let get = |k: &Value| -> Result<Value, String> {
        let key = k.to_python_str();
        root.traverse(&key, delimiter)
            .cloned()
            .ok_or_else(|| format!("{what} {key} does not exist"))
    };
    match keys {
        Value::List(items) => {
            let mut parts = Vec::new();
            for k in items {
                parts.push(get(k)?.to_python_str());
            }
            Ok(Value::Str(parts.join("\n")))
        }
        k => get(k),
    }
}

/// Salt's `_validate_str_list`: the text parts of `contents`.
fn validate_str_list(v: &Value) -> Vec<String> {
    match v {
        Value::Str(s) => vec![s.clone()],
        Value::List(items) => items.iter().map(Value::to_python_str).collect(),
        other => vec![other.to_python_str()],
    }
}

/// Salt's `_check_user`: names that do not exist on this system (only a
/// warning in test mode).
pub fn check_user(user: Option<&Owner>, group: Option<&Owner>, test: bool) -> String {
    let mut err = String::new();
    if let Some(u) = user {
        if fsutil::user_to_uid(u).is_none() {
            err.push_str(&format!("User {} is not available ", u.display()));
        }
    }
    if let Some(g) = group {
        if fsutil::group_to_gid(g).is_none() {
            err.push_str(&format!("Group {} is not available", g.display()));
        }
    }
    if test {
        String::new()
    } else {
        err
    }
}

/// Why a source list gives no source: a comment, or what Salt raises.
enum ListError {
    Comment(String),
    Raised(String),
}

/// Salt's `file.source_list` as the state calls it: a single source as
/// is, or the first source of a list that exists.
fn source_list(m: &Managed, source: &Value) -> Result<(String, Option<String>), ListError> {
    let items = match source {
        Value::Str(s) => return Ok((s.clone(), None)),
        Value::List(items) => items,
        other => {
            return Err(ListError::Comment(super::bad_arg(
                "source",
                "a string or a list",
                other,
            )))
        }
    };
    // Salt 3007.8's state fails on `{url: hash}` items (it lowercases every
    // item to look for http sources first).
    if items.iter().any(|i| matches!(i, Value::Map(_))) {
        return Err(ListError::Comment(
            "each item of a source list must be a string in Salt 3007.8".into(),
        ));
    }
    // Salt asks about an ftp:// item with its http client, which raises
    // on the scheme: a list reaching one fails the state.
    let ftp_at = items.iter().position(|i| {
        i.as_str()
            .is_some_and(|u| brine_host::http::scheme(u) == "ftp")
    });
    let checked = items
        .get(..ftp_at.unwrap_or(items.len()))
        .unwrap_or_default();
    match (first_source(&m.fetcher(), checked, &Value::Null), ftp_at) {
        (Ok((url, _)), _) => Ok((url, None)),
        (Err(_), Some(at)) => Err(ListError::Raised(format!(
            "ValueError: Unsupported url scheme: {}",
            items.get(at).map(Value::to_python_str).unwrap_or_default()
        ))),
        (Err(e), None) => Err(ListError::Comment(e)),
    }
}

impl Managed<'_> {
    fn fetcher(&self) -> Fetcher<'_> {
        Fetcher {
            opts: &self.call.ctx.opts,
            client: self.call.ctx.fileclient.as_ref(),
            saltenv: &self.saltenv,
            verify_ssl: self.verify_ssl,
        }
    }
}

/// Salt's early check in `file.managed`: a remote source with a
/// `source_hash` that the file already matches needs no download. Hash
/// expressions Salt cannot use are only logged there (`Ok(false)`); a hash
/// file that cannot be fetched fails the state.
fn remote_already_there(m: &Managed, source: &Value) -> Result<bool, String> {
    let Ok((url, hash)) = source_list(m, source) else {
        return Ok(false);
    };
    let source_hash = hash.or(m.source_hash.clone());
    let (Some(source_hash), scheme) = (source_hash, remote::scheme(&url)) else {
        return Ok(false);
    };
    if url.is_empty() || scheme == "salt" || scheme == "file" || url.starts_with('/') {
        return Ok(false);
    }
    let sum = match get_source_sum(
        &m.fetcher(),
        &m.name,
        &url,
        &source_hash,
        m.source_hash_name.as_deref(),
    ) {
        Ok(s) => s,
        Err(SumError::Invalid(_)) => return Ok(false),
        Err(SumError::Fetch(e)) => return Err(e),
    };
    let have = hash_path(Path::new(&m.name), &sum.hash_type)
        .ok()
        .flatten()
        .map(|(h, _)| h);
    Ok(have.is_some() && have == sum.hsum)
}

/// Salt's `file.source_list` on a list: the first item that exists, with
/// its hash (a `{url: hash}` item's own, else `source_hash`). A `salt://`
/// item is looked up through the file client (in its `?saltenv=`, else
/// `saltenv`), a local path or `file://` URL on disk, an http(s) one by a
/// `HEAD` request.
pub fn first_source(
    fetcher: &Fetcher,
    items: &[Value],
    source_hash: &Value,
) -> Result<(String, Value), String> {
    let (client, saltenv) = (fetcher.client, fetcher.saltenv);
    for item in items {
        let (url, hash, is_map) = match item {
            Value::Str(s) => (s.clone(), source_hash.clone(), false),
            Value::Map(m) if m.len() == 1 => {
                let Some((k, v)) = m.iter().next() else {
                    continue;
                };
                let h = if v.is_truthy() {
                    v.clone()
                } else {
                    source_hash.clone()
                };
                (k.clone(), h, true)
            }
            _ => continue,
        };
        let found = match Source::parse(&url) {
            Source::Salt(u) => {
                let (path, env) = parse_salt_url(&u).unwrap_or_default();
                // Salt looks a `{url: hash}` item up in `saltenv`, whatever
                // its query says.
                let env = match env {
                    Some(e) if !is_map => e,
                    _ => saltenv.to_string(),
                };
                client.cache_file(&format!("salt://{path}"), &env).is_ok()
            }
            Source::Local { path, .. } => {
                (url.starts_with("file://") || fsutil::isabs(&path)) && Path::new(&path).exists()
            }
            Source::Remote(u) => fetcher.exists(&u),
        };
        if found {
            return Ok((url, hash));
        }
    }
    Err("none of the specified sources were found".into())
}

/// Salt's `file.get_managed`: the source's data (rendered when templated)
/// and hash. `Ok(Err(comment))` is a failure Salt reports as the comment;
/// `Err` one it reports as "Unable to manage file: ...".
fn get_managed(m: &Managed) -> Result<Result<Fetched, String>, String> {
    let Some(source) = &m.source else {
        return Ok(Ok(Fetched {
            data: None,
            sum: None,
        }));
    };
    let mut sum: Option<SourceSum> = None;
    let mut data: Option<Vec<u8>>;
    match source {
        Source::Local { path, .. } => {
            if !Path::new(path).exists() {
                return Ok(Err(format!("Local file source {path} does not exist")));
            }
            let bytes =
                std::fs::read(path).map_err(|e| fsutil::py_os_error(&e, Path::new(path)))?;
            match &m.source_hash {
                None => {
                    sum = Some(SourceSum {
                        hash_type: "sha256".into(),
                        hsum: fsutil::hash_hex("sha256", &bytes),
                    })
                }
                Some(h) if !m.skip_verify => match get_source_sum(
                    &m.fetcher(),
                    &m.name,
                    m.source.as_ref().map_or("", Source::url),
                    h,
                    m.source_hash_name.as_deref(),
                ) {
                    Ok(s) => sum = Some(s),
                    Err(SumError::Invalid(e)) => return Ok(Err(e)),
                    Err(SumError::Fetch(e)) => return Err(e),
                },
                Some(_) => {}
            }
            data = Some(bytes);
        }
        Source::Salt(url) => match m.call.ctx.fileclient.cache_file(url, &m.saltenv) {
            Ok(p) => {
                let bytes = std::fs::read(&p).map_err(|e| fsutil::py_os_error(&e, &p))?;
                sum = Some(SourceSum {
                    hash_type: "sha256".into(),
                    hsum: fsutil::hash_hex("sha256", &bytes),
                });
                data = Some(bytes);
            }
            Err(_) => {
                return Ok(Err(format!(
                    "Source file {url} not found in saltenv '{}'",
                    m.saltenv
                )))
            }
        },
        Source::Remote(url) => match fetch_remote(m, url)? {
            Ok((bytes, s)) => {
                sum = s;
                data = Some(bytes);
            }
            Err(comment) => return Ok(Err(comment)),
        },
    }
    if let (Some(template), Some(bytes)) = (&m.template, &data) {
        let vars = template_vars(m, source);
        let text = String::from_utf8_lossy(bytes).into_owned();
        let rendered = render_template(m.call.ctx, template, &m.saltenv, source.url(), &text, vars);
        match rendered {
            Ok(out) => {
                let out = out.into_bytes();
                sum = Some(SourceSum {
                    hash_type: "sha256".into(),
                    hsum: fsutil::hash_hex("sha256", &out),
                });
                data = Some(out);
            }
            Err(e @ TemplateError::Unsupported(_)) => return Ok(Err(e.to_string())),
            Err(e) => return Err(e.to_string()),
        }
    }
    Ok(Ok(Fetched { data, sum }))
}

/// Salt's `get_managed` on a remote source: the expected hash (unless
/// `skip_verify`), then the cached copy when it still matches, else a
/// download into the cache. The data and the hash the file must have;
/// `Ok(Err)` a comment, `Err` a raised error.
#[allow(clippy::type_complexity)]
fn fetch_remote(
    m: &Managed,
    url: &str,
) -> Result<Result<(Vec<u8>, Option<SourceSum>), String>, String> {
    let f = m.fetcher();
    let mut sum: Option<SourceSum> = None;
    if !m.skip_verify {
        let Some(h) = &m.source_hash else {
            return Ok(Err(format!(
                "Unable to verify upstream hash of source file {}, please set source_hash or set skip_verify to True",
                remote::redact(url)
            )));
        };
        match get_source_sum(&f, &m.name, url, h, m.source_hash_name.as_deref()) {
            Ok(s) => sum = Some(s),
            Err(SumError::Invalid(e)) => return Ok(Err(e)),
            Err(SumError::Fetch(e)) => return Err(e),
        }
    }
    let mut sfn: Option<PathBuf> = None;
    if let Some(cached) = f.is_cached(url) {
        if m.source_hash.is_some() || m.skip_verify {
            let htype = sum
                .as_ref()
                .map_or_else(|| "sha256".to_string(), |s| s.hash_type.clone());
            let cached_sum = hash_path(&cached, &htype).ok().flatten().map(|(h, _)| h);
            if m.skip_verify {
                sum = Some(SourceSum {
                    hash_type: htype,
                    hsum: cached_sum,
                });
                sfn = Some(cached);
            } else if cached_sum.is_some()
                && cached_sum == sum.as_ref().and_then(|s| s.hsum.clone())
            {
                sfn = Some(cached);
            }
        }
    }
    let sfn = match sfn {
        Some(p) => p,
        None => {
            let want = sum.as_ref().and_then(|s| s.hsum.as_deref());
            match f.cache_file(url, want) {
                Ok(p) => p,
                Err(e) => return Ok(Err(format!("Failed to cache {}: {e}", remote::redact(url)))),
            }
        }
    };
    if !sfn.exists() {
        return Ok(Err(format!(
            "Source file '{}' not found",
            remote::redact(url)
        )));
    }
    let bytes = std::fs::read(&sfn).map_err(|e| fsutil::py_os_error(&e, &sfn))?;
    if !m.keep_source && !m.test {
        // Salt drops the cached download once the file is managed.
        let _ = std::fs::remove_file(&sfn);
    }
    Ok(Ok((bytes, sum)))
}

/// What a `source` template sees besides grains/pillar/opts: the state's
/// `name`, `source`, `user`, `group`, `mode`, `attrs`, the chunk's extra
/// keyword arguments, then `defaults`/`context` over them.
fn template_vars(m: &Managed, source: &Source) -> Vec<(String, Value)> {
    let owner = |o: &Option<Owner>| o.as_ref().map(Owner::to_value).unwrap_or(Value::Null);
    let mut vars: Map = Map::default();
    for (k, v) in m.call.low {
        if !MANAGED_PARAMS.contains(&k.as_str()) && !is_internal_keyword(k) {
            vars.insert(k.clone(), v.clone());
        }
    }
    vars.insert("name".into(), Value::Str(m.name.clone()));
    vars.insert("source".into(), Value::Str(source.url().to_string()));
    vars.insert("user".into(), owner(&m.user));
    vars.insert("group".into(), owner(&m.group));
    vars.insert(
        "mode".into(),
        m.mode.clone().map(Value::Str).unwrap_or(Value::Null),
    );
    vars.insert(
        "attrs".into(),
        m.call.low.get("attrs").cloned().unwrap_or(Value::Null),
    );
    for (k, v) in merge_context(m.defaults.as_ref(), m.context.as_ref()) {
        vars.insert(k, v);
    }
    vars.into_iter().collect()
}

/// Salt's `file.get_diff` of two contents: `""` when equal, a note for
/// binary data, else the unified diff.
fn get_diff(old: &[u8], new: &[u8], show_changes: bool) -> String {
    if difflib::split_keep_newline(old) == difflib::split_keep_newline(new) {
        return String::new();
    }
    if !show_changes {
        return "<show_changes=False>".into();
    }
    let (old_bin, new_bin) = (!fsutil::is_text_bytes(old), !fsutil::is_text_bytes(new));
    match (old_bin, new_bin) {
        (true, true) => "Replace binary file".into(),
        (true, false) => "Replace binary file with text file".into(),
        (false, true) => "Replace text file with binary file".into(),
        (false, false) => difflib::diff_bytes(old, new),
    }
}

fn obfuscate_templates(m: &Managed) -> bool {
    m.call
        .ctx
        .opts
        .get("obfuscate_templates")
        .is_some_and(Value::is_truthy)
}

/// Salt's `file.check_managed_changes` + `check_file_meta` (test mode):
/// what would change, or the failure comment.
fn check_managed_changes(m: &Managed) -> Result<Map, String> {
    let mut fetched = Fetched {
        data: None,
        sum: None,
    };
    let mut mode = m.mode.clone();
    if m.contents.is_none() {
        fetched = match get_managed(m) {
            Ok(Ok(f)) => f,
            Ok(Err(comment)) => return Err(comment),
            // Salt's test mode calls get_managed unguarded: a source or
            // hash that cannot be fetched raises out of the state.
            Err(e) => return Err(crate::raised(format!("salt.exceptions.MinionError: {e}"))),
        };
        if m.keep_mode {
            if let Some(src_mode) = m.source.as_ref().and_then(|s| source_mode(m, s)) {
                mode = Some(src_mode);
            }
        }
    }
    let name = Path::new(&m.name);
    let mut changes = Map::default();
    let Ok(lstats) = fsutil::stats(name, m.follow_symlinks) else {
        changes.insert("newfile".into(), Value::Str(m.name.clone()));
        return Ok(changes);
    };
    let current = std::fs::read(name).unwrap_or_default();
    if let Some(SourceSum {
        hash_type,
        hsum: Some(hsum),
    }) = &fetched.sum
    {
        if fsutil::hash_hex(hash_type, &current).as_deref() != Some(hsum.as_str()) {
            match &fetched.data {
                Some(new) => {
                    let d = if obfuscate_templates(m) {
                        "<Obfuscated Template>".to_string()
                    } else {
                        get_diff(&current, new, true)
                    };
                    changes.insert("diff".into(), Value::Str(d));
                }
                None => {
                    changes.insert("sum".into(), Value::Str("Checksum differs".into()));
                }
            }
        }
    }
    if let Some(contents) = &m.contents {
        let d = get_diff(&current, contents, true);
        if !d.is_empty() {
            let d = if obfuscate_templates(m) {
                "<Obfuscated Template>".to_string()
            } else {
                d
            };
            changes.insert("diff".into(), Value::Str(d));
        }
    }
    if let Some(u) = &m.user {
        if !u.matches(&lstats.user, lstats.uid) {
            changes.insert("user".into(), u.to_value());
        }
    }
    if let Some(g) = &m.group {
        if !g.matches(&lstats.group, lstats.gid) {
            changes.insert("group".into(), g.to_value());
        }
    }
    if let Some(mode) = mode.map(|m| fsutil::normalize_mode_str(&m)) {
        if mode != lstats.mode {
            changes.insert("mode".into(), Value::Str(mode));
        }
    }
    Ok(changes)
}

/// The mode of the source file itself (`keep` mode).
fn source_mode(m: &Managed, source: &Source) -> Option<String> {
    let path: PathBuf = match source {
        Source::Salt(url) => m.call.ctx.fileclient.cache_file(url, &m.saltenv).ok()?,
        Source::Local { path, .. } => PathBuf::from(path),
        Source::Remote(_) => return None,
    };
    fsutil::stats(&path, true).ok().map(|s| s.mode)
}

/// Salt's `file.manage_file`: put the new contents in place (atomically),
/// then owner and mode, recording what changed.
fn manage_file(m: &Managed, mut ret: StateReturn, fetched: Fetched) -> StateReturn {
    let name = Path::new(&m.name);
    let nm = m.name.as_str();
    let check_web_source_hash = m.source.as_ref().is_some_and(|s| !s.is_salt()) && !m.skip_verify;
    let mut mode = m.mode.clone();
    if m.keep_mode {
        if let Some(src_mode) = m.source.as_ref().and_then(|s| source_mode(m, s)) {
            mode = Some(src_mode);
        }
    }
    let data = fetched.data;
    let sum = fetched.sum.unwrap_or(SourceSum {
        hash_type: "sha256".into(),
        hsum: None,
    });
    let is_link = std::fs::symlink_metadata(name)
        .map(|md| md.file_type().is_symlink())
        .unwrap_or(false);

    if name.is_file() || is_link {
        let real_name: PathBuf = if is_link && m.follow_symlinks {
            std::fs::canonicalize(name).unwrap_or_else(|_| name.to_path_buf())
        } else {
            name.to_path_buf()
        };
        let current = std::fs::read(&real_name).ok();
        if let Some(source) = &m.source {
            let name_sum = current
                .as_ref()
                .filter(|_| m.follow_symlinks || !is_link)
                .and_then(|c| fsutil::hash_hex(&sum.hash_type, c));
            let differs = match (&name_sum, &sum.hsum) {
                (Some(have), Some(want)) => have != want,
                _ => true,
            };
            if differs {
                let Some(new) = &data else {
                    return failed(nm, format!("Source file '{}' not found", source.url()));
                };
                if check_web_source_hash {
                    let dl_sum = fsutil::hash_hex(&sum.hash_type, new).unwrap_or_default();
                    if let Some(want) = &sum.hsum {
                        if dl_sum != *want {
                            ret.result = Some(false);
                            ret.comment = format!(
                                "Specified {} checksum for {} ({want}) does not match actual checksum ({dl_sum}). If the 'source_hash' value refers to a remote file with multiple possible matches, then it may be necessary to set 'source_hash_name'.",
                                sum.hash_type,
                                source.url()
                            );
                            return ret;
                        }
                    }
                }
                if obfuscate_templates(m) {
                    ret.changes
                        .insert("diff".into(), Value::Str("<Obfuscated Template>".into()));
                } else if !m.show_changes {
                    ret.changes
                        .insert("diff".into(), Value::Str("<show_changes=False>".into()));
                } else {
                    let d = get_diff(current.as_deref().unwrap_or_default(), new, true);
                    if !d.is_empty() {
                        ret.changes.insert("diff".into(), Value::Str(d));
                    }
                }
                if let Err(e) = fsutil::write_atomic(&real_name, new) {
                    return failed(
                        nm,
                        format!(
                            "Failed to commit change: {}",
                            fsutil::py_os_error(&e, &real_name)
                        ),
                    );
                }
            }
        }
        if let Some(contents) = &m.contents {
            let d = get_diff(
                current.as_deref().unwrap_or_default(),
                contents,
                m.show_changes,
            );
            if !d.is_empty() {
                ret.changes.insert("diff".into(), Value::Str(d));
                if let Err(e) = fsutil::write_atomic(&real_name, contents) {
                    return failed(
                        nm,
                        format!(
                            "Failed to commit change: {}",
                            fsutil::py_os_error(&e, &real_name)
                        ),
                    );
                }
            }
        }
        // Writing through the path above may already have replaced the link.
        if name.is_symlink() && !m.follow_symlinks {
            let new = data.clone().or_else(|| m.contents.clone());
            let Some(new) = new else {
                return failed(nm, "Source file 'None' not found");
            };
            // Replace the link itself by a regular file.
            let _ = std::fs::remove_file(name);
            if let Err(e) = fsutil::write_atomic(name, &new) {
                return failed(
                    nm,
                    format!("Failed to commit change: {}", fsutil::py_os_error(&e, name)),
                );
            }
            ret.changes.insert(
                "diff".into(),
                Value::Str("Replace symbolic link with regular file".into()),
            );
        }
        if let Err(e) = check_perms(
            name,
            &mut ret,
            m.user.as_ref(),
            m.group.as_ref(),
            mode.as_deref(),
            m.follow_symlinks,
            false,
        ) {
            return failed(nm, format!("Unable to manage file: {e}"));
        }
        if !ret.changes.is_empty() {
            ret.comment = format!("File {nm} updated");
        } else if ret.result == Some(true) {
            ret.comment = format!("File {nm} is in the correct state");
        }
        return ret;
    }

    // A new file.
    let contain_dir = fsutil::dirname(nm);
    let make_dirs = |ret: &mut StateReturn| -> Result<(), Box<StateReturn>> {
        if Path::new(&contain_dir).is_dir() {
            return Ok(());
        }
        if !m.makedirs {
            ret.changes.shift_remove("diff");
            return Err(Box::new(failed(nm, "Parent directory not present")));
        }
        // Directories get the file's mode plus search (x) bits unless
        // `dir_mode` says otherwise.
        let dir_mode = m.dir_mode.clone().or_else(|| {
            mode.as_ref().map(|md| {
                let digits: Vec<char> = md.chars().collect();
                let start = digits.len().saturating_sub(3);
                digits[start..]
                    .iter()
                    .map(|c| match c.to_digit(10) {
                        Some(0) | None => *c,
                        Some(d) => char::from_digit(d | 1, 10).unwrap_or(*c),
                    })
                    .collect()
            })
        });
        fsutil::makedirs_for(nm, m.user.as_ref(), m.group.as_ref(), dir_mode.as_deref()).map_err(
            |e| {
                Box::new(failed(
                    nm,
                    format!(
                        "Unable to manage file: {}",
                        fsutil::py_os_error(&e, Path::new(&contain_dir))
                    ),
                ))
            },
        )
    };

    if let Some(source) = &m.source {
        let Some(new) = &data else {
            return failed(nm, format!("Source file '{}' not found", source.url()));
        };
        if check_web_source_hash {
            let dl_sum = fsutil::hash_hex(&sum.hash_type, new).unwrap_or_default();
            if let Some(want) = &sum.hsum {
                if dl_sum != *want {
                    ret.result = Some(false);
                    ret.comment = format!(
                        "Specified {} checksum for {nm} ({want}) does not match actual checksum ({dl_sum})",
                        sum.hash_type
                    );
                    return ret;
                }
            }
        }
        ret.changes
            .insert("diff".into(), Value::Str("New file".into()));
        if let Err(r) = make_dirs(&mut ret) {
            return *r;
        }
        // Like Salt's copy through a fresh temporary file: mode 0600 until
        // the permissions are set below.
        if let Err(e) = fsutil::write_atomic(name, new) {
            return failed(
                nm,
                format!("Failed to commit change: {}", fsutil::py_os_error(&e, name)),
            );
        }
    } else {
        if let Err(r) = make_dirs(&mut ret) {
            return *r;
        }
        // Salt touches the file first under umask 077 when a mode is asked,
        // else under the process umask; the contents keep that mode.
        let initial = if mode.is_some() {
            "0600".to_string()
        } else {
            fsutil::default_file_mode()
        };
        let bytes = m.contents.as_deref().unwrap_or_default();
        if let Err(e) = fsutil::write_atomic(name, bytes) {
            let what = if m.contents.is_some() {
                "File"
            } else {
                "Empty file"
            };
            return failed(
                nm,
                format!("{what} {nm} not created: {}", fsutil::py_os_error(&e, name)),
            );
        }
        fsutil::set_mode(name, &initial);
        if m.contents.is_none() {
            ret.changes
                .insert("new".into(), Value::Str(format!("file {nm} created")));
            ret.comment = "Empty file".into();
        } else {
            ret.changes
                .insert("diff".into(), Value::Str("New file".into()));
        }
    }
    let mode = mode.unwrap_or_else(fsutil::default_file_mode);
    if let Err(e) = check_perms(
        name,
        &mut ret,
        m.user.as_ref(),
        m.group.as_ref(),
        Some(&mode),
        false,
        false,
    ) {
        return failed(nm, format!("Unable to manage file: {e}"));
    }
    if ret.comment.is_empty() {
        ret.comment = format!("File {nm} updated");
    }
    if m.test {
        ret.comment = format!("File {nm} not updated");
    } else if ret.changes.is_empty() && ret.result == Some(true) {
        ret.comment = format!("File {nm} is in the correct state");
    }
    ret
}

/// What `file.serialize` hands to Salt's `file.check_managed_changes` and
/// `file.manage_file`: new contents and the file's owner and mode.
pub struct ContentsSpec {
    pub name: String,
    pub contents: Vec<u8>,
    pub user: Option<Owner>,
    pub group: Option<Owner>,
    pub mode: Option<String>,
    pub makedirs: bool,
    pub show_changes: bool,
}

fn contents_managed<'a>(call: &'a StateCall<'a>, spec: ContentsSpec) -> Managed<'a> {
    Managed {
        call,
        name: spec.name,
        saltenv: state_saltenv(call),
        test: call.test,
        source: None,
        source_hash: None,
        user: spec.user,
        group: spec.group,
        mode: spec.mode,
        keep_mode: false,
        template: None,
        context: None,
        defaults: None,
        contents: Some(spec.contents),
        makedirs: spec.makedirs,
        dir_mode: None,
        show_changes: spec.show_changes,
        follow_symlinks: true,
        skip_verify: false,
        source_hash_name: None,
        verify_ssl: true,
        keep_source: true,
    }
}

/// Salt's `file.check_managed_changes` for given contents: what would
/// change, or the failure comment.
pub fn contents_changes(call: &StateCall, spec: ContentsSpec) -> Result<Map, String> {
    check_managed_changes(&contents_managed(call, spec))
}

/// Salt's `file.manage_file` for given contents, on the return `ret`.
pub fn manage_contents(call: &StateCall, spec: ContentsSpec, ret: StateReturn) -> StateReturn {
    let m = contents_managed(call, spec);
    manage_file(
        &m,
        ret,
        Fetched {
            data: None,
            sum: None,
        },
    )
}
