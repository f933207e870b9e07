//! Salt's `status` module: facts about the running system, read from
//! `/proc`, `statvfs` and utmp as Salt reads them on Linux.

use super::function::{sig, CallError, Ctx, Function};
use super::params::Params;
use super::proctable;
use crate::grains::system::read_text;
use brine_compile::matcher::glob::fnmatch;
use brine_compile::minion_data::Returned;
use brine_core::{Map, Value};
use brine_host::exec::{self, CommandSpec};
use std::collections::BTreeSet;

pub(super) const FUNCTIONS: &[Function] = &[
    Function::reads(
        "all_status",
        sig!(),
        "Everything at once: cpuinfo, cpustats, diskstats, diskusage, loadavg, \
meminfo, netdev, netstats, uptime, vmstats and w.\n\n    brine-call status.all_status",
        |_, p| no_args(p, all_status),
    ),
    Function::reads(
        "cpuinfo",
        sig!(),
        "/proc/cpuinfo as a mapping (the last processor's values; flags as a \
list).\n\n    brine-call status.cpuinfo",
        |_, p| no_args(p, cpuinfo),
    ),
    Function::reads(
        "cpustats",
        sig!(),
        "/proc/stat: the cpu line's times, intr and softirq counters, and the \
other counters.\n\n    brine-call status.cpustats",
        |_, p| no_args(p, cpustats),
    ),
    Function::reads(
        "diskstats",
        sig!(),
        "/proc/diskstats per device: reads, writes, sectors and times.\n\n    \
brine-call status.diskstats",
        |_, p| no_args(p, diskstats),
    ),
    Function::reads(
        "diskusage",
        sig!(*args),
        "Available and total bytes of each mounted filesystem; arguments pick \
paths (starting with /) and filesystem types (globs).\n\n    \
brine-call status.diskusage / ext?",
        |_, mut p| {
            let args = p.rest();
            p.finish()?;
            let args: Vec<String> = args.iter().map(Value::to_python_str).collect();
            diskusage(&args).map(Returned::New)
        },
    ),
    Function::reads(
        "loadavg",
        sig!(),
        "The 1, 5 and 15 minute load averages.\n\n    brine-call status.loadavg",
        |_, p| no_args(p, loadavg),
    ),
    Function::reads(
        "meminfo",
        sig!(),
        "/proc/meminfo: each line's value and unit.\n\n    brine-call status.meminfo",
        |_, p| no_args(p, meminfo),
    ),
    Function::reads(
        "netdev",
        sig!(),
        "/proc/net/dev per interface: received and sent bytes, packets, errors.\n\n    \
brine-call status.netdev",
        |_, p| no_args(p, netdev),
    ),
    Function::reads(
        "netstats",
        sig!(),
        "/proc/net/netstat: the kernel's network counters by group.\n\n    \
brine-call status.netstats",
        |_, p| no_args(p, netstats),
    ),
    Function::reads(
        "pid",
        sig!(sig),
        "The pids (one per line) of the processes whose `ps -ef` line matches \
regular expression SIG.\n\n    brine-call status.pid nginx",
        pid,
    ),
    Function::reads(
        "procs",
        sig!(),
        "Every process by pid: its user and command line.\n\n    brine-call status.procs",
        |_, p| no_args(p, procs),
    ),
    Function::reads(
        "time",
        sig!(format = "%A, %d. %B %Y %I:%M%p"),
        "The minion's local time, formatted with FORMAT (strftime; default \
'%A, %d. %B %Y %I:%M%p').\n\n    brine-call status.time '%s'",
        time,
    ),
    Function::reads(
        "uptime",
        sig!(),
        "How long the system has been up: seconds, since_iso, since_t, days, \
time (H:M) and users logged in.\n\n    brine-call status.uptime",
        |_, p| no_args(p, uptime),
    ),
    Function::reads(
        "vmstats",
        sig!(),
        "/proc/vmstat's counters.\n\n    brine-call status.vmstats",
        |_, p| no_args(p, vmstats),
    ),
    Function::acts(
        "w",
        sig!(),
        "The users logged in, as `w` lists them: user, tty, login, idle, jcpu, \
pcpu, what.\n\n    brine-call status.w",
        |_, p| {
            p.finish()?;
            w().map(Into::into)
        },
    ),
];

