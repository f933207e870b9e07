//! Salt's `manage` runner: which minions answer a ping (`status`, `up`,
//! `down`), and which are connected now by Salt's presence detection
//! (`list_state`, `present`, `joined`, and their "not" sides): the remote
//! addresses of established TCP connections to the publish port, matched
//! against the `ipv4`/`ipv6` grains in the minion cache. No command is sent
//! for those.

use super::runner::{seconds, strings, Answer, Runner, RunnerError};
use crate::daemon::client::Client;
use crate::daemon::minion_cache::MinionCache;
use crate::daemon::presence;
use crate::daemon::MasterConfig;
use crate::keys::{KeyState, KeyStore};
use brine_core::{sig, Map, Value};
use brine_runtime::modules::Params;
use std::collections::BTreeSet;

/// The presence runners' doc.
const PRESENCE: &str = "The minions connected to the master now (Salt's presence detection: \
established connections to the publish port, matched against the minions' ipv4/ipv6 \
grains); SUBSET limits the answer to those ids, SHOW_IP gives id → address.";
const NOT_PRESENT: &str = "The accepted minions that are not connected to the master now \
(see manage.present); SUBSET limits the answer to those ids.";

pub(super) const FUNCTIONS: &[Runner] = &[
    Runner {
        name: "down",
        sig: sig!(
            removekeys = false,
            tgt = "*",
            tgt_type = "glob",
            timeout = null,
            gather_job_timeout = null
        ),
        doc: "The minions of TGT that did not answer a ping; REMOVEKEYS=True deletes \
their keys.",
        run: |config, p| Box::pin(pinged(config, p, Pinged::Down)),
    },
    Runner {
        name: "joined",
        sig: sig!(subset = null, show_ip = false),
        doc: PRESENCE,
        run: |config, p| Box::pin(presence(config, p, false)),
    },
    Runner {
        name: "list_not_state",
        sig: sig!(subset = null, show_ip = false),
        doc: NOT_PRESENT,
        run: |config, p| Box::pin(presence(config, p, true)),
    },
    Runner {
        name: "list_state",
        sig: sig!(subset = null, show_ip = false),
        doc: PRESENCE,
        run: |config, p| Box::pin(presence(config, p, false)),
    },
    Runner {
        name: "not_joined",
        sig: sig!(subset = null, show_ip = false),
        doc: NOT_PRESENT,
        run: |config, p| Box::pin(presence(config, p, true)),
    },
    Runner {
        name: "not_present",
        sig: sig!(subset = null, show_ip = false),
        doc: NOT_PRESENT,
        run: |config, p| Box::pin(presence(config, p, true)),
    },
    Runner {
        name: "present",
        sig: sig!(subset = null, show_ip = false),
        doc: PRESENCE,
        run: |config, p| Box::pin(presence(config, p, false)),
    },
    Runner {
        name: "status",
        sig: sig!(
            output = true,
            tgt = "*",
            tgt_type = "glob",
            timeout = null,
            gather_job_timeout = null
        ),
        doc: "Ping the minions of TGT: {up: [...], down: [...]}.",
        run: |config, p| Box::pin(pinged(config, p, Pinged::Status)),
    },
    Runner {
        name: "versions",
        sig: sig!(),
        doc: "The minions' versions (test.version) against the master's: by 'Up to date', \
'Minion requires update', 'Minion newer than master', 'Minion offline', and the 'Master''s.",
        run: |config, p| Box::pin(versions(config, p)),
    },
    Runner {
        name: "up",
        sig: sig!(
            tgt = "*",
            tgt_type = "glob",
            timeout = null,
            gather_job_timeout = null
        ),
        doc: "The minions of TGT that answered a ping.",
        run: |config, p| Box::pin(pinged(config, p, Pinged::Up)),
    },
];

/// Which side of a ping a runner answers with.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Pinged {
    Status,
    Up,
    Down,
}

async fn pinged(config: &MasterConfig, mut p: Params, side: Pinged) -> Result<Answer, RunnerError> {
    let removekeys = side == Pinged::Down && p.take("removekeys").is_some_and(|v| v.is_truthy());
    let ping = Ping {
        tgt: p.take("tgt").unwrap_or_else(|| Value::from("*")),
        tgt_type: p
            .take("tgt_type")
            .map(|v| v.to_python_str())
            .unwrap_or_else(|| "glob".into()),
        timeout: p.take("timeout").and_then(|v| seconds(&v)),
        gather_job_timeout: p.take("gather_job_timeout").and_then(|v| seconds(&v)),
    };
    p.finish()?;
    let mut client = Client::for_config(config)?;
    let (up, down) = ping_with(&mut client, config, &ping).await?;
    Ok(Answer::data(match side {
        Pinged::Up => strings(up),
        Pinged::Down => {
            if removekeys {
                remove_keys(config, &down)?;
            }
            strings(down)
        }
        Pinged::Status => {
            let mut m = Map::default();
            m.insert("up".into(), strings(up));
            m.insert("down".into(), strings(down));
            Value::Map(m)
        }
    }))
}

async fn presence(config: &MasterConfig, mut p: Params, not: bool) -> Result<Answer, RunnerError> {
    let subset = p.take("subset").map(subset);
    let show_ip = p.take("show_ip").is_some_and(|v| v.is_truthy());
    p.finish()?;
    Ok(Answer::data(if not {
        list_not_state(config, subset.as_deref())?
    } else {
        list_state(config, subset.as_deref(), show_ip)?
    }))
}

/// The Salt release brine's master and minions answer as (the minions'
/// `saltversion` grain).
const MASTER_VERSION: &str = brine_runtime::grains::SALT_VERSION;

