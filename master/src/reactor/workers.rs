//! The reactor's workers: `reactor_worker_threads` threads taking
//! reactions from one queue of at most `reactor_worker_hwm`; a reaction
//! that finds the queue full is dropped with a log line, as Salt's
//! `TaskPool queue is full!`. Each worker carries reactions out as a local
//! client of the master (jobs through the ret port, runners in-process).

use super::reactions::{Client, Reaction};
use crate::daemon::client::Client as MasterClient;
use crate::daemon::events::announce::Announce;
use crate::daemon::events::tags::MasterSide;
use crate::daemon::MasterConfig;
use brine_core::args::CallArgs;
use brine_core::Value;
use std::sync::mpsc::{sync_channel, Receiver, SyncSender, TrySendError};
use std::sync::{Arc, Mutex};

/// Who runs runners and wheel functions for the reactor, as Salt's events
/// name it.
const REACTOR: &str = "Reactor";

use crate::daemon::config::{MAX_REACTOR_QUEUE as MAX_QUEUE, MAX_REACTOR_THREADS as MAX_THREADS};

pub struct Pool {
    queue: SyncSender<Reaction>,
    hwm: usize,
}

impl Pool {
    pub fn start(config: &MasterConfig) -> Pool {
        let get = |key: &str, default: i64| {
            config
                .opts
                .get(key)
                .and_then(Value::as_i64)
                .unwrap_or(default)
        };
        let threads = usize::try_from(get("reactor_worker_threads", 10))
            .unwrap_or(1)
            .clamp(1, MAX_THREADS);
        let hwm = usize::try_from(get("reactor_worker_hwm", 10_000))
            .unwrap_or(1)
            .clamp(1, MAX_QUEUE);
        let (queue, rx) = sync_channel(hwm);
        let rx = Arc::new(Mutex::new(rx));
        for n in 0..threads {
            let rx = rx.clone();
            let config = config.clone();
            let spawned = std::thread::Builder::new()
                .name(format!("reactor-{n}"))
                .spawn(move || work(&config, &rx));
            if let Err(e) = spawned {
                tracing::error!("reactor worker {n} did not start: {e}");
            }
        }
        Pool { queue, hwm }
    }

    /// Queue `r`, or drop it (logged) when the queue is full.
    pub fn submit(&self, r: Reaction) {
        match self.queue.try_send(r) {
            Ok(()) => {}
            Err(TrySendError::Full(r)) => tracing::warn!(
                "reactor queue is full (reactor_worker_hwm: {}): reaction {} for {} dropped",
                self.hwm,
                r.id,
                r.tag
            ),
            Err(TrySendError::Disconnected(r)) => {
                tracing::error!("reactor workers are gone: reaction {} dropped", r.id)
            }
        }
    }
}

fn work(config: &MasterConfig, rx: &Mutex<Receiver<Reaction>>) {
    let rt = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            tracing::error!("reactor worker: {e}");
            return;
        }
    };
    let mut client: Option<MasterClient> = None;
    loop {
        let next = match rx.lock() {
            Ok(q) => q.recv(),
            Err(_) => return,
        };
        let Ok(r) = next else { return };
        rt.block_on(react(config, &mut client, r));
    }
}

async fn react(config: &MasterConfig, client: &mut Option<MasterClient>, r: Reaction) {
    match r.client {
        Client::Local => {
            if client.is_none() {
                match MasterClient::for_config(config) {
                    Ok(c) => *client = Some(c),
                    Err(e) => {
                        tracing::error!("reaction {} for {}: {e}", r.id, r.tag);
                        return;
                    }
                }
            }
            let Some(c) = client.as_mut() else { return };
            let timeout = config
                .opts
                .get("timeout")
                .and_then(Value::as_i64)
                .unwrap_or(5);
            match c
                .publish(
                    r.tgt.clone(),
                    &r.tgt_type,
                    &r.fun,
                    r.arg.clone(),
                    r.kwarg.clone(),
                    u64::try_from(timeout).unwrap_or(5),
                )
                .await
            {
                Ok(p) => tracing::info!(
                    "reaction {} for {}: job {} {} to {} minion(s)",
                    r.id,
                    r.tag,
                    p.jid,
                    r.fun,
                    p.minions.len()
                ),
                Err(e) => {
                    tracing::error!("reaction {} for {}: {e}", r.id, r.tag);
                    // A new connection next time.
                    *client = None;
                }
            }
        }
        Client::Runner => {
            let mut call = CallArgs {
                args: r.arg.clone(),
                kwargs: r.kwarg.clone(),
            };
            let mut announce =
                Announce::new(&config.sock_dir, MasterSide::Runner, &r.fun, REACTOR, &call);
            // As Salt's reactor runs it: a job of the runner client's.
            crate::runners::job::hand_jid(&r.fun, &mut call, &mut announce);
            match crate::runners::job::run(config, &announce, &r.fun, call).await {
                Ok(_) => tracing::info!("reaction {} for {}: runner {} ran", r.id, r.tag, r.fun),
                Err(e) => {
                    tracing::error!("reaction {} for {}: runner {}: {e}", r.id, r.tag, r.fun)
                }
            }
        }
        Client::Wheel => {
            let call = CallArgs {
                args: r.arg.clone(),
                kwargs: r.kwarg.clone(),
            };
            let announce =
                Announce::new(&config.sock_dir, MasterSide::Wheel, &r.fun, REACTOR, &call);
            announce.fire_new();
            // The key store may wait on PostgreSQL: off this runtime.
            let (cfg, fun) = (config.clone(), r.fun.clone());
            let done =
                tokio::task::spawn_blocking(move || crate::wheel::run(&cfg, &fun, call)).await;
            match done {
                Ok(Ok(v)) => {
                    announce.fire_ret(v, true);
                    tracing::info!("reaction {} for {}: wheel {} ran", r.id, r.tag, r.fun)
                }
                Ok(Err(e)) => {
                    announce.fire_ret(Value::Str(e.to_string()), false);
                    tracing::error!("reaction {} for {}: wheel {}: {e}", r.id, r.tag, r.fun)
                }
                Err(e) => tracing::error!("reaction {} for {}: wheel {}: {e}", r.id, r.tag, r.fun),
            }
        }
        Client::Caller => {
            let call = CallArgs {
                args: r.arg.clone(),
                kwargs: r.kwarg.clone(),
            };
            let (cfg, fun) = (config.clone(), r.fun.clone());
            let done =
                tokio::task::spawn_blocking(move || super::caller::run(&cfg, &fun, call)).await;
            match done {
                Ok(Ok(_)) => {
                    tracing::info!("reaction {} for {}: caller {} ran", r.id, r.tag, r.fun)
                }
                Ok(Err(e)) => {
                    tracing::error!("reaction {} for {}: caller {}: {e}", r.id, r.tag, r.fun)
                }
                Err(e) => tracing::error!("reaction {} for {}: caller {}: {e}", r.id, r.tag, r.fun),
            }
        }
    }
}
