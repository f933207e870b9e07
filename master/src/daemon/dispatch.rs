//! One request frame in, at most one reply frame out. In order:
//! 1. decode and verify the signed frame (undecodable, badly signed,
//!    unknown type, other version: logged and dropped, no reply);
//! 2. decide who is asking: the offered key (auth), the root token (CLI),
//!    or the accepted key of the minion id in the body, which must be the
//!    signer (so no minion can ask in another's name);
//! 3. freshness (see [`super::freshness`]): recorded for known requesters
//!    only, after 2;
//! 4. open a sealed body and route to the handler.

use super::events::tags;
use super::freshness::Requester;
use super::master::Master;
use super::minion_cache::KnownMinion;
use super::publisher::{self, PublishError};
use super::{auth, fileserver, pillar, states};
use crate::keys::KeyState;
use brine_core::Value;
use brine_protocol::crypto::{self, Nonce, PublicKeys};
use brine_protocol::messages::{
    read_frame_known, sign_frame, CliPublish, ErrorCode, ErrorReply, GetReturns, JobReturn,
    MinionReturn, PackedValue, PublishReply, Reply, ReplyBody, Request, RequestBody, ReturnsReply,
    Verified, MAX_RETURNS_WAIT_MS,
};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// A refusal before any work is done: a small value, unlike a ReplyBody,
/// so the checks that produce it return `Result<_, ErrorReply>`.
fn refusal(code: ErrorCode, message: impl Into<String>) -> ErrorReply {
    ErrorReply {
        code,
        message: message.into(),
    }
}

fn error(code: ErrorCode, message: impl Into<String>) -> ReplyBody {
    ReplyBody::Error(ErrorReply {
        code,
        message: message.into(),
    })
}

/// A minion request that waited on the master longer than its sender
/// waits for the answer (`wait_ms`) is not handled: a fleet in a storm of
/// compiles would otherwise spend its turns on answers nobody reads while
/// the minions' resent requests wait behind them. Checked once the sender
/// is known (its key signed, the request fresh), so only a minion's own
/// requests are refused; the refusal carries the master's time, which a
/// minion whose clock is off follows.
fn still_awaited(id: &str, req: &Request) -> Result<(), ErrorReply> {
    let now = crypto::now_ms();
    if !req.expired(now) {
        return Ok(());
    }
    tracing::debug!(
        "a request from minion {id} waited {} ms, over the {} ms it is awaited; not handled",
        now.saturating_sub(req.created_ms),
        req.wait_ms
    );
    Err(refusal(
        ErrorCode::Expired,
        "the request waited longer than its sender waits for the answer",
    ))
}

/// Who publishes: the local root token's holder (Salt's `user` of a job
/// published by root).
const PUBLISHING_USER: &str = "root";

/// Longest jid accepted in a return (Salt's are 20 digits, or `_pid` more).
const MAX_JID_LEN: usize = 64;

impl Master {
    /// Handle one frame received on the ret port at `received`; `None`:
    /// drop it.
    pub fn handle_frame(&self, frame: &[u8], received: Instant) -> Option<Vec<u8>> {
        self.handle_frame_from(frame, received, None).0
    }

    /// [`Master::handle_frame`], and whether the sender authenticated: an
    /// accepted minion or the CLI was answered (every answer but an error
    /// or a not-accepted auth needs one), so its connection is trusted.
    /// `from`: the address the request came from.
    pub fn handle_frame_from(
        &self,
        frame: &[u8],
        received: Instant,
        from: Option<std::net::IpAddr>,
    ) -> (Option<Vec<u8>>, bool) {
        let Verified { signer, msg: req } =
            match read_frame_known::<Request>(frame, &self.verifiers) {
                Ok(v) => v,
                Err(e) => {
                    tracing::warn!("dropped a request ({} bytes): {e}", frame.len());
                    return (None, false);
                }
            };
        let body = self.handle_request(&req, &signer, received, from);
        let authenticated = match &body {
            ReplyBody::Error(_) => false,
            ReplyBody::Auth(a) => a.status == brine_protocol::messages::AuthStatus::Accepted,
            _ => true,
        };
        (self.signed_reply(&req, body), authenticated)
    }

    fn signed_reply(&self, req: &Request, body: ReplyBody) -> Option<Vec<u8>> {
        let reply = Reply::to(req, body);
        match sign_frame(&self.key, &reply) {
            Ok(f) => Some(f),
            Err(e) => {
                tracing::error!("cannot sign a reply: {e}");
                // Tell the requester something went wrong rather than
                // leaving it waiting for a reply too large to send.
                sign_frame(
                    &self.key,
                    &Reply::to(req, error(ErrorCode::Internal, "reply could not be sent")),
                )
                .ok()
            }
        }
    }

    fn fresh(&self, who: &Requester, req: &Request) -> Result<(), ErrorReply> {
        self.freshness
            .check(who, req.created_ms, &req.nonce, crypto::now_ms())
            .map_err(|e| {
                let who = match who {
                    Requester::Cli => "the CLI".to_string(),
                    Requester::Minion(id) => format!("minion {id}"),
                };
                tracing::warn!("refused a request from {who}: {e}");
                refusal(ErrorCode::Replay, e.to_string())
            })
    }

    /// The checks on every request of a known minion, before its body is
    /// opened: addressed to this master process, fresh, and still awaited
    /// by its sender.
    fn admit(&self, id: &str, req: &Request) -> Result<(), ErrorReply> {
        self.addressed_here(id, req)?;
        self.fresh(&Requester::Minion(id.to_string()), req)?;
        still_awaited(id, req)
    }

