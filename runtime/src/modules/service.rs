//! Salt's `service` module. Where systemd is PID 1 it is Salt's
//! `systemd_service` (systemctl, through the `service` state's provider);
//! elsewhere on Debian it is what Salt 3007.8 loads there: `debian_service`
//! (init scripts, `service`, `update-rc.d`) for the everyday functions,
//! through the sysvinit provider, and `systemd_service`'s `show`.

use super::function::{sig, CallError, Ctx, Function, Return};
use super::params::{into_string, Params};
use super::run::run_merged;
use brine_compile::matcher::glob::fnmatch;
use brine_core::{Map, Value};
use brine_states::modules::service::systemd::{self, Systemd};
use brine_states::modules::service::sysvinit::{self, Answer};
use brine_states::modules::service::ServiceProvider;
use std::collections::BTreeSet;

pub(super) const FUNCTIONS: &[Function] = &[
    Function::acts(
        "available",
        sig!(name),
        "True when NAME is a service this host knows.\n\n    brine-call service.available cron",
        |c, p| one(c, p, Verb::Available),
    ),
    Function::acts(
        "disable",
        sig!(name, **kwargs),
        "Keep NAME from starting at boot. True on success.\n\n    \
brine-call service.disable cron",
        |c, p| one(c, p, Verb::Disable),
    ),
    Function::acts(
        "disabled",
        sig!(name),
        "True when NAME does not start at boot.\n\n    brine-call service.disabled cron",
        |c, p| one(c, p, Verb::Disabled),
    ),
    Function::acts(
        "enable",
        sig!(name, **kwargs),
        "Make NAME start at boot. True on success.\n\n    brine-call service.enable cron",
        |c, p| one(c, p, Verb::Enable),
    ),
    Function::acts(
        "enabled",
        sig!(name, **kwargs),
        "True when NAME starts at boot.\n\n    brine-call service.enabled cron",
        |c, p| one(c, p, Verb::Enabled),
    ),
    Function::acts(
        "force_reload",
        sig!(name),
        "Force NAME to reload (restart when it cannot reload). True on \
success.\n\n    brine-call service.force_reload nginx",
        |c, p| one(c, p, Verb::ForceReload),
    ),
    Function::acts(
        "get_all",
        sig!(),
        "Every service this host knows, sorted.\n\n    brine-call service.get_all",
        |c, p| list(c, p, Listing::All),
    ),
    Function::acts(
        "get_disabled",
        sig!(),
        "The services that do not start at boot, sorted.\n\n    \
brine-call service.get_disabled",
        |c, p| list(c, p, Listing::Disabled),
    ),
    Function::acts(
        "get_enabled",
        sig!(),
        "The services that start at boot, sorted.\n\n    brine-call service.get_enabled",
        |c, p| list(c, p, Listing::Enabled),
    ),
    Function::acts(
        "get_running",
        sig!(),
        "The units systemd reports running, sorted ([] when systemd does not \
run).\n\n    brine-call service.get_running",
        |_, p| units(p, Units::Running),
    ),
    Function::acts(
        "get_static",
        sig!(root = null),
        "The units whose unit file is static (started by others only), \
sorted.\n\n    brine-call service.get_static",
        |_, p| units(p, Units::Static),
    ),
    Function::acts(
        "missing",
        sig!(name),
        "True when NAME is not a service this host knows.\n\n    \
brine-call service.missing cron",
        |c, p| one(c, p, Verb::Missing),
    ),
    Function::acts(
        "offline",
        sig!(),
        "Whether systemd is installed but not running (the path of systemctl \
then, as Salt answers), else False.\n\n    brine-call service.offline",
        offline,
    ),
    Function::acts(
        "reload",
        sig!(name),
        "Reload NAME's configuration. True on success.\n\n    \
brine-call service.reload nginx",
        |c, p| one(c, p, Verb::Reload),
    ),
    Function::acts(
        "restart",
        sig!(name),
        "Restart NAME. True on success.\n\n    brine-call service.restart nginx",
        |c, p| one(c, p, Verb::Restart),
    ),
    Function::acts(
        "show",
        sig!(name, root = null),
        "systemd's properties of the unit NAME (`systemctl show`) as a mapping; \
Before/After/Wants as lists, {..} values as mappings.\n\n    \
brine-call service.show cron",
        show,
    ),
    Function::acts(
        "start",
        sig!(name),
        "Start NAME. True on success.\n\n    brine-call service.start nginx",
        |c, p| one(c, p, Verb::Start),
    ),
    Function::acts(
        "status",
        sig!(name, sig = null),
        "True when NAME runs. A NAME with '*', '?' or '[..]' answers a mapping \
for every matching service. SIG: a pattern looked for in the process list \
instead.\n\n    brine-call service.status cron\n    brine-call service.status 'ng*'",
        status,
    ),
    Function::acts(
        "stop",
        sig!(name),
        "Stop NAME. True on success.\n\n    brine-call service.stop nginx",
        |c, p| one(c, p, Verb::Stop),
    ),
];

