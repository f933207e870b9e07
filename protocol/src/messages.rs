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

use crate::crypto::{
    self, CryptoError, KeyPair, Nonce, PublicKeys, Sealed, SessionKey, SessionSealed, Signed,
};
pub use brine_compile::request::{
    CompileStage, CompileStates, CompiledStates, FreshPillar, HieraLookup, HieraResult,
};
use brine_core::{Map, Value};
use indexmap::IndexMap;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_bytes::ByteArray;

mod packed;
pub use packed::PackedValue;

/// Version of the message formats in this module.
pub const PROTOCOL_VERSION: u32 = 1;
/// Largest encoded message (and transport frame) accepted or produced.
/// Highstate returns and pillars of big estates fit well below this.
pub const MAX_MESSAGE_BYTES: usize = 32 * 1024 * 1024;
/// Deepest msgpack nesting accepted. Deep enough for any real pillar or
/// return; shallow enough that decoding cannot exhaust a thread's stack.
pub const MAX_DEPTH: usize = 256;
/// Chunk size a minion asks for when reading a file (Salt's
/// `file_buffer_size` default).
pub const DEFAULT_FILE_CHUNK: u64 = 262_144;
/// Largest chunk the master serves in one reply.
pub const MAX_FILE_CHUNK: u64 = 4 * 1024 * 1024;

#[derive(Debug, thiserror::Error)]
pub enum WireError {
    #[error("message of {size} bytes exceeds the {max}-byte limit")]
    TooLarge { size: usize, max: usize },
    #[error("{kind}: protocol version {got} is not supported (this build speaks {supported})")]
    Version {
        kind: &'static str,
        got: u32,
        supported: u32,
    },
    #[error("{kind}: cannot decode msgpack: {source}")]
    Decode {
        kind: &'static str,
        source: rmp_serde::decode::Error,
    },
    #[error("{kind}: cannot encode msgpack: {source}")]
    Encode {
        kind: &'static str,
        source: rmp_serde::encode::Error,
    },
    #[error("{0}")]
    Crypto(#[from] CryptoError),
}

/// A top-level message: has a version and a name for error messages.
pub trait Message: Serialize + DeserializeOwned {
    const KIND: &'static str;
}

/// Just the version, read before the full decode so a message from another
/// version is reported as such rather than as a shape mismatch.
#[derive(Deserialize)]
struct VersionPeek {
    v: u32,
}

fn check_size(size: usize) -> Result<(), WireError> {
    if size > MAX_MESSAGE_BYTES {
        return Err(WireError::TooLarge {
            size,
            max: MAX_MESSAGE_BYTES,
        });
    }
    Ok(())
}

/// Decode msgpack with the depth limit, from a slice (so declared lengths
/// never cause allocations larger than the input).
fn from_slice<T: DeserializeOwned>(kind: &'static str, bytes: &[u8]) -> Result<T, WireError> {
    check_size(bytes.len())?;
    let mut de = rmp_serde::Deserializer::from_read_ref(bytes);
    de.set_max_depth(MAX_DEPTH);
    T::deserialize(&mut de).map_err(|source| WireError::Decode { kind, source })
}

/// Encode as a msgpack map with named fields.
pub fn encode<T: Message>(msg: &T) -> Result<Vec<u8>, WireError> {
    let bytes = rmp_serde::to_vec_named(msg).map_err(|source| WireError::Encode {
        kind: T::KIND,
        source,
    })?;
    check_size(bytes.len())?;
    Ok(bytes)
}

/// Decode a message, checking size, version and shape.
pub fn decode<T: Message>(bytes: &[u8]) -> Result<T, WireError> {
    let peek: VersionPeek = from_slice(T::KIND, bytes)?;
    if peek.v != PROTOCOL_VERSION {
        return Err(WireError::Version {
            kind: T::KIND,
            got: peek.v,
            supported: PROTOCOL_VERSION,
        });
    }
    from_slice(T::KIND, bytes)
}

/// Encode `msg`, sign it with `key`, and encode the [`Signed`] frame: the
/// bytes to put on a socket.
pub fn sign_frame<T: Message>(key: &KeyPair, msg: &T) -> Result<Vec<u8>, WireError> {
    let signed = key.sign(encode(msg)?);
    let bytes = rmp_serde::to_vec_named(&signed).map_err(|source| WireError::Encode {
        kind: "signed frame",
        source,
    })?;
    check_size(bytes.len())?;
    Ok(bytes)
}

/// A verified message and the ed25519 key that signed it.
#[derive(Debug, Clone, PartialEq)]
pub struct Verified<T> {
    pub signer: [u8; 32],
    pub msg: T,
}

/// Decode a [`Signed`] frame, verify its signature — by `expected` when
/// given (a minion checking the master's key), else by the embedded signer
/// (the master, which then matches the signer to the minion's accepted key) —
/// and decode the payload.
pub fn read_frame<T: Message>(
    frame: &[u8],
    expected: Option<&[u8; 32]>,
) -> Result<Verified<T>, WireError> {
    let signed: Signed = from_slice("signed frame", frame)?;
    let payload = match expected {
        Some(k) => signed.verify_by(k)?,
        None => signed.verify()?,
    };
    Ok(Verified {
        signer: *signed.signer,
        msg: decode(payload)?,
    })
}

/// Seal any serializable value (msgpack) to one X25519 public key.
pub fn seal_data<T: Serialize>(
    recipient: &[u8; 32],
    data: &T,
    aad: &[u8],
) -> Result<Sealed, WireError> {
    let bytes = rmp_serde::to_vec_named(data).map_err(|source| WireError::Encode {
        kind: "sealed data",
        source,
    })?;
    check_size(bytes.len())?;
    Ok(crypto::seal(recipient, &bytes, aad)?)
}

/// Open data sealed with [`seal_data`].
pub fn open_data<T: DeserializeOwned>(
    key: &KeyPair,
    sealed: &Sealed,
    aad: &[u8],
) -> Result<T, WireError> {
    let bytes = key.open(sealed, aad)?;
    from_slice("sealed data", &bytes)
}

/// Associated data binding sealed contents to their context, so a sealed
/// blob cannot be cut from one message and pasted into another.
pub mod aad {
    use super::Nonce;

