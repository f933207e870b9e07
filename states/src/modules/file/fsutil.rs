//! File system helpers with the semantics of Salt's `file` execution module:
//! owner names, `stats`, modes as `"0644"` strings, atomic copies that keep
//! the destination's owner and mode, `makedirs`, `touch`, `remove`.

use brine_core::Value;
use brine_host::accounts;
use std::io::Write;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};

/// A requested owner: a name, or a numeric id (`user: 0` in YAML).
#[derive(Debug, Clone, PartialEq)]
pub enum Owner {
    Name(String),
    Id(u32),
}

impl Owner {
    /// From a state argument; `None` for null/absent/empty (Salt tests
    /// `if user:`).
    pub fn from_value(v: Option<&Value>) -> Result<Option<Owner>, String> {
        match v {
            None | Some(Value::Null) => Ok(None),
            Some(Value::Str(s)) if s.is_empty() => Ok(None),
            Some(Value::Str(s)) => Ok(Some(Owner::Name(s.clone()))),
            Some(Value::Int(i)) => u32::try_from(*i)
                .map(|i| Some(Owner::Id(i)))
                .map_err(|_| format!("invalid id {i}")),
            Some(Value::Bool(false)) => Ok(None),
            Some(other) => Err(format!(
                "must be a name or an id, not {}",
                other.type_name()
            )),
        }
    }

    /// How Salt prints it (`str(user)`).
    pub fn display(&self) -> String {
        match self {
            Owner::Name(n) => n.clone(),
            Owner::Id(i) => i.to_string(),
        }
    }

    pub fn to_value(&self) -> Value {
        match self {
            Owner::Name(n) => Value::Str(n.clone()),
            Owner::Id(i) => Value::Int(i64::from(*i)),
        }
    }

    /// Salt's `user == cur['user'] or user == cur['uid']`.
    pub fn matches(&self, name: &str, id: u32) -> bool {
        match self {
            Owner::Name(n) => n == name,
            Owner::Id(i) => *i == id,
        }
    }
}

pub fn user_to_uid(user: &Owner) -> Option<u32> {
    match user {
        Owner::Id(i) => Some(*i),
        Owner::Name(n) => accounts::uid_of(n),
    }
}

pub fn group_to_gid(group: &Owner) -> Option<u32> {
    match group {
        Owner::Id(i) => Some(*i),
        Owner::Name(n) => accounts::gid_of(n),
    }
}

/// `pwd.getpwuid(uid).pw_name`, or the uid as text when it has no name.
pub fn uid_name(uid: u32) -> String {
    accounts::user_by_uid(uid).map_or_else(|| uid.to_string(), |p| p.name)
}

/// `grp.getgrgid(gid).gr_name`, or the gid as text when it has no name.
pub fn gid_name(gid: u32) -> String {
    accounts::group_by_gid(gid).map_or_else(|| gid.to_string(), |g| g.name)
}

/// What Salt's `file.stats` reports and the states use.
#[derive(Debug, Clone)]
pub struct Stats {
    pub uid: u32,
    pub gid: u32,
    /// User name, or the uid as text when it has no name.
    pub user: String,
    pub group: String,
    /// `"0644"`.
    pub mode: String,
    pub is_dir: bool,
    pub is_link: bool,
    pub atime: i64,
    pub mtime: i64,
    pub inode: u64,
    pub size: u64,
    /// Python's float times (`st_atime` ...): seconds and nanoseconds.
    pub atime_f: f64,
    pub mtime_f: f64,
    pub ctime_f: f64,
    /// Salt's `type`: file, dir, char, block, link, pipe, socket.
    pub kind: &'static str,
}

/// Python's float of a `stat` time.
fn float_time(secs: i64, nsecs: i64) -> f64 {
    secs as f64 + nsecs as f64 * 1e-9
}

