//! brine-key against the answers salt-key 3007.8 gave for the same key
//! directories (same ids in the same states; fingerprints differ because the
//! key formats do).

use super::*;
use brine_protocol::crypto::KeyPair;
use std::path::Path;

struct Env {
    _td: tempfile::TempDir,
    conf: PathBuf,
    store: KeyStore,
}

/// acc1 accepted; db1, web1, web2 pending; bad1 rejected; den1 denied.
fn env() -> Env {
    let td = tempfile::tempdir().unwrap();
    let conf = td.path().join("etc");
    std::fs::create_dir_all(&conf).unwrap();
    let root = td.path().join("root");
    std::fs::write(
        conf.join("master"),
        format!("root_dir: {}\nlog_level: quiet\n", root.display()),
    )
    .unwrap();
    let store = KeyStore::create(&root.join("etc/brine/pki/master")).unwrap();
    let add = |id: &str, state: KeyState| {
        let k = KeyPair::generate().unwrap().public();
        brine_protocol::keys::write_public(&store.key_path(state, id).unwrap(), &k).unwrap();
    };
    add("acc1", KeyState::Accepted);
    for id in ["web1", "web2", "db1"] {
        add(id, KeyState::Pending);
    }
    add("bad1", KeyState::Rejected);
    add("den1", KeyState::Denied);
    Env {
        _td: td,
        conf,
        store,
    }
}

struct Out {
    code: i32,
    stdout: String,
    stderr: String,
}

fn run_with_stdin(env: &Env, args: &str, stdin: &str) -> Out {
    let mut argv = vec!["-c".to_string(), env.conf.display().to_string()];
    argv.extend(args.split_whitespace().map(String::from));
    let mut input = stdin.as_bytes();
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let code = main_with(
        &argv,
        &mut Io {
            stdin: &mut input,
            stdout: &mut out,
            stderr: &mut err,
            events: &mut NoEvents,
        },
    );
    Out {
        code,
        stdout: String::from_utf8(out).unwrap(),
        stderr: String::from_utf8(err).unwrap(),
    }
}

fn run(env: &Env, args: &str) -> Out {
    run_with_stdin(env, args, "")
}

/// The store's state as `-L --out json` compacted, like the checks made
/// after each salt-key command.
fn state(env: &Env) -> String {
    let o = run(env, "-L --out json");
    o.stdout.split_whitespace().collect()
}

const PRISTINE: &str = r#"{"minions":["acc1"],"minions_pre":["db1","web1","web2"],"minions_rejected":["bad1"],"minions_denied":["den1"]}"#;

#[test]
fn list_all_matches_salt_key() {
    let e = env();
    let o = run(&e, "-L");
    assert_eq!(o.code, 0);
    assert_eq!(
        o.stdout,
        "Accepted Keys:\nacc1\nDenied Keys:\nden1\nUnaccepted Keys:\ndb1\nweb1\nweb2\nRejected Keys:\nbad1\n"
    );
    // No arguments at all lists everything too.
    assert_eq!(run(&e, "").stdout, o.stdout);
    let j = run(&e, "-L --out json");
    assert_eq!(
        j.stdout,
        "{\n    \"minions\": [\n        \"acc1\"\n    ],\n    \"minions_pre\": [\n        \"db1\",\n        \"web1\",\n        \"web2\"\n    ],\n    \"minions_rejected\": [\n        \"bad1\"\n    ],\n    \"minions_denied\": [\n        \"den1\"\n    ]\n}\n"
    );
    assert_eq!(run(&e, "-l all --out=json").stdout, j.stdout);
    assert_eq!(run(&e, "-l all").stdout, o.stdout);
}

