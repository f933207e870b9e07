//! The process table from `/proc`, which `status.procs`, `status.pid` and
//! the `ps` module read (Salt asks `ps` or psutil, which read the same
//! files).

use crate::grains::system::read_text;

/// Bound on the processes read, so a huge table cannot hold a call.
const MAX_PROCS: usize = 200_000;

/// One process.
#[derive(Debug, Clone, Default)]
pub(crate) struct Proc {
    pub pid: u32,
    pub ppid: u32,
    /// Real uid.
    pub uid: u32,
    /// The command name (`comm`).
    pub name: String,
    /// Its arguments; empty for kernel threads.
    pub cmdline: Vec<String>,
    /// The state letter of `/proc/PID/stat` (R, S, D, Z, T, I ...).
    pub state: char,
    /// CPU time in clock ticks: user, system, children's user and system.
    pub utime: u64,
    pub stime: u64,
    pub cutime: u64,
    pub cstime: u64,
    /// Start time, in clock ticks after boot.
    pub starttime: u64,
}

impl Proc {
    /// `ps -f`'s CMD: the arguments, else `[name]`.
    pub fn command(&self) -> String {
        if self.cmdline.is_empty() {
            format!("[{}]", self.name)
        } else {
            self.cmdline.join(" ")
        }
    }
}

/// `/proc/PID/stat`, whose second field (the name in parentheses) may
/// hold spaces and parentheses itself.
pub(crate) fn parse_stat(pid: u32, text: &str) -> Option<Proc> {
    let open = text.find('(')?;
    let close = text.rfind(')')?;
    let name = text.get(open + 1..close)?.to_string();
    let rest: Vec<&str> = text.get(close + 1..)?.split_whitespace().collect();
    let num = |i: usize| rest.get(i).and_then(|s| s.parse::<u64>().ok()).unwrap_or(0);
    Some(Proc {
        pid,
        ppid: u32::try_from(num(1)).unwrap_or(0),
        uid: 0,
        name,
        cmdline: Vec::new(),
        state: rest.first()?.chars().next()?,
        utime: num(11),
        stime: num(12),
        cutime: num(13),
        cstime: num(14),
        starttime: num(19),
    })
}

/// The process `pid`, `None` when it has gone.
pub(crate) fn read(pid: u32) -> Option<Proc> {
    let dir = format!("/proc/{pid}");
    let mut p = parse_stat(pid, &read_text(format!("{dir}/stat"))?)?;
    p.uid = read_text(format!("{dir}/status"))
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("Uid:"))
                .and_then(|l| l.split_whitespace().next()?.parse().ok())
        })
        .unwrap_or(0);
    if let Ok(raw) = std::fs::read(format!("{dir}/cmdline")) {
        p.cmdline = raw
            .split(|b| *b == 0)
            .map(|a| String::from_utf8_lossy(a).into_owned())
            .collect();
        // The list ends with a NUL: drop the empty tail.
        while p.cmdline.last().is_some_and(String::is_empty) {
            p.cmdline.pop();
        }
    }
    Some(p)
}

/// Every process, by pid.
pub(crate) fn all() -> Vec<Proc> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    let mut pids: Vec<u32> = entries
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse().ok())
        .take(MAX_PROCS)
        .collect();
    pids.sort_unstable();
    pids.into_iter().filter_map(read).collect()
}

/// The user name of `uid`, else the number.
pub(crate) fn user_name(uid: u32) -> String {
    brine_host::accounts::user_by_uid(uid).map_or_else(|| uid.to_string(), |u| u.name)
}

/// Clock ticks per second.
pub(crate) fn ticks() -> f64 {
    nix::unistd::sysconf(nix::unistd::SysconfVar::CLK_TCK)
        .ok()
        .flatten()
        .filter(|t| *t > 0)
        .map_or(100.0, |t| t as f64)
}

/// Boot time, seconds since the epoch (`btime` of `/proc/stat`).
pub(crate) fn boot_time() -> u64 {
    read_text("/proc/stat")
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("btime "))
                .and_then(|v| v.trim().parse().ok())
        })
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stat_with_odd_names_and_this_process() {
        let p = parse_stat(
            7,
            "7 (a (b) c) S 1 7 7 0 -1 4194560 1 0 0 0 5 6 7 8 20 0 1 0 99 1000 3",
        )
        .unwrap();
        assert_eq!(p.name, "a (b) c");
        assert_eq!((p.state, p.ppid, p.utime, p.stime), ('S', 1, 5, 6));
        assert_eq!((p.cutime, p.cstime, p.starttime), (7, 8, 99));
        let me = read(std::process::id()).unwrap();
        assert_eq!(me.uid, nix::unistd::getuid().as_raw());
        assert_eq!(me.ppid, nix::unistd::getppid().as_raw() as u32);
        assert!(!me.cmdline.is_empty());
        assert!(all().iter().any(|p| p.pid == std::process::id()));
    }
}