    /// Masters of one fleet share the master key, so a request captured on
    /// its way to another (or to an earlier run of this one) would open
    /// here; it names its master, and nothing is recorded for one that
    /// names another. The minion authenticates again on this refusal and
    /// learns this master's instance.
    fn addressed_here(&self, id: &str, req: &Request) -> Result<(), ErrorReply> {
        if req.to.as_deref() == Some(&self.instance) {
            return Ok(());
        }
        tracing::debug!("a request from minion {id} is addressed to another master; refused");
        Err(refusal(
            ErrorCode::NotAccepted,
            "the request is addressed to another master: authenticate again",
        ))
    }

    /// Whether `id`'s accepted key is `offered` (an auth from a known
    /// minion, whose freshness is then checked).
    fn is_accepted_key(&self, id: &str, offered: &PublicKeys) -> bool {
        matches!(self.keys.accepted(id), Ok(Some(k)) if *k.ed25519 == *offered.ed25519)
    }

    /// The accepted key of `id`, which must have signed the request.
    fn minion_key(&self, id: &str, signer: &[u8; 32]) -> Result<PublicKeys, ErrorReply> {
        match self.keys.accepted(id) {
            Ok(Some(k)) if *k.ed25519 == *signer => {
                // Its next requests verify without decompressing the key
                // again (a point the key store validated when it stored it).
                if let Err(e) = self.verifiers.remember(signer) {
                    tracing::warn!("the accepted key of minion {id:?}: {e}");
                }
                Ok(k)
            }
            Ok(Some(_)) => {
                tracing::warn!("request for minion {id:?} not signed by its accepted key; refused");
                Err(refusal(
                    ErrorCode::Unauthorized,
                    "not signed by the accepted key of this minion",
                ))
            }
            Ok(None) => {
                let state = self.keys.has(KeyState::Rejected, id).unwrap_or(false);
                tracing::info!(
                    "request from minion {id:?} whose key is {}; refused",
                    if state { "rejected" } else { "not accepted" }
                );
                Err(refusal(
                    ErrorCode::NotAccepted,
                    "the minion's key is not accepted",
                ))
            }
            Err(e) => {
                tracing::warn!("request from minion {id:?}: {e}");
                Err(refusal(
                    ErrorCode::NotAccepted,
                    "the minion's key is not accepted",
                ))
            }
        }
    }

    fn handle_request(
        &self,
        req: &Request,
        signer: &[u8; 32],
        received: Instant,
        from: Option<std::net::IpAddr>,
    ) -> ReplyBody {
        match &req.msg {
            RequestBody::Auth(a) => {
                // Only an accepted key's auth changes what the master holds
                // (its grains): that one must be fresh. An unknown or
                // pending key's leaves nothing in the replay memory.
                if *a.keys.ed25519 == *signer && self.is_accepted_key(&a.id, &a.keys) {
                    if let Err(e) = self.fresh(&Requester::Minion(a.id.clone()), req) {
                        return ReplyBody::Error(e);
                    }
                }
                auth::Authenticator {
                    keys: &self.keys,
                    cache: &self.cache,
                    session: &self.session,
                    master_public: self.key.public(),
                    auto_accept: self.config.auto_accept,
                    instance: self.instance,
                    request_keys: &self.request_keys,
                    events: self.config.auth_events.then_some(&*self.events),
                    from,
                    pending_rate: &self.pending_rate,
                }
                .handle(&req.nonce, a, signer)
            }
            RequestBody::Publish(p) => {
                let Some(caller) = self.access.caller(&p.token, p.user.as_deref()) else {
                    tracing::warn!(
                        "a publication with a token that is no one's (user {}); refused",
                        p.user.as_deref().unwrap_or("root")
                    );
                    return error(ErrorCode::Unauthorized, "Authentication error occurred.");
                };
                if let Err(e) = self.fresh(&Requester::Cli, req) {
                    return ReplyBody::Error(e);
                }
                let expand = |tgt: &Value, tgt_type: &str| {
                    publisher::expected_minions(
                        &self.keys,
                        &self.cache,
                        &self.config.opts,
                        tgt,
                        tgt_type,
                    )
                    .unwrap_or_default()
                };
                if let Err(why) = self.access.may_publish(
                    &caller,
                    &p.fun,
                    &p.arg,
                    &p.kwarg,
                    &p.tgt,
                    &p.tgt_type,
                    &expand,
                ) {
                    tracing::warn!("refused a publication: {why}");
                    return error(ErrorCode::Unauthorized, why.salt_message());
                }
                match caller {
                    // The root token's holder names its user itself (none: root).
                    crate::eauth::caller::Caller::Root { .. } => self.publish(p),
                    other => {
                        let mut p = p.clone();
                        p.user = Some(other.name().to_string());
                        self.publish(&p)
                    }
                }
            }
            RequestBody::GetReturns(g) => {
                if self.access.caller(&g.token, g.user.as_deref()).is_none() {
                    return error(ErrorCode::Unauthorized, "Authentication error occurred.");
                }
                if let Err(e) = self.fresh(&Requester::Cli, req) {
                    return ReplyBody::Error(e);
                }
                self.get_returns(g)
            }
            RequestBody::Login(l) => {
                if from.is_some() {
                    tracing::warn!(
                        "an eauth login for {} came from the network; refused (the local \
                         socket only)",
                        l.username
                    );
                    return error(ErrorCode::Unauthorized, "Authentication error occurred.");
                }
                if let Err(e) = self.fresh(&Requester::Cli, req) {
                    return ReplyBody::Error(e);
                }
                match self.access.login(from, &l.eauth, &l.username, &l.password) {
                    Ok(s) => ReplyBody::Token(brine_protocol::messages::TokenReply {
                        token: s.token,
                        user: s.user,
                        eauth: s.eauth,
                        start: s.start,
                        expire: s.expire,
                    }),
                    Err(e) => {
                        tracing::warn!("an eauth login for {} refused: {e}", l.username);
                        error(ErrorCode::Unauthorized, "Authentication error occurred.")
                    }
                }
            }
            RequestBody::Sealed(s) => {
                let keys = match self.minion_key(&s.id, signer) {
                    Ok(k) => k,
                    Err(e) => return ReplyBody::Error(e),
                };
                if let Err(e) = self.admit(&s.id, req) {
                    return ReplyBody::Error(e);
                }
                let request_key = self.request_keys.for_minion(&s.id, signer);
                let inner = match s.open(&self.key, &request_key, &req.nonce) {
                    Ok(b) => b,
                    Err(e) => {
                        tracing::warn!("sealed request from {}: {e}", s.id);
                        return error(ErrorCode::BadRequest, "the sealed body cannot be opened");
                    }
                };
                if body_id(&inner) != Some(s.id.as_str()) {
                    tracing::warn!("sealed request from {} names another minion or is not a minion request; refused", s.id);
                    return error(
                        ErrorCode::Unauthorized,
                        "sealed body of another kind or minion",
                    );
                }
                if inner.lane() != s.lane {
                    tracing::warn!(
                        "sealed request from {} waited in the {:?} lane but is a {:?} request; refused",
                        s.id,
                        s.lane,
                        inner.lane()
                    );
                    return error(ErrorCode::BadRequest, "the sealed body is not of its lane");
                }
                self.minion_request(&inner, &req.nonce, &keys, true, received)
            }
            body => {
                let Some(id) = body_id(body) else {
                    return error(ErrorCode::BadRequest, "unexpected request");
                };
                let keys = match self.minion_key(id, signer) {
                    Ok(k) => k,
                    Err(e) => return ReplyBody::Error(e),
                };
                if let Err(e) = self.admit(id, req) {
                    return ReplyBody::Error(e);
                }
                self.minion_request(body, &req.nonce, &keys, false, received)
            }
        }
    }