    fn join(parts: &[&[u8]]) -> Vec<u8> {
        // Length-prefixed so ("ab","c") and ("a","bc") differ.
        let mut out = Vec::new();
        for p in parts {
            out.extend_from_slice(&(p.len() as u64).to_be_bytes());
            out.extend_from_slice(p);
        }
        out
    }

    /// Pillar in a [`super::PillarReply`]: the minion id and request nonce.
    pub fn pillar(id: &str, request_nonce: &Nonce) -> Vec<u8> {
        join(&[b"pillar", id.as_bytes(), request_nonce])
    }

    /// File data in a [`super::FileReply::Chunk`].
    pub fn file(id: &str, request_nonce: &Nonce) -> Vec<u8> {
        join(&[b"file", id.as_bytes(), request_nonce])
    }

    /// The [`crate::crypto::SessionKey`] in an [`super::AuthReply`]: the
    /// minion id and the auth request's nonce.
    pub fn session(id: &str, request_nonce: &Nonce) -> Vec<u8> {
        join(&[b"session", id.as_bytes(), request_nonce])
    }

    /// The minion's request key in an [`super::AuthReply`].
    pub fn request_key(id: &str, request_nonce: &Nonce) -> Vec<u8> {
        join(&[b"request key", id.as_bytes(), request_nonce])
    }

    /// A [`super::Publication`] encrypted with the session key.
    pub fn publication() -> Vec<u8> {
        join(&[b"publication-body"])
    }

    /// A minion's part of [`super::Publication::secrets`].
    pub fn publication_secret(jid: &str, id: &str) -> Vec<u8> {
        join(&[b"publication", jid.as_bytes(), id.as_bytes()])
    }

    /// The body of a [`super::SealedRequest`] (sealed to the master).
    pub fn sealed_request(id: &str, request_nonce: &Nonce) -> Vec<u8> {
        join(&[b"request", id.as_bytes(), request_nonce])
    }

    /// [`super::CompiledStates`] in a [`super::StateReply`].
    pub fn states(id: &str, request_nonce: &Nonce) -> Vec<u8> {
        join(&[b"states", id.as_bytes(), request_nonce])
    }

    /// [`super::HieraResult`] in a [`super::HieraReply`].
    pub fn hiera(id: &str, request_nonce: &Nonce) -> Vec<u8> {
        join(&[b"hiera", id.as_bytes(), request_nonce])
    }
}

// ---------------------------------------------------------------------------
// Requests (to the master's ret port)

/// One request to the master.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Request {
    pub v: u32,
    /// Creation time, Unix milliseconds (replay window).
    pub created_ms: u64,
    /// Random; the reply names it in `in_reply_to`; replay guard key.
    pub nonce: ByteArray<16>,
    pub msg: RequestBody,
    /// How long the sender waits for the reply, milliseconds (0: not
    /// said). The master does no work for a minion request that waited
    /// longer: nobody is listening for its answer (see [`Request::expired`]).
    #[serde(default)]
    pub wait_ms: u64,
    /// The master process this minion request is for: the `instance` its
    /// [`AuthReply`] named. Masters that serve one fleet share the master
    /// key, so a request sealed and signed for one could be played to
    /// another; each refuses requests addressed elsewhere (and a minion
    /// whose request names no instance, or an earlier run's, authenticates
    /// again). Requests of the CLI, which holds the root token of one
    /// master, and authentications name none.
    #[serde(default)]
    pub to: Option<ByteArray<16>>,
}

impl Message for Request {
    const KIND: &'static str = "request";
}

impl Request {
    /// A request stamped now with a fresh nonce.
    pub fn new(msg: RequestBody) -> Result<Request, WireError> {
        Ok(Request {
            v: PROTOCOL_VERSION,
            created_ms: crypto::now_ms(),
            nonce: ByteArray::new(crypto::random_nonce()?),
            msg,
            wait_ms: 0,
            to: None,
        })
    }

    /// This request, addressed to the master process `instance` (see
    /// [`Request::to`]).
    pub fn to_instance(mut self, instance: Option<Nonce>) -> Request {
        self.to = instance.map(ByteArray::new);
        self
    }

    /// This request, saying its sender waits `timeout` for the reply.
    pub fn waiting(mut self, timeout: std::time::Duration) -> Request {
        self.wait_ms = u64::try_from(timeout.as_millis()).unwrap_or(u64::MAX);
        self
    }

