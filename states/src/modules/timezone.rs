//! The `timezone` state module (Salt's `salt/states/timezone.py`): the
//! system time zone, and whether the hardware clock keeps UTC, through the
//! logic the `timezone` execution module shares ([`system`]).

pub mod system;

use crate::{StateCall, StateFunction, StateModule, StateReturn};
use brine_core::sig;
use brine_core::Value;
use system::{SetZone, TimezoneError};

/// The `timezone` state module.
pub static MODULE: StateModule = StateModule {
    name: "timezone",
    doc: "Manage the system time zone and the hardware clock's UTC setting.",
    functions: &[StateFunction::new(
        "system",
        sig!(name, utc = true),
        "The system time zone is NAME (America/Denver); with UTC true (the \
default) the hardware clock keeps UTC.",
        system_fn,
    )],
};

fn raised(name: &str, e: &TimezoneError) -> StateReturn {
    let mut r = StateReturn::new(name);
    r.result = Some(false);
    r.comment = crate::raised(e.python());
    r
}

fn system_fn(call: &StateCall) -> StateReturn {
    let name = call.name().to_string();
    let family = call
        .ctx
        .grains
        .get("os_family")
        .map(Value::to_python_str)
        .unwrap_or_default();
    let utc = call.arg("utc").cloned().unwrap_or(Value::Bool(true));
    let mut ret = StateReturn::new(&name);
    ret.result = None;
    let same_zone = match system::zone_compare(&name) {
        Ok(s) => s,
        Err(e) => {
            ret.result = Some(false);
            ret.comment =
                format!("Unable to compare desired timezone '{name}' to system timezone: {e}");
            return ret;
        }
    };
    let myutc = match system::get_hwclock(&family) {
        Ok(clock) => clock.as_deref() != Some("localtime"),
        Err(e) => return raised(&name, &e),
    };
    // Salt compares the argument with a bool as Python does (1 == True).
    let utc_on = utc.is_truthy();
    let utc_is_myutc = match &utc {
        Value::Bool(b) => *b == myutc,
        Value::Int(i) => *i == i64::from(myutc),
        Value::Float(f) => *f == f64::from(u8::from(myutc)),
        _ => false,
    };
    let mut messages: Vec<String> = Vec::new();
    if same_zone {
        ret.result = Some(true);
        messages.push(format!("Timezone {name} already set"));
    }
    let do_zone = !same_zone;
    let mut do_utc = false;
    if utc_on && !utc_is_myutc {
        ret.result = None;
        do_utc = true;
    } else if utc_on {
        messages.push(format!("UTC already set to {name}"));
    }
    if ret.result == Some(true) {
        ret.comment = messages.join(", ");
        return ret;
    }
    let utc_s = utc.to_python_str();
    if call.test {
        let mut messages = Vec::new();
        if !same_zone {
            messages.push(format!("Timezone {name} needs to be set"));
        }
        if do_utc {
            messages.push(format!("UTC needs to be set to {utc_s}"));
        }
        ret.comment = messages.join(", ");
        return ret;
    }
    let mut messages = Vec::new();
    if do_zone {
        // Salt counts any answer but False (also "Zone does not exist")
        // as done.
        match system::set_zone(&name, &family) {
            Ok(SetZone::Done { .. } | SetZone::NoSuchZone { .. }) => {
                ret.changes
                    .insert("timezone".into(), Value::Str(name.clone()));
                messages.push(format!("Set timezone {name}"));
                ret.result = Some(true);
            }
            Err(e) => return raised(&name, &e),
        }
    }
    if do_utc {
        let clock = if utc_on { "UTC" } else { "localtime" };
        match system::set_hwclock(clock, &family) {
            Ok(true) => {
                ret.changes.insert("utc".into(), utc.clone());
                messages.push(format!("Set UTC to {utc_s}"));
                ret.result = Some(true);
            }
            Ok(false) => {
                messages.push(format!("Failed to set UTC to {utc_s}"));
                ret.result = Some(false);
            }
            Err(e) => return raised(&name, &e),
        }
    }
    ret.comment = messages.join(", ");
    ret
}

#[cfg(test)]
mod tests {
    /// Salt's answers for the timezone scenarios of testdata/sys_cases.py,
    /// with /etc an overlay in a private mount namespace.
    #[test]
    fn timezone_states_match_salt() {
        super::super::sysreplay::run("timezone_", crate::modules::MODULES);
    }
}
