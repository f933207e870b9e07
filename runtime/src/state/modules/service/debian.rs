//! The Debian service provider for a host where systemd is not PID 1 (a
//! container, a sysvinit install): init scripts in `/etc/init.d`, driven
//! through `service` and `update-rc.d`, as Salt's `debian_service`
//! execution module drives them. Salt loads that module on the minions
//! whose `os` grain is one of [`OS_NAMES`] and that were not booted with
//! systemd.

use super::{ServiceError, ServiceProvider};
use crate::exec::CommandResult;
use crate::state::modules::user::support::run_argv;
use std::collections::BTreeSet;

/// The `os` grains Salt's `debian_service` loads on.
pub const OS_NAMES: [&str; 4] = ["Debian", "Raspbian", "Devuan", "NILinuxRT"];

/// Where init scripts and the runlevel links live (a test points it at a
/// scratch tree).
#[derive(Debug, Clone)]
pub struct Debian {
    pub etc: std::path::PathBuf,
}

impl Default for Debian {
    fn default() -> Debian {
        Debian { etc: "/etc".into() }
    }
}

fn run(argv: &[&str]) -> CommandResult {
    run_argv(argv, &[], None).unwrap_or_else(|e| CommandResult {
        retcode: 127,
        stderr: e.to_string(),
        ..Default::default()
    })
}

fn sh(script: &str) -> CommandResult {
    run(&["/bin/sh", "-c", script])
}

/// Python's `shlex.quote`.
fn quote(s: &str) -> String {
    let safe = !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "@%+=:,./-_".contains(c));
    if safe {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', "'\"'\"'"))
    }
}

/// What follows the last run of digits in a runlevel link's name
/// (`S01dbus` → `dbus`), as Salt splits it: a name holding digits itself
/// keeps only its tail (`S01x11-common` → `-common`).
pub fn link_service(link: &str) -> &str {
    let mut tail = link;
    let mut rest = link;
    while let Some(i) = rest.find(|c: char| c.is_ascii_digit()) {
        let after = &rest[i..];
        let digits = after.chars().take_while(char::is_ascii_digit).count();
        rest = &after[digits..];
        tail = rest;
    }
    tail
}

impl Debian {
    /// The current runlevel; `2` (Debian's default) where `runlevel`
    /// answers `unknown`, as in a container without an init.
    fn runlevel(&self) -> String {
        let r = run(&["runlevel"]);
        let out = format!("{}{}", r.stdout, r.stderr);
        if out.contains("unknown") {
            return "2".into();
        }
        out.split_whitespace().nth(1).unwrap_or("2").to_string()
    }

    /// Services started at boot: the `S` links of `rcS.d` and the current
    /// runlevel's folder.
    pub fn get_enabled(&self) -> Vec<String> {
        let level = self.runlevel();
        let mut out = BTreeSet::new();
        for dir in ["S".to_string(), level] {
            let Ok(entries) = std::fs::read_dir(self.etc.join(format!("rc{dir}.d"))) else {
                continue;
            };
            for e in entries.flatten() {
                let f = e.file_name().to_string_lossy().into_owned();
                if f.starts_with('S') {
                    out.insert(link_service(&f).to_string());
                }
            }
        }
        out.into_iter().collect()
    }

    /// Every init script (but `README`), and what is enabled.
    pub fn get_all(&self) -> Vec<String> {
        let mut out: BTreeSet<String> = self.get_enabled().into_iter().collect();
        if let Ok(entries) = std::fs::read_dir(self.etc.join("init.d")) {
            for e in entries.flatten() {
                let f = e.file_name().to_string_lossy().into_owned();
                if f != "README" {
                    out.insert(f);
                }
            }
        }
        out.into_iter().collect()
    }

    /// Installed but not enabled.
    pub fn get_disabled(&self) -> Vec<String> {
        let enabled: BTreeSet<String> = self.get_enabled().into_iter().collect();
        self.get_all()
            .into_iter()
            .filter(|s| !enabled.contains(s))
            .collect()
    }

    fn service(&self, name: &str, verb: &str) -> bool {
        run(&["service", name, verb]).retcode == 0
    }
}

impl ServiceProvider for Debian {
    fn available(&self, name: &str) -> Result<bool, ServiceError> {
        Ok(self.get_all().iter().any(|s| s == name))
    }

    fn status(&self, name: &str) -> bool {
        self.service(name, "status")
    }

    fn enabled(&self, name: &str) -> bool {
        self.get_enabled().iter().any(|s| s == name)
    }

    fn start(&self, name: &str) -> Result<bool, ServiceError> {
        Ok(self.service(name, "start"))
    }

    fn stop(&self, name: &str) -> bool {
        self.service(name, "stop")
    }

    fn restart(&self, name: &str) -> Result<bool, ServiceError> {
        Ok(self.service(name, "restart"))
    }

    fn reload(&self, name: &str) -> Result<bool, ServiceError> {
        Ok(self.service(name, "reload"))
    }

    fn force_reload(&self, name: &str) -> Result<bool, ServiceError> {
        Ok(self.service(name, "force-reload"))
    }

    fn enable(&self, name: &str) -> Result<bool, ServiceError> {
        let q = quote(name);
        Ok(sh(&format!("insserv {q} && update-rc.d {q} enable")).retcode == 0)
    }

    fn disable(&self, name: &str) -> bool {
        run(&["update-rc.d", name, "disable"]).retcode == 0
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
    fn runlevel_links_name_their_service_as_salt_splits_them() {
        assert_eq!(link_service("S01dbus"), "dbus");
        assert_eq!(link_service("S20postgresql"), "postgresql");
        // Salt's split keeps what follows the last digits.
        assert_eq!(link_service("S01x11-common"), "-common");
        assert_eq!(link_service("Sfoo"), "Sfoo");
    }

    #[test]
    fn scripts_and_links_make_the_service_lists() {
        let dir = tempfile::tempdir().unwrap();
        let etc = dir.path();
        for d in ["init.d", "rc2.d", "rcS.d"] {
            std::fs::create_dir(etc.join(d)).unwrap();
        }
        for s in ["README", "alpha", "beta"] {
            std::fs::write(etc.join("init.d").join(s), "#!/bin/sh\n").unwrap();
        }
        std::os::unix::fs::symlink("../init.d/alpha", etc.join("rc2.d/S01alpha")).unwrap();
        std::os::unix::fs::symlink("../init.d/gamma", etc.join("rcS.d/S02gamma")).unwrap();
        std::os::unix::fs::symlink("../init.d/beta", etc.join("rc2.d/K01beta")).unwrap();
        let p = Debian { etc: etc.into() };
        assert_eq!(p.get_enabled(), ["alpha", "gamma"]);
        assert_eq!(p.get_all(), ["alpha", "beta", "gamma"]);
        assert_eq!(p.get_disabled(), ["beta"]);
        assert!(p.available("beta").unwrap());
        assert!(!p.available("README").unwrap());
        assert!(p.enabled("alpha") && !p.enabled("beta"));
    }
}
