//! The Python methods Salt trees call on template values (`d.update(...)`,
//! `l.append(...)`, `s.startswith(...)`), and Salt's deep copy and
//! `dictupdate` on them.
//!
//! minijinja values are immutable, but Salt trees rely on
//! `{% set l = [] %}{% do l.append(x) %}` and `{% do d.update(...) %}`.
//! Every `{% set name = expr %}` result is passed through [`make_mutable`]
//! (the template is rewritten to do that, see `preprocess`), which turns
//! lists and dicts into [`MutList`]/[`MutDict`] (defined with the other
//! value types in `convert`). Their children become mutable on first
//! access, so nested updates stick, and the same object is shared by every
//! name bound to it, as in Python.

use super::convert::{self, mutable_child, MutList, OrderedDict, PyTuple};
use super::pyargs::{bind, invalid, split};
use indexmap::IndexMap;
use minijinja::value::{Value as MjValue, ValueKind};
use minijinja::{Error, ErrorKind, State};

/// The conversion into the mutable types, and the dict, also named beside
/// the methods that change them (`salt_functions` reaches them here).
pub(crate) use super::convert::{make_mutable, MutDict};

/// Like [`convert::map_pairs`], but children of a [`MutDict`] become mutable
/// (`for k, v in d.items()` then `v.append(...)` changes `d`).
fn map_pairs_lazy(value: &MjValue) -> Vec<(MjValue, MjValue)> {
    match value.downcast_object_ref::<MutDict>() {
        Some(d) => d
            .entries()
            .iter_mut()
            .map(|(k, v)| (k.clone(), mutable_child(v)))
            .collect(),
        None => convert::map_pairs(value),
    }
}

fn not_mutable(value: &MjValue, method: &str) -> Error {
    invalid(format!(
        "cannot call {method}() on this {}: in brine only lists and dicts bound with \
         {{% set name = ... %}} can be changed in place",
        value.kind()
    ))
}

/// The environment's unknown-method callback: Python methods of `dict`,
/// `list` and `str` beyond what minijinja knows, then minijinja-contrib's
/// pycompat methods.
pub(crate) fn call_method(
    state: &State,
    value: &MjValue,
    method: &str,
    args: &[MjValue],
) -> Result<MjValue, Error> {
    match value.kind() {
        ValueKind::Map => {
            if let Some(rv) = map_method(value, method, args)? {
                return Ok(rv);
            }
        }
        ValueKind::Seq if value.downcast_object_ref::<PyTuple>().is_none() => {
            if let Some(rv) = list_method(value, method, args)? {
                return Ok(rv);
            }
        }
        ValueKind::String => {
            if let Some(rv) = super::pystr::str_method(value, method, args)? {
                return Ok(rv);
            }
        }
        _ => {}
    }
    minijinja_contrib::pycompat::unknown_method_callback(state, value, method, args)
}

fn map_method(value: &MjValue, method: &str, args: &[MjValue]) -> Result<Option<MjValue>, Error> {
    let fname = format!("dict.{method}");
    let rv = match method {
        "items" => {
            bind(&fname, args, &[], 0)?;
            MjValue::from(
                map_pairs_lazy(value)
                    .into_iter()
                    .map(|(k, v)| convert::tuple(vec![k, v]))
                    .collect::<Vec<_>>(),
            )
        }
        "keys" => {
            bind(&fname, args, &[], 0)?;
            MjValue::from(
                convert::map_pairs(value)
                    .into_iter()
                    .map(|(k, _)| k)
                    .collect::<Vec<_>>(),
            )
        }
        "values" => {
            bind(&fname, args, &[], 0)?;
            MjValue::from(
                map_pairs_lazy(value)
                    .into_iter()
                    .map(|(_, v)| v)
                    .collect::<Vec<_>>(),
            )
        }
        "get" => {
            let a = bind(&fname, args, &["key", "default"], 1)?;
            let key = a[0].clone().unwrap_or_default();
            match value.get_item(&key) {
                Ok(v) if !v.is_undefined() => v,
                _ => a[1].clone().unwrap_or(MjValue::from(())),
            }
        }
        "copy" => {
            bind(&fname, args, &[], 0)?;
            let pairs: IndexMap<MjValue, MjValue> = convert::map_pairs(value).into_iter().collect();
            MjValue::from_object(MutDict::new(pairs, convert::is_ordered_map(value)))
        }
        "update" | "setdefault" | "pop" | "clear" | "popitem" => {
            let Some(d) = value.downcast_object_ref::<MutDict>() else {
                return Err(not_mutable(value, method));
            };
            dict_mutation(d, &fname, method, args)?
        }
        _ => return Ok(None),
    };
    Ok(Some(rv))
}

