//! Salt's `slsutil` module: what SLS templates use to combine data.

use super::function::{sig, CallError, Ctx, Function};
use super::params::{opt_string, Params};
use brine_compile::minion_data::{ArgAt, Origin, Returned};
use brine_compile::pillar::merge::update;
use brine_core::Value;

pub(super) const FUNCTIONS: &[Function] = &[Function::reads(
    "merge",
    sig!(
        obj_a,
        obj_b,
        strategy = "smart",
        renderer = "yaml",
        merge_lists = false
    ),
    "A copy of the dict OBJ_A with OBJ_B merged in, the way the renderer RENDERER \
(default 'yaml') merges pillar with STRATEGY (default 'smart'; brine merges \
recursively: 'recurse', 'overwrite', or 'smart' with a YAML renderer). MERGE_LISTS \
extends lists instead of replacing them.\n\n    \
{% set web = salt['slsutil.merge'](defaults, salt['pillar.get']('web', {})) %}",
    merge,
)];

fn merge<'c>(_: &Ctx<'c>, mut p: Params) -> Result<Returned<'c>, CallError> {
    let (a, a_arg) = p.require_at("obj_a")?;
    let (b, b_arg) = p.require_at("obj_b")?;
    let strategy = opt_string(p.take("strategy")).unwrap_or_else(|| "smart".into());
    let renderer = opt_string(p.take("renderer")).unwrap_or_else(|| "yaml".into());
    let merge_lists = p.take("merge_lists").is_some_and(|v| v.is_truthy());
    p.finish()?;
    let recurse = match strategy.as_str() {
        "recurse" | "overwrite" => true,
        "smart" => renderer.split('|').next_back() == Some("yaml"),
        _ => false,
    };
    if !recurse {
        return Err(CallError::Failed(format!(
            "slsutil.merge: strategy '{strategy}' is not supported by brine"
        )));
    }
    let (Value::Map(mut dest), Value::Map(upd)) = (a, b) else {
        return Err(CallError::Failed(
            "Cannot update using non-dict types in dictupdate.update()".into(),
        ));
    };
    update(&mut dest, upd, merge_lists);
    Ok(Returned::Merged {
        value: Value::Map(dest),
        from: vec![
            Origin::Arg(ArgAt::new(a_arg)),
            Origin::Arg(ArgAt::new(b_arg)),
        ],
        into: None,
    })
}