#[test]
fn list_one_state_matches_salt_key() {
    let e = env();
    assert_eq!(run(&e, "-l acc").stdout, "Accepted Keys:\nacc1\n");
    assert_eq!(run(&e, "-l accepted").stdout, "Accepted Keys:\nacc1\n");
    assert_eq!(
        run(&e, "-l un").stdout,
        "Unaccepted Keys:\ndb1\nweb1\nweb2\n"
    );
    assert_eq!(
        run(&e, "-l pre").stdout,
        "Unaccepted Keys:\ndb1\nweb1\nweb2\n"
    );
    assert_eq!(run(&e, "-l rej").stdout, "Rejected Keys:\nbad1\n");
    assert_eq!(run(&e, "-l den").stdout, "Denied Keys:\nden1\n");
    let bad = run(&e, "-l bogus");
    assert_eq!(bad.code, 64);
    assert_eq!(bad.stdout, "");
    assert_eq!(
        bad.stderr,
        "Usage: brine-key [options]\n\nbrine-key: error: 'bogus' is not a valid argument to '--list'\n"
    );
    let bad = run(&e, "--bogus");
    assert_eq!(bad.code, 64);
    assert!(bad
        .stderr
        .ends_with("brine-key: error: no such option: --bogus\n"));
}

#[test]
fn accept_one_with_yes() {
    let e = env();
    let o = run(&e, "-a web1 -y");
    assert_eq!(
        o.stdout,
        "The following keys are going to be accepted:\nUnaccepted Keys:\nweb1\nKey for minion web1 accepted.\n"
    );
    assert_eq!(
        state(&e),
        r#"{"minions":["acc1","web1"],"minions_pre":["db1","web2"],"minions_rejected":["bad1"],"minions_denied":["den1"]}"#
    );
}

#[test]
fn accept_glob_and_comma_list() {
    let e = env();
    let o = run(&e, "-a web* -y");
    assert_eq!(
        o.stdout,
        "The following keys are going to be accepted:\nUnaccepted Keys:\nweb1\nweb2\nKey for minion web1 accepted.\nKey for minion web2 accepted.\n"
    );
    let e = env();
    let o = run(&e, "-y -a web1,db1");
    assert_eq!(
        o.stdout,
        "The following keys are going to be accepted:\nUnaccepted Keys:\ndb1\nweb1\nKey for minion db1 accepted.\nKey for minion web1 accepted.\n"
    );
}

#[test]
fn accept_without_match_names_the_states_searched() {
    let e = env();
    for id in ["nosuch", "acc1", "bad1", "den1"] {
        let o = run(&e, &format!("-a {id} -y"));
        assert_eq!(
            o.stdout,
            format!("The key glob '{id}' does not match any unaccepted keys.\n")
        );
        assert_eq!(o.code, 0);
    }
    assert_eq!(state(&e), PRISTINE);
    let o = run(&e, "-a nosuch -y --include-rejected --include-denied");
    assert_eq!(
        o.stdout,
        "The key glob 'nosuch' does not match any unaccepted, rejected or denied keys.\n"
    );
}

#[test]
fn accept_all_and_include_rejected() {
    let e = env();
    let o = run(&e, "-A -y");
    assert_eq!(
        o.stdout,
        "The following keys are going to be accepted:\nUnaccepted Keys:\ndb1\nweb1\nweb2\nKey for minion db1 accepted.\nKey for minion web1 accepted.\nKey for minion web2 accepted.\n"
    );
    assert_eq!(
        state(&e),
        r#"{"minions":["acc1","db1","web1","web2"],"minions_pre":[],"minions_rejected":["bad1"],"minions_denied":["den1"]}"#
    );
    let e = env();
    let o = run(&e, "-A -y --include-rejected");
    assert_eq!(
        o.stdout,
        "The following keys are going to be accepted:\nUnaccepted Keys:\ndb1\nweb1\nweb2\nRejected Keys:\nbad1\nKey for minion db1 accepted.\nKey for minion web1 accepted.\nKey for minion web2 accepted.\nKey for minion bad1 accepted.\n"
    );
    assert_eq!(
        state(&e),
        r#"{"minions":["acc1","bad1","db1","web1","web2"],"minions_pre":[],"minions_rejected":[],"minions_denied":["den1"]}"#
    );
    // Clustered short options, as optparse allows.
    let e = env();
    assert_eq!(run(&e, "-Ay").stdout.matches("accepted.").count(), 3);
}

