//! The master as the minion's [`RemoteMaster`]: pillar compiles, state
//! compiles, Hiera lookups and `salt://` files, asked for from the thread
//! running a function. Requests carrying pillar data travel sealed to the
//! master; answers come back sealed to this minion.

use super::fileclient::RemoteFileClient;
use super::{pillar, MasterClient, RequestError};
use brine_core::Map;
use brine_core::Value;
use brine_protocol::messages::{
    aad, open_data, CompileStates, CompiledStates, HieraLookup, HieraResult, MineOp, MineRequest,
    MinionEvent, ReplyBody, RequestBody, StateReply,
};
use brine_runtime::context::{Asked, FreshPillar, RemoteError, RemoteMaster};
use brine_states::fileclient::FileClient;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

/// A highstate render on a big tree may take a while.
const COMPILE_TIMEOUT: Duration = Duration::from_secs(300);
const LOOKUP_TIMEOUT: Duration = Duration::from_secs(60);
/// Mine data and events are small; the master answers at once.
const SHORT_TIMEOUT: Duration = Duration::from_secs(30);

pub struct Remote {
    client: MasterClient,
    files: Arc<RemoteFileClient>,
}

impl Remote {
    pub fn new(client: MasterClient, cachedir: &Path) -> Remote {
        Remote {
            files: Arc::new(RemoteFileClient::new(client.clone(), cachedir)),
            client,
        }
    }

    /// A sealed request whose answer is sealed back to us with `aad_fn`.
    fn sealed_round_trip<T: serde::de::DeserializeOwned>(
        &self,
        body: RequestBody,
        timeout: Duration,
        what: &'static str,
        pick: impl FnOnce(ReplyBody) -> Option<brine_protocol::crypto::Sealed>,
        aad_fn: fn(&str, &[u8; 16]) -> Vec<u8>,
    ) -> Result<T, RequestError> {
        let (req, reply) = self
            .client
            .handle
            .block_on(self.client.request_sealed(body, timeout))?;
        let sealed = pick(reply).ok_or(RequestError::Unexpected { what })?;
        open_data(
            &self.client.key,
            &sealed,
            &aad_fn(&self.client.id, &req.nonce),
        )
        .map_err(RequestError::Open)
    }
}

fn no_answer(asked: Asked, cause: RequestError) -> RemoteError {
    RemoteError::NoAnswer {
        asked,
        cause: Box::new(cause),
    }
}

impl RemoteMaster for Remote {
    fn compile_pillar(&self, req: &FreshPillar) -> Result<Map, RemoteError> {
        pillar::fetch_blocking(&self.client, req).map_err(|e| no_answer(Asked::Pillar, e))
    }

    fn compile_states(&self, req: CompileStates) -> Result<CompiledStates, RemoteError> {
        self.sealed_round_trip(
            RequestBody::CompileStates(req),
            COMPILE_TIMEOUT,
            "state compile",
            |r| match r {
                ReplyBody::States(s) => Some(s.compiled),
                _ => None,
            },
            aad::states,
        )
        .map_err(|e| no_answer(Asked::States, e))
    }

    fn compile_pillar_and_states(
        &self,
        req: CompileStates,
    ) -> Result<(Map, CompiledStates), RemoteError> {
        let answer = (|| {
            let (sent, reply) = self.client.handle.block_on(
                self.client
                    .request_sealed(RequestBody::CompileStates(req), COMPILE_TIMEOUT),
            )?;
            let ReplyBody::States(StateReply {
                compiled,
                pillar: Some(sealed_pillar),
            }) = reply
            else {
                return Err(RequestError::Unexpected {
                    what: "pillar and state compile",
                });
            };
            let pillar = pillar::open_pillar(&self.client, &sent.nonce, &sealed_pillar)?;
            let compiled = open_data(
                &self.client.key,
                &compiled,
                &aad::states(&self.client.id, &sent.nonce),
            )
            .map_err(RequestError::Open)?;
            Ok((pillar, compiled))
        })();
        answer.map_err(|e| no_answer(Asked::States, e))
    }

    fn hiera_lookup(&self, req: HieraLookup) -> Result<HieraResult, RemoteError> {
        self.sealed_round_trip(
            RequestBody::HieraLookup(req),
            LOOKUP_TIMEOUT,
            "hiera lookup",
            |r| match r {
                ReplyBody::Hiera(h) => Some(h.result),
                _ => None,
            },
            aad::hiera,
        )
        .map_err(|e| no_answer(Asked::Lookup, e))
    }

    fn file_client(&self) -> Arc<dyn FileClient> {
        self.files.clone()
    }

    fn mine(&self, op: MineOp) -> Result<Value, RemoteError> {
        let body = RequestBody::Mine(MineRequest {
            id: self.client.id.clone(),
            op,
        });
        let fail = |e| no_answer(Asked::Mine, e);
        let (req, reply) = self
            .client
            .handle
            .block_on(self.client.request_sealed(body, SHORT_TIMEOUT))
            .map_err(fail)?;
        match reply {
            ReplyBody::Ack => Ok(Value::Null),
            ReplyBody::Mine(m) => open_data(
                &self.client.key,
                &m.result,
                &aad::mine(&self.client.id, &req.nonce),
            )
            .map_err(|e| fail(RequestError::Open(e))),
            _ => Err(fail(RequestError::Unexpected { what: "mine" })),
        }
    }

    fn fire_event(&self, tag: &str, data: Value) -> Result<(), RemoteError> {
        let ts = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs() as i64);
        let body = RequestBody::Event(MinionEvent {
            id: self.client.id.clone(),
            tag: tag.to_string(),
            data,
            ts,
        });
        let fail = |e| no_answer(Asked::Event, e);
        let (_, reply) = self
            .client
            .handle
            .block_on(self.client.request_sealed(body, SHORT_TIMEOUT))
            .map_err(fail)?;
        match reply {
            ReplyBody::Ack => Ok(()),
            _ => Err(fail(RequestError::Unexpected { what: "event" })),
        }
    }
}
