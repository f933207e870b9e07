//! Network grains: host names, interfaces and their addresses, default
//! gateways, resolver configuration.

use super::system::read_text;
use brine_core::{Map, Value};
use brine_host::path::which;
use brine_host::sys::{self, Family};
use indexmap::IndexMap;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// One interface as Salt's `ip addr show` parser sees it.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Interface {
    /// The interface is administratively up (`IFF_UP`).
    pub up: bool,
    /// The interface it is linked to (`ip`'s `eth0@if5`): a name, `ifN`
    /// for an index not seen here, `NONE` for none.
    pub parent: Option<String>,
    pub hwaddr: Option<String>,
    pub inet: Vec<Inet4>,
    pub inet6: Vec<Inet6>,
}

/// An IPv4 address of an interface.
#[derive(Debug, Clone, PartialEq)]
pub struct Inet4 {
    pub address: Ipv4Addr,
    pub prefix: u8,
    pub broadcast: Option<Ipv4Addr>,
    /// The address's label (`eth0`, `eth0:1`).
    pub label: String,
}

/// An IPv6 address of an interface.
#[derive(Debug, Clone, PartialEq)]
pub struct Inet6 {
    pub address: Ipv6Addr,
    pub prefix: u8,
}

impl Inet4 {
    /// An address with a host prefix and no broadcast (tests, callers
    /// that only know the address).
    pub fn bare(address: Ipv4Addr, label: &str) -> Inet4 {
        Inet4 {
            address,
            prefix: 32,
            broadcast: None,
            label: label.to_string(),
        }
    }
}

impl Inet6 {
    /// The scope `ip` shows for the address.
    pub fn scope(&self) -> &'static str {
        let seg = self.address.segments()[0];
        if self.address.is_loopback() {
            "host"
        } else if seg & 0xffc0 == 0xfe80 {
            "link"
        } else if seg & 0xffc0 == 0xfec0 {
            "site"
        } else {
            "global"
        }
    }
}

/// Leading one bits of a netmask.
fn prefix_len(mask: &[u8]) -> u8 {
    let mut n = 0u8;
    for b in mask {
        n = n.saturating_add(u8::try_from(b.leading_ones()).unwrap_or(8));
        if *b != 0xff {
            break;
        }
    }
    n
}

/// All interfaces in kernel (ifindex) order, from `getifaddrs`, which asks
/// the kernel over netlink exactly as `ip addr show` does.
pub fn interfaces() -> IndexMap<String, Interface> {
    let mut ret: IndexMap<String, Interface> = IndexMap::new();
    let Ok(addrs) = nix::ifaddrs::getifaddrs() else {
        return ret;
    };
    for ifa in addrs {
        let mut name = ifa.interface_name;
        let up = ifa.flags.contains(nix::net::if_::InterfaceFlags::IFF_UP);
        let label = name.clone();
        let Some(addr) = ifa.address else {
            ret.entry(name).or_default().up |= up;
            continue;
        };
        let v4 = addr.as_sockaddr_in().map(|sin| sin.ip());
        // An IPv4 address with a label (`eth0:1`) belongs to `eth0`, as
        // `ip addr show` lists it.
        if v4.is_some() && !ret.contains_key(&name) {
            if let Some((base, _)) = name.split_once(':') {
                if ret.contains_key(base) {
                    name = base.to_string();
                }
            }
        }
        let entry = ret.entry(name).or_default();
        entry.up |= up;
        if let Some(ip) = v4 {
            let mask = ifa.netmask.as_ref().and_then(|m| m.as_sockaddr_in());
            let brd = ifa
                .broadcast
                .as_ref()
                .and_then(|b| b.as_sockaddr_in())
                .map(|b| b.ip());
            entry.inet.push(Inet4 {
                address: ip,
                prefix: mask.map_or(32, |m| prefix_len(&m.ip().octets())),
                // getifaddrs only fills it for IFF_BROADCAST interfaces.
                broadcast: brd,
                label,
            });
        } else if let Some(sin6) = addr.as_sockaddr_in6() {
            let mask = ifa.netmask.as_ref().and_then(|m| m.as_sockaddr_in6());
            entry.inet6.push(Inet6 {
                address: sin6.ip(),
                prefix: mask.map_or(128, |m| prefix_len(&m.ip().octets())),
            });
        } else if let Some(ll) = addr.as_link_addr() {
            let ll: &nix::libc::sockaddr_ll = ll.as_ref();
            let len = usize::from(ll.sll_halen).min(ll.sll_addr.len());
            if len > 0 {
                let mac: Vec<String> = ll.sll_addr[..len]
                    .iter()
                    .map(|b| format!("{b:02x}"))
                    .collect();
                entry.hwaddr = Some(mac.join(":"));
            }
        }
    }
    link_parents(&mut ret);
    ret
}

