//! Batch mode (`brine -b`) against a real brine-master and a swarm of real
//! brine-minions on 127.0.0.1: never more than N minions run at once
//! (checked from the start times the minions report), each batch printed
//! as Salt 3007.8 prints it (`tests/recorded/cli/batch.salt.json`), the
//! exit code the highest retcode, `--failhard` stopping at the first
//! failure, and a minion that does not answer the ping given no job.

use brine_tests::daemon::{json_docs, MasterConf};
use std::process::Output;
use std::time::{Duration, Instant};

const MINIONS: usize = 5;

fn salt_record(label: &str) -> serde_json::Value {
    let all: serde_json::Value =
        serde_json::from_str(include_str!("../recorded/cli/batch.salt.json"))
            .expect("batch.salt.json");
    all.as_array()
        .and_then(|a| a.iter().find(|r| r["label"] == label))
        .cloned()
        .unwrap_or_else(|| panic!("no record {label}"))
}

/// Ids and jids masked, so Salt's web1 and brine's web-0003 read alike.
fn mask(text: &str) -> String {
    let ids = regex::Regex::new(r"web-?\d+").expect("regex");
    mask_jids(&ids.replace_all(text, "ID"))
}

fn mask_jids(text: &str) -> String {
    regex::Regex::new(r"\d{20}")
        .expect("regex")
        .replace_all(text, "JID")
        .into_owned()
}

/// The blocks after each "Executing run on", masked.
fn blocks(stdout: &str) -> Vec<String> {
    mask(stdout)
        .split("\nExecuting run on ")
        .skip(1)
        .map(str::to_string)
        .collect()
}

