//! `pkgrepo.managed` / `pkgrepo.absent` on apt: Salt 3007.8's
//! `states/pkgrepo.py` with the `aptpkg` functions it calls (`get_repo`,
//! `_expand_repo_def`, `mod_repo`, `del_repo`), in their order and words.

use super::apt::{self, SourceEntry, SourcesList};
use super::root::RepoRoot;
use crate::modules::file::remote::Fetcher;
use crate::{StateCall, StateReturn};
use brine_core::{Map, Value};
use std::path::{Path, PathBuf};

/// Python's `str()` of a value as the state compares them.
fn py(v: Option<&Value>) -> String {
    v.map_or("None".to_string(), Value::to_python_str)
}

fn sorted_strs(v: Option<&Value>) -> Vec<String> {
    let mut out: Vec<String> = v
        .and_then(Value::as_list)
        .map(|l| l.iter().map(Value::to_python_str).collect())
        .unwrap_or_default();
    out.sort();
    out
}

/// A line's words with the components (from the fourth word on) sorted.
fn line_words(line: &str) -> Vec<String> {
    let mut w: Vec<String> = line.split_whitespace().map(str::to_string).collect();
    if w.len() > 3 {
        w[3..].sort();
    }
    w
}

/// Whether the entry the state asks for (`sanitized`) is already there as
/// `pre` (the state's loop over `sanitizedkwargs`).
fn already_configured(sanitized: &Map, pre: &Map) -> bool {
    for (k, want) in sanitized {
        let Some(have) = pre.get(k) else {
            return false;
        };
        match k.as_str() {
            "comps" => {
                if sorted_strs(Some(want)) != sorted_strs(Some(have)) {
                    return false;
                }
            }
            "line" => {
                if !sanitized.get("disabled").is_some_and(Value::is_truthy) {
                    let have_line = have.to_python_str();
                    let have_line = have_line.split('#').next().unwrap_or_default().trim();
                    if line_words(&want.to_python_str()) != line_words(have_line) {
                        return false;
                    }
                }
            }
            "architectures" if want.is_truthy() => {
                let set = |v: &Value| -> std::collections::BTreeSet<String> {
                    sorted_strs(Some(v)).into_iter().collect()
                };
                if set(want) != set(have) {
                    return false;
                }
            }
            _ => {
                if py(Some(want)) != py(Some(have)) {
                    return false;
                }
            }
        }
    }
    true
}

/// `pkgrepo.managed` on apt. `kwargs` are the state's keyword arguments
/// (`name` among them) without the state system's own.
pub fn managed(
    call: &StateCall,
    root: &RepoRoot,
    mut ret: StateReturn,
    name: &str,
    kwargs: Map,
    aptkey: bool,
) -> StateReturn {
    let repo = name.to_string();
    let pre = get_repo(root, &repo);
    let mut sanitized = apt::expand_repo_def(&repo, &kwargs);
    if let Some(pre) = &pre {
        let mut pre = pre.clone();
        pre.shift_remove("file");
        sanitized.shift_remove("file");
        if already_configured(&sanitized, &pre) {
            ret.result = Some(true);
            ret.comment = format!("Package repo '{name}' already configured");
            return ret;
        }
    }
    if call.test {
        ret.comment = format!("Package repo '{name}' would be configured. This may cause pkg states to behave differently than stated if this action is repeated without test=True, due to the differences in the configured repositories.");
        match &pre {
            Some(pre) => {
                for (k, v) in &sanitized {
                    if pre.get(k) != Some(v) {
                        ret.changes.insert(k.clone(), new_old(Some(v), pre.get(k)));
                    }
                }
            }
            None => {
                ret.changes.insert("repo".into(), Value::Str(name.into()));
            }
        }
        return ret;
    }
    if kwargs.get("clean_file").is_some_and(Value::is_truthy) {
        if let Some(f) = kwargs.get("file").and_then(Value::as_str) {
            if let Err(e) = std::fs::write(root.real(f), "") {
                ret.result = Some(false);
                ret.comment = format!("Failed to configure repo '{name}': {e}");
                return ret;
            }
        }
    }
    if let Err(e) = mod_repo(call, root, &repo, &kwargs, aptkey) {
        ret.result = Some(false);
        ret.comment = format!("Failed to configure repo '{name}': {e}");
        return ret;
    }
    let post = get_repo(root, &repo).unwrap_or_default();
    match &pre {
        Some(pre) => {
            for k in sanitized.keys() {
                if post.get(k) != pre.get(k) {
                    ret.changes
                        .insert(k.clone(), new_old(post.get(k), pre.get(k)));
                }
            }
        }
        None => {
            ret.changes.insert("repo".into(), Value::Str(repo.clone()));
        }
    }
    ret.result = Some(true);
    ret.comment = format!("Configured package repo '{name}'");
    ret
}