    /// Whether the sender stopped waiting before `now_ms` (both on the
    /// master's clock, which minions follow).
    pub fn expired(&self, now_ms: u64) -> bool {
        self.wait_ms != 0 && now_ms > self.created_ms.saturating_add(self.wait_ms)
    }

    /// A request from minion `id` whose body only the master can read:
    /// `body` sealed to the master's X25519 key (`master_x25519`), bound
    /// to `id` and this request's nonce. Use it for everything secret a
    /// minion sends: job returns, pillar requests carrying `pillar=` data,
    /// state compiles (they carry the pillar).
    pub fn sealed(
        master_x25519: &[u8; 32],
        id: &str,
        body: &RequestBody,
    ) -> Result<Request, WireError> {
        let nonce = crypto::random_nonce()?;
        let sealed = seal_data(master_x25519, body, &aad::sealed_request(id, &nonce))?;
        Ok(Request::of_sealed(
            id,
            nonce,
            SealedBody::ToMaster(sealed),
            body,
        ))
    }

    /// [`Request::sealed`] with the minion's request key (from its auth
    /// reply) instead: no key agreement on either end.
    pub fn sealed_with_key(
        key: &SessionKey,
        id: &str,
        body: &RequestBody,
    ) -> Result<Request, WireError> {
        let nonce = crypto::random_nonce()?;
        let bytes = rmp_serde::to_vec_named(body).map_err(|source| WireError::Encode {
            kind: "sealed data",
            source,
        })?;
        check_size(bytes.len())?;
        let sealed = key.encrypt(&bytes, &aad::sealed_request(id, &nonce))?;
        Ok(Request::of_sealed(
            id,
            nonce,
            SealedBody::Keyed(sealed),
            body,
        ))
    }

    fn of_sealed(id: &str, nonce: Nonce, sealed: SealedBody, body: &RequestBody) -> Request {
        Request {
            v: PROTOCOL_VERSION,
            created_ms: crypto::now_ms(),
            nonce: ByteArray::new(nonce),
            msg: RequestBody::Sealed(SealedRequest {
                id: id.to_string(),
                body: sealed,
                lane: body.lane(),
            }),
            wait_ms: 0,
            to: None,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", content = "body", rename_all = "snake_case")]
pub enum RequestBody {
    Auth(AuthRequest),
    Pillar(PillarRequest),
    File(FileRequest),
    Return(JobReturn),
    Publish(CliPublish),
    GetReturns(GetReturns),
    /// Another body, sealed to the master (see [`Request::sealed`]).
    Sealed(SealedRequest),
    /// Compile my highstate / these SLS; only accepted inside
    /// [`RequestBody::Sealed`] (it carries the pillar).
    CompileStates(CompileStates),
    /// `hiera.lookup` in the master's hierarchies; only accepted inside
    /// [`RequestBody::Sealed`] (it carries the pillar).
    HieraLookup(HieraLookup),
}

/// Which of the master's queues a request waits in, so that requests
/// answered in a millisecond never wait behind compiles (a fleet starting
/// at once asks for thousands of pillars; its authentications, returns and
/// the CLI must still be answered within their timeouts).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Lane {
    /// Authentication, the CLI's publications, returns, files.
    Quick,
    /// Pillar and state compiles and Hiera lookups.
    #[default]
    Compile,
    /// The CLI waiting for returns to land (`get_returns`): little work,
    /// but it may wait for seconds, so it holds no worker while it does.
    Wait,
}

impl RequestBody {
    /// The queue this body waits in on the master.
    pub fn lane(&self) -> Lane {
        match self {
            RequestBody::Pillar(_)
            | RequestBody::CompileStates(_)
            | RequestBody::HieraLookup(_) => Lane::Compile,
            RequestBody::Sealed(s) => s.lane,
            RequestBody::Auth(_)
            | RequestBody::File(_)
            | RequestBody::Return(_)
            | RequestBody::Publish(_) => Lane::Quick,
            RequestBody::GetReturns(_) => Lane::Wait,
        }
    }
}

/// The lane of a request frame as received, read without verifying or
/// decoding the rest (the master queues before it verifies). A frame that
/// does not decode goes in [`Lane::Quick`]: it is dropped in a moment by
/// the full decode. Scheduling is all this is good for: the lane is checked
/// again once the request is verified and opened.
pub fn peek_lane(frame: &[u8]) -> Lane {
    #[derive(Deserialize)]
    struct SignedPeek<'a> {
        #[serde(borrow, with = "serde_bytes")]
        payload: &'a [u8],
    }
    #[derive(Deserialize)]
    struct RequestPeek<B> {
        msg: B,
    }
    #[derive(Deserialize)]
    struct TypePeek {
        #[serde(rename = "type")]
        kind: String,
    }
    #[derive(Deserialize)]
    struct SealedPeek {
        body: LanePeek,
    }
    #[derive(Deserialize)]
    struct LanePeek {
        #[serde(default)]
        lane: Lane,
    }
    fn peek<'a, T: Deserialize<'a>>(bytes: &'a [u8]) -> Option<T> {
        if bytes.len() > MAX_MESSAGE_BYTES {
            return None;
        }
        let mut de = rmp_serde::Deserializer::from_read_ref(bytes);
        de.set_max_depth(MAX_DEPTH);
        T::deserialize(&mut de).ok()
    }
    let Some(signed) = peek::<SignedPeek>(frame) else {
        return Lane::Quick;
    };
    let Some(RequestPeek {
        msg: TypePeek { kind },
    }) = peek(signed.payload)
    else {
        return Lane::Quick;
    };
    match kind.as_str() {
        "pillar" | "compile_states" | "hiera_lookup" => Lane::Compile,
        "get_returns" => Lane::Wait,
        "sealed" => {
            peek::<RequestPeek<SealedPeek>>(signed.payload).map_or(Lane::Quick, |r| r.msg.body.lane)
        }
        _ => Lane::Quick,
    }
}

/// A minion request body only the master can read, bound with
/// [`aad::sealed_request`]; the plaintext is a msgpack [`RequestBody`] whose
/// `id` must be this `id` (the master refuses nested `Sealed` bodies and
/// Auth/CLI bodies inside).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SealedRequest {
    pub id: String,
    pub body: SealedBody,
    /// The sealed body's [`Lane`], in the clear so the master can queue the
    /// request before opening it; the master checks it against the body.
    /// Not said: [`Lane::Compile`], the slower queue.
    #[serde(default)]
    pub lane: Lane,
}

