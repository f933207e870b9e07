//! The `ini` state module (Salt's `salt/states/ini_manage.py`):
//! `options_present`, `options_absent`, `sections_present`,
//! `sections_absent` over Salt's model of an ini file ([`inifile`]).
//!
//! Salt's quirks are kept where they decide an answer: the file is written
//! back whole (normalised) by every edit, also one that changes nothing;
//! `options_absent` with a text where a list of keys belongs removes the
//! text's characters as keys; `sections_present` outside test mode raises
//! in Salt 3007.8 (it passes `section=` to `ini.set_option`), so here it
//! fails with that exception's words. Where Salt walks a Python `set`
//! (the keys `strict` removes), brine takes the file's order.

pub mod inifile;

use super::user::support::failed;
use crate::{StateCall, StateFunction, StateModule, StateReturn};
use brine_core::sig;
use brine_core::{Map, Value};
use inifile::{Format, IniError};

/// The `ini` state module.
pub static MODULE: StateModule = StateModule {
    name: "ini",
    doc: "Manage options and sections of ini files.",
    functions: &[
        StateFunction::new(
            "options_absent",
            sig!(name, sections = null, separator = "=", encoding = null),
            "The keys listed under each section of SECTIONS (a key alone for a \
top-level option) are not in the ini file NAME.",
            options_absent,
        ),
        StateFunction::new(
            "options_present",
            sig!(
                name,
                sections = null,
                separator = "=",
                strict = false,
                encoding = null,
                no_spaces = false
            ),
            "The ini file NAME has the options of SECTIONS (a mapping of sections \
to mappings of options; a plain value is a top-level option); STRICT removes the \
options not listed; NO_SPACES writes `key=value`.",
            options_present,
        ),
        StateFunction::new(
            "sections_absent",
            sig!(name, sections = null, separator = "=", encoding = null),
            "The sections listed in SECTIONS are not in the ini file NAME.",
            sections_absent,
        ),
        StateFunction::new(
            "sections_present",
            sig!(name, sections = null, separator = "=", encoding = null),
            "The sections listed in SECTIONS are in the ini file NAME (empty when \
new).",
            sections_present,
        ),
    ],
};

/// The ini file's format from the call's arguments.
fn format(call: &StateCall) -> Format {
    Format {
        sep: call
            .arg("separator")
            .map_or_else(|| "=".to_string(), Value::to_python_str),
        encoding: call
            .arg("encoding")
            .filter(|v| !v.is_null())
            .map(Value::to_python_str),
        no_spaces: call.arg("no_spaces").is_some_and(Value::is_truthy),
    }
}

/// The return of a state where Salt raised `err`.
fn raised(name: &str, err: &IniError) -> StateReturn {
    failed(name, crate::raised(err))
}

/// What Python's `for x in v` walks (a mapping's keys, a list's items, a
/// text's characters), or its error.
fn iterated(v: &Value) -> Result<Vec<Value>, String> {
    match v {
        Value::Map(m) => Ok(m.keys().map(|k| Value::Str(k.clone())).collect()),
        Value::List(l) => Ok(l.clone()),
        Value::Str(s) => Ok(s.chars().map(|c| Value::Str(c.to_string())).collect()),
        other => Err(format!(
            "TypeError: '{}' object is not iterable",
            other.type_name()
        )),
    }
}

/// The `sections` argument as `sections or []` iterates it.
fn section_names(call: &StateCall) -> Result<Vec<Value>, String> {
    match call.arg("sections") {
        Some(v) if v.is_truthy() => iterated(v),
        _ => Ok(Vec::new()),
    }
}

/// A `sections` value Salt needs as a mapping.
fn sections_map<'a>(call: &'a StateCall) -> Result<Option<&'a Map>, String> {
    match call.arg("sections") {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Map(m)) => Ok(Some(m)),
        // An empty list or text is falsy: Salt never asks it for items.
        Some(v) if !v.is_truthy() => Ok(None),
        Some(v) => Err(format!(
            "AttributeError: '{}' object has no attribute 'items'",
            v.type_name()
        )),
    }
}

fn options_present(call: &StateCall) -> StateReturn {
    let name = call.name().to_string();
    let f = format(call);
    let sections = match sections_map(call) {
        Ok(s) => s,
        Err(e) => return failed(&name, crate::raised(e)),
    };
    let strict = call.arg("strict").is_some_and(Value::is_truthy);
    let mut ret = StateReturn::new(&name);
    ret.comment = if call.test {
        String::new()
    } else {
        "No anomaly detected".into()
    };
    let changes = match present_changes(call, &name, sections, strict, &f, &mut ret) {
        Ok(c) => c,
        Err(e) => return raised(&name, &e),
    };
    if let Some(err) = changes.get("error") {
        ret.result = Some(false);
        ret.comment = format!("Errors encountered. {}", err.to_python_str());
        ret.changes = Map::default();
        return ret;
    }
    for (key, body) in changes {
        if body.is_truthy() {
            ret.comment = "Changes take effect".into();
            ret.changes.insert(key, body);
        }
    }
    ret
}

