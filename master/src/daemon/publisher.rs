//! Publishing a job (Salt's `publish`): a new jid, the minions expected to
//! answer (accepted keys whose cached data matches the target), `pillar=`
//! data sealed per expected minion, the signed [`Publication`] for the PUB
//! socket, and the job recorded in the job cache.

use super::jobs::{Job, JobCache};
use super::minion_cache::{MinionCache, Needs};
use crate::keys::{KeyState, KeyStore};
use brine_compile::matcher;
use brine_core::{Map, Value};
use brine_protocol::crypto::{self, KeyPair};
use brine_protocol::messages::{
    aad, root_user, seal_data, sign_frame, CliPublish, Publication, SealedPublication, WireError,
    PROTOCOL_VERSION,
};
use indexmap::IndexMap;
use serde_bytes::ByteArray;
use std::sync::Mutex;

#[derive(Debug, thiserror::Error)]
pub enum PublishError {
    #[error("cannot list the accepted keys: {0}")]
    Keys(#[from] crate::keys::KeyStoreError),
    #[error("invalid target: {0}")]
    Target(String),
    #[error(transparent)]
    Wire(#[from] WireError),
    #[error(transparent)]
    Session(#[from] super::session::SessionError),
    #[error(transparent)]
    Crypto(#[from] crypto::CryptoError),
    #[error(transparent)]
    JobCache(#[from] super::jobs::JobCacheError),
}

/// Salt's CLI target types.
pub const TARGET_TYPES: &[&str] = &[
    "glob",
    "pcre",
    "list",
    "grain",
    "grain_pcre",
    "pillar",
    "pillar_pcre",
    "pillar_exact",
    "nodegroup",
    "compound",
    "ipcidr",
];

/// Job ids as Salt makes them (`%Y%m%d%H%M%S%f`, in local time unless
/// `utc_jid`), strictly increasing within this master so two jobs in one
/// microsecond still differ.
#[derive(Debug, Default)]
pub struct JidGen {
    last: Mutex<i64>,
    /// `utc_jid`: ids in UTC rather than local time.
    pub utc: bool,
}

impl JidGen {
    pub fn new(utc: bool) -> JidGen {
        JidGen {
            last: Mutex::new(0),
            utc,
        }
    }

    pub fn next(&self) -> String {
        let now_us = brine_host::time::now_micros();
        let mut last = self.last.lock().unwrap_or_else(|p| p.into_inner());
        let us = now_us.max(last.saturating_add(1));
        *last = us;
        brine_host::time::jid(us, self.utc)
    }
}

/// The target as one expression string (a list target joined by commas).
pub fn target_expr(tgt: &Value) -> String {
    match tgt {
        Value::List(l) => l
            .iter()
            .map(Value::to_python_str)
            .collect::<Vec<_>>()
            .join(","),
        other => other.to_python_str(),
    }
}

/// Salt's `_prep_pub`: a nodegroup target, and `N@` words of a compound
/// one, resolved into compound words from the master's `nodegroups`, so
/// minions need no nodegroup configuration.
pub fn resolve_nodegroups(
    tgt: &Value,
    tgt_type: &str,
    master_opts: &Map,
) -> Result<(Value, String), PublishError> {
    let empty = Map::default();
    let groups = master_opts
        .get("nodegroups")
        .and_then(Value::as_map)
        .unwrap_or(&empty);
    let resolve = |ng: &str| {
        if !groups.contains_key(ng) {
            return Err(PublishError::Target(format!(
                "Node group {ng} unavailable in the master config file"
            )));
        }
        Ok(matcher::nodegroup::nodegroup_comp(ng, groups))
    };
    match tgt_type {
        "nodegroup" => Ok((
            Value::Str(resolve(&target_expr(tgt))?.join(" ")),
            "compound".into(),
        )),
        "compound" => {
            let mut words = Vec::new();
            for word in target_expr(tgt).split_whitespace() {
                match word.strip_prefix("N@").filter(|ng| !ng.is_empty()) {
                    Some(ng) => words.extend(resolve(ng)?),
                    None => words.push(word.to_string()),
                }
            }
            Ok((Value::Str(words.join(" ")), "compound".into()))
        }
        _ => Ok((tgt.clone(), tgt_type.to_string())),
    }
}

/// Accepted minions the target selects, judged on each one's cached grains
/// and pillar (Salt's `check_minions`), sorted.
pub fn expected_minions(
    keys: &KeyStore,
    cache: &MinionCache,
    master_opts: &Map,
    tgt: &Value,
    tgt_type: &str,
) -> Result<Vec<String>, PublishError> {
    if !TARGET_TYPES.contains(&tgt_type) {
        return Err(PublishError::Target(format!(
            "unknown target type '{tgt_type}'"
        )));
    }
    let expr = target_expr(tgt);
    let needs = Needs::of(tgt_type);
    let opts = if needs.opts {
        Value::Map(master_opts.clone())
    } else {
        Value::Null
    };
    let mut out = Vec::new();
    for id in keys.list(KeyState::Accepted)? {
        let data = cache.minion_data(&id, &opts, needs);
        match matcher::matches(tgt_type, &expr, &data) {
            Ok(true) => out.push(id),
            Ok(false) => {}
            // A regex that does not compile fails for every minion alike.
            Err(e) => return Err(PublishError::Target(e.to_string())),
        }
    }
    out.sort();
    Ok(out)
}

/// A job to publish, after the expected minions are known. No minions:
/// nothing to publish (empty jid and frame).
#[derive(Debug)]
pub struct Prepared {
    pub jid: String,
    pub minions: Vec<String>,
    /// The signed publication for the PUB socket.
    pub frame: Vec<u8>,
}

/// What a publication consults (keys, minion cache, options) and records
/// (the job cache).
pub struct Publisher<'a> {
    pub master_key: &'a KeyPair,
    pub session: &'a super::session::Session,
    pub keys: &'a KeyStore,
    pub cache: &'a MinionCache,
    pub jobs: &'a JobCache,
    pub jids: &'a JidGen,
    pub master_opts: &'a Map,
}

impl Publisher<'_> {
    /// Build, record and sign the publication for `req`. `pillar=` in the
    /// keyword arguments goes only into sealed per-minion secrets of the
    /// expected minions.
    pub fn prepare(&self, req: &CliPublish) -> Result<Prepared, PublishError> {
        let Publisher {
            master_key,
            session,
            keys,
            cache,
            jobs,
            jids,
            master_opts,
        } = *self;
        let (tgt, tgt_type) = resolve_nodegroups(&req.tgt, &req.tgt_type, master_opts)?;
        let minions = expected_minions(keys, cache, master_opts, &tgt, &tgt_type)?;
        if minions.is_empty() {
            // Salt sends nothing and assigns no jid when no minion matched.
            return Ok(Prepared {
                jid: String::new(),
                minions,
                frame: Vec::new(),
            });
        }
        // Another master sharing the job cache may have taken the jid in
        // the same microsecond: take the next one.
        let user = req.user.clone().unwrap_or_else(root_user);
        let mut attempts = 0;
        loop {
            let jid = jids.next();
            let mut kwarg = req.kwarg.clone();
            let pillar = kwarg.shift_remove("pillar");
            let mut secrets = IndexMap::new();
            if let Some(pillar) = &pillar {
                for id in &minions {
                    let Some(k) = keys.accepted(id)? else {
                        continue;
                    };
                    let sealed = seal_data(&k.x25519, pillar, &aad::publication_secret(&jid, id))?;
                    secrets.insert(id.clone(), sealed);
                }
            }
            let now = crypto::now_ms();
            let publication = Publication {
                v: PROTOCOL_VERSION,
                jid: jid.clone(),
                created_ms: now,
                nonce: ByteArray::new(crypto::random_nonce()?),
                tgt: tgt.clone(),
                tgt_type: tgt_type.clone(),
                fun: req.fun.clone(),
                arg: req.arg.clone(),
                kwarg,
                secrets,
                user: user.clone(),
            };
            // Encrypted with the session key only accepted minions hold.
            let key = session.for_publication(keys)?;
            let sealed = SealedPublication::seal(&key, &publication)?;
            let frame = sign_frame(master_key, &sealed)?;
            let added = jobs.add_job(
                &Job {
                    jid: jid.clone(),
                    fun: req.fun.clone(),
                    arg: req.arg.clone(),
                    kwarg: req.kwarg.clone(),
                    tgt: tgt.clone(),
                    tgt_type: tgt_type.clone(),
                    user: user.clone(),
                    start_ms: now,
                },
                &minions,
            );
            match added {
                Err(super::jobs::JobCacheError::JidTaken(_)) if attempts < 8 => attempts += 1,
                Err(e) => return Err(e.into()),
                Ok(()) => {
                    return Ok(Prepared {
                        jid,
                        minions,
                        frame,
                    })
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use brine_protocol::messages::{open_data, read_frame, Verified};
    use serde_json::json;

    #[test]
    fn jids_look_like_salts_and_increase() {
        // 2024-02-29 13:14:15.000016 UTC
        let g = JidGen::default();
        let a = g.next();
        let b = g.next();
        assert_eq!(a.len(), 20);
        assert!(b > a);
        assert!(!super::super::jobs::jid_to_time(&a).is_empty());
    }

    #[test]
    fn nodegroups_are_resolved_for_the_minions() {
        let mut o = crate::daemon::config::master_defaults();
        o.insert(
            "nodegroups".into(),
            Value::from_json(&json!({"web": "web* and G@os:Debian", "all": "N@web or db1"})),
        );
        let (t, tt) = resolve_nodegroups(&"web".into(), "nodegroup", &o).unwrap();
        // Words as Salt's nodegroup_comp gives them.
        assert_eq!(
            (t.to_python_str(), tt.as_str()),
            ("web* and G@os:Debian".into(), "compound")
        );
        let (t, _) = resolve_nodegroups(&"N@all and not x".into(), "compound", &o).unwrap();
        assert_eq!(
            t.to_python_str(),
            "( ( web* and G@os:Debian ) or db1 ) and not x"
        );
        assert!(resolve_nodegroups(&"nope".into(), "nodegroup", &o).is_err());
        let (t, tt) = resolve_nodegroups(&"x*".into(), "glob", &o).unwrap();
        assert_eq!((t, tt.as_str()), (Value::from("x*"), "glob"));
    }

    #[test]
    fn expected_minions_and_sealed_pillar() {
        let td = tempfile::tempdir().unwrap();
        let keys = KeyStore::create(&td.path().join("pki")).unwrap();
        let master = keys.master_keys().unwrap();
        let cache = MinionCache::open(&td.path().join("minions")).unwrap();
        let jobs = JobCache::open(&td.path().join("jobs.sqlite")).unwrap();
        let mut minion_keys = IndexMap::new();
        for (id, os) in [("web1", "Debian"), ("web2", "Arch"), ("db1", "Debian")] {
            let kp = KeyPair::generate().unwrap();
            keys.authenticate(id, &kp.public(), true).unwrap();
            cache
                .set_grains(id, Value::from_json(&json!({"id": id, "os": os})))
                .unwrap();
            minion_keys.insert(id, kp);
        }
        // Pending minions are never expected.
        keys.authenticate("new1", &KeyPair::generate().unwrap().public(), false)
            .unwrap();
        let o = crate::daemon::config::master_defaults();
        let exp = |t: &str, tt: &str| expected_minions(&keys, &cache, &o, &t.into(), tt).unwrap();
        assert_eq!(exp("*", "glob"), vec!["db1", "web1", "web2"]);
        assert_eq!(exp("os:Debian", "grain"), vec!["db1", "web1"]);
        assert_eq!(exp("web* and G@os:Debian", "compound"), vec!["web1"]);
        assert_eq!(exp("web2,db1,new1", "list"), vec!["db1", "web2"]);
        assert!(expected_minions(&keys, &cache, &o, &"x".into(), "bogus").is_err());

        let mut kwarg = Map::default();
        kwarg.insert("pillar".into(), Value::from_json(&json!({"secret": "s3"})));
        kwarg.insert("test".into(), Value::Bool(true));
        let req = CliPublish {
            token: String::new(),
            tgt: "os:Debian".into(),
            tgt_type: "grain".into(),
            fun: "state.apply".into(),
            arg: vec![],
            kwarg,
            timeout: 5,
            user: None,
        };
        let session = super::super::session::Session::new().unwrap();
        let jids = JidGen::default();
        let p = Publisher {
            master_key: &master,
            session: &session,
            keys: &keys,
            cache: &cache,
            jobs: &jobs,
            jids: &jids,
            master_opts: &o,
        }
        .prepare(&req)
        .unwrap();
        assert_eq!(p.minions, vec!["db1", "web1"]);
        assert!(!p.frame.windows(2).any(|w| w == b"s3"));
        // Only the session key reads the publication: not even the
        // function's name is in clear.
        assert!(!p.frame.windows(11).any(|w| w == b"state.apply"));
        let got: Verified<SealedPublication> =
            read_frame(&p.frame, Some(&master.public().ed25519)).unwrap();
        let other = crypto::SessionKey::generate().unwrap();
        assert!(got.msg.open(&other).is_err());
        let publication = got.msg.open(&session.current()).unwrap();
        assert_eq!(publication.jid, p.jid);
        assert!(!publication.kwarg.contains_key("pillar"));
        assert_eq!(publication.kwarg.get("test"), Some(&Value::Bool(true)));
        assert_eq!(
            publication.secrets.keys().collect::<Vec<_>>(),
            vec!["db1", "web1"]
        );
        let opened: Value = open_data(
            &minion_keys["web1"],
            &publication.secrets["web1"],
            &aad::publication_secret(&p.jid, "web1"),
        )
        .unwrap();
        assert_eq!(opened.to_json(), json!({"secret": "s3"}));
        // web2 cannot open web1's part.
        assert!(open_data::<Value>(
            &minion_keys["web2"],
            &publication.secrets["web1"],
            &aad::publication_secret(&p.jid, "web1"),
        )
        .is_err());
        assert_eq!(jobs.expected(&p.jid).unwrap(), vec!["db1", "web1"]);
        assert_eq!(jobs.job(&p.jid).unwrap().unwrap().fun, "state.apply");
    }
}
