//! `pip.removed`: a package uninstalled from the environment `bin_env`
//! names.

use super::cmd::uninstall_args;
use super::installed::pip_of;
use crate::{StateCall, StateReturn};
use brine_core::Value;

pub fn removed(call: &StateCall) -> StateReturn {
    let name = call.name().to_string();
    let mut r = StateReturn::new(&name);
    let listed = pip_of(call).and_then(|p| p.list(None).map(|l| (p, l)));
    let (pip, listed) = match listed {
        Ok(x) => x,
        Err(e) => {
            r.result = Some(false);
            r.comment = format!("Error uninstalling '{name}': {e}");
            return r;
        }
    };
    // Salt looks the name up exactly as pip prints it.
    if !listed.iter().any(|(n, _)| *n == name) {
        r.result = Some(true);
        r.comment = "Package is not installed.".into();
        return r;
    }
    if call.test {
        r.result = None;
        r.comment = format!("Package {name} is set to be removed");
        return r;
    }
    let args = uninstall_args(&|k| call.arg(k), std::slice::from_ref(&name));
    // Salt reports success whatever pip answered.
    let _ = pip.run(&args, true, false);
    r.result = Some(true);
    r.changes.insert(name, Value::Str("Removed".into()));
    r.comment = "Package was successfully removed.".into();
    r
}
