//! The `kmod` state module (Salt's `salt/states/kmod.py`): kernel modules
//! loaded or not, and kept in the persistence file or not ([`system`]).
//!
//! Where Salt walks Python sets (the modules already loaded, to load, to
//! unload), brine takes the order of `mods` (or NAME).

pub mod system;

use crate::{StateCall, StateFunction, StateModule, StateReturn};
use brine_core::sig;
use brine_core::Value;
use system::KmodError;

/// The `kmod` state module.
pub static MODULE: StateModule = StateModule {
    name: "kmod",
    doc: "Manage kernel modules: loaded (modprobe) or removed (rmmod), and kept \
across boots in /etc/modules-load.d/salt_managed.conf (or /etc/modules).",
    functions: &[
        StateFunction::new(
            "absent",
            sig!(name, persist = false, comment = true, mods = null),
            "The kernel module NAME (or each of MODS) is not loaded; PERSIST also \
takes it out of the persistence file (commented out unless COMMENT is false).",
            absent,
        ),
        StateFunction::new(
            "present",
            sig!(name, persist = false, mods = null),
            "The kernel module NAME (or each of MODS) is loaded; PERSIST also \
lists it in the persistence file.",
            present,
        ),
    ],
};

/// Salt's `_append_comment`.
fn append_comment(ret: &mut StateReturn, comment: &str) {
    if ret.comment.is_empty() {
        ret.comment = comment.to_string();
    } else {
        ret.comment = format!("{}\n{comment}", ret.comment.trim_end());
    }
}

/// NAME, or MODS when it is a list.
fn mods_of(call: &StateCall) -> Vec<String> {
    match call.arg("mods") {
        Some(Value::List(l)) => l.iter().map(Value::to_python_str).collect(),
        _ => vec![call.name().to_string()],
    }
}

fn raised(name: &str, e: &KmodError) -> StateReturn {
    let mut r = StateReturn::new(name);
    r.result = Some(false);
    r.comment = match e {
        KmodError::Failed(m) => {
            crate::raised(format!("salt.exceptions.CommandExecutionError: {m}"))
        }
        other => crate::raised(other),
    };
    r
}

/// "Kernel module X is ..." or "Kernel modules X, Y are ...".
fn modules_phrase(mods: &[String], one: &str, many: &str) -> String {
    if mods.len() == 1 {
        format!("Kernel module {} {one}", mods[0])
    } else {
        format!("Kernel modules {} {many}", mods.join(", "))
    }
}

fn present(call: &StateCall) -> StateReturn {
    let name = call.name().to_string();
    match present_run(call, &name) {
        Ok(r) => r,
        Err(e) => raised(&name, &e),
    }
}

fn present_run(call: &StateCall, name: &str) -> Result<StateReturn, KmodError> {
    let grains = &call.ctx.grains;
    let mods = mods_of(call);
    let persist = call.arg("persist").is_some_and(Value::is_truthy);
    let mut ret = StateReturn::new(name);
    let mut loaded = system::mod_list(false, grains)?;
    if persist {
        let persistent = system::mod_list(true, grains)?;
        loaded.retain(|m| persistent.contains(m));
    }
    let mut already: Vec<String> = mods
        .iter()
        .filter(|m| loaded.contains(m))
        .cloned()
        .collect();
    already.dedup();
    if !already.is_empty() {
        let c = modules_phrase(&already, "is already present", "are already present");
        append_comment(&mut ret, &c);
    }
    if already.len() == mods.len() {
        return Ok(ret);
    }
    let not_loaded: Vec<String> = mods
        .iter()
        .filter(|m| !already.contains(m))
        .cloned()
        .collect();
    if call.test {
        ret.result = None;
        if !ret.comment.is_empty() {
            ret.comment.push('\n');
        }
        let c = modules_phrase(&not_loaded, "is set to be loaded", "are set to be loaded");
        append_comment(&mut ret, &c);
        return Ok(ret);
    }
    let avail = system::available(grains);
    let unavailable: Vec<String> = not_loaded
        .iter()
        .filter(|m| !avail.contains(m))
        .cloned()
        .collect();
    if !unavailable.is_empty() {
        let c = modules_phrase(&unavailable, "is unavailable", "are unavailable");
        append_comment(&mut ret, &c);
        ret.result = Some(false);
    }
    let (mut yes, mut no, mut failed) = (Vec::new(), Vec::new(), Vec::new());
    let mut by_dependency: Vec<String> = Vec::new();
    for m in not_loaded.iter().filter(|m| !unavailable.contains(m)) {
        if by_dependency.contains(m) {
            yes.push(m.clone());
            continue;
        }
        match system::load(m, persist, grains)? {
            Ok(list) if !list.is_empty() => {
                for module in list {
                    ret.changes
                        .insert(module.clone(), Value::Str("loaded".into()));
                    if &module != m {
                        by_dependency.push(module);
                    }
                }
                yes.push(m.clone());
            }
            Ok(_) => {
                ret.result = Some(false);
                no.push(m.clone());
            }
            Err(msg) => {
                ret.result = Some(false);
                failed.push((m.clone(), msg));
            }
        }
    }
    if yes.len() == 1 {
        append_comment(&mut ret, &format!("Loaded kernel module {}", yes[0]));
    } else if yes.len() > 1 {
        append_comment(
            &mut ret,
            &format!("Loaded kernel modules {}", yes.join(", ")),
        );
    }
    if no.len() == 1 {
        append_comment(&mut ret, &format!("Failed to load kernel module {}", no[0]));
    } else if no.len() > 1 {
        append_comment(
            &mut ret,
            &format!("Failed to load kernel modules {}", no.join(", ")),
        );
    }
    for (m, msg) in failed {
        append_comment(
            &mut ret,
            &format!("Failed to load kernel module {m}: {msg}"),
        );
    }
    Ok(ret)
}

