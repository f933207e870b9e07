//! The pillar from the master (Salt's `RemotePillar`): fetched once
//! authenticated and kept in memory; fetched fresh for `pillar.items` and
//! the like; refetched and swapped by `saltutil.refresh_pillar`.

use super::{Identity, MasterClient, RequestError, Shared};
use brine_core::{Map, Value};
use brine_protocol::crypto::Sealed;
use brine_protocol::messages::{aad, open_data, ErrorCode, PillarRequest, ReplyBody, RequestBody};
use brine_runtime::context::FreshPillar;
use std::time::Duration;

/// A pillar compile on the master may take a while on a big tree.
const PILLAR_TIMEOUT: Duration = Duration::from_secs(120);

fn request_body(id: &str, req: &FreshPillar) -> RequestBody {
    RequestBody::Pillar(PillarRequest {
        id: id.to_string(),
        pillarenv: req.pillarenv.clone(),
        saltenv: req.saltenv.clone(),
        pillar_override: req.pillar_override.clone().unwrap_or(Value::Null),
    })
}

/// Open the master's answer to a pillar request.
fn open_reply(
    client: &MasterClient,
    nonce: &[u8; 16],
    body: ReplyBody,
) -> Result<Map, RequestError> {
    let ReplyBody::Pillar(p) = body else {
        return Err(RequestError::Unexpected { what: "pillar" });
    };
    open_pillar(client, nonce, &p.pillar)
}

/// Open a pillar the master sealed to us in answer to the request
/// `nonce` (a pillar request, or a state compile that compiled it).
pub fn open_pillar(
    client: &MasterClient,
    nonce: &[u8; 16],
    sealed: &Sealed,
) -> Result<Map, RequestError> {
    let v: Value = open_data(&client.key, sealed, &aad::pillar(&client.id, nonce))
        .map_err(RequestError::Open)?;
    match v {
        Value::Map(m) => Ok(m),
        // Salt's minion treats a non-dict pillar as empty.
        Value::Null => Ok(Map::default()),
        other => {
            tracing::error!(
                "the master sent a pillar that is not a mapping ({}); using an empty one",
                other.type_name()
            );
            Ok(Map::default())
        }
    }
}

/// Ask the master to compile our pillar.
pub async fn fetch(client: &MasterClient, req: &FreshPillar) -> Result<Map, RequestError> {
    let (sent, body) = client
        .request_sealed(request_body(&client.id, req), PILLAR_TIMEOUT)
        .await?;
    open_reply(client, &sent.nonce, body)
}

/// [`fetch`] from a function's thread.
pub fn fetch_blocking(client: &MasterClient, req: &FreshPillar) -> Result<Map, RequestError> {
    client.handle.block_on(fetch(client, req))
}

/// The pillar a fresh start-up or refresh asks for: the configured
/// `pillarenv`/`saltenv`, no override.
fn configured(shared: &Shared) -> FreshPillar {
    FreshPillar::new(shared.config.envs.clone(), None)
}

/// Fetch the start-up pillar, retrying until the master compiles it (a
/// minion without its pillar would answer wrongly). False when the master
/// asks us to authenticate first.
pub async fn initial(shared: &Shared, ident: &Identity) -> bool {
    let mut delay = Duration::from_secs(1);
    loop {
        let client = &ident.client;
        let answer = client
            .request_sealed_once(
                request_body(&client.id, &configured(shared)),
                PILLAR_TIMEOUT,
            )
            .await
            .and_then(|(sent, body)| open_reply(client, &sent.nonce, body));
        match answer {
            Ok(p) => {
                ident.set_pillar(p);
                return true;
            }
            Err(RequestError::Refused {
                code: ErrorCode::NotAccepted,
                ..
            }) => return false,
            Err(e) => {
                tracing::warn!(
                    "{}: cannot fetch the pillar: {e}; retrying in {delay:?}",
                    ident.id()
                );
                tokio::time::sleep(delay).await;
                delay = (delay * 2).min(shared.config.acceptance_wait_time);
            }
        }
    }
}

/// `saltutil.refresh_pillar`: compile anew and swap the in-memory pillar.
/// On failure the old pillar stays (as in Salt).
pub async fn refresh(shared: &Shared, ident: &Identity) -> bool {
    match fetch(&ident.client, &configured(shared)).await {
        Ok(p) => {
            ident.set_pillar(p);
            tracing::debug!("{}: pillar refreshed", ident.id());
            true
        }
        Err(e) => {
            tracing::error!("{}: pillar refresh failed: {e}", ident.id());
            false
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::daemon::link::Link;
    use crate::daemon::testutil::{FakeMaster, Handler};
    use brine_protocol::messages::{seal_data, PillarReply, Reply};
    use std::sync::Arc;

    /// A fake master answering pillar requests with `{"from": <pillarenv>}`
    /// sealed for the requester, over the real sockets and messages.
    fn pillar_handler() -> Handler {
        Arc::new(|master, req, minion_x| {
            let RequestBody::Pillar(p) = &req.msg else {
                return None;
            };
            let mut m = Map::default();
            m.insert(
                "from".into(),
                p.pillarenv.clone().map(Value::Str).unwrap_or(Value::Null),
            );
            if let Value::Map(o) = &p.pillar_override {
                m.extend(o.clone());
            }
            let sealed =
                seal_data(minion_x, &Value::Map(m), &aad::pillar(&p.id, &req.nonce)).ok()?;
            let _ = master;
            Some(Reply::to(
                req,
                ReplyBody::Pillar(PillarReply { pillar: sealed }),
            ))
        })
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn fetches_and_opens_the_sealed_pillar() {
        let fake = FakeMaster::start(pillar_handler()).await;
        let link = Link::start(fake.addr, Default::default());
        let client = fake.client(&link, "web1");
        let mut ov = Map::default();
        ov.insert("extra".into(), Value::Int(1));
        let p = fetch(
            &client,
            &FreshPillar {
                pillarenv: Some("dev".into()),
                saltenv: None,
                pillar_override: Some(Value::Map(ov)),
            },
        )
        .await
        .unwrap();
        assert_eq!(p.get("from"), Some(&Value::Str("dev".into())));
        assert_eq!(p.get("extra"), Some(&Value::Int(1)));

        // Another identity cannot open a pillar sealed to web1: a reply
        // naming web1's nonce but sealed for someone else fails to open.
        let mallory = fake.client(&link, "web2");
        let mut wrong = client.clone();
        wrong.key = mallory.key.clone();
        let err = fetch(&wrong, &FreshPillar::default()).await.unwrap_err();
        assert!(matches!(err, RequestError::Open(_)), "{err}");
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_reply_signed_by_another_key_is_refused() {
        let fake = FakeMaster::start(pillar_handler()).await;
        let link = Link::start(fake.addr, Default::default());
        let client = fake.client(&link, "web1");
        // Trust another signing key (same sealing key, so the fake can
        // still read the request): the fake's signature no longer counts.
        let other = brine_protocol::crypto::KeyPair::generate()
            .unwrap()
            .public();
        *client.master.write().unwrap() = Some(brine_protocol::crypto::PublicKeys::new(
            *other.ed25519,
            *fake.key.public().x25519,
        ));
        let err = fetch(&client, &FreshPillar::default()).await.unwrap_err();
        assert!(matches!(err, RequestError::WrongSigner), "{err}");
    }
}
