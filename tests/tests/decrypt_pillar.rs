//! `decrypt_pillar` masterless, replaying what Salt 3007.8's salt-call
//! answered (`tests/recorded/trees/decrypt_pillar.salt.json`): keys in
//! pillar files and from an ext_pillar (`cmd_yaml`), nested keys and a
//! whole subtree, the dict form, `decrypt_pillar_delimiter`, renderers
//! not allowed or not available, `yaml` through
//! `decrypt_pillar_renderers` and `decrypt_pillar_default`, a block for a
//! key not in the keyring with `gpg_decrypt_must_succeed` on and off, and
//! malformed options.
//!
//! One difference is named and taken out: Salt's `pillar.items` lists
//! each decryption error twice, because the pillar salt-call compiled
//! when it started leaves its errors in the one `pillar.items` compiles
//! again (`pillar.raw` lists one); brine lists each once.

use brine_tests::masterless;
use serde_json::Value as Json;

/// `_errors` with repeats taken out.
fn once_each(_: &str, v: &mut Json) {
    if let Some(errors) = v
        .get_mut("local")
        .and_then(|l| l.get_mut("_errors"))
        .and_then(Json::as_array_mut)
    {
        let mut seen = Vec::new();
        errors.retain(|e| {
            let new = !seen.contains(e);
            seen.push(e.clone());
            new
        });
    }
}

#[test]
fn encrypted_pillar_keys_decrypt_as_salts() {
    let r = masterless::replay("trees/decrypt_pillar.salt.json", &once_each);
    assert!(r.checked >= 12, "only {} steps compared", r.checked);
    assert!(
        r.failures.is_empty(),
        "{} steps differ from Salt:\n{}",
        r.failures.len(),
        r.failures.join("\n")
    );
}
