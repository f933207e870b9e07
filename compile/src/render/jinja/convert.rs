//! Template values as Salt's Python sees them: the Python types minijinja
//! lacks (`OrderedDict`, tuple, the mutable `list` and `dict` that
//! `{% set %}` binds), moving data between brine's [`Value`] and
//! minijinja's, reading values without side effects, and Python's
//! `str()`/`repr()` of them (what `{{ x }}` prints in Salt).
//!
//! The bottom of the Jinja modules: the methods that change the mutable
//! types (`mutable`), the filters and the dumpers all build on this.

use brine_core::value::{python_float_repr, python_str_repr};
use brine_core::Value;
use indexmap::IndexMap;
use minijinja::value::{Enumerator, Object, ObjectRepr, Value as MjValue, ValueKind};
use std::sync::{Arc, Mutex, MutexGuard};

/// A mapping that came from YAML data (pillar, PillarStack, `import_yaml`).
/// Salt loads those as `OrderedDict`, which its `yaml` filter dumps in
/// insertion order; plain dicts (grains, template literals) are dumped with
/// sorted keys. This type carries that difference.
#[derive(Debug, Default)]
pub(crate) struct OrderedDict(pub IndexMap<MjValue, MjValue>);

impl Object for OrderedDict {
    fn repr(self: &Arc<Self>) -> ObjectRepr {
        ObjectRepr::Map
    }

    fn get_value(self: &Arc<Self>, key: &MjValue) -> Option<MjValue> {
        self.0.get(key).cloned()
    }

    fn enumerate(self: &Arc<Self>) -> Enumerator {
        self.mapped_key_value_enumerator(|this| {
            Box::new(this.0.iter().map(|(k, v)| (k.clone(), v.clone())))
        })
    }

    fn enumerator_len(self: &Arc<Self>) -> Option<usize> {
        Some(self.0.len())
    }

    /// Python's `str()` (minijinja uses this for `~`).
    fn render(self: &Arc<Self>, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&py_str(&MjValue::from_dyn_object(self.clone())))
    }
}

use minijinja::value::ObjectExt;

/// A Python tuple (`dict.items()` pairs, `regex_search` groups): a sequence
/// that prints as `('a', 1)`.
#[derive(Debug, Default)]
pub(crate) struct PyTuple(pub Vec<MjValue>);

impl Object for PyTuple {
    fn repr(self: &Arc<Self>) -> ObjectRepr {
        ObjectRepr::Seq
    }

    fn get_value(self: &Arc<Self>, key: &MjValue) -> Option<MjValue> {
        self.0.get(key.as_usize()?).cloned()
    }

    fn enumerate(self: &Arc<Self>) -> Enumerator {
        Enumerator::Seq(self.0.len())
    }

    fn render(self: &Arc<Self>, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&py_str(&MjValue::from_dyn_object(self.clone())))
    }
}

pub(crate) fn tuple(items: Vec<MjValue>) -> MjValue {
    MjValue::from_object(PyTuple(items))
}

/// Pillar as Salt hands it to templates: a plain dict whose values came
/// from YAML (`OrderedDict`s).
pub(crate) fn pillar_to_jinja(v: &Value) -> MjValue {
    match v {
        Value::Map(m) => MjValue::from_object(
            m.iter()
                .map(|(k, x)| (MjValue::from(k.as_str()), to_jinja(x, true)))
                .collect::<IndexMap<MjValue, MjValue>>(),
        ),
        other => to_jinja(other, true),
    }
}

/// brine data → template value. `ordered` marks mappings as YAML-loaded
/// (`OrderedDict`) rather than plain dicts.
pub(crate) fn to_jinja(v: &Value, ordered: bool) -> MjValue {
    match v {
        Value::Null => MjValue::from(()),
        Value::Bool(b) => MjValue::from(*b),
        Value::Int(i) => MjValue::from(*i),
        Value::Float(f) => MjValue::from(*f),
        Value::Str(s) => MjValue::from(s.as_str()),
        Value::List(l) => MjValue::from(l.iter().map(|x| to_jinja(x, ordered)).collect::<Vec<_>>()),
        Value::Map(m) => {
            let map: IndexMap<MjValue, MjValue> = m
                .iter()
                .map(|(k, x)| (MjValue::from(k.as_str()), to_jinja(x, ordered)))
                .collect();
            if ordered {
                MjValue::from_object(OrderedDict(map))
            } else {
                MjValue::from_object(map)
            }
        }
    }
}