    /// What the master keeps of `id`, which holds the grains it sent at
    /// auth. None cached (the master's cache was lost): the minion must
    /// authenticate again before anything is compiled for it, or it would
    /// be compiled without its grains.
    fn cached_minion(&self, id: &str) -> Result<Arc<KnownMinion>, ErrorReply> {
        match self.cache.get(id) {
            Some(c) if c.has_grains() => Ok(c),
            _ => {
                tracing::info!("no cached data for minion {id}; it must authenticate again");
                Err(refusal(
                    ErrorCode::NotAccepted,
                    "the master has no data for this minion: authenticate again",
                ))
            }
        }
    }

    /// A request from an authenticated minion.
    fn minion_request(
        &self,
        body: &RequestBody,
        nonce: &Nonce,
        keys: &PublicKeys,
        sealed: bool,
        received: Instant,
    ) -> ReplyBody {
        let opts = &self.config.opts;
        match body {
            RequestBody::Pillar(p) => match self.cached_minion(&p.id) {
                Ok(_) => {
                    let reply = pillar::handle(
                        opts,
                        &self.cache,
                        &self.functions,
                        p,
                        nonce,
                        keys,
                        received,
                    );
                    if matches!(reply, ReplyBody::Pillar(_)) {
                        let (tag, data) = tags::minion_refresh(&p.id);
                        self.events.fire(&tag, data);
                    }
                    reply
                }
                Err(e) => ReplyBody::Error(e),
            },
            RequestBody::File(f) => fileserver::handle(opts, &self.files, f, nonce, keys),
            RequestBody::Return(r) => {
                if r.jid.is_empty() || r.jid.len() > MAX_JID_LEN {
                    return error(ErrorCode::BadRequest, "invalid jid");
                }
                // Stored as the minion packed it (checked to be one value
                // when the request was decoded).
                let size = r.ret.0.len();
                let max = self.config.max_return_size;
                if r.schedule.is_some() || r.called {
                    if let Err(e) = self.record_scheduled(r) {
                        tracing::error!("{e}");
                        return error(ErrorCode::Internal, "the return could not be stored");
                    }
                }
                let stored = if size <= max {
                    self.jobs.add_return(r, crypto::now_ms())
                } else {
                    tracing::warn!(
                        "the return of job {} from {} is {size} bytes, over max_return_size \
                         ({max}); an error is stored in its place",
                        r.jid,
                        r.id
                    );
                    // Built field by field: the oversized value is not copied.
                    let oversized = JobReturn {
                        jid: r.jid.clone(),
                        id: r.id.clone(),
                        fun: r.fun.clone(),
                        fun_args: r.fun_args.clone(),
                        ret: PackedValue::text(&format!(
                            "ERROR: the return of {} was {size} bytes, over the master's \
                             max_return_size of {max} bytes; it was not stored",
                            r.fun
                        )),
                        retcode: 1,
                        success: false,
                        out: Some("nested".into()),
                        schedule: r.schedule.clone(),
                        called: r.called,
                        user: r.user.clone(),
                    };
                    self.jobs.add_return(&oversized, crypto::now_ms())
                };
                if matches!(stored, Ok(super::jobs::Stored::New)) {
                    self.arrivals.landed();
                }
                if size > max && matches!(stored, Ok(super::jobs::Stored::New)) {
                    return error(
                        ErrorCode::TooLarge,
                        format!(
                            "the return was {size} bytes, over max_return_size ({max}): \
                             an error was stored in its place"
                        ),
                    );
                }
                match stored {
                    Ok(super::jobs::Stored::New) => {
                        self.fire_return(r);
                        ReplyBody::ReturnAck
                    }
                    Ok(super::jobs::Stored::Duplicate) => {
                        tracing::info!(
                            "an extra return for job {} from {} was dropped",
                            r.jid,
                            r.id
                        );
                        ReplyBody::ReturnAck
                    }
                    Ok(super::jobs::Stored::NotTargeted) => {
                        tracing::warn!(
                            "refused a return from {} for job {}: the job was not published to it",
                            r.id,
                            r.jid
                        );
                        error(
                            ErrorCode::BadRequest,
                            format!("job {} was not published to {}", r.jid, r.id),
                        )
                    }
                    Err(e) => {
                        // No ack: the minion keeps the return and resends.
                        tracing::error!("{e}");
                        error(ErrorCode::Internal, "the return could not be stored")
                    }
                }
            }
            RequestBody::CompileStates(c) if sealed => match self.cached_minion(&c.id) {
                Ok(known) => states::handle(
                    opts,
                    &self.cache,
                    &self.functions,
                    &known,
                    c,
                    pillar::SealFor { keys, nonce },
                    received,
                ),
                Err(e) => ReplyBody::Error(e),
            },
            RequestBody::CompileStates(_) => error(
                ErrorCode::BadRequest,
                "state compiles carry the pillar: send them sealed",
            ),
            RequestBody::HieraLookup(h) if sealed => match self.cached_minion(&h.id) {
                Ok(known) => {
                    super::hiera::handle(opts, &self.functions, known.grains(), h, nonce, keys)
                }
                Err(e) => ReplyBody::Error(e),
            },
            RequestBody::HieraLookup(_) => error(
                ErrorCode::BadRequest,
                "hiera lookups carry the pillar: send them sealed",
            ),
            RequestBody::Event(e) if sealed => {
                let (tag, data) = tags::minion_event(&e.id, &e.tag, e.data.clone(), e.ts);
                self.events.fire(&tag, data);
                ReplyBody::Ack
            }
            RequestBody::Mine(m) if sealed => super::mine::handle(&self.mine, m, nonce, keys),
            RequestBody::Event(_) | RequestBody::Mine(_) => {
                error(ErrorCode::BadRequest, "events and mine data travel sealed")
            }
            _ => error(ErrorCode::BadRequest, "unexpected request"),
        }
    }

