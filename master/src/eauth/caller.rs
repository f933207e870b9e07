//! Who a request of the CLI is, and whether they may publish what they
//! ask: the holder of the root token (root, or brine-api publishing for
//! the user it checked), a local user under `publisher_acl` (the key in
//! their key file), or the owner of an eauth token (`brine -a`, `-T`).
//! The master's side of every local way in; [`LoginRate`] bounds
//! password guessing for brine-api's `/login` and the CLI's alike.

use super::publisher_acl::{self, PublisherAcl};
use super::tokens::{Session, TokenError, Tokens};
use super::{acl, Eauth, EauthError};
use crate::keys::token_matches;
use brine_core::Value;
use std::collections::HashMap;
use std::net::IpAddr;
use std::path::Path;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Login attempts one address may make a minute.
pub const LOGINS_PER_MINUTE: u32 = 30;
/// Addresses counted at once (the oldest counts go first).
const MAX_COUNTED_ADDRESSES: usize = 65_536;

/// Login attempts per address (`None`: the local socket), a minute each.
#[derive(Default)]
pub struct LoginRate {
    seen: Mutex<HashMap<Option<IpAddr>, (Instant, u32)>>,
}

impl LoginRate {
    /// Count an attempt from `from`; false past the limit.
    pub fn allow(&self, from: Option<IpAddr>) -> bool {
        let mut g = self.seen.lock().unwrap_or_else(|p| p.into_inner());
        let now = Instant::now();
        let minute = Duration::from_secs(60);
        if g.len() >= MAX_COUNTED_ADDRESSES {
            g.retain(|_, (since, _)| now.duration_since(*since) < minute);
        }
        if g.len() >= MAX_COUNTED_ADDRESSES && !g.contains_key(&from) {
            return false;
        }
        let e = g.entry(from).or_insert((now, 0));
        if now.duration_since(e.0) >= minute {
            *e = (now, 0);
        }
        e.1 += 1;
        e.1 <= LOGINS_PER_MINUTE
    }
}

/// Who asks.
#[derive(Debug, Clone, PartialEq)]
pub enum Caller {
    /// The root token's holder, publishing as `user` (root when none).
    Root { user: Option<String> },
    /// A local user under `publisher_acl`.
    Local(String),
    /// An eauth token's owner.
    Token(Session),
}

impl Caller {
    /// The job's user.
    pub fn name(&self) -> &str {
        match self {
            Caller::Root { user } => user.as_deref().unwrap_or("root"),
            Caller::Local(u) => u,
            Caller::Token(s) => &s.user,
        }
    }
}

/// Why a publication is refused (the caller is told Salt's words).
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum Refusal {
    #[error("{user} does not have permissions to run {fun} (publisher_acl_blacklist)")]
    Blacklisted { user: String, fun: String },
    #[error("{0} is named by no publisher_acl entry")]
    NoAcl(String),
    #[error("{user} may not run {fun} on {tgt}")]
    Forbidden {
        user: String,
        fun: String,
        tgt: String,
    },
}

impl Refusal {
    /// Salt's words for it (its master's error `message`).
    pub fn salt_message(&self) -> &'static str {
        match self {
            Refusal::NoAcl(_) => "Authentication error occurred.",
            _ => "Authorization error occurred.",
        }
    }
}

