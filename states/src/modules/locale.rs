//! The `locale` state module (Salt's `salt/states/locale.py`): the system
//! locale, and locales generated, through the logic the `locale`
//! execution module shares ([`system`]).

pub mod system;

use crate::{StateCall, StateFunction, StateModule, StateReturn};
use brine_core::sig;
use brine_core::{Map, Value};

/// The `locale` state module.
pub static MODULE: StateModule = StateModule {
    name: "locale",
    doc: "Manage the system locale (LANG) and generate locales.",
    functions: &[
        StateFunction::new(
            "present",
            sig!(name),
            "The locale NAME is generated (on Debian NAME may carry its \
charmap: 'en_IE.UTF-8 UTF-8').",
            present,
        ),
        StateFunction::new(
            "system",
            sig!(name),
            "The system locale (LANG) is NAME.",
            system_fn,
        ),
    ],
};

fn locale_changes(name: &str) -> Map {
    let mut m = Map::default();
    m.insert("locale".into(), Value::Str(name.to_string()));
    m
}

fn system_fn(call: &StateCall) -> StateReturn {
    let name = call.name().to_string();
    let mut ret = StateReturn::new(&name);
    ret.result = None;
    let grains = &call.ctx.grains;
    let current = match system::get_locale(grains) {
        Ok((lang, _)) => lang,
        Err(e) => {
            ret.result = Some(false);
            ret.comment = format!("Failed to set system locale: {e}");
            return ret;
        }
    };
    if current == name {
        ret.result = Some(true);
        ret.comment = format!("System locale {name} already set");
        return ret;
    }
    if call.test {
        ret.comment = format!("System locale {name} needs to be set");
        return ret;
    }
    match system::set_locale(&name, grains) {
        Ok(true) => {
            ret.changes = locale_changes(&name);
            ret.result = Some(true);
            ret.comment = format!("Set system locale {name}");
        }
        Ok(false) => {
            ret.result = Some(false);
            ret.comment = format!("Failed to set system locale to {name}");
        }
        Err(e) => {
            ret.result = Some(false);
            ret.comment = format!("Failed to set system locale: {e}");
        }
    }
    ret
}

fn present(call: &StateCall) -> StateReturn {
    let name = call.name().to_string();
    let mut ret = StateReturn::new(&name);
    ret.result = None;
    let raised = |e: system::LocaleError| {
        let mut r = StateReturn::new(&name);
        r.result = Some(false);
        r.comment = crate::raised(format!("salt.exceptions.CommandExecutionError: {e}"));
        r
    };
    match system::avail(&name) {
        Ok((true, _)) => {
            ret.result = Some(true);
            ret.comment = format!("Locale {name} is already present");
            return ret;
        }
        Ok(_) => {}
        Err(e) => return raised(e),
    }
    if call.test {
        ret.comment = format!("Locale {name} needs to be generated");
        return ret;
    }
    match system::gen_locale(&name, &call.ctx.grains) {
        Ok(true) => {
            ret.changes = locale_changes(&name);
            ret.result = Some(true);
            ret.comment = format!("Generated locale {name}");
        }
        Ok(false) => {
            ret.result = Some(false);
            ret.comment = format!("Failed to generate locale {name}");
        }
        Err(e) => return raised(e),
    }
    ret
}

#[cfg(test)]
mod tests {
    /// Salt's answers for the locale scenarios of testdata/sys_cases.py,
    /// with /etc and /usr/lib/locale overlays in a private mount namespace.
    #[test]
    fn locale_states_match_salt() {
        super::super::sysreplay::run("locale_", crate::modules::MODULES);
    }
}