    fn publish(&self, p: &CliPublish) -> ReplyBody {
        let prepared = publisher::Publisher {
            master_key: &self.key,
            session: &self.session,
            keys: &self.keys,
            cache: &self.cache,
            jobs: &self.jobs,
            jids: &self.jids,
            master_opts: &self.config.opts,
        }
        .prepare(p);
        match prepared {
            Ok(prep) if prep.minions.is_empty() => {
                tracing::info!("{} to {}: no minion matched", p.fun, p.tgt.to_python_str());
                ReplyBody::Published(PublishReply {
                    jid: prep.jid,
                    minions: prep.minions,
                })
            }
            Ok(prep) => {
                tracing::info!(
                    "job {} {} to {} minion(s)",
                    prep.jid,
                    p.fun,
                    prep.minions.len()
                );
                // Fired before the publication leaves, as Salt fires them:
                // a fast minion's `ret` event came before `new` otherwise.
                self.fire_publish(p, &prep.jid, &prep.minions);
                if self.publish.send(prep.frame).is_err() {
                    return error(ErrorCode::Internal, "the master is shutting down");
                }
                ReplyBody::Published(PublishReply {
                    jid: prep.jid,
                    minions: prep.minions,
                })
            }
            Err(PublishError::Target(e)) => error(ErrorCode::BadRequest, e),
            Err(e) => {
                tracing::error!("publish failed: {e}");
                error(ErrorCode::Internal, e.to_string())
            }
        }
    }

    /// The events of a published job: its minions, `new` and `publish`.
    fn fire_publish(&self, p: &CliPublish, jid: &str, minions: &[String]) {
        if !self.events.listened() {
            return;
        }
        let arg = brine_core::args::salt_arguments(&p.arg, &p.kwarg);
        let job = tags::Job {
            jid,
            tgt: &p.tgt,
            tgt_type: &p.tgt_type,
            user: p.user.as_deref().unwrap_or(PUBLISHING_USER),
            fun: &p.fun,
            arg: &arg,
            minions,
            missing: &[],
        };
        for (tag, data) in [job.minions(), job.new_job(), job.publish()] {
            self.events.fire(&tag, data);
        }
    }

    /// A scheduled run's (or a `brine-call`'s) return names a job never
    /// published: it is recorded as the minion's own job (once), so the
    /// return is kept and listed as Salt lists it.
    fn record_scheduled(&self, r: &JobReturn) -> Result<(), super::jobs::JobCacheError> {
        if self.jobs.has_job(&r.jid)? {
            return Ok(());
        }
        let job = super::jobs::Job {
            jid: r.jid.clone(),
            fun: r.fun.clone(),
            arg: r.fun_args.clone(),
            kwarg: brine_core::Map::default(),
            tgt: Value::Str(r.id.clone()),
            tgt_type: "glob".into(),
            user: PUBLISHING_USER.into(),
            start_ms: crypto::now_ms(),
        };
        match self.jobs.add_job(&job, std::slice::from_ref(&r.id)) {
            Err(super::jobs::JobCacheError::JidTaken(_)) | Ok(()) => Ok(()),
            Err(e) => Err(e),
        }
    }

    /// A stored return's `salt/job/<jid>/ret/<id>` event.
    fn fire_return(&self, r: &JobReturn) {
        if !self.events.listened() {
            return;
        }
        let (tag, data) = tags::Return {
            jid: &r.jid,
            id: &r.id,
            fun: &r.fun,
            fun_args: &r.fun_args,
            ret: r.ret.unpack(),
            retcode: r.retcode,
            success: r.success,
            out: r.out.as_deref(),
            user: r.user.as_deref().unwrap_or(PUBLISHING_USER),
            schedule: r.schedule.as_deref(),
        }
        .event();
        self.events.fire(&tag, data);
    }

