//! Returns reach the CLI as a stream of bounded pages: a job whose returns
//! together are far larger than the largest message (32 MB) is shown whole,
//! every minion's return printed, by a real `brine` against a real
//! `brine-master` on 127.0.0.1.

use brine_core::Value;
use brine_protocol::messages::{AuthStatus, MAX_MESSAGE_BYTES};
use brine_tests::daemon::{json_out, MasterConf, ScriptedMinion};
use serde_json::json;
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
    let out = cli.wait_with_output().expect("brine");
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
}
