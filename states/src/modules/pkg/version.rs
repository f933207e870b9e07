//! Package version arithmetic: Debian's and RPM's version orderings and
//! Salt's version-condition strings (`>=1.2,<2.0`, `1.2*`).

use std::cmp::Ordering;

/// Which ordering a provider's versions follow.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scheme {
    Debian,
    Rpm,
}

/// `version_cmp` of the provider: -1, 0 or 1. With `ignore_epoch` the part
/// before the first `:` is dropped from both sides first.
pub fn version_cmp(scheme: Scheme, a: &str, b: &str, ignore_epoch: bool) -> i32 {
    let strip = |v: &str| -> String {
        if ignore_epoch {
            v.split_once(':').map(|(_, r)| r).unwrap_or(v).to_string()
        } else {
            v.to_string()
        }
    };
    let (a, b) = (strip(a), strip(b));
    let ord = match scheme {
        Scheme::Debian => deb_cmp(&a, &b),
        Scheme::Rpm => rpm_label_cmp(&a, &b),
    };
    match ord {
        Ordering::Less => -1,
        Ordering::Equal => 0,
        Ordering::Greater => 1,
    }
}

/// Split `[epoch:]upstream[-revision]` the way dpkg does.
fn deb_parts(v: &str) -> (u64, &str, &str) {
    let v = v.trim();
    let (epoch, rest) = match v.split_once(':') {
        Some((e, r)) if !e.is_empty() && e.bytes().all(|b| b.is_ascii_digit()) => {
            (e.parse().unwrap_or(u64::MAX), r)
        }
        _ => (0, v),
    };
    match rest.rfind('-') {
        Some(i) => (epoch, &rest[..i], &rest[i + 1..]),
        None => (epoch, rest, ""),
    }
}

fn deb_order(c: Option<u8>) -> i32 {
    match c {
        None => 0,
        Some(c) if c.is_ascii_digit() => 0,
        Some(c) if c.is_ascii_alphabetic() => i32::from(c),
        Some(b'~') => -1,
        Some(c) => i32::from(c) + 256,
    }
}

/// dpkg's `verrevcmp` on one part.
fn deb_verrevcmp(a: &[u8], b: &[u8]) -> i32 {
    let (mut i, mut j) = (0, 0);
    let digit = |s: &[u8], k: usize| s.get(k).is_some_and(u8::is_ascii_digit);
    while i < a.len() || j < b.len() {
        let mut first_diff = 0;
        while (i < a.len() && !digit(a, i)) || (j < b.len() && !digit(b, j)) {
            let ac = deb_order(if digit(a, i) {
                Some(b'0')
            } else {
                a.get(i).copied()
            });
            let bc = deb_order(if digit(b, j) {
                Some(b'0')
            } else {
                b.get(j).copied()
            });
            if ac != bc {
                return ac - bc;
            }
            i += 1;
            j += 1;
        }
        while a.get(i) == Some(&b'0') {
            i += 1;
        }
        while b.get(j) == Some(&b'0') {
            j += 1;
        }
        while digit(a, i) && digit(b, j) {
            if first_diff == 0 {
                first_diff = i32::from(a[i]) - i32::from(b[j]);
            }
            i += 1;
            j += 1;
        }
        if digit(a, i) {
            return 1;
        }
        if digit(b, j) {
            return -1;
        }
        if first_diff != 0 {
            return first_diff;
        }
    }
    0
}

/// Debian version ordering (`dpkg --compare-versions`).
pub fn deb_cmp(a: &str, b: &str) -> Ordering {
    let (ea, ua, ra) = deb_parts(a);
    let (eb, ub, rb) = deb_parts(b);
    ea.cmp(&eb)
        .then_with(|| deb_verrevcmp(ua.as_bytes(), ub.as_bytes()).cmp(&0))
        .then_with(|| deb_verrevcmp(ra.as_bytes(), rb.as_bytes()).cmp(&0))
}

