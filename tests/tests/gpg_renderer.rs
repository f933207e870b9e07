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

/// A keyring made now (a new ed25519/cv25519 key without passphrase), a
/// value encrypted to it, and a `#!yaml|gpg` pillar file holding the
/// block: brine-call reads the plaintext.
#[test]
fn a_keyring_made_now_decrypts_a_pillar_value() {
    let dir = tempfile::tempdir().expect("tempdir");
    let home = dir.path().join("gpgkeys");
    std::fs::create_dir_all(&home).expect("home");
    let perms = std::os::unix::fs::PermissionsExt::from_mode(0o700);
    std::fs::set_permissions(&home, perms).expect("chmod");
    let gpg = |args: &[&str], input: Option<&str>| {
        use std::io::Write;
        let mut child = std::process::Command::new("gpg")
            .arg("--homedir")
            .arg(&home)
            .args(["--batch", "--passphrase", ""])
            .args(args)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("gpg runs");
        if let Some(text) = input {
            child
                .stdin
                .take()
                .expect("stdin")
                .write_all(text.as_bytes())
                .expect("write");
        } else {
            drop(child.stdin.take());
        }
        let out = child.wait_with_output().expect("gpg");
        assert!(
            out.status.success(),
            "gpg {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    gpg(
        &[
            "--quick-gen-key",
            "brine made <made@example.invalid>",
            "future-default",
            "default",
            "never",
        ],
        None,
    );
    let block = gpg(
        &[
            "--trust-model",
            "always",
            "--armor",
            "--encrypt",
            "-r",
            "made@example.invalid",
        ],
        Some("made-secret"),
    );
    let root = dir.path();
    let pillar = root.join("pillar");
    std::fs::create_dir_all(&pillar).expect("pillar");
    std::fs::write(pillar.join("top.sls"), "base:\n  '*':\n    - secret\n").expect("top");
    let indented: String = block.lines().map(|l| format!("  {l}\n")).collect();
    std::fs::write(
        pillar.join("secret.sls"),
        format!("#!yaml|gpg\nk: |\n{indented}"),
    )
    .expect("sls");
    let conf = root.join("etc");
    std::fs::create_dir_all(&conf).expect("etc");
    std::fs::write(
        conf.join("minion"),
        format!(
            "id: made\nfile_client: local\nroot_dir: {r}\ngpg_keydir: {h}\npillar_roots:\n  base: [{p}]\n",
            r = root.display(),
            h = home.display(),
            p = pillar.display()
        ),
    )
    .expect("minion");
    let out = std::process::Command::new(brine_tests::bin("brine-call"))
        .arg("-c")
        .arg(&conf)
        .args(["--local", "--out", "json", "pillar.get", "k"])
        .output()
        .expect("brine-call");
    masterless::stop_agents(&[home]);
    assert_eq!(
        brine_tests::daemon::json_docs(&out.stdout).ok(),
        Some(serde_json::json!({"local": "made-secret"})),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