/// Which of Salt's modules answers `service.*` on this host.
enum Init {
    Systemd,
    SysV,
}

fn init(cx: &Ctx<'_>) -> Result<Init, CallError> {
    if systemd::booted() {
        return Ok(Init::Systemd);
    }
    let os = cx.grains.get("os").and_then(Value::as_str).unwrap_or("");
    if sysvinit::serves(os) {
        return Ok(Init::SysV);
    }
    Err(CallError::Failed(format!(
        "brine manages services through systemd, or init scripts on Debian; this host has neither (os '{os}')"
    )))
}

#[derive(Clone, Copy)]
enum Verb {
    Start,
    Stop,
    Restart,
    Reload,
    ForceReload,
    Enable,
    Disable,
    Enabled,
    Disabled,
    Available,
    Missing,
}

fn answer(a: Answer<bool>) -> Return {
    Return {
        value: Value::Bool(a.value),
        retcode: a.retcode,
    }
}

fn bool_ret(b: bool) -> Return {
    Value::Bool(b).into()
}

fn svc_err(e: brine_states::modules::service::ServiceError) -> CallError {
    CallError::Failed(e.to_string())
}

fn one(cx: &Ctx<'_>, mut p: Params, verb: Verb) -> Result<Return, CallError> {
    let name = into_string(p.require("name")?);
    // Salt's functions take extra keywords (no_block, unmask, root ...) on
    // one init system or another; brine accepts and ignores them.
    p.open_kwargs = true;
    let no_block = p.kwargs.get("no_block").is_some_and(Value::is_truthy);
    p.finish()?;
    Ok(match init(cx)? {
        Init::SysV => match verb {
            Verb::Start => answer(sysvinit::start(&name)),
            Verb::Stop => answer(sysvinit::stop(&name)),
            Verb::Restart => answer(sysvinit::service(&name, "restart")),
            Verb::Reload => answer(sysvinit::service(&name, "reload")),
            Verb::ForceReload => answer(sysvinit::service(&name, "force-reload")),
            Verb::Enable => answer(sysvinit::enable(&name)),
            Verb::Disable => answer(sysvinit::disable(&name)),
            Verb::Enabled => answer(sysvinit::enabled(&name)),
            Verb::Disabled => answer(sysvinit::disabled(&name)),
            Verb::Available => answer(sysvinit::available(&name)),
            Verb::Missing => {
                let a = sysvinit::available(&name);
                answer(Answer {
                    value: !a.value,
                    retcode: a.retcode,
                })
            }
        },
        Init::Systemd => {
            let sd = Systemd { no_block };
            match verb {
                Verb::Start => bool_ret(sd.start(&name).map_err(svc_err)?),
                Verb::Stop => bool_ret(sd.stop(&name)),
                Verb::Restart => bool_ret(sd.restart(&name).map_err(svc_err)?),
                Verb::Reload => bool_ret(sd.reload(&name).map_err(svc_err)?),
                Verb::ForceReload => bool_ret(sd.force_reload(&name).map_err(svc_err)?),
                Verb::Enable => bool_ret(sd.enable(&name).map_err(svc_err)?),
                Verb::Disable => bool_ret(sd.disable(&name)),
                Verb::Enabled => bool_ret(sd.enabled(&name)),
                Verb::Disabled => bool_ret(!sd.enabled(&name)),
                Verb::Available => bool_ret(sd.available(&name).map_err(svc_err)?),
                Verb::Missing => bool_ret(!sd.available(&name).map_err(svc_err)?),
            }
        }
    })
}

