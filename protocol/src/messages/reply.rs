//! Replies from the master's ret port.

use super::packed::PackedValue;
use super::request::Request;
use super::wire::*;
use crate::crypto::{self, PublicKeys, Sealed};
use indexmap::IndexMap;
use serde::{Deserialize, Serialize};
use serde_bytes::ByteArray;

// ---------------------------------------------------------------------------
// Replies (from the master's ret port)

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Reply {
    pub v: u32,
    pub created_ms: u64,
    /// The nonce of the request this answers.
    pub in_reply_to: ByteArray<16>,
    pub msg: ReplyBody,
}

impl Message for Reply {
    const KIND: &'static str = "reply";
}

impl Reply {
    /// The reply to `request`, stamped now.
    pub fn to(request: &Request, msg: ReplyBody) -> Reply {
        Reply {
            v: PROTOCOL_VERSION,
            created_ms: crypto::now_ms(),
            in_reply_to: request.nonce,
            msg,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", content = "body", rename_all = "snake_case")]
pub enum ReplyBody {
    Auth(AuthReply),
    Pillar(PillarReply),
    File(FileReply),
    /// The return was stored.
    ReturnAck,
    Published(PublishReply),
    Returns(ReturnsReply),
    Error(ErrorReply),
    States(StateReply),
    Hiera(HieraReply),
    /// Done (an event fired, mine data stored or dropped).
    Ack,
    Mine(MineReply),
    /// A login's token ([`super::CliLogin`]).
    Token(TokenReply),
}

/// The token a CLI login got, and whose it is.
#[derive(Clone, PartialEq, Serialize, Deserialize)]
pub struct TokenReply {
    pub token: String,
    pub user: String,
    pub eauth: String,
    /// Seconds since the epoch.
    pub start: f64,
    pub expire: f64,
}

impl std::fmt::Debug for TokenReply {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // A token never reaches a log.
        f.debug_struct("TokenReply")
            .field("user", &self.user)
            .field("eauth", &self.eauth)
            .finish_non_exhaustive()
    }
}

/// The answer to a mine `get`: the data (a [`brine_core::Value`]) sealed to
/// the minion with [`aad::mine`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MineReply {
    pub result: Sealed,
}

/// The answer to [`HieraLookup`]: a [`HieraResult`] sealed to the minion
/// with [`aad::hiera`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HieraReply {
    pub result: Sealed,
}

/// The answer to [`CompileStates`]: a [`CompiledStates`] sealed to the
/// minion with [`aad::states`] (low chunks hold pillar data).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StateReply {
    pub compiled: Sealed,
    /// The pillar the master compiled for this run, when the request asked
    /// it to ([`CompileStates::fresh_pillar`]): sealed as a pillar reply's
    /// is, with [`aad::pillar`].
    #[serde(default)]
    pub pillar: Option<Sealed>,
}

/// Where the minion's key stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AuthStatus {
    /// Key accepted: the minion may request pillar/files and run jobs.
    Accepted,
    /// Key is (now) in `minions_pre`, waiting for `brine-key -a`.
    Pending,
    /// Key is in `minions_rejected`.
    Rejected,
    /// Another key is already on file for this id; this one was put in
    /// `minions_denied`.
    Denied,
    /// The id cannot be used as a key file name.
    InvalidId,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AuthReply {
    pub status: AuthStatus,
    /// The master's public keys (the minion pins them on first contact).
    pub master: PublicKeys,
    /// To an accepted minion: the session key publications are encrypted
    /// with, sealed to the minion with [`aad::session`].
    #[serde(default)]
    pub session: Option<Sealed>,
    /// To an accepted minion: this master process, random at its start,
    /// for the minion to name in every request's [`Request::to`].
    #[serde(default)]
    pub instance: Option<ByteArray<16>>,
    /// To an accepted minion: its request key ([`crypto::RequestKeys`]), a
    /// [`SessionKey`] sealed to it with [`aad::request_key`].
    #[serde(default)]
    pub request_key: Option<Sealed>,
}

/// The compiled pillar, sealed to the minion with [`aad::pillar`]; the
/// plaintext is a msgpack map ([`Value::Map`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PillarReply {
    pub pillar: Sealed,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", content = "body", rename_all = "snake_case")]
pub enum FileReply {
    Hash {
        hash_type: String,
        /// Lowercase hex digest.
        hsum: String,
        size: u64,
    },
    /// `data` is sealed to the minion with [`aad::file`]; its plaintext is
    /// msgpack bytes (`serde_bytes::ByteBuf`).
    Chunk {
        offset: u64,
        size: u64,
        eof: bool,
        data: Sealed,
    },
    List {
        paths: Vec<String>,
    },
    NotFound,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PublishReply {
    pub jid: String,
    /// Minions the master expects to answer (accepted keys matching the
    /// target, as far as the master can tell).
    pub minions: Vec<String>,
}

/// One minion's return as the CLI receives it: the value travels as the
/// msgpack the job cache stored, so the master passes it on without
/// decoding and encoding it again (a fleet's highstate is gigabytes of
/// returns); the CLI decodes each one as it prints it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MinionReturn {
    #[serde(rename = "return")]
    pub ret: PackedValue,
    pub retcode: i64,
    pub success: bool,
    pub out: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReturnsReply {
    pub jid: String,
    /// Returns stored after the request's cursor, in arrival order; as
    /// many as fit the master's page size (at least one).
    pub returns: IndexMap<String, MinionReturn>,
    /// How many expected minions have not returned yet (the CLI knows
    /// which from the publish reply; a list here cost the master a read of
    /// every target and return at each page).
    #[serde(default)]
    pub waiting: u64,
    /// The cursor to ask from next.
    #[serde(default)]
    pub next: u64,
    /// More returns are stored past this page: ask again at once.
    #[serde(default)]
    pub more: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorCode {
    /// Signer is not the accepted key for the id, or bad token.
    Unauthorized,
    /// The minion's key is not accepted (yet).
    NotAccepted,
    /// Request failed the replay check.
    Replay,
    BadRequest,
    NotFound,
    Internal,
    /// A return over the master's `max_return_size`: an error was stored in
    /// its place.
    TooLarge,
    /// The request waited on the master longer than its sender said it
    /// would wait (`wait_ms`); it was not handled. The reply's time is the
    /// master's, which a minion whose clock is off then follows.
    Expired,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ErrorReply {
    pub code: ErrorCode,
    pub message: String,
}
