//! brine's wire: the messages master, minions and the CLI exchange, with
//! their cryptography, key files and transport. Salt's values themselves are
//! `brine_core`'s.
//!
//! - [`messages`]: the msgpack messages ([`messages::Request`],
//!   [`messages::Reply`], [`messages::Publication`]), size/version/depth
//!   limits, [`messages::sign_frame`] / [`messages::read_frame`].
//! - [`crypto`]: ed25519 [`crypto::Signed`] frames, [`crypto::seal`] /
//!   [`crypto::KeyPair::open`] to one X25519 key, [`crypto::ReplayGuard`].
//! - [`keys`]: key file formats, minion id validation, private file writing.
//! - [`local`]: a daemon's local Unix sockets (private folder, peer
//!   credentials, length-prefixed msgpack frames).
//! - [`transport`]: ZeroMQ sockets (zmq.rs) with limits on untrusted peers,
//!   [`transport::call`] for a client round trip.
//!
//! How the daemons use it (Salt's flow):
//! 1. Start: master `KeyStore::create(pki_dir)` + `master_keys()`
//!    (brine-master), minion `daemon::keys::load_or_create(pki_dir)`
//!    (brine-minion). Master binds [`transport::bind_router`] (ret port,
//!    4506) and [`transport::bind_pub`] (publish port, 4505).
//! 2. Auth: the minion [`transport::connect_dealer`]s and sends
//!    `RequestBody::Auth` (id, its [`crypto::PublicKeys`], grains), signed
//!    with its key. The master checks the frame's signer equals
//!    `keys.ed25519`, calls `KeyStore::authenticate(id, keys, auto_accept)`
//!    and answers `AuthReply { status, master }` (to an accepted minion
//!    also the session key, this master process's `instance` and the
//!    minion's request key, [`crypto::RequestKeys`]). The minion checks the
//!    reply's signer is `master.ed25519` and pins it with
//!    `daemon::keys::verify_master` (`minion_master.pub`, `master_finger`);
//!    while `Pending`, it retries every `acceptance_wait_time`.
//! 3. Requests (pillar, files, returns): signed by the minion; the master
//!    verifies the signer is `KeyStore::accepted(id)`'s ed25519 key and runs
//!    the request's `created_ms`/`nonce` through a [`crypto::ReplayGuard`].
//!    Secret answers are sealed to the accepted X25519 key with the
//!    [`messages::aad`] helpers; the reply names the request nonce. Secret
//!    requests (job returns, `pillar=` data, state compiles carrying the
//!    pillar) travel as `RequestBody::Sealed`: with the minion's request
//!    key ([`messages::Request::sealed_with_key`]), or sealed to the
//!    master's X25519 key ([`messages::Request::sealed`]) by a minion that
//!    has none. Every minion request names the master process it is for
//!    (`Request::to`). `state.*` runs ask the master to
//!    compile with `RequestBody::CompileStates` and run the sealed low
//!    chunks of the `StateReply`.
//! 4. Jobs: the CLI sends `CliPublish` (root token); the master seals
//!    `kwarg["pillar"]` per target minion into `Publication::secrets`, signs
//!    the publication and sends it on PUB. Minions
//!    ([`transport::connect_sub`]) verify it with the pinned master key, run
//!    it through their `ReplayGuard`, match the target, open their secret,
//!    run the job and send `RequestBody::Return`.

pub mod crypto;
pub mod keys;
pub mod local;
pub mod messages;
pub mod transport;