fn new_old(new: Option<&Value>, old: Option<&Value>) -> Value {
    let mut m = Map::default();
    m.insert("new".into(), new.cloned().unwrap_or(Value::Null));
    m.insert("old".into(), old.cloned().unwrap_or(Value::Null));
    Value::Map(m)
}

/// `aptpkg.get_repo` as a dict (`None` for Salt's `{}`).
fn get_repo(root: &RepoRoot, repo: &str) -> Option<Map> {
    let sources = SourcesList::read(root);
    apt::get_repo(&sources, repo).map(|e| e.to_map())
}

/// Salt's `aptpkg._decrypt_key`: an ASCII-armoured key made binary with
/// `gpg --dearmor` (next to it, `.decrypted` added); else the key as is.
fn decrypt_key(key: &Path) -> Result<PathBuf, String> {
    let head = std::fs::read(key).map_err(|e| e.to_string())?;
    let text = String::from_utf8_lossy(head.get(..64.min(head.len())).unwrap_or_default());
    if !text.trim_start_matches('-').starts_with("BEGIN PGP") {
        return Ok(key.to_path_buf());
    }
    let Some(gpg) = brine_host::path::which("gpg") else {
        return Err(format!("Error: Could not add key: {}", key.display()));
    };
    let mut out = key.as_os_str().to_owned();
    out.push(".decrypted");
    let out = PathBuf::from(out);
    let status = std::process::Command::new(gpg)
        .args(["--batch", "--yes", "--output"])
        .arg(&out)
        .arg("--dearmor")
        .arg(key)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .map_err(|e| e.to_string())?;
    if !status.success() {
        return Err(format!("Error: Could not add key: {}", key.display()));
    }
    Ok(out)
}

/// The key behind `key_url` put where apt finds it: the `signed-by` file
/// (through `gpg --dearmor` when armoured), or `apt-key add` on the host.
fn add_key(
    call: &StateCall,
    root: &RepoRoot,
    key_url: &str,
    signedby: &str,
    aptkey: bool,
) -> Result<(), String> {
    let saltenv = crate::modules::file::managed::state_saltenv(call);
    let fetcher = Fetcher {
        opts: &call.ctx.opts,
        client: call.ctx.fileclient.as_ref(),
        saltenv: &saltenv,
        verify_ssl: true,
    };
    let mut fn_ = fetcher.cache_file(key_url, None)?;
    // A local key is copied, never moved (Salt renames the file it got).
    let holder = tempfile::tempdir().map_err(|e| e.to_string())?;
    let wanted = Path::new(signedby).file_name().map(|n| n.to_os_string());
    if let Some(wanted) = wanted.filter(|w| Some(w.as_os_str()) != fn_.file_name()) {
        if crate::modules::file::remote::is_remote(key_url) {
            let new_path = fn_.with_file_name(&wanted);
            std::fs::rename(&fn_, &new_path).map_err(|e| e.to_string())?;
            fn_ = new_path;
        } else {
            let copy = holder.path().join(&wanted);
            std::fs::copy(&fn_, &copy).map_err(|e| e.to_string())?;
            fn_ = copy;
        }
    }
    if aptkey {
        if !root.is_host() {
            return Err("apt-key cannot add keys under a scratch root".into());
        }
        let out = std::process::Command::new("apt-key")
            .arg("add")
            .arg(&fn_)
            .output()
            .map_err(|e| e.to_string())?;
        if !String::from_utf8_lossy(&out.stdout)
            .to_uppercase()
            .starts_with("OK")
        {
            return Err(format!("Error: failed to add key from {key_url}"));
        }
        return Ok(());
    }
    let keydir = Path::new(signedby).parent().map_or_else(
        || "/etc/apt/keyrings".to_string(),
        |p| p.display().to_string(),
    );
    let real_dir = root.real(&keydir);
    let could_not = || format!("Error: Could not add key: {}", fn_.display());
    if !real_dir.is_dir() {
        return Err(could_not());
    }
    let key = decrypt_key(&fn_).map_err(|_| could_not())?;
    let mut keyfile = key
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    if let Some(k) = keyfile.strip_suffix(".decrypted") {
        keyfile = k.to_string();
    }
    std::fs::copy(&key, real_dir.join(keyfile)).map_err(|_| could_not())?;
    Ok(())
}