/// RPM's `rpmvercmp` on one part.
pub fn rpmvercmp(a: &str, b: &str) -> Ordering {
    if a == b {
        return Ordering::Equal;
    }
    let (a, b) = (a.as_bytes(), b.as_bytes());
    let (mut i, mut j) = (0, 0);
    let sep = |c: u8| !c.is_ascii_alphanumeric() && c != b'~' && c != b'^';
    loop {
        while i < a.len() && sep(a[i]) {
            i += 1;
        }
        while j < b.len() && sep(b[j]) {
            j += 1;
        }
        let (ca, cb) = (a.get(i).copied(), b.get(j).copied());
        if ca == Some(b'~') || cb == Some(b'~') {
            if ca != Some(b'~') {
                return Ordering::Greater;
            }
            if cb != Some(b'~') {
                return Ordering::Less;
            }
            i += 1;
            j += 1;
            continue;
        }
        if ca == Some(b'^') || cb == Some(b'^') {
            if ca.is_none() {
                return Ordering::Less;
            }
            if cb.is_none() {
                return Ordering::Greater;
            }
            if ca != Some(b'^') {
                return Ordering::Greater;
            }
            if cb != Some(b'^') {
                return Ordering::Less;
            }
            i += 1;
            j += 1;
            continue;
        }
        let (Some(ca), Some(_)) = (ca, cb) else {
            break;
        };
        let isnum = ca.is_ascii_digit();
        let class = |c: &u8| {
            if isnum {
                c.is_ascii_digit()
            } else {
                c.is_ascii_alphabetic()
            }
        };
        let ei = i + a[i..].iter().take_while(|c| class(c)).count();
        let ej = j + b[j..].iter().take_while(|c| class(c)).count();
        if ej == j {
            return if isnum {
                Ordering::Greater
            } else {
                Ordering::Less
            };
        }
        let mut sa = &a[i..ei];
        let mut sb = &b[j..ej];
        if isnum {
            while sa.first() == Some(&b'0') {
                sa = &sa[1..];
            }
            while sb.first() == Some(&b'0') {
                sb = &sb[1..];
            }
            match sa.len().cmp(&sb.len()) {
                Ordering::Equal => {}
                other => return other,
            }
        }
        match sa.cmp(sb) {
            Ordering::Equal => {}
            other => return other,
        }
        i = ei;
        j = ej;
    }
    match (i >= a.len(), j >= b.len()) {
        (true, true) => Ordering::Equal,
        (true, false) => Ordering::Less,
        _ => Ordering::Greater,
    }
}

/// RPM's `labelCompare` on `[epoch:]version[-release]`.
pub fn rpm_label_cmp(a: &str, b: &str) -> Ordering {
    fn evr(v: &str) -> (u64, &str, Option<&str>) {
        let (e, rest) = match v.split_once(':') {
            Some((e, r)) if e.bytes().all(|b| b.is_ascii_digit()) => (e.parse().unwrap_or(0), r),
            _ => (0, v),
        };
        match rest.rfind('-') {
            Some(i) => (e, &rest[..i], Some(&rest[i + 1..])),
            None => (e, rest, None),
        }
    }
    let (ea, va, ra) = evr(a.trim());
    let (eb, vb, rb) = evr(b.trim());
    ea.cmp(&eb)
        .then_with(|| rpmvercmp(va, vb))
        .then_with(|| match (ra, rb) {
            (Some(x), Some(y)) => rpmvercmp(x, y),
            // A missing release matches any release, as rpm compares labels.
            _ => Ordering::Equal,
        })
}

/// Salt's `split_comparison`: the operator in front of a version and the
/// version (`">= 1.2"` → `(">=", "1.2")`); no operator when it does not parse.
pub fn split_comparison(v: &str) -> (String, String) {
    const OPERS: [&str; 10] = ["<=>", "!=", ">=", "<=", ">>", "<<", "<>", ">", "<", "="];
    let (oper, rest) = OPERS
        .iter()
        .find_map(|o| v.strip_prefix(o).map(|r| (*o, r)))
        .unwrap_or(("", v));
    let rest = match rest.chars().next() {
        Some(c) if c.is_whitespace() => &rest[c.len_utf8()..],
        _ => rest,
    };
    if !rest.is_empty() && !rest.contains(['<', '>', '=']) {
        (oper.to_string(), rest.to_string())
    } else {
        (String::new(), v.to_string())
    }
}

/// `(operator, version)` of one condition; a bare or `=` version means `==`.
pub fn comparison_spec(v: &str) -> (String, String) {
    let (oper, ver) = split_comparison(v.trim());
    if oper.is_empty() || oper == "=" {
        ("==".into(), ver)
    } else {
        (oper, ver)
    }
}

/// The conditions of a comma-separated version string.
pub fn parse_version_string(s: &str) -> Vec<(String, String)> {
    let s = s.trim();
    if s.is_empty() {
        return Vec::new();
    }
    s.split(',').map(comparison_spec).collect()
}

/// Salt's `salt.utils.versions.compare` with the provider's ordering.
pub fn compare(scheme: Scheme, v1: &str, oper: &str, v2: &str, ignore_epoch: bool) -> bool {
    let c = version_cmp(scheme, v1, v2, ignore_epoch);
    match oper {
        "!=" => c != 0,
        "<" => c < 0,
        "<=" => c <= 0,
        "==" => c == 0,
        ">=" => c >= 0,
        ">" => c > 0,
        _ => false,
    }
}

fn check_ignore_epoch(oper: &str, desired: &str, ignore_epoch: Option<bool>) -> bool {
    ignore_epoch
        .unwrap_or_else(|| !oper.contains('<') && !oper.contains('>') && !desired.contains(':'))
}

