//! Many minion identities in one process (`brine-minion --swarm N`), for
//! load tests such as 500 minions answering `brine '*' test.ping`: ids
//! `<id>-0000`, `<id>-0001`..., each with its own keys under
//! `pki_dir/swarm/<id>` and its own returns under `cachedir/swarm/<id>`.
//! They share the grains collected once, one ret-port connection and one
//! subscription (a publication is verified once, then matched per id).

use super::link::Link;
use super::{make_identity, DaemonConfig, DaemonError, Identity};
use brine_runtime::context::Minion;
use std::sync::Arc;

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
    queues: &super::returns::Queues,
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
