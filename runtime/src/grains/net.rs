//! Network grains: host names, interfaces and their addresses, default
//! gateways, resolver configuration.

use super::system::{read_text, which};
use brine_core::{Map, Value};
use indexmap::IndexMap;
use std::ffi::{CStr, CString};
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// One interface as Salt's `ip addr show` parser sees it.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Interface {
    pub hwaddr: Option<String>,
    pub inet: Vec<Ipv4Addr>,
    pub inet6: Vec<Ipv6Addr>,
}

/// All interfaces in kernel (ifindex) order, from `getifaddrs`, which asks
/// the kernel over netlink exactly as `ip addr show` does.
pub fn interfaces() -> IndexMap<String, Interface> {
    let mut ret: IndexMap<String, Interface> = IndexMap::new();
    let mut head: *mut libc::ifaddrs = std::ptr::null_mut();
    // SAFETY: getifaddrs fills `head` with a list we free below.
    if unsafe { libc::getifaddrs(&mut head) } != 0 {
        return ret;
    }
    let mut cur = head;
    while !cur.is_null() {
        // SAFETY: `cur` is a node of the list getifaddrs returned.
        let ifa = unsafe { &*cur };
        cur = ifa.ifa_next;
        if ifa.ifa_name.is_null() {
            continue;
        }
        // SAFETY: ifa_name is a NUL-terminated string owned by the list.
        let mut name = unsafe { CStr::from_ptr(ifa.ifa_name) }
            .to_string_lossy()
            .into_owned();
        if ifa.ifa_addr.is_null() {
            ret.entry(name).or_default();
            continue;
        }
        // SAFETY: ifa_addr points to a sockaddr whose family tells its type.
        let family = i32::from(unsafe { (*ifa.ifa_addr).sa_family });
        // An IPv4 address with a label (`eth0:1`) belongs to `eth0`, as
        // `ip addr show` lists it.
        if family == libc::AF_INET && !ret.contains_key(&name) {
            if let Some((base, _)) = name.split_once(':') {
                if ret.contains_key(base) {
                    name = base.to_string();
                }
            }
        }
        let entry = ret.entry(name).or_default();
        match family {
            libc::AF_PACKET => {
                // SAFETY: AF_PACKET addresses are sockaddr_ll.
                let ll = unsafe { &*(ifa.ifa_addr as *const libc::sockaddr_ll) };
                let len = usize::from(ll.sll_halen).min(ll.sll_addr.len());
                if len > 0 {
                    let mac: Vec<String> = ll.sll_addr[..len]
                        .iter()
                        .map(|b| format!("{b:02x}"))
                        .collect();
                    entry.hwaddr = Some(mac.join(":"));
                }
            }
            libc::AF_INET => {
                // SAFETY: AF_INET addresses are sockaddr_in.
                let sin = unsafe { &*(ifa.ifa_addr as *const libc::sockaddr_in) };
                entry
                    .inet
                    .push(Ipv4Addr::from(u32::from_be(sin.sin_addr.s_addr)));
            }
            libc::AF_INET6 => {
                // SAFETY: AF_INET6 addresses are sockaddr_in6.
                let sin6 = unsafe { &*(ifa.ifa_addr as *const libc::sockaddr_in6) };
                entry.inet6.push(Ipv6Addr::from(sin6.sin6_addr.s6_addr));
            }
            _ => {}
        }
    }
    // SAFETY: `head` came from getifaddrs and is freed once.
    unsafe { libc::freeifaddrs(head) };
    ret
}