    /// One page of a job's returns after the CLI's cursor. When none is
    /// new and the CLI asked to wait, the answer waits (bounded) for one to
    /// land.
    fn get_returns(&self, g: &GetReturns) -> ReplyBody {
        let wait = Duration::from_millis(g.wait_ms.min(MAX_RETURNS_WAIT_MS));
        let deadline = Instant::now() + wait;
        // Half the largest message for the returns, the rest for framing;
        // and no more than a page.
        let budget = (self.config.max_message_size / 2).min(super::jobs::RETURNS_PAGE_BYTES);
        let result = (|| {
            if !self.jobs.has_job(&g.jid)? {
                return Ok(None);
            }
            loop {
                let seen = self.arrivals.seen();
                let page = self.jobs.returns_page(&g.jid, g.after, budget)?;
                let (targets, returned) = self.jobs.counts(&g.jid)?;
                let waiting = targets.saturating_sub(returned);
                let left = deadline.saturating_duration_since(Instant::now());
                if !page.returns.is_empty()
                    || waiting == 0
                    || left.is_zero()
                    || !self.arrivals.wait_past(seen, left)
                {
                    return Ok::<_, super::jobs::JobCacheError>(Some((page, waiting)));
                }
            }
        })();
        match result {
            Ok(Some((page, waiting))) => ReplyBody::Returns(ReturnsReply {
                jid: g.jid.clone(),
                returns: page
                    .returns
                    .into_iter()
                    .map(|r| {
                        (
                            r.id,
                            MinionReturn {
                                ret: r.ret,
                                retcode: r.retcode,
                                success: r.success,
                                out: r.out,
                            },
                        )
                    })
                    .collect(),
                waiting,
                next: page.next,
                more: page.more,
            }),
            Ok(None) => error(ErrorCode::NotFound, format!("no job {}", g.jid)),
            Err(e) => {
                tracing::error!("{e}");
                error(ErrorCode::Internal, "the job cache could not be read")
            }
        }
    }
}