fn absent(call: &StateCall) -> StateReturn {
    let name = call.name().to_string();
    match absent_run(call, &name) {
        Ok(r) => r,
        Err(e) => raised(&name, &e),
    }
}

fn absent_run(call: &StateCall, name: &str) -> Result<StateReturn, KmodError> {
    let grains = &call.ctx.grains;
    let mods = mods_of(call);
    let persist = call.arg("persist").is_some_and(Value::is_truthy);
    let comment = call.arg("comment").is_none_or(Value::is_truthy);
    let mut ret = StateReturn::new(name);
    let mut loaded = system::mod_list(false, grains)?;
    if persist {
        loaded.extend(system::mod_list(true, grains)?);
    }
    let mut to_unload: Vec<String> = mods
        .iter()
        .filter(|m| loaded.contains(m))
        .cloned()
        .collect();
    to_unload.dedup();
    if to_unload.is_empty() {
        ret.comment = modules_phrase(&mods, "is already removed", "are already removed");
        return Ok(ret);
    }
    if call.test {
        ret.result = None;
        let c = modules_phrase(&to_unload, "is set to be removed", "are set to be removed");
        append_comment(&mut ret, &c);
        return Ok(ret);
    }
    let (mut yes, mut no, mut failed) = (Vec::new(), Vec::new(), Vec::new());
    for m in &to_unload {
        match system::remove(m, persist, comment, grains)? {
            Ok(list) if !list.is_empty() => {
                for module in list {
                    ret.changes.insert(module, Value::Str("removed".into()));
                }
                yes.push(m.clone());
            }
            Ok(_) => {
                ret.result = Some(false);
                no.push(m.clone());
            }
            Err(msg) => {
                ret.result = Some(false);
                failed.push((m.clone(), msg));
            }
        }
    }
    if yes.len() == 1 {
        append_comment(&mut ret, &format!("Removed kernel module {}", yes[0]));
    } else if yes.len() > 1 {
        append_comment(
            &mut ret,
            &format!("Removed kernel modules {}", yes.join(", ")),
        );
    }
    if no.len() == 1 {
        append_comment(
            &mut ret,
            &format!("Failed to remove kernel module {}", no[0]),
        );
    } else if no.len() > 1 {
        append_comment(
            &mut ret,
            &format!("Failed to remove kernel modules {}", no.join(", ")),
        );
    }
    for (m, msg) in failed {
        append_comment(
            &mut ret,
            &format!("Failed to remove kernel module {m}: {msg}"),
        );
    }
    Ok(ret)
}

#[cfg(test)]
mod tests {
    /// Salt's answers for the kmod scenarios of testdata/sys_cases.py: this
    /// container's kernel (no modules at all), and a simulated one (lsmod,
    /// modprobe and rmmod replaced by scripts, /lib/modules made up) in a
    /// private mount namespace, for the loading and persistence paths.
    #[test]
    fn kmod_states_match_salt() {
        super::super::sysreplay::run("kmod_", crate::modules::MODULES);
    }
}