#[test]
fn prompt_answers_like_salt_key() {
    for (answer, accepted) in [
        ("y\n", true),
        ("Y\n", true),
        ("\n", true),
        ("yes\n", true),
        ("n\n", false),
        ("no\n", false),
        ("x\n", false),
    ] {
        let e = env();
        let o = run_with_stdin(&e, "-a web1", answer);
        let mut expected =
            "The following keys are going to be accepted:\nUnaccepted Keys:\nweb1\nProceed? [n/Y] "
                .to_string();
        if accepted {
            expected.push_str("Key for minion web1 accepted.\n");
        }
        assert_eq!(o.stdout, expected, "answer {answer:?}");
        assert_eq!(state(&e) != PRISTINE, accepted, "answer {answer:?}");
    }
    // Delete defaults to no.
    let e = env();
    let o = run_with_stdin(&e, "-d web1", "\n");
    assert_eq!(
        o.stdout,
        "The following keys are going to be deleted:\nUnaccepted Keys:\nweb1\nProceed? [N/y] "
    );
    assert_eq!(state(&e), PRISTINE);
    let o = run_with_stdin(&e, "-d web1", "y\n");
    assert!(o
        .stdout
        .ends_with("Proceed? [N/y] Key for minion web1 deleted.\n"));
}

#[test]
fn no_stdin_means_no() {
    let e = env();
    let o = run(&e, "-A");
    assert_eq!(
        o.stdout,
        "The following keys are going to be accepted:\nUnaccepted Keys:\ndb1\nweb1\nweb2\nProceed? [n/Y] "
    );
    assert_eq!(o.stderr, "Error: EOF when reading a line\n");
    assert_eq!(o.code, 0);
    assert_eq!(state(&e), PRISTINE);
}

#[test]
fn reject_and_include_accepted() {
    let e = env();
    let o = run(&e, "-r web1 -y");
    assert_eq!(
        o.stdout,
        "The following keys are going to be rejected:\nUnaccepted Keys:\nweb1\nKey for minion web1 rejected.\n"
    );
    assert_eq!(
        state(&e),
        r#"{"minions":["acc1"],"minions_pre":["db1","web2"],"minions_rejected":["bad1","web1"],"minions_denied":["den1"]}"#
    );
    let e = env();
    assert_eq!(
        run(&e, "-r acc1 -y").stdout,
        "The key glob 'acc1' does not match any unaccepted keys.\n"
    );
    let o = run(&e, "-R -y --include-accepted");
    assert_eq!(
        o.stdout,
        "The following keys are going to be rejected:\nAccepted Keys:\nacc1\nUnaccepted Keys:\ndb1\nweb1\nweb2\nKey for minion db1 rejected.\nKey for minion web1 rejected.\nKey for minion web2 rejected.\nKey for minion acc1 rejected.\n"
    );
    assert_eq!(
        state(&e),
        r#"{"minions":[],"minions_pre":[],"minions_rejected":["acc1","bad1","db1","web1","web2"],"minions_denied":["den1"]}"#
    );
}

#[test]
fn delete_takes_every_state() {
    let e = env();
    let o = run(&e, "-d acc1 -y");
    assert_eq!(
        o.stdout,
        "The following keys are going to be deleted:\nAccepted Keys:\nacc1\nKey for minion acc1 deleted.\n"
    );
    let o = run(&e, "-d den1 -y");
    assert_eq!(
        o.stdout,
        "The following keys are going to be deleted:\nDenied Keys:\nden1\nKey for minion den1 deleted.\n"
    );
    let e = env();
    let o = run(&e, "-D -y");
    assert_eq!(
        o.stdout,
        "The following keys are going to be deleted:\nAccepted Keys:\nacc1\nDenied Keys:\nden1\nUnaccepted Keys:\ndb1\nweb1\nweb2\nRejected Keys:\nbad1\nKey for minion acc1 deleted.\nKey for minion db1 deleted.\nKey for minion web1 deleted.\nKey for minion web2 deleted.\nKey for minion bad1 deleted.\nKey for minion den1 deleted.\n"
    );
    assert_eq!(
        state(&e),
        r#"{"minions":[],"minions_pre":[],"minions_rejected":[],"minions_denied":[]}"#
    );
    assert_eq!(
        run(&e, "-d nosuch -y").stdout,
        "The key glob 'nosuch' does not match any unaccepted keys.\n"
    );
}

