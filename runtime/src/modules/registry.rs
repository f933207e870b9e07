//! The registry: every module's functions in one table ([`MODULES`]), and
//! the three ways in: a call by the running minion ([`call`]: `brine-call`,
//! jobs), a call from a template ([`functions`]: `salt[...]`), and lookups
//! by name ([`find`], [`all`]).

use super::function::{all_of, find_in, CallError, Ctx, Function, Module, Return, Run};
use super::params::Params;
use super::{
    alternatives, archive, cmd, config, cp, cron, defaults, disk, event, file, git, grains,
    grains_set, group, hiera, hosts, key, locale, log, match_, mine, mount, network, pillar, pip,
    pkg, ps, random, saltutil, saltutil_master, saltutil_sync, schedule, sdb, service, slsutil,
    state, state_request, state_run, status, sys, sysctl, test, timezone, user,
};
use crate::context::{Minion, RegistryCalls};
use brine_compile::minion_data::{ExecFunctions, Functions, Returned};
use brine_compile::MinionData;
use brine_core::args::CallArgs;
use brine_core::Value;
use std::sync::{Arc, LazyLock};

/// Every module, by name.
pub static MODULES: &[Module] = &[
    Module::new("alternatives", alternatives::FUNCTIONS),
    Module::new("archive", archive::FUNCTIONS),
    Module::new("cmd", cmd::FUNCTIONS),
    Module::new("config", config::FUNCTIONS),
    Module::new("cp", cp::FUNCTIONS),
    Module::new("cron", cron::FUNCTIONS),
    Module::new("defaults", defaults::FUNCTIONS),
    Module::new("disk", disk::FUNCTIONS),
    Module::new("event", event::FUNCTIONS),
    Module::new("file", file::FUNCTIONS),
    Module::new("git", git::FUNCTIONS),
    Module::new("grains", grains::FUNCTIONS),
    Module::new("grains", grains_set::FUNCTIONS),
    Module::new("group", group::FUNCTIONS),
    Module::new("hiera", hiera::FUNCTIONS),
    Module::new("hosts", hosts::FUNCTIONS),
    Module::new("key", key::FUNCTIONS),
    Module::new("locale", locale::FUNCTIONS),
    Module::new("log", log::FUNCTIONS),
    Module::new("match", match_::FUNCTIONS),
    Module::new("mine", mine::FUNCTIONS),
    Module::new("mount", mount::FUNCTIONS),
    Module::new("network", network::FUNCTIONS),
    Module::new("pillar", pillar::FUNCTIONS),
    Module::new("pip", pip::FUNCTIONS),
    Module::new("pkg", pkg::FUNCTIONS),
    Module::new("ps", ps::FUNCTIONS),
    Module::new("random", random::FUNCTIONS),
    Module::new("saltutil", saltutil::FUNCTIONS),
    Module::new("saltutil", saltutil_sync::FUNCTIONS),
    Module::new("saltutil", saltutil_master::FUNCTIONS),
    Module::new("schedule", schedule::FUNCTIONS),
    Module::new("sdb", sdb::FUNCTIONS),
    Module::new("service", service::FUNCTIONS),
    Module::new("slsutil", slsutil::FUNCTIONS),
    Module::new("state", state::FUNCTIONS),
    Module::new("state", state_run::FUNCTIONS),
    Module::new("state", state_request::FUNCTIONS),
    Module::new("status", status::FUNCTIONS),
    Module::new("sys", sys::FUNCTIONS),
    Module::new("sysctl", sysctl::FUNCTIONS),
    Module::new("test", test::FUNCTIONS),
    Module::new("timezone", timezone::FUNCTIONS),
    Module::new("user", user::FUNCTIONS),
];

/// The function named `module.function`.
pub fn find(fun: &str) -> Option<&'static Function> {
    find_in(MODULES, fun)
}

/// Every `module.function` with its function, sorted by name.
pub fn all() -> Vec<(String, &'static Function)> {
    all_of(MODULES)
}

/// Run `fun` with `args` on `minion` (`brine-call`, a job).
pub fn call(minion: &mut Minion, fun: &str, args: CallArgs) -> Result<Return, CallError> {
    let f = find(fun).ok_or_else(|| CallError::NotAvailable(fun.to_string()))?;
    run_on(minion, f, f.params(args))
}

/// Run `fun` as Python code calls it (a state's `__salt__`, the master's
/// `salt.cmd` runner): no publish metadata comes with the arguments.
pub fn call_from_code(minion: &mut Minion, fun: &str, args: CallArgs) -> Result<Return, CallError> {
    let f = find(fun).ok_or_else(|| CallError::NotAvailable(fun.to_string()))?;
    let mut p = f.params(args);
    p.from_template = true;
    run_on(minion, f, p)
}

