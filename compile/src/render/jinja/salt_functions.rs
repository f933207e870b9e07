//! `salt` in templates: the execution functions Salt trees call while
//! rendering (`salt['pillar.get']`, `salt.grains.filter_by`,
//! `salt['match.grain']`, ...), answered from the minion's grains, pillar
//! and opts the way Salt's modules answer them. Functions brine does not
//! have fail with an error that names them.

use super::convert::{self, map_pairs, py_str, seq_items};
use super::mutable::{deep_mutable, dict_update, make_mutable};
use super::pyargs::{bind, invalid, split, str_arg};
use crate::matcher::{self, MatchError};
use crate::MinionData;
use minijinja::value::{Enumerator, Object, ObjectRepr, Value as MjValue, ValueKind};
use minijinja::{Error, State};
use std::sync::Arc;

/// What the functions read: the minion and its data as template values.
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

/// The functions brine answers.
const FUNCTIONS: &[&str] = &[
    "pillar.get",
    "pillar.fetch",
    "pillar.item",
    "pillar.items",
    "pillar.raw",
    "pillar.keys",
    "pillar.ls",
    "grains.get",
    "grains.fetch",
    "grains.item",
    "grains.items",
    "grains.ls",
    "grains.has_value",
    "grains.filter_by",
    "config.get",
    "match.glob",
    "match.pcre",
    "match.list",
    "match.grain",
    "match.grain_pcre",
    "match.pillar",
    "match.pillar_pcre",
    "match.ipcidr",
    "match.compound",
    "defaults.merge",
    "defaults.deepcopy",
    "slsutil.merge",
    "test.ping",
    "test.true",
    "test.false",
];

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
        Enumerator::Str(FUNCTIONS)
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

