//! `salt` in templates: `salt['pillar.get'](...)`, `salt.grains.filter_by(...)`
//! call the execution functions the compile was handed
//! ([`MinionData::functions`], brine-runtime's module registry). This side
//! only converts: template values to brine data for the arguments, and the
//! answer back to the template value Python would hand back (the same
//! object for a piece of pillar or an argument, with its `OrderedDict` or
//! `dict` type; a dict changed in place stays the object the template holds).

use super::convert::{self, map_pairs, seq_items, OrderedDict};
use super::mutable::dict_update;
use super::pyargs::{invalid, split};
use crate::minion_data::{ArgAt, ArgName, DataRef, Origin, Returned, Source, Step};
use crate::MinionData;
use brine_core::args::CallArgs;
use brine_core::value::key_string;
use brine_core::Value;
use indexmap::IndexMap;
use minijinja::value::{Enumerator, Object, ObjectRepr, Value as MjValue, ValueKind};
use minijinja::{Error, State};
use std::sync::Arc;

/// The minion and its data as template values (converted once per thread
/// by the caller), for the functions' answers to point into.
#[derive(Debug)]
pub(crate) struct SaltLoader {
    minion: Arc<MinionData>,
    grains: MjValue,
    pillar: MjValue,
    opts: MjValue,
}

pub(crate) fn loader(
    minion: Arc<MinionData>,
    grains: MjValue,
    pillar: MjValue,
    opts: MjValue,
) -> MjValue {
    MjValue::from_object(SaltLoader {
        minion,
        grains,
        pillar,
        opts,
    })
}

impl Object for SaltLoader {
    fn repr(self: &Arc<Self>) -> ObjectRepr {
        ObjectRepr::Map
    }

    fn get_value(self: &Arc<Self>, key: &MjValue) -> Option<MjValue> {
        let name = key.as_str()?;
        Some(if name.contains('.') {
            MjValue::from_object(SaltFunc {
                name: name.to_string(),
                loader: self.clone(),
            })
        } else {
            // `salt.pillar.get(...)`: Salt also exposes modules as attributes.
            MjValue::from_object(SaltModule {
                module: name.to_string(),
                loader: self.clone(),
            })
        })
    }

    fn enumerate(self: &Arc<Self>) -> Enumerator {
        Enumerator::Values(
            self.minion
                .functions
                .names()
                .into_iter()
                .map(MjValue::from)
                .collect(),
        )
    }
}

#[derive(Debug)]
struct SaltModule {
    module: String,
    loader: Arc<SaltLoader>,
}

impl Object for SaltModule {
    fn repr(self: &Arc<Self>) -> ObjectRepr {
        ObjectRepr::Plain
    }

    fn get_value(self: &Arc<Self>, key: &MjValue) -> Option<MjValue> {
        let fun = key.as_str()?;
        Some(MjValue::from_object(SaltFunc {
            name: format!("{}.{fun}", self.module),
            loader: self.loader.clone(),
        }))
    }

    fn call_method(
        self: &Arc<Self>,
        _state: &State,
        method: &str,
        args: &[MjValue],
    ) -> Result<MjValue, Error> {
        call(&self.loader, &format!("{}.{method}", self.module), args)
    }
}

#[derive(Debug)]
struct SaltFunc {
    name: String,
    loader: Arc<SaltLoader>,
}

impl Object for SaltFunc {
    fn repr(self: &Arc<Self>) -> ObjectRepr {
        ObjectRepr::Plain
    }

    fn call(self: &Arc<Self>, _state: &State, args: &[MjValue]) -> Result<MjValue, Error> {
        call(&self.loader, &self.name, args)
    }

    fn render(self: &Arc<Self>, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "<function {}>", self.name)
    }
}

/// Jinja2's `callable` test: macros and functions are; `salt['mod.fn']`
/// is when the minion has that function (Salt's loader raises KeyError for
/// one it lacks, which Jinja turns into an undefined value).
pub(crate) fn is_callable(v: &MjValue) -> bool {
    if let Some(f) = v.downcast_object_ref::<SaltFunc>() {
        return f.loader.minion.functions.names().contains(&f.name);
    }
    use minijinja::value::ValueKind;
    match v.kind() {
        // An undefined value is callable to Jinja2 (calling it raises).
        ValueKind::Plain | ValueKind::Undefined => true,
        // minijinja's macros are map-like objects whose type is private;
        // their debug form names them.
        ValueKind::Map => v.as_object().is_some() && format!("{v:?}").starts_with("<macro "),
        _ => false,
    }
}

/// The call's arguments as the template gave them.
struct Given {
    pos: Vec<MjValue>,
    kw: Vec<(String, MjValue)>,
}

impl Given {
    fn get(&self, at: &ArgAt) -> Option<MjValue> {
        let arg = match &at.arg {
            ArgName::Position(i) => self.pos.get(*i)?.clone(),
            ArgName::Keyword(k) => self.kw.iter().find(|(n, _)| n == k)?.1.clone(),
        };
        walk(arg, &at.path)
    }
}

