//! The ipcidr matcher: a single address or a network (CIDR, or an IPv4
//! netmask/hostmask) against the `ipv4` / `ipv6` grains. Parsing follows
//! Python 3.11's `ipaddress` strictly: no leading zeros in IPv4 octets, host
//! bits set in a network are an error, IPv6 scope ids (`%eth0`) allowed.

use brine_core::Value;

/// A parsed address: version and the integer, plus the scope id Python keeps
/// in `str()` of an IPv6 address.
#[derive(Debug, Clone, PartialEq)]
pub struct Address {
    v6: bool,
    bits: u128,
    scope: Option<String>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Network {
    v6: bool,
    bits: u128,
    prefix: u32,
}

/// The parsed target.
#[derive(Debug, Clone, PartialEq)]
pub enum Target {
    Address(Address),
    Network(Network),
}

/// What the ipcidr matcher answers.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    Match(bool),
    /// The target is no address and no network: Salt logs it and returns
    /// `[]` (which a compound expression sees as a false `[]`).
    InvalidTarget,
}

/// Where Salt's ipcidr matcher raises: the `ipv4`/`ipv6` grain (`grain`)
/// holds something it cannot read, in Python's words.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum IpcidrError {
    /// The grain is no list, string or dict (`str(tgt) in grain`).
    #[error("argument of type '{type_name}' is not iterable")]
    NotIterable {
        grain: &'static str,
        type_name: &'static str,
    },
    /// An entry of the grain is no address (`repr` is its Python repr).
    #[error("{repr} does not appear to be an IPv4 or IPv6 address")]
    NotAnAddress { grain: &'static str, repr: String },
}

/// `salt/matchers/ipcidr_match.py`. `Err` where Salt raises: a grain
/// entry that is not an address.
pub fn ipcidr_match(tgt: &str, grains: &Value) -> Result<Outcome, IpcidrError> {
    let Some(target) = parse_target(tgt) else {
        tracing::error!("Invalid IP/CIDR target: {tgt}");
        return Ok(Outcome::InvalidTarget);
    };
    let v6 = match &target {
        Target::Address(a) => a.v6,
        Target::Network(n) => n.v6,
    };
    let proto = if v6 { "ipv6" } else { "ipv4" };
    let Some(addrs) = grains.get(proto) else {
        return Ok(Outcome::Match(false));
    };
    match target {
        // `str(tgt) in grains[proto]`
        Target::Address(a) => {
            let text = a.to_string();
            match addrs {
                Value::List(items) => Ok(Outcome::Match(
                    items.iter().any(|i| i.as_str() == Some(text.as_str())),
                )),
                Value::Str(s) => Ok(Outcome::Match(s.contains(&text))),
                Value::Map(m) => Ok(Outcome::Match(m.contains_key(&text))),
                other => Err(IpcidrError::NotIterable {
                    grain: proto,
                    type_name: other.type_name(),
                }),
            }
        }
        // salt.utils.network.in_subnet: any address of the grain inside.
        Target::Network(net) => {
            let one;
            let items: &[Value] = match addrs {
                Value::List(items) => items,
                other => {
                    one = [other.clone()];
                    &one
                }
            };
            for item in items {
                let addr = match item {
                    Value::Str(s) => parse_address(s),
                    Value::Int(i) => u128::try_from(*i).ok().map(|bits| Address {
                        v6: bits > u128::from(u32::MAX),
                        bits,
                        scope: None,
                    }),
                    _ => None,
                }
                .ok_or_else(|| IpcidrError::NotAnAddress {
                    grain: proto,
                    repr: item.to_python_repr(),
                })?;
                if net.contains(&addr) {
                    return Ok(Outcome::Match(true));
                }
            }
            Ok(Outcome::Match(false))
        }
    }
}

/// `ipaddress.ip_address(tgt)`, else `ipaddress.ip_network(tgt)`.
pub fn parse_target(tgt: &str) -> Option<Target> {
    if let Some(a) = parse_address(tgt) {
        return Some(Target::Address(a));
    }
    parse_network(tgt).map(Target::Network)
}

