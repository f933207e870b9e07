//! Two brine-masters sharing one PostgreSQL (`master_job_cache: pgjsonb`),
//! and a brine-minion serving both (`master_type: str`) or one at a time
//! (`master_type: failover`), all on this machine: PostgreSQL on a private
//! Unix socket, master A on 127.0.0.1 and master B on 127.0.0.2 with the
//! same ports (as the README's two-master setup), the same master key on
//! both (as Salt's multi-master requires).

use brine_master::postgres::test_server::TestServer;
use brine_tests::daemon::{free_port, json_docs, json_out, MasterConf, MasterProc};
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

/// A master's config folder for `interface`, sharing `server`'s database.
fn master_conf(interface: &str, publish_port: u16, ret_port: u16, db: &Path) -> MasterConf {
    let dir = tempfile::Builder::new()
        .prefix("brine-mm-")
        .tempdir()
        .expect("tempdir");
    let conf = dir.path().join("etc");
    std::fs::create_dir_all(&conf).expect("etc");
    let text = format!(
        "interface: {interface}\npublish_port: {publish_port}\nret_port: {ret_port}\n\
         root_dir: {}\nlog_level: info\nkeep_jobs: 1\n\
         master_job_cache: pgjsonb\nreturner.pgjsonb.host: {}\nreturner.pgjsonb.port: 5432\n\
         returner.pgjsonb.user: brine\nreturner.pgjsonb.pass: ''\nreturner.pgjsonb.db: salt\n",
        dir.path().join("mroot").display(),
        db.display()
    );
    std::fs::write(conf.join("master"), text).expect("write master config");
    MasterConf {
        dir,
        publish_port,
        ret_port,
    }
}

/// Masters A (127.0.0.1) and B (127.0.0.2) on one database, B holding A's
/// key pair. Neither is started.
fn two_masters(server: &TestServer) -> (MasterConf, MasterConf) {
    let (publish_port, ret_port) = (free_port(), free_port());
    let a = master_conf("127.0.0.1", publish_port, ret_port, server.path());
    let b = master_conf("127.0.0.2", publish_port, ret_port, server.path());
    // The key pair every master of the site holds: made by A's first
    // start, copied to B.
    let kp = brine_protocol::crypto::KeyPair::generate().expect("key pair");
    for conf in [&a, &b] {
        let pki = conf.pki_dir();
        std::fs::create_dir_all(&pki).expect("pki dir");
        brine_protocol::keys::write_private(&pki.join("master.key"), &kp).expect("master.key");
        brine_protocol::keys::write_public(&pki.join("master.pub"), &kp.public())
            .expect("master.pub");
    }
    (a, b)
}

/// CONF/minion (in A's folder) for both masters.
fn write_minion(a: &MasterConf, extra: &str) {
    let text = format!(
        "id: web1\nmaster:\n  - 127.0.0.1\n  - 127.0.0.2\npublish_port: {}\nmaster_port: {}\n\
         root_dir: {}\nacceptance_wait_time: 1\nlog_level: info\n{extra}",
        a.publish_port,
        a.ret_port,
        a.dir.path().join("nroot").display()
    );
    std::fs::write(a.conf_dir().join("minion"), text).expect("write minion config");
}

/// `brine -t T web1 FUN...` through `conf`'s master: web1's answer.
fn ask(conf: &MasterConf, timeout: &str, args: &[&str]) -> serde_json::Value {
    let mut all = vec!["--out", "json", "-t", timeout, "web1"];
    all.extend_from_slice(args);
    let out = conf.cli("brine", &all);
    json_docs(&out.stdout)
        .ok()
        .and_then(|j| j.get("web1").cloned())
        .unwrap_or(serde_json::Value::Null)
}

/// Wait (bounded) until web1 answers `test.ping` through `conf`'s master.
fn until_pinged(conf: &MasterConf, within: Duration, what: &str, logs: &dyn Fn() -> String) {
    let deadline = Instant::now() + within;
    while Instant::now() < deadline {
        if ask(conf, "2", &["test.ping"]) == serde_json::Value::Bool(true) {
            return;
        }
        std::thread::sleep(Duration::from_millis(200));
    }
    panic!("{what}: web1 never answered\n{}", logs());
}

