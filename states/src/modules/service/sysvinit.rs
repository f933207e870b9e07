//! Services where systemd is not PID 1, the way Salt 3007.8 manages them
//! on Debian there (its `debian_service` module): init scripts in
//! `/etc/init.d`, `service NAME VERB` to act, the `S??NAME` links of the
//! current runlevel for "enabled", `update-rc.d` (and `insserv`) to change
//! that.
//!
//! Each function answers what Salt answers and the exit code of the last
//! command it ran, which Salt keeps as the call's retcode (in a container
//! `runlevel` fails, so the listing functions answer with retcode 1 as
//! Salt's do).

use super::provider::{ServiceError, ServiceProvider};
use brine_compile::matcher::glob::fnmatch;
use brine_host::exec::{self, CommandResult, CommandSpec};
use std::collections::BTreeSet;

/// The `os` grains Salt's `debian_service` loads on (where systemd is not
/// PID 1).
pub const OS_NAMES: [&str; 4] = ["Debian", "Raspbian", "Devuan", "NILinuxRT"];

/// Whether an `os` grain is one [`OS_NAMES`] names.
pub fn serves(os: &str) -> bool {
    OS_NAMES.contains(&os)
}

/// An answer and the retcode Salt's last command left.
#[derive(Debug, Clone, PartialEq)]
pub struct Answer<T> {
    pub value: T,
    pub retcode: i32,
}

fn run(spec: CommandSpec) -> CommandResult {
    exec::run(&spec).unwrap_or_else(|e| CommandResult {
        retcode: 127,
        stderr: e.to_string(),
        ..Default::default()
    })
}

/// The current runlevel (Debian's default 2 when `runlevel` cannot tell,
/// as in a container) and `runlevel`'s exit code.
pub fn runlevel() -> Answer<String> {
    let r = run(CommandSpec {
        merge_stderr: true,
        ..CommandSpec::argv(&["runlevel"])
    });
    let level = if r.stdout.contains("unknown") {
        "2".to_string()
    } else {
        r.stdout
            .split_whitespace()
            .nth(1)
            .unwrap_or("2")
            .to_string()
    };
    Answer {
        value: level,
        retcode: r.retcode,
    }
}

/// File names in `dir` matching the shell pattern `pat`, dotfiles aside.
fn names_in(dir: &str, pat: &str) -> Vec<String> {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    rd.flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| !n.starts_with('.') && fnmatch(n, pat))
        .collect()
}

/// The service a start link names: what follows the link's last run of
/// digits (`S01cron` → `cron`; Salt's split, quirks included).
fn link_service(link: &str) -> String {
    let last_digit = link.rfind(|c: char| c.is_ascii_digit());
    match last_digit {
        Some(i) => link[i + 1..].to_string(),
        None => link.to_string(),
    }
}

/// Services with a start link in `/etc/rcS.d` or the current runlevel's
/// directory, sorted.
pub fn get_enabled() -> Answer<Vec<String>> {
    let level = runlevel();
    let mut set = BTreeSet::new();
    for dir in [
        "/etc/rcS.d".to_string(),
        format!("/etc/rc{}.d", level.value),
    ] {
        set.extend(names_in(&dir, "S*").iter().map(|l| link_service(l)));
    }
    Answer {
        value: set.into_iter().collect(),
        retcode: level.retcode,
    }
}

/// Every init script (README aside) and every enabled service, sorted.
pub fn get_all() -> Answer<Vec<String>> {
    let enabled = get_enabled();
    let mut set: BTreeSet<String> = names_in("/etc/init.d", "*")
        .into_iter()
        .filter(|n| n != "README")
        .collect();
    set.extend(enabled.value);
    Answer {
        value: set.into_iter().collect(),
        retcode: enabled.retcode,
    }
}

/// Services that are installed but not enabled, sorted.
pub fn get_disabled() -> Answer<Vec<String>> {
    let all = get_all();
    let enabled = get_enabled();
    Answer {
        value: all
            .value
            .into_iter()
            .filter(|s| !enabled.value.contains(s))
            .collect(),
        retcode: enabled.retcode,
    }
}

pub fn available(name: &str) -> Answer<bool> {
    let all = get_all();
    Answer {
        value: all.value.iter().any(|s| s == name),
        retcode: all.retcode,
    }
}

