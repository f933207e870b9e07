//! The cryptography of the wire: who said it (ed25519 signatures), who may
//! read it (sealing to one X25519 key), and whether it was already heard
//! (replay protection).
//!
//! Every primitive comes from the dalek / RustCrypto crates; this module only
//! composes them:
//! - [`Signed`]: msgpack payload + signer's ed25519 public key + signature
//!   over the payload's BLAKE3 digest (keyed by a context string, so the
//!   signature cannot be taken for one over anything else). Ed25519 over the
//!   payload itself hashes it twice with SHA-512, which was a twentieth of the
//!   master's profile under a fleet's highstate; BLAKE3 reads it once, several
//!   times faster. Verification is `verify_strict` (rejects malleable
//!   signatures and small-order keys).
//! - [`seal`] / [`KeyPair::open`]: ephemeral-static X25519, HKDF-SHA256 over the shared
//!   secret (salted with both public keys), ChaCha20-Poly1305 with the caller's
//!   associated data. A fresh ephemeral key per message means key and nonce
//!   are never reused, so both are derived from the HKDF output (as HPKE's
//!   single-shot mode does).
//! - [`SessionKey`]: the master's symmetric key for publications (Salt's AES
//!   session key), handed to accepted minions sealed at authentication,
//!   replaced when a minion's key is deleted or rejected.
//! - [`ReplayGuard`]: a creation-time window plus the set of nonces seen in
//!   that window, bounded in memory.

use chacha20poly1305::aead::{Aead, KeyInit, Payload};
use chacha20poly1305::ChaCha20Poly1305;
use ed25519_dalek::{Signer, SigningKey, VerifyingKey};
use hkdf::Hkdf;
use serde::{Deserialize, Serialize};
use serde_bytes::ByteArray;
use sha2::{Digest, Sha256};
use std::collections::{BTreeSet, HashSet};
use std::sync::atomic::{AtomicI64, Ordering};
use x25519_dalek::{PublicKey as XPublic, StaticSecret};

/// Length of the random nonce every request and publication carries.
pub const NONCE_LEN: usize = 16;
/// A message nonce (replay protection), not an AEAD nonce.
pub type Nonce = [u8; NONCE_LEN];

/// HKDF `info` for [`seal`]; versioned so a future scheme cannot be confused
/// with this one.
const SEAL_INFO: &[u8] = b"brine seal v1 x25519-hkdf-sha256-chacha20poly1305";

/// BLAKE3 key-derivation context of the digest a [`Signed`] frame's
/// signature covers; versioned like [`SEAL_INFO`].
const SIGNED_DIGEST_CONTEXT: &str = "brine signed frame v2 ed25519 over blake3";

/// [`Signed::scheme`] of frames signed over [`SIGNED_DIGEST_CONTEXT`]'s
/// digest. Frames without a scheme were signed over the whole payload, by a
/// brine older than this one.
pub const SIGNED_SCHEME: u8 = 2;

/// What a [`Signed`] frame's signature covers.
fn signed_digest(payload: &[u8]) -> [u8; 32] {
    let mut h = blake3::Hasher::new_derive_key(SIGNED_DIGEST_CONTEXT);
    h.update(payload);
    *h.finalize().as_bytes()
}

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum CryptoError {
    #[error("the operating system's random source failed: {0}")]
    Random(String),
    #[error("bad signature from signer {signer}")]
    BadSignature { signer: String },
    #[error(
        "frame from signer {signer} is signed with scheme {scheme}, this brine reads scheme {}: \
         run the same brine release on master and minions",
        SIGNED_SCHEME
    )]
    OtherScheme { signer: String, scheme: u8 },
    #[error("signer {got} is not the expected key {expected}")]
    WrongSigner { expected: String, got: String },
    #[error("invalid ed25519 public key {key}")]
    BadPublicKey { key: String },
    #[error("key agreement produced a non-contributory secret (small-order X25519 key)")]
    WeakKeyAgreement,
    #[error("sealed message could not be opened (wrong key, wrong context, or tampered)")]
    OpenFailed,
    #[error("sealing failed: {0}")]
    SealFailed(String),
}

/// Fill `buf` from the operating system's CSPRNG.
pub fn fill_random(buf: &mut [u8]) -> Result<(), CryptoError> {
    getrandom::fill(buf).map_err(|e| CryptoError::Random(e.to_string()))
}

/// A fresh random message nonce.
pub fn random_nonce() -> Result<Nonce, CryptoError> {
    let mut n = [0u8; NONCE_LEN];
    fill_random(&mut n)?;
    Ok(n)
}

