//! Round trips, limits and refusals of every message.

use super::wire::from_slice;
use super::*;
use crate::crypto::{self, CryptoError, KeyPair};
use brine_core::{Map, Value};
use indexmap::IndexMap;
use serde::Serialize;
use serde_bytes::ByteArray;

fn sample_requests() -> Vec<RequestBody> {
    let kp = KeyPair::generate().unwrap();
    let mut grains = Map::default();
    grains.insert("os".into(), "Debian".into());
    let mut kwarg = Map::default();
    kwarg.insert("test".into(), Value::Bool(true));
    vec![
        RequestBody::Auth(AuthRequest {
            id: "web1".into(),
            keys: kp.public(),
            grains: PackedValue::pack(&Value::Map(grains)).unwrap(),
            pillarenv: Some("dev".into()),
        }),
        RequestBody::Pillar(PillarRequest {
            id: "web1".into(),
            pillarenv: Some("dev".into()),
            saltenv: None,
            pillar_override: Value::Null,
        }),
        RequestBody::File(FileRequest {
            id: "web1".into(),
            saltenv: "base".into(),
            path: "top.sls".into(),
            query: FileQuery::Read {
                offset: 0,
                len: DEFAULT_FILE_CHUNK,
            },
        }),
        RequestBody::File(FileRequest {
            id: "web1".into(),
            saltenv: "base".into(),
            path: "".into(),
            query: FileQuery::List,
        }),
        RequestBody::Return(JobReturn {
            jid: "20240101000000000000".into(),
            id: "web1".into(),
            fun: "test.ping".into(),
            fun_args: vec![],
            ret: PackedValue::pack(&Value::Bool(true)).unwrap(),
            retcode: 0,
            success: true,
            out: None,
            schedule: None,
            called: false,
            user: None,
        }),
        RequestBody::Publish(CliPublish {
            token: "t".into(),
            tgt: "*".into(),
            tgt_type: "glob".into(),
            fun: "state.apply".into(),
            arg: vec!["web".into()],
            kwarg,
            timeout: 5,
            user: None,
        }),
        RequestBody::GetReturns(GetReturns {
            token: "t".into(),
            user: None,
            jid: "1".into(),
            after: 0,
            wait_ms: 0,
        }),
        RequestBody::CompileStates(sample_compile()),
        RequestBody::HieraLookup(HieraLookup {
            id: "web1".into(),
            key: "ntp::servers".into(),
            merge: "unique".into(),
            pillarenv: None,
            pillar: Map::default(),
        }),
    ]
}

fn sample_compile() -> CompileStates {
    let mut pillar = Map::default();
    pillar.insert("secret".into(), "hunter2".into());
    CompileStates {
        id: "web1".into(),
        mods: Some(vec!["web".into(), "db".into()]),
        saltenv: Some("base".into()),
        pillarenv: None,
        exclude: Value::Null,
        test: true,
        opts: Map::default(),
        pillar,
        stage: CompileStage::Run,
        fresh_pillar: None,
    }
}

