//! Salt's `mine` module. brine keeps no mine data yet (there is no
//! `mine.update` nor `mine_functions`), so `mine.get` answers what Salt
//! answers for minions that never sent any: an empty mapping.

use super::function::{sig, CallError, Ctx, Function};
use super::params::Params;
use brine_compile::minion_data::Returned;
use brine_core::{Map, Value};

pub(super) const FUNCTIONS: &[Function] = &[Function::reads(
    "get",
    sig!(tgt, fun, tgt_type = "glob", exclude_minion = false),
    "The mine data function FUN stored by the minions TGT (TGT_TYPE, default \
glob) match, by minion id. brine stores no mine data yet, so this is always \
{}.\n\n    brine-call mine.get '*' network.ip_addrs",
    get,
)];

fn get<'c>(_: &Ctx<'c>, mut p: Params) -> Result<Returned<'c>, CallError> {
    p.require("tgt")?;
    p.require("fun")?;
    p.take("tgt_type");
    p.take("exclude_minion");
    p.finish()?;
    Ok(Returned::New(Value::Map(Map::default())))
}
