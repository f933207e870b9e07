//! The `service` state module: `running`, `dead`, `enabled`, `disabled`,
//! `masked`, `unmasked` and `mod_watch`, as Salt's `salt/states/service.py`
//! runs them over its `systemd_service` execution module.
//!
//! Which init system answers follows Salt's loader. Where systemd is PID 1
//! (`/run/systemd/system` exists), systemd. Where it is not but
//! `systemctl` is installed (a container built from a systemd
//! distribution), Salt is in its "offline" mode: `running` and `dead`
//! succeed without doing anything. The other functions go to the Debian
//! init scripts on a minion whose `os` grain is Debian's ([`sysvinit`]), to
//! offline systemd elsewhere (which cannot tell about units), and fail,
//! saying systemd is not running, where there is neither.

mod provider;
pub mod systemd;
pub mod sysvinit;

pub use provider::{ServiceError, ServiceProvider};

use super::user::support::{failed, is_true, Args};
use crate::{StateCall, StateFunction, StateModule, StateReturn};
use brine_core::sig;
use brine_core::signature::Signature;
use brine_core::{Map, Value};

/// The failed return when systemd is not running.
pub fn no_systemd(fun: &str, name: &str) -> StateReturn {
    failed(
        name,
        format!(
            "service.{fun} cannot manage service {name}: systemd is not running on this minion ({} does not exist), and brine manages services only through systemd",
            systemd::BOOTED_MARKER
        ),
    )
}

/// The `service` state module.
/// The signature several functions here share (Salt's, recorded).
const DEAD_SIG: Signature = sig!(name, enable = null, sig = null, init_delay = null, **kwargs);

pub static MODULE: StateModule = StateModule {
    name: "service",
    doc: "Manage systemd services: running or stopped, enabled at boot or not, \
masked or not; a watch restarts (or reloads) a running service.",
    functions: &[
        StateFunction::new(
            "dead",
            DEAD_SIG,
            "The service NAME is stopped (and disabled with enable=False).",
            |call| unless_offline(call, dead),
        ),
        StateFunction::new(
            "disabled",
            sig!(name, **kwargs),
            "The service NAME does not start at boot.",
            |call| with_provider(call, disabled),
        ),
        StateFunction::new(
            "enabled",
            sig!(name, **kwargs),
            "The service NAME starts at boot.",
            |call| with_provider(call, enabled),
        ),
        StateFunction::new(
            "masked",
            sig!(name, runtime = false),
            "The service NAME is masked (runtime=True: until reboot).",
            |call| {
                with_provider(call, |p, call| {
                    masked(p, call.name(), call.truthy("runtime", false), call.test)
                })
            },
        ),
        StateFunction::new(
            "mod_watch",
            sig!(
                name,
                sfun = null,
                sig = null,
                reload = false,
                full_restart = false,
                init_delay = null,
                force = false,
                **kwargs
            ),
            "What a watch requisite on a service state runs: restart (or \
reload with reload=True) the running service, start a stopped one.",
            |call| with_provider(call, mod_watch),
        ),
        StateFunction::new(
            "running",
            DEAD_SIG,
            "The service NAME is running (and enabled at boot with \
enable=True).",
            |call| unless_offline(call, running),
        ),
        StateFunction::new(
            "unmasked",
            sig!(name, runtime = false),
            "The service NAME is not masked.",
            |call| {
                with_provider(call, |p, call| {
                    unmasked(p, call.name(), call.truthy("runtime", false), call.test)
                })
            },
        ),
    ],
};

/// [`with_provider`] for `running` and `dead`, which do nothing in
/// systemd's offline mode.
fn unless_offline(
    call: &StateCall,
    f: fn(&dyn ServiceProvider, &StateCall) -> StateReturn,
) -> StateReturn {
    if systemd::offline() {
        let mut ret = StateReturn::new(call.name());
        ret.comment = "Running in OFFLINE mode. Nothing to do".into();
        return ret;
    }
    with_provider(call, f)
}

/// Run `f` with the init system's provider.
fn with_provider(
    call: &StateCall,
    f: fn(&dyn ServiceProvider, &StateCall) -> StateReturn,
) -> StateReturn {
    match provider(call) {
        Some(p) => f(p.as_ref(), call),
        None => no_systemd(call.fun(), call.name()),
    }
}

/// The init system Salt's loader would pick: systemd where it is PID 1;
/// the Debian init scripts on a minion whose `os` grain `debian_service`
/// serves (masks stay systemd's business); systemd in its offline mode
/// where only `systemctl` is installed.
fn provider(call: &StateCall) -> Option<Box<dyn ServiceProvider>> {
    let systemd = || {
        Box::new(systemd::Systemd {
            no_block: call.truthy("no_block", false),
        })
    };
    if systemd::booted() {
        return Some(systemd());
    }
    let os = call.ctx.grains.get("os").and_then(Value::as_str);
    let masks = matches!(call.fun(), "masked" | "unmasked");
    if os.is_some_and(sysvinit::serves) && !masks {
        return Some(Box::new(sysvinit::SysVinit));
    }
    systemd::offline().then(|| systemd() as Box<dyn ServiceProvider>)
}

