//! The `sysctl` state module (Salt's `salt/states/sysctl.py`): a kernel
//! parameter set now and persisted in a configuration file, through the
//! logic the `sysctl` execution module shares ([`kernel`]).

pub mod kernel;

use crate::{StateCall, StateFunction, StateModule, StateReturn};
use brine_core::sig;
use brine_core::{Map, Value};
use kernel::Configured;

/// The `sysctl` state module.
pub static MODULE: StateModule = StateModule {
    name: "sysctl",
    doc: "Manage kernel parameters: set now and kept in a sysctl configuration file.",
    functions: &[StateFunction::new(
        "present",
        sig!(name, value, config = null),
        "The kernel parameter NAME is VALUE now and in CONFIG (default \
/etc/sysctl.d/99-salt.conf under systemd, else /etc/sysctl.conf).",
        present,
    )],
};

/// Python's `re.sub(" +|\t+", " ", s)`.
fn spaces_folded(s: &str) -> String {
    let mut out = String::new();
    let mut prev: Option<char> = None;
    for c in s.chars() {
        let run = matches!(c, ' ' | '\t') && prev == Some(c);
        if !run {
            out.push(if c == '\t' { ' ' } else { c });
        }
        prev = Some(c);
    }
    out
}

fn present(call: &StateCall) -> StateReturn {
    let name = call.name().to_string();
    let value = call.arg("value").cloned().unwrap_or(Value::Null);
    let value_s = value.to_python_str();
    let config = call.arg("config").filter(|v| !v.is_null()).map_or_else(
        || kernel::default_config().to_string(),
        Value::to_python_str,
    );
    let mut ret = StateReturn::new(&name);
    if call.test {
        ret.result = None;
        let configured = match kernel::show_config(&config) {
            Configured::Unreadable => {
                ret.comment = format!(
                    "Sysctl option {name} might be changed, we failed to check config file at {config}. The file is either unreadable, or missing."
                );
                return ret;
            }
            Configured::Missing => Map::default(),
            Configured::Set(m) => m,
        };
        let current = match kernel::get(&name) {
            Ok(out) => out.stdout,
            Err(e) => {
                ret.result = Some(false);
                ret.comment = crate::raised(e);
                return ret;
            }
        };
        if !current.is_empty() {
            if configured.contains_key(&name) {
                let want: Vec<&str> = value_s.split_whitespace().collect();
                if want == current.split_whitespace().collect::<Vec<_>>() {
                    ret.result = Some(true);
                    ret.comment = format!("Sysctl value {name} = {value_s} is already set");
                    return ret;
                }
            } else if spaces_folded(&current) != spaces_folded(&value_s) {
                ret.comment = format!("Sysctl option {name} set to be changed to {value_s}");
                return ret;
            } else {
                ret.comment = format!(
                    "Sysctl value is currently set on the running system but not in a config file. Sysctl option {name} set to be changed to {value_s} in config file."
                );
                return ret;
            }
        } else if configured.contains_key(&name) {
            ret.comment = format!(
                "Sysctl value {name} is present in configuration file but is not present in the running config. The value {name} is set to be changed to {value_s}"
            );
            return ret;
        }
        ret.comment = format!("Sysctl option {name} would be changed to {value_s}");
        return ret;
    }
    match kernel::persist(&name, &value_s, &config) {
        Ok("Updated") => {
            ret.changes.insert(name.clone(), value);
            ret.comment = format!("Updated sysctl value {name} = {value_s}");
        }
        Ok(_) => ret.comment = format!("Sysctl value {name} = {value_s} is already set"),
        Err(e) => {
            ret.result = Some(false);
            ret.comment = format!("Failed to set {name} to {value_s}: {e}");
        }
    }
    ret
}

#[cfg(test)]
mod tests {
    /// Salt's answers for the sysctl scenarios of testdata/sys_cases.py:
    /// kernel.domainname set for real, in a private UTS namespace.
    #[test]
    fn sysctl_states_match_salt() {
        super::super::sysreplay::run("sysctl_", crate::modules::MODULES);
    }
}
