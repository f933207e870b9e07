//! Salt's `sdb` runner: `sdb://PROFILE/KEY` values read, written and
//! deleted on the master, the profile found in the master's options
//! (`brine_compile::sdb`).

use super::runner::{Answer, Runner, RunnerError};
use crate::daemon::MasterConfig;
use brine_compile::sdb::{self, SdbError};
use brine_core::sig;
use brine_core::{Map, Value};
use brine_runtime::modules::Params;

pub(super) const FUNCTIONS: &[Runner] = &[
    Runner {
        name: "delete",
        sig: sig!(uri),
        doc: "Delete URI through its profile's driver; False when URI names no profile.",
        run: |config, p| Box::pin(async move { delete(config, p) }),
    },
    Runner {
        name: "get",
        sig: sig!(uri, strict = false),
        doc: "The value URI (sdb://PROFILE/KEY) names; URI itself when it names none, \
unless STRICT.",
        run: |config, p| Box::pin(async move { get(config, p) }),
    },
    Runner {
        name: "set",
        sig: sig!(uri, value),
        doc: "Store VALUE under URI through its profile's driver; False when URI names \
no profile.",
        run: |config, p| Box::pin(async move { set(config, p) }),
    },
];

fn failed(e: SdbError) -> RunnerError {
    match e {
        SdbError::Invocation(m) => RunnerError::InvalidKeywords(m),
        SdbError::Raised(m) if m == sdb::yaml::SET_REFUSED => RunnerError::NotImplemented,
        SdbError::Raised(m) => RunnerError::Failed(m),
    }
}

fn get(config: &MasterConfig, mut p: Params) -> Result<Answer, RunnerError> {
    let uri = p.require("uri")?;
    let strict = p.take("strict").is_some_and(|v| v.is_truthy());
    p.finish()?;
    let v = sdb::get(&uri, &config.opts, &Map::default(), strict).map_err(failed)?;
    Ok(Answer::data(v))
}

fn set(config: &MasterConfig, mut p: Params) -> Result<Answer, RunnerError> {
    let uri = p.require("uri")?;
    let value: Value = p.require("value")?;
    p.finish()?;
    let v = sdb::set(&uri, &value, &config.opts, &Map::default()).map_err(failed)?;
    Ok(Answer::data(v))
}

fn delete(config: &MasterConfig, mut p: Params) -> Result<Answer, RunnerError> {
    let uri = p.require("uri")?;
    p.finish()?;
    let v = sdb::delete(&uri, &config.opts, &Map::default()).map_err(failed)?;
    Ok(Answer::data(v))
}
