//! `pkgrepo` replayed against Salt 3007.8's answers (testdata/pkgrepo.json,
//! recorded by record.py with a scratch /etc/apt bound over the host's in
//! a mount namespace): here the same steps run under a scratch root, with
//! a refresh that does nothing.

use super::{absent, managed, RepoRoot};
use crate::StateCall;
use brine_core::Value;

#[test]
fn apt_pkgrepo_matches_salt() {
    crate::modules::file::tests::replay_with(
        include_str!("../testdata/pkgrepo.json"),
        None,
        &|ctx, state, args, test, dir| {
            let root = RepoRoot::scratch(dir.join("root"));
            let mut low = args.clone();
            let (_, fun) = state.split_once('.').unwrap_or_default();
            low.insert("state".into(), Value::Str("pkgrepo".into()));
            low.insert("fun".into(), Value::Str(fun.into()));
            low.insert("__id__".into(), Value::Str("probe".into()));
            low.insert("__env__".into(), Value::Str("base".into()));
            let call = StateCall {
                low: &low,
                test,
                ctx,
            };
            match fun {
                "managed" => managed(&call, &root),
                _ => absent(&call, &root),
            }
        },
    );
}
