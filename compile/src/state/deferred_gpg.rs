//! The gpg blocks of state files, opened on the minion: the master
//! compiled the states and marked each string holding a block
//! ([`crate::render::gpg::defer`]); the minion decrypts them with its own
//! keyring and `gpg_decrypt_must_succeed`, as Salt's minion renders them.
//! A block it cannot decrypt fails its SLS in Salt's words ("Rendering
//! SLS 'ENV:SLS' failed: ..."): a run or a high-data stage then answers
//! with the errors, as a render error on the minion does in Salt.

use crate::render::gpg::Gpg;
use crate::request::CompiledStates;
use brine_core::{Map, Value};

/// What one state (a high-data entry or a low chunk) came from.
fn origin(state: &Map) -> (String, String) {
    let field = |k: &str| state.get(k).map(Value::to_python_str).unwrap_or_default();
    (field("__env__"), field("__sls__"))
}

/// What a high-data value came from (nothing for `__extend__` and the
/// other lists the render stage stashes).
fn origin_of(v: &Value) -> (String, String) {
    v.as_map().map(origin).unwrap_or_default()
}

/// Open the marked strings of one state (`values`, from `from`), unless
/// its SLS already failed; a failure recorded once per SLS, in order.
fn open_state<'a>(
    gpg: &Gpg,
    from: (String, String),
    mut values: impl Iterator<Item = &'a mut Value>,
    failed: &mut Vec<((String, String), String)>,
) {
    if failed.iter().any(|(f, _)| *f == from) {
        return;
    }
    if let Err(e) = values.try_for_each(|v| gpg.open_deferred(v).map(drop)) {
        failed.push((from, e));
    }
}

/// Open the marked strings of one state or chunk. Its origin is only
/// spelled out when some SLS failed or this one does (a fleet minion's
/// 2,000 chunks each copied it out for nothing).
fn open_map(gpg: &Gpg, state: &mut Map, failed: &mut Vec<((String, String), String)>) {
    if !failed.is_empty() && failed.iter().any(|(f, _)| *f == origin(state)) {
        return;
    }
    if let Err(e) = state
        .values_mut()
        .try_for_each(|v| gpg.open_deferred(v).map(drop))
    {
        failed.push((origin(state), e));
    }
}

/// Open every entry of `high`.
fn open_high(gpg: &Gpg, high: &mut Map, failed: &mut Vec<((String, String), String)>) {
    for v in high.values_mut() {
        match v {
            Value::Map(m) => open_map(gpg, m, failed),
            other => open_state(gpg, Default::default(), std::iter::once(other), failed),
        }
    }
}

fn words(failed: &[((String, String), String)]) -> Vec<String> {
    failed
        .iter()
        .map(|((env, sls), e)| format!("Rendering SLS '{env}:{sls}' failed: {e}"))
        .collect()
}

/// `compiled` (the master's answer) with its marked strings decrypted
/// with the keyring of the minion whose options are `opts`.
pub fn open(compiled: CompiledStates, opts: &Map) -> CompiledStates {
    let gpg = Gpg::of(opts);
    let mut failed = Vec::new();
    match compiled {
        CompiledStates::Chunks {
            mut chunks,
            mut high,
        } => {
            for c in chunks.iter_mut() {
                open_map(&gpg, c, &mut failed);
            }
            open_high(&gpg, &mut high, &mut failed);
            if !failed.is_empty() {
                return CompiledStates::Errors {
                    errors: words(&failed),
                    retcode: 1,
                };
            }
            CompiledStates::Chunks { chunks, high }
        }
        CompiledStates::Rendered {
            mut high,
            mut errors,
        } => {
            open_high(&gpg, &mut high, &mut failed);
            if !failed.is_empty() {
                // The failed SLS gives no states, as a render error does.
                high.retain(|_, state| !failed.iter().any(|(f, _)| *f == origin_of(state)));
                errors.extend(words(&failed));
            }
            CompiledStates::Rendered { high, errors }
        }
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::gpg::defer;

    fn block() -> String {
        "-----BEGIN PGP MESSAGE-----\n\nnot a real message\n-----END PGP MESSAGE-----".into()
    }

    #[test]
    fn a_block_the_minion_cannot_decrypt_fails_its_sls() {
        let state = serde_json::json!({
            "__sls__": "secret", "__env__": "base",
            "file": [{"contents": block()}, "managed"]
        });
        let plain = serde_json::json!({"__sls__": "open", "__env__": "base", "test": ["nop"]});
        let mut high = Map::default();
        high.insert("s".into(), defer(Value::from_json(&state)));
        high.insert("p".into(), Value::from_json(&plain));
        let mut opts = Map::default();
        opts.insert("gpg_keydir".into(), Value::from("/nonexistent/brine-keys"));
        let out = open(
            CompiledStates::Rendered {
                high: high.clone(),
                errors: vec![],
            },
            &opts,
        );
        let CompiledStates::Rendered { high: left, errors } = out else {
            panic!("{out:?}")
        };
        assert_eq!(left.keys().collect::<Vec<_>>(), ["p"]);
        assert_eq!(errors.len(), 1);
        assert!(
            errors[0].starts_with("Rendering SLS 'base:secret' failed: Could not decrypt cipher"),
            "{errors:?}"
        );
        // With gpg_decrypt_must_succeed off, the block stays as it was.
        opts.insert("gpg_decrypt_must_succeed".into(), Value::Bool(false));
        let out = open(
            CompiledStates::Rendered {
                high,
                errors: vec![],
            },
            &opts,
        );
        let CompiledStates::Rendered { high, errors } = out else {
            panic!("{out:?}")
        };
        assert!(errors.is_empty());
        let contents = high["s"].as_map().unwrap()["file"].as_list().unwrap()[0]
            .as_map()
            .unwrap()["contents"]
            .clone();
        assert_eq!(contents, Value::Str(block()));
    }

    #[test]
    fn unmarked_blocks_are_left_alone() {
        let chunk: Map = serde_json::from_value(serde_json::json!({
            "__sls__": "a", "__env__": "base", "state": "file", "fun": "managed",
            "contents": block()
        }))
        .expect("chunk");
        let out = open(
            CompiledStates::Chunks {
                chunks: vec![chunk.clone()],
                high: Map::default(),
            },
            &Map::default(),
        );
        let CompiledStates::Chunks { chunks, .. } = out else {
            panic!("{out:?}")
        };
        assert_eq!(chunks, vec![chunk]);
    }
}
