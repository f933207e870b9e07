//! Core grains read from the running system, the way Salt's
//! `salt/grains/core.py` (and its `extra`, `disks`, `minion_process`
//! companions) computes them on Linux.
//!
//! Keys come in the order `salt-call grains.items` lists them. Everything is
//! read from `/proc`, `/sys`, `/etc` and libc in-process: Salt runs `ip`,
//! `dpkg`, `systemd-detect-virt`, `lspci`… and spends about a second here;
//! brine spends milliseconds. The one exception is the `systemd` grain,
//! whose feature list only `systemctl --version` knows.
//!
//! The version grains formulas read say what brine answers as: Salt
//! 3007.8 (`saltversion`, `saltversioninfo`) on the Python 3 that release
//! was measured with (`pythonversion`; formulas pick `python3-*` packages
//! by its first number); `brineversion` is brine's own. `fqdns` is empty,
//! as Salt leaves it unless `enable_fqdns_grains` is set; `master` comes
//! from the minion's options (see `context`).
//!
//! Left out on purpose: `pythonexecutable`, `pythonpath`, `zmqversion`
//! (there is no Python or libzmq), the `zpool` grain (only `zpool list`
//! knows it), and the non-Linux code paths.

pub mod net;
pub mod osinfo;
pub mod system;

use brine_core::{Map, Value};
use brine_host::sys::Family;
use sha2::{Digest, Sha256};
use system::read_text;

/// The Salt release whose answers brine gives.
pub const SALT_VERSION: &str = "3007.8";
const SALT_VERSION_INFO: [i64; 2] = [3007, 8];

/// The grains Salt computes for this host, for a minion named `minion_id`.
pub fn core_grains(minion_id: &str) -> Map {
    core_grains_cached(minion_id, None)
}