/// Python's `list`, changed in place by its methods (see `mutable`).
#[derive(Default)]
pub(crate) struct MutList(Mutex<Vec<MjValue>>);

/// Python's `dict`, changed in place by its methods (see `mutable`).
#[derive(Default)]
pub(crate) struct MutDict {
    map: Mutex<IndexMap<MjValue, MjValue>>,
    /// Came from YAML data (an `OrderedDict` in Salt); see [`OrderedDict`].
    pub ordered: bool,
}

/// A poisoned lock only means another render panicked mid-update; the data
/// is still a valid list/dict, so keep going.
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

// Debug output stays shallow: the contents may contain the value itself.
impl std::fmt::Debug for MutList {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "MutList(len {})", lock(&self.0).len())
    }
}

impl std::fmt::Debug for MutDict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "MutDict(len {})", lock(&self.map).len())
    }
}

impl MutList {
    pub(crate) fn new(items: Vec<MjValue>) -> MutList {
        MutList(Mutex::new(items))
    }

    pub(crate) fn snapshot(&self) -> Vec<MjValue> {
        lock(&self.0).clone()
    }

    /// The items, locked for a change in place.
    pub(crate) fn items(&self) -> MutexGuard<'_, Vec<MjValue>> {
        lock(&self.0)
    }
}

impl MutDict {
    pub(crate) fn new(map: IndexMap<MjValue, MjValue>, ordered: bool) -> MutDict {
        MutDict {
            map: Mutex::new(map),
            ordered,
        }
    }

    /// The entries, locked for a change in place.
    pub(crate) fn entries(&self) -> MutexGuard<'_, IndexMap<MjValue, MjValue>> {
        lock(&self.map)
    }

    pub(crate) fn snapshot(&self) -> Vec<(MjValue, MjValue)> {
        lock(&self.map)
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect()
    }
}

/// Mutable copy of a plain list/dict (one level; children convert lazily).
/// Mutable values, tuples, strings, namespaces, macros... come back as they
/// are, so names bound to the same list share it.
pub(crate) fn make_mutable(v: &MjValue) -> MjValue {
    if let Some(l) = v.downcast_object_ref::<Vec<MjValue>>() {
        return MjValue::from_object(MutList(Mutex::new(l.clone())));
    }
    if let Some(m) = v.downcast_object_ref::<IndexMap<MjValue, MjValue>>() {
        return MjValue::from_object(MutDict {
            map: Mutex::new(m.clone()),
            ordered: false,
        });
    }
    if let Some(m) = v.downcast_object_ref::<OrderedDict>() {
        return MjValue::from_object(MutDict {
            map: Mutex::new(m.0.clone()),
            ordered: true,
        });
    }
    // A list built by an expression (`a + b` is a lazy sequence in
    // minijinja): Python would have made a new list.
    let built = matches!(v.kind(), ValueKind::Seq | ValueKind::Iterable)
        && v.downcast_object_ref::<MutList>().is_none()
        && !is_tuple(v);
    if built {
        if let Ok(items) = v.try_iter() {
            return MjValue::from_object(MutList(Mutex::new(items.collect())));
        }
    }
    v.clone()
}

fn needs_conversion(v: &MjValue) -> bool {
    v.downcast_object_ref::<Vec<MjValue>>().is_some()
        || v.downcast_object_ref::<IndexMap<MjValue, MjValue>>()
            .is_some()
        || v.downcast_object_ref::<OrderedDict>().is_some()
}