fn call(l: &SaltLoader, name: &str, args: &[MjValue]) -> Result<MjValue, Error> {
    let (pos, kw) = split(args);
    let mut data = CallArgs::default();
    for a in &pos {
        data.args.push(to_value(name, a, 0)?);
    }
    for (k, v) in &kw {
        data.kwargs.insert(k.clone(), to_value(name, v, 0)?);
    }
    let returned = l
        .minion
        .functions
        .call(&l.minion, name, data)
        .map_err(|e| invalid(e.to_string()))?;
    back(l, &Given { pos, kw }, returned)
}

/// An answer as the template value Python would hand back.
fn back(l: &SaltLoader, given: &Given, returned: Returned<'_>) -> Result<MjValue, Error> {
    Ok(match returned {
        Returned::New(v) => convert::to_jinja(&v, false),
        Returned::Data(DataRef { source, path, node }) => walk(l.source(source).clone(), &path)
            .unwrap_or_else(|| convert::to_jinja(&node.to_value(), source == Source::Pillar)),
        Returned::Arg { at, value } => given
            .get(&at)
            .unwrap_or_else(|| convert::to_jinja(&value, false)),
        Returned::Dict(items) => {
            let mut map = IndexMap::new();
            for (k, r) in items {
                map.insert(MjValue::from(k), back(l, given, r)?);
            }
            MjValue::from_object(map)
        }
        Returned::Merged { value, from, into } => {
            let donors: Vec<MjValue> = from
                .iter()
                .filter_map(|o| match o {
                    Origin::Data { source, path } => walk(l.source(*source).clone(), path),
                    Origin::Arg(at) => given.get(at),
                })
                .collect();
            let merged = like(&value, &donors, 0);
            match into.and_then(|at| given.get(&at)) {
                // Changed in place: the template's own dict takes the
                // result, keeping its nested dicts (and names bound to them).
                Some(dest)
                    if dest
                        .downcast_object_ref::<super::mutable::MutDict>()
                        .is_some() =>
                {
                    dict_update(&dest, &merged, false)?;
                    dest
                }
                _ => merged,
            }
        }
    })
}

impl SaltLoader {
    fn source(&self, source: Source) -> &MjValue {
        match source {
            Source::Pillar => &self.pillar,
            Source::Grains => &self.grains,
            Source::Opts => &self.opts,
        }
    }
}

/// Down `path` from `v`.
fn walk(mut v: MjValue, path: &[Step]) -> Option<MjValue> {
    for step in path {
        v = match step {
            Step::Key(k) => lookup(&v, &MjValue::from(k.as_str()))?,
            Step::Index(i) => {
                if v.kind() != ValueKind::Seq {
                    return None;
                }
                lookup(&v, &MjValue::from(*i))?
            }
        };
    }
    Some(v)
}

/// `v` as a template value whose mappings take the type (`OrderedDict` or
/// `dict`) of the first donor holding a mapping at the same place.
fn like(v: &Value, donors: &[MjValue], depth: usize) -> MjValue {
    if donors.is_empty() || depth > convert::MAX_DEPTH {
        return convert::to_jinja(v, false);
    }
    match v {
        Value::Map(m) => {
            let maps: Vec<&MjValue> = donors
                .iter()
                .filter(|d| d.kind() == ValueKind::Map)
                .collect();
            let ordered = maps.first().is_some_and(|d| convert::is_ordered_map(d));
            let map: IndexMap<MjValue, MjValue> = m
                .iter()
                .map(|(k, x)| {
                    let key = MjValue::from(k.as_str());
                    let below: Vec<MjValue> = maps.iter().filter_map(|d| lookup(d, &key)).collect();
                    (key, like(x, &below, depth + 1))
                })
                .collect();
            if ordered {
                MjValue::from_object(OrderedDict(map))
            } else {
                MjValue::from_object(map)
            }
        }
        Value::List(items) => {
            // Best effort: the donors' items at the same position.
            let seqs: Vec<Vec<MjValue>> = donors
                .iter()
                .filter(|d| d.kind() == ValueKind::Seq)
                .map(seq_items)
                .collect();
            MjValue::from(
                items
                    .iter()
                    .enumerate()
                    .map(|(i, x)| {
                        let below: Vec<MjValue> =
                            seqs.iter().filter_map(|s| s.get(i).cloned()).collect();
                        like(x, &below, depth + 1)
                    })
                    .collect::<Vec<_>>(),
            )
        }
        scalar => convert::to_jinja(scalar, false),
    }
}

