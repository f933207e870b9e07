//! brine-master with a real brine-minion: pillar refresh semantics, a
//! master restart in the middle of a job, and publications a minion must
//! refuse (forged, replayed, stale) — the last played by a stand-in master
//! that holds the real master's key.

use brine_core::{Map, Value};
use brine_protocol::crypto::{self, KeyPair, SessionKey};
use brine_protocol::messages::{
    read_frame, sign_frame, AuthReply, AuthStatus, ErrorCode, ErrorReply, PillarReply, Publication,
    Reply, ReplyBody, Request, RequestBody, SealedPublication, PROTOCOL_VERSION,
};
use brine_protocol::transport::{self, Limits};
use brine_tests::daemon::{json_out, write_tree, MasterConf};
use serde_bytes::ByteArray;
use serde_json::json;
use std::collections::BTreeSet;
use std::time::{Duration, Instant};

fn with_pillar(conf: &MasterConf, files: &[(&str, &str)]) -> std::path::PathBuf {
    let pr = conf.dir.path().join("pillar");
    write_tree(&pr, files);
    let mut text = std::fs::read_to_string(conf.conf_dir().join("master")).expect("config");
    text.push_str(&format!(
        "pillar_roots:\n  base: [{}]\n  testing: [{}]\n",
        pr.join("base").display(),
        pr.join("testing").display()
    ));
    std::fs::write(conf.conf_dir().join("master"), text).expect("config");
    pr
}

#[test]
fn refresh_pillar_replaces_the_in_memory_pillar_only_when_asked() {
    let conf = MasterConf::new("");
    let pr = with_pillar(
        &conf,
        &[
            ("base/top.sls", "base:\n  '*':\n    - common\n"),
            ("base/common.sls", "foo: 1\n"),
            ("testing/top.sls", "testing:\n  '*':\n    - t\n"),
            ("testing/t.sls", "foo: testing\n"),
        ],
    );
    let _master = conf.start();
    // The minion's own pillarenv: its in-memory pillar is base's alone.
    conf.write_minion_conf("m1", "pillarenv: base\n");
    let _minion = conf.start_minion(&[]);
    conf.accept_and_ping("m1");

    let (got, _) = conf.call("m1", &["pillar.get", "foo"]);
    assert_eq!(got, json!(1));
    std::fs::write(pr.join("base/common.sls"), "foo: 2\nbar: new\n").expect("write");
    // pillar.get reads the in-memory pillar; pillar.items compiles afresh.
    assert_eq!(conf.call("m1", &["pillar.get", "foo"]).0, json!(1));
    let (items, _) = conf.call("m1", &["pillar.items"]);
    assert_eq!(items["foo"], json!(2));
    assert_eq!(items["bar"], json!("new"));
    // Another pillarenv compiles that env, and leaves memory alone.
    let (items, _) = conf.call("m1", &["pillar.items", "pillarenv=testing"]);
    assert_eq!(items["foo"], json!("testing"));
    assert_eq!(conf.call("m1", &["pillar.get", "foo"]).0, json!(1));
    // saltutil.refresh_pillar: True, and memory now holds the new pillar.
    let (r, _) = conf.call("m1", &["saltutil.refresh_pillar", "wait=True"]);
    assert_eq!(r, json!(true));
    assert_eq!(conf.call("m1", &["pillar.get", "foo"]).0, json!(2));
    assert_eq!(conf.call("m1", &["pillar.get", "bar"]).0, json!("new"));
}

#[test]
fn state_apply_with_another_pillarenv_leaves_the_in_memory_pillar() {
    let conf = MasterConf::new("");
    with_pillar(
        &conf,
        &[
            ("base/top.sls", "base:\n  '*':\n    - common\n"),
            ("base/common.sls", "who: base\n"),
            ("testing/top.sls", "testing:\n  '*':\n    - t\n"),
            ("testing/t.sls", "who: testing\n"),
        ],
    );
    conf.serve_base_files(&[
        ("top.sls", "base:\n  '*':\n    - show\n"),
        (
            "show.sls",
            "said:\n  test.succeed_without_changes:\n    - name: {{ pillar['who'] }}\n",
        ),
    ]);
    let _master = conf.start();
    conf.write_minion_conf("m1", "pillarenv: base\n");
    let _minion = conf.start_minion(&[]);
    conf.accept_and_ping("m1");

    let name = |ret: &serde_json::Value| {
        ret.as_object()
            .and_then(|o| o.values().next())
            .map(|s| s["name"].clone())
            .unwrap_or_default()
    };
    let (ret, out) = conf.call("m1", &["state.apply", "pillarenv=testing"]);
    assert!(out.status.success(), "{out:?}");
    assert_eq!(name(&ret), json!("testing"), "{ret}");
    assert_eq!(conf.call("m1", &["pillar.get", "who"]).0, json!("base"));
    let (ret, _) = conf.call("m1", &["state.apply"]);
    assert_eq!(name(&ret), json!("base"), "{ret}");
}