#[test]
fn json_confirmation_listing() {
    let e = env();
    let o = run(&e, "-a web1 -y --out json");
    assert_eq!(
        o.stdout,
        "The following keys are going to be accepted:\n{\n    \"minions_pre\": [\n        \"web1\"\n    ]\n}\nKey for minion web1 accepted.\n"
    );
    let e = env();
    let o = run(&e, "-D -y --out json");
    assert!(o.stdout.starts_with(
        "The following keys are going to be deleted:\n{\n    \"minions\": [\n        \"acc1\"\n    ],\n    \"minions_pre\": ["
    ));
}

fn fp(e: &Env, state: KeyState, id: &str) -> String {
    e.store.read(state, id).unwrap().fingerprint()
}

#[test]
fn fingerprints_like_salt_key() {
    let e = env();
    let o = run(&e, "-f web1");
    assert_eq!(
        o.stdout,
        format!(
            "Unaccepted Keys:\nweb1:  {}\n",
            fp(&e, KeyState::Pending, "web1")
        )
    );
    assert_eq!(run(&e, "-f nosuch").stdout, "");
    assert_eq!(run(&e, "-f nosuch --out json").stdout, "{}\n");
    let o = run(&e, "-f web*,acc1");
    assert_eq!(
        o.stdout,
        format!(
            "Accepted Keys:\nacc1:  {}\nUnaccepted Keys:\nweb1:  {}\nweb2:  {}\n",
            fp(&e, KeyState::Accepted, "acc1"),
            fp(&e, KeyState::Pending, "web1"),
            fp(&e, KeyState::Pending, "web2")
        )
    );

    // -F: local keys first (sorted heading), empty states left out.
    let master = e.store.master_keys().unwrap().public().fingerprint();
    std::fs::remove_file(e.store.key_path(KeyState::Denied, "den1").unwrap()).unwrap();
    let o = run(&e, "-F");
    assert_eq!(
        o.stdout,
        format!(
            "Local Keys:\nmaster.key:  {master}\nmaster.pub:  {master}\nAccepted Keys:\nacc1:  {}\nUnaccepted Keys:\ndb1:  {}\nweb1:  {}\nweb2:  {}\nRejected Keys:\nbad1:  {}\n",
            fp(&e, KeyState::Accepted, "acc1"),
            fp(&e, KeyState::Pending, "db1"),
            fp(&e, KeyState::Pending, "web1"),
            fp(&e, KeyState::Pending, "web2"),
            fp(&e, KeyState::Rejected, "bad1"),
        )
    );
    let j: serde_json::Value = serde_json::from_str(&run(&e, "-F --out json").stdout).unwrap();
    let keys: Vec<&String> = j.as_object().unwrap().keys().collect();
    assert_eq!(
        keys,
        ["minions", "minions_pre", "minions_rejected", "local"]
    );
    assert_eq!(j["local"]["master.pub"], serde_json::json!(master));
    assert_eq!(
        run(&e, "-f master*").stdout,
        format!("Local Keys:\nmaster.key:  {master}\nmaster.pub:  {master}\n")
    );
}

#[test]
fn print_keys() {
    let e = env();
    let text =
        std::fs::read_to_string(e.store.key_path(KeyState::Pending, "web1").unwrap()).unwrap();
    assert_eq!(
        run(&e, "-p web1").stdout,
        format!("Unaccepted Keys:\nweb1:  {}\n", text.trim_end())
    );
    let j: serde_json::Value = serde_json::from_str(&run(&e, "-P --out json").stdout).unwrap();
    assert_eq!(j["minions_pre"]["web1"], serde_json::json!(text));
    assert!(j.get("local").is_none());
}