/// What a login through the CLI failed on.
#[derive(Debug, thiserror::Error)]
pub enum LoginError {
    #[error("too many login attempts; try again in a minute")]
    TooMany,
    #[error(transparent)]
    Eauth(#[from] EauthError),
    #[error(transparent)]
    Token(#[from] TokenError),
}

/// The master's access control for its local clients.
pub struct Access {
    root_token: String,
    pub publisher_acl: PublisherAcl,
    user_keys: HashMap<String, String>,
    pub eauth: Eauth,
    pub tokens: Tokens,
    token_expire: u64,
    pub logins: LoginRate,
}

impl std::fmt::Debug for Access {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Keys and tokens never reach a log.
        f.debug_struct("Access")
            .field("publisher_acl_users", &self.user_keys.keys())
            .finish_non_exhaustive()
    }
}

/// Salt's `token_expire` default (12 hours).
pub const DEFAULT_TOKEN_EXPIRE: u64 = 43_200;

/// `token_expire` from the master's options.
pub fn token_expire(o: &brine_core::Map) -> u64 {
    match o.get("token_expire") {
        Some(Value::Int(i)) if *i > 0 => *i as u64,
        _ => DEFAULT_TOKEN_EXPIRE,
    }
}

impl Access {
    /// The master's access control: `publisher_acl` users get their key
    /// files in `sock_dir` (made now when missing).
    pub fn open(
        o: &brine_core::Map,
        cachedir: &Path,
        sock_dir: &Path,
        root_token: String,
    ) -> Access {
        let publisher_acl = PublisherAcl::from_opts(o);
        let user_keys = if publisher_acl.is_empty() {
            HashMap::new()
        } else {
            publisher_acl::user_keys(sock_dir, &publisher_acl)
        };
        Access {
            root_token,
            publisher_acl,
            user_keys,
            eauth: Eauth::from_opts(o),
            tokens: Tokens::for_cachedir(cachedir),
            token_expire: token_expire(o),
            logins: LoginRate::default(),
        }
    }

    /// Whether local users other than the master's may use it: some
    /// `publisher_acl` or `external_auth` is configured.
    pub fn serves_local_users(&self) -> bool {
        !self.publisher_acl.is_empty() || !self.eauth.external_auth.is_empty()
    }

    /// Who presents `token` (for `user`, when they name one).
    pub fn caller(&self, token: &str, user: Option<&str>) -> Option<Caller> {
        if token_matches(&self.root_token, token) {
            return Some(Caller::Root {
                user: user.map(str::to_string),
            });
        }
        if let Some(u) = user {
            if self
                .user_keys
                .get(u)
                .is_some_and(|k| token_matches(k, token))
            {
                return Some(Caller::Local(u.to_string()));
            }
        }
        self.tokens.get(token).map(Caller::Token)
    }

    /// May `caller` publish `fun` with `arg` and `kwarg` to what `tgt`
    /// selects? `expand` lists the minions a target selects.
    #[allow(clippy::too_many_arguments)]
    pub fn may_publish(
        &self,
        caller: &Caller,
        fun: &str,
        arg: &[Value],
        kwarg: &brine_core::Map,
        tgt: &Value,
        tgt_type: &str,
        expand: &dyn Fn(&Value, &str) -> Vec<String>,
    ) -> Result<(), Refusal> {
        let user = caller.name();
        if self.publisher_acl.blacklisted(user, fun) {
            return Err(Refusal::Blacklisted {
                user: user.to_string(),
                fun: fun.to_string(),
            });
        }
        let perms = match caller {
            // brine-api checked its user's permissions itself.
            Caller::Root { .. } => return Ok(()),
            Caller::Local(u) => {
                let l = self.publisher_acl.auth_list(u);
                if l.is_empty() {
                    return Err(Refusal::NoAcl(u.clone()));
                }
                l
            }
            Caller::Token(s) => s.perms.clone(),
        };
        // Salt lets everyone ask after their own job; the check sees the
        // arguments in Salt's form (kwargs last), made only when checked.
        let args = brine_core::args::salt_arguments(arg, kwarg);
        if fun == "saltutil.find_job" || acl::allows_job(&perms, fun, &args, tgt, tgt_type, expand)
        {
            Ok(())
        } else {
            Err(Refusal::Forbidden {
                user: user.to_string(),
                fun: fun.to_string(),
                tgt: tgt.to_python_str(),
            })
        }
    }