/// Salt-style fingerprint of raw bytes: SHA-256, lowercase hex pairs joined by
/// `:` (the shape of `salt-key -f` and `master_finger`).
pub fn finger(bytes: &[u8]) -> String {
    let digest = Sha256::digest(bytes);
    let mut out = String::with_capacity(digest.len() * 3);
    for (i, b) in digest.iter().enumerate() {
        if i > 0 {
            out.push(':');
        }
        out.push_str(&format!("{b:02x}"));
    }
    out
}

/// Short printable form of a 32-byte public key for error messages.
fn short_hex(key: &[u8; 32]) -> String {
    key.iter()
        .take(8)
        .map(|b| format!("{b:02x}"))
        .collect::<String>()
        + "…"
}

/// The two public halves of a brine identity (master or minion): ed25519 to
/// verify what it signs, X25519 to seal data only it can read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct PublicKeys {
    pub ed25519: ByteArray<32>,
    pub x25519: ByteArray<32>,
}

impl PublicKeys {
    pub fn new(ed25519: [u8; 32], x25519: [u8; 32]) -> Self {
        PublicKeys {
            ed25519: ByteArray::new(ed25519),
            x25519: ByteArray::new(x25519),
        }
    }

    /// The fingerprint shown by `brine-key -f` and compared with
    /// `master_finger`: SHA-256 over the ed25519 key followed by the X25519
    /// key, so a change of either half changes it.
    pub fn fingerprint(&self) -> String {
        let mut both = [0u8; 64];
        both[..32].copy_from_slice(self.ed25519.as_slice());
        both[32..].copy_from_slice(self.x25519.as_slice());
        finger(&both)
    }

    /// Check the ed25519 half is a valid point (done once when a key is
    /// stored, so later verification failures mean bad signatures).
    pub fn validate(&self) -> Result<(), CryptoError> {
        VerifyingKey::from_bytes(&self.ed25519)
            .map(|_| ())
            .map_err(|_| CryptoError::BadPublicKey {
                key: short_hex(&self.ed25519),
            })
    }
}

/// A private identity: the ed25519 signing key and the X25519 static secret.
/// Both are zeroized on drop by their crates.
#[derive(Clone)]
pub struct KeyPair {
    signing: SigningKey,
    x25519: StaticSecret,
    /// Derived once: a scalar multiplication, which every open and every
    /// `public()` (each auth) used to repeat.
    x25519_public: [u8; 32],
}

impl std::fmt::Debug for KeyPair {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never print secrets; the fingerprint identifies the pair.
        write!(f, "KeyPair({})", self.public().fingerprint())
    }
}

impl KeyPair {
    /// A new random identity from the OS CSPRNG.
    pub fn generate() -> Result<KeyPair, CryptoError> {
        let mut ed = [0u8; 32];
        let mut x = [0u8; 32];
        fill_random(&mut ed)?;
        fill_random(&mut x)?;
        Ok(KeyPair::from_secret_bytes(ed, x))
    }

    /// Rebuild from the two 32-byte secrets (as stored in a key file).
    pub fn from_secret_bytes(ed25519: [u8; 32], x25519: [u8; 32]) -> KeyPair {
        let x25519 = StaticSecret::from(x25519);
        KeyPair {
            signing: SigningKey::from_bytes(&ed25519),
            x25519_public: XPublic::from(&x25519).to_bytes(),
            x25519,
        }
    }

    /// The two secrets, for writing the private key file.
    pub fn secret_bytes(&self) -> ([u8; 32], [u8; 32]) {
        (self.signing.to_bytes(), self.x25519.to_bytes())
    }

    pub fn public(&self) -> PublicKeys {
        PublicKeys::new(self.signing.verifying_key().to_bytes(), self.x25519_public)
    }

    /// Sign `payload` (msgpack bytes) with this identity.
    pub fn sign(&self, payload: Vec<u8>) -> Signed {
        let signature = self.signing.sign(&signed_digest(&payload)).to_bytes();
        Signed {
            payload: serde_bytes::ByteBuf::from(payload),
            signer: ByteArray::new(self.signing.verifying_key().to_bytes()),
            signature: ByteArray::new(signature),
            scheme: SIGNED_SCHEME,
        }
    }

    /// Open a [`Sealed`] addressed to this identity (sealed by [`seal`]
    /// with the same `aad`).
    pub fn open(&self, sealed: &Sealed, aad: &[u8]) -> Result<Vec<u8>, CryptoError> {
        open(&self.x25519, &self.x25519_public, sealed, aad)
    }
}

