//! The C-library calls that `nix` does not wrap: the local time
//! (`localtime_r`, `strftime`), whether a locale is installed
//! (`newlocale`), the resolver (`getaddrinfo`), a terminal's width
//! (`TIOCGWINSZ`), freed memory handed back (`malloc_trim`,
//! `mi_collect`), mimalloc's options and a command's umask (`umask` in the
//! child). This is the workspace's only
//! `unsafe` code; each function copies what it needs out of libc's
//! structures before it returns.

use nix::libc;
use std::ffi::{CStr, CString};
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// The width in columns of the terminal open on `fd`; `None` when `fd`
/// is not a terminal.
pub fn terminal_width(fd: std::os::fd::BorrowedFd<'_>) -> Option<u16> {
    use std::os::fd::AsRawFd;
    // SAFETY: winsize is plain integers; all zeroes is a valid value.
    let mut ws: libc::winsize = unsafe { std::mem::zeroed() };
    // SAFETY: TIOCGWINSZ writes one winsize through the pointer, which
    // points at a live, writable winsize; `fd` is open while borrowed.
    let rc = unsafe { libc::ioctl(fd.as_raw_fd(), libc::TIOCGWINSZ, &mut ws) };
    (rc == 0).then_some(ws.ws_col)
}

/// A moment in local time, as `localtime_r` breaks it down.
#[derive(Debug, Clone, PartialEq)]
pub struct LocalTime {
    pub hour: i32,
    pub minute: i32,
    pub second: i32,
    /// Seconds east of UTC.
    pub utc_offset: i64,
    /// The zone's abbreviation (`UTC`, `CEST`), when libc names one.
    pub zone: Option<String>,
}

/// `secs` since the epoch in the local time zone; `None` when the C
/// library cannot represent it.
pub fn local_time(secs: i64) -> Option<LocalTime> {
    let t = libc::time_t::try_from(secs).ok()?;
    // SAFETY: `tm` is plain data for which all-zero is a valid value.
    let mut tm: libc::tm = unsafe { std::mem::zeroed() };
    // SAFETY: both pointers are to live locals of the right types;
    // localtime_r writes only into `tm`.
    if unsafe { libc::localtime_r(&t, &mut tm) }.is_null() {
        return None;
    }
    let zone = if tm.tm_zone.is_null() {
        None
    } else {
        // SAFETY: tm_zone points into libc's zone table, NUL-terminated and
        // alive for the process; it is copied at once.
        let name = unsafe { CStr::from_ptr(tm.tm_zone) };
        Some(name.to_string_lossy().into_owned())
    };
    // `c_long` is 32 bits wide on 32-bit targets.
    #[allow(clippy::useless_conversion)]
    let utc_offset = i64::from(tm.tm_gmtoff);
    Some(LocalTime {
        hour: tm.tm_hour,
        minute: tm.tm_min,
        second: tm.tm_sec,
        utc_offset,
        zone,
    })
}

/// `secs` since the epoch in local time, formatted by the C library's
/// `strftime` (what Python's `datetime.strftime` calls); `None` when the
/// format holds a NUL or the time cannot be represented.
pub fn strftime_local(secs: i64, format: &str) -> Option<String> {
    let t = libc::time_t::try_from(secs).ok()?;
    let fmt = CString::new(format).ok()?;
    // SAFETY: `tm` is plain data for which all-zero is a valid value.
    let mut tm: libc::tm = unsafe { std::mem::zeroed() };
    // SAFETY: both pointers are to live locals of the right types.
    if unsafe { libc::localtime_r(&t, &mut tm) }.is_null() {
        return None;
    }
    // strftime returns 0 both for "too small" and for an empty result;
    // grow the buffer a few times as Python does, then take empty.
    let mut size = 256 + format.len() * 16;
    for _ in 0..4 {
        let mut buf = vec![0u8; size];
        // SAFETY: `buf` has `size` writable bytes, `fmt` is NUL-terminated
        // and `tm` was filled by localtime_r; strftime writes at most
        // `size` bytes including the NUL.
        let n = unsafe { libc::strftime(buf.as_mut_ptr().cast(), size, fmt.as_ptr(), &tm) };
        if n > 0 {
            buf.truncate(n);
            return Some(String::from_utf8_lossy(&buf).into_owned());
        }
        size *= 4;
    }
    Some(String::new())
}

