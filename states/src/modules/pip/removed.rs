//! `pip.removed`: a package uninstalled from the environment `bin_env`
//! names.

use super::cmd::words;
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
    let mut args: Vec<String> = vec!["uninstall".into(), "-y".into()];
    for f in words(&|k| call.arg(k), "requirements") {
        args.extend(["--requirement".into(), f]);
    }
    for (k, opt) in [
        ("log", "--log"),
        ("proxy", "--proxy"),
        ("timeout", "--timeout"),
    ] {
        if let Some(v) = call.arg(k).filter(|v| !v.is_null()) {
            args.extend([opt.into(), v.to_python_str()]);
        }
    }
    args.push(name.clone());
    // Salt reports success whatever pip answered.
    let _ = pip.run(&args, true, false);
    r.result = Some(true);
    r.changes.insert(name, Value::Str("Removed".into()));
    r.comment = "Package was successfully removed.".into();
    r
}
