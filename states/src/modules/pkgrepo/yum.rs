//! `pkgrepo.managed` / `pkgrepo.absent` on dnf/yum: `.repo` files in
//! `/etc/yum.repos.d` (else `/etc/yum/repos.d`), as Salt 3007.8's
//! `yumpkg` reads them (Python's configparser: keys lowercased, values
//! kept as text) and writes them (every option of the state, booleans as
//! `1`/`0`). Written from Salt's source: this host has no dnf for Salt to
//! be recorded with.

use super::root::RepoRoot;
use crate::{StateCall, StateReturn};
use brine_core::{Map, Value};
use indexmap::IndexMap;

/// Where yum's configuration is looked for, in yum's order.
const CONFIGS: &[&str] = &[
    "/etc/yum/yum.conf",
    "/etc/yum.conf",
    "/etc/dnf/dnf.conf",
    "/etc/tdnf/tdnf.conf",
];

/// Salt's `_normalize_basedir` without a `basedir`: the `reposdir` of
/// yum's `[main]`, else `/etc/yum/repos.d` and `/etc/yum.repos.d`.
fn basedirs(root: &RepoRoot) -> Result<Vec<String>, String> {
    let Some(conf) = CONFIGS.iter().find(|c| root.real(c).exists()) else {
        let listed: Vec<String> = CONFIGS.iter().map(|c| format!("'{c}'")).collect();
        return Err(format!(
            "No suitable yum config file found in: ({})",
            listed.join(", ")
        ));
    };
    let text = std::fs::read_to_string(root.real(conf))
        .map_err(|e| format!("Unable to read from {conf}: {e}"))?;
    let dirs = parse(&text)
        .sections
        .get("main")
        .and_then(|m| m.get("reposdir"))
        .map(|v| {
            v.to_python_str()
                .split(',')
                .map(|d| d.trim().to_string())
                .collect::<Vec<_>>()
        })
        .unwrap_or_else(|| vec!["/etc/yum/repos.d".into(), "/etc/yum.repos.d".into()]);
    Ok(dirs)
}

/// One `.repo` file: the comment lines before the first section, and each
/// section's options (with `comments` for the comment lines inside it).
struct RepoFile {
    header: String,
    sections: IndexMap<String, IndexMap<String, Value>>,
}

/// Python's configparser on a `.repo` file (bounded in size).
fn parse(text: &str) -> RepoFile {
    let mut header = String::new();
    let mut sections: IndexMap<String, IndexMap<String, Value>> = IndexMap::new();
    let mut current: Option<String> = None;
    let mut last_key: Option<String> = None;
    for raw in text.lines().take(100_000) {
        let line = raw.trim();
        if line.starts_with('#') || line.starts_with(';') {
            match &current {
                None => {
                    header.push_str(line);
                    header.push('\n');
                }
                Some(s) => {
                    if let Some(sec) = sections.get_mut(s) {
                        let c = sec
                            .entry("comments".into())
                            .or_insert_with(|| Value::List(Vec::new()));
                        if let Value::List(l) = c {
                            l.push(Value::Str(line[1..].trim_start().to_string()));
                        }
                    }
                }
            }
            continue;
        }
        if line.is_empty() {
            last_key = None;
            continue;
        }
        if line.starts_with('[') && line.ends_with(']') {
            let name = line[1..line.len() - 1].to_string();
            sections.entry(name.clone()).or_default();
            current = Some(name);
            last_key = None;
            continue;
        }
        let Some(sec) = current.as_ref().and_then(|s| sections.get_mut(s)) else {
            continue;
        };
        if raw.starts_with([' ', '\t']) {
            if let Some(Value::Str(v)) = last_key.as_ref().and_then(|k| sec.get_mut(k)) {
                v.push('\n');
                v.push_str(line);
                continue;
            }
        }
        let split = line.find(['=', ':']);
        if let Some(i) = split {
            let key = line[..i].trim().to_lowercase();
            sec.insert(key.clone(), Value::Str(line[i + 1..].trim().to_string()));
            last_key = Some(key);
        }
    }
    RepoFile { header, sections }
}

/// Every repo id with its options and file (`yumpkg.list_repos`).
type Repos = IndexMap<String, (String, IndexMap<String, Value>)>;

fn list_repos(root: &RepoRoot, dirs: &[String]) -> Repos {
    let mut out = IndexMap::new();
    for dir in dirs {
        let Ok(rd) = std::fs::read_dir(root.real(dir)) else {
            continue;
        };
        let mut names: Vec<String> = rd
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".repo"))
            .collect();
        names.sort();
        for n in names {
            let file = format!("{dir}/{n}");
            let Ok(text) = std::fs::read_to_string(root.real(&file)) else {
                continue;
            };
            for (id, opts) in parse(&text).sections {
                out.insert(id, (file.clone(), opts));
            }
        }
    }
    out
}

/// A value as Salt writes it into a `.repo` file.
fn ini_value(v: &Value) -> String {
    match v {
        Value::Bool(b) => if *b { "1" } else { "0" }.to_string(),
        other => other
            .to_python_str()
            .split('\n')
            .collect::<Vec<_>>()
            .join("\n "),
    }
}