/// [`core_grains`], keeping what only a spawned program can tell (the
/// `systemd` grain) in `cachedir` between runs, keyed by that program's
/// size and mtime so that an upgrade is noticed.
pub fn core_grains_cached(minion_id: &str, cachedir: Option<&std::path::Path>) -> Map {
    let mut g = Map::default();
    let put = |g: &mut Map, k: &str, v: Value| {
        g.insert(k.to_string(), v);
    };

    if let Ok(cwd) = std::env::current_dir() {
        put(&mut g, "cwd", cwd.to_string_lossy().into_owned().into());
    }
    g.extend(net::gateway_grains());
    if let Some(dns) = net::dns_grain() {
        put(&mut g, "dns", dns);
    }
    if let Some(mid) = ["/etc/machine-id", "/var/lib/dbus/machine-id"]
        .iter()
        .find(|p| std::path::Path::new(p).exists())
        .and_then(read_text)
    {
        put(&mut g, "machine_id", mid.trim().into());
    }
    put(&mut g, "server_id", Value::Int(server_id(minion_id)));

    let localhost = net::hostname();
    let fqdn = match net::fqdn(&localhost) {
        f if f.is_empty() => "localhost.localdomain".to_string(),
        f => f,
    };
    let (host, domain) = fqdn.split_once('.').unwrap_or((&fqdn, ""));
    put(&mut g, "localhost", localhost.as_str().into());
    put(&mut g, "fqdn", fqdn.as_str().into());
    put(&mut g, "host", host.into());
    put(&mut g, "domain", domain.into());

    let ifaces = net::interfaces();
    let mut ig = net::interface_grains(&ifaces);
    put(
        &mut g,
        "hwaddr_interfaces",
        ig.shift_remove("hwaddr_interfaces").unwrap_or_default(),
    );
    put(&mut g, "id", minion_id.into());
    for key in ["ip4_interfaces", "ip6_interfaces", "ipv4", "ipv6"] {
        put(&mut g, key, ig.shift_remove(key).unwrap_or_default());
    }
    for (family, key, ipkey) in [
        (Family::V4, "fqdn_ip4", "ipv4"),
        (Family::V6, "fqdn_ip6", "ipv6"),
    ] {
        // Salt skips the lookup for a family the host has no address in.
        let has_any = g.get(ipkey).is_some_and(Value::is_truthy);
        let ips = if has_any {
            net::resolve(&fqdn, family)
                .iter()
                .map(|ip| ip.to_string().into())
                .collect()
        } else {
            Vec::new()
        };
        put(&mut g, key, Value::List(ips));
    }
    put(
        &mut g,
        "ip_interfaces",
        ig.shift_remove("ip_interfaces").unwrap_or_default(),
    );
    if let Some(cmdline) = read_text("/proc/cmdline") {
        put(&mut g, "kernelparams", system::parse_kernelparams(&cmdline));
    }
    put(&mut g, "locale_info", Value::Map(system::locale_info()));

    // os_data()
    g.extend(system::gpu_data());
    let un = system::uname();
    put(&mut g, "kernel", un.sysname.as_str().into());
    put(&mut g, "nodename", un.nodename.as_str().into());
    put(&mut g, "kernelrelease", un.release.as_str().into());
    put(&mut g, "kernelversion", un.version.as_str().into());
    put(&mut g, "cpuarch", un.machine.as_str().into());
    if let Some(se) = system::selinux() {
        put(&mut g, "selinux", se);
    }
    if let Some(sd) = system::systemd_cached(cachedir) {
        put(&mut g, "systemd", sd);
    }
    put(&mut g, "init", system::init_system().into());
    g.extend(osinfo::distribution_grains(&distro_files()));
    let cpuinfo = read_text("/proc/cpuinfo").unwrap_or_default();
    g.extend(system::parse_cpuinfo(&cpuinfo));
    let os_family = str_of(&g, "os_family");
    put(
        &mut g,
        "osarch",
        osinfo::osarch(&os_family, &un.machine).into(),
    );
    g.extend(system::parse_meminfo(
        &read_text("/proc/meminfo").unwrap_or_default(),
    ));
    g.extend(system::hw_data());
    let virt = system::virtual_grains(&cpuinfo);
    let is_openvzhn = virt.get("virtual").and_then(Value::as_str) == Some("openvzhn");
    g.extend(virt);
    let ps = ps_command(&str_of(&g, "os"), &os_family, is_openvzhn);
    put(&mut g, "ps", ps.into());
    let osrelease = str_of(&g, "osrelease");
    if !osrelease.is_empty() {
        let data = osinfo::osrelease_data(&str_of(&g, "os"), &str_of(&g, "osfullname"), &osrelease);
        g.extend(data);
    }

    let path = std::env::var("PATH").unwrap_or_default();
    let path = path.trim();
    put(&mut g, "path", path.into());
    put(
        &mut g,
        "systempath",
        Value::List(path.split(':').map(Value::from).collect()),
    );
    put(&mut g, "brineversion", env!("CARGO_PKG_VERSION").into());
    put(&mut g, "saltversion", SALT_VERSION.into());
    put(
        &mut g,
        "saltversioninfo",
        Value::List(SALT_VERSION_INFO.iter().map(|&n| Value::Int(n)).collect()),
    );
    put(
        &mut g,
        "pythonversion",
        Value::List(vec![
            Value::Int(3),
            Value::Int(11),
            Value::Int(7),
            Value::from("final"),
            Value::Int(0),
        ]),
    );
    put(&mut g, "fqdns", Value::List(Vec::new()));
    if let Some(dir) = std::env::current_exe()
        .ok()
        .and_then(|e| e.parent().map(|d| d.display().to_string()))
    {
        put(&mut g, "saltpath", dir.into());
    }
    g.extend(system::disks());
    put(
        &mut g,
        "shell",
        std::env::var("SHELL")
            .unwrap_or_else(|_| "/bin/sh".into())
            .into(),
    );
    put(
        &mut g,
        "transactional",
        Value::Bool(brine_host::path::which("transactional-update").is_some()),
    );
    g.extend(system::uefi());
    g.extend(system::process_grains());
    // Salt's `package` grain is how Salt itself was installed (its
    // `_pkg.txt`); a pip install has none and says None, as brine does.
    put(&mut g, "package", Value::Null);
    g.extend(zfs_grains());
    g
}

/// Salt's `zfs_support` and `zfs_feature_flags`, from files instead of the
/// programs Salt asks: ZFS is supported when the kernel module is loaded
/// and `zpool` is on the PATH; feature flags when `man zpool-features`
/// would succeed, that is when `man` is on the PATH and the page is
/// installed. (With ZFS present Salt also runs `zpool list` for a `zpool`
/// grain, which brine leaves out.)
fn zfs_grains() -> Map {
    use brine_host::path::which;
    let mut g = Map::default();
    let support = std::path::Path::new("/sys/module/zfs").exists() && which("zpool").is_some();
    let man_page = ["/usr/share/man", "/usr/local/share/man"]
        .iter()
        .any(|root| {
            ["man5", "man7"].iter().any(|sec| {
                std::fs::read_dir(std::path::Path::new(root).join(sec))
                    .map(|entries| {
                        entries.flatten().any(|e| {
                            e.file_name()
                                .to_string_lossy()
                                .starts_with("zpool-features.")
                        })
                    })
                    .unwrap_or(false)
            })
        });
    g.insert("zfs_support".into(), Value::Bool(support));
    g.insert(
        "zfs_feature_flags".into(),
        Value::Bool(man_page && which("man").is_some()),
    );
    g
}

