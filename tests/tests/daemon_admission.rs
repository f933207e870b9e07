//! A storm of compiles does not hold the master: with one worker, 40
//! minions asking for a slow pillar at once get it or are told Busy (no
//! other error, no hang), and a return sent meanwhile is acked while the
//! compiles are still queued — a real `brine-master` on 127.0.0.1.

use brine_protocol::messages::{AuthStatus, ErrorCode};
use brine_tests::daemon::{write_tree, MasterConf, ScriptedMinion};
use serde_json::json;
use std::sync::{Arc, Barrier};
use std::time::{Duration, Instant};

const STORM: usize = 40;

#[test]
fn a_compile_storm_is_admitted_in_turn_and_returns_go_past_it() {
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
        "auto_accept: True\nworker_threads: 1\npillar_roots:\n  base: [{}]\n",
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
    let start = Arc::new(Barrier::new(STORM + 1));
    let askers: Vec<_> = storm
        .into_iter()
        .map(|m| {
            let start = Arc::clone(&start);
            std::thread::spawn(move || {
                start.wait();
                let got = m.pillar_of(&m.id, None);
                if let Ok(p) = &got {
                    assert_eq!(
                        p.get("owner"),
                        Some(&brine_core::Value::from(m.id.as_str()))
                    );
                }
                got.map(drop)
            })
        })
        .collect();
    start.wait();
    // The storm is queued: its 33 admitted compiles take 33 × `compile`.
    std::thread::sleep(Duration::from_millis(300));
    let sent = Instant::now();
    quick
        .send_return(&publication.jid, "test.ping", brine_core::Value::Bool(true))
        .expect("return acked");
    let acked = sent.elapsed();
    let out = cli.wait_with_output().expect("brine");
    assert!(out.status.success(), "{out:?}");

    let answers: Vec<Result<(), ErrorCode>> = askers
        .into_iter()
        .map(|t| t.join().expect("asker"))
        .collect();
    let ok = answers.iter().filter(|a| a.is_ok()).count();
    let busy = answers
        .iter()
        .filter(|a| **a == Err(ErrorCode::Busy))
        .count();
    eprintln!(
        "one compile {compile:?}; storm of {STORM}: {ok} compiled, {busy} told Busy; \
         a return during it acked in {acked:?}"
    );
    assert_eq!(ok + busy, STORM, "only pillars and Busy: {answers:?}");
    assert!(
        busy > 0,
        "more compiles than the master takes in were all admitted"
    );
    assert!(ok > 1, "the admitted compiles were answered");
    // The return did not wait behind the queued compiles (at least ten of
    // them, each `compile` long, were still in hand).
    assert!(
        acked < compile * 5,
        "a return waited {acked:?} behind compiles of {compile:?} each"
    );
}
