//! Salt's `config` module: one value looked up the way Salt layers the
//! minion's configuration (opts, then grains, then pillar, then the
//! master's configuration in pillar).

use super::function::{sig, CallError, Ctx, Function};
use super::grains::default_or_empty;
use super::params::{delimiter, Params};
use super::traverse::traverse;
use brine_compile::minion_data::{DataRef, Node, Returned, Source, Step};
use brine_compile::pillar::merge::{merge, MergeStrategy};
use brine_core::{Map, Value};
use std::sync::LazyLock;

pub(super) const FUNCTIONS: &[Function] = &[
    Function::reads(
        "option",
        sig!(
            value,
            default = null,
            omit_opts = false,
            omit_grains = false,
            omit_pillar = false,
            omit_master = false,
            omit_all = false,
            wildcard = false
        ),
        "The value of the top-level key VALUE in the minion's opts, else its \
grains, else its pillar, else pillar['master'], else Salt's built-in defaults \
for a few modules' options; DEFAULT (default '') when none has it. OMIT_OPTS, \
OMIT_GRAINS, OMIT_PILLAR, OMIT_MASTER and OMIT_ALL skip layers. brine does not \
match patterns (WILDCARD).\n\n    brine-call config.option postgres.port",
        option,
    ),
    Function::reads(
        "get",
        sig!(
            key,
            default = "",
            delimiter = ":",
            merge = null,
            omit_opts = false,
            omit_pillar = false,
            omit_master = false,
            omit_grains = false
        ),
        "The value at KEY (a ':' path, or DELIMITER) in the minion's opts, else its \
grains, else its pillar, else pillar['master'], else Salt's built-in module defaults; \
DEFAULT (default '') when none has it. OMIT_OPTS, OMIT_GRAINS, OMIT_PILLAR and \
OMIT_MASTER skip a layer. With MERGE ('recurse' or 'overwrite') the layers are merged \
first (opts over grains over pillar over pillar['master'] over the defaults) and KEY is \
looked up in the result. A value that is an sdb:// uri is what it names.\n\n    \
brine-call config.get id\n    brine-call config.get pkg:web default=apache2\n    \
brine-call config.get users merge=recurse",
        get,
    ),
    Function::reads(
        "items",
        sig!(),
        "The minion's whole configuration (its opts), as a dict.\n\n    \
brine-call config.items",
        |cx, p| {
            p.finish()?;
            Ok(Returned::Data(DataRef {
                source: Source::Opts,
                path: Vec::new(),
                node: Node::Root(cx.opts),
            }))
        },
    ),
    Function::reads(
        "valid_fileproto",
        sig!(uri),
        "Whether URI names a file source Salt knows the scheme of: salt, file, http, \
https, ftp, swift or s3.\n\n    brine-call config.valid_fileproto salt://top.sls",
        valid_fileproto,
    ),
];

/// URL schemes a file source may have (Salt's `VALID_PROTOS`).
const VALID_PROTOS: &[&str] = &["salt", "file", "http", "https", "ftp", "swift", "s3"];

fn valid_fileproto<'c>(_: &Ctx<'c>, mut p: Params) -> Result<Returned<'c>, CallError> {
    let uri = p.require("uri")?.to_python_str();
    p.finish()?;
    Ok(Returned::New(Value::Bool(
        url_scheme(&uri).is_some_and(|s| VALID_PROTOS.contains(&s.as_str())),
    )))
}

/// The scheme of `url` as Python's `urlsplit` finds it (lowercased), if
/// any.
fn url_scheme(url: &str) -> Option<String> {
    let (scheme, _) = url.split_once(':')?;
    let first = scheme.chars().next()?;
    let valid = first.is_ascii_alphabetic()
        && scheme
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'));
    valid.then(|| scheme.to_ascii_lowercase())
}

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
    if let Some(strategy) = merge.filter(|m| !m.is_null()) {
        return Ok(merged_get(cx, &key, &delimiter, &strategy, default));
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
                return sdb_value(cx, node);
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
    if let Some((node, _)) = traverse(&DEFAULTS, &key, &delimiter) {
        return Ok(Returned::New(node.clone()));
    }
    Ok(default_or_empty(default))
}

/// `config.get` with `merge=`: the layers merged (opts last, so they win),
/// then the lookup.
fn merged_get<'c>(
    cx: &Ctx<'c>,
    key: &str,
    delimiter: &str,
    strategy: &Value,
    default: Option<(Value, brine_compile::minion_data::ArgName)>,
) -> Returned<'c> {
    let strategy = match strategy.to_python_str().as_str() {
        "overwrite" => MergeStrategy::Overwrite,
        "recurse" => MergeStrategy::Recurse,
        other => {
            tracing::warn!("Unsupported merge strategy '{other}'. Falling back to 'recurse'.");
            MergeStrategy::Recurse
        }
    };
    let master = cx
        .pillar
        .get("master")
        .and_then(Value::as_map)
        .cloned()
        .unwrap_or_default();
    let mut data = DEFAULTS.clone();
    // pillar_merge_lists comes from the master's configuration in Salt,
    // which a minion does not read: its default, off.
    for layer in [
        master,
        cx.pillar.clone(),
        cx.grains.clone(),
        cx.opts.clone(),
    ] {
        merge(&mut data, layer, strategy, false);
    }
    match traverse(&data, key, delimiter) {
        Some((node, _)) => sdb_value(cx, node).unwrap_or_else(|e| {
            tracing::error!("config.get {key}: {e}");
            Returned::New(node.clone())
        }),
        None => default_or_empty(default),
    }
}

