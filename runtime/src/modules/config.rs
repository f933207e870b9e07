//! Salt's `config` module: one value looked up the way Salt layers the
//! minion's configuration (opts, then grains, then pillar, then the
//! master's configuration in pillar).

use super::grains::default_or_empty;
use super::params::{delimiter, Params};
use super::traverse::traverse;
use super::{CallError, Ctx, Function};
use brine_compile::minion_data::functions::{DataRef, Node, Returned, Source, Step};
use brine_core::{Map, Value};

pub(super) const FUNCTIONS: &[Function] = &[Function::reads(
    "get",
    "The value at KEY (a ':' path, or DELIMITER) in the minion's opts, else its \
grains, else its pillar, else pillar['master']; DEFAULT (default '') when none has \
it. OMIT_OPTS, OMIT_GRAINS, OMIT_PILLAR and OMIT_MASTER skip a layer. brine does \
not merge layers (MERGE) nor read sdb:// values.\n\n    brine-call config.get id\n    \
brine-call config.get pkg:web default=apache2",
    get,
)];

fn get<'c>(cx: &Ctx<'c>, mut p: Params) -> Result<Returned<'c>, CallError> {
    let key = p.require_str("key")?;
    let default = p.take_at("default");
    let delimiter = delimiter(p.take("delimiter"));
    let merge = p.take("merge");
    let mut omit = |name: &str| p.take(name).is_some_and(|v| v.is_truthy());
    let (omit_opts, omit_pillar, omit_master, omit_grains) = (
        omit("omit_opts"),
        omit("omit_pillar"),
        omit("omit_master"),
        omit("omit_grains"),
    );
    p.finish()?;
    if merge.is_some_and(|m| !m.is_null()) {
        return Err(CallError::Failed(
            "config.get: merge= is not supported by brine".into(),
        ));
    }
    let master = cx.pillar.get("master").and_then(Value::as_map);
    let layers: [(bool, Source, &Map, Option<&str>); 4] = [
        (omit_opts, Source::Opts, cx.opts, None),
        (omit_grains, Source::Grains, cx.grains, None),
        (omit_pillar, Source::Pillar, cx.pillar, None),
        (
            omit_master || master.is_none(),
            Source::Pillar,
            master.unwrap_or(cx.pillar),
            Some("master"),
        ),
    ];
    for (omitted, source, data, under) in layers {
        if omitted {
            continue;
        }
        if let Some((node, mut path)) = traverse(data, &key, &delimiter) {
            if node.as_str().is_some_and(|s| s.starts_with("sdb://")) {
                return Err(CallError::Failed(
                    "config.get: sdb:// values are not supported by brine".into(),
                ));
            }
            if let Some(top) = under {
                path.insert(0, Step::Key(top.to_string()));
            }
            return Ok(Returned::Data(DataRef {
                source,
                path,
                node: Node::Value(node),
            }));
        }
    }
    Ok(default_or_empty(default))
}
