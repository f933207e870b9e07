//! Salt's `timezone` module: the system time zone read through
//! `timedatectl` where it is installed (else `/etc/timezone` on Debian,
//! `/etc/localtime`'s link elsewhere) and set by relinking
//! `/etc/localtime`.

use super::function::{sig, CallError, Ctx, Function, Return};
use super::params::{into_string, Params};
use super::run::{run as run_split, run_merged};
use brine_core::Value;
use std::path::Path;

const LOCALTIME: &str = "/etc/localtime";
const ZONEINFO: &str = "/usr/share/zoneinfo/";

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

fn date(p: Params, fmt: &str) -> Result<Return, CallError> {
    p.finish()?;
    let r = run_merged(&["date", fmt])?;
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

fn get_zone(cx: &Ctx<'_>) -> Result<String, CallError> {
    if brine_host::path::which("timedatectl").is_some() {
        let r = run_split(&["timedatectl"])?;
        if r.retcode != 0 {
            return Err(CallError::Failed(format!(
                "timedatectl failed: {}",
                r.stderr
            )));
        }
        for line in r.stdout.lines().map(str::trim) {
            let rest = line
                .strip_prefix("Time zone:")
                .or_else(|| line.strip_prefix("Timezone:"));
            if let Some(zone) = rest.and_then(|r| {
                r.starts_with(char::is_whitespace)
                    .then(|| r.split_whitespace().next())
                    .flatten()
            }) {
                return Ok(zone.to_string());
            }
        }
        return Err(CallError::Failed(format!(
            "Failed to parse timedatectl output: {}\nPlease file an issue with SaltStack",
            r.stdout
        )));
    }
    let fam = family(cx);
    if fam.contains("Debian") || fam.contains("Gentoo") {
        return std::fs::read_to_string("/etc/timezone")
            .map(|t| t.trim().to_string())
            .map_err(|e| {
                CallError::Failed(format!(
                    "Problem reading timezone file /etc/timezone: {}",
                    strerror(&e)
                ))
            });
    }
    // Elsewhere the link's target names the zone.
    let target = std::fs::read_link(LOCALTIME)
        .map_err(|_| CallError::Failed("Unable to determine timezone".into()))?;
    let full = normpath(&Path::new("/etc").join(target).display().to_string());
    full.strip_prefix(ZONEINFO)
        .map(str::to_string)
        .ok_or_else(|| CallError::Failed("Unable to determine timezone".into()))
}

fn get_hwclock(cx: &Ctx<'_>, p: Params) -> Result<Return, CallError> {
    p.finish()?;
    if brine_host::path::which("timedatectl").is_some() {
        let r = run_split(&["timedatectl"])?;
        if r.retcode != 0 {
            return Err(CallError::Failed(format!(
                "timedatectl failed: {}",
                r.stderr
            )));
        }
        for line in r.stdout.lines().map(str::trim) {
            if line.to_lowercase().contains("rtc in local tz") {
                let yes = line
                    .rsplit(':')
                    .next()
                    .is_some_and(|v| v.trim().eq_ignore_ascii_case("yes"));
                return Ok(Value::Str(if yes { "localtime" } else { "UTC" }.into()).into());
            }
        }
        return Err(CallError::Failed(format!(
            "Failed to parse timedatectl output: {}\nPlease file an issue with SaltStack",
            r.stdout
        )));
    }
    let fam = family(cx);
    if fam.contains("Debian") {
        // The pre-Wheezy setting wins where it is still written.
        if let Ok(text) = std::fs::read_to_string("/etc/default/rcS") {
            for line in text.lines() {
                if line.trim_start().starts_with('#') || !line.contains("UTC=") {
                    continue;
                }
                let utc = line.rsplit('=').next().unwrap_or("").to_lowercase() == "yes";
                return Ok(Value::Str(if utc { "UTC" } else { "localtime" }.into()).into());
            }
        }
    }
    if ["RedHat", "Suse", "NILinuxRT", "Debian"]
        .iter()
        .any(|f| fam.contains(f))
    {
        return adjtime();
    }
    Err(CallError::Failed(format!(
        "brine does not read the hardware clock setting of os_family '{fam}'"
    )))
}

/// The last line of /etc/adjtime (UTC or LOCAL); None without a hardware
/// clock.
fn adjtime() -> Result<Return, CallError> {
    if Path::new("/etc/adjtime").exists() {
        let r = run_merged(&["tail", "-n", "1", "/etc/adjtime"])?;
        return Ok(Return {
            value: Value::Str(r.stdout),
            retcode: r.retcode,
        });
    }
    if Path::new("/dev/rtc").exists() {
        return Err(CallError::Failed(
            "Unable to get hwclock timezone from /etc/adjtime".into(),
        ));
    }
    Ok(Value::Null.into())
}

/// Python's `os.path.normpath` for an absolute path: `.` and `..`
/// resolved, repeated slashes folded.
fn normpath(path: &str) -> String {
    let mut parts: Vec<&str> = Vec::new();
    for c in path.split('/') {
        match c {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            c => parts.push(c),
        }
    }
    format!("/{}", parts.join("/"))
}

/// An OS error as Python's `strerror` words it.
fn strerror(e: &std::io::Error) -> String {
    let s = e.to_string();
    s.split(" (os error").next().unwrap_or(&s).to_string()
}

fn get_zone_fn(cx: &Ctx<'_>, p: Params) -> Result<Return, CallError> {
    p.finish()?;
    Ok(Value::Str(get_zone(cx)?).into())
}

fn set_zone(cx: &Ctx<'_>, mut p: Params) -> Result<Return, CallError> {
    let zone = into_string(p.require("timezone")?);
    p.finish()?;
    let mut retcode = 0;
    if brine_host::path::which("timedatectl").is_some() {
        // Salt runs it and goes on whatever it answers (no systemd: it fails).
        retcode = run_merged(&["timedatectl", "set-timezone", &zone])?.retcode;
    }
    let zonepath = format!("{ZONEINFO}{zone}");
    if !Path::new(&zonepath).exists() {
        return Ok(Return {
            value: Value::Str(format!("Zone does not exist: {zonepath}")),
            retcode,
        });
    }
    let fail = |e: std::io::Error| CallError::Failed(format!("{LOCALTIME}: {e}"));
    if std::fs::symlink_metadata(LOCALTIME).is_ok() {
        std::fs::remove_file(LOCALTIME).map_err(fail)?;
    }
    std::os::unix::fs::symlink(&zonepath, LOCALTIME).map_err(fail)?;
    let fam = family(cx);
    if fam.contains("Debian") || fam.contains("Gentoo") {
        std::fs::write("/etc/timezone", format!("{}\n", zone.trim()))
            .map_err(|e| CallError::Failed(format!("/etc/timezone: {e}")))?;
    } else if fam.contains("RedHat") || fam.contains("Suse") {
        let (file, key) = if fam.contains("RedHat") {
            ("/etc/sysconfig/clock", "ZONE")
        } else {
            ("/etc/sysconfig/clock", "TIMEZONE")
        };
        if let Ok(text) = std::fs::read_to_string(file) {
            let out: Vec<String> = text
                .lines()
                .map(|l| {
                    if l.starts_with(&format!("{key}=")) {
                        format!("{key}=\"{zone}\"")
                    } else {
                        l.to_string()
                    }
                })
                .collect();
            let _ = std::fs::write(file, out.join("\n") + "\n");
        }
    }
    Ok(Return {
        value: Value::Bool(true),
        retcode,
    })
}

fn zone_compare(_: &Ctx<'_>, mut p: Params) -> Result<Return, CallError> {
    let zone = into_string(p.require("timezone")?);
    p.finish()?;
    let zonepath = format!("{ZONEINFO}{zone}");
    let want = std::fs::read(&zonepath)
        .map_err(|_| CallError::Invocation(format!("Can't find a local timezone \"{zone}\"")))?;
    let have = std::fs::read(LOCALTIME).map_err(|e| {
        CallError::Failed(format!(
            "Failed to read {LOCALTIME} to determine current timezone: {}",
            strerror(&e)
        ))
    })?;
    Ok(Value::Bool(have == want).into())
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
