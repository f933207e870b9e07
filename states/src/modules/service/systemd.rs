//! The systemd service provider: `systemctl` the way Salt's
//! `systemd_service` execution module drives it.

use super::provider::{ServiceError, ServiceProvider};
use crate::modules::user::support::run_argv;
use brine_host::exec::CommandResult;
use std::path::{Path, PathBuf};

/// The folder whose presence means systemd is PID 1 (`sd_booted()`).
pub const BOOTED_MARKER: &str = "/run/systemd/system";

/// The unit types systemd lists (a service goes by its bare name).
pub const UNIT_TYPES: [&str; 9] = [
    "service",
    "socket",
    "device",
    "mount",
    "automount",
    "swap",
    "target",
    "path",
    "timer",
];

/// Whether the system runs systemd.
pub fn booted() -> bool {
    Path::new(BOOTED_MARKER).is_dir()
}

/// Salt's "offline" mode: systemd is installed (`systemctl` is on the
/// PATH) but is not PID 1, as in a container.
pub fn offline() -> bool {
    !booted() && brine_host::path::which("systemctl").is_some()
}

/// `name.service` unless the name already ends in a unit type.
pub fn canonical_unit_name(name: &str) -> String {
    if UNIT_TYPES.iter().any(|t| name.ends_with(t)) {
        name.to_string()
    } else {
        format!("{name}.service")
    }
}

/// Drop systemd-run's `.scope` lines from an error text.
pub fn strip_scope(msg: &str) -> String {
    msg.lines()
        .filter(|l| !l.ends_with(".scope"))
        .collect::<Vec<_>>()
        .join("\n")
        .trim()
        .to_string()
}

/// systemctl's refusal of `verb`, its scope lines stripped as Salt does.
fn refused(unit: &str, verb: &str, stderr: &str) -> ServiceError {
    ServiceError::Refused {
        unit: unit.into(),
        verb: verb.into(),
        message: strip_scope(stderr),
    }
}

/// Whether `systemctl status` says the unit exists: from systemd 231 on the
/// exit code (0-3) tells; older versions print `Loaded: not-found`.
pub fn parse_available(
    retcode: i32,
    stdout: &str,
    version: Option<u32>,
) -> Result<bool, ServiceError> {
    if version.is_some_and(|v| v >= 231) {
        return Ok((0..4).contains(&retcode));
    }
    let out = stdout.to_lowercase();
    if out.contains("could not be found") {
        return Ok(false);
    }
    for line in out.lines() {
        let t = line.trim_start();
        if line.len() != t.len() {
            if let Some(rest) = t.strip_prefix("loaded:") {
                if let Some(state) = rest.split_whitespace().next() {
                    return Ok(state != "not-found");
                }
            }
        }
    }
    Err(ServiceError::UnitInfo {
        unit: String::new(),
    })
}

/// The systemd version from `systemctl --version` ("systemd 252 (252.22-1)").
pub fn parse_version(out: &str) -> Option<u32> {
    out.lines().next()?.split_whitespace().nth(1)?.parse().ok()
}

/// `systemctl` on one unit, with `--no-block` when asked.
#[derive(Debug, Clone, Default)]
pub struct Systemd {
    pub no_block: bool,
}

impl Systemd {
    fn systemctl(&self, args: &[&str], unit: Option<&str>, no_block: bool) -> CommandResult {
        let mut argv: Vec<String> = vec!["systemctl".into()];
        if no_block {
            argv.push("--no-block".into());
        }
        argv.extend(args.iter().map(|a| a.to_string()));
        if let Some(u) = unit {
            argv.push(canonical_unit_name(u));
        }
        if args.contains(&"status") {
            argv.extend(["-n".into(), "0".into()]);
        }
        run_argv(&argv, &[], None).unwrap_or_else(|e| CommandResult {
            retcode: 127,
            stderr: e.to_string(),
            ..Default::default()
        })
    }

    fn version(&self) -> Option<u32> {
        parse_version(&self.systemctl(&["--version"], None, false).stdout)
    }