/// Run `call.fun()` against `provider`.
/// What `_enable`/`_disable` return: only the keys they set are merged
/// into the state's return (Python's `ret.update`).
#[derive(Debug, Default)]
struct Partial {
    result: Option<Option<bool>>,
    comment: Option<String>,
    changes: Option<Map>,
}

impl Partial {
    fn apply(self, ret: &mut StateReturn) {
        if let Some(r) = self.result {
            ret.result = r;
        }
        if let Some(c) = self.comment {
            ret.comment = c;
        }
        if let Some(ch) = self.changes {
            ret.changes = ch;
        }
    }
}

/// Salt's `enable` argument: a string is read with `is_true`; only real
/// booleans (or such strings) count as True/False.
fn enable_arg(call: &StateCall) -> Option<bool> {
    match call.value("enable") {
        Some(Value::Bool(b)) => Some(*b),
        Some(v @ Value::Str(_)) => Some(is_true(v)),
        _ => None,
    }
}

fn not_available(name: &str) -> String {
    format!("The named service {name} is not available")
}

/// `_available`: `Ok(false)` after filling the not-available answer.
fn available(
    p: &dyn ServiceProvider,
    name: &str,
    part: &mut Partial,
) -> Result<bool, ServiceError> {
    let avail = p.available(name)?;
    if !avail {
        part.result = Some(Some(false));
        part.comment = Some(not_available(name));
    }
    Ok(avail)
}

fn started_text(started: Option<bool>, running: &str, desired: &str, dead: &str) -> String {
    match started {
        Some(true) => running.to_string(),
        None => desired.to_string(),
        Some(false) => dead.to_string(),
    }
}

fn do_enable(
    p: &dyn ServiceProvider,
    name: &str,
    started: Option<bool>,
    result: Option<bool>,
    test: bool,
) -> Partial {
    let mut part = Partial::default();
    match available(p, name, &mut part) {
        Ok(true) => {}
        Ok(false) => return part,
        Err(e) => {
            part.result = Some(Some(false));
            part.comment = Some(e.to_string());
            return part;
        }
    }
    part.result = Some(result);
    let before = p.enabled(name);
    if before {
        part.comment = Some(started_text(
            started,
            &format!("Service {name} is already enabled, and is running"),
            &format!("Service {name} is already enabled, and is in the desired state"),
            &format!("Service {name} is already enabled, and is dead"),
        ));
        if started.is_none() {
            part.changes = Some(Map::default());
        }
        return part;
    }
    if test {
        part.result = Some(None);
        part.comment = Some(format!("Service {name} set to be enabled"));
        return part;
    }
    let error = match p.enable(name) {
        Ok(true) => {
            let mut changes = Map::default();
            if p.enabled(name) != before {
                changes.insert(name.into(), Value::Bool(true));
            }
            part.changes = Some(changes);
            part.comment = Some(started_text(
                started,
                &format!("Service {name} has been enabled, and is running"),
                &format!("Service {name} has been enabled, and is in the desired state"),
                &format!("Service {name} has been enabled, and is dead"),
            ));
            return part;
        }
        Ok(false) => None,
        Err(e) => Some(e.to_string()),
    };
    part.result = Some(Some(false));
    let mut comment = started_text(
        started,
        &format!("Failed when setting service {name} to start at boot, but the service is running"),
        &format!("Failed when setting service {name} to start at boot, but the service was already running"),
        &format!("Failed when setting service {name} to start at boot, and the service is dead"),
    );
    if let Some(e) = error.filter(|e| !e.is_empty()) {
        comment.push_str(&format!(". Additional information follows:\n\n{e}"));
    }
    part.comment = Some(comment);
    part
}

fn do_disable(
    p: &dyn ServiceProvider,
    name: &str,
    started: Option<bool>,
    result: Option<bool>,
    test: bool,
) -> Partial {
    let mut part = Partial::default();
    match available(p, name, &mut part) {
        Ok(true) => {}
        Ok(false) => {
            // A service that does not exist is as disabled as it gets.
            part.result = Some(Some(true));
            return part;
        }
        Err(e) => {
            part.result = Some(Some(false));
            part.comment = Some(e.to_string());
            return part;
        }
    }
    part.result = Some(result);
    let before = !p.enabled(name);
    if before {
        part.comment = Some(started_text(
            started,
            &format!("Service {name} is already disabled, and is running"),
            &format!("Service {name} is already disabled, and is in the desired state"),
            &format!("Service {name} is already disabled, and is dead"),
        ));
        if started.is_none() {
            part.changes = Some(Map::default());
        }
        return part;
    }
    if test {
        part.result = Some(None);
        part.comment = Some(format!("Service {name} set to be disabled"));
        return part;
    }
    if p.disable(name) {
        let mut changes = Map::default();
        if p.enabled(name) == before {
            changes.insert(name.into(), Value::Bool(true));
        }
        part.changes = Some(changes);
        part.comment = Some(started_text(
            started,
            &format!("Service {name} has been disabled, and is running"),
            &format!("Service {name} has been disabled, and is in the desired state"),
            &format!("Service {name} has been disabled, and is dead"),
        ));
        return part;
    }
    part.result = Some(Some(false));
    part.comment = Some(started_text(
        started,
        &format!("Failed when setting service {name} to not start at boot, and is running"),
        &format!("Failed when setting service {name} to not start at boot, but the service was already running"),
        &format!("Failed when setting service {name} to not start at boot, and the service is dead"),
    ));
    part
}