fn no_args<'c>(p: Params, f: fn() -> Value) -> Result<Returned<'c>, CallError> {
    p.finish()?;
    Ok(Returned::New(f()))
}

fn time<'c>(_: &Ctx<'c>, mut p: Params) -> Result<Returned<'c>, CallError> {
    let format = p
        .take("format")
        .map(|v| v.to_python_str())
        .unwrap_or_else(|| "%A, %d. %B %Y %I:%M%p".into());
    p.finish()?;
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX));
    brine_host::sys::strftime_local(now, &format)
        .map(|s| Returned::New(Value::Str(s)))
        .ok_or_else(|| CallError::Failed("embedded null character".into()))
}

/// Salt's `_number`: digits are an int, else a float when it parses, else
/// the text.
pub(crate) fn number(text: &str) -> Value {
    if !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit()) {
        if let Ok(n) = text.parse::<i64>() {
            return Value::Int(n);
        }
    }
    match text.trim().parse::<f64>() {
        Ok(f) => Value::Float(f),
        Err(_) => Value::Str(text.to_string()),
    }
}

fn proc_file(path: &str) -> String {
    read_text(path).unwrap_or_default()
}

fn cpuinfo() -> Value {
    let mut m = Map::default();
    for line in proc_file("/proc/cpuinfo").lines() {
        if line.is_empty() {
            continue;
        }
        let mut parts = line.split(':');
        let key = parts.next().unwrap_or_default().trim().to_string();
        // Python's split(':')[1]: the text up to a second colon.
        let value = parts.next().unwrap_or_default();
        let v = if key == "flags" {
            Value::List(value.split_whitespace().map(Value::from).collect())
        } else {
            Value::Str(value.trim().to_string())
        };
        m.insert(key, v);
    }
    Value::Map(m)
}

fn cpustats() -> Value {
    let mut m = Map::default();
    for line in proc_file("/proc/stat").lines() {
        let c: Vec<&str> = line.split_whitespace().collect();
        let Some(name) = c.first() else { continue };
        let n = |i: usize| number(c.get(i).copied().unwrap_or_default());
        let v = match *name {
            "cpu" => {
                let mut t = Map::default();
                for (k, i) in [
                    ("idle", 4),
                    ("iowait", 5),
                    ("irq", 6),
                    ("nice", 2),
                    ("softirq", 7),
                    ("steal", 8),
                    ("system", 3),
                    ("user", 1),
                ] {
                    t.insert(k.into(), n(i));
                }
                Value::Map(t)
            }
            "intr" | "softirq" => {
                let mut t = Map::default();
                t.insert("total".into(), n(1));
                let list = c.iter().skip(2).map(|x| number(x)).collect();
                let key = if *name == "intr" { "irqs" } else { "softirqs" };
                t.insert(key.into(), Value::List(list));
                Value::Map(t)
            }
            _ => n(1),
        };
        m.insert((*name).to_string(), v);
    }
    Value::Map(m)
}

fn diskstats() -> Value {
    const KEYS: &[&str] = &[
        "major",
        "minor",
        "device",
        "reads_issued",
        "reads_merged",
        "sectors_read",
        "ms_spent_reading",
        "writes_completed",
        "writes_merged",
        "sectors_written",
        "ms_spent_writing",
        "io_in_progress",
        "ms_spent_in_io",
        "weighted_ms_spent_in_io",
    ];
    let mut m = Map::default();
    for line in proc_file("/proc/diskstats").lines() {
        let c: Vec<&str> = line.split_whitespace().collect();
        if c.len() < KEYS.len() {
            continue;
        }
        let mut d = Map::default();
        for (i, k) in KEYS.iter().enumerate() {
            d.insert((*k).into(), number(c.get(i).copied().unwrap_or_default()));
        }
        m.insert(
            c.get(2).copied().unwrap_or_default().to_string(),
            Value::Map(d),
        );
    }
    Value::Map(m)
}