/// The minion id a minion request is about; `None` for other requests.
fn body_id(body: &RequestBody) -> Option<&str> {
    match body {
        RequestBody::Pillar(p) => Some(&p.id),
        RequestBody::File(f) => Some(&f.id),
        RequestBody::Return(r) => Some(&r.id),
        RequestBody::CompileStates(c) => Some(&c.id),
        RequestBody::HieraLookup(h) => Some(&h.id),
        RequestBody::Event(e) => Some(&e.id),
        RequestBody::Mine(m) => Some(&m.id),
        RequestBody::Auth(_)
        | RequestBody::Publish(_)
        | RequestBody::GetReturns(_)
        | RequestBody::Login(_)
        | RequestBody::Sealed(_) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::daemon::MasterConfig;
    use brine_core::{Map, Value};
    use brine_protocol::crypto::KeyPair;
    use brine_protocol::messages::{
        aad, open_data, read_frame, AuthReply, AuthRequest, AuthStatus, CompileStates,
        CompiledStates, JobReturn, Lane, PackedValue, PillarRequest,
    };
    use serde_json::json;

    struct Setup {
        _td: tempfile::TempDir,
        master: Master,
        _queue: super::super::master::PublishQueue,
    }

    fn setup(auto_accept: bool) -> Setup {
        let td = tempfile::tempdir().unwrap();
        let pr = td.path().join("pillar");
        std::fs::create_dir_all(&pr).unwrap();
        std::fs::write(pr.join("top.sls"), "base:\n  '*':\n    - common\n").unwrap();
        std::fs::write(pr.join("common.sls"), "secret: {{ grains['id'] }}-only\n").unwrap();
        let fr = td.path().join("files");
        std::fs::create_dir_all(&fr).unwrap();
        std::fs::write(fr.join("top.sls"), "base:\n  '*':\n    - web\n").unwrap();
        std::fs::write(
            fr.join("web.sls"),
            "t:\n  test.nop:\n    - name: {{ pillar['secret'] }}\n",
        )
        .unwrap();
        let mut o = crate::daemon::config::master_defaults();
        let j = |v: serde_json::Value| Value::from_json(&v);
        o.insert("root_dir".into(), j(json!(td.path().display().to_string())));
        o.insert(
            "pki_dir".into(),
            j(json!(td.path().join("pki").display().to_string())),
        );
        o.insert(
            "cachedir".into(),
            j(json!(td.path().join("cache").display().to_string())),
        );
        o.insert(
            "pillar_roots".into(),
            j(json!({"base": [pr.display().to_string()]})),
        );
        o.insert(
            "file_roots".into(),
            j(json!({"base": [fr.display().to_string()]})),
        );
        o.insert("auto_accept".into(), Value::Bool(auto_accept));
        let config = MasterConfig::from_opts(o).unwrap();
        let (master, queue) = Master::open(config).unwrap();
        Setup {
            _td: td,
            master,
            _queue: queue,
        }
    }

    /// Send `req` signed by `key`; a request naming no master process is
    /// addressed to `m`, as a minion's are once `m` accepted it.
    fn reply(m: &Master, key: &KeyPair, req: &Request) -> Option<Reply> {
        if req.to.is_none() && !matches!(req.msg, RequestBody::Auth(_)) {
            return reply_as_is(m, key, &req.clone().to_instance(Some(m.instance)));
        }
        reply_as_is(m, key, req)
    }

    fn reply_as_is(m: &Master, key: &KeyPair, req: &Request) -> Option<Reply> {
        let frame = sign_frame(key, req).unwrap();
        let out = m.handle_frame(&frame, Instant::now())?;
        let v: Verified<Reply> = read_frame(&out, Some(&m.key.public().ed25519)).unwrap();
        assert_eq!(v.msg.in_reply_to, req.nonce);
        Some(v.msg)
    }

    fn auth(m: &Master, kp: &KeyPair, id: &str) -> AuthStatus {
        auth_reply(m, kp, id).1.status
    }

    /// An auth request of `id` with key `kp`, and `m`'s answer.
    fn auth_reply(m: &Master, kp: &KeyPair, id: &str) -> (Request, AuthReply) {
        let req = Request::new(RequestBody::Auth(AuthRequest {
            id: id.into(),
            keys: kp.public(),
            grains: PackedValue::pack(&Value::from_json(&json!({"os": "Debian"}))).unwrap(),
            pillarenv: None,
        }))
        .unwrap();
        match reply(m, kp, &req).unwrap().msg {
            ReplyBody::Auth(a) => (req, a),
            other => panic!("{other:?}"),
        }
    }

    /// A master (auto_accept) that has accepted minion web1, and its key.
    fn with_web1() -> (Setup, KeyPair) {
        let s = setup(true);
        let kp = KeyPair::generate().unwrap();
        assert_eq!(auth(&s.master, &kp, "web1"), AuthStatus::Accepted);
        (s, kp)
    }

    fn pillar_req(id: &str) -> Request {
        Request::new(RequestBody::Pillar(PillarRequest {
            id: id.into(),
            pillarenv: None,
            saltenv: None,
            pillar_override: Value::Null,
        }))
        .unwrap()
    }

    fn code(r: &Reply) -> Option<ErrorCode> {
        match &r.msg {
            ReplyBody::Error(e) => Some(e.code),
            _ => None,
        }
    }

    #[test]
    fn pillar_only_for_the_accepted_minion_itself() {
        let s = setup(false);
        let m = &s.master;
        let web1 = KeyPair::generate().unwrap();
        let web2 = KeyPair::generate().unwrap();
        assert_eq!(auth(m, &web1, "web1"), AuthStatus::Pending);
        // Pending: no pillar.
        let r = reply(m, &web1, &pillar_req("web1")).unwrap();
        assert_eq!(code(&r), Some(ErrorCode::NotAccepted));
        m.keys.accept("web1", KeyState::Pending).unwrap();
        assert_eq!(auth(m, &web1, "web1"), AuthStatus::Accepted);
        assert_eq!(auth(m, &web2, "web2"), AuthStatus::Pending);
        m.keys.accept("web2", KeyState::Pending).unwrap();

        let req = pillar_req("web1");
        let r = reply(m, &web1, &req).unwrap();
        let ReplyBody::Pillar(p) = r.msg else {
            panic!()
        };
        let got: Value = open_data(&web1, &p.pillar, &aad::pillar("web1", &req.nonce)).unwrap();
        assert_eq!(got.to_json(), json!({"secret": "web1-only"}));

        // web2 asks for web1's pillar: refused.
        let r = reply(m, &web2, &pillar_req("web1")).unwrap();
        assert_eq!(code(&r), Some(ErrorCode::Unauthorized));
        // Same request replayed: refused.
        let r = reply(m, &web1, &req).unwrap();
        assert_eq!(code(&r), Some(ErrorCode::Replay));
        // Rejected minion: nothing.
        m.keys.reject("web2", KeyState::Accepted).unwrap();
        let r = reply(m, &web2, &pillar_req("web2")).unwrap();
        assert_eq!(code(&r), Some(ErrorCode::NotAccepted));
    }

    #[test]
    fn a_request_for_another_master_is_refused_and_leaves_no_trace() {
        let (s, kp) = with_web1();
        let m = &s.master;
        let who = Requester::Minion("web1".into());
        // Masters sharing the master key open each other's requests: one
        // captured on its way to another master, or sent to an earlier run
        // of this one, or naming none, is refused before it is remembered.
        let mut other = m.instance;
        other[0] ^= 1;
        let sealed =
            Request::sealed(&m.key.public().x25519, "web1", &pillar_req("web1").msg).unwrap();
        for to in [Some(other), None] {
            for req in [pillar_req("web1"), sealed.clone()] {
                let r = reply_as_is(m, &kp, &req.to_instance(to)).unwrap();
                assert_eq!(code(&r), Some(ErrorCode::NotAccepted));
            }
        }
        assert_eq!(m.freshness.remembered(&who), 0);
        // The auth reply names this master; requests naming it are served.
        let (_, a) = auth_reply(m, &kp, "web1");
        assert_eq!(a.instance.map(|i| *i), Some(m.instance));
        let r = reply_as_is(m, &kp, &sealed.to_instance(Some(m.instance))).unwrap();
        assert!(matches!(r.msg, ReplyBody::Pillar(_)), "{:?}", r.msg);
    }

    /// The auth reply hands an accepted minion its request key, sealed to
    /// it; requests sealed with it open, and only for that minion.
    #[test]
    fn requests_sealed_with_the_key_the_auth_reply_gave() {
        let (s, kp) = with_web1();
        let m = &s.master;
        let (auth, a) = auth_reply(m, &kp, "web1");
        let sealed = a.request_key.expect("a request key for an accepted minion");
        let key: crypto::SessionKey =
            open_data(&kp, &sealed, &aad::request_key("web1", &auth.nonce)).unwrap();
        let body = pillar_req("web1").msg;
        let r = reply(
            m,
            &kp,
            &Request::sealed_with_key(&key, "web1", &body).unwrap(),
        )
        .unwrap();
        assert!(matches!(r.msg, ReplyBody::Pillar(_)), "{:?}", r.msg);
        // Any other key: not opened, not served.
        let other = crypto::SessionKey::generate().unwrap();
        let r = reply(
            m,
            &kp,
            &Request::sealed_with_key(&other, "web1", &body).unwrap(),
        )
        .unwrap();
        assert_eq!(code(&r), Some(ErrorCode::BadRequest));
        // A pending minion is given none.
        let s = setup(false);
        let pending = KeyPair::generate().unwrap();
        let (_, a) = auth_reply(&s.master, &pending, "web2");
        assert_eq!(a.status, AuthStatus::Pending);
        assert!(a.request_key.is_none() && a.session.is_none());
    }

    #[test]
    fn a_request_its_sender_stopped_waiting_for_is_not_handled() {
        let (s, kp) = with_web1();
        let m = &s.master;
        let master_x = m.key.public().x25519;
        let body = pillar_req("web1").msg;
        // Sent by a minion that waits 20 ms, handled 60 ms later: refused,
        // said why, and stamped with the master's time. (Stamps before the
        // master started would be refused as replays, so time passes for
        // real.)
        let wait = Duration::from_millis(20);
        let late = Request::sealed(&master_x, "web1", &body)
            .unwrap()
            .waiting(wait);
        let plain = pillar_req("web1").waiting(wait);
        let unsaid = Request::sealed(&master_x, "web1", &body).unwrap();
        std::thread::sleep(Duration::from_millis(60));
        let before = crypto::now_ms();
        let r = reply(m, &kp, &late).unwrap();
        assert_eq!(code(&r), Some(ErrorCode::Expired));
        assert!(r.created_ms >= before);
        // Unsealed requests too.
        assert_eq!(
            code(&reply(m, &kp, &plain).unwrap()),
            Some(ErrorCode::Expired)
        );
        // A request that says no wait never expires.
        let r = reply(m, &kp, &unsaid).unwrap();
        assert!(matches!(r.msg, ReplyBody::Pillar(_)), "{:?}", r.msg);
        // The same wait, sent now: answered.
        let fresh = Request::sealed(&master_x, "web1", &body)
            .unwrap()
            .waiting(Duration::from_secs(30));
        let r = reply(m, &kp, &fresh).unwrap();
        assert!(matches!(r.msg, ReplyBody::Pillar(_)), "{:?}", r.msg);
    }

    #[test]
    fn a_sealed_request_must_be_of_the_lane_it_waited_in() {
        let (s, kp) = with_web1();
        let m = &s.master;
        let mut req =
            Request::sealed(&m.key.public().x25519, "web1", &pillar_req("web1").msg).unwrap();
        let RequestBody::Sealed(sealed) = &mut req.msg else {
            panic!("not sealed")
        };
        assert_eq!(sealed.lane, Lane::Compile);
        // A compile passing itself off as quick work is refused, unhandled.
        sealed.lane = Lane::Quick;
        assert_eq!(
            code(&reply(m, &kp, &req).unwrap()),
            Some(ErrorCode::BadRequest)
        );
    }

    #[test]
    fn a_minion_the_cache_forgot_must_authenticate_again() {
        let (s, kp) = with_web1();
        let m = &s.master;
        m.cache.remove("web1");
        let r = reply(m, &kp, &pillar_req("web1")).unwrap();
        assert_eq!(code(&r), Some(ErrorCode::NotAccepted));
        assert_eq!(auth(m, &kp, "web1"), AuthStatus::Accepted);
        let r = reply(m, &kp, &pillar_req("web1")).unwrap();
        assert!(matches!(r.msg, ReplyBody::Pillar(_)), "{:?}", r.msg);
    }

    #[test]
    fn garbage_is_dropped_without_reply() {
        let s = setup(true);
        let m = &s.master;
        for junk in [&b""[..], b"\x00\x01\x02", &[0xc1; 100], &[0x91; 5000]] {
            assert!(m.handle_frame(junk, Instant::now()).is_none());
        }
        // A validly signed frame with a garbage payload.
        let kp = KeyPair::generate().unwrap();
        let f = rmp_serde::to_vec_named(&kp.sign(b"\x81\xa1v\x01".to_vec())).unwrap();
        assert!(m.handle_frame(&f, Instant::now()).is_none());
        // A bad signature.
        let mut good = sign_frame(&kp, &pillar_req("web1")).unwrap();
        let n = good.len();
        good[n - 3] ^= 1;
        assert!(m.handle_frame(&good, Instant::now()).is_none());
    }

    /// A `test.ping` job published to web1.
    fn ping_job(jid: &str) -> super::super::jobs::Job {
        super::super::jobs::Job {
            jid: jid.into(),
            fun: "test.ping".into(),
            arg: vec![],
            kwarg: Map::default(),
            tgt: Value::from("web1"),
            tgt_type: "glob".into(),
            user: "root".into(),
            start_ms: 0,
        }
    }

    /// A CLI that has seen every return waits for the next one: stored
    /// by a minion mid-wait, it is answered at once, not after the wait.
    #[test]
    fn a_waiting_cli_is_told_when_a_return_lands() {
        let s = setup(true);
        let m = &s.master;
        let minion = KeyPair::generate().unwrap();
        assert_eq!(auth(m, &minion, "web1"), AuthStatus::Accepted);
        let job = ping_job("20240101000000000001");
        m.jobs.add_job(&job, &["web1".into()]).unwrap();
        let cli = KeyPair::generate().unwrap();
        let get = Request::new(RequestBody::GetReturns(GetReturns {
            token: m.token.clone(),
            user: None,
            jid: job.jid.clone(),
            after: 0,
            wait_ms: 60_000,
        }))
        .unwrap();
        let ret = RequestBody::Return(JobReturn {
            jid: job.jid.clone(),
            id: "web1".into(),
            fun: "test.ping".into(),
            fun_args: vec![],
            ret: PackedValue::pack(&Value::Bool(true)).unwrap(),
            retcode: 0,
            success: true,
            out: None,
            schedule: None,
            called: false,
            user: None,
        });
        let mx = m.key.public().x25519;
        let (answer, waited) = std::thread::scope(|sc| {
            let waiter = sc.spawn(|| {
                let start = Instant::now();
                (reply(m, &cli, &get), start.elapsed())
            });
            std::thread::sleep(Duration::from_millis(300));
            let r = reply(m, &minion, &Request::sealed(&mx, "web1", &ret).unwrap()).unwrap();
            assert_eq!(r.msg, ReplyBody::ReturnAck);
            waiter.join().unwrap()
        });
        let ReplyBody::Returns(rr) = answer.unwrap().msg else {
            panic!("not a returns reply")
        };
        assert_eq!(rr.returns["web1"].ret.unpack(), Value::Bool(true));
        assert!(rr.waiting == 0 && !rr.more);
        // Told when it landed, well before the master's longest wait.
        assert!(
            waited < Duration::from_millis(MAX_RETURNS_WAIT_MS),
            "{waited:?}"
        );
        // Asked again from its cursor: nothing new, and with every minion
        // returned there is nothing to wait for.
        let again = Request::new(RequestBody::GetReturns(GetReturns {
            token: m.token.clone(),
            user: None,
            jid: job.jid.clone(),
            after: rr.next,
            wait_ms: 60_000,
        }))
        .unwrap();
        let start = Instant::now();
        let ReplyBody::Returns(rr) = reply(m, &cli, &again).unwrap().msg else {
            panic!("not a returns reply")
        };
        assert!(rr.returns.is_empty() && rr.waiting == 0);
        assert!(start.elapsed() < Duration::from_millis(MAX_RETURNS_WAIT_MS));
    }

    #[test]
    fn sealed_returns_and_state_compiles() {
        let (s, kp) = with_web1();
        let m = &s.master;
        let mx = m.key.public().x25519;
        let job = ping_job("20240101000000000000");
        m.jobs.add_job(&job, &["web1".into()]).unwrap();
        let ret = RequestBody::Return(JobReturn {
            jid: "20240101000000000000".into(),
            id: "web1".into(),
            fun: "test.ping".into(),
            fun_args: vec![],
            ret: PackedValue::pack(&Value::Bool(true)).unwrap(),
            retcode: 0,
            success: true,
            out: None,
            schedule: None,
            called: false,
            user: None,
        });
        let r = reply(m, &kp, &Request::sealed(&mx, "web1", &ret).unwrap()).unwrap();
        assert_eq!(r.msg, ReplyBody::ReturnAck);
        assert_eq!(
            m.jobs.returns("20240101000000000000").unwrap()["web1"].ret,
            Value::Bool(true)
        );
        // A sealed body naming another minion is refused.
        let other = KeyPair::generate().unwrap();
        assert_eq!(auth(m, &other, "web2"), AuthStatus::Accepted);
        let r = reply(m, &other, &Request::sealed(&mx, "web2", &ret).unwrap()).unwrap();
        assert_eq!(code(&r), Some(ErrorCode::Unauthorized));

        let mut pillar = Map::default();
        pillar.insert("secret".into(), "s3cr3t".into());
        let cs = CompileStates {
            id: "web1".into(),
            mods: None,
            saltenv: None,
            pillarenv: None,
            exclude: Value::Null,
            test: false,
            opts: brine_compile::opts::minion_defaults(),
            pillar,
            stage: brine_protocol::messages::CompileStage::Run,
            fresh_pillar: None,
        };
        // Unsealed: refused (it carries the pillar).
        let plain = Request::new(RequestBody::CompileStates(cs.clone())).unwrap();
        assert_eq!(
            code(&reply(m, &kp, &plain).unwrap()),
            Some(ErrorCode::BadRequest)
        );
        let req = Request::sealed(&mx, "web1", &RequestBody::CompileStates(cs)).unwrap();
        let r = reply(m, &kp, &req).unwrap();
        let ReplyBody::States(st) = r.msg else {
            panic!("{:?}", r.msg)
        };
        let c: CompiledStates =
            open_data(&kp, &st.compiled, &aad::states("web1", &req.nonce)).unwrap();
        let CompiledStates::Chunks { chunks, .. } = c else {
            panic!("{c:?}")
        };
        assert_eq!(chunks[0].get("name"), Some(&Value::from("s3cr3t")));
    }

    #[test]
    fn cli_needs_the_root_token() {
        let s = setup(true);
        let m = &s.master;
        let kp = KeyPair::generate().unwrap();
        let publish = |token: &str| {
            Request::new(RequestBody::Publish(CliPublish {
                token: token.into(),
                tgt: "*".into(),
                tgt_type: "glob".into(),
                fun: "test.ping".into(),
                arg: vec![],
                kwarg: Map::default(),
                timeout: 5,
                user: None,
            }))
            .unwrap()
        };
        let r = reply(m, &kp, &publish("nope")).unwrap();
        assert_eq!(code(&r), Some(ErrorCode::Unauthorized));
        let r = reply(m, &kp, &publish(&m.token.clone())).unwrap();
        let ReplyBody::Published(p) = r.msg else {
            panic!()
        };
        // No minion matches: nothing sent, no jid.
        assert!(p.minions.is_empty() && p.jid.is_empty());
        assert!(m.jobs.jobs().unwrap().is_empty());
        let web1 = KeyPair::generate().unwrap();
        assert_eq!(auth(m, &web1, "web1"), AuthStatus::Accepted);
        let r = reply(m, &kp, &publish(&m.token.clone())).unwrap();
        let ReplyBody::Published(p) = r.msg else {
            panic!()
        };
        assert_eq!(p.minions, vec!["web1"]);
        let get = Request::new(RequestBody::GetReturns(GetReturns {
            token: m.token.clone(),
            user: None,
            jid: p.jid.clone(),
            after: 0,
            wait_ms: 0,
        }))
        .unwrap();
        let ReplyBody::Returns(rr) = reply(m, &kp, &get).unwrap().msg else {
            panic!()
        };
        assert!(rr.returns.is_empty());
        assert_eq!(rr.waiting, 1, "web1 has not returned");
        let get = Request::new(RequestBody::GetReturns(GetReturns {
            token: m.token.clone(),
            user: None,
            jid: "nope".into(),
            after: 0,
            wait_ms: 0,
        }))
        .unwrap();
        assert_eq!(
            code(&reply(m, &kp, &get).unwrap()),
            Some(ErrorCode::NotFound)
        );
    }
}
