//! Returns reach the CLI as a stream of bounded pages: a job whose returns
//! together are far larger than the largest message (32 MB) is shown whole,
//! every minion's return printed, by a real `brine` against a real
//! `brine-master` on 127.0.0.1.

use brine_core::Value;
use brine_protocol::messages::{AuthStatus, MAX_MESSAGE_BYTES};
use brine_tests::daemon::{json_out, MasterConf, ScriptedMinion};
use serde_json::json;
use std::io::Read;
use std::process::{Child, Output};
use std::time::Duration;

/// Minions and the size of each one's return: 72 × 1 MB, more than twice
/// the largest message.
const MINIONS: usize = 72;
const RETURN_BYTES: usize = 1_000_000;

#[test]
fn a_job_larger_than_any_message_is_shown_whole() {
    const { assert!(MINIONS * RETURN_BYTES > 2 * MAX_MESSAGE_BYTES) };
    let conf = MasterConf::new("auto_accept: True\n");
    let _master = conf.start();
    let minions: Vec<ScriptedMinion> = (0..MINIONS)
        .map(|n| ScriptedMinion::new(&format!("big-{n:02}"), &conf, json!({})))
        .collect();
    for m in &minions {
        assert_eq!(m.auth(), AuthStatus::Accepted);
    }
    let mut sub = minions[0].subscribe(conf.publish_addr());
    let cli = conf.spawn_cli(
        "brine",
        &["--out", "json", "-t", "120", "big-*", "test.ping"],
    );
    let (publication, _) = sub.next(Duration::from_secs(20)).expect("publication");
    for (n, m) in minions.iter().enumerate() {
        // Each return its own letter, so a mixed-up page would show.
        let letter = char::from(b'a' + (n % 26) as u8);
        let big = Value::Str(letter.to_string().repeat(RETURN_BYTES));
        m.send_return(&publication.jid, "test.ping", big)
            .expect("return acked");
    }
    let (out, brine_kb) = output_sampling_rss(cli);
    assert!(
        out.status.success(),
        "exit {:?}: {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    let shown = json_out(&out);
    let shown = shown.as_object().expect("one object per minion");
    assert_eq!(shown.len(), MINIONS, "every minion's return is shown");
    for n in 0..MINIONS {
        let letter = char::from(b'a' + (n % 26) as u8);
        let text = shown[&format!("big-{n:02}")].as_str().expect("a string");
        assert_eq!(text.len(), RETURN_BYTES);
        assert!(text.chars().all(|c| c == letter), "big-{n:02}");
    }

    // jobs.lookup_jid prints the same job from the job cache, read and
    // printed a page at a time.
    let (looked_up, run_kb) = output_sampling_rss(conf.spawn_cli(
        "brine-run",
        &["--out", "json", "jobs.lookup_jid", &publication.jid],
    ));
    assert!(
        looked_up.status.success(),
        "exit {:?}: {}",
        looked_up.status,
        String::from_utf8_lossy(&looked_up.stderr)
    );
    // salt-run prints one object, minion → return.
    let one: serde_json::Value =
        serde_json::from_slice(&looked_up.stdout).expect("brine-run prints one JSON object");
    let one = one.as_object().expect("an object");
    assert_eq!(one.len(), MINIONS);
    assert!(one == shown, "brine-run prints the returns brine showed");
    // Neither CLI held the job while printing it.
    let job_kb = (MINIONS * RETURN_BYTES / 1024) as u64;
    assert_bounded("brine", &brine_kb, job_kb);
    assert_bounded("brine-run", &run_kb, job_kb);
}

/// A CLI's output, read a MB at a time, and what it held resident
/// (`VmRSS` of /proc/PID/status, kB) each time it had written another MB:
/// what a CLI holds while it waits on the pipe is resident then, so one
/// that gathered the whole job before printing shows it.
fn output_sampling_rss(mut child: Child) -> (Output, Vec<u64>) {
    let mut stdout = child.stdout.take().expect("piped stdout");
    let status_file = format!("/proc/{}/status", child.id());
    let resident = || {
        std::fs::read_to_string(&status_file)
            .ok()
            .and_then(|s| {
                s.lines()
                    .find_map(|l| l.strip_prefix("VmRSS:"))
                    .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
            })
            .unwrap_or(0)
    };
    let mut out = Vec::new();
    let mut samples = Vec::new();
    let mut chunk = vec![0u8; 1 << 20];
    loop {
        let mut filled = 0;
        while filled < chunk.len() {
            match stdout.read(&mut chunk[filled..]) {
                Ok(0) => break,
                Ok(n) => filled += n,
                Err(e) => panic!("reading the CLI's stdout: {e}"),
            }
        }
        // The pipe is drained, the CLI is writing or blocked on it.
        samples.push(resident());
        out.extend_from_slice(&chunk[..filled]);
        if filled < chunk.len() {
            break;
        }
    }
    let mut stderr = Vec::new();
    if let Some(mut e) = child.stderr.take() {
        e.read_to_end(&mut stderr).expect("stderr");
    }
    let status = child.wait().expect("wait");
    (
        Output {
            status,
            stdout: out,
            stderr,
        },
        samples,
    )
}

/// Printing `job_kb` of returns, a CLI held less than the job and no more
/// at the end than early on: its memory is bounded by a page, not the job.
fn assert_bounded(cli: &str, samples: &[u64], job_kb: u64) {
    let peak = samples.iter().copied().max().unwrap_or(0);
    let early = samples[..samples.len() / 4]
        .iter()
        .copied()
        .max()
        .unwrap_or(0);
    let late = samples[samples.len() / 2..]
        .iter()
        .copied()
        .max()
        .unwrap_or(0);
    eprintln!("{cli}: resident at most {peak} kB (first quarter {early}, second half {late}) printing a {job_kb} kB job");
    assert!(peak > 0, "{cli}: no sample of its memory");
    assert!(
        peak < job_kb,
        "{cli} held {peak} kB printing a {job_kb} kB job"
    );
    assert!(
        late <= early + 8 * 1024,
        "{cli} grew from {early} kB to {late} kB while printing"
    );
}