/// Wait (bounded) until web1's key waits on `conf`'s master, and accept it.
fn accept_when_asked(conf: &MasterConf, logs: &dyn Fn() -> String) {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let out = conf.cli("brine-key", &["--out", "json", "-L"]);
        if json_out(&out)["minions_pre"] == serde_json::json!(["web1"]) {
            break;
        }
        assert!(Instant::now() < deadline, "web1 never asked\n{}", logs());
        std::thread::sleep(Duration::from_millis(200));
    }
    let out = conf.cli("brine-key", &["-a", "web1", "-y"]);
    assert!(out.status.success(), "{out:?}");
}

/// web1's stored return of `jid`, read through `conf`'s master.
fn stored(conf: &MasterConf, jid: &str) -> Option<serde_json::Value> {
    let out = conf.cli("brine-run", &["--out", "json", "jobs.lookup_jid", jid]);
    json_out(&out).get("web1").cloned()
}

/// `kill -9` the master, and reap it.
/// Keep `conf`'s ports bound without listening: a connect to them is
/// refused as to a dead master's, and no other test's master (these run in
/// parallel, each on free ports) is given them while this test runs.
fn hold_ports(conf: &MasterConf) -> Vec<tokio::net::TcpSocket> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let _guard = rt.enter();
    [conf.ret_port, conf.publish_port]
        .into_iter()
        .filter_map(|port| {
            let s = tokio::net::TcpSocket::new_v4().ok()?;
            s.bind(std::net::SocketAddr::from(([127, 0, 0, 1], port)))
                .ok()?;
            Some(s)
        })
        .collect()
}

fn kill_9(master: &mut MasterProc) {
    let pid = master.pid().expect("the master runs");
    let killed = Command::new("kill")
        .args(["-KILL", &pid.to_string()])
        .status()
        .expect("kill");
    assert!(killed.success());
    master.stop();
}

/// How many of `jids` have web1's return stored, read through `conf`'s
/// master, waiting (bounded) for all of them.
fn stored_within(conf: &MasterConf, jids: &[String], within: Duration) -> usize {
    let deadline = Instant::now() + within;
    loop {
        let got = jids.iter().filter(|j| stored(conf, j).is_some()).count();
        if got == jids.len() || Instant::now() >= deadline {
            return got;
        }
        std::thread::sleep(Duration::from_millis(500));
    }
}

/// The returns waiting in a queue folder of the minion.
fn queued(dir: &Path) -> usize {
    std::fs::read_dir(dir).map_or(0, |d| {
        d.filter_map(Result::ok)
            .filter(|e| e.file_name().to_string_lossy().ends_with(".ret"))
            .count()
    })
}

fn logs(a: &MasterConf, b: &MasterConf) -> String {
    format!(
        "master A log:\n{}\nmaster B log:\n{}\nminion log:\n{}",
        a.log(),
        b.log(),
        a.minion_log()
    )
}

/// str mode: the minion serves both masters; a key accepted on B lets it
/// in on A; jobs from either run; B shows the returns of A's job.
#[test]
fn two_masters_share_keys_and_jobs_and_a_minion_serves_both() {
    let server = TestServer::start();
    let (a, b) = two_masters(&server);
    let _ma = a.start();
    let _mb = b.start();
    write_minion(&a, "");
    let _minion = a.start_minion(&[]);
    let logs = || logs(&a, &b);
    // Accepted once, on B only: the shared store lets it in on both.
    accept_when_asked(&b, &logs);
    let listed = json_out(&a.cli("brine-key", &["--out", "json", "-L"]));
    assert_eq!(listed["minions"], serde_json::json!(["web1"]), "{listed}");
    assert!(
        std::fs::read_dir(a.pki_dir().join("minions"))
            .map(|d| d.count())
            .unwrap_or(0)
            == 0,
        "keys are in the database, not in pki_dir"
    );
    until_pinged(&a, Duration::from_secs(30), "through A", &logs);
    until_pinged(&b, Duration::from_secs(30), "through B", &logs);

    // A job published by A: its return is seen through B.
    let jid = a.publish_async("web1", &["test.echo", "from-a"]);
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        if let Some(v) = stored(&b, &jid) {
            assert_eq!(v, serde_json::json!("from-a"));
            break;
        }
        assert!(Instant::now() < deadline, "no return via B\n{}", logs());
        std::thread::sleep(Duration::from_millis(200));
    }
    // Each master got the returns of its jobs: nothing waits in either
    // master's queue.
    let cache = a.dir.path().join("nroot/var/cache/brine/minion");
    for q in ["pending_returns-127.0.0.1_", "pending_returns-127.0.0.2_"] {
        let dir = cache.join(format!("{q}{}", a.ret_port));
        assert_eq!(queued(&dir), 0, "{}", dir.display());
    }
}