#[test]
fn sealed_requests_open_only_for_the_master_id_and_nonce() {
    let master = KeyPair::generate().unwrap();
    let other = KeyPair::generate().unwrap();
    let minion = KeyPair::generate().unwrap();
    let keys = crypto::RequestKeys::generate().unwrap();
    let web1_key = keys.for_minion("web1", &minion.public().ed25519);
    // Another master's key, another minion's, the same minion's under
    // another id: none opens it.
    let others_key = crypto::RequestKeys::generate()
        .unwrap()
        .for_minion("web1", &minion.public().ed25519);
    let web2_key = keys.for_minion("web2", &minion.public().ed25519);
    let other_minion = keys.for_minion("web1", &other.public().ed25519);
    assert_eq!(web1_key, keys.for_minion("web1", &minion.public().ed25519));
    let body = RequestBody::CompileStates(sample_compile());
    for req in [
        Request::sealed(&master.public().x25519, "web1", &body).unwrap(),
        Request::sealed_with_key(&web1_key, "web1", &body).unwrap(),
    ] {
        let keyed = matches!(&req.msg, RequestBody::Sealed(s)
            if matches!(s.body, SealedBody::Keyed(_)));
        let frame = sign_frame(&minion, &req).unwrap();
        // The secret does not travel in clear.
        assert!(!frame.windows(7).any(|w| w == b"hunter2"));
        let got: Verified<Request> = read_frame(&frame, None).unwrap();
        let RequestBody::Sealed(sealed) = &got.msg.msg else {
            panic!("not sealed")
        };
        assert_eq!(sealed.id, "web1");
        let nonce = &got.msg.nonce;
        assert_eq!(sealed.open(&master, &web1_key, nonce).unwrap(), body);
        if keyed {
            for wrong in [&others_key, &web2_key, &other_minion] {
                assert!(sealed.open(&master, wrong, nonce).is_err());
            }
        } else {
            assert!(sealed.open(&other, &web1_key, nonce).is_err());
        }
        assert!(sealed.open(&master, &web1_key, &[0; 16]).is_err());
        let renamed = SealedRequest {
            id: "web2".into(),
            body: sealed.body.clone(),
            lane: sealed.lane,
        };
        assert!(renamed.open(&master, &web1_key, nonce).is_err());
    }
}

#[test]
fn the_lane_is_read_from_the_frame_as_the_body_says() {
    let master = KeyPair::generate().unwrap();
    let minion = KeyPair::generate().unwrap();
    let mut compiles = 0;
    for body in sample_requests() {
        let want = body.lane();
        compiles += usize::from(want == Lane::Compile);
        let plain = sign_frame(&minion, &Request::new(body.clone()).unwrap()).unwrap();
        assert_eq!(peek_lane(&plain), want, "{body:?}");
        let sealed = Request::sealed(&master.public().x25519, "web1", &body).unwrap();
        assert_eq!(sealed.msg.lane(), want);
        assert_eq!(peek_lane(&sign_frame(&minion, &sealed).unwrap()), want);
    }
    assert_eq!(compiles, 3, "pillar, state compiles and Hiera lookups");
    // A sealed body that does not say its lane waits with the compiles.
    let mut quiet =
        Request::sealed(&master.public().x25519, "web1", &sample_requests()[4]).unwrap();
    assert_eq!(quiet.msg.lane(), Lane::Quick, "a return");
    let RequestBody::Sealed(s) = &mut quiet.msg else {
        panic!("not sealed")
    };
    #[derive(Serialize)]
    struct Before<'a> {
        id: &'a str,
        body: &'a SealedBody,
    }
    let before = rmp_serde::to_vec_named(&Before {
        id: &s.id,
        body: &s.body,
    })
    .unwrap();
    let old: SealedRequest = from_slice("test", &before).unwrap();
    assert_eq!(old.lane, Lane::Compile);
    s.lane = Lane::Compile;
    assert_eq!(
        peek_lane(&sign_frame(&minion, &quiet).unwrap()),
        Lane::Compile
    );
    // Anything that does not decode is for the quick lane's full decode
    // to drop.
    for junk in [
        &b""[..],
        b"\x93\x01\x02",
        &[0xc1; 64],
        b"\xdf\xff\xff\xff\xff",
    ] {
        assert_eq!(peek_lane(junk), Lane::Quick);
    }
}

