//! Every runner module, in one table, and a call by `module.function`.

use super::runner::{Answer, Runner, RunnerError, RunnerModule};
use super::{
    cache, config, event, fileserver, git_pillar, jobs, manage, mine, pillar, salt, sdb, state,
    test,
};
use crate::daemon::MasterConfig;
use brine_core::args::CallArgs;

/// Every runner module.
pub static MODULES: &[RunnerModule] = &[
    RunnerModule {
        name: "cache",
        functions: cache::FUNCTIONS,
    },
    RunnerModule {
        name: "config",
        functions: config::FUNCTIONS,
    },
    RunnerModule {
        name: "event",
        functions: event::FUNCTIONS,
    },
    RunnerModule {
        name: "fileserver",
        functions: fileserver::FUNCTIONS,
    },
    RunnerModule {
        name: "git_pillar",
        functions: git_pillar::FUNCTIONS,
    },
    RunnerModule {
        name: "jobs",
        functions: jobs::FUNCTIONS,
    },
    RunnerModule {
        name: "manage",
        functions: manage::FUNCTIONS,
    },
    RunnerModule {
        name: "mine",
        functions: mine::FUNCTIONS,
    },
    RunnerModule {
        name: "pillar",
        functions: pillar::FUNCTIONS,
    },
    RunnerModule {
        name: "salt",
        functions: salt::FUNCTIONS,
    },
    RunnerModule {
        name: "sdb",
        functions: sdb::FUNCTIONS,
    },
    RunnerModule {
        name: "state",
        functions: state::FUNCTIONS,
    },
    RunnerModule {
        name: "test",
        functions: test::FUNCTIONS,
    },
];

/// Every `module.function`, sorted.
pub fn names() -> Vec<String> {
    let mut out: Vec<String> = MODULES
        .iter()
        .flat_map(|m| {
            m.functions
                .iter()
                .map(move |f| format!("{}.{}", m.name, f.name))
        })
        .collect();
    out.sort();
    out
}

/// The runner `module.function`, if there is one.
pub fn find(function: &str) -> Option<&'static Runner> {
    let (module, name) = function.split_once('.')?;
    MODULES
        .iter()
        .filter(|m| m.name == module)
        .flat_map(|m| m.functions)
        .find(|f| f.name == name)
}

/// Run `function` with `call`'s arguments against the master of `config`.
pub async fn run(
    config: &MasterConfig,
    function: &str,
    call: CallArgs,
) -> Result<Answer, RunnerError> {
    let f = find(function).ok_or_else(|| RunnerError::NotAvailable(function.to_string()))?;
    let mut call = call;
    call.kwargs.retain(|k, _| !k.starts_with("__"));
    (f.run)(
        config,
        brine_runtime::modules::Params::new(f.name, &f.sig, call),
    )
    .await
}