    /// `brine -a`'s login: a token for `username` (bounded per address).
    pub fn login(
        &self,
        from: Option<IpAddr>,
        backend: &str,
        username: &str,
        password: &str,
    ) -> Result<Session, LoginError> {
        if !self.logins.allow(from) {
            return Err(LoginError::TooMany);
        }
        let l = self.eauth.login(backend, username, password)?;
        Ok(self
            .tokens
            .mint(&l.user, &l.eauth, l.perms, l.groups, self.token_expire)?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn callers_and_what_they_may_publish() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let o = match Value::from_json(&serde_json::json!({
            "publisher_acl": {"nobody": [{"web*": ["test.*"]}]},
            "publisher_acl_blacklist": {"modules": ["cmd.*"]},
            "external_auth": {"auto": {"ops": ["grains.*"]}},
        })) {
            Value::Map(m) => m,
            _ => brine_core::Map::default(),
        };
        let a = Access::open(&o, dir.path(), dir.path(), "r".repeat(40));
        let expand = |t: &Value, _: &str| -> Vec<String> {
            let all = ["web1", "db1"];
            all.iter()
                .filter(|m| brine_compile::matcher::glob::fnmatch(m, &t.to_python_str()))
                .map(|m| m.to_string())
                .collect()
        };
        let root = a.caller(&"r".repeat(40), None);
        assert_eq!(root, Some(Caller::Root { user: None }));
        assert!(a.caller("wrong", Some("nobody")).is_none());
        let web = Value::Str("web1".into());
        let root = Caller::Root { user: None };
        assert!(a
            .may_publish(
                &root,
                "test.ping",
                &[],
                &brine_core::Map::default(),
                &web,
                "glob",
                &expand
            )
            .is_ok());
        // The blacklist binds root too.
        assert!(matches!(
            a.may_publish(
                &root,
                "cmd.run",
                &[],
                &brine_core::Map::default(),
                &web,
                "glob",
                &expand
            ),
            Err(Refusal::Blacklisted { .. })
        ));
        let nobody = Caller::Local("nobody".into());
        assert!(a
            .may_publish(
                &nobody,
                "test.ping",
                &[],
                &brine_core::Map::default(),
                &web,
                "glob",
                &expand
            )
            .is_ok());
        let db = Value::Str("db1".into());
        let e = a.may_publish(
            &nobody,
            "test.ping",
            &[],
            &brine_core::Map::default(),
            &db,
            "glob",
            &expand,
        );
        assert!(matches!(e, Err(Refusal::Forbidden { .. })));
        let everyone = Value::Str("*".into());
        assert!(a
            .may_publish(
                &nobody,
                "test.ping",
                &[],
                &brine_core::Map::default(),
                &everyone,
                "glob",
                &expand
            )
            .is_err());
        let stranger = Caller::Local("stranger".into());
        assert_eq!(
            a.may_publish(
                &stranger,
                "test.ping",
                &[],
                &brine_core::Map::default(),
                &web,
                "glob",
                &expand
            )
            .map_err(|e| e.salt_message()),
            Err("Authentication error occurred.")
        );
        // A CLI login mints a token the master then knows its owner by.
        let s = a
            .login(None, "auto", "ops", "")
            .unwrap_or_else(|e| panic!("{e}"));
        let c = a.caller(&s.token, None);
        assert!(matches!(&c, Some(Caller::Token(t)) if t.user == "ops"));
        let c = c.unwrap_or(root);
        assert!(a
            .may_publish(
                &c,
                "grains.items",
                &[],
                &brine_core::Map::default(),
                &db,
                "glob",
                &expand
            )
            .is_ok());
        assert!(a
            .may_publish(
                &c,
                "test.ping",
                &[],
                &brine_core::Map::default(),
                &db,
                "glob",
                &expand
            )
            .is_err());
        assert!(matches!(
            a.login(None, "pam_nope", "ops", ""),
            Err(LoginError::Eauth(_))
        ));
    }
}