#[test]
fn master_restart_mid_job_the_minion_resends_its_return() {
    let conf = MasterConf::new("");
    let mut master = conf.start();
    conf.write_minion_conf("m1", "");
    let _minion = conf.start_minion(&[]);
    conf.accept_and_ping("m1");
    let out = conf.cli("brine", &["--async", "m1", "test.sleep", "2"]);
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    let jid = text
        .trim()
        .strip_prefix("Executed command with job ID: ")
        .unwrap_or_else(|| panic!("{text}"))
        .to_string();
    // Give the publication time to reach the minion, then take the master
    // away while the job runs.
    std::thread::sleep(Duration::from_millis(500));
    assert!(master.stop().is_some_and(|s| s.success()));
    std::thread::sleep(Duration::from_secs(3));
    let _master = conf.start();
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let found = conf.cli("brine-run", &["--out", "json", "jobs.lookup_jid", &jid]);
        if json_out(&found) == json!({"m1": true}) {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the return never came back; minion log:\n{}",
            conf.minion_log()
        );
        std::thread::sleep(Duration::from_millis(500));
    }
}

/// A stand-in master on the real master's ports and key: answers auth and
/// pillar, acknowledges returns and records their jids, and publishes what
/// the test gives it.
struct StandIn {
    rt: tokio::runtime::Runtime,
    key: KeyPair,
    /// The session key it hands to the minion at auth.
    session: SessionKey,
    publish: tokio::sync::mpsc::UnboundedSender<Vec<u8>>,
    returned: std::sync::Arc<std::sync::Mutex<BTreeSet<String>>>,
}

impl StandIn {
    fn start(conf: &MasterConf, key: KeyPair) -> StandIn {
        let session = SessionKey::generate().expect("session key");
        let auth_session = session.clone();
        let signing_key = key.clone();
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .expect("runtime");
        let limits = Limits::default();
        let (publish, mut queue) = tokio::sync::mpsc::unbounded_channel::<Vec<u8>>();
        let returned = std::sync::Arc::new(std::sync::Mutex::new(BTreeSet::new()));
        let (pub_guarded, router_guarded) = rt.block_on(async {
            let p = transport::bind_pub(conf.publish_addr(), &limits)
                .await
                .expect("bind pub");
            let r = transport::bind_router(conf.ret_addr(), &limits)
                .await
                .expect("bind router");
            (p, r)
        });
        // The guards must live as long as the tasks (an async block would
        // capture only the socket field).
        let (mut pub_sock, pub_guard) = pub_guarded.into_parts();
        let (mut router, router_guard) = router_guarded.into_parts();
        let l = limits.clone();
        rt.spawn(async move {
            let _guard = pub_guard;
            while let Some(frame) = queue.recv().await {
                let _ = transport::send_frame(&mut pub_sock, frame, &l).await;
            }
        });
        let rec = returned.clone();
        rt.spawn(async move {
            let _guard = router_guard;
            let mut minion_x = None;
            let no_request_key = SessionKey::generate().expect("key");
            loop {
                let Ok((peer, frame)) = transport::recv_request(&mut router, &limits).await else {
                    continue;
                };
                let Ok(v) = read_frame::<Request>(&frame, None) else {
                    continue;
                };
                let req = v.msg;
                let body = match &req.msg {
                    RequestBody::Auth(a) => {
                        minion_x = Some(a.keys.x25519);
                        let sealed = brine_protocol::messages::seal_data(
                            &a.keys.x25519,
                            &auth_session,
                            &brine_protocol::messages::aad::session(&a.id, &req.nonce),
                        )
                        .expect("seal session");
                        ReplyBody::Auth(AuthReply {
                            status: AuthStatus::Accepted,
                            master: key.public(),
                            session: Some(sealed),
                            instance: None,
                            request_key: None,
                        })
                    }
                    RequestBody::Pillar(p) => match minion_x {
                        Some(x) => ReplyBody::Pillar(PillarReply {
                            pillar: brine_protocol::messages::seal_data(
                                &x,
                                &Value::new_map(),
                                &brine_protocol::messages::aad::pillar(&p.id, &req.nonce),
                            )
                            .expect("seal"),
                        }),
                        None => ReplyBody::Error(ErrorReply {
                            code: ErrorCode::NotAccepted,
                            message: "auth first".into(),
                        }),
                    },
                    // This master hands out no request keys: requests come
                    // sealed to its key.
                    RequestBody::Sealed(s) => match s.open(&key, &no_request_key, &req.nonce) {
                        Ok(RequestBody::Return(r)) => {
                            rec.lock().expect("lock").insert(r.jid.clone());
                            ReplyBody::ReturnAck
                        }
                        _ => ReplyBody::Error(ErrorReply {
                            code: ErrorCode::BadRequest,
                            message: "unexpected".into(),
                        }),
                    },
                    RequestBody::Return(r) => {
                        rec.lock().expect("lock").insert(r.jid.clone());
                        ReplyBody::ReturnAck
                    }
                    _ => ReplyBody::Error(ErrorReply {
                        code: ErrorCode::BadRequest,
                        message: "unexpected".into(),
                    }),
                };
                if let Ok(f) = sign_frame(&key, &Reply::to(&req, body)) {
                    let _ = transport::send_reply(&mut router, &peer, f, &limits).await;
                }
            }
        });
        StandIn {
            rt,
            key: signing_key,
            session,
            publish,
            returned,
        }
    }

