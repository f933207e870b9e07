//! Salt's `timezone` module: the system time zone read through
//! `timedatectl` where it is installed (else `/etc/timezone` on Debian,
//! `/etc/localtime`'s link elsewhere) and set by relinking
//! `/etc/localtime`. The logic is the timezone state module's
//! (`brine_states::modules::timezone::system`).

use super::function::{sig, CallError, Ctx, Function, Return};
use super::params::{into_string, Params};
use brine_core::Value;
use brine_states::modules::timezone::system::{self, SetZone, TimezoneError};
#[cfg(test)]
use system::{LOCALTIME, ZONEINFO};

pub(super) const FUNCTIONS: &[Function] = &[
    Function::acts(
        "get_hwclock",
        sig!(),
        "Whether the hardware clock keeps 'UTC' or 'localtime' (timedatectl's \
'RTC in local TZ', else /etc/default/rcS or /etc/adjtime; None without a \
hardware clock).\n\n    brine-call timezone.get_hwclock",
        get_hwclock,
    ),
    Function::acts(
        "get_offset",
        sig!(),
        "The current offset from UTC, as `date +%z` prints it (-0700).\n\n    \
brine-call timezone.get_offset",
        |_, p| date(p, "+%z"),
    ),
    Function::acts(
        "get_zone",
        sig!(),
        "The system time zone's name (America/Denver).\n\n    brine-call timezone.get_zone",
        get_zone_fn,
    ),
    Function::acts(
        "get_zonecode",
        sig!(),
        "The current zone abbreviation, as `date +%Z` prints it (MDT).\n\n    \
brine-call timezone.get_zonecode",
        |_, p| date(p, "+%Z"),
    ),
    Function::acts(
        "set_hwclock",
        sig!(clock),
        "Make the hardware clock keep CLOCK ('UTC' or 'localtime'): through \
timedatectl when installed, else by the distribution's setting (/etc/default/rcS \
on Debian). True when done.\n\n    brine-call timezone.set_hwclock UTC",
        set_hwclock,
    ),
    Function::acts(
        "set_zone",
        sig!(timezone),
        "Make TIMEZONE the system time zone: timedatectl when installed, then \
/etc/localtime relinked to its zoneinfo file (and /etc/timezone on Debian). \
True, or a message when the zone does not exist.\n\n    \
brine-call timezone.set_zone Europe/Paris",
        set_zone,
    ),
    Function::acts(
        "zone_compare",
        sig!(timezone),
        "True when /etc/localtime has the same contents as TIMEZONE's zoneinfo \
file.\n\n    brine-call timezone.zone_compare Etc/UTC",
        zone_compare,
    ),
];

fn failed(e: TimezoneError) -> CallError {
    match e {
        TimezoneError::Invocation(m) => CallError::Invocation(m),
        e => CallError::Failed(e.to_string()),
    }
}

fn date(p: Params, fmt: &str) -> Result<Return, CallError> {
    p.finish()?;
    let r = system::run_merged(&["date", fmt]).map_err(failed)?;
    Ok(Return {
        value: Value::Str(r.stdout),
        retcode: r.retcode,
    })
}

fn family(cx: &Ctx<'_>) -> String {
    cx.grains
        .get("os_family")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_string()
}

fn get_hwclock(cx: &Ctx<'_>, p: Params) -> Result<Return, CallError> {
    p.finish()?;
    let clock = system::get_hwclock(&family(cx)).map_err(failed)?;
    Ok(clock.map_or(Value::Null, Value::Str).into())
}

fn get_zone_fn(cx: &Ctx<'_>, p: Params) -> Result<Return, CallError> {
    p.finish()?;
    Ok(Value::Str(system::get_zone(&family(cx)).map_err(failed)?).into())
}

fn set_zone(cx: &Ctx<'_>, mut p: Params) -> Result<Return, CallError> {
    let zone = into_string(p.require("timezone")?);
    p.finish()?;
    Ok(
        match system::set_zone(&zone, &family(cx)).map_err(failed)? {
            SetZone::Done { retcode } => Return {
                value: Value::Bool(true),
                retcode,
            },
            SetZone::NoSuchZone { message, retcode } => Return {
                value: Value::Str(message),
                retcode,
            },
        },
    )
}

fn set_hwclock(cx: &Ctx<'_>, mut p: Params) -> Result<Return, CallError> {
    let clock = into_string(p.require("clock")?);
    p.finish()?;
    Ok(Value::Bool(system::set_hwclock(&clock, &family(cx)).map_err(failed)?).into())
}

fn zone_compare(_: &Ctx<'_>, mut p: Params) -> Result<Return, CallError> {
    let zone = into_string(p.require("timezone")?);
    p.finish()?;
    Ok(Value::Bool(system::zone_compare(&zone).map_err(failed)?).into())
}

#[cfg(test)]
mod tests {
    use super::super::testkit::{is_root, minion, run};
    use serde_json::json;

    /// Restores /etc/localtime's link and /etc/timezone as they were.
    struct Restore {
        link: std::path::PathBuf,
        timezone: Option<Vec<u8>>,
    }
    impl Drop for Restore {
        fn drop(&mut self) {
            let _ = std::fs::remove_file(super::LOCALTIME);
            let _ = std::os::unix::fs::symlink(&self.link, super::LOCALTIME);
            if let Some(t) = &self.timezone {
                let _ = std::fs::write("/etc/timezone", t);
            }
        }
    }

    /// set_zone relinks /etc/localtime and writes /etc/timezone (to the
    /// zone the host already has, so nothing changes for anyone else).
    #[test]
    fn set_zone_relinks_localtime() {
        let Ok(link) = std::fs::read_link(super::LOCALTIME) else {
            println!("skipped: /etc/localtime is not a link");
            return;
        };
        let Some(zone) = link
            .to_str()
            .and_then(|l| l.strip_prefix(super::ZONEINFO))
            .map(str::to_string)
        else {
            println!("skipped: /etc/localtime points outside zoneinfo");
            return;
        };
        if !is_root() {
            println!("skipped: needs root");
            return;
        }
        let _restore = Restore {
            link: link.clone(),
            timezone: std::fs::read("/etc/timezone").ok(),
        };
        let mut m = minion();
        assert_eq!(
            run(&mut m, "timezone.set_zone", &[&zone]).unwrap(),
            json!(true)
        );
        assert_eq!(std::fs::read_link(super::LOCALTIME).unwrap(), link);
        assert_eq!(
            std::fs::read_to_string("/etc/timezone").unwrap(),
            format!("{zone}\n")
        );
        assert_eq!(
            run(&mut m, "timezone.zone_compare", &[&zone]).unwrap(),
            json!(true)
        );
        assert_eq!(
            run(&mut m, "timezone.set_zone", &["Nowhere/Brinex14"]).unwrap(),
            json!("Zone does not exist: /usr/share/zoneinfo/Nowhere/Brinex14")
        );
    }
}