/// Salt's `server_id`: the minion id's SHA-256, modulo 2³¹.
pub fn server_id(minion_id: &str) -> i64 {
    let digest = Sha256::digest(minion_id.as_bytes());
    // The number modulo 2^31 is its last 31 bits.
    let tail = digest
        .iter()
        .skip(28)
        .fold(0u32, |acc, b| (acc << 8) | u32::from(*b));
    i64::from(tail & 0x7fff_ffff)
}

/// The `ps` grain: the command Salt's `ps` module lists processes with.
fn ps_command(os: &str, os_family: &str, openvzhn: bool) -> String {
    if ["FreeBSD", "NetBSD", "OpenBSD", "MacOS"].contains(&os) {
        "ps auxwww".into()
    } else if os_family == "Solaris" {
        "/usr/ucb/ps auxwww".into()
    } else if openvzhn {
        "ps -fH -p $(grep -l \"^envID:[[:space:]]*0\\$\" /proc/[0-9]*/status | \
         sed -e \"s=/proc/\\([0-9]*\\)/.*=\\1=\")  | awk '{ $7=\"\"; print }'"
            .into()
    } else if os_family == "AIX" {
        "/usr/bin/ps auxww".into()
    } else if os_family == "NILinuxRT" {
        "ps -o user,pid,ppid,tty,time,comm".into()
    } else {
        "ps -efHww".into()
    }
}

fn str_of(g: &Map, key: &str) -> String {
    g.get(key).and_then(Value::as_str).unwrap_or("").to_string()
}

/// The distribution files of this host.
fn distro_files() -> osinfo::DistroFiles {
    let distro_release = [
        "/etc/centos-release",
        "/etc/almalinux-release",
        "/etc/rocky-release",
        "/etc/redhat-release",
        "/etc/fedora-release",
        "/etc/system-release",
    ]
    .iter()
    .find_map(read_text);
    osinfo::DistroFiles {
        os_release: read_text("/etc/os-release").or_else(|| read_text("/usr/lib/os-release")),
        lsb_release: read_text("/etc/lsb-release"),
        distro_release,
    }
}

/// The grains written by `grains.setval` and friends: the YAML dict in
/// the `grains` file next to the minion's configuration. A file that is
/// missing or not a dict gives none (Salt warns and skips a bad one).
pub fn file_grains(path: &std::path::Path) -> Map {
    let Ok(text) = std::fs::read_to_string(path) else {
        return Map::default();
    };
    match brine_core::yaml::load(&text) {
        Ok(Value::Map(m)) => m,
        Ok(_) => Map::default(),
        Err(e) => {
            tracing::warn!(
                "Bad syntax in grains file! Skipping. ({}: {e})",
                path.display()
            );
            Map::default()
        }
    }
}

/// Lay the grains file's grains over the computed ones: a plain update, or
/// Salt's recursive one with `grains_deep_merge: True`.
pub fn merge_file(core: Map, file: Map, deep: bool) -> Map {
    let mut out = core;
    if deep {
        brine_compile::pillar::merge::update(&mut out, file, false);
    } else {
        out.extend(file);
    }
    out
}