/// A payload with its signer's ed25519 public key and signature. This is
/// the outer frame of every publication, request and reply.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Signed {
    pub payload: serde_bytes::ByteBuf,
    pub signer: ByteArray<32>,
    pub signature: ByteArray<64>,
    /// What the signature covers: [`SIGNED_SCHEME`]; absent (0) in frames
    /// from older brine, which are refused with a clear error.
    #[serde(default)]
    pub scheme: u8,
}

impl Signed {
    /// Verify against the embedded signer key and return the payload. Only
    /// useful when the caller then checks *who* the signer is (e.g. the
    /// minion key on file for the id in the payload); prefer
    /// [`Signed::verify_by`] when the expected key is known up front.
    pub fn verify(&self) -> Result<&[u8], CryptoError> {
        self.verify_with(&Verifier::new(&self.signer)?)
    }

    /// Verify with a key decompressed earlier ([`Verifiers`]), which must
    /// be the embedded signer's, and return the payload.
    pub fn verify_with(&self, key: &Verifier) -> Result<&[u8], CryptoError> {
        if *self.signer != key.bytes {
            return Err(CryptoError::WrongSigner {
                expected: short_hex(&key.bytes),
                got: short_hex(&self.signer),
            });
        }
        if self.scheme != SIGNED_SCHEME {
            return Err(CryptoError::OtherScheme {
                signer: short_hex(&self.signer),
                scheme: self.scheme,
            });
        }
        let sig = ed25519_dalek::Signature::from_bytes(&self.signature);
        key.key
            .verify_strict(&signed_digest(&self.payload), &sig)
            .map_err(|_| CryptoError::BadSignature {
                signer: short_hex(&self.signer),
            })?;
        Ok(&self.payload)
    }

    /// Verify that `expected` signed this and return the payload.
    pub fn verify_by(&self, expected: &[u8; 32]) -> Result<&[u8], CryptoError> {
        if &*self.signer != expected {
            return Err(CryptoError::WrongSigner {
                expected: short_hex(expected),
                got: short_hex(&self.signer),
            });
        }
        self.verify()
    }
}

/// An ed25519 public key decompressed once. Decompressing a key's 32
/// bytes into a curve point costs about as much as the rest of a verify;
/// a master checking every request of a 10,000-minion fleet paid it for
/// each one (a seventh of its CPU answering a `test.ping`).
#[derive(Debug, Clone)]
pub struct Verifier {
    bytes: [u8; 32],
    key: VerifyingKey,
}

impl Verifier {
    pub fn new(bytes: &[u8; 32]) -> Result<Verifier, CryptoError> {
        let key = VerifyingKey::from_bytes(bytes).map_err(|_| CryptoError::BadPublicKey {
            key: short_hex(bytes),
        })?;
        Ok(Verifier { bytes: *bytes, key })
    }
}

/// Decompressed keys by their bytes: what a master keeps of the signers
/// it found to be accepted minions. A memo of a pure function (the same
/// bytes always decompress to the same point), so nothing in it goes
/// stale; whether a key is still accepted is the key store's question.
/// Bounded: full, it starts over.
#[derive(Debug)]
pub struct Verifiers {
    known: std::sync::RwLock<std::collections::HashMap<[u8; 32], Verifier>>,
    max: usize,
}

impl Default for Verifiers {
    fn default() -> Verifiers {
        Verifiers::with_max(Verifiers::MAX)
    }
}

impl Verifiers {
    /// Most keys held by default (a fleet ten times the 10,000 measured).
    pub const MAX: usize = 100_000;

    pub fn with_max(max: usize) -> Verifiers {
        Verifiers {
            known: Default::default(),
            max,
        }
    }

    pub fn get(&self, bytes: &[u8; 32]) -> Option<Verifier> {
        let known = self.known.read().unwrap_or_else(|p| p.into_inner());
        known.get(bytes).cloned()
    }

    /// Keep `bytes`' decompressed key (an accepted minion's).
    pub fn remember(&self, bytes: &[u8; 32]) -> Result<(), CryptoError> {
        // Asked on every accepted request: a look, not a copy.
        if self
            .known
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .contains_key(bytes)
        {
            return Ok(());
        }
        self.keep(Verifier::new(bytes)?);
        Ok(())
    }

    /// Keep a key already decompressed.
    pub fn keep(&self, v: Verifier) {
        let mut known = self.known.write().unwrap_or_else(|p| p.into_inner());
        if known.len() >= self.max {
            known.clear();
        }
        known.insert(v.bytes, v);
    }

