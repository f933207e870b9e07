//! The `alternatives` state module (Salt's `salt/states/alternatives.py`):
//! alternatives installed, removed, set, or back in auto mode, through
//! the logic the `alternatives` execution module shares ([`system`]).

pub mod system;

use crate::{StateCall, StateFunction, StateModule, StateReturn};
use brine_core::sig;
use brine_core::{Map, Value};
use system::AltError;

/// The `alternatives` state module.
pub static MODULE: StateModule = StateModule {
    name: "alternatives",
    doc: "Manage the alternatives system (update-alternatives): which program a \
generic name such as editor or pager runs.",
    functions: &[
        StateFunction::new(
            "auto",
            sig!(name),
            "The link group NAME is in auto mode (its highest priority \
alternative).",
            auto,
        ),
        StateFunction::new(
            "install",
            sig!(name, link, path, priority),
            "PATH is an alternative of the link group NAME (whose master link is \
LINK) with PRIORITY.",
            install,
        ),
        StateFunction::new(
            "remove",
            sig!(name, path),
            "PATH is not an alternative of the link group NAME.",
            remove,
        ),
        StateFunction::new(
            "set",
            sig!(name, path),
            "The link group NAME points at PATH, one of its alternatives.",
            set,
        ),
    ],
};

fn family(call: &StateCall) -> String {
    call.ctx
        .grains
        .get("os_family")
        .map(Value::to_python_str)
        .unwrap_or_default()
}

fn text(call: &StateCall, key: &str) -> String {
    call.arg(key).map(Value::to_python_str).unwrap_or_default()
}

fn raised(name: &str, e: &AltError) -> StateReturn {
    let mut r = StateReturn::new(name);
    r.result = Some(false);
    r.comment = crate::raised(e);
    r
}

fn install(call: &StateCall) -> StateReturn {
    let name = call.name().to_string();
    let fam = family(call);
    let (link, path) = (text(call, "link"), text(call, "path"));
    let priority = call.arg("priority").cloned().unwrap_or(Value::Null);
    let prio = priority.to_python_str();
    let mut ret = StateReturn::new(&name);
    ret.extra.insert("link".into(), Value::Str(link.clone()));
    ret.extra.insert("path".into(), Value::Str(path.clone()));
    ret.extra.insert("priority".into(), priority.clone());
    let res = (|| -> Result<(), AltError> {
        if system::check_exists(&fam, &name, &path)? {
            ret.comment = format!("Alternative {path} for {name} is already registered");
            return Ok(());
        }
        if call.test {
            ret.comment =
                format!("Alternative will be set for {name} to {path} with priority {prio}");
            ret.result = None;
            return Ok(());
        }
        let out = system::install(&fam, &name, &link, &path, &prio)?;
        if !system::check_exists(&fam, &name, &path)? {
            ret.result = Some(false);
            ret.comment = format!("Alternative for {name} not installed: {out}");
            return Ok(());
        }
        ret.comment = if system::check_installed(&name, &path) {
            format!("Alternative for {name} set to path {path} with priority {prio}")
        } else {
            format!(
                "Alternative {path} for {name} registered with priority {prio} and not set to default"
            )
        };
        let mut changes = Map::default();
        changes.insert("name".into(), Value::Str(name.clone()));
        changes.insert("link".into(), Value::Str(link.clone()));
        changes.insert("path".into(), Value::Str(path.clone()));
        changes.insert("priority".into(), priority.clone());
        ret.changes = changes;
        Ok(())
    })();
    match res {
        Ok(()) => ret,
        Err(e) => raised(&name, &e),
    }
}

fn path_changes(path: &str) -> Map {
    let mut m = Map::default();
    m.insert("path".into(), Value::Str(path.to_string()));
    m
}

fn remove(call: &StateCall) -> StateReturn {
    let name = call.name().to_string();
    let fam = family(call);
    let path = text(call, "path");
    let mut ret = StateReturn::new(&name);
    ret.extra.insert("path".into(), Value::Str(path.clone()));
    let installed = match system::check_exists(&fam, &name, &path) {
        Ok(b) => b,
        Err(e) => return raised(&name, &e),
    };
    if installed {
        if call.test {
            ret.comment = format!("Alternative for {name} will be removed");
            ret.result = None;
            return ret;
        }
        if let Err(e) = system::remove(&fam, &name, &path) {
            return raised(&name, &e);
        }
        match system::show_current(&name).filter(|c| !c.is_empty()) {
            Some(current) => {
                ret.comment =
                    format!("Alternative for {name} removed. Falling back to path {current}");
                ret.changes = path_changes(&current);
            }
            None => ret.comment = format!("Alternative for {name} removed"),
        }
        return ret;
    }
    match system::show_current(&name).filter(|c| !c.is_empty()) {
        Some(current) => {
            ret.comment = format!("Alternative for {name} is set to it's default path {current}");
        }
        None => {
            ret.result = Some(false);
            ret.comment = format!("Alternative for {name} doesn't exist");
        }
    }
    ret
}

fn auto(call: &StateCall) -> StateReturn {
    let name = call.name().to_string();
    let fam = family(call);
    let mut ret = StateReturn::new(&name);
    let display = match system::display(&fam, &name) {
        Ok(d) => d,
        Err(e) => return raised(&name, &e),
    };
    let Some(first) = display.lines().next() else {
        // Salt indexes the first line of an empty answer.
        ret.result = Some(false);
        ret.comment = crate::raised("IndexError: list index out of range");
        return ret;
    };
    if first.ends_with(" auto mode") {
        ret.comment = format!("{name} already in auto mode");
        return ret;
    }
    if call.test {
        ret.comment = format!("{name} will be put in auto mode");
        ret.result = None;
        return ret;
    }
    match system::auto(&fam, &name) {
        Ok(out) => {
            ret.changes.insert("result".into(), Value::Str(out));
        }
        Err(e) => return raised(&name, &e),
    }
    ret
}

fn set(call: &StateCall) -> StateReturn {
    let name = call.name().to_string();
    let fam = family(call);
    let path = text(call, "path");
    let mut ret = StateReturn::new(&name);
    ret.extra.insert("path".into(), Value::Str(path.clone()));
    if system::show_current(&name).as_deref() == Some(path.as_str()) {
        ret.comment = format!("Alternative for {name} already set to {path}");
        return ret;
    }
    let display = match system::display(&fam, &name) {
        Ok(d) => d,
        Err(e) => return raised(&name, &e),
    };
    if !display.lines().any(|l| l.starts_with(&path)) {
        ret.result = Some(false);
        ret.comment = format!("Alternative {path} for {name} doesn't exist");
        return ret;
    }
    if call.test {
        ret.comment = format!("Alternative for {name} will be set to path {path}");
        ret.result = None;
        return ret;
    }
    if let Err(e) = system::set(&fam, &name, &path) {
        return raised(&name, &e);
    }
    match system::show_current(&name) {
        Some(current) if current == path => {
            ret.comment = format!("Alternative for {name} set to path {current}");
            ret.changes = path_changes(&current);
        }
        _ => ret.comment = format!("Alternative for {name} not updated"),
    }
    ret
}

#[cfg(test)]
mod tests {
    /// Salt's answers for the alternatives scenarios of
    /// testdata/sys_cases.py: a throwaway link group, with /etc and
    /// /var/lib/dpkg overlays in a private mount namespace.
    #[test]
    fn alternatives_states_match_salt() {
        super::super::sysreplay::run("alternatives_", crate::modules::MODULES);
    }
}