/// Lay the static grains (the minion config's `grains:`) over the computed
/// ones. Salt replaces whole top-level keys — a static `locale_info:
/// {timezone: X}` drops the computed `defaultlanguage` — and does so even
/// with `grains_deep_merge: True`, because it applies the config grains with
/// a plain update before the deep merge. A replaced key keeps its place; new
/// keys come last.
pub fn merge_static(core: Map, static_grains: &Map) -> Map {
    let mut out = core;
    for (k, v) in static_grains {
        out.insert(k.clone(), v.clone());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Instant;

    #[test]
    fn server_id_matches_salt() {
        // salt-call grains.item server_id with id: m1
        assert_eq!(server_id("m1"), 890885657);
    }

    #[test]
    fn core_grains_have_salts_shape() {
        let start = Instant::now();
        let g = core_grains("m1");
        let took = start.elapsed();
        // Salt takes ~1s; brine takes a few ms here. The bound is loose
        // because resolving the host name may go to DNS on other machines.
        assert!(took.as_millis() < 3000, "core grains took {took:?}");

        let is_str = |k: &str| matches!(g.get(k), Some(Value::Str(_)));
        let is_int = |k: &str| matches!(g.get(k), Some(Value::Int(_)));
        let is_list = |k: &str| matches!(g.get(k), Some(Value::List(_)));
        let is_map = |k: &str| matches!(g.get(k), Some(Value::Map(_)));
        for k in [
            "id",
            "host",
            "fqdn",
            "domain",
            "localhost",
            "nodename",
            "os",
            "os_family",
            "osrelease",
            "oscodename",
            "osfullname",
            "osarch",
            "cpuarch",
            "kernel",
            "kernelrelease",
            "kernelversion",
            "cpu_model",
            "init",
            "virtual",
            "path",
            "shell",
            "username",
            "groupname",
            "ps",
        ] {
            assert!(is_str(k), "{k} should be a string: {:?}", g.get(k));
        }
        for k in [
            "num_cpus",
            "mem_total",
            "swap_total",
            "uid",
            "gid",
            "pid",
            "num_gpus",
            "server_id",
        ] {
            assert!(is_int(k), "{k} should be an int: {:?}", g.get(k));
        }
        for k in [
            "ipv4",
            "ipv6",
            "fqdn_ip4",
            "fqdn_ip6",
            "cpu_flags",
            "systempath",
            "gpus",
            "disks",
            "ssds",
        ] {
            assert!(is_list(k), "{k} should be a list: {:?}", g.get(k));
        }
        for k in [
            "ip_interfaces",
            "ip4_interfaces",
            "ip6_interfaces",
            "hwaddr_interfaces",
            "locale_info",
        ] {
            assert!(is_map(k), "{k} should be a dict: {:?}", g.get(k));
        }
        assert_eq!(g["id"], Value::from("m1"));
        assert_eq!(g["kernel"], Value::from("Linux"));
        assert!(g["mem_total"].as_i64().unwrap_or(0) > 0);
        assert!(g["num_cpus"].as_i64().unwrap_or(0) > 0);
        let ipv4 = g["ipv4"].as_list().unwrap_or(&[]);
        assert!(ipv4.contains(&Value::from("127.0.0.1")), "{ipv4:?}");
        // os_family follows os through Salt's table.
        let os = str_of(&g, "os");
        assert_eq!(str_of(&g, "os_family"), osinfo::os_family_of(&os));
        if !str_of(&g, "osrelease").is_empty() {
            assert!(matches!(g.get("osrelease_info"), Some(Value::List(_))));
            assert!(str_of(&g, "osfinger").contains('-'));
        }
        // The host name is the fqdn's first label.
        let fqdn = str_of(&g, "fqdn");
        assert!(fqdn.starts_with(&str_of(&g, "host")));
        // Every address listed per interface is in the flat lists.
        if let Some(Value::Map(per_if)) = g.get("ip4_interfaces") {
            for addrs in per_if.values() {
                for a in addrs.as_list().unwrap_or(&[]) {
                    assert!(ipv4.contains(a));
                }
            }
        }
        let uid = g["uid"].as_i64().unwrap_or(-1);
        assert!(uid >= 0);
        // The last three, in Salt's order.
        let keys: Vec<&str> = g.keys().map(String::as_str).collect();
        assert_eq!(
            keys[keys.len() - 3..],
            ["package", "zfs_support", "zfs_feature_flags"]
        );
        assert_eq!(g["package"], Value::Null);
        assert!(matches!(g["zfs_support"], Value::Bool(_)));
        assert_eq!(g["pid"].as_i64(), Some(i64::from(std::process::id())));
        let li = g["locale_info"].as_map().cloned().unwrap_or_default();
        let keys: Vec<&str> = li.keys().map(String::as_str).collect();
        assert_eq!(
            keys,
            [
                "defaultlanguage",
                "defaultencoding",
                "detectedencoding",
                "timezone"
            ]
        );
    }

    #[test]
    fn static_grains_replace_top_level_keys() {
        // salt-call with `grains: {os: Foo, locale_info: {timezone: X}, newkey: 1}`
        // answered os=Foo, locale_info={'timezone': 'X'} and newkey last.
        let mut core = Map::default();
        core.insert("os".into(), "Debian".into());
        let mut li = Map::default();
        li.insert("defaultlanguage".into(), "en_US".into());
        li.insert("timezone".into(), "UTC".into());
        core.insert("locale_info".into(), Value::Map(li));
        core.insert("kernel".into(), "Linux".into());
        let mut st = Map::default();
        st.insert("newkey".into(), Value::Int(1));
        let mut tz = Map::default();
        tz.insert("timezone".into(), "X".into());
        st.insert("locale_info".into(), Value::Map(tz));
        st.insert("os".into(), "Foo".into());
        let merged = merge_static(core, &st);
        assert_eq!(
            Value::Map(merged).to_python_repr(),
            "{'os': 'Foo', 'locale_info': {'timezone': 'X'}, 'kernel': 'Linux', 'newkey': 1}"
        );
    }
}
