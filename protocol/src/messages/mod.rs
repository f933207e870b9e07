//! The messages exchanged by brine-master, brine-minion and the CLI (`brine`,
//! `brine-run`), encoded as msgpack maps with named fields (rmp-serde).
//!
//! Three top-level messages, each sent as the payload of a
//! [`Signed`] frame:
//! - [`Request`]: minion or CLI → master's ret port (ROUTER). Minions sign
//!   with their own key; the master checks the signer is the key accepted for
//!   the `id` in the body. The CLI signs with a throwaway key and proves it
//!   may publish with the local root token.
//! - [`Reply`]: master → requester, signed by the master, naming the
//!   request's nonce in `in_reply_to`. Pillar data and file contents inside
//!   a reply are [`Sealed`] to the requesting minion.
//! - [`Publication`]: master → all minions on the PUB socket, signed by the
//!   master. `pillar=` data travels per minion in `secrets`, sealed to each.
//!
//! Every message carries `v` ([`PROTOCOL_VERSION`]); a message of another
//! version, an unknown `type`, a frame over [`MAX_MESSAGE_BYTES`] or nesting
//! deeper than [`MAX_DEPTH`] decodes to a [`WireError`], never a panic.
//!
//! Wire shape of a tagged body: `{"type": "<snake_case name>", "body": {...}}`.

mod packed;
mod publication;
mod reply;
mod request;
mod wire;

pub use brine_compile::request::{
    CompileStage, CompileStates, CompiledStates, FreshPillar, HieraLookup, HieraResult, MineOp,
};
pub use packed::{is_map, map_field, PackedValue};
pub use publication::*;
pub use reply::*;
pub use request::*;
pub use wire::*;

#[cfg(test)]
mod tests;