/// Salt's `combine_comments`: each comment on a line of its own after
/// `# `.
fn comments_line(v: Option<Value>) -> String {
    let list = match v {
        None => Vec::new(),
        Some(Value::List(l)) => l,
        Some(other) => vec![other],
    };
    list.iter()
        .map(|c| {
            let c = c.to_python_str();
            format!("# {}\n", c.trim_start_matches('#').trim_start())
        })
        .collect()
}

fn write(root: &RepoRoot, file: &str, rf: &RepoFile) -> std::io::Result<()> {
    let mut content = rf.header.clone();
    for (id, opts) in &rf.sections {
        let mut opts = opts.clone();
        let comments = comments_line(opts.shift_remove("comments"));
        content.push_str(&format!("[{id}]\n"));
        for (k, v) in &opts {
            content.push_str(&format!("{k}={}\n", ini_value(v)));
        }
        content.push_str(&comments);
        content.push('\n');
    }
    std::fs::write(root.real(file), content)
}

/// Salt's `is_true` of a `.repo` value or a state argument.
fn is_true(v: &Value) -> bool {
    match v {
        Value::Str(s) => s
            .trim()
            .parse::<i64>()
            .map_or_else(|_| s.trim().eq_ignore_ascii_case("true"), |i| i > 0),
        other => other.is_truthy(),
    }
}

