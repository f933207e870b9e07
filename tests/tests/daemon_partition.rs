//! A minion cut off its master for 30 s (a relay the test controls on
//! 127.0.0.1 holds every byte both ways, connections left open, as a
//! partition does) comes back by itself: the return of the job it ran
//! while cut off reaches the master, and new jobs reach it.

use brine_tests::daemon::{json_docs, json_out, MasterConf};
use brine_tests::partition::Relay;
use std::time::{Duration, Instant};

#[test]
fn a_minion_cut_off_for_30_s_comes_back_and_delivers_what_it_held() {
    let conf = MasterConf::new("");
    let _master = conf.start();
    let publish = Relay::start(0, conf.publish_addr());
    let ret = Relay::start(0, conf.ret_addr());
    // The minion reaches the master only through the relays.
    let text = format!(
        "id: web1\nmaster: 127.0.0.1\npublish_port: {}\nmaster_port: {}\nroot_dir: {}\n\
         acceptance_wait_time: 1\nlog_level: info\n",
        publish.addr.port(),
        ret.addr.port(),
        conf.dir.path().join("nroot").display()
    );
    std::fs::write(conf.conf_dir().join("minion"), text).expect("minion config");
    let _minion = conf.start_minion(&[]);
    conf.accept_and_ping("web1");
    let logs = || {
        format!(
            "master log:\n{}\nminion log:\n{}",
            conf.log(),
            conf.minion_log()
        )
    };

    let jid = conf.publish_async("web1", &["test.sleep", "2"]);
    // Let the publication reach the minion, then cut it off.
    std::thread::sleep(Duration::from_millis(500));
    publish.cut();
    ret.cut();
    let cut_at = Instant::now();
    let stored = |jid: &str| {
        let out = conf.cli("brine-run", &["--out", "json", "jobs.lookup_jid", jid]);
        json_out(&out).get("web1").cloned()
    };
    std::thread::sleep(Duration::from_secs(5));
    assert_eq!(stored(&jid), None, "a return crossed the cut\n{}", logs());
    std::thread::sleep(Duration::from_secs(30).saturating_sub(cut_at.elapsed()));
    publish.heal();
    ret.heal();

    let deadline = Instant::now() + Duration::from_secs(60);
    while stored(&jid).is_none() {
        assert!(
            Instant::now() < deadline,
            "the held return never arrived\n{}",
            logs()
        );
        std::thread::sleep(Duration::from_millis(500));
    }
    assert_eq!(stored(&jid), Some(serde_json::Value::Bool(true)));
    // And it takes new jobs again.
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let out = conf.cli("brine", &["--out", "json", "-t", "3", "web1", "test.ping"]);
        let got = json_docs(&out.stdout).ok();
        if got.as_ref().and_then(|j| j.get("web1")) == Some(&serde_json::Value::Bool(true)) {
            break;
        }
        assert!(Instant::now() < deadline, "no job reached it\n{}", logs());
        std::thread::sleep(Duration::from_millis(300));
    }
}
