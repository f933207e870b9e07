//! brine-minion against hostile publications and a changed master key.
//!
//! The minion authenticates with a real brine-master (its ret port) but
//! reads publications from a PUB socket this test owns, so the test can
//! send what an attacker on the publish port could: frames signed by
//! another key, replays of genuine frames, stale ones, garbage, a frame
//! over the size limit. Genuine frames are signed with the master's own key
//! (read from its pki dir) and encrypted with its session key (which a
//! scripted minion, accepted, obtains as any minion does). What the minion
//! ran shows in its log (the master refuses the returns: it never published
//! these jobs).

#[path = "support/minion.rs"]
mod minion;

use brine_core::{Map, Value};
use brine_protocol::crypto::SessionKey;
use brine_protocol::crypto::{self, KeyPair};
use brine_protocol::messages::{sign_frame, Publication, SealedPublication, PROTOCOL_VERSION};
use brine_protocol::transport::{self, Limits};
use brine_tests::daemon::{free_port, MasterConf, ScriptedMinion};
use minion::MinionConf;
use std::time::{Duration, Instant};

fn publication(jid: &str, fun: &str, arg: Vec<Value>) -> Publication {
    Publication {
        v: PROTOCOL_VERSION,
        jid: jid.into(),
        created_ms: crypto::now_ms(),
        nonce: crypto::random_nonce().expect("nonce").into(),
        tgt: Value::from("web1"),
        tgt_type: "glob".into(),
        fun: fun.into(),
        arg,
        kwarg: Map::default(),
        secrets: Default::default(),
        user: brine_protocol::messages::root_user(),
    }
}

/// jids shaped like the master's (20 digits), distinct per test run.
fn jid(n: u64) -> String {
    format!("2099{:016}", crypto::now_ms() % 1_000_000_000 * 1000 + n)
}

/// A PUB socket of the test's own, driven by a runtime on its own thread
/// (the test thread spends its time waiting on CLIs).
struct Publisher {
    tx: tokio::sync::mpsc::UnboundedSender<Vec<u8>>,
}

impl Publisher {
    fn start(port: u16) -> Publisher {
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<Vec<u8>>();
        let (ready_tx, ready_rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let rt = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .expect("runtime");
            rt.block_on(async move {
                let limits = Limits::default();
                let addr = std::net::SocketAddr::from(([127, 0, 0, 1], port));
                let mut publisher = transport::bind_pub(addr, &limits).await.expect("bind pub");
                let _ = ready_tx.send(());
                while let Some(frame) = rx.recv().await {
                    let _ = transport::send_frame(&mut publisher.socket, frame, &limits).await;
                }
            });
        });
        ready_rx
            .recv_timeout(Duration::from_secs(10))
            .expect("publisher ready");
        Publisher { tx }
    }

    fn send(&self, frame: Vec<u8>) {
        self.tx.send(frame).expect("publisher running");
    }
}

