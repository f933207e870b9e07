//! `--check-salt-config FILE`: what brine makes of a Salt shop's existing
//! `/etc/salt/master` or `/etc/salt/minion` (and the `master.d`/`minion.d`
//! `*.conf` files beside it, which Salt's `default_include` reads over
//! it). Each key is one of: read by brine (the options table in
//! [`crate::opts`]), Salt's but ignored by brine (the names Salt 3007.8
//! declares, `salt_options.txt`), or known to neither (a typo, or an
//! extension's). A known key of the wrong kind is said too, as the daemon
//! would refuse it.

use crate::opts;
use brine_core::{yaml, Map, Value};
use std::path::{Path, PathBuf};

/// Salt 3007.8's option names (see the file's header for how it was made).
const SALT_OPTIONS: &str = include_str!("salt_options.txt");

/// What brine makes of one option.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// brine reads it, as Salt does.
    Read,
    /// Salt has it; brine does not use it (kept in `opts` for templates).
    Ignored,
    /// Neither Salt 3007.8 nor brine has an option of this name.
    Unknown,
}

/// The verdict on option `key` holding `val`.
pub fn verdict(key: &str, val: &Value) -> Verdict {
    if opts::is_read(key, val) {
        Verdict::Read
    } else if is_salts(key) {
        Verdict::Ignored
    } else {
        Verdict::Unknown
    }
}

fn is_salts(key: &str) -> bool {
    SALT_OPTIONS
        .lines()
        .filter(|l| !l.starts_with('#'))
        .any(|l| l == key)
}

/// One file's keys by verdict, in the file's order, and what is wrong
/// with it (unreadable, not a mapping, a known key of the wrong kind).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FileReport {
    pub path: PathBuf,
    pub read: Vec<String>,
    pub ignored: Vec<String>,
    pub unknown: Vec<String>,
    pub errors: Vec<String>,
}

impl FileReport {
    /// Whether brine would start from this file without a question.
    pub fn clean(&self) -> bool {
        self.unknown.is_empty() && self.errors.is_empty()
    }
}

/// `path`, then the `*.conf` files of `path.d` in name order (Salt's
/// `default_include`: `master.d/*.conf` beside `master`).
pub fn check(path: &Path) -> Vec<FileReport> {
    let mut reports = vec![check_file(path)];
    let dir = PathBuf::from(format!("{}.d", path.display()));
    reports.extend(opts::conf_files(&dir).iter().map(|f| check_file(f)));
    reports
}

fn check_file(path: &Path) -> FileReport {
    let mut report = FileReport {
        path: path.to_path_buf(),
        ..FileReport::default()
    };
    let data = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read it: {e}"))
        .and_then(|t| yaml::load(&t).map_err(|e| format!("invalid YAML: {e}")));
    let file: Map = match data {
        Ok(Value::Map(m)) => m,
        Ok(Value::Null) => Map::default(),
        Ok(other) => {
            report.errors.push(format!(
                "the config must be a mapping of option: value, found {}",
                other.type_name()
            ));
            return report;
        }
        Err(e) => {
            report.errors.push(e);
            return report;
        }
    };
    for (key, val) in &file {
        if let Some(e) = opts::wrong_type(path, key, val) {
            report.errors.push(e.to_string());
        }
        match verdict(key, val) {
            Verdict::Read => report.read.push(key.clone()),
            Verdict::Ignored => report.ignored.push(key.clone()),
            Verdict::Unknown => report.unknown.push(key.clone()),
        }
    }
    report
}

/// The reports as an operator reads them: per file, the three lists and
/// the errors, then one line of totals.
pub fn render(reports: &[FileReport]) -> String {
    let mut out = String::new();
    let list = |out: &mut String, title: &str, keys: &[String]| {
        out.push_str(&format!("  {title} ({}):\n", keys.len()));
        for k in keys {
            out.push_str(&format!("    {k}\n"));
        }
    };
    for r in reports {
        out.push_str(&format!("{}:\n", r.path.display()));
        list(&mut out, "read by brine", &r.read);
        list(&mut out, "Salt's, ignored by brine", &r.ignored);
        list(
            &mut out,
            "not an option of Salt 3007.8 or brine",
            &r.unknown,
        );
        for e in &r.errors {
            out.push_str(&format!("  error: {e}\n"));
        }
    }
    let sum = |f: fn(&FileReport) -> usize| reports.iter().map(f).sum::<usize>();
    out.push_str(&format!(
        "{} read, {} ignored, {} unknown, {} errors\n",
        sum(|r| r.read.len()),
        sum(|r| r.ignored.len()),
        sum(|r| r.unknown.len()),
        sum(|r| r.errors.len()),
    ));
    out
}

/// `--check-salt-config FILE` for a daemon: the reports on stdout; the exit
/// code is 0 when every file is clean, 1 otherwise.
pub fn main(path: &Path) -> i32 {
    let reports = check(path);
    print!("{}", render(&reports));
    i32::from(!reports.iter().all(FileReport::clean))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_read_ignored_or_unknown() {
        let td = tempfile::tempdir().unwrap();
        let master = td.path().join("master");
        std::fs::write(
            &master,
            "file_roots: {base: [/srv/salt]}\ntransport: zeromq\nfile_rotos: {}\n\
             mydb: {driver: sqlite3}\nauto_accept: yes please\n",
        )
        .unwrap();
        std::fs::create_dir(td.path().join("master.d")).unwrap();
        std::fs::write(td.path().join("master.d/b.conf"), "ipv6: True\n").unwrap();
        std::fs::write(td.path().join("master.d/a.conf"), "- not a map\n").unwrap();
        std::fs::write(td.path().join("master.d/skip.txt"), "x: 1\n").unwrap();
        let reports = check(&master);
        assert_eq!(reports.len(), 3, "{reports:?}");
        let r = &reports[0];
        assert_eq!(r.read, ["file_roots", "mydb", "auto_accept"]);
        assert_eq!(r.ignored, ["transport"]);
        assert_eq!(r.unknown, ["file_rotos"]);
        assert_eq!(r.errors.len(), 1);
        assert!(
            r.errors[0].contains("'auto_accept' must be a boolean"),
            "{r:?}"
        );
        assert!(reports[1].path.ends_with("master.d/a.conf"));
        assert!(reports[1].errors[0].contains("mapping"), "{:?}", reports[1]);
        assert_eq!(reports[2].ignored, ["ipv6"]);
        assert!(reports[2].clean());
        let text = render(&reports);
        assert!(text.contains("  not an option of Salt 3007.8 or brine (1):\n    file_rotos\n"));
        assert!(
            text.ends_with("3 read, 2 ignored, 1 unknown, 2 errors\n"),
            "{text}"
        );
    }

    #[test]
    fn an_unreadable_file_is_an_error_not_a_panic() {
        let r = check(Path::new("/nonexistent/brine/master"));
        assert_eq!(r.len(), 1);
        assert!(r[0].errors[0].starts_with("cannot read it"), "{r:?}");
    }
}
