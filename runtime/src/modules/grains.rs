//! Salt's `grains` module: reading the minion's grains, and `filter_by`,
//! the lookup table formulas pick OS-specific settings from.

use super::function::{sig, CallError, Ctx, Function, Signature};
use super::params::{delimiter, opt_string, Params};
use super::traverse::traverse;
use brine_compile::matcher::glob::fnmatch;
use brine_compile::minion_data::{ArgAt, ArgName, DataRef, Node, Origin, Returned, Source, Step};
use brine_compile::pillar::merge::update;
use brine_core::value::key_string;
use brine_core::{Map, Value};

const GET: &str = "The grain at KEY, a path through dicts and lists joined by DELIMITER \
(default ':'); DEFAULT (default '') when there is none.\n\n    \
brine-call grains.get os\n    brine-call grains.get ipv4:0\n    \
brine-call grains.get pkg:apache default=httpd";

/// The signature several functions here share (Salt's, recorded).
const FETCH_SIG: Signature = sig!(key, default = "", delimiter = ":", ordered = true);

pub(super) const FUNCTIONS: &[Function] = &[
    Function::reads("fetch", FETCH_SIG, GET, get),
    Function::reads(
        "filter_by",
        sig!(
            lookup_dict,
            grain = "os_family",
            merge = null,
            default = "default",
            base = null
        ),
        "Pick the entry of LOOKUP_DICT whose key matches (as a glob) the grain \
GRAIN (default 'os_family'; each item when the grain is a list). Without a \
match, the entry named DEFAULT (default 'default'). With BASE, that entry lies \
under the pick; MERGE (a dict) is merged over it.\n\n    \
{% set pkg = salt['grains.filter_by']({'Debian': {'web': 'apache2'}, \
'RedHat': {'web': 'httpd'}}) %}",
        filter_by,
    ),
    Function::reads("get", FETCH_SIG, GET, get),
    Function::reads(
        "has_value",
        sig!(key),
        "Whether the grain at KEY (a ':' path) exists and is not empty or false.\n\n    \
brine-call grains.has_value ipv6",
        has_value,
    ),
    Function::reads(
        "item",
        sig!(*args, **kwargs),
        "A dict of the grains named (':' paths), each '' (or default=) when missing.\n\n    \
brine-call grains.item os osrelease",
        item,
    ),
    Function::reads(
        "items",
        sig!(sanitize = false),
        "All the minion's grains.\n\n    brine-call grains.items",
        items,
    ),
    Function::reads(
        "ls",
        sig!(),
        "The names of the minion's grains, sorted.\n\n    brine-call grains.ls",
        ls,
    ),
];

/// A piece of the grains, found by `key`.
fn found<'c>(cx: &Ctx<'c>, key: &str, delimiter: &str) -> Option<Returned<'c>> {
    let (node, path) = traverse(cx.grains, key, delimiter)?;
    Some(Returned::Data(DataRef {
        source: Source::Grains,
        path,
        node: Node::Value(node),
    }))
}

/// A default argument handed back, or `''` when none was given.
pub(super) fn default_or_empty(default: Option<(Value, ArgName)>) -> Returned<'static> {
    match default {
        Some((value, arg)) => Returned::Arg {
            at: ArgAt::new(arg),
            value,
        },
        None => Returned::New(Value::Str(String::new())),
    }
}

fn get<'c>(cx: &Ctx<'c>, mut p: Params) -> Result<Returned<'c>, CallError> {
    let key = p.require_str("key")?;
    let default = p.take_at("default");
    let delimiter = delimiter(p.take("delimiter"));
    p.take("ordered");
    p.finish()?;
    Ok(found(cx, &key, &delimiter).unwrap_or_else(|| default_or_empty(default)))
}

fn has_value<'c>(cx: &Ctx<'c>, mut p: Params) -> Result<Returned<'c>, CallError> {
    let key = p.require_str("key")?;
    p.finish()?;
    let hit = traverse(cx.grains, &key, ":").is_some_and(|(v, _)| v.is_truthy());
    Ok(Returned::New(Value::Bool(hit)))
}

fn item<'c>(cx: &Ctx<'c>, mut p: Params) -> Result<Returned<'c>, CallError> {
    let keys = p.rest();
    let default = p.kw("default").filter(|d| !d.is_null());
    let delimiter = delimiter(p.kw("delimiter"));
    p.kw("sanitize");
    p.finish()?;
    Ok(Returned::Dict(
        keys.iter()
            .map(|k| {
                let k = k.to_python_str();
                let v = found(cx, &k, &delimiter).unwrap_or_else(|| {
                    default_or_empty(
                        default
                            .clone()
                            .map(|d| (d, ArgName::Keyword("default".into()))),
                    )
                });
                (k, v)
            })
            .collect(),
    ))
}

fn items<'c>(cx: &Ctx<'c>, mut p: Params) -> Result<Returned<'c>, CallError> {
    p.take("sanitize");
    p.finish()?;
    Ok(Returned::Data(DataRef {
        source: Source::Grains,
        path: Vec::new(),
        node: Node::Root(cx.grains),
    }))
}