/// Salt's `type` of a file.
fn kind_of(ft: std::fs::FileType) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    if ft.is_dir() {
        "dir"
    } else if ft.is_char_device() {
        "char"
    } else if ft.is_block_device() {
        "block"
    } else if ft.is_symlink() {
        "link"
    } else if ft.is_fifo() {
        "pipe"
    } else if ft.is_socket() {
        "socket"
    } else {
        "file"
    }
}

/// A file system error of the file states, with the path it concerns.
#[derive(Debug, thiserror::Error)]
pub enum FileError {
    /// Salt's `file.stats` on a missing path.
    #[error("Path not found: {}", path.display())]
    NotFound { path: PathBuf },
}

/// Salt's `file.stats`.
pub fn stats(path: &Path, follow_symlinks: bool) -> Result<Stats, FileError> {
    let md = if follow_symlinks {
        // A broken symlink still has an owner: fall back to lstat.
        std::fs::metadata(path).or_else(|_| std::fs::symlink_metadata(path))
    } else {
        std::fs::symlink_metadata(path)
    }
    .map_err(|_| FileError::NotFound {
        path: path.to_path_buf(),
    })?;
    Ok(Stats {
        uid: md.uid(),
        gid: md.gid(),
        user: uid_name(md.uid()),
        group: gid_name(md.gid()),
        mode: format_mode(md.mode()),
        is_dir: md.is_dir(),
        is_link: md.file_type().is_symlink(),
        atime: md.atime(),
        mtime: md.mtime(),
        inode: md.ino(),
        size: md.size(),
        atime_f: float_time(md.atime(), md.atime_nsec()),
        mtime_f: float_time(md.mtime(), md.mtime_nsec()),
        ctime_f: float_time(md.ctime(), md.ctime_nsec()),
        kind: kind_of(md.file_type()),
    })
}

/// `normalize_mode(oct(stat.S_IMODE(m)))`.
pub fn format_mode(m: u32) -> String {
    normalize_mode_str(&format!("{:o}", m & 0o7777))
}

/// Salt's `salt.utils.files.normalize_mode` on a string.
pub fn normalize_mode_str(mode: &str) -> String {
    let m = mode.replace("0o", "0");
    let m = m
        .trim_matches('"')
        .trim_matches('\'')
        .trim_start_matches('0');
    format!("{m:0>4}")
}

/// `normalize_mode` of a state argument (`644`, `'0644'`, `0o644`...):
/// `None` for null; Python's `str()` of anything else.
pub fn normalize_mode(v: Option<&Value>) -> Option<String> {
    match v {
        None | Some(Value::Null) => None,
        Some(Value::Str(s)) => Some(normalize_mode_str(s)),
        Some(other) => Some(normalize_mode_str(&other.to_python_str())),
    }
}

/// Salt's `file.set_mode`: octal digits, else nothing is changed (the
/// caller then sees the mode did not change and reports it).
pub fn set_mode(path: &Path, mode: &str) -> bool {
    let digits = mode.trim_start_matches(['0', 'O', 'o']);
    let digits = if digits.is_empty() { "0" } else { digits };
    match u32::from_str_radix(digits, 8) {
        Ok(m) if m <= 0o7777 => {
            std::fs::set_permissions(path, std::fs::Permissions::from_mode(m)).is_ok()
        }
        _ => false,
    }
}

/// chown/lchown with "leave unchanged" for `None`.
pub fn chown(path: &Path, uid: Option<u32>, gid: Option<u32>, follow: bool) -> std::io::Result<()> {
    if follow {
        std::os::unix::fs::chown(path, uid, gid)
    } else {
        std::os::unix::fs::lchown(path, uid, gid)
    }
}

/// Python's `str(OSError)`: `[Errno 2] No such file or directory: 'x'`.
pub fn py_os_error(err: &std::io::Error, path: &Path) -> String {
    match err.raw_os_error() {
        Some(code) => {
            // Strip Rust's " (os error N)" suffix to get strerror's text.
            let text = err.to_string();
            let text = text
                .rsplit_once(" (os error")
                .map(|(t, _)| t.to_string())
                .unwrap_or(text);
            format!("[Errno {code}] {text}: '{}'", path.display())
        }
        None => err.to_string(),
    }
}

