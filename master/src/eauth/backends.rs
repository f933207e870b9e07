//! Salt's external authentication backends: who a login is, and the
//! groups it is in. `auto` (anyone — for tests only, as Salt documents
//! it), `sharedsecret` (the master's `sharedsecret` as password), `file`
//! (Salt's `text`, `htpasswd` and `htdigest` files) and `pam` (the
//! system's PAM; groups are the user's system groups). A backend a login
//! names must be a key of `external_auth`. [`Eauth`] holds the master's
//! settings for them and turns a login into what the user may do.

use super::{acl, htpasswd, pam};
use brine_compile::opts;
use brine_core::{Map, Value};

/// Why a login did not authenticate (the client is told only Salt's
/// words; the log gets this).
#[derive(Debug, thiserror::Error)]
pub enum EauthError {
    #[error("eauth backend {0:?} is not in external_auth")]
    NotConfigured(String),
    #[error("eauth backend {0:?} is not one brine knows (auto, sharedsecret, file, pam)")]
    Unknown(String),
    #[error("wrong password for {user} ({eauth})")]
    Refused { eauth: String, user: String },
    #[error("eauth file: {0}")]
    File(String),
    #[error("pam: {0}")]
    Pam(String),
}

/// Salt's default PAM service (`auth.pam.service`).
const DEFAULT_PAM_SERVICE: &str = "login";

/// The master's external authentication settings.
#[derive(Debug, Clone, Default)]
pub struct Eauth {
    /// `external_auth`: backend → user (or `group%`, `*`) → permissions.
    pub external_auth: Map,
    pub sharedsecret: Option<String>,
    /// `auth.pam.service`.
    pub pam_service: String,
}

/// A login that authenticated.
#[derive(Debug, Clone, PartialEq)]
pub struct Login {
    pub user: String,
    pub eauth: String,
    pub groups: Vec<String>,
    /// What they may do, as the master enforces it.
    pub perms: Vec<Value>,
}

impl Eauth {
    pub fn from_opts(o: &Map) -> Eauth {
        Eauth {
            external_auth: match o.get("external_auth") {
                Some(Value::Map(m)) => m.clone(),
                _ => Map::default(),
            },
            sharedsecret: opts::get_str(o, "sharedsecret").map(str::to_string),
            pam_service: opts::get_str(o, "auth.pam.service")
                .unwrap_or(DEFAULT_PAM_SERVICE)
                .to_string(),
        }
    }

    /// Check `user`'s `password` with `backend`; what they may do.
    pub fn login(&self, backend: &str, user: &str, password: &str) -> Result<Login, EauthError> {
        let groups = authenticate(self, backend, user, password)?;
        let perms = match self.external_auth.get(backend) {
            Some(Value::Map(table)) => acl::auth_list(table, user, &groups),
            _ => Vec::new(),
        };
        Ok(Login {
            user: user.to_string(),
            eauth: backend.to_string(),
            groups,
            perms,
        })
    }

    /// What a login shows as its permissions (salt-api's `perms`).
    pub fn shown(&self, login: &Login) -> Vec<Value> {
        match self.external_auth.get(&login.eauth) {
            Some(Value::Map(table)) => acl::shown(table, &login.user, &login.groups),
            _ => Vec::new(),
        }
    }
}

/// The backends brine has.
pub const KNOWN: [&str; 4] = ["auto", "file", "pam", "sharedsecret"];

/// Does `password` authenticate `user` with `backend`? Their groups
/// when it does (only `pam` knows any, as in Salt).
pub fn authenticate(
    eauth: &Eauth,
    backend: &str,
    user: &str,
    password: &str,
) -> Result<Vec<String>, EauthError> {
    let Some(table) = eauth.external_auth.get(backend) else {
        return Err(EauthError::NotConfigured(backend.to_string()));
    };
    let mut groups = Vec::new();
    let ok = match backend {
        "auto" => true,
        "sharedsecret" => eauth.sharedsecret.as_deref().is_some_and(|s| {
            !s.is_empty() && htpasswd::constant_time_eq(s.as_bytes(), password.as_bytes())
        }),
        "file" => file_check(table, user, password)?,
        "pam" => {
            let ok = pam::authenticate(&eauth.pam_service, user, password)
                .map_err(|e| EauthError::Pam(e.to_string()))?;
            if ok {
                groups = pam::groups(user);
            }
            ok
        }
        other => return Err(EauthError::Unknown(other.to_string())),
    };
    if ok {
        Ok(groups)
    } else {
        Err(EauthError::Refused {
            eauth: backend.to_string(),
            user: user.to_string(),
        })
    }
}