/// Whether the C library has an `LC_CTYPE` locale of this name. Probed with
/// `newlocale`, which unlike `setlocale` leaves the process (and its other
/// threads) alone.
pub fn locale_installed(name: &str) -> bool {
    let Ok(c) = CString::new(name) else {
        return false;
    };
    // SAFETY: a valid NUL-terminated name and no base locale.
    let loc = unsafe { libc::newlocale(libc::LC_CTYPE_MASK, c.as_ptr(), std::ptr::null_mut()) };
    if loc.is_null() {
        return false;
    }
    // SAFETY: `loc` came from newlocale and is freed once.
    unsafe { libc::freelocale(loc) };
    true
}

/// Which addresses [`getaddrinfo`] asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Family {
    Any,
    V4,
    V6,
}

/// One answer of the resolver.
#[derive(Debug, Clone, PartialEq)]
pub struct AddrInfo {
    /// `None` for a family other than IPv4/IPv6.
    pub addr: Option<IpAddr>,
    /// The canonical name, on the answers that carry one.
    pub canonname: Option<String>,
}

/// `getaddrinfo(host)` for one family; with `canonical`, TCP stream answers
/// with the canonical name asked for (`AI_CANONNAME`). Empty on failure.
pub fn getaddrinfo(host: &str, family: Family, canonical: bool) -> Vec<AddrInfo> {
    let Ok(c) = CString::new(host) else {
        return Vec::new();
    };
    // SAFETY: addrinfo is plain data; all-zero is the "no hints" value.
    let mut hints: libc::addrinfo = unsafe { std::mem::zeroed() };
    hints.ai_family = match family {
        Family::Any => libc::AF_UNSPEC,
        Family::V4 => libc::AF_INET,
        Family::V6 => libc::AF_INET6,
    };
    if canonical {
        hints.ai_socktype = libc::SOCK_STREAM;
        hints.ai_protocol = libc::IPPROTO_TCP;
        hints.ai_flags = libc::AI_CANONNAME;
    }
    let mut res: *mut libc::addrinfo = std::ptr::null_mut();
    // SAFETY: a valid host string and hints; `res` is freed below.
    let rc = unsafe { libc::getaddrinfo(c.as_ptr(), std::ptr::null(), &hints, &mut res) };
    if rc != 0 || res.is_null() {
        return Vec::new();
    }
    let mut out = Vec::new();
    let mut cur = res;
    while !cur.is_null() {
        // SAFETY: `cur` is a node of the list getaddrinfo returned.
        let ai = unsafe { &*cur };
        cur = ai.ai_next;
        let canonname = if ai.ai_canonname.is_null() {
            None
        } else {
            // SAFETY: a NUL-terminated string owned by the list, copied here.
            let name = unsafe { CStr::from_ptr(ai.ai_canonname) };
            Some(name.to_string_lossy().into_owned())
        };
        let addr = if ai.ai_addr.is_null() {
            None
        } else {
            match ai.ai_family {
                libc::AF_INET => {
                    // SAFETY: AF_INET answers carry a sockaddr_in.
                    let sin = unsafe { &*ai.ai_addr.cast::<libc::sockaddr_in>() };
                    Some(IpAddr::V4(Ipv4Addr::from(u32::from_be(
                        sin.sin_addr.s_addr,
                    ))))
                }
                libc::AF_INET6 => {
                    // SAFETY: AF_INET6 answers carry a sockaddr_in6.
                    let sin6 = unsafe { &*ai.ai_addr.cast::<libc::sockaddr_in6>() };
                    Some(IpAddr::V6(Ipv6Addr::from(sin6.sin6_addr.s6_addr)))
                }
                _ => None,
            }
        };
        out.push(AddrInfo { addr, canonname });
    }
    // SAFETY: `res` came from getaddrinfo and is freed once.
    unsafe { libc::freeaddrinfo(res) };
    out
}

/// Start `cmd`'s child with the file mode creation mask `mask` (Salt's
/// `umask=`), leaving this process's own mask (shared by its threads)
/// alone.
pub fn child_umask(cmd: &mut std::process::Command, mask: u32) {
    use std::os::unix::process::CommandExt;
    let mode = mask as libc::mode_t;
    // SAFETY: the closure runs in the forked child before exec and only
    // calls umask(2), which is async-signal-safe, allocates nothing and
    // cannot fail.
    unsafe {
        cmd.pre_exec(move || {
            libc::umask(mode);
            Ok(())
        });
    }
}