fn status(cx: &Ctx<'_>, mut p: Params) -> Result<Return, CallError> {
    let name = match p.require("name")? {
        Value::Str(s) => s,
        // Salt looks for glob characters in the name with a regex.
        other => {
            return Err(CallError::InvalidArguments(format!(
                "expected string or bytes-like object, got '{}'",
                other.type_name()
            )))
        }
    };
    let sig = p.take("sig").filter(Value::is_truthy).map(into_string);
    p.finish()?;
    let kind = init(cx)?;
    if let (Some(sig), Init::SysV) = (&sig, &kind) {
        return Ok(bool_ret(process_matches(sig)?));
    }
    let globbing = name.contains(['*', '?']) || has_class(&name);
    // Listing the services runs `runlevel` (sysvinit); its exit code is
    // the call's until a status check (whose code Salt ignores) runs.
    let (services, mut retcode) = if globbing {
        match kind {
            Init::SysV => {
                let a = sysvinit::matching(&name);
                (a.value, a.retcode)
            }
            Init::Systemd => (
                systemd_all()
                    .into_iter()
                    .filter(|s| fnmatch(s, &name))
                    .collect(),
                0,
            ),
        }
    } else {
        (vec![name.clone()], 0)
    };
    let running = |s: &str| match kind {
        Init::SysV => sysvinit::status(s),
        Init::Systemd => Systemd::default().status(s),
    };
    if !globbing {
        return Ok(bool_ret(running(&name)));
    }
    let mut out = Map::default();
    for s in services {
        let r = running(&s);
        out.insert(s, Value::Bool(r));
        retcode = 0;
    }
    Ok(Return {
        value: Value::Map(out),
        retcode,
    })
}

/// A `[..]` character class with something inside (Salt's `\[.+\]`).
fn has_class(name: &str) -> bool {
    name.find('[')
        .is_some_and(|i| name[i + 1..].find(']').is_some_and(|j| j > 0))
}

/// Salt's `status.pid`: any process-list line matching the pattern (this
/// call's own process aside).
fn process_matches(sig: &str) -> Result<bool, CallError> {
    let re = regex::Regex::new(sig)
        .map_err(|e| CallError::Failed(format!("Invalid sig pattern: {e}")))?;
    let me = std::process::id().to_string();
    let r = run_merged(&["ps", "-efHww"])?;
    Ok(r.stdout
        .lines()
        .any(|l| re.is_match(l) && l.split_whitespace().nth(1) != Some(me.as_str())))
}

#[derive(Clone, Copy)]
enum Listing {
    All,
    Enabled,
    Disabled,
}

fn list(cx: &Ctx<'_>, mut p: Params, which: Listing) -> Result<Return, CallError> {
    let kind = init(cx)?;
    // debian_service's listings take no arguments; systemd's take root.
    if matches!(kind, Init::Systemd) && p.take("root").is_some_and(|v| !v.is_null()) {
        return Err(CallError::Failed(
            "service: root= is not supported by brine".into(),
        ));
    }
    p.finish()?;
    let strs = |v: Vec<String>| Value::List(v.into_iter().map(Value::Str).collect());
    Ok(match kind {
        Init::SysV => {
            let a = match which {
                Listing::All => sysvinit::get_all(),
                Listing::Enabled => sysvinit::get_enabled(),
                Listing::Disabled => sysvinit::get_disabled(),
            };
            Return {
                value: strs(a.value),
                retcode: a.retcode,
            }
        }
        Init::Systemd => strs(match which {
            Listing::All => systemd_all(),
            Listing::Enabled => systemd_by_state("enabled", true),
            Listing::Disabled => systemd_by_state("disabled", false),
        })
        .into(),
    })
}

fn unit_short(full: &str) -> Option<String> {
    let (name, kind) = full.rsplit_once('.')?;
    systemd::UNIT_TYPES.contains(&kind).then(|| {
        if kind == "service" {
            name.to_string()
        } else {
            full.to_string()
        }
    })
}

/// systemd_service's `get_all`: unit files in systemd's directories, and
/// init scripts without a unit.
fn systemd_all() -> Vec<String> {
    let mut set = systemd_units();
    let units = set.clone();
    set.extend(sysv_scripts().into_iter().filter(|s| !units.contains(s)));
    set.into_iter().collect()
}