fn text(o: &Output) -> (String, String) {
    (
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

/// Start times reported by each minion's `date`, from the JSON documents.
fn starts(o: &Output) -> Vec<f64> {
    // The documents, without the "Executing run on" lines between them.
    let json: String = String::from_utf8_lossy(&o.stdout)
        .lines()
        .filter(|l| !l.starts_with("Executing run on"))
        .collect::<Vec<_>>()
        .join("\n");
    let mut docs = serde_json::Deserializer::from_str(&json).into_iter::<serde_json::Value>();
    let mut out = Vec::new();
    for doc in &mut docs {
        let doc = doc.expect("json doc");
        for (k, v) in doc.as_object().expect("object") {
            if k.starts_with("web-") {
                out.push(
                    v.as_str()
                        .expect("date output")
                        .trim()
                        .parse()
                        .expect("seconds"),
                );
            }
        }
    }
    out.sort_by(|a: &f64, b| a.total_cmp(b));
    out
}

#[test]
fn batches_run_at_most_n_minions_and_print_as_salt() {
    let conf = MasterConf::new("auto_accept: True\ntimeout: 10\ngather_job_timeout: 3\n");
    // The state tree of the recording (../shared/conformance/cli/cli-tree),
    // its pillar's `tier` given as the default.
    conf.serve_base_files(&[
        ("top.sls", "base:\n  '*':\n    - web\n"),
        (
            "web.sls",
            "hello:\n  test.succeed_with_changes: []\n\nquiet:\n  test.succeed_without_changes:\n    \
             - require:\n      - test: hello\n\ntier:\n  test.succeed_without_changes:\n    \
             - name: tier={{ pillar.get('tier', 'base') }}\n",
        ),
    ]);
    let _master = conf.start();
    conf.add_down_minion("db1");
    conf.write_minion_conf("web", "");
    let _swarm = conf.start_minion(&["--swarm", &MINIONS.to_string()]);
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let out = conf.cli("brine", &["--out", "json", "-t", "5", "web-*", "test.ping"]);
        let seen = json_docs(&out.stdout)
            .ok()
            .and_then(|j| j.as_object().map(|o| o.len()));
        if seen == Some(MINIONS) {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "swarm never answered: {}",
            conf.log()
        );
        std::thread::sleep(Duration::from_millis(300));
    }

    // Each batch's block reads as Salt's.
    let out = conf.cli("brine", &["-b", "1", "web-*", "test.ping"]);
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "{stdout}{stderr}");
    let salt = salt_record("b1-ping");
    let salt_blocks = blocks(salt["stdout"].as_str().expect("stdout"));
    let ours = blocks(&stdout);
    assert_eq!(ours.len(), MINIONS, "{stdout}");
    for b in &ours {
        assert_eq!(b, &salt_blocks[0], "{stdout}");
    }
    assert!(mask(&stdout).starts_with('\n'));

    // The down minion is named and gets no job; the others all run.
    let out = conf.cli("brine", &["-b", "2", "--out", "json", "*", "test.ping"]);
    let (stdout, _) = text(&out);
    assert!(out.status.success());
    assert!(
        stdout
            .starts_with("Minion db1 did not respond. No job will be sent.\n\nExecuting run on ["),
        "{stdout}"
    );
    assert_eq!(
        stdout.matches("\"retcode\": 0,").count(),
        MINIONS,
        "{stdout}"
    );
    assert!(!stdout.contains("\"db1\""));

    // Never more than two at once: the third start comes a full second
    // (the sleep) after the first.
    let sleep = ["cmd.run", "date +%s.%N; sleep 1", "python_shell=True"];
    let mut args = vec!["-b", "2", "-t", "30", "--out", "json", "web-*"];
    args.extend(sleep);
    let out = conf.cli("brine", &args);
    assert!(out.status.success(), "{:?}", text(&out));
    let s = starts(&out);
    assert_eq!(s.len(), MINIONS);
    for w in s.windows(3) {
        assert!(w[2] - w[0] >= 0.9, "three minions ran at once: {s:?}");
    }
    // The same with room for all: they overlap (the swarm runs jobs
    // concurrently, so the check above can fail).
    let mut args = vec!["-b", "100%", "-t", "30", "--out", "json", "web-*"];
    args.extend(sleep);
    let s = starts(&conf.cli("brine", &args));
    assert!(s[MINIONS - 1] - s[0] < 0.9, "{s:?}");

    // The exit code is the highest retcode; --failhard stops at the first.
    let fail = ["cmd.run", "exit 3", "python_shell=True"];
    let mut args = vec!["-b", "2", "web-*"];
    args.extend(fail);
    let out = conf.cli("brine", &args);
    assert_eq!(out.status.code(), Some(3), "{:?}", text(&out));
    assert_eq!(text(&out).0.matches("retcode:\n    3\n").count(), MINIONS);
    let mut args = vec!["-b", "1", "--failhard", "web-*"];
    args.extend(fail);
    let out = conf.cli("brine", &args);
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(3));
    assert_eq!(
        blocks(&stdout),
        blocks(salt_record("b1-failhard")["stdout"].as_str().unwrap_or(""))
    );
    assert!(stderr.contains(
        "[ERROR   ] Minion web-0000 returned with non-zero exit code. Batch run stopped due to failhard"
    ), "{stderr}");

    // A highstate: the retcode and jid printed before the states.
    let out = conf.cli(
        "brine",
        &["-b", "3", "web-0000", "state.apply", "test=True"],
    );
    assert!(out.status.success(), "{:?}", text(&out));
    let ours = mask_jids(&text(&out).0);
    let times = regex::Regex::new(r"(Started: |Duration: |run time: +)[\d.:]+").expect("regex");
    let masked = |t: &str| times.replace_all(t, "${1}T").into_owned();
    assert_eq!(
        masked(&ours).replace("web-0000", "web1"),
        masked(&mask_jids(
            salt_record("b3-state")["stdout"].as_str().unwrap_or("")
        ))
    );

    // An invalid size: Salt's message (Salt then fails with a traceback).
    let out = conf.cli("brine", &["-b", "x", "web-*", "test.ping"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        text(&out).0,
        salt_record("b-invalid")["stdout"].as_str().unwrap_or("")
    );
    // Nothing matched.
    let out = conf.cli("brine", &["-b", "1", "nomatch*", "test.ping"]);
    assert!(out.status.success());
    assert_eq!(
        text(&out).0,
        salt_record("b-nomatch")["stdout"].as_str().unwrap_or("")
    );
    // --static: one document at the end.
    let out = conf.cli(
        "brine",
        &["-b", "2", "--static", "--out", "json", "web-*", "test.ping"],
    );
    assert!(out.status.success());
    let doc = json_docs(&out.stdout).expect("json");
    assert_eq!(doc.as_object().map(|o| o.len()), Some(MINIONS));
}