fn dict_mutation(
    d: &MutDict,
    fname: &str,
    method: &str,
    args: &[MjValue],
) -> Result<MjValue, Error> {
    match method {
        "update" => {
            let (pos, kw) = split(args);
            if pos.len() > 1 {
                return Err(invalid(format!(
                    "{fname}() expected at most 1 argument, got {}",
                    pos.len()
                )));
            }
            let mut new_pairs = Vec::new();
            if let Some(other) = pos.first() {
                match other.kind() {
                    ValueKind::Map => new_pairs.extend(convert::map_pairs(other)),
                    ValueKind::Seq | ValueKind::Iterable => {
                        for pair in convert::seq_items(other) {
                            let kv = convert::seq_items(&pair);
                            let [k, v] = <[MjValue; 2]>::try_from(kv).map_err(|_| {
                                invalid(format!("{fname}(): sequence elements must be pairs"))
                            })?;
                            new_pairs.push((k, v));
                        }
                    }
                    ValueKind::None | ValueKind::Undefined => {
                        return Err(invalid(format!(
                            "{fname}(): 'NoneType' object is not iterable"
                        )))
                    }
                    other => return Err(invalid(format!("{fname}(): cannot update from {other}"))),
                }
            }
            new_pairs.extend(kw.into_iter().map(|(k, v)| (MjValue::from(k), v)));
            let mut map = d.entries();
            for (k, v) in new_pairs {
                map.insert(k, v);
            }
            Ok(MjValue::from(()))
        }
        "setdefault" => {
            let a = bind(fname, args, &["key", "default"], 1)?;
            let key = a[0].clone().unwrap_or_default();
            let mut map = d.entries();
            let slot = map
                .entry(key)
                .or_insert_with(|| a[1].clone().unwrap_or(MjValue::from(())));
            Ok(mutable_child(slot))
        }
        "pop" => {
            let a = bind(fname, args, &["key", "default"], 1)?;
            let key = a[0].clone().unwrap_or_default();
            match d.entries().shift_remove(&key) {
                Some(v) => Ok(v),
                None => a[1].clone().ok_or_else(|| {
                    Error::new(
                        ErrorKind::InvalidOperation,
                        format!("KeyError: {}", convert::py_repr(&key)),
                    )
                }),
            }
        }
        "popitem" => {
            bind(fname, args, &[], 0)?;
            match d.entries().pop() {
                Some((k, v)) => Ok(convert::tuple(vec![k, v])),
                None => Err(invalid("KeyError: 'popitem(): dictionary is empty'")),
            }
        }
        _ => {
            bind(fname, args, &[], 0)?;
            d.entries().clear();
            Ok(MjValue::from(()))
        }
    }
}