/// Salt's `diskusage`: `/…` arguments are paths, others filesystem type
/// globs; none means every mounted filesystem.
fn diskusage(args: &[String]) -> Result<Value, CallError> {
    let mut selected: BTreeSet<String> = BTreeSet::new();
    let mut fstypes: Vec<&str> = Vec::new();
    if args.is_empty() {
        fstypes.push("*");
    }
    for a in args {
        if a.starts_with('/') {
            selected.insert(a.clone());
        } else {
            fstypes.push(a);
        }
    }
    if !fstypes.is_empty() {
        let Some(mounts) = read_text("/proc/mounts") else {
            return Ok(Value::Map(Map::default()));
        };
        for line in mounts.lines() {
            let c: Vec<&str> = line.split_whitespace().collect();
            if let (Some(mnt), Some(fstype)) = (c.get(1), c.get(2)) {
                if fstypes.iter().any(|g| fnmatch(fstype, g)) {
                    selected.insert(unescape_mount(mnt));
                }
            }
        }
    }
    let mut m = Map::default();
    for path in selected {
        // A path that cannot be read fails the call, as os.statvfs raises.
        let st = nix::sys::statvfs::statvfs(path.as_str()).map_err(|e| {
            CallError::Failed(format!("[Errno {}] {}: '{path}'", e as i32, e.desc()))
        })?;
        {
            let bsize = st.block_size();
            let mut d = Map::default();
            d.insert(
                "available".into(),
                Value::Int(
                    i64::try_from(st.blocks_available().saturating_mul(bsize)).unwrap_or(i64::MAX),
                ),
            );
            d.insert(
                "total".into(),
                Value::Int(i64::try_from(st.blocks().saturating_mul(bsize)).unwrap_or(i64::MAX)),
            );
            m.insert(path, Value::Map(d));
        }
    }
    Ok(Value::Map(m))
}

/// `/proc/mounts` writes spaces and tabs in paths as octal escapes.
pub(crate) fn unescape_mount(s: &str) -> String {
    s.replace("\\040", " ")
        .replace("\\011", "\t")
        .replace("\\012", "\n")
        .replace("\\134", "\\")
}

fn loadavg() -> Value {
    let (one, five, fifteen) = nix::sys::sysinfo::sysinfo()
        .map(|s| s.load_average())
        .unwrap_or_default();
    let mut m = Map::default();
    m.insert("1-min".into(), Value::Float(one));
    m.insert("5-min".into(), Value::Float(five));
    m.insert("15-min".into(), Value::Float(fifteen));
    Value::Map(m)
}

fn meminfo() -> Value {
    let mut m = Map::default();
    for line in proc_file("/proc/meminfo").lines() {
        let c: Vec<&str> = line.split_whitespace().collect();
        let (Some(k), Some(v)) = (c.first(), c.get(1)) else {
            continue;
        };
        let mut e = Map::default();
        e.insert("value".into(), Value::Str((*v).to_string()));
        if let Some(unit) = c.get(2) {
            e.insert("unit".into(), Value::Str((*unit).to_string()));
        }
        m.insert(k.replace(':', ""), Value::Map(e));
    }
    Value::Map(m)
}

fn netdev() -> Value {
    let mut m = Map::default();
    for line in proc_file("/proc/net/dev").lines() {
        let Some((name, rest)) = line.split_once(':') else {
            continue;
        };
        let name = name.trim().to_string();
        let c: Vec<&str> = rest.split_whitespace().collect();
        let n = |i: usize| number(c.get(i).copied().unwrap_or_default());
        let mut d = Map::default();
        d.insert("iface".into(), Value::Str(name.clone()));
        for (k, i) in [
            ("rx_bytes", 0),
            ("rx_compressed", 6),
            ("rx_drop", 3),
            ("rx_errs", 2),
            ("rx_fifo", 4),
            ("rx_frame", 5),
            ("rx_multicast", 7),
            ("rx_packets", 1),
            ("tx_bytes", 8),
            ("tx_carrier", 14),
            ("tx_colls", 13),
            ("tx_compressed", 15),
            ("tx_drop", 11),
            ("tx_errs", 10),
            ("tx_fifo", 12),
            ("tx_packets", 9),
        ] {
            d.insert(k.into(), n(i));
        }
        m.insert(name, Value::Map(d));
    }
    Value::Map(m)
}

