//! The reactor through a real brine-master and brine-minion on 127.0.0.1,
//! replaying what a real Salt 3007.8 master did with the same reactor map
//! and SLS files (`tests/recorded/fleet/reactor.salt.json`): an
//! `event.send` from the minion starts `local.cmd.run` jobs (the one with
//! `python_shell: true` appends the tag to a file), the `runner.*` and
//! `wheel.*` reactions run and show on the bus as Salt's (`salt/run/...`,
//! `salt/wheel/...`, user `Reactor`), an event without the
//! data the SLS reads starts none, an SLS that does not render is logged;
//! and with one worker and `reactor_worker_hwm: 1`, reactions past the
//! queue are dropped with a log line while a busy worker holds one.

use brine_tests::daemon::{MasterConf, MasterProc};
use serde_json::Value as Json;
use std::path::Path;
use std::time::{Duration, Instant};

fn recorded() -> Json {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("recorded/fleet/reactor.salt.json");
    serde_json::from_str(&std::fs::read_to_string(path).expect("recording")).expect("json")
}

/// A master whose config carries the reactor map, the reactor SLS files
/// written under its folder (from the recording, `@TMP@` made ours).
fn master_with_reactor(rec: &Json, extra: &str) -> MasterConf {
    let conf = MasterConf::new(extra);
    let tmp = conf.dir.path().to_path_buf();
    let t = tmp.display().to_string();
    std::fs::create_dir_all(tmp.join("srv/reactor")).expect("mkdir");
    for name in ["react", "start", "bad", "full"] {
        let key = format!("@TMP@/srv/reactor/{name}.sls");
        let text = rec["tree"][&key]
            .as_str()
            .expect("sls")
            .replace("@TMP@", &t);
        std::fs::write(tmp.join(format!("srv/reactor/{name}.sls")), text).expect("write");
    }
    let master = conf.conf_dir().join("master");
    let mut text = std::fs::read_to_string(&master).expect("master config");
    text.push_str(&format!(
        "reactor:\n- my/react/*:\n  - {t}/srv/reactor/react.sls\n- salt/minion/*/start:\n  \
         - {t}/srv/reactor/start.sls\n- my/bad/*:\n  - {t}/srv/reactor/bad.sls\n- my/full/*:\n  \
         - {t}/srv/reactor/full.sls\n"
    ));
    std::fs::write(master, text).expect("master config");
    conf
}