fn list_method(value: &MjValue, method: &str, args: &[MjValue]) -> Result<Option<MjValue>, Error> {
    let fname = format!("list.{method}");
    let rv = match method {
        "index" => {
            let a = bind(&fname, args, &["value"], 1)?;
            let needle = a[0].clone().unwrap_or_default();
            match convert::seq_items(value).iter().position(|x| *x == needle) {
                Some(i) => MjValue::from(i),
                None => {
                    return Err(invalid(format!(
                        "ValueError: {} is not in list",
                        convert::py_repr(&needle)
                    )))
                }
            }
        }
        "copy" => {
            bind(&fname, args, &[], 0)?;
            MjValue::from_object(MutList::new(convert::seq_items(value)))
        }
        "append" | "extend" | "insert" | "pop" | "remove" | "clear" | "reverse" | "sort" => {
            let Some(l) = value.downcast_object_ref::<MutList>() else {
                return Err(not_mutable(value, method));
            };
            list_mutation(l, &fname, method, args)?
        }
        _ => return Ok(None),
    };
    Ok(Some(rv))
}

fn list_mutation(
    l: &MutList,
    fname: &str,
    method: &str,
    args: &[MjValue],
) -> Result<MjValue, Error> {
    let none = MjValue::from(());
    match method {
        "append" => {
            let a = bind(fname, args, &["object"], 1)?;
            l.items().push(a[0].clone().unwrap_or_default());
        }
        "extend" => {
            let a = bind(fname, args, &["iterable"], 1)?;
            let src = a[0].clone().unwrap_or_default();
            let items = match src.kind() {
                ValueKind::Map => convert::map_pairs(&src)
                    .into_iter()
                    .map(|(k, _)| k)
                    .collect(),
                ValueKind::String => src
                    .as_str()
                    .unwrap_or_default()
                    .chars()
                    .map(MjValue::from)
                    .collect(),
                ValueKind::Seq | ValueKind::Iterable => convert::seq_items(&src),
                other => {
                    return Err(invalid(format!(
                        "{fname}(): '{other}' object is not iterable"
                    )))
                }
            };
            l.items().extend(items);
        }
        "insert" => {
            let a = bind(fname, args, &["index", "object"], 2)?;
            let idx = a[0]
                .as_ref()
                .and_then(|v| v.as_i64())
                .ok_or_else(|| invalid(format!("{fname}(): index must be an integer")))?;
            let mut items = l.items();
            let len = items.len() as i64;
            // Python clamps out-of-range insert positions.
            let pos = if idx < 0 {
                (len + idx).max(0)
            } else {
                idx.min(len)
            };
            items.insert(pos as usize, a[1].clone().unwrap_or_default());
        }
        "pop" => {
            let a = bind(fname, args, &["index"], 0)?;
            let mut items = l.items();
            let len = items.len() as i64;
            let idx = match &a[0] {
                Some(v) => v
                    .as_i64()
                    .ok_or_else(|| invalid(format!("{fname}(): index must be an integer")))?,
                None => -1,
            };
            let pos = if idx < 0 { len + idx } else { idx };
            if pos < 0 || pos >= len {
                return Err(invalid("IndexError: pop index out of range"));
            }
            return Ok(items.remove(pos as usize));
        }
        "remove" => {
            let a = bind(fname, args, &["value"], 1)?;
            let needle = a[0].clone().unwrap_or_default();
            let mut items = l.items();
            match items.iter().position(|x| *x == needle) {
                Some(i) => {
                    items.remove(i);
                }
                None => return Err(invalid("ValueError: list.remove(x): x not in list")),
            }
        }
        "clear" => {
            bind(fname, args, &[], 0)?;
            l.items().clear();
        }
        "reverse" => {
            bind(fname, args, &[], 0)?;
            l.items().reverse();
        }
        _ => {
            let a = bind(fname, args, &["key", "reverse"], 0)?;
            if a[0].is_some() {
                return Err(invalid(format!(
                    "{fname}(): key= is not supported by brine"
                )));
            }
            let mut items = l.items();
            items.sort();
            if a[1].as_ref().is_some_and(|r| r.is_true()) {
                items.reverse();
            }
        }
    }
    Ok(none)
}

