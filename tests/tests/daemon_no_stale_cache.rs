//! A tree changed between two `state.apply` runs is what the second run
//! uses: the SLS files, the top file and the pillar (Salt's minion daemon
//! compiles a fresh pillar for each state run; only `pillar.get` keeps
//! reading the one in memory until it is refreshed). Rewritten within the
//! same second as the run before, so a cache keyed on whole-second mtimes
//! would miss them; through a real brine-master and brine-minion. The
//! master gives a minion's pillar again while none of its files changed
//! (its pillar replay), and its compiled states likewise (its state
//! replay): a file rewritten after a replay is seen at once.

use brine_tests::daemon::{write_tree, MasterConf};
use serde_json::json;
use std::path::PathBuf;

/// `conf`'s master reads its pillar from `pillar/base` (top: `p`;
/// `p.sls`: `word: one`) and logs at `log_level`. The pillar folder.
fn word_pillar(conf: &MasterConf, log_level: &str) -> PathBuf {
    let pillar = conf.dir.path().join("pillar");
    write_tree(
        &pillar,
        &[
            ("base/top.sls", "base:\n  '*':\n    - p\n"),
            ("base/p.sls", "word: one\n"),
        ],
    );
    let master = conf.conf_dir().join("master");
    let text = std::fs::read_to_string(&master).expect("config");
    let text = text.replace("log_level: info", &format!("log_level: {log_level}"));
    std::fs::write(
        &master,
        format!(
            "{text}pillar_roots:\n  base: [{}]\n",
            pillar.join("base").display()
        ),
    )
    .expect("config");
    pillar
}

/// Minion `m1` (accepted and answering) and the master, stopped in that
/// order when dropped.
fn start(conf: &MasterConf) -> [brine_tests::daemon::MasterProc; 2] {
    let master = conf.start();
    conf.write_minion_conf("m1", "");
    let minion = conf.start_minion(&[]);
    conf.accept_and_ping("m1");
    [minion, master]
}

fn names(ret: &serde_json::Value) -> Vec<String> {
    let mut n: Vec<String> = ret
        .as_object()
        .map(|o| {
            o.values()
                .filter_map(|s| s["name"].as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default();
    n.sort();
    n
}

#[test]
fn a_changed_tree_is_seen_by_the_next_run() {
    let conf = MasterConf::new("");
    let pillar = word_pillar(&conf, "info");
    conf.serve_base_files(&[
        ("top.sls", "base:\n  '*':\n    - web\n"),
        (
            "web.sls",
            "hello:\n  test.succeed_without_changes:\n    - name: \"sls-one {{ pillar['word'] }}\"\n",
        ),
        (
            "extra.sls",
            "more:\n  test.succeed_without_changes:\n    - name: extra\n",
        ),
    ]);
    let _daemons = start(&conf);

    let (first, out) = conf.call("m1", &["state.apply"]);
    assert!(out.status.success(), "{out:?}");
    assert_eq!(names(&first), ["sls-one one"]);

    // Rewritten at once: the same second as the run above.
    let files = conf.dir.path().join("files").join("base");
    write_tree(
        &files,
        &[
            ("top.sls", "base:\n  '*':\n    - web\n    - extra\n"),
            (
                "web.sls",
                "hello:\n  test.succeed_without_changes:\n    - name: \"sls-two {{ pillar['word'] }}\"\n",
            ),
        ],
    );
    write_tree(&pillar, &[("base/p.sls", "word: two\n")]);
    let (second, out) = conf.call("m1", &["state.apply"]);
    assert!(out.status.success(), "{out:?}");
    assert_eq!(names(&second), ["extra", "sls-two two"]);
    // The pillar in memory stays until refreshed, as Salt's does.
    assert_eq!(conf.call("m1", &["pillar.get", "word"]).0, json!("one"));
    assert_eq!(conf.call("m1", &["saltutil.refresh_pillar"]).0, json!(true));
    assert_eq!(conf.call("m1", &["pillar.get", "word"]).0, json!("two"));
}

#[test]
fn a_replayed_pillar_gives_way_to_a_file_rewritten_at_once() {
    let conf = MasterConf::new("");
    let written = std::time::Instant::now();
    let pillar = word_pillar(&conf, "debug");
    conf.serve_base_files(&[
        ("top.sls", "base:\n  '*':\n    - web\n"),
        (
            "web.sls",
            "hello:\n  test.succeed_without_changes:\n    - name: \"word {{ pillar['word'] }}\"\n",
        ),
    ]);
    let _daemons = start(&conf);
    // Files changed under two seconds before a compile are read again
    // every time (a same-tick rewrite would not show); past that, the
    // master records what the compile read and replays it.
    // (`brine_compile::inputs::SETTLED`, and a margin).
    let settled = std::time::Duration::from_millis(2300);
    std::thread::sleep(settled.saturating_sub(written.elapsed()));
    let replays = || {
        conf.log()
            .matches("the pillar of m1 is given again")
            .count()
    };

    for _ in 0..2 {
        let (ret, out) = conf.call("m1", &["state.apply"]);
        assert!(out.status.success(), "{out:?}");
        assert_eq!(names(&ret), ["word one"]);
    }
    let before = replays();
    assert!(
        before >= 1,
        "the second run was not replayed:\n{}",
        conf.log()
    );
    // The compiled states too (the master's state replay).
    let states_sent = || {
        conf.log()
            .matches("the compiled states of m1 are sent again")
            .count()
    };
    let sent = states_sent();
    assert_eq!(sent, 1, "{}", conf.log());

    // Same size, at once: only the stamps tell.
    write_tree(&pillar, &[("base/p.sls", "word: two\n")]);
    let (ret, out) = conf.call("m1", &["state.apply"]);
    assert!(out.status.success(), "{out:?}");
    assert_eq!(names(&ret), ["word two"]);
    assert_eq!(replays(), before, "{}", conf.log());
    assert_eq!(states_sent(), sent, "{}", conf.log());

    // An SLS, same size, at once.
    let files = conf.dir.path().join("files").join("base");
    write_tree(
        &files,
        &[(
            "web.sls",
            "hello:\n  test.succeed_without_changes:\n    - name: \"WORD {{ pillar['word'] }}\"\n",
        )],
    );
    let (ret, out) = conf.call("m1", &["state.apply"]);
    assert!(out.status.success(), "{out:?}");
    assert_eq!(names(&ret), ["WORD two"]);
    assert_eq!(states_sent(), sent, "{}", conf.log());
}