impl Network {
    /// `addr in network`: same version, inside the prefix.
    pub fn contains(&self, addr: &Address) -> bool {
        addr.v6 == self.v6 && addr.bits & netmask(self.v6, self.prefix) == self.bits
    }
}

fn netmask(v6: bool, prefix: u32) -> u128 {
    let width = if v6 { 128 } else { 32 };
    let all: u128 = if v6 { u128::MAX } else { u128::from(u32::MAX) };
    if prefix == 0 {
        0
    } else {
        all & !((1u128 << (width - prefix)) - 1) & all
    }
}

impl std::fmt::Display for Address {
    /// Python's `str()`: dotted quad, or RFC 5952 compressed IPv6 (the
    /// longest run of two or more zero groups, the first on a tie; IPv4-mapped
    /// addresses stay in hex in Python 3.11).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if !self.v6 {
            let b = self.bits;
            return write!(
                f,
                "{}.{}.{}.{}",
                (b >> 24) & 0xff,
                (b >> 16) & 0xff,
                (b >> 8) & 0xff,
                b & 0xff
            );
        }
        let groups: Vec<u128> = (0..8)
            .map(|i| (self.bits >> (112 - 16 * i)) & 0xffff)
            .collect();
        let (mut best_start, mut best_len) = (0usize, 0usize);
        let mut i = 0;
        while i < 8 {
            if groups.get(i) == Some(&0) {
                let start = i;
                while groups.get(i) == Some(&0) {
                    i += 1;
                }
                if i - start > best_len {
                    best_start = start;
                    best_len = i - start;
                }
            } else {
                i += 1;
            }
        }
        let hex = |g: &[u128]| {
            g.iter()
                .map(|x| format!("{x:x}"))
                .collect::<Vec<_>>()
                .join(":")
        };
        if best_len > 1 {
            let head = hex(groups.get(..best_start).unwrap_or(&[]));
            let tail = hex(groups.get(best_start + best_len..).unwrap_or(&[]));
            write!(f, "{head}::{tail}")?;
        } else {
            write!(f, "{}", hex(&groups))?;
        }
        if let Some(scope) = &self.scope {
            write!(f, "%{scope}")?;
        }
        Ok(())
    }
}

/// `ipaddress.ip_address(s)` for a string.
pub fn parse_address(s: &str) -> Option<Address> {
    if let Some(bits) = parse_v4(s) {
        return Some(Address {
            v6: false,
            bits: u128::from(bits),
            scope: None,
        });
    }
    if s.contains('/') {
        return None;
    }
    let (addr, scope) = match s.split_once('%') {
        Some((addr, scope)) => {
            if scope.is_empty() || scope.contains('%') {
                return None;
            }
            (addr, Some(scope.to_string()))
        }
        None => (s, None),
    };
    parse_v6(addr).map(|bits| Address {
        v6: true,
        bits,
        scope,
    })
}

/// `ipaddress.ip_network(s)` (strict): `addr[/prefix]`.
pub fn parse_network(s: &str) -> Option<Network> {
    let parts: Vec<&str> = s.split('/').collect();
    let (addr, mask) = match parts.as_slice() {
        [addr] => (*addr, None),
        [addr, mask] => (*addr, Some(*mask)),
        _ => return None,
    };
    let (v6, bits) = match parse_v4(addr) {
        Some(bits) => (false, u128::from(bits)),
        None => {
            let bare = match addr.split_once('%') {
                Some((a, scope)) if !scope.is_empty() && !scope.contains('%') => a,
                Some(_) => return None,
                None => addr,
            };
            (true, parse_v6(bare)?)
        }
    };
    let width = if v6 { 128 } else { 32 };
    let prefix = match mask {
        None => width,
        Some(m) if !m.is_empty() && m.chars().all(|c| c.is_ascii_digit()) => {
            let p: u32 = m.parse().ok()?;
            if p > width {
                return None;
            }
            p
        }
        // IPv4 also takes a netmask (255.255.255.0) or hostmask (0.0.0.255).
        Some(m) if !v6 => {
            let mask = parse_v4(m)?;
            prefix_from_mask(mask).or_else(|| prefix_from_mask(!mask))?
        }
        Some(_) => return None,
    };
    // strict=True: host bits set is an error.
    if bits & !netmask(v6, prefix) & if v6 { u128::MAX } else { u128::from(u32::MAX) } != 0 {
        return None;
    }
    Some(Network { v6, bits, prefix })
}