/// `/proc/net/netstat`: header lines and value lines in pairs. Salt's
/// loop stops one field short of the header's end; so does this.
fn netstats() -> Value {
    let mut m = Map::default();
    let mut headers: Vec<String> = vec![String::new()];
    for line in proc_file("/proc/net/netstat").lines() {
        let c: Vec<&str> = line.split_whitespace().collect();
        let Some(first) = c.first() else { continue };
        if headers.first().is_some_and(|h| h == first) {
            let mut row = Map::default();
            for i in 1..headers.len().saturating_sub(1) {
                if let (Some(h), Some(v)) = (headers.get(i), c.get(i)) {
                    row.insert(h.clone(), number(v));
                }
            }
            let name = headers
                .first()
                .cloned()
                .unwrap_or_default()
                .replace(':', "");
            m.insert(name, Value::Map(row));
        } else {
            headers = c.iter().map(|s| (*s).to_string()).collect();
        }
    }
    Value::Map(m)
}

fn vmstats() -> Value {
    let mut m = Map::default();
    for line in proc_file("/proc/vmstat").lines() {
        let c: Vec<&str> = line.split_whitespace().collect();
        if let (Some(k), Some(v)) = (c.first(), c.get(1)) {
            m.insert((*k).to_string(), number(v));
        }
    }
    Value::Map(m)
}

/// `ps -ef`'s user column: names over 8 characters cut with `+`.
fn ps_user(uid: u32) -> String {
    let name = proctable::user_name(uid);
    if name.chars().count() > 8 {
        let mut s: String = name.chars().take(7).collect();
        s.push('+');
        s
    } else {
        name
    }
}

fn procs() -> Value {
    let mut m = Map::default();
    for p in proctable::all() {
        let mut e = Map::default();
        e.insert("user".into(), Value::Str(ps_user(p.uid)));
        // Salt splits ps's line on whitespace and joins the command again.
        let cmd: Vec<String> = p.command().split_whitespace().map(str::to_string).collect();
        e.insert("cmd".into(), Value::Str(cmd.join(" ")));
        m.insert(p.pid.to_string(), Value::Map(e));
    }
    Value::Map(m)
}

fn pid<'c>(_: &Ctx<'c>, mut p: Params) -> Result<Returned<'c>, CallError> {
    let sig = p.require("sig")?.to_python_str();
    p.finish()?;
    let re = regex::Regex::new(&sig)
        .map_err(|e| CallError::Failed(format!("invalid regular expression {sig:?}: {e}")))?;
    let me = std::process::id();
    let mut pids: Vec<String> = Vec::new();
    for proc_ in proctable::all() {
        if proc_.pid == me {
            continue;
        }
        // The line `ps -ef` would print, short of its times.
        let line = format!(
            "{} {} {} {}",
            ps_user(proc_.uid),
            proc_.pid,
            proc_.ppid,
            proc_.command()
        );
        if re.is_match(&line) {
            pids.push(proc_.pid.to_string());
        }
    }
    Ok(Returned::New(Value::Str(pids.join("\n"))))
}

/// Users with a login session in utmp (`who -s`).
fn utmp_users() -> usize {
    // struct utmp on Linux: 384 bytes, ut_type (a short) first.
    const SIZE: usize = 384;
    const USER_PROCESS: i16 = 7;
    let Ok(data) = std::fs::read("/var/run/utmp") else {
        return 0;
    };
    data.chunks_exact(SIZE)
        .filter(|rec| {
            rec.get(..2)
                .and_then(|b| <[u8; 2]>::try_from(b).ok())
                .is_some_and(|b| i16::from_ne_bytes(b) == USER_PROCESS)
        })
        .count()
}

fn uptime() -> Value {
    let seconds: i64 = read_text("/proc/uptime")
        .and_then(|s| s.split_whitespace().next()?.parse::<f64>().ok())
        .map_or(0, |f| f as i64);
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64());
    let since = now - seconds as f64;
    let mut m = Map::default();
    m.insert("seconds".into(), Value::Int(seconds));
    m.insert(
        "since_iso".into(),
        Value::Str(brine_host::time::iso_utc_float(since)),
    );
    m.insert("since_t".into(), Value::Int(since as i64));
    m.insert("days".into(), Value::Int(seconds / 86_400));
    let rem = seconds % 86_400;
    m.insert(
        "time".into(),
        Value::Str(format!("{}:{}", rem / 3600, rem % 3600 / 60)),
    );
    if brine_host::path::which("who").is_some() {
        // Salt counts the lines of `who -s`: no one logged in is one line.
        m.insert(
            "users".into(),
            Value::Int(i64::try_from(utmp_users().max(1)).unwrap_or(1)),
        );
    }
    Value::Map(m)
}