/// How a [`SealedRequest`]'s body was sealed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "scheme", content = "data", rename_all = "snake_case")]
pub enum SealedBody {
    /// To the master's X25519 key (a minion that holds no request key).
    ToMaster(Sealed),
    /// With the minion's request key ([`crypto::RequestKeys`]).
    Keyed(SessionSealed),
}

impl SealedRequest {
    /// Open with the master's key, or with `request_key`, the key of the
    /// minion that signed the request; `request_nonce` is the outer
    /// [`Request::nonce`].
    pub fn open(
        &self,
        master: &KeyPair,
        request_key: &SessionKey,
        request_nonce: &Nonce,
    ) -> Result<RequestBody, WireError> {
        let aad = aad::sealed_request(&self.id, request_nonce);
        match &self.body {
            SealedBody::ToMaster(sealed) => open_data(master, sealed, &aad),
            SealedBody::Keyed(sealed) => {
                from_slice("sealed data", &request_key.decrypt(sealed, &aad)?)
            }
        }
    }
}

/// A minion introduces itself (Salt's `_auth`). The frame must be signed by
/// `keys.ed25519`, proving the minion holds the private key.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AuthRequest {
    pub id: String,
    pub keys: PublicKeys,
    pub grains: Value,
    /// The minion's configured `pillarenv` (Salt's minion sends it with
    /// every pillar request); the master compiles and targets with it.
    #[serde(default)]
    pub pillarenv: Option<String>,
}

/// Compile my pillar (Salt's `_pillar`; `pillar.items` with
/// `pillarenv=`/`saltenv=`/`pillar=`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PillarRequest {
    pub id: String,
    pub pillarenv: Option<String>,
    pub saltenv: Option<String>,
    /// `pillar=` override data: Null or a map.
    pub pillar_override: Value,
}

/// A question about a file in the master's `file_roots`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FileRequest {
    pub id: String,
    pub saltenv: String,
    /// Path relative to the environment's roots (`salt://` stripped).
    pub path: String,
    pub query: FileQuery,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", content = "body", rename_all = "snake_case")]
pub enum FileQuery {
    /// Hash and size (Salt's `file_hash`), to skip unchanged files.
    Hash { hash_type: String },
    /// Bytes `offset..offset+len` (Salt's `serve_file`); `len` is clamped
    /// to [`MAX_FILE_CHUNK`] by the master.
    Read { offset: u64, len: u64 },
    /// Files under `path` as a prefix (Salt's `file_list`).
    List,
}

/// A minion's result for one job (Salt's `_return`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JobReturn {
    pub jid: String,
    pub id: String,
    pub fun: String,
    pub fun_args: Vec<Value>,
    /// The function's return, packed once by the minion: it is queued on
    /// disk, sent, stored and passed to the CLI as these bytes.
    #[serde(rename = "return")]
    pub ret: PackedValue,
    pub retcode: i64,
    pub success: bool,
    /// Outputter the function asks for (`highstate`, `nested`, ...).
    pub out: Option<String>,
}

/// The CLI (`brine`) asks the master to publish a job.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CliPublish {
    /// Local root token (read from the master's cachedir, like Salt's
    /// `.root_key`).
    pub token: String,
    /// Target expression: a string, or a list for `tgt_type: list`.
    pub tgt: Value,
    /// Salt's `tgt_type`: glob, pcre, list, grain, grain_pcre, pillar,
    /// pillar_pcre, nodegroup, range, compound, ipcidr.
    pub tgt_type: String,
    pub fun: String,
    pub arg: Vec<Value>,
    /// Keyword arguments; `pillar` here is sealed per minion by the master.
    pub kwarg: Map,
    /// Seconds to wait for returns.
    pub timeout: u64,
}

/// The CLI asks which returns have arrived for a job. Returns come as a
/// stream in bounded pages: each reply carries the ones stored after the
/// cursor `after` (0: from the first), and the cursor to ask from next.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GetReturns {
    pub token: String,
    pub jid: String,
    #[serde(default)]
    pub after: u64,
    /// When nothing is new, the master may hold the answer this long for a
    /// return to land (bounded by [`MAX_RETURNS_WAIT_MS`]); 0 answers at
    /// once.
    #[serde(default)]
    pub wait_ms: u64,
}