/// Salt's `salt.utils.files.copyfile` with the data in hand: a temporary
/// file (mode 0600) next to `dest`, renamed over it; an existing `dest`
/// keeps its owner and mode.
pub fn write_atomic(dest: &Path, data: &[u8]) -> std::io::Result<()> {
    let dir = match dest.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    if !dir.is_dir() {
        return Err(std::io::Error::new(
            std::io::ErrorKind::NotFound,
            format!("[Errno 2] No such file or directory: {}", dest.display()),
        ));
    }
    let prefix = dest
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut tmp = tempfile::Builder::new().prefix(&prefix).tempfile_in(dir)?;
    tmp.write_all(data)?;
    tmp.as_file().sync_all()?;
    let before = std::fs::metadata(dest).ok();
    tmp.persist(dest).map_err(|e| e.error)?;
    if let Some(md) = before {
        // As Salt does: the new inode takes over the old owner and mode.
        let _ = std::os::unix::fs::chown(dest, Some(md.uid()), Some(md.gid()));
        std::fs::set_permissions(dest, std::fs::Permissions::from_mode(md.mode() & 0o7777))?;
    }
    Ok(())
}

/// The process umask. Read from /proc when possible: setting it to read
/// it would briefly change it for every thread.
pub fn umask() -> u32 {
    if let Ok(status) = std::fs::read_to_string("/proc/self/status") {
        if let Some(m) = status
            .lines()
            .find_map(|l| l.strip_prefix("Umask:"))
            .and_then(|v| u32::from_str_radix(v.trim(), 8).ok())
        {
            return m;
        }
    }
    use nix::sys::stat::{umask, Mode};
    // Without /proc: swap the mask and put it back at once.
    let m = umask(Mode::from_bits_truncate(0o022));
    umask(m);
    m.bits()
}

/// Mode Salt gives a new file when no mode is asked: `0o666 & ~umask`.
pub fn default_file_mode() -> String {
    format_mode(0o666 & !umask())
}

/// Create an empty file if missing and set its times (Salt's `file.touch`);
/// `None` times mean now.
pub fn touch(path: &Path, atime: Option<i64>, mtime: Option<i64>) -> std::io::Result<()> {
    if !path.exists() {
        std::fs::OpenOptions::new()
            .append(true)
            .create(true)
            .open(path)?;
    }
    use nix::sys::stat::{utimensat, UtimensatFlags};
    use nix::sys::time::TimeSpec;
    let ts = |t: Option<i64>| match t {
        Some(s) => TimeSpec::new(s, 0),
        None => TimeSpec::UTIME_NOW,
    };
    utimensat(
        nix::fcntl::AT_FDCWD,
        path,
        &ts(atime),
        &ts(mtime),
        UtimensatFlags::FollowSymlink,
    )
    .map_err(std::io::Error::from)
}

/// Salt's `file.append`: a last line without its newline gets one, then
/// each line is added with its own. The file must exist.
pub fn append_lines(path: &Path, lines: &[String]) -> std::io::Result<()> {
    use std::io::{Read, Seek, SeekFrom};
    let mut f = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(path)?;
    let mut out = Vec::new();
    if f.seek(SeekFrom::End(-1)).is_ok() {
        let mut last = [0u8; 1];
        f.read_exact(&mut last)?;
        if last[0] != b'\n' {
            out.push(b'\n');
        }
    }
    for l in lines {
        out.extend_from_slice(l.as_bytes());
        out.push(b'\n');
    }
    f.seek(SeekFrom::End(0))?;
    f.write_all(&out)
}

/// Salt's `file.remove`: a file or link is unlinked, a directory removed
/// with its contents. `Ok(false)` when nothing was there.
pub fn remove(path: &Path) -> std::io::Result<bool> {
    let md = match std::fs::symlink_metadata(path) {
        Ok(md) => md,
        Err(_) => return Ok(false),
    };
    if md.is_dir() {
        std::fs::remove_dir_all(path)?;
    } else {
        std::fs::remove_file(path)?;
    }
    Ok(true)
}