/// Salt's `file` eauth: `^filename`, `^filetype` (`text`, `htpasswd`,
/// `htdigest` with `^realm`), and for `text` `^hashtype` (`plaintext` or
/// a digest of the password in hex), `^field_separator`,
/// `^username_field`, `^password_field`.
fn file_check(table: &Value, user: &str, password: &str) -> Result<bool, EauthError> {
    let get = |k: &str| table.get(k).map(Value::to_python_str);
    let path = get("^filename").ok_or_else(|| EauthError::File("^filename is not set".into()))?;
    let text =
        std::fs::read_to_string(&path).map_err(|e| EauthError::File(format!("{path}: {e}")))?;
    match get("^filetype").as_deref().unwrap_or("text") {
        "text" => {}
        "htpasswd" => return Ok(htpasswd::check_htpasswd(&text, user, password)),
        "htdigest" => {
            let realm = get("^realm").ok_or_else(|| {
                EauthError::File("^realm must be set for ^filetype htdigest".into())
            })?;
            return Ok(htpasswd::check_htdigest(&text, &realm, user, password));
        }
        other => {
            return Err(EauthError::File(format!(
                "^filetype {other} is not one of text, htpasswd, htdigest"
            )))
        }
    }
    let hashtype = get("^hashtype").unwrap_or_else(|| "plaintext".into());
    let sep = get("^field_separator").unwrap_or_else(|| ":".into());
    let field = |k: &str, d: usize| {
        table
            .get(k)
            .and_then(|v| match v {
                Value::Int(i) => Some(*i),
                other => other.to_python_str().parse().ok(),
            })
            .and_then(|i| usize::try_from(i).ok())
            .unwrap_or(d)
    };
    let (uf, pf) = (field("^username_field", 1), field("^password_field", 2));
    for line in text.lines() {
        let parts: Vec<&str> = line.trim().split(sep.as_str()).collect();
        // As Salt: a line without the fields ends the search.
        let (Some(u), Some(p)) = (parts.get(uf.wrapping_sub(1)), parts.get(pf.wrapping_sub(1)))
        else {
            return Ok(false);
        };
        if *u == user {
            let given = if hashtype == "plaintext" {
                password.to_string()
            } else {
                htpasswd::hex_digest(&hashtype, password).ok_or_else(|| {
                    EauthError::File(format!(
                        "^hashtype {hashtype} is not one of plaintext, md5, sha1, sha224, \
                         sha256, sha384, sha512"
                    ))
                })?
            };
            return Ok(htpasswd::constant_time_eq(p.as_bytes(), given.as_bytes()));
        }
    }
    Ok(false)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn eauth(j: serde_json::Value) -> Eauth {
        match Value::from_json(&j) {
            Value::Map(m) => Eauth::from_opts(&m),
            _ => Eauth::default(),
        }
    }

    #[test]
    fn file_logins_text_digest_and_htpasswd() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let text = dir.path().join("users.txt");
        let ht = dir.path().join("htpasswd");
        let write = |p: &std::path::Path, t: &str| {
            std::fs::write(p, t).unwrap_or_else(|e| panic!("{e}"));
        };
        write(&text, "alice|e5e9fa1ba31ecd1ae84f75caaa474f3a663f05f4\n");
        write(&ht, "bob:$apr1$xyz$NU.niW1.aK5j0LYFfMca4/\n");
        let e = eauth(serde_json::json!({
            "external_auth": {"file": {
                "^filename": text.display().to_string(),
                "^hashtype": "sha1",
                "^field_separator": "|",
                "alice": ["test.*"],
            }},
        }));
        let l = e.login("file", "alice", "secret");
        assert_eq!(l.map(|l| l.perms.len()).ok(), Some(1));
        assert!(e.login("file", "alice", "Secret").is_err());
        let e = eauth(serde_json::json!({
            "external_auth": {"file": {
                "^filename": ht.display().to_string(),
                "^filetype": "htpasswd",
                "bob": ["test.ping"],
            }},
        }));
        assert!(e.login("file", "bob", "password").is_ok());
        assert!(e.login("file", "bob", "passw0rd").is_err());
        assert!(matches!(
            e.login("pam", "bob", "password"),
            Err(EauthError::NotConfigured(_))
        ));
    }
}