/// Return the child, turning it mutable in place first if needed.
pub(crate) fn mutable_child(slot: &mut MjValue) -> MjValue {
    if needs_conversion(slot) {
        *slot = make_mutable(slot);
    }
    slot.clone()
}

impl Object for MutList {
    fn repr(self: &Arc<Self>) -> ObjectRepr {
        ObjectRepr::Seq
    }

    fn get_value(self: &Arc<Self>, key: &MjValue) -> Option<MjValue> {
        let idx = key.as_usize()?;
        let mut items = lock(&self.0);
        items.get_mut(idx).map(mutable_child)
    }

    fn enumerate(self: &Arc<Self>) -> Enumerator {
        let mut items = lock(&self.0);
        Enumerator::Values(items.iter_mut().map(mutable_child).collect())
    }

    fn enumerator_len(self: &Arc<Self>) -> Option<usize> {
        Some(lock(&self.0).len())
    }

    fn render(self: &Arc<Self>, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&py_str(&MjValue::from_dyn_object(self.clone())))
    }
}

impl Object for MutDict {
    fn repr(self: &Arc<Self>) -> ObjectRepr {
        ObjectRepr::Map
    }

    fn get_value(self: &Arc<Self>, key: &MjValue) -> Option<MjValue> {
        let mut map = lock(&self.map);
        map.get_mut(key).map(mutable_child)
    }

    fn enumerate(self: &Arc<Self>) -> Enumerator {
        Enumerator::Values(lock(&self.map).keys().cloned().collect())
    }

    fn enumerator_len(self: &Arc<Self>) -> Option<usize> {
        Some(lock(&self.map).len())
    }

    fn render(self: &Arc<Self>, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&py_str(&MjValue::from_dyn_object(self.clone())))
    }
}

/// The (key, value) pairs of a mapping, in order, without the lazy
/// conversion [`MutDict`] does for template access.
pub(crate) fn map_pairs(v: &MjValue) -> Vec<(MjValue, MjValue)> {
    if let Some(d) = v.downcast_object_ref::<MutDict>() {
        return d.snapshot();
    }
    if let Some(d) = v.downcast_object_ref::<OrderedDict>() {
        return d.0.iter().map(|(k, x)| (k.clone(), x.clone())).collect();
    }
    if let Some(d) = v.downcast_object_ref::<IndexMap<MjValue, MjValue>>() {
        return d.iter().map(|(k, x)| (k.clone(), x.clone())).collect();
    }
    let Ok(keys) = v.try_iter() else {
        return Vec::new();
    };
    keys.map(|k| {
        let x = v.get_item(&k).unwrap_or_default();
        (k, x)
    })
    .collect()
}

/// The items of a sequence, without [`MutList`]'s lazy conversion.
pub(crate) fn seq_items(v: &MjValue) -> Vec<MjValue> {
    if let Some(l) = v.downcast_object_ref::<MutList>() {
        return l.snapshot();
    }
    match v.try_iter() {
        Ok(it) => it.collect(),
        Err(_) => Vec::new(),
    }
}

/// Whether a mapping is an `OrderedDict` for Salt's `yaml` filter.
pub(crate) fn is_ordered_map(v: &MjValue) -> bool {
    if v.downcast_object_ref::<OrderedDict>().is_some() {
        return true;
    }
    v.downcast_object_ref::<MutDict>()
        .map(|d| d.ordered)
        .unwrap_or(false)
}

pub(crate) fn is_tuple(v: &MjValue) -> bool {
    v.downcast_object_ref::<PyTuple>().is_some()
}

/// Python's `str()`: strings as they are, everything else as `repr()`.
/// YAML-loaded mappings print as `OrderedDict([('k', 'v')])`, as they do in
/// Salt wherever `str()` is taken (`|string`, `|join`, `%` formatting).
pub(crate) fn py_str(v: &MjValue) -> String {
    str_with(v, false)
}

/// What `{{ x }}` prints in Salt: `str()`, except that Salt's finalizer
/// turns every mapping, however deep, into a dict that prints as
/// `{'k': 'v'}`.
pub(crate) fn printable(v: &MjValue) -> String {
    str_with(v, true)
}