pub fn managed(
    call: &StateCall,
    root: &RepoRoot,
    mut ret: StateReturn,
    name: &str,
    mut kwargs: Map,
    enabled: bool,
) -> StateReturn {
    let repo = name.to_string();
    let human = kwargs.shift_remove("humanname");
    kwargs.insert("name".into(), human.unwrap_or(Value::Str(name.into())));
    kwargs.insert("enabled".into(), Value::Bool(enabled));
    let dirs = match basedirs(root) {
        Ok(d) => d,
        Err(e) => {
            ret.result = Some(false);
            ret.comment = format!("Failed to examine repo '{name}': {e}");
            return ret;
        }
    };
    let repos = list_repos(root, &dirs);
    let pre = repos.get(&repo).map(|(_, o)| o.clone());
    if let Some(pre) = &pre {
        let mut same = true;
        for (k, want) in &kwargs {
            let Some(have) = pre.get(k) else {
                if k == "enabled" && is_true(want) {
                    continue;
                }
                same = false;
                break;
            };
            let equal = if k == "comments" {
                comments_line(Some(want.clone())) == comments_line(Some(have.clone()))
            } else if matches!(want, Value::Bool(_)) || matches!(have, Value::Bool(_)) {
                is_true(want) == is_true(have)
            } else {
                want.to_python_str() == have.to_python_str()
            };
            if !equal {
                same = false;
                break;
            }
        }
        if same {
            ret.result = Some(true);
            ret.comment = format!("Package repo '{name}' already configured");
            return ret;
        }
    }
    let new_old = |new: Option<&Value>, old: Option<&Value>| {
        let mut m = Map::default();
        m.insert("new".into(), new.cloned().unwrap_or(Value::Null));
        m.insert("old".into(), old.cloned().unwrap_or(Value::Null));
        Value::Map(m)
    };
    if call.test {
        ret.comment = format!("Package repo '{name}' would be configured. This may cause pkg states to behave differently than stated if this action is repeated without test=True, due to the differences in the configured repositories.");
        match &pre {
            Some(pre) => {
                for (k, v) in &kwargs {
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
    if let Err(e) = mod_repo(root, &repo, &kwargs, &repos, &dirs) {
        ret.result = Some(false);
        ret.comment = format!("Failed to configure repo '{name}': {e}");
        return ret;
    }
    let post = list_repos(root, &dirs).get(&repo).map(|(_, o)| o.clone());
    match &pre {
        Some(pre) => {
            for k in kwargs.keys() {
                let new = post.as_ref().and_then(|p| p.get(k));
                if new != pre.get(k) {
                    ret.changes.insert(k.clone(), new_old(new, pre.get(k)));
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

/// Salt's `yumpkg.mod_repo`.
fn mod_repo(
    root: &RepoRoot,
    repo: &str,
    kwargs: &Map,
    repos: &Repos,
    dirs: &[String],
) -> Result<(), String> {
    let mut opts: IndexMap<String, Value> = kwargs
        .iter()
        .filter(|(k, _)| !k.starts_with("__") && k.as_str() != "saltenv")
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    if opts.contains_key("mirrorlist") && opts.contains_key("baseurl") {
        return Err("Only one of 'mirrorlist' and 'baseurl' can be specified".into());
    }
    let mut todelete: Vec<String> = Vec::new();
    opts.retain(|k, v| {
        // Python's `v != 0 and not v`: False and 0.0 equal 0 and stay.
        let keep = matches!(v, Value::Int(0) | Value::Bool(false)) || v.is_truthy();
        if !keep {
            todelete.push(k.clone());
        }
        keep
    });
    if opts.contains_key("mirrorlist") {
        todelete.push("baseurl".into());
    } else if opts.contains_key("baseurl") {
        todelete.push("mirrorlist".into());
    }
    if todelete.iter().any(|k| k == "name") {
        return Err("The repo name cannot be deleted".into());
    }
    let (file, mut rf) = match repos.get(repo) {
        Some((file, _)) => {
            let text = std::fs::read_to_string(root.real(file)).map_err(|e| e.to_string())?;
            (file.clone(), parse(&text))
        }
        None => {
            let Some(dir) = dirs.iter().find(|d| root.real(d).exists()) else {
                return Err(format!("The repo does not exist and needs to be created, but none of the following basedir directories exist: {}", Value::List(dirs.iter().map(|d| Value::Str(d.clone())).collect()).to_python_repr()));
            };
            if !opts.contains_key("name") {
                return Err(
                    "The repo does not exist and needs to be created, but a name was not given"
                        .into(),
                );
            }
            if !opts.contains_key("baseurl") && !opts.contains_key("mirrorlist") {
                return Err("The repo does not exist and needs to be created, but either a baseurl or a mirrorlist needs to be given".into());
            }
            let mut rf = RepoFile {
                header: String::new(),
                sections: IndexMap::new(),
            };
            rf.sections.insert(repo.to_string(), IndexMap::new());
            (format!("{dir}/{repo}.repo"), rf)
        }
    };
    let section = rf.sections.entry(repo.to_string()).or_default();
    if todelete.iter().any(|k| k == "baseurl")
        && !opts.contains_key("mirrorlist")
        && !section.contains_key("mirrorlist")
    {
        return Err("Cannot delete baseurl without specifying mirrorlist".into());
    }
    if todelete.iter().any(|k| k == "mirrorlist")
        && !opts.contains_key("baseurl")
        && !section.contains_key("baseurl")
    {
        return Err("Cannot delete mirrorlist without specifying baseurl".into());
    }
    for k in &todelete {
        section.shift_remove(k);
    }
    for (k, v) in opts {
        section.insert(k, v);
    }
    write(root, &file, &rf).map_err(|e| e.to_string())
}

pub fn absent(call: &StateCall, root: &RepoRoot, mut ret: StateReturn, name: &str) -> StateReturn {
    let dirs = match basedirs(root) {
        Ok(d) => d,
        Err(e) => {
            ret.result = Some(false);
            ret.comment = format!("Failed to configure repo '{name}': {e}");
            return ret;
        }
    };
    let repos = list_repos(root, &dirs);
    let Some((file, _)) = repos.get(name) else {
        ret.comment = format!("Package repo {name} is absent");
        ret.result = Some(true);
        return ret;
    };
    if call.test {
        ret.comment = format!("Package repo '{name}' will be removed. This may cause pkg states to behave differently than stated if this action is repeated without test=True, due to the differences in the configured repositories.");
        return ret;
    }
    let only = !repos.iter().any(|(id, (f, _))| id != name && f == file);
    let result = if only {
        std::fs::remove_file(root.real(file)).map_err(|e| e.to_string())
    } else {
        std::fs::read_to_string(root.real(file))
            .map_err(|e| e.to_string())
            .and_then(|text| {
                let mut rf = parse(&text);
                rf.sections.shift_remove(name);
                write_removed(root, file, &rf).map_err(|e| e.to_string())
            })
    };
    if let Err(e) = result {
        ret.result = Some(false);
        ret.comment = e;
        return ret;
    }
    ret.changes.insert("repo".into(), Value::Str(name.into()));
    ret.comment = format!("Removed repo {name}");
    ret.result = Some(true);
    ret
}

/// `del_repo`'s rewrite of a file that keeps other repos: the header, then
/// each section after a blank line, its comments last.
fn write_removed(root: &RepoRoot, file: &str, rf: &RepoFile) -> std::io::Result<()> {
    let mut content = rf.header.clone();
    for (id, opts) in &rf.sections {
        let mut opts = opts.clone();
        let comments = comments_line(opts.shift_remove("comments"));
        content.push_str(&format!("\n[{id}]"));
        for (k, v) in &opts {
            content.push_str(&format!("\n{k}={}", ini_value(v)));
        }
        content.push_str(&format!("\n{comments}\n"));
    }
    std::fs::write(root.real(file), content)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repo_files_like_configparser() {
        let rf = parse(
            "# head\n[epel]\nName = EPEL\nbaseurl=http://x/\n  http://y/\n# note\nenabled=1\n",
        );
        assert_eq!(rf.header, "# head\n");
        let epel = &rf.sections["epel"];
        assert_eq!(epel["name"], Value::Str("EPEL".into()));
        assert_eq!(epel["baseurl"], Value::Str("http://x/\nhttp://y/".into()));
        assert_eq!(
            epel["comments"],
            Value::List(vec![Value::Str("note".into())])
        );
        assert!(is_true(&Value::Str("1".into())) && !is_true(&Value::Str("0".into())));
        assert_eq!(ini_value(&Value::Bool(true)), "1");
    }
}