fn call(l: &SaltLoader, name: &str, args: &[MjValue]) -> Result<MjValue, Error> {
    let fname = format!("salt['{name}']");
    let fname = fname.as_str();
    match name {
        "pillar.get" | "pillar.fetch" => {
            let a = bind(
                fname,
                args,
                &["key", "default", "merge", "merge_nested_lists", "delimiter", "pillarenv", "saltenv"],
                1,
            )?;
            let key = a[0].clone().unwrap_or_default();
            let delim = delimiter(fname, &a[4])?;
            let key = str_arg(fname, "key", &key)?;
            let default = a[1].clone();
            let merge = a[2].as_ref().is_some_and(|m| m.is_true());
            let merge_lists = match &a[3] {
                Some(m) => m.is_true(),
                None => l.opts.get_item(&MjValue::from("pillar_merge_lists")).is_ok_and(|v| v.is_true()),
            };
            let found = traverse(&l.pillar, key, &delim);
            if merge {
                if let Some(d) = &default {
                    match (d.kind(), found.as_ref().map(|f| f.kind())) {
                        (ValueKind::Map, Some(ValueKind::Map)) => {
                            let dest = deep_mutable(d);
                            if let Some(f) = &found {
                                dict_update(&dest, f, merge_lists)?;
                            }
                            return Ok(dest);
                        }
                        (ValueKind::Seq, Some(ValueKind::Seq)) => {
                            let mut out = seq_items(&deep_mutable(d));
                            for x in seq_items(found.as_ref().unwrap_or(d)) {
                                if !out.contains(&x) {
                                    out.push(x);
                                }
                            }
                            return Ok(make_mutable(&MjValue::from(out)));
                        }
                        // Salt logs that it cannot merge and goes on.
                        _ => {}
                    }
                }
            }
            if found.is_none() && default.is_none() && opt_true(l, "pillar_raise_on_missing") {
                return Err(invalid(format!("KeyError: 'Pillar key not found: {key}'")));
            }
            Ok(found.or(default).unwrap_or_else(|| MjValue::from("")))
        }
        "grains.get" | "grains.fetch" => {
            let a = bind(fname, args, &["key", "default", "delimiter", "ordered"], 1)?;
            let key = a[0].clone().unwrap_or_default();
            let delim = delimiter(fname, &a[2])?;
            Ok(traverse(&l.grains, str_arg(fname, "key", &key)?, &delim)
                .or_else(|| a[1].clone())
                .unwrap_or_else(|| MjValue::from("")))
        }
        "pillar.item" | "grains.item" => {
            let (pos, kw) = split(args);
            let mut default = MjValue::from("");
            let mut delim = ":".to_string();
            for (k, v) in kw {
                match k.as_str() {
                    "default" if !v.is_none() => default = v,
                    "delimiter" if !v.is_none() => delim = str_arg(fname, "delimiter", &v)?.to_string(),
                    "default" | "delimiter" | "pillarenv" | "saltenv" | "sanitize" => {}
                    other => return Err(invalid(format!("{fname}() got an unexpected keyword argument '{other}'"))),
                }
            }
            let data = if name.starts_with("pillar") { &l.pillar } else { &l.grains };
            let mut out = indexmap::IndexMap::new();
            for arg in pos {
                let found = traverse(data, &py_str(&arg), &delim).unwrap_or_else(|| default.clone());
                out.insert(arg, found);
            }
            Ok(make_mutable(&MjValue::from_object(out)))
        }
        "pillar.items" | "grains.items" => {
            let data = if name.starts_with("pillar") { &l.pillar } else { &l.grains };
            Ok(data.clone())
        }
        "pillar.raw" => {
            let a = bind(fname, args, &["key"], 0)?;
            match &a[0] {
                Some(k) if !k.is_none() => {
                    let v = l.pillar.get_item(k)?;
                    if v.is_undefined() {
                        return Err(invalid(format!("KeyError: {}", convert::py_repr(k))));
                    }
                    Ok(v)
                }
                _ => Ok(l.pillar.clone()),
            }
        }
        "pillar.keys" => {
            let a = bind(fname, args, &["key", "delimiter"], 1)?;
            let key = a[0].clone().unwrap_or_default();
            let delim = delimiter(fname, &a[1])?;
            let key = str_arg(fname, "key", &key)?;
            match traverse(&l.pillar, key, &delim) {
                Some(v) if v.kind() == ValueKind::Map => {
                    Ok(MjValue::from(map_pairs(&v).into_iter().map(|(k, _)| k).collect::<Vec<_>>()))
                }
                Some(_) => Err(invalid(format!("Pillar value in key {key} is not a dict"))),
                None => Err(invalid(format!("Pillar key not found: {key}"))),
            }
        }
        "pillar.ls" | "grains.ls" => {
            let data = if name.starts_with("pillar") { &l.pillar } else { &l.grains };
            let mut keys: Vec<MjValue> = map_pairs(data).into_iter().map(|(k, _)| k).collect();
            if name == "grains.ls" {
                keys.sort();
            }
            Ok(MjValue::from(keys))
        }
        "grains.has_value" => {
            let a = bind(fname, args, &["key"], 1)?;
            let key = a[0].clone().unwrap_or_default();
            Ok(MjValue::from(
                traverse(&l.grains, str_arg(fname, "key", &key)?, ":").is_some_and(|v| v.is_true()),
            ))
        }
        "grains.filter_by" => {
            let a = bind(fname, args, &["lookup_dict", "grain", "merge", "default", "base"], 1)?;
            let grain = a[1].clone().unwrap_or(MjValue::from("os_family"));
            let default = a[3].clone().unwrap_or(MjValue::from("default"));
            filter_by(
                fname,
                &a[0].clone().unwrap_or_default(),
                traverse(&l.grains, &py_str(&grain), ":"),
                a[2].as_ref(),
                &default,
                a[4].as_ref(),
            )
        }
        "config.get" => {
            let a = bind(
                fname,
                args,
                &["key", "default", "delimiter", "merge", "omit_opts", "omit_pillar", "omit_master", "omit_grains"],
                1,
            )?;
            let key = a[0].clone().unwrap_or_default();
            let key = str_arg(fname, "key", &key)?;
            let delim = delimiter(fname, &a[2])?;
            if a[3].as_ref().is_some_and(|m| !m.is_none()) {
                return Err(invalid(format!("{fname}: merge= is not supported by brine")));
            }
            let omit = |i: usize| a[i].as_ref().is_some_and(|o| o.is_true());
            let master = l.pillar.get_item(&MjValue::from("master")).ok().filter(|m| !m.is_undefined());
            // Salt's lookup order: opts, grains, pillar, the master's pillar.
            let sources = [
                (!omit(4)).then_some(&l.opts),
                (!omit(7)).then_some(&l.grains),
                (!omit(5)).then_some(&l.pillar),
                if omit(6) { None } else { master.as_ref() },
            ];
            for src in sources.into_iter().flatten() {
                if let Some(v) = traverse(src, key, &delim) {
                    if v.as_str().is_some_and(|s| s.starts_with("sdb://")) {
                        return Err(invalid(format!("{fname}: sdb:// values are not supported by brine")));
                    }
                    return Ok(v);
                }
            }
            Ok(a[1].clone().unwrap_or_else(|| MjValue::from("")))
        }
        "match.glob" | "match.pcre" | "match.list" | "match.compound" => {
            let a = bind(fname, args, &["tgt", "minion_id"], 1)?;
            let kind = name.trim_start_matches("match.");
            let minion_id = a[1].as_ref().filter(|m| !m.is_none()).map(py_str);
            run_match(l, kind, &a[0].clone().unwrap_or_default(), minion_id, fname)
        }
        "match.grain" | "match.grain_pcre" | "match.pillar" | "match.pillar_pcre" => {
            let a = bind(fname, args, &["tgt", "delimiter"], 1)?;
            if delimiter(fname, &a[1])? != ":" {
                return Err(invalid(format!("{fname}: only the ':' delimiter is supported by brine")));
            }
            run_match(l, name.trim_start_matches("match."), &a[0].clone().unwrap_or_default(), None, fname)
        }
        "match.ipcidr" => {
            let a = bind(fname, args, &["tgt"], 1)?;
            run_match(l, "ipcidr", &a[0].clone().unwrap_or_default(), None, fname)
        }
        "defaults.merge" => {
            let a = bind(fname, args, &["dest", "src", "merge_lists", "in_place", "convert_none"], 2)?;
            let convert_none = a[4].as_ref().is_none_or(|c| c.is_true());
            let in_place = a[3].as_ref().is_none_or(|c| c.is_true());
            let mut src = a[1].clone().unwrap_or_default();
            if src.is_none() && convert_none {
                src = MjValue::from_object(indexmap::IndexMap::<MjValue, MjValue>::new());
            }
            let dest = a[0].clone().unwrap_or_default();
            let dest = if dest.is_none() && convert_none {
                if in_place {
                    return Err(invalid("TypeError: Can't perform in-place merge into NoneType"));
                }
                make_mutable(&MjValue::from_object(indexmap::IndexMap::<MjValue, MjValue>::new()))
            } else if in_place {
                // Salt merges into `dest` itself; that works here when `dest`
                // is a mutable dict (bound with {% set %}).
                let m = make_mutable(&dest);
                if m.downcast_object_ref::<super::mutable::MutDict>().is_none() {
                    return Err(invalid(format!("{fname}: dest must be a dict")));
                }
                m
            } else {
                deep_mutable(&dest)
            };
            let merge_lists = a[2].as_ref().is_some_and(|m| m.is_true());
            dict_update(&dest, &src, merge_lists)?;
            Ok(dest)
        }
        "defaults.deepcopy" => {
            let a = bind(fname, args, &["source"], 1)?;
            Ok(deep_mutable(&a[0].clone().unwrap_or_default()))
        }
        "slsutil.merge" => {
            let a = bind(fname, args, &["obj_a", "obj_b", "strategy", "renderer", "merge_lists"], 2)?;
            let strategy = a[2].as_ref().map(py_str).unwrap_or_else(|| "smart".into());
            let renderer = a[3].as_ref().map(py_str).unwrap_or_else(|| "yaml".into());
            let recurse = match strategy.as_str() {
                "recurse" | "overwrite" => true,
                "smart" if renderer.split('|').next_back() == Some("yaml") || renderer == "yaml" => true,
                _ => false,
            };
            if !recurse {
                return Err(invalid(format!("{fname}: strategy '{strategy}' is not supported by brine")));
            }
            let dest = deep_mutable(&a[0].clone().unwrap_or_default());
            dict_update(&dest, &a[1].clone().unwrap_or_default(), a[4].as_ref().is_some_and(|m| m.is_true()))?;
            Ok(dest)
        }
        "test.ping" | "test.true" => Ok(MjValue::from(true)),
        "test.false" => Ok(MjValue::from(false)),
        _ => Err(invalid(format!(
            "salt['{name}'] is not available: brine's Jinja renderer does not run execution module '{name}'"
        ))),
    }
}

