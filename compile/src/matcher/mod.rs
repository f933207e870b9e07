//! Matchers: does a target expression select this minion? Used by top files
//! (`- match: grain`), the `match.*` functions and publication targeting.
//! glob, pcre, list, grain, grain_pcre, pillar, pillar_pcre, pillar_exact,
//! ipcidr, nodegroup and compound (`G@ E@ P@ L@ I@ J@ S@ N@`,
//! `and`/`or`/`not`, parentheses), as Salt 3007.8's `salt/matchers`.
//!
//! Errors: `Ok(false)` wherever Salt logs a problem and answers False (a
//! malformed compound expression, an unknown nodegroup, a bad grain_pcre
//! regex, an invalid ipcidr target); `Err` wherever Salt raises (an unknown
//! matcher, a bad `pcre`/`E@` regex, a non-address in the ip grains). A top
//! file fails on `Err`, as Salt's pillar compile does; the `match.*` functions
//! catch everything and answer False, so their callers map `Err` to `false`.

pub mod compound;
mod error;
pub mod glob;
pub mod grain;
pub mod ipcidr;
pub mod list;
pub mod nodegroup;
pub mod pcre;

use crate::MinionData;
use grain::Mode;

pub use compound::compound_words;
pub use error::{InvalidReason, MatchError};

/// Salt's `DEFAULT_TARGET_DELIM`.
pub const DEFAULT_DELIMITER: &str = ":";

/// Does `expr`, read by the matcher named `match_type` ("glob", "pcre",
/// "compound", ...), select `minion`? Nodegroups come from
/// `minion.opts["nodegroups"]`; grain/pillar paths use `:` as delimiter.
pub fn matches(match_type: &str, expr: &str, minion: &MinionData) -> Result<bool, MatchError> {
    matches_with_delimiter(match_type, expr, DEFAULT_DELIMITER, minion)
}