    /// `p` as the stand-in publishes it: under its session key, signed.
    fn frame(&self, p: &Publication) -> Vec<u8> {
        sign_frame(
            &self.key,
            &SealedPublication::seal(&self.session, p).expect("seal"),
        )
        .expect("sign")
    }

    fn returned(&self) -> BTreeSet<String> {
        self.returned.lock().expect("lock").clone()
    }

    fn wait_for(&self, jid: &str, timeout: Duration) -> bool {
        let deadline = Instant::now() + timeout;
        while Instant::now() < deadline {
            if self.returned().contains(jid) {
                return true;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        false
    }
}

fn publication(jid: &str, tgt: &str, created_ms: u64) -> Publication {
    Publication {
        v: PROTOCOL_VERSION,
        jid: jid.into(),
        created_ms,
        nonce: ByteArray::new(crypto::random_nonce().expect("nonce")),
        tgt: tgt.into(),
        tgt_type: "glob".into(),
        fun: "test.ping".into(),
        arg: vec![],
        kwarg: Map::default(),
        secrets: Default::default(),
        user: brine_protocol::messages::root_user(),
    }
}

#[test]
fn forged_replayed_and_stale_publications_are_ignored() {
    let conf = MasterConf::new("");
    let mut master = conf.start();
    conf.write_minion_conf("m1", "");
    let _minion = conf.start_minion(&[]);
    conf.accept_and_ping("m1");

    // Capture a real publication's bytes while the real master runs a job.
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("rt");
    let limits = Limits::default();
    let mut sub = rt.block_on(async {
        let s = transport::connect_sub(conf.publish_addr(), &limits)
            .await
            .expect("sub");
        tokio::time::sleep(Duration::from_millis(300)).await;
        s
    });
    let out = conf.cli("brine", &["--async", "m1", "test.ping"]);
    let real_jid = String::from_utf8_lossy(&out.stdout)
        .trim()
        .strip_prefix("Executed command with job ID: ")
        .expect("a jid")
        .to_string();
    let captured = rt
        .block_on(async {
            tokio::time::timeout(
                Duration::from_secs(5),
                transport::recv_frame(&mut sub.socket, &limits),
            )
            .await
        })
        .expect("a publication")
        .expect("frame");
    // Genuine, and unreadable to a subscriber without the session key.
    let _: SealedPublication = read_frame(&captured, Some(&conf.master_keys().ed25519))
        .expect("genuine")
        .msg;
    assert!(!captured.windows(9).any(|w| w == b"test.ping"));
    drop(sub);
    // The real job's return reaches the real master first (else the
    // minion would resend it to the stand-in, which is not a replay).
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let out = conf.cli(
            "brine-run",
            &["--out", "json", "jobs.lookup_jid", &real_jid],
        );
        if String::from_utf8_lossy(&out.stdout).contains("\"m1\": true") {
            break;
        }
        assert!(Instant::now() < deadline, "the real job never returned");
        std::thread::sleep(Duration::from_millis(100));
    }

    let key = conf.master_private_key();
    master.stop();
    let stand_in = StandIn::start(&conf, key.clone());
    // Wait until the minion listens to the stand-in: probes until one is
    // answered.
    let deadline = Instant::now() + Duration::from_secs(40);
    let mut n = 0;
    loop {
        n += 1;
        let jid = format!("probe{n}");
        let p = publication(&jid, "m1", crypto::now_ms());
        let _ = stand_in.publish.send(stand_in.frame(&p));
        if stand_in.wait_for(&jid, Duration::from_millis(700)) {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the minion never came to the stand-in; log:\n{}",
            conf.minion_log()
        );
    }
    let mallory = KeyPair::generate().expect("keys");
    let frames = [
        // The genuine publication again: a replay.
        captured.clone(),
        // Signed by another key.
        sign_frame(
            &mallory,
            &SealedPublication::seal(
                &stand_in.session,
                &publication("forged", "m1", crypto::now_ms()),
            )
            .expect("seal"),
        )
        .expect("sign"),
        // Genuine key, but ten minutes old.
        stand_in.frame(&publication("stale", "m1", crypto::now_ms() - 600_000)),
        // Genuine, but for someone else.
        stand_in.frame(&publication("elsewhere", "other*", crypto::now_ms())),
        // Garbage.
        b"\x93\x01\x02".to_vec(),
        stand_in.frame(&publication("valid", "m1", crypto::now_ms())),
    ];
    for f in frames {
        let _ = stand_in.publish.send(f);
    }
    assert!(stand_in.wait_for("valid", Duration::from_secs(10)));
    std::thread::sleep(Duration::from_secs(1));
    let got = stand_in.returned();
    for bad in ["forged", "stale", "elsewhere"] {
        assert!(!got.contains(bad), "{bad} ran: {got:?}");
    }
    assert!(
        !got.contains(&real_jid),
        "the replayed publication ran again"
    );
    drop(stand_in.rt);
}
