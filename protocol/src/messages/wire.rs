//! The wire itself: limits, the version every message carries, msgpack
//! encoding and decoding into typed messages or a [`WireError`], signed
//! frames, and data sealed to one key with its associated data.

use crate::crypto::{self, CryptoError, KeyPair, Nonce, Sealed, Signed};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

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
pub(super) struct VersionPeek {
    v: u32,
}

pub(super) fn check_size(size: usize) -> Result<(), WireError> {
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
pub(super) fn from_slice<T: DeserializeOwned>(
    kind: &'static str,
    bytes: &[u8],
) -> Result<T, WireError> {
    check_size(bytes.len())?;
    let mut de = rmp_serde::Deserializer::from_read_ref(bytes);
    de.set_max_depth(MAX_DEPTH);
    T::deserialize(&mut de).map_err(|source| WireError::Decode { kind, source })
}

/// Write into a buffer that starts at the size of the last one `last`
/// saw on this thread (capped at [`MAX_HINT`]), and that does not keep a
/// large capacity after a small value. A fleet's messages and returns are
/// alike and hundreds of kilobytes: growing each from empty copied it
/// several times over.
pub(super) fn hinted_buffer<E>(
    last: &'static std::thread::LocalKey<std::cell::Cell<usize>>,
    write: impl FnOnce(&mut Vec<u8>) -> Result<(), E>,
) -> Result<Vec<u8>, E> {
    let mut buf = Vec::with_capacity(last.with(|c| c.get()).min(MAX_HINT));
    write(&mut buf)?;
    last.with(|c| c.set(buf.len()));
    // Returns and replies wait in queues: none keeps room it does not use.
    if buf.capacity() > 2 * buf.len() + 4096 {
        buf.shrink_to_fit();
    }
    Ok(buf)
}

/// The largest buffer [`hinted_buffer`] reserves up front.
const MAX_HINT: usize = 16 << 20;

/// Encode as a msgpack map with named fields.
pub fn encode<T: Message>(msg: &T) -> Result<Vec<u8>, WireError> {
    thread_local! {
        static LAST_SIZE: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
    }
    let bytes = hinted_buffer(&LAST_SIZE, |buf| {
        rmp_serde::encode::write_named(buf, msg).map_err(|source| WireError::Encode {
            kind: T::KIND,
            source,
        })
    })?;
    check_size(bytes.len())?;
    Ok(bytes)
}

/// A [`Signed`] frame's bytes besides its payload's: the field names, the
/// key, the signature and the length prefixes (well over what they take).
const FRAME_OVERHEAD: usize = 256;

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
    let mut bytes = Vec::with_capacity(signed.payload.len() + FRAME_OVERHEAD);
    rmp_serde::encode::write_named(&mut bytes, &signed).map_err(|source| WireError::Encode {
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

/// [`read_frame`] by the embedded signer, whose decompressed key is taken
/// from `known` when it is there (a master's accepted minions).
pub fn read_frame_known<T: Message>(
    frame: &[u8],
    known: &crypto::Verifiers,
) -> Result<Verified<T>, WireError> {
    read_frame_with(frame, known, false)
}

/// [`read_frame_known`], keeping the key of a signer not known yet once
/// its frame verified (a minion's link: one master signs every reply).
pub fn read_frame_learning<T: Message>(
    frame: &[u8],
    known: &crypto::Verifiers,
) -> Result<Verified<T>, WireError> {
    read_frame_with(frame, known, true)
}

fn read_frame_with<T: Message>(
    frame: &[u8],
    known: &crypto::Verifiers,
    learn: bool,
) -> Result<Verified<T>, WireError> {
    let signed: Signed = from_slice("signed frame", frame)?;
    let payload = match known.get(&signed.signer) {
        Some(key) => signed.verify_with(&key)?,
        None => {
            let key = crypto::Verifier::new(&signed.signer)?;
            let payload = signed.verify_with(&key)?;
            if learn {
                known.keep(key);
            }
            payload
        }
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
    seal_encoded(recipient, &bytes, aad)
}

/// Seal a value already encoded as [`seal_data`] encodes it (a reply kept
/// encoded, to be sent again).
pub fn seal_encoded(recipient: &[u8; 32], bytes: &[u8], aad: &[u8]) -> Result<Sealed, WireError> {
    check_size(bytes.len())?;
    Ok(crypto::seal(recipient, bytes, aad)?)
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

    /// Mine data in a [`super::MineReply`].
    pub fn mine(id: &str, request_nonce: &Nonce) -> Vec<u8> {
        join(&[b"mine", id.as_bytes(), request_nonce])
    }
}