    pub fn len(&self) -> usize {
        self.known.read().unwrap_or_else(|p| p.into_inner()).len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Data only the holder of one X25519 secret can read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Sealed {
    /// The sender's one-time X25519 public key.
    pub ephemeral: ByteArray<32>,
    /// ChaCha20-Poly1305 ciphertext with its 16-byte tag.
    pub ciphertext: serde_bytes::ByteBuf,
}

/// Derive the AEAD key and nonce for one sealed message.
fn seal_key(
    shared: &[u8; 32],
    ephemeral: &[u8; 32],
    recipient: &[u8; 32],
) -> Result<ChaCha20Poly1305, CryptoError> {
    let mut salt = [0u8; 64];
    salt[..32].copy_from_slice(ephemeral);
    salt[32..].copy_from_slice(recipient);
    let hk = Hkdf::<Sha256>::new(Some(&salt), shared);
    let mut okm = [0u8; 32];
    // 32 bytes is far below HKDF-SHA256's 8160-byte limit.
    hk.expand(SEAL_INFO, &mut okm)
        .map_err(|e| CryptoError::SealFailed(e.to_string()))?;
    ChaCha20Poly1305::new_from_slice(&okm).map_err(|e| CryptoError::SealFailed(e.to_string()))
}

/// The AEAD nonce is fixed: every message has its own key (fresh ephemeral).
const AEAD_NONCE: [u8; 12] = [0u8; 12];

/// Seal `plaintext` to the holder of `recipient` (an X25519 public key).
/// `aad` binds the ciphertext to its context (e.g. jid + minion id); the
/// same bytes must be given to [`KeyPair::open`].
pub fn seal(recipient: &[u8; 32], plaintext: &[u8], aad: &[u8]) -> Result<Sealed, CryptoError> {
    let mut eph_bytes = [0u8; 32];
    fill_random(&mut eph_bytes)?;
    let eph = StaticSecret::from(eph_bytes);
    let eph_pub = XPublic::from(&eph).to_bytes();
    let shared = eph.diffie_hellman(&XPublic::from(*recipient));
    if !shared.was_contributory() {
        return Err(CryptoError::WeakKeyAgreement);
    }
    let cipher = seal_key(shared.as_bytes(), &eph_pub, recipient)?;
    let ciphertext = cipher
        .encrypt(
            &AEAD_NONCE.into(),
            Payload {
                msg: plaintext,
                aad,
            },
        )
        .map_err(|e| CryptoError::SealFailed(e.to_string()))?;
    Ok(Sealed {
        ephemeral: ByteArray::new(eph_pub),
        ciphertext: serde_bytes::ByteBuf::from(ciphertext),
    })
}

/// Open a [`Sealed`] with the recipient's X25519 secret (and its public
/// key, `my_pub`) and the same `aad`.
fn open(
    secret: &StaticSecret,
    my_pub: &[u8; 32],
    sealed: &Sealed,
    aad: &[u8],
) -> Result<Vec<u8>, CryptoError> {
    let shared = secret.diffie_hellman(&XPublic::from(*sealed.ephemeral));
    if !shared.was_contributory() {
        return Err(CryptoError::WeakKeyAgreement);
    }
    let cipher = seal_key(shared.as_bytes(), &sealed.ephemeral, my_pub)?;
    cipher
        .decrypt(
            &AEAD_NONCE.into(),
            Payload {
                msg: &sealed.ciphertext,
                aad,
            },
        )
        .map_err(|_| CryptoError::OpenFailed)
}

/// The master's key for publications: only minions it accepted get it (at
/// authentication, sealed to them), so no other subscriber of the publish
/// port reads a job. A new one replaces it whenever a minion's key is
/// deleted or rejected, and at every master start.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SessionKey {
    /// Names the key in each publication (random, not secret).
    pub id: ByteArray<8>,
    key: ByteArray<32>,
}

impl std::fmt::Debug for SessionKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SessionKey")
            .field("id", &finger(self.id.as_slice()))
            .finish_non_exhaustive()
    }
}

/// Data encrypted with a [`SessionKey`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SessionSealed {
    /// Which session key.
    pub session: ByteArray<8>,
    /// Random per message (96 bits; a session key encrypts far fewer than
    /// 2^32 messages before it is replaced).
    pub nonce: ByteArray<12>,
    /// ChaCha20-Poly1305 ciphertext with its tag.
    pub ciphertext: serde_bytes::ByteBuf,
}