/// str mode: the returns of jobs A published, still running when A is
/// killed, go to B (which shares A's job cache), counted.
#[test]
fn a_str_minion_gives_the_returns_of_a_dead_master_to_the_other() {
    let server = TestServer::start();
    let (a, b) = two_masters(&server);
    let mut ma = a.start();
    let _mb = b.start();
    write_minion(&a, "");
    let _minion = a.start_minion(&[]);
    let logs = || logs(&a, &b);
    accept_when_asked(&a, &logs);
    until_pinged(&a, Duration::from_secs(30), "through A", &logs);
    until_pinged(&b, Duration::from_secs(30), "through B", &logs);
    let jids: Vec<String> = (0..3)
        .map(|_| a.publish_async("web1", &["test.sleep", "3"]))
        .collect();
    std::thread::sleep(Duration::from_millis(1000));
    kill_9(&mut ma);
    let killed_at = Instant::now();
    let got = stored_within(&b, &jids, Duration::from_secs(40));
    assert_eq!(got, jids.len(), "returns held back for A\n{}", logs());
    eprintln!("returns via B {:?} after the kill", killed_at.elapsed());
    let minion_log = a.minion_log();
    assert!(
        minion_log.contains("the master at 127.0.0.2:"),
        "no hand-over logged\n{minion_log}"
    );
    // Nothing is left waiting for A.
    let queue = a
        .dir
        .path()
        .join("nroot/var/cache/brine/minion")
        .join(format!("pending_returns-127.0.0.1_{}", a.ret_port));
    assert_eq!(queued(&queue), 0, "{}", queue.display());
}