#[test]
fn a_request_expires_after_the_wait_its_sender_said() {
    let mut req = Request::new(RequestBody::GetReturns(GetReturns {
        token: "t".into(),
        user: None,
        jid: "1".into(),
        after: 0,
        wait_ms: 0,
    }))
    .unwrap();
    req.created_ms = 1_000;
    assert!(!req.expired(u64::MAX), "no wait said: never expires");
    let req = req.waiting(std::time::Duration::from_secs(30));
    assert_eq!(req.wait_ms, 30_000);
    assert!(!req.expired(31_000));
    assert!(req.expired(31_001));
    // Said on the wire, and absent from an older sender's requests.
    let frame = sign_frame(&KeyPair::generate().unwrap(), &req).unwrap();
    let got: Verified<Request> = read_frame(&frame, None).unwrap();
    assert_eq!(got.msg.wait_ms, 30_000);
}

#[test]
fn compile_requests_without_a_stage_are_runs() {
    // The body as a peer that predates `stage` sends it.
    #[derive(Serialize)]
    struct Before {
        id: String,
        mods: Option<Vec<String>>,
        saltenv: Option<String>,
        pillarenv: Option<String>,
        exclude: Value,
        test: bool,
        opts: Map,
        pillar: Map,
    }
    let bytes = rmp_serde::to_vec_named(&Before {
        id: "web1".into(),
        mods: None,
        saltenv: None,
        pillarenv: None,
        exclude: Value::Null,
        test: false,
        opts: Map::default(),
        pillar: Map::default(),
    })
    .unwrap();
    let c: CompileStates = from_slice("test", &bytes).unwrap();
    assert_eq!(c.stage, CompileStage::Run);
    assert_eq!(c.id, "web1");
}

#[test]
fn state_replies_round_trip_sealed() {
    let master = KeyPair::generate().unwrap();
    let minion = KeyPair::generate().unwrap();
    let req = Request::new(RequestBody::CompileStates(sample_compile())).unwrap();
    let mut chunk = Map::default();
    chunk.insert("state".into(), "test".into());
    for compiled in [
        CompiledStates::Chunks {
            chunks: vec![chunk.clone()],
            high: Map::default(),
        },
        CompiledStates::Errors {
            errors: vec!["Rendering SLS 'base:x' failed".into()],
            retcode: 1,
        },
        CompiledStates::Answer {
            ret: Value::Map(chunk.clone()),
            retcode: 2,
        },
        CompiledStates::Rendered {
            high: chunk.clone(),
            errors: vec![],
        },
        CompiledStates::Top {
            top: Map::default(),
            errors: vec!["x".into()],
        },
    ] {
        let sealed = seal_data(
            &minion.public().x25519,
            &compiled,
            &aad::states("web1", &req.nonce),
        )
        .unwrap();
        let reply = Reply::to(
            &req,
            ReplyBody::States(StateReply {
                compiled: sealed,
                pillar: None,
            }),
        );
        let frame = sign_frame(&master, &reply).unwrap();
        let got: Verified<Reply> = read_frame(&frame, Some(&master.public().ed25519)).unwrap();
        let ReplyBody::States(s) = got.msg.msg else {
            panic!("not a state reply")
        };
        let opened: CompiledStates =
            open_data(&minion, &s.compiled, &aad::states("web1", &req.nonce)).unwrap();
        assert_eq!(opened, compiled);
    }
}

#[test]
fn every_request_round_trips_through_a_signed_frame() {
    let kp = KeyPair::generate().unwrap();
    for body in sample_requests() {
        let req = Request::new(body).unwrap();
        let frame = sign_frame(&kp, &req).unwrap();
        let got: Verified<Request> = read_frame(&frame, None).unwrap();
        assert_eq!(got.msg, req);
        assert_eq!(got.signer, *kp.public().ed25519);
        let by_key: Verified<Request> = read_frame(&frame, Some(&kp.public().ed25519)).unwrap();
        assert_eq!(by_key.msg, req);
    }
}

