use super::*;

/// `brine-call FUN ARGS...` against a test minion.
fn run(fun: &str, line: &[&str]) -> Result<serde_json::Value, String> {
    crate::modules::testkit::run(&mut crate::modules::testkit::minion(), fun, line)
}

#[test]
fn subnet_checks_like_python() {
    let t = |a: &[&str]| run("network.ip_in_subnet", a).unwrap();
    assert_eq!(t(&["10.1.2.3", "10.0.0.0/8"]), true);
    assert_eq!(t(&["10.1.2.3", "10.0.0.0/16"]), false);
    // A network with host bits set is no network: false, not an error.
    assert_eq!(t(&["10.1.2.3", "10.1.2.3/8"]), false);
    assert_eq!(t(&["fd00::5", "fd00::/64"]), true);
    // Integers are address numbers, as ipaddress takes them.
    assert_eq!(t(&["1", "2"]), false);
    assert_eq!(t(&["2", "2"]), true);
    let e = run("network.ip_in_subnet", &["bogus", "10.0.0.0/8"]).unwrap_err();
    assert_eq!(e, "'bogus' does not appear to be an IPv4 or IPv6 address");
    assert!(run("network.ip_in_subnet", &[])
        .unwrap_err()
        .contains("'ip_addr' and 'cidr'"));
    assert_eq!(run("network.in_subnet", &["bogus"]).unwrap(), false);
    assert_eq!(run("network.in_subnet", &["127.0.0.0/8"]).unwrap(), false);
    assert!(run("network.in_subnet", &["10.0.0.0/8", "x"])
        .unwrap_err()
        .contains("in_subnet() takes 1 positional argument but 2 were given"));
}

#[test]
fn private_ranges() {
    for a in ["10.1.1.1", "192.0.2.2", "fd00::2", "fe80::1", "127.0.0.1"] {
        assert!(is_private(a), "{a}");
    }
    for a in ["8.8.8.8", "2a00::1", "100.64.0.1"] {
        assert!(!is_private(a), "{a}");
    }
}

#[test]
fn interfaces_match_the_kernel() {
    let v = run("network.interfaces", &[]).unwrap();
    let names: BTreeSet<String> = v.as_object().unwrap().keys().cloned().collect();
    let sys: BTreeSet<String> = std::fs::read_dir("/sys/class/net")
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, sys);
    let lo = &v["lo"];
    assert_eq!(lo["up"], true);
    assert_eq!(lo["hwaddr"], "00:00:00:00:00:00");
    assert_eq!(
        lo["inet"][0],
        serde_json::json!({"address": "127.0.0.1", "netmask": "255.0.0.0",
                           "broadcast": null, "label": "lo"})
    );
    if let Some(v6) = lo.get("inet6") {
        assert_eq!(
            v6[0],
            serde_json::json!({"address": "::1", "prefixlen": "128", "scope": "host"})
        );
    }
    // Up as /sys says (IFF_UP in its flags).
    for name in &names {
        let flags = read_text(format!("/sys/class/net/{name}/flags")).unwrap();
        let flags = u32::from_str_radix(flags.trim().trim_start_matches("0x"), 16).unwrap();
        assert_eq!(v[name]["up"], flags & 1 == 1, "{name}");
    }
    assert_eq!(
        run("network.hw_addr", &["lo"]).unwrap(),
        "00:00:00:00:00:00"
    );
    let missing = run("network.hw_addr", &["nope0"]).unwrap();
    assert!(missing
        .as_str()
        .unwrap()
        .starts_with("Interface \"nope0\" not in available interfaces: \""));
    let lo_addrs = run(
        "network.ip_addrs",
        &["interface=lo", "include_loopback=True"],
    )
    .unwrap();
    assert_eq!(lo_addrs, serde_json::json!(["127.0.0.1"]));
    assert!(!run("network.ip_addrs", &[])
        .unwrap()
        .as_array()
        .unwrap()
        .contains(&serde_json::json!("127.0.0.1")));
}

