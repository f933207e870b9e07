//! Salt's `key` module: the fingerprints of the minion's own public key
//! and of the master key it pinned, to compare with `brine-key -f ID` on
//! the master before a key is accepted. brine's keys are ed25519 + X25519
//! and their fingerprint is SHA-256 over both (see the minion's keys);
//! the minion crate hands the reader in ([`crate::context::KeyFinger`]).

use super::function::{sig, CallError, Ctx, Function};
use super::params::Params;
use crate::context::WhichKey;
use brine_compile::minion_data::Returned;
use brine_compile::opts;
use brine_core::Value;

pub(super) const FUNCTIONS: &[Function] = &[
    Function::reads(
        "finger",
        sig!(hash_type = null),
        "The fingerprint of this minion's public key (pki_dir/minion.pub), as \
`brine-key -f ID` shows it on the master; '' while there is no key.\n\n    \
brine-call --local key.finger",
        finger,
    ),
    Function::reads(
        "finger_master",
        sig!(hash_type = null),
        "The fingerprint of the master key this minion pinned \
(pki_dir/minion_master.pub), as the master's `brine-key -F` shows it under \
Local Keys; '' before the first contact.\n\n    brine-call --local key.finger_master",
        finger_master,
    ),
];

fn finger<'c>(cx: &Ctx<'c>, p: Params) -> Result<Returned<'c>, CallError> {
    of_key(cx, p, WhichKey::Minion)
}

fn finger_master<'c>(cx: &Ctx<'c>, p: Params) -> Result<Returned<'c>, CallError> {
    of_key(cx, p, WhichKey::PinnedMaster)
}

fn of_key<'c>(cx: &Ctx<'c>, mut p: Params, which: WhichKey) -> Result<Returned<'c>, CallError> {
    let hash_type = p.take("hash_type").filter(|v| !matches!(v, Value::Null));
    p.finish()?;
    if let Some(h) = hash_type.map(|v| v.to_python_str()) {
        if !h.eq_ignore_ascii_case("sha256") {
            return Err(CallError::Failed(format!(
                "brine's key fingerprints are SHA-256 over the ed25519 and X25519 keys; \
                 hash_type '{h}' is not offered"
            )));
        }
    }
    let reader = cx.running().and_then(|m| m.key_finger).ok_or_else(|| {
        CallError::Failed("key fingerprints are read by a running minion only".into())
    })?;
    // Salt's minion defaults always set pki_dir (rooted when loaded).
    let pki_dir = opts::get_str(cx.opts, "pki_dir").unwrap_or_default();
    let finger = reader(std::path::Path::new(pki_dir), which).map_err(CallError::Failed)?;
    Ok(Returned::New(Value::Str(finger)))
}
