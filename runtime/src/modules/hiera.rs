//! `hiera.lookup KEY [merge=STRATEGY] [default=VALUE]`: a Hiera 5 lookup in
//! the minion's hierarchies (see `brine_compile::pillar::hiera`), answering
//! what Puppet 7's `puppet lookup` answers.
//!
//! A key found nowhere, with no `default=`, and any lookup problem (bad
//! `hiera.yaml`, unparsable data file, failing merge) return the string
//! `ERROR: <why>` with exit code 1: the shape a Salt minion gives when an
//! execution function raises `CommandExecutionError`. The not-found text
//! names the data files that were searched.

use super::function::{sig, CallError, Function, Return};
use super::params::Params;
use crate::context::Minion;
use brine_compile::pillar::hiera::Hiera;
use brine_compile::request::HieraResult;
use brine_compile::MinionData;
use brine_core::{Map, Value};

pub(super) const FUNCTIONS: &[Function] = &[Function::minion(
    "lookup",
    sig!(key, merge = null, default = null),
    "KEY looked up in the minion's Hiera 5 hierarchies as Puppet's `lookup` does: \
MERGE (first, unique, hash, deep, or a hash of options) combines the layers; DEFAULT \
when the key is nowhere. A missing key without DEFAULT, or a broken hierarchy, \
answers 'ERROR: <why>' with exit code 1.\n\n    brine-call hiera.lookup users.alice\n    \
brine-call hiera.lookup packages merge=unique",
    lookup_fn,
)];

fn lookup_fn(m: &mut Minion, mut p: Params) -> Result<Return, CallError> {
    let key = p.require("key")?.to_python_str();
    let merge = p.take("merge").filter(|v| !v.is_null());
    let default = p.take("default");
    p.finish()?;
    Ok(lookup(m, &key, merge.as_ref(), default))
}

fn lookup(m: &Minion, key: &str, merge: Option<&Value>, default: Option<Value>) -> Return {
    let error = |text: String| Return {
        value: Value::Str(format!("ERROR: {text}")),
        retcode: 1,
    };
    // A minion of a master: the hierarchies are the master's.
    if let Some(answer) = m.hiera_lookup(key, merge.unwrap_or(&Value::Null)) {
        return match answer {
            Ok(HieraResult::Found { value }) => Return::from(value),
            Ok(HieraResult::NotFound { message }) => match default {
                Some(d) => Return::from(d),
                None => error(message),
            },
            Ok(HieraResult::Error { message }) => error(message),
            Err(e) => error(e.to_string()),
        };
    }
    let node = MinionData {
        id: m.id.clone(),
        grains: Value::Map(Map::clone(&m.grains)),
        pillar: Value::Map(Map::clone(&m.pillar)),
        opts: Value::Map(Map::clone(&m.opts)),
        functions: m.functions.clone(),
    };
    let hiera = Hiera::new(&m.opts, &node, None);
    match hiera.lookup(key, merge) {
        Ok(Some(v)) => Return::from(v),
        Ok(None) => match default {
            Some(d) => Return::from(d),
            None => error(hiera.not_found(key)),
        },
        Err(e) => error(e.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use crate::context::Minion;
    use crate::modules::call;
    use brine_core::args::parse_input;
    use brine_core::{Map, Value};
    use serde_json::json;

    /// A minion whose pillar root holds a one-level hierarchy.
    fn minion(dir: &std::path::Path) -> Minion {
        std::fs::create_dir_all(dir.join("data")).expect("mkdir");
        std::fs::write(
            dir.join("hiera.yaml"),
            "version: 5\nhierarchy:\n  - name: common\n    path: common.yaml\n",
        )
        .expect("write");
        std::fs::write(
            dir.join("data/common.yaml"),
            "users: {alice: {uid: 1}}\nl: [a, a]\n",
        )
        .expect("write");
        let Value::Map(opts) = Value::from_json(&json!({
            "pillar_roots": {"base": [dir.display().to_string()]},
        })) else {
            unreachable!("a map")
        };
        Minion {
            id: "m1".into(),
            opts: opts.into(),
            grains: Map::default().into(),
            pillar: Map::default().into(),
            source: Default::default(),
            functions: crate::modules::functions(),
            jobs: Default::default(),
            registry: None,
            schedule: None,
            master: Default::default(),
            key_finger: None,
        }
    }

    fn run(m: &mut Minion, line: &[&str]) -> (serde_json::Value, i32) {
        let tokens: Vec<String> = line.iter().map(|s| s.to_string()).collect();
        let r = call(m, "hiera.lookup", parse_input(&tokens)).expect("callable");
        (r.value.to_json(), r.retcode)
    }

    #[test]
    fn lookup_default_and_errors() {
        let dir = std::env::temp_dir().join(format!("brine-hiera-call-{}", std::process::id()));
        let mut m = minion(&dir);
        assert_eq!(run(&mut m, &["users.alice"]), (json!({"uid": 1}), 0));
        assert_eq!(run(&mut m, &["l", "merge=unique"]), (json!(["a"]), 0));
        assert_eq!(run(&mut m, &["nope", "default=5"]), (json!(5), 0));
        let (v, rc) = run(&mut m, &["nope"]);
        assert_eq!(rc, 1);
        let text = v.as_str().unwrap_or_default();
        assert!(
            text.starts_with("ERROR: Function lookup() did not find"),
            "{text}"
        );
        assert!(text.contains("data/common.yaml"), "{text}");
        let (v, rc) = run(&mut m, &["l", "merge=sideways"]);
        assert_eq!(
            (v, rc),
            (json!("ERROR: Unknown merge strategy: 'sideways'"), 1)
        );
        assert!(call(&mut m, "hiera.lookup", parse_input(&[])).is_err());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