/// Salt's comparison of two versions: their numbers in order.
fn version_cmp(a: &str, b: &str) -> std::cmp::Ordering {
    let nums = |s: &str| -> Vec<u64> {
        s.split(|c: char| !c.is_ascii_digit())
            .filter(|p| !p.is_empty())
            .filter_map(|p| p.parse().ok())
            .collect()
    };
    nums(a).cmp(&nums(b))
}

/// Salt's `manage.versions`: the minions that answer `test.version`, by
/// how their Salt version (their `saltversion` grain, the release they
/// answer as; brine's own version is `test.version`'s answer) stands
/// against the master's.
async fn versions(config: &MasterConfig, p: Params) -> Result<Answer, RunnerError> {
    p.finish()?;
    let mut client = Client::for_config(config)?;
    let gathered = client
        .cmd(
            Value::from("*"),
            "glob",
            "test.version",
            Vec::new(),
            Map::default(),
            config.timeout,
            config.gather_job_timeout(),
        )
        .await?;
    let cache = MinionCache::open(&config.minion_cache_dir())?;
    let mut by: std::collections::BTreeMap<i8, Map> = std::collections::BTreeMap::new();
    for (id, r) in gathered.returns {
        let ret = r.ret.unpack();
        let release = cache
            .get(&id)
            .and_then(|m| m.grain("saltversion").as_ref().map(Value::to_python_str));
        let (diff, shown) = match (&ret, release) {
            (Value::Str(_), Some(v)) if r.retcode == 0 => (
                match version_cmp(&v, MASTER_VERSION) {
                    std::cmp::Ordering::Less => -1,
                    std::cmp::Ordering::Equal => 0,
                    std::cmp::Ordering::Greater => 1,
                },
                Value::Str(v),
            ),
            _ => (-2, Value::Bool(false)),
        };
        by.entry(diff).or_default().insert(id, shown);
    }
    let mut out = Map::default();
    for (diff, mut minions) in by {
        minions.sort_keys();
        let label = match diff {
            -2 => "Minion offline",
            -1 => "Minion requires update",
            0 => "Up to date",
            _ => "Minion newer than master",
        };
        out.insert(label.into(), Value::Map(minions));
    }
    out.insert("Master".into(), Value::from(MASTER_VERSION));
    Ok(Answer::data(Value::Map(out)))
}

/// What `manage.status` pings.
pub struct Ping {
    pub tgt: Value,
    pub tgt_type: String,
    pub timeout: Option<u64>,
    pub gather_job_timeout: Option<u64>,
}

/// `test.ping` the target: (minions that answered, minions that did not),
/// each sorted.
pub async fn ping_with(
    client: &mut Client,
    config: &MasterConfig,
    p: &Ping,
) -> Result<(Vec<String>, Vec<String>), RunnerError> {
    let timeout = p.timeout.filter(|t| *t > 0).unwrap_or(config.timeout);
    let gather = p
        .gather_job_timeout
        .filter(|t| *t > 0)
        .map(std::time::Duration::from_secs)
        .unwrap_or_else(|| config.gather_job_timeout());
    let pinged = client
        .ping(p.tgt.clone(), &p.tgt_type, timeout, gather)
        .await?;
    let (up, down) = (pinged.up, pinged.down);
    Ok((up, down))
}

/// `manage.down removekeys=True`: delete the keys of the down minions.
pub fn remove_keys(config: &MasterConfig, ids: &[String]) -> Result<(), RunnerError> {
    let store = KeyStore::for_config(&config.pki_dir, &config.job_cache)?;
    for id in ids {
        store.delete(id, KeyState::Accepted)?;
    }
    Ok(())
}

/// A `subset=` argument: a list of ids (a string is split at commas).
pub fn subset(v: Value) -> Vec<String> {
    match v {
        Value::List(l) => l.iter().map(Value::to_python_str).collect(),
        Value::Str(s) => s
            .split(',')
            .filter(|x| !x.is_empty())
            .map(str::to_string)
            .collect(),
        other => vec![other.to_python_str()],
    }
}

/// Salt's `manage.list_state` (`present`, `joined`): the connected
/// minions, sorted; with `show_ip`, id → address.
pub fn list_state(
    config: &MasterConfig,
    subset: Option<&[String]>,
    show_ip: bool,
) -> Result<Value, RunnerError> {
    let cache = MinionCache::open(&config.minion_cache_dir())?;
    let c = presence::connected(config.publish_port, &cache, subset);
    Ok(if show_ip {
        Value::Map(c.into_iter().map(|(id, ip)| (id, Value::Str(ip))).collect())
    } else {
        Value::List(c.into_iter().map(|(id, _)| Value::Str(id)).collect())
    })
}

/// Salt's `manage.list_not_state` (`not_present`, `not_joined`): accepted
/// minions that are not connected.
pub fn list_not_state(
    config: &MasterConfig,
    subset: Option<&[String]>,
) -> Result<Value, RunnerError> {
    let cache = MinionCache::open(&config.minion_cache_dir())?;
    let connected: BTreeSet<String> = presence::connected(config.publish_port, &cache, None)
        .into_iter()
        .map(|(id, _)| id)
        .collect();
    let accepted =
        KeyStore::for_config(&config.pki_dir, &config.job_cache)?.list(KeyState::Accepted)?;
    Ok(Value::List(
        accepted
            .into_iter()
            .filter(|id| !connected.contains(id) && subset.is_none_or(|s| s.contains(id)))
            .map(Value::Str)
            .collect(),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn subsets_are_comma_lists() {
        assert_eq!(subset(Value::from("a,b")), vec!["a", "b"]);
    }
}
