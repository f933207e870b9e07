//! The system time zone and hardware clock as Salt's `timezone` module
//! handles them on Linux: read through `timedatectl` where it is installed
//! (else `/etc/timezone` on Debian, the `/etc/localtime` link elsewhere, the
//! hardware clock from `/etc/default/rcS` or `/etc/adjtime`), set by
//! relinking `/etc/localtime`. The `timezone` execution module and the
//! `timezone` state module both go through here.

use brine_host::exec::{self, CommandResult, CommandSpec, ExecError};
use std::path::Path;

pub const LOCALTIME: &str = "/etc/localtime";
pub const ZONEINFO: &str = "/usr/share/zoneinfo/";

/// What Salt raises.
#[derive(Debug, thiserror::Error)]
pub enum TimezoneError {
    /// `CommandExecutionError`.
    #[error("{0}")]
    Failed(String),
    /// `SaltInvocationError`.
    #[error("{0}")]
    Invocation(String),
    #[error(transparent)]
    Exec(#[from] ExecError),
}

impl TimezoneError {
    /// The exception as the last line of Salt's traceback shows it.
    pub fn python(&self) -> String {
        match self {
            TimezoneError::Failed(m) => format!("salt.exceptions.CommandExecutionError: {m}"),
            TimezoneError::Invocation(m) => format!("salt.exceptions.SaltInvocationError: {m}"),
            TimezoneError::Exec(e) => e.to_string(),
        }
    }
}

fn run(argv: &[&str]) -> Result<CommandResult, TimezoneError> {
    Ok(exec::run(&CommandSpec::argv(argv))?)
}

/// `argv` as Salt's `cmd.run` runs it: stderr folded into stdout.
pub fn run_merged(argv: &[&str]) -> Result<CommandResult, TimezoneError> {
    Ok(exec::run(&CommandSpec {
        merge_stderr: true,
        ..CommandSpec::argv(argv)
    })?)
}

fn has_timedatectl() -> bool {
    brine_host::path::which("timedatectl").is_some()
}

/// `timedatectl`'s output; its failure is Salt's error.
fn timedatectl() -> Result<String, TimezoneError> {
    let r = run(&["timedatectl"])?;
    if r.retcode != 0 {
        return Err(TimezoneError::Failed(format!(
            "timedatectl failed: {}",
            r.stderr
        )));
    }
    Ok(r.stdout)
}

fn unparsable(out: &str) -> TimezoneError {
    TimezoneError::Failed(format!(
        "Failed to parse timedatectl output: {out}\nPlease file an issue with SaltStack"
    ))
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
pub fn strerror(e: &std::io::Error) -> String {
    let s = e.to_string();
    s.split(" (os error").next().unwrap_or(&s).to_string()
}

/// Salt's `get_zone`: the system time zone's name. `family` is the
/// `os_family` grain.
pub fn get_zone(family: &str) -> Result<String, TimezoneError> {
    if has_timedatectl() {
        let out = timedatectl()?;
        for line in out.lines().map(str::trim) {
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
        return Err(unparsable(&out));
    }
    if family.contains("Debian") || family.contains("Gentoo") {
        return std::fs::read_to_string("/etc/timezone")
            .map(|t| t.trim().to_string())
            .map_err(|e| {
                TimezoneError::Failed(format!(
                    "Problem reading timezone file /etc/timezone: {}",
                    strerror(&e)
                ))
            });
    }
    // Elsewhere the link's target names the zone.
    let target = std::fs::read_link(LOCALTIME)
        .map_err(|_| TimezoneError::Failed("Unable to determine timezone".into()))?;
    let full = normpath(&Path::new("/etc").join(target).display().to_string());
    full.strip_prefix(ZONEINFO)
        .map(str::to_string)
        .ok_or_else(|| TimezoneError::Failed("Unable to determine timezone".into()))
}

/// The hardware clock's setting as Salt's `get_hwclock` answers it:
/// 'UTC', 'localtime', the last line of /etc/adjtime ('UTC', 'LOCAL'),
/// or None without a hardware clock.
pub fn get_hwclock(family: &str) -> Result<Option<String>, TimezoneError> {
    if has_timedatectl() {
        let out = timedatectl()?;
        for line in out.lines().map(str::trim) {
            if line.to_lowercase().contains("rtc in local tz") {
                let yes = line
                    .rsplit(':')
                    .next()
                    .is_some_and(|v| v.trim().eq_ignore_ascii_case("yes"));
                return Ok(Some(if yes { "localtime" } else { "UTC" }.into()));
            }
        }
        return Err(unparsable(&out));
    }
    if family.contains("Debian") {
        // The pre-Wheezy setting wins where it is still written.
        if let Ok(text) = std::fs::read_to_string("/etc/default/rcS") {
            for line in text.lines() {
                if line.trim_start().starts_with('#') || !line.contains("UTC=") {
                    continue;
                }
                let utc = line.rsplit('=').next().unwrap_or("").to_lowercase() == "yes";
                return Ok(Some(if utc { "UTC" } else { "localtime" }.into()));
            }
        }
    }
    if ["RedHat", "Suse", "NILinuxRT", "Debian"]
        .iter()
        .any(|f| family.contains(f))
    {
        return adjtime();
    }
    Err(TimezoneError::Failed(format!(
        "brine does not read the hardware clock setting of os_family '{family}'"
    )))
}

/// The last line of /etc/adjtime (UTC or LOCAL); None without a hardware
/// clock.
fn adjtime() -> Result<Option<String>, TimezoneError> {
    if Path::new("/etc/adjtime").exists() {
        let r = run_merged(&["tail", "-n", "1", "/etc/adjtime"])?;
        return Ok(Some(r.stdout));
    }
    if Path::new("/dev/rtc").exists() {
        return Err(TimezoneError::Failed(
            "Unable to get hwclock timezone from /etc/adjtime".into(),
        ));
    }
    Ok(None)
}

/// Salt's `zone_compare`: /etc/localtime has the contents of ZONE's
/// zoneinfo file.
pub fn zone_compare(zone: &str) -> Result<bool, TimezoneError> {
    let zonepath = format!("{ZONEINFO}{zone}");
    let want = std::fs::read(&zonepath).map_err(|_| {
        TimezoneError::Invocation(format!("Can't find a local timezone \"{zone}\""))
    })?;
    let have = std::fs::read(LOCALTIME).map_err(|e| {
        TimezoneError::Failed(format!(
            "Failed to read {LOCALTIME} to determine current timezone: {}",
            strerror(&e)
        ))
    })?;
    Ok(have == want)
}

/// What `set_zone` answered: done, or Salt's message that the zone does
/// not exist (with `timedatectl`'s exit code when it ran).
#[derive(Debug, Clone, PartialEq)]
pub enum SetZone {
    Done { retcode: i32 },
    NoSuchZone { message: String, retcode: i32 },
}

/// Salt's `set_zone`: timedatectl when installed (its answer ignored),
/// then /etc/localtime relinked to the zone's file and the family's
/// setting file written (/etc/timezone on Debian).
pub fn set_zone(zone: &str, family: &str) -> Result<SetZone, TimezoneError> {
    let mut retcode = 0;
    if has_timedatectl() {
        retcode = run_merged(&["timedatectl", "set-timezone", zone])?.retcode;
    }
    let zonepath = format!("{ZONEINFO}{zone}");
    if !Path::new(&zonepath).exists() {
        return Ok(SetZone::NoSuchZone {
            message: format!("Zone does not exist: {zonepath}"),
            retcode,
        });
    }
    relink(&zonepath)?;
    if family.contains("Debian") || family.contains("Gentoo") {
        std::fs::write("/etc/timezone", format!("{}\n", zone.trim()))
            .map_err(|e| TimezoneError::Failed(format!("/etc/timezone: {e}")))?;
    } else if family.contains("RedHat") || family.contains("Suse") {
        let key = if family.contains("RedHat") {
            "ZONE"
        } else {
            "TIMEZONE"
        };
        sed_line("/etc/sysconfig/clock", key, &format!("{key}=\"{zone}\""));
    }
    Ok(SetZone::Done { retcode })
}

/// /etc/localtime made a link to `zonepath`.
fn relink(zonepath: &str) -> Result<(), TimezoneError> {
    let fail = |e: std::io::Error| TimezoneError::Failed(format!("{LOCALTIME}: {e}"));
    if std::fs::symlink_metadata(LOCALTIME).is_ok() {
        std::fs::remove_file(LOCALTIME).map_err(fail)?;
    }
    std::os::unix::fs::symlink(zonepath, LOCALTIME).map_err(fail)
}

/// Salt's `file.sed(path, "^KEY=.*", line)`: lines starting `KEY=`
/// replaced; nothing when the file is missing.
fn sed_line(path: &str, key: &str, line: &str) {
    if let Ok(text) = std::fs::read_to_string(path) {
        let out: String = text
            .split_inclusive('\n')
            .map(|l| {
                if l.starts_with(&format!("{key}=")) {
                    let nl = if l.ends_with('\n') { "\n" } else { "" };
                    format!("{line}{nl}")
                } else {
                    l.to_string()
                }
            })
            .collect();
        // A setting file that cannot be written is left as it was, as
        // Salt's file.sed answers without raising.
        let _ = std::fs::write(path, out);
    }
}

/// Salt's `set_hwclock`: the hardware clock keeps CLOCK ('UTC' or
/// 'localtime'): `timedatectl set-local-rtc` when installed (true when it
/// succeeds), else /etc/localtime relinked to the current zone and the
/// family's setting written (/etc/default/rcS on Debian).
pub fn set_hwclock(clock: &str, family: &str) -> Result<bool, TimezoneError> {
    if has_timedatectl() {
        let local = if clock == "localtime" {
            "true"
        } else {
            "false"
        };
        return Ok(run_merged(&["timedatectl", "set-local-rtc", local])?.retcode == 0);
    }
    if family == "AIX" || family == "NILinuxRT" {
        if !clock.eq_ignore_ascii_case("utc") {
            return Err(TimezoneError::Invocation(
                "UTC is the only permitted value".into(),
            ));
        }
        return Ok(true);
    }
    let zone = get_zone(family)?;
    let zonepath = format!("{ZONEINFO}{zone}");
    if !Path::new(&zonepath).exists() {
        return Err(TimezoneError::Failed(format!(
            "Zone '{zonepath}' does not exist"
        )));
    }
    relink(&zonepath)?;
    if family.contains("RedHat") {
        sed_line("/etc/sysconfig/clock", "ZONE", &format!("ZONE=\"{zone}\""));
    } else if family.contains("Suse") {
        sed_line(
            "/etc/sysconfig/clock",
            "TIMEZONE",
            &format!("TIMEZONE=\"{zone}\""),
        );
    } else if family.contains("Debian") {
        match clock {
            "UTC" => sed_line("/etc/default/rcS", "UTC", "UTC=yes"),
            "localtime" => sed_line("/etc/default/rcS", "UTC", "UTC=no"),
            _ => {}
        }
    }
    Ok(true)
}