/// Run `fun` for a state (its `__salt__`): Python binds the arguments, so
/// its wording applies, and no publish metadata comes with them.
fn call_from_state(minion: &mut Minion, fun: &str, args: CallArgs) -> Result<Value, CallError> {
    call_from_code(minion, fun, args).map(|r| r.value)
}

fn run_on(minion: &mut Minion, f: &'static Function, p: Params) -> Result<Return, CallError> {
    match f.run {
        Run::Reads(read) => {
            read(&Ctx::of_minion(minion, MODULES), p).map(|r| Return::from(r.into_value()))
        }
        Run::Minion(run) => {
            // A state run among them calls functions by name through it.
            minion.registry = Some(REGISTRY_CALLS);
            run(minion, p)
        }
        Run::Acts(act) => act(&Ctx::of_minion(minion, MODULES), p),
    }
}

/// The registry as a state run calls it (`module.run`, `grains.*`).
const REGISTRY_CALLS: RegistryCalls = RegistryCalls {
    call: call_from_state,
    signature: |fun| find(fun).map(|f| f.sig),
};

/// The registry as templates call it.
struct Templates;

impl ExecFunctions for Templates {
    fn call<'m>(
        &self,
        minion: &'m MinionData,
        fun: &str,
        args: CallArgs,
    ) -> Result<Returned<'m>, CallError> {
        let f = find(fun).ok_or_else(|| CallError::NotAvailable(fun.to_string()))?;
        let params = || {
            let mut p = f.params(args);
            p.from_template = true;
            p
        };
        match f.run {
            Run::Reads(read) => read(&Ctx::of_template(minion, MODULES), params()),
            Run::Minion(_) => Err(CallError::NotInTemplates(fun.to_string())),
            Run::Acts(act) => {
                act(&Ctx::of_template(minion, MODULES), params()).map(|r| Returned::New(r.value))
            }
        }
    }

    fn names(&self) -> Vec<String> {
        all().into_iter().map(|(n, _)| n).collect()
    }

    fn replayable(&self, fun: &str) -> bool {
        REPLAYABLE.contains(&fun)
    }
}

/// The functions whose answer in a template is made from the minion's
/// data (id, grains, the pillar so far, options) and the call's arguments
/// alone: a compile that called only these gives the same answer while its
/// files are unchanged (the master replays such pillars). Anything reading
/// the host, the clock, the network or other minions stays out.
const REPLAYABLE: &[&str] = &[
    "config.get",
    "config.items",
    "config.option",
    "config.valid_fileproto",
    "defaults.deepcopy",
    "defaults.merge",
    "grains.fetch",
    "grains.filter_by",
    "grains.get",
    "grains.has_value",
    "grains.item",
    "grains.items",
    "grains.ls",
    "match.compound",
    "match.glob",
    "match.grain",
    "match.grain_pcre",
    "match.ipcidr",
    "match.list",
    "match.pcre",
    "match.pillar",
    "match.pillar_pcre",
    "pillar.data",
    "pillar.fetch",
    "pillar.filter_by",
    "pillar.get",
    "pillar.item",
    "pillar.items",
    "pillar.keys",
    "pillar.ls",
    "pillar.obfuscate",
    "pillar.raw",
    "slsutil.merge",
];

/// The registry as a compile takes it ([`MinionData::functions`], a pillar
/// request's `functions`): what `salt[...]` calls in templates.
pub fn functions() -> Functions {
    static REGISTRY: LazyLock<Functions> = LazyLock::new(|| Functions::new(Arc::new(Templates)));
    REGISTRY.clone()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replayable_functions_exist_and_only_read_the_minion_data() {
        for name in REPLAYABLE {
            let f = find(name).unwrap_or_else(|| panic!("{name} is not in the registry"));
            assert!(matches!(f.run, Run::Reads(_)), "{name} does more than read");
        }
        assert!(!Templates.replayable("cmd.run"));
        assert!(!Templates.replayable("test.random_hash"));
    }

    /// What changes the host runs apart (it may restart the minion); what
    /// reads, or acts on the daemon, runs in it.
    #[test]
    fn jobs_that_change_the_host_run_apart() {
        let apart = |name: &str| {
            find(name)
                .unwrap_or_else(|| panic!("{name} is not in the registry"))
                .runs_apart()
        };
        for name in [
            "state.apply",
            "state.highstate",
            "state.sls",
            "state.single",
            "cmd.run",
            "cmd.script",
            "pkg.install",
            "service.restart",
        ] {
            assert!(apart(name), "{name} should run apart");
        }
        for name in [
            "test.ping",
            "test.sleep",
            "grains.items",
            "pillar.items",
            "saltutil.running",
            "saltutil.kill_job",
            "saltutil.refresh_pillar",
            "schedule.add",
            "event.fire",
            "state.show_sls",
        ] {
            assert!(!apart(name), "{name} should run in the daemon");
        }
    }
}