#[test]
fn a_known_signers_frames_verify_with_its_kept_key_and_forgeries_still_fail() {
    let (master, other) = (KeyPair::generate().unwrap(), KeyPair::generate().unwrap());
    let req = Request::new(sample_requests().remove(0)).unwrap();
    let known = crypto::Verifiers::with_max(4);
    // The master's view: only what it was told to keep is kept.
    let frame = sign_frame(&master, &req).unwrap();
    let got: Verified<Request> = read_frame_known(&frame, &known).unwrap();
    assert_eq!((got.msg, known.len()), (req.clone(), 0));
    // A link's: the first verified frame teaches it the signer's key.
    let _: Verified<Request> = read_frame_learning(&frame, &known).unwrap();
    assert_eq!(known.len(), 1);
    let again: Verified<Request> = read_frame_known(&frame, &known).unwrap();
    assert_eq!(again.signer, *master.public().ed25519);
    // A frame claiming the known signer but signed by another key fails.
    let mut forged: crypto::Signed =
        from_slice("signed frame", &sign_frame(&other, &req).unwrap()).unwrap();
    forged.signer = master.public().ed25519;
    let bytes = rmp_serde::to_vec_named(&forged).unwrap();
    assert!(matches!(
        read_frame_known::<Request>(&bytes, &known),
        Err(WireError::Crypto(CryptoError::BadSignature { .. }))
    ));
    // A frame that fails is not learned from.
    let mut bad: crypto::Signed =
        from_slice("signed frame", &sign_frame(&other, &req).unwrap()).unwrap();
    bad.signature[0] ^= 1;
    let bytes = rmp_serde::to_vec_named(&bad).unwrap();
    assert!(read_frame_learning::<Request>(&bytes, &known).is_err());
    assert_eq!(known.len(), 1);
}

#[test]
fn wire_shape_is_named_maps_with_type_tags() {
    let req = Request::new(RequestBody::GetReturns(GetReturns {
        token: "tok".into(),
        user: None,
        jid: "123".into(),
        after: 0,
        wait_ms: 0,
    }))
    .unwrap();
    let bytes = encode(&req).unwrap();
    // Decode as a generic value to see the map shape other tools see.
    let v: Value = rmp_serde::from_slice(&bytes).unwrap();
    assert_eq!(v.get("v"), Some(&Value::Int(1)));
    let msg = v.get("msg").unwrap();
    assert_eq!(msg.get("type"), Some(&Value::Str("get_returns".into())));
    assert_eq!(
        msg.get("body").and_then(|b| b.get("jid")),
        Some(&Value::Str("123".into()))
    );
}

#[test]
fn replies_and_publications_round_trip() {
    let master = KeyPair::generate().unwrap();
    let minion = KeyPair::generate().unwrap();
    let req = Request::new(RequestBody::Pillar(PillarRequest {
        id: "web1".into(),
        pillarenv: None,
        saltenv: None,
        pillar_override: Value::Null,
    }))
    .unwrap();
    let mut pillar = Map::default();
    pillar.insert("secret".into(), "hunter2".into());
    let sealed = seal_data(
        &minion.public().x25519,
        &Value::Map(pillar.clone()),
        &aad::pillar("web1", &req.nonce),
    )
    .unwrap();
    let reply = Reply::to(&req, ReplyBody::Pillar(PillarReply { pillar: sealed }));
    let frame = sign_frame(&master, &reply).unwrap();
    let got: Verified<Reply> = read_frame(&frame, Some(&master.public().ed25519)).unwrap();
    assert_eq!(got.msg.in_reply_to, req.nonce);
    let ReplyBody::Pillar(p) = got.msg.msg else {
        panic!("not a pillar reply")
    };
    let opened: Value = open_data(&minion, &p.pillar, &aad::pillar("web1", &req.nonce)).unwrap();
    assert_eq!(opened, Value::Map(pillar));
    // Same blob presented as another minion's, or for another request:
    assert!(open_data::<Value>(&minion, &p.pillar, &aad::pillar("web2", &req.nonce)).is_err());
    assert!(open_data::<Value>(&minion, &p.pillar, &aad::pillar("web1", &[0; 16])).is_err());

    for body in [
        ReplyBody::ReturnAck,
        ReplyBody::Error(ErrorReply {
            code: ErrorCode::NotAccepted,
            message: "pending".into(),
        }),
        ReplyBody::File(FileReply::NotFound),
        ReplyBody::Auth(AuthReply {
            status: AuthStatus::Pending,
            master: master.public(),
            session: None,
            instance: None,
            request_key: None,
        }),
    ] {
        let r = Reply::to(&req, body);
        assert_eq!(decode::<Reply>(&encode(&r).unwrap()).unwrap(), r);
    }

    let mut secrets = IndexMap::new();
    secrets.insert(
        "web1".into(),
        seal_data(
            &minion.public().x25519,
            &Value::from("x"),
            &aad::publication_secret("j1", "web1"),
        )
        .unwrap(),
    );
    let publication = Publication {
        v: PROTOCOL_VERSION,
        jid: "j1".into(),
        created_ms: 1,
        nonce: ByteArray::new([7; 16]),
        tgt: "web*".into(),
        tgt_type: "glob".into(),
        fun: "test.ping".into(),
        arg: vec![],
        kwarg: Map::default(),
        secrets,
        user: root_user(),
    };
    let frame = sign_frame(&master, &publication).unwrap();
    let got: Verified<Publication> = read_frame(&frame, Some(&master.public().ed25519)).unwrap();
    assert_eq!(got.msg, publication);
}

