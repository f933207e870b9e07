//! The state modules, by name: each module's file holds its table of
//! function descriptors ([`crate::StateModule`]); this list is every
//! module brine has.

pub mod alternatives;
pub mod archive;
pub mod cmd;
pub mod cron;
pub mod debconf;
pub mod file;
pub mod git;
pub mod grains;
pub mod group;
pub mod host;
pub mod ini;
pub mod kmod;
pub mod locale;
pub mod module;
pub mod mount;
pub mod pip;
pub mod pkg;
pub mod pkgrepo;
pub mod salt;
pub mod service;
pub mod ssh;
pub mod ssh_auth;
pub mod ssh_known_hosts;
pub mod sysctl;
pub mod test;
pub mod timezone;
pub mod user;

#[cfg(test)]
pub mod sysreplay;

use crate::StateModule;

/// Every state module, sorted by name.
pub static MODULES: &[&StateModule] = &[
    &alternatives::MODULE,
    &archive::MODULE,
    &cmd::MODULE,
    &cron::MODULE,
    &debconf::MODULE,
    &file::MODULE,
    &git::MODULE,
    &grains::MODULE,
    &group::MODULE,
    &host::MODULE,
    &ini::MODULE,
    &kmod::MODULE,
    &locale::MODULE,
    &module::MODULE,
    &mount::MODULE,
    &pip::MODULE,
    &pkg::MODULE,
    &pkgrepo::MODULE,
    &salt::MODULE,
    &service::MODULE,
    &ssh_auth::MODULE,
    &ssh_known_hosts::MODULE,
    &sysctl::MODULE,
    &test::MODULE,
    &timezone::MODULE,
    &user::MODULE,
];

/// The state module called `name`, if brine has it.
pub fn lookup(name: &str) -> Option<&'static StateModule> {
    MODULES.iter().copied().find(|m| m.name == name)
}

#[cfg(test)]
mod tests {
    use super::*;
    use brine_core::{Map, Value};

    /// The child process of a namespaced replay ([`sysreplay::run`]): runs
    /// the case its environment names, else nothing.
    #[test]
    fn sys_replay_child() {
        sysreplay::child(MODULES);
    }

    /// Every state function's signature is the one Salt 3007.8's state
    /// module declares (`testdata/argspec.json`, recorded by
    /// `tests/conformance/gen_argspec.py --states`), and every recorded
    /// function has a descriptor.
    #[test]
    fn every_state_function_has_salts_signature() {
        let recorded: Map = match brine_core::yaml::load(include_str!("testdata/argspec.json")) {
            Ok(Value::Map(m)) => m,
            other => panic!("argspec.json: {other:?}"),
        };
        let mut names = Vec::new();
        for m in MODULES {
            assert!(!m.doc.is_empty(), "{}", m.name);
            for f in m.functions {
                let full = format!("{}.{}", m.name, f.name);
                let salt = recorded
                    .get(&full)
                    .and_then(Value::as_map)
                    .unwrap_or_else(|| panic!("{full} has no recorded signature"));
                let strs = |v: Option<&Value>| -> Vec<String> {
                    v.and_then(Value::as_list)
                        .map(|l| l.iter().map(Value::to_python_str).collect())
                        .unwrap_or_default()
                };
                let args: Vec<&str> = f.sig.args.to_vec();
                assert_eq!(args, strs(salt.get("args")), "{full}");
                assert_eq!(
                    Value::List(f.sig.default_values()),
                    salt.get("defaults").cloned().unwrap_or(Value::Null),
                    "{full}"
                );
                assert_eq!(
                    f.sig.kwargs,
                    salt.get("kwargs").is_some_and(Value::is_truthy),
                    "{full}"
                );
                assert!(!f.doc.is_empty(), "{full}");
                names.push(full);
            }
        }
        for n in recorded.keys() {
            assert!(names.contains(n), "{n} has no descriptor");
        }
        let sorted = {
            let mut s: Vec<_> = MODULES.iter().map(|m| m.name).collect();
            s.sort();
            s
        };
        assert_eq!(MODULES.iter().map(|m| m.name).collect::<Vec<_>>(), sorted);
    }
}
