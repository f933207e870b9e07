//! The identities this process serves: one minion, or many in one process
//! (`brine-minion --swarm N`, for load tests such as 500 minions answering
//! `brine '*' test.ping`: ids `<id>-0000`, `<id>-0001`..., each with its
//! own keys under `pki_dir/swarm/<id>` and its own returns under
//! `cachedir/swarm/<id>`). They share the grains collected once, one
//! ret-port connection and one subscription (a publication is verified
//! once, then matched per id).

use super::client::{AuthSignal, MasterClient};
use super::config::{DaemonConfig, DaemonError};
use super::identity::{Identity, Standing};
use super::link::Link;
use super::queue::Queues;
use super::{keys, remote};
use brine_core::Value;
use brine_runtime::context::{CompileSource, Minion};
use std::path::Path;
use std::sync::{Arc, RwLock};
use tokio::sync::watch;

/// Build one identity: its directories and keys, and its minion with the
/// remote pillar source.
pub fn make_identity(
    link: &Link,
    base: &Minion,
    id: &str,
    pki_dir: &Path,
    cachedir: &Path,
    queues: &Queues,
    queue: &str,
) -> Result<Arc<Identity>, DaemonError> {
    let key = keys::load_or_create(pki_dir)?;
    // No master is trusted before this run's auth has checked its key
    // against the pin.
    let client = MasterClient {
        link: link.clone(),
        id: id.to_string(),
        key,
        master: Arc::new(RwLock::new(None)),
        admission: Arc::default(),
        handle: tokio::runtime::Handle::current(),
        auth: Arc::new(AuthSignal::new()),
    };
    let mut minion = base.clone();
    if minion.id != id {
        minion.id = id.to_string();
        Arc::make_mut(&mut minion.opts).insert("id".into(), Value::Str(id.to_string()));
        Arc::make_mut(&mut minion.grains).insert("id".into(), Value::Str(id.to_string()));
    }
    minion.source = CompileSource::Master(Arc::new(remote::Remote::new(client.clone(), cachedir)));
    minion.schedule = Some(super::scheduler::new_handle(&minion.opts));
    let (standing, _) = watch::channel(Standing::Starting);
    Ok(Arc::new(Identity {
        returns: queues.get(cachedir, queue),
        client,
        pki_dir: pki_dir.to_path_buf(),
        cachedir: cachedir.to_path_buf(),
        minion: RwLock::new(Arc::new(minion)),
        standing,
        running: Default::default(),
    }))
}

/// The id of swarm member `n`.
pub fn member_id(base: &str, n: usize) -> String {
    format!("{base}-{n:04}")
}

/// Build `count` identities from the base minion.
pub fn identities(
    link: &Link,
    base: &Minion,
    config: &DaemonConfig,
    count: usize,
    queues: &Queues,
    queue: &str,
) -> Result<Vec<Arc<Identity>>, DaemonError> {
    (0..count)
        .map(|n| {
            let id = member_id(&config.id, n);
            make_identity(
                link,
                base,
                &id,
                &config.pki_dir.join("swarm").join(&id),
                &config.cachedir.join("swarm").join(&id),
                queues,
                queue,
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn member_ids_sort_in_order() {
        assert_eq!(member_id("bench", 0), "bench-0000");
        assert_eq!(member_id("bench", 499), "bench-0499");
        assert!(member_id("b", 9) < member_id("b", 10));
    }
}