/// failover: kill -9 the master the minion uses (`master_alive_interval:
/// 5`); within 7 s a job from the other reaches it, and the
/// returns of the jobs it was running when its master died reach the
/// other master (counted). With `master_failback` it goes back to the
/// first master once that is up again.
#[test]
fn a_failover_minion_moves_to_the_other_master_and_loses_no_return() {
    let server = TestServer::start();
    let (a, b) = two_masters(&server);
    let mut ma = a.start();
    let _mb = b.start();
    write_minion(
        &a,
        "master_type: failover\nmaster_alive_interval: 5\nmaster_failback: True\n",
    );
    let _minion = a.start_minion(&[]);
    let logs = || logs(&a, &b);
    accept_when_asked(&a, &logs);
    until_pinged(&a, Duration::from_secs(30), "through A", &logs);
    // One master at a time: B knows web1 (the shared keys) but gets no
    // answer from it.
    let from_b = ask(&b, "2", &["test.ping"]);
    assert!(
        from_b
            .as_str()
            .is_some_and(|s| s.starts_with("Minion did not return")),
        "{from_b}"
    );

    // Three jobs running on web1 when A dies.
    let jids: Vec<String> = (0..3)
        .map(|_| a.publish_async("web1", &["test.sleep", "4"]))
        .collect();
    std::thread::sleep(Duration::from_millis(1000));
    kill_9(&mut ma);
    let _held = hold_ports(&a);
    let at = Instant::now();
    // Within the alive interval plus a second or two (the link's loss
    // brings the check forward). Timed on the minion's own word: one
    // missed ping costs the CLI a whole gather timeout.
    let switched = "Re-initialising subsystems for new master 127.0.0.2";
    while !a.minion_log().contains(switched) {
        assert!(
            at.elapsed() < Duration::from_secs(7),
            "web1 did not fail over within 7 s\n{}",
            logs()
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    eprintln!("failover took {:?}", at.elapsed());
    until_pinged(&b, Duration::from_secs(30), "after A was killed", &logs);

    let got = stored_within(&b, &jids, Duration::from_secs(40));
    assert_eq!(got, jids.len(), "returns lost across the kill\n{}", logs());
    let minion_log = a.minion_log();
    for line in [
        "Connection to master 127.0.0.1 lost",
        "Trying to tune in to next master from master-list",
        "Re-initialising subsystems for new master 127.0.0.2",
    ] {
        assert!(
            minion_log.contains(line),
            "{line:?} not logged\n{minion_log}"
        );
    }
}

/// PostgreSQL stopped while a job runs and started again: the return
/// the master could not store is resent by the minion and stored.
#[test]
fn a_return_survives_postgres_restarting_mid_job() {
    let server = TestServer::start();
    let (a, b) = two_masters(&server);
    drop(b);
    let _ma = a.start();
    write_minion(&a, "");
    let _minion: MasterProc = a.start_minion(&[]);
    let logs = || format!("master log:\n{}\nminion log:\n{}", a.log(), a.minion_log());
    accept_when_asked(&a, &logs);
    until_pinged(&a, Duration::from_secs(30), "before", &logs);
    let jid = a.publish_async("web1", &["test.sleep", "2"]);
    server.stop();
    // The return comes back while the database is down.
    std::thread::sleep(Duration::from_secs(4));
    server.start_again();
    let deadline = Instant::now() + Duration::from_secs(40);
    while stored(&a, &jid).is_none() {
        assert!(Instant::now() < deadline, "the return was lost\n{}", logs());
        std::thread::sleep(Duration::from_millis(500));
    }
}

/// str mode: a master whose name does not resolve holds back no other; the
/// minion serves the one that does.
#[test]
fn a_master_that_does_not_resolve_holds_back_no_other() {
    let conf = MasterConf::new("");
    let _master = conf.start();
    let text = format!(
        "id: web1\nmaster:\n  - no-such-master.invalid\n  - 127.0.0.1\npublish_port: {}\n\
         master_port: {}\nroot_dir: {}\nacceptance_wait_time: 1\nlog_level: info\n",
        conf.publish_port,
        conf.ret_port,
        conf.dir.path().join("nroot").display()
    );
    std::fs::write(conf.conf_dir().join("minion"), text).expect("minion config");
    let _minion = conf.start_minion(&[]);
    conf.accept_and_ping("web1");
}

/// Both masters hold the master key, so each could open a request sealed
/// to the other: a request captured on its way to A and played to B (where
/// its nonce is new) is refused, and B remembers nothing of it.
#[test]
fn a_request_captured_on_its_way_to_one_master_is_refused_by_the_other() {
    use brine_protocol::messages::{
        AuthStatus, ErrorCode, PillarRequest, ReplyBody, Request, RequestBody,
    };
    use brine_tests::daemon::ScriptedMinion;
    let server = TestServer::start();
    let (a, b) = two_masters(&server);
    let _ma = a.start();
    let _mb = b.start();
    let to_a = ScriptedMinion::new("spy", &a, serde_json::json!({"os": "Debian"}));
    let mut to_b = ScriptedMinion::new("spy", &b, serde_json::json!({"os": "Debian"}))
        .at(std::net::SocketAddr::from(([127, 0, 0, 2], b.ret_port)));
    to_b.key = to_a.key.clone();
    // Wait for both masters to listen; the key waits on the shared store.
    let deadline = Instant::now() + Duration::from_secs(20);
    while to_a.auth() != AuthStatus::Pending || to_b.auth() != AuthStatus::Pending {
        assert!(Instant::now() < deadline, "{}", logs(&a, &b));
        std::thread::sleep(Duration::from_millis(200));
    }
    let out = a.cli("brine-key", &["-a", "spy", "-y"]);
    assert!(out.status.success(), "{out:?}");
    // Known to both masters (each holds its grains).
    assert_eq!(to_a.auth(), AuthStatus::Accepted);
    assert_eq!(to_b.auth(), AuthStatus::Accepted);
    assert_ne!(to_b.instance(), to_a.instance());
    let instance_a = to_a.instance().expect("A names its instance");
    let pillar = Request::sealed(
        &a.master_keys().x25519,
        "spy",
        &RequestBody::Pillar(PillarRequest {
            id: "spy".into(),
            pillarenv: None,
            saltenv: None,
            pillar_override: brine_core::Value::Null,
        }),
    )
    .expect("request")
    .to_instance(Some(instance_a));
    // Played to B first (its nonce new there), then delivered to A.
    match to_b.request_as_is(&pillar) {
        ReplyBody::Error(e) => assert_eq!(e.code, ErrorCode::NotAccepted, "{e:?}"),
        other => panic!("B served a request addressed to A: {other:?}"),
    }
    assert!(
        matches!(to_a.request_as_is(&pillar), ReplyBody::Pillar(_)),
        "{}",
        logs(&a, &b)
    );
    // B serves the minion's own requests to B.
    assert!(to_b.pillar_of("spy", None).is_ok(), "{}", logs(&a, &b));
}