/// The longest a master holds a [`GetReturns`] for a return to land.
pub const MAX_RETURNS_WAIT_MS: u64 = 2_000;

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

#[cfg(test)]
mod tests {
    use super::*;

    fn sample_requests() -> Vec<RequestBody> {
        let kp = KeyPair::generate().unwrap();
        let mut grains = Map::default();
        grains.insert("os".into(), "Debian".into());
        let mut kwarg = Map::default();
        kwarg.insert("test".into(), Value::Bool(true));
        vec![
            RequestBody::Auth(AuthRequest {
                id: "web1".into(),
                keys: kp.public(),
                grains: Value::Map(grains),
                pillarenv: Some("dev".into()),
            }),
            RequestBody::Pillar(PillarRequest {
                id: "web1".into(),
                pillarenv: Some("dev".into()),
                saltenv: None,
                pillar_override: Value::Null,
            }),
            RequestBody::File(FileRequest {
                id: "web1".into(),
                saltenv: "base".into(),
                path: "top.sls".into(),
                query: FileQuery::Read {
                    offset: 0,
                    len: DEFAULT_FILE_CHUNK,
                },
            }),
            RequestBody::File(FileRequest {
                id: "web1".into(),
                saltenv: "base".into(),
                path: "".into(),
                query: FileQuery::List,
            }),
            RequestBody::Return(JobReturn {
                jid: "20240101000000000000".into(),
                id: "web1".into(),
                fun: "test.ping".into(),
                fun_args: vec![],
                ret: PackedValue::pack(&Value::Bool(true)).unwrap(),
                retcode: 0,
                success: true,
                out: None,
            }),
            RequestBody::Publish(CliPublish {
                token: "t".into(),
                tgt: "*".into(),
                tgt_type: "glob".into(),
                fun: "state.apply".into(),
                arg: vec!["web".into()],
                kwarg,
                timeout: 5,
            }),
            RequestBody::GetReturns(GetReturns {
                token: "t".into(),
                jid: "1".into(),
                after: 0,
                wait_ms: 0,
            }),
            RequestBody::CompileStates(sample_compile()),
            RequestBody::HieraLookup(HieraLookup {
                id: "web1".into(),
                key: "ntp::servers".into(),
                merge: "unique".into(),
                pillarenv: None,
                pillar: Map::default(),
            }),
        ]
    }

    fn sample_compile() -> CompileStates {
        let mut pillar = Map::default();
        pillar.insert("secret".into(), "hunter2".into());
        CompileStates {
            id: "web1".into(),
            mods: Some(vec!["web".into(), "db".into()]),
            saltenv: Some("base".into()),
            pillarenv: None,
            exclude: Value::Null,
            test: true,
            opts: Map::default(),
            pillar,
            stage: CompileStage::Run,
            fresh_pillar: None,
        }
    }

    #[test]
    fn sealed_requests_open_only_for_the_master_id_and_nonce() {
        let master = KeyPair::generate().unwrap();
        let other = KeyPair::generate().unwrap();
        let minion = KeyPair::generate().unwrap();
        let keys = crypto::RequestKeys::generate().unwrap();
        let web1_key = keys.for_minion("web1", &minion.public().ed25519);
        // Another master's key, another minion's, the same minion's under
        // another id: none opens it.
        let others_key = crypto::RequestKeys::generate()
            .unwrap()
            .for_minion("web1", &minion.public().ed25519);
        let web2_key = keys.for_minion("web2", &minion.public().ed25519);
        let other_minion = keys.for_minion("web1", &other.public().ed25519);
        assert_eq!(web1_key, keys.for_minion("web1", &minion.public().ed25519));
        let body = RequestBody::CompileStates(sample_compile());
        for req in [
            Request::sealed(&master.public().x25519, "web1", &body).unwrap(),
            Request::sealed_with_key(&web1_key, "web1", &body).unwrap(),
        ] {
            let keyed = matches!(&req.msg, RequestBody::Sealed(s)
                if matches!(s.body, SealedBody::Keyed(_)));
            let frame = sign_frame(&minion, &req).unwrap();
            // The secret does not travel in clear.
            assert!(!frame.windows(7).any(|w| w == b"hunter2"));
            let got: Verified<Request> = read_frame(&frame, None).unwrap();
            let RequestBody::Sealed(sealed) = &got.msg.msg else {
                panic!("not sealed")
            };
            assert_eq!(sealed.id, "web1");
            let nonce = &got.msg.nonce;
            assert_eq!(sealed.open(&master, &web1_key, nonce).unwrap(), body);
            if keyed {
                for wrong in [&others_key, &web2_key, &other_minion] {
                    assert!(sealed.open(&master, wrong, nonce).is_err());
                }
            } else {
                assert!(sealed.open(&other, &web1_key, nonce).is_err());
            }
            assert!(sealed.open(&master, &web1_key, &[0; 16]).is_err());
            let renamed = SealedRequest {
                id: "web2".into(),
                body: sealed.body.clone(),
                lane: sealed.lane,
            };
            assert!(renamed.open(&master, &web1_key, nonce).is_err());
        }
    }

