//! Salt's `salt.utils.crypt.decrypt`: data handed to one renderer named by
//! the caller (`pillar_enc=`, `decrypt_pillar`), which must be one of
//! `decrypt_pillar_renderers` (default `[gpg]`). brine's renderers that
//! take data are `gpg` (every block in it) and `yaml` / `json` (a string
//! parsed); Salt's others (jinja, mako, py, ...) are not available here.

use super::gpg::Gpg;
use brine_core::{yaml, Map, Value};

/// The renderers `opts` lets decryption use (`decrypt_pillar_renderers`).
pub fn valid_renderers(opts: &Map) -> Vec<String> {
    match opts.get("decrypt_pillar_renderers") {
        Some(v @ (Value::List(_) | Value::Str(_))) => brine_core::args::split_input(v),
        _ => vec!["gpg".to_string()],
    }
}

/// `data` through `renderer`, changed where it sits (a block that fails
/// leaves what was decrypted before it). With `translate_newlines`, a
/// literal `\n` in its strings stands for a newline first (a command line
/// cannot hold one). The error is Salt's words.
pub fn decrypt(
    opts: &Map,
    data: &mut Value,
    renderer: &str,
    translate_newlines: bool,
) -> Result<(), String> {
    let valid = valid_renderers(opts);
    if !valid.iter().any(|v| v == renderer) {
        return Err(format!(
            "'{renderer}' is not a valid decryption renderer. Valid choices are: {}",
            valid.join(", ")
        ));
    }
    if translate_newlines {
        translate(data);
    }
    match renderer {
        "gpg" => Gpg::of(opts).decrypt_in_place(data),
        "yaml" | "json" => {
            let Value::Str(text) = data else {
                return Err(format!(
                    "the {renderer} renderer reads a string, not a {}",
                    data.type_name()
                ));
            };
            *data = if renderer == "yaml" {
                yaml::load(text).map_err(|e| e.to_string())?
            } else {
                serde_json::from_str::<Value>(text.trim()).map_err(|e| e.to_string())?
            };
            Ok(())
        }
        other => Err(format!("Decryption renderer '{other}' is not available")),
    }
}

/// A `pillar=` override given with `pillar_enc=RENDERER`, decrypted on the
/// minion as Salt's `pillar.items` and state functions do.
pub fn decrypt_override(opts: &Map, mut data: Value, renderer: &str) -> Result<Value, String> {
    decrypt(opts, &mut data, renderer, true)?;
    Ok(data)
}

/// A literal backslash-n made a newline, in every string of `v`.
fn translate(v: &mut Value) {
    match v {
        Value::Str(s) if s.contains("\\n") => *s = s.replace("\\n", "\n"),
        Value::List(l) => l.iter_mut().for_each(translate),
        Value::Map(m) => m.values_mut().for_each(translate),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_listed_and_known_renderers_decrypt() {
        let mut o = Map::default();
        let mut v = Value::from("a: 1");
        assert_eq!(
            decrypt(&o, &mut v, "yaml", false).unwrap_err(),
            "'yaml' is not a valid decryption renderer. Valid choices are: gpg"
        );
        o.insert(
            "decrypt_pillar_renderers".into(),
            Value::List(vec!["gpg".into(), "yaml".into(), "nosuch".into()]),
        );
        assert_eq!(
            decrypt(&o, &mut v, "nosuch", false).unwrap_err(),
            "Decryption renderer 'nosuch' is not available"
        );
        decrypt(&o, &mut v, "yaml", false).unwrap();
        assert_eq!(v.get("a"), Some(&Value::Int(1)));
    }
}
