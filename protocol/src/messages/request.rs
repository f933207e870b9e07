//! Requests to the master's ret port: from minions (auth, pillar, files,
//! state compiles, returns) and from the CLI (publish, wait for returns).

use super::packed::PackedValue;
use super::wire::*;
use crate::crypto::{self, KeyPair, Nonce, PublicKeys, Sealed, SessionKey, SessionSealed};
pub use brine_compile::request::{CompileStates, HieraLookup, MineOp};
use brine_core::{Map, Value};
use serde::{Deserialize, Serialize};
use serde_bytes::ByteArray;

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
    /// `brine -a <eauth>`: a login on the master's local socket for a
    /// token (refused from the network: the password is in the frame).
    Login(CliLogin),
    /// Another body, sealed to the master (see [`Request::sealed`]).
    Sealed(SealedRequest),
    /// Compile my highstate / these SLS; only accepted inside
    /// [`RequestBody::Sealed`] (it carries the pillar).
    CompileStates(CompileStates),
    /// `hiera.lookup` in the master's hierarchies; only accepted inside
    /// [`RequestBody::Sealed`] (it carries the pillar).
    HieraLookup(HieraLookup),
    /// Fire an event on the master's bus; only accepted inside
    /// [`RequestBody::Sealed`].
    Event(MinionEvent),
    /// Store, read or drop mine data; only accepted inside
    /// [`RequestBody::Sealed`].
    Mine(MineRequest),
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
            | RequestBody::HieraLookup(_)
            // PAM may take seconds to refuse a password.
            | RequestBody::Login(_) => Lane::Compile,
            RequestBody::Sealed(s) => s.lane,
            RequestBody::Auth(_)
            | RequestBody::File(_)
            | RequestBody::Return(_)
            | RequestBody::Publish(_)
            | RequestBody::Event(_)
            | RequestBody::Mine(_) => Lane::Quick,
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
    /// Packed: the master builds them only once the key is known to be
    /// accepted (an unknown key's grains cost their bytes, not a map).
    pub grains: PackedValue,
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

/// An event a minion fires on the master's bus (Salt's `_minion_event`:
/// `event.send`, `event.fire_master`, the minion's start events).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MinionEvent {
    pub id: String,
    pub tag: String,
    pub data: Value,
    /// When the minion fired it, Unix seconds on its clock.
    pub ts: i64,
}

/// A minion's request about the mine.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MineRequest {
    pub id: String,
    pub op: MineOp,
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
    /// The schedule entry that ran this job (a scheduled run, never
    /// published: the master records the job from the return).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub schedule: Option<String>,
    /// A `brine-call` run on the minion host (salt-call's return to its
    /// master), never published: the master records the job from the
    /// return, as for a scheduled run.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub called: bool,
    /// Who published the job (the publication's user), for the
    /// `salt/job/<jid>/ret/<id>` event as Salt's minion reports it.
    /// Absent: root.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user: Option<String>,
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
    /// Whom the holder of the root token publishes for (brine-api's
    /// logged-in user): the job's `User` and the minion's `__pub_user`.
    /// Absent: root. With a local user's key as `token` (under
    /// `publisher_acl`): that user. With an eauth token: unused.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user: Option<String>,
}

/// The CLI asks which returns have arrived for a job. Returns come as a
/// stream in bounded pages: each reply carries the ones stored after the
/// cursor `after` (0: from the first), and the cursor to ask from next.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GetReturns {
    pub token: String,
    /// The local user the token is the key of (see [`CliPublish::user`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user: Option<String>,
    pub jid: String,
    #[serde(default)]
    pub after: u64,
    /// When nothing is new, the master may hold the answer this long for a
    /// return to land (bounded by [`MAX_RETURNS_WAIT_MS`]); 0 answers at
    /// once.
    #[serde(default)]
    pub wait_ms: u64,
}

/// `brine -a <eauth>`'s credentials, for a token.
#[derive(Clone, PartialEq, Serialize, Deserialize)]
pub struct CliLogin {
    pub eauth: String,
    pub username: String,
    pub password: String,
}

impl std::fmt::Debug for CliLogin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The password never reaches a log.
        f.debug_struct("CliLogin")
            .field("eauth", &self.eauth)
            .field("username", &self.username)
            .finish_non_exhaustive()
    }
}

/// The longest a master holds a [`GetReturns`] for a return to land.
pub const MAX_RETURNS_WAIT_MS: u64 = 2_000;
