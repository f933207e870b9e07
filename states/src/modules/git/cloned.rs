//! `git.cloned`: a clone at the target (checked out to a branch, when
//! one is named), nothing more: no fetches, no updates.

use super::cmd::Git;
use super::common::{arg_str, format_comments};
use crate::{StateCall, StateReturn};
use brine_core::{Map, Value};
use std::path::Path;

pub fn cloned(call: &StateCall) -> StateReturn {
    let name = call.name().to_string();
    let mut r = StateReturn::new(&name);
    r.result = Some(false);
    let Some(target) = arg_str(call, "target") else {
        r.comment = "'target' argument is required".into();
        return r;
    };
    if !target.starts_with('/') {
        r.comment = "'target' path must be absolute".into();
        return r;
    }
    let branch = arg_str(call, "branch");
    if branch.as_deref() == Some("") {
        r.comment = "Invalid 'branch' argument".into();
        return r;
    }
    let identity = match call.arg("identity") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::List(l)) => l.iter().map(Value::to_python_str).collect(),
        Some(v) => vec![v.to_python_str()],
    };
    let git = Git {
        user: arg_str(call, "user"),
        identity,
    };
    let path = Path::new(&target);
    let need_clone = !path.exists();
    if !need_clone {
        if let Err(e) = git.status(path) {
            r.comment = e.to_string();
            return r;
        }
    }
    let with_branch = branch
        .as_ref()
        .map(|b| format!(" with branch '{b}'"))
        .unwrap_or_default();
    let new = Value::Str(format!("{name} => {target}"));
    if need_clone {
        if call.test {
            r.changes.insert("new".into(), new);
            r.result = None;
            r.comment = format!("{name} would be cloned to {target}{with_branch}");
            return r;
        }
        let opts: Vec<String> = match &branch {
            Some(b) => vec!["--branch".into(), b.clone()],
            None => Vec::new(),
        };
        if let Err(e) = git.clone(path, &name, None, &opts) {
            r.comment = format!("Clone failed: {}", e.stripped());
            return r;
        }
        r.changes.insert("new".into(), new);
        r.comment = format_comments(&[format!("{name} cloned to {target}{with_branch}")]);
        r.result = Some(true);
        return r;
    }
    let already = |mut r: StateReturn, branch: Option<&str>| {
        r.result = Some(true);
        r.comment = format!(
            "Repository already exists at {target}{}",
            branch
                .map(|b| format!(" and is checked out to branch '{b}'"))
                .unwrap_or_default()
        );
        r
    };
    let Some(branch) = branch else {
        return already(r, None);
    };
    let current = git.current_branch(path).unwrap_or_default();
    if current == branch {
        return already(r, Some(&branch));
    }
    let mut change = Map::default();
    change.insert("old".into(), Value::Str(current.clone()));
    change.insert("new".into(), Value::Str(branch.clone()));
    if call.test {
        r.changes.insert("branch".into(), Value::Map(change));
        r.result = None;
        r.comment = format!("Branch would be changed to '{branch}'");
        return r;
    }
    let (rev, opts) = match git.rev_parse(path, &branch, &[]) {
        Ok(_) => (branch.clone(), Vec::new()),
        Err(_) => (
            format!("origin/{branch}"),
            vec!["-b".to_string(), branch.clone()],
        ),
    };
    if let Err(e) = git.checkout(path, Some(&rev), false, &opts) {
        r.comment = format!("Failed to change branch to '{branch}': {e}");
        return r;
    }
    r.changes.insert("branch".into(), Value::Map(change));
    r.comment = format_comments(&[format!("Branch changed to '{branch}'")]);
    r.result = Some(true);
    r
}