fn enabled_used_error(name: &str) -> StateReturn {
    failed(
        name,
        format!("Service {name} uses non-existent option \"enabled\".  Perhaps \"enable\" option was intended?"),
    )
}

/// `init_delay` in seconds (a number; anything else is no delay).
fn init_delay(call: &StateCall) -> Option<Value> {
    call.value("init_delay").filter(|v| v.is_truthy()).cloned()
}

fn sleep_for(v: &Value) {
    let secs = match v {
        Value::Int(i) => *i as f64,
        Value::Float(f) => *f,
        Value::Str(s) => s.trim().parse().unwrap_or(0.0),
        _ => 0.0,
    };
    if secs.is_finite() && secs > 0.0 {
        std::thread::sleep(std::time::Duration::from_secs_f64(secs.min(86400.0)));
    }
}

fn join_nonempty(parts: &[&str]) -> String {
    parts
        .iter()
        .filter(|p| !p.is_empty())
        .copied()
        .collect::<Vec<_>>()
        .join("\n")
}

/// `service.running`.
pub fn running(p: &dyn ServiceProvider, call: &StateCall) -> StateReturn {
    let name = call.name();
    let test = call.test;
    let mut ret = StateReturn::new(name);
    if call.value("enabled").is_some() {
        return enabled_used_error(name);
    }
    let enable = enable_arg(call);
    let mut part = Partial::default();
    match available(p, name, &mut part) {
        Ok(true) => {}
        Ok(false) => {
            part.apply(&mut ret);
            if test {
                ret.result = None;
                ret.comment = format!("Service {name} not present; if created in this state run, it would have been started");
            }
            return ret;
        }
        Err(e) => return failed(name, e.to_string()),
    }
    let before_status = p.status(name);
    let before_enable = p.enabled(name);
    let unmask = call.truthy("unmask", false);
    let mut unmask_comment = String::new();
    if unmask {
        unmask_comment = unmasked(p, name, call.truthy("unmask_runtime", false), test).comment;
    }
    if before_status {
        ret.comment = join_nonempty(&[
            &format!("The service {name} is already running"),
            &unmask_comment,
        ]);
        if enable == Some(true) && !before_enable {
            do_enable(p, name, None, Some(true), test).apply(&mut ret);
        } else if enable == Some(false) && before_enable {
            do_disable(p, name, None, Some(true), test).apply(&mut ret);
        }
        return ret;
    }
    if test {
        ret.result = None;
        ret.comment = join_nonempty(&[&format!("Service {name} is set to start"), &unmask_comment]);
        return ret;
    }
    match p.start(name) {
        Err(e) => return failed(name, e.to_string()),
        Ok(false) => {
            ret.result = Some(false);
            ret.comment = format!("Service {name} failed to start");
            if enable == Some(true) {
                do_enable(p, name, Some(false), Some(false), test).apply(&mut ret);
            } else if enable == Some(false) {
                do_disable(p, name, Some(false), Some(false), test).apply(&mut ret);
            }
            return ret;
        }
        Ok(true) => {}
    }
    let delay = init_delay(call);
    if let Some(d) = &delay {
        sleep_for(d);
    }
    let after_status = p.status(name);
    let after_enable = p.enabled(name);
    if (before_enable != after_enable || before_status != after_status) && ret.changes.is_empty() {
        ret.changes.insert(name.into(), Value::Bool(after_status));
    }
    if after_status {
        ret.comment = format!("Started service {name}");
    } else {
        ret.comment = format!("Service {name} failed to start");
        ret.result = Some(false);
    }
    if enable == Some(true) {
        do_enable(p, name, Some(after_status), Some(after_status), test).apply(&mut ret);
    } else if enable == Some(false) {
        do_disable(p, name, Some(after_status), Some(after_status), test).apply(&mut ret);
    }
    if let Some(d) = &delay {
        ret.comment = format!(
            "{}\nDelayed return for {} seconds",
            ret.comment,
            d.to_python_str()
        );
    }
    if unmask {
        ret.comment = format!("{}\n{}", ret.comment, unmask_comment);
    }
    ret
}