/// `copy.deepcopy` into mutable lists and dicts.
pub(crate) fn deep_mutable(v: &MjValue) -> MjValue {
    deep_mutable_at(v, 0)
}

fn deep_mutable_at(v: &MjValue, depth: usize) -> MjValue {
    if depth > convert::MAX_DEPTH {
        // A self-containing value: share the rest instead of copying forever.
        return v.clone();
    }
    match v.kind() {
        ValueKind::Map if is_plain_data_map(v) => {
            let map: IndexMap<MjValue, MjValue> = convert::map_pairs(v)
                .into_iter()
                .map(|(k, x)| (k, deep_mutable_at(&x, depth + 1)))
                .collect();
            MjValue::from_object(MutDict::new(map, convert::is_ordered_map(v)))
        }
        ValueKind::Seq if v.downcast_object_ref::<PyTuple>().is_none() => {
            MjValue::from_object(MutList::new(
                convert::seq_items(v)
                    .iter()
                    .map(|x| deep_mutable_at(x, depth + 1))
                    .collect(),
            ))
        }
        _ => v.clone(),
    }
}

/// Dicts that are data (not namespaces, modules or the `salt` loader).
fn is_plain_data_map(v: &MjValue) -> bool {
    v.downcast_object_ref::<MutDict>().is_some()
        || v.downcast_object_ref::<OrderedDict>().is_some()
        || v.downcast_object_ref::<IndexMap<MjValue, MjValue>>()
            .is_some()
}

/// Salt's `dictupdate.update(dest, upd, merge_lists)`, in place on the
/// mutable dict `dest`: nested dicts merge key by key, lists are replaced
/// (or extended with new items when `merge_lists`), everything else is
/// overwritten. As in Salt, when the two share no key at all, `upd`'s
/// values are copied over without recursing.
pub(crate) fn dict_update(dest: &MjValue, upd: &MjValue, merge_lists: bool) -> Result<(), Error> {
    dict_update_at(dest, upd, merge_lists, 0)
}

fn dict_update_at(
    dest: &MjValue,
    upd: &MjValue,
    merge_lists: bool,
    depth: usize,
) -> Result<(), Error> {
    if depth > convert::MAX_DEPTH {
        return Err(invalid(
            "RecursionError: cannot merge a self-containing dict",
        ));
    }
    let Some(d) = dest.downcast_object_ref::<MutDict>() else {
        return Err(invalid(
            "Cannot update using non-dict types in dictupdate.update()",
        ));
    };
    if upd.kind() != ValueKind::Map {
        return Err(invalid(
            "Cannot update using non-dict types in dictupdate.update()",
        ));
    }
    let pairs = convert::map_pairs(upd);
    let shares_key = {
        let map = d.entries();
        pairs.iter().any(|(k, _)| map.contains_key(k))
    };
    if !shares_key {
        let mut map = d.entries();
        for (k, v) in pairs {
            map.insert(k, v);
        }
        return Ok(());
    }
    for (k, val) in pairs {
        // Take the child out of the lock before recursing into it.
        let sub = d.entries().get_mut(&k).map(mutable_child);
        let new = match sub {
            Some(sub)
                if sub.kind() == ValueKind::Map
                    && val.kind() == ValueKind::Map
                    && is_plain_data_map(&sub) =>
            {
                dict_update_at(&sub, &val, merge_lists, depth + 1)?;
                sub
            }
            Some(sub)
                if merge_lists && sub.kind() == ValueKind::Seq && val.kind() == ValueKind::Seq =>
            {
                let mut merged: Vec<MjValue> = convert::seq_items(&deep_mutable(&sub));
                for x in convert::seq_items(&val) {
                    if !merged.contains(&x) {
                        merged.push(x);
                    }
                }
                MjValue::from_object(MutList::new(merged))
            }
            _ => val,
        };
        d.entries().insert(k, new);
    }
    Ok(())
}