fn ls<'c>(cx: &Ctx<'c>, p: Params) -> Result<Returned<'c>, CallError> {
    p.finish()?;
    let mut keys: Vec<&String> = cx.grains.keys().collect();
    keys.sort();
    Ok(Returned::New(Value::List(
        keys.into_iter().map(|k| Value::Str(k.clone())).collect(),
    )))
}

/// A pick of `filter_by` so far: its value and where its dicts came from
/// (`whole`: it is that argument piece itself, unchanged).
struct Pick {
    value: Value,
    from: Vec<Origin>,
    whole: Option<ArgAt>,
}

impl Pick {
    fn of(at: ArgAt, value: Value) -> Pick {
        Pick {
            value,
            from: vec![Origin::Arg(at.clone())],
            whole: Some(at),
        }
    }

    /// Salt's `dictupdate.update(copy of self, upd)`.
    fn merged(self, upd: Pick) -> Result<Pick, CallError> {
        let (Value::Map(mut dest), Value::Map(u)) = (self.value, upd.value) else {
            return Err(not_dicts());
        };
        update(&mut dest, u, false);
        let mut from = self.from;
        from.extend(upd.from);
        Ok(Pick {
            value: Value::Map(dest),
            from,
            whole: None,
        })
    }

    fn returned(self) -> Returned<'static> {
        match self.whole {
            Some(at) => Returned::Arg {
                at,
                value: self.value,
            },
            None => Returned::Merged {
                value: self.value,
                from: self.from,
                into: None,
            },
        }
    }
}

fn not_dicts() -> CallError {
    CallError::Failed("Cannot update using non-dict types in dictupdate.update()".into())
}

fn filter_by<'c>(cx: &Ctx<'c>, p: Params) -> Result<Returned<'c>, CallError> {
    filter_by_in(cx.grains, p, "grain", Some("os_family"))
}

/// Salt's `filter_by` over `data` (grains or pillar): the value at the
/// parameter `key_param` (default `key_default`; required without one)
/// picks the entry of the lookup dict.
pub(super) fn filter_by_in<'c>(
    data: &Map,
    mut p: Params,
    key_param: &str,
    key_default: Option<&str>,
) -> Result<Returned<'c>, CallError> {
    let (lookup, lookup_at) = p.require_at("lookup_dict")?;
    let grain = match key_default {
        Some(d) => opt_string(p.take(key_param)).unwrap_or_else(|| d.into()),
        None => p.require(key_param)?.to_python_str(),
    };
    let merge = p.take_at("merge");
    let default = p.take("default").unwrap_or_else(|| Value::from("default"));
    let base = p.take("base");
    p.finish()?;
    let entries = lookup.as_map().cloned().unwrap_or_default();
    let entry = |key: &str| -> Option<Pick> {
        let v = entries.get(key)?;
        Some(Pick::of(
            ArgAt {
                arg: lookup_at.clone(),
                path: vec![Step::Key(key.to_string())],
            },
            v.clone(),
        ))
    };
    let values = match traverse(data, &grain, ":").map(|(v, _)| v) {
        Some(Value::List(l)) => l.clone(),
        Some(v) => vec![v.clone()],
        None => Vec::new(),
    };
    let mut pick: Option<Pick> = None;
    for each in &values {
        let each = each.to_python_str();
        // The first key matching wins, even when its entry is None (then
        // the next grain value is tried).
        if let Some((k, v)) = entries.iter().find(|(k, _)| fnmatch(&each, k)) {
            if !v.is_null() {
                pick = entry(k);
                break;
            }
        }
    }
    if pick.is_none() {
        pick = entry(&key_string(&default)).filter(|e| !e.value.is_null());
    }
    if let Some(base_key) = base.filter(Value::is_truthy).map(|b| key_string(&b)) {
        if let Some(base_values) = entry(&base_key) {
            pick = Some(match pick {
                None => base_values,
                Some(r) if base_values.value.as_map().is_some() => {
                    if r.value.as_map().is_none() {
                        return Err(CallError::Failed(
                            "filter_by default and look-up values must both be dictionaries."
                                .into(),
                        ));
                    }
                    base_values.merged(r)?
                }
                Some(r) => r,
            });
        }
    }
    if let Some((m, m_arg)) = merge.filter(|(m, _)| m.is_truthy()) {
        if m.as_map().is_none() {
            return Err(CallError::Failed(
                "filter_by merge argument must be a dictionary.".into(),
            ));
        }
        let m = Pick::of(ArgAt::new(m_arg), m);
        pick = Some(match pick {
            None => m,
            Some(r) => r.merged(m)?,
        });
    }
    Ok(pick.map_or(Returned::New(Value::Null), Pick::returned))
}

#[cfg(test)]
mod tests {
    use super::fnmatch;

    /// `filter_by` matches grain values against its keys with Python's
    /// `fnmatch.fnmatchcase`.
    #[test]
    fn fnmatch_like_python() {
        assert!(fnmatch("Debian", "Deb*"));
        assert!(fnmatch("Debian", "D?bian"));
        assert!(fnmatch("web01", "web[0-9]*"));
        assert!(!fnmatch("web01", "web[!0]*"));
        assert!(fnmatch("a[b", "a[b"));
        assert!(!fnmatch("RedHat", "Debian"));
        assert!(fnmatch("", "*"));
    }
}