fn opt_true(l: &SaltLoader, key: &str) -> bool {
    l.opts
        .get_item(&MjValue::from(key))
        .is_ok_and(|v| v.is_true())
}

fn delimiter(fname: &str, v: &Option<MjValue>) -> Result<String, Error> {
    match v {
        Some(d) if !d.is_none() => Ok(str_arg(fname, "delimiter", d)?.to_string()),
        _ => Ok(":".to_string()),
    }
}

fn run_match(
    l: &SaltLoader,
    kind: &str,
    tgt: &MjValue,
    minion_id: Option<String>,
    fname: &str,
) -> Result<MjValue, Error> {
    let expr = str_arg(fname, "tgt", tgt)?;
    let other;
    let minion: &MinionData = match minion_id {
        Some(id) if id != l.minion.id => {
            other = MinionData {
                id,
                ..(*l.minion).clone()
            };
            &other
        }
        _ => &l.minion,
    };
    match matcher::matches(kind, expr, minion) {
        Ok(b) => Ok(MjValue::from(b)),
        // Salt's match functions log a bad expression and answer False.
        Err(MatchError::Invalid { .. }) => Ok(MjValue::from(false)),
        Err(e) => Err(invalid(format!("{fname}: {e}"))),
    }
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
    if !super::pyyaml::resolves_to_str(s) {
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

/// Salt's `filter_by`: the first lookup key that the grain value (or any
/// of its values, for a list) matches as a glob; else `default`; merged
/// over `base` and under `merge`.
fn filter_by(
    fname: &str,
    lookup_dict: &MjValue,
    grain_value: Option<MjValue>,
    merge: Option<&MjValue>,
    default: &MjValue,
    base: Option<&MjValue>,
) -> Result<MjValue, Error> {
    let pairs = map_pairs(lookup_dict);
    let values = match grain_value {
        Some(v) if v.kind() == ValueKind::Seq => seq_items(&v),
        Some(v) => vec![v],
        None => Vec::new(),
    };
    let mut ret: Option<MjValue> = None;
    'outer: for each in &values {
        let each = py_str(each);
        for (k, v) in &pairs {
            if fnmatch(&each, &py_str(k)) {
                ret = Some(v.clone());
                break 'outer;
            }
        }
    }
    if ret.as_ref().is_none_or(|r| r.is_none()) {
        ret = lookup(lookup_dict, default).filter(|v| !v.is_none());
    }
    if let Some(base_key) = base.filter(|b| b.is_true()) {
        if let Some(base_values) = lookup(lookup_dict, base_key) {
            match &ret {
                None => ret = Some(base_values),
                Some(r) if base_values.kind() == ValueKind::Map => {
                    if r.kind() != ValueKind::Map {
                        return Err(invalid(format!(
                            "{fname}: filter_by default and look-up values must both be dictionaries."
                        )));
                    }
                    let merged = deep_mutable(&base_values);
                    dict_update(&merged, r, false)?;
                    ret = Some(merged);
                }
                Some(_) => {}
            }
        }
    }
    if let Some(m) = merge.filter(|m| m.is_true()) {
        if m.kind() != ValueKind::Map {
            return Err(invalid(format!(
                "{fname}: filter_by merge argument must be a dictionary."
            )));
        }
        ret = Some(match ret {
            None => m.clone(),
            Some(r) => {
                let merged = deep_mutable(&r);
                dict_update(&merged, &deep_mutable(m), false)?;
                merged
            }
        });
    }
    Ok(ret.unwrap_or_else(|| MjValue::from(())))
}

/// Python's `fnmatch.fnmatchcase`: `*`, `?`, `[seq]`, `[!seq]`.
pub(crate) fn fnmatch(name: &str, pat: &str) -> bool {
    let n: Vec<char> = name.chars().collect();
    let p: Vec<char> = pat.chars().collect();
    // Iterative matcher with backtracking to the last `*`.
    let (mut ni, mut pi) = (0usize, 0usize);
    let mut star: Option<(usize, usize)> = None;
    while ni < n.len() {
        let step = match p.get(pi) {
            Some('*') => {
                star = Some((pi, ni));
                pi += 1;
                continue;
            }
            Some('?') => Some(pi + 1),
            Some('[') => match class_match(&p, pi, n[ni]) {
                Some((true, next)) => Some(next),
                Some((false, _)) => None,
                // An unclosed `[` is a literal.
                None => (n[ni] == '[').then_some(pi + 1),
            },
            Some(&c) => (c == n[ni]).then_some(pi + 1),
            None => None,
        };
        match step {
            Some(next) => {
                pi = next;
                ni += 1;
            }
            None => match star {
                Some((sp, sn)) => {
                    pi = sp + 1;
                    ni = sn + 1;
                    star = Some((sp, sn + 1));
                }
                None => return false,
            },
        }
    }
    p[pi.min(p.len())..].iter().all(|&c| c == '*')
}

/// Match `c` against the class starting at `p[start] == '['`; returns
/// (matched, index after the class), or None if the class is unclosed.
fn class_match(p: &[char], start: usize, c: char) -> Option<(bool, usize)> {
    let mut i = start + 1;
    let negate = matches!(p.get(i), Some('!'));
    if negate {
        i += 1;
    }
    let first = i;
    let mut matched = false;
    while i < p.len() {
        if p[i] == ']' && i > first {
            return Some((matched != negate, i + 1));
        }
        if p.get(i + 1) == Some(&'-') && p.get(i + 2).is_some_and(|&e| e != ']') {
            if p[i] <= c && c <= p[i + 2] {
                matched = true;
            }
            i += 3;
        } else {
            if p[i] == c {
                matched = true;
            }
            i += 1;
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

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

    #[test]
    fn python_int_parsing() {
        assert_eq!(python_int(" -1 "), Some(-1));
        assert_eq!(python_int("1_0"), Some(10));
        assert_eq!(python_int("x"), None);
        assert_eq!(python_int("_1"), None);
    }
}
