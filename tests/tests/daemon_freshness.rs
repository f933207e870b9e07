//! Freshness without agreeing clocks (issue findings 3 and 9), against real
//! daemons on 127.0.0.1:
//!
//! - requests signed by keys the master does not accept leave nothing in
//!   its replay memory (they cannot fill it for everyone else);
//! - an accepted minion's request works once; sent again it is refused,
//!   and so it is after the master restarts (it was stamped before);
//! - a minion whose clock is 200 s ahead or behind the master's (run under
//!   libfaketime) authenticates, answers jobs and returns them.

#[path = "support/minion.rs"]
mod minion;

use brine_core::Value;
use brine_protocol::crypto::KeyPair;
use brine_protocol::messages::{ErrorCode, PillarRequest, ReplyBody, Request, RequestBody};
use brine_tests::daemon::{MasterConf, ScriptedMinion};
use minion::{accept_and_ping, MinionConf};
use serde_json::json;
use std::time::{Duration, Instant};

fn pillar_request(id: &str) -> Request {
    Request::new(RequestBody::Pillar(PillarRequest {
        id: id.into(),
        pillarenv: None,
        saltenv: None,
        pillar_override: Value::Null,
    }))
    .expect("request")
}

fn code(body: &ReplyBody) -> Option<ErrorCode> {
    match body {
        ReplyBody::Error(e) => Some(e.code),
        _ => None,
    }
}

#[test]
fn replays_are_refused_per_minion_and_across_a_master_restart() {
    let conf = MasterConf::new("");
    let mut master = conf.start();
    let web9 = ScriptedMinion::new("web9", &conf, json!({"os": "Debian"}));
    web9.auth();
    let _ = conf.cli("brine-key", &["-a", "web9", "-y"]);
    web9.auth();

    // 2,000 requests from keys the master does not accept: refused before
    // anything is remembered, each with its own fresh nonce.
    for i in 0..2_000 {
        let stranger = KeyPair::generate().expect("key");
        let r = web9.request_signed_by(&pillar_request(&format!("ghost{i}")), &stranger);
        assert_eq!(code(&r), Some(ErrorCode::NotAccepted), "{r:?}");
    }

    let req = pillar_request("web9");
    assert!(matches!(web9.request(&req), ReplyBody::Pillar(_)));
    assert_eq!(code(&web9.request(&req)), Some(ErrorCode::Replay));

    // Restarted, the master remembers no nonce, and still refuses it: as
    // sent, it names the master's earlier run...
    let sent = req.clone().to_instance(web9.instance());
    master.stop();
    let _master = conf.start();
    assert_eq!(
        code(&web9.request_as_is(&sent)),
        Some(ErrorCode::NotAccepted)
    );
    // ... and naming this run, it was stamped before it started.
    web9.auth();
    assert_eq!(code(&web9.request(&req)), Some(ErrorCode::Replay));
    assert!(
        conf.log().contains("before this master started"),
        "{}",
        conf.log()
    );
    // A fresh request is served.
    assert!(matches!(
        web9.request(&pillar_request("web9")),
        ReplyBody::Pillar(_)
    ));
}

fn libfaketime() -> &'static str {
    const LIB: &str = "/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1";
    assert!(
        std::path::Path::new(LIB).exists(),
        "{LIB} is missing: apt-get install faketime (.ci/run does)"
    );
    LIB
}

#[test]
fn minions_with_skewed_clocks_are_served() {
    let lib = libfaketime();
    let conf = MasterConf::new("");
    let _master = conf.start();
    let mut minions = Vec::new();
    for (id, skew) in [("ahead", "+200s"), ("behind", "-200s")] {
        let m = MinionConf::new(&conf, id, conf.publish_port, "");
        let p = m.start_with_env(&[("LD_PRELOAD", lib), ("FAKETIME", skew)]);
        minions.push((m, p));
    }
    for id in ["ahead", "behind"] {
        accept_and_ping(&conf, id);
    }
    // Jobs keep flowing both ways: publications to, returns from.
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let out = conf.cli(
            "brine",
            &[
                "--out",
                "json",
                "-t",
                "10",
                "-L",
                "ahead,behind",
                "test.echo",
                "tick",
            ],
        );
        let text = String::from_utf8_lossy(&out.stdout);
        if text.contains("\"ahead\": \"tick\"") && text.contains("\"behind\": \"tick\"") {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "{text}\n{}\n{}",
            minions[0].0.log(),
            minions[1].0.log()
        );
        std::thread::sleep(Duration::from_millis(300));
    }
    // Their first stamps were off, refused, and corrected from the
    // master's answer.
    let log = conf.log();
    assert!(log.contains("refused a request from minion ahead"), "{log}");
    assert!(
        log.contains("refused a request from minion behind"),
        "{log}"
    );
}
