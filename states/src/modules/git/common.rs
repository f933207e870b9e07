//! What the git states share: their argument reading and Salt's comment
//! joining and URL credentials.

use crate::StateCall;
use brine_core::Value;

/// A string argument (`None` when missing or None; others as Python's
/// `str()`).
pub fn arg_str(call: &StateCall, key: &str) -> Option<String> {
    match call.arg(key) {
        None | Some(Value::Null) => None,
        Some(v) => Some(v.to_python_str()),
    }
}

/// Salt's `_format_comments`: joined by ". ", with a final "." when more
/// than one.
pub fn format_comments(comments: &[String]) -> String {
    let mut s = comments.join(". ");
    if comments.len() > 1 {
        s.push('.');
    }
    s
}

/// Salt's `add_http_basic_auth(url, user, password, https_only=True)`.
pub fn with_http_auth(
    url: &str,
    user: Option<&str>,
    password: Option<&str>,
) -> Result<String, String> {
    if user.is_none() && password.is_none() {
        return Ok(url.to_string());
    }
    let Some(rest) = url.strip_prefix("https://") else {
        return Err("Basic Auth only supported for HTTPS".into());
    };
    let creds = match (user, password) {
        (Some(u), Some(p)) => format!("{u}:{p}"),
        (Some(u), None) => u.to_string(),
        (None, Some(p)) => format!(":{p}"),
        (None, None) => String::new(),
    };
    Ok(format!("https://{creds}@{rest}"))
}
