//! Python package versions and requirements as pip reads them: PEP 440
//! versions compared, and a requirement line (`name[extras] >=1, <2`)
//! split into its project name and specifiers.

use std::cmp::Ordering;

/// A PEP 440 version: epoch, release, pre-release, post and dev parts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Version {
    epoch: u64,
    release: Vec<u64>,
    /// (0 = a, 1 = b, 2 = rc, n)
    pre: Option<(u8, u64)>,
    post: Option<u64>,
    dev: Option<u64>,
}

fn number(s: &str) -> (u64, &str) {
    let end = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
    (s[..end].parse().unwrap_or(0), &s[end..])
}

fn skip_sep(s: &str) -> &str {
    s.strip_prefix(['.', '-', '_']).unwrap_or(s)
}

impl Version {
    /// Parse a version as pip normalises it (case-insensitive, `v`
    /// prefix, `alpha`/`beta`/`c`/`pre`/`preview` spellings, `-N` posts).
    pub fn parse(text: &str) -> Option<Version> {
        let lower = text.trim().to_ascii_lowercase();
        let mut s = lower.strip_prefix('v').unwrap_or(&lower);
        let mut epoch = 0;
        if let Some((e, rest)) = s.split_once('!') {
            epoch = e.parse().ok()?;
            s = rest;
        }
        if !s.starts_with(|c: char| c.is_ascii_digit()) {
            return None;
        }
        let mut release = Vec::new();
        loop {
            let (n, rest) = number(s);
            release.push(n);
            s = rest;
            match s.strip_prefix('.') {
                Some(r) if r.starts_with(|c: char| c.is_ascii_digit()) => s = r,
                _ => break,
            }
        }
        let mut v = Version {
            epoch,
            release,
            pre: None,
            post: None,
            dev: None,
        };
        let t = skip_sep(s);
        for (word, kind) in [
            ("alpha", 0),
            ("a", 0),
            ("beta", 1),
            ("b", 1),
            ("rc", 2),
            ("c", 2),
            ("preview", 2),
            ("pre", 2),
        ] {
            if let Some(rest) = t.strip_prefix(word) {
                let (n, rest) = number(skip_sep(rest));
                v.pre = Some((kind, n));
                s = rest;
                break;
            }
        }
        let t = skip_sep(s);
        if let Some(rest) = t
            .strip_prefix("post")
            .or_else(|| t.strip_prefix("rev"))
            .or_else(|| t.strip_prefix('r'))
        {
            let (n, rest) = number(skip_sep(rest));
            v.post = Some(n);
            s = rest;
        } else if let Some(rest) = s
            .strip_prefix('-')
            .filter(|r| r.starts_with(|c: char| c.is_ascii_digit()))
        {
            let (n, rest) = number(rest);
            v.post = Some(n);
            s = rest;
        }
        let t = skip_sep(s);
        if let Some(rest) = t.strip_prefix("dev") {
            let (n, rest) = number(rest);
            v.dev = Some(n);
            s = rest;
        }
        // A local version (`+local`) is ignored in comparisons here.
        let s = s.split('+').next().unwrap_or_default();
        s.is_empty().then_some(v)
    }

    /// Whether this is a pre-release (or a dev release).
    pub fn is_pre(&self) -> bool {
        self.pre.is_some() || self.dev.is_some()
    }

    fn key(&self) -> SortKey {
        let mut release = self.release.clone();
        while release.len() > 1 && release.last() == Some(&0) {
            release.pop();
        }
        // PEP 440's order: dev < pre < final < post.
        let pre = match (self.pre, self.post, self.dev) {
            (None, None, Some(_)) => (-1, 0),
            (Some((k, n)), _, _) => (k as i8, n),
            _ => (3, 0),
        };
        let post = self.post.map_or((-1, 0), |n| (0, n));
        let dev = self.dev.map_or((1, 0), |n| (0, n));
        (self.epoch, release, pre, post, dev)
    }
}

impl Ord for Version {
    fn cmp(&self, other: &Self) -> Ordering {
        self.key().cmp(&other.key())
    }
}