#[test]
fn frame_signed_by_someone_else_is_refused() {
    let master = KeyPair::generate().unwrap();
    let mallory = KeyPair::generate().unwrap();
    let req = Request::new(RequestBody::GetReturns(GetReturns {
        token: "t".into(),
        user: None,
        jid: "1".into(),
        after: 0,
        wait_ms: 0,
    }))
    .unwrap();
    let frame = sign_frame(&mallory, &req).unwrap();
    let err = read_frame::<Request>(&frame, Some(&master.public().ed25519)).unwrap_err();
    assert!(matches!(
        err,
        WireError::Crypto(CryptoError::WrongSigner { .. })
    ));
}

#[test]
fn unknown_type_and_other_version_are_errors() {
    #[derive(Serialize)]
    struct Body {
        id: String,
    }
    #[derive(Serialize)]
    struct Tagged {
        #[serde(rename = "type")]
        ty: String,
        body: Body,
    }
    #[derive(Serialize)]
    struct Fake {
        v: u32,
        created_ms: u64,
        nonce: ByteArray<16>,
        msg: Tagged,
    }
    let fake = |v: u32, ty: &str| {
        rmp_serde::to_vec_named(&Fake {
            v,
            created_ms: 0,
            nonce: ByteArray::new([0; 16]),
            msg: Tagged {
                ty: ty.into(),
                body: Body { id: "x".into() },
            },
        })
        .unwrap()
    };
    let err = decode::<Request>(&fake(1, "launch_missiles")).unwrap_err();
    assert!(err.to_string().contains("unknown variant"), "{err}");
    let err = decode::<Request>(&fake(2, "auth")).unwrap_err();
    assert!(
        matches!(
            err,
            WireError::Version {
                got: 2,
                supported: 1,
                ..
            }
        ),
        "{err}"
    );
    // Right type, wrong body shape.
    let err = decode::<Request>(&fake(1, "auth")).unwrap_err();
    assert!(matches!(err, WireError::Decode { .. }), "{err}");
}

