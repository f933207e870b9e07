//! Sockets from `/proc/net/{tcp,tcp6,udp,udp6}`: `network.netstat` (what
//! `netstat -tulpnea` prints, which Salt parses) and `network.active_tcp`.

use crate::grains::system::read_text;
use brine_core::{Map, Value};
use std::collections::HashMap;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// Bound on the processes scanned for socket owners.
const MAX_PIDS: usize = 100_000;

/// net-tools' names of the kernel's TCP states, by number.
const TCP_STATES: &[&str] = &[
    "",
    "ESTABLISHED",
    "SYN_SENT",
    "SYN_RECV",
    "FIN_WAIT1",
    "FIN_WAIT2",
    "TIME_WAIT",
    "CLOSE",
    "CLOSE_WAIT",
    "LAST_ACK",
    "LISTEN",
    "CLOSING",
];

/// One line of a `/proc/net` socket table.
struct Sock {
    local: (IpAddr, u16),
    remote: (IpAddr, u16),
    state: u8,
    txq: u64,
    rxq: u64,
    uid: String,
    inode: String,
}

/// An address as the kernel writes it: 32-bit words in host byte order.
fn hex_addr(hex: &str) -> Option<IpAddr> {
    let word = |h: &str| u32::from_str_radix(h, 16).ok().map(u32::to_ne_bytes);
    match hex.len() {
        8 => Some(IpAddr::V4(Ipv4Addr::from(word(hex)?))),
        32 => {
            let mut b = [0u8; 16];
            for (i, chunk) in b.chunks_mut(4).enumerate() {
                chunk.copy_from_slice(&word(hex.get(i * 8..i * 8 + 8)?)?);
            }
            Some(IpAddr::V6(Ipv6Addr::from(b)))
        }
        _ => None,
    }
}

fn endpoint(s: &str) -> Option<(IpAddr, u16)> {
    let (a, p) = s.split_once(':')?;
    Some((hex_addr(a)?, u16::from_str_radix(p, 16).ok()?))
}

fn parse_table(text: &str) -> Vec<Sock> {
    text.lines()
        .skip(1)
        .filter_map(|line| {
            let c: Vec<&str> = line.split_whitespace().collect();
            let (txq, rxq) = c.get(4)?.split_once(':')?;
            Some(Sock {
                local: endpoint(c.get(1)?)?,
                remote: endpoint(c.get(2)?)?,
                state: u8::from_str_radix(c.get(3)?, 16).ok()?,
                txq: u64::from_str_radix(txq, 16).ok()?,
                rxq: u64::from_str_radix(rxq, 16).ok()?,
                uid: (*c.get(7)?).to_string(),
                inode: (*c.get(9)?).to_string(),
            })
        })
        .collect()
}

/// `addr:port` as netstat prints it without `-W`: `*` for port 0, the
/// address cut so both fit 23 columns.
fn netstat_addr(ip: IpAddr, port: u16) -> String {
    let port = if port == 0 {
        "*".to_string()
    } else {
        port.to_string()
    };
    let mut addr = ip.to_string();
    if addr.len() + port.len() > 22 {
        addr.truncate(22usize.saturating_sub(port.len()));
    }
    format!("{addr}:{port}")
}

/// Socket inode → `pid/program`, as netstat names owners (the base name of
/// `argv[0]`, else the command name; 19 characters at most).
fn socket_owners() -> HashMap<String, String> {
    let mut out = HashMap::new();
    let Ok(procs) = std::fs::read_dir("/proc") else {
        return out;
    };
    for entry in procs.flatten().take(MAX_PIDS) {
        let pid = entry.file_name().to_string_lossy().into_owned();
        if !pid.bytes().all(|b| b.is_ascii_digit()) {
            continue;
        }
        let Ok(fds) = std::fs::read_dir(entry.path().join("fd")) else {
            continue;
        };
        let mut name: Option<String> = None;
        for fd in fds.flatten() {
            let Ok(target) = std::fs::read_link(fd.path()) else {
                continue;
            };
            let target = target.to_string_lossy();
            let Some(inode) = target
                .strip_prefix("socket:[")
                .and_then(|s| s.strip_suffix(']'))
            else {
                continue;
            };
            let name = name.get_or_insert_with(|| {
                let argv0 = std::fs::read(entry.path().join("cmdline"))
                    .ok()
                    .and_then(|b| {
                        let first = b.split(|c| *c == 0).next()?.to_vec();
                        let s = String::from_utf8_lossy(&first).into_owned();
                        (!s.is_empty()).then(|| brine_host::path::basename(&s).to_string())
                    });
                let prog = argv0.unwrap_or_else(|| {
                    read_text(entry.path().join("comm"))
                        .map(|c| c.trim_end().to_string())
                        .unwrap_or_default()
                });
                let mut s = format!("{pid}/{prog}");
                while s.len() > 19 {
                    s.pop();
                }
                s
            });
            out.insert(inode.to_string(), name.clone());
        }
    }
    out
}