/// [`matches`] with another delimiter for the grain and pillar matchers
/// (`match.grain('ipv6|2001:db8::1', delimiter='|')`); others ignore it.
pub fn matches_with_delimiter(
    match_type: &str,
    expr: &str,
    delimiter: &str,
    minion: &MinionData,
) -> Result<bool, MatchError> {
    let invalid = |reason: InvalidReason| MatchError::Invalid {
        matcher: match_type.to_string(),
        expr: expr.to_string(),
        reason,
    };
    let subdict = |data: &brine_core::Value, mode: Mode| {
        if delimiter.is_empty() {
            // Python's str.split raises on an empty separator.
            return Err(invalid(InvalidReason::EmptySeparator));
        }
        if !expr.contains(delimiter) {
            tracing::error!("Got insufficient arguments for {match_type} match statement");
            return Ok(false);
        }
        Ok(grain::subdict_match(data, expr, delimiter, mode))
    };
    match match_type {
        "glob" => Ok(glob::fnmatch(&minion.id, expr)),
        "pcre" => pcre::re_match(expr, &minion.id).map_err(|e| invalid(e.into())),
        "list" => Ok(list::list_match(expr, &minion.id)),
        "grain" => subdict(&minion.grains, Mode::Glob),
        "grain_pcre" => subdict(&minion.grains, Mode::Regex),
        "pillar" => subdict(&minion.pillar, Mode::Glob),
        "pillar_pcre" => subdict(&minion.pillar, Mode::Regex),
        "pillar_exact" => subdict(&minion.pillar, Mode::Exact),
        "ipcidr" => match ipcidr::ipcidr_match(expr, &minion.grains) {
            Ok(ipcidr::Outcome::Match(hit)) => Ok(hit),
            Ok(ipcidr::Outcome::InvalidTarget) => Ok(false),
            Err(reason) => Err(invalid(reason.into())),
        },
        "compound" => compound::compound_match(expr, minion),
        "nodegroup" => {
            let Some(groups) = minion.opts.get("nodegroups").and_then(|v| v.as_map()) else {
                return Ok(false);
            };
            if groups.is_empty() || !groups.contains_key(expr) {
                return Ok(false);
            }
            compound_words(nodegroup::nodegroup_comp(expr, groups), expr, minion)
        }
        // Salt's range matcher needs the seco.range library, which Salt does
        // not ship; without it the answer is always False.
        "range" => Ok(false),
        // The data matcher reads the minion's local datastore, which the
        // compile side does not have.
        "data" => Err(MatchError::Unsupported("data".into())),
        other => Err(MatchError::UnknownMatcher(other.to_string())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use brine_core::Value;

    /// The minion real Salt answered for: grains, pillar and nodegroups as
    /// Salt 3007.8 loaded them from a minion config (testdata/salt_minion.json).
    fn salt_minion() -> MinionData {
        let json: serde_json::Value =
            serde_json::from_str(include_str!("testdata/salt_minion.json")).unwrap_or_default();
        let v = Value::from_json(&json);
        MinionData {
            id: v
                .get("id")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string(),
            grains: v.get("grains").cloned().unwrap_or_default(),
            pillar: v.get("pillar").cloned().unwrap_or_default(),
            opts: v.get("opts").cloned().unwrap_or_default(),
            functions: Default::default(),
        }
    }

    /// (matcher, expression, what Salt 3007.8's `<matcher>_match.match`
    /// returned as a truth value, `None` where it raised), called the way
    /// `confirm_top` calls it for a top file entry.
    const SALT_CASES: &[(&str, &str, Option<bool>)] = include!("testdata/salt_cases.rs");

    #[test]
    fn answers_like_salt() {
        let minion = salt_minion();
        assert_eq!(minion.id, "web01.prod.example.com");
        let mut bad = Vec::new();
        for (matcher, expr, want) in SALT_CASES {
            let got = matches(matcher, expr, &minion);
            let same = match (&got, want) {
                (Ok(g), Some(w)) => g == w,
                (Err(_), None) => true,
                _ => false,
            };
            if !same {
                bad.push(format!("{matcher} {expr:?}: salt {want:?}, brine {got:?}"));
            }
        }
        assert!(
            bad.is_empty(),
            "{} mismatches:\n{}",
            bad.len(),
            bad.join("\n")
        );
    }

    /// Conformance case `pillar-matchers`: the top file's entries for minion
    /// `web.qa.loc`, and which of them real Salt included in the pillar.
    #[test]
    fn conformance_pillar_matchers() {
        let grains = serde_json::json!({
            "os": "Ubuntu", "os_family": "Debian", "role": "monitoring",
            "ipv4": ["10.10.100.7", "127.0.0.1"], "id": "web.qa.loc",
        });
        let minion = MinionData {
            id: "web.qa.loc".into(),
            grains: Value::from_json(&grains),
            ..MinionData::default()
        };
        let entries = [
            ("compound", "*", "all"),
            ("pcre", "^(memcache|web).(qa|prod).loc$", "pcre_hit"),
            ("grain", "os:Ubuntu", "grain_hit"),
            ("grain_pcre", "os:(RedHat|CentOS)", "grain_pcre_miss"),
            ("grain_pcre", "os_family:Deb.*", "grain_pcre_hit"),
            ("list", "foo,web.qa.loc,baz", "list_hit"),
            ("compound", "nag1* or G@role:monitoring", "compound_hit"),
            ("compound", "web* and not G@os:Ubuntu", "compound_miss"),
            ("ipcidr", "10.10.100.0/24", "cidr_hit"),
            ("ipcidr", "10.10.101.0/24", "cidr_miss"),
        ];
        let mut included = Vec::new();
        for (matcher, expr, sls) in entries {
            if matches(matcher, expr, &minion).unwrap_or(false) {
                included.push(sls);
            }
        }
        assert_eq!(
            included,
            [
                "all",
                "pcre_hit",
                "grain_hit",
                "grain_pcre_hit",
                "list_hit",
                "compound_hit",
                "cidr_hit"
            ]
        );
    }

    #[test]
    fn errors_and_unsupported() {
        let minion = salt_minion();
        assert_eq!(
            matches("compound", "E@( or *", &minion).map_err(|e| e.to_string()),
            Err(
                "invalid compound expression 'E@( or *': E@(: missing ), unterminated subpattern"
                    .into()
            )
        );
        assert_eq!(
            matches("pcre", "a**", &minion).map_err(|e| e.to_string()),
            Err("invalid pcre expression 'a**': multiple repeat".into())
        );
        assert!(matches!(
            matches("bogus", "x", &minion),
            Err(MatchError::UnknownMatcher(_))
        ));
        assert!(matches!(
            matches("data", "x:y", &minion),
            Err(MatchError::Unsupported(_))
        ));
        assert!(matches!(
            matches_with_delimiter("grain", "os:Ubuntu", "", &minion),
            Err(MatchError::Invalid { .. })
        ));
        assert_eq!(
            matches_with_delimiter("grain", "path|a|b", "|", &minion).ok(),
            Some(true)
        );
        // Salt 3007.8: grain_match.match(expr, delimiter=...) is True for all.
        for (expr, delim) in [
            ("ipv6|fe80::1", "|"),
            ("nested|a|b|c", "|"),
            ("nested|a:b:c", "|"),
            ("os::Ubuntu", "::"),
            ("nested::a::b::c", "::"),
        ] {
            assert_eq!(
                matches_with_delimiter("grain", expr, delim, &minion).ok(),
                Some(true),
                "{expr} with {delim}"
            );
        }
    }
}