/// Salt's `aptpkg.mod_repo` (without PPAs and key servers).
fn mod_repo(
    call: &StateCall,
    root: &RepoRoot,
    repo: &str,
    kwargs: &Map,
    aptkey: bool,
) -> Result<(), String> {
    let refresh = kwargs
        .get("refresh_db")
        .or_else(|| kwargs.get("refresh"))
        .is_none_or(Value::is_truthy);
    if repo.starts_with("ppa:") {
        return Err(format!(
            "cannot parse \"ppa:\" style repo definitions: {repo}"
        ));
    }
    let mut sources = SourcesList::read(root);
    let entry = SourceEntry::new(repo, None);
    if entry.invalid {
        return Err(format!("Name {repo} is not valid. This must be the complete repo entry as seen in the sources file"));
    }
    let mut full_comps: Vec<String> = Vec::new();
    for c in &entry.comps {
        if !full_comps.contains(c) {
            full_comps.push(c.clone());
        }
    }
    let signedby = entry.signedby.clone();
    if !aptkey && signedby.is_empty() {
        return Err("missing 'signedby' option when apt-key is missing".into());
    }
    if kwargs.contains_key("keyid") {
        return Err("keyid/keyserver are not supported by brine: give key_url".into());
    } else if let Some(url) = kwargs.get("key_url") {
        add_key(call, root, &url.to_python_str(), &signedby, aptkey)?;
    } else if kwargs.contains_key("key_text") {
        return Err("key_text is not supported by brine: give key_url".into());
    }
    let comps: Vec<String> = match kwargs.get("comps") {
        Some(c) => {
            let list = apt::split_commas(c);
            for x in &list {
                if !full_comps.contains(x) {
                    full_comps.push(x.clone());
                }
            }
            list
        }
        None => full_comps.clone(),
    };
    let archs: Vec<String> = match kwargs.get("architectures") {
        Some(a) => apt::split_commas(a),
        None => entry.architectures.clone(),
    };
    let disabled = match (kwargs.get("disabled"), kwargs.get("enabled")) {
        (Some(d), _) => Some(d.is_truthy()),
        (None, Some(e)) => Some(!e.is_truthy()),
        _ => None,
    };
    let kw_type = kwargs.get("type").map(Value::to_python_str);
    let kw_dist = kwargs.get("dist").map(Value::to_python_str);
    let mut idx = None;
    for (i, s) in sources.list.iter().enumerate() {
        let repo_matches = s.kind == entry.kind
            && s.uri.trim_end_matches('/') == entry.uri.trim_end_matches('/')
            && s.dist == entry.dist;
        let kw_matches = kw_dist.as_deref() == Some(s.dist.as_str())
            && kw_type.as_deref() == Some(s.kind.as_str());
        if (repo_matches || kw_matches)
            && (full_comps.iter().any(|c| s.comps.contains(c))
                || s.comps.is_empty()
                || archs != s.architectures)
        {
            idx = Some(i);
            break;
        }
    }
    let comment = kwargs.get("comments").map(|c| match c {
        Value::List(l) => l
            .iter()
            .map(Value::to_python_str)
            .collect::<Vec<_>>()
            .join(" ")
            .trim()
            .to_string(),
        other => other.to_python_str().trim().to_string(),
    });
    let i = match idx {
        Some(i) => i,
        None => {
            sources.list.push(SourceEntry::new(repo, None));
            sources.list.len() - 1
        }
    };
    let Some(src) = sources.list.get_mut(i) else {
        return Err("internal error: no entry to modify".into());
    };
    if let Some(c) = comment {
        src.comment = c;
    }
    src.line = if repo.ends_with('\n') {
        repo.to_string()
    } else {
        format!("{repo}\n")
    };
    for (k, v) in kwargs {
        match k.as_str() {
            "uri" => src.uri = v.to_python_str(),
            "dist" => src.dist = v.to_python_str(),
            "file" => src.file = v.to_python_str(),
            _ => {}
        }
    }
    src.comps = comps;
    src.architectures = archs;
    src.signedby = signedby;
    if let Some(d) = disabled {
        src.disabled = d;
    }
    if src.uri != entry.uri {
        src.uri = entry.uri.clone();
        src.line = src.repo_line();
    }
    sources.save(root).map_err(|e| e.to_string())?;
    if refresh {
        let _ = (root.refresh)(call.ctx);
    }
    Ok(())
}