#[test]
fn missing_pki_dir_is_an_error() {
    let td = tempfile::tempdir().unwrap();
    std::fs::write(
        td.path().join("master"),
        format!("pki_dir: {}\n", td.path().join("nope").display()),
    )
    .unwrap();
    let mut input: &[u8] = b"";
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let code = main_with(
        &["-c".into(), td.path().display().to_string(), "-L".into()],
        &mut Io {
            stdin: &mut input,
            stdout: &mut out,
            stderr: &mut err,
            events: &mut NoEvents,
        },
    );
    assert_eq!(code, 1);
    let err = String::from_utf8(err).unwrap();
    assert!(err.starts_with("Error: ") && err.contains("nope"), "{err}");
}

#[test]
fn pki_dir_follows_root_dir_and_defaults() {
    let td = tempfile::tempdir().unwrap();
    std::fs::write(td.path().join("master"), "root_dir: /srv/r\n").unwrap();
    assert_eq!(
        pki_dir(td.path()).unwrap().0,
        Path::new("/srv/r/etc/brine/pki/master")
    );
    std::fs::write(td.path().join("master"), "pki_dir: /k\n").unwrap();
    assert_eq!(pki_dir(td.path()).unwrap().0, Path::new("/k"));
    let empty = tempfile::tempdir().unwrap();
    assert_eq!(pki_dir(empty.path()).unwrap().0, Path::new(DEFAULT_PKI_DIR));
}

#[test]
fn hostile_glob_cannot_escape() {
    let e = env();
    // Globs only ever match names listed in the key directories.
    let o = run(&e, "-d ../* -y");
    assert_eq!(
        o.stdout,
        "The key glob '../*' does not match any unaccepted keys.\n"
    );
    assert_eq!(state(&e), PRISTINE);
}

/// `--out` with Salt's other outputters prints salt-key's mapping
/// (recorded from salt-key 3007.8 on the same key directories).
#[test]
fn other_outputters_print_the_listing_as_salt_key_does() {
    let env = env();
    for (out, expected) in [
        (
            "yaml",
            "minions:\n- acc1\nminions_denied:\n- den1\nminions_pre:\n- db1\n- web1\n- web2\nminions_rejected:\n- bad1\n",
        ),
        (
            "nested",
            "minions:\n    - acc1\nminions_denied:\n    - den1\nminions_pre:\n    - db1\n    - web1\n    - web2\nminions_rejected:\n    - bad1\n",
        ),
        (
            "txt",
            "minions: ['acc1']\nminions_pre: ['db1', 'web1', 'web2']\nminions_rejected: ['bad1']\nminions_denied: ['den1']\n",
        ),
        (
            "raw",
            "{'minions': ['acc1'], 'minions_pre': ['db1', 'web1', 'web2'], 'minions_rejected': ['bad1'], 'minions_denied': ['den1']}\n",
        ),
    ] {
        let o = run(&env, &format!("-L --out {out}"));
        assert_eq!((o.code, o.stdout.as_str()), (0, expected), "--out {out}");
    }
    assert_eq!(run(&env, "-l acc --out yaml").stdout, "minions:\n- acc1\n");
    let bad = run(&env, "-L --out bogus");
    assert_eq!(bad.code, EX_USAGE);
}

/// `--gen-keys NAME --gen-keys-dir DIR` writes a pair (private 0600), prints
/// its fingerprint under `return` as salt-key does, and keeps an existing
/// pair; it comes before every other command.
#[test]
fn gen_keys_writes_a_pair_once() {
    use std::os::unix::fs::PermissionsExt;
    let env = env();
    let dir = env._td.path().join("seed");
    let d = dir.display();
    let first = run(&env, &format!("--gen-keys m1 --gen-keys-dir {d} -L"));
    assert_eq!(first.code, 0, "{}", first.stderr);
    let finger = brine_protocol::keys::read_public(&dir.join("m1.pub"))
        .unwrap()
        .fingerprint();
    assert_eq!(first.stdout, format!("return:\n    {finger}\n"));
    let mode = std::fs::metadata(dir.join("m1.key"))
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o077, 0);
    let again = run(
        &env,
        &format!("--gen-keys m1 --gen-keys-dir {d} --out json"),
    );
    assert_eq!(
        again.stdout,
        format!("{{\n    \"return\": \"{finger}\"\n}}\n")
    );
    assert_eq!(run(&env, "--gen-keys ../x").code, EX_USAGE);
}