/// A template value as brine data, for an argument: mappings keep their
/// order and their keys become strings (brine's data model), tuples become
/// lists, undefined becomes `None`. Macros, namespaces and other objects
/// are not data.
fn to_value(fname: &str, v: &MjValue, depth: usize) -> Result<Value, Error> {
    if depth > convert::MAX_DEPTH {
        return Err(invalid(format!(
            "salt['{fname}']: an argument contains itself"
        )));
    }
    Ok(match v.kind() {
        ValueKind::Undefined | ValueKind::None => Value::Null,
        ValueKind::Bool => Value::Bool(v.is_true()),
        ValueKind::Number => match v.as_i64().filter(|_| v.is_integer()) {
            Some(i) => Value::Int(i),
            None => Value::Float(f64::try_from(v.clone()).unwrap_or(f64::NAN)),
        },
        ValueKind::String => Value::Str(v.as_str().unwrap_or_default().to_string()),
        ValueKind::Bytes => {
            Value::Str(String::from_utf8_lossy(v.as_bytes().unwrap_or_default()).into_owned())
        }
        ValueKind::Seq | ValueKind::Iterable => Value::List(
            seq_items(v)
                .iter()
                .map(|x| to_value(fname, x, depth + 1))
                .collect::<Result<_, _>>()?,
        ),
        ValueKind::Map => {
            let mut m = brine_core::Map::default();
            for (k, x) in map_pairs(v) {
                m.insert(
                    key_string(&to_value(fname, &k, depth + 1)?),
                    to_value(fname, &x, depth + 1)?,
                );
            }
            Value::Map(m)
        }
        other => {
            return Err(invalid(format!(
                "salt['{fname}']: a {other} cannot be passed to an execution function"
            )))
        }
    })
}

/// Salt's `traverse_dict_and_list`: walk `a:b:0` through dicts and lists; a
/// list is indexed by number, or searched for an embedded dict holding the
/// key; a missing dict key is retried as the YAML scalar it spells
/// (`'80'` finds the key `80`).
pub(crate) fn traverse(data: &MjValue, key: &str, delim: &str) -> Option<MjValue> {
    let mut ptr = data.clone();
    let parts: Vec<&str> = if delim.is_empty() {
        vec![key]
    } else {
        key.split(delim).collect()
    };
    for each in parts {
        ptr = if ptr.kind() == ValueKind::Seq && !convert::is_tuple(&ptr) {
            let items = seq_items(&ptr);
            let dicts = || items.iter().filter(|x| x.kind() == ValueKind::Map);
            match python_int(each) {
                None => dicts().find_map(|d| lookup(d, &MjValue::from(each)))?,
                Some(idx) => match dicts().find_map(|d| lookup(d, &MjValue::from(idx))) {
                    Some(v) => v,
                    None => {
                        let len = items.len() as i64;
                        let pos = if idx < 0 { len + idx } else { idx };
                        if pos < 0 {
                            return None;
                        }
                        items.get(usize::try_from(pos).ok()?)?.clone()
                    }
                },
            }
        } else if ptr.kind() == ValueKind::Map {
            match lookup(&ptr, &MjValue::from(each)) {
                Some(v) => v,
                None => {
                    let loaded = yamlify(each)?;
                    lookup(&ptr, &loaded)?
                }
            }
        } else {
            return None;
        };
    }
    Some(ptr)
}

fn lookup(map: &MjValue, key: &MjValue) -> Option<MjValue> {
    map.get_item(key).ok().filter(|v| !v.is_undefined())
}

/// Python `int(s)`: surrounding whitespace, a sign, `_` between digits.
fn python_int(s: &str) -> Option<i64> {
    let t = s.trim();
    let digits = t.strip_prefix(['+', '-']).unwrap_or(t);
    if digits.is_empty()
        || digits.starts_with('_')
        || digits.ends_with('_')
        || digits.contains("__")
    {
        return None;
    }
    if !digits.chars().all(|c| c.is_ascii_digit() || c == '_') {
        return None;
    }
    t.replace('_', "").parse().ok()
}

/// The non-string YAML scalar a key segment spells, if any.
fn yamlify(s: &str) -> Option<MjValue> {
    if !brine_core::yaml::plain_is_str(s) {
        let v = match s {
            "true" | "True" | "TRUE" | "yes" | "Yes" | "YES" | "on" | "On" | "ON" => {
                MjValue::from(true)
            }
            "false" | "False" | "FALSE" | "no" | "No" | "NO" | "off" | "Off" | "OFF" => {
                MjValue::from(false)
            }
            "~" | "null" | "Null" | "NULL" | "" => MjValue::from(()),
            _ => {
                if let Some(i) = python_int(s) {
                    MjValue::from(i)
                } else {
                    MjValue::from(s.replace('_', "").parse::<f64>().ok()?)
                }
            }
        };
        return Some(v);
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn python_int_parsing() {
        assert_eq!(python_int(" -1 "), Some(-1));
        assert_eq!(python_int("1_0"), Some(10));
        assert_eq!(python_int("x"), None);
        assert_eq!(python_int("_1"), None);
    }
}
