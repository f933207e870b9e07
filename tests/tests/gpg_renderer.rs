//! The gpg renderer masterless, replaying what Salt 3007.8's salt-call
//! answered (`tests/recorded/trees/gpg_pillar.salt.json`, see its
//! README): pillar files `#!yaml|gpg` and `#!jinja|yaml|gpg` with one
//! block, several (in dicts, lists, several in one value, multi-line), a
//! state file `#!yaml|gpg`, the default keydir missing and present, and a
//! block for a key not in the keyring with `gpg_decrypt_must_succeed`
//! unset, true and false. The keyring is the test key committed beside
//! the recording, copied into the scratch folder (gpg writes into its
//! home); its gpg-agent is stopped at the end.

use brine_tests::masterless;

#[test]
fn encrypted_pillar_and_states_render_as_salts() {
    let r = masterless::replay("trees/gpg_pillar.salt.json", &|_, _| {});
    assert!(r.checked >= 20, "only {} steps compared", r.checked);
    assert!(
        r.failures.is_empty(),
        "{} steps differ from Salt:\n{}",
        r.failures.len(),
        r.failures.join("\n")
    );
}