impl PartialOrd for Version {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// What versions sort by: epoch, release (trailing zeros dropped), then
/// the pre-release, post and dev parts, each as (rank, number).
type SortKey = (u64, Vec<u64>, (i8, u64), (i8, u64), (i8, u64));

/// One specifier: an operator and a version (`==1.*` keeps its `*`).
#[derive(Debug, Clone, PartialEq)]
pub struct Spec {
    pub op: String,
    pub version: String,
}

impl Spec {
    /// Whether `v` satisfies this specifier.
    pub fn allows(&self, v: &Version) -> bool {
        if self.op == "===" {
            return false;
        }
        if let Some(prefix) = self.version.strip_suffix(".*") {
            let Some(p) = Version::parse(prefix) else {
                return false;
            };
            let matches = v.epoch == p.epoch
                && p.release
                    .iter()
                    .enumerate()
                    .all(|(i, n)| v.release.get(i).copied().unwrap_or(0) == *n);
            return if self.op == "!=" { !matches } else { matches };
        }
        let Some(w) = Version::parse(&self.version) else {
            return false;
        };
        match self.op.as_str() {
            "==" => v == &w || v.cmp(&w) == Ordering::Equal,
            "!=" => v.cmp(&w) != Ordering::Equal,
            "<" => v < &w,
            "<=" => v <= &w,
            ">" => v > &w,
            ">=" => v >= &w,
            "~=" => {
                let mut upper = w.release.clone();
                if upper.len() > 1 {
                    upper.pop();
                }
                let prefix_ok = upper
                    .iter()
                    .enumerate()
                    .all(|(i, n)| v.release.get(i).copied().unwrap_or(0) == *n);
                v >= &w && prefix_ok
            }
            _ => false,
        }
    }
}

/// A requirement line: the project name (Salt's `safe_name` of it) and
/// its specifiers.
#[derive(Debug, Clone, PartialEq)]
pub struct Requirement {
    pub name: String,
    pub specs: Vec<Spec>,
}

/// Why a line is not a requirement.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{0}")]
pub struct ReqError(pub String);

impl Requirement {
    /// Read a line as pip does; a URL or path gives no name (Ok(None)).
    pub fn parse(line: &str) -> Result<Option<Requirement>, ReqError> {
        let line = line.split(';').next().unwrap_or_default().trim();
        if line.contains("://") || line.starts_with(['/', '.']) {
            return Ok(None);
        }
        let name_end = line
            .find(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_')))
            .unwrap_or(line.len());
        let name = &line[..name_end];
        if name.is_empty() || !name.starts_with(|c: char| c.is_ascii_alphanumeric()) {
            return Err(ReqError(format!(
                "Expected package name at the start of dependency specifier\n    {line}"
            )));
        }
        let mut rest = line[name_end..].trim_start();
        if let Some(r) = rest.strip_prefix('[') {
            let Some(end) = r.find(']') else {
                return Err(ReqError(format!(
                    "Expected closing RIGHT_BRACKET\n    {line}"
                )));
            };
            rest = r[end + 1..].trim_start();
        }
        let rest = rest
            .strip_prefix('(')
            .and_then(|r| r.strip_suffix(')'))
            .unwrap_or(rest);
        let mut specs = Vec::new();
        for part in rest.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let op_end = part
                .find(|c: char| !matches!(c, '=' | '<' | '>' | '!' | '~'))
                .unwrap_or(part.len());
            let op = &part[..op_end];
            let version = part[op_end..].trim();
            if !matches!(op, "==" | "!=" | "<" | "<=" | ">" | ">=" | "~=" | "===")
                || version.is_empty()
            {
                return Err(ReqError(format!("Expected end or semicolon (after name and no valid version specifier)\n    {line}")));
            }
            specs.push(Spec {
                op: op.to_string(),
                version: version.to_string(),
            });
        }
        let safe: String = {
            let mut out = String::new();
            let mut in_run = false;
            for c in name.chars() {
                if c.is_ascii_alphanumeric() || c == '.' {
                    out.push(c);
                    in_run = false;
                } else if !in_run {
                    out.push('-');
                    in_run = true;
                }
            }
            out
        };
        Ok(Some(Requirement { name: safe, specs }))
    }

    /// Whether version `v` satisfies every specifier.
    pub fn allows(&self, v: &str) -> bool {
        let Some(v) = Version::parse(v) else {
            return false;
        };
        self.specs.iter().all(|s| s.allows(&v))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_order_as_pep_440() {
        let order = [
            "1.0.dev1",
            "1.0a1",
            "1.0b2",
            "1.0rc1",
            "1.0",
            "1.0.post1",
            "1.1",
            "2.0",
            "1!0.1",
        ];
        for w in order.windows(2) {
            let (a, b) = (Version::parse(w[0]).unwrap(), Version::parse(w[1]).unwrap());
            assert!(a < b, "{} < {}", w[0], w[1]);
        }
        assert_eq!(
            Version::parse("1.0")
                .unwrap()
                .cmp(&Version::parse("1").unwrap()),
            Ordering::Equal
        );
        assert!(Version::parse("x1").is_none());
    }

    #[test]
    fn requirements_read_as_pip_reads_them() {
        let r = Requirement::parse("brinetesta >1.5, <3").unwrap().unwrap();
        assert_eq!(r.name, "brinetesta");
        assert!(r.allows("2.0") && !r.allows("1.0") && !r.allows("3"));
        let r = Requirement::parse("Foo_bar[x]==1.*").unwrap().unwrap();
        assert_eq!(r.name, "Foo-bar");
        assert!(r.allows("1.4") && !r.allows("2.0"));
        assert!(Requirement::parse("brinetesta=1.0").is_err());
        assert_eq!(Requirement::parse("https://x/y.whl").unwrap(), None);
        let r = Requirement::parse("a~=1.4").unwrap().unwrap();
        assert!(r.allows("1.9") && !r.allows("2.0") && !r.allows("1.3"));
    }
}