/// `service.dead`.
pub fn dead(p: &dyn ServiceProvider, call: &StateCall) -> StateReturn {
    let name = call.name();
    let test = call.test;
    let mut ret = StateReturn::new(name);
    if call.value("enabled").is_some() {
        return enabled_used_error(name);
    }
    let enable = enable_arg(call);
    let mut part = Partial::default();
    match available(p, name, &mut part) {
        Ok(true) => {}
        Ok(false) => {
            part.apply(&mut ret);
            if test {
                ret.result = None;
                ret.comment = format!("Service {name} not present; if created in this state run, it would have been stopped");
            } else {
                ret.result = Some(true);
            }
            return ret;
        }
        Err(e) => return failed(name, e.to_string()),
    }
    let before_status = p.status(name);
    let before_enable = p.enabled(name);
    if !before_status {
        ret.comment = format!("The service {name} is already dead");
        if enable == Some(true) && !before_enable {
            do_enable(p, name, None, Some(true), test).apply(&mut ret);
        } else if enable == Some(false) && before_enable {
            do_disable(p, name, None, Some(true), test).apply(&mut ret);
        }
        return ret;
    }
    if test {
        ret.result = None;
        ret.comment = format!("Service {name} is set to be killed");
        return ret;
    }
    if !p.stop(name) {
        ret.result = Some(false);
        ret.comment = format!("Service {name} failed to die");
        if enable == Some(true) {
            do_enable(p, name, Some(true), Some(false), test).apply(&mut ret);
        } else if enable == Some(false) {
            do_disable(p, name, Some(true), Some(false), test).apply(&mut ret);
        }
        return ret;
    }
    if let Some(d) = init_delay(call) {
        sleep_for(&d);
    }
    let after_status = p.status(name);
    let after_enable = p.enabled(name);
    if (before_enable != after_enable || before_status != after_status) && ret.changes.is_empty() {
        ret.changes.insert(name.into(), Value::Bool(after_status));
    }
    if after_status {
        ret.result = Some(false);
        ret.comment = format!("Service {name} failed to die");
    } else {
        ret.comment = format!("Service {name} was killed");
    }
    if enable == Some(true) {
        do_enable(p, name, Some(after_status), Some(!after_status), test).apply(&mut ret);
    } else if enable == Some(false) {
        do_disable(p, name, Some(after_status), Some(!after_status), test).apply(&mut ret);
    }
    ret
}

/// `service.enabled`.
pub fn enabled(p: &dyn ServiceProvider, call: &StateCall) -> StateReturn {
    let name = call.name();
    let mut ret = StateReturn::new(name);
    do_enable(p, name, None, Some(true), call.test).apply(&mut ret);
    if call.test && ret.comment == not_available(name) {
        ret.result = None;
        ret.comment = format!(
            "Service {name} not present; if created in this state run, it would have been enabled"
        );
    }
    ret
}

/// `service.disabled`.
pub fn disabled(p: &dyn ServiceProvider, call: &StateCall) -> StateReturn {
    let name = call.name();
    let mut ret = StateReturn::new(name);
    do_disable(p, name, None, Some(true), call.test).apply(&mut ret);
    ret
}

fn mask_changes(kind: &str, old: bool) -> Map {
    let mut inner = Map::default();
    inner.insert("old".into(), Value::Bool(old));
    inner.insert("new".into(), Value::Bool(!old));
    let mut m = Map::default();
    m.insert(kind.into(), Value::Map(inner));
    m
}

/// `service.masked`.
pub fn masked(p: &dyn ServiceProvider, name: &str, runtime: bool, test: bool) -> StateReturn {
    let mut ret = StateReturn::new(name);
    let kind = if runtime { "runtime masked" } else { "masked" };
    let res = (|| -> Result<(), ServiceError> {
        if p.masked(name, runtime)? {
            ret.comment = format!("Service {name} is already {kind}");
            return Ok(());
        }
        if test {
            ret.result = None;
            ret.changes = mask_changes(kind, false);
            ret.comment = format!("Service {name} would be {kind}");
            return Ok(());
        }
        p.mask(name, runtime)?;
        if p.masked(name, runtime)? {
            ret.changes = mask_changes(kind, false);
            ret.comment = format!("Service {name} was {kind}");
        } else {
            ret.comment = format!("Failed to mask service {name}");
        }
        Ok(())
    })();
    match res {
        Ok(()) => ret,
        Err(e) => failed(name, e.to_string()),
    }
}

/// `service.unmasked`.
pub fn unmasked(p: &dyn ServiceProvider, name: &str, runtime: bool, test: bool) -> StateReturn {
    let mut ret = StateReturn::new(name);
    let kind = if runtime { "runtime masked" } else { "masked" };
    let action = if runtime {
        "runtime unmasked"
    } else {
        "unmasked"
    };
    let res = (|| -> Result<(), ServiceError> {
        if !p.masked(name, runtime)? {
            ret.comment = format!("Service {name} was already {action}");
            return Ok(());
        }
        if test {
            ret.result = None;
            ret.changes = mask_changes(kind, true);
            ret.comment = format!("Service {name} would be {action}");
            return Ok(());
        }
        p.unmask(name, runtime)?;
        if !p.masked(name, runtime)? {
            ret.changes = mask_changes(kind, true);
            ret.comment = format!("Service {name} was {action}");
        } else {
            ret.comment = format!("Failed to unmask service {name}");
        }
        Ok(())
    })();
    match res {
        Ok(()) => ret,
        Err(e) => failed(name, e.to_string()),
    }
}

