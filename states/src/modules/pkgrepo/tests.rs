//! `pkgrepo` replayed against Salt 3007.8's answers (testdata/pkgrepo.json,
//! recorded by record_net.py with a scratch /etc/apt bound over the host's in
//! a mount namespace): here the same steps run under a scratch root, with
//! a refresh that does nothing.

use super::{absent, managed, RepoRoot};
use crate::replay::{replay_with, ret_json, Runner};
use crate::{StateCall, StateContext};
use brine_core::{Map, Value};

/// Steps run on `pkgrepo` with the case's scratch root for `/etc/apt`.
struct Scratched {
    ctx: StateContext,
    root: RepoRoot,
}

impl Runner for Scratched {
    fn state(&mut self, state: &str, args: &Map, test: bool) -> serde_json::Value {
        let mut low = args.clone();
        let (_, fun) = state.split_once('.').unwrap_or_default();
        low.insert("state".into(), Value::Str("pkgrepo".into()));
        low.insert("fun".into(), Value::Str(fun.into()));
        low.insert("__id__".into(), Value::Str("probe".into()));
        low.insert("__env__".into(), Value::Str("base".into()));
        let call = StateCall {
            low: &low,
            test,
            ctx: &self.ctx,
        };
        ret_json(&match fun {
            "managed" => managed(&call, &self.root),
            _ => absent(&call, &self.root),
        })
    }

    fn high(&mut self, _high: Map, _test: bool) -> serde_json::Value {
        panic!("pkgrepo.json records single states only")
    }
}

#[test]
fn apt_pkgrepo_matches_salt() {
    replay_with(
        include_str!("../testdata/pkgrepo.json"),
        None,
        &mut |data, scratch| {
            Box::new(Scratched {
                ctx: scratch.context(data),
                root: RepoRoot::scratch(scratch.case.join("root")),
            })
        },
    );
}