/// Salt's `files.is_text`: no NUL in the first 512 bytes, and either valid
/// UTF-8 or at most 30% "non-text" bytes.
pub fn is_text_bytes(data: &[u8]) -> bool {
    let block = &data[..data.len().min(512)];
    if block.contains(&0) {
        return false;
    }
    if block.is_empty() || std::str::from_utf8(block).is_ok() {
        return true;
    }
    // A block cut inside a UTF-8 sequence still counts as UTF-8 for Python
    // only if it decodes, so no special case here.
    let nontext = block
        .iter()
        .filter(|&&c| !((32..127).contains(&c) || b"\n\r\t\x0c\x08".contains(&c)))
        .count();
    (nontext as f64) / (block.len() as f64) <= 0.30
}

pub fn is_text_file(path: &Path) -> bool {
    use std::io::Read;
    let mut buf = vec![0u8; 512];
    match std::fs::File::open(path) {
        Ok(mut f) => {
            let mut n = 0;
            while n < buf.len() {
                match f.read(&mut buf[n..]) {
                    Ok(0) => break,
                    Ok(k) => n += k,
                    Err(_) => return false,
                }
            }
            is_text_bytes(&buf[..n])
        }
        Err(_) => false,
    }
}

/// Python's `os.path.expanduser`.
pub fn expanduser(path: &str) -> String {
    let Some(rest) = path.strip_prefix('~') else {
        return path.to_string();
    };
    let (user, tail) = match rest.find('/') {
        Some(i) => (&rest[..i], &rest[i..]),
        None => (rest, ""),
    };
    let home = if user.is_empty() {
        std::env::var("HOME")
            .ok()
            .or_else(|| accounts::user_by_name(&accounts::current_user()).map(|p| p.home))
    } else {
        accounts::user_by_name(user).map(|p| p.home)
    };
    match home {
        Some(h) => {
            let h = if h.len() > 1 {
                h.trim_end_matches('/')
            } else {
                &h
            };
            format!("{h}{tail}")
        }
        None => path.to_string(),
    }
}

/// Python's `os.path.expandvars`: `$NAME` and `${NAME}` from the
/// environment; unknown names stay as written.
pub fn expandvars(path: &str) -> String {
    if !path.contains('$') {
        return path.to_string();
    }
    let is_name = |c: char| c.is_ascii_alphanumeric() || c == '_';
    let mut out = String::with_capacity(path.len());
    let mut rest = path;
    while let Some(i) = rest.find('$') {
        out.push_str(&rest[..i]);
        let after = &rest[i + 1..];
        let (name, len) = if let Some(braced) = after.strip_prefix('{') {
            match braced.find('}') {
                Some(end) => (&braced[..end], end + 2),
                None => ("", 0),
            }
        } else {
            let end = after.find(|c: char| !is_name(c)).unwrap_or(after.len());
            (&after[..end], end)
        };
        match std::env::var(name) {
            Ok(v) if !name.is_empty() => out.push_str(&v),
            _ => out.push_str(&rest[i..i + 1 + len]),
        }
        rest = &rest[i + 1 + len..];
    }
    out.push_str(rest);
    out
}

pub use crate::posixpath::normpath;

/// Python's `os.path.dirname`.
pub fn dirname(path: &str) -> String {
    match path.rfind('/') {
        Some(i) => {
            let head = &path[..=i];
            let trimmed = head.trim_end_matches('/');
            if trimmed.is_empty() {
                head.to_string()
            } else {
                trimmed.to_string()
            }
        }
        None => String::new(),
    }
}

/// Python's `os.path.isabs`.
pub fn isabs(path: &str) -> bool {
    path.starts_with('/')
}

