//! `file.serialize`: a dataset written by one of Salt's serializers
//! ([`super::serializers`]), then managed as `file.managed` manages
//! contents (Salt's `check_managed_changes` / `manage_file`).

use super::args::{failed, Args};
use super::fsutil;
use super::managed::{contents_changes, manage_contents, ContentsSpec};
use super::readers;
use super::serializers::{self as ser, JsonOpts, SerializerError};
use crate::{StateCall, StateReturn};
use brine_core::{Map, Value};
use std::path::Path;

/// Salt's `repack_dictlist`: a list of one-key maps (or a map) as one map.
fn repack(v: Option<&Value>) -> Map {
    let mut out = Map::default();
    match v {
        Some(Value::Map(m)) => out = m.clone(),
        Some(Value::List(items)) => {
            for item in items {
                if let Value::Map(m) = item {
                    for (k, v) in m {
                        out.insert(k.clone(), v.clone());
                    }
                }
            }
        }
        _ => {}
    }
    out
}

/// Salt's `dictupdate.merge_recurse(existing, new)`: maps merged key by
/// key, anything else replaced.
fn merge_recurse(dest: &Value, upd: &Value) -> Value {
    match (dest, upd) {
        (Value::Map(d), Value::Map(u)) => {
            let mut out = d.clone();
            for (k, v) in u {
                let merged = match (out.get(k), v) {
                    (Some(old @ Value::Map(_)), Value::Map(_)) => merge_recurse(old, v),
                    _ => v.clone(),
                };
                out.insert(k.clone(), merged);
            }
            Value::Map(out)
        }
        (_, u) => u.clone(),
    }
}

/// Salt's `dictdiffer.recursive_diff(old, new).diffs`: per changed key,
/// `{"old": ..., "new": ...}` (nested for maps), a missing side as Salt's
/// `<_null_>` marker.
fn recursive_diff(old: &Map, new: &Map) -> Map {
    let mut out = Map::default();
    for (k, ov) in old {
        match new.get(k) {
            None => {
                let mut d = Map::default();
                d.insert("old".into(), ov.clone());
                d.insert("new".into(), Value::Str("<_null_>".into()));
                out.insert(k.clone(), Value::Map(d));
            }
            Some(nv) if nv != ov => {
                if let (Value::Map(om), Value::Map(nm)) = (ov, nv) {
                    out.insert(k.clone(), Value::Map(recursive_diff(om, nm)));
                } else {
                    let mut d = Map::default();
                    d.insert("old".into(), ov.clone());
                    d.insert("new".into(), nv.clone());
                    out.insert(k.clone(), Value::Map(d));
                }
            }
            Some(_) => {}
        }
    }
    for (k, nv) in new {
        if !old.contains_key(k) {
            let mut d = Map::default();
            d.insert("old".into(), Value::Str("<_null_>".into()));
            d.insert("new".into(), nv.clone());
            out.insert(k.clone(), Value::Map(d));
        }
    }
    out
}

/// The serializers brine has, by Salt's name.
const SERIALIZERS: &[&str] = &["json", "yaml", "toml", "plist", "configparser", "msgpack"];

/// Serialize `data` as `serializer` with `opts` (Salt's defaults for json
/// and yaml, `serializer_opts` over them).
fn serialize_with(
    serializer: &str,
    data: &Value,
    opts: &Map,
    encoding: bool,
) -> Result<Vec<u8>, SerializerError> {
    Ok(match serializer {
        "json" => ser::json_dumps(data, &JsonOpts::from_options(opts)).into_bytes(),
        "yaml" => {
            let flow = opts.get("default_flow_style").is_some_and(Value::is_truthy);
            let unicode = encoding || opts.get("allow_unicode").is_some_and(Value::is_truthy);
            ser::yaml_dump(data, flow, unicode).into_bytes()
        }
        "toml" => ser::toml_dumps(data)?.into_bytes(),
        "plist" => ser::plist_dumps(data)?.into_bytes(),
        "configparser" => ser::configparser_dumps(data)?.into_bytes(),
        _ => ser::msgpack_dumps(data),
    })
}

/// Read back a file written by `serializer`; `None` when brine cannot
/// read that format back.
fn deserialize_with(serializer: &str, data: &[u8]) -> Option<Result<Value, SerializerError>> {
    let text = || String::from_utf8_lossy(data).into_owned();
    Some(match serializer {
        "json" => ser::json_loads(&text()),
        "yaml" => ser::yaml_loads(&text()),
        "configparser" => ser::configparser_loads(&text()),
        "msgpack" => ser::msgpack_loads(data),
        "toml" => readers::toml_loads(&text()),
        "plist" => readers::plist_loads(&text()),
        _ => return None,
    })
}

