//! Publications: jobs on the master's PUB socket, encrypted with the
//! session key.

use super::wire::*;
use crate::crypto::{Sealed, SessionKey, SessionSealed};
use brine_core::{Map, Value};
use indexmap::IndexMap;
use serde::{Deserialize, Serialize};
use serde_bytes::ByteArray;

// ---------------------------------------------------------------------------
// Publication (master's PUB socket)

/// A job sent to minions.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Publication {
    pub v: u32,
    pub jid: String,
    /// Creation time, Unix milliseconds (replay window).
    pub created_ms: u64,
    /// Random; the minion's [`ReplayGuard`](crate::crypto::ReplayGuard) key.
    pub nonce: ByteArray<16>,
    pub tgt: Value,
    pub tgt_type: String,
    pub fun: String,
    pub arg: Vec<Value>,
    /// Keyword arguments except `pillar` (which is in `secrets`).
    pub kwarg: Map,
    /// Per-minion `pillar=` data, each sealed to that minion's X25519 key
    /// with [`aad::publication_secret`]; plaintext is a msgpack [`Value`].
    pub secrets: IndexMap<String, Sealed>,
    /// Who published (Salt's `user`, the minion's `__pub_user`).
    #[serde(default = "root_user")]
    pub user: String,
}

/// The publisher of a publication that does not say: root.
pub fn root_user() -> String {
    "root".into()
}

impl Message for Publication {
    const KIND: &'static str = "publication";
}

/// What the publish port carries: a [`Publication`] encrypted with the
/// master's [`SessionKey`], the whole signed by the master. A subscriber
/// the master did not accept sees which session key was used and nothing
/// else.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SealedPublication {
    pub v: u32,
    pub body: SessionSealed,
}

impl Message for SealedPublication {
    const KIND: &'static str = "sealed_publication";
}

impl SealedPublication {
    /// Encrypt `publication` with `session`.
    pub fn seal(session: &SessionKey, publication: &Publication) -> Result<Self, WireError> {
        let bytes = rmp_serde::to_vec_named(publication).map_err(|source| WireError::Encode {
            kind: "publication",
            source,
        })?;
        Ok(SealedPublication {
            v: PROTOCOL_VERSION,
            body: session.encrypt(&bytes, &aad::publication())?,
        })
    }

    /// The publication inside, if `session` is the key it was sealed with.
    pub fn open(&self, session: &SessionKey) -> Result<Publication, WireError> {
        let bytes = session.decrypt(&self.body, &aad::publication())?;
        from_slice("publication", &bytes)
    }
}