#[test]
fn oversized_messages_are_refused_both_ways() {
    let big = PackedValue::text(&"x".repeat(MAX_MESSAGE_BYTES));
    let req = Request::new(RequestBody::Return(JobReturn {
        jid: "1".into(),
        id: "web1".into(),
        fun: "test.echo".into(),
        fun_args: vec![],
        ret: big,
        retcode: 0,
        success: true,
        out: None,
        schedule: None,
        called: false,
        user: None,
    }))
    .unwrap();
    assert!(matches!(encode(&req), Err(WireError::TooLarge { .. })));
    let bytes = vec![0u8; MAX_MESSAGE_BYTES + 1];
    assert!(matches!(
        decode::<Request>(&bytes),
        Err(WireError::TooLarge { .. })
    ));
    assert!(matches!(
        read_frame::<Request>(&bytes, None),
        Err(WireError::TooLarge { .. })
    ));
}

#[test]
fn deep_nesting_is_an_error_not_a_stack_overflow() {
    // 100 000 nested one-element arrays: 0x91 ... 0xc0.
    let mut bytes = vec![0x91u8; 100_000];
    bytes.push(0xc0);
    let err = from_slice::<Value>("test", &bytes).unwrap_err();
    assert!(err.to_string().contains("depth"), "{err}");
    // Reasonable nesting is fine.
    let mut ok = vec![0x91u8; 200];
    ok.push(0xc0);
    assert!(from_slice::<Value>("test", &ok).is_ok());
}

/// Small deterministic PRNG so the fuzz tests need no extra crate and
/// failures reproduce.
struct XorShift(u64);
impl XorShift {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn byte(&mut self) -> u8 {
        (self.next() >> 24) as u8
    }
}

#[test]
fn random_bytes_never_panic() {
    let mut rng = XorShift(0x9e37_79b9_7f4a_7c15);
    for _ in 0..20_000 {
        let len = (rng.next() % 300) as usize;
        let bytes: Vec<u8> = (0..len).map(|_| rng.byte()).collect();
        let _ = decode::<Request>(&bytes);
        let _ = decode::<Reply>(&bytes);
        let _ = decode::<Publication>(&bytes);
        let _ = read_frame::<Request>(&bytes, None);
        let _ = peek_lane(&bytes);
    }
}

#[test]
fn mutated_valid_frames_never_panic_or_verify() {
    let kp = KeyPair::generate().unwrap();
    let mut rng = XorShift(42);
    let frames: Vec<Vec<u8>> = sample_requests()
        .into_iter()
        .map(|b| sign_frame(&kp, &Request::new(b).unwrap()).unwrap())
        .collect();
    for frame in &frames {
        // Signature checks are slow in debug builds; a few hundred
        // mutations per frame cover bit flips, truncations and
        // insertions in every field.
        for _ in 0..150 {
            let mut f = frame.clone();
            match rng.next() % 3 {
                0 => {
                    let i = (rng.next() as usize) % f.len();
                    f[i] ^= 1 << (rng.next() % 8);
                }
                1 => f.truncate((rng.next() as usize) % f.len()),
                _ => {
                    let i = (rng.next() as usize) % f.len();
                    f.insert(i, rng.byte());
                }
            }
            if f == *frame {
                continue;
            }
            let _ = peek_lane(&f);
            // Some changes keep the meaning (e.g. a msgpack integer
            // re-encoded); none may verify as a *different* message.
            if let Ok(v) = read_frame::<Request>(&f, None) {
                let orig: Verified<Request> = read_frame(frame, None).unwrap();
                assert_eq!(v.msg, orig.msg);
            }
        }
    }
}

#[test]
fn random_payloads_inside_valid_signatures_never_panic() {
    // A signed frame whose payload is garbage: the signature is good,
    // the payload decoding must fail cleanly.
    let kp = KeyPair::generate().unwrap();
    let mut rng = XorShift(7);
    for _ in 0..300 {
        let len = (rng.next() % 200) as usize;
        let payload: Vec<u8> = (0..len).map(|_| rng.byte()).collect();
        let frame = rmp_serde::to_vec_named(&kp.sign(payload)).unwrap();
        let _ = read_frame::<Request>(&frame, None);
        let _ = read_frame::<Publication>(&frame, Some(&kp.public().ed25519));
    }
}
