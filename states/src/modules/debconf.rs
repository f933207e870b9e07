//! The `debconf` state module (Salt's `salt/states/debconfmod.py`):
//! `set`, answers to debconf questions preseeded for a package
//! ([`selections`]). `set_file` is not here.

pub mod selections;

use crate::{StateCall, StateFunction, StateModule, StateReturn};
use brine_core::sig;
use brine_core::Value;

/// The `debconf` state module.
pub static MODULE: StateModule = StateModule {
    name: "debconf",
    doc: "Preseed answers to debconf questions (Debian; needs debconf-utils).",
    functions: &[StateFunction::new(
        "set",
        sig!(name, data, **kwargs),
        "The debconf questions of the package NAME have the answers of DATA \
(question: {type: ..., value: ...}).",
        set,
    )],
};

fn raised(name: &str, exc: String) -> StateReturn {
    let mut r = StateReturn::new(name);
    r.result = Some(false);
    r.comment = crate::raised(exc);
    r
}

fn set(call: &StateCall) -> StateReturn {
    let name = call.name().to_string();
    let mut ret = StateReturn::new(&name);
    let current = match selections::show(&name) {
        Ok(c) => c,
        Err(e) => return raised(&name, e.to_string()),
    };
    let data = match call.arg("data") {
        Some(Value::Map(m)) => m.clone(),
        Some(v) => {
            return raised(
                &name,
                format!(
                    "AttributeError: '{}' object has no attribute 'items'",
                    v.type_name()
                ),
            )
        }
        None => Default::default(),
    };
    for (key, args) in &data {
        let Value::Map(args) = args else {
            return raised(
                &name,
                format!(
                    "TypeError: '{}' object is not subscriptable",
                    args.type_name()
                ),
            );
        };
        let (Some(kind), Some(value)) = (args.get("type"), args.get("value")) else {
            let missing = if args.contains_key("type") {
                "value"
            } else {
                "type"
            };
            return raised(&name, format!("KeyError: '{missing}'"));
        };
        let kind = kind.to_python_str();
        // debconf's booleans are 'true' and 'false'.
        let value = if kind == "boolean" {
            if value.is_truthy() { "true" } else { "false" }.to_string()
        } else {
            value.to_python_str()
        };
        let have = [key.clone(), kind.clone(), value.clone()];
        if current.as_ref().is_some_and(|c| c.contains(&have)) {
            if ret.comment.is_empty() {
                ret.comment = "Unchanged answers: ".into();
            }
            ret.comment += &format!("{key} ");
            continue;
        }
        if call.test {
            ret.result = None;
            ret.changes
                .insert(key.clone(), Value::Str(format!("New value: {value}")));
            continue;
        }
        if let Err(e) = selections::set(&name, key, &kind, &value) {
            return raised(&name, e.to_string());
        }
        let shown = if kind == "password" {
            "(password hidden)".to_string()
        } else {
            value
        };
        ret.changes.insert(key.clone(), Value::Str(shown));
    }
    if ret.changes.is_empty() {
        ret.comment = "All specified answers are already set".into();
    }
    ret
}

#[cfg(test)]
mod tests {
    /// Salt's answers for the debconf scenarios of testdata/sys_cases.py,
    /// with /var/cache/debconf an overlay in a private mount namespace.
    #[test]
    fn debconf_states_match_salt() {
        if !super::selections::available() {
            println!("skipped: debconf-utils is not installed (no debconf-get-selections)");
            return;
        }
        super::super::sysreplay::run("debconf_", crate::modules::MODULES);
    }
}