pub fn serialize(call: &StateCall, args: &Args, raw_name: &str) -> Result<StateReturn, String> {
    let name = fsutil::expanduser(raw_name);
    let mut ret = StateReturn::new(&name);
    if name.is_empty() {
        return Ok(failed(&name, "Must provide name to file.serialize"));
    }
    if !args.truthy("create", true) && !Path::new(&name).is_file() {
        ret.comment = format!("File {name} is not present and is not set for creation");
        return Ok(ret);
    }
    let serializer_arg = args.get("serializer").filter(|v| v.is_truthy());
    let formatter = args.get("formatter").filter(|v| v.is_truthy());
    if serializer_arg.is_some() && formatter.is_some() {
        return Ok(failed(
            &name,
            "Only one of serializer and formatter are allowed",
        ));
    }
    let serializer = serializer_arg
        .or(formatter)
        .map_or_else(|| "yaml".to_string(), Value::to_python_str)
        .to_lowercase();
    let dataset = args.get("dataset").filter(|v| v.is_truthy());
    let dataset_pillar = args.get("dataset_pillar").filter(|v| v.is_truthy());
    if dataset.is_some() && dataset_pillar.is_some() {
        return Ok(failed(
            &name,
            "Only one of 'dataset' and 'dataset_pillar' is permitted",
        ));
    }
    let mut dataset = match dataset_pillar {
        // pillar.get's default: an empty string.
        Some(key) => Some(
            call.ctx
                .pillar_value(&key.to_python_str())
                .cloned()
                .unwrap_or_else(|| Value::Str(String::new())),
        ),
        None => args.low.get("dataset").cloned().filter(|v| !v.is_null()),
    };
    let Some(mut data) = dataset.take() else {
        return Ok(failed(
            &name,
            "Neither 'dataset' nor 'dataset_pillar' was defined",
        ));
    };
    if !SERIALIZERS.contains(&serializer.as_str()) {
        return Ok(failed(
            &name,
            format!(
                "The {serializer} serializer could not be found. It either does not exist or its prerequisites are not installed."
            ),
        ));
    }
    let encoding = args.get("encoding").is_some_and(Value::is_truthy);
    let opts = repack(args.get("serializer_opts"));
    let mut existing: Option<Value> = None;
    let mut merged: Option<Value> = None;
    if args.truthy("merge_if_exists", false) {
        if Path::new(&name).is_file() {
            let bytes =
                std::fs::read(&name).map_err(|e| fsutil::py_os_error(&e, Path::new(&name)))?;
            match deserialize_with(&serializer, &bytes) {
                None => {
                    return Ok(failed(
                        &name,
                        format!(
                        "merge_if_exists is not supported for the {serializer} serializer in brine"
                    ),
                    ))
                }
                Some(Err(e)) => {
                    return Ok(failed(
                        &name,
                        format!("Failed to deserialize existing data: {e}"),
                    ))
                }
                Some(Ok(old)) => {
                    if !old.is_null() {
                        let m = merge_recurse(&old, &data);
                        if m == old {
                            ret.comment = format!("The file {name} is in the correct state");
                            return Ok(ret);
                        }
                        data = m.clone();
                        merged = Some(m);
                        existing = Some(old);
                    }
                }
            }
        }
    } else if args.get("deserializer_opts").is_some_and(Value::is_truthy) {
        ret.extra.insert(
            "warnings".into(),
            Value::List(vec![Value::Str(
                "The 'deserializer_opts' option is ignored unless merge_if_exists is set to True."
                    .into(),
            )]),
        );
    }
    let mut contents =
        serialize_with(&serializer, &data, &opts, encoding).map_err(|e| e.to_string())?;
    // Text gets a final newline; the bytes of plist and msgpack do not.
    if serializer != "msgpack" && serializer != "plist" {
        contents.push(b'\n');
    }
    let spec = ContentsSpec {
        name: name.clone(),
        contents,
        user: args.owner("user")?,
        group: args.owner("group")?,
        mode: fsutil::normalize_mode(args.get("mode")),
        makedirs: args.truthy("makedirs", false),
        show_changes: args.truthy("show_changes", true),
    };
    if call.test {
        match contents_changes(call, spec) {
            Err(comment) => {
                ret.result = Some(false);
                ret.comment = comment;
            }
            Ok(changes) if !changes.is_empty() => {
                ret.changes = changes;
                ret.result = None;
                ret.comment = format!("Dataset will be serialized and stored into {name}");
                if !args.truthy("show_changes", true) {
                    ret.changes
                        .insert("diff".into(), Value::Str("<show_changes=False>".into()));
                }
            }
            Ok(_) => ret.comment = format!("The file {name} is in the correct state"),
        }
    } else {
        let extra = std::mem::take(&mut ret.extra);
        ret = manage_contents(call, spec, ret);
        ret.extra.extend(extra);
    }
    if let (Some(Value::Map(old)), Some(Value::Map(new))) = (&existing, &merged) {
        ret.changes
            .insert("diff".into(), Value::Map(recursive_diff(old, new)));
    }
    Ok(ret)
}