#[test]
fn forged_replayed_stale_and_garbage_publications_are_ignored() {
    let master_conf = MasterConf::new("");
    let _master = master_conf.start();
    let master_key = brine_protocol::keys::read_private(&master_conf.pki_dir().join("master.key"))
        .expect("master.key");
    // The session key, as an accepted minion gets it.
    let spy = ScriptedMinion::new("spy", &master_conf, serde_json::json!({}));
    spy.auth();
    let _ = master_conf.cli("brine-key", &["-a", "spy", "-y"]);
    spy.auth();
    let session: SessionKey = spy.session().expect("session key");
    let seal = |key: &KeyPair, p: &Publication| {
        sign_frame(key, &SealedPublication::seal(&session, p).expect("seal")).expect("sign")
    };
    let pub_port = free_port();
    let publisher = Publisher::start(pub_port);
    let mconf = MinionConf::new(&master_conf, "web1", pub_port, "");
    let _minion = mconf.start();
    let _ = master_conf.cli("brine-key", &["-a", "web1", "-y"]);
    let send = |frame: Vec<u8>| publisher.send(frame);
    let ran = |fun: &str, jid: &str| {
        mconf
            .log()
            .matches(&format!("running {fun} (jid {jid})"))
            .count()
    };
    let wait_ran = |fun: &str, jid: &str, timeout: Duration| {
        let deadline = Instant::now() + timeout;
        while Instant::now() < deadline {
            if ran(fun, jid) > 0 {
                return true;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        false
    };

    // Until the minion is subscribed, publications are lost: publish a
    // genuine job until its return shows (this also accepts the key: a
    // publication for a pending minion makes it authenticate again).
    let warm = jid(0);
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let p = publication(&warm, "test.ping", vec![]);
        let _ = master_conf.cli("brine-key", &["-a", "web1", "-y"]);
        send(seal(&master_key, &p));
        if wait_ran("test.ping", &p.jid, Duration::from_millis(700)) {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "minion never ran a job:\n{}",
            mconf.log()
        );
    }

    // A genuine job runs.
    let genuine = publication(&jid(1), "test.echo", vec!["first".into()]);
    let genuine_frame = seal(&master_key, &genuine);
    send(genuine_frame.clone());
    assert!(
        wait_ran("test.echo", &genuine.jid, Duration::from_secs(10)),
        "{}",
        mconf.log()
    );

    // Forged: the same kind of job signed by another key.
    let mallory = KeyPair::generate().expect("key");
    let forged = publication(&jid(2), "test.echo", vec!["forged".into()]);
    send(seal(&mallory, &forged));
    // Replayed: the genuine frame again, byte for byte.
    send(genuine_frame);
    // Stale: genuinely signed, but created ten minutes ago.
    let mut stale = publication(&jid(3), "test.echo", vec!["stale".into()]);
    stale.created_ms -= 600_000;
    send(seal(&master_key, &stale));
    // Garbage, and a genuine frame with a flipped byte.
    send(b"\x92\xc1garbage".to_vec());
    let flipped_jid = jid(4);
    let mut flipped = seal(
        &master_key,
        &publication(&flipped_jid, "test.echo", vec!["flipped".into()]),
    );
    let i = flipped.len() / 2;
    flipped[i] ^= 0x20;
    send(flipped);
    // Over the size limit: the minion's guard cuts the connection and the
    // subscription reconnects by itself. (After a pause: frames still in
    // flight on a cut connection are lost.)
    std::thread::sleep(Duration::from_millis(500));
    send(vec![
        0u8;
        brine_protocol::messages::MAX_MESSAGE_BYTES + 2048
    ]);

    // A genuine job after all that still runs (the minion kept serving);
    // publish until the reconnected subscription takes it.
    let after = publication(&jid(5), "test.echo", vec!["still here".into()]);
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let mut p = after.clone();
        p.nonce = crypto::random_nonce().expect("nonce").into();
        p.created_ms = crypto::now_ms();
        send(seal(&master_key, &p));
        if wait_ran("test.echo", &after.jid, Duration::from_millis(700)) {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "minion stopped serving:\n{}",
            mconf.log()
        );
    }

    // Nothing forged, stale or flipped ran; the replay did not run again.
    for j in [&forged.jid, &stale.jid, &flipped_jid] {
        assert_eq!(ran("test.echo", j), 0, "{j} ran:\n{}", mconf.log());
    }
    assert_eq!(
        ran("test.echo", &genuine.jid),
        1,
        "the replayed publication ran again"
    );
    let log = mconf.log();
    let dropped = log.matches("dropped a publication").count();
    assert!(dropped >= 5, "{dropped} drops logged:\n{log}");
    for why in ["is not the expected key", "(replay)", "cannot decode"] {
        assert!(log.contains(why), "no drop for {why:?}:\n{log}");
    }
    // The stale one is older than the window, and older than the minion's
    // start, which is checked first.
    assert!(
        log.contains("before this minion started") || log.contains("older than"),
        "no drop for the stale publication:\n{log}"
    );
}

#[test]
fn a_changed_master_key_is_refused_loudly() {
    let master_conf = MasterConf::new("");
    let _master = master_conf.start();
    let mconf = MinionConf::new(&master_conf, "web1", master_conf.publish_port, "");
    // The minion once pinned another master's key.
    std::fs::create_dir_all(mconf.pki_dir()).expect("pki dir");
    let other = KeyPair::generate().expect("key").public();
    brine_protocol::keys::write_public(&mconf.pki_dir().join("minion_master.pub"), &other)
        .expect("pin");
    let mut proc_ = mconf.start();
    let status = proc_
        .wait_exit(Duration::from_secs(20))
        .expect("the minion exits");
    assert_eq!(status.code(), Some(42), "{}", mconf.log());
    let log = mconf.log();
    assert!(log.contains("the master key has changed"), "{log}");
    assert!(log.contains(&other.fingerprint()), "{log}");
    // The pin is untouched.
    assert_eq!(
        brine_protocol::keys::read_public(&mconf.pki_dir().join("minion_master.pub")).ok(),
        Some(other)
    );
}
