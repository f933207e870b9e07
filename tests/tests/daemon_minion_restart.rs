//! brine-minion across restarts: returns finished while the master is down
//! wait on disk and reach the master once it is back — whether the minion
//! stayed up or restarted meanwhile — and jobs flow again afterwards.

#[path = "support/minion.rs"]
mod minion;

use brine_tests::daemon::MasterConf;
use minion::{accept_and_ping, wait_for_return, MinionConf};
use serde_json::json;
use std::time::{Duration, Instant};

fn pending(m: &MinionConf) -> usize {
    std::fs::read_dir(m.pending_returns())
        .map(|d| {
            d.filter_map(Result::ok)
                .filter(|e| e.file_name().to_string_lossy().ends_with(".ret"))
                .count()
        })
        .unwrap_or(0)
}

fn wait_until(what: &str, timeout: Duration, mut f: impl FnMut() -> bool) {
    let deadline = Instant::now() + timeout;
    while !f() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[test]
fn master_restart_mid_job_loses_no_return() {
    let conf = MasterConf::new("");
    let mut master = conf.start();
    let m = MinionConf::new(&conf, "web1", conf.publish_port, "");
    let _minion = m.start();
    accept_and_ping(&conf, "web1");

    let jid = conf.publish_async("web1", &["test.sleep", "3"]);
    wait_until("the job to start", Duration::from_secs(10), || {
        m.log().contains(&format!("(jid {jid})"))
    });
    // The master goes away while the job runs: the return cannot be
    // delivered and waits on the minion's disk.
    master.stop();
    wait_until("the return to be queued", Duration::from_secs(15), || {
        pending(&m) == 1 && m.log().contains("will be resent")
    });
    let master = conf.start();
    assert_eq!(
        wait_for_return(&conf, &jid, Duration::from_secs(30)),
        json!({"web1": true}),
        "{}",
        m.log()
    );
    wait_until("the queue to empty", Duration::from_secs(10), || {
        pending(&m) == 0
    });
    // The minion follows the restarted master: new jobs reach it.
    accept_and_ping(&conf, "web1");
    drop(master);
}

#[test]
fn returns_queued_on_disk_survive_a_minion_restart() {
    let conf = MasterConf::new("");
    let mut master = conf.start();
    let m = MinionConf::new(&conf, "web1", conf.publish_port, "");
    let mut minion = m.start();
    accept_and_ping(&conf, "web1");

    let jid = conf.publish_async("web1", &["test.echo", "queued"]);
    let jid2 = conf.publish_async("web1", &["test.sleep", "2"]);
    assert_eq!(
        wait_for_return(&conf, &jid, Duration::from_secs(10)),
        json!({"web1": "queued"})
    );
    wait_until("the job to start", Duration::from_secs(10), || {
        m.log().contains(&format!("(jid {jid2})"))
    });
    master.stop();
    wait_until("the return to be queued", Duration::from_secs(15), || {
        pending(&m) == 1
    });
    // The minion stops with the return still queued, and comes back after
    // the master.
    let status = minion.stop().expect("stopped");
    assert!(status.success(), "clean stop: {status:?}\n{}", m.log());
    assert_eq!(pending(&m), 1);
    let _master = conf.start();
    let _minion = m.start();
    assert_eq!(
        wait_for_return(&conf, &jid2, Duration::from_secs(30)),
        json!({"web1": true}),
        "{}",
        m.log()
    );
    wait_until("the queue to empty", Duration::from_secs(10), || {
        pending(&m) == 0
    });
}

/// Finding 15: a job running when the minion is told to stop (SIGTERM)
/// finishes within `shutdown_timeout` and its return reaches the master;
/// one that runs longer leaves an error return in the queue, sent after the
/// next start. No return is silently lost.
#[test]
fn a_job_running_at_sigterm_finishes_or_leaves_an_error_return() {
    let conf = MasterConf::new("");
    let _master = conf.start();
    let m = MinionConf::new(&conf, "web1", conf.publish_port, "shutdown_timeout: 2\n");
    let mut minion = m.start();
    accept_and_ping(&conf, "web1");

    let jid = conf.publish_async("web1", &["test.sleep", "1"]);
    wait_until("the job to start", Duration::from_secs(10), || {
        m.log().contains(&format!("(jid {jid})"))
    });
    let status = minion.stop().expect("stopped");
    assert!(status.success(), "clean stop: {status:?}\n{}", m.log());
    assert_eq!(
        wait_for_return(&conf, &jid, Duration::from_secs(10)),
        json!({"web1": true}),
        "{}",
        m.log()
    );

    let mut minion = m.start();
    accept_and_ping(&conf, "web1");
    let jid = conf.publish_async("web1", &["test.sleep", "60"]);
    wait_until("the job to start", Duration::from_secs(10), || {
        m.log().contains(&format!("(jid {jid})"))
    });
    let started = Instant::now();
    let status = minion.stop().expect("stopped");
    assert!(status.success(), "clean stop: {status:?}\n{}", m.log());
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "the stop waited {:?}, past shutdown_timeout",
        started.elapsed()
    );
    assert_eq!(pending(&m), 1, "{}", m.log());
    let _minion = m.start();
    let got = wait_for_return(&conf, &jid, Duration::from_secs(30));
    let text = got["web1"].as_str().unwrap_or_default();
    assert!(
        text.starts_with("ERROR: the minion was stopped while test.sleep ran"),
        "{got}"
    );
}