/// `pkgrepo.absent` on apt.
pub fn absent(call: &StateCall, root: &RepoRoot, mut ret: StateReturn, name: &str) -> StateReturn {
    let stripname = apt::strip_uri(name);
    let sources = SourcesList::read(root);
    let mut repo = apt::get_repo(&sources, &stripname);
    if let Some(r) = &repo {
        let want: std::collections::BTreeSet<_> = SourceEntry::new(&stripname, None)
            .architectures
            .into_iter()
            .collect();
        let have: std::collections::BTreeSet<_> = r.architectures.iter().cloned().collect();
        if want != have {
            repo = None;
        }
    }
    if repo.is_none() {
        ret.comment = format!("Package repo {name} is absent");
        ret.result = Some(true);
        return ret;
    }
    if call.test {
        ret.comment = format!("Package repo '{name}' will be removed. This may cause pkg states to behave differently than stated if this action is repeated without test=True, due to the differences in the configured repositories.");
        return ret;
    }
    if let Err(e) = del_repo(call, root, &stripname) {
        ret.result = Some(false);
        ret.comment = e;
        return ret;
    }
    ret.changes.insert("repo".into(), Value::Str(name.into()));
    ret.comment = format!("Removed repo {name}");
    ret.result = Some(true);
    ret
}

/// Salt's `aptpkg.del_repo`: the components named dropped from each
/// matching entry, entries left with none removed, a `sources.list.d`
/// file left empty deleted; then the package lists refreshed.
fn del_repo(call: &StateCall, root: &RepoRoot, repo: &str) -> Result<String, String> {
    let mut sources = SourcesList::read(root);
    let entry = SourceEntry::new(repo, None);
    let mut deleted_from: indexmap::IndexMap<String, usize> = indexmap::IndexMap::new();
    if sources.valid().next().is_some() {
        let mut keep = Vec::new();
        for mut s in std::mem::take(&mut sources.list) {
            let matches = !s.invalid
                && s.kind == entry.kind
                && s.architectures == entry.architectures
                && s.uri.trim_end_matches('/') == entry.uri.trim_end_matches('/')
                && s.dist == entry.dist;
            if matches {
                let shared = s.comps.iter().any(|c| entry.comps.contains(c));
                if shared || (s.comps.is_empty() && entry.comps.is_empty()) {
                    deleted_from.insert(s.file.clone(), 0);
                    s.comps.retain(|c| !entry.comps.contains(c));
                    if s.comps.is_empty() {
                        continue;
                    }
                }
            }
            keep.push(s);
        }
        sources.list = keep;
        sources.save(root).map_err(|e| e.to_string())?;
    }
    if deleted_from.is_empty() {
        return Err(format!("Repo {repo} doesn't exist in the sources.list(s)"));
    }
    for s in &sources.list {
        if let Some(n) = deleted_from.get_mut(&s.file) {
            *n += 1;
        }
    }
    let mut out = String::new();
    for (file, count) in &deleted_from {
        let real = root.real(file);
        if *count == 0 && file.contains("sources.list.d/") && real.is_file() {
            let _ = std::fs::remove_file(&real);
            out.push_str(&format!(
                "File {file} containing repo '{repo}' has been removed."
            ));
        } else {
            out.push_str(&format!("Repo '{repo}' has been removed from {file}.\n"));
        }
    }
    let _ = (root.refresh)(call.ctx);
    Ok(out)
}