/// `hwaddr_interfaces`, `ip4_interfaces`, `ip6_interfaces`, `ipv4`, `ipv6`,
/// `ip_interfaces` for the given interfaces (without the fqdn lookups).
pub fn interface_grains(ifaces: &IndexMap<String, Interface>) -> Map {
    let mut hw = Map::new();
    let mut ip4 = Map::new();
    let mut ip6 = Map::new();
    let mut ip = Map::new();
    for (name, i) in ifaces {
        if let Some(h) = &i.hwaddr {
            hw.insert(name.clone(), h.as_str().into());
        }
        let v4: Vec<Value> = i.inet.iter().map(|a| a.to_string().into()).collect();
        let v6: Vec<Value> = i.inet6.iter().map(|a| a.to_string().into()).collect();
        ip4.insert(name.clone(), Value::List(v4.clone()));
        ip6.insert(name.clone(), Value::List(v6.clone()));
        ip.insert(
            name.clone(),
            Value::List(v4.into_iter().chain(v6).collect()),
        );
    }
    // Salt sorts the flat lists as addresses (numerically), without duplicates.
    let mut all4: Vec<Ipv4Addr> = ifaces
        .values()
        .flat_map(|i| i.inet.iter().copied())
        .collect();
    all4.sort();
    all4.dedup();
    let mut all6: Vec<Ipv6Addr> = ifaces
        .values()
        .flat_map(|i| i.inet6.iter().copied())
        .collect();
    all6.sort();
    all6.dedup();
    let mut g = Map::new();
    g.insert("hwaddr_interfaces".into(), Value::Map(hw));
    g.insert("ip4_interfaces".into(), Value::Map(ip4));
    g.insert("ip6_interfaces".into(), Value::Map(ip6));
    g.insert(
        "ipv4".into(),
        Value::List(all4.iter().map(|a| a.to_string().into()).collect()),
    );
    g.insert(
        "ipv6".into(),
        Value::List(all6.iter().map(|a| a.to_string().into()).collect()),
    );
    g.insert("ip_interfaces".into(), Value::Map(ip));
    g
}

/// `gethostname()`.
pub fn hostname() -> String {
    let mut buf = [0u8; 256];
    // SAFETY: the buffer and its length are passed together.
    let rc = unsafe { libc::gethostname(buf.as_mut_ptr().cast(), buf.len()) };
    if rc != 0 {
        return String::new();
    }
    let end = buf.iter().position(|&b| b == 0).unwrap_or(buf.len());
    String::from_utf8_lossy(&buf[..end]).into_owned()
}

/// The fully qualified host name: the canonical name the resolver gives the
/// host name (Salt's `get_fqhostname`), else the host name itself.
pub fn fqdn(host: &str) -> String {
    let Ok(c) = CString::new(host) else {
        return host.to_string();
    };
    // SAFETY: addrinfo is plain data; zeroed is a valid "no hints" value.
    let mut hints: libc::addrinfo = unsafe { std::mem::zeroed() };
    hints.ai_family = libc::AF_UNSPEC;
    hints.ai_socktype = libc::SOCK_STREAM;
    hints.ai_protocol = libc::IPPROTO_TCP;
    hints.ai_flags = libc::AI_CANONNAME;
    let mut res: *mut libc::addrinfo = std::ptr::null_mut();
    // SAFETY: valid host string and hints; `res` is freed below.
    let rc = unsafe { libc::getaddrinfo(c.as_ptr(), std::ptr::null(), &hints, &mut res) };
    if rc != 0 || res.is_null() {
        return host.to_string();
    }
    let mut canon = None;
    let mut cur = res;
    while !cur.is_null() {
        // SAFETY: `cur` is a node of the list getaddrinfo returned.
        let ai = unsafe { &*cur };
        if !ai.ai_canonname.is_null() {
            // SAFETY: NUL-terminated string owned by the list.
            let name = unsafe { CStr::from_ptr(ai.ai_canonname) }
                .to_string_lossy()
                .into_owned();
            if !name.is_empty() {
                canon = Some(name);
            }
        }
        cur = ai.ai_next;
    }
    // SAFETY: `res` came from getaddrinfo and is freed once.
    unsafe { libc::freeaddrinfo(res) };
    canon.unwrap_or_else(|| host.to_string())
}

