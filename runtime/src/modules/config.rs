//! Salt's `config` module: one value looked up the way Salt layers the
//! minion's configuration (opts, then grains, then pillar, then the
//! master's configuration in pillar).

use super::grains::default_or_empty;
use super::params::{delimiter, Params};
use super::traverse::traverse;
use super::{CallError, Ctx, Function};
use brine_compile::minion_data::functions::{DataRef, Node, Returned, Source, Step};
use brine_core::{Map, Value};

pub(super) const FUNCTIONS: &[Function] = &[
    Function::reads(
        "option",
        "The value of the top-level key VALUE in the minion's opts, else its \
grains, else its pillar, else pillar['master'], else Salt's built-in defaults \
for a few modules' options; DEFAULT (default '') when none has it. OMIT_OPTS, \
OMIT_GRAINS, OMIT_PILLAR, OMIT_MASTER and OMIT_ALL skip layers. brine does not \
match patterns (WILDCARD).\n\n    brine-call config.option postgres.port",
        option,
    ),
    Function::reads(
        "get",
        "The value at KEY (a ':' path, or DELIMITER) in the minion's opts, else its \
grains, else its pillar, else pillar['master']; DEFAULT (default '') when none has \
it. OMIT_OPTS, OMIT_GRAINS, OMIT_PILLAR and OMIT_MASTER skip a layer. brine does \
not merge layers (MERGE) nor read sdb:// values.\n\n    brine-call config.get id\n    \
brine-call config.get pkg:web default=apache2",
        get,
    ),
];

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

fn option<'c>(cx: &Ctx<'c>, mut p: Params) -> Result<Returned<'c>, CallError> {
    let key = p.require("value")?.to_python_str();
    let default = p.take("default");
    let mut flag = |name: &str| p.take(name).is_some_and(|v| v.is_truthy());
    let omit_all = flag("omit_all");
    let (omit_opts, omit_grains, omit_pillar, omit_master) = (
        omit_all || flag("omit_opts"),
        omit_all || flag("omit_grains"),
        omit_all || flag("omit_pillar"),
        omit_all || flag("omit_master"),
    );
    let wildcard = flag("wildcard");
    p.finish()?;
    if wildcard {
        return Err(CallError::Failed(
            "config.option: wildcard= is not supported by brine".into(),
        ));
    }
    let master = cx.pillar.get("master").and_then(Value::as_map);
    let layers: [(bool, Option<&Map>); 4] = [
        (omit_opts, Some(cx.opts)),
        (omit_grains, Some(cx.grains)),
        (omit_pillar, Some(cx.pillar)),
        (omit_master, master),
    ];
    let found = layers
        .into_iter()
        .filter(|(omitted, _)| !omitted)
        .find_map(|(_, data)| data.and_then(|d| d.get(&key)).cloned())
        .or_else(|| option_default(&key));
    Ok(Returned::New(found.unwrap_or_else(|| {
        default
            .filter(|d| !d.is_null())
            .unwrap_or_else(|| Value::Str(String::new()))
    })))
}

/// Salt's built-in defaults for some modules' options (`config.option`
/// falls back to them).
fn option_default(key: &str) -> Option<Value> {
    let s = |v: &str| Value::Str(v.to_string());
    Some(match key {
        "mongo.db" => s("salt"),
        "mongo.password" | "mongo.user" | "ldap.uri" | "ldap.binddn" | "ldap.bindpw" => s(""),
        "mongo.port" => Value::Int(27017),
        "redis.db" => s("0"),
        "redis.host" => s("salt"),
        "redis.port" => Value::Int(6379),
        "test.foo" => s("unconfigured"),
        "ca.cert_base_path" => s("/etc/pki"),
        "solr.cores" => Value::List(Vec::new()),
        "solr.host" | "ldap.server" => s("localhost"),
        "solr.port" => s("8983"),
        "solr.baseurl" => s("/solr"),
        "solr.type" => s("master"),
        "solr.request_timeout" | "solr.backup_path" | "ldap.attrs" => Value::Null,
        "solr.init_script" => s("/etc/rc.d/solr"),
        "solr.num_backups" => Value::Int(1),
        "poudriere.config" => s("/usr/local/etc/poudriere.conf"),
        "poudriere.config_dir" => s("/usr/local/etc/poudriere.d"),
        "ldap.port" => s("389"),
        "ldap.tls" | "ldap.no_verify" => Value::Bool(false),
        "ldap.anonymous" => Value::Bool(true),
        "ldap.scope" => Value::Int(2),
        "hosts.file" => s("/etc/hosts"),
        "aliases.file" => s("/etc/aliases"),
        "docker.exec_driver" => s("docker-exec"),
        _ => return None,
    })
}

/// `config.option KEY` as other modules ask it (Salt's
/// `__salt__["config.option"]`): opts, grains, pillar, pillar['master'],
/// then the built-in defaults.
pub(super) fn option_value(cx: &Ctx<'_>, key: &str) -> Option<Value> {
    let master = cx.pillar.get("master").and_then(Value::as_map);
    [Some(cx.opts), Some(cx.grains), Some(cx.pillar), master]
        .into_iter()
        .find_map(|data| data.and_then(|d| d.get(key)).cloned())
        .or_else(|| option_default(key))
}
