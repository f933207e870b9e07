//! Salt's `pillar` module. `items` (and `ls`) compile a fresh pillar when
//! the running minion calls; `get`, `item`, `raw` and `keys` read the
//! in-memory one unless asked for a `pillarenv`/`saltenv`. In a template
//! every function reads the pillar compiled so far.

use super::function::{params_of, sig, CallError, Ctx, Function, Signature};
use super::grains::default_or_empty;
use super::params::{delimiter, opt_string, Params};
use super::traverse::traverse;
use crate::context::FreshPillar;
use brine_compile::envs::Envs;
use brine_compile::minion_data::{ArgAt, ArgName, DataRef, Node, Origin, Returned, Source, Step};
use brine_compile::opts::get_bool;
use brine_compile::pillar::merge::update;
use brine_core::{Map, Value};

const GET: &str = "The pillar value at KEY, a path through dicts and lists joined by \
DELIMITER (default ':'); DEFAULT (default '') when there is none. With MERGE, a \
dict (or list) DEFAULT is merged under the value found (MERGE_NESTED_LISTS, else the \
pillar_merge_lists option, says whether nested lists merge). PILLARENV/SALTENV read \
a freshly compiled pillar of that environment.\n\n    \
brine-call pillar.get users:alice:uid\n    \
{{ salt['pillar.get']('web', default={'port': 80}, merge=True) }}";

const ITEMS: &str = "The whole pillar, freshly compiled (PILLARENV, SALTENV and a PILLAR \
override as given); with names given, what pillar.item answers for them. In a template: \
the pillar compiled so far.\n\n    brine-call pillar.items\n    \
brine-call pillar.items pillarenv=dev";

/// The signature several functions here share (Salt's, recorded).
const DATA_SIG: Signature = sig!(
    *args,
    pillar = null,
    pillar_enc = null,
    pillarenv = null,
    saltenv = null
);

/// The signature several functions here share (Salt's, recorded).
const FETCH_SIG: Signature = sig!(
    key,
    default = "<Constant.NOT_SET>",
    merge = false,
    merge_nested_lists = null,
    delimiter = ":",
    pillarenv = null,
    saltenv = null
);

pub(super) const FUNCTIONS: &[Function] = &[
    Function::reads("data", DATA_SIG, ITEMS, items).ordered_from(1),
    Function::reads("fetch", FETCH_SIG, GET, get).ordered_from(0),
    Function::reads("get", FETCH_SIG, GET, get).ordered_from(0),
    Function::reads(
        "item",
        sig!(
            *args,
            default = null,
            delimiter = null,
            pillarenv = null,
            saltenv = null
        ),
        "A dict of the pillar values named (':' paths, or DELIMITER), each '' (or \
DEFAULT) when missing.\n\n    brine-call pillar.item users:alice ssh_keys",
        item,
    )
    .ordered_from(1),
    Function::reads("items", DATA_SIG, ITEMS, items).ordered_from(1),
    Function::reads(
        "keys",
        sig!(key, delimiter = ":"),
        "The keys of the dict at KEY (a ':' path, or DELIMITER) in the pillar; an error \
when there is no such value or it is not a dict.\n\n    brine-call pillar.keys users",
        keys,
    ),
    Function::reads(
        "ls",
        DATA_SIG,
        "The top-level keys of a freshly compiled pillar.\n\n    brine-call pillar.ls",
        ls,
    ),
    Function::reads(
        "filter_by",
        sig!(
            lookup_dict,
            pillar,
            merge = null,
            default = "default",
            base = null
        ),
        "Pick the entry of LOOKUP_DICT whose key matches (as a glob) the pillar value \
at PILLAR (a ':' path; each item when it is a list). Without a match, the entry named \
DEFAULT (default 'default'). With BASE, that entry lies under the pick; MERGE (a dict) \
is merged over it.\n\n    \
{% set pkgs = salt['pillar.filter_by']({'web': ['nginx'], 'db': ['postgresql']}, \
pillar='role') %}",
        |cx, p| super::grains::filter_by_in(cx.pillar, p, "pillar", None),
    ),
    Function::reads(
        "obfuscate",
        DATA_SIG,
        "pillar.items with every value replaced by its type ('<str>', '<int>' ...): the \
shape of the pillar without its secrets. Takes what pillar.items takes.\n\n    \
brine-call pillar.obfuscate",
        obfuscate,
    ),
    Function::reads(
        "raw",
        sig!(key = null),
        "The in-memory pillar as it is, or its top-level KEY ({} when missing), without \
compiling.\n\n    brine-call pillar.raw\n    brine-call pillar.raw key=users",
        raw,
    )
    .ordered_from(1),
];