/// Whether one installed version meets `oper desired` (`==` also matches
/// as a glob: `1.2*`).
pub fn fulfills_spec(
    scheme: Scheme,
    installed: &str,
    oper: &str,
    desired: &str,
    ignore_epoch: Option<bool>,
) -> bool {
    (oper == "==" && brine_compile::matcher::glob::fnmatch(installed, desired))
        || compare(
            scheme,
            installed,
            oper,
            desired,
            check_ignore_epoch(oper, desired, ignore_epoch),
        )
}

/// Whether any installed version meets every condition of `conditions`
/// (with `allow_updates`, a lone `==` accepts newer versions too).
pub fn fulfills_version_string(
    scheme: Scheme,
    installed: &[String],
    conditions: &str,
    ignore_epoch: Option<bool>,
    allow_updates: bool,
) -> bool {
    let conds = parse_version_string(conditions);
    installed.iter().any(|v| {
        conds.iter().all(|(oper, want)| {
            let oper = if allow_updates && conds.len() == 1 && oper == "==" {
                ">="
            } else {
                oper.as_str()
            };
            fulfills_spec(scheme, v, oper, want, ignore_epoch)
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debian_order_matches_dpkg() {
        let cases = [
            ("1.0", "1.0", 0),
            ("1.0", "1.0-0", 0),
            ("1.0~rc1", "1.0", -1),
            ("1.0", "1.0+b1", -1),
            ("1:0.9", "2.0", 1),
            ("2.36-9+deb12u14", "2.36-9+deb12u4", 1),
            ("5.02-1+b1", "5.02-1", 1),
            ("1.2a", "1.2", 1),
            ("1.010", "1.9", 1),
            ("0:1.0", "1.0", 0),
            ("1.0-1", "1.0-1~bpo1", 1),
        ];
        for (a, b, want) in cases {
            assert_eq!(version_cmp(Scheme::Debian, a, b, false), want, "{a} vs {b}");
        }
        // Checked against the real tool where it is installed.
        if crate::modules::user::support::which("dpkg").is_some() {
            for (a, b, want) in cases {
                let op = ["lt", "eq", "gt"][(want + 1) as usize];
                let r = crate::modules::user::support::run_argv(
                    &["dpkg", "--compare-versions", a, op, b],
                    &[],
                    None,
                )
                .unwrap();
                assert_eq!(r.retcode, 0, "dpkg disagrees on {a} {op} {b}");
            }
        }
        assert_eq!(version_cmp(Scheme::Debian, "1:2.0", "2.0", true), 0);
    }

    #[test]
    fn rpm_order() {
        let cases = [
            ("1.0", "1.0", 0),
            ("1.0", "1.1", -1),
            ("1.0-1.el9", "1.0-2.el9", -1),
            ("1.0~rc1", "1.0", -1),
            ("1.0^git1", "1.0", 1),
            ("2:1.0", "1:9.9", 1),
            ("1.a", "1.1", -1),
            ("1.0", "1.0-5", 0),
            ("1.001", "1.1", 0),
        ];
        for (a, b, want) in cases {
            assert_eq!(version_cmp(Scheme::Rpm, a, b, false), want, "{a} vs {b}");
        }
    }

    #[test]
    fn conditions_like_salt() {
        assert_eq!(split_comparison(">= 1.2"), (">=".into(), "1.2".into()));
        assert_eq!(split_comparison("1.2"), ("".into(), "1.2".into()));
        assert_eq!(split_comparison("<<1"), ("<<".into(), "1".into()));
        assert_eq!(split_comparison("=>1"), ("".into(), "=>1".into()));
        assert_eq!(
            parse_version_string(">=1.0, <2.0"),
            vec![(">=".into(), "1.0".into()), ("<".into(), "2.0".into())]
        );
        let inst = vec!["1.5-1".to_string()];
        assert!(fulfills_version_string(
            Scheme::Debian,
            &inst,
            ">=1.0,<2.0",
            None,
            false
        ));
        assert!(fulfills_version_string(
            Scheme::Debian,
            &inst,
            "1.5*",
            None,
            false
        ));
        assert!(!fulfills_version_string(
            Scheme::Debian,
            &inst,
            "1.4",
            None,
            false
        ));
        assert!(fulfills_version_string(
            Scheme::Debian,
            &inst,
            "1.4",
            None,
            true
        ));
        assert!(!fulfills_version_string(
            Scheme::Debian,
            &inst,
            ">>1.0",
            None,
            false
        ));
        let epoch = vec!["1:2.0".to_string()];
        assert!(fulfills_version_string(
            Scheme::Debian,
            &epoch,
            "2.0",
            None,
            false
        ));
        assert!(!fulfills_version_string(
            Scheme::Debian,
            &epoch,
            "2.0",
            Some(false),
            false
        ));
    }
}
