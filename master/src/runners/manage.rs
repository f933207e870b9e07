//! Salt's `manage` runner: which minions answer a ping (`status`, `up`,
//! `down`), and which are connected now by Salt's presence detection
//! (`list_state`, `present`, `joined`, and their "not" sides): the remote
//! addresses of established TCP connections to the publish port, matched
//! against the `ipv4`/`ipv6` grains in the minion cache. No command is sent
//! for those.

use super::runner::{seconds, strings, Answer, Runner, RunnerError};
use crate::daemon::client::Client;
use crate::daemon::minion_cache::MinionCache;
use crate::daemon::MasterConfig;
use crate::keys::{KeyState, KeyStore};
use brine_core::{sig, Map, Value};
use brine_runtime::modules::Params;
use std::collections::BTreeSet;
use std::io::Read;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

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
        .unwrap_or_else(|| super::jobs::gather_job_timeout(config));
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

/// Salt's `connected_ids`: minion id → the address it is connected from.
fn connected(
    config: &MasterConfig,
    subset: Option<&[String]>,
) -> Result<Vec<(String, String)>, RunnerError> {
    let mut addrs = publish_peers(config.publish_port);
    // A minion on this host connects from the loopback address: stand in
    // the host's own addresses, as Salt does.
    if addrs.remove(&IpAddr::V4(Ipv4Addr::LOCALHOST)) {
        for iface in brine_runtime::grains::net::interfaces().values() {
            addrs.extend(
                iface
                    .inet
                    .iter()
                    .filter(|a| !a.address.is_loopback())
                    .map(|a| IpAddr::V4(a.address)),
            );
        }
    }
    if addrs.remove(&IpAddr::V6(Ipv6Addr::LOCALHOST)) {
        for iface in brine_runtime::grains::net::interfaces().values() {
            addrs.extend(
                iface
                    .inet6
                    .iter()
                    .filter(|a| !a.address.is_loopback())
                    .map(|a| IpAddr::V6(a.address)),
            );
        }
    }
    let cache = MinionCache::open(&config.minion_cache_dir())?;
    let mut ids = match subset {
        Some(s) => s.to_vec(),
        None => cache.ids(),
    };
    ids.sort();
    ids.dedup();
    let mut out = Vec::new();
    for id in ids {
        let Some(cached) = cache.get(&id) else {
            continue;
        };
        let grain = |k: &str| -> Vec<String> {
            match cached.grains.get(k) {
                Some(Value::List(l)) => l.iter().map(Value::to_python_str).collect(),
                _ => Vec::new(),
            }
        };
        let hit = grain("ipv4")
            .into_iter()
            .chain(grain("ipv6"))
            .find(|a| a.parse::<IpAddr>().is_ok_and(|ip| addrs.contains(&ip)));
        if let Some(ip) = hit {
            out.push((id, ip));
        }
    }
    Ok(out)
}

/// Salt's `manage.list_state` (`present`, `joined`): the connected
/// minions, sorted; with `show_ip`, id → address.
pub fn list_state(
    config: &MasterConfig,
    subset: Option<&[String]>,
    show_ip: bool,
) -> Result<Value, RunnerError> {
    let c = connected(config, subset)?;
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
    let connected: BTreeSet<String> = connected(config, None)?
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

/// The most of `/proc/net/tcp` read (a table this size holds tens of
/// thousands of connections).
const MAX_TCP_TABLE: u64 = 16 << 20;

/// The remote addresses of established TCP connections to local `port`
/// (Linux's `/proc/net/tcp` and `tcp6`; nothing elsewhere).
fn publish_peers(port: u16) -> BTreeSet<IpAddr> {
    let mut out = BTreeSet::new();
    for (path, v6) in [("/proc/net/tcp", false), ("/proc/net/tcp6", true)] {
        let mut text = String::new();
        let read =
            std::fs::File::open(path).and_then(|f| f.take(MAX_TCP_TABLE).read_to_string(&mut text));
        if read.is_err() {
            continue;
        }
        out.extend(parse_tcp_table(&text, port, v6));
    }
    out
}

/// Rows of a `/proc/net/tcp{,6}` table in state ESTABLISHED (01) whose
/// local port is `port`: their remote addresses.
fn parse_tcp_table(text: &str, port: u16, v6: bool) -> Vec<IpAddr> {
    let mut out = Vec::new();
    for line in text.lines().skip(1) {
        let mut f = line.split_whitespace();
        let (Some(_sl), Some(local), Some(remote), Some(state)) =
            (f.next(), f.next(), f.next(), f.next())
        else {
            continue;
        };
        if state != "01" {
            continue;
        }
        let Some((_, lport)) = local.split_once(':') else {
            continue;
        };
        if u16::from_str_radix(lport, 16) != Ok(port) {
            continue;
        }
        let Some((raddr, _)) = remote.split_once(':') else {
            continue;
        };
        if let Some(ip) = kernel_addr(raddr, v6) {
            // An IPv4 peer on a dual-stack socket shows as ::ffff:a.b.c.d.
            out.push(match ip {
                IpAddr::V6(a) => a.to_ipv4_mapped().map_or(ip, IpAddr::V4),
                v4 => v4,
            });
        }
    }
    out
}

/// A `/proc/net/tcp` address: 32-bit words printed in hex, each in the
/// host's byte order.
fn kernel_addr(hex: &str, v6: bool) -> Option<IpAddr> {
    let words = if v6 { 4 } else { 1 };
    if hex.len() != words * 8 || !hex.is_ascii() {
        return None;
    }
    let mut bytes = Vec::with_capacity(words * 4);
    for i in 0..words {
        let w = u32::from_str_radix(&hex[i * 8..i * 8 + 8], 16).ok()?;
        bytes.extend_from_slice(&w.to_ne_bytes());
    }
    if v6 {
        let b: [u8; 16] = bytes.try_into().ok()?;
        Some(IpAddr::V6(Ipv6Addr::from(b)))
    } else {
        let b: [u8; 4] = bytes.try_into().ok()?;
        Some(IpAddr::V4(Ipv4Addr::from(b)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tcp_table_gives_established_peers_of_the_port() {
        // 127.0.0.1:40000 -> 127.0.0.1:4505 established; a listener; another port.
        let v4 = "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 0100007F:1199 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 1 1 0 100 0 0 10 0
   1: 0100007F:1199 0100007F:9C40 01 00000000:00000000 00:00000000 00000000  1000        0 2 1 0 20 4 30 10 -1
   2: 0100007F:1F90 0A00000A:9C41 01 00000000:00000000 00:00000000 00000000  1000        0 3 1 0 20 4 30 10 -1
";
        if cfg!(target_endian = "little") {
            assert_eq!(
                parse_tcp_table(v4, 4505, false),
                vec![IpAddr::V4(Ipv4Addr::LOCALHOST)]
            );
            // ::ffff:10.0.0.10 on a dual-stack socket.
            let v6 = "header
   0: 00000000000000000000000000000000:1199 0000000000000000FFFF00000A00000A:9C41 01 0 0 0 0 0 0
";
            assert_eq!(
                parse_tcp_table(v6, 4505, true),
                vec![IpAddr::V4(Ipv4Addr::new(10, 0, 0, 10))]
            );
        }
        assert!(parse_tcp_table("h\n 0: zz:1199 yy:1 01\n", 4505, false).is_empty());
        assert_eq!(subset(Value::from("a,b")), vec!["a", "b"]);
    }
}