impl SessionKey {
    pub fn generate() -> Result<SessionKey, CryptoError> {
        let mut id = [0u8; 8];
        let mut key = [0u8; 32];
        fill_random(&mut id)?;
        fill_random(&mut key)?;
        Ok(SessionKey {
            id: ByteArray::new(id),
            key: ByteArray::new(key),
        })
    }

    fn cipher(&self) -> Result<ChaCha20Poly1305, CryptoError> {
        ChaCha20Poly1305::new_from_slice(self.key.as_slice())
            .map_err(|e| CryptoError::SealFailed(e.to_string()))
    }

    pub fn encrypt(&self, plaintext: &[u8], aad: &[u8]) -> Result<SessionSealed, CryptoError> {
        let mut nonce = [0u8; 12];
        fill_random(&mut nonce)?;
        let ciphertext = self
            .cipher()?
            .encrypt(
                &nonce.into(),
                Payload {
                    msg: plaintext,
                    aad,
                },
            )
            .map_err(|e| CryptoError::SealFailed(e.to_string()))?;
        Ok(SessionSealed {
            session: self.id,
            nonce: ByteArray::new(nonce),
            ciphertext: serde_bytes::ByteBuf::from(ciphertext),
        })
    }

    /// Decrypt `sealed`; [`CryptoError::OpenFailed`] if it was made with
    /// another key (check [`SessionSealed::session`] first) or altered.
    pub fn decrypt(&self, sealed: &SessionSealed, aad: &[u8]) -> Result<Vec<u8>, CryptoError> {
        if sealed.session != self.id {
            return Err(CryptoError::OpenFailed);
        }
        self.cipher()?
            .decrypt(
                &(*sealed.nonce).into(),
                Payload {
                    msg: &sealed.ciphertext,
                    aad,
                },
            )
            .map_err(|_| CryptoError::OpenFailed)
    }
}

/// BLAKE3 key-derivation context of [`RequestKeys::for_minion`].
const REQUEST_KEY_CONTEXT: &[u8] = b"brine request key v1";

/// A master process's secret for its minions' request keys. Sealing each
/// request to the master's X25519 key costs a Diffie-Hellman on both ends
/// (a third of a fleet's `test.ping` CPU); a minion the master accepted is
/// instead handed, sealed to it at authentication, a symmetric key derived
/// from this secret, its id and its key, with which it encrypts its
/// requests. The master keeps nothing per minion: it derives the key again
/// from the request's signer. A new secret at each master start retires
/// every key with the process.
pub struct RequestKeys {
    secret: [u8; 32],
}

impl std::fmt::Debug for RequestKeys {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RequestKeys").finish_non_exhaustive()
    }
}

impl RequestKeys {
    pub fn generate() -> Result<RequestKeys, CryptoError> {
        let mut secret = [0u8; 32];
        fill_random(&mut secret)?;
        Ok(RequestKeys { secret })
    }

    /// The request key of minion `id` whose accepted key is `ed25519`.
    pub fn for_minion(&self, id: &str, ed25519: &[u8; 32]) -> SessionKey {
        let mut h = blake3::Hasher::new_keyed(&self.secret);
        h.update(REQUEST_KEY_CONTEXT);
        // Length-prefixed: no id can pass for another id and key.
        h.update(&(id.len() as u64).to_be_bytes());
        h.update(id.as_bytes());
        h.update(ed25519);
        let mut out = [0u8; 40];
        h.finalize_xof().fill(&mut out);
        let (mut kid, mut key) = ([0u8; 8], [0u8; 32]);
        kid.copy_from_slice(&out[..8]);
        key.copy_from_slice(&out[8..]);
        SessionKey {
            id: ByteArray::new(kid),
            key: ByteArray::new(key),
        }
    }
}

/// This host's clock: milliseconds since the Unix epoch (0 if the clock is
/// before 1970).
pub fn local_now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
        .unwrap_or(0)
}

/// How far the master's clock is ahead of this host's (a minion learns it
/// from the master's signed replies; a master's stays 0).
static MASTER_CLOCK_OFFSET_MS: AtomicI64 = AtomicI64::new(0);

/// The master's clock as this process knows it: the time every message is
/// stamped with and checked against. Freshness windows then hold whatever
/// the minion's own clock says (Salt does not need agreeing clocks
/// either): a minion follows the master's time from the replies it
/// verified, see [`follow_master_clock`].
pub fn now_ms() -> u64 {
    let offset = MASTER_CLOCK_OFFSET_MS.load(Ordering::Relaxed);
    local_now_ms().saturating_add_signed(offset)
}

