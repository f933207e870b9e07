//! `hiera.lookup` for a minion: its hierarchies are the master's
//! (`hiera_config`, `pillar_roots`, `file_roots`), looked up with its cached
//! grains and the pillar it sent; the answer is sealed to it.

use brine_compile::minion_data::Functions;
use brine_compile::pillar::hiera::Hiera;
use brine_compile::MinionData;
use brine_core::{Map, Value};
use brine_protocol::crypto::{Nonce, PublicKeys};
use brine_protocol::messages::{
    aad, seal_data, ErrorCode, ErrorReply, HieraLookup, HieraReply, HieraResult, ReplyBody,
};

/// The lookup itself.
pub fn lookup(
    master_opts: &Map,
    functions: &Functions,
    grains: Value,
    req: &HieraLookup,
) -> HieraResult {
    let opts = brine_compile::pillar::compile_opts(
        master_opts,
        &req.id,
        &grains,
        None,
        req.pillarenv.as_deref(),
    );
    let node = MinionData {
        id: req.id.clone(),
        grains,
        pillar: Value::Map(req.pillar.clone()),
        opts: Value::Map(opts.clone()),
        functions: functions.clone(),
    };
    let hiera = Hiera::new(&opts, &node, req.pillarenv.as_deref());
    let merge = (!req.merge.is_null()).then_some(&req.merge);
    match hiera.lookup(&req.key, merge) {
        Ok(Some(value)) => HieraResult::Found { value },
        Ok(None) => HieraResult::NotFound {
            message: hiera.not_found(&req.key),
        },
        Err(e) => HieraResult::Error {
            message: e.to_string(),
        },
    }
}

pub fn handle(
    master_opts: &Map,
    functions: &Functions,
    grains: Value,
    req: &HieraLookup,
    request_nonce: &Nonce,
    keys: &PublicKeys,
) -> ReplyBody {
    let result = lookup(master_opts, functions, grains, req);
    match seal_data(&keys.x25519, &result, &aad::hiera(&req.id, request_nonce)) {
        Ok(sealed) => ReplyBody::Hiera(HieraReply { result: sealed }),
        Err(e) => ReplyBody::Error(ErrorReply {
            code: ErrorCode::Internal,
            message: format!("cannot seal the lookup: {e}"),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn looks_up_in_the_masters_hierarchy_with_the_minions_facts() {
        let td = tempfile::tempdir().unwrap();
        let root = td.path().join("pillar");
        std::fs::create_dir_all(root.join("data/os")).unwrap();
        std::fs::write(
            root.join("hiera.yaml"),
            "version: 5\nhierarchy:\n  - name: os\n    path: \"os/%{facts.os}.yaml\"\n  - name: common\n    path: common.yaml\n",
        )
        .unwrap();
        std::fs::write(root.join("data/os/Debian.yaml"), "pkgs: [apt]\n").unwrap();
        std::fs::write(root.join("data/common.yaml"), "pkgs: [vim]\n").unwrap();
        let mut o = crate::daemon::config::master_defaults();
        o.insert(
            "pillar_roots".into(),
            Value::from_json(&json!({"base": [root.display().to_string()]})),
        );
        let req = |key: &str, merge: Value| HieraLookup {
            id: "web1".into(),
            key: key.into(),
            merge,
            pillarenv: None,
            pillar: Map::default(),
        };
        let grains = Value::from_json(&json!({"id": "web1", "os": "Debian"}));
        assert_eq!(
            lookup(
                &o,
                &brine_runtime::modules::functions(),
                grains.clone(),
                &req("pkgs", Value::Null)
            ),
            HieraResult::Found {
                value: Value::from_json(&json!(["apt"]))
            }
        );
        assert_eq!(
            lookup(
                &o,
                &brine_runtime::modules::functions(),
                grains.clone(),
                &req("pkgs", "unique".into())
            ),
            HieraResult::Found {
                value: Value::from_json(&json!(["apt", "vim"]))
            }
        );
        assert!(matches!(
            lookup(
                &o,
                &brine_runtime::modules::functions(),
                grains,
                &req("nope", Value::Null)
            ),
            HieraResult::NotFound { .. }
        ));
    }
}