fn str_with(v: &MjValue, printable: bool) -> String {
    match v.kind() {
        ValueKind::String => v.as_str().unwrap_or_default().to_string(),
        ValueKind::Undefined => String::new(),
        _ => {
            let mut out = String::new();
            py_repr_into(v, &mut out, printable, 0);
            out
        }
    }
}

/// Python's `repr()`.
pub(crate) fn py_repr(v: &MjValue) -> String {
    let mut out = String::new();
    py_repr_into(v, &mut out, false, 0);
    out
}

/// Nesting beyond this is a self-containing list/dict (`d.update({'d': d})`);
/// printed as `...` as Python does, instead of recursing forever.
pub(crate) const MAX_DEPTH: usize = 200;

fn py_repr_into(v: &MjValue, out: &mut String, printable: bool, depth: usize) {
    if depth > MAX_DEPTH {
        out.push_str("...");
        return;
    }
    match v.kind() {
        ValueKind::Undefined => out.push_str("Undefined"),
        ValueKind::None => out.push_str("None"),
        ValueKind::Bool => out.push_str(if v.is_true() { "True" } else { "False" }),
        ValueKind::Number => {
            if v.is_integer() {
                out.push_str(&v.to_string());
            } else {
                out.push_str(&python_float_repr(
                    f64::try_from(v.clone()).unwrap_or(f64::NAN),
                ));
            }
        }
        ValueKind::String => out.push_str(&python_str_repr(v.as_str().unwrap_or_default())),
        ValueKind::Bytes => {
            out.push('b');
            out.push_str(&python_str_repr(&String::from_utf8_lossy(
                v.as_bytes().unwrap_or_default(),
            )));
        }
        ValueKind::Map if !printable && is_ordered_map(v) => {
            let pairs = map_pairs(v);
            if pairs.is_empty() {
                out.push_str("OrderedDict()");
                return;
            }
            out.push_str("OrderedDict([");
            for (i, (k, x)) in pairs.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                out.push('(');
                py_repr_into(k, out, printable, depth + 1);
                out.push_str(", ");
                py_repr_into(x, out, printable, depth + 1);
                out.push(')');
            }
            out.push_str("])");
        }
        ValueKind::Map => {
            out.push('{');
            for (i, (k, x)) in map_pairs(v).iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                py_repr_into(k, out, printable, depth + 1);
                out.push_str(": ");
                py_repr_into(x, out, printable, depth + 1);
            }
            out.push('}');
        }
        ValueKind::Seq | ValueKind::Iterable => {
            let items = seq_items(v);
            let tuple = is_tuple(v);
            out.push(if tuple { '(' } else { '[' });
            for (i, x) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                py_repr_into(x, out, printable, depth + 1);
            }
            if tuple && items.len() == 1 {
                out.push(',');
            }
            out.push(if tuple { ')' } else { ']' });
        }
        // Macros, functions, imported modules: their own rendering.
        _ => out.push_str(&v.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_keeps_order_and_types() {
        let v = Value::from_json(&serde_json::json!({"b": [1, 2.5, null, true], "a": {"x": "y"}}));
        let j = to_jinja(&v, true);
        assert!(is_ordered_map(&j));
        assert_eq!(
            printable(&j),
            "{'b': [1, 2.5, None, True], 'a': {'x': 'y'}}"
        );
        assert_eq!(
            py_repr(&j),
            "OrderedDict([('b', [1, 2.5, None, True]), ('a', OrderedDict([('x', 'y')]))])"
        );
    }

    #[test]
    fn tuples_print_like_python() {
        assert_eq!(py_repr(&tuple(vec![MjValue::from("a")])), "('a',)");
        assert_eq!(
            py_str(&tuple(vec![MjValue::from(1), MjValue::from(2)])),
            "(1, 2)"
        );
        assert_eq!(py_str(&MjValue::from("it's")), "it's");
    }
}
