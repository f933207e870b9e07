//! The mine through a real brine-master and three brine-minions on
//! 127.0.0.1 (`web1` and `web2` with grains `roles: [web]`, `db1` with
//! `roles: [db]`), replaying what a real Salt 3007.8 fleet answered for the
//! same steps (`tests/recorded/fleet/mine.salt.json`, see its README):
//! `mine.update`, every form of `mine.get` (targets, lists of functions,
//! the `allow_tgt` ACL from either side, `exclude_minion`), `mine.valid`,
//! `mine.send`, `mine.delete`, `mine.flush`, the `mine.get` runner, and a
//! state compiled on the master whose template reads `salt['mine.get']`.
//! Every `--out json` answer must equal Salt's.

use brine_tests::daemon::{json_docs, MasterConf, MasterProc};
use brine_tests::recorded;
use serde_json::Value as Json;

#[test]
fn the_mine_answers_as_salts() {
    let rec = recorded::load("fleet/mine.salt.json");
    let conf = MasterConf::new("");
    let tmp = conf.dir.path().to_path_buf();
    for (key, rel) in [
        ("@TMP@/srv/salt/pool.sls", "srv/salt/pool.sls"),
        ("@TMP@/srv/pillar/top.sls", "srv/pillar/top.sls"),
        (
            "@TMP@/srv/pillar/minepillar.sls",
            "srv/pillar/minepillar.sls",
        ),
        ("@TMP@/srv/pillar/webroles.sls", "srv/pillar/webroles.sls"),
    ] {
        let p = tmp.join(rel);
        std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
        std::fs::write(&p, recorded::tree(&rec, key, &tmp)).expect("write");
    }
    let master_conf = conf.conf_dir().join("master");
    let mut text = std::fs::read_to_string(&master_conf).expect("master config");
    text.push_str(&format!(
        "file_roots:\n  base: [{0}/srv/salt]\npillar_roots:\n  base: [{0}/srv/pillar]\n",
        tmp.display()
    ));
    std::fs::write(&master_conf, text).expect("master config");
    let mut master = conf.start();
    let mut minions: Vec<MasterProc> = ["web1", "web2", "db1"]
        .iter()
        .map(|id| recorded::start_minion(&conf, &rec, id))
        .collect();
    for id in ["web1", "web2", "db1"] {
        conf.accept_and_ping(id);
    }
    let tmp_s = tmp.display().to_string();
    let mut failures = Vec::new();
    let mut checked = 0;
    let steps = rec["steps"].as_array().expect("steps");
    // Steps past 50 need a fourth minion and Salt's clear=True bug.
    for (i, step) in steps.iter().enumerate().take(51) {
        let argv: Vec<String> = step["argv"]
            .as_array()
            .expect("argv")
            .iter()
            .map(|a| a.as_str().unwrap_or_default().replace("@TMP@", &tmp_s))
            .collect();
        let (tool, args) = match argv.first().map(String::as_str) {
            Some("salt") => ("brine", &argv[1..]),
            Some("salt-run") => ("brine-run", &argv[1..]),
            Some("cat") => {
                checked += 1;
                if let Some(d) = recorded::cat_differs(step, &argv) {
                    failures.push(format!("[{i}] cat:\n{d}"));
                }
                continue;
            }
            _ => continue,
        };
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = conf.cli(tool, &args);
        if !args.starts_with(&["--out", "json"]) {
            continue;
        }
        let want = json_docs(
            step["stdout"]
                .as_str()
                .unwrap_or_default()
                .replace("@TMP@", &tmp_s)
                .as_bytes(),
        )
        .expect("recorded json");
        let mut got = match json_docs(&out.stdout) {
            Ok(j) => j,
            Err(e) => {
                failures.push(format!(
                    "[{i}] {argv:?}: no json ({e}): {}{}",
                    String::from_utf8_lossy(&out.stdout),
                    String::from_utf8_lossy(&out.stderr)
                ));
                continue;
            }
        };
        // A state run's times differ from run to run.
        for ret in got.as_object_mut().into_iter().flat_map(|m| m.values_mut()) {
            for state in ret.as_object_mut().into_iter().flat_map(|m| m.values_mut()) {
                if let Some(s) = state.as_object_mut() {
                    s.remove("start_time");
                    s.remove("duration");
                }
            }
        }
        let mut want = want;
        for ret in want
            .as_object_mut()
            .into_iter()
            .flat_map(|m| m.values_mut())
        {
            for state in ret.as_object_mut().into_iter().flat_map(|m| m.values_mut()) {
                if let Some(s) = state.as_object_mut() {
                    s.remove("start_time");
                    s.remove("duration");
                }
            }
        }
        checked += 1;
        if got != want {
            failures.push(format!("[{i}] {argv:?}:\n  salt:  {want}\n  brine: {got}"));
        }
    }
    let logs = || {
        let mut s = conf.log();
        for id in ["web1", "web2", "db1"] {
            s.push_str(&std::fs::read_to_string(tmp.join(format!("{id}.log"))).unwrap_or_default());
        }
        s
    };
    eprintln!("{checked} steps checked");
    assert!(checked > 30, "only {checked} steps checked");
    assert!(
        failures.is_empty(),
        "{} of {checked} steps differ from Salt:\n{}\nlogs:\n{}",
        failures.len(),
        failures.join("\n"),
        logs()
    );
    for m in &mut minions {
        m.stop();
    }
    master.stop();
}