    fn status_output(&self, name: &str) -> CommandResult {
        let mut r = self.systemctl(&["status"], Some(name), false);
        // Salt reads status with stderr folded into stdout.
        if !r.stderr.is_empty() {
            if !r.stdout.is_empty() {
                r.stdout.push('\n');
            }
            let err = std::mem::take(&mut r.stderr);
            r.stdout.push_str(&err);
        }
        r
    }

    fn check_available(&self, name: &str) -> Result<bool, ServiceError> {
        if offline() {
            return Err(ServiceError::Offline { unit: name.into() });
        }
        let st = self.status_output(name);
        parse_available(st.retcode, &st.stdout, self.version())
            .map_err(|_| ServiceError::UnitInfo { unit: name.into() })
    }

    /// Reload systemd when a unit file is new or changed (Salt's
    /// `_check_for_unit_changes`).
    fn check_for_unit_changes(&self, name: &str) -> Result<(), ServiceError> {
        let unit = PathBuf::from("/etc/systemd/system").join(canonical_unit_name(name));
        // Salt asks os.access(R_OK): a mask (a link to /dev/null) counts.
        let readable = nix::unistd::access(&unit, nix::unistd::AccessFlags::R_OK).is_ok();
        let untracked = readable && !self.check_available(name)?;
        let changed = untracked
            || self
                .status_output(name)
                .stdout
                .to_lowercase()
                .contains("'systemctl daemon-reload'");
        if changed {
            let r = self.systemctl(&["--system", "daemon-reload"], None, false);
            if r.retcode != 0 {
                let output = if r.stdout.is_empty() {
                    r.stderr
                } else {
                    r.stdout
                };
                return Err(ServiceError::DaemonReload { output });
            }
        }
        Ok(())
    }

    fn act(&self, verb: &str, name: &str) -> Result<bool, ServiceError> {
        self.check_for_unit_changes(name)?;
        let r = self.systemctl(&[verb], Some(name), self.no_block);
        if r.retcode != 0 {
            return Err(refused(name, verb, &r.stderr));
        }
        Ok(true)
    }

    /// SysV init scripts without a systemd unit of the same name.
    fn sysv_services(&self) -> Vec<String> {
        let Ok(dir) = std::fs::read_dir("/etc/init.d") else {
            return Vec::new();
        };
        let units = [
            "/lib/systemd/system",
            "/usr/lib/systemd/system",
            "/etc/systemd/system",
        ];
        let mut out = Vec::new();
        for e in dir.flatten() {
            let name = e.file_name().to_string_lossy().to_string();
            let exec = e
                .metadata()
                .map(|m| {
                    use std::os::unix::fs::PermissionsExt;
                    m.is_file() && m.permissions().mode() & 0o111 != 0
                })
                .unwrap_or(false);
            let has_unit = units
                .iter()
                .any(|d| Path::new(d).join(format!("{name}.service")).exists());
            if exec && !has_unit {
                out.push(name);
            }
        }
        out
    }

    fn sysv_enabled(&self, name: &str) -> bool {
        let out = run_argv(&["runlevel"], &[], None)
            .map(|r| r.stdout)
            .unwrap_or_default();
        let level = out.split_whitespace().nth(1).unwrap_or("2").to_string();
        let Ok(dir) = std::fs::read_dir(format!("/etc/rc{level}.d")) else {
            return false;
        };
        dir.flatten().any(|e| {
            let f = e.file_name().to_string_lossy().to_string();
            f.strip_prefix('S')
                .map(|rest| {
                    let digits = rest.chars().take_while(char::is_ascii_digit).count();
                    digits <= 2 && rest[digits..].starts_with(name)
                })
                .unwrap_or(false)
        })
    }
}

impl ServiceProvider for Systemd {
    fn available(&self, name: &str) -> Result<bool, ServiceError> {
        self.check_for_unit_changes(name)?;
        self.check_available(name)
    }

    fn status(&self, name: &str) -> bool {
        let _ = self.check_for_unit_changes(name);
        self.systemctl(&["is-active"], Some(name), false).retcode == 0
    }

    fn enabled(&self, name: &str) -> bool {
        let r = self.systemctl(&["is-enabled"], Some(name), false);
        if r.retcode == 0 && r.stdout != "alias" {
            return true;
        }
        if r.stdout == "alias" {
            let real = self
                .systemctl(&["show", "-P", "Id"], Some(name), false)
                .stdout;
            return self
                .systemctl(&["is-enabled", real.trim()], None, false)
                .retcode
                == 0;
        }
        if self.sysv_services().iter().any(|s| s == name) {
            return self.sysv_enabled(name);
        }
        false
    }

