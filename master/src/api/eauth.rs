//! Salt's external authentication backends: who a login is. `auto`
//! (anyone — for tests only, as Salt documents it), `sharedsecret` (the
//! master's `sharedsecret` as password) and `file` (Salt's `text` file of
//! `user:password` lines; `^filename`, `^filetype`, `^hashtype:
//! plaintext`, `^field_separator`, `^username_field`,
//! `^password_field`). A backend the login names must be a key of
//! `external_auth`.

use super::config::ApiConfig;
use brine_core::Value;

/// Why a login did not authenticate (the client is told only Salt's
/// words; the log gets this).
#[derive(Debug, thiserror::Error)]
pub enum EauthError {
    #[error("eauth backend {0:?} is not in external_auth")]
    NotConfigured(String),
    #[error("eauth backend {0:?} is not one brine knows (auto, sharedsecret, file)")]
    Unknown(String),
    #[error("wrong password for {user} ({eauth})")]
    Refused { eauth: String, user: String },
    #[error("eauth file: {0}")]
    File(String),
}

/// Does `password` authenticate `user` with `eauth`?
pub fn authenticate(
    cfg: &ApiConfig,
    eauth: &str,
    user: &str,
    password: &str,
) -> Result<(), EauthError> {
    let Some(table) = cfg.external_auth.get(eauth) else {
        return Err(EauthError::NotConfigured(eauth.to_string()));
    };
    let refused = || EauthError::Refused {
        eauth: eauth.to_string(),
        user: user.to_string(),
    };
    let ok = match eauth {
        "auto" => true,
        "sharedsecret" => cfg
            .sharedsecret
            .as_deref()
            .is_some_and(|s| !s.is_empty() && constant_time_eq(s.as_bytes(), password.as_bytes())),
        "file" => file_check(table, user, password)?,
        other => return Err(EauthError::Unknown(other.to_string())),
    };
    if ok {
        Ok(())
    } else {
        Err(refused())
    }
}

/// Compare without stopping at the first difference.
fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// Salt's `file` eauth with a `text` file of plain passwords.
fn file_check(table: &Value, user: &str, password: &str) -> Result<bool, EauthError> {
    let get = |k: &str| table.get(k).map(Value::to_python_str);
    let path = get("^filename").ok_or_else(|| EauthError::File("^filename is not set".into()))?;
    let filetype = get("^filetype").unwrap_or_else(|| "text".into());
    if filetype != "text" {
        return Err(EauthError::File(format!(
            "^filetype {filetype} is not supported yet (text is)"
        )));
    }
    let hashtype = get("^hashtype").unwrap_or_else(|| "plaintext".into());
    if hashtype != "plaintext" {
        return Err(EauthError::File(format!(
            "^hashtype {hashtype} is not supported yet (plaintext is)"
        )));
    }
    let sep = get("^field_separator").unwrap_or_else(|| ":".into());
    let field = |k: &str, d: usize| {
        table
            .get(k)
            .and_then(Value::as_i64)
            .and_then(|i| usize::try_from(i).ok())
            .unwrap_or(d)
    };
    let (uf, pf) = (field("^username_field", 1), field("^password_field", 2));
    let text =
        std::fs::read_to_string(&path).map_err(|e| EauthError::File(format!("{path}: {e}")))?;
    for line in text.lines() {
        let parts: Vec<&str> = line.split(sep.as_str()).collect();
        let (Some(u), Some(p)) = (parts.get(uf.wrapping_sub(1)), parts.get(pf.wrapping_sub(1)))
        else {
            continue;
        };
        if *u == user {
            return Ok(constant_time_eq(p.as_bytes(), password.as_bytes()));
        }
    }
    Ok(false)
}