/// `w -fh`, parsed as Salt parses it.
fn w() -> Result<Value, CallError> {
    let res = exec::run(&CommandSpec::argv(&["w", "-fh"]))
        .map_err(|e| CallError::Failed(e.to_string()))?;
    let mut out = Vec::new();
    for row in res.stdout.lines() {
        let c: Vec<&str> = row.split_whitespace().collect();
        if c.len() < 6 {
            continue;
        }
        let mut m = Map::default();
        for (k, i) in [
            ("idle", 3),
            ("jcpu", 4),
            ("login", 2),
            ("pcpu", 5),
            ("tty", 1),
            ("user", 0),
        ] {
            m.insert(
                k.into(),
                Value::Str(c.get(i).copied().unwrap_or_default().into()),
            );
        }
        m.insert(
            "what".into(),
            Value::Str(c.get(6..).unwrap_or_default().join(" ")),
        );
        out.push(Value::Map(m));
    }
    Ok(Value::List(out))
}

fn all_status() -> Value {
    let mut m = Map::default();
    m.insert("cpuinfo".into(), cpuinfo());
    m.insert("cpustats".into(), cpustats());
    m.insert("diskstats".into(), diskstats());
    m.insert(
        "diskusage".into(),
        diskusage(&[]).unwrap_or_else(|_| Value::Map(Map::default())),
    );
    m.insert("loadavg".into(), loadavg());
    m.insert("meminfo".into(), meminfo());
    m.insert("netdev".into(), netdev());
    m.insert("netstats".into(), netstats());
    m.insert("uptime".into(), uptime());
    m.insert("vmstats".into(), vmstats());
    m.insert("w".into(), w().unwrap_or(Value::List(Vec::new())));
    Value::Map(m)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_like_salt() {
        assert_eq!(number("42"), Value::Int(42));
        assert_eq!(number("-5"), Value::Float(-5.0));
        assert_eq!(number("1.5"), Value::Float(1.5));
        assert_eq!(number("sda"), Value::Str("sda".into()));
        assert_eq!(unescape_mount("/a\\040b"), "/a b");
    }

    #[test]
    fn readings_match_proc() {
        use serde_json::json;
        let mem = meminfo().to_json();
        let total = read_text("/proc/meminfo").unwrap();
        let first = total.lines().next().unwrap();
        let value = first.split_whitespace().nth(1).unwrap();
        assert_eq!(mem["MemTotal"], json!({"value": value, "unit": "kB"}));
        let stats = cpustats().to_json();
        let btime = proctable::boot_time();
        assert_eq!(stats["btime"], json!(btime));
        let cpu: Vec<&String> = stats["cpu"].as_object().unwrap().keys().collect();
        assert_eq!(
            cpu,
            ["idle", "iowait", "irq", "nice", "softirq", "steal", "system", "user"]
        );
        let up = uptime().to_json();
        let since = up["since_t"].as_i64().unwrap();
        assert!(
            (since - i64::try_from(btime).unwrap()).abs() <= 2,
            "{since} {btime}"
        );
        let dev = netdev().to_json();
        assert_eq!(dev["lo"]["iface"], "lo");
        assert_eq!(dev["lo"].as_object().unwrap().len(), 17);
        let root = diskusage(&["/".into()]).unwrap().to_json();
        let st = nix::sys::statvfs::statvfs("/").unwrap();
        assert_eq!(root["/"]["total"], json!(st.blocks() * st.block_size()));
        let all = diskusage(&[]).unwrap().to_json();
        assert!(all.get("/").is_some());
        assert_eq!(loadavg().to_json().as_object().unwrap().len(), 3);
        assert_eq!(all_status().to_json().as_object().unwrap().len(), 11);
        let ps = procs().to_json();
        let me = &ps[std::process::id().to_string()];
        assert_eq!(me["user"], json!(ps_user(nix::unistd::getuid().as_raw())));
        if let Ok(d) = std::fs::read_to_string("/proc/diskstats") {
            let n = diskstats().to_json().as_object().unwrap().len();
            assert_eq!(n, d.lines().count());
        }
    }
}