/// An interface's `ifindex` or `iflink` from sysfs.
fn sys_index(name: &str, what: &str) -> Option<u32> {
    read_text(format!("/sys/class/net/{name}/{what}"))?
        .trim()
        .parse()
        .ok()
}

/// Each interface's parent as `ip` names it: set when its link index is
/// not its own index.
fn link_parents(ifaces: &mut IndexMap<String, Interface>) {
    let index: Vec<(String, Option<u32>)> = ifaces
        .keys()
        .map(|n| (n.clone(), sys_index(n, "ifindex")))
        .collect();
    for (name, own) in &index {
        let (Some(own), Some(link)) = (own, sys_index(name, "iflink")) else {
            continue;
        };
        if link == *own {
            continue;
        }
        let parent = if link == 0 {
            "NONE".to_string()
        } else {
            index
                .iter()
                .find(|(_, i)| *i == Some(link))
                .map_or_else(|| format!("if{link}"), |(n, _)| n.clone())
        };
        if let Some(i) = ifaces.get_mut(name) {
            i.parent = Some(parent);
        }
    }
}

/// `hwaddr_interfaces`, `ip4_interfaces`, `ip6_interfaces`, `ipv4`, `ipv6`,
/// `ip_interfaces` for the given interfaces (without the fqdn lookups).
pub fn interface_grains(ifaces: &IndexMap<String, Interface>) -> Map {
    let mut hw = Map::default();
    let mut ip4 = Map::default();
    let mut ip6 = Map::default();
    let mut ip = Map::default();
    for (name, i) in ifaces {
        if let Some(h) = &i.hwaddr {
            hw.insert(name.clone(), h.as_str().into());
        }
        let v4: Vec<Value> = i
            .inet
            .iter()
            .map(|a| a.address.to_string().into())
            .collect();
        let v6: Vec<Value> = i
            .inet6
            .iter()
            .map(|a| a.address.to_string().into())
            .collect();
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
        .flat_map(|i| i.inet.iter().map(|a| a.address))
        .collect();
    all4.sort();
    all4.dedup();
    let mut all6: Vec<Ipv6Addr> = ifaces
        .values()
        .flat_map(|i| i.inet6.iter().map(|a| a.address))
        .collect();
    all6.sort();
    all6.dedup();
    let mut g = Map::default();
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
    nix::unistd::gethostname()
        .map(|h| h.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// The fully qualified host name: the canonical name the resolver gives the
/// host name (Salt's `get_fqhostname`), else the host name itself.
pub fn fqdn(host: &str) -> String {
    sys::getaddrinfo(host, Family::Any, true)
        .into_iter()
        .filter_map(|a| a.canonname)
        .rfind(|name| !name.is_empty())
        .unwrap_or_else(|| host.to_string())
}

/// The addresses `name` resolves to in one family, without duplicates.
pub fn resolve(name: &str, family: Family) -> Vec<IpAddr> {
    let mut out: Vec<IpAddr> = Vec::new();
    for ip in sys::getaddrinfo(name, family, false)
        .into_iter()
        .filter_map(|a| a.addr)
    {
        if !out.contains(&ip) {
            out.push(ip);
        }
    }
    out
}

/// One kernel route, as `/proc/net/route` or `/proc/net/ipv6_route` lists
/// it.
#[derive(Debug, Clone, PartialEq)]
pub struct Route {
    pub destination: IpAddr,
    /// Prefix length (IPv6) or the netmask's ones (IPv4).
    pub prefix: u8,
    pub gateway: IpAddr,
    /// The IPv4 netmask (`0.0.0.0` for IPv6 routes).
    pub netmask: Ipv4Addr,
    /// `RTF_*` flags.
    pub flags: u32,
    pub iface: String,
}

pub const RTF_UP: u32 = 0x0001;
pub const RTF_GATEWAY: u32 = 0x0002;
pub const RTF_HOST: u32 = 0x0004;
pub const RTF_REINSTATE: u32 = 0x0008;
pub const RTF_DYNAMIC: u32 = 0x0010;
pub const RTF_MODIFIED: u32 = 0x0020;
pub const RTF_REJECT: u32 = 0x0200;
pub const RTF_DEFAULT: u32 = 0x0001_0000;
pub const RTF_ADDRCONF: u32 = 0x0004_0000;
pub const RTF_CACHE: u32 = 0x0100_0000;
pub const RTF_NONEXTHOP: u32 = 0x0020_0000;

/// The IPv4 routes of `/proc/net/route` text (columns hold addresses in
/// host byte order).
pub fn routes4(text: &str) -> Vec<Route> {
    let v4 = |hex: &str| u32::from_str_radix(hex, 16).map(|n| Ipv4Addr::from(n.to_ne_bytes()));
    text.lines()
        .skip(1)
        .filter_map(|line| {
            let cols: Vec<&str> = line.split_whitespace().collect();
            let (iface, dest, gw, flags, mask) = (
                cols.first()?,
                cols.get(1)?,
                cols.get(2)?,
                cols.get(3)?,
                cols.get(7)?,
            );
            let netmask = v4(mask).ok()?;
            Some(Route {
                destination: IpAddr::V4(v4(dest).ok()?),
                prefix: prefix_len(&netmask.octets()),
                gateway: IpAddr::V4(v4(gw).ok()?),
                netmask,
                flags: u32::from_str_radix(flags, 16).ok()?,
                iface: (*iface).to_string(),
            })
        })
        .collect()
}

/// The IPv6 routes of `/proc/net/ipv6_route` text.
pub fn routes6(text: &str) -> Vec<Route> {
    let v6 = |hex: &str| u128::from_str_radix(hex, 16).map(Ipv6Addr::from);
    text.lines()
        .filter_map(|line| {
            let cols: Vec<&str> = line.split_whitespace().collect();
            let (dest, plen, next, flags, iface) = (
                cols.first()?,
                cols.get(1)?,
                cols.get(4)?,
                cols.get(8)?,
                cols.get(9)?,
            );
            Some(Route {
                destination: IpAddr::V6(v6(dest).ok()?),
                prefix: u8::from_str_radix(plen, 16).ok()?,
                gateway: IpAddr::V6(v6(next).ok()?),
                netmask: Ipv4Addr::UNSPECIFIED,
                flags: u32::from_str_radix(flags, 16).ok()?,
                iface: (*iface).to_string(),
            })
        })
        .collect()
}

/// `ip_gw`, `ip4_gw`, `ip6_gw` from `/proc/net/route` and
/// `/proc/net/ipv6_route` text: the first default route of each family, its
/// gateway address or `true` when it has none. Salt only sets these when the
/// `ip` tool exists.
pub fn gateways(route4: &str, route6: &str) -> Map {
    let gateway = |r: &Route| {
        if r.gateway.is_unspecified() {
            Value::Bool(true)
        } else {
            Value::Str(r.gateway.to_string())
        }
    };
    let gw4 = routes4(route4)
        .iter()
        .find(|r| {
            r.destination.is_unspecified() && r.netmask.is_unspecified() && r.flags & RTF_UP != 0
        })
        .map_or(Value::Bool(false), gateway);
    // Up, and not a reject ("unreachable default") route.
    let gw6 = routes6(route6)
        .iter()
        .find(|r| {
            r.destination.is_unspecified()
                && r.prefix == 0
                && r.flags & RTF_UP != 0
                && r.flags & RTF_REJECT == 0
        })
        .map_or(Value::Bool(false), gateway);
    let mut g = Map::default();
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
        return Map::default();
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
    let mut g = Map::default();
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

    fn v6(a: &str) -> Inet6 {
        Inet6 {
            address: a.parse().unwrap(),
            prefix: 64,
        }
    }

    #[test]
    fn interface_grains_shape() {
        let mut ifs = IndexMap::new();
        ifs.insert(
            "lo".to_string(),
            Interface {
                up: true,
                parent: None,
                hwaddr: Some("00:00:00:00:00:00".into()),
                inet: vec![Inet4::bare(Ipv4Addr::LOCALHOST, "lo")],
                inet6: vec![v6("::1")],
            },
        );
        ifs.insert(
            "eth0".to_string(),
            Interface {
                up: true,
                parent: None,
                hwaddr: Some("02:fc:00:00:00:01".into()),
                inet: vec![
                    Inet4::bare("10.0.0.9".parse().unwrap(), "eth0"),
                    Inet4::bare("9.0.0.1".parse().unwrap(), "eth0"),
                ],
                inet6: vec![v6("fe80::1"), v6("fd00::2")],
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