/// The name the resolver gives address `ip` (`getnameinfo` with
/// `NI_NAMEREQD`), `None` when it has none.
pub fn reverse_name(ip: IpAddr) -> Option<String> {
    let mut host = [0 as libc::c_char; 1025];
    let rc = match ip {
        IpAddr::V4(a) => {
            // SAFETY: sockaddr_in is plain data; all-zero then filled in.
            let mut sin: libc::sockaddr_in = unsafe { std::mem::zeroed() };
            sin.sin_family = libc::AF_INET as libc::sa_family_t;
            sin.sin_addr.s_addr = u32::from(a).to_be();
            // SAFETY: a valid sockaddr_in of the length given, and a host
            // buffer of the length given.
            unsafe {
                libc::getnameinfo(
                    std::ptr::from_ref(&sin).cast(),
                    size_of::<libc::sockaddr_in>() as libc::socklen_t,
                    host.as_mut_ptr(),
                    host.len() as libc::socklen_t,
                    std::ptr::null_mut(),
                    0,
                    libc::NI_NAMEREQD,
                )
            }
        }
        IpAddr::V6(a) => {
            // SAFETY: sockaddr_in6 is plain data; all-zero then filled in.
            let mut sin6: libc::sockaddr_in6 = unsafe { std::mem::zeroed() };
            sin6.sin6_family = libc::AF_INET6 as libc::sa_family_t;
            sin6.sin6_addr.s6_addr = a.octets();
            // SAFETY: as above, for a sockaddr_in6.
            unsafe {
                libc::getnameinfo(
                    std::ptr::from_ref(&sin6).cast(),
                    size_of::<libc::sockaddr_in6>() as libc::socklen_t,
                    host.as_mut_ptr(),
                    host.len() as libc::socklen_t,
                    std::ptr::null_mut(),
                    0,
                    libc::NI_NAMEREQD,
                )
            }
        }
    };
    if rc != 0 {
        return None;
    }
    // SAFETY: getnameinfo succeeded and wrote a NUL-terminated name into
    // `host`.
    let name = unsafe { CStr::from_ptr(host.as_ptr()) };
    Some(name.to_string_lossy().into_owned())
}

/// Hand freed memory back to the system: the C library's (`malloc_trim`)
/// and mimalloc's (`mi_collect`), whichever the process allocates with
/// (the binaries use mimalloc; the other call finds nothing to do). A
/// local state run calls it between the compile and the run: the
/// compile's threads leave freed pages that the run (on the main thread)
/// never reuses, and they would count in its peak.
pub fn release_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only walks the allocator's own free lists; it
    // frees nothing that is in use.
    unsafe {
        libc::malloc_trim(0);
    }
    // SAFETY: mi_collect only walks mimalloc's own free lists.
    unsafe { libmimalloc_sys::mi_collect(true) }
}

/// The mimalloc options brine's binaries set (their numbers in mimalloc
/// 2's `mi_option_t`, the version libmimalloc-sys builds here).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MimallocOption {
    /// `mi_option_arena_eager_commit`: 0 commits arenas as they are used
    /// (by default they are committed ahead, which raises the idle RSS).
    ArenaEagerCommit = 4,
    /// `mi_option_purge_delay`: milliseconds before freed pages go back.
    PurgeDelay = 15,
    /// `mi_option_arena_reserve`: KiB reserved per arena.
    ArenaReserve = 23,
}

/// Set a mimalloc option, for what mimalloc does from then on (a binary
/// sets them from an `.init_array` entry, before its first allocation).
pub fn set_mimalloc_option(option: MimallocOption, value: i32) {
    // SAFETY: mi_option_set only stores a value in mimalloc's option table;
    // it may be called at any time, from any thread.
    unsafe { libmimalloc_sys::mi_option_set(option as libmimalloc_sys::mi_option_t, value.into()) }
}

/// A mimalloc option's value now.
pub fn mimalloc_option(option: MimallocOption) -> i64 {
    // SAFETY: mi_option_get only reads mimalloc's option table.
    unsafe { libmimalloc_sys::mi_option_get(option as libmimalloc_sys::mi_option_t) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn local_time_and_locale_and_resolver() {
        let t = local_time(0).unwrap();
        assert!((0..24).contains(&t.hour) && (0..60).contains(&t.minute));
        assert!(t.zone.is_some_and(|z| !z.is_empty()));
        assert!(locale_installed("C"));
        assert!(!locale_installed("xx_NOPE.UTF-8"));
        assert!(!locale_installed("bad\0name"));
        let v4 = getaddrinfo("127.0.0.1", Family::V4, false);
        assert!(v4
            .iter()
            .any(|a| a.addr == Some(IpAddr::V4(Ipv4Addr::LOCALHOST))));
        assert!(getaddrinfo("127.0.0.1", Family::V6, false).is_empty());
        assert!(getaddrinfo("nul\0host", Family::Any, true).is_empty());
    }
}