    fn start(&self, name: &str) -> Result<bool, ServiceError> {
        self.act("start", name)
    }

    fn stop(&self, name: &str) -> bool {
        let _ = self.check_for_unit_changes(name);
        self.systemctl(&["stop"], Some(name), self.no_block).retcode == 0
    }

    fn restart(&self, name: &str) -> Result<bool, ServiceError> {
        self.act("restart", name)
    }

    fn reload(&self, name: &str) -> Result<bool, ServiceError> {
        self.act("reload", name)
    }

    fn force_reload(&self, name: &str) -> Result<bool, ServiceError> {
        self.act("force-reload", name)
    }

    fn enable(&self, name: &str) -> Result<bool, ServiceError> {
        self.check_for_unit_changes(name)?;
        if self.sysv_services().iter().any(|s| s == name) {
            let r = run_argv(&["update-rc.d", "-f", name, "defaults", "99"], &[], None);
            return Ok(r.map(|r| r.retcode == 0).unwrap_or(false));
        }
        let r = self.systemctl(&["enable"], Some(name), self.no_block);
        if r.retcode != 0 {
            return Err(refused(name, "enable", &r.stderr));
        }
        Ok(true)
    }

    fn disable(&self, name: &str) -> bool {
        let _ = self.check_for_unit_changes(name);
        if self.sysv_services().iter().any(|s| s == name) {
            let r = run_argv(&["update-rc.d", "-f", name, "remove"], &[], None);
            return r.map(|r| r.retcode == 0).unwrap_or(false);
        }
        self.systemctl(&["disable"], Some(name), self.no_block)
            .retcode
            == 0
    }

    fn masked(&self, name: &str, runtime: bool) -> Result<bool, ServiceError> {
        self.check_for_unit_changes(name)?;
        let base = if runtime { "/run" } else { "/etc" };
        let link = Path::new(base)
            .join("systemd/system")
            .join(canonical_unit_name(name));
        Ok(std::fs::read_link(link).is_ok_and(|t| t == Path::new("/dev/null")))
    }

    fn mask(&self, name: &str, runtime: bool) -> Result<(), ServiceError> {
        self.check_for_unit_changes(name)?;
        let args: &[&str] = if runtime {
            &["mask", "--runtime"]
        } else {
            &["mask"]
        };
        let r = self.systemctl(args, Some(name), false);
        if r.retcode != 0 {
            return Err(ServiceError::Mask { unit: name.into() });
        }
        Ok(())
    }

    fn unmask(&self, name: &str, runtime: bool) -> Result<(), ServiceError> {
        if !self.masked(name, runtime)? {
            return Ok(());
        }
        let args: &[&str] = if runtime {
            &["unmask", "--runtime"]
        } else {
            &["unmask"]
        };
        let r = self.systemctl(args, Some(name), false);
        if r.retcode != 0 {
            return Err(ServiceError::Unmask { unit: name.into() });
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unit_names_and_status_parsing() {
        assert_eq!(canonical_unit_name("nginx"), "nginx.service");
        assert_eq!(canonical_unit_name("fstrim.timer"), "fstrim.timer");
        assert_eq!(
            parse_version("systemd 252 (252.22-1~deb12u1)\n+PAM"),
            Some(252)
        );
        assert_eq!(parse_available(4, "", Some(252)), Ok(false));
        assert_eq!(parse_available(3, "", Some(252)), Ok(true));
        let old = "● foo.service\n   Loaded: not-found (Reason: No such file)\n";
        assert_eq!(parse_available(3, old, Some(219)), Ok(false));
        let ok =
            "● sshd.service - OpenSSH\n   Loaded: loaded (/usr/lib/systemd/system/sshd.service)\n";
        assert_eq!(parse_available(0, ok, None), Ok(true));
        assert!(parse_available(1, "garbage", None).is_err());
        assert_eq!(strip_scope("Job failed\nrun-r1.scope\n"), "Job failed");
    }
}