/// A minion with `mine_functions` fills the mine by itself once it has
/// joined (Salt's `__mine_interval` job runs on start): the runner finds
/// its entry without anyone calling `mine.update`.
#[test]
fn a_minion_updates_its_mine_on_start() {
    let conf = MasterConf::new("");
    let mut master = conf.start();
    conf.write_minion_conf("web1", "mine_functions:\n  test.ping: []\n");
    let mut minion = conf.start_minion(&[]);
    conf.accept_and_ping("web1");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    let mut got = Json::Null;
    while std::time::Instant::now() < deadline {
        let out = conf.cli(
            "brine-run",
            &["--out", "json", "mine.get", "*", "test.ping"],
        );
        got = json_docs(&out.stdout).unwrap_or(Json::Null);
        if got == serde_json::json!({"web1": true}) {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(300));
    }
    assert_eq!(
        got,
        serde_json::json!({"web1": true}),
        "minion log:\n{}",
        conf.minion_log()
    );
    minion.stop();
    master.stop();
}

/// The master keeps at most 1024 mine entries per minion: a minion whose
/// `mine_functions` would push past that has its whole update refused
/// (logged on the master, nothing of it kept, the daemon serving on),
/// and the same minion's `mine.send` of one entry still lands.
#[test]
fn a_mine_past_its_bound_is_refused_whole() {
    let conf = MasterConf::new("");
    let mut master = conf.start();
    let mut funcs = String::from("mine_functions:\n");
    for i in 0..1030 {
        funcs.push_str(&format!(
            "  a{i:04}:\n    - mine_function: test.echo\n    - x{i}\n"
        ));
    }
    conf.write_minion_conf("web1", &funcs);
    let mut minion = conf.start_minion(&[]);
    conf.accept_and_ping("web1");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while std::time::Instant::now() < deadline
        && !conf
            .log()
            .contains("would keep more than 1024 mine entries")
    {
        std::thread::sleep(std::time::Duration::from_millis(200));
    }
    assert!(
        conf.log()
            .contains("minion web1 would keep more than 1024 mine entries"),
        "master log:\n{}\nminion log:\n{}",
        conf.log(),
        conf.minion_log()
    );
    let get = |fun: &str| {
        let out = conf.cli("brine-run", &["--out", "json", "mine.get", "*", fun]);
        json_docs(&out.stdout).unwrap_or(Json::Null)
    };
    assert_eq!(
        get("a0000"),
        serde_json::json!({}),
        "a refused update kept data"
    );
    let (sent, _) = conf.call("web1", &["mine.send", "test.ping"]);
    assert_eq!(sent, Json::Bool(true));
    assert_eq!(get("test.ping"), serde_json::json!({"web1": true}));
    minion.stop();
    master.stop();
}
