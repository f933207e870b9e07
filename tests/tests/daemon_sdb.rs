//! sdb through a real brine-master and brine-minion on 127.0.0.1,
//! replaying what Salt 3007.8's pair answered
//! (`tests/recorded/trees/sdb_master.salt.json`): the master's options
//! that are sdb uris (yaml, gpg-encrypted yaml, env) through
//! `brine-run config.get`, the `sdb.*` runners, and on the minion
//! `sdb.get/set/delete`, `config.get` of its options and pillar, and
//! `slsutil.renderer`. The master, the minion and the runners that the
//! recording ran with `BRINE_SDB_VAR` set get it too (a runner runs in
//! brine-run's own process, as in salt-run's).
//!
//! What a traceback says after "Exception occurred in runner X:" or "The
//! minion function caused an exception:" is Python's, and is cut off on
//! both sides.

use brine_tests::daemon::MasterConf;
use brine_tests::{masterless, recorded, replay};
use serde_json::Value as Json;

const VAR: &str = "BRINE_SDB_VAR";

/// An exception's words cut after its first line's prefix.
fn cut_tracebacks(v: &mut Json) {
    match v {
        Json::String(s) => {
            for prefix in [
                "Exception occurred in runner ",
                "The minion function caused an exception:",
            ] {
                if s.starts_with(prefix) {
                    let end = s.find(": ").map_or(s.len(), |i| i + 1);
                    let end = if prefix.ends_with(':') {
                        prefix.len()
                    } else {
                        end
                    };
                    s.truncate(end);
                }
            }
        }
        Json::Object(m) => m.values_mut().for_each(cut_tracebacks),
        Json::Array(a) => a.iter_mut().for_each(cut_tracebacks),
        _ => {}
    }
}

#[test]
fn sdb_through_the_daemons_answers_as_salts() {
    let rec = recorded::load("trees/sdb_master.salt.json");
    // The daemons and the runners recorded with it inherit it.
    std::env::set_var(VAR, "from-environment");
    let conf = MasterConf::new("");
    let tmp = conf.dir.path().to_path_buf();
    let master_conf = conf.conf_dir().join("master");
    let mut text = std::fs::read_to_string(&master_conf).expect("master config");
    masterless::write_tree(&rec, &tmp);
    let keys = tmp.join("gpgkeys");
    masterless::copy_home(&masterless::keyring_source(), &keys);
    // The recorded master's options over ours (ports, roots, sdb).
    let recorded_master = recorded::tree(&rec, "@TMP@/etc/master", &tmp);
    for line in recorded_master.lines() {
        let skip = [
            "publish_port",
            "ret_port",
            "root_dir",
            "interface",
            "user:",
            "log_level:",
        ]
        .iter()
        .any(|k| line.starts_with(k));
        if !skip {
            text.push_str(line);
            text.push('\n');
        }
    }
    std::fs::write(&master_conf, text).expect("master config");
    let _master = conf.start();
    let _minion = recorded::start_minion(&conf, &rec, "web1");
    conf.accept_and_ping("web1");

    let mut failures = Vec::new();
    let mut checked = 0;
    for (i, step) in rec["steps"].as_array().expect("steps").iter().enumerate() {
        let argv = recorded::argv(step, &tmp);
        if !matches!(argv.first().map(String::as_str), Some("salt" | "salt-run")) {
            continue;
        }
        // A runner runs in brine-run's process: its environment is the
        // step's.
        let runner_without_var = argv[0] == "salt-run" && step["env"].get(VAR).is_none();
        checked += 1;
        failures.extend(replay::compare_step_with(
            &conf,
            i,
            step,
            &argv,
            &tmp,
            &|_, v| cut_tracebacks(v),
            &|cmd| {
                if runner_without_var {
                    cmd.env_remove(VAR);
                }
            },
        ));
    }
    masterless::stop_agents(&[keys]);
    assert!(checked >= 29, "only {checked} steps compared");
    assert!(
        failures.is_empty(),
        "{} steps differ from Salt:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
