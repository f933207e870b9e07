//! The `yaml` sdb driver: the profile's `files` read as YAML in order and
//! merged (`merge:` holds the merge's `strategy` and `merge_lists`, Salt's
//! `dictupdate.merge` keywords); with `gpg: true` every PGP block in them
//! decrypted; the key walked through dicts and lists on `:`. A file that
//! does not read is logged and passed over. Values are never written.

use crate::pillar::merge::{merge, MergeStrategy};
use crate::render::gpg::Gpg;
use brine_core::{Map, Value};

/// What Salt's driver raises for `sdb.set`: the files are edited by hand.
pub const SET_REFUSED: &str = "NotImplemented";

/// The most one file may hold.
const MAX_FILE: u64 = 16 << 20;

/// The value at `key` in `profile`'s files, or None.
pub fn get(key: &str, profile: &Map, opts: &Map) -> Value {
    crate::inputs::volatile(|| "read an sdb yaml profile".into());
    let mut data = Value::Map(values(profile));
    if profile.get("gpg").is_some_and(Value::is_truthy) {
        let gpg = Gpg::of(opts);
        if let Err(e) = gpg.decrypt_in_place(&mut data) {
            tracing::error!("sdb yaml profile: {e}");
        }
    }
    data.traverse(key, ":").cloned().unwrap_or(Value::Null)
}

/// The files read and merged.
fn values(profile: &Map) -> Map {
    let how = profile.get("merge").and_then(Value::as_map);
    let strategy: MergeStrategy = how
        .and_then(|m| m.get("strategy"))
        .and_then(Value::as_str)
        .unwrap_or("smart")
        .parse()
        .unwrap_or_default();
    let merge_lists = how
        .and_then(|m| m.get("merge_lists"))
        .is_some_and(Value::is_truthy);
    let mut out = Map::default();
    let files = profile
        .get("files")
        .and_then(Value::as_list)
        .unwrap_or_default();
    for f in files {
        let name = f.to_python_str();
        let text = match std::fs::metadata(&name) {
            Ok(m) if m.len() > MAX_FILE => {
                tracing::error!(
                    "Error deserializing sdb file '{name}': larger than {MAX_FILE} bytes"
                );
                continue;
            }
            Ok(_) => std::fs::read_to_string(&name),
            Err(e) => Err(e),
        };
        let Ok(text) = text else {
            tracing::error!("File '{name}' not found ");
            continue;
        };
        match brine_core::yaml::load(&text) {
            Ok(Value::Map(m)) => merge(&mut out, m, strategy, merge_lists),
            Ok(Value::Null) => {}
            Ok(other) => tracing::error!(
                "Error deserializing sdb file '{name}': not a mapping but {}",
                other.type_name()
            ),
            Err(e) => tracing::error!("Error deserializing sdb file '{name}': {e}"),
        }
    }
    out
}