/// What an `sdb://` value found by `config.get` names (the value itself
/// when it names nothing).
fn sdb_value<'c>(cx: &Ctx<'c>, node: &Value) -> Result<Returned<'c>, CallError> {
    brine_compile::sdb::get(node, cx.opts, cx.pillar, false)
        .map(Returned::New)
        .map_err(|e| CallError::Raised(e.to_string()))
}

pub(super) fn option<'c>(cx: &Ctx<'c>, mut p: Params) -> Result<Returned<'c>, CallError> {
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
    let found = lookup(cx, &key, [omit_opts, omit_grains, omit_pillar, omit_master]);
    Ok(Returned::New(found.unwrap_or_else(|| {
        default
            .filter(|d| !d.is_null())
            .unwrap_or_else(|| Value::Str(String::new()))
    })))
}

/// `config.option KEY` as other modules ask it (Salt's
/// `__salt__["config.option"]`): opts, grains, pillar, pillar['master'],
/// then the built-in defaults.
pub(super) fn option_value(cx: &Ctx<'_>, key: &str) -> Option<Value> {
    lookup(cx, key, [false; 4])
}

/// The first of opts, grains, pillar and pillar['master'] (those not
/// `omitted`) holding `key`, else Salt's built-in default.
fn lookup(cx: &Ctx<'_>, key: &str, omitted: [bool; 4]) -> Option<Value> {
    let master = cx.pillar.get("master").and_then(Value::as_map);
    [Some(cx.opts), Some(cx.grains), Some(cx.pillar), master]
        .into_iter()
        .zip(omitted)
        .filter(|(_, omitted)| !omitted)
        .find_map(|(data, _)| data.and_then(|d| d.get(key)).cloned())
        .or_else(|| DEFAULTS.get(key).cloned())
}

/// Salt's built-in defaults for some modules' options (`config.option`
/// and `config.get` fall back to them).
static DEFAULTS: LazyLock<Map> = LazyLock::new(|| {
    let s = |v: &str| Value::Str(v.to_string());
    let strs = |l: &[&str]| Value::List(l.iter().map(|v| Value::from(*v)).collect());
    let map = |pairs: &[(&str, Value)]| {
        Value::Map(
            pairs
                .iter()
                .map(|(k, v)| (k.to_string(), v.clone()))
                .collect(),
        )
    };
    [
        ("mongo.db", s("salt")),
        ("mongo.password", s("")),
        ("mongo.port", Value::Int(27017)),
        ("mongo.user", s("")),
        ("redis.db", s("0")),
        ("redis.host", s("salt")),
        ("redis.port", Value::Int(6379)),
        ("test.foo", s("unconfigured")),
        ("ca.cert_base_path", s("/etc/pki")),
        ("solr.cores", Value::List(Vec::new())),
        ("solr.host", s("localhost")),
        ("solr.port", s("8983")),
        ("solr.baseurl", s("/solr")),
        ("solr.type", s("master")),
        ("solr.request_timeout", Value::Null),
        ("solr.init_script", s("/etc/rc.d/solr")),
        (
            "solr.dih.import_options",
            map(&[
                ("clean", Value::Bool(false)),
                ("optimize", Value::Bool(true)),
                ("commit", Value::Bool(true)),
                ("verbose", Value::Bool(false)),
            ]),
        ),
        ("solr.backup_path", Value::Null),
        ("solr.num_backups", Value::Int(1)),
        ("poudriere.config", s("/usr/local/etc/poudriere.conf")),
        ("poudriere.config_dir", s("/usr/local/etc/poudriere.d")),
        ("ldap.uri", s("")),
        ("ldap.server", s("localhost")),
        ("ldap.port", s("389")),
        ("ldap.tls", Value::Bool(false)),
        ("ldap.no_verify", Value::Bool(false)),
        ("ldap.anonymous", Value::Bool(true)),
        ("ldap.scope", Value::Int(2)),
        ("ldap.attrs", Value::Null),
        ("ldap.binddn", s("")),
        ("ldap.bindpw", s("")),
        ("hosts.file", s("/etc/hosts")),
        ("aliases.file", s("/etc/aliases")),
        (
            "virt",
            map(&[
                ("tunnel", Value::Bool(false)),
                ("images", s("/srv/salt-images")),
            ]),
        ),
        ("docker.exec_driver", s("docker-exec")),
        (
            "docker.compare_container_networks",
            map(&[
                ("static", strs(&["Aliases", "Links", "IPAMConfig"])),
                (
                    "automatic",
                    strs(&["IPAddress", "Gateway", "GlobalIPv6Address", "IPv6Gateway"]),
                ),
            ]),
        ),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect()
});