/// Take `master_ms`, a time stamped by the master on a reply whose
/// signature was verified against its key, as the master's now.
pub fn follow_master_clock(master_ms: u64) {
    let local = i128::from(local_now_ms());
    let offset = (i128::from(master_ms) - local).clamp(i128::from(i64::MIN), i128::from(i64::MAX));
    // Clamped to i64 just above.
    MASTER_CLOCK_OFFSET_MS.store(offset as i64, Ordering::Relaxed);
}

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum ReplayError {
    #[error(
        "message created at {created_ms} ms is older than the {window_ms} ms window (now {now_ms})"
    )]
    Stale {
        created_ms: u64,
        now_ms: u64,
        window_ms: u64,
    },
    #[error("message created at {created_ms} ms is in the future (now {now_ms}, allowed skew {skew_ms} ms)")]
    FromFuture {
        created_ms: u64,
        now_ms: u64,
        skew_ms: u64,
    },
    #[error("message nonce was already seen (replay)")]
    Replayed,
    #[error(
        "too many messages in the replay window ({capacity}); refusing until older ones expire"
    )]
    Full { capacity: usize },
}

/// Rejects messages older than a time window and nonces already seen within
/// it. Memory is bounded: nonces older than the window are forgotten (their
/// messages would be refused as stale anyway), and when `capacity` live
/// nonces are held, new messages are refused rather than forgetting a nonce
/// that could then be replayed (fail closed).
#[derive(Debug)]
pub struct ReplayGuard {
    window_ms: u64,
    skew_ms: u64,
    capacity: usize,
    seen: HashSet<Nonce>,
    by_time: BTreeSet<(u64, Nonce)>,
}

impl ReplayGuard {
    /// `window_ms`: how old a message may be; `skew_ms`: how far in the
    /// future its creation time may be (clock differences); `capacity`:
    /// most nonces remembered.
    pub fn new(window_ms: u64, skew_ms: u64, capacity: usize) -> ReplayGuard {
        ReplayGuard {
            window_ms,
            skew_ms,
            capacity,
            seen: HashSet::new(),
            by_time: BTreeSet::new(),
        }
    }

    /// Check a message and, if it is fresh, remember its nonce.
    pub fn check(
        &mut self,
        created_ms: u64,
        nonce: &Nonce,
        now_ms: u64,
    ) -> Result<(), ReplayError> {
        let oldest = now_ms.saturating_sub(self.window_ms);
        if created_ms < oldest {
            return Err(ReplayError::Stale {
                created_ms,
                now_ms,
                window_ms: self.window_ms,
            });
        }
        if created_ms > now_ms.saturating_add(self.skew_ms) {
            return Err(ReplayError::FromFuture {
                created_ms,
                now_ms,
                skew_ms: self.skew_ms,
            });
        }
        self.expire(oldest);
        if self.seen.contains(nonce) {
            return Err(ReplayError::Replayed);
        }
        if self.seen.len() >= self.capacity {
            return Err(ReplayError::Full {
                capacity: self.capacity,
            });
        }
        self.seen.insert(*nonce);
        self.by_time.insert((created_ms, *nonce));
        Ok(())
    }

    /// Forget the nonces that have left the window at `now_ms`.
    pub fn forget_before(&mut self, now_ms: u64) {
        self.expire(now_ms.saturating_sub(self.window_ms));
    }

    /// Forget nonces of messages created before `oldest`.
    fn expire(&mut self, oldest: u64) {
        while let Some(&(t, n)) = self.by_time.first() {
            if t >= oldest {
                break;
            }
            self.by_time.pop_first();
            self.seen.remove(&n);
        }
    }

    /// Number of nonces currently remembered.
    pub fn len(&self) -> usize {
        self.seen.len()
    }

