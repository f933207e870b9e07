//! Salt's `defaults` module: merging and copying the dicts formulas build
//! their settings from.

use super::function::{sig, CallError, Ctx, Function};
use super::params::Params;
use brine_compile::minion_data::{ArgAt, Origin, Returned};
use brine_compile::pillar::merge::update;
use brine_core::{Map, Value};

pub(super) const FUNCTIONS: &[Function] = &[
    Function::reads(
        "deepcopy",
        sig!(source),
        "A deep copy of SOURCE.\n\n    {% set copy = salt['defaults.deepcopy'](settings) %}",
        deepcopy,
    ),
    Function::reads(
        "merge",
        sig!(
            dest,
            src,
            merge_lists = false,
            in_place = true,
            convert_none = true
        ),
        "SRC merged into the dict DEST (nested dicts key by key; lists replaced, or \
extended with new items under MERGE_LISTS). IN_PLACE (the default) changes DEST \
itself, else a copy; CONVERT_NONE (the default) reads a None SRC as {}.\n\n    \
{% do salt['defaults.merge'](settings, salt['pillar.get']('web', {})) %}",
        merge,
    ),
];

fn not_dicts() -> CallError {
    CallError::Failed("Cannot update using non-dict types in dictupdate.update()".into())
}

fn merge<'c>(_: &Ctx<'c>, mut p: Params) -> Result<Returned<'c>, CallError> {
    let (dest, dest_arg) = p.require_at("dest")?;
    let (src, src_arg) = p.require_at("src")?;
    let merge_lists = p.take("merge_lists").is_some_and(|v| v.is_truthy());
    let in_place = p.take("in_place").is_none_or(|v| v.is_truthy());
    let convert_none = p.take("convert_none").is_none_or(|v| v.is_truthy());
    p.finish()?;
    let src = match src {
        Value::Null if convert_none => Map::default(),
        Value::Map(m) => m,
        _ => return Err(not_dicts()),
    };
    let mut dest = match dest {
        Value::Null if convert_none && in_place => {
            return Err(CallError::Failed(
                "TypeError: Can't perform in-place merge into NoneType".into(),
            ))
        }
        Value::Null if convert_none => Map::default(),
        Value::Map(m) => m,
        _ => return Err(not_dicts()),
    };
    update(&mut dest, src, merge_lists);
    let dest_at = ArgAt::new(dest_arg);
    Ok(Returned::Merged {
        value: Value::Map(dest),
        from: vec![
            Origin::Arg(dest_at.clone()),
            Origin::Arg(ArgAt::new(src_arg)),
        ],
        into: in_place.then_some(dest_at),
    })
}

fn deepcopy<'c>(_: &Ctx<'c>, mut p: Params) -> Result<Returned<'c>, CallError> {
    let (source, arg) = p.require_at("source")?;
    p.finish()?;
    Ok(Returned::Merged {
        value: source,
        from: vec![Origin::Arg(ArgAt::new(arg))],
        into: None,
    })
}