    #[test]
    fn the_lane_is_read_from_the_frame_as_the_body_says() {
        let master = KeyPair::generate().unwrap();
        let minion = KeyPair::generate().unwrap();
        let mut compiles = 0;
        for body in sample_requests() {
            let want = body.lane();
            compiles += usize::from(want == Lane::Compile);
            let plain = sign_frame(&minion, &Request::new(body.clone()).unwrap()).unwrap();
            assert_eq!(peek_lane(&plain), want, "{body:?}");
            let sealed = Request::sealed(&master.public().x25519, "web1", &body).unwrap();
            assert_eq!(sealed.msg.lane(), want);
            assert_eq!(peek_lane(&sign_frame(&minion, &sealed).unwrap()), want);
        }
        assert_eq!(compiles, 3, "pillar, state compiles and Hiera lookups");
        // A sealed body that does not say its lane waits with the compiles.
        let mut quiet =
            Request::sealed(&master.public().x25519, "web1", &sample_requests()[4]).unwrap();
        assert_eq!(quiet.msg.lane(), Lane::Quick, "a return");
        let RequestBody::Sealed(s) = &mut quiet.msg else {
            panic!("not sealed")
        };
        #[derive(Serialize)]
        struct Before<'a> {
            id: &'a str,
            body: &'a SealedBody,
        }
        let before = rmp_serde::to_vec_named(&Before {
            id: &s.id,
            body: &s.body,
        })
        .unwrap();
        let old: SealedRequest = from_slice("test", &before).unwrap();
        assert_eq!(old.lane, Lane::Compile);
        s.lane = Lane::Compile;
        assert_eq!(
            peek_lane(&sign_frame(&minion, &quiet).unwrap()),
            Lane::Compile
        );
        // Anything that does not decode is for the quick lane's full decode
        // to drop.
        for junk in [
            &b""[..],
            b"\x93\x01\x02",
            &[0xc1; 64],
            b"\xdf\xff\xff\xff\xff",
        ] {
            assert_eq!(peek_lane(junk), Lane::Quick);
        }
    }

    #[test]
    fn a_request_expires_after_the_wait_its_sender_said() {
        let mut req = Request::new(RequestBody::GetReturns(GetReturns {
            token: "t".into(),
            jid: "1".into(),
            after: 0,
            wait_ms: 0,
        }))
        .unwrap();
        req.created_ms = 1_000;
        assert!(!req.expired(u64::MAX), "no wait said: never expires");
        let req = req.waiting(std::time::Duration::from_secs(30));
        assert_eq!(req.wait_ms, 30_000);
        assert!(!req.expired(31_000));
        assert!(req.expired(31_001));
        // Said on the wire, and absent from an older sender's requests.
        let frame = sign_frame(&KeyPair::generate().unwrap(), &req).unwrap();
        let got: Verified<Request> = read_frame(&frame, None).unwrap();
        assert_eq!(got.msg.wait_ms, 30_000);
    }

    #[test]
    fn compile_requests_without_a_stage_are_runs() {
        // The body as a peer that predates `stage` sends it.
        #[derive(Serialize)]
        struct Before {
            id: String,
            mods: Option<Vec<String>>,
            saltenv: Option<String>,
            pillarenv: Option<String>,
            exclude: Value,
            test: bool,
            opts: Map,
            pillar: Map,
        }
        let bytes = rmp_serde::to_vec_named(&Before {
            id: "web1".into(),
            mods: None,
            saltenv: None,
            pillarenv: None,
            exclude: Value::Null,
            test: false,
            opts: Map::default(),
            pillar: Map::default(),
        })
        .unwrap();
        let c: CompileStates = from_slice("test", &bytes).unwrap();
        assert_eq!(c.stage, CompileStage::Run);
        assert_eq!(c.id, "web1");
    }

    #[test]
    fn state_replies_round_trip_sealed() {
        let master = KeyPair::generate().unwrap();
        let minion = KeyPair::generate().unwrap();
        let req = Request::new(RequestBody::CompileStates(sample_compile())).unwrap();
        let mut chunk = Map::default();
        chunk.insert("state".into(), "test".into());
        for compiled in [
            CompiledStates::Chunks {
                chunks: vec![chunk.clone()],
                high: Map::default(),
            },
            CompiledStates::Errors {
                errors: vec!["Rendering SLS 'base:x' failed".into()],
                retcode: 1,
            },
            CompiledStates::Answer {
                ret: Value::Map(chunk.clone()),
                retcode: 2,
            },
            CompiledStates::Rendered {
                high: chunk.clone(),
                errors: vec![],
            },
            CompiledStates::Top {
                top: Map::default(),
                errors: vec!["x".into()],
            },
        ] {
            let sealed = seal_data(
                &minion.public().x25519,
                &compiled,
                &aad::states("web1", &req.nonce),
            )
            .unwrap();
            let reply = Reply::to(
                &req,
                ReplyBody::States(StateReply {
                    compiled: sealed,
                    pillar: None,
                }),
            );
            let frame = sign_frame(&master, &reply).unwrap();
            let got: Verified<Reply> = read_frame(&frame, Some(&master.public().ed25519)).unwrap();
            let ReplyBody::States(s) = got.msg.msg else {
                panic!("not a state reply")
            };
            let opened: CompiledStates =
                open_data(&minion, &s.compiled, &aad::states("web1", &req.nonce)).unwrap();
            assert_eq!(opened, compiled);
        }
    }

    #[test]
    fn every_request_round_trips_through_a_signed_frame() {
        let kp = KeyPair::generate().unwrap();
        for body in sample_requests() {
            let req = Request::new(body).unwrap();
            let frame = sign_frame(&kp, &req).unwrap();
            let got: Verified<Request> = read_frame(&frame, None).unwrap();
            assert_eq!(got.msg, req);
            assert_eq!(got.signer, *kp.public().ed25519);
            let by_key: Verified<Request> = read_frame(&frame, Some(&kp.public().ed25519)).unwrap();
            assert_eq!(by_key.msg, req);
        }
    }

    #[test]
    fn wire_shape_is_named_maps_with_type_tags() {
        let req = Request::new(RequestBody::GetReturns(GetReturns {
            token: "tok".into(),
            jid: "123".into(),
            after: 0,
            wait_ms: 0,
        }))
        .unwrap();
        let bytes = encode(&req).unwrap();
        // Decode as a generic value to see the map shape other tools see.
        let v: Value = rmp_serde::from_slice(&bytes).unwrap();
        assert_eq!(v.get("v"), Some(&Value::Int(1)));
        let msg = v.get("msg").unwrap();
        assert_eq!(msg.get("type"), Some(&Value::Str("get_returns".into())));
        assert_eq!(
            msg.get("body").and_then(|b| b.get("jid")),
            Some(&Value::Str("123".into()))
        );
    }

    #[test]
    fn replies_and_publications_round_trip() {
        let master = KeyPair::generate().unwrap();
        let minion = KeyPair::generate().unwrap();
        let req = Request::new(RequestBody::Pillar(PillarRequest {
            id: "web1".into(),
            pillarenv: None,
            saltenv: None,
            pillar_override: Value::Null,
        }))
        .unwrap();
        let mut pillar = Map::default();
        pillar.insert("secret".into(), "hunter2".into());
        let sealed = seal_data(
            &minion.public().x25519,
            &Value::Map(pillar.clone()),
            &aad::pillar("web1", &req.nonce),
        )
        .unwrap();
        let reply = Reply::to(&req, ReplyBody::Pillar(PillarReply { pillar: sealed }));
        let frame = sign_frame(&master, &reply).unwrap();
        let got: Verified<Reply> = read_frame(&frame, Some(&master.public().ed25519)).unwrap();
        assert_eq!(got.msg.in_reply_to, req.nonce);
        let ReplyBody::Pillar(p) = got.msg.msg else {
            panic!("not a pillar reply")
        };
        let opened: Value =
            open_data(&minion, &p.pillar, &aad::pillar("web1", &req.nonce)).unwrap();
        assert_eq!(opened, Value::Map(pillar));
        // Same blob presented as another minion's, or for another request:
        assert!(open_data::<Value>(&minion, &p.pillar, &aad::pillar("web2", &req.nonce)).is_err());
        assert!(open_data::<Value>(&minion, &p.pillar, &aad::pillar("web1", &[0; 16])).is_err());

        for body in [
            ReplyBody::ReturnAck,
            ReplyBody::Error(ErrorReply {
                code: ErrorCode::NotAccepted,
                message: "pending".into(),
            }),
            ReplyBody::File(FileReply::NotFound),
            ReplyBody::Auth(AuthReply {
                status: AuthStatus::Pending,
                master: master.public(),
                session: None,
                instance: None,
                request_key: None,
            }),
        ] {
            let r = Reply::to(&req, body);
            assert_eq!(decode::<Reply>(&encode(&r).unwrap()).unwrap(), r);
        }

        let mut secrets = IndexMap::new();
        secrets.insert(
            "web1".into(),
            seal_data(
                &minion.public().x25519,
                &Value::from("x"),
                &aad::publication_secret("j1", "web1"),
            )
            .unwrap(),
        );
        let publication = Publication {
            v: PROTOCOL_VERSION,
            jid: "j1".into(),
            created_ms: 1,
            nonce: ByteArray::new([7; 16]),
            tgt: "web*".into(),
            tgt_type: "glob".into(),
            fun: "test.ping".into(),
            arg: vec![],
            kwarg: Map::default(),
            secrets,
        };
        let frame = sign_frame(&master, &publication).unwrap();
        let got: Verified<Publication> =
            read_frame(&frame, Some(&master.public().ed25519)).unwrap();
        assert_eq!(got.msg, publication);
    }

    #[test]
    fn frame_signed_by_someone_else_is_refused() {
        let master = KeyPair::generate().unwrap();
        let mallory = KeyPair::generate().unwrap();
        let req = Request::new(RequestBody::GetReturns(GetReturns {
            token: "t".into(),
            jid: "1".into(),
            after: 0,
            wait_ms: 0,
        }))
        .unwrap();
        let frame = sign_frame(&mallory, &req).unwrap();
        let err = read_frame::<Request>(&frame, Some(&master.public().ed25519)).unwrap_err();
        assert!(matches!(
            err,
            WireError::Crypto(CryptoError::WrongSigner { .. })
        ));
    }

    #[test]
    fn unknown_type_and_other_version_are_errors() {
        #[derive(Serialize)]
        struct Body {
            id: String,
        }
        #[derive(Serialize)]
        struct Tagged {
            #[serde(rename = "type")]
            ty: String,
            body: Body,
        }
        #[derive(Serialize)]
        struct Fake {
            v: u32,
            created_ms: u64,
            nonce: ByteArray<16>,
            msg: Tagged,
        }
        let fake = |v: u32, ty: &str| {
            rmp_serde::to_vec_named(&Fake {
                v,
                created_ms: 0,
                nonce: ByteArray::new([0; 16]),
                msg: Tagged {
                    ty: ty.into(),
                    body: Body { id: "x".into() },
                },
            })
            .unwrap()
        };
        let err = decode::<Request>(&fake(1, "launch_missiles")).unwrap_err();
        assert!(err.to_string().contains("unknown variant"), "{err}");
        let err = decode::<Request>(&fake(2, "auth")).unwrap_err();
        assert!(
            matches!(
                err,
                WireError::Version {
                    got: 2,
                    supported: 1,
                    ..
                }
            ),
            "{err}"
        );
        // Right type, wrong body shape.
        let err = decode::<Request>(&fake(1, "auth")).unwrap_err();
        assert!(matches!(err, WireError::Decode { .. }), "{err}");
    }

    #[test]
    fn oversized_messages_are_refused_both_ways() {
        let big = PackedValue::text(&"x".repeat(MAX_MESSAGE_BYTES));
        let req = Request::new(RequestBody::Return(JobReturn {
            jid: "1".into(),
            id: "web1".into(),
            fun: "test.echo".into(),
            fun_args: vec![],
            ret: big,
            retcode: 0,
            success: true,
            out: None,
        }))
        .unwrap();
        assert!(matches!(encode(&req), Err(WireError::TooLarge { .. })));
        let bytes = vec![0u8; MAX_MESSAGE_BYTES + 1];
        assert!(matches!(
            decode::<Request>(&bytes),
            Err(WireError::TooLarge { .. })
        ));
        assert!(matches!(
            read_frame::<Request>(&bytes, None),
            Err(WireError::TooLarge { .. })
        ));
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_stack_overflow() {
        // 100 000 nested one-element arrays: 0x91 ... 0xc0.
        let mut bytes = vec![0x91u8; 100_000];
        bytes.push(0xc0);
        let err = from_slice::<Value>("test", &bytes).unwrap_err();
        assert!(err.to_string().contains("depth"), "{err}");
        // Reasonable nesting is fine.
        let mut ok = vec![0x91u8; 200];
        ok.push(0xc0);
        assert!(from_slice::<Value>("test", &ok).is_ok());
    }

    /// Small deterministic PRNG so the fuzz tests need no extra crate and
    /// failures reproduce.
    struct XorShift(u64);
    impl XorShift {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }
        fn byte(&mut self) -> u8 {
            (self.next() >> 24) as u8
        }
    }

    #[test]
    fn random_bytes_never_panic() {
        let mut rng = XorShift(0x9e37_79b9_7f4a_7c15);
        for _ in 0..20_000 {
            let len = (rng.next() % 300) as usize;
            let bytes: Vec<u8> = (0..len).map(|_| rng.byte()).collect();
            let _ = decode::<Request>(&bytes);
            let _ = decode::<Reply>(&bytes);
            let _ = decode::<Publication>(&bytes);
            let _ = read_frame::<Request>(&bytes, None);
            let _ = peek_lane(&bytes);
        }
    }

    #[test]
    fn mutated_valid_frames_never_panic_or_verify() {
        let kp = KeyPair::generate().unwrap();
        let mut rng = XorShift(42);
        let frames: Vec<Vec<u8>> = sample_requests()
            .into_iter()
            .map(|b| sign_frame(&kp, &Request::new(b).unwrap()).unwrap())
            .collect();
        for frame in &frames {
            // Signature checks are slow in debug builds; a few hundred
            // mutations per frame cover bit flips, truncations and
            // insertions in every field.
            for _ in 0..150 {
                let mut f = frame.clone();
                match rng.next() % 3 {
                    0 => {
                        let i = (rng.next() as usize) % f.len();
                        f[i] ^= 1 << (rng.next() % 8);
                    }
                    1 => f.truncate((rng.next() as usize) % f.len()),
                    _ => {
                        let i = (rng.next() as usize) % f.len();
                        f.insert(i, rng.byte());
                    }
                }
                if f == *frame {
                    continue;
                }
                let _ = peek_lane(&f);
                // Some changes keep the meaning (e.g. a msgpack integer
                // re-encoded); none may verify as a *different* message.
                if let Ok(v) = read_frame::<Request>(&f, None) {
                    let orig: Verified<Request> = read_frame(frame, None).unwrap();
                    assert_eq!(v.msg, orig.msg);
                }
            }
        }
    }

    #[test]
    fn random_payloads_inside_valid_signatures_never_panic() {
        // A signed frame whose payload is garbage: the signature is good,
        // the payload decoding must fail cleanly.
        let kp = KeyPair::generate().unwrap();
        let mut rng = XorShift(7);
        for _ in 0..300 {
            let len = (rng.next() % 200) as usize;
            let payload: Vec<u8> = (0..len).map(|_| rng.byte()).collect();
            let frame = rmp_serde::to_vec_named(&kp.sign(payload)).unwrap();
            let _ = read_frame::<Request>(&frame, None);
            let _ = read_frame::<Publication>(&frame, Some(&kp.public().ed25519));
        }
    }
}
