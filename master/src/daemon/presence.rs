//! Which minions are connected now (Salt's presence detection): the
//! remote addresses of established TCP connections to the publish port,
//! matched against the `ipv4`/`ipv6` grains in the minion cache. The
//! `manage.present` runners read it; with `presence_events` the master
//! fires `salt/presence/present` every `loop_interval`, and
//! `salt/presence/change` when the set changed.

use super::events::tags;
use super::master::Master;
use super::minion_cache::MinionCache;
use brine_core::Value;
use std::collections::BTreeSet;
use std::io::Read;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
use std::sync::Arc;

/// Salt's `connected_ids`: minion id → the address it is connected from.
pub fn connected(
    publish_port: u16,
    cache: &MinionCache,
    subset: Option<&[String]>,
) -> Vec<(String, String)> {
    let mut addrs = publish_peers(publish_port);
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
            match cached.grain(k) {
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
    out
}

/// Fire the presence events every `loop_interval`, forever.
pub async fn watch(master: Arc<Master>) {
    let mut tick = tokio::time::interval(master.config.loop_interval);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut before: BTreeSet<String> = BTreeSet::new();
    loop {
        tick.tick().await;
        let m = master.clone();
        let Ok(now) = tokio::task::spawn_blocking(move || {
            connected(m.config.publish_port, &m.cache, None)
                .into_iter()
                .map(|(id, _)| id)
                .collect::<BTreeSet<String>>()
        })
        .await
        else {
            continue;
        };
        let new: Vec<String> = now.difference(&before).cloned().collect();
        let lost: Vec<String> = before.difference(&now).cloned().collect();
        if !new.is_empty() || !lost.is_empty() {
            let (tag, data) = tags::presence_change(&new, &lost);
            master.events.fire(&tag, data);
        }
        let ids: Vec<String> = now.iter().cloned().collect();
        let (tag, data) = tags::present(&ids);
        master.events.fire(&tag, data);
        before = now;
    }
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
    }
}
