//! Salt's reactor: `reactor:` in the master config maps tag globs to SLS
//! files; an event whose tag matches renders them (Jinja + YAML, with
//! `tag` and `data`) into reactions ([`reactions`]: `local.*` jobs,
//! `runner.*` runs and `wheel.*` calls, the last two announced on the bus
//! as `salt/run/...` and `salt/wheel/...` by user `Reactor`, and
//! `caller.*` functions run on the master's host ([`caller`])) that a
//! bounded pool carries out ([`workers`]).
//!
//! Like Salt's reactor process, it is a client of the master: it listens
//! on the event socket and publishes through the ret port with the root
//! token, so it passes the checks every client passes. `brine-master`
//! starts it beside the daemon when the map is not empty.

pub mod caller;
pub mod map;
pub mod reactions;
pub mod workers;

use crate::daemon::events::client::Listener;
use crate::daemon::MasterConfig;
use brine_compile::minion_data::Functions;
use map::ReactorMap;
use std::sync::Arc;
use std::time::Duration;

/// How long to wait between attempts to reach the event socket: briefly
/// at first (the daemon opens it at start), then at most a second.
const FIRST_RETRY: Duration = Duration::from_millis(50);
const MAX_RETRY: Duration = Duration::from_secs(1);

/// Start the reactor on a thread of its own; `None` without a map.
pub fn start(config: MasterConfig) -> Option<std::thread::JoinHandle<()>> {
    let map = ReactorMap::of(&config.opts);
    if map.is_empty() {
        return None;
    }
    let spawned = std::thread::Builder::new()
        .name("reactor".into())
        .spawn(move || listen(&config, &map));
    match spawned {
        Ok(h) => Some(h),
        Err(e) => {
            tracing::error!("the reactor did not start: {e}");
            None
        }
    }
}

/// Listen for events and react, for as long as the process lives; the
/// socket is opened again when the master restarts it.
fn listen(config: &MasterConfig, map: &ReactorMap) {
    let pool = workers::Pool::start(config);
    let mut retry = FIRST_RETRY;
    // What `salt[...]` calls in reactor SLS files: the master templates'
    // functions (`mine.get` from the mine store), once the daemon serves.
    let mut functions: Option<Functions> = None;
    loop {
        let mut listener = match Listener::open(&config.sock_dir, config.events.max_event_size) {
            Ok(l) => l,
            Err(e) => {
                tracing::debug!("reactor: {e}");
                std::thread::sleep(retry);
                retry = (retry * 2).min(MAX_RETRY);
                continue;
            }
        };
        retry = FIRST_RETRY;
        let functions = functions.get_or_insert_with(|| template_functions(config));
        tracing::info!("reactor listening ({} tag patterns)", map.len());
        loop {
            match listener.next(None) {
                Ok(Some(ev)) => {
                    for sls in map.matching(&ev.tag) {
                        match reactions::render(config, functions, sls, &ev.tag, &ev.data) {
                            Ok(list) => {
                                for r in list {
                                    pool.submit(r);
                                }
                            }
                            Err(e) => tracing::error!("reactor: {e}"),
                        }
                    }
                }
                Ok(None) => break,
                Err(e) => {
                    tracing::warn!("reactor: {e}");
                    break;
                }
            }
        }
    }
}

/// The functions of the master's templates; without the mine store
/// (logged), the runtime's own.
fn template_functions(config: &MasterConfig) -> Functions {
    match crate::runners::mine::open_store(config) {
        Ok(mine) => crate::daemon::functions::for_templates(Arc::new(mine)),
        Err(e) => {
            tracing::warn!(
                "reactor: the mine store did not open ({e}): salt['mine.get'] in reactor SLS \
                 files reads the master's own datastore"
            );
            brine_runtime::modules::functions()
        }
    }
}