/// The addresses `name` resolves to in one family, without duplicates.
pub fn resolve(name: &str, family: i32) -> Vec<IpAddr> {
    let Ok(c) = CString::new(name) else {
        return Vec::new();
    };
    // SAFETY: as in fqdn().
    let mut hints: libc::addrinfo = unsafe { std::mem::zeroed() };
    hints.ai_family = family;
    let mut res: *mut libc::addrinfo = std::ptr::null_mut();
    // SAFETY: as in fqdn().
    let rc = unsafe { libc::getaddrinfo(c.as_ptr(), std::ptr::null(), &hints, &mut res) };
    if rc != 0 || res.is_null() {
        return Vec::new();
    }
    let mut out: Vec<IpAddr> = Vec::new();
    let mut cur = res;
    while !cur.is_null() {
        // SAFETY: a node of the returned list.
        let ai = unsafe { &*cur };
        cur = ai.ai_next;
        if ai.ai_addr.is_null() {
            continue;
        }
        let ip = match ai.ai_family {
            libc::AF_INET => {
                // SAFETY: AF_INET entries carry a sockaddr_in.
                let sin = unsafe { &*(ai.ai_addr as *const libc::sockaddr_in) };
                IpAddr::V4(Ipv4Addr::from(u32::from_be(sin.sin_addr.s_addr)))
            }
            libc::AF_INET6 => {
                // SAFETY: AF_INET6 entries carry a sockaddr_in6.
                let sin6 = unsafe { &*(ai.ai_addr as *const libc::sockaddr_in6) };
                IpAddr::V6(Ipv6Addr::from(sin6.sin6_addr.s6_addr))
            }
            _ => continue,
        };
        if !out.contains(&ip) {
            out.push(ip);
        }
    }
    // SAFETY: freed once.
    unsafe { libc::freeaddrinfo(res) };
    out
}

/// `ip_gw`, `ip4_gw`, `ip6_gw` from `/proc/net/route` and
/// `/proc/net/ipv6_route` text: the first default route of each family, its
/// gateway address or `true` when it has none. Salt only sets these when the
/// `ip` tool exists.
pub fn gateways(route4: &str, route6: &str) -> Map {
    let mut gw4 = Value::Bool(false);
    for line in route4.lines().skip(1) {
        let cols: Vec<&str> = line.split_whitespace().collect();
        let (Some(dest), Some(gw), Some(flags), Some(mask)) =
            (cols.get(1), cols.get(2), cols.get(3), cols.get(7))
        else {
            continue;
        };
        let flags = u32::from_str_radix(flags, 16).unwrap_or(0);
        if *dest != "00000000" || *mask != "00000000" || flags & 0x0001 == 0 {
            continue;
        }
        // Columns hold the address in host byte order.
        gw4 = match u32::from_str_radix(gw, 16) {
            Ok(0) | Err(_) => Value::Bool(true),
            Ok(n) => Value::Str(Ipv4Addr::from(n.to_ne_bytes()).to_string()),
        };
        break;
    }
    let mut gw6 = Value::Bool(false);
    for line in route6.lines() {
        let cols: Vec<&str> = line.split_whitespace().collect();
        let (Some(dest), Some(plen), Some(next), Some(flags)) =
            (cols.first(), cols.get(1), cols.get(4), cols.get(8))
        else {
            continue;
        };
        let flags = u32::from_str_radix(flags, 16).unwrap_or(0);
        // Up, and not a reject ("unreachable default") route.
        if dest.chars().any(|c| c != '0')
            || *plen != "00"
            || flags & 0x0001 == 0
            || flags & 0x0200 != 0
        {
            continue;
        }
        gw6 = match u128::from_str_radix(next, 16) {
            Ok(0) | Err(_) => Value::Bool(true),
            Ok(n) => Value::Str(Ipv6Addr::from(n).to_string()),
        };
        break;
    }
    let mut g = Map::new();
    g.insert(
        "ip_gw".into(),
        Value::Bool(gw4 != Value::Bool(false) || gw6 != Value::Bool(false)),
    );
    g.insert("ip4_gw".into(), gw4);
    g.insert("ip6_gw".into(), gw6);
    g
}

/// The gateway grains of this host, or nothing without the `ip` tool.
pub fn gateway_grains() -> Map {
    if which("ip").is_none() {
        return Map::new();
    }
    gateways(
        &read_text("/proc/net/route").unwrap_or_default(),
        &read_text("/proc/net/ipv6_route").unwrap_or_default(),
    )
}

