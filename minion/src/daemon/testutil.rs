//! A fake master for the daemon's in-process tests: the real ROUTER socket,
//! frames and signatures, with a test-supplied answer per request.

use super::link::Link;
use super::MasterClient;
use brine_protocol::crypto::{KeyPair, PublicKeys};
use brine_protocol::messages::{read_frame, sign_frame, Reply, Request, RequestBody};
use brine_protocol::transport::{self, Limits};
use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, RwLock};

/// Answers one request: (master key, request, requester's X25519 key).
/// `None`: no answer (a silent master).
pub type Handler = Arc<dyn Fn(&KeyPair, &Request, &[u8; 32]) -> Option<Reply> + Send + Sync>;

pub struct FakeMaster {
    pub addr: SocketAddr,
    pub key: KeyPair,
    registry: Arc<Mutex<HashMap<String, PublicKeys>>>,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for FakeMaster {
    fn drop(&mut self) {
        self.task.abort();
    }
}

fn request_id(body: &RequestBody) -> Option<&str> {
    match body {
        RequestBody::Auth(a) => Some(&a.id),
        RequestBody::Pillar(p) => Some(&p.id),
        RequestBody::File(f) => Some(&f.id),
        RequestBody::Return(r) => Some(&r.id),
        _ => None,
    }
}

impl FakeMaster {
    pub async fn start(handler: Handler) -> FakeMaster {
        let key = KeyPair::generate().unwrap();
        Self::start_at(
            SocketAddr::from(([127, 0, 0, 1], 0)),
            key,
            Default::default(),
            handler,
        )
        .await
    }

    /// Start (again) at `addr` with `key`: a master restart keeps both.
    pub async fn start_at(
        addr: SocketAddr,
        key: KeyPair,
        registry: Arc<Mutex<HashMap<String, PublicKeys>>>,
        handler: Handler,
    ) -> FakeMaster {
        let limits = Limits::default();
        let router = transport::bind_router(addr, &limits).await.unwrap();
        let addr = router.addr();
        let (k, reg) = (key.clone(), registry.clone());
        let task = tokio::spawn(async move {
            // Own the whole socket, guard included (a closure would capture
            // only the field it uses and drop the guard).
            let mut router = router;
            let no_request_key = brine_protocol::crypto::SessionKey::generate().unwrap();
            loop {
                let Ok((peer, frame)) = transport::recv_request(&mut router.socket, &limits).await
                else {
                    continue;
                };
                let Ok(mut v) = read_frame::<Request>(&frame, None) else {
                    continue;
                };
                // Open sealed bodies as the master does; the handler sees
                // the inner body with the outer nonce.
                // It hands out no request keys: bodies come sealed to its
                // key.
                if let RequestBody::Sealed(s) = &v.msg.msg {
                    let Ok(inner) = s.open(&k, &no_request_key, &v.msg.nonce) else {
                        continue;
                    };
                    v.msg.msg = inner;
                }
                let x = request_id(&v.msg.msg)
                    .and_then(|id| reg.lock().unwrap().get(id).copied())
                    .map(|p| *p.x25519)
                    .unwrap_or(*KeyPair::generate().unwrap().public().x25519);
                if let Some(reply) = handler(&k, &v.msg, &x) {
                    let out = sign_frame(&k, &reply).unwrap();
                    let _ = transport::send_reply(&mut router.socket, &peer, out, &limits).await;
                }
            }
        });
        FakeMaster {
            addr,
            key,
            registry,
            task,
        }
    }

    /// Stop, keeping what a restart needs.
    #[allow(clippy::type_complexity)]
    pub fn stop(self) -> (SocketAddr, KeyPair, Arc<Mutex<HashMap<String, PublicKeys>>>) {
        (self.addr, self.key.clone(), self.registry.clone())
    }

    /// Register `key` as the accepted key of `id`.
    pub fn accept(&self, id: &str, key: &KeyPair) {
        self.registry
            .lock()
            .unwrap()
            .insert(id.to_string(), key.public());
    }

    /// A client for a new minion `id`, accepted, trusting this master.
    pub fn client(&self, link: &Link, id: &str) -> MasterClient {
        let key = KeyPair::generate().unwrap();
        self.accept(id, &key);
        MasterClient {
            link: link.clone(),
            id: id.to_string(),
            key,
            master: Arc::new(RwLock::new(Some(self.key.public()))),
            admission: Default::default(),
            handle: tokio::runtime::Handle::current(),
            auth: Default::default(),
        }
    }
}