/// The units in systemd's unit directories (a symlinked directory is
/// another's alias and skipped).
fn systemd_units() -> BTreeSet<String> {
    let mut set = BTreeSet::new();
    for dir in [
        "/usr/lib/systemd/system",
        "/lib/systemd/system",
        "/etc/systemd/system",
    ] {
        let Ok(meta) = std::fs::symlink_metadata(dir) else {
            continue;
        };
        if meta.file_type().is_symlink() {
            continue;
        }
        if let Ok(rd) = std::fs::read_dir(dir) {
            set.extend(
                rd.flatten()
                    .filter_map(|e| unit_short(&e.file_name().to_string_lossy())),
            );
        }
    }
    set
}

/// Executable init scripts.
fn sysv_scripts() -> Vec<String> {
    use std::os::unix::fs::PermissionsExt;
    let Ok(rd) = std::fs::read_dir("/etc/init.d") else {
        return Vec::new();
    };
    rd.flatten()
        .filter(|e| {
            e.metadata()
                .is_ok_and(|m| m.permissions().mode() & 0o111 != 0)
        })
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect()
}

/// The units `systemctl ... list-unit-files` (or, without `files`, the
/// loaded units) shows with `state` in column `col`.
fn systemctl_units(files: bool, col: usize, state: &str) -> BTreeSet<String> {
    let mut argv = vec!["systemctl", "--full", "--no-legend", "--no-pager"];
    if files {
        argv.push("list-unit-files");
    }
    let out = super::run::run(&argv).map(|r| r.stdout).unwrap_or_default();
    out.lines()
        .filter_map(|l| {
            let cols: Vec<&str> = l.split_whitespace().collect();
            let full = cols.first()?;
            (cols.get(col) == Some(&state))
                .then(|| unit_short(full))
                .flatten()
        })
        .collect()
}

#[derive(Clone, Copy)]
enum Units {
    Running,
    Static,
}

fn units(mut p: Params, which: Units) -> Result<Return, CallError> {
    if matches!(which, Units::Static) && p.take("root").is_some_and(|v| !v.is_null()) {
        return Err(CallError::Failed(
            "service: root= is not supported by brine".into(),
        ));
    }
    p.finish()?;
    let set = match which {
        Units::Running => systemctl_units(false, 3, "running"),
        Units::Static => systemctl_units(true, 1, "static"),
    };
    Ok(Value::List(set.into_iter().map(Value::Str).collect()).into())
}

fn offline(_: &Ctx<'_>, p: Params) -> Result<Return, CallError> {
    p.finish()?;
    let path = brine_host::path::which("systemctl").filter(|_| !systemd::booted());
    Ok(path
        .map_or(Value::Bool(false), |p| Value::Str(p.display().to_string()))
        .into())
}

/// Units whose unit-file state is `state`, and init scripts enabled (or
/// not) in the current runlevel.
fn systemd_by_state(state: &str, enabled: bool) -> Vec<String> {
    let mut set = systemctl_units(true, 1, state);
    let sd = Systemd::default();
    let units = systemd_units();
    for s in sysv_scripts().into_iter().filter(|s| !units.contains(s)) {
        if sd.enabled(&s) == enabled {
            set.insert(s);
        }
    }
    set.into_iter().collect()
}

/// systemd_service's `show`: `systemctl show NAME` (stderr folded in, as
/// Salt reads it) as a mapping.
fn show(_: &Ctx<'_>, mut p: Params) -> Result<Return, CallError> {
    let name = into_string(p.require("name")?);
    if p.take("root").is_some_and(|v| !v.is_null()) {
        return Err(CallError::Failed(
            "service: root= is not supported by brine".into(),
        ));
    }
    p.finish()?;
    let unit = systemd::canonical_unit_name(&name);
    let r = run_merged(&["systemctl", "show", &unit])?;
    let mut ret = Map::default();
    for line in r.stdout.lines() {
        let (key, value) = match line.split_once('=') {
            Some((k, v)) => (k.to_string(), v.to_string()),
            None => (line.to_string(), String::new()),
        };
        let v = if value.starts_with('{') {
            let inner = value.replace(['{', '}'], "");
            let mut m = Map::default();
            for item in inner.split(" ; ") {
                let (k, v) = item.split_once('=').ok_or_else(|| {
                    CallError::Failed("IndexError: list index out of range".into())
                })?;
                let v = v.split('=').next().unwrap_or(v);
                m.insert(k.trim().to_string(), Value::Str(v.trim().to_string()));
            }
            Value::Map(m)
        } else if matches!(key.as_str(), "Before" | "After" | "Wants") {
            Value::List(
                value
                    .split_whitespace()
                    .map(|s| Value::Str(s.into()))
                    .collect(),
            )
        } else {
            Value::Str(value)
        };
        ret.insert(key, v);
    }
    Ok(Return {
        value: Value::Map(ret),
        retcode: r.retcode,
    })
}