/// A Salt master's pki_dir: web1 and acc1 accepted, bad1 rejected, db1
/// pending there (brine's env has web1, web2, db1 pending).
fn salt_pki(env: &Env) -> PathBuf {
    let dir = env.conf.join("salt-pki");
    for (sub, ids) in [
        ("minions", &["web1", "acc1", "later1"][..]),
        ("minions_pre", &["db1"][..]),
        ("minions_rejected", &["web2"][..]),
    ] {
        std::fs::create_dir_all(dir.join(sub)).unwrap();
        for id in ids {
            std::fs::write(dir.join(sub).join(id), "-----BEGIN PUBLIC KEY-----\n").unwrap();
        }
    }
    dir
}

#[test]
fn import_salt_pki_accepts_and_rejects_by_salts_decisions() {
    let e = env();
    let salt = salt_pki(&e);
    // Asked first; "n" changes nothing.
    let o = run_with_stdin(&e, &format!("--import-salt-pki {}", salt.display()), "n\n");
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert!(
        o.stdout.starts_with(&format!(
            "Salt's keys in {}: 3 accepted, 1 pending, 1 rejected, 0 denied.\n",
            salt.display()
        )),
        "{}",
        o.stdout
    );
    assert!(o.stdout.contains("Accepted here and in Salt:\nacc1\n"));
    assert!(o.stdout.contains(
        "no brine key yet (run this again once their brine-minion has started):\nlater1\n"
    ));
    assert!(o.stdout.contains("(left pending):\ndb1\n"));
    assert!(o
        .stdout
        .contains("going to be accepted (Salt accepted their ids):\nweb1\n"));
    assert!(o
        .stdout
        .contains("going to be rejected (Salt rejected or denied their ids):\nweb2\n"));
    assert!(o.stdout.ends_with("Proceed? [n/Y] "), "{}", o.stdout);
    let before = state(&e);
    assert!(before.contains("web1"));
    let o = run(&e, &format!("--import-salt-pki {} -y", salt.display()));
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert!(
        o.stdout
            .ends_with("Key for minion web1 accepted.\nKey for minion web2 rejected.\n"),
        "{}",
        o.stdout
    );
    assert!(e.store.has(KeyState::Accepted, "web1").unwrap());
    assert!(e.store.has(KeyState::Rejected, "web2").unwrap());
    assert!(e.store.has(KeyState::Pending, "db1").unwrap());
    // Again: nothing left to do; Salt's files untouched.
    let o = run(&e, &format!("--import-salt-pki {} -y", salt.display()));
    assert!(
        o.stdout.ends_with("No pending key to accept or reject.\n"),
        "{}",
        o.stdout
    );
    assert!(salt.join("minions/web1").is_file() && salt.join("minions_rejected/web2").is_file());
    // Not a Salt pki_dir: an error naming it.
    let o = run(&e, &format!("--import-salt-pki {}", e.conf.display()));
    assert_eq!(o.code, 1);
    assert!(
        o.stderr.contains("not a Salt master's pki_dir"),
        "{}",
        o.stderr
    );
}

#[test]
fn the_key_store_is_found_through_master_d() {
    let e = env();
    // The pki_dir named in master.d/*.conf wins over master's, as the
    // daemon reads them.
    let other = e.conf.parent().unwrap().join("root/other-pki");
    KeyStore::create(&other).unwrap();
    std::fs::create_dir_all(e.conf.join("master.d")).unwrap();
    std::fs::write(
        e.conf.join("master.d/pki.conf"),
        format!("pki_dir: {}\n", other.display()),
    )
    .unwrap();
    let o = run(&e, "-L");
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert_eq!(
        o.stdout,
        "Accepted Keys:\nDenied Keys:\nUnaccepted Keys:\nRejected Keys:\n"
    );
}
