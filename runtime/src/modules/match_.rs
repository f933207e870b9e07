//! Salt's `match` module: does a target expression select this minion,
//! by Salt's matchers (`brine_compile::matcher`).

use super::function::{sig, CallError, Ctx, Function};
use super::params::{delimiter, opt_string, Params};
use brine_compile::matcher::{self, MatchError};
use brine_compile::minion_data::Returned;
use brine_compile::MinionData;
use brine_core::Value;
use std::borrow::Cow;

pub(super) const FUNCTIONS: &[Function] = &[
    Function::reads(
        "compound",
        sig!(tgt, minion_id = null),
        "Whether the compound target TGT (G@os:Debian and web*) matches this \
minion (or MINION_ID).\n\n    brine-call match.compound 'G@os:Debian and web*'",
        |cx, p| by_id(cx, p, "compound"),
    ),
    Function::reads(
        "glob",
        sig!(tgt, minion_id = null),
        "Whether the glob TGT matches this minion's id (or MINION_ID).\n\n    \
brine-call match.glob 'web*'",
        |cx, p| by_id(cx, p, "glob"),
    ),
    Function::reads(
        "grain",
        sig!(tgt, delimiter = ":"),
        "Whether the grain target TGT (os:Debian, globs allowed) matches this \
minion.\n\n    brine-call match.grain os:Debian",
        |cx, p| by_data(cx, p, "grain"),
    ),
    Function::reads(
        "grain_pcre",
        sig!(tgt, delimiter = ":"),
        "Whether the grain regex target TGT (os:Deb.*) matches this minion.\n\n    \
brine-call match.grain_pcre 'os:Deb.*'",
        |cx, p| by_data(cx, p, "grain_pcre"),
    ),
    Function::reads(
        "ipcidr",
        sig!(tgt),
        "Whether one of this minion's addresses lies in the subnet (or is the \
address) TGT.\n\n    brine-call match.ipcidr 10.0.0.0/8",
        ipcidr,
    ),
    Function::reads(
        "list",
        sig!(tgt, minion_id = null),
        "Whether this minion's id (or MINION_ID) is in the comma-separated list \
TGT.\n\n    brine-call match.list web1,web2",
        |cx, p| by_id(cx, p, "list"),
    ),
    Function::reads(
        "pcre",
        sig!(tgt, minion_id = null),
        "Whether the regular expression TGT matches this minion's id (or \
MINION_ID).\n\n    brine-call match.pcre 'web\\d+'",
        |cx, p| by_id(cx, p, "pcre"),
    ),
    Function::reads(
        "pillar",
        sig!(tgt, delimiter = ":"),
        "Whether the pillar target TGT (role:web, globs allowed) matches this \
minion.\n\n    brine-call match.pillar role:web",
        |cx, p| by_data(cx, p, "pillar"),
    ),
    Function::reads(
        "pillar_pcre",
        sig!(tgt, delimiter = ":"),
        "Whether the pillar regex target TGT (role:w.b) matches this minion.\n\n    \
brine-call match.pillar_pcre 'role:w.b'",
        |cx, p| by_data(cx, p, "pillar_pcre"),
    ),
];

/// `match.glob(tgt, minion_id=None)` and friends.
fn by_id<'c>(cx: &Ctx<'c>, mut p: Params, kind: &str) -> Result<Returned<'c>, CallError> {
    let tgt = p.require_str("tgt")?;
    let minion_id = opt_string(p.take("minion_id"));
    p.finish()?;
    let mut minion = cx.minion_data();
    if let Some(id) = minion_id.filter(|id| id != cx.id) {
        minion = Cow::Owned(MinionData {
            id,
            ..minion.into_owned()
        });
    }
    run(kind, &tgt, &minion)
}

/// `match.grain(tgt, delimiter=':')` and friends.
fn by_data<'c>(cx: &Ctx<'c>, mut p: Params, kind: &str) -> Result<Returned<'c>, CallError> {
    let tgt = p.require_str("tgt")?;
    let delimiter = delimiter(p.take("delimiter"));
    p.finish()?;
    if delimiter != ":" {
        return Err(CallError::Failed(format!(
            "match.{kind}: only the ':' delimiter is supported by brine"
        )));
    }
    run(kind, &tgt, &cx.minion_data())
}

fn ipcidr<'c>(cx: &Ctx<'c>, mut p: Params) -> Result<Returned<'c>, CallError> {
    let tgt = p.require_str("tgt")?;
    p.finish()?;
    run("ipcidr", &tgt, &cx.minion_data())
}

fn run(kind: &str, tgt: &str, minion: &MinionData) -> Result<Returned<'static>, CallError> {
    match matcher::matches(kind, tgt, minion) {
        Ok(b) => Ok(Returned::New(Value::Bool(b))),
        // Salt's match functions log a bad expression and answer False.
        Err(MatchError::Invalid { .. }) => Ok(Returned::New(Value::Bool(false))),
        Err(e) => Err(CallError::Failed(format!("match.{kind}: {e}"))),
    }
}
