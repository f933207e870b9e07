//! A storm of compiles does not hold the master up: with two workers (one
//! for compiles, one kept for the rest), 30 minions asking for a slow
//! pillar at once are all answered in turn, while an authentication and a
//! job return sent meanwhile are answered at once (they wait in the quick
//! lane, not behind the compiles); and requests
//! whose senders stopped waiting are not compiled at all — a real
//! `brine-master` on 127.0.0.1.

use brine_protocol::messages::{AuthStatus, ErrorCode};
use brine_tests::daemon::{write_tree, MasterConf, ScriptedMinion};
use serde_json::json;
use std::sync::{Arc, Barrier};
use std::time::{Duration, Instant};

const STORM: usize = 30;

#[test]
fn quick_requests_pass_a_compile_storm_and_expired_compiles_are_skipped() {
    let pr = tempfile::tempdir().expect("tempdir");
    // Slow on purpose: about a tenth of a second of Jinja per compile.
    write_tree(
        pr.path(),
        &[
            ("top.sls", "base:\n  '*':\n    - slow\n"),
            (
                "slow.sls",
                "{% set n = namespace(c=0) %}\
                 {% for i in range(250) %}{% for j in range(250) %}\
                 {% set n.c = n.c + 1 %}{% endfor %}{% endfor %}\
                 owner: {{ grains['id'] }}\ncount: {{ n.c }}\n",
            ),
        ],
    );
    let conf = MasterConf::new(&format!(
        "auto_accept: True\nworker_threads: 2\npillar_roots:\n  base: [{}]\n",
        pr.path().display()
    ));
    let _master = conf.start();

    // One minion that answers a job during the storm.
    let quick = ScriptedMinion::new("quick", &conf, json!({}));
    assert_eq!(quick.auth(), AuthStatus::Accepted);
    let one = Instant::now();
    let p = quick.pillar_of("quick", None).expect("a pillar");
    let compile = one.elapsed();
    assert_eq!(p.get("count"), Some(&brine_core::Value::Int(62_500)));
    let mut sub = quick.subscribe(conf.publish_addr());
    let cli = conf.spawn_cli(
        "brine",
        &["--out", "json", "-t", "60", "quick", "test.ping"],
    );
    let (publication, _) = sub.next(Duration::from_secs(20)).expect("publication");

    let storm: Vec<ScriptedMinion> = (0..STORM)
        .map(|n| ScriptedMinion::new(&format!("storm-{n:02}"), &conf, json!({})))
        .collect();
    for m in &storm {
        assert_eq!(m.auth(), AuthStatus::Accepted);
    }
    // Every other asker waits only two compiles long: by its turn in the
    // queue it has given up, and the master must not compile for it.
    let start = Arc::new(Barrier::new(STORM + 1));
    let began = Instant::now();
    let askers: Vec<_> = storm
        .into_iter()
        .enumerate()
        .map(|(n, m)| {
            let start = Arc::clone(&start);
            let wait = if n % 2 == 0 {
                Duration::from_secs(120)
            } else {
                compile * 2
            };
            std::thread::spawn(move || {
                start.wait();
                let got = m.pillar_waiting(wait);
                if let Ok(p) = &got {
                    assert_eq!(
                        p.get("owner"),
                        Some(&brine_core::Value::from(m.id.as_str()))
                    );
                }
                (n, got.map(drop))
            })
        })
        .collect();
    start.wait();
    // The storm is queued (about 15 compiles, `compile` each, ahead).
    std::thread::sleep(Duration::from_millis(300));
    let sent = Instant::now();
    quick
        .send_return(&publication.jid, "test.ping", brine_core::Value::Bool(true))
        .expect("return acked");
    let acked = sent.elapsed();
    let newcomer = ScriptedMinion::new("newcomer", &conf, json!({}));
    let sent = Instant::now();
    assert_eq!(newcomer.auth(), AuthStatus::Accepted);
    let authed = sent.elapsed();
    let out = cli.wait_with_output().expect("brine");
    assert!(out.status.success(), "{out:?}");

    let answers: Vec<(usize, Result<(), ErrorCode>)> = askers
        .into_iter()
        .map(|t| t.join().expect("asker"))
        .collect();
    let storm_took = began.elapsed();
    let compiled = answers.iter().filter(|(_, a)| a.is_ok()).count();
    let expired = answers
        .iter()
        .filter(|(_, a)| *a == Err(ErrorCode::Expired))
        .count();
    eprintln!(
        "one compile {compile:?}; storm of {STORM}: {compiled} compiled, {expired} expired \
         unhandled, in {storm_took:?}; during it a return was acked in {acked:?}, an auth \
         answered in {authed:?}"
    );
    for (n, a) in &answers {
        if n % 2 == 0 {
            assert_eq!(*a, Ok(()), "storm-{n:02} waited long enough for its pillar");
        } else {
            assert!(
                matches!(a, Ok(()) | Err(ErrorCode::Expired)),
                "storm-{n:02}: {a:?}"
            );
        }
    }
    // Those that gave up were (nearly all) skipped, not compiled: the
    // first few may have had their turn within two compiles.
    assert!(
        expired >= STORM / 2 - 4,
        "only {expired} of {} impatient askers skipped",
        STORM / 2
    );
    // Neither waited behind the queued compiles (at least ten of them,
    // each `compile` long, were still in hand).
    assert!(
        acked < compile * 4,
        "a return waited {acked:?} behind compiles of {compile:?} each"
    );
    assert!(
        authed < compile * 4,
        "an auth waited {authed:?} behind compiles of {compile:?} each"
    );
}