pub fn enabled(name: &str) -> Answer<bool> {
    let e = get_enabled();
    Answer {
        value: e.value.iter().any(|s| s == name),
        retcode: e.retcode,
    }
}

pub fn disabled(name: &str) -> Answer<bool> {
    let d = get_disabled();
    Answer {
        value: d.value.iter().any(|s| s == name),
        retcode: d.retcode,
    }
}

/// `service NAME VERB`: true when it exits 0.
pub fn service(name: &str, verb: &str) -> Answer<bool> {
    let r = run(CommandSpec::argv(&["service", name, verb]));
    Answer {
        value: r.retcode == 0,
        retcode: r.retcode,
    }
}

pub fn start(name: &str) -> Answer<bool> {
    service(name, "start")
}

pub fn stop(name: &str) -> Answer<bool> {
    service(name, "stop")
}

/// Whether the service runs (`service NAME status` exits 0); Salt ignores
/// this command's exit code, so the retcode stays 0.
pub fn status(name: &str) -> bool {
    run(CommandSpec::argv(&["service", name, "status"])).retcode == 0
}

/// The services a glob (`*`, `?`, `[..]`) names, among all of them.
pub fn matching(pattern: &str) -> Answer<Vec<String>> {
    let all = get_all();
    Answer {
        value: all
            .value
            .into_iter()
            .filter(|s| fnmatch(s, pattern))
            .collect(),
        retcode: all.retcode,
    }
}

/// Start links for NAME: `insserv NAME && update-rc.d NAME enable`, through
/// the shell as Salt runs it.
pub fn enable(name: &str) -> Answer<bool> {
    let q = shell_words::quote(name);
    let r = run(CommandSpec::shell(format!(
        "insserv {q} && update-rc.d {q} enable"
    )));
    Answer {
        value: r.retcode == 0,
        retcode: r.retcode,
    }
}

/// `update-rc.d NAME disable`.
pub fn disable(name: &str) -> Answer<bool> {
    let r = run(CommandSpec::argv(&["update-rc.d", name, "disable"]));
    Answer {
        value: r.retcode == 0,
        retcode: r.retcode,
    }
}

/// The init scripts as the `service` state module drives them.
pub struct SysVinit;

impl ServiceProvider for SysVinit {
    fn available(&self, name: &str) -> Result<bool, ServiceError> {
        Ok(available(name).value)
    }

    fn status(&self, name: &str) -> bool {
        status(name)
    }

    fn enabled(&self, name: &str) -> bool {
        enabled(name).value
    }

    fn start(&self, name: &str) -> Result<bool, ServiceError> {
        Ok(start(name).value)
    }

    fn stop(&self, name: &str) -> bool {
        stop(name).value
    }

    fn restart(&self, name: &str) -> Result<bool, ServiceError> {
        Ok(service(name, "restart").value)
    }

    fn reload(&self, name: &str) -> Result<bool, ServiceError> {
        Ok(service(name, "reload").value)
    }

    fn force_reload(&self, name: &str) -> Result<bool, ServiceError> {
        Ok(service(name, "force-reload").value)
    }

    fn enable(&self, name: &str) -> Result<bool, ServiceError> {
        Ok(enable(name).value)
    }

    fn disable(&self, name: &str) -> bool {
        disable(name).value
    }

    /// Init scripts cannot be masked: only systemd masks units.
    fn masked(&self, name: &str, _runtime: bool) -> Result<bool, ServiceError> {
        Err(no_masks(name, "mask"))
    }

    fn mask(&self, name: &str, _runtime: bool) -> Result<(), ServiceError> {
        Err(no_masks(name, "mask"))
    }

    fn unmask(&self, name: &str, _runtime: bool) -> Result<(), ServiceError> {
        Err(no_masks(name, "unmask"))
    }
}

fn no_masks(unit: &str, verb: &str) -> ServiceError {
    ServiceError::Refused {
        unit: unit.to_string(),
        verb: verb.to_string(),
        message: format!(
            "Cannot {verb} service {unit}: masking needs systemd, and systemd is not running on this minion"
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn start_links_name_services_as_salt_splits_them() {
        assert_eq!(link_service("S01cron"), "cron");
        assert_eq!(link_service("S01x11-common"), "-common");
        assert_eq!(link_service("S99svc2"), "");
        assert_eq!(link_service("Snone"), "Snone");
    }
}