/// The `dns` grain from resolver configuration text (Salt's `parse_resolv`).
pub fn parse_resolv(text: &str) -> Map {
    let mut nameservers: Vec<String> = Vec::new();
    let mut ip4: Vec<String> = Vec::new();
    let mut ip6: Vec<String> = Vec::new();
    let mut search: Vec<Value> = Vec::new();
    let mut sortlist: Vec<String> = Vec::new();
    let mut domain = String::new();
    let mut options: Vec<String> = Vec::new();
    for line in text.lines() {
        let words: Vec<&str> = line.split_whitespace().collect();
        let Some((directive, rest)) = words.split_first() else {
            continue;
        };
        let args: Vec<&str> = rest
            .iter()
            .take_while(|w| !w.starts_with('#') && !w.starts_with(';'))
            .copied()
            .collect();
        match directive.to_lowercase().as_str() {
            "nameserver" => {
                let Some(addr) = args.first().and_then(|a| a.parse::<IpAddr>().ok()) else {
                    continue;
                };
                let s = addr.to_string();
                if !nameservers.contains(&s) {
                    nameservers.push(s.clone());
                }
                let list = if addr.is_ipv4() { &mut ip4 } else { &mut ip6 };
                if !list.contains(&s) {
                    list.push(s);
                }
            }
            "domain" => {
                if let Some(d) = args.first() {
                    domain = (*d).to_string();
                }
            }
            "search" => search = args.iter().map(|s| Value::from(*s)).collect(),
            "sortlist" => {
                for raw in &args {
                    if let Some(net) = sortlist_entry(raw) {
                        if !sortlist.contains(&net) {
                            sortlist.push(net);
                        }
                    }
                }
            }
            "options" => {
                if let Some(o) = args.first() {
                    if !options.iter().any(|x| x == o) {
                        options.push((*o).to_string());
                    }
                }
            }
            _ => {}
        }
    }
    let list = |v: Vec<String>| Value::List(v.into_iter().map(Value::Str).collect());
    let mut g = Map::new();
    g.insert("nameservers".into(), list(nameservers));
    g.insert("ip4_nameservers".into(), list(ip4));
    g.insert("ip6_nameservers".into(), list(ip6));
    g.insert("sortlist".into(), list(sortlist));
    g.insert("domain".into(), domain.into());
    g.insert("search".into(), Value::List(search));
    g.insert("options".into(), list(options));
    g
}

/// An IPv4 sortlist entry as `network/netmask`; a bare address gets its
/// class's natural netmask. Entries Python's `ip_network` rejects (host bits
/// set) are dropped.
fn sortlist_entry(raw: &str) -> Option<String> {
    let (addr, mask) = match raw.split_once('/') {
        Some((a, m)) => (a.parse::<Ipv4Addr>().ok()?, Some(m)),
        None => (raw.parse::<Ipv4Addr>().ok()?, None),
    };
    let prefix: u32 = match mask {
        Some(m) => match m.parse::<u32>() {
            Ok(p) if p <= 32 => p,
            Ok(_) => return None,
            Err(_) => {
                let bits = u32::from(m.parse::<Ipv4Addr>().ok()?);
                if bits.leading_ones() + bits.trailing_zeros() != 32 {
                    return None;
                }
                bits.leading_ones()
            }
        },
        None => {
            // A bare address is a /32 network first, then widened.
            let first = addr.octets()[0];
            if first < 128 {
                8
            } else if first < 192 {
                16
            } else {
                24
            }
        }
    };
    let maskbits = if prefix == 0 {
        0
    } else {
        u32::MAX << (32 - prefix)
    };
    let a = u32::from(addr);
    if mask.is_some() && a & !maskbits != 0 {
        return None;
    }
    Some(format!(
        "{}/{}",
        Ipv4Addr::from(a & maskbits),
        Ipv4Addr::from(maskbits)
    ))
}

