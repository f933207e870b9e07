//! Salt's `salt.utils.path`: finding programs the way Salt finds them.

use std::path::{Path, PathBuf};

/// Salt's `salt.utils.path.which`: `PATH`, then the usual system
/// directories, first executable regular file wins.
pub fn which(exe: &str) -> Option<PathBuf> {
    if exe.is_empty() {
        return None;
    }
    if exe.contains('/') {
        let p = PathBuf::from(exe);
        return is_executable(&p).then_some(p);
    }
    let path = std::env::var("PATH").unwrap_or_default();
    let mut dirs: Vec<String> = path.split(':').map(str::to_string).collect();
    for d in [
        "/sbin",
        "/bin",
        "/usr/sbin",
        "/usr/bin",
        "/usr/local/sbin",
        "/usr/local/bin",
    ] {
        if !dirs.iter().any(|x| x == d) {
            dirs.push(d.to_string());
        }
    }
    dirs.iter()
        .map(|d| Path::new(d).join(exe))
        .find(|p| is_executable(p))
}

pub fn is_executable(p: &Path) -> bool {
    let Ok(meta) = std::fs::metadata(p) else {
        return false;
    };
    if !meta.is_file() {
        return false;
    }
    nix::unistd::access(p, nix::unistd::AccessFlags::X_OK).is_ok()
}

/// Python's `os.path.dirname`: everything before the last `/`, trailing
/// slashes dropped unless it is all slashes.
pub fn dirname(path: &str) -> &str {
    let head = path.rfind('/').map_or("", |i| &path[..=i]);
    let trimmed = head.trim_end_matches('/');
    if trimmed.is_empty() {
        head
    } else {
        trimmed
    }
}

/// Python's `os.path.basename`: everything after the last `/`.
pub fn basename(path: &str) -> &str {
    path.rfind('/').map_or(path, |i| &path[i + 1..])
}

/// Python's `os.path.join`: an absolute part starts over.
pub fn join<'a>(parts: impl IntoIterator<Item = &'a str>) -> String {
    let mut out = String::new();
    for (i, part) in parts.into_iter().enumerate() {
        if part.starts_with('/') || i == 0 {
            out = part.to_string();
        } else if out.is_empty() || out.ends_with('/') {
            out.push_str(part);
        } else {
            out.push('/');
            out.push_str(part);
        }
    }
    out
}

/// The home folder of `user`, or of this process (`HOME`, else its
/// account's), as Python's `pwd` and `os.path.expanduser` find them.
pub fn home(user: Option<&str>) -> Option<String> {
    match user {
        Some(user) => crate::accounts::user_by_name(user).map(|p| p.home),
        None => std::env::var("HOME")
            .ok()
            .or_else(|| crate::accounts::user_by_uid(crate::accounts::euid()).map(|p| p.home)),
    }
}

/// Python's `os.path.expanduser` for `~` and `~/...` (`HOME`, else the
/// account's home directory); `~user` forms are looked up as `pwd` does.
pub fn expanduser(path: &str) -> String {
    let Some(rest) = path.strip_prefix('~') else {
        return path.to_string();
    };
    let (user, tail) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
    match home(Some(user).filter(|u| !u.is_empty())) {
        // Python drops a trailing slash of the home directory (unless it
        // is `/`).
        Some(h) => {
            let h = h.trim_end_matches('/');
            format!("{}{tail}", if h.is_empty() { "/" } else { h })
        }
        None => path.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Python's answers (os.path in CPython 3.11).
    #[test]
    fn os_path_as_python() {
        for (p, d, b) in [
            ("/etc/localtime", "/etc", "localtime"),
            ("/etc/", "/etc", ""),
            ("/", "/", ""),
            ("//x", "//", "x"),
            ("a", "", "a"),
            ("a/b//c", "a/b", "c"),
            ("", "", ""),
        ] {
            assert_eq!((dirname(p), basename(p)), (d, b), "{p:?}");
        }
        assert_eq!(join(["/var", "www", "app.conf"]), "/var/www/app.conf");
        assert_eq!(join(["/var/", "/etc", "x"]), "/etc/x");
        assert_eq!(join(["a", "", "b"]), "a/b");
        assert_eq!(join(["a", ""]), "a/");
        assert_eq!(expanduser("/x/~"), "/x/~");
    }
}