/// `network.netstat`: TCP sockets then UDP sockets, IPv4 before IPv6.
pub(super) fn netstat() -> Value {
    let owners = socket_owners();
    let mut out = Vec::new();
    for (proto, file) in [
        ("tcp", "/proc/net/tcp"),
        ("tcp6", "/proc/net/tcp6"),
        ("udp", "/proc/net/udp"),
        ("udp6", "/proc/net/udp6"),
    ] {
        let tcp = proto.starts_with("tcp");
        for s in parse_table(&read_text(file).unwrap_or_default()) {
            let program = owners.get(&s.inode).cloned().unwrap_or_else(|| "-".into());
            let mut m = Map::default();
            m.insert("proto".into(), proto.into());
            m.insert("recv-q".into(), Value::Str(s.rxq.to_string()));
            m.insert("send-q".into(), Value::Str(s.txq.to_string()));
            m.insert(
                "local-address".into(),
                Value::Str(netstat_addr(s.local.0, s.local.1)),
            );
            m.insert(
                "remote-address".into(),
                Value::Str(netstat_addr(s.remote.0, s.remote.1)),
            );
            if tcp {
                let state = TCP_STATES
                    .get(usize::from(s.state))
                    .copied()
                    .unwrap_or("UNKNOWN");
                m.insert("state".into(), state.into());
                m.insert("user".into(), Value::Str(s.uid));
                m.insert("inode".into(), Value::Str(s.inode));
                m.insert("program".into(), Value::Str(program));
            } else if s.state == 1 {
                // A connected UDP socket prints a state column, which
                // Salt's parser takes for the user: the columns shift.
                m.insert("user".into(), "ESTABLISHED".into());
                m.insert("inode".into(), Value::Str(s.uid));
                m.insert("program".into(), Value::Str(s.inode));
            } else {
                m.insert("user".into(), Value::Str(s.uid));
                m.insert("inode".into(), Value::Str(s.inode));
                m.insert("program".into(), Value::Str(program));
            }
            out.push(Value::Map(m));
        }
    }
    Value::List(out)
}

/// An address as Salt's `hex2ip` shows it: IPv4-mapped IPv6 as IPv4.
fn salt_ip(ip: IpAddr) -> String {
    match ip {
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => v4.to_string(),
            None => v6.to_string(),
        },
        IpAddr::V4(v4) => v4.to_string(),
    }
}

/// `network.active_tcp`: established TCP connections numbered from 0.
pub(super) fn active_tcp() -> Value {
    let mut out = Map::default();
    for file in ["/proc/net/tcp", "/proc/net/tcp6"] {
        for s in parse_table(&read_text(file).unwrap_or_default()) {
            if s.state != 1 {
                continue;
            }
            let mut m = Map::default();
            m.insert("local_addr".into(), Value::Str(salt_ip(s.local.0)));
            m.insert("local_port".into(), Value::Int(i64::from(s.local.1)));
            m.insert("remote_addr".into(), Value::Str(salt_ip(s.remote.0)));
            m.insert("remote_port".into(), Value::Int(i64::from(s.remote.1)));
            out.insert(out.len().to_string(), Value::Map(m));
        }
    }
    Value::Map(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_proc_tables() {
        let t = "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n\
   0: 00000000:07E8 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 1060 1 0000000000000000 100 0 0 10 0\n\
   1: 020200C0:C288 507100CB:0050 01 00000002:00000001 00:00000000 00000000    42        0 1939628 1\n";
        let s = parse_table(t);
        assert_eq!(s.len(), 2);
        assert_eq!(netstat_addr(s[0].local.0, s[0].local.1), "0.0.0.0:2024");
        assert_eq!(netstat_addr(s[0].remote.0, s[0].remote.1), "0.0.0.0:*");
        assert_eq!(s[0].state, 10);
        assert_eq!(netstat_addr(s[1].local.0, s[1].local.1), "192.0.2.2:49800");
        assert_eq!(salt_ip(s[1].remote.0), "203.0.113.80");
        assert_eq!((s[1].txq, s[1].rxq), (2, 1));
        let v6 = hex_addr("0000000000000000FFFF00000100007F").unwrap();
        assert_eq!(salt_ip(v6), "127.0.0.1");
        assert_eq!(
            hex_addr("00000000000000000000000001000000")
                .unwrap()
                .to_string(),
            "::1"
        );
        // Long IPv6 addresses are cut as netstat cuts them.
        let long: IpAddr = "fe80::fc:ff:fe00:1234:5678".parse().unwrap();
        assert_eq!(netstat_addr(long, 12345).len(), 23);
    }

    #[test]
    fn live_tables_parse() {
        // Every line of this host's tables parses.
        for f in ["/proc/net/tcp", "/proc/net/udp"] {
            let Some(text) = read_text(f) else { continue };
            assert_eq!(parse_table(&text).len(), text.lines().count() - 1, "{f}");
        }
        assert!(netstat().as_list().is_some());
    }
}