/// The part of `options_present` that reads and edits the file: the
/// changes made (in test mode the comment says what would change).
fn present_changes(
    call: &StateCall,
    name: &str,
    sections: Option<&Map>,
    strict: bool,
    f: &Format,
    ret: &mut StateReturn,
) -> Result<Map, IniError> {
    let test = call.test;
    let Some(sections) = sections.filter(|s| !s.is_empty()) else {
        if test {
            return Ok(Map::default());
        }
        return inifile::set_option(name, &Map::default(), f);
    };
    let mut changes = Map::default();
    let options: Map = sections
        .iter()
        .filter(|(_, v)| !matches!(v, Value::Map(_)))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    let cur = inifile::load(name, f, test)?.as_value();
    let top_level: Map = cur
        .iter()
        .filter(|(_, v)| !matches!(v, Value::Map(_)))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    let original_section = |s: &str| cur.get(s).and_then(Value::as_map);
    if test {
        for (option, want) in &options {
            let same = top_level
                .get(option)
                .is_some_and(|have| have.to_python_str() == want.to_python_str());
            if same {
                ret.comment += &format!("Unchanged key {option}.\n");
            } else {
                ret.comment += &format!("Changed key {option}.\n");
                ret.result = None;
            }
        }
    } else {
        changes.extend(inifile::set_option(name, &options, f)?);
    }
    if strict {
        for (key, before) in top_level.iter().filter(|(k, _)| !options.contains_key(*k)) {
            if test {
                ret.comment += &format!("Removed key {key}.\n");
                ret.result = None;
            } else {
                inifile::remove_option(name, None, key, f)?;
                let mut m = Map::default();
                m.insert("before".into(), before.clone());
                m.insert("after".into(), Value::Null);
                changes.insert(key.clone(), Value::Map(m));
            }
        }
    }
    for (section, body) in sections.iter() {
        let Value::Map(body) = body else { continue };
        let descr = if section.is_empty() {
            String::new()
        } else {
            format!(" in section {section}")
        };
        let mut sect_changes = Map::default();
        if strict {
            let original = match cur.get(section) {
                Some(Value::Map(m)) => m.clone(),
                None => Map::default(),
                Some(v) => {
                    return Err(IniError::Python(format!(
                        "AttributeError: '{}' object has no attribute 'keys'",
                        v.type_name()
                    )))
                }
            };
            for (key, before) in original.iter().filter(|(k, _)| !body.contains_key(*k)) {
                if test {
                    ret.comment += &format!("Deleted key {key}{descr}.\n");
                    ret.result = None;
                } else {
                    inifile::remove_option(name, Some(section), key, f)?;
                    let mut m = Map::default();
                    m.insert("before".into(), before.clone());
                    m.insert("after".into(), Value::Null);
                    sect_changes.insert(key.clone(), Value::Map(m));
                }
            }
        }
        if test {
            for (option, want) in body {
                let have = original_section(section)
                    .and_then(|s| s.get(option))
                    .map_or_else(|| "#-#-".to_string(), Value::to_python_str);
                if want.to_python_str() == have {
                    ret.comment += &format!("Unchanged key {option}{descr}.\n");
                } else {
                    ret.comment += &format!("Changed key {option}{descr}.\n");
                    ret.result = None;
                }
            }
        } else {
            let mut one = Map::default();
            one.insert(section.clone(), Value::Map(body.clone()));
            let updated = inifile::set_option(name, &one, f)?;
            if let Some(Value::Map(u)) = updated.get(section) {
                sect_changes.extend(u.clone());
            }
        }
        if !sect_changes.is_empty() {
            changes.insert(section.clone(), Value::Map(sect_changes));
        } else {
            changes.shift_remove(section);
        }
    }
    Ok(changes)
}