/// Prefix length of a contiguous IPv4 netmask.
fn prefix_from_mask(mask: u32) -> Option<u32> {
    let zeros = if mask == 0 { 32 } else { mask.trailing_zeros() };
    let prefix = 32 - zeros;
    let ones = if zeros >= 32 { 0 } else { mask >> zeros };
    let all_ones = if prefix == 0 {
        0
    } else {
        u32::MAX >> (32 - prefix)
    };
    (ones == all_ones).then_some(prefix)
}

/// Python's IPv4 parsing: four decimal octets, no leading zeros.
fn parse_v4(s: &str) -> Option<u32> {
    let octets: Vec<&str> = s.split('.').collect();
    if octets.len() != 4 {
        return None;
    }
    let mut bits = 0u32;
    for o in octets {
        if o.is_empty() || o.len() > 3 || !o.chars().all(|c| c.is_ascii_digit()) {
            return None;
        }
        if o.len() > 1 && o.starts_with('0') {
            return None;
        }
        let v: u32 = o.parse().ok()?;
        if v > 255 {
            return None;
        }
        bits = (bits << 8) | v;
    }
    Some(bits)
}

/// Python's IPv6 parsing (without the scope id).
fn parse_v6(s: &str) -> Option<u128> {
    let mut parts: Vec<String> = s.split(':').map(str::to_string).collect();
    if parts.len() < 3 {
        return None;
    }
    if parts.last().is_some_and(|p| p.contains('.')) {
        let v4 = parse_v4(parts.pop().as_deref().unwrap_or(""))?;
        parts.push(format!("{:x}", (v4 >> 16) & 0xffff));
        parts.push(format!("{:x}", v4 & 0xffff));
    }
    if parts.len() > 9 {
        return None;
    }
    let n = parts.len();
    let mut skip_index = None;
    for (i, p) in parts.iter().enumerate().take(n - 1).skip(1) {
        if p.is_empty() {
            if skip_index.is_some() {
                return None;
            }
            skip_index = Some(i);
        }
    }
    let first_empty = parts.first().is_some_and(|p| p.is_empty());
    let last_empty = parts.last().is_some_and(|p| p.is_empty());
    let (hi, lo, skipped) = match skip_index {
        Some(skip) => {
            let mut hi = skip;
            let mut lo = n - skip - 1;
            if first_empty {
                if hi != 1 {
                    return None;
                }
                hi -= 1;
            }
            if last_empty {
                if lo != 1 {
                    return None;
                }
                lo -= 1;
            }
            let skipped = 8usize.checked_sub(hi + lo)?;
            if skipped < 1 {
                return None;
            }
            (hi, lo, skipped)
        }
        None => {
            if n != 8 || first_empty || last_empty {
                return None;
            }
            (n, 0, 0)
        }
    };
    let hextet = |p: &str| -> Option<u128> {
        if p.is_empty() || p.len() > 4 || !p.chars().all(|c| c.is_ascii_hexdigit()) {
            return None;
        }
        u128::from_str_radix(p, 16).ok()
    };
    let mut bits = 0u128;
    for p in parts.iter().take(hi) {
        bits = (bits << 16) | hextet(p)?;
    }
    for _ in 0..skipped {
        bits <<= 16;
    }
    for p in parts.iter().skip(n - lo).take(lo) {
        bits = (bits << 16) | hextet(p)?;
    }
    Some(bits)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn addr(s: &str) -> Option<String> {
        parse_address(s).map(|a| a.to_string())
    }

    /// `str(ipaddress.ip_address(s))` in CPython 3.11.7, `None` = ValueError.
    #[test]
    fn addresses_like_python() {
        assert_eq!(addr("10.10.100.7").as_deref(), Some("10.10.100.7"));
        assert_eq!(addr("010.10.100.7"), None);
        assert_eq!(addr("256.1.1.1"), None);
        assert_eq!(addr("1.2.3"), None);
        assert_eq!(addr("::ffff:1.2.3.4").as_deref(), Some("::ffff:102:304"));
        assert_eq!(addr("::1.2.3.4").as_deref(), Some("::102:304"));
        assert_eq!(
            addr("2001:DB8:0:0:1:0:0:1").as_deref(),
            Some("2001:db8::1:0:0:1")
        );
        assert_eq!(addr("fe80::1%eth0").as_deref(), Some("fe80::1%eth0"));
        assert_eq!(addr("fe80::1%"), None);
        assert_eq!(addr("::").as_deref(), Some("::"));
        assert_eq!(addr("1::").as_deref(), Some("1::"));
        assert_eq!(addr(":1::"), None);
        assert_eq!(addr("1:2:3:4:5:6:7::").as_deref(), Some("1:2:3:4:5:6:7:0"));
        assert_eq!(addr("1:2:3:4:5:6:7:8:9"), None);
        assert_eq!(addr("1::2::3"), None);
        assert_eq!(addr("1:0:0:2:0:0:0:3").as_deref(), Some("1:0:0:2::3"));
        assert_eq!(addr("1:0:0:2:0:0:3:4").as_deref(), Some("1::2:0:0:3:4"));
        assert_eq!(addr("12345::"), None);
    }

    /// (text, `str(ip_address(text))`, `ip_network(text)` as (is v6,
    /// prefix)) from CPython 3.11.7, `None` where it raises ValueError.
    type Case = (&'static str, Option<&'static str>, Option<(bool, u32)>);
    const CASES: &[Case] = include!("testdata/ip_cases.rs");

    #[test]
    fn parsing_matches_cpython_ipaddress() {
        let mut bad = Vec::new();
        for (text, want_addr, want_net) in CASES {
            let got_addr = addr(text);
            let got_net = parse_network(text).map(|n| (n.v6, n.prefix));
            if got_addr.as_deref() != *want_addr || got_net != *want_net {
                bad.push(format!(
                    "{text:?}: python {want_addr:?} {want_net:?}, brine {got_addr:?} {got_net:?}"
                ));
            }
        }
        assert!(
            bad.is_empty(),
            "{} mismatches:\n{}",
            bad.len(),
            bad.join("\n")
        );
    }

    #[test]
    fn grain_errors_read_like_python() {
        let grains = Value::from_json(&serde_json::json!({"ipv4": ["10.0.0.1", "x"], "ipv6": 1}));
        let err = |tgt: &str| ipcidr_match(tgt, &grains).map_err(|e| e.to_string());
        assert_eq!(
            err("192.168.0.0/16"),
            Err("'x' does not appear to be an IPv4 or IPv6 address".into())
        );
        assert_eq!(
            err("::1"),
            Err("argument of type 'int' is not iterable".into())
        );
        assert_eq!(err("10.0.0.0/8"), Ok(Outcome::Match(true)));
    }

    #[test]
    fn networks_like_python() {
        let net = |s: &str| parse_network(s).map(|n| (n.v6, n.prefix));
        assert_eq!(net("10.10.100.0/24"), Some((false, 24)));
        assert_eq!(net("10.10.100.7/24"), None);
        assert_eq!(net("10.10.100.0/024"), Some((false, 24)));
        assert_eq!(net("10.10.100.0/+24"), None);
        assert_eq!(net("10.10.100.0/33"), None);
        assert_eq!(net("10.10.100.0/255.255.255.0"), Some((false, 24)));
        assert_eq!(net("10.10.100.0/0.0.0.255"), Some((false, 24)));
        assert_eq!(net("10.10.100.0/255.0.255.0"), None);
        assert_eq!(net("0.0.0.0/0"), Some((false, 0)));
        assert_eq!(net("2001:db8::/32"), Some((true, 32)));
        assert_eq!(net("2001:db8::1/32"), None);
        assert_eq!(net("::/0"), Some((true, 0)));
        assert_eq!(net("1.2.3.4/32/1"), None);
    }
}