/// Salt's `file.makedirs_perms`: create `name` and its missing parents,
/// setting owner and mode on each created directory.
pub fn makedirs_perms(
    name: &Path,
    uid: Option<u32>,
    gid: Option<u32>,
    mode: Option<&str>,
) -> std::io::Result<()> {
    if let Some(head) = name.parent() {
        if !head.as_os_str().is_empty() && !head.exists() {
            match makedirs_perms(head, uid, gid, mode) {
                Err(e) if e.kind() != std::io::ErrorKind::AlreadyExists => return Err(e),
                _ => {}
            }
        }
    }
    std::fs::create_dir(name)?;
    if uid.is_some() || gid.is_some() {
        let _ = chown(name, uid, gid, true);
    }
    if let Some(m) = mode {
        set_mode(name, m);
    }
    Ok(())
}

/// Salt's `file.makedirs_`: make the directory that will hold `path`
/// (everything up to its last `/`), each new directory getting the owner
/// and mode.
pub fn makedirs_for(
    path: &str,
    user: Option<&Owner>,
    group: Option<&Owner>,
    mode: Option<&str>,
) -> std::io::Result<()> {
    let mode = mode.map(normalize_mode_str);
    let dir = normpath(&dirname(path));
    let dir = Path::new(&dir);
    if dir.is_dir() || dir.exists() {
        return Ok(());
    }
    let uid = user.and_then(user_to_uid);
    let gid = group.and_then(group_to_gid);
    makedirs_perms(dir, uid, gid, mode.as_deref())
}

/// Hex digest of `data` with one of Salt's hash types.
pub fn hash_hex(form: &str, data: &[u8]) -> Option<String> {
    use sha2::Digest;
    fn hex(bytes: &[u8]) -> String {
        bytes.iter().map(|b| format!("{b:02x}")).collect()
    }
    Some(match form {
        "md5" => hex(&md5::Md5::digest(data)),
        "sha1" => hex(&sha1::Sha1::digest(data)),
        "sha224" => hex(&sha2::Sha224::digest(data)),
        "sha256" => hex(&sha2::Sha256::digest(data)),
        "sha384" => hex(&sha2::Sha384::digest(data)),
        "sha512" => hex(&sha2::Sha512::digest(data)),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn python_path_helpers() {
        assert_eq!(normpath("a/./b//c/../d"), "a/b/d");
        assert_eq!(normpath("../x"), "../x");
        assert_eq!(normpath("/../x"), "/x");
        assert_eq!(normpath("a/.."), ".");
        assert_eq!(dirname("/a/b"), "/a");
        assert_eq!(dirname("/a"), "/");
        assert_eq!(dirname("a"), "");
        assert_eq!(normalize_mode_str("644"), "0644");
        assert_eq!(normalize_mode_str("0o600"), "0600");
        assert_eq!(normalize_mode_str("00755"), "0755");
        assert_eq!(
            normalize_mode(Some(&Value::Int(600))).as_deref(),
            Some("0600")
        );
        assert_eq!(format_mode(0o100644), "0644");
    }

    #[test]
    fn text_detection_like_salt() {
        assert!(is_text_bytes(b"hello\n"));
        assert!(is_text_bytes(b""));
        assert!(!is_text_bytes(b"\x00\x01binary"));
        assert!(is_text_bytes("héllo".as_bytes()));
        assert!(!is_text_bytes(&[0xff; 10]));
    }

    #[test]
    fn hashes() {
        assert_eq!(
            hash_hex("sha256", b"local src\n").as_deref(),
            Some("cf05de2f6fdc5ba762c3c9c712b251a1a020ae9ebbb502f25652ec73868be9d2")
        );
        assert_eq!(
            hash_hex("md5", b"").as_deref(),
            Some("d41d8cd98f00b204e9800998ecf8427e")
        );
        assert_eq!(
            hash_hex("sha1", b"").as_deref(),
            Some("da39a3ee5e6b4b0d3255bfef95601890afd80709")
        );
        assert!(hash_hex("crc", b"").is_none());
    }
}
