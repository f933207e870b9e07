//! Why a target expression cannot be matched, in Salt's words.

use super::{ipcidr, pcre};

#[derive(Debug, thiserror::Error)]
pub enum MatchError {
    #[error("unknown matcher '{0}'")]
    UnknownMatcher(String),
    #[error("invalid {matcher} expression '{expr}': {reason}")]
    Invalid {
        matcher: String,
        expr: String,
        reason: InvalidReason,
    },
    #[error("the {0} matcher is not supported by brine")]
    Unsupported(String),
}

/// Why an expression is invalid where Salt raises.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum InvalidReason {
    #[error(transparent)]
    Regex(#[from] pcre::RegexError),
    #[error(transparent)]
    Ipcidr(#[from] ipcidr::IpcidrError),
    /// `delimiter=''` (Python's `str.split` raises).
    #[error("empty separator")]
    EmptySeparator,
    /// One word of a compound expression (`E@pattern`, `S@pattern`).
    #[error("{engine}@{pattern}: {reason}")]
    Word {
        engine: char,
        pattern: String,
        reason: Box<InvalidReason>,
    },
}
