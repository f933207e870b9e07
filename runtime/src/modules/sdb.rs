//! Salt's `sdb` module: values named by `sdb://PROFILE/KEY` read, written
//! and deleted through the profile's driver (`brine_compile::sdb`), the
//! profile found in the minion's options, else its pillar.

use super::function::{sig, CallError, Ctx, Function};
use super::params::Params;
use brine_compile::minion_data::Returned;
use brine_compile::sdb::{self, SdbError};
use brine_core::Value;

/// `get_or_set_hash`'s characters when none are given (Salt's).
const HASH_CHARS: &str = "abcdefghijklmnopqrstuvwxyz0123456789!@#$%^&*(-_=+)";

pub(super) const FUNCTIONS: &[Function] = &[
    Function::reads(
        "get",
        sig!(uri, strict = false),
        "The value URI (sdb://PROFILE/KEY) names. A URI that is not one, or names \
no profile, comes back as it is, unless STRICT makes that an error.\n\n    \
brine '*' sdb.get sdb://myyaml/db:password",
        get,
    ),
    Function::acts(
        "set",
        sig!(uri, value),
        "Store VALUE under URI through the profile's driver: its answer, or False \
when URI names no profile. The yaml driver does not write; the env driver answers \
the variable's value if it has one, else VALUE.\n\n    \
brine '*' sdb.set sdb://myenv/NAME value",
        |cx, mut p| {
            let uri = p.require("uri")?;
            let value = p.require("value")?;
            p.finish()?;
            sdb::set(&uri, &value, cx.opts, cx.pillar)
                .map(Into::into)
                .map_err(raised)
        },
    ),
    Function::acts(
        "delete",
        sig!(uri),
        "Delete URI through the profile's driver; False when URI names no profile. \
Neither the yaml nor the env driver deletes.\n\n    brine '*' sdb.delete sdb://myenv/NAME",
        |cx, mut p| {
            let uri = p.require("uri")?;
            p.finish()?;
            sdb::delete(&uri, cx.opts, cx.pillar)
                .map(Into::into)
                .map_err(raised)
        },
    ),
    Function::acts(
        "get_or_set_hash",
        sig!(
            uri,
            length = 8,
            chars = "abcdefghijklmnopqrstuvwxyz0123456789!@#$%^&*(-_=+)"
        ),
        "The value URI names; when it has none, a random string of LENGTH \
characters from CHARS, stored under URI first. False when URI is not an sdb uri.\n\n    \
brine '*' sdb.get_or_set_hash sdb://myenv/SECRET",
        get_or_set_hash,
    ),
];

fn raised(e: SdbError) -> CallError {
    match e {
        // Salt's SaltInvocationError is a TypeError: salt-call reports it as
        // arguments that do not bind.
        SdbError::Invocation(m) => CallError::InvalidArguments(m),
        SdbError::Raised(m) => CallError::Raised(m),
    }
}

fn get<'c>(cx: &Ctx<'c>, mut p: Params) -> Result<Returned<'c>, CallError> {
    let uri = p.require("uri")?;
    let strict = p.take("strict").is_some_and(|v| v.is_truthy());
    p.finish()?;
    sdb::get(&uri, cx.opts, cx.pillar, strict)
        .map(Returned::New)
        .map_err(raised)
}

fn get_or_set_hash(cx: &Ctx<'_>, mut p: Params) -> Result<super::Return, CallError> {
    let uri = p.require("uri")?;
    let length = p.take("length").and_then(|v| v.as_i64()).unwrap_or(8);
    let chars = p
        .take("chars")
        .map(|v| v.to_python_str())
        .unwrap_or_else(|| HASH_CHARS.to_string());
    p.finish()?;
    if !uri.as_str().is_some_and(|s| s.starts_with("sdb://")) {
        return Ok(Value::Bool(false).into());
    }
    let found = sdb::get(&uri, cx.opts, cx.pillar, false).map_err(raised)?;
    if !found.is_null() {
        return Ok(found.into());
    }
    let chars: Vec<char> = chars.chars().collect();
    if chars.is_empty() {
        return Err(CallError::Failed("chars is empty".into()));
    }
    let mut made = String::new();
    for _ in 0..length.max(0) {
        let r = super::random::random_u64()? % chars.len() as u64;
        made.push(chars[usize::try_from(r).unwrap_or(0)]);
    }
    let made = Value::Str(made);
    sdb::set(&uri, &made, cx.opts, cx.pillar).map_err(raised)?;
    Ok(made.into())
}