fn options_absent(call: &StateCall) -> StateReturn {
    let name = call.name().to_string();
    let f = format(call);
    let mut ret = StateReturn::new(&name);
    let sections = match sections_map(call) {
        Ok(s) => s.cloned().unwrap_or_default(),
        Err(e) => return failed(&name, crate::raised(e)),
    };
    if call.test {
        ret.comment = String::new();
        let ini = match inifile::load(&name, &f, true) {
            Ok(i) => i,
            Err(e) => return raised(&name, &e),
        };
        for (section, keys) in &sections {
            let descr = if section.is_empty() {
                String::new()
            } else {
                format!(" in section {section}")
            };
            if let Value::List(keys) = keys {
                // A top-level option's name here: Salt's `get_section` falls
                // back to the name itself, which has no `get`.
                if ini.text(section).is_some() {
                    return failed(
                        &name,
                        crate::raised("AttributeError: 'str' object has no attribute 'get'"),
                    );
                }
                let cur = ini
                    .section(section)
                    .map(|s| s.as_value())
                    .unwrap_or_default();
                for key in keys {
                    let key = key.to_python_str();
                    if !cur.get(&key).is_some_and(Value::is_truthy) {
                        ret.comment += &format!("Key {key}{descr} does not exist.\n");
                        continue;
                    }
                    ret.comment += &format!("Deleted key {key}{descr}.\n");
                    ret.result = None;
                }
            } else {
                let present = match ini.items.get(section) {
                    Some(inifile::Item::Text(t)) => !t.is_empty(),
                    Some(inifile::Item::Section(s)) => !s.items.is_empty(),
                    None => false,
                };
                if !present {
                    ret.comment += &format!("Key {section} does not exist.\n");
                    continue;
                }
                ret.comment += &format!("Deleted key {section}.\n");
                ret.result = None;
            }
        }
        if ret.comment.is_empty() {
            ret.comment = "No changes detected.".into();
        }
        return ret;
    }
    ret.comment = "No anomaly detected".into();
    for (section, keys) in &sections {
        let keys = match iterated(keys) {
            Ok(k) => k,
            Err(e) => return failed(&name, crate::raised(e)),
        };
        for key in keys {
            let key = key.to_python_str();
            let removed = match inifile::remove_option(&name, Some(section), &key, &f) {
                Ok(r) => r,
                Err(e) => return raised(&name, &e),
            };
            let Some(value) = removed.filter(Value::is_truthy) else {
                continue;
            };
            let mut entry = match ret.changes.get(section) {
                Some(Value::Map(m)) => m.clone(),
                _ => Map::default(),
            };
            entry.insert(key, value.clone());
            ret.changes.insert(section.clone(), Value::Map(entry));
            if !matches!(sections.get(section), Some(Value::List(_))) {
                ret.changes.insert(section.clone(), value);
            }
            ret.comment = "Changes take effect".into();
        }
    }
    ret
}

fn sections_present(call: &StateCall) -> StateReturn {
    let name = call.name().to_string();
    let f = format(call);
    let names = match section_names(call) {
        Ok(n) => n,
        Err(e) => return failed(&name, crate::raised(e)),
    };
    if !call.test {
        // Salt 3007.8 calls ini.set_option with a keyword it does not take.
        return failed(
            &name,
            crate::raised("TypeError: set_option() got an unexpected keyword argument 'section'"),
        );
    }
    let mut ret = StateReturn::new(&name);
    let cur = match inifile::load(&name, &f, true) {
        Ok(i) => i.as_value(),
        Err(e) => return raised(&name, &e),
    };
    for section in names {
        let section = section.to_python_str();
        if cur.contains_key(&section) {
            ret.comment += &format!("Section unchanged {section}.\n");
            continue;
        }
        ret.comment += &format!("Created new section {section}.\n");
        ret.result = None;
    }
    if ret.comment.is_empty() {
        ret.comment = "No changes detected.".into();
    }
    ret
}

fn sections_absent(call: &StateCall) -> StateReturn {
    let name = call.name().to_string();
    let f = format(call);
    let names = match section_names(call) {
        Ok(n) => n,
        Err(e) => return failed(&name, crate::raised(e)),
    };
    let mut ret = StateReturn::new(&name);
    if call.test {
        let cur = match inifile::load(&name, &f, true) {
            Ok(i) => i.as_value(),
            Err(e) => return raised(&name, &e),
        };
        for section in names {
            let section = section.to_python_str();
            if !cur.contains_key(&section) {
                ret.comment += &format!("Section {section} does not exist.\n");
                continue;
            }
            ret.comment += &format!("Deleted section {section}.\n");
            ret.result = None;
        }
        if ret.comment.is_empty() {
            ret.comment = "No changes detected.".into();
        }
        return ret;
    }
    ret.comment = "No anomaly detected".into();
    for section in names {
        let section = section.to_python_str();
        match inifile::remove_section(&name, &section, &f) {
            Ok(Some(removed)) if !removed.is_empty() => {
                ret.changes.insert(section, Value::Map(removed));
                ret.comment = "Changes take effect".into();
            }
            Ok(_) => {}
            Err(e) => return raised(&name, &e),
        }
    }
    ret
}

#[cfg(test)]
mod tests {
    /// Salt's answers for the ini scenarios of testdata/sys_cases.py.
    #[test]
    fn ini_states_match_salt() {
        super::super::sysreplay::run("ini_", crate::modules::MODULES);
    }
}