/// `pillarenv=`/`saltenv=` (and `pillar=` for items) ask for a fresh compile.
fn fresh_request(
    cx: &Ctx<'_>,
    p: &mut Params,
    pillar_override: Option<Value>,
) -> Option<FreshPillar> {
    let pillarenv = opt_string(p.kw("pillarenv"));
    let saltenv = opt_string(p.kw("saltenv"));
    if pillarenv.is_none() && saltenv.is_none() && pillar_override.is_none() {
        return None;
    }
    Some(FreshPillar::new(
        Envs::of_pillar_call(cx.opts, pillarenv, saltenv),
        pillar_override,
    ))
}

/// A `pillar=` override given with `pillar_enc=RENDERER`, decrypted here
/// — on the minion, as Salt's does, even when the master compiles — or
/// Salt's error for it.
pub(crate) fn decrypted_override(
    opts: &Map,
    pillar_override: Option<Value>,
    pillar_enc: Option<Value>,
) -> Result<Option<Value>, CallError> {
    let Some(enc) = pillar_enc.filter(|e| !e.is_null()) else {
        return Ok(pillar_override);
    };
    let Some(data) = pillar_override else {
        return Ok(None);
    };
    brine_compile::render::decrypt::decrypt_override(opts, data, &enc.to_python_str())
        .map(Some)
        .map_err(|e| CallError::Failed(format!("Failed to decrypt pillar override: {e}")))
}

/// A fresh compile in the environments the call's options give.
fn configured(cx: &Ctx<'_>) -> FreshPillar {
    FreshPillar::new(Envs::of_pillar_call(cx.opts, None, None), None)
}

/// A fresh compile for the running minion, when one is asked for; `None`:
/// read the pillar the caller holds (always so in a template).
fn fresh(cx: &Ctx<'_>, req: Option<FreshPillar>) -> Option<Map> {
    let m = cx.running()?;
    Some(m.compile_pillar(&req?, true))
}

fn piece<'a>(pillar: &'a Map, key: &str, delimiter: &str) -> Option<(Returned<'a>, &'a Value)> {
    let (node, path) = traverse(pillar, key, delimiter)?;
    let r = Returned::Data(DataRef {
        source: Source::Pillar,
        path,
        node: Node::Value(node),
    });
    Some((r, node))
}

/// What `get` was asked.
struct Get {
    key: String,
    default: Option<(Value, ArgName)>,
    merge: bool,
    merge_nested: Option<Value>,
    delimiter: std::borrow::Cow<'static, str>,
}

fn get<'c>(cx: &Ctx<'c>, mut p: Params) -> Result<Returned<'c>, CallError> {
    let key = p.require_str("key")?;
    let default = p.take_at("default");
    let merge = p.take("merge").is_some_and(|v| v.is_truthy());
    let merge_nested = p.take("merge_nested_lists");
    let delimiter = delimiter(p.take("delimiter"));
    let req = fresh_request(cx, &mut p, None);
    p.finish()?;
    let g = Get {
        key,
        default,
        merge,
        merge_nested,
        delimiter,
    };
    match fresh(cx, req) {
        Some(pillar) => get_in(cx, &pillar, g).map(Returned::into_owned),
        None => get_in(cx, cx.pillar, g),
    }
}

fn get_in<'a>(cx: &Ctx<'_>, pillar: &'a Map, g: Get) -> Result<Returned<'a>, CallError> {
    let found = piece(pillar, &g.key, &g.delimiter);
    if g.merge {
        if let Some((default, arg)) = &g.default {
            if let Some(merged) = merge_default(cx, default, arg, found.as_ref(), &g) {
                return Ok(merged);
            }
        }
    }
    if let Some((r, _)) = found {
        return Ok(r);
    }
    if g.default.is_none() && get_bool(cx.opts, "pillar_raise_on_missing", false) {
        return Err(CallError::Failed(format!(
            "KeyError: 'Pillar key not found: {}'",
            g.key
        )));
    }
    Ok(default_or_empty(g.default))
}

/// `merge=True`: a copy of a dict default updated with the dict found (or
/// nothing found), or a list default extended with the new items of the
/// list found. Anything else is not merged (Salt logs it and goes on).
fn merge_default(
    cx: &Ctx<'_>,
    default: &Value,
    arg: &ArgName,
    found: Option<&(Returned<'_>, &Value)>,
    g: &Get,
) -> Option<Returned<'static>> {
    let value = match (default, found.map(|(_, v)| *v)) {
        (Value::Map(d), None) => Value::Map(d.clone()),
        (Value::Map(d), Some(Value::Map(f))) => {
            let lists = g
                .merge_nested
                .as_ref()
                .map(Value::is_truthy)
                .unwrap_or_else(|| get_bool(cx.opts, "pillar_merge_lists", false));
            let mut d = d.clone();
            update(&mut d, f.clone(), lists);
            Value::Map(d)
        }
        (Value::List(d), None) => Value::List(d.clone()),
        (Value::List(d), Some(Value::List(f))) => {
            let mut d = d.clone();
            for x in f {
                if !d.contains(x) {
                    d.push(x.clone());
                }
            }
            Value::List(d)
        }
        _ => return None,
    };
    let mut from = vec![Origin::Arg(ArgAt::new(arg.clone()))];
    if let Some((Returned::Data(d), _)) = found {
        from.push(Origin::Data {
            source: Source::Pillar,
            path: d.path.clone(),
        });
    }
    Some(Returned::Merged {
        value,
        from,
        into: None,
    })
}