/// Wait until `f` holds (at most `secs`).
fn eventually(secs: u64, mut f: impl FnMut() -> bool) -> bool {
    let deadline = Instant::now() + Duration::from_secs(secs);
    while Instant::now() < deadline {
        if f() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    f()
}

#[test]
fn reactions_run_as_salts() {
    let rec = recorded();
    let conf = master_with_reactor(&rec, "");
    let mut master = conf.start();
    conf.write_minion_conf("web1", "");
    let mut minion = conf.start_minion(&[]);
    conf.accept_and_ping("web1");
    // Events fired before the reactor listens are not reacted to (Salt's
    // reactor the same).
    assert!(
        eventually(20, || conf.log().contains("reactor listening")),
        "the reactor never listened:\n{}",
        conf.log()
    );
    // What the master's bus carries: the reactor's runner and wheel runs.
    let listener = conf.listen_events();
    let reacted = conf.dir.path().join("reacted.txt");
    let read = || std::fs::read_to_string(&reacted).unwrap_or_default();
    let steps = rec["steps"].as_array().expect("steps");
    let step = |i: usize| -> (Vec<String>, String) {
        let argv = steps[i]["argv"]
            .as_array()
            .expect("argv")
            .iter()
            .map(|a| a.as_str().unwrap_or_default().to_string())
            .collect();
        (
            argv,
            steps[i]["stdout"].as_str().unwrap_or_default().to_string(),
        )
    };
    let run = |argv: &[String]| {
        let tool = if argv[0] == "salt-run" {
            "brine-run"
        } else {
            "brine"
        };
        let args: Vec<&str> = argv[1..].iter().map(String::as_str).collect();
        let out = conf.cli(tool, &args);
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    // 0-1: my/react/one from the minion: the shell job appends the tag.
    let (argv, want) = step(0);
    assert_eq!(run(&argv), want, "{argv:?}");
    let (_, want_file) = step(1);
    assert!(
        eventually(15, || read() == want_file),
        "reacted.txt: {:?}, Salt's {want_file:?}\nmaster log:\n{}",
        read(),
        conf.log()
    );
    // 2-3: my/react/two.
    let (argv, want) = step(2);
    assert_eq!(run(&argv), want, "{argv:?}");
    let (_, want_file) = step(3);
    assert!(
        eventually(15, || read() == want_file),
        "reacted.txt: {:?}, Salt's {want_file:?}",
        read()
    );
    // The runner and wheel reactions of my/react/one and two, as Salt's
    // bus showed them (user Reactor; job ids and stamps aside; the key
    // listing's contents are this master's).
    std::thread::sleep(Duration::from_secs(1));
    let bus = listener.finish();
    let shape = |tag: &str, data: &Json| -> (String, Json) {
        let jid = regex::Regex::new(r"\d{20}").expect("re");
        let mut d = data.clone();
        if let Some(o) = d.as_object_mut() {
            o.remove("jid");
            o.remove("_stamp");
            if o.get("fun").and_then(Json::as_str) == Some("wheel.key.list_all") {
                if let Some(r) = o.get_mut("return").and_then(Json::as_object_mut) {
                    for v in r.values_mut() {
                        *v = Json::Null;
                    }
                }
            }
        }
        (jid.replace_all(tag, "<jid>").into_owned(), d)
    };
    let ours: Vec<(String, Json)> = bus
        .lines()
        .filter_map(|l| l.split_once('\t'))
        .filter_map(|(t, d)| serde_json::from_str::<Json>(d).ok().map(|d| shape(t, &d)))
        .collect();
    let salts: Vec<(String, Json)> = rec["events"]
        .as_array()
        .expect("events")
        .iter()
        .filter(|e| e["data"]["user"] == "Reactor")
        .take(8)
        .map(|e| shape(e["tag"].as_str().unwrap_or_default(), &e["data"]))
        .collect();
    assert_eq!(salts.len(), 8, "the recording's reactor runs");
    for want in &salts {
        assert!(
            ours.contains(want),
            "not on brine's bus: {want:?}\nbrine's:\n{bus}\nmaster log:\n{}",
            conf.log()
        );
    }
    // 4-5: fired from the master, the event has no minion id: no job.
    let (argv, want) = step(4);
    assert_eq!(run(&argv), want, "{argv:?}");
    std::thread::sleep(Duration::from_secs(2));
    let (_, want_file) = step(5);
    assert_eq!(read(), want_file);
    // 6: an SLS that does not render is logged, nothing runs.
    let (argv, want) = step(6);
    assert_eq!(run(&argv), want, "{argv:?}");
    assert!(
        eventually(10, || conf.log().contains("bad.sls")),
        "no log line for the SLS that does not render:\n{}",
        conf.log()
    );
    minion.stop();
    master.stop();
}

#[test]
fn a_full_reactor_queue_drops_reactions_with_a_log_line() {
    let rec = recorded();
    let conf = master_with_reactor(&rec, "reactor_worker_threads: 1\nreactor_worker_hwm: 1\n");
    // The one worker waits on an event that comes last.
    std::fs::write(
        conf.dir.path().join("srv/reactor/full.sls"),
        "hold:\n  runner.state.event:\n    - args:\n      - tagmatch: release/worker\n      \
         - count: 1\n      - quiet: true\n",
    )
    .expect("write");
    let mut master: MasterProc = conf.start();
    let send = |tag: &str| {
        let out = conf.cli("brine-run", &["event.send", tag, "{}"]);
        assert_eq!(String::from_utf8_lossy(&out.stdout), "True\n");
        std::thread::sleep(Duration::from_millis(400));
    };
    assert!(
        eventually(20, || conf.log().contains("reactor listening")),
        "the reactor never listened:\n{}",
        conf.log()
    );
    for n in 1..=5 {
        send(&format!("my/full/{n}"));
    }
    let full = "reactor queue is full (reactor_worker_hwm: 1)";
    assert!(
        eventually(10, || conf.log().matches(full).count() >= 3),
        "expected 3 reactions dropped:\n{}",
        conf.log()
    );
    send("release/worker");
    send("release/worker");
    master.stop();
}

/// A reactor SLS reading `salt['mine.get']` gets the fleet's mine from the
/// master's store (as a state compiled on the master does), not an empty
/// answer: the runner reaction it renders carries web1's entry.
#[test]
fn reactor_templates_read_the_mine_store() {
    let conf = MasterConf::new("");
    let tmp = conf.dir.path().to_path_buf();
    std::fs::create_dir_all(tmp.join("srv/reactor")).expect("mkdir");
    std::fs::write(
        tmp.join("srv/reactor/mine.sls"),
        "pool:\n  runner.test.arg:\n    - args:\n      - pool: {{ salt['mine.get']('*', 'test.ping') | tojson }}\n",
    )
    .expect("sls");
    let master = conf.conf_dir().join("master");
    let mut text = std::fs::read_to_string(&master).expect("master config");
    text.push_str(&format!(
        "reactor:\n- my/mine/*:\n  - {}/srv/reactor/mine.sls\n",
        tmp.display()
    ));
    std::fs::write(master, text).expect("master config");
    let mut master = conf.start();
    conf.write_minion_conf("web1", "mine_functions:\n  test.ping: []\n");
    let mut minion = conf.start_minion(&[]);
    conf.accept_and_ping("web1");
    assert!(
        eventually(20, || {
            let out = conf.cli(
                "brine-run",
                &["--out", "json", "mine.get", "*", "test.ping"],
            );
            String::from_utf8_lossy(&out.stdout).contains("\"web1\": true")
        }),
        "web1's mine entry never landed"
    );
    assert!(
        eventually(20, || conf.log().contains("reactor listening")),
        "the reactor never listened"
    );
    let mut listener = std::process::Command::new(brine_tests::bin("brine-run"))
        .arg("-c")
        .arg(conf.conf_dir())
        .args(["state.event", "salt/run/*/ret", "count=2", "pretty=False"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("brine-run state.event");
    std::thread::sleep(Duration::from_millis(1500));
    conf.cli("brine-run", &["event.send", "my/mine/go"]);
    let deadline = Instant::now() + Duration::from_secs(15);
    while Instant::now() < deadline {
        if let Ok(Some(_)) = listener.try_wait() {
            break;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    let _ = listener.kill();
    let _ = listener.wait();
    let mut bus = String::new();
    if let Some(mut o) = listener.stdout.take() {
        let _ = std::io::Read::read_to_string(&mut o, &mut bus);
    }
    let reacted = bus
        .lines()
        .filter_map(|l| l.split_once('\t'))
        .filter_map(|(_, d)| serde_json::from_str::<Json>(d).ok())
        .find(|d| d["fun"] == "runner.test.arg");
    assert_eq!(
        reacted.map(|d| d["return"]["kwargs"]["pool"].clone()),
        Some(serde_json::json!({"web1": true})),
        "bus:\n{bus}\nmaster log:\n{}",
        conf.log()
    );
    minion.stop();
    master.stop();
}
