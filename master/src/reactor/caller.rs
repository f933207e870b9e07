//! Salt's `caller.*` reactions: the function runs on the master's host as
//! a minion whose options are the master's configuration file read as a
//! minion's (Salt's reactor hands its `Caller` the master's `conf_file`).
//! With `file_client: local` in that file the function runs masterless
//! here, its pillar from the `pillar_roots` the file names; nothing is
//! returned anywhere (tests/recorded/fleet/caller_local.salt.json).
//! Without it Salt's `Caller` tries to join the master the file names
//! (`master`, `salt` by default) as a minion and retries every 30 s for
//! as long as it cannot (bus.salt.json): brine does not join, and says so
//! once per reaction in the log.

use crate::daemon::MasterConfig;
use brine_core::args::CallArgs;
use brine_core::Value;
use brine_runtime::context::{FreshPillar, Minion};
use brine_runtime::modules;
use std::path::Path;

/// Why a caller reaction did not run.
#[derive(Debug, thiserror::Error)]
pub enum CallerError {
    #[error("cannot read {path} as a minion's configuration: {reason}")]
    Config { path: String, reason: String },
    #[error(
        "{path} says file_client: {client}: Salt's Caller would join master '{master}' as a \
         minion; brine runs caller reactions on the master only with file_client: local"
    )]
    NotMasterless {
        path: String,
        client: String,
        master: String,
    },
    #[error("{0}")]
    Function(#[from] modules::CallError),
}

/// Run `fun` with `args` as Salt's `Caller` on the master's own file.
pub fn run(config: &MasterConfig, fun: &str, args: CallArgs) -> Result<Value, CallerError> {
    let path = brine_compile::opts::get_str(&config.opts, "conf_file")
        .unwrap_or("/etc/brine/master")
        .to_string();
    let (mut minion, _warnings) = Minion::load_file(Path::new(&path), modules::functions())
        .map_err(|e| CallerError::Config {
            path: path.clone(),
            reason: e.to_string(),
        })?;
    if !brine_compile::opts::masterless(&minion.opts) {
        let get = |k: &str, d: &str| {
            brine_compile::opts::get_str(&minion.opts, k)
                .unwrap_or(d)
                .to_string()
        };
        return Err(CallerError::NotMasterless {
            path,
            client: get("file_client", "remote"),
            master: get("master", "salt"),
        });
    }
    minion.pillar = std::sync::Arc::new(minion.compile_pillar(&FreshPillar::default(), false));
    Ok(modules::call(&mut minion, fun, args)?.value)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(dir: &Path, extra: &str) -> MasterConfig {
        let text = format!(
            "root_dir: {root}\npillar_roots:\n  base: [{root}/pillar]\n{extra}",
            root = dir.display()
        );
        std::fs::write(dir.join("master"), text).unwrap();
        MasterConfig::load(dir).unwrap().0
    }

    #[test]
    fn a_masterless_master_config_runs_the_function_here() {
        let td = tempfile::tempdir().unwrap();
        let c = config(td.path(), "file_client: local\n");
        let target = td.path().join("touched");
        let args = CallArgs {
            args: vec![],
            kwargs: [(
                "name".to_string(),
                Value::from(target.display().to_string()),
            )]
            .into_iter()
            .collect(),
        };
        assert_eq!(run(&c, "file.touch", args).unwrap(), Value::Bool(true));
        assert!(target.exists());
    }

    #[test]
    fn a_remote_one_is_refused_with_why() {
        let td = tempfile::tempdir().unwrap();
        let c = config(td.path(), "");
        let err = run(&c, "test.ping", CallArgs::default()).unwrap_err();
        assert!(err.to_string().contains("join master 'salt'"), "{err}");
    }
}