#[test]
fn routes_as_netstat_shows_them() {
    let r4 =
        "Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT\n\
              eth0\t00000000\t010200C0\t0003\t0\t0\t0\t00000000\t0\t0\t0\n\
              eth0\t000200C0\t00000000\t0001\t0\t0\t0\t00FFFFFF\t0\t0\t0\n";
    let routes = gnet::routes4(r4);
    let v: Vec<Value> = routes.iter().map(|r| route_value("inet", r)).collect();
    assert_eq!(
        Value::List(v).to_python_repr(),
        "[{'addr_family': 'inet', 'destination': '0.0.0.0', 'gateway': '192.0.2.1', \
         'netmask': '0.0.0.0', 'flags': 'UG', 'interface': 'eth0'}, \
         {'addr_family': 'inet', 'destination': '192.0.2.0', 'gateway': '0.0.0.0', \
         'netmask': '255.255.255.0', 'flags': 'U', 'interface': 'eth0'}]"
    );
    let r6 = "00000000000000000000000000000000 00 00000000000000000000000000000000 00 fd000000000000000000000000000001 00000400 00000001 00000000 00000003 eth0\n\
              00000000000000000000000000000001 80 00000000000000000000000000000000 00 00000000000000000000000000000000 00000000 00000003 00000000 80200001 lo\n\
              00000000000000000000000000000000 00 00000000000000000000000000000000 00 00000000000000000000000000000000 ffffffff 00000001 00000000 00200200 lo\n";
    let v: Vec<String> = gnet::routes6(r6)
        .iter()
        .map(|r| route_value("inet6", r).to_python_repr())
        .collect();
    assert_eq!(
        v,
        [
            "{'addr_family': 'inet6', 'destination': '::/0', 'gateway': 'fd00::1', 'netmask': '', 'flags': 'UG', 'interface': 'eth0'}",
            "{'addr_family': 'inet6', 'destination': '::1/128', 'gateway': '::', 'netmask': '', 'flags': 'Un', 'interface': 'lo'}",
            "{'addr_family': 'inet6', 'destination': '::/0', 'gateway': '::', 'netmask': '', 'flags': '!n', 'interface': 'lo'}",
        ]
    );
    // This host: one entry per table line.
    let all = run("network.routes", &[]).unwrap();
    let lines = read_text("/proc/net/route").map_or(0, |t| t.lines().count().saturating_sub(1))
        + read_text("/proc/net/ipv6_route").map_or(0, |t| t.lines().count());
    assert_eq!(all.as_array().unwrap().len(), lines);
    assert_eq!(
        run("network.routes", &["bogus"]).unwrap_err(),
        "Invalid address family bogus"
    );
    for d in run("network.default_route", &["inet"])
        .unwrap()
        .as_array()
        .unwrap()
    {
        assert_eq!(d["destination"], "0.0.0.0");
    }
}

#[test]
fn names_and_connect() {
    assert_eq!(run("network.get_hostname", &[]).unwrap(), gnet::hostname());
    assert!(!run("network.get_fqdn", &[])
        .unwrap()
        .as_str()
        .unwrap()
        .is_empty());
    // A port nothing listens on: refused at once.
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = l.local_addr().unwrap().port().to_string();
    let ok = run("network.connect", &["127.0.0.1", &port]).unwrap();
    assert_eq!(ok["result"], true);
    assert_eq!(
        ok["comment"],
        format!("Successfully connected to 127.0.0.1 (127.0.0.1) on tcp port {port}")
    );
    drop(l);
    let no = run("network.connect", &["127.0.0.1", &port]).unwrap();
    assert_eq!(no["result"], false);
    assert_eq!(
        run("network.connect", &["127.0.0.1"]).unwrap()["comment"],
        "Required argument, port, is missing."
    );
    assert_eq!(sanitize_host("a b;c.d-e_f"), "abc.d-e_f");
}

#[test]
fn secondary_addresses_as_ip_shows_them() {
    use crate::grains::net::{Inet4, Inet6};
    let mut ifs = IndexMap::new();
    let a = |ip: &str, prefix: u8, label: &str| Inet4 {
        address: ip.parse().unwrap(),
        prefix,
        broadcast: None,
        label: label.into(),
    };
    ifs.insert(
        "eth0".to_string(),
        Interface {
            up: true,
            parent: None,
            hwaddr: None,
            inet: vec![
                a("10.0.0.2", 24, "eth0"),
                a("10.0.0.3", 24, "eth0:1"),
                a("10.1.0.2", 16, "eth0"),
            ],
            inet6: vec![Inet6 {
                address: "fe80::1".parse().unwrap(),
                prefix: 64,
            }],
        },
    );
    assert_eq!(
        interfaces_value(&ifs).to_python_repr(),
        "{'eth0': {'up': True, 'inet': [{'address': '10.0.0.2', 'netmask': '255.255.255.0', \
         'broadcast': None, 'label': 'eth0'}, {'address': '10.1.0.2', 'netmask': '255.255.0.0', \
         'broadcast': None, 'label': 'eth0'}], 'secondary': [{'type': 'inet', 'address': '10.0.0.3', \
         'netmask': '255.255.255.0', 'broadcast': None, 'label': 'eth0:1'}], 'inet6': \
         [{'address': 'fe80::1', 'prefixlen': '64', 'scope': 'link'}]}}"
    );
}