/// `service.mod_watch`: restart (or reload, or start) a running service
/// whose watched states changed; stop it for `service.dead`.
pub fn mod_watch(p: &dyn ServiceProvider, call: &StateCall) -> StateReturn {
    let name = call.name();
    let mut ret = StateReturn::new(name);
    // The runtime passes the watching function as `sfun` (Salt's way) or
    // leaves it in `fun`.
    let sfun = call
        .value("sfun")
        .map(Value::to_python_str)
        .unwrap_or_else(|| call.fun().to_string());
    let reload = call.truthy("reload", false);
    let force = call.truthy("force", false);
    type Action<'a> = Box<dyn Fn() -> Result<bool, ServiceError> + 'a>;
    let (verb, past, func): (&str, String, Action) = match sfun.as_str() {
        "dead" => {
            if !p.status(name) {
                ret.comment = "Service is already stopped".into();
                return ret;
            }
            ("stop", "stopped".into(), Box::new(|| Ok(p.stop(name))))
        }
        "running" => {
            if p.status(name) {
                if reload && force {
                    (
                        "forcefully reload",
                        "forcefully reloaded".into(),
                        Box::new(|| p.force_reload(name)),
                    )
                } else if reload {
                    ("reload", "reloaded".into(), Box::new(|| p.reload(name)))
                } else {
                    // systemd has no full restart; Salt then restarts too.
                    ("restart", "restarted".into(), Box::new(|| p.restart(name)))
                }
            } else {
                ("start", "started".into(), Box::new(|| p.start(name)))
            }
        }
        other => {
            return failed(name, format!("Unable to trigger watch for service.{other}"));
        }
    };
    if call.test {
        ret.result = None;
        ret.comment = format!("Service is set to be {past}");
        return ret;
    }
    if verb == "start" {
        p.stop(name);
    }
    let result = match func() {
        Ok(r) => r,
        Err(e) => return failed(name, e.to_string()),
    };
    if let Some(d) = init_delay(call) {
        sleep_for(&d);
    }
    ret.changes.insert(name.into(), Value::Bool(result));
    ret.result = Some(result);
    ret.comment = if result {
        format!("Service {past}")
    } else {
        format!("Failed to {verb} the service")
    };
    ret
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::modules::group::tests::{ctx, low};
    use std::cell::RefCell;

    /// The state function of `call` with provider `p` (a fake one here).
    fn dispatch(p: &dyn ServiceProvider, call: &StateCall) -> StateReturn {
        let (name, runtime) = (call.name(), call.truthy("runtime", false));
        match call.fun() {
            "running" => running(p, call),
            "dead" => dead(p, call),
            "enabled" => enabled(p, call),
            "disabled" => disabled(p, call),
            "masked" => masked(p, name, runtime, call.test),
            "unmasked" => unmasked(p, name, runtime, call.test),
            "mod_watch" => mod_watch(p, call),
            other => panic!("service.{other}"),
        }
    }

    /// A fake init system for unit tests of the decision and comment logic
    /// only (no real service is touched): it records the calls it gets.
    #[derive(Default)]
    struct FakeProvider {
        exists: bool,
        running: RefCell<bool>,
        enabled: RefCell<bool>,
        masked: RefCell<bool>,
        start_works: bool,
        enable_error: Option<String>,
        calls: RefCell<Vec<String>>,
    }

    impl FakeProvider {
        fn new(running: bool, enabled: bool) -> FakeProvider {
            FakeProvider {
                exists: true,
                running: RefCell::new(running),
                enabled: RefCell::new(enabled),
                start_works: true,
                ..Default::default()
            }
        }
        fn log(&self, s: &str) {
            self.calls.borrow_mut().push(s.to_string());
        }
    }

    impl ServiceProvider for FakeProvider {
        fn available(&self, _: &str) -> Result<bool, ServiceError> {
            Ok(self.exists)
        }
        fn status(&self, _: &str) -> bool {
            *self.running.borrow()
        }
        fn enabled(&self, _: &str) -> bool {
            *self.enabled.borrow()
        }
        fn start(&self, _: &str) -> Result<bool, ServiceError> {
            self.log("start");
            if self.start_works {
                *self.running.borrow_mut() = true;
            }
            Ok(true)
        }
        fn stop(&self, _: &str) -> bool {
            self.log("stop");
            *self.running.borrow_mut() = false;
            true
        }
        fn restart(&self, _: &str) -> Result<bool, ServiceError> {
            self.log("restart");
            Ok(true)
        }
        fn reload(&self, _: &str) -> Result<bool, ServiceError> {
            self.log("reload");
            Ok(true)
        }
        fn force_reload(&self, _: &str) -> Result<bool, ServiceError> {
            self.log("force-reload");
            Ok(true)
        }
        fn enable(&self, _: &str) -> Result<bool, ServiceError> {
            self.log("enable");
            if let Some(e) = &self.enable_error {
                return Err(ServiceError::Refused {
                    unit: "web".into(),
                    verb: "enable".into(),
                    message: e.clone(),
                });
            }
            *self.enabled.borrow_mut() = true;
            Ok(true)
        }
        fn disable(&self, _: &str) -> bool {
            self.log("disable");
            *self.enabled.borrow_mut() = false;
            true
        }
        fn masked(&self, _: &str, _: bool) -> Result<bool, ServiceError> {
            Ok(*self.masked.borrow())
        }
        fn mask(&self, _: &str, _: bool) -> Result<(), ServiceError> {
            *self.masked.borrow_mut() = true;
            Ok(())
        }
        fn unmask(&self, _: &str, _: bool) -> Result<(), ServiceError> {
            *self.masked.borrow_mut() = false;
            Ok(())
        }
    }

    fn run(p: &FakeProvider, fun: &str, test: bool, args: &[(&str, Value)]) -> StateReturn {
        let ctx = ctx();
        let low = low("service", fun, "web", args);
        dispatch(
            p,
            &StateCall {
                low: &low,
                test,
                ctx: &ctx,
            },
        )
    }

    fn changed(v: bool) -> Map {
        let mut m = Map::default();
        m.insert("web".into(), Value::Bool(v));
        m
    }

    #[test]
    fn fake_provider_running_decisions_and_comments() {
        let p = FakeProvider::new(false, false);
        let r = run(&p, "running", true, &[]);
        assert_eq!(
            (r.result, r.comment.as_str()),
            (None, "Service web is set to start")
        );
        assert!(p.calls.borrow().is_empty());

        let r = run(&p, "running", false, &[("enable", Value::Bool(true))]);
        assert_eq!(r.result, Some(true));
        assert_eq!(r.comment, "Service web has been enabled, and is running");
        assert_eq!(r.changes, changed(true));
        assert_eq!(*p.calls.borrow(), ["start", "enable"]);

        let r = run(&p, "running", false, &[]);
        assert_eq!(
            (r.result, r.comment.as_str()),
            (Some(true), "The service web is already running")
        );
        assert!(r.changes.is_empty());

        let r = run(
            &p,
            "running",
            true,
            &[("enable", Value::Str("False".into()))],
        );
        assert_eq!(
            (r.result, r.comment.as_str()),
            (None, "Service web set to be disabled")
        );

        let r = run(&p, "running", false, &[("enabled", Value::Bool(true))]);
        assert_eq!(r.result, Some(false));
        assert_eq!(r.comment, "Service web uses non-existent option \"enabled\".  Perhaps \"enable\" option was intended?");

        let p = FakeProvider::new(false, false);
        let r = run(&p, "running", false, &[("init_delay", Value::Float(0.01))]);
        assert_eq!(
            r.comment,
            "Started service web\nDelayed return for 0.01 seconds"
        );

        let p = FakeProvider {
            start_works: false,
            ..FakeProvider::new(false, true)
        };
        let r = run(&p, "running", false, &[]);
        assert_eq!(
            (r.result, r.comment.as_str()),
            (Some(false), "Service web failed to start")
        );

        let p = FakeProvider {
            exists: false,
            ..Default::default()
        };
        let r = run(&p, "running", false, &[]);
        assert_eq!(
            (r.result, r.comment.as_str()),
            (Some(false), "The named service web is not available")
        );
        let r = run(&p, "running", true, &[]);
        assert_eq!(r.result, None);
        assert_eq!(
            r.comment,
            "Service web not present; if created in this state run, it would have been started"
        );
        let r = run(&p, "dead", false, &[]);
        assert_eq!(
            (r.result, r.comment.as_str()),
            (Some(true), "The named service web is not available")
        );
        let r = run(&p, "disabled", false, &[]);
        assert_eq!(
            (r.result, r.comment.as_str()),
            (Some(true), "The named service web is not available")
        );
        let r = run(&p, "enabled", true, &[]);
        assert_eq!(
            r.comment,
            "Service web not present; if created in this state run, it would have been enabled"
        );
    }

    #[test]
    fn fake_provider_dead_enabled_disabled() {
        let p = FakeProvider::new(true, true);
        let r = run(&p, "dead", true, &[]);
        assert_eq!(
            (r.result, r.comment.as_str()),
            (None, "Service web is set to be killed")
        );
        let r = run(&p, "dead", false, &[("enable", Value::Bool(false))]);
        assert_eq!(r.comment, "Service web has been disabled, and is dead");
        // _disable's changes replace the stop's, as Python's dict update does.
        assert_eq!(r.changes, changed(true));
        let r = run(&p, "dead", false, &[]);
        assert_eq!(r.comment, "The service web is already dead");

        let r = run(&p, "enabled", false, &[]);
        assert_eq!(
            r.comment,
            "Service web has been enabled, and is in the desired state"
        );
        assert_eq!(r.changes, changed(true));
        let r = run(&p, "enabled", false, &[]);
        assert_eq!(
            r.comment,
            "Service web is already enabled, and is in the desired state"
        );
        let r = run(&p, "disabled", true, &[]);
        assert_eq!(
            (r.result, r.comment.as_str()),
            (None, "Service web set to be disabled")
        );
        let r = run(&p, "disabled", false, &[]);
        assert_eq!(
            r.comment,
            "Service web has been disabled, and is in the desired state"
        );

        let p = FakeProvider {
            enable_error: Some("Unit web.service is masked.".into()),
            ..FakeProvider::new(false, false)
        };
        let r = run(&p, "enabled", false, &[]);
        assert_eq!(r.result, Some(false));
        assert_eq!(r.comment, "Failed when setting service web to start at boot, but the service was already running. Additional information follows:\n\nUnit web.service is masked.");
    }

    #[test]
    fn fake_provider_mod_watch_and_masking() {
        let p = FakeProvider::new(true, true);
        let r = run(
            &p,
            "mod_watch",
            false,
            &[("sfun", Value::Str("running".into()))],
        );
        assert_eq!(
            (r.result, r.comment.as_str()),
            (Some(true), "Service restarted")
        );
        assert_eq!(r.changes, changed(true));
        let r = run(
            &p,
            "mod_watch",
            false,
            &[("sfun", "running".into()), ("reload", Value::Bool(true))],
        );
        assert_eq!(r.comment, "Service reloaded");
        let r = run(
            &p,
            "mod_watch",
            false,
            &[
                ("sfun", "running".into()),
                ("reload", Value::Bool(true)),
                ("force", Value::Bool(true)),
            ],
        );
        assert_eq!(r.comment, "Service forcefully reloaded");
        let r = run(
            &p,
            "mod_watch",
            false,
            &[
                ("sfun", "running".into()),
                ("full_restart", Value::Bool(true)),
            ],
        );
        assert_eq!(r.comment, "Service restarted");
        let r = run(&p, "mod_watch", true, &[("sfun", "dead".into())]);
        assert_eq!(
            (r.result, r.comment.as_str()),
            (None, "Service is set to be stopped")
        );
        let r = run(&p, "mod_watch", false, &[("sfun", "dead".into())]);
        assert_eq!(r.comment, "Service stopped");
        let r = run(&p, "mod_watch", false, &[("sfun", "dead".into())]);
        assert_eq!(r.comment, "Service is already stopped");
        let r = run(&p, "mod_watch", false, &[("sfun", "running".into())]);
        assert_eq!(r.comment, "Service started");
        assert_eq!(
            p.calls
                .borrow()
                .iter()
                .rev()
                .take(2)
                .cloned()
                .collect::<Vec<_>>(),
            ["start", "stop"]
        );
        let r = run(&p, "mod_watch", false, &[("sfun", "enabled".into())]);
        assert_eq!(
            (r.result, r.comment.as_str()),
            (Some(false), "Unable to trigger watch for service.enabled")
        );

        let r = run(&p, "masked", true, &[]);
        assert_eq!(
            (r.result, r.comment.as_str()),
            (None, "Service web would be masked")
        );
        let r = run(&p, "masked", false, &[]);
        assert_eq!(r.comment, "Service web was masked");
        assert_eq!(
            Value::Map(r.changes).to_python_repr(),
            "{'masked': {'old': False, 'new': True}}"
        );
        let r = run(&p, "masked", false, &[]);
        assert_eq!(r.comment, "Service web is already masked");
        let r = run(&p, "unmasked", false, &[("runtime", Value::Bool(true))]);
        assert_eq!(r.comment, "Service web was runtime unmasked");
    }

    /// Values of every type for every argument: a failed state or an
    /// answer, never a panic (fake provider).
    #[test]
    fn fake_provider_odd_arguments_never_panic() {
        let keys = [
            "enable",
            "enabled",
            "sig",
            "init_delay",
            "reload",
            "force",
            "full_restart",
            "sfun",
            "unmask",
            "runtime",
        ];
        for fun in [
            "running",
            "dead",
            "enabled",
            "disabled",
            "masked",
            "unmasked",
            "mod_watch",
        ] {
            for key in keys {
                for v in crate::modules::group::tests::odd_values() {
                    if key == "init_delay" && v.is_truthy() {
                        continue; // a real sleep
                    }
                    for test in [true, false] {
                        let p = FakeProvider::new(false, true);
                        let _ = run(&p, fun, test, &[(key, v.clone())]);
                    }
                }
            }
        }
    }

    fn ctx_os(os: &str) -> crate::StateContext {
        let mut ctx = ctx();
        let mut grains = Map::default();
        grains.insert("os".into(), Value::Str(os.into()));
        ctx.grains = std::sync::Arc::new(grains);
        ctx
    }

    fn call_on(ctx: &crate::StateContext, fun: &str, name: &str, test: bool) -> StateReturn {
        // A watch runs `mod_watch` with the chunk's own function.
        let sfun = if fun == "mod_watch" { "running" } else { fun };
        let low = low("service", sfun, name, &[]);
        let call = StateCall {
            low: &low,
            test,
            ctx,
        };
        let f = MODULE.function(fun).expect("a service function");
        (f.run)(&call)
    }

    /// systemd installed but not PID 1 (a container), as Salt 3007.8
    /// answered on this machine kind: `running`/`dead` do nothing and
    /// Salt's answers for service.masked/unmasked in this container
    /// (systemctl installed, systemd not running: Salt's offline mode),
    /// recorded in testdata/sys.json.
    #[test]
    fn masks_offline_match_salt() {
        if !systemd::offline() {
            println!(
                "skipped: the recording is of offline systemd (systemctl, no systemd running)"
            );
            return;
        }
        super::super::sysreplay::run("service_", crate::modules::MODULES);
    }

    /// succeed; on Debian the init scripts answer the rest; elsewhere
    /// offline systemd cannot tell about a unit.
    #[test]
    fn offline_systemd_answers_as_salt() {
        if !systemd::offline() {
            println!("skipped: systemd runs here, or systemctl is missing");
            return;
        }
        let debian = ctx_os("Debian");
        for fun in ["running", "dead"] {
            let r = call_on(&debian, fun, "brinet-no-such", false);
            assert_eq!(r.result, Some(true));
            assert_eq!(r.comment, "Running in OFFLINE mode. Nothing to do");
        }
        let r = call_on(&debian, "enabled", "brinet-no-such", false);
        assert_eq!(r.result, Some(false));
        assert_eq!(
            r.comment,
            "The named service brinet-no-such is not available"
        );
        let r = call_on(&debian, "enabled", "brinet-no-such", true);
        assert_eq!(r.result, None);
        assert_eq!(
            r.comment,
            "Service brinet-no-such not present; if created in this state run, it would have been enabled"
        );
        let r = call_on(&debian, "disabled", "brinet-no-such", false);
        assert_eq!(r.result, Some(true));
        assert_eq!(
            r.comment,
            "The named service brinet-no-such is not available"
        );
        let r = call_on(&debian, "mod_watch", "brinet-no-such", true);
        assert_eq!(r.result, None);
        assert_eq!(r.comment, "Service is set to be started");
        let fedora = ctx_os("Fedora");
        let r = call_on(&fedora, "enabled", "brinet-no-such", false);
        assert_eq!(r.result, Some(false));
        assert_eq!(
            r.comment,
            "Cannot run in offline mode. Failed to get information on unit 'brinet-no-such'"
        );
    }

    /// A real init script through `service`, where the Debian provider
    /// answers: the watch restarts it for real, and it is removed after.
    #[test]
    fn real_init_script_on_debian() {
        if systemd::booted() || brine_host::path::which("service").is_none() {
            println!("skipped: systemd runs here, or there is no `service`");
            return;
        }
        let tmp = tempfile::tempdir().unwrap();
        let mark = tmp.path().join("running");
        let name = format!("brinet-svc-{}", std::process::id());
        let script = std::path::Path::new("/etc/init.d").join(&name);
        std::fs::write(
            &script,
            format!(
                "#!/bin/sh\ncase \"$1\" in\n start) touch {m} ;;\n stop) rm -f {m} ;;\n \
                 status) test -e {m} ;;\n *) exit 3 ;;\nesac\n",
                m = mark.display()
            ),
        )
        .unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
        let debian = ctx_os("Debian");
        let p = sysvinit::SysVinit;
        let available = p.available(&name);
        let watched = call_on(&debian, "mod_watch", &name, false);
        let running = p.status(&name);
        let stopped = p.stop(&name) && !p.status(&name);
        std::fs::remove_file(&script).unwrap();
        assert!(available.unwrap());
        assert_eq!(watched.result, Some(true), "{}", watched.comment);
        assert_eq!(watched.comment, "Service started");
        assert!(running && stopped);
    }

    /// A real unit through systemctl, only where systemd runs.
    #[test]
    fn real_systemd_unit() {
        if !systemd::booted() {
            println!("skipped: no systemd running");
            return;
        }
        let p = systemd::Systemd::default();
        let ctx = ctx();
        let low = low("service", "running", "brinet-no-such-unit", &[]);
        let r = dispatch(
            &p,
            &StateCall {
                low: &low,
                test: false,
                ctx: &ctx,
            },
        );
        assert_eq!(r.result, Some(false));
        assert_eq!(
            r.comment,
            "The named service brinet-no-such-unit is not available"
        );
    }
}