    pub fn is_empty(&self) -> bool {
        self.seen.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sign_and_verify() {
        let kp = KeyPair::generate().unwrap();
        let s = kp.sign(b"hello".to_vec());
        assert_eq!(s.verify().unwrap(), b"hello");
        assert_eq!(s.verify_by(&kp.public().ed25519).unwrap(), b"hello");
    }

    #[test]
    fn a_kept_key_verifies_what_its_holder_signed_and_nothing_else() {
        let (a, b) = (KeyPair::generate().unwrap(), KeyPair::generate().unwrap());
        let known = Verifiers::with_max(2);
        known.remember(&a.public().ed25519).unwrap();
        let va = known.get(&a.public().ed25519).expect("kept");
        assert_eq!(a.sign(b"hi".to_vec()).verify_with(&va).unwrap(), b"hi");
        // Another signer's frame, a tampered one, another scheme: refused
        // as verify refuses them.
        let by_b = b.sign(b"hi".to_vec());
        assert!(matches!(
            by_b.verify_with(&va),
            Err(CryptoError::WrongSigner { .. })
        ));
        let mut relabelled = by_b.clone();
        relabelled.signer = a.public().ed25519;
        assert!(matches!(
            relabelled.verify_with(&va),
            Err(CryptoError::BadSignature { .. })
        ));
        let mut old = a.sign(b"hi".to_vec());
        old.scheme = 0;
        assert!(matches!(
            old.verify_with(&va),
            Err(CryptoError::OtherScheme { .. })
        ));
        // Not a point: nothing kept.
        let not_a_point = (0u8..=255)
            .map(|i| [i; 32])
            .find(|k| VerifyingKey::from_bytes(k).is_err())
            .expect("some bytes are no point");
        assert!(known.remember(&not_a_point).is_err());
        // Bounded: a third key starts it over.
        known.remember(&b.public().ed25519).unwrap();
        assert_eq!(known.len(), 2);
        known
            .remember(&KeyPair::generate().unwrap().public().ed25519)
            .unwrap();
        assert_eq!(known.len(), 1);
        assert!(known.get(&a.public().ed25519).is_none());
    }

    #[test]
    fn tampered_payload_or_signature_is_rejected() {
        let kp = KeyPair::generate().unwrap();
        let mut s = kp.sign(b"hello".to_vec());
        s.payload[0] ^= 1;
        assert!(matches!(s.verify(), Err(CryptoError::BadSignature { .. })));
        let mut s = kp.sign(b"hello".to_vec());
        s.signature[5] ^= 1;
        assert!(matches!(s.verify(), Err(CryptoError::BadSignature { .. })));
    }

    #[test]
    fn frames_signed_over_the_whole_payload_are_refused_by_name() {
        // What brine before the digest scheme sent: Ed25519 over the
        // payload, no scheme field.
        #[derive(Serialize)]
        struct Legacy {
            payload: serde_bytes::ByteBuf,
            signer: ByteArray<32>,
            signature: ByteArray<64>,
        }
        let kp = KeyPair::generate().unwrap();
        let legacy = Legacy {
            payload: serde_bytes::ByteBuf::from(b"hello".to_vec()),
            signer: kp.public().ed25519,
            signature: ByteArray::new(kp.signing.sign(b"hello").to_bytes()),
        };
        let bytes = rmp_serde::to_vec_named(&legacy).unwrap();
        let s: Signed = rmp_serde::from_slice(&bytes).unwrap();
        let err = s.verify().unwrap_err();
        assert!(matches!(err, CryptoError::OtherScheme { scheme: 0, .. }));
        assert!(err.to_string().contains("same brine release"), "{err}");
        // Claiming the new scheme for it does not make it verify.
        let mut relabelled = s;
        relabelled.scheme = SIGNED_SCHEME;
        assert!(matches!(
            relabelled.verify(),
            Err(CryptoError::BadSignature { .. })
        ));
        // Nor does a digest signature pass as one over the payload.
        let mut s = kp.sign(b"hello".to_vec());
        s.scheme = 0;
        assert!(s.verify().is_err());
    }

    #[test]
    fn wrong_signer_is_rejected() {
        let a = KeyPair::generate().unwrap();
        let b = KeyPair::generate().unwrap();
        let s = a.sign(b"x".to_vec());
        assert!(matches!(
            s.verify_by(&b.public().ed25519),
            Err(CryptoError::WrongSigner { .. })
        ));
        // Substituting b's key while keeping a's signature fails too.
        let mut forged = s.clone();
        forged.signer = b.public().ed25519;
        assert!(forged.verify().is_err());
    }

    #[test]
    fn invalid_signer_point_is_an_error() {
        let kp = KeyPair::generate().unwrap();
        let mut s = kp.sign(b"x".to_vec());
        // Not every 32-byte string decodes to a curve point; find one that
        // doesn't and check it is an error, not a panic.
        for y in 0u8..=255 {
            let mut k = [0xffu8; 32];
            k[0] = y;
            if VerifyingKey::from_bytes(&k).is_err() {
                s.signer = ByteArray::new(k);
                assert!(matches!(s.verify(), Err(CryptoError::BadPublicKey { .. })));
                return;
            }
        }
    }

    #[test]
    fn seal_and_open_round_trip() {
        let kp = KeyPair::generate().unwrap();
        let sealed = seal(&kp.public().x25519, b"secret pillar", b"jid|web1").unwrap();
        assert_eq!(kp.open(&sealed, b"jid|web1").unwrap(), b"secret pillar");
        // Ciphertext is plaintext + 16-byte tag, and differs per message.
        assert_eq!(sealed.ciphertext.len(), 13 + 16);
        let again = seal(&kp.public().x25519, b"secret pillar", b"jid|web1").unwrap();
        assert_ne!(sealed.ciphertext, again.ciphertext);
    }

    #[test]
    fn open_fails_with_wrong_key_aad_or_tampering() {
        let kp = KeyPair::generate().unwrap();
        let other = KeyPair::generate().unwrap();
        let sealed = seal(&kp.public().x25519, b"data", b"ctx").unwrap();
        assert_eq!(other.open(&sealed, b"ctx"), Err(CryptoError::OpenFailed));
        assert_eq!(kp.open(&sealed, b"other ctx"), Err(CryptoError::OpenFailed));
        let mut t = sealed.clone();
        t.ciphertext[0] ^= 0x80;
        assert_eq!(kp.open(&t, b"ctx"), Err(CryptoError::OpenFailed));
        let mut t = sealed.clone();
        t.ciphertext.truncate(3);
        assert_eq!(kp.open(&t, b"ctx"), Err(CryptoError::OpenFailed));
        let mut t = sealed;
        t.ephemeral[0] ^= 1;
        assert!(kp.open(&t, b"ctx").is_err());
    }

    #[test]
    fn small_order_keys_are_refused() {
        let kp = KeyPair::generate().unwrap();
        // The all-zero point gives an all-zero shared secret.
        assert_eq!(
            seal(&[0u8; 32], b"x", b"").unwrap_err(),
            CryptoError::WeakKeyAgreement
        );
        let bogus = Sealed {
            ephemeral: ByteArray::new([0u8; 32]),
            ciphertext: serde_bytes::ByteBuf::from(vec![0u8; 20]),
        };
        assert_eq!(kp.open(&bogus, b""), Err(CryptoError::WeakKeyAgreement));
    }

    #[test]
    fn key_pair_survives_secret_bytes() {
        let kp = KeyPair::generate().unwrap();
        let (e, x) = kp.secret_bytes();
        let back = KeyPair::from_secret_bytes(e, x);
        assert_eq!(back.public(), kp.public());
    }

    #[test]
    fn fingerprint_shape_is_salts() {
        // sha256("") is well known; the shape is 32 hex pairs with colons.
        assert_eq!(
            finger(b""),
            "e3:b0:c4:42:98:fc:1c:14:9a:fb:f4:c8:99:6f:b9:24:27:ae:41:e4:64:9b:93:4c:a4:95:99:1b:78:52:b8:55"
        );
        let fp = KeyPair::generate().unwrap().public().fingerprint();
        assert_eq!(fp.len(), 95);
        assert_eq!(fp.matches(':').count(), 31);
    }

    #[test]
    fn replay_guard_rejects_stale_future_and_repeats() {
        let mut g = ReplayGuard::new(1000, 100, 10);
        let n1 = [1u8; NONCE_LEN];
        let n2 = [2u8; NONCE_LEN];
        assert_eq!(g.check(10_000, &n1, 10_000), Ok(()));
        assert_eq!(g.check(10_000, &n1, 10_001), Err(ReplayError::Replayed));
        assert!(matches!(
            g.check(8_000, &n2, 10_000),
            Err(ReplayError::Stale { .. })
        ));
        assert!(matches!(
            g.check(10_200, &n2, 10_000),
            Err(ReplayError::FromFuture { .. })
        ));
        assert_eq!(g.check(10_050, &n2, 10_000), Ok(()));
    }

    #[test]
    fn replay_guard_forgets_only_expired_and_fails_closed_when_full() {
        let mut g = ReplayGuard::new(1000, 0, 3);
        for i in 0..3u8 {
            assert_eq!(g.check(5_000, &[i; NONCE_LEN], 5_000), Ok(()));
        }
        assert_eq!(
            g.check(5_000, &[9; NONCE_LEN], 5_000),
            Err(ReplayError::Full { capacity: 3 })
        );
        // Once the window has moved past them, old nonces are dropped and
        // there is room again; replaying an old message is refused as stale.
        assert_eq!(g.check(6_500, &[9; NONCE_LEN], 6_500), Ok(()));
        assert_eq!(g.len(), 1);
        assert!(matches!(
            g.check(5_000, &[0; NONCE_LEN], 6_500),
            Err(ReplayError::Stale { .. })
        ));
    }
}