/// The `dns` grain of this host; absent when no resolver file is readable.
pub fn dns_grain() -> Option<Value> {
    let path = if std::path::Path::new("/run/systemd/resolve/resolv.conf").exists() {
        "/run/systemd/resolve/resolv.conf"
    } else {
        "/etc/resolv.conf"
    };
    read_text(path).map(|t| Value::Map(parse_resolv(&t)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interface_grains_shape() {
        let mut ifs = IndexMap::new();
        ifs.insert(
            "lo".to_string(),
            Interface {
                hwaddr: Some("00:00:00:00:00:00".into()),
                inet: vec![Ipv4Addr::LOCALHOST],
                inet6: vec![Ipv6Addr::LOCALHOST],
            },
        );
        ifs.insert(
            "eth0".to_string(),
            Interface {
                hwaddr: Some("02:fc:00:00:00:01".into()),
                inet: vec!["10.0.0.9".parse().unwrap(), "9.0.0.1".parse().unwrap()],
                inet6: vec!["fe80::1".parse().unwrap(), "fd00::2".parse().unwrap()],
            },
        );
        ifs.insert("tun0".to_string(), Interface::default());
        let g = interface_grains(&ifs);
        // Numeric, not text, order: 9.0.0.1 before 10.0.0.9.
        assert_eq!(
            g["ipv4"].to_python_repr(),
            "['9.0.0.1', '10.0.0.9', '127.0.0.1']"
        );
        assert_eq!(g["ipv6"].to_python_repr(), "['::1', 'fd00::2', 'fe80::1']");
        assert_eq!(
            g["ip_interfaces"].to_python_repr(),
            "{'lo': ['127.0.0.1', '::1'], 'eth0': ['10.0.0.9', '9.0.0.1', 'fe80::1', 'fd00::2'], 'tun0': []}"
        );
        assert_eq!(
            g["hwaddr_interfaces"].to_python_repr(),
            "{'lo': '00:00:00:00:00:00', 'eth0': '02:fc:00:00:00:01'}"
        );
    }

    #[test]
    fn gateways_from_proc() {
        let r4 =
            "Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT\n\
                  eth0\t0002000A\t00000000\t0001\t0\t0\t0\t00FFFFFF\t0\t0\t0\n\
                  eth0\t00000000\t010200C0\t0003\t0\t0\t0\t00000000\t0\t0\t0\n";
        let r6 = "00000000000000000000000000000000 00 00000000000000000000000000000000 00 \
                  fd000000000000000000000000000001 00000400 00000001 00000000 00000003 eth0\n";
        let g = gateways(r4, r6);
        assert_eq!(
            Value::Map(g).to_python_repr(),
            "{'ip_gw': True, 'ip4_gw': '192.0.2.1', 'ip6_gw': 'fd00::1'}"
        );
        let none = gateways("", "junk\n\n0 0 0");
        assert_eq!(
            Value::Map(none).to_python_repr(),
            "{'ip_gw': False, 'ip4_gw': False, 'ip6_gw': False}"
        );
        let dev_only = gateways(
            "h\nwg0\t00000000\t00000000\t0001\t0\t0\t0\t00000000\t0\t0\t0\n",
            "",
        );
        assert_eq!(dev_only["ip4_gw"], Value::Bool(true));
    }

    #[test]
    fn resolv_conf_like_salt() {
        let g = parse_resolv(
            "# comment\nnameserver 10.0.0.1\nnameserver 10.0.0.1\nnameserver fd00::53 # x\n\
             nameserver bogus\nsearch a.example b.example ; c\ndomain d.example\n\
             sortlist 130.155.160.0/255.255.240.0 130.155.0.0 10.1.2.3/8\noptions ndots:2\noptions ndots:2\n\
             nameserver\n",
        );
        assert_eq!(
            Value::Map(g).to_python_repr(),
            "{'nameservers': ['10.0.0.1', 'fd00::53'], 'ip4_nameservers': ['10.0.0.1'], \
             'ip6_nameservers': ['fd00::53'], 'sortlist': ['130.155.160.0/255.255.240.0', \
             '130.155.0.0/255.255.0.0'], 'domain': 'd.example', 'search': ['a.example', 'b.example'], \
             'options': ['ndots:2']}"
        );
    }
}