#[cfg(test)]
mod tests {
    use super::super::testkit::{is_root, minion, run, sh};
    use serde_json::json;
    use std::path::Path;

    const SVC: &str = "brinex14svc";
    const MARK: &str = "/tmp/brinex14svc.running";

    /// A tiny init script: start/stop touch and remove a marker file.
    fn script() -> String {
        format!(
            "#!/bin/sh\n### BEGIN INIT INFO\n# Provides:          {SVC}\n# Required-Start:\n\
# Required-Stop:\n# Default-Start:     2 3 4 5\n# Default-Stop:      0 1 6\n\
# Short-Description: brine test service\n### END INIT INFO\n\
case \"$1\" in\n  start|restart|reload|force-reload) touch {MARK} ;;\n  stop) rm -f {MARK} ;;\n\
  status) [ -e {MARK} ] ;;\n  *) exit 3 ;;\nesac\n"
        )
    }

    struct Cleanup;
    impl Drop for Cleanup {
        fn drop(&mut self) {
            sh(&["update-rc.d", "-f", SVC, "remove"]);
            let _ = std::fs::remove_file(format!("/etc/init.d/{SVC}"));
            let _ = std::fs::remove_file(MARK);
        }
    }

    /// Start, stop and boot links of a throwaway init script through the
    /// execution functions, where systemd is not PID 1 (this test's
    /// machines); the script and its links are removed afterwards.
    #[test]
    fn sysv_script_through_the_execution_functions() {
        use std::os::unix::fs::PermissionsExt;
        if !is_root()
            || brine_states::modules::service::systemd::booted()
            || brine_host::path::which("update-rc.d").is_none()
            || brine_host::path::which("service").is_none()
        {
            println!("skipped: needs root, no systemd, update-rc.d and service");
            return;
        }
        let _guard = Cleanup;
        let path = format!("/etc/init.d/{SVC}");
        std::fs::write(&path, script()).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        let mut m = minion();
        let mut call = |fun: &str, args: &[&str]| run(&mut m, fun, args).unwrap();

        assert_eq!(call("service.available", &[SVC]), json!(true));
        assert_eq!(call("service.missing", &[SVC]), json!(false));
        assert!(call("service.get_all", &[])
            .as_array()
            .unwrap()
            .contains(&json!(SVC)));
        assert_eq!(call("service.status", &[SVC]), json!(false));
        assert_eq!(call("service.start", &[SVC]), json!(true));
        assert!(Path::new(MARK).exists());
        assert_eq!(call("service.status", &[SVC]), json!(true));
        assert_eq!(call("service.status", &["brinex14sv?"]), json!({SVC: true}));
        assert_eq!(call("service.restart", &[SVC]), json!(true));
        assert_eq!(call("service.reload", &[SVC]), json!(true));
        assert_eq!(call("service.stop", &[SVC]), json!(true));
        assert!(!Path::new(MARK).exists());
        assert_eq!(call("service.status", &[SVC]), json!(false));
        assert_eq!(call("service.disabled", &[SVC]), json!(true));

        // Boot links made by hand: Salt reads a start link's service name
        // after its last digits, so "S01brinex14svc" counts as "svc" and
        // this service never reads as enabled (as in Salt).
        assert_eq!(sh(&["update-rc.d", SVC, "defaults"]).retcode, 0);
        let enabled = call("service.get_enabled", &[]);
        assert!(
            enabled.as_array().unwrap().contains(&json!("svc")),
            "{enabled}"
        );
        assert_eq!(call("service.enabled", &[SVC]), json!(false));
        assert_eq!(call("service.disable", &[SVC]), json!(true));
        let links: Vec<String> = std::fs::read_dir("/etc/rc2.d")
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(SVC))
            .collect();
        assert!(links.iter().all(|l| l.starts_with('K')), "{links:?}");
    }
}