fn item<'c>(cx: &Ctx<'c>, mut p: Params) -> Result<Returned<'c>, CallError> {
    let keys: Vec<String> = p.rest().iter().map(Value::to_python_str).collect();
    let default = p.kw("default").filter(|d| !d.is_null());
    let delimiter = delimiter(p.kw("delimiter"));
    let req = fresh_request(cx, &mut p, None);
    p.finish()?;
    Ok(match fresh(cx, req) {
        Some(pillar) => item_in(&pillar, &keys, default.as_ref(), &delimiter).into_owned(),
        None => item_in(cx.pillar, &keys, default.as_ref(), &delimiter),
    })
}

fn item_in<'a>(
    pillar: &'a Map,
    keys: &[String],
    default: Option<&Value>,
    delimiter: &str,
) -> Returned<'a> {
    Returned::Dict(
        keys.iter()
            .map(|k| {
                let v = match piece(pillar, k, delimiter) {
                    Some((r, _)) => r,
                    None => default_or_empty(
                        default
                            .cloned()
                            .map(|d| (d, ArgName::Keyword("default".into()))),
                    ),
                };
                (k.clone(), v)
            })
            .collect(),
    )
}

/// `pillar.items`: a fresh compile for the running minion (positional
/// arguments mean `item`).
fn items<'c>(cx: &Ctx<'c>, mut p: Params) -> Result<Returned<'c>, CallError> {
    let args = p.rest();
    if !args.is_empty() {
        let kwargs = std::mem::take(&mut p.kwargs);
        let call = brine_core::args::CallArgs { args, kwargs };
        return item(cx, params_of(FUNCTIONS, "item", call));
    }
    let pillar_override = p.take("pillar");
    let pillar_enc = p.kw("pillar_enc");
    let pillar_override = decrypted_override(cx.opts, pillar_override, pillar_enc)?;
    let req = fresh_request(cx, &mut p, pillar_override);
    p.finish()?;
    Ok(match cx.running() {
        Some(m) => Returned::New(Value::Map(
            m.compile_pillar(&req.unwrap_or_else(|| configured(cx)), true),
        )),
        None => whole(cx),
    })
}

fn obfuscate<'c>(cx: &Ctx<'c>, p: Params) -> Result<Returned<'c>, CallError> {
    let all = items(cx, p)?.into_value();
    Ok(Returned::New(obfuscated(all)))
}

/// Every leaf replaced by its type name; dict keys kept.
fn obfuscated(v: Value) -> Value {
    match v {
        Value::Map(m) => Value::Map(m.into_iter().map(|(k, v)| (k, obfuscated(v))).collect()),
        Value::List(l) => Value::List(l.into_iter().map(obfuscated).collect()),
        leaf => Value::Str(format!("<{}>", leaf.type_name())),
    }
}

/// The pillar the caller holds, as it is.
fn whole<'c>(cx: &Ctx<'c>) -> Returned<'c> {
    Returned::Data(DataRef {
        source: Source::Pillar,
        path: Vec::new(),
        node: Node::Root(cx.pillar),
    })
}

fn raw<'c>(cx: &Ctx<'c>, mut p: Params) -> Result<Returned<'c>, CallError> {
    let key = opt_string(p.take("key"));
    p.finish()?;
    Ok(match key {
        None => whole(cx),
        Some(k) => match cx.pillar.get(&k) {
            Some(v) => Returned::Data(DataRef {
                source: Source::Pillar,
                path: vec![Step::Key(k)],
                node: Node::Value(v),
            }),
            None => Returned::New(Value::new_map()),
        },
    })
}

fn keys<'c>(cx: &Ctx<'c>, mut p: Params) -> Result<Returned<'c>, CallError> {
    let key = p.require_str("key")?;
    let delimiter = delimiter(p.take("delimiter"));
    p.finish()?;
    match traverse(cx.pillar, &key, &delimiter) {
        Some((Value::Map(m), _)) => Ok(Returned::New(Value::List(
            m.keys().map(|k| Value::Str(k.clone())).collect(),
        ))),
        Some(_) => Err(CallError::Failed(format!(
            "Pillar value in key {key} is not a dict"
        ))),
        None => Err(CallError::Failed(format!("Pillar key not found: {key}"))),
    }
}

fn ls<'c>(cx: &Ctx<'c>, mut p: Params) -> Result<Returned<'c>, CallError> {
    let req = fresh_request(cx, &mut p, None);
    p.finish()?;
    let names = |pillar: &Map| Value::List(pillar.keys().map(|k| Value::Str(k.clone())).collect());
    Ok(Returned::New(match cx.running() {
        Some(m) => names(&m.compile_pillar(&req.unwrap_or_else(|| configured(cx)), true)),
        None => names(cx.pillar),
    }))
}
